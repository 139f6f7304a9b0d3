//! Metamorphic tests: two scenarios that must run alike, run side by side.
//! Each catches a class of defect that no single expected figure would:
//!
//! - Marking classes droppable changes nothing while the consumer, or the
//!   socket, has spare capacity: thinning must come from a write that would
//!   block, never from the mark alone, nor from a busy consumer.
//! - A netsendq with no output delivers like the same netsendq followed by
//!   a consumer that takes no time: a sink hears its replies as an output's
//!   consumer would send them.
//! - Scaling every time in a scenario by k scales throughputs by 1/k and
//!   waits by k, and leaves every count as it was: no block hides a time
//!   constant of its own, and none mixes up seconds with rates.
//! - Moving nodes and edges about in the file changes no figure: each node
//!   draws from a stream of its own, chosen by its name, and nodes start in
//!   the order of their names. (The order of one node's outputs, and of
//!   one node's inputs, is meaningful: a router takes its outputs in that
//!   order. It is kept.)

#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::BTreeMap;

use serde_json::{json, Value};
use sluice_engine::lesson;
use sluice_engine::{NodeReport, Report, Scenario, SimTime, Simulation};

fn run(scenario: Scenario, seed: u64, until_s: f64) -> Report {
    let mut sim = Simulation::new(scenario, seed).expect("the scenario is valid");
    sim.run_until(SimTime::from_secs_f64(until_s)).expect("the run ends");
    sim.report()
}

fn by_id(report: &Report) -> BTreeMap<String, NodeReport> {
    report.nodes.clone()
}

/// Every scenario the project ships: the lessons', the block tour and the
/// throttler's day.
fn shipped() -> Vec<(String, Scenario)> {
    let tour = include_str!("../../scenarios/every-block.json");
    let sms_day = include_str!("../../scenarios/sms-day.json");
    lesson::SCENARIOS
        .iter()
        .chain([&("every-block.json", tour), &("sms-day.json", sms_day)])
        .map(|(name, text)| (name.to_string(), Scenario::from_json(text).unwrap()))
        .collect()
}

#[test]
fn marking_classes_droppable_changes_nothing_while_the_consumer_has_room() {
    // Poisson arrivals into 40 workers at half a worker's load: all 40 are
    // never busy at once. And a constant stream into one worker that
    // always finishes before the next message comes.
    let cases = [
        (json!({"process": "poisson", "rate_per_s": 10}), json!({"workers": 40, "service_time": {"dist": "exponential", "mean": 0.05}})),
        (json!({"process": "constant", "rate_per_s": 10}), json!({"workers": 1, "service_time": {"dist": "fixed", "value": 0.0731}})),
        (json!({"process": "on_off", "rate_per_s": 7.3, "on_s": 1.37, "off_s": 0.91}),
         json!({"workers": 30, "service_time": {"dist": "uniform", "min": 0.01, "max": 0.12}})),
        // One worker busy 30% of the time: it refuses often, but a busy
        // consumer is not a socket that would block.
        (json!({"process": "poisson", "rate_per_s": 30}), json!({"workers": 1, "service_time": {"dist": "exponential", "mean": 0.01}})),
    ];
    for (arrivals, consumer) in cases {
        let scenario = |droppable: bool| {
            support::pipeline(
                json!({"arrivals": arrivals, "classes": [
                    {"name": "video", "weight": 3, "droppable": droppable},
                    {"name": "audio", "weight": 1, "droppable": droppable}]}),
                json!({"soft_limit": {"messages": 20}, "hard_limit": {"messages": 40}}),
                consumer.clone(),
            )
        };
        droppable_marks_change_nothing(scenario, 1000, &arrivals.to_string());
    }
}

/// Runs `scenario` with its classes plain and marked droppable, on three
/// seeds: the same report each time, nothing thinned, and more than
/// `delivered` delivered (the run did something).
fn droppable_marks_change_nothing(scenario: impl Fn(bool) -> Scenario, delivered: u64, case: &str) {
    for seed in [1, 2, 3] {
        let (plain, marked) = (run(scenario(false), seed, 300.0), run(scenario(true), seed, 300.0));
        assert!(plain.totals.delivered > delivered, "{case}: {:?}", plain.totals);
        assert_eq!(marked.nodes["q"].dropped_total, 0, "{case}, seed {seed}: {:?}", marked.nodes["q"].dropped);
        assert_eq!(plain, marked, "{case}, seed {seed}");
    }
}

