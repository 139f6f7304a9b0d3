//! Every drop and every state change of every shipped scenario and lesson
//! gets a cause chain, and every fact a chain cites is true of the run at
//! its instant, as a separate run stopped there shows it: a report field,
//! a setting, a state held since an instant (against every transition the
//! run logged), what a block held as it acted, a count over a second, and
//! which block refused which.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use sluice_engine::explain::{last_at, Chain, Explainer, Fact, Subject};
use sluice_engine::lesson::{apply, catalogue};
use sluice_engine::timeline::Run;
use sluice_engine::why::{What, Why};
use sluice_engine::{Scenario, SimTime, Simulation, State};

/// How long each case runs, and the events it may take at most (the
/// retry storms make a million events a simulated second).
const SECONDS: f64 = 12.0;
const MAX_EVENTS: u64 = 150_000;

fn cases() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut found: Vec<_> = std::fs::read_dir(&dir).expect("the scenarios folder").map(|e| e.expect("an entry").path()).collect();
    found.sort();
    let mut cases: Vec<(String, Scenario)> = found
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let scenario = Scenario::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, scenario)
        })
        .collect();
    for lesson in catalogue() {
        let mut scenario = lesson.scenario.clone();
        for (k, step) in lesson.text.steps.iter().enumerate() {
            if step.changes.is_empty() {
                continue;
            }
            scenario = apply(&scenario, &step.changes).unwrap_or_else(|e| panic!("lesson {}: step {}: {e}", lesson.text.number, k + 1));
            cases.push((format!("lesson {} after step {}", lesson.text.number, k + 1), scenario.clone()));
        }
        for which in 0..2 {
            if let Ok(variant) = lesson.variant(which) {
                cases.push((format!("lesson {} variant {}", lesson.text.number, ["A", "B"][which]), variant));
            }
        }
    }
    cases
}

/// The case run with every record kept, within its bounds.
fn recorded(scenario: &Scenario) -> Run {
    let mut sim = Simulation::new(scenario.clone(), scenario.seed_or_default()).expect("it runs");
    sim.record_whys();
    let mut run = Run::with(sim, 4_096, usize::MAX);
    let _ = run.run_until_bounded(SimTime::from_secs_f64(SECONDS), MAX_EVENTS);
    run
}

/// Whether `from` offers messages to `to`: along the scenario's edges, or
/// the paths beside them a block's settings name (a window's receipts to
/// its receipt queue, a consumer's requeued jobs to the queue before it).
fn offers_to(scenario: &Scenario, from: usize, to: usize) -> bool {
    let spec = serde_json::to_value(&scenario.nodes[from]).unwrap();
    let receipts = spec.pointer("/receipts/to").and_then(|v| v.as_str()) == Some(scenario.nodes[to].id.as_str());
    let requeue = spec.get("on_timeout").and_then(|v| v.as_str()) == Some("requeue")
        && scenario.edges.iter().any(|e| e.to == scenario.nodes[from].id && e.from == scenario.nodes[to].id);
    receipts || requeue || downstream(scenario, from, to)
}

/// Whether `to` is reached from `from` along the scenario's edges.
fn downstream(scenario: &Scenario, from: usize, to: usize) -> bool {
    let mut todo = vec![from];
    let mut seen = vec![from];
    while let Some(n) = todo.pop() {
        if n == to {
            return true;
        }
        for e in scenario.edges.iter().filter(|e| e.from == scenario.nodes[n].id) {
            if let Some(m) = scenario.node_index(&e.to) {
                if !seen.contains(&m) {
                    seen.push(m);
                    todo.push(m);
                }
            }
        }
    }
    false
}

/// The facts to check, gathered by the instant or event they speak of.
#[derive(Default)]
struct ToCheck {
    /// Facts about the end of an instant (readings, settings, a flow's
    /// ends), by instant.
    at: BTreeMap<SimTime, Vec<Fact>>,
    /// Nodes whose counters are read at the end of an instant (the ends
    /// of the flows), by instant.
    counted: BTreeMap<SimTime, Vec<usize>>,
    flows: Vec<Fact>,
    /// What a node held as it acted, by event number.
    held: BTreeMap<u64, Vec<(usize, u64)>>,
    states: Vec<Fact>,
}

