//! Consumer: the slow client, the file-system node, the actor at the end of
//! the line.
//!
//! Guarantees:
//! - It serves at most `workers` messages at once; each takes a service time
//!   drawn from `service_time` (seconds), times the slow-down factor in
//!   force when it starts. A message offered while every worker is busy, or
//!   while the consumer is not accepting, is refused, so the block before it
//!   feels the pressure (its socket "would block").
//! - Accepting means operational and not in an outage. With `lifecycle`,
//!   the consumer starts `Initializing` and accepts nothing until it turns
//!   `Operational` after `initializing_s`; from `shutdown_at_s` it is
//!   `ShuttingDown`: it accepts nothing, finishes what it holds, and is then
//!   `ShutDown` for good (rotor's lifecycle). Every change is logged.
//! - An actor still `Initializing` at `init_timeout_s` shuts down without
//!   ever being operational. A consumer may name its `supervisor` (another
//!   consumer): when the supervisor starts shutting down, so does it, and a
//!   child that fails to initialize makes its supervisor shut down (rotor's
//!   cascade up and down the ownership tree). A supervisor is `ShutDown`
//!   only once its children are. The simulation carries these between
//!   consumers (`begin_shutdown`, `child_shut_down`).
//! - `outages`: periods in which it takes no new work (work under way
//!   finishes). `slowdowns`: periods in which service times are multiplied
//!   by `factor`.
//! - With `timeout_s`, a service that would take longer is cut off at the
//!   time-out and tried again, up to `max_retries` times; then the message
//!   is dropped (`timed_out`). `on_timeout: retry` tries again at once on
//!   the same worker; `requeue` (super-queue's execTimeout: the task is
//!   cancelled) frees the worker at the time-out and sends the job back to
//!   its job queue (the simulation finds it), so that it passes the
//!   limiters between them again.
//! - A served message is processed: the gates it was counted against
//!   (windows opening on processing, credit links, concurrency limiters,
//!   closed-loop producers) hear of it at that instant. Without an output,
//!   it is then delivered: it leaves the system, and its sojourn (from
//!   creation to delivery) is recorded. With an output (a pipeline stage),
//!   it is offered to the next block; if refused, the worker holds it,
//!   serving nothing else, until the next block wakes the consumer.
//! - When a worker frees, the consumer asks its inputs for more. Fewer
//!   workers set while running take effect as busy workers finish; no
//!   message in service is lost.

mod spec;

pub use spec::*;

use std::collections::VecDeque;

use crate::state::{Cause, Phase, State};
use crate::context::{Context, Notice};
use crate::message::{Message, NodeRef};
use crate::metrics::DropReason;
use crate::rng::SimRng;
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    Operational,
    InitTimeout,
    ShutDownBegins,
    OutageBegins,
    OutageEnds,
    SlowBegins(f64),
    SlowEnds,
}

/// How a worker's service ended.
pub enum Served {
    /// Done: deliver or pass on the message, which stays in its slot until
    /// then (`message`).
    Done,
    /// Cut off by the time-out and started again.
    Retried,
    /// Cut off once too often: dropped.
    GaveUp,
    /// Cut off, the worker freed: the job goes back to its job queue.
    Requeue(Message),
    /// Nothing to do (a stale timer).
    Nothing,
}

/// The drawn length of a worker's attempt at a message.
#[derive(Clone, Copy, Debug)]
pub struct Attempt {
    length: SimDuration,
    /// The time-out ends it rather than the work finishing.
    cut_off: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    msg: Option<Message>,
    started: SimTime,
    attempts: u32,
    /// The running attempt ends by the time-out rather than by finishing.
    cut_off: bool,
    /// When the running attempt ends (a service end at another is stale).
    ends: SimTime,
}

#[derive(Clone)]
pub struct Consumer {
    spec: ConsumerSpec,
    slots: Vec<Slot>,
    free: Vec<u32>,
    busy: u32,
    /// Slots holding a served message the next block refused, oldest first.
    blocked: VecDeque<u32>,
    phase: Phase,
    in_outage: bool,
    /// How many workers may be busy now: all of them while accepting,
    /// none otherwise. Kept up to date as the phase, the outage and the
    /// worker count change, since every offer and every wake asks.
    open_workers: u32,
    slow_factor: f64,
    timeline: Vec<(SimTime, Change)>,
    next_change: usize,
    /// It gave up initializing (its supervisor hears of it).
    init_failed: bool,
    /// Children not yet shut down: a supervisor waits for them.
    children_alive: u32,
    /// Service times replayed from a log, in place of `service_time` for
    /// the messages of the producers they name.
    replayed: Vec<ReplayedService>,
}

