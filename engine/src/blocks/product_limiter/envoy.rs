//! Envoy's HTTP local rate limit filter
//! (`envoy.filters.http.local_ratelimit`, `LocalRateLimit` v3), with the
//! two token buckets Envoy has had: the timer bucket, the only one up to
//! 1.30 (`source/extensions/filters/common/local_ratelimit/
//! local_ratelimit_impl.cc`, commit 016c0c8), and the atomic bucket, the
//! default from 1.31 and the only one from 1.34
//! (`source/common/common/token_bucket_impl.h`, `AtomicTokenBucketImpl`).
//! The filter's decision is `Filter::decodeHeaders` in
//! `source/extensions/filters/http/local_ratelimit/local_ratelimit.cc`
//! (commit 00549ed). Transcribed from the sources; no Envoy runs here to
//! hold it to.
//!
//! Guarantees, as Envoy decides:
//! - The filter acts on a request only if `filter_enabled` draws it (a
//!   fraction of requests, drawn afresh for each; **unset, 0%**: the filter
//!   does nothing). Enabled, the request takes a token if there is one and
//!   passes. If there is none, it is refused (`status`, 429 unless set)
//!   only if `filter_enforced` draws it too (unset, 0%); otherwise it
//!   passes, recorded as `rejected_dry_run`. A request refused takes
//!   nothing; a request that passes unenforced took nothing either.
//! - One bucket for the whole process (every worker shares it), full at
//!   the start (configuration load: the run's start).
//! - `timer` bucket: whole `tokens_per_fill` tokens are added at each tick,
//!   every `fill_interval` from the start, up to `max_tokens`; between
//!   ticks nothing comes back.
//! - `atomic` bucket: tokens come back continuously at `tokens_per_fill /
//!   fill_interval` a second, up to `max_tokens`; its one state is the
//!   instant the bucket was (or would have been) empty, moved on by each
//!   token taken, in the same floating-point steps as Envoy's (from a clock
//!   that starts at 0, where Envoy's counts its uptime: a request exactly
//!   when a token is due may go either way, here as there).
//! - A change while running keeps the bucket as it stands (a change of
//!   bucket or of interval starts it full): Envoy itself would start it
//!   full on any reload.
//!
//! Not modelled: descriptors (per-header or per-path buckets), a bucket
//! per connection (`local_rate_limit_per_downstream_connection`), the
//! share of a local cluster, the lag of the timer on a busy main thread
//! (its ticks here are exact), and runtime overrides of the percentages.

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{is_whole_ms, push_error, FieldError};

/// Which of Envoy's token buckets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bucket {
    /// Continuous refill (Envoy 1.31 and later).
    #[default]
    Atomic,
    /// Whole fills at each tick of a timer (Envoy 1.30 and earlier).
    Timer,
}

/// One `local_ratelimit` filter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvoyLocalRateLimitSpec {
    /// `token_bucket.max_tokens`: the bucket's size, and what it holds at
    /// the start.
    pub max_tokens: u32,
    /// `token_bucket.tokens_per_fill` (1 unless set).
    #[serde(default = "one")]
    pub tokens_per_fill: u32,
    /// `token_bucket.fill_interval`, in seconds (at least 0.05).
    pub fill_interval_s: f64,
    #[serde(default)]
    pub bucket: Bucket,
    /// `filter_enabled`'s default value, in percent (unset: 0).
    #[serde(default)]
    pub enabled_percent: f64,
    /// `filter_enforced`'s default value, in percent (unset: 0).
    #[serde(default)]
    pub enforced_percent: f64,
    /// `status.code` (429 unless set; a code below 400 is 429 too).
    #[serde(default = "default_status")]
    pub status: u16,
}

fn one() -> u32 {
    1
}

fn default_status() -> u16 {
    429
}

