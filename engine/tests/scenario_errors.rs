//! Bad scenarios are refused with the path of what is wrong, never a panic.

use serde_json::json;
use sluice_engine::Scenario;

fn errors_of(doc: serde_json::Value) -> String {
    Scenario::from_value(doc).expect_err("should be refused").to_string()
}

/// stream → sender → client: a valid scenario to spoil one field at a time.
fn base() -> serde_json::Value {
    json!({
        "version": 1,
        "nodes": [
            {"id": "stream", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 300},
             "classes": [
                 {"name": "video", "weight": 5, "size": {"dist": "exponential", "mean": 1200}, "droppable": true},
                 {"name": "audio", "weight": 4, "size": {"dist": "fixed", "value": 200}}]},
            {"id": "sender", "kind": "queue", "soft_limit": {"messages": 50}, "hard_limit": {"messages": 100}},
            {"id": "client", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.008}}
        ],
        "edges": [{"from": "stream", "to": "sender"}, {"from": "sender", "to": "client"}]
    })
}

#[test]
fn soft_above_hard_names_the_field() {
    let mut doc = base();
    doc["nodes"][1]["soft_limit"]["messages"] = json!(500);
    assert_eq!(errors_of(doc), "nodes[1].soft_limit.messages: must not exceed hard_limit.messages (500 > 100)");
}

#[test]
fn unknown_kind_and_unknown_field_are_named() {
    let mut doc = base();
    doc["nodes"][2]["kind"] = json!("consumr");
    assert!(errors_of(doc).starts_with("nodes[2].kind: unknown block kind \"consumr\""));
    let mut doc = base();
    doc["nodes"][1]["soft_limt"] = json!({"messages": 3});
    assert!(errors_of(doc).starts_with("nodes[1].soft_limt: unknown field"));
}

#[test]
fn bad_numbers_are_named() {
    let mut doc = base();
    doc["nodes"][0]["arrivals"]["rate_per_s"] = json!(-5);
    assert_eq!(errors_of(doc), "nodes[0].arrivals.rate_per_s: must be between 0 and 1e9, got -5");
    let mut doc = base();
    doc["nodes"][2]["workers"] = json!(0);
    assert!(errors_of(doc).starts_with("nodes[2].workers: must be between 1"));
    let mut doc = base();
    doc["nodes"][0]["classes"][1]["size"] = json!({"dist": "fixed", "value": 1e300});
    assert!(errors_of(doc).starts_with("nodes[0].classes[1].size.value: must be between 1"));
    let mut doc = base();
    doc["nodes"][1]["hard_limit"]["messages"] = json!(-1);
    assert!(errors_of(doc).starts_with("nodes[1].hard_limit.messages: invalid value"));
}

#[test]
fn edges_are_checked() {
    let mut doc = base();
    doc["edges"][1]["to"] = json!("nobody");
    let e = errors_of(doc);
    assert!(e.contains("edges[1].to: no node has the id \"nobody\""), "{e}");
    assert!(e.contains("nodes[1]: a queue needs an outgoing edge"), "{e}");
    let mut doc = base();
    doc["edges"].as_array_mut().unwrap().push(json!({"from": "stream", "to": "sender"}));
    assert!(errors_of(doc).contains("edges[2]: duplicate edge from \"stream\" to \"sender\""));
    let mut doc = base();
    doc["edges"].as_array_mut().unwrap().push(json!({"from": "client", "to": "stream"}));
    let e = errors_of(doc);
    assert!(e.contains("edges[2].to: \"stream\" is a producer and takes no input"), "{e}");
    let mut doc = base();
    doc["nodes"][2]["id"] = json!("sender");
    assert!(errors_of(doc).contains("nodes[2].id: duplicate id \"sender\" (also nodes[1])"));
}

