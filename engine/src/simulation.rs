//! The simulation: blocks, the wiring between them, and the clock.
//!
//! Guarantees:
//! - Deterministic: the same scenario and seed give the same sequence of
//!   events and the same report, on every platform.
//! - Blocks never call each other; the simulation carries every message and
//!   signal. A message offered downstream is either taken or refused at
//!   once; a refusing block later wakes its inputs when it has room,
//!   serving blocked inputs round-robin. A refused sender does not offer
//!   again until woken (as a socket writer waits for "writable"). Blocks
//!   that hold nothing (routers, windows, credit links, limiters) pass a
//!   wake on to their own inputs.
//! - Gates hear of their messages: a window opening on receipt when the
//!   receiving queue or consumer takes the message; windows opening on
//!   processing, credit links and concurrency limiters when a consumer
//!   finishes it; all of them when it is dropped. These notices are passed
//!   on after the handler that raised them returns, so no block is entered
//!   twice at once.
//! - Conservation: at every step, produced (by producers, and windows'
//!   receipts) = delivered + dropped + in system, where in system counts the messages held by producers, waiting
//!   in queues and links, and in consumers (`Simulation::check_invariants`).
//! - Parameters change while running (`reconfigure`) without a restart and
//!   without losing a message.
//! - Every run ends: when `MAX_EVENTS_AT_ONE_INSTANT` events in a row happen
//!   at one instant (a loop whose every step takes no time), the simulation
//!   stops there and says so with a `Stall` naming the nodes taking part.

use std::collections::BTreeMap;

use crate::blocks::consumer::Served;
use crate::blocks::producer::{ClassMap, ProducerAction};
use crate::blocks::queue::{PauseSignal, QueueOffer};
use crate::blocks::rate_limiter::RateDecision;
use crate::blocks::router::Choice;
use crate::blocks::dispatcher::{DispatcherMap, Pick};
use crate::blocks::{
    ConcurrencyLimiter, Consumer, Credit, Dispatcher, Link, Producer, Queue, RateLimiter, ResourcePool, Router,
    RouterSpec, Window,
};
use crate::context::{Context, Core, Notice};
use crate::flows::Flows;
use crate::message::{Message, NodeRef, NO_DESTINATION};
use crate::metrics::{DropReason, NodeStats, TransitionLog};
use crate::report::{NodeReport, Report, Totals};
use crate::rng::SimRng;
use crate::scenario::{BlockSpec, Scenario, ScenarioError};
use crate::scheduler::{EventKind, Scheduler};
use crate::supervision::Supervision;
use crate::blocks::consumer::Phase;
use crate::blocks::producer::ServerPhase;
use crate::time::SimTime;

/// How many state transitions the log keeps.
pub const TRANSITION_LOG_CAPACITY: usize = 1000;

/// The watchdog's bound: a simulation that handles this many events in a
/// row without its clock advancing stops with a `Stall`. Ten million is
/// far beyond any instant of a sound scenario (a million-instant trace at
/// one instant through a few blocks takes a few million) and takes about a
/// second natively, a few in the page.
pub const MAX_EVENTS_AT_ONE_INSTANT: u64 = 10_000_000;

/// How many of the last events before a stall are looked at to name the
/// nodes taking part; the watchdog looks at the clock at least this often.
const STALL_SAMPLE: u64 = 4096;

/// A simulation stopped by the watchdog: simulated time no longer advanced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    /// The instant the clock stopped at.
    pub at: SimTime,
    /// How many events in a row happened at that instant.
    pub events: u64,
    /// The ids of the nodes taking part, in the scenario's order: those
    /// whose events the last few thousand were, and those that took, passed
    /// on or dropped a message meanwhile.
    pub nodes: Vec<String>,
}

impl std::fmt::Display for Stall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nodes: Vec<String> = self.nodes.iter().map(|id| format!("\"{id}\"")).collect();
        write!(
            f,
            "the simulation stopped at {}: {} events in a row happened at that instant and simulated time did not advance \
             (nodes taking part: {}). A loop whose every step takes no time never ends: give one of its steps a time \
             (a think time, a service time, a latency).",
            self.at,
            self.events,
            nodes.join(", ")
        )
    }
}

impl std::error::Error for Stall {}

pub enum Node {
    Producer(Producer),
    Queue(Queue),
    Consumer(Consumer),
    Router(Router),
    Window(Window),
    Credit(Credit),
    RateLimiter(RateLimiter),
    ConcurrencyLimiter(ConcurrencyLimiter),
    ResourcePool(ResourcePool),
    Link(Link),
    /// The demand queues, the worker pool, and the pool's own counters (the
    /// node's counters show what it took in and what its workers passed on).
    Dispatcher(Box<Dispatcher>, Box<Consumer>, Box<NodeStats>),
}

impl Node {
    /// Blocks that hold no message: a wake passes through them.
    fn passes_through(&self) -> bool {
        matches!(
            self,
            Node::Router(_)
                | Node::Window(_)
                | Node::Credit(_)
                | Node::RateLimiter(_)
                | Node::ConcurrencyLimiter(_)
                | Node::ResourcePool(_)
        )
    }
}

pub struct Simulation {
    scenario: Scenario,
    seed: u64,
    events: u64,
    /// The clock, the random stream, the scheduler, the log and the notices
    /// from blocks (passed on by `settle`).
    core: Core,
    nodes: Vec<Node>,
    stats: Vec<NodeStats>,
    /// The next blocks of each node, in the order of the scenario's edges.
    outputs: Vec<Vec<usize>>,
    /// The blocks feeding each node, in the order of the scenario's edges.
    inputs: Vec<Vec<usize>>,
    /// Where the next round-robin wake of each node's inputs starts.
    wake_cursor: Vec<usize>,
    /// Pass-through blocks that refused an offer since they were last woken.
    refused: Vec<bool>,
    /// Nodes whose inputs are to be woken, in order, once the current chain
    /// of offers has returned (see `wake_inputs`).
    wakes: std::collections::VecDeque<usize>,
    wake_queued: Vec<bool>,
    /// How deep the current chain of offers is (0: no offer under way).
    offer_depth: u32,
    /// A link's send buffer refused the last offer: the socket would block.
    socket_refused: bool,
    /// The producers each queue's pause request reaches, found the first
    /// time it asks (the graph does not change during a run).
    pause_targets: Vec<Option<Box<[u32]>>>,
    /// Scenario-wide class names, indexed by `Message::class`.
    class_names: Vec<String>,
    /// Messages per edge and class, when asked for (`count_flows`).
    flows: Option<Box<Flows>>,
    /// The watchdog looks at event number `n` when `n & watch_mask` is 0:
    /// every `watch_every` events, and at every event near its bound.
    watch_mask: u64,
    watch_every: u64,
    /// The instant of the watchdog's last look, and how many events had
    /// been handled at its first look at that instant. Time never goes
    /// back, so the clock reading the same at two looks means that every
    /// event between them happened at that instant.
    watched_at: Option<SimTime>,
    watched_since: u64,
    /// The watchdog's bound (`MAX_EVENTS_AT_ONE_INSTANT` unless set).
    stall_bound: u64,
    /// The nodes of the last events before the bound, while near it.
    stall_nodes: Vec<u32>,
    /// Every node's counters as the watchdog began to look (it names the
    /// nodes whose counters moved since, as well as those with events).
    stall_counts: Vec<u64>,
    /// Why the simulation stopped, once the watchdog stopped it.
    stall: Option<Box<Stall>>,
    /// rotor's links and supervisors, if the scenario has any.
    supervision: Option<Box<Supervision>>,
}

