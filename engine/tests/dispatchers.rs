//! Dispatchers: SObjectizer's demand queues, Moment's DeferredProcessor and
//! Gfarm's netsendq (MECHANISMS.md §1, §2, §5).

mod support;

use serde_json::{json, Value};
use sluice_engine::Simulation;
use support::*;

fn producer(id: &str, arrivals: Value, class: &str, destination: Option<&str>) -> Value {
    let mut c = json!({"name": class});
    if let Some(d) = destination {
        c["destination"] = json!(d);
    }
    json!({"id": id, "kind": "producer", "arrivals": arrivals, "classes": [c]})
}

fn poisson(rate: f64) -> Value {
    json!({"process": "poisson", "rate_per_s": rate})
}

fn sink(id: &str) -> Value {
    json!({"id": id, "kind": "consumer", "workers": 1000, "service_time": {"dist": "fixed", "value": 0.0}})
}

/// Alice sends bursts at `burst` per second, Bob a trickle; one worker
/// serves both agents; the served demands are split per agent to measure
/// each one's latency.
fn alice_and_bob(dispatcher: Value, burst: f64) -> (f64, f64) {
    let mut d = dispatcher;
    d["id"] = json!("disp");
    d["kind"] = json!("dispatcher");
    let scenario = graph(
        vec![
            producer("alice", json!({"process": "on_off", "rate_per_s": burst, "on_s": 1, "off_s": 4}), "to_alice", None),
            producer("bob", poisson(10.0), "to_bob", None),
            d,
            json!({"id": "split", "kind": "router", "policy": "by_class",
                   "classes": {"to_alice": "alice_done", "to_bob": "bob_done"}}),
            sink("alice_done"),
            sink("bob_done"),
        ],
        &[("alice", "disp"), ("bob", "disp"), ("disp", "split"), ("split", "alice_done"), ("split", "bob_done")],
    );
    let mut sim = Simulation::new(scenario, 14).unwrap();
    run_checked(&mut sim, 200.0);
    let r = sim.report();
    (r.nodes["alice_done"].mean_sojourn_s.unwrap(), r.nodes["bob_done"].mean_sojourn_s.unwrap())
}

#[test]
fn separate_agent_queues_lose_global_fifo_and_spare_the_quiet_agent() {
    // One worker at 0.005 s per demand (200/s): Alice's bursts of 400/s for
    // a second build a backlog of about 200 demands each time.
    let service = json!({"dist": "fixed", "value": 0.005});
    let (_, bob_shared) = alice_and_bob(json!({"queues": "shared", "service_time": service}), 400.0);
    let (_, bob_round_robin) = alice_and_bob(json!({"queues": "per_input", "service_time": service}), 400.0);
    // One shared queue keeps global FIFO: Bob waits behind Alice's backlog.
    // Round-robin over the non-empty queues: a demand sent to Bob later is
    // handled before Alice's earlier ones, and Bob hardly waits.
    assert!(bob_round_robin < 0.02, "Bob, round robin: {bob_round_robin}");
    assert!(bob_shared > 10.0 * bob_round_robin, "Bob, shared: {bob_shared}, round robin {bob_round_robin}");
}

#[test]
fn agent_priorities_serve_the_high_agent_first() {
    // Alice's bursts (180/s) fit in the worker's 200/s only just; Bob's 10/s
    // must wait for the gaps.
    let service = json!({"dist": "fixed", "value": 0.005});
    let (alice_hi, bob_lo) = alice_and_bob(json!({"queues": "per_input", "discipline": "priority",
        "queue_priorities": {"alice": 0, "bob": 1}, "service_time": service}), 180.0);
    let (alice_lo, bob_hi) = alice_and_bob(json!({"queues": "per_input", "discipline": "priority",
        "queue_priorities": {"alice": 1, "bob": 0}, "service_time": service}), 180.0);
    // Whoever has priority never waits behind the other.
    assert!(bob_hi < 0.01, "Bob first: {bob_hi}");
    assert!(bob_lo > 3.0 * bob_hi, "Bob last: {bob_lo}, first: {bob_hi}");
    assert!(alice_hi < alice_lo, "Alice first: {alice_hi}, last: {alice_lo}");
}

