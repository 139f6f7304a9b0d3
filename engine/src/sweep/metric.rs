//! What a sweep measures, by name: a node's measure (`line.mean_wait_s`),
//! the share of a node's arrivals it dropped for one reason
//! (`line.drop_probability.thinned`), or a total of the run
//! (`totals.dropped`); and what it varies, a node's
//! field (`srv.workers`). Each measure's name is spelt once, in its serde
//! attribute; a metric and a varied field read from their names and write
//! them back the same.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::metrics::DropReason;
use crate::scenario::choices::kind_name as name_of;
use crate::scenario::{FieldPath, FieldPathError, Kind};

/// A figure of one node over a replication's measured span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    MeanDepthMessages,
    MeanWaitS,
    /// The wait (a consumer's: the sojourn, as for `MeanWaitS`) that half
    /// the messages departed in the measured span waited at most; then
    /// 90%, 95%, 99% and 99.9% of them. Read from the node's histogram
    /// (two significant digits).
    P50WaitS,
    P90WaitS,
    P95WaitS,
    P99WaitS,
    P999WaitS,
    DropProbability,
    DisconnectsPerS,
    ThroughputPerS,
    /// A producer whose clients wait (a time-out or retries): requests
    /// answered while their client waited, per second.
    GoodputPerS,
    /// The same producer after a trigger within the warm-up: 2 when the
    /// share of its requests answered in time over the measured span held
    /// at 90% of the warm-up's share or more (stable), 1 when it fell lower
    /// but the last fifth's came back to 90% (recovered), 0 when the last
    /// fifth's did not (collapsed).
    Recovery,
}

/// A count of the whole run over a replication's measured span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Total {
    Produced,
    Delivered,
    Dropped,
}

impl Total {
    pub const ALL: [Total; 3] = [Total::Produced, Total::Delivered, Total::Dropped];
}

/// The variant named `name`, if any.
fn read<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    crate::plumbing::json_read::from_value(&serde_json::Value::String(name.to_string())).ok()
}

impl Measure {
    /// Every measure, in the order of the enum.
    pub const ALL: [Measure; 12] = [
        Measure::MeanDepthMessages,
        Measure::MeanWaitS,
        Measure::P50WaitS,
        Measure::P90WaitS,
        Measure::P95WaitS,
        Measure::P99WaitS,
        Measure::P999WaitS,
        Measure::DropProbability,
        Measure::DisconnectsPerS,
        Measure::ThroughputPerS,
        Measure::GoodputPerS,
        Measure::Recovery,
    ];

    /// What a sweep measures of a node of `kind`.
    pub fn of(kind: Kind) -> &'static [Measure] {
        use Measure::*;
        match kind {
            // A producer's drops are its own: refused with `drop`, or ping
            // requests left unanswered.
            Kind::Producer => &[DropProbability, ThroughputPerS],
            Kind::Queue => &[
                MeanDepthMessages,
                MeanWaitS,
                P50WaitS,
                P90WaitS,
                P95WaitS,
                P99WaitS,
                P999WaitS,
                DropProbability,
                DisconnectsPerS,
                ThroughputPerS,
            ],
            Kind::Dispatcher => {
                &[MeanDepthMessages, MeanWaitS, P50WaitS, P90WaitS, P95WaitS, P99WaitS, P999WaitS, DropProbability, ThroughputPerS]
            }
            Kind::Consumer => &[MeanWaitS, P50WaitS, P90WaitS, P95WaitS, P99WaitS, P999WaitS, DropProbability, ThroughputPerS],
            _ => &[DropProbability, ThroughputPerS],
        }
    }

    /// What a sweep measures of node `block`: its kind's measures, and a
    /// producer whose clients wait, its goodput and its recovery.
    pub fn of_node(block: &crate::scenario::BlockSpec) -> Vec<Measure> {
        let mut measures = Measure::of(block.kind()).to_vec();
        if let crate::scenario::BlockSpec::Producer(p) = block {
            if p.timeout_s.is_some() || p.retries.is_some() {
                measures.extend([Measure::GoodputPerS, Measure::Recovery]);
            }
        }
        measures
    }

    /// The reasons a node of `kind` drops a message for, losses only (a
    /// dispatcher's merge loses no work): its drop probability is the sum
    /// of theirs. The fuzz's random runs find no drop outside this table.
    pub fn drop_reasons(kind: Kind) -> &'static [DropReason] {
        use DropReason::*;
        // A request whose client cancelled it is dropped by whichever block
        // it is offered to next.
        match kind {
            Kind::Producer => &[Refused, Unanswered, Cancelled],
            Kind::Queue => &[Thinned, Disconnect, Disconnected, Overflow, Expired, Cancelled],
            Kind::Dispatcher => &[Overflow, Expired, HostDown, Cancelled],
            Kind::Consumer => &[TimedOut, HostDown, Cancelled],
            Kind::Link => &[LinkDown, Cancelled],
            Kind::Router => &[NoRoute, Cancelled],
            Kind::RateLimiter => &[RateLimited, Cancelled],
            Kind::ProductLimiter => &[RateLimited, Overflow, Expired, NotPermitted, Cancelled],
            _ => &[Cancelled],
        }
    }

    /// The quantile of the wait a percentile measures.
    pub fn quantile(self) -> Option<f64> {
        match self {
            Measure::P50WaitS => Some(0.5),
            Measure::P90WaitS => Some(0.9),
            Measure::P95WaitS => Some(0.95),
            Measure::P99WaitS => Some(0.99),
            Measure::P999WaitS => Some(0.999),
            _ => None,
        }
    }
}

