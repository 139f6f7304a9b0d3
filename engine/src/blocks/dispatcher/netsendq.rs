//! Gfarm's netsendq: per-type windows per host, each host's ready queue
//! and its one send at a time, and hosts going down and up (the
//! guarantees are stated with the dispatcher's).

use super::*;
use crate::state::State;

#[derive(Clone, Debug, Default)]
pub(super) struct Host {
    pub(super) ready: VecDeque<(usize, Entry)>,
    pub(super) sending: bool,
    pub(super) down: bool,
}

impl Dispatcher {
    /// netsendq: each (host, type) queue's messages sent and not yet
    /// answered, with the window that bounds them.
    pub fn in_flight_by_window(&self) -> Vec<(u64, u64)> {
        self.queues
            .iter()
            .map(|q| (q.in_flight, self.spec.windows.get(self.class_name(q.class)).copied().unwrap_or(1)))
            .collect()
    }

    pub(super) fn is_down(&self, host: usize) -> bool {
        self.hosts.get(&host).is_some_and(|h| h.down)
    }

    /// netsendq: move eligible entries from work queues to their hosts'
    /// ready queues, then pick a host that is not sending.
    pub(super) fn pick_netsendq(&mut self, ttl: Option<SimDuration>, ctx: &mut Context) -> Option<(usize, Entry)> {
        for q in 0..self.queues.len() {
            let (host, class) = (self.queues[q].host, self.queues[q].class);
            if self.is_down(host) {
                continue;
            }
            let window = self.spec.windows.get(self.class_name(class)).copied().unwrap_or(1);
            let one_shot = self.class_in(&self.spec.one_shot, class);
            while self.queues[q].in_flight < window {
                let Some(e) = self.queues[q].buffer.pop() else { break };
                if ttl.is_some_and(|ttl| e.enqueued + ttl <= ctx.core.now) {
                    self.count_out(&e.msg);
                    ctx.drop_message(e.msg, DropReason::Expired);
                    continue;
                }
                self.queues[q].in_flight += 1;
                let h = self.hosts.entry(host).or_default();
                if one_shot {
                    h.ready.push_front((q, e));
                } else {
                    // Time order: by when the entry was queued.
                    let pos = h.ready.iter().rposition(|(_, r)| r.enqueued <= e.enqueued).map_or(0, |p| p + 1);
                    h.ready.insert(pos, (q, e));
                }
                if !self.host_turn.contains(&host) {
                    self.host_turn.push_back(host);
                }
            }
        }
        // One send at a time per host; hosts take turns.
        for _ in 0..self.host_turn.len() {
            let host = self.host_turn.pop_front()?;
            let h = self.hosts.entry(host).or_default();
            if h.down || h.ready.is_empty() {
                continue;
            }
            self.host_turn.push_back(host);
            if h.sending {
                continue;
            }
            let (q, e) = h.ready.pop_front()?;
            h.sending = true;
            return Some((q, e));
        }
        None
    }

    /// The host (destination) key of a message.
    pub(super) fn host_of(msg: &Message) -> usize {
        if msg.destination == NO_DESTINATION {
            usize::MAX
        } else {
            msg.destination as usize
        }
    }

    /// netsendq: the send of `msg` finished; its host may send again.
    pub fn send_finished(&mut self, msg: &Message) {
        if let Some(h) = self.hosts.get_mut(&Self::host_of(msg)) {
            h.sending = false;
        }
    }

    /// Whether messages served by this dispatcher wait for their reply.
    pub fn gates_its_messages(&self) -> bool {
        self.spec.discipline == Discipline::Netsendq
    }

    /// netsendq: the reply to (or the loss of) `msg` arrived.
    pub fn replied(&mut self, msg: &Message) {
        // One that failed when its host went down was counted out then.
        if let Some(q) = self.in_flight_ids.remove(&msg.id) {
            self.queues[q].in_flight = self.queues[q].in_flight.saturating_sub(1);
        }
    }

    /// netsendq: `msg`, a queueable RPC under way when its host went down,
    /// surfaced: it goes back to the head of its work queue.
    pub fn requeue(&mut self, mut msg: Message, ctx: &mut Context) {
        msg.gates = Default::default();
        let Some(&q) = self.by_key.get(&(Self::host_of(&msg), msg.class as usize)) else {
            ctx.drop_message(msg, DropReason::HostDown);
            return;
        };
        ctx.stats.arrived += 1;
        self.count_in(&msg);
        self.queues[q].buffer.unpop(Entry { msg, enqueued: ctx.core.now });
        self.record(ctx);
    }

