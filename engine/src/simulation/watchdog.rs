//! Running to a time, and the watchdog that stops a run whose clock no
//! longer moves, or which holds more messages than memory should, naming
//! the nodes taking part.

use super::accounting::held_by;
use super::*;

/// Why the watchdog stopped a simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Simulated time no longer advanced.
    Stalled(Stall),
    /// The run held more messages than the bound.
    Overflowed(Overflow),
    /// Simulated time advanced too little for the events handled.
    Crept(Creep),
}

impl Stop {
    /// The instant the simulation stopped at.
    pub fn at(&self) -> SimTime {
        match self {
            Stop::Stalled(s) => s.at,
            Stop::Overflowed(o) => o.at,
            Stop::Crept(c) => c.at,
        }
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Stalled(s) => s.fmt(f),
            Stop::Overflowed(o) => o.fmt(f),
            Stop::Crept(c) => c.fmt(f),
        }
    }
}

impl std::error::Error for Stop {}

/// A simulation stopped for holding more messages at once than its bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The instant it stopped at.
    pub at: SimTime,
    /// The messages held then, and the bound.
    pub held: u64,
    pub bound: u64,
    /// The ids of the nodes holding the most, with how many each held, most
    /// first (at most three).
    pub nodes: Vec<(String, u64)>,
}

impl std::fmt::Display for Overflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the simulation stopped at {}: it held {} messages at once, more than the {} a run may hold (most of them in {}). \
             A queue without a capacity whose arrivals outpace its service grows without end: give it a capacity and a \
             reaction when full, slow its producers, or serve faster.",
            self.at,
            self.held,
            self.bound,
            counted(&self.nodes)
        )
    }
}

impl std::error::Error for Overflow {}

/// Nodes with a count each, as a stop names them: `"a" (12), "b" (3)`.
fn counted(nodes: &[(String, u64)]) -> String {
    nodes.iter().map(|(id, n)| format!("\"{id}\" ({n})")).collect::<Vec<_>>().join(", ")
}

/// A simulation stopped for gaining almost no simulated time over many
/// events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Creep {
    /// The instant it stopped at.
    pub at: SimTime,
    /// The simulated time gained over the last `events` events.
    pub gained: SimDuration,
    pub events: u64,
    /// The ids of the nodes whose counters moved most in that window, with
    /// how much, most first (at most three).
    pub nodes: Vec<(String, u64)>,
}

impl std::fmt::Display for Creep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the simulation stopped at {}: simulated time advanced only {} in the last {} events, so one more simulated \
             second would take over {} events (busiest nodes: {}). A loop whose steps take next to no time creeps without \
             end: give its think, service or gap times a length a system could have.",
            self.at,
            self.gained,
            self.events,
            crate::plumbing::numbers::thousands((self.events.saturating_mul(1_000_000_000) / self.gained.as_nanos().max(1)) as f64),
            counted(&self.nodes)
        )
    }
}

impl std::error::Error for Creep {}

/// A simulation stopped by the watchdog: simulated time no longer advanced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    /// The instant the clock stopped at.
    pub at: SimTime,
    /// How many events in a row happened at that instant.
    pub events: u64,
    /// The ids of the nodes taking part, in the scenario's order: those
    /// whose events the last few thousand were, and those that took, passed
    /// on or dropped a message meanwhile.
    pub nodes: Vec<String>,
}

impl std::fmt::Display for Stall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nodes: Vec<String> = self.nodes.iter().map(|id| format!("\"{id}\"")).collect();
        write!(
            f,
            "the simulation stopped at {}: {} events in a row happened at that instant and simulated time did not advance \
             (nodes taking part: {}). A loop whose every step takes no time never ends: give one of its steps a time \
             (a think time, a service time, a latency).",
            self.at,
            self.events,
            nodes.join(", ")
        )
    }
}

impl std::error::Error for Stall {}