impl Measure {
    /// As a person reads it (a chart's axis, the Sweep panel's menu).
    pub fn words(self) -> &'static str {
        match self {
            Measure::MeanDepthMessages => "mean number waiting",
            Measure::MeanWaitS => "mean wait (s)",
            Measure::P50WaitS => "median wait (s)",
            Measure::P90WaitS => "90th percentile wait (s)",
            Measure::P95WaitS => "95th percentile wait (s)",
            Measure::P99WaitS => "99th percentile wait (s)",
            Measure::P999WaitS => "99.9th percentile wait (s)",
            Measure::DropProbability => "share dropped",
            Measure::DisconnectsPerS => "disconnects a second",
            Measure::ThroughputPerS => "throughput (a second)",
            Measure::GoodputPerS => "answered in time (a second)",
            Measure::Recovery => "recovery (2 stable, 1 recovered, 0 down)",
        }
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&name_of(self))
    }
}

impl fmt::Display for Total {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&name_of(self))
    }
}

/// A metric of a sweep, by its name. Metrics go in the order of their
/// names (a sweep's columns and keys do).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    /// A measure of node `node` (its id).
    Of { node: String, measure: Measure },
    /// The share of node `node`'s arrivals in the measured span that it
    /// dropped for `reason`: `NODE.drop_probability.REASON`.
    DropsFor { node: String, reason: DropReason },
    Total(Total),
}

/// Why a text is not a metric's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a metric: NODE.MEASURE ({measures}), NODE.drop_probability.REASON ({reasons}) or {totals}", measures = names(&Measure::ALL), reasons = loss_reasons().map(DropReason::as_str).collect::<Vec<_>>().join(", "), totals = Total::ALL.map(|t| format!("totals.{t}")).join(", "))]
pub struct MetricError(pub String);

fn loss_reasons() -> impl Iterator<Item = DropReason> {
    DropReason::ALL.into_iter().filter(|r| r.is_loss())
}

fn names(measures: &[Measure]) -> String {
    measures.iter().map(Measure::to_string).collect::<Vec<_>>().join(", ")
}

impl Metric {
    /// Reads `NODE.MEASURE` or `totals.TOTAL`.
    pub fn parse(text: &str) -> Result<Metric, MetricError> {
        let refuse = || MetricError(text.to_string());
        if let Some(total) = text.strip_prefix("totals.") {
            return read(total).map(Metric::Total).ok_or_else(refuse);
        }
        // A node's id holds no dot: the node is what comes before the first.
        let (node, measure) = text.split_once('.').filter(|(node, _)| !node.is_empty()).ok_or_else(refuse)?;
        let node = node.to_string();
        if let Some(reason) = measure.strip_prefix("drop_probability.") {
            let reason = loss_reasons().find(|r| r.as_str() == reason).ok_or_else(refuse)?;
            return Ok(Metric::DropsFor { node, reason });
        }
        let measure = read(measure).ok_or_else(refuse)?;
        Ok(Metric::Of { node, measure })
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Of { node, measure } => write!(f, "{node}.{measure}"),
            Metric::DropsFor { node, reason } => write!(f, "{node}.{}.{}", Measure::DropProbability, reason.as_str()),
            Metric::Total(total) => write!(f, "totals.{total}"),
        }
    }
}

