//! What the engine observes: counters per node, drops by reason, levels with
//! their time average, bounded time series and the log of state transitions.
//!
//! Guarantees: every structure here has a memory bound that does not grow
//! with the length of a run. A `Series` keeps at most its capacity of
//! buckets, doubling the bucket width when time runs past the last one; a
//! `TransitionLog` keeps the most recent entries and counts all of them.

use std::collections::VecDeque;

use serde::Serialize;

pub use crate::answers::ClientTally;
use crate::state::{Cause, State};
use crate::state_times::StateTimes;
use crate::time::{SimDuration, SimTime};

/// Why a message left the system without being delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// A droppable message discarded while its queue was overloaded.
    Thinned,
    /// Queued when the queue hit its hard limit and disconnected the client.
    Disconnect,
    /// Arrived while the queue's client was disconnected.
    Disconnected,
    /// Refused downstream, and the producer's policy was to drop it.
    Refused,
    /// Arrived at a full queue (or pushed out of one by a newer message).
    Overflow,
    /// Waited in a queue longer than its time-to-live.
    Expired,
    /// Over a rate limit with `on_excess: reject`.
    RateLimited,
    /// On the wire of a link when it went down.
    LinkDown,
    /// A router had no output for it (its class or destination has no route).
    NoRoute,
    /// Its service hit the consumer's time-out more often than retries allow.
    TimedOut,
    /// Its host was down and its class is not queueable while down.
    HostDown,
    /// Made while a queue it feeds asked for a pause, by a producer whose
    /// backpressure is `drop`: a ping request read and not answered.
    Unanswered,
    /// Scheduled while the same task (same source, same class) was still
    /// registered in a dispatcher's demand queue, with `register_once`: the
    /// run already waiting covers it, so no work is lost.
    Merged,
    /// Its client gave up waiting (`timeout_s`): never sent (still with
    /// the producer), or, with `on_timeout: cancel`, dropped where it next
    /// surfaced or stopped in service, before more work was spent on it.
    Cancelled,
    /// Refused by an open (or half-open and busy) circuit breaker:
    /// resilience4j's `CallNotPermittedException`.
    NotPermitted,
}

/// What a limiter did with a request that met it, in the words a server's
/// log uses (`$limit_req_status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Let through at once.
    Admitted,
    /// Let through later.
    Delayed,
    /// Refused: dropped, the client answered with an error.
    Rejected,
    /// A dry run's rejection: let through at once, counted as rejected.
    RejectedDryRun,
    /// A dry run's delay: let through at once, counted as delayed.
    DelayedDryRun,
}

impl Outcome {
    /// As `--decisions` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Admitted => "admitted",
            Outcome::Delayed => "delayed",
            Outcome::Rejected => "rejected",
            Outcome::RejectedDryRun => "rejected_dry_run",
            Outcome::DelayedDryRun => "delayed_dry_run",
        }
    }
}

/// One request meeting one limiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// When the request was made.
    pub created: SimTime,
    pub key: u32,
    pub node: u32,
    pub outcome: Outcome,
    /// When it met the limiter.
    pub met: SimTime,
    /// When it passed, or was refused.
    pub at: SimTime,
}

impl DropReason {
    pub const ALL: [DropReason; 15] = [
        DropReason::Thinned,
        DropReason::Disconnect,
        DropReason::Disconnected,
        DropReason::Refused,
        DropReason::Overflow,
        DropReason::Expired,
        DropReason::RateLimited,
        DropReason::LinkDown,
        DropReason::NoRoute,
        DropReason::TimedOut,
        DropReason::HostDown,
        DropReason::Unanswered,
        DropReason::Merged,
        DropReason::Cancelled,
        DropReason::NotPermitted,
    ];
    pub const COUNT: usize = Self::ALL.len();

