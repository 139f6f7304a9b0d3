//! Why a lesson file does not read or hold together, why a step's change
//! or watch cannot be made, and why a figure's name is not one: each says
//! so in the words the lesson tests and the page print.

use crate::scenario::{ScenarioError, SetError};
use crate::sweep::{SpreadError, SweepError};

use super::{Run, LESSON_VERSION};

/// Why a figure's name is not one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FigureError {
    #[error("no drop reason \"{reason}\" (reasons: {known})")]
    NoDropReason { reason: String, known: String },
    #[error("no state \"{state}\" (states: {known})")]
    NoState { state: String, known: String },
    #[error(
        "no figure \"{0}\" (figures: arrived, departed, dropped, dropped.REASON, drop_fraction, disconnects, retransmitted, \
         throughput_per_s, depth, max_depth, mean_depth, mean_wait_s, mean_sojourn_s, in_flight, \
         credits, limit, paused, answered, goodput_per_s, timed_out, wasted_share, entered.STATE, in.STATE)"
    )]
    NoFigure(String),
}

/// Why a link's lesson or step is not one of the catalogue's.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LinkError {
    #[error("there is no lesson {number}; lessons are numbered 1 to {last}")]
    NoLesson { number: u32, last: u32 },
    #[error("lesson {number} has {steps} step(s); there is no step {step}")]
    NoStep { number: u32, step: u32, steps: usize },
}

/// Why a change, a check or a sweep of a step cannot be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StepError {
    /// A change names no node.
    #[error("no node \"{0}\"")]
    NoNode(String),
    /// A change's value does not go into its field.
    #[error("{node}.{why}")]
    Change { node: String, why: SetError },
    /// The changes leave a scenario that does not hold together.
    #[error(transparent)]
    Unsound(ScenarioError),
    #[error("nothing to watch")]
    NothingToWatch,
    #[error("The scenario is not running: it lacks an edge.")]
    NotRunning,
    #[error("The A/B comparison is not open.")]
    ComparisonClosed,
    #[error("check: no node \"{0}\"")]
    NoCheckedNode(String),
    #[error("check on {0} reads variant B, but the step does not compare")]
    NotComparing(String),
    #[error("check on {node} {figure} has no bound")]
    Unbounded { node: String, figure: String },
    #[error("check on {node} {figure} can never pass: at least {least} and at most {most}")]
    Crossed { node: String, figure: String, least: f64, most: f64 },
    #[error("check on {node} {figure}: a count at least 1 proves little; bound it by what the lesson expects")]
    AtLeastOne { node: String, figure: String },
    #[error("no check bounds a figure from below, so a run where nothing moves would pass it")]
    NothingFromBelow,
    #[error("it compares, but the lesson has no comparison")]
    NoComparison,
    #[error("within_s must be {range}, not {0}", range = crate::lesson::judged_within())]
    Within(f64),
    #[error("a sweep step neither compares, changes nor checks the run: it only sweeps")]
    SweepAndMore,
    /// The sweep's range makes no values.
    #[error("sweep of {vary}: {why}")]
    Spread { vary: String, why: SpreadError },
    #[error(transparent)]
    Sweep(SweepError),
    #[error("the sweep simulates {0} s in all, more than the {1} s a lesson may ask")]
    SweepTooLong(f64, f64),
    #[error("the sweep has no metric \"{name}\" (it measures {measured})")]
    NoMetric { name: String, measured: String },
    #[error("sweep check on {0}: give \"point\" (first or last) with bounds, or covers_theory_at_least alone")]
    SweepCheckForm(String),
    #[error("ask of {node}.{field}: {why}")]
    Ask { node: String, field: String, why: String },
    #[error("a step that asks the learner for a change neither compares, sweeps nor starts again from time zero")]
    AskAndMore,
    #[error("a step that starts again from time zero neither compares nor sweeps (both start from zero already)")]
    FromZeroAndMore,
    #[error("the first step cannot ask the learner for its change: it starts the run from time zero when pressed")]
    AskFirst,
    #[error("explain: {0}")]
    Explain(String),
    #[error("a step that explains neither compares nor sweeps: its chain is of the one run")]
    ExplainAndMore,
    #[error("no sweep check bounds a figure from below, so a sweep where nothing moves would pass it")]
    NoSweepCheckFromBelow,
}

/// Why a lesson does not read, or does not hold together.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LessonError {
    /// The file is not a lesson (serde's words, with the line).
    #[error("{0}")]
    Unreadable(String),
    #[error("lesson format version {0} is not {LESSON_VERSION}")]
    Version(u32),
    #[error("no scenario file \"{0}\"")]
    NoScenarioFile(String),
    #[error("{file}: {why}")]
    Scenario { file: String, why: ScenarioError },
    #[error("a lesson needs at least one step")]
    NoSteps,
    #[error("a lesson may have at most {most} steps, not {steps}", most = super::MAX_STEPS)]
    TooManySteps { steps: usize },
    #[error("focus: no node \"{0}\"")]
    NoFocusNode(String),
    /// Step `step` (from 1).
    #[error("step {step}: {why}")]
    Step { step: usize, why: StepError },
    #[error("this lesson has no comparison")]
    NoComparison,
    /// A variant's changes (or the step's) cannot be made.
    #[error(transparent)]
    Changes(StepError),
    #[error("variant {}: {why}", if *.run == Run::A { "A" } else { "B" })]
    Variant { run: Run, why: Box<LessonError> },
    /// Step `0` (from 1) has no sweep out to judge or abandon.
    #[error("step {0} has no sweep out")]
    NoSweepOut(usize),
}
