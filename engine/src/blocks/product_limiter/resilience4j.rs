//! resilience4j's `CircuitBreaker`, transcribed from resilience4j 2.4.0
//! (tag `v2.4.0`): `resilience4j-circuitbreaker/src/main/java/io/github/
//! resilience4j/circuitbreaker/CircuitBreakerConfig.java` (its defaults),
//! `internal/CircuitBreakerStateMachine.java` (its states),
//! `internal/CircuitBreakerMetrics.java` (the threshold check), and
//! `resilience4j-core/.../core/metrics/FixedSizeSlidingWindowMetrics.java`
//! and `SlidingTimeWindowMetrics.java` (its windows). Transcribed from the
//! sources; no JVM runs here to hold it to.
//!
//! Guarantees, as the state machine decides (one breaker, every call
//! through it one call of the decorated function):
//! - A call is a message let through; its outcome is heard when it is
//!   finished: a success when a consumer completed it, an error when it
//!   was dropped further on or when its client gave up at its time-out
//!   (resilience4j's `TimeLimiter` inside the breaker raises a
//!   `TimeoutException`, a recorded error; the copy's later end is not
//!   heard). A call whose duration, from its permission to its outcome, is
//!   above `slow_call_duration_threshold_s` (strictly) is also slow. A call
//!   refused is never in the window (`CallNotPermittedException`, dropped
//!   here `not_permitted`).
//! - `CLOSED`: every call is permitted. Each outcome goes into the window
//!   (the last `sliding_window_size` calls, or the calls finished in the
//!   last `sliding_window_size` whole seconds); then, once the window holds
//!   `minimum_number_of_calls` (for a count window, at most its size), the
//!   breaker goes `OPEN` if the failure rate (failed × 100 / calls, a
//!   32-bit float as Java computes it) is at least
//!   `failure_rate_threshold`, or the slow-call rate at least
//!   `slow_call_rate_threshold`.
//! - `OPEN`: every call is refused until `wait_duration_in_open_state_s`
//!   has passed; the first call asked for strictly after it turns the
//!   breaker `HALF_OPEN` and is judged there (or the breaker turns at that
//!   instant by itself with
//!   `automatic_transition_from_open_to_half_open_enabled`). Outcomes of
//!   calls let through before go into the window it kept, judging nothing.
//! - `HALF_OPEN`: a fresh count window of
//!   `permitted_number_of_calls_in_half_open_state` calls; that many calls
//!   are permitted, then every one is refused. Each outcome heard (late
//!   ones from before included) goes into it; once it holds
//!   min(`minimum_number_of_calls`, permitted) calls, the breaker goes
//!   `OPEN` at or above a threshold, `CLOSED` (a fresh window) below both.
//!   With `max_wait_duration_in_half_open_state_s` above 0, it goes to
//!   `transition_to_state_after_wait_duration` when that has passed
//!   undecided.
//! - Every change of state is logged with its cause. Both waits are whole
//!   milliseconds (`Duration.toMillis()`, truncated).
//! - Changed while running, it keeps its state and the calls it waits for:
//!   a closed window of another type or size starts empty, an open wait
//!   counts from when it opened, and half-open the trial calls left follow
//!   the permitted number while what was heard is judged again.
//!
//! Not modelled: an open wait that grows with each opening
//! (`waitIntervalFunctionInOpenState`; the default is the constant wait
//! here), exceptions ignored or results recorded as failures
//! (`ignoreExceptions`, `recordResult`), the states forced by hand
//! (`DISABLED`, `FORCED_OPEN`, `METRICS_ONLY`), and the breaker's own
//! events beyond its transitions. A call past the gates a message can be
//! counted against (four) is let through unheard.

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::numbers::readable;
use crate::plumbing::validate::{push_error, FieldError};
use crate::state::{Cause, State};

/// A copy of a request: its message id and how many times it was sent
/// again before.
pub type Call = (u64, u8);

/// How the window counts calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlidingWindowType {
    /// The last `sliding_window_size` calls.
    #[default]
    CountBased,
    /// The calls finished in the last `sliding_window_size` whole seconds.
    TimeBased,
}

/// Where a half-open breaker goes when its wait has passed undecided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterWait {
    #[default]
    Open,
    Closed,
}

fn fifty() -> f64 {
    50.0
}
fn hundred() -> f64 {
    100.0
}
fn sixty() -> f64 {
    60.0
}
fn ten() -> u32 {
    10
}
fn hundred_calls() -> u32 {
    100
}
fn count_based() -> SlidingWindowType {
    SlidingWindowType::CountBased
}
fn open() -> AfterWait {
    AfterWait::Open
}

/// The most calls a window or a half-open state may count.
pub const MAX_CALLS: u32 = 1_000_000;

