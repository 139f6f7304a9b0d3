//! Netflix's concurrency-limits (release v0.5.4): the settings of its
//! `AIMDLimit`, `VegasLimit` and `Gradient2Limit`, optionally wrapped in a
//! `WindowedLimit`, and the `SimpleLimiter` that enforces the limit. The
//! limit algorithms themselves, transcribed line by line, are in
//! `netflix_limits.rs`; this file is what the block runs.
//!
//! Guarantees, as `SimpleLimiter` (`limiter/SimpleLimiter.java`,
//! `AbstractLimiter.java`) has them:
//! - A request is let through while fewer than the limit are in flight,
//!   refused at once otherwise (`rate_limited`; nothing waits). A limit
//!   lowered below what is in flight takes nothing back.
//! - A request let through is in flight until finished: a consumer
//!   completed it (a sample of its round trip, from its admission to now,
//!   with the requests in flight at its admission counting itself), or it
//!   was dropped further on (the same, marked dropped). A refused request
//!   makes no sample.
//! - Each sample goes to the algorithm (through the window, if one is set)
//!   the instant the request finishes, and the new limit decides the next
//!   request.
//! - Settings changed while it runs start the algorithm afresh, at its
//!   initial limit, as a redeployed service would; the requests in flight
//!   stay counted and their samples go to the new one.
//!
//! Not modelled: partitions (`AbstractPartitionedLimiter`), the blocking
//! limiter (`BlockingLimiter`: here nothing waits), bypassed requests, and
//! `onIgnore` (a request the application chose not to sample).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::netflix_limits::{Aimd, Gradient2, Sample, Vegas, Windowed};
use super::course::Course;
use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{check_range, push_error, FieldError};

/// The most any limit may be set to (the library's ints go further; a
/// simulation of more than this many requests at once is not one to
/// learn from).
pub const MAX_CONCURRENCY: u32 = 100_000;

/// `AIMDLimit`'s builder (`limit/AIMDLimit.java`, l.30-38), its defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetflixAimdSpec {
    #[serde(default = "twenty")]
    pub initial_limit: u32,
    #[serde(default = "twenty")]
    pub min_limit: u32,
    #[serde(default = "two_hundred")]
    pub max_limit: u32,
    /// The limit is multiplied by this after a drop or a time-out.
    #[serde(default = "backoff_ratio")]
    pub backoff_ratio: f64,
    /// A sample slower than this counts as a drop.
    #[serde(default = "five_s")]
    pub timeout_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<NetflixWindowSpec>,
}

/// `VegasLimit`'s builder (`limit/VegasLimit.java`, l.48-58), its
/// defaults; `alpha` and `beta` left out are the library's functions of
/// log10 of the limit (3 and 6 below a limit of 100).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetflixVegasSpec {
    #[serde(default = "twenty")]
    pub initial_limit: u32,
    #[serde(default = "thousand")]
    pub max_concurrency: u32,
    #[serde(default = "one")]
    pub smoothing: f64,
    #[serde(default = "thirty")]
    pub probe_multiplier: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<NetflixWindowSpec>,
}

/// `Gradient2Limit`'s builder (`limit/Gradient2Limit.java`, l.75-83), its
/// defaults; the queue size is the library's default, a constant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetflixGradient2Spec {
    #[serde(default = "twenty")]
    pub initial_limit: u32,
    #[serde(default = "twenty")]
    pub min_limit: u32,
    #[serde(default = "two_hundred")]
    pub max_concurrency: u32,
    #[serde(default = "smoothing")]
    pub smoothing: f64,
    #[serde(default = "four")]
    pub queue_size: u32,
    /// Samples the long average of round trips spans.
    #[serde(default = "six_hundred")]
    pub long_window: u32,
    #[serde(default = "tolerance")]
    pub rtt_tolerance: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<NetflixWindowSpec>,
}

