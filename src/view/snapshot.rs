//! What the page shows of a simulation at one instant, copied out of the
//! engine once per frame so that components compare plain data.

use std::collections::HashMap;

use sluice_engine::scenario::Limits;
use sluice_engine::scenario::default_position;
use sluice_engine::scenario::{Kind, Position};
use sluice_engine::Mark;
use sluice_engine::theory::{Measured, Model, Prediction, NoClosedForm};
use sluice_engine::{BlockSpec, ClientReport, NodeSpec, Scenario, Simulation, State, Totals};

#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub index: usize,
    pub id: String,
    pub kind: Kind,
    pub x: f64,
    pub y: f64,
    /// The send-queue state, for queues; a circuit breaker's state.
    pub state: Option<State>,
    pub depth: u64,
    pub depth_bytes: u64,
    pub in_service: u64,
    pub workers: u32,
    /// A producer stopped by backpressure or holding a refused message.
    pub paused: bool,
    pub disconnected: bool,
    /// Held back from the run: not connected yet (the rest runs).
    pub held: bool,
    pub arrived: u64,
    pub departed: u64,
    pub dropped: Vec<(&'static str, u64)>,
    /// For queues: the load offered to it, where known.
    pub load: Option<f64>,
    /// Messages sent again because an ACK was not accepted: by a window,
    /// and over a link's wire.
    pub retransmitted: u64,
    pub soft: Limits,
    pub hard: Limits,
    /// For queues: what queueing theory predicts beside what was measured,
    /// or why the formulas do not describe this queue.
    pub theory: Option<Result<TheoryView, NoClosedForm>>,
    /// For a product limiter: its product and settings, as configured.
    pub summary: Option<String>,
    /// For a product limiter: whether it limits requests in progress
    /// (`in_service` counts them) rather than a rate.
    pub limits_in_progress: bool,
    /// For a product limiter that adapts its limit: the limit now.
    pub adaptive_limit: Option<u64>,
    /// For a circuit breaker: the calls in its window, in all and failed
    /// (its state is `state`).
    pub breaker_window: Option<(u64, u64)>,
    /// For a producer whose clients wait with a time-out: what they got;
    /// for a consumer: the work it spent for clients who had left.
    pub client: Option<ClientReport>,
}

/// What queueing theory predicts for a queue beside what was measured:
/// since its model last changed, and over the whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct TheoryView {
    pub prediction: Prediction,
    /// Since `since_s`, when the settings the model depends on last changed
    /// (0: the whole run).
    pub measured: Measured,
    pub since_s: f64,
    pub whole_run: Measured,
}

/// A queue's prediction (or why there is none), and a mark of its figures
/// when the settings the prediction depends on last changed.
#[derive(Clone, Debug)]
pub struct Theory {
    pub prediction: Result<Prediction, NoClosedForm>,
    pub since: Mark,
    /// The load offered to the queue (`theory::offered_load`), where known.
    pub load: Option<f64>,
}

/// Per node: for a queue, what queueing theory predicts for it, or why no
/// formula applies, and since when. It depends on the scenario alone, so it
/// is worked out when the running scenario changes, not with every
/// snapshot.
pub type Theories = Vec<Option<Theory>>;

/// The theories of `sim`'s queues. A queue whose prediction is the same as
/// in `before` keeps its mark; one whose prediction changed (a live edit of
/// the arrivals, the service, the workers or the limits) is measured from
/// now on, so that the figures beside the new prediction do not mix in the
/// time under the old settings. With `changed` (the nodes whose parameters
/// alone an edit changed), only the queues whose theory reads them are
/// worked out again (`theory::reading`); the rest keep theirs.
pub fn theories(sim: &Simulation, before: &Theories, changed: Option<&[usize]>) -> Theories {
    let scenario = sim.scenario();
    let work_out = |i: usize| {
        (scenario.nodes[i].block.kind() == Kind::Queue).then(|| {
            let prediction = Model::of(scenario, i).map(|m| m.predict());
            let since = match before.get(i) {
                Some(Some(old)) if old.prediction == prediction => old.since.clone(),
                Some(Some(_)) => Mark::of(sim, i),
                _ => Mark::default(),
            };
            Theory { prediction, since, load: sluice_engine::theory::offered_load(scenario, i) }
        })
    };
    match changed {
        Some(changed) if before.len() == scenario.nodes.len() => {
            let mut theories = before.clone();
            for i in sluice_engine::theory::reading(scenario, changed) {
                theories[i] = work_out(i);
            }
            theories
        }
        _ => (0..scenario.nodes.len()).map(work_out).collect(),
    }
}

