//! The arrival processes of producers and the schedules, lifecycle and
//! time-outs of consumers.

mod support;

use sluice_engine::State;
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
    assert_eq!(sim.report().nodes["c"].state, Some(State::ShutDown));
    let c = idx(&sim, "c");
    let phases: Vec<_> = sim.transitions().entries().filter(|t| t.node == c).map(|t| (t.from.as_str(), t.to.as_str())).collect();
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

/// A producer of 50 a second into a mailbox of 200 and an actor that is
/// initializing for 2 s and shuts down at 12 s; `linked` links the
/// producer to the actor.
fn linked_client(linked: bool) -> Simulation {
    let mut p = json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50}});
    if linked {
        p["linked_to"] = json!("actor");
    }
    let scenario = graph(
        vec![
            p,
            json!({"id": "mailbox", "kind": "queue", "capacity": {"messages": 200}}),
            json!({"id": "actor", "kind": "consumer", "workers": 2, "service_time": {"dist": "fixed", "value": 0.01},
                   "lifecycle": {"initializing_s": 2, "shutdown_at_s": 12}}),
        ],
        &[("p", "mailbox"), ("mailbox", "actor")],
    );
    Simulation::new(scenario, 8).unwrap()
}

#[test]
fn a_linked_client_sends_only_while_its_server_is_operational() {
    let mut sim = linked_client(true);
    run_checked(&mut sim, 1.99);
    assert_eq!(made(&sim), 0, "no sending before the link is confirmed");
    run_checked(&mut sim, 11.99);
    let by_shutdown = made(&sim);
    assert!((400..=600).contains(&by_shutdown), "{by_shutdown}");
    run_checked(&mut sim, 30.0);
    assert_eq!(made(&sim), by_shutdown, "the server asked it to unlink");
    assert_eq!(sim.report().nodes["mailbox"].dropped_total, 0);
    let p = idx(&sim, "p");
    let links: Vec<_> = sim.transitions().entries().filter(|t| t.node == p).map(|t| (t.to.as_str(), t.cause.as_str())).collect();
    assert_eq!(links, vec![("linking", "link asked"), ("linked", "link confirmed"), ("unlinked", "server shutting down")]);
    // Not linked, it sends all along, and the mailbox of a shut-down actor
    // overflows.
    let mut sim = linked_client(false);
    run_checked(&mut sim, 30.0);
    assert!(made(&sim) > 1_300);
    assert!(sim.report().nodes["mailbox"].dropped_total > 500);
}

#[test]
fn linking_to_a_server_already_shut_down_stops_at_once() {
    let mut sim = linked_client(false);
    run_checked(&mut sim, 15.0);
    let mut spec = sim.scenario().nodes[0].block.clone();
    if let sluice_engine::BlockSpec::Producer(p) = &mut spec {
        p.linked_to = Some("actor".into());
    }
    sim.reconfigure("p", spec).unwrap();
    let at_link = made(&sim);
    run_checked(&mut sim, 30.0);
    assert!(made(&sim) <= at_link + 1, "made {} after linking", made(&sim) - at_link);
}

/// A supervisor owning two actors; `a` fails to initialize in time when
/// `timeout` is set.
fn supervised(timeout: Option<f64>) -> Simulation {
    let mut a_life = json!({"initializing_s": 3, "supervisor": "sup"});
    if let Some(t) = timeout {
        a_life["init_timeout_s"] = json!(t);
    }
    let scenario = graph(
        vec![
            json!({"id": "pa", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 20}, "linked_to": "a"}),
            json!({"id": "pb", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 20}, "linked_to": "b"}),
            json!({"id": "a", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01}, "lifecycle": a_life}),
            json!({"id": "b", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.5},
                   "lifecycle": {"initializing_s": 1, "supervisor": "sup"}}),
            json!({"id": "sup", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01},
                   "lifecycle": {"initializing_s": 0, "shutdown_at_s": 10}}),
        ],
        &[("pa", "a"), ("pb", "b")],
    );
    Simulation::new(scenario, 8).unwrap()
}

fn phases_of(sim: &Simulation, id: &str) -> Vec<(&'static str, &'static str)> {
    let n = idx(sim, id);
    sim.transitions().entries().filter(|t| t.node == n).map(|t| (t.to.as_str(), t.cause.as_str())).collect()
}

