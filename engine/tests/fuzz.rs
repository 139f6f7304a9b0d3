//! Fuzzing, run by `cargo test` (the number of cases is `PROPTEST_CASES`,
//! 64 by default; CI runs more).
//!
//! - Random valid graphs of every block, run with a random seed: after
//!   every event conservation and liveness hold, every bounded quantity
//!   keeps its bound (depth within capacity, in flight within the window,
//!   busy workers within the pool), and nothing panics; a random live
//!   change of a node's parameters midway changes nothing of that; each
//!   run reaches its end time, not the step cap.
//! - Progress: in the same graphs with every wait made bounded, a block
//!   holding messages passes one on or drops one within a bounded
//!   simulated time unless an outage, a down period or a lifecycle phase is
//!   under way.
//! - In the same graphs, a queue's depth counted from the messages that
//!   crossed its edges and were dropped there (the hop's counters, not the
//!   queue's) is what the queue holds, after every event; in some, several
//!   classes go to one destination, so a window or credit per destination
//!   counts them together.
//! - The same graphs run again counting flows, which turns off the event
//!   loop's shortcuts for the common cases (a queue sending straight into
//!   a consumer, a served message followed at once by the next): the
//!   report is the same, so the shortcuts do what the general paths do.
//! - Every run of those graphs moves its clock on or is stopped by the
//!   watchdog; none spins at one instant.
//! - Random damage to a valid scenario file: the loader refuses it with an
//!   error or accepts it, and an accepted one runs; nothing panics.

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{json, Value};
use sluice_engine::Phase;
use sluice_engine::scenario::Kind;
use sluice_engine::sweep::Measure;
use sluice_engine::{BlockSpec, Node, Scenario, SimTime, Simulation};
use std::collections::HashMap;

/// A queue with random thresholds, capacity, policy, expiry and order.
fn queue_block() -> impl Strategy<Value = Value> {
    (0u64..30, 0u64..30, prop::sample::select(vec!["drop_newest", "drop_oldest", "drop_droppable_first", "refuse"]),
     prop::option::of(0.01f64..2.0), prop::sample::select(vec!["fifo", "lifo", "priority"]), any::<bool>())
        .prop_map(|(soft, cap, on_full, ttl, order, low_water)| {
            let mut q = json!({"kind": "queue", "soft_limit": {"messages": soft}, "hard_limit": {"messages": soft * 2},
                               "capacity": {"messages": cap}, "on_full": on_full, "order": order,
                               "reconnect_after_s": 0.2,
                               "message_priorities": [{"class": "a", "destination": "n0", "priority": 0},
                                                      {"class": "b", "priority": 7}]});
            if let Some(t) = ttl {
                q["ttl_s"] = json!(t);
            }
            if low_water {
                q["resume_below"] = json!({"messages": soft / 2});
            }
            q
        })
}

/// A consumer with random workers, service time, time-out and retries,
/// an outage, a slowdown, and perhaps a lifecycle.
fn consumer_block() -> impl Strategy<Value = Value> {
    (1u32..4, 0.0001f64..0.05, 0usize..6, any::<bool>(), prop::option::of(0.001f64..0.05), 0u32..3, 0.0f64..1.0)
        .prop_map(|(w, mean, variant, lifecycle, timeout, retries, at)| {
            let service = match variant {
                0 => json!({"dist": "exponential", "mean": mean}),
                1 => json!({"dist": "uniform", "min": 0.0, "max": mean * 2.0}),
                2 => json!({"dist": "log_normal", "mean": mean, "cv": 2.0}),
                3 => json!({"dist": "mix", "p": 0.9, "a": {"dist": "fixed", "value": mean / 2.0},
                            "b": {"dist": "exponential", "mean": mean * 5.0}}),
                _ => json!({"dist": "fixed", "value": mean}),
            };
            // Schedules at random, non-round instants.
            let mut c = json!({"kind": "consumer", "workers": w, "service_time": service,
                               "outages": [{"from_s": 0.3 * at, "to_s": 0.3 * at + 0.2137}],
                               "slowdowns": [{"from_s": 0.6 + 0.1 * at, "to_s": 0.9 + 0.3 * at, "factor": 1.0 + 3.0 * at}],
                               "max_retries": retries});
            if lifecycle {
                c["lifecycle"] = json!({"initializing_s": 0.1 * at + 0.0123, "shutdown_at_s": 1.7 - 0.4 * at});
            }
            if let Some(t) = timeout {
                c["timeout_s"] = json!(t);
            }
            c
        })
}

/// A receipt's or a grant's latency: none (a loop of clients that do not
/// think and are refused on the spot then takes no time, and the watchdog
/// stops it), or from a millisecond. Below that such a loop is legitimate
/// but dense: six clients through a window whose receipts take 0.16 ms,
/// refused by a circuit breaker, make some 300,000 events a simulated
/// second, more than the progress property's budget covers.
fn latency() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.001f64..0.05]
}

