//! Product limiter: a limiter that decides as a real product's does, its
//! algorithm transcribed from the product's source (each product in a file
//! of its own, which names the version and the place it was read from):
//! what a threshold tuned here means in the server it is carried to.
//!
//! Guarantees:
//! - Like a server, it takes every message offered (a client's request is
//!   never held back by the limiter's sender) and decides it at once:
//!   let through, delayed until an instant, or refused (dropped,
//!   `rate_limited`). Each decision is recorded when decisions are asked
//!   for: the request's creation, its key, the outcome and when it passed
//!   or was refused.
//! - State is kept per message key (`Message::key`; a message without one
//!   is limited under one shared key).
//! - A delayed message is held until its instant, then sent on; held
//!   messages leave in the order of their instants, equal instants in the
//!   order they came. A message let through that the next block refuses
//!   is held too, and everything behind it waits, in order, until the
//!   next block wakes it.
//! - A product that limits requests in progress (nginx's `limit_conn`,
//!   HAProxy's server `maxconn`, Envoy's circuit breaker) counts each
//!   message it lets through until the message is finished: a consumer
//!   completed it, or it was dropped further on. One that queues keeps
//!   the messages waiting for a place first come first served, gives a
//!   place as soon as one is free (recorded `delayed`, or `admitted` if at
//!   once), and refuses a message that waited past its deadline
//!   (`expired`) or that the product refuses when its turn comes.

mod course;
mod envoy;
mod envoy_adaptive;
mod envoy_breaker;
mod go;
mod haproxy;
mod haproxy_server;
mod nginx;
mod netflix;
mod netflix_limits;
mod nginx_conn;
mod resilience4j;
mod running;
mod tower;

use std::collections::{BTreeMap, HashSet, VecDeque};

use running::{Decided, Running};

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::message::Message;
use crate::metrics::{DropReason, Outcome};
use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::FieldError;
use crate::scheduler::EventKind;
use crate::time::SimTime;

pub use envoy::{Bucket, EnvoyLocalRateLimitSpec};
pub use envoy_adaptive::EnvoyAdaptiveConcurrencySpec;
pub use envoy_breaker::{EnvoyCircuitBreakerSpec, Protocol};
pub use go::{GoCall, GoRateSpec};
pub use haproxy::{duration_text, HaproxyReqRateSpec, MAX_MS as HAPROXY_MAX_MS};
pub use haproxy_server::{Balance, HaproxyServerSpec};
pub use nginx::{NginxLimitReqSpec, Per, MAX_ZONE_BYTES, MIN_ZONE_BYTES};
pub use course::Course as AdaptiveCourse;
pub use netflix::{NetflixAimdSpec, NetflixGradient2Spec, NetflixVegasSpec, NetflixWindowSpec};
pub use nginx_conn::NginxLimitConnSpec;
pub use resilience4j::{AfterWait, Resilience4jCircuitBreakerSpec, SlidingWindowType};
pub use tower::{TowerLayer, TowerSpec};

/// Which product's limiter, and its settings in the product's own terms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "product", rename_all = "snake_case")]
pub enum ProductLimiterSpec {
    /// nginx's `limit_req` with its `limit_req_zone` (nginx 1.22).
    NginxLimitReq(NginxLimitReqSpec),
    /// Go's `golang.org/x/time/rate` limiter (x/time v0.3.0).
    GoRate(GoRateSpec),
    /// HAProxy's stick table `http_req_rate` and its deny rule (HAProxy 2.6).
    HaproxyHttpReqRate(HaproxyReqRateSpec),
    /// Envoy's HTTP local rate limit filter (its timer bucket up to 1.30,
    /// its atomic bucket from 1.31).
    EnvoyLocalRateLimit(EnvoyLocalRateLimitSpec),
    /// nginx's `limit_conn` with its `limit_conn_zone` (nginx 1.22).
    NginxLimitConn(NginxLimitConnSpec),
    /// HAProxy's server `maxconn`, `maxqueue` and `timeout queue`
    /// (HAProxy 2.6).
    HaproxyServer(HaproxyServerSpec),
    /// Envoy's cluster circuit breaker, as its connection pool applies it.
    EnvoyCircuitBreaker(EnvoyCircuitBreakerSpec),
    /// tower's limiting layers, stacked (tower 0.5).
    Tower(TowerSpec),
    /// Netflix concurrency-limits' `AIMDLimit` (v0.5.4).
    NetflixAimd(NetflixAimdSpec),
    /// Netflix concurrency-limits' `VegasLimit` (v0.5.4).
    NetflixVegas(NetflixVegasSpec),
    /// Netflix concurrency-limits' `Gradient2Limit` (v0.5.4).
    NetflixGradient2(NetflixGradient2Spec),
    /// Envoy's adaptive concurrency filter and its gradient controller.
    EnvoyAdaptiveConcurrency(EnvoyAdaptiveConcurrencySpec),
    /// resilience4j's `CircuitBreaker` (resilience4j 2.4.0).
    Resilience4jCircuitBreaker(Resilience4jCircuitBreakerSpec),
}

