//! Go's `golang.org/x/time/rate` limiter, transcribed from x/time v0.3.0
//! (`rate/rate.go`, tag `v0.3.0`, commit 2c09566, as Debian 12's
//! `golang-golang-x-time-dev` 0.3.0-1 ships it), with Go 1.19's
//! `time.Duration.Seconds`: one `rate.NewLimiter(limit, burst)` (or one per
//! key) and the call a handler makes on it for each request: `Allow`,
//! `Wait` (with or without a context deadline) or `Reserve`.
//!
//! Guarantees, as the package decides (a request takes one token):
//! - Time is nanoseconds. A limiter holds `tokens` (a float, negative while
//!   reservations are outstanding) and `last`, the instant they were
//!   counted. `NewLimiter` starts with no tokens and no `last`: the first
//!   request counts the time since the year 1, which saturates at 2^63 − 1
//!   ns, so the bucket starts full (for any limit above burst / 9.2e9).
//! - At instant `t`: `tokens = min(burst, tokens + seconds(t − last) ×
//!   limit)` (time going backwards counts as none), where `seconds(d) = d /
//!   1e9 + (d mod 1e9) / 1e9` as Go's `Duration.Seconds` computes it, with
//!   no fused multiply-add (as Go on amd64). Then one token is taken: the
//!   wait is `trunc(1e9 × (−tokens / limit))` ns when tokens fall below 0.
//! - The request is granted when `burst ≥ 1` and the wait is at most what
//!   the call accepts: `Allow` none, `Reserve` and `Wait` without a
//!   deadline any, `Wait` with one the time left before it. Granted, the
//!   limiter keeps the new tokens and `last = t`, and the request goes at
//!   `t + wait` (admitted when the wait is 0, delayed otherwise). Refused,
//!   nothing of the limiter changes: `Allow` answers `status`, `Wait`
//!   returns an error (the handler answers `status`), `Reserve` is not OK.
//! - A limit of 0 grants `burst` requests over the limiter's whole life,
//!   and then none (v0.3.0 spends the burst itself).
//! - One limiter for every request, or (`per_key`) one per message key,
//!   made on its key's first request and never forgotten (a Go map).
//! - A limit or burst changed while running is `SetLimitAt` and
//!   `SetBurstAt` at that instant: every limiter counts its tokens up to
//!   then under the old limit.
//!
//! Not offered: `rate.Inf` (no limit at all), a limit between 0 and 0.001
//! a second, `AllowN` and the others with more than one token, and a
//! reservation cancelled (`Cancel`). `Wait`'s deadline is taken as exactly
//! `timeout_s` after the call, where Go's `WithTimeout` starts it a few
//! nanoseconds before; a wait of more than 292 years (a long queue of
//! reservations at a tiny limit), where Go's conversion overflows and this
//! one saturates.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{push_error, FieldError};

/// What the handler calls on the limiter for each request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoCall {
    /// `lim.Allow()`: refused unless a token is there now.
    #[default]
    Allow,
    /// `lim.Wait(ctx)`: waits for its token, refused only when the wait
    /// would pass the context's deadline.
    Wait,
    /// `r := lim.Reserve()`, then `time.Sleep(r.Delay())`: always waits.
    Reserve,
}

/// A `rate.NewLimiter(limit, burst)` and the call made on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoRateSpec {
    /// `rate.Limit`: tokens added a second.
    pub limit: f64,
    /// The bucket's size: requests granted back to back from full.
    pub burst: u32,
    #[serde(default)]
    pub call: GoCall,
    /// `Wait`'s context deadline, this long after the call (none: no
    /// deadline, `Wait` then always waits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// One limiter per key rather than one for all.
    #[serde(default)]
    pub per_key: bool,
    /// What the handler answers a refused request.
    #[serde(default = "default_status")]
    pub status: u16,
}

fn default_status() -> u16 {
    429
}

/// The highest limit taken, tokens a second.
pub const MAX_LIMIT: f64 = 1e9;
/// The lowest limit above 0 taken: one token in 1,000 s (below, a long
/// queue of reservations would wait longer than Go's durations hold).
pub const MIN_LIMIT: f64 = 1e-3;

