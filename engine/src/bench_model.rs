//! The model the engine's speed is measured on, shared by `sluice bench`
//! (natively) and the page's WebAssembly build (`bench_mm1k`), so that both
//! figures come from the same scenario and the same run loop.
//!
//! Guarantees: the scenario is fixed (M/M/1/K with λ = 0.9, μ = 1, K = 10)
//! and a run is deterministic for its seed, so a native run and a
//! WebAssembly run of the same length do the same work.

use crate::scenario::Scenario;
use crate::simulation::Simulation;
use crate::time::SimTime;

/// M/M/1/K with λ = 0.9, μ = 1, K = 10: nine waiting places and one server.
pub const MM1K: &str = r#"{
  "version": 1,
  "name": "M/M/1/K",
  "nodes": [
    {"id": "arrivals", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 0.9}},
    {"id": "line", "kind": "queue", "capacity": {"messages": 9}, "on_full": "drop_newest"},
    {"id": "server", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 1.0}}
  ],
  "edges": [{"from": "arrivals", "to": "line"}, {"from": "line", "to": "server"}]
}"#;

/// The M/M/1/K scenario.
pub fn mm1k() -> Scenario {
    Scenario::from_json(MM1K).expect("the built-in M/M/1/K scenario is valid")
}

/// Runs M/M/1/K for `until_s` simulated seconds from seed 1 and returns
/// (events, arrivals): the work a timed run did.
pub fn run_mm1k(until_s: f64) -> (u64, u64) {
    let mut sim = Simulation::new(mm1k(), 1).expect("the built-in M/M/1/K builds");
    // A stop is impossible here (no flood, no stall); the counts so far
    // are still the work done.
    let _ = sim.run_until(SimTime::from_secs_f64(until_s.clamp(0.0, 1e9)));
    (sim.events(), sim.totals().produced)
}
