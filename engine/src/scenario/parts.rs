//! The part of a draft that can run: a block still lacking an edge holds
//! back only the blocks connected to it, not the whole scenario.
//!
//! Guarantees:
//! - `unconnected` marks exactly the nodes joined by edges (either way) to a
//!   node the draft's gaps name; the rest share no edge with them.
//! - `without` keeps the other nodes in their order, and only the edges
//!   between them.

use super::*;

impl Scenario {
    /// The nodes that cannot run while the draft has `gaps`: each node a
    /// gap names (`nodes[i]…`), and every node joined to one by edges.
    pub fn unconnected(&self, gaps: &[FieldError]) -> Vec<bool> {
        let n = self.nodes.len();
        let mut held = vec![false; n];
        let mut stack: Vec<usize> = gaps.iter().filter_map(|gap| node_of(&gap.path)).filter(|&i| i < n).collect();
        let outputs = self.outputs();
        let mut neighbours = outputs.clone();
        for (from, outs) in outputs.iter().enumerate() {
            for &to in outs {
                neighbours[to].push(from);
            }
        }
        while let Some(i) = stack.pop() {
            if !std::mem::replace(&mut held[i], true) {
                stack.extend(neighbours[i].iter().copied());
            }
        }
        held
    }

    /// This scenario without the nodes marked in `held`, and without the
    /// edges that touch them.
    pub fn without(&self, held: &[bool]) -> Scenario {
        let index = self.indices();
        let keep = |id: &str| index.get(id).is_some_and(|&i| !held.get(i).copied().unwrap_or(false));
        Scenario {
            nodes: self.nodes.iter().enumerate().filter(|(i, _)| !held.get(*i).copied().unwrap_or(false)).map(|(_, n)| n.clone()).collect(),
            edges: self.edges.iter().filter(|e| keep(&e.from) && keep(&e.to)).cloned().collect(),
            version: self.version,
            name: self.name.clone(),
            description: self.description.clone(),
            seed: self.seed,
        }
    }
}

/// The node index a field path starts with: `nodes[3].weights` → 3.
fn node_of(path: &str) -> Option<usize> {
    path.strip_prefix("nodes[")?.split(']').next()?.parse().ok()
}
