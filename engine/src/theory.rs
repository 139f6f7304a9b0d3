//! Theory: what queueing theory predicts for a queue it has a closed form
//! for, set beside what the simulation measured.
//!
//! Guarantees:
//! - `Model::of` recognises a queue as a textbook system only when the
//!   formulas' assumptions hold in the scenario: Poisson arrivals from
//!   producers feeding only this queue (several merge into one Poisson
//!   stream), no reaction of the queue that changes the arrivals (pausing
//!   producers that obey, disconnecting; thinning never acts, as a queue
//!   feeding a consumer has no socket whose write would block), no
//!   time-to-live, a bound (if any) in messages that drops the newest, and
//!   one consumer fed by this queue alone, with no output, schedule,
//!   lifecycle or time-out. Otherwise it says which assumption fails, in
//!   words a learner can act on.
//! - The systems known: M/M/c and M/M/c/K (exponential service, any number
//!   of workers, K = workers + the queue's capacity) from the birth–death
//!   stationary distribution, and M/G/1 (one worker, any service time,
//!   unbounded queue) from the Pollaczek–Khinchine formula; M/D/1 is its
//!   fixed-service case.
//! - Every prediction is computed in logarithms, so it stays finite for any
//!   valid scenario (a million workers, a capacity of 2^40, a load above 1
//!   with a bound). An unbounded queue loaded at ρ ≥ 1 has no steady state,
//!   and the prediction says so instead of giving numbers.
//! - The measured figures are the queue's since time zero: the time-average
//!   number waiting, the mean wait of the messages that left it, and the
//!   fraction of arrivals dropped; they approach the prediction as the run
//!   grows long (the tests in `tests/queueing_theory.rs` hold the engine to
//!   that within three standard errors).
//! - A queue's theory (`Model::of`, `offered_load`) reads the parameters of
//!   the queue, of the blocks that feed it and of the blocks it feeds, and
//!   no other block's: after an edit of some blocks' parameters only the
//!   queues `reading` names need working out again (held to working out
//!   every queue again by a test).

use crate::blocks::{Arrivals, Backpressure, OnFull, Reaction};
use crate::distribution::Distribution;
use crate::scenario::{BlockSpec, Kind, Scenario};
use crate::state::SendState;
use crate::measure::Mark;
use crate::simulation::Simulation;

/// The queues whose theory may read the parameters of the nodes
/// `changed` (by index): those among them, and those they feed or are fed
/// by. In node order.
pub fn reading(scenario: &Scenario, changed: &[usize]) -> Vec<usize> {
    let is_queue = |i: usize| scenario.nodes.get(i).is_some_and(|n| n.block.kind() == Kind::Queue);
    let changed: std::collections::BTreeSet<usize> = changed.iter().copied().collect();
    let mut queues: std::collections::BTreeSet<usize> = changed.iter().copied().filter(|&i| is_queue(i)).collect();
    for (from, to) in scenario.edge_ends() {
        let (Some(from), Some(to)) = (from, to) else { continue };
        if changed.contains(&from) && is_queue(to) {
            queues.insert(to);
        }
        if changed.contains(&to) && is_queue(from) {
            queues.insert(from);
        }
    }
    queues.into_iter().collect()
}

/// A queue and its server, as queueing theory sees them.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// λ: messages per second, all inputs together.
    pub arrival_rate: f64,
    /// The time one worker takes per message (seconds).
    pub service: Distribution,
    /// c.
    pub servers: u32,
    /// Places to wait, when bounded: K = servers + room.
    pub room: Option<u64>,
}

/// The long-run figures a closed form gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steady {
    /// Lq: the time-average number waiting (not in service).
    pub mean_waiting: f64,
    /// Wq: the mean wait before service of a message that is served.
    pub mean_wait_s: f64,
    /// The fraction of arrivals that find no room.
    pub drop_probability: f64,
}

/// What theory says about a model.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// Kendall's notation: "M/M/1", "M/M/2/11", "M/D/1", "M/G/1".
    pub name: String,
    /// ρ = λ·E[S] / c: the offered load per worker.
    pub offered_load: f64,
    /// None when the queue is unbounded and ρ ≥ 1: it grows without end.
    pub steady: Option<Steady>,
    /// The wait 99% of the served messages do not exceed, where a closed
    /// form gives it (`Model::wait_quantile_s`: M/M/c with no bound).
    pub p99_wait_s: Option<f64>,
}