#[test]
fn fixed_size_and_time_to_live_bound_the_wait() {
    let service = json!({"dist": "fixed", "value": 0.01});
    let scenario = graph(
        vec![
            producer("p", poisson(300.0), "m", None),
            json!({"id": "disp", "kind": "dispatcher", "service_time": service, "capacity": 50, "on_full": "drop_oldest",
                   "ttl_s": 0.25}),
            sink("done"),
        ],
        &[("p", "disp"), ("disp", "done")],
    );
    let mut sim = Simulation::new(scenario, 2).unwrap();
    run_checked(&mut sim, 100.0);
    assert!(max_depth(&sim, "disp") <= 50);
    let r = sim.report();
    // Nothing served waited longer than its 250 ms time-to-live.
    let s = sim.stats(idx(&sim, "disp"));
    assert!(s.residence_sum_s() / s.departed as f64 <= 0.25);
    assert!(r.nodes["disp"].dropped["overflow"] + r.nodes["disp"].dropped["expired"] > 10_000);
}

#[test]
fn an_expired_demand_is_skipped_when_extracted_and_holds_its_place_until_then() {
    // One worker needs a second per demand; a queue of 5 that refuses; a
    // time-to-live of 0.1 s. The expired demands keep their places until
    // the worker reaches them, so the sender stays refused between
    // extractions: about 5 expire a second, not 5 every 0.1 s.
    let scenario = graph(
        vec![
            producer("p", poisson(100.0), "m", None),
            json!({"id": "disp", "kind": "dispatcher", "service_time": {"dist": "fixed", "value": 1.0},
                   "capacity": 5, "on_full": "refuse", "ttl_s": 0.1}),
            sink("done"),
        ],
        &[("p", "disp"), ("disp", "done")],
    );
    let mut sim = Simulation::new(scenario, 4).unwrap();
    run_checked(&mut sim, 100.0);
    let r = sim.report();
    let expired = r.nodes["disp"].dropped["expired"];
    assert!((300..=600).contains(&expired), "expired: {expired}");
    // A worker skipping expired demands finds the next one at no cost:
    // it is never idle while something fresh waits, and serves almost one
    // a second.
    assert!(r.nodes["disp"].departed >= 95, "served: {}", r.nodes["disp"].departed);
    // The queue stayed full: the expired demands held their places.
    assert_eq!(max_depth(&sim, "disp"), 5);
}

/// Messages to two agents, `rate` a second each, through a dispatcher with
/// `workers` threads; returns each agent's served rate.
fn two_agents(queues: &str, workers: u32, rate: f64) -> (f64, f64) {
    let scenario = graph(
        vec![
            json!({"id": "src", "kind": "producer", "arrivals": poisson(2.0 * rate),
                   "classes": [{"name": "to_alice", "destination": "alice"}, {"name": "to_bob", "destination": "bob"}]}),
            json!({"id": "disp", "kind": "dispatcher", "queues": queues, "workers": workers,
                   "service_time": {"dist": "fixed", "value": 0.01}, "capacity": 100}),
            json!({"id": "split", "kind": "router", "policy": "by_destination"}),
            sink("alice"),
            sink("bob"),
        ],
        &[("src", "disp"), ("disp", "split"), ("split", "alice"), ("split", "bob")],
    );
    let mut sim = Simulation::new(scenario, 6).unwrap();
    run_checked(&mut sim, 60.0);
    let r = sim.report();
    (r.nodes["alice"].departed as f64 / 60.0, r.nodes["bob"].departed as f64 / 60.0)
}

