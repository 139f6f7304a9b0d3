//! Queue: a waiting line with limits, after the Moment media server's Sender,
//! SObjectizer's demand queues and super-queue's job queue.
//!
//! Guarantees:
//! - Messages leave in the queue's `order` (FIFO, LIFO, or by priority with
//!   FIFO inside a priority), each exactly once: sent on, or dropped with a
//!   reason. A message's priority is its class's, unless
//!   `message_priorities` sets one for its class, or for its class and its
//!   destination (the same class can matter more to one receiver).
//! - `capacity` bounds the queue (messages and/or bytes; 0 = no bound). A
//!   message that does not fit is handled by `on_full`: `drop_newest` drops
//!   the arrival, `drop_oldest` drops the longest-waiting messages until it
//!   fits, `drop_droppable_first` drops the longest-waiting droppable ones
//!   (then the arrival), `refuse` refuses it so the sender must hold it.
//!   Overflow drops count as `overflow`.
//! - With `ttl_s`, a message that has waited that long is discarded at that
//!   instant, unsent (`expired`).
//! - Thresholds are pairs of bytes and messages; either one triggers; `0`
//!   means no limit in that dimension.
//! - The queue is always in exactly one of four states, ordered by severity:
//!   `Ready` (no overload), `Overloaded` (the last write to the socket
//!   would block: a link's send buffer, directly after the queue or behind
//!   blocks that hold nothing, refused the message), `SoftLimit` (the soft
//!   threshold is reached) and `HardLimit` (the hard threshold is reached).
//!   A busy consumer or a closed window refusing is not a socket that would
//!   block: the queue waits for it without turning Overloaded. Every change
//!   is logged with its time and cause.
//! - A move to a more restrictive state happens after an enqueue, a send
//!   attempt or a change of thresholds; a move to a less restrictive one
//!   happens only after data was actually sent. That rule is the hysteresis:
//!   a queue at SoftLimit stays there, whatever the thresholds say, until it
//!   sends. It is all the hysteresis the Moment note has: the first send
//!   that takes the queue below the soft threshold lifts the pause, so near
//!   the threshold the state changes with nearly every message. One
//!   exception keeps it live: a queue emptied by dropping has nothing left
//!   to send, so it settles as if it had just sent (`emptied`).
//! - `resume_below` (an extension, not in the Moment note: a low-water
//!   mark): once at SoftLimit, the queue leaves it only after a send that
//!   brings it below these limits too.
//! - Each state has a reaction (`reactions`), in force in that state and
//!   every more severe one: `thin` acts only while the last write to the
//!   socket would block (it is the note's reaction to EAGAIN; a queue with
//!   no link behind it never thins): it discards the queued droppable
//!   messages when it comes into force, and droppable arrivals while it
//!   lasts (video frames go, audio and control stay; an emptied queue
//!   whose next block has room again takes the next frame and tries to
//!   send it); `pause_input` asks the producers feeding the queue to
//!   pause (they stop if their `backpressure` is `pause`, even behind
//!   routers, windows, credit links and limiters, which hold nothing; a
//!   block that holds messages does not pass the request on), and stops
//!   reading the links so met: what a link brings it meanwhile is refused
//!   and stays unread in the link's receive window; `disconnect`
//!   drops everything queued (`disconnect`) and every arrival until a new
//!   client connects `reconnect_after_s` later (`disconnected`), the new
//!   connection starting `Ready` and empty. The defaults are Moment's:
//!   thin when overloaded, pause input at the soft limit, disconnect at the
//!   hard limit.
//! - A send loop offers messages until the next block refuses one or the
//!   queue is empty, as a socket writer writes until "would block".

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::state::{Cause, SendState, State};
use crate::buffer::{Buffer, Entry, Order};
use crate::context::Context;
use crate::message::Message;
use crate::metrics::DropReason;
use crate::priorities::{MessagePriority, PriorityTable};
use crate::plumbing::validate::{check_range, push_error, FieldError};
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub soft_limit: Limits,
    #[serde(default)]
    pub hard_limit: Limits,
    /// Seconds from a disconnect until a new client connects.
    #[serde(default = "default_reconnect_after")]
    pub reconnect_after_s: f64,
    #[serde(default, skip_serializing_if = "Limits::is_unlimited")]
    pub capacity: Limits,
    #[serde(default)]
    pub on_full: OnFull,
    /// Seconds a message may wait before it is discarded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_s: Option<f64>,
    #[serde(default)]
    pub order: Order,
    /// With `order: priority`: priorities per class, or per class and
    /// receiving agent, instead of the classes' own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_priorities: Vec<MessagePriority>,
    #[serde(default)]
    pub reactions: Reactions,
    /// An extension (a low-water mark): once at SoftLimit, stay there until
    /// a send leaves the queue below these limits too.
    #[serde(default, skip_serializing_if = "Limits::is_unlimited")]
    pub resume_below: Limits,
}

