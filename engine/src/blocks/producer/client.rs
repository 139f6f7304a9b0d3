//! Client: the requests a producer's clients wait for, the time-out after
//! which a client gives up on an attempt, and its retries.
//!
//! Guarantees:
//! - With `timeout_s` or `retries`, each request is waited for from the
//!   instant it is made. Its client hears when a consumer finishes serving
//!   it (answered: the goodput) or when it is dropped anywhere on the way
//!   (an error answer, such as a refusal or an overflow).
//! - `timeout_s` bounds each attempt: at the time-out a client gives up on
//!   the attempt; an answer to it after that is late and goes nowhere. An
//!   answer at the very instant of the time-out counts if the simulation
//!   handles it first (events at one instant go in the order they were
//!   scheduled).
//! - An attempt given up or answered with an error is tried again when
//!   `retries` allow it (`retry.rs`): the same request, a new copy of it
//!   (`Message::resent` one more), sent after the back-off. Otherwise the
//!   request is over: `timed_out` or `failed`. A closed loop's client
//!   thinks and sends a new request only once its request is over.
//! - An attempt given up before it left the producer (held after a refusal,
//!   or in the backlog of a paused producer) is never sent: it is dropped
//!   there as `cancelled`, whatever `on_timeout` says.
//! - An attempt given up on the way stays where it is, marked as abandoned
//!   (`Core::abandoned`). Under `on_timeout: work_on` the server serves it
//!   as if its client waited: a consumer counts that service as wasted.
//!   Under `cancel` it is dropped as `cancelled` where it next surfaces (as
//!   it is offered to its next block, or at once if a consumer's worker is
//!   serving it: the worker is freed, the time it spent counted as wasted).
//!   A request waiting in a dispatcher's demand queue or served by its
//!   pool is finished.
//! - A live change of `on_timeout` applies to the attempts given up
//!   already, as they next surface (one in service finishes).
//! - The time-out in force when an attempt is sent is its own: a live
//!   change applies to attempts sent after it; a time-out removed live
//!   lets the attempts already out wait for ever. Retries decided before a
//!   live change of `retries` are sent.
//! - One timer event is scheduled at a time, at the earliest deadline or
//!   retry still due.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use super::retry::BudgetState;
use super::spec::{OnGiveUp, ProducerSpec};
use super::{Producer, ProducerAction};
use crate::context::Context;
use crate::message::{Gates, Message};
use crate::metrics::DropReason;
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

/// One copy of a request, as `Core::abandoned` keys it: its id and how
/// often it had been sent again.
pub type CopyId = (u64, u8);

/// A request not yet over.
#[derive(Clone, Copy, Debug)]
struct Request {
    /// The copy out now, or the last one sent (while backing off).
    msg: Message,
    /// Whether a copy is out and waited for (else: backing off).
    out: bool,
    /// Out: when the client gives up on it (`SimTime::MAX`: never).
    /// Backing off: when the next copy is sent.
    at: SimTime,
    /// The wait before the last retry, in seconds (decorrelated jitter
    /// draws from it).
    last_wait_s: f64,
    /// Whether it holds one of the retries active in Envoy's budget: from
    /// the decision to retry until the retried attempt's outcome is known.
    retry_active: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Client {
    requests: BTreeMap<u64, Request>,
    /// Deadlines and retries with the request they are for; one whose
    /// request no longer has that instant is skipped when it comes up.
    timers: BinaryHeap<Reverse<(SimTime, u64)>>,
    /// When the timer event now scheduled fires, if one is: an event at
    /// another instant is an older timer's, and ignored.
    timer_at: Option<SimTime>,
    budget: BudgetState,
    /// Attempts out now.
    in_flight: u64,
}

/// How a client took an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// The request is over: answered, failed for good, or one it did not
    /// know (made before it waited for answers).
    Over,
    /// The request goes on: an error it tries again after.
    Retrying,
    /// An answer to a copy it had given up on: nothing more happens.
    Late,
}

/// What a producer's time-outs gave up, for the simulation to pass on.
#[derive(Debug, Default)]
pub struct GivenUp {
    /// The copies given up that had left the producer, the earliest
    /// deadline first.
    pub sent: Vec<CopyId>,
    /// Whether their server is told (`on_timeout: cancel`).
    pub cancel: bool,
    /// Copies to send again now.
    pub resend: Vec<Message>,
}

/// What the timer did.
#[derive(Debug, Default)]
pub struct Timed {
    /// The copies given up, the earliest deadline first.
    pub given_up: Vec<CopyId>,
    /// Copies to send again now.
    pub resend: Vec<Message>,
    /// Requests now over (given up with no retry left).
    pub over: u32,
}

