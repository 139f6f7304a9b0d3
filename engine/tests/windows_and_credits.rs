//! The teaching claims of Exon's windows and credits (MECHANISMS.md §3).

mod support;

use serde_json::{json, Value};
use sluice_engine::Simulation;
use support::*;

fn producer(id: &str, rate: f64, destination: &str) -> Value {
    json!({"id": id, "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate},
           "classes": [{"name": id, "destination": destination}]})
}

fn consumer(id: &str, service_s: f64) -> Value {
    json!({"id": id, "kind": "consumer", "service_time": {"dist": "fixed", "value": service_s}})
}

/// Two producers, one per destination, send through one window to a fast
/// and a slow receiver.
fn two_destinations(scope: &str, opens_on: &str) -> Simulation {
    let scenario = graph(
        vec![
            producer("to_fast", 100.0, "fast"),
            producer("to_slow", 100.0, "slow"),
            json!({"id": "window", "kind": "window", "max_messages": 10, "scope": scope, "opens_on": opens_on}),
            json!({"id": "router", "kind": "router", "policy": "by_destination"}),
            json!({"id": "fast_queue", "kind": "queue"}),
            json!({"id": "slow_queue", "kind": "queue"}),
            consumer("fast", 0.001),
            consumer("slow", 0.05),
        ],
        &[
            ("to_fast", "window"),
            ("to_slow", "window"),
            ("window", "router"),
            ("router", "fast_queue"),
            ("router", "slow_queue"),
            ("fast_queue", "fast"),
            ("slow_queue", "slow"),
        ],
    );
    let mut sim = Simulation::new(scenario, 11).unwrap();
    run_checked(&mut sim, 60.0);
    sim
}

/// The flaw with the note's own window, which a receipt opens: a far
/// destination (half a second of latency, 1 ms to process) holds the
/// shared window with messages on their way, and the near one starves.
/// Changing the scope while running keeps every count exact: messages sent
/// under the old scope release the scopes they belong to.
#[test]
fn receipts_from_a_far_destination_throttle_a_shared_window_and_a_change_of_scope_keeps_counts() {
    let scenario = sluice_engine::Scenario::from_json(include_str!("../../scenarios/shared-window.json")).unwrap();
    let mut sim = Simulation::new(scenario, 5).unwrap();
    run_checked(&mut sim, 30.0);
    let fast = sim.report().nodes["fast"].departed as f64 / 30.0;
    assert!((15.0..25.0).contains(&fast), "shared, on receipt: {fast}/s");
    let mut block = sim.scenario().nodes[idx(&sim, "window")].block.clone();
    if let sluice_engine::scenario::BlockSpec::Window(w) = &mut block {
        w.scope = sluice_engine::blocks::window::Scope::PerDestination;
    }
    sim.reconfigure("window", block).unwrap();
    let (fast_before, far_before) = (sim.report().nodes["fast"].departed, sim.report().nodes["far"].departed);
    run_checked(&mut sim, 60.0);
    let far = (sim.report().nodes["far"].departed - far_before) as f64 / 30.0;
    let fast = (sim.report().nodes["fast"].departed - fast_before) as f64 / 30.0;
    // Its own window of 10, each held half a second: 20 a second, not more
    // (a scope change once let old receipts free new places: 39.5/s).
    assert!((19.0..=20.5).contains(&far), "far, per destination: {far}/s");
    assert!(fast > 90.0, "fast, per destination: {fast}/s");
    assert!(max_depth(&sim, "window") <= 20);
}

#[test]
fn a_shared_window_lets_a_slow_destination_throttle_a_fast_one() {
    let shared = two_destinations("shared", "processing");
    let separate = two_destinations("per_destination", "processing");
    let fast_shared = shared.report().nodes["fast"].departed as f64 / 60.0;
    let fast_separate = separate.report().nodes["fast"].departed as f64 / 60.0;
    // Per destination, the fast receiver gets all its producer makes.
    assert!((fast_separate - 100.0).abs() < 8.0, "per destination: {fast_separate}/s");
    // Shared, it is held to about the slow receiver's pace (20/s): each
    // slot the slow receiver frees goes to the two senders in turn, so the
    // fast one is neither let through nor starved.
    assert!((15.0..25.0).contains(&fast_shared), "shared: {fast_shared}/s");
    // The window never had more than 10 in flight.
    assert!(max_depth(&shared, "window") <= 10);
    assert!(max_depth(&separate, "window") <= 20);
}

#[test]
fn a_window_that_opens_on_receipt_lets_the_backlog_grow() {
    let on_receipt = two_destinations("shared", "receipt");
    let on_processing = two_destinations("shared", "processing");
    // On receipt the window reopens as soon as the slow queue takes a
    // message, so the queue grows by about 80 a second.
    let grown = on_receipt.report().nodes["slow_queue"].depth_messages;
    assert!(grown > 3000, "slow queue on receipt: {grown}");
    // On processing, what waits at the slow receiver is bounded by the window.
    assert!(max_depth(&on_processing, "slow_queue") <= 10);
}

