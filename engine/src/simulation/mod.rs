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
//!   receipts) = delivered + dropped + in system, where in system counts
//!   the messages held by producers, waiting in queues and links, and in
//!   consumers (`Simulation::check_invariants`).
//! - Parameters change while running (`reconfigure`) without a restart and
//!   without losing a message.
//! - Every run ends: when `MAX_EVENTS_AT_ONE_INSTANT` events in a row happen
//!   at one instant (a loop whose every step takes no time), the simulation
//!   stops there and says so with a `Stall` naming the nodes taking part.
//! - Every run ends in a useful time: when the clock gains less than
//!   `MIN_PROGRESS_PER_WINDOW` over `CREEP_WINDOW` events (a loop whose
//!   steps take a fraction of a nanosecond creeps: it never stops, and
//!   never gets anywhere), the simulation stops with a `Creep` naming the
//!   nodes that took, passed on and dropped the most messages meanwhile.
//! - Every run fits in memory: when it holds more than `MAX_MESSAGES_HELD`
//!   messages at once (a queue without a capacity that its arrivals
//!   outpace), it stops and says so with an `Overflow` naming the nodes
//!   holding them. It looks every `HELD_SAMPLE` events, so it stops at
//!   most that many messages past the bound.
//!
//! This file holds the protocol (offer, wake, pump and settle call each
//! other); beside it: `wiring` builds a simulation from a scenario,
//! `events` handles one event, `offer` what each block does with a
//! message offered to it, `service` ends a worker's service, `pause`
//! carries a queue's pause to its producers, `beside_edges` the paths that
//! leave the edges on purpose, `shortcuts` the common case in fewer steps,
//! `reconfigure` live changes, `accounting` totals, invariants and
//! reports, `watchdog` running to a time and stopping a stalled or overfull run,
//! `reading` what a simulation shows of itself.

use std::collections::BTreeMap;

use crate::blocks::consumer::{ReplayedService, Served};
use crate::blocks::producer::{ClassMap, CopyId, ProducerAction};
use crate::blocks::queue::{Limits, PauseSignal, QueueOffer};
use crate::blocks::rate_limiter::RateDecision;
use crate::blocks::router::Choice;
use crate::blocks::dispatcher::{DispatcherMap, Pick};
use crate::blocks::{
    ConcurrencyLimiter, Consumer, Credit, Dispatcher, Link, Producer, ProductLimiter, Queue, RateLimiter, ResourcePool, Router,
    RouterSpec, Window,
};
use crate::context::{Context, Core, Notice};
use crate::flows::Flows;
use crate::message::{Message, NodeRef, NO_DESTINATION, NO_KEY};
use crate::arrivals::{Arrivals, ServiceTimes};
use crate::replay::Replay;
use crate::metrics::{DropReason, NodeStats, TransitionLog};
use crate::report::{ClientReport, NodeReport, Report, Totals};
use crate::rng::SimRng;
use crate::scenario::{BlockSpec, Kind, Scenario, ScenarioError};
use crate::scheduler::{EventKind, Scheduler};
use crate::supervision::Supervision;
use crate::state::Phase;
use crate::blocks::producer::ServerPhase;
use crate::time::{SimDuration, SimTime};

/// How many state transitions the log keeps.
pub const TRANSITION_LOG_CAPACITY: usize = 1000;

/// The watchdog's bound: a simulation that handles this many events in a
/// row without its clock advancing stops with a `Stall`. Ten million is
/// far beyond any instant of a sound scenario (a million-instant trace at
/// one instant through a few blocks takes a few million) and takes about a
/// second natively, a few in the page.
pub const MAX_EVENTS_AT_ONE_INSTANT: u64 = 10_000_000;

/// The watchdog's bound on messages held at once. Five million is far
/// beyond any queue a lesson or a threshold study holds (their depths are
/// in the thousands), and takes some 200 MB natively (a message is 40
/// bytes; a queue's buffer may be twice its length), so that a sweep on
/// every core and the page on a phone stay within their memory.
pub const MAX_MESSAGES_HELD: u64 = 5_000_000;

/// The watchdog counts the messages held every this many events: counting
/// visits every node, so it is done rarely.
const HELD_SAMPLE: u64 = 1 << 16;

/// How many of the last events before a stall are looked at to name the
/// nodes taking part; the watchdog looks at the clock at least this often.
const STALL_SAMPLE: u64 = 4096;

/// The watchdog judges progress over windows of this many events (a
/// multiple of `HELD_SAMPLE`, some eight million: about half a second
/// natively)...
pub const CREEP_WINDOW: u64 = 1 << 23;