impl GoRateSpec {
    /// `rate.NewLimiter(limit, burst)` with `Allow`.
    pub fn of(limit: f64, burst: u32) -> GoRateSpec {
        GoRateSpec { limit, burst, call: GoCall::Allow, timeout_s: None, per_key: false, status: default_status() }
    }

    /// The call as Go writes it: `Allow`, `Wait` or `Reserve`.
    pub fn call_text(&self) -> &'static str {
        match self.call {
            GoCall::Allow => "Allow",
            GoCall::Wait => "Wait",
            GoCall::Reserve => "Reserve",
        }
    }

    /// In a few words, short enough for a block's face: `go 10/s burst=5
    /// Allow` (the deadline and the keying are the inspector's to show).
    pub fn summary(&self) -> String {
        format!("go {}/s burst={} {}", self.limit, self.burst, self.call_text())
    }

    /// The deadline as `Wait` compares it, in nanoseconds.
    fn timeout_ns(&self) -> Option<i64> {
        self.timeout_s.map(|t| (t * 1e9).round() as i64)
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if !self.limit.is_finite() || !(0.0..=MAX_LIMIT).contains(&self.limit) || (self.limit > 0.0 && self.limit < MIN_LIMIT) {
            push_error(errors, format!("{path}.limit"), "must be 0, or from 0.001 to 1e9 tokens a second (rate.Inf, no limit, is not offered)");
        }
        if self.burst > 1_000_000_000 {
            push_error(errors, format!("{path}.burst"), "must be at most 1,000,000,000");
        }
        match self.timeout_s {
            Some(_) if self.call != GoCall::Wait => {
                push_error(errors, format!("{path}.timeout_s"), "only Wait takes a deadline: leave it out for Allow and Reserve");
            }
            Some(t) if !(t.is_finite() && t > 0.0 && t <= 1e6) => {
                push_error(errors, format!("{path}.timeout_s"), "must be above 0 (a context of no time is done at once: Wait refuses everything) and at most 1,000,000 seconds");
            }
            _ => {}
        }
        if !(400..=599).contains(&self.status) {
            push_error(errors, format!("{path}.status"), "must be from 400 to 599");
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("limit")] => Some(NumberField::Real(&mut self.limit)),
            [Step::Key("burst")] => Some(NumberField::Whole32(&mut self.burst)),
            [Step::Key("timeout_s")] => Some(NumberField::MaybeReal(&mut self.timeout_s)),
            [Step::Key("status")] => Some(NumberField::Whole16(&mut self.status)),
            _ => None,
        }
    }

    /// The most a request of this call may wait, in nanoseconds.
    fn max_wait(&self) -> i64 {
        match self.call {
            GoCall::Allow => 0,
            GoCall::Reserve => i64::MAX,
            GoCall::Wait => self.timeout_ns().unwrap_or(i64::MAX),
        }
    }
}

/// `Duration.Seconds()` as Go 1.19 computes it.
fn seconds(d: i64) -> f64 {
    (d / 1_000_000_000) as f64 + (d % 1_000_000_000) as f64 / 1e9
}

/// `Limit.tokensFromDuration`.
fn tokens_from_duration(limit: f64, d: i64) -> f64 {
    if limit <= 0.0 {
        0.0
    } else {
        seconds(d) * limit
    }
}

/// `Limit.durationFromTokens` (a float to an integer, truncated).
fn duration_from_tokens(limit: f64, tokens: f64) -> i64 {
    if limit <= 0.0 {
        i64::MAX
    } else {
        (1e9 * (tokens / limit)) as i64
    }
}

/// One `rate.Limiter`.
#[derive(Clone, Debug, PartialEq)]
struct Limiter {
    limit: f64,
    burst: i64,
    tokens: f64,
    /// None: the zero `time.Time`, the year 1.
    last: Option<i64>,
}

impl Limiter {
    fn new(limit: f64, burst: u32) -> Limiter {
        Limiter { limit, burst: i64::from(burst), tokens: 0.0, last: None }
    }

