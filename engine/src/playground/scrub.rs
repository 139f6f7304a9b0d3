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
//!   what came after is gone, A's and B's alike; the run goes on with the
//!   blocks' parameters as the editor has them (refused before a block put
//!   on an edge, which the run would lose); a step being watched is no
//!   longer. `Command::Undo` before any edit brings the old future back
//!   (run again to where it was), while its instant is still kept.

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
    edits: u64,
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
    /// to A's instant), taking the live changes made there; at the live
    /// run's last event, the view is live. Returns false, the view made
    /// live, when it was at the live run's events already (the step is then
    /// the live run's).
    pub(super) fn step_seen(&mut self) -> bool {
        let (Some(seen), Some(a)) = (&mut self.scrub, &self.a) else { return false };
        if seen.a.events() >= a.events() {
            self.scrub = None;
            return false;
        }
        a.step_copy(&mut seen.a);
        let t = seen.a.now();
        if let (Some(copy), Some(b)) = (&mut seen.b, &self.b) {
            b.sim.onward(copy, seen.at, t);
        }
        seen.at = t;
        if seen.a.events() >= a.events() {
            self.scrub = None;
        }
        true
    }

    /// Plays on from the instant seen: it becomes the live one, with the
    /// blocks' parameters as the editor has them now (a change made after
    /// that instant is made again at it), so that the run, the canvas and
    /// the inspector agree.
    pub(super) fn play_from(&mut self) -> Result<Applied, PlayError> {
        let (Some(seen), Some(a)) = (self.scrub.take(), &mut self.a) else { return Err(PlayError::NotScrubbed) };
        let editor = self.editor.scenario();
        if seen.a.scenario().nodes.len() != editor.nodes.len() {
            self.scrub = Some(seen);
            return Err(PlayError::ForkBeforeInsertion);
        }
        let at = seen.at;
        let old_a = a.fork_at(seen.at);
        let changed: Vec<usize> = (0..editor.nodes.len()).filter(|&i| a.scenario().nodes[i].block != editor.nodes[i].block).collect();
        if !changed.is_empty() {
            // A run that cannot take them (receipts turned on since) goes
            // on with its own.
            let _ = a.take_blocks(editor, &changed);
        }
        let old_b = self.b.as_mut().map(|b| b.sim.fork_at(seen.at));
        self.forked = Some(Forked { edits: self.edits, a: old_a, b: old_b });
        if let Some(run) = &mut self.lesson {
            run.forget_watch();
            run.forget_compared();
            run.forget_explained();
        }
        Ok(Applied { rewound: Some(Rewound::Forked(at)), ..Applied::default() })
    }

    /// Whether Undo would undo a fork (nothing was edited since it).
    pub fn can_undo_fork(&self) -> bool {
        self.forked.as_ref().is_some_and(|f| f.edits == self.edits && self.a.as_ref().is_some_and(|a| a.can_restore(&f.a)))
    }

    /// Whether run A took live changes: a link to one of its instants
    /// would not show the same run (the file carries the parameters as
    /// they are now, from time zero).
    pub fn changed_live(&self) -> bool {
        self.a.as_ref().is_some_and(|a| a.changes_taken() > 0)
    }

    /// Undoes the last fork, if nothing was edited since: the old future
    /// runs again to where it was. Returns whether it did.
    pub(super) fn undo_fork(&mut self) -> bool {
        if !self.can_undo_fork() {
            return false;
        }
        let Some(forked) = self.forked.take() else { return false };
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