#[test]
fn version_and_shape_are_checked() {
    let mut doc = base();
    doc["version"] = json!(2);
    assert_eq!(errors_of(doc), "version: unsupported version 2; this build reads version 1");
    assert!(errors_of(json!([1, 2])).contains("must be a JSON object"));
    assert!(Scenario::from_json("{\"version\": 1, \"nodes\": [").unwrap_err().to_string().starts_with("not valid JSON"));
    let huge = " ".repeat(sluice_engine::scenario::MAX_SCENARIO_BYTES + 1);
    assert!(Scenario::from_json(&huge).unwrap_err().to_string().contains("at most"));
}

#[test]
fn hostile_inputs_never_panic() {
    let samples = [
        "", "null", "1", "\"x\"", "{}", "{\"version\": 1}", "{\"version\": 1, \"nodes\": {}}",
        "{\"version\": 1, \"nodes\": [null, 3, {\"id\": 4}]}",
        "{\"version\": 1, \"nodes\": [{\"id\": \"a\", \"kind\": \"producer\", \"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1e308}}]}",
        "{\"version\": 18446744073709551616}",
        "{\"version\": 1, \"nodes\": [{\"id\": \"a\", \"kind\": \"queue\", \"position\": {\"x\": 1e999}}]}",
    ];
    for s in samples {
        assert!(Scenario::from_json(s).is_err(), "{s}");
    }
}

#[test]
fn a_valid_scenario_round_trips_through_json() {
    let s = Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).unwrap();
    let again = Scenario::from_json(&s.to_json_pretty()).unwrap();
    assert_eq!(s, again);
}

/// A by-weight router's weights and its edges are edited one at a time:
/// in a draft the one may run ahead of the other (the draft then says what
/// it lacks), while a scenario to run must have one weight per edge.
#[test]
fn router_weights_may_lag_its_edges_in_a_draft_only() {
    let doc = json!({
        "version": 1,
        "nodes": [
            {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 10}},
            {"id": "r", "kind": "router", "policy": "by_weight", "weights": [1.0]},
            {"id": "a", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01}},
            {"id": "b", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01}}
        ],
        "edges": [{"from": "p", "to": "r"}, {"from": "r", "to": "a"}]
    });
    let mut editor = sluice_engine::Editor::new(Scenario::from_value(doc).unwrap()).unwrap();
    editor.connect("r", "b").expect("a second edge is a sound draft");
    let missing: Vec<String> = editor.missing().iter().map(|e| e.to_string()).collect();
    assert_eq!(missing, vec!["nodes[1].weights: has 1 weight(s) for 2 outgoing edge(s)".to_string()]);
    let to_run = editor.scenario().clone().validate().expect_err("not runnable yet").to_string();
    assert_eq!(to_run, "nodes[1].weights: has 1 weight(s) for 2 outgoing edge(s)");
    let mut block = serde_json::to_value(&editor.scenario().nodes[1].block).unwrap();
    block["weights"] = json!([1.0, 3.0]);
    editor.set_block("r", serde_json::from_value(block).unwrap()).unwrap();
    assert!(editor.missing().is_empty());
}

