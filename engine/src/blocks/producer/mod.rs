//! Producer: creates messages at a rate and pushes them downstream.
//!
//! Guarantees:
//! - Arrivals: evenly spaced (`constant`); a Poisson process (`poisson`);
//!   Poisson bursts (`on_off`: `on_s` seconds at `rate_per_s`, then `off_s`
//!   of silence, repeating); a Poisson process whose rate moves linearly from
//!   `from_per_s` to `to_per_s` over `over_s` seconds, then stays (`ramp`);
//!   the messages of a script at the given instants (`trace`); or a closed
//!   loop of `clients`, each sending one request, waiting until it is
//!   processed (or dropped), thinking for a `think` time, and sending again
//!   (`closed_loop`). Each message takes a class drawn by weight, and a size
//!   from that class's distribution (at least one byte).
//! - When the next block refuses a message, `on_refused` decides: `pause`
//!   holds it until the next block has room again (a write that blocks);
//!   `drop` discards it (counted as `refused`); `retry` holds it and offers it
//!   again every `retry_after_s` seconds, making nothing new meanwhile.
//! - When a downstream queue asks for a pause (its soft limit),
//!   `backpressure: pause` stops sending until the pause is lifted (a
//!   client whose socket is no longer read); `ignore` keeps producing (a
//!   live source that cannot be slowed); `drop` keeps making messages and
//!   discards them while the pause lasts (`unanswered`: the ping requests
//!   a server reads but does not answer). The pause reaches the producer
//!   through blocks that hold nothing (routers, windows, credit links,
//!   limiters); it lasts while any queue it reaches asks for it. Behind a
//!   link the pause does not reach the producer: the queue stops reading
//!   the link, and TCP's flow control makes the producer's writes block.
//! - An open-loop process goes on while the producer may not send because
//!   a queue it feeds asked for a pause (`backpressure: pause`) or its write
//!   blocked (a message refused under `on_refused: pause`): what comes due
//!   is made at its instant and waits in the producer, its backlog, counted
//!   as held; once it may send again it offers the backlog, oldest first,
//!   then what comes due after. Nothing due is lost uncounted.
//! - `linked_to` a consumer (rotor's link from a client to a server): the
//!   producer sends nothing until the link is confirmed, when the server is
//!   operational; when the server starts shutting down it asks its linked
//!   clients to unlink, and the producer stops sending for good (linking
//!   to a server already shutting down or shut down stops it at once). A
//!   refused message it holds is still offered; nothing new is made.
//! - While it waits for its link to a server, or under `retry`, an
//!   open-loop producer schedules no arrival: it costs nothing, and when it
//!   restarts the next message comes one inter-arrival time later (a trace
//!   skips the instants it missed). A closed loop's clients that finished
//!   thinking while it could not send send at once when it can, one after
//!   another as each is taken: a wake costs one event, however many
//!   clients wait.

use std::collections::VecDeque;


pub use crate::arrivals::{Arrivals, ServiceTimes, TraceKeys};
use crate::state::{Cause, State};
use crate::arrivals::{on_off_arrival, ramp_arrival};
use crate::context::Context;
use crate::distribution::Distribution;
use crate::message::{Gates, Message, NodeRef, NO_DESTINATION, NO_KEY};
use crate::metrics::DropReason;
use crate::scheduler::{Event, EventKind};
use crate::time::{SimDuration, SimTime};

mod client;
mod retry;
mod spec;
pub use client::{Client, CopyId};
pub use retry::{Backoff, Budget, Jitter, Retries, RetryOn};
pub use spec::{Backpressure, MessageClass, OnGiveUp, OnRefused, ProducerSpec, MAX_MESSAGE_BYTES};

/// An arrival event's `data` that offers the backlog's next message
/// rather than making one.
const FLUSH: u32 = 1;

/// An arrival event's `data` that sends for the next closed-loop client
/// that finished thinking while the producer could not send.
const PENDING: u32 = 2;

/// A drawn size as whole bytes, from 1 to `MAX_MESSAGE_BYTES`. Sizes are
/// positive: adding one half and truncating rounds them.
fn size_in_bytes(drawn: f64) -> u32 {
    (drawn + 0.5).clamp(1.0, MAX_MESSAGE_BYTES) as i64 as u32
}

/// How a producer's classes map onto the scenario: their scenario-wide
/// indices start at `class_base`, and `destinations[i]` is the node index
/// class `i` is addressed to (or `NO_DESTINATION`).
#[derive(Clone, Debug, Default)]
pub struct ClassMap {
    pub class_base: u16,
    pub destinations: Vec<NodeRef>,
}

#[derive(Clone)]
pub struct Producer {
    spec: ProducerSpec,
    classes: ClassMap,
    weights: Vec<f64>,
    total_weight: f64,
    /// The mean gap between arrivals of a Poisson or on/off process,
    /// 1 / `rate_per_s`, worked out once rather than divided on every
    /// arrival (the same number either way).
    mean_gap_s: f64,
    /// Each class's size in bytes when it is fixed, rounded once rather
    /// than on every message.
    fixed_sizes: Vec<Option<u32>>,
    /// A refused message waiting to be offered again.
    held: Option<Message>,
    /// Open loop: messages that came due while it could not send, oldest
    /// first, to offer once it can (after `held`).
    backlog: VecDeque<Message>,
    /// The bytes of `backlog`, kept as it changes: summing it on every
    /// event made a long backlog quadratic.
    backlog_bytes: u64,
    /// Whether an event to offer the backlog's next message is scheduled.
    flush_scheduled: bool,
    /// Closed loop: whether the event that sends for the next pending
    /// client is scheduled (they go one at a time, each after the last was
    /// taken, so a wake costs one event, not one per waiting client).
    pending_scheduled: bool,
    /// How many downstream queues ask for a pause now.
    pause_requests: u32,
    /// Arrivals that came due while the producer was stopped, to send when
    /// it restarts (at most one for an open-loop process).
    pending_starts: u32,
    /// Whether an arrival is scheduled (open-loop processes).
    scheduled: bool,
    /// The next instant of a trace.
    trace_next: usize,
    /// Messages of the current burst still to come at its instant.
    burst_left: u32,
    /// Instants and keys replayed from a file, in place of `arrivals`.
    replay: Option<Box<(Vec<SimTime>, Vec<u32>)>>,
    /// The key of the message the arrival scheduled next will make.
    next_key: u32,
    /// The replayed line the arrival scheduled next comes from: that
    /// message's id (a consumer finds the line's service time by it).
    next_line: u64,
    /// Closed loop: requests sent and not yet processed or dropped.
    outstanding: u32,
    /// Closed loop: clients alive (more than `clients` while shrinking).
    clients: u32,
    next_id: u64,
    /// Tags the current chain of retry events; older ones are ignored.
    retry_chain: u32,
    link: Link,
    /// The requests its clients wait for (with `timeout_s`, or while any
    /// made under one is still waited for).
    client: Option<Box<Client>>,
}

