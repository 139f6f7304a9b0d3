//! Netflix's concurrency-limits, the limit algorithms, transcribed from
//! release v0.5.4 (`github.com/Netflix/concurrency-limits`, commit
//! 78a74b9, whose core differs from the tag's in a comment only), files of
//! `concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/`:
//! `limit/AIMDLimit.java`, `limit/VegasLimit.java` with
//! `limit/functions/Log10RootIntFunction.java`, `limit/Gradient2Limit.java`
//! with `limit/measurement/ExpAvgMeasurement.java`, and
//! `limit/WindowedLimit.java` with `limit/window/ImmutableAverageSampleWindow.java`
//! and `ImmutablePercentileSampleWindow.java`. The settings are
//! `netflix.rs`'s; the line numbers cited are the files' at that commit.
//!
//! Guarantees (each as the library has it):
//! - A sample is one request's: `rtt_ns` from its admission to its end,
//!   `inflight` the requests in flight at its admission counting itself,
//!   `did_drop` whether it ended dropped.
//! - Java's arithmetic is kept: AIMD's limit is a whole number, Vegas's
//!   and Gradient2's estimate a double published truncated; `(int)` is a
//!   truncation, `Math.ceil` a ceiling, `long / long` an integer division.
//! - Vegas's probe of its no-load time comes after a random number of
//!   samples: the draw is the caller's (`draw`, uniform in [0, 1)), so that
//!   a seeded run repeats. The library draws the first probe's jitter in
//!   its constructor; here at the first sample, from the same distribution.
//! - `WindowedLimit` gathers samples into windows closed by the first sample
//!   ending past the window's end, and passes a window on only when it holds
//!   at least `window_size` samples (the rest are lost, as in the library).

use super::netflix::{NetflixAimdSpec, NetflixGradient2Spec, NetflixVegasSpec, NetflixWindowSpec};

/// One request's sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Its admission, in nanoseconds.
    pub start_ns: i64,
    pub rtt_ns: i64,
    pub inflight: i32,
    pub did_drop: bool,
}

/// `AIMDLimit`: one more after a sample that used at least half the
/// limit, `backoff_ratio` of it after a drop or a time-out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aimd {
    limit: i32,
}

impl Aimd {
    /// The builder only warns of an initial limit outside the bounds: it
    /// stands until the first sample.
    pub fn new(spec: &NetflixAimdSpec) -> Aimd {
        Aimd { limit: spec.initial_limit as i32 }
    }

    pub fn limit(&self) -> i32 {
        self.limit
    }

    /// `_update` (l.101-112).
    pub fn update(&mut self, spec: &NetflixAimdSpec, s: Sample) -> i32 {
        let mut limit = self.limit;
        let timeout_ns = (spec.timeout_s * 1e9).round() as i64;
        if s.did_drop || s.rtt_ns > timeout_ns {
            limit = (f64::from(limit) * spec.backoff_ratio) as i32;
        } else if s.inflight.saturating_mul(2) >= limit {
            limit = limit.saturating_add(1);
        }
        self.limit = limit.max(spec.min_limit as i32).min(spec.max_limit as i32);
        self.limit
    }
}

/// `Log10RootIntFunction`: `max(1, floor(log10 t))` below 1000 (1 for 0),
/// `floor(log10 t)` from there.
pub fn log10_root(t: i32) -> i32 {
    if t < 1000 {
        if t <= 0 {
            1
        } else {
            (f64::from(t).log10() as i32).max(1)
        }
    } else {
        f64::from(t).log10() as i32
    }
}

/// `VegasLimit`: the queue estimated from the no-load round trip; above
/// `beta` waiting the limit shrinks, below `alpha` it grows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vegas {
    estimated: f64,
    rtt_noload_ns: i64,
    probe_count: i32,
    /// Drawn at the first sample, then at each probe.
    probe_jitter: Option<f64>,
}

impl Vegas {
    /// (The constructor draws the first probe's jitter, l.235: here the
    /// first sample does.)
    pub fn new(spec: &NetflixVegasSpec) -> Vegas {
        Vegas { estimated: f64::from(spec.initial_limit), rtt_noload_ns: 0, probe_count: 0, probe_jitter: None }
    }

    pub fn limit(&self) -> i32 {
        self.estimated as i32
    }

