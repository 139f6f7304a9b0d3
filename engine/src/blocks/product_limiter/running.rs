//! What each product keeps and decides, behind one face: its settings
//! and state together, what it does with a message met, and what it hears
//! of the messages it counted.

use super::*;

/// One key for each copy of a request (its id and how often it was sent
/// again): a copy and its retry may be in flight together, and each has
/// its own round trip.
fn copy_key(msg: &Message) -> u64 {
    (msg.id << 8) | u64::from(msg.resent)
}

/// A product's settings and the state it keeps, together.
#[derive(Clone)]
pub(super) enum Running {
    Nginx(NginxLimitReqSpec, nginx::Zone),
    Go(GoRateSpec, go::Limiters),
    Haproxy(HaproxyReqRateSpec, haproxy::Table),
    Envoy(EnvoyLocalRateLimitSpec, envoy::State),
    NginxConn(NginxLimitConnSpec, nginx_conn::Zone),
    HaproxyServer(HaproxyServerSpec, haproxy_server::Server),
    EnvoyBreaker(EnvoyCircuitBreakerSpec, envoy_breaker::Pool),
    Tower(TowerSpec, tower::State),
    /// Any of Netflix's: its settings are the limiter's.
    Netflix(netflix::Limiter),
    /// Envoy's adaptive concurrency: its settings are the controller's.
    EnvoyAdaptive(envoy_adaptive::Controller),
    /// resilience4j's circuit breaker.
    Breaker(Resilience4jCircuitBreakerSpec, resilience4j::Breaker),
}

impl Running {
    /// The product's state, fresh at `now`.
    pub(super) fn of(spec: ProductLimiterSpec, now: SimTime) -> Running {
        match spec {
            ProductLimiterSpec::NginxLimitReq(s) => Running::Nginx(s, nginx::Zone::default()),
            ProductLimiterSpec::GoRate(s) => Running::Go(s, go::Limiters::default()),
            ProductLimiterSpec::HaproxyHttpReqRate(s) => Running::Haproxy(s, haproxy::Table::default()),
            ProductLimiterSpec::EnvoyLocalRateLimit(s) => Running::Envoy(s, envoy::State::default()),
            ProductLimiterSpec::NginxLimitConn(s) => Running::NginxConn(s, nginx_conn::Zone::default()),
            ProductLimiterSpec::HaproxyServer(s) => Running::HaproxyServer(s, haproxy_server::Server::default()),
            ProductLimiterSpec::EnvoyCircuitBreaker(s) => Running::EnvoyBreaker(s, envoy_breaker::Pool::default()),
            ProductLimiterSpec::Tower(s) => Running::Tower(s, tower::State::default()),
            ProductLimiterSpec::NetflixAimd(s) => Running::Netflix(netflix::Limiter::new(netflix::Settings::Aimd(s))),
            ProductLimiterSpec::NetflixVegas(s) => Running::Netflix(netflix::Limiter::new(netflix::Settings::Vegas(s))),
            ProductLimiterSpec::NetflixGradient2(s) => Running::Netflix(netflix::Limiter::new(netflix::Settings::Gradient2(s))),
            ProductLimiterSpec::EnvoyAdaptiveConcurrency(s) => Running::EnvoyAdaptive(envoy_adaptive::Controller::new(s, nanos(now))),
            ProductLimiterSpec::Resilience4jCircuitBreaker(s) => {
                let breaker = resilience4j::Breaker::new(&s);
                Running::Breaker(s, breaker)
            }
        }
    }

    /// Whether it counts what it lets through until finished (the message
    /// carries it as a gate).
    pub(super) fn counts(&self) -> bool {
        match self {
            Running::NginxConn(..) | Running::HaproxyServer(..) | Running::EnvoyBreaker(..) | Running::Netflix(_) | Running::EnvoyAdaptive(_) | Running::Breaker(..) => true,
            Running::Tower(spec, _) => spec.counts_in_progress(),
            _ => false,
        }
    }

    /// Whether it lets messages wait for a place (its `grant` counts what
    /// it gives).
    pub(super) fn queues(&self) -> bool {
        matches!(self, Running::HaproxyServer(..) | Running::EnvoyBreaker(..) | Running::Tower(..))
    }

    /// When a waiting message may go without another finishing first.
    pub(super) fn wakes_at(&self) -> Option<SimTime> {
        match self {
            Running::Tower(spec, state) => state.wakes_at(spec).map(SimTime::from_nanos),
            _ => None,
        }
    }

