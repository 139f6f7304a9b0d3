//! Why a sweep is refused or stops: one type per question, each saying so
//! in the words `sluice sweep` and the Sweep panel print (pinned by the
//! tests of the command line and of sweeps).

use crate::scenario::{FieldPathError, Kind, NumberError, ScenarioError, SetError};

use super::{MAX_POINTS, MAX_REPS};

/// What is wrong with a list or a range of values.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValuesError {
    #[error("\"{0}\" is not a number")]
    NotANumber(String),
    #[error("{0} is not a number a field can take")]
    NotFinite(f64),
    #[error("the step must be above 0, not {0}")]
    Step(f64),
    #[error("the range {from} to {to} is empty")]
    EmptyRange { from: f64, to: f64 },
    #[error("more values than the {MAX_POINTS} a sweep may have")]
    TooMany,
    #[error("\"{0}\": a range is FROM:TO:STEP")]
    NotARange(String),
    #[error("no values")]
    None,
}

/// What is wrong with a varied field, named as written (`srv.workers`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VaryError {
    #[error("{name}: {why}")]
    Values { name: String, why: ValuesError },
    #[error("{0}: expected NODE.FIELD, a node's id and a field inside it, such as srv.workers")]
    NotNodeField(String),
    #[error("{name}: no node of the scenario begins this name (nodes: {nodes})")]
    NoNode { name: String, nodes: String },
    #[error("{0}: no field named after the node")]
    NoField(String),
    #[error("{name}: {why}")]
    Path { name: String, why: FieldPathError },
    #[error("{name}: {kind} \"{id}\" has no number field there")]
    NotANumber { name: String, kind: Kind, id: String },
    /// The field does not take the value.
    #[error("{name}: {why}")]
    Number { name: String, why: NumberError },
}

/// Why a point of the grid is not a scenario that runs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PointError {
    #[error(transparent)]
    Set(SetError),
    #[error(transparent)]
    Invalid(ScenarioError),
}

/// Why a sweep cannot be planned, or stopped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SweepError {
    /// A `--vary` that is not `NODE.FIELD=VALUES`.
    #[error("--vary {0}: expected NODE.FIELD=FROM:TO:STEP or NODE.FIELD=V1,V2,...")]
    VaryForm(String),
    /// A `--vary` whose field or values are wrong.
    #[error("--vary {0}")]
    Vary(VaryError),
    /// A field of a request (the page's) whose field or values are wrong.
    #[error(transparent)]
    Field(VaryError),
    #[error("nothing to vary: give at least one --vary")]
    NothingVaried,
    #[error("{0} is varied twice: the later values would replace the earlier at every point")]
    VariedTwice(String),
    #[error("--reps must be from 1 to {MAX_REPS}, not {0}")]
    Reps(usize),
    #[error("--until must be above 0 and at most 1e9 seconds, not {0}")]
    Until(f64),
    #[error("--warmup must be from 0 to less than --until ({until_s} s), not {warmup_s}")]
    Warmup { until_s: f64, warmup_s: f64 },
    #[error("the grid has more than the {MAX_POINTS} points a sweep may have")]
    GridTooLarge,
    /// A point of the grid (its values, as `describe` writes them) is not
    /// a scenario that runs.
    #[error("at {at}: {why}")]
    Point { at: String, why: PointError },
    /// A replication stopped: the run could not start, or the watchdog
    /// stopped it.
    #[error("at {at}, replication {rep}: {why}")]
    Run { at: String, rep: usize, why: String },
    #[error("--metric {wanted}: no such metric; this sweep measures {measured}")]
    Metric { wanted: String, measured: String },
    /// A runner's failure, as it reported it (across a worker's messages).
    #[error("{0}")]
    Failed(String),
}

/// Why `spread` makes no range of a form's values.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpreadError {
    #[error("from and to must be numbers")]
    NotNumbers,
    #[error("the range {from} to {to} is empty: \"to\" must be at least \"from\"")]
    EmptyRange { from: f64, to: f64 },
    #[error("the number of points must be from 1 to {MAX_POINTS}, not {0}")]
    Points(usize),
    #[error("no whole number lies from {from} to {to}")]
    NoWholeNumber { from: f64, to: f64 },
}

/// Why shards do not merge into one sweep.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// Part `k` (from 1) has no `shard` field.
    #[error("part {0}: not a shard (no \"shard\" field)")]
    NotAShard(usize),
    #[error("part {part}: shard \"{place}\" is not I/N with I below N")]
    BadPlace { part: usize, place: String },
    #[error("no shards to merge")]
    NoShards,
    #[error("shard {i}/{n} is of another sweep than the others: {why}")]
    OtherSweep { i: usize, n: usize, why: &'static str },
    #[error("shard {i}/{n} has {has} points; its part of the {total}-point grid is {expected}")]
    PointCount { i: usize, n: usize, has: usize, total: usize, expected: usize },
    #[error("shard {k}/{n} is missing or given twice")]
    MissingOrTwice { k: usize, n: usize },
    #[error("{given} of {n} shards given")]
    Given { given: usize, n: usize },
    #[error("shard {k}/{n} has too few points")]
    TooFewPoints { k: usize, n: usize },
}
