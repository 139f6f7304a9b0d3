//! The page: owns the scenario being edited and the running simulation, and
//! drives the simulation on a timer; every other component gets plain data
//! as props and reports input as callbacks.
//!
//! Edits go through the engine's `Editor` (which refuses what is unsound
//! and keeps the undo history); the simulation then follows the edited
//! scenario: a parameter change applies to the running simulation, a change
//! of shape starts it again, and a scenario that still lacks an edge does not
//! run until it is complete.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_events::{EventListener, EventListenerOptions};
use sluice_engine::editor::default_position;
use sluice_engine::scenario::Position;
use sluice_engine::lesson::{self, CheckResult, Lesson, LessonText, Verdict, Watch};
use sluice_engine::{BlockSpec, Editor, Scenario, SimTime, Simulation};
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

use crate::chart::{ChartKind, Charts, Line, StateChange, Stroke, NODE_COLOURS};
use crate::controls::{ClockReading, Controls};
use crate::counters::Counters;
use crate::frames::FrameLoop;
use crate::motion::{Motion, MotionTracker, RECENT_MS};
use crate::graph::{client_to_canvas, over_canvas, Graph, Select};
use crate::inspector::Inspector;
use crate::keep;
use crate::lesson_panel::{LessonPanel, StepState};
use crate::lesson_picker::LessonPicker;
use crate::live::Live;
use crate::palette::Palette;
use crate::event_log::EventLog;
use crate::snapshot::{state_colour, theories, DropEntry, DropLog, LogView, Sampler, Snapshot, Theories};
use crate::theory_panel::TheoryPanel;
use crate::ab_table::AbTable;

/// The most events one frame may process, so the page stays responsive
/// when the simulation cannot keep up with the chosen speed.
const EVENTS_PER_FRAME: u64 = 200_000;
/// A frame never simulates more than this much real time (a tab that was in
/// the background does not jump ahead).
const MAX_FRAME_SECONDS: f64 = 0.25;
/// At "as fast as possible", the wall-clock milliseconds a frame may spend
/// simulating (the rest of a 60 Hz frame draws).
const FLAT_OUT_MS: f64 = 10.0;

fn default_scenario() -> Scenario {
    Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).expect("the built-in scenario is valid")
}

/// The lessons, read once.
fn lessons() -> Rc<Vec<Lesson>> {
    thread_local! {
        static LESSONS: Rc<Vec<Lesson>> = Rc::new(lesson::catalogue());
    }
    LESSONS.with(Rc::clone)
}

/// The open lesson: which, and where each of its steps stands.
struct LessonRun {
    index: usize,
    /// The step being watched, and its watch on the running simulation.
    watching: Option<(usize, Watch)>,
    states: Vec<StepState>,
    /// How many times each step was begun (a verdict says which try it
    /// judged).
    tries: Vec<u32>,
}

/// Variant B of an A/B comparison: another scenario on A's seed, run to
/// A's time frame by frame, watched but not edited.
struct Comparison {
    labels: (String, String),
    sim: Simulation,
    drops: DropLog,
    samples: Sampler,
    motion_tracker: MotionTracker,
    motion: Rc<Motion>,
    theories: Theories,
}

impl Comparison {
    /// `scenario` from time zero on `seed`.
    fn new(scenario: Scenario, seed: u64, labels: (String, String)) -> Result<Comparison, String> {
        let mut sim = Simulation::new(scenario, seed).map_err(|e| e.to_string())?;
        sim.count_flows();
        let motion_tracker = MotionTracker::new(&sim);
        let theories = theories(sim.scenario());
        Ok(Comparison { labels, sim, drops: DropLog::default(), samples: Sampler::default(), motion_tracker, motion: Rc::default(), theories })
    }

    /// The same variant from time zero again, on `seed`.
    fn restarted(&self, seed: u64) -> Option<Comparison> {
        Comparison::new(self.sim.scenario().clone(), seed, self.labels.clone()).ok()
    }
}

