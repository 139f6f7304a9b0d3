//! How long a block spent in each state of its strip (a queue's send
//! states, a circuit breaker's), slot by slot, from time zero: what a state
//! strip draws, however long the run.
//!
//! Guarantees:
//! - Nothing is forgotten: every slot keeps the time spent in each of the
//!   strip's states within it, so the times of all slots add up to the time
//!   since zero, and a state held for a moment is still there (as a small
//!   time) however many slots it has been merged into.
//! - Bounded: at most `capacity` slots. When the run outgrows them, the
//!   slots merge pairwise (their times summed) and each covers twice the
//!   time, as the depth series do.

use crate::state::{State, Strip};
use crate::time::SimTime;

/// The first slots are this wide (10 ms).
const FIRST_WIDTH_NS: u64 = 10_000_000;
/// Slots per block: the strips draw about 400 across.
pub const STATE_SLOTS: usize = 512;

/// A block's time in each state of its strip, slot by slot.
#[derive(Clone, Debug)]
pub struct StateTimes {
    strip: Strip,
    width_ns: u64,
    capacity: usize,
    /// Nanoseconds spent in each state (indexed as the strip's states), per
    /// slot.
    slots: Vec<[u64; 4]>,
    /// The state held now (its index in the strip), and since when.
    state: usize,
    since_ns: u64,
}

/// One slot as a strip draws it: its span, and the seconds spent in each
/// state within it (indexed as `strip.states()`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateSlot {
    pub strip: Strip,
    pub from_s: f64,
    pub to_s: f64,
    pub seconds: [f64; 4],
}

impl StateSlot {
    /// A slot from `from_s` to `to_s` spent wholly in the strip's first
    /// (least severe) state: what a block that never changed state shows.
    pub fn calm(strip: Strip, from_s: f64, to_s: f64) -> Self {
        StateSlot { strip, from_s, to_s, seconds: [to_s - from_s, 0.0, 0.0, 0.0] }
    }

    /// The most severe state held at all within the slot.
    pub fn worst(&self) -> State {
        let states = self.strip.states();
        states.iter().zip(self.seconds).filter(|&(_, s)| s > 0.0).map(|(&state, _)| state).next_back().unwrap_or(states[0])
    }
}

impl StateTimes {
    /// A block in `state` from time zero; `None` for a state no strip
    /// draws.
    pub fn new(state: State) -> Option<Self> {
        StateTimes::with_slots(state, FIRST_WIDTH_NS, STATE_SLOTS)
    }

    fn with_slots(state: State, width_ns: u64, capacity: usize) -> Option<Self> {
        let (strip, state) = state.strip()?;
        Some(StateTimes { strip, width_ns: width_ns.max(1), capacity: capacity.max(2) & !1, slots: Vec::new(), state, since_ns: 0 })
    }

    /// The strip it draws.
    pub fn strip(&self) -> Strip {
        self.strip
    }

    /// The state held now.
    pub fn state(&self) -> State {
        self.strip.states()[self.state]
    }

    /// The block entered `to` at `now` (times must not go backwards); a
    /// state of another strip is ignored.
    pub fn change(&mut self, now: SimTime, to: State) {
        let Some((strip, to)) = to.strip() else { return };
        if strip != self.strip {
            return;
        }
        let now_ns = now.as_nanos().max(self.since_ns);
        self.add(self.since_ns, now_ns, self.state);
        self.state = to;
        self.since_ns = now_ns;
    }

    /// Adds the span [from, to) in the state of index `k` to the slots it
    /// covers.
    fn add(&mut self, from_ns: u64, to_ns: u64, k: usize) {
        if to_ns <= from_ns {
            return;
        }
        while (to_ns - 1) / self.width_ns >= self.capacity as u64 {
            self.halve();
        }
        let last = ((to_ns - 1) / self.width_ns) as usize;
        if self.slots.len() <= last {
            self.slots.resize(last + 1, [0; 4]);
        }
        let first = (from_ns / self.width_ns) as usize;
        for (i, slot) in self.slots.iter_mut().enumerate().take(last + 1).skip(first) {
            let start = (i as u64 * self.width_ns).max(from_ns);
            let end = ((i as u64 + 1).saturating_mul(self.width_ns)).min(to_ns);
            slot[k] += end - start;
        }
    }

    /// Merges neighbouring slots pairwise and doubles the width.
    fn halve(&mut self) {
        self.slots = crate::plumbing::pairs::merge_pairs(&self.slots, |a, b| std::array::from_fn(|k| a[k] + b[k]));
        self.width_ns = self.width_ns.saturating_mul(2);
    }

