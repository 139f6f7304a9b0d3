//! Why it happened: a drop or a state change explained as a chain of
//! causes, each built from what the run recorded or held at that instant.
//!
//! A chain starts from a `Why` (what the block wrote down as it dropped the
//! message or changed state, `crate::why`) and follows it back:
//! - to the state change that put the block in the state it acted in (the
//!   block's own record of that change, read from the run at its instant);
//! - to the block that refused its offers (`HeldBack`) and what that block
//!   held then (its counters as the report reads them), and on to the block
//!   that was refusing *its* offers;
//! - to the flow at a block that refused on its own account: what it took
//!   and passed on while it refused (the second before at most, none of
//!   it before its settings last changed), beside the setting that bounds
//!   it.
//!
//! Guarantees:
//! - Every fact a link cites is a `Fact`: a report field of a node at an
//!   instant, a setting of the scenario in force then, a count over a
//!   second, a state held since an instant, or a value the block recorded
//!   in the event itself. None is made up from text: each can be checked
//!   against a run stopped at its instant (`engine/tests/explain.rs`).
//! - A chain ends: at most `MAX_LINKS` links, and no block is visited twice
//!   for the same reason; when a cause is older than what the run keeps, the
//!   last link says so.
//! - The sentences live in `words.rs`, one home for each drop reason, each
//!   cause of a state change and each kind of block refusing.

mod diverge;
mod words;

pub use diverge::{diverge, Divergence};

use serde::Serialize;

use crate::metrics::DropReason;
use crate::scenario::Kind;
use crate::simulation::Simulation;
use crate::state::State;
use crate::time::{SimDuration, SimTime};
use crate::timeline::Run;
use crate::why::{first_brought, HeldBack, What, Why};

/// Links a chain has at most.
pub const MAX_LINKS: usize = 8;

/// The span a flow is counted over: the second before.
pub const FLOW_SPAN: SimDuration = SimDuration::from_nanos(1_000_000_000);

/// The shortest span a flow is counted over where the run allows (a count
/// over a few milliseconds says nothing of a rate), and the shortest it is
/// given a rate over.
pub const MIN_FLOW_SPAN: SimDuration = SimDuration::from_nanos(100_000_000);

/// A cause chain, the event first, each next link the cause of the one
/// before.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chain {
    pub links: Vec<Link>,
}

/// One step of a chain: something that held at a block at an instant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Link {
    #[serde(serialize_with = "seconds")]
    pub at: SimTime,
    /// The block it is about, by index (`node` in JSON: its id).
    #[serde(skip)]
    pub node: usize,
    #[serde(rename = "node")]
    pub node_id: String,
    /// One sentence, for people.
    pub text: String,
    /// The facts the sentence cites.
    pub facts: Vec<Fact>,
}

/// A fact of the run, each checkable against a run stopped at its instant.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub enum Fact {
    /// A field of the node's report (`NodeReport`) as it stood at `at`.
    Reading {
        node: usize,
        #[serde(serialize_with = "seconds")]
        at: SimTime,
        field: &'static str,
        value: serde_json::Value,
    },
    /// A field of the node's settings in force at `at`, by its path in the
    /// node's object of the scenario file (`/hard_limit/messages`).
    Setting {
        node: usize,
        #[serde(serialize_with = "seconds")]
        at: SimTime,
        path: &'static str,
        value: serde_json::Value,
    },
    /// The node was in `state` from `since` on, still at `at`.
    InState {
        node: usize,
        state: State,
        #[serde(serialize_with = "seconds")]
        since: SimTime,
        #[serde(serialize_with = "seconds")]
        at: SimTime,
    },
    /// The node held `messages` (and `bytes`) as it acted in event number
    /// `event`, at `at`.
    Held {
        node: usize,
        #[serde(serialize_with = "seconds")]
        at: SimTime,
        event: u64,
        messages: u64,
        bytes: u64,
    },
    /// Over `from` to `to`, `arrived` messages entered the node and
    /// `departed` left it passed on.
    Flow {
        node: usize,
        #[serde(serialize_with = "seconds")]
        from: SimTime,
        #[serde(serialize_with = "seconds")]
        to: SimTime,
        arrived: u64,
        departed: u64,
    },
    /// Of the messages `node` held at `at`, how many came from each
    /// producer, most first.
    Sources {
        node: usize,
        #[serde(serialize_with = "seconds")]
        at: SimTime,
        counts: Vec<Share>,
    },
    /// Where the messages gate `gate` counted in flight were at `at`, by
    /// node, most first.
    Where {
        gate: usize,
        #[serde(serialize_with = "seconds")]
        at: SimTime,
        counts: Vec<Share>,
    },
    /// The node's offers were refused by `by` from `since` on, still at `at`.
    RefusedBy {
        node: usize,
        by: usize,
        #[serde(serialize_with = "seconds")]
        since: SimTime,
        #[serde(serialize_with = "seconds")]
        at: SimTime,
    },
}

