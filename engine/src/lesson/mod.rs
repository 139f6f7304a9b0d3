//! Lessons: a scenario plus the text that teaches with it, and the checks
//! that say whether what the text promises did happen.
//!
//! A lesson file (`lessons/NN-name.json`, format in `docs/lessons.md`)
//! names a scenario of `scenarios/` and holds the story, what to watch, and
//! two or three "try this" steps. A step may change parameters (node, JSON
//! pointer, value: what a person would do in the inspector) or open the
//! lesson's A/B comparison, and it carries checks on figures the engine
//! keeps, judged a number of simulated seconds after the step.
//!
//! Guarantees:
//! - Every shipped lesson parses, its scenario is valid, and every change
//!   and check names a real node, field and figure (`Lesson::verify`,
//!   called by the tests on the whole catalogue).
//! - Counters in a check (arrivals, drops, disconnects...) count from the
//!   moment the step began, so a check judges what the step did, not what
//!   happened before it.
//! - Judging is read-only: watching a simulation never changes its run.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::measure::Mark;
use crate::plumbing::numbers::plain;
use crate::scenario::{FieldPath, Scenario};
use crate::simulation::Simulation;
use crate::time::SimTime;

mod ask;
mod draft;
mod errors;
mod explain_step;
mod figure;
pub mod lines;
mod read;
mod sweep_step;

pub use ask::Ask;
pub use draft::{LessonDraft, StepDraft};
pub use errors::{FigureError, LessonError, LinkError, StepError};
pub use explain_step::{ExplainStep, Explained, Moment, Named};
pub use figure::Figure;
pub use read::{LessonScenario, MAX_LESSON_BYTES};
use figure::figure_since;

pub use sweep_step::{SweepCheck, SweepStep};

/// The version of the lesson format this build reads.
pub const LESSON_VERSION: u32 = 1;

/// The most steps a lesson may have (the built-in ones have at most
/// eight): a lesson from a link is checked step by step in the page.
pub const MAX_STEPS: usize = 50;

/// The scenario files the lessons use, by file name.
pub const SCENARIOS: &[(&str, &str)] = &[
    ("slow-client.json", include_str!("../../../scenarios/slow-client.json")),
    ("deferred-processor.json", include_str!("../../../scenarios/deferred-processor.json")),
    ("shared-window.json", include_str!("../../../scenarios/shared-window.json")),
    ("window-on-receipt.json", include_str!("../../../scenarios/window-on-receipt.json")),
    ("credits.json", include_str!("../../../scenarios/credits.json")),
    ("fastest-sender.json", include_str!("../../../scenarios/fastest-sender.json")),
    ("rate-limits.json", include_str!("../../../scenarios/rate-limits.json")),
    ("job-throttle.json", include_str!("../../../scenarios/job-throttle.json")),
    ("netsendq.json", include_str!("../../../scenarios/netsendq.json")),
    ("agent-queues.json", include_str!("../../../scenarios/agent-queues.json")),
    ("bandwidth.json", include_str!("../../../scenarios/bandwidth.json")),
    ("lifecycle.json", include_str!("../../../scenarios/lifecycle.json")),
    ("queueing-theory.json", include_str!("../../../scenarios/queueing-theory.json")),
    ("real-limits.json", include_str!("../../../scenarios/real-limits.json")),
    ("in-progress.json", include_str!("../../../scenarios/in-progress.json")),
    ("envoy-refill.json", include_str!("../../../scenarios/envoy-refill.json")),
    ("adaptive-knee.json", include_str!("../../../scenarios/adaptive-knee.json")),
    ("timeouts-waste.json", include_str!("../../../scenarios/timeouts-waste.json")),
    ("retry-storm.json", include_str!("../../../scenarios/retry-storm.json")),
];