#[test]
fn an_agent_is_single_threaded_whatever_the_workers() {
    // 10 ms a demand: one agent can do at most 100 a second, however many
    // threads the dispatcher has. Each agent is sent 200 a second.
    let (alice, bob) = two_agents("per_destination", 4, 200.0);
    // Never two demands of one agent at once...
    assert!(alice <= 101.0 && bob <= 101.0, "per destination: alice {alice}, bob {bob}");
    // ...but two agents run side by side on two threads.
    assert!(alice >= 95.0 && bob >= 95.0, "per destination: alice {alice}, bob {bob}");
    // A shared queue keeps global FIFO: when its next demand's agent is
    // busy, the demand behind it for the other agent waits too.
    let (alice, bob) = two_agents("shared", 4, 200.0);
    assert!(alice <= 101.0 && bob <= 101.0, "shared: alice {alice}, bob {bob}");
    assert!(alice + bob > 120.0 && alice + bob < 190.0, "shared: alice {alice}, bob {bob}");
    // With one thread the two agents share it.
    let (alice, bob) = two_agents("per_destination", 1, 200.0);
    assert!(alice + bob <= 101.0, "one thread: alice {alice}, bob {bob}");
}

/// An event loop with deferred tasks arriving fast and I/O events arriving
/// slowly; returns the I/O events' mean latency.
fn event_loop(iteration: &str) -> f64 {
    let scenario = graph(
        vec![
            producer("deferred", poisson(95.0), "task", None),
            producer("io", poisson(2.0), "io", None),
            json!({"id": "loop", "kind": "dispatcher", "discipline": "event_loop", "iteration": iteration,
                   "service_time": {"dist": "exponential", "mean": 0.01}}),
            json!({"id": "split", "kind": "router", "policy": "by_class", "classes": {"task": "tasks_done", "io": "io_done"}}),
            sink("tasks_done"),
            sink("io_done"),
        ],
        &[("deferred", "loop"), ("io", "loop"), ("loop", "split"), ("split", "tasks_done"), ("split", "io_done")],
    );
    let mut sim = Simulation::new(scenario, 9).unwrap();
    run_checked(&mut sim, 400.0);
    sim.report().nodes["io_done"].mean_sojourn_s.unwrap()
}

#[test]
fn processing_only_the_snapshot_keeps_the_event_loop_fair() {
    let all = event_loop("all");
    let snapshot = event_loop("snapshot");
    // Emptying the task queue, new tasks included, before looking at I/O
    // starves I/O whenever tasks keep coming; the snapshot rule bounds it
    // to about one iteration.
    assert!(all > 5.0 * snapshot, "all {all}, snapshot {snapshot}");
    assert!(snapshot < 0.5, "{snapshot}");
}

/// Moment's DeferredProcessor keeps a list of registrations: a task that is
/// scheduled again while it still waits is not queued twice.
#[test]
fn a_task_is_registered_at_most_once() {
    let run = |register_once: bool| {
        let scenario = graph(
            vec![
                json!({"id": "conns", "kind": "producer", "arrivals": poisson(200.0), "classes": [
                    {"name": "c1"}, {"name": "c2"}, {"name": "c3"}]}),
                json!({"id": "loop", "kind": "dispatcher", "discipline": "event_loop", "register_once": register_once,
                       "service_time": {"dist": "fixed", "value": 0.01}}),
                sink("done"),
            ],
            &[("conns", "loop"), ("loop", "done")],
        );
        let mut sim = Simulation::new(scenario, 5).unwrap();
        run_checked(&mut sim, 60.0);
        let depth = max_depth(&sim, "loop");
        let at = idx(&sim, "loop");
        let lost = sluice_engine::Mark::of(&sim, at).since(&sluice_engine::Mark::default()).lost();
        (depth, sim.report(), lost)
    };
    // Three tasks, scheduled 200 times a second, served 100 a second: held
    // once each, at most three wait; the rest join the waiting run.
    let (depth, r, lost) = run(true);
    assert!(depth <= 3, "{depth}");
    let merged = r.nodes["loop"].dropped.get("merged").copied().unwrap_or(0);
    assert!(merged > 5_000, "{merged}");
    assert_eq!(r.nodes["loop"].dropped_total, merged, "nothing else is dropped");
    // A merge loses no work: it is not a drop in the drop probability that
    // lessons and sweeps measure.
    assert_eq!(lost, 0);
    // Without it, every scheduling waits its turn and the backlog grows.
    let (depth, r, _) = run(false);
    assert!(depth > 1_000, "{depth}");
    assert_eq!(r.nodes["loop"].dropped.get("merged").copied().unwrap_or(0), 0);
}

