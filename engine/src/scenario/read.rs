//! Reading a scenario file: strict JSON, typed fields, and every type
//! error named at its path beside the problems of ranges and of the graph
//! elsewhere in the file (a node that does not read stands in as its
//! kind's default block, so the rest can still be checked).

use super::*;

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
    pub(super) fn parse(text: &str, draft: bool) -> Result<Scenario, ScenarioError> {
        // A byte-order mark some editors write is not part of the JSON (the
        // browser's reader drops it too).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ScenarioError::single(
                "",
                format!("the file is {} bytes; a scenario may be at most {} bytes", text.len(), MAX_SCENARIO_BYTES),
            ));
        }
        let value = crate::plumbing::json_read::parse_strict(text).map_err(|e| ScenarioError { errors: vec![e] })?;
        Self::read(value, draft)
    }

    /// Validates an already parsed JSON document as a scenario.
    pub fn from_value(value: Value) -> Result<Scenario, ScenarioError> {
        Self::read(value, false)
    }

    /// Reads typed fields and checks what types cannot. A type error does
    /// not hide the others, nor the problems of ranges and of the graph
    /// elsewhere in the file: all are named at once.
    pub(super) fn read(value: Value, draft: bool) -> Result<Scenario, ScenarioError> {
        let (scenario, typing) = Self::typed_from_value(value)?;
        if typing.errors.is_empty() {
            return match scenario.check(draft, true) {
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
            // What a stand-in block says of itself is not the file's, nor
            // a class missing while a producer's could not be read.
            let checked = scenario.check(draft, !typing.producer_failed).err().map(|e| e.errors).unwrap_or_default();
            errors.extend(checked.into_iter().filter(|e| !of_failed(e)));
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
    pub(super) fn typed_from_value(value: Value) -> Result<(Scenario, TypeErrors), ScenarioError> {
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
            let unit_errors: Vec<FieldError> = crate::plumbing::units::read_suffixes(&mut raw, &format!("nodes[{i}]"))
                .into_iter()
                .map(|(path, why)| FieldError { path, message: why.to_string() })
                .collect();
            let read = match node_from_value(raw, &format!("nodes[{i}]")) {
                Ok(node) if !unit_errors.is_empty() => Err((Vec::new(), Some(Box::new(node)))),
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
                            nodes.push(*node);
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
            match crate::plumbing::json_read::typed_all::<EdgeSpec>(raw, &format!("edges[{i}]"), None) {
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
        let mut scenario: Scenario = match crate::plumbing::json_read::typed_all(Value::Object(top), "", Some(&template(&empty))) {
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
}

/// What reading types found wrong, beside the scenario read so far (a node
/// that did not read stands in as its kind's default block).
#[derive(Default)]
pub(super) struct TypeErrors {
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
pub(super) fn template<T: Serialize>(value: &T) -> Value {
    crate::plumbing::json_read::to_value(value)
}

/// Sorts errors into the order of the document: the top-level fields, the
/// nodes, the edges, then what concerns the whole graph (stable within).
pub(super) fn in_document_order(errors: &mut [FieldError]) {
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
pub(super) fn at_most_reported(mut errors: Vec<FieldError>) -> ScenarioError {
    if errors.len() > MAX_REPORTED_ERRORS {
        let more = errors.len() - MAX_REPORTED_ERRORS;
        errors.truncate(MAX_REPORTED_ERRORS);
        errors.push(FieldError { path: String::new(), message: format!("and {more} more problems") });
    }
    ScenarioError { errors }
}

/// Reads one node: its id and position, then its block by `kind`. A node
/// that does not read gives every type error found in it and, where it
/// has an id and a known kind, that kind's default block to stand in for
/// it while the rest of the file is checked.
pub(super) fn node_from_value(value: Value, path: &str) -> Result<NodeSpec, (Vec<FieldError>, Option<Box<NodeSpec>>)> {
    let fail = |path: String, message: String| (vec![FieldError { path, message }], None);
    let Value::Object(mut fields) = value else {
        return Err(fail(path.into(), "a node must be a JSON object".into()));
    };
    let id = match fields.remove("id") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(fail(format!("{path}.id"), "must be a string".into())),
        None => return Err(fail(format!("{path}.id"), "missing".into())),
    };
    let kind = take_kind(&mut fields).map_err(|why| fail(format!("{path}.kind"), why))?;
    let default = crate::scenario::default_block(kind);
    let mut errors = Vec::new();
    let position = match fields.remove("position") {
        None | Some(Value::Null) => None,
        Some(v) => crate::plumbing::json_read::typed_all::<Position>(v, &format!("{path}.position"), None)
            .map_err(|e| errors.extend(e))
            .ok(),
    };
    let mut shape = template(&default);
    if let Value::Object(t) = &mut shape {
        t.remove("kind");
    }
    let block = block_of_kind(kind, Value::Object(fields), path, Some(&shape));
    match block {
        Ok(block) if errors.is_empty() => Ok(NodeSpec { id, position, block }),
        Ok(_) => Err((errors, Some(Box::new(NodeSpec { id, position: None, block: default })))),
        Err(e) => {
            errors.extend(e);
            Err((errors, Some(Box::new(NodeSpec { id, position: None, block: default }))))
        }
    }
}

/// Takes a block's `kind` out of its fields; what is wrong with it, if
/// anything.
fn take_kind(fields: &mut serde_json::Map<String, Value>) -> Result<Kind, String> {
    match fields.remove("kind") {
        Some(Value::String(name)) => Kind::parse(&name)
            .ok_or_else(|| format!("unknown block kind {}; expected one of {}", quoted(&name), Kind::names())),
        Some(_) => Err("must be a string".into()),
        None => Err(format!("missing; one of {}", Kind::names())),
    }
}

/// Reads the fields of a block of `kind` (all but `kind`), naming every
/// type error below `path`; `shape` is a sound block of the kind whose
/// fields stand in for missing ones while reading on.
fn block_of_kind(kind: Kind, fields: Value, path: &str, shape: Option<&Value>) -> Result<BlockSpec, Vec<FieldError>> {
    fn read<T: serde::de::DeserializeOwned>(rest: Value, path: &str, shape: Option<&Value>, wrap: fn(T) -> BlockSpec) -> Result<BlockSpec, Vec<FieldError>> {
        crate::plumbing::json_read::typed_all::<T>(rest, path, shape).map(wrap)
    }
    match kind {
        Kind::Producer => read(fields, path, shape, BlockSpec::Producer),
        Kind::Queue => read(fields, path, shape, BlockSpec::Queue),
        Kind::Consumer => read(fields, path, shape, BlockSpec::Consumer),
        Kind::Router => read(fields, path, shape, BlockSpec::Router),
        Kind::Window => read(fields, path, shape, BlockSpec::Window),
        Kind::Credit => read(fields, path, shape, BlockSpec::Credit),
        Kind::RateLimiter => read(fields, path, shape, BlockSpec::RateLimiter),
        Kind::ConcurrencyLimiter => read(fields, path, shape, BlockSpec::ConcurrencyLimiter),
        Kind::Link => read(fields, path, shape, BlockSpec::Link),
        Kind::Dispatcher => read(fields, path, shape, BlockSpec::Dispatcher),
        Kind::ResourcePool => read(fields, path, shape, BlockSpec::ResourcePool),
        Kind::ProductLimiter => read(fields, path, shape, BlockSpec::ProductLimiter),
    }
}

/// The errors of a failed reading as one line, for serde.
fn one_line(errors: &[FieldError]) -> String {
    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
}

// A node and a block are read as a file's are, not by serde's derived
// reading: that would read every block's fields a second way (through
// serde's buffered `flatten` and tag), and the page's WebAssembly would
// carry both.
impl<'de> serde::Deserialize<'de> for NodeSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<NodeSpec, D::Error> {
        let value = Value::deserialize(deserializer)?;
        node_from_value(value, "node").map_err(|(errors, _)| serde::de::Error::custom(one_line(&errors)))
    }
}

impl<'de> serde::Deserialize<'de> for BlockSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<BlockSpec, D::Error> {
        use serde::de::Error as _;
        let Value::Object(mut fields) = Value::deserialize(deserializer)? else {
            return Err(D::Error::custom("a block must be a JSON object"));
        };
        let kind = take_kind(&mut fields).map_err(|why| D::Error::custom(format!("kind: {why}")))?;
        // (No stand-ins: the kind's defaults are themselves read this way.)
        block_of_kind(kind, Value::Object(fields), "", None).map_err(|errors| D::Error::custom(one_line(&errors)))
    }
}
