//! A message travelling through the graph.

use crate::time::SimTime;

/// Small and `Copy`: messages move by value, and the engine never allocates
/// one on the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    pub id: u64,
    /// The index of the producer that created it.
    pub source: u32,
    /// The index of its class within its producer.
    pub class: u16,
    /// Whether an overloaded queue may discard it (a video frame).
    pub droppable: bool,
    pub size_bytes: u64,
    pub created: SimTime,
}
