//! Building a simulation from a scenario: each node's block, the wiring
//! between them, the classes and priorities resolved to indices, and the
//! first events of every block.

use super::*;

impl Simulation {
    /// Builds a simulation at time zero. The scenario is validated first.
    pub fn new(scenario: Scenario, seed: u64) -> Result<Simulation, ScenarioError> {
        scenario.validate()?;
        Ok(Simulation::build(scenario, seed, None, None))
    }

    /// Builds a simulation at time zero whose producer `producer` (by id;
    /// the only producer when `None`) sends at the instants of `replay`,
    /// with its keys, in place of its own arrival process.
    pub fn replaying(scenario: Scenario, seed: u64, producer: Option<&str>, replay: Replay) -> Result<Simulation, ReplayUseError> {
        Simulation::replaying_with(scenario, seed, producer, replay, ServiceTimes::Scenario)
    }

    /// As `replaying`, the consumers serving the replayed messages as
    /// `service` says (with the log's service times, if it gave them).
    pub fn replaying_with(scenario: Scenario, seed: u64, producer: Option<&str>, replay: Replay, service: ServiceTimes) -> Result<Simulation, ReplayUseError> {
        scenario.validate().map_err(ReplayUseError::Scenario)?;
        if service != ServiceTimes::Scenario && replay.service.is_empty() {
            return Err(ReplayUseError::NoServiceTimes);
        }
        let producers: Vec<usize> = (0..scenario.nodes.len()).filter(|&i| scenario.nodes[i].block.kind() == Kind::Producer).collect();
        let named = || producers.iter().map(|&i| scenario.nodes[i].id.clone()).collect::<Vec<_>>().join(", ");
        let i = match producer {
            Some(id) => scenario.node_index(id).filter(|i| producers.contains(i)).ok_or_else(|| ReplayUseError::NoSuchProducer { id: id.to_string(), producers: named() })?,
            None => match producers[..] {
                [] => return Err(ReplayUseError::NoProducer),
                [i] => i,
                _ => return Err(ReplayUseError::WhichProducer(named())),
            },
        };
        Ok(Simulation::build(scenario, seed, None, Some((i, replay, service))))
    }

    /// Builds a simulation of a draft's connected part: the blocks still
    /// lacking an edge, and every block joined to them by edges, are held
    /// (they take part in nothing and stay at zero) while the rest runs.
    /// Refused when nothing would happen (no producer is left to run), or
    /// when the rest is not a valid scenario on its own (a block of it
    /// names a held one).
    pub fn new_in_part(scenario: Scenario, seed: u64) -> Result<Simulation, ScenarioError> {
        let gaps = scenario.validate_draft()?;
        if gaps.is_empty() {
            return Ok(Simulation::build(scenario, seed, None, None));
        }
        let held = scenario.unconnected(&gaps);
        let runs_a_producer = scenario.nodes.iter().zip(&held).any(|(node, &h)| !h && node.block.kind() == Kind::Producer);
        if !runs_a_producer {
            return Err(ScenarioError { errors: gaps });
        }
        scenario.without(&held).validate()?;
        Ok(Simulation::build(scenario, seed, Some(held), None))
    }

