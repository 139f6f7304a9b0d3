//! The seeded random stream of a run.
//!
//! Guarantees: one seed gives one sequence of numbers on every platform;
//! a run gives every node a stream of its own, picked by the seed and the
//! node's name. The
//! generator is PCG (64-bit multiplier, 128-bit state); uniform floats take
//! the top 53 bits; logarithms and exponentials come from `libm`, never from
//! the platform, so native and WebAssembly runs agree to the bit.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug)]
pub struct SimRng {
    inner: Pcg64Mcg,
}

impl SimRng {
    pub fn new(seed: u64) -> Self {
        SimRng { inner: Pcg64Mcg::seed_from_u64(seed) }
    }

    /// The stream of the node named `id` in a run seeded with `seed`. Each
    /// node draws from its own stream, chosen by its name, so a node's
    /// draws do not depend on where it stands in the file or on what other
    /// nodes exist (adding a producer leaves the others' arrivals as they
    /// were).
    pub fn for_node(seed: u64, id: &str) -> Self {
        // FNV-1a: stable across platforms and versions, unlike std's hasher.
        let name = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        SimRng::new(seed ^ name)
    }

    /// A uniform draw in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.inner.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform draw in (0, 1], safe to take the logarithm of.
    #[inline]
    pub fn uniform_open_zero(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// An exponential draw with the given mean.
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.uniform_open_zero())
    }

    /// A standard normal draw (Box–Muller; one of the pair is discarded so
    /// that the stream position never depends on earlier calls).
    pub fn standard_normal(&mut self) -> f64 {
        let u1 = self.uniform_open_zero();
        let u2 = self.uniform();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(std::f64::consts::TAU * u2)
    }

    /// An index drawn with probability proportional to `weights[i]`.
    /// `total` must be the sum of the weights, all of them positive.
    pub fn weighted_index(&mut self, weights: &[f64], total: f64) -> usize {
        let mut target = self.uniform() * total;
        for (i, w) in weights.iter().enumerate() {
            if target < *w {
                return i;
            }
            target -= w;
        }
        weights.len().saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SimRng::new(42);
        let mut b = SimRng::new(42);
        for _ in 0..1000 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
        let mut c = SimRng::new(43);
        assert_ne!(SimRng::new(42).uniform(), c.uniform());
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut r = SimRng::new(7);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        // Standard error of the mean is 2/sqrt(n) ≈ 0.0045; allow four.
        assert!((mean - 2.0).abs() < 0.018, "mean {mean}");
    }

    #[test]
    fn weighted_index_follows_weights() {
        let mut r = SimRng::new(1);
        let w = [1.0, 3.0];
        let n = 100_000;
        let ones = (0..n).filter(|_| r.weighted_index(&w, 4.0) == 1).count();
        let p = ones as f64 / n as f64;
        assert!((p - 0.75).abs() < 0.006, "p {p}");
    }
}
