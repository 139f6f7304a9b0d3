//! A run that can be seen again at any earlier instant, in bounded memory.
//!
//! The simulation is deterministic, so an earlier instant need not be
//! stored: it can be run again. A `Run` keeps, beside the live
//! simulation, whole copies of it (checkpoints) every `every` events and
//! the live changes it took (a block's parameters set while running, a
//! block put on an edge), each with the event count and the instant it was
//! taken at. `Run::at(t)` copies the last checkpoint before `t` and runs it
//! on to `t`, taking the changes again where they were taken.
//!
//! Guarantees:
//! - Exact: the run `at(t)` gives is the one a run stopped at `t` would
//!   be (`run_until(t)`), every counter, series, transition and message
//!   where it was, live changes included, and then goes on the same.
//! - Bounded time: reaching an instant runs at most the events between
//!   two checkpoints (`every`, `CHECKPOINT_EVERY`, until the checkpoints
//!   are thinned; `checkpoints()` says the widest gap).
//! - Bounded memory: the checkpoints and the changes kept take at most
//!   `budget` bytes (`TIMELINE_BUDGET`) once each new checkpoint is thinned
//!   in (it is copied first: for that moment, one more), or one checkpoint
//!   and the changes since it when that alone takes more; a comparison's
//!   two runs have a budget each. Bytes are counted by the allocator where the
//!   program installed `plumbing::heap::Counting`, estimated otherwise.
//!   Over the budget, the checkpoint whose two neighbours are nearest goes
//!   (never the first or the latest), so the gaps stay as even as the
//!   budget allows and it is used whole; when two are left and still too
//!   many bytes, the oldest goes with the changes before the next, and the
//!   run can be seen again only from there (`earliest`).
//! - The live run is not disturbed: checkpoints are copies, taken between
//!   events at exact multiples of `every`.

use crate::plumbing::heap;
use crate::scenario::{BlockSpec, Scenario, ScenarioError};
use crate::simulation::{Simulation, Stop};
use crate::time::SimTime;

/// Events between checkpoints at first: about 50 ms of the engine's time
/// natively on a scenario of a few blocks, some 5 ms to copy.
pub const CHECKPOINT_EVERY: u64 = 1 << 17;

/// The memory the checkpoints and changes of one run may take: 64 MB.
pub const TIMELINE_BUDGET: usize = 64_000_000;

/// A live change a run took, as it can be taken again.
#[derive(Clone, Debug)]
pub enum LiveChange {
    /// New parameters for nodes `changed` (by index), `blocks` in order.
    Blocks { changed: Vec<usize>, blocks: Vec<BlockSpec> },
    /// Node `node` put on the edge from `from` to `to`: `edited` is the
    /// scenario after it.
    Inserted { edited: Box<Scenario>, node: usize, from: usize, to: usize },
}

impl LiveChange {
    /// Takes the change in `sim`, as the live run took it.
    fn take(&self, sim: &mut Simulation) {
        // The live run took it: a copy at the same point takes it the same.
        let _ = match self {
            LiveChange::Blocks { changed, blocks } => {
                let mut edited = sim.scenario().clone();
                for (&i, block) in changed.iter().zip(blocks) {
                    if let Some(node) = edited.nodes.get_mut(i) {
                        node.block = block.clone();
                    }
                }
                sim.take_blocks(&edited, changed)
            }
            LiveChange::Inserted { edited, node, from, to } => sim.take_insertion(edited, *node, *from, *to),
        };
    }
}

/// A live change with where it was taken.
#[derive(Clone)]
struct Change {
    events: u64,
    now: SimTime,
    change: LiveChange,
    bytes: usize,
}

/// What came after an instant a run forked at: where the run had got to
/// and the changes it took on the way, enough to run there again.
#[derive(Clone)]
pub struct Future {
    events: u64,
    now: SimTime,
    changes: Vec<Change>,
    /// Where the fork left the live run: its instant, events and changes
    /// taken.
    fork_at: SimTime,
    fork_events: u64,
    fork_changes: usize,
}

impl Future {
    /// The instant the run had reached.
    pub fn now(&self) -> SimTime {
        self.now
    }
}

/// A copy of the run, and how many of the changes it had taken.
#[derive(Clone)]
struct Checkpoint {
    sim: Simulation,
    changes: usize,
    bytes: usize,
}

/// The live simulation with its checkpoints and changes.
#[derive(Clone)]
pub struct Run {
    sim: Simulation,
    checkpoints: Vec<Checkpoint>,
    changes: Vec<Change>,
    /// Changes dropped with the oldest checkpoints: `changes[0]` is change
    /// number `forgotten` of the run.
    forgotten: usize,
    every: u64,
    budget: usize,
    bytes: usize,
}

