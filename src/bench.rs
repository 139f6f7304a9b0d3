//! The engine's benchmark in the page's own WebAssembly: `make bench`
//! (e2e/bench-wasm.mjs) calls it through `window.wasmBindings` and times
//! it, beside `sluice bench --mm1k` natively, to give WebAssembly's speed
//! as a ratio of the native build's.

use wasm_bindgen::prelude::wasm_bindgen;

/// Runs the engine's M/M/1/K for `until_s` simulated seconds and returns
/// how many arrivals it simulated (the caller times the call).
#[wasm_bindgen]
pub fn bench_mm1k(until_s: f64) -> f64 {
    sluice_engine::bench_model::run_mm1k(until_s).1 as f64
}