impl ProductLimiterSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        match self {
            ProductLimiterSpec::NginxLimitReq(s) => s.validate(path, errors),
            ProductLimiterSpec::GoRate(s) => s.validate(path, errors),
            ProductLimiterSpec::HaproxyHttpReqRate(s) => s.validate(path, errors),
            ProductLimiterSpec::EnvoyLocalRateLimit(s) => s.validate(path, errors),
            ProductLimiterSpec::NginxLimitConn(s) => s.validate(path, errors),
            ProductLimiterSpec::HaproxyServer(s) => s.validate(path, errors),
            ProductLimiterSpec::EnvoyCircuitBreaker(s) => s.validate(path, errors),
            ProductLimiterSpec::Tower(s) => s.validate(path, errors),
            ProductLimiterSpec::NetflixAimd(s) => s.validate(path, errors),
            ProductLimiterSpec::NetflixVegas(s) => s.validate(path, errors),
            ProductLimiterSpec::NetflixGradient2(s) => s.validate(path, errors),
            ProductLimiterSpec::EnvoyAdaptiveConcurrency(s) => s.validate(path, errors),
            ProductLimiterSpec::Resilience4jCircuitBreaker(s) => s.validate(path, errors),
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match self {
            ProductLimiterSpec::NginxLimitReq(s) => s.number_mut(steps),
            ProductLimiterSpec::GoRate(s) => s.number_mut(steps),
            ProductLimiterSpec::HaproxyHttpReqRate(s) => s.number_mut(steps),
            ProductLimiterSpec::EnvoyLocalRateLimit(s) => s.number_mut(steps),
            ProductLimiterSpec::NginxLimitConn(s) => s.number_mut(steps),
            ProductLimiterSpec::HaproxyServer(s) => s.number_mut(steps),
            ProductLimiterSpec::EnvoyCircuitBreaker(s) => s.number_mut(steps),
            ProductLimiterSpec::Tower(s) => s.number_mut(steps),
            ProductLimiterSpec::NetflixAimd(s) => s.number_mut(steps),
            ProductLimiterSpec::NetflixVegas(s) => s.number_mut(steps),
            ProductLimiterSpec::NetflixGradient2(s) => s.number_mut(steps),
            ProductLimiterSpec::EnvoyAdaptiveConcurrency(s) => s.number_mut(steps),
            ProductLimiterSpec::Resilience4jCircuitBreaker(s) => s.number_mut(steps),
        }
    }

    /// Whether it limits requests in progress (rather than a rate): it
    /// counts what it lets through until finished.
    pub fn limits_in_progress(&self) -> bool {
        match self {
            ProductLimiterSpec::NginxLimitConn(_) | ProductLimiterSpec::HaproxyServer(_) | ProductLimiterSpec::EnvoyCircuitBreaker(_) => true,
            ProductLimiterSpec::NetflixAimd(_) | ProductLimiterSpec::NetflixVegas(_) | ProductLimiterSpec::NetflixGradient2(_) => true,
            ProductLimiterSpec::EnvoyAdaptiveConcurrency(_) | ProductLimiterSpec::Resilience4jCircuitBreaker(_) => true,
            ProductLimiterSpec::Tower(s) => s.counts_in_progress(),
            _ => false,
        }
    }

    /// The product and its settings in a few words, as its configuration
    /// writes them: `nginx 10r/s burst=4 nodelay`.
    pub fn summary(&self) -> String {
        match self {
            ProductLimiterSpec::NginxLimitReq(s) => s.summary(),
            ProductLimiterSpec::GoRate(s) => s.summary(),
            ProductLimiterSpec::HaproxyHttpReqRate(s) => s.summary(),
            ProductLimiterSpec::EnvoyLocalRateLimit(s) => s.summary(),
            ProductLimiterSpec::NginxLimitConn(s) => s.summary(),
            ProductLimiterSpec::HaproxyServer(s) => s.summary(),
            ProductLimiterSpec::EnvoyCircuitBreaker(s) => s.summary(),
            ProductLimiterSpec::Tower(s) => s.summary(),
            ProductLimiterSpec::NetflixAimd(s) => s.summary(),
            ProductLimiterSpec::NetflixVegas(s) => s.summary(),
            ProductLimiterSpec::NetflixGradient2(s) => s.summary(),
            ProductLimiterSpec::EnvoyAdaptiveConcurrency(s) => s.summary(),
            ProductLimiterSpec::Resilience4jCircuitBreaker(s) => s.summary(),
        }
    }
}


