//! Rate and concurrency limiters (super-queue, arataga), links and routers.

mod support;

use sluice_engine::State;
use serde_json::{json, Value};
use sluice_engine::{BlockSpec, Simulation};
use support::*;

fn consumer(id: &str, service_s: f64, workers: u32) -> Value {
    json!({"id": id, "kind": "consumer", "workers": workers, "service_time": {"dist": "fixed", "value": service_s}})
}

fn limited(limiter: Value, rate: f64) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate}}),
            json!({"id": "q", "kind": "queue"}),
            limiter,
            consumer("c", 0.0001, 100),
        ],
        &[("p", "q"), ("q", "limit"), ("limit", "c")],
    );
    Simulation::new(scenario, 21).unwrap()
}

#[test]
fn an_sms_gateway_sends_at_most_its_rate() {
    for scheme in ["timer", "batch", "anchored", "natural_period", "aligned", "spread", "sliding", "token_bucket"] {
        let mut sim = limited(
            json!({"id": "limit", "kind": "rate_limiter", "rules": [{"scheme": scheme, "limit": 10, "span_s": 1}]}),
            50.0,
        );
        run_checked(&mut sim, 60.0);
        let sent = sim.report().nodes["c"].departed;
        // 10 a second for 60 s (a token bucket may add its first burst).
        assert!((590..=611).contains(&sent), "{scheme}: {sent}");
        assert!(sim.report().nodes["q"].depth_messages > 2000, "{scheme}: the backlog waits");
    }
}

#[test]
fn stacked_rules_per_second_and_per_minute_both_hold() {
    let mut sim = limited(
        json!({"id": "limit", "kind": "rate_limiter", "rules": [
            {"scheme": "anchored", "limit": 10, "span_s": 1},
            {"scheme": "anchored", "limit": 300, "span_s": 60}
        ]}),
        50.0,
    );
    run_checked(&mut sim, 120.0);
    // 10 a second alone would send 1200 in two minutes; 300 a minute caps it.
    let sent = sim.report().nodes["c"].departed;
    assert!((590..=600).contains(&sent), "{sent}");
}

/// The most that passed `c` in any 60 s, counted second by second, for
/// jobs coming in bursts (25 at once, every 3.5 s, as in lesson 7)
/// through a limiter whose second rule is 300 a minute by `minute_scheme`.
fn most_in_any_minute(minute_scheme: &str) -> u64 {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "bursts", "size": 25, "every_s": 3.5}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "limit", "kind": "rate_limiter", "rules": [
                {"scheme": "anchored", "limit": 10, "span_s": 1},
                {"scheme": minute_scheme, "limit": 300, "span_s": 60}
            ]}),
            consumer("c", 0.0001, 100),
        ],
        &[("p", "q"), ("q", "limit"), ("limit", "c")],
    );
    let mut sim = Simulation::new(scenario, 4).unwrap();
    let mut passed = vec![0];
    for t in 1..=300 {
        run_checked(&mut sim, t as f64);
        passed.push(sim.report().nodes["limit"].departed);
    }
    passed.windows(61).map(|w| w[60] - w[0]).max().unwrap()
}

#[test]
fn the_notes_anchored_minute_is_a_minute_from_its_first_job_not_any_minute() {
    // Lesson 7: the note's stack anchors both rules. Each of its minutes
    // holds 300, but a minute across a boundary holds the end of one and
    // the start of the next. The first minute's 300 go at the arrival
    // rate r = 25 / 3.5 a second; the next minute starts on a backlog
    // and sends 10 a second. A window reaching s seconds into the next
    // minute holds 300 − r·s + 10·s while 10·s ≤ 300: at most
    // 300 + 30·(10 − r) ≈ 386, give or take a burst's grain.
    let anchored = most_in_any_minute("anchored");
    let most = 300.0 + 30.0 * (10.0 - 25.0 / 3.5);
    assert!((anchored as f64 - most).abs() <= 12.5, "anchored: {anchored} in one minute, where {most:.0} is expected");
    // A sliding window (the extension) holds any minute to 300.
    let sliding = most_in_any_minute("sliding");
    assert!(sliding <= 300, "sliding: {sliding} in one minute");
}

