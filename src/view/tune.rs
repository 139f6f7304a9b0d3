//! A search for the setting (`sluice_engine::tune`) as the Sweep panel
//! shows it: the values tried so far, the replications run, and the
//! answer in words.

use sluice_engine::numbers::{as_written, four_figures};
use sluice_engine::tune::{Goal, Tried, TuneReport, TuneResult};

/// Where a search stands.
#[derive(Clone, Debug, PartialEq)]
pub enum TunePhase {
    Running,
    Done(Box<TuneResult>),
    Cancelled,
    Failed(String),
}

/// A search under way or ended.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneRun {
    pub tried: Vec<Tried>,
    pub replications: usize,
    pub phase: TunePhase,
}

impl TuneRun {
    pub fn new() -> TuneRun {
        TuneRun { tried: Vec::new(), replications: 0, phase: TunePhase::Running }
    }

    /// Takes a report of the worker's.
    pub fn take(&mut self, report: TuneReport) {
        if self.phase != TunePhase::Running {
            return;
        }
        match report {
            TuneReport::Replication { .. } => self.replications += 1,
            TuneReport::Tried(t) => {
                self.replications += 1;
                self.tried.push(t);
            }
            TuneReport::Done(result) => self.phase = TunePhase::Done(result),
            TuneReport::Failed { why } => self.phase = TunePhase::Failed(why),
        }
    }

    pub fn cancel(&mut self) {
        if self.phase == TunePhase::Running {
            self.phase = TunePhase::Cancelled;
        }
    }

    /// How far it got, in words.
    pub fn progress(&self) -> String {
        let n = self.tried.len();
        format!("{} replication{}, {n} value{} decided", self.replications, if self.replications == 1 { "" } else { "s" }, if n == 1 { "" } else { "s" })
    }

    /// The best value, when one was found.
    pub fn best(&self) -> Option<f64> {
        match &self.phase {
            TunePhase::Done(r) => r.best.as_ref().and_then(|b| b.values.values().next().copied()),
            _ => None,
        }
    }
}

impl Default for TuneRun {
    fn default() -> Self {
        TuneRun::new()
    }
}

/// The answer in words: the value found and the required metric there
/// (`field`, `metric` and what was required, `wanted`, as the panel words
/// them), or why none was.
pub fn answer_words(result: &TuneResult, field: &str, metric: &str, wanted: &str) -> String {
    let goal = if result.goal == Goal::Minimize { "smallest" } else { "largest" };
    let measured = |setting: &sluice_engine::tune::Setting| {
        setting
            .metrics
            .iter()
            .find(|(m, _)| result.requirements.iter().any(|r| r.starts_with(&m.to_string()) && r[m.to_string().len()..].starts_with(['<', '>'])))
            .and_then(|(_, e)| Some(format!("{} ± {}", four_figures(e.mean?), four_figures(e.ci95.unwrap_or(0.0)))))
    };
    match (&result.best, &result.closest) {
        (Some(best), _) => {
            let v = best.values.values().next().copied().unwrap_or(f64::NAN);
            let there = measured(best).map_or(String::new(), |m| format!(" ({metric} {m})"));
            format!("The {goal} {field} that keeps {wanted} with 95% confidence: {}{there}. Tried {} values, {} replications.", as_written(v), result.points, result.replications)
        }
        (None, Some(closest)) => {
            let v = closest.values.values().next().copied().unwrap_or(f64::NAN);
            let there = measured(closest).map_or(String::new(), |m| format!(": {metric} {m} there"));
            format!("No {field} in the range keeps {wanted} with 95% confidence; the closest is {}{there}.", as_written(v))
        }
        (None, None) => "Nothing was tried.".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_engine::tune::{parse_range, parse_requirement, Tune, Tuner};

    #[test]
    fn a_search_reads_as_its_reports_come_and_answers_in_words() {
        let scenario = sluice_engine::Scenario::from_json(include_str!("../../scenarios/queueing-theory.json")).unwrap();
        let (field, range) = parse_range("server.workers=1:20").unwrap();
        let options = sluice_engine::sweep::Options { reps: 10, until_s: 300.0, warmup_s: 30.0, seed: 1 };
        let tune = Tune { field, range, goal: Goal::Minimize, requirements: vec![parse_requirement("line.mean_wait_s<=0.01").unwrap()], options };
        let mut runner = sluice_engine::tune::TuneRunner::new(Tuner::new(&scenario, tune).unwrap());
        let mut run = TuneRun::new();
        while let Some(report) = runner.step() {
            run.take(report);
        }
        assert_eq!(run.best(), Some(3.0));
        let TunePhase::Done(result) = &run.phase else { panic!("{:?}", run.phase) };
        assert_eq!(run.replications, result.replications);
        assert_eq!(run.tried.len(), result.points);
        let words = answer_words(result, "server: Workers", "line: mean wait (s)", "line: mean wait (s) at most 0.01");
        assert!(words.starts_with("The smallest server: Workers that keeps line: mean wait (s) at most 0.01 with 95% confidence: 3 (line: mean wait (s) "), "{words}");
        run.cancel();
        assert!(matches!(run.phase, TunePhase::Done(_)), "a finished search stays finished");
    }
}