/// Runs the case again alone, event by event, and checks each fact there.
fn check_facts(name: &str, scenario: &Scenario, mut facts: ToCheck, events: u64) {
    let mut sim = Simulation::new(scenario.clone(), scenario.seed_or_default()).expect("it runs");
    let mut transitions: Vec<(SimTime, usize, State, State)> = Vec::new();
    let mut counts: HashMap<(SimTime, usize), (u64, u64)> = HashMap::new();
    let mut logged = 0;
    let check_instant = |sim: &Simulation, facts: Vec<Fact>| {
        for fact in facts {
            match &fact {
                Fact::Reading { node, field, value, .. } => {
                    let report = serde_json::to_value(sim.node_report(*node)).unwrap();
                    assert_eq!(report.get(*field), Some(value), "{name}: {fact:?}");
                }
                Fact::Setting { node, path, value, .. } => {
                    let spec = serde_json::to_value(&sim.scenario().nodes[*node]).unwrap();
                    assert_eq!(spec.pointer(path), Some(value), "{name}: {fact:?}");
                }
                Fact::Sources { node, counts, .. } => {
                    let held: Vec<(usize, u64)> = counts.iter().map(|s| (s.node, s.messages)).collect();
                    assert_eq!(held, sim.held_by_source(*node), "{name}: {fact:?}");
                    assert_eq!(held.iter().map(|s| s.1).sum::<u64>(), sim.stats(*node).depth_messages.value(), "{name}: {fact:?}: every message it held");
                }
                Fact::Where { gate, counts, .. } => {
                    let seen: Vec<(usize, u64)> = counts.iter().map(|s| (s.node, s.messages)).collect();
                    assert_eq!(seen, sim.gated_where(*gate), "{name}: {fact:?}");
                    assert!(seen.iter().map(|s| s.1).sum::<u64>() <= sim.stats(*gate).depth_messages.value(), "{name}: {fact:?}: more than it counts in flight");
                }
                _ => unreachable!(),
            }
        }
    };
    let mut pre: HashMap<usize, (u64, u64)> = HashMap::new();
    loop {
        let next = sim.next_event_time();
        // Every instant before the next event is over.
        let over = |t: SimTime| !(next.is_some_and(|n| n <= t) && sim.events() < events);
        while let Some((&t, _)) = facts.at.iter().next().filter(|(&t, _)| over(t)) {
            check_instant(&sim, facts.at.remove(&t).unwrap());
        }
        while let Some((&t, _)) = facts.counted.iter().next().filter(|(&t, _)| over(t)) {
            for node in facts.counted.remove(&t).unwrap() {
                counts.insert((t, node), (sim.stats(node).arrived, sim.stats(node).departed));
            }
        }
        if sim.events() >= events || next.is_none() {
            break;
        }
        let k = sim.events() + 1;
        if let Some(list) = facts.held.get(&k) {
            for &(node, _) in list {
                pre.insert(node, (sim.stats(node).depth_messages.value(), sim.stats(node).activity()));
            }
        }
        assert!(sim.step());
        if let Some(list) = facts.held.remove(&k) {
            for (node, held) in list {
                // Within the event the depth moves by one a message taken,
                // passed on or dropped: it was within that many of both ends.
                let ((a, before), b) = (pre[&node], sim.stats(node).depth_messages.value());
                let moved = sim.stats(node).activity() - before;
                assert!(held.abs_diff(a) <= moved && held.abs_diff(b) <= moved, "{name}: node {node} held {held} in event {k}: {a} before it, {b} after, {moved} messages moved");
            }
        }
        let total = sim.transitions().total() as usize;
        let new = total - logged;
        let entries: Vec<_> = sim.transitions().entries().collect();
        assert!(new <= entries.len(), "{name}: more transitions in one event than the log keeps");
        for t in &entries[entries.len() - new..] {
            transitions.push((t.time, t.node, t.from, t.to));
        }
        logged = total;
    }
    assert!(facts.at.is_empty() && facts.held.is_empty() && facts.counted.is_empty(), "{name}: facts past the run's end");
    for fact in facts.flows {
        let Fact::Flow { node, from, to, arrived, departed } = fact else { unreachable!() };
        let (a0, d0) = counts[&(from, node)];
        let (a1, d1) = counts[&(to, node)];
        assert_eq!((a1 - a0, d1 - d0), (arrived, departed), "{name}: the flow at node {node} from {from:?} to {to:?}");
    }
    for fact in facts.states {
        let Fact::InState { node, state, since, at } = fact else { unreachable!() };
        let family = state.family();
        assert!(transitions.iter().any(|&(t, n, _, to)| n == node && t == since && to == state), "{name}: node {node} entered {state} at {since:?}: no such transition");
        let left = transitions.iter().any(|&(t, n, _, to)| n == node && t > since && t < at && to.family() == family && to != state);
        assert!(!left, "{name}: node {node} left {state} between {since:?} and {at:?}");
    }
}

