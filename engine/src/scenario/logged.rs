//! A producer made of a replayed log (`replay::Replay`): what dropping an
//! access log on the page makes, a `trace` whose messages carry the log's
//! keys and service times.
//!
//! Guarantees: the lists hold the log's lines in run order, each instant
//! in seconds from the log's first whole second, each key by its number in
//! `key_names` (0 for none), each service time as logged; the producer they
//! make is valid (its trace checked as any other) and serves its messages
//! for the times they took in the log when the log gave them.

use std::sync::Arc;

use crate::replay::Replay;

use super::{default_block, Arrivals, BlockSpec, Kind, ServiceTimes, TraceKeys};

/// A log's lines as plain lists, which a worker hands to the page whole
/// (as typed arrays, without a text round trip).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogLists {
    pub times_s: Vec<f64>,
    /// The distinct keys; key number `k` is `key_names[k - 1]`.
    pub key_names: Vec<String>,
    /// Each line's key number, 0 for none; empty when no line had a key.
    pub keys: Vec<u32>,
    /// Each line's service time; empty when the log gave none.
    pub service_s: Vec<f64>,
}

impl LogLists {
    pub fn of(replay: &Replay) -> LogLists {
        let has_keys = !replay.names.is_empty();
        LogLists {
            times_s: replay.at.iter().map(|t| t.as_secs_f64()).collect(),
            key_names: (1..=replay.names.len() as u32).map(|k| replay.names.name(k).to_string()).collect(),
            keys: if has_keys { replay.keys.clone() } else { Vec::new() },
            service_s: replay.service.iter().map(|d| d.as_secs_f64()).collect(),
        }
    }

    /// A producer replaying the lists: the defaults of a new producer,
    /// its arrivals the trace; its messages served as logged when the log
    /// gave service times. Refused, naming the field, when the lists do
    /// not make a valid trace (too many lines, keys that name nothing).
    pub fn producer(self) -> Result<BlockSpec, String> {
        let keys = TraceKeys::new(self.key_names, self.keys).ok_or("a line's key number names no key")?;
        let service_times = if self.service_s.is_empty() { ServiceTimes::Scenario } else { ServiceTimes::Log };
        let arrivals = Arrivals::Trace { times_s: Arc::new(self.times_s), keys: Arc::new(keys), service_s: Arc::new(self.service_s), service_times };
        let mut block = default_block(Kind::Producer);
        if let BlockSpec::Producer(p) = &mut block {
            p.arrivals = arrivals;
        }
        let mut errors = Vec::new();
        block.validate("producer", &mut errors);
        match errors.first() {
            Some(e) => Err(e.to_string()),
            None => Ok(block),
        }
    }
}

/// What reading a log off the page's thread says, as the page's worker
/// protocol writes it. The lists of a log read follow this report as typed
/// arrays (`times_s`, `keys`, `service_s`), not as text.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "log", rename_all = "snake_case")]
pub enum LogReport {
    /// So many bytes of the file read, of `of`.
    Reading { bytes: u64, of: u64 },
    /// The log read: its format, its lines, its distinct keys (key number
    /// `k` is `key_names[k - 1]`), whether it gave service times, and the
    /// lines it sorted (a log written as each request ends).
    Read { format: String, lines: u64, key_names: Vec<String>, service: bool, reordered: Option<String> },
    /// Why it was not read.
    Failed { why: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_becomes_a_producer_whose_trace_keeps_its_lines() {
        let replay = Replay::read("10.5,a,0.2\n10.25,,0.1\n12,a,1\n".as_bytes()).unwrap();
        let lists = LogLists::of(&replay);
        assert_eq!(lists.times_s, [0.25, 0.5, 2.0], "sorted, from the first whole second");
        assert_eq!((lists.key_names.clone(), lists.keys.clone()), (vec!["a".to_string()], vec![0, 1, 1]));
        assert_eq!(lists.service_s, [0.1, 0.2, 1.0]);
        let BlockSpec::Producer(p) = lists.producer().unwrap() else { panic!() };
        let json = serde_json::to_value(&p.arrivals).unwrap();
        assert_eq!(json, serde_json::json!({"process": "trace", "times_s": [0.25, 0.5, 2.0], "keys": ["", "a", "a"], "service_s": [0.1, 0.2, 1.0], "service_times": "log"}));
        let plain = LogLists::of(&Replay::read("1\n2\n".as_bytes()).unwrap());
        let BlockSpec::Producer(p) = plain.producer().unwrap() else { panic!() };
        assert_eq!(serde_json::to_value(&p.arrivals).unwrap(), serde_json::json!({"process": "trace", "times_s": [0.0, 1.0]}));
        let bad = LogLists { times_s: vec![0.0], key_names: vec![], keys: vec![3], service_s: vec![] };
        assert!(bad.producer().unwrap_err().contains("names no key"));
    }
}