impl EnvoyLocalRateLimitSpec {
    /// A bucket of `max_tokens`, refilled with `tokens_per_fill` every
    /// `fill_interval_s`, enabled and enforced for every request.
    pub fn of(max_tokens: u32, tokens_per_fill: u32, fill_interval_s: f64) -> EnvoyLocalRateLimitSpec {
        EnvoyLocalRateLimitSpec {
            max_tokens,
            tokens_per_fill,
            fill_interval_s,
            bucket: Bucket::Atomic,
            enabled_percent: 100.0,
            enforced_percent: 100.0,
            status: default_status(),
        }
    }

    /// The fill interval in whole milliseconds, as Envoy reads it.
    pub fn fill_interval_ms(&self) -> u64 {
        (self.fill_interval_s * 1000.0).round().max(1.0) as u64
    }

    /// The fill interval in nanoseconds.
    pub fn fill_interval_ns(&self) -> u64 {
        self.fill_interval_ms() * 1_000_000
    }

    /// In a few words: `envoy 10 per 1s atomic`.
    pub fn summary(&self) -> String {
        let bucket = match self.bucket {
            Bucket::Atomic => "atomic",
            Bucket::Timer => "timer",
        };
        let off = if self.enabled_percent <= 0.0 {
            " (off)"
        } else if self.enforced_percent <= 0.0 {
            " (shadow)"
        } else {
            ""
        };
        format!("envoy {}/{} per {}s {bucket}{off}", self.tokens_per_fill, self.max_tokens, self.fill_interval_s)
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.max_tokens == 0 {
            push_error(errors, format!("{path}.max_tokens"), "must be above 0, as Envoy requires");
        }
        if self.tokens_per_fill == 0 {
            push_error(errors, format!("{path}.tokens_per_fill"), "must be above 0, as Envoy requires");
        }
        if !is_whole_ms(self.fill_interval_s) || !(0.05..=1e6).contains(&self.fill_interval_s) {
            push_error(errors, format!("{path}.fill_interval_s"), "must be whole milliseconds (as Envoy reads it), from 0.05 s (Envoy's least) to 1,000,000 s");
        }
        for (name, v) in [("enabled_percent", self.enabled_percent), ("enforced_percent", self.enforced_percent)] {
            if !v.is_finite() || !(0.0..=100.0).contains(&v) {
                push_error(errors, format!("{path}.{name}"), "must be from 0 to 100");
            }
        }
        if !(200..=599).contains(&self.status) {
            push_error(errors, format!("{path}.status"), "must be from 200 to 599 (Envoy answers 429 for a code below 400)");
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("max_tokens")] => Some(NumberField::Whole32(&mut self.max_tokens)),
            [Step::Key("tokens_per_fill")] => Some(NumberField::Whole32(&mut self.tokens_per_fill)),
            [Step::Key("fill_interval_s")] => Some(NumberField::Real(&mut self.fill_interval_s)),
            [Step::Key("enabled_percent")] => Some(NumberField::Real(&mut self.enabled_percent)),
            [Step::Key("enforced_percent")] => Some(NumberField::Real(&mut self.enforced_percent)),
            [Step::Key("status")] => Some(NumberField::Whole16(&mut self.status)),
            _ => None,
        }
    }

    /// The status a refused request is answered, as Envoy sends it.
    pub fn sent_status(&self) -> u16 {
        if self.status >= 400 {
            self.status
        } else {
            429
        }
    }
}

/// The least fill rate Envoy's atomic bucket takes: one token a year.
const MIN_FILL_RATE: f64 = 1.0 / (365.0 * 24.0 * 60.0 * 60.0);

/// What the filter decided for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Passed (took a token, or the filter was not enabled for it).
    Pass,
    /// No token, but not enforced: passed all the same.
    Shadow,
    /// Refused.
    Reject,
}

/// The filter's bucket.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Timer: tokens now, and the ticks counted so far. `None` before the
    /// first request (the bucket is full from the start).
    timer: Option<(u32, u64)>,
    /// Atomic: the instant, in seconds, at which the bucket held nothing.
    t_empty: Option<f64>,
}

