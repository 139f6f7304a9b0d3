//! Envoy's adaptive concurrency filter (`envoy.filters.http.adaptive_concurrency`)
//! and its gradient controller, transcribed from
//! `source/extensions/filters/http/adaptive_concurrency/controller/gradient_controller.cc`
//! at commit 0884a279 (Envoy 1.34's, with `fixed_value`), the filter's
//! `adaptive_concurrency_filter.cc`, and libcircllhist's
//! `hist_approx_quantile` for the percentiles it takes. Line numbers cited
//! are gradient_controller.cc's.
//!
//! Guarantees, as the controller decides:
//! - A request passes while fewer than the limit are outstanding, and is
//!   refused at once otherwise (503 unless set; `rate_limited`): nothing
//!   waits (`forwardingDecision`, l.217-241). A request let through is
//!   outstanding until it ends; its latency, from its admission to its end
//!   in whole microseconds, goes into the histogram (`recordLatencySample`,
//!   l.243-261), unless it was admitted before the latest minRTT window
//!   began. A request dropped further on ends with Envoy's error reply,
//!   timed like any other.
//! - Every `concurrency_update_interval_s`, outside a minRTT window, the
//!   histogram's `sample_aggregate_percentile` becomes the sample RTT and
//!   the limit becomes `L·g + sqrt(L·g)`, truncated, `g = minRTT·(1 +
//!   buffer) / sampleRTT` kept within 0.5 and 2, the limit kept within
//!   `min_concurrency` and `max_concurrency_limit`, min_concurrency
//!   winning (`calculateNewLimit`, l.192-215). A window without samples
//!   changes nothing.
//! - A minRTT window pins the limit to `min_concurrency`; it ends at its
//!   `min_rtt_request_count`-th sample, the histogram's percentile (not its
//!   least) becoming minRTT, and the limit before it comes back; the next
//!   window comes `min_rtt_interval_s` later plus a jitter of up to
//!   `min_rtt_jitter_percent` of it, in whole milliseconds
//!   (`updateMinRTT`, l.136-158, `applyJitter`, l.160-168). The first
//!   begins at the start; five limits in a row at `min_concurrency`
//!   outside a window bring the next at once (l.268-292). A window has no
//!   time-out: without traffic the limit stays pinned. With
//!   `min_rtt_fixed_s` there is no window: minRTT is that.
//! - Percentiles are libcircllhist's: values binned to two significant
//!   digits, interpolated within the bin (50 samples of 10 ms read p50
//!   10.5 ms), as Envoy reads them.
//! - The timers fire at their instants: what they change is taken up
//!   before the next decision or sample at or after them, and a reading of
//!   the limit in between (the block, the charts) fires them first.
//! - Settings changed while it runs make a new controller, as a new
//!   configuration does in Envoy: the requests let through before stay
//!   with the old one (their ends unheard, not counted against the new
//!   limit).
//!
//! Not modelled: runtime overrides, `enabled` (the filter is on),
//! health checks passed through, the newer `min_concurrency_limit`, and a
//! request cancelled before its reply (no sample, in Envoy).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::course::Course;
use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{check_range, is_whole_ms, push_error, FieldError};

/// The filter's settings, in the proto's words (`AdaptiveConcurrency` with
/// its `GradientControllerConfig`), flattened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvoyAdaptiveConcurrencySpec {
    /// `concurrency_limit_params.concurrency_update_interval`: required.
    pub concurrency_update_interval_s: f64,
    #[serde(default = "fifty")]
    pub sample_aggregate_percentile: f64,
    /// `concurrency_limit_params.max_concurrency_limit`.
    #[serde(default = "thousand")]
    pub max_concurrency_limit: u32,
    /// `min_rtt_calc_params.interval`: one of it and `fixed_value` is
    /// needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rtt_interval_s: Option<f64>,
    /// `min_rtt_calc_params.fixed_value`: minRTT set, never measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rtt_fixed_s: Option<f64>,
    #[serde(default = "fifty_requests")]
    pub min_rtt_request_count: u32,
    #[serde(default = "fifteen")]
    pub min_rtt_jitter_percent: f64,
    #[serde(default = "three")]
    pub min_concurrency: u32,
    #[serde(default = "twenty_five")]
    pub min_rtt_buffer_percent: f64,
    /// `concurrency_limit_exceeded_status`.
    #[serde(default = "status")]
    pub status: u16,
}