impl NodeView {
    /// A node drawn at `position` with no figures yet.
    fn blank(index: usize, spec: &NodeSpec, position: Position) -> NodeView {
        NodeView {
            index,
            id: spec.id.clone(),
            kind: spec.block.kind(),
            x: position.x,
            y: position.y,
            state: None,
            depth: 0,
            depth_bytes: 0,
            in_service: 0,
            workers: 0,
            paused: false,
            disconnected: false,
            held: false,
            arrived: 0,
            departed: 0,
            dropped: Vec::new(),
            retransmitted: 0,
            load: None,
            soft: Limits::default(),
            hard: Limits::default(),
            theory: None,
            summary: match &spec.block {
                sluice_engine::BlockSpec::ProductLimiter(p) => Some(p.summary()),
                _ => None,
            },
            limits_in_progress: matches!(&spec.block, sluice_engine::BlockSpec::ProductLimiter(p) if p.limits_in_progress()),
            adaptive_limit: None,
            breaker_window: None,
            client: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TransitionView {
    /// Its place in the run's sequence of transitions: a stable key.
    pub seq: u64,
    pub time_s: f64,
    /// The node's index, to select it from the log.
    pub index: usize,
    pub node: String,
    pub from: State,
    pub to: State,
    pub cause: sluice_engine::Cause,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub time_s: f64,
    pub events: u64,
    pub totals: Totals,
    pub nodes: Vec<NodeView>,
    pub edges: Vec<(usize, usize)>,
    /// What ties blocks beside the edges, drawn dashed and named: a
    /// window's receipts to the block that reads them, a producer's link to
    /// its server, a consumer to its supervisor.
    pub relations: Vec<(usize, usize, &'static str)>,
}

/// What the event log shows of the state transitions: the latest, most
/// recent first, and how many there were in all. Its own view, taken when
/// the log refreshes, so that neither the log nor the canvas's figures
/// copy what only the other shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogView {
    pub transitions: Vec<TransitionView>,
    pub total: u64,
}

impl LogView {
    pub fn of(sim: &Simulation) -> LogView {
        let total = sim.transitions().total();
        let transitions = sim
            .transitions()
            .entries()
            .rev()
            .take(LOG_LINES)
            .zip((0..total).rev())
            .map(|(t, seq)| TransitionView {
                seq,
                time_s: t.time.as_secs_f64(),
                index: t.node,
                node: sim.node_id(t.node).to_string(),
                from: t.from,
                to: t.to,
                cause: t.cause,
            })
            .collect();
        LogView { transitions, total }
    }
}

/// How many log lines the page keeps on screen.
pub const LOG_LINES: usize = 200;

impl Snapshot {
    /// A scenario still being built: its nodes where they are drawn, no
    /// figures yet.
    pub fn draft(scenario: &Scenario) -> Snapshot {
        let nodes = scenario
            .nodes
            .iter()
            .enumerate()
            .map(|(i, spec)| NodeView::blank(i, spec, spec.position.unwrap_or(default_position(i))))
            .collect();
        let index = scenario.indices();
        Snapshot {
            time_s: 0.0,
            events: 0,
            totals: Totals { produced: 0, resent: 0, delivered: 0, dropped: 0, in_system: 0 },
            nodes,
            edges: edges_of(scenario, &index),
            relations: relations_of(scenario, &index),
        }
    }

    /// A running simulation, its nodes drawn where `layout` (the scenario
    /// being edited, of the same shape) puts them.
    /// `theories` are those of the running scenario (`theories`).
    pub fn of(sim: &Simulation, layout: &Scenario, theories: &Theories) -> Snapshot {
        let scenario = sim.scenario();
        let nodes = scenario
            .nodes
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let stats = sim.stats(i);
                let report = sim.node_report(i);
                let position = layout.nodes.get(i).unwrap_or(spec).position.unwrap_or(default_position(i));
                let mut view = NodeView {
                    state: report.state,
                    depth: stats.depth_messages.value(),
                    depth_bytes: stats.depth_bytes,
                    in_service: stats.in_service,
                    paused: report.paused.unwrap_or(false),
                    client: report.client.clone(),
                    arrived: stats.arrived,
                    departed: stats.departed,
                    dropped: report.dropped.into_iter().collect(),
                    retransmitted: report.retransmitted.unwrap_or(0),
                    held: sim.is_held(i),
                    adaptive_limit: sim.adaptive_limit(i),
                    breaker_window: sim.breaker(i).map(|(_, calls, failed)| (calls, failed)),
                    ..NodeView::blank(i, spec, position)
                };
                // Limits and workers as the scenario sets them.
                match &spec.block {
                    BlockSpec::Queue(q) => {
                        view.soft = q.soft_limit;
                        view.hard = q.hard_limit;
                        view.disconnected = sim.disconnected(i);
                        view.load = theories.get(i).and_then(Option::as_ref).and_then(|t| t.load);
                        view.theory = theories.get(i).and_then(Option::as_ref).map(|t| {
                            t.prediction.clone().map(|prediction| TheoryView {
                                prediction,
                                measured: Measured::since(sim, i, &t.since),
                                since_s: t.since.t_s(),
                                whole_run: Measured::of(sim, i),
                            })
                        });
                    }
                    BlockSpec::Consumer(c) => view.workers = c.workers,
                    BlockSpec::Dispatcher(d) => view.workers = d.workers,
                    _ => {}
                }
                view
            })
            .collect();
        let index = scenario.indices();
        let edges = edges_of(scenario, &index);
        Snapshot {
            time_s: sim.now().as_secs_f64(),
            events: sim.events(),
            totals: sim.totals(),
            nodes,
            edges,
            relations: relations_of(scenario, &index),
        }
    }
}

fn relations_of(scenario: &Scenario, index: &HashMap<&str, usize>) -> Vec<(usize, usize, &'static str)> {
    let at = |id: &str| index.get(id).copied();
    scenario
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, node)| {
            let (to, what) = match &node.block {
                BlockSpec::Window(w) => (w.receipts.as_ref().and_then(|r| at(&r.to))?, "receipts"),
                BlockSpec::Producer(p) => (p.linked_to.as_deref().and_then(at)?, "linked"),
                BlockSpec::Consumer(c) => (c.lifecycle.as_ref()?.supervisor.as_deref().and_then(at)?, "supervisor"),
                _ => return None,
            };
            Some((i, to, what))
        })
        .collect()
}

