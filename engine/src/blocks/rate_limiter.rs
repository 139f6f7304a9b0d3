//! Rate limiter: at most so much per span of time, after super-queue's rate
//! limiter and arataga's bandwidth limits.
//!
//! Guarantees:
//! - Every rule in `rules` must allow a message for it to pass (stacked
//!   rules: per second and per minute). Amounts are messages or bytes
//!   (`unit`).
//! - Schemes, for a rule of `limit` per `span_s`. super-queue's note
//!   compares three, and names a fourth:
//!   - `timer` (its scheme 1): a timer ticks `limit` times per span, on a
//!     grid from time zero, and each tick lets one message through (a
//!     message of n bytes, for bytes, takes n ticks). An isolated message
//!     waits for the next tick; a message a tick found waiting goes as
//!     soon as the next block takes it, until the next tick (a tick the
//!     next block could not use at once is not lost, but ticks are not
//!     saved up either);
//!   - `batch` (scheme 2): once per span, at each boundary from time zero,
//!     a batch of up to `limit` of the messages waiting then is taken, and
//!     they go as the next block takes them (one the next block cannot
//!     take at the boundary instant stays in its batch). A message that
//!     reached the limiter after a boundary missed that batch and waits for
//!     the next boundary, even if that batch was not full;
//!   - `anchored` (scheme 3, the note's choice): the span starts at the
//!     first message after a pause; messages pass freely until the limit,
//!     then everything waits for the span's end, and the next message starts
//!     a new span;
//!   - `natural_period` (the note's "natural-period counter"; `aligned` is
//!     read as it): a count cleared at every span boundary from time zero;
//!     a message passes at once while the count is under `limit`, else
//!     waits for the next boundary.
//!
//!   Extensions, not in the note:
//!   - `spread`: a pacer, one message's worth every span/limit since the
//!     last one passed (an isolated message goes at once);
//!   - `sliding`: at most `limit` in any span-long interval. The rule keeps
//!     what passed in the last span with a running sum (amortised O(1) per
//!     message) and remembers at most `MAX_SLIDING_INSTANTS` instants: past
//!     that, the two oldest count as one at the later instant, which errs
//!     on the strict side (an amount is remembered a little longer);
//!   - `token_bucket`: tokens refill at limit/span per second up to
//!     `burst` (default `limit`); a message takes its amount in tokens.
//! - A message's wait is judged from when it reached the limiter (its
//!   first offer), not from when it was made: a job that waited in a queue
//!   before the limiter reached it late. A job sent back after an
//!   execution time-out reaches it again, anew.
//! - An amount larger than a rule's whole limit passes when the rule is
//!   otherwise idle, rather than never.
//! - `on_excess: delay` refuses a message that may not pass yet (the sender
//!   holds it) and wakes the senders when the earliest rule allows;
//!   `reject` takes it and drops it (`rate_limited`).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::context::Context;
use crate::message::Message;
use crate::metrics::DropReason;
use crate::plumbing::validate::{check_range, push_error, FieldError};
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimiterSpec {
    pub rules: Vec<RateRule>,
    #[serde(default)]
    pub unit: RateUnit,
    #[serde(default)]
    pub on_excess: OnExcess,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateRule {
    pub scheme: Scheme,
    /// Messages or bytes per span.
    pub limit: f64,
    #[serde(default = "one_second")]
    pub span_s: f64,
    /// Token bucket only: the most tokens it holds (default `limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<f64>,
}

fn one_second() -> f64 {
    1.0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    Timer,
    Batch,
    Anchored,
    #[serde(alias = "aligned")]
    NaturalPeriod,
    Spread,
    Sliding,
    TokenBucket,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateUnit {
    #[default]
    Messages,
    Bytes,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnExcess {
    #[default]
    Delay,
    Reject,
}

impl RateLimiterSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.rules.is_empty() {
            push_error(errors, format!("{path}.rules"), "a rate limiter needs at least one rule");
        }
        for (i, rule) in self.rules.iter().enumerate() {
            let rp = format!("{path}.rules[{i}]");
            check_range(errors, format!("{rp}.limit"), rule.limit, 1e-9, 1e15);
            check_range(errors, format!("{rp}.span_s"), rule.span_s, 1e-6, 1e7);
            if let Some(b) = rule.burst {
                check_range(errors, format!("{rp}.burst"), b, 1e-9, 1e15);
                if rule.scheme != Scheme::TokenBucket {
                    push_error(errors, format!("{rp}.burst"), "only a token_bucket rule has a burst");
                }
            }
        }
    }
}

/// The running state of one rule.
#[derive(Clone, Debug)]
struct RuleState {
    rule: RateRule,
    /// spread: when the next may pass. anchored: the span's start.
    mark: Option<SimTime>,
    /// batch, natural_period and anchored: the amount passed in the
    /// current span; sliding: the sum of `passed`; token bucket: the tokens
    /// held.
    amount: f64,
    /// batch and natural_period: the index of the current span.
    span_index: u64,
    /// timer: the first tick not yet used (ticks are numbered from time
    /// zero; f64 because a bytes rule may tick more than 2^64 times).
    next_tick: f64,
    /// token bucket: when `amount` was last brought up to date.
    updated: SimTime,
    /// sliding: what passed in the last span, oldest first, one entry per
    /// instant.
    passed: VecDeque<(SimTime, f64)>,
}

/// The most instants a sliding rule remembers.
pub const MAX_SLIDING_INSTANTS: usize = 65_536;

impl RuleState {
    fn new(rule: RateRule) -> Self {
        let amount = if rule.scheme == Scheme::TokenBucket { rule.burst.unwrap_or(rule.limit) } else { 0.0 };
        RuleState { rule, mark: None, amount, span_index: 0, next_tick: 0.0, updated: SimTime::ZERO, passed: VecDeque::new() }
    }

    fn span(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.rule.span_s)
    }

    /// timer: nanoseconds between ticks.
    fn tick_ns(&self) -> f64 {
        self.rule.span_s * 1e9 / self.rule.limit
    }

    /// timer: tick `k`'s time, rounded up to the nanosecond.
    fn tick_time(&self, k: f64) -> SimTime {
        let ns = (k * self.tick_ns()).ceil();
        SimTime::from_nanos(if ns >= u64::MAX as f64 { u64::MAX } else { ns as u64 })
    }

    /// timer: the first tick at or after `now`, and no earlier than the
    /// first unused one.
    fn tick_for(&self, now: SimTime) -> f64 {
        let below = (now.as_nanos() as f64 / self.tick_ns()).floor();
        let at_or_after = if self.tick_time(below) >= now { below } else { below + 1.0 };
        at_or_after.max(self.next_tick)
    }

    /// timer: the last tick at or before `now`, if one is.
    fn latest_tick(&self, now: SimTime) -> Option<f64> {
        let below = (now.as_nanos() as f64 / self.tick_ns()).floor();
        let k = if self.tick_time(below) <= now { below } else { below - 1.0 };
        (k >= 0.0).then_some(k)
    }

    /// batch: the index of the boundary at or after `now`.
    fn boundary_for(&self, now: SimTime) -> u64 {
        now.as_nanos().div_ceil(self.span().as_nanos().max(1))
    }

    /// The earliest time at which `amount`, which reached the limiter at
    /// `arrived`, may pass (`now` if it may now).
    fn earliest(&mut self, amount: f64, now: SimTime, arrived: SimTime) -> SimTime {
        let limit = self.rule.limit;
        let amount = amount.min(limit);
        match self.rule.scheme {
            Scheme::Spread => self.mark.map_or(now, |m| m.max(now)),
            Scheme::Timer => match self.latest_tick(now) {
                // The last tick found this message waiting and is unused:
                // it released the message, which goes now that the next
                // block takes it. Older unused ticks are lost.
                Some(k) if k >= self.next_tick && self.tick_time(k) >= arrived.min(now) => now,
                _ => self.tick_time(self.tick_for(now)).max(now),
            },
            Scheme::Batch => {
                let span = self.span().as_nanos().max(1);
                // The batch now is that of the last boundary; the message
                // belongs to the batch of the first boundary it waited at.
                let current = now.as_nanos() / span;
                let its_batch = self.boundary_for(arrived.min(now));
                let used = if current == self.span_index { self.amount } else { 0.0 };
                if its_batch > current {
                    SimTime::from_nanos(its_batch.saturating_mul(span))
                } else if used + amount <= limit + 1e-9 {
                    now
                } else {
                    SimTime::from_nanos((current + 1).saturating_mul(span))
                }
            }
            Scheme::NaturalPeriod => {
                let index = now.as_nanos() / self.span().as_nanos().max(1);
                let used = if index == self.span_index { self.amount } else { 0.0 };
                if used + amount <= limit + 1e-9 {
                    now
                } else {
                    SimTime::from_nanos((index + 1) * self.span().as_nanos().max(1))
                }
            }
            Scheme::Anchored => match self.mark {
                Some(start) if now < start + self.span() => {
                    if self.amount + amount <= limit + 1e-9 {
                        now
                    } else {
                        start + self.span()
                    }
                }
                _ => now,
            },
            Scheme::Sliding => {
                self.forget_before(now);
                let mut used = self.amount;
                if used + amount <= limit + 1e-9 {
                    return now;
                }
                // Wait until enough of the oldest leave the interval.
                for (t, a) in &self.passed {
                    used -= a;
                    if used + amount <= limit + 1e-9 {
                        return *t + self.span();
                    }
                }
                now
            }
            Scheme::TokenBucket => {
                self.refill(now);
                let need = amount.min(self.rule.burst.unwrap_or(limit));
                if self.amount + 1e-9 >= need {
                    now
                } else {
                    let rate = limit / self.rule.span_s;
                    now + SimDuration::from_secs_f64((need - self.amount) / rate)
                }
            }
        }
    }

    /// sliding: forgets what passed a whole span or more before `now`.
    fn forget_before(&mut self, now: SimTime) {
        let span = self.span();
        while let Some(&(t, a)) = self.passed.front() {
            if t + span > now {
                break;
            }
            self.passed.pop_front();
            self.amount -= a;
        }
        if self.passed.is_empty() {
            // No rounding left over from the additions and subtractions.
            self.amount = 0.0;
        }
    }

    /// sliding: `amount` passed at `now`.
    fn remember(&mut self, amount: f64, now: SimTime) {
        self.amount += amount;
        match self.passed.back_mut() {
            Some((t, a)) if *t == now => *a += amount,
            _ => self.passed.push_back((now, amount)),
        }
        if self.passed.len() > MAX_SLIDING_INSTANTS {
            if let (Some((_, oldest)), Some((_, next))) = (self.passed.pop_front(), self.passed.front_mut()) {
                *next += oldest;
            }
        }
    }

    fn refill(&mut self, now: SimTime) {
        let rate = self.rule.limit / self.rule.span_s;
        let cap = self.rule.burst.unwrap_or(self.rule.limit);
        self.amount = (self.amount + rate * now.since(self.updated).as_secs_f64()).min(cap);
        self.updated = now;
    }

    /// `amount` passed at `now`.
    fn commit(&mut self, amount: f64, now: SimTime) {
        let limit = self.rule.limit;
        let amount = amount.min(limit);
        match self.rule.scheme {
            Scheme::Spread => {
                let gap = SimDuration::from_secs_f64(self.rule.span_s * amount / limit);
                self.mark = Some(now + gap);
            }
            Scheme::Timer => {
                let k = match self.latest_tick(now) {
                    Some(k) if k >= self.next_tick => k,
                    _ => self.tick_for(now),
                };
                self.next_tick = k + amount.ceil().max(1.0);
            }
            // Both count what passed in the span under way.
            Scheme::Batch | Scheme::NaturalPeriod => {
                let index = now.as_nanos() / self.span().as_nanos().max(1);
                if index != self.span_index {
                    self.span_index = index;
                    self.amount = 0.0;
                }
                self.amount += amount;
            }
            Scheme::Anchored => {
                match self.mark {
                    Some(start) if now < start + self.span() => {}
                    _ => {
                        self.mark = Some(now);
                        self.amount = 0.0;
                    }
                }
                self.amount += amount;
            }
            Scheme::Sliding => {
                self.forget_before(now);
                self.remember(amount, now);
            }
            Scheme::TokenBucket => {
                self.refill(now);
                self.amount -= amount.min(self.rule.burst.unwrap_or(limit));
            }
        }
    }
}

