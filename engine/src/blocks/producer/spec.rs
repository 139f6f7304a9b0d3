//! A producer as the scenario file writes it: its arrivals, its message
//! classes, what it does when refused or told to pause, and the checks
//! each field must pass (every error names its field).

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::distribution::Distribution;
use crate::plumbing::validate::{check_range, push_error, FieldError};

use crate::arrivals::Arrivals;
use super::retry::Retries;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    pub arrivals: Arrivals,
    #[serde(default = "default_classes")]
    pub classes: Vec<MessageClass>,
    #[serde(default)]
    pub on_refused: OnRefused,
    #[serde(default = "default_retry_after")]
    pub retry_after_s: f64,
    #[serde(default)]
    pub backpressure: Backpressure,
    /// The consumer this producer is linked to (rotor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linked_to: Option<String>,
    /// How many clients' keys its messages spread over, each message's
    /// drawn at random (`k1` to `kN`), for limiters that keep their state
    /// per key. Without it, every message carries no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<u32>,
    /// Seconds a client waits for the answer to a request, from the
    /// instant the request is made, before it gives up on it. Without it,
    /// a client waits for ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// What the server does with a request whose client gave up.
    #[serde(default, skip_serializing_if = "is_work_on")]
    pub on_timeout: OnGiveUp,
    /// When its clients try a request again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<Retries>,
}

/// What the server does with a request whose client gave up waiting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnGiveUp {
    /// Nobody tells it: it serves the request as if the client still
    /// waited, and the answer goes nowhere (a plain HTTP/1.1 server).
    #[default]
    WorkOn,
    /// The client's cancellation reaches it (a closed connection it
    /// checks, gRPC's cancellation): a request still waiting is dropped
    /// before any work is spent on it, one in service is stopped.
    Cancel,
}

fn is_work_on(o: &OnGiveUp) -> bool {
    *o == OnGiveUp::WorkOn
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageClass {
    pub name: String,
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Bytes.
    #[serde(default = "default_size")]
    pub size: Distribution,
    #[serde(default)]
    pub droppable: bool,
    /// Priority queues serve lower numbers first.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub priority: u8,
    /// The node this class is addressed to (routers and per-destination
    /// windows read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnRefused {
    #[default]
    Pause,
    Drop,
    Retry,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backpressure {
    #[default]
    Pause,
    Ignore,
    Drop,
}

fn default_classes() -> Vec<MessageClass> {
    vec![MessageClass {
        name: "message".into(),
        weight: 1.0,
        size: default_size(),
        droppable: false,
        priority: 0,
        destination: None,
    }]
}
fn default_weight() -> f64 {
    1.0
}
fn default_size() -> Distribution {
    Distribution::Fixed { value: 1000.0 }
}
fn default_retry_after() -> f64 {
    0.1
}

/// The largest message size a scenario may ask for: 1 GiB.
pub const MAX_MESSAGE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

impl ProducerSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        self.arrivals.validate(&format!("{path}.arrivals"), errors);
        if self.classes.is_empty() {
            push_error(errors, format!("{path}.classes"), "a producer needs at least one message class");
        }
        if self.classes.len() > u16::MAX as usize {
            push_error(errors, format!("{path}.classes"), "too many classes");
        }
        for (i, class) in self.classes.iter().enumerate() {
            let cpath = format!("{path}.classes[{i}]");
            if class.name.is_empty() || class.name.len() > 64 {
                push_error(errors, format!("{cpath}.name"), "must be 1 to 64 characters");
            }
            check_range(errors, format!("{cpath}.weight"), class.weight, 0.0, 1e9);
            if class.weight == 0.0 {
                push_error(errors, format!("{cpath}.weight"), "must be greater than 0");
            }
            class.size.validate(&format!("{cpath}.size"), 1.0, MAX_MESSAGE_BYTES, errors);
        }
        check_range(errors, format!("{path}.retry_after_s"), self.retry_after_s, 1e-6, 3600.0);
        if let Some(t) = self.timeout_s {
            check_range(errors, format!("{path}.timeout_s"), t, 1e-6, 86_400.0);
        }
        if let Some(retries) = &self.retries {
            retries.validate(&format!("{path}.retries"), errors);
        }
        if let Some(keys) = self.keys {
            if !(1..=MAX_KEYS).contains(&keys) {
                push_error(errors, format!("{path}.keys"), format!("must be from 1 to {}", crate::plumbing::numbers::thousands(f64::from(MAX_KEYS))));
            }
        }
    }
}

/// The most keys a producer's messages spread over.
pub const MAX_KEYS: u32 = 1_000_000;

impl ProducerSpec {
    /// Its number field at `steps` (a slider's, a sweep's): the arrival
    /// process's, the retry delay, or a class's weight, size or priority.
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("arrivals"), rest @ ..] => self.arrivals.number_mut(rest),
            [Step::Key("retry_after_s")] => Some(NumberField::Real(&mut self.retry_after_s)),
            [Step::Key("keys")] => Some(NumberField::MaybeWhole32(&mut self.keys)),
            [Step::Key("timeout_s")] => Some(NumberField::MaybeReal(&mut self.timeout_s)),
            [Step::Key("retries"), rest @ ..] => self.retries.as_mut()?.number_mut(rest),
            [Step::Key("classes"), Step::Index(i), rest @ ..] => {
                let class = self.classes.get_mut(*i)?;
                match rest {
                    [Step::Key("weight")] => Some(NumberField::Real(&mut class.weight)),
                    [Step::Key("priority")] => Some(NumberField::Whole8(&mut class.priority)),
                    [Step::Key("size"), rest @ ..] => class.size.number_mut(rest),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