/// The same through a socket: a link at a quarter of its bandwidth whose
/// send buffer never fills thins nothing.
#[test]
fn marking_classes_droppable_changes_nothing_while_the_socket_has_room() {
    let scenario = |droppable: bool| {
        support::graph(
            vec![
                json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 100},
                       "classes": [{"name": "video", "weight": 3, "droppable": droppable, "size": {"dist": "uniform", "min": 400, "max": 2000}},
                                   {"name": "audio", "weight": 1, "droppable": droppable, "size": {"dist": "fixed", "value": 200}}]}),
                json!({"id": "q", "kind": "queue", "soft_limit": {"messages": 20}, "hard_limit": {"messages": 40}}),
                json!({"id": "socket", "kind": "link", "bandwidth_bytes_per_s": 400_000, "latency_s": 0.01, "buffer": {"bytes": 16384}}),
                json!({"id": "c", "kind": "consumer", "workers": 2, "service_time": {"dist": "fixed", "value": 0}}),
            ],
            &[("p", "q"), ("q", "socket"), ("socket", "c")],
        )
    };
    droppable_marks_change_nothing(scenario, 20_000, "through a socket");
}

#[test]
fn a_netsendq_without_an_output_delivers_like_one_followed_by_a_consumer_that_takes_no_time() {
    let nodes = |with_output: bool| {
        let mut nodes = vec![
            json!({"id": "mds", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 180},
                   "classes": [{"name": "replicate", "weight": 3, "destination": "host_a"},
                               {"name": "status", "weight": 1, "destination": "host_b"}]}),
            json!({"id": "sendq", "kind": "dispatcher", "discipline": "netsendq", "queues": "per_destination",
                   "workers": 2, "service_time": {"dist": "exponential", "mean": 0.004},
                   "windows": {"replicate": 2, "status": 1}, "one_shot": ["status"],
                   "hosts_down": [{"host": "host_a", "from_s": 3.1, "to_s": 4.7}]}),
            json!({"id": "host_a", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.001}}),
            json!({"id": "host_b", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.001}}),
        ];
        if with_output {
            nodes.push(json!({"id": "wire", "kind": "consumer", "workers": 1000, "service_time": {"dist": "fixed", "value": 0}}));
        }
        let mut edges = vec![json!({"from": "mds", "to": "sendq"})];
        if with_output {
            edges.push(json!({"from": "sendq", "to": "wire"}));
        }
        Scenario::from_value(json!({"version": 1, "nodes": nodes, "edges": edges})).unwrap()
    };
    for seed in [1, 5, 9] {
        let (sink, followed) = (run(nodes(false), seed, 30.0), run(nodes(true), seed, 30.0));
        let (sink_q, followed_q) = (&by_id(&sink)["sendq"], &by_id(&followed)["sendq"]);
        assert!(sink.totals.delivered > 4000, "the sink stalled: {:?}", sink.totals);
        assert_eq!(sink.totals.delivered, followed.totals.delivered, "seed {seed}");
        assert_eq!(sink.totals.dropped, followed.totals.dropped, "seed {seed}");
        assert_eq!((sink_q.arrived, sink_q.departed, &sink_q.dropped), (followed_q.arrived, followed_q.departed, &followed_q.dropped));
        assert_eq!(sink_q.depth_messages, followed_q.depth_messages);
    }
}

/// `doc` with every time multiplied by `k`: durations, instants and spans
/// (every field named `..._s`, and the distributions of service and think
/// times) by k, rates (`..._per_s`) by 1/k. Sizes, counts and limits per
/// span stay.
fn scale_times(doc: &mut Value, k: f64) {
    // nginx's rate is the product's own field, requests a second or a
    // minute: divided by k, and written per minute (what nginx stores,
    // thousandths a second, is then the same rate divided by k exactly
    // for the k used here).
    if doc.get("product").and_then(Value::as_str) == Some("nginx_limit_req") {
        let per_minute = doc["rate"].as_f64().unwrap() * if doc.get("per").and_then(Value::as_str) == Some("minute") { 1.0 } else { 60.0 };
        let scaled = per_minute / k;
        assert_eq!(scaled.fract(), 0.0, "an nginx rate that does not divide by {k}");
        doc["rate"] = json!(scaled as u64);
        doc["per"] = json!("minute");
        return;
    }
    match doc {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if key.ends_with("_per_s") {
                    if let Some(x) = value.as_f64() {
                        *value = json!(x / k);
                    }
                } else if key.ends_with("_s") {
                    match value {
                        Value::Number(x) => *value = json!(x.as_f64().unwrap() * k),
                        Value::Array(xs) => xs.iter_mut().for_each(|x| *x = json!(x.as_f64().unwrap() * k)),
                        other => scale_times(other, k),
                    }
                } else if key == "service_time" || key == "think" {
                    scale_distribution(value, k);
                } else {
                    scale_times(value, k);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| scale_times(item, k)),
        _ => {}
    }
}

