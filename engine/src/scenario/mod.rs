//! The scenario file: the engine's public contract (documented in
//! `docs/scenario.md`).
//!
//! Guarantees: `Scenario::from_json` either returns a scenario that
//! `Simulation::new` accepts, or a `ScenarioError` listing every problem found
//! with the path of the bad field (`nodes[2].soft_limit.messages: ...`). It
//! never panics, whatever the input. Unknown fields are refused, so a typo is
//! an error rather than a silently ignored setting.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::plumbing::printable::{printable, quoted};
pub use crate::blocks::{
    ConcurrencyLimiterSpec, ConsumerSpec, CreditSpec, DispatcherSpec, LinkSpec, ProducerSpec, QueueSpec,
    ProductLimiterSpec, RateLimiterSpec, ResourcePoolSpec, RouterSpec, WindowSpec,
};

/// The version of the format this build reads and writes.
pub mod choices;
mod defaults;
pub mod fields;
mod graph;
mod parts;
mod paths;
mod kind;
mod logged;
mod read;
mod setting;

pub use defaults::{default_block, default_position, free_spot, DEFAULT_SCENARIO};

pub const SCENARIO_VERSION: u32 = 1;

/// The seed a run takes when neither the caller nor the file gives one.
pub const DEFAULT_SEED: u64 = 1;

/// Inputs larger than this are refused before parsing.
pub const MAX_SCENARIO_BYTES: usize = 4 * 1024 * 1024;
/// The most problems a refusal lists (a last line says how many more).
pub const MAX_REPORTED_ERRORS: usize = 200;
/// At most this many nodes (and this many edges) in one scenario.
pub const MAX_NODES: usize = 10_000;

/// The most closed-loop clients and workers (consumers' and dispatchers')
/// a scenario may have in all: each is held in memory for the whole run,
/// so a small file asking for hundreds of millions would not fit.
pub const MAX_CLIENTS_AND_WORKERS: u64 = 2_000_000;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub version: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The seed used when the caller gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub edges: Vec<EdgeSpec>,
}

/// Read (`Deserialize`) as a scenario file's node is, by `read.rs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeSpec {
    pub id: String,
    /// Where the page draws the node; the engine ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
    #[serde(flatten)]
    pub block: BlockSpec,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub x: f64,
    pub y: f64,
}

/// The kind of a node and its parameters. Read (`Deserialize`) by
/// `read.rs`: by its `kind`, then that kind's fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockSpec {
    Producer(ProducerSpec),
    Queue(QueueSpec),
    Consumer(ConsumerSpec),
    Router(RouterSpec),
    Window(WindowSpec),
    Credit(CreditSpec),
    RateLimiter(RateLimiterSpec),
    ConcurrencyLimiter(ConcurrencyLimiterSpec),
    Link(LinkSpec),
    Dispatcher(DispatcherSpec),
    ResourcePool(ResourcePoolSpec),
    ProductLimiter(ProductLimiterSpec),
}

impl BlockSpec {
    pub fn kind(&self) -> Kind {
        match self {
            BlockSpec::Producer(_) => Kind::Producer,
            BlockSpec::Queue(_) => Kind::Queue,
            BlockSpec::Consumer(_) => Kind::Consumer,
            BlockSpec::Router(_) => Kind::Router,
            BlockSpec::Window(_) => Kind::Window,
            BlockSpec::Credit(_) => Kind::Credit,
            BlockSpec::RateLimiter(_) => Kind::RateLimiter,
            BlockSpec::ConcurrencyLimiter(_) => Kind::ConcurrencyLimiter,
            BlockSpec::Link(_) => Kind::Link,
            BlockSpec::Dispatcher(_) => Kind::Dispatcher,
            BlockSpec::ResourcePool(_) => Kind::ResourcePool,
            BlockSpec::ProductLimiter(_) => Kind::ProductLimiter,
        }
    }

    /// How many outgoing edges this kind takes: (minimum, maximum).
    pub fn outputs(&self) -> (usize, usize) {
        match self {
            BlockSpec::Consumer(_) | BlockSpec::Dispatcher(_) => (0, 1),
            BlockSpec::Router(_) => (1, MAX_NODES),
            _ => (1, 1),
        }
    }

    /// Blocks that pass a message on at once or refuse it, keeping none.
    pub fn holds_nothing(&self) -> bool {
        self.kind().holds_nothing()
    }

    /// Whether this kind takes incoming edges.
    pub fn takes_input(&self) -> bool {
        self.kind().takes_input()
    }

    fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        match self {
            BlockSpec::Producer(p) => p.validate(path, errors),
            BlockSpec::Queue(q) => q.validate(path, errors),
            BlockSpec::Consumer(c) => c.validate(path, errors),
            BlockSpec::Router(r) => r.validate(path, errors),
            BlockSpec::Window(w) => w.validate(path, errors),
            BlockSpec::Credit(c) => c.validate(path, errors),
            BlockSpec::RateLimiter(r) => r.validate(path, errors),
            BlockSpec::ConcurrencyLimiter(c) => c.validate(path, errors),
            BlockSpec::Link(l) => l.validate(path, errors),
            BlockSpec::Dispatcher(d) => d.validate(path, errors),
            BlockSpec::ResourcePool(r) => r.validate(path, errors),
            BlockSpec::ProductLimiter(p) => p.validate(path, errors),
        }
    }
}

pub use crate::plumbing::validate::{FieldError, Period};
pub use kind::Kind;
pub use logged::{LogLists, LogReport};
pub use crate::plumbing::field_path::{FieldPath, FieldPathError, Step};
pub use crate::plumbing::number_field::{NumberField, NumberError};
pub use setting::{set_at, PlaceError, SetError};
// The blocks' parameters as the file writes them.
pub use crate::blocks::consumer::{Lifecycle, OnTimeout, Slowdown};
pub use crate::blocks::dispatcher::{Agents, DemandOnFull, Discipline, HostDown, Iteration, QueueKey};
pub use crate::blocks::window::Receipts;
pub use crate::blocks::{
    Arrivals, ServiceTimes, TraceKeys, Backpressure, CreditScope, Limits, MessageClass, OnExcess, OnFull, OnGiveUp, OnRefused, Backoff, Budget, Jitter, Retries, RetryOn, OpensOn, RateRule, RateUnit, Reaction,
    Reactions, Scheme, Scope,
};
pub use crate::blocks::{
    Balance, Bucket, EnvoyCircuitBreakerSpec, EnvoyLocalRateLimitSpec, GoCall, GoRateSpec, HaproxyReqRateSpec, HaproxyServerSpec, NginxLimitConnSpec, NginxLimitReqSpec, Per, Protocol,
    EnvoyAdaptiveConcurrencySpec, NetflixAimdSpec, NetflixGradient2Spec, NetflixVegasSpec, NetflixWindowSpec, TowerLayer, TowerSpec,
    AfterWait, Resilience4jCircuitBreakerSpec, SlidingWindowType,
};
pub use crate::buffer::Order;
pub use crate::distribution::Distribution;
pub use crate::priorities::MessagePriority;
pub(crate) use crate::plumbing::validate::{check_range, push_error};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeSpec {
    pub from: String,
    pub to: String,
}

/// A refused scenario: every problem found, in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub errors: Vec<FieldError>,
}

impl ScenarioError {
    pub fn single(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { errors: vec![FieldError { path: path.into(), message: message.into() }] }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// A scenario of `node` alone: no name, no seed, no edge.
    pub fn alone(node: NodeSpec) -> Scenario {
        Scenario { version: SCENARIO_VERSION, name: String::new(), description: String::new(), seed: None, nodes: vec![node], edges: Vec::new() }
    }

    /// Refuses a scenario whose clients and workers together pass
    /// `MAX_CLIENTS_AND_WORKERS`, naming the nodes that ask for the most.
    fn check_memory_budget(&self, errors: &mut Vec<FieldError>) {
        let units = |block: &BlockSpec| -> u64 {
            match block {
                BlockSpec::Producer(p) => match p.arrivals {
                    crate::blocks::Arrivals::ClosedLoop { clients, .. } => clients as u64,
                    _ => 0,
                },
                BlockSpec::Consumer(c) => c.workers as u64,
                BlockSpec::Dispatcher(d) => d.workers as u64,
                _ => 0,
            }
        };
        let total: u64 = self.nodes.iter().map(|n| units(&n.block)).sum();
        if total <= MAX_CLIENTS_AND_WORKERS {
            return;
        }
        let mut largest: Vec<(u64, &str)> = self.nodes.iter().map(|n| (units(&n.block), n.id.as_str())).filter(|(u, _)| *u > 0).collect();
        largest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let named: Vec<String> = largest.iter().take(3).map(|(u, id)| format!("{} ({u})", crate::plumbing::printable::quoted(id))).collect();
        let more = if largest.len() > 3 { format!(" and {} more", largest.len() - 3) } else { String::new() };
        push_error(
            errors,
            "nodes",
            format!(
                "the closed-loop clients and workers come to {total} in all, more than the {MAX_CLIENTS_AND_WORKERS} a run can hold in memory: {}{more}",
                named.join(", ")
            ),
        );
    }

    /// The seed the file gives, or `DEFAULT_SEED`.
    pub fn seed_or_default(&self) -> u64 {
        self.seed.unwrap_or(DEFAULT_SEED)
    }

    /// Checks everything that types alone cannot: ranges, identities, edges.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.check(false, true).map(|_| ())
    }

