//! Marks: a node's cumulative figures at one instant, so that what
//! happened between two instants can be worked out without resetting
//! anything (a lesson step's checks count from when it began; a sweep
//! measures from the end of its warm-up).
//!
//! Guarantee: taking a mark only reads the simulation.

use crate::metrics::DropReason;
use crate::simulation::{Node, Simulation};
use crate::state::State;

/// The cumulative figures of one node at one instant.
#[derive(Clone, Debug, Default)]
pub struct Mark {
    pub(crate) t_s: f64,
    pub(crate) arrived: u64,
    pub(crate) departed: u64,
    pub(crate) dropped: [u64; DropReason::COUNT],
    pub(crate) disconnects: u64,
    pub(crate) retransmitted: u64,
    pub(crate) depth_integral_s: f64,
    pub(crate) residence_s: f64,
    pub(crate) sojourn_s: f64,
    /// Entries into each state, in full.
    pub(crate) entered: Vec<(State, u64)>,
}

impl Mark {
    /// The instant the mark was taken, in seconds.
    pub fn t_s(&self) -> f64 {
        self.t_s
    }

    /// Node `node` of `sim` as it stands now.
    pub fn of(sim: &Simulation, node: usize) -> Mark {
        let stats = sim.stats(node);
        let disconnects = match &sim.nodes()[node] {
            Node::Queue(q) => q.disconnects(),
            _ => 0,
        };
        let retransmitted = match &sim.nodes()[node] {
            Node::Window(w) => w.retransmitted().0,
            _ => 0,
        };
        Mark {
            t_s: sim.now().as_secs_f64(),
            arrived: stats.arrived,
            departed: stats.departed,
            dropped: stats.dropped,
            disconnects,
            retransmitted,
            depth_integral_s: stats.depth_messages.integral_s(sim.now()),
            residence_s: stats.residence_sum_s(),
            sojourn_s: stats.sojourn_sum_s(),
            entered: stats.entered.clone(),
        }
    }
}
