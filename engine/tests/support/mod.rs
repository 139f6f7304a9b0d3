//! Scenario builders shared by the engine's integration tests.

#![allow(dead_code)]

pub mod source;

use serde_json::{json, Value};
use sluice_engine::{Scenario, SimTime, Simulation};

/// producer → queue → consumer, with the given parts as JSON.
pub fn pipeline(producer: Value, queue: Value, consumer: Value) -> Scenario {
    let mut p = producer;
    p["id"] = json!("p");
    p["kind"] = json!("producer");
    let mut q = queue;
    q["id"] = json!("q");
    q["kind"] = json!("queue");
    let mut c = consumer;
    c["id"] = json!("c");
    c["kind"] = json!("consumer");
    let doc = json!({
        "version": 1,
        "nodes": [p, q, c],
        "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "c"}]
    });
    Scenario::from_value(doc).expect("test scenario is valid")
}

pub fn default_scenario() -> Scenario {
    Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).expect("the default scenario is valid")
}

/// The default scenario with its client slowed to 40 kB/s and a flood of
/// pings, every one answered: thinning, pauses, disconnects and reconnects
/// all happen.
pub fn slowed_default_scenario() -> Scenario {
    let mut doc: Value = serde_json::from_str(sluice_engine::DEFAULT_SCENARIO).expect("the default scenario is JSON");
    for node in doc["nodes"].as_array_mut().expect("nodes") {
        match node["id"].as_str() {
            Some("socket") => node["bandwidth_bytes_per_s"] = json!(40_000),
            Some("ping_requests") => {
                node["backpressure"] = json!("ignore");
                node["arrivals"]["rate_per_s"] = json!(400);
            }
            _ => {}
        }
    }
    Scenario::from_value(doc).expect("the slowed default scenario is valid")
}

pub fn secs(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

/// Steps through `until`, checking conservation and liveness after every
/// event.
pub fn run_checked(sim: &mut Simulation, until: f64) {
    let until = secs(until);
    while sim.next_event_time().is_some_and(|t| t <= until) {
        sim.step();
        if let Err(e) = sim.check_invariants() {
            panic!("{e}");
        }
    }
    sim.run_until(until).expect("the run ends");
}

pub fn queue_index(sim: &Simulation, id: &str) -> usize {
    sim.scenario().node_index(id).expect("node exists")
}

/// A scenario from nodes and `(from, to)` edges, given as JSON.
pub fn graph(nodes: Vec<Value>, edges: &[(&str, &str)]) -> Scenario {
    let edges: Vec<Value> = edges.iter().map(|(f, t)| json!({"from": f, "to": t})).collect();
    Scenario::from_value(json!({"version": 1, "nodes": nodes, "edges": edges})).unwrap_or_else(|e| panic!("{e}"))
}

/// The index of node `id`.
pub fn idx(sim: &Simulation, id: &str) -> usize {
    sim.scenario().node_index(id).expect("node exists")
}

/// The most messages node `id` ever held, from its depth series.
pub fn max_depth(sim: &Simulation, id: &str) -> u64 {
    sim.stats(idx(sim, id)).depth_series.points(sim.now()).iter().map(|p| p.max).max().unwrap_or(0)
}

/// A fixed distribution of `value`.
pub fn fixed(value: f64) -> Value {
    json!({"dist": "fixed", "value": value})
}

/// What producer `id`'s clients saw (or consumer `id` spent for nobody).
pub fn client(sim: &Simulation, id: &str) -> sluice_engine::ClientReport {
    sim.node_report(idx(sim, id)).client.unwrap_or_else(|| panic!("{id} has no client figures"))
}
