//! A lesson step that sweeps one parameter of the scenario as it stands,
//! and the checks that judge the sweep: a metric's mean at the first or
//! the last point, or how often the 95% intervals hold the theory's value.
//!
//! Guarantees:
//! - The sweep runs on a copy: the scenario, and the run beside it, are
//!   left as they were.
//! - Its seed is the scenario's, so following a lesson twice gives the
//!   same sweep; `lesson_seeds` varies it like any other.
//! - A check on a metric with no value fails: silence is not a result.

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;
use crate::sweep::{Metric, NodeField, Request, SweepResult};

use super::{CheckResult, StepError, Verdict};
use crate::plumbing::numbers::plain;

/// What to sweep, and what must hold of the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepStep {
    /// `NODE.FIELD`, as `sluice sweep --vary` names it.
    pub vary: NodeField,
    pub from: f64,
    pub to: f64,
    /// How many values, evenly spread from `from` to `to` (whole numbers
    /// for a field that holds one).
    pub points: usize,
    pub reps: usize,
    /// Each replication's length; the first tenth is its warm-up.
    pub until_s: f64,
    /// The metric the chart shows.
    pub metric: Metric,
    pub check: Vec<SweepCheck>,
}

/// A point of a sweep a check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Point {
    First,
    Last,
}

/// One check on a sweep's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepCheck {
    pub metric: Metric,
    /// Whose mean the bounds hold: the `"first"` point's or the `"last"`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Point>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    /// The share of points whose 95% interval holds the theory's value at
    /// least this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers_theory_at_least: Option<f64>,
}

/// The longest sweep a lesson may ask for, in replications times seconds
/// simulated: the page runs it in a worker while the learner waits.
const MOST_SIMULATED_S: f64 = 200_000.0;

impl SweepStep {
    /// The sweep of `scenario` as it stands.
    pub fn request(&self, scenario: &Scenario) -> Result<Request, StepError> {
        Request::over(scenario, &self.vary, (self.from, self.to, self.points), self.reps, self.until_s)
            .map_err(|why| StepError::Spread { vary: self.vary.to_string(), why })
    }

    /// Checks that the sweep can run on `scenario` and every check reads
    /// one of its metrics, bounded from below by something.
    pub fn verify(&self, scenario: &Scenario) -> Result<(), StepError> {
        let plan = self.request(scenario)?.plan().map_err(StepError::Sweep)?;
        let simulated = (plan.points() * self.reps) as f64 * self.until_s;
        if simulated > MOST_SIMULATED_S {
            return Err(StepError::SweepTooLong(simulated, MOST_SIMULATED_S));
        }
        let metrics = plan.metrics();
        for metric in std::iter::once(&self.metric).chain(self.check.iter().map(|c| &c.metric)) {
            if !metrics.contains(metric) {
                let measured = metrics.iter().map(Metric::to_string).collect::<Vec<_>>().join(", ");
                return Err(StepError::NoMetric { name: metric.to_string(), measured });
            }
        }
        for c in &self.check {
            let bounded = c.at_least.is_some() || c.at_most.is_some();
            match (c.point, bounded, c.covers_theory_at_least) {
                (Some(_), true, None) | (None, false, Some(_)) => {}
                _ => {
                    return Err(StepError::SweepCheckForm(c.metric.to_string()))
                }
            }
        }
        let from_below = self.check.iter().any(|c| c.at_least.is_some_and(|b| b > 0.0) || c.covers_theory_at_least.is_some_and(|b| b > 0.0));
        if !from_below {
            return Err(StepError::NoSweepCheckFromBelow);
        }
        Ok(())
    }

    /// Judges the checks on a finished sweep.
    pub fn judge(&self, result: &SweepResult) -> Verdict {
        let results: Vec<CheckResult> = self.check.iter().map(|c| judge(c, result)).collect();
        let passed = !results.is_empty() && results.iter().all(|r| r.passed);
        Verdict { passed, ..Verdict::of(results) }
    }
}

fn judge(c: &SweepCheck, result: &SweepResult) -> CheckResult {
    if let Some(share) = c.covers_theory_at_least {
        let judged: Vec<bool> = result
            .points
            .iter()
            .filter_map(|p| {
                let theory = p.predicted(&c.metric)?;
                let e = p.metrics.get(&c.metric)?;
                let (mean, half) = (e.mean?, e.ci95?);
                Some((mean - theory).abs() <= half)
            })
            .collect();
        let covered = judged.iter().filter(|&&c| c).count();
        let figure = (!judged.is_empty()).then(|| covered as f64 / judged.len() as f64);
        return CheckResult {
            text: format!(
                "{}: the 95% interval holds the theory at {covered} of {} points (at least {}%)",
                c.metric,
                judged.len(),
                plain(share * 100.0)
            ),
            figure,
            passed: figure.is_some_and(|f| f >= share),
        };
    }
    let point = match c.point.unwrap_or(Point::First) {
        Point::First => result.points.first(),
        Point::Last => result.points.last(),
    };
    let value = point.and_then(|p| p.metrics.get(&c.metric)).and_then(|e| e.mean);
    let at = point
        .map(|p| p.values.iter().map(|(name, v)| format!("{name} = {}", plain(*v))).collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let mut bounds = Vec::new();
    // Without a value, no bound holds (NaN meets none) and the check fails.
    let passed = super::within(value.unwrap_or(f64::NAN), c.at_least, c.at_most, plain, &mut bounds) && value.is_some();
    let shown = value.map_or_else(|| "no value".to_string(), plain);
    CheckResult { text: format!("{} at {at}: {shown} ({})", c.metric, bounds.join(", ")), figure: value, passed }
}