    /// The no-load round trip it measures the queue against (0: none yet).
    #[cfg(test)]
    pub fn rtt_noload_ns(&self) -> i64 {
        self.rtt_noload_ns
    }

    /// `_update` (l.248-277) and `updateEstimatedLimit` (l.279-321). A
    /// sample of no time, which the library never sees (its clock always
    /// moves; it would throw), comes of a request dropped the instant it
    /// was let through (a full queue behind): its drop counts, its round
    /// trip is not taken for a no-load time.
    pub fn update(&mut self, spec: &NetflixVegasSpec, s: Sample, draw: &mut impl FnMut() -> f64) -> i32 {
        if s.rtt_ns <= 0 {
            if s.did_drop {
                let estimated = self.estimated;
                let step = f64::from(log10_root(estimated as i32));
                self.settle(spec, estimated, estimated - step);
            }
            return self.limit();
        }
        self.probe_count = self.probe_count.saturating_add(1);
        // shouldProbe (l.244-246).
        let probe_jitter = *self.probe_jitter.get_or_insert_with(|| jitter(draw));
        if probe_jitter * f64::from(spec.probe_multiplier) * self.estimated <= f64::from(self.probe_count) {
            self.probe_jitter = Some(jitter(draw));
            self.probe_count = 0;
            self.rtt_noload_ns = s.rtt_ns;
            return self.limit();
        }
        if self.rtt_noload_ns == 0 || s.rtt_ns < self.rtt_noload_ns {
            self.rtt_noload_ns = s.rtt_ns;
            return self.limit();
        }
        let estimated = self.estimated;
        let queue_size = (estimated * (1.0 - self.rtt_noload_ns as f64 / s.rtt_ns as f64)).ceil() as i32;
        let whole = estimated as i32;
        let step = f64::from(log10_root(whole));
        let new_limit = if s.did_drop {
            estimated - step
        } else if f64::from(s.inflight.saturating_mul(2)) < estimated {
            return self.limit();
        } else {
            let alpha = spec.alpha.map_or(3 * log10_root(whole), |a| a as i32);
            let beta = spec.beta.map_or(6 * log10_root(whole), |b| b as i32);
            let threshold = log10_root(whole);
            if queue_size <= threshold {
                estimated + f64::from(beta)
            } else if queue_size < alpha {
                estimated + step
            } else if queue_size > beta {
                estimated - step
            } else {
                return self.limit();
            }
        };
        self.settle(spec, estimated, new_limit);
        self.limit()
    }

    /// The new limit kept within 1 and the most, then smoothed (l.310-316).
    fn settle(&mut self, spec: &NetflixVegasSpec, estimated: f64, new_limit: f64) {
        let clamped = new_limit.min(f64::from(spec.max_concurrency)).max(1.0);
        self.estimated = (1.0 - spec.smoothing) * estimated + spec.smoothing * clamped;
    }
}

/// `resetProbeJitter`: uniform in [0.5, 1).
fn jitter(draw: &mut impl FnMut() -> f64) -> f64 {
    0.5 + 0.5 * draw().clamp(0.0, 1.0 - f64::EPSILON)
}

/// `ExpAvgMeasurement`: the plain mean of the first `warmup` samples, then
/// an exponential average of factor 2 / (window + 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpAvg {
    value: f64,
    sum: f64,
    count: i32,
    window: i32,
    warmup: i32,
}

impl ExpAvg {
    pub fn new(window: i32, warmup: i32) -> ExpAvg {
        ExpAvg { value: 0.0, sum: 0.0, count: 0, window, warmup }
    }

    pub fn add(&mut self, sample: f64) -> f64 {
        if self.count < self.warmup {
            self.count += 1;
            self.sum += sample;
            self.value = self.sum / f64::from(self.count);
        } else {
            let factor = 2.0 / (f64::from(self.window) + 1.0);
            self.value = self.value * (1.0 - factor) + sample * factor;
        }
        self.value
    }

    /// `update`: the value only (during the warm-up the next sample's mean
    /// overwrites it).
    pub fn scale(&mut self, by: f64) {
        self.value *= by;
    }

    #[cfg(test)]
    pub fn value(&self) -> f64 {
        self.value
    }
}

/// `Gradient2Limit`: the limit scaled by how far this sample's round trip
/// is above a long average of them, plus a queue allowance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gradient2 {
    estimated: f64,
    long_rtt: ExpAvg,
}

