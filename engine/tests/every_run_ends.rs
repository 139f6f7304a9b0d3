//! Every run ends, and every input is answered: the scenarios that once
//! never finished, each now either runs or is refused with the reason.

mod support;

use serde_json::json;
use sluice_engine::{Scenario, SimTime, Simulation, Stall, Stop, MAX_EVENTS_AT_ONE_INSTANT, MAX_MESSAGES_HELD};
use support::*;

/// Closed-loop clients that think for 0 s, behind a rate limiter that
/// rejects: past its limit, every request is dropped at once and sent
/// again at the same instant. Validation cannot see it; the watchdog stops it.
fn rejecting_loop() -> Scenario {
    graph(
        vec![
            json!({"id": "clients", "kind": "producer",
                   "arrivals": {"process": "closed_loop", "clients": 2, "think": {"dist": "fixed", "value": 0}}}),
            json!({"id": "limit", "kind": "rate_limiter", "on_excess": "reject",
                   "rules": [{"scheme": "anchored", "limit": 1, "span_s": 1}]}),
            json!({"id": "server", "kind": "consumer", "workers": 4, "service_time": {"dist": "fixed", "value": 10}}),
        ],
        &[("clients", "limit"), ("limit", "server")],
    )
}

#[test]
fn the_watchdog_stops_a_loop_that_takes_no_time_at_its_default_bound() {
    let mut sim = Simulation::new(rejecting_loop(), 1).unwrap();
    let stall = stalled(sim.run_until(SimTime::from_secs_f64(60.0)).expect_err("the loop never advances"));
    assert_eq!(stall.at, SimTime::ZERO);
    assert_eq!(stall.events, MAX_EVENTS_AT_ONE_INSTANT);
    assert_eq!(stall.nodes, vec!["clients".to_string(), "limit".to_string()]);
}

#[test]
fn a_stopped_run_stays_whole_and_says_so_everywhere() {
    let mut sim = Simulation::new(rejecting_loop(), 1).unwrap();
    sim.set_stall_bound(20_000);
    let stop = sim.run_until(SimTime::from_secs_f64(60.0)).expect_err("stopped");
    assert_eq!(sim.stopped(), Some(&stop));
    let stall = stalled(stop.clone());
    assert_eq!(stall.events, 20_000);
    assert_eq!(sim.now(), SimTime::ZERO, "the clock stays where it stopped");
    assert!(!sim.step(), "a stopped run handles no more events");
    assert_eq!(sim.next_event_time(), None, "nothing more will happen");
    assert_eq!(sim.run_until_bounded(SimTime::from_secs_f64(1.0), 10), Err(stop));
    sim.check_invariants().unwrap();
    let text = stall.to_string();
    assert!(text.contains("stopped at 0.000000 s") && text.contains("\"clients\", \"limit\""), "{text}");
}

fn stalled(stop: Stop) -> Stall {
    match stop {
        Stop::Stalled(stall) => stall,
        other => panic!("expected a stall: {other}"),
    }
}

/// An M/M/1 queue without a capacity, arrivals far faster than service.
fn overflowing(rate_per_s: f64) -> Scenario {
    graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate_per_s}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.1}}),
        ],
        &[("p", "q"), ("q", "c")],
    )
}

#[test]
fn the_watchdog_stops_a_run_that_would_hold_more_than_memory_should() {
    // A billion arrivals a second into a queue served ten a second: before,
    // a second of it took every byte of the machine.
    let mut sim = Simulation::new(overflowing(1e9), 1).unwrap();
    let stop = sim.run_until(SimTime::from_secs_f64(1000.0)).expect_err("the queue grows without end");
    let Stop::Overflowed(overflow) = &stop else { panic!("expected an overflow: {stop}") };
    assert_eq!(overflow.bound, MAX_MESSAGES_HELD);
    // It looks every 65,536 events, each adding at most a message.
    assert!((MAX_MESSAGES_HELD..MAX_MESSAGES_HELD + 70_000).contains(&overflow.held), "{}", overflow.held);
    assert_eq!(overflow.nodes[0].0, "q");
    assert_eq!(overflow.held, sim.in_system(), "it stopped between events, with every message counted");
    sim.check_invariants().unwrap();
    assert!(!sim.step() && sim.next_event_time().is_none());
    let text = stop.to_string();
    assert!(text.contains("more than the 5000000 a run may hold (most of them in \"q\"") && text.contains("give it a capacity"), "{text}");

    // The bound can be set; a run under it is left alone.
    let mut sim = Simulation::new(overflowing(1e5), 1).unwrap();
    sim.set_held_bound(200_000);
    let Err(Stop::Overflowed(small)) = sim.run_until(SimTime::from_secs_f64(100.0)) else { panic!("no overflow") };
    // 200,000 held after about 2 s, noticed within 65,536 events.
    assert!((SimTime::from_secs_f64(2.0)..SimTime::from_secs_f64(3.0)).contains(&small.at), "stopped at {}", small.at);
    let mut sim = Simulation::new(overflowing(5.0), 1).unwrap();
    sim.set_held_bound(1_000);
    sim.run_until(SimTime::from_secs_f64(10_000.0)).expect("a stable queue holds a few messages");
}

