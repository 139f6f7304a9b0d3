//! Random quantities: service times (seconds) and message sizes (bytes).
//!
//! Guarantees: a validated distribution samples only finite, non-negative
//! values; `mean()` is the exact mean of what `sample` draws.

use serde::{Deserialize, Serialize};

use crate::rng::SimRng;
use crate::scenario::{check_range, FieldError};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum Distribution {
    /// Always `value`.
    Fixed { value: f64 },
    /// Exponential with the given mean (memoryless).
    Exponential { mean: f64 },
}

impl Distribution {
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        match *self {
            Distribution::Fixed { value } => value,
            Distribution::Exponential { mean } => rng.exponential(mean),
        }
    }

    pub fn mean(&self) -> f64 {
        match *self {
            Distribution::Fixed { value } => value,
            Distribution::Exponential { mean } => mean,
        }
    }

    /// Checks the parameters lie in `[min, max]`.
    pub(crate) fn validate(&self, path: &str, min: f64, max: f64, errors: &mut Vec<FieldError>) {
        match *self {
            Distribution::Fixed { value } => check_range(errors, format!("{path}.value"), value, min, max),
            Distribution::Exponential { mean } => check_range(errors, format!("{path}.mean"), mean, min, max),
        }
    }
}
