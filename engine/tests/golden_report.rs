//! The reports of two scenarios for one seed each are stored in
//! `tests/golden/`: the default one and one with every block. The same files
//! are checked by the WebAssembly test in Chromium (`tests/wasm.rs`), so a
//! native run and a browser run are proven to give the same bytes. After an
//! intended change of behaviour, rewrite them with
//! `SLUICE_BLESS=1 cargo test -p sluice-engine --test golden_report`.

#![cfg(not(target_arch = "wasm32"))]

use sluice_engine::{Scenario, SimTime, Simulation};

fn check(scenario_json: &str, seed: u64, until: f64, golden: &str) {
    let scenario = Scenario::from_json(scenario_json).unwrap();
    let mut sim = Simulation::new(scenario, seed).unwrap();
    sim.run_until(SimTime::from_secs_f64(until)).expect("the run ends");
    let report = sim.report().to_json_pretty() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(golden);
    if std::env::var("SLUICE_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &report).unwrap();
    }
    let golden = std::fs::read_to_string(&path).expect("golden file present (SLUICE_BLESS=1 writes it)");
    assert_eq!(report, golden, "the report changed; if intended, rewrite with SLUICE_BLESS=1");
}

#[test]
fn default_scenario_report_matches_the_golden_file() {
    check(sluice_engine::DEFAULT_SCENARIO, 7, 20.0, "tests/golden/slow-client-seed7-20s.json");
}

#[test]
fn every_block_report_matches_the_golden_file() {
    check(include_str!("../../scenarios/every-block.json"), 3, 30.0, "tests/golden/every-block-seed3-30s.json");
}