/// A `CircuitBreakerConfig`, its names as resilience4j's, its times in
/// seconds; each left out is resilience4j's default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resilience4jCircuitBreakerSpec {
    /// Percent of failed calls at which the breaker opens (50).
    #[serde(default = "fifty")]
    pub failure_rate_threshold: f64,
    /// Percent of slow calls at which the breaker opens (100).
    #[serde(default = "hundred")]
    pub slow_call_rate_threshold: f64,
    /// A call longer than this is slow (60 s).
    #[serde(default = "sixty")]
    pub slow_call_duration_threshold_s: f64,
    /// Trial calls permitted while half-open (10).
    #[serde(default = "ten")]
    pub permitted_number_of_calls_in_half_open_state: u32,
    /// How long a half-open breaker waits for its trial calls (0: for
    /// ever).
    #[serde(default)]
    pub max_wait_duration_in_half_open_state_s: f64,
    /// Where it goes when that wait has passed.
    #[serde(default = "open")]
    pub transition_to_state_after_wait_duration: AfterWait,
    #[serde(default = "count_based")]
    pub sliding_window_type: SlidingWindowType,
    /// Calls, or seconds (100).
    #[serde(default = "hundred_calls")]
    pub sliding_window_size: u32,
    /// Calls in the window before a rate is judged (100).
    #[serde(default = "hundred_calls")]
    pub minimum_number_of_calls: u32,
    /// How long it stays open (60 s).
    #[serde(default = "sixty")]
    pub wait_duration_in_open_state_s: f64,
    /// Whether it turns half-open by itself when the wait has passed
    /// (false: at the next call asked for).
    #[serde(default)]
    pub automatic_transition_from_open_to_half_open_enabled: bool,
}

impl Default for Resilience4jCircuitBreakerSpec {
    fn default() -> Self {
        Resilience4jCircuitBreakerSpec {
            failure_rate_threshold: fifty(),
            slow_call_rate_threshold: hundred(),
            slow_call_duration_threshold_s: sixty(),
            permitted_number_of_calls_in_half_open_state: ten(),
            max_wait_duration_in_half_open_state_s: 0.0,
            transition_to_state_after_wait_duration: open(),
            sliding_window_type: count_based(),
            sliding_window_size: hundred_calls(),
            minimum_number_of_calls: hundred_calls(),
            wait_duration_in_open_state_s: sixty(),
            automatic_transition_from_open_to_half_open_enabled: false,
        }
    }
}

/// Seconds as whole nanoseconds.
fn ns(s: f64) -> i64 {
    (s * 1e9).round().clamp(0.0, i64::MAX as f64) as i64
}

/// A wait as resilience4j takes it: `Duration.toMillis()`, whole
/// milliseconds (truncated), in nanoseconds.
fn wait_ns(s: f64) -> i64 {
    ns(s) / 1_000_000 * 1_000_000
}

impl Resilience4jCircuitBreakerSpec {
    /// As the configuration says it: `resilience4j breaker 50% of 100 calls, open 60 s`.
    pub fn summary(&self) -> String {
        let window = match self.sliding_window_type {
            SlidingWindowType::CountBased => format!("{} calls", self.sliding_window_size),
            SlidingWindowType::TimeBased => format!("{} s", self.sliding_window_size),
        };
        format!("resilience4j breaker {}% of {window}, open {} s", readable(self.failure_rate_threshold), readable(self.wait_duration_in_open_state_s))
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (value, name) in [(self.failure_rate_threshold, "failure_rate_threshold"), (self.slow_call_rate_threshold, "slow_call_rate_threshold")] {
            if !(value > 0.0 && value <= 100.0) {
                push_error(errors, format!("{path}.{name}"), "must be above 0 and at most 100 (a percentage), as resilience4j takes");
            }
        }
        if !(self.slow_call_duration_threshold_s >= 1e-9 && self.slow_call_duration_threshold_s <= 1e9) {
            push_error(errors, format!("{path}.slow_call_duration_threshold_s"), "must be from 1 ns (0.000000001) to 1e9 seconds");
        }
        if !(self.wait_duration_in_open_state_s >= 0.001 && self.wait_duration_in_open_state_s <= 1e9) {
            push_error(errors, format!("{path}.wait_duration_in_open_state_s"), "must be from 1 ms (0.001) to 1e9 seconds, as resilience4j takes");
        }
        if !(self.max_wait_duration_in_half_open_state_s >= 0.0 && self.max_wait_duration_in_half_open_state_s <= 1e9) {
            push_error(errors, format!("{path}.max_wait_duration_in_half_open_state_s"), "must be from 0 (wait for ever) to 1e9 seconds");
        }
        for (value, name) in [
            (self.permitted_number_of_calls_in_half_open_state, "permitted_number_of_calls_in_half_open_state"),
            (self.sliding_window_size, "sliding_window_size"),
            (self.minimum_number_of_calls, "minimum_number_of_calls"),
        ] {
            if !(1..=MAX_CALLS).contains(&value) {
                push_error(errors, format!("{path}.{name}"), "must be from 1 to 1,000,000");
            }
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("failure_rate_threshold")] => Some(NumberField::Real(&mut self.failure_rate_threshold)),
            [Step::Key("slow_call_rate_threshold")] => Some(NumberField::Real(&mut self.slow_call_rate_threshold)),
            [Step::Key("slow_call_duration_threshold_s")] => Some(NumberField::Real(&mut self.slow_call_duration_threshold_s)),
            [Step::Key("permitted_number_of_calls_in_half_open_state")] => Some(NumberField::Whole32(&mut self.permitted_number_of_calls_in_half_open_state)),
            [Step::Key("max_wait_duration_in_half_open_state_s")] => Some(NumberField::Real(&mut self.max_wait_duration_in_half_open_state_s)),
            [Step::Key("sliding_window_size")] => Some(NumberField::Whole32(&mut self.sliding_window_size)),
            [Step::Key("minimum_number_of_calls")] => Some(NumberField::Whole32(&mut self.minimum_number_of_calls)),
            [Step::Key("wait_duration_in_open_state_s")] => Some(NumberField::Real(&mut self.wait_duration_in_open_state_s)),
            _ => None,
        }
    }

    /// The closed state's window, empty.
    fn closed_window(&self) -> Window {
        Window::new(self.sliding_window_type, self.sliding_window_size, self.minimum_number_of_calls)
    }

    /// The half-open state's window, empty: always counted by calls.
    fn half_open_window(&self) -> Window {
        let n = self.permitted_number_of_calls_in_half_open_state;
        Window::new(SlidingWindowType::CountBased, n, self.minimum_number_of_calls)
    }
}