    /// netsendq: host `index` of `hosts_down` goes down (`up` false) or up.
    pub fn host_state(&mut self, index: usize, up: bool, ctx: &mut Context) {
        let Some(name) = self.spec.hosts_down.get(index).map(|d| d.host.clone()) else { return };
        let Some(host) = self.map.node_ids.iter().position(|id| *id == name) else { return };
        let keep = self.spec.queueable_if_down.clone();
        let h = self.hosts.entry(host).or_default();
        if h.down != up {
            return;
        }
        h.down = !up;
        ctx.log_transition(if up { State::Down } else { State::Up }, if up { State::Up } else { State::Down }, crate::state::Cause::HostSchedule);
        if up {
            return;
        }
        // The ready queue is emptied: its entries go back to their work
        // queues' window counts.
        let ready: Vec<(usize, Entry)> = h.ready.drain(..).collect();
        for (q, e) in ready {
            self.queues[q].in_flight = self.queues[q].in_flight.saturating_sub(1);
            self.queues[q].buffer.unpop(e);
        }
        // Sent and unanswered: they fail, or are queued again if queueable,
        // where each surfaces; the window no longer counts them.
        let sent: Vec<(u64, usize)> =
            self.in_flight_ids.iter().filter(|&(_, &q)| self.queues[q].host == host).map(|(&id, &q)| (id, q)).collect();
        for (id, q) in sent {
            self.in_flight_ids.remove(&id);
            self.queues[q].in_flight = self.queues[q].in_flight.saturating_sub(1);
            let requeue = keep.iter().any(|c| c == self.class_name(self.queues[q].class));
            ctx.core.failed_rpcs.insert(id, (ctx.node, requeue));
        }
        // Unsent entries fail, except the queueable ones.
        for q in 0..self.queues.len() {
            if self.queues[q].host != host {
                continue;
            }
            let class = self.queues[q].class;
            let name = self.class_name(class).to_string();
            if keep.contains(&name) {
                continue;
            }
            while let Some(e) = self.queues[q].buffer.pop() {
                self.count_out(&e.msg);
                ctx.drop_message(e.msg, DropReason::HostDown);
            }
        }
        self.record(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::dispatcher;
    use super::*;
    use crate::context::bench::Bench;

    /// Offers a message of class `class` to host `host` (a node index).
    fn offer_to(d: &mut Dispatcher, b: &mut Bench, host: u16, class: u16) -> u64 {
        let mut msg = b.message(10, class);
        msg.destination = host;
        assert!(d.offer(msg, 1, &mut b.ctx()));
        msg.id
    }

    /// Sends until nothing can be sent, each send ending and answered at
    /// once: the ids sent, in order.
    fn send_all(d: &mut Dispatcher, b: &mut Bench) -> Vec<u64> {
        let mut sent = Vec::new();
        while let Pick::Serve(_, msg) = d.pick(&mut b.ctx()) {
            sent.push(msg.id);
            d.send_finished(&msg);
            d.replied(&msg);
        }
        sent
    }

    /// A class's window bounds its RPCs to a host sent and not answered
    /// (`windows`, 1 for a class it leaves out); an answer frees a place.
    #[test]
    fn a_class_window_bounds_its_rpcs_unanswered_until_one_is_answered() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"discipline": "netsendq", "windows": {"a": 2}}));
        let [a1, a2, a3] = [0, 0, 0].map(|class| offer_to(&mut d, &mut b, 1, class));
        let b1 = offer_to(&mut d, &mut b, 1, 1);
        assert_eq!(d.in_flight_by_window(), [(0, 2), (0, 1)], "nothing sent yet");
        let mut sent = Vec::new();
        while let Pick::Serve(_, msg) = d.pick(&mut b.ctx()) {
            sent.push(msg);
            d.send_finished(&msg);
        }
        assert_eq!(sent.iter().map(|m| m.id).collect::<Vec<_>>(), [a1, a2, b1], "the third of a waits for a place");
        assert_eq!(d.in_flight_by_window(), [(2, 2), (1, 1)]);
        d.replied(&sent[0]);
        assert_eq!(d.in_flight_by_window(), [(1, 2), (1, 1)]);
        assert_eq!(send_all(&mut d, &mut b), [a3]);
    }

    /// A host's ready queue holds its eligible RPCs in the order they were
    /// queued, whatever their class.
    #[test]
    fn a_hosts_ready_queue_sends_in_time_order_across_classes() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"discipline": "netsendq"}));
        let a1 = offer_to(&mut d, &mut b, 1, 0);
        b.at(1.0);
        let b1 = offer_to(&mut d, &mut b, 1, 1);
        b.at(2.0);
        let a2 = offer_to(&mut d, &mut b, 1, 0);
        b.at(3.0);
        assert_eq!(send_all(&mut d, &mut b), [a1, b1, a2]);
    }

    /// Free workers send for hosts in turn; a host with nothing left to
    /// send drops out of the turn and holds the others up not at all.
    #[test]
    fn hosts_take_turns_and_one_with_nothing_ready_holds_up_none() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"discipline": "netsendq", "windows": {"a": 10}}));
        let [x1, x2] = [0, 0].map(|class| offer_to(&mut d, &mut b, 1, class));
        let [y1, y2, y3] = [0, 0, 0].map(|class| offer_to(&mut d, &mut b, 2, class));
        assert_eq!(send_all(&mut d, &mut b), [x1, y1, x2, y2, y3]);
    }

    /// An RPC that waited its time to live is dropped (`expired`) when it
    /// would join its host's ready queue; a younger one is sent.
    #[test]
    fn an_rpc_that_waited_its_time_to_live_is_dropped_instead_of_sent() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"discipline": "netsendq", "ttl_s": 1.0}));
        offer_to(&mut d, &mut b, 1, 0);
        b.at(1.5);
        let young = offer_to(&mut d, &mut b, 1, 0);
        b.at(2.0);
        assert_eq!(send_all(&mut d, &mut b), [young]);
        assert_eq!(b.stats.dropped[DropReason::Expired as usize], 1);
        assert_eq!(d.waiting(), 0);
    }
}
