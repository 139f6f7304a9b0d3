//! A run seen again at an earlier instant is the run as it stood then:
//! against a run stopped at that instant, for every ready-made scenario,
//! with live changes taken on the way, and within its memory budget.

mod support;

use std::path::Path;

use sluice_engine::timeline::Run;
use sluice_engine::heap::{measured, Counting};
use sluice_engine::{Scenario, SimTime, Simulation};
use serde_json::json;
use support::pipeline;

#[global_allocator]
static ALLOC: Counting<std::alloc::System> = Counting(std::alloc::System);

/// Everything a run shows of itself: its report, every node's counters and
/// series, its transitions, its clock and what comes next.
fn fingerprint(sim: &Simulation) -> String {
    let stats: Vec<_> = (0..sim.nodes().len()).map(|i| format!("{:?}", sim.stats(i))).collect();
    let transitions: Vec<_> = sim.transitions().entries().map(|t| format!("{t:?}")).collect();
    format!(
        "{}\n{stats:?}\n{transitions:?}\n{} events at {:?}, next {:?}, in system {}",
        sim.report().to_json_pretty(),
        sim.events(),
        sim.now(),
        sim.next_event_time(),
        sim.in_system()
    )
}

/// Asserts two fingerprints are the same, showing the first line that is
/// not.
#[track_caller]
fn same(seen: &str, reference: &str, what: &str) {
    if seen != reference {
        let (line, (a, b)) = seen.lines().zip(reference.lines()).enumerate().find(|(_, (a, b))| a != b).unwrap_or((0, ("(shorter)", "(longer)")));
        panic!("{what}: line {line} differs:\n  seen:      {a}\n  reference: {b}");
    }
}

fn at(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

fn scenarios() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut found: Vec<_> = std::fs::read_dir(&dir).expect("the scenarios folder").map(|e| e.expect("an entry").path()).collect();
    found.sort();
    found
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a scenario file");
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let scenario = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, scenario)
        })
        .collect()
}

/// A fresh run of `scenario` on `seed` stopped at `t`.
fn stopped_at(scenario: &Scenario, seed: u64, t: SimTime) -> Simulation {
    let mut sim = Simulation::new(scenario.clone(), seed).expect("it runs");
    let _ = sim.run_until(t);
    sim
}

#[test]
fn every_ready_made_scenario_seen_again_is_the_run_stopped_there_and_goes_on_the_same() {
    for (name, scenario) in scenarios() {
        let sim = Simulation::new(scenario.clone(), scenario.seed_or_default()).expect("it runs");
        // Checkpoints every 2,000 events, so that most instants lie between two.
        let mut run = Run::with(sim, 2_000, usize::MAX);
        let end = at(40.0);
        // Played in uneven slices, as a page plays it.
        let mut t = 0.0;
        while SimTime::from_secs_f64(t) < end {
            t += 0.37;
            let _ = run.run_until_bounded(at(t).min(end), 777);
        }
        let _ = run.run_until(end);
        let (kept, _) = run.checkpoints();
        assert!(kept > 1 || run.events() < 2_000, "{name}: {kept} checkpoints over {} events", run.events());
        for s in [0.0, 0.001, 3.3, 12.5, 27.0, 39.999, 40.0] {
            let seen = run.at(at(s));
            same(&fingerprint(&seen), &fingerprint(&stopped_at(&scenario, scenario.seed_or_default(), at(s))), &format!("{name} at {s} s"));
        }
        // A copy seen at 12.5 s and run on to the end is the live run.
        let mut seen = run.at(at(12.5));
        let _ = seen.run_until(end);
        same(&fingerprint(&seen), &fingerprint(&run), &format!("{name}: seen at 12.5 s, then run on"));
        // Scrubbed forward from 3.3 s to 27 s without a checkpoint.
        let mut copy = run.at(at(3.3));
        run.onward(&mut copy, at(3.3), at(27.0));
        same(&fingerprint(&copy), &fingerprint(&stopped_at(&scenario, scenario.seed_or_default(), at(27.0))), &format!("{name}: onward to 27 s"));
    }
}

/// A queue of `capacity` before `workers` serving in 20 ms on average,
/// fed 60 a second.
fn served_by(workers: u32, capacity: u32) -> Scenario {
    pipeline(
        json!({"arrivals": {"process": "poisson", "rate_per_s": 60}}),
        json!({"capacity": {"messages": capacity}}),
        json!({"workers": workers, "service_time": {"dist": "exponential", "mean": 0.02}}),
    )
}

