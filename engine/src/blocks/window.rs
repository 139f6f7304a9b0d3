//! Window: at most so much in flight, after Exon's send window and node
//! limit and Gfarm's per-type windows.
//!
//! Guarantees:
//! - A message passes only if, in its scope, the messages (and bytes) in
//!   flight stay within `max_messages` (and `max_bytes`; 0 = no bound in
//!   that dimension). Otherwise it is refused and the sender holds it.
//! - `scope`: `shared` counts every message against one window (so one slow
//!   destination throttles traffic to all), `per_destination` keeps one
//!   window per destination, `per_class` one per message class.
//! - A message stays in flight until it is acknowledged, `ack_latency_s`
//!   after its acknowledgement is due: with `opens_on: receipt` when the
//!   receiving block (the first queue or consumer after the window) takes
//!   it, with `opens_on: processing` when a consumer finishes it. A message
//!   dropped on the way counts as acknowledged when it is dropped.
//! - With `receipts` (Exon's receipts sharing the sending node's inbound
//!   path), an acknowledgement that arrives is not yet room: the
//!   transport turns it into a receipt (a message of class `receipt`)
//!   offered to the block named `receipts.to`, the node's receipt queue,
//!   and the window opens only when the middleware has read it (a consumer
//!   or dispatcher finishes it, or it is dropped). If the receipt queue is
//!   full, the ACK is not accepted: `retransmit_after_s` later the message
//!   is retransmitted (`retransmitted`, `retransmitted_bytes`). If it
//!   crossed a link, the copy goes on that link's wire again, ahead of new
//!   data, taking its bandwidth (the wasted bandwidth), and the far end
//!   acknowledges it again when it arrives (it discards the duplicate); with
//!   no link on its way, the ACK comes back at the time-out.
//! - When room opens, the window wakes its senders.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::context::Context;
use crate::message::{Message, NO_DESTINATION};
use crate::plumbing::validate::{check_range, push_error, FieldError};
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowSpec {
    #[serde(default)]
    pub max_messages: u64,
    #[serde(default)]
    pub max_bytes: u64,
    #[serde(default)]
    pub scope: Scope,
    #[serde(default)]
    pub opens_on: OpensOn,
    #[serde(default)]
    pub ack_latency_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipts: Option<Receipts>,
}

/// Where a window's receipts go, and what a refused ACK costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipts {
    /// The id of the receipt queue: a queue, dispatcher or consumer.
    pub to: String,
    /// Seconds until an ACK that was not accepted comes again.
    #[serde(default = "default_retransmit")]
    pub retransmit_after_s: f64,
    /// The size of one receipt.
    #[serde(default = "default_receipt_bytes")]
    pub size_bytes: u32,
}

fn default_retransmit() -> f64 {
    0.2
}

fn default_receipt_bytes() -> u32 {
    64
}

/// The class name receipts carry.
pub const RECEIPT_CLASS: &str = "receipt";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    #[default]
    Shared,
    PerDestination,
    PerClass,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpensOn {
    /// The transport's first acknowledgement: the receiver got it.
    #[default]
    Receipt,
    /// The receiver finished processing it.
    Processing,
}

impl WindowSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.max_messages == 0 && self.max_bytes == 0 {
            push_error(errors, format!("{path}.max_messages"), "a window of 0 lets nothing through: set max_messages or max_bytes above 0");
        }
        for (field, value) in [("max_messages", self.max_messages), ("max_bytes", self.max_bytes)] {
            if value > crate::blocks::queue::MAX_LIMIT {
                push_error(errors, format!("{path}.{field}"), format!("must be at most {}", crate::blocks::queue::MAX_LIMIT));
            }
        }
        check_range(errors, format!("{path}.ack_latency_s"), self.ack_latency_s, 0.0, 1e6);
        if let Some(r) = &self.receipts {
            // A transport retransmits after milliseconds, not less: a
            // shorter time would have every refused ACK come back a million
            // times a second, a run that never ends in practice.
            check_range(errors, format!("{path}.receipts.retransmit_after_s"), r.retransmit_after_s, 1e-3, 1e6);
            if r.size_bytes == 0 || r.size_bytes as f64 > crate::blocks::producer::MAX_MESSAGE_BYTES {
                push_error(errors, format!("{path}.receipts.size_bytes"), "must be between 1 and 2^30");
            }
        }
    }
}

