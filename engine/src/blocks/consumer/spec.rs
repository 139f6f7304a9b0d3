//! A consumer's settings as a scenario file writes them: its workers and
//! their service time, slow-downs, outages, lifecycle and time-out, what
//! each may be (`validate`) and its number fields (`number_mut`).

use serde::{Deserialize, Serialize};

use crate::distribution::Distribution;
use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{check_periods, check_range, push_error, FieldError, Period};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    #[serde(default = "default_workers")]
    pub workers: u32,
    /// Seconds.
    pub service_time: Distribution,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slowdowns: Vec<Slowdown>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<Period>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Lifecycle>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    #[serde(default)]
    pub max_retries: u32,
    #[serde(default, skip_serializing_if = "is_retry")]
    pub on_timeout: OnTimeout,
}

/// What an execution time-out does with the job it cuts off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// Try again at once on the same worker.
    #[default]
    Retry,
    /// Free the worker; the job goes back to its job queue.
    Requeue,
}

fn is_retry(o: &OnTimeout) -> bool {
    *o == OnTimeout::Retry
}

fn default_workers() -> u32 {
    1
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slowdown {
    pub from_s: f64,
    pub to_s: f64,
    /// Service times are multiplied by this (2: twice as slow).
    pub factor: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lifecycle {
    /// Seconds from the start until the consumer is operational.
    #[serde(default)]
    pub initializing_s: f64,
    /// When it starts shutting down, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shutdown_at_s: Option<f64>,
    /// Seconds from the start after which an actor still initializing
    /// gives up and shuts down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_timeout_s: Option<f64>,
    /// The consumer that owns this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supervisor: Option<String>,
}

/// The most workers one consumer may have.
pub const MAX_WORKERS: u32 = 100_000;

impl ConsumerSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.workers == 0 || self.workers > MAX_WORKERS {
            push_error(errors, format!("{path}.workers"), format!("must be between 1 and {MAX_WORKERS}, got {}", self.workers));
        }
        self.service_time.validate(&format!("{path}.service_time"), 0.0, 1e6, errors);
        check_periods(errors, &format!("{path}.slowdowns"), self.slowdowns.iter().map(|s| (s.from_s, s.to_s)));
        for (i, s) in self.slowdowns.iter().enumerate() {
            check_range(errors, format!("{path}.slowdowns[{i}].factor"), s.factor, 1e-3, 1e6);
        }
        check_periods(errors, &format!("{path}.outages"), self.outages.iter().map(|p| (p.from_s, p.to_s)));
        if let Some(l) = &self.lifecycle {
            check_range(errors, format!("{path}.lifecycle.initializing_s"), l.initializing_s, 0.0, 1e9);
            if let Some(at) = l.shutdown_at_s {
                check_range(errors, format!("{path}.lifecycle.shutdown_at_s"), at, 0.0, 1e9);
                if at < l.initializing_s {
                    push_error(errors, format!("{path}.lifecycle.shutdown_at_s"), "must not come before initializing_s");
                }
            }
            if let Some(t) = l.init_timeout_s {
                check_range(errors, format!("{path}.lifecycle.init_timeout_s"), t, 0.0, 1e9);
            }
        }
        if let Some(t) = self.timeout_s {
            check_range(errors, format!("{path}.timeout_s"), t, 1e-9, 1e6);
        }
        if self.max_retries > 1000 {
            push_error(errors, format!("{path}.max_retries"), "must be at most 1000");
        }
        if self.on_timeout == OnTimeout::Requeue && self.max_retries > u8::MAX as u32 {
            push_error(errors, format!("{path}.max_retries"), "must be at most 255 when a timed-out job is requeued");
        }
    }
}

impl ConsumerSpec {
    /// Its number field at `steps` (a slider's, a sweep's).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("workers")] => Some(NumberField::Whole32(&mut self.workers)),
            [Step::Key("service_time"), rest @ ..] => self.service_time.number_mut(rest),
            [Step::Key("timeout_s")] => Some(NumberField::MaybeReal(&mut self.timeout_s)),
            [Step::Key("max_retries")] => Some(NumberField::Whole32(&mut self.max_retries)),
            [Step::Key("slowdowns"), Step::Index(i), rest @ ..] => {
                let slowdown = self.slowdowns.get_mut(*i)?;
                match rest {
                    [Step::Key("from_s")] => Some(NumberField::Real(&mut slowdown.from_s)),
                    [Step::Key("to_s")] => Some(NumberField::Real(&mut slowdown.to_s)),
                    [Step::Key("factor")] => Some(NumberField::Real(&mut slowdown.factor)),
                    _ => None,
                }
            }
            [Step::Key("outages"), Step::Index(i), rest @ ..] => self.outages.get_mut(*i)?.number_mut(rest),
            // A lifecycle's times, when it has one (setting one does not
            // make a lifecycle).
            [Step::Key("lifecycle"), rest @ ..] => {
                let lifecycle = self.lifecycle.as_mut()?;
                match rest {
                    [Step::Key("initializing_s")] => Some(NumberField::Real(&mut lifecycle.initializing_s)),
                    [Step::Key("shutdown_at_s")] => Some(NumberField::MaybeReal(&mut lifecycle.shutdown_at_s)),
                    [Step::Key("init_timeout_s")] => Some(NumberField::MaybeReal(&mut lifecycle.init_timeout_s)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