fn scale_distribution(dist: &mut Value, k: f64) {
    for field in ["mean", "value", "min", "max"] {
        if let Some(x) = dist.get(field).and_then(Value::as_f64) {
            dist[field] = json!(x * k);
        }
    }
    for part in ["a", "b"] {
        if let Some(inner) = dist.get_mut(part) {
            scale_distribution(inner, k);
        }
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) + 1e-9
}

#[test]
fn scaling_every_time_by_k_scales_throughput_by_one_over_k_and_waits_by_k() {
    for (name, scenario) in shipped() {
        let until = 60.0;
        let seed = scenario.seed.unwrap_or(1);
        let base = run(scenario.clone(), seed, until);
        // Envoy's adaptive concurrency reads latencies from a histogram of
        // two significant digits: doubled, 50 ms falls in a bin of 10 %
        // instead of 2 %, and its percentiles move by more than rounding.
        // Times ten keep every bin's relative width.
        let adaptive = serde_json::to_string(&scenario).unwrap().contains("envoy_adaptive_concurrency");
        let factors: &[f64] = if adaptive { &[10.0] } else { &[2.0, 10.0] };
        for &k in factors {
            let mut doc = serde_json::to_value(&scenario).unwrap();
            scale_times(&mut doc, k);
            let scaled = run(Scenario::from_value(doc).unwrap(), seed, until * k);
            let (b, s) = (by_id(&base), by_id(&scaled));
            // The same seed draws the same numbers, now k times as long: a
            // run differs only where rounding to the nanosecond changes the
            // order of two events that were all but simultaneous.
            for (id, before) in &b {
                let after = &s[id];
                for (what, x, y) in [
                    ("arrived", before.arrived, after.arrived),
                    ("departed", before.departed, after.departed),
                    ("dropped", before.dropped_total, after.dropped_total),
                ] {
                    assert!(close(x as f64, y as f64, 0.01) || x.abs_diff(y) <= 2,
                            "{name} × {k}: {id} {what} {x} became {y}");
                }
                if let (Some(x), Some(y)) = (before.mean_sojourn_s, after.mean_sojourn_s) {
                    assert!(close(x * k, y, 0.02), "{name} × {k}: {id} mean sojourn {x} s became {y} s, not {} s", x * k);
                }
                assert!(close(before.mean_depth_messages, after.mean_depth_messages, 0.02) ||
                        (before.mean_depth_messages - after.mean_depth_messages).abs() < 0.05,
                        "{name} × {k}: {id} mean depth {} became {}", before.mean_depth_messages, after.mean_depth_messages);
            }
            let (x, y) = (base.totals.delivered as f64 / until, scaled.totals.delivered as f64 / (until * k));
            assert!(close(x / k, y, 0.01), "{name} × {k}: throughput {x}/s became {y}/s, not {}/s", x / k);
        }
    }
}

/// A tiny generator for the reordering test, so that it needs no crate.
struct Shuffle(u64);

impl Shuffle {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `doc` with its nodes in a random order, and its edges in a random order
/// that keeps each node's outputs, and each node's inputs, in their order.
fn reorder(doc: &Value, shuffle: &mut Shuffle) -> Value {
    let mut doc = doc.clone();
    let nodes = doc["nodes"].as_array_mut().unwrap();
    for i in (1..nodes.len()).rev() {
        let j = shuffle.below(i + 1);
        nodes.swap(i, j);
    }
    let edges = doc["edges"].as_array().unwrap().clone();
    let mut placed = vec![false; edges.len()];
    let mut order = Vec::new();
    while order.len() < edges.len() {
        // An edge may go next when no earlier edge from the same node or
        // into the same node is still to place.
        let ready: Vec<usize> = (0..edges.len())
            .filter(|&e| !placed[e])
            .filter(|&e| {
                (0..e).all(|d| placed[d] || (edges[d]["from"] != edges[e]["from"] && edges[d]["to"] != edges[e]["to"]))
            })
            .collect();
        let pick = ready[shuffle.below(ready.len())];
        placed[pick] = true;
        order.push(edges[pick].clone());
    }
    doc["edges"] = Value::Array(order);
    doc
}

#[test]
fn moving_nodes_and_edges_about_in_the_file_changes_no_figure() {
    let mut shuffle = Shuffle(0x9e37_79b9_7f4a_7c15);
    for (name, scenario) in shipped() {
        let doc = serde_json::to_value(&scenario).unwrap();
        let seed = scenario.seed.unwrap_or(1);
        let base = run(scenario, seed, 40.0);
        for _ in 0..3 {
            let moved = Scenario::from_value(reorder(&doc, &mut shuffle)).unwrap();
            let again = run(moved, seed, 40.0);
            assert_eq!(by_id(&base), by_id(&again), "{name}");
            assert_eq!((base.events, base.transitions, &base.totals), (again.events, again.transitions, &again.totals), "{name}");
        }
    }
}
