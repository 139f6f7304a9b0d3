//! Sweeps: one or more parameters varied over a grid of points, each point
//! run for several replications, every metric estimated with a 95%
//! confidence interval, and the theory's prediction beside it where a queue
//! has a closed form. The command line runs them (in parallel, in shards);
//! this module plans them and runs one replication at a time.
//!
//! Guarantees:
//! - Everything wrong with a sweep is said before anything runs: an unknown
//!   node or field, an empty range, a value the scenario refuses (naming
//!   the point and why), a grid over `MAX_POINTS`.
//! - Common random numbers: replication `r` runs on the same seed at every
//!   point, derived from the sweep's seed, so the differences between
//!   points are sharper than their own noise.
//! - Warm-up deletion: every metric counts from `warmup_s` to `until_s`
//!   (marks taken at both instants; nothing is reset).
//! - Deterministic: a replication's result depends on its point and number
//!   alone, and `summarise` on the results in replication order, so any
//!   order or number of threads gives the same bits.

mod errors;
mod map;
mod metric;
mod output;
mod request;
mod statistics;

use std::collections::BTreeMap;

use crate::measure::Mark;
use crate::plumbing::numbers::as_written;
use crate::scenario::{BlockSpec, FieldPath, Kind, Scenario, SetError};
use crate::simulation::Simulation;
use crate::theory::Model;
use crate::time::SimTime;

pub use map::Recovery;
pub use errors::{MergeError, PointError, SpreadError, SweepError, ValuesError, VaryError};
pub use metric::{Measure, Metric, MetricError, NodeField, NodeFieldError, Total};
pub use output::{merge, PointResult, SweepResult, Theory};
pub use request::{spread, warmup_for, Report, Request, Runner, Varied, WARMUP_SHARE};


pub use statistics::{estimate, t975, Estimate};

/// The most points a sweep may have.
pub const MAX_POINTS: usize = 100_000;
/// The most replications per point.
pub const MAX_REPS: usize = 10_000;

/// One varied parameter: a node's field and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// `line.soft_limit.messages`.
    pub field: NodeField,
    /// The node's place in the scenario.
    node: usize,
    pub values: Vec<f64>,
}

/// How long each replication runs, how many there are, and their seeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    pub reps: usize,
    pub until_s: f64,
    pub warmup_s: f64,
    pub seed: u64,
}

/// A sweep ready to run: its points' scenarios, all checked.
pub struct Plan {
    pub options: Options,
    pub varies: Vec<Vary>,
    /// Per point: the varied values, in the order of `varies`.
    pub values: Vec<Vec<f64>>,
    scenarios: Vec<Scenario>,
    name: String,
    /// The scenario and grid's digest (`digest_of`).
    digest: String,
}

/// What one replication measured: each metric's value, where it has one.
pub type Replication = BTreeMap<Metric, Option<f64>>;

/// Reads `NODE.FIELD=FROM:TO:STEP` or `NODE.FIELD=V1,V2,...` against
/// `scenario` (see `Vary::named`).
pub fn parse_vary(text: &str, scenario: &Scenario) -> Result<Vary, SweepError> {
    let (name, range) = text.split_once('=').ok_or_else(|| SweepError::VaryForm(text.to_string()))?;
    let values = parse_values(range.trim()).map_err(|why| SweepError::Vary(VaryError::Values { name: name.trim().to_string(), why }))?;
    let (_, field) = locate(scenario, name).map_err(SweepError::Vary)?;
    Vary::named(&field, values, scenario).map_err(SweepError::Vary)
}

impl Vary {
    /// The field `field` of a node of `scenario`, taking `values`. An
    /// error begins with the field's name.
    pub fn named(field: &NodeField, values: Vec<f64>, scenario: &Scenario) -> Result<Vary, VaryError> {
        let name = field.to_string();
        let node = scenario.node_index(&field.node).ok_or_else(|| VaryError::NoNode { name: name.clone(), nodes: ids(scenario) })?;
        let refuse = |why| Err(VaryError::Values { name: name.clone(), why });
        let Some(&first) = values.first() else {
            return refuse(ValuesError::None);
        };
        if let Some(&v) = values.iter().find(|v| !v.is_finite()) {
            return refuse(ValuesError::NotFinite(v));
        }
        if values.len() > MAX_POINTS {
            return refuse(ValuesError::TooMany);
        }
        // The field must be a number field the block has (or may have: an
        // optional field left out of the file), which setting it shows.
        let block = &scenario.nodes[node].block;
        block.clone().set_number(&field.field, first).map_err(|why| vary_error(&name, &scenario.nodes[node], why))?;
        Ok(Vary { field: field.clone(), node, values })
    }
}

