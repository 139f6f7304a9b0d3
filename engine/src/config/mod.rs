//! Real servers' configurations, in and out: a product's own file read
//! into a scenario of the limiters it sets (`import`), and a scenario's
//! product limiters written as what enforces them in that product
//! (`export`). One file a product.
//!
//! Guarantees: an import refuses what it cannot read with the line and
//! what was expected there, and notes every directive it does not model
//! with its line, dropping none in silence; an export refuses a block the
//! product cannot express, saying why, and warns where the meaning depends
//! on how the product is deployed. Importing an export gives the same
//! limiters back.

mod envoy;
mod go;
mod haproxy;
mod nginx;
mod netflix;
mod nginx_conf;
mod resilience4j;
mod tower;

use crate::scenario::{default_block, BlockSpec, Distribution, EdgeSpec, Kind, NodeSpec, Position, ProductLimiterSpec, Scenario};

pub use nginx_conf::SyntaxError;

/// A product whose configuration (or code) Sluice writes, and reads
/// where it has a configuration file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Product {
    Nginx,
    Haproxy,
    Envoy,
    Go,
    Tower,
    Netflix,
    Resilience4j,
}

impl Product {
    pub const ALL: [Product; 7] = [Product::Nginx, Product::Haproxy, Product::Envoy, Product::Go, Product::Tower, Product::Netflix, Product::Resilience4j];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Product::Nginx => "nginx",
            Product::Haproxy => "haproxy",
            Product::Envoy => "envoy",
            Product::Go => "go",
            Product::Tower => "tower",
            Product::Netflix => "netflix",
            Product::Resilience4j => "resilience4j",
        }
    }

    /// Whether it has a configuration file to import.
    pub fn imports(self) -> bool {
        match self {
            Product::Nginx | Product::Haproxy | Product::Envoy => true,
            Product::Go | Product::Tower | Product::Netflix | Product::Resilience4j => false,
        }
    }

    /// Its name for people: `HAProxy`.
    pub fn label(self) -> &'static str {
        match self {
            Product::Nginx => "nginx",
            Product::Haproxy => "HAProxy",
            Product::Envoy => "Envoy",
            Product::Go => "Go",
            Product::Tower => "tower",
            Product::Netflix => "Netflix concurrency-limits",
            Product::Resilience4j => "resilience4j",
        }
    }

    /// What an export of it writes, for people: `nginx configuration`.
    pub fn writes(self) -> &'static str {
        match self {
            Product::Nginx => "nginx configuration",
            Product::Haproxy => "HAProxy configuration",
            Product::Envoy => "Envoy configuration",
            Product::Go => "Go code",
            Product::Tower => "Rust code (tower)",
            Product::Netflix => "Java code (concurrency-limits)",
            Product::Resilience4j => "Spring Boot configuration (application.yml)",
        }
    }

    /// What an import of it reads, for people (empty for a product without
    /// a configuration file).
    pub fn reads(self) -> &'static str {
        match self {
            Product::Nginx => "nginx: its limit_req_zone, limit_req, limit_req_status and limit_req_dry_run, and the same four of limit_conn, as nginx merges them across http, server and location. Each limited location becomes a row.",
            Product::Haproxy => "HAProxy: its stick tables storing http_req_rate, http-request track-sc0 and http-request deny if { sc_http_req_rate(0) gt L } (or an acl saying so); a server's maxconn and maxqueue, with its backend's timeout queue and balance. Each limited frontend becomes a row.",
            Product::Envoy => "Envoy (YAML): its envoy.filters.http.local_ratelimit filters, wherever they stand (token_bucket, filter_enabled, filter_enforced, status), its adaptive_concurrency filters (the gradient controller's settings), and its clusters' circuit_breakers with the timeout of the route to them. Each filter and each cluster becomes a row.",
            Product::Go | Product::Tower | Product::Netflix | Product::Resilience4j => "",
        }
    }

    /// The product a product limiter is the limiter of.
    pub fn of(spec: &crate::scenario::ProductLimiterSpec) -> Product {
        use crate::scenario::ProductLimiterSpec;
        match spec {
            ProductLimiterSpec::NginxLimitReq(_) | ProductLimiterSpec::NginxLimitConn(_) => Product::Nginx,
            ProductLimiterSpec::GoRate(_) => Product::Go,
            ProductLimiterSpec::Tower(_) => Product::Tower,
            ProductLimiterSpec::HaproxyHttpReqRate(_) | ProductLimiterSpec::HaproxyServer(_) => Product::Haproxy,
            ProductLimiterSpec::EnvoyLocalRateLimit(_) | ProductLimiterSpec::EnvoyCircuitBreaker(_) | ProductLimiterSpec::EnvoyAdaptiveConcurrency(_) => Product::Envoy,
            ProductLimiterSpec::NetflixAimd(_) | ProductLimiterSpec::NetflixVegas(_) | ProductLimiterSpec::NetflixGradient2(_) => Product::Netflix,
            ProductLimiterSpec::Resilience4jCircuitBreaker(_) => Product::Resilience4j,
        }
    }

    /// The product named `name` on the command line (`nginx`).
    pub fn parse(name: &str) -> Option<Product> {
        Product::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Every product, by name, for messages: `nginx, go`.
    pub fn names(imports: bool) -> String {
        let names: Vec<&str> = Product::ALL.into_iter().filter(|p| !imports || p.imports()).map(Product::name).collect();
        names.join(", ")
    }
}