#[derive(Clone)]
pub struct RateLimiter {
    spec: RateLimiterSpec,
    rules: Vec<RuleState>,
    /// When the scheduled wake-up fires, if one is scheduled.
    timer: Option<SimTime>,
    /// Messages offered and not yet passed or dropped, by id: when each
    /// first reached the limiter (one per sender that holds one; at most
    /// `MAX_WAITING`).
    waiting: std::collections::BTreeMap<u64, SimTime>,
    /// The same, by arrival: the first is the one forgotten when full.
    waiting_by_arrival: std::collections::BTreeSet<(SimTime, u64)>,
    /// The message last passed, while the next block has not taken it:
    /// its id and when it reached the limiter.
    passing: Option<(u64, SimTime)>,
}

/// The most waiting messages whose arrival a limiter remembers; past that
/// the one that arrived first is forgotten (one dropped before it came
/// back, by an expiry in the queue before the limiter, say) and would
/// count as reaching it anew.
const MAX_WAITING: usize = 65_536;

/// What the limiter decides for an offered message.
pub enum RateDecision {
    Pass,
    /// Refused; the limiter wakes its senders at the given time.
    Wait,
    /// Taken and dropped.
    Rejected,
}

impl RateLimiter {
    pub fn new(spec: RateLimiterSpec) -> Self {
        let rules = spec.rules.iter().cloned().map(RuleState::new).collect();
        RateLimiter { spec, rules, timer: None, waiting: Default::default(), waiting_by_arrival: Default::default(), passing: None }
    }

