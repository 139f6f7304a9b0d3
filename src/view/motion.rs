//! What moves on the canvas from frame to frame: dots along the edges, one
//! colour per message class, and a flash on the nodes that are dropping.
//!
//! Guarantees: a dot stands for `per_dot` messages and advances one dot
//! spacing each time that many messages of its class cross the edge, so
//! dots move exactly as fast as the messages do and stop when the
//! simulation stops. `per_dot` is a 1-2-5 step chosen so the busiest edge
//! shows a few dots a second (faster would alias into stillness); it moves
//! only when the flow changes by more than one step, so the dots do not
//! jump back and forth. A class counts as crossing an edge, and a node as
//! dropping, for `RECENT_MS` after its last message or drop.

use std::rc::Rc;

use sluice_engine::Simulation;

/// How long after its last message a class's dots stay on an edge, and
/// after its last drop a node keeps flashing, in milliseconds.
pub const RECENT_MS: f64 = 600.0;
/// The most dots per second the busiest edge passes.
const MAX_DOTS_PER_S: f64 = 6.0;

/// The colours of message classes, by class name in order of first
/// appearance (never the state colours, which mean Ready to HardLimit).
pub const CLASS_COLOURS: [&str; 6] = ["#1c7ed6", "#ae3ec9", "#1098ad", "#d6336c", "#845ef7", "#5c7cfa"];

/// One frame's motion, for the canvas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Motion {
    /// Per edge (scenario order), the classes crossing it now: their colour
    /// and where the dot pattern stands, from 0 to 1 of a spacing.
    pub edges: Vec<Vec<(&'static str, f64)>>,
    /// Per node, whether it dropped something a moment ago (shared, as the
    /// canvas takes it as a prop every frame).
    pub dropping: Rc<Vec<bool>>,
    /// Messages per dot.
    pub per_dot: u64,
    /// The key: class names and their colours (the same every frame).
    pub classes: Rc<Vec<(String, &'static str)>>,
}

/// Follows one simulation's flow counters from frame to frame.
#[derive(Default)]
pub struct MotionTracker {
    /// The colour of each class index, and the key: worked out once, as
    /// the classes are the scenario's.
    colours: Vec<&'static str>,
    key: Rc<Vec<(String, &'static str)>>,
    /// Last counts per edge and class, and when each last changed.
    counts: Vec<Vec<(u64, f64)>>,
    /// Messages per real second over the busiest edge, smoothed.
    busiest: f64,
    last_ms: Option<f64>,
    per_dot: u64,
}

impl MotionTracker {
    pub fn new(sim: &Simulation) -> MotionTracker {
        let classes = sim.flows().map_or(0, |f| f.classes());
        let names: Vec<&str> = (0..classes).map(|c| sim.class_name(c as u16)).collect();
        // Two producers' classes of the same name share a colour.
        let mut distinct: Vec<&str> = Vec::new();
        for name in &names {
            if !distinct.contains(name) {
                distinct.push(name);
            }
        }
        let colour = |k: usize| CLASS_COLOURS[k % CLASS_COLOURS.len()];
        let colours = names.iter().map(|n| colour(distinct.iter().position(|d| d == n).unwrap_or(0))).collect();
        let key = distinct.iter().enumerate().map(|(k, n)| (n.to_string(), colour(k))).collect();
        MotionTracker { colours, key: Rc::new(key), ..MotionTracker::default() }
    }

    /// The motion as of `now_ms` (real time), with the nodes `dropping`.
    pub fn observe(&mut self, sim: &Simulation, now_ms: f64, dropping: Vec<bool>) -> Motion {
        let dropping = Rc::new(dropping);
        let Some(flows) = sim.flows() else { return Motion { dropping, ..Motion::default() } };
        let edges = sim.scenario().edges.len();
        self.counts.resize_with(edges, Vec::new);
        let elapsed_s = self.last_ms.map_or(0.0, |t| ((now_ms - t) / 1000.0).max(0.0));
        self.last_ms = Some(now_ms);
        let mut fastest = 0.0f64;
        for (e, seen) in self.counts.iter_mut().enumerate() {
            let now = flows.of_edge(e);
            seen.resize(now.len(), (0, f64::NEG_INFINITY));
            let mut moved = 0;
            for (s, &n) in seen.iter_mut().zip(now) {
                if n != s.0 {
                    moved += n.saturating_sub(s.0);
                    *s = (n, now_ms);
                }
            }
            if elapsed_s > 0.0 {
                fastest = fastest.max(moved as f64 / elapsed_s);
            }
        }
        if elapsed_s > 0.0 {
            // About a second of memory: steady enough to read.
            let weight = elapsed_s.min(1.0);
            self.busiest += (fastest - self.busiest) * weight;
        }
        self.per_dot = steady_step(self.per_dot, self.busiest / MAX_DOTS_PER_S);
        let per_dot = self.per_dot.max(1);
        let edges = self
            .counts
            .iter()
            .map(|seen| {
                seen.iter()
                    .enumerate()
                    .filter(|(_, (_, at))| now_ms - at <= RECENT_MS)
                    .map(|(class, (n, _))| {
                        let colour = self.colours.get(class).copied().unwrap_or(CLASS_COLOURS[0]);
                        (colour, (*n % per_dot) as f64 / per_dot as f64)
                    })
                    .collect()
            })
            .collect();
        Motion { edges, dropping, per_dot, classes: self.key.clone() }
    }
}

/// The 1-2-5 steps: 1, 2, 5, 10, 20, 50, …
fn step_at(k: u32) -> u64 {
    [1u64, 2, 5][(k % 3) as usize].saturating_mul(10u64.saturating_pow(k / 3))
}

/// The smallest step at least `wanted`.
fn step_for(wanted: f64) -> u32 {
    (0..60).find(|&k| step_at(k) as f64 >= wanted).unwrap_or(59)
}

/// The step for `wanted` messages per dot, keeping `current` unless it is
/// more than one step off (so a flow wavering at a boundary does not make
/// the dots jump).
fn steady_step(current: u64, wanted: f64) -> u64 {
    let target = step_for(wanted);
    let Some(now) = (0..60).find(|&k| step_at(k) == current) else { return step_at(target) };
    if target > now + 1 || target + 1 < now {
        step_at(target)
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_run_one_two_five() {
        let steps: Vec<u64> = (0..7).map(step_at).collect();
        assert_eq!(steps, vec![1, 2, 5, 10, 20, 50, 100]);
        assert_eq!(step_at(step_for(0.0)), 1);
        assert_eq!(step_at(step_for(3.0)), 5);
        assert_eq!(step_at(step_for(1667.0)), 2000);
    }

    #[test]
    fn the_step_holds_within_one_step_and_follows_beyond() {
        assert_eq!(steady_step(0, 7.0), 10); // first choice
        assert_eq!(steady_step(10, 11.0), 10); // 20 wanted: one step, held
        assert_eq!(steady_step(10, 4.0), 10); // 5 wanted: one step, held
        assert_eq!(steady_step(10, 45.0), 50); // two steps: follows
        assert_eq!(steady_step(10, 0.5), 1);
    }
}
