//! Link: a connection with bandwidth, latency and a send buffer, after the
//! socket of the Moment media server, arataga's bandwidth limits and
//! Gfarm's hosts going down and up.
//!
//! Guarantees:
//! - The send buffer holds at most `buffer` (messages and/or bytes; 0 = no
//!   bound). A message that does not fit is refused: that refusal is the
//!   "would block" (EAGAIN) that puts a sending queue in `Overloaded`.
//! - Messages go on the wire one at a time, in order, each taking
//!   size / `bandwidth_bytes_per_s` seconds (0 = no limit), then arrive
//!   `latency_s` later at the next block, in order.
//! - TCP's flow control: the far end's receive buffer (`receive_buffer`,
//!   messages and/or bytes; 0 = no bound) holds what was sent and not yet
//!   read by the next block. The link puts a message on the wire only if it
//!   fits in the window the far end last advertised: from the start of its
//!   transmission until the window update that follows its reading reaches
//!   the sender, `latency_s` after the next block took it, a message
//!   occupies the window. When the window is full the link stops sending,
//!   its send buffer fills, and a write would block: a slow reader leads to
//!   "would block" as surely as a slow network. (An empty window takes any
//!   one message, however large.)
//! - If the next block refuses an arriving message, the link holds it and
//!   everything behind it until woken (head-of-line blocking). One
//!   exception, the Moment server's "stop reading the client, but accept
//!   its ping replies": a queue that asks its inputs to pause refuses what
//!   a link brings it (the server does not read it: it stays in the receive
//!   buffer, in the window); the link then still offers the messages behind
//!   it, which may be bound elsewhere (a router's other outputs), keeping
//!   each unread message in its place. When the queue lifts its pause, the
//!   link offers what it kept, in order.
//! - A window's retransmission (its ACK was not accepted) puts a copy of a
//!   message this link carried on its wire again, ahead of the send
//!   buffer's data (`resend`): the copy takes its bandwidth, is not in the
//!   send buffer nor in the receive window, and at the far end is not
//!   delivered (the receiving transport discards a duplicate) but
//!   acknowledged again (`arrived_copies`). `retransmitted` counts them.
//! - `down`: periods during which the link is down. Going down loses the
//!   messages on the wire and those the far end had not read yet (the
//!   connection is reset; `link_down`) and stops sending; the send buffer
//!   keeps what it holds and refuses when full. Coming up resumes sending.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::state::{Cause, State};
use crate::blocks::queue::Limits;
use crate::blocks::window::Wired;
use crate::context::Context;
use crate::message::Message;
use crate::metrics::DropReason;
use crate::plumbing::validate::{check_periods, check_range, push_error, FieldError, Period};
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Bytes per second; 0 means no limit.
    #[serde(default)]
    pub bandwidth_bytes_per_s: f64,
    #[serde(default)]
    pub latency_s: f64,
    #[serde(default = "default_buffer")]
    pub buffer: Limits,
    /// The far end's receive buffer: what was sent and not yet read.
    #[serde(default = "default_buffer")]
    pub receive_buffer: Limits,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// When the link is down.
    pub down: Vec<Period>,
}

fn default_buffer() -> Limits {
    Limits { messages: 0, bytes: 65536 }
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec {
            bandwidth_bytes_per_s: 0.0,
            latency_s: 0.0,
            buffer: default_buffer(),
            receive_buffer: default_buffer(),
            down: Vec::new(),
        }
    }
}

impl LinkSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        check_range(errors, format!("{path}.bandwidth_bytes_per_s"), self.bandwidth_bytes_per_s, 0.0, 1e15);
        check_range(errors, format!("{path}.latency_s"), self.latency_s, 0.0, 1e6);
        for (name, limits) in [("buffer", self.buffer), ("receive_buffer", self.receive_buffer)] {
            for (field, value) in [("messages", limits.messages), ("bytes", limits.bytes)] {
                if value > crate::blocks::queue::MAX_LIMIT {
                    push_error(errors, format!("{path}.{name}.{field}"), format!("must be at most {}", crate::blocks::queue::MAX_LIMIT));
                }
            }
        }
        check_periods(errors, &format!("{path}.down"), self.down.iter().map(|d| (d.from_s, d.to_s)));
    }
}