/// Service times from a replayed log (`sluice run --arrivals LOG
/// --service-times log|empirical`, or a trace's `service_times`): for a message of producer `source`,
/// the time its own request took (the log's line it was made from, the low
/// 40 bits of its id) when `own`, else one of them drawn at random; the
/// messages of other producers keep the consumer's `service_time`.
#[derive(Clone, Debug)]
pub struct ReplayedService {
    pub source: NodeRef,
    pub seconds: std::sync::Arc<[f64]>,
    pub own: bool,
}

impl Consumer {
    pub fn new(spec: ConsumerSpec) -> Self {
        let phase = if spec.lifecycle.is_some() { Phase::Initializing } else { Phase::Operational };
        let mut c = Consumer {
            timeline: timeline(&spec),
            spec,
            slots: Vec::new(),
            free: Vec::new(),
            busy: 0,
            blocked: VecDeque::new(),
            phase,
            in_outage: false,
            open_workers: 0,
            slow_factor: 1.0,
            next_change: 0,
            init_failed: false,
            replayed: Vec::new(),
            children_alive: 0,
        };
        c.grow_slots();
        c.reopen();
        c
    }

    /// Works out `open_workers` again after a change of phase, outage or
    /// worker count.
    fn reopen(&mut self) {
        self.open_workers = if self.accepting() { self.spec.workers } else { 0 };
    }

    fn grow_slots(&mut self) {
        while self.slots.len() < self.spec.workers as usize {
            self.free.push(self.slots.len() as u32);
            self.slots.push(Slot::default());
        }
        // Serve from the lowest slot first, for readable traces.
        self.free.sort_unstable_by(|a, b| b.cmp(a));
    }

    pub fn spec(&self) -> &ConsumerSpec {
        &self.spec
    }

