//! The shadow panel's figures: what a run's limiters did to each key (the
//! keys refused most), and when they refused, as the run goes.
//!
//! Guarantees: shown only for a run whose limiters decided something;
//! the keys are the run's own texts (a replayed log's clients, a
//! producer's `kN`), requests without a key counted apart; the time line
//! has one bar every ten seconds of the run, or every minute once the run
//! has passed ten minutes, each wider where that would make more than
//! `MOST_BARS`.

use sluice_engine::tally::KeyCounts;
use sluice_engine::Simulation;

/// How many keys the panel lists.
pub const KEYS_LISTED: usize = 5;

/// The most bars the time line draws: past that, each spans more.
pub const MOST_BARS: usize = 120;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShadowView {
    /// The keys refused most, most first, with their counts.
    pub keys: Vec<(String, KeyCounts)>,
    /// Every key together.
    pub total: KeyCounts,
    /// Requests with no key.
    pub unkeyed: KeyCounts,
    /// Refusals in each bar of the time line: its start (seconds of the
    /// run) and count.
    pub bins: Vec<(u64, u64)>,
    /// Seconds a bar spans.
    pub bin_s: u64,
}

impl ShadowView {
    pub fn of(sim: &Simulation) -> Option<ShadowView> {
        let tally = sim.tally().filter(|t| t.decisions() > 0)?;
        let bin_s = if sim.now().as_secs_f64() >= 600.0 { 60 } else { sluice_engine::tally::BIN_S };
        let (bin_s, bins) = tally.refused_by(bin_s, MOST_BARS);
        Some(ShadowView {
            keys: tally.most_refused(KEYS_LISTED).into_iter().map(|(k, c)| (sim.key_name(k), c)).collect(),
            total: tally.total(),
            unkeyed: tally.unkeyed(),
            bins,
            bin_s,
        })
    }
}

/// Seconds of the run as a clock: `1:20`, `2:01:20` past an hour.
pub fn clock(s: u64) -> String {
    match s / 3600 {
        0 => format!("{}:{:02}", s / 60, s % 60),
        h => format!("{h}:{:02}:{:02}", s / 60 % 60, s % 60),
    }
}

/// A bar's width in words: `10 s`, `1 min`, `2 h`.
pub fn width(bin_s: u64) -> String {
    match bin_s {
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// A bar's span in words: `1:20–1:30`.
pub fn span(start_s: u64, bin_s: u64) -> String {
    format!("{}–{}", clock(start_s), clock(start_s + bin_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bars_span_reads_as_a_clock() {
        assert_eq!(span(0, 10), "0:00–0:10");
        assert_eq!(span(80, 10), "1:20–1:30");
        assert_eq!(span(600, 60), "10:00–11:00");
        assert_eq!(span(7260, 60), "2:01:00–2:02:00");
        assert_eq!([width(10), width(60), width(90), width(7200)], ["10 s", "1 min", "90 s", "2 h"]);
    }
}