/// Live changes are taken again where they were: one at an instant the
/// run was paused at, one between two events (a slice that ran out of
/// events), each against the same changes made by hand on a run alone.
#[test]
fn live_changes_are_taken_again_where_they_were() {
    let scenario = served_by(1, 50);
    let smaller = served_by(1, 5).nodes[1].block.clone();
    let doubled = served_by(2, 5).nodes[2].block.clone();
    let mut edited = scenario.clone();
    let mut run = Run::with(Simulation::new(scenario.clone(), 9).unwrap(), 500, usize::MAX);
    let mut by_hand = Simulation::new(scenario.clone(), 9).unwrap();

    run.run_until(at(5.0)).unwrap();
    by_hand.run_until(at(5.0)).unwrap();
    edited.nodes[1].block = smaller.clone();
    run.take_blocks(&edited, &[1]).unwrap();
    by_hand.reconfigure("q", smaller).unwrap();
    let mut at_six = by_hand.clone();
    at_six.run_until(at(6.0)).unwrap();

    assert!(!run.run_until_bounded(at(30.0), 1_234).unwrap());
    assert!(!by_hand.run_until_bounded(at(30.0), 1_234).unwrap());
    let second = run.now();
    edited.nodes[2].block = doubled.clone();
    run.take_blocks(&edited, &[2]).unwrap();
    by_hand.reconfigure("c", doubled).unwrap();
    let at_second = fingerprint(&by_hand);

    run.run_until(at(30.0)).unwrap();
    by_hand.run_until(at(30.0)).unwrap();
    same(&fingerprint(&run), &fingerprint(&by_hand), "the live run is the run by hand");

    same(&fingerprint(&run.at(at(3.0))), &fingerprint(&stopped_at(&scenario, 9, at(3.0))), "before any change");
    same(&fingerprint(&run.at(at(6.0))), &fingerprint(&at_six), "after the first change");
    same(&fingerprint(&run.at(second)), &at_second, "at the second change, made");
    let mut on = run.at(second);
    on.run_until(at(30.0)).unwrap();
    same(&fingerprint(&on), &fingerprint(&run), "seen at the second change and run on");
    let mut copy = run.at(at(4.0));
    run.onward(&mut copy, at(4.0), at(30.0));
    same(&fingerprint(&copy), &fingerprint(&run), "scrubbed forward over both changes");
}

/// A fork makes an earlier instant the live one: the run goes on from it
/// as a run stopped there would, changes after it forgotten.
#[test]
fn a_fork_goes_on_from_the_instant_and_forgets_what_came_after() {
    let scenario = served_by(1, 50);
    let mut edited = scenario.clone();
    edited.nodes[1].block = served_by(1, 5).nodes[1].block.clone();
    let mut run = Run::with(Simulation::new(scenario.clone(), 4).unwrap(), 1_000, usize::MAX);
    run.run_until(at(20.0)).unwrap();
    run.take_blocks(&edited, &[1]).unwrap();
    run.run_until(at(30.0)).unwrap();
    let before = fingerprint(&run);
    let before_at_25 = fingerprint(&run.at(at(25.0)));
    let old = run.fork_at(at(12.0));
    assert_eq!(old.now(), at(30.0), "what the old future had reached");
    assert_eq!(run.now(), at(12.0));
    // The old future comes back, its change taken again.
    let mut back = run.clone();
    assert!(back.restore(old.clone()));
    same(&fingerprint(&back), &before, "the old future restored");
    same(&fingerprint(&back.at(at(25.0))), &before_at_25, "the old future restored, at 25 s");
    // The new one goes on without it.
    run.run_until(at(30.0)).unwrap();
    same(&fingerprint(&run), &fingerprint(&stopped_at(&scenario, 4, at(30.0))), "no change at 20 s in the new future");
    same(&fingerprint(&run.at(at(25.0))), &fingerprint(&stopped_at(&scenario, 4, at(25.0))), "at 25 s in the new future");
    assert!(run.restore(old), "a run gone on from the fork, with no change taken, goes back to the old future");
    same(&fingerprint(&run), &before, "the old future restored after the new one ran on");
}

