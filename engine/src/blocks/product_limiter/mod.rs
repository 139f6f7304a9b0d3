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

mod envoy;
mod go;
mod haproxy;
mod nginx;

use std::collections::BTreeMap;

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
pub use go::{GoCall, GoRateSpec};
pub use haproxy::{duration_text, HaproxyReqRateSpec, MAX_MS as HAPROXY_MAX_MS};
pub use nginx::{NginxLimitReqSpec, Per, MAX_ZONE_BYTES, MIN_ZONE_BYTES};

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
}

impl ProductLimiterSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        match self {
            ProductLimiterSpec::NginxLimitReq(s) => s.validate(path, errors),
            ProductLimiterSpec::GoRate(s) => s.validate(path, errors),
            ProductLimiterSpec::HaproxyHttpReqRate(s) => s.validate(path, errors),
            ProductLimiterSpec::EnvoyLocalRateLimit(s) => s.validate(path, errors),
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match self {
            ProductLimiterSpec::NginxLimitReq(s) => s.number_mut(steps),
            ProductLimiterSpec::GoRate(s) => s.number_mut(steps),
            ProductLimiterSpec::HaproxyHttpReqRate(s) => s.number_mut(steps),
            ProductLimiterSpec::EnvoyLocalRateLimit(s) => s.number_mut(steps),
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
        }
    }
}

/// A product's settings and the state it keeps, together.
enum Running {
    Nginx(NginxLimitReqSpec, nginx::Zone),
    Go(GoRateSpec, go::Limiters),
    Haproxy(HaproxyReqRateSpec, haproxy::Table),
    Envoy(EnvoyLocalRateLimitSpec, envoy::State),
}

impl Running {
    fn of(spec: ProductLimiterSpec) -> Running {
        match spec {
            ProductLimiterSpec::NginxLimitReq(s) => Running::Nginx(s, nginx::Zone::default()),
            ProductLimiterSpec::GoRate(s) => Running::Go(s, go::Limiters::default()),
            ProductLimiterSpec::HaproxyHttpReqRate(s) => Running::Haproxy(s, haproxy::Table::default()),
            ProductLimiterSpec::EnvoyLocalRateLimit(s) => Running::Envoy(s, envoy::State::default()),
        }
    }
}

pub struct ProductLimiter {
    running: Running,
    /// Messages held, by the instant they may leave and the order they came.
    held: BTreeMap<(SimTime, u64), Message>,
    came: u64,
    /// The instant of the last release event scheduled, if still ahead.
    armed: Option<SimTime>,
    /// Whether the next block refused the first held message that was due.
    blocked: bool,
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
        ProductLimiter { running: Running::of(spec), held: BTreeMap::new(), came: 0, armed: None, blocked: false }
    }

    /// New settings take effect for the next request, as the product
    /// takes them at `now`; a change of product starts its state afresh
    /// (the held messages keep their instants).
    pub fn reconfigure(&mut self, spec: ProductLimiterSpec, now: SimTime) {
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
            (running, spec) => *running = Running::of(spec),
        }
    }

    /// Messages held now.
    pub fn holds(&self) -> u64 {
        self.held.len() as u64
    }

    /// Keys the limiter keeps state for now.
    pub fn keys(&self) -> usize {
        match &self.running {
            Running::Nginx(_, zone) => zone.keys(),
            Running::Go(_, limiters) => limiters.keys(),
            Running::Haproxy(_, table) => table.keys(),
            // One bucket for the whole process.
            Running::Envoy(..) => 1,
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
        let (outcome, at) = match &mut self.running {
            Running::Nginx(spec, zone) => {
                let ms = millisecond(now);
                match (zone.decide(spec, msg.key, ms), spec.dry_run) {
                    (nginx::Verdict::Pass, _) => (Outcome::Admitted, now),
                    (nginx::Verdict::Delay(_), true) => (Outcome::DelayedDryRun, now),
                    (nginx::Verdict::Delay(d), false) => (Outcome::Delayed, SimTime::from_nanos((ms + d) * 1_000_000).max(now)),
                    (nginx::Verdict::Reject, true) => (Outcome::RejectedDryRun, now),
                    (nginx::Verdict::Reject, false) => (Outcome::Rejected, now),
                }
            }
            Running::Go(spec, limiters) => match limiters.decide(spec, msg.key, nanos(now)) {
                go::Verdict::Pass => (Outcome::Admitted, now),
                go::Verdict::At(at) => (Outcome::Delayed, SimTime::from_nanos(at.max(0) as u64)),
                go::Verdict::Reject => (Outcome::Rejected, now),
            },
            Running::Haproxy(spec, table) => match table.decide(spec, msg.key, millisecond(now)) {
                haproxy::Verdict::Pass => (Outcome::Admitted, now),
                haproxy::Verdict::Deny => (Outcome::Rejected, now),
            },
            Running::Envoy(spec, state) => {
                // A draw only where the percentage leaves a chance.
                let mut draw = |percent: f64| if percent >= 100.0 { 0.0 } else if percent <= 0.0 { 1.0 } else { ctx.rng().uniform() };
                let enabled = draw(spec.enabled_percent);
                let enforced = if enabled * 100.0 < spec.enabled_percent { draw(spec.enforced_percent) } else { 1.0 };
                match state.decide(spec, now.as_nanos(), enabled, enforced) {
                    envoy::Verdict::Pass => (Outcome::Admitted, now),
                    envoy::Verdict::Shadow => (Outcome::RejectedDryRun, now),
                    envoy::Verdict::Reject => (Outcome::Rejected, now),
                }
            }
        };
        ctx.decided(&msg, outcome, at);
        match outcome {
            Outcome::Rejected => {
                ctx.drop_message(msg, DropReason::RateLimited);
                None
            }
            _ if at > now || self.blocked || self.due(now).is_some() => {
                // Behind what is held and due, or delayed.
                self.hold(at, msg, ctx);
                None
            }
            _ => Some(msg),
        }
    }

    /// Holds `msg` until `at`.
    fn hold(&mut self, at: SimTime, msg: Message, ctx: &mut Context) {
        self.came += 1;
        self.held.insert((at, self.came), msg);
        ctx.stats.depth_messages.set(ctx.core.now, self.held.len() as u64);
        self.arm(ctx);
    }

    /// Holds a message the next block refused, ahead of everything due.
    pub fn hold_refused(&mut self, msg: Message, ctx: &mut Context) {
        let now = ctx.core.now;
        // Ahead of anything held for now or earlier: the smallest place.
        let first = self.held.keys().next().map_or(now, |&(t, _)| t.min(now));
        self.held.insert((first, 0), msg);
        self.blocked = true;
        ctx.stats.depth_messages.set(now, self.held.len() as u64);
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
        ctx.stats.depth_messages.set(ctx.core.now, self.held.len() as u64);
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
        let Some(&(first, _)) = self.held.keys().next() else { return };
        if first > now && self.armed.is_none_or(|t| first < t) {
            ctx.core.scheduler.schedule(first, ctx.node, EventKind::Release, 0);
            self.armed = Some(first);
        }
    }
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
