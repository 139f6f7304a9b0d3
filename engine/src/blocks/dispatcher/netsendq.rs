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
