//! The engine against queueing theory. Each estimate is a batch mean: the
//! run is cut into batches long enough to be nearly independent, and the
//! theoretical value must lie within three standard errors of the mean of
//! the batches. Each test also checks that the standard error is small, so
//! that it could fail.

mod support;

use serde_json::{json, Value};
use sluice_engine::theory::Model;
use sluice_engine::{SimTime, Simulation};
use support::*;

/// What a batch measures, from the simulation at the batch's start and end.
struct Batches {
    values: Vec<f64>,
}

impl Batches {
    fn mean(&self) -> f64 {
        self.values.iter().sum::<f64>() / self.values.len() as f64
    }

    fn standard_error(&self) -> f64 {
        let n = self.values.len() as f64;
        let m = self.mean();
        let var = self.values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
        (var / n).sqrt()
    }

    /// Asserts `theory` is within three standard errors, and that the
    /// standard error is below `max_relative` of the theory.
    fn assert_matches(&self, theory: f64, max_relative: f64, what: &str) {
        let (m, se) = (self.mean(), self.standard_error());
        assert!(se < max_relative * theory, "{what}: standard error {se} too large for a meaningful test");
        assert!((m - theory).abs() <= 3.0 * se, "{what}: measured {m} ± {se}, theory {theory}");
    }
}

/// Snapshot of the counters a batch mean needs.
#[derive(Clone, Copy)]
struct Mark {
    t: f64,
    area: f64,
    arrived: u64,
    departed: u64,
    dropped: u64,
    residence: f64,
    waited: u64,
}

fn mark(sim: &Simulation, node: usize) -> Mark {
    let s = sim.stats(node);
    Mark {
        t: sim.now().as_secs_f64(),
        area: s.depth_messages.integral_s(sim.now()),
        arrived: s.arrived,
        departed: s.departed,
        dropped: s.dropped_total(),
        residence: s.residence_sum_s(),
        waited: s.waited,
    }
}

/// Runs a warm-up, then `batches` batches of `length` seconds, and returns
/// `measure(start, end)` of `nodes` for each batch.
fn batch_means(
    sim: &mut Simulation,
    nodes: &[usize],
    warmup: f64,
    batches: usize,
    length: f64,
    measure: impl Fn(&[Mark], &[Mark]) -> f64,
) -> Batches {
    sim.run_until(SimTime::from_secs_f64(warmup)).expect("the run ends");
    let mut start: Vec<Mark> = nodes.iter().map(|&n| mark(sim, n)).collect();
    let mut values = Vec::with_capacity(batches);
    for b in 1..=batches {
        sim.run_until(SimTime::from_secs_f64(warmup + b as f64 * length)).expect("the run ends");
        let end: Vec<Mark> = nodes.iter().map(|&n| mark(sim, n)).collect();
        values.push(measure(&start, &end));
        start = end;
    }
    sim.check_invariants().unwrap();
    Batches { values }
}

fn queue_then_server(rate: f64, service: Value, workers: u32, queue: Value) -> Simulation {
    let mut q = queue;
    q["id"] = json!("q");
    q["kind"] = json!("queue");
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate}}),
            q,
            json!({"id": "c", "kind": "consumer", "workers": workers, "service_time": service}),
        ],
        &[("p", "q"), ("q", "c")],
    );
    Simulation::new(scenario, 2024).unwrap()
}

fn exponential(mean: f64) -> Value {
    json!({"dist": "exponential", "mean": mean})
}

#[test]
fn mm1_mean_number_in_system_and_sojourn() {
    // λ = 0.8, μ = 1: L = ρ/(1−ρ) = 4, W = 1/(μ−λ) = 5.
    let mut sim = queue_then_server(0.8, exponential(1.0), 1, json!({}));
    let (q, c) = (idx(&sim, "q"), idx(&sim, "c"));
    let l = batch_means(&mut sim, &[q, c], 1000.0, 30, 20_000.0, |s, e| {
        (e[0].area - s[0].area + e[1].area - s[1].area) / (e[0].t - s[0].t)
    });
    l.assert_matches(4.0, 0.03, "M/M/1 L");
    let mut sim = queue_then_server(0.8, exponential(1.0), 1, json!({}));
    let w = batch_means(&mut sim, &[q, c], 1000.0, 30, 20_000.0, |s, e| {
        // Sojourn = wait in the queue + service, per departure from the server.
        let n = (e[1].departed - s[1].departed) as f64;
        (e[0].residence - s[0].residence + e[1].residence - s[1].residence) / n
    });
    w.assert_matches(5.0, 0.03, "M/M/1 W");
}