/// What the threshold check found (`CircuitBreakerMetrics.Result`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    BelowMinimumCalls,
    Below,
    /// At or above the failure-rate threshold (the slow-call one too, or
    /// not).
    FailureRate,
    SlowCallRate,
}

/// Calls in a window: in all, failed, slow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    calls: u64,
    failed: u64,
    slow: u64,
}

impl Counts {
    fn add(&mut self, failed: bool, slow: bool) {
        self.calls += 1;
        self.failed += u64::from(failed);
        self.slow += u64::from(slow);
    }

    fn take(&mut self, other: Counts) {
        self.calls -= other.calls;
        self.failed -= other.failed;
        self.slow -= other.slow;
    }
}

/// A sliding window of outcomes and its total.
#[derive(Clone, Debug)]
struct Window {
    kind: SlidingWindowType,
    size: u32,
    /// Calls before a rate is judged: for a count window, at most its size.
    minimum: u32,
    /// Count window: each call's outcome (failed, slow), oldest first.
    calls: VecDeque<(bool, bool)>,
    /// Time window: the counts of each whole second that had calls,
    /// oldest first.
    seconds: VecDeque<(u64, Counts)>,
    total: Counts,
}

impl Window {
    fn new(kind: SlidingWindowType, size: u32, minimum: u32) -> Window {
        let size = size.max(1);
        let minimum = match kind {
            SlidingWindowType::CountBased => minimum.min(size),
            SlidingWindowType::TimeBased => minimum,
        };
        Window { kind, size, minimum, calls: VecDeque::new(), seconds: VecDeque::new(), total: Counts::default() }
    }

    /// Forgets the seconds that have left a time window by `second`.
    fn slide(&mut self, second: u64) {
        while let Some(&(s, counts)) = self.seconds.front() {
            if s + u64::from(self.size) > second {
                break;
            }
            self.seconds.pop_front();
            self.total.take(counts);
        }
    }

    /// Records one call's outcome, finished at `now_ns`.
    fn record(&mut self, failed: bool, slow: bool, now_ns: i64) {
        match self.kind {
            SlidingWindowType::CountBased => {
                if self.calls.len() >= self.size as usize {
                    if let Some((f, s)) = self.calls.pop_front() {
                        self.total.take(Counts { calls: 1, failed: u64::from(f), slow: u64::from(s) });
                    }
                }
                self.calls.push_back((failed, slow));
            }
            SlidingWindowType::TimeBased => {
                let second = (now_ns.max(0) / 1_000_000_000) as u64;
                self.slide(second);
                match self.seconds.back_mut() {
                    Some((s, counts)) if *s == second => counts.add(failed, slow),
                    _ => {
                        let mut counts = Counts::default();
                        counts.add(failed, slow);
                        self.seconds.push_back((second, counts));
                    }
                }
            }
        }
        self.total.add(failed, slow);
    }

    /// `checkIfThresholdsExceeded`: the rates as Java computes them (32-bit
    /// floats), each judged at or above its threshold.
    fn judge(&self, spec: &Resilience4jCircuitBreakerSpec) -> Judged {
        let Counts { calls, failed, slow } = self.total;
        if calls == 0 || calls < u64::from(self.minimum) {
            return Judged::BelowMinimumCalls;
        }
        let failure_rate = failed as f32 * 100.0 / calls as f32;
        let slow_rate = slow as f32 * 100.0 / calls as f32;
        if failure_rate >= spec.failure_rate_threshold as f32 {
            Judged::FailureRate
        } else if slow_rate >= spec.slow_call_rate_threshold as f32 {
            Judged::SlowCallRate
        } else {
            Judged::Below
        }
    }
}

/// A change of state, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub from: State,
    pub to: State,
    pub cause: Cause,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Closed,
    /// Refusing until the instant (ns).
    Open { retry_after: i64 },
    /// Half-open since the instant, with this many trial calls left.
    HalfOpen { since: i64, permits: u32 },
}

/// A breaker's state, its window, and the calls it waits to hear of.
#[derive(Clone, Debug)]
pub struct Breaker {
    phase: Phase,
    window: Window,
    /// The calls let through and not yet heard of, with the instant each
    /// was permitted (ns).
    calls: HashMap<Call, i64>,
    /// Calls refused, in all.
    not_permitted: u64,
}

