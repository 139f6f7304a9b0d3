//! Simulation time.
//!
//! Guarantees: time is an integer count of nanoseconds, so ordering and
//! arithmetic are exact and identical on every platform; conversions from
//! seconds round to the nearest nanosecond and saturate instead of wrapping.

use std::fmt;
use std::ops::{Add, Sub};

/// A point on the simulation clock, in nanoseconds since the start of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulation time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

const NANOS_PER_SECOND: f64 = 1e9;

/// 2^63 as a float: below it, a value converts through i64.
const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

#[inline]
fn seconds_to_nanos(seconds: f64) -> u64 {
    // Rounds to nearest for positive values without a call to `round` (hot:
    // every sampled delay passes here). NaN and anything below one
    // nanosecond's half fail the first test and give 0.
    let nanos = seconds * NANOS_PER_SECOND + 0.5;
    if nanos >= 1.0 {
        if nanos < I64_LIMIT {
            // One instruction on x86-64, where `as u64` is a branchy sequence.
            nanos as i64 as u64
        } else {
            nanos as u64 // saturates at u64::MAX
        }
    } else {
        0
    }
}

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn from_nanos(nanos: u64) -> Self {
        SimTime(nanos)
    }
    pub fn from_secs_f64(seconds: f64) -> Self {
        SimTime(seconds_to_nanos(seconds))
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SECOND
    }
    /// The span from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_nanos(nanos: u64) -> Self {
        SimDuration(nanos)
    }
    pub fn from_secs_f64(seconds: f64) -> Self {
        SimDuration(seconds_to_nanos(seconds))
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SECOND
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, other: SimTime) -> SimDuration {
        self.since(other)
    }
}

/// Serialized as seconds, the unit people read.
impl serde::Serialize for SimTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_secs_f64())
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} s", self.as_secs_f64())
    }
}

/// In the unit that reads best: `250 ns`, `12.5 µs`, `3.2 ms`, `1.5 s`.
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns < 1_000 {
            write!(f, "{ns} ns")
        } else if ns < 1_000_000 {
            write!(f, "{:.3} µs", ns as f64 / 1e3)
        } else if ns < 1_000_000_000 {
            write!(f, "{:.3} ms", ns as f64 / 1e6)
        } else {
            write!(f, "{:.3} s", self.as_secs_f64())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip_to_the_nanosecond() {
        let t = SimTime::from_secs_f64(1.234_567_891);
        assert_eq!(t.as_nanos(), 1_234_567_891);
        assert_eq!(SimTime::from_secs_f64(-3.0), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64(f64::NAN), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64(1e300), SimTime::MAX);
        assert_eq!(SimTime::from_secs_f64(f64::INFINITY), SimTime::MAX);
        assert_eq!(SimTime::from_secs_f64(4e-10), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64(6e-10), SimTime::from_nanos(1));
        // Beyond 2^63 ns the conversion stays exact, short of saturating.
        assert_eq!(SimTime::from_secs_f64(1.2e10).as_nanos(), 12_000_000_000_000_000_000);
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(SimTime::MAX + SimDuration::from_nanos(5), SimTime::MAX);
        assert_eq!(SimTime::from_nanos(3) - SimTime::from_nanos(7), SimDuration::ZERO);
    }
}
