use std::cell::Cell;

use serde_json::json;

use super::*;
use crate::lesson::{catalogue, Lesson, Panel};
use crate::time::SimTime;

/// A producer into a queue into a consumer: too slow for the producer.
fn pipeline() -> Scenario {
    Scenario::from_value(json!({"version": 1, "seed": 7, "nodes": [
        {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50}},
        {"id": "q", "kind": "queue", "soft_limit": {"messages": 20}, "hard_limit": {"messages": 60}},
        {"id": "c", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.05}}],
        "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "c"}]}))
    .unwrap()
}

fn playground() -> Playground {
    Playground::new(pipeline(), catalogue()).unwrap()
}

/// A clock that never moves: `Fastest` slices run on event counts alone.
fn still() -> f64 {
    0.0
}

fn at(p: &Playground) -> f64 {
    p.run().map_or(-1.0, |sim| sim.now().as_secs_f64())
}

fn block(p: &Playground, id: &str) -> BlockSpec {
    p.scenario().nodes[p.index_of(id).unwrap()].block.clone()
}

fn with(block: &BlockSpec, path: &str, value: serde_json::Value) -> BlockSpec {
    block.with_value(&crate::scenario::FieldPath::parse(path).unwrap(), value).unwrap()
}

#[test]
fn a_parameter_edit_goes_on_live_and_a_change_of_shape_starts_again() {
    let mut p = playground();
    p.advance(0.25, Speed::Times(8.0), &still);
    assert_eq!(at(&p), 2.0);
    let starts = p.starts();
    let faster = with(&block(&p, "c"), "/workers", json!(3));
    let applied = p.apply(Command::SetBlock { id: "c".into(), block: faster.clone() }).unwrap();
    assert!(applied.edited);
    assert_eq!((p.starts(), at(&p)), (starts, 2.0), "a parameter goes on live");
    assert_eq!(p.run().unwrap().scenario().nodes[2].block, faster, "the run has the new parameters");
    p.apply(Command::Move { ids: vec!["q".into()], dx: 30.0, dy: 0.0 }).unwrap();
    assert_eq!((p.starts(), at(&p)), (starts, 2.0), "moving a block leaves the run alone");
    p.apply(Command::Undo).unwrap();
    p.apply(Command::Undo).unwrap();
    assert_eq!(p.run().unwrap().scenario().nodes[2].block, block(&p, "c"), "undoing a parameter goes on live too");
    assert_eq!((p.starts(), at(&p)), (starts, 2.0));
    p.apply(Command::SetSeed(9)).unwrap();
    assert_eq!((p.starts(), at(&p)), (starts + 1, 0.0), "another seed is another run");
    p.advance(0.25, Speed::Times(4.0), &still);
    p.apply(Command::Add { kind: crate::scenario::Kind::Queue, at: None }).unwrap();
    let queue1 = p.index_of("queue1").unwrap();
    assert!(p.run().is_some_and(|sim| sim.is_held(queue1)), "a block without its output is held; the rest runs");
    p.apply(Command::Connect { from: "queue1".into(), to: "c".into() }).unwrap();
    assert_eq!(at(&p), 0.0, "a new block starts again");
}

#[test]
fn an_edit_the_run_cannot_take_starts_it_again() {
    // Receipts are a class of their own: a run cannot start making them.
    let text = crate::lesson::SCENARIOS.iter().find(|(name, _)| *name == "window-on-receipt.json").unwrap().1;
    let mut p = Playground::new(Scenario::from_json(text).unwrap(), Vec::new()).unwrap();
    p.advance(0.25, Speed::Times(4.0), &still);
    let starts = p.starts();
    let receipts = with(&block(&p, "window"), "/receipts", json!({"to": "sender_node", "retransmit_after_s": 0.2}));
    p.apply(Command::SetBlock { id: "window".into(), block: receipts }).unwrap();
    assert_eq!((p.starts(), at(&p)), (starts + 1, 0.0));
    assert!(p.run().unwrap().scenario().makes_receipts());
}

#[test]
fn a_refused_edit_changes_nothing_and_says_why() {
    let mut p = playground();
    p.advance(0.25, Speed::Times(4.0), &still);
    let (before, starts, revision) = (p.scenario().clone(), p.starts(), p.revision());
    let err = p.apply(Command::Connect { from: "c".into(), to: "p".into() }).unwrap_err();
    assert_eq!(err, PlayError::Refused(crate::editor::EditError::IntoProducer("p".into())));
    assert!(err.to_string().contains("producer"), "{err}");
    let mut bad = block(&p, "q");
    if let BlockSpec::Queue(q) = &mut bad {
        q.soft_limit.messages = 100;
    }
    let err = p.apply(Command::SetBlock { id: "q".into(), block: bad }).unwrap_err();
    assert!(err.to_string().starts_with("q: "), "{err}");
    assert_eq!((p.scenario(), p.starts(), p.revision(), at(&p)), (&before, starts, revision, 1.0));
}

#[test]
fn a_draft_does_not_run_until_it_is_complete_and_a_b_needs_a_run() {
    let mut p = playground();
    p.apply(Command::Disconnect { from: "q".into(), to: "c".into() }).unwrap();
    assert!(p.run().is_none());
    assert_eq!(p.missing().len(), 1, "{:?}", p.missing());
    assert_eq!(p.apply(Command::OpenComparison), Err(PlayError::NotRunning));
    assert!(!p.advance(0.1, Speed::Times(1.0), &still).judged);
    p.apply(Command::Connect { from: "q".into(), to: "c".into() }).unwrap();
    assert_eq!(at(&p), 0.0, "complete again: it runs from time zero");
}

#[test]
fn variant_b_keeps_pace_with_a_and_starts_again_with_it() {
    let mut p = playground();
    p.advance(0.25, Speed::Times(4.0), &still);
    p.apply(Command::OpenComparison).unwrap();
    assert_eq!(at(&p), 0.0, "both start from time zero");
    let slower = with(&block(&p, "c"), "/workers", json!(1));
    p.apply(Command::SetBlock { id: "c".into(), block: slower }).unwrap();
    for _ in 0..8 {
        p.advance(0.25, Speed::Times(4.0), &still);
    }
    let b = p.variant_b().unwrap();
    assert_eq!((at(&p), b.sim.now().as_secs_f64()), (8.0, 8.0));
    assert_eq!(b.sim.seed(), 7, "B runs on A's seed");
    p.apply(Command::Reset).unwrap();
    assert_eq!(p.variant_b().unwrap().sim.now(), SimTime::ZERO);
    let same = p.apply(Command::Import(pipeline().to_json_pretty())).unwrap();
    assert!(!same.edited && p.variant_b().is_some(), "the scenario already there changes nothing");
    let mut other = pipeline();
    other.name = "Another".into();
    p.apply(Command::Import(other.to_json_pretty())).unwrap();
    assert!(p.variant_b().is_none(), "another scenario closes the comparison");
}

#[test]
fn a_slice_is_bounded_in_real_time_and_in_events() {
    let mut p = playground();
    let advanced = p.advance(60.0, Speed::Times(1.0), &still);
    assert!(advanced.kept_up);
    assert_eq!(at(&p), MAX_SLICE_S, "a background tab does not leap ahead");
    p.advance(f64::NAN, Speed::Times(1.0), &still);
    p.advance(-3.0, Speed::Times(1.0), &still);
    p.advance(0.1, Speed::Times(f64::NAN), &still);
    p.advance(0.1, Speed::Times(-5.0), &still);
    assert_eq!(at(&p), MAX_SLICE_S, "no time, no speed: no progress, and no panic");
    assert!(!p.advance(0.1, Speed::Times(f64::INFINITY), &still).kept_up, "an endless speed is capped by events");
    // A million simulated seconds in a slice: the event cap ends it first.
    let before = p.run().unwrap().events();
    let advanced = p.advance(0.25, Speed::Times(4e6), &still);
    assert!(!advanced.kept_up);
    let events = p.run().unwrap().events() - before;
    assert!((EVENTS_PER_SLICE..=EVENTS_PER_SLICE + 1_000).contains(&events), "{events}");
    // At `Fastest`, the clock ends the slice: one that moves on at every
    // reading ends it after a few readings.
    let mut p = playground();
    let readings = Cell::new(0.0);
    let ticking = || {
        readings.set(readings.get() + 1.0);
        readings.get() * FASTEST_BUDGET_S / 4.0
    };
    assert!(p.advance(0.0, Speed::Fastest, &ticking).kept_up);
    assert!(at(&p) > 0.0);
    assert!(readings.get() <= 8.0, "{}", readings.get());
}

#[test]
fn a_lesson_step_is_judged_at_its_time_and_untried_when_its_run_ends() {
    let mut p = playground();
    let first = p.lessons().iter().position(|l| l.text.number == 1).unwrap();
    let applied = p.apply(Command::PickLesson { index: first, speed: Speed::Fastest }).unwrap();
    assert!(applied.select.is_some_and(|ids| !ids.is_empty()), "the lesson's focus is selected");
    let run = p.lesson().unwrap();
    let StepState::Watching { until_s, .. } = run.states[0] else { panic!("step 1 only watches: it begins with the lesson") };
    assert_eq!(run.tries[0], 1);
    // Fast enough to pass the judging time in one slice: it stops there.
    let mut judged = false;
    while !judged {
        judged = p.advance(0.25, Speed::Times(100.0), &still).judged;
    }
    assert_eq!(at(&p), until_s);
    assert!(matches!(p.lesson().unwrap().states[0], StepState::Judged(_)));
    p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap();
    assert!(matches!(p.lesson().unwrap().states[1], StepState::Watching { .. }));
    p.apply(Command::Reset).unwrap();
    assert_eq!(p.lesson().unwrap().states[1], StepState::NotTried);
    assert_eq!(p.apply(Command::TryStep { step: 99, speed: Speed::Fastest }), Err(PlayError::NoSuchStep(99)));
    p.apply(Command::CloseLesson).unwrap();
    assert_eq!(p.apply(Command::TryStep { step: 0, speed: Speed::Fastest }), Err(PlayError::NoLessonOpen));
    assert_eq!(p.apply(Command::PickLesson { index: 99, speed: Speed::Fastest }), Err(PlayError::NoSuchLesson(99)));
}

#[test]
fn a_step_pressed_first_plays_the_steps_it_builds_on_to_their_verdicts() {
    // Lesson 1: step 1 only watches (it begins with the lesson), steps 2
    // to 6 change the run, step 7 sweeps (beside the run), step 8 changes.
    let mut p = playground();
    let n = p.lessons().iter().position(|l| l.text.number == 1).unwrap();
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    let applied = p.apply(Command::TryStep { step: 4, speed: Speed::Fastest }).unwrap();
    let begun = applied.step.expect("step 5 began");
    assert_eq!(begun.set_up, vec![0, 1, 2, 3], "the steps before it, each to its verdict");
    assert!(applied.edited);
    let run = p.lesson().unwrap();
    assert!(run.states[..4].iter().all(|s| matches!(s, StepState::Judged(v) if v.passed)), "{:?}", run.states);
    assert!(matches!(run.states[4], StepState::Watching { .. }));
    assert_eq!(run.tries[..5], [1, 1, 1, 1, 1]);
    // Step 4's verdict came at its time: step 5 begins there, after 80 s.
    assert_eq!(at(&p), 80.0);
    // The next step in order plays nothing first, but step 5, being
    // watched, is judged before it (its verdict is not lost).
    let begun = p.apply(Command::TryStep { step: 5, speed: Speed::Fastest }).unwrap().step.unwrap();
    assert_eq!(begun.set_up, vec![4]);
    // Step 8 after step 6: the sweep of step 7 leaves the run as it is and
    // is not played first.
    let begun = p.apply(Command::TryStep { step: 7, speed: Speed::Fastest }).unwrap().step.unwrap();
    assert_eq!(begun.set_up, vec![5]);
    assert_eq!(p.lesson().unwrap().states[6], StepState::NotTried);
    // In order, from a judged step, nothing is played first.
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    while !p.advance(0.25, Speed::Times(100.0), &still).judged {}
    assert_eq!(p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap().step.unwrap().set_up, Vec::<usize>::new());
}

#[test]
fn skip_ahead_runs_the_watched_step_to_its_verdict_and_begins_a_step_that_only_watches() {
    // Lesson 9: step 1 watches to 10 s, steps 2 and 3 keep watching, step 4
    // compares.
    let mut p = playground();
    let n = p.lessons().iter().position(|l| l.text.number == 9).unwrap();
    p.apply(Command::PickLesson { index: n, speed: Speed::Times(1.0) }).unwrap();
    let StepState::Watching { until_s, .. } = p.lesson().unwrap().states[0] else { panic!("step 1 watches from the start") };
    let applied = p.apply(Command::SkipToVerdict { speed: Speed::Times(1.0) }).unwrap();
    assert_eq!(at(&p), until_s, "judged at its own time, not later");
    assert!(matches!(&p.lesson().unwrap().states[0], StepState::Judged(v) if v.passed));
    assert_eq!(applied.step.map(|b| b.step), Some(1), "step 2, which only watches, began at the verdict");
    let StepState::Watching { until_s, .. } = p.lesson().unwrap().states[1] else { panic!("step 2 is watched") };
    assert_eq!(p.apply(Command::SkipToVerdict { speed: Speed::Fastest }).unwrap().step.map(|b| b.step), Some(2), "step 3 only watches too");
    assert_eq!(at(&p), until_s);
    assert!(matches!(&p.lesson().unwrap().states[1], StepState::Judged(v) if v.passed));
    assert_eq!(p.apply(Command::SkipToVerdict { speed: Speed::Fastest }).unwrap().step, None, "step 4 compares: it waits for its press");
    assert!(matches!(&p.lesson().unwrap().states[2], StepState::Judged(v) if v.passed));
    assert_eq!(p.apply(Command::SkipToVerdict { speed: Speed::Fastest }), Err(PlayError::NothingWatched));
    p.apply(Command::CloseLesson).unwrap();
    assert_eq!(p.apply(Command::SkipToVerdict { speed: Speed::Fastest }), Err(PlayError::NoLessonOpen));
}

#[test]
fn skip_ahead_refuses_a_step_too_heavy_to_run_at_once_and_leaves_it_watched() {
    // A step that watches an hour of 50,000 arrivals a second: some
    // hundreds of millions of events, far more than SKIP_EVENTS.
    let text = json!({"version": 1, "number": 1, "title": "t", "source": "s", "summary": "s", "story": "s", "watch": "w",
        "scenario": {"version": 1, "seed": 1, "nodes": [
            {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50000}},
            {"id": "c", "kind": "consumer", "workers": 1000, "service_time": {"dist": "fixed", "value": 0.001}}],
            "edges": [{"from": "p", "to": "c"}]},
        "steps": [{"try": "t", "expect": "e", "within_s": 3600, "check": [{"node": "c", "figure": "departed", "at_least": 10}]}]});
    let lesson = Lesson::read(&text.to_string(), &|_| None).unwrap();
    let mut p = Playground::new(pipeline(), vec![lesson]).unwrap();
    p.apply(Command::PickLesson { index: 0, speed: Speed::Times(1.0) }).unwrap();
    let why = p.apply(Command::SkipToVerdict { speed: Speed::Times(1.0) }).unwrap_err();
    assert!(why.to_string().contains("more than 5,000,000 events to the verdict"), "{why}");
    // Not judged: still watched, the run stopped short of the verdict
    // after at most that many events, and it plays on from there.
    let StepState::Watching { until_s, .. } = p.lesson().unwrap().states[0] else { panic!("still watched") };
    let events = p.run().unwrap().events();
    assert!(events <= SKIP_EVENTS + 10 && at(&p) < until_s, "{events} events, at {} s", at(&p));
    let before = at(&p);
    p.advance(0.25, Speed::Times(1.0), &still);
    assert!(at(&p) > before);
}

