//! The simulation: blocks, the wiring between them, and the clock.
//!
//! Guarantees:
//! - Deterministic: the same scenario and seed give the same sequence of
//!   events and the same report, on every platform.
//! - Blocks never call each other; the simulation carries every message and
//!   signal. A message offered downstream is either taken or refused at
//!   once; a refusing block later wakes its inputs when it has room,
//!   serving blocked inputs round-robin. A refused sender does not offer
//!   again until woken (as a socket writer waits for "writable").
//! - Conservation: at every step, produced = delivered + dropped + in
//!   system, where in system counts the messages held by producers, waiting
//!   in queues and in service (`Simulation::check_conservation`).
//! - Parameters change while running (`reconfigure`) without a restart and
//!   without losing a message.

use std::collections::BTreeMap;

use crate::blocks::consumer::Offer;
use crate::blocks::producer::{ClassMap, ProducerAction};
use crate::blocks::queue::{PauseSignal, QueueOffer};
use crate::blocks::{Consumer, Producer, Queue};
use crate::context::{Context, Notice};
use crate::message::{Message, NodeRef, NO_DESTINATION};
use crate::metrics::{DropReason, NodeStats, TransitionLog};
use crate::report::{NodeReport, Report, Totals};
use crate::rng::SimRng;
use crate::scenario::{BlockSpec, Scenario, ScenarioError};
use crate::scheduler::{EventKind, Scheduler};
use crate::time::SimTime;

/// How many state transitions the log keeps.
pub const TRANSITION_LOG_CAPACITY: usize = 1000;

pub enum Node {
    Producer(Producer),
    Queue(Queue),
    Consumer(Consumer),
}

pub struct Simulation {
    scenario: Scenario,
    seed: u64,
    now: SimTime,
    events: u64,
    rng: SimRng,
    scheduler: Scheduler,
    log: TransitionLog,
    nodes: Vec<Node>,
    stats: Vec<NodeStats>,
    /// The next block of each node, if it has one.
    output: Vec<Option<usize>>,
    /// The blocks feeding each node, in the order of the scenario's edges.
    inputs: Vec<Vec<usize>>,
    /// Where the next round-robin wake of each node's inputs starts.
    wake_cursor: Vec<usize>,
    /// Notices from the block handled last, passed on by `settle`.
    outbox: Vec<Notice>,
    /// Scenario-wide class names, indexed by `Message::class`.
    class_names: Vec<String>,
}

/// Builds the context of node `$i` from the simulation's disjoint fields.
macro_rules! ctx {
    ($sim:ident, $i:expr) => {
        Context {
            now: $sim.now,
            node: $i,
            rng: &mut $sim.rng,
            scheduler: &mut $sim.scheduler,
            log: &mut $sim.log,
            stats: &mut $sim.stats[$i],
            outbox: &mut $sim.outbox,
        }
    };
}

impl Simulation {
    /// Builds a simulation at time zero. The scenario is validated first.
    pub fn new(scenario: Scenario, seed: u64) -> Result<Simulation, ScenarioError> {
        scenario.validate()?;
        let n = scenario.nodes.len();
        let index: BTreeMap<&str, usize> = scenario.nodes.iter().enumerate().map(|(i, s)| (s.id.as_str(), i)).collect();
        let mut output = vec![None; n];
        let mut inputs = vec![Vec::new(); n];
        for edge in &scenario.edges {
            let (from, to) = (index[edge.from.as_str()], index[edge.to.as_str()]);
            output[from] = Some(to);
            inputs[to].push(from);
        }
        let class_maps = class_maps(&scenario);
        let class_names = scenario
            .nodes
            .iter()
            .filter_map(|n| match &n.block {
                BlockSpec::Producer(p) => Some(p.classes.iter().map(|c| c.name.clone())),
                _ => None,
            })
            .flatten()
            .collect();
        let nodes = scenario
            .nodes
            .iter()
            .zip(class_maps)
            .map(|(spec, classes)| match &spec.block {
                BlockSpec::Producer(p) => Node::Producer(Producer::new(p.clone(), classes)),
                BlockSpec::Queue(q) => Node::Queue(Queue::new(q.clone())),
                BlockSpec::Consumer(c) => Node::Consumer(Consumer::new(c.clone())),
            })
            .collect();
        let mut sim = Simulation {
            scenario,
            seed,
            now: SimTime::ZERO,
            events: 0,
            rng: SimRng::new(seed),
            scheduler: Scheduler::default(),
            log: TransitionLog::new(TRANSITION_LOG_CAPACITY),
            nodes,
            stats: (0..n).map(|_| NodeStats::new()).collect(),
            output,
            inputs,
            wake_cursor: vec![0; n],
            outbox: Vec::new(),
            class_names,
        };
        for i in 0..n {
            if let Node::Producer(p) = &mut sim.nodes[i] {
                p.start(&mut ctx!(sim, i));
            }
        }
        Ok(sim)
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn stats(&self, node: usize) -> &NodeStats {
        &self.stats[node]
    }

    pub fn transitions(&self) -> &TransitionLog {
        &self.log
    }

    pub fn node_id(&self, node: usize) -> &str {
        &self.scenario.nodes[node].id
    }

    /// The time of the next event, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.scheduler.peek_time()
    }