fn fifty() -> f64 {
    50.0
}
fn thousand() -> u32 {
    1000
}
fn fifty_requests() -> u32 {
    50
}
fn fifteen() -> f64 {
    15.0
}
fn three() -> u32 {
    3
}
fn twenty_five() -> f64 {
    25.0
}
fn status() -> u16 {
    503
}

/// `s` as whole milliseconds, as Envoy reads a duration here.
fn millis(s: f64) -> i64 {
    (s * 1000.0).round() as i64
}

impl EnvoyAdaptiveConcurrencySpec {
    /// Every 0.1 s, minRTT measured every `interval_s`, the rest Envoy's
    /// defaults.
    pub fn of(interval_s: f64) -> EnvoyAdaptiveConcurrencySpec {
        EnvoyAdaptiveConcurrencySpec {
            concurrency_update_interval_s: 0.1,
            sample_aggregate_percentile: fifty(),
            max_concurrency_limit: thousand(),
            min_rtt_interval_s: Some(interval_s),
            min_rtt_fixed_s: None,
            min_rtt_request_count: fifty_requests(),
            min_rtt_jitter_percent: fifteen(),
            min_concurrency: three(),
            min_rtt_buffer_percent: twenty_five(),
            status: status(),
        }
    }

    pub fn summary(&self) -> String {
        let min_rtt = match (self.min_rtt_fixed_s, self.min_rtt_interval_s) {
            (Some(fixed), _) => format!("minRTT {}s", crate::plumbing::numbers::readable(fixed)),
            (None, Some(every)) => format!("minRTT every {}s", crate::plumbing::numbers::readable(every)),
            (None, None) => String::new(),
        };
        format!("Envoy adaptive {}..{} {min_rtt}", self.min_concurrency, self.max_concurrency_limit).trim_end().to_string()
    }

    /// Whether minRTT is measured in windows (`fixed_value` unset).
    fn samples_min_rtt(&self) -> bool {
        self.min_rtt_fixed_s.is_none_or(|s| millis(s) <= 0)
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        let interval = self.concurrency_update_interval_s;
        if !(is_whole_ms(interval) && (0.001..=3600.0).contains(&interval)) {
            push_error(errors, format!("{path}.concurrency_update_interval_s"), "must be whole milliseconds from 0.001 to 3,600 s (Envoy requires it above 0)");
        }
        match (self.min_rtt_interval_s, self.min_rtt_fixed_s) {
            (_, Some(fixed)) if !(is_whole_ms(fixed) && (0.001..=3600.0).contains(&fixed)) => {
                push_error(errors, format!("{path}.min_rtt_fixed_s"), "must be whole milliseconds from 0.001 to 3,600 s");
            }
            (Some(every), None) if !(is_whole_ms(every) && (0.001..=86_400.0).contains(&every)) => {
                push_error(errors, format!("{path}.min_rtt_interval_s"), "must be whole milliseconds from 0.001 to 86,400 s (below 1 ms, Envoy needs min_rtt_fixed_s)");
            }
            (None, None) => push_error(errors, format!("{path}.min_rtt_interval_s"), "set it (how often minRTT is measured), or min_rtt_fixed_s: Envoy refuses a configuration with neither"),
            _ => {}
        }
        for (value, name) in [(self.sample_aggregate_percentile, "sample_aggregate_percentile"), (self.min_rtt_jitter_percent, "min_rtt_jitter_percent"), (self.min_rtt_buffer_percent, "min_rtt_buffer_percent")] {
            check_range(errors, format!("{path}.{name}"), value, 0.0, 100.0);
        }
        if !(1..=super::netflix::MAX_CONCURRENCY).contains(&self.max_concurrency_limit) {
            push_error(errors, format!("{path}.max_concurrency_limit"), "must be from 1 to 100,000 requests (Envoy requires it above 0)");
        }
        if !(1..=super::netflix::MAX_CONCURRENCY).contains(&self.min_concurrency) {
            push_error(errors, format!("{path}.min_concurrency"), "must be from 1 to 100,000 requests (Envoy requires it above 0)");
        }
        if !(1..=1_000_000).contains(&self.min_rtt_request_count) {
            push_error(errors, format!("{path}.min_rtt_request_count"), "must be from 1 to 1,000,000 requests (Envoy requires it above 0)");
        }
        if !(400..=599).contains(&self.status) {
            push_error(errors, format!("{path}.status"), "must be from 400 to 599 (Envoy answers 503 for a status below 400)");
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("concurrency_update_interval_s")] => Some(NumberField::Real(&mut self.concurrency_update_interval_s)),
            [Step::Key("sample_aggregate_percentile")] => Some(NumberField::Real(&mut self.sample_aggregate_percentile)),
            [Step::Key("max_concurrency_limit")] => Some(NumberField::Whole32(&mut self.max_concurrency_limit)),
            [Step::Key("min_rtt_interval_s")] => Some(NumberField::MaybeReal(&mut self.min_rtt_interval_s)),
            [Step::Key("min_rtt_fixed_s")] => Some(NumberField::MaybeReal(&mut self.min_rtt_fixed_s)),
            [Step::Key("min_rtt_request_count")] => Some(NumberField::Whole32(&mut self.min_rtt_request_count)),
            [Step::Key("min_rtt_jitter_percent")] => Some(NumberField::Real(&mut self.min_rtt_jitter_percent)),
            [Step::Key("min_concurrency")] => Some(NumberField::Whole32(&mut self.min_concurrency)),
            [Step::Key("min_rtt_buffer_percent")] => Some(NumberField::Real(&mut self.min_rtt_buffer_percent)),
            [Step::Key("status")] => Some(NumberField::Whole16(&mut self.status)),
            _ => None,
        }
    }
}