    pub fn spec(&self) -> &RateLimiterSpec {
        &self.spec
    }

    pub fn reconfigure(&mut self, spec: RateLimiterSpec) {
        if spec.rules != self.spec.rules {
            self.rules = spec.rules.iter().cloned().map(RuleState::new).collect();
        }
        self.spec = spec;
    }

    fn amount(&self, msg: &Message) -> f64 {
        match self.spec.unit {
            RateUnit::Messages => 1.0,
            RateUnit::Bytes => msg.size_bytes as f64,
        }
    }

    /// Tokens held by the first token-bucket rule, if any (for display).
    pub fn tokens(&self) -> Option<f64> {
        self.rules.iter().find(|r| r.rule.scheme == Scheme::TokenBucket).map(|r| r.amount)
    }

    /// When `msg` first reached the limiter: remembered from an earlier
    /// offer, or now.
    fn arrival_of(&self, msg: &Message, now: SimTime) -> SimTime {
        match self.passing {
            Some((id, at)) if id == msg.id => at,
            _ => self.waiting.get(&msg.id).copied().unwrap_or(now),
        }
    }

    /// `msg`, which reached the limiter at `at`, waits.
    fn note_waiting(&mut self, msg: &Message, at: SimTime) {
        if self.waiting.contains_key(&msg.id) {
            return;
        }
        if self.waiting.len() >= MAX_WAITING {
            if let Some((_, first)) = self.waiting_by_arrival.pop_first() {
                self.waiting.remove(&first);
            }
        }
        self.waiting.insert(msg.id, at);
        self.waiting_by_arrival.insert((at, msg.id));
    }