/// The rest of super-queue's throttler from blocks (`scenarios/sms-day.json`):
/// nothing goes at night, a daily quota cleared at midnight, urgent jobs
/// first.
#[test]
fn a_day_of_the_sms_throttler() {
    let scenario = sluice_engine::Scenario::from_json(include_str!("../../scenarios/sms-day.json")).unwrap();
    let mut sim = Simulation::new(scenario, 3).unwrap();
    let sent = |sim: &Simulation| sim.report().nodes["gateway"].departed;
    // 00:00 to 06:00: the time-of-day window is shut; jobs wait.
    run_checked(&mut sim, 21_599.0);
    assert_eq!(sent(&sim), 0);
    assert!(sim.report().nodes["jobs"].depth_messages > 10_000);
    // By 22:00 the day's 30,000 are used up: 43,200 jobs came.
    run_checked(&mut sim, 79_200.0);
    assert_eq!(sent(&sim), 30_000);
    let r = sim.report();
    let (urgent, normal) = (r.nodes["urgent_sent"].mean_sojourn_s.unwrap(), r.nodes["normal_sent"].mean_sojourn_s.unwrap());
    assert!(urgent < normal, "urgent {urgent} s, normal {normal} s");
    // The night and the quota hold the next day too; after midnight the
    // quota is fresh but the window is shut until 06:00.
    run_checked(&mut sim, 108_000.0);
    assert_eq!(sent(&sim), 30_000);
    run_checked(&mut sim, 172_800.0);
    assert_eq!(sent(&sim), 60_000);
}

#[test]
fn excess_is_rejected_when_asked() {
    let mut sim = limited(
        json!({"id": "limit", "kind": "rate_limiter", "on_excess": "reject",
               "rules": [{"scheme": "token_bucket", "limit": 20, "span_s": 1, "burst": 5}]}),
        50.0,
    );
    run_checked(&mut sim, 60.0);
    let r = sim.report();
    assert!(r.nodes["limit"].dropped["rate_limited"] > 1500, "{:?}", r.nodes["limit"]);
    let rate = r.nodes["c"].departed as f64 / 60.0;
    assert!((18.0..=21.0).contains(&rate), "{rate}");
}

#[test]
fn a_byte_rate_limits_bandwidth() {
    // arataga's bandlim: 8 kB/s with 1000-byte messages is 8 a second.
    let mut sim = limited(
        json!({"id": "limit", "kind": "rate_limiter", "unit": "bytes",
               "rules": [{"scheme": "token_bucket", "limit": 8000, "span_s": 1}]}),
        20.0,
    );
    run_checked(&mut sim, 100.0);
    let rate = sim.report().nodes["c"].departed as f64 / 100.0;
    assert!((7.9..=8.1).contains(&rate), "{rate}");
}

#[test]
fn a_concurrency_limit_caps_work_in_flight() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50}}),
            json!({"id": "q", "kind": "queue", "capacity": {"messages": 20}, "ttl_s": 0.5}),
            json!({"id": "limit", "kind": "concurrency_limiter", "max_in_flight": 3}),
            consumer("c", 0.1, 10),
        ],
        &[("p", "q"), ("q", "limit"), ("limit", "c")],
    );
    let mut sim = Simulation::new(scenario, 4).unwrap();
    let c = idx(&sim, "c");
    for i in 1..=600 {
        run_checked(&mut sim, i as f64 * 0.1);
        assert!(sim.stats(c).in_service <= 3, "{} in service", sim.stats(c).in_service);
    }
    let r = sim.report();
    // Three at a time, 0.1 s each: 30 a second.
    let rate = r.nodes["c"].departed as f64 / 60.0;
    assert!((28.0..=30.5).contains(&rate), "{rate}");
    // The rest waited too long or found the queue full.
    assert!(r.nodes["q"].dropped.get("expired").copied().unwrap_or(0) + r.nodes["q"].dropped.get("overflow").copied().unwrap_or(0) > 800);
    // The limiter counts what it let through, and shows what is in flight.
    assert_eq!((r.nodes["limit"].arrived, r.nodes["limit"].departed), (r.nodes["c"].arrived, r.nodes["c"].arrived));
    assert_eq!(r.nodes["limit"].in_flight, Some(r.nodes["c"].in_service));
    assert!(r.nodes["limit"].mean_depth_messages > 2.5, "{}", r.nodes["limit"].mean_depth_messages);

    // Lowered live to one: once the three under way finish, one at a time.
    let mut spec = sim.scenario().nodes[idx(&sim, "limit")].block.clone();
    if let sluice_engine::BlockSpec::ConcurrencyLimiter(l) = &mut spec {
        l.max_in_flight = 1;
    }
    sim.reconfigure("limit", spec).unwrap();
    run_checked(&mut sim, 61.0);
    let before = sim.stats(c).departed;
    for i in 1..=100 {
        run_checked(&mut sim, 61.0 + i as f64 * 0.1);
        assert!(sim.stats(c).in_service <= 1, "{} in service after lowering the limit to 1", sim.stats(c).in_service);
    }
    let rate = (sim.stats(c).departed - before) as f64 / 10.0;
    assert!((9.0..=10.1).contains(&rate), "{rate} a second, one at a time");
}

