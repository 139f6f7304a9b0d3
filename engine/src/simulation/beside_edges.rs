//! The paths that leave the edges on purpose: a consumer's phase reaching
//! the producers linked to it and the consumers it supervises, a window's
//! receipts offered to the block that reads them, a timed-out job sent
//! back to its job queue, and netsendq RPCs failed while under way.

use super::*;

impl Simulation {
    /// At the start of a run: supervisors count their children, and linked
    /// producers hear where their servers stand.
    pub(super) fn start_supervision(&mut self) {
        let Some(sup) = self.supervision.take() else { return };
        for (c, children) in sup.children.iter().enumerate() {
            if let Node::Consumer(consumer) = &mut self.nodes[c] {
                consumer.set_children(children.len() as u32);
            }
        }
        self.supervision = Some(sup);
        for c in 0..self.nodes.len() {
            self.follow_phase(c);
        }
    }

    /// Producer `p` is now linked to consumer `server` (or to nothing),
    /// and hears where that server stands.
    pub(super) fn relink(&mut self, p: usize, server: Option<usize>) {
        if self.supervision.is_none() && server.is_none() {
            return;
        }
        let n = self.nodes.len();
        let phases: Vec<Option<Phase>> = self
            .nodes
            .iter()
            .map(|node| match node {
                Node::Consumer(c) => Some(c.phase()),
                _ => None,
            })
            .collect();
        let sup = self.supervision.get_or_insert_with(|| Box::new(Supervision { seen: phases.clone(), ..Supervision::empty(n) }));
        for clients in &mut sup.clients {
            clients.retain(|&x| x != p);
        }
        let phase = server.and_then(|s| {
            sup.clients[s].push(p);
            phases[s]
        });
        if let Node::Producer(producer) = &mut self.nodes[p] {
            producer.server_is(phase.map(server_phase), &mut ctx!(self, p));
        }
    }

    /// Carries a change of consumer `c`'s phase along rotor's relations:
    /// its linked producers hear of it; when it starts shutting down, its
    /// children shut down, and if it gave up initializing its supervisor
    /// does too; once shut down, its supervisor counts one child fewer.
    /// Each consumer changed on the way is followed in turn.
    pub(super) fn follow_phase(&mut self, c: usize) {
        let mut work = vec![c];
        while let Some(c) = work.pop() {
            let (Some(sup), Node::Consumer(consumer)) = (self.supervision.as_mut(), &self.nodes[c]) else { continue };
            let phase = consumer.phase();
            let old = sup.seen[c].replace(phase);
            if old == Some(phase) {
                continue;
            }
            let (clients, children, supervisor) = (sup.clients[c].clone(), sup.children[c].clone(), sup.supervisor[c]);
            let server = server_phase(phase);
            for p in clients {
                if let Node::Producer(producer) = &mut self.nodes[p] {
                    producer.server_is(Some(server), &mut ctx!(self, p));
                }
            }
            let going = |p: Option<Phase>| matches!(p, Some(Phase::ShuttingDown | Phase::ShutDown));
            if going(Some(phase)) && !going(old) {
                for child in children {
                    if let Node::Consumer(ch) = &mut self.nodes[child] {
                        ch.begin_shutdown(crate::state::Cause::SupervisorShuttingDown, &mut ctx!(self, child));
                        work.push(child);
                    }
                }
                let failed = matches!(&self.nodes[c], Node::Consumer(x) if x.init_failed());
                if let (true, Some(s)) = (failed, supervisor) {
                    if let Node::Consumer(up) = &mut self.nodes[s] {
                        up.begin_shutdown(crate::state::Cause::ChildFailedToInitialize, &mut ctx!(self, s));
                        work.push(s);
                    }
                }
            }
            if phase == Phase::ShutDown {
                if let Some(s) = supervisor {
                    if let Node::Consumer(up) = &mut self.nodes[s] {
                        up.child_shut_down(&mut ctx!(self, s));
                        work.push(s);
                    }
                }
            }
        }
    }

    /// Window `w`'s receipts due now go to its receipt queue; one refused
    /// is an ACK not accepted, which the window sees retransmitted.
    pub(super) fn offer_receipts(&mut self, w: usize) {
        let Node::Window(window) = &mut self.nodes[w] else { return };
        for copy in window.take_resends() {
            match &mut self.nodes[copy.link] {
                Node::Link(link) => link.resend(copy, &mut ctx!(self, copy.link)),
                // No longer a link (a run does not change a node's kind
                // today): the ACK comes back now rather than never.
                _ => {
                    if let Node::Window(window) = &mut self.nodes[w] {
                        window.acknowledge_copy(copy, &mut ctx!(self, w));
                    }
                }
            }
        }
        let Node::Window(window) = &mut self.nodes[w] else { return };
        let receipts = window.take_receipts();
        if receipts.is_empty() {
            return;
        }
        let to = window.spec().receipts.as_ref().and_then(|r| self.scenario.node_index(&r.to));
        for receipt in receipts {
            let taken = to.is_some_and(|to| self.accept(w, to, receipt));
            if let Node::Window(window) = &mut self.nodes[w] {
                if taken {
                    window.receipt_entered();
                } else {
                    window.receipt_refused(&receipt, &mut ctx!(self, w));
                }
            }
        }
    }

