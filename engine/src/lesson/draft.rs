//! A lesson as the page's lesson editor holds it: every field as the text
//! typed, a step's changes and checks in the editor's shorthand
//! (`lines`), made into a lesson only when it holds together.
//!
//! Guarantees:
//! - `LessonDraft::of(lesson).lesson(scenario)` gives back the lesson's
//!   text (with the scenario written into it), for every lesson of the
//!   catalogue.
//! - `lesson` returns only a lesson `Lesson::verify` accepts; otherwise
//!   one error naming where: the field ("step 2, within"), the line of a
//!   change or a check ("step 2, checks: line 1: …"), or verify's words.

use super::lines::{changes_text, checks_text, parse_changes, parse_checks};
use super::{Compare, Lesson, LessonScenario, LessonText, Step, Variant, LESSON_VERSION};
use crate::scenario::Scenario;

/// One step as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepDraft {
    pub try_this: String,
    pub expect: String,
    /// Simulated seconds, as typed.
    pub within: String,
    pub compare: bool,
    /// Changes, one to a line.
    pub changes: String,
    /// Checks, one to a line.
    pub checks: String,
}

/// A lesson as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LessonDraft {
    pub number: u32,
    pub title: String,
    pub summary: String,
    pub story: String,
    pub watch: String,
    pub steps: Vec<StepDraft>,
    /// A/B's labels and changes (used when a step compares).
    pub a_label: String,
    pub a_changes: String,
    pub b_label: String,
    pub b_changes: String,
    /// Kept from the lesson it was made of: what the editor does not show.
    source: String,
    focus: Vec<String>,
    differs: Vec<String>,
    /// Each step's ask and panel, kept as they were.
    kept: Vec<Option<Step>>,
    /// The lesson it was made of had variants, compared or not.
    had_compare: bool,
}

impl LessonDraft {
    /// Whether it has A and B to write: a step compares, or the lesson it
    /// was made of had them.
    pub fn has_variants(&self) -> bool {
        self.had_compare || self.steps.iter().any(|s| s.compare)
    }
}

impl LessonDraft {
    /// A lesson to begin writing: numbered `number`, one step to fill in.
    pub fn new(number: u32) -> LessonDraft {
        LessonDraft {
            number,
            title: "My lesson".into(),
            steps: vec![StepDraft { within: "20".into(), ..StepDraft::default() }],
            a_label: "as it is".into(),
            b_label: "changed".into(),
            ..LessonDraft::default()
        }
    }

    /// The draft of `lesson`, to edit.
    pub fn of(lesson: &Lesson) -> LessonDraft {
        let t = &lesson.text;
        let steps = t
            .steps
            .iter()
            .map(|s| StepDraft {
                try_this: s.try_this.clone(),
                expect: s.expect.clone(),
                within: s.within_s.to_string(),
                compare: s.compare,
                changes: changes_text(&s.changes),
                checks: checks_text(&s.check),
            })
            .collect();
        let (a, b) = t.compare.as_ref().map_or((None, None), |c| (Some(&c.a), Some(&c.b)));
        LessonDraft {
            number: t.number,
            title: t.title.clone(),
            summary: t.summary.clone(),
            story: t.story.clone(),
            watch: t.watch.clone(),
            steps,
            a_label: a.map_or_else(|| "as it is".into(), |v| v.label.clone()),
            a_changes: a.map(|v| changes_text(&v.changes)).unwrap_or_default(),
            b_label: b.map_or_else(|| "changed".into(), |v| v.label.clone()),
            b_changes: b.map(|v| changes_text(&v.changes)).unwrap_or_default(),
            source: t.source.clone(),
            focus: t.focus.clone(),
            differs: t.differs.clone(),
            kept: t.steps.iter().map(|s| Some(s.clone())).collect(),
            had_compare: t.compare.is_some(),
        }
    }

    /// Adds an empty step at the end.
    pub fn add_step(&mut self) {
        self.steps.push(StepDraft { within: "20".into(), ..StepDraft::default() });
        self.kept.push(None);
    }