impl State {
    /// Takes a token at `now_ns`, if there is one.
    fn consume(&mut self, spec: &EnvoyLocalRateLimitSpec, now_ns: u64) -> bool {
        match spec.bucket {
            Bucket::Timer => {
                let ticks = now_ns / spec.fill_interval_ns();
                let (tokens, counted) = self.timer.get_or_insert((spec.max_tokens, 0));
                if ticks > *counted {
                    let added = u64::from(spec.tokens_per_fill).saturating_mul(ticks - *counted);
                    *tokens = u64::from(*tokens).saturating_add(added).min(u64::from(spec.max_tokens)) as u32;
                    *counted = ticks;
                }
                *tokens = (*tokens).min(spec.max_tokens);
                if *tokens == 0 {
                    return false;
                }
                *tokens -= 1;
                true
            }
            Bucket::Atomic => {
                let rate = (f64::from(spec.tokens_per_fill) / (spec.fill_interval_ms() as f64 / 1000.0)).abs().max(MIN_FILL_RATE);
                let max = f64::from(spec.max_tokens);
                let now = now_ns as f64 / 1e9;
                let t_empty = *self.t_empty.get_or_insert(0.0 - max / rate);
                let total = f64::min(max, (now - t_empty) * rate);
                if total < 1.0 {
                    return false;
                }
                self.t_empty = Some(now - ((total - 1.0) / rate));
                true
            }
        }
    }

    /// The bucket changed while running: the timer keeps its tokens (up to
    /// the new size) and its tick count; the atomic bucket keeps its
    /// instant. A change of bucket starts full, as a configuration reload
    /// does.
    pub fn reconfigure(&mut self, old: &EnvoyLocalRateLimitSpec, new: &EnvoyLocalRateLimitSpec) {
        if old.bucket != new.bucket || old.fill_interval_ns() != new.fill_interval_ns() {
            *self = State::default();
        }
    }

