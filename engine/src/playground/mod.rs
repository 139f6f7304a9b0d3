//! The playground: the scenario being edited, the run that follows it, an
//! A/B comparison beside it, and the lesson being followed. The page, the
//! `sluice lesson` command and the lesson tests all drive it through the
//! same commands, so what a learner sees and what the tests check is one
//! flow.
//!
//! Guarantees:
//! - Input is one enum, `Command`, through one `apply`, which returns what
//!   changed or a `PlayError` that says why nothing did.
//! - One rule decides whether an edit applies to the running simulation or
//!   starts it again (`follow_editor`): an edit of layout or of parameters
//!   goes on live, unless the run cannot take it (receipts turned on) or the
//!   watchdog stopped it; anything else starts again from time zero on the
//!   scenario's seed. The editor says what an edit touched, so no two
//!   scenarios are compared and the draft is validated once.
//! - A block that still lacks an edge holds back the blocks joined to it,
//!   and the rest runs (`Simulation::new_in_part`); nothing runs only when
//!   every block is held or the rest names a held one. Variant B of a
//!   comparison starts again whenever A does, on A's seed.
//! - Pure: no clock is read here. The caller says how much real time passed
//!   (`pacing.rs`).

mod explaining;
mod follow;
mod lessons;
mod pacing;
mod scrub;

use crate::editor::{EditError, Editor, Touched};
use crate::scenario::free_spot;
use crate::lesson::{Lesson, LessonError};
use crate::scenario::{BlockSpec, FieldPath, Kind, Position, Scenario};
use crate::simulation::Simulation;
use crate::time::SimTime;
use crate::timeline::Run;
use crate::sweep::SweepResult;

pub use follow::{follow, follow_alone, follow_pausing, FollowError, FollowStep, SKIP_EVENTS};
pub use lessons::{LessonRun, LessonSweep, StepBegun, StepOutcome, StepState, SweepTicket};
pub use pacing::{lesson_minutes, Advanced, Speed, EVENTS_PER_SLICE, FASTEST_BUDGET_S, MAX_SLICE_S, READING_WORDS_PER_MIN, SPEEDS, SWEEP_STEP_REAL_S, WATCH_REAL_S};