    fn forget(&mut self, msg: &Message) {
        if self.passing.is_some_and(|(id, _)| id == msg.id) {
            self.passing = None;
        }
        if let Some(at) = self.waiting.remove(&msg.id) {
            self.waiting_by_arrival.remove(&(at, msg.id));
        }
    }

    pub fn decide(&mut self, msg: &Message, ctx: &mut Context) -> RateDecision {
        let amount = self.amount(msg);
        let now = ctx.core.now;
        let arrived = self.arrival_of(msg, now);
        let at = self.rules.iter_mut().map(|r| r.earliest(amount, now, arrived)).max().unwrap_or(now);
        if at <= now {
            // Passed, unless the next block refuses it: then it is offered
            // again, having reached the limiter when it did.
            self.passing = Some((msg.id, arrived));
            return RateDecision::Pass;
        }
        match self.spec.on_excess {
            OnExcess::Reject => {
                self.forget(msg);
                ctx.stats.arrived += 1;
                ctx.drop_message(*msg, DropReason::RateLimited);
                RateDecision::Rejected
            }
            OnExcess::Delay => {
                self.note_waiting(msg, arrived);
                if self.timer.is_none_or(|t| at < t) {
                    self.timer = Some(at);
                    ctx.core.scheduler.schedule(at, ctx.node, EventKind::RateOpen, 0);
                }
                RateDecision::Wait
            }
        }
    }

