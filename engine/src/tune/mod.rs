//! Tuning: the smallest (or largest) value of one varied field whose
//! every requirement (`srv.p99_wait_s<=0.2`, `line.drop_probability<=0.01`)
//! holds with 95% confidence, found by bisection with sequential
//! replications; over two fields, the Pareto frontier (`frontier.rs`). The
//! command line (`sluice tune`) runs it, a batch of replications at a
//! time, in parallel; the page's worker, one replication a step.
//!
//! Guarantees:
//! - A requirement is met at a point when its 95% interval lies wholly on
//!   the right side of the bound (`mean + h <= bound` for `<=`), missed
//!   when it lies wholly on the wrong side, unsure otherwise. A point is
//!   feasible when every requirement is met; infeasible when one is missed,
//!   when a metric has no value (nothing departed), or when the
//!   replications run out unsure: a setting is never recommended on a
//!   mean alone.
//! - Replications are spent where the decision is close: a point gets
//!   `FIRST_REPS`, then twice as many at a time up to `max_reps`, and
//!   stops as soon as it is decided. Replication `r` runs on the same seed
//!   at every point (common random numbers, as a sweep's).
//! - The search assumes feasibility moves one way along the field (more
//!   workers, less waiting; a higher rate, more waiting): it tries the end
//!   the goal prefers, then the other end, then bisects between a feasible
//!   and an infeasible point down to one step. A whole-number field steps
//!   by the range's step, 1 unless given (a whole number); any other by
//!   the range's step (a hundredth of the range unless given).
//! - Deterministic: the result depends on the request alone, whatever ran
//!   the batches, as long as each batch's replications come back in order.
//! - Everything wrong with a request is said before anything runs: an
//!   unknown metric, a bound that is not a number, a range with no whole
//!   number in it for a whole-number field (or a step that is not whole),
//!   a goal naming another field.

mod frontier;
mod request;
mod runner;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;
use crate::sweep::{estimate, metrics, Estimate, Metric, NodeField, Options, Plan, Replication, SweepError, Vary};

pub use frontier::{Frontier, MAX_ROWS};
pub use request::{parse_requirement, parse_range, Range, TuneError};
pub use runner::{TuneReport, TuneRequest, TuneRunner};

/// Replications a point gets first.
pub const FIRST_REPS: usize = 5;

/// Whether the best value is the smallest or the largest that is feasible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    Minimize,
    Maximize,
}

/// The side of its bound a metric must keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    #[serde(rename = "<=")]
    AtMost,
    #[serde(rename = ">=")]
    AtLeast,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::AtMost => "<=",
            Side::AtLeast => ">=",
        })
    }
}

/// `METRIC<=VALUE` or `METRIC>=VALUE`.
#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    pub metric: Metric,
    pub side: Side,
    pub bound: f64,
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.metric, self.side, self.bound)
    }
}

/// What the replications so far say of a requirement at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Met,
    Missed,
    Unsure,
}

impl Requirement {
    /// The verdict on `e`: met or missed once the whole interval is on one
    /// side; a metric with no value is missed (it cannot be shown to hold).
    pub fn judge(&self, e: &Estimate) -> Verdict {
        let Some(mean) = e.mean else { return Verdict::Missed };
        let h = e.ci95.unwrap_or(f64::INFINITY);
        let (low, high) = (mean - h, mean + h);
        match self.side {
            Side::AtMost if high <= self.bound => Verdict::Met,
            Side::AtMost if low > self.bound => Verdict::Missed,
            Side::AtLeast if low >= self.bound => Verdict::Met,
            Side::AtLeast if high < self.bound => Verdict::Missed,
            _ => Verdict::Unsure,
        }
    }

    /// How far the mean of `e` is on the wrong side of the bound (0 when
    /// on the right side; infinite without a value).
    pub fn short_by(&self, e: &Estimate) -> f64 {
        match (e.mean, self.side) {
            (None, _) => f64::INFINITY,
            (Some(m), Side::AtMost) => (m - self.bound).max(0.0),
            (Some(m), Side::AtLeast) => (self.bound - m).max(0.0),
        }
    }
}

