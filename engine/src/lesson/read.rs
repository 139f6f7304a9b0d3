//! Reading a lesson file: its text, and the scenario it teaches with.
//!
//! A lesson names its scenario by file name (the built-in lessons name one
//! of `scenarios/`; a lesson read from disk may name a file beside it) or
//! carries the scenario itself, so that it opens anywhere.
//!
//! Guarantees:
//! - An error names where the file is wrong: the path of every field at
//!   fault (`steps[1].check[0].chek`) with serde's words, the line of a
//!   syntax error or a key given twice, or the scenario's own path
//!   (`scenario: nodes[2].rate_per_s`), as a scenario's errors do
//!   (`plumbing::json_read`).
//! - `Lesson::read` returns only a lesson that `Lesson::verify` accepts,
//!   so every step can be carried out and judged.
//! - No input panics; a file larger than `MAX_LESSON_BYTES` is refused
//!   before it is parsed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::plumbing::json_read::{parse_strict, typed_all};
use crate::plumbing::validate::FieldError;
use crate::scenario::{Scenario, MAX_SCENARIO_BYTES};

use super::{Lesson, LessonError, LessonText, LESSON_VERSION, SCENARIOS};

/// The largest lesson file read: its text, and a scenario of its own as
/// large as any scenario may be.
pub const MAX_LESSON_BYTES: usize = MAX_SCENARIO_BYTES + 1024 * 1024;

/// A lesson's scenario: the name of a scenario file, or the scenario
/// itself (an object in the scenario format).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "Value", into = "Value")]
pub enum LessonScenario {
    File(String),
    Written(Box<Value>),
}

/// Read as a JSON value (a string names a file; anything else is the
/// scenario, checked when the lesson is read), which the page reads
/// already: no reader of its own in the page's module.
impl From<Value> for LessonScenario {
    fn from(value: Value) -> LessonScenario {
        match value {
            Value::String(name) => LessonScenario::File(name),
            other => LessonScenario::Written(Box::new(other)),
        }
    }
}

impl From<LessonScenario> for Value {
    fn from(scenario: LessonScenario) -> Value {
        match scenario {
            LessonScenario::File(name) => Value::String(name),
            LessonScenario::Written(value) => *value,
        }
    }
}

impl Lesson {
    /// Reads a lesson file, finding a named scenario among `SCENARIOS`.
    pub fn from_json(text: &str) -> Result<Lesson, LessonError> {
        Lesson::from_json_finding(text, &|_| None)
    }

    /// Reads a lesson file; a named scenario is looked for with `find`
    /// first (the text of the file of that name, if there is one), then
    /// among `SCENARIOS`.
    pub fn from_json_finding(text: &str, find: &dyn Fn(&str) -> Option<String>) -> Result<Lesson, LessonError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.len() > MAX_LESSON_BYTES {
            return Err(LessonError::Unreadable(format!("the file is {} bytes; a lesson may be at most {MAX_LESSON_BYTES} bytes", text.len())));
        }
        let unreadable = |errors: Vec<FieldError>| LessonError::Unreadable(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "));
        let value = parse_strict(text).map_err(|e| unreadable(vec![e]))?;
        let text: LessonText = typed_all(value, "", None).map_err(unreadable)?;
        if text.version != LESSON_VERSION {
            return Err(LessonError::Version(text.version));
        }
        let scenario = match &text.scenario {
            LessonScenario::File(name) => {
                let found = find(name).or_else(|| SCENARIOS.iter().find(|(n, _)| n == name).map(|(_, t)| t.to_string()));
                let file = found.ok_or_else(|| LessonError::NoScenarioFile(name.clone()))?;
                Scenario::from_json(&file).map_err(|why| LessonError::Scenario { file: name.clone(), why })?
            }
            LessonScenario::Written(value) => {
                Scenario::from_value((**value).clone()).map_err(|why| LessonError::Scenario { file: "scenario".into(), why })?
            }
        };
        Ok(Lesson { text, scenario })
    }

    /// Reads a lesson file from outside the build and checks that every
    /// step can be carried out and judged.
    pub fn read(text: &str, find: &dyn Fn(&str) -> Option<String>) -> Result<Lesson, LessonError> {
        let lesson = Lesson::from_json_finding(text, find)?;
        lesson.verify()?;
        Ok(lesson)
    }

    /// The lesson as a file that carries its own scenario, so that it
    /// opens anywhere.
    pub fn to_json_written(&self) -> String {
        serde_json::to_string_pretty(&self.written()).unwrap_or_default()
    }

    /// The lesson's share code (`#l=CODE`): its file, carrying its
    /// scenario, packed as a scenario's code is.
    pub fn to_code(&self) -> String {
        crate::share::pack(&serde_json::to_string(&self.written()).unwrap_or_default())
    }