/// A type error once hid every other problem of the file, a node showed
/// only its first, and inside an arrival process or a distribution the
/// field's name was lost. Every problem is named now, in document order.
#[test]
fn every_problem_of_a_file_is_named_at_its_full_path() {
    let text = r#"{"version": 1, "nodes": [
        {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": "fast"},
         "classes": [{"name": "a", "weight": "x"}], "retry_after_s": "y"},
        {"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": "slow"}, "workers": -1},
        {"id": "q", "kind": "queue", "soft_limit": {"messages": 500}, "hard_limit": {"messages": 100}},
        {"id": "r", "kind": "router", "policy": "by_weight", "weights": [1, "two"]}],
      "edges": [{"from": "p", "to": "c"}, {"from": "x", "to": "c"}, {"from": "q", "to": 7}],
      "colour": "purple"}"#;
    let lines: Vec<String> = Scenario::from_json(text).unwrap_err().errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        lines,
        vec![
            "colour: unknown field `colour`, expected one of `version`, `name`, `description`, `seed`, `nodes`, `edges`",
            "nodes[0].arrivals.rate_per_s: invalid type: string \"fast\", expected a number",
            "nodes[0].classes[0].weight: invalid type: string \"x\", expected a number",
            "nodes[0].retry_after_s: \"y\" is not a duration such as 250ms, 7s or 2min",
            "nodes[1].service_time.mean: \"slow\" is not a duration such as 250ms, 7s or 2min",
            "nodes[1].workers: invalid value: integer `-1`, expected a whole number from 0 to 4294967295",
            "nodes[2].soft_limit.messages: must not exceed hard_limit.messages (500 > 100)",
            "nodes[3].weights[1]: invalid type: string \"two\", expected a number",
            "edges[2].to: invalid type: integer `7`, expected a string",
        ]
    );
    // With the edges whole, the graph is checked too.
    let text = text.replace(r#", {"from": "q", "to": 7}"#, "");
    let lines = Scenario::from_json(&text).unwrap_err().to_string();
    assert!(lines.contains("nodes[2]: a queue needs an outgoing edge; none leaves \"q\""), "{lines}");
    assert!(lines.contains("edges[1].from: no node has the id \"x\""), "{lines}");
    assert!(!lines.contains("nodes[3].weights: has"), "a stand-in's own problems are not the file's: {lines}");
}