#[derive(Clone)]
pub struct Link {
    spec: LinkSpec,
    /// Waiting to go on the wire.
    buffer: VecDeque<Message>,
    buffer_bytes: u64,
    /// On the wire or propagating, with the time each reaches the far end.
    flying: VecDeque<(SimTime, Message)>,
    /// The message being put on the wire, if any.
    transmitting: bool,
    up: bool,
    /// The far end refused an arrived message; waiting to be woken.
    blocked: bool,
    /// Arrived messages the far end did not read because a queue there
    /// asks its inputs to pause (indices into `flying`, ascending).
    unread: usize,
    /// What occupies the receive window: messages being transmitted, on
    /// the wire, arrived and unread, or read with the window update still
    /// on its way back.
    window_messages: u64,
    window_bytes: u64,
    /// Window updates on their way back: when each arrives, and the bytes
    /// it frees (one message each).
    updates: VecDeque<(SimTime, u32)>,
    /// A timer is set for the first of `updates`.
    update_timer: bool,
    /// A full window stopped the link with no update on its way: the next
    /// read sets the timer.
    awaiting_update: bool,
    /// When the propagation timer set last fires, if it has not yet.
    arrival_timer: Option<SimTime>,
    /// Copies to send again, the one being put on the wire (if
    /// `transmitting_copy`), and those on their way to the far end; copies
    /// carried so far.
    copies: VecDeque<Wired>,
    transmitting_copy: bool,
    copies_flying: VecDeque<(SimTime, Wired)>,
    retransmitted: u64,
    /// Bumped when the link goes down, so that stale timers are ignored.
    epoch: u32,
}

impl Link {
    pub fn new(spec: LinkSpec) -> Self {
        Link {
            spec,
            buffer: VecDeque::new(),
            buffer_bytes: 0,
            flying: VecDeque::new(),
            transmitting: false,
            up: true,
            blocked: false,
            unread: 0,
            window_messages: 0,
            window_bytes: 0,
            updates: VecDeque::new(),
            update_timer: false,
            awaiting_update: false,
            arrival_timer: None,
            copies: VecDeque::new(),
            transmitting_copy: false,
            copies_flying: VecDeque::new(),
            retransmitted: 0,
            epoch: 0,
        }
    }

    pub fn spec(&self) -> &LinkSpec {
        &self.spec
    }

    pub fn is_up(&self) -> bool {
        self.up
    }

