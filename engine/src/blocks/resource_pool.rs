//! Resource pool: a job needs a free connection from a pool, after
//! super-queue's resource pools (generic-pool).
//!
//! Guarantees:
//! - A message passes only if it can take an idle resource, which it holds
//!   until a consumer processes it (or it is dropped); the resource then
//!   returns to the pool. Otherwise it is refused and the sender holds it.
//! - Creating a resource takes `create_s`. The pool never holds more than
//!   `max_total` (idle, busy and being created; lowered while running, the
//!   idle ones beyond it go at once, busy ones as they come back and those
//!   being created as they are made), creates one when a message
//!   finds none idle and none on the way (one at a time, so that a waiting
//!   sender's retries do not each start one), keeps at least `min_total` in
//!   all and, room allowing, at least `min_spare` idle or being created. A returned resource beyond
//!   `max_spare` idle ones is destroyed, but never below `min_total`.
//! - When a resource becomes idle, the pool wakes its senders.

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::context::Context;
use crate::plumbing::validate::{check_range, push_error, FieldError};
use crate::scheduler::EventKind;
use crate::time::SimDuration;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourcePoolSpec {
    #[serde(default)]
    pub min_total: u32,
    pub max_total: u32,
    #[serde(default)]
    pub min_spare: u32,
    #[serde(default = "unbounded")]
    pub max_spare: u32,
    #[serde(default)]
    pub create_s: f64,
}

fn unbounded() -> u32 {
    u32::MAX
}

impl ResourcePoolSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.max_total == 0 || self.max_total > 1_000_000 {
            push_error(errors, format!("{path}.max_total"), "must be between 1 and 1,000,000");
        }
        if self.min_total > self.max_total {
            push_error(errors, format!("{path}.min_total"), format!("must not exceed max_total ({} > {})", self.min_total, self.max_total));
        }
        if self.min_spare > self.max_spare {
            push_error(errors, format!("{path}.min_spare"), format!("must not exceed max_spare ({} > {})", self.min_spare, self.max_spare));
        }
        check_range(errors, format!("{path}.create_s"), self.create_s, 0.0, 1e6);
    }
}

#[derive(Clone)]
pub struct ResourcePool {
    spec: ResourcePoolSpec,
    idle: u32,
    busy: u32,
    creating: u32,
    /// The resources being created, by the instant each batch is ready:
    /// one event a batch, not one a resource (a pool of a million made at
    /// once is one event, not a million at one instant).
    batches: std::collections::VecDeque<(crate::time::SimTime, u32)>,
    created: u64,
    destroyed: u64,
}

impl ResourcePool {
    pub fn new(spec: ResourcePoolSpec) -> Self {
        ResourcePool { spec, idle: 0, busy: 0, creating: 0, batches: Default::default(), created: 0, destroyed: 0 }
    }

    pub fn spec(&self) -> &ResourcePoolSpec {
        &self.spec
    }

    pub fn reconfigure(&mut self, spec: ResourcePoolSpec, ctx: &mut Context) {
        self.spec = spec;
        // A lower `max_total` is kept at once where it can be: idle
        // resources beyond it go now, busy ones as they come back.
        while self.total() > self.spec.max_total && self.idle > 0 {
            self.idle -= 1;
            self.destroyed += 1;
        }
        self.top_up(0, ctx);
    }

    fn total(&self) -> u32 {
        self.idle + self.busy + self.creating
    }

    /// (idle, busy, being created).
    pub fn counts(&self) -> (u32, u32, u32) {
        (self.idle, self.busy, self.creating)
    }

    pub fn start(&mut self, ctx: &mut Context) {
        self.top_up(0, ctx);
    }

