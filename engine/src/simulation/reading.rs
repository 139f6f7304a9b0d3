//! What a simulation shows of itself: its clock, scenario, blocks,
//! counters, log and flows, and the watchdog's bound.

use super::*;

impl Simulation {
    pub fn now(&self) -> SimTime {
        self.core.now
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn stats(&self, node: usize) -> &NodeStats {
        &self.stats[node]
    }

    /// Queue `node`'s soft and hard limits over the run: the limits in
    /// force from each instant on, from time zero (one entry when they
    /// never changed; none for a node that is not a queue).
    pub fn limits_over_time(&self, node: usize) -> Vec<(SimTime, [Limits; 2])> {
        let BlockSpec::Queue(now) = &self.scenario.nodes[node].block else {
            return Vec::new();
        };
        let changes: Vec<&LimitChange> = self.limit_changes.iter().filter(|c| c.node == node).collect();
        let mut steps = Vec::with_capacity(changes.len() + 1);
        let mut from = SimTime::ZERO;
        for change in changes {
            steps.push((from, change.before));
            from = change.at;
        }
        steps.push((from, [now.soft_limit, now.hard_limit]));
        steps
    }

    /// How long queue `node` spent in each send state, slot by slot from
    /// time zero (for a node that never changed state: none).
    pub fn state_times(&self, node: usize) -> Option<&crate::state_times::StateTimes> {
        self.stats[node].state_times.as_deref()
    }

    /// The course of node `node`'s limit and of what it had in flight, if
    /// it adapts its limit (a product limiter of Netflix's).
    pub fn adaptive_course(&self, node: usize) -> Option<&crate::blocks::AdaptiveCourse> {
        match self.nodes.get(node)? {
            Node::ProductLimiter(l) => l.adaptive_course(),
            _ => None,
        }
    }

    /// The limit node `node` decides by now, if it adapts one (a product
    /// limiter of Netflix's).
    pub fn adaptive_limit(&self, node: usize) -> Option<u64> {
        match self.nodes.get(node)? {
            Node::ProductLimiter(l) => l.adaptive_limit(self.core.now),
            _ => None,
        }
    }

    /// Node `node`'s circuit breaker, if it is one: its state now, and the
    /// calls in its window, in all and failed.
    pub fn breaker(&self, node: usize) -> Option<(crate::state::State, u64, u64)> {
        match self.nodes.get(node)? {
            Node::ProductLimiter(l) => l.breaker(),
            _ => None,
        }
    }

    /// Whether node `node` is held back: a run of a draft's connected part
    /// leaves out the blocks still lacking an edge and those joined to them.
    pub fn is_held(&self, node: usize) -> bool {
        self.held.as_ref().is_some_and(|held| held.get(node).copied().unwrap_or(false))
    }

    /// What each drop and state change found at its node, and who refuses
    /// each node's offers now (`crate::why`).
    pub fn whys(&self) -> &crate::why::Whys {
        &self.core.whys
    }

    /// Keeps the record of every drop and state change from now on (for
    /// tests that check them all).
    pub fn record_whys(&mut self) {
        self.core.whys.keep_all();
    }

    /// The messages node `node` holds now, where they can be listed (a
    /// queue's, a link's, a consumer's workers'; none elsewhere).
    pub fn held_messages(&self, node: usize) -> Vec<Message> {
        match self.nodes.get(node) {
            Some(Node::Queue(q)) => q.messages().copied().collect(),
            Some(Node::Link(l)) => l.messages().copied().collect(),
            Some(Node::Consumer(c)) => c.messages().copied().collect(),
            Some(Node::Dispatcher { pool, .. }) => pool.messages().copied().collect(),
            _ => Vec::new(),
        }
    }

    /// How many of the messages `node` holds came from each producer, most
    /// first (ties by node).
    pub fn held_by_source(&self, node: usize) -> Vec<(usize, u64)> {
        let mut counts: Vec<(usize, u64)> = Vec::new();
        for m in self.held_messages(node) {
            let source = m.source as usize;
            match counts.iter_mut().find(|(s, _)| *s == source) {
                Some((_, n)) => *n += 1,
                None => counts.push((source, 1)),
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts
    }

    /// Where the messages gate `gate` counts in flight are now, by node,
    /// most first (ties by node); messages not listed anywhere (acknowledged
    /// and not yet heard of) are left out.
    pub fn gated_where(&self, gate: usize) -> Vec<(usize, u64)> {
        let mut counts = Vec::new();
        for node in 0..self.nodes.len() {
            let n = self.held_messages(node).iter().filter(|m| m.gates.iter().any(|g| g == gate)).count() as u64;
            if n > 0 {
                counts.push((node, n));
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts
    }

    /// Whether node `node` is a queue asking its inputs to pause now.
    pub fn pauses(&self, node: usize) -> bool {
        matches!(self.nodes.get(node), Some(Node::Queue(q)) if q.asks_pause())
    }

    pub fn transitions(&self) -> &TransitionLog {
        &self.core.log
    }

    pub fn node_id(&self, node: usize) -> &str {
        &self.scenario.nodes[node].id
    }

    /// The name of a scenario-wide class index.
    pub fn class_name(&self, class: u16) -> &str {
        self.class_names.get(class as usize).map_or("?", String::as_str)
    }

    /// Starts counting the messages of each class taken across each edge
    /// (from now on; the page draws them as moving dots). Off by default:
    /// a run that does not draw pays nothing for it.
    pub fn count_flows(&mut self) {
        if self.flows.is_none() {
            let edges: Vec<(usize, usize)> =
                self.scenario.edge_ends().into_iter().map(|(from, to)| (from.unwrap_or(usize::MAX), to.unwrap_or(usize::MAX))).collect();
            self.flows = Some(Box::new(Flows::new(self.nodes.len(), &edges, self.class_names.len())));
        }
    }

    /// Whether node `node` is a queue that has disconnected its client (at
    /// its hard limit, until the client reconnects).
    pub fn disconnected(&self, node: usize) -> bool {
        matches!(self.nodes.get(node), Some(Node::Queue(q)) if q.is_disconnected())
    }

    /// The flow counters, if `count_flows` was called.
    pub fn flows(&self) -> Option<&Flows> {
        self.flows.as_deref()
    }

    /// The time of the next event, if any (none once the watchdog has
    /// stopped the simulation: nothing more will happen).
    pub fn next_event_time(&self) -> Option<SimTime> {
        if self.stop.is_some() {
            return None;
        }
        self.core.scheduler.peek_time()
    }

    /// Why the simulation stopped, if the watchdog stopped it: it then
    /// handles no more events.
    pub fn stopped(&self) -> Option<&Stop> {
        self.stop.as_deref()
    }

    /// Sets the watchdog's bound on messages held at once (at least 1;
    /// `MAX_MESSAGES_HELD` by default).
    pub fn set_held_bound(&mut self, messages: u64) {
        self.held_bound = messages.max(1);
    }

    /// Sets the watchdog's bound: how many events in a row may happen at
    /// one instant (at least 1; `MAX_EVENTS_AT_ONE_INSTANT` by default).
    pub fn set_stall_bound(&mut self, events: u64) {
        self.stall_bound = events.max(1);
        // Often enough to begin naming nodes before the bound.
        self.watch_every = 1 << (STALL_SAMPLE.min(self.stall_bound / 2).max(1)).ilog2();
        self.watch_mask = self.watch_every - 1;
        self.watched_at = None;
    }
}