#[test]
fn the_figure_a_comparing_step_judges_is_shown_beside_a_and_b() {
    // Lesson 2 compares the loop's latency, B/A; the totals alone say
    // nothing of it.
    let mut p = playground();
    let n = p.lessons().iter().position(|l| l.text.number == 2).unwrap();
    let k = p.lessons()[n].text.steps.iter().position(|s| s.compare).unwrap();
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    assert_eq!(p.compared_figures(), None, "nothing compared yet");
    p.apply(Command::TryStep { step: k, speed: Speed::Fastest }).unwrap();
    let (step, watched) = p.compared_figures().expect("the comparing step is watched");
    assert_eq!(step, k);
    assert!(!watched.is_empty());
    p.apply(Command::SkipToVerdict { speed: Speed::Fastest }).unwrap();
    let StepState::Judged(verdict) = &p.lesson().unwrap().states[k] else { panic!("judged") };
    let (_, figures) = p.compared_figures().expect("still shown after the verdict");
    // At the verdict's instant, B/A in the table is the ratio judged.
    let ratios: Vec<f64> = figures.iter().map(|f| f.b.unwrap() / f.a.unwrap()).collect();
    let judged: Vec<f64> = verdict.results.iter().filter(|r| r.text.contains("B/A")).map(|r| r.figure.unwrap()).collect();
    assert_eq!(ratios, judged);
    assert_eq!(figures[0].label, "io_done: mean time from made to left (s)");
    p.apply(Command::CloseComparison).unwrap();
    assert_eq!(p.compared_figures(), None, "no B, nothing to compare");
    // Compared again, then a block deleted: the runs start again, and
    // what the step compared (read on the runs that ended) is gone.
    p.apply(Command::TryStep { step: k, speed: Speed::Fastest }).unwrap();
    p.apply(Command::SkipToVerdict { speed: Speed::Fastest }).unwrap();
    assert!(p.compared_figures().is_some());
    // (The first block: every index after it moves.)
    let first = p.scenario().nodes[0].id.clone();
    p.apply(Command::Remove(vec![first])).unwrap();
    assert_eq!(p.compared_figures(), None);
    p.apply(Command::OpenComparison).unwrap();
    assert_eq!(p.compared_figures(), None, "a comparison of one's own compares no step's figure");
}