    /// Whether the message's work is lost. A merge is not a loss: the run
    /// already waiting covers it (register-once), so drop probabilities
    /// leave it out, while conservation counts it as having left.
    pub fn is_loss(self) -> bool {
        self != DropReason::Merged
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::Thinned => "thinned",
            DropReason::Disconnect => "disconnect",
            DropReason::Disconnected => "disconnected",
            DropReason::Refused => "refused",
            DropReason::Overflow => "overflow",
            DropReason::Expired => "expired",
            DropReason::RateLimited => "rate_limited",
            DropReason::LinkDown => "link_down",
            DropReason::NoRoute => "no_route",
            DropReason::TimedOut => "timed_out",
            DropReason::HostDown => "host_down",
            DropReason::Unanswered => "unanswered",
            DropReason::Merged => "merged",
            DropReason::Cancelled => "cancelled",
            DropReason::NotPermitted => "not_permitted",
        }
    }
}

/// A quantity that holds a value over time (a depth), with its time average.
#[derive(Clone, Debug, Default)]
pub struct Level {
    value: u64,
    since: SimTime,
    /// The integral of the value over time up to `since`, in
    /// value·nanoseconds.
    area: f64,
}

impl Level {
    pub fn value(&self) -> u64 {
        self.value
    }

    #[inline]
    pub fn set(&mut self, now: SimTime, value: u64) {
        if self.value != 0 {
            // Through i64: one instruction each on x86-64 instead of a
            // branchy unsigned conversion, and the same value below 2^63.
            self.area += self.value as i64 as f64 * now.since(self.since).as_nanos() as i64 as f64;
        }
        self.since = now;
        self.value = value;
    }

    /// The integral of the value from time zero to `now`, in
    /// value·seconds (differences between two instants give batch means).
    pub fn integral_s(&self, now: SimTime) -> f64 {
        (self.area + self.value as f64 * now.since(self.since).as_nanos() as f64) / 1e9
    }

    /// The time average of the value from time zero to `now`.
    pub fn mean(&self, now: SimTime) -> f64 {
        let t = now.as_nanos() as f64;
        if t <= 0.0 {
            return self.value as f64;
        }
        (self.area + self.value as f64 * now.since(self.since).as_nanos() as f64) / t
    }
}

/// One bucket of a series: the extremes of the value within the bucket and
/// the value at its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bucket {
    pub min: u64,
    pub max: u64,
    pub last: u64,
}

/// A bucket as a series stores it: three 32-bit values, half the room of
/// three 64-bit ones. A value above `u32::MAX` (four billion messages in
/// one block: more than memory could hold) is kept as `u32::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stored {
    min: u32,
    max: u32,
    last: u32,
}

impl Stored {
    fn flat(value: u32) -> Self {
        Stored { min: value, max: value, last: value }
    }

    #[inline]
    fn record(&mut self, value: u32) {
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.last = value;
    }

    fn widen(self) -> Bucket {
        Bucket { min: self.min.into(), max: self.max.into(), last: self.last.into() }
    }
}

#[inline]
fn narrow(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// A time series downsampled into at most `capacity` equal buckets.
///
/// Its memory follows what it holds: buckets are made only up to the last
/// change of value (a block whose value never changes holds none), and at
/// most `capacity` of 12 bytes each.
#[derive(Clone, Debug)]
pub struct Series {
    width_ns: u64,
    capacity: usize,
    buckets: Vec<Stored>,
    /// The last bucket's end, in nanoseconds: records before it need no
    /// division.
    last_end_ns: u64,
}

/// One point of a series as the charts draw it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SeriesPoint {
    pub t_s: f64,
    pub min: u64,
    pub max: u64,
    pub last: u64,
}

impl Series {
    /// A series whose first buckets are `width_ns` wide.
    pub fn new(width_ns: u64, capacity: usize) -> Self {
        Series { width_ns: width_ns.max(1), capacity: capacity.max(2) & !1, buckets: Vec::new(), last_end_ns: 0 }
    }

    pub fn bucket_width_s(&self) -> f64 {
        self.width_ns as f64 / 1e9
    }