/// The key of the scope a message counts in.
pub fn scope_key(scope: Scope, msg: &Message) -> usize {
    match scope {
        Scope::Shared => 0,
        Scope::PerDestination if msg.destination == NO_DESTINATION => 0,
        Scope::PerDestination => msg.destination as usize + 1,
        Scope::PerClass => msg.class as usize,
    }
}

/// What one scope has in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InFlight {
    pub messages: u64,
    pub bytes: u64,
}

/// Acknowledgements on their way back, due in time order, each with what
/// its owner needs to know of it beyond its scope and bytes (`T`).
#[derive(Clone, Debug)]
pub struct PendingAcks<T = ()> {
    due: VecDeque<(SimTime, usize, u64, T)>,
    /// The time the scheduled timer fires, if one is scheduled.
    timer: Option<SimTime>,
}

impl<T> Default for PendingAcks<T> {
    fn default() -> Self {
        PendingAcks { due: VecDeque::new(), timer: None }
    }
}

impl PendingAcks<()> {
    /// Adds an acknowledgement of `bytes` in scope `key`, due at `at`.
    pub fn add(&mut self, at: SimTime, key: usize, bytes: u64, ctx: &mut Context) {
        self.add_with(at, key, bytes, (), ctx);
    }

    /// Takes every acknowledgement due by `now`, and sets the next timer.
    pub fn take_due(&mut self, ctx: &mut Context) -> Vec<(usize, u64)> {
        self.take_due_with(ctx).into_iter().map(|(key, bytes, ())| (key, bytes)).collect()
    }
}

impl<T> PendingAcks<T> {
    /// Adds an acknowledgement of `bytes` in scope `key`, due at `at`,
    /// carrying `extra`.
    pub fn add_with(&mut self, at: SimTime, key: usize, bytes: u64, extra: T, ctx: &mut Context) {
        // Latency changes while running can make a later add due earlier.
        let pos = self.due.iter().rposition(|(t, _, _, _)| *t <= at).map_or(0, |p| p + 1);
        self.due.insert(pos, (at, key, bytes, extra));
        if self.timer.is_none_or(|t| at < t) {
            self.timer = Some(at);
            ctx.core.scheduler.schedule(at, ctx.node, EventKind::AckDue, 0);
        }
    }

    /// Takes every acknowledgement due by `now` with what it carries, and
    /// sets the next timer.
    pub fn take_due_with(&mut self, ctx: &mut Context) -> Vec<(usize, u64, T)> {
        if self.timer.is_some_and(|t| t <= ctx.core.now) {
            self.timer = None;
        }
        let mut out = Vec::new();
        while self.due.front().is_some_and(|d| d.0 <= ctx.core.now) {
            let Some((_, key, bytes, extra)) = self.due.pop_front() else { break };
            out.push((key, bytes, extra));
        }
        if let (None, Some(&(t, ..))) = (self.timer, self.due.front()) {
            self.timer = Some(t);
            ctx.core.scheduler.schedule(t, ctx.node, EventKind::AckDue, 0);
        }
        out
    }
}

/// A window counts what is in flight in every scope at once (all
/// together, per destination, per class), so that a change of scope while
/// running finds each new scope's count exact, and each acknowledgement
/// releases the scopes its message was counted in.
#[derive(Clone)]
pub struct Window {
    spec: WindowSpec,
    /// By `scope_key(PerDestination, _)`.
    by_destination: Vec<InFlight>,
    /// By `scope_key(PerClass, _)`.
    by_class: Vec<InFlight>,
    total: InFlight,
    acks: PendingAcks<Option<Wired>>,
    /// With receipts: the class index receipts carry, the receipts made
    /// and not yet read (by receipt id: the scope key and bytes of the
    /// message they stand for, and its wire), those due to be offered now,
    /// and what refused ACKs cost.
    receipt_class: u16,
    next_receipt: u64,
    unread: std::collections::BTreeMap<u64, (usize, u64, Option<Wired>)>,
    to_offer: Vec<Message>,
    /// With receipts: the link each message in flight crossed first (by
    /// message id), copies waiting for their retransmission time-out, and
    /// those due to go on their wire now.
    crossed: std::collections::BTreeMap<u64, u16>,
    resends: PendingAcks<Wired>,
    to_resend: Vec<Wired>,
    retransmitted: u64,
    retransmitted_bytes: u64,
    receipts_entered: u64,
}

