//! The send-queue behaviour of MECHANISMS.md §1, as a user watches it.

mod support;

use sluice_engine::{Cause, State};
use serde_json::json;
use sluice_engine::{BlockSpec, Node, Simulation};
use support::*;

fn fast_video_slow_client(backpressure: &str) -> sluice_engine::Scenario {
    pipeline(
        json!({
            "arrivals": {"process": "poisson", "rate_per_s": 400},
            "classes": [
                {"name": "video", "weight": 1, "size": {"dist": "fixed", "value": 1000}, "droppable": true},
                {"name": "audio", "weight": 1, "size": {"dist": "fixed", "value": 100}}
            ],
            "backpressure": backpressure
        }),
        json!({"soft_limit": {"messages": 20}, "hard_limit": {"messages": 40}, "reconnect_after_s": 0.5}),
        json!({"workers": 1, "service_time": {"dist": "exponential", "mean": 0.01}}),
    )
}

/// `fast_video_slow_client`'s stream and queue, sending through a socket
/// that takes 100 kB/s of the 220 offered, to a client that reads at once:
/// writes block, so the queue thins.
fn fast_video_through_a_socket() -> sluice_engine::Scenario {
    let mut doc = serde_json::to_value(fast_video_slow_client("ignore")).unwrap();
    doc["nodes"][2] = json!({"id": "c", "kind": "consumer", "workers": 8, "service_time": {"dist": "fixed", "value": 0}});
    doc["nodes"].as_array_mut().unwrap().push(json!({"id": "socket", "kind": "link", "bandwidth_bytes_per_s": 100_000,
        "latency_s": 0.01, "buffer": {"bytes": 8000}}));
    doc["edges"] = json!([{"from": "p", "to": "q"}, {"from": "q", "to": "socket"}, {"from": "socket", "to": "c"}]);
    sluice_engine::Scenario::from_value(doc).unwrap()
}

/// The queue (node 1): its send state and its length.
fn queue(sim: &Simulation) -> QueueNow {
    match &sim.nodes()[1] {
        Node::Queue(q) => QueueNow { state: q.state(), len: q.len() },
        _ => panic!("node 1 is the queue"),
    }
}

struct QueueNow {
    state: sluice_engine::SendState,
    len: usize,
}

impl QueueNow {
    fn state(&self) -> sluice_engine::SendState {
        self.state
    }

    fn len(&self) -> usize {
        self.len
    }
}

/// stream → sender → socket → client: the socket is a link whose send
/// buffer of `buffer_bytes` drains at `bytes_per_s`, the client reads at
/// once. Video frames (1000 bytes, droppable) and audio (100 bytes) in
/// equal numbers, `rate` a second.
fn through_a_socket(rate: f64, bytes_per_s: f64, buffer_bytes: u64) -> sluice_engine::Scenario {
    graph(
        vec![
            json!({"id": "stream", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate},
                   "classes": [
                       {"name": "video", "size": {"dist": "fixed", "value": 1000}, "droppable": true},
                       {"name": "audio", "size": {"dist": "fixed", "value": 100}}],
                   "backpressure": "ignore"}),
            json!({"id": "sender", "kind": "queue", "soft_limit": {"messages": 200}, "hard_limit": {"messages": 400}}),
            json!({"id": "socket", "kind": "link", "bandwidth_bytes_per_s": bytes_per_s, "latency_s": 0.01,
                   "buffer": {"bytes": buffer_bytes}}),
            json!({"id": "client", "kind": "consumer", "workers": 8, "service_time": {"dist": "fixed", "value": 0}}),
        ],
        &[("stream", "sender"), ("sender", "socket"), ("socket", "client")],
    )
}

#[test]
fn overloaded_queue_thins_video_and_keeps_audio() {
    // 400 a second offer 220 kB/s to a network that takes 100 kB/s.
    let mut sim = Simulation::new(through_a_socket(400.0, 100_000.0, 8_000), 3).unwrap();
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    let q = &r.nodes["sender"];
    assert!(q.dropped.get("thinned").copied().unwrap_or(0) > 1000, "{q:?}");
    // Every drop was a thinned (droppable) message: audio was never dropped.
    assert_eq!(q.dropped_total, q.dropped["thinned"]);
    // A thinned message reached the queue: it counts as arrived.
    assert_eq!(q.arrived, q.departed + q.dropped_total + q.depth_messages, "{q:?}");
    // Each entry into Overloaded is a write the socket refused.
    let into: Vec<_> = sim.transitions().entries().filter(|t| t.to == State::Overloaded).collect();
    assert!(!into.is_empty());
    assert!(into.iter().all(|t| t.from == State::Ready && t.cause == Cause::WouldBlock), "{:?}", into.first());
}