    /// Records that the value became `value` at `now`. Times must not go
    /// backwards.
    #[inline]
    pub fn record(&mut self, now: SimTime, value: u64) {
        let value = narrow(value);
        if now.as_nanos() < self.last_end_ns {
            if let Some(b) = self.buckets.last_mut() {
                b.record(value);
                return;
            }
        }
        self.record_in_new_bucket(now, value);
    }

    fn record_in_new_bucket(&mut self, now: SimTime, value: u32) {
        let carry = self.carry();
        if value == carry {
            // Nothing changed: the buckets up to `now` would all be the
            // carried value, which is what `points` reads where there is no
            // bucket. Making them would only spend memory.
            return;
        }
        let index = self.index_for(now);
        if index >= self.buckets.capacity() {
            // Doubling, but never past the series' own capacity (plain
            // doubling from an odd first length overshoots it by a third).
            let room = (self.buckets.capacity() * 2).clamp(index + 1, self.capacity);
            self.buckets.reserve_exact(room - self.buckets.len());
        }
        self.buckets.resize(self.buckets.len().max(index + 1), Stored::flat(carry));
        self.buckets[index].record(value);
        self.last_end_ns = (index as u64 + 1).saturating_mul(self.width_ns);
    }

    /// The value at the end of the last bucket (zero before any).
    fn carry(&self) -> u32 {
        self.buckets.last().map_or(0, |b| b.last)
    }

    fn index_for(&mut self, now: SimTime) -> usize {
        loop {
            let index = now.as_nanos() / self.width_ns;
            if index < self.capacity as u64 {
                return index as usize;
            }
            self.halve();
        }
    }

    /// Merges neighbouring buckets pairwise and doubles the width.
    fn halve(&mut self) {
        self.buckets = crate::plumbing::pairs::merge_pairs(&self.buckets, |a, b| Stored { min: a.min.min(b.min), max: a.max.max(b.max), last: b.last });
        self.width_ns = self.width_ns.saturating_mul(2);
        self.last_end_ns = (self.buckets.len() as u64).saturating_mul(self.width_ns);
    }