fn through_link(link: Value) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 200}}),
            json!({"id": "sender", "kind": "queue"}),
            link,
            consumer("c", 0.0, 1),
        ],
        &[("p", "sender"), ("sender", "link"), ("link", "c")],
    );
    Simulation::new(scenario, 2).unwrap()
}

#[test]
fn a_full_link_buffer_is_the_would_block_that_overloads_the_sender() {
    // 200 messages of 1000 bytes a second into 100 kB/s.
    let mut sim = through_link(json!({"id": "link", "kind": "link", "bandwidth_bytes_per_s": 100000,
                                      "latency_s": 0.05, "buffer": {"bytes": 10000}}));
    run_checked(&mut sim, 30.0);
    let r = sim.report();
    let rate = r.nodes["c"].departed as f64 / 30.0;
    assert!((98.0..=100.5).contains(&rate), "{rate}");
    assert!(sim.transitions().entries().any(|t| t.to == State::Overloaded && t.cause == sluice_engine::Cause::WouldBlock));
    // Nothing arrives sooner than transmission (10 ms) plus latency (50 ms).
    assert!(r.nodes["c"].mean_sojourn_s.unwrap() > 0.06);
    assert!(max_depth(&sim, "link") <= 10 + 10, "buffer plus what is on the wire");
}

#[test]
fn a_link_that_goes_down_loses_what_is_on_the_wire_and_resumes() {
    let mut sim = through_link(json!({"id": "link", "kind": "link", "bandwidth_bytes_per_s": 1000000,
                                      "latency_s": 0.2, "down": [{"from_s": 5, "to_s": 6}]}));
    run_checked(&mut sim, 5.5);
    let during = sim.report().nodes["c"].departed;
    assert!(sim.report().nodes["link"].dropped["link_down"] > 0);
    assert_eq!(sim.report().nodes["link"].link_up, Some(false));
    run_checked(&mut sim, 5.9);
    assert_eq!(sim.report().nodes["c"].departed, during, "nothing crosses while down");
    run_checked(&mut sim, 8.0);
    assert!(sim.report().nodes["c"].departed > during + 300, "resumed");
    let states: Vec<_> = sim.transitions().entries().map(|t| (t.from.as_str(), t.to.as_str())).collect();
    assert!(states.contains(&("up", "down")) && states.contains(&("down", "up")));
}

fn routed(router: Value, classes: Value) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 100}, "classes": classes}),
            router,
            consumer("x", 0.0, 1),
            consumer("y", 0.0, 1),
            consumer("z", 0.0, 1),
        ],
        &[("p", "r"), ("r", "x"), ("r", "y"), ("r", "z")],
    );
    let mut sim = Simulation::new(scenario, 8).unwrap();
    run_checked(&mut sim, 100.0);
    sim
}

#[test]
fn routers_split_as_told() {
    let one = json!([{"name": "m"}]);
    let sim = routed(json!({"id": "r", "kind": "router", "policy": "round_robin"}), one.clone());
    let r = sim.report();
    let (x, y, z) = (r.nodes["x"].departed, r.nodes["y"].departed, r.nodes["z"].departed);
    assert!(x.abs_diff(y) <= 1 && y.abs_diff(z) <= 1, "{x} {y} {z}");

    let sim = routed(json!({"id": "r", "kind": "router", "policy": "by_weight", "weights": [1, 2, 7]}), one);
    let r = sim.report();
    let total = r.totals.delivered as f64;
    let share = |n: &str| r.nodes[n].departed as f64 / total;
    assert!((share("x") - 0.1).abs() < 0.02 && (share("z") - 0.7).abs() < 0.02, "{} {}", share("x"), share("z"));

    let classes = json!([{"name": "video"}, {"name": "audio"}, {"name": "control"}]);
    let sim = routed(
        json!({"id": "r", "kind": "router", "policy": "by_class", "classes": {"video": "y", "audio": "z"}}),
        classes,
    );
    let r = sim.report();
    assert_eq!(r.nodes["x"].departed, 0);
    assert!(r.nodes["r"].dropped["no_route"] > 2500, "control has no route");
    assert!(r.nodes["y"].departed > 2500 && r.nodes["z"].departed > 2500);
}