impl std::ops::Deref for Run {
    type Target = Simulation;
    fn deref(&self) -> &Simulation {
        &self.sim
    }
}

impl Run {
    /// Keeps `sim` (at its start) with the default spacing and budget.
    pub fn new(sim: Simulation) -> Run {
        Run::with(sim, CHECKPOINT_EVERY, TIMELINE_BUDGET)
    }

    /// Keeps `sim` with checkpoints every `every` events (at least 1) and
    /// at most `budget` bytes of them.
    pub fn with(sim: Simulation, every: u64, budget: usize) -> Run {
        let mut run = Run { sim, checkpoints: Vec::new(), changes: Vec::new(), forgotten: 0, every: every.max(1), budget, bytes: 0 };
        run.checkpoint();
        run
    }

    /// The live simulation.
    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    /// Handles one event, as `Simulation::step`.
    pub fn step(&mut self) -> bool {
        let stepped = self.sim.step();
        self.checkpoint_if_due();
        stepped
    }

    /// `Simulation::run_until`, checkpointing on the way.
    pub fn run_until(&mut self, until: SimTime) -> Result<(), Stop> {
        while !self.run_until_bounded(until, u64::MAX)? {}
        Ok(())
    }

    /// `Simulation::run_until_bounded`, checkpointing on the way.
    pub fn run_until_bounded(&mut self, until: SimTime, max_events: u64) -> Result<bool, Stop> {
        let mut left = max_events;
        loop {
            let due = self.every - self.sim.events() % self.every;
            let chunk = left.min(due);
            let reached = self.sim.run_until_bounded(until, chunk);
            self.checkpoint_if_due();
            match reached {
                Ok(true) => return Ok(true),
                Ok(false) if chunk == left => return Ok(false),
                Ok(false) => left -= chunk,
                Err(stop) => return Err(stop),
            }
        }
    }

    /// `Simulation::take_blocks`, kept to be taken again where it was.
    pub fn take_blocks(&mut self, edited: &Scenario, changed: &[usize]) -> Result<(), ScenarioError> {
        self.sim.take_blocks(edited, changed)?;
        self.took(|| {
            let blocks = changed.iter().filter_map(|&i| edited.nodes.get(i).map(|n| n.block.clone())).collect();
            LiveChange::Blocks { changed: changed.to_vec(), blocks }
        });
        Ok(())
    }

    /// The last instant after `after` and before `at` a live change gave
    /// `node` new settings, among the changes the run keeps.
    pub fn settings_changed(&self, node: usize, after: SimTime, at: SimTime) -> Option<SimTime> {
        let upto = self.changes.partition_point(|c| c.now < at);
        self.changes[..upto]
            .iter()
            .rev()
            .take_while(|c| c.now > after)
            .find(|c| matches!(&c.change, LiveChange::Blocks { changed, .. } if changed.contains(&node)))
            .map(|c| c.now)
    }

    /// `Simulation::take_insertion`, kept to be taken again where it was.
    pub fn take_insertion(&mut self, edited: &Scenario, node: usize, from: usize, to: usize) -> Result<(), ScenarioError> {
        self.sim.take_insertion(edited, node, from, to)?;
        self.took(|| LiveChange::Inserted { edited: Box::new(edited.clone()), node, from, to });
        Ok(())
    }

    /// Keeps the change `make` copies, and the bytes the copy took.
    fn took(&mut self, make: impl FnOnce() -> LiveChange) {
        let (change, bytes) = heap::measured(make);
        let bytes = bytes.unwrap_or_else(|| estimate_change(&change));
        self.changes.push(Change { events: self.sim.events(), now: self.sim.now(), change, bytes });
        self.bytes += bytes;
        self.keep_within_budget();
    }

    /// The run as it stood at `t` (the live instant at most, the earliest
    /// kept at least).
    pub fn at(&self, t: SimTime) -> Simulation {
        if t >= self.sim.now() {
            // The live run itself (it may have stopped within an instant).
            return self.sim.clone();
        }
        let t = t.max(self.earliest());
        let k = self.checkpoints.partition_point(|c| c.sim.now() <= t).max(1) - 1;
        let from = &self.checkpoints[k];
        let mut sim = from.sim.clone();
        self.replay(&mut sim, from.changes, t);
        sim
    }