    /// The buckets from time zero up to `now`, the value carried forward
    /// through buckets in which nothing changed.
    pub fn points(&self, now: SimTime) -> Vec<SeriesPoint> {
        if now.as_nanos() / self.width_ns >= self.capacity as u64 {
            // Nothing recorded since `now` outgrew the buckets (a value
            // that stopped changing): widen a copy as a record would, so
            // the points still reach `now`.
            let mut wider = self.clone();
            wider.index_for(now);
            return wider.points(now);
        }
        let width_s = self.bucket_width_s();
        let end = (now.as_nanos() / self.width_ns).min(self.capacity as u64 - 1) as usize;
        let carry = Stored::flat(self.carry());
        (0..=end)
            .map(|i| {
                let b = self.buckets.get(i).copied().unwrap_or(carry).widen();
                SeriesPoint { t_s: i as f64 * width_s, min: b.min, max: b.max, last: b.last }
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

/// A state change of a node, as the log shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub time: SimTime,
    pub node: usize,
    pub from: State,
    pub to: State,
    /// What made it happen, in a few words.
    pub cause: Cause,
}

/// The most recent transitions, with a count of all of them.
#[derive(Clone, Debug)]
pub struct TransitionLog {
    capacity: usize,
    entries: VecDeque<Transition>,
    total: u64,
}

impl TransitionLog {
    pub fn new(capacity: usize) -> Self {
        TransitionLog { capacity: capacity.max(1), entries: VecDeque::new(), total: 0 }
    }

    pub fn push(&mut self, t: Transition) {
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(t);
        self.total += 1;
    }

    /// Oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Transition> + ExactSizeIterator {
        self.entries.iter()
    }

    pub fn total(&self) -> u64 {
        self.total
    }
}

/// Durations (latencies, waits) in a histogram of bounded memory: from 1 ns
/// to one hour with two significant digits, longer ones counted as one
/// hour.
///
/// The buckets are HdrHistogram's (lowest value 1, two significant
/// digits), and percentiles are read the way it reads them; a test checks
/// both against the `hdrhistogram` crate. Recording is written out here
/// because the event loop records twice per message and the crate's
/// general `record` (auto-resize, minimum tracking, checked counts) cost
/// four times as much.
///
/// Memory follows what was recorded: the counters come in blocks of 128
/// (1 KiB), a block made the first time a duration falls in its range. A
/// queue whose waits are all near zero holds one block, not the 37 KiB a
/// histogram from a nanosecond to an hour would take whole.
#[derive(Clone, Debug)]
pub struct Durations {
    blocks: Vec<Option<Box<[u64; COUNTER_BLOCK]>>>,
    total: u64,
    max_ns: u64,
    /// The sum of what was recorded, exactly (the mean beside the
    /// percentiles).
    sum_ns: u128,
}

/// Counters per block of a histogram: one bucket's sub-buckets.
const COUNTER_BLOCK: usize = SUB_BUCKET_HALF;

/// The longest duration a histogram tells apart: one hour, in nanoseconds.
const DURATION_MAX_NS: u64 = 3_600_000_000_000;

/// Two significant digits need 2 x 10^2 distinct values per bucket, so 256
/// sub-buckets, of which each bucket after the first uses the upper half.
const SUB_BUCKET_HALF_MAGNITUDE: u32 = 7;
const SUB_BUCKET_HALF: usize = 1 << SUB_BUCKET_HALF_MAGNITUDE;
const SUB_BUCKET_MASK: u64 = (2 << SUB_BUCKET_HALF_MAGNITUDE) - 1;
/// 64 bits less the sub-bucket magnitude (8) and the unit magnitude (0).
const LEADING_ZERO_BASE: u32 = 64 - (SUB_BUCKET_HALF_MAGNITUDE + 1);

/// The bucket of a value: how many times its range doubled.
#[inline]
fn bucket_of(value: u64) -> u32 {
    LEADING_ZERO_BASE - (value | SUB_BUCKET_MASK).leading_zeros()
}

#[inline]
fn index_of(value: u64) -> usize {
    let bucket = bucket_of(value);
    (((bucket as usize) + 1) << SUB_BUCKET_HALF_MAGNITUDE) + (value >> bucket) as usize - SUB_BUCKET_HALF
}

/// The lowest value counted at `index`.
fn lowest_at(index: usize) -> u64 {
    let bucket = (index >> SUB_BUCKET_HALF_MAGNITUDE) as i64 - 1;
    let sub = (index & (SUB_BUCKET_HALF - 1)) + SUB_BUCKET_HALF;
    if bucket < 0 {
        (sub - SUB_BUCKET_HALF) as u64
    } else {
        (sub as u64) << bucket
    }
}

/// The highest value counted with `value`.
fn highest_equivalent(value: u64) -> u64 {
    let bucket = bucket_of(value);
    ((value >> bucket) << bucket) + (1u64 << bucket) - 1
}

/// Percentiles of a set of durations, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Durations {
    fn new() -> Self {
        Durations { blocks: Vec::new(), total: 0, max_ns: 0, sum_ns: 0 }
    }

    #[inline]
    pub fn record(&mut self, d: SimDuration) {
        let ns = d.as_nanos().clamp(1, DURATION_MAX_NS);
        let index = index_of(ns);
        match self.blocks.get_mut(index / COUNTER_BLOCK) {
            Some(Some(block)) => block[index % COUNTER_BLOCK] += 1,
            _ => self.record_in_new_block(index),
        }
        self.total += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// The mean of what was recorded, in seconds; none if nothing was.
    pub fn mean_s(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum_ns as f64 / self.total as f64 / 1e9)
    }

    #[cold]
    fn record_in_new_block(&mut self, index: usize) {
        let at = index / COUNTER_BLOCK;
        if self.blocks.len() <= at {
            self.blocks.resize(at + 1, None);
        }
        self.blocks[at].get_or_insert_with(|| Box::new([0; COUNTER_BLOCK]))[index % COUNTER_BLOCK] += 1;
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// The value at quantile `q` (0..=1): the highest value of the first
    /// bucket where the running count reaches `q` of the total. One alone:
    /// the tests compare each with hdrhistogram's.
    #[cfg(test)]
    fn value_at_quantile(&self, q: f64) -> u64 {
        self.values_at_quantiles([q], None)[0]
    }

    /// The durations at quantile `q` (0..=1) of those recorded since
    /// `before`, this same histogram read earlier (none: since the start),
    /// in seconds, as `percentiles` reads them; none if nothing was
    /// recorded since.
    pub fn seconds_at_quantile_since(&self, q: f64, before: Option<&Durations>) -> Option<f64> {
        let since = self.total - before.map_or(0, |b| b.total);
        (since > 0).then(|| self.values_at_quantiles([q], before)[0] as f64 / 1e9)
    }

    /// The values at quantiles `qs` (0..=1, ascending) in one walk over
    /// the counters that exist: the page reads three of every block's
    /// histogram at each sample, for thousands of blocks. Counts only what
    /// was recorded since `before` (the same histogram read earlier).
    fn values_at_quantiles<const N: usize>(&self, qs: [f64; N], before: Option<&Durations>) -> [u64; N] {
        let total = self.total - before.map_or(0, |b| b.total);
        let wanted = qs.map(|q| ((q.min(1.0) * total as f64).ceil() as u64).max(1));
        let mut values = [0; N];
        let mut next = 0;
        let mut seen = 0;
        for (at, counts) in self.blocks.iter().enumerate() {
            let Some(counts) = counts else { continue };
            let earlier = before.and_then(|b| b.blocks.get(at)).and_then(Option::as_ref);
            for (i, &count) in counts.iter().enumerate() {
                seen += count - earlier.map_or(0, |e| e[i]);
                while next < N && seen >= wanted[next] {
                    values[next] = highest_equivalent(lowest_at(at * COUNTER_BLOCK + i));
                    next += 1;
                }
                if next == N {
                    return values;
                }
            }
        }
        values
    }

    pub fn percentiles(&self) -> Percentiles {
        let [p50, p95, p99] = self.values_at_quantiles([0.5, 0.95, 0.99], None).map(|v| v as f64 / 1e9);
        let max = if self.max_ns == 0 { 0 } else { highest_equivalent(self.max_ns) };
        Percentiles { p50, p95, p99, max: max as f64 / 1e9 }
    }
}

/// The counters of one node.
#[derive(Clone, Debug)]
pub struct NodeStats {
    /// Messages that entered the node (for a producer: messages created).
    pub arrived: u64,
    /// Messages the node passed on (for a consumer: messages delivered).
    pub departed: u64,
    pub dropped: [u64; DropReason::COUNT],
    /// Messages waiting in the node.
    pub depth_messages: Level,
    pub depth_bytes: u64,
    /// Messages being worked on (consumer workers busy).
    pub in_service: u64,
    pub depth_series: Series,
    /// Sum of the sojourn times of delivered messages, in nanoseconds
    /// (integers: exact, and cheap to add on every message).
    pub sojourn_ns: u128,
    /// Sum of the times departed messages spent in this node (the wait in a
    /// queue, the service in a consumer), in nanoseconds.
    pub residence_ns: u128,
    /// Departures from a queue that had waited at all.
    pub waited: u64,
    /// Queues: how long departures waited; sinks: how long delivered
    /// messages took from creation. Made on first use.
    pub durations: Option<Box<Durations>>,
    /// How often the node entered each state, counted in full (the
    /// transition log keeps only the latest entries).
    pub entered: Vec<(State, u64)>,
    /// Queues: the time spent in each send state, slot by slot (made at
    /// the first change of state).
    pub state_times: Option<Box<StateTimes>>,
    /// Producers with a time-out and the consumers serving them: what the
    /// clients saw and what was spent for nobody (made on first use).
    pub client: Option<Box<ClientTally>>,
}


/// How often a list of state entries (`NodeStats::entered`) says `state`
/// was entered.
pub fn entries_into(entered: &[(State, u64)], state: State) -> u64 {
    entered.iter().find(|(s, _)| *s == state).map_or(0, |(_, n)| *n)
}

/// The first buckets of a depth series are this wide (10 ms).
pub(crate) const DEPTH_BUCKET_NS: u64 = 10_000_000;
/// Buckets per depth series: a chart is at most about 800 pixels across,
/// and a series holds 512 to 1,024 points (12 KiB at most, which a
/// 10,000-block scenario pays 10,000 times).
pub const DEPTH_SERIES_CAPACITY: usize = 1024;

impl NodeStats {
    /// How often the node entered `state`.
    pub fn entered(&self, state: State) -> u64 {
        entries_into(&self.entered, state)
    }

    pub(crate) fn count_entry(&mut self, state: State) {
        match self.entered.iter_mut().find(|(s, _)| *s == state) {
            Some((_, n)) => *n += 1,
            None => self.entered.push((state, 1)),
        }
    }

    pub fn new() -> Self {
        NodeStats {
            arrived: 0,
            departed: 0,
            dropped: [0; DropReason::COUNT],
            depth_messages: Level::default(),
            depth_bytes: 0,
            in_service: 0,
            depth_series: Series::new(DEPTH_BUCKET_NS, DEPTH_SERIES_CAPACITY),
            sojourn_ns: 0,
            residence_ns: 0,
            waited: 0,
            durations: None,
            entered: Vec::new(),
            state_times: None,
            client: None,
        }
    }

    /// The client tally, made on first use.
    pub fn client_mut(&mut self) -> &mut ClientTally {
        self.client.get_or_insert_with(Default::default)
    }

    /// The client tally, or zeros where there is none.
    pub fn client(&self) -> ClientTally {
        self.client.as_deref().cloned().unwrap_or_default()
    }

    /// Sum of the sojourn times of delivered messages, in seconds.
    pub fn sojourn_sum_s(&self) -> f64 {
        self.sojourn_ns as f64 / 1e9
    }

    /// Sum of the times departed messages spent in this node, in seconds.
    pub fn residence_sum_s(&self) -> f64 {
        self.residence_ns as f64 / 1e9
    }

    /// Records one duration in the node's histogram.
    #[inline]
    pub fn record_duration(&mut self, d: SimDuration) {
        self.durations.get_or_insert_with(|| Box::new(Durations::new())).record(d);
    }

    pub fn drop(&mut self, reason: DropReason, count: u64) {
        self.dropped[reason as usize] += count;
    }

    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// A number that grows whenever the node takes, passes on or drops a
    /// message (the watchdog reads which nodes were busy).
    pub fn activity(&self) -> u64 {
        self.arrived.wrapping_add(self.departed).wrapping_add(self.dropped_total())
    }

    /// Records the node's new depth.
    #[inline]
    pub fn set_depth(&mut self, now: SimTime, messages: u64, bytes: u64) {
        self.depth_messages.set(now, messages);
        self.depth_bytes = bytes;
        self.depth_series.record(now, messages);
    }
}

impl Default for NodeStats {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    #[test]
    fn level_mean_is_the_time_average() {
        let mut l = Level::default();
        l.set(at(0.0), 4);
        l.set(at(1.0), 0);
        // 4 for one second, 0 for three.
        assert!((l.mean(at(4.0)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn series_memory_is_bounded_and_keeps_extremes() {
        let mut s = Series::new(1_000, 64);
        for i in 0..100_000u64 {
            s.record(SimTime::from_nanos(i * 997), i % 50);
        }
        s.record(SimTime::from_nanos(100_000_000), 999);
        assert!(s.len() <= 64, "{} buckets", s.len());
        let points = s.points(SimTime::from_nanos(100_000_000));
        assert!(points.len() <= 64);
        assert_eq!(points.iter().map(|p| p.max).max(), Some(999));
        assert_eq!(points.iter().map(|p| p.min).min(), Some(0));
    }

    #[test]
    fn series_carries_the_value_through_quiet_buckets() {
        let mut s = Series::new(10, 100);
        s.record(SimTime::from_nanos(5), 7);
        let points = s.points(SimTime::from_nanos(95));
        assert_eq!(points.len(), 10);
        assert!(points[1..].iter().all(|p| p.min == 7 && p.max == 7));
    }

    #[test]
    fn a_quiet_series_still_reaches_now() {
        // One record early on, then nothing for far longer than the
        // buckets span: the points run to `now` all the same.
        let mut s = Series::new(10, 100);
        s.record(SimTime::from_nanos(5), 3);
        let points = s.points(SimTime::from_nanos(100_000));
        assert!(points.len() <= 100);
        let last = points.last().unwrap();
        assert!(last.t_s * 1e9 > 50_000.0, "last point at {} s", last.t_s);
        assert!(points.iter().all(|p| p.last == 3));
    }

    #[test]
    fn a_series_holds_nothing_while_its_value_stays_put() {
        // A block whose depth is recorded often but never changes (a
        // producer's, a queue nothing waits in) costs no bucket.
        let mut s = Series::new(10, 64);
        for i in 0..10_000u64 {
            s.record(SimTime::from_nanos(i * 7), 0);
        }
        assert_eq!(s.len(), 0);
        assert!(s.points(SimTime::from_nanos(70_000)).iter().all(|p| p.min == 0 && p.max == 0));
        // The first change is kept, and the quiet time before it reads as
        // the value it had.
        s.record(SimTime::from_nanos(70_005), 4);
        let points = s.points(SimTime::from_nanos(70_005));
        assert_eq!(points.last().map(|p| (p.min, p.max, p.last)), Some((0, 4, 4)));
        assert!(points[..points.len() - 1].iter().all(|p| p.max == 0));
    }

    #[test]
    fn a_series_never_reserves_past_its_capacity() {
        // Growth by doubling from an odd first length would overshoot the
        // capacity by up to a third; every series of a large scenario
        // would pay it.
        let mut s = Series::new(10, 100);
        for i in 0..5_000u64 {
            s.record(SimTime::from_nanos(i * 11 + 3), i % 3);
            assert!(s.buckets.capacity() <= 100, "{} reserved at {i}", s.buckets.capacity());
        }
    }

    #[test]
    fn a_depth_too_large_for_its_bucket_reads_as_the_largest() {
        let mut s = Series::new(10, 8);
        s.record(SimTime::from_nanos(1), u64::MAX);
        assert_eq!(s.points(SimTime::from_nanos(1))[0].max, u64::from(u32::MAX));
    }

    /// The mean beside the percentiles is the exact mean of what was
    /// recorded, not one read from the buckets.
    #[test]
    fn durations_keep_their_exact_mean() {
        let mut d = Durations::new();
        assert_eq!(d.mean_s(), None);
        for ms in [1u64, 2, 6, 1001] {
            d.record(SimDuration::from_nanos(ms * 1_000_000));
        }
        assert_eq!(d.mean_s(), Some(1.010 / 4.0));
    }

    #[test]
    fn durations_hold_only_the_counters_they_use() {
        let mut d = Durations::new();
        assert!(d.blocks.is_empty());
        // Waits of a few nanoseconds: one block of counters.
        for ns in 0..100 {
            d.record(SimDuration::from_nanos(ns));
        }
        assert_eq!(d.blocks.iter().flatten().count(), 1);
        // One wait of a minute adds the block its range falls in, not the
        // ones between.
        d.record(SimDuration::from_secs_f64(60.0));
        assert_eq!(d.blocks.iter().flatten().count(), 2);
        assert_eq!(d.count(), 101);
        assert!((d.percentiles().max - 60.0).abs() < 1.0);
    }

    #[test]
    fn a_quantile_since_an_earlier_reading_counts_only_what_came_after() {
        let mut d = Durations::new();
        for s in 1..=100u64 {
            d.record(SimDuration::from_nanos(s * 1_000_000_000));
        }
        let before = d.clone();
        assert_eq!(d.seconds_at_quantile_since(0.5, Some(&before)), None, "nothing since");
        for ms in 1..=10u64 {
            d.record(SimDuration::from_nanos(ms * 1_000_000));
        }
        // Since: 1 ms to 10 ms; in all, the hundred long ones dominate.
        let since = |q| d.seconds_at_quantile_since(q, Some(&before)).unwrap();
        assert!((since(0.5) - 0.005).abs() < 0.0001 && (since(1.0) - 0.010).abs() < 0.0001, "{} {}", since(0.5), since(1.0));
        let all = d.seconds_at_quantile_since(0.5, None).unwrap();
        assert!((all - 45.0).abs() < 0.5, "{all}: the 55th of 110, the 45th long one");
        assert_eq!(d.seconds_at_quantile_since(0.99, None).unwrap(), d.percentiles().p99);
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn durations_read_like_hdrhistogram() {
        let mut ours = Durations::new();
        let mut theirs = hdrhistogram::Histogram::<u64>::new_with_bounds(1, DURATION_MAX_NS, 2).unwrap();
        let mut rng = crate::rng::SimRng::new(11);
        for k in 0..20_000u64 {
            // Spread over every bucket: 1 ns up to past the hour.
            let ns = match k % 4 {
                0 => k % 300,
                1 => (rng.uniform() * 1e6) as u64,
                2 => (rng.exponential(1.0) * 1e9) as u64,
                _ => (rng.uniform() * 5e12) as u64,
            };
            ours.record(SimDuration::from_nanos(ns));
            theirs.saturating_record(ns.clamp(1, DURATION_MAX_NS));
            if k % 997 == 0 {
                for q in [0.0, 0.1, 0.5, 0.95, 0.99, 0.999, 1.0] {
                    assert_eq!(ours.value_at_quantile(q), theirs.value_at_quantile(q), "q {q} after {k}");
                }
                let p = ours.percentiles();
                assert_eq!(p.max, theirs.max() as f64 / 1e9);
                // The three read in one walk, as each alone.
                assert_eq!(p.p50, theirs.value_at_quantile(0.5) as f64 / 1e9);
                assert_eq!(p.p95, theirs.value_at_quantile(0.95) as f64 / 1e9);
                assert_eq!(p.p99, theirs.value_at_quantile(0.99) as f64 / 1e9);
            }
        }
        assert_eq!(ours.count(), theirs.len());
        for v in [1u64, 255, 256, 257, 511, 512, 1 << 20, (1 << 20) + 12_345, DURATION_MAX_NS] {
            assert_eq!(highest_equivalent(v), theirs.highest_equivalent(v), "value {v}");
            assert_eq!(lowest_at(index_of(v)), theirs.lowest_equivalent(v), "value {v}");
        }
    }

    #[test]
    fn transition_log_keeps_the_latest() {
        let mut log = TransitionLog::new(3);
        for i in 0..10 {
            log.push(Transition { time: SimTime::from_nanos(i), node: 0, from: State::Up, to: State::Down, cause: Cause::Schedule });
        }
        assert_eq!(log.total(), 10);
        let times: Vec<u64> = log.entries().map(|t| t.time.as_nanos()).collect();
        assert_eq!(times, vec![7, 8, 9]);
    }
}
