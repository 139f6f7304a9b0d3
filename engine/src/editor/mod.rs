//! Editing a scenario the way the playground does: add a block, connect two,
//! move, duplicate, delete, change parameters, import; undo and redo.
//!
//! Guarantees:
//! - The scenario held is always a draft: every field valid and every edge
//!   sound (no dangling or duplicate edge, no cycle, no input into a
//!   producer, no more outputs than a kind takes). What a draft may lack is
//!   only an outgoing edge some block still needs; `missing` lists those,
//!   and a draft without any is a runnable scenario.
//! - An edit that would break the first rule is refused with a message
//!   saying why, and nothing changes.
//! - Every accepted edit can be undone and redone, in order; a new edit
//!   clears what could be redone. The history is bounded in edits and in
//!   the copies of nodes and edges it keeps (`history.rs`).
//! - Every accepted edit (and every undo and redo) says what it touched:
//!   the layout only, the parameters of some nodes, or the shape. A run that
//!   follows the editor needs no diff of two scenarios to know, and the draft
//!   is validated once per edit.

use crate::scenario::{default_block, default_position, BlockSpec, FieldPath, Kind, NodeSpec, Position, Scenario, ScenarioError, SetError};
use crate::plumbing::validate::FieldError;

mod history;

use history::{History, Patch};
pub use history::{HISTORY_ITEMS, HISTORY_LIMIT};

pub struct Editor {
    scenario: Scenario,
    /// What the draft still lacks, found by the validation that accepted it.
    missing: Vec<FieldError>,
    history: History,
    /// What the last accepted edit, undo or redo touched (none: the last
    /// edit changed nothing).
    touched: Option<Touched>,
    /// The block whose parameters the last edit set, while an adjustment
    /// of it may still go on (a slider being dragged): `adjust` of that
    /// block adds to that edit rather than making another.
    adjusting: Option<String>,
}

