//! Messages are never created or lost by accident, and a run is a function
//! of its scenario and seed.

mod support;

use serde_json::json;
use sluice_engine::{Simulation, SimTime};
use support::*;

/// The default scenario, slowed so that every reaction happens.
#[test]
fn default_scenario_conserves_messages_at_every_step() {
    let mut sim = Simulation::new(slowed_default_scenario(), 42).unwrap();
    run_checked(&mut sim, 60.0);
    let t = sim.totals();
    assert!(t.produced > 10_000 && t.delivered > 1_000 && t.dropped > 1_000, "{t:?}");
    let sender = &sim.report().nodes["sender"];
    assert!(sender.disconnects.unwrap_or(0) > 0 && sender.dropped.contains_key("thinned"), "{sender:?}");
}

#[test]
fn every_refusal_policy_conserves_messages() {
    for (policy, backpressure) in [("pause", "pause"), ("drop", "ignore"), ("retry", "ignore"), ("retry", "pause")] {
        // Producer straight into a consumer: refusals happen at once.
        let doc = json!({
            "version": 1,
            "nodes": [
                {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200},
                 "on_refused": policy, "retry_after_s": 0.003, "backpressure": backpressure},
                {"id": "c", "kind": "consumer", "workers": 2,
                 "service_time": {"dist": "exponential", "mean": 0.02}}
            ],
            "edges": [{"from": "p", "to": "c"}]
        });
        let scenario = sluice_engine::Scenario::from_value(doc).unwrap();
        let mut sim = Simulation::new(scenario, 8).unwrap();
        run_checked(&mut sim, 20.0);
        let r = sim.report();
        match policy {
            "drop" => assert!(r.nodes["p"].dropped["refused"] > 100, "{policy}: {:?}", r.nodes["p"]),
            _ => assert_eq!(r.nodes["p"].dropped_total, 0, "{policy}"),
        }
        let rate = r.totals.delivered as f64 / 20.0;
        if policy == "drop" {
            // An Erlang loss system M/M/2/2 with a = λ/μ = 4: the blocking
            // probability is B(2, 4) = 8/13, so 200 × 5/13 ≈ 76.9 get through
            // (±4 is about three standard errors over 20 s).
            assert!((rate - 200.0 * 5.0 / 13.0).abs() < 4.0, "{policy}: {rate} per second");
        } else {
            // Held messages, and under `pause` the backlog behind them,
            // keep both workers (mean 20 ms) nearly always busy: about 100
            // a second (±5 is about two standard errors over 20 s).
            assert!((85.0..=105.0).contains(&rate), "{policy}: {rate} per second");
        }
    }
}

#[test]
fn same_seed_same_run_and_another_seed_another_run() {
    let run = |seed| {
        let mut sim = Simulation::new(default_scenario(), seed).unwrap();
        sim.run_until(SimTime::from_secs_f64(30.0)).expect("the run ends");
        sim.report().to_json_pretty()
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}

#[test]
fn stepping_in_slices_gives_the_same_run_as_one_go() {
    let mut whole = Simulation::new(default_scenario(), 3).unwrap();
    whole.run_until(SimTime::from_secs_f64(20.0)).expect("the run ends");
    let mut sliced = Simulation::new(default_scenario(), 3).unwrap();
    for i in 1..=2000 {
        sliced.run_until_bounded(SimTime::from_secs_f64(i as f64 * 0.01), 50).expect("the run ends");
    }
    sliced.run_until(SimTime::from_secs_f64(20.0)).expect("the run ends");
    assert_eq!(whole.report(), sliced.report());
}

#[test]
fn depth_series_memory_is_bounded_over_long_runs() {
    let mut sim = Simulation::new(default_scenario(), 1).unwrap();
    sim.run_until(SimTime::from_secs_f64(3600.0)).expect("the run ends");
    let q = sim.scenario().node_index("sender").unwrap();
    assert!(sim.stats(q).depth_series.len() <= sluice_engine::DEPTH_SERIES_CAPACITY);
    assert!(sim.transitions().entries().len() <= sluice_engine::simulation::TRANSITION_LOG_CAPACITY);
    sim.check_conservation().unwrap();
}

/// The flows the page draws as dots: every message a block took is counted
/// once on the edge it came by, by class; counting changes nothing else.
#[test]
fn flows_count_each_hop_by_class_and_change_nothing() {
    let scenario = default_scenario();
    let until = SimTime::from_secs_f64(20.0);
    let mut plain = Simulation::new(scenario.clone(), 7).unwrap();
    plain.run_until(until).expect("the run ends");
    let mut counted = Simulation::new(scenario, 7).unwrap();
    counted.count_flows();
    counted.run_until(until).expect("the run ends");
    assert_eq!(plain.report(), counted.report(), "counting flows changed the run");

    let flows = counted.flows().expect("counting was asked for");
    // Edges 0 and 1: stream → sender (fed through the router reading the
    // uplink, edge 6, and by the ping requests, edge 8, as well), sender →
    // socket.
    let edge = |k: usize| -> u64 { flows.of_edge(k).iter().sum() };
    let index = |id: &str| counted.scenario().node_index(id).unwrap();
    let arrived = |id: &str| counted.stats(index(id)).arrived;
    let e = |k: usize| &counted.scenario().edges[k];
    assert_eq!((e(6).from.as_str(), e(6).to.as_str(), e(8).from.as_str()), ("read", "sender", "ping_requests"));
    assert_eq!(edge(0) + edge(6) + edge(8), arrived("sender"));
    let into_socket = edge(1);
    assert_eq!(into_socket, arrived("socket"));
    // Video, audio and control all travelled, and video (weight 15) most.
    // The scenario's classes are counted on every edge; the stream's
    // edge carries its own three only.
    let by_class = flows.of_edge(0);
    assert_eq!(by_class.len(), 6);
    assert!(by_class[..3].iter().all(|&n| n > 0) && by_class[3..].iter().all(|&n| n == 0), "{by_class:?}");
    assert!(by_class[0] > by_class[1] && by_class[1] > by_class[2], "{by_class:?}");
}