    /// Processes one event. Returns false when nothing is left to happen.
    pub fn step(&mut self) -> bool {
        let Some(event) = self.scheduler.pop() else {
            return false;
        };
        self.now = event.time();
        self.events += 1;
        let i = event.node();
        match event.kind() {
            EventKind::Arrival => {
                if let Node::Producer(p) = &mut self.nodes[i] {
                    if let ProducerAction::Offer(msg) = p.on_arrival(&mut ctx!(self, i)) {
                        self.send_from_producer(i, msg);
                    }
                }
            }
            EventKind::Retry => {
                if let Node::Producer(p) = &mut self.nodes[i] {
                    if let ProducerAction::Offer(msg) = p.on_retry(event.data, &mut ctx!(self, i)) {
                        self.send_from_producer(i, msg);
                    }
                }
            }
            EventKind::ServiceDone => {
                if let Node::Consumer(c) = &mut self.nodes[i] {
                    if c.on_service_done(event.data, &mut ctx!(self, i)) {
                        self.wake_inputs(i);
                    }
                }
            }
            EventKind::Reconnect => {
                if let Node::Queue(q) = &mut self.nodes[i] {
                    let signal = q.on_reconnect(&mut ctx!(self, i));
                    self.signal_inputs(i, signal);
                }
            }
            EventKind::Expire => {
                if let Node::Queue(q) = &mut self.nodes[i] {
                    let signal = q.on_expiry(&mut ctx!(self, i));
                    self.signal_inputs(i, signal);
                    self.wake_inputs(i);
                }
            }
        }
        self.settle();
        true
    }

    /// Passes on what blocks reported while handling the last event.
    fn settle(&mut self) {
        // Gates (windows, credit links) learn of drops here as they arrive.
        self.outbox.clear();
    }

    /// The name of a scenario-wide class index.
    pub fn class_name(&self, class: u16) -> &str {
        self.class_names.get(class as usize).map_or("?", String::as_str)
    }

    /// Runs every event up to and including `until`, then sets the clock
    /// there.
    pub fn run_until(&mut self, until: SimTime) {
        while self.scheduler.peek_time().is_some_and(|t| t <= until) {
            self.step();
        }
        self.now = self.now.max(until);
    }

    /// Like `run_until`, but stops after `max_events` events. Returns whether
    /// `until` was reached.
    pub fn run_until_bounded(&mut self, until: SimTime, max_events: u64) -> bool {
        let mut left = max_events;
        while self.scheduler.peek_time().is_some_and(|t| t <= until) {
            if left == 0 {
                return false;
            }
            self.step();
            left -= 1;
        }
        self.now = self.now.max(until);
        true
    }

    /// Offers a producer's message downstream and tells the producer how it
    /// went.
    fn send_from_producer(&mut self, p: usize, msg: Message) {
        let outcome = self.deliver(p, msg);
        if let Node::Producer(producer) = &mut self.nodes[p] {
            let ctx = &mut ctx!(self, p);
            match outcome {
                Ok(()) => producer.on_accepted(ctx),
                Err(msg) => producer.on_refused(msg, ctx),
            }
        }
    }