/// Over its budget, the checkpoints thin and then the oldest go; what is
/// kept never takes more than the budget, as the allocator counts it.
#[test]
fn checkpoints_stay_within_their_budget_as_the_allocator_counts_them() {
    let scenario = support::slowed_default_scenario();
    let budget = 3 << 20;
    let mut run = Run::with(Simulation::new(scenario.clone(), 2).unwrap(), 1_000, budget);
    let mut most = 0;
    for s in 1..=300 {
        run.run_until(at(s as f64)).unwrap();
        most = most.max(run.bytes());
    }
    let (kept, widest) = run.checkpoints();
    assert!(most <= budget, "{most} bytes kept, over {budget}");
    assert!(widest > 1_000 && kept > 2, "thinned to gaps of {widest} events at most, {kept} kept");
    // Thinned evenly: the budget is used nearly whole, and no gap is much
    // wider than the run shared out among the checkpoints kept.
    assert!(run.bytes() > budget * 3 / 4, "{} bytes of {budget}", run.bytes());
    assert!(widest <= 3 * run.events() / kept as u64, "a gap of {widest} events, {kept} checkpoints over {}", run.events());
    // The run's own count against the allocator's: a copy of the whole
    // run less a copy of the live simulation alone.
    let whole = measured(|| run.clone()).1.expect("the allocator counts");
    let live = measured(|| run.sim().clone()).1.expect("the allocator counts");
    let counted = run.bytes() as f64;
    let actual = (whole - live) as f64;
    assert!((actual - counted).abs() <= 0.05 * actual + 4096.0, "counted {counted}, the allocator {actual}");
    // Every instant kept is still exact.
    for s in [0.0, 77.7, 150.0, 299.0] {
        same(&fingerprint(&run.at(at(s))), &fingerprint(&stopped_at(&scenario, 2, at(s))), &format!("at {s} s"));
    }
}

/// A budget of one checkpoint keeps the latest one: the
/// run can be seen again from the oldest kept, not before.
#[test]
fn a_small_budget_forgets_the_oldest_instants() {
    let scenario = support::slowed_default_scenario();
    let mut sim = Simulation::new(scenario.clone(), 2).unwrap();
    sim.run_until(at(60.0)).unwrap();
    let one = measured(|| sim.clone()).1.expect("the allocator counts");
    let budget = one;
    let mut run = Run::with(Simulation::new(scenario.clone(), 2).unwrap(), 1_000, budget);
    run.run_until(at(120.0)).unwrap();
    let earliest = run.earliest();
    assert!(earliest > at(1.0), "seen again from {earliest:?} with {budget} bytes, one checkpoint {one}, {:?} kept, {} bytes", run.checkpoints(), run.bytes());
    assert!(run.bytes() <= budget || run.checkpoints().0 == 1, "{} bytes in {} checkpoints", run.bytes(), run.checkpoints().0);
    assert_eq!(run.at(SimTime::ZERO).now(), earliest, "an instant forgotten is seen at the earliest kept");
    let t = earliest.max(at(100.0));
    same(&fingerprint(&run.at(t)), &fingerprint(&stopped_at(&scenario, 2, t)), "the latest instants");
}

