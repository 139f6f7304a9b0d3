//! Concurrency limiter: at most `max_in_flight` jobs started and not yet
//! finished, after super-queue's concurrency limiter.
//!
//! Guarantees:
//! - A message passes only while fewer than `max_in_flight` messages that
//!   passed it are unfinished; otherwise it is refused and the sender holds
//!   it (the queue before it pauses).
//! - A message is finished when a consumer completes it, or when it is
//!   dropped; its slot frees at that instant and the limiter wakes its
//!   senders.

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::context::Context;
use crate::plumbing::validate::{push_error, FieldError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConcurrencyLimiterSpec {
    pub max_in_flight: u64,
}

impl ConcurrencyLimiterSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.max_in_flight == 0 || self.max_in_flight > 1 << 32 {
            push_error(errors, format!("{path}.max_in_flight"), "must be between 1 and 2^32");
        }
    }
}

#[derive(Clone)]
pub struct ConcurrencyLimiter {
    spec: ConcurrencyLimiterSpec,
    in_flight: u64,
}

impl ConcurrencyLimiter {
    pub fn new(spec: ConcurrencyLimiterSpec) -> Self {
        ConcurrencyLimiter { spec, in_flight: 0 }
    }

    pub fn spec(&self) -> &ConcurrencyLimiterSpec {
        &self.spec
    }

    pub fn reconfigure(&mut self, spec: ConcurrencyLimiterSpec) {
        self.spec = spec;
    }

    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    pub fn admits(&self) -> bool {
        self.in_flight < self.spec.max_in_flight
    }

    pub fn sent(&mut self, ctx: &mut Context) {
        self.in_flight += 1;
        ctx.stats.arrived += 1;
        ctx.stats.departed += 1;
        ctx.stats.set_depth(ctx.core.now, self.in_flight, 0);
    }

    /// A message that passed finished (or was dropped).
    pub fn finished(&mut self, ctx: &mut Context) {
        self.in_flight = self.in_flight.saturating_sub(1);
        ctx.stats.set_depth(ctx.core.now, self.in_flight, 0);
    }
}

impl ConcurrencyLimiterSpec {
    /// Its number field at `steps` (a slider's, a sweep's).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("max_in_flight")] => Some(NumberField::Whole64(&mut self.max_in_flight)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::bench::Bench;

    #[test]
    fn at_most_max_in_flight_pass_and_a_finished_one_frees_its_slot_at_once() {
        let mut b = Bench::new();
        let mut l = ConcurrencyLimiter::new(ConcurrencyLimiterSpec { max_in_flight: 3 });
        for _ in 0..3 {
            assert!(l.admits());
            l.sent(&mut b.ctx());
        }
        assert!(!l.admits(), "three unfinished: the fourth waits");
        assert_eq!(l.in_flight(), 3);
        l.finished(&mut b.ctx());
        assert!(l.admits());
        // Lowered while running: nothing more passes until below the new bound.
        l.reconfigure(ConcurrencyLimiterSpec { max_in_flight: 1 });
        assert!(!l.admits());
        l.finished(&mut b.ctx());
        assert!(!l.admits(), "one still unfinished");
        l.finished(&mut b.ctx());
        assert!(l.admits());
        assert_eq!(l.in_flight(), 0);
    }

    /// A bound of 1 to 2^32 is taken; 0 and more are refused, naming the
    /// field.
    #[test]
    fn the_bound_is_from_1_to_2_to_the_32() {
        let refused = |max_in_flight: u64| {
            let mut errors = Vec::new();
            ConcurrencyLimiterSpec { max_in_flight }.validate("nodes[3]", &mut errors);
            errors.iter().map(|e| e.path.clone()).collect::<Vec<_>>()
        };
        assert!(refused(1).is_empty() && refused(1 << 32).is_empty());
        for bad in [0, (1 << 32) + 1, u64::MAX] {
            assert_eq!(refused(bad), ["nodes[3].max_in_flight"], "{bad}");
        }
    }
}