#[derive(Clone)]
pub struct ProductLimiter {
    running: Running,
    /// Messages held, by the instant they may leave and the order they came.
    held: BTreeMap<(SimTime, u64), Message>,
    came: u64,
    /// The instant of the last release event scheduled, if still ahead.
    armed: Option<SimTime>,
    /// Whether the next block refused the first held message that was due.
    blocked: bool,
    /// Messages waiting for a place, first come first served, with the
    /// instant each met the limiter.
    waiting: VecDeque<(SimTime, Message)>,
    /// The messages the running product counts in progress, by id: only
    /// their end is its to hear (not that of one counted by a product
    /// chosen before, nor of one let through uncounted).
    counted: HashSet<(u64, u8)>,
}

/// `t` in nanoseconds, as Go's clock reads it.
fn nanos(t: SimTime) -> i64 {
    i64::try_from(t.as_nanos()).unwrap_or(i64::MAX)
}

/// The millisecond of `t`, as a server's clock reads it.
fn millisecond(t: SimTime) -> u64 {
    t.as_nanos() / 1_000_000
}

impl ProductLimiter {
    pub fn new(spec: ProductLimiterSpec) -> Self {
        ProductLimiter { running: Running::of(spec, SimTime::ZERO), held: BTreeMap::new(), came: 0, armed: None, blocked: false, waiting: VecDeque::new(), counted: HashSet::new() }
    }

    /// New settings take effect for the next request, as the product
    /// takes them at `now`; a change of product starts its state afresh
    /// (the held messages keep their instants).
    pub fn reconfigure(&mut self, spec: ProductLimiterSpec, ctx: &mut Context) {
        let now = ctx.core.now;
        let was = self.breaker().map(|(state, _, _)| state);
        match (&mut self.running, spec) {
            (Running::Nginx(old, zone), ProductLimiterSpec::NginxLimitReq(new)) => {
                // A zone made smaller forgets its least recently used keys.
                zone.shrink(new.capacity());
                *old = new;
            }
            (Running::Go(old, limiters), ProductLimiterSpec::GoRate(new)) => {
                limiters.reconfigure(old, &new, nanos(now));
                *old = new;
            }
            (Running::Haproxy(old, table), ProductLimiterSpec::HaproxyHttpReqRate(new)) => {
                // A table made smaller forgets what expires soonest.
                table.expire(millisecond(now), new.size as usize);
                *old = new;
            }
            (Running::Envoy(old, state), ProductLimiterSpec::EnvoyLocalRateLimit(new)) => {
                state.reconfigure(old, &new);
                *old = new;
            }
            // Counts in progress are kept: new bounds apply from the next
            // decision, and a place they free goes at the next pump; a new
            // timeout applies to those waiting too, counted from their
            // arrival.
            (Running::NginxConn(old, _), ProductLimiterSpec::NginxLimitConn(new)) => *old = new,
            (Running::HaproxyServer(old, _), ProductLimiterSpec::HaproxyServer(new)) => *old = new,
            (Running::EnvoyBreaker(old, _), ProductLimiterSpec::EnvoyCircuitBreaker(new)) => *old = new,
            (Running::Tower(old, _), ProductLimiterSpec::Tower(new)) => *old = new,
            // A Netflix limiter starts its algorithm afresh (what is in
            // flight stays counted, its samples going to the new one).
            (Running::Netflix(limiter), ProductLimiterSpec::NetflixAimd(new)) => limiter.reconfigure(netflix::Settings::Aimd(new), nanos(now)),
            (Running::Netflix(limiter), ProductLimiterSpec::NetflixVegas(new)) => limiter.reconfigure(netflix::Settings::Vegas(new), nanos(now)),
            (Running::Netflix(limiter), ProductLimiterSpec::NetflixGradient2(new)) => limiter.reconfigure(netflix::Settings::Gradient2(new), nanos(now)),
            (Running::EnvoyAdaptive(controller), ProductLimiterSpec::EnvoyAdaptiveConcurrency(new)) => controller.reconfigure(new, nanos(now)),
            // A breaker keeps its state and the calls it waits to hear of.
            (Running::Breaker(old, breaker), ProductLimiterSpec::Resilience4jCircuitBreaker(new)) => {
                let turn = breaker.reconfigure(old, &new, nanos(now));
                *old = new;
                if let Some(turn) = turn {
                    ctx.log_transition(turn.from, turn.to, turn.cause);
                }
            }
            // Another product starts afresh: what waited goes at the next
            // pump, counted by nothing, and the ends of what the old one
            // counted are not the new one's to hear.
            (running, spec) => {
                // A breaker replaced (or made afresh) is closed from now.
                *running = Running::of(spec, now);
                self.counted.clear();
                if let Some(state) = was.filter(|&s| s != crate::state::State::Closed) {
                    ctx.log_transition(state, crate::state::State::Closed, crate::state::Cause::ThresholdsChanged);
                }
            }
        }
    }

