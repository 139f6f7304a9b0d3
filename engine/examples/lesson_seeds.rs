//! How each lesson's checks come out over many seeds: for every check of
//! every step, the figure with the lesson's own seed and the least, median
//! and greatest over seeds 1..=N, and how many seeds fail it. A claim that
//! fails on other seeds depends on luck, not on the mechanism; a bound far
//! from every figure guards nothing. Run with
//! `cargo run --release -p sluice-engine --example lesson_seeds -- [N] [LESSON]`.

use sluice_engine::lesson::{self, Lesson};

fn main() {
    let mut args = std::env::args().skip(1);
    let seeds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);
    let only: Option<u32> = args.next().and_then(|a| a.parse().ok());
    for lesson in lesson::catalogue() {
        if only.is_some_and(|n| n != lesson.text.number) {
            continue;
        }
        let own = sluice_engine::playground::follow(&lesson).expect("the lesson runs");
        let mut runs = Vec::new();
        for seed in 1..=seeds {
            let mut other: Lesson = lesson.clone();
            other.scenario.seed = Some(seed);
            runs.push(sluice_engine::playground::follow(&other).expect("the lesson runs"));
        }
        println!("lesson {} ({}):", lesson.text.number, lesson.text.title);
        for (k, step) in own.iter().enumerate() {
            for (c, result) in step.verdict.results.iter().enumerate() {
                let mut figures: Vec<f64> = runs.iter().map(|r| r[k].verdict.results[c].figure.unwrap_or(f64::NAN)).collect();
                let failed = runs.iter().filter(|r| !r[k].verdict.results[c].passed).count();
                figures.sort_by(f64::total_cmp);
                println!(
                    "  step {} {}: {} | seeds: {:.4} .. {:.4} .. {:.4}, {failed} of {seeds} fail",
                    k + 1,
                    if result.passed { "ok  " } else { "FAIL" },
                    result.text,
                    figures[0],
                    figures[figures.len() / 2],
                    figures[figures.len() - 1]
                );
            }
        }
    }
}