/// The lesson files, in order.
const LESSON_FILES: &[(&str, &str)] = &[
    ("01-slow-client.json", include_str!("../../../lessons/01-slow-client.json")),
    ("02-deferred-processor.json", include_str!("../../../lessons/02-deferred-processor.json")),
    ("03-shared-window.json", include_str!("../../../lessons/03-shared-window.json")),
    ("04-window-on-receipt.json", include_str!("../../../lessons/04-window-on-receipt.json")),
    ("05-credits.json", include_str!("../../../lessons/05-credits.json")),
    ("06-fastest-sender.json", include_str!("../../../lessons/06-fastest-sender.json")),
    ("07-rate-limits.json", include_str!("../../../lessons/07-rate-limits.json")),
    ("08-job-throttle.json", include_str!("../../../lessons/08-job-throttle.json")),
    ("09-netsendq.json", include_str!("../../../lessons/09-netsendq.json")),
    ("10-agent-queues.json", include_str!("../../../lessons/10-agent-queues.json")),
    ("11-bandwidth.json", include_str!("../../../lessons/11-bandwidth.json")),
    ("12-lifecycle.json", include_str!("../../../lessons/12-lifecycle.json")),
    ("13-queueing-theory.json", include_str!("../../../lessons/13-queueing-theory.json")),
    ("14-real-limits.json", include_str!("../../../lessons/14-real-limits.json")),
    ("15-in-progress.json", include_str!("../../../lessons/15-in-progress.json")),
    ("16-envoy-refill.json", include_str!("../../../lessons/16-envoy-refill.json")),
    ("17-adaptive-knee.json", include_str!("../../../lessons/17-adaptive-knee.json")),
    ("18-timeouts-waste.json", include_str!("../../../lessons/18-timeouts-waste.json")),
    ("19-retry-storm.json", include_str!("../../../lessons/19-retry-storm.json")),
];

/// A lesson file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonText {
    pub version: u32,
    pub number: u32,
    pub title: String,
    /// The system and design note it comes from.
    pub source: String,
    /// One sentence for the lesson picker.
    pub summary: String,
    /// What the system is and what problem it has.
    pub story: String,
    /// Where to look once it runs.
    pub watch: String,
    /// Its scenario: a file's name, or the scenario itself.
    pub scenario: LessonScenario,
    /// The nodes selected (and charted) when the lesson opens.
    #[serde(default)]
    pub focus: Vec<String>,
    /// The lesson to begin with: the picker shows it first, marked so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub start_here: bool,
    pub steps: Vec<Step>,
    /// Two variants to run side by side, if the lesson compares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Compare>,
    /// Where Sluice models the source differently, and how, each in a
    /// sentence (shown beside the lesson in `docs/lessons.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differs: Vec<String>,
}

/// A part of the page a step can talk about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Panel {
    Chart,
    Theory,
    Canvas,
    /// Where a sweep step's sweep runs (a sweep step's own; a file does
    /// not name it).
    #[serde(skip)]
    Sweep,
    /// Where the learner makes the change a step asks for (a file does
    /// not name it).
    #[serde(skip)]
    Inspector,
}

/// A "try this" step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What to do, in words.
    #[serde(rename = "try")]
    pub try_this: String,
    /// What will happen, in words.
    pub expect: String,
    /// Parameter changes the step makes (applied live, as the inspector
    /// would).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
    /// The change asked of the learner, made in the inspector: the step
    /// is watched once it is made, and `changes` are what "Do it for me"
    /// makes instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<Ask>,
    /// Whether the step opens the lesson's A/B comparison.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compare: bool,
    /// Whether the run starts again from time zero (on the scenario as the
    /// steps before left it), the step's changes made at its start (as the
    /// first step's are): what it claims then does not depend on when it
    /// was pressed, and what the scenario schedules (a slowdown at 30 s)
    /// comes again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_zero: bool,
    /// A sweep of the scenario as it stands, judged by its own checks
    /// once done (instead of `check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepStep>,
    /// The panel the step talks about, brought into view when it is
    /// tried: `"theory"`, `"chart"` or `"canvas"` (by default the chart,
    /// or the Sweep panel for a sweep step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel: Option<Panel>,
    /// What must hold `within_s` simulated seconds after the step began.
    #[serde(default)]
    pub check: Vec<Check>,
    /// The moment the step opens the explanation of at its verdict (the
    /// first of its kind since the step began), and what the chain must
    /// name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<ExplainStep>,
    #[serde(default = "default_within_s")]
    pub within_s: f64,
}