    /// `advance(t)`: the tokens at `t`, the limiter unchanged.
    fn advance(&self, t: i64) -> f64 {
        let elapsed = match self.last {
            None => i64::MAX,
            Some(last) => t.saturating_sub(last.min(t)),
        };
        let tokens = self.tokens + tokens_from_duration(self.limit, elapsed);
        let burst = self.burst as f64;
        if tokens > burst {
            burst
        } else {
            tokens
        }
    }

    /// `reserveN(t, 1, max_wait)`: the instant the request may act, if
    /// granted.
    fn reserve(&mut self, t: i64, max_wait: i64) -> Option<i64> {
        if self.limit == 0.0 {
            if self.burst >= 1 {
                self.burst -= 1;
                return Some(t);
            }
            return None;
        }
        let tokens = self.advance(t) - 1.0;
        let wait = if tokens < 0.0 { duration_from_tokens(self.limit, -tokens) } else { 0 };
        if 1 <= self.burst && wait <= max_wait {
            self.last = Some(t);
            self.tokens = tokens;
            Some(t.saturating_add(wait))
        } else {
            None
        }
    }

    /// `SetLimitAt(t, limit)`.
    fn set_limit(&mut self, t: i64, limit: f64) {
        self.tokens = self.advance(t);
        self.last = Some(t);
        self.limit = limit;
    }

    /// `SetBurstAt(t, burst)`.
    fn set_burst(&mut self, t: i64, burst: u32) {
        self.tokens = self.advance(t);
        self.last = Some(t);
        self.burst = i64::from(burst);
    }
}

/// What the call decided for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Through now.
    Pass,
    /// Through at this instant, in nanoseconds.
    At(i64),
    /// Refused.
    Reject,
}

/// The limiters, one or one per key.
#[derive(Clone, Default)]
pub struct Limiters {
    by_key: HashMap<u32, Limiter>,
}

impl Limiters {
    /// How many limiters there are now.
    pub fn keys(&self) -> usize {
        self.by_key.len()
    }

    /// Decides a request of `key` at `t` nanoseconds.
    pub fn decide(&mut self, spec: &GoRateSpec, key: u32, t: i64) -> Verdict {
        let key = if spec.per_key { key } else { 0 };
        let lim = self.by_key.entry(key).or_insert_with(|| Limiter::new(spec.limit, spec.burst));
        match lim.reserve(t, spec.max_wait()) {
            None => Verdict::Reject,
            Some(at) if at > t => Verdict::At(at),
            Some(_) => Verdict::Pass,
        }
    }