/// Why an edit was refused; nothing changed. Its text says so for people.
#[derive(Clone, Debug, PartialEq)]
pub enum EditError {
    /// No node has this id.
    NoNode(String),
    /// Neither end of a connection names a node.
    NoEnds { from: String, to: String },
    /// A node would feed itself.
    FeedsItself(String),
    /// An edge into a producer, which takes no input.
    IntoProducer(String),
    /// The edge is there already.
    AlreadyFeeds { from: String, to: String },
    /// Every output of `from` is taken (by an edge to `feeds`).
    OutputsTaken { from: String, kind: Kind, max: usize, feeds: String },
    /// There is no such edge to remove.
    NotFeeding { from: String, to: String },
    /// None of the blocks to delete is there.
    NothingToDelete,
    /// New parameters of another kind than the block's.
    KindChange { id: String, is: Kind, given: Kind },
    /// The imported text is not a scenario, or not a sound one.
    Unreadable(String),
    /// The draft the edit makes is unsound: the reasons, naming the nodes.
    Unsound(String),
    /// A field could not take the value given.
    Field(SetError),
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::NoNode(id) => write!(f, "no node \"{id}\""),
            EditError::NoEnds { from, to } => write!(f, "no node \"{from}\" or \"{to}\""),
            EditError::FeedsItself(id) => write!(f, "{id} cannot feed itself"),
            EditError::IntoProducer(id) => write!(f, "{id} is a producer: it makes messages and takes none in"),
            EditError::AlreadyFeeds { from, to } => write!(f, "{from} already feeds {to}"),
            EditError::OutputsTaken { from, kind, max, feeds } => write!(
                f,
                "a {} has {} output; {from} already feeds {feeds} (put a router after it to fan out)",
                kind.as_str().replace('_', " "),
                if *max == 1 { "one" } else { "a limited number of" },
            ),
            EditError::NotFeeding { from, to } => write!(f, "{from} does not feed {to}"),
            EditError::NothingToDelete => f.write_str("nothing to delete"),
            EditError::KindChange { id, is, given } => write!(f, "{id} is a {is}, not a {given}"),
            EditError::Unreadable(why) | EditError::Unsound(why) => f.write_str(why),
            EditError::Field(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for EditError {}

/// What an edit changed, as a running simulation needs to know it.
#[derive(Clone, Debug, PartialEq)]
pub enum Touched {
    /// Where blocks are drawn, and nothing a run reads.
    Layout,
    /// The parameters of these nodes (by index), and nothing else: ids,
    /// kinds, edges and seed are as they were.
    Blocks(Vec<usize>),
    /// Node `node` (the last) put on the edge from `from` to `to` (by
    /// index): that edge became two, through it, and nothing else changed.
    Inserted { node: usize, from: usize, to: usize },
    /// Anything else: nodes or edges added or removed, the seed, a whole
    /// scenario replaced.
    Shape,
}

/// Turns a refused draft into one message, naming the nodes rather than
/// their indices where it can.
fn explain(scenario: &Scenario, error: ScenarioError) -> String {
    error
        .errors
        .iter()
        .map(|e| {
            let node = e
                .path
                .strip_prefix("nodes[")
                .and_then(|rest| rest.split(']').next())
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| scenario.nodes.get(i));
            match node {
                Some(n) => format!("{}: {}", n.id, e.message),
                None => e.message.clone(),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl Editor {
    /// Starts from `scenario`, which must be a sound draft.
    pub fn new(scenario: Scenario) -> Result<Editor, EditError> {
        let missing = scenario.validate_draft().map_err(|e| EditError::Unsound(explain(&scenario, e)))?;
        Ok(Editor { scenario, missing, history: History::default(), touched: None, adjusting: None })
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The outgoing edges the draft still needs before it can run.
    pub fn missing(&self) -> &[FieldError] {
        &self.missing
    }

    /// What the last accepted edit, undo or redo touched; `None` when it
    /// changed nothing (or nothing was edited yet).
    pub fn touched(&self) -> Option<&Touched> {
        self.touched.as_ref()
    }

    pub fn can_undo(&self) -> bool {
        self.history.can_undo()
    }

    pub fn can_redo(&self) -> bool {
        self.history.can_redo()
    }

    /// The edits that can be undone and redone, and the nodes, edges and
    /// notes the history keeps for them (at most `HISTORY_ITEMS`).
    pub fn history_size(&self) -> (usize, usize, usize) {
        self.history.size()
    }

    /// Applies `change` to a copy; keeps it if it is a sound draft. The
    /// change touches what `touched` says.
    fn edit(&mut self, touched: Touched, change: impl FnOnce(&mut Scenario) -> Result<(), EditError>) -> Result<(), EditError> {
        self.adjusting = None;
        let mut next = self.scenario.clone();
        change(&mut next)?;
        let missing = next.validate_draft().map_err(|e| EditError::Unsound(explain(&next, e)))?;
        if next == self.scenario {
            self.touched = None;
            return Ok(());
        }
        let before = std::mem::replace(&mut self.missing, missing);
        let back = Patch::back((&self.scenario, before), (&next, &self.missing), touched.clone());
        self.scenario = next;
        self.history.record(back);
        self.touched = Some(touched);
        Ok(())
    }

    pub fn undo(&mut self) -> bool {
        self.adjusting = None;
        self.touched = self.history.undo(&mut self.scenario, &mut self.missing);
        self.touched.is_some()
    }

    pub fn redo(&mut self) -> bool {
        self.adjusting = None;
        self.touched = self.history.redo(&mut self.scenario, &mut self.missing);
        self.touched.is_some()
    }

    /// A fresh id for a block of `kind`: the kind and the first free number.
    fn fresh_id(scenario: &Scenario, kind: Kind) -> String {
        (1..)
            .map(|n| format!("{kind}{n}"))
            .find(|id| scenario.node_index(id).is_none())
            .unwrap_or_else(|| kind.to_string())
    }

    /// Adds a block of `kind` with its default parameters at `at`. Returns
    /// its id.
    pub fn add_node(&mut self, kind: Kind, at: Position) -> Result<String, EditError> {
        let block = default_block(kind);
        let id = Editor::fresh_id(&self.scenario, kind);
        let node = NodeSpec { id: id.clone(), position: Some(at), block };
        self.edit(Touched::Shape, |s| {
            s.nodes.push(node);
            Ok(())
        })?;
        Ok(id)
    }

    /// Adds a block of `kind` with its default parameters at `at`, on the
    /// edge from `from` to `to`: the edge becomes two, `from` → new → `to`,
    /// in its place in the edge order (so that a router's outputs and a
    /// block's inputs keep their order). One edit. Returns the new id.
    pub fn insert_on_edge(&mut self, kind: Kind, at: Position, from: &str, to: &str) -> Result<String, EditError> {
        let (Some(a), Some(b)) = (self.scenario.node_index(from), self.scenario.node_index(to)) else {
            return Err(EditError::NoEnds { from: from.into(), to: to.into() });
        };
        let Some(k) = self.scenario.edges.iter().position(|e| e.from == from && e.to == to) else {
            return Err(EditError::NotFeeding { from: from.into(), to: to.into() });
        };
        let block = default_block(kind);
        if kind == Kind::Producer {
            return Err(EditError::IntoProducer(format!("a new {kind}")));
        }
        if block.outputs().1 == 0 {
            return Err(EditError::OutputsTaken { from: format!("a new {kind}"), kind, max: 0, feeds: to.into() });
        }
        let id = Editor::fresh_id(&self.scenario, kind);
        let node = NodeSpec { id: id.clone(), position: Some(at), block };
        let touched = Touched::Inserted { node: self.scenario.nodes.len(), from: a, to: b };
        let edge = |from: &str, to: &str| crate::scenario::EdgeSpec { from: from.into(), to: to.into() };
        let (into, out_of) = (edge(from, &id), edge(&id, to));
        self.edit(touched, |s| {
            // A router that sends classes to `to` by name sends them to the
            // new block, which passes them on.
            if let BlockSpec::Router(crate::blocks::RouterSpec::ByClass { classes, default }) = &mut s.nodes[a].block {
                for target in classes.values_mut().chain(default.iter_mut()).filter(|t| *t == to) {
                    *target = id.clone();
                }
            }
            s.nodes.push(node);
            s.edges[k] = into;
            s.edges.insert(k + 1, out_of);
            Ok(())
        })?;
        Ok(id)
    }

    /// Connects `from`'s output to `to`'s input.
    pub fn connect(&mut self, from: &str, to: &str) -> Result<(), EditError> {
        self.check_connection(from, to)?;
        let edge = crate::scenario::EdgeSpec { from: from.to_string(), to: to.to_string() };
        self.edit(Touched::Shape, |s| {
            s.edges.push(edge);
            Ok(())
        })
    }

    /// Whether `from` may feed `to`, as far as the two blocks and their
    /// edges tell (a cycle or a graph rule is found when the edit is
    /// made): the one home of the rules the inspector's "Connect to" list
    /// and a dragged connection both follow.
    pub fn check_connection(&self, from: &str, to: &str) -> Result<(), EditError> {
        let (Some(a), Some(b)) = (self.scenario.node_index(from), self.scenario.node_index(to)) else {
            return Err(EditError::NoEnds { from: from.into(), to: to.into() });
        };
        if a == b {
            return Err(EditError::FeedsItself(from.into()));
        }
        let (source, target) = (&self.scenario.nodes[a].block, &self.scenario.nodes[b].block);
        if !target.takes_input() {
            return Err(EditError::IntoProducer(to.into()));
        }
        if self.scenario.edges.iter().any(|e| e.from == from && e.to == to) {
            return Err(EditError::AlreadyFeeds { from: from.into(), to: to.into() });
        }
        let (_, max) = source.outputs();
        let outs = self.scenario.edges.iter().filter(|e| e.from == from).count();
        if outs >= max {
            let feeds = self.scenario.edges.iter().find(|e| e.from == from).map_or("", |e| e.to.as_str());
            return Err(EditError::OutputsTaken { from: from.into(), kind: source.kind(), max, feeds: feeds.into() });
        }
        Ok(())
    }

    /// Removes the edge from `from` to `to`.
    pub fn disconnect(&mut self, from: &str, to: &str) -> Result<(), EditError> {
        self.edit(Touched::Shape, |s| {
            let before = s.edges.len();
            s.edges.retain(|e| !(e.from == from && e.to == to));
            if s.edges.len() == before {
                return Err(EditError::NotFeeding { from: from.into(), to: to.into() });
            }
            Ok(())
        })
    }

    /// Deletes nodes and every edge touching them.
    pub fn remove(&mut self, ids: &[String]) -> Result<(), EditError> {
        if ids.is_empty() {
            return Ok(());
        }
        self.edit(Touched::Shape, |s| {
            let before = s.nodes.len();
            s.nodes.retain(|n| !ids.contains(&n.id));
            if s.nodes.len() == before {
                return Err(EditError::NothingToDelete);
            }
            s.edges.retain(|e| !ids.contains(&e.from) && !ids.contains(&e.to));
            Ok(())
        })
    }

    /// Moves nodes by (dx, dy), as one edit.
    pub fn move_by(&mut self, ids: &[String], dx: f64, dy: f64) -> Result<(), EditError> {
        self.edit(Touched::Layout, |s| {
            for (i, n) in s.nodes.iter_mut().enumerate() {
                if ids.contains(&n.id) {
                    let p = n.position.unwrap_or(default_position(i));
                    n.position = Some(Position { x: (p.x + dx).round(), y: (p.y + dy).round() });
                }
            }
            Ok(())
        })
    }

    /// Copies nodes (with the edges among them) beside the originals.
    /// Returns the new ids, in the order given.
    pub fn duplicate(&mut self, ids: &[String]) -> Result<Vec<String>, EditError> {
        let mut next = self.scenario.clone();
        let mut renamed = Vec::new();
        for id in ids {
            let Some(i) = next.node_index(id) else { return Err(EditError::NoNode(id.clone())) };
            let mut copy = next.nodes[i].clone();
            copy.id = Editor::fresh_id(&next, copy.block.kind());
            let p = copy.position.unwrap_or(default_position(i));
            copy.position = Some(Position { x: p.x + 40.0, y: p.y + 40.0 });
            renamed.push((id.clone(), copy.id.clone()));
            next.nodes.push(copy);
        }
        let lookup = |id: &str| renamed.iter().find(|(old, _)| old == id).map(|(_, new)| new.clone());
        let copies: Vec<_> = next
            .edges
            .iter()
            .filter_map(|e| Some(crate::scenario::EdgeSpec { from: lookup(&e.from)?, to: lookup(&e.to)? }))
            .collect();
        next.edges.extend(copies);
        self.edit(Touched::Shape, |s| {
            *s = next;
            Ok(())
        })?;
        Ok(renamed.into_iter().map(|(_, new)| new).collect())
    }

    /// Changes one node's parameters (same kind), as an edit of its own
    /// that later adjustments of the same block (`adjust`) add to.
    pub fn set_block(&mut self, id: &str, block: BlockSpec) -> Result<(), EditError> {
        self.set_blocks(vec![(id.to_string(), block)])?;
        // Only an edit that changed something can be added to.
        if self.touched.is_some() {
            self.adjusting = Some(id.to_string());
        }
        Ok(())
    }

    /// Changes one node's parameters as `set_block` does, except that right
    /// after an edit of the same block's parameters it joins that edit:
    /// however many values a slider passes through in one drag, Undo takes
    /// the drag back in one step.
    pub fn adjust(&mut self, id: &str, block: BlockSpec) -> Result<(), EditError> {
        let i = self.scenario.node_index(id).ok_or_else(|| EditError::NoNode(id.to_string()))?;
        if self.adjusting.as_deref() != Some(id) || !self.history.last().is_some_and(|last| last.covers_node(i)) {
            return self.set_block(id, block);
        }
        let kind = self.scenario.nodes[i].block.kind();
        if kind != block.kind() {
            return Err(EditError::KindChange { id: id.to_string(), is: kind, given: block.kind() });
        }
        if self.scenario.nodes[i].block == block {
            self.touched = None;
            return Ok(());
        }
        let mut next = self.scenario.clone();
        next.nodes[i].block = block.clone();
        let missing = next.validate_draft().map_err(|e| EditError::Unsound(explain(&next, e)))?;
        if missing != self.missing {
            // What the draft lacks changed (a router's weights against its
            // outputs, say): the edit joined would not give it back, so
            // this step is an edit of its own.
            return self.set_block(id, block);
        }
        self.scenario = next;
        self.history.forget_redo();
        // The run takes this block's new parameters; undoing the whole
        // adjustment touches the blocks its first step touched.
        self.touched = Some(Touched::Blocks(vec![i]));
        Ok(())
    }

    /// Sets one number field of a block, as an edit of its own that later
    /// adjustments of the same block add to (`set_block` of the block with
    /// that number).
    pub fn set_number(&mut self, id: &str, path: &FieldPath, value: f64) -> Result<(), EditError> {
        let i = self.scenario.node_index(id).ok_or_else(|| EditError::NoNode(id.to_string()))?;
        let mut block = self.scenario.nodes[i].block.clone();
        block.set_number(path, value).map_err(EditError::Field)?;
        self.set_block(id, block)
    }

    /// Sets one number field of a block (a slider's next tick), as `adjust`
    /// sets a whole block: right after an edit of the same block's
    /// parameters it joins that edit. Joining, it checks the block alone
    /// and the run's memory bound (`Scenario::check_number_change`), and
    /// changes the scenario in place: a number changes nothing else the
    /// scenario checks, and no copy of a scenario of thousands of blocks is
    /// made per tick.
    pub fn adjust_number(&mut self, id: &str, path: &FieldPath, value: f64) -> Result<(), EditError> {
        let i = self.scenario.node_index(id).ok_or_else(|| EditError::NoNode(id.to_string()))?;
        let mut block = self.scenario.nodes[i].block.clone();
        block.set_number(path, value).map_err(EditError::Field)?;
        if self.adjusting.as_deref() != Some(id) || !self.history.last().is_some_and(|last| last.covers_node(i)) {
            return self.set_block(id, block);
        }
        if self.scenario.nodes[i].block == block {
            self.touched = None;
            return Ok(());
        }
        let before = std::mem::replace(&mut self.scenario.nodes[i].block, block);
        if let Err(e) = self.scenario.check_number_change(i) {
            self.scenario.nodes[i].block = before;
            return Err(EditError::Unsound(explain(&self.scenario, e)));
        }
        self.history.forget_redo();
        self.touched = Some(Touched::Blocks(vec![i]));
        Ok(())
    }

    /// Changes several nodes' parameters (each of the same kind) as one
    /// edit.
    pub fn set_blocks(&mut self, blocks: Vec<(String, BlockSpec)>) -> Result<(), EditError> {
        let mut indices = Vec::with_capacity(blocks.len());
        for (id, block) in &blocks {
            let i = self.scenario.node_index(id).ok_or_else(|| EditError::NoNode(id.clone()))?;
            let kind = self.scenario.nodes[i].block.kind();
            if kind != block.kind() {
                return Err(EditError::KindChange { id: id.clone(), is: kind, given: block.kind() });
            }
            indices.push(i);
        }
        let changed: Vec<usize> =
            indices.iter().zip(&blocks).filter(|(&i, (_, b))| self.scenario.nodes[i].block != *b).map(|(&i, _)| i).collect();
        self.edit(Touched::Blocks(changed), |s| {
            for (i, (_, block)) in indices.into_iter().zip(blocks) {
                s.nodes[i].block = block;
            }
            Ok(())
        })
    }

    /// Sets the scenario's random seed (`None`: the default, 1).
    pub fn set_seed(&mut self, seed: Option<u64>) -> Result<(), EditError> {
        self.edit(Touched::Shape, |s| {
            s.seed = seed;
            Ok(())
        })
    }

    /// Starts from scratch: an empty canvas with no name, as one edit (Undo
    /// brings back what was there). The seed stays, so that a scenario
    /// built again from nothing runs as it did.
    pub fn clear(&mut self) -> Result<(), EditError> {
        self.edit(Touched::Shape, |s| {
            *s = Scenario { nodes: Vec::new(), edges: Vec::new(), name: String::new(), description: String::new(), ..s.clone() };
            Ok(())
        })
    }

    /// Names and describes the scenario (surrounding spaces dropped from
    /// the name). Nothing a run reads changes.
    pub fn describe(&mut self, name: &str, description: &str) -> Result<(), EditError> {
        let (name, description) = (name.trim().to_string(), description.trim_end().to_string());
        self.edit(Touched::Layout, |s| {
            s.name = name;
            s.description = description;
            Ok(())
        })
    }

    /// Adds every node and edge of `other` as one edit, below what is there
    /// (a node whose id is taken gets a fresh one of its kind). Returns the
    /// new nodes' ids. Ids that blocks name inside them (a router's route,
    /// a window's receipts) are not renamed: meant for scenarios without
    /// such ties, such as an imported configuration's.
    pub fn add_all(&mut self, other: &Scenario) -> Result<Vec<String>, EditError> {
        let mut next = self.scenario.clone();
        let y = |nodes: &[NodeSpec], i: usize| nodes[i].position.unwrap_or(default_position(i)).y;
        let lowest = (0..next.nodes.len()).map(|i| y(&next.nodes, i)).fold(f64::NEG_INFINITY, f64::max);
        let highest = (0..other.nodes.len()).map(|i| y(&other.nodes, i)).fold(f64::INFINITY, f64::min);
        let dy = if lowest.is_finite() && highest.is_finite() { lowest + 150.0 - highest } else { 0.0 };
        let mut renamed = Vec::new();
        for (i, node) in other.nodes.iter().enumerate() {
            let mut copy = node.clone();
            if next.node_index(&copy.id).is_some() {
                copy.id = Editor::fresh_id(&next, copy.block.kind());
            }
            let p = copy.position.unwrap_or(default_position(i));
            copy.position = Some(Position { x: p.x, y: p.y + dy });
            renamed.push((node.id.clone(), copy.id.clone()));
            next.nodes.push(copy);
        }
        let lookup = |id: &str| renamed.iter().find(|(old, _)| old == id).map(|(_, new)| new.clone());
        next.edges.extend(other.edges.iter().filter_map(|e| Some(crate::scenario::EdgeSpec { from: lookup(&e.from)?, to: lookup(&e.to)? })));
        self.edit(Touched::Shape, |s| {
            *s = next;
            Ok(())
        })?;
        Ok(renamed.into_iter().map(|(_, new)| new).collect())
    }

    /// Replaces the whole scenario by an imported file's text. A file that
    /// is too large, malformed or unsound is refused and nothing changes.
    pub fn import(&mut self, text: &str) -> Result<(), EditError> {
        let scenario = Scenario::from_json_draft(text).map_err(|e| EditError::Unreadable(e.to_string()))?;
        self.edit(Touched::Shape, |s| {
            *s = scenario;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64, y: f64) -> Position {
        Position { x, y }
    }

    fn node(id: &str, kind: &str) -> NodeSpec {
        NodeSpec { id: id.into(), position: None, block: default_block(Kind::parse(kind).unwrap()) }
    }

    /// A producer `p` feeding a consumer `c`.
    fn empty_editor() -> Editor {
        let edges = vec![crate::scenario::EdgeSpec { from: "p".into(), to: "c".into() }];
        let s = Scenario { version: 1, name: String::new(), description: String::new(), seed: None, nodes: vec![node("p", "producer"), node("c", "consumer")], edges };
        Editor::new(s).unwrap()
    }

    #[test]
    fn every_kind_has_a_valid_default() {
        for kind in Kind::ALL {
            let mut e = empty_editor();
            let id = e.add_node(kind, at(10.0, 20.0)).unwrap_or_else(|why| panic!("{kind}: {why}"));
            assert_eq!(e.scenario().nodes.last().unwrap().id, id);
        }
    }

    #[test]
    fn building_a_pipeline_step_by_step_ends_runnable() {
        let mut e = empty_editor();
        e.remove(&["p".to_string()]).unwrap();
        let p = e.add_node(Kind::Producer, at(0.0, 0.0)).unwrap();
        let w = e.add_node(Kind::Window, at(100.0, 0.0)).unwrap();
        let l = e.add_node(Kind::Link, at(200.0, 0.0)).unwrap();
        let q = e.add_node(Kind::Queue, at(300.0, 0.0)).unwrap();
        assert_eq!(e.missing().len(), 4, "{:?}", e.missing());
        for (a, b) in [(&p, &w), (&w, &l), (&l, &q)] {
            e.connect(a, b).unwrap();
        }
        e.connect(&q, "c").unwrap();
        assert!(e.missing().is_empty());
        e.scenario().validate().expect("runnable");
        let mut sim = crate::Simulation::new(e.scenario().clone(), 1).unwrap();
        sim.run_until(crate::SimTime::from_secs_f64(5.0)).expect("runs");
        assert!(sim.totals().delivered > 0);
    }

    #[test]
    fn bad_connections_are_refused_with_a_reason() {
        let mut e = empty_editor();
        let q = e.add_node(Kind::Queue, at(0.0, 0.0)).unwrap();
        let why = e.connect("c", "p").unwrap_err();
        assert!(why.to_string().contains("producer"), "{why}");
        let why = e.connect("p", "p").unwrap_err();
        assert!(why.to_string().contains("itself"), "{why}");
        let why = e.connect("p", "c").unwrap_err();
        assert!(why.to_string().contains("already feeds"), "{why}");
        let why = e.connect("p", &q).unwrap_err();
        assert!(why.to_string().contains("one output"), "{why}");
        e.connect("c", &q).unwrap();
        let why = e.connect(&q, "c").unwrap_err();
        assert!(why.to_string().contains("cycle"), "{why}");
        assert_eq!(e.scenario().edges.len(), 2);
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut e = empty_editor();
        let original = e.scenario().clone();
        let q = e.add_node(Kind::Queue, at(0.0, 0.0)).unwrap();
        e.move_by(std::slice::from_ref(&q), 15.0, -5.0).unwrap();
        let moved = e.scenario().clone();
        assert!(e.undo() && e.undo());
        assert_eq!(e.scenario(), &original);
        assert!(!e.undo());
        assert!(e.redo() && e.redo());
        assert_eq!(e.scenario(), &moved);
        assert!(!e.redo());
        e.undo();
        e.remove(std::slice::from_ref(&q)).unwrap();
        assert!(!e.can_redo(), "a new edit clears the redo list");
    }

    #[test]
    fn delete_takes_the_edges_and_duplicate_copies_them() {
        let mut e = empty_editor();
        let copies = e.duplicate(&["p".to_string(), "c".to_string()]).unwrap();
        assert_eq!(copies, vec!["producer1", "consumer1"]);
        assert!(e.scenario().edges.iter().any(|x| x.from == "producer1" && x.to == "consumer1"));
        e.remove(&["c".to_string()]).unwrap();
        assert!(e.scenario().edges.iter().all(|x| x.to != "c"));
        assert_eq!(e.missing().len(), 1, "p now needs an output");
        // Deleting every block leaves an empty draft, which cannot run.
        e.remove(&["p".to_string(), "producer1".to_string(), "consumer1".to_string()]).unwrap();
        assert!(e.scenario().nodes.is_empty() && e.scenario().edges.is_empty());
        assert_eq!(e.missing().len(), 1, "{:?}", e.missing());
        assert!(e.scenario().validate().is_err());
        e.undo();
        assert_eq!(e.scenario().nodes.len(), 3, "p and the two copies are back");
    }

    #[test]
    fn new_clears_the_canvas_as_one_edit_and_describe_names_it() {
        let mut e = empty_editor();
        e.set_seed(Some(7)).unwrap();
        e.describe("  My pipeline ", "Two blocks.\n").unwrap();
        assert_eq!(e.touched(), Some(&Touched::Layout));
        assert_eq!((e.scenario().name.as_str(), e.scenario().description.as_str()), ("My pipeline", "Two blocks."));
        let before = e.scenario().clone();
        e.clear().unwrap();
        assert_eq!(e.touched(), Some(&Touched::Shape));
        let cleared = e.scenario();
        assert!(cleared.nodes.is_empty() && cleared.edges.is_empty() && cleared.name.is_empty() && cleared.description.is_empty());
        assert_eq!(cleared.seed, Some(7), "the seed stays");
        // An empty scenario writes and reads back as a draft.
        let text = cleared.to_json_pretty();
        assert_eq!(&Scenario::from_json_draft(&text).unwrap(), cleared);
        assert!(Scenario::from_json(&text).is_err(), "but it cannot run");
        // Building from nothing: the first block added is a draft again.
        e.add_node(Kind::Producer, Position { x: 0.0, y: 0.0 }).unwrap();
        assert_eq!(e.scenario().nodes.len(), 1);
        e.undo();
        e.undo();
        assert_eq!(e.scenario(), &before, "Undo brings back what New cleared");
    }

    #[test]
    fn hostile_imports_are_refused_and_change_nothing() {
        let mut e = empty_editor();
        let before = e.scenario().clone();
        for text in [
            "{not json".to_string(),
            r#"{"version": 1, "nodes": [{"id": "p", "kind": "producer", "speed": 3}]}"#.to_string(),
            r#"{"version": 1, "nodes": [{"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1e308}}]}"#.to_string(),
            format!(r#"{{"version": 1, "name": "{}", "nodes": []}}"#, "x".repeat(crate::scenario::MAX_SCENARIO_BYTES)),
        ] {
            assert!(e.import(&text).is_err(), "accepted: {}", &text[..text.len().min(80)]);
            assert_eq!(e.scenario(), &before);
        }
        e.import(&crate::Scenario::from_json(crate::DEFAULT_SCENARIO).unwrap().to_json_pretty()).unwrap();
        assert_ne!(e.scenario(), &before);
        assert!(e.undo());
        assert_eq!(e.scenario(), &before);
    }

    #[test]
    fn parameter_changes_are_checked() {
        let mut e = empty_editor();
        let mut bad = default_block(Kind::Queue);
        if let BlockSpec::Queue(q) = &mut bad {
            q.soft_limit.messages = 100;
            q.hard_limit.messages = 10;
        }
        let q = e.add_node(Kind::Queue, at(0.0, 0.0)).unwrap();
        let why = e.set_block(&q, bad).unwrap_err();
        assert!(matches!(&why, EditError::Unsound(text) if text.starts_with("queue1: ") && text.contains("hard_limit")), "{why}");
        assert!(e.set_block(&q, default_block(Kind::Consumer)).is_err());
    }

    #[test]
    fn a_drag_of_adjustments_is_one_edit() {
        let mut e = Editor::new(Scenario::from_json(include_str!("../../../scenarios/slow-client.json")).unwrap()).unwrap();
        let i = e.scenario().node_index("sender").unwrap();
        let with_soft = |e: &Editor, v: u64| {
            let BlockSpec::Queue(mut q) = e.scenario().nodes[i].block.clone() else { unreachable!() };
            q.soft_limit.messages = v;
            BlockSpec::Queue(q)
        };
        let soft = |e: &Editor| match &e.scenario().nodes[i].block {
            BlockSpec::Queue(q) => q.soft_limit.messages,
            _ => unreachable!(),
        };
        let start = soft(&e);
        // One drag: the first value an edit, the next 18 joining it.
        e.set_block("sender", with_soft(&e, 30)).unwrap();
        for v in 31..49 {
            e.adjust("sender", with_soft(&e, v)).unwrap();
        }
        assert_eq!(soft(&e), 48);
        // A second drag after another edit is an edit of its own.
        e.move_by(&["sender".into()], 1.0, 0.0).unwrap();
        e.adjust("sender", with_soft(&e, 10)).unwrap();
        e.adjust("sender", with_soft(&e, 11)).unwrap();
        assert!(e.undo());
        assert_eq!(soft(&e), 48);
        assert!(e.undo(), "the move");
        assert!(e.undo());
        assert_eq!(soft(&e), start, "one undo takes the whole first drag back");
        assert!(!e.can_undo());
        // Redo brings it back whole, and an adjustment after an undo is new.
        assert!(e.redo());
        assert_eq!(soft(&e), 48);
        e.adjust("sender", with_soft(&e, 20)).unwrap();
        assert!(e.undo());
        assert_eq!(soft(&e), 48);
        // A refused value changes nothing and leaves the edit as it was.
        assert!(e.adjust("sender", with_soft(&e, 1_000_000)).is_err());
        assert_eq!(soft(&e), 48);
    }

    /// The same drag through the number path: one edit for Undo, a
    /// refused value (out of range, or not whole) changes nothing, and the
    /// block joined is the block a whole-block adjustment would give.
    #[test]
    fn a_drag_of_numbers_is_one_edit_and_refuses_as_the_draft_would() {
        let mut e = Editor::new(Scenario::from_json(include_str!("../../../scenarios/slow-client.json")).unwrap()).unwrap();
        let i = e.scenario().node_index("sender").unwrap();
        let soft_limit = FieldPath::of("soft_limit.messages");
        let soft = |e: &Editor| e.scenario().nodes[i].block.number(&soft_limit).unwrap().0;
        let start = soft(&e);
        e.set_number("sender", &soft_limit, 30.0).unwrap();
        for v in 31..49 {
            e.adjust_number("sender", &soft_limit, v as f64).unwrap();
            assert_eq!(e.touched(), Some(&Touched::Blocks(vec![i])));
        }
        assert_eq!(soft(&e), 48.0);
        let by_block = {
            let mut other = Editor::new(Scenario::from_json(include_str!("../../../scenarios/slow-client.json")).unwrap()).unwrap();
            let BlockSpec::Queue(mut q) = other.scenario().nodes[i].block.clone() else { unreachable!() };
            q.soft_limit.messages = 48;
            other.set_block("sender", BlockSpec::Queue(q)).unwrap();
            other.scenario().clone()
        };
        assert_eq!(e.scenario(), &by_block);
        let err = e.adjust_number("sender", &soft_limit, 1_000_000.0).unwrap_err();
        assert_eq!(err.to_string(), "sender: must not exceed hard_limit.messages (1000000 > 100)");
        assert!(matches!(e.adjust_number("sender", &soft_limit, 2.5), Err(EditError::Field(_))));
        assert!(matches!(e.adjust_number("sender", &FieldPath::of("order"), 2.0), Err(EditError::Field(_))));
        assert_eq!(soft(&e), 48.0);
        assert!(e.undo());
        assert_eq!(soft(&e), start, "one undo takes the whole drag back");
        assert!(!e.can_undo());
    }

    #[test]
    fn the_seed_is_an_edit_that_can_be_undone() {
        let mut e = empty_editor();
        e.set_seed(Some(42)).unwrap();
        assert_eq!(e.scenario().seed, Some(42));
        assert!(e.undo());
        assert_eq!(e.scenario().seed, None);
    }
}