#[test]
fn a_pipeline_of_stages_conserves_messages() {
    let mut nodes = vec![json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 80}})];
    let mut edges: Vec<(String, String)> = Vec::new();
    let mut last = "p".to_string();
    for k in 0..5 {
        let (q, c) = (format!("q{k}"), format!("c{k}"));
        nodes.push(json!({"id": q, "kind": "queue", "capacity": {"messages": 5}, "on_full": "refuse"}));
        nodes.push(json!({"id": c, "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.01}}));
        edges.push((last.clone(), q.clone()));
        edges.push((q, c.clone()));
        last = c;
    }
    let edge_refs: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let mut sim = Simulation::new(graph(nodes, &edge_refs), 6).unwrap();
    run_checked(&mut sim, 200.0);
    let r = sim.report();
    // Refusing queues push back all the way to the producer, whose write
    // blocks: what its process makes due meanwhile waits in it, so it makes
    // its 80 a second all the same, and nothing is dropped anywhere.
    assert_eq!(r.totals.dropped, 0);
    assert!((r.totals.produced as f64 / 200.0 - 80.0).abs() < 2.0, "{:?}", r.totals);
    assert!(max_depth(&sim, "p") > 5, "the producer never held a backlog");
    let throughput = r.totals.delivered as f64 / 200.0;
    assert!(throughput > 65.0, "{throughput}/s through five stages of 100/s");
    assert!(max_depth(&sim, "q4") <= 5);
}

#[test]
fn a_resource_pool_lends_at_most_its_resources_and_keeps_spares() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 40}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "pool", "kind": "resource_pool", "min_total": 1, "max_total": 3, "min_spare": 1,
                   "max_spare": 1, "create_s": 0.5}),
            consumer("c", 0.1, 10),
        ],
        &[("p", "q"), ("q", "pool"), ("pool", "c")],
    );
    let mut sim = Simulation::new(scenario, 5).unwrap();
    let c = idx(&sim, "c");
    run_checked(&mut sim, 0.4);
    assert_eq!(sim.report().nodes["c"].departed, 0, "the first resource takes 0.5 s to create");
    for i in 5..=600 {
        run_checked(&mut sim, i as f64 * 0.1);
        assert!(sim.stats(c).in_service <= 3, "at most max_total resources lent");
    }
    // Three resources of 0.1 s each: 30/s at most, of the 40/s asked.
    let rate = sim.report().nodes["c"].departed as f64 / 60.0;
    assert!((27.0..=30.0).contains(&rate), "{rate}");
    assert!(sim.report().nodes["q"].depth_messages > 300, "the rest waits");
}

#[test]
fn a_resource_pool_keeps_its_spares_ready_before_they_are_asked_for() {
    // min_spare 2 and nothing in the pool at first: two are made at once
    // (one second each) and wait idle; three jobs at 5 s take the two at
    // once, two more are being made at once to keep two spare, and the
    // third job goes when the first of them is ready, at 6 s.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": [5.0, 5.0, 5.0]}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "pool", "kind": "resource_pool", "min_total": 0, "max_total": 10, "min_spare": 2, "create_s": 1.0}),
            consumer("c", 10.0, 10),
        ],
        &[("p", "q"), ("q", "pool"), ("pool", "c")],
    );
    let mut sim = Simulation::new(scenario, 5).unwrap();
    let counts = |sim: &Simulation| match &sim.nodes()[idx(sim, "pool")] {
        sluice_engine::Node::ResourcePool(r) => r.counts(),
        _ => unreachable!(),
    };
    run_checked(&mut sim, 2.0);
    assert_eq!(counts(&sim), (2, 0, 0), "(idle, busy, being made) before any job");
    run_checked(&mut sim, 5.5);
    assert_eq!(counts(&sim), (0, 2, 2), "the spares taken, two more on the way");
    assert_eq!(sim.report().nodes["c"].arrived, 2);
    run_checked(&mut sim, 5.99);
    assert_eq!(sim.report().nodes["c"].arrived, 2, "the third waits for a resource");
    run_checked(&mut sim, 6.01);
    assert_eq!(sim.report().nodes["c"].arrived, 3);
    let (idle, busy, making) = counts(&sim);
    assert_eq!((busy, idle + making), (3, 2), "two spare again, idle or being made");
}