    /// Messages held now: waiting for their instant or for a place.
    pub fn holds(&self) -> u64 {
        (self.held.len() + self.waiting.len()) as u64
    }

    /// Messages waiting for a place now.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Keys the limiter keeps state for now.
    pub fn keys(&self) -> usize {
        match &self.running {
            Running::Nginx(_, zone) => zone.keys(),
            Running::Go(_, limiters) => limiters.keys(),
            Running::Haproxy(_, table) => table.keys(),
            Running::NginxConn(_, zone) => zone.keys(),
            // One bucket, one server, one pool for every key.
            Running::Envoy(..) | Running::HaproxyServer(..) | Running::EnvoyBreaker(..) | Running::Tower(..) | Running::Netflix(_) | Running::EnvoyAdaptive(_) | Running::Breaker(..) => 1,
        }
    }

    /// Requests it counts in progress (0 for a product that limits a rate).
    pub fn in_progress(&self) -> u64 {
        match &self.running {
            Running::NginxConn(_, zone) => zone.total(),
            Running::HaproxyServer(_, server) => server.served(),
            Running::EnvoyBreaker(_, pool) => pool.requests(),
            Running::Tower(_, state) => state.in_use(),
            Running::Netflix(limiter) => limiter.in_flight(),
            Running::EnvoyAdaptive(controller) => controller.outstanding(),
            Running::Breaker(_, breaker) => breaker.in_flight(),
            _ => 0,
        }
    }

    /// A circuit breaker's state now, and its window's calls: in all,
    /// and failed.
    pub fn breaker(&self) -> Option<(crate::state::State, u64, u64)> {
        match &self.running {
            Running::Breaker(_, breaker) => {
                let (calls, failed, _) = breaker.window_counts();
                Some((breaker.state(), calls, failed))
            }
            _ => None,
        }
    }

    /// The course of its limit and of what was in flight, if it adapts
    /// one.
    pub fn adaptive_course(&self) -> Option<&course::Course> {
        match &self.running {
            Running::Netflix(limiter) => Some(limiter.course()),
            Running::EnvoyAdaptive(controller) => Some(controller.course()),
            _ => None,
        }
    }

    /// The limit it decides by at `now`, if it adapts one.
    pub fn adaptive_limit(&self, now: SimTime) -> Option<u64> {
        match &self.running {
            Running::Netflix(limiter) => Some(limiter.limit().max(0) as u64),
            Running::EnvoyAdaptive(controller) => Some(u64::from(controller.limit_at(nanos(now)))),
            _ => None,
        }
    }

    /// Whether a message is held that the next block refused.
    pub fn is_blocked(&self) -> bool {
        self.blocked
    }