#[test]
fn the_watchdog_lets_long_instants_of_sound_runs_be() {
    // A million messages at one instant through a queue into a consumer
    // that serves in no time: about three million events at t = 1 s, well
    // under the bound, and then time goes on.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": vec![1.0; 1_000_000]}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0}}),
        ],
        &[("p", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    sim.run_until(SimTime::from_secs_f64(2.0)).expect("a long instant is not a stall");
    assert_eq!(sim.totals().delivered, 1_000_000);
}

#[test]
fn eleven_resource_pools_at_their_largest_fill_at_once_without_a_stall() {
    // Each pool keeps a million resources ready (its documented largest):
    // made at one instant, they are one creation each, not eleven million
    // events the watchdog would take for a loop that takes no time.
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let ids: Vec<(String, String, String)> = (0..11).map(|i| (format!("p{i}"), format!("pool{i}"), format!("c{i}"))).collect();
    for (p, pool, c) in &ids {
        nodes.push(json!({"id": p, "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 10}}));
        nodes.push(json!({"id": pool, "kind": "resource_pool", "min_total": 1_000_000, "max_total": 1_000_000, "create_s": 0.5}));
        nodes.push(json!({"id": c, "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01}}));
        edges.push((p.as_str(), pool.as_str()));
        edges.push((pool.as_str(), c.as_str()));
    }
    let mut sim = Simulation::new(graph(nodes, &edges), 1).unwrap();
    sim.run_until(SimTime::from_secs_f64(5.0)).expect("making resources is not a stall");
    assert!(sim.events() < 10_000, "{} events", sim.events());
    for (_, pool, c) in &ids {
        match &sim.nodes()[sim.scenario().node_index(pool).unwrap()] {
            sluice_engine::Node::ResourcePool(r) => assert_eq!(r.counts().0 + r.counts().1, 1_000_000),
            _ => unreachable!(),
        }
        assert!(sim.report().nodes[c.as_str()].departed > 20);
    }
}

#[test]
fn validation_refuses_closed_loops_that_can_never_take_time() {
    let closed_loop = |think: serde_json::Value, between: Option<serde_json::Value>, service: serde_json::Value| {
        let mut nodes = vec![json!({"id": "p", "kind": "producer",
                                    "arrivals": {"process": "closed_loop", "clients": 3, "think": think}})];
        let mut edges = vec![];
        match between {
            Some(block) => {
                nodes.push(block);
                edges.push(json!({"from": "p", "to": "b"}));
                edges.push(json!({"from": "b", "to": "c"}));
            }
            None => edges.push(json!({"from": "p", "to": "c"})),
        }
        nodes.push(json!({"id": "c", "kind": "consumer", "workers": 3, "service_time": service}));
        Scenario::from_value(json!({"version": 1, "nodes": nodes, "edges": edges}))
    };
    let zero = json!({"dist": "fixed", "value": 0});
    let tiny = json!({"dist": "uniform", "min": 0, "max": 1e-10});
    let some = json!({"dist": "exponential", "mean": 0.01});
    for (think, service) in [(&zero, &zero), (&tiny, &zero), (&zero, &tiny)] {
        let e = closed_loop(think.clone(), None, service.clone()).expect_err("never leaves t = 0").to_string();
        assert!(e.starts_with("nodes[0].arrivals.think: its clients think for 0 s"), "{e}");
    }
    let queue = json!({"id": "b", "kind": "queue"});
    assert!(closed_loop(zero.clone(), Some(queue), zero.clone()).is_err(), "a queue takes no time");
    // Time anywhere on the way: it runs.
    assert!(closed_loop(zero.clone(), None, some.clone()).is_ok());
    assert!(closed_loop(some, None, zero.clone()).is_ok());
    let link = json!({"id": "b", "kind": "link", "latency_s": 0.001});
    assert!(closed_loop(zero.clone(), Some(link), zero.clone()).is_ok());
    // A draft whose requests reach no consumer yet is no loop: it may be
    // wired on.
    let draft = json!({"version": 1, "nodes": [
        {"id": "p", "kind": "producer", "arrivals": {"process": "closed_loop", "clients": 3, "think": zero}},
        {"id": "q", "kind": "queue"}], "edges": [{"from": "p", "to": "q"}]});
    let draft = serde_json::from_value::<Scenario>(draft).unwrap();
    assert_eq!(draft.validate_draft().map(|gaps| gaps.len()), Ok(1), "only the queue's missing edge");
}

/// A producer of `arrivals` straight into a consumer of 1000 workers
/// serving in `service` seconds.
fn into_consumer(arrivals: serde_json::Value, service: f64) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": arrivals}),
            json!({"id": "c", "kind": "consumer", "workers": 1000, "service_time": {"dist": "fixed", "value": service}}),
        ],
        &[("p", "c")],
    );
    Simulation::new(scenario, 7).unwrap()
}

/// On/off periods that binary floating point cannot write exactly: the
/// next arrival once came out no later than the last, for ever.
#[test]
fn on_off_producers_with_inexact_periods_run_on() {
    let on_off = |rate: f64, on: f64, off: f64| {
        into_consumer(json!({"process": "on_off", "rate_per_s": rate, "on_s": on, "off_s": off}), 0.001)
    };
    // Built, then run: both once looped for ever.
    let mut sim = on_off(1.0, 0.1, 0.1);
    assert_eq!(sim.run_until_bounded(SimTime::from_secs_f64(1000.0), 10_000), Ok(true));
    let mut sim = on_off(1000.0, 0.1, 0.2);
    assert_eq!(sim.run_until_bounded(SimTime::from_secs_f64(300.0), 1_000_000), Ok(true));
    // On a third of the time: a third of the rate in the long run (about
    // 100,000 arrivals, so within 2%).
    let rate = sim.totals().produced as f64 / 300.0;
    assert!((rate - 1000.0 / 3.0).abs() < 1000.0 / 3.0 * 0.02, "{rate}");
    for (rate, on, off) in [(37.3, 0.0713, 0.4177), (5.0, 1.1, 2.3), (2e5, 1e-6, 0.3)] {
        let mut sim = on_off(rate, on, off);
        assert_eq!(sim.run_until_bounded(SimTime::from_secs_f64(100.0), 2_000_000), Ok(true), "{rate} {on} {off}");
    }
}

/// A ramp falling to almost nothing: the next arrival is drawn at once,
/// however far away, where thinning drew candidates at the top rate for
/// ever.
#[test]
fn falling_ramps_draw_the_next_arrival_at_once() {
    let ramp = |from: f64, to: f64, over: f64| {
        into_consumer(json!({"process": "ramp", "from_per_s": from, "to_per_s": to, "over_s": over}), 0.0)
    };
    let mut sim = ramp(1e9, 1e-9, 1e-6);
    assert_eq!(sim.run_until_bounded(SimTime::from_secs_f64(1e6), 10_000), Ok(true));
    // About the area under the ramp: (1e9 + 0) / 2 * 1e-6 = 500.
    let made = sim.totals().produced as f64;
    assert!((made - 500.0).abs() < 5.0 * 500f64.sqrt(), "{made}");
    // Falling to exactly zero: the producer is done once past the ramp.
    let mut sim = ramp(1000.0, 0.0, 10.0);
    sim.run_until(SimTime::from_secs_f64(100.0)).unwrap();
    let made = sim.totals().produced as f64;
    assert!((made - 5000.0).abs() < 5.0 * 5000f64.sqrt(), "{made}");
    assert_eq!(sim.next_event_time(), None, "nothing more to come");
}

fn windows_in_a_row(n: usize, closed_loop: bool) -> Result<Scenario, sluice_engine::ScenarioError> {
    let arrivals = if closed_loop {
        json!({"process": "closed_loop", "clients": 10, "think": {"dist": "fixed", "value": 0.01}})
    } else {
        json!({"process": "poisson", "rate_per_s": 100})
    };
    let mut nodes = vec![json!({"id": "p", "kind": "producer", "arrivals": arrivals})];
    let mut edges = vec![];
    let mut last = "p".to_string();
    for k in 1..=n {
        let id = format!("w{k}");
        let max = if k == n { 1 } else { 100 };
        nodes.push(json!({"id": id, "kind": "window", "max_messages": max, "opens_on": "processing"}));
        edges.push(json!({"from": last, "to": id}));
        last = id;
    }
    nodes.push(json!({"id": "c", "kind": "consumer", "workers": 20, "service_time": {"dist": "fixed", "value": 0.05}}));
    edges.push(json!({"from": last, "to": "c"}));
    Scenario::from_value(json!({"version": 1, "nodes": nodes, "edges": edges}))
}

/// A message carries at most four gates; a fifth once let through what it
/// should have held (a last window of 1 with 10 messages in service).
#[test]
fn a_path_through_more_gates_than_a_message_carries_is_refused() {
    let e = windows_in_a_row(5, false).expect_err("five windows").to_string();
    assert_eq!(
        e,
        "nodes[5]: a message along \"p\" → \"w1\" → \"w2\" → \"w3\" → \"w4\" → \"w5\" would be counted against 5 gates \
         (windows, credit links, limiters, pools, closed loops); at most 4 can count one message: put a consumer between \
         some of them"
    );
    assert!(windows_in_a_row(4, true).is_err(), "a closed loop counts as a gate");
    // Four windows: every one counts, so the last, of 1, holds one in service.
    let mut sim = Simulation::new(windows_in_a_row(4, false).unwrap(), 1).unwrap();
    run_checked(&mut sim, 20.0);
    assert_eq!(sim.report().nodes["c"].in_service, 1);
    assert!(sim.totals().delivered > 100);
}

/// A product limiter that counts requests in progress is a gate too: four
/// windows before HAProxy's server limit are one gate too many, and a rate
/// limiter's product (which counts nothing) is none.
#[test]
fn a_product_limiter_counting_requests_in_progress_is_a_gate() {
    let with = |limiter: serde_json::Value| {
        let mut v = serde_json::to_value(windows_in_a_row(4, false).unwrap()).unwrap();
        let nodes = v["nodes"].as_array_mut().unwrap();
        let mut l = limiter;
        l["id"] = json!("l");
        l["kind"] = json!("product_limiter");
        nodes.push(l);
        let edges = v["edges"].as_array_mut().unwrap();
        let last = edges.pop().unwrap();
        edges.push(json!({"from": last["from"], "to": "l"}));
        edges.push(json!({"from": "l", "to": "c"}));
        Scenario::from_value(v)
    };
    let e = with(json!({"product": "haproxy_server", "maxconn": 2})).expect_err("five gates").to_string();
    assert!(e.contains("would be counted against 5 gates"), "{e}");
    assert!(with(json!({"product": "nginx_limit_req", "rate": 10})).is_ok());
}

/// The sliding rule once added up its whole log on every offer: quadratic.
/// What it lets through must not change with the running sum.
#[test]
fn a_sliding_rule_holds_its_limit_over_every_interval() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 150}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "r", "kind": "rate_limiter", "rules": [{"scheme": "sliding", "limit": 1000, "span_s": 10}]}),
            json!({"id": "c", "kind": "consumer", "workers": 1000, "service_time": {"dist": "fixed", "value": 0.001}}),
        ],
        &[("p", "q"), ("q", "r"), ("r", "c")],
    );
    let mut sim = Simulation::new(scenario, 5).unwrap();
    let r = queue_index(&sim, "r");
    let mut passed_at = Vec::new();
    while sim.next_event_time().is_some_and(|t| t <= SimTime::from_secs_f64(120.0)) {
        let before = sim.stats(r).departed;
        sim.step();
        for _ in before..sim.stats(r).departed {
            passed_at.push(sim.now());
        }
    }
    // Any 10 s: at most 1000. Over 120 s at 150 offered a second, the rule
    // binds: 12 spans' worth pass, give or take the first.
    let span = SimTime::from_secs_f64(10.0).as_nanos();
    let mut start = 0;
    for (end, t) in passed_at.iter().enumerate() {
        while passed_at[start].as_nanos() + span <= t.as_nanos() {
            start += 1;
        }
        assert!(end - start < 1000, "{} passed within 10 s ending at {t}", end - start + 1);
    }
    assert!((11_900..=12_000).contains(&passed_at.len()), "{}", passed_at.len());
}

