//! Dispatcher: workers serving a set of demand queues, after SObjectizer's
//! custom dispatchers, Moment's DeferredProcessor and Gfarm's netsendq.
//!
//! Guarantees:
//! - Every message joins one demand queue, chosen by `queues`: one per
//!   incoming edge (`per_input`: one agent per sender), one per message
//!   destination (`per_destination`: one per receiving agent), one per class
//!   (`per_class`), or one for all (`shared`, which keeps global FIFO order).
//!   Inside a demand queue, messages leave oldest first, or by priority
//!   (`order: priority`; a message's priority is its class's, unless
//!   `message_priorities` sets one for its class, or its class and
//!   destination, or its source mailbox: see `priorities`). A demand queue
//!   holds at most `capacity` messages (`on_full`: `drop_oldest`,
//!   `drop_newest` or `refuse`).
//! - A demand that has waited `ttl_s` is discarded unprocessed (`expired`)
//!   when it is extracted, as SObjectizer's time-limited queue does: until
//!   a worker reaches it, it holds its place (and counts against
//!   `capacity`); the worker skips it at no cost and goes on.
//! - With `register_once`, a task is registered at most once, as in
//!   Moment's DeferredProcessor, whose queue is a list of registrations: a
//!   message of the same source and class as one still waiting in its
//!   demand queue is merged into it (`merged`, no work lost: the waiting run
//!   covers both). Once its run starts, the task may be registered again.
//! - `workers` serve demands, each for a `service_time`; a served message
//!   goes to the output, or is delivered when there is none (as a consumer).
//! - An agent is single-threaded (`round_robin` and `priority`): two
//!   demands of one agent never run at once, whatever the workers. Whose
//!   demand a message is, `agents` says: `by_destination` (the default)
//!   its destination, or, for a message addressed to no one, its demand
//!   queue where a queue is an agent's (`per_input`, `per_destination`,
//!   `shared`) and the dispatcher's one agent where it is not (`per_class`:
//!   two classes of one agent are still one agent); `per_queue` each demand
//!   queue; `independent` none (thread-safe handlers: any worker takes any
//!   demand). A queue whose next demand's agent is busy is passed over,
//!   keeping its place, until that agent's demand ends.
//! - `discipline` picks the next demand for a free worker:
//!   - `round_robin`: the list of non-empty queues; a worker takes the first
//!     queue, pops one demand, and puts the queue back at the tail if it is
//!     still non-empty (SObjectizer): round-robin between queues, FIFO
//!     inside one;
//!   - `priority`: the non-empty queue with the lowest number in
//!     `queue_priorities` (by queue name; default 0), first come first
//!     within a number (agent priorities);
//!   - `event_loop`: one iteration at a time over the queues in order. With
//!     `iteration: snapshot` an iteration serves only what each queue held
//!     when it began (Moment's DeferredProcessor); with `all` it empties
//!     each queue, new arrivals included, before moving to the next (the
//!     next queue starves while the first keeps filling);
//!   - `alternate`: Exon's receive() over two queues of equal size (say,
//!     messages and receipts, with `queues: per_class`): a flag names the
//!     queue to read; if it is empty, the next non-empty one is read
//!     instead, and the flag moves on only when the queue it names was
//!     read. Over more queues, the flag goes round them in order.
//!   - `netsendq`: Gfarm's sender. Queues are per destination host and per
//!     class (RPC type); at most `windows[class]` (default 1) messages of a
//!     class are in flight to a host, each until a consumer processes it (or
//!     it is dropped). An eligible message joins its host's ready queue in
//!     time order, a class in `one_shot` at its head. A host sends one
//!     message at a time; free workers (the thread pool) send for hosts
//!     round-robin. While a host is down (`hosts_down`), its ready queue is
//!     emptied and its unsent messages fail (`host_down`), except classes in
//!     `queueable_if_down`, which are kept and sent when it is up again.
//!     The RPCs already sent to it and not answered fail too (or, if
//!     queueable, go back to their work queue): the simulation takes each
//!     out where it next surfaces, when the host would have finished it or
//!     at its next hop, and it no longer counts against the window.
//! - When a demand queue that refused has room again, the dispatcher wakes
//!   its senders.

use std::collections::{BTreeMap, VecDeque};


use crate::buffer::{Buffer, Entry, Order};
use crate::context::Context;
use crate::message::{Message, NO_DESTINATION};
use crate::metrics::DropReason;
use crate::priorities::PriorityTable;
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

mod netsendq;
mod spec;