    /// The slots from time zero to `now`, the state held now counted up to
    /// `now`; the last slot ends at `now`.
    pub fn slots(&self, now: SimTime) -> Vec<StateSlot> {
        let mut upto = self.clone();
        let now_ns = now.as_nanos().max(self.since_ns);
        upto.add(self.since_ns, now_ns, self.state);
        let width = upto.width_ns;
        upto.slots
            .iter()
            .enumerate()
            .map(|(i, ns)| StateSlot {
                strip: self.strip,
                from_s: (i as u64 * width) as f64 / 1e9,
                to_s: ((i as u64 + 1).saturating_mul(width)).min(now_ns) as f64 / 1e9,
                seconds: ns.map(|n| n as f64 / 1e9),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use State::*;

    fn at(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn total(slots: &[StateSlot], state: State) -> f64 {
        let k = state.strip().unwrap().1;
        slots.iter().map(|s| s.seconds[k]).sum()
    }

    #[test]
    fn the_times_add_up_to_the_time_in_each_state() {
        let mut t = StateTimes::with_slots(Ready, 1_000_000_000, 8).unwrap();
        t.change(at(1.5), SoftLimit);
        t.change(at(4.0), Ready);
        let slots = t.slots(at(6.0));
        assert_eq!(slots.len(), 6);
        assert!((total(&slots, Ready) - 3.5).abs() < 1e-9);
        assert!((total(&slots, SoftLimit) - 2.5).abs() < 1e-9);
        assert_eq!(slots[1].seconds, [0.5, 0.0, 0.5, 0.0]);
        assert_eq!(slots[1].worst(), SoftLimit);
        assert_eq!(slots[5].to_s, 6.0);
    }

    #[test]
    fn a_long_run_keeps_its_early_states() {
        // 84% SoftLimit in the first 20 s, then Overloaded for 200 s: the
        // early time survives every halving.
        let mut t = StateTimes::new(Ready).unwrap();
        t.change(at(3.2), SoftLimit);
        t.change(at(20.0), Overloaded);
        let slots = t.slots(at(220.0));
        assert!(slots.len() <= STATE_SLOTS);
        assert!((total(&slots, SoftLimit) - 16.8).abs() < 1e-6);
        assert!((total(&slots, Ready) - 3.2).abs() < 1e-6);
        assert!((total(&slots, Overloaded) - 200.0).abs() < 1e-6);
        assert_eq!(slots.first().map(StateSlot::worst), Some(Ready));
        let early: Vec<State> = slots.iter().filter(|s| s.to_s <= 20.0 && s.from_s >= 3.5).map(StateSlot::worst).collect();
        assert!(!early.is_empty() && early.iter().all(|&s| s == SoftLimit), "{early:?}");
    }

    #[test]
    fn flapping_is_bounded_and_every_brief_visit_counted() {
        let mut t = StateTimes::new(Ready).unwrap();
        for k in 0..100_000 {
            let s = k as f64 * 0.01;
            t.change(at(s), Overloaded);
            t.change(at(s + 0.001), Ready);
        }
        let slots = t.slots(at(1000.0));
        assert!(slots.len() <= STATE_SLOTS);
        assert!((total(&slots, Overloaded) - 100.0).abs() < 1e-6);
        assert!(slots.iter().all(|s| s.worst() == Overloaded));
    }

    #[test]
    fn a_breaker_strip_keeps_its_own_states_and_ignores_others() {
        let mut t = StateTimes::new(Closed).unwrap();
        t.change(at(2.0), Open);
        t.change(at(3.0), SoftLimit);
        t.change(at(7.0), HalfOpen);
        t.change(at(7.5), Closed);
        let slots = t.slots(at(10.0));
        assert!((total(&slots, Closed) - 4.5).abs() < 1e-9);
        assert!((total(&slots, Open) - 5.0).abs() < 1e-9);
        assert!((total(&slots, HalfOpen) - 0.5).abs() < 1e-9);
        assert!(slots.iter().all(|s| s.strip == Strip::Breaker));
        assert_eq!(t.state(), Closed);
        assert!(StateTimes::new(Up).is_none());
    }

    #[test]
    fn reading_does_not_change_what_is_recorded() {
        let mut t = StateTimes::new(Ready).unwrap();
        t.change(at(1.0), HardLimit);
        let before = t.slots(at(2.0));
        let _ = t.slots(at(100_000.0));
        assert_eq!(t.slots(at(2.0)), before);
    }
}
