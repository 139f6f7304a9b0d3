//! What a block knew when it dropped a message or changed state, written
//! down at that moment: the record an explanation starts from.
//!
//! Guarantees:
//! - Every drop (`Context::drop_message`) and every state change
//!   (`Context::log_transition`) makes one `Why`, at the instant and in the
//!   event it happened, with what held then at its node: the messages and
//!   bytes it held, the state of each of its families of states and since
//!   when, and, if its last offer was refused, the block that refused it
//!   and since when its offers have been refused (`HeldBack`).
//! - Bounded: each node keeps its last `KEPT_DROPS` drops and its last
//!   `KEPT_CHANGES` state changes; `Whys::keep_all` (for tests) keeps every
//!   one besides. The counts of all of them are kept in full.
//! - Nothing here decides anything: recording changes no counter, draw or
//!   event of the run.

use std::collections::VecDeque;

use crate::metrics::DropReason;
use crate::state::{Cause, State};
use crate::time::SimTime;

/// Drops each node keeps the record of.
pub const KEPT_DROPS: usize = 16;
/// State changes each node keeps the record of.
pub const KEPT_CHANGES: usize = 16;
/// Families of states one node can be in at once (a consumer's life and
/// its schedule, a producer's link and its own).
const FAMILIES: usize = 3;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// A message (of class `class`, `droppable` or not) left the system
    /// here, undelivered.
    Dropped { reason: DropReason, class: u16, droppable: bool, bytes: u32 },
    /// The node changed state.
    Changed { from: State, to: State, cause: Cause },
}

/// A node's offers refused: by which block (the one that held or
/// decided, behind blocks that pass messages through), since when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldBack {
    pub by: u32,
    pub since: SimTime,
    /// Refused unread: a queue asking its inputs to pause left what a link
    /// brought in the link (not that it was full). As at the hold's onset.
    pub unread: bool,
}

/// One drop or state change, with what held at its node at that moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Why {
    pub at: SimTime,
    /// The number of the event it happened in (the simulation's count
    /// of events when it happened).
    pub event: u64,
    pub node: u32,
    pub what: What,
    /// Messages the node held (waiting, on the wire, being served).
    pub held: u64,
    /// Bytes the node held waiting.
    pub held_bytes: u64,
    /// Its messages being served.
    pub in_service: u64,
    /// The state of each of its families of states it has left its first
    /// state in, and since when (for a change: the states after it).
    pub states: [Option<(State, SimTime)>; FAMILIES],
    /// Who was refusing its offers, if its last offer was refused.
    pub held_back: Option<HeldBack>,
}

impl Why {
    /// The state of `state`'s family it was in then, and since when, if
    /// it had left that family's first state.
    pub fn state_like(&self, state: State) -> Option<(State, SimTime)> {
        self.states.iter().flatten().copied().find(|(s, _)| s.family() == state.family())
    }
}

/// One node's records.
#[derive(Clone, Debug, Default)]
struct NodeWhys {
    drops: VecDeque<Why>,
    changes: VecDeque<Why>,
    states: [Option<(State, SimTime)>; FAMILIES],
    held_back: Option<HeldBack>,
    /// How many times its offers began to be refused, and the last time.
    holds: u64,
    onset: Option<HeldBack>,
    /// The hold its last taken offer ended, and the instant: a block that
    /// takes one as a worker frees and refuses the next at that instant
    /// holds it back on, since the same instant as before.
    let_go: Option<(HeldBack, SimTime)>,
}

/// Every node's records.
#[derive(Clone, Debug, Default)]
pub struct Whys {
    nodes: Vec<NodeWhys>,
    /// Every record, when a test asks for them.
    all: Option<Vec<Why>>,
    drops: u64,
    changes: u64,
    /// Nodes held back now: while none is, a taken offer has nothing to
    /// clear (the common case, checked on every offer).
    held: usize,
}

/// What a node holds, as its counters say, for a record.
#[derive(Clone, Copy, Debug, Default)]
pub struct Holding {
    pub messages: u64,
    pub bytes: u64,
    pub in_service: u64,
}

/// Of records of one kind kept oldest first (`kept`), whose count went
/// from `mark` to `count` at one event, the first that event brought: the
/// newest are what it brought, so it is counted back from the newest.
/// None when the count did not pass the mark, or fewer are kept.
pub fn first_brought<'a>(kept: impl DoubleEndedIterator<Item = &'a Why>, mark: u64, count: u64) -> Option<Why> {
    let back = usize::try_from(count.checked_sub(mark)?.checked_sub(1)?).ok()?;
    kept.rev().nth(back).copied()
}

impl Whys {
    fn node(&mut self, node: usize) -> &mut NodeWhys {
        if node >= self.nodes.len() {
            self.nodes.resize_with(node + 1, NodeWhys::default);
        }
        &mut self.nodes[node]
    }

    /// Keeps every record from now on, beside each node's last ones,
    /// starting with those the nodes keep already (a run's first instant
    /// may have changed states as it was built).
    pub fn keep_all(&mut self) {
        if self.all.is_none() {
            let mut kept: Vec<Why> = self.nodes.iter().flat_map(|n| n.drops.iter().chain(&n.changes)).copied().collect();
            kept.sort_by_key(|w| (w.event, w.at));
            self.all = Some(kept);
        }
    }

    /// Every record kept since `keep_all`, oldest first.
    pub fn all(&self) -> &[Why] {
        self.all.as_deref().unwrap_or(&[])
    }

    /// Drops and state changes recorded in all.
    pub fn counts(&self) -> (u64, u64) {
        (self.drops, self.changes)
    }