impl Gradient2 {
    pub fn new(spec: &NetflixGradient2Spec) -> Gradient2 {
        Gradient2 { estimated: f64::from(spec.initial_limit), long_rtt: ExpAvg::new(spec.long_window as i32, 10) }
    }

    pub fn limit(&self) -> i32 {
        self.estimated as i32
    }

    /// The long average of round trips, in nanoseconds.
    #[cfg(test)]
    pub fn long_rtt_ns(&self) -> f64 {
        self.long_rtt.value()
    }

    /// `_update` (l.277-323): a drop changes nothing (issue 176). A
    /// sample of no time (a service that took none, which only a
    /// simulation makes) is not counted: the library would divide by it,
    /// and 0 / 0 would make its limit 0 for good.
    pub fn update(&mut self, spec: &NetflixGradient2Spec, s: Sample) -> i32 {
        if s.rtt_ns <= 0 {
            return self.limit();
        }
        let estimated = self.estimated;
        let queue_size = f64::from(spec.queue_size);
        let short_rtt = s.rtt_ns as f64;
        let long_rtt = self.long_rtt.add(short_rtt);
        if long_rtt / short_rtt > 2.0 {
            self.long_rtt.scale(0.95);
        }
        if f64::from(s.inflight) < estimated / 2.0 {
            return self.limit();
        }
        let gradient = (spec.rtt_tolerance * long_rtt / short_rtt).clamp(0.5, 1.0);
        let new_limit = estimated * gradient + queue_size;
        let smoothed = estimated * (1.0 - spec.smoothing) + new_limit * spec.smoothing;
        self.estimated = smoothed.min(f64::from(spec.max_concurrency)).max(f64::from(spec.min_limit));
        self.limit()
    }
}

/// The samples of the window open.
#[derive(Clone, Debug, Default, PartialEq)]
struct Gathered {
    min_rtt_ns: Option<i64>,
    sum_ns: i64,
    rtts: Vec<i64>,
    max_inflight: i32,
    count: usize,
    did_drop: bool,
}

/// `WindowedLimit`: what its delegate is given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Windowed {
    next_update_ns: i64,
    window: Gathered,
}

