//! What the page observes of the runs, frame by frame: drops for the event
//! log, samples for the charts, the dots and flashes of the canvas, and what
//! queueing theory says of each queue. The engine's `Playground` holds the
//! model; the `Session` here holds it beside what the page noted of its
//! runs, and starts a run's notes afresh when the playground starts the run
//! again.

use std::rc::Rc;

use sluice_engine::Percentiles;
use sluice_engine::editor::Touched;
use sluice_engine::playground::{Applied, Command, PlayError, Playground, Rewound};
use sluice_engine::{DropReason, Scenario, Simulation};

use crate::browser::clock::now_ms;
use crate::view::motion::{Motion, MotionTracker, RECENT_MS};
use crate::view::snapshot::{theories, Theories, LOG_LINES};

/// What the page noted of one run.
#[derive(Default)]
pub struct Observed {
    /// The playground's count of started runs when these notes began.
    starts: u64,
    /// The playground's revision the theories were worked out for.
    revision: u64,
    pub drops: DropLog,
    pub samples: Sampler,
    motion_tracker: MotionTracker,
    pub motion: Rc<Motion>,
    /// What queueing theory says of each queue of the run's scenario.
    pub theories: Theories,
    /// The samples and drop entries a fork cut off, until the fork is
    /// undone or another run starts.
    cut: Option<(Sampler, DropLog)>,
}

impl Observed {
    fn of(sim: &Simulation, starts: u64, revision: u64) -> Observed {
        Observed {
            starts,
            revision,
            motion_tracker: MotionTracker::new(sim),
            theories: theories(sim, &Vec::new(), None),
            ..Observed::default()
        }
    }

    /// The run went back in time to `sim`: forked at `at_s` (the notes
    /// after it go, kept aside), or a fork undone (`None`: what was kept
    /// aside comes back). Counts are read afresh from `sim`.
    fn rewind(&mut self, sim: &Simulation, at_s: Option<f64>, starts: u64) {
        match at_s {
            Some(at_s) => {
                let (mut samples, mut drops) = (self.samples.clone(), self.drops.clone());
                samples.truncate_after(at_s);
                drops.truncate_after(at_s);
                self.cut = Some((std::mem::replace(&mut self.samples, samples), std::mem::replace(&mut self.drops, drops)));
            }
            None => {
                if let Some((samples, drops)) = self.cut.take() {
                    (self.samples, self.drops) = (samples, drops);
                }
            }
        }
        self.drops.rebase(sim);
        self.motion_tracker = MotionTracker::new(sim);
        self.starts = starts;
    }

    /// Notes what `sim` did since the last frame.
    fn observe(&mut self, sim: &Simulation) {
        let now = now_ms();
        self.drops.observe(sim, now);
        self.samples.observe(sim);
        let dropping = self.drops.dropping(now, RECENT_MS);
        self.motion = Rc::new(self.motion_tracker.observe(sim, now, dropping));
    }
}

/// The playground and what the page noted of its runs (A, and B with a
/// comparison open).
pub struct Session {
    pub play: Playground,
    pub a: Observed,
    pub b: Option<Observed>,
    /// The watchdog paused the page: the next run that is not stopped (after
    /// an edit or Reset) plays again.
    pub paused_by_watchdog: bool,
}

impl Session {
    /// Opens `scenario`; should it be refused (what the page opens was
    /// checked as a draft already), the built-in scenario is the way out.
    pub fn new(scenario: Scenario, built_in: impl Fn() -> Scenario) -> Session {
        let lessons = sluice_engine::lesson::catalogue();
        let mut play = Playground::new(scenario, lessons.clone())
            .or_else(|_| Playground::new(built_in(), lessons))
            .expect("the built-in scenario is sound");
        play.count_flows();
        let mut session = Session { play, a: Observed::default(), b: None, paused_by_watchdog: false };
        session.catch_up_notes();
        session
    }

    /// Does `command`, then notes where the runs stand (as after a frame).
    pub fn apply(&mut self, command: Command) -> Result<Applied, PlayError> {
        let result = self.play.apply(command);
        if let Some(rewound) = result.as_ref().ok().and_then(|applied| applied.rewound) {
            let at_s = match rewound {
                Rewound::Forked(at) => Some(at.as_secs_f64()),
                Rewound::Restored => None,
            };
            let starts = self.play.starts();
            if let Some(sim) = self.play.run() {
                self.a.rewind(sim, at_s, starts);
            }
            if let (Some(b), Some(notes)) = (self.play.variant_b(), &mut self.b) {
                notes.rewind(&b.sim, at_s, starts);
            }
        }
        self.observe();
        result
    }

