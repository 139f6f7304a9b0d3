//! A step that opens its explanation: the first drop, state change or
//! refusal of a block since the step began, its cause chain, and what the
//! chain must name for the lesson's mechanism to be the cause shown.
//!
//! Guarantees:
//! - The moment explained is the first of its kind at its block after the
//!   step began, found in the kept run (`timeline::Run::first_where`: the
//!   event at which its count passed the count when the step began, and of
//!   what that event brought, the first), not the last before the verdict:
//!   the onset the lesson teaches.
//! - The chain is built as the Why panel's and `sluice explain`'s are (one
//!   `explain::Explainer`), so the lesson checks what a learner reads.
//! - Each thing the lesson says the chain names is matched against the
//!   chain's typed facts (a state held, a refusal and who refused, a
//!   setting's path, where the messages came from or were), never against
//!   its words; one not named fails the step, and so does a moment that
//!   never came (silence explains nothing).

use serde::{Deserialize, Serialize};

use crate::explain::{Chain, Explainer, Fact, Subject};
use crate::metrics::DropReason;
use crate::scenario::{FieldPath, Scenario};
use crate::simulation::Simulation;
use crate::state::State;
use crate::timeline::Run;
use crate::why::{first_brought, What};

use super::{CheckResult, Figure, StepError};

/// What a step explains, and what its explanation must name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainStep {
    /// The block whose moment is explained.
    pub node: String,
    /// Which moment: its first `dropped` (or `dropped.REASON`),
    /// `entered.STATE` or `held_back` since the step began.
    pub first: Moment,
    /// What the chain must name, each at least once.
    pub names: Vec<Named>,
}

/// A kind of moment at a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// A message dropped (for this reason).
    Dropped(Option<DropReason>),
    /// The block entered this state.
    Entered(State),
    /// The block's offers began to be refused.
    HeldBack,
}

