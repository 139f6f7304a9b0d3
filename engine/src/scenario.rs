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
/// At most this many nodes (and this many edges) in one scenario.
pub const MAX_NODES: usize = 10_000;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeSpec {
    pub from: String,
    pub to: String,
}

/// One problem in a scenario: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

/// Errors echo what the file said (unknown field names, ids, values):
/// shown escaped and cut short, they cannot act on a terminal or fill it.
impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = printable(&self.message, 400);
        if self.path.is_empty() {
            write!(f, "{message}")
        } else {
            write!(f, "{}: {message}", printable(&self.path, 200))
        }
    }
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

/// Records a problem at `path`.
pub(crate) fn push_error(errors: &mut Vec<FieldError>, path: impl Into<String>, message: impl Into<String>) {
    errors.push(FieldError { path: path.into(), message: message.into() });
}

/// A span of simulation time, in seconds: a link down, a consumer in an
/// outage.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Period {
    pub from_s: f64,
    pub to_s: f64,
}

/// Checks a list of periods at `path`: each within [0, 10^9] seconds,
/// ending after it starts, in order and not overlapping.
pub(crate) fn check_periods(errors: &mut Vec<FieldError>, path: &str, periods: impl Iterator<Item = (f64, f64)>) {
    let mut last_end = f64::NEG_INFINITY;
    for (i, (from, to)) in periods.enumerate() {
        check_range(errors, format!("{path}[{i}].from_s"), from, 0.0, 1e9);
        check_range(errors, format!("{path}[{i}].to_s"), to, 0.0, 1e9);
        if to <= from {
            push_error(errors, format!("{path}[{i}].to_s"), "must be after from_s");
        }
        if from < last_end {
            push_error(errors, format!("{path}[{i}].from_s"), "periods must be in order and not overlap");
        }
        last_end = to;
    }
}

/// Checks that a number is finite and inside [min, max].
pub(crate) fn check_range(errors: &mut Vec<FieldError>, path: String, value: f64, min: f64, max: f64) {
    if !value.is_finite() {
        push_error(errors, path, "must be a finite number");
    } else if value < min || value > max {
        push_error(errors, path, format!("must be between {} and {}, got {}", readable(min), readable(max), readable(value)));
    }
}

/// A number as a person would write it: `1e9` rather than ten digits,
/// `1e300` rather than three hundred.
fn readable(v: f64) -> String {
    let a = v.abs();
    if a >= 1e7 || (a > 0.0 && a < 1e-4) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn join(prefix: &str, inner: &str) -> String {
    match (prefix.is_empty(), inner.is_empty() || inner == ".") {
        (_, true) => prefix.to_string(),
        (true, false) => inner.to_string(),
        (false, false) if inner.starts_with('[') => format!("{prefix}{inner}"),
        (false, false) => format!("{prefix}.{inner}"),
    }
}

/// Deserializes `value` as `T`, naming the path of the first bad field.
fn typed<T: serde::de::DeserializeOwned>(value: Value, prefix: &str) -> Result<T, FieldError> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let inner = e.path().to_string();
        FieldError { path: join(prefix, &inner), message: e.into_inner().to_string() }
    })
}

impl Scenario {
    /// Parses and validates a scenario file.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let scenario = Self::parse(text)?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Parses a scenario file that may still lack outgoing edges (see
    /// `validate_draft`): what the playground can open and keep editing.
    pub fn from_json_draft(text: &str) -> Result<Scenario, ScenarioError> {
        let scenario = Self::parse(text)?;
        scenario.validate_draft()?;
        Ok(scenario)
    }