fn netsendq(hosts_down: Value) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "mds", "kind": "producer", "arrivals": poisson(60.0), "classes": [
                {"name": "replicate", "weight": 3, "destination": "host_a"},
                {"name": "remove", "weight": 2, "destination": "host_a"},
                {"name": "status", "weight": 1, "destination": "host_a"},
                {"name": "replicate", "weight": 3, "destination": "host_b"}
            ]}),
            json!({"id": "sendq", "kind": "dispatcher", "discipline": "netsendq", "workers": 2,
                   "service_time": {"dist": "fixed", "value": 0.001},
                   "windows": {"replicate": 2, "remove": 4, "status": 1},
                   "one_shot": ["status"], "queueable_if_down": ["remove"], "hosts_down": hosts_down}),
            json!({"id": "to_host", "kind": "router", "policy": "by_destination"}),
            json!({"id": "host_a", "kind": "consumer", "workers": 8, "service_time": {"dist": "exponential", "mean": 0.05}}),
            json!({"id": "host_b", "kind": "consumer", "workers": 8, "service_time": {"dist": "exponential", "mean": 0.05}}),
        ],
        &[("mds", "sendq"), ("sendq", "to_host"), ("to_host", "host_a"), ("to_host", "host_b")],
    );
    Simulation::new(scenario, 3).unwrap()
}

#[test]
fn netsendq_keeps_per_type_windows_per_host() {
    let mut sim = netsendq(json!([]));
    let (a, b) = (idx(&sim, "host_a"), idx(&sim, "host_b"));
    for k in 1..=3000 {
        run_checked(&mut sim, k as f64 * 0.01);
        // host_a: at most 2 replications + 4 removals + 1 status in flight;
        // host_b: at most 2 replications.
        assert!(sim.stats(a).in_service <= 7, "{}", sim.stats(a).in_service);
        assert!(sim.stats(b).in_service <= 2, "{}", sim.stats(b).in_service);
    }
    // Replication to host_b: 20/s asked, up to 40/s allowed by 2 in flight
    // of 0.05 s: nearly all 600 get through.
    assert!(sim.report().nodes["host_b"].departed > 540, "{}", sim.report().nodes["host_b"].departed);
}

#[test]
fn a_host_going_down_fails_what_cannot_wait_and_keeps_what_can() {
    let mut sim = netsendq(json!([{"host": "host_a", "from_s": 10, "to_s": 20}]));
    run_checked(&mut sim, 9.999);
    let under_way = sim.stats(idx(&sim, "host_a")).in_service;
    assert!(under_way > 0, "RPCs are under way at host_a when it goes down");
    let a_done = sim.report().nodes["host_a"].departed;
    run_checked(&mut sim, 10.5);
    let failed = sim.report().nodes["sendq"].dropped.get("host_down").copied().unwrap_or(0);
    assert!(failed > 0, "replications and status probes to a down host fail");
    run_checked(&mut sim, 19.9);
    // The RPCs under way fail with it (or wait again, if queueable): a
    // down host finishes none.
    assert_eq!(sim.report().nodes["host_a"].departed, a_done, "a down host processes nothing");
    assert_eq!(sim.stats(idx(&sim, "host_a")).in_service, 0);
    // Removals were kept: they wait in the dispatcher and go when it is up.
    let waiting = sim.report().nodes["sendq"].depth_messages;
    assert!(waiting > 100, "{waiting} removals kept");
    run_checked(&mut sim, 40.0);
    assert!(sim.report().nodes["sendq"].depth_messages < 20, "sent once the host is up");
    assert!(sim.report().nodes["host_b"].departed > 720, "host_b was never affected");
}