/// The node and the field that `NODE.FIELD`, as written, names. A node's
/// id holds no dot: the node is what comes before the first, the rest is
/// the field's path as `docs/scenario.md` writes it. An error begins with
/// the name.
fn locate(scenario: &Scenario, name: &str) -> Result<(usize, NodeField), VaryError> {
    let name = name.trim();
    let Some((id, path)) = name.split_once('.') else {
        return Err(VaryError::NotNodeField(name.to_string()));
    };
    let Some(node) = scenario.node_index(id) else {
        return Err(VaryError::NoNode { name: name.to_string(), nodes: ids(scenario) });
    };
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return Err(VaryError::NoField(name.to_string()));
    }
    let field = FieldPath::parse(path).map_err(|why| VaryError::Path { name: name.to_string(), why })?;
    Ok((node, NodeField { node: id.to_string(), field }))
}

/// The value of `field` in `scenario` now, and whether it holds a whole
/// number; none when there is no such node or number field, or the field
/// is left out (an optional one).
pub fn field_value(scenario: &Scenario, field: &NodeField) -> Option<(f64, bool)> {
    let node = scenario.node_index(&field.node)?;
    scenario.nodes[node].block.number(&field.field)
}

/// `field` as a person reads it: its node and the label the inspector
/// gives it, with its unit (`line: Soft limit (messages)`, `src:
/// Arrivals, Rate (messages/s)`); its path where
/// the inspector has no label for it.
pub fn field_words(scenario: &Scenario, field: &NodeField) -> String {
    use crate::scenario::fields::{distribution_params, fields, process_params};
    let path = field.field.to_string();
    let Some(node) = scenario.node_index(&field.node).map(|i| &scenario.nodes[i]) else { return field.to_string() };
    let table = fields(node.block.kind());
    let unit = |u: crate::scenario::fields::Unit| if u.label().is_empty() { String::new() } else { format!(" ({})", u.label()) };
    if let Some(f) = table.iter().find(|f| f.path().to_string() == path) {
        return format!("{}: {}{}", field.node, f.label, unit(f.unit));
    }
    // A parameter of an arrival process or a distribution the block holds.
    let block = crate::plumbing::json_read::to_value(&node.block);
    for f in table {
        let Some(param) = path.strip_prefix(&format!("{}.", f.path())) else { continue };
        let Some(inner) = block.pointer(&f.path().pointer()) else { continue };
        let params = if let Ok(a) = crate::plumbing::json_read::from_value::<crate::arrivals::Arrivals>(inner) {
            process_params(&a)
        } else if let Ok(d) = crate::plumbing::json_read::from_value::<crate::distribution::Distribution>(inner) {
            distribution_params(&d)
        } else {
            continue;
        };
        if let Some(p) = params.iter().find(|p| p.name == param) {
            // A distribution's parameter is in the field's unit (seconds,
            // bytes); a process's in its own.
            let u = if p.unit.label().is_empty() { f.unit } else { p.unit };
            return format!("{}: {}, {}{}", field.node, f.label, p.label, unit(u));
        }
    }
    field.to_string()
}

/// The node's id and its block with `field` set to `value`: what loading
/// a sweep's point into the scenario changes. The editor still validates
/// it in its scenario.
pub fn with_value(scenario: &Scenario, field: &NodeField, value: f64) -> Result<(String, BlockSpec), VaryError> {
    let name = field.to_string();
    let node = scenario.node_index(&field.node).ok_or_else(|| VaryError::NoNode { name: name.clone(), nodes: ids(scenario) })?;
    let node = &scenario.nodes[node];
    let mut block = node.block.clone();
    block.set_number(&field.field, value).map_err(|why| vary_error(&name, node, why))?;
    Ok((node.id.clone(), block))
}

/// A varied field `name` of `node` that did not take a value, said after
/// the name once.
fn vary_error(name: &str, node: &crate::scenario::NodeSpec, why: SetError) -> VaryError {
    match why {
        SetError::Number { why, .. } => VaryError::Number { name: name.to_string(), why },
        _ => VaryError::NotANumber { name: name.to_string(), kind: node.block.kind(), id: node.id.clone() },
    }
}

