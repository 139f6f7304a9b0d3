//! The models the engine's speed is measured on, shared by `sluice bench`
//! (natively) and the page's WebAssembly build (`bench_mm1k`,
//! `bench_scrub`), so that both figures come from the same scenario and the
//! same run loop.
//!
//! Guarantees: the scenario is fixed (M/M/1/K with λ = 0.9, μ = 1, K = 10)
//! and a run is deterministic for its seed, so a native run and a
//! WebAssembly run of the same length do the same work.

use crate::scenario::Scenario;
use crate::simulation::Simulation;
use crate::time::SimTime;
use crate::timeline::Run;

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

/// A run of `scenario` (by default the page's opening one, the slow
/// client, `scenario::DEFAULT_SCENARIO`) of `events` events on its seed,
/// kept to be seen again at any instant with the page's spacing of
/// checkpoints and budget: what the benchmark of scrubbing reaches into,
/// natively and in the page. None if the scenario cannot run.
pub fn scrub_run(scenario: Option<Scenario>, events: u64) -> Option<Run> {
    let scenario = scenario.unwrap_or_else(|| Scenario::from_json(crate::scenario::DEFAULT_SCENARIO).expect("the default scenario is valid"));
    let seed = scenario.seed_or_default();
    let mut run = Run::new(Simulation::new(scenario, seed).ok()?);
    // The default scenario never stops; were it to, the run so far is
    // still what is reached into.
    let _ = run.run_until_bounded(SimTime::from_secs_f64(1e9), events);
    Some(run)
}

/// `count` instants over `run`, from its earliest kept to its live one, in
/// an order that jumps back and forth (each far from the last, as a person
/// dragging the time line about), the same every time.
pub fn scrub_instants(run: &Run, count: usize) -> Vec<SimTime> {
    let (from, to) = (run.earliest().as_secs_f64(), run.now().as_secs_f64());
    let mut rng = crate::rng::SimRng::new(7);
    (0..count).map(|_| SimTime::from_secs_f64(from + rng.uniform() * (to - from))).collect()
}
