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
        w.scope = sluice_engine::scenario::Scope::PerDestination;
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
    run_checked(&mut handshake, 0.19);
    assert_eq!(handshake.totals().delivered, 0, "waits for the CONNACK, a round trip away");
    run_checked(&mut handshake, 0.21);
    // The first, made at 0.1 s, goes when the CONNACK brings credit (0.05 s
    // there and 0.05 s back); the second, due at 0.2 s, waited behind it
    // in the producer and goes with it.
    assert_eq!(handshake.totals().delivered, 2, "sent when the CONNACK brought credit at 0.2 s");
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

/// The most messages out at once between leaving `gate` and being
/// processed by `done`, counted from the messages themselves (not the
/// gate's own counter), looked at every 10 ms for `seconds`.
fn most_out(scenario: sluice_engine::Scenario, gate: &str, done: &str, seconds: u32) -> u64 {
    let mut sim = Simulation::new(scenario, 3).unwrap();
    let mut most = 0;
    for k in 1..=seconds * 100 {
        run_checked(&mut sim, k as f64 * 0.01);
        let r = sim.report();
        most = most.max(r.nodes[gate].departed - r.nodes[done].departed);
    }
    most
}

#[test]
fn a_window_per_destination_counts_every_class_to_one_destination_together() {
    // Two classes, both to one receiver, through a window of 5 per
    // destination opening on processing: counted from the messages, never
    // more than 5 are out to it at once, and 5 under load (a window keyed
    // by class would let 5 of each, 10).
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 500},
                   "classes": [{"name": "a", "destination": "rx"}, {"name": "b", "destination": "rx"}]}),
            json!({"id": "w", "kind": "window", "max_messages": 5, "scope": "per_destination", "opens_on": "processing"}),
            json!({"id": "rx", "kind": "consumer", "workers": 20, "service_time": {"dist": "fixed", "value": 0.05}}),
        ],
        &[("p", "w"), ("w", "rx")],
    );
    let most = most_out(scenario, "w", "rx", 10);
    assert_eq!(most, 5, "at most {most} out to one destination at once");
}

#[test]
fn a_credit_link_never_has_more_out_than_the_credit_it_issued() {
    // Counted from the messages themselves, not the block's counter: what
    // passed the credit link and the consumer has not processed is never
    // more than the initial credit of 8, and reaches it under load (a
    // grant one larger than its batch would let it creep up).
    for batch in [1, 2, 4, 8] {
        let scenario = graph(
            vec![
                json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 500}}),
                json!({"id": "credit", "kind": "credit", "initial_credit": 8, "grant_batch": batch, "grant_latency_s": 0.01}),
                json!({"id": "q", "kind": "queue"}),
                consumer("c", 0.01),
            ],
            &[("p", "credit"), ("credit", "q"), ("q", "c")],
        );
        let most = most_out(scenario, "credit", "c", 20);
        assert_eq!(most, 8, "grant batch {batch}: at most {most} out at once");
    }
}

#[test]
fn an_idle_peer_closes_and_its_next_message_is_a_first_contact_again() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": [0.0, 0.15, 2.0]}}),
            json!({"id": "credit", "kind": "credit", "initial_credit": 4, "grant_latency_s": 0.05,
                   "close_after_idle_s": 0.5}),
            consumer("c", 0.001),
        ],
        &[("p", "credit"), ("credit", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 0.09);
    assert_eq!(sim.totals().delivered, 0, "waits for the CONNACK, a round trip of 0.1 s");
    run_checked(&mut sim, 0.2);
    assert_eq!(sim.totals().delivered, 2, "the second goes at once");
    run_checked(&mut sim, 2.09);
    assert_eq!(sim.totals().delivered, 2, "the peer closed when idle: CONNECT again");
    run_checked(&mut sim, 2.11);
    assert_eq!(sim.totals().delivered, 3);
}

/// A sender whose window (`window` messages) opens when its receipts are
/// read by a receive loop (`reader`, 4 ms a read) that, with `peers`, also
/// reads the node's own inbound messages, 200 a second; returns the
/// simulation after 60 s.
fn receipts_read_with_messages(window: u64, peers: bool, reader: Value) -> Simulation {
    let mut reader = reader;
    reader["id"] = json!("reader");
    reader["kind"] = json!("dispatcher");
    reader["service_time"] = json!({"dist": "fixed", "value": 0.004});
    let mut nodes = vec![
        json!({"id": "sender", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200}}),
        json!({"id": "window", "kind": "window", "max_messages": window, "ack_latency_s": 0.01,
               "receipts": {"to": "reader", "retransmit_after_s": 0.2}}),
        json!({"id": "receiver", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0.001}}),
        reader,
    ];
    let mut edges = vec![("sender", "window"), ("window", "receiver")];
    if peers {
        nodes.push(json!({"id": "peers", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200},
                          "classes": [{"name": "peer"}]}));
        edges.push(("peers", "reader"));
    }
    let mut sim = Simulation::new(graph(nodes, &edges), 5).unwrap();
    run_checked(&mut sim, 60.0);
    sim
}