#[test]
fn a_key_given_twice_is_refused_with_its_path() {
    let e = Scenario::from_json(r#"{"version": 2, "version": 1, "nodes": []}"#).unwrap_err();
    assert_eq!(e.errors[0].path, "version");
    assert!(e.errors[0].message.starts_with("this key appears twice in one object"), "{e}");
    let mut doc = base();
    doc["nodes"][1]["soft_limit"] = json!({"messages": 3});
    let text = doc.to_string().replacen(r#""messages":3"#, r#""messages":3,"messages":4"#, 1);
    assert_eq!(Scenario::from_json(&text).unwrap_err().errors[0].path, "nodes[1].soft_limit.messages");
}

#[test]
fn what_a_file_says_is_echoed_escaped_and_short() {
    let mut doc = base();
    doc["nodes"][0]["id"] = json!(format!("\u{1b}[31m{}", "x".repeat(5000)));
    doc["edges"][0]["to"] = json!("\u{202e}gnirts");
    doc["nodes"][1]["\u{7}bell"] = json!(1);
    let text = errors_of(doc);
    assert!(!text.chars().any(|c| c.is_control() && c != '\n' || c == '\u{202e}'), "{text:?}");
    assert!(text.contains("\"\\u{1b}[31mxxx"), "{text}");
    assert!(text.contains("\"\\u{202e}gnirts\""), "{text}");
    assert!(text.contains("\\u{7}bell"), "{text}");
    assert!(text.len() < 2_000, "{} bytes", text.len());
}

/// However many problems a file has, a refusal stays readable: the first
/// 200, in document order, and how many more.
#[test]
fn a_file_with_thousands_of_problems_lists_the_first_two_hundred() {
    let queue = |i: usize, soft: u64| json!({"id": format!("q{i}"), "kind": "queue", "soft_limit": {"messages": soft},
                                              "hard_limit": {"messages": 1}});
    // Range problems only (and the missing edges), then type problems too.
    for soft in [json!(5), json!("five")] {
        let nodes: Vec<serde_json::Value> = (0..1000).map(|i| {
            let mut q = queue(i, 5);
            q["soft_limit"]["messages"] = soft.clone();
            q
        }).collect();
        let e = Scenario::from_value(json!({"version": 1, "nodes": nodes})).unwrap_err();
        assert_eq!(e.errors.len(), 201, "{}", e.errors.len());
        assert!(e.errors[0].path.starts_with("nodes[0]"), "{}", e.errors[0]);
        assert!(e.errors[200].message.starts_with("and ") && e.errors[200].message.ends_with(" more problems"), "{}", e.errors[200]);
    }
}

/// The limits of a concurrency limiter and of a router's weights, at and
/// past their edges.
#[test]
fn limiter_and_router_limits_are_named_at_their_edges() {
    let with_middle = |block: serde_json::Value| {
        let mut doc = base();
        let mut block = block;
        block["id"] = json!("middle");
        doc["nodes"].as_array_mut().unwrap().push(block);
        doc["edges"] = json!([{"from": "stream", "to": "middle"}, {"from": "middle", "to": "sender"},
                              {"from": "middle", "to": "client"}, {"from": "sender", "to": "client"}]);
        doc
    };
    let limiter = |n: serde_json::Value| {
        let mut doc = with_middle(json!({"kind": "concurrency_limiter", "max_in_flight": n}));
        // A limiter has one output.
        doc["edges"].as_array_mut().unwrap().remove(2);
        doc
    };
    for bad in [json!(0), json!((1u64 << 32) + 1)] {
        assert_eq!(errors_of(limiter(bad)), "nodes[3].max_in_flight: must be between 1 and 2^32");
    }
    for good in [json!(1), json!(1u64 << 32)] {
        Scenario::from_value(limiter(good)).expect("a limit at its edge is valid");
    }
    let router = |weights: serde_json::Value| with_middle(json!({"kind": "router", "policy": "by_weight", "weights": weights}));
    assert!(errors_of(router(json!([]))).starts_with("nodes[3].weights: needs one weight per outgoing edge"));
    assert!(errors_of(router(json!([0, 0]))).starts_with("nodes[3].weights: at least one weight must be greater than 0"));
    assert!(errors_of(router(json!([1, -1]))).starts_with("nodes[3].weights[1]: must be between 0 and 1e9"));
    Scenario::from_value(router(json!([0, 2.5]))).expect("one weight above 0 is enough");
}

#[test]
fn message_priorities_name_what_they_set() {
    let mut doc = base();
    doc["nodes"][1]["order"] = json!("priority");
    doc["nodes"][1]["message_priorities"] = json!([{"priority": 0}]);
    assert_eq!(errors_of(doc), "nodes[1].message_priorities[0]: names no class, destination or source, so it sets nothing");
    let mut doc = base();
    doc["nodes"][1]["message_priorities"] = json!([{"source": "client", "priority": 0}]);
    assert_eq!(errors_of(doc), "nodes[1].message_priorities[0].source: no producer has the id \"client\"");
    let mut doc = base();
    doc["nodes"][1]["message_priorities"] = json!([{"source": "stream", "class": "video", "priority": 0}]);
    assert!(Scenario::from_value(doc).is_ok());
}

#[test]
fn links_and_supervisors_name_a_consumer() {
    let mut doc = base();
    doc["nodes"][0]["linked_to"] = json!("sender");
    assert_eq!(errors_of(doc), "nodes[0].linked_to: no consumer has the id \"sender\"");
    let mut doc = base();
    doc["nodes"][2]["lifecycle"] = json!({"supervisor": "client"});
    assert_eq!(errors_of(doc), "nodes[2].lifecycle.supervisor: a consumer cannot supervise itself");
    let mut doc = base();
    doc["nodes"].as_array_mut().unwrap().push(json!({"id": "other", "kind": "consumer",
        "service_time": {"dist": "fixed", "value": 0.1}, "lifecycle": {"supervisor": "client"}}));
    doc["nodes"][2]["lifecycle"] = json!({"supervisor": "other"});
    assert!(errors_of(doc).contains("the supervisors form a cycle back to this consumer"));
    let mut doc = base();
    doc["nodes"][2]["lifecycle"] = json!({"init_timeout_s": -1});
    assert!(errors_of(doc).starts_with("nodes[2].lifecycle.init_timeout_s: must be between 0"));
}

#[test]
fn sizes_and_durations_take_unit_suffixes_and_a_wrong_one_is_named() {
    let mut doc = base();
    doc["nodes"][1]["ttl_s"] = json!("250ms");
    doc["nodes"][1]["soft_limit"]["bytes"] = json!("16kib");
    doc["nodes"][0]["classes"][1]["size"] = json!({"dist": "fixed", "value": "1kib"});
    doc["nodes"][2]["service_time"] = json!({"dist": "exponential", "mean": "8ms"});
    let s = Scenario::from_value(doc).unwrap();
    let again = serde_json::to_value(&s).unwrap();
    assert_eq!(again["nodes"][1]["ttl_s"], json!(0.25));
    assert_eq!(again["nodes"][1]["soft_limit"]["bytes"], json!(16384));
    assert_eq!(again["nodes"][0]["classes"][1]["size"]["value"], json!(1024.0));
    assert_eq!(again["nodes"][2]["service_time"]["mean"], json!(0.008));
    let mut doc = base();
    doc["nodes"][1]["ttl_s"] = json!("16kib");
    assert_eq!(errors_of(doc), "nodes[1].ttl_s: \"16kib\" is a size; expected a duration such as 250ms, 7s or 2min");
    let mut doc = base();
    doc["nodes"][2]["service_time"] = json!({"dist": "exponential", "mean": "fast"});
    assert_eq!(errors_of(doc), "nodes[2].service_time.mean: \"fast\" is not a duration such as 250ms, 7s or 2min");
}

#[test]
fn a_requeued_time_out_needs_a_job_queue() {
    let mut doc = base();
    doc["edges"] = json!([{"from": "stream", "to": "client"}]);
    doc["nodes"].as_array_mut().unwrap().remove(1);
    doc["nodes"][1]["timeout_s"] = json!(0.1);
    doc["nodes"][1]["on_timeout"] = json!("requeue");
    let e = errors_of(doc);
    assert!(e.contains("nodes[1].on_timeout: requeue sends a timed-out job back to its job queue, but no queue comes before this consumer"), "{e}");
    let mut doc = base();
    doc["nodes"][2]["on_timeout"] = json!("requeue");
    assert!(Scenario::from_value(doc).is_ok());
}

/// A small file can ask for more clients and workers than any machine
/// holds: it is refused with the budget and the nodes that ask most,
/// instead of aborting while the simulation is built.
#[test]
fn clients_and_workers_beyond_the_memory_budget_are_refused() {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for k in 0..300 {
        nodes.push(serde_json::json!({"id": format!("p{k}"), "kind": "producer",
            "arrivals": {"process": "closed_loop", "clients": 1_000_000, "think": {"dist": "fixed", "value": 1}}}));
        edges.push(serde_json::json!({"from": format!("p{k}"), "to": "c"}));
    }
    nodes.push(serde_json::json!({"id": "c", "kind": "consumer", "workers": 100_000, "service_time": {"dist": "fixed", "value": 1}}));
    let doc = serde_json::json!({"version": 1, "nodes": nodes, "edges": edges});
    let err = sluice_engine::Scenario::from_value(doc).unwrap_err().to_string();
    assert!(err.contains("come to 300100000 in all, more than the 2000000"), "{err}");
    assert!(err.contains("\"p0\" (1000000)") && err.contains("and 298 more"), "{err}");
    // 1,000 consumers of 100,000 workers each, fed by one producer.
    let mut nodes = vec![serde_json::json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1}})];
    let mut edges = Vec::new();
    nodes.push(serde_json::json!({"id": "r", "kind": "router"}));
    edges.push(serde_json::json!({"from": "p", "to": "r"}));
    for k in 0..1000 {
        nodes.push(serde_json::json!({"id": format!("c{k}"), "kind": "consumer", "workers": 100_000, "service_time": {"dist": "fixed", "value": 1}}));
        edges.push(serde_json::json!({"from": "r", "to": format!("c{k}")}));
    }
    let doc = serde_json::json!({"version": 1, "nodes": nodes, "edges": edges});
    assert!(sluice_engine::Scenario::from_value(doc).unwrap_err().to_string().contains("more than the 2000000"));
}