/// The most simulated seconds after which a step may be judged (an hour).
pub const MAX_WITHIN_S: f64 = 3600.0;

/// The simulated seconds after which a step may be judged, in words.
pub fn judged_within() -> String {
    format!("more than 0 and at most {MAX_WITHIN_S} simulated seconds")
}

/// Whether a step may be judged `within_s` simulated seconds after it
/// began (`judged_within`).
pub fn judged_in_time(within_s: f64) -> bool {
    within_s.is_finite() && within_s > 0.0 && within_s <= MAX_WITHIN_S
}

fn default_within_s() -> f64 {
    20.0
}

impl Step {
    /// Whether the step only watches the run go on: it changes nothing,
    /// compares nothing and sweeps nothing. Such a step goes on from the
    /// verdict before it (the first, from the lesson's start), so what it
    /// claims does not depend on when the learner reads it.
    pub fn only_watches(&self) -> bool {
        self.changes.is_empty() && !self.compare && !self.from_zero && self.sweep.is_none()
    }
}

/// One parameter of one node set to a value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub node: String,
    /// The field inside the node's block, such as `soft_limit.messages`.
    pub field: FieldPath,
    pub value: Value,
}

/// The two variants of an A/B comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compare {
    pub a: Variant,
    pub b: Variant,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub label: String,
    /// Changes from the lesson's scenario as it opens.
    #[serde(default)]
    pub changes: Vec<Change>,
}

/// A figure of a node compared with a bound, or variant B's with A's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub node: String,
    /// See `Figure::parse`.
    pub figure: Figure,
    /// In a comparison, which run: `"a"` (the default) or `"b"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Run>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    /// In a comparison: B's figure divided by A's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_over_a_at_least: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_over_a_at_most: Option<f64>,
}

/// Which run of a comparison a check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Run {
    A,
    B,
}

/// A parsed check: the node's index, the figure, the run it reads.
#[derive(Clone, Debug)]
struct Judged {
    check: Check,
    node: usize,
    figure: Figure,
    /// 0 for A (or the only run), 1 for B.
    run: usize,
}

/// How one check came out.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// The check and the figure found, in the lesson's words: "sender
    /// dropped 312 messages (thinned) (expected: at least 1)".
    pub text: String,
    /// The figure judged (B/A for a ratio check), unrounded; none when
    /// there was nothing to read.
    pub figure: Option<f64>,
    pub passed: bool,
}

/// The verdict on a step's checks.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub passed: bool,
    pub results: Vec<CheckResult>,
    /// A step that explains: the moment and its chain, as the Why panel
    /// shows it.
    pub explained: Option<Box<Explained>>,
}

impl Verdict {
    /// A verdict on `results`: passed if every one did.
    pub fn of(results: Vec<CheckResult>) -> Verdict {
        Verdict { passed: results.iter().all(|r| r.passed), results, explained: None }
    }

    /// Failed, for the reason given.
    pub fn failed(why: String) -> Verdict {
        Verdict::of(vec![CheckResult { text: why, figure: None, passed: false }])
    }
}

/// A figure a comparing step holds B to A on, as it stands in both runs
/// since the step began (none where it has no value).
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    /// The figure and its node, as a table row names them.
    pub label: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

/// A step being watched: the readings when it began and when to judge.
#[derive(Clone, Debug)]
pub struct Watch {
    checks: Vec<Judged>,
    /// What the step explains, and the count of its moments when it began.
    explain: Option<(ExplainStep, u64)>,
    /// Per run, per node: the reading when the step began.
    start: Vec<Vec<Mark>>,
    pub started: SimTime,
    pub judge_at: SimTime,
}

