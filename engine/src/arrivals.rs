//! Arrival processes: when a producer makes its messages (constant,
//! Poisson, on/off bursts, bursts of messages at once, a linear ramp, a
//! script of instants, or a closed loop of clients).
//!
//! Guarantees: every parameter is checked (`validate`); the next instant of
//! an on/off or ramp process is found exactly and in constant time, from
//! any instant, in integer nanoseconds for on/off periods (a float
//! remainder could stop the clock) and by inversion for a ramp. A trace
//! (a script, or an access log dropped on the page) may give each message
//! a key and the service time its request took; its lists are shared, not
//! copied, when a scenario is (an undo history or a run holding a
//! million-line log keeps one copy of it).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::message::MAX_KEY_BYTES;
use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::distribution::Distribution;
use crate::time::{SimDuration, SimTime};
use crate::plumbing::validate::{check_range, push_error, FieldError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "process", rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrivals {
    /// One message every 1/rate seconds.
    Constant { rate_per_s: f64 },
    /// Exponential gaps with mean 1/rate seconds.
    Poisson { rate_per_s: f64 },
    /// Poisson at `rate_per_s` for `on_s` seconds, then silent for `off_s`.
    OnOff { rate_per_s: f64, on_s: f64, off_s: f64 },
    /// `size` messages at the same instant, every `every_s` seconds (at
    /// `every_s`, `2·every_s`, …): clients that send back to back.
    Bursts { size: u32, every_s: f64 },
    /// Poisson whose rate moves linearly from `from_per_s` to `to_per_s`
    /// over `over_s` seconds, then stays at `to_per_s`.
    Ramp { from_per_s: f64, to_per_s: f64, over_s: f64 },
    /// One message at each instant (seconds, increasing); optionally each
    /// one's key (a client, a path: what a keyed limiter counts by) and
    /// the service time its request took, used as `service_times` says.
    Trace {
        times_s: Arc<Vec<f64>>,
        #[serde(default, skip_serializing_if = "no_keys")]
        keys: Arc<TraceKeys>,
        #[serde(default, skip_serializing_if = "is_empty")]
        service_s: Arc<Vec<f64>>,
        #[serde(default, skip_serializing_if = "ServiceTimes::is_scenario")]
        service_times: ServiceTimes,
    },
    /// `clients` requests outstanding; each client thinks for a `think`
    /// time (seconds) between one being processed and sending the next.
    ClosedLoop { clients: u32, think: Distribution },
}

impl Arrivals {
    /// The long-run rate, where the process has one of its own.
    pub fn rate_per_s(&self) -> Option<f64> {
        match self {
            Arrivals::Constant { rate_per_s } | Arrivals::Poisson { rate_per_s } => Some(*rate_per_s),
            Arrivals::OnOff { rate_per_s, on_s, off_s } => Some(rate_per_s * on_s / (on_s + off_s)),
            Arrivals::Ramp { to_per_s, .. } => Some(*to_per_s),
            Arrivals::Bursts { size, every_s } => Some(f64::from(*size) / every_s),
            Arrivals::Trace { .. } | Arrivals::ClosedLoop { .. } => None,
        }
    }

    /// Checks the process's parameters at `path`.
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        let a = path;
        let positive_rate = |errors: &mut Vec<FieldError>, field: &str, rate: f64| {
            check_range(errors, format!("{a}.{field}"), rate, 0.0, MAX_RATE_PER_S);
            if rate == 0.0 {
                push_error(errors, format!("{a}.{field}"), "must be greater than 0");
            }
        };
        match self {
            Arrivals::Constant { rate_per_s } | Arrivals::Poisson { rate_per_s } => {
                positive_rate(errors, "rate_per_s", *rate_per_s)
            }
            Arrivals::OnOff { rate_per_s, on_s, off_s } => {
                positive_rate(errors, "rate_per_s", *rate_per_s);
                check_range(errors, format!("{a}.on_s"), *on_s, 1e-6, 1e9);
                check_range(errors, format!("{a}.off_s"), *off_s, 0.0, 1e9);
            }
            Arrivals::Bursts { size, every_s } => {
                if *size == 0 || *size > 100_000 {
                    push_error(errors, format!("{a}.size"), "must be between 1 and 100,000");
                }
                check_range(errors, format!("{a}.every_s"), *every_s, 1e-6, 1e9);
                if f64::from(*size) / every_s > MAX_RATE_PER_S {
                    push_error(errors, format!("{a}.every_s"), "size / every_s must be at most 10⁹ messages a second");
                }
            }
            Arrivals::Ramp { from_per_s, to_per_s, over_s } => {
                check_range(errors, format!("{a}.from_per_s"), *from_per_s, 0.0, MAX_RATE_PER_S);
                check_range(errors, format!("{a}.to_per_s"), *to_per_s, 0.0, MAX_RATE_PER_S);
                if *from_per_s == 0.0 && *to_per_s == 0.0 {
                    push_error(errors, format!("{a}.to_per_s"), "a ramp from 0 to 0 never sends");
                }
                check_range(errors, format!("{a}.over_s"), *over_s, 1e-6, 1e9);
            }
            Arrivals::Trace { times_s, keys, service_s, service_times } => {
                if times_s.len() > MAX_TRACE_LINES {
                    push_error(errors, format!("{a}.times_s"), "at most 2,000,000 instants");
                }
                if !keys.is_empty() && keys.len() != times_s.len() {
                    push_error(errors, format!("{a}.keys"), format!("gives {} keys for {} instants: give one a message (\"\" for none), or none", keys.len(), times_s.len()));
                }
                if let Some(long) = keys.names.iter().position(|k| k.len() > MAX_KEY_BYTES) {
                    let i = keys.of.iter().position(|&k| k as usize == long + 1).unwrap_or(0);
                    push_error(errors, format!("{a}.keys[{i}]"), format!("a key is at most {MAX_KEY_BYTES} bytes"));
                }
                if !service_s.is_empty() && service_s.len() != times_s.len() {
                    push_error(errors, format!("{a}.service_s"), format!("gives {} service times for {} instants: give one a message, or none", service_s.len(), times_s.len()));
                }
                if let Some(i) = service_s.iter().position(|s| !(0.0..=1e9).contains(s)) {
                    push_error(errors, format!("{a}.service_s[{i}]"), "must be from 0 to 1e9 seconds");
                }
                if *service_times != ServiceTimes::Scenario && service_s.is_empty() {
                    push_error(errors, format!("{a}.service_times"), "needs the trace's service times (service_s)");
                }
                let mut last = 0.0;
                for (i, t) in times_s.iter().enumerate() {
                    // A path is written only for an instant out of range:
                    // a million-line log is checked at every edit.
                    if !(0.0..=1e9).contains(t) {
                        check_range(errors, format!("{a}.times_s[{i}]"), *t, 0.0, 1e9);
                    }
                    if *t < last {
                        push_error(errors, format!("{a}.times_s[{i}]"), "instants must not decrease");
                        break;
                    }
                    last = *t;
                }
            }
            Arrivals::ClosedLoop { clients, think } => {
                if *clients == 0 || *clients > 1_000_000 {
                    push_error(errors, format!("{a}.clients"), "must be between 1 and 1,000,000");
                }
                think.validate(&format!("{a}.think"), 0.0, 1e6, errors);
            }
        }
    }
}


