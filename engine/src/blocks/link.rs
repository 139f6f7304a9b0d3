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
//! - If the next block refuses an arriving message, the link holds it and
//!   everything behind it until woken (head-of-line blocking).
//! - `down`: periods during which the link is down. Going down loses the
//!   messages on the wire (`link_down`) and stops sending; the buffer keeps
//!   what it holds and refuses when full. Coming up resumes sending.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::state::State;
use crate::blocks::queue::Limits;
use crate::context::Context;
use crate::message::Message;
use crate::metrics::DropReason;
use crate::validate::{check_periods, check_range, push_error, FieldError, Period};
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// When the link is down.
    pub down: Vec<Period>,
}

fn default_buffer() -> Limits {
    Limits { messages: 0, bytes: 65536 }
}

impl LinkSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        check_range(errors, format!("{path}.bandwidth_bytes_per_s"), self.bandwidth_bytes_per_s, 0.0, 1e15);
        check_range(errors, format!("{path}.latency_s"), self.latency_s, 0.0, 1e6);
        for (field, value) in [("messages", self.buffer.messages), ("bytes", self.buffer.bytes)] {
            if value > crate::blocks::queue::MAX_LIMIT {
                push_error(errors, format!("{path}.buffer.{field}"), format!("must be at most {}", crate::blocks::queue::MAX_LIMIT));
            }
        }
        check_periods(errors, &format!("{path}.down"), self.down.iter().map(|d| (d.from_s, d.to_s)));
    }
}

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
    /// The far end refused the head of `flying`; waiting to be woken.
    blocked: bool,
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
            epoch: 0,
        }
    }

    pub fn spec(&self) -> &LinkSpec {
        &self.spec
    }

    pub fn is_up(&self) -> bool {
        self.up
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

    pub fn reconfigure(&mut self, spec: LinkSpec) {
        // The schedule is read at the start of a run; other fields apply to
        // the next message.
        self.spec = LinkSpec { down: self.spec.down.clone(), ..spec };
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

    fn start_transmission(&mut self, ctx: &mut Context) {
        if self.transmitting || !self.up {
            return;
        }
        let Some(head) = self.buffer.front() else { return };
        let seconds = if self.spec.bandwidth_bytes_per_s > 0.0 {
            head.size_bytes as f64 / self.spec.bandwidth_bytes_per_s
        } else {
            0.0
        };
        self.transmitting = true;
        ctx.schedule_in(SimDuration::from_secs_f64(seconds), EventKind::Transmitted, self.epoch);
    }

    /// The head of the buffer is on the wire. Returns whether the buffer
    /// freed room (to wake the senders).
    pub fn on_transmitted(&mut self, epoch: u32, ctx: &mut Context) -> bool {
        if epoch != self.epoch || !self.transmitting {
            return false;
        }
        self.transmitting = false;
        let Some(msg) = self.buffer.pop_front() else { return false };
        self.buffer_bytes -= msg.size_bytes as u64;
        let arrive = ctx.core.now + SimDuration::from_secs_f64(self.spec.latency_s);
        self.flying.push_back((arrive, msg));
        if self.flying.len() == 1 {
            ctx.core.scheduler.schedule(arrive, ctx.node, EventKind::Propagated, self.epoch);
        }
        self.record(ctx);
        self.start_transmission(ctx);
        true
    }

    /// The message that has reached the far end and waits to be offered.
    pub fn arrived_head(&self, now: SimTime) -> Option<Message> {
        self.flying.front().filter(|(t, _)| *t <= now).map(|(_, m)| *m)
    }

    /// The next block took the head.
    pub fn delivered_head(&mut self, ctx: &mut Context) {
        if self.flying.pop_front().is_some() {
            ctx.stats.departed += 1;
            self.blocked = false;
            self.record(ctx);
        }
    }

    /// The next block refused the head: wait to be woken.
    pub fn head_refused(&mut self) {
        self.blocked = true;
    }

    pub fn is_blocked(&self) -> bool {
        self.blocked
    }

    /// Makes sure a timer is set for the next arrival behind the head.
    pub fn arm_next_arrival(&mut self, ctx: &mut Context) {
        if let Some(&(t, _)) = self.flying.front() {
            if t > ctx.core.now {
                ctx.core.scheduler.schedule(t, ctx.node, EventKind::Propagated, self.epoch);
            }
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
            ctx.log_transition(State::Down, State::Up, "schedule");
            self.start_transmission(ctx);
        } else {
            ctx.log_transition(State::Up, State::Down, "schedule");
            self.epoch = self.epoch.wrapping_add(1);
            self.transmitting = false;
            self.blocked = false;
            while let Some((_, msg)) = self.flying.pop_front() {
                ctx.drop_message(msg, DropReason::LinkDown);
            }
            self.record(ctx);
        }
    }

    fn record(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.core.now, self.holds(), self.buffer_bytes);
    }
}