impl Client {
    /// Whether it waits for `msg`'s copy.
    pub fn waits_for(&self, msg: &Message) -> bool {
        self.requests.get(&msg.id).is_some_and(|r| r.out && r.msg.resent == msg.resent)
    }

    /// Starts waiting for `msg`, made or sent again now.
    pub fn wait_for(&mut self, msg: &Message, spec: &ProducerSpec, ctx: &mut Context) {
        let at = deadline(spec, ctx);
        let (last_wait_s, retry_active) = match self.requests.get(&msg.id) {
            Some(r) => (r.last_wait_s, r.retry_active),
            None => (spec.retries.as_ref().map_or(0.0, |r| r.base_s), false),
        };
        self.requests.insert(msg.id, Request { msg: *msg, out: true, at, last_wait_s, retry_active });
        self.in_flight += 1;
        self.set_timer(msg.id, at, ctx);
    }

    fn set_timer(&mut self, id: u64, at: SimTime, ctx: &mut Context) {
        if at < SimTime::MAX {
            self.timers.push(Reverse((at, id)));
            self.arm(ctx);
        }
    }

    /// Waits for ever for the attempts out now (the time-out was removed).
    pub fn wait_for_ever(&mut self) {
        for r in self.requests.values_mut().filter(|r| r.out) {
            r.at = SimTime::MAX;
        }
    }

    /// Schedules the timer at the earliest live instant, if it is not
    /// already set at or before it.
    fn arm(&mut self, ctx: &mut Context) {
        while let Some(&Reverse((at, id))) = self.timers.peek() {
            if self.requests.get(&id).is_some_and(|r| r.at == at) {
                if self.timer_at.is_none_or(|t| at < t) {
                    self.timer_at = Some(at);
                    ctx.core.scheduler.schedule(at.max(ctx.core.now), ctx.node, EventKind::ClientTimer, 0);
                }
                return;
            }
            self.timers.pop();
        }
    }

    /// The timer event: gives up the attempts whose deadline came, trying
    /// each again if its retries allow, and sends again the copies whose
    /// back-off is over; then sets the timer for the next.
    pub fn on_timer(&mut self, spec: &ProducerSpec, ctx: &mut Context) -> Timed {
        let now = ctx.core.now;
        let mut timed = Timed::default();
        if self.timer_at != Some(now) {
            return timed;
        }
        self.timer_at = None;
        while let Some(&Reverse((at, id))) = self.timers.peek() {
            if at > now {
                break;
            }
            self.timers.pop();
            let Some(r) = self.requests.get(&id).copied().filter(|r| r.at == at) else { continue };
            if r.out {
                timed.given_up.push((id, r.msg.resent));
                if !self.attempt_failed(id, true, spec, ctx) {
                    ctx.stats.client_mut().timed_out += 1;
                    timed.over += 1;
                }
            } else {
                let mut copy = r.msg;
                copy.resent += 1;
                ctx.stats.client_mut().resent += 1;
                self.wait_for(&copy, spec, ctx);
                timed.resend.push(copy);
            }
        }
        self.arm(ctx);
        timed
    }

    /// The attempt out for request `id` failed (`timed_out`, or answered
    /// with an error). Returns whether it is tried again (backing off);
    /// if not, the request is forgotten.
    fn attempt_failed(&mut self, id: u64, timed_out: bool, spec: &ProducerSpec, ctx: &mut Context) -> bool {
        let Some(mut r) = self.requests.remove(&id) else { return false };
        self.attempt_ended(&mut r, false, spec);
        let Some(retries) = spec.retries.as_ref() else { return false };
        let again = retries.retries_on(timed_out)
            && u32::from(r.msg.resent) + 1 < retries.max_attempts
            && self.budget.allows(retries.budget.as_ref(), self.in_flight);
        if !again {
            return false;
        }
        let wait_s = retries.wait_s(u32::from(r.msg.resent) + 1, r.last_wait_s, ctx.rng());
        r.last_wait_s = wait_s;
        r.out = false;
        r.at = ctx.core.now + SimDuration::from_secs_f64(wait_s);
        r.retry_active = true;
        self.budget.active_retries += 1;
        self.requests.insert(id, r);
        self.set_timer(id, r.at, ctx);
        true
    }