    /// Decides `msg`, offered now. Returns it when it may go on at once:
    /// the caller sends it, and holds it with `hold_refused` if the next
    /// block refuses.
    pub fn take(&mut self, msg: Message, ctx: &mut Context) -> Option<Message> {
        let now = ctx.core.now;
        ctx.stats.arrived += 1;
        let mut msg = msg;
        let waiting = self.waiting.len();
        let decided = self.running.decide(&mut msg, waiting, ctx);
        if self.running.timer_at().is_some() {
            // A breaker the call turned half-open may end that state by a
            // timer.
            self.arm(ctx);
        }
        if matches!(decided, Decided::Go(..)) && msg.gates.iter().any(|g| g == ctx.node) {
            self.counted.insert((msg.id, msg.resent));
        }
        ctx.stats.in_service = self.in_progress();
        match decided {
            Decided::Refuse(reason) => {
                ctx.decided(&msg, now, Outcome::Rejected, now);
                ctx.drop_message(msg, reason);
                None
            }
            Decided::Wait => {
                self.waiting.push_back((now, msg));
                self.grant(ctx);
                self.arm(ctx);
                None
            }
            Decided::Go(outcome, at) => {
                ctx.decided(&msg, now, outcome, at);
                if at > now || self.blocked || self.due(now).is_some() {
                    // Behind what is held and due, or delayed.
                    self.hold(at, msg, ctx);
                    None
                } else {
                    Some(msg)
                }
            }
        }
    }

    /// Gives the waiting messages the places free now, first come first
    /// served: each given one is held to go at once, each the product
    /// refuses at its turn is dropped.
    fn grant(&mut self, ctx: &mut Context) {
        let now = ctx.core.now;
        while let Some(&(met, msg)) = self.waiting.front() {
            let queues = self.running.queues();
            let Some(given) = self.running.grant(now) else { break };
            self.waiting.pop_front();
            if given {
                let mut msg = msg;
                if queues && self.running.counts() {
                    if msg.gates.push(ctx.node) {
                        self.counted.insert((msg.id, msg.resent));
                    } else {
                        self.running.finished(&msg, false, ctx);
                    }
                }
                let outcome = if met == now { Outcome::Admitted } else { Outcome::Delayed };
                ctx.decided(&msg, met, outcome, now);
                self.came += 1;
                self.held.insert((now, self.came), msg);
            } else {
                ctx.decided(&msg, met, Outcome::Rejected, now);
                ctx.drop_message(msg, DropReason::Overflow);
            }
        }
        ctx.stats.set_depth(now, self.holds(), 0);
        ctx.stats.in_service = self.in_progress();
    }

    /// Refuses the waiting messages whose deadline has come, then gives
    /// the places free now: the limiter's first act when it is pumped.
    pub fn expire_and_grant(&mut self, ctx: &mut Context) {
        self.running.tick(ctx);
        if self.waiting.is_empty() {
            return;
        }
        let now = ctx.core.now;
        // A place free now goes first: HAProxy looks at it before the clock.
        self.grant(ctx);
        while let Some(&(met, msg)) = self.waiting.front() {
            if self.running.deadline(met).is_none_or(|d| d > now) {
                break;
            }
            self.waiting.pop_front();
            ctx.decided(&msg, met, Outcome::Rejected, now);
            ctx.drop_message(msg, DropReason::Expired);
        }
        ctx.stats.set_depth(now, self.holds(), 0);
    }

    /// A message it let through and counted finished: completed, or
    /// `dropped` further on.
    pub fn finished(&mut self, msg: &Message, dropped: bool, ctx: &mut Context) {
        if self.counted.remove(&(msg.id, msg.resent)) {
            self.running.finished(msg, dropped, ctx);
        }
        self.grant(ctx);
    }

    /// The client of a copy `(id, resent)` it let through gave up on it
    /// now: a circuit breaker hears an error (the copy's later end is not
    /// its to hear).
    pub fn gave_up(&mut self, copy: (u64, u8), ctx: &mut Context) {
        if let Running::Breaker(spec, breaker) = &mut self.running {
            if self.counted.remove(&copy) {
                if let Some(turn) = breaker.heard(spec, copy, true, nanos(ctx.core.now)) {
                    ctx.log_transition(turn.from, turn.to, turn.cause);
                }
                ctx.stats.in_service = breaker.in_flight();
            }
        }
    }

