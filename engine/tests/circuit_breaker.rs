//! resilience4j's circuit breaker in running scenarios: it opens on the
//! failures it hears (drops further on, clients giving up), refuses while
//! open, lets exactly its trial calls through half-open, and closes once
//! they pass; its states are logged and timed like a queue's.

mod support;

use serde_json::{json, Value};
use sluice_engine::{DropReason, Simulation, State};
use support::*;

fn breaker(settings: Value) -> Value {
    let mut b = json!({"id": "b", "kind": "product_limiter", "product": "resilience4j_circuit_breaker"});
    for (k, v) in settings.as_object().unwrap() {
        b[k] = v.clone();
    }
    b
}

/// Clients `p` (10 a second, evenly) calling through breaker `b` a
/// server `c` that is out, behind a queue `q` of one place: the first call
/// waits there for ever, every later one is dropped (a failure).
fn dead_server(settings: Value) -> sluice_engine::Scenario {
    graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 10}}),
            breaker(settings),
            json!({"id": "q", "kind": "queue", "capacity": {"messages": 1}}),
            json!({"id": "c", "kind": "consumer", "service_time": fixed(0.01), "outages": [{"from_s": 0.0, "to_s": 1000.0}]}),
        ],
        &[("p", "b"), ("b", "q"), ("q", "c")],
    )
}

/// Entries into `state` of node `id`.
fn entered(sim: &Simulation, id: &str, state: State) -> u64 {
    sim.stats(idx(sim, id)).entered.iter().find(|(s, _)| *s == state).map_or(0, |(_, n)| *n)
}

/// Everything the breaker lets through fails at once (the server is out,
/// its one-message queue full, so each arrival there is dropped): the
/// breaker opens after its first window (10 failures), then cycles: open
/// 5 s, half-open for exactly its 3 trial calls, which fail: open again.
/// So what passed is 11 (the first, held in the queue for ever, and the
/// window's 10) plus 3 per half-open, and the rest was refused.
#[test]
fn a_breaker_over_a_dead_server_lets_through_only_its_trial_calls() {
    let scenario = dead_server(json!({"sliding_window_size": 10, "minimum_number_of_calls": 10, "wait_duration_in_open_state_s": 5,
        "automatic_transition_from_open_to_half_open_enabled": true, "permitted_number_of_calls_in_half_open_state": 3}));
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 60.0);
    let b = idx(&sim, "b");
    let half_opens = entered(&sim, "b", State::HalfOpen);
    let opens = entered(&sim, "b", State::Open);
    // Open at 1.1 s; each cycle 5 s open and 0.2 to 0.3 s half-open: 11
    // cycles begun by 60 s.
    assert_eq!(half_opens, 11, "{:?}", sim.stats(b).entered);
    assert!(opens == half_opens || opens == half_opens + 1);
    assert_eq!(entered(&sim, "b", State::Closed), 0, "never closed again");
    let passed = sim.stats(b).departed;
    assert_eq!(passed, 11 + 3 * half_opens);
    let refused = sim.stats(b).dropped[DropReason::NotPermitted as usize];
    assert_eq!(passed + refused, sim.stats(idx(&sim, "p")).arrived, "every request passed or was refused");
    // Its time in each state, as the strip draws it: open 5 s of each
    // cycle, half-open while its 3 trials are made, 0.2 to 0.3 s (whether
    // the call due at the very instant it turns is a trial or not).
    let slots = sim.state_times(b).unwrap().slots(sim.now());
    let open: f64 = slots.iter().map(|s| s.seconds[2]).sum();
    let half: f64 = slots.iter().map(|s| s.seconds[1]).sum();
    assert!(half > 0.2 * 11.0 - 1e-6 && half < 0.3 * 11.0 + 1e-6, "half-open {half} s");
    assert!((open + half + 1.1 - 60.0).abs() < 1e-6, "open {open} s");
    // The log says why.
    let causes: Vec<String> = sim.transitions().entries().filter(|t| t.node == b).map(|t| format!("{}>{} {}", t.from, t.to, t.cause)).collect();
    assert_eq!(causes[0], "CLOSED>OPEN failure rate at threshold");
    assert_eq!(causes[1], "OPEN>HALF_OPEN open wait elapsed");
    assert_eq!(causes[2], "HALF_OPEN>OPEN failure rate at threshold");
}