/// The playground as the page drives it: played to 20 s, seen again at
/// 7.5 s while the live run waits, stepped, played on from there, and
/// the fork undone.
#[test]
fn the_playground_shows_an_earlier_instant_forks_there_and_undoes_the_fork() {
    use sluice_engine::playground::Speed;
    use sluice_engine::{Command, Playground};
    let scenario = support::slowed_default_scenario();
    let seed = scenario.seed_or_default();
    let mut p = Playground::new(scenario.clone(), Vec::new()).unwrap();
    while p.run().unwrap().now() < at(20.0) {
        p.advance(0.25, Speed::Times(4.0), &|| 0.0);
    }
    let live = fingerprint(p.run().unwrap());
    let live_at = p.run().unwrap().now();

    p.apply(Command::Scrub { at_s: Some(7.5) }).unwrap();
    assert_eq!(p.scrubbed(), Some(at(7.5)));
    same(&fingerprint(p.shown().unwrap()), &fingerprint(&stopped_at(&scenario, seed, at(7.5))), "shown at 7.5 s");
    p.advance(0.25, Speed::Times(4.0), &|| 0.0);
    same(&fingerprint(p.run().unwrap()), &live, "the live run waits while an earlier instant is shown");
    // Dragged on to 9 s, then stepped by one event.
    p.apply(Command::Scrub { at_s: Some(9.0) }).unwrap();
    same(&fingerprint(p.shown().unwrap()), &fingerprint(&stopped_at(&scenario, seed, at(9.0))), "dragged on to 9 s");
    let events = p.shown().unwrap().events();
    p.apply(Command::Step { speed: Speed::Times(1.0) }).unwrap();
    assert_eq!(p.shown().unwrap().events(), events + 1, "a step moves the instant shown by one event");
    let stepped = p.scrubbed().unwrap();
    assert!(stepped > at(9.0));

    // Played on from there: the live run is the run stopped there.
    p.apply(Command::PlayFrom).unwrap();
    assert_eq!(p.scrubbed(), None);
    assert!(p.can_undo_fork(), "Undo would undo the fork");
    assert_eq!(p.run().unwrap().events(), events + 1);
    assert_eq!(p.run().unwrap().now(), stepped);
    for _ in 0..10 {
        p.advance(0.25, Speed::Times(4.0), &|| 0.0);
    }
    assert!(p.run().unwrap().now() > stepped);
    // Undo before any edit brings the old future back, though the new one
    // ran on.
    p.apply(Command::Undo).unwrap();
    assert_eq!(p.run().unwrap().now(), live_at);
    same(&fingerprint(p.run().unwrap()), &live, "the old future, back");
    assert!(!p.can_undo_fork(), "the fork is undone");
    assert!(p.apply(Command::PlayFrom).is_err(), "nothing shown at an earlier instant to play from");
    // Past the live instant: live.
    p.apply(Command::Scrub { at_s: Some(5.0) }).unwrap();
    p.apply(Command::Scrub { at_s: Some(1e9) }).unwrap();
    assert_eq!(p.scrubbed(), None);
    assert!(p.apply(Command::Scrub { at_s: Some(f64::NAN) }).is_err());
}

/// A live change after the instant played on from is made again at it: the
/// run, the canvas and the inspector agree; stepping the view over a live
/// change takes it; a link's instant already passed is shown.
#[test]
fn playing_on_from_before_a_live_change_keeps_the_parameters_the_editor_has() {
    use sluice_engine::playground::Speed;
    use sluice_engine::{Command, FieldPath, Playground};
    let scenario = served_by(1, 50);
    let mut p = Playground::new(scenario.clone(), Vec::new()).unwrap();
    p.apply(Command::RunTo { at_s: 10.0 }).unwrap();
    let field = FieldPath::parse("capacity.messages").unwrap();
    p.apply(Command::SetNumber { id: "q".into(), field, value: 5.0 }).unwrap();
    let changed_at = p.run().unwrap().events();
    p.apply(Command::RunTo { at_s: 20.0 }).unwrap();
    // Stepped over the change: the view takes it, as the live run did.
    p.apply(Command::Scrub { at_s: Some(9.999) }).unwrap();
    while p.shown().unwrap().events() <= changed_at {
        p.apply(Command::Step { speed: Speed::Times(1.0) }).unwrap();
    }
    assert_eq!(p.shown().unwrap().scenario().nodes[1].block, p.scenario().nodes[1].block, "the change, taken in the view");
    // Played on from 5 s: the queue holds 5 from there, as the editor says.
    p.apply(Command::Scrub { at_s: Some(5.0) }).unwrap();
    p.apply(Command::PlayFrom).unwrap();
    assert_eq!(p.run().unwrap().scenario().nodes[1].block, p.scenario().nodes[1].block);
    p.apply(Command::RunTo { at_s: 30.0 }).unwrap();
    let mut by_hand = Simulation::new(scenario.clone(), scenario.seed_or_default()).unwrap();
    by_hand.run_until(at(5.0)).unwrap();
    by_hand.reconfigure("q", p.scenario().nodes[1].block.clone()).unwrap();
    by_hand.run_until(at(30.0)).unwrap();
    same(&fingerprint(p.run().unwrap()), &fingerprint(&by_hand), "played on from 5 s with a queue of 5");
    // An instant already passed is shown rather than run to.
    p.apply(Command::RunTo { at_s: 12.0 }).unwrap();
    assert_eq!(p.scrubbed(), Some(at(12.0)));
}