/// The window "window" now: the copies it retransmitted (and their
/// bytes), and the messages it counts in flight.
fn window_of(sim: &Simulation) -> WindowNow {
    let i = sim.scenario().node_index("window").unwrap();
    match &sim.nodes()[i] {
        sluice_engine::Node::Window(w) => WindowNow { retransmitted: w.retransmitted(), in_flight: w.in_flight().messages },
        _ => unreachable!(),
    }
}

struct WindowNow {
    retransmitted: (u64, u64),
    in_flight: u64,
}

#[test]
fn a_full_receipt_queue_refuses_the_ack_and_the_message_is_sent_again() {
    // The receive loop reads 250 items a second; receipts and the node's
    // own messages each come at up to 200 a second. Two queues of 20, read
    // in turn: each kind gets its half when both wait. The window lets 50
    // be unread, more than the receipt queue holds.
    let sim = receipts_read_with_messages(50, true, json!({"queues": "per_class", "discipline": "alternate", "capacity": 20, "on_full": "refuse"}));
    let r = sim.report();
    let (retransmitted, bytes) = window_of(&sim).retransmitted;
    // The receipt queue fills: ACKs are refused and messages sent again,
    // wasting bandwidth...
    assert!(retransmitted > 500, "retransmitted {retransmitted}");
    assert_eq!(bytes, retransmitted * 1000);
    // ...but nothing deadlocks: the window moves at the pace receipts are
    // read, about half the reads, and the node's own messages get the
    // other half.
    let sent = r.nodes["receiver"].departed as f64 / 60.0;
    let peers_read = r.nodes["reader"].departed as f64 / 60.0 - sent;
    assert!(sent > 100.0 && sent < 135.0, "sent {sent}/s");
    assert!(peers_read > 100.0, "peer messages read {peers_read}/s");
    assert!(max_depth(&sim, "window") <= 50);
}

#[test]
fn a_receipt_opens_the_window_only_once_read() {
    // Receipts alone, read 250 a second, with room for all: no ACK is
    // refused, the sender's 200 a second get through, and what the window
    // let through is exactly what it still counts plus the receipts read.
    let sim = receipts_read_with_messages(10, false, json!({}));
    let r = sim.report();
    let w = window_of(&sim);
    assert_eq!(w.retransmitted, (0, 0));
    assert_eq!(r.nodes["window"].departed - w.in_flight, r.nodes["reader"].departed);
    assert!(r.nodes["receiver"].departed > 190 * 60);
    // Read more slowly than messages come (one per 10 ms), the receipts
    // hold the window: the sender gets 100 a second through, though the
    // receiver is idle most of the time.
    let mut slow = receipts_read_with_messages(10, false, json!({}));
    let mut spec = slow.scenario().nodes[3].block.clone();
    if let sluice_engine::BlockSpec::Dispatcher(d) = &mut spec {
        d.service_time = sluice_engine::scenario::Distribution::Fixed { value: 0.01 };
    }
    slow.reconfigure("reader", spec).unwrap();
    let before = slow.report().nodes["receiver"].departed;
    run_checked(&mut slow, 120.0);
    let rate = (slow.report().nodes["receiver"].departed - before) as f64 / 60.0;
    assert!(rate > 95.0 && rate <= 101.0, "{rate}/s");
}

/// As `receipts_read_with_messages` with the peers, the window's messages
/// crossing a wire of `bandwidth` bytes a second (10 ms latency) to the
/// receiver; after 60 s.
fn receipts_over_a_wire(bandwidth: f64) -> Simulation {
    let nodes = vec![
        json!({"id": "sender", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200}}),
        json!({"id": "window", "kind": "window", "max_messages": 50, "ack_latency_s": 0.01,
               "receipts": {"to": "reader", "retransmit_after_s": 0.2}}),
        json!({"id": "wire", "kind": "link", "bandwidth_bytes_per_s": bandwidth, "latency_s": 0.01}),
        json!({"id": "receiver", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0.001}}),
        json!({"id": "reader", "kind": "dispatcher", "queues": "per_class", "discipline": "alternate", "capacity": 20,
               "on_full": "refuse", "service_time": {"dist": "fixed", "value": 0.004}}),
        json!({"id": "peers", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200}, "classes": [{"name": "peer"}]}),
    ];
    let edges = [("sender", "window"), ("window", "wire"), ("wire", "receiver"), ("peers", "reader")];
    let mut sim = Simulation::new(graph(nodes, &edges), 5).unwrap();
    run_checked(&mut sim, 60.0);
    sim
}

fn wire_copies(sim: &Simulation) -> u64 {
    match &sim.nodes()[idx(sim, "wire")] {
        sluice_engine::Node::Link(l) => l.retransmitted(),
        _ => unreachable!(),
    }
}