/// The same three figures, measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub mean_waiting: f64,
    /// None until a message has left.
    pub mean_wait_s: Option<f64>,
    /// None until a message has arrived.
    pub drop_probability: Option<f64>,
    /// The wait 99% of the messages that left did not exceed (the node's
    /// histogram); none until one has left.
    pub p99_wait_s: Option<f64>,
    /// What the figures are an average of: the seconds measured, and the
    /// messages that left the queue meanwhile.
    pub span_s: f64,
    pub left: u64,
}

impl Measured {
    /// Departures below which an average of a queue's figures still swings
    /// widely from one stretch of the run to the next: the mean of a
    /// queue's length has a long memory, and a few hundred messages can be
    /// off by half (at ρ = 0.8 the time average of M/M/1's length takes
    /// some ten thousand departures to come within 10%).
    pub const FEW: u64 = 1000;

    /// Whether too few messages left for the averages to mean much yet.
    pub fn is_short(&self) -> bool {
        self.left < Self::FEW
    }
}

impl Measured {
    /// Node `node`'s figures since time zero.
    pub fn of(sim: &Simulation, node: usize) -> Measured {
        let stats = sim.stats(node);
        let ratio = |a: f64, b: u64| (b > 0).then(|| a / b as f64);
        Measured {
            mean_waiting: stats.depth_messages.mean(sim.now()),
            mean_wait_s: ratio(stats.residence_sum_s(), stats.departed),
            drop_probability: ratio(stats.dropped_total() as f64, stats.arrived),
            p99_wait_s: stats.durations.as_deref().and_then(|d| d.seconds_at_quantile_since(0.99, None)),
            span_s: sim.now().as_secs_f64(),
            left: stats.departed,
        }
    }

    /// Node `node`'s figures since `mark` was taken (the whole run for a
    /// mark at time zero): what a live change has not mixed with the
    /// settings before it.
    pub fn since(sim: &Simulation, node: usize, mark: &Mark) -> Measured {
        if mark.t_s <= 0.0 {
            return Measured::of(sim, node);
        }
        let change = Mark::of(sim, node).since(mark);
        let ratio = |a: f64, b: u64| (b > 0).then(|| a / b as f64);
        Measured {
            mean_waiting: if change.span_s > 0.0 { change.depth_integral_s / change.span_s } else { sim.stats(node).depth_messages.value() as f64 },
            mean_wait_s: ratio(change.residence_s, change.departed),
            drop_probability: ratio(change.lost() as f64, change.arrived),
            p99_wait_s: mark.quantile_since(sim, node, 0.99),
            span_s: change.span_s,
            left: change.departed,
        }
    }
}

/// The load offered to queue `node`, ρ = λ · E[S] / c: what its producers
/// send a second (their long-run rates) times what its server takes for
/// one, over its workers. Known whenever every input is a producer with a
/// rate of its own and the queue feeds one consumer or dispatcher, whatever
/// the queue's limits and reactions: above 1 the queue grows until a limit
/// stops it, whatever state it shows.
pub fn offered_load(scenario: &Scenario, node: usize) -> Option<f64> {
    let spec = scenario.nodes.get(node)?;
    if !matches!(spec.block, BlockSpec::Queue(_)) {
        return None;
    }
    let mut lambda = 0.0;
    let mut outputs = Vec::new();
    let mut fed = false;
    for e in &scenario.edges {
        if e.to == spec.id {
            let BlockSpec::Producer(p) = &scenario.nodes[scenario.node_index(&e.from)?].block else { return None };
            lambda += p.arrivals.rate_per_s()?;
            fed = true;
        } else if e.from == spec.id {
            outputs.push(scenario.node_index(&e.to)?);
        }
    }
    let [server] = outputs[..] else { return None };
    let (mean_s, workers) = match &scenario.nodes[server].block {
        BlockSpec::Consumer(c) => (c.service_time.mean(), c.workers),
        BlockSpec::Dispatcher(d) => (d.service_time.mean(), d.workers),
        _ => return None,
    };
    (fed && workers > 0).then(|| load(lambda, mean_s, workers)).filter(|rho| rho.is_finite())
}