/// The first event at which a count passes a mark, found in the kept run,
/// is the one a run stepped event by event finds: with live changes on
/// the way, checkpoints on either side, and a mark the run never passes.
#[test]
fn the_first_event_past_a_mark_is_the_one_a_run_stepped_alone_finds() {
    // Two workers at 50 a second each, fed 60: nothing overflows 50
    // places, some overflow 5.
    let scenario = served_by(2, 50);
    let smaller = served_by(2, 5).nodes[1].block.clone();
    let mut edited = scenario.clone();
    let mut run = Run::with(Simulation::new(scenario.clone(), 4).unwrap(), 300, usize::MAX);
    let mut by_hand = Simulation::new(scenario.clone(), 4).unwrap();
    run.run_until(at(5.0)).unwrap();
    by_hand.run_until(at(5.0)).unwrap();
    // Overflows begin once the queue is made small.
    edited.nodes[1].block = smaller.clone();
    run.take_blocks(&edited, &[1]).unwrap();
    by_hand.reconfigure("q", smaller).unwrap();
    let dropped = |sim: &Simulation| sim.stats(1).dropped.iter().sum::<u64>();
    assert_eq!(dropped(&by_hand), 0, "none before the change");
    run.run_until(at(40.0)).unwrap();
    let total = dropped(&run);
    assert!(total > 20, "the small queue overflows: {total}");
    for mark in [0, 1, total / 3, total - 1] {
        let found = run.first_where(run.now(), |sim| dropped(sim) > mark).expect("it happened");
        let mut alone = by_hand.clone();
        while dropped(&alone) <= mark {
            assert!(alone.step());
        }
        assert_eq!((found.events(), found.now()), (alone.events(), alone.now()), "drop number {}", mark + 1);
        same(&fingerprint(&found), &fingerprint(&alone), "the run just past the mark");
    }
    assert!(run.first_where(run.now(), |sim| dropped(sim) > total).is_none(), "a mark never passed");
    let last_instant = {
        let mut alone = by_hand.clone();
        while dropped(&alone) < total {
            assert!(alone.step());
        }
        alone.now()
    };
    let earlier = SimTime::from_nanos(last_instant.as_nanos() - 1);
    assert!(run.first_where(earlier, |sim| dropped(sim) > total - 1).is_none(), "not by the instant given");
    // Passed already at the earliest instant a small budget keeps: older
    // than the run keeps, not found.
    let one = measured(|| by_hand.clone()).1.expect("the allocator counts");
    let mut short = Run::with(Simulation::new(scenario.clone(), 4).unwrap(), 300, one);
    short.run_until(at(40.0)).unwrap();
    assert!(short.earliest() > at(1.0));
    assert!(short.first_where(short.now(), |sim| sim.events() > 0).is_none());
}

/// Many events share an instant (producers at fixed intervals), and
/// checkpoints fall between them: the first event past a mark (messages
/// come to the sender, and thinned there) is still the very one, not the
/// end of its instant.
#[test]
fn the_first_event_past_a_mark_is_found_within_its_instant() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/slow-client.json")).unwrap();
    let mut scenario = Scenario::from_json(&text).unwrap();
    let socket = scenario.node_index("socket").unwrap();
    scenario.nodes[socket].block = scenario.nodes[socket].block.with_value(&sluice_engine::FieldPath::of("bandwidth_bytes_per_s"), json!(120000)).unwrap();
    let sender = scenario.node_index("sender").unwrap();
    let thinned = |sim: &Simulation| sim.stats(sender).dropped.iter().sum::<u64>() + sim.stats(sender).arrived;
    for every in [7, 97, 1_000] {
        let mut run = Run::with(Simulation::new(scenario.clone(), 3).unwrap(), every, usize::MAX);
        run.run_until(at(12.0)).unwrap();
        let total = thinned(&run);
        assert!(total > 1000, "messages came and the slow network thinned: {total}");
        let mut alone = Simulation::new(scenario.clone(), 3).unwrap();
        let mut shared = 0;
        for mark in (0..total).step_by(7) {
            while thinned(&alone) <= mark {
                assert!(alone.step());
            }
            let found = run.first_where(run.now(), |sim| thinned(sim) > mark).expect("it happened");
            assert_eq!((found.events(), found.now()), (alone.events(), alone.now()), "every {every}: drop number {}", mark + 1);
            shared += usize::from(alone.next_event_time() == Some(alone.now()));
        }
        assert!(shared > 0, "some found events share their instant with the next");
    }
}
