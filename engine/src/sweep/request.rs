//! A sweep as data, and a runner that does it one replication at a time:
//! what the page hands its Web Worker, what a lesson's sweep step asks
//! for, and what they report back.
//!
//! Guarantees:
//! - A `Request` is plain data (serde), so it crosses a thread or a worker
//!   as JSON; `plan` checks all of it before anything runs, with the same
//!   errors as the command line (without its flags' names).
//! - A `Runner` does the plan in grid order, one replication per `step`,
//!   and summarises each point from its replications in order: its points
//!   are exactly those `sluice sweep --jobs 1` computes.

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;

use super::errors::{SpreadError, SweepError};
use super::{Metric, NodeField, Options, Plan, PointResult, Replication, SweepResult, Vary};

/// A parameter and the values it takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Varied {
    /// `NODE.FIELD`, as `--vary` names it: `line.soft_limit.messages`.
    pub name: NodeField,
    pub values: Vec<f64>,
}

/// Everything a sweep needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub scenario: Scenario,
    pub vary: Vec<Varied>,
    pub reps: usize,
    pub until_s: f64,
    pub warmup_s: f64,
    pub seed: u64,
}

/// The share of each replication a sweep discards before it measures,
/// unless told otherwise.
pub const WARMUP_SHARE: f64 = 0.1;

/// The warm-up of a replication `until_s` long, unless told otherwise.
pub fn warmup_for(until_s: f64) -> f64 {
    until_s * WARMUP_SHARE
}

impl Request {
    /// A sweep of field `name` of `scenario` as it stands: `points` values
    /// from `from` to `to` (whole ones for a whole-number field, `spread`),
    /// `reps` replications of `until_s` seconds each, the first
    /// `WARMUP_SHARE` a warm-up, on the scenario's seed. What the page's
    /// form and a lesson's sweep step both ask for.
    pub fn over(scenario: &Scenario, name: &NodeField, (from, to, points): (f64, f64, usize), reps: usize, until_s: f64) -> Result<Request, SpreadError> {
        let whole = super::field_value(scenario, name).is_some_and(|(_, whole)| whole);
        Ok(Request {
            scenario: scenario.clone(),
            vary: vec![Varied { name: name.clone(), values: spread(from, to, points, whole)? }],
            reps,
            until_s,
            warmup_s: warmup_for(until_s),
            seed: scenario.seed_or_default(),
        })
    }

    /// The plan, every point checked.
    pub fn plan(&self) -> Result<Plan, SweepError> {
        let varies = self
            .vary
            .iter()
            .map(|v| Vary::named(&v.name, v.values.clone(), &self.scenario))
            .collect::<Result<Vec<_>, _>>()
            .map_err(SweepError::Field)?;
        let options = Options { reps: self.reps, until_s: self.until_s, warmup_s: self.warmup_s, seed: self.seed };
        Plan::new(&self.scenario, varies, options)
    }
}

/// `points` values from `from` to `to`, both included, evenly spread; for
/// a whole-number field, rounded and without repeats. Refuses what makes
/// no range.
pub fn spread(from: f64, to: f64, points: usize, whole: bool) -> Result<Vec<f64>, SpreadError> {
    if !(from.is_finite() && to.is_finite()) {
        return Err(SpreadError::NotNumbers);
    }
    if to < from {
        return Err(SpreadError::EmptyRange { from, to });
    }
    if !(1..=super::MAX_POINTS).contains(&points) {
        return Err(SpreadError::Points(points));
    }
    let mut values: Vec<f64> = (0..points)
        .map(|k| if points == 1 { from } else { from + (to - from) * k as f64 / (points - 1) as f64 })
        .map(|v| if whole { v.round() } else { v })
        .collect();
    values.dedup();
    if whole && values.iter().all(|v| *v < from.ceil() || *v > to.floor()) {
        return Err(SpreadError::NoWholeNumber { from, to });
    }
    values.retain(|v| !whole || (*v >= from.ceil() && *v <= to.floor()));
    Ok(values)
}

/// What a runner did in one step. Externally tagged (`"done"`,
/// `{"point": {...}}`): an internally tagged enum is read through serde's
/// buffered `Content`, code the page's WebAssembly would carry for this
/// enum alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Report {
    /// A worker is listening for its request (a worker that has not said
    /// so yet would lose it).
    Ready,
    /// The plan is ready: how many points and replications it has, and
    /// the metrics it measures.
    Planned { points: usize, reps: usize, metrics: Vec<Metric> },
    /// Replication `rep` of point `point` is done.
    Replication { point: usize, rep: usize },
    /// Point `index` is done.
    Point { index: usize, result: PointResult },
    /// Every point is done.
    Done,
    /// The sweep cannot go on, and why.
    Failed { why: String },
}

/// A plan being done, one replication per step.
pub struct Runner {
    plan: Plan,
    point: usize,
    reps: Vec<Replication>,
    planned: bool,
    over: bool,
}

impl Runner {
    pub fn new(plan: Plan) -> Runner {
        Runner { plan, point: 0, reps: Vec::new(), planned: false, over: false }
    }

    /// Does the next piece of work and says what it was; `None` once the
    /// sweep is done or failed.
    pub fn step(&mut self) -> Option<Report> {
        if self.over {
            return None;
        }
        if !self.planned {
            self.planned = true;
            return Some(Report::Planned { points: self.plan.points(), reps: self.plan.options.reps, metrics: self.plan.metrics() });
        }
        if self.point >= self.plan.points() {
            self.over = true;
            return Some(Report::Done);
        }
        if self.reps.len() == self.plan.options.reps {
            let result = self.plan.summarise(self.point, &self.reps);
            self.reps.clear();
            self.point += 1;
            return Some(Report::Point { index: self.point - 1, result });
        }
        let rep = self.reps.len();
        match self.plan.run(self.point, rep) {
            Ok(replication) => {
                self.reps.push(replication);
                Some(Report::Replication { point: self.point, rep })
            }
            Err(why) => {
                self.over = true;
                Some(Report::Failed { why: why.to_string() })
            }
        }
    }

    /// Runs to the end: the sweep's result, every point in grid order.
    pub fn finish(mut self) -> Result<SweepResult, SweepError> {
        let mut points = Vec::new();
        while let Some(report) = self.step() {
            match report {
                Report::Point { result, .. } => points.push(result),
                Report::Failed { why } => return Err(SweepError::Failed(why)),
                _ => {}
            }
        }
        Ok(self.plan.result(points))
    }
}