/// `WindowedLimit`'s builder (`limit/WindowedLimit.java`, l.30-48), its
/// defaults: samples gathered into windows, the limit fed one sample per
/// window. `percentile` set, a window's round trip is that percentile of
/// its first `capacity` samples (`PercentileSampleWindowFactory`), else
/// their mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetflixWindowSpec {
    #[serde(default = "one")]
    pub min_window_s: f64,
    #[serde(default = "one")]
    pub max_window_s: f64,
    /// A sample quicker than this is not counted (nor its drop).
    #[serde(default = "min_rtt_threshold_s")]
    pub min_rtt_threshold_s: f64,
    /// The samples a window needs for the limit to hear of it.
    #[serde(default = "ten")]
    pub window_size: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentile: Option<f64>,
    /// The samples a percentile window keeps; later ones are not counted.
    #[serde(default = "hundred")]
    pub capacity: u32,
}

fn one() -> f64 {
    1.0
}
fn four() -> u32 {
    4
}
fn ten() -> u32 {
    10
}
fn twenty() -> u32 {
    20
}
fn thirty() -> u32 {
    30
}
fn hundred() -> u32 {
    100
}
fn two_hundred() -> u32 {
    200
}
fn six_hundred() -> u32 {
    600
}
fn thousand() -> u32 {
    1000
}
fn backoff_ratio() -> f64 {
    0.9
}
fn five_s() -> f64 {
    5.0
}
fn smoothing() -> f64 {
    0.2
}
fn tolerance() -> f64 {
    1.5
}
fn min_rtt_threshold_s() -> f64 {
    0.0001
}

impl Default for NetflixAimdSpec {
    fn default() -> Self {
        NetflixAimdSpec { initial_limit: 20, min_limit: 20, max_limit: 200, backoff_ratio: 0.9, timeout_s: 5.0, window: None }
    }
}

impl Default for NetflixVegasSpec {
    fn default() -> Self {
        NetflixVegasSpec { initial_limit: 20, max_concurrency: 1000, smoothing: 1.0, probe_multiplier: 30, alpha: None, beta: None, window: None }
    }
}

impl Default for NetflixGradient2Spec {
    fn default() -> Self {
        NetflixGradient2Spec { initial_limit: 20, min_limit: 20, max_concurrency: 200, smoothing: 0.2, queue_size: 4, long_window: 600, rtt_tolerance: 1.5, window: None }
    }
}

impl Default for NetflixWindowSpec {
    fn default() -> Self {
        NetflixWindowSpec { min_window_s: 1.0, max_window_s: 1.0, min_rtt_threshold_s: 0.0001, window_size: 10, percentile: None, capacity: 100 }
    }
}

/// Refuses a limit outside 1 to `MAX_CONCURRENCY`.
fn check_limit(errors: &mut Vec<FieldError>, path: String, value: u32) {
    if !(1..=MAX_CONCURRENCY).contains(&value) {
        push_error(errors, path, "must be from 1 to 100,000 requests (at 0 nothing is let through, so nothing is ever measured)");
    }
}

/// Refuses `low` above `high`.
fn check_order(errors: &mut Vec<FieldError>, path: &str, (low, low_name): (u32, &str), (high, high_name): (u32, &str)) {
    if low > high {
        push_error(errors, format!("{path}.{low_name}"), format!("must be at most {high_name} ({high})"));
    }
}

impl NetflixAimdSpec {
    pub fn summary(&self) -> String {
        format!("Netflix AIMD {}..{}{}", self.min_limit, self.max_limit, windowed(&self.window))
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (value, name) in [(self.initial_limit, "initial_limit"), (self.min_limit, "min_limit"), (self.max_limit, "max_limit")] {
            check_limit(errors, format!("{path}.{name}"), value);
        }
        check_order(errors, path, (self.min_limit, "min_limit"), (self.max_limit, "max_limit"));
        if !(self.backoff_ratio.is_finite() && (0.5..1.0).contains(&self.backoff_ratio)) {
            push_error(errors, format!("{path}.backoff_ratio"), "must be at least 0.5 and below 1, as the library requires");
        }
        check_positive(errors, format!("{path}.timeout_s"), self.timeout_s, "must be above 0 and at most 3,600 seconds");
        check_window(&self.window, path, errors);
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("initial_limit")] => Some(NumberField::Whole32(&mut self.initial_limit)),
            [Step::Key("min_limit")] => Some(NumberField::Whole32(&mut self.min_limit)),
            [Step::Key("max_limit")] => Some(NumberField::Whole32(&mut self.max_limit)),
            [Step::Key("backoff_ratio")] => Some(NumberField::Real(&mut self.backoff_ratio)),
            [Step::Key("timeout_s")] => Some(NumberField::Real(&mut self.timeout_s)),
            [Step::Key("window"), rest @ ..] => self.window.as_mut()?.number_mut(rest),
            _ => None,
        }
    }
}