    /// Starts the notes of a run the playground started again, and works
    /// out the theories again after an edit.
    pub fn catch_up_notes(&mut self) {
        let (starts, revision) = (self.play.starts(), self.play.revision());
        match self.play.run() {
            Some(sim) if self.a.starts != starts => self.a = Observed::of(sim, starts, revision),
            Some(sim) if self.a.revision != revision => {
                // One edit since: if it changed only some blocks'
                // parameters, only the queues reading them are worked out.
                let changed = match self.play.editor().touched() {
                    Some(Touched::Blocks(changed)) if self.a.revision + 1 == revision => Some(changed.as_slice()),
                    _ => None,
                };
                self.a.theories = theories(sim, &self.a.theories, changed);
                self.a.revision = revision;
            }
            Some(_) => {}
            None => self.a = Observed { starts, revision, ..Observed::default() },
        }
        self.b = match (self.play.variant_b(), self.b.take()) {
            (Some(_), Some(notes)) if notes.starts == starts => Some(notes),
            (Some(b), _) => Some(Observed::of(&b.sim, starts, revision)),
            (None, _) => None,
        };
    }

    /// Notes what the runs did since the last frame.
    pub fn observe(&mut self) {
        self.catch_up_notes();
        if let Some(sim) = self.play.run() {
            self.a.observe(sim);
        }
        if let (Some(b), Some(notes)) = (self.play.variant_b(), &mut self.b) {
            notes.observe(&b.sim);
        }
    }

    /// Whether to play again: the watchdog had paused the page, and the run
    /// is no longer stopped.
    pub fn resumes(&mut self) -> bool {
        let resume = self.paused_by_watchdog && !self.play.stopped();
        self.paused_by_watchdog &= !resume;
        resume
    }

    /// The blocks that dropped a moment ago by `notes`, as the canvas
    /// flashes them: none while an earlier instant is shown.
    pub fn dropping_shown(&self, notes: &Observed) -> Rc<Vec<bool>> {
        if self.play.scrubbed().is_some() {
            return Rc::default();
        }
        notes.motion.dropping.clone()
    }

    /// Events processed by the run (none without one).
    pub fn events(&self) -> u64 {
        self.play.run().map_or(0, Simulation::events)
    }

    /// The ids of the nodes at `indices` of the edited scenario.
    pub fn ids_of(&self, indices: &[usize]) -> Vec<String> {
        let nodes = &self.play.scenario().nodes;
        indices.iter().filter_map(|&i| nodes.get(i).map(|n| n.id.clone())).collect()
    }

    /// The positions of the blocks named `ids` in the scenario now, those
    /// no longer there left out.
    pub fn indices_of(&self, ids: &[String]) -> Vec<usize> {
        // A few ids are found by a scan each; many (every block of a large
        // scenario selected) through one map, not a scan per id.
        if ids.len() <= 8 {
            return ids.iter().filter_map(|id| self.play.index_of(id)).collect();
        }
        let index = self.play.scenario().indices();
        ids.iter().filter_map(|id| index.get(id.as_str()).copied()).collect()
    }
}

/// Drops seen between two frames at one node for one reason: the engine
/// counts drops rather than logging each, so the page notes how the counts
/// moved, once per frame.
#[derive(Clone, Debug, PartialEq)]
pub struct DropEntry {
    /// Its place in the sequence of drop entries: a stable key.
    pub seq: u64,
    pub time_s: f64,
    pub index: usize,
    pub node: String,
    pub reason: &'static str,
    pub count: u64,
}

/// The latest drop entries, the counts they were worked out from, and when
/// (in real milliseconds) each node last dropped, for the canvas's flash.
#[derive(Clone, Default)]
pub struct DropLog {
    seen: Vec<[u64; DropReason::COUNT]>,
    last_drop_ms: Vec<f64>,
    noted: u64,
    entries: std::collections::VecDeque<DropEntry>,
}

