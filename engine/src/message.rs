//! A message travelling through the graph.

use crate::time::SimTime;

/// `destination` of a message that names none.
pub const NO_DESTINATION: u32 = u32::MAX;

/// How many flow-control gates (windows, credit links) one message can be
/// counted against at once.
pub const MAX_GATES: usize = 4;

/// Small and `Copy`: messages move by value, and the engine never allocates
/// one on the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// Unique within a run.
    pub id: u64,
    /// The index of the producer that created it.
    pub source: u32,
    /// The scenario-wide index of its class.
    pub class: u16,
    /// Lower numbers are served first by priority queues.
    pub priority: u8,
    /// The node it is addressed to, or `NO_DESTINATION`.
    pub destination: u32,
    /// Whether an overloaded queue may discard it (a video frame).
    pub droppable: bool,
    pub size_bytes: u64,
    pub created: SimTime,
    /// The gates still waiting to hear that this message was received or
    /// processed.
    pub gates: Gates,
}

/// The gates a message is counted against, most recent last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gates {
    nodes: [u32; MAX_GATES],
    len: u8,
}

impl Gates {
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.nodes[..self.len as usize].iter().copied()
    }

    /// Adds a gate. Returns false, changing nothing, when full.
    pub fn push(&mut self, node: u32) -> bool {
        if (self.len as usize) < MAX_GATES {
            self.nodes[self.len as usize] = node;
            self.len += 1;
            true
        } else {
            false
        }
    }

    /// Removes a gate; returns whether it was there.
    pub fn remove(&mut self, node: u32) -> bool {
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
