//! The editor's undo and redo. An edit is kept as a patch: the run of
//! nodes, the run of edges and the run of missing-edge notes it changed
//! (what lay there before it), and the name, description, seed and
//! version when it changed them, rather than a whole copy of the scenario.
//!
//! Guarantees:
//! - Undoing an edit gives back the scenario before it exactly, node and
//!   edge order included, and its list of what the draft lacks; redoing it
//!   gives back the one after. (An adjustment joins the last edit only
//!   while it leaves that list as it was: `Editor::adjust`.)
//! - Memory is bounded: at most `HISTORY_LIMIT` edits, and at most
//!   `HISTORY_ITEMS` copies of nodes, edges and missing-edge notes in all,
//!   undo and redo together, after every edit, undo and redo; past either
//!   bound the edits furthest from now go. A
//!   scenario has at most 10,000 nodes and 10,000 edges, so the edit just
//!   made always stays undoable. A move of one block of 6,000 keeps one
//!   node; a move of all of them, 6,000 (`engine/examples/undo_memory.rs`
//!   measures the bytes).

use std::collections::VecDeque;

use crate::plumbing::validate::FieldError;
use crate::scenario::{EdgeSpec, NodeSpec, Scenario};

use super::Touched;

/// How many edits can be undone.
pub const HISTORY_LIMIT: usize = 200;

/// How many nodes, edges and missing-edge notes the history keeps in all:
/// four whole scenarios of 6,000 blocks and 4,000 edges, or two hundred
/// edits of a hundred blocks each.
pub const HISTORY_ITEMS: usize = 40_000;

/// A run of items replaced: `len` items from `at` are to become `items`.
struct Splice<T> {
    at: usize,
    len: usize,
    items: Vec<T>,
}

impl<T: PartialEq + Clone> Splice<T> {
    /// What turns `after` back into `before`: the items between their
    /// common start and their common end.
    fn back(before: &[T], after: &[T]) -> Splice<T> {
        let start = before.iter().zip(after).take_while(|(b, a)| b == a).count();
        let room = before.len().min(after.len()) - start;
        let end = before.iter().rev().zip(after.iter().rev()).take(room).take_while(|(b, a)| b == a).count();
        Splice { at: start, len: after.len() - start - end, items: before[start..before.len() - end].to_vec() }
    }

    /// Applies the splice; returns the one that undoes it.
    fn apply(self, items: &mut Vec<T>) -> Splice<T> {
        let (at, len) = (self.at, self.items.len());
        let end = (self.at + self.len).min(items.len());
        let removed = items.splice(at.min(end)..end, self.items).collect();
        Splice { at, len, items: removed }
    }
}

/// A scenario's fields other than its nodes and edges.
#[derive(Clone, PartialEq)]
struct Head {
    version: u32,
    name: String,
    description: String,
    seed: Option<u64>,
}

impl Head {
    fn of(s: &Scenario) -> Head {
        Head { version: s.version, name: s.name.clone(), description: s.description.clone(), seed: s.seed }
    }

    /// Puts this head on `s`; returns the one it replaced.
    fn swap(self, s: &mut Scenario) -> Head {
        let old = Head::of(s);
        (s.version, s.name, s.description, s.seed) = (self.version, self.name, self.description, self.seed);
        old
    }
}

/// One edit as the history keeps it, and what it touched (undoing it
/// touches the same).
pub(super) struct Patch {
    nodes: Splice<NodeSpec>,
    edges: Splice<EdgeSpec>,
    head: Option<Head>,
    /// What the draft lacked before, where that changed.
    missing: Splice<FieldError>,
    pub(super) touched: Touched,
}

impl Patch {
    /// The patch that takes `after` back to `before`, whose drafts lack
    /// `missing_after` and `missing_before`.
    pub(super) fn back(
        (before, missing_before): (&Scenario, Vec<FieldError>),
        (after, missing_after): (&Scenario, &[FieldError]),
        touched: Touched,
    ) -> Patch {
        let head = Head::of(before);
        Patch {
            nodes: Splice::back(&before.nodes, &after.nodes),
            edges: Splice::back(&before.edges, &after.edges),
            head: (head != Head::of(after)).then_some(head),
            missing: Splice::back(&missing_before, missing_after),
            touched,
        }
    }

    /// Items kept, as `HISTORY_ITEMS` counts them.
    fn weight(&self) -> usize {
        self.nodes.items.len() + self.edges.items.len() + self.missing.items.len()
    }

    /// Whether the patch takes node `i` back, and only nodes: an
    /// adjustment of that node's parameters alone may join it.
    pub(super) fn covers_node(&self, i: usize) -> bool {
        (self.nodes.at..self.nodes.at + self.nodes.len).contains(&i) && self.edges.len == 0 && self.edges.items.is_empty()
    }