#[test]
fn a_queue_without_a_socket_never_thins() {
    // Four times its service rate on a queue that feeds its consumer straight: it reaches its
    // soft limit and pauses nothing (the stream ignores backpressure), but
    // no write ever blocks, so it never turns Overloaded and thins nothing:
    // thinning is the reaction to a write that would block.
    let mut sim = Simulation::new(fast_video_slow_client("ignore"), 3).unwrap();
    run_checked(&mut sim, 60.0);
    let r = sim.report();
    assert!(sim.transitions().entries().any(|t| t.to == State::SoftLimit));
    assert!(sim.transitions().entries().all(|t| t.to != State::Overloaded));
    assert_eq!(r.nodes["q"].dropped.get("thinned").copied().unwrap_or(0), 0, "{:?}", r.nodes["q"]);
}

#[test]
fn at_light_load_the_socket_never_blocks_and_nothing_is_thinned() {
    // The same stream, 22 kB/s, into a 1 MB/s network with a 16 kB buffer.
    let mut sim = Simulation::new(through_a_socket(40.0, 1_000_000.0, 16_000), 3).unwrap();
    run_checked(&mut sim, 60.0);
    let r = sim.report();
    assert_eq!(r.nodes["sender"].dropped_total, 0);
    assert!(sim.transitions().entries().all(|t| t.to != State::Overloaded));
    assert!(r.nodes["client"].departed > 2000);
}

/// A consumer busy with the last message is not a socket that would
/// block: at 30% load a queue wired straight to one worker thins nothing
/// (it once thinned 43% of the video, Overloaded whenever the worker
/// served).
#[test]
fn a_busy_consumer_is_not_a_socket_that_would_block() {
    let scenario = pipeline(
        json!({"arrivals": {"process": "poisson", "rate_per_s": 30},
               "classes": [{"name": "video", "droppable": true}, {"name": "audio"}]}),
        json!({"soft_limit": {"messages": 50}, "hard_limit": {"messages": 100}}),
        json!({"workers": 1, "service_time": {"dist": "exponential", "mean": 0.01}}),
    );
    let mut sim = Simulation::new(scenario, 4).unwrap();
    run_checked(&mut sim, 100.0);
    assert_eq!(sim.report().nodes["q"].dropped_total, 0);
    assert!(sim.transitions().entries().all(|t| t.to != State::Overloaded));
    // It did wait for the worker: messages queued.
    assert!(max_depth(&sim, "q") >= 2);
}

#[test]
fn soft_limit_pauses_the_producer_and_the_pause_lifts_after_sends() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 5).unwrap();
    run_checked(&mut sim, 30.0);
    let soft_entries = sim.transitions().entries().filter(|t| t.to == State::SoftLimit).count();
    let soft_exits = sim.transitions().entries().filter(|t| t.from == State::SoftLimit).count();
    assert!(soft_entries > 3 && soft_exits > 3, "entries {soft_entries}, exits {soft_exits}");
    // A pausing producer never lets the queue reach the hard limit.
    assert!(sim.transitions().entries().all(|t| t.to != State::HardLimit));
    assert_eq!(sim.report().nodes["q"].disconnects, Some(0));
    // Every move to a less severe state was caused by a send.
    let order = ["Ready", "Overloaded", "SoftLimit", "HardLimit"];
    let rank = |s: &str| order.iter().position(|o| *o == s).unwrap();
    for t in sim.transitions().entries() {
        if rank(t.to.as_str()) < rank(t.from.as_str()) {
            assert_eq!(t.cause, Cause::Send, "{t:?}");
        }
    }
}

#[test]
fn paused_producer_makes_nothing_while_paused() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 5).unwrap();
    // Run until the queue first reaches SoftLimit.
    while sim.transitions().entries().all(|t| t.to != State::SoftLimit) {
        assert!(sim.step());
    }
    let produced = sim.report().nodes["p"].arrived;
    assert_eq!(sim.report().nodes["p"].paused, Some(true));
    // Nothing has been sent since, so the queue is still at SoftLimit and the
    // producer has made nothing new.
    let q = queue(&sim);
    assert_eq!(q.state(), sluice_engine::SendState::SoftLimit);
    let t = sim.now();
    while sim.next_event_time().is_some() && queue(&sim).state() == sluice_engine::SendState::SoftLimit {
        sim.step();
    }
    assert!(sim.now() > t);
    assert_eq!(sim.report().nodes["p"].arrived, produced);
}