fn default_reconnect_after() -> f64 {
    1.0
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            soft_limit: Limits::default(),
            hard_limit: Limits::default(),
            reconnect_after_s: default_reconnect_after(),
            capacity: Limits::default(),
            on_full: OnFull::default(),
            ttl_s: None,
            order: Order::default(),
            message_priorities: Vec::new(),
            reactions: Reactions::default(),
            resume_below: Limits::default(),
        }
    }
}

/// A threshold as a pair; either one triggers, and 0 means no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    #[serde(default)]
    pub messages: u64,
    #[serde(default)]
    pub bytes: u64,
}

/// The largest threshold a scenario may set, in either dimension.
pub const MAX_LIMIT: u64 = 1 << 40;

impl Limits {
    /// Whether a queue of this depth has reached the threshold.
    pub fn reached(&self, messages: u64, bytes: u64) -> bool {
        (self.messages > 0 && messages >= self.messages) || (self.bytes > 0 && bytes >= self.bytes)
    }

    /// Whether a queue of this depth would exceed the bound by taking one
    /// more message of `size` bytes.
    pub fn would_exceed(&self, messages: u64, bytes: u64, size: u64) -> bool {
        (self.messages > 0 && messages + 1 > self.messages) || (self.bytes > 0 && bytes + size > self.bytes)
    }

    pub fn is_unlimited(&self) -> bool {
        self.messages == 0 && self.bytes == 0
    }

