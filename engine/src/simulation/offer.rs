//! A message offered to a block: each kind takes it (queued, served,
//! passed on through a gate, dropped and counted) or refuses it, at once;
//! a refusal leaves the message with the sender, which waits to be woken.

use super::*;

impl Simulation {
    /// Node `to` is offered `msg`: it takes it or refuses it now.
    pub(super) fn accept(&mut self, from: usize, to: usize, msg: Message) -> bool {
        if !self.core.failed_rpcs.is_empty() {
            if let Some((d, requeue)) = self.core.failed_rpcs.remove(&msg.id) {
                self.surface_failed(d, d, requeue, msg);
                return true;
            }
        }
        if !self.core.abandoned.is_empty() && self.core.abandoned.get(&(msg.id, msg.resent)) == Some(&true) {
            // Its client gave up and cancelled it: the block it reaches
            // drops it before any work is spent on it.
            let ctx = &mut ctx!(self, to);
            ctx.stats.arrived += 1;
            ctx.drop_message(msg, DropReason::Cancelled);
            if let Some(flows) = &mut self.flows {
                flows.count(from, to, msg.class);
            }
            return true;
        }
        self.offer_depth += 1;
        self.refuser = usize::MAX;
        // This offer's own `not_read`, apart from an enclosing offer's (a
        // router on a link's way tries one output and then another); the
        // link reads theirs together.
        let enclosing = std::mem::take(&mut self.not_read);
        let result = self.accept_here(from, to, msg);
        let unread = std::mem::replace(&mut self.not_read, enclosing);
        self.not_read |= unread;
        self.offer_depth -= 1;
        if result {
            if let Some(flows) = &mut self.flows {
                flows.count(from, to, msg.class);
            }
            self.core.whys.taken(from, self.core.now);
        } else {
            // The deepest block that refused is the one that decided.
            if self.refuser == usize::MAX {
                self.refuser = to;
            }
            // Left unread in a link by a queue asking for a pause, or
            // refused.
            self.core.whys.refused(from, self.refuser, self.core.now, unread);
        }
        result
    }

    pub(super) fn accept_here(&mut self, from: usize, to: usize, msg: Message) -> bool {
        match &mut self.nodes[to] {
            // The common case first: no window waits to hear of a receipt.
            Node::Queue(_) | Node::Consumer(_) | Node::Dispatcher { .. } if msg.gates.is_empty() => {
                self.take_here(from, to, msg)
            }
            Node::Queue(_) | Node::Consumer(_) | Node::Dispatcher { .. } => {
                let (stripped, receipt) = self.strip_gates(msg);
                let taken = self.take_here(from, to, stripped);
                if let (true, Some(original)) = (taken, receipt) {
                    self.receipts(original);
                }
                taken
            }
            Node::Router(r) => {
                let Some(k) = r.choose(&msg, &mut self.core.rngs[to]) else {
                    let ctx = &mut ctx!(self, to);
                    ctx.stats.arrived += 1;
                    ctx.drop_message(msg, DropReason::NoRoute);
                    return true;
                };
                let out = self.outputs[to][k];
                let taken = self.accept(to, out, msg);
                if taken {
                    if let Node::Router(r) = &mut self.nodes[to] {
                        r.taken(k);
                    }
                    self.stats[to].arrived += 1;
                    self.stats[to].departed += 1;
                } else {
                    self.refused[to] = true;
                }
                taken
            }
            Node::Window(w) => {
                if !w.admits(&msg) {
                    self.refused[to] = true;
                    return false;
                }
                self.pass_gate(to, msg)
            }
            Node::Credit(c) => {
                if !c.admits(&msg, &mut ctx!(self, to)) {
                    self.refused[to] = true;
                    return false;
                }
                self.pass_gate(to, msg)
            }
            Node::ConcurrencyLimiter(l) => {
                if !l.admits() {
                    self.refused[to] = true;
                    return false;
                }
                self.pass_gate(to, msg)
            }
            Node::ResourcePool(r) => {
                if !r.admits(&mut ctx!(self, to)) {
                    self.refused[to] = true;
                    return false;
                }
                self.pass_gate(to, msg)
            }
            Node::RateLimiter(r) => match r.decide(&msg, &mut ctx!(self, to)) {
                RateDecision::Pass => {
                    let taken = self.send(to, msg);
                    if taken {
                        if let Node::RateLimiter(r) = &mut self.nodes[to] {
                            r.sent(&msg, &mut ctx!(self, to));
                        }
                    } else {
                        self.refused[to] = true;
                    }
                    taken
                }
                RateDecision::Wait => {
                    self.refused[to] = true;
                    false
                }
                RateDecision::Rejected => true,
            },
            Node::Link(l) => {
                let taken = l.offer(msg, &mut ctx!(self, to));
                self.socket_refused |= !taken;
                if taken {
                    // A window with receipts sends what it counts again
                    // over the first link it crossed.
                    for g in msg.gates.iter() {
                        match &mut self.nodes[g] {
                            Node::Window(w) if !w.is_receipt(&msg) => w.crossed(&msg, to),
                            _ => {}
                        }
                    }
                }
                taken
            }
            Node::ProductLimiter(l) => {
                // It takes every message (a message from a link is read
                // here, whatever the blocks behind do); one let through goes
                // on now, or waits in it for the next block.
                self.offer_from_link = false;
                if let Some(msg) = l.take(msg, &mut ctx!(self, to)) {
                    let taken = self.send(to, msg);
                    if let Node::ProductLimiter(l) = &mut self.nodes[to] {
                        if taken {
                            l.sent(&mut ctx!(self, to));
                        } else {
                            l.hold_refused(msg, &mut ctx!(self, to));
                        }
                    }
                } else if matches!(&self.nodes[to], Node::ProductLimiter(l) if !l.is_blocked() && l.due(self.core.now).is_some()) {
                    // It waited for a place and was given one at once (a
                    // connection opened for it): it goes now.
                    self.pump_limiter(to);
                }
                true
            }
            Node::Producer(_) => false,
        }
    }

