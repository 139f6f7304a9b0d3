//! What a lesson's check reads: a figure of a node (`Figure`), read by its
//! name in the file, worked out from the run since the step began, and
//! written for people with its bounds.

use serde::{Deserialize, Serialize};

use crate::plumbing::numbers::plain;

use super::FigureError;
use crate::measure::Mark;
use crate::metrics::{entries_into, DropReason};
use crate::simulation::Simulation;
use crate::state::State;

/// What a check reads. Counters and averages cover the time since the step
/// began; levels are read at the moment of judging. Written in a lesson
/// file by its name (`Figure::parse`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Figure {
    /// Messages that entered the node.
    Arrived,
    /// Messages the node passed on (a sink: delivered).
    Departed,
    /// Drops of every reason, or of one.
    Dropped(Option<DropReason>),
    /// Drops of every reason per message arrived.
    DropFraction,
    /// A queue's hard-limit disconnects.
    Disconnects,
    /// A window's messages sent again (their ACK was not accepted).
    Retransmitted,
    /// Messages departed per simulated second.
    Throughput,
    /// Messages waiting now.
    Depth,
    /// The most messages waiting at once.
    MaxDepth,
    /// The time average of the messages waiting.
    MeanDepth,
    /// The mean time departed messages spent in the node (a queue: the
    /// wait; a consumer: the service).
    MeanWait,
    /// A sink: the mean time from creation to delivery.
    MeanSojourn,
    /// A window, concurrency limiter or resource pool: counted in flight now.
    InFlight,
    /// A credit link: credits held now.
    Credits,
    /// A product limiter that adapts its limit: the limit now.
    Limit,
    /// A producer: 1 when paused or blocked now, else 0.
    Paused,
    /// A producer with a time-out: requests answered while their client
    /// still waited.
    Answered,
    /// A producer with a time-out: those per simulated second (goodput).
    Goodput,
    /// A producer with a time-out: requests its clients gave up waiting for.
    TimedOut,
    /// A consumer: the share of its workers' busy time spent on requests
    /// whose client had given up.
    WastedShare,
    /// How often the node entered the named state.
    Entered(State),
    /// 1 if the node is in the named state now, else 0.
    In(State),
}

/// The state names checks may use (queue send states, consumer phases,
/// circuit breaker states).
const STATES: [State; 11] = [
    State::Ready,
    State::Overloaded,
    State::SoftLimit,
    State::HardLimit,
    State::Initializing,
    State::Operational,
    State::ShuttingDown,
    State::ShutDown,
    State::Closed,
    State::HalfOpen,
    State::Open,
];

impl Figure {
    /// Whether the figure counts events since the step began.
    pub(super) fn is_counter(self) -> bool {
        matches!(
            self,
            Figure::Arrived
                | Figure::Departed
                | Figure::Dropped(_)
                | Figure::Disconnects
                | Figure::Retransmitted
                | Figure::Entered(_)
                | Figure::Answered
                | Figure::TimedOut
        )
    }

    /// Reads a figure's name: `arrived`, `departed`, `dropped`,
    /// `dropped.REASON`, `drop_fraction`, `disconnects`, `throughput_per_s`, `depth`,
    /// `max_depth`, `mean_depth`, `mean_wait_s`, `mean_sojourn_s`,
    /// `in_flight`, `credits`, `limit`, `paused`, `answered`,
    /// `goodput_per_s`, `timed_out`, `wasted_share`, `entered.STATE`,
    /// `in.STATE`.
    pub fn parse(name: &str) -> Result<Figure, FigureError> {
        let figure = match name {
            "arrived" => Figure::Arrived,
            "departed" => Figure::Departed,
            "dropped" => Figure::Dropped(None),
            "drop_fraction" => Figure::DropFraction,
            "disconnects" => Figure::Disconnects,
            "retransmitted" => Figure::Retransmitted,
            "throughput_per_s" => Figure::Throughput,
            "depth" => Figure::Depth,
            "max_depth" => Figure::MaxDepth,
            "mean_depth" => Figure::MeanDepth,
            "mean_wait_s" => Figure::MeanWait,
            "mean_sojourn_s" => Figure::MeanSojourn,
            "in_flight" => Figure::InFlight,
            "credits" => Figure::Credits,
            "limit" => Figure::Limit,
            "paused" => Figure::Paused,
            "answered" => Figure::Answered,
            "goodput_per_s" => Figure::Goodput,
            "timed_out" => Figure::TimedOut,
            "wasted_share" => Figure::WastedShare,
            _ => {
                if let Some(reason) = name.strip_prefix("dropped.") {
                    let reason = DropReason::ALL.iter().find(|r| r.as_str() == reason).ok_or_else(|| {
                        let names: Vec<&str> = DropReason::ALL.iter().map(|r| r.as_str()).collect();
                        FigureError::NoDropReason { reason: reason.to_string(), known: names.join(", ") }
                    })?;
                    Figure::Dropped(Some(*reason))
                } else if let Some((which, state)) = name.split_once('.').filter(|(w, _)| matches!(*w, "entered" | "in")) {
                    let state = STATES
                        .into_iter()
                        .find(|s| s.as_str() == state)
                        .ok_or_else(|| FigureError::NoState { state: state.to_string(), known: STATES.map(State::as_str).join(", ") })?;
                    if which == "in" {
                        Figure::In(state)
                    } else {
                        Figure::Entered(state)
                    }
                } else {
                    return Err(FigureError::NoFigure(name.to_string()));
                }
            }
        };
        Ok(figure)
    }
}

