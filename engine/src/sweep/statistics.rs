//! The statistics of a sweep: a metric's mean over replications and the
//! half-width of its 95% Student-t confidence interval.
//!
//! Guarantee: pure arithmetic on the values given, in their order, so the
//! same replications give the same bits whatever ran them.

use serde::{Deserialize, Serialize};

/// A metric at one point: its mean over the replications that gave a
/// value, the half-width of the 95% interval (none with fewer than two
/// values), and how many values there were.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// None when no replication gave a value (a mean wait with nothing
    /// departed).
    pub mean: Option<f64>,
    pub ci95: Option<f64>,
    pub n: usize,
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the
/// factor of a two-sided 95% interval).
pub fn t975(df: usize) -> f64 {
    // Exact to four places for 1 to 30 degrees of freedom.
    const TABLE: [f64; 30] = [
        12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788, 2.1604, 2.1448,
        2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484,
        2.0452, 2.0423,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => TABLE[df - 1],
        _ => {
            // Cornish–Fisher expansion about the normal quantile: within
            // 1e-4 of the exact value from 31 degrees of freedom on.
            let z: f64 = 1.959_964;
            let n = df as f64;
            z + (z.powi(3) + z) / (4.0 * n) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// The estimate from the values of the replications (none: no value).
pub fn estimate(values: &[f64]) -> Estimate {
    let n = values.len();
    if n == 0 {
        return Estimate { mean: None, ci95: None, n };
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ci95 = (n >= 2).then(|| {
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        t975(n - 1) * (variance / n as f64).sqrt()
    });
    Estimate { mean: Some(mean), ci95, n }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_t_factor_meets_the_normal_one_as_the_degrees_grow() {
        assert_eq!(t975(9), 2.2622);
        assert!((t975(31) - 2.0395).abs() < 1e-3, "{}", t975(31));
        assert!((t975(120) - 1.9799).abs() < 1e-3, "{}", t975(120));
        assert!((t975(1_000_000) - 1.96).abs() < 1e-3);
    }

    #[test]
    fn an_estimate_is_the_mean_and_the_student_half_width() {
        let e = estimate(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(e.mean, Some(2.5));
        // s = 1.2910, s/√4 = 0.6455, t(3) = 3.1824.
        assert!((e.ci95.unwrap() - 2.0542).abs() < 1e-3, "{e:?}");
        assert_eq!(estimate(&[7.0]), Estimate { mean: Some(7.0), ci95: None, n: 1 });
        assert_eq!(estimate(&[]), Estimate { mean: None, ci95: None, n: 0 });
    }
}
