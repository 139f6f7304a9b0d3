//! Which queues the theory overlay recognises as textbook systems, and why
//! the others are not: a prediction shown beside a queue the formulas do
//! not describe would teach something false.

mod support;

use serde_json::{json, Value};
use sluice_engine::lesson::{self, Lesson};
use sluice_engine::scenario::Kind;
use sluice_engine::theory::{Model, NoClosedForm};
use sluice_engine::Scenario;
use support::*;

fn poisson(rate: f64) -> Value {
    json!({"arrivals": {"process": "poisson", "rate_per_s": rate}})
}

fn exponential(mean: f64) -> Value {
    json!({"service_time": {"dist": "exponential", "mean": mean}})
}

fn model_of(scenario: &Scenario, id: &str) -> Result<Model, String> {
    Model::of(scenario, scenario.node_index(id).unwrap()).map_err(|why| why.to_string())
}

fn refused(scenario: &Scenario, naming: &str) {
    match model_of(scenario, "q") {
        Ok(model) => panic!("recognised as {model:?}, though {naming}"),
        Err(why) => assert!(why.contains(naming), "{why:?} does not say {naming:?}"),
    }
}

#[test]
fn lesson_13_is_mm1_then_mm1k_then_mm2() {
    let lessons = lesson::catalogue();
    let lesson: &Lesson = lessons.iter().find(|l| l.text.number == 13).unwrap();
    let mut scenario = lesson.scenario.clone();
    let mut names = Vec::new();
    // (A sweep step changes nothing: it sweeps a copy.)
    for step in lesson.text.steps.iter().filter(|step| step.sweep.is_none()) {
        scenario = lesson::apply(&scenario, &step.changes).unwrap();
        let prediction = model_of(&scenario, "line").unwrap().predict();
        names.push(prediction.name.clone());
        let steady = prediction.steady.unwrap();
        // The lesson's own text quotes these.
        match prediction.name.as_str() {
            "M/M/1" => assert!((steady.mean_waiting - 3.2).abs() < 1e-9 && (steady.mean_wait_s - 0.4).abs() < 1e-9),
            "M/M/1/10" => assert!((steady.drop_probability - 0.0235).abs() < 0.0001, "{steady:?}"),
            "M/M/2" => assert!((steady.mean_waiting - 2.84).abs() < 0.01 && (steady.mean_wait_s - 0.178).abs() < 0.001),
            other => panic!("{other}"),
        }
    }
    assert_eq!(names, ["M/M/1", "M/M/1/10", "M/M/2"]);
}

#[test]
fn several_poisson_producers_merge_into_one_stream() {
    let scenario = Scenario::from_value(json!({
        "version": 1,
        "nodes": [
            {"id": "a", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1.5}},
            {"id": "b", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 2.5}},
            {"id": "q", "kind": "queue"},
            {"id": "c", "kind": "consumer", "workers": 5, "service_time": {"dist": "exponential", "mean": 1.0}}
        ],
        "edges": [{"from": "a", "to": "q"}, {"from": "b", "to": "q"}, {"from": "q", "to": "c"}]
    }))
    .unwrap();
    let model = model_of(&scenario, "q").unwrap();
    assert_eq!((model.arrival_rate, model.servers), (4.0, 5));
    assert_eq!(model.predict().name, "M/M/5");
}

#[test]
fn non_exponential_service_is_mg1_only_with_one_worker_and_no_bound() {
    let fixed = json!({"service_time": {"dist": "fixed", "value": 0.1}});
    let scenario = pipeline(poisson(5.0), json!({}), fixed.clone());
    assert_eq!(model_of(&scenario, "q").unwrap().predict().name, "M/D/1");
    let mut two = fixed.clone();
    two["workers"] = json!(2);
    refused(&pipeline(poisson(5.0), json!({}), two), "2 workers with fixed service");
    refused(&pipeline(poisson(5.0), json!({"capacity": {"messages": 5}}), fixed), "a bounded queue");
}

