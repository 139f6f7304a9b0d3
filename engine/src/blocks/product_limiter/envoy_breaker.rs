//! Envoy's cluster circuit breaker (`circuit_breakers.thresholds` of a
//! cluster, `max_connections`, `max_pending_requests`, `max_requests`)
//! as the upstream connection pool applies it, transcribed from Envoy's
//! `source/common/conn_pool/conn_pool_base.cc` (`newStreamImpl`,
//! `tryCreateNewConnection`, `attachStreamToClient`,
//! `onUpstreamReady`; 1.28 to 1.31) and `source/common/upstream/
//! resource_manager_impl.h`. Transcribed from the sources; no Envoy runs
//! here to hold it to.
//!
//! Guarantees, as Envoy decides (one worker, one upstream host, the
//! `DEFAULT` priority):
//! - HTTP/1.1 (`http1`): a connection carries one request at a time and
//!   stays open for the next. A request takes an idle connection if there
//!   is one. Otherwise it is refused at once (503, `UO`) when
//!   `max_pending_requests` already wait; else it waits, first come first
//!   served, and a connection is opened for the first waiting request if
//!   fewer than `max_connections` are open (the pool's first connection is
//!   opened even past it: 0 means 1). Connections open at once here.
//!   So with `max_pending_requests: 0`, a request that needs a new
//!   connection is refused though one could be opened.
//! - HTTP/2 (`http2`): one connection carries every request (Envoy's
//!   default of 2^31 − 1 streams), so nothing waits and
//!   `max_connections` and `max_pending_requests` change nothing; only
//!   `max_requests` bounds the requests at once.
//! - Whenever a request is given a connection (at once, or leaving the
//!   queue), it is refused (503, `UO`) if `max_requests` are already in
//!   progress. A request is in progress until it is finished (a consumer
//!   completed it, or it was dropped further on); then its connection is
//!   idle and takes the first waiting request.
//! - `timeout_s`: the route's timeout (15 s unless set; 0: none). A
//!   request still waiting for a connection that long is refused (504,
//!   `UT`). Here it bounds only the wait, not the service after it.
//!
//! Not modelled: the time to open a connection (a request waits for one in
//! Envoy; here it opens at once), a queue and pool per worker and per host
//! (the limits themselves are shared by the whole process), connections
//! closed by the upstream, retries (`max_retries`), and the `HIGH`
//! priority's thresholds.

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{is_whole_ms, push_error, FieldError};
use crate::time::{SimDuration, SimTime};

/// The upstream protocol, which decides what the thresholds mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// One request per connection at a time (Envoy's default upstream).
    #[default]
    Http1,
    /// Every request on one connection.
    Http2,
}

/// A cluster's `circuit_breakers` thresholds and its route's timeout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvoyCircuitBreakerSpec {
    /// Connections open to the upstream, at most (1024 unless set).
    #[serde(default = "default_max")]
    pub max_connections: u32,
    /// Requests waiting for a connection, at most (1024 unless set).
    #[serde(default = "default_max")]
    pub max_pending_requests: u32,
    /// Requests in progress upstream, at most (1024 unless set).
    #[serde(default = "default_max")]
    pub max_requests: u32,
    #[serde(default)]
    pub protocol: Protocol,
    /// The route's `timeout`, in seconds (15 unless set; 0: none).
    #[serde(default = "default_timeout")]
    pub timeout_s: f64,
}

fn default_max() -> u32 {
    1024
}

fn default_timeout() -> f64 {
    15.0
}

impl EnvoyCircuitBreakerSpec {
    /// Envoy's defaults (1024 of each, a 15 s route timeout, HTTP/1.1),
    /// with `max_connections` and `max_pending_requests` as given.
    pub fn of(max_connections: u32, max_pending_requests: u32) -> EnvoyCircuitBreakerSpec {
        EnvoyCircuitBreakerSpec { max_connections, max_pending_requests, max_requests: default_max(), protocol: Protocol::Http1, timeout_s: default_timeout() }
    }

