//! What a block, a node's place and a new block's place are when the file
//! or the person does not say: the defaults the editor gives a new block,
//! and the reader a node it cannot read, while the rest is checked.
//!
//! Guarantee: every default block is valid on its own (a test reads each).

use serde_json::{json, Value};

use super::{BlockSpec, Kind, Position, Scenario};

/// The scenario the page opens on: a fast video producer, a sender queue with
/// soft and hard thresholds, and a slow client.
pub const DEFAULT_SCENARIO: &str = include_str!("../../../scenarios/slow-client.json");

/// The parameters a new block of each kind starts with: a working example
/// rather than the smallest valid one, so that it does something at once.
pub fn default_block(kind: Kind) -> BlockSpec {
    let fields = match kind {
        Kind::Producer => json!({"arrivals": {"process": "poisson", "rate_per_s": 20.0}}),
        // A newcomer's first queue: bounded, dropping the newest arrival
        // when full, with no soft or hard limit to react at (M/M/1/K behind
        // a Poisson producer and an exponential consumer, which the Theory
        // panel knows at once). Setting a limit brings Moment's reactions.
        Kind::Queue => json!({"capacity": {"messages": 50}, "on_full": "drop_newest"}),
        Kind::Consumer => json!({"service_time": {"dist": "exponential", "mean": 0.05}}),
        Kind::Router => json!({"policy": "round_robin"}),
        Kind::Window => json!({"max_messages": 8}),
        Kind::Credit => json!({"initial_credit": 8}),
        Kind::RateLimiter => json!({"rules": [{"scheme": "token_bucket", "limit": 10, "span_s": 1}]}),
        Kind::ConcurrencyLimiter => json!({"max_in_flight": 4}),
        Kind::Link => json!({"bandwidth_bytes_per_s": 100000.0, "latency_s": 0.02}),
        Kind::Dispatcher => json!({"workers": 2, "service_time": {"dist": "exponential", "mean": 0.05}}),
        Kind::ResourcePool => json!({"min_total": 1, "max_total": 4}),
        Kind::ProductLimiter => json!({"product": "nginx_limit_req", "rate": 10, "burst": 5}),
    };
    let mut value = fields;
    value["kind"] = Value::from(kind.as_str());
    crate::plumbing::json_read::from_value(&value).expect("every kind's defaults are a valid block")
}

/// Where a node without a position is drawn: in a row, in file order.
pub fn default_position(index: usize) -> Position {
    Position { x: 120.0 + 280.0 * index as f64, y: 160.0 }
}

/// A free spot for a block added without a drop point: the first free cell
/// of a grid four blocks wide, from the top left of the existing ones, so
/// the canvas grows downwards in rows rather than ever wider.
pub fn free_spot(scenario: &Scenario) -> Position {
    const COLUMNS: usize = 4;
    const DX: f64 = 240.0;
    const DY: f64 = 150.0;
    let taken: Vec<Position> =
        scenario.nodes.iter().enumerate().map(|(i, n)| n.position.unwrap_or(default_position(i))).collect();
    let left = taken.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
    let top = taken.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    let (left, top) = if left.is_finite() { (left, top) } else { (120.0, 160.0) };
    (0..)
        .map(|k| Position { x: left + DX * (k % COLUMNS) as f64, y: top + DY * (k / COLUMNS) as f64 })
        .find(|spot| taken.iter().all(|p| (p.x - spot.x).abs() >= DX * 0.75 || (p.y - spot.y).abs() >= DY * 0.75))
        .unwrap_or(Position { x: left, y: top })
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::NodeSpec;

    #[test]
    fn every_kinds_default_block_is_a_sound_draft_node() {
        for kind in Kind::ALL {
            let scenario = Scenario {
                version: crate::scenario::SCENARIO_VERSION,
                name: "one".into(),
                description: String::new(),
                seed: None,
                nodes: vec![NodeSpec { id: "b".into(), position: None, block: default_block(kind) }],
                edges: Vec::new(),
            };
            assert!(scenario.validate_draft().is_ok(), "{kind:?}: {:?}", scenario.validate_draft());
        }
    }

    #[test]
    fn a_free_spot_is_clear_of_every_block() {
        let mut scenario = Scenario::from_json(DEFAULT_SCENARIO).unwrap();
        for _ in 0..12 {
            let spot = free_spot(&scenario);
            for (i, n) in scenario.nodes.iter().enumerate() {
                let p = n.position.unwrap_or(default_position(i));
                assert!((p.x - spot.x).abs() >= 180.0 || (p.y - spot.y).abs() >= 112.5, "{spot:?} on {}", n.id);
            }
            let id = format!("n{}", scenario.nodes.len());
            scenario.nodes.push(crate::scenario::NodeSpec { id, position: Some(spot), block: default_block(Kind::Queue) });
        }
    }
}