fn ids(scenario: &Scenario) -> String {
    scenario.nodes.iter().map(|n| n.id.as_str()).collect::<Vec<_>>().join(", ")
}

/// `FROM:TO:STEP` (both ends included, within a millionth of a step) or a
/// list `V1,V2,...`.
fn parse_values(range: &str) -> Result<Vec<f64>, ValuesError> {
    let read = |s: &str| match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(ValuesError::NotANumber(s.trim().to_string())),
    };
    let values: Vec<f64> = if let [from, to, step] = range.split(':').collect::<Vec<_>>()[..] {
        let (from, to, step) = (read(from)?, read(to)?, read(step)?);
        if step <= 0.0 {
            return Err(ValuesError::Step(step));
        }
        if to < from {
            return Err(ValuesError::EmptyRange { from, to });
        }
        let count = ((to - from) / step + 1e-6).floor() + 1.0;
        if count > MAX_POINTS as f64 {
            return Err(ValuesError::TooMany);
        }
        (0..count as usize).map(|k| from + step * k as f64).collect()
    } else if range.contains(':') {
        return Err(ValuesError::NotARange(range.to_string()));
    } else {
        range.split(',').map(read).collect::<Result<_, _>>()?
    };
    if values.is_empty() {
        return Err(ValuesError::None);
    }
    Ok(values)
}

impl Plan {
    /// The grid of every combination of `varies` (the first varies
    /// slowest), each point's scenario checked.
    pub fn new(scenario: &Scenario, varies: Vec<Vary>, options: Options) -> Result<Plan, SweepError> {
        if varies.is_empty() {
            return Err(SweepError::NothingVaried);
        }
        for (k, v) in varies.iter().enumerate() {
            if varies[..k].iter().any(|w| w.field == v.field) {
                return Err(SweepError::VariedTwice(v.field.to_string()));
            }
        }
        if !(1..=MAX_REPS).contains(&options.reps) {
            return Err(SweepError::Reps(options.reps));
        }
        if !(options.until_s.is_finite() && options.until_s > 0.0 && options.until_s <= 1e9) {
            return Err(SweepError::Until(options.until_s));
        }
        if !(options.warmup_s.is_finite() && options.warmup_s >= 0.0 && options.warmup_s < options.until_s) {
            return Err(SweepError::Warmup { until_s: options.until_s, warmup_s: options.warmup_s });
        }
        let points = varies.iter().try_fold(1usize, |n, v| n.checked_mul(v.values.len()).filter(|&n| n <= MAX_POINTS));
        let Some(points) = points else {
            return Err(SweepError::GridTooLarge);
        };
        let mut values = Vec::with_capacity(points);
        let mut scenarios = Vec::with_capacity(points);
        for k in 0..points {
            let mut rest = k;
            let mut point = vec![0.0; varies.len()];
            for (j, vary) in varies.iter().enumerate().rev() {
                point[j] = vary.values[rest % vary.values.len()];
                rest /= vary.values.len();
            }
            let mut s = scenario.clone();
            for (vary, &v) in varies.iter().zip(&point) {
                let at = |why| SweepError::Point { at: describe(&varies, &point), why };
                s.nodes[vary.node].block.set_number(&vary.field.field, v).map_err(|why| at(PointError::Set(why)))?;
            }
            s.validate().map_err(|e| SweepError::Point { at: describe(&varies, &point), why: PointError::Invalid(e) })?;
            values.push(point);
            scenarios.push(s);
        }
        let digest = digest_of(scenario, &varies);
        Ok(Plan { options, varies, values, scenarios, name: scenario.name.clone(), digest })
    }

    pub fn points(&self) -> usize {
        self.values.len()
    }

    /// The scenario of point `point`.
    pub fn scenario(&self, point: usize) -> &Scenario {
        &self.scenarios[point]
    }

