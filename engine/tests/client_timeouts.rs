//! Client time-outs in running scenarios: what the clients get (goodput)
//! against what the server does (throughput), and the work spent for
//! nobody, held to closed forms where queueing theory has one.

mod support;

use serde_json::{json, Value};
use sluice_engine::{DropReason, Simulation};
use support::*;

fn producer(arrivals: Value, timeout_s: f64, on_timeout: &str) -> Value {
    json!({"arrivals": arrivals, "timeout_s": timeout_s, "on_timeout": on_timeout})
}

fn exp(mean: f64) -> Value {
    json!({"dist": "exponential", "mean": mean})
}



/// M/M/1 FIFO whose clients give up at T and whose server works on: the
/// server is untouched, so a request is answered in time exactly when its
/// sojourn, exponential with rate μ − λ, is under T. Goodput is
/// λ·(1 − e^{−(μ−λ)T}), and every request given up is answered late.
#[test]
fn mm1_goodput_under_a_client_time_out_is_the_closed_form() {
    let (lambda, mu, t) = (8.0, 10.0, 0.5);
    let scenario = pipeline(producer(json!({"process": "poisson", "rate_per_s": lambda}), t, "work_on"), json!({}), json!({"service_time": exp(1.0 / mu)}));
    let mut sim = Simulation::new(scenario, 7).unwrap();
    let horizon = 40_000.0;
    sim.run_until(secs(horizon)).unwrap();
    let c = client(&sim, "p");
    let goodput = c.answered as f64 / horizon;
    let expected = lambda * (1.0 - (-(mu - lambda) * t).exp());
    assert!((goodput / expected - 1.0).abs() < 0.01, "goodput {goodput:.3} a second, closed form {expected:.3}");
    // The server serves everything: throughput is λ whatever the clients do.
    let served = sim.stats(idx(&sim, "c")).departed as f64 / horizon;
    assert!((served / lambda - 1.0).abs() < 0.01, "throughput {served:.3}");
    assert_eq!(c.failed, 0);
    let in_system = sim.report().totals.in_system;
    assert!(c.timed_out - c.late <= in_system, "every request given up is answered late, but those still in the system: {c:?}");
    assert!(c.late > 0 && c.late <= c.timed_out);
    // The consumer's wasted work is the service of exactly those late
    // answers (and of any given up and still in service).
    let w = client(&sim, "c");
    assert!(w.wasted >= c.late && w.wasted <= c.late + 1, "{w:?} against {c:?}");
}

/// Every request outlives its client's time-out: answers all come late,
/// and the server's work is all wasted. With `cancel` the worker stops at
/// the time-out instead, each service cut to the time-out's length.
#[test]
fn a_time_out_shorter_than_every_service_wastes_all_the_work_or_cuts_it_short() {
    let run = |on_timeout: &str| {
        let scenario = pipeline(producer(json!({"process": "constant", "rate_per_s": 1}), 0.2, on_timeout), json!({}), json!({"service_time": fixed(0.3)}));
        let mut sim = Simulation::new(scenario, 1).unwrap();
        run_checked(&mut sim, 10.5);
        sim
    };
    let sim = run("work_on");
    let (c, w) = (client(&sim, "p"), client(&sim, "c"));
    assert_eq!((c.answered, c.timed_out, c.late), (0, 10, 10));
    assert_eq!(sim.stats(idx(&sim, "c")).departed, 10, "the server finishes every one");
    assert_eq!(w.wasted, 10);
    assert!((w.wasted_s - 3.0).abs() < 1e-9, "{w:?}");

    let sim = run("cancel");
    let (c, w) = (client(&sim, "p"), client(&sim, "c"));
    assert_eq!((c.answered, c.timed_out, c.late), (0, 10, 0));
    let consumer = sim.stats(idx(&sim, "c"));
    assert_eq!(consumer.departed, 0, "none finishes");
    assert_eq!(consumer.dropped[DropReason::Cancelled as usize], 10, "each stopped in service");
    assert_eq!(w.wasted, 10);
    assert!((w.wasted_s - 2.0).abs() < 1e-9, "each stopped after 0.2 s: {w:?}");
    assert_eq!(consumer.in_service, 0);
}