/// libcircllhist's histogram of non-negative values: counts by bin, a bin
/// being two significant digits and a power of ten (`double_to_hist_bucket`),
/// the zero bin apart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histogram {
    zeros: u64,
    /// By (exponent, two digits from 10 to 99): ascending.
    bins: BTreeMap<(i32, u32), u64>,
}

impl Histogram {
    pub fn insert(&mut self, value: f64) {
        if value <= 0.0 || !value.is_finite() {
            self.zeros += 1;
            return;
        }
        let mut exp = value.log10().floor() as i32;
        let mut digits = (value / 10f64.powi(exp) * 10.0 + 1e-13).floor() as u32;
        if digits >= 100 {
            digits /= 10;
            exp += 1;
        }
        *self.bins.entry((exp, digits.max(10))).or_insert(0) += 1;
    }

    pub fn count(&self) -> u64 {
        self.zeros + self.bins.values().sum::<u64>()
    }

    pub fn clear(&mut self) {
        *self = Histogram::default();
    }

    /// `hist_approx_quantile` for one quantile `q` in [0, 1]: the bin where
    /// the count passes `q · N`, interpolated linearly within it.
    pub fn quantile(&self, q: f64) -> f64 {
        let total = self.count() as f64;
        if total == 0.0 {
            return f64::NAN;
        }
        let target = total * q;
        // (left, width, count) of each bin, ascending, the zero bin first.
        let bins = (self.zeros > 0)
            .then_some((0.0, 0.0, self.zeros))
            .into_iter()
            .chain(self.bins.iter().map(|(&(exp, digits), &n)| (f64::from(digits) / 10.0 * 10f64.powi(exp), 10f64.powi(exp) / 10.0, n)));
        let (mut left, mut width, mut lower, mut upper) = (0.0, 0.0, 0.0, 0.0);
        for (k, (l, w, n)) in bins.enumerate() {
            if k > 0 && upper >= target {
                break;
            }
            (left, width, lower, upper) = (l, w, upper, upper + n as f64);
        }
        if lower == target {
            left
        } else if upper == target {
            left + width
        } else if width == 0.0 {
            left
        } else {
            left + (target - lower) / (upper - lower) * width
        }
    }
}

/// `calculateNewLimit` (l.192-215): the limit after a sample window.
pub fn new_limit(limit: u32, min_rtt_us: f64, sample_rtt_us: f64, spec: &EnvoyAdaptiveConcurrencySpec) -> u32 {
    let buffered = min_rtt_us + min_rtt_us * spec.min_rtt_buffer_percent / 100.0;
    // max(0.5, min(2.0, raw)): std::min(2.0, NaN) is 2.0.
    let raw = buffered / sample_rtt_us;
    let gradient = if raw.is_nan() { 2.0 } else { raw.clamp(0.5, 2.0) };
    let scaled = f64::from(limit) * gradient;
    let new = (scaled + scaled.sqrt()) as u32;
    new.min(spec.max_concurrency_limit).max(spec.min_concurrency)
}