/// Without the automatic transition the breaker stays open past its wait
/// until a call is asked for: with a trace that pauses, the first call
/// after the pause turns it half-open, and trials that succeed (the
/// server back) close it.
#[test]
fn the_first_call_after_the_wait_turns_it_half_open_and_good_trials_close_it() {
    let times: Vec<f64> = (1..=10).map(|k| k as f64 * 0.1).chain((0..5).map(|k| 20.0 + k as f64 * 0.1)).collect();
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": times}}),
            breaker(json!({"sliding_window_size": 4, "minimum_number_of_calls": 4, "wait_duration_in_open_state_s": 5,
                           "permitted_number_of_calls_in_half_open_state": 2})),
            json!({"id": "q", "kind": "queue", "capacity": {"messages": 1}}),
            json!({"id": "c", "kind": "consumer", "service_time": fixed(0.01), "outages": [{"from_s": 0.0, "to_s": 10.0}]}),
        ],
        &[("p", "b"), ("b", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 15.0);
    assert_eq!(sim.breaker(idx(&sim, "b")).map(|b| b.0), Some(State::Open), "still open at 15 s: no call asked");
    run_checked(&mut sim, 30.0);
    let log: Vec<(f64, State, State)> =
        sim.transitions().entries().filter(|t| t.node == idx(&sim, "b")).map(|t| (t.time.as_secs_f64(), t.from, t.to)).collect();
    // Open at the 5th call (0.5 s: the first is held, four fail); half-open
    // at the call made at 20 s; closed when its two trials are answered.
    assert_eq!(log.len(), 3, "{log:?}");
    assert!((log[0].0 - 0.5).abs() < 1e-9 && log[0].2 == State::Open, "{log:?}");
    assert!((log[1].0 - 20.0).abs() < 1e-9 && log[1].2 == State::HalfOpen, "{log:?}");
    assert_eq!(log[2].2, State::Closed, "{log:?}");
    assert!(log[2].0 < 20.2, "{log:?}");
}

/// Clients that give up at their time-out are failures the breaker hears
/// at that instant, even though the server (working on) answers later.
#[test]
fn a_client_giving_up_is_a_failure_heard_at_its_time_out() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 10}, "timeout_s": 0.45}),
            breaker(json!({"sliding_window_size": 5, "minimum_number_of_calls": 5, "wait_duration_in_open_state_s": 100})),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "c", "kind": "consumer", "service_time": fixed(2.0)}),
        ],
        &[("p", "b"), ("b", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 10.0);
    let log: Vec<(f64, State)> = sim.transitions().entries().filter(|t| t.node == idx(&sim, "b")).map(|t| (t.time.as_secs_f64(), t.to)).collect();
    // Calls at 0.1 … 0.5 s given up 0.45 s later: the fifth, at 0.95 s,
    // opens it, after the calls made up to 0.9 s.
    assert_eq!(log.len(), 1, "{log:?}");
    assert!((log[0].0 - 0.95).abs() < 1e-9 && log[0].1 == State::Open, "{log:?}");
    let b = idx(&sim, "b");
    assert_eq!(sim.stats(b).departed, 9, "calls until it opened");
    assert_eq!(client(&sim, "p").answered, 0);
}

/// Trials that never end: the breaker opens on drops at a full queue; then
/// the queue is given room, so the trial calls wait in it for ever behind
/// a server that is out, no outcome comes, no client gives up, and only the
/// half-open wait ends the state, on time.
#[test]
fn trials_that_never_end_are_cut_off_by_the_half_open_wait() {
    let scenario = dead_server(json!({"sliding_window_size": 2, "minimum_number_of_calls": 2, "wait_duration_in_open_state_s": 1,
        "permitted_number_of_calls_in_half_open_state": 2, "max_wait_duration_in_half_open_state_s": 3}));
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 3.05);
    let b = idx(&sim, "b");
    assert!(sim.stats(b).entered.iter().any(|(s, _)| *s == State::Open));
    let roomy = serde_json::from_value(json!({"kind": "queue", "capacity": {"messages": 1000}})).unwrap();
    sim.reconfigure("q", roomy).unwrap();
    run_checked(&mut sim, 20.0);
    let log: Vec<(f64, State, String)> =
        sim.transitions().entries().filter(|t| t.node == b).map(|t| (t.time.as_secs_f64(), t.to, t.cause.to_string())).collect();
    let cut: Vec<&(f64, State, String)> = log.iter().filter(|(_, to, cause)| *to == State::Open && cause == "half-open wait elapsed").collect();
    assert!(!cut.is_empty(), "{log:?}");
    // Each such half-open state lasted exactly its 3 s.
    for w in log.windows(2) {
        if w[0].1 == State::HalfOpen && w[1].2 == "half-open wait elapsed" {
            assert!((w[1].0 - w[0].0 - 3.0).abs() < 1e-9, "{log:?}");
        }
    }
}

/// A breaker replaced by another product while open is closed from then:
/// its strip and the log say so.
#[test]
fn a_breaker_replaced_while_open_is_logged_closed() {
    let scenario = dead_server(json!({"sliding_window_size": 5, "minimum_number_of_calls": 5}));
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 5.0);
    let b = idx(&sim, "b");
    assert_eq!(sim.breaker(b).map(|x| x.0), Some(State::Open));
    let nginx = serde_json::from_value(json!({"kind": "product_limiter", "product": "nginx_limit_conn", "conn": 5})).unwrap();
    sim.reconfigure("b", nginx).unwrap();
    run_checked(&mut sim, 10.0);
    let last = sim.transitions().entries().rfind(|t| t.node == b).unwrap();
    assert_eq!((last.from, last.to), (State::Open, State::Closed));
    assert_eq!(sim.state_times(b).unwrap().state(), State::Closed);
}