impl Moment {
    /// Reads `dropped`, `dropped.REASON`, `entered.STATE` or `held_back`.
    pub fn parse(text: &str) -> Result<Moment, String> {
        if text == "held_back" {
            return Ok(Moment::HeldBack);
        }
        match Figure::parse(text) {
            Ok(Figure::Dropped(reason)) => Ok(Moment::Dropped(reason)),
            Ok(Figure::Entered(state)) => Ok(Moment::Entered(state)),
            Ok(_) => Err(format!("\"{text}\" is not a moment to explain: dropped, dropped.REASON, entered.STATE or held_back")),
            Err(why) => Err(why.to_string()),
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> String {
        match self {
            Moment::Dropped(reason) => Figure::Dropped(reason).name(),
            Moment::Entered(state) => Figure::Entered(state).name(),
            Moment::HeldBack => "held_back".into(),
        }
    }

    /// How many such moments `node` of `sim` has had in all: a count that
    /// only grows, so the first moment after a mark is where it passes it.
    pub fn count(self, sim: &Simulation, node: usize) -> u64 {
        if node >= sim.nodes().len() {
            return 0;
        }
        let stats = sim.stats(node);
        match self {
            Moment::Dropped(None) => stats.dropped.iter().sum(),
            Moment::Dropped(Some(reason)) => stats.dropped[reason as usize],
            Moment::Entered(state) => stats.entered(state),
            Moment::HeldBack => sim.whys().times_held_back(node),
        }
    }

    /// In a few words, of `node`: "the first thinned drop at sender".
    fn in_words(self, node: &str) -> String {
        match self {
            Moment::Dropped(None) => format!("the first drop at {node}"),
            Moment::Dropped(Some(reason)) => format!("the first drop at {node} ({})", reason.as_str()),
            Moment::Entered(state) => format!("{node} first entering {state}"),
            Moment::HeldBack => format!("{node} first held back"),
        }
    }
}

impl Serialize for Moment {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Moment {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Moment, D::Error> {
        let text = String::deserialize(deserializer)?;
        Moment::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// One thing the chain must name: a block, and at most one of what it
/// was doing there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    /// The block (alone: the chain has a line about it).
    pub node: String,
    /// The block was in this state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The block refused this one's offers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusing: Option<String>,
    /// This setting of the block, as a change names it (cited whole, or
    /// a part of it, or the setting that holds it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<FieldPath>,
    /// Of the messages the block held, this producer's were the most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub most_from: Option<String>,
    /// Of the messages the block (a gate) counted in flight, the most were
    /// at this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub most_at: Option<String>,
}

impl Named {
    /// The other block it names, if any.
    fn other(&self) -> Option<&str> {
        self.refusing.as_deref().or(self.most_from.as_deref()).or(self.most_at.as_deref())
    }

    /// In words: "socket refusing sender".
    fn in_words(&self) -> String {
        let node = &self.node;
        if let Some(state) = &self.state {
            format!("{node} {state}")
        } else if let Some(other) = &self.refusing {
            format!("{node} refusing {other}")
        } else if let Some(path) = &self.setting {
            format!("{node}'s {path}")
        } else if let Some(other) = &self.most_from {
            format!("{node} holding mostly {other}'s messages")
        } else if let Some(other) = &self.most_at {
            format!("{node}'s messages in flight mostly at {other}")
        } else {
            node.clone()
        }
    }

    /// Whether `chain` (of a run of `scenario`) names it.
    fn named_in(&self, chain: &Chain, scenario: &Scenario) -> bool {
        let index = |id: &str| scenario.node_index(id);
        let Some(node) = index(&self.node) else { return false };
        let other = self.other().map(index);
        if other == Some(None) {
            return false;
        }
        let other = other.flatten();
        let state = self.state.as_deref().map(State::parse);
        let facts = || chain.links.iter().flat_map(|l| &l.facts);
        let first = |counts: &[crate::explain::Share]| counts.first().map(|s| s.node);
        if let Some(state) = state {
            facts().any(|f| matches!(f, Fact::InState { node: n, state: s, .. } if *n == node && Some(*s) == state))
        } else if self.refusing.is_some() {
            facts().any(|f| matches!(f, Fact::RefusedBy { node: n, by, .. } if Some(*n) == other && *by == node))
        } else if let Some(path) = &self.setting {
            // A setting cited whole (`service_time`) names its parts, and
            // a part cited (`capacity.messages`) names what holds it.
            let near = |cited: &str| FieldPath::parse(cited).is_ok_and(|cited| cited.is_within(path) || path.is_within(&cited));
            facts().any(|f| matches!(f, Fact::Setting { node: n, path: p, .. } if *n == node && near(p)))
        } else if self.most_from.is_some() {
            facts().any(|f| matches!(f, Fact::Sources { node: n, counts, .. } if *n == node && first(counts) == other))
        } else if self.most_at.is_some() {
            facts().any(|f| matches!(f, Fact::Where { gate, counts, .. } if *gate == node && first(counts) == other))
        } else {
            chain.links.iter().any(|l| l.node == node)
        }
    }

    fn verify(&self, scenario: &Scenario) -> Result<(), StepError> {
        let bad = |why: String| StepError::Explain(format!("names {}: {why}", self.in_words()));
        let node = scenario.node_index(&self.node).ok_or_else(|| bad(format!("no node \"{}\"", self.node)))?;
        let said = [self.state.is_some(), self.refusing.is_some(), self.setting.is_some(), self.most_from.is_some(), self.most_at.is_some()];
        if said.iter().filter(|&&s| s).count() > 1 {
            return Err(bad("name one of state, refusing, setting, most_from and most_at".into()));
        }
        if let Some(other) = self.other() {
            scenario.node_index(other).ok_or_else(|| bad(format!("no node \"{other}\"")))?;
        }
        if let Some(state) = &self.state {
            State::parse(state).ok_or_else(|| bad(format!("no state \"{state}\" (states: {})", State::ALL.map(State::as_str).join(", "))))?;
        }
        if let Some(path) = &self.setting {
            let block = crate::plumbing::json_read::to_value(&scenario.nodes[node].block);
            block.pointer(&path.pointer()).ok_or_else(|| bad(format!("{} has no setting {path}", self.node)))?;
        }
        Ok(())
    }
}

/// A moment explained: what, and its chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    pub subject: Subject,
    pub chain: Chain,
}

impl ExplainStep {
    /// Checks it can be judged on `scenario`: its block and every block,
    /// state and setting it names are there, and it names something.
    pub fn verify(&self, scenario: &Scenario) -> Result<(), StepError> {
        scenario.node_index(&self.node).ok_or_else(|| StepError::Explain(format!("no node \"{}\"", self.node)))?;
        if self.names.is_empty() {
            return Err(StepError::Explain("it names nothing the chain must hold, so any chain would pass".into()));
        }
        self.names.iter().try_for_each(|n| n.verify(scenario))
    }

    /// The count of its moments at its block when the step began.
    pub fn mark(&self, sim: &Simulation) -> u64 {
        sim.scenario().node_index(&self.node).map_or(0, |node| self.first.count(sim, node))
    }

    /// Finds the first such moment in `run` since its count stood at
    /// `mark` (when the step began), explains it and judges whether the
    /// chain names all it must.
    pub fn judge(&self, run: &Run, mark: u64) -> (CheckResult, Option<Explained>) {
        let what = self.first.in_words(&self.node);
        let fail = |text: String| (CheckResult { text, figure: None, passed: false }, None);
        let Some(node) = run.scenario().node_index(&self.node) else { return fail(format!("Why {what}: no node \"{}\"", self.node)) };
        let moment = self.first;
        let Some(sim) = run.first_where(run.now(), |sim| moment.count(sim, node) > mark) else {
            return fail(format!("Why {what}: it did not happen since the step began (or it is older than the run keeps), so there is nothing to explain"));
        };
        // The count stood at `mark` before this event: of the moments it
        // brought (a disconnect drops a whole queue), the first.
        let count = moment.count(&sim, node);
        let whys = sim.whys();
        let subject = match moment {
            Moment::HeldBack => whys.last_held_back(node).map(|held| Subject::HeldBack { node, held, at: held.since }),
            Moment::Dropped(reason) => first_brought(whys.drops(node).filter(|w| reason.is_none_or(|r| matches!(w.what, What::Dropped { reason, .. } if reason == r))), mark, count).map(Subject::Event),
            Moment::Entered(state) => first_brought(whys.changes(node).filter(|w| matches!(w.what, What::Changed { to, .. } if to == state)), mark, count).map(Subject::Event),
        };
        let Some(subject) = subject else { return fail(format!("Why {what}: more happened at that instant than the run keeps of it, so it cannot be explained")) };
        let chain = Explainer::new(run).chain_of(&subject);
        let missing: Vec<String> = self.names.iter().filter(|n| !n.named_in(&chain, run.scenario())).map(Named::in_words).collect();
        let named = self.names.len() - missing.len();
        let said: Vec<String> = self.names.iter().map(Named::in_words).collect();
        let at = subject.at().as_secs_f64();
        let text = if missing.is_empty() {
            format!("Why {what} (at {at:.3} s): its chain names {} (expected: all)", said.join(", "))
        } else {
            format!("Why {what} (at {at:.3} s): its chain does not name {} (expected: {})", missing.join(", "), said.join(", "))
        };
        (CheckResult { text, figure: Some(named as f64), passed: missing.is_empty() }, Some(Explained { subject, chain }))
    }
}