/// The gradient controller's state, with its settings: what its timers
/// and samples change.
#[derive(Clone)]
struct Gradient {
    spec: EnvoyAdaptiveConcurrencySpec,
    limit: u32,
    /// The limit before the minRTT window open; 0: none is open.
    deferred: u32,
    min_rtt_us: f64,
    hist: Histogram,
    consecutive_min: u32,
    /// When the latest minRTT window began: a request admitted before it
    /// makes no sample.
    epoch_ns: i64,
    /// The sample window's timer and the minRTT timer, when armed.
    sample_reset_at: Option<i64>,
    min_rtt_at: Option<i64>,
    /// The limits set, with their instants, not yet recorded for the
    /// charts.
    changes: Vec<(i64, u32)>,
}

impl Gradient {
    /// The controller as Envoy builds it at `now_ns` (l.56-95): the limit
    /// at `min_concurrency`, a minRTT window begun unless minRTT is fixed.
    fn new(spec: EnvoyAdaptiveConcurrencySpec, now_ns: i64) -> Gradient {
        let mut g = Gradient {
            limit: spec.min_concurrency,
            deferred: 0,
            min_rtt_us: 0.0,
            hist: Histogram::default(),
            consecutive_min: 0,
            epoch_ns: now_ns,
            sample_reset_at: None,
            min_rtt_at: None,
            changes: Vec::new(),
            spec,
        };
        g.sample_reset_at = Some(now_ns + g.interval_ns());
        if g.spec.samples_min_rtt() {
            g.enter_min_rtt_window(now_ns);
        } else {
            g.min_rtt_us = (millis(g.spec.min_rtt_fixed_s.unwrap_or(0.0)) * 1000) as f64;
            g.update_limit(g.spec.min_concurrency, now_ns);
        }
        g
    }

    /// Whether a minRTT window is open.
    fn in_min_rtt_window(&self) -> bool {
        self.deferred > 0
    }

    /// The sample window's period, in nanoseconds.
    fn interval_ns(&self) -> i64 {
        millis(self.spec.concurrency_update_interval_s).max(1) * 1_000_000
    }

    /// Fires the timers due by `now_ns`, in order (the sample window's
    /// first at one instant).
    fn catch_up(&mut self, now_ns: i64) {
        loop {
            let reset = self.sample_reset_at.filter(|&t| t <= now_ns);
            let min_rtt = self.min_rtt_at.filter(|&t| t <= now_ns);
            let reset = reset.filter(|&r| min_rtt.is_none_or(|m| r <= m));
            match (reset, min_rtt) {
                (None, None) => break,
                (Some(r), _) => {
                    self.sample_reset_at = None;
                    // In a window the timer is not armed again: the
                    // window's end arms it (l.68-83).
                    if !self.in_min_rtt_window() {
                        self.reset_sample_window(r);
                        // The histogram is empty now, and stays so until
                        // the next sample: the resets before then change
                        // nothing, and are passed over at once.
                        let interval = self.interval_ns();
                        self.sample_reset_at = Some(r + interval * (1 + (now_ns - r) / interval));
                    }
                }
                (None, Some(m)) => {
                    self.min_rtt_at = None;
                    self.enter_min_rtt_window(m);
                }
            }
        }
    }

    /// `enterMinRTTSamplingWindow` (l.108-134).
    fn enter_min_rtt_window(&mut self, now_ns: i64) {
        if self.in_min_rtt_window() {
            return;
        }
        self.deferred = self.limit;
        self.update_limit(self.spec.min_concurrency, now_ns);
        self.hist.clear();
        self.epoch_ns = now_ns;
    }

    /// `resetSampleWindow` (l.170-182).
    fn reset_sample_window(&mut self, now_ns: i64) {
        if self.hist.count() == 0 {
            return;
        }
        let sample_rtt_us = self.percentile_us();
        self.hist.clear();
        let limit = new_limit(self.limit, self.min_rtt_us, sample_rtt_us, &self.spec);
        self.update_limit(limit, now_ns);
    }

