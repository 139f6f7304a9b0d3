//! The waiting line inside a queue: the order messages leave in, and the
//! time each one entered.
//!
//! Guarantees:
//! - `fifo` serves the oldest first, `lifo` the newest first, `priority` the
//!   lowest priority number first and, within one priority, the oldest first.
//! - Every removal returns the entry, so callers count what they drop; the
//!   length and byte total always match the entries held.
//! - Finding the oldest entry costs one look per priority level in use.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::message::Message;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    #[default]
    Fifo,
    Lifo,
    Priority,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub msg: Message,
    pub enqueued: SimTime,
}

#[derive(Clone, Debug)]
pub struct Buffer {
    order: Order,
    /// The only line of a FIFO or LIFO buffer.
    line: VecDeque<Entry>,
    /// One FIFO line per priority level, for `priority`.
    levels: Vec<VecDeque<Entry>>,
    len: usize,
    bytes: u64,
}

impl Buffer {
    pub fn new(order: Order) -> Self {
        Buffer { order, line: VecDeque::new(), levels: Vec::new(), len: 0, bytes: 0 }
    }

    /// Changes the order while running, each entry taking the priority
    /// `priority` gives it when the new order is by priority (a table
    /// changed too, or messages that waited in FIFO order with their
    /// class's); the entries are kept, oldest first within a priority.
    pub fn reorder(&mut self, order: Order, priority: impl Fn(&Message) -> u8) {
        let mut all: Vec<Entry> = self.line.drain(..).chain(self.levels.iter_mut().flat_map(|l| l.drain(..))).collect();
        all.sort_by_key(|e| (e.enqueued, e.msg.id));
        *self = Buffer::new(order);
        for mut e in all {
            if order == Order::Priority {
                e.msg.priority = priority(&e.msg);
            }
            self.push(e);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Every line, the FIFO/LIFO one first.
    fn lines(&self) -> impl Iterator<Item = &VecDeque<Entry>> {
        std::iter::once(&self.line).chain(self.levels.iter())
    }

    fn lines_mut(&mut self) -> impl Iterator<Item = &mut VecDeque<Entry>> {
        std::iter::once(&mut self.line).chain(self.levels.iter_mut())
    }

    /// The line at `index` in `lines()` order.
    fn line_at(&mut self, index: usize) -> &mut VecDeque<Entry> {
        if index == 0 {
            &mut self.line
        } else {
            &mut self.levels[index - 1]
        }
    }

    #[inline]
    pub fn push(&mut self, entry: Entry) {
        self.len += 1;
        self.bytes += entry.msg.size_bytes as u64;
        if self.order != Order::Priority {
            self.line.push_back(entry);
            return;
        }
        let level = entry.msg.priority as usize;
        if self.levels.len() <= level {
            self.levels.resize_with(level + 1, VecDeque::new);
        }
        self.levels[level].push_back(entry);
    }

    fn first_level(&self) -> Option<usize> {
        self.levels.iter().position(|l| !l.is_empty())
    }

    /// The entry that leaves next.
    #[inline]
    pub fn peek(&self) -> Option<&Entry> {
        match self.order {
            Order::Fifo => self.line.front(),
            Order::Lifo => self.line.back(),
            Order::Priority => self.first_level().and_then(|l| self.levels[l].front()),
        }
    }

    /// Removes the entry that leaves next.
    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let entry = match self.order {
            Order::Fifo => self.line.pop_front(),
            Order::Lifo => self.line.pop_back(),
            Order::Priority => {
                let level = self.first_level()?;
                self.levels[level].pop_front()
            }
        }?;
        self.forget(&entry);
        Some(entry)
    }

    fn forget(&mut self, entry: &Entry) {
        self.len -= 1;
        self.bytes -= entry.msg.size_bytes as u64;
    }

    /// Puts back an entry just taken by `pop`, so that it leaves next again.
    pub fn unpop(&mut self, entry: Entry) {
        self.len += 1;
        self.bytes += entry.msg.size_bytes as u64;
        match self.order {
            Order::Fifo => self.line.push_front(entry),
            Order::Lifo => self.line.push_back(entry),
            Order::Priority => {
                let level = entry.msg.priority as usize;
                if self.levels.len() <= level {
                    self.levels.resize_with(level + 1, VecDeque::new);
                }
                self.levels[level].push_front(entry);
            }
        }
    }

    /// Where the oldest entry is: (line in `lines()` order, index in it).
    fn oldest_position(&self) -> Option<(usize, usize)> {
        self.lines()
            .enumerate()
            .filter_map(|(level, line)| line.front().map(|e| (level, e.enqueued, e.msg.id)))
            .min_by_key(|&(_, t, id)| (t, id))
            .map(|(level, _, _)| (level, 0))
    }

    /// When the oldest entry entered.
    pub fn oldest_enqueued(&self) -> Option<SimTime> {
        let (l, i) = self.oldest_position()?;
        self.lines().nth(l).map(|line| line[i].enqueued)
    }

    /// Removes the entry that has waited longest.
    pub fn pop_oldest(&mut self) -> Option<Entry> {
        let (level, index) = self.oldest_position()?;
        let entry = self.line_at(level).remove(index)?;
        self.forget(&entry);
        Some(entry)
    }

    /// Removes the droppable entry that has waited longest, if any.
    pub fn pop_oldest_droppable(&mut self) -> Option<Entry> {
        let (level, index) = self
            .lines()
            .enumerate()
            .filter_map(|(level, line)| {
                line.iter().position(|e| e.msg.droppable).map(|i| (level, i, line[i].enqueued, line[i].msg.id))
            })
            .min_by_key(|&(_, _, t, id)| (t, id))
            .map(|(level, i, _, _)| (level, i))?;
        let entry = self.line_at(level).remove(index)?;
        self.forget(&entry);
        Some(entry)
    }

    /// Removes every entry for which `drop` is true; returns how many.
    pub fn remove_where(&mut self, mut drop: impl FnMut(&Entry) -> bool) -> u64 {
        let mut removed = 0u64;
        let mut removed_bytes = 0u64;
        for line in self.lines_mut() {
            line.retain(|e| {
                let d = drop(e);
                if d {
                    removed += 1;
                    removed_bytes += e.msg.size_bytes as u64;
                }
                !d
            });
        }
        self.len -= removed as usize;
        self.bytes -= removed_bytes;
        removed
    }

    /// Removes every entry that has waited `ttl` or longer by `now`, and
    /// returns their messages.
    pub fn take_expired(&mut self, now: SimTime, ttl: crate::time::SimDuration) -> Vec<Message> {
        let mut expired = Vec::new();
        self.remove_where(|e| {
            let stale = e.enqueued + ttl <= now;
            if stale {
                expired.push(e.msg);
            }
            stale
        });
        expired
    }

    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.lines().flat_map(|l| l.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u64, priority: u8, droppable: bool, t: u64) -> Entry {
        Entry {
            msg: Message {
                id,
                source: 0,
                class: 0,
                priority,
                entered_priority: priority,
                destination: crate::message::NO_DESTINATION,
                droppable,
                size_bytes: 10,
                created: SimTime::from_nanos(t),
                attempts: 0,
                resent: 0,
                key: crate::message::NO_KEY,
                gates: Default::default(),
            },
            enqueued: SimTime::from_nanos(t),
        }
    }

    fn drain(b: &mut Buffer) -> Vec<u64> {
        std::iter::from_fn(|| b.pop()).map(|e| e.msg.id).collect()
    }

    #[test]
    fn orders() {
        for (order, expect) in [
            (Order::Fifo, vec![1, 2, 3, 4]),
            (Order::Lifo, vec![4, 3, 2, 1]),
            (Order::Priority, vec![2, 4, 1, 3]),
        ] {
            let mut b = Buffer::new(order);
            b.push(entry(1, 5, false, 1));
            b.push(entry(2, 0, false, 2));
            b.push(entry(3, 5, false, 3));
            b.push(entry(4, 0, false, 4));
            assert_eq!(b.len(), 4);
            assert_eq!(b.bytes(), 40);
            assert_eq!(drain(&mut b), expect, "{order:?}");
            assert_eq!((b.len(), b.bytes()), (0, 0));
        }
    }

    #[test]
    fn oldest_across_priorities_and_droppable_first() {
        let mut b = Buffer::new(Order::Priority);
        b.push(entry(1, 5, false, 1));
        b.push(entry(2, 0, true, 2));
        b.push(entry(3, 0, false, 3));
        assert_eq!(b.oldest_enqueued(), Some(SimTime::from_nanos(1)));
        assert_eq!(b.pop_oldest_droppable().map(|e| e.msg.id), Some(2));
        assert_eq!(b.pop_oldest_droppable(), None);
        assert_eq!(b.pop_oldest().map(|e| e.msg.id), Some(1));
        assert_eq!(drain(&mut b), vec![3]);
    }

    #[test]
    fn unpop_restores_the_next_entry() {
        for order in [Order::Fifo, Order::Lifo, Order::Priority] {
            let mut b = Buffer::new(order);
            b.push(entry(1, 1, false, 1));
            b.push(entry(2, 0, false, 2));
            b.push(entry(3, 1, false, 3));
            let first = b.pop().unwrap();
            b.unpop(first);
            assert_eq!((b.len(), b.bytes()), (3, 30));
            assert_eq!(b.pop(), Some(first), "{order:?}");
        }
    }

    #[test]
    fn changing_order_keeps_entries() {
        let mut b = Buffer::new(Order::Fifo);
        for i in 0..5 {
            b.push(entry(i, (5 - i) as u8, false, i));
        }
        b.reorder(Order::Priority, |m| m.priority);
        assert_eq!(drain(&mut b), vec![4, 3, 2, 1, 0]);
        // A new table gives what waits new priorities.
        for i in 0..5 {
            b.push(entry(i, (5 - i) as u8, false, i));
        }
        b.reorder(Order::Priority, |m| (m.id % 2) as u8);
        assert_eq!(drain(&mut b), vec![0, 2, 4, 1, 3]);
    }
}