    /// Applies the patch to `scenario` and its `missing`; returns the patch
    /// that goes back again.
    fn apply(self, scenario: &mut Scenario, missing: &mut Vec<FieldError>) -> Patch {
        Patch {
            nodes: self.nodes.apply(&mut scenario.nodes),
            edges: self.edges.apply(&mut scenario.edges),
            head: self.head.map(|head| head.swap(scenario)),
            missing: self.missing.apply(missing),
            touched: self.touched,
        }
    }
}

/// The edits that can be undone (oldest first) and redone (next last).
#[derive(Default)]
pub(super) struct History {
    undo: VecDeque<Patch>,
    redo: Vec<Patch>,
    /// The weight of every patch kept.
    items: usize,
}

impl History {
    /// A new edit: what could be redone goes, and the oldest edits past
    /// the bounds.
    pub(super) fn record(&mut self, patch: Patch) {
        self.items -= self.redo.drain(..).map(|p| p.weight()).sum::<usize>();
        self.items += patch.weight();
        self.undo.push_back(patch);
        while self.undo.len() > HISTORY_LIMIT {
            if let Some(old) = self.undo.pop_front() {
                self.items -= old.weight();
            }
        }
        self.trim();
    }

    /// Past `HISTORY_ITEMS`, the edits furthest from now go: the oldest to
    /// undo, then the last to redo. The edit just made, undone or redone
    /// stays (a scenario has at most 10,000 nodes and 10,000 edges, so one
    /// edit alone is within the bound).
    fn trim(&mut self) {
        while self.items > HISTORY_ITEMS {
            let furthest = if self.undo.len() > 1 {
                self.undo.pop_front()
            } else if self.redo.len() > 1 {
                Some(self.redo.remove(0))
            } else {
                None
            };
            let Some(patch) = furthest else { break };
            self.items -= patch.weight();
        }
    }

    /// The last edit, which an adjustment may join.
    pub(super) fn last(&self) -> Option<&Patch> {
        self.undo.back()
    }

    /// Forgets what could be redone (an adjustment changed the draft).
    pub(super) fn forget_redo(&mut self) {
        self.items -= self.redo.drain(..).map(|p| p.weight()).sum::<usize>();
    }

    /// Takes the last edit back; what it touched.
    pub(super) fn undo(&mut self, scenario: &mut Scenario, missing: &mut Vec<FieldError>) -> Option<Touched> {
        let patch = self.undo.pop_back()?;
        let forward = self.turn(patch, scenario, missing);
        let touched = forward.touched.clone();
        self.redo.push(forward);
        self.trim();
        Some(touched)
    }

    /// Does the last edit undone again; what it touched.
    pub(super) fn redo(&mut self, scenario: &mut Scenario, missing: &mut Vec<FieldError>) -> Option<Touched> {
        let patch = self.redo.pop()?;
        let back = self.turn(patch, scenario, missing);
        let touched = back.touched.clone();
        self.undo.push_back(back);
        self.trim();
        Some(touched)
    }

    fn turn(&mut self, patch: Patch, scenario: &mut Scenario, missing: &mut Vec<FieldError>) -> Patch {
        self.items -= patch.weight();
        let turned = patch.apply(scenario, missing);
        self.items += turned.weight();
        turned
    }