    /// In a few words: `envoy cx 10 pending 5 rq 1024 http1`.
    pub fn summary(&self) -> String {
        let protocol = match self.protocol {
            Protocol::Http1 => "http1",
            Protocol::Http2 => "http2",
        };
        format!("envoy cx {} pending {} rq {} {protocol}", self.max_connections, self.max_pending_requests, self.max_requests)
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (name, v) in [("max_connections", self.max_connections), ("max_pending_requests", self.max_pending_requests), ("max_requests", self.max_requests)] {
            if v > 1 << 30 {
                push_error(errors, format!("{path}.{name}"), "must be at most 2^30");
            }
        }
        if !is_whole_ms(self.timeout_s) || !(0.0..=1e6).contains(&self.timeout_s) {
            push_error(errors, format!("{path}.timeout_s"), "must be whole milliseconds from 0 (no timeout) to 1,000,000 s");
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("max_connections")] => Some(NumberField::Whole32(&mut self.max_connections)),
            [Step::Key("max_pending_requests")] => Some(NumberField::Whole32(&mut self.max_pending_requests)),
            [Step::Key("max_requests")] => Some(NumberField::Whole32(&mut self.max_requests)),
            [Step::Key("timeout_s")] => Some(NumberField::Real(&mut self.timeout_s)),
            _ => None,
        }
    }

    /// When a request that began to wait at `met` times out, if ever.
    pub fn deadline(&self, met: SimTime) -> Option<SimTime> {
        (self.timeout_s > 0.0).then(|| met + SimDuration::from_secs_f64(self.timeout_s))
    }
}

/// What the pool decided for a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A connection now.
    Pass,
    /// Waits for a connection.
    Queue,
    /// Refused: 503 `UO`.
    Overflow,
}

/// The pool's connections and the requests in progress.
#[derive(Clone, Default)]
pub struct Pool {
    /// Connections open.
    cx: u64,
    /// Connections carrying a request (HTTP/1.1).
    busy: u64,
    /// Requests in progress.
    rq: u64,
}

impl Pool {
    pub fn requests(&self) -> u64 {
        self.rq
    }

    #[cfg(test)]
    pub fn connections(&self) -> u64 {
        self.cx
    }

    /// `attachStreamToClient`: the request goes on a connection, unless
    /// `max_requests` are in progress.
    fn attach(&mut self, spec: &EnvoyCircuitBreakerSpec) -> Verdict {
        if self.rq >= u64::from(spec.max_requests) {
            return Verdict::Overflow;
        }
        self.rq += 1;
        if spec.protocol == Protocol::Http1 {
            self.busy += 1;
        }
        Verdict::Pass
    }

    /// Decides a request arriving while `waiting` wait.
    pub fn decide(&mut self, spec: &EnvoyCircuitBreakerSpec, waiting: usize) -> Verdict {
        match spec.protocol {
            Protocol::Http2 => {
                self.cx = self.cx.max(1);
                self.attach(spec)
            }
            Protocol::Http1 if self.cx > self.busy => self.attach(spec),
            Protocol::Http1 if waiting >= spec.max_pending_requests as usize => Verdict::Overflow,
            Protocol::Http1 => Verdict::Queue,
        }
    }

    /// Gives the first waiting request a connection, if one is idle or may
    /// be opened: `Some(Pass)`, `Some(Overflow)` (`max_requests` reached),
    /// or `None` (it waits on).
    pub fn grant(&mut self, spec: &EnvoyCircuitBreakerSpec) -> Option<Verdict> {
        if spec.protocol == Protocol::Http2 {
            // Waiting from before a change to HTTP/2: one connection takes all.
            self.cx = self.cx.max(1);
        } else if self.cx <= self.busy {
            if self.cx >= u64::from(spec.max_connections) && self.cx > 0 {
                return None;
            }
            self.cx += 1;
        }
        Some(self.attach(spec))
    }

