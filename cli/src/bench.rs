//! `sluice bench`: how fast the engine simulates, on built-in models.
//!
//! Speed is reported as events per second and simulated arrivals per
//! second of wall-clock time. For M/M/1/K the same run also measures a
//! hand-specialised loop (two clocks, no event heap, no metrics) drawing
//! from the same random generator, and reports the engine's ratio to it:
//! comparing within one run cancels out the speed of the machine.
//!
//! Each run is timed twice: by the processor time of the thread running it
//! (the figures and the ratio), and by the wall clock (shown beside them).
//! On a machine shared with other work, the wall clock also counts the
//! moments the processor was running something else, and how many there
//! were changes from run to run; the thread's processor time does not
//! count them.
//!
//! The engine and the hand loop take turns, `REPEATS` times each, and each
//! keeps its fastest run. Other work only ever slows a run down (it also
//! shares the caches), so the fastest is the one least disturbed; taking
//! turns exposes both to the same spells of load. Many short turns rather
//! than a few long ones: a short turn is more likely to fall in a quiet
//! spell, so the fastest of them moves less from one run to the next. The
//! ratio of each pair of turns is printed too, to show how much the load
//! moved.

use std::time::{Duration, Instant};

use cpu_time::ThreadTime;

use serde_json::json;
use sluice_engine::SimRng;
use sluice_engine::{Scenario, SimTime, Simulation};

/// How many turns the engine and the hand loop each take on M/M/1/K.
pub const REPEATS: usize = 15;

/// Simulated seconds of one engine turn on M/M/1/K at scale 1 (about
/// 600,000 arrivals; a tenth of a second of a fast machine's time).
const TURN_SIM_S: f64 = 700_000.0;

pub struct Measure {
    pub name: String,
    pub events: u64,
    pub arrivals: u64,
    /// Processor time of the thread, or the wall clock where the system
    /// cannot tell the thread's time.
    pub seconds: f64,
    pub wall_seconds: f64,
}

/// Starts both clocks.
pub(crate) struct Stopwatch {
    wall: Instant,
    thread: Option<ThreadTime>,
}

impl Stopwatch {
    pub(crate) fn start() -> Self {
        Stopwatch { thread: ThreadTime::try_now().ok(), wall: Instant::now() }
    }

    /// (processor seconds, wall seconds) since the start.
    pub(crate) fn read(&self) -> (f64, f64) {
        let wall = self.wall.elapsed();
        let thread = self.thread.as_ref().and_then(|t| t.try_elapsed().ok());
        (thread.unwrap_or(wall).max(Duration::from_nanos(1)).as_secs_f64(), wall.as_secs_f64())
    }
}

impl Measure {
    fn events_per_s(&self) -> f64 {
        self.events as f64 / self.seconds
    }
    fn arrivals_per_s(&self) -> f64 {
        self.arrivals as f64 / self.seconds
    }
    fn arrivals_per_wall_s(&self) -> f64 {
        self.arrivals as f64 / self.wall_seconds.max(1e-9)
    }
}

/// M/M/1/K with λ = 0.9, μ = 1, K = 10 (the page's WebAssembly benchmark
/// runs the same model).
pub fn mm1k_scenario() -> Scenario {
    sluice_engine::bench_model::mm1k()
}

/// A 10-stage pipeline: each stage a window (8 in flight, opening on
/// processing) and a credit link (8 credits, grants in batches of 4) in
/// front of a queue and a server of mean 1 ms; λ = 800 per second.
pub fn pipeline_scenario() -> Scenario {
    let mut nodes = vec![json!({"id": "source", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 800.0}})];
    let mut edges = Vec::new();
    let mut last = "source".to_string();
    for k in 0..10 {
        let ids = [format!("w{k}"), format!("c{k}"), format!("q{k}"), format!("s{k}")];
        nodes.push(json!({"id": ids[0], "kind": "window", "max_messages": 8, "opens_on": "processing"}));
        nodes.push(json!({"id": ids[1], "kind": "credit", "initial_credit": 8, "grant_batch": 4, "scope": "shared"}));
        nodes.push(json!({"id": ids[2], "kind": "queue"}));
        nodes.push(json!({"id": ids[3], "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.001}}));
        for id in &ids {
            edges.push(json!({"from": last, "to": id}));
            last = id.clone();
        }
    }
    Scenario::from_value(json!({"version": 1, "name": "pipeline", "nodes": nodes, "edges": edges}))
        .expect("the built-in pipeline is valid")
}

/// A realistic rate rule: 100,000 messages a minute, offered 1,500 a
/// second (under the limit, so the rule remembers a minute's passes), in
/// front of a consumer that keeps up. The sliding scheme once added up its
/// whole log on every offer; compared with a token bucket on the same
/// load, in one run, it shows what a message costs it.
pub fn rate_rule_scenario(scheme: &str) -> Scenario {
    Scenario::from_value(json!({
        "version": 1,
        "name": format!("rate rule, {scheme}"),
        "nodes": [
            {"id": "requests", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1500.0}},
            {"id": "line", "kind": "queue"},
            {"id": "rule", "kind": "rate_limiter", "rules": [{"scheme": scheme, "limit": 100000, "span_s": 60}]},
            {"id": "server", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0.001}}
        ],
        "edges": [{"from": "requests", "to": "line"}, {"from": "line", "to": "rule"}, {"from": "rule", "to": "server"}]
    }))
    .expect("the built-in rate rule is valid")
}

