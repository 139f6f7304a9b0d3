//! Retries: when a producer's clients try a request again, after how long,
//! and what budget holds them back.
//!
//! Guarantees:
//! - `max_attempts` counts every attempt, the first included (gRPC's
//!   `maxAttempts`): 1 never retries. A request is tried again after its
//!   attempt was given up at the time-out (`on: timeout`), answered with an
//!   error (dropped anywhere on the way: `on: error`), or either (`both`,
//!   the default).
//! - The wait before retry n (n = 1 for the first) is the AWS Architecture
//!   Blog's ("Exponential Backoff And Jitter", 2015), with base b and cap c:
//!   `none` 0; `fixed` b (the cap aside); `exponential` min(c, b·2^(n−1))
//!   (no cap: b·2^(n−1)).
//!   Jitter draws from that wait w: `none` w; `full` uniform in [0, w];
//!   `equal` w/2 + uniform in [0, w/2]; `decorrelated` min(c, uniform in
//!   [b, 3·s]), s the wait before (b at first), whatever the back-off.
//! - Envoy's retry budget (`budget: envoy`, the cluster circuit breaker's
//!   `retry_budget`, as `RetryBudgetImpl` and `RetryStateImpl` count it):
//!   a retry is allowed while the retries active (scheduled, from the
//!   decision until the retried attempt's outcome is known) are fewer than
//!   max(`min_retry_concurrency`, `budget_percent`% of the attempts in
//!   flight). Defaults 20% and 3.
//! - gRPC's retry throttling (gRFC A6, `budget: grpc`): a token count
//!   starts at `max_tokens`; each failed attempt takes 1 (not below 0),
//!   each answered one gives back `token_ratio` (not above `max_tokens`);
//!   after a failure a retry is allowed only while the count is above
//!   `max_tokens`/2.

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{check_range, push_error, FieldError};
use crate::rng::SimRng;

/// The most attempts a request may be given (its copies are numbered in a
/// byte).
pub const MAX_ATTEMPTS: u32 = 100;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retries {
    /// Attempts in all, the first included.
    #[serde(default = "default_attempts")]
    pub max_attempts: u32,
    /// What is tried again.
    #[serde(default, skip_serializing_if = "is_both")]
    pub on: RetryOn,
    #[serde(default)]
    pub backoff: Backoff,
    /// Seconds: the back-off's base (Envoy's `base_interval` is 25 ms).
    #[serde(default = "default_base")]
    pub base_s: f64,
    /// Seconds: the longest wait (none: uncapped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_s: Option<f64>,
    #[serde(default, skip_serializing_if = "is_no_jitter")]
    pub jitter: Jitter,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
}

fn default_attempts() -> u32 {
    3
}

fn default_base() -> f64 {
    0.025
}

/// What a client tries again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryOn {
    /// An attempt given up at the time-out.
    Timeout,
    /// An attempt answered with an error (dropped on the way).
    Error,
    #[default]
    Both,
}

fn is_both(o: &RetryOn) -> bool {
    *o == RetryOn::Both
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backoff {
    /// At once.
    #[default]
    None,
    /// `base_s` each time.
    Fixed,
    /// `base_s` doubled at each retry, up to `cap_s`.
    Exponential,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    #[default]
    None,
    Full,
    Equal,
    Decorrelated,
}

fn is_no_jitter(j: &Jitter) -> bool {
    *j == Jitter::None
}

/// What holds retries back beyond `max_attempts`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Budget {
    /// Envoy's `retry_budget`.
    Envoy {
        #[serde(default = "default_budget_percent")]
        budget_percent: f64,
        #[serde(default = "default_min_retry_concurrency")]
        min_retry_concurrency: u32,
    },
    /// gRPC's `retryThrottling`.
    Grpc { max_tokens: f64, token_ratio: f64 },
}

fn default_budget_percent() -> f64 {
    20.0
}

fn default_min_retry_concurrency() -> u32 {
    3
}