/// Status probes to one busy host among bulk replications; returns the
/// probes' mean latency.
fn probe_latency(one_shot: bool) -> f64 {
    let one_shot: Vec<&str> = if one_shot { vec!["status"] } else { vec![] };
    let scenario = graph(
        vec![
            json!({"id": "mds", "kind": "producer", "arrivals": poisson(95.0), "classes": [
                {"name": "replicate", "weight": 8, "destination": "host"},
                {"name": "status", "weight": 1, "destination": "host"}
            ]}),
            json!({"id": "sendq", "kind": "dispatcher", "discipline": "netsendq",
                   "service_time": {"dist": "fixed", "value": 0.01},
                   "windows": {"replicate": 50, "status": 1}, "one_shot": one_shot}),
            json!({"id": "host", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0.001}}),
            json!({"id": "split", "kind": "router", "policy": "by_class", "classes": {"replicate": "bulk_done", "status": "probe_done"}}),
            sink("bulk_done"),
            sink("probe_done"),
        ],
        &[("mds", "sendq"), ("sendq", "host"), ("host", "split"), ("split", "bulk_done"), ("split", "probe_done")],
    );
    let mut sim = Simulation::new(scenario, 17).unwrap();
    run_checked(&mut sim, 300.0);
    sim.report().nodes["probe_done"].mean_sojourn_s.unwrap()
}

#[test]
fn one_shot_probes_jump_the_host_ready_queue() {
    // One send at a time to the host at 10 ms each: 95 a second keeps its
    // ready queue long (M/D/1 at ρ = 0.95: about 0.1 s of waiting). Status
    // probes in time order wait behind it; marked one-shot they go to the
    // head and wait only for the send under way.
    let in_order = probe_latency(false);
    let one_shot = probe_latency(true);
    assert!(in_order > 3.0 * one_shot, "in order {in_order}, one-shot {one_shot}");
}

/// A netsendq dispatcher that is itself the end of the line: the message
/// is processed by its own workers, so the reply is at once. It once never
/// heard one, its windows stayed full, and 2 of 1,159 were delivered in 60 s.
/// It must deliver like the same dispatcher followed by a consumer that
/// takes no time.
#[test]
fn a_netsendq_without_an_output_hears_its_replies() {
    let run = |with_consumer: bool| {
        let mut nodes = vec![
            json!({"id": "mds", "kind": "producer", "arrivals": poisson(20.0), "classes": [
                {"name": "replicate", "weight": 3, "destination": "sendq"},
                {"name": "status", "weight": 1, "destination": "sendq"}
            ]}),
            json!({"id": "sendq", "kind": "dispatcher", "discipline": "netsendq", "workers": 2,
                   "service_time": {"dist": "exponential", "mean": 0.01},
                   "windows": {"replicate": 2, "status": 1}}),
        ];
        let mut edges = vec![("mds", "sendq")];
        if with_consumer {
            nodes.push(json!({"id": "done", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0}}));
            edges.push(("sendq", "done"));
        }
        let mut sim = Simulation::new(graph(nodes, &edges), 5).unwrap();
        run_checked(&mut sim, 60.0);
        sim.totals()
    };
    let (alone, followed) = (run(false), run(true));
    assert!(alone.delivered > 1_100, "{alone:?}");
    assert_eq!(alone.delivered, followed.delivered);
    assert_eq!(alone.produced, followed.produced);
}

