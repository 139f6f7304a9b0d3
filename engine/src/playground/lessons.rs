//! Following a lesson on the playground: picking it, trying its steps,
//! watching each and judging it at its time.
//!
//! Guarantees:
//! - One flow for the page, `sluice lesson` and the tests (`follow` is a
//!   diligent learner pressing each step's button in turn).
//! - A lesson starts from time zero on its own scenario and seed. A first
//!   step that only watches begins with the lesson; any other step waits
//!   for its command.
//! - Step 1 starts the run again from time zero before its changes, so what
//!   it claims does not depend on when it was tried. A later step's changes
//!   are an ordinary edit (live, or a fresh start if the run cannot take
//!   them). A comparing step puts variant A in the editor (undoably) and B
//!   beside it, both from time zero on the lesson's seed.
//! - A step is judged at its time exactly, and only once B (if it compares)
//!   has caught up; a step whose run starts again before then is untried.
//! - A step can be pressed on its own, before the steps it builds on: the
//!   steps before it not yet judged (from the first of them, sweeps aside,
//!   which leave the run as it is; none for a comparing step, which runs
//!   the lesson's variants from time zero) are played first, each tried and
//!   judged at its time as a diligent learner would, then it begins. So a
//!   link to a step, or a learner who jumps ahead, gets the verdict the
//!   lesson's path gives, never a failure for a step skipped.
//! - A step's whole life is here: trying it answers with everything the
//!   page shows of it (`StepBegun`: the block and figure it checks first,
//!   the panel, a faster speed to watch it at, the sweep to run), so the
//!   page reads nothing of the lesson's text; a sweep step ends judged on
//!   its result or abandoned with why (failed, cancelled, its panel closed,
//!   another sweep step's sweep taking its place), never left sweeping.

use crate::lesson::{apply, Compared, Figure, Lesson, LessonError, Panel, Step, StepError, Verdict, Watch};
use crate::scenario::{BlockSpec, FieldPath};
use crate::sweep::{Metric, Request, SweepResult};

use super::follow::{FollowStep, SKIP_EVENTS};
use super::{Applied, PlayError, Playground, Speed};

/// Where one step of the open lesson stands.
#[derive(Clone, Debug, PartialEq)]
pub enum StepState {
    NotTried,
    /// A step that asks the learner for a change, waiting for it: the
    /// block and field asked for (the inspector shows them).
    Asking { node: String, field: FieldPath },
    /// Being watched until this simulated time; `alone`: it began of
    /// itself (it only watches, at the verdict before it or with the
    /// lesson), not at the learner's press.
    Watching { until_s: f64, alone: bool },
    /// A sweep step whose sweep is being run (`Playground::lesson_sweep`).
    Sweeping,
    Judged(Verdict),
    /// A sweep step whose sweep ended without a result, and why.
    Abandoned { why: String },
}

/// What the page shows when a lesson step begins, decided here.
#[derive(Clone, Debug, PartialEq)]
pub struct StepBegun {
    pub step: usize,
    /// Simulated seconds the step is watched (0 for a sweep step).
    pub within_s: f64,
    /// A faster speed to watch it at, when the page's is too slow to show
    /// it within `WATCH_REAL_S` real seconds.
    pub speed: Option<Speed>,
    /// The figure the step checks first: the chart to show.
    pub figure: Option<Figure>,
    /// The panel to bring into view (none: the page stays as it is, as
    /// when a first step begins with its lesson).
    pub panel: Option<Panel>,
    /// A sweep step's sweep, for the page to run and hand back.
    pub sweep: Option<LessonSweep>,
    /// The earlier steps played first, to their verdicts, because this
    /// one builds on them (counted from 0; none when it was pressed in
    /// order).
    pub set_up: Vec<usize>,
}

/// One sweep handed out: its step and which try of the step it is. A
/// result or a reason handed back names it, so that a sweep replaced by a
/// later try of the same step can settle nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepTicket {
    pub step: usize,
    pub attempt: u32,
}

