//! Consumer: the slow client at the end of the line.
//!
//! Guarantees:
//! - It serves at most `workers` messages at once; each takes a service time
//!   drawn from `service_time` (seconds). A message offered while every
//!   worker is busy is refused, so the block before it feels the pressure
//!   (its socket "would block").
//! - A served message is processed: the gates it was counted against
//!   (windows opening on processing, credit links, concurrency limiters)
//!   hear of it at that instant. Without an output, it is then delivered:
//!   it leaves the system, and its sojourn (from creation to delivery) is
//!   recorded. With an output (a pipeline stage), it is offered to the next
//!   block; if refused, the worker holds it, serving nothing else, until
//!   the next block wakes the consumer.
//! - When a worker frees, the consumer asks its inputs for more.
//! - Fewer workers set while running take effect as busy workers finish;
//!   no message in service is lost.

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::distribution::Distribution;
use crate::message::Message;
use crate::scenario::{push_error, FieldError};
use crate::scheduler::EventKind;
use crate::time::SimDuration;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    #[serde(default = "default_workers")]
    pub workers: u32,
    /// Seconds.
    pub service_time: Distribution,
}

fn default_workers() -> u32 {
    1
}

/// The most workers one consumer may have.
pub const MAX_WORKERS: u32 = 100_000;

impl ConsumerSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.workers == 0 || self.workers > MAX_WORKERS {
            push_error(errors, format!("{path}.workers"), format!("must be between 1 and {MAX_WORKERS}, got {}", self.workers));
        }
        self.service_time.validate(&format!("{path}.service_time"), 0.0, 1e6, errors);
    }
}

pub struct Consumer {
    spec: ConsumerSpec,
    /// The message each worker slot is serving (or holding, when blocked).
    slots: Vec<Option<Message>>,
    /// When each worker slot took its message.
    started: Vec<crate::time::SimTime>,
    free: Vec<u32>,
    busy: u32,
    /// Slots holding a served message the next block refused, oldest first.
    blocked: std::collections::VecDeque<u32>,
}

/// Whether the consumer took an offered message.
pub enum Offer {
    Accepted,
    Refused(Message),
}

impl Consumer {
    pub fn new(spec: ConsumerSpec) -> Self {
        let mut c =
            Consumer { spec, slots: Vec::new(), started: Vec::new(), free: Vec::new(), busy: 0, blocked: Default::default() };
        c.grow_slots();
        c
    }

    fn grow_slots(&mut self) {
        while self.slots.len() < self.spec.workers as usize {
            self.free.push(self.slots.len() as u32);
            self.slots.push(None);
            self.started.push(crate::time::SimTime::ZERO);
        }
        // Serve from the lowest slot first, for readable traces.
        self.free.sort_unstable_by(|a, b| b.cmp(a));
    }

    pub fn spec(&self) -> &ConsumerSpec {
        &self.spec
    }

    pub fn busy(&self) -> u32 {
        self.busy
    }

    pub fn has_room(&self) -> bool {
        self.busy < self.spec.workers
    }

    pub fn reconfigure(&mut self, spec: ConsumerSpec) {
        self.spec = spec;
        self.grow_slots();
    }

    pub fn offer(&mut self, msg: Message, ctx: &mut Context) -> Offer {
        if !self.has_room() {
            return Offer::Refused(msg);
        }
        let Some(slot) = self.free.pop() else {
            return Offer::Refused(msg);
        };
        self.slots[slot as usize] = Some(msg);
        self.started[slot as usize] = ctx.now;
        self.busy += 1;
        ctx.stats.arrived += 1;
        ctx.stats.in_service = self.busy as u64;
        ctx.stats.depth_messages.set(ctx.now, self.busy as u64);
        let service = SimDuration::from_secs_f64(self.spec.service_time.sample(ctx.rng));
        ctx.schedule_in(service, EventKind::ServiceDone, slot);
        Offer::Accepted
    }

    /// A worker finished serving the message in `slot`, which is returned
    /// (still held by the worker until `release` or `hold`).
    pub fn on_service_done(&mut self, slot: u32, ctx: &mut Context) -> Option<Message> {
        let msg = self.slots.get(slot as usize).copied().flatten()?;
        if !msg.gates.is_empty() {
            ctx.outbox.push(crate::context::Notice::Processed(msg));
        }
        Some(msg)
    }

    /// The worker in `slot` is done with its message: delivered (`sink`)
    /// or taken by the next block.
    pub fn release(&mut self, slot: u32, sink: bool, ctx: &mut Context) {
        if let Some(msg) = self.slots.get_mut(slot as usize).and_then(Option::take) {
            self.busy -= 1;
            self.free.push(slot);
            ctx.stats.departed += 1;
            ctx.stats.in_service = self.busy as u64;
            ctx.stats.depth_messages.set(ctx.now, self.busy as u64);
            ctx.stats.residence_sum_s += ctx.now.since(self.started[slot as usize]).as_secs_f64();
            if sink {
                ctx.stats.sojourn_sum_s += ctx.now.since(msg.created).as_secs_f64();
            }
        }
    }

    /// The next block refused the message in `slot`: the worker holds it.
    pub fn hold(&mut self, slot: u32) {
        if !self.blocked.contains(&slot) {
            self.blocked.push_back(slot);
        }
    }

    /// The oldest held message and its slot, to offer again when woken.
    pub fn next_held(&mut self) -> Option<(u32, Message)> {
        let slot = self.blocked.pop_front()?;
        self.slots.get(slot as usize).copied().flatten().map(|m| (slot, m))
    }

    pub fn has_held(&self) -> bool {
        !self.blocked.is_empty()
    }
}