#[test]
fn a_step_whose_earlier_step_cannot_be_played_says_which() {
    // Lesson 1's step 2 changes the client; without it, step 3 pressed
    // first cannot be set up, and says so instead of failing its checks.
    let mut p = playground();
    let n = p.lessons().iter().position(|l| l.text.number == 1).unwrap();
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    p.apply(Command::Remove(vec!["client".into()])).unwrap();
    let e = p.apply(Command::TryStep { step: 2, speed: Speed::Fastest }).unwrap_err();
    assert!(matches!(e, PlayError::SetUp { step: 2, .. }), "{e:?}");
    assert!(e.to_string().starts_with("Step 3 builds on step "), "{e}");
}

#[test]
fn a_step_that_only_watches_goes_on_from_the_verdict_before_it_whenever_it_is_read() {
    // Lesson 9: step 1 watches until host_a goes down at 10 s, step 2
    // "keeps watching" until 19 s. A learner who reads step 1's verdict
    // for five seconds still has step 2 judged from 10 s to 19 s.
    let mut p = playground();
    let n = p.lessons().iter().position(|l| l.text.number == 9).unwrap();
    assert!(p.lessons()[n].text.steps[1].only_watches());
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    let mut advanced = Advanced::default();
    while !advanced.judged {
        advanced = p.advance(0.25, Speed::Times(100.0), &still);
    }
    assert_eq!(advanced.began, Some(1), "the slice that judged step 1 says step 2 began");
    // At a tenth of real time its 9 s would take 90 s: it asks for 0.5×.
    let begun = p.begun_alone(Speed::Times(0.1)).unwrap();
    assert_eq!((begun.step, begun.speed, begun.figure, begun.panel), (1, Some(Speed::Times(0.5)), None, None));
    let verdict_s = at(&p);
    assert_eq!(verdict_s, p.lessons()[n].text.steps[0].within_s, "step 1 is judged when host_a goes down");
    let run = p.lesson().unwrap();
    assert!(matches!(run.states[0], StepState::Judged(_)));
    let StepState::Watching { until_s, .. } = run.states[1] else { panic!("step 2 goes on from step 1's verdict: {:?}", run.states[1]) };
    assert_eq!(until_s, verdict_s + p.lessons()[n].text.steps[1].within_s);
    while at(&p) < verdict_s + 5.0 {
        p.advance(0.01, Speed::Times(100.0), &still);
    }
    while !matches!(p.lesson().unwrap().states[1], StepState::Judged(_)) {
        p.advance(0.25, Speed::Times(100.0), &still);
    }
    let StepState::Judged(verdict) = &p.lesson().unwrap().states[1] else { unreachable!() };
    assert!(verdict.passed, "{verdict:?}");
    // Step 3 only watches too: it follows on. Moving a block leaves its
    // watch alone; an edit of the run the learner did not press a step
    // for makes it untried again rather than judged on that edit.
    assert!(matches!(p.lesson().unwrap().states[2], StepState::Watching { .. }));
    p.apply(Command::Move { ids: vec!["host_b".into()], dx: 30.0, dy: 0.0 }).unwrap();
    assert!(matches!(p.lesson().unwrap().states[2], StepState::Watching { .. }));
    let quicker = with(&block(&p, "host_b"), "/workers", json!(2));
    p.apply(Command::SetBlock { id: "host_b".into(), block: quicker }).unwrap();
    assert_eq!(p.lesson().unwrap().states[2], StepState::NotTried);
    assert_eq!(p.lesson().unwrap().watching(), None);
}

#[test]
fn a_step_stepped_event_by_event_is_judged_at_its_instant_not_at_the_next_event() {
    // Lesson 1's first step is judged at 20 s; its traffic has no event
    // at 20 s exactly. Stepping across it stops at 20 s with the verdict,
    // and the next press goes on to the next event.
    let mut p = playground();
    let first = p.lessons().iter().position(|l| l.text.number == 1).unwrap();
    p.apply(Command::PickLesson { index: first, speed: Speed::Fastest }).unwrap();
    let StepState::Watching { until_s, .. } = p.lesson().unwrap().states[0] else { panic!("step 1 begins with the lesson") };
    while at(&p) < until_s - 0.05 {
        p.advance(0.0001, Speed::Times(100.0), &still);
    }
    assert!(matches!(p.lesson().unwrap().states[0], StepState::Watching { .. }));
    while matches!(p.lesson().unwrap().states[0], StepState::Watching { .. }) {
        p.apply(Command::Step { speed: Speed::Fastest }).unwrap();
    }
    assert_eq!(at(&p), until_s, "judged at its own instant");
    let next = p.run().unwrap().next_event_time().unwrap().as_secs_f64();
    assert!(next > until_s, "no event at the verdict's instant: the stop there is the step's own");
    let events = p.run().unwrap().events();
    p.apply(Command::Step { speed: Speed::Fastest }).unwrap();
    assert!(at(&p) > until_s && p.run().unwrap().events() == events + 1, "then one event");
}

