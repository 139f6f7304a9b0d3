//! The lesson editor's shorthand: a step's changes and checks written one
//! to a line, as a teacher types them in the page.
//!
//! ```text
//! # a change: NODE.FIELD = VALUE (a word is a choice's name)
//! socket.bandwidth_bytes_per_s = 40000
//! window.scope = per_destination
//! # a check: NODE FIGURE and its bounds (at least, at most, or both)
//! sender entered.SoftLimit >= 15
//! far throughput_per_s >= 15 <= 22
//! # variant B's figure, and B's figure over A's
//! b: fast throughput_per_s >= 90
//! b/a fast throughput_per_s >= 3
//! ```
//!
//! Guarantees:
//! - Reading what `changes_text` and `checks_text` wrote gives back the
//!   same changes and checks, for every step of the catalogue.
//! - A line that does not read is refused, naming its number (from 1)
//!   and what a line of its kind looks like; empty lines and lines
//!   starting with `#` are passed over.
//! - Names are checked here only for their form (a figure's name fully);
//!   whether a node and field exist is `Lesson::verify`'s to say.

use serde_json::Value;

use crate::scenario::FieldPath;

use super::{Change, Check, Figure, Run};

/// Why a line of changes or checks does not read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("line {line}: {why} (a {kind} reads \"{example}\")")]
pub struct LineError {
    /// From 1.
    pub line: usize,
    pub why: String,
    kind: &'static str,
    example: &'static str,
}

const CHANGE: (&str, &str) = ("change", "socket.bandwidth_bytes_per_s = 40000");
const CHECK: (&str, &str) = ("check", "sender entered.SoftLimit >= 15");

fn refused((kind, example): (&'static str, &'static str), line: usize, why: impl Into<String>) -> LineError {
    LineError { line, why: why.into(), kind, example }
}

/// The lines worth reading: numbered from 1, trimmed, blank and `#` ones
/// left out.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// Changes, one to a line.
pub fn changes_text(changes: &[Change]) -> String {
    changes.iter().map(|c| format!("{}.{} = {}\n", c.node, c.field, value_text(&c.value))).collect()
}

/// A value as a change's line writes it: a word bare, anything else as JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) if is_word(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A choice's name, written bare: letters, digits and `_`, and not read
/// as JSON otherwise (`true`, `null`, a number).
fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') && serde_json::from_str::<Value>(s).is_err()
}

/// Reads changes written one to a line.
pub fn parse_changes(text: &str) -> Result<Vec<Change>, LineError> {
    lines(text)
        .map(|(n, line)| {
            let (target, value) = line.split_once('=').ok_or_else(|| refused(CHANGE, n, "no \"=\""))?;
            let (node, field) = target.trim().split_once('.').ok_or_else(|| refused(CHANGE, n, "no \".\" between the node and its field"))?;
            if node.is_empty() || node.contains(char::is_whitespace) {
                return Err(refused(CHANGE, n, format!("\"{node}\" is not a node's id")));
            }
            let field = FieldPath::parse(field).map_err(|why| refused(CHANGE, n, why.to_string()))?;
            let value = value.trim();
            if value.is_empty() {
                return Err(refused(CHANGE, n, "no value after \"=\""));
            }
            let value = match serde_json::from_str::<Value>(value) {
                Ok(v) => v,
                Err(_) if is_word(value) => Value::String(value.to_string()),
                Err(why) => return Err(refused(CHANGE, n, format!("the value is neither a word nor JSON ({why})"))),
            };
            Ok(Change { node: node.to_string(), field, value })
        })
        .collect()
}

/// Checks, one to a line.
pub fn checks_text(checks: &[Check]) -> String {
    let mut out = String::new();
    for c in checks {
        let ratio = c.b_over_a_at_least.is_some() || c.b_over_a_at_most.is_some();
        let prefix = match (ratio, c.variant) {
            (true, _) => "b/a ",
            (false, Some(Run::B)) => "b: ",
            _ => "",
        };
        let (low, high) = if ratio { (c.b_over_a_at_least, c.b_over_a_at_most) } else { (c.at_least, c.at_most) };
        // Each bound exactly as it is (the shortest text that reads back
        // the same number).
        let bounds: String = [(">=", low), ("<=", high)].iter().filter_map(|(op, b)| b.map(|b| format!(" {op} {b}"))).collect();
        out.push_str(&format!("{prefix}{} {}{bounds}\n", c.node, c.figure));
    }
    out
}