/// A dispatcher between the stream and the client, with `extra` fields.
fn with_dispatcher(extra: serde_json::Value) -> serde_json::Value {
    let mut doc = base();
    let mut d = json!({"id": "sender", "kind": "dispatcher", "service_time": {"dist": "fixed", "value": 0.001}});
    for (k, v) in extra.as_object().unwrap() {
        d[k] = v.clone();
    }
    doc["nodes"][1] = d;
    doc
}

#[test]
fn a_dispatcher_names_only_queues_and_classes_that_exist() {
    // Per-input queues are named after their senders.
    let err = errors_of(with_dispatcher(json!({"discipline": "priority", "queue_priorities": {"steam": 0}})));
    assert_eq!(err, "nodes[1].queue_priorities.steam: no demand queue is named \"steam\": a queue's name is a sender's id (queues per_input)");
    assert!(Scenario::from_value(with_dispatcher(json!({"discipline": "priority", "queue_priorities": {"stream": 0}}))).is_ok());
    // Per-class queues after classes; one shared queue is "shared".
    let err = errors_of(with_dispatcher(json!({"discipline": "priority", "queues": "per_class", "queue_priorities": {"vidoe": 0}})));
    assert!(err.contains("queue_priorities.vidoe: no demand queue is named \"vidoe\": a queue's name is a class"), "{err}");
    assert!(Scenario::from_value(with_dispatcher(json!({"discipline": "priority", "queues": "per_class", "queue_priorities": {"video": 0}}))).is_ok());
    let err = errors_of(with_dispatcher(json!({"discipline": "priority", "queues": "shared", "queue_priorities": {"all": 0}})));
    assert!(err.contains("\"shared\" (one shared queue)"), "{err}");
    // netsendq's windows, one-shot and queueable classes.
    let err = errors_of(with_dispatcher(json!({"discipline": "netsendq", "windows": {"vidoe": 2}, "one_shot": ["audoi"],
                                               "queueable_if_down": ["x"]})));
    assert!(err.contains("nodes[1].windows.vidoe: no producer has a class \"vidoe\""), "{err}");
    assert!(err.contains("nodes[1].one_shot[0]: no producer has a class \"audoi\""), "{err}");
    assert!(err.contains("nodes[1].queueable_if_down[0]: no producer has a class \"x\""), "{err}");
}