#[test]
fn a_retransmitted_message_crosses_the_wire_again_and_takes_its_bandwidth() {
    // A fast wire (1,000 messages a second): every ACK refused puts one
    // copy on it again, 0.2 s later (a few may still wait at the end).
    let fast = receipts_over_a_wire(1_000_000.0);
    let (refused, _) = window_of(&fast).retransmitted;
    let copies = wire_copies(&fast);
    assert!(refused > 500, "refused ACKs {refused}");
    assert!(copies <= refused && refused - copies <= 60, "{copies} copies for {refused} refused ACKs");
    // The copy is not delivered: the receiver got each message once.
    let r = fast.report();
    assert_eq!(r.nodes["wire"].departed, r.nodes["receiver"].arrived);
    // A wire of 150 messages a second: what it carries, new messages and
    // copies together, stays within its bandwidth, and each copy takes the
    // place of a message the sender waits to send.
    let slow = receipts_over_a_wire(150_000.0);
    let r = slow.report();
    let copies = wire_copies(&slow) as f64 / 60.0;
    let delivered = r.nodes["wire"].departed as f64 / 60.0;
    assert!(copies > 5.0, "{copies} copies a second");
    assert!(delivered + copies <= 150.5, "the wire carried {delivered} + {copies} a second");
    assert!(delivered + copies > 140.0, "the wire is the bottleneck: {delivered} + {copies}");
}

#[test]
fn the_fastest_sender_keeps_a_bounded_queue_full_in_a_steady_state() {
    // Lesson 6: a bounded inbound queue that refuses when full. Windows
    // opening on receipt let the fast sender keep it full, so the slow
    // sender's messages wait behind 100 others, about 0.5 s (100 at 200 a
    // second), and that wait is the same whether one watches 30 s or 300 s.
    let scenario = sluice_engine::Scenario::from_json(include_str!("../../scenarios/fastest-sender.json")).unwrap();
    let mut sim = Simulation::new(scenario, 3).unwrap();
    run_checked(&mut sim, 30.0);
    let early = sim.report().nodes["slow_done"].clone();
    run_checked(&mut sim, 300.0);
    let late = sim.report().nodes["slow_done"].clone();
    let wait_early = early.mean_sojourn_s.unwrap();
    let wait_late = late.mean_sojourn_s.unwrap();
    assert!((0.4..0.7).contains(&wait_early), "{wait_early}");
    assert!((wait_late / wait_early - 1.0).abs() < 0.1, "the wait grew: {wait_early} s at 30 s, {wait_late} s at 300 s");
    let slow = (late.departed - early.departed) as f64 / 270.0;
    assert!((40.0..=51.0).contains(&slow), "{slow}/s");
    assert_eq!(sim.report().nodes["inbound"].dropped_total, 0);
}

#[test]
fn a_copy_sent_again_is_acknowledged_by_the_window_that_sent_it_alone() {
    // A window counting until processing (5 at most) before a window with
    // receipts whose ACKs the receive loop often refuses: each copy sent
    // again over the wire is acknowledged to the receipts window only. The
    // first window's count stays exact: what passed it and was not yet
    // processed (an extra acknowledgement once made it count too few, and
    // let more than 5 through).
    let nodes = vec![
        json!({"id": "sender", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200}}),
        json!({"id": "outer", "kind": "window", "max_messages": 5, "opens_on": "processing"}),
        json!({"id": "window", "kind": "window", "max_messages": 50, "ack_latency_s": 0.01,
               "receipts": {"to": "reader", "retransmit_after_s": 0.05}}),
        json!({"id": "wire", "kind": "link", "bandwidth_bytes_per_s": 1_000_000, "latency_s": 0.01}),
        json!({"id": "receiver", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0.001}}),
        json!({"id": "reader", "kind": "dispatcher", "queues": "per_class", "discipline": "alternate", "capacity": 2,
               "on_full": "refuse", "service_time": {"dist": "fixed", "value": 0.004}}),
        json!({"id": "peers", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200}, "classes": [{"name": "peer"}]}),
    ];
    let edges = [("sender", "outer"), ("outer", "window"), ("window", "wire"), ("wire", "receiver"), ("peers", "reader")];
    let mut sim = Simulation::new(graph(nodes, &edges), 5).unwrap();
    for t in 1..=30 {
        run_checked(&mut sim, t as f64);
        let r = sim.report();
        let outer = match &sim.nodes()[idx(&sim, "outer")] {
            sluice_engine::Node::Window(w) => w.in_flight().messages,
            _ => unreachable!(),
        };
        let past = r.nodes["outer"].departed - r.nodes["receiver"].departed;
        assert_eq!(outer, past, "at {t} s the outer window counts {outer}, {past} are past it unprocessed");
        assert!(outer <= 5);
    }
    assert!(wire_copies(&sim) > 20, "{} copies", wire_copies(&sim));
}