fn edges_of(scenario: &Scenario, index: &HashMap<&str, usize>) -> Vec<(usize, usize)> {
    scenario.edges.iter().filter_map(|e| Some((*index.get(e.from.as_str())?, *index.get(e.to.as_str())?))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block that serves with workers says how many it has: a
    /// dispatcher read "1/0 busy" when it had one.
    #[test]
    fn a_dispatcher_shows_its_workers() {
        for name in ["deferred-processor", "agent-queues", "netsendq", "window-on-receipt"] {
            let text = std::fs::read_to_string(format!("{}/scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
            let scenario = Scenario::from_json(&text).unwrap();
            let mut sim = Simulation::new(scenario.clone(), 1).unwrap();
            sim.run_until(sluice_engine::SimTime::from_secs_f64(5.0)).unwrap();
            let snapshot = Snapshot::of(&sim, &scenario, &Vec::new());
            for (node, spec) in snapshot.nodes.iter().zip(&scenario.nodes) {
                if let BlockSpec::Dispatcher(d) = &spec.block {
                    assert_eq!(node.workers, d.workers, "{name}: {}", spec.id);
                    assert!(node.workers >= 1 && node.in_service <= node.workers as u64, "{name}: {} busy of {}", node.in_service, node.workers);
                }
            }
        }
    }
}

