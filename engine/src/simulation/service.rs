//! The end of a service: a consumer's or a dispatcher's worker finishes,
//! its message is delivered or passed on, its gates hear of it, and the
//! freed worker asks for more.

use super::*;

impl Simulation {
    /// A consumer's worker finished: the message is delivered or passed on,
    /// its gates hear of it, and the consumer asks for more.
    pub(super) fn service_done(&mut self, c: usize, slot: u32) {
        if self.core.stale_ends > 0 && matches!(&self.nodes[c], Node::Consumer(consumer) if !consumer.ends_now(slot, self.core.now)) {
            // The end of a service a cancellation stopped.
            self.core.stale_ends -= 1;
            return;
        }
        if !self.core.failed_rpcs.is_empty() && self.fail_in_slot(c, slot) {
            return;
        }
        if self.serve_next_first(c, slot) {
            return;
        }
        let mut demand = None;
        let served = match &mut self.nodes[c] {
            Node::Consumer(consumer) => consumer.on_service_done(slot, &mut ctx!(self, c)),
            Node::Dispatcher { pool, pool_stats: ps, .. } => {
                demand = pool.message(slot).map(|m| m.id);
                pool.on_service_done(slot, &mut pool_ctx!(self, c, ps))
            }
            _ => return,
        };
        let sink = self.outputs[c].is_empty();
        if let (Served::Done | Served::GaveUp, Node::Dispatcher { demands: d, .. }, Some(id)) = (&served, &mut self.nodes[c], demand) {
            d.demand_finished(id);
        }
        if let (Served::Done, Node::Dispatcher { demands: d, pool, .. }) = (&served, &mut self.nodes[c]) {
            if let (true, Some(msg)) = (d.gates_its_messages(), pool.message(slot)) {
                d.send_finished(msg);
                if sink {
                    // No block after it to process the message and reply:
                    // it was processed here, and the reply is now.
                    d.replied(msg);
                }
            }
        }
        match served {
            Served::Done => {
                self.forward_served(c, slot);
                self.after_worker_freed(c);
            }
            Served::GaveUp => self.after_worker_freed(c),
            Served::Requeue(msg) => {
                self.requeue_timed_out(c, msg);
                self.after_worker_freed(c);
            }
            Served::Retried | Served::Nothing => {}
        }
    }

    /// Stops a consumer's worker serving `copy`, whose client cancelled it
    /// (`on_timeout: cancel`), if one is: the worker is free at once, and
    /// the end its service scheduled is ignored when it comes. Every
    /// consumer is looked at: a cancellation costs one look at each
    /// consumer's workers.
    pub(super) fn cancel_in_service(&mut self, (id, resent): CopyId) {
        for c in 0..self.nodes.len() {
            let Node::Consumer(consumer) = &mut self.nodes[c] else { continue };
            let Some(slot) = consumer.slot_serving(id, resent) else { continue };
            consumer.cancel(slot, &mut ctx!(self, c));
            self.core.stale_ends += 1;
            self.after_worker_freed(c);
            if self.supervision.is_some() {
                self.follow_phase(c);
            }
            return;
        }
    }

    /// Circuit breakers hear of copies their clients gave up on: each
    /// breaker that let one through counts an error now.
    pub(super) fn tell_breakers(&mut self, copies: &[CopyId]) {
        for b in 0..self.nodes.len() {
            let Node::ProductLimiter(l) = &mut self.nodes[b] else { continue };
            if !l.hears_give_ups() {
                continue;
            }
            for &copy in copies {
                l.gave_up(copy, &mut ctx!(self, b));
            }
            l.arm(&mut ctx!(self, b));
        }
    }

    /// A worker of consumer or dispatcher `c` may be free: a dispatcher
    /// picks its next demand; both ask their inputs for more.
    pub(super) fn after_worker_freed(&mut self, c: usize) {
        if matches!(self.nodes[c], Node::Dispatcher { .. }) {
            self.dispatch(c);
        }
        self.wake_inputs(c);
    }

    /// Gives free workers of dispatcher `d` the demands its discipline picks.
    pub(super) fn dispatch(&mut self, d: usize) {
        loop {
            let Node::Dispatcher { demands: disp, pool, .. } = &mut self.nodes[d] else { return };
            if !pool.has_room() {
                return;
            }
            let Pick::Serve(_, msg) = disp.pick(&mut ctx!(self, d)) else { return };
            let Node::Dispatcher { pool, pool_stats: ps, .. } = &mut self.nodes[d] else { return };
            // The pool has room, so it takes the demand.
            let taken = pool.offer(msg, &mut pool_ctx!(self, d, ps));
            debug_assert!(taken, "a pool with room refused a demand");
            self.sync_pool_stats(d);
        }
    }

    /// Mirrors a dispatcher pool's counters into the node's.
    pub(super) fn sync_pool_stats(&mut self, d: usize) {
        if let Node::Dispatcher { pool, pool_stats: ps, .. } = &self.nodes[d] {
            let st = &mut self.stats[d];
            st.departed = ps.departed;
            st.in_service = pool.busy() as u64;
            st.sojourn_ns = ps.sojourn_ns;
            st.dropped[DropReason::TimedOut as usize] = ps.dropped[DropReason::TimedOut as usize];
            if ps.client != st.client {
                // Work its pool spent for clients who had left.
                st.client = ps.client.clone();
            }
        }
    }

    /// Delivers the message served in `slot` or offers it to the consumer's
    /// next block. Returns whether the worker is free again.
    pub(super) fn forward_served(&mut self, c: usize, slot: u32) -> bool {
        let sink = self.outputs[c].is_empty();
        let taken = sink || {
            let (held, gated) = match &self.nodes[c] {
                Node::Consumer(consumer) => (consumer.message(slot).copied(), false),
                Node::Dispatcher { demands: d, pool, .. } => (pool.message(slot).copied(), d.gates_its_messages()),
                _ => (None, false),
            };
            let Some(mut onward) = held else { return false };
            onward.gates = Default::default();
            if gated {
                // netsendq hears of the reply from whoever processes it.
                onward.gates.push(c);
            }
            self.send(c, onward)
        };
        match &mut self.nodes[c] {
            Node::Consumer(consumer) => {
                if taken {
                    consumer.release(slot, sink, &mut ctx!(self, c));
                } else {
                    consumer.hold(slot);
                }
            }
            Node::Dispatcher { pool, pool_stats: ps, .. } => {
                if taken {
                    pool.release(slot, sink, &mut pool_ctx!(self, c, ps));
                } else {
                    pool.hold(slot);
                }
                self.sync_pool_stats(c);
            }
            _ => {}
        }
        taken
    }
}