    /// Starts creating `n` resources, ready `create_s` from now.
    fn create(&mut self, n: u32, ctx: &mut Context) {
        self.creating += n;
        let at = ctx.core.now + SimDuration::from_secs_f64(self.spec.create_s);
        // A `create_s` lowered while running can make a batch due earlier
        // than one already on its way.
        let pos = self.batches.iter().rposition(|(t, _)| *t <= at).map_or(0, |p| p + 1);
        match self.batches.get_mut(pos.wrapping_sub(1)) {
            Some((t, count)) if *t == at => *count += n,
            _ => {
                self.batches.insert(pos, (at, n));
                ctx.core.scheduler.schedule(at, ctx.node, EventKind::AckDue, 0);
            }
        }
    }

    /// Creates resources up to the minimums, and `extra` more, within
    /// `max_total`.
    fn top_up(&mut self, extra: u32, ctx: &mut Context) {
        let want_total = self.spec.min_total.max(self.busy.saturating_add(self.spec.min_spare).saturating_add(extra));
        let missing = want_total.min(self.spec.max_total).saturating_sub(self.total());
        if missing > 0 {
            self.create(missing, ctx);
        }
        self.record(ctx);
    }

    /// Whether a message may take a resource now. A message that finds none
    /// asks for one more to be created.
    pub fn admits(&mut self, ctx: &mut Context) -> bool {
        if self.idle > 0 {
            return true;
        }
        if self.creating == 0 {
            self.top_up(1, ctx);
        }
        false
    }

    /// The next block took the message: it holds a resource.
    pub fn sent(&mut self, ctx: &mut Context) {
        self.idle -= 1;
        self.busy += 1;
        ctx.stats.arrived += 1;
        ctx.stats.departed += 1;
        self.top_up(0, ctx);
    }

    /// A message that held a resource finished (or was dropped).
    pub fn finished(&mut self, ctx: &mut Context) {
        if self.busy == 0 {
            return;
        }
        self.busy -= 1;
        // `total()` no longer counts the one coming back.
        let over = self.total() >= self.spec.max_total;
        if over || (self.idle >= self.spec.max_spare && self.total() > self.spec.min_total) {
            self.destroyed += 1;
        } else {
            self.idle += 1;
        }
        self.record(ctx);
    }

    /// The resources due by now finished being created. Returns whether
    /// one became idle.
    pub fn on_created(&mut self, ctx: &mut Context) -> bool {
        let mut made = 0;
        while self.batches.front().is_some_and(|(t, _)| *t <= ctx.core.now) {
            let Some((_, n)) = self.batches.pop_front() else { break };
            made += n;
        }
        let made = made.min(self.creating);
        if made == 0 {
            return false;
        }
        self.creating -= made;
        self.created += made as u64;
        // What `max_total`, lowered while they were being made, has no
        // room for is destroyed at once.
        let room = self.spec.max_total.saturating_sub(self.total());
        let kept = made.min(room);
        self.destroyed += (made - kept) as u64;
        self.idle += kept;
        self.record(ctx);
        kept > 0
    }

    fn record(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.core.now, self.busy as u64, 0);
    }
}