/// What a person (or a test) does to the playground.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Adds a block of `kind` at `at`, or in the first free spot.
    Add { kind: Kind, at: Option<Position> },
    /// Adds a block of `kind` at `at` on the edge from `from` to `to`,
    /// which becomes two through it: one edit, taken live by a running
    /// simulation when the block holds nothing.
    Insert { kind: Kind, at: Position, from: String, to: String },
    Connect { from: String, to: String },
    Disconnect { from: String, to: String },
    /// Moves blocks by (dx, dy) as one edit.
    Move { ids: Vec<String>, dx: f64, dy: f64 },
    Duplicate(Vec<String>),
    Remove(Vec<String>),
    /// New parameters for one block (of the same kind): an edit of its own.
    SetBlock { id: String, block: BlockSpec },
    /// New parameters for one block, continuing the edit that set the same
    /// block's parameters just before (the next value of a slider being
    /// dragged, the next key typed in a field): one edit for Undo.
    Adjust { id: String, block: BlockSpec },
    /// One number field of one block set in place (typed, with no JSON
    /// between): an edit of its own.
    SetNumber { id: String, field: FieldPath, value: f64 },
    /// One number field set, continuing the edit of the same block's
    /// parameters just before (a slider's next tick): one edit for Undo,
    /// checked for that block alone.
    AdjustNumber { id: String, field: FieldPath, value: f64 },
    SetSeed(u64),
    /// Names and describes the scenario: an edit of its own that the run
    /// does not notice.
    Describe { name: String, description: String },
    /// Starts from scratch: an empty canvas (an undoable edit); closes the
    /// comparison and the lesson, which were about what was there.
    New,
    /// Replaces the scenario by a file's text (an undoable edit); closes
    /// the comparison, which would compare with something else altogether,
    /// and the lesson, whose steps are about its own scenario (the lesson's
    /// mark on saved work would otherwise claim this one, `browser/keep.rs`).
    Import(String),
    /// A real server's configuration read into blocks
    /// (`config::import`, in the page's worker), added below the scenario
    /// as one edit.
    ImportConfig { imported: crate::config::Imported },
    Undo,
    Redo,
    /// Starts the run (and B) again from time zero.
    Reset,
    /// Processes one event of run A, or goes on to the instant a watched
    /// step is judged at if that comes first; B follows to A's instant.
    /// `speed` as for `PickLesson`: the verdict may begin the next step,
    /// one that only watches.
    Step { speed: Speed },
    /// Runs a copy of the scenario as it is now beside it, as B; both start
    /// again from time zero on A's seed.
    OpenComparison,
    CloseComparison,
    /// Opens lesson `index` (by position in the catalogue): its scenario,
    /// from time zero. `speed` is the speed the page runs at: a first step
    /// that only watches begins at once, and may ask for a faster one.
    PickLesson { index: usize, speed: Speed },
    /// Does step `step` of the open lesson and starts watching it (or hands
    /// out its sweep); `speed` as for `PickLesson`.
    TryStep { step: usize, speed: Speed },
    /// Hands back the finished sweep `ticket` names, to be judged (which
    /// may begin the next step, as `Step` may); `speed` as for `PickLesson`.
    JudgeSweep { ticket: SweepTicket, result: SweepResult, speed: Speed },
    /// The sweep `ticket` names ended without a result (it failed, was
    /// cancelled, or its panel closed): its step says why, and can be
    /// tried again.
    AbandonSweep { ticket: SweepTicket, why: String },
    /// "Do it for me": the step of the open lesson waiting for the
    /// learner's change makes its own and begins; `speed` as for
    /// `PickLesson`.
    DoItForMe { speed: Speed },
    /// Runs the watched step of the open lesson on to its verdict at once
    /// ("Skip ahead": as fast as the machine goes, the page's speed kept);
    /// `speed` as for `PickLesson`: the verdict may begin the next step.
    SkipToVerdict { speed: Speed },
    /// Opens a lesson of one's own (written in the page, or from a link or
    /// a file), checked whole first: it takes the place of the one opened
    /// so before, beside the catalogue, and opens as `PickLesson` does.
    OpenLesson { lesson: Box<Lesson>, speed: Speed },
    CloseLesson,
    /// Shows the runs as they stood at `at_s` seconds (clamped to what is
    /// kept), or live again (`None`, or an instant at or past the live
    /// one). The live runs wait meanwhile.
    Scrub { at_s: Option<f64> },
    /// Plays on from the instant shown: it becomes the live one and what
    /// came after is gone (Undo, before any edit, brings it back).
    PlayFrom,
    /// Runs A (and B) on to `at_s` seconds at once, as a link to an instant
    /// opens (a run stopped by the watchdog stops earlier; an instant
    /// already passed changes nothing).
    RunTo { at_s: f64 },
}

impl Command {
    /// Whether the command edits the scenario (and so may be refused by the
    /// editor).
    pub fn edits(&self) -> bool {
        !matches!(
            self,
            Command::Reset
                | Command::Step { .. }
                | Command::OpenComparison
                | Command::CloseComparison
                | Command::CloseLesson
                | Command::JudgeSweep { .. }
                | Command::AbandonSweep { .. }
                | Command::SkipToVerdict { .. }
                | Command::Scrub { .. }
                | Command::PlayFrom
                | Command::RunTo { .. }
        )
    }
}

/// What a command did, beyond what the playground now shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// The scenario changed: worth saving.
    pub edited: bool,
    /// Blocks worth selecting now: those added or duplicated, the open
    /// lesson's focus, or the block a step tried checks first.
    pub select: Option<Vec<String>>,
    /// A lesson step began: what the page shows of it.
    pub step: Option<StepBegun>,
    /// A configuration imported: what it holds that is not modelled, each
    /// with its line.
    pub notes: Vec<crate::config::Note>,
    /// The runs went back in time: forked at an earlier instant, or the
    /// fork undone (what a page noted of them after that instant goes, or
    /// comes back).
    pub rewound: Option<Rewound>,
}

/// How the runs went back in time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rewound {
    /// Played on from this instant: what came after it is gone.
    Forked(SimTime),
    /// The last fork undone: the old future is back.
    Restored,
}

