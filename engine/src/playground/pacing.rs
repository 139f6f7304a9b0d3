//! Pacing: how far a slice of real time takes the playground's runs.
//!
//! Guarantees:
//! - The engine reads no clock: the caller says how much real time passed,
//!   and at `Speed::Fastest` lends a clock to stop by.
//! - A slice never simulates more than `MAX_SLICE_S` of real time (a tab
//!   that was in the background does not leap ahead) nor more than
//!   `EVENTS_PER_SLICE` events per run, so the caller stays responsive when
//!   the simulation cannot keep up; it then says it fell behind.
//! - A watched lesson step is judged at its time exactly: a slice stops
//!   there.
//! - With a comparison open, B is brought to A's time in every slice, and A
//!   goes on only once B has caught up; at `Fastest` the two share the
//!   slice's budget, so B is never more than a slice behind.

use crate::lesson::LessonText;
use crate::time::{SimDuration, SimTime};
use crate::timeline::Run;

use super::{LessonRun, Playground};

/// The most events one slice may process in each run.
pub const EVENTS_PER_SLICE: u64 = 200_000;
/// The most real time one slice simulates, in seconds.
pub const MAX_SLICE_S: f64 = 0.25;
/// At `Fastest`, the real seconds a slice may spend simulating (the rest of
/// a frame at 60 Hz draws).
pub const FASTEST_BUDGET_S: f64 = 0.010;
/// At `Fastest`, how many events pass between two readings of the clock.
const EVENTS_PER_CLOCK_READING: u32 = 4096;

/// How fast simulated time passes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speed {
    /// This many simulated seconds per real second.
    Times(f64),
    /// As fast as the machine goes, within a budget per slice.
    Fastest,
}

/// The speeds the page offers, slowest first.
pub const SPEEDS: [Speed; 11] = [
    Speed::Times(0.1),
    Speed::Times(0.25),
    Speed::Times(0.5),
    Speed::Times(1.0),
    Speed::Times(2.0),
    Speed::Times(5.0),
    Speed::Times(10.0),
    Speed::Times(50.0),
    Speed::Times(100.0),
    Speed::Times(1000.0),
    Speed::Fastest,
];

/// Real seconds a lesson step may take to watch before the playground
/// asks for a faster speed.
pub const WATCH_REAL_S: f64 = 30.0;

/// Words a learner reads a minute, lesson text being read closely.
pub const READING_WORDS_PER_MIN: f64 = 180.0;
/// Real seconds a sweep step takes to run beside the run (a few seconds in
/// a worker) and to be read.
pub const SWEEP_STEP_REAL_S: f64 = 20.0;

/// About how many minutes a lesson takes, for the picker: its text read at
/// `READING_WORDS_PER_MIN`, and each step watched at 1× or at the speed
/// the playground asks for when 1× is too slow (a sweep step takes
/// `SWEEP_STEP_REAL_S`); whole minutes, rounded up.
pub fn lesson_minutes(text: &LessonText) -> u32 {
    let words = |t: &str| t.split_whitespace().count();
    let steps = text.steps.iter().map(|s| words(&s.try_this) + words(&s.expect)).sum::<usize>();
    let reading_s = (words(&text.story) + words(&text.watch) + steps) as f64 * 60.0 / READING_WORDS_PER_MIN;
    let watching_s: f64 = text
        .steps
        .iter()
        .map(|s| match (&s.sweep, Speed::Times(1.0).to_watch(s.within_s)) {
            (Some(_), _) => SWEEP_STEP_REAL_S,
            (None, Some(Speed::Times(t))) => s.within_s / t,
            (None, _) => s.within_s,
        })
        .sum();
    ((reading_s + watching_s) / 60.0).ceil().max(1.0) as u32
}

impl Speed {
    /// The slowest of `SPEEDS` at which `within_s` simulated seconds take
    /// at most `WATCH_REAL_S` real ones, when this speed is too slow for
    /// that (none: this speed is fine, or no finite speed is fast enough).
    pub fn to_watch(self, within_s: f64) -> Option<Speed> {
        let Speed::Times(times) = self else { return None };
        // A speed of 0 or NaN gives no ratio above the limit: nothing to fit.
        if (within_s / times).partial_cmp(&WATCH_REAL_S) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        SPEEDS.into_iter().find(|s| matches!(s, Speed::Times(t) if within_s / t <= WATCH_REAL_S))
    }
}

/// What one slice did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Advanced {
    /// The runs reached the time the speed asked for (a stopped run is not
    /// behind: it is stopped).
    pub kept_up: bool,
    /// A lesson step was judged.
    pub judged: bool,
    /// The watchdog stopped A or B.
    pub stopped: bool,
    /// The step that began on its own at the verdict (one that only
    /// watches): `Playground::begun_alone` says what it asks of the page.
    pub began: Option<usize>,
}

impl Playground {
    /// Advances the runs by `elapsed_s` of real time at `speed`. At
    /// `Fastest`, `clock` gives the real time in seconds (any origin) and
    /// the slice ends when its budget is spent.
    pub fn advance(&mut self, elapsed_s: f64, speed: Speed, clock: &dyn Fn() -> f64) -> Advanced {
        let real_s = if elapsed_s.is_finite() { elapsed_s.clamp(0.0, MAX_SLICE_S) } else { 0.0 };
        let judge_at = self.judge_at();
        let budget_s = if self.b.is_some() { FASTEST_BUDGET_S / 2.0 } else { FASTEST_BUDGET_S };
        // Shown at an earlier instant, the live runs wait.
        let Some(a) = self.a.as_mut().filter(|_| self.scrub.is_none()) else { return Advanced { kept_up: true, ..Advanced::default() } };
        let b_behind = self.b.as_ref().is_some_and(|b| b.sim.now() < a.now());
        let mut kept_up = match speed {
            // A waits for B (at `Fastest` there is no pace to fall behind).
            _ if b_behind => speed == Speed::Fastest,
            Speed::Times(times) => {
                let target = a.now() + SimDuration::from_secs_f64(real_s * times.max(0.0));
                a.run_until_bounded(judge_at.map_or(target, |j| target.min(j)), EVENTS_PER_SLICE).unwrap_or(true)
            }
            Speed::Fastest => {
                run_for(a, clock() + budget_s, judge_at, clock);
                true
            }
        };
        let a_now = a.now();
        if let Some(b) = &mut self.b {
            kept_up &= match speed {
                Speed::Times(_) => b.sim.run_until_bounded(a_now, EVENTS_PER_SLICE).unwrap_or(true),
                Speed::Fastest => {
                    run_for(&mut b.sim, clock() + budget_s, Some(a_now), clock);
                    true
                }
            };
        }
        let judged = self.judge();
        let began = self.lesson().and_then(LessonRun::watching).filter(|_| judged);
        Advanced { kept_up, judged, stopped: self.stopped(), began }
    }
}

/// Simulates until `clock` reaches `deadline`, nothing is left to happen,
/// or the run reaches `until`, reading the clock every few thousand events.
fn run_for(sim: &mut Run, deadline: f64, until: Option<SimTime>, clock: &dyn Fn() -> f64) {
    while clock() < deadline {
        match until {
            // Reached, or stopped by the watchdog (its panel says why).
            Some(until) => {
                if sim.run_until_bounded(until, EVENTS_PER_CLOCK_READING.into()) != Ok(false) {
                    return;
                }
            }
            None => {
                for _ in 0..EVENTS_PER_CLOCK_READING {
                    if !sim.step() {
                        return;
                    }
                }
            }
        }
    }
}