impl Retries {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if !(1..=MAX_ATTEMPTS).contains(&self.max_attempts) {
            push_error(errors, format!("{path}.max_attempts"), format!("must be from 1 (no retry) to {MAX_ATTEMPTS}"));
        }
        check_range(errors, format!("{path}.base_s"), self.base_s, 0.0, 3600.0);
        if let Some(cap) = self.cap_s {
            check_range(errors, format!("{path}.cap_s"), cap, 0.0, 86_400.0);
        }
        match &self.budget {
            Some(Budget::Envoy { budget_percent, .. }) => check_range(errors, format!("{path}.budget.budget_percent"), *budget_percent, 0.0, 100.0),
            Some(Budget::Grpc { max_tokens, token_ratio }) => {
                // gRFC A6: max_tokens in (0, 1000], token_ratio in (0, 1].
                if !(*max_tokens > 0.0 && *max_tokens <= 1000.0) {
                    push_error(errors, format!("{path}.budget.max_tokens"), "must be above 0 and at most 1000");
                }
                if !(*token_ratio > 0.0 && *token_ratio <= 1.0) {
                    push_error(errors, format!("{path}.budget.token_ratio"), "must be above 0 and at most 1");
                }
            }
            None => {}
        }
    }

    /// Its number field at `steps`.
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("max_attempts")] => Some(NumberField::Whole32(&mut self.max_attempts)),
            [Step::Key("base_s")] => Some(NumberField::Real(&mut self.base_s)),
            [Step::Key("cap_s")] => Some(NumberField::MaybeReal(&mut self.cap_s)),
            [Step::Key("budget"), Step::Key(key)] => match (self.budget.as_mut()?, *key) {
                (Budget::Envoy { budget_percent, .. }, "budget_percent") => Some(NumberField::Real(budget_percent)),
                (Budget::Envoy { min_retry_concurrency, .. }, "min_retry_concurrency") => Some(NumberField::Whole32(min_retry_concurrency)),
                (Budget::Grpc { max_tokens, .. }, "max_tokens") => Some(NumberField::Real(max_tokens)),
                (Budget::Grpc { token_ratio, .. }, "token_ratio") => Some(NumberField::Real(token_ratio)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether an attempt that ended this way (`timed_out`, or else
    /// answered with an error) may be tried again.
    pub fn retries_on(&self, timed_out: bool) -> bool {
        match self.on {
            RetryOn::Both => true,
            RetryOn::Timeout => timed_out,
            RetryOn::Error => !timed_out,
        }
    }

    /// The wait in seconds before retry `n` (1 for the first), `before`
    /// the wait before the last retry (the base at first).
    pub fn wait_s(&self, n: u32, before: f64, rng: &mut SimRng) -> f64 {
        let cap = self.cap_s.unwrap_or(f64::INFINITY);
        if self.jitter == Jitter::Decorrelated {
            let low = self.base_s;
            let high = (3.0 * before).max(low);
            return (low + rng.uniform() * (high - low)).min(cap);
        }
        let w = match self.backoff {
            Backoff::None => 0.0,
            Backoff::Fixed => self.base_s,
            Backoff::Exponential => (self.base_s * 2f64.powi(n.saturating_sub(1).min(1000) as i32)).min(cap),
        };
        match self.jitter {
            Jitter::None | Jitter::Decorrelated => w,
            Jitter::Full => rng.uniform() * w,
            Jitter::Equal => w / 2.0 + rng.uniform() * (w / 2.0),
        }
    }
}

/// A budget's running count.
#[derive(Clone, Debug, Default)]
pub struct BudgetState {
    /// Envoy: retries active (from the decision until the retried
    /// attempt's outcome is known).
    pub active_retries: u64,
    /// gRPC: the token count, once the first attempt ended.
    tokens: Option<f64>,
}

impl BudgetState {
    /// An attempt ended: answered (`ok`) or failed; gRPC's tokens move.
    pub fn attempt_ended(&mut self, budget: Option<&Budget>, ok: bool) {
        if let Some(Budget::Grpc { max_tokens, token_ratio }) = budget {
            let t = self.tokens.get_or_insert(*max_tokens);
            *t = if ok { (*t + token_ratio).min(*max_tokens) } else { (*t - 1.0).max(0.0) };
        }
    }

    /// Whether the budget lets one more retry go, with `in_flight`
    /// attempts out now.
    pub fn allows(&self, budget: Option<&Budget>, in_flight: u64) -> bool {
        match budget {
            None => true,
            Some(Budget::Envoy { budget_percent, min_retry_concurrency }) => {
                let most = (budget_percent / 100.0 * in_flight as f64).max(f64::from(*min_retry_concurrency));
                (self.active_retries as f64) < most.floor()
            }
            Some(Budget::Grpc { max_tokens, .. }) => self.tokens.unwrap_or(*max_tokens) > max_tokens / 2.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retries(v: serde_json::Value) -> Retries {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn exponential_waits_double_from_the_base_up_to_the_cap() {
        let r = retries(serde_json::json!({"backoff": "exponential", "base_s": 0.1, "cap_s": 0.5}));
        let mut rng = SimRng::new(1);
        let waits: Vec<f64> = (1..=5).map(|n| r.wait_s(n, 0.1, &mut rng)).collect();
        assert_eq!(waits, [0.1, 0.2, 0.4, 0.5, 0.5]);
        let uncapped = retries(serde_json::json!({"backoff": "exponential", "base_s": 0.1}));
        assert_eq!(uncapped.wait_s(8, 0.1, &mut rng), 12.8);
        let fixed = retries(serde_json::json!({"backoff": "fixed", "base_s": 0.3}));
        assert_eq!((fixed.wait_s(1, 0.3, &mut rng), fixed.wait_s(7, 0.3, &mut rng)), (0.3, 0.3));
        assert_eq!(retries(serde_json::json!({})).wait_s(3, 0.025, &mut rng), 0.0, "no back-off: at once");
    }

    /// Each jitter draws within its range, and spreads over all of it.
    #[test]
    fn each_jitter_draws_over_its_range() {
        let mut rng = SimRng::new(7);
        let draws = |r: &Retries, n: u32, before: f64, rng: &mut SimRng| -> (f64, f64, f64) {
            let xs: Vec<f64> = (0..20_000).map(|_| r.wait_s(n, before, rng)).collect();
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(0.0, f64::max), mean)
        };
        // Retry 3 of base 0.1: w = 0.4.
        let full = retries(serde_json::json!({"backoff": "exponential", "base_s": 0.1, "jitter": "full"}));
        let (lo, hi, mean) = draws(&full, 3, 0.0, &mut rng);
        assert!(lo < 0.01 && hi > 0.39 && hi <= 0.4 && (mean - 0.2).abs() < 0.01, "full: {lo} {hi} {mean}");
        let equal = retries(serde_json::json!({"backoff": "exponential", "base_s": 0.1, "jitter": "equal"}));
        let (lo, hi, mean) = draws(&equal, 3, 0.0, &mut rng);
        assert!((0.2..0.21).contains(&lo) && hi <= 0.4 && (mean - 0.3).abs() < 0.01, "equal: {lo} {hi} {mean}");
        // Decorrelated: between the base and three times the wait before,
        // capped.
        let decorrelated = retries(serde_json::json!({"base_s": 0.1, "cap_s": 0.5, "jitter": "decorrelated"}));
        let (lo, hi, mean) = draws(&decorrelated, 4, 0.1, &mut rng);
        assert!(lo >= 0.1 && hi <= 0.3 && (mean - 0.2).abs() < 0.01, "decorrelated from the base: {lo} {hi} {mean}");
        let (_, hi, _) = draws(&decorrelated, 4, 0.4, &mut rng);
        assert_eq!(hi, 0.5, "capped");
    }

    /// Envoy: max(min_retry_concurrency, budget_percent of what is in
    /// flight), against the retries active; gRPC: above half the tokens.
    #[test]
    fn the_budgets_hold_retries_to_their_share() {
        let envoy = Budget::Envoy { budget_percent: 20.0, min_retry_concurrency: 3 };
        let mut s = BudgetState { active_retries: 2, tokens: None };
        assert!(s.allows(Some(&envoy), 0), "below the minimum");
        s.active_retries = 3;
        assert!(!s.allows(Some(&envoy), 10), "20% of 10 is 2: the minimum, 3, holds");
        assert!(s.allows(Some(&envoy), 20), "20% of 20 is 4");
        s.active_retries = 4;
        assert!(!s.allows(Some(&envoy), 24), "20% of 24 is 4.8: four at most");

        let grpc = Budget::Grpc { max_tokens: 10.0, token_ratio: 0.5 };
        let mut s = BudgetState::default();
        assert!(s.allows(Some(&grpc), 0), "full at first");
        for k in 1..=5 {
            s.attempt_ended(Some(&grpc), false);
            assert_eq!(s.allows(Some(&grpc), 0), k < 5, "after {k} failures: {:?}", s.tokens);
        }
        s.attempt_ended(Some(&grpc), true);
        assert!(s.allows(Some(&grpc), 0), "5.5 is above half");
        for _ in 0..30 {
            s.attempt_ended(Some(&grpc), false);
        }
        assert_eq!(s.tokens, Some(0.0), "not below 0");
        for _ in 0..100 {
            s.attempt_ended(Some(&grpc), true);
        }
        assert_eq!(s.tokens, Some(10.0), "not above max_tokens");
    }
}