/// A tuning asked for: one field over a range, a goal, requirements.
#[derive(Clone, Debug)]
pub struct Tune {
    pub field: NodeField,
    pub range: Range,
    pub goal: Goal,
    pub requirements: Vec<Requirement>,
    /// Each replication's length, warm-up and the seed; `reps` is the most
    /// replications a point gets.
    pub options: Options,
}

/// One point the search tried.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tried {
    pub value: f64,
    /// The other field's value, on a two-field frontier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub along: Option<f64>,
    pub reps: usize,
    pub feasible: bool,
}

/// A setting and every metric measured there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    pub values: BTreeMap<NodeField, f64>,
    pub metrics: BTreeMap<Metric, Estimate>,
}

/// What a tuning found. `best` is the recommended setting when
/// `feasible`; otherwise `closest` is the tried setting whose worst
/// requirement is nearest its bound, and `short_by` says by how much each
/// requirement's metric misses there (its mean's distance to the bound).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneResult {
    pub scenario: String,
    pub goal: Goal,
    pub field: NodeField,
    /// The other field of a two-field frontier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub along: Option<NodeField>,
    pub requirements: Vec<String>,
    pub feasible: bool,
    /// Null when no value in the range is feasible.
    pub best: Option<Setting>,
    /// The metrics whose requirement is not met one step beyond the best
    /// value, toward the goal (none when the best is the range's end: the
    /// range binds).
    pub binding: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<Setting>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub short_by: BTreeMap<String, f64>,
    /// On two fields: the settings no feasible one beats on both (the
    /// other field taken as a cost), in increasing order of it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frontier: Vec<Setting>,
    pub points: usize,
    pub replications: usize,
    pub events: u64,
    pub tried: Vec<Tried>,
}

/// A point being decided: its plan and the replications run so far.
struct Point {
    plan: Plan,
    reps: Vec<Replication>,
    decided: Option<bool>,
}

/// Where the search stands.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Trying the end the goal prefers (the smallest value to minimise).
    Preferred,
    /// It was infeasible: trying the other end.
    Other,
    /// Bisecting between a feasible and an infeasible index.
    Bisect { feasible: usize, infeasible: usize },
    Done,
}

/// The search, one batch of replications at a time: `next_batch` says what to
/// run, `feed` takes the replications back in order.
pub struct Tuner {
    tune: Tune,
    scenario: Scenario,
    values: Vec<f64>,
    points: BTreeMap<usize, Point>,
    order: Vec<usize>,
    phase: Phase,
    current: usize,
    events: u64,
}

/// A batch to run: replications `reps` of the point whose plan is `plan`
/// (its point 0), each with `Plan::run_counting(0, rep)`.
pub struct Batch<'a> {
    pub plan: &'a Plan,
    pub reps: std::ops::Range<usize>,
}

impl Tuner {
    /// Checks the request against `scenario`; nothing runs yet.
    pub fn new(scenario: &Scenario, tune: Tune) -> Result<Tuner, TuneError> {
        if tune.options.reps < 2 {
            return Err(TuneError::Reps(tune.options.reps));
        }
        let values = tune.range.values(scenario, &tune.field)?;
        // Every point's plan is checked when it is tried; the ends and the
        // metrics now, so a mistake is said before anything runs.
        let first = plan_at(scenario, &tune, values[0])?;
        plan_at(scenario, &tune, values[values.len() - 1])?;
        let measured = first.metrics();
        for r in &tune.requirements {
            if !measured.contains(&r.metric) {
                return Err(TuneError::NotMeasured { metric: r.metric.to_string(), measured: measured.iter().map(Metric::to_string).collect::<Vec<_>>().join(", ") });
            }
        }
        if tune.requirements.is_empty() {
            return Err(TuneError::NoRequirement);
        }
        let current = match tune.goal {
            Goal::Minimize => 0,
            Goal::Maximize => values.len() - 1,
        };
        Ok(Tuner { tune, scenario: scenario.clone(), values, points: BTreeMap::new(), order: Vec::new(), phase: Phase::Preferred, current, events: 0 })
    }

