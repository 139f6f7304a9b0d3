//! Asking why: the cause chain of what happened at a block, in run A as
//! the page shows it (at the instant seen, or live).
//!
//! Guarantee: asking changes nothing; the chain is built from run A's
//! records and its instants as `timeline::Run::at` gives them.

use crate::explain::{diverge, find, Asked, Chain, Divergence, Explainer, Subject};

use super::Playground;

impl Playground {
    /// The chain of `asked` at node `node`, in run A at the instant shown,
    /// or `None` when nothing there answers it (nothing happened yet, or
    /// it is older than the run keeps).
    pub fn explain(&self, node: usize, asked: Asked) -> Option<(Subject, Chain)> {
        let a = self.a.as_ref()?;
        let t = self.scrubbed().unwrap_or(a.now());
        let subject = find(a, t, node, asked)?;
        let chain = Explainer::new(a).chain_of(&subject);
        Some((subject, chain))
    }

    /// With a comparison open, where A and B first part up to the instant
    /// both reached (from time zero, as their scenarios start), and why.
    pub fn diverge(&self) -> Option<Divergence> {
        let (a, b) = (self.a.as_ref()?, &self.b.as_ref()?.sim);
        diverge(a, b, a.now().min(b.now()))
    }
}
