//! Seeing the run again at an earlier instant, and playing on from there.
//!
//! Guarantees:
//! - Seen at an earlier instant (`Command::Scrub`), the runs are what runs
//!   stopped at that instant would be (`timeline::Run::at`), A and B at
//!   the same instant; the live runs wait meanwhile (`advance` moves
//!   nothing) and the page reads the past through `shown` and `shown_b`.
//! - Any edit, a restart or a lesson's command brings the view back to the
//!   live instant first: an edit is made to the live run.
//! - `Command::PlayFrom` forks: the instant seen becomes the live one and
//!   what came after is gone, A's and B's alike; a step being watched is
//!   no longer. `Command::Undo` before any edit brings the old future back
//!   (run again to where it was).

use crate::simulation::Simulation;
use crate::time::SimTime;
use crate::timeline::Future;

use super::{Applied, PlayError, Playground, Rewound};

/// The runs as they stood at an earlier instant.
pub(super) struct Scrubbed {
    at: SimTime,
    a: Simulation,
    b: Option<Simulation>,
}

/// A fork, to be undone until the next edit.
pub(super) struct Forked {
    pub(super) revision: u64,
    a: Future,
    b: Option<Future>,
}

impl Playground {
    /// Shows the runs at `at_s` (clamped to what is kept, up to the live
    /// instant), or at the live instant (`None`, or `at_s` at or past it).
    pub(super) fn scrub(&mut self, at_s: Option<f64>) -> Result<Applied, PlayError> {
        let Some(a) = &self.a else { return Err(PlayError::NotRunning) };
        let live = a.now();
        let t = match at_s {
            Some(s) if s.is_finite() && s >= 0.0 => SimTime::from_secs_f64(s).max(a.earliest()),
            Some(s) if s.is_finite() => a.earliest(),
            Some(_) => return Err(PlayError::NotAnInstant),
            None => live,
        };
        if t >= live {
            self.scrub = None;
            return Ok(Applied::default());
        }
        let scrubbed = match self.scrub.take() {
            // Forward from the instant seen: on from there, unless a
            // checkpoint is nearer.
            Some(mut seen) if seen.at <= t => {
                a.onward(&mut seen.a, seen.at, t);
                if let (Some(copy), Some(b)) = (&mut seen.b, &self.b) {
                    b.sim.onward(copy, seen.at, t);
                }
                Scrubbed { at: t, ..seen }
            }
            _ => Scrubbed { at: t, a: a.at(t), b: self.b.as_ref().map(|b| b.sim.at(t)) },
        };
        self.scrub = Some(scrubbed);
        Ok(Applied::default())
    }

    /// The instant seen, while the runs are seen at an earlier one.
    pub fn scrubbed(&self) -> Option<SimTime> {
        self.scrub.as_ref().map(|s| s.at)
    }

    /// The earliest instant A can be seen at (later than zero only when a
    /// long run outgrew its memory for checkpoints).
    pub fn earliest(&self) -> SimTime {
        self.a.as_ref().map_or(SimTime::ZERO, |a| a.earliest())
    }

    /// Run A as the page shows it: at the instant seen, or live.
    pub fn shown(&self) -> Option<&Simulation> {
        match &self.scrub {
            Some(seen) => Some(&seen.a),
            None => self.run(),
        }
    }

    /// Run B as the page shows it, with a comparison open.
    pub fn shown_b(&self) -> Option<&Simulation> {
        match &self.scrub {
            Some(seen) => seen.b.as_ref(),
            None => self.b.as_ref().map(|b| b.sim.sim()),
        }
    }

    /// Moves the view seen at an earlier instant on by one event of A (B
    /// to A's instant); at the live run's last event, the view is live.
    pub(super) fn step_seen(&mut self) {
        let (Some(seen), Some(a)) = (&mut self.scrub, &self.a) else { return };
        seen.a.step();
        let t = seen.a.now();
        if let (Some(copy), Some(b)) = (&mut seen.b, &self.b) {
            b.sim.onward(copy, seen.at, t);
        }
        seen.at = t;
        if seen.a.events() >= a.events() {
            self.scrub = None;
        }
    }

    /// Plays on from the instant seen: it becomes the live one.
    pub(super) fn play_from(&mut self) -> Result<Applied, PlayError> {
        let (Some(seen), Some(a)) = (self.scrub.take(), &mut self.a) else { return Err(PlayError::NotScrubbed) };
        let at = seen.at;
        let old_a = a.fork_at(seen.at);
        let old_b = self.b.as_mut().map(|b| b.sim.fork_at(seen.at));
        self.forked = Some(Forked { revision: self.revision, a: old_a, b: old_b });
        if let Some(run) = &mut self.lesson {
            run.forget_watch();
            run.forget_compared();
        }
        Ok(Applied { rewound: Some(Rewound::Forked(at)), ..Applied::default() })
    }

    /// Whether Undo would undo a fork (nothing was edited since it).
    pub fn can_undo_fork(&self) -> bool {
        self.forked.as_ref().is_some_and(|f| f.revision == self.revision)
    }

    /// Undoes the last fork, if nothing was edited since: the old future
    /// runs again to where it was. Returns whether it did.
    pub(super) fn undo_fork(&mut self) -> bool {
        let Some(forked) = self.forked.take().filter(|f| f.revision == self.revision) else { return false };
        self.scrub = None;
        let Some(a) = &mut self.a else { return false };
        if !a.restore(forked.a) {
            return false;
        }
        if let (Some(b), Some(future)) = (&mut self.b, forked.b) {
            b.sim.restore(future);
        }
        true
    }
}