    /// The copies that link `l` sent again and that reached its far end:
    /// the windows that sent them hear their ACK again.
    pub(super) fn copies_arrive(&mut self, l: usize) {
        let Node::Link(link) = &mut self.nodes[l] else { return };
        for copy in link.arrived_copies(self.core.now) {
            let w = copy.window;
            if let Node::Window(window) = &mut self.nodes[w] {
                window.acknowledge_copy(copy, &mut ctx!(self, w));
            }
        }
    }

    /// The job queue before consumer `c` that a job from producer `source`
    /// waited in: the queues before `c` through the blocks that hold
    /// nothing (limiters, windows, routers), the one `source` feeds (the
    /// first found, by the order of the edges, when several or none do);
    /// and those blocks.
    pub(super) fn job_queue_of(&self, c: usize, source: usize) -> (Option<usize>, Vec<usize>) {
        let mut between = Vec::new();
        let mut queues = Vec::new();
        let mut stack: Vec<usize> = self.inputs[c].iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            match &self.nodes[n] {
                Node::Queue(_) if !queues.contains(&n) => queues.push(n),
                node if node.passes_through() && !between.contains(&n) => {
                    between.push(n);
                    stack.extend(self.inputs[n].iter().rev());
                }
                _ => {}
            }
        }
        let own = queues.iter().copied().find(|&q| self.feeds(source, q));
        (own.or(queues.first().copied()), between)
    }

    /// Whether node `from` reaches node `to` along the edges.
    fn feeds(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![to];
        while let Some(n) = stack.pop() {
            if n == from {
                return true;
            }
            if !std::mem::replace(&mut seen[n], true) {
                stack.extend_from_slice(&self.inputs[n]);
            }
        }
        false
    }

    /// A job cut off by consumer `c`'s execution time-out goes back to its
    /// job queue: the limiters between them count it finished, and it
    /// passes them again. If the queue cannot take it, it is dropped
    /// (`timed_out`).
    pub(super) fn requeue_timed_out(&mut self, c: usize, msg: Message) {
        let (queue, between) = self.job_queue_of(c, msg.source as usize);
        let mut kept = msg;
        let mut released = msg;
        for g in msg.gates.iter() {
            if between.contains(&g) {
                kept.gates.remove(g);
            } else {
                released.gates.remove(g);
            }
        }
        if !released.gates.is_empty() {
            self.core.outbox.push(Notice::Dropped(released));
        }
        let taken = queue.is_some_and(|q| self.accept(c, q, kept));
        if !taken {
            ctx!(self, c).drop_message(kept, DropReason::TimedOut);
        }
    }

    /// An RPC whose netsendq host went down while it was under way, taken
    /// out where it surfaced (an offer to any block, or the end of a
    /// service at node `at`): dispatcher `d` queues it again, or it fails,
    /// counted at `at`.
    pub(super) fn surface_failed(&mut self, d: usize, at: usize, requeue: bool, msg: Message) {
        let Node::Dispatcher { demands: disp, .. } = &mut self.nodes[d] else { return };
        if requeue {
            disp.requeue(msg, &mut ctx!(self, d));
            self.dispatch(d);
        } else {
            ctx!(self, at).drop_message(msg, DropReason::HostDown);
        }
    }

    /// If the message served in `slot` of `c` is an RPC that failed while
    /// under way, the worker drops it unserved (`surface_failed`) and is
    /// free. Returns whether it was one.
    pub(super) fn fail_in_slot(&mut self, c: usize, slot: u32) -> bool {
        let id = match &self.nodes[c] {
            Node::Consumer(consumer) => consumer.message(slot).map(|m| m.id),
            Node::Dispatcher { pool, .. } => pool.message(slot).map(|m| m.id),
            _ => None,
        };
        let Some((d, requeue)) = id.and_then(|id| self.core.failed_rpcs.remove(&id)) else { return false };
        let msg = match &mut self.nodes[c] {
            Node::Consumer(consumer) => consumer.abandon(slot, &mut ctx!(self, c)),
            Node::Dispatcher { demands: disp, pool, pool_stats: ps } => {
                let msg = pool.abandon(slot, &mut pool_ctx!(self, c, ps));
                if let Some(m) = &msg {
                    disp.send_finished(m);
                }
                msg
            }
            _ => None,
        };
        if matches!(self.nodes[c], Node::Dispatcher { .. }) {
            self.sync_pool_stats(c);
        }
        if let Some(msg) = msg {
            self.surface_failed(d, c, requeue, msg);
        }
        self.after_worker_freed(c);
        true
    }
}

/// What a consumer's phase means to a producer linked to it.
pub(super) fn server_phase(phase: Phase) -> ServerPhase {
    match phase {
        Phase::Initializing => ServerPhase::Initializing,
        Phase::Operational => ServerPhase::Operational,
        Phase::ShuttingDown | Phase::ShutDown => ServerPhase::Gone,
    }
}