/// Where a producer's link to its server stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Not linked to anything: it sends freely.
    None,
    /// Asked, not yet confirmed: the server is not operational yet.
    Awaiting,
    Confirmed,
    /// The server shut down: it sends no more.
    Unlinked,
}

/// What a server's phase means for a link to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerPhase {
    Initializing,
    Operational,
    Gone,
}

/// What the producer wants the simulation to do next.
pub enum ProducerAction {
    Nothing,
    /// Offer this message to the next block.
    Offer(Message),
}

impl Producer {
    pub fn new(spec: ProducerSpec, classes: ClassMap) -> Self {
        let mut p = Producer {
            spec: spec.clone(),
            classes,
            weights: Vec::new(),
            total_weight: 0.0,
            mean_gap_s: 0.0,
            fixed_sizes: Vec::new(),
            held: None,
            backlog: VecDeque::new(),
            backlog_bytes: 0,
            flush_scheduled: false,
            pending_scheduled: false,
            pause_requests: 0,
            pending_starts: 0,
            scheduled: false,
            trace_next: 0,
            burst_left: 0,
            replay: None,
            next_key: NO_KEY,
            next_line: 0,
            outstanding: 0,
            clients: 0,
            next_id: 0,
            retry_chain: 0,
            link: Link::None,
            client: None,
        };
        p.set_spec(spec);
        p
    }

    pub fn spec(&self) -> &ProducerSpec {
        &self.spec
    }

    fn set_spec(&mut self, spec: ProducerSpec) {
        if !matches!(spec.arrivals, Arrivals::Bursts { .. }) {
            self.burst_left = 0;
        }
        self.weights = spec.classes.iter().map(|c| c.weight).collect();
        self.total_weight = self.weights.iter().sum();
        self.mean_gap_s = match spec.arrivals {
            Arrivals::Poisson { rate_per_s } | Arrivals::OnOff { rate_per_s, .. } => 1.0 / rate_per_s,
            _ => 0.0,
        };
        let waits = spec.timeout_s.is_some() || spec.retries.is_some();
        match &mut self.client {
            None if waits => self.client = Some(Box::default()),
            Some(client) if spec.timeout_s.is_none() => client.wait_for_ever(),
            _ => {}
        }
        self.fixed_sizes = spec
            .classes
            .iter()
            .map(|c| match c.size {
                Distribution::Fixed { value } => Some(size_in_bytes(value)),
                _ => None,
            })
            .collect();
        self.spec = spec;
    }

    /// Takes new parameters while running. The next arrival already
    /// scheduled stands; a held message follows the new `on_refused`.
    pub fn reconfigure(&mut self, spec: ProducerSpec, classes: ClassMap, ctx: &mut Context) {
        self.classes = classes;
        if spec.on_timeout != self.spec.on_timeout {
            // Requests given up already follow the new word as they next
            // surface (one in service finishes).
            let cancel = spec.on_timeout == OnGiveUp::Cancel;
            let node = ctx.node as u64;
            for (_, cancels) in ctx.core.abandoned.range_mut((node << 40, 0)..((node + 1) << 40, 0)) {
                *cancels = cancel;
            }
        }
        let old_policy = self.spec.on_refused;
        if spec.linked_to != self.spec.linked_to {
            // A new link is asked afresh (the simulation says where its
            // server stands).
            self.link = Link::None;
        }
        self.set_spec(spec);
        if self.held.is_some() && self.spec.on_refused != old_policy {
            match self.spec.on_refused {
                OnRefused::Drop => {
                    if let Some(msg) = self.held.take() {
                        ctx.drop_message(msg, DropReason::Refused);
                    }
                    self.record_depth(ctx);
                    self.flush_if_free(ctx);
                }
                OnRefused::Retry => self.start_retry_chain(ctx),
                OnRefused::Pause => {}
            }
        }
        match self.spec.arrivals {
            // More clients start thinking now; fewer retire as they finish.
            Arrivals::ClosedLoop { clients, .. } => {
                for _ in self.clients..clients {
                    self.think_then_send(ctx);
                }
                self.clients = self.clients.max(clients);
            }
            _ if !self.scheduled && self.pending_starts == 0 => {
                if self.can_produce() {
                    self.schedule_next(ctx);
                } else {
                    self.pending_starts = 1;
                }
            }
            _ => {}
        }
        self.restart_if_idle(ctx);
    }

    /// Messages the producer holds: a refused one and its backlog.
    pub fn holds(&self) -> u64 {
        self.held.is_some() as u64 + self.backlog.len() as u64
    }

    /// Whether arrivals due now wait in the backlog rather than being
    /// skipped: an open-loop producer paused by a queue it feeds, or whose
    /// write blocked (it holds a message refused under `on_refused:
    /// pause`); not one waiting for its link to a server, nor retrying.
    fn backlogs(&self) -> bool {
        !self.is_closed_loop()
            && matches!(self.link, Link::None | Link::Confirmed)
            && (self.is_paused() || (self.held.is_some() && self.spec.on_refused == OnRefused::Pause))
    }

    fn record_depth(&self, ctx: &mut Context) {
        let bytes = self.held.map_or(0, |m| m.size_bytes as u64) + self.backlog_bytes;
        ctx.stats.set_depth(ctx.core.now, self.holds(), bytes);
    }

    /// Schedules the offer of the backlog's next message, if there is one
    /// and the producer may send.
    fn flush_if_free(&mut self, ctx: &mut Context) {
        if !self.backlog.is_empty() && self.may_send_made() && !self.flush_scheduled {
            self.flush_scheduled = true;
            ctx.schedule_in(SimDuration::ZERO, EventKind::Arrival, FLUSH);
        }
    }