/// A block of every kind left unconnected beside a running pipeline, alone
/// or fed by a producer of its own: the pipeline runs, the stray part is
/// held at zero, and nothing panics.
#[test]
fn a_stray_block_of_any_kind_holds_back_only_its_own_part() {
    use sluice_engine::scenario::default_block;
    use sluice_engine::scenario::{EdgeSpec, Kind, NodeSpec};
    for kind in Kind::ALL {
        for fed in [false, true] {
            let mut scenario = pipeline(
                json!({"arrivals": {"process": "poisson", "rate_per_s": 20}}),
                json!({}),
                json!({"service_time": {"dist": "exponential", "mean": 0.01}}),
            );
            scenario.nodes.push(NodeSpec { id: "stray".into(), block: default_block(kind), position: None });
            if fed && kind != Kind::Producer {
                scenario.nodes.push(NodeSpec { id: "feeder".into(), block: default_block(Kind::Producer), position: None });
                scenario.edges.push(EdgeSpec { from: "feeder".into(), to: "stray".into() });
            }
            let what = format!("a stray {kind}{}", if fed { " fed by its own producer" } else { "" });
            let complete = scenario.validate().is_ok();
            let mut sim = Simulation::new_in_part(scenario, 3).unwrap_or_else(|e| panic!("{what}: {e}"));
            sim.run_until(SimTime::from_secs_f64(20.0)).unwrap_or_else(|e| panic!("{what}: {e}"));
            sim.check_conservation().unwrap_or_else(|e| panic!("{what}: {e}"));
            let c = sim.scenario().node_index("c").unwrap();
            assert!(sim.stats(c).departed > 100, "{what}: the pipeline serves");
            let stray = sim.scenario().node_index("stray").unwrap();
            if !complete {
                assert!(sim.is_held(stray), "{what} is held");
                assert_eq!((sim.stats(stray).arrived, sim.stats(stray).departed), (0, 0), "{what} stays at zero");
            }
        }
    }
}