    /// `node`'s last drops, oldest first.
    pub fn drops(&self, node: usize) -> impl DoubleEndedIterator<Item = &Why> {
        self.nodes.get(node).into_iter().flat_map(|n| n.drops.iter())
    }

    /// `node`'s last state changes, oldest first.
    pub fn changes(&self, node: usize) -> impl DoubleEndedIterator<Item = &Why> {
        self.nodes.get(node).into_iter().flat_map(|n| n.changes.iter())
    }

    /// Who refuses `node`'s offers now, and since when.
    pub fn held_back(&self, node: usize) -> Option<HeldBack> {
        self.nodes.get(node).and_then(|n| n.held_back)
    }

    /// How many times `node`'s offers began to be refused (a count that
    /// only grows: the first hold after a mark is where it passes it).
    pub fn times_held_back(&self, node: usize) -> u64 {
        self.nodes.get(node).map_or(0, |n| n.holds)
    }

    /// The last time `node`'s offers began to be refused, by whom: kept
    /// after it is taken again.
    pub fn last_held_back(&self, node: usize) -> Option<HeldBack> {
        self.nodes.get(node).and_then(|n| n.onset)
    }

    /// `node`'s offer was refused by `by` at `now`: held back since now
    /// unless it already was, or was let go by `by` at this very instant
    /// (it took one offer, as a worker freed, and refuses the next: the
    /// hold goes on from when it began). `unread`: see [`HeldBack::unread`].
    #[inline]
    pub fn refused(&mut self, node: usize, by: usize, now: SimTime, unread: bool) {
        let n = self.node(node);
        let let_go = n.let_go.take();
        match &mut n.held_back {
            Some(h) if h.by == by as u32 => {}
            Some(h) => *h = HeldBack { by: by as u32, since: now, unread },
            none if let_go.is_some_and(|(h, at)| at == now && h.by == by as u32) => {
                *none = let_go.map(|(h, _)| h);
                self.held += 1;
            }
            none => {
                let held = HeldBack { by: by as u32, since: now, unread };
                *none = Some(held);
                n.holds += 1;
                n.onset = Some(held);
                self.held += 1;
            }
        }
    }

    /// `node`'s offer was taken at `now`: no longer held back.
    #[inline]
    pub fn taken(&mut self, node: usize, now: SimTime) {
        if self.held == 0 {
            return;
        }
        if let Some(n) = self.nodes.get_mut(node) {
            if let Some(h) = n.held_back.take() {
                n.let_go = Some((h, now));
                self.held -= 1;
            }
        }
    }

    /// Records a drop or a change at `node`.
    pub fn record(&mut self, at: SimTime, event: u64, node: usize, what: What, holding: Holding) {
        let n = self.node(node);
        if let What::Changed { to, .. } = what {
            let family = to.family();
            let slot = n.states.iter().position(|s| s.is_some_and(|(s, _)| s.family() == family)).or_else(|| n.states.iter().position(Option::is_none));
            if let Some(k) = slot {
                n.states[k] = Some((to, at));
            }
        }
        let why = Why {
            at,
            event,
            node: node as u32,
            what,
            held: holding.messages,
            held_bytes: holding.bytes,
            in_service: holding.in_service,
            states: n.states,
            held_back: n.held_back,
        };
        let (kept, cap) = match what {
            What::Dropped { .. } => (&mut n.drops, KEPT_DROPS),
            What::Changed { .. } => (&mut n.changes, KEPT_CHANGES),
        };
        if kept.len() == cap {
            kept.pop_front();
        }
        kept.push_back(why);
        match what {
            What::Dropped { .. } => self.drops += 1,
            What::Changed { .. } => self.changes += 1,
        }
        if let Some(all) = &mut self.all {
            all.push(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    /// A consumer with one worker takes one offer each time the worker
    /// frees and refuses the next at that instant: the hold goes on from
    /// its first refusal, counted once. Taken with nothing refused after
    /// (or refused later, or by another), it ended.
    #[test]
    fn a_hold_goes_on_through_an_offer_taken_and_the_next_refused_at_that_instant() {
        let mut w = Whys::default();
        let held = |w: &Whys| w.held_back(0).map(|h| (h.by, h.since));
        w.refused(0, 1, t(5), false);
        for k in 1..=5 {
            w.taken(0, t(5 + 10 * k));
            assert_eq!(held(&w), None, "taken: not held back now");
            w.refused(0, 1, t(5 + 10 * k), false);
            assert_eq!(held(&w), Some((1, t(5))), "refused at once again: since the first refusal");
        }
        assert_eq!((w.times_held_back(0), w.last_held_back(0).map(|h| h.since)), (1, Some(t(5))));
        // Taken, and refused only a millisecond later: a new hold.
        w.taken(0, t(60));
        w.refused(0, 1, t(61), false);
        assert_eq!(held(&w), Some((1, t(61))));
        assert_eq!(w.times_held_back(0), 2);
        // Taken, and refused at that instant by another block: a new hold.
        w.taken(0, t(70));
        w.refused(0, 2, t(70), false);
        assert_eq!(held(&w), Some((2, t(70))));
        assert_eq!((w.times_held_back(0), w.last_held_back(0).map(|h| h.by)), (3, Some(2)));
        // A hold let go is not taken up again at a later instant's refusal.
        w.taken(0, t(80));
        w.taken(0, t(80));
        w.refused(0, 2, t(90), false);
        assert_eq!(held(&w), Some((2, t(90))));
        assert_eq!(w.times_held_back(0), 4);
    }
}