impl Simulation {
    /// The watchdog looks before `event` is handled: it counts the events
    /// at one instant, looks at every event near the bound to note the
    /// nodes taking part, and at the bound stops the simulation before
    /// `event` (which goes back on the heap, so the state stays whole).
    /// Returns whether it stopped.
    #[cold]
    #[inline(never)]
    pub(super) fn watch(&mut self, event: crate::scheduler::Event) -> bool {
        if self.events.is_multiple_of(HELD_SAMPLE) && (self.watch_held() || self.watch_progress()) {
            self.core.scheduler.push(event);
            return true;
        }
        let handled = self.events - 1;
        if self.watched_at != Some(event.time()) {
            // The clock moved since the last look: count from here.
            self.watched_at = Some(event.time());
            self.watched_since = handled;
            self.watch_mask = self.watch_every - 1;
            return false;
        }
        // At least this many events in a row at this instant (those before
        // the first look at it are not counted).
        let in_a_row = handled - self.watched_since;
        if in_a_row + STALL_SAMPLE < self.stall_bound {
            return false;
        }
        if self.watch_mask != 0 {
            // Near the bound: look at every event from now on.
            self.watch_mask = 0;
            self.stall_nodes.clear();
            self.stall_counts = self.stats.iter().map(NodeStats::activity).collect();
        }
        if in_a_row < self.stall_bound {
            self.stall_nodes.push(event.node() as u32);
            return false;
        }
        self.core.scheduler.push(event);
        let mut nodes = std::mem::take(&mut self.stall_nodes);
        let moved = self.stats.iter().zip(&self.stall_counts).enumerate().filter(|(_, (now, then))| now.activity() != **then);
        nodes.extend(moved.map(|(i, _)| i as u32));
        nodes.sort_unstable();
        nodes.dedup();
        self.stop = Some(Box::new(Stop::Stalled(Stall {
            at: self.core.now,
            events: in_a_row,
            nodes: nodes.iter().map(|&n| self.node_id(n as usize).to_string()).collect(),
        })));
        true
    }

    /// At the end of each window of `CREEP_WINDOW` events, stops the
    /// simulation if its clock gained something but less than
    /// `MIN_PROGRESS_PER_WINDOW` over it.
    #[cold]
    #[inline(never)]
    fn watch_progress(&mut self) -> bool {
        if self.creep_counts.is_empty() {
            self.creep_counts = self.stats.iter().map(NodeStats::activity).collect();
        }
        if self.events < self.creep_events + CREEP_WINDOW {
            return false;
        }
        let gained = self.core.now.since(self.creep_at);
        let counts: Vec<u64> = self.stats.iter().map(NodeStats::activity).collect();
        let window = self.events - self.creep_events;
        if gained > SimDuration::ZERO && gained < MIN_PROGRESS_PER_WINDOW {
            let mut busiest: Vec<(usize, u64)> =
                counts.iter().zip(&self.creep_counts).map(|(now, then)| now.wrapping_sub(*then)).enumerate().filter(|&(_, d)| d > 0).collect();
            busiest.sort_by_key(|&(i, d)| (std::cmp::Reverse(d), i));
            busiest.truncate(3);
            self.stop = Some(Box::new(Stop::Crept(Creep {
                at: self.core.now,
                gained,
                events: window,
                nodes: busiest.into_iter().map(|(i, d)| (self.node_id(i).to_string(), d)).collect(),
            })));
            return true;
        }
        self.creep_events = self.events;
        self.creep_at = self.core.now;
        self.creep_counts = counts;
        false
    }

    /// Counts the messages held; past the bound, stops the simulation (the
    /// event about to be handled is not yet, so the state stays whole).
    #[cold]
    #[inline(never)]
    fn watch_held(&mut self) -> bool {
        let held: Vec<u64> = self.nodes.iter().map(held_by).collect();
        let total: u64 = held.iter().sum();
        if total <= self.held_bound {
            return false;
        }
        let mut most: Vec<(usize, u64)> = held.into_iter().enumerate().filter(|&(_, n)| n > 0).collect();
        // Most first; ties in the scenario's order.
        most.sort_by_key(|&(i, n)| (std::cmp::Reverse(n), i));
        most.truncate(3);
        self.stop = Some(Box::new(Stop::Overflowed(Overflow {
            at: self.core.now,
            held: total,
            bound: self.held_bound,
            nodes: most.into_iter().map(|(i, n)| (self.node_id(i).to_string(), n)).collect(),
        })));
        true
    }

    /// Runs every event up to and including `until`, then sets the clock
    /// there; or stops where the watchdog stopped it.
    pub fn run_until(&mut self, until: SimTime) -> Result<(), Stop> {
        self.stalled()?;
        while self.core.scheduler.peek_time().is_some_and(|t| t <= until) {
            if !self.handle_next() {
                break;
            }
        }
        self.stalled()?;
        self.core.now = self.core.now.max(until);
        Ok(())
    }

    /// Like `run_until`, but stops after `max_events` events. Returns whether
    /// `until` was reached.
    pub fn run_until_bounded(&mut self, until: SimTime, max_events: u64) -> Result<bool, Stop> {
        self.stalled()?;
        let mut left = max_events;
        while self.core.scheduler.peek_time().is_some_and(|t| t <= until) {
            if left == 0 {
                return Ok(false);
            }
            if !self.handle_next() {
                break;
            }
            left -= 1;
        }
        self.stalled()?;
        self.core.now = self.core.now.max(until);
        Ok(true)
    }

    /// Why the watchdog stopped the simulation, as an error, if it did.
    pub(super) fn stalled(&self) -> Result<(), Stop> {
        match &self.stop {
            Some(stop) => Err((**stop).clone()),
            None => Ok(()),
        }
    }
}
