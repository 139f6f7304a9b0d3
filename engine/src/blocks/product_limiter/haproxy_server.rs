//! HAProxy's server concurrency limit: a backend of one server with
//! `maxconn`, `maxqueue` and `timeout queue`, transcribed from HAProxy 2.6
//! (`src/backend.c`, `assign_server_and_queue` and `back_handle_st_que`;
//! `src/queue.c`, `pendconn_add` and `process_srv_queue`; `src/lb_fwrr.c`
//! for the round robin's test of a full server; tag `v2.6.0`, the same
//! code as Debian 12's 2.6.12).
//!
//! Guarantees, as HAProxy decides:
//! - At most `maxconn` requests are served at once (0: no limit). A
//!   request finds a place when fewer are served and nobody waits; then
//!   it passes at once.
//! - Otherwise it waits in a queue, first come first served, and takes
//!   the place of the first request that finishes (a consumer completed
//!   it, or it was dropped further on).
//! - Which queue: with `balance roundrobin` (HAProxy's default, and every
//!   balance that checks a server is full first: `static-rr`, `first`,
//!   `random`, `leastconn`), a full server is skipped and the request
//!   waits in the backend's queue, which **`maxqueue` does not bound**:
//!   nothing is refused at arrival. With `balance hash` (any hash, or a
//!   persistence cookie: the server is chosen without looking at its
//!   load), it waits in the server's own queue, and is refused at once
//!   (503, `SQ--` in HAProxy's log) when `maxqueue` wait there already
//!   (`maxqueue 0`: no bound).
//! - `timeout queue`: a request that waited that long is refused (503,
//!   `sQ--`), at the first millisecond of HAProxy's clock at or past its
//!   arrival's millisecond plus the timeout. HAProxy looks at a place
//!   before the clock, and so does the limiter when it is woken: a place
//!   freed earlier in that instant wins; one freed by an event of the same
//!   instant that comes after the deadline's does not. Unset,
//!   it waits as long as it takes (HAProxy then takes `timeout connect`;
//!   set that as the timeout here).
//!
//! Not modelled: several servers, `minconn`/`fullconn` (dynamic limits),
//! `slowstart`, priority classes (`set-priority-class`), `option
//! redispatch`, the frontend's and the process's `maxconn` (connections
//! left in the kernel's backlog), several threads.

use serde::{Deserialize, Serialize};

use super::haproxy::{duration_text, MAX_MS};
use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{is_whole_ms, push_error, FieldError};
use crate::time::SimTime;

/// How the backend chooses its server, as far as the queue goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Balance {
    /// A full server is skipped: the backend's queue, unbounded.
    #[default]
    Roundrobin,
    /// The server is chosen whatever its load: its own queue, `maxqueue`.
    Hash,
}

/// One server's `maxconn`, `maxqueue`, the backend's `timeout queue`
/// and `balance`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HaproxyServerSpec {
    /// `server ... maxconn N`: requests served at once (0: no limit).
    pub maxconn: u32,
    /// `server ... maxqueue N`: requests waiting in the server's queue
    /// (0: no bound; no effect with `roundrobin`).
    #[serde(default)]
    pub maxqueue: u32,
    /// `timeout queue`, in seconds (whole milliseconds); unset: no limit.
    #[serde(default)]
    pub timeout_queue_s: Option<f64>,
    #[serde(default)]
    pub balance: Balance,
}

impl HaproxyServerSpec {
    /// `maxconn N`, queueing in the backend for as long as it takes.
    pub fn of(maxconn: u32) -> HaproxyServerSpec {
        HaproxyServerSpec { maxconn, maxqueue: 0, timeout_queue_s: None, balance: Balance::Roundrobin }
    }

    /// `timeout queue` in milliseconds.
    pub fn timeout_queue_ms(&self) -> Option<u64> {
        self.timeout_queue_s.map(|s| (s * 1000.0).round().max(0.0) as u64)
    }