/// ...and stops a run whose clock gained less than this over one window
/// (but gained something: a clock that stopped is a `Stall`): at that
/// pace a simulated second takes some 80 billion events, a day of a
/// machine's time, as when steps take a small fraction of a nanosecond
/// (the clock counts whole nanoseconds). Three producers at the largest
/// rate a file may ask, 10⁹ a second, still gain about a millisecond.
pub const MIN_PROGRESS_PER_WINDOW: SimDuration = SimDuration::from_nanos(100_000);

#[derive(Clone)]
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
    ProductLimiter(ProductLimiter),
    Link(Link),
    /// A dispatcher is its demand queues and its worker pool, with the
    /// pool's own counters (the node's counters show what it took in and
    /// what its workers passed on).
    Dispatcher { demands: Box<Dispatcher>, pool: Box<Consumer>, pool_stats: Box<NodeStats> },
}

impl Node {
    /// Blocks that hold no message: a wake passes through them.
    fn passes_through(&self) -> bool {
        self.kind().holds_nothing()
    }

    /// The kind of block this node is.
    pub fn kind(&self) -> Kind {
        match self {
            Node::Producer(_) => Kind::Producer,
            Node::Queue(_) => Kind::Queue,
            Node::Consumer(_) => Kind::Consumer,
            Node::Router(_) => Kind::Router,
            Node::Window(_) => Kind::Window,
            Node::Credit(_) => Kind::Credit,
            Node::RateLimiter(_) => Kind::RateLimiter,
            Node::ConcurrencyLimiter(_) => Kind::ConcurrencyLimiter,
            Node::Link(_) => Kind::Link,
            Node::Dispatcher { .. } => Kind::Dispatcher,
            Node::ResourcePool(_) => Kind::ResourcePool,
            Node::ProductLimiter(_) => Kind::ProductLimiter,
        }
    }
}

#[derive(Clone)]
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
    /// The block that refused the offer under way, once one has (behind
    /// blocks that pass it through); `usize::MAX` before.
    refuser: usize,
    /// The offer under way comes from a link's far end and no block that
    /// holds messages has taken it yet.
    offer_from_link: bool,
    /// A queue asking its inputs to pause did not read the link's message
    /// just offered.
    not_read: bool,
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
    /// The watchdog's bound on messages held (`MAX_MESSAGES_HELD` unless
    /// set).
    held_bound: u64,
    /// Where the current window of `CREEP_WINDOW` events began: the events
    /// handled, the clock, and every node's counters then.
    creep_events: u64,
    creep_at: SimTime,
    creep_counts: Vec<u64>,
    /// Why the simulation stopped, once the watchdog stopped it.
    stop: Option<Box<Stop>>,
    /// rotor's links and supervisors, if the scenario has any.
    supervision: Option<Box<Supervision>>,
    /// Every live change of a queue's thresholds, oldest first (at most
    /// `LIMIT_CHANGES_KEPT`).
    limit_changes: Vec<LimitChange>,
    /// In a run of a draft's connected part: the nodes held back, which
    /// never start and take no live change (see `new_in_part`).
    held: Option<Vec<bool>>,
    /// Messages' keys: 1 to `generated_keys` are a producer's `k1`..`kN`,
    /// those above a replayed file's, in its numbering moved up by that.
    generated_keys: u32,
    replayed_keys: Option<Box<crate::replay::Keys>>,
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

mod accounting;
mod beside_edges;
mod events;
mod offer;
mod pause;
mod reading;
mod reconfigure;
mod service;
mod shortcuts;
mod watchdog;
mod wiring;

pub use reconfigure::LimitChange;
pub use watchdog::{Creep, Overflow, Stall, Stop};

/// Why a file's traffic cannot be replayed through a scenario.
#[derive(Debug, thiserror::Error)]
pub enum ReplayUseError {
    #[error(transparent)]
    Scenario(ScenarioError),
    #[error("no producer \"{id}\" in the scenario (producers: {producers})")]
    NoSuchProducer { id: String, producers: String },
    #[error("which producer replays the file? name one of {0}")]
    WhichProducer(String),
    #[error("the scenario has no producer to replay the file")]
    NoProducer,
    #[error("the file gives no service times to serve with (a CSV's third column, service_s)")]
    NoServiceTimes,
}

impl Simulation {
    /// From now on, every limiter decision is kept, to be taken with
    /// `take_decisions` (limiters that record them: product limiters).
    pub fn record_decisions(&mut self) {
        self.core.decisions.get_or_insert_with(Vec::new);
    }