#[test]
fn a_pool_made_smaller_while_running_lends_no_more_than_its_new_total() {
    // Ten resources lent at 100 a second; lowered to three while all are
    // busy: the busy ones go as they come back, and from then on at most
    // three are lent (30 a second for jobs of 0.1 s).
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 100}}),
            json!({"id": "q", "kind": "queue"}),
            json!({"id": "pool", "kind": "resource_pool", "max_total": 10, "min_spare": 2, "create_s": 0.05}),
            consumer("c", 0.1, 20),
        ],
        &[("p", "q"), ("q", "pool"), ("pool", "c")],
    );
    let mut sim = Simulation::new(scenario, 5).unwrap();
    let c = idx(&sim, "c");
    run_checked(&mut sim, 10.0);
    assert!(sim.stats(c).in_service > 5, "{} lent before", sim.stats(c).in_service);
    let BlockSpec::ResourcePool(mut spec) = sim.scenario().nodes[2].block.clone() else { unreachable!() };
    spec.max_total = 3;
    sim.reconfigure("pool", BlockSpec::ResourcePool(spec)).unwrap();
    run_checked(&mut sim, 11.0);
    let before = sim.report().nodes["c"].departed;
    for i in 111..=300 {
        run_checked(&mut sim, i as f64 * 0.1);
        assert!(sim.stats(c).in_service <= 3, "{} lent at {} s", sim.stats(c).in_service, i as f64 * 0.1);
    }
    let rate = (sim.report().nodes["c"].departed - before) as f64 / 19.0;
    assert!((26.0..=30.5).contains(&rate), "{rate}");
}

#[test]
fn a_router_changed_live_sends_by_its_new_weights() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 100}}),
            json!({"id": "r", "kind": "router", "policy": "by_weight", "weights": [1, 0]}),
            consumer("left", 0.0, 100),
            consumer("right", 0.0, 100),
        ],
        &[("p", "r"), ("r", "left"), ("r", "right")],
    );
    let mut sim = Simulation::new(scenario, 8).unwrap();
    run_checked(&mut sim, 10.0);
    let (left, right) = (idx(&sim, "left"), idx(&sim, "right"));
    assert!(sim.stats(left).departed > 800);
    assert_eq!(sim.stats(right).departed, 0, "a weight of 0 gets nothing");
    let block = serde_json::from_value(json!({"kind": "router", "policy": "by_weight", "weights": [1, 3]})).unwrap();
    sim.reconfigure("r", block).unwrap();
    let (l0, r0) = (sim.stats(left).departed, sim.stats(right).departed);
    run_checked(&mut sim, 110.0);
    let (l, r) = ((sim.stats(left).departed - l0) as f64, (sim.stats(right).departed - r0) as f64);
    // 10,000 messages split 1:3: the share of the right is 0.75 ± 0.0043.
    let share = r / (l + r);
    assert!((0.73..=0.77).contains(&share), "right got {share} of the messages after the change");
}

/// A job whose first offer reaches the limiter at `arrives_s` (made 0.3 s
/// earlier, it crosses a link): when the consumer behind a rule of one a
/// second under `scheme` gets it.
fn reaches_the_limiter_late(scheme: &str, arrives_s: f64) -> Simulation {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": [arrives_s - 0.3]}}),
            json!({"id": "wire", "kind": "link", "latency_s": 0.3}),
            json!({"id": "rate", "kind": "rate_limiter", "rules": [{"scheme": scheme, "limit": 1, "span_s": 1.0}]}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0}}),
        ],
        &[("p", "wire"), ("wire", "rate"), ("rate", "c")],
    );
    Simulation::new(scenario, 1).unwrap()
}

#[test]
fn the_schemes_judge_a_job_by_when_it_reached_the_limiter_not_when_it_was_made() {
    // Made at 0.9 s, it reaches the limiter at 1.2 s: the batch of 1.0 s
    // was gone before it came, so it goes with the batch of 2.0 s.
    for (scheme, arrives, passes) in [("batch", 1.2, 2.0), ("timer", 1.25, 2.0)] {
        let mut sim = reaches_the_limiter_late(scheme, arrives);
        run_checked(&mut sim, passes - 0.01);
        assert_eq!(sim.report().nodes["c"].departed, 0, "{scheme}: passed before {passes} s");
        run_checked(&mut sim, passes + 0.01);
        assert_eq!(sim.report().nodes["c"].departed, 1, "{scheme}: not passed at {passes} s");
    }
}