    /// Whether a pause asked downstream stops this producer now.
    pub fn is_paused(&self) -> bool {
        self.pause_requests > 0 && self.spec.backpressure == Backpressure::Pause
    }

    /// Whether what it makes now is discarded unanswered.
    fn is_unanswered(&self) -> bool {
        self.pause_requests > 0 && self.spec.backpressure == Backpressure::Drop
    }

    /// Whether the producer is holding a refused message.
    pub fn is_blocked(&self) -> bool {
        self.held.is_some()
    }

    /// Whether it may offer a message already made (a held one, or its
    /// backlog's): as `can_produce`, but also once unlinked from a server
    /// that went away, as a held message is still offered.
    fn may_send_made(&self) -> bool {
        !self.is_paused() && self.held.is_none() && self.link != Link::Awaiting
    }

    fn can_produce(&self) -> bool {
        !self.is_paused() && self.held.is_none() && matches!(self.link, Link::None | Link::Confirmed)
    }

    pub fn link(&self) -> Link {
        self.link
    }

    /// The simulation tells a linked producer where its server stands: at
    /// the start of a run, when the link is made or dropped while running,
    /// and whenever the server's phase changes. An unlinked producer stays
    /// unlinked while the same link stands.
    pub fn server_is(&mut self, server: Option<ServerPhase>, ctx: &mut Context) {
        let next = match (server, self.link) {
            (None, _) => Link::None,
            (Some(_), Link::Unlinked) => Link::Unlinked,
            (Some(ServerPhase::Initializing), _) => Link::Awaiting,
            (Some(ServerPhase::Operational), _) => Link::Confirmed,
            (Some(ServerPhase::Gone), _) => Link::Unlinked,
        };
        if next == self.link {
            return;
        }
        let name = |l: Link| match l {
            Link::None => State::Unlinked,
            Link::Awaiting => State::Linking,
            Link::Confirmed => State::Linked,
            Link::Unlinked => State::Unlinked,
        };
        let why = match next {
            Link::Awaiting => Cause::LinkAsked,
            Link::Confirmed => Cause::LinkConfirmed,
            Link::Unlinked => Cause::ServerShuttingDown,
            Link::None => Cause::LinkRemoved,
        };
        ctx.log_transition(name(self.link), name(next), why);
        self.link = next;
        self.restart_if_idle(ctx);
    }

    /// Replays `at` (in order) with `keys`, in place of its arrival
    /// process: before the run starts.
    pub fn replay(&mut self, at: Vec<SimTime>, keys: Vec<u32>) {
        self.replay = Some(Box::new((at, keys)));
        self.trace_next = 0;
    }

    #[inline]
    fn is_closed_loop(&self) -> bool {
        matches!(self.spec.arrivals, Arrivals::ClosedLoop { .. }) && self.replay.is_none()
    }

    /// When the next open-loop arrival falls, if there is one.
    fn next_open_arrival(&mut self, ctx: &mut Context) -> Option<SimTime> {
        let now = ctx.core.now;
        if let Some(replay) = &self.replay {
            let (at, keys) = &**replay;
            // Instants missed while stopped are skipped.
            while self.trace_next < at.len() && at[self.trace_next] < now {
                self.trace_next += 1;
            }
            let t = *at.get(self.trace_next)?;
            self.next_key = keys[self.trace_next];
            self.next_line = self.trace_next as u64;
            self.trace_next += 1;
            return Some(t);
        }
        let after = |seconds: f64| Some(now + SimDuration::from_secs_f64(seconds));
        match &self.spec.arrivals {
            Arrivals::Constant { rate_per_s } => after(1.0 / rate_per_s),
            Arrivals::Poisson { .. } => after(ctx.rng().exponential(self.mean_gap_s)),
            Arrivals::OnOff { on_s, off_s, .. } => {
                let need = SimDuration::from_secs_f64(ctx.rng().exponential(self.mean_gap_s));
                Some(on_off_arrival(now, need, SimDuration::from_secs_f64(*on_s), SimDuration::from_secs_f64(*off_s)))
            }
            Arrivals::Bursts { size, every_s } => {
                // The rest of a burst comes at its instant, one by one.
                if self.burst_left > 0 {
                    self.burst_left = (self.burst_left - 1).min(size.saturating_sub(1));
                    return Some(now);
                }
                self.burst_left = size.saturating_sub(1);
                Some(crate::arrivals::next_burst(now, SimDuration::from_secs_f64(*every_s)))
            }
            Arrivals::Ramp { from_per_s, to_per_s, over_s } => {
                let work = ctx.rng().exponential(1.0);
                ramp_arrival(now.as_secs_f64(), work, *from_per_s, *to_per_s, *over_s).map(SimTime::from_secs_f64)
            }
            Arrivals::Trace { times_s, .. } => {
                // Instants missed while stopped are skipped.
                while self.trace_next < times_s.len() && SimTime::from_secs_f64(times_s[self.trace_next]) < now {
                    self.trace_next += 1;
                }
                let t = *times_s.get(self.trace_next)?;
                self.trace_next += 1;
                Some(SimTime::from_secs_f64(t))
            }
            Arrivals::ClosedLoop { .. } => None,
        }
    }

    #[inline]
    fn schedule_next(&mut self, ctx: &mut Context) {
        if let Some(next) = self.prepare_next(ctx) {
            ctx.core.scheduler.push(next);
        }
    }

    /// The next open-loop arrival, drawn and given its place in the
    /// scheduling order, not yet scheduled.
    #[inline]
    fn prepare_next(&mut self, ctx: &mut Context) -> Option<Event> {
        let at = self.next_open_arrival(ctx)?;
        self.scheduled = true;
        Some(ctx.core.scheduler.prepare(at, ctx.node, EventKind::Arrival, 0))
    }

    /// A closed-loop client thinks, then sends.
    fn think_then_send(&mut self, ctx: &mut Context) {
        if let Arrivals::ClosedLoop { think, .. } = &self.spec.arrivals {
            let t = think.sample(ctx.rng());
            ctx.schedule_in(SimDuration::from_secs_f64(t), EventKind::Arrival, 0);
        }
    }

