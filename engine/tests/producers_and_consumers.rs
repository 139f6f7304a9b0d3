//! The arrival processes of producers and the schedules, lifecycle and
//! time-outs of consumers.

mod support;

use serde_json::{json, Value};
use sluice_engine::Simulation;
use support::*;

fn producer_into_sink(arrivals: Value, service: f64) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": arrivals}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "c", "kind": "consumer", "workers": 1000, "service_time": {"dist": "fixed", "value": service}}),
        ],
        &[("p", "q"), ("q", "c")],
    );
    Simulation::new(scenario, 31).unwrap()
}

fn made(sim: &Simulation) -> u64 {
    sim.report().nodes["p"].arrived
}

#[test]
fn on_off_bursts_send_only_while_on() {
    let mut sim = producer_into_sink(json!({"process": "on_off", "rate_per_s": 100, "on_s": 1, "off_s": 3}), 0.0);
    run_checked(&mut sim, 1.0);
    let first_burst = made(&sim);
    run_checked(&mut sim, 4.0);
    assert_eq!(made(&sim), first_burst, "silent while off");
    run_checked(&mut sim, 4000.0);
    // On a quarter of the time: 25 a second in the long run.
    let rate = made(&sim) as f64 / 4000.0;
    assert!((rate - 25.0).abs() < 0.5, "{rate}");
}

#[test]
fn a_ramp_speeds_up() {
    let mut sim = producer_into_sink(json!({"process": "ramp", "from_per_s": 0, "to_per_s": 200, "over_s": 100}), 0.0);
    run_checked(&mut sim, 50.0);
    let first_half = made(&sim) as f64;
    run_checked(&mut sim, 100.0);
    let second_half = made(&sim) as f64 - first_half;
    // The integral of the rate: 2500 in the first half, 7500 in the second.
    assert!((first_half - 2500.0).abs() < 200.0, "{first_half}");
    assert!((second_half - 7500.0).abs() < 350.0, "{second_half}");
}

#[test]
fn a_trace_sends_at_its_instants() {
    let mut sim = producer_into_sink(json!({"process": "trace", "times_s": [0.5, 0.5, 1.25, 3.0]}), 0.0);
    run_checked(&mut sim, 0.49);
    assert_eq!(made(&sim), 0);
    run_checked(&mut sim, 0.5);
    assert_eq!(made(&sim), 2);
    run_checked(&mut sim, 100.0);
    assert_eq!(made(&sim), 4);
    assert!(sim.next_event_time().is_none(), "nothing more to happen");
}

#[test]
fn a_closed_loop_obeys_the_response_time_law() {
    // N = 10 clients thinking 0.5 s on average; one server of mean 0.05 s.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer",
                   "arrivals": {"process": "closed_loop", "clients": 10, "think": {"dist": "exponential", "mean": 0.5}}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.05}}),
        ],
        &[("p", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 12).unwrap();
    let (q, c) = (idx(&sim, "q"), idx(&sim, "c"));
    for i in 1..=2000 {
        run_checked(&mut sim, i as f64);
        // Never more requests inside than clients.
        assert!(sim.stats(q).depth_messages.value() + sim.stats(c).in_service <= 10);
    }
    let r = sim.report();
    let x = r.nodes["c"].departed as f64 / 2000.0;
    let response = r.nodes["c"].mean_sojourn_s.unwrap();
    // X = N / (R + Z), within the run's noise.
    let law = 10.0 / (response + 0.5);
    assert!((x - law).abs() / law < 0.01, "throughput {x}, N/(R+Z) = {law}");
    // Near saturation, the server is the bottleneck: X close to 1/S = 20.
    assert!(x > 15.0 && x < 20.0, "{x}");
}

fn with_consumer(consumer: Value, rate: f64) -> Simulation {
    let mut c = consumer;
    c["id"] = json!("c");
    c["kind"] = json!("consumer");
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": rate}}),
            json!({"id": "q", "kind": "queue"}),
            c,
        ],
        &[("p", "q"), ("q", "c")],
    );
    Simulation::new(scenario, 7).unwrap()
}

fn served(sim: &Simulation) -> u64 {
    sim.report().nodes["c"].departed
}

#[test]
fn a_consumer_accepts_nothing_while_initializing_or_after_shutting_down() {
    let mut sim = with_consumer(
        json!({"service_time": {"dist": "fixed", "value": 0.01},
               "lifecycle": {"initializing_s": 2, "shutdown_at_s": 5}}),
        10.0,
    );
    run_checked(&mut sim, 1.99);
    assert_eq!(served(&sim), 0, "initializing");
    assert!(sim.report().nodes["q"].depth_messages >= 18, "work aimed at it waits");
    run_checked(&mut sim, 4.99);
    let by_shutdown = served(&sim);
    assert!(by_shutdown >= 40, "{by_shutdown}");
    run_checked(&mut sim, 20.0);
    assert!(served(&sim) <= by_shutdown + 1, "only what was in service finishes");
    assert_eq!(sim.report().nodes["c"].state, Some("ShutDown"));
    let c = idx(&sim, "c");
    let phases: Vec<_> = sim.transitions().entries().filter(|t| t.node == c).map(|t| (t.from, t.to)).collect();
    assert_eq!(
        phases,
        vec![
            ("New", "Initializing"),
            ("Initializing", "Operational"),
            ("Operational", "ShuttingDown"),
            ("ShuttingDown", "ShutDown")
        ]
    );
}

#[test]
fn outages_stop_new_work_and_slowdowns_slow_it() {
    let mut sim = with_consumer(
        json!({"service_time": {"dist": "fixed", "value": 0.01},
               "outages": [{"from_s": 10, "to_s": 20}],
               "slowdowns": [{"from_s": 30, "to_s": 40, "factor": 20}]}),
        50.0,
    );
    run_checked(&mut sim, 10.0);
    let before = served(&sim);
    run_checked(&mut sim, 19.99);
    assert!(served(&sim) <= before + 1, "no new work during the outage");
    run_checked(&mut sim, 30.0);
    let at_30 = served(&sim);
    run_checked(&mut sim, 40.0);
    // 0.2 s per message while slowed: 5 a second instead of 50.
    let slowed = served(&sim) - at_30;
    assert!((45..=55).contains(&slowed), "{slowed}");
}

#[test]
fn time_outs_retry_then_give_up() {
    // Exponential service of mean 1 s cut off at 1 s, two retries: a
    // message is dropped when all three attempts exceed 1 s, e^-3 of them.
    let mut sim = with_consumer(
        json!({"workers": 50, "service_time": {"dist": "exponential", "mean": 1.0},
               "timeout_s": 1.0, "max_retries": 2}),
        20.0,
    );
    run_checked(&mut sim, 2000.0);
    let r = sim.report();
    let dropped = r.nodes["c"].dropped["timed_out"] as f64;
    let total = dropped + r.nodes["c"].departed as f64;
    let p = dropped / total;
    let theory = (-3.0f64).exp();
    // About 40,000 messages: the standard error of p is about 0.0011.
    assert!((p - theory).abs() < 0.0035, "{p} vs {theory}");
}
