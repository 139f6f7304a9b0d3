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

mod go;
mod nginx;
mod nginx_conf;

use crate::scenario::{Kind, Scenario};

pub use nginx_conf::SyntaxError;

/// A product whose configuration (or code) Sluice writes, and reads
/// where it has a configuration file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    Nginx,
    Go,
}

impl Product {
    pub const ALL: [Product; 2] = [Product::Nginx, Product::Go];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Product::Nginx => "nginx",
            Product::Go => "go",
        }
    }

    /// Whether it has a configuration file to import.
    pub fn imports(self) -> bool {
        match self {
            Product::Nginx => true,
            Product::Go => false,
        }
    }

    /// What an export of it writes, for people: `nginx configuration`.
    pub fn writes(self) -> &'static str {
        match self {
            Product::Nginx => "nginx configuration",
            Product::Go => "Go code",
        }
    }

    /// The product a product limiter is the limiter of.
    pub fn of(spec: &crate::scenario::ProductLimiterSpec) -> Product {
        use crate::scenario::ProductLimiterSpec;
        match spec {
            ProductLimiterSpec::NginxLimitReq(_) => Product::Nginx,
            ProductLimiterSpec::GoRate(_) => Product::Go,
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
#[derive(Clone, Debug)]
pub struct Imported {
    pub scenario: Scenario,
    /// What it does not model, each with its line.
    pub notes: Vec<Note>,
}

/// A directive left out of the scenario, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub line: usize,
    pub text: String,
}

/// Why a configuration was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("line {line}: {expected}")]
    At { line: usize, expected: String },
    #[error("nothing in it is limited by limit_req: there is nothing to simulate")]
    NothingLimited,
    #[error("{0} has no configuration file to import: put its limiter on the canvas (a product limiter), then export it")]
    NoFile(&'static str),
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
        Product::Go => Err(ImportError::NoFile("Go")),
    }
}

/// Writes what enforces `node` in `product`, the node alone.
pub fn export_node(product: Product, node: &crate::scenario::NodeSpec) -> Result<Exported, ExportError> {
    let alone = Scenario { version: crate::scenario::SCENARIO_VERSION, name: String::new(), description: String::new(), seed: None, nodes: vec![node.clone()], edges: Vec::new() };
    export(product, &alone, Some(&node.id))
}

/// Writes what enforces `scenario`'s limiters (or node `node`'s alone) in
/// `product`.
pub fn export(product: Product, scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    match product {
        Product::Nginx => nginx::export(scenario, node),
        Product::Go => go::export(scenario, node),
    }
}