impl Watch {
    /// Starts watching `step` on `runs` (one simulation, or A and B of a
    /// comparison, at the same time).
    pub fn start(step: &Step, runs: &[&Simulation]) -> Result<Watch, StepError> {
        let first = runs.first().ok_or(StepError::NothingToWatch)?;
        let checks = step
            .check
            .iter()
            .map(|c| judged(c, first.scenario(), runs.len()))
            .collect::<Result<Vec<_>, _>>()?;
        let start = runs.iter().map(|sim| (0..sim.nodes().len()).map(|i| Mark::of(sim, i)).collect()).collect();
        let started = first.now();
        let judge_at = started + crate::time::SimDuration::from_secs_f64(step.within_s.max(0.0));
        let explain = step.explain.clone().map(|e| {
            let mark = e.mark(first);
            (e, mark)
        });
        Ok(Watch { checks, explain, start, started, judge_at })
    }

    /// Whether the runs have reached the time to judge.
    pub fn due(&self, runs: &[&Simulation]) -> bool {
        runs.first().is_some_and(|sim| sim.now() >= self.judge_at)
    }

    /// Judges every check on the runs as they are now, and explains what
    /// the step explains in `kept` (run A as kept, seen at its instant).
    pub fn verdict(&self, runs: &[&Simulation], kept: Option<&crate::timeline::Run>) -> Verdict {
        let mut results: Vec<CheckResult> = self.checks.iter().map(|j| self.judge(j, runs)).collect();
        let mut explained = None;
        if let Some((explain, mark)) = &self.explain {
            let (result, chain) = match kept {
                Some(run) => explain.judge(run, *mark),
                None => (CheckResult { text: format!("Why at {}: the run is not kept", explain.node), figure: None, passed: false }, None),
            };
            results.push(result);
            explained = chain.map(Box::new);
        }
        Verdict { explained, ..Verdict::of(results) }
    }

    /// The figures the step holds B to A on (its checks with a bound on
    /// B/A), as they stand on A and B now.
    pub fn compared(&self, runs: &[&Simulation]) -> Vec<Compared> {
        self.checks
            .iter()
            .filter(|j| j.check.b_over_a_at_least.is_some() || j.check.b_over_a_at_most.is_some())
            .map(|j| Compared {
                label: j.figure.label(&j.check.node),
                a: self.value(j, 0, runs).ok().flatten(),
                b: self.value(j, 1, runs).ok().flatten(),
            })
            .collect()
    }

    /// The figure on one run: `Err` when that run is missing, `Ok(None)`
    /// when the figure has no value.
    fn value(&self, j: &Judged, run: usize, runs: &[&Simulation]) -> Result<Option<f64>, ()> {
        // (A run of another shape than the one watched has not the node.)
        let sim = runs.get(run).filter(|sim| j.node < sim.nodes().len()).ok_or(())?;
        let before = self.start.get(run).and_then(|r| r.get(j.node)).ok_or(())?;
        Ok(figure_since(sim, j.node, j.figure, before))
    }