#[test]
fn mm1k_blocking_probability() {
    // λ = 0.9, μ = 1, K = 10 (nine places and one server):
    // P_K = (1−ρ)ρ^K / (1−ρ^(K+1)).
    let rho: f64 = 0.9;
    let theory = (1.0 - rho) * rho.powi(10) / (1.0 - rho.powi(11));
    let mut sim = queue_then_server(0.9, exponential(1.0), 1, json!({"capacity": {"messages": 9}}));
    let q = idx(&sim, "q");
    let blocked = batch_means(&mut sim, &[q], 1000.0, 30, 20_000.0, |s, e| {
        (e[0].dropped - s[0].dropped) as f64 / (e[0].arrived - s[0].arrived) as f64
    });
    blocked.assert_matches(theory, 0.04, "M/M/1/K blocking");
}

/// Erlang C: the probability that an arrival waits, for c servers and
/// offered load a = λ/μ.
fn erlang_c(c: u32, a: f64) -> f64 {
    let rho = a / c as f64;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..c {
        term *= a / k as f64;
        sum += term;
    }
    let last = term * a / c as f64 / (1.0 - rho);
    last / (sum + last)
}

#[test]
fn mmc_waiting_probability_is_erlang_c() {
    // c = 3, λ = 2.4, μ = 1 (ρ = 0.8).
    let theory = erlang_c(3, 2.4);
    let mut sim = queue_then_server(2.4, exponential(1.0), 3, json!({}));
    let q = idx(&sim, "q");
    let waited = batch_means(&mut sim, &[q], 1000.0, 30, 10_000.0, |s, e| {
        (e[0].waited - s[0].waited) as f64 / (e[0].departed - s[0].departed) as f64
    });
    waited.assert_matches(theory, 0.03, "M/M/3 P(wait)");
}

#[test]
fn md1_waiting_time_is_pollaczek_khinchine() {
    // λ = 0.7, D = 1: Wq = ρ / (2μ(1−ρ)) = 0.7 / 0.6.
    let mut sim = queue_then_server(0.7, json!({"dist": "fixed", "value": 1.0}), 1, json!({}));
    let q = idx(&sim, "q");
    let wq = batch_means(&mut sim, &[q], 1000.0, 30, 20_000.0, |s, e| {
        (e[0].residence - s[0].residence) / (e[0].departed - s[0].departed) as f64
    });
    wq.assert_matches(0.7 / 0.6, 0.03, "M/D/1 Wq");
}

#[test]
fn mmck_blocking_and_waiting_match_the_theory_overlay() {
    // M/M/2/7: λ = 2.2, μ = 1 per worker (ρ = 1.1, so the bound matters).
    // The figures are the ones the page shows beside the queue.
    let mut sim = queue_then_server(2.2, exponential(1.0), 2, json!({"capacity": {"messages": 5}}));
    let q = idx(&sim, "q");
    let prediction = Model::of(sim.scenario(), q).unwrap().predict();
    assert_eq!(prediction.name, "M/M/2/7");
    let theory = prediction.steady.unwrap();
    let mut sim2 = queue_then_server(2.2, exponential(1.0), 2, json!({"capacity": {"messages": 5}}));
    let blocked = batch_means(&mut sim, &[q], 1000.0, 30, 10_000.0, |s, e| {
        (e[0].dropped - s[0].dropped) as f64 / (e[0].arrived - s[0].arrived) as f64
    });
    blocked.assert_matches(theory.drop_probability, 0.03, "M/M/2/7 blocking");
    let waiting = batch_means(&mut sim2, &[q], 1000.0, 30, 10_000.0, |s, e| (e[0].area - s[0].area) / (e[0].t - s[0].t));
    waiting.assert_matches(theory.mean_waiting, 0.03, "M/M/2/7 Lq");
}