/// Why a command changed nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayError {
    /// The editor refused the edit; the reason names what is wrong.
    Refused(EditError),
    /// A/B needs a scenario that runs.
    NotRunning,
    /// A lesson command, but no lesson is open.
    NoLessonOpen,
    NoSuchLesson(usize),
    NoSuchStep(usize),
    /// A lesson's step or variant could not be made.
    Lesson(LessonError),
    /// Variant B could not start.
    Comparison(String),
    /// Step `step` builds on step `before`, which could not be played
    /// first (both counted from 0).
    SetUp { step: usize, before: usize, why: String },
    /// No step of the open lesson is being watched: nothing to skip to.
    NothingWatched,
    /// No step of the open lesson waits for a change to be made.
    NothingAsked,
    /// The run stopped before the watched step's verdict.
    Skip(String),
    /// Play from an instant, but the runs are shown live.
    NotScrubbed,
    /// Play from an instant before a block was put on an edge: the run
    /// from there would not have it.
    ForkBeforeInsertion,
    /// An instant to show that is not a number of seconds.
    NotAnInstant,
}

impl std::fmt::Display for PlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::Refused(why) => why.fmt(f),
            PlayError::Lesson(why) => write!(f, "{why}"),
            PlayError::Comparison(why) => f.write_str(why),
            PlayError::NotRunning => f.write_str("A/B needs a scenario that runs: it still lacks an edge."),
            PlayError::NoLessonOpen => f.write_str("No lesson is open."),
            PlayError::NoSuchLesson(n) => write!(f, "There is no lesson {}.", n + 1),
            PlayError::NoSuchStep(k) => write!(f, "The lesson has no step {}.", k + 1),
            PlayError::NothingWatched => f.write_str("No step is being watched."),
            PlayError::NothingAsked => f.write_str("No step is waiting for a change."),
            PlayError::Skip(why) => write!(f, "The run could not go on to the verdict: {why}"),
            PlayError::NotScrubbed => f.write_str("The run is shown live: drag the time line back to play on from an earlier instant."),
            PlayError::ForkBeforeInsertion => {
                f.write_str("A block was put on an edge after this instant: playing on from here would lose it. Play on from after it, or Reset.")
            }
            PlayError::NotAnInstant => f.write_str("An instant is a number of seconds."),
            PlayError::SetUp { step, before, why } => {
                write!(f, "Step {} builds on step {}, which could not be played first: {why}", step + 1, before + 1)
            }
        }
    }
}

impl std::error::Error for PlayError {}

/// Variant B of a comparison: another scenario on A's seed, run to A's
/// time, watched but not edited.
pub struct Variant {
    /// What A and B are, for people.
    pub labels: (String, String),
    pub sim: Run,
}

impl Variant {
    fn start(scenario: Scenario, seed: u64, labels: (String, String), flows: bool) -> Result<Variant, PlayError> {
        let mut sim = Simulation::new_in_part(scenario, seed).map_err(|e| PlayError::Comparison(e.to_string()))?;
        if flows {
            sim.count_flows();
        }
        Ok(Variant { labels, sim: Run::new(sim) })
    }
}

pub struct Playground {
    editor: Editor,
    lessons: Vec<Lesson>,
    /// The run of the edited scenario's connected part (none while no part
    /// of it can run).
    a: Option<Run>,
    b: Option<Variant>,
    lesson: Option<LessonRun>,
    /// Where the lesson of one's own is among `lessons`, and how many were
    /// opened so (the page reads the lessons again when it changes).
    written: Option<usize>,
    writings: u64,
    /// Whether runs count the messages on each edge (the page draws them).
    flows: bool,
    /// How many runs were started: a view of a run keeps the count it was
    /// made for, and starts afresh when it changes.
    starts: u64,
    /// Counts accepted edits and lesson verdicts: what a view catches up
    /// with at once.
    revision: u64,
    /// The runs as they stood at an earlier instant, while shown so.
    scrub: Option<scrub::Scrubbed>,
    /// The last fork, until the next edit.
    forked: Option<scrub::Forked>,
    /// Counts accepted edits alone (not verdicts): a fork is undone only
    /// until the next.
    edits: u64,
}

impl Playground {
    /// Opens `scenario` (a sound draft) with `lessons` to pick from.
    pub fn new(scenario: Scenario, lessons: Vec<Lesson>) -> Result<Playground, PlayError> {
        let editor = Editor::new(scenario).map_err(PlayError::Refused)?;
        let mut playground = Playground { editor, lessons, a: None, b: None, lesson: None, written: None, writings: 0, flows: false, starts: 0, revision: 0, scrub: None, forked: None, edits: 0 };
        playground.restart();
        Ok(playground)
    }

