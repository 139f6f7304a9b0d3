//! Where two runs part: the first instant at which a block of one run
//! stands otherwise than the same block (by id) of the other, and why each
//! did what it did then.
//!
//! Guarantees:
//! - The runs are stepped together from time zero, instant by instant (each
//!   to the earlier of their next events), and compared after each instant
//!   block by block: what entered, left and was dropped, what it holds, its
//!   workers busy and its states. The first instant any differs is the one
//!   found, with no earlier instant differing.
//! - Of the blocks that differ then, the one named is the first whose
//!   inputs do not differ, or, if that one's offers were refused in one run
//!   and not in the other, the block that refused them: the block that
//!   decided otherwise, not one that was merely handed or refused
//!   something else.
//! - Bounded: at most `until` and `MAX_EVENTS` events of each run.
//! - From time zero as the runs' scenarios start: live changes the runs
//!   took are not made again here (a comparison is started from its
//!   files); `None` once time zero is no longer kept.

use crate::simulation::Simulation;
use crate::state::State;
use crate::time::SimTime;
use crate::timeline::Run;

use super::{find, Asked, Chain, Explainer};

/// Events of each run looked at, at most.
pub const MAX_EVENTS: u64 = 5_000_000;

/// The first instant two runs part, at which block.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    pub at: SimTime,
    /// The block's id, and its index in each run.
    pub id: String,
    pub node_a: usize,
    pub node_b: usize,
    /// What differs, in words: "in A window had passed 12 messages on, in
    /// B 13".
    pub says: String,
    /// Why it stood so in each run, when something happened there.
    pub a: Option<Chain>,
    pub b: Option<Chain>,
}

/// What a block shows of itself, compared between the runs: its counts,
/// and the states it has left its first ones for.
fn standing(sim: &Simulation, node: usize) -> ([u64; 5], [Option<State>; 3]) {
    let s = sim.stats(node);
    let states = sim.whys().changes(node).next_back().map_or([None; 3], |w| w.states.map(|st| st.map(|(st, _)| st)));
    ([s.arrived, s.departed, s.dropped_total(), s.depth_messages.value(), s.in_service], states)
}

const NAMES: [&str; 5] = ["had taken in", "had passed on", "had dropped", "held", "was serving"];

/// Where runs `a` and `b` first part, up to `until`, or `None` if they do
/// not by then.
pub fn diverge(a: &Run, b: &Run, until: SimTime) -> Option<Divergence> {
    if a.earliest() > SimTime::ZERO || b.earliest() > SimTime::ZERO {
        // Time zero is no longer kept.
        return None;
    }
    let (mut sa, mut sb) = (a.at(SimTime::ZERO), b.at(SimTime::ZERO));
    let pairs: Vec<(usize, usize)> =
        sa.scenario().nodes.iter().enumerate().filter_map(|(i, n)| sb.scenario().node_index(&n.id).map(|j| (i, j))).collect();
    let start = (sa.events(), sb.events());
    let mut t = SimTime::ZERO;
    loop {
        if pairs.iter().any(|&(i, j)| standing(&sa, i) != standing(&sb, j)) {
            let differing: Vec<(usize, usize)> = pairs.iter().copied().filter(|&(i, j)| standing(&sa, i) != standing(&sb, j)).collect();
            return Some(parted(a, b, &sa, &sb, &differing, t));
        }
        let next = match (sa.next_event_time(), sb.next_event_time()) {
            (Some(x), Some(y)) => x.min(y),
            (x, y) => x.or(y)?,
        };
        if next > until || sa.events() - start.0 > MAX_EVENTS || sb.events() - start.1 > MAX_EVENTS {
            return None;
        }
        t = next;
        sa.run_until(t).ok()?;
        sb.run_until(t).ok()?;
    }
}

/// The divergence at `t` among the `differing` blocks.
fn parted(a: &Run, b: &Run, sa: &Simulation, sb: &Simulation, differing: &[(usize, usize)], t: SimTime) -> Divergence {
    let scenario = sa.scenario();
    let differs = |i: usize| differing.iter().any(|&(x, _)| x == i);
    // The first whose inputs stand alike in both.
    let (mut i, mut j) = differing
        .iter()
        .copied()
        .find(|&(i, _)| scenario.edges.iter().filter(|e| e.to == scenario.nodes[i].id).all(|e| scenario.node_index(&e.from).is_none_or(|f| !differs(f))))
        .unwrap_or(differing[0]);
    let first = (i, j);
    // A block refused in one run and not in the other was handed nothing
    // otherwise: the block that refused it decided.
    for _ in 0..scenario.nodes.len() {
        let by = |sim: &Simulation, n: usize| sim.whys().held_back(n).map(|h| sim.node_id(h.by as usize).to_string());
        let (x, y) = (by(sa, i), by(sb, j));
        let Some(refuser) = (if x != y { x.or(y) } else { None }) else { break };
        match (sa.scenario().node_index(&refuser), sb.scenario().node_index(&refuser)) {
            (Some(a), Some(b)) if (a, b) != (i, j) => (i, j) = (a, b),
            _ => break,
        }
    }
    let id = scenario.nodes[i].id.clone();
    let (x, y) = (standing(sa, i), standing(sb, j));
    let words = |states: &[Option<State>; 3]| {
        let named: Vec<&str> = states.iter().flatten().map(|s| s.as_str()).collect();
        if named.is_empty() { "as it began".to_string() } else { named.join(" and ") }
    };
    let says = match (0..x.0.len()).find(|&k| x.0[k] != y.0[k]) {
        Some(k) => format!("in A {id} {} {} messages, in B {}", NAMES[k], x.0[k], y.0[k]),
        None => format!("in A {id} was {}, in B {}", words(&x.1), words(&y.1)),
    };
    let chain = |run: &Run, node: usize| find(run, t, node, Asked::Last).map(|s| Explainer::new(run).chain_of(&s));
    // The decider's own last doing, or the refusal of the block it refused.
    let (a_chain, b_chain) = (chain(a, i).or_else(|| chain(a, first.0)), chain(b, j).or_else(|| chain(b, first.1)));
    Divergence { at: t, id, node_a: i, node_b: j, says, a: a_chain, b: b_chain }
}