/// So many messages at (or from) one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Share {
    pub node: usize,
    pub messages: u64,
}

impl Share {
    pub(crate) fn list(counts: Vec<(usize, u64)>) -> Vec<Share> {
        counts.into_iter().map(|(node, messages)| Share { node, messages }).collect()
    }
}

fn seconds<S: serde::Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(t.as_secs_f64())
}

/// What to explain next.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Next {
    /// The change that put `node` in `state` at `since`.
    Change { node: usize, state: State, since: SimTime },
    /// Why `held.by` refused `node`'s offers from `held.since`, as it
    /// still did at `seen`.
    Refusal { node: usize, held: HeldBack, seen: SimTime },
    /// The flow through `node` from `since` to `at` (while it refused,
    /// say), a second at most; the second before `at` when `since` is not
    /// before it.
    Flow { node: usize, since: SimTime, at: SimTime },
}

impl Next {
    /// What a chain visits once: a refusal whatever instant it was seen at.
    fn visit(self) -> Next {
        match self {
            Next::Refusal { node, held, .. } => Next::Refusal { node, held, seen: held.since },
            next => next,
        }
    }
}

/// Builds chains from a run, keeping the last instants it looked at.
pub struct Explainer<'a> {
    run: &'a Run,
    seen: Vec<(SimTime, Simulation)>,
}

/// Instants an explainer keeps a copy of the run at.
const KEPT_INSTANTS: usize = 4;

