//! Two fields: the Pareto frontier. `sluice tune` with a second `--vary`
//! searches the goal's field (as one field's tuning does) at each value of
//! the other, which it takes for a cost: less of it is better (fewer
//! workers, a smaller queue, a lower limit).
//!
//! Guarantees:
//! - Each value of the other field gets the one-field search of the goal's
//!   field, with its own replications (the same seeds: common random
//!   numbers across the whole frontier), in increasing order of the other
//!   field; the result is each search's, bit for bit.
//! - The frontier holds the settings no other feasible setting beats on
//!   both fields: walking up the other field, a value's best is kept only
//!   when it is strictly better than every best at less of the other field.
//!   Its last point has the best value of the goal's field; it is `best`.
//! - With no feasible setting anywhere, `closest` is the tried setting whose
//!   worst requirement misses least, relative to its bound, as one field's.

use crate::scenario::Scenario;
use crate::sweep::{with_value, NodeField};

use super::{Batch, Goal, Range, Requirement, Search, Setting, Tried, Tune, TuneError, TuneResult, Tuner};

/// The most values the other field may take: each is a whole search.
pub const MAX_ROWS: usize = 101;

/// One search per value of the other field, run one after another.
pub struct Frontier {
    along: NodeField,
    goal: Goal,
    requirements: Vec<Requirement>,
    rows: Vec<(f64, Tuner)>,
    at: usize,
}

impl Frontier {
    /// Checks the request: `tune` for the goal's field, `along` over
    /// `range` for the other; nothing runs yet.
    pub fn new(scenario: &Scenario, tune: Tune, along: NodeField, range: Range) -> Result<Frontier, TuneError> {
        if along == tune.field {
            return Err(TuneError::SameField(along.to_string()));
        }
        let values = range.values(scenario, &along)?;
        if values.len() > MAX_ROWS {
            return Err(TuneError::TooManyRows { field: along.to_string(), values: values.len() });
        }
        let (goal, requirements) = (tune.goal, tune.requirements.clone());
        let rows = values
            .into_iter()
            .map(|b| {
                let (id, block) = with_value(scenario, &along, b).map_err(|e| TuneError::Sweep(crate::sweep::SweepError::Vary(e)))?;
                let mut at_b = scenario.clone();
                if let Some(i) = at_b.node_index(&id) {
                    at_b.nodes[i].block = block;
                }
                Ok((b, Tuner::new(&at_b, tune.clone())?))
            })
            .collect::<Result<Vec<_>, TuneError>>()?;
        Ok(Frontier { along, goal, requirements, rows, at: 0 })
    }

    /// The next batch to run, or none once every search is over.
    pub fn next_batch(&mut self) -> Result<Option<Batch<'_>>, TuneError> {
        while self.at < self.rows.len() && self.rows[self.at].1.is_done() {
            self.at += 1;
        }
        match self.rows.get_mut(self.at) {
            Some((_, tuner)) => tuner.next_batch(),
            None => Ok(None),
        }
    }

    /// The setting being tried and its plan.
    pub fn current(&self) -> Option<(f64, &crate::sweep::Plan)> {
        self.rows.get(self.at)?.1.current()
    }

    /// The replications of the batch `next_batch` gave, in order; the
    /// setting tried, once its verdict is sure.
    pub fn feed(&mut self, reps: Vec<(crate::sweep::Replication, u64)>) -> Option<Tried> {
        let (b, tuner) = self.rows.get_mut(self.at)?;
        tuner.feed(reps).map(|tried| Tried { along: Some(*b), ..tried })
    }

    /// The frontier, once `next_batch` says every search is over.
    pub fn result(&self) -> TuneResult {
        let with_b = |setting: Setting, b: f64| {
            let mut values = setting.values;
            values.insert(self.along.clone(), b);
            Setting { values, ..setting }
        };
        let results: Vec<(f64, TuneResult)> = self.rows.iter().map(|(b, tuner)| (*b, tuner.result())).collect();
        let better = |a: f64, than: f64| match self.goal {
            Goal::Minimize => a < than,
            Goal::Maximize => a > than,
        };
        let mut frontier: Vec<(usize, f64)> = Vec::new();
        for (k, (_, r)) in results.iter().enumerate() {
            let Some(a) = r.best.as_ref().and_then(|s| s.values.values().next().copied()) else { continue };
            if frontier.last().is_none_or(|&(_, last)| better(a, last)) {
                frontier.push((k, a));
            }
        }
        let best = frontier.last().map(|&(k, _)| k);
        // With nothing feasible, the row whose closest setting misses least.
        let worst = |r: &TuneResult| {
            self.requirements.iter().map(|q| r.short_by.get(&q.metric.to_string()).copied().unwrap_or(f64::INFINITY) / q.bound.abs().max(f64::MIN_POSITIVE)).fold(0.0, f64::max)
        };
        let closest = if best.is_none() { results.iter().enumerate().filter(|(_, (_, r))| r.closest.is_some()).min_by(|a, b| worst(&a.1 .1).total_cmp(&worst(&b.1 .1))).map(|(k, _)| k) } else { None };
        let first = &results[0].1;
        TuneResult {
            scenario: first.scenario.clone(),
            goal: self.goal,
            field: first.field.clone(),
            along: Some(self.along.clone()),
            requirements: first.requirements.clone(),
            feasible: best.is_some(),
            best: best.and_then(|k| Some(with_b(results[k].1.best.clone()?, results[k].0))),
            binding: best.map(|k| results[k].1.binding.clone()).unwrap_or_default(),
            closest: closest.and_then(|k| Some(with_b(results[k].1.closest.clone()?, results[k].0))),
            short_by: closest.map(|k| results[k].1.short_by.clone()).unwrap_or_default(),
            frontier: frontier.iter().filter_map(|&(k, _)| Some(with_b(results[k].1.best.clone()?, results[k].0))).collect(),
            points: results.iter().map(|(_, r)| r.points).sum(),
            replications: results.iter().map(|(_, r)| r.replications).sum(),
            events: results.iter().map(|(_, r)| r.events).sum(),
            tried: results.iter().flat_map(|(b, r)| r.tried.iter().map(move |t| Tried { along: Some(*b), ..t.clone() })).collect(),
        }
    }

}

impl Search for Frontier {
    fn next_batch(&mut self) -> Result<Option<Batch<'_>>, TuneError> {
        Frontier::next_batch(self)
    }

    fn feed(&mut self, reps: Vec<(crate::sweep::Replication, u64)>) -> Option<Tried> {
        Frontier::feed(self, reps)
    }

    fn result(&self) -> TuneResult {
        Frontier::result(self)
    }
}
