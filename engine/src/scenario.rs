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

use crate::printable::{printable, quoted};
use crate::blocks::{
    ConcurrencyLimiterSpec, ConsumerSpec, CreditSpec, DispatcherSpec, LinkSpec, ProducerSpec, QueueSpec,
    RateLimiterSpec, ResourcePoolSpec, RouterSpec, WindowSpec,
};

/// The version of the format this build reads and writes.
pub const SCENARIO_VERSION: u32 = 1;

/// Inputs larger than this are refused before parsing.
pub const MAX_SCENARIO_BYTES: usize = 4 * 1024 * 1024;
/// The most problems a refusal lists (a last line says how many more).
pub const MAX_REPORTED_ERRORS: usize = 200;
/// At most this many nodes (and this many edges) in one scenario.
pub const MAX_NODES: usize = 10_000;

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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// The kind of a node and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
}

/// The block kinds, as spelled in the `kind` field.
pub const BLOCK_KINDS: &[&str] = &[
    "producer",
    "queue",
    "consumer",
    "router",
    "window",
    "credit",
    "rate_limiter",
    "concurrency_limiter",
    "link",
    "dispatcher",
    "resource_pool",
];

impl BlockSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            BlockSpec::Producer(_) => "producer",
            BlockSpec::Queue(_) => "queue",
            BlockSpec::Consumer(_) => "consumer",
            BlockSpec::Router(_) => "router",
            BlockSpec::Window(_) => "window",
            BlockSpec::Credit(_) => "credit",
            BlockSpec::RateLimiter(_) => "rate_limiter",
            BlockSpec::ConcurrencyLimiter(_) => "concurrency_limiter",
            BlockSpec::Link(_) => "link",
            BlockSpec::Dispatcher(_) => "dispatcher",
            BlockSpec::ResourcePool(_) => "resource_pool",
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

    /// Whether this kind takes incoming edges.
    fn takes_input(&self) -> bool {
        !matches!(self, BlockSpec::Producer(_))
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
        }
    }
}

pub use crate::validate::{FieldError, Period};
pub(crate) use crate::validate::{check_range, push_error};

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

/// What reading types found wrong, beside the scenario read so far (a node
/// that did not read stands in as its kind's default block).
#[derive(Default)]
struct TypeErrors {
    errors: Vec<FieldError>,
    /// The indices of the nodes that did not read.
    failed: Vec<usize>,
    /// Whether every node at least has an id and a kind (else the graph
    /// cannot be checked).
    placed: bool,
    /// Whether a producer did not read (its class names are unknown).
    producer_failed: bool,
}

/// A sound value of `T` whose fields a reading can borrow to read on.
fn template<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Sorts errors into the order of the document: the top-level fields, the
/// nodes, the edges, then what concerns the whole graph (stable within).
fn in_document_order(errors: &mut [FieldError]) {
    let key = |path: &str| -> (u8, usize) {
        let index = |rest: &str| rest.split(']').next().and_then(|n| n.parse().ok()).unwrap_or(usize::MAX);
        if let Some(rest) = path.strip_prefix("nodes[") {
            (1, index(rest))
        } else if path == "nodes" {
            (1, usize::MAX)
        } else if let Some(rest) = path.strip_prefix("edges[") {
            (2, index(rest))
        } else if path == "edges" {
            (3, 0)
        } else {
            (0, 0)
        }
    };
    errors.sort_by_key(|e| key(&e.path));
}

/// At most `MAX_REPORTED_ERRORS` of `errors`, and a last line saying how
/// many more there were.
fn at_most_reported(mut errors: Vec<FieldError>) -> ScenarioError {
    if errors.len() > MAX_REPORTED_ERRORS {
        let more = errors.len() - MAX_REPORTED_ERRORS;
        errors.truncate(MAX_REPORTED_ERRORS);
        errors.push(FieldError { path: String::new(), message: format!("and {more} more problems") });
    }
    ScenarioError { errors }
}

