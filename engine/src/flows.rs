//! How many messages of each class crossed each edge: what the page draws
//! as dots moving along the edges.
//!
//! Guarantees: counting is off unless asked for (`Simulation::count_flows`),
//! and then costs one look-up per hop; a message is counted on an edge when
//! the block at its far end takes it (including a block that takes it to
//! drop it), never when refused, so a refused offer retried later counts
//! once. Memory is one counter per edge and class, fixed when counting
//! starts.

/// Per-edge, per-class counters of messages taken across the edge.
#[derive(Clone, Debug)]
pub struct Flows {
    /// For each source node, its (target node, edge index) pairs.
    edges_from: Vec<Vec<(usize, usize)>>,
    classes: usize,
    /// `counts[edge * classes + class]`.
    counts: Vec<u64>,
}

impl Flows {
    /// Counters for `edges` given as (from, to) node indices, in scenario
    /// order, and `classes` message classes.
    pub fn new(nodes: usize, edges: &[(usize, usize)], classes: usize) -> Flows {
        let mut edges_from = vec![Vec::new(); nodes];
        for (k, &(from, to)) in edges.iter().enumerate() {
            if let Some(list) = edges_from.get_mut(from) {
                list.push((to, k));
            }
        }
        let classes = classes.max(1);
        Flows { edges_from, classes, counts: vec![0; edges.len() * classes] }
    }

    /// A message of `class` crossed from `from` to `to`.
    #[inline]
    pub fn count(&mut self, from: usize, to: usize, class: u16) {
        let Some(&(_, edge)) = self.edges_from.get(from).and_then(|l| l.iter().find(|(t, _)| *t == to)) else {
            return;
        };
        // Classes past the scenario's own (none exist today) share the last.
        let class = (class as usize).min(self.classes - 1);
        self.counts[edge * self.classes + class] += 1;
    }

    /// Sets edge `edge`'s counts (one per class; what is missing stays 0).
    pub fn set_edge(&mut self, edge: usize, counts: &[u64]) {
        let classes = self.classes;
        if let Some(row) = self.counts.get_mut(edge * classes..(edge + 1) * classes) {
            for (slot, &c) in row.iter_mut().zip(counts) {
                *slot = c;
            }
        }
    }

    /// The number of classes counted.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// Messages of each class taken across edge `edge` (scenario order).
    pub fn of_edge(&self, edge: usize) -> &[u64] {
        self.counts.get(edge * self.classes..(edge + 1) * self.classes).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_edge_and_class_and_ignores_strangers() {
        let mut f = Flows::new(3, &[(0, 1), (1, 2)], 2);
        f.count(0, 1, 0);
        f.count(0, 1, 1);
        f.count(0, 1, 1);
        f.count(1, 2, 0);
        f.count(2, 0, 0); // no such edge
        f.count(9, 0, 0); // no such node
        assert_eq!(f.of_edge(0), &[1, 2]);
        assert_eq!(f.of_edge(1), &[1, 0]);
        assert_eq!(f.of_edge(7), &[] as &[u64]);
    }
}
