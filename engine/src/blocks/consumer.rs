//! Consumer: the slow client at the end of the line.
//!
//! Guarantees:
//! - It serves at most `workers` messages at once; each takes a service time
//!   drawn from `service_time` (seconds). A message offered while every
//!   worker is busy is refused, so the block before it feels the pressure
//!   (its socket "would block").
//! - A served message is delivered: it leaves the system, and its sojourn
//!   (from creation to delivery) is recorded.
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
    /// The message each worker slot is serving.
    slots: Vec<Option<Message>>,
    free: Vec<u32>,
    busy: u32,
}

/// Whether the consumer took an offered message.
pub enum Offer {
    Accepted,
    Refused(Message),
}

impl Consumer {
    pub fn new(spec: ConsumerSpec) -> Self {
        let mut c = Consumer { spec, slots: Vec::new(), free: Vec::new(), busy: 0 };
        c.grow_slots();
        c
    }

    fn grow_slots(&mut self) {
        while self.slots.len() < self.spec.workers as usize {
            self.free.push(self.slots.len() as u32);
            self.slots.push(None);
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
        self.busy += 1;
        ctx.stats.arrived += 1;
        ctx.stats.in_service = self.busy as u64;
        let service = SimDuration::from_secs_f64(self.spec.service_time.sample(ctx.rng));
        ctx.schedule_in(service, EventKind::ServiceDone, slot);
        Offer::Accepted
    }

    /// A worker finished. Returns whether there is room for another message.
    pub fn on_service_done(&mut self, slot: u32, ctx: &mut Context) -> bool {
        if let Some(msg) = self.slots.get_mut(slot as usize).and_then(Option::take) {
            self.busy -= 1;
            self.free.push(slot);
            ctx.stats.departed += 1;
            ctx.stats.in_service = self.busy as u64;
            ctx.stats.sojourn_sum_s += ctx.now.since(msg.created).as_secs_f64();
        }
        self.has_room()
    }
}