    /// A request in progress finished: its connection is idle.
    pub fn finished(&mut self, spec: &EnvoyCircuitBreakerSpec) {
        self.rq = self.rq.saturating_sub(1);
        if spec.protocol == Protocol::Http1 {
            self.busy = self.busy.saturating_sub(1);
        }
        // Busy connections carry requests in progress: after a change of
        // protocol, those that were busy under HTTP/1.1 free as they end.
        self.busy = self.busy.min(self.rq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http1_waits_for_a_connection_and_refuses_past_the_pending_bound() {
        let spec = EnvoyCircuitBreakerSpec::of(2, 1);
        let mut p = Pool::default();
        // The first request waits for the connection it opens, at once.
        assert_eq!(p.decide(&spec, 0), Verdict::Queue);
        assert_eq!(p.grant(&spec), Some(Verdict::Pass));
        assert_eq!(p.decide(&spec, 0), Verdict::Queue);
        assert_eq!(p.grant(&spec), Some(Verdict::Pass));
        assert_eq!(p.connections(), 2);
        assert_eq!(p.decide(&spec, 0), Verdict::Queue);
        assert_eq!(p.grant(&spec), None, "two connections open and busy: it waits");
        assert_eq!(p.decide(&spec, 1), Verdict::Overflow, "one waits already: 503");
        p.finished(&spec);
        assert_eq!(p.grant(&spec), Some(Verdict::Pass), "the idle connection takes the first waiting");
        p.finished(&spec);
        assert_eq!(p.decide(&spec, 0), Verdict::Pass, "an idle connection: at once");
        assert_eq!(p.connections(), 2);
    }

    #[test]
    fn no_pending_room_refuses_a_request_that_needs_a_new_connection_but_the_first_always_opens() {
        let spec = EnvoyCircuitBreakerSpec::of(0, 0);
        let mut p = Pool::default();
        assert_eq!(p.decide(&spec, 0), Verdict::Overflow, "max_pending_requests 0: nobody may wait for a connection");
        let spec = EnvoyCircuitBreakerSpec::of(0, 1);
        assert_eq!(p.decide(&spec, 0), Verdict::Queue);
        assert_eq!(p.grant(&spec), Some(Verdict::Pass), "the pool's first connection opens past max_connections");
        assert_eq!(p.decide(&spec, 0), Verdict::Queue);
        assert_eq!(p.grant(&spec), None);
    }

    fn refused(spec: &EnvoyCircuitBreakerSpec) -> Vec<String> {
        super::super::refused_fields(|path, errors| spec.validate(path, errors))
    }

    #[test]
    fn its_thresholds_and_timeout_are_taken_to_their_edges_and_refused_past_them() {
        let mut spec = EnvoyCircuitBreakerSpec::of(1 << 30, 1 << 30);
        spec.max_requests = 1 << 30;
        assert!(refused(&spec).is_empty());
        spec.max_connections = (1 << 30) + 1;
        spec.max_requests = (1 << 30) + 1;
        assert_eq!(refused(&spec), ["n.max_connections", "n.max_requests"]);
        let mut spec = EnvoyCircuitBreakerSpec::of(1, 1);
        spec.max_pending_requests = (1 << 30) + 1;
        assert_eq!(refused(&spec), ["n.max_pending_requests"]);
        // Whole milliseconds from 0 to 1,000,000 s: each rule alone refuses.
        for (s, taken) in [(0.0, true), (1e6, true), (0.001, true), (-0.001, false), (1e6 + 0.001, false), (0.0005, false), (f64::INFINITY, false)] {
            spec.max_pending_requests = 1;
            spec.timeout_s = s;
            assert_eq!(refused(&spec).is_empty(), taken, "timeout {s} s");
        }
    }

    #[test]
    fn read_without_them_it_has_envoys_defaults_and_says_so_in_a_few_words() {
        let spec: EnvoyCircuitBreakerSpec = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!((spec.max_connections, spec.max_pending_requests, spec.max_requests, spec.timeout_s), (1024, 1024, 1024, 15.0));
        assert_eq!(spec.summary(), "envoy cx 1024 pending 1024 rq 1024 http1");
        let mut two = EnvoyCircuitBreakerSpec::of(10, 5);
        two.protocol = Protocol::Http2;
        assert_eq!(two.summary(), "envoy cx 10 pending 5 rq 1024 http2");
    }

    #[test]
    fn it_counts_the_requests_in_progress() {
        let mut spec = EnvoyCircuitBreakerSpec::of(10, 10);
        spec.protocol = Protocol::Http2;
        let mut p = Pool::default();
        assert_eq!((p.decide(&spec, 0), p.decide(&spec, 0)), (Verdict::Pass, Verdict::Pass));
        assert_eq!(p.requests(), 2);
        p.finished(&spec);
        assert_eq!(p.requests(), 1);
    }

    #[test]
    fn max_requests_refuses_at_the_connection_and_http2_knows_no_other_bound() {
        let mut spec = EnvoyCircuitBreakerSpec::of(10, 10);
        spec.max_requests = 1;
        let mut p = Pool::default();
        assert_eq!(p.decide(&spec, 0), Verdict::Queue);
        assert_eq!(p.grant(&spec), Some(Verdict::Pass));
        assert_eq!(p.decide(&spec, 0), Verdict::Queue);
        assert_eq!(p.grant(&spec), Some(Verdict::Overflow), "a connection, but max_requests in progress");
        spec.protocol = Protocol::Http2;
        spec.max_requests = 3;
        spec.max_connections = 0;
        spec.max_pending_requests = 0;
        let mut p = Pool::default();
        let verdicts: Vec<_> = (0..4).map(|_| p.decide(&spec, 0)).collect();
        assert_eq!(verdicts, [Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Overflow]);
        p.finished(&spec);
        assert_eq!(p.decide(&spec, 0), Verdict::Pass);
        assert_eq!(p.connections(), 1);
    }
}