#[test]
fn a_comparing_step_stepped_event_by_event_is_judged_at_its_instant_with_b_beside_a() {
    // Lesson 2's third step compares both loops for 60 s: stepped across
    // its instant, B follows A there and the verdict comes at once.
    let mut p = playground();
    let n = p.lessons().iter().position(|l| l.text.number == 2).unwrap();
    assert!(p.lessons()[n].text.steps[2].compare);
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    p.apply(Command::TryStep { step: 2, speed: Speed::Fastest }).unwrap();
    let StepState::Watching { until_s, .. } = p.lesson().unwrap().states[2] else { panic!("the comparison is watched") };
    while at(&p) < until_s - 0.05 {
        p.advance(0.0001, Speed::Times(100.0), &still);
    }
    let mut presses = 0;
    while matches!(p.lesson().unwrap().states[2], StepState::Watching { .. }) {
        p.apply(Command::Step { speed: Speed::Fastest }).unwrap();
        presses += 1;
        assert!(at(&p) <= until_s, "not past the verdict's instant");
        assert!(presses < 100_000);
    }
    assert_eq!(at(&p), until_s);
    assert!(matches!(p.lesson().unwrap().states[2], StepState::Judged(_)));
}

#[test]
fn a_step_that_begins_at_a_verdict_reached_event_by_event_says_so_to_the_page() {
    // Lesson 9 again, stepped one event at a time up to step 1's verdict:
    // the event that judges it answers with step 2 begun, and the speed
    // step 2 needs at a tenth of real time, as a slice of the frame loop
    // does.
    let mut p = playground();
    let n = p.lessons().iter().position(|l| l.text.number == 9).unwrap();
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    let verdict_s = p.lessons()[n].text.steps[0].within_s;
    while at(&p) + 1.0 < verdict_s {
        p.advance(0.01, Speed::Times(100.0), &still);
    }
    let mut events = 0;
    let begun = loop {
        let applied = p.apply(Command::Step { speed: Speed::Times(0.1) }).unwrap();
        events += 1;
        if matches!(p.lesson().unwrap().states[0], StepState::Judged(_)) {
            break applied.step;
        }
        assert_eq!(applied.step, None, "nothing begins before the verdict");
        assert!(events < 1_000_000, "step 1 is judged at {verdict_s} s");
    };
    let begun = begun.expect("the event that judged step 1 says step 2 began");
    assert_eq!((begun.step, begun.speed, begun.figure, begun.panel), (1, Some(Speed::Times(0.5)), None, None));
    // A step that does not only watch does not begin on its own.
    let applied = p.apply(Command::Step { speed: Speed::Times(0.1) }).unwrap();
    assert_eq!(applied.step, None);
}

#[test]
fn a_step_that_begins_at_a_sweeps_verdict_says_so_to_the_page() {
    // Lesson 13 with a step that keeps watching after its sweep: the
    // sweep's verdict begins it, and the answer to the result handed back
    // says so, with the speed a 3000 s watch needs at real time.
    let mut lesson = catalogue().into_iter().find(|l| l.text.number == 13).unwrap();
    let mut watch = lesson.text.steps[0].clone();
    watch.panel = None;
    assert!(watch.only_watches());
    lesson.text.steps.insert(2, watch);
    let mut p = Playground::new(lesson.scenario.clone(), vec![lesson]).unwrap();
    p.apply(Command::PickLesson { index: 0, speed: Speed::Fastest }).unwrap();
    p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap();
    let (ticket, _) = p.lesson_sweep().unwrap();
    let applied = p.apply(Command::JudgeSweep { ticket, result: dummy_result(), speed: Speed::Times(1.0) }).unwrap();
    let begun = applied.step.expect("the sweep's verdict begins the step that only watches");
    assert_eq!(begun.step, 2);
    assert!(matches!(begun.speed, Some(Speed::Times(times)) if times > 1.0), "{begun:?}");
    assert!(matches!(p.lesson().unwrap().states[2], StepState::Watching { .. }));
}

#[test]
fn a_step_pressed_is_judged_on_what_the_learner_then_edits() {
    let mut p = playground();
    let first = p.lessons().iter().position(|l| l.text.number == 1).unwrap();
    p.apply(Command::PickLesson { index: first, speed: Speed::Fastest }).unwrap();
    p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap();
    let id = p.scenario().nodes.iter().find(|n| n.block.kind() == crate::scenario::Kind::Consumer).unwrap().id.clone();
    let more = with(&block(&p, &id), "/workers", json!(7));
    p.apply(Command::SetBlock { id, block: more }).unwrap();
    assert!(matches!(p.lesson().unwrap().states[1], StepState::Watching { .. }), "the learner's own experiment");
}

#[test]
fn trying_a_step_while_another_is_watched_judges_the_other_first() {
    let mut p = playground();
    let first = p.lessons().iter().position(|l| l.text.number == 1).unwrap();
    p.apply(Command::PickLesson { index: first, speed: Speed::Fastest }).unwrap();
    assert!(matches!(p.lesson().unwrap().states[0], StepState::Watching { .. }));
    // Step 2 pressed while step 1 is watched, then step 3 while step 2
    // is: each watched step is judged at its time first, then the next
    // begins there.
    let begun = p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap().step.unwrap();
    assert_eq!(begun.set_up, vec![0]);
    let StepState::Watching { until_s, .. } = p.lesson().unwrap().states[1] else { panic!("step 2 is watched") };
    assert_eq!(at(&p), 20.0, "step 1 judged at 20 s");
    p.apply(Command::TryStep { step: 2, speed: Speed::Fastest }).unwrap();
    let run = p.lesson().unwrap();
    assert!(matches!(run.states[1], StepState::Judged(_)), "step 2's verdict came before step 3 began");
    assert_eq!(at(&p), until_s);
    assert!(matches!(run.states[2], StepState::Watching { .. }));
    assert_eq!(run.watching(), Some(2));
}

#[test]
fn a_comparing_step_puts_variant_a_in_the_editor_and_b_beside_it() {
    let mut p = playground();
    let differs = |l: &Lesson| l.text.steps.iter().any(|s| s.compare) && l.variant(0).unwrap().nodes != l.scenario.nodes;
    let n = p.lessons().iter().position(differs).unwrap();
    let k = p.lessons()[n].text.steps.iter().position(|s| s.compare).unwrap();
    let (a, _) = (p.lessons()[n].variant(0).unwrap(), p.lessons()[n].variant(1).unwrap());
    p.apply(Command::PickLesson { index: n, speed: Speed::Fastest }).unwrap();
    for j in 0..k {
        p.apply(Command::TryStep { step: j, speed: Speed::Fastest }).unwrap();
    }
    let before = p.scenario().nodes.clone();
    p.apply(Command::TryStep { step: k, speed: Speed::Fastest }).unwrap();
    assert_eq!(p.scenario().nodes, a.nodes);
    assert!(p.variant_b().is_some());
    assert!(matches!(p.lesson().unwrap().states[k], StepState::Watching { .. }));
    // Undo brings back the scenario as it was before the step.
    p.apply(Command::Undo).unwrap();
    assert_eq!(p.scenario().nodes, before);
}

#[test]
fn following_a_lesson_tries_every_step_once() {
    let lessons = catalogue();
    let lesson = lessons.iter().find(|l| l.text.number == 1).unwrap();
    let outcomes = follow(lesson).unwrap();
    assert_eq!(outcomes.len(), lesson.text.steps.len());
    // Step 1 starts at zero; each later step begins where the one before
    // was judged, unless its change started the run again.
    assert_eq!(outcomes[0].began_s, 0.0);
    for (before, after) in outcomes.iter().zip(&outcomes[1..]) {
        assert!(after.began_s == before.judged_s || after.began_s == 0.0, "{before:?} then {after:?}");
    }
}