    /// The messages it holds: waiting for the wire, then on it.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.buffer.iter().chain(self.flying.iter().map(|(_, m)| m))
    }

    /// Messages in the send buffer and on the wire.
    pub fn holds(&self) -> u64 {
        (self.buffer.len() + self.flying.len()) as u64
    }

    /// Schedules the up/down periods at the start of a run.
    pub fn start(&mut self, ctx: &mut Context) {
        for d in &self.spec.down {
            ctx.core.scheduler.schedule(SimTime::from_secs_f64(d.from_s), ctx.node, EventKind::LinkState, 0);
            ctx.core.scheduler.schedule(SimTime::from_secs_f64(d.to_s), ctx.node, EventKind::LinkState, 1);
        }
    }

    pub fn reconfigure(&mut self, spec: LinkSpec, ctx: &mut Context) {
        // The schedule is read at the start of a run; other fields apply to
        // the next message (a larger window may let it go at once).
        self.spec = LinkSpec { down: self.spec.down.clone(), ..spec };
        self.start_transmission(ctx);
    }

    /// Whether the receive window has room for a message of `size` bytes.
    fn window_fits(&self, size: u64) -> bool {
        self.window_messages == 0
            || !self.spec.receive_buffer.would_exceed(self.window_messages, self.window_bytes, size)
    }

    /// What occupies the receive window now (messages, bytes).
    pub fn window_used(&self) -> (u64, u64) {
        (self.window_messages, self.window_bytes)
    }

    fn release_window(&mut self, size: u32) {
        self.window_messages -= 1;
        self.window_bytes -= size as u64;
    }

    /// Whether the send buffer would refuse a message of `size` bytes.
    pub fn is_full(&self, size: u64) -> bool {
        let b = self.spec.buffer;
        let n = self.buffer.len() as u64;
        // An empty buffer takes any one message, however large.
        n > 0 && b.would_exceed(n, self.buffer_bytes, size)
    }

    /// Takes a message into the send buffer, or refuses it ("would block").
    pub fn offer(&mut self, msg: Message, ctx: &mut Context) -> bool {
        if self.is_full(msg.size_bytes as u64) {
            return false;
        }
        ctx.stats.arrived += 1;
        self.buffer.push_back(msg);
        self.buffer_bytes += msg.size_bytes as u64;
        self.record(ctx);
        self.start_transmission(ctx);
        true
    }

    /// A window sends `copy` again over this link: it goes on the wire
    /// before the send buffer's next message.
    pub fn resend(&mut self, copy: Wired, ctx: &mut Context) {
        self.copies.push_back(copy);
        self.start_transmission(ctx);
    }

    /// Copies put on the wire again so far.
    pub fn retransmitted(&self) -> u64 {
        self.retransmitted
    }

    /// The copies that reached the far end by `now`: each is acknowledged
    /// again by the window that sent it.
    pub fn arrived_copies(&mut self, now: SimTime) -> Vec<Wired> {
        let mut out = Vec::new();
        while self.copies_flying.front().is_some_and(|(t, _)| *t <= now) {
            if let Some((_, copy)) = self.copies_flying.pop_front() {
                out.push(copy);
            }
        }
        out
    }

    fn transmit_for(&mut self, size: u32, ctx: &mut Context) {
        let seconds = if self.spec.bandwidth_bytes_per_s > 0.0 {
            size as f64 / self.spec.bandwidth_bytes_per_s
        } else {
            0.0
        };
        self.transmitting = true;
        ctx.schedule_in(SimDuration::from_secs_f64(seconds), EventKind::Transmitted, self.epoch);
    }

    fn start_transmission(&mut self, ctx: &mut Context) {
        if self.transmitting || !self.up {
            return;
        }
        if let Some(copy) = self.copies.front() {
            // A retransmission goes first; the far end's transport takes it
            // whatever its window (it discards a duplicate).
            let size = copy.msg.size_bytes;
            self.transmitting_copy = true;
            self.transmit_for(size, ctx);
            return;
        }
        let Some(&head) = self.buffer.front() else { return };
        // Window updates are applied when the window is looked at; a timer
        // is set only when a full window stops the link.
        let now = ctx.core.now;
        while let Some(&(at, size)) = self.updates.front() {
            if at > now {
                break;
            }
            self.updates.pop_front();
            self.release_window(size);
        }
        if !self.window_fits(head.size_bytes as u64) {
            // A zero window: the next window update restarts the link.
            match self.updates.front() {
                Some(&(at, _)) if !self.update_timer => {
                    self.update_timer = true;
                    ctx.core.scheduler.schedule(at, ctx.node, EventKind::AckDue, 0);
                }
                Some(_) => {}
                None => self.awaiting_update = true,
            }
            return;
        }
        self.window_messages += 1;
        self.window_bytes += head.size_bytes as u64;
        self.transmit_for(head.size_bytes, ctx);
    }

    /// The head of the buffer is on the wire. Returns whether the buffer
    /// freed room (to wake the senders).
    pub fn on_transmitted(&mut self, epoch: u32, ctx: &mut Context) -> bool {
        if epoch != self.epoch || !self.transmitting {
            return false;
        }
        self.transmitting = false;
        let arrive = ctx.core.now + SimDuration::from_secs_f64(self.spec.latency_s);
        if std::mem::take(&mut self.transmitting_copy) {
            if let Some(copy) = self.copies.pop_front() {
                self.retransmitted += 1;
                self.copies_flying.push_back((arrive, copy));
                self.arm(arrive, ctx);
            }
            self.start_transmission(ctx);
            return false;
        }
        let Some(msg) = self.buffer.pop_front() else { return false };
        self.buffer_bytes -= msg.size_bytes as u64;
        self.flying.push_back((arrive, msg));
        if self.flying.len() == self.unread + 1 {
            // The next to offer: nothing ahead of it waits for a timer.
            self.arm(arrive, ctx);
        }
        self.record(ctx);
        self.start_transmission(ctx);
        true
    }

    /// The next message that has reached the far end and waits to be
    /// offered: the first past those kept unread.
    pub fn arrived_head(&self, now: SimTime) -> Option<Message> {
        self.flying.get(self.unread).filter(|(t, _)| *t <= now).map(|(_, m)| *m)
    }

    /// The next block took the message `arrived_head` gave: it is read,
    /// and the window update that frees its room sets off back.
    pub fn delivered_head(&mut self, ctx: &mut Context) {
        let Some((_, msg)) = self.flying.remove(self.unread) else { return };
        ctx.stats.departed += 1;
        self.blocked = false;
        let latency = SimDuration::from_secs_f64(self.spec.latency_s);
        if latency == SimDuration::ZERO {
            self.release_window(msg.size_bytes);
            self.awaiting_update = false;
            self.start_transmission(ctx);
        } else {
            let at = ctx.core.now + latency;
            self.updates.push_back((at, msg.size_bytes));
            if std::mem::take(&mut self.awaiting_update) && !self.update_timer {
                self.update_timer = true;
                ctx.core.scheduler.schedule(at, ctx.node, EventKind::AckDue, 0);
            }
        }
        self.record(ctx);
    }

    /// A window update reaches a sender stopped by a full window: the window
    /// opens by what the far end read, and a message waiting for room goes
    /// on the wire.
    pub fn on_window_update(&mut self, ctx: &mut Context) {
        self.update_timer = false;
        self.start_transmission(ctx);
    }

    /// The next block refused the message `arrived_head` gave: wait to be
    /// woken.
    pub fn head_refused(&mut self) {
        self.blocked = true;
    }

    /// A queue at the far end did not read the message `arrived_head` gave
    /// (it asks its inputs to pause): it stays where it is, in the window,
    /// and the messages behind it may be offered.
    pub fn head_unread(&mut self) {
        self.unread += 1;
    }

    /// Offer the kept messages again, from the first (a pause was lifted,
    /// or the next block was woken).
    pub fn reread(&mut self) {
        self.unread = 0;
        self.blocked = false;
    }

    /// Whether the link keeps messages its far end did not read.
    pub fn has_unread(&self) -> bool {
        self.unread > 0
    }

    pub fn is_blocked(&self) -> bool {
        self.blocked
    }

    /// Makes sure a timer is set for the next arrival behind the head,
    /// and for the next copy's.
    pub fn arm_next_arrival(&mut self, ctx: &mut Context) {
        let next = self.flying.get(self.unread).map(|(t, _)| *t);
        let copy = self.copies_flying.front().map(|(t, _)| *t);
        for t in [next, copy].into_iter().flatten() {
            if t > ctx.core.now {
                self.arm(t, ctx);
            }
        }
    }

    /// Sets the propagation timer for `at`, unless one is already set for
    /// then or before: a link woken again and again (a queue lifting its
    /// pause with every message) must not pile up timers, each of which
    /// would set another.
    fn arm(&mut self, at: SimTime, ctx: &mut Context) {
        if self.arrival_timer.is_none_or(|t| t > at) {
            self.arrival_timer = Some(at);
            ctx.core.scheduler.schedule(at, ctx.node, EventKind::Propagated, self.epoch);
        }
    }

    /// A propagation timer of the current epoch fired.
    pub fn on_arrival_timer(&mut self, now: SimTime) {
        if self.arrival_timer.is_some_and(|t| t <= now) {
            self.arrival_timer = None;
        }
    }

    /// Whether a propagation timer belongs to the current epoch.
    pub fn current(&self, epoch: u32) -> bool {
        epoch == self.epoch
    }

    /// The link goes down (`up` false) or comes up.
    pub fn set_up(&mut self, up: bool, ctx: &mut Context) {
        if up == self.up {
            return;
        }
        self.up = up;
        if up {
            ctx.log_transition(State::Down, State::Up, Cause::Schedule);
            self.start_transmission(ctx);
        } else {
            ctx.log_transition(State::Up, State::Down, Cause::Schedule);
            self.epoch = self.epoch.wrapping_add(1);
            self.arrival_timer = None;
            let transmitting_copy = self.transmitting_copy;
            // A copy lost on the wire is sent again when the link is up.
            while let Some((_, copy)) = self.copies_flying.pop_back() {
                self.copies.push_front(copy);
            }
            self.transmitting_copy = false;
            if std::mem::take(&mut self.transmitting) && !transmitting_copy {
                if let Some(head) = self.buffer.front() {
                    let size = head.size_bytes;
                    self.release_window(size);
                }
            }
            self.blocked = false;
            self.unread = 0;
            while let Some((_, msg)) = self.flying.pop_front() {
                self.release_window(msg.size_bytes);
                ctx.drop_message(msg, DropReason::LinkDown);
            }
            self.record(ctx);
        }
    }

    fn record(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.core.now, self.holds(), self.buffer_bytes);
    }
}