impl<'a> Explainer<'a> {
    pub fn new(run: &'a Run) -> Explainer<'a> {
        Explainer { run, seen: Vec::new() }
    }

    /// The run as it stood at `t` (the end of the instant).
    fn sim_at(&mut self, t: SimTime) -> &Simulation {
        let k = match self.seen.iter().position(|(at, _)| *at == t) {
            Some(k) => k,
            None => {
                if self.seen.len() == KEPT_INSTANTS {
                    self.seen.remove(0);
                }
                self.seen.push((t, self.run.at(t)));
                self.seen.len() - 1
            }
        };
        &self.seen[k].1
    }

    /// The chain of `why`, recorded in this run.
    pub fn chain(&mut self, why: &Why) -> Chain {
        self.chain_of(&Subject::Event(*why))
    }

    /// The chain of a subject of this run.
    pub fn chain_of(&mut self, subject: &Subject) -> Chain {
        let mut links = Vec::new();
        let (first, mut next) = match subject {
            Subject::Event(why) => {
                let sim = self.sim_at(why.at);
                words::event(sim, why)
            }
            Subject::HeldBack { node, held, at } => self.follow(Next::Refusal { node: *node, held: *held, seen: *at }),
        };
        links.push(first);
        let mut visited: Vec<Next> = Vec::new();
        while let Some(n) = next {
            if links.len() >= MAX_LINKS || visited.contains(&n.visit()) {
                break;
            }
            visited.push(n.visit());
            let (link, after) = self.follow(n);
            links.push(link);
            next = after;
        }
        Chain { links }
    }

    fn follow(&mut self, next: Next) -> (Link, Option<Next>) {
        let earliest = self.run.earliest();
        match next {
            Next::Change { node, state, since } => {
                let sim = self.sim_at(since);
                let change = (since >= earliest)
                    .then(|| sim.whys().changes(node).rev().find(|w| w.at == since && matches!(w.what, What::Changed { to, .. } if to == state)).copied())
                    .flatten();
                match change {
                    Some(why) => words::event(sim, &why),
                    None => (words::forgotten(sim, node, since, state), None),
                }
            }
            // An instant the run no longer keeps cannot be read again.
            Next::Refusal { node, held, .. } if held.since < earliest => (words::older(self.sim_at(earliest), node, held.since), None),
            Next::Flow { node, at, .. } if at < earliest => (words::older(self.sim_at(earliest), node, at), None),
            Next::Refusal { node, held, seen } => {
                let sim = self.sim_at(held.since);
                words::refusal(sim, node, held, seen)
            }
            Next::Flow { node, since, at } => {
                // While it refused: at most the second before, at least
                // the tenth; and since its settings last changed: what it
                // passed under the old ones is not what bounds it.
                let back = |span: SimDuration| SimTime::from_nanos(at.as_nanos().saturating_sub(span.as_nanos()));
                let start = if since < at { since.max(back(FLOW_SPAN)).min(back(MIN_FLOW_SPAN)) } else { back(FLOW_SPAN) }.max(earliest);
                let from = self.run.settings_changed(node, start, at).unwrap_or(start);
                let before = flow_counts(self.sim_at(from), node);
                let sim = self.sim_at(at);
                let after = flow_counts(sim, node);
                let busy = if node < sim.nodes().len() { sim.stats(node).in_service } else { 0 };
                let fact = Fact::Flow { node, from, to: at, arrived: after.0.saturating_sub(before.0), departed: after.1.saturating_sub(before.1) };
                // The bound cited is the one the count ran under, as at its
                // start (settings changed at `at` itself, edited while
                // paused there, bounded none of it), unless the block was
                // put in only after.
                let read = if node < self.sim_at(from).nodes().len() { from } else { at };
                (words::flow(self.sim_at(read), read, node, fact, busy), None)
            }
        }
    }
}

/// What entered `node` and what it passed on, in all, as its counters say.
/// (A block put on an edge later was not there: nothing.)
fn flow_counts(sim: &Simulation, node: usize) -> (u64, u64) {
    if node >= sim.nodes().len() {
        return (0, 0);
    }
    let s = sim.stats(node);
    (s.arrived, s.departed)
}

/// What a chain explains: a drop or a state change as recorded, or a
/// block whose offers are being refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Subject {
    Event(Why),
    /// `node`'s offers refused, as they still were at `at`.
    HeldBack { node: usize, held: HeldBack, at: SimTime },
}

impl Subject {
    /// The block it is about.
    pub fn node(&self) -> usize {
        match self {
            Subject::Event(why) => why.node as usize,
            Subject::HeldBack { node, .. } => *node,
        }
    }

    /// When it began.
    pub fn at(&self) -> SimTime {
        match self {
            Subject::Event(why) => why.at,
            Subject::HeldBack { held, .. } => held.since,
        }
    }
}

/// The last thing that happened at `node` at or before `t`: its last drop
/// or state change, or, if its last offer before `t` was refused and its
/// offers were refused since later than that, the refusal.
pub fn last_at(run: &Run, t: SimTime, node: usize) -> Option<Subject> {
    last_in(&run.at(t), node)
}

/// `last_at` of a run as it stands (`sim`, seen at its instant): one copy
/// of the run serves every node.
pub fn last_in(sim: &Simulation, node: usize) -> Option<Subject> {
    let t = sim.now();
    let whys = sim.whys();
    let drop = whys.drops(node).next_back().copied();
    let change = whys.changes(node).next_back().copied();
    let event = match (drop, change) {
        (Some(d), Some(c)) => Some(if (c.at, c.event) > (d.at, d.event) { c } else { d }),
        (d, c) => d.or(c),
    };
    match (event, whys.held_back(node)) {
        (Some(e), Some(h)) if h.since <= e.at => Some(Subject::Event(e)),
        (_, Some(held)) => Some(Subject::HeldBack { node, held, at: t }),
        (e, _) => e.map(Subject::Event),
    }
}