/// Notes what a simulation did since the last frame: drops for the log,
/// samples for the charts, and the dots and flashes of the canvas.
fn observe_run(sim: &Simulation, drops: &mut DropLog, samples: &mut Sampler, tracker: &mut MotionTracker) -> Rc<Motion> {
    let now = now_ms();
    drops.observe(sim, now);
    samples.observe(sim);
    let dropping = drops.dropping(now, RECENT_MS);
    Rc::new(tracker.observe(sim, now, dropping))
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// The scenario being edited and the simulation of its last runnable form.
pub struct Session {
    editor: Editor,
    sim: Option<Simulation>,
    /// What the draft still lacks, worked out once per edit (not per frame).
    missing: Vec<String>,
    /// Drops noted frame by frame, for the event log.
    drops: DropLog,
    /// Throughput, bytes and latency sampled frame by frame, for the charts.
    samples: Sampler,
    /// The dots and flashes on the canvas, followed frame by frame.
    motion_tracker: MotionTracker,
    motion: Rc<Motion>,
    /// What queueing theory says of each queue of the running scenario.
    theories: Theories,
    /// Counts what the panels catch up with at once: accepted edits, and
    /// lesson verdicts (so that the figures beside one are those it judged).
    generation: u64,
    lesson: Option<LessonRun>,
    /// With A/B open: variant B (the edited scenario is A).
    comparison: Option<Comparison>,
    /// The watchdog paused the page: the next run that is not stopped (after
    /// an edit or Reset) plays again.
    paused_by_watchdog: bool,
}

impl Session {
    fn new(scenario: Scenario) -> Session {
        // What the page opens has been checked as a draft already; should it
        // still be refused, the built-in scenario is the way out.
        let editor = Editor::new(scenario)
            .or_else(|_| Editor::new(default_scenario()))
            .expect("the built-in scenario is sound");
        let mut session = Session {
            editor,
            sim: None,
            missing: Vec::new(),
            drops: DropLog::default(),
            samples: Sampler::default(),
            motion_tracker: MotionTracker::default(),
            motion: Rc::default(),
            theories: Theories::new(),
            generation: 0,
            lesson: None,
            comparison: None,
            paused_by_watchdog: false,
        };
        session.follow();
        session
    }

    /// Starts the simulation again from time zero, if the scenario can run.
    fn restart(&mut self) {
        let scenario = self.editor.scenario().clone();
        let seed = scenario.seed.unwrap_or(1);
        self.sim = if self.missing.is_empty() { Simulation::new(scenario, seed).ok() } else { None };
        if let Some(sim) = &mut self.sim {
            sim.count_flows();
        }
        self.drops = DropLog::default();
        self.samples = Sampler::default();
        self.motion_tracker = self.sim.as_ref().map(MotionTracker::new).unwrap_or_default();
        self.motion = Rc::default();
        self.theories = self.sim.as_ref().map(|sim| theories(sim.scenario())).unwrap_or_default();
        // B keeps in step: both start again from zero on A's seed.
        self.comparison = self.comparison.take().and_then(|b| b.restarted(seed));
        // A watch reads the simulation it began on.
        if let Some(run) = &mut self.lesson {
            if let Some((k, _)) = run.watching.take() {
                run.states[k] = StepState::NotTried;
            }
        }
    }

    /// When the watched step of the open lesson is to be judged.
    fn judge_at(&self) -> Option<SimTime> {
        self.lesson.as_ref()?.watching.as_ref().map(|(_, w)| w.judge_at)
    }

    /// The runs a step's watch reads: A, and for a comparing step B too
    /// (when the comparison is open).
    fn runs(&self, compare: bool) -> Vec<&Simulation> {
        let b = self.comparison.as_ref().filter(|_| compare).map(|b| &b.sim);
        self.sim.iter().chain(b).collect()
    }

    /// Starts watching step `k` of the open lesson on the running
    /// simulation, or on A and B for a comparing step (whose comparison
    /// the caller has opened, from time zero).
    fn watch_step(&mut self, k: usize) {
        let Some(index) = self.lesson.as_ref().map(|run| run.index) else { return };
        let lessons = lessons();
        let Some(step) = lessons.get(index).and_then(|l| l.text.steps.get(k)) else { return };
        let runs = self.runs(step.compare);
        let started = if runs.is_empty() {
            Err("The scenario is not running: it lacks an edge.".to_string())
        } else if step.compare && runs.len() < 2 {
            Err("The A/B comparison is not open.".to_string())
        } else {
            Watch::start(step, &runs)
        };
        let Some(run) = &mut self.lesson else { return };
        if let Some(tries) = run.tries.get_mut(k) {
            *tries += 1;
        }
        match started {
            Ok(watch) => {
                run.states[k] = StepState::Watching { until_s: watch.judge_at.as_secs_f64() };
                run.watching = Some((k, watch));
            }
            Err(why) => {
                run.states[k] = StepState::Judged(Verdict { passed: false, results: vec![CheckResult { text: why, figure: None, passed: false }] });
            }
        }
    }

    /// Gives the verdict on the watched step once its time has come.
    /// Returns whether it did.
    fn judge(&mut self) -> bool {
        let Some(run) = &self.lesson else { return false };
        let Some((k, watch)) = &run.watching else { return false };
        let compare = lessons().get(run.index).and_then(|l| l.text.steps.get(*k)).is_some_and(|step| step.compare);
        let runs = self.runs(compare);
        // B must have caught up with A too.
        if runs.is_empty() || !runs.iter().all(|sim| watch.due(&[sim])) {
            return false;
        }
        let verdict = watch.verdict(&runs);
        let k = *k;
        if let Some(run) = &mut self.lesson {
            run.states[k] = StepState::Judged(verdict);
            run.watching = None;
        }
        self.generation += 1;
        true
    }

    /// Brings variant B to A's simulated time (unless the watchdog stops
    /// it first: its panel then says why).
    fn catch_up_b(&mut self) {
        if let (Some(a), Some(b)) = (&self.sim, &mut self.comparison) {
            let _ = b.sim.run_until(a.now());
        }
    }

    /// Whether to play again: the watchdog had paused the page, and the run
    /// is no longer stopped.
    fn resumes(&mut self) -> bool {
        let resume = self.paused_by_watchdog && !self.stopped();
        self.paused_by_watchdog &= !resume;
        resume
    }

    /// Whether the watchdog stopped A or B (every frame asks: no sentence
    /// is written for it).
    fn stopped(&self) -> bool {
        self.sim.as_ref().is_some_and(|sim| sim.stall().is_some())
            || self.comparison.as_ref().is_some_and(|b| b.sim.stall().is_some())
    }

    /// Why the watchdog stopped A or B, if it did, as a sentence.
    fn stall(&self) -> Option<String> {
        let a = self.sim.as_ref().and_then(Simulation::stall).map(|stall| {
            let why = stall.to_string();
            let mut chars = why.chars();
            chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or(why)
        });
        let b = || {
            let b = self.comparison.as_ref()?;
            b.sim.stall().map(|stall| format!("Variant B: {stall}"))
        };
        a.or_else(b)
    }

    /// Opens an A/B comparison: the edited scenario is A, `b` runs beside
    /// it on the same seed; both start from zero.
    fn open_comparison(&mut self, b: Scenario, labels: (String, String)) -> Result<(), String> {
        let seed = self.editor.scenario().seed.unwrap_or(1);
        self.comparison = Some(Comparison::new(b, seed, labels)?);
        self.restart();
        Ok(())
    }

    /// Notes what the simulation did since the last frame.
    fn observe(&mut self) {
        if let Some(sim) = &self.sim {
            self.motion = observe_run(sim, &mut self.drops, &mut self.samples, &mut self.motion_tracker);
        }
        if let Some(b) = &mut self.comparison {
            b.motion = observe_run(&b.sim, &mut b.drops, &mut b.samples, &mut b.motion_tracker);
        }
    }

    /// Brings the simulation in line with the edited scenario: parameters
    /// change live; anything else starts again.
    fn follow(&mut self) {
        self.missing = self.editor.missing().into_iter().map(|e| e.message).collect();
        if !self.missing.is_empty() {
            self.sim = None;
            self.drops = DropLog::default();
            return;
        }
        // A run the watchdog stopped cannot go on: any edit starts it again.
        if let Some(sim) = self.sim.as_mut().filter(|sim| sim.stall().is_none()) {
            let (running, edited) = (sim.scenario(), self.editor.scenario());
            let same_shape = running.edges == edited.edges
                && running.seed == edited.seed
                && running.nodes.len() == edited.nodes.len()
                && running.nodes.iter().zip(&edited.nodes).all(|(a, b)| a.id == b.id && a.block.kind() == b.block.kind());
            if same_shape {
                let changed: Vec<(String, BlockSpec)> = edited
                    .nodes
                    .iter()
                    .zip(&running.nodes)
                    .filter(|(e, r)| e.block != r.block)
                    .map(|(e, _)| (e.id.clone(), e.block.clone()))
                    .collect();
                if changed.into_iter().all(|(id, block)| sim.reconfigure(&id, block).is_ok()) {
                    self.theories = theories(sim.scenario());
                    return;
                }
            }
        }
        self.restart();
    }

    fn id_of(&self, index: usize) -> Option<String> {
        self.editor.scenario().nodes.get(index).map(|n| n.id.clone())
    }

    fn ids_of(&self, indices: &[usize]) -> Vec<String> {
        indices.iter().filter_map(|&i| self.id_of(i)).collect()
    }

    fn index_of(&self, id: &str) -> Option<usize> {
        self.editor.scenario().node_index(id)
    }
}

/// The longest the panels of figures and the chart wait between updates
/// while playing, in milliseconds: five times a second. Figures that change
/// faster cannot be read, and each refresh lays out and paints the text of
/// every block; at ten a second, a browser sharing its two cores with other
/// work dropped a frame on most refreshes.
const PANEL_MS: f64 = 200.0;

/// The longest the event log waits between updates while playing. A busy
/// log (the 40-node scenario logs some 500 state changes a second) replaces
/// every row it shows on each update, faster than anyone reads, and that
/// update was the heaviest frame of all: two and a half a second keep it
/// live.
const LOG_MS: f64 = 2.0 * PANEL_MS;

/// The least time between two readings of the clock while playing: every
/// third frame at 60 frames a second (three frames are 50 ms; a little less,
/// so that a frame that comes early does not push it to the fourth). Every
/// change of its text costs a layout, a paint and a composite of the top
/// bar, and milliseconds changing 60 times a second cannot be read either.
const CLOCK_MS: f64 = 45.0;

/// What the panels and the chart last showed, and for which selection.
///
/// Three parts, each refreshed every `PANEL_MS` (the log every `LOG_MS`)
/// while playing, a third of a period apart, so that no frame refreshes
/// two: the canvas with the figures, then the event log, then the chart.
/// Refreshed together, they made one frame in six several times as long as
/// the others, and that frame was dropped; in two halves (the log with the
/// chart), one heavy frame in four still was.
struct PanelCache {
    key: (Vec<usize>, ChartKind, u64),
    /// The canvas, the counters and the panels beside them.
    at_ms: f64,
    snapshot: Rc<Snapshot>,
    /// Variant B's, with A/B open.
    b_snapshot: Option<Rc<Snapshot>>,
    /// The event log.
    log_at_ms: f64,
    log: Rc<LogView>,
    drops: Rc<Vec<DropEntry>>,
    /// The chart, and the simulated time it reaches.
    chart_at_ms: f64,
    charts: Option<ChartData>,
    chart_now_s: f64,
}

impl Default for PanelCache {
    fn default() -> Self {
        // Long ago: the first render works everything out.
        PanelCache {
            key: Default::default(),
            at_ms: f64::NEG_INFINITY,
            snapshot: Rc::default(),
            b_snapshot: None,
            log_at_ms: f64::NEG_INFINITY,
            log: Rc::default(),
            drops: Rc::default(),
            chart_at_ms: f64::NEG_INFINITY,
            charts: None,
            chart_now_s: 0.0,
        }
    }
}

impl PanelCache {
    /// Which parts are due at `now_ms` while playing (figures, log,
    /// chart): one part per frame, the log a third of a period after the
    /// figures, the chart a third after the log.
    fn due(&self, now_ms: f64) -> (bool, bool, bool) {
        let due = |at_ms: f64| now_ms - at_ms >= PANEL_MS;
        let after = |at_ms: f64| now_ms - at_ms >= PANEL_MS / 3.0;
        let figures = due(self.at_ms);
        let log = !figures && now_ms - self.log_at_ms >= LOG_MS && after(self.at_ms);
        let chart = !figures && !log && due(self.chart_at_ms) && after(self.log_at_ms);
        (figures, log, chart)
    }
}

/// Events processed by the session's simulation (none without one).
fn sim_events(s: &Session) -> u64 {
    s.sim.as_ref().map_or(0, |sim| sim.events())
}

/// Reads one percentile.
type PercentileOf = fn(&sluice_engine::metrics::Percentiles) -> f64;

/// Applies a change to the session, or says why it was refused.
type Edit = Rc<dyn Fn(&dyn Fn(&mut Session) -> Result<(), String>) -> Result<(), String>>;

/// A chart's lines, the charted nodes' names, and their state strips.
type ChartData = (Rc<Vec<Line>>, Vec<String>, Rc<Vec<(String, Vec<StateChange>)>>);

/// A free spot for a block added without a drop point: the first free cell
/// of a grid four blocks wide, from the top left of the existing ones, so
/// the canvas grows downwards in rows rather than ever wider.
fn free_spot(scenario: &Scenario) -> Position {
    const COLUMNS: usize = 4;
    const DX: f64 = 240.0;
    const DY: f64 = 150.0;
    let taken: Vec<Position> =
        scenario.nodes.iter().enumerate().map(|(i, n)| n.position.unwrap_or(default_position(i))).collect();
    let left = taken.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
    let top = taken.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    let (left, top) = if left.is_finite() { (left, top) } else { (120.0, 160.0) };
    (0..)
        .map(|k| Position { x: left + DX * (k % COLUMNS) as f64, y: top + DY * (k / COLUMNS) as f64 })
        .find(|spot| taken.iter().all(|p| (p.x - spot.x).abs() >= DX * 0.75 || (p.y - spot.y).abs() >= DY * 0.75))
        .unwrap_or(Position { x: left, y: top })
}

/// What the `kind` chart draws for the `charted` nodes (only the chart on
/// show is worked out), the nodes' names, and the transitions of the queues
/// among them for the state strips.
fn chart_lines(
    sim: &Simulation,
    samples: &Sampler,
    charted: &[usize],
    kind: ChartKind,
) -> ChartData {
    let names: Vec<String> = charted.iter().map(|&i| sim.node_id(i).to_string()).collect();
    let several = charted.len() > 1;
    let mut lines = Vec::new();
    let mut strips = Vec::new();
    for (k, &node) in charted.iter().enumerate() {
        let (name, colour) = (&names[k], NODE_COLOURS[k % NODE_COLOURS.len()]);
        let line = |label: String, colour, points| Line { label, colour, points, stroke: Stroke::Solid };
        let taken = samples.of(node);
        match kind {
            ChartKind::Depth => {
                let points = sim.stats(node).depth_series.points(sim.now()).iter().map(|p| (p.t_s, p.last as f64)).collect();
                lines.push(line(name.clone(), colour, points));
            }
            ChartKind::Bytes => lines.push(line(name.clone(), colour, taken.iter().map(|p| (p.t_s, p.depth_bytes as f64)).collect())),
            ChartKind::Throughput => {
                // Each rate spans at least 1/200 of the run: two samples a
                // moment apart (a frame stopped at a lesson's judging time)
                // would make a spike of noise.
                let min_span = sim.now().as_secs_f64() / 200.0;
                let mut rates = Vec::with_capacity(taken.len());
                let mut from = taken.first();
                for sample in taken.iter().skip(1) {
                    let Some(start) = from else { break };
                    let span = sample.t_s - start.t_s;
                    if span >= min_span && span > 0.0 {
                        rates.push((sample.t_s, (sample.departed - start.departed) as f64 / span));
                        from = Some(sample);
                    }
                }
                lines.push(line(name.clone(), colour, rates));
            }
            ChartKind::Latency => {
                let percentiles: &[(&str, PercentileOf)] = if several {
                    &[("p95", |p| p.p95)]
                } else {
                    &[("p50", |p| p.p50), ("p95", |p| p.p95), ("p99", |p| p.p99)]
                };
                for (j, (label, pick)) in percentiles.iter().enumerate() {
                    let points = taken.iter().filter_map(|p| p.latency.as_ref().map(|l| (p.t_s, pick(l)))).collect();
                    lines.push(line(format!("{name} {label}"), if several { colour } else { NODE_COLOURS[j] }, points));
                }
            }
        }
        if let sluice_engine::Node::Queue(q) = &sim.nodes()[node] {
            let spec = q.spec();
            let who = if several { format!("{name} ") } else { String::new() };
            for (limits, label, state) in [(spec.soft_limit, "soft limit", "SoftLimit"), (spec.hard_limit, "hard limit", "HardLimit")] {
                let v = match kind {
                    ChartKind::Depth => limits.messages,
                    ChartKind::Bytes => limits.bytes,
                    _ => 0,
                };
                if v > 0 {
                    lines.push(Line { label: format!("{who}{label} ({v})"), colour: state_colour(state), points: vec![(0.0, v as f64)], stroke: Stroke::Threshold });
                }
            }
            let transitions = sim
                .transitions()
                .entries()
                .filter(|t| t.node == node && matches!(t.to, "Ready" | "Overloaded" | "SoftLimit" | "HardLimit"))
                .map(|t| StateChange { time_s: t.time.as_secs_f64(), from: t.from, to: t.to })
                .collect();
            strips.push((name.clone(), transitions));
        }
    }
    (Rc::new(lines), names, Rc::new(strips))
}

/// A's chart data with variant B's drawn over it: B's lines dashed in the
/// same colours, its thresholds only where they differ from A's, its state
/// strips after A's.
fn with_variant_b(a: ChartData, b: &Simulation, samples: &Sampler, kind: ChartKind) -> ChartData {
    let (lines_a, names, strips_a) = a;
    // The same nodes, by id: B's indices may differ.
    let charted_b: Vec<usize> = names.iter().filter_map(|id| b.scenario().node_index(id)).collect();
    let (lines_b, _, strips_b) = chart_lines(b, samples, &charted_b, kind);
    let mut lines: Vec<Line> = lines_a
        .iter()
        .cloned()
        .map(|mut l| {
            if l.stroke == Stroke::Solid {
                l.label = format!("A: {}", l.label);
            }
            l
        })
        .collect();
    for mut l in lines_b.iter().cloned() {
        match l.stroke {
            Stroke::Threshold if lines_a.iter().any(|t| t.stroke == Stroke::Threshold && t.points == l.points && t.label == l.label) => continue,
            Stroke::Threshold => l.label = format!("B: {}", l.label),
            _ => {
                l.label = format!("B: {}", l.label);
                l.stroke = Stroke::Dashed;
            }
        }
        lines.push(l);
    }
    let mut strips = (*strips_a).clone();
    strips.extend(strips_b.iter().map(|(name, changes)| (format!("{name} (B)"), changes.clone())));
    (Rc::new(lines), names, Rc::new(strips))
}

/// The chart that shows a lesson's figure, where one does.
fn chart_for(figure: &str) -> Option<ChartKind> {
    match figure {
        "throughput_per_s" | "departed" => Some(ChartKind::Throughput),
        "mean_wait_s" | "mean_sojourn_s" => Some(ChartKind::Latency),
        "mean_depth" | "max_depth" | "depth" => Some(ChartKind::Depth),
        _ => None,
    }
}

/// Simulates until the wall clock reaches `deadline_ms`, nothing is left
/// to happen, or the simulation reaches `until`, checking the clock every
/// few thousand events.
fn run_flat_out(sim: &mut Simulation, deadline_ms: f64, until: Option<SimTime>) {
    const EVENTS_PER_CHECK: u32 = 4096;
    while now_ms() < deadline_ms {
        match until {
            Some(until) => {
                // Reached, or stopped by the watchdog (the frame loop shows why).
                if sim.run_until_bounded(until, EVENTS_PER_CHECK.into()) != Ok(false) {
                    return;
                }
            }
            None => {
                for _ in 0..EVENTS_PER_CHECK {
                    if !sim.step() {
                        return;
                    }
                }
            }
        }
    }
}

/// Whether a key press belongs to a text field rather than to the page.
fn typing(e: &KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().to_ascii_lowercase().as_str(), "input" | "select" | "textarea"))
}