// Some four minutes in a debug build: a stage of its own runs it in
// release (some 40 s).
#[test]
#[cfg_attr(debug_assertions, ignore = "run in release by the explain stage")]
fn every_drop_and_state_change_of_every_shipped_scenario_and_lesson_has_a_true_chain() {
    let mut whys_in_all = 0;
    let mut refusals_in_all = 0;
    for (name, scenario) in cases() {
        let run = recorded(&scenario);
        let sim = run.sim();
        let all: Vec<Why> = sim.whys().all().to_vec();
        // Every drop and every state change has its record.
        let dropped: u64 = (0..sim.nodes().len()).map(|i| sim.stats(i).dropped_total()).sum();
        let changed = sim.transitions().total();
        let drops = all.iter().filter(|w| matches!(w.what, What::Dropped { .. })).count() as u64;
        assert_eq!((drops, all.len() as u64 - drops), (dropped, changed), "{name}: records of drops and changes");
        let mut explainer = Explainer::new(&run);
        let mut facts = ToCheck::default();
        // And every block held back at each whole second: what refuses it.
        let mut subjects: Vec<Subject> = all.iter().map(|w| Subject::Event(*w)).collect();
        let mut s = 1.0;
        while SimTime::from_secs_f64(s) <= run.now() {
            for node in 0..sim.nodes().len() {
                if let Some(held @ Subject::HeldBack { .. }) = last_at(&run, SimTime::from_secs_f64(s), node) {
                    subjects.push(held);
                }
            }
            s += 1.0;
        }
        let held_back = subjects.len() - all.len();
        refusals_in_all += held_back;
        for subject in &subjects {
            let chain: Chain = explainer.chain_of(subject);
            let first = &chain.links[0];
            match subject {
                Subject::Event(why) => assert_eq!((first.node, first.at), (why.node as usize, why.at), "{name}: a chain starts at its event"),
                Subject::HeldBack { held, .. } => assert_eq!((first.node, first.at), (held.by as usize, held.since), "{name}: a refusal's chain starts at the refuser"),
            }
            for link in &chain.links {
                assert!(!link.text.is_empty() && !link.text.contains("{") && link.text.ends_with('.'), "{name}: {:?}", link.text);
                // No setting left out of its sentence: "its ." or "( held;".
                for gap in [" .", "( ", "(;", " ,", "; )", "its ,"] {
                    assert!(!link.text.contains(gap), "{name}: {:?} has a gap ({gap:?})", link.text);
                }
                // A threshold a change names was reached by what it held.
                if link.text.contains("reaching its") {
                    let held = link.facts.iter().find_map(|f| match f {
                        Fact::Held { messages, bytes, .. } => Some((*messages, *bytes)),
                        _ => None,
                    });
                    let (messages, bytes) = held.unwrap_or_else(|| panic!("{name}: {:?} cites no holding", link.text));
                    for fact in &link.facts {
                        if let Fact::Setting { path, value, .. } = fact {
                            let limit = value.as_f64().unwrap_or(f64::MAX);
                            let reached = if path.ends_with("/bytes") { bytes as f64 >= limit } else { messages as f64 >= limit };
                            assert!(!path.contains("_limit/") || reached, "{name}: {:?} names {path} {limit}, not reached", link.text);
                        }
                    }
                }
                // A queue refuses as full only when it refuses on full (one
                // that drops on full refuses only as it asks for a pause).
                if link.text.contains(": it was full (") {
                    let on_full = link.facts.iter().find_map(|f| match f {
                        Fact::Setting { path: "/on_full", value, .. } => value.as_str(),
                        _ => None,
                    });
                    assert_eq!(on_full, Some("refuse"), "{name}: {:?}", link.text);
                }
                for fact in &link.facts {
                    match fact {
                        Fact::Reading { at, .. } | Fact::Setting { at, .. } | Fact::Sources { at, .. } | Fact::Where { at, .. } => {
                            facts.at.entry(*at).or_default().push(fact.clone())
                        }
                        Fact::Flow { from, to, node, .. } => {
                            facts.counted.entry(*from).or_default().push(*node);
                            facts.counted.entry(*to).or_default().push(*node);
                            facts.flows.push(fact.clone());
                        }
                        Fact::Held { node, event, messages, .. } => facts.held.entry(*event).or_default().push((*node, *messages)),
                        Fact::InState { .. } => facts.states.push(fact.clone()),
                        Fact::RefusedBy { node, by, since, at } => {
                            assert!(since <= at, "{name}: {fact:?}");
                            assert!(offers_to(&scenario, *node, *by), "{name}: {fact:?}: the refuser is not offered anything by it");
                        }
                    }
                }
            }
        }
        whys_in_all += all.len();
        check_facts(&name, &scenario, facts, sim.events());
    }
    eprintln!("{whys_in_all} drops and state changes explained, and {refusals_in_all} blocks held back");
    assert!(refusals_in_all > 100, "only {refusals_in_all} blocks held back in all");
    assert!(whys_in_all > 10_000, "only {whys_in_all} drops and changes in all: the cases hardly exercise the chains");
}

