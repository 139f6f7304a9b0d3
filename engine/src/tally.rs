//! What a run's limiters did to each key, as the run goes: the page's
//! shadow panel (the keys refused most, and a time line of refusals) on a
//! replayed log, without keeping each decision.
//!
//! Guarantees: every decision a limiter records is counted once, under
//! its request's key (admitted, delayed or refused; a dry run's as what
//! it would have done) and, when refused, in the ten seconds of the run
//! its request was made in. Memory grows with the keys and the length of
//! the run, not with the requests.

use std::collections::{BTreeMap, HashMap};

use crate::message::NO_KEY;
use crate::metrics::{Decision, Outcome};

/// Seconds a bin of the time line spans.
pub const BIN_S: u64 = 10;

/// What the limiters did to one key's requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyCounts {
    pub admitted: u64,
    pub delayed: u64,
    pub refused: u64,
}

/// Decisions counted by key, and refusals by ten seconds.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    by_key: HashMap<u32, KeyCounts>,
    refused_by_bin: BTreeMap<u64, u64>,
    decisions: u64,
}

impl Tally {
    pub fn add(&mut self, d: &Decision) {
        let c = self.by_key.entry(d.key).or_default();
        self.decisions += 1;
        match d.outcome {
            Outcome::Admitted => c.admitted += 1,
            Outcome::Delayed | Outcome::DelayedDryRun => c.delayed += 1,
            Outcome::Rejected | Outcome::RejectedDryRun => {
                c.refused += 1;
                *self.refused_by_bin.entry(d.created.as_nanos() / (BIN_S * 1_000_000_000)).or_default() += 1;
            }
        }
    }

    /// How many decisions were counted.
    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    /// The `n` keys refused most, most first (ties by key number), with
    /// their counts; keys never refused, and requests with no key
    /// (`unkeyed`), are left out.
    pub fn most_refused(&self, n: usize) -> Vec<(u32, KeyCounts)> {
        let mut keys: Vec<(u32, KeyCounts)> = self.by_key.iter().filter(|(&k, c)| k != NO_KEY && c.refused > 0).map(|(&k, &c)| (k, c)).collect();
        let order = |a: &(u32, KeyCounts), b: &(u32, KeyCounts)| b.1.refused.cmp(&a.1.refused).then(a.0.cmp(&b.0));
        if keys.len() > n && n > 0 {
            keys.select_nth_unstable_by(n - 1, order);
            keys.truncate(n);
        }
        keys.sort_by(order);
        keys.truncate(n);
        keys
    }

    /// One key's counts.
    pub fn of_key(&self, key: u32) -> KeyCounts {
        self.by_key.get(&key).copied().unwrap_or_default()
    }

    /// The counts of requests with no key.
    pub fn unkeyed(&self) -> KeyCounts {
        self.of_key(NO_KEY)
    }

    /// All keys' counts together.
    pub fn total(&self) -> KeyCounts {
        self.by_key.values().fold(KeyCounts::default(), |t, c| KeyCounts { admitted: t.admitted + c.admitted, delayed: t.delayed + c.delayed, refused: t.refused + c.refused })
    }

    /// Refusals by bins of `bin_s` seconds (a multiple of `BIN_S`), wider
    /// where that would make more than `at_most` bins: the bins' width,
    /// and each bin's start in seconds of the run and its count, every bin
    /// from the first to the last with a refusal, in order.
    pub fn refused_by(&self, bin_s: u64, at_most: usize) -> (u64, Vec<(u64, u64)>) {
        let (Some(&first), Some(&last)) = (self.refused_by_bin.keys().next(), self.refused_by_bin.keys().next_back()) else { return (bin_s, Vec::new()) };
        let span = (last - first + 1).div_ceil(at_most.max(1) as u64);
        let per = (bin_s / BIN_S).max(span).max(1);
        let mut bins: BTreeMap<u64, u64> = BTreeMap::new();
        for (&b, &n) in &self.refused_by_bin {
            *bins.entry(b / per).or_default() += n;
        }
        let (first, last) = (first / per, last / per);
        (per * BIN_S, (first..=last).map(|b| (b * per * BIN_S, bins.get(&b).copied().unwrap_or(0))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn d(created_s: f64, key: u32, outcome: Outcome) -> Decision {
        let t = SimTime::from_secs_f64(created_s);
        Decision { created: t, key, node: 0, outcome, met: t, at: t }
    }

    #[test]
    fn keys_are_counted_and_refusals_binned() {
        let mut t = Tally::default();
        for (s, key, outcome) in [
            (1.0, 7, Outcome::Rejected),
            (2.0, 7, Outcome::RejectedDryRun),
            (3.0, 8, Outcome::Rejected),
            (4.0, 9, Outcome::Admitted),
            (35.0, 8, Outcome::Delayed),
            (61.0, 9, Outcome::Rejected),
            (62.0, 7, Outcome::DelayedDryRun),
            (63.0, 0, Outcome::Rejected),
            (64.0, 0, Outcome::Rejected),
            (65.0, 0, Outcome::Rejected),
        ] {
            t.add(&d(s, key, outcome));
        }
        assert_eq!(t.decisions(), 10);
        assert_eq!(t.unkeyed(), KeyCounts { admitted: 0, delayed: 0, refused: 3 }, "counted apart, not listed");
        assert_eq!(t.most_refused(2), [(7, KeyCounts { admitted: 0, delayed: 1, refused: 2 }), (8, KeyCounts { admitted: 0, delayed: 1, refused: 1 })]);
        assert_eq!(t.most_refused(5).len(), 3);
        assert_eq!(t.total(), KeyCounts { admitted: 1, delayed: 2, refused: 7 });
        assert_eq!((t.of_key(9), t.of_key(3)), (KeyCounts { admitted: 1, delayed: 0, refused: 1 }, KeyCounts::default()));
        assert_eq!(t.refused_by(10, 200), (10, vec![(0, 3), (10, 0), (20, 0), (30, 0), (40, 0), (50, 0), (60, 4)]));
        assert_eq!(t.refused_by(60, 200), (60, vec![(0, 3), (60, 4)]));
        assert_eq!(t.refused_by(10, 3), (30, vec![(0, 3), (30, 0), (60, 4)]), "widened to three bars");
        assert!(Tally::default().refused_by(60, 200).1.is_empty());
        // Refusals a billion seconds apart make two bars' worth, not a
        // hundred million.
        let mut far = Tally::default();
        far.add(&d(0.0, 1, Outcome::Rejected));
        far.add(&d(1e9, 1, Outcome::Rejected));
        let (width, bars) = far.refused_by(10, 200);
        assert!(bars.len() <= 200 && width >= 1e9 as u64 / 200, "{width} s, {} bars", bars.len());
        assert_eq!(bars.iter().map(|b| b.1).sum::<u64>(), 2);
    }
}
