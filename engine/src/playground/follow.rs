//! Following a lesson as a learner would, at once: `sluice lesson` and
//! the tests (`follow`, every step in turn; `follow_pausing`, a learner who
//! reads before each step; `follow_alone`, a step pressed first), and the
//! page's steps played first (`play_to_verdict`).
//!
//! Guarantees:
//! - The same commands the page sends: a step is tried, its sweep run and
//!   handed back, and it is judged at its own time (never a shortcut the
//!   page does not take).
//! - A step that asks the learner for its change makes the step's own
//!   changes, as "Do it for me" does: the lesson's own path.
//! - A run is taken through at most `SKIP_EVENTS` events at once.

use crate::lesson::Lesson;
use crate::simulation::Stop;
use crate::sweep::{Runner, SweepError};
use crate::time::SimDuration;

use super::{Command, LessonRun, PlayError, Playground, Speed, StepOutcome};

/// Why following a lesson stopped.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// The lesson would not open.
    #[error(transparent)]
    Open(PlayError),
    /// Step `step` (from 0) could not be tried or judged.
    #[error("step {}: {why}", step + 1)]
    Step { step: usize, why: FollowStep },
}

/// What stopped a step of a lesson being followed.
#[derive(Debug, thiserror::Error)]
pub enum FollowStep {
    #[error(transparent)]
    Play(PlayError),
    #[error(transparent)]
    Sweep(SweepError),
    /// The run stopped before the instant the step is judged at.
    #[error("{0}")]
    Stopped(Stop),
    /// Variant B's run did.
    #[error("variant B: {0}")]
    StoppedB(Stop),
    #[error("the step was neither watched nor judged")]
    Unjudged,
    /// More events to the verdict than are run in one go.
    #[error("more than {} events to the verdict, too many to run at once: let it play", crate::plumbing::numbers::thousands(SKIP_EVENTS as f64))]
    TooManyEvents,
}

/// The most events a run is taken through at once to a step's verdict
/// (playing earlier steps first, Skip ahead, `follow`): every lesson needs
/// far fewer; a scenario a learner made huge says so instead of holding
/// the page.
pub const SKIP_EVENTS: u64 = 5_000_000;

/// Follows every step of `lesson` in order on a playground, as a diligent
/// learner would on the page: the lesson opens, each step is tried once the
/// one before it was judged, and judged `within_s` after it began.
pub fn follow(lesson: &Lesson) -> Result<Vec<StepOutcome>, FollowError> {
    follow_pausing(lesson, &[])
}

/// Follows `lesson` as `follow` does, with a learner who reads before
/// trying: the run goes on `pauses_s[k]` simulated seconds between step
/// `k`'s verdict and the next step's try (none where the list is short).
/// On the page the run goes on while the learner reads, so a step's change
/// lands at whatever instant they press; its claims must hold at any.
pub fn follow_pausing(lesson: &Lesson, pauses_s: &[f64]) -> Result<Vec<StepOutcome>, FollowError> {
    let mut playground = Playground::new(lesson.scenario.clone(), vec![lesson.clone()]).map_err(FollowError::Open)?;
    playground.apply(Command::PickLesson { index: 0, speed: Speed::Fastest }).map_err(FollowError::Open)?;
    let mut outcomes = Vec::new();
    for k in 0..lesson.text.steps.len() {
        let at = |why: FollowStep| FollowError::Step { step: k, why };
        // The learner reads; a step already watched meanwhile is judged at
        // its own time below.
        let pause_s = k.checked_sub(1).and_then(|before| pauses_s.get(before)).copied().unwrap_or(0.0);
        let judge_at = playground.judge_at();
        if let Some(sim) = playground.a.as_mut().filter(|_| pause_s > 0.0) {
            let until = sim.now() + SimDuration::from_secs_f64(pause_s);
            sim.run_until(judge_at.map_or(until, |j| j.min(until))).map_err(|stop| at(FollowStep::Stopped(stop)))?;
        }
        outcomes.push(playground.try_and_judge(k).map_err(at)?);
    }
    Ok(outcomes)
}

/// Opens `lesson` and presses step `k` first, before any other, as a
/// learner who jumps ahead (or follows a link to the step) does: the
/// step's outcome.
pub fn follow_alone(lesson: &Lesson, k: usize) -> Result<StepOutcome, FollowError> {
    let mut playground = Playground::new(lesson.scenario.clone(), vec![lesson.clone()]).map_err(FollowError::Open)?;
    playground.apply(Command::PickLesson { index: 0, speed: Speed::Fastest }).map_err(FollowError::Open)?;
    playground.try_and_judge(k).map_err(|why| FollowError::Step { step: k, why })
}

impl Playground {
    /// Tries step `k` (unless it is being watched already), runs its
    /// sweep if it has one, and runs to its verdict.
    fn try_and_judge(&mut self, k: usize) -> Result<StepOutcome, FollowStep> {
        self.try_unless_watched(k)?;
        let now_s = self.run().map_or(0.0, |sim| sim.now().as_secs_f64());
        if let Some((ticket, request)) = self.lesson_sweep().filter(|(ticket, _)| ticket.step == k) {
            let result = Runner::new(request.plan().map_err(FollowStep::Sweep)?).finish().map_err(FollowStep::Sweep)?;
            self.apply(Command::JudgeSweep { ticket, result, speed: Speed::Fastest }).map_err(FollowStep::Play)?;
        }
        self.judged_now(k, now_s)
    }

    /// Tries step `k`, which does not sweep (unless it is being watched
    /// already), and runs to its verdict: a step played first. (No sweep
    /// runs here, so the page's module holds no sweep runner.)
    pub(super) fn play_to_verdict(&mut self, k: usize) -> Result<StepOutcome, FollowStep> {
        self.try_unless_watched(k)?;
        let now_s = self.run().map_or(0.0, |sim| sim.now().as_secs_f64());
        self.judged_now(k, now_s)
    }

    /// (A step that asks for a change is done for the learner: the
    /// lesson's own path.)
    fn try_unless_watched(&mut self, k: usize) -> Result<(), FollowStep> {
        if self.lesson().and_then(LessonRun::watching) != Some(k) {
            self.apply(Command::TryStep { step: k, speed: Speed::Fastest }).map_err(FollowStep::Play)?;
        }
        if self.lesson().and_then(LessonRun::asking) == Some(k) {
            self.apply(Command::DoItForMe { speed: Speed::Fastest }).map_err(FollowStep::Play)?;
        }
        Ok(())
    }

    /// Runs the watched step to its verdict; a step that could not be
    /// watched was judged at once (at `now_s`).
    fn judged_now(&mut self, k: usize, now_s: f64) -> Result<StepOutcome, FollowStep> {
        match self.finish_watch()? {
            Some(outcome) => Ok(outcome),
            None => self.outcome(k, now_s, now_s).ok_or(FollowStep::Unjudged),
        }
    }
}