    /// The messages its workers hold.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.slots.iter().filter_map(|s| s.msg.as_ref())
    }

    pub fn busy(&self) -> u32 {
        self.busy
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn in_outage(&self) -> bool {
        self.in_outage
    }

    #[inline]
    fn accepting(&self) -> bool {
        self.phase == Phase::Operational && !self.in_outage
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.busy < self.open_workers
    }

    /// Logs the starting phase and schedules the first change.
    pub fn start(&mut self, ctx: &mut Context) {
        if self.phase == Phase::Initializing {
            ctx.log_transition(State::New, State::Initializing, Cause::Start);
        }
        self.schedule_next_change(ctx);
    }

    fn schedule_next_change(&mut self, ctx: &mut Context) {
        if let Some(&(at, _)) = self.timeline.get(self.next_change) {
            ctx.core.scheduler.schedule(at.max(ctx.core.now), ctx.node, EventKind::ConsumerPhase, self.next_change as u32);
        }
    }

    /// A scheduled change is due. Returns whether the consumer may have room
    /// it did not have before.
    pub fn on_phase(&mut self, index: u32, ctx: &mut Context) -> bool {
        if index as usize != self.next_change {
            return false;
        }
        let was_accepting = self.accepting();
        while let Some(&(at, change)) = self.timeline.get(self.next_change) {
            if at > ctx.core.now {
                break;
            }
            self.next_change += 1;
            match change {
                Change::Operational if self.phase == Phase::Initializing => {
                    self.phase = Phase::Operational;
                    ctx.log_transition(State::Initializing, State::Operational, Cause::Initialized);
                }
                Change::ShutDownBegins => {
                    self.begin_shutdown(Cause::Shutdown, ctx);
                }
                Change::InitTimeout if self.phase == Phase::Initializing => {
                    self.init_failed = true;
                    self.begin_shutdown(Cause::InitTimedOut, ctx);
                }
                Change::OutageBegins => {
                    self.in_outage = true;
                    ctx.log_transition(State::Up, State::Outage, Cause::Schedule);
                }
                Change::OutageEnds => {
                    self.in_outage = false;
                    ctx.log_transition(State::Outage, State::Up, Cause::Schedule);
                }
                Change::SlowBegins(f) => self.slow_factor = f,
                Change::SlowEnds => self.slow_factor = 1.0,
                _ => {}
            }
        }
        self.reopen();
        self.schedule_next_change(ctx);
        !was_accepting && self.accepting()
    }

    /// Starts shutting down, if it has not yet (`why` is logged). Returns
    /// whether it did.
    pub fn begin_shutdown(&mut self, why: Cause, ctx: &mut Context) -> bool {
        if !matches!(self.phase, Phase::Initializing | Phase::Operational) {
            return false;
        }
        let old = self.phase;
        self.phase = Phase::ShuttingDown;
        self.reopen();
        ctx.log_transition(old.into(), State::ShuttingDown, why);
        self.finish_shutdown_if_idle(ctx);
        true
    }

    /// Whether it gave up initializing.
    pub fn init_failed(&self) -> bool {
        self.init_failed
    }

    /// It supervises `n` children (set at the start of a run).
    pub fn set_children(&mut self, n: u32) {
        self.children_alive = n;
    }

    /// One of its children is shut down.
    pub fn child_shut_down(&mut self, ctx: &mut Context) {
        self.children_alive = self.children_alive.saturating_sub(1);
        self.finish_shutdown_if_idle(ctx);
    }

    fn finish_shutdown_if_idle(&mut self, ctx: &mut Context) {
        if self.phase == Phase::ShuttingDown && self.busy == 0 && self.children_alive == 0 {
            self.phase = Phase::ShutDown;
            self.reopen();
            ctx.log_transition(State::ShuttingDown, State::ShutDown, Cause::Drained);
        }
    }

    /// Takes new parameters while running. Schedules are fixed at the start
    /// of a run; everything else applies to the next message.
    pub fn reconfigure(&mut self, spec: ConsumerSpec) {
        let (slowdowns, outages, lifecycle) = (self.spec.slowdowns.clone(), self.spec.outages.clone(), self.spec.lifecycle.clone());
        self.spec = ConsumerSpec { slowdowns, outages, lifecycle, ..spec };
        self.grow_slots();
        self.reopen();
    }

    /// Serves the messages of a replayed producer with the log's times.
    pub fn replay_service(&mut self, replayed: ReplayedService) {
        self.replayed.retain(|r| r.source != replayed.source);
        self.replayed.push(replayed);
    }

    #[inline]
    fn begin_attempt(&mut self, slot: u32, ctx: &mut Context) {
        let Some(msg) = self.slots[slot as usize].msg else { return };
        let attempt = self.draw_attempt(ctx.rng(), &msg);
        self.slots[slot as usize].cut_off = attempt.cut_off;
        self.schedule_end(slot, attempt, ctx);
    }

    /// Draws the length of the next attempt at `msg`.
    #[inline]
    pub fn draw_attempt(&self, rng: &mut SimRng, msg: &Message) -> Attempt {
        let base = match self.replayed.iter().find(|r| r.source == msg.source) {
            Some(r) if !r.seconds.is_empty() => {
                let n = r.seconds.len();
                let k = if r.own { (msg.id & ((1 << 40) - 1)) as usize } else { ((rng.uniform() * n as f64) as usize).min(n - 1) };
                r.seconds.get(k).copied().unwrap_or(0.0)
            }
            _ => self.spec.service_time.sample(rng),
        };
        let s = base * self.slow_factor;
        let (seconds, cut_off) = match self.spec.timeout_s {
            Some(t) if s > t => (t, true),
            _ => (s, false),
        };
        Attempt { length: SimDuration::from_secs_f64(seconds), cut_off }
    }

    #[inline]
    /// Takes `msg` on a free worker; returns whether it did (a refused
    /// sender keeps the message).
    pub fn offer(&mut self, msg: Message, ctx: &mut Context) -> bool {
        if !self.has_room() {
            return false;
        }
        let Some(slot) = self.free.pop() else {
            return false;
        };
        self.occupy(slot, msg, ctx);
        self.begin_attempt(slot, ctx);
        true
    }

    /// Puts `msg` on the free worker `slot`, taken off the free list.
    #[inline]
    fn occupy(&mut self, slot: u32, msg: Message, ctx: &mut Context) {
        self.slots[slot as usize] = Slot { msg: Some(msg), started: ctx.core.now, attempts: 0, cut_off: false, ends: SimTime::MAX };
        self.busy += 1;
        ctx.stats.arrived += 1;
        ctx.stats.in_service = self.busy as u64;
        ctx.stats.depth_messages.set(ctx.core.now, self.busy as u64);
    }

    /// Whether the service in `slot` ends plainly, with nothing to do but
    /// release its message (no time-out to retry, no gate to tell), and
    /// leaves a worker free to take the next message at once.
    #[inline]
    pub fn ends_plainly(&self, slot: u32) -> bool {
        // `busy <= open_workers`: after the release, `busy < open_workers`
        // (and the consumer is operational, so the release changes no phase).
        self.busy <= self.open_workers
            && self.slots.get(slot as usize).is_some_and(|s| !s.cut_off && s.msg.is_some_and(|m| m.gates.is_empty()))
    }

    /// The worker in `slot` ended plainly (`ends_plainly`), its message
    /// delivered, and takes `next` at once, its attempt drawn beforehand
    /// (`draw_attempt`): what `release` then `offer` do, but for the
    /// scheduling of the attempt's end, left to `schedule_end`.
    #[inline]
    pub fn serve_next(&mut self, slot: u32, next: Message, attempt: Attempt, ctx: &mut Context) {
        self.release(slot, true, ctx);
        // `release` put `slot` on top of the free list.
        let reused = self.free.pop();
        debug_assert_eq!(reused, Some(slot));
        self.occupy(slot, next, ctx);
        self.slots[slot as usize].cut_off = attempt.cut_off;
    }

    /// Schedules the end of the attempt begun in `slot`.
    #[inline]
    pub fn schedule_end(&mut self, slot: u32, attempt: Attempt, ctx: &mut Context) {
        if let Some(s) = self.slots.get_mut(slot as usize) {
            s.ends = ctx.core.now + attempt.length;
        }
        ctx.schedule_in(attempt.length, EventKind::ServiceDone, slot);
    }

    /// Whether a service end for `slot` now is the one its running attempt
    /// scheduled (not one left by a service a cancellation stopped).
    pub fn ends_now(&self, slot: u32, now: SimTime) -> bool {
        self.slots.get(slot as usize).is_some_and(|s| s.msg.is_some() && s.ends == now)
    }

    /// The worker serving copy `resent` of message `id` (not holding it).
    pub fn slot_serving(&self, id: u64, resent: u8) -> Option<u32> {
        let slot = self.slots.iter().position(|s| s.msg.is_some_and(|m| m.id == id && m.resent == resent))? as u32;
        (!self.blocked.contains(&slot)).then_some(slot)
    }

    /// Stops the service in `slot` (its client cancelled the request): the
    /// worker is free, the time it spent is counted as wasted, and the
    /// message is dropped as cancelled.
    pub fn cancel(&mut self, slot: u32, ctx: &mut Context) {
        let Some(msg) = self.message(slot).copied() else { return };
        if let Some((_, started)) = self.free_slot(slot, ctx) {
            let tally = ctx.stats.client_mut();
            tally.wasted += 1;
            tally.wasted_ns += ctx.core.now.since(started).as_nanos() as u128;
        }
        ctx.drop_message(msg, DropReason::Cancelled);
    }

    /// A worker's service (or its time-out) ended.
    ///
    /// The slot is read where it lies rather than copied out: a message
    /// copied whole and then read field by field made the processor wait
    /// for the copy (a store read back in other widths than written).
    #[inline]
    pub fn on_service_done(&mut self, slot: u32, ctx: &mut Context) -> Served {
        let Some(s) = self.slots.get_mut(slot as usize) else { return Served::Nothing };
        // Had: another end now (a cancelled service's) is stale.
        s.ends = SimTime::MAX;
        let Some(msg) = &s.msg else { return Served::Nothing };
        if s.cut_off {
            if self.spec.on_timeout == OnTimeout::Requeue {
                let mut msg = *msg;
                self.free_slot(slot, ctx);
                if (msg.attempts as u32) < self.spec.max_retries {
                    msg.attempts += 1;
                    return Served::Requeue(msg);
                }
                ctx.drop_message(msg, DropReason::TimedOut);
                return Served::GaveUp;
            }
            s.attempts += 1;
            if s.attempts <= self.spec.max_retries {
                self.begin_attempt(slot, ctx);
                return Served::Retried;
            }
            let msg = *msg;
            self.free_slot(slot, ctx);
            ctx.drop_message(msg, DropReason::TimedOut);
            return Served::GaveUp;
        }
        if !msg.gates.is_empty() {
            if !ctx.core.abandoned.is_empty() && ctx.core.abandoned.contains_key(&(msg.id, msg.resent)) {
                // Served for a client that no longer waits.
                let tally = ctx.stats.client.get_or_insert_with(Default::default);
                tally.wasted += 1;
                tally.wasted_ns += ctx.core.now.since(s.started).as_nanos() as u128;
            }
            ctx.core.outbox.push(Notice::Processed(*msg));
        }
        Served::Done
    }

    /// Empties the busy `slot` without serving its message, which it
    /// returns: an RPC whose host went down while it was under way.
    pub fn abandon(&mut self, slot: u32, ctx: &mut Context) -> Option<Message> {
        let msg = *self.slots.get(slot as usize)?.msg.as_ref()?;
        self.free_slot(slot, ctx);
        Some(msg)
    }

    /// The message a worker holds, served or not.
    #[inline]
    pub fn message(&self, slot: u32) -> Option<&Message> {
        self.slots.get(slot as usize)?.msg.as_ref()
    }

    /// Empties a busy slot. Returns when its message was created and when
    /// its service began.
    #[inline]
    fn free_slot(&mut self, slot: u32, ctx: &mut Context) -> Option<(SimTime, SimTime)> {
        let s = self.slots.get_mut(slot as usize)?;
        let created = s.msg.as_ref()?.created;
        let started = s.started;
        s.msg = None;
        self.busy -= 1;
        self.free.push(slot);
        ctx.stats.in_service = self.busy as u64;
        ctx.stats.depth_messages.set(ctx.core.now, self.busy as u64);
        self.finish_shutdown_if_idle(ctx);
        Some((created, started))
    }

    /// The worker in `slot` is done with its message: delivered (`sink`)
    /// or taken by the next block.
    #[inline]
    pub fn release(&mut self, slot: u32, sink: bool, ctx: &mut Context) {
        if let Some((created, started)) = self.free_slot(slot, ctx) {
            ctx.stats.departed += 1;
            ctx.stats.residence_ns += ctx.core.now.since(started).as_nanos() as u128;
            if sink {
                let sojourn = ctx.core.now.since(created);
                ctx.stats.sojourn_ns += sojourn.as_nanos() as u128;
                ctx.stats.record_duration(sojourn);
            }
        }
    }

    /// The next block refused the message in `slot`: the worker holds it.
    pub fn hold(&mut self, slot: u32) {
        if !self.blocked.contains(&slot) {
            self.blocked.push_back(slot);
        }
    }

    /// The slot of the oldest held message, to offer again when woken.
    pub fn next_held(&mut self) -> Option<u32> {
        let slot = self.blocked.pop_front()?;
        self.message(slot).is_some().then_some(slot)
    }

    pub fn has_held(&self) -> bool {
        !self.blocked.is_empty()
    }
}