#[test]
fn a_sweep_step_hands_out_its_sweep_of_the_scenario_as_edited_and_judges_what_comes_back() {
    let mut p = playground();
    let lesson = p.lessons().iter().position(|l| l.text.number == 13).unwrap();
    p.apply(Command::PickLesson { index: lesson, speed: Speed::Fastest }).unwrap();
    let first = SweepTicket { step: 1, attempt: 1 };
    assert!(p.apply(Command::JudgeSweep { ticket: first, result: dummy_result(), speed: Speed::Fastest }).is_err(), "no sweep is out yet");
    // An edit before the step: the sweep is of the scenario as it stands.
    let server = block(&p, "server");
    p.apply(Command::SetBlock { id: "server".into(), block: with(&server, "/service_time/mean", json!(0.09)) }).unwrap();
    let before = at(&p);
    p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap();
    assert_eq!(p.lesson().unwrap().states[1], StepState::Sweeping);
    let (ticket, request) = p.lesson_sweep().unwrap();
    assert_eq!(ticket, first);
    assert_eq!(request.scenario, *p.scenario());
    assert_eq!(request.vary[0].values, vec![2.0, 3.5, 5.0, 6.5, 8.0, 9.5]);
    assert_eq!(at(&p), before, "a sweep leaves the run alone");
    // Handed back, it is judged on the result it is given.
    p.apply(Command::JudgeSweep { ticket, result: dummy_result(), speed: Speed::Fastest }).unwrap();
    assert!(matches!(&p.lesson().unwrap().states[1], StepState::Judged(v) if !v.passed));
    assert!(p.lesson_sweep().is_none());
}

/// A sweep with no points: every check on it fails.
fn dummy_result() -> crate::sweep::SweepResult {
    crate::sweep::SweepResult {
        scenario: "x".into(),
        varied: vec![crate::sweep::NodeField::parse("arrivals.arrivals.rate_per_s").unwrap()],
        reps: 1,
        until_s: 1.0,
        warmup_s: 0.0,
        seed: 1,
        points: Vec::new(),
        shard: None,
        points_total: 0,
        digest: String::new(),
    }
}

#[test]
fn a_stray_block_holds_back_only_what_it_is_joined_to() {
    let mut p = playground();
    p.advance(0.25, Speed::Times(8.0), &still);
    // A producer dropped beside the pipeline, not yet connected.
    let added = p.apply(Command::Add { kind: Kind::Producer, at: None }).unwrap().select.unwrap();
    let stray = added[0].clone();
    assert_eq!(p.missing().len(), 1, "{:?}", p.missing());
    let sim = p.run().expect("the connected part runs");
    let i = p.index_of(&stray).unwrap();
    assert!(sim.is_held(i) && !sim.is_held(p.index_of("q").unwrap()));
    p.advance(0.25, Speed::Times(20.0), &still);
    let sim = p.run().unwrap();
    assert!(sim.now().as_secs_f64() > 4.0);
    assert!(sim.stats(p.index_of("c").unwrap()).departed > 0, "the pipeline serves");
    assert_eq!(sim.stats(i).arrived, 0, "the stray producer makes nothing");
    // Its parameters change while the rest runs on.
    let t = at(&p);
    p.apply(Command::SetBlock { id: stray.clone(), block: with(&block(&p, &stray), "/arrivals/rate_per_s", json!(3.0)) }).unwrap();
    assert_eq!(at(&p), t, "a held block's new parameters wait for its connection");
    // Connected, it runs, from time zero.
    p.apply(Command::Connect { from: stray.clone(), to: "q".into() }).unwrap();
    assert!(p.missing().is_empty());
    assert!(!p.run().unwrap().is_held(i));
    p.advance(0.25, Speed::Times(20.0), &still);
    assert!(p.run().unwrap().stats(i).arrived > 0);
}

#[test]
fn a_part_that_names_a_held_block_does_not_run() {
    let mut p = playground();
    // A second queue, not connected on, and the consumer's supervisor-free
    // pipeline naming it as a class destination.
    p.apply(Command::Add { kind: Kind::Queue, at: None }).unwrap();
    assert!(p.run().is_some(), "a stray queue holds back only itself");
    let spare = p.scenario().nodes.last().unwrap().id.clone();
    let named = with(&block(&p, "p"), "/classes", json!([{"name": "m", "weight": 1, "destination": spare}]));
    p.apply(Command::SetBlock { id: "p".into(), block: named }).unwrap();
    assert!(p.run().is_none(), "the running part would name a held block");
}

#[test]
fn new_empties_the_canvas_closes_the_lesson_and_undoes_in_one_step() {
    let mut p = Playground::new(pipeline(), catalogue()).unwrap();
    p.apply(Command::PickLesson { index: 0, speed: Speed::Fastest }).unwrap();
    p.apply(Command::OpenComparison).unwrap();
    let lesson = p.scenario().clone();
    let applied = p.apply(Command::New).unwrap();
    assert!(applied.edited);
    assert!(p.scenario().nodes.is_empty() && p.scenario().name.is_empty());
    assert!(p.run().is_none(), "nothing to run");
    assert!(p.lesson().is_none() && p.variant_b().is_none(), "the lesson and the comparison were about what was there");
    assert_eq!(p.missing(), vec!["the canvas is empty: add a producer to begin".to_string()]);
    assert!(!p.advance(0.1, Speed::Times(1.0), &still).judged, "an empty canvas advances without a panic");
    // Built again from nothing, it runs.
    let ids: Vec<String> = [Kind::Producer, Kind::Queue, Kind::Consumer]
        .into_iter()
        .map(|kind| p.apply(Command::Add { kind, at: None }).unwrap().select.unwrap().remove(0))
        .collect();
    p.apply(Command::Connect { from: ids[0].clone(), to: ids[1].clone() }).unwrap();
    p.apply(Command::Connect { from: ids[1].clone(), to: ids[2].clone() }).unwrap();
    assert!(p.missing().is_empty());
    p.advance(0.25, Speed::Times(4.0), &still);
    assert_eq!(at(&p), 1.0);
    p.apply(Command::Describe { name: "Mine".into(), description: "Built from nothing.".into() }).unwrap();
    assert_eq!(at(&p), 1.0, "a name is not a change the run notices");
    assert_eq!(p.scenario().name, "Mine");
    // The name, two edges, three blocks, then New.
    for _ in 0..7 {
        p.apply(Command::Undo).unwrap();
    }
    assert_eq!(p.scenario(), &lesson, "Undo brings back the lesson's scenario");
}

#[test]
fn an_import_closes_the_lesson_whose_scenario_it_replaces() {
    // Work restored, a share link pasted or a file opened during a lesson
    // is not the lesson's: its steps are about their own scenario.
    let mut p = Playground::new(pipeline(), catalogue()).unwrap();
    p.apply(Command::PickLesson { index: 2, speed: Speed::Fastest }).unwrap();
    let lesson = p.scenario().clone();
    let same = p.apply(Command::Import(lesson.to_json_pretty())).unwrap();
    assert!(!same.edited && p.lesson().is_some(), "the lesson's own scenario again is still the lesson's");
    p.apply(Command::Import(pipeline().to_json_pretty())).unwrap();
    assert!(p.lesson().is_none(), "the lesson was about what was there");
    assert_eq!(p.scenario(), &pipeline());
    p.apply(Command::Undo).unwrap();
    assert_eq!(p.scenario(), &lesson, "Undo brings back the lesson's scenario");
    // A refused import changes nothing: the lesson stays open.
    p.apply(Command::PickLesson { index: 2, speed: Speed::Fastest }).unwrap();
    assert!(p.apply(Command::Import("{ not a scenario".into())).is_err());
    assert!(p.lesson().is_some());
}

