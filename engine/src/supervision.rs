//! rotor's links and ownership between blocks: which producers are linked
//! to each consumer, and which consumers each one supervises.
//!
//! Guarantees: built from a valid scenario (validation has checked that
//! every `linked_to` and `supervisor` names a consumer and that the
//! supervisors form no cycle); `None` when nothing is linked or
//! supervised, so a run without them pays nothing for them. The simulation
//! carries phase changes along these relations (`Simulation` notices a
//! consumer's phase change after each of its events); this file only
//! knows who is related to whom and which phase each consumer was last
//! seen in.

use crate::state::Phase;
use crate::scenario::{BlockSpec, Scenario};

#[derive(Clone)]
pub struct Supervision {
    /// Each consumer's phase as last seen (`None` for other blocks).
    pub seen: Vec<Option<Phase>>,
    /// Each consumer's supervisor.
    pub supervisor: Vec<Option<usize>>,
    /// Each consumer's children.
    pub children: Vec<Vec<usize>>,
    /// The producers linked to each consumer.
    pub clients: Vec<Vec<usize>>,
}

impl Supervision {
    /// No relations yet among `n` nodes.
    pub fn empty(n: usize) -> Supervision {
        Supervision { seen: vec![None; n], supervisor: vec![None; n], children: vec![Vec::new(); n], clients: vec![Vec::new(); n] }
    }

    pub fn build(scenario: &Scenario) -> Option<Box<Supervision>> {
        let mut s = Supervision::empty(scenario.nodes.len());
        let mut any = false;
        for (i, node) in scenario.nodes.iter().enumerate() {
            match &node.block {
                BlockSpec::Producer(p) => {
                    if let Some(server) = p.linked_to.as_deref().and_then(|id| scenario.node_index(id)) {
                        s.clients[server].push(i);
                        any = true;
                    }
                }
                BlockSpec::Consumer(c) => {
                    let sup = c.lifecycle.as_ref().and_then(|l| l.supervisor.as_deref()).and_then(|id| scenario.node_index(id));
                    if let Some(sup) = sup {
                        s.supervisor[i] = Some(sup);
                        s.children[sup].push(i);
                        any = true;
                    }
                }
                _ => {}
            }
        }
        any.then(|| Box::new(s))
    }
}