/// A message that crossed a link, and the link: what a retransmission
/// sends again, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wired {
    pub link: usize,
    /// The window that sends it again, and hears its ACK again: the only
    /// one of the message's gates whose ACK was refused.
    pub window: usize,
    pub msg: Message,
}

/// A message's destination and class keys in one number, as pending
/// acknowledgements carry it: a destination key is at most `MAX_NODES`
/// (under 2^14), so 16 bits each fit even a 32-bit `usize`.
fn ack_key(msg: &Message) -> usize {
    (scope_key(Scope::PerDestination, msg) << 16) | scope_key(Scope::PerClass, msg)
}

fn count_in(counts: &mut Vec<InFlight>, key: usize, bytes: u64) {
    if counts.len() <= key {
        counts.resize(key + 1, InFlight::default());
    }
    counts[key].messages += 1;
    counts[key].bytes += bytes;
}

fn count_out(counts: &mut [InFlight], key: usize, bytes: u64) {
    if let Some(f) = counts.get_mut(key) {
        f.messages = f.messages.saturating_sub(1);
        f.bytes = f.bytes.saturating_sub(bytes);
    }
}

impl Window {
    pub fn new(spec: WindowSpec) -> Self {
        Window {
            spec,
            by_destination: Vec::new(),
            by_class: Vec::new(),
            total: InFlight::default(),
            acks: PendingAcks::default(),
            receipt_class: u16::MAX,
            next_receipt: 0,
            unread: Default::default(),
            to_offer: Vec::new(),
            crossed: Default::default(),
            resends: PendingAcks::default(),
            to_resend: Vec::new(),
            retransmitted: 0,
            retransmitted_bytes: 0,
            receipts_entered: 0,
        }
    }

    pub fn spec(&self) -> &WindowSpec {
        &self.spec
    }

    pub fn reconfigure(&mut self, spec: WindowSpec) {
        self.spec = spec;
    }

    /// Everything in flight, all scopes together.
    pub fn in_flight(&self) -> InFlight {
        self.total
    }

    /// What each scope has in flight (one entry per destination or class
    /// seen, or one for a shared window).
    pub fn in_flight_by_scope(&self) -> &[InFlight] {
        match self.spec.scope {
            Scope::Shared => std::slice::from_ref(&self.total),
            Scope::PerDestination => &self.by_destination,
            Scope::PerClass => &self.by_class,
        }
    }

    /// Whether `msg` may pass now.
    pub fn admits(&self, msg: &Message) -> bool {
        let key = scope_key(self.spec.scope, msg);
        let f = self.in_flight_by_scope().get(key).copied().unwrap_or_default();
        let size = msg.size_bytes as u64;
        let fits_messages = self.spec.max_messages == 0 || f.messages < self.spec.max_messages;
        // A message larger than the whole byte window may pass alone.
        let fits_bytes = self.spec.max_bytes == 0 || f.bytes == 0 || f.bytes + size <= self.spec.max_bytes;
        fits_messages && fits_bytes
    }

    /// The next block took `msg`: it is in flight.
    pub fn sent(&mut self, msg: &Message, ctx: &mut Context) {
        let size = msg.size_bytes as u64;
        count_in(&mut self.by_destination, scope_key(Scope::PerDestination, msg), size);
        count_in(&mut self.by_class, scope_key(Scope::PerClass, msg), size);
        self.total.messages += 1;
        self.total.bytes += size;
        ctx.stats.arrived += 1;
        ctx.stats.departed += 1;
        self.record(ctx);
    }

    /// Whether this window waits for `receipt` (else for processing).
    pub fn opens_on_receipt(&self) -> bool {
        self.spec.opens_on == OpensOn::Receipt
    }

    /// The acknowledgement of `msg` is due now; it arrives after the latency.
    pub fn acknowledge(&mut self, msg: &Message, ctx: &mut Context) {
        let wired = self.crossed.remove(&msg.id).map(|link| Wired { link: link as usize, window: ctx.node, msg: *msg });
        self.acknowledge_wired(msg, wired, ctx);
    }

    /// A copy sent again over `wired.link` reached the far end, which
    /// acknowledges it again.
    pub fn acknowledge_copy(&mut self, wired: Wired, ctx: &mut Context) {
        self.acknowledge_wired(&wired.msg, Some(wired), ctx);
    }