    /// Starts the arrival process at the beginning of a run.
    pub fn start(&mut self, ctx: &mut Context) {
        if let (Arrivals::ClosedLoop { clients, .. }, None) = (&self.spec.arrivals, &self.replay) {
            let clients = *clients;
            self.clients = clients;
            for _ in 0..clients {
                self.think_then_send(ctx);
            }
        } else {
            self.schedule_next(ctx);
        }
    }

    /// The arrival event: make a message, unless stopped.
    ///
    /// The next open-loop arrival is drawn now but handed back, to be
    /// scheduled once the message has been offered (`Scheduler::prepare`:
    /// it keeps the place in the scheduling order it has now). Its time
    /// decides the event heap's order, a branch the processor guesses wrong
    /// about half the time; when the logarithm behind the time is long done
    /// by the time the heap compares, a wrong guess is found out at once.
    /// In M/M/1/K this took about 2% of the cycles off
    /// (`docs/performance.md`).
    #[inline]
    pub fn on_arrival(&mut self, data: u32, ctx: &mut Context) -> (ProducerAction, Option<Event>) {
        if data == FLUSH {
            self.flush_scheduled = false;
            if !self.may_send_made() {
                return (ProducerAction::Nothing, None);
            }
            let Some(msg) = self.backlog.pop_front() else { return (ProducerAction::Nothing, None) };
            self.backlog_bytes -= msg.size_bytes as u64;
            self.record_depth(ctx);
            return (ProducerAction::Offer(msg), None);
        }
        let closed = self.is_closed_loop();
        if data == PENDING {
            // Not an arrival of the open-loop process: its schedule stands.
            self.pending_scheduled = false;
            if !closed || self.pending_starts == 0 || !self.can_produce() {
                return (ProducerAction::Nothing, None);
            }
            // The client waiting longest sends now.
            self.pending_starts -= 1;
        } else if !closed {
            self.scheduled = false;
        }
        // The common case (nothing held, no pause asked, no backlog) is
        // one test before the backlog's rules.
        let quiet = self.held.is_none() && self.pause_requests == 0 && self.backlog.is_empty();
        if !closed && !quiet && (self.backlogs() || (!self.backlog.is_empty() && self.can_produce() && !self.is_unanswered())) {
            // Made now, sent once the producer may send, after what waits.
            let msg = self.make_message(ctx);
            let next = self.prepare_next(ctx);
            self.backlog.push_back(msg);
            self.backlog_bytes += msg.size_bytes as u64;
            self.record_depth(ctx);
            self.flush_if_free(ctx);
            return (ProducerAction::Nothing, next);
        }
        if !self.can_produce() {
            self.pending_starts = if closed { self.pending_starts + 1 } else { 1 };
            return (ProducerAction::Nothing, None);
        }
        let msg = self.make_message(ctx);
        let next = if closed {
            self.outstanding += 1;
            None
        } else {
            self.prepare_next(ctx)
        };
        if self.is_unanswered() {
            // Made and read, never answered: nothing joins the queue.
            ctx.drop_message(msg, DropReason::Unanswered);
            self.restart_if_idle(ctx);
            return (ProducerAction::Nothing, next);
        }
        (ProducerAction::Offer(msg), next)
    }

    // Always inlined: two paths call it (an arrival sent now, and one kept
    // in the backlog), and a call on the hot one cost M/M/1/K some 7%.
    #[inline(always)]
    fn make_message(&mut self, ctx: &mut Context) -> Message {
        let class = if self.weights.len() == 1 { 0 } else { ctx.rng().weighted_index(&self.weights, self.total_weight) };
        let spec = &self.spec.classes[class];
        let size = match self.fixed_sizes.get(class) {
            Some(&Some(bytes)) => bytes,
            _ => size_in_bytes(spec.size.sample(ctx.rng())),
        };
        let key = match self.spec.keys {
            _ if self.replay.is_some() => self.next_key,
            Some(n) => 1 + ((ctx.rng().uniform() * n as f64) as u32).min(n - 1),
            None => NO_KEY,
        };
        let mut gates = Gates::default();
        if self.is_closed_loop() || self.client.is_some() {
            // The producer hears when its request is processed or dropped.
            gates.push(ctx.node);
        }
        // Unique within a run while a producer makes fewer than 2^40; a
        // replayed message's is its line's, whatever was skipped.
        let serial = if self.replay.is_some() { self.next_line } else { self.next_id };
        let msg = Message {
            id: ((ctx.node as u64) << 40) | serial,
            source: ctx.node as NodeRef,
            class: self.classes.class_base + class as u16,
            priority: spec.priority,
            entered_priority: spec.priority,
            destination: self.classes.destinations.get(class).copied().unwrap_or(NO_DESTINATION),
            droppable: spec.droppable,
            size_bytes: size,
            created: ctx.core.now,
            attempts: 0,
            resent: 0,
            key,
            gates,
        };
        self.next_id += 1;
        ctx.stats.arrived += 1;
        if let Some(client) = &mut self.client {
            client.wait_for(&msg, &self.spec, ctx);
        }
        msg
    }

    /// Closed loop: a request was processed or dropped; its client thinks
    /// and sends again (unless the loop was made smaller meanwhile).
    pub fn on_request_done(&mut self, ctx: &mut Context) {
        self.outstanding = self.outstanding.saturating_sub(1);
        match self.spec.arrivals {
            Arrivals::ClosedLoop { clients, .. } if self.clients <= clients => self.think_then_send(ctx),
            _ => self.clients = self.clients.saturating_sub(1),
        }
    }

    /// Requests sent and not yet processed or dropped (closed loop).
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// The next block took the message.
    #[inline]
    pub fn on_accepted(&mut self, ctx: &mut Context) {
        ctx.stats.departed += 1;
        if self.held.take().is_some() {
            self.record_depth(ctx);
        }
        if self.pending_starts > 0 || !self.backlog.is_empty() {
            self.restart_if_idle(ctx);
        }
    }

    /// The next block refused the message.
    pub fn on_refused(&mut self, msg: Message, ctx: &mut Context) {
        match self.spec.on_refused {
            OnRefused::Drop => {
                ctx.drop_message(msg, DropReason::Refused);
                self.restart_if_idle(ctx);
            }
            OnRefused::Pause | OnRefused::Retry => {
                let first_refusal = self.held.is_none();
                self.held = Some(msg);
                self.record_depth(ctx);
                if self.spec.on_refused == OnRefused::Retry && first_refusal {
                    self.start_retry_chain(ctx);
                }
            }
        }
    }

