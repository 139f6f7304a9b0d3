//! Changing a node's parameters while the simulation runs.
//!
//! Guarantee: the new block must be of the same kind and the whole
//! scenario valid; otherwise nothing changes and the error names the field.

use super::*;
use super::wiring::{class_maps, class_names, priority_table, router_choice};

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