/// Overload: 15 requests a second for a server of 10, clients that give
/// up after a second. Working on, the queue grows without bound and in
/// the end nobody is answered in time while the server runs flat out;
/// cancelling, requests whose client left are dropped before any work,
/// and the server's work goes to clients that still wait.
#[test]
fn cancelling_keeps_the_goodput_that_working_on_loses_under_overload() {
    let goodput_late = |on_timeout: &str| {
        let scenario = pipeline(producer(json!({"process": "poisson", "rate_per_s": 15}), 1.0, on_timeout), json!({}), json!({"service_time": exp(0.1)}));
        let mut sim = Simulation::new(scenario, 3).unwrap();
        sim.run_until(secs(100.0)).unwrap();
        let before = client(&sim, "p").answered;
        let served_before = sim.stats(idx(&sim, "c")).departed;
        sim.run_until(secs(400.0)).unwrap();
        let goodput = (client(&sim, "p").answered - before) as f64 / 300.0;
        let served = (sim.stats(idx(&sim, "c")).departed - served_before) as f64 / 300.0;
        (goodput, served, sim)
    };
    let (goodput, served, _) = goodput_late("work_on");
    assert!(goodput < 0.1, "working on: goodput {goodput}");
    assert!((served - 10.0).abs() < 0.5, "the server flat out: {served}");
    let (goodput, _, sim) = goodput_late("cancel");
    assert!(goodput > 7.0, "cancelling: goodput {goodput}");
    let q = sim.stats(idx(&sim, "q"));
    assert!(q.depth_messages.value() < 60, "the queue stays short: {}", q.depth_messages.value());
    assert!(sim.stats(idx(&sim, "c")).dropped[DropReason::Cancelled as usize] > 1000, "cancelled where they surfaced");
}

/// A request given up before it left the producer (held after the server
/// refused it) is never sent: dropped there as cancelled, nothing wasted.
#[test]
fn a_request_given_up_while_still_held_is_never_sent() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 1}, "timeout_s": 2.5, "on_refused": "pause"}),
            json!({"id": "c", "kind": "consumer", "service_time": fixed(0.1), "outages": [{"from_s": 0.0, "to_s": 10.0}]}),
        ],
        &[("p", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 12.0);
    let c = client(&sim, "p");
    let p = sim.stats(idx(&sim, "p"));
    assert!(p.dropped[DropReason::Cancelled as usize] >= 7, "given up unsent: {:?}", p.dropped);
    assert_eq!(c.timed_out, p.dropped[DropReason::Cancelled as usize], "every give-up was of one held");
    assert!(c.answered >= 1, "what comes after the outage is answered");
    assert_eq!(sim.node_report(idx(&sim, "c")).client, None, "no work wasted");
}

/// A closed loop's client that gives up thinks and sends again: the loop
/// keeps its clients, and with a server too slow for every request the
/// clients send one request each per time-out plus think time.
#[test]
fn a_closed_loop_client_that_gives_up_sends_again() {
    let scenario = pipeline(
        json!({"arrivals": {"process": "closed_loop", "clients": 4, "think": fixed(0.5)}, "timeout_s": 1.0}),
        json!({}),
        json!({"service_time": fixed(10.0)}),
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 15.2);
    let c = client(&sim, "p");
    // Each client sends at 0.5, 2.0, 3.5, … 14.0 (every 1.5 s: the time-out
    // and the think time), and gives up on each a second later.
    assert_eq!(sim.stats(idx(&sim, "p")).arrived, 40);
    assert_eq!(c.timed_out, 40);
    assert_eq!(c.answered, 0);
}

/// A time-out changed live applies to the requests made after the change;
/// removed live, the requests already waiting wait for ever.
#[test]
fn a_live_change_of_the_time_out_applies_to_requests_made_after_it() {
    let scenario = pipeline(producer(json!({"process": "constant", "rate_per_s": 1}), 0.5, "work_on"), json!({}), json!({"service_time": fixed(0.8)}));
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 3.9);
    assert_eq!(client(&sim, "p").timed_out, 3);
    let mut block = sim.scenario().nodes[idx(&sim, "p")].block.clone();
    block.set_number(&sluice_engine::FieldPath::parse("timeout_s").unwrap(), 2.0).unwrap();
    sim.reconfigure("p", block).unwrap();
    run_checked(&mut sim, 8.0);
    let c = client(&sim, "p");
    assert_eq!(c.timed_out, 3, "the request made at 4 s waits 2 s");
    assert_eq!(c.answered, 4, "those made at 4, 5, 6 and 7 s");
}

/// Switched live from working on to cancelling, the requests given up
/// already are dropped as they surface: the line of them goes at once,
/// not after the server has worked through it.
#[test]
fn a_live_switch_to_cancel_applies_to_requests_given_up_already() {
    let scenario = pipeline(producer(json!({"process": "poisson", "rate_per_s": 15}), 1.0, "work_on"), json!({}), json!({"service_time": exp(0.1)}));
    let mut sim = Simulation::new(scenario, 5).unwrap();
    run_checked(&mut sim, 40.0);
    let q = idx(&sim, "q");
    assert!(sim.stats(q).depth_messages.value() > 150, "a long line of requests given up: {}", sim.stats(q).depth_messages.value());
    let mut block = sim.scenario().nodes[idx(&sim, "p")].block.clone();
    block = block.with_value(&sluice_engine::FieldPath::parse("on_timeout").unwrap(), json!("cancel")).unwrap();
    sim.reconfigure("p", block).unwrap();
    run_checked(&mut sim, 41.0);
    assert!(sim.stats(q).depth_messages.value() < 30, "the line gone within a second: {}", sim.stats(q).depth_messages.value());
}

