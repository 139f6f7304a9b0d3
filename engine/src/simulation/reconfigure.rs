//! Changing a node's parameters while the simulation runs.
//!
//! Guarantee: the new block must be of the same kind and the whole
//! scenario valid; otherwise nothing changes and the error names the field.

use super::*;
use super::wiring::{build_node, class_maps, class_names, priority_table, router_choice};

/// A queue's thresholds changed while it ran: what they were before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitChange {
    pub at: SimTime,
    pub node: usize,
    /// The soft and hard limits in force until `at`.
    pub before: [Limits; 2],
}

/// How many threshold changes a run keeps: far more than a person makes,
/// while a slider dragged over a running queue for minutes stays bounded
/// (the oldest go first; the thresholds before the oldest kept are then
/// taken to be those it replaced).
pub(super) const LIMIT_CHANGES_KEPT: usize = 4096;

impl Simulation {
    /// Changes the parameters of node `id` while running. The new block must
    /// be of the same kind and valid in the scenario; otherwise nothing
    /// changes and the error names the bad field.
    pub fn reconfigure(&mut self, id: &str, block: BlockSpec) -> Result<(), ScenarioError> {
        let Some(i) = self.scenario.node_index(id) else {
            return Err(ScenarioError::single("id", format!("no node has the id \"{id}\"")));
        };
        let old_kind = self.scenario.nodes[i].block.kind();
        if block.kind() != old_kind {
            return Err(ScenarioError::single(
                format!("nodes[{i}].kind"),
                format!("a running {old_kind} cannot become a {}", block.kind()),
            ));
        }
        let mut candidate = self.scenario.clone();
        candidate.nodes[i].block = block;
        candidate.validate()?;
        self.take_blocks(&candidate, &[i])
    }

    /// Takes the parameters of nodes `changed` from `edited`, a valid
    /// scenario of this run's shape (same ids, kinds, edges and seed: the
    /// editor says so of an edit that touched blocks only), one node after
    /// another as `reconfigure` would, without validating again.
    pub(crate) fn take_blocks(&mut self, edited: &Scenario, changed: &[usize]) -> Result<(), ScenarioError> {
        if edited.makes_receipts() && !self.scenario.makes_receipts() {
            // Receipts are a class of their own, which every block resolved
            // when the run started.
            let i = changed.first().copied().unwrap_or(0);
            return Err(ScenarioError::single(
                format!("nodes[{i}].receipts"),
                "receipts cannot be turned on while running: start the run again",
            ));
        }
        for &i in changed {
            // A trace played as a replay was turned into its replay when
            // the run started.
            if let (Some(BlockSpec::Producer(old)), Some(BlockSpec::Producer(new))) = (self.scenario.nodes.get(i).map(|n| &n.block), edited.nodes.get(i).map(|n| &n.block)) {
                if (old.arrivals.replays() || new.arrivals.replays()) && old.arrivals != new.arrivals {
                    return Err(ScenarioError::single(
                        format!("nodes[{i}].arrivals"),
                        "a trace whose messages carry keys or service times cannot change while running: start the run again",
                    ));
                }
                // Replayed keys are numbered after the generated ones when
                // the run starts: more generated keys would take theirs.
                if self.replayed_keys.is_some() && new.keys.unwrap_or(0) > self.generated_keys {
                    return Err(ScenarioError::single(
                        format!("nodes[{i}].keys"),
                        "more client keys than the run started with, beside a replayed trace's keys: start the run again",
                    ));
                }
            }
        }
        if let Some(held) = &self.held {
            // The running part must stay whole on its own: a block of it
            // may not come to name a held one.
            edited.without(held).validate()?;
        }
        for &i in changed {
            let Some(block) = edited.nodes.get(i).map(|n| n.block.clone()) else { continue };
            if self.scenario.nodes.get(i).is_none_or(|n| n.block.kind() != block.kind()) {
                continue;
            }
            if self.is_held(i) {
                // It takes its parameters when it is connected and the run
                // starts again.
                self.scenario.nodes[i].block = block;
                continue;
            }
            if let (BlockSpec::Queue(old), BlockSpec::Queue(new)) = (&self.scenario.nodes[i].block, &block) {
                if [old.soft_limit, old.hard_limit] != [new.soft_limit, new.hard_limit] {
                    self.note_limit_change(i, [old.soft_limit, old.hard_limit]);
                }
            }
            self.scenario.nodes[i].block = block.clone();
            self.take_block(i, block);
        }
        Ok(())
    }

