//! Retries in running scenarios: how many attempts a request gets, when
//! they go, and how a retry budget (Envoy's) or throttling (gRPC's) holds
//! them back. A request sent again is one message: its copies are counted
//! apart (`resent`), and conservation holds after every event.

mod support;

use serde_json::{json, Value};
use sluice_engine::{DropReason, Simulation};
use support::*;



/// A server that never answers in time: every request is tried
/// `max_attempts` times, each attempt given up at the time-out.
#[test]
fn every_attempt_given_up_tries_the_request_max_attempts_times() {
    let scenario = pipeline(
        json!({"arrivals": {"process": "constant", "rate_per_s": 2}, "timeout_s": 0.25, "retries": {"max_attempts": 3}}),
        json!({}),
        json!({"workers": 1000, "service_time": fixed(100.0)}),
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 10.0);
    let c = client(&sim, "p");
    let made = sim.stats(idx(&sim, "p")).arrived;
    assert_eq!(made, 20);
    // Made at 0.5, 1.0, …, 10.0; the last over 0.75 s later: 18 over by 10 s.
    assert_eq!(c.timed_out, 18, "{c:?}");
    // The one made at 9.5 s was retried at 9.75 and 10.0 s; the one made at
    // 10.0 s not yet.
    assert_eq!(c.resent, 2 * 18 + 2, "two retries each: {c:?}");
    assert_eq!(sim.report().totals.resent, c.resent);
    assert_eq!(sim.stats(idx(&sim, "c")).arrived, made + c.resent, "every copy reached the server");
}

/// Errors answered at once (a server in an outage refuses, the producer
/// drops what is refused) are tried again after the back-off: exponential
/// from 0.1 s, so at +0.1 s and +0.3 s, then the request has failed.
#[test]
fn an_exponential_back_off_spaces_the_retries_of_an_error() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": [1.0]}, "on_refused": "drop",
                   "retries": {"max_attempts": 3, "backoff": "exponential", "base_s": 0.1}}),
            json!({"id": "c", "kind": "consumer", "service_time": fixed(0.01), "outages": [{"from_s": 0.0, "to_s": 100.0}]}),
        ],
        &[("p", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    let refused = |sim: &Simulation| sim.stats(idx(sim, "p")).dropped[DropReason::Refused as usize];
    run_checked(&mut sim, 1.0999);
    assert_eq!(refused(&sim), 1);
    run_checked(&mut sim, 1.1001);
    assert_eq!(refused(&sim), 2, "the first retry 0.1 s after");
    run_checked(&mut sim, 1.2999);
    assert_eq!(refused(&sim), 2);
    run_checked(&mut sim, 1.3001);
    assert_eq!(refused(&sim), 3, "the second 0.2 s after that");
    run_checked(&mut sim, 5.0);
    let c = client(&sim, "p");
    assert_eq!((c.failed, c.resent, c.answered), (1, 2, 0), "then it failed for good");
}

/// The same errors with full jitter: each retry somewhere in [0, w], so on
/// average half the exponential wait.
#[test]
fn full_jitter_spreads_the_retries_over_the_back_off() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 1}, "on_refused": "drop",
                   "retries": {"max_attempts": 2, "backoff": "fixed", "base_s": 0.4, "jitter": "full"}}),
            json!({"id": "c", "kind": "consumer", "service_time": fixed(0.01), "outages": [{"from_s": 0.0, "to_s": 1e6}]}),
        ],
        &[("p", "c")],
    );
    let mut sim = Simulation::new(scenario, 3).unwrap();
    // Sample the producer's refusals finely: the retry of the request made
    // at k s falls in [k, k + 0.4].
    let mut retry_delays = Vec::new();
    let mut seen = 0;
    for step in 1..=200_000u32 {
        let t = f64::from(step) * 0.001;
        run_checked(&mut sim, t);
        let refused = sim.stats(idx(&sim, "p")).dropped[DropReason::Refused as usize];
        if refused > seen {
            if refused.is_multiple_of(2) {
                retry_delays.push(t - t.floor());
            }
            seen = refused;
        }
        if retry_delays.len() == 150 {
            break;
        }
    }
    let mean = retry_delays.iter().sum::<f64>() / retry_delays.len() as f64;
    assert!(retry_delays.iter().all(|&d| d <= 0.401), "{retry_delays:?}");
    assert!((mean - 0.2).abs() < 0.04, "mean delay {mean}");
}