impl LinkSpec {
    /// Its number field at `steps` (a slider's, a sweep's).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("bandwidth_bytes_per_s")] => Some(NumberField::Real(&mut self.bandwidth_bytes_per_s)),
            [Step::Key("latency_s")] => Some(NumberField::Real(&mut self.latency_s)),
            [Step::Key("buffer"), rest @ ..] => self.buffer.number_mut(rest),
            [Step::Key("receive_buffer"), rest @ ..] => self.receive_buffer.number_mut(rest),
            [Step::Key("down"), Step::Index(i), rest @ ..] => self.down.get_mut(*i)?.number_mut(rest),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::bench::{refusals, Bench};
    use crate::scheduler::EventKind;

    fn link(spec: serde_json::Value) -> Link {
        Link::new(crate::plumbing::json_read::from_value(&spec).unwrap())
    }

    /// Runs the link's own events up to `until` seconds: the instants at
    /// which a message finished going on the wire. What arrives is read at
    /// once when `reads`.
    fn run(l: &mut Link, b: &mut Bench, until: f64, reads: bool) -> Vec<f64> {
        let mut sent = Vec::new();
        while let Some(t) = b.core.scheduler.peek_time().filter(|t| t.as_secs_f64() <= until) {
            let event = b.core.scheduler.pop().unwrap();
            b.core.now = t;
            match event.kind() {
                EventKind::Transmitted => {
                    if l.on_transmitted(event.data, &mut b.ctx()) {
                        sent.push(t.as_secs_f64());
                    }
                }
                EventKind::AckDue => l.on_window_update(&mut b.ctx()),
                _ => l.on_arrival_timer(t),
            }
            while reads && l.arrived_head(b.core.now).is_some() {
                l.delivered_head(&mut b.ctx());
            }
        }
        sent
    }

