//! A tuning across the page's worker: the request as JSON, and a runner
//! that does it one replication a step and says what it did, as a sweep's
//! `Runner` does.
//!
//! Guarantee: a runner's result is `Tuner::finish`'s for the same request,
//! bit for bit; whatever ran it step by step.

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;
use crate::sweep::{warmup_for, NodeField, Options, Replication};

use super::{parse_requirement, Goal, Range, Tried, Tune, TuneError, TuneResult, Tuner};

/// Everything a tuning needs, as the page sends it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneRequest {
    pub scenario: Scenario,
    pub field: NodeField,
    pub from: f64,
    pub to: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<f64>,
    pub goal: Goal,
    /// `METRIC<=VALUE` or `METRIC>=VALUE`, as typed.
    pub require: Vec<String>,
    /// The most replications a value gets.
    pub reps: usize,
    pub until_s: f64,
    pub seed: u64,
}

impl TuneRequest {
    /// The search, every mistake said before anything runs.
    pub fn tuner(&self) -> Result<Tuner, TuneError> {
        let requirements = self.require.iter().map(|r| parse_requirement(r)).collect::<Result<Vec<_>, _>>()?;
        let options = Options { reps: self.reps, until_s: self.until_s, warmup_s: warmup_for(self.until_s), seed: self.seed };
        let tune = Tune { field: self.field.clone(), range: Range { from: self.from, to: self.to, step: self.step }, goal: self.goal, requirements, options };
        Tuner::new(&self.scenario, tune)
    }
}

/// What a tuning runner did in one step. Externally tagged, as a sweep's
/// reports are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TuneReport {
    /// Replication `rep` of the value `value` is done.
    Replication { value: f64, rep: usize },
    /// A value is decided: feasible or not, after how many replications.
    Tried(Tried),
    /// The search is over.
    Done(Box<TuneResult>),
    Failed { why: String },
}

/// A batch under way: the replications still to run, and those run with
/// their events.
type Batch = (std::ops::Range<usize>, Vec<(Replication, u64)>);

/// A tuning being done, one replication per step.
pub struct TuneRunner {
    tuner: Tuner,
    batch: Option<Batch>,
    over: bool,
}

impl TuneRunner {
    pub fn new(tuner: Tuner) -> TuneRunner {
        TuneRunner { tuner, batch: None, over: false }
    }

    /// Does the next piece of work and says what it was; `None` once the
    /// search is done or failed.
    pub fn step(&mut self) -> Option<TuneReport> {
        if self.over {
            return None;
        }
        let (mut todo, mut done) = match self.batch.take() {
            Some(batch) => batch,
            None => match self.tuner.next_batch() {
                Ok(Some(batch)) => (batch.reps, Vec::new()),
                Ok(None) => {
                    self.over = true;
                    return Some(TuneReport::Done(Box::new(self.tuner.result())));
                }
                Err(why) => return Some(self.fail(why.to_string())),
            },
        };
        let Some(rep) = todo.next() else { return Some(self.fail("an empty batch".into())) };
        let Some((value, plan)) = self.tuner.current() else { return Some(self.fail("no value under way".into())) };
        match plan.run_counting(0, rep) {
            Ok(replication) => done.push(replication),
            Err(why) => return Some(self.fail(why.to_string())),
        }
        if todo.is_empty() {
            if let Some(tried) = self.tuner.feed(done) {
                // The replication's own report is implied by the verdict.
                return Some(TuneReport::Tried(tried));
            }
        } else {
            self.batch = Some((todo, done));
        }
        Some(TuneReport::Replication { value, rep })
    }

    fn fail(&mut self, why: String) -> TuneReport {
        self.over = true;
        TuneReport::Failed { why }
    }
}