    /// Counts every decision from now on by key (`tally`).
    pub fn tally_decisions(&mut self) {
        self.core.tally.get_or_insert_with(Box::default);
    }

    /// The decisions counted by key, once asked for.
    pub fn tally(&self) -> Option<&crate::tally::Tally> {
        self.core.tally.as_deref()
    }

    /// The decisions kept since the last call, oldest first.
    pub fn take_decisions(&mut self) -> Vec<crate::metrics::Decision> {
        self.core.decisions.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The text of message key `key`: a producer's `kN`, a replayed
    /// file's own, or empty for no key.
    pub fn key_name(&self, key: u32) -> String {
        match key {
            NO_KEY => String::new(),
            k if k <= self.generated_keys => format!("k{k}"),
            k => self.replayed_keys.as_ref().map_or(String::new(), |names| names.name(k - self.generated_keys).to_string()),
        }
    }
}

impl Simulation {
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
                        let opened = w.receipt_read(&msg, &mut ctx!(self, gate));
                        if opened {
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
                    Node::ProductLimiter(l) => {
                        l.finished(&msg, !processed, &mut ctx!(self, gate));
                        self.pump_limiter(gate);
                    }
                    Node::Producer(p) => p.on_answer(&msg, processed, &mut ctx!(self, gate)),
                    Node::Dispatcher { demands: d, .. } => {
                        d.replied(&msg);
                        self.dispatch(gate);
                    }
                    _ => {}
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
                let refused = !queue.is_empty();
                if let (true, Some(to)) = (refused, to) {
                    self.core.whys.refused(q, to, self.core.now, false);
                }
                return (refused, false);
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

    /// Offers what has reached the far end of a link, in order, past what a
    /// queue there does not read while it asks its inputs to pause.
    /// Product limiter `l` sends what it holds that is due, in order, until
    /// the next block refuses; then it is woken with its next release.
    fn pump_limiter(&mut self, l: usize) {
        if let Node::ProductLimiter(p) = &mut self.nodes[l] {
            p.expire_and_grant(&mut ctx!(self, l));
        }
        loop {
            let due = match &self.nodes[l] {
                Node::ProductLimiter(p) => p.due(self.core.now),
                _ => None,
            };
            let Some(msg) = due else { break };
            let taken = self.send(l, msg);
            if let Node::ProductLimiter(p) = &mut self.nodes[l] {
                if taken {
                    p.sent_first(&mut ctx!(self, l));
                } else {
                    p.refused_first();
                    break;
                }
            }
        }
        if let Node::ProductLimiter(p) = &mut self.nodes[l] {
            p.arm(&mut ctx!(self, l));
        }
    }

    fn pump_link(&mut self, l: usize) {
        self.copies_arrive(l);
        loop {
            let head = match &self.nodes[l] {
                Node::Link(link) => link.arrived_head(self.core.now),
                _ => None,
            };
            let Some(msg) = head else { break };
            self.offer_from_link = true;
            self.not_read = false;
            let ok = self.send(l, msg);
            self.offer_from_link = false;
            if let Node::Link(link) = &mut self.nodes[l] {
                if ok {
                    link.delivered_head(&mut ctx!(self, l));
                } else if std::mem::take(&mut self.not_read) {
                    link.head_unread();
                } else {
                    link.head_refused();
                    // A copy sent again behind the refused head still
                    // arrives (the far end's transport takes it).
                    link.arm_next_arrival(&mut ctx!(self, l));
                    return;
                }
            }
        }
        if let Node::Link(link) = &mut self.nodes[l] {
            link.arm_next_arrival(&mut ctx!(self, l));
        }
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
            Node::Dispatcher { pool, .. } => pool.has_held(),
            Node::Link(l) => l.is_blocked() || l.has_unread(),
            Node::ProductLimiter(l) => l.is_blocked(),
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
            Node::Dispatcher { .. } => {
                while let Some(slot) = match &mut self.nodes[node] {
                    Node::Dispatcher { pool, .. } => pool.next_held(),
                    _ => None,
                } {
                    if !self.forward_served(node, slot) {
                        break;
                    }
                }
                self.after_worker_freed(node);
            }
            Node::Link(l) => {
                l.reread();
                self.pump_link(node);
            }
            Node::ProductLimiter(_) => self.pump_limiter(node),
            n if n.passes_through() => {
                self.refused[node] = false;
                self.wake_inputs(node);
            }
            _ => {}
        }
    }

}