    /// Takes step `k` out.
    pub fn remove_step(&mut self, k: usize) {
        if k < self.steps.len() {
            self.steps.remove(k);
        }
        if k < self.kept.len() {
            self.kept.remove(k);
        }
    }

    /// The lesson, on `scenario`, if it holds together; else where not.
    pub fn lesson(&self, scenario: &Scenario) -> Result<Lesson, String> {
        let mut steps = Vec::new();
        for (k, s) in self.steps.iter().enumerate() {
            let at = |what: &str, why: String| format!("step {}, {what}: {why}", k + 1);
            let within_s = s.within.trim().parse::<f64>().map_err(|_| at("judged after", format!("\"{}\" is not a number of seconds", s.within.trim())))?;
            if !crate::lesson::judged_in_time(within_s) {
                return Err(at("judged after", format!("{} must be {}", s.within.trim(), crate::lesson::judged_within())));
            }
            let changes = parse_changes(&s.changes).map_err(|why| at("changes", why.to_string()))?;
            let check = parse_checks(&s.checks).map_err(|why| at("checks", why.to_string()))?;
            // What the editor does not show (an ask, a panel, a start from
            // time zero, what it explains) is kept while the changes it
            // goes with are.
            let kept = self.kept.get(k).cloned().flatten().filter(|old| old.changes == changes);
            steps.push(Step {
                try_this: s.try_this.trim().to_string(),
                expect: s.expect.trim().to_string(),
                changes,
                ask: kept.as_ref().and_then(|old| old.ask.clone()),
                compare: s.compare,
                from_zero: kept.as_ref().is_some_and(|old| old.from_zero),
                sweep: kept.as_ref().and_then(|old| old.sweep.clone()),
                panel: kept.as_ref().and_then(|old| old.panel),
                check,
                // (A step made to compare explains nothing: its chain
                // would be of the one run.)
                explain: kept.as_ref().and_then(|old| old.explain.clone()).filter(|_| !s.compare),
                within_s,
            });
        }
        let compare = if self.has_variants() {
            let a = parse_changes(&self.a_changes).map_err(|why| format!("A's changes: {why}"))?;
            let b = parse_changes(&self.b_changes).map_err(|why| format!("B's changes: {why}"))?;
            Some(Compare { a: Variant { label: self.a_label.trim().to_string(), changes: a }, b: Variant { label: self.b_label.trim().to_string(), changes: b } })
        } else {
            None
        };
        for (name, text) in [("title", &self.title), ("story", &self.story)] {
            if text.trim().is_empty() {
                return Err(format!("the lesson needs a {name}"));
            }
        }
        if let Some(k) = steps.iter().position(|s| s.try_this.is_empty()) {
            return Err(format!("step {}: say what to try", k + 1));
        }
        let text = LessonText {
            version: LESSON_VERSION,
            number: self.number,
            title: self.title.trim().to_string(),
            source: if self.source.is_empty() { "written in Sluice's lesson editor".into() } else { self.source.clone() },
            summary: self.summary.trim().to_string(),
            story: self.story.trim().to_string(),
            watch: self.watch.trim().to_string(),
            scenario: LessonScenario::Written(Box::new(crate::plumbing::json_read::to_value(scenario))),
            focus: self.focus.iter().filter(|id| scenario.node_index(id).is_some()).cloned().collect(),
            start_here: false,
            steps,
            compare,
            differs: self.differs.clone(),
        };
        let lesson = Lesson { text, scenario: scenario.clone() };
        lesson.verify().map_err(|why| why.to_string())?;
        Ok(lesson)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::catalogue;

    #[test]
    fn every_lesson_of_the_catalogue_comes_back_from_its_draft() {
        for lesson in catalogue() {
            let again = LessonDraft::of(&lesson).lesson(&lesson.scenario).unwrap_or_else(|why| panic!("lesson {}: {why}", lesson.text.number));
            let mut text = lesson.text.clone();
            text.scenario = again.text.scenario.clone();
            text.start_here = false;
            // A check of A written "a" is A's, as one that names no run.
            for check in text.steps.iter_mut().flat_map(|s| s.check.iter_mut()) {
                check.variant = check.variant.filter(|v| *v == crate::lesson::Run::B);
            }
            assert_eq!(again.text, text, "lesson {}", lesson.text.number);
        }
    }

    #[test]
    fn a_draft_that_does_not_hold_says_where() {
        let lesson = &catalogue()[2];
        let mut d = LessonDraft::of(lesson);
        d.steps[1].within = "soon".into();
        assert_eq!(d.lesson(&lesson.scenario).unwrap_err(), "step 2, judged after: \"soon\" is not a number of seconds");
        // A bound read back is the same number, however fine.
        let mut d = LessonDraft::of(lesson);
        d.steps[1].checks = "far throughput_per_s >= 15.0625 <= 150.5\nfast throughput_per_s >= 0.0004".into();
        let fine = d.lesson(&lesson.scenario).unwrap();
        assert_eq!(LessonDraft::of(&fine).steps[1].checks, "far throughput_per_s >= 15.0625 <= 150.5\nfast throughput_per_s >= 0.0004\n");
        let mut d = LessonDraft::of(lesson);
        d.steps[1].checks.push_str("far speed >= 2\n");
        let why = d.lesson(&lesson.scenario).unwrap_err();
        assert!(why.starts_with("step 2, checks: line 3: no figure \"speed\""), "{why}");
        let mut d = LessonDraft::of(lesson);
        d.steps[0].checks = "nobody throughput_per_s >= 2".into();
        assert_eq!(d.lesson(&lesson.scenario).unwrap_err(), "step 1: check: no node \"nobody\"");
        let mut d = LessonDraft::new(17);
        d.story = "A story.".into();
        assert_eq!(d.lesson(&lesson.scenario).unwrap_err(), "step 1: say what to try");
        d.steps[0].try_this = "Watch.".into();
        assert!(d.lesson(&lesson.scenario).unwrap_err().contains("no check bounds a figure from below"));
        d.steps[0].checks = "fast throughput_per_s >= 10".into();
        let written = d.lesson(&lesson.scenario).unwrap();
        assert_eq!((written.text.number, written.text.steps.len()), (17, 1));
        // Written, it opens anywhere.
        crate::lesson::Lesson::read(&written.to_json_written(), &|_| None).unwrap();
        for _ in 0..crate::lesson::MAX_STEPS {
            d.add_step();
            let last = d.steps.len() - 1;
            d.steps[last] = d.steps[0].clone();
        }
        assert_eq!(d.lesson(&lesson.scenario).unwrap_err(), "a lesson may have at most 50 steps, not 51");
        d.steps.truncate(1);
        // Hostile figures in the fields the editor reads as numbers.
        for (within, why) in [("0", "0 must be more than 0 and at most 3600 simulated seconds"), ("-5", "-5 must be"), ("NaN", "NaN must be"), ("inf", "inf must be"), ("1e400", "1e400 must be"), ("3600.5", "3600.5 must be")] {
            let mut hostile = d.clone();
            hostile.steps[0].within = within.into();
            let err = hostile.lesson(&lesson.scenario).unwrap_err();
            assert!(err.starts_with(&format!("step 1, judged after: {why}")), "{within}: {err}");
        }
        for (checks, why) in [
            ("fast throughput_per_s >= 1e400", "step 1, checks: line 1"),
            ("fast throughput_per_s >= NaN", "step 1, checks: line 1"),
            ("fast throughput_per_s <= 5 >= 10", "step 1: check on fast throughput_per_s can never pass: at least 10 and at most 5"),
        ] {
            let mut hostile = d.clone();
            hostile.steps[0].checks = checks.into();
            let err = hostile.lesson(&lesson.scenario).unwrap_err();
            assert!(err.starts_with(why), "{checks}: {err}");
        }
        let mut huge = d.clone();
        huge.steps[0].changes = "fast.service.mean_s = 1e300".into();
        assert!(huge.lesson(&lesson.scenario).unwrap_err().starts_with("step 1"), "a change the scenario refuses is the step's error");
        d.remove_step(0);
        assert_eq!(d.lesson(&lesson.scenario).unwrap_err(), "a lesson needs at least one step");
    }
}