    /// Notes that queue `i`'s thresholds, `before` until now, change now.
    /// Changes at one instant (a slider dragged while paused) are one.
    fn note_limit_change(&mut self, i: usize, before: [Limits; 2]) {
        let now = self.core.now;
        if self.limit_changes.iter().rev().take_while(|c| c.at == now).any(|c| c.node == i) {
            return;
        }
        if self.limit_changes.len() >= LIMIT_CHANGES_KEPT {
            self.limit_changes.remove(0);
        }
        self.limit_changes.push(LimitChange { at: now, node: i, before });
    }

    /// Hands node `i` its new parameters (already in the scenario) and lets
    /// what they free move on.
    fn take_block(&mut self, i: usize, block: BlockSpec) {
        match (&mut self.nodes[i], block) {
            (Node::Producer(p), BlockSpec::Producer(spec)) => {
                let classes = class_maps(&self.scenario).swap_remove(i);
                let server = spec.linked_to.as_deref().and_then(|id| self.scenario.node_index(id));
                p.reconfigure(spec, classes, &mut ctx!(self, i));
                self.class_names = class_names(&self.scenario);
                self.relink(i, server);
                self.pump(i);
            }
            (Node::Queue(q), BlockSpec::Queue(spec)) => {
                let table = priority_table(&self.scenario, &spec.message_priorities);
                let signal = q.reconfigure(spec, table, &mut ctx!(self, i));
                self.signal_inputs(i, signal);
                self.pump(i);
                self.wake_inputs(i);
            }
            (Node::Consumer(c), BlockSpec::Consumer(spec)) => {
                c.reconfigure(spec);
                self.wake_inputs(i);
            }
            (Node::Router(r), BlockSpec::Router(spec)) => {
                let choice = router_choice(&self.scenario, &self.outputs, i, &spec);
                r.reconfigure(spec, choice);
                self.pump(i);
            }
            (Node::Window(w), BlockSpec::Window(spec)) => {
                w.reconfigure(spec);
                if let Some(class) = self.class_names.iter().position(|c| c == crate::blocks::window::RECEIPT_CLASS) {
                    w.set_receipt_class(class as u16);
                }
                self.pump(i);
            }
            (Node::Credit(c), BlockSpec::Credit(spec)) => {
                c.reconfigure(spec);
                self.pump(i);
            }
            (Node::RateLimiter(r), BlockSpec::RateLimiter(spec)) => {
                r.reconfigure(spec);
                self.pump(i);
            }
            (Node::ConcurrencyLimiter(l), BlockSpec::ConcurrencyLimiter(spec)) => {
                l.reconfigure(spec);
                self.pump(i);
            }
            (Node::ProductLimiter(l), BlockSpec::ProductLimiter(spec)) => {
                l.reconfigure(spec, &mut ctx!(self, i));
                self.pump(i);
            }
            (Node::ResourcePool(r), BlockSpec::ResourcePool(spec)) => {
                r.reconfigure(spec, &mut ctx!(self, i));
                self.pump(i);
            }
            (Node::Link(l), BlockSpec::Link(spec)) => {
                l.reconfigure(spec, &mut ctx!(self, i));
                self.wake_inputs(i);
            }
            (Node::Dispatcher { demands: d, pool, .. }, BlockSpec::Dispatcher(spec)) => {
                pool.reconfigure(spec.workers_spec());
                d.reconfigure(spec);
                self.dispatch(i);
                self.wake_inputs(i);
            }
            _ => {}
        }
        self.settle();
    }
}