#[test]
fn demands_skipped_as_expired_leave_the_depth_gauge() {
    // Three demands at once, one worker busy 1 s with the first; the other
    // two expire (0.5 s) and are skipped when the worker comes for them:
    // nothing waits from then on, and the gauge says so.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": [0.0, 0.0, 0.0]}}),
            json!({"id": "d", "kind": "dispatcher", "ttl_s": 0.5, "service_time": {"dist": "fixed", "value": 1.0}}),
            sink("done"),
        ],
        &[("p", "d"), ("d", "done")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 0.9);
    let d = idx(&sim, "d");
    assert_eq!(sim.stats(d).depth_messages.value(), 2);
    run_checked(&mut sim, 5.0);
    assert_eq!(sim.report().nodes["d"].dropped.get("expired").copied(), Some(2));
    assert_eq!(sim.stats(d).depth_messages.value(), 0, "the gauge still counts the skipped demands");
}

/// One agent's two message types, hello and bye, 100 a second each and
/// addressed to no one, through a dispatcher with per-class queues, two
/// threads and `agents`; returns the demands served a second.
fn one_agents_two_classes(agents: &str) -> f64 {
    let scenario = graph(
        vec![
            json!({"id": "src", "kind": "producer", "arrivals": poisson(200.0),
                   "classes": [{"name": "hello"}, {"name": "bye"}]}),
            json!({"id": "her", "kind": "dispatcher", "queues": "per_class", "workers": 2, "agents": agents,
                   "service_time": {"dist": "fixed", "value": 0.01}, "capacity": 100}),
        ],
        &[("src", "her")],
    );
    let mut sim = Simulation::new(scenario, 6).unwrap();
    run_checked(&mut sim, 60.0);
    sim.report().nodes["her"].departed as f64 / 60.0
}

#[test]
fn per_class_queues_of_one_agent_never_run_two_of_her_demands_at_once() {
    // A class is not an agent: hello and bye are both hers, so two
    // threads still run one of her demands at a time, 100 a second at
    // 10 ms each.
    let served = one_agents_two_classes("by_destination");
    assert!((95.0..=101.0).contains(&served), "by destination: {served}/s");
    // Said otherwise: one agent per queue (a handler per message type)
    // runs both at once, and independent demands fill both threads too.
    for agents in ["per_queue", "independent"] {
        let served = one_agents_two_classes(agents);
        assert!(served > 150.0, "{agents}: {served}/s");
    }
}

fn trace(times: &[f64]) -> Value {
    json!({"process": "trace", "times_s": times})
}

/// A netsendq dispatcher sending for `senders` (producers of one class to
/// one host each, as `producer` makes them) to `host_a` and `host_b`,
/// whose workers take `host_s` seconds an RPC; each host passes what it
/// did on, split by class, to sinks named after the classes (`<class>_done`).
fn netsendq_to_two_hosts(senders: Vec<Value>, classes: &[&str], dispatcher: Value, host_s: f64) -> Simulation {
    let mut d = dispatcher;
    d["id"] = json!("sendq");
    d["kind"] = json!("dispatcher");
    d["discipline"] = json!("netsendq");
    d["workers"] = json!(2);
    d["service_time"] = json!({"dist": "fixed", "value": 0.001});
    let ids: Vec<String> = senders.iter().map(|s| s["id"].as_str().unwrap().to_string()).collect();
    let done: Vec<String> = classes.iter().map(|c| format!("{c}_done")).collect();
    let split: serde_json::Map<String, Value> = classes.iter().zip(&done).map(|(c, d)| (c.to_string(), json!(d))).collect();
    let host = |id: &str| json!({"id": id, "kind": "consumer", "workers": 8, "service_time": {"dist": "fixed", "value": host_s}});
    let mut nodes = senders;
    nodes.extend([
        d,
        json!({"id": "to_host", "kind": "router", "policy": "by_destination"}),
        host("host_a"),
        host("host_b"),
        json!({"id": "split", "kind": "router", "policy": "by_class", "classes": split}),
    ]);
    nodes.extend(done.iter().map(|d| sink(d)));
    let mut edges: Vec<(&str, &str)> = ids.iter().map(|p| (p.as_str(), "sendq")).collect();
    edges.extend([("sendq", "to_host"), ("to_host", "host_a"), ("to_host", "host_b"), ("host_a", "split"), ("host_b", "split")]);
    edges.extend(done.iter().map(|d| ("split", d.as_str())));
    Simulation::new(graph(nodes, &edges), 1).unwrap()
}