/// The sweep a sweep step hands out: hand its result back with
/// `Command::JudgeSweep`, or say why there is none with
/// `Command::AbandonSweep`, naming its ticket.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonSweep {
    pub ticket: SweepTicket,
    pub request: Request,
    /// The figure the step judges, for the panel to chart.
    pub metric: Metric,
}

/// The open lesson: which, and where each of its steps stands.
pub struct LessonRun {
    /// Its place in the playground's lessons.
    pub index: usize,
    /// The step being watched, and its watch on the run.
    watching: Option<(usize, Watch)>,
    /// The watched step began on its own (it only watches), not at the
    /// learner's press.
    alone: bool,
    /// The sweep out, and the sweep.
    sweeping: Option<(SweepTicket, Request)>,
    /// The step waiting for the learner's change, and the page's speed
    /// when it was pressed (to watch it at once made).
    asking: Option<(usize, Speed)>,
    /// The page's speed at the last step pressed.
    speed: Speed,
    pub states: Vec<StepState>,
    /// How many times each step was begun (a verdict says which try it
    /// judged).
    pub tries: Vec<u32>,
    /// The watch of the last comparing step judged: what it compared goes
    /// on being shown beside A and B.
    compared: Option<(usize, Watch)>,
}

impl LessonRun {
    fn new(index: usize, steps: usize) -> LessonRun {
        LessonRun { index, watching: None, alone: false, sweeping: None, asking: None, speed: Speed::Fastest, states: vec![StepState::NotTried; steps], tries: vec![0; steps], compared: None }
    }

    /// Every step was judged, and each turned out as its text says.
    pub fn completed(&self) -> bool {
        self.states.iter().all(|s| matches!(s, StepState::Judged(v) if v.passed))
    }

    /// The step being watched, if any.
    pub fn watching(&self) -> Option<usize> {
        self.watching.as_ref().map(|(k, _)| *k)
    }

    /// The step waiting for the learner's change, if any.
    pub fn asking(&self) -> Option<usize> {
        self.asking.map(|(k, _)| k)
    }

    /// The run the watch read has ended: its step is untried again.
    /// The runs started again: the figures a comparing step compared
    /// were read on the runs that ended.
    pub(super) fn forget_compared(&mut self) {
        self.compared = None;
    }

    /// The run the verdicts' chains were read from has ended (started
    /// again, or forked before their instants): they are not shown again.
    pub(super) fn forget_explained(&mut self) {
        for state in &mut self.states {
            if let StepState::Judged(verdict) = state {
                verdict.explained = None;
            }
        }
    }

    pub(super) fn forget_watch(&mut self) {
        if let Some((k, _)) = self.watching.take() {
            self.states[k] = StepState::NotTried;
        }
    }

    /// The learner edited the run: a step that began on its own did not
    /// ask for that edit, and is untried again rather than judged on it.
    /// A step they pressed is judged on what they made of it.
    pub(super) fn edited_live(&mut self) {
        if self.alone {
            self.forget_watch();
        }
    }
}

/// How one step of a lesson came out when followed.
#[derive(Clone, Debug, PartialEq)]
pub struct StepOutcome {
    /// Simulated seconds at which the step began and was judged.
    pub began_s: f64,
    pub judged_s: f64,
    pub verdict: Verdict,
}

impl Playground {
    pub(super) fn pick_lesson(&mut self, index: usize, speed: Speed) -> Result<Applied, PlayError> {
        let lesson = self.lessons.get(index).ok_or(PlayError::NoSuchLesson(index))?;
        let text = lesson.scenario.to_json_pretty();
        let (steps, watch_first, focus) = (
            lesson.text.steps.len(),
            lesson.text.steps.first().is_some_and(Step::only_watches),
            lesson.text.focus.clone(),
        );
        self.edit(|e| e.import(&text))?;
        self.b = None;
        // A lesson starts from time zero, even if its scenario was open.
        self.restart();
        self.lesson = Some(LessonRun::new(index, steps));
        let mut step = None;
        if watch_first {
            self.watch_step(0, true);
            step = self.begun_alone(speed);
        }
        Ok(Applied { edited: true, select: Some(focus), step, ..Applied::default() })
    }