    /// Runs count the messages on each edge from now on (what the page's
    /// canvas draws); the run starts again.
    pub fn count_flows(&mut self) {
        self.flows = true;
        self.restart();
    }

    pub fn scenario(&self) -> &Scenario {
        self.editor.scenario()
    }

    pub fn editor(&self) -> &Editor {
        &self.editor
    }

    /// The run of the edited scenario; none while it lacks an edge.
    pub fn run(&self) -> Option<&Simulation> {
        self.a.as_ref().map(Run::sim)
    }

    /// Variant B, with a comparison open.
    pub fn variant_b(&self) -> Option<&Variant> {
        self.b.as_ref()
    }

    /// Where the lesson of one's own is among `lessons()`, if one was
    /// opened, and how many times one was: the lessons changed.
    pub fn written(&self) -> (Option<usize>, u64) {
        (self.written, self.writings)
    }

    pub fn lessons(&self) -> &[Lesson] {
        &self.lessons
    }

    /// The open lesson and where its steps stand.
    pub fn lesson(&self) -> Option<&LessonRun> {
        self.lesson.as_ref()
    }

    /// How many runs were started so far.
    pub fn starts(&self) -> u64 {
        self.starts
    }

    /// Counts accepted edits and verdicts.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// What the draft still lacks before it can run, in words.
    pub fn missing(&self) -> Vec<String> {
        self.editor.missing().iter().map(|e| e.message.clone()).collect()
    }

