//! What validation can see along the paths messages take, before anything
//! runs.
//!
//! Guarantees:
//! - No message is ever counted against more gates than it can carry
//!   (`message::MAX_GATES`): a scenario in which one could be is refused,
//!   naming the path. (It would otherwise pass the extra gate uncounted,
//!   and that gate would let through more than its limit.)
//! - A closed loop that can never take time is refused: its clients think
//!   for 0 s and every request meets only blocks that take none, so the run
//!   would never get past one instant. What validation cannot see, the
//!   simulation's watchdog stops (`Simulation::stopped`).

use crate::blocks::dispatcher::Discipline;
use crate::blocks::{Arrivals, OnExcess};
use crate::message::MAX_GATES;
use crate::scenario::{BlockSpec, Scenario};
use crate::plumbing::validate::{push_error, FieldError};
use crate::time::SimDuration;

/// How many gates a message leaving a node of this kind is counted
/// against, given the most it arrived with.
fn gates_out(block: &BlockSpec, arrived_with: usize) -> usize {
    match block {
        // A closed-loop producer hears of its own requests.
        BlockSpec::Producer(p) => matches!(p.arrivals, Arrivals::ClosedLoop { .. }) as usize,
        // A consumer passes on a fresh message; a netsendq dispatcher counts
        // it against itself alone.
        BlockSpec::Consumer(_) => 0,
        BlockSpec::Dispatcher(d) => (d.discipline == Discipline::Netsendq) as usize,
        block if is_gate(block) => arrived_with + 1,
        _ => arrived_with,
    }
}

/// Blocks that count a message they let through until they hear back.
fn is_gate(block: &BlockSpec) -> bool {
    matches!(
        block,
        BlockSpec::Window(_) | BlockSpec::Credit(_) | BlockSpec::ConcurrencyLimiter(_) | BlockSpec::ResourcePool(_)
    ) || matches!(block, BlockSpec::ProductLimiter(p) if p.limits_in_progress())
}

/// Refuses a scenario in which some message would be counted against more
/// than `MAX_GATES` gates. `order` is a topological order of the nodes.
pub(crate) fn check_gates(scenario: &Scenario, outputs: &[Vec<usize>], order: &[usize], errors: &mut Vec<FieldError>) {
    let n = scenario.nodes.len();
    // The most gates a message arrives at each node with, and from where.
    let mut arriving = vec![0usize; n];
    let mut via = vec![usize::MAX; n];
    for &node in order {
        let block = &scenario.nodes[node].block;
        if is_gate(block) && arriving[node] >= MAX_GATES {
            let mut path = vec![node];
            while let Some(&from) = path.last().map(|&p| &via[p]).filter(|&&f| f != usize::MAX) {
                path.push(from);
            }
            path.reverse();
            let names: Vec<String> = path.iter().map(|&i| format!("\"{}\"", scenario.nodes[i].id)).collect();
            push_error(
                errors,
                format!("nodes[{node}]"),
                format!(
                    "a message along {} would be counted against {} gates (windows, credit links, limiters, pools, \
                     closed loops); at most {MAX_GATES} can count one message: put a consumer between some of them",
                    names.join(" → "),
                    arriving[node] + 1
                ),
            );
            // One error per scenario: the others follow from the same path.
            return;
        }
        let leaving = gates_out(block, arriving[node]);
        for &next in &outputs[node] {
            if via[next] == usize::MAX || leaving > arriving[next] {
                arriving[next] = leaving;
                via[next] = node;
            }
        }
    }
}

/// Whether a request passing `block` may spend time there (conservatively:
/// a block that may hold it, such as a rate limiter that delays, counts).
fn may_take_time(block: &BlockSpec) -> bool {
    let nonzero = |s: f64| SimDuration::from_secs_f64(s) > SimDuration::ZERO;
    match block {
        BlockSpec::Consumer(c) => !c.service_time.always_zero_time(),
        BlockSpec::Dispatcher(d) => !d.service_time.always_zero_time(),
        // One byte at the bandwidth takes at least half a nanosecond.
        BlockSpec::Link(l) => nonzero(l.latency_s) || (l.bandwidth_bytes_per_s > 0.0 && l.bandwidth_bytes_per_s <= 2e9),
        BlockSpec::RateLimiter(r) => r.on_excess == OnExcess::Delay,
        BlockSpec::Window(w) => nonzero(w.ack_latency_s),
        BlockSpec::Credit(c) => nonzero(c.grant_latency_s),
        BlockSpec::ResourcePool(p) => nonzero(p.create_s),
        // A delay is whole milliseconds; a message let through at once
        // takes none.
        BlockSpec::ProductLimiter(_) => false,
        BlockSpec::Producer(_) | BlockSpec::Queue(_) | BlockSpec::Router(_) | BlockSpec::ConcurrencyLimiter(_) => false,
    }
}

/// Refuses closed loops that can never take time.
pub(crate) fn check_zero_time_loops(scenario: &Scenario, outputs: &[Vec<usize>], errors: &mut Vec<FieldError>) {
    for (p, node) in scenario.nodes.iter().enumerate() {
        let BlockSpec::Producer(producer) = &node.block else { continue };
        let Arrivals::ClosedLoop { think, .. } = &producer.arrivals else { continue };
        if !think.always_zero_time() {
            continue;
        }
        // Everywhere a request can go until it is processed: a consumer or
        // dispatcher processes it, so the walk stops there.
        let mut seen = vec![false; scenario.nodes.len()];
        let mut stack = outputs[p].clone();
        let (mut takes_time, mut processed) = (false, false);
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let block = &scenario.nodes[i].block;
            if may_take_time(block) {
                takes_time = true;
                break;
            }
            if matches!(block, BlockSpec::Consumer(_) | BlockSpec::Dispatcher(_)) {
                processed = true;
            } else {
                stack.extend(outputs[i].iter().copied());
            }
        }
        // Requests that reach no consumer never come back (a draft still
        // being wired): no loop to refuse.
        if processed && !takes_time {
            push_error(
                errors,
                format!("nodes[{p}].arrivals.think"),
                "its clients think for 0 s and their requests meet nothing that takes time (every consumer they \
                 reach serves in 0 s), so the run would never get past its first instant: give the think time or a \
                 service time a value above 0",
            );
        }
    }
}