    /// Offers `msg` from `from` to its next block.
    fn deliver(&mut self, from: usize, msg: Message) -> Result<(), Message> {
        let Some(to) = self.output[from] else {
            return Err(msg);
        };
        match &mut self.nodes[to] {
            Node::Queue(q) => match q.offer(msg, &mut ctx!(self, to)) {
                QueueOffer::Taken(signal) => {
                    let waiting = q.waiting_for_room();
                    self.signal_inputs(to, signal);
                    if !waiting {
                        self.pump_queue(to);
                    }
                    Ok(())
                }
                QueueOffer::Refused(msg) => Err(msg),
            },
            Node::Consumer(c) => match c.offer(msg, &mut ctx!(self, to)) {
                Offer::Accepted => Ok(()),
                Offer::Refused(msg) => Err(msg),
            },
            Node::Producer(_) => Err(msg),
        }
    }

    /// The send loop: offers the queue's head until refused or empty.
    fn pump_queue(&mut self, q: usize) {
        let mut sent = 0;
        let mut refused = false;
        loop {
            let head = match &self.nodes[q] {
                Node::Queue(queue) => queue.head(),
                _ => None,
            };
            let Some(msg) = head else { break };
            // A busy consumer refuses any message: skip building the offer.
            let consumer_full =
                self.output[q].is_some_and(|to| matches!(&self.nodes[to], Node::Consumer(c) if !c.has_room()));
            if consumer_full || self.deliver(q, msg).is_err() {
                refused = true;
                break;
            }
            if let Node::Queue(queue) = &mut self.nodes[q] {
                queue.pop_sent(&mut ctx!(self, q));
            }
            sent += 1;
        }
        let mut freed_room = false;
        if let Node::Queue(queue) = &mut self.nodes[q] {
            let signal = queue.after_send_loop(sent, refused, &mut ctx!(self, q));
            freed_room = sent > 0 && queue.spec().on_full == crate::blocks::OnFull::Refuse;
            self.signal_inputs(q, signal);
        }
        if freed_room {
            // A queue that refuses when full wakes its senders as it drains.
            self.wake_inputs(q);
        }
    }

    /// Whether `node` would take a message now.
    fn has_room(&self, node: usize) -> bool {
        match &self.nodes[node] {
            Node::Consumer(c) => c.has_room(),
            Node::Queue(q) => !q.refuses(),
            Node::Producer(_) => false,
        }
    }

    /// Whether `node` holds a message its next block refused.
    fn is_blocked(&self, node: usize) -> bool {
        match &self.nodes[node] {
            Node::Producer(p) => p.is_blocked(),
            // Also when emptied meanwhile: the wake must clear its wait.
            Node::Queue(q) => !q.is_empty() || q.waiting_for_room(),
            Node::Consumer(_) => false,
        }
    }

    /// `node` has room: lets its blocked inputs send, round-robin.
    fn wake_inputs(&mut self, node: usize) {
        let n = self.inputs[node].len();
        let start = self.wake_cursor[node];
        for k in 0..n {
            if !self.has_room(node) {
                break;
            }
            let idx = (start + k) % n;
            let input = self.inputs[node][idx];
            if self.is_blocked(input) {
                self.wake_cursor[node] = (idx + 1) % n;
                self.pump(input);
            }
        }
    }

    /// Lets `node` offer what it holds.
    fn pump(&mut self, node: usize) {
        match &mut self.nodes[node] {
            Node::Producer(p) => {
                if let ProducerAction::Offer(msg) = p.on_wake() {
                    self.send_from_producer(node, msg);
                }
            }
            Node::Queue(q) => {
                q.on_wake();
                self.pump_queue(node);
            }
            Node::Consumer(_) => {}
        }
    }