#[test]
fn a_limiter_dropped_on_a_running_edge_is_one_edit_taken_live() {
    let mut p = playground();
    p.count_flows();
    for _ in 0..5 {
        p.advance(0.25, Speed::Times(8.0), &still);
    }
    assert_eq!(at(&p), 10.0);
    let starts = p.starts();
    let made_before = p.run().unwrap().stats(0).departed;
    let at_pos = Position { x: 300.0, y: 100.0 };
    let applied = p
        .apply(Command::Insert { kind: Kind::RateLimiter, at: at_pos, from: "q".into(), to: "c".into() })
        .unwrap();
    assert_eq!(applied.select, Some(vec!["rate_limiter1".to_string()]));
    // One edit: the edge became two, through the new block, in its place.
    let edges: Vec<(&str, &str)> = p.scenario().edges.iter().map(|e| (e.from.as_str(), e.to.as_str())).collect();
    assert_eq!(edges, [("p", "q"), ("q", "rate_limiter1"), ("rate_limiter1", "c")]);
    // Taken live: the clock and the counts go on, nothing starts again.
    assert_eq!((p.starts(), at(&p)), (starts, 10.0));
    let sim = p.run().unwrap();
    assert_eq!(sim.scenario(), p.scenario());
    assert!(sim.stats(0).departed >= made_before);
    // The limiter holds from now on: 10 a second (the palette's token
    // bucket) where the consumer served 20.
    let (served_before, took_before) = (p.run().unwrap().stats(2).departed, p.run().unwrap().stats(2).arrived);
    for _ in 0..10 {
        p.advance(0.25, Speed::Times(8.0), &still);
    }
    assert_eq!((p.starts(), at(&p)), (starts, 30.0));
    let sim = p.run().unwrap();
    let served = (sim.stats(2).departed - served_before) as f64 / 20.0;
    assert!((9.0..=10.6).contains(&served), "{served}/s through the limiter");
    assert_eq!(sim.stats(3).departed, sim.stats(2).arrived - took_before, "everything the consumer took since came through the limiter");
    let t = sim.totals();
    assert_eq!(t.produced + t.resent, t.delivered + t.dropped + t.in_system, "{t:?}");
    // Undo takes it out in one step (starting again: a block removed is
    // not taken live), and redo puts it back.
    p.apply(Command::Undo).unwrap();
    assert_eq!(p.scenario().nodes.len(), 3);
    assert_eq!(p.run().unwrap().scenario().edges.len(), 2);
    p.apply(Command::Redo).unwrap();
    assert_eq!(p.scenario().nodes.len(), 4);
    // A queue holds messages: dropped on an edge it is inserted, and the
    // run starts again.
    let starts = p.starts();
    p.advance(0.25, Speed::Times(8.0), &still);
    p.apply(Command::Insert { kind: Kind::Queue, at: at_pos, from: "p".into(), to: "q".into() }).unwrap();
    assert_eq!((p.starts(), at(&p)), (starts + 1, 0.0));
    // Not on an edge that does not exist, nor a producer on any.
    assert!(p.apply(Command::Insert { kind: Kind::Window, at: at_pos, from: "c".into(), to: "p".into() }).is_err());
    assert!(p.apply(Command::Insert { kind: Kind::Producer, at: at_pos, from: "p".into(), to: "queue1".into() }).is_err());
}

#[test]
fn a_lesson_sweep_that_fails_or_is_cancelled_ends_abandoned_with_why_and_can_be_tried_again() {
    let mut p = playground();
    let lesson = p.lessons().iter().position(|l| l.text.number == 13).unwrap();
    p.apply(Command::PickLesson { index: lesson, speed: Speed::Times(1.0) }).unwrap();
    let why = "the sweep worker could not start".to_string();
    let first = SweepTicket { step: 1, attempt: 1 };
    assert!(p.apply(Command::AbandonSweep { ticket: first, why: why.clone() }).is_err(), "no sweep is out yet");
    let applied = p.apply(Command::TryStep { step: 1, speed: Speed::Times(1.0) }).unwrap();
    let begun = applied.step.unwrap();
    assert_eq!(begun.panel, Some(Panel::Sweep));
    assert_eq!(begun.speed, None, "a sweep is not watched: the speed stays");
    let sweep = begun.sweep.expect("the answer carries the sweep to run");
    assert_eq!((sweep.ticket, &sweep.request), (first, p.lesson_sweep().unwrap().1));
    assert_eq!(sweep.metric, p.lessons()[lesson].text.steps[1].sweep.as_ref().unwrap().metric);
    // It failed: the step says why, no sweep is out, a late result is refused.
    p.apply(Command::AbandonSweep { ticket: first, why: why.clone() }).unwrap();
    assert_eq!(p.lesson().unwrap().states[1], StepState::Abandoned { why });
    assert!(p.lesson_sweep().is_none());
    assert!(p.apply(Command::JudgeSweep { ticket: first, result: dummy_result(), speed: Speed::Fastest }).is_err());
    // Tried again, then cancelled.
    p.apply(Command::TryStep { step: 1, speed: Speed::Times(1.0) }).unwrap();
    assert_eq!(p.lesson().unwrap().states[1], StepState::Sweeping);
    assert_eq!(p.lesson().unwrap().tries[1], 2);
    let second = SweepTicket { step: 1, attempt: 2 };
    assert_eq!(p.lesson_sweep().unwrap().0, second);
    p.apply(Command::AbandonSweep { ticket: second, why: "cancelled".into() }).unwrap();
    assert_eq!(p.lesson().unwrap().states[1], StepState::Abandoned { why: "cancelled".into() });
    // Tried a third time: what the second try's sweep reports late settles nothing.
    p.apply(Command::TryStep { step: 1, speed: Speed::Times(1.0) }).unwrap();
    assert!(p.apply(Command::JudgeSweep { ticket: second, result: dummy_result(), speed: Speed::Fastest }).is_err());
    assert!(p.apply(Command::AbandonSweep { ticket: second, why: "late".into() }).is_err());
    assert_eq!(p.lesson().unwrap().states[1], StepState::Sweeping);
    // A try whose sweep cannot be made (the swept block gone) is judged
    // failed, and the sweep of the try before it is no longer out.
    p.apply(Command::Remove(vec!["arrivals".into()])).unwrap();
    let third = p.lesson_sweep().unwrap().0;
    let answer = p.apply(Command::TryStep { step: 1, speed: Speed::Times(1.0) }).unwrap();
    assert!(matches!(&p.lesson().unwrap().states[1], StepState::Judged(v) if !v.passed), "{:?}", p.lesson().unwrap().states[1]);
    assert!(p.lesson_sweep().is_none(), "no stale sweep is out");
    assert_eq!(answer.step.and_then(|b| b.sweep), None, "nor handed out again");
    assert!(p.apply(Command::JudgeSweep { ticket: third, result: dummy_result(), speed: Speed::Fastest }).is_err());
}

#[test]
fn a_sweep_step_tried_while_another_sweeps_abandons_the_other() {
    // Lesson 13 with its sweep step twice.
    let mut lesson = catalogue().into_iter().find(|l| l.text.number == 13).unwrap();
    let a = lesson.text.steps.iter().position(|s| s.sweep.is_some()).unwrap();
    lesson.text.steps.push(lesson.text.steps[a].clone());
    let b = lesson.text.steps.len() - 1;
    let mut p = Playground::new(lesson.scenario.clone(), vec![lesson]).unwrap();
    p.apply(Command::PickLesson { index: 0, speed: Speed::Fastest }).unwrap();
    p.apply(Command::TryStep { step: a, speed: Speed::Fastest }).unwrap();
    p.apply(Command::TryStep { step: b, speed: Speed::Fastest }).unwrap();
    let states = &p.lesson().unwrap().states;
    assert_eq!(states[a], StepState::Abandoned { why: format!("step {}'s sweep took its place", b + 1) });
    assert_eq!(states[b], StepState::Sweeping);
    assert_eq!(p.lesson_sweep().unwrap().0, SweepTicket { step: b, attempt: 1 });
    let replaced = SweepTicket { step: a, attempt: 1 };
    assert!(p.apply(Command::JudgeSweep { ticket: replaced, result: dummy_result(), speed: Speed::Fastest }).is_err(), "the replaced sweep's result comes too late");
}