    fn start_retry_chain(&mut self, ctx: &mut Context) {
        self.retry_chain = self.retry_chain.wrapping_add(1);
        self.schedule_retry(ctx);
    }

    fn schedule_retry(&self, ctx: &mut Context) {
        ctx.schedule_in(SimDuration::from_secs_f64(self.spec.retry_after_s), EventKind::Retry, self.retry_chain);
    }

    /// The retry timer: offer the held message again.
    pub fn on_retry(&mut self, chain: u32, ctx: &mut Context) -> ProducerAction {
        match self.held {
            Some(msg) if chain == self.retry_chain && self.spec.on_refused == OnRefused::Retry => {
                // Schedule the next retry now; it is ignored if this one succeeds.
                self.schedule_retry(ctx);
                ProducerAction::Offer(msg)
            }
            _ => ProducerAction::Nothing,
        }
    }

    /// The next block has room again: offer the held message (pause policy).
    pub fn on_wake(&self) -> ProducerAction {
        match (self.held, self.spec.on_refused) {
            (Some(msg), OnRefused::Pause) => ProducerAction::Offer(msg),
            _ => ProducerAction::Nothing,
        }
    }

    /// A downstream queue asks for a pause (`true`) or lifts its request
    /// (`false`). Each queue asks at most once before it lifts, so the
    /// producer is paused while any of them asks. The count is kept
    /// whatever `backpressure` says, so a change of it applies at once.
    pub fn on_backpressure(&mut self, pause: bool, ctx: &mut Context) {
        if pause {
            self.pause_requests += 1;
        } else {
            self.pause_requests = self.pause_requests.saturating_sub(1);
            self.restart_if_idle(ctx);
        }
    }