/// ρ = λ·E[S]/c: the work arriving per second per worker, the one place
/// the offered load is worked out (for a block's label and for a model).
fn load(arrival_rate: f64, mean_service_s: f64, workers: u32) -> f64 {
    arrival_rate * mean_service_s / workers.max(1) as f64
}

/// Why a queue is not a textbook system: the assumption of the formulas
/// that fails, in words the Theory panel shows.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NoClosedForm {
    #[error("no such node")]
    NoNode,
    #[error("only a queue has a closed form here")]
    NotAQueue,
    #[error("nothing feeds it yet")]
    Unfed,
    #[error("it is fed by {kind} `{id}`, not straight by a producer: its arrivals are not a Poisson stream")]
    FedBy { kind: Kind, id: String },
    #[error("producer `{0}` does not make Poisson arrivals")]
    NotPoisson(String),
    #[error("it {} in {}, which the formulas do not know", reacts(*.reaction), .state.as_str())]
    Reacts { reaction: Reaction, state: SendState },
    #[error("its messages expire (time-to-live), which the formulas do not know")]
    Expires,
    #[error("its capacity counts bytes; the formulas count messages")]
    CountsBytes,
    #[error("when full it does not drop the newest arrival, as the formulas' blocked arrivals are")]
    KeepsTheNewest,
    #[error("it has no output yet")]
    NoOutput,
    #[error("it feeds {kind} `{id}`, not straight a consumer")]
    Feeds { kind: Kind, id: String },
    #[error("its consumer `{id}` {why}, which the formulas do not know")]
    UnusualConsumer { id: String, why: &'static str },
    #[error("no closed form for {} with {service} service times (only exponential ones)", shape(*.servers))]
    NotExponential { servers: u32, service: &'static str },
}

/// What a reaction the formulas do not know does, in words.
fn reacts(reaction: Reaction) -> &'static str {
    match reaction {
        Reaction::Disconnect => "disconnects",
        _ => "pauses its producers",
    }
}

/// The system without an exponential closed form: several workers, or one
/// in front of a bounded queue.
fn shape(servers: u32) -> String {
    if servers > 1 {
        format!("{servers} workers")
    } else {
        "a bounded queue".to_string()
    }
}