    #[test]
    fn each_message_takes_its_size_over_the_bandwidth_one_after_another_and_arrives_a_latency_later() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 1000.0, "latency_s": 0.25}));
        for bytes in [500, 250, 1000] {
            let m = b.message(bytes, 0);
            assert!(l.offer(m, &mut b.ctx()));
        }
        assert_eq!(run(&mut l, &mut b, 10.0, false), [0.5, 0.75, 1.75]);
        assert!(l.arrived_head(SimTime::from_secs_f64(0.7499)).is_none());
        assert_eq!(l.arrived_head(SimTime::from_secs_f64(0.75)).map(|m| m.id), Some(1));
    }

    #[test]
    fn a_full_send_buffer_refuses_but_an_empty_one_takes_any_one_message() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0, "latency_s": 0.0, "buffer": {"bytes": 1000}}));
        let huge = b.message(5000, 0);
        assert!(l.offer(huge, &mut b.ctx()), "an empty buffer takes it");
        let next = b.message(10, 0);
        assert!(!l.offer(next, &mut b.ctx()), "would block");
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0, "latency_s": 0.0, "buffer": {"messages": 2}}));
        let (m1, m2, m3) = (b.message(10, 0), b.message(10, 0), b.message(10, 0));
        assert!(l.offer(m1, &mut b.ctx()) && l.offer(m2, &mut b.ctx()));
        assert!(!l.offer(m3, &mut b.ctx()));
    }

    #[test]
    fn an_unread_far_end_fills_the_receive_window_and_stops_the_wire() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 0.0, "latency_s": 0.1, "receive_buffer": {"messages": 2}}));
        for _ in 0..4 {
            let m = b.message(100, 0);
            assert!(l.offer(m, &mut b.ctx()));
        }
        // Nobody reads: two go on the wire, and the window is full.
        assert_eq!(run(&mut l, &mut b, 5.0, false).len(), 2);
        assert_eq!(l.window_used(), (2, 200));
        // The two are read: the window opens a latency later, and the rest go.
        while l.arrived_head(b.core.now).is_some() {
            l.delivered_head(&mut b.ctx());
        }
        assert_eq!(l.window_used(), (2, 200), "the window update is on its way");
        assert_eq!(run(&mut l, &mut b, 5.0, true), [0.2, 0.2]);
    }

    #[test]
    fn its_bounds_are_refused_past_their_edges_and_taken_at_them() {
        assert!(refusals(json!({}), LinkSpec::validate).is_empty());
        let at_edges = json!({"bandwidth_bytes_per_s": 1e15, "latency_s": 1e6,
            "buffer": {"messages": 1u64 << 40, "bytes": 1u64 << 40}, "receive_buffer": {"messages": 1u64 << 40, "bytes": 1u64 << 40}});
        assert!(refusals(at_edges, LinkSpec::validate).is_empty());
        for (field, spec) in [
            ("bandwidth_bytes_per_s", json!({"bandwidth_bytes_per_s": -1.0})),
            ("bandwidth_bytes_per_s", json!({"bandwidth_bytes_per_s": 1.1e15})),
            ("latency_s", json!({"latency_s": -1.0})),
            ("latency_s", json!({"latency_s": 1.1e6})),
            ("buffer.messages", json!({"buffer": {"messages": (1u64 << 40) + 1}})),
            ("buffer.bytes", json!({"buffer": {"bytes": (1u64 << 40) + 1}})),
            ("receive_buffer.messages", json!({"receive_buffer": {"messages": (1u64 << 40) + 1}})),
            ("receive_buffer.bytes", json!({"receive_buffer": {"bytes": (1u64 << 40) + 1}})),
            ("down", json!({"down": [{"from_s": 2.0, "to_s": 1.0}]})),
        ] {
            let found = refusals(spec, LinkSpec::validate);
            assert!(found.len() == 1 && found[0].contains(&format!("nodes[0].{field}")), "{field}: {found:?}");
        }
    }

    #[test]
    fn a_change_while_running_applies_to_the_next_message_and_keeps_the_schedule() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0, "receive_buffer": {"messages": 1}, "down": [{"from_s": 50.0, "to_s": 60.0}]}));
        for _ in 0..2 {
            let m = b.message(100, 0);
            assert!(l.offer(m, &mut b.ctx()));
        }
        // The first takes 1 s; nobody reads, so the one-message window
        // holds the second back.
        assert_eq!(run(&mut l, &mut b, 5.0, false), [1.0]);
        // Faster, with a window of two: the second goes at once, in 0.1 s.
        b.at(5.0);
        let faster = LinkSpec { bandwidth_bytes_per_s: 1000.0, receive_buffer: Limits { messages: 2, bytes: 65536 }, down: Vec::new(), ..l.spec().clone() };
        l.reconfigure(faster, &mut b.ctx());
        assert_eq!(run(&mut l, &mut b, 10.0, false), [5.1]);
        assert_eq!(l.spec().bandwidth_bytes_per_s, 1000.0);
        assert_eq!(l.spec().down, vec![Period { from_s: 50.0, to_s: 60.0 }], "the schedule read at the start stays");
    }

    #[test]
    fn a_copy_sent_again_goes_ahead_of_the_buffer_is_counted_and_arrives_to_be_acknowledged_again() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0, "latency_s": 0.5}));
        let (first, second, again) = (b.message(100, 0), b.message(100, 0), b.message(50, 0));
        assert!(l.offer(first, &mut b.ctx()) && l.offer(second, &mut b.ctx()));
        l.resend(Wired { link: 0, window: 3, msg: again }, &mut b.ctx());
        // The first was already on the wire; the copy (0.5 s) goes before
        // the second; only buffer messages count as sent.
        assert_eq!(run(&mut l, &mut b, 1.2, false), [1.0]);
        assert_eq!(l.retransmitted(), 0, "still on the wire");
        assert_eq!(run(&mut l, &mut b, 10.0, false), [2.5]);
        assert_eq!(l.retransmitted(), 1);
        assert_eq!(b.stats.arrived, 2, "a copy is not in the send buffer");
        assert!(l.arrived_copies(SimTime::from_secs_f64(1.9999)).is_empty());
        let arrived = l.arrived_copies(SimTime::from_secs_f64(2.0));
        assert_eq!(arrived.iter().map(|c| (c.window, c.msg.id)).collect::<Vec<_>>(), [(3, again.id)]);
        assert!(l.arrived_copies(SimTime::from_secs_f64(9.0)).is_empty(), "handed over once");
    }

    #[test]
    fn one_propagation_timer_for_the_first_arrival_however_often_it_is_woken() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0, "latency_s": 1.0}));
        let (m, copy) = (b.message(50, 0), b.message(50, 0));
        assert!(l.offer(m, &mut b.ctx()));
        l.resend(Wired { link: 0, window: 0, msg: copy }, &mut b.ctx());
        // The copy waits for the message on the wire: the message arrives
        // at 1.5 s, the copy (on the wire from 0.5 s to 1 s) at 2 s. One
        // timer, for 1.5 s; woken again and again, still one.
        assert_eq!(run(&mut l, &mut b, 1.2, false), [0.5]);
        for _ in 0..3 {
            l.arm_next_arrival(&mut b.ctx());
        }
        assert_eq!(b.core.scheduler.peek_time(), Some(SimTime::from_secs_f64(1.5)));
        assert_eq!(b.core.scheduler.len(), 1);
        // Down, the old epoch's timers are stale.
        assert!(l.current(0));
        l.set_up(false, &mut b.ctx());
        assert!(!l.current(0) && l.current(1));
    }

    #[test]
    fn a_transmission_cut_by_going_down_ends_nothing_once_the_link_is_up_again() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0}));
        let m = b.message(100, 0);
        assert!(l.offer(m, &mut b.ctx()));
        // On the wire from 0 to 1 s; down at 0.5 s, up at 0.6 s: it goes
        // again from the start, and the old transmission's end at 1 s is
        // not this one's.
        b.at(0.5);
        l.set_up(false, &mut b.ctx());
        b.at(0.6);
        l.set_up(true, &mut b.ctx());
        assert_eq!(run(&mut l, &mut b, 5.0, false), [1.6]);
    }

    #[test]
    fn going_down_while_a_copy_is_on_the_wire_frees_only_what_the_window_held() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0, "latency_s": 1.0}));
        let (m1, copy, m2) = (b.message(50, 0), b.message(50, 0), b.message(50, 0));
        assert!(l.offer(m1, &mut b.ctx()));
        l.resend(Wired { link: 0, window: 0, msg: copy }, &mut b.ctx());
        assert!(l.offer(m2, &mut b.ctx()));
        // m1 on the wire until 0.5 s, then the copy; m2, behind, is not in
        // the window yet.
        assert_eq!(run(&mut l, &mut b, 0.7, false), [0.5]);
        assert_eq!(l.window_used(), (1, 50));
        l.set_up(false, &mut b.ctx());
        assert_eq!(l.window_used(), (0, 0), "m1 lost on the wire; the copy and m2 held nothing");
        assert_eq!(l.holds(), 1, "m2 waits in the send buffer");
    }

    #[test]
    fn each_number_of_its_schedule_can_be_set() {
        let mut spec: LinkSpec = crate::plumbing::json_read::from_value(&json!({"down": [{"from_s": 1.0, "to_s": 2.0}]})).unwrap();
        let down = |field| [Step::Key("down"), Step::Index(0), Step::Key(field)];
        for field in ["from_s", "to_s"] {
            assert!(matches!(spec.number_mut(&down(field)), Some(NumberField::Real(_))), "{field}");
        }
        assert!(spec.number_mut(&[Step::Key("down"), Step::Index(1), Step::Key("from_s")]).is_none(), "no second period");
    }

    #[test]
    fn going_down_loses_what_flies_ignores_the_old_transmission_and_coming_up_sends_again() {
        let mut b = Bench::new();
        let mut l = link(json!({"bandwidth_bytes_per_s": 100.0, "latency_s": 0.5}));
        for _ in 0..2 {
            let m = b.message(100, 0);
            assert!(l.offer(m, &mut b.ctx()));
        }
        assert!(l.is_up());
        // The first on the wire until 1 s, then on its way until 1.5 s; the
        // second on the wire from 1 s. Down at 1.2 s: the first is lost.
        assert_eq!(run(&mut l, &mut b, 1.2, false), [1.0]);
        l.set_up(false, &mut b.ctx());
        assert!(!l.is_up());
        assert_eq!(b.stats.dropped[DropReason::LinkDown as usize], 1);
        // The second's transmission under way ends nothing.
        assert_eq!(run(&mut l, &mut b, 5.0, true), Vec::<f64>::new());
        assert_eq!((l.holds(), l.window_used()), (1, (0, 0)), "the buffer keeps the second, the window is free");
        b.at(5.0);
        l.set_up(true, &mut b.ctx());
        assert!(l.is_up());
        assert_eq!(run(&mut l, &mut b, 20.0, true), [6.0]);
        assert_eq!(b.stats.departed, 1, "the second read at the far end");
        assert_eq!(b.states(), [State::Down, State::Up]);
    }

    #[test]
    fn a_full_window_sets_one_timer_for_the_update_that_opens_it() {
        let mut b = Bench::new();
        let mut l = link(json!({"latency_s": 1.0, "receive_buffer": {"messages": 1}}));
        for _ in 0..3 {
            let m = b.message(10, 0);
            assert!(l.offer(m, &mut b.ctx()));
        }
        // One goes, arrives at 1 s and is read; its update is back at 2 s.
        assert_eq!(run(&mut l, &mut b, 1.5, true), [0.0]);
        let pending = b.core.scheduler.len();
        // More messages find the window full, each looking at it again:
        // still one timer for the update on its way.
        for _ in 0..3 {
            let m = b.message(10, 0);
            assert!(l.offer(m, &mut b.ctx()));
        }
        assert_eq!(b.core.scheduler.len(), pending);
        assert_eq!(run(&mut l, &mut b, 10.0, true), [2.0, 4.0, 6.0, 8.0, 10.0]);
        // A window with room needs no timer: its updates are applied when
        // the link next looks at it.
        let mut b = Bench::new();
        let mut l = link(json!({"latency_s": 1.0}));
        let m = b.message(10, 0);
        assert!(l.offer(m, &mut b.ctx()));
        assert_eq!(run(&mut l, &mut b, 1.5, true), [0.0]);
        assert_eq!((b.core.scheduler.len(), b.stats.departed), (0, 1), "read at 1 s, and no timer for its update");
    }
}