    /// Index of node `id` in the edited scenario.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.editor.scenario().node_index(id)
    }

    /// Does `command`.
    pub fn apply(&mut self, command: Command) -> Result<Applied, PlayError> {
        // Anything else is done to the live runs: they are shown live.
        // (A sweep's answer comes from the worker, whenever it is done.)
        if !matches!(command, Command::Scrub { .. } | Command::Step { .. } | Command::PlayFrom | Command::Undo | Command::JudgeSweep { .. } | Command::AbandonSweep { .. }) {
            self.scrub = None;
        }
        // Edits: what they leave worth selecting.
        let select = match command {
            Command::Add { kind, at } => {
                let at = at.unwrap_or_else(|| free_spot(self.editor.scenario()));
                Some(vec![self.edit(|e| e.add_node(kind, at))?])
            }
            Command::Insert { kind, at, from, to } => Some(vec![self.edit(|e| e.insert_on_edge(kind, at, &from, &to))?]),
            Command::Connect { from, to } => self.edit(|e| e.connect(&from, &to)).map(|()| None)?,
            Command::Disconnect { from, to } => self.edit(|e| e.disconnect(&from, &to)).map(|()| None)?,
            Command::Move { ids, dx, dy } => self.edit(|e| e.move_by(&ids, dx, dy)).map(|()| None)?,
            Command::Duplicate(ids) => Some(self.edit(|e| e.duplicate(&ids))?),
            Command::Remove(ids) => self.edit(|e| e.remove(&ids)).map(|()| None)?,
            Command::SetBlock { id, block } => self.edit(|e| e.set_block(&id, block)).map(|()| None)?,
            Command::Adjust { id, block } => self.edit(|e| e.adjust(&id, block)).map(|()| None)?,
            Command::SetNumber { id, field, value } => self.edit(|e| e.set_number(&id, &field, value)).map(|()| None)?,
            Command::AdjustNumber { id, field, value } => self.edit(|e| e.adjust_number(&id, &field, value)).map(|()| None)?,
            Command::SetSeed(seed) => self.edit(|e| e.set_seed(Some(seed))).map(|()| None)?,
            Command::Import(text) => {
                self.edit(|e| e.import(&text))?;
                // (The very scenario there changes nothing: the lesson's stays.)
                if self.editor.touched().is_some() {
                    self.b = None;
                    self.lesson = None;
                }
                None
            }
            Command::ImportConfig { imported } => {
                let ids = self.edit(|e| e.add_all(&imported.scenario))?;
                let step = self.answer_ask();
                return Ok(Applied { notes: imported.notes, step, ..self.edited(Some(ids)) });
            }
            Command::Describe { name, description } => self.edit(|e| e.describe(&name, &description)).map(|()| None)?,
            Command::New => {
                self.edit(Editor::clear)?;
                self.b = None;
                self.lesson = None;
                None
            }
            Command::Undo if self.undo_fork() => {
                self.starts += 1;
                return Ok(Applied { rewound: Some(Rewound::Restored), ..Applied::default() });
            }
            Command::Undo => self.edit(|e| Ok(e.undo())).map(|_| None)?,
            Command::Redo => self.edit(|e| Ok(e.redo())).map(|_| None)?,
            // The rest are not edits.
            Command::Reset => {
                self.restart();
                return Ok(Applied::default());
            }
            Command::Step { .. } if self.scrub.is_some() && self.step_seen() => return Ok(Applied::default()),
            Command::Scrub { at_s } => return self.scrub(at_s),
            Command::RunTo { at_s } => {
                if !(at_s.is_finite() && (0.0..=1e9).contains(&at_s)) {
                    return Err(PlayError::NotAnInstant);
                }
                let at = SimTime::from_secs_f64(at_s);
                if self.a.as_ref().is_some_and(|a| a.now() > at) {
                    // Passed already: shown, as the time line would.
                    return self.scrub(Some(at_s));
                }
                // As far as a skip goes at once, and no further than a
                // watched step's verdict.
                let until = self.judge_at().map_or(at, |j| j.min(at));
                if let Some(a) = &mut self.a {
                    let _ = a.run_until_bounded(until, SKIP_EVENTS);
                }
                self.catch_up();
                let judged = self.judge();
                return Ok(Applied { step: judged.then(|| self.begun_alone(Speed::Times(1.0))).flatten(), ..Applied::default() });
            }
            Command::PlayFrom => {
                let applied = self.play_from()?;
                self.starts += 1;
                self.revision += 1;
                return Ok(applied);
            }
            Command::Step { speed } => {
                let judge_at = self.judge_at();
                if let Some(sim) = &mut self.a {
                    match judge_at {
                        // The next event comes after a step's verdict is
                        // due: the step stops at the verdict's instant.
                        Some(at) if sim.now() < at && sim.next_event_time().is_none_or(|next| next > at) => {
                            // A run that stops stops the same at the event.
                            let _ = sim.run_until(at);
                        }
                        _ => {
                            sim.step();
                        }
                    }
                }
                // B, where there is one, is read at A's instant.
                self.catch_up();
                let judged = self.judge();
                return Ok(Applied { step: judged.then(|| self.begun_alone(speed)).flatten(), ..Applied::default() });
            }
            Command::OpenComparison => {
                if self.a.is_none() {
                    return Err(PlayError::NotRunning);
                }
                let b = self.editor.scenario().clone();
                self.open_comparison(b, ("edited".into(), "as it was when A/B opened".into()))?;
                return Ok(Applied::default());
            }
            Command::CloseComparison => {
                self.b = None;
                return Ok(Applied::default());
            }
            Command::PickLesson { index, speed } => return self.pick_lesson(index, speed),
            Command::TryStep { step, speed } => return self.try_step(step, speed),
            Command::JudgeSweep { ticket, result, speed } => return self.judge_sweep(ticket, &result, speed),
            Command::AbandonSweep { ticket, why } => return self.abandon_sweep(ticket, why),
            Command::SkipToVerdict { speed } => return self.skip_to_verdict(speed),
            Command::DoItForMe { speed } => return self.do_it_for_me(speed),
            Command::OpenLesson { lesson, speed } => {
                lesson.verify().map_err(PlayError::Lesson)?;
                let index = match self.written.filter(|&i| i < self.lessons.len()) {
                    Some(i) => {
                        self.lessons[i] = *lesson;
                        i
                    }
                    None => {
                        self.lessons.push(*lesson);
                        self.lessons.len() - 1
                    }
                };
                self.written = Some(index);
                self.writings += 1;
                return self.pick_lesson(index, speed);
            }
            Command::CloseLesson => {
                self.lesson = None;
                return Ok(Applied::default());
            }
        };
        // An edit may be the change a lesson step asked for.
        let step = self.answer_ask();
        Ok(Applied { step, ..self.edited(select) })
    }

    /// What an edit did: `select` is worth selecting.
    fn edited(&self, select: Option<Vec<String>>) -> Applied {
        Applied { edited: self.editor.touched().is_some(), select, step: None, notes: Vec::new(), rewound: None }
    }

    /// Edits the scenario with `change`; the run then follows the edit.
    fn edit<T>(&mut self, change: impl FnOnce(&mut Editor) -> Result<T, EditError>) -> Result<T, PlayError> {
        self.scrub = None;
        let result = change(&mut self.editor).map_err(PlayError::Refused)?;
        self.revision += 1;
        self.edits += 1;
        self.follow_editor();
        Ok(result)
    }

    /// Brings the run in line with the edited scenario: an edit of layout
    /// or parameters goes on live; anything else, a change the run cannot
    /// take, or a run the watchdog stopped, starts again from time zero.
    fn follow_editor(&mut self) {
        let live = match (&mut self.a, self.editor.touched()) {
            // A run the watchdog stopped cannot go on.
            (Some(sim), _) if sim.stopped().is_some() => false,
            (Some(_), None | Some(Touched::Layout)) => true,
            (Some(sim), Some(Touched::Blocks(changed))) => sim.take_blocks(self.editor.scenario(), changed).is_ok(),
            (Some(sim), Some(&Touched::Inserted { node, from, to })) => sim.take_insertion(self.editor.scenario(), node, from, to).is_ok(),
            (Some(_), Some(Touched::Shape)) | (None, _) => false,
        };
        if !live {
            self.restart();
        } else if matches!(self.editor.touched(), Some(Touched::Blocks(_) | Touched::Inserted { .. })) {
            if let Some(run) = &mut self.lesson {
                run.edited_live();
            }
        }
    }

    /// Starts the run again from time zero, if the scenario can run; B
    /// starts again with it, on A's seed. A step being watched is no longer
    /// (its watch read the run that ended).
    fn restart(&mut self) {
        let scenario = self.editor.scenario().clone();
        let seed = scenario.seed_or_default();
        // A run with product limiters counts what they do to each key: the
        // page's shadow panel.
        let limits = scenario.nodes.iter().any(|n| n.block.kind() == Kind::ProductLimiter);
        let flows = self.flows;
        self.a = Simulation::new_in_part(scenario, seed).ok().map(|mut sim| {
            if limits {
                sim.tally_decisions();
            }
            if flows {
                sim.count_flows();
            }
            Run::new(sim)
        });
        self.b = self.b.take().and_then(|b| Variant::start(b.sim.scenario().clone(), seed, b.labels, flows).ok());
        self.starts += 1;
        self.scrub = None;
        self.forked = None;
        if let Some(run) = &mut self.lesson {
            run.forget_watch();
            run.forget_compared();
            run.forget_explained();
        }
    }

    /// Opens a comparison: the edited scenario is A, `b` runs beside it on
    /// the same seed; both start from time zero.
    fn open_comparison(&mut self, b: Scenario, labels: (String, String)) -> Result<(), PlayError> {
        let seed = self.editor.scenario().seed_or_default();
        self.b = Some(Variant::start(b, seed, labels, self.flows)?);
        self.restart();
        Ok(())
    }

    /// Brings B to A's simulated time (unless the watchdog stops it first),
    /// so that a paused page reads both at one instant.
    pub fn catch_up(&mut self) {
        if let (Some(a), Some(b)) = (&self.a, &mut self.b) {
            let _ = b.sim.run_until(a.now());
        }
    }

    /// Whether the watchdog stopped A or B.
    pub fn stopped(&self) -> bool {
        self.a.as_ref().is_some_and(|sim| sim.stopped().is_some()) || self.b.as_ref().is_some_and(|b| b.sim.stopped().is_some())
    }

    /// Why the watchdog stopped A or B, if it did, as a sentence.
    pub fn stall(&self) -> Option<String> {
        let a = self.a.as_ref().and_then(|run| run.stopped()).map(|stall| {
            let why = stall.to_string();
            let mut chars = why.chars();
            chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or(why)
        });
        a.or_else(|| self.b.as_ref().and_then(|b| b.sim.stopped()).map(|stall| format!("Variant B: {stall}")))
    }

    /// The runs a step's watch reads: A, and for a comparing step B too
    /// (when the comparison is open).
    fn runs(&self, compare: bool) -> Vec<&Simulation> {
        let b = self.b.as_ref().filter(|_| compare).map(|b| &b.sim);
        self.a.iter().map(Run::sim).chain(b.map(Run::sim)).collect()
    }
}

#[cfg(test)]
mod tests;