/// Two different elements of `items`, both mutable; `None` if `a == b` or
/// either is out of range.
fn pair_mut<T>(items: &mut [T], a: usize, b: usize) -> Option<(&mut T, &mut T)> {
    if a == b || a.max(b) >= items.len() {
        return None;
    }
    if a < b {
        let (low, high) = items.split_at_mut(b);
        Some((&mut low[a], &mut high[0]))
    } else {
        let (low, high) = items.split_at_mut(a);
        Some((&mut high[0], &mut low[b]))
    }
}

/// Builds the context of a dispatcher's worker pool, with the pool's own
/// counters.
macro_rules! pool_ctx {
    ($sim:ident, $i:expr, $stats:expr) => {
        Context { core: &mut $sim.core, node: $i, stats: $stats }
    };
}

/// Builds the context of node `$i` from the simulation's disjoint fields.
macro_rules! ctx {
    ($sim:ident, $i:expr) => {
        pool_ctx!($sim, $i, &mut $sim.stats[$i])
    };
}

impl Simulation {
    /// Builds a simulation at time zero. The scenario is validated first.
    pub fn new(scenario: Scenario, seed: u64) -> Result<Simulation, ScenarioError> {
        scenario.validate()?;
        let n = scenario.nodes.len();
        let outputs = scenario.outputs();
        let mut inputs = vec![Vec::new(); n];
        for (from, outs) in outputs.iter().enumerate() {
            for &to in outs {
                inputs[to].push(from);
            }
        }
        // Inputs in edge order, as documented.
        let edge_order: BTreeMap<(usize, usize), usize> = scenario
            .edges
            .iter()
            .enumerate()
            .filter_map(|(k, e)| Some(((scenario.node_index(&e.from)?, scenario.node_index(&e.to)?), k)))
            .collect();
        for (to, ins) in inputs.iter_mut().enumerate() {
            ins.sort_by_key(|&from| edge_order.get(&(from, to)).copied().unwrap_or(usize::MAX));
        }
        let class_maps = class_maps(&scenario);
        let class_names = class_names(&scenario);
        let nodes = scenario
            .nodes
            .iter()
            .enumerate()
            .zip(class_maps)
            .map(|((i, spec), classes)| build_node(&scenario, &outputs, &inputs, i, &spec.block, classes))
            .collect();
        let rngs = scenario.nodes.iter().map(|node| SimRng::for_node(seed, &node.id)).collect();
        // Nodes start in the order of their names, not of the file: what
        // they schedule for the same instant then happens in an order that
        // moving a node in the file cannot change.
        let mut start_order: Vec<usize> = (0..n).collect();
        start_order.sort_by(|&a, &b| scenario.nodes[a].id.cmp(&scenario.nodes[b].id));
        let mut sim = Simulation {
            scenario,
            seed,
            events: 0,
            core: Core {
                now: SimTime::ZERO,
                rngs,
                scheduler: Scheduler::default(),
                log: TransitionLog::new(TRANSITION_LOG_CAPACITY),
                outbox: Vec::new(),
                failed_rpcs: Default::default(),
            },
            nodes,
            stats: (0..n).map(|_| NodeStats::new()).collect(),
            outputs,
            inputs,
            wake_cursor: vec![0; n],
            refused: vec![false; n],
            wakes: std::collections::VecDeque::new(),
            wake_queued: vec![false; n],
            offer_depth: 0,
            socket_refused: false,
            pause_targets: vec![None; n],
            class_names,
            flows: None,
            watch_mask: STALL_SAMPLE - 1,
            watch_every: STALL_SAMPLE,
            watched_at: None,
            watched_since: 0,
            stall_bound: MAX_EVENTS_AT_ONE_INSTANT,
            stall_nodes: Vec::new(),
            stall_counts: Vec::new(),
            stall: None,
            supervision: None,
        };
        sim.supervision = Supervision::build(&sim.scenario);
        sim.start_supervision();
        for i in start_order {
            match &mut sim.nodes[i] {
                Node::Producer(p) => p.start(&mut ctx!(sim, i)),
                Node::Link(l) => l.start(&mut ctx!(sim, i)),
                Node::Consumer(c) => c.start(&mut ctx!(sim, i)),
                Node::Dispatcher(d, _, _) => d.start(&mut ctx!(sim, i)),
                Node::ResourcePool(r) => r.start(&mut ctx!(sim, i)),
                _ => {}
            }
        }
        Ok(sim)
    }

    pub fn now(&self) -> SimTime {
        self.core.now
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
        &self.core.log
    }

    pub fn node_id(&self, node: usize) -> &str {
        &self.scenario.nodes[node].id
    }

    /// The name of a scenario-wide class index.
    pub fn class_name(&self, class: u16) -> &str {
        self.class_names.get(class as usize).map_or("?", String::as_str)
    }

    /// Starts counting the messages of each class taken across each edge
    /// (from now on; the page draws them as moving dots). Off by default:
    /// a run that does not draw pays nothing for it.
    pub fn count_flows(&mut self) {
        if self.flows.is_none() {
            let edges: Vec<(usize, usize)> = self
                .scenario
                .edges
                .iter()
                .map(|e| (self.scenario.node_index(&e.from).unwrap_or(usize::MAX), self.scenario.node_index(&e.to).unwrap_or(usize::MAX)))
                .collect();
            self.flows = Some(Box::new(Flows::new(self.nodes.len(), &edges, self.class_names.len())));
        }
    }

    /// The flow counters, if `count_flows` was called.
    pub fn flows(&self) -> Option<&Flows> {
        self.flows.as_deref()
    }