    /// The threshold as the least (messages, bytes) that reach it, with "no
    /// limit" as a number no queue reaches: one comparison per dimension.
    fn floors(&self) -> [u64; 2] {
        let floor = |limit: u64| if limit == 0 { u64::MAX } else { limit };
        [floor(self.messages), floor(self.bytes)]
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFull {
    #[default]
    DropNewest,
    DropOldest,
    DropDroppableFirst,
    Refuse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reaction {
    None,
    Thin,
    PauseInput,
    Disconnect,
}

/// The reaction to each state beyond `Ready`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reactions {
    #[serde(default = "thin")]
    pub overloaded: Reaction,
    #[serde(default = "pause_input")]
    pub soft_limit: Reaction,
    #[serde(default = "disconnect")]
    pub hard_limit: Reaction,
}

fn thin() -> Reaction {
    Reaction::Thin
}
fn pause_input() -> Reaction {
    Reaction::PauseInput
}
fn disconnect() -> Reaction {
    Reaction::Disconnect
}

impl Default for Reactions {
    fn default() -> Self {
        Reactions { overloaded: thin(), soft_limit: pause_input(), hard_limit: disconnect() }
    }
}

impl Reactions {
    /// Whether `reaction` is in force in `state` (set for it or a milder one).
    fn active(&self, state: SendState, reaction: Reaction) -> bool {
        (state >= SendState::Overloaded && self.overloaded == reaction)
            || (state >= SendState::SoftLimit && self.soft_limit == reaction)
            || (state >= SendState::HardLimit && self.hard_limit == reaction)
    }

    fn of(&self, state: SendState) -> Reaction {
        match state {
            SendState::Ready => Reaction::None,
            SendState::Overloaded => self.overloaded,
            SendState::SoftLimit => self.soft_limit,
            SendState::HardLimit => self.hard_limit,
        }
    }
}

impl QueueSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (name, limits) in [
            ("soft_limit", &self.soft_limit),
            ("hard_limit", &self.hard_limit),
            ("capacity", &self.capacity),
            ("resume_below", &self.resume_below),
        ] {
            for (field, value) in [("messages", limits.messages), ("bytes", limits.bytes)] {
                if value > MAX_LIMIT {
                    push_error(errors, format!("{path}.{name}.{field}"), format!("must be at most {MAX_LIMIT}"));
                }
            }
        }
        // A lower threshold may not exceed a higher one where both are set.
        let ordered = [
            ("soft_limit", self.soft_limit, "hard_limit", self.hard_limit),
            ("resume_below", self.resume_below, "soft_limit", self.soft_limit),
        ];
        for (low_name, low, high_name, high) in ordered {
            for (field, l, h) in [("messages", low.messages, high.messages), ("bytes", low.bytes, high.bytes)] {
                if l > 0 && h > 0 && l > h {
                    push_error(errors, format!("{path}.{low_name}.{field}"), format!("must not exceed {high_name}.{field} ({l} > {h})"));
                }
            }
        }
        check_range(errors, format!("{path}.reconnect_after_s"), self.reconnect_after_s, 0.0, 1e6);
        if let Some(ttl) = self.ttl_s {
            check_range(errors, format!("{path}.ttl_s"), ttl, 1e-9, 1e6);
        }
    }
}

/// Whether upstream producers should pause (`Some(true)`), resume
/// (`Some(false)`), or carry on as they are (`None`).
pub type PauseSignal = Option<bool>;

fn calm_floors(hard: [u64; 2], soft: [u64; 2], resume: [u64; 2]) -> [u64; 2] {
    [hard[0].min(soft[0]).min(resume[0]), hard[1].min(soft[1]).min(resume[1])]
}

/// The answer to an offer.
pub enum QueueOffer {
    /// Taken (queued, or dropped and counted here).
    Taken(PauseSignal),
    /// Full, with `on_full: refuse`: the sender keeps it.
    Refused,
}

#[derive(Clone)]
pub struct Queue {
    spec: QueueSpec,
    priorities: PriorityTable,
    buffer: Buffer,
    state: SendState,
    /// The last send loop ended on a socket that would block.
    would_block: bool,
    /// Thinning is in force (`sync_thinning`).
    thinning_on: bool,
    /// Whether the producers were last told to pause (`true`) or not.
    told_pause: bool,
    /// The last send loop was refused and the next block has not woken the
    /// queue since: sending again before then would be refused too.
    waiting_for_room: bool,
    disconnected: bool,
    disconnects: u64,
    /// When the pending expiry timer fires, if one is pending.
    expiry_timer: Option<SimTime>,
    /// The hard and soft limits as `Limits::floors` (the state is evaluated
    /// after every enqueue and send loop).
    hard_floors: [u64; 2],
    soft_floors: [u64; 2],
    resume_floors: [u64; 2],
    /// Below both of these the queue is under every threshold: the lesser
    /// of the two floors in each dimension.
    calm_floors: [u64; 2],
}

impl Queue {
    pub fn new(spec: QueueSpec, priorities: PriorityTable) -> Self {
        let (hard_floors, soft_floors) = (spec.hard_limit.floors(), spec.soft_limit.floors());
        let resume_floors = spec.resume_below.floors();
        Queue {
            priorities,
            buffer: Buffer::new(spec.order),
            spec,
            state: SendState::Ready,
            would_block: false,
            thinning_on: false,
            told_pause: false,
            waiting_for_room: false,
            disconnected: false,
            disconnects: 0,
            expiry_timer: None,
            hard_floors,
            soft_floors,
            resume_floors,
            calm_floors: calm_floors(hard_floors, soft_floors, resume_floors),
        }
    }