/// The instant an on/off process's Poisson clock, which runs only during on
/// periods, has run for `need` after `now`. Periods start at time zero:
/// `on`, then `off`, repeating. Integer nanoseconds throughout, and no loop:
/// a float remainder of the period can come out just below the period and
/// stop the clock from ever advancing.
pub(crate) fn on_off_arrival(now: SimTime, need: SimDuration, on: SimDuration, off: SimDuration) -> SimTime {
    let (on, need) = (on.as_nanos().max(1), need.as_nanos());
    let period = on.saturating_add(off.as_nanos());
    let t = now.as_nanos();
    let phase = t % period;
    // The start of the on period that `now` is in, or of the next one.
    let (on_start, used) = if phase < on { (t - phase, phase) } else { ((t - phase).saturating_add(period), 0) };
    // The clock's whole on periods and what is left of the last, counted
    // from the start of that on period.
    let total = need.saturating_add(used);
    let (cycles, rest) = (total / on, total % on);
    let at = on_start.saturating_add(cycles.saturating_mul(period)).saturating_add(rest);
    SimTime::from_nanos(at)
}

/// The first instant of the grid `every`, `2·every`, … after `now`
/// (integer nanoseconds).
pub(crate) fn next_burst(now: SimTime, every: SimDuration) -> SimTime {
    let every = every.as_nanos().max(1);
    SimTime::from_nanos((now.as_nanos() / every).saturating_add(1).saturating_mul(every))
}