fn host_down(r: &sluice_engine::Report, node: &str) -> u64 {
    r.nodes[node].dropped.get("host_down").copied().unwrap_or(0)
}

#[test]
fn each_host_goes_down_and_comes_up_at_its_own_times() {
    // host_a is down from 1 s to 2 s, host_b from 3 s to 4 s; each is sent
    // an RPC every second from 0.5 s: of each host's five, the one sent
    // while it is down fails, and the others are done.
    let times = [0.5, 1.5, 2.5, 3.5, 4.5];
    let mut sim = netsendq_to_two_hosts(
        vec![producer("to_a", trace(&times), "rpc", Some("host_a")), producer("to_b", trace(&times), "rpc", Some("host_b"))],
        &["rpc"],
        json!({"hosts_down": [{"host": "host_a", "from_s": 1, "to_s": 2}, {"host": "host_b", "from_s": 3, "to_s": 4}]}),
        0.01,
    );
    run_checked(&mut sim, 6.0);
    let r = sim.report();
    assert_eq!((r.nodes["host_a"].departed, r.nodes["host_b"].departed), (4, 4));
    assert_eq!(host_down(&r, "sendq"), 2);
}

#[test]
fn an_rpc_sent_to_a_down_host_fails_unless_its_class_is_queueable() {
    // While host_a is down (1 s to 2 s) it is sent a replication, which
    // fails at once, and a removal, queueable, which waits and is sent when
    // the host is up. Both count as arrived at the dispatcher.
    let mut sim = netsendq_to_two_hosts(
        vec![producer("rm", trace(&[1.5]), "remove", Some("host_a")), producer("rep", trace(&[1.5]), "replicate", Some("host_a"))],
        &["remove", "replicate"],
        json!({"queueable_if_down": ["remove"], "hosts_down": [{"host": "host_a", "from_s": 1, "to_s": 2}]}),
        0.01,
    );
    run_checked(&mut sim, 1.9);
    assert_eq!(sim.report().nodes["sendq"].depth_messages, 1, "the removal waits");
    run_checked(&mut sim, 5.0);
    let r = sim.report();
    assert_eq!((r.nodes["remove_done"].departed, r.nodes["replicate_done"].departed), (1, 0));
    assert_eq!(host_down(&r, "sendq"), 1);
    assert_eq!(r.nodes["sendq"].arrived, 2);
}

#[test]
fn rpcs_under_way_when_their_host_goes_down_fail_or_if_queueable_are_sent_again_when_it_is_up() {
    // A removal (queueable) and a replication are sent to host_a at 0 s;
    // it takes 2 s over each and is down from 1 s to 3 s. Neither is done
    // there: the replication fails, and the removal comes back to the
    // dispatcher (arriving again) when the host would have finished it,
    // waits, and is sent again at 3 s.
    let mut sim = netsendq_to_two_hosts(
        vec![producer("rm", trace(&[0.0]), "remove", Some("host_a")), producer("rep", trace(&[0.0]), "replicate", Some("host_a"))],
        &["remove", "replicate"],
        json!({"queueable_if_down": ["remove"], "hosts_down": [{"host": "host_a", "from_s": 1, "to_s": 3}]}),
        2.0,
    );
    run_checked(&mut sim, 2.9);
    assert_eq!(sim.report().nodes["sendq"].depth_messages, 1, "the removal waits for the host");
    run_checked(&mut sim, 10.0);
    let r = sim.report();
    assert_eq!((r.nodes["remove_done"].departed, r.nodes["replicate_done"].departed), (1, 0));
    assert_eq!(r.totals.dropped, 1);
    // Two offered and one come back; sent three times.
    assert_eq!((r.nodes["sendq"].arrived, r.nodes["sendq"].departed), (3, 3));
}

