//! The blocks people put on the canvas. One block, one file: each file opens
//! with what the block guarantees.

pub mod consumer;
pub mod producer;
pub mod queue;

pub use consumer::{Consumer, ConsumerSpec};
pub use producer::{Arrivals, Backpressure, MessageClass, OnRefused, Producer, ProducerSpec};
pub use queue::{Limits, OnFull, Queue, QueueSpec, Reaction, Reactions, SendState};
