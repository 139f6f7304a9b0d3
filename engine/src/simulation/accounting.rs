//! What a simulation holds and has done: messages in the system, the
//! totals that conservation checks, the invariants, and the reports.

use super::*;

impl Simulation {
    /// Messages inside the system now, counted where they are.
    pub fn in_system(&self) -> u64 {
        self.nodes.iter().map(held_by).sum()
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals { produced: 0, resent: 0, delivered: 0, dropped: 0, in_system: self.in_system() };
        for (i, (node, stats)) in self.nodes.iter().zip(&self.stats).enumerate() {
            match node {
                Node::Producer(_) => {
                    t.produced += stats.arrived;
                    t.resent += stats.client.as_ref().map_or(0, |c| c.resent);
                }
                // A window's receipts are messages too, made by it.
                Node::Window(w) => t.produced += w.receipts_entered(),
                Node::Consumer(_) | Node::Dispatcher { .. } if self.outputs[i].is_empty() => t.delivered += stats.departed,
                _ => {}
            }
            t.dropped += stats.dropped_total();
        }
        t
    }

    /// Checks produced + resent = delivered + dropped + in system.
    pub fn check_conservation(&self) -> Result<(), String> {
        let t = self.totals();
        if t.produced + t.resent == t.delivered + t.dropped + t.in_system {
            Ok(())
        } else {
            Err(format!(
                "at {}: produced {} + resent {} != delivered {} + dropped {} + in system {}",
                self.core.now, t.produced, t.resent, t.delivered, t.dropped, t.in_system
            ))
        }
    }

    /// Checks every invariant that must hold between events: conservation,
    /// and liveness (a queue that asks its producers to pause holds messages
    /// whose sending will lift the pause, or is waiting for a reconnect).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.check_conservation()?;
        for (i, node) in self.nodes.iter().enumerate() {
            if let Node::Queue(q) = node {
                if q.asks_pause() && q.is_empty() && !q.is_disconnected() {
                    return Err(format!(
                        "at {}: queue \"{}\" is at {} with nothing queued, so its producers would wait forever",
                        self.core.now,
                        self.node_id(i),
                        q.state().as_str()
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn node_report(&self, i: usize) -> NodeReport {
        let stats = &self.stats[i];
        let mut r = NodeReport {
            kind: self.scenario.nodes[i].block.kind(),
            arrived: stats.arrived,
            departed: stats.departed,
            dropped: DropReason::ALL
                .iter()
                .filter(|reason| stats.dropped[**reason as usize] > 0)
                .map(|reason| (reason.as_str(), stats.dropped[*reason as usize]))
                .collect(),
            dropped_total: stats.dropped_total(),
            depth_messages: stats.depth_messages.value(),
            depth_bytes: stats.depth_bytes,
            mean_depth_messages: stats.depth_messages.mean(self.core.now),
            in_service: stats.in_service,
            state: None,
            paused: None,
            disconnects: None,
            retransmitted: None,
            mean_sojourn_s: None,
            in_flight: None,
            credits: None,
            tokens: None,
            link_up: None,
            limit: None,
            client: stats.client.as_deref().map(|c| ClientReport {
                answered: c.answered,
                failed: c.failed,
                timed_out: c.timed_out,
                late: c.late,
                resent: c.resent,
                wasted: c.wasted,
                wasted_s: c.wasted_ns as f64 / 1e9,
            }),
            latency_s: stats.durations.as_ref().filter(|d| d.count() > 0).map(|d| d.percentiles()),
        };
        match &self.nodes[i] {
            Node::Producer(p) => r.paused = Some(p.is_paused() || p.is_blocked()),
            Node::Queue(q) => {
                r.state = Some(q.state().into());
                r.disconnects = Some(q.disconnects());
            }
            Node::Consumer(c) => {
                if self.outputs[i].is_empty() {
                    r.mean_sojourn_s = (stats.departed > 0).then(|| stats.sojourn_sum_s() / stats.departed as f64);
                }
                if c.spec().lifecycle.is_some() {
                    r.state = Some(c.phase().into());
                }
            }
            Node::Window(w) => {
                r.in_flight = Some(w.in_flight().messages);
                if w.spec().receipts.is_some() {
                    r.retransmitted = Some(w.retransmitted().0);
                }
            }
            Node::ConcurrencyLimiter(l) => r.in_flight = Some(l.in_flight()),
            Node::ProductLimiter(l) => {
                r.limit = l.adaptive_limit(self.core.now);
                r.state = l.breaker().map(|(state, _, _)| state);
            }
            Node::ResourcePool(p) => r.in_flight = Some(p.counts().1 as u64),
            Node::Credit(c) => r.credits = Some(c.credits()),
            Node::RateLimiter(l) => r.tokens = l.tokens(),
            Node::Link(l) => {
                r.link_up = Some(l.is_up());
                r.retransmitted = (l.retransmitted() > 0).then(|| l.retransmitted());
            }
            Node::Dispatcher { pool_stats: ps, .. } if self.outputs[i].is_empty() => {
                r.mean_sojourn_s = (ps.departed > 0).then(|| ps.sojourn_sum_s() / ps.departed as f64);
                r.latency_s = ps.durations.as_ref().filter(|d| d.count() > 0).map(|d| d.percentiles());
            }
            _ => {}
        }
        r
    }

    pub fn report(&self) -> Report {
        Report {
            scenario: self.scenario.name.clone(),
            seed: self.seed,
            sim_time_s: self.core.now.as_secs_f64(),
            events: self.events,
            totals: self.totals(),
            transitions: self.core.log.total(),
            nodes: (0..self.nodes.len()).map(|i| (self.node_id(i).to_string(), self.node_report(i))).collect(),
            at: None,
        }
    }
}

/// The messages `node` holds now.
pub(super) fn held_by(node: &Node) -> u64 {
    match node {
        Node::Producer(p) => p.holds(),
        Node::Queue(q) => q.len() as u64,
        Node::Consumer(c) => c.busy() as u64,
        Node::Link(l) => l.holds(),
        Node::ProductLimiter(l) => l.holds(),
        Node::Dispatcher { demands: d, pool, .. } => d.waiting() + pool.busy() as u64,
        _ => 0,
    }
}