/// The drop reason of a record, if it is a drop.
pub fn dropped(why: &Why) -> Option<DropReason> {
    match why.what {
        What::Dropped { reason, .. } => Some(reason),
        What::Changed { .. } => None,
    }
}

/// The kind of node `node`.
fn kind(sim: &Simulation, node: usize) -> Kind {
    sim.nodes()[node].kind()
}

impl Chain {
    /// The chain as JSON, every node by its id: `{"links": [{"at", "node",
    /// "text", "facts": [{"fact": "reading", "node", ...}]}]}`.
    pub fn to_json(&self, sim: &Simulation) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        let name = |v: &mut serde_json::Value| {
            if let Some(i) = v.as_u64() {
                *v = serde_json::Value::from(sim.scenario().nodes.get(i as usize).map_or("?", |n| n.id.as_str()));
            }
        };
        if let Some(links) = value.get_mut("links").and_then(|l| l.as_array_mut()) {
            for link in links {
                for fact in link.get_mut("facts").and_then(|f| f.as_array_mut()).into_iter().flatten() {
                    for key in ["node", "by", "gate"] {
                        if let Some(v) = fact.get_mut(key) {
                            name(v);
                        }
                    }
                    for share in fact.get_mut("counts").and_then(|c| c.as_array_mut()).into_iter().flatten() {
                        if let Some(v) = share.get_mut("node") {
                            name(v);
                        }
                    }
                }
            }
        }
        value
    }

    /// The chain as lines of text, numbered.
    pub fn to_text(&self) -> String {
        self.links.iter().enumerate().map(|(k, l)| format!("{:>2}. {}\n", k + 1, l.text)).collect()
    }
}

/// What is asked about a block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Asked {
    /// Whatever happened there last (`last_at`).
    Last,
    /// Its change into `to` at `at` (to the microsecond: the page's log
    /// writes instants as seconds).
    Change { to: State, at: SimTime },
    /// Its last drop for `reason` at or before `at`.
    Drop { reason: DropReason, at: SimTime },
    /// How it came to be in `to` over `from` to `until` (a band of a
    /// state strip): the change into `to` it was in as the band began, or
    /// else its first change into `to` within the band. Nothing for a
    /// band after the instant shown.
    Entered { to: State, from: SimTime, until: SimTime },
}

/// What `asked` names at `node`, as the run stood at `t`, if the run keeps
/// it.
pub fn find(run: &Run, t: SimTime, node: usize, asked: Asked) -> Option<Subject> {
    match asked {
        Asked::Last => last_at(run, t, node),
        Asked::Change { to, at } => {
            let sim = run.at(at.min(t));
            let near = |w: &&Why| w.at.as_nanos().abs_diff(at.as_nanos()) <= 1_000;
            let why = sim.whys().changes(node).rev().filter(near).find(|w| matches!(w.what, What::Changed { to: s, .. } if s == to)).copied();
            why.map(Subject::Event)
        }
        Asked::Drop { reason, at } => {
            let sim = run.at(at.min(t));
            let why = sim.whys().drops(node).rev().find(|w| dropped(w) == Some(reason)).copied();
            why.map(Subject::Event)
        }
        Asked::Entered { to, from, until } => {
            // A band after the instant shown has not happened there.
            if from > t {
                return None;
            }
            let entries = |sim: &Simulation| if node < sim.nodes().len() { sim.stats(node).entered(to) } else { 0 };
            let into = |w: &&Why| matches!(w.what, What::Changed { to: s, .. } if s == to);
            let before = run.at(from);
            // In `to` as the band began: how it got there. Else its first
            // entry into `to` within the band.
            let last = before.whys().changes(node).rev().find(|w| matches!(w.what, What::Changed { to: s, .. } if s.family() == to.family())).copied();
            let why = match last.filter(|w| into(&w)) {
                Some(w) => Some(w),
                None => {
                    let mark = entries(&before);
                    let within = run.first_where(until.min(t), |sim| entries(sim) > mark)?;
                    first_brought(within.whys().changes(node).filter(into), mark, entries(&within))
                }
            };
            why.map(Subject::Event)
        }
    }
}