#[test]
fn ignoring_producer_drives_the_queue_to_hard_limit_and_disconnect() {
    let mut sim = Simulation::new(fast_video_slow_client("ignore"), 9).unwrap();
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    let q = &r.nodes["q"];
    assert!(q.disconnects.unwrap() > 0, "{q:?}");
    assert!(q.dropped["disconnect"] > 0);
    assert!(q.dropped["disconnected"] > 0, "arrivals while disconnected are dropped");
    // Every message that reached it is counted once: sent on, dropped
    // (arriving while disconnected too), or still there.
    assert_eq!(q.arrived, q.departed + q.dropped_total + q.depth_messages, "{q:?}");
    let entries: Vec<_> = sim.transitions().entries().collect();
    let hard = entries.iter().position(|t| t.to == State::HardLimit).expect("reached HardLimit");
    let next = entries[hard + 1];
    assert_eq!((next.from.as_str(), next.to.as_str(), next.cause.as_str()), ("HardLimit", "Ready", "new client connected"));
    assert!((next.time.as_secs_f64() - entries[hard].time.as_secs_f64() - 0.5).abs() < 1e-9);
}

#[test]
fn lowering_the_soft_limit_while_running_applies_at_once() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 11).unwrap();
    // Wait until a few messages are queued (well below the soft limit of 20).
    while queue(&sim).len() < 3 {
        sim.step();
    }
    let depth = queue(&sim).len() as u64;
    assert!(queue(&sim).state() < sluice_engine::SendState::SoftLimit);
    let BlockSpec::Queue(mut spec) = sim.scenario().nodes[1].block.clone() else { unreachable!() };
    spec.soft_limit.messages = depth;
    sim.reconfigure("q", BlockSpec::Queue(spec)).unwrap();
    assert_eq!(queue(&sim).state(), sluice_engine::SendState::SoftLimit);
    assert_eq!(sim.report().nodes["p"].paused, Some(true));
    let last = sim.transitions().entries().last().unwrap();
    assert_eq!(last.cause, Cause::ThresholdsChanged);
    sim.check_conservation().unwrap();
}

#[test]
fn an_invalid_change_while_running_changes_nothing() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 11).unwrap();
    sim.run_until(secs(1.0)).expect("the run ends");
    let before = sim.scenario().clone();
    let BlockSpec::Queue(mut spec) = before.nodes[1].block.clone() else { unreachable!() };
    spec.soft_limit.messages = 1000;
    let err = sim.reconfigure("q", BlockSpec::Queue(spec)).unwrap_err();
    assert_eq!(err.to_string(), "nodes[1].soft_limit.messages: must not exceed hard_limit.messages (1000 > 40)");
    assert_eq!(sim.scenario(), &before);
    let err = sim.reconfigure("c", before.nodes[0].block.clone()).unwrap_err();
    assert!(err.to_string().contains("cannot become"), "{err}");
}

#[test]
fn byte_thresholds_trigger_on_their_own() {
    let scenario = pipeline(
        json!({"arrivals": {"process": "constant", "rate_per_s": 1000},
               "classes": [{"name": "big", "size": {"dist": "fixed", "value": 10000}}]}),
        json!({"soft_limit": {"bytes": 50000}, "hard_limit": {"messages": 1000}}),
        json!({"service_time": {"dist": "fixed", "value": 0.01}}),
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 2.0);
    assert!(sim.transitions().entries().any(|t| t.to == State::SoftLimit));
    // Paused at five messages of 10 kB: the queue never holds much more.
    let series = sim.stats(1).depth_series.points(sim.now());
    assert!(series.iter().all(|p| p.max <= 6), "{:?}", series.iter().map(|p| p.max).max());
}

#[test]
fn a_queue_thinned_to_empty_does_not_leave_its_producer_paused() {
    // Soft limit 1 and mostly droppable traffic: one video frame takes the
    // queue from Ready to SoftLimit, and thinning then empties it.
    // The queue sends through a socket whose writes block (thinning is the
    // reaction to a write that would block).
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 300},
                   "classes": [{"name": "video", "weight": 9, "droppable": true}, {"name": "audio", "weight": 1}]}),
            json!({"id": "q", "kind": "queue", "soft_limit": {"messages": 1}, "hard_limit": {"messages": 100}}),
            json!({"id": "socket", "kind": "link", "bandwidth_bytes_per_s": 125_000, "buffer": {"bytes": 2000}}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.001}}),
        ],
        &[("p", "q"), ("q", "socket"), ("socket", "c")],
    );
    let mut sim = Simulation::new(scenario, 4).unwrap();
    run_checked(&mut sim, 20.0);
    // The producer keeps going: it is stopped only while something is queued.
    assert!(sim.report().nodes["p"].arrived > 2000, "{:?}", sim.report().nodes["p"]);
    assert!(sim.transitions().entries().any(|t| t.cause == Cause::Emptied));
}

