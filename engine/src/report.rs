//! The summary of a run, as `sluice run` prints it and the page shows it.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::metrics::Percentiles;
use crate::scenario::Kind;
use crate::state::State;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Messages made (a request sent again is the same message).
    pub produced: u64,
    /// Attempts sent again: copies of requests made, each delivered,
    /// dropped or in the system as a message is.
    #[serde(skip_serializing_if = "is_zero")]
    pub resent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_system: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeReport {
    pub kind: Kind,
    pub arrived: u64,
    pub departed: u64,
    /// Drops by reason; reasons with no drop are left out.
    pub dropped: BTreeMap<&'static str, u64>,
    pub dropped_total: u64,
    pub depth_messages: u64,
    pub depth_bytes: u64,
    /// The time average of the depth in messages.
    pub mean_depth_messages: f64,
    pub in_service: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disconnects: Option<u64>,
    /// Windows with receipts: messages sent again because their ACK was
    /// not accepted (a full receipt queue).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retransmitted: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_sojourn_s: Option<f64>,
    /// Windows and concurrency limiters: messages counted in flight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<u64>,
    /// Credit links: credits held, all peers together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credits: Option<u64>,
    /// Rate limiters with a token bucket: tokens held by the first one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<f64>,
    /// Links: whether the link is up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_up: Option<bool>,
    /// Product limiters that adapt their limit: the limit now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Producers whose clients wait with a time-out, and consumers that
    /// served requests nobody waited for any more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientReport>,
    /// Sinks: from creation to delivery; queues: the wait; producers with
    /// a time-out: from made to answered, of the requests answered in
    /// time. Seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_s: Option<Percentiles>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a producer's clients saw of the requests they waited for, and what
/// a consumer's workers spent for clients that no longer waited.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientReport {
    /// Answered while the client waited: the goodput.
    pub answered: u64,
    /// Answered with an error (dropped or refused on the way) in time.
    pub failed: u64,
    /// Given up at the time-out.
    pub timed_out: u64,
    /// Answers that came after their client gave up.
    pub late: u64,
    /// Attempts sent again.
    pub resent: u64,
    /// Services a consumer spent on requests whose client had given up
    /// (finished, or stopped by a cancellation), and their seconds.
    pub wasted: u64,
    pub wasted_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub events: u64,
    pub totals: Totals,
    /// State transitions over the whole run.
    pub transitions: u64,
    pub nodes: BTreeMap<String, NodeReport>,
    /// Every node as it stood at an earlier instant, when asked for
    /// (`sluice run --at`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<At>,
}

/// Every node as it stood at an instant: the fields of the report's
/// `nodes`, as a run stopped then gives them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct At {
    pub t_s: f64,
    pub nodes: BTreeMap<String, NodeReport>,
}

impl Report {
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A summary for people to read.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let t = &self.totals;
        if !self.scenario.is_empty() {
            let _ = writeln!(out, "scenario   {}", crate::plumbing::printable::printable(&self.scenario, 200));
        }
        let _ = writeln!(out, "seed       {}", self.seed);
        let _ = writeln!(out, "sim time   {:.3} s   ({} events, {} state transitions)", self.sim_time_s, self.events, self.transitions);
        let resent = if t.resent > 0 { format!("   resent {}", t.resent) } else { String::new() };
        let _ = writeln!(
            out,
            "totals     produced {}{resent}   delivered {}   dropped {}   in system {}",
            t.produced, t.delivered, t.dropped, t.in_system
        );
        let _ = writeln!(out);
        node_table(&mut out, &self.nodes);
        if let Some(at) = &self.at {
            let _ = writeln!(out, "\nat {:.3} s", at.t_s);
            node_table(&mut out, &at.nodes);
        }
        out
    }
}

/// The nodes' lines of a summary, under their heading.
fn node_table(out: &mut String, nodes: &BTreeMap<String, NodeReport>) {
    let _ = writeln!(
        out,
        "{:<16} {:<19} {:>10} {:>10} {:>9} {:>7} {:>10}  state / drops",
        "node", "kind", "arrived", "departed", "dropped", "depth", "mean depth"
    );
    for (id, n) in nodes {
        let mut notes: Vec<String> = Vec::new();
        if let Some(state) = n.state {
            notes.push(state.to_string());
        }
        if n.paused == Some(true) {
            notes.push("paused".into());
        }
        if let Some(d) = n.disconnects.filter(|d| *d > 0) {
            notes.push(format!("{d} disconnect(s)"));
        }
        if let Some(d) = n.retransmitted.filter(|d| *d > 0) {
            notes.push(format!("{d} retransmitted"));
        }
        notes.extend(n.dropped.iter().map(|(reason, count)| format!("{reason} {count}")));
        if let Some(s) = n.mean_sojourn_s {
            notes.push(format!("mean sojourn {:.4} s", s));
        }
        if let Some(f) = n.in_flight {
            notes.push(format!("{f} in flight"));
        }
        if let Some(l) = n.limit {
            notes.push(format!("limit {l}"));
        }
        if let Some(c) = &n.client {
            if n.kind == Kind::Producer {
                notes.push(format!("answered {} (failed {}, timed out {}, late {}, resent {})", c.answered, c.failed, c.timed_out, c.late, c.resent));
            } else if c.wasted > 0 {
                notes.push(format!("wasted {} ({:.3} s)", c.wasted, c.wasted_s));
            }
        }
        if let Some(c) = n.credits {
            notes.push(format!("{c} credits"));
        }
        if let Some(t) = n.tokens {
            notes.push(format!("{t:.1} tokens"));
        }
        if n.link_up == Some(false) {
            notes.push("down".into());
        }
        if let Some(p) = n.latency_s {
            let what = if n.kind == Kind::Queue { "wait" } else { "latency" };
            notes.push(format!("{what} p50 {:.4} p99 {:.4} s", p.p50, p.p99));
        }
        let _ = writeln!(
            out,
            "{:<16} {:<19} {:>10} {:>10} {:>9} {:>7} {:>10.2}  {}",
            id,
            n.kind,
            n.arrived,
            n.departed,
            n.dropped_total,
            n.depth_messages,
            n.mean_depth_messages,
            notes.join(", ")
        );
    }
}