#[test]
fn what_the_formulas_do_not_know_is_named() {
    let plain = || pipeline(poisson(5.0), json!({}), exponential(0.1));
    assert!(model_of(&plain(), "q").is_ok());

    refused(&pipeline(json!({"arrivals": {"process": "constant", "rate_per_s": 5.0}}), json!({}), exponential(0.1)), "Poisson");
    refused(&pipeline(poisson(5.0), json!({"ttl_s": 1.0}), exponential(0.1)), "expire");
    refused(&pipeline(poisson(5.0), json!({"capacity": {"bytes": 5000}}), exponential(0.1)), "bytes");
    refused(&pipeline(poisson(5.0), json!({"capacity": {"messages": 5}, "on_full": "drop_oldest"}), exponential(0.1)), "newest");
    // The default reaction at the soft limit pauses producers that obey...
    refused(&pipeline(poisson(5.0), json!({"soft_limit": {"messages": 5}}), exponential(0.1)), "pauses its producers in SoftLimit");
    // ...and one that ignores backpressure keeps its Poisson stream.
    let mut ignoring = poisson(5.0);
    ignoring["backpressure"] = json!("ignore");
    assert!(model_of(&pipeline(ignoring, json!({"soft_limit": {"messages": 5}}), exponential(0.1)), "q").is_ok());
    refused(&pipeline(poisson(5.0), json!({"hard_limit": {"messages": 50}}), exponential(0.1)), "disconnects in HardLimit");
    // Droppable classes change nothing: a queue that feeds a consumer
    // straight has no socket, so no write would block and it never thins
    // (`a_queue_without_a_socket_never_thins` in queue_states.rs).
    let mut video = poisson(5.0);
    video["classes"] = json!([{"name": "video", "droppable": true}]);
    assert!(model_of(&pipeline(video.clone(), json!({}), exponential(0.1)), "q").is_ok());
    assert!(model_of(&pipeline(video, json!({"soft_limit": {"messages": 5}, "reactions": {"soft_limit": "thin"}}), exponential(0.1)), "q").is_ok());
    let mut slow = exponential(0.1);
    slow["slowdowns"] = json!([{"from_s": 1.0, "to_s": 2.0, "factor": 3.0}]);
    refused(&pipeline(poisson(5.0), json!({}), slow), "slow-downs");
    let mut timed = exponential(0.1);
    timed["timeout_s"] = json!(1.0);
    refused(&pipeline(poisson(5.0), json!({}), timed), "time-out");
}

#[test]
fn the_default_scenario_and_a_pipeline_stage_are_not_textbook_queues() {
    let scenario = default_scenario();
    for (i, node) in scenario.nodes.iter().enumerate() {
        if node.block.kind() == sluice_engine::scenario::Kind::Queue {
            assert!(Model::of(&scenario, i).is_err(), "{} recognised", node.id);
        }
    }
    let staged = Scenario::from_value(json!({
        "version": 1,
        "nodes": [
            {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1.0}},
            {"id": "q", "kind": "queue"},
            {"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.5}},
            {"id": "q2", "kind": "queue"},
            {"id": "c2", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.5}}
        ],
        "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "c"}, {"from": "c", "to": "q2"}, {"from": "q2", "to": "c2"}]
    }))
    .unwrap();
    refused(&staged, "passes its messages on");
    assert!(model_of(&staged, "q2").unwrap_err().contains("not straight by a producer"));
    assert!(model_of(&staged, "c").unwrap_err().contains("only a queue"));
    let at = |id: &str| staged.node_index(id).unwrap();
    assert_eq!(Model::of(&staged, at("c")).unwrap_err(), NoClosedForm::NotAQueue);
    assert_eq!(Model::of(&staged, at("q2")).unwrap_err(), NoClosedForm::FedBy { kind: Kind::Consumer, id: "c".into() });
}

/// After a live change of the workers, the figures measured since the
/// change are those of the new system; the whole run mixes in the old one.
#[test]
fn measured_since_a_live_change_is_the_new_systems() {
    use sluice_engine::Mark;
    use sluice_engine::theory::Measured;
    use sluice_engine::{BlockSpec, SimTime, Simulation};
    let scenario = pipeline(poisson(8.0), json!({}), exponential(0.1));
    let mut sim = Simulation::new(scenario, 3).unwrap();
    sim.run_until(SimTime::from_secs_f64(5000.0)).unwrap();
    let c = sim.scenario().node_index("c").unwrap();
    let BlockSpec::Consumer(mut spec) = sim.scenario().nodes[c].block.clone() else { unreachable!() };
    spec.workers = 2;
    sim.reconfigure("c", BlockSpec::Consumer(spec)).unwrap();
    let q = sim.scenario().node_index("q").unwrap();
    let mark = Mark::of(&sim, q);
    sim.run_until(SimTime::from_secs_f64(25_000.0)).unwrap();
    let predicted = model_of(sim.scenario(), "q").unwrap().predict().steady.unwrap().mean_waiting;
    assert!((predicted - 0.152).abs() < 0.001, "M/M/2 at ρ = 0.4: Lq = {predicted}");
    let since = Measured::since(&sim, q, &mark).mean_waiting;
    let whole = Measured::of(&sim, q).mean_waiting;
    assert!((since - predicted).abs() < 0.25 * predicted, "since the change: {since}, theory {predicted}");
    assert!(whole > 2.0 * predicted, "the whole run mixes in M/M/1's 3.2: {whole}");
    assert_eq!(Measured::since(&sim, q, &Mark::default()), Measured::of(&sim, q), "a mark at zero is the whole run");
}