/// A block that takes input, with random parameters.
fn middle_block() -> impl Strategy<Value = Value> {
    prop_oneof![
        queue_block(),
        (1u64..20, prop::sample::select(vec!["shared", "per_destination", "per_class"]),
         prop::sample::select(vec!["receipt", "processing"]), latency())
            .prop_map(|(max, scope, opens_on, lat)| json!({"kind": "window", "max_messages": max, "scope": scope,
                                                          "opens_on": opens_on, "ack_latency_s": lat})),
        (1u64..10, any::<bool>(), 1u64..4, latency(), prop::sample::select(vec!["shared", "per_destination"]))
            // A batch larger than the credit would never fill (refused).
            .prop_map(|(init, implicit, batch, lat, scope)| json!({"kind": "credit", "initial_credit": init,
                "implicit_single_credit": implicit, "grant_batch": batch.min(init), "grant_latency_s": lat, "scope": scope,
                "close_after_idle_s": lat * 3.0 + 0.001})),
        (prop::sample::select(vec!["timer", "batch", "anchored", "natural_period", "spread", "sliding", "token_bucket"]), 1.0f64..200.0,
         0.05f64..2.0, prop::sample::select(vec!["delay", "reject"]), prop::sample::select(vec!["messages", "bytes"]))
            .prop_map(|(scheme, limit, span, excess, unit)| {
                let limit = if unit == "bytes" { limit * 1000.0 } else { limit };
                json!({"kind": "rate_limiter", "unit": unit, "on_excess": excess,
                       "rules": [{"scheme": scheme, "limit": limit, "span_s": span}]})
            }),
        (1u64..8).prop_map(|n| json!({"kind": "concurrency_limiter", "max_in_flight": n})),
        (0u32..3, 1u32..5, 0u32..2, 0.0f64..0.1).prop_map(|(min, extra, spare, create)| {
            json!({"kind": "resource_pool", "min_total": min, "max_total": min + extra, "min_spare": spare,
                   "max_spare": spare + 1, "create_s": create})
        }),
        (0.0f64..500_000.0, 0.0f64..0.1, 0u64..20_000, any::<bool>()).prop_map(|(bw, lat, buf, down)| {
            let mut l = json!({"kind": "link", "bandwidth_bytes_per_s": bw, "latency_s": lat, "buffer": {"bytes": buf}});
            if down {
                l["down"] = json!([{"from_s": 0.5, "to_s": 0.8}]);
            }
            l
        }),
        consumer_block(),
        (prop::sample::select(vec!["round_robin", "priority", "event_loop", "netsendq"]),
         prop::sample::select(vec!["per_input", "per_destination", "per_class", "shared"]),
         1u32..3, 0u64..10, prop::sample::select(vec!["drop_oldest", "drop_newest", "refuse"]),
         prop::option::of(0.01f64..0.5), any::<bool>(), any::<bool>(),
         prop::sample::select(vec!["by_destination", "per_queue", "independent"]))
            .prop_map(|(discipline, queues, workers, cap, on_full, ttl, snapshot, down, agents)| {
                let mut d = json!({"kind": "dispatcher", "discipline": discipline, "queues": queues,
                    "workers": workers, "capacity": cap, "on_full": on_full, "agents": agents,
                    "iteration": if snapshot { "snapshot" } else { "all" },
                    "order": if snapshot { "priority" } else { "fifo" },
                    "service_time": {"dist": "exponential", "mean": 0.002}});
                // Priorities for queues that exist: named after the two
                // producers, their classes, or the one shared queue.
                d["queue_priorities"] = match queues {
                    "per_class" => json!({"a": 1, "b": 0}),
                    "shared" => json!({"shared": 1}),
                    _ => json!({"n0": 1, "n1": 0}),
                };
                if let Some(t) = ttl {
                    d["ttl_s"] = json!(t);
                }
                if discipline == "netsendq" {
                    d["windows"] = json!({"a": 2, "b": 1});
                    d["one_shot"] = json!(["b"]);
                    d["queueable_if_down"] = json!(["a"]);
                    if down {
                        d["hosts_down"] = json!([{"host": "n0", "from_s": 0.4, "to_s": 0.9}]);
                    }
                }
                d
            }),
        Just(json!({"kind": "router", "policy": "round_robin"})),
        Just(json!({"kind": "router", "policy": "by_destination"})),
        // A small zone, so that keys are forgotten too.
        (1u32..300, any::<bool>(), 0u32..10, any::<bool>(), 0u32..5, any::<bool>()).prop_map(|(rate, minute, burst, nodelay, delay, dry)| {
            json!({"kind": "product_limiter", "product": "nginx_limit_req", "rate": rate,
                   "per": if minute { "minute" } else { "second" }, "burst": burst, "nodelay": nodelay,
                   "delay": if nodelay { 0 } else { delay }, "dry_run": dry, "zone_bytes": 32768})
        }),
        // HAProxy's request rate, in a small table (keys are forgotten).
        (0u32..20, 1u32..3000, 1u32..600, 1u32..5000).prop_map(|(limit, period_ms, size, expire_ms)| {
            json!({"kind": "product_limiter", "product": "haproxy_http_req_rate", "limit": limit,
                   "period_s": f64::from(period_ms) / 1000.0, "size": size, "expire_s": f64::from(expire_ms) / 1000.0})
        }),
        // Envoy's filter, each bucket, partly enabled and enforced.
        (1u32..20, 1u32..20, 50u32..2000, any::<bool>(), 0.0f64..=100.0, 0.0f64..=100.0).prop_map(|(max, fill, every_ms, timer, on, enforced)| {
            json!({"kind": "product_limiter", "product": "envoy_local_rate_limit", "max_tokens": max, "tokens_per_fill": fill,
                   "fill_interval_s": f64::from(every_ms) / 1000.0, "bucket": if timer { "timer" } else { "atomic" },
                   "enabled_percent": on, "enforced_percent": enforced})
        }),
        // nginx's limit_conn in a small zone (a new key may be refused), a dry run too.
        (1u32..5, any::<bool>()).prop_map(|(conn, dry)| {
            json!({"kind": "product_limiter", "product": "nginx_limit_conn", "conn": conn, "dry_run": dry, "zone_bytes": 32768})
        }),
        // HAProxy's server: each balance, a queue bound and a timeout or none.
        (0u32..4, 0u32..4, prop::option::of(1u32..400), any::<bool>()).prop_map(|(maxconn, maxqueue, timeout_ms, hash)| {
            let mut d = json!({"kind": "product_limiter", "product": "haproxy_server", "maxconn": maxconn, "maxqueue": maxqueue,
                               "balance": if hash { "hash" } else { "roundrobin" }});
            if let Some(ms) = timeout_ms {
                d["timeout_queue_s"] = json!(f64::from(ms) / 1000.0);
            }
            d
        }),
        // Envoy's breaker, over either protocol, with bounds of 0 too.
        (0u32..4, 0u32..4, 0u32..5, any::<bool>(), 0u32..400).prop_map(|(cx, pending, rq, http2, timeout_ms)| {
            json!({"kind": "product_limiter", "product": "envoy_circuit_breaker", "max_connections": cx, "max_pending_requests": pending,
                   "max_requests": rq, "protocol": if http2 { "http2" } else { "http1" }, "timeout_s": f64::from(timeout_ms) / 1000.0})
        }),
        // tower's layers in every order Sluice takes: load_shed anywhere, a
        // buffer or not, one limit.
        (0usize..4, 0usize..3, 1u32..4, any::<bool>(), 1u32..4, 1u32..200).prop_map(|(shed_at, buffer, limit, rate, num, per_ms)| {
            let limit = if rate {
                json!({"layer": "rate_limit", "num": num, "per_s": f64::from(per_ms) / 1000.0})
            } else {
                json!({"layer": "concurrency_limit", "max": limit})
            };
            let mut layers = vec![];
            if buffer > 0 || rate {
                layers.push(json!({"layer": "buffer", "bound": buffer.max(1)}));
            }
            layers.push(limit);
            layers.insert(shed_at.min(layers.len()), json!({"layer": "load_shed"}));
            json!({"kind": "product_limiter", "product": "tower", "layers": layers})
        }),
        // Netflix's adaptive limits, each algorithm, small limits, a
        // time-out shorter than a service too, windowed or not.
        (0usize..3, 1u32..6, 1u32..4, any::<bool>(), 1u32..500, 0.5f64..0.99).prop_map(|(algorithm, initial, least, windowed, timeout_ms, ratio)| {
            let mut d = match algorithm {
                0 => json!({"kind": "product_limiter", "product": "netflix_aimd", "initial_limit": initial, "min_limit": least,
                            "max_limit": least + 6, "backoff_ratio": ratio, "timeout_s": f64::from(timeout_ms) / 1000.0}),
                1 => json!({"kind": "product_limiter", "product": "netflix_vegas", "initial_limit": initial, "max_concurrency": least + 6,
                            "smoothing": ratio, "probe_multiplier": least}),
                _ => json!({"kind": "product_limiter", "product": "netflix_gradient2", "initial_limit": initial, "min_limit": least,
                            "max_concurrency": least + 6, "smoothing": ratio, "queue_size": least - 1, "long_window": timeout_ms}),
            };
            if windowed {
                d["window"] = json!({"min_window_s": 0.1, "max_window_s": f64::from(timeout_ms) / 1000.0 + 0.1, "window_size": 10});
            }
            d
        }),
        // Envoy's adaptive concurrency, measuring minRTT or fixed, short
        // windows and few samples so that windows open and close.
        (1u32..300, prop::option::of(1u32..2000), 1u32..20, 1u32..5, 0.0f64..100.0).prop_map(|(update_ms, every_ms, count, least, percentile)| {
            let mut d = json!({"kind": "product_limiter", "product": "envoy_adaptive_concurrency", "concurrency_update_interval_s": f64::from(update_ms) / 1000.0,
                               "min_rtt_request_count": count, "min_concurrency": least, "max_concurrency_limit": least + 10,
                               "sample_aggregate_percentile": percentile});
            match every_ms {
                Some(ms) => d["min_rtt_interval_s"] = json!(f64::from(ms) / 1000.0),
                None => d["min_rtt_fixed_s"] = json!(f64::from(update_ms) / 1000.0),
            }
            d
        }),
        // resilience4j's breaker: small windows of either type, short waits,
        // slow calls, timers on and off, so that it opens and closes often.
        (1u32..8, 1u32..10, 1u32..4, 1u32..2000, 1u32..500, any::<bool>(), 0u32..3, 1u32..100).prop_map(
            |(size, least, trials, open_ms, slow_ms, time_based, half_open, threshold)| {
                json!({"kind": "product_limiter", "product": "resilience4j_circuit_breaker", "sliding_window_size": size,
                       "minimum_number_of_calls": least, "permitted_number_of_calls_in_half_open_state": trials,
                       "wait_duration_in_open_state_s": f64::from(open_ms) / 1000.0, "slow_call_duration_threshold_s": f64::from(slow_ms) / 1000.0,
                       "slow_call_rate_threshold": threshold, "failure_rate_threshold": threshold,
                       "sliding_window_type": if time_based { "time_based" } else { "count_based" },
                       "automatic_transition_from_open_to_half_open_enabled": half_open > 0,
                       "max_wait_duration_in_half_open_state_s": f64::from(half_open) * 0.3,
                       "transition_to_state_after_wait_duration": if half_open == 2 { "closed" } else { "open" }})
            },
        ),
        // Go's limiter, of a limit of 0 too (the burst spent for good).
        (0.0f64..300.0, 0u32..10, 0usize..4, any::<bool>(), 0.0f64..0.5).prop_map(|(limit, burst, call, per_key, timeout)| {
            let limit = if limit < 10.0 { 0.0 } else { limit };
            let name = ["allow", "wait", "reserve", "wait"][call];
            let mut d = json!({"kind": "product_limiter", "product": "go_rate", "limit": limit, "burst": burst,
                               "call": name, "per_key": per_key});
            if call == 3 {
                d["timeout_s"] = json!(timeout.max(0.001));
            }
            d
        }),
    ]
}

