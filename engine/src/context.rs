//! What a block may touch while it handles something: the clock, the random
//! stream, the scheduler, the transition log and its own counters. Never
//! another block: the simulation carries messages and signals between them.

use crate::state::{Cause, State};
use crate::state_times::StateTimes;
use crate::message::Message;
use crate::metrics::{Decision, DropReason, NodeStats, Outcome, Transition, TransitionLog};
use crate::rng::SimRng;
use crate::scheduler::{EventKind, Scheduler};
use crate::time::{SimDuration, SimTime};
use crate::why::{Holding, What, Whys};

/// What every block shares: the clock, the random streams, the scheduler,
/// the transition log and the outbox of notices.
#[derive(Clone)]
pub struct Core {
    pub now: SimTime,
    /// One random stream per node, by node index.
    pub rngs: Vec<SimRng>,
    pub scheduler: Scheduler,
    pub log: TransitionLog,
    /// What blocks report for the simulation to pass on once the handler
    /// returns (to other blocks: the gates a message counted against).
    pub outbox: Vec<Notice>,
    /// RPCs that were in flight to a netsendq host when it went down, by
    /// message id: the dispatcher node that sent each, and whether it is
    /// queued again (a queueable class) rather than failed. Each is taken
    /// out of the flow where it next surfaces (see `Simulation`).
    pub failed_rpcs: std::collections::BTreeMap<u64, (usize, bool)>,
    /// Copies of requests whose client gave up waiting for them
    /// (`timeout_s`), still somewhere in the system, by message id and
    /// `resent`: `true` where the client cancelled them (`on_timeout:
    /// cancel`). A consumer counts the service it finishes on one as
    /// wasted; a cancelled one is dropped where it next surfaces. Its
    /// producer forgets each when it hears of the copy's end.
    pub abandoned: std::collections::BTreeMap<(u64, u8), bool>,
    /// Consumer service ends still scheduled for services a cancellation
    /// stopped early: each is ignored when it comes.
    pub stale_ends: u64,
    /// Every decision of a limiter that records them, oldest first, when
    /// asked for (`Simulation::record_decisions`).
    pub decisions: Option<Vec<Decision>>,
    /// Every decision counted by key, when asked for
    /// (`Simulation::tally_decisions`).
    pub tally: Option<Box<crate::tally::Tally>>,
    /// The number of the event being handled.
    pub event: u64,
    /// What each drop and state change found at its node
    /// (`crate::why`), and who refuses each node's offers.
    pub whys: Whys,
}

/// Three words, built for every call into a block: the shared core by one
/// reference rather than one reference per part keeps that cheap.
pub struct Context<'a> {
    pub core: &'a mut Core,
    /// The index of the node being handled.
    pub node: usize,
    pub stats: &'a mut NodeStats,
}

/// A report from a block that concerns other blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The message left the system undelivered.
    Dropped(Message),
    /// A consumer finished serving the message.
    Processed(Message),
}