#[test]
fn a_requeued_job_reaches_the_limiter_anew() {
    // One job a second passes (timer scheme); the job runs 10 s and is cut
    // off after 0.3 s, three times over, each time back to its queue: each
    // return is a new arrival at the limiter, which lets it through at the
    // next tick (1, 2, 3 and 4 s), not at once.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": [0.05]}}),
            json!({"id": "jobs", "kind": "queue"}),
            json!({"id": "rate", "kind": "rate_limiter", "rules": [{"scheme": "timer", "limit": 1, "span_s": 1.0}]}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 10}, "timeout_s": 0.3,
                   "max_retries": 3, "on_timeout": "requeue"}),
        ],
        &[("p", "jobs"), ("jobs", "rate"), ("rate", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    for (t, passes) in [(0.99, 0), (1.01, 1), (1.99, 1), (2.01, 2), (3.01, 3), (4.01, 4)] {
        run_checked(&mut sim, t);
        assert_eq!(sim.report().nodes["rate"].departed, passes, "at {t} s");
    }
}

#[test]
fn a_requeued_job_goes_back_to_its_own_queue() {
    // An urgent and a bulk queue feed the same workers through one
    // concurrency limiter; bulk jobs are cut off and sent back: to the bulk
    // queue, never to the urgent one.
    let scenario = graph(
        vec![
            json!({"id": "urgent_jobs", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 5},
                   "classes": [{"name": "urgent"}]}),
            json!({"id": "bulk_jobs", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 5},
                   "classes": [{"name": "bulk"}]}),
            json!({"id": "urgent", "kind": "queue"}),
            json!({"id": "bulk", "kind": "queue"}),
            json!({"id": "slots", "kind": "concurrency_limiter", "max_in_flight": 4}),
            json!({"id": "workers", "kind": "consumer", "workers": 4, "service_time": {"dist": "exponential", "mean": 0.1},
                   "timeout_s": 0.05, "max_retries": 2, "on_timeout": "requeue"}),
        ],
        &[("urgent_jobs", "urgent"), ("bulk_jobs", "bulk"), ("urgent", "slots"), ("bulk", "slots"), ("slots", "workers")],
    );
    let mut sim = Simulation::new(scenario, 2).unwrap();
    run_checked(&mut sim, 60.0);
    let r = sim.report();
    // Jobs are cut off (a time-out of half the mean service)...
    assert!(r.nodes["bulk"].arrived > r.nodes["bulk_jobs"].departed + 50, "bulk jobs came back: {:?}", r.nodes["bulk"]);
    // ...and each queue takes back only its own.
    assert!(r.nodes["urgent"].arrived > r.nodes["urgent_jobs"].departed + 50, "urgent jobs came back");
    let urgent_made = r.nodes["urgent_jobs"].departed;
    let urgent_back = r.nodes["urgent"].arrived - urgent_made;
    let bulk_back = r.nodes["bulk"].arrived - r.nodes["bulk_jobs"].departed;
    // Both come back in about the same numbers (same rates, same service).
    let ratio = urgent_back as f64 / bulk_back as f64;
    assert!((0.7..1.4).contains(&ratio), "urgent {urgent_back} back, bulk {bulk_back} back");
}

/// A server behind a link: its limiter reads what the link hands it, so a
/// queue behind the limiter asking for a pause does not leave the limiter
/// holding what it let through (it was read), and the work goes on.
#[test]
fn a_product_limiter_behind_a_link_keeps_passing_when_the_queue_behind_it_pauses() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 150}, "keys": 50}),
            json!({"id": "link", "kind": "link", "bandwidth_bytes_per_s": 1000000, "latency_s": 0.01}),
            json!({"id": "edge", "kind": "product_limiter", "product": "nginx_limit_req", "rate": 1000, "burst": 1000, "nodelay": true}),
            json!({"id": "app", "kind": "queue", "soft_limit": {"messages": 5}}),
            consumer("c", 0.01, 1),
        ],
        &[("p", "link"), ("link", "edge"), ("edge", "app"), ("app", "c")],
    );
    let mut sim = Simulation::new(scenario, 3).unwrap();
    run_checked(&mut sim, 5.0);
    let c = idx(&sim, "c");
    let at_5 = sim.stats(c).departed;
    run_checked(&mut sim, 20.0);
    // One at a time, 10 ms each: about 100 a second all along.
    let served = sim.stats(c).departed - at_5;
    assert!(served > 1300, "{served} served from 5 s to 20 s");
    assert!(sim.report().nodes.iter().any(|(id, n)| id == "edge" && n.departed > 1900));
}