    /// The lesson a share code carries, read and checked whole as a file
    /// from outside the build is (`Lesson::read`).
    pub fn from_code(code: &str) -> Result<Lesson, crate::share::ShareError> {
        let text = crate::share::unpack(code, MAX_LESSON_BYTES)?;
        Lesson::read(&text, &|_| None).map_err(|why| crate::share::ShareError::Lesson(why.to_string()))
    }

    /// Its text, carrying its scenario.
    fn written(&self) -> LessonText {
        let mut text = self.text.clone();
        text.scenario = LessonScenario::Written(Box::new(serde_json::to_value(&self.scenario).unwrap_or(Value::Null)));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::catalogue;

    fn first() -> Value {
        serde_json::from_str(super::super::LESSON_FILES[0].1).unwrap()
    }

    #[test]
    fn an_error_names_the_field_at_fault() {
        let mut v = first();
        v["steps"][1]["check"][0]["chek"] = Value::from(1);
        let why = Lesson::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(why.starts_with("steps[1].check[0].chek: unknown field `chek`"), "{why}");
        let mut v = first();
        v["steps"][0]["within_s"] = Value::from("ten");
        let why = Lesson::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(why.starts_with("steps[0].within_s: invalid type: string \"ten\""), "{why}");
        assert!(Lesson::from_json("{\"version\": 1,").unwrap_err().to_string().contains("line 1"));
    }

    #[test]
    fn a_lesson_carries_its_scenario_or_finds_it_by_name() {
        for lesson in catalogue() {
            let again = Lesson::read(&lesson.to_json_written(), &|_| None).unwrap();
            assert_eq!(again.scenario, lesson.scenario, "lesson {}", lesson.text.number);
        }
        // A named file beside the lesson comes before the built-in one.
        let mut v = first();
        let named = v["scenario"].as_str().unwrap().to_string();
        let mut mine: Value = serde_json::from_str(SCENARIOS.iter().find(|(n, _)| *n == named).unwrap().1).unwrap();
        mine["name"] = Value::from("mine");
        let mine = mine.to_string();
        let found = Lesson::from_json_finding(&v.to_string(), &|name| (name == named).then(|| mine.clone())).unwrap();
        assert_eq!(found.scenario.name, "mine");
        v["scenario"] = Value::from("mine.json");
        assert!(matches!(Lesson::from_json(&v.to_string()), Err(LessonError::NoScenarioFile(n)) if n == "mine.json"));
    }

    #[test]
    fn a_lesson_travels_in_a_link_and_a_damaged_one_says_why() {
        use crate::share::{Link, ShareError};
        for lesson in catalogue() {
            let link = Link::WrittenLesson(lesson.to_code());
            let Some(Ok(Link::WrittenLesson(code))) = Link::read(&link.fragment()) else { panic!("{}", link.fragment()) };
            let again = Lesson::from_code(&code).unwrap();
            assert_eq!((&again.text.steps, &again.scenario), (&lesson.text.steps, &lesson.scenario), "lesson {}", lesson.text.number);
        }
        // A character changed, a code cut short, one that is not a lesson.
        let code = catalogue()[2].to_code();
        let mut changed = code.clone().into_bytes();
        let i = changed.len() / 2;
        changed[i] = if changed[i] == b'A' { b'B' } else { b'A' };
        assert!(Lesson::from_code(&String::from_utf8(changed).unwrap()).is_err());
        assert!(Lesson::from_code(&code[..code.len() - 9]).is_err());
        let not_a_lesson = crate::share::pack("{\"version\": 1, \"nodes\": []}");
        let why = Lesson::from_code(&not_a_lesson).unwrap_err();
        assert!(matches!(&why, ShareError::Lesson(w) if w.contains("unknown field `nodes`")), "{why}");
        // A lesson that reads but cannot be followed says which step.
        let mut broken = catalogue()[2].clone();
        broken.text.steps[0].check[0].node = "nobody".into();
        let why = Lesson::from_code(&broken.to_code()).unwrap_err().to_string();
        assert!(why.starts_with("the shared lesson does not hold together: step 1: check: no node \"nobody\""), "{why}");
    }

    #[test]
    fn a_written_scenario_that_does_not_hold_names_its_path() {
        let lesson = &catalogue()[0];
        let mut v: Value = serde_json::from_str(&lesson.to_json_written()).unwrap();
        v["scenario"]["nodes"][0]["id"] = Value::from(7);
        let why = Lesson::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(why.starts_with("scenario: ") && why.contains("nodes[0]"), "{why}");
        v["scenario"] = Value::from(3);
        assert!(Lesson::from_json(&v.to_string()).unwrap_err().to_string().starts_with("scenario: "));
        let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_LESSON_BYTES));
        assert!(Lesson::from_json(&huge).unwrap_err().to_string().contains("at most"));
    }
}
