//! Scenario builders shared by the engine's integration tests.

#![allow(dead_code)]

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
    sim.run_until(until);
}

pub fn queue_index(sim: &Simulation, id: &str) -> usize {
    sim.scenario().node_index(id).expect("node exists")
}
