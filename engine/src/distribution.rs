//! Random quantities: service times and think times (seconds), message
//! sizes (bytes).
//!
//! Guarantees: a validated distribution samples only finite, non-negative
//! values; `mean()` is the exact mean of what `sample` draws.

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::rng::SimRng;
use crate::plumbing::validate::{check_range, push_error, FieldError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum Distribution {
    /// Always `value`.
    Fixed { value: f64 },
    /// Exponential with the given mean (memoryless).
    Exponential { mean: f64 },
    /// Uniform between `min` and `max`.
    Uniform { min: f64, max: f64 },
    /// Log-normal with the given mean and coefficient of variation
    /// (standard deviation / mean): a long right tail.
    LogNormal { mean: f64, cv: f64 },
    /// With probability `p` a draw from `a`, otherwise from `b` (a fast and
    /// a slow mode).
    Mix { p: f64, a: Box<Distribution>, b: Box<Distribution> },
}

impl Distribution {
    /// A draw. The two commonest forms are inlined; `Mix` makes the general
    /// case recursive, which the compiler will not inline.
    #[inline]
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        match self {
            Distribution::Fixed { value } => *value,
            Distribution::Exponential { mean } => rng.exponential(*mean),
            other => other.sample_other(rng),
        }
    }

    fn sample_other(&self, rng: &mut SimRng) -> f64 {
        match self {
            Distribution::Fixed { value } => *value,
            Distribution::Exponential { mean } => rng.exponential(*mean),
            Distribution::Uniform { min, max } => min + (max - min) * rng.uniform(),
            Distribution::LogNormal { mean, cv } => {
                let sigma2 = libm::log1p(cv * cv);
                let mu = libm::log(*mean) - sigma2 / 2.0;
                libm::exp(mu + libm::sqrt(sigma2) * rng.standard_normal())
            }
            Distribution::Mix { p, a, b } => {
                if rng.uniform() < *p {
                    a.sample(rng)
                } else {
                    b.sample(rng)
                }
            }
        }
    }

    pub fn mean(&self) -> f64 {
        match self {
            Distribution::Fixed { value } => *value,
            Distribution::Exponential { mean } | Distribution::LogNormal { mean, .. } => *mean,
            Distribution::Uniform { min, max } => (min + max) / 2.0,
            Distribution::Mix { p, a, b } => p * a.mean() + (1.0 - p) * b.mean(),
        }
    }

    /// The largest value a draw can take (infinite where the tail has no
    /// end). An exponential draw is at most 37 means: the stream's smallest
    /// uniform is 2^-53, and -ln(2^-53) is 36.7.
    pub fn max_draw(&self) -> f64 {
        match self {
            Distribution::Fixed { value } => *value,
            Distribution::Exponential { mean } => mean * 37.0,
            Distribution::Uniform { max, .. } => *max,
            Distribution::LogNormal { .. } => f64::INFINITY,
            Distribution::Mix { p, a, b } if *p >= 1.0 => a.max_draw(),
            Distribution::Mix { p, a, b } if *p <= 0.0 => b.max_draw(),
            Distribution::Mix { a, b, .. } => a.max_draw().max(b.max_draw()),
        }
    }

    /// Whether every draw, as a time in seconds, rounds to 0 ns.
    pub fn always_zero_time(&self) -> bool {
        crate::time::SimDuration::from_secs_f64(self.max_draw()) == crate::time::SimDuration::ZERO
    }

    /// Its name in words ("exponential", "log-normal").
    pub fn kind(&self) -> &'static str {
        match self {
            Distribution::Fixed { .. } => "fixed",
            Distribution::Exponential { .. } => "exponential",
            Distribution::Uniform { .. } => "uniform",
            Distribution::LogNormal { .. } => "log-normal",
            Distribution::Mix { .. } => "two-mode",
        }
    }

    /// The exact mean of the square of a draw, E[X²] (what the
    /// Pollaczek–Khinchine formula needs besides the mean).
    pub fn second_moment(&self) -> f64 {
        match self {
            Distribution::Fixed { value } => value * value,
            Distribution::Exponential { mean } => 2.0 * mean * mean,
            Distribution::Uniform { min, max } => (min * min + min * max + max * max) / 3.0,
            Distribution::LogNormal { mean, cv } => mean * mean * (1.0 + cv * cv),
            Distribution::Mix { p, a, b } => p * a.second_moment() + (1.0 - p) * b.second_moment(),
        }
    }

    /// Every draw multiplied by `factor`.
    pub fn scaled(&self, factor: f64) -> Distribution {
        match self {
            Distribution::Fixed { value } => Distribution::Fixed { value: value * factor },
            Distribution::Exponential { mean } => Distribution::Exponential { mean: mean * factor },
            Distribution::Uniform { min, max } => Distribution::Uniform { min: min * factor, max: max * factor },
            Distribution::LogNormal { mean, cv } => Distribution::LogNormal { mean: mean * factor, cv: *cv },
            Distribution::Mix { p, a, b } => {
                Distribution::Mix { p: *p, a: Box::new(a.scaled(factor)), b: Box::new(b.scaled(factor)) }
            }
        }
    }

    /// Checks the parameters lie in `[min, max]`.
    pub(crate) fn validate(&self, path: &str, min: f64, max: f64, errors: &mut Vec<FieldError>) {
        self.validate_at(path, min, max, errors, 0);
    }

    fn validate_at(&self, path: &str, min: f64, max: f64, errors: &mut Vec<FieldError>, depth: usize) {
        match self {
            Distribution::Fixed { value } => check_range(errors, format!("{path}.value"), *value, min, max),
            Distribution::Exponential { mean } => check_range(errors, format!("{path}.mean"), *mean, min, max),
            Distribution::Uniform { min: lo, max: hi } => {
                check_range(errors, format!("{path}.min"), *lo, min, max);
                check_range(errors, format!("{path}.max"), *hi, min, max);
                if lo > hi {
                    push_error(errors, format!("{path}.max"), "must not be below min");
                }
            }
            Distribution::LogNormal { mean, cv } => {
                check_range(errors, format!("{path}.mean"), *mean, min.max(1e-12), max);
                check_range(errors, format!("{path}.cv"), *cv, 0.0, 100.0);
            }
            Distribution::Mix { p, a, b } => {
                check_range(errors, format!("{path}.p"), *p, 0.0, 1.0);
                if depth >= 4 {
                    push_error(errors, path.to_string(), "mixes may nest at most four deep");
                    return;
                }
                a.validate_at(&format!("{path}.a"), min, max, errors, depth + 1);
                b.validate_at(&format!("{path}.b"), min, max, errors, depth + 1);
            }
        }
    }
}