#[test]
fn a_host_going_down_fails_its_own_unsent_rpcs_and_no_other_hosts() {
    // One RPC in flight to each host at a time (the window), 2 s each:
    // each host is sent one at 0 s while its second, at 0.5 s, waits.
    // host_a goes down at 1 s: its waiting RPC fails then, and the one
    // under way with it; host_b's waiting one is sent when its first is
    // done.
    let mut sim = netsendq_to_two_hosts(
        vec![
            producer("to_a", trace(&[0.0, 0.5]), "replicate", Some("host_a")),
            producer("to_b", trace(&[0.0, 0.5]), "replicate", Some("host_b")),
        ],
        &["replicate"],
        json!({"hosts_down": [{"host": "host_a", "from_s": 1, "to_s": 3}]}),
        2.0,
    );
    run_checked(&mut sim, 1.5);
    let r = sim.report();
    assert_eq!((host_down(&r, "sendq"), r.nodes["sendq"].depth_messages), (1, 1), "host_a's waiting RPC failed, host_b's waits");
    run_checked(&mut sim, 10.0);
    let r = sim.report();
    assert_eq!((r.nodes["host_a"].departed, r.nodes["host_b"].departed), (0, 2));
    assert_eq!(r.totals.dropped, 2);
}

#[test]
fn a_live_change_keeps_the_hosts_down_schedule_of_the_start() {
    // host_a is down from 2 s to 4 s; at 1 s the dispatcher is changed
    // live, its windows and its down periods: the periods scheduled at the
    // start stay, as a link's and a consumer's do. Of RPCs at 0.5, 2.5
    // and 4.5 s, the second fails.
    let mut sim = netsendq_to_two_hosts(
        vec![producer("to_a", trace(&[0.5, 2.5, 4.5]), "rpc", Some("host_a"))],
        &["rpc"],
        json!({"hosts_down": [{"host": "host_a", "from_s": 2, "to_s": 4}]}),
        0.01,
    );
    run_checked(&mut sim, 1.0);
    let mut block = sim.scenario().nodes[idx(&sim, "sendq")].block.clone();
    if let sluice_engine::BlockSpec::Dispatcher(d) = &mut block {
        d.windows.insert("rpc".to_string(), 4);
        d.hosts_down.clear();
    }
    sim.reconfigure("sendq", block).unwrap();
    run_checked(&mut sim, 6.0);
    let r = sim.report();
    assert_eq!((r.nodes["host_a"].departed, host_down(&r, "sendq")), (2, 1));
}

#[test]
fn a_dispatcher_other_than_netsendq_leaves_every_gate_a_message_carries_to_the_blocks_after_it() {
    // A round robin dispatcher waits for no reply: what it passes on is
    // counted against none of its gates, so four limiters may follow it
    // (as many as a message can be counted against), and the last, of one
    // in flight, holds the five messages to one at a time.
    let limiter = |id: &str, most: u64| json!({"id": id, "kind": "concurrency_limiter", "max_in_flight": most});
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": trace(&[0.0; 5])}),
            json!({"id": "disp", "kind": "dispatcher", "workers": 5, "service_time": {"dist": "fixed", "value": 0.0}}),
            limiter("l1", 5),
            limiter("l2", 5),
            limiter("l3", 5),
            limiter("l4", 1),
            json!({"id": "work", "kind": "consumer", "workers": 5, "service_time": {"dist": "fixed", "value": 1.0}}),
        ],
        &[("p", "disp"), ("disp", "l1"), ("l1", "l2"), ("l2", "l3"), ("l3", "l4"), ("l4", "work")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 0.5);
    assert_eq!(sim.stats(idx(&sim, "work")).in_service, 1);
    run_checked(&mut sim, 4.5);
    assert_eq!(sim.report().nodes["work"].departed, 4, "one a second");
}