impl NetflixVegasSpec {
    pub fn summary(&self) -> String {
        format!("Netflix Vegas ..{}{}", self.max_concurrency, windowed(&self.window))
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        check_limit(errors, format!("{path}.initial_limit"), self.initial_limit);
        check_limit(errors, format!("{path}.max_concurrency"), self.max_concurrency);
        check_smoothing(errors, format!("{path}.smoothing"), self.smoothing);
        if !(1..=1000).contains(&self.probe_multiplier) {
            push_error(errors, format!("{path}.probe_multiplier"), "must be from 1 to 1,000");
        }
        for (value, name) in [(self.alpha, "alpha"), (self.beta, "beta")] {
            if value.is_some_and(|v| v > MAX_CONCURRENCY) {
                push_error(errors, format!("{path}.{name}"), "must be at most 100,000 requests");
            }
        }
        if let (Some(alpha), Some(beta)) = (self.alpha, self.beta) {
            check_order(errors, path, (alpha, "alpha"), (beta, "beta"));
        }
        check_window(&self.window, path, errors);
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("initial_limit")] => Some(NumberField::Whole32(&mut self.initial_limit)),
            [Step::Key("max_concurrency")] => Some(NumberField::Whole32(&mut self.max_concurrency)),
            [Step::Key("smoothing")] => Some(NumberField::Real(&mut self.smoothing)),
            [Step::Key("probe_multiplier")] => Some(NumberField::Whole32(&mut self.probe_multiplier)),
            [Step::Key("alpha")] => Some(NumberField::MaybeWhole32(&mut self.alpha)),
            [Step::Key("beta")] => Some(NumberField::MaybeWhole32(&mut self.beta)),
            [Step::Key("window"), rest @ ..] => self.window.as_mut()?.number_mut(rest),
            _ => None,
        }
    }
}

impl NetflixGradient2Spec {
    pub fn summary(&self) -> String {
        format!("Netflix Gradient2 {}..{}{}", self.min_limit, self.max_concurrency, windowed(&self.window))
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (value, name) in [(self.initial_limit, "initial_limit"), (self.min_limit, "min_limit"), (self.max_concurrency, "max_concurrency")] {
            check_limit(errors, format!("{path}.{name}"), value);
        }
        check_order(errors, path, (self.min_limit, "min_limit"), (self.max_concurrency, "max_concurrency"));
        check_smoothing(errors, format!("{path}.smoothing"), self.smoothing);
        if self.queue_size > MAX_CONCURRENCY {
            push_error(errors, format!("{path}.queue_size"), "must be at most 100,000 requests");
        }
        if !(1..=1_000_000).contains(&self.long_window) {
            push_error(errors, format!("{path}.long_window"), "must be from 1 to 1,000,000 samples");
        }
        if !(self.rtt_tolerance.is_finite() && (1.0..=100.0).contains(&self.rtt_tolerance)) {
            push_error(errors, format!("{path}.rtt_tolerance"), "must be from 1 to 100, as the library requires at least 1");
        }
        check_window(&self.window, path, errors);
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("initial_limit")] => Some(NumberField::Whole32(&mut self.initial_limit)),
            [Step::Key("min_limit")] => Some(NumberField::Whole32(&mut self.min_limit)),
            [Step::Key("max_concurrency")] => Some(NumberField::Whole32(&mut self.max_concurrency)),
            [Step::Key("smoothing")] => Some(NumberField::Real(&mut self.smoothing)),
            [Step::Key("queue_size")] => Some(NumberField::Whole32(&mut self.queue_size)),
            [Step::Key("long_window")] => Some(NumberField::Whole32(&mut self.long_window)),
            [Step::Key("rtt_tolerance")] => Some(NumberField::Real(&mut self.rtt_tolerance)),
            [Step::Key("window"), rest @ ..] => self.window.as_mut()?.number_mut(rest),
            _ => None,
        }
    }
}