    /// The next batch to run, or none once the search is over.
    pub fn next_batch(&mut self) -> Result<Option<Batch<'_>>, TuneError> {
        if matches!(self.phase, Phase::Done) {
            return Ok(None);
        }
        let k = self.current;
        if !self.points.contains_key(&k) {
            let plan = plan_at(&self.scenario, &self.tune, self.values[k])?;
            self.points.insert(k, Point { plan, reps: Vec::new(), decided: None });
            self.order.push(k);
        }
        let max = self.tune.options.reps;
        let point = &self.points[&k];
        let done = point.reps.len();
        let upto = if done == 0 { FIRST_REPS.min(max) } else { (done * 2).min(max) };
        Ok(Some(Batch { plan: &point.plan, reps: done..upto }))
    }

    /// The value being tried and its plan (once `next_batch` gave a batch).
    pub fn current(&self) -> Option<(f64, &Plan)> {
        Some((self.values[self.current], &self.points.get(&self.current)?.plan))
    }

    /// The replications of the batch `next_batch` gave, in order, with their
    /// events; the value tried, once its verdict is sure.
    pub fn feed(&mut self, reps: Vec<(Replication, u64)>) -> Option<Tried> {
        let k = self.current;
        let max = self.tune.options.reps;
        let point = self.points.get_mut(&k)?;
        for (rep, events) in reps {
            point.reps.push(rep);
            self.events += events;
        }
        let verdicts: Vec<Verdict> = self.tune.requirements.iter().map(|r| r.judge(&estimate_of(&point.reps, &r.metric))).collect();
        let decided = if verdicts.iter().all(|v| *v == Verdict::Met) {
            Some(true)
        } else if verdicts.contains(&Verdict::Missed) || point.reps.len() >= max {
            Some(false)
        } else {
            None
        };
        point.decided = decided;
        let tried = decided.map(|feasible| Tried { value: self.values[k], along: None, reps: point.reps.len(), feasible });
        if let Some(feasible) = decided {
            self.advance(feasible);
        }
        tried
    }

    /// Moves the search on from the point just decided.
    fn advance(&mut self, feasible: bool) {
        let last = self.values.len() - 1;
        let (preferred, other) = match self.tune.goal {
            Goal::Minimize => (0, last),
            Goal::Maximize => (last, 0),
        };
        self.phase = match self.phase {
            Phase::Preferred if feasible || preferred == other => Phase::Done,
            Phase::Preferred => Phase::Other,
            Phase::Other if !feasible => Phase::Done,
            Phase::Other => Phase::Bisect { feasible: other, infeasible: preferred },
            Phase::Bisect { feasible: f, infeasible: i } => {
                if feasible {
                    Phase::Bisect { feasible: self.current, infeasible: i }
                } else {
                    Phase::Bisect { feasible: f, infeasible: self.current }
                }
            }
            Phase::Done => Phase::Done,
        };
        self.current = match self.phase {
            Phase::Other => other,
            Phase::Bisect { feasible, infeasible } if feasible.abs_diff(infeasible) > 1 => (feasible + infeasible) / 2,
            Phase::Bisect { .. } => {
                self.phase = Phase::Done;
                self.current
            }
            _ => self.current,
        };
    }

    /// The result, once `next_batch` says the search is over.
    pub fn result(&self) -> TuneResult {
        let setting = |k: usize| {
            let p = &self.points[&k];
            let metrics = metrics(p.plan.scenario(0)).into_iter().map(|m| {
                let e = estimate_of(&p.reps, &m);
                (m, e)
            });
            Setting { values: BTreeMap::from([(self.tune.field.clone(), self.values[k])]), metrics: metrics.collect() }
        };
        let feasible_points: Vec<usize> = self.points.iter().filter(|(_, p)| p.decided == Some(true)).map(|(&k, _)| k).collect();
        let best = match self.tune.goal {
            Goal::Minimize => feasible_points.first().copied(),
            Goal::Maximize => feasible_points.last().copied(),
        };
        let mut binding = Vec::new();
        let mut closest = None;
        let mut short_by = BTreeMap::new();
        if let Some(b) = best {
            let beyond = match self.tune.goal {
                Goal::Minimize => b.checked_sub(1),
                Goal::Maximize => (b + 1 < self.values.len()).then_some(b + 1),
            };
            if let Some(p) = beyond.and_then(|k| self.points.get(&k)) {
                // What was missed there; failing that, what stayed unsure.
                let verdicts: Vec<(&Requirement, Verdict)> = self.tune.requirements.iter().map(|r| (r, r.judge(&estimate_of(&p.reps, &r.metric)))).collect();
                let missed = verdicts.iter().any(|(_, v)| *v == Verdict::Missed);
                let wanted = if missed { Verdict::Missed } else { Verdict::Unsure };
                binding = verdicts.iter().filter(|(_, v)| *v == wanted).map(|(r, _)| r.metric.to_string()).collect();
            }
        } else {
            // The tried point whose worst requirement, relative to its
            // bound, misses least.
            let worst = |p: &Point| {
                self.tune
                    .requirements
                    .iter()
                    .map(|r| r.short_by(&estimate_of(&p.reps, &r.metric)) / r.bound.abs().max(f64::MIN_POSITIVE))
                    .fold(0.0, f64::max)
            };
            if let Some((&k, p)) = self.points.iter().min_by(|a, b| worst(a.1).total_cmp(&worst(b.1))) {
                closest = Some(setting(k));
                // A metric with no value there has no distance to give.
                short_by = self
                    .tune
                    .requirements
                    .iter()
                    .map(|r| (r.metric.to_string(), r.short_by(&estimate_of(&p.reps, &r.metric))))
                    .filter(|(_, gap)| gap.is_finite())
                    .collect();
            }
        }
        TuneResult {
            scenario: self.scenario.name.clone(),
            goal: self.tune.goal,
            field: self.tune.field.clone(),
            along: None,
            requirements: self.tune.requirements.iter().map(Requirement::to_string).collect(),
            feasible: best.is_some(),
            best: best.map(setting),
            binding,
            closest,
            short_by,
            frontier: Vec::new(),
            points: self.points.len(),
            replications: self.points.values().map(|p| p.reps.len()).sum(),
            events: self.events,
            tried: self.order.iter().map(|&k| Tried { value: self.values[k], along: None, reps: self.points[&k].reps.len(), feasible: self.points[&k].decided == Some(true) }).collect(),
        }
    }

    /// Whether the search is over.
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// The values the search chooses among, in increasing order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

}