use netsendq::Host;
pub use spec::{Agents, DemandOnFull, Discipline, DispatcherSpec, HostDown, Iteration, QueueKey};

/// What the dispatcher knows of the scenario, resolved to indices.
#[derive(Clone, Debug, Default)]
pub struct DispatcherMap {
    /// The name of each class, by scenario-wide class index.
    pub class_names: Vec<String>,
    /// The id of each node, by index.
    pub node_ids: Vec<String>,
    /// The dispatcher's inputs, in edge order.
    pub inputs: Vec<usize>,
}

#[derive(Clone, Debug)]
struct DemandQueue {
    name: String,
    buffer: Buffer,
    priority: u8,
    /// netsendq: the host (destination) and class of the queue.
    host: usize,
    class: usize,
    in_flight: u64,
    /// event_loop: what this iteration may still take from it.
    budget: u64,
}

#[derive(Clone)]
pub struct Dispatcher {
    spec: DispatcherSpec,
    map: DispatcherMap,
    priorities: PriorityTable,
    queues: Vec<DemandQueue>,
    by_key: BTreeMap<(usize, usize), usize>,
    /// round_robin: the non-empty queues, in service order.
    ready_list: VecDeque<usize>,
    in_ready_list: Vec<bool>,
    /// event_loop: the queue being served in this iteration; alternate:
    /// the queue the flag names.
    cursor: usize,
    /// netsendq, per host: the ready queue of (queue, entry), whether a
    /// send is under way, whether the host is down.
    hosts: BTreeMap<usize, Host>,
    host_turn: VecDeque<usize>,
    /// Messages (and bytes) waiting, in demand queues and ready queues:
    /// kept as running totals because there may be many queues.
    waiting: u64,
    waiting_bytes: u64,
    /// With `register_once`: the (source, class) tasks waiting in demand
    /// queues.
    registered: std::collections::BTreeSet<(u16, u16)>,
    /// netsendq: the messages sent and not yet answered, by id, with their
    /// work queue.
    in_flight_ids: BTreeMap<u64, usize>,
    /// round_robin and priority: the agents with a demand running, and
    /// the running demands' agents by message id.
    busy_agents: std::collections::BTreeSet<Agent>,
    running: BTreeMap<u64, Agent>,
}

/// A demand's agent: a node, a demand queue, the dispatcher's own agent,
/// or none (an independent demand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Agent {
    Node(usize),
    Queue(usize),
    Dispatcher,
    None,
}

/// How one dispatch decision came out.
pub enum Pick {
    /// Serve this message (it left demand queue `usize`).
    Serve(usize, Message),
    Nothing,
}

impl Dispatcher {
    pub fn new(spec: DispatcherSpec, map: DispatcherMap) -> Self {
        Dispatcher {
            priorities: PriorityTable::resolve(&spec.message_priorities, &map.class_names, &map.node_ids),
            spec,
            map,
            queues: Vec::new(),
            by_key: BTreeMap::new(),
            ready_list: VecDeque::new(),
            in_ready_list: Vec::new(),
            cursor: 0,
            hosts: BTreeMap::new(),
            host_turn: VecDeque::new(),
            waiting: 0,
            waiting_bytes: 0,
            registered: std::collections::BTreeSet::new(),
            in_flight_ids: BTreeMap::new(),
            busy_agents: std::collections::BTreeSet::new(),
            running: BTreeMap::new(),
        }
    }

    /// `msg` came in to wait here.
    fn count_in(&mut self, msg: &Message) {
        if self.spec.register_once {
            self.registered.insert((msg.source, msg.class));
        }
        self.waiting += 1;
        self.waiting_bytes += msg.size_bytes as u64;
    }

    /// `msg` stopped waiting here (served or dropped).
    fn count_out(&mut self, msg: &Message) {
        self.registered.remove(&(msg.source, msg.class));
        self.waiting -= 1;
        self.waiting_bytes -= msg.size_bytes as u64;
    }

    pub fn spec(&self) -> &DispatcherSpec {
        &self.spec
    }