impl NetflixWindowSpec {
    fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("min_window_s")] => Some(NumberField::Real(&mut self.min_window_s)),
            [Step::Key("max_window_s")] => Some(NumberField::Real(&mut self.max_window_s)),
            [Step::Key("min_rtt_threshold_s")] => Some(NumberField::Real(&mut self.min_rtt_threshold_s)),
            [Step::Key("window_size")] => Some(NumberField::Whole32(&mut self.window_size)),
            [Step::Key("percentile")] => Some(NumberField::MaybeReal(&mut self.percentile)),
            [Step::Key("capacity")] => Some(NumberField::Whole32(&mut self.capacity)),
            _ => None,
        }
    }

    pub(crate) fn min_window_ns(&self) -> i64 {
        (self.min_window_s * 1e9).round() as i64
    }

    pub(crate) fn max_window_ns(&self) -> i64 {
        (self.max_window_s * 1e9).round() as i64
    }

    pub(crate) fn min_rtt_threshold_ns(&self) -> i64 {
        (self.min_rtt_threshold_s * 1e9).round() as i64
    }
}

/// A summary's mention of a window.
fn windowed(window: &Option<NetflixWindowSpec>) -> String {
    match window {
        None => String::new(),
        Some(w) => match w.percentile {
            Some(p) => format!(", windowed p{}", crate::plumbing::numbers::readable(p * 100.0)),
            None => ", windowed".to_string(),
        },
    }
}

fn check_positive(errors: &mut Vec<FieldError>, path: String, value: f64, message: &str) {
    if !(value.is_finite() && value > 0.0 && value <= 3600.0) {
        push_error(errors, path, message);
    }
}

fn check_smoothing(errors: &mut Vec<FieldError>, path: String, value: f64) {
    if !(value.is_finite() && value > 0.0 && value <= 1.0) {
        push_error(errors, path, "must be above 0 and at most 1 (at 0 the limit never moves)");
    }
}

fn check_window(window: &Option<NetflixWindowSpec>, path: &str, errors: &mut Vec<FieldError>) {
    let Some(w) = window else { return };
    let path = format!("{path}.window");
    check_range(errors, format!("{path}.min_window_s"), w.min_window_s, 0.1, 3600.0);
    check_range(errors, format!("{path}.max_window_s"), w.max_window_s, 0.1, 3600.0);
    if w.min_window_s > w.max_window_s {
        push_error(errors, format!("{path}.min_window_s"), "must be at most max_window_s");
    }
    check_range(errors, format!("{path}.min_rtt_threshold_s"), w.min_rtt_threshold_s, 0.0, 60.0);
    if !(10..=1_000_000).contains(&w.window_size) {
        push_error(errors, format!("{path}.window_size"), "must be from 10 (as the library requires) to 1,000,000 samples");
    }
    if let Some(p) = w.percentile {
        if !(p.is_finite() && p > 0.0 && p < 1.0) {
            push_error(errors, format!("{path}.percentile"), "must be above 0 and below 1 (0.9 is the 90th percentile)");
        }
        if p * f64::from(w.window_size) < 0.5 {
            push_error(errors, format!("{path}.percentile"), "must be at least 0.5 / window_size: the library reads sample round(n · p) − 1, which below that is none (it throws)");
        }
        if w.capacity < w.window_size || w.capacity > 1_000_000 {
            push_error(errors, format!("{path}.capacity"), "must be at least window_size (a window keeping fewer samples is never ready, and the limit never moves) and at most 1,000,000");
        }
    }
}

/// One of the three algorithms with its settings and its state.
#[derive(Clone)]
enum Algorithm {
    Aimd(NetflixAimdSpec, Aimd),
    Vegas(NetflixVegasSpec, Vegas),
    Gradient2(NetflixGradient2Spec, Gradient2),
}

/// Which algorithm, with its settings: what the block is given.
pub enum Settings {
    Aimd(NetflixAimdSpec),
    Vegas(NetflixVegasSpec),
    Gradient2(NetflixGradient2Spec),
}