    pub(super) fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub(super) fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// The edits that can be undone and redone, and the items they keep.
    pub(super) fn size(&self) -> (usize, usize, usize) {
        (self.undo.len(), self.redo.len(), self.items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::Editor;
    use crate::rng::SimRng;
    use crate::scenario::{Kind, Position, DEFAULT_SCENARIO};

    #[test]
    fn a_splice_takes_the_changed_run_back_and_forth_whatever_repeats_around_it() {
        let cases: [(&[u8], &[u8]); 8] = [
            (b"abc", b"abc"),
            (b"abc", b"axc"),
            (b"abc", b"abxc"),
            (b"aba", b"aa"),
            (b"aa", b"aba"),
            (b"", b"xyz"),
            (b"xyz", b""),
            (b"aaaa", b"aa"),
        ];
        for (before, after) in cases {
            let back = Splice::back(before, after);
            assert!(back.items.len() <= before.len());
            let mut items = after.to_vec();
            let forward = back.apply(&mut items);
            assert_eq!(items, before, "{before:?} from {after:?}");
            forward.apply(&mut items);
            assert_eq!(items, after);
        }
        // One item changed among many: one kept.
        let before: Vec<u32> = (0..6000).collect();
        let mut after = before.clone();
        after[3000] = 7;
        assert_eq!(Splice::back(&before, &after).items, [3000]);
    }

    /// A whole number from 0 to `n` - 1.
    fn below(rng: &mut SimRng, n: usize) -> usize {
        ((rng.uniform() * n as f64) as usize).min(n.saturating_sub(1))
    }

    /// A random edit of the editor's own kinds: whether it was made and
    /// changed something.
    fn random_edit(e: &mut Editor, rng: &mut SimRng) -> bool {
        let ids: Vec<String> = e.scenario().nodes.iter().map(|n| n.id.clone()).collect();
        let pick = |rng: &mut SimRng| ids[below(rng, ids.len())].clone();
        let made = match below(rng, 8) {
            0 => e.add_node(Kind::ALL[below(rng, 11)], Position { x: 10.0, y: 20.0 }).map(drop),
            1 if !ids.is_empty() => e.remove(&[pick(rng)]),
            2 if !ids.is_empty() => e.move_by(&[pick(rng), pick(rng)], 3.0, -2.0),
            3 if !ids.is_empty() => e.connect(&pick(rng), &pick(rng)),
            4 if !ids.is_empty() => e.duplicate(&[pick(rng)]).map(drop),
            5 => e.set_seed(Some(below(rng, 100) as u64)),
            6 => e.describe(&format!("n{}", below(rng, 5)), "d"),
            _ if !ids.is_empty() => {
                // A slider's drag: the same block set again and again, each
                // step joining the last (a router's weights may make the
                // draft lack something, or no longer).
                let id = pick(rng);
                let i = e.scenario().node_index(&id).unwrap();
                let mut block = e.scenario().nodes[i].block.clone();
                match &mut block {
                    crate::scenario::BlockSpec::Queue(q) => q.capacity.messages = below(rng, 50) as u64,
                    crate::scenario::BlockSpec::Router(r) => {
                        *r = crate::scenario::RouterSpec::ByWeight { weights: vec![1.0; 1 + below(rng, 3)] };
                    }
                    _ => {}
                }
                e.adjust(&id, block)
            }
            _ => Ok(()),
        };
        made.is_ok() && e.touched().is_some()
    }

    #[test]
    fn undo_gives_back_every_scenario_before_exactly_and_redo_every_one_after() {
        for seed in 1..=20 {
            let mut rng = SimRng::new(seed);
            let mut e = Editor::new(Scenario::from_json(DEFAULT_SCENARIO).unwrap()).unwrap();
            let mut seen = vec![(e.scenario().clone(), e.missing().to_vec())];
            for _ in 0..60 {
                let edits = e.history_size().0;
                if random_edit(&mut e, &mut rng) {
                    let now = (e.scenario().clone(), e.missing().to_vec());
                    if e.history_size().0 == edits {
                        // An adjustment joined the last edit: one undo takes
                        // both back.
                        *seen.last_mut().unwrap() = now;
                    } else {
                        seen.push(now);
                    }
                }
            }
            for k in (0..seen.len() - 1).rev() {
                assert!(e.undo(), "seed {seed}: edit {k} undoes");
                assert_eq!((e.scenario(), e.missing()), (&seen[k].0, &seen[k].1[..]), "seed {seed}, back to {k}");
            }
            assert!(!e.undo());
            for (k, (scenario, missing)) in seen.iter().enumerate().skip(1) {
                assert!(e.redo());
                assert_eq!((e.scenario(), e.missing()), (scenario, &missing[..]), "seed {seed}, forward to {k}");
            }
            assert!(!e.redo());
        }
    }

    /// `blocks` blocks as producers feeding consumers: a sound draft that
    /// lacks nothing.
    fn large(blocks: usize) -> Scenario {
        let node = |id: String, kind: Kind, k: usize| crate::scenario::NodeSpec {
            id,
            position: Some(Position { x: (k % 100) as f64 * 200.0, y: (k / 100) as f64 * 100.0 }),
            block: crate::scenario::default_block(kind),
        };
        let mut s = Scenario::from_json(DEFAULT_SCENARIO).unwrap();
        (s.nodes, s.edges) = (Vec::new(), Vec::new());
        for k in 0..blocks / 2 {
            s.nodes.push(node(format!("p{k}"), Kind::Producer, 2 * k));
            s.nodes.push(node(format!("c{k}"), Kind::Consumer, 2 * k + 1));
            s.edges.push(crate::scenario::EdgeSpec { from: format!("p{k}"), to: format!("c{k}") });
        }
        s
    }

    #[test]
    fn the_history_keeps_within_its_bounds_and_the_last_edit_stays_undoable() {
        let mut e = Editor::new(large(6000)).unwrap();
        let all: Vec<String> = e.scenario().nodes.iter().map(|n| n.id.clone()).collect();
        // Moves of one block: one node each, 200 edits at most.
        for k in 0..250 {
            e.move_by(&all[k..k + 1], 1.0, 0.0).unwrap();
        }
        assert_eq!(e.history_size(), (HISTORY_LIMIT, 0, HISTORY_LIMIT));
        // Moves of every block: 6,000 each, the oldest go past the bound.
        for _ in 0..10 {
            e.move_by(&all, 0.0, 1.0).unwrap();
            let (edits, _, items) = e.history_size();
            assert!(items <= HISTORY_ITEMS && edits >= 1, "{edits} edits, {items} items");
        }
        assert_eq!(e.history_size().2, HISTORY_ITEMS / 6000 * 6000);
        // Undone to the end, the oldest kept gives back its scenario, and
        // the bound holds all the way, undo and redo together.
        let mut undone = 0;
        while e.undo() {
            undone += 1;
            assert!(e.history_size().2 <= HISTORY_ITEMS, "{:?}", e.history_size());
        }
        assert_eq!(undone, HISTORY_ITEMS / 6000);
        assert!(e.scenario().nodes.iter().all(|n| n.position.is_some_and(|p| p.y >= 0.0)));
    }
}

#[cfg(test)]
mod bound {
    use super::HISTORY_ITEMS;
    use crate::editor::Editor;
    use crate::scenario::{default_block, EdgeSpec, Kind, NodeSpec, Position, Scenario, DEFAULT_SCENARIO};

    /// An import onto an empty canvas keeps next to nothing; undone, it
    /// keeps the whole scenario: the bound holds then too.
    #[test]
    fn undoing_an_import_keeps_the_history_within_its_bound() {
        let mut big = Scenario::from_json(DEFAULT_SCENARIO).unwrap();
        (big.nodes, big.edges) = (Vec::new(), Vec::new());
        for k in 0..5000 {
            let at = |n: usize| Some(Position { x: (n % 100) as f64 * 200.0, y: (n / 100) as f64 * 100.0 });
            big.nodes.push(NodeSpec { id: format!("p{k}"), position: at(2 * k), block: default_block(Kind::Producer) });
            big.nodes.push(NodeSpec { id: format!("c{k}"), position: at(2 * k + 1), block: default_block(Kind::Consumer) });
            big.edges.push(EdgeSpec { from: format!("p{k}"), to: format!("c{k}") });
        }
        let mut e = Editor::new(Scenario { nodes: Vec::new(), edges: Vec::new(), ..big.clone() }).unwrap();
        e.import(&big.to_json_pretty()).unwrap();
        let all: Vec<String> = big.nodes.iter().map(|n| n.id.clone()).collect();
        for _ in 0..3 {
            e.move_by(&all, 1.0, 0.0).unwrap();
        }
        while e.undo() {
            assert!(e.history_size().2 <= HISTORY_ITEMS, "{:?}", e.history_size());
        }
        while e.redo() {
            assert!(e.history_size().2 <= HISTORY_ITEMS, "{:?}", e.history_size());
        }
    }
}

#[cfg(test)]
mod joined {
    use serde_json::json;

    use crate::editor::Editor;
    use crate::scenario::{BlockSpec, RouterSpec, Scenario};

    fn weights(w: &[f64]) -> BlockSpec {
        BlockSpec::Router(RouterSpec::ByWeight { weights: w.to_vec() })
    }

    /// A slider's drag that changes what the draft lacks is an edit of its
    /// own: undo gives back the list of what the draft lacked too.
    #[test]
    fn an_adjustment_that_changes_what_the_draft_lacks_is_undone_with_it() {
        let scenario = Scenario::from_value(json!({"version": 1,
            "nodes": [{"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1}},
                      {"id": "r", "kind": "router", "policy": "by_weight", "weights": [1, 1]},
                      {"id": "a", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.1}},
                      {"id": "b", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.1}}],
            "edges": [{"from": "p", "to": "r"}, {"from": "r", "to": "a"}, {"from": "r", "to": "b"}]}))
        .unwrap();
        let mut e = Editor::new(scenario).unwrap();
        assert!(e.missing().is_empty());
        e.set_block("r", weights(&[1.0, 1.0, 1.0])).unwrap();
        assert_eq!(e.missing().len(), 1, "three weights for two edges");
        let lacking = e.missing().to_vec();
        e.adjust("r", weights(&[1.0, 2.0])).unwrap();
        assert!(e.missing().is_empty());
        assert!(e.undo());
        assert_eq!((e.scenario().nodes[1].block.clone(), e.missing()), (weights(&[1.0, 1.0, 1.0]), &lacking[..]));
        assert!(e.undo());
        assert!(e.missing().is_empty());
        // Joined while the list stands: one undo takes the drag back.
        e.set_block("r", weights(&[2.0, 1.0])).unwrap();
        e.adjust("r", weights(&[3.0, 1.0])).unwrap();
        e.adjust("r", weights(&[4.0, 1.0])).unwrap();
        assert!(e.undo());
        assert_eq!(e.scenario().nodes[1].block, weights(&[1.0, 1.0]));
    }
}