#[test]
fn a_supervisor_shutting_down_takes_its_children_with_it() {
    let mut sim = supervised(None);
    run_checked(&mut sim, 30.0);
    for child in ["a", "b"] {
        assert!(phases_of(&sim, child).contains(&("ShuttingDown", "supervisor shutting down")), "{child}");
        assert_eq!(sim.report().nodes[child].state, Some(State::ShutDown));
    }
    assert_eq!(sim.report().nodes["sup"].state, Some(State::ShutDown));
    // The linked producers stopped when their servers shut down.
    assert!(sim.report().nodes["pb"].arrived < 20 * 10);
}

#[test]
fn an_actor_that_fails_to_initialize_brings_its_supervisor_down() {
    let mut sim = supervised(Some(1.5));
    run_checked(&mut sim, 30.0);
    // a gives up at 1.5 s, never operational...
    let a = phases_of(&sim, "a");
    assert!(a.contains(&("ShuttingDown", "init timed out")), "{a:?}");
    assert!(!a.iter().any(|(to, _)| *to == "Operational"), "{a:?}");
    assert_eq!(sim.report().nodes["a"].departed, 0);
    // ...the failure goes up to the supervisor, which takes b down with it,
    // long before its own shutdown at 10 s.
    assert!(phases_of(&sim, "sup").contains(&("ShuttingDown", "child failed to initialize")));
    assert!(phases_of(&sim, "b").contains(&("ShuttingDown", "supervisor shutting down")));
    assert!(sim.report().nodes["b"].departed <= 2, "b served {}", sim.report().nodes["b"].departed);
    // The supervisor is shut down only once b has finished what it held.
    let sup = idx(&sim, "sup");
    let b = idx(&sim, "b");
    let at = |n: usize, to: &str| sim.transitions().entries().find(|t| t.node == n && t.to.as_str() == to).map(|t| t.time).unwrap();
    assert!(at(sup, "ShutDown") >= at(b, "ShutDown"));
}

/// Jobs, 30 a second, through a queue and a concurrency limiter of 4 to
/// workers taking about 0.1 s, cut off at 0.15 s and tried again up to 3
/// times, `on_timeout` saying how.
fn throttled_jobs(on_timeout: &str) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 30}}),
            json!({"id": "jobs", "kind": "queue"}),
            json!({"id": "limit", "kind": "concurrency_limiter", "max_in_flight": 4}),
            json!({"id": "c", "kind": "consumer", "workers": 16, "service_time": {"dist": "exponential", "mean": 0.1},
                   "timeout_s": 0.15, "max_retries": 3, "on_timeout": on_timeout}),
        ],
        &[("p", "jobs"), ("jobs", "limit"), ("limit", "c")],
    );
    let mut sim = Simulation::new(scenario, 12).unwrap();
    run_checked(&mut sim, 200.0);
    sim
}

#[test]
fn a_requeued_job_frees_its_worker_and_passes_the_limiters_again() {
    let requeue = throttled_jobs("requeue");
    let r = requeue.report();
    let made = r.nodes["p"].departed as f64;
    // About one job in five runs past 0.15 s (e^-1.5): cut off, its slot
    // freed, it goes back to the queue and through the limiter again, so
    // the queue sends about 1/(1 - 0.22) times what came in.
    let passes = r.nodes["jobs"].departed as f64 / made;
    assert!(passes > 1.2 && passes < 1.35, "{passes} passes a job");
    assert_eq!(r.nodes["limit"].departed, r.nodes["jobs"].departed);
    // The limiter never counts more than its 4, retries included.
    assert!(max_depth(&requeue, "limit") <= 4);
    // Almost all finish; those cut off four times are dropped.
    let timed_out = r.nodes["c"].dropped.get("timed_out").copied().unwrap_or(0) as f64;
    assert!(timed_out / made < 0.01, "{timed_out} timed out");
    // Retried in place, a job passes the queue and the limiter once.
    let in_place = throttled_jobs("retry").report();
    assert_eq!(in_place.nodes["jobs"].departed, in_place.nodes["limit"].departed);
    assert!((in_place.nodes["jobs"].departed as f64) < 1.01 * in_place.nodes["p"].departed as f64);
}