/// The limiter: the algorithm fed by `SimpleLimiter`.
#[derive(Clone)]
pub struct Limiter {
    algorithm: Algorithm,
    window: Option<(NetflixWindowSpec, Windowed)>,
    /// Requests let through and not finished.
    inflight: i32,
    /// Each of them, by id: its admission (ns) and what was in flight then,
    /// counting itself.
    admitted: HashMap<u64, (i64, i32)>,
    /// The limit's course and what was in flight, for the charts: each
    /// recorded as it changes, in bounded series.
    course: Box<Course>,
}


impl Limiter {
    pub fn new(settings: Settings) -> Limiter {
        let window = match &settings {
            Settings::Aimd(s) => s.window.clone(),
            Settings::Vegas(s) => s.window.clone(),
            Settings::Gradient2(s) => s.window.clone(),
        };
        let algorithm = match settings {
            Settings::Aimd(spec) => {
                let aimd = Aimd::new(&spec);
                Algorithm::Aimd(spec, aimd)
            }
            Settings::Vegas(spec) => {
                let vegas = Vegas::new(&spec);
                Algorithm::Vegas(spec, vegas)
            }
            Settings::Gradient2(spec) => {
                let gradient2 = Gradient2::new(&spec);
                Algorithm::Gradient2(spec, gradient2)
            }
        };
        let mut limiter = Limiter { algorithm, window: window.map(|w| (w, Windowed::default())), inflight: 0, admitted: HashMap::new(), course: Box::new(Course::new()) };
        limiter.note(0);
        limiter
    }

    /// New settings at `now_ns`: the algorithm afresh, what is in flight
    /// kept.
    pub fn reconfigure(&mut self, settings: Settings, now_ns: i64) {
        let fresh = Limiter::new(settings);
        self.algorithm = fresh.algorithm;
        self.window = fresh.window;
        self.note(now_ns);
    }

    /// The limit's course so far.
    pub fn course(&self) -> &Course {
        &self.course
    }

    /// Records the limit and what is in flight at `now_ns`.
    fn note(&mut self, now_ns: i64) {
        let (limit, in_flight) = (self.limit().max(0) as u64, self.in_flight());
        self.course.note(now_ns, limit, in_flight);
    }

    /// The limit now.
    pub fn limit(&self) -> i32 {
        match &self.algorithm {
            Algorithm::Aimd(_, a) => a.limit(),
            Algorithm::Vegas(_, v) => v.limit(),
            Algorithm::Gradient2(_, g) => g.limit(),
        }
    }

    /// Requests in flight now.
    pub fn in_flight(&self) -> u64 {
        self.inflight.max(0) as u64
    }

    /// Lets request `id` through at `now_ns` if fewer than the limit are
    /// in flight (`SimpleLimiter.acquire`), counting it.
    pub fn decide(&mut self, id: u64, now_ns: i64) -> bool {
        if self.inflight >= self.limit() {
            return false;
        }
        self.inflight += 1;
        self.admitted.insert(id, (now_ns, self.inflight));
        self.note(now_ns);
        true
    }

    /// Request `id`, let through, is not to be counted: its end will not
    /// be heard (past the gates a message can be counted against).
    pub fn forget(&mut self, id: u64) {
        if let Some((admitted_ns, _)) = self.admitted.remove(&id) {
            self.inflight -= 1;
            self.note(admitted_ns);
        }
    }