impl Model {
    /// Queue `node` of `scenario` as a textbook system, or why it is not
    /// one.
    pub fn of(scenario: &Scenario, node: usize) -> Result<Model, NoClosedForm> {
        let spec = scenario.nodes.get(node).ok_or(NoClosedForm::NoNode)?;
        let BlockSpec::Queue(queue) = &spec.block else {
            return Err(NoClosedForm::NotAQueue);
        };
        let id = |i: usize| scenario.nodes[i].id.as_str();
        let inputs: Vec<usize> = scenario
            .edges
            .iter()
            .filter(|e| e.to == spec.id)
            .filter_map(|e| scenario.node_index(&e.from))
            .collect();
        // Its own edges only: a scenario-wide table per queue would make
        // the theories of many queues quadratic.
        let outputs: Vec<usize> = scenario.edges.iter().filter(|e| e.from == spec.id).filter_map(|e| scenario.node_index(&e.to)).collect();
        if inputs.is_empty() {
            return Err(NoClosedForm::Unfed);
        }
        let mut arrival_rate = 0.0;
        let mut producers = Vec::new();
        for &i in &inputs {
            let BlockSpec::Producer(p) = &scenario.nodes[i].block else {
                return Err(NoClosedForm::FedBy { kind: scenario.nodes[i].block.kind(), id: id(i).to_string() });
            };
            let Arrivals::Poisson { rate_per_s } = p.arrivals else {
                return Err(NoClosedForm::NotPoisson(id(i).to_string()));
            };
            arrival_rate += rate_per_s;
            producers.push(p);
        }

        // The reactions in force in each state the queue can reach. It
        // feeds a consumer straight (checked below), never a link: no write
        // would block, so it never turns Overloaded and never thins (thinning
        // acts only while a write would block). A reaction is in force in
        // its state and every more severe one, the limits only when set.
        let obey_pause = producers.iter().any(|p| p.backpressure == Backpressure::Pause);
        let states = [(SendState::SoftLimit, queue.reactions.soft_limit), (SendState::HardLimit, queue.reactions.hard_limit)];
        let worst = if !queue.hard_limit.is_unlimited() {
            2
        } else if !queue.soft_limit.is_unlimited() {
            1
        } else {
            0
        };
        for &(state, reaction) in states[..worst].iter().rev() {
            match reaction {
                Reaction::PauseInput if obey_pause => {}
                Reaction::Disconnect => {}
                _ => continue,
            };
            return Err(NoClosedForm::Reacts { reaction, state });
        }
        if queue.ttl_s.is_some() {
            return Err(NoClosedForm::Expires);
        }
        if queue.capacity.bytes > 0 {
            return Err(NoClosedForm::CountsBytes);
        }
        let room = (queue.capacity.messages > 0).then_some(queue.capacity.messages);
        if room.is_some() && queue.on_full != OnFull::DropNewest {
            return Err(NoClosedForm::KeepsTheNewest);
        }

        let [server] = outputs[..] else {
            return Err(NoClosedForm::NoOutput);
        };
        let BlockSpec::Consumer(consumer) = &scenario.nodes[server].block else {
            return Err(NoClosedForm::Feeds { kind: scenario.nodes[server].block.kind(), id: id(server).to_string() });
        };
        let serves_others = scenario.edges.iter().any(|e| e.to == id(server) && e.from != spec.id);
        let unusual = if serves_others {
            Some("also serves other inputs")
        } else if scenario.edges.iter().any(|e| e.from == id(server)) {
            Some("passes its messages on, so the next block can hold it up")
        } else if !consumer.slowdowns.is_empty() || !consumer.outages.is_empty() {
            Some("has slow-downs or outages")
        } else if consumer.lifecycle.is_some() {
            Some("has a lifecycle (starting up, shutting down)")
        } else if consumer.timeout_s.is_some() {
            Some("has an execution time-out")
        } else {
            None
        };
        if let Some(why) = unusual {
            return Err(NoClosedForm::UnusualConsumer { id: id(server).to_string(), why });
        }
        let service = consumer.service_time.clone();
        let servers = consumer.workers;
        let exponential = matches!(service, Distribution::Exponential { .. });
        if !exponential && (servers > 1 || room.is_some()) {
            return Err(NoClosedForm::NotExponential { servers, service: service.kind() });
        }
        Ok(Model { arrival_rate, service, servers, room })
    }

    /// What theory predicts for this model.
    pub fn predict(&self) -> Prediction {
        let (lambda, c) = (self.arrival_rate, self.servers.max(1));
        let mean_s = self.service.mean();
        let offered_load = load(lambda, mean_s, c);
        let exponential = matches!(self.service, Distribution::Exponential { .. });
        let name = match (&self.service, self.room) {
            (Distribution::Exponential { .. }, None) => format!("M/M/{c}"),
            (Distribution::Exponential { .. }, Some(room)) => format!("M/M/{c}/{}", room.saturating_add(c.into())),
            (Distribution::Fixed { .. }, _) => "M/D/1".to_string(),
            _ => "M/G/1".to_string(),
        };
        let idle = Steady { mean_waiting: 0.0, mean_wait_s: 0.0, drop_probability: 0.0 };
        let steady = if lambda <= 0.0 || mean_s <= 0.0 {
            Some(idle)
        } else if self.room.is_none() && offered_load >= 1.0 {
            None
        } else if exponential {
            Some(birth_death(lambda, 1.0 / mean_s, c, self.room))
        } else {
            // Pollaczek–Khinchine: Wq = λ·E[S²] / (2(1 − ρ)).
            let wait = lambda * self.service.second_moment() / (2.0 * (1.0 - offered_load));
            Some(Steady { mean_waiting: lambda * wait, mean_wait_s: wait, drop_probability: 0.0 })
        };
        let p99_wait_s = steady.and_then(|steady| self.quantile_of(&steady, 0.99));
        Prediction { name, offered_load, steady, p99_wait_s }
    }