/// A client that thinks for a tenth of a nanosecond on average: the clock
/// moves, but by picoseconds, and a simulated second would take billions
/// of events. The watchdog stops it after one window of events, naming
/// the nodes that were busiest, instead of letting it run for days.
#[test]
fn a_clock_that_creeps_is_stopped_with_the_nodes_named() {
    let scenario = graph(
        vec![
            json!({"id": "clients", "kind": "producer",
                   "arrivals": {"process": "closed_loop", "clients": 1, "think": {"dist": "exponential", "mean": 1e-10}}}),
            json!({"id": "server", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0}}),
        ],
        &[("clients", "server")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    let stop = sim.run_until(SimTime::from_secs_f64(1.0)).expect_err("the clock creeps");
    let Stop::Crept(creep) = &stop else { panic!("expected a creep: {stop}") };
    assert!(creep.gained > sluice_engine::SimDuration::ZERO && creep.gained < sluice_engine::simulation::MIN_PROGRESS_PER_WINDOW);
    assert_eq!(creep.events, sluice_engine::simulation::CREEP_WINDOW);
    assert_eq!(creep.nodes.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["clients", "server"]);
    assert!(sim.now() < SimTime::from_secs_f64(1e-3), "{}", sim.now());
    let text = stop.to_string();
    assert!(text.contains("simulated time advanced only") && text.contains("\"clients\""), "{text}");
    // A fast but sound run is not stopped: a nanosecond's service is slow
    // to simulate, not a creep (a window gains milliseconds).
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "closed_loop", "clients": 1, "think": {"dist": "fixed", "value": 1e-9}}}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 1e-9}}),
        ],
        &[("p", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    sim.run_until(SimTime::from_secs_f64(0.01)).expect("a nanosecond a step is slow, not a creep");
}
