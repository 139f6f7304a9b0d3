//! Router: sends each message to one of its outputs. It holds nothing.
//!
//! Guarantees:
//! - `round_robin` takes the outputs in turn, moving on only when a message
//!   was taken; `by_weight` draws an output with probability proportional
//!   to `weights` (one per output, in edge order); `by_class` sends each
//!   class named in `classes` to the node given there and others to
//!   `default`; `by_destination` sends a message to the output from which
//!   its destination can be reached. A message with no route is dropped
//!   (`no_route`) rather than left to block its sender forever.
//! - A message the chosen output refuses is refused here: the sender holds
//!   it, and the router wakes its senders when an output has room again.
//! - Fan-in needs no block: several edges may enter any input.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::message::{Message, NO_DESTINATION};
use crate::rng::SimRng;
use crate::plumbing::validate::{check_range, push_error, FieldError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum RouterSpec {
    RoundRobin,
    ByWeight {
        /// One weight per outgoing edge, in the order of the edges.
        weights: Vec<f64>,
    },
    ByClass {
        /// Class name → id of the node (an output) it goes to.
        classes: BTreeMap<String, String>,
        /// Where other classes go; without it they are dropped (`no_route`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<String>,
    },
    ByDestination,
}

impl RouterSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if let RouterSpec::ByWeight { weights } = self {
            if weights.is_empty() {
                push_error(errors, format!("{path}.weights"), "needs one weight per outgoing edge");
            }
            for (i, w) in weights.iter().enumerate() {
                check_range(errors, format!("{path}.weights[{i}]"), *w, 0.0, 1e9);
            }
            if weights.iter().all(|w| *w == 0.0) {
                push_error(errors, format!("{path}.weights"), "at least one weight must be greater than 0");
            }
        }
    }
}

/// How the router picks among its outputs, resolved to output positions.
#[derive(Clone)]
pub enum Choice {
    RoundRobin { next: usize },
    ByWeight { weights: Vec<f64>, total: f64 },
    /// Output position per scenario-wide class index, `None` = refuse.
    ByClass { by_class: Vec<Option<usize>> },
    /// Output position per destination node index.
    ByDestination { by_node: Vec<Option<usize>> },
}

#[derive(Clone)]
pub struct Router {
    spec: RouterSpec,
    choice: Choice,
    outputs: usize,
}

impl Router {
    pub fn new(spec: RouterSpec, choice: Choice, outputs: usize) -> Self {
        Router { spec, choice, outputs }
    }

    pub fn spec(&self) -> &RouterSpec {
        &self.spec
    }

    pub fn reconfigure(&mut self, spec: RouterSpec, choice: Choice) {
        // Keep the round-robin position across a change that keeps the policy.
        if let (Choice::RoundRobin { next }, Choice::RoundRobin { .. }) = (&self.choice, &choice) {
            let next = *next;
            self.choice = Choice::RoundRobin { next };
        } else {
            self.choice = choice;
        }
        self.spec = spec;
    }

    /// The output position for `msg`, or `None` if it has nowhere to go.
    pub fn choose(&self, msg: &Message, rng: &mut SimRng) -> Option<usize> {
        if self.outputs == 0 {
            return None;
        }
        match &self.choice {
            Choice::RoundRobin { next } => Some(*next % self.outputs),
            Choice::ByWeight { weights, total } => Some(rng.weighted_index(weights, *total)),
            Choice::ByClass { by_class } => by_class.get(msg.class as usize).copied().flatten(),
            Choice::ByDestination { by_node } => {
                if msg.destination == NO_DESTINATION {
                    None
                } else {
                    by_node.get(msg.destination as usize).copied().flatten()
                }
            }
        }
    }

    /// The chosen output took the message.
    pub fn taken(&mut self, output: usize) {
        if let Choice::RoundRobin { next } = &mut self.choice {
            *next = (output + 1) % self.outputs.max(1);
        }
    }
}

impl RouterSpec {
    /// Its number field at `steps`: a weight (`weights[1]`).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match (self, steps) {
            (RouterSpec::ByWeight { weights }, [Step::Key("weights"), Step::Index(i)]) => weights.get_mut(*i).map(NumberField::Real),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::bench::Bench;

    fn message(b: &mut Bench, class: u16, destination: u16) -> Message {
        Message { destination, ..b.message(100, class) }
    }

    #[test]
    fn round_robin_moves_on_only_when_the_output_took_the_message() {
        let mut b = Bench::new();
        let mut r = Router::new(RouterSpec::RoundRobin, Choice::RoundRobin { next: 0 }, 3);
        let m = message(&mut b, 0, NO_DESTINATION);
        let mut rng = SimRng::new(1);
        let mut chosen = Vec::new();
        for refused in [false, true, true, false, false, false] {
            let out = r.choose(&m, &mut rng).unwrap();
            chosen.push(out);
            if !refused {
                r.taken(out);
            }
        }
        assert_eq!(chosen, [0, 1, 1, 1, 2, 0], "a refusal keeps the turn");
    }

    #[test]
    fn by_weight_draws_in_proportion_and_never_an_output_of_weight_zero() {
        let mut b = Bench::new();
        let weights = vec![1.0, 0.0, 3.0];
        let r = Router::new(RouterSpec::ByWeight { weights: weights.clone() }, Choice::ByWeight { weights, total: 4.0 }, 3);
        let m = message(&mut b, 0, NO_DESTINATION);
        let mut rng = SimRng::new(7);
        let mut counts = [0u32; 3];
        for _ in 0..40_000 {
            counts[r.choose(&m, &mut rng).unwrap()] += 1;
        }
        assert_eq!(counts[1], 0);
        // 3 to 1, within four standard deviations of 10,000 draws.
        assert!((counts[0] as f64 - 10_000.0).abs() < 4.0 * (40_000.0f64 * 0.25 * 0.75).sqrt(), "{counts:?}");
    }

    #[test]
    fn by_class_and_by_destination_have_no_route_for_what_they_do_not_name() {
        let mut b = Bench::new();
        let mut rng = SimRng::new(1);
        let spec = RouterSpec::ByClass { classes: BTreeMap::new(), default: None };
        let r = Router::new(spec, Choice::ByClass { by_class: vec![Some(1), None] }, 2);
        assert_eq!(r.choose(&message(&mut b, 0, NO_DESTINATION), &mut rng), Some(1));
        assert_eq!(r.choose(&message(&mut b, 1, NO_DESTINATION), &mut rng), None);
        assert_eq!(r.choose(&message(&mut b, 9, NO_DESTINATION), &mut rng), None, "a class it never heard of");
        let r = Router::new(RouterSpec::ByDestination, Choice::ByDestination { by_node: vec![None, Some(0), Some(1)] }, 2);
        assert_eq!(r.choose(&message(&mut b, 0, 2), &mut rng), Some(1));
        assert_eq!(r.choose(&message(&mut b, 0, 0), &mut rng), None, "a destination it cannot reach");
        assert_eq!(r.choose(&message(&mut b, 0, NO_DESTINATION), &mut rng), None, "addressed to no one");
        let none = Router::new(RouterSpec::RoundRobin, Choice::RoundRobin { next: 0 }, 0);
        assert_eq!(none.choose(&message(&mut b, 0, 0), &mut rng), None, "no output at all");
    }
}