    pub fn reconfigure(&mut self, spec: DispatcherSpec) {
        let priorities = PriorityTable::resolve(&spec.message_priorities, &self.map.class_names, &self.map.node_ids);
        // What waits takes the new order (and table), as a queue's does.
        if spec.order != self.spec.order || (spec.order == Order::Priority && priorities != self.priorities) {
            for q in &mut self.queues {
                q.buffer.reorder(spec.order, |msg| priorities.again(msg));
            }
        }
        self.priorities = priorities;
        self.spec = DispatcherSpec { hosts_down: self.spec.hosts_down.clone(), ..spec };
        for q in &mut self.queues {
            q.priority = self.spec.queue_priorities.get(&q.name).copied().unwrap_or(0);
        }
        // Turned on while running: what already waits is registered (a
        // duplicate already waiting stays; the next one merges).
        self.registered.clear();
        if self.spec.register_once {
            self.registered = self.queues.iter().flat_map(|q| q.buffer.iter().map(|e| (e.msg.source, e.msg.class))).collect();
        }
    }

    /// Schedules the hosts' down and up times at the start of a run.
    pub fn start(&mut self, ctx: &mut Context) {
        for (i, d) in self.spec.hosts_down.iter().enumerate() {
            ctx.core.scheduler.schedule(SimTime::from_secs_f64(d.from_s), ctx.node, EventKind::LinkState, (i as u32) << 1);
            ctx.core.scheduler.schedule(SimTime::from_secs_f64(d.to_s), ctx.node, EventKind::LinkState, ((i as u32) << 1) | 1);
        }
    }

    /// Messages waiting in demand queues and ready queues.
    pub fn waiting(&self) -> u64 {
        self.waiting
    }

    fn class_name(&self, class: usize) -> &str {
        self.map.class_names.get(class).map_or("?", String::as_str)
    }

    fn node_name(&self, node: usize) -> &str {
        self.map.node_ids.get(node).map_or("none", String::as_str)
    }

    /// The demand queue for a message from input `from`, made on first use.
    fn queue_for(&mut self, msg: &Message, from: usize) -> usize {
        let dest = Self::host_of(msg);
        let class = msg.class as usize;
        let key = match (self.spec.discipline, self.spec.queues) {
            (Discipline::Netsendq, _) => (dest, class),
            (_, QueueKey::PerInput) => (from, 0),
            (_, QueueKey::PerDestination) => (dest, 0),
            (_, QueueKey::PerClass) => (class, 0),
            (_, QueueKey::Shared) => (0, 0),
        };
        if let Some(&q) = self.by_key.get(&key) {
            return q;
        }
        let name = match (self.spec.discipline, self.spec.queues) {
            (Discipline::Netsendq, _) => format!("{}/{}", self.node_name(dest), self.class_name(class)),
            (_, QueueKey::PerInput) => self.node_name(from).to_string(),
            (_, QueueKey::PerDestination) => self.node_name(dest).to_string(),
            (_, QueueKey::PerClass) => self.class_name(class).to_string(),
            (_, QueueKey::Shared) => "shared".to_string(),
        };
        let priority = self.spec.queue_priorities.get(&name).copied().unwrap_or(0);
        self.queues.push(DemandQueue {
            name,
            buffer: Buffer::new(self.spec.order),
            priority,
            host: dest,
            class,
            in_flight: 0,
            budget: 0,
        });
        self.in_ready_list.push(false);
        let q = self.queues.len() - 1;
        self.by_key.insert(key, q);
        q
    }

    fn class_in(&self, list: &[String], class: usize) -> bool {
        let name = self.class_name(class);
        list.iter().any(|c| c == name)
    }

    /// Takes a message from input `from`. Returns whether it did (a refused
    /// sender keeps the message).
    pub fn offer(&mut self, mut msg: Message, from: usize, ctx: &mut Context) -> bool {
        let q = self.queue_for(&msg, from);
        if self.spec.discipline == Discipline::Netsendq {
            let (host, class) = (self.queues[q].host, self.queues[q].class);
            if self.is_down(host) && !self.class_in(&self.spec.queueable_if_down, class) {
                ctx.stats.arrived += 1;
                ctx.drop_message(msg, DropReason::HostDown);
                return true;
            }
        }
        if self.spec.register_once && self.registered.contains(&(msg.source, msg.class)) {
            ctx.stats.arrived += 1;
            ctx.drop_message(msg, DropReason::Merged);
            return true;
        }
        let cap = self.spec.capacity;
        if cap > 0 && self.queues[q].buffer.len() as u64 >= cap {
            match self.spec.on_full {
                DemandOnFull::Refuse => return false,
                DemandOnFull::DropNewest => {
                    ctx.stats.arrived += 1;
                    ctx.drop_message(msg, DropReason::Overflow);
                    return true;
                }
                DemandOnFull::DropOldest => {
                    if let Some(old) = self.queues[q].buffer.pop_oldest() {
                        self.count_out(&old.msg);
                        ctx.drop_message(old.msg, DropReason::Overflow);
                    }
                }
            }
        }
        msg.entered_priority = msg.priority;
        if self.spec.order == Order::Priority {
            msg.priority = self.priorities.of(&msg);
        }
        ctx.stats.arrived += 1;
        self.count_in(&msg);
        self.queues[q].buffer.push(Entry { msg, enqueued: ctx.core.now });
        if !self.in_ready_list[q] {
            self.in_ready_list[q] = true;
            self.ready_list.push_back(q);
        }
        self.record(ctx);
        true
    }

