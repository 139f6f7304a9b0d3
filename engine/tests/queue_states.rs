//! The send-queue behaviour of MECHANISMS.md §1, as a user watches it.

mod support;

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

fn queue(sim: &Simulation) -> &sluice_engine::blocks::Queue {
    match &sim.nodes()[1] {
        Node::Queue(q) => q,
        _ => panic!("node 1 is the queue"),
    }
}

#[test]
fn overloaded_queue_thins_video_and_keeps_audio() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 3).unwrap();
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    let q = &r.nodes["q"];
    assert!(q.dropped.get("thinned").copied().unwrap_or(0) > 1000, "{q:?}");
    // Every drop was a thinned (droppable) message: audio was never dropped.
    assert_eq!(q.dropped_total, q.dropped["thinned"]);
    let tos: Vec<&str> = sim.transitions().entries().map(|t| t.to).collect();
    assert!(tos.contains(&"Overloaded"));
}

#[test]
fn soft_limit_pauses_the_producer_and_the_pause_lifts_after_sends() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 5).unwrap();
    run_checked(&mut sim, 30.0);
    let soft_entries = sim.transitions().entries().filter(|t| t.to == "SoftLimit").count();
    let soft_exits = sim.transitions().entries().filter(|t| t.from == "SoftLimit").count();
    assert!(soft_entries > 3 && soft_exits > 3, "entries {soft_entries}, exits {soft_exits}");
    // A pausing producer never lets the queue reach the hard limit.
    assert!(sim.transitions().entries().all(|t| t.to != "HardLimit"));
    assert_eq!(sim.report().nodes["q"].disconnects, Some(0));
    // Every move to a less severe state was caused by a send.
    let order = ["Ready", "Overloaded", "SoftLimit", "HardLimit"];
    let rank = |s: &str| order.iter().position(|o| *o == s).unwrap();
    for t in sim.transitions().entries() {
        if rank(t.to) < rank(t.from) {
            assert_eq!(t.cause, "send", "{t:?}");
        }
    }
}

#[test]
fn paused_producer_makes_nothing_while_paused() {
    let mut sim = Simulation::new(fast_video_slow_client("pause"), 5).unwrap();
    // Run until the queue first reaches SoftLimit.
    while sim.transitions().entries().all(|t| t.to != "SoftLimit") {
        assert!(sim.step());
    }
    let produced = sim.report().nodes["p"].arrived;
    assert_eq!(sim.report().nodes["p"].paused, Some(true));
    // Nothing has been sent since, so the queue is still at SoftLimit and the
    // producer has made nothing new.
    let q = queue(&sim);
    assert_eq!(q.state(), sluice_engine::blocks::SendState::SoftLimit);
    let t = sim.now();
    while sim.next_event_time().is_some() && queue(&sim).state() == sluice_engine::blocks::SendState::SoftLimit {
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
    let entries: Vec<_> = sim.transitions().entries().collect();
    let hard = entries.iter().position(|t| t.to == "HardLimit").expect("reached HardLimit");
    let next = entries[hard + 1];
    assert_eq!((next.from, next.to, next.cause), ("HardLimit", "Ready", "new client connected"));
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
    assert!(queue(&sim).state() < sluice_engine::blocks::SendState::SoftLimit);
    let BlockSpec::Queue(mut spec) = sim.scenario().nodes[1].block.clone() else { unreachable!() };
    spec.soft_limit.messages = depth;
    sim.reconfigure("q", BlockSpec::Queue(spec)).unwrap();
    assert_eq!(queue(&sim).state(), sluice_engine::blocks::SendState::SoftLimit);
    assert_eq!(sim.report().nodes["p"].paused, Some(true));
    let last = sim.transitions().entries().last().unwrap();
    assert_eq!(last.cause, "thresholds changed");
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
    assert!(sim.transitions().entries().any(|t| t.to == "SoftLimit"));
    // Paused at five messages of 10 kB: the queue never holds much more.
    let series = sim.stats(1).depth_series.points(sim.now());
    assert!(series.iter().all(|p| p.max <= 6), "{:?}", series.iter().map(|p| p.max).max());
}

#[test]
fn a_queue_thinned_to_empty_does_not_leave_its_producer_paused() {
    // Soft limit 1 and mostly droppable traffic: one video frame takes the
    // queue from Ready to SoftLimit, and thinning then empties it.
    let scenario = pipeline(
        json!({"arrivals": {"process": "poisson", "rate_per_s": 300},
               "classes": [{"name": "video", "weight": 9, "droppable": true}, {"name": "audio", "weight": 1}]}),
        json!({"soft_limit": {"messages": 1}, "hard_limit": {"messages": 100}}),
        json!({"service_time": {"dist": "exponential", "mean": 0.008}}),
    );
    let mut sim = Simulation::new(scenario, 4).unwrap();
    run_checked(&mut sim, 20.0);
    // The producer keeps going: it is stopped only while something is queued.
    assert!(sim.report().nodes["p"].arrived > 2000, "{:?}", sim.report().nodes["p"]);
    assert!(sim.transitions().entries().any(|t| t.cause == "emptied"));
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

/// Half load, every message droppable: the first message keeps the worker
/// busy, the next is refused and the queue turns Overloaded, thinning it
/// to empty. Once the worker is free, the emptied queue must take the next
/// message, send it, and so return to Ready. It once stayed Overloaded with
/// nothing in it, thinning every arrival for ever: 1 of 5,970 delivered.
#[test]
fn an_emptied_overloaded_queue_sends_again_and_returns_to_ready() {
    let scenario = pipeline(
        json!({"arrivals": {"process": "poisson", "rate_per_s": 10},
               "classes": [{"name": "video", "droppable": true}]}),
        json!({}),
        json!({"workers": 1, "service_time": {"dist": "exponential", "mean": 0.05}}),
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 600.0);
    let t = sim.totals();
    // A message is thinned only when it finds the worker busy: about half.
    let delivered = t.delivered as f64 / t.produced as f64;
    assert!((0.45..0.75).contains(&delivered), "{t:?}");
    let readies = sim.transitions().entries().filter(|tr| tr.from == "Overloaded" && tr.to == "Ready").count();
    assert!(readies > 100, "back to Ready after each send: {readies}");
    // Each return to Ready is caused by a send.
    assert!(sim.transitions().entries().filter(|tr| tr.to == "Ready").all(|tr| tr.cause == "send"));
}