    /// Moves `copy`, the run as it stood at `from`, on to `to` (later),
    /// taking the changes between: a copy being scrubbed forward need not
    /// start again from a checkpoint. From a checkpoint when that is
    /// nearer.
    pub fn onward(&self, copy: &mut Simulation, from: SimTime, to: SimTime) {
        let to = to.min(self.sim.now());
        let k = self.checkpoints.partition_point(|c| c.sim.now() <= to).max(1) - 1;
        if to < from || self.checkpoints[k].sim.events() > copy.events() {
            *copy = self.at(to);
            return;
        }
        // The changes the copy took: those before its events, and those at
        // its events up to `from`.
        let taken = self.forgotten + self.changes.partition_point(|c| (c.events, c.now) <= (copy.events(), from));
        self.replay(copy, taken, to);
    }

    /// Moves `copy` on by one event, taking the changes made before it
    /// (while the clock stood between the two events) and right after it
    /// at its instant, as the live run took them.
    pub fn step_copy(&self, copy: &mut Simulation) {
        let (events, now, next) = (copy.events(), copy.now(), copy.next_event_time());
        for change in self.changes_at(events).iter().filter(|c| c.now > now && next.is_none_or(|t| c.now <= t)) {
            let _ = copy.run_until_bounded(change.now, 0);
            change.change.take(copy);
        }
        copy.step();
        let (events, now) = (copy.events(), copy.now());
        for change in self.changes_at(events).iter().filter(|c| c.now <= now) {
            change.change.take(copy);
        }
    }

    /// The run as it stood just after the first event at which `holds`
    /// (a test that stays true once true, such as a counter past a mark)
    /// held, if it did by `until`; none if it does not
    /// hold live, or held already at the earliest checkpoint kept. Runs
    /// one event at a time from the checkpoint before, so at most the
    /// events between two checkpoints, and never past `until`.
    pub fn first_where(&self, until: SimTime, holds: impl Fn(&Simulation) -> bool) -> Option<Simulation> {
        if !holds(&self.sim) {
            return None;
        }
        // The first checkpoint at which it holds: the search starts at the
        // one before it (which may share its instant: checkpoints fall
        // between events, not between instants).
        let k = self.checkpoints.partition_point(|c| !holds(&c.sim));
        let from_checkpoint = &self.checkpoints[k.checked_sub(1)?];
        let mut copy = from_checkpoint.sim.clone();
        // The changes taken at the checkpoint's very event, after it.
        let taken = from_checkpoint.changes.saturating_sub(self.forgotten);
        let (events, now) = (copy.events(), copy.now());
        let first = self.changes.partition_point(|c| c.events < events).max(taken);
        for change in self.changes.get(first..).unwrap_or_default().iter().take_while(|c| c.events == events && c.now <= now) {
            change.change.take(&mut copy);
        }
        let end = self.checkpoints.get(k).map_or(self.sim.events(), |c| c.sim.events());
        while !holds(&copy) {
            let events = copy.events();
            if events >= end || copy.now() > until {
                return None;
            }
            self.step_copy(&mut copy);
            if copy.events() == events {
                // Nothing left to happen.
                return None;
            }
        }
        (copy.now() <= until).then_some(copy)
    }

    /// The changes taken at event count `events`, in order.
    fn changes_at(&self, events: u64) -> &[Change] {
        let first = self.changes.partition_point(|c| c.events < events);
        let last = self.changes.partition_point(|c| c.events <= events);
        &self.changes[first..last]
    }

    /// How many live changes the run took (those forgotten with the oldest
    /// checkpoints too).
    pub fn changes_taken(&self) -> usize {
        self.forgotten + self.changes.len()
    }

    /// Runs `sim` on to `t`, taking the changes from number `taken` on.
    fn replay(&self, sim: &mut Simulation, taken: usize, t: SimTime) {
        let first = taken.saturating_sub(self.forgotten);
        for change in self.changes[first.min(self.changes.len())..].iter().take_while(|c| c.now <= t) {
            // On to its event, and its instant (the clock may have moved on
            // with no event since); a run the watchdog stopped stays so.
            let left = change.events.saturating_sub(sim.events());
            let _ = sim.run_until_bounded(change.now, left);
            change.change.take(sim);
        }
        let _ = sim.run_until(t);
    }

    /// The earliest instant the run can be seen at.
    pub fn earliest(&self) -> SimTime {
        self.checkpoints.first().map_or(SimTime::ZERO, |c| c.sim.now())
    }