#[test]
fn a_class_can_be_urgent_for_one_receiver_and_not_another() {
    // The same class, "update", is sent to Alice and Bob; it is urgent
    // only for Alice. One busy server in front of both.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 95},
                   "classes": [{"name": "update", "destination": "alice"}, {"name": "update", "destination": "bob"}]}),
            json!({"id": "q", "kind": "queue", "order": "priority", "message_priorities": [
                {"class": "update", "priority": 5},
                {"class": "update", "destination": "alice", "priority": 0}
            ]}),
            json!({"id": "server", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.01}}),
            json!({"id": "to", "kind": "router", "policy": "by_destination"}),
            json!({"id": "alice", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.0}}),
            json!({"id": "bob", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.0}}),
        ],
        &[("p", "q"), ("q", "server"), ("server", "to"), ("to", "alice"), ("to", "bob")],
    );
    let mut sim = Simulation::new(scenario, 13).unwrap();
    run_checked(&mut sim, 600.0);
    let r = sim.report();
    let (alice, bob) = (r.nodes["alice"].mean_sojourn_s.unwrap(), r.nodes["bob"].mean_sojourn_s.unwrap());
    assert!(bob > 5.0 * alice, "alice {alice}, bob {bob}");
}

#[test]
fn priorities_must_name_real_classes_and_nodes() {
    let doc = json!({"version": 1, "nodes": [
        {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1}},
        {"id": "q", "kind": "queue", "order": "priority",
         "message_priorities": [{"class": "nope", "priority": 1}, {"class": "message", "destination": "zed", "priority": 1}]},
        {"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.1}}
    ], "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "c"}]});
    let e = sluice_engine::Scenario::from_value(doc).unwrap_err().to_string();
    assert!(e.contains("nodes[1].message_priorities[0].class: no producer has a class \"nope\""), "{e}");
    assert!(e.contains("nodes[1].message_priorities[1].destination: no node has the id \"zed\""), "{e}");
}

/// Half load, every message droppable, a socket that holds one message:
/// while one is on the wire the next is refused and the queue turns
/// Overloaded, thinning it to empty. Once the socket is writable, the
/// emptied queue must take the next message, send it, and so return to
/// Ready. It once stayed Overloaded with nothing in it, thinning every
/// arrival for ever: 1 of 5,970 delivered.
#[test]
fn an_emptied_overloaded_queue_sends_again_and_returns_to_ready() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 10},
                   "classes": [{"name": "video", "droppable": true, "size": {"dist": "fixed", "value": 1000}}]}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "socket", "kind": "link", "bandwidth_bytes_per_s": 20_000, "buffer": {"messages": 1}}),
            json!({"id": "c", "kind": "consumer", "workers": 4, "service_time": {"dist": "fixed", "value": 0}}),
        ],
        &[("p", "q"), ("q", "socket"), ("socket", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 600.0);
    let t = sim.totals();
    // A message is thinned only when it finds the socket busy: about a third.
    let delivered = t.delivered as f64 / t.produced as f64;
    assert!((0.55..0.78).contains(&delivered), "{t:?}");
    let readies = sim.transitions().entries().filter(|tr| tr.from == State::Overloaded && tr.to == State::Ready).count();
    assert!(readies > 100, "back to Ready after each send: {readies}");
    // Each return to Ready is caused by a send.
    assert!(sim.transitions().entries().filter(|tr| tr.to == State::Ready).all(|tr| tr.cause == Cause::Send));
}

/// A producer twice as fast as its client, a queue that pauses it at 20
/// and disconnects at 40, and `between` (blocks that hold nothing) on the
/// way from the one to the other.
fn pause_through(between: Vec<serde_json::Value>) -> sluice_engine::Scenario {
    let mut nodes = vec![
        json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200}}),
        json!({"id": "q", "kind": "queue", "soft_limit": {"messages": 20}, "hard_limit": {"messages": 40}}),
        json!({"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.01}}),
    ];
    let mut chain = vec!["p".to_string()];
    for b in &between {
        chain.push(b["id"].as_str().unwrap().to_string());
    }
    chain.extend(["q".to_string(), "c".to_string()]);
    nodes.extend(between);
    let edges: Vec<(&str, &str)> = chain.windows(2).map(|w| (w[0].as_str(), w[1].as_str())).collect();
    graph(nodes, &edges)
}