/// Lesson 3's two variants (one window shared by both destinations, one
/// per destination) part first at the window, the block that decided
/// otherwise, and A's chain then is the shared window refusing what the
/// fast receiver was sent, its messages in flight on the far link.
#[test]
fn a_and_b_part_first_at_the_block_that_decided_otherwise() {
    use sluice_engine::explain::diverge;
    let lesson = catalogue().into_iter().find(|l| l.text.number == 3).unwrap();
    let (a, b) = (lesson.variant(0).unwrap(), lesson.variant(1).unwrap());
    let run = |s: &Scenario| {
        let mut run = Run::new(Simulation::new(s.clone(), s.seed_or_default()).unwrap());
        run.run_until(SimTime::from_secs_f64(5.0)).unwrap();
        run
    };
    let (ra, rb) = (run(&a), run(&b));
    let parted = diverge(&ra, &rb, SimTime::from_secs_f64(5.0)).expect("they part");
    assert_eq!(parted.id, "window", "{parted:?}");
    assert!(parted.says.starts_with("in A window "), "{}", parted.says);
    // Nothing differed before: the runs stopped just before stand alike.
    let before = SimTime::from_nanos(parted.at.as_nanos() - 1);
    let (sa, sb) = (ra.at(before), rb.at(before));
    for (i, n) in sa.scenario().nodes.iter().enumerate() {
        let j = sb.scenario().node_index(&n.id).unwrap();
        assert_eq!((sa.stats(i).arrived, sa.stats(i).departed), (sb.stats(j).arrived, sb.stats(j).departed), "{} before {:?}", n.id, parted.at);
    }
    let a_says: Vec<&str> = parted.a.as_ref().expect("a chain in A").links.iter().map(|l| l.text.as_str()).collect();
    assert!(a_says[0].contains("window refused") && a_says[0].contains("in far_link"), "{a_says:?}");
    // The same scenario against itself never parts.
    assert_eq!(diverge(&ra, &run(&a), SimTime::from_secs_f64(5.0)), None);
}