    /// In a few words: `haproxy maxconn 10 maxqueue 5 queue 2s`.
    pub fn summary(&self) -> String {
        let mut text = format!("haproxy maxconn {}", self.maxconn);
        if self.maxqueue > 0 {
            text.push_str(&format!(" maxqueue {}", self.maxqueue));
        }
        if let Some(ms) = self.timeout_queue_ms() {
            text.push_str(&format!(" queue {}", duration_text(ms)));
        }
        if self.balance == Balance::Hash {
            text.push_str(" hash");
        }
        text
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.maxconn > 1 << 30 {
            push_error(errors, format!("{path}.maxconn"), "must be at most 2^30 (0: no limit)");
        }
        if self.maxqueue > 1 << 30 {
            push_error(errors, format!("{path}.maxqueue"), "must be at most 2^30 (0: no bound)");
        }
        if let Some(s) = self.timeout_queue_s {
            if !is_whole_ms(s) || !(0.001..=MAX_MS as f64 / 1000.0).contains(&s) {
                push_error(errors, format!("{path}.timeout_queue_s"), "must be whole milliseconds, from 0.001 s to about 24 days (2^31 − 1 ms), or unset");
            }
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("maxconn")] => Some(NumberField::Whole32(&mut self.maxconn)),
            [Step::Key("maxqueue")] => Some(NumberField::Whole32(&mut self.maxqueue)),
            [Step::Key("timeout_queue_s")] => Some(NumberField::MaybeReal(&mut self.timeout_queue_s)),
            _ => None,
        }
    }

    /// When a request that began to wait at `met` is refused for waiting
    /// too long, if ever: the millisecond of its arrival plus the timeout.
    pub fn deadline(&self, met: SimTime) -> Option<SimTime> {
        let ms = self.timeout_queue_ms()?;
        Some(SimTime::from_nanos((met.as_nanos() / 1_000_000).saturating_add(ms).saturating_mul(1_000_000)))
    }
}

/// What the server decided for a request at arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A place now.
    Pass,
    /// Waits in the queue.
    Queue,
    /// The server's queue is full: 503 at once.
    Full,
}

/// The requests the server serves.
#[derive(Clone, Default)]
pub struct Server {
    served: u64,
}

impl Server {
    pub fn served(&self) -> u64 {
        self.served
    }

    fn has_room(&self, spec: &HaproxyServerSpec) -> bool {
        spec.maxconn == 0 || self.served < u64::from(spec.maxconn)
    }

    /// Decides a request arriving while `waiting` wait.
    pub fn decide(&mut self, spec: &HaproxyServerSpec, waiting: usize) -> Verdict {
        if waiting == 0 && self.has_room(spec) {
            self.served += 1;
            return Verdict::Pass;
        }
        match spec.balance {
            Balance::Hash if spec.maxqueue > 0 && waiting >= spec.maxqueue as usize => Verdict::Full,
            _ => Verdict::Queue,
        }
    }

    /// Gives the first waiting request a place, if there is one.
    pub fn grant(&mut self, spec: &HaproxyServerSpec) -> bool {
        let room = self.has_room(spec);
        if room {
            self.served += 1;
        }
        room
    }