    /// What the page shows of the watched step when it began on its own (a
    /// step that only watches, with its lesson or at the verdict before
    /// it): the selection and the page stay as the learner left them; only
    /// a long watch asks for a faster speed.
    pub fn begun_alone(&self, speed: Speed) -> Option<StepBegun> {
        let k = self.lesson.as_ref()?.watching()?;
        self.begun(k, speed).map(|begun| StepBegun { figure: None, panel: None, ..begun })
    }

    pub(super) fn try_step(&mut self, k: usize, speed: Speed) -> Result<Applied, PlayError> {
        self.step(k).ok_or(if self.lesson.is_some() { PlayError::NoSuchStep(k) } else { PlayError::NoLessonOpen })?;
        if let Some(run) = &mut self.lesson {
            run.speed = speed;
        }
        let set_up = self.set_up_before(k)?;
        // A step that only watches may have begun on its own at the
        // verdict of the last step played first.
        let began_alone = !set_up.is_empty() && self.lesson.as_ref().and_then(LessonRun::watching) == Some(k);
        if began_alone {
            // It began at the verdict before it, but the learner pressed
            // it: an edit now is theirs to be judged on.
            if let Some(run) = &mut self.lesson {
                run.alone = false;
                if let Some(StepState::Watching { alone, .. }) = run.states.get_mut(k) {
                    *alone = false;
                }
            }
        }
        let mut applied = if began_alone { Applied { edited: true, ..Applied::default() } } else { self.begin_step(k, speed, false)? };
        applied.edited |= !set_up.is_empty();
        if self.lesson.as_ref().and_then(LessonRun::asking) == Some(k) {
            // The learner's turn: the block asked for is selected, its
            // inspector brought into view; the watch begins once they
            // make the change (`answer_ask`).
            let asked = self.step(k).and_then(|step| step.ask.as_ref()).map(|ask| ask.node.clone());
            applied.step = self.begun(k, speed).map(|begun| StepBegun { speed: None, panel: Some(Panel::Inspector), set_up, ..begun });
            applied.select = asked.filter(|node| self.scenario().node_index(node).is_some()).map(|node| vec![node]);
            return Ok(applied);
        }
        applied.step = self.begun(k, speed).map(|begun| StepBegun { set_up, ..begun });
        applied.select = applied.step.as_ref().and_then(|_| self.first_checked(k)).map(|id| vec![id]);
        Ok(applied)
    }

    /// "Do it for me": the step waiting for the learner's change makes its
    /// own changes and begins, as a step that asks nothing does.
    pub(super) fn do_it_for_me(&mut self, speed: Speed) -> Result<Applied, PlayError> {
        let k = self.lesson.as_ref().ok_or(PlayError::NoLessonOpen)?.asking().ok_or(PlayError::NothingAsked)?;
        let mut applied = self.begin_step(k, speed, true)?;
        applied.step = self.begun(k, speed);
        applied.select = applied.step.as_ref().and_then(|_| self.first_checked(k)).map(|id| vec![id]);
        Ok(applied)
    }

    /// After an edit: if it made the change the asking step waits for,
    /// that step begins, watched from now; what the page shows of it
    /// (no panel brought into view: the learner's hands are on the
    /// inspector).
    pub(super) fn answer_ask(&mut self) -> Option<StepBegun> {
        // A step that asks is watched only while its field holds what it
        // asks: an edit that takes it out again (a slider dragged on past
        // the bound, an undo) puts the step back to waiting for it, and
        // the watch begins again from the edit that makes it.
        if let Some(k) = self.lesson.as_ref().and_then(LessonRun::watching) {
            let ask = self.step(k).and_then(|step| step.ask.clone());
            if let Some(ask) = ask.filter(|ask| !ask.made_in(self.scenario())) {
                let run = self.lesson.as_mut()?;
                run.watching = None;
                run.states[k] = StepState::Asking { node: ask.node, field: ask.field };
                run.asking = Some((k, run.speed));
                self.revision += 1;
                return None;
            }
        }
        let (k, speed) = self.lesson.as_ref()?.asking?;
        if !self.step(k)?.ask.as_ref()?.made_in(self.scenario()) {
            return None;
        }
        if let Some(run) = &mut self.lesson {
            run.asking = None;
        }
        self.watch_step(k, false);
        self.revision += 1;
        self.begun(k, speed).map(|begun| StepBegun { panel: None, ..begun })
    }