    fn judge(&self, j: &Judged, runs: &[&Simulation]) -> CheckResult {
        let c = &j.check;
        let who = if runs.len() > 1 { if j.run == 1 { "B: " } else { "A: " } } else { "" };
        let Ok(value) = self.value(j, j.run, runs) else {
            return CheckResult { text: format!("{who}{}: not running", c.node), figure: None, passed: false };
        };
        let mut bounds = Vec::new();
        // No value meets no bound: a mean over nothing is not 0.
        let mut passed = within(value.unwrap_or(f64::NAN), c.at_least, c.at_most, |v| j.figure.amount(v), &mut bounds) && value.is_some();
        let mut text = format!("{who}{}", j.figure.in_words(&c.node, value));
        let mut figure = value;
        if c.b_over_a_at_least.is_some() || c.b_over_a_at_most.is_some() {
            let a = self.value(j, 0, runs).ok().flatten();
            let b = self.value(j, 1, runs).ok().flatten();
            // B/A over an A of 0 (or no value) says nothing: it fails.
            let ratio = match (a, b) {
                (Some(a), Some(b)) if a != 0.0 => Some(b / a),
                _ => None,
            };
            // The figure's own bounds, if any, still hold; the ratio's too.
            let direct = c.at_least.is_none() && c.at_most.is_none() || passed;
            let ratio_holds = within(ratio.unwrap_or(f64::NAN), c.b_over_a_at_least, c.b_over_a_at_most, |v| format!("B/A {}", plain(v)), &mut bounds);
            passed = direct && ratio_holds && ratio.is_some();
            figure = ratio;
            text = format!("A: {}; B: {}; B/A = {}", j.figure.in_words(&c.node, a), j.figure.in_words(&c.node, b), ratio.map_or_else(|| "no value".into(), plain));
            if ratio.is_none() {
                text.push_str(" (A gives nothing to compare with)");
            }
        }
        let expected = match (j.figure.is_yes_no(), c.at_least, c.at_most) {
            (true, Some(min), _) if min >= 1.0 && bounds.len() == 1 => "yes".to_string(),
            (true, _, Some(max)) if max <= 0.0 && bounds.len() == 1 => "no".to_string(),
            _ => bounds.join(", "),
        };
        CheckResult { text: format!("{text} (expected: {expected})"), figure, passed }
    }
}

/// Whether `value` lies within the bounds given, each bound written into
/// `bounds` as `amount` writes it ("at least 3", "at most 20 %", "B/A at
/// most 0.5").
pub(crate) fn within(value: f64, min: Option<f64>, max: Option<f64>, amount: impl Fn(f64) -> String, bounds: &mut Vec<String>) -> bool {
    let mut passed = true;
    if let Some(min) = min {
        passed &= value >= min;
        bounds.push(format!("at least {}", amount(min)));
    }
    if let Some(max) = max {
        passed &= value <= max;
        bounds.push(format!("at most {}", amount(max)));
    }
    passed
}

fn judged(check: &Check, scenario: &Scenario, runs: usize) -> Result<Judged, StepError> {
    let node = scenario.node_index(&check.node).ok_or_else(|| StepError::NoCheckedNode(check.node.clone()))?;
    let figure = check.figure;
    let run = match check.variant {
        None | Some(Run::A) => 0,
        Some(Run::B) => 1,
    };
    let ratio = check.b_over_a_at_least.is_some() || check.b_over_a_at_most.is_some();
    if (run == 1 || ratio) && runs < 2 {
        return Err(StepError::NotComparing(check.node.clone()));
    }
    let bounded = check.at_least.is_some() || check.at_most.is_some() || ratio;
    if !bounded {
        return Err(StepError::Unbounded { node: check.node.clone(), figure: check.figure.to_string() });
    }
    // A check no run could pass.
    for (least, most, of) in [(check.at_least, check.at_most, ""), (check.b_over_a_at_least, check.b_over_a_at_most, "B/A ")] {
        if let (Some(least), Some(most)) = (least, most) {
            if least > most {
                return Err(StepError::Crossed { node: check.node.clone(), figure: format!("{of}{}", check.figure), least, most });
            }
        }
    }
    Ok(Judged { check: check.clone(), node, figure, run })
}

/// A lesson: its text and its scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    pub text: LessonText,
    pub scenario: Scenario,
}

impl Lesson {
    /// The scenario of variant `which` (0: A, 1: B) of its comparison.
    pub fn variant(&self, which: usize) -> Result<Scenario, LessonError> {
        let compare = self.text.compare.as_ref().ok_or(LessonError::NoComparison)?;
        let variant = if which == 0 { &compare.a } else { &compare.b };
        apply(&self.scenario, &variant.changes).map_err(LessonError::Changes)
    }