    /// Reads the text into typed fields, checking no more than types do.
    fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ScenarioError::single(
                "",
                format!("the file is {} bytes; a scenario may be at most {} bytes", text.len(), MAX_SCENARIO_BYTES),
            ));
        }
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError::single("", format!("not valid JSON: {e}")))?;
        Self::typed_from_value(value)
    }

    /// Validates an already parsed JSON document as a scenario.
    pub fn from_value(value: Value) -> Result<Scenario, ScenarioError> {
        let scenario = Self::typed_from_value(value)?;
        scenario.validate()?;
        Ok(scenario)
    }

    fn typed_from_value(value: Value) -> Result<Scenario, ScenarioError> {
        let Value::Object(mut top) = value else {
            return Err(ScenarioError::single("", "a scenario must be a JSON object"));
        };
        let mut errors = Vec::new();

        match top.get("version") {
            None => push_error(&mut errors, "version", format!("missing; this build reads version {SCENARIO_VERSION}")),
            Some(v) if v.as_u64() == Some(SCENARIO_VERSION as u64) => {}
            Some(v) => push_error(
                &mut errors,
                "version",
                format!("unsupported version {v}; this build reads version {SCENARIO_VERSION}"),
            ),
        }
        if !errors.is_empty() {
            return Err(ScenarioError { errors });
        }

        // Nodes are read one by one so that a bad field inside a node keeps
        // its full path (serde loses it inside an internally tagged enum).
        let raw_nodes = match top.remove("nodes") {
            Some(Value::Array(nodes)) => nodes,
            Some(_) => return Err(ScenarioError::single("nodes", "must be a list of nodes")),
            None => return Err(ScenarioError::single("nodes", "missing; a scenario needs at least one node")),
        };
        if raw_nodes.len() > MAX_NODES {
            return Err(ScenarioError::single("nodes", format!("at most {MAX_NODES} nodes, got {}", raw_nodes.len())));
        }
        let mut nodes = Vec::with_capacity(raw_nodes.len());
        for (i, raw) in raw_nodes.into_iter().enumerate() {
            match node_from_value(raw, &format!("nodes[{i}]")) {
                Ok(node) => nodes.push(node),
                Err(e) => errors.push(e),
            }
        }
        top.insert("nodes".into(), Value::Array(Vec::new()));

        let mut scenario: Scenario = match typed(Value::Object(top), "") {
            Ok(s) => s,
            Err(e) => {
                errors.push(e);
                return Err(ScenarioError { errors });
            }
        };
        if !errors.is_empty() {
            return Err(ScenarioError { errors });
        }
        scenario.nodes = nodes;
        Ok(scenario)
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
                if !class_names.contains(p.class.as_str()) {
                    push_error(errors, format!("nodes[{i}].message_priorities[{k}].class"), format!("no producer has a class {}", quoted(&p.class)));
                }
                if let Some(d) = p.destination.as_deref().filter(|d| !index.contains_key(d)) {
                    push_error(errors, format!("nodes[{i}].message_priorities[{k}].destination"), format!("no node has the id {}", quoted(d)));
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
    pub fn class_names(&self) -> impl Iterator<Item = &str> {
        self.nodes
            .iter()
            .filter_map(|n| match &n.block {
                BlockSpec::Producer(p) => Some(p.classes.iter().map(|c| c.name.as_str())),
                _ => None,
            })
            .flatten()
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

/// Reads one node: its id and position, then its block by `kind`.
fn node_from_value(value: Value, path: &str) -> Result<NodeSpec, FieldError> {
    let Value::Object(mut fields) = value else {
        return Err(FieldError { path: path.into(), message: "a node must be a JSON object".into() });
    };
    let id = match fields.remove("id") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(FieldError { path: format!("{path}.id"), message: "must be a string".into() }),
        None => return Err(FieldError { path: format!("{path}.id"), message: "missing".into() }),
    };
    let position = match fields.remove("position") {
        None | Some(Value::Null) => None,
        Some(v) => Some(typed::<Position>(v, &format!("{path}.position"))?),
    };
    let kind = match fields.remove("kind") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(FieldError { path: format!("{path}.kind"), message: "must be a string".into() }),
        None => {
            return Err(FieldError {
                path: format!("{path}.kind"),
                message: format!("missing; one of {}", BLOCK_KINDS.join(", ")),
            })
        }
    };
    let rest = Value::Object(fields);
    let block = match kind.as_str() {
        "producer" => BlockSpec::Producer(typed(rest, path)?),
        "queue" => BlockSpec::Queue(typed(rest, path)?),
        "consumer" => BlockSpec::Consumer(typed(rest, path)?),
        "router" => BlockSpec::Router(typed(rest, path)?),
        "window" => BlockSpec::Window(typed(rest, path)?),
        "credit" => BlockSpec::Credit(typed(rest, path)?),
        "rate_limiter" => BlockSpec::RateLimiter(typed(rest, path)?),
        "concurrency_limiter" => BlockSpec::ConcurrencyLimiter(typed(rest, path)?),
        "link" => BlockSpec::Link(typed(rest, path)?),
        "dispatcher" => BlockSpec::Dispatcher(typed(rest, path)?),
        "resource_pool" => BlockSpec::ResourcePool(typed(rest, path)?),
        other => {
            return Err(FieldError {
                path: format!("{path}.kind"),
                message: format!("unknown block kind {}; expected one of {}", quoted(other), BLOCK_KINDS.join(", ")),
            })
        }
    };
    Ok(NodeSpec { id, position, block })
}