#[test]
fn littles_law_holds_on_every_node() {
    // Two stages with different servers; every queue and consumer must
    // satisfy L = λW, each side measured independently.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 3.0}}),
            json!({"id": "q1", "kind": "queue"}),
            json!({"id": "c1", "kind": "consumer", "workers": 2, "service_time": exponential(0.5)}),
            json!({"id": "q2", "kind": "queue"}),
            json!({"id": "c2", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.25}}),
        ],
        &[("p", "q1"), ("q1", "c1"), ("c1", "q2"), ("q2", "c2")],
    );
    let mut sim = Simulation::new(scenario, 77).unwrap();
    sim.run_until(SimTime::from_secs_f64(200_000.0)).expect("the run ends");
    sim.check_invariants().unwrap();
    let t = sim.now().as_secs_f64();
    for id in ["q1", "c1", "q2", "c2"] {
        let s = sim.stats(idx(&sim, id));
        let l = s.depth_messages.mean(sim.now());
        let lambda = s.departed as f64 / t;
        let w = s.residence_sum_s() / s.departed as f64;
        // Edge effects (what is inside at the end) are a few parts in 10^5.
        assert!((l - lambda * w).abs() < 0.01 * l.max(0.05), "{id}: L = {l}, λW = {}", lambda * w);
    }
}

#[test]
fn mm1_sojourn_percentiles_follow_the_exponential_law() {
    // In M/M/1 the sojourn is exponential with rate μ − λ (0.2 here): its
    // p-quantile is −ln(1 − p) / 0.2. Histograms keep two significant
    // digits, about 1 %; 300,000 deliveries keep the sampling error below
    // that for p50 and near it for p99.
    let mut sim = queue_then_server(0.8, exponential(1.0), 1, json!({}));
    sim.run_until(SimTime::from_secs_f64(400_000.0)).expect("the run ends");
    let latency = sim.report().nodes["c"].latency_s.expect("a sink records latency");
    for (measured, p) in [(latency.p50, 0.5), (latency.p95, 0.95), (latency.p99, 0.99)] {
        let theory = -(1.0f64 - p).ln() / 0.2;
        assert!((measured - theory).abs() < 0.04 * theory, "p{}: {measured} vs {theory}", p * 100.0);
    }
}

/// Poisson arrivals at `rate` a second into a product limiter `limiter`,
/// served by a consumer of `workers` with exponential times of mean 1 s:
/// the limiter is the only bound when `workers` exceeds what it lets in.
fn limited(rate: f64, limiter: Value, workers: u32) -> Simulation {
    let mut l = limiter;
    l["id"] = json!("l");
    l["kind"] = json!("product_limiter");
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate}}),
            l,
            json!({"id": "c", "kind": "consumer", "workers": workers, "service_time": exponential(1.0)}),
        ],
        &[("p", "l"), ("l", "c")],
    );
    Simulation::new(scenario, 2024).unwrap()
}

/// M/M/c/K: the probability that an arrival finds all K places taken, for
/// offered load a = λ/μ.
fn mmck_blocking(c: u32, k: u32, a: f64) -> f64 {
    let mut terms = Vec::new();
    let mut term = 1.0;
    for n in 0..=k {
        if n > 0 {
            term *= a / f64::from(n.min(c));
        }
        terms.push(term);
    }
    terms[k as usize] / terms.iter().sum::<f64>()
}

/// The share of the limiter's arrivals it refused, per batch.
fn refused_share(sim: &mut Simulation) -> Batches {
    let l = idx(sim, "l");
    batch_means(sim, &[l], 1000.0, 30, 10_000.0, |s, e| (e[0].dropped - s[0].dropped) as f64 / (e[0].arrived - s[0].arrived) as f64)
}

#[test]
fn a_concurrency_limit_with_no_queue_loses_erlang_b() {
    // Erlang B = M/M/3/3: c = 3, a = 2.4. nginx's limit_conn (one key) and
    // Envoy's breaker over HTTP/2 (only max_requests counts) both refuse
    // the fourth request at once.
    let theory = mmck_blocking(3, 3, 2.4);
    assert!((theory - 0.2684).abs() < 1e-4);
    let nginx = json!({"product": "nginx_limit_conn", "conn": 3});
    refused_share(&mut limited(2.4, nginx, 10)).assert_matches(theory, 0.03, "limit_conn 3, Erlang B");
    let envoy = json!({"product": "envoy_circuit_breaker", "max_requests": 3, "max_connections": 1, "max_pending_requests": 0, "protocol": "http2"});
    refused_share(&mut limited(2.4, envoy, 10)).assert_matches(theory, 0.03, "Envoy HTTP/2 max_requests 3, Erlang B");
}

