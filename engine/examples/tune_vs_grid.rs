//! What a tuning costs against the grid sweep it replaces: the simulated
//! events `sluice tune` spends on three searches with a closed-form answer,
//! beside those of a sweep of the same range at the same precision with
//! the tuning's most replications at every point (what one would run to
//! read the answer off a table). Prints figures; `make bench` runs it.
//!
//!   cargo run --release -p sluice-engine --example tune_vs_grid

use serde_json::json;
use sluice_engine::sweep::{Options, Plan, Vary};
use sluice_engine::tune::{parse_range, parse_requirement, Goal, Search, Tune, Tuner};
use sluice_engine::Scenario;

fn mmc(rate: f64, mean_s: f64, capacity: u64) -> Scenario {
    Scenario::from_value(json!({"version": 1, "name": "M/M/c", "nodes": [
        {"id": "src", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate}},
        {"id": "line", "kind": "queue", "capacity": {"messages": capacity}},
        {"id": "srv", "kind": "consumer", "service_time": {"dist": "exponential", "mean": mean_s}}],
        "edges": [{"from": "src", "to": "line"}, {"from": "line", "to": "srv"}]}))
    .unwrap()
}

fn main() {
    let cases = [
        ("fewest M/M/c servers, Wq <= 0.04 s", mmc(8.0, 0.5, 0), "srv.workers=1:30", Goal::Minimize, "line.mean_wait_s<=0.04", Options { reps: 20, until_s: 400.0, warmup_s: 40.0, seed: 1 }),
        ("smallest M/M/1/K, drops <= 1.1%", mmc(5.0, 0.1, 1), "line.capacity.messages=1:60", Goal::Minimize, "line.drop_probability<=0.011", Options { reps: 40, until_s: 2000.0, warmup_s: 100.0, seed: 3 }),
        ("largest M/M/1 rate, p99 <= 0.9 s", mmc(1.0, 0.1, 0), "src.arrivals.rate_per_s=1:9:0.1", Goal::Maximize, "srv.p99_wait_s<=0.9", Options { reps: 20, until_s: 1000.0, warmup_s: 100.0, seed: 2 }),
    ];
    println!("{:<36} {:>6} {:>7} {:>14} {:>6} {:>14} {:>7}", "search", "answer", "points", "tune events", "grid", "grid events", "ratio");
    for (name, scenario, vary, goal, require, options) in cases {
        let (field, range) = parse_range(vary).unwrap();
        let requirements = vec![parse_requirement(require).unwrap()];
        let tuner = Tuner::new(&scenario, Tune { field: field.clone(), range, goal, requirements, options }).unwrap();
        let values = tuner.values().to_vec();
        let result = tuner.finish().unwrap();
        let answer = result.best.as_ref().and_then(|b| b.values.values().next().copied()).unwrap_or(f64::NAN);
        // The grid: every value, every replication.
        let vary = Vary::named(&field, values.clone(), &scenario).unwrap();
        let plan = Plan::new(&scenario, vec![vary], options).unwrap();
        let mut grid = 0u64;
        for point in 0..plan.points() {
            for rep in 0..options.reps {
                grid += plan.run_counting(point, rep).unwrap().1;
            }
        }
        println!(
            "{:<36} {:>6} {:>7} {:>14} {:>6} {:>14} {:>6.1}×",
            name,
            answer,
            result.points,
            sluice_engine::thousands(result.events as f64),
            values.len(),
            sluice_engine::thousands(grid as f64),
            grid as f64 / result.events as f64
        );
    }
}