/// The soft limit's pause reaches the producer through a router, a
/// window, a rate limiter and a concurrency limiter, which hold nothing:
/// nobody is disconnected. (Through a router it once reached nobody: 13
/// disconnects in a minute.)
#[test]
fn a_pause_reaches_the_producer_through_blocks_that_hold_nothing() {
    let router = json!({"id": "r", "kind": "router", "policy": "round_robin"});
    let window = json!({"id": "w", "kind": "window", "max_messages": 1000, "opens_on": "processing"});
    let rate = json!({"id": "rl", "kind": "rate_limiter", "rules": [{"scheme": "anchored", "limit": 1000, "span_s": 1}]});
    let limiter = json!({"id": "cl", "kind": "concurrency_limiter", "max_in_flight": 1000});
    for between in [vec![router.clone()], vec![window.clone()], vec![router, window, rate, limiter]] {
        let names: Vec<String> = between.iter().map(|b| b["id"].to_string()).collect();
        let mut sim = Simulation::new(pause_through(between), 2).unwrap();
        run_checked(&mut sim, 60.0);
        let r = sim.report();
        assert_eq!(r.nodes["q"].disconnects, Some(0), "through {names:?}");
        assert!(sim.transitions().entries().filter(|t| t.to == State::SoftLimit).count() > 10, "through {names:?}");
        assert!(max_depth(&sim, "q") < 40, "through {names:?}");
    }
}

/// One producer reaching two queues through a router is paused while
/// either asks, and only then.
#[test]
fn a_producer_reached_by_two_queues_pauses_while_either_asks() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 100}}),
            json!({"id": "r", "kind": "router", "policy": "round_robin"}),
            json!({"id": "q1", "kind": "queue", "soft_limit": {"messages": 5}, "hard_limit": {"messages": 50}}),
            json!({"id": "q2", "kind": "queue", "soft_limit": {"messages": 5}, "hard_limit": {"messages": 50}}),
            json!({"id": "c1", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.001}}),
            json!({"id": "c2", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.001},
                   "outages": [{"from_s": 1, "to_s": 3}]}),
        ],
        &[("p", "r"), ("r", "q1"), ("r", "q2"), ("q1", "c1"), ("q2", "c2")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    let paused = |sim: &Simulation| sim.report().nodes["p"].paused == Some(true);
    run_checked(&mut sim, 2.0);
    // q2's client is out: q2 reached its soft limit and the producer stops,
    // though q1 is empty.
    assert!(paused(&sim));
    assert_eq!(sim.stats(idx(&sim, "q1")).depth_messages.value(), 0);
    run_checked(&mut sim, 4.0);
    // The client is back, q2 drained, and nothing asks any more.
    assert!(!paused(&sim));
    assert_eq!(sim.report().nodes["q2"].disconnects, Some(0));
}

/// `backpressure: drop`: while the pause lasts the producer keeps making
/// messages and discards them (`unanswered`, the ping requests a server at
/// its soft limit reads and does not answer); a `pause` producer beside it
/// stops, and an `ignore` one carries on.
#[test]
fn ping_requests_go_unanswered_while_the_client_is_not_read() {
    let scenario = graph(
        vec![
            json!({"id": "requests", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 100}}),
            json!({"id": "pings", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 20},
                   "backpressure": "drop"}),
            json!({"id": "stream", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50},
                   "backpressure": "ignore"}),
            json!({"id": "q", "kind": "queue", "soft_limit": {"messages": 20}, "hard_limit": {"messages": 400}}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.01}}),
        ],
        &[("requests", "q"), ("pings", "q"), ("stream", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 6).unwrap();
    run_checked(&mut sim, 60.0);
    let r = sim.report();
    let unanswered = r.nodes["pings"].dropped.get("unanswered").copied().unwrap_or(0);
    assert!(unanswered > 100, "{:?}", r.nodes["pings"]);
    // Nothing else is dropped, and the stream was never held back.
    assert_eq!(r.nodes["pings"].dropped_total, unanswered);
    assert_eq!(r.nodes["stream"].dropped_total, 0);
    let made = |id: &str| r.nodes[id].arrived as f64 / 60.0;
    assert!(made("stream") > 45.0, "{}", made("stream"));
    // The requests were paused for a good part of the run: what came due
    // meanwhile waited in the producer, made all the same and none lost.
    assert!((made("requests") - 100.0).abs() < 5.0, "{}", made("requests"));
    assert!(max_depth(&sim, "requests") > 10, "the paused requests never waited");
    assert_eq!(r.nodes["requests"].dropped_total, 0);
}

