//! A sweep of two fields as a map: one row per value of the first, one
//! column per value of the second, each cell the metric's mean; a
//! recovery metric's cells in words (stable, recovered, collapsed, or
//! mixed where the replications disagree), as the phase map of a retry
//! storm reads them.

use super::metric::{Measure, Metric};
use super::output::SweepResult;
use super::statistics::Estimate;
use crate::plumbing::numbers::{as_written, significant};

/// What the replications of one point of a recovery metric came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Every replication held its goodput through the trigger.
    Stable,
    /// Every one fell and came back.
    Recovered,
    /// Every one stayed down.
    Collapsed,
    /// The replications came to different ends.
    Mixed,
}

impl Recovery {
    /// The class of a recovery metric's estimate (each replication 2, 1
    /// or 0), if it has a value.
    pub fn of(e: &Estimate) -> Option<Recovery> {
        let mean = e.mean?;
        let spread = e.ci95.unwrap_or(0.0);
        Some(if mean == 2.0 {
            Recovery::Stable
        } else if mean == 0.0 {
            Recovery::Collapsed
        } else if mean == 1.0 && spread == 0.0 {
            Recovery::Recovered
        } else {
            Recovery::Mixed
        })
    }

    pub fn word(self) -> &'static str {
        match self {
            Recovery::Stable => "stable",
            Recovery::Recovered => "recovered",
            Recovery::Collapsed => "collapsed",
            Recovery::Mixed => "mixed",
        }
    }

    /// Its colour wherever a map or a chart draws it (red, green, blue):
    /// green, amber, red, grey, each light or dark enough for its words to
    /// read at 4.5 : 1 (dark words on the green, amber and grey, white on
    /// the red).
    pub fn rgb(self) -> (u8, u8, u8) {
        match self {
            Recovery::Stable => (0x37, 0xb2, 0x4d),
            Recovery::Recovered => (0xf0, 0x8c, 0x00),
            Recovery::Collapsed => (0xc9, 0x2a, 0x2a),
            Recovery::Mixed => (0xad, 0xb5, 0xbd),
        }
    }
}

impl SweepResult {
    /// The sweep as a map of `metric` over its two varied fields, or why
    /// it cannot be one.
    pub fn to_map(&self, metric: &Metric) -> Result<String, String> {
        let [rows_of, columns_of] = self.varied.as_slice() else {
            return Err(format!("a map needs two varied fields; this sweep varies {}", self.varied.len()));
        };
        let values = |field| {
            let mut vs: Vec<f64> = self.points.iter().filter_map(|p| p.values.get(field).copied()).collect();
            vs.sort_by(f64::total_cmp);
            vs.dedup();
            vs
        };
        let (rows, columns) = (values(rows_of), values(columns_of));
        let recovery = matches!(metric, Metric::Of { measure: Measure::Recovery, .. });
        let cell = |r: f64, c: f64| {
            let point = self.points.iter().find(|p| p.values.get(rows_of) == Some(&r) && p.values.get(columns_of) == Some(&c));
            match point.and_then(|p| p.metrics.get(metric)) {
                Some(e) if recovery => Recovery::of(e).map_or("–".into(), |k| match k {
                    Recovery::Mixed => format!("mixed {}", significant(e.mean.unwrap_or(0.0))),
                    k => k.word().to_string(),
                }),
                Some(Estimate { mean: Some(m), .. }) => significant(*m),
                _ => "–".into(),
            }
        };
        let mut grid: Vec<Vec<String>> = vec![std::iter::once(format!("{rows_of} \\ {columns_of}")).chain(columns.iter().map(|&c| as_written(c))).collect()];
        for &r in &rows {
            grid.push(std::iter::once(as_written(r)).chain(columns.iter().map(|&c| cell(r, c))).collect());
        }
        Ok(self.laid_out(&format!("{}: {metric}", self.scenario), grid))
    }
}