impl ResourcePoolSpec {
    /// Its number field at `steps` (a slider's, a sweep's).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("min_total")] => Some(NumberField::Whole32(&mut self.min_total)),
            [Step::Key("max_total")] => Some(NumberField::Whole32(&mut self.max_total)),
            [Step::Key("min_spare")] => Some(NumberField::Whole32(&mut self.min_spare)),
            [Step::Key("max_spare")] => Some(NumberField::Whole32(&mut self.max_spare)),
            [Step::Key("create_s")] => Some(NumberField::Real(&mut self.create_s)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::bench::Bench;

    fn pool(spec: serde_json::Value) -> ResourcePool {
        ResourcePool::new(crate::plumbing::json_read::from_value(&spec).unwrap())
    }

    /// Makes what is due at `s` seconds.
    fn at(p: &mut ResourcePool, b: &mut Bench, s: f64) -> bool {
        b.at(s);
        p.on_created(&mut b.ctx())
    }

    fn take(p: &mut ResourcePool, b: &mut Bench) -> bool {
        let admitted = p.admits(&mut b.ctx());
        if admitted {
            p.sent(&mut b.ctx());
        }
        admitted
    }

    #[test]
    fn the_minimum_is_made_at_the_start_and_ready_after_create_s() {
        let mut b = Bench::new();
        let mut p = pool(json!({"min_total": 2, "max_total": 3, "create_s": 1.0}));
        p.start(&mut b.ctx());
        assert_eq!(p.counts(), (0, 0, 2));
        assert!(!take(&mut p, &mut b), "none idle yet");
        assert!(!at(&mut p, &mut b, 0.999));
        assert!(at(&mut p, &mut b, 1.0));
        assert_eq!(p.counts(), (2, 0, 0));
    }

    #[test]
    fn a_job_that_finds_none_idle_asks_for_one_and_the_pool_never_passes_max_total() {
        let mut b = Bench::new();
        let mut p = pool(json!({"min_total": 1, "max_total": 2, "create_s": 0.5}));
        p.start(&mut b.ctx());
        at(&mut p, &mut b, 0.5);
        assert!(take(&mut p, &mut b));
        assert!(!take(&mut p, &mut b), "none idle: one more is made");
        assert!(!take(&mut p, &mut b), "one at a time, not one a retry");
        assert_eq!(p.counts(), (0, 1, 1));
        at(&mut p, &mut b, 1.0);
        assert!(take(&mut p, &mut b));
        assert!(!take(&mut p, &mut b));
        assert_eq!(p.counts(), (0, 2, 0), "two in all: no third is made");
        p.finished(&mut b.ctx());
        assert_eq!(p.counts(), (1, 1, 0));
    }

    #[test]
    fn spares_are_kept_ready_and_returned_ones_beyond_max_spare_go_but_not_below_min_total() {
        let mut b = Bench::new();
        let mut p = pool(json!({"min_total": 1, "max_total": 10, "min_spare": 2, "max_spare": 2, "create_s": 0.1}));
        p.start(&mut b.ctx());
        assert_eq!(p.counts(), (0, 0, 2), "two spares on the way");
        at(&mut p, &mut b, 0.1);
        assert!(take(&mut p, &mut b));
        assert_eq!(p.counts(), (1, 1, 1), "a spare is made for the one taken");
        at(&mut p, &mut b, 0.2);
        assert_eq!(p.counts(), (2, 1, 0));
        p.finished(&mut b.ctx());
        assert_eq!(p.counts(), (2, 0, 0), "a third idle one is beyond max_spare: destroyed");
    }

    /// A pool of 1 to a million, at least its minimum, its spares within
    /// bounds that hold together, and a creation time of 0 to 10^6 s.
    #[test]
    fn the_bounds_hold_together_at_their_edges() {
        let refused = |spec: serde_json::Value| {
            let spec: ResourcePoolSpec = crate::plumbing::json_read::from_value(&spec).unwrap();
            let mut errors = Vec::new();
            spec.validate("nodes[2]", &mut errors);
            errors.iter().map(|e| e.path.clone()).collect::<Vec<_>>()
        };
        assert!(refused(json!({"max_total": 1})).is_empty());
        assert!(refused(json!({"max_total": 1_000_000, "min_total": 1_000_000, "min_spare": 3, "max_spare": 3, "create_s": 1e6})).is_empty());
        assert_eq!(refused(json!({"max_total": 0})), ["nodes[2].max_total"]);
        assert_eq!(refused(json!({"max_total": 1_000_001})), ["nodes[2].max_total"]);
        assert_eq!(refused(json!({"max_total": 4, "min_total": 5})), ["nodes[2].min_total"]);
        assert_eq!(refused(json!({"max_total": 4, "min_spare": 3, "max_spare": 2})), ["nodes[2].min_spare"]);
        assert_eq!(refused(json!({"max_total": 4, "create_s": -0.5})), ["nodes[2].create_s"]);
    }
}
