//! `sluice sweep`: runs a sweep planned by the engine, in parallel over
//! points and replications (rayon), with a progress bar on a terminal
//! (indicatif), one shard of it if asked, and prints it; `sluice sweep
//! merge` puts shards back together.
//!
//! Guarantee: the output is the same byte for byte whatever `--jobs` is:
//! replications are collected in order before any is summarised.

use rayon::prelude::*;
use sluice_engine::sweep::{merge, metrics_named, parse_vary, Metric, Plan, Replication, SweepError, SweepResult};

/// The most threads a sweep starts.
const MAX_JOBS: usize = 1024;

/// The largest shard file `merge` reads: a 100,000-point grid's JSON with
/// every metric is well below it.
const MAX_SHARD_BYTES: u64 = 256 * 1024 * 1024;

const MAP_METRIC: &str = "--format map draws one metric: name it with --metric, such as --metric clients.recovery";

/// How a sweep is printed.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SweepFormat {
    Table,
    Csv,
    Json,
    /// Two varied fields as rows and columns, one metric in the cells.
    Map,
}

/// What `sluice sweep FILE ...` was asked.
pub struct Request {
    pub file: String,
    pub vary: Vec<String>,
    pub reps: usize,
    pub runs: crate::Runs,
    pub shard: Option<String>,
    pub format: SweepFormat,
    pub metric: Vec<String>,
    /// Draw the first `--metric` into this SVG file.
    pub plot: Option<String>,
}

/// `I/N`, with I below N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    text.split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse::<usize>().ok()?, n.trim().parse::<usize>().ok()?)))
        .filter(|&(i, n)| n >= 1 && i < n)
        .ok_or_else(|| format!("--shard {text}: expected I/N with 0 ≤ I < N, such as 0/4"))
}

pub fn run(request: Request) -> Result<String, String> {
    let scenario = crate::load(&request.file)?;
    let varies = request.vary.iter().map(|v| parse_vary(v, &scenario)).collect::<Result<Vec<_>, _>>().map_err(|why| why.to_string())?;
    let options = request.runs.options(request.reps);
    let plan = Plan::new(&scenario, varies, options).map_err(|why| why.to_string())?;
    let metrics = metrics_named(&request.metric, &plan.metrics()).map_err(|why| why.to_string())?;
    if matches!(request.format, SweepFormat::Map) {
        // Said before the sweep runs, not after.
        if request.vary.len() != 2 {
            return Err(format!("--format map lays two varied fields out as rows and columns; this sweep varies {}", request.vary.len()));
        }
        if metrics.len() != 1 {
            return Err(MAP_METRIC.into());
        }
    }
    let plotted = match (&request.plot, metrics.first()) {
        (Some(_), None) => return Err("--plot needs the --metric to draw, such as --metric line.mean_wait_s".into()),
        (Some(out), Some(metric)) => {
            // Checked before the sweep runs, so a long sweep is not lost to
            // a misspelt file name.
            crate::plot::PlotFile::of(out)?;
            Some((out.clone(), metric.clone()))
        }
        (None, _) => None,
    };
    let shard = request.shard.as_deref().map(parse_shard).transpose()?;
    let (index, of) = shard.unwrap_or((0, 1));
    let points: Vec<usize> = (index..plan.points()).step_by(of).collect();
    let pool = pool(request.runs.jobs)?;
    let tasks: Vec<(usize, usize)> = points.iter().flat_map(|&p| (0..options.reps).map(move |r| (p, r))).collect();
    let bar = crate::progress_bar(tasks.len() as u64, "{bar:30} {pos}/{len} replications, {per_sec}, {eta} left");
    let reps: Vec<Result<Replication, SweepError>> = pool.install(|| {
        tasks
            .par_iter()
            .map(|&(p, r)| {
                let rep = plan.run(p, r);
                bar.inc(1);
                rep
            })
            .collect()
    });
    bar.finish_and_clear();
    let reps = reps.into_iter().collect::<Result<Vec<_>, _>>().map_err(|why| why.to_string())?;
    let summaries = points.iter().zip(reps.chunks(options.reps)).map(|(&p, reps)| plan.summarise(p, reps)).collect();
    let mut result = plan.result(summaries);
    if shard.is_some() {
        result.shard = Some(format!("{index}/{of}"));
    }
    if let Some((out, metric)) = plotted {
        crate::plot::plot(&result, &metric, &out)?;
    }
    print(&result, request.format, &metrics)
}

/// The threads `--jobs` asks for (none: one per core).
pub fn pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, String> {
    let jobs = match jobs {
        Some(n) if !(1..=MAX_JOBS).contains(&n) => return Err(format!("--jobs must be from 1 to {MAX_JOBS}, not {n}")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    rayon::ThreadPoolBuilder::new().num_threads(jobs).build().map_err(|e| format!("cannot start {jobs} threads: {e}"))
}

fn print(result: &SweepResult, format: SweepFormat, metric: &[Metric]) -> Result<String, String> {
    Ok(match format {
        SweepFormat::Table => result.to_table(metric),
        SweepFormat::Csv => result.to_csv(metric),
        SweepFormat::Json => result.to_json(),
        SweepFormat::Map => match metric {
            [one] => result.to_map(one)?,
            _ => return Err(MAP_METRIC.into()),
        },
    })
}

/// `sluice sweep merge PART.json ...`: the shards as the whole sweep.
pub fn merge_parts(parts: &[String], format: SweepFormat, metric: &[String]) -> Result<String, String> {
    let shards = parts
        .iter()
        .map(|part| {
            use std::io::Read;
            let shown = sluice_engine::printable(part, 200);
            let file = std::fs::File::open(part).map_err(|e| format!("cannot read {shown}: {e}"))?;
            let mut text = String::new();
            file.take(MAX_SHARD_BYTES + 1).read_to_string(&mut text).map_err(|e| format!("cannot read {shown}: {e}"))?;
            if text.len() as u64 > MAX_SHARD_BYTES {
                return Err(format!("{shown} is larger than {MAX_SHARD_BYTES} bytes, more than any sweep writes"));
            }
            serde_json::from_str::<SweepResult>(&text).map_err(|e| format!("{shown} is not a sweep's JSON: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let merged = merge(shards).map_err(|why| why.to_string())?;
    let metrics = metrics_named(metric, &merged.metrics(&[])).map_err(|why| why.to_string())?;
    print(&merged, format, &metrics)
}