    /// Checks that every step and variant can be carried out and judged.
    pub fn verify(&self) -> Result<(), LessonError> {
        let t = &self.text;
        if t.steps.is_empty() {
            return Err(LessonError::NoSteps);
        }
        if t.steps.len() > MAX_STEPS {
            return Err(LessonError::TooManySteps { steps: t.steps.len() });
        }
        let mut scenario = self.scenario.clone();
        for id in &t.focus {
            scenario.node_index(id).ok_or_else(|| LessonError::NoFocusNode(id.clone()))?;
        }
        for (k, step) in t.steps.iter().enumerate() {
            let at = |why: StepError| LessonError::Step { step: k + 1, why };
            if step.compare && t.compare.is_none() {
                return Err(at(StepError::NoComparison));
            }
            if !judged_in_time(step.within_s) {
                return Err(at(StepError::Within(step.within_s)));
            }
            if step.from_zero && (step.compare || step.sweep.is_some()) {
                return Err(at(StepError::FromZeroAndMore));
            }
            if let Some(ask) = &step.ask {
                if step.compare || step.sweep.is_some() || step.from_zero {
                    return Err(at(StepError::AskAndMore));
                }
                // The first step starts from time zero when pressed; a
                // change the learner makes later could not.
                if k == 0 {
                    return Err(at(StepError::AskFirst));
                }
                ask.verify(&scenario, &step.changes).map_err(at)?;
            }
            if !step.changes.is_empty() {
                scenario = apply(&scenario, &step.changes).map_err(at)?;
            }
            if let Some(explain) = &step.explain {
                // The chain is run A's as the page keeps it: one run.
                if step.compare || step.sweep.is_some() {
                    return Err(at(StepError::ExplainAndMore));
                }
                explain.verify(&scenario).map_err(at)?;
            }
            if let Some(sweep) = &step.sweep {
                if step.compare || !step.check.is_empty() || !step.changes.is_empty() {
                    return Err(at(StepError::SweepAndMore));
                }
                sweep.verify(&scenario).map_err(at)?;
                continue;
            }
            let runs = if step.compare { 2 } else { 1 };
            for check in &step.check {
                let judged = judged(check, &scenario, runs).map_err(at)?;
                // "At least 1" of a counter shows that something happened
                // once, not that the lesson's mechanism is at work.
                if judged.figure.is_counter() && check.at_least.is_some_and(|bound| bound <= 1.0) {
                    return Err(at(StepError::AtLeastOne { node: check.node.clone(), figure: check.figure.to_string() }));
                }
            }
            // A run that stalls reads zeros and passes every upper bound:
            // each step must also bound something from below.
            let from_below = step.check.iter().any(|c| {
                c.at_least.is_some_and(|bound| bound > 0.0) || c.b_over_a_at_least.is_some_and(|bound| bound > 0.0)
            });
            if !from_below {
                return Err(at(StepError::NothingFromBelow));
            }
        }
        if t.compare.is_some() {
            self.variant(0).map_err(|why| LessonError::Variant { run: Run::A, why: Box::new(why) })?;
            self.variant(1).map_err(|why| LessonError::Variant { run: Run::B, why: Box::new(why) })?;
        }
        Ok(())
    }
}

/// `scenario` with `changes` made; an error names the change at fault.
pub fn apply(scenario: &Scenario, changes: &[Change]) -> Result<Scenario, StepError> {
    let mut next = scenario.clone();
    for change in changes {
        let i = next.node_index(&change.node).ok_or_else(|| StepError::NoNode(change.node.clone()))?;
        let block = next.nodes[i].block.with_value(&change.field, change.value.clone()).map_err(|why| StepError::Change { node: change.node.clone(), why })?;
        next.nodes[i].block = block;
    }
    next.validate().map_err(StepError::Unsound)?;
    Ok(next)
}