    /// Runs the watched step on to its verdict at once; the verdict may
    /// begin the next step (one that only watches), as `Step` may.
    pub(super) fn skip_to_verdict(&mut self, speed: Speed) -> Result<Applied, PlayError> {
        let k = self.lesson.as_ref().ok_or(PlayError::NoLessonOpen)?.watching().ok_or(PlayError::NothingWatched)?;
        self.finish_watch().map_err(|why| PlayError::Skip(why.to_string()))?;
        self.revision += 1;
        let next = self.lesson.as_ref().and_then(LessonRun::watching).filter(|&j| j != k);
        Ok(Applied { step: next.and_then(|_| self.begun_alone(speed)), ..Applied::default() })
    }

    /// Plays the steps before step `k` not yet judged (untried, or being
    /// watched), from the first of them (sweeps aside: they leave the run
    /// as it is), each to its verdict. A sweep step sweeps the scenario as
    /// it stands, not the run: it waits only for earlier steps that change
    /// the scenario; a comparing step, which runs the lesson's variants
    /// from time zero, for none. Returns those played.
    fn set_up_before(&mut self, k: usize) -> Result<Vec<usize>, PlayError> {
        let Some(run) = &self.lesson else { return Ok(Vec::new()) };
        let runs_on = |j: usize| self.step(j).is_some_and(|step| step.sweep.is_none());
        // A comparing step runs the lesson's two variants from time zero:
        // nothing before it matters to it.
        if self.step(k).is_some_and(|step| step.compare) {
            // A step being watched is judged first all the same.
            let Some(w) = run.watching().filter(|&w| w < k) else { return Ok(Vec::new()) };
            self.play_to_verdict(w).map_err(|why| PlayError::SetUp { step: k, before: w, why: why.to_string() })?;
            return Ok(vec![w]);
        }
        let sweeps = self.step(k).is_some_and(|step| step.sweep.is_some());
        let needed = |j: usize| runs_on(j) && !(sweeps && self.step(j).is_some_and(Step::only_watches));
        let Some(first) = (0..k).find(|&j| needed(j) && !matches!(run.states[j], StepState::Judged(_))) else { return Ok(Vec::new()) };
        let played: Vec<usize> = (first..k).filter(|&j| runs_on(j)).collect();
        for &j in &played {
            self.play_to_verdict(j).map_err(|why| PlayError::SetUp { step: k, before: j, why: why.to_string() })?;
        }
        Ok(played)
    }

    /// The step of the open lesson, by number.
    fn step(&self, k: usize) -> Option<&Step> {
        self.lessons.get(self.lesson.as_ref()?.index)?.text.steps.get(k)
    }

    /// The block step `k` checks first, if the scenario has it.
    fn first_checked(&self, k: usize) -> Option<String> {
        let node = &self.step(k)?.check.first()?.node;
        self.scenario().node_index(node).map(|_| node.clone())
    }

    /// What the page shows of step `k`, just begun at `speed`.
    fn begun(&self, k: usize, speed: Speed) -> Option<StepBegun> {
        let step = self.step(k)?;
        let sweep = step.sweep.as_ref().and_then(|w| {
            let (ticket, request) = self.lesson_sweep().filter(|(ticket, _)| ticket.step == k)?;
            Some(LessonSweep { ticket, request: request.clone(), metric: w.metric.clone() })
        });
        let sweeps = step.sweep.is_some();
        Some(StepBegun {
            step: k,
            within_s: if sweeps { 0.0 } else { step.within_s },
            speed: if sweeps { None } else { speed.to_watch(step.within_s) },
            figure: step.check.first().map(|c| c.figure),
            panel: Some(match step.panel {
                Some(panel) => panel,
                None if sweeps => Panel::Sweep,
                None => Panel::Chart,
            }),
            sweep,
            set_up: Vec::new(),
        })
    }

