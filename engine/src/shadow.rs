//! Shadow replay: what a scenario's limiters would have done to a log's
//! traffic, per key and per minute: how many requests each let through at
//! once, delayed (and by how much), and refused. What an operator learns
//! by running a limit in "shadow mode" for days, in the seconds a replay
//! takes.
//!
//! Guarantees:
//! - Every decision a limiter recorded is counted once, in the minute its
//!   request was made (minutes of the log's own clock, starting on whole
//!   minutes since 1970), under the limiter and the request's key.
//! - A dry run's decisions count as what the limiter would have done: a
//!   `rejected_dry_run` as refused, a `delayed_dry_run` as delayed; their
//!   delay is none (a dry run lets everything through at once), so the
//!   delay figures are those of requests delayed for real.
//! - Rows go in the order of their minute, then limiter, then key.

use std::collections::BTreeMap;

use crate::metrics::{Decision, Outcome};

const NANOS_PER_MINUTE: u64 = 60_000_000_000;

/// What one limiter did to one key's requests in one minute.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    pub admitted: u64,
    pub delayed: u64,
    pub refused: u64,
    /// Requests delayed for real, and their delays' sum and largest, in
    /// nanoseconds.
    pub really_delayed: u64,
    pub delay_sum_ns: u128,
    pub delay_max_ns: u64,
}

impl Counts {
    /// The mean delay of the requests delayed for real, in seconds.
    pub fn delay_mean_s(&self) -> f64 {
        if self.really_delayed == 0 {
            0.0
        } else {
            self.delay_sum_ns as f64 / self.really_delayed as f64 / 1e9
        }
    }

    pub fn delay_max_s(&self) -> f64 {
        self.delay_max_ns as f64 / 1e9
    }

    pub fn total(&self) -> u64 {
        self.admitted + self.delayed + self.refused
    }
}

/// Decisions gathered by minute, limiter and key.
#[derive(Clone, Debug, Default)]
pub struct Shadow {
    /// Nanoseconds from 1970 of the run's instant zero (a replay's origin).
    origin_ns: u64,
    rows: BTreeMap<(u64, u32, u32), Counts>,
}

impl Shadow {
    /// An empty shadow of a run whose instant zero is `origin_s` seconds
    /// after 1970 (a replay's `origin_s`; 0 for a run of its own).
    pub fn new(origin_s: u64) -> Shadow {
        Shadow { origin_ns: origin_s.saturating_mul(1_000_000_000), rows: BTreeMap::new() }
    }

    /// Counts `decisions` (as `Simulation::take_decisions` gives them).
    pub fn add(&mut self, decisions: &[Decision]) {
        for d in decisions {
            let minute = (self.origin_ns.saturating_add(d.created.as_nanos())) / NANOS_PER_MINUTE;
            let c = self.rows.entry((minute, d.node, d.key)).or_default();
            match d.outcome {
                Outcome::Admitted => c.admitted += 1,
                Outcome::Delayed => {
                    c.delayed += 1;
                    let delay = d.at.as_nanos().saturating_sub(d.met.as_nanos());
                    c.really_delayed += 1;
                    c.delay_sum_ns += u128::from(delay);
                    c.delay_max_ns = c.delay_max_ns.max(delay);
                }
                Outcome::DelayedDryRun => c.delayed += 1,
                Outcome::Rejected | Outcome::RejectedDryRun => c.refused += 1,
            }
        }
    }

    /// Every row: the minute's start (seconds since 1970), the limiter's
    /// node index, the key's number, and the counts.
    pub fn rows(&self) -> impl Iterator<Item = (u64, usize, u32, &Counts)> {
        self.rows.iter().map(|(&(minute, node, key), c)| (minute * 60, node as usize, key, c))
    }

    /// The keys refused most over the whole replay, most first (ties by
    /// key number), at most `n`: what a page's panel lists first.
    pub fn most_refused(&self, n: usize) -> Vec<(u32, u64)> {
        let mut by_key: BTreeMap<u32, u64> = BTreeMap::new();
        for (&(_, _, key), c) in &self.rows {
            *by_key.entry(key).or_default() += c.refused;
        }
        let mut keys: Vec<(u32, u64)> = by_key.into_iter().filter(|&(_, r)| r > 0).collect();
        keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        keys.truncate(n);
        keys
    }

    /// Refusals per minute over every key and limiter: the minute's start
    /// and the count, in order (a time line).
    pub fn refused_by_minute(&self) -> Vec<(u64, u64)> {
        let mut by_minute: BTreeMap<u64, u64> = BTreeMap::new();
        for (&(minute, _, _), c) in &self.rows {
            *by_minute.entry(minute * 60).or_default() += c.refused;
        }
        by_minute.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn d(created_s: f64, key: u32, node: u32, outcome: Outcome, met_s: f64, at_s: f64) -> Decision {
        let t = SimTime::from_secs_f64;
        Decision { created: t(created_s), key, node, outcome, met: t(met_s), at: t(at_s) }
    }

    #[test]
    fn decisions_count_once_by_minute_limiter_and_key() {
        // The run's zero is 30 s into a minute: its first 30 s are that
        // minute's, the next 60 the next one's.
        let mut s = Shadow::new(1_700_000_010);
        s.add(&[
            d(0.0, 1, 2, Outcome::Admitted, 0.0, 0.0),
            d(1.0, 1, 2, Outcome::Delayed, 1.0, 1.5),
            d(2.0, 1, 2, Outcome::Delayed, 2.0, 4.0),
            d(3.0, 1, 2, Outcome::Rejected, 3.0, 3.0),
            d(29.9, 2, 2, Outcome::RejectedDryRun, 29.9, 29.9),
            d(30.1, 2, 2, Outcome::DelayedDryRun, 30.1, 30.1),
            d(30.2, 2, 5, Outcome::Admitted, 30.2, 30.2),
        ]);
        let rows: Vec<_> = s.rows().map(|(m, n, k, c)| (m, n, k, c.clone())).collect();
        assert_eq!(rows.len(), 4);
        let (m, n, k, c) = &rows[0];
        assert_eq!((*m, *n, *k), (1_699_999_980, 2, 1));
        assert_eq!((c.admitted, c.delayed, c.refused, c.total()), (1, 2, 1, 4));
        assert!((c.delay_mean_s() - 1.25).abs() < 1e-9 && (c.delay_max_s() - 2.0).abs() < 1e-9);
        assert_eq!((rows[1].0, rows[1].2, rows[1].3.refused), (1_699_999_980, 2, 1));
        assert_eq!((rows[2].0, rows[2].1, rows[2].3.delayed, rows[2].3.delay_max_s()), (1_700_000_040, 2, 1, 0.0));
        assert_eq!((rows[3].0, rows[3].1, rows[3].3.admitted), (1_700_000_040, 5, 1));
        assert_eq!(s.most_refused(5), [(1, 1), (2, 1)]);
        assert_eq!(s.refused_by_minute(), [(1_699_999_980, 2), (1_700_000_040, 0)]);
    }
}