    /// The histogram's `sample_aggregate_percentile`, cast to whole
    /// microseconds (`processLatencySamplesAndClear`, l.184-190).
    fn percentile_us(&self) -> f64 {
        let q = self.spec.sample_aggregate_percentile.clamp(0.0, 100.0) / 100.0;
        let value = self.hist.quantile(q);
        if value.is_finite() { value.trunc() } else { 0.0 }
    }

    /// `updateConcurrencyLimit` (l.268-292).
    fn update_limit(&mut self, new: u32, now_ns: i64) {
        let old = std::mem::replace(&mut self.limit, new);
        let min = self.spec.min_concurrency;
        if !self.in_min_rtt_window() && old == min && new == min {
            self.consecutive_min += 1;
        } else {
            self.consecutive_min = 0;
        }
        if self.consecutive_min >= 5 && self.spec.samples_min_rtt() {
            self.min_rtt_at = Some(now_ns);
        }
        self.changes.push((now_ns, new));
    }

    /// A sample of `latency_us` at `now_ns` (the end of
    /// `recordLatencySample`), then `updateMinRTT` (l.136-158).
    fn sample(&mut self, latency_us: f64, now_ns: i64, draw: &mut impl FnMut() -> f64) {
        self.hist.insert(latency_us);
        if !self.spec.samples_min_rtt() || !self.in_min_rtt_window() || self.hist.count() < u64::from(self.spec.min_rtt_request_count) {
            return;
        }
        self.min_rtt_us = self.percentile_us();
        self.hist.clear();
        let before = self.deferred;
        self.update_limit(before, now_ns);
        self.deferred = 0;
        let interval_ms = millis(self.spec.min_rtt_interval_s.unwrap_or(0.0)).max(0);
        self.min_rtt_at = Some(now_ns + jittered_ms(interval_ms, self.spec.min_rtt_jitter_percent / 100.0, draw()) * 1_000_000);
        self.sample_reset_at = Some(now_ns + self.interval_ns());
    }
}

/// The filter's controller: the gradient controller, and the requests it
/// let through.
#[derive(Clone)]
pub struct Controller {
    gradient: Gradient,
    outstanding: u32,
    /// The requests outstanding, by id, with their admission.
    sent: HashMap<u64, i64>,
    course: Box<Course>,
}

impl Controller {
    pub fn new(spec: EnvoyAdaptiveConcurrencySpec, now_ns: i64) -> Controller {
        let mut c = Controller { gradient: Gradient::new(spec, now_ns), outstanding: 0, sent: HashMap::new(), course: Box::new(Course::new()) };
        c.record(now_ns);
        c
    }

    /// New settings at `now_ns`: a new controller, as Envoy builds for a
    /// new configuration. The requests let through before stay with the
    /// old one (Envoy's streams keep their filter): their ends are not
    /// this one's to hear, and they do not count against its limit.
    pub fn reconfigure(&mut self, spec: EnvoyAdaptiveConcurrencySpec, now_ns: i64) {
        let course = std::mem::replace(&mut self.course, Box::new(Course::new()));
        *self = Controller::new(spec, now_ns);
        self.course = course;
        self.record(now_ns);
    }

    /// The limit as it stands at `now_ns`, the timers due by then fired.
    pub fn limit_at(&self, now_ns: i64) -> u32 {
        let mut g = self.gradient.clone();
        g.catch_up(now_ns);
        g.limit
    }

    pub fn outstanding(&self) -> u64 {
        u64::from(self.outstanding)
    }

    /// minRTT as last measured (or fixed), in microseconds.
    #[cfg(test)]
    pub fn min_rtt_us(&self) -> f64 {
        self.gradient.min_rtt_us
    }

    /// Whether a minRTT window is open, as of the last decision or sample.
    #[cfg(test)]
    pub fn in_min_rtt_window(&self) -> bool {
        self.gradient.in_min_rtt_window()
    }

    #[cfg(test)]
    pub fn limit(&self) -> u32 {
        self.gradient.limit
    }

    pub fn course(&self) -> &Course {
        &self.course
    }

    /// Records the limits set since the last record, each at its instant,
    /// and what is outstanding at `now_ns`.
    fn record(&mut self, now_ns: i64) {
        let outstanding = self.outstanding();
        for (at, limit) in std::mem::take(&mut self.gradient.changes) {
            self.course.note(at, u64::from(limit), outstanding);
        }
        self.course.note(now_ns, u64::from(self.gradient.limit), outstanding);
    }