    /// Begins step `k`: its sweep handed out, its comparison opened, or
    /// its changes made and its watch begun. A step that asks the learner
    /// for its change waits for it instead, unless `for_them` ("Do it for
    /// me") or it is made already.
    fn begin_step(&mut self, k: usize, speed: Speed, for_them: bool) -> Result<Applied, PlayError> {
        let index = self.lesson.as_ref().ok_or(PlayError::NoLessonOpen)?.index;
        let lesson: &Lesson = self.lessons.get(index).ok_or(PlayError::NoSuchLesson(index))?;
        let step = lesson.text.steps.get(k).ok_or(PlayError::NoSuchStep(k))?;
        if let Some(sweep) = &step.sweep {
            // A sweep that cannot run on the scenario as it stands (the
            // block it varies deleted, say) is judged failed now, with why.
            let request = sweep.request(self.scenario()).and_then(|r| r.plan().map(|_| r).map_err(StepError::Sweep));
            let run = self.lesson.as_mut().ok_or(PlayError::NoLessonOpen)?;
            run.tries[k] += 1;
            match request {
                Ok(request) => {
                    // One sweep at a time: another step's, still out, is
                    // replaced (and an earlier try of this one).
                    if let Some((other, _)) = run.sweeping.take().filter(|(other, _)| other.step != k) {
                        run.states[other.step] = StepState::Abandoned { why: format!("step {}'s sweep took its place", k + 1) };
                    }
                    run.states[k] = StepState::Sweeping;
                    run.sweeping = Some((SweepTicket { step: k, attempt: run.tries[k] }, request));
                }
                Err(why) => {
                    // An earlier try's sweep, still out, judges nothing now.
                    if run.sweeping.as_ref().is_some_and(|(ticket, _)| ticket.step == k) {
                        run.sweeping = None;
                    }
                    run.states[k] = StepState::Judged(Verdict::failed(why.to_string()));
                }
            }
            self.revision += 1;
            return Ok(Applied::default());
        }
        if step.compare {
            let (a, b) = (lesson.variant(0), lesson.variant(1));
            let labels = lesson.text.compare.as_ref().map(|c| (c.a.label.clone(), c.b.label.clone()));
            let (a, b, labels) = match (a, b, labels) {
                (Ok(a), Ok(b), Some(labels)) => (a, b, labels),
                (Err(why), _, _) | (_, Err(why), _) => return Err(PlayError::Lesson(why)),
                (_, _, None) => return Err(PlayError::Lesson(LessonError::NoComparison)),
            };
            let a = a.to_json_pretty();
            self.edit(|e| e.import(&a))?;
            self.open_comparison(b, labels)?;
            self.watch_step(k, false);
            return Ok(Applied { edited: true, ..Applied::default() });
        }
        let changes = step.changes.clone();
        let asks = step.ask.clone().filter(|_| !for_them);
        let from_zero = k == 0 || step.from_zero;
        if from_zero && (asks.is_some() || changes.is_empty()) {
            // From time zero: what step 1 (or a step that says so) claims
            // does not depend on when it was pressed.
            self.restart();
        }
        if let Some(ask) = asks {
            if ask.made_in(self.scenario()) {
                // Made already, the learner's way: watched as it stands.
                self.watch_step(k, false);
                return Ok(Applied::default());
            }
            let run = self.lesson.as_mut().ok_or(PlayError::NoLessonOpen)?;
            // One step at a time: one watched until now is untried again.
            if let Some((other, _)) = run.watching.take() {
                run.states[other] = StepState::NotTried;
            }
            if let Some((other, _)) = run.asking.take().filter(|(other, _)| *other != k) {
                run.states[other] = StepState::NotTried;
            }
            run.states[k] = StepState::Asking { node: ask.node, field: ask.field };
            run.asking = Some((k, speed));
            self.revision += 1;
            return Ok(Applied::default());
        }
        let mut edited = false;
        if !changes.is_empty() {
            // The blocks the changes leave different, as one undoable edit
            // of parameters (which the run takes live if it can).
            let next = apply(self.scenario(), &changes).map_err(|why| PlayError::Lesson(LessonError::Changes(why)))?;
            let blocks: Vec<(String, BlockSpec)> = self
                .scenario()
                .nodes
                .iter()
                .zip(next.nodes)
                .filter(|(old, new)| old.block != new.block)
                .map(|(_, new)| (new.id, new.block))
                .collect();
            self.edit(|e| e.set_blocks(blocks))?;
            edited = self.editor.touched().is_some();
            if from_zero {
                // From time zero with the changes in place: a schedule
                // they change (`slowdowns`, `outages`…) is read as the run
                // starts, as it would not be if taken live.
                self.restart();
            }
        }
        self.watch_step(k, false);
        Ok(Applied { edited, ..Applied::default() })
    }