impl Breaker {
    /// A breaker closed, its window empty.
    pub fn new(spec: &Resilience4jCircuitBreakerSpec) -> Breaker {
        Breaker { phase: Phase::Closed, window: spec.closed_window(), calls: HashMap::new(), not_permitted: 0 }
    }

    /// Its state now.
    pub fn state(&self) -> State {
        match self.phase {
            Phase::Closed => State::Closed,
            Phase::Open { .. } => State::Open,
            Phase::HalfOpen { .. } => State::HalfOpen,
        }
    }

    /// Calls let through not yet heard of.
    pub fn in_flight(&self) -> u64 {
        self.calls.len() as u64
    }

    /// Calls refused, in all.
    #[cfg(test)]
    fn refused(&self) -> u64 {
        self.not_permitted
    }

    /// The window's calls now: in all, failed, slow.
    pub fn window_counts(&self) -> (u64, u64, u64) {
        (self.window.total.calls, self.window.total.failed, self.window.total.slow)
    }

    /// Stops waiting for `call`, recording nothing.
    pub fn forget(&mut self, call: Call) {
        self.calls.remove(&call);
    }

    fn turn_open(&mut self, spec: &Resilience4jCircuitBreakerSpec, now: i64, cause: Cause) -> Turn {
        let from = self.state();
        // The window is kept: outcomes heard while open go into it.
        self.phase = Phase::Open { retry_after: now.saturating_add(wait_ns(spec.wait_duration_in_open_state_s)) };
        Turn { from, to: State::Open, cause }
    }

    fn turn_half_open(&mut self, spec: &Resilience4jCircuitBreakerSpec, now: i64, cause: Cause) -> Turn {
        let from = self.state();
        self.window = spec.half_open_window();
        self.phase = Phase::HalfOpen { since: now, permits: spec.permitted_number_of_calls_in_half_open_state.max(1) };
        Turn { from, to: State::HalfOpen, cause }
    }

    fn turn_closed(&mut self, spec: &Resilience4jCircuitBreakerSpec, cause: Cause) -> Turn {
        let from = self.state();
        self.window = spec.closed_window();
        self.phase = Phase::Closed;
        Turn { from, to: State::Closed, cause }
    }

    /// `tryAcquirePermission` for `call` at `now` (ns): whether it is let
    /// through, and the change of state the asking made.
    pub fn acquire(&mut self, spec: &Resilience4jCircuitBreakerSpec, call: Call, now: i64) -> (bool, Option<Turn>) {
        let mut turn = None;
        if let Phase::Open { retry_after } = self.phase {
            if now > retry_after {
                turn = Some(self.turn_half_open(spec, now, Cause::OpenWaitElapsed));
            }
        }
        let permitted = match &mut self.phase {
            Phase::Closed => true,
            Phase::Open { .. } => false,
            Phase::HalfOpen { permits, .. } => {
                let any = *permits > 0;
                *permits = permits.saturating_sub(1);
                any
            }
        };
        if permitted {
            self.calls.insert(call, now);
        } else {
            self.not_permitted += 1;
        }
        (permitted, turn)
    }

    /// A call let through was heard of at `now`: `failed` (dropped further
    /// on, or given up by its client) or not. A call not waited for (heard
    /// already, or let through before this breaker) changes nothing.
    pub fn heard(&mut self, spec: &Resilience4jCircuitBreakerSpec, call: Call, failed: bool, now: i64) -> Option<Turn> {
        let started = self.calls.remove(&call)?;
        let slow = now - started > ns(spec.slow_call_duration_threshold_s);
        self.window.record(failed, slow, now);
        let judged = self.window.judge(spec);
        let cause = match judged {
            Judged::FailureRate => Some(Cause::FailureRate),
            Judged::SlowCallRate => Some(Cause::SlowCallRate),
            Judged::Below | Judged::BelowMinimumCalls => None,
        };
        match (self.phase, cause) {
            (Phase::Closed | Phase::HalfOpen { .. }, Some(cause)) => Some(self.turn_open(spec, now, cause)),
            (Phase::HalfOpen { .. }, None) if judged == Judged::Below => Some(self.turn_closed(spec, Cause::TrialCallsPassed)),
            // Open: recorded, judging nothing.
            _ => None,
        }
    }

    /// When it changes state by itself next, if ever (ns).
    pub fn timer_at(&self, spec: &Resilience4jCircuitBreakerSpec) -> Option<i64> {
        match self.phase {
            Phase::Open { retry_after } if spec.automatic_transition_from_open_to_half_open_enabled => Some(retry_after),
            Phase::HalfOpen { since, .. } if spec.max_wait_duration_in_half_open_state_s >= 0.001 => {
                Some(since.saturating_add(wait_ns(spec.max_wait_duration_in_half_open_state_s)))
            }
            _ => None,
        }
    }

    /// Changes state at `now` if a timer of it has come.
    pub fn tick(&mut self, spec: &Resilience4jCircuitBreakerSpec, now: i64) -> Option<Turn> {
        if self.timer_at(spec).is_none_or(|t| t > now) {
            return None;
        }
        match (self.phase, spec.transition_to_state_after_wait_duration) {
            (Phase::Open { .. }, _) => Some(self.turn_half_open(spec, now, Cause::OpenWaitElapsed)),
            (Phase::HalfOpen { .. }, AfterWait::Open) => Some(self.turn_open(spec, now, Cause::HalfOpenWaitElapsed)),
            (Phase::HalfOpen { .. }, AfterWait::Closed) => Some(self.turn_closed(spec, Cause::HalfOpenWaitElapsed)),
            (Phase::Closed, _) => None,
        }
    }