    /// An attempt's outcome is known: it is no longer out, the retry it
    /// was (if one) is no longer active, and gRPC's tokens move.
    fn attempt_ended(&mut self, r: &mut Request, ok: bool, spec: &ProducerSpec) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if std::mem::take(&mut r.retry_active) {
            self.budget.active_retries = self.budget.active_retries.saturating_sub(1);
        }
        self.budget.attempt_ended(spec.retries.as_ref().and_then(|r| r.budget.as_ref()), ok);
    }

    /// A copy of a request was answered (`processed`) or dropped on the
    /// way. The timer gives every attempt up at its deadline's instant, so
    /// one still waited for is in time; an answer to a copy given up on is
    /// late.
    pub fn answer(&mut self, msg: &Message, processed: bool, spec: &ProducerSpec, ctx: &mut Context) -> Heard {
        if !self.waits_for(msg) {
            if ctx.core.abandoned.remove(&(msg.id, msg.resent)).is_none() {
                // Made before its producer waited for answers.
                return Heard::Over;
            }
            if processed {
                ctx.stats.client_mut().late += 1;
            }
            return Heard::Late;
        }
        if !processed {
            if self.attempt_failed(msg.id, false, spec, ctx) {
                return Heard::Retrying;
            }
            ctx.stats.client_mut().failed += 1;
            return Heard::Over;
        }
        if let Some(mut r) = self.requests.remove(&msg.id) {
            self.attempt_ended(&mut r, true, spec);
        }
        ctx.stats.client_mut().answered += 1;
        ctx.stats.record_duration(ctx.core.now.since(msg.created));
        Heard::Over
    }
}

/// When an attempt sent now is given up.
fn deadline(spec: &ProducerSpec, ctx: &Context) -> SimTime {
    match spec.timeout_s {
        Some(t) => ctx.core.now + SimDuration::from_secs_f64(t),
        None => SimTime::MAX,
    }
}

/// What a producer does for its clients: hears their answers, gives up
/// and sends again as their timer says.
impl Producer {
    /// Its request `msg` was answered (`processed`) or dropped on the way:
    /// a closed loop's client thinks and sends again, unless it had given
    /// up on it already.
    pub fn on_answer(&mut self, msg: &Message, processed: bool, ctx: &mut Context) {
        let heard = match &mut self.client {
            Some(client) => client.answer(msg, processed, &self.spec, ctx),
            None => Heard::Over,
        };
        if heard == Heard::Over && self.is_closed_loop() {
            self.on_request_done(ctx);
        }
    }

    /// The client timer: its clients give up the attempts whose time-out
    /// came and send again those whose back-off is over. A copy given up
    /// still here is dropped unsent; one on the way is left abandoned
    /// where it is. Returns the copies on the way it cancels (`on_timeout:
    /// cancel`), for the simulation to stop where a worker serves one, and
    /// the copies to send again.
    pub fn on_client_timer(&mut self, ctx: &mut Context) -> GivenUp {
        let Some(client) = &mut self.client else { return GivenUp::default() };
        let timed = client.on_timer(&self.spec, ctx);
        if self.is_closed_loop() {
            // Each client whose request is over thinks and sends again.
            for _ in 0..timed.over {
                self.on_request_done(ctx);
            }
        }
        let mut sent = timed.given_up;
        let cancel = self.spec.on_timeout == OnGiveUp::Cancel;
        sent.retain(|&(id, resent)| {
            if self.give_up_held(id, resent, ctx) {
                return false;
            }
            ctx.core.abandoned.insert((id, resent), cancel);
            true
        });
        GivenUp { sent, cancel, resend: timed.resend }
    }

    /// A copy of a request sent again: offered now, or kept behind what
    /// waits in the producer.
    pub fn resend(&mut self, msg: Message, ctx: &mut Context) -> ProducerAction {
        if self.may_send_made() && self.backlog.is_empty() {
            return ProducerAction::Offer(msg);
        }
        self.backlog.push_back(msg);
        self.backlog_bytes += msg.size_bytes as u64;
        self.record_depth(ctx);
        self.flush_if_free(ctx);
        ProducerAction::Nothing
    }

    /// Drops the copy `(id, resent)` if it is still here (held after a
    /// refusal, or in the backlog), unsent. Returns whether it was.
    fn give_up_held(&mut self, id: u64, resent: u8, ctx: &mut Context) -> bool {
        let is_it = |m: &Message| m.id == id && m.resent == resent;
        let msg = if self.held.as_ref().is_some_and(is_it) {
            self.held.take()
        } else if let Some(i) = self.backlog.iter().position(is_it) {
            let msg = self.backlog.remove(i);
            if let Some(m) = &msg {
                self.backlog_bytes -= m.size_bytes as u64;
            }
            msg
        } else {
            None
        };
        let Some(mut msg) = msg else { return false };
        // Nothing more to hear of it: the client gave up.
        msg.gates = Gates::default();
        ctx.drop_message(msg, DropReason::Cancelled);
        self.record_depth(ctx);
        self.restart_if_idle(ctx);
        true
    }
}