impl Figure {
    /// The figure's name, as `parse` reads it.
    pub fn name(self) -> String {
        match self {
            Figure::Arrived => "arrived".into(),
            Figure::Departed => "departed".into(),
            Figure::Dropped(None) => "dropped".into(),
            Figure::Dropped(Some(reason)) => format!("dropped.{}", reason.as_str()),
            Figure::DropFraction => "drop_fraction".into(),
            Figure::Disconnects => "disconnects".into(),
            Figure::Retransmitted => "retransmitted".into(),
            Figure::Throughput => "throughput_per_s".into(),
            Figure::Depth => "depth".into(),
            Figure::MaxDepth => "max_depth".into(),
            Figure::MeanDepth => "mean_depth".into(),
            Figure::MeanWait => "mean_wait_s".into(),
            Figure::MeanSojourn => "mean_sojourn_s".into(),
            Figure::InFlight => "in_flight".into(),
            Figure::Credits => "credits".into(),
            Figure::Limit => "limit".into(),
            Figure::Paused => "paused".into(),
            Figure::Answered => "answered".into(),
            Figure::Goodput => "goodput_per_s".into(),
            Figure::TimedOut => "timed_out".into(),
            Figure::WastedShare => "wasted_share".into(),
            Figure::Entered(state) => format!("entered.{}", state.as_str()),
            Figure::In(state) => format!("in.{}", state.as_str()),
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.name())
    }
}

impl Serialize for Figure {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Figure {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Figure, D::Error> {
        let name = String::deserialize(deserializer)?;
        Figure::parse(&name).map_err(serde::de::Error::custom)
    }
}

impl Figure {
    /// Whether the figure is 1 for yes and 0 for no.
    pub(super) fn is_yes_no(self) -> bool {
        matches!(self, Figure::Paused | Figure::In(_))
    }

    /// A value of this figure with its unit: "20 %", "0.4 s", "12".
    pub(super) fn amount(self, v: f64) -> String {
        match self {
            Figure::DropFraction | Figure::WastedShare => format!("{} %", plain(v * 100.0)),
            Figure::MeanWait | Figure::MeanSojourn => format!("{} s", plain(v)),
            Figure::Throughput | Figure::Goodput => format!("{} a second", plain(v)),
            _ => plain(v),
        }
    }

    /// The figure of `node` as a table row names it: "sender: entered
    /// SoftLimit", "line: mean wait (s)".
    pub fn label(self, node: &str) -> String {
        let what = match self {
            Figure::Arrived => "arrived".to_string(),
            Figure::Departed => "passed on".to_string(),
            Figure::Dropped(None) => "dropped".to_string(),
            Figure::Dropped(Some(reason)) => format!("dropped ({})", reason.as_str().replace('_', " ")),
            Figure::DropFraction => "share dropped".to_string(),
            Figure::Disconnects => "disconnects".to_string(),
            Figure::Retransmitted => "sent again".to_string(),
            Figure::Throughput => "passed on a second".to_string(),
            Figure::Depth => "depth now".to_string(),
            Figure::MaxDepth => "most held".to_string(),
            Figure::MeanDepth => "mean depth".to_string(),
            Figure::MeanWait => "mean wait (s)".to_string(),
            Figure::MeanSojourn => "mean time from made to left (s)".to_string(),
            Figure::InFlight => "in flight".to_string(),
            Figure::Credits => "credits left".to_string(),
            Figure::Limit => "limit now".to_string(),
            Figure::Paused => "paused (1 yes, 0 no)".to_string(),
            Figure::Answered => "answered in time".to_string(),
            Figure::Goodput => "answered in time a second".to_string(),
            Figure::TimedOut => "given up at the time-out".to_string(),
            Figure::WastedShare => "share of work for nobody".to_string(),
            Figure::In(state) => format!("in {state} (1 yes, 0 no)"),
            Figure::Entered(state) => format!("entered {state}"),
        };
        format!("{node}: {what}")
    }