/// A producer, a queue and a consumer as the palette makes them, the
/// producer sending `rate` a second.
fn first_chain(rate: f64) -> Scenario {
    use sluice_engine::scenario::default_block;
    use sluice_engine::scenario::{Kind, NodeSpec};
    let mut nodes: Vec<NodeSpec> = [("p", Kind::Producer), ("q", Kind::Queue), ("c", Kind::Consumer)]
        .into_iter()
        .map(|(id, kind)| NodeSpec { id: id.into(), position: None, block: default_block(kind) })
        .collect();
    if let sluice_engine::BlockSpec::Producer(p) = &mut nodes[0].block {
        p.arrivals = sluice_engine::scenario::Arrivals::Poisson { rate_per_s: rate };
    }
    let with_edges = json!({"version": 1, "nodes": serde_json::to_value(&nodes).unwrap(),
                            "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "c"}]});
    Scenario::from_json(&with_edges.to_string()).unwrap()
}

#[test]
fn a_newcomers_first_queue_is_one_the_formulas_know_and_its_load_is_shown() {
    // The palette's queue is bounded and drops the newest when full, with
    // no limit to react at: M/M/1/K at once, not "it disconnects".
    let scenario = first_chain(20.0);
    let model = model_of(&scenario, "q").unwrap_or_else(|why| panic!("not recognised: {why}"));
    assert_eq!(model.room, Some(50), "{model:?}");
    // Its load, λ·E[S]/c, whatever its state: 30 a second into a consumer
    // of 0.05 s is 1.5, and stays known when a reaction makes the formulas
    // give up.
    let q = scenario.node_index("q").unwrap();
    let loaded = first_chain(30.0);
    assert!((sluice_engine::theory::offered_load(&loaded, q).unwrap() - 1.5).abs() < 1e-12);
    let mut moment = loaded.clone();
    if let sluice_engine::BlockSpec::Queue(queue) = &mut moment.nodes[q].block {
        queue.soft_limit.messages = 20;
        queue.hard_limit.messages = 60;
    }
    assert!(model_of(&moment, "q").is_err());
    assert!((sluice_engine::theory::offered_load(&moment, q).unwrap() - 1.5).abs() < 1e-12);
}

/// Every number in `value`, with its path in the one form.
fn numbers(value: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::Number(_) => out.push(at.to_string()),
        Value::Array(items) => items.iter().enumerate().for_each(|(i, item)| numbers(item, &format!("{at}[{i}]"), out)),
        Value::Object(map) => {
            for (key, item) in map {
                numbers(item, &if at.is_empty() { key.clone() } else { format!("{at}.{key}") }, out);
            }
        }
        _ => {}
    }
}

/// After one block's number changes, the queues whose theory changed are
/// all among those `theory::reading` names: working out only those again
/// gives what working out every queue again gives.
#[test]
fn only_the_queues_reading_a_changed_block_change_their_theory() {
    use sluice_engine::theory::{offered_load, reading};
    let theory = |s: &Scenario| -> Vec<_> {
        (0..s.nodes.len())
            .map(|q| (s.nodes[q].block.kind() == Kind::Queue).then(|| (Model::of(s, q).map(|m| m.predict()).ok(), offered_load(s, q))))
            .collect()
    };
    let mut moved = 0;
    for (name, text) in lesson::SCENARIOS {
        let scenario = Scenario::from_json(text).unwrap();
        let before = theory(&scenario);
        for i in 0..scenario.nodes.len() {
            let mut paths = Vec::new();
            numbers(&sluice_engine::to_value(&scenario.nodes[i].block), "", &mut paths);
            for path in paths {
                let path = sluice_engine::FieldPath::parse(&path).unwrap();
                let mut s = scenario.clone();
                let (now, _) = s.nodes[i].block.number(&path).unwrap();
                if s.nodes[i].block.set_number(&path, if now == 0.0 { 1.0 } else { now * 2.0 }).is_err() || s.validate().is_err() {
                    continue;
                }
                let after = theory(&s);
                let named = reading(&s, &[i]);
                for q in 0..s.nodes.len() {
                    if before[q] != after[q] {
                        assert!(named.contains(&q), "{name}: {} {path} changed the theory of {}", s.nodes[i].id, s.nodes[q].id);
                        moved += 1;
                    }
                }
            }
        }
    }
    assert!(moved > 10, "only {moved} changes of a theory seen");
}
