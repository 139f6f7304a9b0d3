//! A dispatcher as the scenario file writes it: its workers, demand
//! queues, discipline, agents and netsendq's windows and hosts, and the
//! checks each field must pass (every error names its field).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::blocks::consumer::ConsumerSpec;
use crate::distribution::Distribution;
use crate::buffer::Order;
use crate::plumbing::validate::{check_range, push_error, FieldError};
use crate::priorities::MessagePriority;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatcherSpec {
    #[serde(default = "one")]
    pub workers: u32,
    /// Seconds per demand (for `netsendq`: per send).
    pub service_time: Distribution,
    #[serde(default)]
    pub queues: QueueKey,
    #[serde(default)]
    pub discipline: Discipline,
    #[serde(default)]
    pub order: Order,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_priorities: Vec<MessagePriority>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub queue_priorities: BTreeMap<String, u8>,
    #[serde(default)]
    pub capacity: u64,
    #[serde(default)]
    pub on_full: DemandOnFull,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_s: Option<f64>,
    #[serde(default)]
    pub iteration: Iteration,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub register_once: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub windows: BTreeMap<String, u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_shot: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queueable_if_down: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts_down: Vec<HostDown>,
    /// Who a demand belongs to (round_robin and priority).
    #[serde(default, skip_serializing_if = "is_default")]
    pub agents: Agents,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// Whose demand a message is: the agent that must not run two at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agents {
    /// The message's destination; a message addressed to no one belongs to
    /// its demand queue where a queue is an agent's (`per_input`: its
    /// sender's; `per_destination`, `shared`), and to one agent, the
    /// dispatcher's, where it is not (`per_class`: a class is not an agent).
    #[default]
    ByDestination,
    /// Each demand queue is one agent, whatever the destination (with
    /// `per_class`: one agent, one handler, per message type).
    PerQueue,
    /// Demands are independent (thread-safe handlers, as SObjectizer's
    /// adv_thread_pool runs them): any worker may take any demand.
    Independent,
}

fn one() -> u32 {
    1
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueKey {
    #[default]
    PerInput,
    PerDestination,
    PerClass,
    Shared,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    #[default]
    RoundRobin,
    Priority,
    EventLoop,
    Alternate,
    Netsendq,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DemandOnFull {
    DropOldest,
    #[default]
    DropNewest,
    Refuse,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Iteration {
    #[default]
    Snapshot,
    All,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostDown {
    pub host: String,
    pub from_s: f64,
    pub to_s: f64,
}

impl DispatcherSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.workers == 0 || self.workers > 100_000 {
            push_error(errors, format!("{path}.workers"), "must be between 1 and 100000");
        }
        self.service_time.validate(&format!("{path}.service_time"), 0.0, 1e6, errors);
        if self.capacity > 1 << 40 {
            push_error(errors, format!("{path}.capacity"), "must be at most 2^40");
        }
        if let Some(t) = self.ttl_s {
            check_range(errors, format!("{path}.ttl_s"), t, 1e-9, 1e6);
        }
        for (class, w) in &self.windows {
            if *w == 0 {
                push_error(errors, format!("{path}.windows.{class}"), "a window of 0 sends nothing of that class");
            }
        }
        let netsendq_only = [
            ("windows", !self.windows.is_empty()),
            ("one_shot", !self.one_shot.is_empty()),
            ("queueable_if_down", !self.queueable_if_down.is_empty()),
            ("hosts_down", !self.hosts_down.is_empty()),
        ];
        if self.register_once && self.discipline == Discipline::Netsendq {
            push_error(errors, format!("{path}.register_once"), "does not apply to the netsendq discipline, whose every RPC is sent");
        }
        for (field, set) in netsendq_only {
            if set && self.discipline != Discipline::Netsendq {
                push_error(errors, format!("{path}.{field}"), "applies only to the netsendq discipline");
            }
        }
        // Each host's periods in order and apart, as every schedule's are;
        // hosts may interleave in the list.
        let mut last_end: BTreeMap<&str, f64> = BTreeMap::new();
        for (i, d) in self.hosts_down.iter().enumerate() {
            check_range(errors, format!("{path}.hosts_down[{i}].from_s"), d.from_s, 0.0, 1e9);
            check_range(errors, format!("{path}.hosts_down[{i}].to_s"), d.to_s, 0.0, 1e9);
            if d.to_s <= d.from_s {
                push_error(errors, format!("{path}.hosts_down[{i}].to_s"), "must be after from_s");
            }
            let end = last_end.entry(d.host.as_str()).or_insert(f64::NEG_INFINITY);
            if d.from_s < *end {
                push_error(
                    errors,
                    format!("{path}.hosts_down[{i}].from_s"),
                    format!("{}'s periods must be in order and not overlap", crate::plumbing::printable::quoted(&d.host)),
                );
            }
            *end = end.max(d.to_s);
        }
    }

    /// The worker pool as a consumer.
    pub fn workers_spec(&self) -> ConsumerSpec {
        ConsumerSpec {
            workers: self.workers,
            service_time: self.service_time.clone(),
            slowdowns: Vec::new(),
            outages: Vec::new(),
            lifecycle: None,
            timeout_s: None,
            max_retries: 0,
            on_timeout: Default::default(),
        }
    }
}

impl DispatcherSpec {
    /// Its number field at `steps` (a slider's, a sweep's), a queue's
    /// priority or a class's window among them (`windows.bulk`).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("workers")] => Some(NumberField::Whole32(&mut self.workers)),
            [Step::Key("service_time"), rest @ ..] => self.service_time.number_mut(rest),
            [Step::Key("capacity")] => Some(NumberField::Whole64(&mut self.capacity)),
            [Step::Key("ttl_s")] => Some(NumberField::MaybeReal(&mut self.ttl_s)),
            // A map's key may be digits alone, read as a position.
            [Step::Key("queue_priorities"), key] => self.queue_priorities.get_mut(&map_key(key)).map(NumberField::Whole8),
            [Step::Key("windows"), key] => self.windows.get_mut(&map_key(key)).map(NumberField::Whole64),
            [Step::Key("message_priorities"), Step::Index(i), Step::Key("priority")] => {
                self.message_priorities.get_mut(*i).map(|p| NumberField::Whole8(&mut p.priority))
            }
            [Step::Key("hosts_down"), Step::Index(i), rest @ ..] => {
                let down = self.hosts_down.get_mut(*i)?;
                match rest {
                    [Step::Key("from_s")] => Some(NumberField::Real(&mut down.from_s)),
                    [Step::Key("to_s")] => Some(NumberField::Real(&mut down.to_s)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The key of a map a path's step names.
fn map_key(step: &Step) -> String {
    match step {
        Step::Key(key) => key.to_string(),
        Step::Index(i) => i.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(fields: serde_json::Value) -> DispatcherSpec {
        let mut fields = fields;
        fields["service_time"] = serde_json::json!({"dist": "fixed", "value": 1.0});
        serde_json::from_value(fields).unwrap()
    }

    /// A scenario written back leaves `agents` out when it is the default,
    /// and keeps any other, which reads back the same.
    #[test]
    fn agents_are_written_only_when_not_the_default_and_read_back_the_same() {
        let default = serde_json::to_value(read(serde_json::json!({}))).unwrap();
        assert_eq!(default.get("agents"), None, "{default}");
        for agents in ["per_queue", "independent"] {
            let spec = read(serde_json::json!({"agents": agents}));
            let written = serde_json::to_value(&spec).unwrap();
            assert_eq!(written["agents"], agents);
            assert_eq!(serde_json::from_value::<DispatcherSpec>(written).unwrap(), spec);
        }
    }
}