    /// What the figure of `node` says, in the lesson's words: "sender
    /// entered SoftLimit 439 times", "a message waited 0.41 s on average
    /// in line". `None`: it has no value, and why.
    pub fn in_words(self, node: &str, value: Option<f64>) -> String {
        let Some(v) = value else {
            return format!("{node}: no figure yet ({})", no_value_because(self));
        };
        let n = plain(v);
        let times = if v == 1.0 { "once".to_string() } else { format!("{n} times") };
        let messages = if v == 1.0 { "1 message".to_string() } else { format!("{n} messages") };
        match self {
            Figure::Arrived => format!("{messages} reached {node}"),
            Figure::Departed => format!("{node} passed on {messages}"),
            Figure::Dropped(None) => format!("{node} dropped {messages}"),
            Figure::Dropped(Some(reason)) => format!("{node} dropped {messages} ({})", reason.as_str().replace('_', " ")),
            Figure::DropFraction => format!("{node} dropped {} of what reached it", self.amount(v)),
            Figure::Disconnects => format!("{node} disconnected its client {times}"),
            Figure::Retransmitted => format!("{node} sent {messages} again"),
            Figure::Throughput => format!("{node} passed on {messages} a second"),
            Figure::Depth => format!("{node} holds {messages} now"),
            Figure::MaxDepth => format!("{node} held as many as {messages}"),
            Figure::MeanDepth => format!("{node} held {messages} on average"),
            Figure::MeanWait => format!("a message waited {} on average in {node}", self.amount(v)),
            Figure::MeanSojourn => format!("a message took {} on average from being made to leaving {node}", self.amount(v)),
            Figure::InFlight => format!("{node} has {messages} in flight"),
            Figure::Credits => format!("{node} has {n} credits left"),
            Figure::Limit => format!("{node}'s limit is {n}"),
            Figure::Answered => format!("{node} had {} answered in time", requests(v)),
            Figure::Goodput => format!("{node} had {} a second answered in time", requests(v)),
            Figure::TimedOut => format!("{node} gave up on {}", requests(v)),
            Figure::WastedShare => format!("{node} spent {} of its work on requests nobody waited for", self.amount(v)),
            Figure::Paused if v >= 0.5 => format!("{node} is paused"),
            Figure::Paused => format!("{node} is not paused"),
            Figure::In(state) if v >= 0.5 => format!("{node} is in {state} now"),
            Figure::In(state) => format!("{node} is not in {state} now"),
            Figure::Entered(state) => format!("{node} entered {state} {times}"),
        }
    }
}

/// A count of requests in words: "1 request", "12 requests".
fn requests(v: f64) -> String {
    if v == 1.0 { "1 request".to_string() } else { format!("{} requests", plain(v)) }
}

/// Why a figure has no value.
pub(super) fn no_value_because(figure: Figure) -> &'static str {
    match figure {
        Figure::MeanWait | Figure::MeanSojourn => "nothing departed",
        Figure::DropFraction => "nothing arrived",
        Figure::WastedShare => "no worker was busy",
        Figure::Limit => "it adapts no limit",
        _ => "no time passed",
    }
}

/// `figure` of `node` since the reading `before`.
/// A figure since the step began, or `None` where it has no value: a mean
/// over no departures, a fraction of no arrivals, a rate over no time. A
/// check on no value fails: silence is not a result.
pub(super) fn figure_since(sim: &Simulation, node: usize, figure: Figure, before: &Mark) -> Option<f64> {
    let now = Mark::of(sim, node);
    let stats = sim.stats(node);
    let change = now.since(before);
    let (span_s, departed) = (change.span_s, change.departed);
    let per_departure = |sum: f64| (departed > 0).then(|| sum / departed as f64);
    let value = match figure {
        Figure::Arrived => change.arrived as f64,
        Figure::Departed => departed as f64,
        Figure::Dropped(None) => change.dropped_total() as f64,
        Figure::DropFraction => return (change.offered() > 0).then(|| change.lost() as f64 / change.offered() as f64),
        Figure::Dropped(Some(reason)) => change.dropped[reason as usize] as f64,
        Figure::Disconnects => change.disconnects as f64,
        Figure::Retransmitted => change.retransmitted as f64,
        Figure::Throughput => return (span_s > 0.0).then(|| departed as f64 / span_s),
        Figure::Answered => change.answered as f64,
        Figure::Goodput => return (span_s > 0.0).then(|| change.answered as f64 / span_s),
        Figure::TimedOut => change.timed_out as f64,
        Figure::WastedShare => return (change.depth_integral_s > 0.0).then(|| change.wasted_s / change.depth_integral_s),
        Figure::Depth => stats.depth_messages.value() as f64,
        Figure::MaxDepth => {
            let since = before.t_s;
            let points = stats.depth_series.points(sim.now());
            let seen = points.iter().filter(|p| p.t_s >= since).map(|p| p.max).max().unwrap_or(0);
            seen.max(stats.depth_messages.value()) as f64
        }
        Figure::MeanDepth => {
            if span_s > 0.0 {
                change.depth_integral_s / span_s
            } else {
                stats.depth_messages.value() as f64
            }
        }
        Figure::MeanWait => return per_departure(change.residence_s),
        Figure::MeanSojourn => return per_departure(change.sojourn_s),
        Figure::InFlight => sim.node_report(node).in_flight.unwrap_or(0) as f64,
        Figure::Credits => sim.node_report(node).credits.unwrap_or(0) as f64,
        Figure::Limit => return sim.node_report(node).limit.map(|l| l as f64),
        Figure::Paused => f64::from(u8::from(sim.node_report(node).paused == Some(true))),
        Figure::In(state) => f64::from(u8::from(sim.node_report(node).state == Some(state))),
        Figure::Entered(state) => {
            entries_into(&now.entered, state).saturating_sub(entries_into(&before.entered, state)) as f64
        }
    };
    Some(value)
}