    /// Builds a simulation of a checked scenario, `held` nodes (if any)
    /// never started, a producer replaying a file if given.
    fn build(scenario: Scenario, seed: u64, held: Option<Vec<bool>>, replay: Option<(usize, Replay, ServiceTimes)>) -> Simulation {
        let n = scenario.nodes.len();
        let outputs = scenario.outputs();
        let mut inputs = vec![Vec::new(); n];
        for (from, outs) in outputs.iter().enumerate() {
            for &to in outs {
                inputs[to].push(from);
            }
        }
        // Inputs in edge order, as documented.
        let edge_order: BTreeMap<(usize, usize), usize> =
            scenario.edge_ends().into_iter().enumerate().filter_map(|(k, (from, to))| Some(((from?, to?), k))).collect();
        for (to, ins) in inputs.iter_mut().enumerate() {
            ins.sort_by_key(|&from| edge_order.get(&(from, to)).copied().unwrap_or(usize::MAX));
        }
        let class_maps = class_maps(&scenario);
        let class_names = class_names(&scenario);
        let nodes = scenario
            .nodes
            .iter()
            .enumerate()
            .zip(class_maps)
            .map(|((i, spec), classes)| build_node(&scenario, &outputs, &inputs, i, &spec.block, classes))
            .collect();
        let rngs = scenario.nodes.iter().map(|node| SimRng::for_node(seed, &node.id)).collect();
        // Nodes start in the order of their names, not of the file: what
        // they schedule for the same instant then happens in an order that
        // moving a node in the file cannot change.
        let generated_keys = scenario
            .nodes
            .iter()
            .filter_map(|node| match &node.block {
                BlockSpec::Producer(p) => p.keys,
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let mut start_order: Vec<usize> = (0..n).collect();
        start_order.sort_by(|&a, &b| scenario.nodes[a].id.cmp(&scenario.nodes[b].id));
        let mut sim = Simulation {
            scenario,
            seed,
            events: 0,
            core: Core {
                now: SimTime::ZERO,
                rngs,
                scheduler: Scheduler::default(),
                log: TransitionLog::new(TRANSITION_LOG_CAPACITY),
                outbox: Vec::new(),
                failed_rpcs: Default::default(),
                abandoned: Default::default(),
                stale_ends: 0,
                decisions: None,
                tally: None,
                event: 0,
                whys: Default::default(),
            },
            nodes,
            stats: (0..n).map(|_| NodeStats::new()).collect(),
            outputs,
            inputs,
            wake_cursor: vec![0; n],
            refused: vec![false; n],
            wakes: std::collections::VecDeque::new(),
            wake_queued: vec![false; n],
            offer_depth: 0,
            refuser: usize::MAX,
            offer_from_link: false,
            not_read: false,
            socket_refused: false,
            pause_targets: vec![None; n],
            class_names,
            flows: None,
            watch_mask: STALL_SAMPLE - 1,
            watch_every: STALL_SAMPLE,
            watched_at: None,
            watched_since: 0,
            stall_bound: MAX_EVENTS_AT_ONE_INSTANT,
            stall_nodes: Vec::new(),
            stall_counts: Vec::new(),
            creep_events: 0,
            creep_at: SimTime::ZERO,
            creep_counts: Vec::new(),
            held_bound: MAX_MESSAGES_HELD,
            stop: None,
            supervision: None,
            limit_changes: Vec::new(),
            held,
            generated_keys,
            replayed_keys: None,
        };
        sim.install_replays(replay);
        sim.supervision = Supervision::build(&sim.scenario);
        sim.start_supervision();
        for i in start_order {
            if sim.is_held(i) {
                continue;
            }
            match &mut sim.nodes[i] {
                Node::Producer(p) => p.start(&mut ctx!(sim, i)),
                Node::Link(l) => l.start(&mut ctx!(sim, i)),
                Node::Consumer(c) => c.start(&mut ctx!(sim, i)),
                Node::Dispatcher { demands: d, .. } => d.start(&mut ctx!(sim, i)),
                Node::ResourcePool(r) => r.start(&mut ctx!(sim, i)),
                _ => {}
            }
        }
        sim
    }
}

impl Simulation {
    /// Plays each trace whose messages carry keys or service times as a
    /// replay, then `replay` (a file given on the command line) in place
    /// of its producer's arrivals. Keys are numbered once for all of them,
    /// after the keys producers generate: the same text is the same key.
    fn install_replays(&mut self, replay: Option<(usize, Replay, ServiceTimes)>) {
        let mut names = crate::replay::Keys::default();
        let offset = self.generated_keys;
        let number = |names: &mut crate::replay::Keys, text: &str| match names.index(text) {
            Some(NO_KEY) | None => NO_KEY,
            Some(k) => k.saturating_add(offset),
        };
        let traces: Vec<usize> = (0..self.scenario.nodes.len())
            .filter(|&i| matches!(&self.scenario.nodes[i].block, BlockSpec::Producer(p) if p.arrivals.replays()) && replay.as_ref().is_none_or(|r| r.0 != i))
            .collect();
        for i in traces {
            let BlockSpec::Producer(p) = &self.scenario.nodes[i].block else { continue };
            let Arrivals::Trace { times_s, keys, service_s, service_times } = &p.arrivals else { continue };
            let at = times_s.iter().map(|&t| SimTime::from_secs_f64(t)).collect();
            let numbered: Vec<u32> = keys.names().iter().map(|text| number(&mut names, text)).collect();
            let of = if keys.is_empty() {
                vec![NO_KEY; times_s.len()]
            } else {
                keys.numbers().iter().map(|&k| if k == 0 { NO_KEY } else { numbered[k as usize - 1] }).collect()
            };
            let (seconds, service) = (std::sync::Arc::from(service_s.as_slice()), *service_times);
            self.install_replay(i, at, of, seconds, service);
        }
        if let Some((i, replay, service)) = replay {
            let numbered: Vec<u32> = (0..=replay.names.len() as u32).map(|k| number(&mut names, replay.names.name(k))).collect();
            let of = replay.keys.iter().map(|&k| numbered.get(k as usize).copied().unwrap_or(NO_KEY)).collect();
            let seconds = replay.service.iter().map(|d| d.as_secs_f64()).collect();
            self.install_replay(i, replay.at, of, seconds, service);
        }
        if !names.is_empty() {
            self.replayed_keys = Some(Box::new(names));
        }
    }

    /// Producer `i` sends at `at` with keys `keys`; the consumers serve
    /// its messages with `seconds` as `service` says.
    fn install_replay(&mut self, i: usize, at: Vec<SimTime>, keys: Vec<u32>, seconds: std::sync::Arc<[f64]>, service: ServiceTimes) {
        if let Node::Producer(p) = &mut self.nodes[i] {
            p.replay(at, keys);
        }
        if service != ServiceTimes::Scenario {
            let own = service == ServiceTimes::Log;
            for node in &mut self.nodes {
                if let Node::Consumer(c) = node {
                    c.replay_service(ReplayedService { source: i as NodeRef, seconds: seconds.clone(), own });
                }
            }
        }
    }
}

pub(super) fn build_node(
    scenario: &Scenario,
    outputs: &[Vec<usize>],
    inputs: &[Vec<usize>],
    i: usize,
    block: &BlockSpec,
    classes: ClassMap,
) -> Node {
    match block {
        BlockSpec::Producer(p) => Node::Producer(Producer::new(p.clone(), classes)),
        BlockSpec::Queue(q) => Node::Queue(Queue::new(q.clone(), priority_table(scenario, &q.message_priorities))),
        BlockSpec::Consumer(c) => Node::Consumer(Consumer::new(c.clone())),
        BlockSpec::Router(r) => {
            Node::Router(Router::new(r.clone(), router_choice(scenario, outputs, i, r), outputs[i].len()))
        }
        BlockSpec::Window(w) => {
            let mut window = Window::new(w.clone());
            if let Some(class) = scenario.class_names().position(|c| c == crate::blocks::window::RECEIPT_CLASS) {
                window.set_receipt_class(class as u16);
            }
            Node::Window(window)
        }
        BlockSpec::Credit(c) => Node::Credit(Credit::new(c.clone())),
        BlockSpec::RateLimiter(r) => Node::RateLimiter(RateLimiter::new(r.clone())),
        BlockSpec::ConcurrencyLimiter(c) => Node::ConcurrencyLimiter(ConcurrencyLimiter::new(c.clone())),
        BlockSpec::ResourcePool(r) => Node::ResourcePool(ResourcePool::new(r.clone())),
        BlockSpec::ProductLimiter(p) => Node::ProductLimiter(ProductLimiter::new(p.clone())),
        BlockSpec::Link(l) => Node::Link(Link::new(l.clone())),
        BlockSpec::Dispatcher(d) => {
            let map = DispatcherMap {
                class_names: class_names(scenario),
                node_ids: scenario.nodes.iter().map(|n| n.id.clone()).collect(),
                inputs: inputs[i].clone(),
            };
            Node::Dispatcher {
                demands: Box::new(Dispatcher::new(d.clone(), map)),
                pool: Box::new(Consumer::new(d.workers_spec())),
                pool_stats: Box::default(),
            }
        }
    }
}

/// Resolves a router's policy to output positions.
pub(super) fn router_choice(scenario: &Scenario, outputs: &[Vec<usize>], router: usize, spec: &RouterSpec) -> Choice {
    let outs = &outputs[router];
    let position = |id: &str| scenario.node_index(id).and_then(|n| outs.iter().position(|&o| o == n));
    match spec {
        RouterSpec::RoundRobin => Choice::RoundRobin { next: 0 },
        RouterSpec::ByWeight { weights } => Choice::ByWeight { weights: weights.clone(), total: weights.iter().sum() },
        RouterSpec::ByClass { classes, default } => {
            let fallback = default.as_deref().and_then(position);
            let by_class = class_names(scenario)
                .iter()
                .map(|name| classes.get(name).map_or(fallback, |target| position(target)))
                .collect();
            Choice::ByClass { by_class }
        }
        RouterSpec::ByDestination => {
            // For every node, the first output from which it can be reached.
            let mut by_node = vec![None; scenario.nodes.len()];
            for (k, &out) in outs.iter().enumerate() {
                let mut stack = vec![out];
                let mut seen = vec![false; scenario.nodes.len()];
                while let Some(n) = stack.pop() {
                    if std::mem::replace(&mut seen[n], true) {
                        continue;
                    }
                    if by_node[n].is_none() {
                        by_node[n] = Some(k);
                    }
                    stack.extend(outputs[n].iter().copied());
                }
            }
            Choice::ByDestination { by_node }
        }
    }
}

/// Resolves message priorities against the scenario's names.
pub(super) fn priority_table(scenario: &Scenario, list: &[crate::priorities::MessagePriority]) -> crate::priorities::PriorityTable {
    if list.is_empty() {
        return Default::default();
    }
    let ids: Vec<String> = scenario.nodes.iter().map(|n| n.id.clone()).collect();
    crate::priorities::PriorityTable::resolve(list, &class_names(scenario), &ids)
}

/// Scenario-wide class names, by class index.
pub(super) fn class_names(scenario: &Scenario) -> Vec<String> {
    scenario.class_names().map(str::to_string).collect()
}

/// The class map of every node (empty for all but producers). Class indices
/// run across the scenario in node order.
pub(super) fn class_maps(scenario: &Scenario) -> Vec<ClassMap> {
    let mut base = 0u16;
    scenario
        .nodes
        .iter()
        .map(|node| match &node.block {
            BlockSpec::Producer(p) => {
                let map = ClassMap {
                    class_base: base,
                    destinations: p
                        .classes
                        .iter()
                        .map(|c| {
                            c.destination
                                .as_deref()
                                .and_then(|d| scenario.node_index(d))
                                .map_or(NO_DESTINATION, |i| i as NodeRef)
                        })
                        .collect(),
                };
                base = base.saturating_add(p.classes.len() as u16);
                map
            }
            _ => ClassMap::default(),
        })
        .collect()
}