    /// `forwardingDecision` at `now_ns` for request `id`: let through and
    /// counted outstanding, or refused.
    pub fn decide(&mut self, id: u64, now_ns: i64) -> bool {
        self.gradient.catch_up(now_ns);
        let pass = self.outstanding < self.gradient.limit;
        if pass {
            self.outstanding += 1;
            self.sent.insert(id, now_ns);
        }
        self.record(now_ns);
        pass
    }

    /// Request `id` is not to be counted: its end will not be heard.
    pub fn forget(&mut self, id: u64) {
        if let Some(sent) = self.sent.remove(&id) {
            self.outstanding -= 1;
            self.record(sent);
        }
    }

    /// Request `id` ended at `now_ns` (`recordLatencySample`, l.243-261).
    pub fn finished(&mut self, id: u64, now_ns: i64, draw: &mut impl FnMut() -> f64) {
        self.gradient.catch_up(now_ns);
        let Some(sent) = self.sent.remove(&id) else {
            self.record(now_ns);
            return;
        };
        self.outstanding -= 1;
        if sent >= self.gradient.epoch_ns {
            self.gradient.sample(((now_ns - sent) / 1000) as f64, now_ns, draw);
        }
        self.record(now_ns);
    }
}

/// `applyJitter` (l.160-168): `interval + rand() % ceil(interval · jitter)`
/// milliseconds, `u` uniform in [0, 1) standing for the random number.
pub fn jittered_ms(interval_ms: i64, jitter: f64, u: f64) -> i64 {
    if jitter <= 0.0 {
        return interval_ms;
    }
    let range = (interval_ms as f64 * jitter).ceil() as i64;
    if range <= 0 {
        interval_ms
    } else {
        interval_ms + ((u.clamp(0.0, 1.0 - f64::EPSILON) * range as f64) as i64).min(range - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn spec() -> EnvoyAdaptiveConcurrencySpec {
        EnvoyAdaptiveConcurrencySpec { min_rtt_request_count: 5, ..EnvoyAdaptiveConcurrencySpec::of(60.0) }
    }

    #[test]
    fn the_new_limit_is_the_scaled_limit_and_its_square_root_truncated_within_the_bounds() {
        let s = EnvoyAdaptiveConcurrencySpec::of(60.0);
        // Worked out by hand from calculateNewLimit, buffer 25 %.
        assert_eq!(new_limit(100, 10_000.0, 25_000.0, &s), 57, "g = 12.5 / 25 = 0.5: 50 + 7.07");
        assert_eq!(new_limit(57, 10_000.0, 10_000.0, &s), 79, "g = 1.25: 71.25 + 8.44");
        assert_eq!(new_limit(3, 10_000.0, 4_000.0, &s), 8, "g kept at 2: 6 + 2.45");
        assert_eq!(new_limit(3, 10_000.0, 30_000.0, &s), 3, "g kept at 0.5: 2.72, up to min_concurrency");
        assert_eq!(new_limit(900, 10_000.0, 10_000.0, &s), 1000, "down to max_concurrency_limit");
        assert_eq!(new_limit(20, 0.0, 0.0, &s), 46, "0 / 0: std::min(2.0, NaN) is 2: 40 + 6.32");
        let floor = EnvoyAdaptiveConcurrencySpec { min_concurrency: 50, max_concurrency_limit: 10, ..s };
        assert_eq!(new_limit(20, 10_000.0, 10_000.0, &floor), 50, "min_concurrency wins");
    }

    #[test]
    fn percentiles_are_circllhists_two_digit_bins_interpolated() {
        let mut h = Histogram::default();
        for _ in 0..50 {
            h.insert(10_000.0);
        }
        assert_eq!(h.quantile(0.5), 10_500.0, "the bin [10000, 11000), half way");
        let mut h = Histogram::default();
        for v in [5.0, 99.0, 100.0, 1_234.0, 99_999.0] {
            h.insert(v);
        }
        // Bins [5, 5.1), [99, 100), [100, 110), [1200, 1300), [99000, 100000).
        assert_eq!(h.quantile(0.0), 5.0);
        assert_eq!(h.quantile(0.2), 5.1, "the top of the first bin");
        assert_eq!(h.quantile(0.5), 105.0, "2.5 of 5: half way into the third");
        assert_eq!(h.quantile(1.0), 100_000.0);
        let mut h = Histogram::default();
        h.insert(0.0);
        h.insert(0.0);
        h.insert(40.0);
        assert_eq!(h.quantile(0.5), 0.0, "the zero bin has no width");
        assert!(Histogram::default().quantile(0.5).is_nan());
    }

    #[test]
    fn the_next_min_rtt_window_comes_an_interval_and_a_jitter_later_in_whole_milliseconds() {
        assert_eq!((jittered_ms(60_000, 0.15, 0.0), jittered_ms(60_000, 0.15, 0.999_999_99)), (60_000, 68_999));
        assert_eq!((jittered_ms(10_000, 0.15, 0.0), jittered_ms(10_000, 0.15, 0.999_999_99)), (10_000, 11_499));
        assert_eq!(jittered_ms(10_000, 0.0, 0.7), 10_000);
    }

    /// Lets `n` requests through at `at`, their ids from `first`.
    fn admit(c: &mut Controller, first: u64, n: u64, at: i64) {
        for id in first..first + n {
            assert!(c.decide(id, at), "request {id} at {at}");
        }
    }

    #[test]
    fn a_min_rtt_window_pins_the_limit_then_each_sample_window_moves_it_by_the_gradient() {
        let mut draw = || 0.0;
        let mut c = Controller::new(spec(), 0);
        assert!(c.in_min_rtt_window());
        assert_eq!(c.limit(), 3);
        admit(&mut c, 0, 3, 0);
        assert!(!c.decide(3, 0), "three outstanding at a limit of three");
        for id in 0..3 {
            c.finished(id, 10 * MS, &mut draw);
        }
        admit(&mut c, 10, 2, 10 * MS);
        c.finished(10, 20 * MS, &mut draw);
        assert!(c.in_min_rtt_window(), "four samples of five");
        c.finished(11, 20 * MS, &mut draw);
        assert!(!c.in_min_rtt_window());
        assert_eq!((c.min_rtt_us(), c.limit()), (10_500.0, 3), "the p50 of 10 ms samples, and the limit before the window");
        // The sample window: 10 ms again, g = 1.25 · 10.5 / 10.5; 3.75 + 1.94.
        admit(&mut c, 20, 3, 30 * MS);
        for id in 20..23 {
            c.finished(id, 40 * MS, &mut draw);
        }
        assert_eq!(c.limit_at(119 * MS), 3, "not until the window's end, 100 ms after the minRTT window's");
        assert_eq!(c.limit_at(120 * MS), 5, "read at its end, the window is closed first");
        assert!(c.decide(30, 120 * MS));
        assert_eq!(c.limit(), 5);
        // Nothing sampled in a window changes nothing.
        c.forget(30);
        assert!(c.decide(31, 420 * MS));
        assert_eq!(c.limit(), 5);
        assert_eq!(c.outstanding(), 1);
    }

    #[test]
    fn five_limits_in_a_row_at_the_least_bring_a_min_rtt_window_at_once() {
        let mut draw = || 0.0;
        let mut c = Controller::new(spec(), 0);
        admit(&mut c, 0, 3, 0);
        for id in 0..3 {
            c.finished(id, 10 * MS, &mut draw);
        }
        admit(&mut c, 3, 2, 10 * MS);
        c.finished(3, 20 * MS, &mut draw);
        c.finished(4, 20 * MS, &mut draw);
        assert!(!c.in_min_rtt_window());
        // Latencies three times minRTT: g = 0.5, the limit stays at 3, window after window.
        let mut id = 100;
        for window in 1..=5 {
            let at = 20 * MS + window * 100 * MS - 50 * MS;
            admit(&mut c, id, 1, at);
            c.finished(id, at + 31 * MS, &mut draw);
            id += 1;
            assert!(!c.in_min_rtt_window(), "window {window}");
        }
        // The fifth reset (at 520 ms) set 3 again, the fifth in a row: the
        // next decision finds a minRTT window open.
        assert!(c.decide(id, 521 * MS));
        assert!(c.in_min_rtt_window());
        assert_eq!(c.limit(), 3);
    }

    #[test]
    fn a_request_admitted_before_a_min_rtt_window_began_makes_no_sample_of_it() {
        let mut draw = || 0.0;
        let mut c = Controller::new(EnvoyAdaptiveConcurrencySpec { min_rtt_request_count: 1, min_rtt_jitter_percent: 0.0, min_rtt_interval_s: Some(1.0), ..spec() }, 0);
        admit(&mut c, 0, 1, 0);
        c.finished(0, 10 * MS, &mut draw);
        assert!(!c.in_min_rtt_window());
        // Admitted at 0.5 s; the next window begins at 1.01 s.
        admit(&mut c, 1, 1, 500 * MS);
        admit(&mut c, 2, 1, 1_020 * MS);
        assert!(c.in_min_rtt_window());
        c.finished(1, 1_030 * MS, &mut draw);
        assert!(c.in_min_rtt_window(), "its sample is not the window's");
        c.finished(2, 1_040 * MS, &mut draw);
        assert!(!c.in_min_rtt_window());
        assert_eq!(c.min_rtt_us(), 20_500.0);
    }

    #[test]
    fn new_settings_make_a_new_controller_and_the_requests_before_stay_with_the_old_one() {
        let mut draw = || 0.0;
        let mut c = Controller::new(spec(), 0);
        admit(&mut c, 0, 3, 0);
        c.reconfigure(EnvoyAdaptiveConcurrencySpec { min_concurrency: 2, ..spec() }, 5 * MS);
        assert_eq!((c.outstanding(), c.limit()), (0, 2));
        admit(&mut c, 10, 2, 5 * MS);
        assert!(!c.decide(12, 5 * MS));
        // An old request's end is not this controller's: no sample, nothing freed.
        c.finished(0, 15 * MS, &mut draw);
        assert_eq!(c.outstanding(), 2);
        c.finished(10, 15 * MS, &mut draw);
        assert_eq!(c.outstanding(), 1);
    }

    #[test]
    fn a_fixed_min_rtt_opens_no_window() {
        let mut draw = || 0.0;
        let mut c = Controller::new(EnvoyAdaptiveConcurrencySpec { min_rtt_fixed_s: Some(0.01), min_rtt_interval_s: None, ..spec() }, 0);
        assert!(!c.in_min_rtt_window());
        assert_eq!((c.limit(), c.min_rtt_us()), (3, 10_000.0));
        admit(&mut c, 0, 3, 0);
        for id in 0..3 {
            c.finished(id, 5 * MS, &mut draw);
        }
        assert!(c.decide(9, 100 * MS));
        // g = 12.5 / 5.05 (the bin [5000, 5100) at half way) kept at 2: 6 + 2.45.
        assert_eq!(c.limit(), 8);
    }

    #[test]
    fn each_setting_outside_envoys_range_is_refused_by_its_path() {
        let refused = |s: EnvoyAdaptiveConcurrencySpec| super::super::refused_fields(|path, errors| s.validate(path, errors));
        assert_eq!(refused(spec()), Vec::<String>::new());
        let bad = EnvoyAdaptiveConcurrencySpec {
            concurrency_update_interval_s: 0.0005,
            sample_aggregate_percentile: 101.0,
            max_concurrency_limit: 0,
            min_rtt_interval_s: None,
            min_rtt_fixed_s: None,
            min_rtt_request_count: 0,
            min_rtt_jitter_percent: -1.0,
            min_concurrency: 0,
            min_rtt_buffer_percent: 100.5,
            status: 399,
        };
        assert_eq!(
            refused(bad),
            [
                "n.concurrency_update_interval_s",
                "n.min_rtt_interval_s",
                "n.sample_aggregate_percentile",
                "n.min_rtt_jitter_percent",
                "n.min_rtt_buffer_percent",
                "n.max_concurrency_limit",
                "n.min_concurrency",
                "n.min_rtt_request_count",
                "n.status"
            ]
        );
        assert_eq!(refused(EnvoyAdaptiveConcurrencySpec { min_rtt_interval_s: Some(0.0005), ..spec() }), ["n.min_rtt_interval_s"]);
        assert_eq!(refused(EnvoyAdaptiveConcurrencySpec { min_rtt_fixed_s: Some(0.0), ..spec() }), ["n.min_rtt_fixed_s"]);
        assert_eq!(refused(EnvoyAdaptiveConcurrencySpec { concurrency_update_interval_s: 0.0015, ..spec() }), ["n.concurrency_update_interval_s"]);
    }
}