/// A dispatcher over 100 agents' queues, served round-robin by 4 workers.
pub fn dispatcher_scenario() -> Scenario {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for k in 0..100 {
        nodes.push(json!({"id": format!("agent{k}"), "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 30.0}}));
        edges.push(json!({"from": format!("agent{k}"), "to": "dispatcher"}));
    }
    nodes.push(json!({"id": "dispatcher", "kind": "dispatcher", "workers": 4, "queues": "per_input",
                      "service_time": {"dist": "exponential", "mean": 0.0012}}));
    Scenario::from_value(json!({"version": 1, "name": "dispatcher", "nodes": nodes, "edges": edges}))
        .expect("the built-in dispatcher is valid")
}

fn run_engine(name: &str, scenario: Scenario, until_s: f64) -> Measure {
    let mut sim = Simulation::new(scenario, 1).expect("built-in scenario builds");
    let watch = Stopwatch::start();
    sim.run_until(SimTime::from_secs_f64(until_s)).expect("built-in scenarios advance");
    let (seconds, wall_seconds) = watch.read();
    Measure { name: name.into(), events: sim.events(), arrivals: sim.totals().produced, seconds, wall_seconds }
}

/// The hand-specialised M/M/1/K: the state is one number, the future two
/// clocks. Returns (arrivals, blocked).
pub fn mm1k_by_hand(lambda: f64, mu: f64, k: u64, arrivals: u64, seed: u64) -> (u64, u64) {
    let mut rng = SimRng::new(seed);
    let (mean_gap, mean_service) = (1.0 / lambda, 1.0 / mu);
    let mut in_system = 0u64;
    let mut next_arrival = rng.exponential(mean_gap);
    let mut next_departure = f64::INFINITY;
    let (mut seen, mut blocked) = (0u64, 0u64);
    while seen < arrivals {
        if next_arrival <= next_departure {
            let now = next_arrival;
            seen += 1;
            if in_system == k {
                blocked += 1;
            } else {
                in_system += 1;
                if in_system == 1 {
                    next_departure = now + rng.exponential(mean_service);
                }
            }
            next_arrival = now + rng.exponential(mean_gap);
        } else {
            let now = next_departure;
            in_system -= 1;
            next_departure = if in_system > 0 { now + rng.exponential(mean_service) } else { f64::INFINITY };
        }
    }
    (seen, blocked)
}

fn time_by_hand(arrivals: u64) -> Measure {
    let watch = Stopwatch::start();
    let (seen, blocked) = mm1k_by_hand(0.9, 1.0, 10, arrivals, 1);
    let (seconds, wall_seconds) = watch.read();
    // Every arrival is one event; every admitted one is served once more.
    Measure { name: "M/M/1/K by hand".into(), events: seen + (seen - blocked), arrivals: seen, seconds, wall_seconds }
}

/// The faster of two measures of the same work.
fn fastest(a: Measure, b: Measure) -> Measure {
    if b.seconds < a.seconds {
        b
    } else {
        a
    }
}

/// The engine alone on M/M/1/K, `REPEATS` turns, the fastest by the wall
/// clock, as one JSON line: `{"simulated_s": .., "arrivals": ..,
/// "wall_seconds": .., "arrivals_per_s": ..}` (a turn's simulated seconds,
/// so that another build can run the same turn).
pub fn mm1k_only(scale: f64) -> String {
    let until = TURN_SIM_S * scale;
    run_engine("warm-up", mm1k_scenario(), until / 20.0);
    let turn = || run_engine("M/M/1/K engine", mm1k_scenario(), until);
    let best = (1..REPEATS).map(|_| turn()).fold(turn(), |a, b| if b.wall_seconds < a.wall_seconds { b } else { a });
    format!(
        "{}\n",
        json!({"simulated_s": until, "arrivals": best.arrivals, "wall_seconds": best.wall_seconds, "arrivals_per_s": best.arrivals_per_wall_s()})
    )
}

pub fn run(scale: f64) -> String {
    let until = TURN_SIM_S * scale;
    // Warm up caches and the allocator once, untimed.
    run_engine("warm-up", mm1k_scenario(), until / 20.0);
    let mut engine = run_engine("M/M/1/K engine", mm1k_scenario(), until);
    let mut by_hand = time_by_hand(engine.arrivals);
    let ratios = |e: &Measure, h: &Measure| (e.arrivals_per_s() / h.arrivals_per_s(), e.arrivals_per_wall_s() / h.arrivals_per_wall_s());
    let mut turns = vec![ratios(&engine, &by_hand)];
    for _ in 1..REPEATS {
        let e = run_engine("M/M/1/K engine", mm1k_scenario(), until);
        let h = time_by_hand(e.arrivals);
        turns.push(ratios(&e, &h));
        engine = fastest(engine, e);
        by_hand = fastest(by_hand, h);
    }
    let pipeline = run_engine("10-stage window+credit", pipeline_scenario(), 800.0 * scale);
    let dispatcher = run_engine("dispatcher, 100 queues", dispatcher_scenario(), 600.0 * scale);
    let sliding = run_engine("rate rule, sliding", rate_rule_scenario("sliding"), 120.0 * scale);
    let bucket = run_engine("rate rule, token bucket", rate_rule_scenario("token_bucket"), 120.0 * scale);
    let mut out = String::new();
    out.push_str("per second of processor time (the thread's), and the wall-clock seconds beside\n");
    out.push_str(&format!("{:<28} {:>14} {:>16} {:>10} {:>10}\n", "model", "events/s", "arrivals/s", "seconds", "wall"));
    for m in [&engine, &by_hand, &pipeline, &dispatcher, &sliding, &bucket] {
        out.push_str(&format!(
            "{:<28} {:>14.0} {:>16.0} {:>10.3} {:>10.3}\n",
            m.name,
            m.events_per_s(),
            m.arrivals_per_s(),
            m.seconds,
            m.wall_seconds
        ));
    }
    let (ratio, wall_ratio) = ratios(&engine, &by_hand);
    let each = |pick: fn(&(f64, f64)) -> f64| turns.iter().map(|r| format!("{:.3}", pick(r))).collect::<Vec<_>>().join(" ");
    out.push_str(&format!(
        "\nengine / hand-specialised M/M/1/K, arrivals per second of processor time, fastest of {REPEATS} turns each: \
         {ratio:.3} (target at least 0.333)\n\
         turn by turn: {}\n\
         by the wall clock, the same runs: {wall_ratio:.3}; turn by turn: {}\n",
        each(|r| r.0),
        each(|r| r.1)
    ));
    out.push_str(&format!(
        "sliding / token bucket rate rule, arrivals per second of processor time: {:.3} \
         (a running sum keeps a sliding rule's cost per message constant)\n",
        sliding.arrivals_per_s() / bucket.arrivals_per_s()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference loop is only a fair yardstick if it simulates the same
    /// queue: its blocking fraction must match M/M/1/K's closed form,
    /// within three standard errors over independent replications.
    #[test]
    fn the_hand_loop_blocks_as_mm1k_does() {
        let (lambda, mu, k) = (0.9, 1.0, 10u64);
        let rho: f64 = lambda / mu;
        let theory = (1.0 - rho) * rho.powi(k as i32) / (1.0 - rho.powi(k as i32 + 1));
        let replications: Vec<f64> = (1..=12)
            .map(|seed| {
                let (seen, blocked) = mm1k_by_hand(lambda, mu, k, 100_000, seed);
                blocked as f64 / seen as f64
            })
            .collect();
        let n = replications.len() as f64;
        let mean = replications.iter().sum::<f64>() / n;
        let var = replications.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let se = (var / n).sqrt();
        assert!((mean - theory).abs() < 3.0 * se, "blocking {mean:.5} ± {se:.5}, theory {theory:.5}");
    }

    /// What the figures rest on: time the thread spends not running (here
    /// asleep; on a shared machine, waiting while others run) counts on the
    /// wall clock only.
    #[test]
    fn processor_time_leaves_out_time_not_running() {
        let watch = Stopwatch::start();
        std::thread::sleep(Duration::from_millis(60));
        let (processor, wall) = watch.read();
        assert!(wall >= 0.06, "wall {wall}");
        assert!(processor < 0.03, "processor {processor}");
    }

    #[test]
    fn the_fastest_turn_is_kept() {
        let m = |seconds| Measure { name: "m".into(), events: 1, arrivals: 1, seconds, wall_seconds: seconds };
        assert_eq!(fastest(m(2.0), m(1.0)).seconds, 1.0);
        assert_eq!(fastest(m(1.0), m(2.0)).seconds, 1.0);
    }
}