    /// Decides a request at `now_ns`, given two draws from 0 to 1 (for
    /// `filter_enabled` and `filter_enforced`).
    pub fn decide(&mut self, spec: &EnvoyLocalRateLimitSpec, now_ns: u64, enabled: f64, enforced: f64) -> Verdict {
        if enabled * 100.0 >= spec.enabled_percent {
            return Verdict::Pass;
        }
        if self.consume(spec, now_ns) {
            return Verdict::Pass;
        }
        if enforced * 100.0 >= spec.enforced_percent {
            return Verdict::Shadow;
        }
        Verdict::Reject
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn spec(bucket: Bucket) -> EnvoyLocalRateLimitSpec {
        EnvoyLocalRateLimitSpec { bucket, ..EnvoyLocalRateLimitSpec::of(10, 10, 1.0) }
    }

    /// Requests at `at` (ms), what passed.
    fn passes(s: &EnvoyLocalRateLimitSpec, at: &[u64]) -> Vec<bool> {
        let mut state = State::default();
        at.iter().map(|&t| state.decide(s, t * MS, 0.0, 0.0) == Verdict::Pass).collect()
    }

    #[test]
    fn each_setting_outside_envoys_range_is_refused_by_its_path_and_a_file_takes_envoys_defaults() {
        let refused = |s: EnvoyLocalRateLimitSpec| super::super::refused_fields(|path, errors| s.validate(path, errors));
        let edges = EnvoyLocalRateLimitSpec { enabled_percent: 0.0, enforced_percent: 100.0, status: 200, ..EnvoyLocalRateLimitSpec::of(1, 1, 0.05) };
        assert_eq!(refused(edges.clone()), Vec::<String>::new());
        assert_eq!(refused(EnvoyLocalRateLimitSpec { fill_interval_s: 1e6, status: 599, ..edges.clone() }), Vec::<String>::new());
        let past: Vec<(EnvoyLocalRateLimitSpec, &str)> = vec![
            (EnvoyLocalRateLimitSpec { max_tokens: 0, ..edges.clone() }, "n.max_tokens"),
            (EnvoyLocalRateLimitSpec { tokens_per_fill: 0, ..edges.clone() }, "n.tokens_per_fill"),
            (EnvoyLocalRateLimitSpec { fill_interval_s: 0.049, ..edges.clone() }, "n.fill_interval_s"),
            (EnvoyLocalRateLimitSpec { fill_interval_s: 1e6 + 0.001, ..edges.clone() }, "n.fill_interval_s"),
            (EnvoyLocalRateLimitSpec { fill_interval_s: 0.0505, ..edges.clone() }, "n.fill_interval_s"),
            (EnvoyLocalRateLimitSpec { fill_interval_s: f64::INFINITY, ..edges.clone() }, "n.fill_interval_s"),
            (EnvoyLocalRateLimitSpec { enabled_percent: -0.5, ..edges.clone() }, "n.enabled_percent"),
            (EnvoyLocalRateLimitSpec { enforced_percent: 100.5, ..edges.clone() }, "n.enforced_percent"),
            (EnvoyLocalRateLimitSpec { enforced_percent: f64::NAN, ..edges.clone() }, "n.enforced_percent"),
            (EnvoyLocalRateLimitSpec { status: 199, ..edges.clone() }, "n.status"),
            (EnvoyLocalRateLimitSpec { status: 600, ..edges.clone() }, "n.status"),
        ];
        for (spec, field) in past {
            assert_eq!(refused(spec.clone()), [field], "{spec:?}");
        }
        let read: super::super::ProductLimiterSpec =
            serde_json::from_value(serde_json::json!({"product": "envoy_local_rate_limit", "max_tokens": 5, "fill_interval_s": 1})).unwrap();
        let super::super::ProductLimiterSpec::EnvoyLocalRateLimit(read) = read else { panic!("{read:?}") };
        assert_eq!((read.tokens_per_fill, read.enabled_percent, read.enforced_percent, read.status), (1, 0.0, 0.0, 429), "Envoy's defaults for what is left out");
    }

    #[test]
    fn the_timer_bucket_refills_whole_at_each_tick_and_the_atomic_one_continuously() {
        // Empty at 100 ms, then one request every 100 ms (a millisecond
        // after each token is due: exactly at it, the floating-point sum
        // may fall a hair short, in Envoy as here): the timer gives nothing
        // until its tick at 1 s, then ten at once; the atomic bucket one
        // every 100 ms.
        let burst: Vec<u64> = vec![100; 10];
        let after: Vec<u64> = (2..=10).map(|k| 100 * k + 1).collect();
        let at: Vec<u64> = burst.iter().chain(&after).copied().collect();
        let timer = passes(&spec(Bucket::Timer), &at);
        assert!(timer[..10].iter().all(|p| *p), "full at the start");
        assert!(timer[10..18].iter().all(|p| !*p), "{timer:?}");
        assert!(timer[18], "the tick at 1 s refills: {timer:?}");
        let atomic = passes(&spec(Bucket::Atomic), &at);
        assert!(atomic[..10].iter().all(|p| *p));
        assert!(atomic[10..].iter().all(|p| *p), "a token back every 100 ms: {atomic:?}");
        // Just before a token is back, none.
        assert_eq!(passes(&spec(Bucket::Atomic), &[100; 11]).iter().filter(|p| **p).count(), 10);
        let mut a = State::default();
        let s = spec(Bucket::Atomic);
        for _ in 0..10 {
            a.decide(&s, 0, 0.0, 0.0);
        }
        assert_eq!(a.decide(&s, 99 * MS, 0.0, 0.0), Verdict::Reject);
        assert_eq!(a.decide(&s, 101 * MS, 0.0, 0.0), Verdict::Pass);
        // Slower than a token a second: one token every 2 s comes back 2 s
        // after it was taken, not sooner (the floor of a token a year never
        // binds).
        let slow = EnvoyLocalRateLimitSpec::of(1, 1, 2.0);
        let mut a = State::default();
        assert_eq!(a.decide(&slow, 0, 0.0, 0.0), Verdict::Pass);
        assert_eq!(a.decide(&slow, 1_500 * MS, 0.0, 0.0), Verdict::Reject);
        assert_eq!(a.decide(&slow, 2_001 * MS, 0.0, 0.0), Verdict::Pass);
    }

    #[test]
    fn unset_percentages_make_the_filter_do_nothing_and_shadow_mode_refuses_nothing() {
        let off = EnvoyLocalRateLimitSpec { enabled_percent: 0.0, enforced_percent: 0.0, ..spec(Bucket::Atomic) };
        let mut state = State::default();
        assert!((0..100).all(|_| state.decide(&off, 0, 0.0, 0.0) == Verdict::Pass));
        // Enabled but not enforced: the bucket drains, then requests pass unrefused.
        let shadow = EnvoyLocalRateLimitSpec { enforced_percent: 0.0, ..spec(Bucket::Atomic) };
        let mut state = State::default();
        let v: Vec<Verdict> = (0..12).map(|_| state.decide(&shadow, 0, 0.0, 0.0)).collect();
        assert_eq!(v.iter().filter(|v| **v == Verdict::Pass).count(), 10);
        assert_eq!(v[10..], [Verdict::Shadow, Verdict::Shadow]);
        // Half enabled: a draw at or above 0.5 is not limited at all.
        let half = EnvoyLocalRateLimitSpec { enabled_percent: 50.0, ..spec(Bucket::Atomic) };
        let mut state = State::default();
        for _ in 0..10 {
            state.decide(&half, 0, 0.0, 0.0);
        }
        assert_eq!(state.decide(&half, 0, 0.7, 0.0), Verdict::Pass);
        assert_eq!(state.decide(&half, 0, 0.2, 0.0), Verdict::Reject);
    }

    #[test]
    fn a_refused_request_takes_nothing_and_ticks_do_not_overfill() {
        let s = EnvoyLocalRateLimitSpec { bucket: Bucket::Timer, ..EnvoyLocalRateLimitSpec::of(3, 2, 0.5) };
        let mut state = State::default();
        let at = |state: &mut State, ms: u64| state.decide(&s, ms * MS, 0.0, 0.0);
        assert_eq!([at(&mut state, 0), at(&mut state, 0), at(&mut state, 0), at(&mut state, 0)], [Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Reject]);
        // Four ticks by 2 s add 8, capped at 3.
        let v: Vec<Verdict> = (0..4).map(|_| at(&mut state, 2_000)).collect();
        assert_eq!(v, [Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Reject]);
        assert_eq!(EnvoyLocalRateLimitSpec { status: 200, ..s.clone() }.sent_status(), 429);
        assert_eq!(s.summary(), "envoy 2/3 per 0.5s timer");
    }

    /// Each tick adds its fill once, however many ticks came before:
    /// emptied at every tick, a bucket of ten filled by one a second lets
    /// one through a second, second after second.
    #[test]
    fn each_tick_adds_one_fill_counted_from_the_last_tick_seen() {
        let s = EnvoyLocalRateLimitSpec { bucket: Bucket::Timer, ..EnvoyLocalRateLimitSpec::of(10, 1, 1.0) };
        let mut state = State::default();
        let mut passed = Vec::new();
        for second in 0..6 {
            passed.push((0..12).filter(|_| state.decide(&s, second * 1_000 * MS + 10 * MS, 0.0, 0.0) == Verdict::Pass).count());
        }
        assert_eq!(passed, [10, 1, 1, 1, 1, 1]);
        // Four ticks on (three of them seen by no request), four.
        assert_eq!((0..12).filter(|_| state.decide(&s, 9_010 * MS, 0.0, 0.0) == Verdict::Pass).count(), 4);
    }
}
