//! What a sweep measures, by name: a node's measure (`line.mean_wait_s`)
//! or a total of the run (`totals.dropped`). Each measure's name is spelt
//! once, in its serde attribute; a metric reads from its name and writes
//! it back the same.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::scenario::Kind;

/// A figure of one node over a replication's measured span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    MeanDepthMessages,
    MeanWaitS,
    DropProbability,
    DisconnectsPerS,
    ThroughputPerS,
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

/// The name a unit variant serialises to.
fn name_of<T: Serialize>(value: &T) -> String {
    match crate::plumbing::json_read::to_value(value) {
        serde_json::Value::String(name) => name,
        _ => String::new(),
    }
}

/// The variant named `name`, if any.
fn read<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    crate::plumbing::json_read::from_value(&serde_json::Value::String(name.to_string())).ok()
}

impl Measure {
    /// What a sweep measures of a node of `kind`.
    pub fn of(kind: Kind) -> &'static [Measure] {
        use Measure::*;
        match kind {
            // A producer's drops are its own: refused with `drop`, or ping
            // requests left unanswered.
            Kind::Producer => &[DropProbability, ThroughputPerS],
            Kind::Queue => &[MeanDepthMessages, MeanWaitS, DropProbability, DisconnectsPerS, ThroughputPerS],
            Kind::Dispatcher => &[MeanDepthMessages, MeanWaitS, DropProbability, ThroughputPerS],
            Kind::Consumer => &[MeanWaitS, DropProbability, ThroughputPerS],
            _ => &[DropProbability, ThroughputPerS],
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

/// A metric of a sweep, by its name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// A measure of node `node` (its id).
    Of { node: String, measure: Measure },
    Total(Total),
}

/// Why a text is not a metric's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a metric: NODE.MEASURE (mean_depth_messages, mean_wait_s, drop_probability, disconnects_per_s, throughput_per_s) or totals.produced, totals.delivered, totals.dropped")]
pub struct MetricError(pub String);

impl Metric {
    /// Reads `NODE.MEASURE` or `totals.TOTAL`.
    pub fn parse(text: &str) -> Result<Metric, MetricError> {
        let refuse = || MetricError(text.to_string());
        if let Some(total) = text.strip_prefix("totals.") {
            return read(total).map(Metric::Total).ok_or_else(refuse);
        }
        let (node, measure) = text.rsplit_once('.').ok_or_else(refuse)?;
        let measure = read(measure).ok_or_else(refuse)?;
        if node.is_empty() {
            return Err(refuse());
        }
        Ok(Metric::Of { node: node.to_string(), measure })
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Of { node, measure } => write!(f, "{node}.{measure}"),
            Metric::Total(total) => write!(f, "totals.{total}"),
        }
    }
}

impl Serialize for Metric {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Metric {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Metric, D::Error> {
        let text = String::deserialize(deserializer)?;
        Metric::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_reads_from_its_name_and_writes_it_back() {
        for text in ["line.mean_wait_s", "srv.throughput_per_s", "a.b.mean_depth_messages", "totals.dropped", "n-1.disconnects_per_s"] {
            assert_eq!(Metric::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Metric::parse("line.mean_wait_s").unwrap(), Metric::Of { node: "line".into(), measure: Measure::MeanWaitS });
        for bad in ["line", "line.speed", ".mean_wait_s", "totals.lost", "totals"] {
            assert_eq!(Metric::parse(bad), Err(MetricError(bad.into())), "{bad}");
        }
    }
}