#[test]
fn a_lesson_takes_its_reading_and_its_steps_watched_at_the_speed_the_page_picks() {
    let words = |n: usize| vec!["word"; n].join(" ");
    let sweep = json!({"vary": "q.capacity", "from": 1, "to": 2, "points": 2, "reps": 1, "until_s": 10, "metric": "q.mean_depth_messages",
        "check": [{"metric": "q.mean_depth_messages", "point": "last", "at_least": 1}]});
    let text = |story: usize, steps: serde_json::Value| -> crate::lesson::LessonText {
        serde_json::from_value(json!({"version": 1, "number": 1, "title": "t", "source": "s", "summary": "s", "story": words(story),
            "watch": "w", "scenario": "slow-client.json", "steps": steps}))
        .unwrap()
    };
    // 359 words of story, "w" and two words a step: 366 words, 122 s
    // read; 60 s watched at 2× (30 s), 3,000 s at 100× (30 s), a sweep
    // (20 s): 202 s, so 4 minutes.
    let steps = json!([{"try": "t", "expect": "e", "within_s": 60}, {"try": "t", "expect": "e", "within_s": 3000},
        {"try": "t", "expect": "e", "sweep": sweep}]);
    assert_eq!(lesson_minutes(&text(359, steps)), 4);
    // Ten words and a second's watch: still a minute.
    assert_eq!(lesson_minutes(&text(5, json!([{"try": "t", "expect": "e", "within_s": 1}]))), 1);
    // 171 words (57 s) and 3 s at 1×: exactly a minute; one word more, two.
    assert_eq!(lesson_minutes(&text(168, json!([{"try": "t", "expect": "e", "within_s": 3}]))), 1);
    assert_eq!(lesson_minutes(&text(169, json!([{"try": "t", "expect": "e", "within_s": 3}]))), 2);
}

#[test]
fn a_step_watched_too_long_for_the_speed_asks_for_the_slowest_speed_that_shows_it_in_time() {
    // The rule: at most WATCH_REAL_S real seconds to watch.
    assert_eq!(Speed::Times(1.0).to_watch(30.0), None);
    assert_eq!(Speed::Times(1.0).to_watch(31.0), Some(Speed::Times(2.0)));
    assert_eq!(Speed::Times(1.0).to_watch(600.0), Some(Speed::Times(50.0)));
    assert_eq!(Speed::Times(100.0).to_watch(600.0), None, "already fast enough");
    assert_eq!(Speed::Fastest.to_watch(1e9), None);
    assert_eq!(Speed::Times(0.0).to_watch(10.0), Some(Speed::Times(0.5)));
    assert_eq!(Speed::Times(f64::NAN).to_watch(10.0), None);
    assert_eq!(Speed::Times(1.0).to_watch(1e9), None, "no speed of the menu is enough: fastest is the person's choice");
    // From every speed of the menu: the answer shows 100 s in time, and
    // the speed before it in the menu would not.
    for speed in SPEEDS {
        if let Some(faster) = speed.to_watch(100.0) {
            let k = SPEEDS.iter().position(|s| *s == faster).unwrap();
            let real = |s: Speed| if let Speed::Times(t) = s { 100.0 / t } else { 0.0 };
            assert!(real(faster) <= WATCH_REAL_S && real(SPEEDS[k - 1]) > WATCH_REAL_S, "{speed:?}");
        }
    }
    // Through the commands: a step tried, and a first step begun with its lesson.
    let mut p = playground();
    let (index, k) = p
        .lessons()
        .iter()
        .enumerate()
        .find_map(|(n, l)| l.text.steps.iter().position(|s| s.sweep.is_none() && s.ask.is_none() && s.within_s > WATCH_REAL_S).map(|k| (n, k)))
        .expect("a step watched for more than 30 s");
    let within_s = p.lessons()[index].text.steps[k].within_s;
    p.apply(Command::PickLesson { index, speed: Speed::Times(1.0) }).unwrap();
    let begun = p.apply(Command::TryStep { step: k, speed: Speed::Times(1.0) }).unwrap().step.unwrap();
    assert_eq!((begun.step, begun.within_s), (k, within_s));
    assert_eq!(begun.speed, Speed::Times(1.0).to_watch(within_s));
    assert!(begun.speed.is_some());
    let begun = p.apply(Command::TryStep { step: k, speed: Speed::Times(1000.0) }).unwrap().step.unwrap();
    assert_eq!(begun.speed, None);
}

#[test]
fn a_step_tried_selects_the_block_it_checks_and_names_its_figure_and_panel() {
    let mut p = playground();
    for index in 0..p.lessons().len() {
        let steps = p.lessons()[index].text.steps.clone();
        let applied = p.apply(Command::PickLesson { index, speed: Speed::Times(1.0) }).unwrap();
        assert_eq!(applied.select, Some(p.lessons()[index].text.focus.clone()), "the lesson's focus");
        match &applied.step {
            Some(begun) => {
                assert!(steps[0].changes.is_empty() && !steps[0].compare, "only a watching first step begins with its lesson");
                assert_eq!((begun.panel, begun.figure, &begun.sweep), (None, None, &None), "the page stays as it is");
            }
            None => assert!(!steps[0].changes.is_empty() || steps[0].compare),
        }
        for (k, step) in steps.iter().enumerate().filter(|(_, s)| s.sweep.is_none()) {
            let applied = p.apply(Command::TryStep { step: k, speed: Speed::Times(1.0) }).unwrap();
            let begun = applied.step.unwrap();
            let first = step.check.first();
            assert_eq!(begun.figure, first.map(|c| c.figure));
            // A step that asks for a change selects the block asked for,
            // in the inspector.
            if let Some(ask) = &step.ask {
                assert_eq!(applied.select, Some(vec![ask.node.clone()]), "lesson {index} step {k}");
                assert_eq!(begun.panel, Some(Panel::Inspector));
                p.apply(Command::DoItForMe { speed: Speed::Times(1.0) }).unwrap();
                continue;
            }
            assert_eq!(applied.select, first.map(|c| vec![c.node.clone()]), "lesson {index} step {k}");
            assert_eq!(begun.panel, Some(step.panel.unwrap_or(Panel::Chart)));
            assert_eq!(begun.sweep, None);
        }
    }
}

#[test]
fn a_configuration_imported_adds_its_blocks_below_as_one_undoable_edit() {
    let mut p = playground();
    let conf = "user nginx;\nhttp {\n limit_req_zone $binary_remote_addr zone=c:1m rate=5r/s;\n server { location / { limit_req zone=c burst=2; } }\n}\n";
    let imported = crate::config::import(crate::config::Product::Nginx, conf).unwrap();
    let applied = p.apply(Command::ImportConfig { imported }).unwrap();
    // The placeholder producer, the limiter and the application, beside
    // what was there; the imported "c" clashes with the consumer "c".
    let ids = applied.select.clone().unwrap();
    assert_eq!(ids, ["clients", "product_limiter1", "app"]);
    assert_eq!(p.scenario().nodes.len(), 6);
    assert!(applied.edited);
    assert_eq!(applied.notes, [crate::config::Note { line: 1, text: "user: not a limit Sluice models".into() }]);
    let below = |id: &str| {
        let i = p.index_of(id).unwrap();
        p.scenario().nodes[i].position.unwrap_or(crate::scenario::default_position(i)).y
    };
    assert!(below("clients") > below("p"), "added below what was there");
    assert!(p.scenario().edges.iter().any(|e| e.from == "product_limiter1" && e.to == "app"));
    assert!(matches!(block(&p, "product_limiter1"), BlockSpec::ProductLimiter(_)));
    // One step back.
    p.apply(Command::Undo).unwrap();
    assert_eq!(p.scenario(), &pipeline());
    // What the worker answers: a file it cannot read is refused, saying where.
    let done = crate::config::Job::Import { product: crate::config::Product::Nginx, text: "http {\n".into() }.run();
    assert!(matches!(done, crate::config::Done::Refused { ref why } if why == "line 1: a } closing the block opened here"), "{done:?}");
    // And its answers go through JSON, as the worker sends them.
    let done = crate::config::Job::Import { product: crate::config::Product::Nginx, text: conf.into() }.run();
    let read: crate::config::Done = serde_json::from_str(&serde_json::to_string(&done).unwrap()).unwrap();
    assert!(matches!(read, crate::config::Done::Imported { ref notes, .. } if notes.len() == 1));
}

