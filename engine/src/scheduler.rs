//! The event queue: the only thing that advances simulation time.
//!
//! Guarantees: events come out in time order; events at the same time come
//! out in the order they were scheduled, so a run never depends on how the
//! heap breaks ties.


use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// A producer's next message is due.
    Arrival,
    /// A producer retries a refused message.
    Retry,
    /// A consumer's worker finished; `data` is the worker slot.
    ServiceDone,
    /// A disconnected queue takes a new client.
    Reconnect,
    /// A queue's oldest message reaches its time-to-live.
    Expire,
    /// Acknowledgements or credit grants reach a gate.
    AckDue,
    /// A rate limiter may let the next message through.
    RateOpen,
    /// A link finished putting a message on the wire.
    Transmitted,
    /// A message reaches the far end of a link.
    Propagated,
    /// A link goes down (`data` 0) or up (`data` 1).
    LinkState,
    /// A consumer's lifecycle or speed schedule moves on.
    ConsumerPhase,
    /// A product limiter's held message may leave.
    Release,
    /// A producer's client gives up on the requests whose time-out came.
    ClientTimer,
}

#[cfg(test)]
impl EventKind {
    const ALL: [EventKind; 13] = [
        EventKind::Arrival,
        EventKind::Retry,
        EventKind::ServiceDone,
        EventKind::Reconnect,
        EventKind::Expire,
        EventKind::AckDue,
        EventKind::RateOpen,
        EventKind::Transmitted,
        EventKind::Propagated,
        EventKind::LinkState,
        EventKind::ConsumerPhase,
        EventKind::Release,
        EventKind::ClientTimer,
    ];
}

/// 24 bytes: the heap moves events on every push and pop, so they are kept
/// small (the kind rides in the top bits of the node index), and ordered by
/// one 128-bit key: the time above, the scheduling sequence below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    time_ns: u64,
    seq: u64,
    node_and_kind: u32,
    pub data: u32,
}

const KIND_SHIFT: u32 = 28;
const NODE_MASK: u32 = (1 << KIND_SHIFT) - 1;

impl Event {
    #[inline]
    pub fn time(&self) -> SimTime {
        SimTime::from_nanos(self.time_ns)
    }

    /// One comparison instead of two (fields stay 8-byte aligned, so the
    /// event stays 24 bytes).
    #[inline]
    fn key(&self) -> u128 {
        ((self.time_ns as u128) << 64) | self.seq as u128
    }

    #[inline]
    pub fn node(&self) -> usize {
        (self.node_and_kind & NODE_MASK) as usize
    }

    #[inline]
    pub fn kind(&self) -> EventKind {
        // A match rather than a table look-up: the event loop's own match on
        // the kind folds into it, leaving one jump table and no bounds check.
        match self.node_and_kind >> KIND_SHIFT {
            0 => EventKind::Arrival,
            1 => EventKind::Retry,
            2 => EventKind::ServiceDone,
            3 => EventKind::Reconnect,
            4 => EventKind::Expire,
            5 => EventKind::AckDue,
            6 => EventKind::RateOpen,
            7 => EventKind::Transmitted,
            8 => EventKind::Propagated,
            9 => EventKind::LinkState,
            10 => EventKind::ConsumerPhase,
            11 => EventKind::Release,
            _ => EventKind::ClientTimer,
        }
    }
}

/// A binary min-heap of events by key. Written out rather than
/// `std::collections::BinaryHeap` because the event loop spends much of its
/// time here: this one keeps the moving event in registers instead of
/// copying it through a stack slot on every level (a store-forwarding stall).
#[derive(Clone, Debug, Default)]
struct EventHeap {
    items: Vec<Event>,
}