    /// The settings changed at `t`: each limiter takes the new limit and
    /// burst as `SetLimitAt` and `SetBurstAt` do; a change of keying
    /// starts afresh.
    pub fn reconfigure(&mut self, old: &GoRateSpec, new: &GoRateSpec, t: i64) {
        if old.per_key != new.per_key {
            self.by_key.clear();
            return;
        }
        for lim in self.by_key.values_mut() {
            if old.limit != new.limit {
                lim.set_limit(t, new.limit);
            }
            if old.burst != new.burst {
                lim.set_burst(t, new.burst);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const S: i64 = 1_000_000_000;

    fn spec(limit: f64, burst: u32, call: GoCall) -> GoRateSpec {
        GoRateSpec { call, ..GoRateSpec::of(limit, burst) }
    }

    #[test]
    fn allow_grants_the_burst_back_to_back_then_one_per_interval() {
        let s = spec(10.0, 5, GoCall::Allow);
        let mut l = Limiters::default();
        let first: Vec<Verdict> = (0..7).map(|_| l.decide(&s, 0, S)).collect();
        assert_eq!(first.iter().filter(|v| **v == Verdict::Pass).count(), 5, "burst 5 is five, not six: {first:?}");
        // 99 ms later not a whole token is back; at 100 ms one is.
        assert_eq!(l.decide(&s, 0, S + 99 * MS), Verdict::Reject);
        assert_eq!(l.decide(&s, 0, S + 100 * MS), Verdict::Pass);
        assert_eq!(l.decide(&s, 0, S + 100 * MS), Verdict::Reject);
    }

    #[test]
    fn reserve_and_wait_queue_behind_one_another_at_the_rate() {
        let s = spec(10.0, 2, GoCall::Reserve);
        let mut l = Limiters::default();
        let v: Vec<Verdict> = (0..5).map(|_| l.decide(&s, 0, 0)).collect();
        assert_eq!(v, [Verdict::Pass, Verdict::Pass, Verdict::At(100 * MS), Verdict::At(200 * MS), Verdict::At(300 * MS)]);
        // Wait with a deadline of 250 ms refuses what would wait longer,
        // and a refusal changes nothing.
        let w = GoRateSpec { timeout_s: Some(0.25), ..spec(10.0, 2, GoCall::Wait) };
        let mut l = Limiters::default();
        let v: Vec<Verdict> = (0..6).map(|_| l.decide(&w, 0, 0)).collect();
        assert_eq!(v, [Verdict::Pass, Verdict::Pass, Verdict::At(100 * MS), Verdict::At(200 * MS), Verdict::Reject, Verdict::Reject]);
        assert_eq!(l.decide(&w, 0, 50 * MS), Verdict::At(300 * MS));
    }

    #[test]
    fn the_first_request_finds_the_bucket_full_and_time_backwards_adds_nothing() {
        let mut lim = Limiter::new(1e-6, 3);
        // 9.2e9 s since the year 1 at a millionth a second is 9,223 tokens: full.
        assert_eq!(lim.advance(0), 3.0);
        // Below burst / 9.2e9 a second, it does not fill.
        let tiny = Limiter::new(1e-10, 3);
        assert!((tiny.advance(0) - 0.922_337_203_685_477_6).abs() < 1e-12);
        assert!(lim.reserve(10 * S, 0).is_some());
        assert_eq!(lim.tokens, 2.0);
        assert_eq!(lim.advance(5 * S), 2.0, "an earlier instant adds nothing");
    }

    #[test]
    fn seconds_are_counted_as_go_counts_them() {
        // Not d as f64 / 1e9: Go adds the whole seconds and the rest.
        let d = 1_234_567_891_234_567_891_i64;
        assert_eq!(seconds(d), 1_234_567_891.0 + 234_567_891.0 / 1e9);
        assert_eq!(seconds(-1_500_000_000), -1.0 + -0.5);
        assert_eq!(duration_from_tokens(3.0, 1.0), 333_333_333);
        assert_eq!(duration_from_tokens(0.0, 1.0), i64::MAX);
    }

    #[test]
    fn a_limit_of_zero_spends_the_burst_for_good_and_a_burst_of_zero_refuses_all() {
        let s = spec(0.0, 2, GoCall::Reserve);
        let mut l = Limiters::default();
        let v: Vec<Verdict> = [0, S, 1000 * S].iter().map(|&t| l.decide(&s, 0, t)).collect();
        assert_eq!(v, [Verdict::Pass, Verdict::Pass, Verdict::Reject]);
        let s = spec(100.0, 0, GoCall::Reserve);
        assert_eq!(Limiters::default().decide(&s, 0, 0), Verdict::Reject);
    }

    #[test]
    fn per_key_keeps_a_limiter_per_key_and_shared_one_for_all() {
        let shared = spec(1.0, 1, GoCall::Allow);
        let mut l = Limiters::default();
        assert_eq!([l.decide(&shared, 1, 0), l.decide(&shared, 2, 0)], [Verdict::Pass, Verdict::Reject]);
        assert_eq!(l.keys(), 1);
        let keyed = GoRateSpec { per_key: true, ..shared };
        let mut l = Limiters::default();
        assert_eq!([l.decide(&keyed, 1, 0), l.decide(&keyed, 2, 0)], [Verdict::Pass, Verdict::Pass]);
        assert_eq!(l.keys(), 2);
    }

    /// `SetBurstAt`: what the bucket held is counted under the old burst
    /// up to the change, then it fills to the new one.
    #[test]
    fn a_burst_changed_while_running_fills_to_the_new_size_from_what_the_old_held() {
        let old = spec(1.0, 1, GoCall::Allow);
        let mut l = Limiters::default();
        assert_eq!(l.decide(&old, 0, 0), Verdict::Pass);
        // Ten idle seconds at 1/s fill only the old bucket of one.
        let new = spec(1.0, 5, GoCall::Allow);
        l.reconfigure(&old, &new, 10 * S);
        // Three seconds on, 1 + 3 tokens: four back to back, not five.
        assert_eq!((0..6).filter(|_| l.decide(&new, 0, 13 * S) == Verdict::Pass).count(), 4);
        // Given time, the new bucket of five fills.
        assert_eq!((0..6).filter(|_| l.decide(&new, 0, 30 * S) == Verdict::Pass).count(), 5);
    }

    #[test]
    fn a_limit_changed_while_running_counts_the_time_before_under_the_old_one() {
        let old = spec(1.0, 10, GoCall::Allow);
        let mut l = Limiters::default();
        for _ in 0..10 {
            assert_eq!(l.decide(&old, 0, 0), Verdict::Pass);
        }
        // Half a second at 1/s is half a token; then 10/s for 50 ms more.
        let new = spec(10.0, 10, GoCall::Allow);
        l.reconfigure(&old, &new, S / 2);
        assert_eq!(l.decide(&new, 0, S / 2 + 49 * MS), Verdict::Reject);
        assert_eq!(l.decide(&new, 0, S / 2 + 50 * MS), Verdict::Pass);
    }

    #[test]
    fn its_summary_is_the_go_in_a_few_words() {
        assert_eq!(spec(10.0, 5, GoCall::Allow).summary(), "go 10/s burst=5 Allow");
        let w = GoRateSpec { timeout_s: Some(0.5), per_key: true, ..spec(2.5, 1, GoCall::Wait) };
        assert_eq!(w.summary(), "go 2.5/s burst=1 Wait");
    }

    /// Each bound alone, at its edges, names its own field: the limit
    /// (0, or 0.001 to 1e9 a second), the burst (at most 10^9), a deadline
    /// (Wait's only, above 0 and at most 10^6 s) and the status.
    #[test]
    fn every_bound_is_checked_alone_at_its_edges() {
        let refused = |s: GoRateSpec| super::super::refused_fields(|path, errors| s.validate(path, errors));
        let wait = |t: f64| GoRateSpec { timeout_s: Some(t), ..spec(10.0, 5, GoCall::Wait) };
        let cases: Vec<(GoRateSpec, Option<&str>)> = vec![
            (spec(0.0, 5, GoCall::Allow), None),
            (spec(MIN_LIMIT, 5, GoCall::Allow), None),
            (spec(MAX_LIMIT, 5, GoCall::Allow), None),
            (spec(MIN_LIMIT / 2.0, 5, GoCall::Allow), Some("n.limit")),
            (spec(MAX_LIMIT * 1.5, 5, GoCall::Allow), Some("n.limit")),
            (spec(-1.0, 5, GoCall::Allow), Some("n.limit")),
            (spec(f64::NAN, 5, GoCall::Allow), Some("n.limit")),
            (spec(f64::INFINITY, 5, GoCall::Allow), Some("n.limit")),
            (spec(10.0, 0, GoCall::Allow), None),
            (spec(10.0, 1_000_000_000, GoCall::Allow), None),
            (spec(10.0, 1_000_000_001, GoCall::Allow), Some("n.burst")),
            (wait(1e-9), None),
            (wait(1e6), None),
            (wait(0.0), Some("n.timeout_s")),
            (wait(1e6 + 1.0), Some("n.timeout_s")),
            (wait(f64::NAN), Some("n.timeout_s")),
            (GoRateSpec { timeout_s: Some(1.0), ..spec(10.0, 5, GoCall::Allow) }, Some("n.timeout_s")),
            (GoRateSpec { timeout_s: Some(1.0), ..spec(10.0, 5, GoCall::Reserve) }, Some("n.timeout_s")),
            (GoRateSpec { status: 400, ..spec(10.0, 5, GoCall::Allow) }, None),
            (GoRateSpec { status: 599, ..spec(10.0, 5, GoCall::Allow) }, None),
            (GoRateSpec { status: 399, ..spec(10.0, 5, GoCall::Allow) }, Some("n.status")),
            (GoRateSpec { status: 600, ..spec(10.0, 5, GoCall::Allow) }, Some("n.status")),
        ];
        for (s, wrong) in cases {
            let said = format!("{s:?}");
            assert_eq!(refused(s), wrong.into_iter().map(String::from).collect::<Vec<_>>(), "{said}");
        }
    }
}