/// Lesson 2 opened, its second step (which asks for the loop's iteration)
/// pressed: the learner's turn.
fn asked_of_the_learner() -> (Playground, Applied) {
    let mut p = playground();
    let index = p.lessons().iter().position(|l| l.text.number == 2).unwrap();
    p.apply(Command::PickLesson { index, speed: Speed::Fastest }).unwrap();
    let pressed = p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap();
    (p, pressed)
}

#[test]
fn a_step_that_asks_waits_for_the_learners_change_and_is_watched_once_it_is_made() {
    let (mut p, pressed) = asked_of_the_learner();
    let state = |p: &Playground| p.lesson().unwrap().states[1].clone();
    assert_eq!(state(&p), StepState::Asking { node: "loop".into(), field: crate::scenario::FieldPath::parse("iteration").unwrap() });
    // The block asked for is selected and the inspector shown; no speed
    // is asked for until there is something to watch.
    assert_eq!(pressed.select, Some(vec!["loop".to_string()]));
    let begun = pressed.step.unwrap();
    assert_eq!((begun.panel, begun.speed, begun.set_up), (Some(Panel::Inspector), None, vec![0]));
    assert_eq!(p.lesson().unwrap().asking(), Some(1));
    // An edit that is not what was asked changes nothing of the step.
    let lp = block(&p, "loop");
    let other = p.apply(Command::Move { ids: vec!["loop".into()], dx: 10.0, dy: 0.0 }).unwrap();
    assert_eq!((other.step, state(&p)), (None, StepState::Asking { node: "loop".into(), field: crate::scenario::FieldPath::parse("iteration").unwrap() }));
    // The change asked for begins the watch, from the instant it was made,
    // without moving the page away from the inspector.
    let now = at(&p);
    let made = p.apply(Command::SetBlock { id: "loop".into(), block: with(&block(&p, "loop"), "iteration", json!("snapshot")) }).unwrap();
    let begun = made.step.expect("the step began");
    assert_eq!((begun.step, begun.panel), (1, None));
    assert!(matches!(state(&p), StepState::Watching { until_s, .. } if (until_s - now - 120.0).abs() < 1e-9), "{:?}", state(&p));
    assert_eq!(p.lesson().unwrap().asking(), None);
    // Taken out again (an undo), the step waits for it again; made again,
    // it is watched from then.
    p.apply(Command::Undo).unwrap();
    assert_eq!(state(&p), StepState::Asking { node: "loop".into(), field: crate::scenario::FieldPath::parse("iteration").unwrap() });
    p.apply(Command::Step { speed: Speed::Fastest }).unwrap();
    let again = at(&p);
    assert!(p.apply(Command::Redo).unwrap().step.is_some());
    assert!(matches!(state(&p), StepState::Watching { until_s, .. } if (until_s - again - 120.0).abs() < 1e-9), "{:?}", state(&p));
    p.apply(Command::SkipToVerdict { speed: Speed::Fastest }).unwrap();
    assert!(matches!(state(&p), StepState::Judged(v) if v.passed), "{:?}", state(&p));
    assert_eq!(block(&p, "loop"), with(&lp, "iteration", json!("snapshot")));
    assert_eq!(p.lesson().unwrap().tries[1], 2, "a try for each watch the learner's change began");
}

#[test]
fn do_it_for_me_makes_the_steps_own_change_and_another_step_pressed_ends_the_asking() {
    let (mut p, _) = asked_of_the_learner();
    let state = |p: &Playground, k: usize| p.lesson().unwrap().states[k].clone();
    let done = p.apply(Command::DoItForMe { speed: Speed::Fastest }).unwrap();
    assert!(done.edited);
    assert_eq!(done.step.map(|b| (b.step, b.panel)), Some((1, Some(Panel::Chart))));
    assert_eq!(block(&p, "loop"), with(&block(&p, "loop"), "iteration", json!("snapshot")));
    assert!(matches!(state(&p, 1), StepState::Watching { .. }));
    p.apply(Command::SkipToVerdict { speed: Speed::Fastest }).unwrap();
    assert!(matches!(state(&p, 1), StepState::Judged(v) if v.passed));
    assert_eq!(p.apply(Command::DoItForMe { speed: Speed::Fastest }), Err(PlayError::NothingAsked));
    // Asked again, then another step pressed: one step at a time, the
    // asking one is untried again and an edit later begins nothing.
    let (mut p, _) = asked_of_the_learner();
    p.apply(Command::TryStep { step: 2, speed: Speed::Fastest }).unwrap();
    assert_eq!((state(&p, 1), p.lesson().unwrap().asking()), (StepState::NotTried, None));
    let made = p.apply(Command::SetBlock { id: "loop".into(), block: with(&block(&p, "loop"), "iteration", json!("snapshot")) }).unwrap();
    assert_eq!(made.step, None);
    // Made before the step is pressed, the change is watched at once.
    let (mut p, _) = asked_of_the_learner();
    p.apply(Command::CloseLesson).unwrap();
    let index = p.lessons().iter().position(|l| l.text.number == 2).unwrap();
    p.apply(Command::PickLesson { index, speed: Speed::Fastest }).unwrap();
    p.apply(Command::SetBlock { id: "loop".into(), block: with(&block(&p, "loop"), "iteration", json!("snapshot")) }).unwrap();
    let pressed = p.apply(Command::TryStep { step: 1, speed: Speed::Fastest }).unwrap();
    assert!(matches!(state(&p, 1), StepState::Watching { .. }), "{:?}", state(&p, 1));
    assert_eq!(pressed.step.map(|b| b.panel), Some(Some(Panel::Chart)));
}

#[test]
fn a_lesson_of_ones_own_opens_beside_the_catalogue_and_takes_the_place_of_the_last() {
    let mut p = playground();
    let built = p.lessons().len();
    let mut draft = crate::lesson::LessonDraft::new(17);
    draft.story = "A queue too slow for its producer.".into();
    draft.steps[0].try_this = "Watch.".into();
    draft.steps[0].checks = "q depth >= 5\nc throughput_per_s >= 15".into();
    let mine = draft.lesson(&pipeline()).unwrap();
    let applied = p.apply(Command::OpenLesson { lesson: Box::new(mine.clone()), speed: Speed::Fastest }).unwrap();
    assert!(applied.edited);
    assert_eq!((p.lessons().len(), p.written(), p.lesson().map(|run| run.index)), (built + 1, (Some(built), 1), Some(built)));
    // Its first step watches: it began with the lesson, and keeps its word.
    p.apply(Command::SkipToVerdict { speed: Speed::Fastest }).unwrap();
    assert!(matches!(&p.lesson().unwrap().states[0], StepState::Judged(v) if v.passed), "{:?}", p.lesson().unwrap().states);
    // Another takes its place; the catalogue stays as built.
    let mut other = mine.clone();
    other.text.title = "Another".into();
    p.apply(Command::OpenLesson { lesson: Box::new(other), speed: Speed::Fastest }).unwrap();
    assert_eq!((p.lessons().len(), p.written()), (built + 1, (Some(built), 2)));
    assert_eq!(p.lessons()[built].text.title, "Another");
    // One that does not hold together is refused, and nothing changes.
    let mut broken = mine;
    broken.text.steps[0].check[0].node = "nobody".into();
    let refused = p.apply(Command::OpenLesson { lesson: Box::new(broken), speed: Speed::Fastest }).unwrap_err();
    assert_eq!(refused.to_string(), "step 1: check: no node \"nobody\"");
    assert_eq!(p.lessons()[built].text.title, "Another");
}
