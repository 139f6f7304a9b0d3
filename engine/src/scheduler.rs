//! The event queue: the only thing that advances simulation time.
//!
//! Guarantees: events come out in time order; events at the same time come
//! out in the order they were scheduled, so a run never depends on how the
//! heap breaks ties.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
}

impl EventKind {
    const ALL: [EventKind; 5] =
        [EventKind::Arrival, EventKind::Retry, EventKind::ServiceDone, EventKind::Reconnect, EventKind::Expire];
}

/// 24 bytes: the heap moves events on every push and pop, so they are kept
/// small (the kind rides in the top bits of the node index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub time: SimTime,
    seq: u64,
    node_and_kind: u32,
    pub data: u32,
}

const KIND_SHIFT: u32 = 28;
const NODE_MASK: u32 = (1 << KIND_SHIFT) - 1;

impl Event {
    pub fn node(&self) -> usize {
        (self.node_and_kind & NODE_MASK) as usize
    }

    pub fn kind(&self) -> EventKind {
        EventKind::ALL[(self.node_and_kind >> KIND_SHIFT) as usize]
    }
}

impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and the earliest event must win.
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Clone, Debug, Default)]
pub struct Scheduler {
    heap: BinaryHeap<Event>,
    seq: u64,
}

impl Scheduler {
    /// Schedules an event. Node indices stay below 2^28 (scenarios have at
    /// most `MAX_NODES`).
    #[inline]
    pub fn schedule(&mut self, time: SimTime, node: usize, kind: EventKind, data: u32) {
        self.seq += 1;
        let node_and_kind = (node as u32 & NODE_MASK) | ((kind as u32) << KIND_SHIFT);
        self.heap.push(Event { time, seq: self.seq, node_and_kind, data });
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