/// `resume_below` (an extension): a queue at its soft limit stays there
/// until a send takes it below the low-water mark, so the producer is
/// paused and resumed far less often than with the note's rule alone.
#[test]
fn a_low_water_mark_cuts_the_flapping_at_the_soft_limit() {
    let run = |queue: serde_json::Value| {
        let scenario = pipeline(
            json!({"arrivals": {"process": "poisson", "rate_per_s": 150}}),
            queue,
            json!({"workers": 1, "service_time": {"dist": "exponential", "mean": 0.01}}),
        );
        let mut sim = Simulation::new(scenario, 9).unwrap();
        run_checked(&mut sim, 60.0);
        let q = &sim.stats(idx(&sim, "q"));
        (q.entered(State::SoftLimit), sim.report().nodes["c"].departed)
    };
    let (flaps, served) = run(json!({"soft_limit": {"messages": 30}, "hard_limit": {"messages": 60}}));
    let (calm, served_calm) =
        run(json!({"soft_limit": {"messages": 30}, "hard_limit": {"messages": 60}, "resume_below": {"messages": 10}}));
    assert!(flaps > 1000, "the note's rule alone: {flaps} entries into SoftLimit");
    assert!(calm * 5 < flaps && calm > 10, "with the low-water mark: {calm} against {flaps}");
    // The client is kept busy either way.
    assert!(served_calm as f64 > 0.9 * served as f64, "{served_calm} against {served}");
}

#[test]
fn a_low_water_mark_above_the_soft_limit_is_refused() {
    let doc = json!({"version": 1, "nodes": [
        {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1}},
        {"id": "q", "kind": "queue", "soft_limit": {"messages": 10}, "resume_below": {"messages": 11}},
        {"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.1}}
    ], "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "c"}]});
    let e = sluice_engine::Scenario::from_value(doc).unwrap_err().to_string();
    assert!(e.contains("nodes[1].resume_below.messages: must not exceed soft_limit.messages (11 > 10)"), "{e}");
}

/// Changing the soft limit's reaction while the queue is there lifts the
/// pause at once (the state itself waits for a send, the request does not).
#[test]
fn a_new_reaction_lifts_or_asks_the_pause_at_once() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 11).unwrap();
    while queue(&sim).state() < sluice_engine::SendState::SoftLimit {
        sim.step();
    }
    assert_eq!(sim.report().nodes["p"].paused, Some(true));
    let BlockSpec::Queue(mut spec) = sim.scenario().nodes[1].block.clone() else { unreachable!() };
    spec.reactions.soft_limit = sluice_engine::scenario::Reaction::None;
    sim.reconfigure("q", BlockSpec::Queue(spec.clone())).unwrap();
    assert_eq!(sim.report().nodes["p"].paused, Some(false));
    spec.reactions.soft_limit = sluice_engine::scenario::Reaction::PauseInput;
    sim.reconfigure("q", BlockSpec::Queue(spec)).unwrap();
    assert_eq!(queue(&sim).state(), sluice_engine::SendState::SoftLimit);
    assert_eq!(sim.report().nodes["p"].paused, Some(true));
}

/// What a state strip draws: the time in each send state over a long run
/// whose transitions outnumber the log many times, counted in full; and the
/// thresholds as they were at each moment of it.
#[test]
fn a_long_runs_state_times_and_thresholds_keep_their_history() {
    let mut sim = Simulation::new(fast_video_through_a_socket(), 5).unwrap();
    // The time in each state, summed from every transition as it happens.
    let mut spent = [0.0f64; 4];
    let (mut state, mut since) = (sluice_engine::SendState::Ready, 0.0);
    let mut seen = sim.transitions().total();
    let mut lowered = false;
    while sim.now().as_secs_f64() < 300.0 {
        sim.step();
        let new = (sim.transitions().total() - seen) as usize;
        seen = sim.transitions().total();
        let entries: Vec<_> = sim.transitions().entries().collect();
        for t in &entries[entries.len() - new..] {
            if let (Some(from), Some(to)) = (t.from.send_state(), t.to.send_state()) {
                assert_eq!(from, state);
                spent[state as usize] += t.time.as_secs_f64() - since;
                (state, since) = (to, t.time.as_secs_f64());
            }
        }
        if !lowered && sim.now().as_secs_f64() >= 100.0 {
            let BlockSpec::Queue(mut spec) = sim.scenario().nodes[1].block.clone() else { unreachable!() };
            spec.soft_limit.messages = 5;
            sim.reconfigure("q", BlockSpec::Queue(spec)).unwrap();
            lowered = true;
        }
    }
    spent[state as usize] += sim.now().as_secs_f64() - since;
    assert!(sim.transitions().total() > 3 * sluice_engine::simulation::TRANSITION_LOG_CAPACITY as u64, "{} transitions", sim.transitions().total());
    let slots = sim.state_times(1).expect("the queue changed state").slots(sim.now());
    assert!(slots.len() <= sluice_engine::STATE_SLOTS);
    for (k, expected) in spent.iter().enumerate() {
        let got: f64 = slots.iter().map(|s| s.seconds[k]).sum();
        assert!((got - expected).abs() < 1e-6, "state {k}: {got} s in the slots, {expected} s from the transitions");
    }
    // 20 until 100 s, 5 from then on.
    let steps = sim.limits_over_time(1);
    assert_eq!(steps.len(), 2, "{steps:?}");
    assert_eq!((steps[0].0.as_secs_f64(), steps[0].1[0].messages), (0.0, 20));
    assert!((steps[1].0.as_secs_f64() - 100.0).abs() < 0.1 && steps[1].1[0].messages == 5, "{steps:?}");
    assert_eq!(sim.limits_over_time(0), vec![], "a producer has no thresholds");
}