    /// The bytes the checkpoints and changes take.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// How many checkpoints are kept, and the most events between two of
    /// them (or since the latest): the most an instant costs to reach.
    pub fn checkpoints(&self) -> (usize, u64) {
        let events: Vec<u64> = self.checkpoints.iter().map(|c| c.sim.events()).chain([self.sim.events()]).collect();
        (self.checkpoints.len(), events.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0))
    }

    /// Makes the run as it stood at `t` the live one: what came after is
    /// forgotten (a new future forks there). Returns what `restore` needs
    /// to bring the old future back.
    pub fn fork_at(&mut self, t: SimTime) -> Future {
        let (events, now) = (self.sim.events(), self.sim.now());
        let sim = self.at(t);
        let t = sim.now();
        // A checkpoint at `t` itself may have events still to come at `t`:
        // keep only those the new live run has passed.
        let fork_events = sim.events();
        self.checkpoints.retain(|c| c.sim.events() <= fork_events && c.sim.now() <= t);
        let taken = self.changes.partition_point(|c| c.now <= t);
        let changes = self.changes.split_off(taken);
        self.bytes = self.checkpoints.iter().map(|c| c.bytes).sum::<usize>() + self.changes.iter().map(|c| c.bytes).sum::<usize>();
        self.sim = sim;
        Future { events, now, changes, fork_at: t, fork_events, fork_changes: self.forgotten + self.changes.len() }
    }

    /// Whether `restore` can bring `future` back: the live run took no
    /// change since the fork, and the fork's instant is still kept.
    pub fn can_restore(&self, future: &Future) -> bool {
        self.forgotten + self.changes.len() == future.fork_changes && self.sim.events() >= future.fork_events && future.fork_at >= self.earliest()
    }

    /// Brings back the future `fork_at` forgot, when the live run took no
    /// change since the fork (it may have run on: that goes): runs on from
    /// the fork to where the old future was, taking its changes again and
    /// checkpointing on the way. Returns whether it did.
    pub fn restore(&mut self, future: Future) -> bool {
        if !self.can_restore(&future) {
            return false;
        }
        if self.sim.events() > future.fork_events {
            self.fork_at(future.fork_at);
        }
        if self.sim.events() != future.fork_events {
            return false;
        }
        for change in future.changes {
            let left = change.events.saturating_sub(self.sim.events());
            let _ = self.run_until_bounded(change.now, left);
            change.change.take(&mut self.sim);
            self.bytes += change.bytes;
            self.changes.push(change);
            self.keep_within_budget();
        }
        let left = future.events.saturating_sub(self.sim.events());
        if left > 0 {
            let _ = self.run_until_bounded(future.now, left);
        }
        let _ = self.run_until_bounded(future.now, 0);
        true
    }

    fn checkpoint_if_due(&mut self) {
        let events = self.sim.events();
        if events.is_multiple_of(self.every) && self.checkpoints.last().is_none_or(|c| c.sim.events() < events) {
            self.checkpoint();
        }
    }

    fn checkpoint(&mut self) {
        let (sim, bytes) = heap::measured(|| self.sim.clone());
        let bytes = bytes.unwrap_or_else(|| estimate(&sim));
        self.checkpoints.push(Checkpoint { sim, changes: self.forgotten + self.changes.len(), bytes });
        self.bytes += bytes;
        self.keep_within_budget();
    }

    /// Thins the checkpoints, then forgets the oldest, until the budget
    /// holds (the live run's latest checkpoint always stays).
    fn keep_within_budget(&mut self) {
        while self.bytes > self.budget && self.checkpoints.len() > 2 {
            // The one whose going leaves the narrowest gap (the oldest of
            // equals): the gaps stay even.
            let events = |i: usize| self.checkpoints[i].sim.events();
            let Some(i) = (1..self.checkpoints.len() - 1).min_by_key(|&i| events(i + 1) - events(i - 1)) else { break };
            let gone = self.checkpoints.remove(i);
            self.bytes -= gone.bytes;
        }
        while self.bytes > self.budget && self.checkpoints.len() > 1 {
            let gone = self.checkpoints.remove(0);
            self.bytes -= gone.bytes;
            let keep_from = self.checkpoints[0].changes - self.forgotten;
            for change in self.changes.drain(..keep_from) {
                self.bytes -= change.bytes;
            }
            self.forgotten += keep_from;
        }
    }
}

/// A checkpoint's bytes where the allocator does not count them: the
/// messages held (each at most twice over, as a buffer grows), and a
/// node's counters and depth series.
fn estimate(sim: &Simulation) -> usize {
    let messages = sim.in_system() as usize * 2 * std::mem::size_of::<crate::message::Message>();
    let nodes = sim.nodes().len() * 16 * 1024;
    std::mem::size_of::<Simulation>() + messages + nodes
}

fn estimate_change(change: &LiveChange) -> usize {
    match change {
        LiveChange::Blocks { blocks, .. } => blocks.len() * 1024,
        LiveChange::Inserted { edited, .. } => edited.nodes.len() * 1024,
    }
}