    /// A message it counted in progress finished now, `dropped` or
    /// completed.
    pub(super) fn finished(&mut self, msg: &Message, dropped: bool, ctx: &mut Context) {
        match self {
            Running::NginxConn(_, zone) => zone.finished(msg.key),
            Running::Netflix(limiter) => limiter.finished(copy_key(msg), nanos(ctx.core.now), dropped, &mut || ctx.rng().uniform()),
            // Envoy times a request that failed further on as any other.
            Running::EnvoyAdaptive(controller) => controller.finished(copy_key(msg), nanos(ctx.core.now), &mut || ctx.rng().uniform()),
            Running::HaproxyServer(_, server) => server.finished(),
            Running::EnvoyBreaker(spec, pool) => pool.finished(spec),
            Running::Tower(_, state) => state.finished(),
            Running::Breaker(spec, breaker) => {
                if let Some(turn) = breaker.heard(spec, (msg.id, msg.resent), dropped, nanos(ctx.core.now)) {
                    ctx.log_transition(turn.from, turn.to, turn.cause);
                }
            }
            _ => {}
        }
    }

    /// When it changes state by itself next, if it does.
    pub(super) fn timer_at(&self) -> Option<SimTime> {
        match self {
            Running::Breaker(spec, breaker) => breaker.timer_at(spec).map(|t| SimTime::from_nanos(t.max(0) as u64)),
            _ => None,
        }
    }

    /// Changes its state now if a timer of it has come.
    pub(super) fn tick(&mut self, ctx: &mut Context) {
        if let Running::Breaker(spec, breaker) = self {
            if let Some(turn) = breaker.tick(spec, nanos(ctx.core.now)) {
                ctx.log_transition(turn.from, turn.to, turn.cause);
            }
        }
    }

    /// When a message that began to wait at `met` is refused for waiting
    /// too long, if ever.
    pub(super) fn deadline(&self, met: SimTime) -> Option<SimTime> {
        match self {
            Running::HaproxyServer(spec, _) => spec.deadline(met),
            Running::EnvoyBreaker(spec, _) => spec.deadline(met),
            _ => None,
        }
    }

    /// Whether the first waiting message may go now (`Some(true)`), is
    /// refused now (`Some(false)`), or waits on (`None`). A product that
    /// does not queue (one chosen while messages waited) lets it go,
    /// counting nothing.
    pub(super) fn grant(&mut self, now: SimTime) -> Option<bool> {
        match self {
            Running::HaproxyServer(spec, server) => server.grant(spec).then_some(true),
            Running::EnvoyBreaker(spec, pool) => pool.grant(spec).map(|v| v == envoy_breaker::Verdict::Pass),
            Running::Tower(spec, state) => state.grant(spec, now.as_nanos()).then_some(true),
            _ => Some(true),
        }
    }