    /// The time of the next event, if any (none once the watchdog has
    /// stopped the simulation: nothing more will happen).
    pub fn next_event_time(&self) -> Option<SimTime> {
        if self.stall.is_some() {
            return None;
        }
        self.core.scheduler.peek_time()
    }

    /// Why the simulation stopped, if the watchdog stopped it: it then
    /// handles no more events.
    pub fn stall(&self) -> Option<&Stall> {
        self.stall.as_deref()
    }

    /// Sets the watchdog's bound: how many events in a row may happen at
    /// one instant (at least 1; `MAX_EVENTS_AT_ONE_INSTANT` by default).
    pub fn set_stall_bound(&mut self, events: u64) {
        self.stall_bound = events.max(1);
        // Often enough to begin naming nodes before the bound.
        self.watch_every = 1 << (STALL_SAMPLE.min(self.stall_bound / 2).max(1)).ilog2();
        self.watch_mask = self.watch_every - 1;
        self.watched_at = None;
    }

    /// Processes one event. Returns false when nothing is left to happen,
    /// or when the watchdog has stopped the simulation (`stall`).
    #[inline]
    pub fn step(&mut self) -> bool {
        self.stall.is_none() && self.handle_next()
    }

    /// `step` of a run the watchdog has not stopped.
    fn handle_next(&mut self) -> bool {
        let Some(event) = self.core.scheduler.pop() else {
            return false;
        };
        self.events += 1;
        // The watchdog: a mask test per event, the rest cold.
        if self.events & self.watch_mask == 0 && self.watch_stall(event) {
            self.events -= 1;
            return false;
        }
        self.core.now = event.time();
        let i = event.node();
        match event.kind() {
            EventKind::Arrival => {
                if let Node::Producer(p) = &mut self.nodes[i] {
                    let (action, next) = p.on_arrival(&mut ctx!(self, i));
                    if let ProducerAction::Offer(msg) = action {
                        self.send_from_producer(i, msg);
                    }
                    if let Some(next) = next {
                        self.core.scheduler.push(next);
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
                self.service_done(i, event.data);
                if self.supervision.is_some() {
                    self.follow_phase(i);
                }
            }
            EventKind::Reconnect => {
                if let Node::Queue(q) = &mut self.nodes[i] {
                    let signal = q.on_reconnect(&mut ctx!(self, i));
                    self.signal_inputs(i, signal);
                }
            }
            EventKind::Expire => match &mut self.nodes[i] {
                Node::Queue(q) => {
                    let signal = q.on_expiry(&mut ctx!(self, i));
                    self.signal_inputs(i, signal);
                    self.wake_inputs(i);
                }
                _ => {}
            },
            EventKind::AckDue => {
                let opened = match &mut self.nodes[i] {
                    Node::Window(w) => {
                        let opened = w.on_ack_due(&mut ctx!(self, i));
                        self.offer_receipts(i);
                        opened
                    }
                    Node::Credit(c) => c.on_grant_due(&mut ctx!(self, i)),
                    Node::ResourcePool(r) => r.on_created(&mut ctx!(self, i)),
                    _ => false,
                };
                if opened {
                    self.wake_inputs(i);
                }
            }
            EventKind::RateOpen => {
                if let Node::RateLimiter(r) = &mut self.nodes[i] {
                    r.on_open(&mut ctx!(self, i));
                    self.wake_inputs(i);
                }
            }
            EventKind::Transmitted => {
                if let Node::Link(l) = &mut self.nodes[i] {
                    if l.on_transmitted(event.data, &mut ctx!(self, i)) {
                        self.wake_inputs(i);
                    }
                }
            }
            EventKind::Propagated => {
                if matches!(&self.nodes[i], Node::Link(l) if l.current(event.data) && !l.is_blocked()) {
                    self.pump_link(i);
                }
            }
            EventKind::LinkState => match &mut self.nodes[i] {
                Node::Link(l) => l.set_up(event.data == 1, &mut ctx!(self, i)),
                Node::Dispatcher(d, _, _) => {
                    d.host_state((event.data >> 1) as usize, event.data & 1 == 1, &mut ctx!(self, i));
                    self.dispatch(i);
                    self.wake_inputs(i);
                }
                _ => {}
            },
            EventKind::ConsumerPhase => {
                if let Node::Consumer(c) = &mut self.nodes[i] {
                    if c.on_phase(event.data, &mut ctx!(self, i)) {
                        self.wake_inputs(i);
                    }
                }
                self.follow_phase(i);
            }
        }
        self.settle();
        true
    }

    /// The watchdog looks before `event` is handled: it counts the events
    /// at one instant, looks at every event near the bound to note the
    /// nodes taking part, and at the bound stops the simulation before
    /// `event` (which goes back on the heap, so the state stays whole).
    /// Returns whether it stopped.
    #[cold]
    #[inline(never)]
    fn watch_stall(&mut self, event: crate::scheduler::Event) -> bool {
        let handled = self.events - 1;
        if self.watched_at != Some(event.time()) {
            // The clock moved since the last look: count from here.
            self.watched_at = Some(event.time());
            self.watched_since = handled;
            self.watch_mask = self.watch_every - 1;
            return false;
        }
        // At least this many events in a row at this instant (those before
        // the first look at it are not counted).
        let in_a_row = handled - self.watched_since;
        if in_a_row + STALL_SAMPLE < self.stall_bound {
            return false;
        }
        if self.watch_mask != 0 {
            // Near the bound: look at every event from now on.
            self.watch_mask = 0;
            self.stall_nodes.clear();
            self.stall_counts = self.stats.iter().map(NodeStats::activity).collect();
        }
        if in_a_row < self.stall_bound {
            self.stall_nodes.push(event.node() as u32);
            return false;
        }
        self.core.scheduler.push(event);
        let mut nodes = std::mem::take(&mut self.stall_nodes);
        let moved = self.stats.iter().zip(&self.stall_counts).enumerate().filter(|(_, (now, then))| now.activity() != **then);
        nodes.extend(moved.map(|(i, _)| i as u32));
        nodes.sort_unstable();
        nodes.dedup();
        self.stall = Some(Box::new(Stall {
            at: self.core.now,
            events: in_a_row,
            nodes: nodes.iter().map(|&n| self.node_id(n as usize).to_string()).collect(),
        }));
        true
    }

    /// Runs every event up to and including `until`, then sets the clock
    /// there; or stops where the watchdog stopped it.
    pub fn run_until(&mut self, until: SimTime) -> Result<(), Stall> {
        self.stalled()?;
        while self.core.scheduler.peek_time().is_some_and(|t| t <= until) {
            if !self.handle_next() {
                break;
            }
        }
        self.stalled()?;
        self.core.now = self.core.now.max(until);
        Ok(())
    }

    /// Like `run_until`, but stops after `max_events` events. Returns whether
    /// `until` was reached.
    pub fn run_until_bounded(&mut self, until: SimTime, max_events: u64) -> Result<bool, Stall> {
        self.stalled()?;
        let mut left = max_events;
        while self.core.scheduler.peek_time().is_some_and(|t| t <= until) {
            if left == 0 {
                return Ok(false);
            }
            if !self.handle_next() {
                break;
            }
            left -= 1;
        }
        self.stalled()?;
        self.core.now = self.core.now.max(until);
        Ok(true)
    }

    /// The watchdog's stall as an error, if it stopped the simulation.
    fn stalled(&self) -> Result<(), Stall> {
        match &self.stall {
            Some(stall) => Err((**stall).clone()),
            None => Ok(()),
        }
    }

    /// Passes on what blocks reported (gates hear of processed and dropped
    /// messages) and serves the wakes that queued up, until nothing is left.
    #[inline(always)]
    fn settle(&mut self) {
        if self.core.outbox.is_empty() && self.wakes.is_empty() {
            return;
        }
        self.settle_pending();
    }

    fn settle_pending(&mut self) {
        loop {
            if !self.core.outbox.is_empty() {
                self.deliver_notices();
                continue;
            }
            let Some(node) = self.wakes.pop_front() else { break };
            self.wake_queued[node] = false;
            self.serve_wake(node);
        }
    }

    /// Gates hear of the messages they counted that were processed or
    /// dropped.
    fn deliver_notices(&mut self) {
        for notice in std::mem::take(&mut self.core.outbox) {
            let (msg, processed) = match notice {
                Notice::Dropped(m) => (m, false),
                Notice::Processed(m) => (m, true),
            };
            for gate in msg.gates.iter() {
                match &mut self.nodes[gate] {
                    Node::Window(w) if w.is_receipt(&msg) => {
                        if w.receipt_read(&msg, &mut ctx!(self, gate)) {
                            self.wake_inputs(gate);
                        }
                    }
                    Node::Window(w) if !processed || !w.opens_on_receipt() => w.acknowledge(&msg, &mut ctx!(self, gate)),
                    Node::Credit(c) => c.processed(&msg, &mut ctx!(self, gate)),
                    Node::ConcurrencyLimiter(l) => {
                        l.finished(&mut ctx!(self, gate));
                        self.wake_inputs(gate);
                    }
                    Node::ResourcePool(r) => {
                        r.finished(&mut ctx!(self, gate));
                        self.wake_inputs(gate);
                    }
                    Node::Producer(p) => p.on_request_done(&mut ctx!(self, gate)),
                    Node::Dispatcher(d, _, _) => {
                        d.replied(&msg);
                        self.dispatch(gate);
                    }
                    _ => {}
                }
            }
        }
    }

    /// Window `w`'s receipts due now go to its receipt queue; one refused
    /// is an ACK not accepted, which the window sees retransmitted.
    fn offer_receipts(&mut self, w: usize) {
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

    /// Offers a producer's message downstream and tells the producer how it
    /// went.
    fn send_from_producer(&mut self, p: usize, msg: Message) {
        let taken = self.send(p, msg);
        if let Node::Producer(producer) = &mut self.nodes[p] {
            let ctx = &mut ctx!(self, p);
            if taken {
                producer.on_accepted(ctx);
            } else {
                producer.on_refused(msg, ctx);
            }
        }
    }

    /// Offers `msg` from `from` to its (single) next block. Returns whether
    /// it was taken; if not, the sender still holds it (messages are
    /// `Copy`, so a refusal hands nothing back).
    fn send(&mut self, from: usize, msg: Message) -> bool {
        match self.outputs[from].first() {
            Some(&to) => self.accept(from, to, msg),
            None => false,
        }
    }

    /// Splits off the gates that count `msg` as acknowledged once it is
    /// received: windows opening on receipt.
    fn strip_gates(&self, msg: Message) -> (Message, Option<Message>) {
        let mut stripped = msg;
        let mut any = false;
        for g in msg.gates.iter() {
            if matches!(&self.nodes[g], Node::Window(w) if w.opens_on_receipt() && !w.is_receipt(&msg)) {
                stripped.gates.remove(g);
                any = true;
            }
        }
        (stripped, any.then_some(msg))
    }

    /// The receiving block took `original`: its receipt gates hear of it.
    fn receipts(&mut self, original: Message) {
        for g in original.gates.iter() {
            if let Node::Window(w) = &mut self.nodes[g] {
                if w.opens_on_receipt() && !w.is_receipt(&original) {
                    w.acknowledge(&original, &mut ctx!(self, g));
                }
            }
        }
    }

    /// Node `to` is offered `msg`: it takes it or refuses it now.
    fn accept(&mut self, from: usize, to: usize, msg: Message) -> bool {
        if !self.core.failed_rpcs.is_empty() {
            if let Some((d, requeue)) = self.core.failed_rpcs.remove(&msg.id) {
                self.surface_failed(d, d, requeue, msg);
                return true;
            }
        }
        self.offer_depth += 1;
        let result = self.accept_here(from, to, msg);
        self.offer_depth -= 1;
        if result {
            if let Some(flows) = &mut self.flows {
                flows.count(from, to, msg.class);
            }
        }
        result
    }

    fn accept_here(&mut self, from: usize, to: usize, msg: Message) -> bool {
        match &mut self.nodes[to] {
            // The common case first: no window waits to hear of a receipt.
            Node::Queue(_) | Node::Consumer(_) | Node::Dispatcher(..) if msg.gates.is_empty() => {
                self.take_here(from, to, msg)
            }
            Node::Queue(_) | Node::Consumer(_) | Node::Dispatcher(..) => {
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
                taken
            }
            Node::Producer(_) => false,
        }
    }

    /// A block that holds messages (queue, consumer, dispatcher) is offered
    /// `msg`, its receipt gates already split off.
    #[inline(always)]
    fn take_here(&mut self, from: usize, to: usize, msg: Message) -> bool {
        match &mut self.nodes[to] {
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
            Node::Dispatcher(d, _, _) => {
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
    fn pass_gate(&mut self, gate: usize, msg: Message) -> bool {
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

    /// The send loop: offers the queue's head until refused or empty.
    fn pump_queue(&mut self, q: usize) {
        self.pump_queue_from(q, 0);
    }

    /// `pump_queue` where `sent` messages already left in this send loop.
    fn pump_queue_from(&mut self, q: usize, mut sent: u64) {
        let to = self.outputs[q].first().copied();
        let direct = match to {
            Some(to) if self.flows.is_none() => self.send_to_plain_consumer(q, to, &mut sent),
            _ => None,
        };
        // Only a link's full send buffer is a socket that would block.
        let (refused, would_block) = match direct {
            Some(refused) => (refused, false),
            None => self.send_loop(q, to, &mut sent),
        };
        let mut freed_room = false;
        if let Node::Queue(queue) = &mut self.nodes[q] {
            let signal = queue.after_send_loop(sent, refused, would_block, &mut ctx!(self, q));
            freed_room = sent > 0 && queue.spec().on_full == crate::blocks::OnFull::Refuse;
            self.signal_inputs(q, signal);
        }
        if freed_room {
            // A queue that refuses when full wakes its senders as it drains.
            self.wake_inputs(q);
        }
    }

    /// The general send loop of queue `q` into `to`: offers the head until
    /// refused or empty, adding what left to `sent`. Returns whether it
    /// ended refused, and whether the refusal was a link's send buffer (a
    /// refused offer makes no other offer on its way back, so the flag set
    /// during it is that refusal's).
    fn send_loop(&mut self, q: usize, to: Option<usize>, sent: &mut u64) -> (bool, bool) {
        loop {
            // A busy consumer refuses any message: skip building the offer.
            // (Only consumers: a full queue may still take a droppable
            // message in order to thin it.)
            let full = to.is_some_and(|to| matches!(&self.nodes[to], Node::Consumer(c) if !c.has_room()));
            let Node::Queue(queue) = &mut self.nodes[q] else { return (false, false) };
            if full {
                return (!queue.is_empty(), false);
            }
            let Some(entry) = queue.take_head() else { return (false, false) };
            self.socket_refused = false;
            let ok = to.is_some_and(|to| self.accept(q, to, entry.msg));
            let Node::Queue(queue) = &mut self.nodes[q] else { return (false, false) };
            if !ok {
                queue.put_back(entry);
                return (true, self.socket_refused);
            }
            queue.sent(entry, &mut ctx!(self, q));
            *sent += 1;
        }
    }

    /// The send loop of queue `q` into consumer `to`, while neither gates
    /// nor flow counting ask for `accept`'s bookkeeping: the same offers,
    /// counters and states as the general loop, with both blocks looked up
    /// once instead of once per message. Returns whether the loop ended
    /// refused, or `None` where the general loop must go on (`to` is not a
    /// consumer, or the head is counted by a gate); `sent` counts what left.
    #[inline]
    fn send_to_plain_consumer(&mut self, q: usize, to: usize, sent: &mut u64) -> Option<bool> {
        let (Node::Queue(queue), Node::Consumer(consumer)) = pair_mut(&mut self.nodes, q, to)? else { return None };
        let (queue_stats, consumer_stats) = pair_mut(&mut self.stats, q, to)?;
        let core = &mut self.core;
        loop {
            if !consumer.has_room() {
                // A busy consumer refuses any message: no offer is built.
                return Some(!queue.is_empty());
            }
            let Some(entry) = queue.take_head() else { return Some(false) };
            if !entry.msg.gates.is_empty() {
                queue.put_back(entry);
                return None;
            }
            if !consumer.offer(entry.msg, &mut Context { core, node: to, stats: consumer_stats }) {
                queue.put_back(entry);
                return Some(true);
            }
            queue.sent(entry, &mut Context { core, node: q, stats: queue_stats });
            *sent += 1;
        }
    }

    /// Offers what has reached the far end of a link, in order.
    fn pump_link(&mut self, l: usize) {
        loop {
            let head = match &self.nodes[l] {
                Node::Link(link) => link.arrived_head(self.core.now),
                _ => None,
            };
            let Some(msg) = head else { break };
            let ok = self.send(l, msg);
            if let Node::Link(link) = &mut self.nodes[l] {
                if ok {
                    link.delivered_head(&mut ctx!(self, l));
                } else {
                    link.head_refused();
                    return;
                }
            }
        }
        if let Node::Link(link) = &mut self.nodes[l] {
            link.arm_next_arrival(&mut ctx!(self, l));
        }
    }

    /// At the start of a run: supervisors count their children, and linked
    /// producers hear where their servers stand.
    fn start_supervision(&mut self) {
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
    fn relink(&mut self, p: usize, server: Option<usize>) {
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
        let sup = self.supervision.get_or_insert_with(|| {
            Box::new(Supervision { seen: phases.clone(), supervisor: vec![None; n], children: vec![Vec::new(); n], clients: vec![Vec::new(); n] })
        });
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
    fn follow_phase(&mut self, c: usize) {
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
                        ch.begin_shutdown("supervisor shutting down", &mut ctx!(self, child));
                        work.push(child);
                    }
                }
                let failed = matches!(&self.nodes[c], Node::Consumer(x) if x.init_failed());
                if let (true, Some(s)) = (failed, supervisor) {
                    if let Node::Consumer(up) = &mut self.nodes[s] {
                        up.begin_shutdown("child failed to initialize", &mut ctx!(self, s));
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

    /// A consumer's worker finished: the message is delivered or passed on,
    /// its gates hear of it, and the consumer asks for more.
    fn service_done(&mut self, c: usize, slot: u32) {
        if !self.core.failed_rpcs.is_empty() && self.fail_in_slot(c, slot) {
            return;
        }
        if self.serve_next_first(c, slot) {
            return;
        }
        let mut demand = None;
        let served = match &mut self.nodes[c] {
            Node::Consumer(consumer) => consumer.on_service_done(slot, &mut ctx!(self, c)),
            Node::Dispatcher(_, pool, ps) => {
                demand = pool.message(slot).map(|m| m.id);
                pool.on_service_done(slot, &mut pool_ctx!(self, c, ps))
            }
            _ => return,
        };
        let sink = self.outputs[c].is_empty();
        if let (Served::Done | Served::GaveUp, Node::Dispatcher(d, _, _), Some(id)) = (&served, &mut self.nodes[c], demand) {
            d.demand_finished(id);
        }
        if let (Served::Done, Node::Dispatcher(d, pool, _)) = (&served, &mut self.nodes[c]) {
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

    /// The job queue before consumer `c`, found through the blocks that
    /// hold nothing (limiters, windows, routers), and those blocks.
    fn job_queue_of(&self, c: usize) -> (Option<usize>, Vec<usize>) {
        let mut between = Vec::new();
        let mut stack: Vec<usize> = self.inputs[c].iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            match &self.nodes[n] {
                Node::Queue(_) => return (Some(n), between),
                node if node.passes_through() && !between.contains(&n) => {
                    between.push(n);
                    stack.extend(self.inputs[n].iter().rev());
                }
                _ => {}
            }
        }
        (None, between)
    }

    /// A job cut off by consumer `c`'s execution time-out goes back to its
    /// job queue: the limiters between them count it finished, and it
    /// passes them again. If the queue cannot take it, it is dropped
    /// (`timed_out`).
    fn requeue_timed_out(&mut self, c: usize, msg: Message) {
        let (queue, between) = self.job_queue_of(c);
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
    fn surface_failed(&mut self, d: usize, at: usize, requeue: bool, msg: Message) {
        let Node::Dispatcher(disp, _, _) = &mut self.nodes[d] else { return };
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
    fn fail_in_slot(&mut self, c: usize, slot: u32) -> bool {
        let id = match &self.nodes[c] {
            Node::Consumer(consumer) => consumer.message(slot).map(|m| m.id),
            Node::Dispatcher(_, pool, _) => pool.message(slot).map(|m| m.id),
            _ => None,
        };
        let Some((d, requeue)) = id.and_then(|id| self.core.failed_rpcs.remove(&id)) else { return false };
        let msg = match &mut self.nodes[c] {
            Node::Consumer(consumer) => consumer.abandon(slot, &mut ctx!(self, c)),
            Node::Dispatcher(disp, pool, ps) => {
                let msg = pool.abandon(slot, &mut pool_ctx!(self, c, ps));
                if let Some(m) = &msg {
                    disp.send_finished(m);
                }
                msg
            }
            _ => None,
        };
        if matches!(self.nodes[c], Node::Dispatcher(..)) {
            self.sync_pool_stats(c);
        }
        if let Some(msg) = msg {
            self.surface_failed(d, c, requeue, msg);
        }
        self.after_worker_freed(c);
        true
    }

    /// The common case of `service_done`, taken when it is exactly what the
    /// general path would do: a sink consumer whose only input is a queue
    /// sending to it, with a message waiting, no offer under way and no
    /// wake pending. The worker releases its message and the queue's send
    /// loop gives it the next, as through `forward_served`, the wake and
    /// `pump_queue`: the same draws, events, counters and levels in the
    /// same order. What differs is where the processor meets the draw:
    /// first, before the bookkeeping, with the new event scheduled last.
    /// The event's time decides the event heap's order, a branch the
    /// processor guesses wrong about half the time; when the logarithm
    /// behind that time is long done by the time the heap compares, a wrong
    /// guess is found out at once. In M/M/1/K this took about 3% of the
    /// cycles off (`docs/performance.md`). Returns whether it took the case.
    #[inline]
    fn serve_next_first(&mut self, c: usize, slot: u32) -> bool {
        if self.flows.is_some() || self.offer_depth != 0 || !self.wakes.is_empty() || !self.outputs[c].is_empty() {
            return false;
        }
        let [q] = self.inputs[c][..] else { return false };
        if self.outputs[q].first() != Some(&c) {
            return false;
        }
        let Some((Node::Queue(queue), Node::Consumer(consumer))) = pair_mut(&mut self.nodes, q, c) else { return false };
        if !consumer.ends_plainly(slot) || !queue.head_is_plain() {
            return false;
        }
        let Some((queue_stats, consumer_stats)) = pair_mut(&mut self.stats, q, c) else { return false };
        let Some(entry) = queue.take_head() else { return false };
        // From here on nothing can fail: the general path is no longer an
        // option once the draw is made.
        let core = &mut self.core;
        let attempt = consumer.draw_attempt(&mut core.rngs[c]);
        queue.on_wake();
        consumer.serve_next(slot, entry.msg, attempt, &mut Context { core, node: c, stats: consumer_stats });
        queue.sent(entry, &mut Context { core, node: q, stats: queue_stats });
        consumer.schedule_end(slot, attempt, &mut Context { core, node: c, stats: consumer_stats });
        self.pump_queue_from(q, 1);
        true
    }

    /// A worker of consumer or dispatcher `c` may be free: a dispatcher
    /// picks its next demand; both ask their inputs for more.
    fn after_worker_freed(&mut self, c: usize) {
        if matches!(self.nodes[c], Node::Dispatcher(..)) {
            self.dispatch(c);
        }
        self.wake_inputs(c);
    }

    /// Gives free workers of dispatcher `d` the demands its discipline picks.
    fn dispatch(&mut self, d: usize) {
        loop {
            let Node::Dispatcher(disp, pool, _) = &mut self.nodes[d] else { return };
            if !pool.has_room() {
                return;
            }
            let Pick::Serve(_, msg) = disp.pick(&mut ctx!(self, d)) else { return };
            let Node::Dispatcher(_, pool, ps) = &mut self.nodes[d] else { return };
            // The pool has room, so it takes the demand.
            let taken = pool.offer(msg, &mut pool_ctx!(self, d, ps));
            debug_assert!(taken, "a pool with room refused a demand");
            self.sync_pool_stats(d);
        }
    }

    /// Mirrors a dispatcher pool's counters into the node's.
    fn sync_pool_stats(&mut self, d: usize) {
        if let Node::Dispatcher(_, pool, ps) = &self.nodes[d] {
            let st = &mut self.stats[d];
            st.departed = ps.departed;
            st.in_service = pool.busy() as u64;
            st.sojourn_ns = ps.sojourn_ns;
            st.dropped[DropReason::TimedOut as usize] = ps.dropped[DropReason::TimedOut as usize];
        }
    }

    /// Delivers the message served in `slot` or offers it to the consumer's
    /// next block. Returns whether the worker is free again.
    fn forward_served(&mut self, c: usize, slot: u32) -> bool {
        let sink = self.outputs[c].is_empty();
        let taken = sink || {
            let (held, gated) = match &self.nodes[c] {
                Node::Consumer(consumer) => (consumer.message(slot).copied(), false),
                Node::Dispatcher(d, pool, _) => (pool.message(slot).copied(), d.gates_its_messages()),
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
            Node::Dispatcher(_, pool, ps) => {
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

    /// Whether `node` would take a message now (for waking; a gate's answer
    /// may depend on the message, so it says yes and lets the offer decide).
    fn has_room(&self, node: usize) -> bool {
        match &self.nodes[node] {
            Node::Consumer(c) => c.has_room(),
            Node::Queue(q) => !q.refuses(),
            Node::Producer(_) => false,
            _ => true,
        }
    }

    /// Whether `node` holds a message its next block refused.
    fn is_blocked(&self, node: usize) -> bool {
        match &self.nodes[node] {
            Node::Producer(p) => p.is_blocked(),
            // Also when emptied meanwhile: the wake must clear its wait.
            Node::Queue(q) => !q.is_empty() || q.waiting_for_room(),
            Node::Consumer(c) => c.has_held(),
            Node::Dispatcher(_, pool, _) => pool.has_held(),
            Node::Link(l) => l.is_blocked(),
            _ => self.refused[node],
        }
    }

    /// `node` has room: its blocked inputs may send. The wake is served
    /// once the current chain of offers has returned (by `settle`), so that
    /// no block is asked to send while it is still inside a send: a wake
    /// served at once could make a sender offer the same message twice, or
    /// a gate admit past its limit before it counted what it let through.
    fn wake_inputs(&mut self, node: usize) {
        if self.offer_depth == 0 && self.wakes.is_empty() {
            // No offer under way and none waiting: serving it now is the
            // same as serving it next, and cheaper.
            self.serve_wake(node);
        } else if !std::mem::replace(&mut self.wake_queued[node], true) {
            self.wakes.push_back(node);
        }
    }

    /// Serves a wake: lets `node`'s blocked inputs send, round-robin. The
    /// next wake starts after the last input that got something through,
    /// unless an input was refused outright on the way: that one goes
    /// first next time. (Moving past a refused input as if it had had its
    /// turn starved it: with a shared window full, every freed slot went
    /// to whichever input the cursor reached first, the same one each time.)
    fn serve_wake(&mut self, node: usize) {
        if let Node::Dispatcher(d, _, _) = &mut self.nodes[node] {
            d.woken();
        }
        let n = self.inputs[node].len();
        if n == 1 {
            // One input (the common case): no turns to keep.
            let input = self.inputs[node][0];
            if self.has_room(node) && self.is_blocked(input) {
                self.pump(input);
            }
            return;
        }
        // Counted without `%`: a division per input is dear in this loop.
        let mut idx = self.wake_cursor[node];
        let mut refused_first = None;
        for _ in 0..n {
            if !self.has_room(node) {
                break;
            }
            let input = self.inputs[node][idx];
            let next = if idx + 1 == n { 0 } else { idx + 1 };
            if self.is_blocked(input) {
                let before = self.stats[node].arrived;
                self.wake_cursor[node] = next;
                self.pump(input);
                if self.stats[node].arrived == before && refused_first.is_none() && self.is_blocked(input) {
                    refused_first = Some(idx);
                }
            }
            idx = next;
        }
        if let Some(first) = refused_first {
            self.wake_cursor[node] = first;
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
            Node::Consumer(_) => {
                while let Some(slot) = match &mut self.nodes[node] {
                    Node::Consumer(c) => c.next_held(),
                    _ => None,
                } {
                    if !self.forward_served(node, slot) {
                        break;
                    }
                }
                self.wake_inputs(node);
            }
            Node::Dispatcher(..) => {
                while let Some(slot) = match &mut self.nodes[node] {
                    Node::Dispatcher(_, pool, _) => pool.next_held(),
                    _ => None,
                } {
                    if !self.forward_served(node, slot) {
                        break;
                    }
                }
                self.after_worker_freed(node);
            }
            Node::Link(_) => self.pump_link(node),
            n if n.passes_through() => {
                self.refused[node] = false;
                self.wake_inputs(node);
            }
            _ => {}
        }
    }

    /// Passes a queue's pause request to the producers that feed it.
    #[inline(always)]
    fn signal_inputs(&mut self, node: usize, signal: PauseSignal) {
        if let Some(pause) = signal {
            self.pause_inputs(node, pause);
        }
    }

    /// Tells each producer that feeds `node`, directly or through blocks
    /// that hold nothing (a router, a window, a limiter), once.
    #[cold]
    fn pause_inputs(&mut self, node: usize, pause: bool) {
        let targets = match self.pause_targets[node].take() {
            Some(found) => found,
            None => self.find_pause_targets(node),
        };
        for &input in targets.iter() {
            let input = input as usize;
            if let Node::Producer(p) = &mut self.nodes[input] {
                p.on_backpressure(pause, &mut ctx!(self, input));
            }
        }
        self.pause_targets[node] = Some(targets);
    }

    /// The producers a pause asked by `node` reaches: its inputs, and the
    /// inputs of blocks that hold nothing, upstream until a block that
    /// holds messages. Each once, in the order of their indices.
    fn find_pause_targets(&self, node: usize) -> Box<[u32]> {
        let mut seen = std::collections::BTreeSet::new();
        let mut producers = Vec::new();
        let mut stack: Vec<usize> = self.inputs[node].clone();
        while let Some(input) = stack.pop() {
            if !seen.insert(input) {
                continue;
            }
            match &self.nodes[input] {
                Node::Producer(_) => producers.push(input as u32),
                n if n.passes_through() => stack.extend_from_slice(&self.inputs[input]),
                _ => {}
            }
        }
        producers.sort_unstable();
        producers.into_boxed_slice()
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
        if candidate.makes_receipts() && !self.scenario.makes_receipts() {
            // Receipts are a class of their own, which every block resolved
            // when the run started.
            return Err(ScenarioError::single(
                format!("nodes[{i}].receipts"),
                "receipts cannot be turned on while running: start the run again",
            ));
        }
        self.scenario = candidate;
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
                l.reconfigure(spec);
                self.wake_inputs(i);
            }
            (Node::Dispatcher(d, pool, _), BlockSpec::Dispatcher(spec)) => {
                pool.reconfigure(spec.workers_spec());
                d.reconfigure(spec);
                self.dispatch(i);
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
                Node::Link(l) => l.holds(),
                Node::Dispatcher(d, pool, _) => d.waiting() + pool.busy() as u64,
                _ => 0,
            })
            .sum()
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals { produced: 0, delivered: 0, dropped: 0, in_system: self.in_system() };
        for (i, (node, stats)) in self.nodes.iter().zip(&self.stats).enumerate() {
            match node {
                Node::Producer(_) => t.produced += stats.arrived,
                // A window's receipts are messages too, made by it.
                Node::Window(w) => t.produced += w.receipts_entered(),
                Node::Consumer(_) | Node::Dispatcher(..) if self.outputs[i].is_empty() => t.delivered += stats.departed,
                _ => {}
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
                self.core.now, t.produced, t.delivered, t.dropped, t.in_system
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
                        self.core.now,
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
            mean_depth_messages: stats.depth_messages.mean(self.core.now),
            in_service: stats.in_service,
            state: None,
            paused: None,
            disconnects: None,
            retransmitted: None,
            mean_sojourn_s: None,
            in_flight: None,
            credits: None,
            tokens: None,
            link_up: None,
            latency_s: stats.durations.as_ref().filter(|d| d.count() > 0).map(|d| d.percentiles()),
        };
        match &self.nodes[i] {
            Node::Producer(p) => r.paused = Some(p.is_paused() || p.is_blocked()),
            Node::Queue(q) => {
                r.state = Some(q.state().as_str());
                r.disconnects = Some(q.disconnects());
            }
            Node::Consumer(c) => {
                if self.outputs[i].is_empty() {
                    r.mean_sojourn_s = (stats.departed > 0).then(|| stats.sojourn_sum_s() / stats.departed as f64);
                }
                if c.spec().lifecycle.is_some() {
                    r.state = Some(c.phase().as_str());
                }
            }
            Node::Window(w) => {
                r.in_flight = Some(w.in_flight().messages);
                if w.spec().receipts.is_some() {
                    r.retransmitted = Some(w.retransmitted().0);
                }
            }
            Node::ConcurrencyLimiter(l) => r.in_flight = Some(l.in_flight()),
            Node::ResourcePool(p) => r.in_flight = Some(p.counts().1 as u64),
            Node::Credit(c) => r.credits = Some(c.credits()),
            Node::RateLimiter(l) => r.tokens = l.tokens(),
            Node::Link(l) => r.link_up = Some(l.is_up()),
            Node::Dispatcher(_, _, ps) if self.outputs[i].is_empty() => {
                r.mean_sojourn_s = (ps.departed > 0).then(|| ps.sojourn_sum_s() / ps.departed as f64);
                r.latency_s = ps.durations.as_ref().filter(|d| d.count() > 0).map(|d| d.percentiles());
            }
            _ => {}
        }
        r
    }

    pub fn report(&self) -> Report {
        Report {
            scenario: self.scenario.name.clone(),
            seed: self.seed,
            sim_time_s: self.core.now.as_secs_f64(),
            events: self.events,
            totals: self.totals(),
            transitions: self.core.log.total(),
            nodes: (0..self.nodes.len()).map(|i| (self.node_id(i).to_string(), self.node_report(i))).collect(),
        }
    }
}

fn build_node(
    scenario: &Scenario,
    outputs: &[Vec<usize>],
    inputs: &[Vec<usize>],
    i: usize,
    block: &BlockSpec,
    classes: ClassMap,
) -> Node {
    match block {
        BlockSpec::Producer(p) => Node::Producer(Producer::new(p.clone(), classes)),
        BlockSpec::Queue(q) => Node::Queue(Queue::new(q.clone(), priority_table(scenario, &q.message_priorities))),
        BlockSpec::Consumer(c) => Node::Consumer(Consumer::new(c.clone())),
        BlockSpec::Router(r) => {
            Node::Router(Router::new(r.clone(), router_choice(scenario, outputs, i, r), outputs[i].len()))
        }
        BlockSpec::Window(w) => {
            let mut window = Window::new(w.clone());
            if let Some(class) = scenario.class_names().position(|c| c == crate::blocks::window::RECEIPT_CLASS).filter(|_| scenario.makes_receipts()) {
                window.set_receipt_class(class as u16);
            }
            Node::Window(window)
        }
        BlockSpec::Credit(c) => Node::Credit(Credit::new(c.clone())),
        BlockSpec::RateLimiter(r) => Node::RateLimiter(RateLimiter::new(r.clone())),
        BlockSpec::ConcurrencyLimiter(c) => Node::ConcurrencyLimiter(ConcurrencyLimiter::new(c.clone())),
        BlockSpec::ResourcePool(r) => Node::ResourcePool(ResourcePool::new(r.clone())),
        BlockSpec::Link(l) => Node::Link(Link::new(l.clone())),
        BlockSpec::Dispatcher(d) => {
            let map = DispatcherMap {
                class_names: class_names(scenario),
                node_ids: scenario.nodes.iter().map(|n| n.id.clone()).collect(),
                inputs: inputs[i].clone(),
            };
            Node::Dispatcher(
                Box::new(Dispatcher::new(d.clone(), map)),
                Box::new(Consumer::new(d.workers_spec())),
                Box::default(),
            )
        }
    }
}

/// Resolves a router's policy to output positions.
fn router_choice(scenario: &Scenario, outputs: &[Vec<usize>], router: usize, spec: &RouterSpec) -> Choice {
    let outs = &outputs[router];
    let position = |id: &str| scenario.node_index(id).and_then(|n| outs.iter().position(|&o| o == n));
    match spec {
        RouterSpec::RoundRobin => Choice::RoundRobin { next: 0 },
        RouterSpec::ByWeight { weights } => Choice::ByWeight { weights: weights.clone(), total: weights.iter().sum() },
        RouterSpec::ByClass { classes, default } => {
            let fallback = default.as_deref().and_then(position);
            let by_class = class_names(scenario)
                .iter()
                .map(|name| classes.get(name).map_or(fallback, |target| position(target)))
                .collect();
            Choice::ByClass { by_class }
        }
        RouterSpec::ByDestination => {
            // For every node, the first output from which it can be reached.
            let mut by_node = vec![None; scenario.nodes.len()];
            for (k, &out) in outs.iter().enumerate() {
                let mut stack = vec![out];
                let mut seen = vec![false; scenario.nodes.len()];
                while let Some(n) = stack.pop() {
                    if std::mem::replace(&mut seen[n], true) {
                        continue;
                    }
                    if by_node[n].is_none() {
                        by_node[n] = Some(k);
                    }
                    stack.extend(outputs[n].iter().copied());
                }
            }
            Choice::ByDestination { by_node }
        }
    }
}

/// What a consumer's phase means to a producer linked to it.
fn server_phase(phase: Phase) -> ServerPhase {
    match phase {
        Phase::Initializing => ServerPhase::Initializing,
        Phase::Operational => ServerPhase::Operational,
        Phase::ShuttingDown | Phase::ShutDown => ServerPhase::Gone,
    }
}

/// Resolves message priorities against the scenario's names.
fn priority_table(scenario: &Scenario, list: &[crate::priorities::MessagePriority]) -> crate::priorities::PriorityTable {
    if list.is_empty() {
        return Default::default();
    }
    let ids: Vec<String> = scenario.nodes.iter().map(|n| n.id.clone()).collect();
    crate::priorities::PriorityTable::resolve(list, &class_names(scenario), &ids)
}

/// Scenario-wide class names, by class index.
fn class_names(scenario: &Scenario) -> Vec<String> {
    scenario.class_names().map(str::to_string).collect()
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