/// `through_a_socket` with the sender's reactions `reactions`.
fn reacting(reactions: serde_json::Value, rate: f64) -> sluice_engine::Scenario {
    let mut doc = serde_json::to_value(through_a_socket(rate, 100_000.0, 8_000)).unwrap();
    doc["nodes"][1]["reactions"] = reactions;
    sluice_engine::Scenario::from_value(doc).unwrap()
}

/// A reaction takes effect in its own state and the worse ones, never in
/// a milder one: a sender that thins only at its soft limit does not thin
/// while merely Overloaded, and one that pauses its input when Overloaded
/// does not ask for a pause while Ready.
#[test]
fn a_reaction_holds_in_its_state_and_worse_ones_only() {
    // Overloaded all along (220 kB/s offered, 100 taken) but below the soft
    // limit of 200 messages? No: it climbs. Thin at the soft limit only.
    let mut sim = Simulation::new(reacting(json!({"overloaded": "none", "soft_limit": "thin", "hard_limit": "disconnect"}), 400.0), 3).unwrap();
    run_checked(&mut sim, 2.0);
    // Before the soft limit (200 messages) is reached nothing is thinned.
    let early = sim.report();
    let reached_soft = sim.transitions().entries().any(|t| t.to == State::SoftLimit);
    if !reached_soft {
        assert_eq!(early.nodes["sender"].dropped.get("thinned").copied().unwrap_or(0), 0, "thinned while only Overloaded");
    }
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    assert!(sim.transitions().entries().any(|t| t.to == State::SoftLimit));
    assert!(r.nodes["sender"].dropped.get("thinned").copied().unwrap_or(0) > 0, "thins from its soft limit: {:?}", r.nodes["sender"]);
    // With no reaction when Overloaded and none at the soft limit, nothing is thinned at all.
    let mut sim = Simulation::new(reacting(json!({"overloaded": "none", "soft_limit": "none", "hard_limit": "disconnect"}), 400.0), 3).unwrap();
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    assert!(sim.transitions().entries().any(|t| t.to == State::Overloaded));
    assert_eq!(r.nodes["sender"].dropped.get("thinned").copied().unwrap_or(0), 0, "{:?}", r.nodes["sender"]);
    assert!(r.nodes["sender"].dropped.get("disconnected").copied().unwrap_or(0) > 0, "it reaches its hard limit instead");
}

/// Pausing the input when Overloaded: a producer that honours pauses
/// makes nothing more while the socket would block, and never pauses at
/// light load.
#[test]
fn pausing_when_overloaded_pauses_only_once_a_write_would_block() {
    let pausing = |rate: f64, bytes_per_s: f64| {
        let mut doc = serde_json::to_value(through_a_socket(rate, bytes_per_s, 8_000)).unwrap();
        doc["nodes"][1]["reactions"] = json!({"overloaded": "pause_input", "soft_limit": "pause_input", "hard_limit": "disconnect"});
        doc["nodes"][0]["backpressure"] = json!("pause");
        sluice_engine::Scenario::from_value(doc).unwrap()
    };
    // Light load: never Overloaded, never paused; everything made is sent.
    let mut sim = Simulation::new(pausing(40.0, 1_000_000.0), 3).unwrap();
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    assert!(sim.transitions().entries().all(|t| t.to != State::Overloaded));
    assert!(r.nodes["stream"].arrived > 1000, "{:?}", r.nodes["stream"]);
    assert_eq!(r.nodes["sender"].dropped_total, 0);
    // Twice what the socket takes: paused whenever a write would block, so
    // nothing is thinned or lost, the sender stays short, and what the
    // socket cannot carry waits in the stream (a paused source keeps what
    // comes due).
    let mut sim = Simulation::new(pausing(400.0, 100_000.0), 3).unwrap();
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    assert!(sim.transitions().entries().any(|t| t.to == State::Overloaded));
    assert_eq!(r.nodes["sender"].dropped_total, 0, "{:?}", r.nodes["sender"]);
    assert!(r.nodes["stream"].depth_messages > 1000, "{:?}", r.nodes["stream"]);
    assert!(r.nodes["sender"].mean_depth_messages < 100.0, "{:?}", r.nodes["sender"]);
}