    /// The next block took `msg`.
    pub fn sent(&mut self, msg: &Message, ctx: &mut Context) {
        self.forget(msg);
        let amount = self.amount(msg);
        for r in &mut self.rules {
            r.commit(amount, ctx.core.now);
        }
        ctx.stats.arrived += 1;
        ctx.stats.departed += 1;
    }

    /// The wake-up timer fired.
    pub fn on_open(&mut self, ctx: &mut Context) {
        if self.timer.is_some_and(|t| t <= ctx.core.now) {
            self.timer = None;
        }
    }
}

impl RateLimiterSpec {
    /// Its number field at `steps`: a rule's (`rules[0].limit`).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        let [Step::Key("rules"), Step::Index(i), Step::Key(field)] = steps else {
            return None;
        };
        let rule = self.rules.get_mut(*i)?;
        match *field {
            "limit" => Some(NumberField::Real(&mut rule.limit)),
            "span_s" => Some(NumberField::Real(&mut rule.span_s)),
            "burst" => Some(NumberField::MaybeReal(&mut rule.burst)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn rule(scheme: Scheme, limit: f64) -> RuleState {
        RuleState::new(RateRule { scheme, limit, span_s: 1.0, burst: None })
    }

    /// Offers one message every `gap` seconds from 0 to `until`, each going
    /// as soon as the rule allows; returns the pass times.
    fn pass_times(mut r: RuleState, arrivals: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        let mut ready = SimTime::ZERO;
        for &a in arrivals {
            let now = at(a).max(ready);
            let t = r.earliest(1.0, now, at(a));
            let t = r.earliest(1.0, t, at(a)).max(t);
            r.commit(1.0, t);
            out.push(t.as_secs_f64());
            ready = t;
        }
        out
    }

    #[test]
    fn spread_spaces_messages_evenly() {
        let times = pass_times(rule(Scheme::Spread, 4.0), &[0.0; 5]);
        assert_eq!(times, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    }

    #[test]
    fn a_timer_lets_one_through_per_tick() {
        // Ticks every 0.25 s from zero: an isolated job waits for the next
        // tick; a backlog goes one per tick.
        let times = pass_times(rule(Scheme::Timer, 4.0), &[0.1, 0.1, 0.1, 2.0, 2.3]);
        assert_eq!(times, vec![0.25, 0.5, 0.75, 2.0, 2.5]);
    }

    #[test]
    fn a_batch_goes_at_each_boundary_full_or_not() {
        // A batch of up to 2 at each whole second: the job at 0.1 waits for
        // 1 s though no batch is full; the fourth job of the second batch
        // waits for 2 s.
        let times = pass_times(rule(Scheme::Batch, 2.0), &[0.1, 0.9, 0.95, 1.0, 3.0]);
        assert_eq!(times, vec![1.0, 1.0, 2.0, 2.0, 3.0]);
    }

    #[test]
    fn a_tick_that_found_a_message_waiting_lets_it_go_when_the_next_block_can() {
        // Ticks every 0.1 s. The job made at 0.05 was waiting at the tick
        // of 0.1; the next block takes it at 0.15: it goes then. One made
        // at 0.12 was not waiting at that tick.
        let mut r = rule(Scheme::Timer, 10.0);
        assert_eq!(r.earliest(1.0, at(0.15), at(0.12)), at(0.2));
        assert_eq!(r.earliest(1.0, at(0.15), at(0.05)), at(0.15));
        r.commit(1.0, at(0.15));
        // The tick of 0.1 is used: the next job waits for 0.2, and ticks
        // missed meanwhile are not saved up.
        assert_eq!(r.earliest(1.0, at(0.16), at(0.05)), at(0.2));
        assert_eq!(r.earliest(1.0, at(0.55), at(0.05)), at(0.55));
        r.commit(1.0, at(0.55));
        assert_eq!(r.earliest(1.0, at(0.56), at(0.05)), at(0.6));
    }

    #[test]
    fn a_batch_goes_as_the_next_block_takes_it() {
        // The job made at 0.5 was in the batch taken at 1 s; the next
        // block could take it only at 1.2 s: it goes then, not a span
        // later. One made at 1.1 missed that batch.
        let mut r = rule(Scheme::Batch, 2.0);
        assert_eq!(r.earliest(1.0, at(1.2), at(0.5)), at(1.2));
        assert_eq!(r.earliest(1.0, at(1.2), at(1.1)), at(2.0));
    }

    #[test]
    fn a_natural_period_counter_waits_for_the_next_boundary() {
        let times = pass_times(rule(Scheme::NaturalPeriod, 2.0), &[0.9, 0.9, 0.9, 1.2]);
        // Two fit before 1 s; the third waits for the boundary at 1 s; the
        // fourth is the second of that span.
        assert_eq!(times, vec![0.9, 0.9, 1.0, 1.2]);
    }

    #[test]
    fn anchored_span_starts_at_the_first_job() {
        let times = pass_times(rule(Scheme::Anchored, 2.0), &[0.9, 0.9, 0.9, 2.5]);
        // The span runs from 0.9 to 1.9; the third waits until 1.9 and
        // starts a new span; the fourth comes after that span ended.
        assert_eq!(times, vec![0.9, 0.9, 1.9, 2.5]);
    }

    #[test]
    fn an_anchored_span_opens_at_the_job_that_opens_it_not_where_the_last_ended() {
        // The note: the first job starts the count and records its time.
        // After a pause, the job at 3.3 s opens a span to 4.3 s; a span
        // laid end to end after the last (1.0 to 2.0, 2.0 to 3.0, 3.0 to
        // 4.0) would let the third go at 4.0.
        let times = pass_times(rule(Scheme::Anchored, 2.0), &[0.0, 0.0, 0.0, 3.3, 3.3, 3.3]);
        assert_eq!(times, vec![0.0, 0.0, 1.0, 3.3, 3.3, 4.3]);
    }

    #[test]
    fn a_token_bucket_holds_no_more_than_its_burst() {
        // 2 a second with a burst of 1: after any idle time one goes at
        // once and the next waits half a second; a bucket ignoring its cap
        // would let two (or, after ten idle seconds, twenty) go at once.
        let bucket = |burst| RuleState::new(RateRule { scheme: Scheme::TokenBucket, limit: 2.0, span_s: 1.0, burst });
        assert_eq!(pass_times(bucket(Some(1.0)), &[0.0, 0.0, 0.0]), vec![0.0, 0.5, 1.0]);
        assert_eq!(pass_times(bucket(Some(1.0)), &[0.0, 10.0, 10.0, 10.0]), vec![0.0, 10.0, 10.5, 11.0]);
        assert_eq!(pass_times(bucket(Some(3.0)), &[10.0, 10.0, 10.0, 10.0]), vec![10.0, 10.0, 10.0, 10.5]);
    }

    /// The pass times of jobs arriving at `arrivals` (sorted), each going
    /// as soon as the scheme allows and in order, worked out from the
    /// scheme's definition alone, in seconds: the independent reference
    /// the rule is held to.
    fn reference(scheme: Scheme, limit: u32, arrivals: &[f64]) -> Vec<f64> {
        let (l, span) = (limit as f64, 1.0);
        let mut out: Vec<f64> = Vec::new();
        let (mut start, mut count) = (f64::NEG_INFINITY, 0u32);
        let (mut tokens, mut updated) = (l, 0.0);
        for &a in arrivals {
            let t0 = out.last().map_or(a, |&r: &f64| a.max(r));
            let t = match scheme {
                // The first job opens a span; while it lasts, jobs pass up
                // to the limit; the next waits for its end and opens the
                // next span.
                Scheme::Anchored => {
                    if t0 < start + span && count < limit {
                        count += 1;
                        t0
                    } else {
                        let t = if t0 < start + span { start + span } else { t0 };
                        (start, count) = (t, 1);
                        t
                    }
                }
                // A count cleared at every whole span from zero.
                Scheme::NaturalPeriod => {
                    let mut k = (t0 / span).floor();
                    let passed_in = |k: f64| out.iter().filter(|&&p| (p / span).floor() == k).count() as u32;
                    while passed_in(k) >= limit {
                        k += 1.0;
                    }
                    t0.max(k * span)
                }
                // At most `limit` in any span: the limit-th latest pass
                // must be a whole span before.
                Scheme::Sliding => match out.len().checked_sub(limit as usize) {
                    Some(i) => t0.max(out[i] + span),
                    None => t0,
                },
                // Tokens at limit a span, up to the limit; one a job.
                Scheme::TokenBucket => {
                    tokens = (tokens + (t0 - updated) * l / span).min(l);
                    let t = if tokens >= 1.0 { t0 } else { t0 + (1.0 - tokens) * span / l };
                    tokens = (tokens + (t - t0) * l / span).min(l) - 1.0;
                    updated = t;
                    t
                }
                other => unreachable!("{other:?} has no reference here"),
            };
            out.push(t);
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn each_scheme_passes_jobs_when_its_definition_says(
            scheme in proptest::sample::select(vec![Scheme::Anchored, Scheme::NaturalPeriod, Scheme::Sliding, Scheme::TokenBucket]),
            limit in 1u32..6,
            gaps in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(0.0), 0.0f64..0.3, 0.5f64..3.0], 1..60),
        ) {
            // Arrivals on a millisecond grid, as the clock keeps time in
            // whole nanoseconds and the reference in floating seconds:
            // each the float nearest its millisecond (a sum of floats
            // drifts off the grid, 22.999999999999996 for 23, and the
            // reference would floor it into the span before).
            let mut ms = 0u64;
            let arrivals: Vec<f64> = gaps.iter().map(|g| { ms += (g * 1000.0).round() as u64; ms as f64 / 1000.0 }).collect();
            let got = pass_times(rule(scheme, limit as f64), &arrivals);
            let want = reference(scheme, limit, &arrivals);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                proptest::prop_assert!((g - w).abs() < 1e-6, "{scheme:?}, limit {limit}: job {k} arriving at {} passed at {g}, by definition at {w}\n{arrivals:?}", arrivals[k]);
            }
        }
    }

    #[test]
    fn a_rule_written_without_a_span_counts_per_second() {
        let read: RateRule = serde_json::from_value(serde_json::json!({"scheme": "anchored", "limit": 2})).unwrap();
        assert_eq!(read.span_s, 1.0);
        assert_eq!(pass_times(RuleState::new(read), &[0.0, 0.0, 0.0, 0.5]), vec![0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn sliding_counts_any_interval() {
        let times = pass_times(rule(Scheme::Sliding, 2.0), &[0.0, 0.5, 0.6, 0.6]);
        assert_eq!(times, vec![0.0, 0.5, 1.0, 1.5]);
    }

    #[test]
    fn a_sliding_rule_remembers_a_bounded_number_of_instants() {
        let mut r = RuleState::new(RateRule { scheme: Scheme::Sliding, limit: 1e9, span_s: 100.0, burst: None });
        for k in 0..(3 * MAX_SLIDING_INSTANTS as u64) {
            let now = SimTime::from_nanos(k * 1000);
            assert_eq!(r.earliest(1.0, now, now), now);
            r.commit(1.0, now);
        }
        assert_eq!(r.passed.len(), MAX_SLIDING_INSTANTS);
        assert_eq!(r.amount, 3.0 * MAX_SLIDING_INSTANTS as f64, "nothing forgotten within the span");
        // Several at one instant are one entry.
        let mut r = rule(Scheme::Sliding, 10.0);
        for _ in 0..5 {
            r.commit(1.0, at(0.5));
        }
        assert_eq!(r.passed.len(), 1);
        assert_eq!(r.earliest(6.0, at(0.7), at(0.7)), at(1.5));
        assert_eq!(r.earliest(5.0, at(0.7), at(0.7)), at(0.7));
        assert_eq!(r.earliest(6.0, at(1.5), at(1.5)), at(1.5), "forgotten a span later");
    }

    #[test]
    fn token_bucket_allows_a_burst_then_the_rate() {
        let times = pass_times(rule(Scheme::TokenBucket, 2.0), &[0.0, 0.0, 0.0, 0.0]);
        assert_eq!(times, vec![0.0, 0.0, 0.5, 1.0]);
    }
}