/// The next arrival, in seconds, of a Poisson process whose rate moves
/// linearly from `from` to `to` over `over` seconds and then stays at `to`,
/// after `now`: the instant at which the integrated rate since `now` reaches
/// `work`, a draw of the unit exponential (inversion, exact and O(1)).
/// `None` when the rate has fallen to zero for good before that.
pub(crate) fn ramp_arrival(now: f64, work: f64, from: f64, to: f64, over: f64) -> Option<f64> {
    let mut work = work;
    let mut t = now;
    if t < over {
        let slope = (to - from) / over;
        let rate_now = from + slope * t;
        // What the ramp's remaining part can absorb: the area under the
        // rate from `t` to `over`.
        let left = over - t;
        let area = (rate_now + to) / 2.0 * left;
        if work <= area {
            // rate_now·x + slope·x²/2 = work, written so that it stays
            // exact when the slope is zero or negative.
            let root = libm::sqrt((rate_now * rate_now + 2.0 * slope * work).max(0.0));
            let denominator = rate_now + root;
            let x = if denominator > 0.0 { 2.0 * work / denominator } else { 0.0 };
            return Some(t + x.min(left));
        }
        work -= area;
        t = over;
    }
    (to > 0.0).then(|| t + work / to)
}

/// The highest rate a producer may have.
pub const MAX_RATE_PER_S: f64 = 1e9;

/// The most instants a trace holds: a day of a busy server's log, kept
/// in about 40 MB.
pub const MAX_TRACE_LINES: usize = 2_000_000;

fn is_empty(list: &Arc<Vec<f64>>) -> bool {
    list.is_empty()
}

fn no_keys(keys: &Arc<TraceKeys>) -> bool {
    keys.is_empty()
}

impl Arrivals {
    /// A trace of `times_s`, with no keys and no service times.
    pub fn trace(times_s: Vec<f64>) -> Arrivals {
        Arrivals::Trace { times_s: Arc::new(times_s), keys: Arc::default(), service_s: Arc::default(), service_times: ServiceTimes::Scenario }
    }

    /// How many instants a trace holds (0 for any other process).
    pub fn trace_lines(&self) -> usize {
        match self {
            Arrivals::Trace { times_s, .. } => times_s.len(),
            _ => 0,
        }
    }

    /// Whether it is a trace whose messages carry more than their instants
    /// (keys, or service times the consumers use): such a trace is played
    /// as a replay (`Simulation`), and a change of it starts the run again.
    pub fn replays(&self) -> bool {
        matches!(self, Arrivals::Trace { keys, service_times, .. } if !keys.is_empty() || *service_times != ServiceTimes::Scenario)
    }
}

/// What serves a replayed trace's messages at the consumers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServiceTimes {
    /// Each consumer's own `service_time`, as the scenario says.
    #[default]
    Scenario,
    /// Each message takes what its request took in the log.
    Log,
    /// Each message takes one of the log's times, drawn at random (their
    /// empirical distribution).
    Empirical,
}

impl ServiceTimes {
    fn is_scenario(&self) -> bool {
        *self == ServiceTimes::Scenario
    }
}

/// A trace's keys, one a message (the empty text for none), each distinct
/// text kept once and each message holding its number: a million
/// messages from a few thousand clients take 4 MB, not 40. A file writes
/// them as one string a message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceKeys {
    /// The distinct texts in order of first use: the key numbered `k` is
    /// `names[k - 1]`; 0 is none.
    names: Vec<String>,
    /// Each message's key's number.
    of: Vec<u32>,
}

impl TraceKeys {
    /// The keys numbered `of` (0 for none, `k` for `names[k - 1]`); `None`
    /// when a number names no text.
    pub fn new(names: Vec<String>, of: Vec<u32>) -> Option<TraceKeys> {
        of.iter().all(|&k| k as usize <= names.len()).then_some(TraceKeys { names, of })
    }

    /// Whether the trace gives no keys (its messages have none).
    pub fn is_empty(&self) -> bool {
        self.of.is_empty()
    }

    /// How many messages it gives a key (or none) for.
    pub fn len(&self) -> usize {
        self.of.len()
    }

