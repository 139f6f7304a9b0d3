//! `sluice tune`: the search the engine plans (`sluice_engine::tune`), each
//! batch of replications run in parallel (rayon), printed as a table or
//! JSON.
//!
//! Guarantee: the output is the same byte for byte whatever `--jobs` is:
//! a batch's replications are handed back in order.

use rayon::prelude::*;
use sluice_engine::sweep::SweepError;
use sluice_engine::numbers::{as_written, significant};
use sluice_engine::tune::{parse_range, parse_requirement, Frontier, Goal, Requirement, Search, Setting, Tune, TuneError, TuneResult, Tuner};

/// What `sluice tune FILE ...` was asked.
pub struct Request {
    pub file: String,
    pub vary: Vec<String>,
    pub minimize: Option<String>,
    pub maximize: Option<String>,
    pub require: Vec<String>,
    pub reps: usize,
    pub runs: crate::Runs,
    pub json: bool,
}

pub fn run(request: Request) -> Result<String, String> {
    let scenario = crate::load(&request.file)?;
    let said = |e: TuneError| e.to_string();
    let varied = request.vary.iter().map(|v| parse_range(v)).collect::<Result<Vec<_>, _>>().map_err(said)?;
    if !(1..=2).contains(&varied.len()) {
        return Err(said(TuneError::OneVary));
    }
    let (goal, named) = match (&request.minimize, &request.maximize) {
        (Some(f), None) => (Goal::Minimize, f),
        (None, Some(f)) => (Goal::Maximize, f),
        _ => return Err("give one of --minimize NODE.FIELD and --maximize NODE.FIELD".into()),
    };
    // The goal names the field to choose; a second --vary is the other.
    let Some(k) = varied.iter().position(|(field, _)| named.trim() == field.to_string()) else {
        let goal = if goal == Goal::Minimize { "minimize" } else { "maximize" };
        let varied = varied.iter().map(|(f, _)| f.to_string()).collect::<Vec<_>>().join(" or ");
        return Err(said(TuneError::GoalField { goal, named: named.clone(), varied }));
    };
    let mut varied = varied;
    let (field, range) = varied.remove(k);
    let requirements = request.require.iter().map(|r| parse_requirement(r)).collect::<Result<Vec<_>, _>>().map_err(said)?;
    let options = request.runs.options(request.reps);
    let tune = Tune { field, range, goal, requirements: requirements.clone(), options };
    let mut tuner: Box<dyn Search> = match varied.pop() {
        None => Box::new(Tuner::new(&scenario, tune).map_err(said)?),
        Some((along, range)) => Box::new(Frontier::new(&scenario, tune, along, range).map_err(said)?),
    };
    let pool = crate::sweep::pool(request.runs.jobs)?;
    let bar = crate::progress_bar(0, "{spinner} {pos} replications, {per_sec}");
    while let Some(batch) = tuner.next_batch().map_err(said)? {
        let plan = batch.plan;
        let reps: Vec<usize> = batch.reps.collect();
        let done: Vec<Result<_, SweepError>> = pool.install(|| {
            reps.par_iter()
                .map(|&r| {
                    let rep = plan.run_counting(0, r);
                    bar.inc(1);
                    rep
                })
                .collect()
        });
        tuner.feed(done.into_iter().collect::<Result<Vec<_>, _>>().map_err(|why| why.to_string())?);
    }
    bar.finish_and_clear();
    let result = tuner.result();
    Ok(if request.json { to_json(&result) } else { to_table(&result, &requirements) })
}

fn to_json(result: &TuneResult) -> String {
    let mut text = serde_json::to_string_pretty(result).unwrap_or_default();
    text.push('\n');
    text
}

/// The answer as a person reads it: the best setting (or the closest and
/// its gap), each required metric there, what binds, and what it took.
fn to_table(r: &TuneResult, requirements: &[Requirement]) -> String {
    use std::fmt::Write;
    let field = r.field.to_string();
    let goal = if r.goal == Goal::Minimize { "smallest" } else { "largest" };
    let wanted: Vec<String> = requirements.iter().map(Requirement::to_string).collect();
    let mut out = format!("{}: the {goal} {field} with {} at 95% confidence\n\n", r.scenario, wanted.join(" and "));
    // A setting's value of the field chosen, and of the other field on a
    // frontier.
    let along = r.along.as_ref().map(ToString::to_string);
    let value_of = |s: &Setting| {
        let chosen = as_written(s.values.get(&r.field).copied().unwrap_or(f64::NAN));
        match r.along.as_ref().and_then(|a| s.values.get(a)) {
            Some(b) => format!("{chosen} at {} = {}", along.as_deref().unwrap_or_default(), as_written(*b)),
            None => chosen,
        }
    };
    let metric_line = |out: &mut String, setting: &Setting, req: &Requirement| {
        let shown = match setting.metrics.get(&req.metric) {
            Some(e) => match (e.mean, e.ci95) {
                (Some(m), Some(h)) => format!("{} ± {} (n = {})", significant(m), significant(h), e.n),
                (Some(m), None) => format!("{} (n = {})", significant(m), e.n),
                (None, _) => "no value".to_string(),
            },
            None => "no value".to_string(),
        };
        let _ = writeln!(out, "  {}  {shown}, required {} {}", req.metric, req.side, as_written(req.bound));
    };
    match (&r.best, &r.closest) {
        (Some(best), _) => {
            let _ = writeln!(out, "best: {field} = {}", value_of(best));
            for req in requirements {
                metric_line(&mut out, best, req);
            }
            if r.binding.is_empty() {
                let _ = writeln!(out, "binding: the range's end (every requirement still holds there)");
            } else {
                let _ = writeln!(out, "binding: {} (not met one step further)", r.binding.join(", "));
            }
        }
        (None, Some(closest)) => {
            let _ = writeln!(out, "no value of {field} in the range meets every requirement; the closest: {field} = {}", value_of(closest));
            for req in requirements {
                metric_line(&mut out, closest, req);
                if let Some(gap) = r.short_by.get(&req.metric.to_string()).filter(|g| **g > 0.0) {
                    let _ = writeln!(out, "    short by {}", significant(*gap));
                }
            }
        }
        (None, None) => out.push_str("nothing was tried\n"),
    }
    if let Some(along) = &along {
        let _ = writeln!(out, "\nfrontier ({along} taken as a cost: each line does better on {field} than every line above it):");
        for point in &r.frontier {
            let _ = writeln!(out, "  {field} = {}", value_of(point));
        }
        if r.frontier.is_empty() {
            let _ = writeln!(out, "  (empty: no setting meets every requirement)");
        }
    }
    let tried: Vec<String> = r
        .tried
        .iter()
        .map(|t| {
            let at = t.along.map(|b| format!(" at {}", as_written(b))).unwrap_or_default();
            format!("{}{at} ({} reps, {})", as_written(t.value), t.reps, if t.feasible { "met" } else { "not met" })
        })
        .collect();
    let _ = writeln!(out, "\nsearched {} points, {} replications, {} events: {}", r.points, r.replications, sluice_engine::thousands(r.events as f64), tried.join(", "));
    out
}