    /// Whether it hears of clients giving up (a circuit breaker).
    pub fn hears_give_ups(&self) -> bool {
        matches!(self.running, Running::Breaker(..))
    }

    /// Holds `msg` until `at`.
    fn hold(&mut self, at: SimTime, msg: Message, ctx: &mut Context) {
        self.came += 1;
        self.held.insert((at, self.came), msg);
        ctx.stats.set_depth(ctx.core.now, self.holds(), 0);
        self.arm(ctx);
    }

    /// Holds a message the next block refused, ahead of everything due.
    pub fn hold_refused(&mut self, msg: Message, ctx: &mut Context) {
        let now = ctx.core.now;
        // Ahead of anything held for now or earlier: the smallest place.
        let first = self.held.keys().next().map_or(now, |&(t, _)| t.min(now));
        self.held.insert((first, 0), msg);
        self.blocked = true;
        ctx.stats.set_depth(now, self.holds(), 0);
    }

    /// The first held message, if it may leave at `now`.
    pub fn due(&self, now: SimTime) -> Option<Message> {
        self.held.iter().next().filter(|((t, _), _)| *t <= now).map(|(_, m)| *m)
    }

    /// The first held message left.
    pub fn sent_first(&mut self, ctx: &mut Context) {
        self.held.pop_first();
        self.blocked = false;
        ctx.stats.departed += 1;
        ctx.stats.set_depth(ctx.core.now, self.holds(), 0);
    }

    /// The next block refused the first held message.
    pub fn refused_first(&mut self) {
        self.blocked = true;
    }

    /// A message let through at once was taken.
    pub fn sent(&mut self, ctx: &mut Context) {
        ctx.stats.departed += 1;
    }

    /// Schedules a release at the first held instant still ahead, unless
    /// one is scheduled for it or earlier.
    pub fn arm(&mut self, ctx: &mut Context) {
        let now = ctx.core.now;
        if self.armed.is_some_and(|t| t <= now) {
            self.armed = None;
        }
        let held = self.held.keys().next().map(|&(t, _)| t);
        let deadline = self.waiting.front().and_then(|&(met, _)| self.running.deadline(met));
        let wake = if self.waiting.is_empty() { None } else { self.running.wakes_at() };
        let timer = self.running.timer_at();
        // Only what is ahead: a held message due now waits for the next
        // block to wake it.
        let Some(first) = held.into_iter().chain(deadline).chain(wake).chain(timer).filter(|&t| t > now).min() else { return };
        if first > now && self.armed.is_none_or(|t| first < t) {
            ctx.core.scheduler.schedule(first, ctx.node, EventKind::Release, 0);
            self.armed = Some(first);
        }
    }
}

/// The fields a product's `validate` refuses, by their paths (`n.rate`),
/// its node named `n`.
#[cfg(test)]
fn refused_fields(validate: impl FnOnce(&str, &mut Vec<FieldError>)) -> Vec<String> {
    let mut errors = Vec::new();
    validate("n", &mut errors);
    errors.iter().map(|e| e.to_string().split(':').next().unwrap_or_default().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::bench::Bench;

    fn nginx(rate: u32, burst: u32, nodelay: bool) -> ProductLimiter {
        let spec: ProductLimiterSpec = serde_json::from_value(serde_json::json!({
            "product": "nginx_limit_req", "rate": rate, "burst": burst, "nodelay": nodelay
        }))
        .unwrap();
        ProductLimiter::new(spec)
    }

    #[test]
    fn a_delayed_request_is_held_until_its_millisecond_and_a_rejected_one_dropped() {
        let mut b = Bench::new();
        let mut l = nginx(10, 2, false);
        b.at(1.0004);
        let sent: Vec<bool> = (0..4)
            .map(|_| {
                let m = b.message(100, 0);
                l.take(m, &mut b.ctx()).is_some()
            })
            .collect();
        assert_eq!(sent, vec![true, false, false, false]);
        // Two held (at 1.100 and 1.200 s, from the millisecond 1000), one dropped.
        assert_eq!(l.holds(), 2);
        assert_eq!(b.stats.dropped_total(), 1);
        assert_eq!(l.due(SimTime::from_nanos(1_099_999_999)), None);
        assert!(l.due(SimTime::from_nanos(1_100_000_000)).is_some());
        assert_eq!(l.keys(), 1);
    }
}