    /// The distinct texts, the key numbered `k` at `k - 1`.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Each message's key's number (0 for none).
    pub fn numbers(&self) -> &[u32] {
        &self.of
    }

    /// The text of message `i`'s key (empty for none).
    pub fn name_of(&self, i: usize) -> &str {
        match self.of.get(i) {
            Some(&k) if k > 0 => self.names.get(k as usize - 1).map_or("", String::as_str),
            _ => "",
        }
    }
}

impl Serialize for TraceKeys {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((0..self.of.len()).map(|i| self.name_of(i)))
    }
}

impl<'de> Deserialize<'de> for TraceKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TraceKeys, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = TraceKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of keys, one string a message")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<TraceKeys, A::Error> {
                let mut keys = TraceKeys::default();
                let mut index = std::collections::HashMap::<String, u32>::new();
                while let Some(text) = seq.next_element::<String>()? {
                    let k = if text.is_empty() {
                        0
                    } else if let Some(&k) = index.get(&text) {
                        k
                    } else {
                        let k = u32::try_from(keys.names.len() + 1).map_err(|_| serde::de::Error::custom("too many distinct keys"))?;
                        keys.names.push(text.clone());
                        index.insert(text, k);
                        k
                    };
                    keys.of.push(k);
                }
                Ok(keys)
            }
        }
        deserializer.deserialize_seq(Keys)
    }
}