impl EventHeap {
    #[inline]
    fn push(&mut self, event: Event) {
        let key = event.key();
        let mut i = self.items.len();
        self.items.push(event);
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.items[parent];
            if p.key() <= key {
                break;
            }
            self.items[i] = p;
            i = parent;
        }
        self.items[i] = event;
    }

    #[inline]
    fn pop(&mut self) -> Option<Event> {
        let last = self.items.pop()?;
        let n = self.items.len();
        if n == 0 {
            return Some(last);
        }
        let top = self.items[0];
        let key = last.key();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let mut child = left;
            if right < n && self.items[right].key() < self.items[left].key() {
                child = right;
            }
            let c = self.items[child];
            if key <= c.key() {
                break;
            }
            self.items[i] = c;
            i = child;
        }
        self.items[i] = last;
        Some(top)
    }

    fn peek(&self) -> Option<&Event> {
        self.items.first()
    }

    fn len(&self) -> usize {
        self.items.len()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Scheduler {
    heap: EventHeap,
    seq: u64,
}

impl Scheduler {
    /// Schedules an event. Node indices stay below 2^28 (scenarios have at
    /// most `MAX_NODES`).
    #[inline]
    pub fn schedule(&mut self, time: SimTime, node: usize, kind: EventKind, data: u32) {
        let event = self.prepare(time, node, kind, data);
        self.push(event);
    }

    /// Makes an event that takes its place in the scheduling order now (so
    /// among events at the same time it leaves as if scheduled now), to be
    /// handed to `push` later in the same step. Nothing may pop in between.
    #[inline]
    pub fn prepare(&mut self, time: SimTime, node: usize, kind: EventKind, data: u32) -> Event {
        self.seq += 1;
        let node_and_kind = (node as u32 & NODE_MASK) | ((kind as u32) << KIND_SHIFT);
        Event { time_ns: time.as_nanos(), seq: self.seq, node_and_kind, data }
    }

    /// Schedules an event made by `prepare`.
    #[inline]
    pub fn push(&mut self, event: Event) {
        self.heap.push(event);
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time())
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_leave_in_scheduling_order() {
        let mut s = Scheduler::default();
        let t = SimTime::from_nanos(10);
        s.schedule(SimTime::from_nanos(20), 9, EventKind::Arrival, 0);
        for node in 0..5 {
            s.schedule(t, node, EventKind::Arrival, 0);
        }
        let order: Vec<usize> = std::iter::from_fn(|| s.pop()).map(|e| e.node()).collect();
        assert_eq!(order, vec![0, 1, 2, 3, 4, 9]);
    }

    #[test]
    fn a_prepared_event_keeps_the_place_it_was_prepared_in() {
        let mut s = Scheduler::default();
        let t = SimTime::from_nanos(10);
        let early = s.prepare(t, 1, EventKind::Arrival, 0);
        s.schedule(t, 2, EventKind::Arrival, 0);
        s.push(early);
        let order: Vec<usize> = std::iter::from_fn(|| s.pop()).map(|e| e.node()).collect();
        assert_eq!(order, vec![1, 2]);
    }

    #[test]
    fn random_times_come_out_sorted() {
        let mut s = Scheduler::default();
        let mut rng = crate::rng::SimRng::new(5);
        let mut popped = Vec::new();
        for round in 0..200 {
            for _ in 0..(round % 7) {
                s.schedule(SimTime::from_nanos((rng.uniform() * 1000.0) as u64), 0, EventKind::Arrival, 0);
            }
            if let Some(e) = s.pop() {
                popped.push(e);
            }
        }
        let mut rest: Vec<Event> = std::iter::from_fn(|| s.pop()).collect();
        // Within what was left, order is strict by (time, scheduling order).
        assert!(rest.windows(2).all(|w| w[0].key() < w[1].key()));
        popped.append(&mut rest);
        assert_eq!(popped.len(), (0..200).map(|r| r % 7).sum::<usize>());
    }

    #[test]
    fn events_carry_their_kind_and_node() {
        let mut s = Scheduler::default();
        for (i, kind) in EventKind::ALL.iter().enumerate() {
            s.schedule(SimTime::from_nanos(i as u64), 9_999 + i, *kind, i as u32);
        }
        for (i, kind) in EventKind::ALL.iter().enumerate() {
            let e = s.pop().unwrap();
            assert_eq!((e.node(), e.kind(), e.data), (9_999 + i, *kind, i as u32));
        }
        assert_eq!(std::mem::size_of::<Event>(), 24);
    }
}