impl Windowed {
    /// `onSample` (l.131-164): the window's sample for the limit, when
    /// `s` closes a window that holds enough.
    pub fn offer(&mut self, spec: &NetflixWindowSpec, s: Sample) -> Option<Sample> {
        let end = s.start_ns.saturating_add(s.rtt_ns);
        if s.rtt_ns < spec.min_rtt_threshold_ns() {
            return None;
        }
        let w = &mut self.window;
        let full = spec.percentile.is_some() && w.count >= spec.capacity as usize;
        if !full {
            w.min_rtt_ns = Some(w.min_rtt_ns.map_or(s.rtt_ns, |m| m.min(s.rtt_ns)));
            w.sum_ns = w.sum_ns.saturating_add(s.rtt_ns);
            if spec.percentile.is_some() {
                w.rtts.push(s.rtt_ns);
            }
            w.max_inflight = w.max_inflight.max(s.inflight);
            w.count += 1;
            w.did_drop |= s.did_drop;
        }
        if end <= self.next_update_ns {
            return None;
        }
        let closed = std::mem::take(&mut self.window);
        let candidate = closed.min_rtt_ns?;
        self.next_update_ns = end.saturating_add(candidate.saturating_mul(2).max(spec.min_window_ns()).min(spec.max_window_ns()));
        if closed.count < spec.window_size as usize {
            return None;
        }
        let tracked = match spec.percentile {
            None => closed.sum_ns / closed.count as i64,
            Some(percentile) => {
                let mut rtts = closed.rtts;
                rtts.sort_unstable();
                let at = ((rtts.len() as f64 * percentile + 0.5).floor() as usize).clamp(1, rtts.len()) - 1;
                rtts[at]
            }
        };
        Some(Sample { start_ns: s.start_ns, rtt_ns: tracked, inflight: closed.max_inflight, did_drop: closed.did_drop })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn at(rtt_ns: i64, inflight: i32, did_drop: bool) -> Sample {
        Sample { start_ns: 0, rtt_ns, inflight, did_drop }
    }

    /// A draw that never probes within a test's few samples.
    fn never() -> impl FnMut() -> f64 {
        || 0.99
    }

    #[test]
    fn aimd_adds_one_when_half_used_and_backs_off_on_a_drop_or_a_time_out() {
        let spec = NetflixAimdSpec::default();
        let mut a = Aimd::new(&spec);
        let limits: Vec<i32> = [at(10 * MS, 10, false), at(10 * MS, 10, false), at(10 * MS, 15, false), at(6_000 * MS, 15, false), at(10 * MS, 12, true)]
            .into_iter()
            .map(|s| a.update(&spec, s))
            .collect();
        assert_eq!(limits, [21, 21, 22, 20, 20]);
        let spec = NetflixAimdSpec { initial_limit: 100, min_limit: 1, ..NetflixAimdSpec::default() };
        let mut a = Aimd::new(&spec);
        let limits: Vec<i32> = [at(MS, 60, false), at(MS, 60, true), at(MS, 45, false), at(MS, 40, true), at(MS, 40, false)]
            .into_iter()
            .map(|s| a.update(&spec, s))
            .collect();
        assert_eq!(limits, [101, 90, 91, 81, 81]);
        // AIMDLimitTest: initial 30, a drop: 27.
        let spec = NetflixAimdSpec { initial_limit: 30, ..NetflixAimdSpec::default() };
        assert_eq!(Aimd::new(&spec).update(&spec, at(MS, 10, true)), 27);
        // A time-out of whole milliseconds is that many: 1.001 s is not over 1.001 s.
        let spec = NetflixAimdSpec { timeout_s: 1.001, ..spec };
        assert_eq!(Aimd::new(&spec).update(&spec, at(1_001 * MS, 10, false)), 30);
        assert_eq!(Aimd::new(&spec).update(&spec, at(1_001 * MS + 1, 10, false)), 27);
    }

    #[test]
    fn vegas_holds_its_limit_on_the_edges_of_its_bands() {
        let mut draw = never();
        // Limit 20: alpha 3, beta 6. A queue estimated at exactly alpha,
        // ceil(20 · (1 − 8.8 / 10)) = 3, is not below it: no change.
        let spec = NetflixVegasSpec::default();
        let mut v = Vegas::new(&spec);
        v.update(&spec, at(8_800_000, 20, false), &mut draw);
        assert_eq!(v.update(&spec, at(10 * MS, 20, false), &mut draw), 20);
        // Limit 100: alpha 3 · 2 = 6, beta 6 · 2 = 12. A queue of
        // ceil(100 · (1 − 9.25 / 10)) = 8 lies between: no change.
        let spec = NetflixVegasSpec { initial_limit: 100, ..NetflixVegasSpec::default() };
        let mut v = Vegas::new(&spec);
        v.update(&spec, at(9_250_000, 100, false), &mut draw);
        assert_eq!(v.update(&spec, at(10 * MS, 100, false), &mut draw), 100);
        // Limit 20: a queue at exactly beta, ceil(20 · (1 − 7.2 / 10)) = 6,
        // is not above it: no change.
        let spec = NetflixVegasSpec::default();
        let mut v = Vegas::new(&spec);
        v.update(&spec, at(7_200_000, 20, false), &mut draw);
        assert_eq!(v.update(&spec, at(10 * MS, 20, false), &mut draw), 20);
    }

    #[test]
    fn vegas_smooths_its_new_limit_into_the_old() {
        // Smoothing 0.5: no queue seen at limit 20, the new limit 26 is
        // taken half: 0.5 · 20 + 0.5 · 26 = 23.
        let spec = NetflixVegasSpec { smoothing: 0.5, ..NetflixVegasSpec::default() };
        let mut draw = never();
        let mut v = Vegas::new(&spec);
        v.update(&spec, at(10 * MS, 20, false), &mut draw);
        assert_eq!(v.update(&spec, at(10 * MS, 20, false), &mut draw), 23);
    }

    #[test]
    fn vegas_counts_the_drop_of_a_sample_of_no_time_but_not_its_round_trip() {
        let spec = NetflixVegasSpec { initial_limit: 100, ..NetflixVegasSpec::default() };
        let mut draw = never();
        let mut v = Vegas::new(&spec);
        assert_eq!(v.update(&spec, at(0, 60, true), &mut draw), 98, "100 - log10(100)");
        assert_eq!(v.update(&spec, at(0, 60, false), &mut draw), 98);
        assert_eq!(v.rtt_noload_ns(), 0);
        v.update(&spec, at(5 * MS, 60, false), &mut draw);
        assert_eq!(v.rtt_noload_ns(), 5 * MS);
    }

    #[test]
    fn log10_root_steps_as_the_library_tabulates_it() {
        assert_eq!([0, 1, 9, 99, 100, 999, 1000, 9999, 10_000].map(log10_root), [1, 1, 1, 1, 2, 2, 3, 3, 4]);
    }

    #[test]
    fn vegas_jumps_by_beta_with_no_queue_holds_between_alpha_and_beta_and_steps_down_above() {
        let spec = NetflixVegasSpec::default();
        let mut draw = never();
        let mut v = Vegas::new(&spec);
        let limits: Vec<i32> = [at(10 * MS, 20, false), at(10 * MS, 20, false), at(12 * MS, 13, false), at(20 * MS, 20, false), at(8 * MS, 20, false)]
            .into_iter()
            .map(|s| v.update(&spec, s, &mut draw))
            .collect();
        assert_eq!(limits, [20, 26, 26, 25, 25]);
        assert_eq!(v.rtt_noload_ns(), 8 * MS, "a new least round trip is the no-load time");
        let spec = NetflixVegasSpec { initial_limit: 100, ..NetflixVegasSpec::default() };
        let mut v = Vegas::new(&spec);
        let limits: Vec<i32> = [at(5 * MS, 60, false), at(5 * MS, 40, false), at(5_200_000, 60, false), at(6 * MS, 60, false), at(5_500_000, 10, true)]
            .into_iter()
            .map(|s| v.update(&spec, s, &mut draw))
            .collect();
        // The drop cuts the limit though the sample used little of it.
        assert_eq!(limits, [100, 100, 102, 100, 98]);
    }

    #[test]
    fn vegas_probes_its_no_load_time_after_jitter_times_30_times_the_limit_samples_taking_whatever_it_measures() {
        let spec = NetflixVegasSpec::default();
        // Jitter 0.5: the probe is the 300th sample (0.5 · 30 · 20).
        let mut draw = || 0.0;
        let mut v = Vegas::new(&spec);
        v.update(&spec, at(10 * MS, 5, false), &mut draw);
        for _ in 1..299 {
            v.update(&spec, at(10 * MS, 5, false), &mut draw);
        }
        assert_eq!(v.rtt_noload_ns(), 10 * MS);
        // A standing queue's round trip becomes the baseline at the probe.
        assert_eq!(v.update(&spec, at(40 * MS, 5, false), &mut draw), 20);
        assert_eq!(v.rtt_noload_ns(), 40 * MS);
        // Measured against it, the queue looks empty: the limit jumps.
        assert_eq!(v.update(&spec, at(40 * MS, 20, false), &mut draw), 26);
    }

    #[test]
    fn vegas_with_alpha_and_beta_set_as_numbers_follows_the_librarys_own_test() {
        // VegasLimitTest: initial 10, alpha 3, beta 6.
        let spec = NetflixVegasSpec { initial_limit: 10, alpha: Some(3), beta: Some(6), ..NetflixVegasSpec::default() };
        let mut draw = never();
        let mut v = Vegas::new(&spec);
        v.update(&spec, at(10 * MS, 10, false), &mut draw);
        assert_eq!(v.update(&spec, at(10 * MS, 11, false), &mut draw), 16);
        let mut v = Vegas::new(&spec);
        v.update(&spec, at(10 * MS, 10, false), &mut draw);
        assert_eq!(v.update(&spec, at(50 * MS, 11, false), &mut draw), 9);
    }

    #[test]
    fn exp_avg_is_a_mean_for_its_warm_up_then_exponential() {
        let mut e = ExpAvg::new(100, 10);
        let means: Vec<f64> = (10..20).map(|x| e.add(f64::from(x))).collect();
        assert_eq!(means, [10.0, 10.5, 11.0, 11.5, 12.0, 12.5, 13.0, 13.5, 14.0, 14.5]);
        let after = e.add(100.0);
        assert!((after - (14.5 * (1.0 - 2.0 / 101.0) + 100.0 * 2.0 / 101.0)).abs() < 1e-12);
    }

    #[test]
    fn gradient2_grows_by_the_queue_allowance_at_a_steady_round_trip_and_cuts_when_it_rises() {
        let spec = NetflixGradient2Spec::default();
        let mut g = Gradient2::new(&spec);
        let limits: Vec<i32> = (0..5).map(|_| g.update(&spec, at(10 * MS, 20, false))).collect();
        assert_eq!(limits, [20, 21, 22, 23, 24]);
        let spec = NetflixGradient2Spec { initial_limit: 50, ..NetflixGradient2Spec::default() };
        let mut g = Gradient2::new(&spec);
        let limits: Vec<i32> = [at(10 * MS, 50, false), at(10 * MS, 50, false), at(40 * MS, 50, false), at(40 * MS, 50, false), at(5 * MS, 10, true)]
            .into_iter()
            .map(|s| g.update(&spec, s))
            .collect();
        assert_eq!(limits, [50, 51, 49, 49, 49]);
        assert!((g.estimated - 49.99725).abs() < 1e-9, "{}", g.estimated);
    }

    #[test]
    fn gradient2_at_the_edges_of_its_rules() {
        let spec = NetflixGradient2Spec::default();
        // The long average exactly twice the sample ((30 + 10) / 2 = 20
        // against 10) is not above twice: it is not lowered.
        let mut g = Gradient2::new(&spec);
        g.update(&spec, at(30 * MS, 20, false));
        g.update(&spec, at(10 * MS, 20, false));
        assert_eq!(g.long_rtt_ns(), 20.0 * MS as f64);
        // In flight exactly half the limit (10 of 20) is not app-limited:
        // the sample adds 0.8 (20.8), and the next (11 of 20.8) 0.8 more.
        let mut g = Gradient2::new(&spec);
        g.update(&spec, at(10 * MS, 10, false));
        assert_eq!(g.update(&spec, at(10 * MS, 11, false)), 21);
    }

    #[test]
    fn gradient2_counts_no_sample_of_no_time() {
        let spec = NetflixGradient2Spec { initial_limit: 50, ..NetflixGradient2Spec::default() };
        let mut g = Gradient2::new(&spec);
        assert_eq!(g.update(&spec, at(0, 50, false)), 50);
        assert_eq!(g.long_rtt_ns(), 0.0, "not in the long average either");
        assert_eq!(g.update(&spec, at(10 * MS, 50, false)), 50);
        assert_eq!(g.update(&spec, at(10 * MS, 50, false)), 51);
    }

    #[test]
    fn gradient2_lowers_its_long_round_trip_once_warm_when_it_is_twice_the_sample() {
        let spec = NetflixGradient2Spec { initial_limit: 50, ..NetflixGradient2Spec::default() };
        let mut g = Gradient2::new(&spec);
        for _ in 0..10 {
            g.update(&spec, at(40 * MS, 10, false));
        }
        assert_eq!(g.long_rtt_ns(), 40.0 * MS as f64);
        let limits: Vec<i32> = (0..3).map(|_| g.update(&spec, at(10 * MS, 30, false))).collect();
        assert_eq!(limits, [50, 51, 52]);
        assert!((g.long_rtt_ns() - 34_043_648.08).abs() < 1.0, "{}", g.long_rtt_ns());
    }

    #[test]
    fn a_window_passes_on_its_mean_its_most_in_flight_and_any_drop_once_it_holds_ten() {
        let spec = NetflixWindowSpec::default();
        let aimd = NetflixAimdSpec::default();
        let mut w = Windowed::default();
        let mut a = Aimd::new(&aimd);
        let feed = |w: &mut Windowed, a: &mut Aimd, s: Sample| w.offer(&spec, s).map(|agg| (agg, a.update(&aimd, agg)));
        assert_eq!(feed(&mut w, &mut a, Sample { start_ns: 0, rtt_ns: 10 * MS, inflight: 10, did_drop: false }), None, "a window of one, not enough");
        for (k, rtt) in [10, 12, 14, 16, 18, 10, 12, 14, 16, 18].into_iter().enumerate() {
            let s = Sample { start_ns: 20 * MS + k as i64 * 50 * MS, rtt_ns: rtt * MS, inflight: if k == 3 { 11 } else { 5 }, did_drop: false };
            assert_eq!(feed(&mut w, &mut a, s), None);
        }
        let closing = Sample { start_ns: 1_000 * MS, rtt_ns: 20 * MS, inflight: 9, did_drop: false };
        let (agg, limit) = feed(&mut w, &mut a, closing).expect("the window closes");
        assert_eq!((agg.rtt_ns, agg.inflight, agg.did_drop, limit), (14_545_454, 11, false, 21));
        // A sample under 100 µs counts for nothing, its drop included.
        assert_eq!(feed(&mut w, &mut a, Sample { start_ns: 1_100 * MS, rtt_ns: 50_000, inflight: 5, did_drop: true }), None);
        for k in 0..9 {
            let s = Sample { start_ns: 1_100 * MS + k * 50 * MS, rtt_ns: 10 * MS, inflight: 12, did_drop: false };
            assert_eq!(feed(&mut w, &mut a, s), None);
        }
        assert_eq!(feed(&mut w, &mut a, Sample { start_ns: 1_600 * MS, rtt_ns: 50 * MS, inflight: 6, did_drop: true }), None);
        let (agg, limit) = feed(&mut w, &mut a, Sample { start_ns: 2_050 * MS, rtt_ns: 10 * MS, inflight: 8, did_drop: false }).expect("closes");
        assert_eq!((agg.rtt_ns, agg.inflight, agg.did_drop, limit), (13_636_363, 12, true, 20));
    }

    #[test]
    fn a_percentile_window_ignores_samples_past_its_capacity_whole_and_a_thin_window_is_lost() {
        let spec = NetflixWindowSpec { percentile: Some(0.9), capacity: 10, ..NetflixWindowSpec::default() };
        let mut w = Windowed::default();
        assert_eq!(w.offer(&spec, Sample { start_ns: 0, rtt_ns: 5 * MS, inflight: 10, did_drop: false }), None);
        for (k, rtt) in [5, 5, 5, 5, 5, 6, 6, 7, 8, 20].into_iter().enumerate() {
            assert_eq!(w.offer(&spec, Sample { start_ns: 10 * MS + k as i64 * MS, rtt_ns: rtt * MS, inflight: 14, did_drop: false }), None);
        }
        assert_eq!(w.offer(&spec, Sample { start_ns: 100 * MS, rtt_ns: 30 * MS, inflight: 25, did_drop: true }), None);
        let agg = w.offer(&spec, Sample { start_ns: 1_000 * MS, rtt_ns: 10 * MS, inflight: 3, did_drop: false }).expect("closes");
        assert_eq!((agg.rtt_ns, agg.inflight, agg.did_drop), (8 * MS, 14, false), "the eleventh sample and on are not counted");
        for k in 0..7 {
            assert_eq!(w.offer(&spec, Sample { start_ns: 1_100 * MS + k * MS, rtt_ns: 8 * MS, inflight: 4, did_drop: false }), None);
        }
        assert_eq!(w.offer(&spec, Sample { start_ns: 3_000 * MS, rtt_ns: 8 * MS, inflight: 4, did_drop: false }), None, "eight samples: lost");
    }

    /// `rtt < minRttThreshold` is left out: a sample of exactly the
    /// threshold (100 µs) counts, a nanosecond less does not.
    #[test]
    fn a_sample_of_exactly_the_least_rtt_counts_and_one_below_does_not() {
        let spec = NetflixWindowSpec::default();
        let threshold = spec.min_rtt_threshold_ns();
        assert_eq!(threshold, 100_000);
        // A first sample closes a window of one by itself; then nine
        // samples of `rtt` and one to close the next window.
        let closes = |rtt: i64| {
            let mut w = Windowed::default();
            w.offer(&spec, Sample { start_ns: 0, rtt_ns: MS, inflight: 1, did_drop: false });
            for k in 0..9 {
                w.offer(&spec, Sample { start_ns: 10 * MS + k * MS, rtt_ns: rtt, inflight: 1, did_drop: false });
            }
            w.offer(&spec, Sample { start_ns: 2_000 * MS, rtt_ns: MS, inflight: 1, did_drop: false })
        };
        assert!(closes(threshold).is_some(), "ten samples with the nine at the threshold");
        assert_eq!(closes(threshold - 1), None, "the closing sample alone: too few");
    }
}
