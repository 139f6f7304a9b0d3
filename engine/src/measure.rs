//! Marks: a node's cumulative figures at one instant, so that what
//! happened between two instants can be worked out without resetting
//! anything (a lesson step's checks count from when it began; a sweep
//! measures from the end of its warm-up).
//!
//! Guarantee: taking a mark only reads the simulation. `Mark::since` is
//! the one place where two marks are subtracted (lesson checks, the theory
//! panel since a change, sweeps).

use crate::metrics::{ClientTally, DropReason, Durations};
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
    /// The node's histogram of waits (or sojourns) as it stood.
    pub(crate) durations: Option<Box<Durations>>,
    /// What its clients saw, or its workers spent for nobody.
    pub(crate) client: ClientTally,
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
            Node::Link(l) => l.retransmitted(),
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
            durations: stats.durations.clone(),
            client: stats.client(),
        }
    }

    /// The wait (a consumer's: sojourn) at quantile `q` of what node
    /// `node` of `sim` recorded since this mark of it; none if nothing.
    pub fn quantile_since(&self, sim: &Simulation, node: usize, q: f64) -> Option<f64> {
        sim.stats(node).durations.as_deref()?.seconds_at_quantile_since(q, self.durations.as_deref())
    }
}

/// What happened at one node between two marks: the differences of its
/// cumulative figures (a counter never runs backwards; should one seem to,
/// it counts 0).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Change {
    pub span_s: f64,
    pub arrived: u64,
    pub departed: u64,
    pub dropped: [u64; DropReason::COUNT],
    pub disconnects: u64,
    pub retransmitted: u64,
    pub depth_integral_s: f64,
    pub residence_s: f64,
    pub sojourn_s: f64,
    /// Requests answered while their client waited (a producer's).
    pub answered: u64,
    /// Attempts sent again (a producer's).
    pub resent: u64,
    /// Requests their client gave up waiting for.
    pub timed_out: u64,
    /// Service spent on requests nobody waited for, in seconds (a
    /// consumer's).
    pub wasted_s: f64,
}

impl Change {
    /// Drops of every reason.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// What the node was given to pass on or drop: its arrivals, and a
    /// producer's copies sent again besides the messages it made.
    pub fn offered(&self) -> u64 {
        self.arrived + self.resent
    }

    /// Drops whose work is lost: every reason but a merge
    /// (`DropReason::is_loss`). Drop probabilities are these over arrivals.
    pub fn lost(&self) -> u64 {
        DropReason::ALL.iter().filter(|r| r.is_loss()).map(|r| self.dropped[*r as usize]).sum()
    }
}

impl Mark {
    /// What happened between `before` and this mark.
    pub fn since(&self, before: &Mark) -> Change {
        let mut dropped = [0; DropReason::COUNT];
        for ((d, n), b) in dropped.iter_mut().zip(&self.dropped).zip(&before.dropped) {
            *d = n.saturating_sub(*b);
        }
        Change {
            span_s: self.t_s - before.t_s,
            arrived: self.arrived.saturating_sub(before.arrived),
            departed: self.departed.saturating_sub(before.departed),
            dropped,
            disconnects: self.disconnects.saturating_sub(before.disconnects),
            retransmitted: self.retransmitted.saturating_sub(before.retransmitted),
            depth_integral_s: self.depth_integral_s - before.depth_integral_s,
            residence_s: self.residence_s - before.residence_s,
            sojourn_s: self.sojourn_s - before.sojourn_s,
            answered: self.client.answered.saturating_sub(before.client.answered),
            resent: self.client.resent.saturating_sub(before.client.resent),
            timed_out: self.client.timed_out.saturating_sub(before.client.timed_out),
            wasted_s: (self.client.wasted_ns.saturating_sub(before.client.wasted_ns)) as f64 / 1e9,
        }
    }
}