/// A producer of every arrival process, with periods and ramps of random,
/// non-round lengths (binary floating point writes few of them exactly),
/// ramps that fall to nothing or almost, and clients that may think for 0 s.
fn producer() -> impl Strategy<Value = Value> {
    (1.0f64..800.0, 0usize..7, prop::sample::select(vec!["pause", "drop", "retry"]),
     prop::sample::select(vec!["pause", "ignore", "drop"]), 1u32..20,
     (0.013f64..0.7, 0.0f64..0.9, 0usize..3, 0.05f64..3.0, any::<bool>()), (0usize..3, 0.001f64..0.02))
        .prop_map(|(rate, process, refused, bp, clients, (on, off, fall, over, thinks), (gives_up, timeout))| {
            let to = [0.0, 1e-6, rate * off][fall];
            let think = if thinks { json!({"dist": "exponential", "mean": 0.01}) } else { json!({"dist": "fixed", "value": 0}) };
            let arrivals = match process {
                0 => json!({"process": "poisson", "rate_per_s": rate}),
                1 => json!({"process": "constant", "rate_per_s": rate}),
                2 => json!({"process": "on_off", "rate_per_s": rate, "on_s": on, "off_s": off}),
                3 => json!({"process": "ramp", "from_per_s": rate, "to_per_s": to, "over_s": over}),
                4 => json!({"process": "trace", "times_s": [0.0, 0.1, 0.1, 0.5, 1.9]}),
                5 => json!({"process": "bursts", "size": clients, "every_s": on}),
                _ => json!({"process": "closed_loop", "clients": clients, "think": think}),
            };
            let mut p = json!({"kind": "producer",
                   "arrivals": arrivals,
                   "classes": [
                       {"name": "a", "weight": 3, "droppable": true, "priority": 2,
                        "size": {"dist": "exponential", "mean": 800}},
                       {"name": "b", "weight": 1, "priority": 0, "size": {"dist": "fixed", "value": 200}}
                   ],
                   "on_refused": refused, "retry_after_s": 0.01, "backpressure": bp,
                   "keys": ([1, 3, 500])[clients as usize % 3]});
            // Clients that wait for ever, or give up after a time near the
            // services' (the server working on, or cancelling).
            if gives_up > 0 {
                p["timeout_s"] = json!(timeout);
                p["on_timeout"] = json!(["work_on", "cancel"][gives_up - 1]);
            }
            // Retries of every back-off and budget, on time-outs and errors.
            if clients % 4 != 0 {
                let budget = [json!(null), json!({"kind": "envoy"}), json!({"kind": "grpc", "max_tokens": 4, "token_ratio": 0.5})][clients as usize % 3].clone();
                let backoff = ["none", "fixed", "exponential"][clients as usize % 3];
                let jitter = ["none", "full", "equal", "decorrelated"][process % 4];
                let mut retries = json!({"max_attempts": 1 + clients % 5, "backoff": backoff, "base_s": timeout / 3.0, "jitter": jitter});
                if !budget.is_null() {
                    retries["budget"] = budget;
                }
                p["retries"] = retries;
            }
            p
        })
}

