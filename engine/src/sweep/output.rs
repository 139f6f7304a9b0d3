//! A sweep's result and how it is written: JSON (the documented shape, in
//! `docs/sweep.md`), CSV and a table for people; and the merge of shards
//! into what the unsharded sweep prints.
//!
//! Guarantee: a shard carries its place (`"shard": "I/N"`), and `merge`
//! puts the points back in grid order, so merged shards are byte for byte
//! the unsharded sweep's JSON.

use crate::plumbing::numbers::{as_written, significant};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::errors::MergeError;
use super::metric::{Measure, Metric, NodeField};
use super::statistics::Estimate;

/// What the theory predicts for a queue at a point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Theory {
    /// Kendall's notation: "M/M/1".
    pub model: String,
    pub mean_waiting: f64,
    pub mean_wait_s: f64,
    pub drop_probability: f64,
    /// The wait's percentiles, by the measure that reads them, where a
    /// closed form gives them (M/M/c with no bound).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub wait_percentiles_s: BTreeMap<Measure, f64>,
}

/// One point of the grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The varied values.
    pub values: BTreeMap<NodeField, f64>,
    pub metrics: BTreeMap<Metric, Estimate>,
    /// Per queue the theory recognises at this point, by the queue's id.
    pub theory: BTreeMap<String, Theory>,
}

