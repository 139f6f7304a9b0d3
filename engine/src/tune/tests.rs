use serde_json::json;

use super::*;
use crate::sweep::Options;

/// Poisson arrivals at `rate` into a queue of `capacity` places (0: no
/// bound), `workers` exponential servers of mean `mean_s`.
fn mmc(rate: f64, workers: u32, mean_s: f64, capacity: u64) -> Scenario {
    Scenario::from_value(json!({"version": 1, "name": "M/M/c", "nodes": [
        {"id": "src", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": rate}},
        {"id": "line", "kind": "queue", "capacity": {"messages": capacity}},
        {"id": "srv", "kind": "consumer", "workers": workers, "service_time": {"dist": "exponential", "mean": mean_s}}],
        "edges": [{"from": "src", "to": "line"}, {"from": "line", "to": "srv"}]}))
    .unwrap()
}

fn tune(scenario: &Scenario, vary: &str, goal: Goal, require: &[&str], options: Options) -> Result<TuneResult, TuneError> {
    let (field, range) = parse_range(vary)?;
    let requirements = require.iter().map(|r| parse_requirement(r)).collect::<Result<Vec<_>, _>>()?;
    Tuner::new(scenario, Tune { field, range, goal, requirements, options })?.finish()
}

fn best(result: &TuneResult) -> f64 {
    *result.best.as_ref().expect("a feasible setting").values.values().next().unwrap()
}

fn erlang_c(c: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..c {
        term *= a / k as f64;
        sum += term;
    }
    let last = term * a / c as f64 * c as f64 / (c as f64 - a);
    last / (sum + last)
}

/// The fewest servers of an M/M/c whose mean wait in the queue is at most
/// 0.04 s: λ = 8, μ = 2 (a = 4), Wq = C(c, a) / (cμ − λ) is 0.071 s at 6
/// servers and 0.023 s at 7 (Erlang C). On held-out replications (other
/// seeds), 7 servers meet the bound in at least 19 of 20 sets.
#[test]
fn the_fewest_servers_meeting_a_mean_wait_are_erlang_cs() {
    let s = mmc(8.0, 1, 0.5, 0);
    let wq = |c: u32| erlang_c(c, 4.0) / (c as f64 * 2.0 - 8.0);
    let closed = (5..30).find(|&c| wq(c) <= 0.04).unwrap();
    assert_eq!(closed, 7);
    let options = Options { reps: 20, until_s: 400.0, warmup_s: 40.0, seed: 1 };
    let result = tune(&s, "srv.workers=1:30", Goal::Minimize, &["line.mean_wait_s<=0.04"], options).unwrap();
    assert!(result.feasible);
    assert_eq!(best(&result), closed as f64, "{result:#?}");
    assert_eq!(result.binding, ["line.mean_wait_s"]);
    // Held out: twenty sets of five replications on seeds the search never
    // used, each judged by its mean.
    let at_best = mmc(8.0, closed, 0.5, 0);
    let vary = Vary::named(&NodeField::parse("srv.workers").unwrap(), vec![closed as f64], &at_best).unwrap();
    let metric = Metric::parse("line.mean_wait_s").unwrap();
    let held = (0..20)
        .filter(|set| {
            let plan = Plan::new(&at_best, vec![vary.clone()], Options { reps: 5, seed: 1000 + set, ..options }).unwrap();
            let reps: Vec<Replication> = (0..5).map(|r| plan.run(0, r).unwrap()).collect();
            estimate_of(&reps, &metric).mean.unwrap() <= 0.04
        })
        .count();
    assert!(held >= 19, "{held} of 20 held-out sets meet the bound");
}

/// The smallest M/M/1/K whose drop probability is at most 1.1%: ρ = 0.5,
/// P_K = (1 − ρ)ρ^K / (1 − ρ^(K+1)) is 1.6% at K = 5 and 0.79% at K = 6,
/// so a queue of 5 places before the one server.
#[test]
fn the_smallest_mm1k_meeting_a_drop_probability_is_the_closed_forms() {
    let s = mmc(5.0, 1, 0.1, 1);
    let p = |k: i32| 0.5 * 0.5f64.powi(k) / (1.0 - 0.5f64.powi(k + 1));
    let k = (1..40).find(|&k| p(k) <= 0.011).unwrap();
    assert_eq!(k, 6);
    let options = Options { reps: 40, until_s: 2000.0, warmup_s: 100.0, seed: 3 };
    let result = tune(&s, "line.capacity.messages=1:60", Goal::Minimize, &["line.drop_probability<=0.011"], options).unwrap();
    assert_eq!(best(&result), (k - 1) as f64, "{result:#?}");
    assert!(result.points <= 9, "a bisection of 60 values: {}", result.points);
}

/// The largest arrival rate an M/M/1 (μ = 10) takes with its p99 sojourn
/// at most 0.9 s: the sojourn is exponential with rate μ − λ, so
/// λ ≤ 10 − ln(100)/0.9 = 4.88. The search answers on the safe side of
/// that, within a few steps of 0.1.
#[test]
fn the_largest_rate_meeting_a_p99_sojourn_is_the_closed_forms() {
    let s = mmc(1.0, 1, 0.1, 0);
    let closed = 10.0 - 100f64.ln() / 0.9;
    let options = Options { reps: 20, until_s: 1000.0, warmup_s: 100.0, seed: 2 };
    let result = tune(&s, "src.arrivals.rate_per_s=1:9:0.1", Goal::Maximize, &["srv.p99_wait_s<=0.9"], options).unwrap();
    let b = best(&result);
    assert!(b <= closed && b >= closed - 0.35, "{b} against {closed}: {result:#?}");
    assert_eq!(result.binding, ["srv.p99_wait_s"]);
}

/// A requirement no setting in the range meets: not feasible, the closest
/// setting (the end the requirement favours) and by how much it misses.
#[test]
fn an_unreachable_requirement_names_the_closest_setting_and_the_gap() {
    let s = mmc(8.0, 1, 0.5, 0);
    let options = Options { reps: 10, until_s: 200.0, warmup_s: 20.0, seed: 1 };
    let result = tune(&s, "srv.workers=1:5", Goal::Minimize, &["line.mean_wait_s<=0.01"], options).unwrap();
    assert!(!result.feasible && result.best.is_none());
    let closest = result.closest.as_ref().unwrap();
    assert_eq!(closest.values.values().copied().collect::<Vec<_>>(), [5.0]);
    let gap = result.short_by["line.mean_wait_s"];
    // Wq at 5 servers is 0.277 s.
    assert!(gap > 0.15 && gap < 0.4, "{gap}");
    assert_eq!(result.tried.iter().map(|t| t.value).collect::<Vec<_>>(), [1.0, 5.0]);
}

/// Everything wrong is said before anything runs.
#[test]
fn a_bad_request_is_named_before_anything_runs() {
    let s = mmc(8.0, 1, 0.5, 0);
    let options = Options { reps: 10, until_s: 200.0, warmup_s: 20.0, seed: 1 };
    let said = |vary: &str, require: &[&str]| tune(&s, vary, Goal::Minimize, require, options).unwrap_err().to_string();
    assert_eq!(said("srv.workers=1:5", &["line.mean_wait<=1"]).split(':').next().unwrap(), "--require line.mean_wait<=1");
    assert_eq!(said("srv.workers=1:5", &["line.mean_wait_s<=fast"]), "--require line.mean_wait_s<=fast: the bound \"fast\" is not a number");
    assert_eq!(said("srv.workers=1:5", &["line.mean_wait_s=1"]), "--require line.mean_wait_s=1: expected METRIC<=VALUE or METRIC>=VALUE, such as srv.p99_wait_s<=0.2");
    assert!(said("srv.workers=1:5", &["other.mean_wait_s<=1"]).starts_with("--require other.mean_wait_s: not measured by this scenario"));
    assert_eq!(said("srv.workers=2.2:2.8", &["line.mean_wait_s<=1"]), "--vary srv.workers: a whole-number field, and no whole number lies from 2.2 to 2.8");
    assert_eq!(said("srv.workers=5:1", &["line.mean_wait_s<=1"]), "--vary srv.workers: the range 5 to 1 is empty");
    assert_eq!(said("srv.workers", &["line.mean_wait_s<=1"]), "--vary srv.workers: expected NODE.FIELD=FROM:TO or NODE.FIELD=FROM:TO:STEP");
    assert_eq!(said("srv.workers=0:5", &["line.mean_wait_s<=1"]), "at srv.workers = 0: nodes[2].workers: must be between 1 and 100000, got 0");
    assert_eq!(said("srv.workers=1:5", &[]), "nothing required: give at least one --require");
    // A tuning asked for by the page skips the command line's reading of
    // the range: its values check it again.
    let field = NodeField::parse("srv.workers").unwrap();
    assert_eq!(Range { from: 5.0, to: 1.0, step: None }.values(&s, &field).unwrap_err().to_string(), "--vary srv.workers: the range 5 to 1 is empty");
    let rate = NodeField::parse("src.arrivals.rate_per_s").unwrap();
    assert!(matches!(Range { from: 1.0, to: 2.0, step: Some(0.0) }.values(&s, &rate), Err(TuneError::Step { .. })));
    let one = tune(&s, "srv.workers=1:5", Goal::Minimize, &["line.mean_wait_s<=1"], Options { reps: 1, ..options }).unwrap_err();
    assert_eq!(one.to_string(), "--reps 1: at least 2, since a value's 95% interval needs two replications");
}

/// A field that is not a whole number steps by the range's step, its
/// values as written (1 + 63 × 0.1 is 7.3), the end included; a hundredth
/// of the range unless a step is given.
#[test]
fn a_decimal_range_steps_as_written() {
    let s = mmc(1.0, 1, 0.1, 0);
    let field = NodeField::parse("src.arrivals.rate_per_s").unwrap();
    let values = parse_range("src.arrivals.rate_per_s=1:9.5:0.1").unwrap().1.values(&s, &field).unwrap();
    assert_eq!(values.len(), 86);
    assert_eq!((values[63], values[85]), (7.3, 9.5));
    let values = parse_range("src.arrivals.rate_per_s=2:3").unwrap().1.values(&s, &field).unwrap();
    assert_eq!((values.len(), values[1], values[100]), (101, 2.01, 3.0));
    let values = parse_range("src.arrivals.rate_per_s=1:2:0.3").unwrap().1.values(&s, &field).unwrap();
    assert_eq!(values, [1.0, 1.3, 1.6, 1.9, 2.0]);
}

/// The page's worker runs a tuning one replication a step: the result is
/// `finish`'s bit for bit, each decided value is reported as it is, and
/// the request crosses as JSON (and is no sweep's request, nor a sweep's
/// a tuning's).
#[test]
fn a_tuning_step_by_step_is_the_tuning_in_one_go() {
    let request = TuneRequest {
        scenario: mmc(8.0, 1, 0.5, 0),
        field: NodeField::parse("srv.workers").unwrap(),
        from: 1.0,
        to: 30.0,
        step: None,
        goal: Goal::Minimize,
        require: vec!["line.mean_wait_s<=0.04".into()],
        reps: 20,
        until_s: 400.0,
        seed: 1,
    };
    let text = serde_json::to_string(&request).unwrap();
    assert_eq!(serde_json::from_str::<TuneRequest>(&text).unwrap(), request);
    assert!(serde_json::from_str::<crate::sweep::Request>(&text).is_err());
    let sweep = crate::sweep::Request::over(&request.scenario, &request.field, (1.0, 3.0, 3), 2, 10.0).unwrap();
    assert!(serde_json::from_str::<TuneRequest>(&serde_json::to_string(&sweep).unwrap()).is_err());

    let whole = request.tuner().unwrap().finish().unwrap();
    let mut runner = TuneRunner::new(request.tuner().unwrap());
    let (mut tried, mut replications, mut result) = (Vec::new(), 0, None);
    while let Some(report) = runner.step() {
        let report: TuneReport = serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
        match report {
            TuneReport::Replication { .. } => replications += 1,
            TuneReport::Tried(t) => {
                replications += 1;
                tried.push(t);
            }
            TuneReport::Done(r) => result = Some(*r),
            TuneReport::Failed { why } => panic!("{why}"),
        }
    }
    let result = result.unwrap();
    assert_eq!(serde_json::to_string(&result).unwrap(), serde_json::to_string(&whole).unwrap());
    assert_eq!(tried, whole.tried);
    assert_eq!(replications, whole.replications);
    let mut bad = request.clone();
    bad.require = vec!["line.mean_wait_s<=soon".into()];
    assert_eq!(bad.tuner().err().unwrap().to_string(), "--require line.mean_wait_s<=soon: the bound \"soon\" is not a number");
}

/// M/M/c/K's blocking probability: `c` servers, `places` waiting places,
/// offered load `a`.
fn mmck_blocking(c: u32, places: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut terms = vec![term];
    for n in 1..=c + places {
        term *= a / f64::from(n.min(c));
        terms.push(term);
    }
    term / terms.iter().sum::<f64>()
}

/// Two fields: for a queue of 1, 4 and 7 places, the fewest servers whose
/// drop probability is at most 5% (λ = 8, μ = 2), against M/M/c/K's
/// closed form: 7, 6 and 5 servers, each with room to spare (3.5%, 2.0%,
/// 2.6%) and one fewer clearly over (7.2%, 5.6%, 9.8%). Each is strictly
/// fewer than at fewer places, so all three are on the frontier and the
/// best is the last; each row is the one-field search's, bit for bit.
#[test]
fn a_two_field_frontier_is_mmcks_fewest_servers_at_each_queue_size() {
    let s = mmc(8.0, 1, 0.5, 1);
    let closed: Vec<(u32, u32)> = [1, 4, 7].into_iter().map(|places| (places, (1..20).find(|&c| mmck_blocking(c, places, 4.0) <= 0.05).unwrap())).collect();
    assert_eq!(closed, [(1, 7), (4, 6), (7, 5)]);
    let options = Options { reps: 20, until_s: 1000.0, warmup_s: 50.0, seed: 5 };
    let (field, range) = parse_range("srv.workers=1:12").unwrap();
    let requirements = vec![parse_requirement("line.drop_probability<=0.05").unwrap()];
    let tune = Tune { field, range, goal: Goal::Minimize, requirements, options };
    let (along, places) = parse_range("line.capacity.messages=1:7:3").unwrap();
    let result = Frontier::new(&s, tune.clone(), along.clone(), places).unwrap().finish().unwrap();
    let frontier: Vec<(f64, f64)> = result.frontier.iter().map(|p| (p.values[&along], p.values[&tune.field])).collect();
    assert_eq!(frontier, [(1.0, 7.0), (4.0, 6.0), (7.0, 5.0)], "{result:#?}");
    assert_eq!(result.best.as_ref().map(|b| (b.values[&along], b.values[&tune.field])), Some((7.0, 5.0)));
    assert!(result.feasible && result.along == Some(along.clone()));
    // The row at four places, alone.
    let at_four = mmc(8.0, 1, 0.5, 4);
    let alone = Tuner::new(&at_four, tune.clone()).unwrap().finish().unwrap();
    let row: Vec<&Tried> = result.tried.iter().filter(|t| t.along == Some(4.0)).collect();
    assert_eq!(row.len(), alone.tried.len());
    assert!(row.iter().zip(&alone.tried).all(|(a, b)| (a.value, a.reps, a.feasible) == (b.value, b.reps, b.feasible)));
    assert_eq!(result.points, result.tried.len());
    // The same field twice, and too many rows, are refused before anything runs.
    let (again, range) = parse_range("srv.workers=1:3").unwrap();
    assert!(matches!(Frontier::new(&s, tune.clone(), again, range), Err(TuneError::SameField(_))));
    let (fine, range) = parse_range("line.capacity.messages=1:500").unwrap();
    assert!(matches!(Frontier::new(&s, tune.clone(), fine, range), Err(TuneError::TooManyRows { values: 500, .. })));
    let (half, range) = parse_range("line.capacity.messages=1:5:0.5").unwrap();
    assert!(matches!(Frontier::new(&s, tune, half, range), Err(TuneError::WholeStep { step: 0.5, .. })));
}