#[function_component(App)]
pub fn app() -> Html {
    let opening = use_memo((), |_| {
        let (scenario, origin, problem) = keep::opening_scenario(default_scenario());
        let welcome = match origin {
            keep::Origin::Shared => Some(format!("Opened \"{}\" from the share link.", scenario.name)),
            keep::Origin::Saved => Some("Your last scenario was restored from this browser.".to_string()),
            keep::Origin::BuiltIn => None,
        };
        let first_visit = matches!(origin, keep::Origin::BuiltIn);
        (RefCell::new(Some(scenario)), problem, welcome, first_visit)
    });
    let session = use_mut_ref(|| Session::new(opening.0.borrow_mut().take().unwrap_or_else(default_scenario)));
    let playing = use_state(|| true);
    let speed = use_state(|| 1.0f64);
    // The selected nodes, by index; the last is the one the inspector shows.
    let selected = use_state(|| {
        let s = session.borrow();
        s.editor.scenario().nodes.iter().position(|n| n.block.kind() == "queue").into_iter().collect::<Vec<usize>>()
    });
    let notice = use_state(|| opening.1.clone());
    // A passing message (a link copied, a file imported), unlike `notice`.
    let status = use_state(|| opening.2.clone());
    // The link last made with "Share link", shown until closed.
    let shared = use_state(|| None::<String>);
    // An import's file reader, kept alive until it has read the file.
    let reader = use_mut_ref(|| None::<gloo_file::callbacks::FileReader>);
    let behind = use_state(|| false);
    // The chart on show: only its lines are worked out.
    let chart_kind = use_state(|| ChartKind::Depth);
    let redraw = use_force_update();
    let panels = use_mut_ref(PanelCache::default);
    // What changes between panel refreshes while playing: the clock and the
    // dots of A and B. A frame with no panel due renders their components
    // alone.
    let clock = use_memo((), |_| Live::new(ClockReading::default()));
    let motion_live = use_memo((), |_| Live::new(Rc::<Motion>::default()));
    let b_motion_live = use_memo((), |_| Live::new(Rc::<Motion>::default()));
    // The lesson picker: the first thing a new visitor sees.
    let picking = use_state(|| opening.3);

    {
        let session = session.clone();
        let redraw = redraw.clone();
        let behind = behind.clone();
        let (panels, clock, motion_live, b_motion_live) = (panels.clone(), clock.clone(), motion_live.clone(), b_motion_live.clone());
        let playing_handle = playing.clone();
        use_effect_with((*playing, *speed), move |&(playing, speed)| {
            let frames = playing.then(|| {
                let last = Rc::new(Cell::new(now_ms()));
                let clock_read_at = Cell::new(f64::NEG_INFINITY);
                // One step of simulation and one redraw per painted frame.
                FrameLoop::start(move |_| {
                    let now = now_ms();
                    let real_s = ((now - last.get()) / 1000.0).clamp(0.0, MAX_FRAME_SECONDS);
                    last.set(now);
                    let mut s = session.borrow_mut();
                    // A lesson's step is judged at its time exactly.
                    let judge_at = s.judge_at();
                    let session_now = &mut *s;
                    let Some(sim) = session_now.sim.as_mut() else { return };
                    // With A/B open, A goes on only once B has caught up with
                    // it, and at "as fast as possible" the two share the
                    // frame's time: B is never more than a frame behind.
                    let b_behind = session_now.comparison.as_ref().is_some_and(|b| b.sim.now() < sim.now());
                    let flat_out_ms = if session_now.comparison.is_some() { FLAT_OUT_MS / 2.0 } else { FLAT_OUT_MS };
                    // (At "as fast as possible" there is no pace to keep up with.)
                    let mut kept_up = if b_behind {
                        !speed.is_finite()
                    } else if speed.is_finite() {
                        let target = sim.now() + sluice_engine::SimDuration::from_secs_f64(real_s * speed);
                        // A run the watchdog stopped is not behind: it is stopped.
                        sim.run_until_bounded(judge_at.map_or(target, |j| target.min(j)), EVENTS_PER_FRAME).unwrap_or(true)
                    } else {
                        run_flat_out(sim, now + flat_out_ms, judge_at);
                        true
                    };
                    let a_now = sim.now();
                    if let Some(b) = session_now.comparison.as_mut() {
                        kept_up &= if speed.is_finite() {
                            b.sim.run_until_bounded(a_now, EVENTS_PER_FRAME).unwrap_or(true)
                        } else {
                            run_flat_out(&mut b.sim, now_ms() + flat_out_ms, Some(a_now));
                            true
                        };
                    }
                    s.observe();
                    let judged = s.judge();
                    // The watchdog stopped a run: the page stops with it,
                    // and its panel says why (the scenario stays editable).
                    let stopped = s.stopped();
                    s.paused_by_watchdog |= stopped;
                    let reading = (now - clock_read_at.get() >= CLOCK_MS)
                        .then(|| ClockReading { time_s: a_now.as_secs_f64(), events: sim_events(&s) });
                    let (motion, b_motion) = (s.motion.clone(), s.comparison.as_ref().map(|b| b.motion.clone()));
                    drop(s);
                    if *behind == kept_up {
                        behind.set(!kept_up);
                    }
                    if let Some(reading) = reading {
                        clock_read_at.set(now);
                        clock.set(reading);
                    }
                    motion_live.set(motion);
                    if let Some(b_motion) = b_motion {
                        b_motion_live.set(b_motion);
                    }
                    // The page around them only when a panel is due, or a
                    // verdict came (all the panels with it).
                    let (figures, log, chart) = panels.borrow().due(now_ms());
                    if stopped {
                        playing_handle.set(false);
                    }
                    if judged || figures || log || chart || stopped {
                        redraw.force_update();
                    }
                })
            });
            move || drop(frames)
        });
    }

    // Every edit goes through here: refused edits leave a notice and change
    // nothing; accepted ones move the simulation along.
    // Made once: callbacks built on it stay equal from frame to frame, so
    // the panels they are given are not redrawn for their sake.
    let edit: Edit = (*use_memo((), {
        let session = session.clone();
        let playing = playing.clone();
        let notice = notice.clone();
        let status = status.clone();
        let redraw = redraw.clone();
        move |_| -> Edit {
            Rc::new(move |change: &dyn Fn(&mut Session) -> Result<(), String>| -> Result<(), String> {
                let result = {
                    let mut s = session.borrow_mut();
                    let result = change(&mut s);
                    if result.is_ok() {
                        s.generation += 1;
                        s.follow();
                        keep::autosave(s.editor.scenario());
                        if s.resumes() {
                            playing.set(true);
                        }
                    }
                    result
                };
                match &result {
                    Ok(()) => notice.set(None),
                    Err(why) => notice.set(Some(why.clone())),
                }
                status.set(None);
                redraw.force_update();
                result
            })
        }
    }))
    .clone();

    let on_play = {
        let (playing, session) = (playing.clone(), session.clone());
        Callback::from(move |_| {
            if *playing {
                // Paused, A and B are read at one instant.
                session.borrow_mut().catch_up_b();
            }
            playing.set(!*playing)
        })
    };
    let on_speed = {
        let speed = speed.clone();
        Callback::from(move |s: f64| speed.set(s))
    };
    let on_reset = {
        let (session, playing) = (session.clone(), playing.clone());
        let redraw = redraw.clone();
        Callback::from(move |_| {
            let mut s = session.borrow_mut();
            s.restart();
            if s.resumes() {
                playing.set(true);
            }
            drop(s);
            redraw.force_update();
        })
    };
    let on_step = {
        let session = session.clone();
        let redraw = redraw.clone();
        Callback::from(move |_| {
            let mut s = session.borrow_mut();
            if let Some(sim) = s.sim.as_mut() {
                sim.step();
            }
            s.observe();
            s.judge();
            redraw.force_update();
        })
    };
    let on_seed = {
        let edit = edit.clone();
        Callback::from(move |text: String| {
            let seed = text.trim().parse::<u64>().map_err(|_| format!("The seed must be a whole number from 0 to {}, not \"{}\".", u64::MAX, text.trim()));
            let _ = edit(&|s| s.editor.set_seed(Some(seed.clone()?)));
        })
    };
    let on_export = {
        let session = session.clone();
        Callback::from(move |_: ()| {
            let s = session.borrow();
            let scenario = s.editor.scenario();
            keep::download(&keep::file_name(scenario), &scenario.to_json_pretty());
        })
    };
    let on_import = {
        let edit = edit.clone();
        let notice = notice.clone();
        let status = status.clone();
        let selected = selected.clone();
        let reader = reader.clone();
        Callback::from(move |file: web_sys::File| {
            let name = file.name();
            let (edit, notice, status, selected) = (edit.clone(), notice.clone(), status.clone(), selected.clone());
            let done = move |result: Result<String, String>| {
                // Another scenario altogether: a comparison with the old one
                // would mean nothing.
                let outcome = result.and_then(|text| edit(&|s| s.editor.import(&text).map(|()| s.comparison = None)));
                match outcome {
                    Ok(()) => {
                        selected.set(Vec::new());
                        status.set(Some(format!("Opened {name}. Undo (Ctrl+Z) brings back what was there before.")));
                    }
                    Err(why) => {
                        status.set(None);
                        notice.set(Some(format!("{name} was not imported: {why}. Your work is unchanged.")));
                    }
                }
            };
            *reader.borrow_mut() = keep::read_file(file, done);
        })
    };
    let on_share = {
        let session = session.clone();
        let shared = shared.clone();
        Callback::from(move |_: ()| {
            let link = keep::share_link(session.borrow().editor.scenario());
            keep::copy_to_clipboard(&link);
            shared.set(Some(link));
        })
    };
    let on_select = use_callback(selected.clone(), |change: Select, selected| {
        let mut next = (**selected).clone();
        match change {
            Select::Only(i) => next = vec![i],
            Select::Toggle(i) => match next.iter().position(|&j| j == i) {
                Some(k) => {
                    next.remove(k);
                }
                None => next.push(i),
            },
            Select::Clear => next.clear(),
        }
        selected.set(next);
    });
    let on_close = use_callback(on_select.clone(), |_: (), on_select| on_select.emit(Select::Clear));
    let on_kind = use_callback(chart_kind.clone(), |k: ChartKind, chart_kind| chart_kind.set(k));
    let on_reconfigure: Callback<(String, BlockSpec), Result<(), String>> = {
        let edit = edit.clone();
        use_callback((), move |(id, block): (String, BlockSpec), _| {
            let block = RefCell::new(Some(block));
            edit(&|s| match block.borrow_mut().take() {
                Some(b) => s.editor.set_block(&id, b),
                None => Ok(()),
            })
        })
    };
    // Stable from frame to frame, as the canvas is drawn again only when
    // its props change (`edit` is made once).
    let on_move = {
        let edit = edit.clone();
        use_callback((), move |(indices, dx, dy): (Vec<usize>, f64, f64), _| {
            let _ = edit(&|s| s.editor.move_by(&s.ids_of(&indices), dx, dy));
        })
    };
    let on_connect = {
        let edit = edit.clone();
        use_callback((), move |(from, to): (usize, usize), _| {
            let _ = edit(&|s| match (s.id_of(from), s.id_of(to)) {
                (Some(a), Some(b)) => s.editor.connect(&a, &b),
                _ => Ok(()),
            });
        })
    };
    let add_at = {
        let edit = edit.clone();
        let selected = selected.clone();
        let session = session.clone();
        Rc::new(move |kind: String, at: Option<Position>| {
            let added = RefCell::new(None);
            let result = edit(&|s| {
                let at = at.unwrap_or_else(|| free_spot(s.editor.scenario()));
                let id = s.editor.add_node(&kind, at)?;
                *added.borrow_mut() = Some(id);
                Ok(())
            });
            if result.is_ok() {
                let index = added.take().and_then(|id| session.borrow().index_of(&id));
                selected.set(index.into_iter().collect());
            }
        })
    };
    let on_drop = {
        let add_at = add_at.clone();
        Callback::from(move |(kind, x, y): (String, f64, f64)| {
            let svg = gloo_utils::document().query_selector("svg.graph").ok().flatten();
            let Some(svg) = svg.filter(|svg| over_canvas(svg, x, y)) else { return };
            let at = client_to_canvas(&svg, x, y).map(|(x, y)| Position { x: x.round(), y: y.round() });
            add_at(kind, at);
        })
    };
    let on_add = {
        let add_at = add_at.clone();
        Callback::from(move |kind: String| add_at(kind, None))
    };
    let history = |step: fn(&mut Editor) -> bool| {
        let edit = edit.clone();
        Callback::from(move |_: ()| {
            let _ = edit(&|s| {
                step(&mut s.editor);
                Ok(())
            });
        })
    };
    let (undo, redo) = (history(Editor::undo), history(Editor::redo));
    let delete = {
        let edit = edit.clone();
        let selected = selected.clone();
        Callback::from(move |_: ()| {
            if selected.is_empty() {
                return;
            }
            if edit(&|s| s.editor.remove(&s.ids_of(&selected))).is_ok() {
                selected.set(Vec::new());
            }
        })
    };
    let duplicate = {
        let edit = edit.clone();
        let selected = selected.clone();
        let session = session.clone();
        Callback::from(move |_: ()| {
            if selected.is_empty() {
                return;
            }
            let copies = RefCell::new(Vec::new());
            let result = edit(&|s| {
                *copies.borrow_mut() = s.editor.duplicate(&s.ids_of(&selected))?;
                Ok(())
            });
            if result.is_ok() {
                let s = session.borrow();
                selected.set(copies.take().iter().filter_map(|id| s.index_of(id)).collect());
            }
        })
    };

    // Keyboard shortcuts, on the whole page. Installed again whenever what
    // the handlers read changes (callbacks see the state of their render).
    {
        let (undo, redo, delete, duplicate, on_play) =
            (undo.clone(), redo.clone(), delete.clone(), duplicate.clone(), on_play.clone());
        use_effect_with(((*selected).clone(), *playing), move |_| {
            let options = EventListenerOptions::enable_prevent_default();
            let listener = EventListener::new_with_options(&gloo_utils::document(), "keydown", options, move |event| {
                let Some(e) = event.dyn_ref::<KeyboardEvent>() else { return };
                if typing(e) {
                    return;
                }
                let command = e.ctrl_key() || e.meta_key();
                let key = e.key().to_ascii_lowercase();
                let handled = match key.as_str() {
                    "z" if command && e.shift_key() => {
                        redo.emit(());
                        true
                    }
                    "z" if command => {
                        undo.emit(());
                        true
                    }
                    "y" if command => {
                        redo.emit(());
                        true
                    }
                    "d" if command => {
                        duplicate.emit(());
                        true
                    }
                    "delete" | "backspace" => {
                        delete.emit(());
                        true
                    }
                    // Space plays and pauses, unless a button has the focus
                    // (where Space presses that button).
                    " " if !e.target().and_then(|t| t.dyn_into::<Element>().ok()).is_some_and(|el| {
                        el.tag_name().eq_ignore_ascii_case("button") || el.get_attribute("role").as_deref() == Some("button")
                    }) => {
                        on_play.emit(());
                        true
                    }
                    _ => false,
                };
                if handled {
                    e.prevent_default();
                }
            });
            move || drop(listener)
        });
    }

    let on_pick = {
        let (edit, session, selected, picking, playing) =
            (edit.clone(), session.clone(), selected.clone(), picking.clone(), playing.clone());
        Callback::from(move |index: usize| {
            let lessons = lessons();
            let Some(lesson) = lessons.get(index) else { return };
            let text = lesson.scenario.to_json_pretty();
            if edit(&|s| s.editor.import(&text).map(|()| s.comparison = None)).is_err() {
                return;
            }
            let mut s = session.borrow_mut();
            // A lesson starts from time zero, even if its scenario was open.
            s.restart();
            let steps = lesson.text.steps.len();
            s.lesson = Some(LessonRun { index, watching: None, states: vec![StepState::NotTried; steps], tries: vec![0; steps] });
            // A first step that only watches begins with the lesson; one
            // that changes something waits for its button.
            if lesson.text.steps.first().is_some_and(|step| step.changes.is_empty() && !step.compare) {
                s.watch_step(0);
            }
            selected.set(lesson.text.focus.iter().filter_map(|id| s.index_of(id)).collect());
            picking.set(false);
            playing.set(true);
        })
    };
    let on_try = {
        let (edit, session, playing, notice, chart_kind) =
            (edit.clone(), session.clone(), playing.clone(), notice.clone(), chart_kind.clone());
        Callback::from(move |k: usize| {
            let index = session.borrow().lesson.as_ref().map(|run| run.index);
            let Some(step) = index.and_then(|i| lessons().get(i).and_then(|l| l.text.steps.get(k).cloned())) else { return };
            // The chart shows what the step checks first.
            if let Some(kind) = step.check.first().and_then(|c| chart_for(&c.figure)) {
                chart_kind.set(kind);
            }
            if step.compare {
                // A is the lesson's variant A, in the editor (undoably); B
                // runs beside it; both from time zero on the lesson's seed.
                let Some(lesson) = index.and_then(|i| lessons().get(i).cloned()) else { return };
                let (Ok(a), Ok(b), Some(compare)) = (lesson.variant(0), lesson.variant(1), lesson.text.compare.as_ref()) else { return };
                let labels = (compare.a.label.clone(), compare.b.label.clone());
                if edit(&|s| s.editor.import(&a.to_json_pretty())).is_err() {
                    return;
                }
                let opened = session.borrow_mut().open_comparison(b, labels);
                if let Err(why) = opened {
                    notice.set(Some(why));
                    return;
                }
                session.borrow_mut().watch_step(k);
                playing.set(true);
                return;
            }
            if k == 0 {
                // The first step starts the lesson's run again from time
                // zero (its changes then apply at once, as the engine's
                // test of the lesson makes them), so what it claims does
                // not depend on when it was pressed.
                session.borrow_mut().restart();
            }
            if !step.changes.is_empty() {
                let applied = edit(&|s| {
                    let next = lesson::apply(s.editor.scenario(), &step.changes)?;
                    s.editor.import(&next.to_json_pretty())
                });
                if applied.is_err() {
                    return;
                }
            }
            session.borrow_mut().watch_step(k);
            playing.set(true);
        })
    };
    // A/B on the playground: B is the scenario as it is now, A stays
    // editable; change A and watch how it differs from where it started.
    let on_compare = {
        let (session, redraw, notice, playing) = (session.clone(), redraw.clone(), notice.clone(), playing.clone());
        Callback::from(move |_: ()| {
            let mut s = session.borrow_mut();
            if s.comparison.is_some() {
                s.comparison = None;
            } else if !s.missing.is_empty() {
                notice.set(Some("A/B needs a scenario that runs: it still lacks an edge.".into()));
                return;
            } else {
                let b = s.editor.scenario().clone();
                let labels = ("edited".to_string(), "as it was when A/B opened".to_string());
                if let Err(why) = s.open_comparison(b, labels) {
                    notice.set(Some(why));
                    return;
                }
                playing.set(true);
            }
            drop(s);
            redraw.force_update();
        })
    };
    let on_lesson_close = {
        let (session, redraw) = (session.clone(), redraw.clone());
        Callback::from(move |_: ()| {
            session.borrow_mut().lesson = None;
            redraw.force_update();
        })
    };
    let on_all_lessons = {
        let picking = picking.clone();
        Callback::from(move |_: ()| picking.set(true))
    };
    let on_picker_close = {
        let picking = picking.clone();
        Callback::from(move |_: ()| picking.set(false))
    };

    let s = session.borrow();
    let scenario = s.editor.scenario();
    let time_s = s.sim.as_ref().map_or(0.0, |sim| sim.now().as_secs_f64());
    let selection: Vec<usize> = selected.iter().copied().filter(|&i| i < scenario.nodes.len()).collect();
    let selected_index = selection.last().copied();
    // The dots follow every frame and the clock every third; the panels of
    // figures and the chart at most PANEL_MS apart while playing (numbers
    // that change 60 times a second cannot be read, and laying them out is
    // most of a frame), at once after anything else.
    let panel_key = (selection.clone(), *chart_kind, s.generation);
    let (figures, log, chart) = {
        let p = panels.borrow();
        if !*playing || p.key != panel_key {
            (true, true, true)
        } else {
            p.due(now_ms())
        }
    };
    if figures {
        let snapshot = Rc::new(match &s.sim {
            Some(sim) => Snapshot::of(sim, scenario, &s.theories),
            None => Snapshot::draft(scenario),
        });
        let b_snapshot = s.comparison.as_ref().map(|b| Rc::new(Snapshot::of(&b.sim, b.sim.scenario(), &b.theories)));
        let mut p = panels.borrow_mut();
        p.key = panel_key;
        p.at_ms = now_ms();
        p.snapshot = snapshot;
        p.b_snapshot = b_snapshot;
    }
    if chart {
        let charts = s.sim.as_ref().map(|sim| {
            let mut charted: Vec<usize> = selection.iter().copied().take(NODE_COLOURS.len()).collect();
            if charted.is_empty() {
                charted.push(scenario.nodes.iter().position(|n| n.block.kind() == "queue").unwrap_or(0));
            }
            let mut data = chart_lines(sim, &s.samples, &charted, *chart_kind);
            if let Some(b) = &s.comparison {
                data = with_variant_b(data, &b.sim, &b.samples, *chart_kind);
            }
            data
        });
        let mut p = panels.borrow_mut();
        p.chart_at_ms = now_ms();
        p.charts = charts;
        p.chart_now_s = time_s;
    }
    if log {
        let mut p = panels.borrow_mut();
        p.log_at_ms = now_ms();
        p.log = Rc::new(s.sim.as_ref().map(LogView::of).unwrap_or_default());
        p.drops = Rc::new(s.drops.latest());
    }
    let (panel_snapshot, log_view, drops, charts, chart_now_s, b_snapshot) = {
        let p = panels.borrow();
        (p.snapshot.clone(), p.log.clone(), p.drops.clone(), p.charts.clone(), p.chart_now_s, p.b_snapshot.clone())
    };
    // With A/B open: B's canvas, its labels, and the selection as B's indices.
    let comparison = s.comparison.as_ref().zip(b_snapshot).map(|(b, b_snapshot)| {
        let ids = s.ids_of(&selection);
        let b_selected: Vec<usize> = ids.iter().filter_map(|id| b.sim.scenario().node_index(id)).collect();
        (b.labels.clone(), b_snapshot, b.motion.clone(), b_selected, ids)
    });
    let selected_theory =
        selected_index.and_then(|i| panel_snapshot.nodes.get(i)).and_then(|n| Some((n.id.clone(), n.theory.clone()?)));
    let selected_spec = selected_index.and_then(|i| scenario.nodes.get(i).cloned());
    let selected_outputs: Vec<String> = selected_spec
        .as_ref()
        .map(|n| scenario.edges.iter().filter(|e| e.from == n.id).map(|e| e.to.clone()).collect())
        .unwrap_or_default();
    let scenario_name = scenario.name.clone();
    let missing = s.missing.clone();
    let stalled = s.stall();
    let motion = s.motion.clone();
    // After a step, a reset or an edit as after a frame. While playing,
    // the frame loop keeps them, at its own pace.
    if !*playing {
        clock.set(ClockReading { time_s, events: sim_events(&s) });
        motion_live.set(motion.clone());
        if let Some(b) = &s.comparison {
            b_motion_live.set(b.motion.clone());
        }
    }
    let (can_undo, can_redo) = (s.editor.can_undo(), s.editor.can_redo());
    let seed = scenario.seed.unwrap_or(1);
    let comparing = s.comparison.is_some();
    // A block picked on B's canvas selects the same block of A.
    let on_select_b = {
        let session = session.clone();
        use_callback(on_select.clone(), move |pick: Select, on_select| {
            // Worked out on the click, not every frame: B's block by id in A.
            let to_a = |i: usize| {
                let s = session.borrow();
                let id = s.comparison.as_ref()?.sim.scenario().nodes.get(i)?.id.clone();
                s.index_of(&id)
            };
            let picked = match pick {
                Select::Only(i) => to_a(i).map(Select::Only),
                Select::Toggle(i) => to_a(i).map(Select::Toggle),
                Select::Clear => Some(Select::Clear),
            };
            if let Some(pick) = picked {
                on_select.emit(pick);
            }
        })
    };
    // B's canvas is watched, not edited.
    let noop_move = use_callback((), |_: (Vec<usize>, f64, f64), _| ());
    let noop_connect = use_callback((), |_: (usize, usize), _| ());
    let open_lesson = s.lesson.as_ref().map(|run| (run.index, run.states.clone(), run.tries.clone()));
    drop(s);
    // Made once: the picker and the open lesson's panel share it, and it
    // stays equal from frame to frame.
    let lesson_texts = (*use_memo((), |_| Rc::new(lessons().iter().map(|l| l.text.clone()).collect::<Vec<LessonText>>()))).clone();

    let button = |label: &'static str, test_id: &'static str, title: &'static str, enabled: bool, cb: &Callback<()>| {
        let cb = cb.clone();
        html! {
            <button data-testid={test_id} title={title} disabled={!enabled} onclick={Callback::from(move |_: MouseEvent| cb.emit(()))}>
                { label }
            </button>
        }
    };

    html! {
        <div class="app">
            <header class="topbar">
                <div class="brand">
                    <span class="logo" aria-hidden="true">{"≋"}</span>
                    <span class="title">{"Sluice"}</span>
                    <span class="subtitle">{ scenario_name }</span>
                </div>
                <button class="lessons-button" data-testid="lessons" onclick={{
                    let on_all_lessons = on_all_lessons.clone();
                    Callback::from(move |_: MouseEvent| on_all_lessons.emit(()))
                }}>{"☰ Lessons"}</button>
                <Controls
                    playing={*playing}
                    speed={*speed}
                    clock={clock.clone()}
                    behind={*behind}
                    {seed}
                    {on_play}
                    {on_step}
                    {on_speed}
                    {on_reset}
                    {on_seed}
                />
            </header>
            <main class="workspace">
                <aside class="toolbox">
                    <Palette {on_drop} {on_add} />
                </aside>
                <section class="stage">
                    <div class="toolbar" role="toolbar" aria-label="Edit">
                        { button("↶ Undo", "undo", "Undo (Ctrl+Z)", can_undo, &undo) }
                        { button("↷ Redo", "redo", "Redo (Ctrl+Shift+Z or Ctrl+Y)", can_redo, &redo) }
                        { button("Duplicate", "duplicate", "Duplicate the selected blocks (Ctrl+D)", !selection.is_empty(), &duplicate) }
                        { button("✕ Delete", "delete", "Delete the selected blocks (Delete)", !selection.is_empty(), &delete) }
                        <span class="toolbar-gap"></span>
                        { button("⤓ Export", "export", "Save the scenario as a JSON file", true, &on_export) }
                        <ImportButton on_file={on_import} />
                        { button("↗ Share link", "share", "Make a link that opens this scenario (copied to the clipboard)", true, &on_share) }
                        <button data-testid="ab-toggle" aria-pressed={comparing.to_string()} onclick={{
                            let on_compare = on_compare.clone();
                            Callback::from(move |_: MouseEvent| on_compare.emit(()))
                        }} title="Run a copy of this scenario beside it (B), on the same seed from time zero; edit A and compare">
                            { if comparing { "Close A/B" } else { "⇄ A/B" } }
                        </button>
                    </div>
                    if let Some(link) = (*shared).clone() {
                        <div class="share" role="status" data-testid="share-panel">
                            <label for="share-link">{"Anyone who opens this link gets this scenario (copied to the clipboard):"}</label>
                            <input id="share-link" data-testid="share-link" readonly=true value={link}
                                onfocus={Callback::from(|e: FocusEvent| {
                                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                                    input.select();
                                })} />
                            <button class="icon" aria-label="Close the share link" onclick={{
                                let shared = shared.clone();
                                Callback::from(move |_: MouseEvent| shared.set(None))
                            }}>{"×"}</button>
                        </div>
                    }
                    if let Some(text) = (*status).clone() {
                        <div class="info" role="status" data-testid="status">{ text }</div>
                    }
                    if let Some(why) = (*notice).clone() {
                        <div class="notice" role="alert" data-testid="notice">{ why }</div>
                    }
                    if let Some(why) = stalled {
                        <div class="notice stall" role="alert" data-testid="stall">
                            { why }
                            {" Change the scenario and it runs again from time zero; Reset starts it again as it is."}
                        </div>
                    }
                    if !missing.is_empty() {
                        <div class="missing" role="status" data-testid="missing">
                            <strong>{"Not running yet: "}</strong>
                            { missing.join("; ") }
                        </div>
                    }
                    if let Some(((label_a, label_b), b_snapshot, b_motion, b_selected, compared)) = comparison {
                        <div class="ab-canvases" data-testid="ab-view">
                            <section class="ab-side" data-testid="canvas-a" aria-label={format!("Variant A: {label_a}")}>
                                <h3 class="ab-label"><span class="ab-letter">{"A"}</span>{ label_a.clone() }<span class="muted">{" · edit here"}</span></h3>
                                <ContextProvider<Rc<Live<Rc<Motion>>>> context={motion_live.clone()}>
                                    <Graph snapshot={panel_snapshot.clone()} dropping={motion.dropping.clone()} selected={selection.clone()} on_select={on_select.clone()} {on_move} {on_connect} />
                                </ContextProvider<Rc<Live<Rc<Motion>>>>>
                            </section>
                            <section class="ab-side" data-testid="canvas-b" aria-label={format!("Variant B: {label_b}")}>
                                <h3 class="ab-label"><span class="ab-letter b">{"B"}</span>{ label_b.clone() }<span class="muted">{" · watch only"}</span></h3>
                                <ContextProvider<Rc<Live<Rc<Motion>>>> context={b_motion_live.clone()}>
                                    <Graph snapshot={b_snapshot.clone()} dropping={b_motion.dropping.clone()} selected={b_selected} on_select={on_select_b} on_move={noop_move} on_connect={noop_connect}
                                        readonly=true label={AttrValue::from(format!("Variant B canvas ({label_b}): watch only; select a block to chart it beside A's"))} />
                                </ContextProvider<Rc<Live<Rc<Motion>>>>>
                            </section>
                        </div>
                        <AbTable labels={(label_a, label_b)} a={panel_snapshot.clone()} b={b_snapshot} nodes={compared} on_close={on_compare.clone()} />
                    } else {
                        <ContextProvider<Rc<Live<Rc<Motion>>>> context={motion_live.clone()}>
                            <Graph snapshot={panel_snapshot.clone()} dropping={motion.dropping.clone()} selected={selection.clone()} on_select={on_select.clone()} {on_move} {on_connect} />
                        </ContextProvider<Rc<Live<Rc<Motion>>>>>
                    }
                    if let Some((lines, nodes, strips)) = charts {
                        <Charts kind={*chart_kind} {on_kind} {lines} {nodes} {strips} now_s={chart_now_s} />
                    }
                </section>
                <aside class="sidebar">
                    if let Some((index, states, tries)) = open_lesson {
                        <LessonPanel lessons={lesson_texts.clone()} {index} {states} {tries} now_s={panel_snapshot.time_s} {on_try} on_all={on_all_lessons} on_close={on_lesson_close} />
                    }
                    if let Some((queue, theory)) = selected_theory {
                        <TheoryPanel {queue} {theory} />
                    }
                    <Inspector spec={selected_spec} outputs={selected_outputs} on_reconfigure={on_reconfigure} {on_close} />
                    <Counters snapshot={panel_snapshot.clone()} />
                    <EventLog log={log_view} {drops} selected={selection.clone()} on_select={on_select.clone()} playing={*playing} />
                </aside>
            </main>
            if *picking {
                <LessonPicker lessons={lesson_texts} on_pick={on_pick} on_close={on_picker_close} />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ImportButtonProps {
    on_file: Callback<web_sys::File>,
}

/// "Import…": a button that opens the browser's file chooser.
#[function_component(ImportButton)]
fn import_button(props: &ImportButtonProps) -> Html {
    let input = use_node_ref();
    let open = {
        let input = input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = input.cast::<web_sys::HtmlInputElement>() {
                input.click();
            }
        })
    };
    let chosen = {
        let on_file = props.on_file.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                on_file.emit(file);
            }
            // Choosing the same file again must fire another change.
            input.set_value("");
        })
    };
    html! {
        <>
            <button data-testid="import" title="Open a scenario file (JSON)" onclick={open}>{"⤒ Import…"}</button>
            <input ref={input} type="file" accept=".json,application/json" class="hidden-file" data-testid="import-file"
                aria-label="Scenario file to import" tabindex="-1" onchange={chosen} />
        </>
    }
}