    /// Decides `msg`, offered now, with `waiting` messages waiting for a
    /// place: records it as a gate of the product when it counts it.
    pub(super) fn decide(&mut self, msg: &mut Message, waiting: usize, ctx: &mut Context) -> Decided {
        let now = ctx.core.now;
        match self {
            Running::Nginx(spec, zone) => {
                let ms = millisecond(now);
                match (zone.decide(spec, msg.key, ms), spec.dry_run) {
                    (nginx::Verdict::Pass, _) => Decided::Go(Outcome::Admitted, now),
                    (nginx::Verdict::Delay(_), true) => Decided::Go(Outcome::DelayedDryRun, now),
                    (nginx::Verdict::Delay(d), false) => Decided::Go(Outcome::Delayed, SimTime::from_nanos((ms + d) * 1_000_000).max(now)),
                    (nginx::Verdict::Reject, true) => Decided::Go(Outcome::RejectedDryRun, now),
                    (nginx::Verdict::Reject, false) => Decided::Refuse(DropReason::RateLimited),
                }
            }
            Running::Go(spec, limiters) => match limiters.decide(spec, msg.key, nanos(now)) {
                go::Verdict::Pass => Decided::Go(Outcome::Admitted, now),
                go::Verdict::At(at) => Decided::Go(Outcome::Delayed, SimTime::from_nanos(at.max(0) as u64)),
                go::Verdict::Reject => Decided::Refuse(DropReason::RateLimited),
            },
            Running::Haproxy(spec, table) => match table.decide(spec, msg.key, millisecond(now)) {
                haproxy::Verdict::Pass => Decided::Go(Outcome::Admitted, now),
                haproxy::Verdict::Deny => Decided::Refuse(DropReason::RateLimited),
            },
            Running::Envoy(spec, state) => {
                // A draw only where the percentage leaves a chance.
                let mut draw = |percent: f64| if percent >= 100.0 { 0.0 } else if percent <= 0.0 { 1.0 } else { ctx.rng().uniform() };
                let enabled = draw(spec.enabled_percent);
                let enforced = if enabled * 100.0 < spec.enabled_percent { draw(spec.enforced_percent) } else { 1.0 };
                match state.decide(spec, now.as_nanos(), enabled, enforced) {
                    envoy::Verdict::Pass => Decided::Go(Outcome::Admitted, now),
                    envoy::Verdict::Shadow => Decided::Go(Outcome::RejectedDryRun, now),
                    envoy::Verdict::Reject => Decided::Refuse(DropReason::RateLimited),
                }
            }
            Running::NginxConn(spec, zone) => match zone.decide(spec, msg.key) {
                nginx_conn::Verdict::Pass => {
                    if !msg.gates.push(ctx.node) {
                        // Past the gates a message can be counted against,
                        // its end would go unheard: not counted.
                        zone.finished(msg.key);
                    }
                    Decided::Go(Outcome::Admitted, now)
                }
                nginx_conn::Verdict::DryRun => Decided::Go(Outcome::RejectedDryRun, now),
                nginx_conn::Verdict::Reject => Decided::Refuse(DropReason::RateLimited),
            },
            Running::HaproxyServer(spec, server) => match server.decide(spec, waiting) {
                haproxy_server::Verdict::Pass => {
                    if !msg.gates.push(ctx.node) {
                        server.finished();
                    }
                    Decided::Go(Outcome::Admitted, now)
                }
                haproxy_server::Verdict::Queue => Decided::Wait,
                haproxy_server::Verdict::Full => Decided::Refuse(DropReason::Overflow),
            },
            Running::EnvoyBreaker(spec, pool) => match pool.decide(spec, waiting) {
                envoy_breaker::Verdict::Pass => {
                    if !msg.gates.push(ctx.node) {
                        pool.finished(spec);
                    }
                    Decided::Go(Outcome::Admitted, now)
                }
                envoy_breaker::Verdict::Queue => Decided::Wait,
                envoy_breaker::Verdict::Overflow => Decided::Refuse(DropReason::Overflow),
            },
            Running::Tower(spec, state) => match state.decide(spec, waiting, now.as_nanos()) {
                tower::Verdict::Pass => {
                    if spec.counts_in_progress() && !msg.gates.push(ctx.node) {
                        state.finished();
                    }
                    Decided::Go(Outcome::Admitted, now)
                }
                tower::Verdict::Wait => Decided::Wait,
                // Overloaded: beyond the buffer's room, or at the limit.
                tower::Verdict::Refuse if waiting > 0 => Decided::Refuse(DropReason::Overflow),
                tower::Verdict::Refuse => Decided::Refuse(DropReason::RateLimited),
            },
            Running::Netflix(limiter) => {
                if !limiter.decide(copy_key(msg), nanos(now)) {
                    Decided::Refuse(DropReason::RateLimited)
                } else {
                    if !msg.gates.push(ctx.node) {
                        limiter.forget(copy_key(msg));
                    }
                    Decided::Go(Outcome::Admitted, now)
                }
            }
            Running::Breaker(spec, breaker) => {
                let call = (msg.id, msg.resent);
                let (permitted, turn) = breaker.acquire(spec, call, nanos(now));
                if let Some(turn) = turn {
                    ctx.log_transition(turn.from, turn.to, turn.cause);
                }
                if !permitted {
                    Decided::Refuse(DropReason::NotPermitted)
                } else {
                    if !msg.gates.push(ctx.node) {
                        // Past the gates a message can be counted against,
                        // its outcome would go unheard: not waited for.
                        breaker.forget(call);
                    }
                    Decided::Go(Outcome::Admitted, now)
                }
            }
            Running::EnvoyAdaptive(controller) => {
                if !controller.decide(copy_key(msg), nanos(now)) {
                    Decided::Refuse(DropReason::RateLimited)
                } else {
                    if !msg.gates.push(ctx.node) {
                        controller.forget(copy_key(msg));
                    }
                    Decided::Go(Outcome::Admitted, now)
                }
            }
        }
    }
}

/// What the limiter does with a message it met.
pub(super) enum Decided {
    /// Recorded with this outcome; goes on at the instant.
    Go(Outcome, SimTime),
    /// Refused now, for this reason.
    Refuse(DropReason),
    /// Waits for a place.
    Wait,
}