impl DropLog {
    /// Notes the drops since the last call, made at `now_ms` real time.
    pub fn observe(&mut self, sim: &Simulation, now_ms: f64) {
        let n = sim.nodes().len();
        self.seen.resize(n, [0; DropReason::COUNT]);
        self.last_drop_ms.resize(n, f64::NEG_INFINITY);
        let time_s = sim.now().as_secs_f64();
        for (i, seen) in self.seen.iter_mut().enumerate() {
            let now = sim.stats(i).dropped;
            for (k, reason) in DropReason::ALL.iter().enumerate() {
                if now[k] > seen[k] {
                    self.last_drop_ms[i] = now_ms;
                    if self.entries.len() == LOG_LINES {
                        self.entries.pop_front();
                    }
                    let entry = DropEntry { seq: self.noted, time_s, index: i, node: sim.node_id(i).to_string(), reason: reason.as_str(), count: now[k] - seen[k] };
                    self.entries.push_back(entry);
                    self.noted += 1;
                }
            }
            *seen = now;
        }
    }

    /// Forgets the entries after `at_s` (a fork there).
    fn truncate_after(&mut self, at_s: f64) {
        self.entries.retain(|e| e.time_s <= at_s);
    }

    /// Takes `sim`'s drop counts as seen: a run gone back in time counts
    /// on from them.
    fn rebase(&mut self, sim: &Simulation) {
        self.seen = (0..sim.nodes().len()).map(|i| sim.stats(i).dropped).collect();
        // No flash of drops from another future.
        self.last_drop_ms = vec![f64::NEG_INFINITY; sim.nodes().len()];
    }

    /// Per node, whether it dropped something within `within_ms` of
    /// `now_ms`.
    pub fn dropping(&self, now_ms: f64, within_ms: f64) -> Vec<bool> {
        self.last_drop_ms.iter().map(|&t| now_ms - t <= within_ms).collect()
    }

    /// Most recent first.
    pub fn latest(&self) -> Vec<DropEntry> {
        self.entries.iter().rev().cloned().collect()
    }
}

/// One node's figures at one instant, for the throughput and latency charts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub t_s: f64,
    pub departed: u64,
    pub depth_bytes: u64,
    /// Latency percentiles so far (queues: the wait; sinks: from creation).
    pub latency: Option<Percentiles>,
    /// The mean of the same waits (or sojourns), exact.
    pub mean_s: Option<f64>,
    /// A producer whose clients wait with a time-out: the requests
    /// answered while their client waited, so far.
    pub answered: Option<u64>,
}

/// Samples taken at most this many per node; when full, every other one
/// goes and the gap between samples doubles, so memory stays bounded.
const SAMPLES: usize = 512;

/// Every node's samples, taken as the page draws (the engine keeps counts
/// and histograms, not their history).
#[derive(Clone, Default)]
pub struct Sampler {
    nodes: Vec<Vec<Sample>>,
    /// Simulated seconds between samples at least.
    gap_s: f64,
}

impl Sampler {
    pub fn observe(&mut self, sim: &Simulation) {
        let t_s = sim.now().as_secs_f64();
        let n = sim.nodes().len();
        self.nodes.resize_with(n, Vec::new);
        let last = self.nodes.first().and_then(|s| s.last()).map_or(f64::NEG_INFINITY, |s| s.t_s);
        if t_s - last < self.gap_s || t_s <= last {
            return;
        }
        for (i, samples) in self.nodes.iter_mut().enumerate() {
            let stats = sim.stats(i);
            let durations = stats.durations.as_ref().filter(|d| d.count() > 0);
            let (latency, mean_s) = (durations.map(|d| d.percentiles()), durations.and_then(|d| d.mean_s()));
            let answered = stats.client.as_ref().filter(|_| matches!(sim.nodes()[i], sluice_engine::Node::Producer(_))).map(|c| c.answered);
            samples.push(Sample { t_s, departed: stats.departed, depth_bytes: stats.depth_bytes, latency, mean_s, answered });
        }
        if self.nodes.first().is_some_and(|s| s.len() >= SAMPLES) {
            for samples in &mut self.nodes {
                *samples = sluice_engine::merge_pairs(samples, |first, _| first);
            }
            self.gap_s = (self.gap_s * 2.0).max(t_s / SAMPLES as f64);
        }
    }

    /// Forgets the samples after `at_s` (a fork there).
    fn truncate_after(&mut self, at_s: f64) {
        for samples in &mut self.nodes {
            samples.retain(|s| s.t_s <= at_s);
        }
    }

    pub fn of(&self, node: usize) -> &[Sample] {
        self.nodes.get(node).map_or(&[], Vec::as_slice)
    }
}