impl Arrivals {
    /// Its number field at `steps`: a parameter of the process, an instant
    /// of a trace (`times_s[2]`), or one of a closed loop's think time.
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match (self, steps) {
            (
                Arrivals::Constant { rate_per_s } | Arrivals::Poisson { rate_per_s } | Arrivals::OnOff { rate_per_s, .. },
                [Step::Key("rate_per_s")],
            ) => Some(NumberField::Real(rate_per_s)),
            (Arrivals::OnOff { on_s, .. }, [Step::Key("on_s")]) => Some(NumberField::Real(on_s)),
            (Arrivals::OnOff { off_s, .. }, [Step::Key("off_s")]) => Some(NumberField::Real(off_s)),
            (Arrivals::Bursts { size, .. }, [Step::Key("size")]) => Some(NumberField::Whole32(size)),
            (Arrivals::Bursts { every_s, .. }, [Step::Key("every_s")]) => Some(NumberField::Real(every_s)),
            (Arrivals::Ramp { from_per_s, .. }, [Step::Key("from_per_s")]) => Some(NumberField::Real(from_per_s)),
            (Arrivals::Ramp { to_per_s, .. }, [Step::Key("to_per_s")]) => Some(NumberField::Real(to_per_s)),
            (Arrivals::Ramp { over_s, .. }, [Step::Key("over_s")]) => Some(NumberField::Real(over_s)),
            (Arrivals::Trace { times_s, .. }, [Step::Key("times_s"), Step::Index(i)]) => Arc::make_mut(times_s).get_mut(*i).map(NumberField::Real),
            (Arrivals::ClosedLoop { clients, .. }, [Step::Key("clients")]) => Some(NumberField::Whole32(clients)),
            (Arrivals::ClosedLoop { think, .. }, [Step::Key("think"), rest @ ..]) => think.number_mut(rest),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    /// The on time between `from` and `to`, counted nanosecond period by
    /// period: the slow, obvious reckoning.
    fn on_time_between(from: u64, to: u64, on: u64, period: u64) -> u64 {
        let mut total = 0;
        let mut start = from - from % period;
        while start < to {
            let (a, b) = (start.max(from), (start + on).min(to));
            total += b.saturating_sub(a);
            start += period;
        }
        total
    }

    #[test]
    fn an_on_off_clock_runs_only_while_on_and_always_moves_on() {
        let mut rng = SimRng::new(11);
        for _ in 0..20_000 {
            // Non-round lengths, from a microsecond to a few seconds.
            let on = 1_000 + (rng.uniform() * 3e9) as u64;
            let off = if rng.uniform() < 0.1 { 0 } else { (rng.uniform() * 3e9) as u64 };
            // From any instant up to 10^6 s.
            let now = (rng.uniform() * 1e15) as u64;
            let need = (rng.uniform() * 1e10) as u64;
            let at = on_off_arrival(SimTime::from_nanos(now), SimDuration::from_nanos(need), SimDuration::from_nanos(on), SimDuration::from_nanos(off))
                .as_nanos();
            assert!(at >= now);
            assert_eq!(on_time_between(now, at, on, on + off), need, "now {now}, need {need}, on {on}, off {off}");
            // Not in an off period (its very start is the end of an on one).
            assert!(at % (on + off) <= on, "at {at}: on {on}, off {off}");
        }
    }

    #[test]
    fn an_on_off_clock_far_in_the_future_saturates() {
        let at = on_off_arrival(SimTime::from_nanos(u64::MAX - 5), SimDuration::from_nanos(u64::MAX), SimDuration::from_nanos(1_000), SimDuration::from_nanos(u64::MAX / 2));
        assert_eq!(at, SimTime::MAX);
    }

    /// The integral of a ramp's rate from `a` to `b` seconds, in closed form.
    fn ramp_area(from: f64, to: f64, over: f64, a: f64, b: f64) -> f64 {
        let rate = |t: f64| from + (to - from) * (t / over).min(1.0);
        let (ra, rb) = (a.min(over), b.min(over));
        let ramp = (rate(ra) + rate(rb)) / 2.0 * (rb - ra);
        ramp + to * (b.max(over) - a.max(over))
    }

    /// From any instant up to 10^6 s, over random non-round ramps, rising
    /// and falling: the next arrival is found in one step, is no earlier
    /// than now, and the rate's integral up to it is the work drawn (or the
    /// ramp ends at 0 before it is done, and there is no next arrival).
    #[test]
    fn a_ramp_finds_its_next_arrival_from_any_instant() {
        let mut rng = SimRng::new(29);
        for _ in 0..50_000 {
            let scale = |r: &mut SimRng| libm::pow(10.0, r.uniform() * 15.0 - 6.0);
            let (from, to) = (scale(&mut rng) * (rng.uniform() < 0.9) as u8 as f64, scale(&mut rng) * (rng.uniform() < 0.8) as u8 as f64);
            let over = libm::pow(10.0, rng.uniform() * 12.0 - 6.0);
            let now = rng.uniform() * 1e6;
            let work = rng.exponential(1.0);
            match ramp_arrival(now, work, from, to, over) {
                Some(at) => {
                    assert!(at >= now, "{at} before {now}");
                    let area = ramp_area(from, to, over, now, at);
                    // Within a millionth, or what the resolution of an
                    // instant in seconds holds at the highest rate (far
                    // below the nanosecond the engine rounds to).
                    let resolution = 4.0 * f64::EPSILON * at.max(1.0) * from.max(to);
                    assert!((area - work).abs() <= 1e-6 * work + resolution, "{from}→{to} over {over} from {now}: area {area}, work {work}");
                }
                None => {
                    assert_eq!(to, 0.0, "only a ramp down to 0 stops");
                    assert!(ramp_area(from, to, over, now, over.max(now)) < work * (1.0 + 1e-9));
                }
            }
        }
    }

    #[test]
    fn a_ramp_arrival_takes_the_area_asked_for() {
        // The area under the rate from `now` to the arrival is the work drawn.
        let area = |from: f64, to: f64, over: f64, a: f64, b: f64| {
            let rate = |t: f64| from + (to - from) * (t / over).min(1.0);
            let n = 100_000;
            (0..n).map(|k| rate(a + (b - a) * (k as f64 + 0.5) / n as f64)).sum::<f64>() * (b - a) / n as f64
        };
        for (from, to, over, now, work) in [(0.0, 200.0, 100.0, 3.0, 7.5), (1000.0, 1.0, 10.0, 2.5, 4000.0), (5.0, 5.0, 1.0, 0.0, 2.0), (9.0, 3.0, 2.0, 1.0, 30.0)] {
            let at = ramp_arrival(now, work, from, to, over).unwrap();
            assert!(at > now);
            let got = area(from, to, over, now, at);
            assert!((got - work).abs() < 1e-6 * work.max(1.0), "{from}→{to} over {over} from {now}: area {got}, asked {work}");
        }
        assert_eq!(ramp_arrival(20.0, 1.0, 100.0, 0.0, 10.0), None, "the rate is zero for good");
        assert_eq!(ramp_arrival(0.0, 1e9, 1e9, 1e-9, 1e-6), Some(1e-6 + (1e9 - 0.5 * (1e9 + 1e-9) * 1e-6) / 1e-9));
    }
}
