//! What a block may touch while it handles something: the clock, the random
//! stream, the scheduler, the transition log and its own counters. Never
//! another block: the simulation carries messages and signals between them.

use crate::metrics::{NodeStats, Transition, TransitionLog};
use crate::rng::SimRng;
use crate::scheduler::{EventKind, Scheduler};
use crate::time::{SimDuration, SimTime};

pub struct Context<'a> {
    pub now: SimTime,
    /// The index of the node being handled.
    pub node: usize,
    pub rng: &'a mut SimRng,
    pub scheduler: &'a mut Scheduler,
    pub log: &'a mut TransitionLog,
    pub stats: &'a mut NodeStats,
}

impl Context<'_> {
    /// Schedules an event for this node after `delay`.
    pub fn schedule_in(&mut self, delay: SimDuration, kind: EventKind, data: u32) {
        self.scheduler.schedule(self.now + delay, self.node, kind, data);
    }

    pub fn log_transition(&mut self, from: &'static str, to: &'static str, cause: &'static str) {
        self.log.push(Transition { time: self.now, node: self.node, from, to, cause });
    }
}