    /// What `validate_draft` would say of a valid draft once one number
    /// field of node `index` changed: that block's own checks, the memory
    /// bound on clients and workers, and the closed loops that could never
    /// take time (a think time or a service time brought to zero), the
    /// only checks a number of one block reaches (ids, edges, references
    /// and what the draft lacks do not move; held to `validate_draft` over
    /// every number field of the shipped scenarios by a test).
    pub fn check_number_change(&self, index: usize) -> Result<(), ScenarioError> {
        let mut errors = self.nodes[index].block.check(index);
        self.check_memory_budget(&mut errors);
        let zero_think = |n: &NodeSpec| {
            matches!(&n.block, BlockSpec::Producer(p) if matches!(&p.arrivals, crate::blocks::Arrivals::ClosedLoop { think, .. } if think.always_zero_time()))
        };
        if errors.is_empty() && self.nodes.iter().any(zero_think) {
            paths::check_zero_time_loops(self, &self.outputs(), &mut errors);
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ScenarioError { errors })
        }
    }

    /// Checks a scenario under construction: like `validate`, except that a
    /// block still lacking a needed outgoing edge is not an error. Returns
    /// those gaps (empty: the scenario can run).
    pub fn validate_draft(&self) -> Result<Vec<FieldError>, ScenarioError> {
        self.check(true, true)
    }

    /// `classes_known`: the producers' classes are all known (not when a
    /// producer could not be read and stands in as a default: then no
    /// class is said to be missing).
    fn check(&self, draft: bool, classes_known: bool) -> Result<Vec<FieldError>, ScenarioError> {
        let mut missing = Vec::new();
        let mut errors = Vec::new();
        if self.version != SCENARIO_VERSION {
            push_error(
                &mut errors,
                "version",
                format!("unsupported version {}; this build reads version {SCENARIO_VERSION}", self.version),
            );
        }
        if self.nodes.is_empty() {
            // A draft may be empty (a canvas started from scratch); a
            // scenario to run may not.
            if draft {
                push_error(&mut missing, "nodes", "the canvas is empty: add a producer to begin");
            } else {
                push_error(&mut errors, "nodes", "a scenario needs at least one node");
            }
        }
        if self.nodes.len() > MAX_NODES {
            push_error(&mut errors, "nodes", format!("at most {MAX_NODES} nodes"));
        }
        if self.edges.len() > MAX_NODES {
            push_error(&mut errors, "edges", format!("at most {MAX_NODES} edges"));
        }

        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, node) in self.nodes.iter().enumerate() {
            let path = format!("nodes[{i}]");
            if let Err(why) = check_id(&node.id) {
                push_error(&mut errors, format!("{path}.id"), why);
            } else if let Some(first) = index.insert(node.id.as_str(), i) {
                push_error(&mut errors, format!("{path}.id"), format!("duplicate id \"{}\" (also nodes[{first}])", node.id));
                index.insert(node.id.as_str(), first);
            }
            if let Some(p) = node.position {
                check_range(&mut errors, format!("{path}.position.x"), p.x, -1e6, 1e6);
                check_range(&mut errors, format!("{path}.position.y"), p.y, -1e6, 1e6);
            }
            node.block.validate(&path, &mut errors);
        }

        self.check_memory_budget(&mut errors);

        let mut classes = 0usize;
        for (i, node) in self.nodes.iter().enumerate() {
            if let BlockSpec::Producer(p) = &node.block {
                classes += p.classes.len();
                for (j, class) in p.classes.iter().enumerate() {
                    if let Some(d) = &class.destination {
                        if !index.contains_key(d.as_str()) {
                            push_error(
                                &mut errors,
                                format!("nodes[{i}].classes[{j}].destination"),
                                format!("no node has the id {}", quoted(d)),
                            );
                        }
                    }
                }
            }
        }
        if classes > u16::MAX as usize {
            push_error(&mut errors, "nodes", format!("at most {} message classes in all", u16::MAX));
        }

        let mut outputs = vec![0usize; self.nodes.len()];
        let mut seen = BTreeSet::new();
        for (i, edge) in self.edges.iter().enumerate() {
            let path = format!("edges[{i}]");
            let from = index.get(edge.from.as_str()).copied();
            let to = index.get(edge.to.as_str()).copied();
            if from.is_none() {
                push_error(&mut errors, format!("{path}.from"), format!("no node has the id {}", quoted(&edge.from)));
            }
            if to.is_none() {
                push_error(&mut errors, format!("{path}.to"), format!("no node has the id {}", quoted(&edge.to)));
            }
            let (Some(from), Some(to)) = (from, to) else { continue };
            if from == to {
                push_error(&mut errors, path, format!("an edge cannot connect \"{}\" to itself", edge.from));
                continue;
            }
            if !seen.insert((from, to)) {
                push_error(&mut errors, path, format!("duplicate edge from \"{}\" to \"{}\"", edge.from, edge.to));
                continue;
            }
            if !self.nodes[to].block.takes_input() {
                push_error(
                    &mut errors,
                    format!("{path}.to"),
                    format!("\"{}\" is a {} and takes no input", edge.to, self.nodes[to].block.kind()),
                );
            }
            outputs[from] += 1;
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let (min, max) = node.block.outputs();
            let kind = node.block.kind();
            let n = outputs[i];
            if n < min {
                let gaps = if draft { &mut missing } else { &mut errors };
                push_error(gaps, format!("nodes[{i}]"), format!("a {kind} needs an outgoing edge; none leaves \"{}\"", node.id));
            } else if n > max {
                push_error(
                    &mut errors,
                    format!("nodes[{i}]"),
                    format!("a {kind} has at most {max} outgoing edge(s), but {n} leave \"{}\"", node.id),
                );
            }
        }

        if errors.is_empty() {
            self.validate_graph(&index, &mut errors, draft.then_some(&mut missing), classes_known);
        }
        if errors.is_empty() {
            Ok(missing)
        } else {
            Err(ScenarioError { errors })
        }
    }

    /// The output node indices of every node, in edge order. Only for a
    /// scenario whose edges name existing nodes.
    pub fn outputs(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for (from, to) in self.edge_ends() {
            if let (Some(from), Some(to)) = (from, to) {
                out[from].push(to);
            }
        }
        out
    }

    pub fn to_json_pretty(&self) -> String {
        // Serializing plain data structures cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The names of all message classes, in the scenario-wide order of
    /// class indices (producers in node order, their classes in order).
    /// Every class, by scenario-wide class index: the producers' classes
    /// in order, then `receipt` if a window makes receipts.
    pub fn class_names(&self) -> impl Iterator<Item = &str> {
        self.nodes
            .iter()
            .filter_map(|n| match &n.block {
                BlockSpec::Producer(p) => Some(p.classes.iter().map(|c| c.name.as_str())),
                _ => None,
            })
            .flatten()
            .chain(self.makes_receipts().then_some(crate::blocks::window::RECEIPT_CLASS))
    }

    /// Whether a window makes receipts (Exon's receipt queue).
    pub fn makes_receipts(&self) -> bool {
        self.nodes.iter().any(|n| matches!(&n.block, BlockSpec::Window(w) if w.receipts.is_some()))
    }

    /// The index of node `id` (a scan: a loop over edges uses `indices`).
    pub fn node_index(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// Every node's index by id (the first, should two share one), for
    /// loops that look up many ids: a scenario of 10,000 nodes must not
    /// scan them for each of its edges.
    pub fn indices(&self) -> HashMap<&str, usize> {
        let mut index = HashMap::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            index.entry(n.id.as_str()).or_insert(i);
        }
        index
    }

    /// The (from, to) node indices of every edge, in edge order; an end
    /// that names no node is `None`.
    pub fn edge_ends(&self) -> Vec<(Option<usize>, Option<usize>)> {
        let index = self.indices();
        self.edges.iter().map(|e| (index.get(e.from.as_str()).copied(), index.get(e.to.as_str()).copied())).collect()
    }
}

fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("must not be empty".into());
    }
    if id.len() > 64 {
        return Err("must be at most 64 characters".into());
    }
    if !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(format!("{} may use only letters, digits, '_' and '-'", quoted(id)));
    }
    Ok(())
}