    /// The wait before service that a fraction `p` (0 to 1) of the served
    /// messages do not exceed, where a closed form gives it: M/M/c with no
    /// bound, whose wait is 0 with probability 1 − C and beyond that
    /// exponential at rate cμ − λ (C: Erlang's C, the chance to wait), so
    /// P(Wq > t) = C·e^(−(cμ − λ)t). None for other models and when the
    /// queue has no steady state.
    pub fn wait_quantile_s(&self, p: f64) -> Option<f64> {
        self.quantile_of(&self.predict().steady?, p)
    }

    /// `wait_quantile_s` from the model's steady figures.
    fn quantile_of(&self, steady: &Steady, p: f64) -> Option<f64> {
        let (lambda, c) = (self.arrival_rate, self.servers.max(1));
        let Distribution::Exponential { .. } = self.service else { return None };
        if self.room.is_some() || !(0.0..1.0).contains(&p) {
            return None;
        }
        let drain = f64::from(c) / self.service.mean() - lambda;
        if lambda <= 0.0 || drain <= 0.0 {
            return Some(0.0);
        }
        // Wq = C / (cμ − λ), so C = Wq·(cμ − λ).
        let waits = steady.mean_wait_s * drain;
        Some(((waits / (1.0 - p)).ln() / drain).max(0.0))
    }
}