impl Metric {
    /// As a person reads it: `line: 99th percentile wait (s)`, `sender:
    /// share dropped as thinned`, `messages delivered`. The name
    /// (`Display`) stays what files and the command line use.
    pub fn words(&self) -> String {
        match self {
            Metric::Of { node, measure } => format!("{node}: {}", measure.words()),
            Metric::DropsFor { node, reason } => format!("{node}: {} as {}", Measure::DropProbability.words(), reason.as_str().replace('_', " ")),
            Metric::Total(total) => format!("messages {total}"),
        }
    }
}

/// Orders by the name: what a map of them printed has always looked like.
macro_rules! by_name {
    ($($t:ty),*) => {$(
        impl Ord for $t {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.to_string().cmp(&other.to_string())
            }
        }
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
    )*};
}
by_name!(Metric, NodeField);

crate::plumbing::serde_as_text!(Metric, NodeField);

/// A node's field, as a sweep varies it: `NODE.FIELD`. A node's id holds
/// no dot, so the node is what comes before the first. Fields go in the
/// order of their names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeField {
    pub node: String,
    pub field: FieldPath,
}

/// Why a text is not `NODE.FIELD`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NodeFieldError {
    #[error("{0}: expected NODE.FIELD, a node's id and a field inside it, such as srv.workers")]
    NotNodeField(String),
    #[error("{text}: {why}")]
    Field { text: String, why: FieldPathError },
}

impl NodeField {
    pub fn parse(text: &str) -> Result<NodeField, NodeFieldError> {
        let text = text.trim();
        let (node, field) = text.split_once('.').filter(|(node, _)| !node.is_empty()).ok_or_else(|| NodeFieldError::NotNodeField(text.to_string()))?;
        let field = FieldPath::parse(field).map_err(|why| NodeFieldError::Field { text: text.to_string(), why })?;
        Ok(NodeField { node: node.to_string(), field })
    }
}

impl fmt::Display for NodeField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.node, self.field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_reads_from_its_name_and_writes_it_back() {
        for text in ["line.mean_wait_s", "srv.throughput_per_s", "totals.dropped", "n-1.disconnects_per_s", "line.drop_probability.thinned", "lim.drop_probability.rate_limited"] {
            assert_eq!(Metric::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Metric::parse("line.mean_wait_s").unwrap(), Metric::Of { node: "line".into(), measure: Measure::MeanWaitS });
        assert_eq!(Metric::parse("line.drop_probability.overflow").unwrap(), Metric::DropsFor { node: "line".into(), reason: DropReason::Overflow });
        // A node's id holds no dot; a merge is no loss.
        for bad in ["line", "line.speed", ".mean_wait_s", "totals.lost", "totals", "a.b.mean_depth_messages", "line.drop_probability.", "line.drop_probability.merged", "line.drop_probability.lost", "line.drop_probability.overflow.x"] {
            assert_eq!(Metric::parse(bad), Err(MetricError(bad.into())), "{bad}");
        }
    }

    #[test]
    fn a_varied_field_reads_from_its_name_and_writes_it_back() {
        for text in ["srv.workers", "line.soft_limit.messages", "limiter.rules[0].limit", "n-1.service_time.mean"] {
            assert_eq!(NodeField::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(NodeField::parse("limiter.rules.0.limit").unwrap().to_string(), "limiter.rules[0].limit");
        assert_eq!(NodeField::parse("srv"), Err(NodeFieldError::NotNodeField("srv".into())));
        assert_eq!(NodeField::parse(".workers"), Err(NodeFieldError::NotNodeField(".workers".into())));
        assert!(matches!(NodeField::parse("srv.work ers"), Err(NodeFieldError::Field { .. })));
    }

    #[test]
    fn a_metric_reads_in_words() {
        let words = |t: &str| Metric::parse(t).unwrap().words();
        assert_eq!(words("line.p99_wait_s"), "line: 99th percentile wait (s)");
        assert_eq!(words("sender.drop_probability.rate_limited"), "sender: share dropped as rate limited");
        assert_eq!(words("totals.delivered"), "messages delivered");
        // Every measure has words of its own.
        let all: std::collections::BTreeSet<&str> = Measure::ALL.iter().map(|m| m.words()).collect();
        assert_eq!(all.len(), Measure::ALL.len());
    }
}