/// A configuration read into a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub scenario: Scenario,
    /// What it does not model, each with its line.
    pub notes: Vec<Note>,
}

/// A directive left out of the scenario, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Note {
    pub line: usize,
    pub text: String,
}

/// Why a configuration was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("line {line}: {expected}")]
    At { line: usize, expected: String },
    #[error("nothing in it is limited by {0}: there is nothing to simulate")]
    NothingLimited(&'static str),
    #[error("{0} has no configuration file to import: put its limiter on the canvas (a product limiter), then export it")]
    NoFile(&'static str),
    #[error("Sluice writes {0} but does not read one: put the limiter on the canvas (a product limiter), then export it")]
    WriteOnly(&'static str),
    /// The scenario made of it is not valid (a limit out of Sluice's range).
    #[error("{0}")]
    Invalid(String),
}

/// A configuration written from a scenario.
#[derive(Clone, Debug)]
pub struct Exported {
    pub text: String,
    /// Where what it enforces depends on how it is deployed.
    pub warnings: Vec<String>,
}

/// Why a scenario, or a block of it, cannot be written for a product.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("no node \"{0}\" in the scenario")]
    NoNode(String),
    #[error("the scenario has no limiter {0} can express")]
    Nothing(&'static str),
    #[error("{kind} \"{id}\" cannot be written for {target}: {why}")]
    Cannot { id: String, kind: Kind, target: &'static str, why: &'static str },
}

/// Reads `text`, a configuration of `product`.
pub fn import(product: Product, text: &str) -> Result<Imported, ImportError> {
    match product {
        Product::Nginx => nginx::import(text),
        Product::Haproxy => haproxy::import(text),
        Product::Go => Err(ImportError::NoFile("Go")),
        Product::Tower => Err(ImportError::NoFile("tower")),
        Product::Netflix => Err(ImportError::NoFile("Netflix concurrency-limits")),
        Product::Resilience4j => Err(ImportError::WriteOnly("resilience4j's application.yml")),
        Product::Envoy => envoy::import(text),
    }
}

/// Work for the page's worker, which holds the readers and writers of
/// configurations so that the page's own module need not: a
/// configuration to read, or a block to write.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "job", rename_all = "snake_case")]
pub enum Job {
    Import { product: Product, text: String },
    Export { product: Product, node: Box<NodeSpec> },
}

/// A job's answer.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "done", rename_all = "snake_case")]
pub enum Done {
    Imported { scenario: Scenario, notes: Vec<Note> },
    Exported { text: String, warnings: Vec<String> },
    /// Why the configuration was not read, or the block not written.
    Refused { why: String },
}

impl Job {
    pub fn run(self) -> Done {
        match self {
            Job::Import { product, text } => match import(product, &text) {
                Ok(Imported { scenario, notes }) => Done::Imported { scenario, notes },
                Err(why) => Done::Refused { why: why.to_string() },
            },
            Job::Export { product, node } => match export_node(product, &node) {
                Ok(Exported { text, warnings }) => Done::Exported { text, warnings },
                Err(why) => Done::Refused { why: why.to_string() },
            },
        }
    }
}

/// Writes what enforces `node` in `product`, the node alone.
pub fn export_node(product: Product, node: &crate::scenario::NodeSpec) -> Result<Exported, ExportError> {
    let alone = Scenario::alone(node.clone());
    export(product, &alone, Some(&node.id))
}

/// Writes what enforces `scenario`'s limiters (or node `node`'s alone) in
/// `product`.
pub fn export(product: Product, scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    match product {
        Product::Nginx => nginx::export(scenario, node),
        Product::Haproxy => haproxy::export(scenario, node),
        Product::Go => go::export(scenario, node),
        Product::Tower => tower::export(scenario, node),
        Product::Netflix => netflix::export(scenario, node),
        Product::Resilience4j => resilience4j::export(scenario, node),
        Product::Envoy => envoy::export(scenario, node),
    }
}

/// A limited place of a configuration (a location, a frontend): its name,
/// and its limiters in the order the product applies them, each with the
/// name its id is made from (a zone's, a table's).
pub(crate) struct Row {
    pub name: String,
    pub limiters: Vec<(String, ProductLimiterSpec)>,
}

/// An id from `text`: letters, digits and `-` kept, each run of anything
/// else one `_`.
pub(crate) fn id_of(text: &str) -> String {
    let mut id = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            id.push(c);
        } else if !id.ends_with('_') {
            id.push('_');
        }
    }
    let id = id.trim_matches('_').to_string();
    if id.is_empty() {
        "root".into()
    } else {
        id
    }
}