/// A band of a state strip asked about (`Asked::Entered`) is explained by
/// what a run stepped alone finds, event by event, with every record kept:
/// the change the block was last in as the band began, if that is into
/// the band's state; else the first change into that state an event
/// within the band brought; else nothing.
#[test]
fn a_band_asked_about_finds_how_its_state_began_as_a_run_stepped_alone_does() {
    use sluice_engine::explain::{find, Asked};
    // Lesson 1's slow reader: the client's one worker takes 10 ms a message.
    let mut file: serde_json::Value = serde_json::from_str(sluice_engine::DEFAULT_SCENARIO).unwrap();
    let client = file["nodes"].as_array_mut().unwrap().iter_mut().find(|n| n["id"] == "client").unwrap();
    client["workers"] = 1.into();
    client["service_time"] = serde_json::json!({"dist": "fixed", "value": 0.01});
    let scenario = Scenario::from_value(file).unwrap();
    let seed = scenario.seed_or_default();
    let node = scenario.node_index("sender").unwrap();
    let end = SimTime::from_secs_f64(20.0);
    let mut run = Run::with(Simulation::new(scenario.clone(), seed).unwrap(), 4_096, usize::MAX);
    run.run_until(end).unwrap();
    let into = |w: &Why, to: State| w.node as usize == node && matches!(w.what, What::Changed { to: s, .. } if s == to);
    let (mut held, mut entered, mut none) = (0, 0, 0);
    for k in 0..26 {
        let from = SimTime::from_secs_f64(0.25 + 0.75 * k as f64);
        let until = SimTime::from_secs_f64((from.as_secs_f64() + 1.5).min(20.0));
        for &to in sluice_engine::Strip::Send.states() {
            let mut alone = Simulation::new(scenario.clone(), seed).unwrap();
            alone.record_whys();
            alone.run_until(from).unwrap();
            let last = alone.whys().all().iter().rev().find(|w| w.node as usize == node && matches!(w.what, What::Changed { .. })).copied();
            let expected = match last.filter(|w| into(w, to)) {
                Some(w) => {
                    assert_eq!(alone.state_times(node).map(|s| s.state()), Some(to), "the last change is the state it is in");
                    held += 1;
                    Some(w)
                }
                None => {
                    let mut first = None;
                    while first.is_none() && alone.now() <= until {
                        let kept = alone.whys().all().len();
                        if !alone.step() || alone.now() > until {
                            break;
                        }
                        first = alone.whys().all()[kept..].iter().find(|w| into(w, to)).copied();
                    }
                    if first.is_some() { entered += 1 } else { none += 1 }
                    first
                }
            };
            let found = find(&run, end, node, Asked::Entered { to, from, until });
            assert_eq!(found, expected.map(Subject::Event), "{to:?} from {:.2} s to {:.2} s", from.as_secs_f64(), until.as_secs_f64());
        }
    }
    assert!(held > 5 && entered > 5 && none > 5, "{held} held from before, {entered} entered within, {none} with none");
    // A band after the instant shown has not happened there.
    let later = SimTime::from_secs_f64(10.0);
    assert_eq!(find(&run, later, node, Asked::Entered { to: State::Overloaded, from: SimTime::from_secs_f64(11.0), until: end }), None);
}

/// A scenario of `nodes` joined by `edges`, as the file writes them.
fn graph(nodes: serde_json::Value, edges: &[(&str, &str)]) -> Scenario {
    let edges: Vec<serde_json::Value> = edges.iter().map(|(f, t)| serde_json::json!({"from": f, "to": t})).collect();
    Scenario::from_value(serde_json::json!({"version": 1, "nodes": nodes, "edges": edges})).unwrap()
}

/// A queue at its soft limit asks for a pause: what a link brings it is
/// left unread, and its chain says so; a producer offering straight to it
/// is refused only when the queue is full, and its chain says full, even
/// when full means its bytes before its count of messages reached a bound.
#[test]
fn a_queue_asking_for_a_pause_leaves_a_link_unread_and_refuses_a_producer_only_full() {
    let nodes = |via_link: bool| {
        let mut nodes = vec![
            serde_json::json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 100},
                               "backpressure": "ignore", "classes": [{"name": "m", "size": {"dist": "fixed", "value": 300}}]}),
            serde_json::json!({"id": "q", "kind": "queue", "soft_limit": {"messages": 1000, "bytes": 500}, "hard_limit": {"messages": 2000, "bytes": 5000},
                               "capacity": {"messages": 50, "bytes": 1000}, "on_full": "refuse"}),
            serde_json::json!({"id": "c", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": 0.1}}),
        ];
        if via_link {
            nodes.push(serde_json::json!({"id": "l", "kind": "link", "bandwidth_bytes_per_s": 1_000_000, "latency_s": 0.001, "buffer": {"bytes": 100_000}}));
        }
        serde_json::Value::Array(nodes)
    };
    for via_link in [false, true] {
        let scenario = if via_link { graph(nodes(true), &[("p", "l"), ("l", "q"), ("q", "c")]) } else { graph(nodes(false), &[("p", "q"), ("q", "c")]) };
        let run = recorded(&scenario);
        let sender = if via_link { 3 } else { 0 };
        let held = run.sim().whys().last_held_back(sender).expect("the queue refused its sender");
        assert_eq!(held.by, 1, "the queue refused");
        let there = run.at(held.since);
        assert!(there.pauses(1), "the queue asks for a pause as it refuses");
        let q = there.stats(1);
        assert!(q.depth_messages.value() < 50, "not full by its count of messages: {}", q.depth_messages.value());
        assert_eq!(held.unread, via_link, "left unread only in a link");
        let chain = Explainer::new(&run).chain_of(&Subject::HeldBack { node: sender, held, at: held.since });
        let text = &chain.links[0].text;
        if via_link {
            assert!(text.contains("asks its inputs to pause and stops reading its links"), "{text}");
        } else {
            assert!(text.contains(": it was full (") && text.contains("capacity (bytes) 1,000"), "{text}");
        }
    }
}

