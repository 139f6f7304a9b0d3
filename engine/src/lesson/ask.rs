//! A step that asks the learner to make its change: which field of which
//! block, and what counts as made.
//!
//! Guarantees:
//! - An ask names one field of one node and what it must come to: a
//!   number at least or at most a bound (or both), or a value exactly
//!   (a choice, such as a scope or an order). Nothing else counts.
//! - The step's own `changes` are what "Do it for me" makes, and they make
//!   what it asks (`Lesson::verify`): the learner who lets the lesson make
//!   the change, `sluice lesson` and the tests see the lesson's own path.
//! - Whether a scenario makes what is asked is read from the block as it
//!   stands, whatever edit brought it there (the inspector's slider or
//!   number, an undo, a file).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::plumbing::numbers::plain;
use crate::scenario::{FieldPath, Scenario};

use super::{Change, StepError};

/// What a step asks of the learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ask {
    pub node: String,
    /// The field inside the node's block, as a change names it.
    pub field: FieldPath,
    /// The number counts once it is at least this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    /// The number counts once it is at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    /// The field counts once it is exactly this (a choice's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is: Option<Value>,
}

impl Ask {
    /// The field's value in `scenario` now, if the node and field are
    /// there: a choice the file leaves out reads as its default.
    pub fn value_in(&self, scenario: &Scenario) -> Option<Value> {
        let i = scenario.node_index(&self.node)?;
        let spec = &scenario.nodes[i].block;
        let block = crate::plumbing::json_read::to_value(spec);
        if let Some(value) = block.pointer(&self.field.pointer()) {
            return Some(value.clone());
        }
        let field = crate::scenario::fields::fields(spec.kind()).iter().find(|f| f.path() == self.field)?;
        match field.control {
            crate::scenario::fields::Control::Choice(menu) => menu.default().map(Value::String),
            _ => None,
        }
    }

    /// Whether `value` is what the step asks for.
    pub fn made_by(&self, value: &Value) -> bool {
        if let Some(wanted) = &self.is {
            // A number is the same number however JSON wrote it (400, 400.0).
            return match (value.as_f64(), wanted.as_f64()) {
                (Some(v), Some(w)) => v == w,
                _ => value == wanted,
            };
        }
        let Some(v) = value.as_f64() else { return false };
        self.at_least.is_none_or(|low| v >= low) && self.at_most.is_none_or(|high| v <= high)
    }

    /// Whether `scenario` has the change the step asks for.
    pub fn made_in(&self, scenario: &Scenario) -> bool {
        self.value_in(scenario).is_some_and(|v| self.made_by(&v))
    }

    /// The field's value in `scenario` now, as a person reads it: a
    /// choice by its name, a number with its thousands marked.
    pub fn now_in_words(&self, scenario: &Scenario) -> Option<String> {
        Some(match self.value_in(scenario)? {
            Value::String(s) => s,
            Value::Number(n) => crate::plumbing::numbers::thousands(n.as_f64()?),
            other => other.to_string(),
        })
    }

    /// What is asked, in words: "at most 40000", "from 2 to 5",
    /// "\"snapshot\"".
    pub fn wanted(&self) -> String {
        match (&self.is, self.at_least, self.at_most) {
            (Some(Value::String(s)), _, _) => format!("\"{s}\""),
            (Some(v), _, _) => v.to_string(),
            (None, Some(low), Some(high)) => format!("from {} to {}", plain(low), plain(high)),
            (None, Some(low), None) => format!("at least {}", plain(low)),
            (None, None, Some(high)) => format!("at most {}", plain(high)),
            (None, None, None) => String::new(),
        }
    }

    /// The change of a step's `changes` that "Do it for me" makes of the
    /// field asked for (the last, if several set it).
    pub fn done_for_them<'a>(&self, changes: &'a [Change]) -> Option<&'a Change> {
        changes.iter().rev().find(|c| c.node == self.node && c.field == self.field)
    }

    /// Checks the ask against the scenario the step starts from and the
    /// step's own changes, which must make it.
    pub fn verify(&self, scenario: &Scenario, changes: &[Change]) -> Result<(), StepError> {
        let at_fault = |why: &str| StepError::Ask { node: self.node.clone(), field: self.field.to_string(), why: why.to_string() };
        let numbers = self.at_least.is_some() || self.at_most.is_some();
        if numbers == self.is.is_some() {
            return Err(at_fault("give at_least and/or at_most for a number, or is for a choice"));
        }
        if [self.at_least, self.at_most].iter().flatten().any(|b| !b.is_finite()) {
            return Err(at_fault("a bound must be a finite number"));
        }
        if let (Some(low), Some(high)) = (self.at_least, self.at_most) {
            if low > high {
                return Err(at_fault("at_least is above at_most: nothing could make it"));
            }
        }
        let now = self.value_in(scenario).ok_or_else(|| match scenario.node_index(&self.node) {
            None => StepError::NoNode(self.node.clone()),
            Some(_) => at_fault("the block has no such field"),
        })?;
        if numbers && !now.is_number() {
            return Err(at_fault("the field is not a number"));
        }
        if self.done_for_them(changes).is_none() {
            return Err(at_fault("the step's changes (\"Do it for me\") must set the field it asks for"));
        }
        // As the block reads the value once set (a whole number, a choice).
        let made = super::apply(scenario, changes)?;
        if !self.made_in(&made) {
            return Err(at_fault("the step's changes (\"Do it for me\") do not make what it asks"));
        }
        Ok(())
    }
}