/// ln(e^x + e^y), without overflow.
fn ln_add(x: f64, y: f64) -> f64 {
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

/// ln of Σ ρ^j and of Σ j·ρ^j over j = 0..=m (m = None: to infinity,
/// which needs ρ < 1).
fn ln_geometric(rho: f64, m: Option<u64>) -> (f64, f64) {
    let Some(m) = m else {
        return (-(1.0 - rho).ln(), rho.ln() - 2.0 * (1.0 - rho).ln());
    };
    let mf = m as f64;
    if (rho - 1.0).abs() < 1e-12 {
        return ((mf + 1.0).ln(), (mf * (mf + 1.0) / 2.0).ln());
    }
    // Σ x^i and Σ i·x^i for x < 1, over i = 0..=m.
    let sums = |x: f64| {
        let top = x.powf(mf);
        let ones = (1.0 - top * x) / (1.0 - x);
        let weighted = x * (1.0 - (mf + 1.0) * top + mf * top * x) / (1.0 - x).powi(2);
        (ones, weighted)
    };
    if rho < 1.0 {
        let (ones, weighted) = sums(rho);
        (ones.ln(), weighted.max(0.0).ln())
    } else {
        // Counted down from the top: ρ^j = ρ^m·σ^(m−j) with σ = 1/ρ < 1.
        let (ones, weighted) = sums(1.0 / rho);
        let scale = mf * rho.ln();
        (scale + ones.ln(), scale + (mf * ones - weighted).max(0.0).ln())
    }
}

/// M/M/c/K (or M/M/c with `room` None) for arrivals at `lambda` and
/// service at `mu` per worker: p(n) ∝ aⁿ/n! below c, (a^c/c!)·ρ^(n−c) from c,
/// with a = λ/μ and ρ = a/c.
fn birth_death(lambda: f64, mu: f64, c: u32, room: Option<u64>) -> Steady {
    let a = lambda / mu;
    let rho = a / c as f64;
    let ln_a = a.ln();
    // ln Σ_{n<c} aⁿ/n!, and ln(a^c/c!).
    let (mut ln_below, mut ln_term) = (f64::NEG_INFINITY, 0.0);
    for n in 0..c {
        ln_below = ln_add(ln_below, ln_term);
        ln_term += ln_a - f64::from(n + 1).ln();
    }
    let ln_at_c = ln_term;
    let (ln_tail, ln_weighted) = ln_geometric(rho, room);
    let ln_total = ln_add(ln_below, ln_at_c + ln_tail);
    let drop_probability = room.map_or(0.0, |m| (ln_at_c + m as f64 * rho.ln() - ln_total).exp());
    let mean_waiting = (ln_at_c + ln_weighted - ln_total).exp();
    let admitted = lambda * (1.0 - drop_probability);
    let mean_wait_s = if admitted > 0.0 { mean_waiting / admitted } else { 0.0 };
    Steady { mean_waiting, mean_wait_s, drop_probability }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exponential(mean: f64) -> Distribution {
        Distribution::Exponential { mean }
    }

    fn model(lambda: f64, service: Distribution, servers: u32, room: Option<u64>) -> Prediction {
        Model { arrival_rate: lambda, service, servers, room }.predict()
    }

    fn close(a: f64, b: f64, what: &str) {
        assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-12), "{what}: {a} against {b}");
    }

    #[test]
    fn mm1_gives_rho_squared_over_one_minus_rho() {
        let p = model(8.0, exponential(0.1), 1, None);
        assert_eq!(p.name, "M/M/1");
        close(p.offered_load, 0.8, "ρ");
        let s = p.steady.unwrap();
        close(s.mean_waiting, 3.2, "Lq");
        close(s.mean_wait_s, 0.4, "Wq");
        assert_eq!(s.drop_probability, 0.0);
        // P(Wq > t) = ρ·e^(−(μ − λ)t) = 0.01 at t = ln(80)/2.
        close(p.p99_wait_s.unwrap(), 80f64.ln() / 2.0, "the wait 99% do not exceed");
        // No closed form for a bounded queue's tail, nor a deterministic one's.
        assert_eq!(model(8.0, exponential(0.1), 1, Some(9)).p99_wait_s, None);
        assert_eq!(model(8.0, Distribution::Fixed { value: 0.1 }, 1, None).p99_wait_s, None);
    }

    #[test]
    fn mm1k_blocking_is_the_truncated_geometric() {
        // Nine places and one server: K = 10.
        let rho: f64 = 0.8;
        let p = model(8.0, exponential(0.1), 1, Some(9));
        assert_eq!(p.name, "M/M/1/10");
        let s = p.steady.unwrap();
        close(s.drop_probability, (1.0 - rho) * rho.powi(10) / (1.0 - rho.powi(11)), "P(K)");
        // Lq by summing the distribution directly.
        let z: f64 = (0..=10).map(|n| rho.powi(n)).sum();
        let lq: f64 = (2..=10).map(|n| (n - 1) as f64 * rho.powi(n)).sum::<f64>() / z;
        close(s.mean_waiting, lq, "Lq");
        close(s.mean_wait_s, lq / (8.0 * (1.0 - s.drop_probability)), "Wq by Little");
    }

    #[test]
    fn mmc_waiting_is_erlang_c() {
        // M/M/2 at λ = 16, μ = 10: a = 1.6, ρ = 0.8; Erlang C = a^c/c!/(1−ρ)
        // over Σ aⁿ/n! + that, and Lq = C·ρ/(1−ρ).
        let (a, rho) = (1.6_f64, 0.8);
        let top = a * a / 2.0 / (1.0 - rho);
        let erlang_c = top / (1.0 + a + top);
        let p = model(16.0, exponential(0.1), 2, None);
        assert_eq!(p.name, "M/M/2");
        let s = p.steady.unwrap();
        close(s.mean_waiting, erlang_c * rho / (1.0 - rho), "Lq");
        assert!((s.mean_waiting - 2.844).abs() < 0.001, "{}", s.mean_waiting);
        close(s.mean_wait_s, s.mean_waiting / 16.0, "Wq");
    }

    #[test]
    fn the_wait_of_mmc_is_zero_or_exponential_beyond_erlang_c() {
        // M/M/2 at λ = 16, μ = 10: P(Wq > t) = C·e^(−(2μ − λ)t), C = 64/90.
        let erlang_c = 64.0 / 90.0;
        let mm2 = Model { arrival_rate: 16.0, service: exponential(0.1), servers: 2, room: None };
        for p in [0.5, 0.9, 0.99, 0.999] {
            close(mm2.wait_quantile_s(p).unwrap(), (erlang_c / (1.0 - p)).ln() / 4.0, "M/M/2 quantile");
        }
        // Below 1 − C nobody waits.
        assert_eq!(mm2.wait_quantile_s(0.2), Some(0.0));
        // M/M/1 at λ = 8, μ = 10: C = ρ = 0.8, rate 2.
        let mm1 = Model { arrival_rate: 8.0, service: exponential(0.1), servers: 1, room: None };
        close(mm1.wait_quantile_s(0.99).unwrap(), 80f64.ln() / 2.0, "M/M/1 p99");
        // No closed form: bounded, not exponential, overloaded.
        assert_eq!(Model { room: Some(9), ..mm1.clone() }.wait_quantile_s(0.99), None);
        assert_eq!(Model { service: Distribution::Fixed { value: 0.1 }, ..mm1.clone() }.wait_quantile_s(0.99), None);
        assert_eq!(Model { arrival_rate: 12.0, ..mm1 }.wait_quantile_s(0.99), None);
    }

    #[test]
    fn no_room_to_wait_is_erlang_b() {
        // M/M/2/2, a = 4: B = (a²/2) / (1 + a + a²/2) = 8/13; nobody waits.
        let s = model(4.0, exponential(1.0), 2, Some(0)).steady.unwrap();
        close(s.drop_probability, 8.0 / 13.0, "Erlang B");
        assert_eq!(s.mean_waiting, 0.0);
    }

    #[test]
    fn a_large_bound_tends_to_the_unbounded_queue() {
        let bounded = model(2.4, exponential(1.0), 3, Some(100_000)).steady.unwrap();
        let unbounded = model(2.4, exponential(1.0), 3, None).steady.unwrap();
        close(bounded.mean_waiting, unbounded.mean_waiting, "Lq");
        assert!(bounded.drop_probability < 1e-300);
    }

    #[test]
    fn overload_with_a_bound_keeps_the_queue_nearly_full() {
        // ρ = 2 and 1000 places: half the arrivals are turned away and the
        // queue holds nearly all it can; ρ = 1 exactly spreads it evenly.
        let s = model(2.0, exponential(1.0), 1, Some(1000)).steady.unwrap();
        assert!((s.drop_probability - 0.5).abs() < 1e-9, "{}", s.drop_probability);
        assert!(s.mean_waiting > 998.0 && s.mean_waiting < 1000.0, "{}", s.mean_waiting);
        let even = model(1.0, exponential(1.0), 1, Some(9)).steady.unwrap();
        close(even.drop_probability, 1.0 / 11.0, "P(K) at ρ = 1");
        // n = 0..=10 equally likely: Lq = Σ (n−1) for n ≥ 2, over 11.
        close(even.mean_waiting, 45.0 / 11.0, "Lq at ρ = 1");
    }

    #[test]
    fn extreme_but_valid_models_stay_finite() {
        for (lambda, servers, room) in [(99_000.0, 100_000, Some(1u64 << 40)), (3.0, 1, Some(1 << 40)), (1e6, 1, Some(1 << 40)), (0.5, 100_000, None)] {
            let p = model(lambda, exponential(1.0), servers, room);
            let s = p.steady.unwrap();
            for v in [s.mean_waiting, s.mean_wait_s, s.drop_probability] {
                assert!(v.is_finite() && v >= 0.0, "λ {lambda}, c {servers}, room {room:?}: {s:?}");
            }
            assert!(s.drop_probability <= 1.0);
        }
    }

    #[test]
    fn unbounded_overload_has_no_steady_state() {
        let p = model(10.0, exponential(0.1), 1, None);
        assert_eq!(p.steady, None);
        close(p.offered_load, 1.0, "ρ");
    }

    #[test]
    fn md1_and_mg1_follow_pollaczek_khinchine() {
        // M/D/1 with λ = 0.7, D = 1: Wq = ρ / (2μ(1 − ρ)).
        let p = model(0.7, Distribution::Fixed { value: 1.0 }, 1, None);
        assert_eq!(p.name, "M/D/1");
        close(p.steady.unwrap().mean_wait_s, 0.7 / 0.6, "Wq");
        // With exponential service it must agree with M/M/1.
        let mm1 = birth_death(0.7, 1.0, 1, None);
        let wait = 0.7 * exponential(1.0).second_moment() / (2.0 * 0.3);
        close(wait, mm1.mean_wait_s, "P–K against M/M/1");
        let uniform = model(0.5, Distribution::Uniform { min: 0.0, max: 2.0 }, 1, None);
        assert_eq!(uniform.name, "M/G/1");
        close(uniform.steady.unwrap().mean_waiting, 0.5 * 0.5 * (4.0 / 3.0) / (2.0 * 0.5), "Lq");
    }

    #[test]
    fn no_arrivals_means_no_waiting() {
        let s = model(0.0, exponential(1.0), 1, Some(5)).steady.unwrap();
        assert_eq!((s.mean_waiting, s.mean_wait_s, s.drop_probability), (0.0, 0.0, 0.0));
    }
}