impl Simulation {
    /// Takes, live, a block that holds nothing (a router, window, credit
    /// link, limiter or resource pool) put on the edge from `from` to `to`:
    /// `edited` is this run's scenario with node `node` appended and that
    /// edge become two through it, nothing else changed. What is on its way
    /// past the edge goes on uncounted by the new block, which counts from
    /// now; a sender held up by `to` offers again, through it. Refused
    /// (nothing changes) for any other edit, or a block that holds
    /// messages, whose place in the run would need a start of its own.
    pub fn take_insertion(&mut self, edited: &Scenario, node: usize, from: usize, to: usize) -> Result<(), ScenarioError> {
        let n = self.nodes.len();
        let refuse = |why: &str| Err(ScenarioError::single(format!("nodes[{node}]"), why.to_string()));
        if node != n || edited.nodes.len() != n + 1 || self.held.is_some() {
            return refuse("not an insertion into this run");
        }
        let spec = &edited.nodes[n];
        if !spec.block.kind().holds_nothing() || (edited.makes_receipts() && !self.scenario.makes_receipts()) {
            return refuse("a block that holds messages (or makes receipts) starts the run again");
        }
        // The same nodes, and the edges but for the one split in two.
        let same_nodes = self.scenario.nodes.iter().zip(&edited.nodes).all(|(a, b)| a.id == b.id && a.block == b.block);
        let (f, t) = (self.scenario.nodes[from].id.as_str(), self.scenario.nodes[to].id.as_str());
        let mut expected: Vec<(&str, &str)> = Vec::new();
        for e in &self.scenario.edges {
            if (e.from.as_str(), e.to.as_str()) == (f, t) {
                expected.push((f, spec.id.as_str()));
                expected.push((spec.id.as_str(), t));
            } else {
                expected.push((e.from.as_str(), e.to.as_str()));
            }
        }
        let edges: Vec<(&str, &str)> = edited.edges.iter().map(|e| (e.from.as_str(), e.to.as_str())).collect();
        if !same_nodes || edges != expected || edited.seed != self.scenario.seed {
            return refuse("not an insertion into this run");
        }
        if matches!(&self.scenario.nodes[to].block, BlockSpec::Dispatcher(d) if d.queues == crate::blocks::dispatcher::QueueKey::PerInput) {
            // Its demand queues are its senders: a new sender is a new
            // queue, and the old one's backlog and priority stay behind.
            return refuse("a dispatcher with a queue per sender gets a new sender: the run starts again");
        }
        edited.validate()?;

        // The wiring: `from` now feeds the new node in `to`'s place, and
        // the new node feeds `to` in `from`'s.
        for out in self.outputs[from].iter_mut().filter(|o| **o == to) {
            *out = n;
        }
        for input in self.inputs[to].iter_mut().filter(|i| **i == from) {
            *input = n;
        }
        self.outputs.push(vec![to]);
        self.inputs.push(vec![from]);
        let classes = class_maps(edited).pop().unwrap_or_default();
        let block = build_node(edited, &self.outputs, &self.inputs, n, &spec.block, classes);
        self.nodes.push(block);
        self.stats.push(NodeStats::new());
        self.core.rngs.push(SimRng::for_node(self.seed, &spec.id));
        self.wake_cursor.push(0);
        self.refused.push(false);
        self.wake_queued.push(false);
        // The paths a pause takes were found for the old wiring.
        self.pause_targets = vec![None; n + 1];
        // The dots' counts: each edge keeps its own, the two new ones start
        // from the one they replace.
        if let Some(old) = self.flows.take() {
            let old_edges = self.scenario.edge_ends();
            let count_of = |a: usize, b: usize| old_edges.iter().position(|&(x, y)| x == Some(a) && y == Some(b)).map(|k| old.of_edge(k).to_vec());
            let new_edges: Vec<(usize, usize)> =
                edited.edge_ends().into_iter().map(|(a, b)| (a.unwrap_or(usize::MAX), b.unwrap_or(usize::MAX))).collect();
            let mut flows = Flows::new(n + 1, &new_edges, self.class_names.len());
            for (k, &(a, b)) in new_edges.iter().enumerate() {
                let counts = if a == n || b == n { count_of(from, to) } else { count_of(a, b) };
                flows.set_edge(k, &counts.unwrap_or_default());
            }
            self.flows = Some(Box::new(flows));
        }
        self.scenario = edited.clone();
        if let Node::ResourcePool(r) = &mut self.nodes[n] {
            r.start(&mut ctx!(self, n));
        }
        self.wake_inputs(n);
        self.settle();
        Ok(())
    }
}