impl Context<'_> {
    /// This node's random stream.
    #[inline]
    pub fn rng(&mut self) -> &mut SimRng {
        &mut self.core.rngs[self.node]
    }

    /// Records that `msg`, which met this limiter at `met`, was decided
    /// `outcome`, passing or refused `at`: kept if decisions are being
    /// recorded, counted if they are being tallied.
    pub fn decided(&mut self, msg: &Message, met: SimTime, outcome: Outcome, at: SimTime) {
        if self.core.decisions.is_none() && self.core.tally.is_none() {
            return;
        }
        let decision = Decision { created: msg.created, key: msg.key, node: self.node as u32, outcome, met, at };
        if let Some(tally) = &mut self.core.tally {
            tally.add(&decision);
        }
        if let Some(decisions) = &mut self.core.decisions {
            decisions.push(decision);
        }
    }

    /// Schedules an event for this node after `delay`.
    pub fn schedule_in(&mut self, delay: SimDuration, kind: EventKind, data: u32) {
        self.core.scheduler.schedule(self.core.now + delay, self.node, kind, data);
    }

    /// Counts `msg` as dropped here for `reason`, and lets the gates it was
    /// counted against know.
    pub fn drop_message(&mut self, msg: Message, reason: DropReason) {
        self.stats.drop(reason, 1);
        let what = What::Dropped { reason, class: msg.class, droppable: msg.droppable, bytes: msg.size_bytes };
        self.record_why(what);
        if !self.core.failed_rpcs.is_empty() {
            // A failed RPC dropped for another reason before it surfaced
            // will never surface: forget it.
            self.core.failed_rpcs.remove(&msg.id);
        }
        if !msg.gates.is_empty() {
            self.core.outbox.push(Notice::Dropped(msg));
        }
    }

    pub fn log_transition(&mut self, from: State, to: State, cause: Cause) {
        self.stats.count_entry(to);
        if self.stats.state_times.is_none() {
            // The state held since time zero is the one left first.
            self.stats.state_times = StateTimes::new(from).map(Box::new);
        }
        if let Some(times) = &mut self.stats.state_times {
            times.change(self.core.now, to);
        }
        self.core.log.push(Transition { time: self.core.now, node: self.node, from, to, cause });
        self.record_why(What::Changed { from, to, cause });
    }

    /// Writes down what holds at this node as `what` happens.
    fn record_why(&mut self, what: What) {
        let holding = Holding { messages: self.stats.depth_messages.value(), bytes: self.stats.depth_bytes, in_service: self.stats.in_service };
        self.core.whys.record(self.core.now, self.core.event, self.node, what, holding);
    }
}

/// One block alone on a bench, for the tests beside each block: the core
/// and counters a simulation would lend it, the clock set by hand, and
/// messages made to measure.
#[cfg(test)]
pub(crate) mod bench {
    use super::*;
    use crate::message::NO_DESTINATION;

    pub(crate) struct Bench {
        pub core: Core,
        pub stats: NodeStats,
        made: u64,
    }

    impl Bench {
        pub fn new() -> Bench {
            let core = Core {
                now: SimTime::ZERO,
                rngs: vec![SimRng::new(1)],
                scheduler: Scheduler::default(),
                log: TransitionLog::new(1000),
                outbox: Vec::new(),
                failed_rpcs: Default::default(),
                abandoned: Default::default(),
                stale_ends: 0,
                decisions: None,
                tally: None,
                event: 0,
                whys: Default::default(),
            };
            Bench { core, stats: NodeStats::new(), made: 0 }
        }

        /// The context the block under test (node 0) is handed.
        pub fn ctx(&mut self) -> Context<'_> {
            Context { core: &mut self.core, node: 0, stats: &mut self.stats }
        }

        /// Sets the clock to `s` simulated seconds.
        pub fn at(&mut self, s: f64) -> &mut Bench {
            self.core.now = SimTime::from_secs_f64(s);
            self
        }

        /// A fresh message of `bytes` bytes and class `class`, made now.
        pub fn message(&mut self, bytes: u32, class: u16) -> Message {
            self.made += 1;
            Message {
                id: self.made,
                created: self.core.now,
                size_bytes: bytes,
                source: 1,
                destination: NO_DESTINATION,
                class,
                priority: 0,
                entered_priority: 0,
                droppable: false,
                attempts: 0,
                resent: 0,
                key: crate::message::NO_KEY,
                gates: Default::default(),
            }
        }

        /// The states logged so far, in order.
        pub fn states(&self) -> Vec<State> {
            self.core.log.entries().map(|t| t.to).collect()
        }
    }

    /// What `validate` (a block's spec's own) says of the spec read from
    /// `fields` (a JSON object, as a scenario's file gives it) as node 0:
    /// one message per refusal, each naming its field's path.
    pub fn refusals<S: serde::de::DeserializeOwned>(
        fields: serde_json::Value,
        validate: impl Fn(&S, &str, &mut Vec<crate::plumbing::validate::FieldError>),
    ) -> Vec<String> {
        let spec: S = crate::plumbing::json_read::from_value(&fields).expect("fields the spec reads");
        let mut errors = Vec::new();
        validate(&spec, "nodes[0]", &mut errors);
        errors.iter().map(|e| e.to_string()).collect()
    }
}