    /// A request served finished.
    pub fn finished(&mut self) {
        self.served = self.served.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundrobin_queues_whatever_maxqueue_says_and_hash_refuses_past_it() {
        let mut spec = HaproxyServerSpec::of(1);
        spec.maxqueue = 1;
        let mut s = Server::default();
        assert_eq!(s.decide(&spec, 0), Verdict::Pass);
        assert_eq!(s.decide(&spec, 0), Verdict::Queue);
        assert_eq!(s.decide(&spec, 1), Verdict::Queue, "roundrobin: maxqueue has no effect");
        spec.balance = Balance::Hash;
        assert_eq!(s.decide(&spec, 1), Verdict::Full, "hash: the server's queue holds maxqueue");
        assert!(!s.grant(&spec));
        s.finished();
        assert!(s.grant(&spec), "a finished request gives its place to the first waiting");
        assert_eq!(s.served(), 1);
    }

    #[test]
    fn nobody_passes_ahead_of_a_waiting_request_and_maxconn_0_is_no_limit() {
        let spec = HaproxyServerSpec::of(2);
        let mut s = Server::default();
        assert_eq!(s.decide(&spec, 0), Verdict::Pass);
        assert_eq!(s.decide(&spec, 3), Verdict::Queue, "room, but others wait first");
        let mut s = Server::default();
        let free = HaproxyServerSpec::of(0);
        assert!((0..10_000).all(|_| s.decide(&free, 0) == Verdict::Pass));
    }

    fn refused(spec: &HaproxyServerSpec) -> Vec<String> {
        super::super::refused_fields(|path, errors| spec.validate(path, errors))
    }

    #[test]
    fn its_limits_are_taken_to_their_edges_and_refused_past_them() {
        let mut spec = HaproxyServerSpec::of(1 << 30);
        spec.maxqueue = 1 << 30;
        assert!(refused(&spec).is_empty());
        spec.maxconn = (1 << 30) + 1;
        assert_eq!(refused(&spec), ["n.maxconn"]);
        spec.maxconn = 1;
        spec.maxqueue = (1 << 30) + 1;
        assert_eq!(refused(&spec), ["n.maxqueue"]);
        spec.maxqueue = 0;
        // Whole milliseconds, from one to 2^31 − 1: each rule alone refuses.
        let most = MAX_MS as f64 / 1000.0;
        for (s, taken) in [(0.001, true), (most, true), (2.5, true), (0.0, false), (0.0005, false), (0.0015, false), (most + 0.001, false), (-1.0, false)] {
            spec.timeout_queue_s = Some(s);
            assert_eq!(refused(&spec).is_empty(), taken, "timeout queue {s} s");
        }
    }

    #[test]
    fn its_numbers_are_set_in_place_the_timeout_too_when_unset() {
        let mut spec = HaproxyServerSpec::of(3);
        // Unset, like every optional number: it reads none, and a value
        // set there sets it (a sweep of it from a server without one).
        let field = spec.number_mut(&[Step::Key("timeout_queue_s")]).expect("the timeout, unset");
        assert_eq!(field.get(), None);
        field.set(2.0).unwrap();
        assert_eq!(spec.timeout_queue_s, Some(2.0));
        let field = spec.number_mut(&[Step::Key("timeout_queue_s")]).expect("the timeout, set");
        assert_eq!(field.get(), Some(2.0));
        field.set(0.25).unwrap();
        assert_eq!(spec.timeout_queue_s, Some(0.25));
        assert_eq!(spec.number_mut(&[Step::Key("maxqueue")]).and_then(|f| f.get()), Some(0.0));
    }

    #[test]
    fn it_counts_what_it_serves_and_hash_with_maxqueue_0_refuses_nothing() {
        let mut spec = HaproxyServerSpec::of(3);
        let mut s = Server::default();
        for _ in 0..3 {
            assert_eq!(s.decide(&spec, 0), Verdict::Pass);
        }
        assert_eq!(s.served(), 3);
        spec.balance = Balance::Hash;
        assert!((0..1000).all(|waiting| s.decide(&spec, waiting) == Verdict::Queue), "maxqueue 0: no bound");
        assert_eq!(spec.summary(), "haproxy maxconn 3 hash");
        spec.maxqueue = 5;
        assert_eq!(spec.summary(), "haproxy maxconn 3 maxqueue 5 hash");
    }

    #[test]
    fn the_deadline_is_the_arrival_millisecond_plus_the_timeout() {
        let mut spec = HaproxyServerSpec::of(1);
        assert_eq!(spec.deadline(SimTime::from_secs_f64(1.0)), None);
        spec.timeout_queue_s = Some(2.0);
        assert_eq!(spec.deadline(SimTime::from_nanos(1_000_999_999)), Some(SimTime::from_nanos(3_000_000_000)));
        assert_eq!(spec.summary(), "haproxy maxconn 1 queue 2s");
    }
}