    /// Request `id`, let through, ended at `now_ns`, dropped or not: its
    /// sample goes to the algorithm. `draw` is a uniform draw in [0, 1),
    /// for Vegas's probe.
    pub fn finished(&mut self, id: u64, now_ns: i64, dropped: bool, draw: &mut impl FnMut() -> f64) {
        let Some((start_ns, inflight)) = self.admitted.remove(&id) else { return };
        self.inflight -= 1;
        self.note(now_ns);
        let sample = Sample { start_ns, rtt_ns: now_ns.saturating_sub(start_ns), inflight, did_drop: dropped };
        let sample = match &mut self.window {
            None => Some(sample),
            Some((spec, window)) => window.offer(spec, sample),
        };
        let Some(sample) = sample else { return };
        match &mut self.algorithm {
            Algorithm::Aimd(spec, a) => drop(a.update(spec, sample)),
            Algorithm::Vegas(spec, v) => drop(v.update(spec, sample, draw)),
            Algorithm::Gradient2(spec, g) => drop(g.update(spec, sample)),
        }
        self.note(now_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn each_setting_outside_the_librarys_range_is_refused_by_its_path() {
        let refused = |spec: ProductLimiterSpecOf| super::super::refused_fields(|path, errors| spec.validate(path, errors));
        assert_eq!(refused(ProductLimiterSpecOf::Aimd(NetflixAimdSpec::default())), Vec::<String>::new());
        let aimd = NetflixAimdSpec { initial_limit: 0, min_limit: 300, max_limit: 200, backoff_ratio: 1.0, timeout_s: 0.0, window: None };
        assert_eq!(refused(ProductLimiterSpecOf::Aimd(aimd)), ["n.initial_limit", "n.min_limit", "n.backoff_ratio", "n.timeout_s"]);
        let edges = NetflixAimdSpec { initial_limit: 100_000, min_limit: 1, max_limit: 100_000, backoff_ratio: 0.5, timeout_s: 3600.0, window: None };
        assert_eq!(refused(ProductLimiterSpecOf::Aimd(edges.clone())), Vec::<String>::new());
        assert_eq!(refused(ProductLimiterSpecOf::Aimd(NetflixAimdSpec { max_limit: 100_001, ..edges })), ["n.max_limit"]);
        let vegas = NetflixVegasSpec { smoothing: 0.0, probe_multiplier: 0, alpha: Some(7), beta: Some(6), ..NetflixVegasSpec::default() };
        assert_eq!(refused(ProductLimiterSpecOf::Vegas(vegas)), ["n.smoothing", "n.probe_multiplier", "n.alpha"]);
        let g2 = NetflixGradient2Spec { rtt_tolerance: 0.99, long_window: 0, queue_size: 100_001, ..NetflixGradient2Spec::default() };
        assert_eq!(refused(ProductLimiterSpecOf::Gradient2(g2)), ["n.queue_size", "n.long_window", "n.rtt_tolerance"]);
        let window = NetflixWindowSpec { min_window_s: 0.09, max_window_s: 0.05, window_size: 9, percentile: Some(1.0), capacity: 5, min_rtt_threshold_s: -1.0 };
        let g2 = NetflixGradient2Spec { window: Some(window), ..NetflixGradient2Spec::default() };
        assert_eq!(
            refused(ProductLimiterSpecOf::Gradient2(g2)),
            ["n.window.min_window_s", "n.window.max_window_s", "n.window.min_window_s", "n.window.min_rtt_threshold_s", "n.window.window_size", "n.window.percentile", "n.window.capacity"]
        );
        // The library's index round(n · p) − 1 is −1 below half a sample.
        let tiny = |p: f64| NetflixAimdSpec { window: Some(NetflixWindowSpec { percentile: Some(p), ..NetflixWindowSpec::default() }), ..NetflixAimdSpec::default() };
        assert_eq!(refused(ProductLimiterSpecOf::Aimd(tiny(0.04))), ["n.window.percentile"]);
        assert_eq!(refused(ProductLimiterSpecOf::Aimd(tiny(0.05))), Vec::<String>::new());
    }

    /// The three specs, for the validation test.
    enum ProductLimiterSpecOf {
        Aimd(NetflixAimdSpec),
        Vegas(NetflixVegasSpec),
        Gradient2(NetflixGradient2Spec),
    }

    impl ProductLimiterSpecOf {
        fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
            match self {
                ProductLimiterSpecOf::Aimd(s) => s.validate(path, errors),
                ProductLimiterSpecOf::Vegas(s) => s.validate(path, errors),
                ProductLimiterSpecOf::Gradient2(s) => s.validate(path, errors),
            }
        }
    }

    #[test]
    fn a_request_passes_below_the_limit_and_its_sample_counts_what_was_in_flight_at_its_admission() {
        let mut l = Limiter::new(Settings::Aimd(NetflixAimdSpec { initial_limit: 2, min_limit: 1, ..NetflixAimdSpec::default() }));
        let mut draw = || 0.5;
        assert!(l.decide(1, 0) && l.decide(2, 0));
        assert!(!l.decide(3, 0), "two in flight at a limit of two: refused");
        assert_eq!(l.in_flight(), 2);
        // Admitted first, alone: 2 · 1 ≥ 2, one more.
        l.finished(1, 10 * MS, false, &mut draw);
        assert_eq!((l.limit(), l.in_flight()), (3, 1));
        assert!(l.decide(4, 10 * MS) && l.decide(5, 10 * MS));
        assert!(!l.decide(6, 10 * MS));
        // Dropped further on: 3 · 0.9, truncated.
        l.finished(2, 20 * MS, true, &mut draw);
        assert_eq!((l.limit(), l.in_flight()), (2, 2));
        // Forgotten (its end would not be heard): no sample, not in flight.
        l.forget(4);
        assert_eq!((l.limit(), l.in_flight()), (2, 1));
        // An end heard twice, or of a request never admitted, changes nothing.
        l.finished(2, 30 * MS, false, &mut draw);
        l.finished(99, 30 * MS, false, &mut draw);
        assert_eq!((l.limit(), l.in_flight()), (2, 1));
        // A round trip over the time-out counts as a drop.
        l.finished(5, 10 * MS + 5_000 * MS + 1, false, &mut draw);
        assert_eq!((l.limit(), l.in_flight()), (1, 0));
        // The charts' course: the limit went from 2 up to 3 and down to 1;
        // in flight, up to 3 and down to none.
        let now = crate::time::SimTime::from_nanos(6_000 * MS as u64);
        let (limits, in_flight) = (l.course().limit.points(now), l.course().in_flight.points(now));
        assert_eq!(limits.iter().map(|p| p.max).max(), Some(3));
        assert_eq!((limits.first().map(|p| p.last), limits.last().map(|p| p.last)), (Some(2), Some(1)));
        assert_eq!((in_flight.iter().map(|p| p.max).max(), in_flight.last().map(|p| p.last)), (Some(3), Some(0)));
    }

    #[test]
    fn new_settings_start_the_algorithm_afresh_and_keep_what_is_in_flight() {
        let mut l = Limiter::new(Settings::Gradient2(NetflixGradient2Spec { initial_limit: 5, min_limit: 1, ..NetflixGradient2Spec::default() }));
        let mut draw = || 0.5;
        for id in 0..5 {
            assert!(l.decide(id, 0));
        }
        l.reconfigure(Settings::Vegas(NetflixVegasSpec { initial_limit: 2, ..NetflixVegasSpec::default() }), 0);
        assert_eq!((l.limit(), l.in_flight()), (2, 5));
        assert!(!l.decide(9, 0), "five in flight, limit two: a limit lowered takes nothing back");
        // Their samples go to the new algorithm. Vegas's first sets its
        // no-load time; at the same round trip no queue is seen: the
        // second (2 in flight at admission, 2 · 2 ≥ 2) adds beta, 6; the
        // third (3: 6 < 8) is app-limited; the fourth (4: 8 ≥ 8) adds 6.
        for id in 0..4 {
            l.finished(id, 10 * MS, false, &mut draw);
        }
        assert_eq!((l.limit(), l.in_flight()), (14, 1));
        assert!(l.decide(10, 10 * MS));
    }

    #[test]
    fn a_window_feeds_the_limit_one_sample_a_window() {
        let window = NetflixWindowSpec { min_window_s: 0.1, max_window_s: 0.1, ..NetflixWindowSpec::default() };
        let mut l = Limiter::new(Settings::Aimd(NetflixAimdSpec { initial_limit: 20, min_limit: 1, window: Some(window), ..NetflixAimdSpec::default() }));
        let mut draw = || 0.5;
        // The first sample closes a window of one: not enough, lost.
        assert!(l.decide(0, 0));
        l.finished(0, MS, false, &mut draw);
        // Ten dropped samples in the next window: no change until it closes.
        for id in 1..=10 {
            assert!(l.decide(id, 2 * MS));
            l.finished(id, 3 * MS + id as i64 * MS, true, &mut draw);
        }
        assert_eq!(l.limit(), 20);
        assert!(l.decide(11, 50 * MS));
        l.finished(11, 150 * MS, false, &mut draw);
        assert_eq!(l.limit(), 18, "one sample for the window, marked dropped: 20 · 0.9");
    }
}
