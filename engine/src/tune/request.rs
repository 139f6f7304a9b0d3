//! A tuning's words: its range (`FROM:TO` or `FROM:TO:STEP`), its
//! requirements (`METRIC<=VALUE`), and why one is refused, in the words
//! `sluice tune` prints.

use crate::scenario::Scenario;
use crate::sweep::{field_value, Metric, MetricError, NodeField, SweepError, MAX_POINTS};

use super::{Requirement, Side};

/// Why a tuning is refused, or stopped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TuneError {
    #[error("--vary {0}: expected NODE.FIELD=FROM:TO or NODE.FIELD=FROM:TO:STEP")]
    VaryForm(String),
    #[error("--vary {name}: \"{text}\" is not a number")]
    NotANumber { name: String, text: String },
    #[error("--vary {name}: the range {from} to {to} is empty")]
    EmptyRange { name: String, from: f64, to: f64 },
    #[error("--vary {name}: the step must be above 0, not {step}")]
    Step { name: String, step: f64 },
    #[error("--vary {name}: a whole-number field steps by whole numbers, not {step}")]
    WholeStep { name: String, step: f64 },
    #[error("--vary {name}: a whole-number field, and no whole number lies from {from} to {to}")]
    NoWholeNumber { name: String, from: f64, to: f64 },
    #[error("--vary {name}: more than the {MAX_POINTS} values a search may choose among")]
    TooMany { name: String },
    #[error("--vary {name}: no number field there (or the node has none)")]
    NoField { name: String },
    #[error("--require {0}: expected METRIC<=VALUE or METRIC>=VALUE, such as srv.p99_wait_s<=0.2")]
    RequireForm(String),
    #[error("--require {text}: {why}")]
    Metric { text: String, why: MetricError },
    #[error("--require {text}: the bound \"{bound}\" is not a number")]
    Bound { text: String, bound: String },
    #[error("--require {metric}: not measured by this scenario (measured: {measured})")]
    NotMeasured { metric: String, measured: String },
    #[error("nothing required: give at least one --require")]
    NoRequirement,
    #[error("--{goal} {named}: the field to choose is the varied one, {varied}")]
    GoalField { goal: &'static str, named: String, varied: String },
    #[error("give one --vary to search along, or two for a frontier")]
    OneVary,
    #[error("--vary {0} twice: the second field must be another")]
    SameField(String),
    #[error("--vary {field}: {values} values, each a whole search; at most {} (give a coarser step)", super::MAX_ROWS)]
    TooManyRows { field: String, values: usize },
    #[error("--reps {0}: at least 2, since a value's 95% interval needs two replications")]
    Reps(usize),
    #[error("{0}")]
    Sweep(SweepError),
    #[error("{0}")]
    Run(SweepError),
}

/// `METRIC<=VALUE` or `METRIC>=VALUE`.
pub fn parse_requirement(text: &str) -> Result<Requirement, TuneError> {
    let t = text.trim();
    let (at, side) = match (t.find("<="), t.find(">=")) {
        (Some(i), None) => (i, Side::AtMost),
        (None, Some(i)) => (i, Side::AtLeast),
        _ => return Err(TuneError::RequireForm(text.to_string())),
    };
    let (metric, bound) = (t[..at].trim(), t[at + 2..].trim());
    let metric = Metric::parse(metric).map_err(|why| TuneError::Metric { text: text.to_string(), why })?;
    let bound = match bound.parse::<f64>() {
        Ok(b) if b.is_finite() => b,
        _ => return Err(TuneError::Bound { text: text.to_string(), bound: bound.to_string() }),
    };
    Ok(Requirement { metric, side, bound })
}

/// The range a field is searched over: both ends included; `step` the
/// precision (a whole-number field's, 1 unless given, a whole number).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub from: f64,
    pub to: f64,
    pub step: Option<f64>,
}

/// `NODE.FIELD=FROM:TO[:STEP]`: the field and its range.
pub fn parse_range(text: &str) -> Result<(NodeField, Range), TuneError> {
    let form = || TuneError::VaryForm(text.to_string());
    let (name, range) = text.split_once('=').ok_or_else(form)?;
    let field = NodeField::parse(name).map_err(|_| form())?;
    let name = field.to_string();
    let parts: Vec<&str> = range.split(':').map(str::trim).collect();
    let number = |s: &str| match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(TuneError::NotANumber { name: name.clone(), text: s.to_string() }),
    };
    let (from, to, step) = match parts[..] {
        [from, to] => (number(from)?, number(to)?, None),
        [from, to, step] => (number(from)?, number(to)?, Some(number(step)?)),
        _ => return Err(form()),
    };
    if to < from {
        return Err(TuneError::EmptyRange { name, from, to });
    }
    if let Some(step) = step.filter(|s| *s <= 0.0) {
        return Err(TuneError::Step { name, step });
    }
    Ok((field, Range { from, to, step }))
}

impl Range {
    /// The values searched among, in increasing order: for a whole-number
    /// field, the whole numbers in the range from the first by the step (1
    /// unless given; a whole number); otherwise from `from` by the step (a
    /// hundredth of the range unless given), `to` included.
    pub fn values(&self, scenario: &Scenario, field: &NodeField) -> Result<Vec<f64>, TuneError> {
        let name = field.to_string();
        let (_, whole) = field_value(scenario, field).ok_or_else(|| TuneError::NoField { name: name.clone() })?;
        let (from, to) = (self.from, self.to);
        if !(from.is_finite() && to.is_finite()) || to < from {
            return Err(TuneError::EmptyRange { name, from, to });
        }
        if let Some(step) = self.step.filter(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(TuneError::Step { name, step });
        }
        let values: Vec<f64> = if whole {
            let (low, high) = (from.ceil(), to.floor());
            if low > high {
                return Err(TuneError::NoWholeNumber { name, from, to });
            }
            let step = self.step.unwrap_or(1.0);
            if step.fract() != 0.0 {
                return Err(TuneError::WholeStep { name, step });
            }
            if (high - low) / step >= MAX_POINTS as f64 {
                return Err(TuneError::TooMany { name });
            }
            (0..=((high - low) / step) as usize).map(|k| low + k as f64 * step).collect()
        } else {
            let step = self.step.unwrap_or((to - from) / 100.0);
            if step <= 0.0 {
                return Ok(vec![from]);
            }
            let count = ((to - from) / step + 1e-6).floor();
            if count >= MAX_POINTS as f64 {
                return Err(TuneError::TooMany { name });
            }
            // Rounded to the decimals the range is written in, so 1 + 63 × 0.1
            // is 7.3, not 7.300000000000001.
            let scale = 10f64.powi(decimals(from).max(decimals(step)));
            let mut values: Vec<f64> = (0..=count as usize).map(|k| ((from + step * k as f64) * scale).round() / scale).collect();
            if values.last().is_some_and(|&v| to - v > step * 1e-6) {
                values.push(to);
            }
            values
        };
        Ok(values)
    }
}

/// The decimals `v` is written with, up to 9.
fn decimals(v: f64) -> i32 {
    (0..9).find(|&d| {
        let scaled = v * 10f64.powi(d);
        (scaled - scaled.round()).abs() < 1e-9 * scaled.abs().max(1.0)
    })
    .unwrap_or(9)
}