impl Distribution {
    /// Its number field at `steps`: a parameter of this distribution, or
    /// one inside a mix's mode (`a.mean`).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match (self, steps) {
            (Distribution::Fixed { value }, [Step::Key("value")]) => Some(NumberField::Real(value)),
            (Distribution::Exponential { mean } | Distribution::LogNormal { mean, .. }, [Step::Key("mean")]) => Some(NumberField::Real(mean)),
            (Distribution::LogNormal { cv, .. }, [Step::Key("cv")]) => Some(NumberField::Real(cv)),
            (Distribution::Uniform { min, .. }, [Step::Key("min")]) => Some(NumberField::Real(min)),
            (Distribution::Uniform { max, .. }, [Step::Key("max")]) => Some(NumberField::Real(max)),
            (Distribution::Mix { p, .. }, [Step::Key("p")]) => Some(NumberField::Real(p)),
            (Distribution::Mix { a, .. }, [Step::Key("a"), rest @ ..]) => a.number_mut(rest),
            (Distribution::Mix { b, .. }, [Step::Key("b"), rest @ ..]) => b.number_mut(rest),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_mean(d: &Distribution, n: usize) -> f64 {
        let mut rng = SimRng::new(9);
        (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64
    }

    #[test]
    fn sample_means_match_the_stated_means() {
        let cases = [
            Distribution::Uniform { min: 1.0, max: 3.0 },
            Distribution::LogNormal { mean: 2.0, cv: 0.5 },
            Distribution::Mix {
                p: 0.9,
                a: Box::new(Distribution::Fixed { value: 1.0 }),
                b: Box::new(Distribution::Exponential { mean: 11.0 }),
            },
        ];
        for d in cases {
            let m = sample_mean(&d, 400_000);
            assert!((m - d.mean()).abs() < 0.01 * d.mean(), "{d:?}: {m}");
        }
    }

    #[test]
    fn second_moments_match_the_samples() {
        let cases = [
            Distribution::Fixed { value: 0.5 },
            Distribution::Exponential { mean: 2.0 },
            Distribution::Uniform { min: 1.0, max: 3.0 },
            Distribution::LogNormal { mean: 2.0, cv: 0.5 },
            Distribution::Mix {
                p: 0.9,
                a: Box::new(Distribution::Fixed { value: 1.0 }),
                b: Box::new(Distribution::Exponential { mean: 3.0 }),
            },
        ];
        for d in cases {
            let mut rng = SimRng::new(5);
            let n = 400_000;
            let m2 = (0..n).map(|_| d.sample(&mut rng).powi(2)).sum::<f64>() / n as f64;
            assert!((m2 - d.second_moment()).abs() < 0.02 * d.second_moment(), "{d:?}: {m2}");
        }
    }

    #[test]
    fn lognormal_has_the_stated_spread() {
        let d = Distribution::LogNormal { mean: 1.0, cv: 2.0 };
        let mut rng = SimRng::new(3);
        let xs: Vec<f64> = (0..400_000).map(|_| d.sample(&mut rng)).collect();
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        assert!((sd / m - 2.0).abs() < 0.15, "cv {}", sd / m);
    }

    #[test]
    fn scaling_keeps_the_shape() {
        let d = Distribution::Uniform { min: 1.0, max: 3.0 }.scaled(2.0);
        assert_eq!(d, Distribution::Uniform { min: 2.0, max: 6.0 });
    }
}
