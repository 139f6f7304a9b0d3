//! A message travelling through the graph.

use crate::time::SimTime;

/// A node index as a message stores it: scenarios have at most
/// `MAX_NODES` (10,000) nodes, so 16 bits suffice and messages stay small.
pub type NodeRef = u16;

/// `destination` of a message that names none.
pub const NO_DESTINATION: NodeRef = NodeRef::MAX;

/// `key` of a message that carries none: keyed limiters keep it under one
/// shared key.
pub const NO_KEY: u32 = 0;

/// The longest key a message may carry, in bytes (a replayed log's line,
/// a trace's key).
pub const MAX_KEY_BYTES: usize = 1024;

/// How many flow-control gates (windows, credit links) one message can be
/// counted against at once.
pub const MAX_GATES: usize = 4;

/// Small (48 bytes) and `Copy`: messages move by value on every hop, and
/// the engine never allocates one on the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// Unique within a run.
    pub id: u64,
    pub created: SimTime,
    /// Bytes, at most 1 GiB.
    pub size_bytes: u32,
    /// The index of the producer that created it.
    pub source: NodeRef,
    /// The node it is addressed to, or `NO_DESTINATION`.
    pub destination: NodeRef,
    /// The scenario-wide index of its class.
    pub class: u16,
    /// Lower numbers are served first by priority queues.
    pub priority: u8,
    /// Its `priority` as it entered the queue (or dispatcher) holding it,
    /// before that block's table (`message_priorities`) put its own there:
    /// what a live change of the table works from again.
    pub entered_priority: u8,
    /// Whether an overloaded queue may discard it (a video frame).
    pub droppable: bool,
    /// How often an execution time-out sent it back to its job queue.
    pub attempts: u8,
    /// How often its client sent it again (0: the first attempt). Each
    /// copy is this one request, not a new one; a copy is told apart from
    /// the others by this number alone.
    pub resent: u8,
    /// What a keyed limiter keeps its state by (a client's address, a
    /// header's value), as the run's index of that text; `NO_KEY` for a
    /// message that carries none.
    pub key: u32,
    /// The gates still waiting to hear that this message was received or
    /// processed.
    pub gates: Gates,
}

/// The gates a message is counted against, most recent last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gates {
    nodes: [NodeRef; MAX_GATES],
    len: u8,
}

impl Gates {
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes[..self.len as usize].iter().map(|&n| n as usize)
    }

    /// Adds a gate. Returns false, changing nothing, when full.
    pub fn push(&mut self, node: usize) -> bool {
        let node = node as NodeRef;
        if (self.len as usize) < MAX_GATES {
            self.nodes[self.len as usize] = node;
            self.len += 1;
            true
        } else {
            false
        }
    }

    /// Removes a gate; returns whether it was there.
    pub fn remove(&mut self, node: usize) -> bool {
        let node = node as NodeRef;
        let n = self.len as usize;
        match self.nodes[..n].iter().position(|&g| g == node) {
            Some(i) => {
                self.nodes.copy_within(i + 1..n, i);
                self.len -= 1;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_stay_small() {
        assert_eq!(std::mem::size_of::<Message>(), 48);
    }

    #[test]
    fn gates_push_remove_in_order() {
        let mut g = Gates::default();
        for n in [3, 7, 9, 11] {
            assert!(g.push(n));
        }
        assert!(!g.push(12), "full");
        assert!(g.remove(7));
        assert!(!g.remove(7));
        assert_eq!(g.iter().collect::<Vec<_>>(), vec![3, 9, 11]);
    }
}