    /// The next demand for a free worker, by the discipline.
    pub fn pick(&mut self, ctx: &mut Context) -> Pick {
        let ttl = self.spec.ttl_s.map(SimDuration::from_secs_f64);
        let picked = loop {
            let picked = match self.spec.discipline {
                Discipline::RoundRobin => self.pick_round_robin(),
                Discipline::Priority => self.pick_priority(),
                Discipline::EventLoop => self.pick_event_loop(),
                Discipline::Alternate => self.pick_alternate(),
                Discipline::Netsendq => self.pick_netsendq(ttl, ctx),
            };
            // An expired demand is skipped as it is extracted; the
            // worker goes on to the next. (netsendq extracts from its work
            // queues into the ready queues, and skips there.)
            match (picked, ttl) {
                (Some((_, e)), Some(ttl)) if e.enqueued + ttl <= ctx.core.now && self.spec.discipline != Discipline::Netsendq => {
                    self.count_out(&e.msg);
                    ctx.drop_message(e.msg, DropReason::Expired);
                }
                (picked, _) => break picked,
            }
        };
        match picked {
            Some((q, e)) => {
                match self.spec.discipline {
                    Discipline::Netsendq => {
                        self.in_flight_ids.insert(e.msg.id, q);
                    }
                    Discipline::RoundRobin | Discipline::Priority => {
                        let agent = self.agent_of(q, &e.msg);
                        if agent != Agent::None {
                            self.busy_agents.insert(agent);
                            self.running.insert(e.msg.id, agent);
                        }
                    }
                    Discipline::EventLoop | Discipline::Alternate => {}
                }
                self.count_out(&e.msg);
                let waited = ctx.core.now.since(e.enqueued);
                ctx.stats.record_duration(waited);
                if waited.as_nanos() > 0 {
                    ctx.stats.waited += 1;
                    ctx.stats.residence_ns += waited.as_nanos() as u128;
                }
                self.record(ctx);
                Pick::Serve(q, e.msg)
            }
            None => {
                // What was skipped as expired has left the gauge too.
                self.record(ctx);
                Pick::Nothing
            }
        }
    }

    /// A demand's agent, by `agents`.
    fn agent_of(&self, q: usize, msg: &Message) -> Agent {
        match self.spec.agents {
            Agents::Independent => Agent::None,
            Agents::PerQueue => Agent::Queue(q),
            Agents::ByDestination if msg.destination != NO_DESTINATION => Agent::Node(msg.destination as usize),
            Agents::ByDestination if self.spec.queues == QueueKey::PerClass => Agent::Dispatcher,
            Agents::ByDestination => Agent::Queue(q),
        }
    }

    /// Whether queue `q` has a next demand whose agent is free to run it.
    fn can_serve(&self, q: usize) -> bool {
        match self.queues[q].buffer.peek() {
            None => false,
            Some(e) => self.busy_agents.is_empty() || !self.busy_agents.contains(&self.agent_of(q, &e.msg)),
        }
    }

    /// A demand of an agent ended (served, or given up): the agent may run
    /// its next.
    pub fn demand_finished(&mut self, id: u64) {
        if let Some(agent) = self.running.remove(&id) {
            self.busy_agents.remove(&agent);
        }
    }

    fn pick_round_robin(&mut self) -> Option<(usize, Entry)> {
        // The first queue in the list whose next demand can run; one whose
        // agent is busy keeps its place.
        let mut i = 0;
        while i < self.ready_list.len() {
            let q = self.ready_list[i];
            if self.queues[q].buffer.is_empty() {
                self.in_ready_list[q] = false;
                self.ready_list.remove(i);
                continue;
            }
            if !self.can_serve(q) {
                i += 1;
                continue;
            }
            self.ready_list.remove(i);
            let e = self.queues[q].buffer.pop()?;
            if self.queues[q].buffer.is_empty() {
                self.in_ready_list[q] = false;
            } else {
                self.ready_list.push_back(q);
            }
            return Some((q, e));
        }
        None
    }

