//! The engine's benchmarks in the page's own WebAssembly: `make bench`
//! (e2e/bench-wasm.mjs) calls them through `window.wasmBindings`: M/M/1/K,
//! timed beside `sluice bench --mm1k` natively to give WebAssembly's speed
//! as a ratio of the native build's; and scrubbing, a long run seen again
//! at instants spread over it, each timed here by the page's clock.

use wasm_bindgen::prelude::wasm_bindgen;

/// Runs the engine's M/M/1/K for `until_s` simulated seconds and returns
/// how many arrivals it simulated (the caller times the call).
#[wasm_bindgen]
pub fn bench_mm1k(until_s: f64) -> f64 {
    sluice_engine::bench_model::run_mm1k(until_s).1 as f64
}

/// Runs the page's opening scenario for `events` events, kept for
/// scrubbing as the page keeps a run, then reaches `instants` instants
/// over it (`bench_model::scrub_instants`), each timed by the page's clock.
/// Returns JSON: `{"events", "simulated_s", "checkpoints", "widest" (the
/// most events between two), "bytes", "budget", "run_ms", "reach_ms":
/// [...]}`.
#[wasm_bindgen]
pub fn bench_scrub(events: f64, instants: u32) -> String {
    use sluice_engine::bench_model::{scrub_instants, scrub_run};
    let clock = || web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now());
    let start = clock();
    let run = scrub_run(None, events.clamp(1.0, 1e9) as u64).expect("the opening scenario runs");
    let run_ms = clock() - start;
    let reach_ms: Vec<f64> = scrub_instants(&run, instants.min(1000) as usize)
        .into_iter()
        .map(|t| {
            let start = clock();
            let _seen = run.at(t);
            clock() - start
        })
        .collect();
    let (checkpoints, widest) = run.checkpoints();
    serde_json::json!({
        "events": run.events(),
        "simulated_s": run.now().as_secs_f64(),
        "checkpoints": checkpoints,
        "widest": widest,
        "bytes": run.bytes(),
        "budget": sluice_engine::timeline::TIMELINE_BUDGET,
        "run_ms": run_ms,
        "reach_ms": reach_ms,
    })
    .to_string()
}