/// Every scheduled change of a consumer, in time order.
fn timeline(spec: &ConsumerSpec) -> Vec<(SimTime, Change)> {
    let at = SimTime::from_secs_f64;
    let mut changes = Vec::new();
    if let Some(l) = &spec.lifecycle {
        // At one instant, becoming operational comes first: an actor that
        // initializes exactly at its time-out made it.
        changes.push((at(l.initializing_s), Change::Operational));
        if let Some(t) = l.init_timeout_s.filter(|&t| t < l.initializing_s) {
            changes.push((at(t), Change::InitTimeout));
        }
        if let Some(s) = l.shutdown_at_s {
            changes.push((at(s), Change::ShutDownBegins));
        }
    }
    for p in &spec.outages {
        changes.push((at(p.from_s), Change::OutageBegins));
        changes.push((at(p.to_s), Change::OutageEnds));
    }
    for s in &spec.slowdowns {
        changes.push((at(s.from_s), Change::SlowBegins(s.factor)));
        changes.push((at(s.to_s), Change::SlowEnds));
    }
    // Stable: at one instant, lifecycle before outages before slow-downs.
    changes.sort_by_key(|(t, _)| *t);
    changes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::bench::{refusals, Bench};

    fn consumer(spec: serde_json::Value, b: &mut Bench) -> Consumer {
        let mut c = Consumer::new(crate::plumbing::json_read::from_value(&spec).unwrap());
        c.start(&mut b.ctx());
        c
    }

    /// Runs the consumer's own events up to `until` seconds, releasing
    /// every message served; (instant, what came of it) for each.
    fn run(c: &mut Consumer, b: &mut Bench, until: f64) -> Vec<(f64, &'static str)> {
        let mut out = Vec::new();
        while let Some(t) = b.core.scheduler.peek_time().filter(|t| t.as_secs_f64() <= until) {
            let event = b.core.scheduler.pop().unwrap();
            b.core.now = t;
            let what = match event.kind() {
                EventKind::ServiceDone => match c.on_service_done(event.data, &mut b.ctx()) {
                    Served::Done => {
                        c.release(event.data, true, &mut b.ctx());
                        "done"
                    }
                    Served::Retried => "retried",
                    Served::GaveUp => "gave up",
                    _ => "other",
                },
                _ => {
                    c.on_phase(event.data, &mut b.ctx());
                    "phase"
                }
            };
            out.push((t.as_secs_f64(), what));
        }
        out
    }

    #[test]
    fn it_serves_at_most_workers_at_once_each_for_its_service_time() {
        let mut b = Bench::new();
        let mut c = consumer(json!({"workers": 2, "service_time": {"dist": "fixed", "value": 0.5}}), &mut b);
        let (m1, m2, m3) = (b.message(100, 0), b.message(100, 0), b.message(100, 0));
        assert!(c.offer(m1, &mut b.ctx()) && c.offer(m2, &mut b.ctx()));
        assert!(!c.offer(m3, &mut b.ctx()), "both workers busy: refused");
        assert_eq!(run(&mut c, &mut b, 10.0), [(0.5, "done"), (0.5, "done")]);
        assert!(c.offer(m3, &mut b.ctx()));
        assert_eq!(run(&mut c, &mut b, 10.0), [(1.0, "done")]);
        assert_eq!((b.stats.arrived, b.stats.departed), (3, 3));
    }

    #[test]
    fn a_service_longer_than_the_time_out_is_cut_off_retried_and_then_dropped() {
        let mut b = Bench::new();
        let spec = json!({"workers": 1, "service_time": {"dist": "fixed", "value": 2.0}, "timeout_s": 0.5, "max_retries": 2});
        let mut c = consumer(spec, &mut b);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert_eq!(run(&mut c, &mut b, 10.0), [(0.5, "retried"), (1.0, "retried"), (1.5, "gave up")]);
        assert_eq!(b.stats.dropped[DropReason::TimedOut as usize], 1);
        assert!(c.has_room());
    }

    #[test]
    fn an_outage_takes_no_new_work_but_finishes_what_it_holds() {
        let mut b = Bench::new();
        let spec = json!({"workers": 2, "service_time": {"dist": "fixed", "value": 1.0}, "outages": [{"from_s": 0.5, "to_s": 2.0}]});
        let mut c = consumer(spec, &mut b);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert!(!c.in_outage());
        let seen = run(&mut c, &mut b, 0.5);
        assert_eq!(seen, [(0.5, "phase")]);
        assert!(c.in_outage());
        let late = b.message(100, 0);
        assert!(!c.offer(late, &mut b.ctx()), "in an outage");
        assert_eq!(run(&mut c, &mut b, 1.0), [(1.0, "done")], "the work under way finishes");
        run(&mut c, &mut b, 2.0);
        assert!(!c.in_outage());
        assert!(c.offer(late, &mut b.ctx()), "back at 2 s");
    }

    #[test]
    fn a_slow_down_multiplies_service_times_only_while_it_lasts() {
        let mut b = Bench::new();
        let spec = json!({"workers": 1, "service_time": {"dist": "fixed", "value": 0.5},
            "slowdowns": [{"from_s": 0.0, "to_s": 1.0, "factor": 3.0}]});
        let mut c = consumer(spec, &mut b);
        assert_eq!(run(&mut c, &mut b, 0.0), [(0.0, "phase")]);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert_eq!(run(&mut c, &mut b, 10.0), [(1.0, "phase"), (1.5, "done")], "three times 0.5 s, begun while slow");
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert_eq!(run(&mut c, &mut b, 10.0), [(2.0, "done")], "0.5 s once the slow-down is over");
    }

    #[test]
    fn a_change_says_whether_it_gave_room_that_was_not_there() {
        let mut b = Bench::new();
        let spec = json!({"service_time": {"dist": "fixed", "value": 1.0}, "outages": [{"from_s": 1.0, "to_s": 2.0}],
            "slowdowns": [{"from_s": 0.5, "to_s": 0.75, "factor": 2.0}]});
        let mut c = consumer(spec, &mut b);
        let mut phases = Vec::new();
        while let Some(t) = b.core.scheduler.peek_time() {
            let event = b.core.scheduler.pop().unwrap();
            b.core.now = t;
            phases.push((t.as_secs_f64(), c.on_phase(event.data, &mut b.ctx())));
        }
        assert_eq!(
            phases,
            [(0.5, false), (0.75, false), (1.0, false), (2.0, true)],
            "a slow-down gives no room; an outage's start takes it away; its end gives it back"
        );
    }

    #[test]
    fn a_live_change_applies_to_the_next_message_and_keeps_the_schedules_of_the_start() {
        let mut b = Bench::new();
        let mut c = consumer(json!({"workers": 1, "service_time": {"dist": "fixed", "value": 1.0}}), &mut b);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert!(!c.has_room());
        let changed = json!({"workers": 2, "service_time": {"dist": "fixed", "value": 0.25},
            "outages": [{"from_s": 0.5, "to_s": 0.75}], "slowdowns": [{"from_s": 0.0, "to_s": 9.0, "factor": 4.0}],
            "lifecycle": {"initializing_s": 3.0}});
        c.reconfigure(crate::plumbing::json_read::from_value(&changed).unwrap());
        assert!(c.has_room(), "a second worker");
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert_eq!(run(&mut c, &mut b, 10.0), [(0.25, "done"), (1.0, "done")], "the new service time for the next message");
        let spec = c.spec();
        assert!(spec.outages.is_empty() && spec.slowdowns.is_empty() && spec.lifecycle.is_none(), "schedules are fixed at the start: {spec:?}");
        assert!(!c.init_failed());
    }

    #[test]
    fn an_actor_still_initializing_at_its_time_out_has_failed() {
        let mut b = Bench::new();
        let spec = json!({"service_time": {"dist": "fixed", "value": 1.0}, "lifecycle": {"initializing_s": 2.0, "init_timeout_s": 1.0}});
        let mut c = consumer(spec, &mut b);
        assert!(!c.init_failed());
        run(&mut c, &mut b, 10.0);
        assert!(c.init_failed());
    }

    #[test]
    fn a_service_as_long_as_the_time_out_is_not_cut_off() {
        let mut b = Bench::new();
        let spec = json!({"workers": 1, "service_time": {"dist": "fixed", "value": 0.5}, "timeout_s": 0.5, "max_retries": 2});
        let mut c = consumer(spec, &mut b);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert_eq!(run(&mut c, &mut b, 10.0), [(0.5, "done")]);
    }

    /// The slot and instant of the next end of service.
    fn next_end(b: &mut Bench) -> (u32, f64) {
        let t = b.core.scheduler.peek_time().unwrap();
        let event = b.core.scheduler.pop().unwrap();
        b.core.now = t;
        (event.data, t.as_secs_f64())
    }

    #[test]
    fn a_job_sent_back_to_its_queue_is_given_up_after_its_retries() {
        let mut b = Bench::new();
        let spec = json!({"service_time": {"dist": "fixed", "value": 1.0}, "timeout_s": 0.25, "max_retries": 2, "on_timeout": "requeue"});
        let mut c = consumer(spec, &mut b);
        let mut m = b.message(100, 0);
        let mut sent_back = 0;
        loop {
            assert!(c.offer(m, &mut b.ctx()));
            let (slot, _) = next_end(&mut b);
            match c.on_service_done(slot, &mut b.ctx()) {
                Served::Requeue(again) => {
                    sent_back += 1;
                    assert_eq!(again.attempts, sent_back, "each time back counts one attempt more");
                    assert!(c.has_room(), "the worker is free at once");
                    m = again;
                }
                Served::GaveUp => break,
                _ => panic!("cut off each time"),
            }
            assert!(sent_back <= 2, "two retries, then given up");
        }
        assert_eq!((sent_back, b.stats.dropped[DropReason::TimedOut as usize]), (2, 1));
    }

    #[test]
    fn a_service_ends_plainly_unless_cut_off_or_its_worker_is_gone() {
        let mut b = Bench::new();
        let spec = json!({"workers": 2, "service_time": {"dist": "fixed", "value": 1.0}, "timeout_s": 2.0});
        let mut c = consumer(spec, &mut b);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        let (slot, _) = next_end(&mut b);
        assert!(c.ends_plainly(slot));
        assert!(!c.ends_plainly(slot + 1), "an empty slot");
        // Fewer workers than busy ones: the release leaves none free.
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        c.reconfigure(crate::plumbing::json_read::from_value(&json!({"workers": 1, "service_time": {"dist": "fixed", "value": 1.0}, "timeout_s": 2.0})).unwrap());
        assert!(!c.ends_plainly(slot), "two busy, one worker left");
        // Cut off by the time-out: a retry, not a plain end.
        let mut b = Bench::new();
        let mut c = consumer(json!({"service_time": {"dist": "fixed", "value": 1.0}, "timeout_s": 0.5, "max_retries": 1}), &mut b);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        let (slot, _) = next_end(&mut b);
        assert!(!c.ends_plainly(slot));
    }

    /// A service a cancellation stopped leaves its end scheduled. Should
    /// the worker's next service end at that very instant, the first of
    /// the two ends serves it and the other is stale, even while the
    /// served message is held for a next block that refused it.
    #[test]
    fn once_a_service_end_is_had_another_at_that_instant_is_stale() {
        let mut b = Bench::new();
        let mut c = consumer(serde_json::json!({"service_time": {"dist": "fixed", "value": 0.0}}), &mut b);
        let a = b.message(10, 0);
        assert!(c.offer(a, &mut b.ctx()));
        c.cancel(0, &mut b.ctx());
        let next = b.message(10, 0);
        assert!(c.offer(next, &mut b.ctx()));
        assert!(c.ends_now(0, b.core.now), "the next service ends now too");
        assert!(matches!(c.on_service_done(0, &mut b.ctx()), Served::Done));
        c.hold(0);
        assert!(!c.ends_now(0, b.core.now), "its end had, the slot holds its message: another end now is stale");
        assert_eq!(c.message(0).map(|m| m.id), Some(next.id));
    }

    #[test]
    fn an_abandoned_service_gives_its_message_back_and_frees_its_worker() {
        let mut b = Bench::new();
        let mut c = consumer(json!({"service_time": {"dist": "fixed", "value": 1.0}}), &mut b);
        let m = b.message(100, 0);
        assert!(c.offer(m, &mut b.ctx()));
        assert!(!c.has_room());
        assert_eq!(c.abandon(0, &mut b.ctx()).map(|m| m.id), Some(m.id));
        assert!(c.has_room());
        assert_eq!(c.abandon(0, &mut b.ctx()), None, "nothing left to abandon");
    }

    #[test]
    fn what_workers_hold_is_counted_and_offered_again_oldest_first() {
        let mut b = Bench::new();
        let mut c = consumer(json!({"workers": 3, "service_time": {"dist": "fixed", "value": 0.5}}), &mut b);
        for _ in 0..3 {
            let m = b.message(100, 0);
            assert!(c.offer(m, &mut b.ctx()));
        }
        let ends: Vec<(u32, f64)> = (0..3).map(|_| next_end(&mut b)).collect();
        // The next block refuses two of them: held, once each.
        assert!(!c.has_held());
        c.hold(ends[1].0);
        c.hold(ends[0].0);
        c.hold(ends[1].0);
        assert!(c.has_held());
        assert_eq!(c.next_held(), Some(ends[1].0));
        // One of the held is abandoned meanwhile: not offered again.
        c.abandon(ends[0].0, &mut b.ctx());
        assert_eq!(c.next_held(), None);
        assert!(!c.has_held());
        // Two released at 0.5 s after 0.5 s of service each.
        c.release(ends[1].0, true, &mut b.ctx());
        c.release(ends[2].0, false, &mut b.ctx());
        assert_eq!(b.stats.residence_ns, 1_000_000_000, "the services' times add up");
        assert_eq!(b.stats.departed, 2);
        assert_eq!(b.stats.sojourn_ns, 500_000_000, "only the delivered one's sojourn");
    }

    #[test]
    fn an_actor_that_initializes_exactly_at_its_time_out_made_it() {
        let mut b = Bench::new();
        let spec = json!({"service_time": {"dist": "fixed", "value": 1.0}, "lifecycle": {"initializing_s": 1.0, "init_timeout_s": 1.0}});
        let mut c = consumer(spec, &mut b);
        run(&mut c, &mut b, 10.0);
        assert!(!c.init_failed());
        assert!(c.has_room(), "operational");
    }

    #[test]
    fn its_bounds_are_refused_past_their_edges_and_taken_at_them() {
        let with = |extra: serde_json::Value| {
            let mut spec = json!({"service_time": {"dist": "fixed", "value": 1.0}});
            spec.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            refusals(spec, ConsumerSpec::validate)
        };
        for taken in [
            json!({"workers": 1}),
            json!({"workers": MAX_WORKERS}),
            json!({"max_retries": 1000}),
            json!({"max_retries": 256}),
            json!({"max_retries": 255, "on_timeout": "requeue"}),
            json!({"timeout_s": 1e-9}),
            json!({"slowdowns": [{"from_s": 0.0, "to_s": 1.0, "factor": 1e-3}]}),
            json!({"lifecycle": {"initializing_s": 2.0, "shutdown_at_s": 2.0, "init_timeout_s": 0.0}}),
        ] {
            assert_eq!(with(taken.clone()), Vec::<String>::new(), "{taken}");
        }
        for (field, refused) in [
            ("workers", json!({"workers": 0})),
            ("workers", json!({"workers": MAX_WORKERS + 1})),
            ("max_retries", json!({"max_retries": 1001})),
            ("max_retries", json!({"max_retries": 256, "on_timeout": "requeue"})),
            ("timeout_s", json!({"timeout_s": 0.0})),
            ("slowdowns[0].factor", json!({"slowdowns": [{"from_s": 0.0, "to_s": 1.0, "factor": 9e-4}]})),
            ("lifecycle.shutdown_at_s", json!({"lifecycle": {"initializing_s": 2.0, "shutdown_at_s": 1.999}})),
            ("lifecycle.init_timeout_s", json!({"lifecycle": {"init_timeout_s": -1.0}})),
            ("outages", json!({"outages": [{"from_s": 3.0, "to_s": 1.0}]})),
        ] {
            let found = with(refused.clone());
            assert!(found.len() == 1 && found[0].contains(&format!("nodes[0].{field}")), "{refused}: {found:?}");
        }
    }

    #[test]
    fn a_time_out_that_requeues_is_written_and_one_that_retries_is_the_default() {
        let mut spec: ConsumerSpec = crate::plumbing::json_read::from_value(&json!({"service_time": {"dist": "fixed", "value": 1.0}})).unwrap();
        assert_eq!(spec.on_timeout, OnTimeout::Retry);
        assert!(serde_json::to_value(&spec).unwrap().get("on_timeout").is_none());
        spec.on_timeout = OnTimeout::Requeue;
        assert_eq!(serde_json::to_value(&spec).unwrap()["on_timeout"], "requeue");
    }
}
