//! The engine compiled to WebAssembly and run in headless Chromium
//! (`make test` runs it with wasm-bindgen-test-runner): the same scenario and
//! seed give the same report as natively, to the byte, and the engine's
//! guarantees hold there too.

#![cfg(target_arch = "wasm32")]

use sluice_engine::{Scenario, SimTime, Simulation};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod support;

fn default_sim(seed: u64) -> Simulation {
    Simulation::new(Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).unwrap(), seed).unwrap()
}

#[wasm_bindgen_test]
fn report_in_the_browser_matches_the_native_golden_file() {
    let mut sim = default_sim(7);
    sim.run_until(SimTime::from_secs_f64(20.0)).expect("the run ends");
    let report = sim.report().to_json_pretty() + "\n";
    assert_eq!(report, include_str!("golden/slow-client-seed7-20s.json"));
}

#[wasm_bindgen_test]
fn every_block_in_the_browser_matches_the_native_golden_file() {
    let scenario = Scenario::from_json(include_str!("../../scenarios/every-block.json")).unwrap();
    let mut sim = Simulation::new(scenario, 3).unwrap();
    sim.run_until(SimTime::from_secs_f64(30.0)).expect("the run ends");
    let report = sim.report().to_json_pretty() + "\n";
    assert_eq!(report, include_str!("golden/every-block-seed3-30s.json"));
}

#[wasm_bindgen_test]
fn conservation_holds_at_every_step_in_the_browser() {
    let mut sim = Simulation::new(support::slowed_default_scenario(), 3).unwrap();
    let until = SimTime::from_secs_f64(10.0);
    while sim.next_event_time().is_some_and(|t| t <= until) {
        sim.step();
        sim.check_invariants().unwrap();
    }
    let t = sim.totals();
    assert!(t.produced > 1000 && t.dropped > 0 && t.delivered > 0);
}

#[wasm_bindgen_test]
fn bad_scenarios_are_refused_in_the_browser() {
    let mut doc: serde_json::Value = serde_json::from_str(sluice_engine::DEFAULT_SCENARIO).unwrap();
    doc["nodes"][1]["soft_limit"]["messages"] = serde_json::json!(500);
    let err = Scenario::from_value(doc).unwrap_err().to_string();
    assert_eq!(err, "nodes[1].soft_limit.messages: must not exceed hard_limit.messages (500 > 100)");
}