    fn acknowledge_wired(&mut self, msg: &Message, wired: Option<Wired>, ctx: &mut Context) {
        let at = ctx.core.now + SimDuration::from_secs_f64(self.spec.ack_latency_s);
        self.acks.add_with(at, ack_key(msg), msg.size_bytes as u64, wired, ctx);
    }

    /// With receipts, `msg` went on link `link`'s wire: a retransmission
    /// sends it there again. Only the first link it crosses counts.
    pub fn crossed(&mut self, msg: &Message, link: usize) {
        if self.spec.receipts.is_some() {
            self.crossed.entry(msg.id).or_insert(link as u16);
        }
    }

    /// Acknowledgements arrive. Returns whether room opened. With
    /// receipts, each becomes a receipt to offer (`take_receipts`) instead.
    pub fn on_ack_due(&mut self, ctx: &mut Context) -> bool {
        for (_, _, wired) in self.resends.take_due_with(ctx) {
            self.to_resend.push(wired);
        }
        let due = self.acks.take_due_with(ctx);
        if self.spec.receipts.is_some() && self.receipt_class != u16::MAX {
            for (key, bytes, wired) in due {
                let id = ((ctx.node as u64) << 40) | self.next_receipt;
                self.next_receipt += 1;
                self.unread.insert(id, (key, bytes, wired));
                let size = self.spec.receipts.as_ref().map_or(64, |r| r.size_bytes);
                let mut gates = crate::message::Gates::default();
                gates.push(ctx.node);
                self.to_offer.push(Message {
                    id,
                    created: ctx.core.now,
                    size_bytes: size,
                    source: ctx.node as crate::message::NodeRef,
                    destination: NO_DESTINATION,
                    class: self.receipt_class,
                    priority: 0,
                    entered_priority: 0,
                    droppable: false,
                    attempts: 0,
                    resent: 0,
                    key: crate::message::NO_KEY,
                    gates,
                });
            }
            return false;
        }
        for &(key, bytes, _) in &due {
            self.release(key, bytes);
        }
        if !due.is_empty() {
            self.record(ctx);
        }
        !due.is_empty()
    }

    fn release(&mut self, key: usize, bytes: u64) {
        count_out(&mut self.by_destination, key >> 16, bytes);
        count_out(&mut self.by_class, key & 0xffff, bytes);
        self.total.messages = self.total.messages.saturating_sub(1);
        self.total.bytes = self.total.bytes.saturating_sub(bytes);
    }

    /// The class index receipts carry (set by the simulation).
    pub fn set_receipt_class(&mut self, class: u16) {
        self.receipt_class = class;
    }

    /// Receipts to offer to the receipt queue now.
    pub fn take_receipts(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.to_offer)
    }

    /// Whether `msg` is one of this window's receipts.
    pub fn is_receipt(&self, msg: &Message) -> bool {
        msg.class == self.receipt_class && self.unread.contains_key(&msg.id)
    }

    /// The receipt queue refused `receipt`: the ACK was not accepted. The
    /// message is sent again when the retransmission time-out fires: over
    /// the link it crossed, whose wire carries it again and whose far end
    /// acknowledges it again (`take_resends`); with no link on its way,
    /// its ACK simply comes back then.
    pub fn receipt_refused(&mut self, receipt: &Message, ctx: &mut Context) {
        let Some((key, bytes, wired)) = self.unread.remove(&receipt.id) else { return };
        self.retransmitted += 1;
        self.retransmitted_bytes += bytes;
        let after = self.spec.receipts.as_ref().map_or(0.2, |r| r.retransmit_after_s);
        let at = ctx.core.now + SimDuration::from_secs_f64(after);
        match wired {
            Some(w) => self.resends.add_with(at, key, bytes, w, ctx),
            None => self.acks.add_with(at, key, bytes, None, ctx),
        }
    }

    /// Copies whose retransmission time-out fired: each goes on its link's
    /// wire now.
    pub fn take_resends(&mut self) -> Vec<Wired> {
        std::mem::take(&mut self.to_resend)
    }

    /// The middleware read `receipt` (or it was dropped): room opens.
    /// Returns whether it did.
    pub fn receipt_read(&mut self, receipt: &Message, ctx: &mut Context) -> bool {
        let Some((key, bytes, _)) = self.unread.remove(&receipt.id) else { return false };
        self.release(key, bytes);
        self.record(ctx);
        true
    }

    /// The receipt queue took a receipt: a message now in the system.
    pub fn receipt_entered(&mut self) {
        self.receipts_entered += 1;
    }

    /// Receipts that entered the system.
    pub fn receipts_entered(&self) -> u64 {
        self.receipts_entered
    }

    /// Messages sent again because their ACK was not accepted, and their
    /// bytes.
    pub fn retransmitted(&self) -> (u64, u64) {
        (self.retransmitted, self.retransmitted_bytes)
    }

    fn record(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.core.now, self.total.messages, self.total.bytes);
    }
}