    /// New settings at `now`: the state and what it waits to hear are
    /// kept; a closed window of another type or size starts afresh; an
    /// open wait counts from when it opened; half-open, the trial calls
    /// left grow or shrink with the permitted ones, and what was heard is
    /// judged again by the new settings (the change of state it makes).
    pub fn reconfigure(&mut self, old: &Resilience4jCircuitBreakerSpec, new: &Resilience4jCircuitBreakerSpec, now: i64) -> Option<Turn> {
        match &mut self.phase {
            Phase::Open { retry_after } => {
                *retry_after = retry_after.saturating_sub(wait_ns(old.wait_duration_in_open_state_s)).saturating_add(wait_ns(new.wait_duration_in_open_state_s));
                None
            }
            Phase::HalfOpen { permits, .. } => {
                let (was, is) = (old.permitted_number_of_calls_in_half_open_state, new.permitted_number_of_calls_in_half_open_state);
                *permits = if is >= was { permits.saturating_add(is - was) } else { permits.saturating_sub(was - is) };
                let mut window = new.half_open_window();
                for &(f, s) in &self.window.calls {
                    window.record(f, s, 0);
                }
                self.window = window;
                match self.window.judge(new) {
                    Judged::FailureRate => Some(self.turn_open(new, now, Cause::FailureRate)),
                    Judged::SlowCallRate => Some(self.turn_open(new, now, Cause::SlowCallRate)),
                    Judged::Below => Some(self.turn_closed(new, Cause::TrialCallsPassed)),
                    Judged::BelowMinimumCalls => None,
                }
            }
            Phase::Closed => {
                if old.sliding_window_type != new.sliding_window_type || old.sliding_window_size != new.sliding_window_size {
                    self.window = new.closed_window();
                } else {
                    self.window.minimum = new.closed_window().minimum;
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    fn spec(window: u32, minimum: u32, threshold: f64) -> Resilience4jCircuitBreakerSpec {
        Resilience4jCircuitBreakerSpec { sliding_window_size: window, minimum_number_of_calls: minimum, failure_rate_threshold: threshold, ..Default::default() }
    }

    /// Lets a call through at `at` and hears it at `at`.
    fn call(b: &mut Breaker, spec: &Resilience4jCircuitBreakerSpec, id: u64, failed: bool, at: i64) -> (bool, Option<Turn>) {
        let (ok, turn) = b.acquire(spec, (id, 0), at);
        if !ok {
            return (false, turn);
        }
        (true, b.heard(spec, (id, 0), failed, at).or(turn))
    }

    #[test]
    fn the_defaults_are_resilience4j_s() {
        let d: Resilience4jCircuitBreakerSpec = serde_json::from_str("{}").unwrap();
        assert_eq!(d, Resilience4jCircuitBreakerSpec::default());
        assert_eq!((d.failure_rate_threshold, d.slow_call_rate_threshold, d.slow_call_duration_threshold_s), (50.0, 100.0, 60.0));
        assert_eq!((d.permitted_number_of_calls_in_half_open_state, d.sliding_window_size, d.minimum_number_of_calls), (10, 100, 100));
        assert_eq!((d.wait_duration_in_open_state_s, d.max_wait_duration_in_half_open_state_s), (60.0, 0.0));
        assert!(!d.automatic_transition_from_open_to_half_open_enabled);
        assert_eq!((d.sliding_window_type, d.transition_to_state_after_wait_duration), (SlidingWindowType::CountBased, AfterWait::Open));
    }

    /// `CircuitBreakerMetrics.checkIfThresholdsExceeded`: nothing is judged
    /// below the minimum of calls; at the minimum, 5 failed of 10 is 50%,
    /// at the threshold (`>=`): open.
    #[test]
    fn a_closed_breaker_opens_at_the_threshold_once_the_minimum_of_calls_is_heard() {
        let sp = spec(10, 10, 50.0);
        let mut b = Breaker::new(&sp);
        for id in 0..5 {
            assert_eq!(call(&mut b, &sp, id, true, S), (true, None), "below the minimum nothing is judged");
        }
        for id in 5..9 {
            assert_eq!(call(&mut b, &sp, id, false, S), (true, None));
        }
        assert_eq!(b.window_counts(), (9, 5, 0));
        let (ok, turn) = call(&mut b, &sp, 9, false, 2 * S);
        assert!(ok);
        assert_eq!(turn, Some(Turn { from: State::Closed, to: State::Open, cause: Cause::FailureRate }), "5 of 10 is 50%");
        assert_eq!(b.acquire(&sp, (10, 0), 2 * S), (false, None), "open: refused");
        assert_eq!(b.refused(), 1);
    }

    #[test]
    fn a_count_window_holds_the_last_calls_only() {
        // 4 failures then 10 successes in a window of 10: the failures
        // have left it, 0% of 10.
        let sp = spec(10, 10, 30.0);
        let mut b = Breaker::new(&sp);
        for id in 0..4 {
            call(&mut b, &sp, id, true, S);
        }
        for id in 4..9 {
            call(&mut b, &sp, id, false, S);
        }
        // The tenth call: 4 of 10 = 40% ≥ 30%.
        let sp_high = spec(10, 10, 50.0);
        let mut b2 = b.clone();
        assert_eq!(call(&mut b2, &sp_high, 9, false, S).1, None, "40% < 50%");
        for id in 10..14 {
            assert_eq!(call(&mut b2, &sp_high, id, false, S).1, None);
        }
        assert_eq!(b2.window_counts(), (10, 0, 0), "the failures slid out");
        assert_eq!(call(&mut b, &sp, 9, false, S).1.map(|t| t.to), Some(State::Open), "40% ≥ 30%");
    }

    /// A minimum above a count window's size is capped at it
    /// (`CircuitBreakerMetrics`, `Math.min(minimumNumberOfCalls,
    /// slidingWindowSize)`).
    #[test]
    fn a_count_window_judges_at_its_size_when_the_minimum_is_larger() {
        let sp = spec(4, 100, 50.0);
        let mut b = Breaker::new(&sp);
        for id in 0..3 {
            call(&mut b, &sp, id, true, S);
        }
        assert_eq!(call(&mut b, &sp, 3, true, S).1.map(|t| t.to), Some(State::Open));
    }

    /// `SlidingTimeWindowMetrics`: the calls of the last N whole seconds
    /// (epoch seconds, here the simulated clock's).
    #[test]
    fn a_time_window_forgets_the_seconds_that_left_it() {
        let sp = Resilience4jCircuitBreakerSpec { sliding_window_type: SlidingWindowType::TimeBased, sliding_window_size: 3, minimum_number_of_calls: 4, ..Default::default() };
        let mut b = Breaker::new(&sp);
        // Two failures in second 0, then successes in seconds 1 and 2.
        call(&mut b, &sp, 0, true, 0);
        call(&mut b, &sp, 1, true, S / 2);
        call(&mut b, &sp, 2, false, S + 1);
        assert_eq!(b.window_counts(), (3, 2, 0));
        // Second 2: the window is seconds 0, 1, 2: 2 of 4 failed, 50%.
        let mut b2 = b.clone();
        assert_eq!(call(&mut b2, &sp, 3, false, 2 * S + 999_999_999).1.map(|t| t.to), Some(State::Open));
        // Second 3: second 0 has left it: 0 of 2, below the minimum.
        assert_eq!(call(&mut b, &sp, 3, false, 3 * S).1, None);
        assert_eq!(b.window_counts(), (2, 0, 0));
        // Second 6: seconds 0 to 3 have left; what they counted goes from
        // the total (calls as well as failures): 2 failed of 4 is 50%.
        call(&mut b, &sp, 10, true, 6 * S);
        call(&mut b, &sp, 11, false, 6 * S);
        call(&mut b, &sp, 12, false, 6 * S);
        assert_eq!(b.window_counts(), (3, 1, 0), "only second 6's calls");
        assert_eq!(call(&mut b, &sp, 13, true, 6 * S).1.map(|t| t.to), Some(State::Open));
    }

    /// `OpenState.tryAcquirePermission`: `clock.instant().isAfter(
    /// retryAfterWaitDuration)`, strictly; then the call takes a half-open
    /// permit. `HalfOpenState`: a count window of the permitted calls; all
    /// heard and below the threshold: closed, with a fresh window.
    #[test]
    fn after_its_wait_the_first_call_turns_it_half_open_and_the_trials_close_it() {
        let mut sp = spec(10, 10, 50.0);
        sp.wait_duration_in_open_state_s = 5.0;
        sp.permitted_number_of_calls_in_half_open_state = 3;
        let mut b = Breaker::new(&sp);
        for id in 0..10 {
            call(&mut b, &sp, id, true, S);
        }
        assert_eq!(b.state(), State::Open);
        assert_eq!(b.acquire(&sp, (20, 0), 6 * S), (false, None), "at the very instant it is still open");
        let (ok, turn) = b.acquire(&sp, (21, 0), 6 * S + 1);
        assert!(ok);
        assert_eq!(turn, Some(Turn { from: State::Open, to: State::HalfOpen, cause: Cause::OpenWaitElapsed }));
        assert!(b.acquire(&sp, (22, 0), 6 * S + 2).0);
        assert!(b.acquire(&sp, (23, 0), 6 * S + 3).0);
        assert!(!b.acquire(&sp, (24, 0), 6 * S + 4).0, "three trial calls, then refused");
        assert_eq!(b.heard(&sp, (21, 0), false, 7 * S), None);
        assert_eq!(b.heard(&sp, (22, 0), true, 7 * S), None, "1 of 2 heard: below the minimum (3)");
        let turn = b.heard(&sp, (23, 0), false, 7 * S);
        assert_eq!(turn, Some(Turn { from: State::HalfOpen, to: State::Closed, cause: Cause::TrialCallsPassed }), "1 of 3 failed: 33% < 50%");
        assert_eq!(b.window_counts(), (0, 0, 0), "closed afresh");
    }

    #[test]
    fn trials_that_fail_open_it_again_for_another_wait() {
        let mut sp = spec(2, 2, 50.0);
        sp.permitted_number_of_calls_in_half_open_state = 2;
        sp.wait_duration_in_open_state_s = 1.0;
        let mut b = Breaker::new(&sp);
        call(&mut b, &sp, 0, true, 0);
        call(&mut b, &sp, 1, true, 0);
        assert!(b.acquire(&sp, (2, 0), 2 * S).0);
        assert!(b.acquire(&sp, (3, 0), 2 * S).0);
        assert_eq!(b.heard(&sp, (2, 0), true, 2 * S), None);
        let turn = b.heard(&sp, (3, 0), false, 2 * S);
        assert_eq!(turn, Some(Turn { from: State::HalfOpen, to: State::Open, cause: Cause::FailureRate }), "1 of 2 is 50%");
        assert!(!b.acquire(&sp, (4, 0), 3 * S).0, "open again until 3 s, strictly");
        assert!(b.acquire(&sp, (5, 0), 3 * S + 1).0);
    }

    /// `OpenState.onError`: "the onError event should still be recorded,
    /// even if it happened after the state transition": into the window
    /// it kept, judging nothing. A call heard twice, or never let through,
    /// changes nothing.
    #[test]
    fn outcomes_heard_while_open_are_recorded_and_judge_nothing() {
        let sp = spec(4, 4, 50.0);
        let mut b = Breaker::new(&sp);
        assert!(b.acquire(&sp, (9, 0), 0).0);
        for id in 0..4 {
            call(&mut b, &sp, id, true, 0);
        }
        assert_eq!(b.state(), State::Open);
        assert_eq!(b.heard(&sp, (9, 0), false, S), None);
        assert_eq!(b.window_counts(), (4, 3, 0), "the late success went into the kept window");
        assert_eq!(b.heard(&sp, (9, 0), true, S), None, "heard once only");
        assert_eq!(b.heard(&sp, (77, 1), true, S), None);
        assert_eq!(b.in_flight(), 0);
    }

    /// Slow: a duration above the threshold, strictly
    /// (`durationInNanos > slowCallDurationThresholdInNanos`).
    #[test]
    fn slow_calls_open_it_at_their_own_threshold() {
        let mut sp = spec(4, 4, 50.0);
        sp.slow_call_duration_threshold_s = 1.0;
        sp.slow_call_rate_threshold = 75.0;
        let mut b = Breaker::new(&sp);
        for id in 0..4 {
            assert!(b.acquire(&sp, (id, 0), 0).0);
        }
        assert_eq!(b.in_flight(), 4, "four calls let through, none heard yet");
        assert_eq!(b.heard(&sp, (0, 0), false, S), None, "exactly 1 s is not slow");
        assert_eq!(b.heard(&sp, (1, 0), false, S + 1), None);
        assert_eq!(b.heard(&sp, (2, 0), false, S + 1), None);
        assert_eq!(b.window_counts(), (3, 0, 2));
        let turn = b.heard(&sp, (3, 0), false, 2 * S);
        assert_eq!(turn.map(|t| t.cause), Some(Cause::SlowCallRate), "3 of 4 slow: 75%");
        // One slow of four is 25%, below 75%: it stays closed.
        let mut b = Breaker::new(&sp);
        for id in 0..4 {
            assert!(b.acquire(&sp, (id, 0), 0).0);
        }
        for id in 0..3 {
            assert_eq!(b.heard(&sp, (id, 0), false, S / 2), None);
        }
        assert_eq!(b.heard(&sp, (3, 0), false, 2 * S), None, "1 of 4 slow: 25%");
        assert_eq!(b.window_counts(), (4, 0, 1));
        // Four quick calls more: the slow one slides out of the window.
        for id in 4..8 {
            assert_eq!(call(&mut b, &sp, id, false, 3 * S), (true, None));
        }
        assert_eq!(b.window_counts(), (4, 0, 0), "the slow call has left the count");
        // A call forgotten (its request gone another way) is heard of no
        // more: it leaves nothing in flight and records nothing.
        assert!(b.acquire(&sp, (8, 0), 3 * S).0);
        assert_eq!(b.in_flight(), 1);
        b.forget((8, 0));
        assert_eq!(b.in_flight(), 0);
        assert_eq!(b.heard(&sp, (8, 0), true, 3 * S), None);
        assert_eq!(b.window_counts(), (4, 0, 0), "a forgotten call records nothing");
        // A call's duration runs from its own start: let through at 3 s and
        // heard at 3.5 s, it is not slow.
        assert!(b.acquire(&sp, (9, 0), 3 * S).0);
        assert_eq!(b.heard(&sp, (9, 0), false, 3 * S + S / 2), None);
        assert_eq!(b.window_counts(), (4, 0, 0), "half a second is not slow");
    }

    #[test]
    fn timers_turn_it_half_open_by_itself_and_end_a_half_open_wait() {
        let mut sp = spec(1, 1, 50.0);
        sp.wait_duration_in_open_state_s = 2.0;
        sp.automatic_transition_from_open_to_half_open_enabled = true;
        sp.max_wait_duration_in_half_open_state_s = 3.0;
        let mut b = Breaker::new(&sp);
        assert_eq!(b.timer_at(&sp), None);
        call(&mut b, &sp, 0, true, S);
        assert_eq!(b.timer_at(&sp), Some(3 * S));
        assert_eq!(b.tick(&sp, 3 * S - 1), None);
        assert_eq!(b.tick(&sp, 3 * S).map(|t| (t.to, t.cause)), Some((State::HalfOpen, Cause::OpenWaitElapsed)));
        assert_eq!(b.timer_at(&sp), Some(6 * S));
        assert_eq!(b.tick(&sp, 6 * S).map(|t| (t.to, t.cause)), Some((State::Open, Cause::HalfOpenWaitElapsed)));
        sp.transition_to_state_after_wait_duration = AfterWait::Closed;
        b.tick(&sp, 8 * S);
        assert_eq!(b.tick(&sp, 11 * S).map(|t| (t.to, t.cause)), Some((State::Closed, Cause::HalfOpenWaitElapsed)));
    }

    /// Raised while half-open with every trial taken, the trial calls left
    /// grow with it (else the window would wait for ever for outcomes no
    /// call can bring); lowered to what was heard, it decides at once.
    #[test]
    fn trial_calls_changed_while_half_open_let_more_through_or_decide_at_once() {
        let mut sp = spec(2, 2, 50.0);
        sp.wait_duration_in_open_state_s = 1.0;
        sp.permitted_number_of_calls_in_half_open_state = 3;
        let mut b = Breaker::new(&sp);
        call(&mut b, &sp, 0, true, 0);
        call(&mut b, &sp, 1, true, 0);
        for id in 2..5 {
            assert!(b.acquire(&sp, (id, 0), 2 * S).0);
        }
        assert!(!b.acquire(&sp, (5, 0), 2 * S).0, "its three trials taken");
        assert_eq!(b.heard(&sp, (2, 0), false, 2 * S), None);
        let more = Resilience4jCircuitBreakerSpec { permitted_number_of_calls_in_half_open_state: 5, ..sp.clone() };
        assert_eq!(b.reconfigure(&sp, &more, 2 * S), None);
        assert!(b.acquire(&sp, (6, 0), 2 * S).0, "two more trials");
        assert!(b.acquire(&sp, (7, 0), 2 * S).0);
        assert!(!b.acquire(&sp, (8, 0), 2 * S).0);
        let fewer = Resilience4jCircuitBreakerSpec { permitted_number_of_calls_in_half_open_state: 1, ..sp.clone() };
        let turn = b.reconfigure(&more, &fewer, 3 * S);
        assert_eq!(turn.map(|t| (t.to, t.cause)), Some((State::Closed, Cause::TrialCallsPassed)), "one trial heard, and it passed");
    }

    /// `Duration.toMillis()`: a wait of 1.5 ms is 1 ms.
    #[test]
    fn waits_are_whole_milliseconds_as_java_takes_them() {
        let mut sp = spec(1, 1, 50.0);
        sp.wait_duration_in_open_state_s = 0.0015;
        let mut b = Breaker::new(&sp);
        call(&mut b, &sp, 0, true, 0);
        assert!(!b.acquire(&sp, (1, 0), 1_000_000).0, "at 1 ms, still open");
        assert!(b.acquire(&sp, (2, 0), 1_000_001).0, "just after 1 ms, half-open");
    }

    #[test]
    fn settings_out_of_resilience4j_s_bounds_are_refused_by_name() {
        let bad = Resilience4jCircuitBreakerSpec {
            failure_rate_threshold: 0.0,
            slow_call_rate_threshold: 101.0,
            wait_duration_in_open_state_s: 0.0,
            sliding_window_size: 0,
            minimum_number_of_calls: 2_000_000,
            permitted_number_of_calls_in_half_open_state: 0,
            max_wait_duration_in_half_open_state_s: -1.0,
            slow_call_duration_threshold_s: f64::NAN,
            ..Default::default()
        };
        let fields = super::super::refused_fields(|p, e| bad.validate(p, e));
        for name in [
            "failure_rate_threshold",
            "slow_call_rate_threshold",
            "wait_duration_in_open_state_s",
            "sliding_window_size",
            "minimum_number_of_calls",
            "permitted_number_of_calls_in_half_open_state",
            "max_wait_duration_in_half_open_state_s",
            "slow_call_duration_threshold_s",
        ] {
            assert!(fields.contains(&format!("n.{name}")), "{name}: {fields:?}");
        }
        assert!(super::super::refused_fields(|p, e| Resilience4jCircuitBreakerSpec::default().validate(p, e)).is_empty());
    }

    /// Each bound of the slow calls' duration alone: 0 and 2e9 s refused,
    /// 1 ns and 1e9 s taken.
    #[test]
    fn a_slow_call_lasts_from_a_nanosecond_to_a_billion_seconds() {
        let with = |s: f64| Resilience4jCircuitBreakerSpec { slow_call_duration_threshold_s: s, ..Default::default() };
        for s in [0.0, 2e9] {
            assert_eq!(super::super::refused_fields(|p, e| with(s).validate(p, e)), vec!["n.slow_call_duration_threshold_s".to_string()], "{s}");
        }
        for s in [1e-9, 1e9] {
            assert!(super::super::refused_fields(|p, e| with(s).validate(p, e)).is_empty(), "{s}");
        }
    }
}
