//! Queue: the send queue of one connection (the Moment media server's Sender).
//!
//! Guarantees:
//! - Messages leave in arrival order (FIFO), each exactly once: sent on,
//!   or dropped with a reason.
//! - Thresholds are pairs of bytes and messages; either one triggers; `0`
//!   means no limit in that dimension.
//! - The queue is always in exactly one of four states, ordered by severity:
//!   `Ready` (no overload), `Overloaded` (the last attempt to send was
//!   refused: the socket would block), `SoftLimit` (the soft threshold is
//!   reached) and `HardLimit` (the hard threshold is reached). Every change
//!   is logged with its time and cause.
//! - A move to a more restrictive state happens after an enqueue or after a
//!   send attempt; a move to a less restrictive one happens only after data
//!   was actually sent. That rule is the hysteresis: a queue at SoftLimit
//!   stays there, whatever the thresholds say, until it sends. One
//!   exception keeps it live: a queue emptied by thinning has nothing left
//!   to send, so it settles as if it had just sent (cause `emptied`).
//! - Reactions: on entering `Overloaded` or worse, queued droppable messages
//!   are discarded, and droppable arrivals are discarded while it lasts
//!   (thinning: video frames go, audio and control stay). At `SoftLimit` or
//!   worse the queue asks its producers to pause (they stop if their
//!   `backpressure` is `pause`). At `HardLimit` the client is disconnected:
//!   everything queued is dropped, arrivals are dropped until a new client
//!   connects `reconnect_after_s` later, and the new connection starts
//!   `Ready` with an empty queue.
//! - A send loop offers messages until the next block refuses one or the
//!   queue is empty, as a socket writer writes until "would block".

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::message::Message;
use crate::metrics::DropReason;
use crate::scenario::{check_range, push_error, FieldError};
use crate::scheduler::EventKind;
use crate::time::SimDuration;

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
}

fn default_reconnect_after() -> f64 {
    1.0
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

    pub fn is_unlimited(&self) -> bool {
        self.messages == 0 && self.bytes == 0
    }
}

impl QueueSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (name, limits) in [("soft_limit", &self.soft_limit), ("hard_limit", &self.hard_limit)] {
            for (field, value) in [("messages", limits.messages), ("bytes", limits.bytes)] {
                if value > MAX_LIMIT {
                    push_error(errors, format!("{path}.{name}.{field}"), format!("must be at most {MAX_LIMIT}"));
                }
            }
        }
        let (soft, hard) = (self.soft_limit, self.hard_limit);
        if soft.messages > 0 && hard.messages > 0 && soft.messages > hard.messages {
            push_error(
                errors,
                format!("{path}.soft_limit.messages"),
                format!("must not exceed hard_limit.messages ({} > {})", soft.messages, hard.messages),
            );
        }
        if soft.bytes > 0 && hard.bytes > 0 && soft.bytes > hard.bytes {
            push_error(
                errors,
                format!("{path}.soft_limit.bytes"),
                format!("must not exceed hard_limit.bytes ({} > {})", soft.bytes, hard.bytes),
            );
        }
        check_range(errors, format!("{path}.reconnect_after_s"), self.reconnect_after_s, 0.0, 1e6);
    }
}

/// The send-queue states, least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SendState {
    Ready,
    Overloaded,
    SoftLimit,
    HardLimit,
}

impl SendState {
    pub fn as_str(self) -> &'static str {
        match self {
            SendState::Ready => "Ready",
            SendState::Overloaded => "Overloaded",
            SendState::SoftLimit => "SoftLimit",
            SendState::HardLimit => "HardLimit",
        }
    }
}

/// Whether upstream producers should pause (`Some(true)`), resume
/// (`Some(false)`), or carry on as they are (`None`).
pub type PauseSignal = Option<bool>;

pub struct Queue {
    spec: QueueSpec,
    items: VecDeque<Message>,
    bytes: u64,
    state: SendState,
    last_send_refused: bool,
    disconnected: bool,
    disconnects: u64,
}

impl Queue {
    pub fn new(spec: QueueSpec) -> Self {
        Queue {
            spec,
            items: VecDeque::new(),
            bytes: 0,
            state: SendState::Ready,
            last_send_refused: false,
            disconnected: false,
            disconnects: 0,
        }
    }

    pub fn spec(&self) -> &QueueSpec {
        &self.spec
    }

    pub fn state(&self) -> SendState {
        self.state
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
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
        self.state >= SendState::SoftLimit
    }

    /// The message the send loop offers next.
    pub fn head(&self) -> Option<Message> {
        self.items.front().copied()
    }