/// Senders A (fast) and B (slow) share a receiver queue, each through its
/// own window; the receiver passes each message to a sink per sender.
fn node_level(opens_on: &str) -> (f64, f64) {
    let scenario = graph(
        vec![
            json!({"id": "a", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1000}, "classes": [{"name": "a"}]}),
            json!({"id": "b", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50}, "classes": [{"name": "b"}]}),
            json!({"id": "window_a", "kind": "window", "max_messages": 5, "opens_on": opens_on}),
            json!({"id": "window_b", "kind": "window", "max_messages": 5, "opens_on": opens_on}),
            json!({"id": "inbound", "kind": "queue"}),
            json!({"id": "receiver", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.005}}),
            json!({"id": "split", "kind": "router", "policy": "by_class", "classes": {"a": "done_a", "b": "done_b"}}),
            consumer("done_a", 0.0),
            consumer("done_b", 0.0),
        ],
        &[
            ("a", "window_a"),
            ("b", "window_b"),
            ("window_a", "inbound"),
            ("window_b", "inbound"),
            ("inbound", "receiver"),
            ("receiver", "split"),
            ("split", "done_a"),
            ("split", "done_b"),
        ],
    );
    let mut sim = Simulation::new(scenario, 5).unwrap();
    run_checked(&mut sim, 60.0);
    let r = sim.report();
    (r.nodes["done_a"].departed as f64 / 60.0, r.nodes["done_b"].departed as f64 / 60.0)
}

#[test]
fn limiting_by_processed_not_received_restores_fairness() {
    // The receiver serves 200/s; A sends 1000/s, B 50/s. Windows that open
    // on receipt let A fill the inbound queue: B is served in proportion to
    // what it sends, 50/1050 of 200/s, about 10/s.
    let (_, b_on_receipt) = node_level("receipt");
    assert!(b_on_receipt < 20.0, "slow sender on receipt: {b_on_receipt}/s");
    // Limiting by what the receiver processed leaves each sender at most 5
    // waiting, so B gets all it asks for and A the rest.
    let (a, b) = node_level("processing");
    assert!(b > 45.0, "slow sender on processing: {b}/s");
    assert!(a > 135.0, "fast sender gets the rest: {a}/s");
}

fn credit_scenario(implicit: bool) -> sluice_engine::Scenario {
    graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 10}}),
            json!({"id": "credit", "kind": "credit", "initial_credit": 5, "implicit_single_credit": implicit,
                   "grant_latency_s": 0.05}),
            json!({"id": "q", "kind": "queue"}),
            consumer("c", 0.001),
        ],
        &[("p", "credit"), ("credit", "q"), ("q", "c")],
    )
}

#[test]
fn the_implicit_single_credit_saves_the_handshake() {
    // The first message is made at 0.1 s.
    let mut implicit = Simulation::new(credit_scenario(true), 1).unwrap();
    run_checked(&mut implicit, 0.12);
    assert_eq!(implicit.totals().delivered, 1, "sent on the implicit credit at once");
    let mut handshake = Simulation::new(credit_scenario(false), 1).unwrap();
    run_checked(&mut handshake, 0.12);
    assert_eq!(handshake.totals().delivered, 0, "waits for the CONNACK");
    run_checked(&mut handshake, 0.16);
    assert_eq!(handshake.totals().delivered, 1, "sent when the CONNACK brought credit, at 0.15 s");
}

#[test]
fn credit_bounds_what_waits_at_the_receiver() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 500}}),
            json!({"id": "credit", "kind": "credit", "initial_credit": 8, "grant_batch": 2, "grant_latency_s": 0.01}),
            json!({"id": "q", "kind": "queue"}),
            consumer("c", 0.01),
        ],
        &[("p", "credit"), ("credit", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 3).unwrap();
    run_checked(&mut sim, 30.0);
    // Never more than the credit issued can wait at the receiver.
    assert!(max_depth(&sim, "q") <= 8, "{}", max_depth(&sim, "q"));
    // Grants keep it busy: close to its 100/s.
    let rate = sim.totals().delivered as f64 / 30.0;
    assert!(rate > 90.0, "{rate}/s");
}

#[test]
fn an_idle_peer_closes_and_its_next_message_is_a_first_contact_again() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": [0.0, 0.1, 2.0]}}),
            json!({"id": "credit", "kind": "credit", "initial_credit": 4, "grant_latency_s": 0.05,
                   "close_after_idle_s": 0.5}),
            consumer("c", 0.001),
        ],
        &[("p", "credit"), ("credit", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 0.04);
    assert_eq!(sim.totals().delivered, 0, "waits for the CONNACK");
    run_checked(&mut sim, 0.2);
    assert_eq!(sim.totals().delivered, 2, "the second goes at once");
    run_checked(&mut sim, 2.04);
    assert_eq!(sim.totals().delivered, 2, "the peer closed when idle: CONNECT again");
    run_checked(&mut sim, 2.06);
    assert_eq!(sim.totals().delivered, 3);
}