    fn pick_priority(&mut self) -> Option<(usize, Entry)> {
        // Lowest number first; among equals, the queue whose head is oldest.
        let q = (0..self.queues.len())
            .filter(|&q| self.can_serve(q))
            .min_by_key(|&q| (self.queues[q].priority, self.queues[q].buffer.peek().map(|e| e.enqueued), q))?;
        let e = self.queues[q].buffer.pop()?;
        if self.queues[q].buffer.is_empty() {
            self.in_ready_list[q] = false;
            self.ready_list.retain(|&x| x != q);
        }
        Some((q, e))
    }

    fn pick_event_loop(&mut self) -> Option<(usize, Entry)> {
        let n = self.queues.len();
        if n == 0 {
            return None;
        }
        // At most one full pass to find work, plus one new iteration.
        for _ in 0..=2 * n {
            if self.cursor >= n {
                // A new iteration: snapshot what each queue holds now.
                self.cursor = 0;
                for q in &mut self.queues {
                    q.budget = match self.spec.iteration {
                        Iteration::Snapshot => q.buffer.len() as u64,
                        Iteration::All => u64::MAX,
                    };
                }
                if self.queues.iter().all(|q| q.buffer.is_empty()) {
                    self.cursor = n;
                    return None;
                }
            }
            let q = &mut self.queues[self.cursor];
            if q.budget > 0 {
                if let Some(e) = q.buffer.pop() {
                    q.budget -= 1;
                    return Some((self.cursor, e));
                }
            }
            self.cursor += 1;
        }
        None
    }

    fn pick_alternate(&mut self) -> Option<(usize, Entry)> {
        let n = self.queues.len();
        if n == 0 {
            return None;
        }
        let flagged = self.cursor % n;
        for k in 0..n {
            let q = (flagged + k) % n;
            if let Some(e) = self.queues[q].buffer.pop() {
                if k == 0 {
                    // The flagged kind was read: the flag moves on.
                    self.cursor = (flagged + 1) % n;
                }
                return Some((q, e));
            }
        }
        None
    }

    fn record(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.core.now, self.waiting, self.waiting_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::bench::Bench;

    /// The spec read from `spec`, each demand taking a second.
    fn spec(spec: serde_json::Value) -> DispatcherSpec {
        let mut spec = spec;
        spec["service_time"] = serde_json::json!({"dist": "fixed", "value": 1.0});
        serde_json::from_value(spec).unwrap()
    }

    /// A dispatcher (node 0, "d") fed by senders 1 to 4 ("p1" to "p4"),
    /// with classes a, b and c.
    pub(super) fn dispatcher(spec: serde_json::Value) -> Dispatcher {
        let map = DispatcherMap {
            class_names: vec!["a".into(), "b".into(), "c".into()],
            node_ids: vec!["d".into(), "p1".into(), "p2".into(), "p3".into(), "p4".into()],
            inputs: vec![1, 2, 3, 4],
        };
        Dispatcher::new(self::spec(spec), map)
    }

    /// Offers a message of class `class` from sender `from`: its id.
    fn offer(d: &mut Dispatcher, b: &mut Bench, from: usize, class: u16) -> u64 {
        let msg = b.message(10, class);
        assert!(d.offer(msg, from, &mut b.ctx()));
        msg.id
    }

    /// One pick: the id served, if any.
    fn pick(d: &mut Dispatcher, b: &mut Bench) -> Option<u64> {
        match d.pick(&mut b.ctx()) {
            Pick::Serve(_, msg) => Some(msg.id),
            Pick::Nothing => None,
        }
    }

    /// Picks until nothing can be served (no demand ends meanwhile): the
    /// ids served, in order.
    fn serve_all(d: &mut Dispatcher, b: &mut Bench, finish: bool) -> Vec<u64> {
        let mut served = Vec::new();
        while let Pick::Serve(_, msg) = d.pick(&mut b.ctx()) {
            served.push(msg.id);
            if finish {
                d.demand_finished(msg.id);
            }
        }
        served
    }

    /// Round robin over two senders' queues: one demand from each in turn,
    /// FIFO inside one; a full queue refuses (`refuse`), the other still
    /// takes.
    #[test]
    fn round_robin_alternates_between_senders_and_a_full_queue_refuses() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_input", "capacity": 3, "on_full": "refuse", "agents": "independent"}));
        let mut sent = Vec::new();
        for from in [1, 1, 1, 2, 2] {
            let msg = b.message(10, 0);
            assert!(d.offer(msg, from, &mut b.ctx()));
            sent.push(msg.id);
        }
        let fourth = b.message(10, 0);
        assert!(!d.offer(fourth, 1, &mut b.ctx()), "the first sender's queue holds its capacity");
        assert_eq!(d.waiting(), 5);
        assert_eq!(serve_all(&mut d, &mut b, true), [sent[0], sent[3], sent[1], sent[4], sent[2]]);
        assert_eq!(d.waiting(), 0);
    }