    /// Starts watching step `k` of the open lesson on the run, or on A and
    /// B for a comparing step, at the learner's press or on its own
    /// (`alone`). A step that cannot be watched is judged at once, failed,
    /// with the reason.
    fn watch_step(&mut self, k: usize, alone: bool) {
        let Some(index) = self.lesson.as_ref().map(|run| run.index) else { return };
        let Some(step) = self.lessons.get(index).and_then(|l| l.text.steps.get(k)) else { return };
        let runs = self.runs(step.compare);
        let started = if runs.is_empty() {
            Err(StepError::NotRunning)
        } else if step.compare && runs.len() < 2 {
            Err(StepError::ComparisonClosed)
        } else {
            Watch::start(step, &runs)
        };
        let Some(run) = &mut self.lesson else { return };
        // One step is watched at a time: another one watched until now
        // is untried again, not left watching for ever.
        if let Some((other, _)) = run.watching.take().filter(|(other, _)| *other != k) {
            run.states[other] = StepState::NotTried;
        }
        if let Some((other, _)) = run.asking.take() {
            if other != k {
                run.states[other] = StepState::NotTried;
            }
        }
        if let Some(tries) = run.tries.get_mut(k) {
            *tries += 1;
        }
        match started {
            Ok(watch) => {
                run.states[k] = StepState::Watching { until_s: watch.judge_at.as_secs_f64(), alone };
                run.watching = Some((k, watch));
                run.alone = alone;
            }
            Err(why) => {
                run.states[k] = StepState::Judged(Verdict::failed(why.to_string()));
            }
        }
    }

    /// Judges the sweep `ticket` names on its result.
    pub(super) fn judge_sweep(&mut self, ticket: SweepTicket, result: &SweepResult, speed: Speed) -> Result<Applied, PlayError> {
        let run = self.lesson.as_mut().ok_or(PlayError::NoLessonOpen)?;
        let k = ticket.step;
        if run.sweeping.as_ref().map(|(out, _)| *out) != Some(ticket) {
            return Err(PlayError::Lesson(LessonError::NoSweepOut(k + 1)));
        }
        let sweep = self.lessons.get(run.index).and_then(|l| l.text.steps.get(k)).and_then(|step| step.sweep.as_ref());
        let verdict = sweep.map_or_else(|| Verdict { passed: false, ..Verdict::of(Vec::new()) }, |sweep| sweep.judge(result));
        run.states[k] = StepState::Judged(verdict);
        run.sweeping = None;
        self.revision += 1;
        let began = self.follow_on(k);
        Ok(Applied { step: began.then(|| self.begun_alone(speed)).flatten(), ..Applied::default() })
    }

    /// The sweep `ticket` names ended without a result: its step says why.
    pub(super) fn abandon_sweep(&mut self, ticket: SweepTicket, why: String) -> Result<Applied, PlayError> {
        let run = self.lesson.as_mut().ok_or(PlayError::NoLessonOpen)?;
        if run.sweeping.as_ref().map(|(out, _)| *out) != Some(ticket) {
            return Err(PlayError::Lesson(LessonError::NoSweepOut(ticket.step + 1)));
        }
        run.states[ticket.step] = StepState::Abandoned { why };
        run.sweeping = None;
        self.revision += 1;
        Ok(Applied::default())
    }

    /// The sweep a sweep step of the open lesson asks for: its ticket and
    /// the sweep, until its result is handed back (`Command::JudgeSweep`).
    pub fn lesson_sweep(&self) -> Option<(SweepTicket, &Request)> {
        self.lesson.as_ref()?.sweeping.as_ref().map(|(ticket, request)| (*ticket, request))
    }