/// A count of what a block passed while it refused runs over a tenth of a
/// second at least, however late the hold began; not before a change of
/// the block's settings; and the bound it cites is the one the count ran
/// under, a change made at the very instant explained (while paused there)
/// bounding none of it.
#[test]
fn a_flow_is_counted_over_a_tenth_at_least_and_under_the_settings_it_cites() {
    let nodes = serde_json::json!([
        {"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 200}},
        {"id": "c", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": 0.02}},
    ]);
    let scenario = graph(nodes, &[("p", "c")]);
    let flow_of = |chain: &Chain| {
        let link = chain.links.iter().find(|l| l.facts.iter().any(|f| matches!(f, Fact::Flow { .. }))).expect("the chain counts a flow").clone();
        let (from, to, departed) = link.facts.iter().find_map(|f| match f {
            Fact::Flow { from, to, departed, .. } => Some((from.as_secs_f64(), to.as_secs_f64(), *departed)),
            _ => None,
        }).unwrap();
        let service = link.facts.iter().find_map(|f| match f {
            Fact::Setting { path: "/service_time", value, .. } => value["value"].as_f64(),
            _ => None,
        });
        (from, to, departed, service, link.text)
    };
    let t = |s: f64| SimTime::from_secs_f64(s);

    // Asked of an instant a few milliseconds into a hold that began late
    // (offers at random, nearly as many as it serves): a tenth back.
    let random = graph(serde_json::json!([
        {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 45}},
        {"id": "c", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": 0.02}},
    ]), &[("p", "c")]);
    let run = recorded(&random);
    let held = run.at(t(6.0)).whys().last_held_back(0).expect("the consumer refused the producer");
    assert!(held.since > t(1.0), "a late hold: {:?}", held.since);
    let late = held.since + sluice_engine::SimDuration::from_nanos(3_000_000);
    let chain = Explainer::new(&run).chain_of(&Subject::HeldBack { node: 0, held, at: late });
    let (from, to, _, _, text) = flow_of(&chain);
    assert!((to - from - 0.1).abs() < 1e-9 && to == late.as_secs_f64(), "counted from {from} to {to}: {text}");
    assert!(text.contains(" a second)"), "{text}");

    let mut sim = Simulation::new(scenario.clone(), 1).unwrap();
    sim.record_whys();
    let mut run = Run::with(sim, 64, usize::MAX);
    run.run_until(t(2.0)).unwrap();

    // Twice as fast, changed at 2 s exactly, explained at 2 s: counted and
    // bounded under the old service time, 50 a second.
    let mut edited = scenario.clone();
    edited.nodes[1].block = graph(serde_json::json!([
        {"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 200}},
        {"id": "c", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": 0.01}},
    ]), &[("p", "c")]).nodes[1].block.clone();
    run.take_blocks(&edited, &[1]).unwrap();
    let Some(subject @ Subject::HeldBack { .. }) = last_at(&run, t(2.0), 0) else { panic!("held back at 2 s") };
    let (from, to, departed, service, text) = flow_of(&Explainer::new(&run).chain_of(&subject));
    assert_eq!((to, service), (2.0, Some(0.02)), "{text}");
    assert!(to - from >= 0.1 && departed as f64 <= (to - from) * 50.0 + 1.0, "{departed} from {from} to {to}: {text}");

    // Run on 0.03 s past the change: counted from the change, never before,
    // too short a span to give a rate, bounded by the new service time.
    run.run_until(t(2.03)).unwrap();
    let Some(subject @ Subject::HeldBack { .. }) = last_at(&run, t(2.03), 0) else { panic!("held back at 2.03 s") };
    let (from, to, _, service, text) = flow_of(&Explainer::new(&run).chain_of(&subject));
    assert_eq!((from, to, service), (2.0, 2.03, Some(0.01)), "{text}");
    assert!(!text.contains(" a second)"), "{text}");
}