impl WindowSpec {
    /// Its number field at `steps` (a slider's, a sweep's).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("max_messages")] => Some(NumberField::Whole64(&mut self.max_messages)),
            [Step::Key("max_bytes")] => Some(NumberField::Whole64(&mut self.max_bytes)),
            [Step::Key("ack_latency_s")] => Some(NumberField::Real(&mut self.ack_latency_s)),
            [Step::Key("receipts"), rest @ ..] => {
                let receipts = self.receipts.as_mut()?;
                match rest {
                    [Step::Key("retransmit_after_s")] => Some(NumberField::Real(&mut receipts.retransmit_after_s)),
                    [Step::Key("size_bytes")] => Some(NumberField::Whole32(&mut receipts.size_bytes)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::bench::Bench;

    fn window(spec: serde_json::Value) -> Window {
        Window::new(crate::plumbing::json_read::from_value(&spec).unwrap())
    }

    /// Offers `msg` as the simulation does: sent if admitted.
    fn pass(w: &mut Window, b: &mut Bench, msg: Message) -> bool {
        let admitted = w.admits(&msg);
        if admitted {
            w.sent(&msg, &mut b.ctx());
        }
        admitted
    }

    /// The fields `validate` refuses in `spec`, by name.
    fn refused(spec: serde_json::Value) -> Vec<String> {
        let spec: WindowSpec = crate::plumbing::json_read::from_value(&spec).unwrap();
        let mut errors = Vec::new();
        spec.validate("w", &mut errors);
        errors.into_iter().map(|e| e.path).collect()
    }

    #[test]
    fn its_bounds_are_taken_at_their_edges_and_refused_beyond() {
        let top = crate::blocks::queue::MAX_LIMIT;
        assert_eq!(refused(json!({"max_messages": 1})), Vec::<String>::new());
        assert_eq!(refused(json!({"max_bytes": 1})), Vec::<String>::new());
        assert_eq!(refused(json!({"max_messages": 0, "max_bytes": 0})), ["w.max_messages"], "a window of nothing");
        assert_eq!(refused(json!({"max_messages": top, "max_bytes": top})), Vec::<String>::new());
        assert_eq!(refused(json!({"max_messages": top + 1})), ["w.max_messages"]);
        assert_eq!(refused(json!({"max_messages": 1, "max_bytes": top + 1})), ["w.max_bytes"]);
        let receipts = |retransmit: f64, size: u64| json!({"max_messages": 1, "receipts": {"to": "inbox", "retransmit_after_s": retransmit, "size_bytes": size}});
        assert_eq!(refused(receipts(0.001, 1)), Vec::<String>::new());
        assert_eq!(refused(receipts(0.001, 1 << 30)), Vec::<String>::new());
        assert_eq!(refused(receipts(0.000_999, 1)), ["w.receipts.retransmit_after_s"]);
        assert_eq!(refused(receipts(0.2, 0)), ["w.receipts.size_bytes"]);
        assert_eq!(refused(receipts(0.2, (1 << 30) + 1)), ["w.receipts.size_bytes"]);
    }

    #[test]
    fn acknowledgements_added_out_of_order_come_due_in_order_with_one_timer_each_time_it_moves_earlier() {
        let mut b = Bench::new();
        let mut acks = PendingAcks::default();
        let at = |s: f64| SimTime::from_secs_f64(s);
        acks.add(at(0.5), 1, 10, &mut b.ctx());
        // A latency lowered while running: due before what is pending.
        acks.add(at(0.2), 2, 20, &mut b.ctx());
        // Due with the timer already set for it, and after an equal one.
        acks.add(at(0.2), 4, 40, &mut b.ctx());
        acks.add(at(0.5), 3, 30, &mut b.ctx());
        assert_eq!(b.core.scheduler.len(), 2, "a timer at 0.5 s, then one at 0.2 s, no more");
        assert_eq!(b.core.scheduler.peek_time(), Some(at(0.2)));
        b.at(0.2);
        assert_eq!(acks.take_due(&mut b.ctx()), vec![(2, 20), (4, 40)]);
        b.at(0.5);
        assert_eq!(acks.take_due(&mut b.ctx()), vec![(1, 10), (3, 30)], "equal instants in the order they came");
    }

    #[test]
    fn receipts_written_with_their_queue_alone_take_the_documented_defaults() {
        let spec: WindowSpec = crate::plumbing::json_read::from_value(&json!({"max_messages": 2, "receipts": {"to": "inbox"}})).unwrap();
        let r = spec.receipts.unwrap();
        assert_eq!((r.retransmit_after_s, r.size_bytes), (0.2, 64));
    }

    #[test]
    fn per_destination_a_message_addressed_to_no_one_has_a_scope_of_its_own() {
        let mut b = Bench::new();
        let to = |b: &mut Bench, destination: u16| Message { destination, ..b.message(100, 0) };
        let (none, first, fourth) = (to(&mut b, NO_DESTINATION), to(&mut b, 0), to(&mut b, 3));
        let keys = [none, first, fourth].map(|m| scope_key(Scope::PerDestination, &m));
        assert_eq!(keys, [0, 1, 4], "no destination, node 0 and node 3 each apart");
        assert_eq!(scope_key(Scope::Shared, &fourth), 0);
    }

    #[test]
    fn a_full_window_refuses_until_an_acknowledgement_arrives_after_its_latency() {
        let mut b = Bench::new();
        let mut w = window(json!({"max_messages": 2, "ack_latency_s": 0.5}));
        let (m1, m2, m3) = (b.message(100, 0), b.message(100, 0), b.message(100, 0));
        assert!(pass(&mut w, &mut b, m1) && pass(&mut w, &mut b, m2));
        assert!(!pass(&mut w, &mut b, m3), "two in flight: the third waits");
        b.at(1.0);
        w.acknowledge(&m1, &mut b.ctx());
        assert!(!w.on_ack_due(&mut b.ctx()) && !w.admits(&m3), "the acknowledgement is on its way");
        b.at(1.5);
        assert!(w.on_ack_due(&mut b.ctx()), "room opened: the senders are woken");
        assert_eq!(w.in_flight().messages, 1);
        assert!(pass(&mut w, &mut b, m3));
        assert!(!w.admits(&b.message(100, 0)));
    }

    #[test]
    fn a_byte_window_counts_sizes_and_lets_one_message_larger_than_it_pass_alone() {
        let mut b = Bench::new();
        let mut w = window(json!({"max_messages": 0, "max_bytes": 1000}));
        let (small, more) = (b.message(600, 0), b.message(600, 0));
        assert!(pass(&mut w, &mut b, small));
        assert!(!pass(&mut w, &mut b, more), "600 + 600 > 1000");
        let exact = b.message(400, 0);
        assert!(pass(&mut w, &mut b, exact), "600 + 400 = 1000 fits");
        let mut w = window(json!({"max_messages": 0, "max_bytes": 1000}));
        let huge = b.message(5000, 0);
        assert!(pass(&mut w, &mut b, huge), "alone, a message larger than the window passes");
        assert!(!pass(&mut w, &mut b, small));
    }

    #[test]
    fn per_destination_windows_count_every_class_of_a_destination_together_and_no_other() {
        let mut b = Bench::new();
        let mut w = window(json!({"max_messages": 2, "scope": "per_destination"}));
        let to = |b: &mut Bench, destination: u16, class: u16| Message { destination, ..b.message(100, class) };
        let (a1, a2, a3) = (to(&mut b, 5, 0), to(&mut b, 5, 1), to(&mut b, 5, 2));
        assert!(pass(&mut w, &mut b, a1) && pass(&mut w, &mut b, a2));
        assert!(!pass(&mut w, &mut b, a3), "two classes to one destination fill its window");
        let b1 = to(&mut b, 6, 2);
        assert!(pass(&mut w, &mut b, b1), "another destination has its own");
        let mut w = window(json!({"max_messages": 1, "scope": "per_class"}));
        let (c1, c2, c3) = (to(&mut b, 5, 0), to(&mut b, 6, 0), to(&mut b, 5, 1));
        assert!(pass(&mut w, &mut b, c1));
        assert!(!pass(&mut w, &mut b, c2), "one class to two destinations shares one window");
        assert!(pass(&mut w, &mut b, c3));
    }
}
