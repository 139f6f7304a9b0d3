//! `sluice bench --scrub`: how fast a long run is seen again at any
//! instant, and what keeping it for that costs.
//!
//! The page's opening scenario, then the ready-made one with a block of
//! every kind, is each run for ten million events (times the scale) twice: alone, and kept for scrubbing (`timeline::Run`, with the
//! page's spacing of checkpoints and budget); the ratio of the two is what
//! keeping costs. Then forty instants spread over the run, in an order
//! that jumps back and forth, are each reached from scratch (`Run::at`),
//! each timed by the thread's processor time; the median and the slowest
//! are printed against the target of 100 ms. The checkpoints' bytes are the
//! allocator's count (`sluice` installs `heap::Counting`).

use sluice_engine::bench_model::{scrub_instants, scrub_run};
use sluice_engine::thousands;
use sluice_engine::timeline::TIMELINE_BUDGET;
use sluice_engine::{Scenario, SimTime, Simulation};

use crate::bench::Stopwatch;

/// The whole binary's allocator, counting what each thread holds: a run
/// kept for scrubbing measures its checkpoints by it (these figures read
/// them).
#[global_allocator]
static ALLOC: sluice_engine::heap::Counting<std::alloc::System> = sluice_engine::heap::Counting(std::alloc::System);

/// Events of the run at scale 1.
const EVENTS: f64 = 10_000_000.0;

/// Instants reached.
const INSTANTS: usize = 40;

/// The slowest an instant may take to reach natively, in seconds.
const TARGET_S: f64 = 0.1;

/// The ready-made scenario with a block of every kind, measured after the
/// page's opening one.
const EVERY_BLOCK: &str = include_str!("../../scenarios/every-block.json");

pub fn run(scale: f64) -> String {
    let events = (EVENTS * scale).round().max(1.0) as u64;
    let opening = Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).expect("the default scenario is valid");
    let every_block = Scenario::from_json(EVERY_BLOCK).expect("every-block.json is valid");
    [opening, every_block].into_iter().map(|scenario| measure(scenario, events)).collect()
}

/// The figures of one scenario run for `events` events.
fn measure(scenario: Scenario, events: u64) -> String {
    let mut alone = Simulation::new(scenario.clone(), scenario.seed_or_default()).expect("a ready-made scenario builds");
    let watch = Stopwatch::start();
    let _ = alone.run_until_bounded(SimTime::from_secs_f64(1e9), events);
    let (alone_s, _) = watch.read();
    let watch = Stopwatch::start();
    let run = scrub_run(Some(scenario.clone()), events).expect("a ready-made scenario builds");
    let (kept_s, _) = watch.read();
    let (checkpoints, widest) = run.checkpoints();
    let mut times: Vec<f64> = scrub_instants(&run, INSTANTS)
        .into_iter()
        .map(|t| {
            let watch = Stopwatch::start();
            let seen = run.at(t);
            let (s, _) = watch.read();
            assert_eq!(seen.now(), t, "reached");
            s
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let slowest = times[times.len() - 1];
    let verdict = if slowest <= TARGET_S { "within" } else { "OVER" };
    format!(
        "scrubbing: {}, {} events ({:.0} simulated s)\n\
         \x20 run alone {alone_s:.2} s, kept for scrubbing {kept_s:.2} s ({:.2}x): {checkpoints} checkpoints at most {} events apart, {:.1} MB of {:.0} MB\n\
         \x20 an instant reached in {:.1} ms at the median, {:.1} ms at the slowest of {INSTANTS} ({verdict} the target of {:.0} ms)\n",
        scenario.name,
        thousands(run.events() as f64),
        run.now().as_secs_f64(),
        kept_s / alone_s,
        thousands(widest as f64),
        run.bytes() as f64 / 1e6,
        TIMELINE_BUDGET as f64 / 1e6,
        median * 1e3,
        slowest * 1e3,
        TARGET_S * 1e3,
    )
}