    /// A block that holds messages (queue, consumer, dispatcher) is offered
    /// `msg`, its receipt gates already split off.
    #[inline(always)]
    pub(super) fn take_here(&mut self, from: usize, to: usize, msg: Message) -> bool {
        // Only the first block that holds messages on a link's way reads it.
        let from_link = std::mem::take(&mut self.offer_from_link);
        match &mut self.nodes[to] {
            Node::Queue(q) if from_link && q.asks_pause() && !q.is_disconnected() => {
                // The server stops reading: the message stays in the link's
                // receive buffer.
                self.not_read = true;
                false
            }
            Node::Queue(q) => match q.offer(msg, &mut ctx!(self, to)) {
                QueueOffer::Taken(signal) => {
                    let waiting = q.waiting_for_room();
                    self.signal_inputs(to, signal);
                    if !waiting {
                        self.pump_queue(to);
                    }
                    true
                }
                QueueOffer::Refused => false,
            },
            Node::Consumer(c) => c.offer(msg, &mut ctx!(self, to)),
            Node::Dispatcher { demands: d, .. } => {
                let taken = d.offer(msg, from, &mut ctx!(self, to));
                if taken {
                    self.dispatch(to);
                }
                taken
            }
            _ => false,
        }
    }

    /// A gate admitted `msg`: tag it, pass it on, and count it in flight if
    /// the next block takes it.
    pub(super) fn pass_gate(&mut self, gate: usize, msg: Message) -> bool {
        let mut tagged = msg;
        // A message already counted against MAX_GATES gates passes untracked
        // here rather than being refused forever.
        let tracked = tagged.gates.push(gate);
        if !self.send(gate, tagged) {
            self.refused[gate] = true;
            return false;
        }
        let ctx = &mut ctx!(self, gate);
        match &mut self.nodes[gate] {
            Node::Window(w) if tracked => w.sent(&msg, ctx),
            Node::Credit(c) if tracked => c.sent(&msg, ctx),
            Node::ConcurrencyLimiter(l) if tracked => l.sent(ctx),
            Node::ResourcePool(r) if tracked => r.sent(ctx),
            _ => {
                ctx.stats.arrived += 1;
                ctx.stats.departed += 1;
            }
        }
        true
    }
}