impl PointResult {
    /// What theory predicts of `metric` (a queue's mean depth, mean wait
    /// or drop probability) at this point, if anything.
    pub fn predicted(&self, metric: &Metric) -> Option<f64> {
        let Metric::Of { node, measure } = metric else { return None };
        let t = self.theory.get(node)?;
        match measure {
            Measure::MeanDepthMessages => Some(t.mean_waiting),
            Measure::MeanWaitS => Some(t.mean_wait_s),
            Measure::DropProbability => Some(t.drop_probability),
            Measure::P50WaitS | Measure::P90WaitS | Measure::P95WaitS | Measure::P99WaitS | Measure::P999WaitS => {
                t.wait_percentiles_s.get(measure).copied()
            }
            Measure::DisconnectsPerS | Measure::ThroughputPerS | Measure::GoodputPerS | Measure::Recovery => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepResult {
    pub scenario: String,
    pub varied: Vec<NodeField>,
    pub reps: usize,
    pub until_s: f64,
    pub warmup_s: f64,
    pub seed: u64,
    pub points: Vec<PointResult>,
    /// A shard's place, `I/N`: only in a shard's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The points of the whole grid (a shard holds every N-th of them).
    #[serde(default)]
    pub points_total: usize,
    /// The scenario's and the grid's digest: shards of one sweep share it.
    #[serde(default)]
    pub digest: String,
}

impl SweepResult {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a sweep's result is plain data") + "\n"
    }

    /// The metrics every point has, in name order, narrowed to `only` if
    /// given.
    pub fn metrics(&self, only: &[Metric]) -> Vec<Metric> {
        let mut metrics: Vec<Metric> = self.points.iter().flat_map(|p| p.metrics.keys().cloned()).collect();
        metrics.sort();
        metrics.dedup();
        if !only.is_empty() {
            metrics.retain(|n| only.contains(n));
        }
        metrics
    }

    /// The varied fields' names.
    fn varied_names(&self) -> Vec<String> {
        self.varied.iter().map(NodeField::to_string).collect()
    }

    /// One row per point: the varied values, then `metric_mean` and
    /// `metric_ci95` for each metric (empty where there is no value).
    pub fn to_csv(&self, only: &[Metric]) -> String {
        let names = self.metrics(only);
        let mut out = self.varied_names().join(",");
        for n in &names {
            out.push_str(&format!(",{n}_mean,{n}_ci95"));
        }
        out.push('\n');
        let cell = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        for p in &self.points {
            let mut row: Vec<String> = self.varied.iter().map(|v| cell(p.values.get(v).copied())).collect();
            for n in &names {
                let e = p.metrics.get(n);
                row.push(cell(e.and_then(|e| e.mean)));
                row.push(cell(e.and_then(|e| e.ci95)));
            }
            out.push_str(&row.join(","));
            out.push('\n');
        }
        out
    }

    /// A table for people: the varied values, then `mean ± half-width` of
    /// each metric (with `only`, those alone).
    pub fn to_table(&self, only: &[Metric]) -> String {
        let names = self.metrics(only);
        // Beside a queue's figure that theory predicts, what it predicts.
        let with_theory: Vec<bool> = names.iter().map(|n| self.points.iter().any(|p| p.predicted(n).is_some())).collect();
        let mut header: Vec<String> = self.varied_names();
        for (n, &t) in names.iter().zip(&with_theory) {
            header.push(n.to_string());
            if t {
                header.push("theory".into());
            }
        }
        let mut rows: Vec<Vec<String>> = vec![header];
        for p in &self.points {
            let mut row: Vec<String> = self.varied.iter().map(|v| p.values.get(v).map_or(String::new(), |&x| as_written(x))).collect();
            for (n, &t) in names.iter().zip(&with_theory) {
                row.push(match p.metrics.get(n) {
                    Some(Estimate { mean: Some(m), ci95: Some(h), .. }) => format!("{} ± {}", significant(*m), significant(*h)),
                    Some(Estimate { mean: Some(m), .. }) => significant(*m),
                    _ => "–".into(),
                });
                if t {
                    row.push(p.predicted(n).map_or("–".into(), significant));
                }
            }
            rows.push(row);
        }
        self.laid_out(&self.scenario, rows)
    }

    /// `rows` under a head line of the sweep (`what` it is of, then its
    /// replications, times and seed), each column right-aligned.
    pub(super) fn laid_out(&self, what: &str, rows: Vec<Vec<String>>) -> String {
        let widths: Vec<usize> =
            (0..rows.first().map_or(0, Vec::len)).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
        let mut out = format!("{what}: {} replications of {} s each, warm-up {} s, seed {}\n\n", self.reps, self.until_s, self.warmup_s, self.seed);
        for row in rows {
            let cells: Vec<String> = row.iter().zip(&widths).map(|(c, &w)| format!("{c:>w$}")).collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// The shards of one sweep as the unsharded sweep would print it: every
/// shard of the same sweep (same scenario, varied fields, replications,
/// times and seed), each once, from 0 to N-1.
pub fn merge(shards: Vec<SweepResult>) -> Result<SweepResult, MergeError> {
    let mut placed = Vec::with_capacity(shards.len());
    for (k, shard) in shards.into_iter().enumerate() {
        let place = shard.shard.as_deref().ok_or(MergeError::NotAShard(k + 1))?;
        let (i, n) = place
            .split_once('/')
            .and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
            .filter(|&(i, n)| i < n)
            .ok_or_else(|| MergeError::BadPlace { part: k + 1, place: place.to_string() })?;
        placed.push((i, n, shard));
    }
    let Some(&(_, n, ref first)) = placed.first() else { return Err(MergeError::NoShards) };
    let same = |s: &SweepResult| {
        (&s.scenario, &s.digest, s.points_total, &s.varied, s.reps, s.until_s.to_bits(), s.warmup_s.to_bits(), s.seed)
            == (&first.scenario, &first.digest, first.points_total, &first.varied, first.reps, first.until_s.to_bits(), first.warmup_s.to_bits(), first.seed)
    };
    if let Some((i, _, s)) = placed.iter().find(|(_, m, s)| *m != n || !same(s)) {
        let why = if s.digest != first.digest {
            "its scenario or its grid differs"
        } else if s.points_total != first.points_total {
            "its grid has another number of points"
        } else {
            "its parameters differ"
        };
        return Err(MergeError::OtherSweep { i: *i, n, why });
    }
    // Each shard holds every N-th point of the grid from its own: no more,
    // no fewer (a file cut short, or edited, is refused).
    if first.points_total > 0 {
        for (i, _, s) in &placed {
            let expected = first.points_total.saturating_sub(*i).div_ceil(n);
            if s.points.len() != expected {
                return Err(MergeError::PointCount { i: *i, n, has: s.points.len(), total: first.points_total, expected });
            }
        }
    }
    placed.sort_by_key(|(i, _, _)| *i);
    for (k, (i, _, _)) in placed.iter().enumerate() {
        if *i != k {
            return Err(MergeError::MissingOrTwice { k, n });
        }
    }
    if placed.len() != n {
        return Err(MergeError::Given { given: placed.len(), n });
    }
    let mut merged = placed[0].2.clone();
    merged.shard = None;
    let total: usize = placed.iter().map(|(_, _, s)| s.points.len()).sum();
    let mut iters: Vec<_> = placed.into_iter().map(|(_, _, s)| s.points.into_iter()).collect();
    merged.points = Vec::with_capacity(total);
    for k in 0..total {
        let point = iters[k % n].next().ok_or(MergeError::TooFewPoints { k: k % n, n })?;
        merged.points.push(point);
    }
    Ok(merged)
}