    pub fn spec(&self) -> &QueueSpec {
        &self.spec
    }

    pub fn state(&self) -> SendState {
        self.state
    }

    /// The messages it holds, in no promised order.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.buffer.iter().map(|e| &e.msg)
    }

    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.buffer.bytes()
    }

    pub fn is_disconnected(&self) -> bool {
        self.disconnected
    }

    pub fn disconnects(&self) -> u64 {
        self.disconnects
    }

    /// Whether the producers feeding this queue are asked to pause.
    /// Never true of an empty, connected queue (nothing would lift it).
    pub fn asks_pause(&self) -> bool {
        self.spec.reactions.active(self.state, Reaction::PauseInput)
    }

    fn thinning(&self) -> bool {
        self.spec.reactions.active(self.state, Reaction::Thin)
    }

    /// Whether an offer now would be refused (full, with `refuse`).
    pub fn refuses(&self) -> bool {
        self.spec.on_full == OnFull::Refuse
            && !self.disconnected
            && self.spec.capacity.reached(self.buffer.len() as u64, self.buffer.bytes())
    }

    /// Whether the queue waits for the next block to wake it before sending
    /// again ("would block" until "writable").
    pub fn waiting_for_room(&self) -> bool {
        self.waiting_for_room
    }

    /// The next block may have room: the next send loop tries again.
    pub fn on_wake(&mut self) {
        self.waiting_for_room = false;
    }

    /// Takes out the message the send loop offers next. It must be given
    /// back through `sent` or `put_back`.
    #[inline]
    pub fn take_head(&mut self) -> Option<Entry> {
        self.buffer.pop()
    }

    /// Whether a message waits and leaves next without any gate to tell.
    #[inline]
    pub fn head_is_plain(&self) -> bool {
        self.buffer.peek().is_some_and(|e| e.msg.gates.is_empty())
    }

    /// The next block refused the taken head: it leaves next again.
    pub fn put_back(&mut self, entry: Entry) {
        self.buffer.unpop(entry);
    }

    /// Takes a message from upstream.
    #[inline]
    pub fn offer(&mut self, mut msg: Message, ctx: &mut Context) -> QueueOffer {
        msg.entered_priority = msg.priority;
        if self.spec.order == Order::Priority && !self.priorities.is_empty() {
            msg.priority = self.priorities.of(&msg);
        }
        if self.disconnected {
            ctx.stats.arrived += 1;
            ctx.drop_message(msg, DropReason::Disconnected);
            return QueueOffer::Taken(None);
        }
        // Thinning drops what arrives while sending would block. An
        // Overloaded queue that has emptied and been woken would not: it
        // takes the message and tries to send it, and that send, taken,
        // returns it to Ready (it only ever improves after a real send).
        if msg.droppable && self.thinning_on && self.waiting_for_room {
            ctx.stats.arrived += 1;
            ctx.drop_message(msg, DropReason::Thinned);
            return QueueOffer::Taken(None);
        }
        let cap = self.spec.capacity;
        if cap.would_exceed(self.buffer.len() as u64, self.buffer.bytes(), msg.size_bytes as u64) {
            match self.spec.on_full {
                OnFull::Refuse => return QueueOffer::Refused,
                OnFull::DropNewest => {
                    ctx.stats.arrived += 1;
                    ctx.drop_message(msg, DropReason::Overflow);
                    return QueueOffer::Taken(None);
                }
                OnFull::DropOldest | OnFull::DropDroppableFirst => {
                    let droppable_only = self.spec.on_full == OnFull::DropDroppableFirst;
                    while cap.would_exceed(self.buffer.len() as u64, self.buffer.bytes(), msg.size_bytes as u64) {
                        let victim = if droppable_only { self.buffer.pop_oldest_droppable() } else { self.buffer.pop_oldest() };
                        match victim {
                            Some(e) => ctx.drop_message(e.msg, DropReason::Overflow),
                            None => break,
                        }
                    }
                    if cap.would_exceed(self.buffer.len() as u64, self.buffer.bytes(), msg.size_bytes as u64) {
                        ctx.stats.arrived += 1;
                        ctx.drop_message(msg, DropReason::Overflow);
                        self.record_depth(ctx);
                        return QueueOffer::Taken(self.evaluate(false, Cause::Overflow, ctx));
                    }
                }
            }
        }
        ctx.stats.arrived += 1;
        self.buffer.push(Entry { msg, enqueued: ctx.core.now });
        self.record_depth(ctx);
        self.arm_expiry(ctx);
        QueueOffer::Taken(self.evaluate(false, Cause::Enqueue, ctx))
    }

    /// The next block took the taken head.
    #[inline]
    pub fn sent(&mut self, e: Entry, ctx: &mut Context) {
        ctx.stats.departed += 1;
        let waited = ctx.core.now.since(e.enqueued);
        ctx.stats.record_duration(waited);
        if waited.as_nanos() > 0 {
            ctx.stats.waited += 1;
            ctx.stats.residence_ns += waited.as_nanos() as u128;
        }
        self.record_depth(ctx);
    }

    /// Closes a send loop that sent `sent` messages and ended refused or
    /// with the queue empty; `would_block` when the refusal was a socket's
    /// (a link's full send buffer).
    #[inline]
    pub fn after_send_loop(&mut self, sent: u64, refused: bool, would_block: bool, ctx: &mut Context) -> PauseSignal {
        self.waiting_for_room = refused;
        if sent == 0 && !refused {
            // Nothing to send: the state stands until data is really sent.
            return None;
        }
        self.would_block = refused && would_block;
        // Thinning first: what it empties, the state then sees. (Nothing to
        // do unless a write would block or thinning was on.)
        if self.would_block || self.thinning_on {
            self.sync_thinning(ctx);
        }
        self.evaluate(sent > 0, if sent > 0 { Cause::Send } else { Cause::WouldBlock }, ctx)
    }

    /// Thinning is in force while its reaction is (in this state or a
    /// milder one) and the last write to the socket would block: the note's
    /// reaction to EAGAIN. Turning on, it discards the queued droppable
    /// messages. A queue with no socket never thins, whatever its state.
    fn sync_thinning(&mut self, ctx: &mut Context) {
        let on = self.thinning() && self.would_block;
        if on && !self.thinning_on {
            self.thin(ctx);
        }
        self.thinning_on = on;
    }

    /// Takes new parameters while running. A stricter state applies at
    /// once; a looser one waits for the next send, as always.
    pub fn reconfigure(&mut self, spec: QueueSpec, priorities: PriorityTable, ctx: &mut Context) -> PauseSignal {
        if spec.order != self.spec.order || (spec.order == Order::Priority && priorities != self.priorities) {
            self.buffer.reorder(spec.order, |msg| priorities.again(msg));
        }
        self.priorities = priorities;
        let ttl_changed = spec.ttl_s != self.spec.ttl_s;
        self.hard_floors = spec.hard_limit.floors();
        self.soft_floors = spec.soft_limit.floors();
        self.resume_floors = spec.resume_below.floors();
        self.calm_floors = calm_floors(self.hard_floors, self.soft_floors, self.resume_floors);
        self.spec = spec;
        if ttl_changed {
            self.expiry_timer = None;
            self.arm_expiry(ctx);
        }
        let moved = if self.disconnected { None } else { self.evaluate(false, Cause::ThresholdsChanged, ctx) };
        // New reactions may start or stop thinning in the same state.
        self.sync_thinning(ctx);
        // New reactions may ask for a pause, or stop asking, in the same state.
        moved.or_else(|| self.pause_signal())
    }

    /// A new client connects after a disconnect.
    pub fn on_reconnect(&mut self, ctx: &mut Context) -> PauseSignal {
        if !self.disconnected {
            return None;
        }
        self.disconnected = false;
        self.would_block = false;
        self.thinning_on = false;
        self.waiting_for_room = false;
        let old = self.state;
        self.state = SendState::Ready;
        ctx.log_transition(old.into(), State::Ready, Cause::NewClientConnected);
        self.pause_signal()
    }

    /// The expiry timer: discards what has waited `ttl_s` or longer.
    pub fn on_expiry(&mut self, ctx: &mut Context) -> PauseSignal {
        if self.expiry_timer != Some(ctx.core.now) {
            return None; // a timer superseded by a change of ttl
        }
        self.expiry_timer = None;
        let ttl = self.spec.ttl_s.map(SimDuration::from_secs_f64)?;
        for msg in self.buffer.take_expired(ctx.core.now, ttl) {
            ctx.drop_message(msg, DropReason::Expired);
        }
        self.record_depth(ctx);
        self.arm_expiry(ctx);
        self.evaluate(false, Cause::Expired, ctx)
    }

    /// Makes sure a timer is set for the oldest message's expiry.
    #[inline]
    fn arm_expiry(&mut self, ctx: &mut Context) {
        let (Some(ttl), None) = (self.spec.ttl_s, self.expiry_timer) else { return };
        if let Some(oldest) = self.buffer.oldest_enqueued() {
            let at = (oldest + SimDuration::from_secs_f64(ttl)).max(ctx.core.now);
            self.expiry_timer = Some(at);
            ctx.core.scheduler.schedule(at, ctx.node, EventKind::Expire, 0);
        }
    }

    #[inline]
    fn target_state(&self) -> SendState {
        let (messages, bytes) = (self.buffer.len() as u64, self.buffer.bytes());
        let reached = |[m, b]: [u64; 2]| messages >= m || bytes >= b;
        if !reached(self.calm_floors) {
            // The common case: no threshold is near.
            return if self.would_block { SendState::Overloaded } else { SendState::Ready };
        }
        if reached(self.hard_floors) {
            SendState::HardLimit
        } else if reached(self.soft_floors) || (self.state >= SendState::SoftLimit && reached(self.resume_floors)) {
            SendState::SoftLimit
        } else if self.would_block {
            SendState::Overloaded
        } else {
            SendState::Ready
        }
    }

    #[inline]
    fn evaluate(&mut self, after_send: bool, cause: Cause, ctx: &mut Context) -> PauseSignal {
        if self.target_state() == self.state {
            // The common case, kept cheap: nothing to move, nothing to signal.
            return None;
        }
        self.move_to_target(after_send, cause, ctx);
        if !after_send && self.buffer.is_empty() && !self.disconnected {
            // Dropping can empty the queue. With nothing left to send, no
            // send would ever come to relax the state (and a paused producer
            // would wait forever), so an emptied queue counts as sent out.
            self.move_to_target(true, Cause::Emptied, ctx);
        }
        self.pause_signal()
    }

    /// What to tell the producers: a pause or its end, when `asks_pause`
    /// differs from what they were last told. Each request is lifted once.
    fn pause_signal(&mut self) -> PauseSignal {
        let asks = self.asks_pause();
        (asks != self.told_pause).then(|| {
            self.told_pause = asks;
            asks
        })
    }

    fn move_to_target(&mut self, after_send: bool, cause: Cause, ctx: &mut Context) {
        let target = self.target_state();
        let old = self.state;
        if target == old || (target < old && !after_send) {
            return;
        }
        self.state = target;
        ctx.log_transition(old.into(), target.into(), cause);
        self.sync_thinning(ctx);
        if target > old {
            let entered = [SendState::Overloaded, SendState::SoftLimit, SendState::HardLimit];
            if entered.iter().any(|s| *s > old && *s <= target && self.spec.reactions.of(*s) == Reaction::Disconnect) {
                self.disconnect(ctx);
            }
        }
    }

    /// Discards the droppable messages queued.
    fn thin(&mut self, ctx: &mut Context) {
        let mut thinned = Vec::new();
        self.buffer.remove_where(|e| {
            if e.msg.droppable {
                thinned.push(e.msg);
            }
            e.msg.droppable
        });
        if !thinned.is_empty() {
            for msg in thinned {
                ctx.drop_message(msg, DropReason::Thinned);
            }
            self.record_depth(ctx);
        }
    }

    fn disconnect(&mut self, ctx: &mut Context) {
        while let Some(e) = self.buffer.pop() {
            ctx.drop_message(e.msg, DropReason::Disconnect);
        }
        self.record_depth(ctx);
        self.disconnected = true;
        self.disconnects += 1;
        ctx.schedule_in(SimDuration::from_secs_f64(self.spec.reconnect_after_s), EventKind::Reconnect, 0);
    }

    #[inline]
    fn record_depth(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.core.now, self.buffer.len() as u64, self.buffer.bytes());
    }
}

