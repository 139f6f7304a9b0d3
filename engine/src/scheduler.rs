//! The event queue: the only thing that advances simulation time.
//!
//! Guarantees: events come out in time order; events at the same time come
//! out in the order they were scheduled, so a run never depends on how the
//! heap breaks ties.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A producer's next message is due.
    Arrival,
    /// A producer retries a refused message.
    Retry,
    /// A consumer's worker finished; `data` is the worker slot.
    ServiceDone,
    /// A disconnected queue takes a new client.
    Reconnect,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub time: SimTime,
    seq: u64,
    pub node: u32,
    pub kind: EventKind,
    pub data: u32,
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
    pub fn schedule(&mut self, time: SimTime, node: usize, kind: EventKind, data: u32) {
        self.seq += 1;
        self.heap.push(Event { time, seq: self.seq, node: node as u32, kind, data });
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
        let order: Vec<u32> = std::iter::from_fn(|| s.pop()).map(|e| e.node).collect();
        assert_eq!(order, vec![0, 1, 2, 3, 4, 9]);
    }
}