/// Reads checks written one to a line.
pub fn parse_checks(text: &str) -> Result<Vec<Check>, LineError> {
    lines(text)
        .map(|(n, line)| {
            let lower = line.to_ascii_lowercase();
            let (rest, variant, ratio) = if lower.starts_with("b/a ") {
                (&line[4..], None, true)
            } else if lower.starts_with("b:") {
                (&line[2..], Some(Run::B), false)
            } else if lower.starts_with("a:") {
                (&line[2..], None, false)
            } else {
                (line, None, false)
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            let [node, figure, bounds @ ..] = words.as_slice() else {
                return Err(refused(CHECK, n, "a node and a figure are needed"));
            };
            let figure = Figure::parse(figure).map_err(|why| refused(CHECK, n, why.to_string()))?;
            let (mut low, mut high) = (None, None);
            if bounds.is_empty() || bounds.len() % 2 != 0 || bounds.len() > 4 {
                return Err(refused(CHECK, n, "give \">= N\", \"<= N\" or both after the figure"));
            }
            for pair in bounds.chunks(2) {
                let number: f64 = pair[1].parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| refused(CHECK, n, format!("\"{}\" is not a number", pair[1])))?;
                let slot = match pair[0] {
                    ">=" => &mut low,
                    "<=" => &mut high,
                    other => return Err(refused(CHECK, n, format!("\"{other}\" is not >= or <="))),
                };
                if slot.replace(number).is_some() {
                    return Err(refused(CHECK, n, format!("{} given twice", pair[0])));
                }
            }
            let mut check = Check { node: node.to_string(), figure, variant, at_least: None, at_most: None, b_over_a_at_least: None, b_over_a_at_most: None };
            if ratio {
                (check.b_over_a_at_least, check.b_over_a_at_most) = (low, high);
            } else {
                (check.at_least, check.at_most) = (low, high);
            }
            Ok(check)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::catalogue;

    #[test]
    fn every_steps_changes_and_checks_read_back_as_written() {
        for lesson in catalogue() {
            for (k, step) in lesson.text.steps.iter().enumerate() {
                let at = format!("lesson {} step {}", lesson.text.number, k + 1);
                assert_eq!(parse_changes(&changes_text(&step.changes)).unwrap(), step.changes, "{at}");
                // A check of A written "a:" is A's, as one written without.
                let checks: Vec<Check> = step.check.iter().cloned().map(|c| Check { variant: c.variant.filter(|v| *v == Run::B), ..c }).collect();
                assert_eq!(parse_checks(&checks_text(&step.check)).unwrap(), checks, "{at}");
            }
            if let Some(compare) = &lesson.text.compare {
                for v in [&compare.a, &compare.b] {
                    assert_eq!(parse_changes(&changes_text(&v.changes)).unwrap(), v.changes);
                }
            }
        }
    }

    #[test]
    fn lines_read_as_a_teacher_writes_them_and_a_wrong_one_is_named() {
        let changes = parse_changes("# the network\n\n  socket.bandwidth_bytes_per_s = 40000\nwindow.scope = per_destination\nclient.service_time = {\"dist\": \"fixed\", \"value\": 0.01}\n").unwrap();
        assert_eq!(changes.len(), 3);
        assert_eq!((changes[0].field.to_string(), changes[0].value.clone()), ("bandwidth_bytes_per_s".to_string(), Value::from(40000)));
        assert_eq!(changes[1].value, Value::from("per_destination"));
        let why = parse_changes("a.b = 1\nsocket bandwidth 4\n").unwrap_err();
        assert_eq!(why.to_string(), "line 2: no \"=\" (a change reads \"socket.bandwidth_bytes_per_s = 40000\")");
        assert!(parse_changes("socket = 4").unwrap_err().to_string().contains("no \".\""));
        assert!(parse_changes("socket.x = two words").unwrap_err().to_string().contains("neither a word nor JSON"));
        assert!(parse_changes("socket.x =").unwrap_err().to_string().contains("no value"));

        let checks = parse_checks("far throughput_per_s >= 15 <= 22\nB: fast throughput_per_s >= 90\nb/a fast throughput_per_s >= 3\n").unwrap();
        assert_eq!((checks[0].at_least, checks[0].at_most), (Some(15.0), Some(22.0)));
        assert_eq!(checks[1].variant, Some(Run::B));
        assert_eq!((checks[2].b_over_a_at_least, checks[2].at_least), (Some(3.0), None));
        let why = parse_checks("sender entered.SoftLimit >= 15\nsender speed >= 1").unwrap_err().to_string();
        assert!(why.starts_with("line 2: no figure \"speed\""), "{why}");
        assert!(parse_checks("sender").unwrap_err().to_string().contains("a node and a figure"));
        assert!(parse_checks("sender dropped").unwrap_err().to_string().contains("give \">= N\""));
        assert!(parse_checks("sender dropped > 3").unwrap_err().to_string().contains("not >= or <="));
        assert!(parse_checks("sender dropped >= many").unwrap_err().to_string().contains("\"many\" is not a number"));
        assert!(parse_checks("sender dropped >= 1 >= 2").unwrap_err().to_string().contains("given twice"));
    }
}