    /// Sends what came due while stopped, now that it may produce again.
    fn restart_if_idle(&mut self, ctx: &mut Context) {
        self.flush_if_free(ctx);
        if self.pending_starts == 0 || !self.can_produce() {
            return;
        }
        if self.is_closed_loop() {
            if !self.pending_scheduled {
                self.pending_scheduled = true;
                ctx.schedule_in(SimDuration::ZERO, EventKind::Arrival, PENDING);
            }
        } else {
            self.pending_starts = 0;
            if !self.scheduled {
                self.schedule_next(ctx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::bench::Bench;

    fn producer(spec: serde_json::Value) -> Producer {
        let spec: ProducerSpec = serde_json::from_value(spec).unwrap();
        Producer::new(spec, ClassMap { class_base: 0, destinations: Vec::new() })
    }

    /// Runs the producer's own events (arrivals, retries) up to `until_s`,
    /// handing each message it offers to `takes` (taken or refused), and
    /// returns every offer with its instant: the count the tests hold the
    /// producer to, made from the messages themselves.
    fn drive(p: &mut Producer, b: &mut Bench, until_s: f64, takes: &mut dyn FnMut(f64, &Message) -> bool) -> Vec<(f64, Message)> {
        let offers = drive_events(p, b, until_s, usize::MAX, takes);
        b.core.now = SimTime::from_secs_f64(until_s);
        offers
    }

    /// As `drive`, but stops after `events` events, the clock at the last.
    fn drive_events(p: &mut Producer, b: &mut Bench, until_s: f64, events: usize, takes: &mut dyn FnMut(f64, &Message) -> bool) -> Vec<(f64, Message)> {
        let mut offers = Vec::new();
        let until = SimTime::from_secs_f64(until_s);
        let mut left = events;
        while left > 0 && b.core.scheduler.peek_time().is_some_and(|t| t <= until) {
            left -= 1;
            let event = b.core.scheduler.pop().unwrap();
            b.core.now = event.time();
            let action = match event.kind() {
                EventKind::Arrival => {
                    let (action, next) = p.on_arrival(event.data, &mut b.ctx());
                    if let Some(next) = next {
                        b.core.scheduler.push(next);
                    }
                    action
                }
                EventKind::Retry => p.on_retry(event.data, &mut b.ctx()),
                _ => ProducerAction::Nothing,
            };
            if let ProducerAction::Offer(msg) = action {
                let t = b.core.now.as_secs_f64();
                offers.push((t, msg));
                if takes(t, &msg) {
                    p.on_accepted(&mut b.ctx());
                } else {
                    p.on_refused(msg, &mut b.ctx());
                }
            }
        }
        offers
    }

    fn spec(json: serde_json::Value) -> ProducerSpec {
        serde_json::from_value(json).unwrap()
    }

    fn no_classes() -> ClassMap {
        ClassMap { class_base: 0, destinations: Vec::new() }
    }

    fn instants(offers: &[(f64, Message)]) -> Vec<f64> {
        offers.iter().map(|(t, _)| (t * 1e6).round() / 1e6).collect()
    }

    /// Paused by a queue it feeds, an open-loop producer makes what comes
    /// due and keeps it (counted as held); when the pause lifts it offers
    /// that backlog first, oldest first, then what comes due after. Nothing
    /// due is lost or made twice.
    #[test]
    fn what_comes_due_while_paused_is_kept_and_sent_first_in_order() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}}));
        p.start(&mut b.ctx());
        let before = drive(&mut p, &mut b, 1.0, &mut |_, _| true);
        p.on_backpressure(true, &mut b.ctx());
        let paused = drive(&mut p, &mut b, 2.0, &mut |_, _| true);
        assert!(paused.is_empty(), "nothing is offered while paused");
        assert_eq!(p.holds(), 10, "the ten due from 1.1 s to 2.0 s wait in the producer");
        p.on_backpressure(false, &mut b.ctx());
        let after = drive(&mut p, &mut b, 3.0, &mut |_, _| true);
        let all: Vec<&Message> = before.iter().chain(&after).map(|(_, m)| m).collect();
        assert_eq!(all.len(), 30, "every message due by 3 s, once");
        assert!(all.windows(2).all(|w| w[0].created <= w[1].created && w[0].id < w[1].id), "in the order they came due");
        // The backlog leaves at the instant the pause lifts.
        assert!(after[..10].iter().all(|(t, _)| *t == 2.0), "{:?}", &after[..10].iter().map(|(t, _)| *t).collect::<Vec<_>>());
        assert_eq!(p.holds(), 0);
    }

    /// `on_refused: retry` holds the refused message and offers that same
    /// message again every `retry_after_s`, making nothing new meanwhile;
    /// `drop` discards it (counted as refused) and goes on.
    #[test]
    fn a_refused_message_is_retried_alone_or_dropped_as_configured() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "on_refused": "retry", "retry_after_s": 0.25}));
        p.start(&mut b.ctx());
        // The first offer is refused until 1.0 s.
        let offers = drive(&mut p, &mut b, 2.0, &mut |t, _| t >= 1.0);
        let first = offers[0].1.id;
        let retries: Vec<f64> = offers.iter().take_while(|(_, m)| m.id == first).map(|(t, _)| *t).collect();
        assert_eq!(retries, [0.1, 0.35, 0.6, 0.85, 1.1], "offered again every 0.25 s until taken");
        assert_eq!(offers[retries.len()].1.id, first + 1, "nothing new was made meanwhile");
        assert_eq!(b.stats.dropped_total(), 0);

        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "on_refused": "drop"}));
        p.start(&mut b.ctx());
        let offers = drive(&mut p, &mut b, 1.0, &mut |t, _| t > 0.55);
        assert_eq!(offers.len(), 10, "one offer per arrival, none repeated");
        assert_eq!(b.stats.dropped[DropReason::Refused as usize], 5, "the five refused are dropped as refused");
        assert_eq!(p.holds(), 0);
    }

    /// `backpressure: drop` keeps making messages while paused and drops
    /// each unanswered; `ignore` keeps offering them.
    #[test]
    fn a_pause_drops_or_is_ignored_as_the_source_is() {
        for (backpressure, offered, unanswered) in [("drop", 0, 5), ("ignore", 5, 0)] {
            let mut b = Bench::new();
            let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "backpressure": backpressure}));
            p.start(&mut b.ctx());
            drive(&mut p, &mut b, 0.5, &mut |_, _| true);
            p.on_backpressure(true, &mut b.ctx());
            let offers = drive(&mut p, &mut b, 1.0, &mut |_, _| true);
            assert_eq!(offers.len(), offered, "{backpressure}: offered while paused");
            assert_eq!(b.stats.dropped[DropReason::Unanswered as usize], unanswered, "{backpressure}");
            assert_eq!(p.holds(), 0, "{backpressure}: nothing kept");
        }
    }

    /// A drawn size is rounded to the nearest whole byte, at least one and
    /// at most `MAX_MESSAGE_BYTES`; a fixed size is the same number.
    #[test]
    fn sizes_are_whole_bytes_rounded_to_the_nearest() {
        assert_eq!([10.4, 10.5, 10.6, 0.2, 1.0, 1e18].map(size_in_bytes), [10, 11, 11, 1, 1, MAX_MESSAGE_BYTES as u32]);
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10},
            "classes": [{"name": "a", "size": {"dist": "fixed", "value": 2.6}}, {"name": "b", "size": {"dist": "uniform", "min": 7.6, "max": 8.4}}]}));
        p.start(&mut b.ctx());
        let offers = drive(&mut p, &mut b, 10.0, &mut |_, _| true);
        assert_eq!(offers.len(), 100);
        for (_, m) in &offers {
            assert_eq!(m.size_bytes, [3, 8][m.class as usize], "class {}", m.class);
        }
    }

    /// Changed live, the arrival already scheduled stands and the new rate
    /// follows it; no second chain of arrivals starts.
    #[test]
    fn a_live_change_takes_the_new_rate_after_the_arrival_already_scheduled() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}}));
        p.start(&mut b.ctx());
        assert_eq!(drive(&mut p, &mut b, 1.0, &mut |_, _| true).len(), 10);
        p.reconfigure(spec(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 20}})), no_classes(), &mut b.ctx());
        let offers = drive(&mut p, &mut b, 1.52, &mut |_, _| true);
        assert_eq!(instants(&offers), [1.1, 1.15, 1.2, 1.25, 1.3, 1.35, 1.4, 1.45, 1.5]);
        // The same spec again changes nothing.
        p.reconfigure(p.spec().clone(), no_classes(), &mut b.ctx());
        assert_eq!(drive(&mut p, &mut b, 2.02, &mut |_, _| true).len(), 10);
    }

    /// A trace that ran out goes on with the instants a live change adds.
    #[test]
    fn a_trace_that_ran_out_goes_on_with_the_instants_added_live() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "trace", "times_s": [0.1, 0.2]}}));
        p.start(&mut b.ctx());
        assert_eq!(instants(&drive(&mut p, &mut b, 1.0, &mut |_, _| true)), [0.1, 0.2]);
        p.reconfigure(spec(serde_json::json!({"arrivals": {"process": "trace", "times_s": [0.1, 0.2, 1.5, 2.0]}})), no_classes(), &mut b.ctx());
        assert_eq!(instants(&drive(&mut p, &mut b, 3.0, &mut |_, _| true)), [1.5, 2.0]);
    }

    /// A change of `linked_to` asks the new server afresh; any other change
    /// keeps the link as it stands.
    #[test]
    fn a_new_link_is_asked_afresh_and_an_unchanged_one_stands() {
        let linked = |to: &str| spec(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "linked_to": to}));
        let mut b = Bench::new();
        let mut p = Producer::new(linked("s"), no_classes());
        p.server_is(Some(ServerPhase::Operational), &mut b.ctx());
        p.start(&mut b.ctx());
        assert_eq!(p.link(), Link::Confirmed);
        let mut faster = linked("s");
        faster.arrivals = Arrivals::Constant { rate_per_s: 20.0 };
        p.reconfigure(faster, no_classes(), &mut b.ctx());
        assert_eq!(p.link(), Link::Confirmed, "the same server: the link stands");
        p.reconfigure(linked("t"), no_classes(), &mut b.ctx());
        assert_eq!(p.link(), Link::None, "another server: asked afresh");
    }

    /// A held message follows a new `on_refused` at once (dropped under
    /// `drop`, the backlog then offered); a change that leaves the policy
    /// alone leaves a retry's instants alone.
    #[test]
    fn a_held_message_follows_a_new_policy_and_only_a_new_one() {
        let paused = serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "on_refused": "pause"});
        let mut b = Bench::new();
        let mut p = producer(paused.clone());
        p.start(&mut b.ctx());
        drive(&mut p, &mut b, 0.35, &mut |_, _| false);
        assert_eq!(p.holds(), 3, "the refused one and the two due after it");
        let mut dropping = spec(paused);
        dropping.on_refused = OnRefused::Drop;
        p.reconfigure(dropping, no_classes(), &mut b.ctx());
        assert_eq!(b.stats.dropped[DropReason::Refused as usize], 1, "the held one dropped as refused");
        let offers = drive(&mut p, &mut b, 0.5, &mut |_, _| true);
        assert_eq!(instants(&offers), [0.35, 0.35, 0.4, 0.5], "then the backlog at once, then what comes due");
        assert_eq!(p.holds(), 0);

        let retrying = serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "on_refused": "retry", "retry_after_s": 0.25});
        let mut b = Bench::new();
        let mut p = producer(retrying.clone());
        p.start(&mut b.ctx());
        let mut offers = drive(&mut p, &mut b, 0.2, &mut |t, _| t >= 1.0);
        p.reconfigure(spec(retrying), no_classes(), &mut b.ctx());
        offers.extend(drive(&mut p, &mut b, 0.9, &mut |t, _| t >= 1.0));
        assert_eq!(p.holds(), 1, "retrying, it makes nothing new");
        offers.extend(drive(&mut p, &mut b, 1.2, &mut |t, _| t >= 1.0));
        assert_eq!(instants(&offers)[..5], [0.1, 0.35, 0.6, 0.85, 1.1], "the retries keep their instants");
    }

    /// Growing a closed loop live starts the new clients thinking at once;
    /// shrinking it retires clients as their requests finish.
    #[test]
    fn a_closed_loop_grows_and_shrinks_live() {
        let loop_of = |clients: u32| serde_json::json!({"arrivals": {"process": "closed_loop", "clients": clients, "think": {"dist": "fixed", "value": 0.1}}});
        let mut b = Bench::new();
        let mut p = producer(loop_of(2));
        p.start(&mut b.ctx());
        assert_eq!(instants(&drive(&mut p, &mut b, 0.5, &mut |_, _| true)), [0.1, 0.1]);
        p.reconfigure(spec(loop_of(5)), no_classes(), &mut b.ctx());
        assert_eq!(instants(&drive(&mut p, &mut b, 1.0, &mut |_, _| true)), [0.6, 0.6, 0.6], "three new clients");
        assert_eq!(p.outstanding(), 5);
        p.reconfigure(spec(loop_of(2)), no_classes(), &mut b.ctx());
        for _ in 0..5 {
            p.on_request_done(&mut b.ctx());
        }
        assert_eq!(instants(&drive(&mut p, &mut b, 2.0, &mut |_, _| true)), [1.1, 1.1], "three retired, two think and send again");
    }

    /// A live change in the middle of a burst lets the rest of the burst
    /// come at its instant.
    #[test]
    fn a_live_change_mid_burst_keeps_the_rest_of_the_burst() {
        let bursts = serde_json::json!({"arrivals": {"process": "bursts", "size": 5, "every_s": 1.0}});
        let mut b = Bench::new();
        let mut p = producer(bursts.clone());
        p.start(&mut b.ctx());
        let mut offers = drive_events(&mut p, &mut b, 10.0, 2, &mut |_, _| true);
        assert_eq!(offers.len(), 2);
        p.reconfigure(spec(bursts), no_classes(), &mut b.ctx());
        offers.extend(drive(&mut p, &mut b, 1.5, &mut |_, _| true));
        let first = offers[0].0;
        assert_eq!(offers.iter().filter(|(t, _)| *t == first).count(), 5, "{:?}", instants(&offers));
    }

    /// A write that blocked (`on_refused: pause`) keeps what comes due in
    /// its backlog, counted as held in messages and bytes; the wake offers
    /// the held message, then the backlog in order.
    #[test]
    fn a_blocked_write_keeps_what_comes_due_and_counts_its_bytes() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "on_refused": "pause",
            "classes": [{"name": "a", "size": {"dist": "fixed", "value": 100}}]}));
        p.start(&mut b.ctx());
        assert!(!p.is_blocked());
        let refused = drive(&mut p, &mut b, 0.55, &mut |_, _| false);
        assert_eq!(refused.len(), 1, "one offer, refused, then nothing until the wake");
        assert!(p.is_blocked());
        assert_eq!(p.holds(), 5);
        assert_eq!((b.stats.depth_messages.value(), b.stats.depth_bytes), (5, 500));
        let ProducerAction::Offer(held) = p.on_wake() else { panic!("the wake offers the held message") };
        assert_eq!(held.id, refused[0].1.id);
        p.on_accepted(&mut b.ctx());
        assert!(!p.is_blocked());
        assert_eq!((b.stats.depth_messages.value(), b.stats.depth_bytes), (4, 400), "the held one gone");
        let mut rest = drive_events(&mut p, &mut b, 1.0, 1, &mut |_, _| true);
        assert_eq!((b.stats.depth_messages.value(), b.stats.depth_bytes), (3, 300), "one of the backlog offered");
        rest.extend(drive(&mut p, &mut b, 1.0, &mut |_, _| true));
        assert_eq!(rest.iter().map(|(_, m)| m.id - held.id).collect::<Vec<_>>(), (1..10).collect::<Vec<_>>(), "the backlog in order, then the rest");
        assert_eq!((p.holds(), b.stats.depth_messages.value(), b.stats.depth_bytes), (0, 0, 0));
    }

    /// A pause lifted before anything came due costs no event beyond the
    /// next arrival.
    #[test]
    fn a_pause_lifted_with_nothing_kept_costs_no_event() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}}));
        p.start(&mut b.ctx());
        drive(&mut p, &mut b, 0.12, &mut |_, _| true);
        p.on_backpressure(true, &mut b.ctx());
        p.on_backpressure(false, &mut b.ctx());
        assert_eq!(b.core.scheduler.len(), 1, "only the next arrival");
    }

    /// A replayed file's instants and keys take the place of the arrival
    /// process; instants missed while stopped (waiting for its server) are
    /// skipped, one at the very instant it may send again is not.
    #[test]
    fn a_replay_sends_its_instants_and_keys_and_skips_what_it_missed() {
        let at = |s: &[f64]| s.iter().map(|&t| SimTime::from_secs_f64(t)).collect::<Vec<_>>();
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 1000}}));
        p.replay(at(&[0.5, 0.7, 0.7, 2.0]), vec![3, 4, 5, 6]);
        p.start(&mut b.ctx());
        let offers = drive(&mut p, &mut b, 5.0, &mut |_, _| true);
        assert_eq!(instants(&offers), [0.5, 0.7, 0.7, 2.0]);
        assert_eq!(offers.iter().map(|(_, m)| m.key).collect::<Vec<_>>(), [3, 4, 5, 6]);

        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 1000}}));
        p.replay(at(&[0.1, 0.2, 0.3, 1.5, 1.6]), vec![1, 2, 3, 4, 5]);
        p.server_is(Some(ServerPhase::Initializing), &mut b.ctx());
        p.start(&mut b.ctx());
        assert!(drive(&mut p, &mut b, 1.5, &mut |_, _| true).is_empty());
        p.server_is(Some(ServerPhase::Operational), &mut b.ctx());
        let offers = drive(&mut p, &mut b, 5.0, &mut |_, _| true);
        assert_eq!(instants(&offers), [1.5, 1.6]);
        assert_eq!(offers.iter().map(|(_, m)| m.key).collect::<Vec<_>>(), [4, 5]);
        // A replayed message's id is its line's, whatever was skipped (a
        // consumer finds the line's service time by it).
        assert_eq!(offers.iter().map(|(_, m)| m.id & ((1 << 40) - 1)).collect::<Vec<_>>(), [3, 4]);
    }

    /// A trace's instants missed while the producer could not send (its
    /// server initializing) are skipped; one at the very instant it may
    /// send again is not.
    #[test]
    fn a_trace_skips_what_it_missed_while_stopped() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "trace", "times_s": [0.1, 0.2, 0.3, 1.5, 1.6]}}));
        p.server_is(Some(ServerPhase::Initializing), &mut b.ctx());
        p.start(&mut b.ctx());
        assert!(drive(&mut p, &mut b, 1.5, &mut |_, _| true).is_empty());
        p.server_is(Some(ServerPhase::Operational), &mut b.ctx());
        assert_eq!(instants(&drive(&mut p, &mut b, 5.0, &mut |_, _| true)), [1.5, 1.6]);
    }

    /// A closed loop's clients that finish thinking while it is paused
    /// wait; when the pause lifts each sends once, one after another at that
    /// instant, and no client is lost or doubled.
    #[test]
    fn a_closed_loops_clients_that_waited_each_send_once_when_it_may() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "closed_loop", "clients": 3, "think": {"dist": "fixed", "value": 0.1}}}));
        p.start(&mut b.ctx());
        p.on_backpressure(true, &mut b.ctx());
        assert!(drive(&mut p, &mut b, 0.5, &mut |_, _| true).is_empty());
        p.on_backpressure(false, &mut b.ctx());
        let offers = drive(&mut p, &mut b, 5.0, &mut |_, _| true);
        assert_eq!(instants(&offers), [0.5, 0.5, 0.5], "each of the three once");
        assert_eq!(p.outstanding(), 3);
        // A paused loop whose pause lifts with no client waiting sends
        // nothing more.
        p.on_backpressure(true, &mut b.ctx());
        p.on_backpressure(false, &mut b.ctx());
        assert!(drive(&mut p, &mut b, 6.0, &mut |_, _| true).is_empty());
    }

    /// An arrival due at the very instant a pause lifts waits behind the
    /// backlog made before it: nothing overtakes.
    #[test]
    fn an_arrival_at_the_instant_a_pause_lifts_waits_behind_the_backlog() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}}));
        p.start(&mut b.ctx());
        p.on_backpressure(true, &mut b.ctx());
        drive(&mut p, &mut b, 0.95, &mut |_, _| true);
        assert_eq!(p.holds(), 9);
        // The pause lifts at 1.0, before the arrival due then is made.
        b.at(1.0);
        p.on_backpressure(false, &mut b.ctx());
        let offers = drive(&mut p, &mut b, 1.0, &mut |_, _| true);
        assert_eq!(offers.len(), 10);
        assert!(offers.windows(2).all(|w| w[0].1.id < w[1].1.id), "{:?}", offers.iter().map(|(_, m)| m.id).collect::<Vec<_>>());
    }

    /// `backpressure: ignore` sends what it makes straight on while a
    /// pause is asked: nothing is ever kept, even for an instant.
    #[test]
    fn an_ignored_pause_keeps_nothing_even_for_an_instant() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 10}, "backpressure": "ignore"}));
        p.start(&mut b.ctx());
        p.on_backpressure(true, &mut b.ctx());
        assert_eq!(drive(&mut p, &mut b, 1.0, &mut |_, _| true).len(), 10);
        assert!(b.stats.depth_series.points(b.core.now).iter().all(|pt| pt.max == 0), "a message kept for an instant");
    }

    /// Generated keys run from 1 to `keys`, each about as often; a
    /// message's id carries its producer's node in its top bits.
    #[test]
    fn generated_keys_cover_one_to_n_and_ids_name_their_producer() {
        let mut b = Bench::new();
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 100}, "keys": 3}));
        p.start(&mut b.ctx());
        let offers = drive(&mut p, &mut b, 6.0, &mut |_, _| true);
        let mut counts = [0; 5];
        for (_, m) in &offers {
            counts[(m.key as usize).min(4)] += 1;
        }
        assert_eq!((counts[0], counts[4]), (0, 0), "{counts:?}");
        assert!(counts[1..4].iter().all(|&c| c > 150), "{counts:?}");
        let mut p = producer(serde_json::json!({"arrivals": {"process": "constant", "rate_per_s": 100}}));
        let mut ctx = Context { core: &mut b.core, node: 3, stats: &mut b.stats };
        let (msg, _) = (p.make_message(&mut ctx), ());
        assert_eq!((msg.id >> 40, msg.key), (3, NO_KEY));
    }
}