impl Limits {
    /// Its number field at `steps` (`messages`, `bytes`).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("messages")] => Some(NumberField::Whole64(&mut self.messages)),
            [Step::Key("bytes")] => Some(NumberField::Whole64(&mut self.bytes)),
            _ => None,
        }
    }
}

impl QueueSpec {
    /// Its number field at `steps` (a slider's, a sweep's).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("soft_limit"), rest @ ..] => self.soft_limit.number_mut(rest),
            [Step::Key("hard_limit"), rest @ ..] => self.hard_limit.number_mut(rest),
            [Step::Key("capacity"), rest @ ..] => self.capacity.number_mut(rest),
            [Step::Key("resume_below"), rest @ ..] => self.resume_below.number_mut(rest),
            [Step::Key("reconnect_after_s")] => Some(NumberField::Real(&mut self.reconnect_after_s)),
            [Step::Key("ttl_s")] => Some(NumberField::MaybeReal(&mut self.ttl_s)),
            [Step::Key("message_priorities"), Step::Index(i), Step::Key("priority")] => {
                self.message_priorities.get_mut(*i).map(|p| NumberField::Whole8(&mut p.priority))
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

    fn queue(spec: serde_json::Value) -> Queue {
        Queue::new(crate::plumbing::json_read::from_value(&spec).unwrap(), PriorityTable::default())
    }

    fn taken(offer: QueueOffer) -> bool {
        matches!(offer, QueueOffer::Taken(_))
    }

    /// Offers `n` messages of `bytes`; their ids in order.
    fn fill(q: &mut Queue, b: &mut Bench, n: usize, bytes: u32) -> Vec<u64> {
        (0..n)
            .map(|_| {
                let m = b.message(bytes, 0);
                assert!(taken(q.offer(m, &mut b.ctx())));
                m.id
            })
            .collect()
    }

    fn ids(q: &mut Queue) -> Vec<u64> {
        std::iter::from_fn(|| q.take_head()).map(|e| e.msg.id).collect()
    }

    #[test]
    fn a_full_queue_refuses_or_drops_exactly_at_its_capacity_as_on_full_says() {
        for (on_full, kept, refused) in
            [("refuse", vec![1, 2, 3], true), ("drop_newest", vec![1, 2, 3], false), ("drop_oldest", vec![2, 3, 4], false)]
        {
            let mut b = Bench::new();
            let mut q = queue(json!({"capacity": {"messages": 3}, "on_full": on_full}));
            fill(&mut q, &mut b, 3, 100);
            assert_eq!(b.stats.dropped_total(), 0, "{on_full}: three fit");
            let fourth = b.message(100, 0);
            let answer = q.offer(fourth, &mut b.ctx());
            assert_eq!(matches!(answer, QueueOffer::Refused), refused, "{on_full}");
            assert_eq!(b.stats.dropped[DropReason::Overflow as usize], u64::from(!refused), "{on_full}");
            assert_eq!(q.len(), 3);
            assert_eq!(ids(&mut q), kept, "{on_full}");
        }
    }

    #[test]
    fn a_byte_capacity_counts_the_arrivals_size_and_drops_the_oldest_until_it_fits() {
        let mut b = Bench::new();
        let mut q = queue(json!({"capacity": {"bytes": 1000}, "on_full": "drop_oldest"}));
        fill(&mut q, &mut b, 4, 250);
        assert_eq!(q.bytes(), 1000);
        // 600 bytes more: the three oldest must go (1000 - 750 + 600 = 850).
        let big = b.message(600, 0);
        assert!(taken(q.offer(big, &mut b.ctx())));
        assert_eq!(b.stats.dropped[DropReason::Overflow as usize], 3);
        assert_eq!(ids(&mut q), vec![4, 5]);
    }

    #[test]
    fn droppable_messages_go_first_and_the_arrival_when_none_is_left() {
        let mut b = Bench::new();
        let mut q = queue(json!({"capacity": {"messages": 2}, "on_full": "drop_droppable_first"}));
        let mut video = b.message(100, 0);
        video.droppable = true;
        assert!(taken(q.offer(video, &mut b.ctx())));
        fill(&mut q, &mut b, 1, 100);
        fill(&mut q, &mut b, 1, 100);
        assert_eq!(ids(&mut q), vec![2, 3], "the droppable one went");
        let mut q = queue(json!({"capacity": {"messages": 2}, "on_full": "drop_droppable_first"}));
        fill(&mut q, &mut b, 2, 100);
        let late = b.message(100, 0);
        assert!(taken(q.offer(late, &mut b.ctx())));
        assert_eq!(ids(&mut q), vec![4, 5], "none droppable: the arrival went");
    }

    #[test]
    fn the_soft_limit_is_reached_at_its_threshold_and_left_only_by_a_send() {
        let mut b = Bench::new();
        let mut q = queue(json!({"soft_limit": {"messages": 3}, "hard_limit": {"messages": 10}}));
        fill(&mut q, &mut b, 2, 100);
        assert_eq!(q.state(), SendState::Ready, "below the threshold");
        fill(&mut q, &mut b, 1, 100);
        assert_eq!(q.state(), SendState::SoftLimit, "at the threshold");
        assert!(q.asks_pause());
        // A looser threshold waits for a send: the hysteresis.
        let looser = crate::plumbing::json_read::from_value(&json!({"soft_limit": {"messages": 30}, "hard_limit": {"messages": 100}})).unwrap();
        q.reconfigure(looser, PriorityTable::default(), &mut b.ctx());
        assert_eq!(q.state(), SendState::SoftLimit, "no send yet");
        // A send: Ready again.
        let head = q.take_head().unwrap();
        b.at(1.0);
        q.sent(head, &mut b.ctx());
        q.after_send_loop(1, true, false, &mut b.ctx());
        assert_eq!(q.state(), SendState::Ready);
        assert_eq!(b.states(), vec![State::SoftLimit, State::Ready]);
    }

    #[test]
    fn the_hard_limit_disconnects_drops_everything_and_every_arrival_until_the_reconnect() {
        let mut b = Bench::new();
        let mut q = queue(json!({"soft_limit": {"messages": 2}, "hard_limit": {"messages": 4}, "reconnect_after_s": 1.0}));
        fill(&mut q, &mut b, 4, 100);
        assert_eq!(q.state(), SendState::HardLimit);
        assert!(q.is_disconnected());
        assert!(q.is_empty(), "the whole queue went with the connection");
        assert_eq!(b.stats.dropped[DropReason::Disconnect as usize], 4);
        let late = b.message(100, 0);
        assert!(taken(q.offer(late, &mut b.ctx())));
        assert_eq!(b.stats.dropped[DropReason::Disconnected as usize], 1);
        b.at(1.0);
        q.on_reconnect(&mut b.ctx());
        assert!(!q.is_disconnected());
        assert_eq!(q.state(), SendState::Ready);
        fill(&mut q, &mut b, 1, 100);
        assert_eq!(q.len(), 1);
    }
}