    /// The seed of replication `rep`: the same at every point.
    pub fn seed_of(&self, rep: usize) -> u64 {
        // SplitMix64 of the sweep's seed and the replication's number, so
        // neighbouring replications get unrelated streams.
        let mut z = self.options.seed.wrapping_add((rep as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Runs replication `rep` of point `point`; an error names both.
    pub fn run(&self, point: usize, rep: usize) -> Result<Replication, SweepError> {
        self.run_counting(point, rep).map(|(metrics, _)| metrics)
    }

    /// As `run`, with the number of events the replication simulated.
    pub fn run_counting(&self, point: usize, rep: usize) -> Result<(Replication, u64), SweepError> {
        let at = |why: String| SweepError::Run { at: describe(&self.varies, &self.values[point]), rep: rep + 1, why };
        let scenario = &self.scenarios[point];
        let mut sim = Simulation::new(scenario.clone(), self.seed_of(rep)).map_err(|e| at(e.to_string()))?;
        sim.run_until(SimTime::from_secs_f64(self.options.warmup_s)).map_err(|stall| at(stall.to_string()))?;
        let marks: Vec<Mark> = (0..scenario.nodes.len()).map(|i| Mark::of(&sim, i)).collect();
        let totals = sim.totals();
        let span_s = self.options.until_s - self.options.warmup_s;
        // Producers whose recovery is measured: their last fifth apart.
        let recovering: Vec<usize> = (0..scenario.nodes.len()).filter(|&i| Measure::of_node(&scenario.nodes[i].block).contains(&Measure::Recovery)).collect();
        let last_fifth = if recovering.is_empty() {
            Vec::new()
        } else {
            sim.run_until(SimTime::from_secs_f64(self.options.until_s - span_s / 5.0)).map_err(|stall| at(stall.to_string()))?;
            recovering.iter().map(|&i| (i, Mark::of(&sim, i))).collect()
        };
        sim.run_until(SimTime::from_secs_f64(self.options.until_s)).map_err(|stall| at(stall.to_string()))?;
        let mut metrics = Replication::new();
        for (i, node) in scenario.nodes.iter().enumerate() {
            let change = Mark::of(&sim, i).since(&marks[i]);
            // Per message given to the node: a producer's copies sent again
            // count, as its drops of them do.
            let (arrived, departed) = (change.offered(), change.departed);
            let per_departure = |sum: f64| (departed > 0).then(|| sum / departed as f64);
            for measure in Measure::of_node(&node.block) {
                let value = match measure {
                    Measure::MeanDepthMessages => Some(change.depth_integral_s / span_s),
                    // A consumer's wait is its sojourn: from creation to the
                    // end of its service.
                    Measure::MeanWaitS if node.block.kind() == Kind::Consumer => per_departure(change.sojourn_s),
                    Measure::MeanWaitS => per_departure(change.residence_s),
                    Measure::P50WaitS | Measure::P90WaitS | Measure::P95WaitS | Measure::P99WaitS | Measure::P999WaitS => {
                        measure.quantile().and_then(|q| marks[i].quantile_since(&sim, i, q))
                    }
                    Measure::DropProbability => (arrived > 0).then(|| change.lost() as f64 / arrived as f64),
                    Measure::DisconnectsPerS => Some(change.disconnects as f64 / span_s),
                    Measure::ThroughputPerS => Some(departed as f64 / span_s),
                    Measure::GoodputPerS => Some(change.answered as f64 / span_s),
                    Measure::Recovery => {
                        // The share of the requests made that were answered
                        // in time, against the warm-up's: a share, not a
                        // rate, so that the noise of a short warm-up's
                        // arrivals cancels out.
                        let share = |answered: u64, made: u64| (made > 0).then(|| answered as f64 / made as f64);
                        let before = share(marks[i].client.answered, marks[i].arrived);
                        let last = last_fifth.iter().find(|(j, _)| *j == i).map(|(_, m)| Mark::of(&sim, i).since(m));
                        match (before, last) {
                            (Some(before), Some(last)) if before > 0.0 => {
                                let held = |s: Option<f64>| s.is_some_and(|s| s >= 0.9 * before);
                                Some(if held(share(change.answered, change.arrived)) {
                                    2.0
                                } else if held(share(last.answered, last.arrived)) {
                                    1.0
                                } else {
                                    0.0
                                })
                            }
                            _ => None,
                        }
                    }
                };
                metrics.insert(Metric::Of { node: node.id.clone(), measure }, value);
            }
            for &reason in Measure::drop_reasons(node.block.kind()) {
                let value = (arrived > 0).then(|| change.dropped[reason as usize] as f64 / arrived as f64);
                metrics.insert(Metric::DropsFor { node: node.id.clone(), reason }, value);
            }
        }
        let end = sim.totals();
        let counts = [end.produced - totals.produced, end.delivered - totals.delivered, end.dropped - totals.dropped];
        for (total, count) in Total::ALL.into_iter().zip(counts) {
            metrics.insert(Metric::Total(total), Some(count as f64));
        }
        Ok((metrics, sim.events()))
    }

    /// Point `point` summarised from its replications, in replication
    /// order.
    pub fn summarise(&self, point: usize, reps: &[Replication]) -> PointResult {
        let metrics = self
            .metrics()
            .into_iter()
            .map(|metric| {
                let values: Vec<f64> = reps.iter().filter_map(|r| r.get(&metric).copied().flatten()).collect();
                let estimate = estimate(&values);
                (metric, estimate)
            })
            .collect();
        let scenario = &self.scenarios[point];
        let theory = (0..scenario.nodes.len())
            .filter(|&i| matches!(scenario.nodes[i].block, BlockSpec::Queue(_)))
            .filter_map(|i| {
                let model = Model::of(scenario, i).ok()?;
                let prediction = model.predict();
                let steady = prediction.steady?;
                let wait_percentiles_s = Measure::ALL
                    .into_iter()
                    .filter_map(|m| Some((m, model.wait_quantile_s(m.quantile()?)?)))
                    .collect();
                let theory = Theory {
                    model: prediction.name,
                    mean_waiting: steady.mean_waiting,
                    mean_wait_s: steady.mean_wait_s,
                    drop_probability: steady.drop_probability,
                    wait_percentiles_s,
                };
                Some((scenario.nodes[i].id.clone(), theory))
            })
            .collect();
        let values = self.varies.iter().zip(&self.values[point]).map(|(v, &x)| (v.field.clone(), x)).collect();
        PointResult { values, metrics, theory }
    }

    /// The result of the points given (all of them, or a shard's), in
    /// point order.
    pub fn result(&self, points: Vec<PointResult>) -> SweepResult {
        SweepResult {
            scenario: self.name.clone(),
            varied: self.varies.iter().map(|v| v.field.clone()).collect(),
            reps: self.options.reps,
            until_s: self.options.until_s,
            warmup_s: self.options.warmup_s,
            seed: self.options.seed,
            points,
            shard: None,
            points_total: self.values.len(),
            digest: self.digest.clone(),
        }
    }
}

/// What identifies a sweep beyond its name: the scenario's text and every
/// varied field's values, as a 64-bit FNV-1a digest in hexadecimal. Two
/// shards of one sweep have the same; shards of a sweep of another
/// scenario, or of another grid, almost surely not.
fn digest_of(scenario: &Scenario, varies: &[Vary]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= b as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(scenario.to_json_pretty().as_bytes());
    for v in varies {
        feed(v.field.to_string().as_bytes());
        for x in &v.values {
            feed(&x.to_bits().to_le_bytes());
        }
    }
    format!("{hash:016x}")
}

/// Every metric a sweep of `scenario` measures, in name order.
pub fn metrics(scenario: &Scenario) -> Vec<Metric> {
    let mut metrics: Vec<Metric> = scenario
        .nodes
        .iter()
        .flat_map(|n| {
            let kind = n.block.kind();
            let measures = Measure::of_node(&n.block).into_iter().map(move |measure| Metric::Of { node: n.id.clone(), measure });
            measures.chain(Measure::drop_reasons(kind).iter().map(move |&reason| Metric::DropsFor { node: n.id.clone(), reason }))
        })
        .chain(Total::ALL.into_iter().map(Metric::Total))
        .collect();
    metrics.sort();
    metrics
}

impl Plan {
    /// Every metric this sweep measures, in name order.
    pub fn metrics(&self) -> Vec<Metric> {
        metrics(&self.scenarios[0])
    }

}

/// The metrics `wanted` names, each one of `measured`; or the first name
/// that is not, with the list of those that are.
pub fn metrics_named(wanted: &[String], measured: &[Metric]) -> Result<Vec<Metric>, SweepError> {
    wanted
        .iter()
        .map(|name| {
            Metric::parse(name.trim()).ok().filter(|m| measured.contains(m)).ok_or_else(|| SweepError::Metric {
                wanted: name.clone(),
                measured: measured.iter().map(Metric::to_string).collect::<Vec<_>>().join(", "),
            })
        })
        .collect()
}

/// A point for people: `line.soft_limit.messages = 20, src.rate = 4`.
fn describe(varies: &[Vary], point: &[f64]) -> String {
    varies.iter().zip(point).map(|(v, &x)| format!("{} = {}", v.field, as_written(x))).collect::<Vec<_>>().join(", ")
}


#[cfg(test)]
mod tests;