/// The scenario of `rows` read from `product`'s configuration: per row, a
/// placeholder producer (Poisson at 20 a second over ten keys: to be
/// replaced by one's own traffic), the row's limiters one after the other,
/// and an application that takes everything at once. Ids come from the
/// rows' and limiters' names, at most 40 characters, each once.
pub(crate) fn scenario_of(product: &str, rows: &[Row]) -> Result<Scenario, ImportError> {
    let several = rows.len() > 1;
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let node = |id: &str, block: BlockSpec, x: usize, y: usize| NodeSpec { id: id.to_string(), position: Some(Position { x: x as f64, y: y as f64 }), block };
    let mut taken = std::collections::BTreeSet::new();
    let mut unique = |base: String| {
        let base: String = base.chars().take(40).collect();
        let id = (1..).map(|n| if n == 1 { base.clone() } else { format!("{base}_{n}") }).find(|id| !taken.contains(id)).unwrap_or(base);
        taken.insert(id.clone());
        id
    };
    for (r, row) in rows.iter().enumerate() {
        let prefix = if several { format!("{}_", id_of(&row.name).chars().take(24).collect::<String>()) } else { String::new() };
        let y = 80 + 150 * r;
        let clients = unique(format!("{prefix}clients"));
        let mut producer = default_block(Kind::Producer);
        if let BlockSpec::Producer(p) = &mut producer {
            p.keys = Some(10);
        }
        nodes.push(node(&clients, producer, 100, y));
        let mut from = clients;
        for (k, (name, spec)) in row.limiters.iter().enumerate() {
            let id = unique(format!("{prefix}{}", id_of(name)));
            nodes.push(node(&id, BlockSpec::ProductLimiter(spec.clone()), 330 + 230 * k, y));
            edges.push(EdgeSpec { from, to: id.clone() });
            from = id;
        }
        let app = unique(format!("{prefix}app"));
        let mut consumer = default_block(Kind::Consumer);
        if let BlockSpec::Consumer(c) = &mut consumer {
            c.workers = 1000;
            c.service_time = Distribution::Fixed { value: 0.001 };
        }
        nodes.push(node(&app, consumer, 330 + 230 * row.limiters.len(), y));
        edges.push(EdgeSpec { from, to: app });
    }
    let described: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let scenario = Scenario {
        version: crate::scenario::SCENARIO_VERSION,
        name: format!("Imported from {product}"),
        description: format!("{product}'s limits as it applies them ({}); each row's producer is a placeholder: replay your own traffic with sluice run --arrivals.", described.join("; ")),
        seed: None,
        nodes,
        edges,
    };
    scenario.validate().map_err(|e| ImportError::Invalid(e.to_string()))?;
    Ok(scenario)
}

/// The limiters an export writes, each with its node's id: node `node`
/// alone (refused, saying why, when `limiter` does not take its block), or
/// every block of the scenario `limiter` takes; none at all is refused as
/// nothing to write for `target`.
pub(crate) fn chosen<'a, T>(
    scenario: &'a Scenario,
    node: Option<&str>,
    target: &'static str,
    limiter: impl Fn(&'a ProductLimiterSpec) -> Option<&'a T>,
    cannot: fn(Kind) -> &'static str,
) -> Result<Vec<(&'a str, &'a T)>, ExportError> {
    let of = |block: &'a BlockSpec| match block {
        BlockSpec::ProductLimiter(p) => limiter(p),
        _ => None,
    };
    let picked: Vec<(&str, &T)> = match node {
        Some(id) => {
            let n = &scenario.nodes[scenario.node_index(id).ok_or_else(|| ExportError::NoNode(id.to_string()))?];
            let spec = of(&n.block).ok_or_else(|| ExportError::Cannot { id: n.id.clone(), kind: n.block.kind(), target, why: cannot(n.block.kind()) })?;
            vec![(n.id.as_str(), spec)]
        }
        None => scenario.nodes.iter().filter_map(|n| of(&n.block).map(|spec| (n.id.as_str(), spec))).collect(),
    };
    if picked.is_empty() {
        return Err(ExportError::Nothing(target));
    }
    Ok(picked)
}

/// A node of one product limiter, for the exports' tests.
#[cfg(test)]
pub(crate) fn limiter_node(id: &str, spec: ProductLimiterSpec) -> NodeSpec {
    NodeSpec { id: id.into(), position: None, block: BlockSpec::ProductLimiter(spec) }
}