/// Envoy's budget: 20 requests a second whose attempts all time out after
/// 0.5 s, five attempts each. Unbudgeted, each makes four retries; with
/// the budget, retries active at once are held to max(3, 20% of what is in
/// flight, about 13 attempts) = 3, each active half a second: about 6
/// retries a second.
#[test]
fn envoys_retry_budget_holds_retries_to_its_share_of_what_is_in_flight() {
    let run = |budget: Value| {
        let mut retries = json!({"max_attempts": 5});
        if !budget.is_null() {
            retries["budget"] = budget;
        }
        let scenario = pipeline(
            json!({"arrivals": {"process": "poisson", "rate_per_s": 20}, "timeout_s": 0.5, "retries": retries}),
            json!({}),
            json!({"workers": 100_000, "service_time": fixed(1000.0)}),
        );
        let mut sim = Simulation::new(scenario, 2).unwrap();
        run_checked(&mut sim, 100.0);
        (client(&sim, "p").resent as f64 / 100.0, sim.stats(idx(&sim, "p")).arrived as f64 / 100.0)
    };
    let (free, made) = run(Value::Null);
    // Four each, but for the last two seconds' requests, still under way.
    assert!((free / made - 4.0).abs() < 0.1, "unbudgeted: {free} retries a second for {made} made");
    let (budgeted, _) = run(json!({"kind": "envoy"}));
    assert!((5.0..=6.5).contains(&budgeted), "budgeted: {budgeted} retries a second");
}

/// gRPC's throttling with every attempt failing: the count starts at 10
/// and each failure takes one; after the fifth it is at 5, no longer above
/// half, and nothing is retried again: four retries in the whole run.
#[test]
fn grpc_throttling_stops_retrying_once_half_its_tokens_are_gone() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 10}, "on_refused": "drop",
                   "retries": {"max_attempts": 5, "budget": {"kind": "grpc", "max_tokens": 10, "token_ratio": 0.1}}}),
            json!({"id": "c", "kind": "consumer", "service_time": fixed(0.01), "outages": [{"from_s": 0.0, "to_s": 1e6}]}),
        ],
        &[("p", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 30.0);
    let c = client(&sim, "p");
    assert_eq!(c.resent, 4, "{c:?}");
    assert_eq!(c.failed, sim.stats(idx(&sim, "p")).arrived);
}

/// A closed loop's client waits for its request through every attempt:
/// four clients, a server that never answers in time, two attempts of
/// 1 s each and 0.5 s of thinking: a request every 2.5 s per client.
#[test]
fn a_closed_loop_client_sends_a_new_request_only_once_its_retries_are_over() {
    let scenario = pipeline(
        json!({"arrivals": {"process": "closed_loop", "clients": 4, "think": fixed(0.5)}, "timeout_s": 1.0, "retries": {"max_attempts": 2}}),
        json!({}),
        json!({"workers": 100, "service_time": fixed(100.0)}),
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 10.2);
    // Made at 0.5, 3.0, 5.5 and 8.0 by each client, each given up 2 s on.
    assert_eq!(sim.stats(idx(&sim, "p")).arrived, 16);
    let c = client(&sim, "p");
    assert_eq!((c.timed_out, c.resent), (16, 16), "{c:?}");
}

/// Nothing to answer in time and retries without end in sight still end:
/// a run with retries of every kind reaches its end with conservation
/// holding after every event (`run_checked`).
#[test]
fn retries_of_every_kind_keep_conservation() {
    for (backoff, jitter) in [("none", "none"), ("fixed", "equal"), ("exponential", "full"), ("exponential", "decorrelated")] {
        let scenario = pipeline(
            json!({"arrivals": {"process": "poisson", "rate_per_s": 30}, "timeout_s": 0.3, "on_timeout": "cancel", "on_refused": "drop",
                   "retries": {"max_attempts": 4, "backoff": backoff, "base_s": 0.05, "cap_s": 1, "jitter": jitter}}),
            json!({"capacity": {"messages": 20}, "on_full": "refuse"}),
            json!({"workers": 2, "service_time": {"dist": "exponential", "mean": 0.1}}),
        );
        let mut sim = Simulation::new(scenario, 4).unwrap();
        run_checked(&mut sim, 30.0);
        let c = client(&sim, "p");
        assert!(c.resent > 100 && c.answered > 100, "{backoff}/{jitter}: {c:?}");
    }
}