/// Three limits written "10 a second", each a product's own, on the same
/// bursts of 10 back to back every 2 s: nginx's `burst=4 nodelay` lets
/// B + 1 = 5 of each through, Go's `NewLimiter(10, 4)` lets B = 4, and
/// HAProxy's `gt 10` per second lets all 10 (the bursts are two periods
/// apart, so its estimate starts afresh each time).
#[test]
fn three_limits_of_ten_a_second_pass_five_four_and_ten_of_a_burst_of_ten() {
    let limiters = [
        ("nginx", json!({"kind": "product_limiter", "product": "nginx_limit_req", "rate": 10, "burst": 4, "nodelay": true}), 5),
        ("go", json!({"kind": "product_limiter", "product": "go_rate", "limit": 10, "burst": 4}), 4),
        ("haproxy", json!({"kind": "product_limiter", "product": "haproxy_http_req_rate", "limit": 10, "period_s": 1}), 10),
    ];
    for (name, mut limiter, per_burst) in limiters {
        limiter["id"] = json!("limit");
        let scenario = graph(
            vec![json!({"id": "p", "kind": "producer", "arrivals": {"process": "bursts", "size": 10, "every_s": 2}}), limiter, consumer("c", 0.001, 100)],
            &[("p", "limit"), ("limit", "c")],
        );
        let mut sim = Simulation::new(scenario, 1).unwrap();
        run_checked(&mut sim, 21.0);
        let (p, c, limit) = (idx(&sim, "p"), idx(&sim, "c"), idx(&sim, "limit"));
        assert_eq!(sim.stats(p).arrived, 100, "{name}: ten bursts of ten, at 2, 4, … 20 s");
        assert_eq!(sim.stats(c).departed, 10 * per_burst, "{name}");
        assert_eq!(sim.stats(limit).dropped_total(), 100 - 10 * per_burst, "{name}");
    }
}

/// A product limiter changed while requests it counted are in progress:
/// their ends are not the new settings' to hear. Envoy's breaker over
/// HTTP/1.1, switched to HTTP/2 and back, keeps its two connections; one
/// switched to nginx's `limit_conn` and back to HAProxy keeps each count
/// its own. In every case requests keep flowing at the limit's rate.
#[test]
fn a_limiter_changed_while_requests_are_in_progress_keeps_its_counts_its_own() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 40}}),
            json!({"id": "l", "kind": "product_limiter", "product": "envoy_circuit_breaker", "max_connections": 2, "max_pending_requests": 1000, "timeout_s": 0}),
            json!({"id": "c", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0.1}}),
        ],
        &[("p", "l"), ("l", "c")],
    );
    let mut sim = Simulation::new(scenario, 3).unwrap();
    let c = idx(&sim, "c");
    let set = |sim: &mut Simulation, block: Value| {
        let mut block = block;
        block["id"] = json!("l");
        block["kind"] = json!("product_limiter");
        let read = graph(vec![json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 1}}), block, consumer("c", 0.1, 1)], &[("p", "l"), ("l", "c")]);
        sim.reconfigure("l", read.nodes[1].block.clone()).unwrap();
    };
    // Two at a time, 0.1 s each: 20 a second.
    let rate = |sim: &mut Simulation, from: f64, to: f64| {
        run_checked(sim, from);
        let before = sim.stats(c).departed;
        for i in 1..=((to - from) * 10.0) as usize {
            run_checked(sim, from + i as f64 * 0.1);
            assert!(sim.stats(c).in_service <= 2, "{} in service at {}", sim.stats(c).in_service, from + i as f64 * 0.1);
        }
        (sim.stats(c).departed - before) as f64 / (to - from)
    };
    assert!((19.0..=20.5).contains(&rate(&mut sim, 1.0, 5.0)), "HTTP/1.1, two connections");
    let breaker = |protocol: &str| json!({"product": "envoy_circuit_breaker", "max_connections": 2, "max_pending_requests": 1000, "max_requests": 2, "timeout_s": 0, "protocol": protocol});
    set(&mut sim, breaker("http2"));
    run_checked(&mut sim, 6.0);
    set(&mut sim, breaker("http1"));
    assert!((19.0..=20.5).contains(&rate(&mut sim, 8.0, 12.0)), "back on HTTP/1.1, still two connections");
    set(&mut sim, json!({"product": "nginx_limit_conn", "conn": 2}));
    run_checked(&mut sim, 12.05);
    set(&mut sim, json!({"product": "haproxy_server", "maxconn": 2}));
    assert!((19.0..=20.5).contains(&rate(&mut sim, 14.0, 18.0)), "HAProxy after nginx: two at a time");
}

/// Every product that limits requests in progress shows as in service
/// what it let through and has not seen finish, which the consumer right
/// behind it counts on its own as in service, at every tenth of a second.
#[test]
fn a_products_requests_in_progress_are_the_ones_the_consumer_behind_it_serves() {
    let mut checked = Vec::new();
    for (product, name) in sluice_engine::scenario::choices::product_examples() {
        if !product.limits_in_progress() {
            continue;
        }
        let mut limiter = sluice_engine::to_value(&BlockSpec::ProductLimiter(product));
        limiter["id"] = json!("limit");
        let scenario = graph(
            vec![json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 80}}), limiter, consumer("c", 0.1, 1000)],
            &[("p", "limit"), ("limit", "c")],
        );
        let mut sim = Simulation::new(scenario, 5).unwrap();
        let (l, c) = (idx(&sim, "limit"), idx(&sim, "c"));
        let mut most = 0;
        for i in 1..=300 {
            run_checked(&mut sim, i as f64 * 0.1);
            assert_eq!(sim.stats(l).in_service, sim.stats(c).in_service, "{name} at {:.1} s", i as f64 * 0.1);
            most = most.max(sim.stats(c).in_service);
        }
        assert!(most > 2, "{name}: at most {most} in service");
        checked.push(name);
    }
    assert_eq!(checked.len(), 9, "{checked:?}");
}