    /// An agent runs one demand at a time: with `per_queue` agents, a
    /// queue whose demand is running is passed over, keeping its place,
    /// until that demand ends, whatever the workers.
    #[test]
    fn an_agent_never_runs_two_demands_at_once() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_input", "agents": "per_queue", "workers": 4}));
        let ids: Vec<u64> = [1, 1, 2]
            .into_iter()
            .map(|from| {
                let msg = b.message(10, 0);
                d.offer(msg, from, &mut b.ctx());
                msg.id
            })
            .collect();
        assert_eq!(serve_all(&mut d, &mut b, false), [ids[0], ids[2]], "one demand per agent, though four workers are free");
        d.demand_finished(ids[0]);
        assert_eq!(serve_all(&mut d, &mut b, false), [ids[1]], "its agent free again, the first queue's next runs");
    }

    /// A demand that waited its time to live is skipped when a worker
    /// reaches it (`expired`), and the worker goes on to the next; one
    /// younger is served.
    #[test]
    fn an_expired_demand_is_skipped_at_extraction() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "shared", "ttl_s": 1.0, "agents": "independent"}));
        let old = b.message(10, 0);
        d.offer(old, 1, &mut b.ctx());
        b.at(0.5);
        let young = b.message(10, 0);
        d.offer(young, 1, &mut b.ctx());
        b.at(1.2);
        assert_eq!(serve_all(&mut d, &mut b, true), [young.id]);
        assert_eq!(b.stats.dropped[DropReason::Expired as usize], 1);
        assert_eq!(d.waiting(), 0);
    }

    /// `register_once`: a task registered again while it still waits is
    /// merged into the waiting one (`merged`); once its run starts it may
    /// be registered again.
    #[test]
    fn a_task_waiting_is_registered_once() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "shared", "register_once": true, "agents": "independent"}));
        let first = b.message(10, 0);
        assert!(d.offer(first, 1, &mut b.ctx()));
        assert!(d.offer(b.message(10, 0), 1, &mut b.ctx()), "taken, and merged");
        assert_eq!(b.stats.dropped[DropReason::Merged as usize], 1);
        assert!(d.offer(b.message(10, 1), 1, &mut b.ctx()), "another class is another task");
        assert_eq!(d.waiting(), 2);
        assert_eq!(serve_all(&mut d, &mut b, true).len(), 2);
        assert!(d.offer(b.message(10, 0), 1, &mut b.ctx()));
        assert_eq!(b.stats.dropped[DropReason::Merged as usize], 1, "its run started: a new registration");
        assert_eq!(d.waiting(), 1);
    }

    /// `arrived` counts every message the dispatcher took: one that waits,
    /// one merged into a waiting registration, one dropped as the newest of
    /// a full queue.
    #[test]
    fn every_message_taken_counts_as_arrived_whether_it_waits_merges_or_is_dropped() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "shared", "register_once": true, "capacity": 2,
                                                 "agents": "independent"}));
        offer(&mut d, &mut b, 1, 0);
        offer(&mut d, &mut b, 1, 0);
        assert_eq!(b.stats.dropped[DropReason::Merged as usize], 1, "the same task again: merged");
        offer(&mut d, &mut b, 1, 1);
        let mut other = b.message(10, 0);
        other.source = 2;
        assert!(d.offer(other, 1, &mut b.ctx()));
        assert_eq!(b.stats.dropped[DropReason::Overflow as usize], 1, "another source's task meets a full queue");
        assert_eq!(d.waiting(), 2);
        assert_eq!(b.stats.arrived, 4);
    }

    /// The bytes waiting follow the messages in and out.
    #[test]
    fn the_bytes_waiting_are_those_of_the_messages_still_waiting() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "shared", "agents": "independent"}));
        for bytes in [100, 20, 3] {
            let msg = b.message(bytes, 0);
            d.offer(msg, 1, &mut b.ctx());
        }
        assert_eq!(b.stats.depth_bytes, 123);
        pick(&mut d, &mut b);
        assert_eq!(b.stats.depth_bytes, 23, "the first, of 100 bytes, left");
        pick(&mut d, &mut b);
        assert_eq!(b.stats.depth_bytes, 3);
        pick(&mut d, &mut b);
        assert_eq!((b.stats.depth_bytes, b.stats.depth_messages.value()), (0, 0));
    }

    /// A demand served the instant it came waited not at all: only one that
    /// waited counts towards the probability of waiting, and the time
    /// spent waiting is summed.
    #[test]
    fn only_a_demand_that_waited_counts_as_having_waited() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "shared", "agents": "independent"}));
        offer(&mut d, &mut b, 1, 0);
        assert!(pick(&mut d, &mut b).is_some());
        offer(&mut d, &mut b, 1, 0);
        b.at(1.5);
        assert!(pick(&mut d, &mut b).is_some());
        assert_eq!(b.stats.waited, 1, "the second waited, the first did not");
        assert_eq!(b.stats.residence_ns, 1_500_000_000);
    }

    /// With `order: priority`, a message's priority is the one
    /// `message_priorities` sets for its class: the lowest number leaves
    /// first, oldest first within one.
    #[test]
    fn message_priorities_order_a_demand_queue_by_class() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "shared", "order": "priority", "agents": "independent",
            "message_priorities": [{"class": "a", "priority": 5}, {"class": "b", "priority": 1}]}));
        let ids: Vec<u64> = [0, 1, 0, 1].into_iter().map(|class| offer(&mut d, &mut b, 1, class)).collect();
        assert_eq!(serve_all(&mut d, &mut b, true), [ids[1], ids[3], ids[0], ids[2]]);
    }

    /// A live change of `order` reaches the demands already waiting: from
    /// FIFO to priority, a class of priority 1 that came later leaves
    /// before one of priority 5 that waited.
    #[test]
    fn a_live_change_of_order_reaches_the_demands_already_waiting() {
        let mut b = Bench::new();
        let priorities = serde_json::json!([{"class": "a", "priority": 5}, {"class": "b", "priority": 1}]);
        let mut d = dispatcher(serde_json::json!({"queues": "shared", "agents": "independent", "message_priorities": priorities}));
        let ids: Vec<u64> = [0, 0, 1].into_iter().map(|class| offer(&mut d, &mut b, 1, class)).collect();
        d.reconfigure(spec(serde_json::json!({"queues": "shared", "order": "priority", "agents": "independent", "message_priorities": priorities})));
        assert_eq!(serve_all(&mut d, &mut b, true), [ids[2], ids[0], ids[1]]);
    }

    /// A live change of the priority table reaches the demands already
    /// waiting: b, urgent before the change, waits behind the a's after.
    #[test]
    fn a_live_change_of_message_priorities_reorders_the_demands_already_waiting() {
        let mut b = Bench::new();
        let with = |a: u8, b: u8| serde_json::json!({"queues": "shared", "order": "priority", "agents": "independent",
            "message_priorities": [{"class": "a", "priority": a}, {"class": "b", "priority": b}]});
        let mut d = dispatcher(with(5, 1));
        let ids: Vec<u64> = [0, 0, 1].into_iter().map(|class| offer(&mut d, &mut b, 1, class)).collect();
        d.reconfigure(spec(with(1, 5)));
        assert_eq!(serve_all(&mut d, &mut b, true), [ids[0], ids[1], ids[2]]);
    }

    /// A message addressed to no one is its demand queue's under
    /// `per_input` (each sender an agent: two run at once), and the
    /// dispatcher's one agent's under `per_class` (two classes, one agent:
    /// one at a time).
    #[test]
    fn a_message_addressed_to_no_one_is_its_senders_demand_but_per_class_the_one_agents() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_input", "workers": 2}));
        let ids = [offer(&mut d, &mut b, 1, 0), offer(&mut d, &mut b, 2, 0)];
        assert_eq!(serve_all(&mut d, &mut b, false), ids, "two senders, two agents");
        let mut d = dispatcher(serde_json::json!({"queues": "per_class", "workers": 2}));
        let ids = [offer(&mut d, &mut b, 1, 0), offer(&mut d, &mut b, 1, 1)];
        assert_eq!(serve_all(&mut d, &mut b, false), [ids[0]], "two classes, one agent");
        d.demand_finished(ids[0]);
        assert_eq!(serve_all(&mut d, &mut b, false), [ids[1]]);
    }

    /// A live change of `queue_priorities` applies to the demands already
    /// waiting.
    #[test]
    fn a_live_change_of_queue_priorities_reorders_the_demands_already_waiting() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_input", "discipline": "priority", "agents": "independent",
                                                 "queue_priorities": {"p1": 0, "p2": 1}}));
        let first = [offer(&mut d, &mut b, 1, 0), offer(&mut d, &mut b, 1, 0)];
        let second = [offer(&mut d, &mut b, 2, 0), offer(&mut d, &mut b, 2, 0)];
        d.reconfigure(spec(serde_json::json!({"queues": "per_input", "discipline": "priority", "agents": "independent",
                                              "queue_priorities": {"p1": 1, "p2": 0}})));
        assert_eq!(serve_all(&mut d, &mut b, true), [second[0], second[1], first[0], first[1]]);
    }

    /// A dispatcher changed live from priority to round robin serves, in
    /// turn, every queue that still holds demands.
    #[test]
    fn a_live_change_from_priority_to_round_robin_serves_every_queue_still_waiting() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_input", "discipline": "priority", "agents": "independent"}));
        let first = offer(&mut d, &mut b, 1, 0);
        let second = [offer(&mut d, &mut b, 2, 0), offer(&mut d, &mut b, 2, 0)];
        assert_eq!(pick(&mut d, &mut b), Some(first), "equal priorities: the oldest head, then the first queue");
        d.reconfigure(spec(serde_json::json!({"queues": "per_input", "agents": "independent"})));
        let third = offer(&mut d, &mut b, 1, 0);
        assert_eq!(serve_all(&mut d, &mut b, true), [second[0], third, second[1]]);
    }

    /// An event loop's worker finds a demand that came, mid-iteration, to
    /// the last of four queues, past three with nothing left to serve in
    /// this iteration: the next iteration begins and serves it.
    #[test]
    fn an_event_loop_serves_a_demand_that_came_to_its_last_queue_mid_iteration() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_input", "discipline": "event_loop"}));
        let ids: Vec<u64> = (1..=4).map(|from| offer(&mut d, &mut b, from, 0)).collect();
        assert_eq!(serve_all(&mut d, &mut b, true), ids, "one iteration over the four queues, in order");
        let again = offer(&mut d, &mut b, 1, 0);
        assert_eq!(pick(&mut d, &mut b), Some(again));
        let last = offer(&mut d, &mut b, 4, 0);
        assert_eq!(pick(&mut d, &mut b), Some(last), "a free worker never idles while a demand waits");
    }

    /// `alternate` over two kinds: a flag names the queue to read; if it
    /// is empty the next non-empty one is read, and the flag moves on only
    /// when the queue it names was read.
    #[test]
    fn alternation_reads_the_flagged_queue_and_moves_the_flag_only_when_it_was_read() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_class", "discipline": "alternate"}));
        let [a1, b1, a2, a3] = [0, 1, 0, 0].map(|class| offer(&mut d, &mut b, 1, class));
        // a (flag to b), b (flag to a), a (flag to b), then b is empty: a,
        // and the flag stays on b.
        assert_eq!(serve_all(&mut d, &mut b, true), [a1, b1, a2, a3]);
        let [a4, b2] = [0, 1].map(|class| offer(&mut d, &mut b, 1, class));
        assert_eq!(serve_all(&mut d, &mut b, true), [b2, a4], "the flag named b, though a's came first");
        // The flag is on b again: b, then a is empty: b, the flag on a.
        let [b3, b4] = [1, 1].map(|class| offer(&mut d, &mut b, 1, class));
        assert_eq!(serve_all(&mut d, &mut b, true), [b3, b4]);
        let [b5, a5] = [1, 0].map(|class| offer(&mut d, &mut b, 1, class));
        assert_eq!(serve_all(&mut d, &mut b, true), [a5, b5]);
    }

    /// Over more queues the flag goes round them in order: a kind that
    /// first comes later takes its turn after those before it, the flag
    /// going on from where it was.
    #[test]
    fn alternation_takes_a_kind_that_comes_later_into_the_flags_round() {
        let mut b = Bench::new();
        let mut d = dispatcher(serde_json::json!({"queues": "per_class", "discipline": "alternate"}));
        let [a1, b1] = [0, 1].map(|class| offer(&mut d, &mut b, 1, class));
        assert_eq!(serve_all(&mut d, &mut b, true), [a1, b1], "the flag went round to a");
        let [c1, b2, a2] = [2, 1, 0].map(|class| offer(&mut d, &mut b, 1, class));
        assert_eq!(serve_all(&mut d, &mut b, true), [a2, b2, c1]);
    }
}