    /// Passes a queue's pause request to the producers that feed it.
    #[inline]
    fn signal_inputs(&mut self, node: usize, signal: PauseSignal) {
        let Some(pause) = signal else { return };
        for k in 0..self.inputs[node].len() {
            let input = self.inputs[node][k];
            if let Node::Producer(p) = &mut self.nodes[input] {
                p.on_backpressure(pause, &mut ctx!(self, input));
            }
        }
    }

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
        candidate.nodes[i].block = block.clone();
        candidate.validate()?;
        self.scenario = candidate;
        match (&mut self.nodes[i], block) {
            (Node::Producer(p), BlockSpec::Producer(spec)) => {
                let classes = class_maps(&self.scenario).swap_remove(i);
                p.reconfigure(spec, classes, &mut ctx!(self, i));
                self.pump(i);
            }
            (Node::Queue(q), BlockSpec::Queue(spec)) => {
                let signal = q.reconfigure(spec, &mut ctx!(self, i));
                self.signal_inputs(i, signal);
                self.pump(i);
                self.wake_inputs(i);
            }
            (Node::Consumer(c), BlockSpec::Consumer(spec)) => {
                c.reconfigure(spec);
                self.wake_inputs(i);
            }
            _ => {}
        }
        self.settle();
        Ok(())
    }

    /// Messages inside the system now, counted where they are.
    pub fn in_system(&self) -> u64 {
        self.nodes
            .iter()
            .map(|n| match n {
                Node::Producer(p) => p.held().is_some() as u64,
                Node::Queue(q) => q.len() as u64,
                Node::Consumer(c) => c.busy() as u64,
            })
            .sum()
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals { produced: 0, delivered: 0, dropped: 0, in_system: self.in_system() };
        for (node, stats) in self.nodes.iter().zip(&self.stats) {
            match node {
                Node::Producer(_) => t.produced += stats.arrived,
                Node::Consumer(_) => t.delivered += stats.departed,
                Node::Queue(_) => {}
            }
            t.dropped += stats.dropped_total();
        }
        t
    }

    /// Checks produced = delivered + dropped + in system.
    pub fn check_conservation(&self) -> Result<(), String> {
        let t = self.totals();
        if t.produced == t.delivered + t.dropped + t.in_system {
            Ok(())
        } else {
            Err(format!(
                "at {}: produced {} != delivered {} + dropped {} + in system {}",
                self.now, t.produced, t.delivered, t.dropped, t.in_system
            ))
        }
    }

    /// Checks every invariant that must hold between events: conservation,
    /// and liveness (a queue that asks its producers to pause holds messages
    /// whose sending will lift the pause, or is waiting for a reconnect).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.check_conservation()?;
        for (i, node) in self.nodes.iter().enumerate() {
            if let Node::Queue(q) = node {
                if q.asks_pause() && q.is_empty() && !q.is_disconnected() {
                    return Err(format!(
                        "at {}: queue \"{}\" is at {} with nothing queued, so its producers would wait forever",
                        self.now,
                        self.node_id(i),
                        q.state().as_str()
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn node_report(&self, i: usize) -> NodeReport {
        let stats = &self.stats[i];
        let mut r = NodeReport {
            kind: self.scenario.nodes[i].block.kind(),
            arrived: stats.arrived,
            departed: stats.departed,
            dropped: DropReason::ALL
                .iter()
                .filter(|reason| stats.dropped[**reason as usize] > 0)
                .map(|reason| (reason.as_str(), stats.dropped[*reason as usize]))
                .collect(),
            dropped_total: stats.dropped_total(),
            depth_messages: stats.depth_messages.value(),
            depth_bytes: stats.depth_bytes,
            mean_depth_messages: stats.depth_messages.mean(self.now),
            in_service: stats.in_service,
            state: None,
            paused: None,
            disconnects: None,
            mean_sojourn_s: None,
        };
        match &self.nodes[i] {
            Node::Producer(p) => r.paused = Some(p.is_paused() || p.is_blocked()),
            Node::Queue(q) => {
                r.state = Some(q.state().as_str());
                r.disconnects = Some(q.disconnects());
            }
            Node::Consumer(_) => {
                r.mean_sojourn_s = (stats.departed > 0).then(|| stats.sojourn_sum_s / stats.departed as f64);
            }
        }
        r
    }

    pub fn report(&self) -> Report {
        Report {
            scenario: self.scenario.name.clone(),
            seed: self.seed,
            sim_time_s: self.now.as_secs_f64(),
            events: self.events,
            totals: self.totals(),
            transitions: self.log.total(),
            nodes: (0..self.nodes.len()).map(|i| (self.node_id(i).to_string(), self.node_report(i))).collect(),
        }
    }
}

/// The class map of every node (empty for all but producers). Class indices
/// run across the scenario in node order.
fn class_maps(scenario: &Scenario) -> Vec<ClassMap> {
    let mut base = 0u16;
    scenario
        .nodes
        .iter()
        .map(|node| match &node.block {
            BlockSpec::Producer(p) => {
                let map = ClassMap {
                    class_base: base,
                    destinations: p
                        .classes
                        .iter()
                        .map(|c| {
                            c.destination
                                .as_deref()
                                .and_then(|d| scenario.node_index(d))
                                .map_or(NO_DESTINATION, |i| i as NodeRef)
                        })
                        .collect(),
                };
                base = base.saturating_add(p.classes.len() as u16);
                map
            }
            _ => ClassMap::default(),
        })
        .collect()
}