    /// Takes a message from upstream. The queue never refuses: what it cannot
    /// keep, it drops and counts.
    pub fn accept(&mut self, msg: Message, ctx: &mut Context) -> PauseSignal {
        ctx.stats.arrived += 1;
        if self.disconnected {
            ctx.stats.drop(DropReason::Disconnected, 1);
            return None;
        }
        if msg.droppable && self.state >= SendState::Overloaded {
            ctx.stats.drop(DropReason::Thinned, 1);
            return None;
        }
        self.items.push_back(msg);
        self.bytes += msg.size_bytes;
        self.record_depth(ctx);
        self.evaluate(false, "enqueue", ctx)
    }

    /// The head was taken by the next block.
    pub fn pop_sent(&mut self, ctx: &mut Context) {
        if let Some(msg) = self.items.pop_front() {
            self.bytes -= msg.size_bytes;
            ctx.stats.departed += 1;
            self.record_depth(ctx);
        }
    }

    /// Closes a send loop that sent `sent` messages and ended refused or
    /// with the queue empty.
    pub fn after_send_loop(&mut self, sent: u64, refused: bool, ctx: &mut Context) -> PauseSignal {
        self.last_send_refused = refused;
        if sent == 0 && !refused {
            return None;
        }
        self.evaluate(sent > 0, if sent > 0 { "send" } else { "would block" }, ctx)
    }

    /// Takes new thresholds while running. A stricter state applies at
    /// once; a looser one waits for the next send, as always.
    pub fn reconfigure(&mut self, spec: QueueSpec, ctx: &mut Context) -> PauseSignal {
        self.spec = spec;
        if self.disconnected {
            return None;
        }
        self.evaluate(false, "thresholds changed", ctx)
    }

    /// A new client connects after a disconnect.
    pub fn on_reconnect(&mut self, ctx: &mut Context) -> PauseSignal {
        if !self.disconnected {
            return None;
        }
        self.disconnected = false;
        self.last_send_refused = false;
        let old = self.state;
        self.state = SendState::Ready;
        ctx.log_transition(old.as_str(), SendState::Ready.as_str(), "new client connected");
        Some(false)
    }

    fn target_state(&self) -> SendState {
        let (messages, bytes) = (self.items.len() as u64, self.bytes);
        if self.spec.hard_limit.reached(messages, bytes) {
            SendState::HardLimit
        } else if self.spec.soft_limit.reached(messages, bytes) {
            SendState::SoftLimit
        } else if self.last_send_refused {
            SendState::Overloaded
        } else {
            SendState::Ready
        }
    }

    fn evaluate(&mut self, after_send: bool, cause: &'static str, ctx: &mut Context) -> PauseSignal {
        let was_pausing = self.asks_pause();
        self.move_to_target(after_send, cause, ctx);
        if self.items.is_empty() && !self.disconnected {
            // Thinning can empty the queue. With nothing left to send, no
            // send would ever come to relax the state (and a paused producer
            // would wait forever), so an emptied queue counts as sent out.
            self.move_to_target(true, "emptied", ctx);
        }
        match (was_pausing, self.asks_pause()) {
            (false, true) => Some(true),
            (true, false) => Some(false),
            _ => None,
        }
    }

    fn move_to_target(&mut self, after_send: bool, cause: &'static str, ctx: &mut Context) {
        let target = self.target_state();
        let old = self.state;
        if target == old || (target < old && !after_send) {
            return;
        }
        self.state = target;
        ctx.log_transition(old.as_str(), target.as_str(), cause);
        if old < SendState::Overloaded && target >= SendState::Overloaded {
            self.thin(ctx);
        }
        if target == SendState::HardLimit {
            self.disconnect(ctx);
        }
    }

    /// Discards the droppable messages queued.
    fn thin(&mut self, ctx: &mut Context) {
        let before = self.items.len();
        let mut dropped_bytes = 0;
        self.items.retain(|m| {
            if m.droppable {
                dropped_bytes += m.size_bytes;
            }
            !m.droppable
        });
        let dropped = (before - self.items.len()) as u64;
        if dropped > 0 {
            self.bytes -= dropped_bytes;
            ctx.stats.drop(DropReason::Thinned, dropped);
            self.record_depth(ctx);
        }
    }

    fn disconnect(&mut self, ctx: &mut Context) {
        let lost = self.items.len() as u64;
        self.items.clear();
        self.bytes = 0;
        ctx.stats.drop(DropReason::Disconnect, lost);
        self.record_depth(ctx);
        self.disconnected = true;
        self.disconnects += 1;
        ctx.schedule_in(SimDuration::from_secs_f64(self.spec.reconnect_after_s), EventKind::Reconnect, 0);
    }

    fn record_depth(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.now, self.items.len() as u64, self.bytes);
    }
}