/// A queue that drops its oldest to make room, offered a message larger
/// than its whole capacity: it empties itself, then drops the newcomer
/// too, and counts every one of them as arrived and dropped.
#[test]
fn a_message_larger_than_the_whole_capacity_is_dropped_after_the_oldest() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 100},
                   "classes": [{"name": "small", "weight": 3, "size": {"dist": "fixed", "value": 100}},
                               {"name": "huge", "weight": 1, "size": {"dist": "fixed", "value": 5000}}]}),
            json!({"id": "q", "kind": "queue", "capacity": {"bytes": 1000}, "on_full": "drop_oldest"}),
            json!({"id": "c", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": 0.05}}),
        ],
        &[("p", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 5).unwrap();
    run_checked(&mut sim, 20.0);
    let r = sim.report();
    let q = &r.nodes["q"];
    assert!(q.dropped["overflow"] > 0, "{q:?}");
    assert_eq!(q.arrived, q.departed + q.dropped_total + q.depth_messages, "{q:?}");
    assert_eq!(r.nodes["p"].departed, q.arrived, "every message made reached the queue");
    // No huge message was ever served: none fits.
    assert!(q.depth_bytes <= 1000);
}

/// Three messages of class a (at 0, 0.1 and 0.2 s) and two of b (0.3 and
/// 0.4 s), each class with its own `priority`, into queue `q` before a
/// server of one second each; at 0.5 s the queue's parameters change as
/// `change` says. What each class has had served by 3.5 s.
fn served_after_a_live_change(priorities: (u8, u8), queue: serde_json::Value, change: impl FnOnce(&mut sluice_engine::scenario::QueueSpec)) -> (u64, u64) {
    let mut q = queue;
    q["id"] = json!("q");
    q["kind"] = json!("queue");
    let scenario = graph(
        vec![
            json!({"id": "pa", "kind": "producer", "arrivals": {"process": "trace", "times_s": [0.0, 0.1, 0.2]}, "classes": [{"name": "a", "priority": priorities.0}]}),
            json!({"id": "pb", "kind": "producer", "arrivals": {"process": "trace", "times_s": [0.3, 0.4]}, "classes": [{"name": "b", "priority": priorities.1}]}),
            q,
            json!({"id": "server", "kind": "consumer", "service_time": {"dist": "fixed", "value": 1.0}}),
            json!({"id": "split", "kind": "router", "policy": "by_class", "classes": {"a": "done_a", "b": "done_b"}}),
            json!({"id": "done_a", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.0}}),
            json!({"id": "done_b", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.0}}),
        ],
        &[("pa", "q"), ("pb", "q"), ("q", "server"), ("server", "split"), ("split", "done_a"), ("split", "done_b")],
    );
    let mut sim = Simulation::new(scenario.clone(), 1).unwrap();
    run_checked(&mut sim, 0.5);
    let BlockSpec::Queue(mut spec) = scenario.nodes[2].block.clone() else { panic!() };
    change(&mut spec);
    sim.reconfigure("q", BlockSpec::Queue(spec)).unwrap();
    run_checked(&mut sim, 3.5);
    let r = sim.report();
    (r.nodes["done_a"].departed, r.nodes["done_b"].departed)
}

/// A queue changed live from FIFO to priority orders what already waits by
/// its table, not only what comes next: b's messages, urgent by the
/// table, leave before a's that came first.
#[test]
fn a_live_change_to_priority_order_reorders_what_already_waits() {
    let queue = json!({"message_priorities": [{"class": "a", "priority": 5}, {"class": "b", "priority": 0}]});
    let served = served_after_a_live_change((0, 0), queue, |q| q.order = sluice_engine::scenario::Order::Priority);
    // a0 was taken at once (done at 1 s); then b0 (2 s) and b1 (3 s).
    assert_eq!(served, (1, 2));
}

/// A rule taken out of a queue's table while running gives the messages
/// already waiting back the priority they came with: a's, made urgent
/// only by the rule taken away, wait behind b's again.
#[test]
fn a_rule_taken_away_live_gives_waiting_messages_back_their_own_priority() {
    let queue = json!({"order": "priority", "message_priorities": [{"class": "a", "priority": 0}]});
    let served = served_after_a_live_change((5, 1), queue, |q| q.message_priorities.clear());
    // a0 was taken at once (done at 1 s); then b0 (2 s) and b1 (3 s), the
    // class priorities (b 1, a 5) ruling again.
    assert_eq!(served, (1, 2));
}
