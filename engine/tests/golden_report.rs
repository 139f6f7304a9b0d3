//! The default scenario's report for one seed is stored in
//! `tests/golden/`. The same file is checked by the WebAssembly test in
//! Chromium (`tests/wasm.rs`), so a native run and a browser run are proven
//! to give the same bytes. After an intended change of behaviour, rewrite it
//! with `SLUICE_BLESS=1 cargo test -p sluice-engine --test golden_report`.

#![cfg(not(target_arch = "wasm32"))]

use sluice_engine::{Scenario, SimTime, Simulation};

const GOLDEN: &str = "tests/golden/slow-client-seed7-20s.json";

#[test]
fn default_scenario_report_matches_the_golden_file() {
    let scenario = Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).unwrap();
    let mut sim = Simulation::new(scenario, 7).unwrap();
    sim.run_until(SimTime::from_secs_f64(20.0));
    let report = sim.report().to_json_pretty() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("SLUICE_BLESS").is_some() {
        std::fs::write(&path, &report).unwrap();
    }
    let golden = std::fs::read_to_string(&path).expect("golden file present (SLUICE_BLESS=1 writes it)");
    assert_eq!(report, golden, "the report changed; if intended, rewrite with SLUICE_BLESS=1");
}