/// A random DAG: producers, then middle blocks, then two sinks. Every node
/// sends to later nodes only, so there is no cycle.
fn random_scenario() -> impl Strategy<Value = Scenario> {
    (prop::collection::vec(producer(), 1..3), prop::collection::vec(middle_block(), 0..8),
     prop::collection::vec(any::<prop::sample::Index>(), 40), 0u8..3)
        .prop_map(|(producers, middle, picks, destinations)| {
            let mut nodes: Vec<Value> = Vec::new();
            nodes.extend(producers);
            nodes.extend(middle);
            nodes.push(json!({"kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.002}}));
            nodes.push(json!({"kind": "consumer", "workers": 2, "service_time": {"dist": "fixed", "value": 0.003}}));
            let n = nodes.len();
            for (i, node) in nodes.iter_mut().enumerate() {
                node["id"] = json!(format!("n{i}"));
            }
            // The producers address their classes to the sinks: one class
            // to each, or (one scenario in three) both to the last, so that
            // a window or credit per destination counts several classes
            // together.
            let one_destination = destinations == 0;
            for node in nodes.iter_mut() {
                if node["kind"] == "producer" {
                    node["classes"][0]["destination"] = json!(format!("n{}", if one_destination { n - 1 } else { n - 2 }));
                    node["classes"][1]["destination"] = json!(format!("n{}", n - 1));
                }
            }
            let mut edges = Vec::new();
            let mut pick = picks.iter().cycle();
            for i in 0..n - 2 {
                let is_router = nodes[i]["kind"] == "router";
                // Consumers and dispatchers may have no output.
                let is_consumer = nodes[i]["kind"] == "consumer" || nodes[i]["kind"] == "dispatcher";
                let outs = if is_router { 2 } else { 1 };
                let mut targets = Vec::new();
                for _ in 0..outs {
                    let t = i + 1 + pick.next().unwrap().index(n - i - 1);
                    if !targets.contains(&t) && nodes[t]["kind"] != "producer" {
                        targets.push(t);
                    }
                }
                // A consumer or dispatcher in the middle may also be a sink.
                if is_consumer && pick.next().unwrap().index(2) == 0 {
                    continue;
                }
                if targets.is_empty() {
                    targets.push(n - 1);
                }
                for t in targets {
                    edges.push(json!({"from": format!("n{i}"), "to": format!("n{t}")}));
                }
            }
            json!({"version": 1, "nodes": nodes, "edges": edges})
        })
        .prop_filter_map("a path through more gates than a message carries", |doc| {
            match Scenario::from_value(doc) {
                Ok(scenario) => Some(scenario),
                // Validation refuses these rightly; every other refusal is
                // the generator's fault.
                Err(e) if e.to_string().contains("gates") => None,
                Err(e) => panic!("generated scenario is invalid: {e}"),
            }
        })
}

proptest! {
    // Shrinking a random graph replays whole runs: bounded, so that a
    // failure is reported with its case instead of outlasting the stage.
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_time: 120_000, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_keep_every_invariant(scenario in random_scenario(), seed in any::<u64>(),
                                          change_at in 0.1f64..1.5) {
        let mut sim = Simulation::new(scenario, seed).unwrap();
        // A loop that takes no time is the watchdog's to stop, well within
        // the step cap.
        sim.set_stall_bound(50_000);
        let until = SimTime::from_secs_f64(2.0);
        let change = SimTime::from_secs_f64(change_at);
        let mut changed = false;
        let mut steps = 0u64;
        let mut bounds = Bounds::default();
        while sim.next_event_time().is_some_and(|t| t <= until) && steps < 2_000_000 {
            sim.step();
            steps += 1;
            if let Err(e) = sim.check_invariants().and_then(|()| bounds.check(&sim)) {
                panic!("{e}\nseed {seed}, change at {change_at}\nscenario: {}", sim.scenario().to_json_pretty());
            }
            if !changed && sim.now() >= change {
                changed = true;
                halve_limits(&mut sim);
                // The change itself may move messages (a queue whose limit
                // fell sends on) while later nodes still have their old
                // bounds: what stands after it is the new starting point.
                bounds.lowered(&sim);
            }
        }
        // The run got to its end (or was stopped, saying where), not to the
        // step cap.
        prop_assert!(sim.stopped().is_some() || sim.next_event_time().is_none_or(|t| t > until),
                     "{steps} steps got to {} of 2 s\n{}", sim.now(), sim.scenario().to_json_pretty());
        let report = sim.report();
        prop_assert_eq!(report.totals.produced + report.totals.resent, report.totals.delivered + report.totals.dropped + report.totals.in_system);
        drops_have_their_kinds_reasons(&sim);
    }

    /// A block that holds nothing, dropped on a random edge of a running
    /// simulation, joins it live: every invariant holds on, and the run
    /// reaches its end.
    #[test]
    fn a_block_inserted_live_on_an_edge_keeps_every_invariant(scenario in random_scenario(), seed in any::<u64>(),
                                                              at in 0.1f64..1.5, pick in any::<prop::sample::Index>(),
                                                              kind in prop::sample::select(vec![Kind::Window, Kind::Credit, Kind::RateLimiter,
                                                                  Kind::ConcurrencyLimiter, Kind::ResourcePool, Kind::Router])) {
        let mut sim = Simulation::new(scenario.clone(), seed).unwrap();
        sim.set_stall_bound(50_000);
        sim.run_until(SimTime::from_secs_f64(at)).ok();
        prop_assume!(sim.stopped().is_none() && !scenario.edges.is_empty());
        let edge = scenario.edges[pick.index(scenario.edges.len())].clone();
        let mut editor = sluice_engine::editor::Editor::new(scenario).unwrap();
        let at = sluice_engine::scenario::Position { x: 0.0, y: 0.0 };
        if let Err(e) = editor.insert_on_edge(kind, at, &edge.from, &edge.to) {
            // Refused only as a scenario the new block makes unsound (more
            // gates on one path than a message carries), with the reason.
            prop_assert!(matches!(e, sluice_engine::editor::EditError::Unsound(_)), "{e}");
            return Ok(());
        }
        let Some(&sluice_engine::editor::Touched::Inserted { node, from, to }) = editor.touched() else { panic!("not an insertion") };
        if let Err(e) = sim.take_insertion(editor.scenario(), node, from, to) {
            // Refused only for a scenario the new block makes invalid, or
            // in front of a dispatcher whose queues are its senders.
            let per_sender = matches!(&editor.scenario().nodes[to].block,
                BlockSpec::Dispatcher(d) if d.queues == sluice_engine::scenario::QueueKey::PerInput);
            prop_assert!(editor.scenario().validate().is_err() || per_sender, "{e}");
            return Ok(());
        }
        sim.check_invariants().map_err(|e| TestCaseError::fail(format!("{e}\n{}", sim.scenario().to_json_pretty())))?;
        let until = SimTime::from_secs_f64(3.0);
        let mut steps = 0u64;
        while sim.next_event_time().is_some_and(|t| t <= until) && steps < 2_000_000 {
            sim.step();
            steps += 1;
            sim.check_invariants().map_err(|e| TestCaseError::fail(format!("{e}\n{}", sim.scenario().to_json_pretty())))?;
        }
        prop_assert!(sim.stopped().is_some() || sim.next_event_time().is_none_or(|t| t > until));
        let report = sim.report();
        prop_assert_eq!(report.totals.produced + report.totals.resent, report.totals.delivered + report.totals.dropped + report.totals.in_system);
        prop_assert_eq!(sim.nodes().len(), sim.scenario().nodes.len());
    }

    /// The ties beside the edges, made at random in the random graphs:
    /// producers linked to consumers, consumers supervising others with
    /// initialisation time-outs, windows whose receipts go to a receive
    /// loop of their own (reading in turn, or round robin), consumers that
    /// send timed-out jobs back to their queue. Runs keep every invariant
    /// and reach their end.
    #[test]
    fn links_supervisors_receipts_and_requeues_keep_every_invariant(
        scenario in random_scenario(), seed in any::<u64>(), picks in prop::collection::vec(any::<prop::sample::Index>(), 16)) {
        let mut doc: Value = serde_json::to_value(&scenario).unwrap();
        let mut pick = picks.iter().cycle();
        let ids: Vec<String> = scenario.nodes.iter().map(|n| n.id.clone()).collect();
        let consumers: Vec<String> = scenario.nodes.iter().filter(|n| n.block.kind() == sluice_engine::scenario::Kind::Consumer).map(|n| n.id.clone()).collect();
        let nodes = doc["nodes"].as_array_mut().unwrap();
        let mut extra = Vec::new();
        for (i, node) in nodes.iter_mut().enumerate() {
            match node["kind"].as_str().unwrap_or_default() {
                "producer" if pick.next().unwrap().index(2) == 0 => {
                    node["linked_to"] = json!(consumers[pick.next().unwrap().index(consumers.len())]);
                }
                "consumer" => {
                    if pick.next().unwrap().index(2) == 0 {
                        let sup = &consumers[pick.next().unwrap().index(consumers.len())];
                        if *sup != ids[i] {
                            let timeout = 0.05 * pick.next().unwrap().index(10) as f64;
                            node["lifecycle"] = json!({"initializing_s": 0.1, "init_timeout_s": timeout, "supervisor": sup,
                                                       "shutdown_at_s": 1.5});
                        }
                    }
                    if pick.next().unwrap().index(2) == 0 {
                        node["timeout_s"] = json!(0.004);
                        node["max_retries"] = json!(2);
                        node["on_timeout"] = json!("requeue");
                    }
                }
                "window" if pick.next().unwrap().index(2) == 0 => {
                    let reader = format!("receipts_of_{i}");
                    node["receipts"] = json!({"to": reader, "retransmit_after_s": 0.05});
                    let discipline = if pick.next().unwrap().index(2) == 0 { "alternate" } else { "round_robin" };
                    extra.push(json!({"id": reader, "kind": "dispatcher", "queues": "per_class", "discipline": discipline,
                                      "capacity": 2, "on_full": "refuse", "service_time": {"dist": "exponential", "mean": 0.01}}));
                }
                _ => {}
            }
        }
        nodes.extend(extra);
        // Some draws are refused (a supervisor chain back to itself, a
        // requeue with no queue before it): those ties are taken off, named
        // by the error, and the rest must run.
        let mut scenario = None;
        for _ in 0..3 {
            match Scenario::from_value(doc.clone()) {
                Ok(s) => {
                    scenario = Some(s);
                    break;
                }
                Err(e) => {
                    for err in &e.errors {
                        let k: Option<usize> = err.path.strip_prefix("nodes[").and_then(|r| r.split(']').next()).and_then(|k| k.parse().ok());
                        let Some(k) = k else { continue };
                        if err.path.ends_with("on_timeout") {
                            doc["nodes"][k].as_object_mut().unwrap().remove("on_timeout");
                        } else if err.path.ends_with("supervisor") {
                            doc["nodes"][k]["lifecycle"].as_object_mut().unwrap().remove("supervisor");
                        }
                    }
                }
            }
        }
        let scenario = scenario.unwrap_or_else(|| panic!("still refused: {}", Scenario::from_value(doc.clone()).unwrap_err()));
        let mut sim = Simulation::new(scenario, seed).unwrap();
        sim.set_stall_bound(50_000);
        let until = SimTime::from_secs_f64(2.0);
        let mut steps = 0u64;
        while sim.next_event_time().is_some_and(|t| t <= until) && steps < 2_000_000 {
            sim.step();
            steps += 1;
            if let Err(e) = sim.check_invariants() {
                panic!("{e}\nseed {seed}\nscenario: {}", sim.scenario().to_json_pretty());
            }
        }
        prop_assert!(sim.stopped().is_some() || sim.next_event_time().is_none_or(|t| t > until),
                     "{steps} steps got to {} of 2 s\n{}", sim.now(), sim.scenario().to_json_pretty());
        drops_have_their_kinds_reasons(&sim);
    }

    /// Every run of every block either moves its clock on or is stopped by
    /// the watchdog, never spins: in each slice of twice the watchdog's
    /// bound of events, simulated time advances, or the run ends, or the
    /// watchdog says where it stopped.
    #[test]
    fn every_run_advances_or_is_stopped(scenario in prop_oneof![3 => random_scenario(), 1 => loop_without_time()],
                                        seed in any::<u64>()) {
        const BOUND: u64 = 20_000;
        let mut sim = Simulation::new(scenario, seed).unwrap();
        sim.set_stall_bound(BOUND);
        let until = SimTime::from_secs_f64(2.0);
        for _ in 0..25 {
            let (before, events) = (sim.now(), sim.events());
            match sim.run_until_bounded(until, 2 * BOUND) {
                Ok(true) => break,
                Ok(false) => prop_assert!(sim.now() > before, "{} events at {before} and the clock did not move\n{}",
                                          sim.events() - events, sim.scenario().to_json_pretty()),
                Err(stop) => {
                    let sluice_engine::Stop::Stalled(stall) = stop else { panic!("not a stall: {stop}") };
                    prop_assert_eq!(stall.events, BOUND);
                    prop_assert_eq!(stall.at, sim.now());
                    prop_assert!(!stall.nodes.is_empty());
                    break;
                }
            }
            sim.check_invariants().map_err(TestCaseError::fail)?;
        }
    }

    /// Progress: a block holding messages (a queue, a consumer serving, a
    /// link, a dispatcher) passes one on or drops one within a bounded
    /// simulated time, unless an outage, a down period or a lifecycle phase
    /// that serves nothing is under way somewhere. The graphs are the
    /// random ones with every wait made bounded (service times, sizes and
    /// links), so that the bound is a property of the graph, not luck.
    #[test]
    fn every_held_message_moves_within_a_bounded_time(scenario in random_scenario().prop_map(bounded_waits),
                                                      seed in any::<u64>()) {
        let patience = patience(&scenario);
        let mut sim = Simulation::new(scenario, seed).unwrap();
        sim.set_stall_bound(50_000);
        let until = SimTime::from_secs_f64(6.0);
        let n = sim.nodes().len();
        let mut moved = vec![0u64; n];
        let mut since = vec![SimTime::ZERO; n];
        let mut held = vec![false; n];
        let mut steps = 0u64;
        while sim.next_event_time().is_some_and(|t| t <= until) && steps < 8_000_000 {
            sim.step();
            steps += 1;
            let now = sim.now();
            let excused = excused(&sim);
            for i in 0..n {
                let stats = sim.stats(i);
                let m = stats.departed + stats.dropped_total();
                let holds = holds_messages(&sim.nodes()[i]);
                // The clock starts when the block begins to hold.
                let began = holds && !held[i];
                held[i] = holds;
                if excused || began || m != moved[i] || !holds {
                    moved[i] = m;
                    since[i] = now;
                } else if now.as_secs_f64() - since[i].as_secs_f64() > patience {
                    panic!("at {now}: \"{}\" has held messages since {} and passed on or dropped none \
                            (patience {patience} s)\nseed {seed}\n{}",
                           sim.node_id(i), since[i], sim.scenario().to_json_pretty());
                }
            }
        }
        prop_assert!(sim.stopped().is_some() || sim.next_event_time().is_none_or(|t| t > until),
                     "{steps} steps got to {} of 6 s", sim.now());
    }

    #[test]
    fn the_shortcuts_do_what_the_general_paths_do(scenario in prop_oneof![random_scenario(), served_queue()],
                                                 seed in any::<u64>(),
                                                 change_at in 0.1f64..1.5) {
        let until = SimTime::from_secs_f64(2.0);
        let change = SimTime::from_secs_f64(change_at);
        let mut plain = Simulation::new(scenario.clone(), seed).unwrap();
        let mut counted = Simulation::new(scenario, seed).unwrap();
        counted.count_flows();
        for sim in [&mut plain, &mut counted] {
            sim.run_until_bounded(change, 100_000).expect("the run ends");
            halve_limits(sim);
            sim.run_until_bounded(until, 100_000).expect("the run ends");
        }
        prop_assert_eq!(plain.events(), counted.events());
        prop_assert_eq!(plain.report(), counted.report(), "scenario: {}", plain.scenario().to_json_pretty());
    }

    /// A queue's depth, counted from the messages crossing its edges and
    /// dropped there, is what the queue says it holds after every event,
    /// and within its capacity (lowered midway: never growing above it).
    #[test]
    fn a_queue_holds_what_came_in_less_what_left_or_was_dropped(scenario in random_scenario(), seed in any::<u64>(),
                                                                change_at in 0.1f64..1.5) {
        let mut sim = Simulation::new(scenario, seed).unwrap();
        sim.count_flows();
        sim.set_stall_bound(50_000);
        let (until, change) = (SimTime::from_secs_f64(2.0), SimTime::from_secs_f64(change_at));
        let (mut changed, mut steps) = (false, 0u64);
        let mut bounds = Bounds::default();
        while sim.next_event_time().is_some_and(|t| t <= until) && steps < 2_000_000 {
            sim.step();
            steps += 1;
            if let Err(e) = held_by_the_edges(&sim).and_then(|()| bounds.check(&sim)) {
                panic!("{e}\nseed {seed}\nscenario: {}", sim.scenario().to_json_pretty());
            }
            if !changed && sim.now() >= change {
                changed = true;
                halve_limits(&mut sim);
                bounds.lowered(&sim);
            }
        }
    }

    #[test]
    fn damaged_scenarios_never_panic(path in prop::collection::vec(any::<prop::sample::Index>(), 1..5),
                                     replacement in damage()) {
        let mut doc: Value = serde_json::from_str(sluice_engine::DEFAULT_SCENARIO).unwrap();
        replace_at(&mut doc, &path, replacement);
        if let Ok(scenario) = Scenario::from_json(&doc.to_string()) {
            let mut sim = Simulation::new(scenario, 1).unwrap();
            sim.run_until_bounded(SimTime::from_secs_f64(1.0), 20_000).expect("the run ends");
            sim.check_invariants().unwrap();
        }
    }
}

/// Closed-loop clients that think for 0 s, whose requests are sometimes
/// dropped on the spot (a rate limiter that rejects, a full queue): once
/// they are, the loop takes no time. Validation cannot see it; the watchdog
/// must stop it.
fn loop_without_time() -> impl Strategy<Value = Scenario> {
    (3u32..9, any::<bool>(), prop::sample::select(vec!["timer", "batch", "anchored", "natural_period", "spread", "sliding", "token_bucket"]),
     1.0f64..5.0, middle_block())
        .prop_map(|(clients, by_limiter, scheme, limit, extra)| {
            let dropper = if by_limiter {
                json!({"id": "drop", "kind": "rate_limiter", "on_excess": "reject",
                       "rules": [{"scheme": scheme, "limit": limit, "span_s": 1.3}]})
            } else {
                json!({"id": "drop", "kind": "queue", "capacity": {"messages": 1}, "on_full": "drop_newest"})
            };
            let mut extra = extra;
            extra["id"] = json!("extra");
            json!({"version": 1, "nodes": [
                {"id": "clients", "kind": "producer",
                 "arrivals": {"process": "closed_loop", "clients": clients, "think": {"dist": "fixed", "value": 0}}},
                dropper, extra,
                {"id": "server", "kind": "consumer", "workers": if by_limiter { 50 } else { 1 },
                 "service_time": {"dist": "fixed", "value": 0.7}}],
                "edges": [{"from": "clients", "to": "drop"}, {"from": "drop", "to": "extra"}, {"from": "extra", "to": "server"}]})
        })
        .prop_filter_map("a block that needs no output, or more gates than a message carries", |doc| Scenario::from_value(doc).ok())
}

/// Producers into one queue into one consumer, the shape the event loop's
/// shortcuts serve, with every kind of producer, queue and consumer.
fn served_queue() -> impl Strategy<Value = Scenario> {
    (prop::collection::vec(producer(), 1..3), queue_block(), consumer_block()).prop_map(|(producers, queue, consumer)| {
        let n = producers.len();
        let mut nodes = producers;
        for node in nodes.iter_mut() {
            node["classes"][0]["destination"] = json!("server");
            node["classes"][1]["destination"] = json!("server");
        }
        let mut edges: Vec<Value> = (0..n).map(|i| json!({"from": format!("n{i}"), "to": "line"})).collect();
        edges.push(json!({"from": "line", "to": "server"}));
        for (i, node) in nodes.iter_mut().enumerate() {
            node["id"] = json!(format!("n{i}"));
        }
        let (mut queue, mut consumer) = (queue, consumer);
        queue["id"] = json!("line");
        consumer["id"] = json!("server");
        nodes.extend([queue, consumer]);
        Scenario::from_value(json!({"version": 1, "nodes": nodes, "edges": edges}))
            .unwrap_or_else(|e| panic!("generated scenario is invalid: {e}"))
    })
}

/// Halves every queue's capacity, every window and every consumer's
/// workers while running: a change that strands nothing must keep the
/// invariants.
fn halve_limits(sim: &mut Simulation) {
    for i in 0..sim.scenario().nodes.len() {
        let mut block = sim.scenario().nodes[i].block.clone();
        match &mut block {
            sluice_engine::BlockSpec::Queue(q) => q.capacity.messages /= 2,
            sluice_engine::BlockSpec::Window(w) => w.max_messages = (w.max_messages / 2).max(1),
            sluice_engine::BlockSpec::Consumer(c) => c.workers = (c.workers / 2).max(1),
            _ => continue,
        }
        let id = sim.scenario().nodes[i].id.clone();
        sim.reconfigure(&id, block).unwrap();
        sim.check_invariants().unwrap();
    }
}

/// Every bounded quantity holds its bound: a queue's depth (capacity), a
/// window's messages in flight per scope, a concurrency limiter's jobs, a
/// consumer's busy workers, a resource pool's workers, a netsendq window.
/// A live change may lower a bound below what is already there: a value
/// above its bound must then never grow, only drain.
#[derive(Default)]
struct Bounds {
    last: HashMap<(usize, usize), u64>,
}

impl Bounds {
    /// Every bounded quantity now: where it is, what it is, its value and
    /// its bound.
    fn readings(sim: &Simulation) -> Vec<((usize, usize), &'static str, u64, u64)> {
        let mut all = Vec::new();
        for (i, node) in sim.nodes().iter().enumerate() {
            let mut values: Vec<(&'static str, u64, u64)> = Vec::new();
            match (node, &sim.scenario().nodes[i].block) {
                (Node::Queue(q), BlockSpec::Queue(spec)) if spec.capacity.messages > 0 => {
                    values.push(("queued messages", q.len() as u64, spec.capacity.messages))
                }
                (Node::Window(w), BlockSpec::Window(spec)) if spec.max_messages > 0 => {
                    values.extend(w.in_flight_by_scope().iter().map(|f| ("messages in flight", f.messages, spec.max_messages)))
                }
                (Node::ConcurrencyLimiter(l), _) => values.push(("jobs in flight", l.in_flight(), l.spec().max_in_flight)),
                (Node::Consumer(c), _) => values.push(("busy workers", c.busy() as u64, c.spec().workers as u64)),
                (Node::ResourcePool(p), _) => {
                    let (idle, busy, creating) = p.counts();
                    values.push(("workers", (idle + busy + creating) as u64, p.spec().max_total as u64))
                }
                (Node::Dispatcher { demands: d, pool: workers, .. }, _) => {
                    values.push(("busy workers", workers.busy() as u64, workers.spec().workers as u64));
                    values.extend(d.in_flight_by_window().into_iter().map(|(f, w)| ("sent and unanswered", f, w)));
                }
                _ => {}
            }
            all.extend(values.into_iter().enumerate().map(|(slot, (what, value, bound))| ((i, slot), what, value, bound)));
        }
        all
    }

    fn check(&mut self, sim: &Simulation) -> Result<(), String> {
        for (key, what, value, bound) in Self::readings(sim) {
            let last = self.last.insert(key, value).unwrap_or(0);
            if value > bound && value > last {
                return Err(format!("at {}: \"{}\" has {value} {what}, over its bound of {bound} (and up from {last})",
                                   sim.now(), sim.node_id(key.0)));
            }
        }
        Ok(())
    }

    /// Bounds were just lowered: what stands now is the new starting point.
    fn lowered(&mut self, sim: &Simulation) {
        self.last = Self::readings(sim).into_iter().map(|(key, _, value, _)| (key, value)).collect();
    }
}

/// A queue's depth counted from the messages themselves, not from the
/// queue: those taken across its incoming edges, less those taken across
/// its outgoing ones and those dropped there (the run's flow counters,
/// kept by the hop, not by the block). It must be what the queue says it
/// holds.
fn held_by_the_edges(sim: &Simulation) -> Result<(), String> {
    let Some(flows) = sim.flows() else { return Ok(()) };
    let ends = sim.scenario().edge_ends();
    for (i, node) in sim.nodes().iter().enumerate() {
        let Node::Queue(q) = node else { continue };
        let crossed = |k: usize| flows.of_edge(k).iter().sum::<u64>();
        let came: u64 = ends.iter().enumerate().filter(|(_, e)| e.1 == Some(i)).map(|(k, _)| crossed(k)).sum();
        let left: u64 = ends.iter().enumerate().filter(|(_, e)| e.0 == Some(i)).map(|(k, _)| crossed(k)).sum();
        let dropped = sim.stats(i).dropped_total();
        let held = came as i64 - left as i64 - dropped as i64;
        if held != q.len() as i64 {
            return Err(format!(
                "at {}: \"{}\" says it holds {} messages, but {came} came in, {left} left and {dropped} were dropped there",
                sim.now(), sim.node_id(i), q.len()
            ));
        }
    }
    Ok(())
}

/// Whether a block holds messages that it must pass on or drop.
fn holds_messages(node: &Node) -> bool {
    match node {
        Node::Queue(q) => !q.is_empty(),
        Node::Consumer(c) => c.busy() > 0,
        Node::Link(l) => l.holds() > 0,
        Node::Dispatcher { demands: d, pool: workers, .. } => d.waiting() > 0 || workers.busy() > 0,
        _ => false,
    }
}

/// Whether something that lawfully holds messages for a while is under
/// way: an outage, a link down, a host down, a consumer not yet or no
/// longer serving.
fn excused(sim: &Simulation) -> bool {
    let now = sim.now().as_secs_f64();
    sim.nodes().iter().any(|node| match node {
        Node::Consumer(c) => c.in_outage() || c.phase() != Phase::Operational,
        Node::Link(l) => !l.is_up(),
        Node::Dispatcher { demands: d, pool: workers, .. } => {
            workers.in_outage() || d.spec().hosts_down.iter().any(|h| h.from_s <= now && now <= h.to_s)
        }
        _ => false,
    })
}

/// The same graph with every wait bounded: service times uniform on
/// [0, 2 × mean] (no unbounded tail), every message of one size, links
/// fast enough that one message crosses in under 10 ms, and dispatchers
/// fair: strict priorities and an event loop that runs what is added
/// while it iterates starve a queue for as long as another keeps coming
/// (the flaws lessons 2 and 10 teach), and a dispatcher's time-to-live is
/// lazy, so a starved demand never even expires.
fn bounded_waits(scenario: Scenario) -> Scenario {
    let mut doc = serde_json::to_value(&scenario).unwrap();
    for node in doc["nodes"].as_array_mut().unwrap() {
        if node["kind"] == "dispatcher" {
            if node["discipline"] == "priority" {
                node["discipline"] = json!("round_robin");
            }
            if node["iteration"] == "all" {
                node["iteration"] = json!("snapshot");
            }
        }
        if let Some(service) = node.get_mut("service_time") {
            let mean = service.get("mean").or(service.get("value")).and_then(Value::as_f64).unwrap_or(0.002);
            *service = json!({"dist": "uniform", "min": 0.0, "max": 2.0 * mean});
        }
        if let Some(classes) = node.get_mut("classes").and_then(Value::as_array_mut) {
            for class in classes {
                class["size"] = json!({"dist": "fixed", "value": 500});
            }
        }
        // A limiter whose callers wait as long as it takes (tower's
        // buffer with nothing shedding above it, Go's Wait or Reserve
        // without a deadline) holds a flood's backlog for ever: tower sheds
        // at its top, Go's callers give up after a deadline.
        if node["product"] == "tower" {
            if let Some(layers) = node["layers"].as_array_mut() {
                layers.retain(|l| l["layer"] != "load_shed");
                layers.insert(0, json!({"layer": "load_shed"}));
            }
        }
        if node["product"] == "go_rate" && node["call"] != "allow" {
            let deadline = node["timeout_s"].as_f64().unwrap_or(0.2).min(0.2);
            node["call"] = json!("wait");
            node["timeout_s"] = json!(deadline);
        }
        // nginx delays a request of the burst by up to burst ÷ rate, which
        // at a rate per minute outlasts the run: rated per second, at least
        // as fast as its burst, it delays by a second at most.
        if node["product"] == "nginx_limit_req" && node["nodelay"] == false {
            let burst = node["burst"].as_f64().unwrap_or(0.0);
            let rate = node["rate"].as_f64().unwrap_or(1.0);
            node["per"] = json!("second");
            node["rate"] = json!(rate.max(burst).max(1.0) as u64);
        }
        if node["kind"] == "link" {
            let bw = node["bandwidth_bytes_per_s"].as_f64().unwrap_or(0.0);
            if bw > 0.0 {
                node["bandwidth_bytes_per_s"] = json!(bw.max(50_000.0));
            }
        }
    }
    Scenario::from_value(doc).unwrap_or_else(|e| panic!("the bounded graph is invalid: {e}"))
}

/// How long a block may lawfully hold messages without passing one on:
/// the longest service (slowed down, retried after time-outs), the spans
/// of the rate limiters a message may wait through, the latencies of
/// windows, credits, links and pools, with room to spare.
fn patience(scenario: &Scenario) -> f64 {
    let doc = serde_json::to_value(scenario).unwrap();
    let mut longest = 0.0f64;
    let mut waits = 0.0;
    for node in doc["nodes"].as_array().unwrap() {
        if let Some(max) = node["service_time"]["max"].as_f64() {
            let retries = node["max_retries"].as_f64().unwrap_or(0.0) + 1.0;
            longest = longest.max(max * 4.0 * retries);
        }
        for rule in node["rules"].as_array().into_iter().flatten() {
            waits += rule["span_s"].as_f64().unwrap_or(0.0);
        }
        if node["product"] == "nginx_limit_req" && node["nodelay"] == false {
            let per = if node["per"] == "minute" { 60.0 } else { 1.0 };
            waits += node["burst"].as_f64().unwrap_or(0.0) * per / node["rate"].as_f64().unwrap_or(1.0);
        }
        for latency in ["ack_latency_s", "grant_latency_s", "latency_s", "create_s", "close_after_idle_s", "timeout_s", "timeout_queue_s"] {
            waits += node[latency].as_f64().unwrap_or(0.0);
        }
    }
    1.0 + 2.0 * (longest + waits)
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

fn damage() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("JSON has no NaN or infinity", |f| f.is_finite()).prop_map(Value::from),
        Just(json!(1e308)),
        Just(json!(-1)),
        Just(json!(0)),
        "[a-z_]{0,12}".prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
        Just(json!({"dist": "exponential", "mean": 0})),
        Just(json!("queue")),
    ]
}

/// Replaces the value reached by following `path` (each step picks a key or
/// an element; the walk stops early at a leaf) with `replacement`.
fn replace_at(doc: &mut Value, path: &[prop::sample::Index], replacement: Value) {
    let Some((step, rest)) = path.split_first() else {
        *doc = replacement;
        return;
    };
    match doc {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(step.index(map.len())).cloned().unwrap();
            replace_at(map.get_mut(&key).unwrap(), rest, replacement);
        }
        Value::Array(items) if !items.is_empty() => {
            let i = step.index(items.len());
            replace_at(&mut items[i], rest, replacement);
        }
        leaf => *leaf = replacement,
    }
}

/// Each node dropped only for the reasons a sweep measures of its kind
/// (`Measure::drop_reasons`, whose shares add up to its drop probability),
/// or merged (no loss).
fn drops_have_their_kinds_reasons(sim: &Simulation) {
    for (i, node) in sim.scenario().nodes.iter().enumerate() {
        let kind = node.block.kind();
        for reason in sluice_engine::DropReason::ALL {
            let n = sim.stats(i).dropped[reason as usize];
            let measured = Measure::drop_reasons(kind).contains(&reason) || !reason.is_loss();
            assert!(n == 0 || measured, "\"{}\" ({kind:?}) dropped {n} as {}, a reason its kind is not measured by\n{}",
                    node.id, reason.as_str(), sim.scenario().to_json_pretty());
        }
    }
}
