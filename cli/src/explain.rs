//! `sluice explain`: why the last drop or state change at or before an
//! instant happened, at one node or every node, as a chain of causes.

use sluice_engine::explain::{last_in, Explainer};
use sluice_engine::timeline::Run;
use sluice_engine::{SimTime, Simulation};

use crate::{load, Format};

/// The chains of `file`'s run at `at` seconds, for `node` or every node
/// where something happened.
pub fn run(file: &str, at: f64, node: Option<&str>, seed: Option<u64>, format: Format) -> Result<String, String> {
    if !(0.0..=1e9).contains(&at) {
        return Err(format!("--at must be between 0 and 1e9 seconds, got {}", crate::given(at)));
    }
    let scenario = load(file)?;
    let nodes: Vec<usize> = match node {
        Some(id) => vec![scenario.nodes.iter().position(|n| n.id == id).ok_or_else(|| {
            let ids: Vec<&str> = scenario.nodes.iter().map(|n| n.id.as_str()).collect();
            format!("--node: no node \"{id}\" in {file} (its nodes: {})", ids.join(", "))
        })?],
        None => (0..scenario.nodes.len()).collect(),
    };
    let seed = seed.unwrap_or(scenario.seed_or_default());
    let sim = Simulation::new(scenario, seed).map_err(|e| e.to_string())?;
    let t = SimTime::from_secs_f64(at);
    let mut run = Run::new(sim);
    run.run_until(t).map_err(|stop| stop.to_string())?;
    let mut explainer = Explainer::new(&run);
    let mut chains = Vec::new();
    let seen = run.at(t);
    for i in nodes {
        if let Some(why) = last_in(&seen, i) {
            chains.push((i, explainer.chain_of(&why)));
        }
    }
    let sim = run.sim();
    Ok(match format {
        Format::Json => {
            let mut by_node = serde_json::Map::new();
            for (i, chain) in &chains {
                by_node.insert(sim.node_id(*i).to_string(), chain.to_json(sim));
            }
            let out = serde_json::json!({ "at_s": at, "nodes": by_node });
            format!("{}\n", serde_json::to_string_pretty(&out).unwrap_or_default())
        }
        Format::Text => {
            if chains.is_empty() {
                return Ok(format!("Nothing was dropped, refused or changed state{} by {at} s.\n", node.map(|n| format!(" at {n}")).unwrap_or_default()));
            }
            chains.iter().map(|(i, chain)| format!("{}:\n{}", sim.node_id(*i), chain.to_text())).collect::<Vec<_>>().join("\n")
        }
    })
}