/// A search run a batch of replications at a time: one field's (`Tuner`),
/// or a frontier's over two (`Frontier`). Whatever runs the batches (this
/// thread, a pool, the page's worker) gets the same result, as long as
/// each batch's replications come back in order.
pub trait Search {
    /// The next batch to run, or none once the search is over.
    fn next_batch(&mut self) -> Result<Option<Batch<'_>>, TuneError>;
    /// The replications of the batch `next_batch` gave, in order, with
    /// their events; the setting tried, once its verdict is sure.
    fn feed(&mut self, reps: Vec<(Replication, u64)>) -> Option<Tried>;
    /// The result, once `next_batch` says the search is over.
    fn result(&self) -> TuneResult;

    /// Runs the whole search on this thread.
    fn finish(mut self) -> Result<TuneResult, TuneError>
    where
        Self: Sized,
    {
        while let Some(batch) = self.next_batch()? {
            let plan = batch.plan;
            let reps = batch.reps.clone().map(|r| plan.run_counting(0, r)).collect::<Result<Vec<_>, SweepError>>().map_err(TuneError::Run)?;
            self.feed(reps);
        }
        Ok(self.result())
    }
}

impl Search for Tuner {
    fn next_batch(&mut self) -> Result<Option<Batch<'_>>, TuneError> {
        Tuner::next_batch(self)
    }

    fn feed(&mut self, reps: Vec<(Replication, u64)>) -> Option<Tried> {
        Tuner::feed(self, reps)
    }

    fn result(&self) -> TuneResult {
        Tuner::result(self)
    }
}

/// The estimate of `metric` over `reps`, from the replications that gave a
/// value.
fn estimate_of(reps: &[Replication], metric: &Metric) -> Estimate {
    let values: Vec<f64> = reps.iter().filter_map(|r| r.get(metric).copied().flatten()).collect();
    estimate(&values)
}

/// A one-point sweep plan of the scenario with the field at `value`.
fn plan_at(scenario: &Scenario, tune: &Tune, value: f64) -> Result<Plan, TuneError> {
    let vary = Vary::named(&tune.field, vec![value], scenario).map_err(|why| TuneError::Sweep(SweepError::Vary(why)))?;
    Plan::new(scenario, vec![vary], tune.options).map_err(TuneError::Sweep)
}