    /// What the comparing step being watched, or the last one judged,
    /// holds B to A on, as A and B stand now, with its step (from 0):
    /// the figures the A/B table shows beside the totals.
    pub fn compared_figures(&self) -> Option<(usize, Vec<Compared>)> {
        let run = self.lesson.as_ref()?;
        let (k, watch) = if self.watching_compares() { run.watching.as_ref() } else { run.compared.as_ref() }?;
        let runs = self.runs(true);
        (runs.len() == 2).then(|| (*k, watch.compared(&runs)))
    }

    /// When the watched step is to be judged.
    pub(super) fn judge_at(&self) -> Option<crate::time::SimTime> {
        self.lesson.as_ref()?.watching.as_ref().map(|(_, w)| w.judge_at)
    }

    /// Whether the watched step compares A with B.
    fn watching_compares(&self) -> bool {
        let Some(run) = &self.lesson else { return false };
        let Some((k, _)) = &run.watching else { return false };
        self.lessons.get(run.index).and_then(|l| l.text.steps.get(*k)).is_some_and(|step| step.compare)
    }

    /// Gives the verdict on the watched step once its time has come (for
    /// B too, if it compares). Returns whether it did.
    pub(super) fn judge(&mut self) -> bool {
        let runs = self.runs(self.watching_compares());
        let Some((k, watch)) = self.lesson.as_ref().and_then(|run| run.watching.as_ref()) else { return false };
        if runs.is_empty() || !runs.iter().all(|sim| watch.due(&[sim])) {
            return false;
        }
        let verdict = watch.verdict(&runs, self.a.as_ref());
        let k = *k;
        let compares = self.watching_compares();
        let Some(run) = &mut self.lesson else { return false };
        run.states[k] = StepState::Judged(verdict);
        let watched = run.watching.take();
        if compares {
            run.compared = watched;
        }
        self.revision += 1;
        self.follow_on(k);
        true
    }

    /// Step `k` was judged: a next step that only watches goes on from
    /// this verdict, as the run does, whenever the learner gets to it.
    /// Says whether it began one.
    fn follow_on(&mut self, k: usize) -> bool {
        let follows = self.step(k + 1).is_some_and(Step::only_watches);
        if follows {
            self.watch_step(k + 1, true);
        }
        follows
    }

    /// Runs A (and B, for a comparing step) to the watched step's time and
    /// judges it: what a learner who waits gets. Returns the outcome, or
    /// why the runs could not get there.
    pub(super) fn finish_watch(&mut self) -> Result<Option<StepOutcome>, FollowStep> {
        let Some(run) = &self.lesson else { return Ok(None) };
        let Some((k, watch)) = &run.watching else { return Ok(None) };
        let (k, began_s, judge_at) = (*k, watch.started.as_secs_f64(), watch.judge_at);
        // In one go, in the caller's time (a click on the page): bounded, so
        // that a scenario made huge cannot hold the page for long.
        if let Some(sim) = &mut self.a {
            if !sim.run_until_bounded(judge_at, SKIP_EVENTS).map_err(FollowStep::Stopped)? {
                return Err(FollowStep::TooManyEvents);
            }
        }
        if self.watching_compares() {
            if let Some(b) = &mut self.b {
                if !b.sim.run_until_bounded(judge_at, SKIP_EVENTS).map_err(FollowStep::StoppedB)? {
                    return Err(FollowStep::TooManyEvents);
                }
            }
        }
        self.judge();
        let judged_s = self.a.as_ref().map_or(0.0, |sim| sim.now().as_secs_f64());
        Ok(self.outcome(k, began_s, judged_s))
    }

    pub(super) fn outcome(&self, k: usize, began_s: f64, judged_s: f64) -> Option<StepOutcome> {
        match self.lesson.as_ref()?.states.get(k)? {
            StepState::Judged(verdict) => Some(StepOutcome { began_s, judged_s, verdict: verdict.clone() }),
            _ => None,
        }
    }
}