#[test]
fn a_hosts_periods_down_may_not_overlap_but_hosts_may_interleave() {
    let down = |periods: serde_json::Value| with_dispatcher(json!({"discipline": "netsendq", "hosts_down": periods}));
    let err = errors_of(down(json!([{"host": "client", "from_s": 1, "to_s": 5}, {"host": "client", "from_s": 3, "to_s": 8}])));
    assert_eq!(err, "nodes[1].hosts_down[1].from_s: \"client\"'s periods must be in order and not overlap");
    let interleaved =
        json!([{"host": "client", "from_s": 1, "to_s": 5}, {"host": "stream", "from_s": 2, "to_s": 3}, {"host": "client", "from_s": 6, "to_s": 7}]);
    assert!(Scenario::from_value(down(interleaved)).is_ok());
}

#[test]
fn a_credit_batch_that_could_never_fill_is_refused() {
    let mut doc = base();
    doc["nodes"].as_array_mut().unwrap().push(json!({"id": "credit", "kind": "credit", "initial_credit": 4, "grant_batch": 5}));
    doc["edges"] = json!([{"from": "stream", "to": "credit"}, {"from": "credit", "to": "sender"}, {"from": "sender", "to": "client"}]);
    let err = errors_of(doc.clone());
    assert!(err.starts_with("nodes[3].grant_batch: must not exceed initial_credit (5 > 4)"), "{err}");
    doc["nodes"][3]["grant_batch"] = json!(4);
    assert!(Scenario::from_value(doc).is_ok());
}