#[test]
fn a_concurrency_limit_with_a_bounded_queue_loses_as_m_m_c_k() {
    // M/M/2/7: λ = 2.2, μ = 1, two at once and five waiting.
    let theory = mmck_blocking(2, 7, 2.2);
    let haproxy = json!({"product": "haproxy_server", "maxconn": 2, "maxqueue": 5, "balance": "hash"});
    refused_share(&mut limited(2.2, haproxy, 10)).assert_matches(theory, 0.03, "HAProxy maxconn 2 maxqueue 5 (hash)");
    let envoy = json!({"product": "envoy_circuit_breaker", "max_connections": 2, "max_pending_requests": 5});
    refused_share(&mut limited(2.2, envoy, 10)).assert_matches(theory, 0.03, "Envoy HTTP/1.1 max_connections 2 max_pending_requests 5");
}

#[test]
fn haproxy_roundrobin_ignores_maxqueue() {
    // The same server with balance roundrobin: the backend queues, and
    // maxqueue 5 bounds nothing; with λ < c μ nothing is ever refused.
    let haproxy = json!({"product": "haproxy_server", "maxconn": 2, "maxqueue": 5});
    let mut sim = limited(1.8, haproxy, 10);
    let l = idx(&sim, "l");
    let mut most = 0;
    for t in 1..=20_000 {
        sim.run_until(SimTime::from_secs_f64(f64::from(t) * 2.5)).unwrap();
        most = most.max(sim.stats(l).depth_messages.value());
    }
    assert_eq!(sim.stats(l).dropped_total(), 0);
    assert!(most > 5, "more than maxqueue waited: {most} at most");
}

#[test]
fn a_queue_timeout_refuses_as_m_m_1_with_deterministic_patience() {
    // M/M/1+D: an arrival is refused when its wait would pass τ;
    // P = (1−ρ)ρe^{−(μ−λ)τ} / (1 − ρ²e^{−(μ−λ)τ}). λ = 0.9, μ = 1, τ = 2 s.
    let (rho, tau) = (0.9f64, 2.0);
    let e = (-(1.0 - rho) * tau).exp();
    let theory = (1.0 - rho) * rho * e / (1.0 - rho * rho * e);
    let haproxy = json!({"product": "haproxy_server", "maxconn": 1, "timeout_queue_s": tau});
    refused_share(&mut limited(0.9, haproxy, 4)).assert_matches(theory, 0.03, "HAProxy maxconn 1 timeout queue 2s");
    let envoy = json!({"product": "envoy_circuit_breaker", "max_connections": 1, "max_pending_requests": 1_000_000, "timeout_s": tau});
    refused_share(&mut limited(0.9, envoy, 4)).assert_matches(theory, 0.03, "Envoy max_connections 1, route timeout 2s");
}

#[test]
fn a_concurrency_limit_with_an_unbounded_queue_waits_as_m_m_c() {
    // M/M/3, λ = 2.4, μ = 1: Lq = C(3, 2.4)·ρ/(1−ρ), the mean number
    // waiting for a place. HAProxy's maxconn with the backend's queue, and
    // Envoy's breaker over HTTP/1.1 with room to wait and no timeout (a
    // request there waits for the connection opened for it: at once).
    let theory = erlang_c(3, 2.4) * 0.8 / 0.2;
    let waiting = |limiter: Value| {
        let mut sim = limited(2.4, limiter, 10);
        let l = idx(&sim, "l");
        batch_means(&mut sim, &[l], 1000.0, 30, 10_000.0, |s, e| (e[0].area - s[0].area) / (e[0].t - s[0].t))
    };
    waiting(json!({"product": "haproxy_server", "maxconn": 3})).assert_matches(theory, 0.05, "HAProxy maxconn 3, Lq");
    let envoy = json!({"product": "envoy_circuit_breaker", "max_connections": 3, "max_pending_requests": 1_000_000, "timeout_s": 0});
    waiting(envoy).assert_matches(theory, 0.05, "Envoy max_connections 3, Lq");
}
