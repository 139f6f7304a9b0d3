//! Client: the requests a producer's clients wait for, and the time-out
//! after which a client gives up on one.
//!
//! Guarantees:
//! - With `timeout_s`, each request is waited for from the instant it is
//!   made. Its client hears when a consumer finishes serving it (answered:
//!   the goodput) or when it is dropped anywhere on the way (failed: an
//!   error answer, such as a refusal or an overflow).
//! - At the time-out a client gives up (`timed_out`); an answer after that
//!   is late: it goes nowhere. An answer at the very instant of the
//!   time-out counts if the simulation handles it first (events at one
//!   instant go in the order they were scheduled). A closed loop's client
//!   that gave up thinks and sends again, as after an answer.
//! - A request given up before it left the producer (held after a refusal,
//!   or in the backlog of a paused producer) is never sent: it is dropped
//!   there as `cancelled`, whatever `on_timeout` says.
//! - A request given up on the way stays where it is, marked as abandoned
//!   (`Core::abandoned`). Under `on_timeout: work_on` the server serves it
//!   as if its client waited: a consumer counts that service as wasted.
//!   Under `cancel` it is dropped as `cancelled` where it next surfaces (as
//!   it is offered to its next block, or at once if a consumer's worker is
//!   serving it: the worker is freed, the time it spent counted as wasted).
//!   A request in a dispatcher's pool is finished.
//! - A live change of `on_timeout` applies to the requests given up
//!   already, as they next surface (one in service finishes).
//! - The time-out in force when a request is made is its own: a live
//!   change applies to the requests made after it; a time-out removed live
//!   lets the requests already waiting wait for ever.
//! - One timer event is scheduled at a time, at the earliest deadline of a
//!   request still waited for.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use crate::context::Context;
use crate::message::Message;
use crate::scheduler::EventKind;
use crate::time::{SimDuration, SimTime};

/// One copy of a request, as `Core::abandoned` keys it: its id and how
/// often it had been sent again.
pub type CopyId = (u64, u8);

/// A request its client waits for.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    /// When the client gives up (`SimTime::MAX`: never).
    deadline: SimTime,
    /// The copy it waits for.
    resent: u8,
}

#[derive(Debug, Default)]
pub struct Client {
    waiting: BTreeMap<u64, Waiting>,
    /// Deadlines with the request they are for; one whose request is no
    /// longer waited for with that deadline is skipped when it comes up.
    deadlines: BinaryHeap<Reverse<(SimTime, u64)>>,
    /// When the timer event now scheduled fires, if one is: an event at
    /// another instant is an older timer's, and ignored.
    timer_at: Option<SimTime>,
}

/// How a client took an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// The answer (or error) to a request it waited for; or to one it did
    /// not know (made before it waited for answers): the request is over.
    Over,
    /// An answer to a copy it had given up on: nothing more happens.
    Late,
}

impl Client {
    /// Whether it waits for `msg`'s copy.
    pub fn waits_for(&self, msg: &Message) -> bool {
        self.waiting.get(&msg.id).is_some_and(|w| w.resent == msg.resent)
    }

    /// Starts waiting for `msg`, made now, for `timeout` (`None`: for ever).
    pub fn wait_for(&mut self, msg: &Message, timeout: Option<f64>, ctx: &mut Context) {
        let deadline = match timeout {
            Some(t) => ctx.core.now + SimDuration::from_secs_f64(t),
            None => SimTime::MAX,
        };
        self.waiting.insert(msg.id, Waiting { deadline, resent: msg.resent });
        if deadline < SimTime::MAX {
            self.deadlines.push(Reverse((deadline, msg.id)));
            self.arm(ctx);
        }
    }

    /// Waits for ever for the requests waited for now (the time-out was
    /// removed).
    pub fn wait_for_ever(&mut self) {
        for w in self.waiting.values_mut() {
            w.deadline = SimTime::MAX;
        }
        self.deadlines.clear();
    }

    /// Schedules the timer at the earliest live deadline, if it is not
    /// already set at or before it.
    fn arm(&mut self, ctx: &mut Context) {
        while let Some(&Reverse((at, id))) = self.deadlines.peek() {
            if self.waiting.get(&id).is_some_and(|w| w.deadline == at) {
                if self.timer_at.is_none_or(|t| at < t) {
                    self.timer_at = Some(at);
                    ctx.core.scheduler.schedule(at.max(ctx.core.now), ctx.node, EventKind::ClientTimer, 0);
                }
                return;
            }
            self.deadlines.pop();
        }
    }

    /// The timer event: gives up every request whose deadline has come
    /// (returned, the earliest deadline first), and sets the timer for the
    /// next.
    pub fn on_timer(&mut self, ctx: &mut Context) -> Vec<CopyId> {
        let now = ctx.core.now;
        let mut expired = Vec::new();
        if self.timer_at != Some(now) {
            return expired;
        }
        self.timer_at = None;
        while let Some(&Reverse((at, id))) = self.deadlines.peek() {
            if at > now {
                break;
            }
            self.deadlines.pop();
            match self.waiting.get(&id) {
                Some(w) if w.deadline == at => {
                    expired.push((id, w.resent));
                    self.waiting.remove(&id);
                }
                _ => {}
            }
        }
        ctx.stats.client_mut().timed_out += expired.len() as u64;
        self.arm(ctx);
        expired
    }

    /// A copy of a request was answered (`processed`) or dropped on the
    /// way. The timer gives every request up at its deadline's instant, so
    /// one still waited for is in time; an answer to a copy given up on is
    /// late.
    pub fn answer(&mut self, msg: &Message, processed: bool, ctx: &mut Context) -> Heard {
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
        self.waiting.remove(&msg.id);
        if processed {
            ctx.stats.client_mut().answered += 1;
            ctx.stats.record_duration(ctx.core.now.since(msg.created));
        } else {
            ctx.stats.client_mut().failed += 1;
        }
        Heard::Over
    }
}