/// Clients waiting behind a full block are woken one at a time as it takes
/// their requests: a delivered message costs a few events, however many
/// clients wait (waking every one cost one event per client).
#[test]
fn a_wake_costs_the_same_for_ten_clients_or_ten_thousand() {
    let per_delivery = |clients: u32| {
        let scenario = graph(
            vec![
                json!({"id": "p", "kind": "producer", "arrivals": {"process": "closed_loop", "clients": clients,
                       "think": {"dist": "fixed", "value": 0}}}),
                json!({"id": "one", "kind": "concurrency_limiter", "max_in_flight": 1}),
                json!({"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01}}),
            ],
            &[("p", "one"), ("one", "c")],
        );
        let mut sim = Simulation::new(scenario, 1).unwrap();
        run_checked(&mut sim, 1.0);
        let (events, delivered) = (sim.events(), sim.report().nodes["c"].departed);
        run_checked(&mut sim, 11.0);
        let delivered_since = sim.report().nodes["c"].departed - delivered;
        assert!((990..=1010).contains(&delivered_since), "{clients} clients: {delivered_since} delivered");
        (sim.events() - events) as f64 / delivered_since as f64
    };
    let few = per_delivery(10);
    let many = per_delivery(10_000);
    assert!(many < few + 2.0 && many < 10.0, "events per delivered message: {few} with 10 clients, {many} with 10,000");
}

/// A log's service times: with `Logged`, each replayed request takes at
/// the consumer exactly what it took in the log; with `Empirical`, times
/// drawn from the log's (their mean, not their order); with `Scenario`,
/// the consumer's own; and a file without them cannot serve.
#[test]
fn a_replayed_log_serves_each_request_for_the_time_it_took() {
    use sluice_engine::scenario::ServiceTimes;
    use sluice_engine::replay::Replay;
    let scenario = || {
        support::pipeline(
            json!({"arrivals": {"process": "constant", "rate_per_s": 1}}),
            json!({}),
            json!({"workers": 1, "service_time": {"dist": "fixed", "value": 0.3}}),
        )
    };
    let sojourn = |csv: &str, service: ServiceTimes| {
        let replay = Replay::read(csv.as_bytes()).unwrap();
        let mut sim = Simulation::replaying_with(scenario(), 1, None, replay, service).unwrap();
        sim.run_until(sluice_engine::SimTime::from_secs_f64(10_000.0)).unwrap();
        let report = sim.report();
        let c = report.nodes.values().find(|n| n.kind == sluice_engine::scenario::Kind::Consumer).unwrap().clone();
        (c.departed, c.mean_sojourn_s.unwrap())
    };
    // A second apart, each shorter than that: nothing waits.
    let log = "0,a,0.2\n1,b,0.05\n2,c,0.7\n3,d,0.1\n";
    let (n, mean) = sojourn(log, ServiceTimes::Log);
    assert_eq!(n, 4);
    assert!((mean - 1.05 / 4.0).abs() < 1e-9, "{mean}");
    assert!((sojourn(log, ServiceTimes::Scenario).1 - 0.3).abs() < 1e-9);
    // 2,000 lines, a tenth of a second and half a second in turn: their
    // empirical mean is 0.3 s, whatever order they are drawn in.
    let long: String = (0..2000).map(|i| format!("{i},k,{}\n", if i % 2 == 0 { "0.1" } else { "0.5" })).collect();
    let (n, mean) = sojourn(&long, ServiceTimes::Empirical);
    assert_eq!(n, 2000);
    assert!((mean - 0.3).abs() < 0.02 && (mean - 0.3).abs() > 1e-9, "{mean}: drawn, so near 0.3 but not exactly");
    let plain = Replay::read("0,a\n1,b\n".as_bytes()).unwrap();
    let refused = Simulation::replaying_with(scenario(), 1, None, plain, ServiceTimes::Log).err().unwrap();
    assert_eq!(refused.to_string(), "the file gives no service times to serve with (a CSV's third column, service_s)");
}

/// A trace that carries its keys and service times in the scenario (what
/// dropping a log on the page makes) runs exactly as the same lines
/// replayed from a file with `sluice run --arrivals --service-times`.
#[test]
fn a_trace_with_keys_and_service_times_runs_as_the_same_file_replayed() {
    use sluice_engine::scenario::ServiceTimes;
    use sluice_engine::replay::Replay;
    let lines: Vec<(f64, &str, f64)> = (0..400).map(|i| (f64::from(i) / 20.0, ["a", "b", "", "c"][i as usize % 4], [0.02, 0.3, 0.07][i as usize % 3])).collect();
    let csv: String = lines.iter().map(|(t, k, s)| format!("{t},{k},{s}\n")).collect();
    let scenario = |arrivals: Value| {
        let doc = json!({"version": 1, "nodes": [
            {"id": "p", "kind": "producer", "arrivals": arrivals},
            {"id": "l", "kind": "product_limiter", "product": "nginx_limit_req", "rate": 4, "burst": 2, "nodelay": true, "status": 429, "key": "$binary_remote_addr"},
            {"id": "q", "kind": "queue"},
            {"id": "c", "kind": "consumer", "workers": 2, "service_time": {"dist": "fixed", "value": 0.2}}
        ], "edges": [{"from": "p", "to": "l"}, {"from": "l", "to": "q"}, {"from": "q", "to": "c"}]});
        sluice_engine::Scenario::from_value(doc).unwrap()
    };
    for service in [ServiceTimes::Log, ServiceTimes::Empirical, ServiceTimes::Scenario] {
        let name = serde_json::to_value(service).unwrap();
        let trace = json!({"process": "trace", "times_s": lines.iter().map(|l| l.0).collect::<Vec<_>>(),
            "keys": lines.iter().map(|l| l.1).collect::<Vec<_>>(), "service_s": lines.iter().map(|l| l.2).collect::<Vec<_>>(), "service_times": name});
        let mut from_scenario = Simulation::new(scenario(trace), 7).unwrap();
        let replay = Replay::read(csv.as_bytes()).unwrap();
        let mut from_file = Simulation::replaying_with(scenario(json!({"process": "constant", "rate_per_s": 1})), 7, None, replay, service).unwrap();
        let end = sluice_engine::SimTime::from_secs_f64(60.0);
        from_scenario.run_until(end).unwrap();
        from_file.run_until(end).unwrap();
        let (a, b) = (serde_json::to_value(from_scenario.report()).unwrap(), serde_json::to_value(from_file.report()).unwrap());
        assert_eq!(a, b, "{name}");
        // Three keys sending 5 a second each to a limit of 4 a second a
        // key (burst 2) lose about one a second each over 20 s; messages
        // with no key are not counted (nginx skips an empty key). One
        // shared key would lose about 320 of the 400.
        let refused = a["nodes"]["l"]["dropped_total"].as_u64().unwrap();
        assert!((45..=75).contains(&refused), "{name}: {refused} refused");
    }
}

/// A trace's keys and service times are checked against its instants,
/// each error naming its field.
#[test]
fn a_traces_keys_and_service_times_must_match_its_instants() {
    let refused = |arrivals: Value| {
        let doc = json!({"version": 1, "nodes": [{"id": "p", "kind": "producer", "arrivals": arrivals}, {"id": "c", "kind": "consumer"}], "edges": [{"from": "p", "to": "c"}]});
        sluice_engine::Scenario::from_value(doc).err().map(|e| e.to_string()).unwrap_or_default()
    };
    let e = refused(json!({"process": "trace", "times_s": [0.1, 0.2], "keys": ["a"]}));
    assert!(e.contains("nodes[0].arrivals.keys") && e.contains("gives 1 keys for 2 instants"), "{e}");
    let e = refused(json!({"process": "trace", "times_s": [0.1, 0.2], "service_s": [0.1, -1]}));
    assert!(e.contains("nodes[0].arrivals.service_s[1]"), "{e}");
    let e = refused(json!({"process": "trace", "times_s": [0.1], "service_times": "log"}));
    assert!(e.contains("nodes[0].arrivals.service_times") && e.contains("service_s"), "{e}");
    let e = refused(json!({"process": "trace", "times_s": [0.1], "keys": [7]}));
    assert!(e.contains("nodes[0].arrivals") && e.contains("string"), "{e}");
    // Written back as it was read: one key a message, the lists shared.
    let doc = json!({"process": "trace", "times_s": [0.1, 0.2, 0.3], "keys": ["x", "", "x"], "service_s": [0.5, 0.25, 1], "service_times": "empirical"});
    let read: sluice_engine::scenario::Arrivals = serde_json::from_value(doc.clone()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), json!({"process": "trace", "times_s": [0.1, 0.2, 0.3], "keys": ["x", "", "x"], "service_s": [0.5, 0.25, 1.0], "service_times": "empirical"}));
}

/// The page's shadow panel counts, as the run goes, what `--shadow` counts
/// from every decision: the same keys refused most, the same numbers, and
/// refusals in the ten seconds their requests were made in.
#[test]
fn a_runs_tally_of_decisions_by_key_is_the_shadow_replays() {
    let times: Vec<f64> = (0..400).map(|i| f64::from(i) / 20.0).collect();
    let keys: Vec<&str> = (0..400).map(|i| ["a", "b", "a", "c"][i % 4]).collect();
    let doc = json!({"version": 1, "nodes": [
        {"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": times, "keys": keys}},
        {"id": "l", "kind": "product_limiter", "product": "nginx_limit_req", "rate": 4, "burst": 2, "nodelay": true, "status": 429, "key": "$binary_remote_addr"},
        {"id": "c", "kind": "consumer", "workers": 8, "service_time": {"dist": "fixed", "value": 0.01}}
    ], "edges": [{"from": "p", "to": "l"}, {"from": "l", "to": "c"}]});
    let scenario = sluice_engine::Scenario::from_value(doc).unwrap();
    let mut sim = Simulation::new(scenario, 1).unwrap();
    sim.tally_decisions();
    sim.record_decisions();
    sim.run_until(sluice_engine::SimTime::from_secs_f64(30.0)).unwrap();
    let mut shadow = sluice_engine::shadow::Shadow::new(0);
    shadow.add(&sim.take_decisions());
    let tally = sim.tally().unwrap();
    let most: Vec<(String, u64)> = tally.most_refused(5).iter().map(|(k, c)| (sim.key_name(*k), c.refused)).collect();
    let expected: Vec<(String, u64)> = shadow.most_refused(5).iter().map(|(k, n)| (sim.key_name(*k), *n)).collect();
    assert_eq!(most, expected);
    // a sends 10 a second to a limit of 4 (burst 2): about 6 a second
    // refused over 20 s; b and c send 5 a second: about 1 a second.
    assert_eq!(most.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert!((100..=130).contains(&most[0].1) && (14..=26).contains(&most[1].1), "{most:?}");
    let by_minute: u64 = shadow.refused_by_minute().iter().map(|(_, n)| n).sum();
    assert_eq!(tally.refused_by(10, 200).1.iter().map(|(_, n)| n).sum::<u64>(), by_minute);
    assert_eq!(tally.total().refused + tally.total().admitted + tally.total().delayed, 400);
}

/// Beside a trace's keys, a producer's generated keys cannot grow while
/// running (the trace's keys are numbered after them when the run
/// starts): the change is refused, and the page starts the run again.
#[test]
fn generated_keys_cannot_grow_live_beside_a_traces_keys() {
    let doc = json!({"version": 1, "nodes": [
        {"id": "log", "kind": "producer", "arrivals": {"process": "trace", "times_s": [0.5, 1.0], "keys": ["10.0.0.1", "10.0.0.2"]}},
        {"id": "gen", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 5}, "keys": 2},
        {"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01}}
    ], "edges": [{"from": "log", "to": "c"}, {"from": "gen", "to": "c"}]});
    let scenario = sluice_engine::Scenario::from_value(doc).unwrap();
    let mut sim = Simulation::new(scenario.clone(), 1).unwrap();
    let with_keys = |keys: u32| {
        let mut block = scenario.nodes[1].block.clone();
        if let sluice_engine::BlockSpec::Producer(p) = &mut block {
            p.keys = Some(keys);
        }
        block
    };
    let refused = sim.reconfigure("gen", with_keys(5)).unwrap_err().to_string();
    assert!(refused.contains("nodes[1].keys") && refused.contains("start the run again"), "{refused}");
    sim.reconfigure("gen", with_keys(1)).unwrap();
    sim.run_until(sluice_engine::SimTime::from_secs_f64(2.0)).unwrap();
    assert_eq!((sim.key_name(3), sim.key_name(4)), ("10.0.0.1".to_string(), "10.0.0.2".to_string()));
}