/// Every lesson, in order. The catalogue is part of the build and tested
/// whole, so a file that does not read is a bug, not an input.
pub fn catalogue() -> Vec<Lesson> {
    LESSON_FILES
        .iter()
        .map(|(name, text)| Lesson::from_json(text).unwrap_or_else(|why| panic!("lessons/{name}: {why}")))
        .collect()
}

/// Where a link to lesson `number`, at `step` (counted from 1) if it
/// names one, leads in `lessons`: the lesson's place and the step's
/// (counted from 0).
pub fn linked(lessons: &[Lesson], number: u32, step: Option<u32>) -> Result<(usize, Option<usize>), LinkError> {
    let last = lessons.iter().map(|l| l.text.number).max().unwrap_or(0);
    let index = lessons.iter().position(|l| l.text.number == number).ok_or(LinkError::NoLesson { number, last })?;
    let steps = lessons[index].text.steps.len();
    let k = match step {
        None => None,
        Some(k) if (1..=steps).contains(&(k as usize)) => Some(k as usize - 1),
        Some(k) => return Err(LinkError::NoStep { number, step: k, steps }),
    };
    Ok((index, k))
}

/// The names of the lesson files, in order (for documentation and tests).
pub fn file_names() -> impl Iterator<Item = &'static str> {
    LESSON_FILES.iter().map(|(name, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::DropReason;
    use crate::state::State;

    #[test]
    fn a_link_leads_to_its_lesson_and_step_or_says_why_not() {
        let lessons = catalogue();
        let third = lessons.iter().position(|l| l.text.number == 3).unwrap();
        assert_eq!(linked(&lessons, 3, None), Ok((third, None)));
        assert_eq!(linked(&lessons, 3, Some(2)), Ok((third, Some(1))));
        let steps = lessons[third].text.steps.len();
        assert_eq!(linked(&lessons, 3, Some(steps as u32)), Ok((third, Some(steps - 1))));
        let e = linked(&lessons, 3, Some(steps as u32 + 1)).unwrap_err();
        assert_eq!(e.to_string(), format!("lesson 3 has {steps} step(s); there is no step {}", steps + 1));
        let last = lessons.iter().map(|l| l.text.number).max().unwrap();
        assert_eq!(linked(&lessons, last + 1, None).unwrap_err().to_string(),
                   format!("there is no lesson {}; lessons are numbered 1 to {last}", last + 1));
        assert!(linked(&lessons, 0, Some(1)).is_err());
    }

    #[test]
    fn verdicts_speak_the_lessons_words_with_their_figures() {
        assert_eq!(Figure::Entered(State::SoftLimit).in_words("sender", Some(439.0)), "sender entered SoftLimit 439 times");
        assert_eq!(Figure::Disconnects.in_words("sender", Some(1.0)), "sender disconnected its client once");
        assert_eq!(Figure::Dropped(Some(DropReason::Thinned)).in_words("sender", Some(312.0)), "sender dropped 312 messages (thinned)");
        assert_eq!(Figure::MeanWait.in_words("line", Some(0.4123)), "a message waited 0.412 s on average in line");
        assert_eq!(Figure::DropFraction.in_words("line", Some(0.25)), "line dropped 25 % of what reached it");
        assert_eq!(Figure::Paused.in_words("requests", Some(1.0)), "requests is paused");
        assert_eq!(Figure::Throughput.amount(12.5), "12.5 a second");
    }

    #[test]
    fn figures_parse_and_name_what_is_wrong() {
        assert_eq!(Figure::parse("dropped.thinned"), Ok(Figure::Dropped(Some(DropReason::Thinned))));
        assert_eq!(Figure::parse("entered.HardLimit"), Ok(Figure::Entered(State::HardLimit)));
        assert_eq!(Figure::parse("in.ShutDown"), Ok(Figure::In(State::ShutDown)));
        assert!(Figure::parse("in.Asleep").unwrap_err().to_string().starts_with("no state \"Asleep\" (states: "));
        assert!(matches!(Figure::parse("dropped.lost").unwrap_err(), FigureError::NoDropReason { known, .. } if known.contains("thinned")));
        assert_eq!(Figure::parse("speed").unwrap_err(), FigureError::NoFigure("speed".into()));
        assert!(Figure::parse("speed").unwrap_err().to_string().starts_with("no figure \"speed\" (figures: arrived, "));
    }

    /// A producer into a consumer that takes `service_s` to serve.
    fn served_in(service_s: f64) -> Simulation {
        let scenario = Scenario::from_value(serde_json::json!({"version": 1, "nodes": [
            {"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 10}},
            {"id": "c", "kind": "consumer", "workers": 1000, "service_time": {"dist": "fixed", "value": service_s}}],
            "edges": [{"from": "p", "to": "c"}]}))
        .unwrap();
        Simulation::new(scenario, 1).unwrap()
    }

    fn step(checks: serde_json::Value, compare: bool) -> Step {
        serde_json::from_value(serde_json::json!({"try": "t", "expect": "e", "compare": compare, "within_s": 10, "check": checks}))
            .unwrap()
    }

    #[test]
    fn a_mean_over_nothing_is_no_value_and_meets_no_bound() {
        // Nothing finishes within the step: no mean sojourn, no throughput
        // worth the name; "at most" must not pass on that silence.
        let mut sim = served_in(1000.0);
        let step = step(serde_json::json!([{"node": "c", "figure": "mean_sojourn_s", "at_most": 1.0}]), false);
        let watch = Watch::start(&step, &[&sim]).unwrap();
        sim.run_until(watch.judge_at).unwrap();
        let verdict = watch.verdict(&[&sim], None);
        assert!(!verdict.passed);
        assert_eq!(verdict.results[0].text, "c: no figure yet (nothing departed) (expected: at most 1 s)");
        // When something departs, the same check reads its mean.
        let mut sim = served_in(0.5);
        let watch = Watch::start(&step, &[&sim]).unwrap();
        sim.run_until(watch.judge_at).unwrap();
        assert!(watch.verdict(&[&sim], None).passed);
    }

    #[test]
    fn a_ratio_over_nothing_fails() {
        // A delivers nothing: B/A is no comparison, whatever B does.
        let (mut a, mut b) = (served_in(1000.0), served_in(0.1));
        let step = step(serde_json::json!([{"node": "c", "figure": "departed", "b_over_a_at_least": 2.0}]), true);
        let watch = Watch::start(&step, &[&a, &b]).unwrap();
        a.run_until(watch.judge_at).unwrap();
        b.run_until(watch.judge_at).unwrap();
        let verdict = watch.verdict(&[&a, &b], None);
        assert!(!verdict.passed, "{verdict:?}");
        assert!(verdict.results[0].text.contains("B/A = no value (A gives nothing to compare with)"), "{verdict:?}");
    }

    #[test]
    fn a_check_no_run_could_pass_is_refused() {
        let (a, b) = (served_in(0.1), served_in(0.1));
        let refused = |checks: serde_json::Value| Watch::start(&step(checks, true), &[&a, &b]).err().map(|why| why.to_string());
        assert_eq!(
            refused(serde_json::json!([{"node": "c", "figure": "departed", "at_least": 10.0, "at_most": 5.0}])).as_deref(),
            Some("check on c departed can never pass: at least 10 and at most 5")
        );
        assert_eq!(
            refused(serde_json::json!([{"node": "c", "figure": "departed", "b_over_a_at_least": 2.0, "b_over_a_at_most": 0.5}])).as_deref(),
            Some("check on c B/A departed can never pass: at least 2 and at most 0.5")
        );
        // Bounds that meet leave one value, which a run can have.
        assert_eq!(refused(serde_json::json!([{"node": "c", "figure": "departed", "at_least": 5.0, "at_most": 5.0}])), None);
    }

}