/// tower's `buffer` in front of `rate_limit(2, 1s)`, eight requests at
/// once and nothing after: two go at once and two more at each window's
/// end, woken by the window itself (no arrival or finish comes to wake
/// them); a rate limit counts nothing in progress, so what it let through
/// carries no place of it to give back.
#[test]
fn tower_buffered_rate_limit_lets_two_through_at_each_window_end_with_nothing_else_to_wake_it() {
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "trace", "times_s": vec![0.1; 8]}}),
            json!({"id": "limit", "kind": "product_limiter", "product": "tower",
                   "layers": [{"layer": "buffer", "bound": 8}, {"layer": "rate_limit", "num": 2, "per_s": 1.0}]}),
            consumer("c", 0.5, 100),
        ],
        &[("p", "limit"), ("limit", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    let (l, c) = (idx(&sim, "limit"), idx(&sim, "c"));
    let mut through = Vec::new();
    for t in [0.3, 1.3, 2.3, 3.3, 6.0] {
        run_checked(&mut sim, t);
        through.push(sim.stats(c).arrived);
        let served = sim.held_messages(c);
        assert_eq!(served.len(), if t < 6.0 { 2 } else { 0 }, "at {t} s, two in service");
        assert!(served.iter().all(|m| !m.gates.iter().any(|g| g == l)), "at {t} s, a message carries the rate limit as a place");
    }
    assert_eq!(through, [2, 4, 6, 8, 8]);
}

/// Envoy's local rate limit enabled for some requests and enforced for
/// some of those (its runtime fractional percents): with a bucket that is
/// all but always empty, the share let through is 1 − enabled × enforced,
/// within a few points over 3,000 requests.
#[test]
fn envoy_enabled_and_enforced_percents_limit_that_share_of_requests() {
    for (enabled, enforced) in [(30.0, 100.0), (100.0, 40.0), (30.0, 40.0), (0.0, 100.0), (100.0, 100.0)] {
        let scenario = graph(
            vec![
                json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 100}}),
                json!({"id": "limit", "kind": "product_limiter", "product": "envoy_local_rate_limit", "max_tokens": 1, "tokens_per_fill": 1,
                       "fill_interval_s": 1.0, "enabled_percent": enabled, "enforced_percent": enforced}),
                consumer("c", 0.001, 100),
            ],
            &[("p", "limit"), ("limit", "c")],
        );
        let mut sim = Simulation::new(scenario, 3).unwrap();
        run_checked(&mut sim, 30.0);
        let r = sim.report();
        let share = r.nodes["c"].arrived as f64 / r.nodes["p"].departed.max(1) as f64;
        // About one token a second passes whatever is limited.
        let expected = 1.0 - enabled / 100.0 * enforced / 100.0;
        assert!((share - expected).abs() < 0.04, "enabled {enabled} %, enforced {enforced} %: {share:.3} let through, expected about {expected:.2}");
    }
}

/// tower's refusals say why: `load_shed` right above the limit refuses at
/// the limit itself (rate limited); with a buffer between them, only a
/// full buffer refuses (an overflow).
#[test]
fn tower_refuses_at_its_limit_as_rate_limited_and_past_a_full_buffer_as_overflow() {
    for (layers, reason) in [
        (json!([{"layer": "load_shed"}, {"layer": "concurrency_limit", "max": 1}]), "rate_limited"),
        (json!([{"layer": "load_shed"}, {"layer": "buffer", "bound": 2}, {"layer": "concurrency_limit", "max": 1}]), "overflow"),
    ] {
        let scenario = graph(
            vec![
                json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50}}),
                json!({"id": "limit", "kind": "product_limiter", "product": "tower", "layers": layers}),
                consumer("c", 0.05, 10),
            ],
            &[("p", "limit"), ("limit", "c")],
        );
        let mut sim = Simulation::new(scenario, 2).unwrap();
        run_checked(&mut sim, 20.0);
        let dropped = &sim.report().nodes["limit"].dropped;
        assert!(dropped.get(reason).copied().unwrap_or(0) > 100, "{layers}: {dropped:?}");
        assert_eq!(dropped.values().sum::<u64>(), dropped[reason], "{layers}: all {reason}: {dropped:?}");
    }
}
