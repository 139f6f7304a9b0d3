//! Rust code out, for tower's layers: per limiter, the `ServiceBuilder`
//! that stacks its layers in front of a service, and how to answer what
//! `load_shed` refuses.
//!
//! Guarantees: the builder adds the block's layers in the block's order
//! (the first is the outermost, as `ServiceBuilder` adds them), with its
//! bounds, limits and windows (a window as whole milliseconds when it is
//! one, else nanoseconds); every line names the node it is for. tower has
//! no configuration file, so nothing is imported.

use super::{ExportError, Exported};
use crate::blocks::product_limiter::{TowerLayer, TowerSpec};
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::ConcurrencyLimiter => "Sluice's own concurrency limiter is close to tower's concurrency_limit, but a product limiter tower says what tower's layers do, in their order",
        Kind::RateLimiter => "Sluice's own rate limiter is not tower's: tower's rate_limit is a fixed window anchored at its first call; a product limiter tower says what it does",
        Kind::ProductLimiter => "it is another product's limiter",
        _ => "tower has no such layer",
    }
}

/// A window as Rust writes a `Duration`.
fn duration(per_s: f64) -> String {
    let ns = (per_s * 1e9).round() as u64;
    match ns {
        _ if ns.is_multiple_of(1_000_000_000) => format!("Duration::from_secs({})", ns / 1_000_000_000),
        _ if ns.is_multiple_of(1_000_000) => format!("Duration::from_millis({})", ns / 1_000_000),
        _ => format!("Duration::from_nanos({ns})"),
    }
}

/// A Rust name for node `id`: `api-edge` is `api_edge`.
fn rust_name(id: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match",
        "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become",
        "box", "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
    ];
    let mut name: String = id.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) || KEYWORDS.contains(&name.as_str()) {
        name.insert_str(0, "node_");
    }
    name
}

/// The builder for node `id`.
fn builder(id: &str, spec: &TowerSpec) -> String {
    let mut code = format!("// Sluice's node \"{id}\": {}.\nlet {} = ServiceBuilder::new()\n", spec.summary(), rust_name(id));
    for layer in &spec.layers {
        code.push_str(&match layer {
            TowerLayer::LoadShed => "    .load_shed()\n".to_string(),
            TowerLayer::Buffer { bound } => format!("    .buffer({bound})\n"),
            TowerLayer::ConcurrencyLimit { max } => format!("    .concurrency_limit({max})\n"),
            TowerLayer::RateLimit { num, per_s } => format!("    .rate_limit({num}, {})\n", duration(*per_s)),
        });
    }
    code.push_str("    .service(your_service);\n");
    if spec.layers.contains(&TowerLayer::LoadShed) {
        code.push_str(&format!(
            "// What load_shed refuses fails with Overloaded: answer it {}.\n// if err.is::<tower::load_shed::error::Overloaded>() {{ /* {} */ }}\n",
            spec.status, spec.status
        ));
    }
    code
}

/// Writes the Rust that stacks the scenario's tower limiters (or node
/// `node`'s alone).
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    let chosen = super::chosen(scenario, node, "tower", |p| match p {
        ProductLimiterSpec::Tower(s) => Some(s),
        _ => None,
    }, cannot)?;
    let mut text = String::from(
        "// tower 0.5: what Sluice's limiters enforce. ServiceBuilder adds the first layer outermost.\n// Cargo.toml: tower = { version = \"0.5\", features = [\"buffer\", \"limit\", \"load-shed\"] }\nuse std::time::Duration;\nuse tower::ServiceBuilder;\n",
    );
    for &(id, spec) in &chosen {
        text.push('\n');
        text.push_str(&builder(id, spec));
    }
    let mut warnings = vec!["each process (each clone of a stack's limit, for concurrency_limit a shared semaphore) limits on its own: N replicas let N times through".to_string()];
    if chosen.iter().any(|(_, s)| s.layers.iter().any(|l| matches!(l, TowerLayer::Buffer { .. }))) {
        warnings.push("buffer spawns its worker on the tokio runtime: build the stack inside it".into());
    }
    if chosen.iter().any(|(_, s)| !s.layers.contains(&TowerLayer::LoadShed)) {
        warnings.push("without load_shed nothing is refused: callers wait, and a client's own timeout is what gives up".into());
    }
    Ok(Exported { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{BlockSpec, NodeSpec};

    #[test]
    fn the_builder_adds_the_layers_in_the_blocks_order() {
        let spec = TowerSpec { layers: vec![TowerLayer::LoadShed, TowerLayer::Buffer { bound: 8 }, TowerLayer::RateLimit { num: 5, per_s: 0.25 }], status: 429 };
        let node = NodeSpec { id: "api-edge".into(), position: None, block: BlockSpec::ProductLimiter(ProductLimiterSpec::Tower(spec)) };
        let out = super::super::export_node(super::super::Product::Tower, &node).unwrap();
        assert!(out.text.contains("let api_edge = ServiceBuilder::new()\n    .load_shed()\n    .buffer(8)\n    .rate_limit(5, Duration::from_millis(250))\n    .service(your_service);\n"), "{}", out.text);
        assert!(out.text.contains("answer it 429"), "{}", out.text);
        assert_eq!([duration(2.0), duration(0.05), duration(0.0000015)], ["Duration::from_secs(2)", "Duration::from_millis(50)", "Duration::from_nanos(1500)"]);
        assert_eq!([rust_name("type"), rust_name("9lives"), rust_name("Api.v2")], ["node_type", "node_9lives", "api_v2"]);
        let queue = NodeSpec { id: "q".into(), position: None, block: crate::scenario::default_block(Kind::Queue) };
        let err = super::super::export_node(super::super::Product::Tower, &queue).unwrap_err().to_string();
        assert_eq!(err, "queue \"q\" cannot be written for tower: tower has no such layer");
    }
}