impl Scenario {
    /// Parses and validates a scenario file.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, false)
    }

    /// Parses a scenario file that may still lack outgoing edges (see
    /// `validate_draft`): what the playground can open and keep editing.
    pub fn from_json_draft(text: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, true)
    }

    /// Reads and checks the text: a draft, or a scenario to run.
    fn parse(text: &str, draft: bool) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ScenarioError::single(
                "",
                format!("the file is {} bytes; a scenario may be at most {} bytes", text.len(), MAX_SCENARIO_BYTES),
            ));
        }
        let value = crate::json_read::parse_strict(text).map_err(|e| ScenarioError { errors: vec![e] })?;
        Self::read(value, draft)
    }

    /// Validates an already parsed JSON document as a scenario.
    pub fn from_value(value: Value) -> Result<Scenario, ScenarioError> {
        Self::read(value, false)
    }

    /// Reads typed fields and checks what types cannot. A type error does
    /// not hide the others, nor the problems of ranges and of the graph
    /// elsewhere in the file: all are named at once.
    fn read(value: Value, draft: bool) -> Result<Scenario, ScenarioError> {
        let (scenario, typing) = Self::typed_from_value(value)?;
        if typing.errors.is_empty() {
            return match scenario.check(draft) {
                Ok(_) => Ok(scenario),
                Err(e) => Err(at_most_reported(e.errors)),
            };
        }
        let mut errors = typing.errors;
        if typing.placed {
            let failed_paths: Vec<String> = typing.failed.iter().map(|i| format!("nodes[{i}]")).collect();
            let of_failed = |e: &FieldError| {
                failed_paths.iter().any(|p| e.path.strip_prefix(p.as_str()).is_some_and(|rest| !rest.is_empty()))
            };
            // What a stand-in block says of itself is not the file's.
            let checked = scenario.check(draft).err().map(|e| e.errors).unwrap_or_default();
            errors.extend(
                checked
                    .into_iter()
                    .filter(|e| !of_failed(e))
                    .filter(|e| !(typing.producer_failed && e.message.starts_with("no producer has a class"))),
            );
        } else {
            for (i, node) in scenario.nodes.iter().enumerate() {
                if !typing.failed.contains(&i) {
                    node.block.validate(&format!("nodes[{i}]"), &mut errors);
                }
            }
        }
        in_document_order(&mut errors);
        Err(at_most_reported(errors))
    }

    /// Reads the typed fields. Fails outright only when the document is not
    /// a scenario of this version at all; otherwise returns what was read
    /// (failed nodes as their kind's default block) with the type errors.
    fn typed_from_value(value: Value) -> Result<(Scenario, TypeErrors), ScenarioError> {
        let Value::Object(mut top) = value else {
            return Err(ScenarioError::single("", "a scenario must be a JSON object"));
        };
        match top.get("version") {
            None => return Err(ScenarioError::single("version", format!("missing; this build reads version {SCENARIO_VERSION}"))),
            Some(v) if v.as_u64() == Some(SCENARIO_VERSION as u64) => {}
            Some(v) => {
                return Err(ScenarioError::single(
                    "version",
                    format!("unsupported version {}; this build reads version {SCENARIO_VERSION}", printable(&v.to_string(), 40)),
                ))
            }
        }
        let mut typing = TypeErrors { placed: true, ..TypeErrors::default() };

        // Nodes and edges are read one by one, so that one bad node or edge
        // hides nothing of the others.
        let raw_nodes = match top.remove("nodes") {
            Some(Value::Array(nodes)) => nodes,
            Some(_) => return Err(ScenarioError::single("nodes", "must be a list of nodes")),
            None => return Err(ScenarioError::single("nodes", "missing; a scenario needs at least one node")),
        };
        if raw_nodes.len() > MAX_NODES {
            return Err(ScenarioError::single("nodes", format!("at most {MAX_NODES} nodes, got {}", raw_nodes.len())));
        }
        let mut nodes = Vec::with_capacity(raw_nodes.len());
        for (i, mut raw) in raw_nodes.into_iter().enumerate() {
            // Sizes and durations may carry a unit suffix (`16kib`,
            // `1200ms`); what cannot be read is named in its own words,
            // not as a type error.
            let unit_errors: Vec<FieldError> = crate::units::read_suffixes(&mut raw, &format!("nodes[{i}]"))
                .into_iter()
                .map(|(path, message)| FieldError { path, message })
                .collect();
            let read = match node_from_value(raw, &format!("nodes[{i}]")) {
                Ok(node) if !unit_errors.is_empty() => Err((Vec::new(), Some(node))),
                other => other,
            };
            match read {
                Ok(node) => nodes.push(node),
                Err((errors, stand_in)) => {
                    // Each in the place the typed reading gave it.
                    let mut errors = errors;
                    for u in unit_errors {
                        match errors.iter_mut().find(|e| e.path == u.path) {
                            Some(e) => e.message = u.message,
                            None => errors.push(u),
                        }
                    }
                    typing.errors.extend(errors);
                    typing.failed.push(i);
                    match stand_in {
                        Some(node) => {
                            typing.producer_failed |= matches!(node.block, BlockSpec::Producer(_));
                            nodes.push(node);
                        }
                        None => typing.placed = false,
                    }
                }
            }
        }
        let raw_edges = match top.remove("edges") {
            None => Vec::new(),
            Some(Value::Array(edges)) if edges.len() > MAX_NODES => {
                return Err(ScenarioError::single("edges", format!("at most {MAX_NODES} edges, got {}", edges.len())))
            }
            Some(Value::Array(edges)) => edges,
            Some(_) => {
                typing.errors.push(FieldError { path: "edges".into(), message: "must be a list of edges".into() });
                typing.placed = false;
                Vec::new()
            }
        };
        let mut edges = Vec::with_capacity(raw_edges.len());
        for (i, raw) in raw_edges.into_iter().enumerate() {
            match crate::json_read::typed_all::<EdgeSpec>(raw, &format!("edges[{i}]"), None) {
                Ok(edge) => edges.push(edge),
                Err(errors) => {
                    typing.errors.extend(errors);
                    // The graph is not whole: checking it would find holes
                    // that are not the file's.
                    typing.placed = false;
                }
            }
        }

        top.insert("nodes".into(), Value::Array(Vec::new()));
        let empty = Scenario { version: SCENARIO_VERSION, name: String::new(), description: String::new(), seed: None, nodes: Vec::new(), edges: Vec::new() };
        let mut scenario: Scenario = match crate::json_read::typed_all(Value::Object(top), "", Some(&template(&empty))) {
            Ok(s) => s,
            Err(errors) => {
                typing.errors.extend(errors);
                empty
            }
        };
        scenario.nodes = nodes;
        scenario.edges = edges;
        Ok((scenario, typing))
    }

    /// Checks everything that types alone cannot: ranges, identities, edges.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.check(false).map(|_| ())
    }

    /// Checks a scenario under construction: like `validate`, except that a
    /// block still lacking a needed outgoing edge is not an error. Returns
    /// those gaps (empty: the scenario can run).
    pub fn validate_draft(&self) -> Result<Vec<FieldError>, ScenarioError> {
        self.check(true)
    }

    fn check(&self, draft: bool) -> Result<Vec<FieldError>, ScenarioError> {
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
            push_error(&mut errors, "nodes", "a scenario needs at least one node");
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
            self.validate_graph(&index, &mut errors, draft.then_some(&mut missing));
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
        for e in &self.edges {
            if let (Some(from), Some(to)) = (self.node_index(&e.from), self.node_index(&e.to)) {
                out[from].push(to);
            }
        }
        out
    }

    /// Checks what needs the whole graph: no cycle, and routers whose
    /// settings fit their outputs.
    /// Checks what needs the whole graph. In a draft (`gaps` given), what
    /// the next edit is expected to fill in goes there rather than into
    /// `errors`.
    fn validate_graph(&self, index: &HashMap<&str, usize>, errors: &mut Vec<FieldError>, mut gaps: Option<&mut Vec<FieldError>>) {
        let outputs = self.outputs();
        // Kahn's algorithm: whatever is never freed of incoming edges is on
        // or behind a cycle.
        let mut indegree = vec![0usize; self.nodes.len()];
        for outs in &outputs {
            for &t in outs {
                indegree[t] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..self.nodes.len()).filter(|&i| indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        while let Some(n) = ready.pop() {
            order.push(n);
            for &t in &outputs[n] {
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.push(t);
                }
            }
        }
        if order.len() == self.nodes.len() {
            crate::paths::check_gates(self, &outputs, &order, errors);
            crate::paths::check_zero_time_loops(self, &outputs, errors);
        } else {
            let on_cycle: Vec<String> = (0..self.nodes.len())
                .filter(|&i| indegree[i] > 0)
                .map(|i| format!("\"{}\"", self.nodes[i].id))
                .collect();
            push_error(
                errors,
                "edges",
                format!("the edges form a cycle through {}; messages must flow one way", on_cycle.join(", ")),
            );
        }
        let class_names: BTreeSet<&str> = self.class_names().collect();
        for (i, node) in self.nodes.iter().enumerate() {
            let priorities = match &node.block {
                BlockSpec::Queue(q) => &q.message_priorities[..],
                BlockSpec::Dispatcher(d) => &d.message_priorities[..],
                _ => &[],
            };
            for (k, p) in priorities.iter().enumerate() {
                let path = format!("nodes[{i}].message_priorities[{k}]");
                if p.class.is_none() && p.destination.is_none() && p.source.is_none() {
                    push_error(errors, path.clone(), "names no class, destination or source, so it sets nothing");
                }
                if let Some(c) = p.class.as_deref().filter(|c| !class_names.contains(c)) {
                    push_error(errors, format!("{path}.class"), format!("no producer has a class {}", quoted(c)));
                }
                if let Some(d) = p.destination.as_deref().filter(|d| !index.contains_key(d)) {
                    push_error(errors, format!("{path}.destination"), format!("no node has the id {}", quoted(d)));
                }
                if let Some(src) = p.source.as_deref() {
                    let is_producer = index.get(src).is_some_and(|&n| matches!(self.nodes[n].block, BlockSpec::Producer(_)));
                    if !is_producer {
                        push_error(errors, format!("{path}.source"), format!("no producer has the id {}", quoted(src)));
                    }
                }
            }
            let consumer_at = |id: &str| index.get(id).copied().filter(|&n| matches!(self.nodes[n].block, BlockSpec::Consumer(_)));
            if let Some(server) = match &node.block {
                BlockSpec::Producer(p) => p.linked_to.as_deref(),
                _ => None,
            } {
                if consumer_at(server).is_none() {
                    push_error(errors, format!("nodes[{i}].linked_to"), format!("no consumer has the id {}", quoted(server)));
                }
            }
            if let Some(sup) = match &node.block {
                BlockSpec::Consumer(c) => c.lifecycle.as_ref().and_then(|l| l.supervisor.as_deref()),
                _ => None,
            } {
                let path = format!("nodes[{i}].lifecycle.supervisor");
                match consumer_at(sup) {
                    None => push_error(errors, path, format!("no consumer has the id {}", quoted(sup))),
                    Some(s) if s == i => push_error(errors, path, "a consumer cannot supervise itself"),
                    Some(_) => {
                        // Up the ownership tree: it must reach a top.
                        let supervisor_of = |n: usize| match &self.nodes[n].block {
                            BlockSpec::Consumer(c) => c.lifecycle.as_ref().and_then(|l| l.supervisor.as_deref()).and_then(consumer_at),
                            _ => None,
                        };
                        let mut at = i;
                        for _ in 0..self.nodes.len() {
                            match supervisor_of(at) {
                                Some(up) if up == i => {
                                    push_error(errors, path, "the supervisors form a cycle back to this consumer");
                                    break;
                                }
                                Some(up) => at = up,
                                None => break,
                            }
                        }
                    }
                }
            }
            if let BlockSpec::Consumer(c) = &node.block {
                if c.on_timeout == crate::blocks::consumer::OnTimeout::Requeue && !self.has_job_queue(i, &outputs) {
                    // A draft may still lack the edge from its queue.
                    push_error(
                        gaps.as_deref_mut().unwrap_or(errors),
                        format!("nodes[{i}].on_timeout"),
                        "requeue sends a timed-out job back to its job queue, but no queue comes before this consumer (through limiters, windows or routers)",
                    );
                }
            }
            if let BlockSpec::Window(w) = &node.block {
                if let Some(r) = &w.receipts {
                    let path = format!("nodes[{i}].receipts.to");
                    match index.get(r.to.as_str()).copied() {
                        None => push_error(errors, path, format!("no node has the id {}", quoted(&r.to))),
                        Some(t) if !matches!(self.nodes[t].block, BlockSpec::Queue(_) | BlockSpec::Dispatcher(_) | BlockSpec::Consumer(_)) => {
                            push_error(errors, path, format!("{} is a {}; receipts wait in a queue, dispatcher or consumer", quoted(&r.to), self.nodes[t].block.kind()))
                        }
                        Some(t) => {
                            // A receipt passing through its own window would
                            // be counted in flight by it.
                            let mut seen = vec![false; self.nodes.len()];
                            let mut stack = vec![t];
                            while let Some(n) = stack.pop() {
                                if n == i {
                                    push_error(errors, path.clone(), "receipts would pass back through this window");
                                    break;
                                }
                                if !std::mem::replace(&mut seen[n], true) {
                                    stack.extend(outputs[n].iter().copied());
                                }
                            }
                        }
                    }
                    for (k, n) in self.nodes.iter().enumerate() {
                        if let BlockSpec::Producer(p) = &n.block {
                            if let Some(c) = p.classes.iter().position(|c| c.name == crate::blocks::window::RECEIPT_CLASS) {
                                push_error(errors, format!("nodes[{k}].classes[{c}].name"), "\"receipt\" is the class of a window's receipts; name this class otherwise");
                            }
                        }
                    }
                }
            }
            if let BlockSpec::Dispatcher(d) = &node.block {
                for (k, down) in d.hosts_down.iter().enumerate() {
                    if !index.contains_key(down.host.as_str()) {
                        push_error(errors, format!("nodes[{i}].hosts_down[{k}].host"), format!("no node has the id {}", quoted(&down.host)));
                    }
                }
            }
            let BlockSpec::Router(router) = &node.block else { continue };
            let path = format!("nodes[{i}]");
            match router {
                // Weights and edges are edited one at a time, so in a draft
                // one may run ahead of the other for a while.
                RouterSpec::ByWeight { weights } if weights.len() != outputs[i].len() => push_error(
                    gaps.as_deref_mut().unwrap_or(errors),
                    format!("{path}.weights"),
                    format!("has {} weight(s) for {} outgoing edge(s)", weights.len(), outputs[i].len()),
                ),
                RouterSpec::ByClass { classes, default } => {
                    let is_output = |id: &str| index.get(id).is_some_and(|t| outputs[i].contains(t));
                    for (class, target) in classes {
                        if !is_output(target) {
                            push_error(
                                errors,
                                format!("{path}.classes.{class}"),
                                format!("{} is not a node this router has an edge to", quoted(target)),
                            );
                        }
                    }
                    if let Some(d) = default.as_deref().filter(|d| !is_output(d)) {
                        push_error(errors, format!("{path}.default"), format!("{} is not a node this router has an edge to", quoted(d)));
                    }
                }
                _ => {}
            }
        }
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

    /// Whether a queue comes before node `i`, through blocks that hold
    /// nothing.
    fn has_job_queue(&self, i: usize, outputs: &[Vec<usize>]) -> bool {
        let holds_nothing = |b: &BlockSpec| {
            matches!(
                b,
                BlockSpec::Router(_) | BlockSpec::Window(_) | BlockSpec::Credit(_) | BlockSpec::RateLimiter(_) | BlockSpec::ConcurrencyLimiter(_) | BlockSpec::ResourcePool(_)
            )
        };
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![i];
        while let Some(n) = stack.pop() {
            for (from, outs) in outputs.iter().enumerate() {
                if outs.contains(&n) && !std::mem::replace(&mut seen[from], true) {
                    match &self.nodes[from].block {
                        BlockSpec::Queue(_) => return true,
                        b if holds_nothing(b) => stack.push(from),
                        _ => {}
                    }
                }
            }
        }
        false
    }

    /// Whether a window makes receipts (Exon's receipt queue).
    pub fn makes_receipts(&self) -> bool {
        self.nodes.iter().any(|n| matches!(&n.block, BlockSpec::Window(w) if w.receipts.is_some()))
    }

    pub fn node_index(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
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

/// Reads one node: its id and position, then its block by `kind`. A node
/// that does not read gives every type error found in it and, where it
/// has an id and a known kind, that kind's default block to stand in for
/// it while the rest of the file is checked.
fn node_from_value(value: Value, path: &str) -> Result<NodeSpec, (Vec<FieldError>, Option<NodeSpec>)> {
    let fail = |path: String, message: String| (vec![FieldError { path, message }], None);
    let Value::Object(mut fields) = value else {
        return Err(fail(path.into(), "a node must be a JSON object".into()));
    };
    let id = match fields.remove("id") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(fail(format!("{path}.id"), "must be a string".into())),
        None => return Err(fail(format!("{path}.id"), "missing".into())),
    };
    let kind = match fields.remove("kind") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(fail(format!("{path}.kind"), "must be a string".into())),
        None => return Err(fail(format!("{path}.kind"), format!("missing; one of {}", BLOCK_KINDS.join(", ")))),
    };
    let Some(default) = crate::editor::default_block(&kind) else {
        return Err(fail(
            format!("{path}.kind"),
            format!("unknown block kind {}; expected one of {}", quoted(&kind), BLOCK_KINDS.join(", ")),
        ));
    };
    let mut errors = Vec::new();
    let position = match fields.remove("position") {
        None | Some(Value::Null) => None,
        Some(v) => crate::json_read::typed_all::<Position>(v, &format!("{path}.position"), None)
            .map_err(|e| errors.extend(e))
            .ok(),
    };
    let mut shape = template(&default);
    if let Value::Object(t) = &mut shape {
        t.remove("kind");
    }
    fn read<T: serde::de::DeserializeOwned>(rest: Value, path: &str, shape: &Value, wrap: fn(T) -> BlockSpec) -> Result<BlockSpec, Vec<FieldError>> {
        crate::json_read::typed_all::<T>(rest, path, Some(shape)).map(wrap)
    }
    let rest = Value::Object(fields);
    let block = match kind.as_str() {
        "producer" => read(rest, path, &shape, BlockSpec::Producer),
        "queue" => read(rest, path, &shape, BlockSpec::Queue),
        "consumer" => read(rest, path, &shape, BlockSpec::Consumer),
        "router" => read(rest, path, &shape, BlockSpec::Router),
        "window" => read(rest, path, &shape, BlockSpec::Window),
        "credit" => read(rest, path, &shape, BlockSpec::Credit),
        "rate_limiter" => read(rest, path, &shape, BlockSpec::RateLimiter),
        "concurrency_limiter" => read(rest, path, &shape, BlockSpec::ConcurrencyLimiter),
        "link" => read(rest, path, &shape, BlockSpec::Link),
        "dispatcher" => read(rest, path, &shape, BlockSpec::Dispatcher),
        "resource_pool" => read(rest, path, &shape, BlockSpec::ResourcePool),
        other => Err(vec![FieldError { path: format!("{path}.kind"), message: format!("no reader for the kind {}", quoted(other)) }]),
    };
    match block {
        Ok(block) if errors.is_empty() => Ok(NodeSpec { id, position, block }),
        Ok(_) => Err((errors, Some(NodeSpec { id, position: None, block: default }))),
        Err(e) => {
            errors.extend(e);
            Err((errors, Some(NodeSpec { id, position: None, block: default })))
        }
    }
}
