//! The words of validation, shared by the scenario and every block: a
//! problem at a path (`FieldError`), and the checks every block makes of
//! its numbers and periods.
//!
//! Guarantees: blocks take these from here, not from the scenario module,
//! so no import runs from a block back up to the scenario that holds it.
//! A problem's message echoes what the file said only escaped and cut
//! short (`Display`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::numbers::readable;
use crate::plumbing::printable::printable;

/// One problem in a scenario: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

/// Errors echo what the file said (unknown field names, ids, values):
/// shown escaped and cut short, they cannot act on a terminal or fill it.
impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = printable(&self.message, 400);
        if self.path.is_empty() {
            write!(f, "{message}")
        } else {
            write!(f, "{}: {message}", printable(&self.path, 200))
        }
    }
}

/// Records a problem at `path`.
pub(crate) fn push_error(errors: &mut Vec<FieldError>, path: impl Into<String>, message: impl Into<String>) {
    errors.push(FieldError { path: path.into(), message: message.into() });
}

/// A span of simulation time, in seconds: a link down, a consumer in an
/// outage.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Period {
    pub from_s: f64,
    pub to_s: f64,
}

/// Checks a list of periods at `path`: each within [0, 10^9] seconds,
/// ending after it starts, in order and not overlapping.
pub(crate) fn check_periods(errors: &mut Vec<FieldError>, path: &str, periods: impl Iterator<Item = (f64, f64)>) {
    let mut last_end = f64::NEG_INFINITY;
    for (i, (from, to)) in periods.enumerate() {
        check_range(errors, format!("{path}[{i}].from_s"), from, 0.0, 1e9);
        check_range(errors, format!("{path}[{i}].to_s"), to, 0.0, 1e9);
        if to <= from {
            push_error(errors, format!("{path}[{i}].to_s"), "must be after from_s");
        }
        if from < last_end {
            push_error(errors, format!("{path}[{i}].from_s"), "periods must be in order and not overlap");
        }
        last_end = to;
    }
}

/// Whether `s` seconds is finite and whole milliseconds, to within a
/// millionth of one (what a decimal read from a file leaves over).
pub(crate) fn is_whole_ms(s: f64) -> bool {
    let ms = s * 1000.0;
    s.is_finite() && (ms - ms.round()).abs() <= 1e-6
}

/// Checks that a number is finite and inside [min, max].
pub(crate) fn check_range(errors: &mut Vec<FieldError>, path: String, value: f64, min: f64, max: f64) {
    if !value.is_finite() {
        push_error(errors, path, "must be a finite number");
    } else if value < min || value > max {
        push_error(errors, path, format!("must be between {} and {}, got {}", readable(min), readable(max), readable(value)));
    }
}



impl Period {
    /// Its number field at `steps` (`from_s`, `to_s`).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("from_s")] => Some(NumberField::Real(&mut self.from_s)),
            [Step::Key("to_s")] => Some(NumberField::Real(&mut self.to_s)),
            _ => None,
        }
    }
}
