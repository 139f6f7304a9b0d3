use serde_json::json;

use super::*;

/// Poisson arrivals into a queue, one exponential server of mean 0.1 s.
fn mm1() -> Scenario {
    Scenario::from_value(json!({"version": 1, "name": "M/M/1", "nodes": [
        {"id": "src", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 5}},
        {"id": "line", "kind": "queue"},
        {"id": "srv", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.1}}],
        "edges": [{"from": "src", "to": "line"}, {"from": "line", "to": "srv"}]}))
    .unwrap()
}

fn options(reps: usize, until_s: f64, seed: u64) -> Options {
    Options { reps, until_s, warmup_s: warmup_for(until_s), seed }
}

/// The plan, or why not in the words the command line prints.
fn plan(varies: &[&str], options: Options) -> Result<Plan, String> {
    let s = mm1();
    let varies = varies.iter().map(|v| parse_vary(v, &s)).collect::<Result<Vec<_>, _>>().map_err(|why| why.to_string())?;
    Plan::new(&s, varies, options).map_err(|why| why.to_string())
}

fn run_all(plan: &Plan) -> SweepResult {
    let points = (0..plan.points())
        .map(|p| {
            let reps: Vec<Replication> = (0..plan.options.reps).map(|r| plan.run(p, r).unwrap()).collect();
            plan.summarise(p, &reps)
        })
        .collect();
    plan.result(points)
}

#[test]
fn ranges_lists_and_grids_are_read_as_written() {
    let p = plan(&["src.arrivals.rate_per_s=1:3:0.5", "srv.workers=1,2"], options(2, 10.0, 1)).unwrap();
    assert_eq!(p.points(), 10);
    assert_eq!(p.values[0], vec![1.0, 1.0]);
    assert_eq!(p.values[1], vec![1.0, 2.0], "the last varied moves fastest");
    assert_eq!(p.values[9], vec![3.0, 2.0]);
    // An integer field reads a whole number.
    assert_eq!(p.scenarios[1].nodes[2].block, crate::editor::Editor::new(mm1()).map(|_| {
        let mut s = mm1();
        s.nodes[2].block.set_number(&FieldPath::of("workers"), 2.0).unwrap();
        s.nodes[2].block.clone()
    }).unwrap());
}

#[test]
fn every_bad_sweep_is_named_before_anything_runs() {
    let bad = |varies: &[&str], o: Options| plan(varies, o).err().unwrap_or_else(|| panic!("{varies:?} accepted"));
    let o = options(2, 10.0, 1);
    assert!(bad(&["nowhere.workers=1,2"], o).contains("no node of the scenario begins"));
    assert!(bad(&["srv.speed=1,2"], o).contains("consumer \"srv\" has no number field there"));
    assert!(bad(&["srv=1,2"], o).contains("expected NODE.FIELD"));
    assert!(bad(&["src.arrivals.rate_per_s=0:1e308:1e-300"], o).contains("more values than the 100000"));
    assert!(bad(&["src.arrivals.rate_per_s=1e308"], o).starts_with("at src.arrivals.rate_per_s = 1e308: "));
    assert!(bad(&["srv.workers=3:1:1"], o).contains("the range 3 to 1 is empty"));
    assert!(bad(&["srv.workers=1:3:0"], o).contains("the step must be above 0"));
    assert!(bad(&["srv.workers=one,two"], o).contains("\"one\" is not a number"));
    assert!(bad(&["srv.workers"], o).contains("expected NODE.FIELD=FROM:TO:STEP"));
    assert!(bad(&["srv.workers=1,0"], o).starts_with("at srv.workers = 0: "), "{}", bad(&["srv.workers=1,0"], o));
    assert!(bad(&["srv.workers=1:400:1", "src.arrivals.rate_per_s=1:300:1"], o).contains("more than the 100000 points"));
    assert!(bad(&[], o).contains("nothing to vary"));
    assert!(bad(&["srv.workers=1"], options(0, 10.0, 1)).contains("--reps"));
    assert!(bad(&["srv.workers=1"], Options { warmup_s: 10.0, ..o }).contains("--warmup"));
    assert!(bad(&["srv.workers=1"], Options { until_s: f64::INFINITY, ..o }).contains("--until"));
}

#[test]
fn replications_share_their_seeds_across_points_and_repeat_exactly() {
    let p = plan(&["srv.workers=1,2"], options(3, 20.0, 7)).unwrap();
    let seeds: Vec<u64> = (0..3).map(|r| p.seed_of(r)).collect();
    assert!(seeds[0] != seeds[1] && seeds[1] != seeds[2]);
    // Common random numbers: the same arrivals at both points.
    let (a, b) = (p.run(0, 1).unwrap(), p.run(1, 1).unwrap());
    assert_eq!(a[&m("totals.produced")], b[&m("totals.produced")]);
    assert_eq!(p.run(0, 1).unwrap(), a, "a replication repeats exactly");
    // Warm-up deletion: 20 s at 5/s, measured over the last 18.
    let produced = a[&m("totals.produced")].unwrap();
    assert!((60.0..=130.0).contains(&produced), "{produced}");
}

#[test]
fn the_95_percent_intervals_cover_the_mm1_closed_form_about_95_times_in_100() {
    // Ten loads from 0.2 to 0.65, four independent sweeps: forty
    // intervals of the mean wait. The runs are seeded, so the count is the
    // same every time; at 95% coverage, 36 or fewer covered would already
    // be unlikely (and 33, the bound, far more so).
    let mut covered = 0;
    let mut total = 0;
    for seed in 1..=4 {
        let p = plan(&["src.arrivals.rate_per_s=2:6.5:0.5"], options(10, 600.0, seed)).unwrap();
        let result = run_all(&p);
        for point in &result.points {
            let theory = &point.theory["line"];
            assert_eq!(theory.model, "M/M/1");
            let e = &point.metrics[&m("line.mean_wait_s")];
            let (mean, h) = (e.mean.unwrap(), e.ci95.unwrap());
            total += 1;
            if (mean - theory.mean_wait_s).abs() <= h {
                covered += 1;
            }
        }
    }
    assert_eq!(total, 40);
    assert!(covered >= 34, "{covered} of 40 intervals cover the closed form");
}

#[test]
fn the_waits_percentiles_follow_the_mm1_distribution() {
    // λ = 8, μ = 10: the wait before service is 0 with probability 0.2 and
    // beyond that exponential at rate 2, P(Wq > t) = 0.8·e^(−2t); the
    // consumer's figure is the time in the system, exponential at rate 2.
    let p = plan(&["src.arrivals.rate_per_s=8"], options(8, 2000.0, 5)).unwrap();
    let point = &run_all(&p).points[0];
    let wait = |p: f64| (0.8 / (1.0 - p)).ln() / 2.0;
    let sojourn = |p: f64| -(1.0 - p).ln() / 2.0;
    for (metric, closed) in [
        ("line.p50_wait_s", wait(0.5)),
        ("line.p90_wait_s", wait(0.9)),
        ("line.p95_wait_s", wait(0.95)),
        ("line.p99_wait_s", wait(0.99)),
        ("srv.p50_wait_s", sojourn(0.5)),
        ("srv.p99_wait_s", sojourn(0.99)),
    ] {
        let e = &point.metrics[&m(metric)];
        let (mean, h) = (e.mean.unwrap(), e.ci95.unwrap());
        // The histogram reads two significant digits: 1% more room.
        assert!((mean - closed).abs() <= h + 0.01 * closed, "{metric}: {mean} ± {h}, the closed form {closed}");
        assert!(h < 0.15 * closed, "{metric}: an interval of ±{h} says little");
    }
    // The theory column gives the queue's, not the consumer's.
    let predicted = point.predicted(&m("line.p99_wait_s")).unwrap();
    assert!((predicted - wait(0.99)).abs() < 1e-9, "{predicted}");
    assert_eq!(point.predicted(&m("srv.p99_wait_s")), None);
}

#[test]
fn a_percentile_counts_only_what_departed_after_the_warm_up() {
    // The server is down for the first 50 s: the 250 that wait through it
    // drain at μ − λ = 5 a second, by about 100 s. With the warm-up past
    // that, the waits are the M/M/1's again (λ = 5, μ = 10:
    // p99 = ln(0.5/0.01)/5 ≈ 0.78 s); counted from the start, they would
    // be tens of seconds.
    let mut s = mm1();
    let srv = s.node_index("srv").unwrap();
    let BlockSpec::Consumer(c) = &mut s.nodes[srv].block else { unreachable!() };
    c.outages.push(crate::scenario::Period { from_s: 0.0, to_s: 50.0 });
    let varies = vec![parse_vary("src.arrivals.rate_per_s=5", &s).unwrap()];
    let p = Plan::new(&s, varies, Options { reps: 4, until_s: 1200.0, warmup_s: 200.0, seed: 2 }).unwrap();
    let e = &run_all(&p).points[0].metrics[&m("line.p99_wait_s")];
    let closed = 50f64.ln() / 5.0;
    let (mean, h) = (e.mean.unwrap(), e.ci95.unwrap());
    assert!((mean - closed).abs() <= h + 0.01 * closed, "{e:?} against {closed}");
    assert!(h < 0.15 * closed, "{e:?}: an interval that wide says little");
}

#[test]
fn shards_merge_into_the_whole_sweep_byte_for_byte() {
    let p = plan(&["src.arrivals.rate_per_s=2:5:1", "srv.workers=1,2"], options(2, 20.0, 3)).unwrap();
    let whole = run_all(&p);
    let shards: Vec<SweepResult> = (0..3)
        .map(|i| {
            let mut shard = p.result(whole.points.iter().skip(i).step_by(3).cloned().collect());
            shard.shard = Some(format!("{i}/3"));
            serde_json::from_str(&shard.to_json()).unwrap()
        })
        .collect();
    let mut reversed = shards.clone();
    reversed.reverse();
    assert_eq!(merge(reversed).unwrap().to_json(), whole.to_json());
    assert_eq!(merge(shards[..2].to_vec()).unwrap_err(), MergeError::Given { given: 2, n: 3 });
    assert_eq!(merge(shards[..2].to_vec()).unwrap_err().to_string(), "2 of 3 shards given");
    assert_eq!(merge(vec![shards[0].clone(), shards[0].clone(), shards[2].clone()]).unwrap_err(), MergeError::MissingOrTwice { k: 1, n: 3 });
    assert_eq!(merge(vec![whole.clone()]).unwrap_err().to_string(), "part 1: not a shard (no \"shard\" field)");
    let mut other = shards.clone();
    other[1].seed = 99;
    assert!(matches!(merge(other).unwrap_err(), MergeError::OtherSweep { .. }));
}

#[test]
fn csv_and_table_have_a_column_per_metric() {
    let p = plan(&["srv.workers=1,2"], options(2, 20.0, 3)).unwrap();
    let result = run_all(&p);
    let csv = result.to_csv(&[m("line.mean_wait_s")]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "srv.workers,line.mean_wait_s_mean,line.mean_wait_s_ci95");
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with("1,"), "{}", lines[1]);
    let table = result.to_table(&[]);
    assert!(table.contains("totals.delivered") && table.contains(" ± "), "{table}");
}

#[test]
fn a_runner_reports_each_replication_and_gives_the_points_the_command_line_does() {
    let request = Request {
        scenario: mm1(),
        vary: vec![Varied { name: f("src.arrivals.rate_per_s"), values: vec![2.0, 6.0] }],
        reps: 3,
        until_s: 200.0,
        warmup_s: 20.0,
        seed: 9,
    };
    // What the page's worker receives reads back as the same request.
    let text = serde_json::to_string(&request).unwrap();
    assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), request);
    let mut runner = Runner::new(request.plan().unwrap());
    let mut reports = Vec::new();
    while let Some(report) = runner.step() {
        reports.push(report);
    }
    assert!(matches!(&reports[0], Report::Planned { points: 2, reps: 3, metrics } if metrics.contains(&m("line.mean_depth_messages"))));
    let replications = reports.iter().filter(|r| matches!(r, Report::Replication { .. })).count();
    assert_eq!(replications, 6);
    assert_eq!(reports.last(), Some(&Report::Done));
    let points: Vec<PointResult> = reports
        .into_iter()
        .filter_map(|r| match r {
            Report::Point { result, .. } => Some(result),
            _ => None,
        })
        .collect();
    let direct = plan(&["src.arrivals.rate_per_s=2,6"], Options { reps: 3, until_s: 200.0, warmup_s: 20.0, seed: 9 }).unwrap();
    assert_eq!(direct.result(points).to_json(), run_all(&direct).to_json());
}

#[test]
fn a_request_names_what_is_wrong_without_the_command_lines_flags() {
    let request = |name: &str, values: Vec<f64>| Request {
        scenario: mm1(),
        vary: vec![Varied { name: f(name), values }],
        reps: 2,
        until_s: 10.0,
        warmup_s: 1.0,
        seed: 1,
    };
    let why = |r: Request| r.plan().err().unwrap();
    assert_eq!(why(request("srv.workers", vec![])), SweepError::Field(VaryError::Values { name: "srv.workers".into(), why: ValuesError::None }));
    assert_eq!(why(request("srv.workers", vec![])).to_string(), "srv.workers: no values");
    assert_eq!(why(request("srv.workers", vec![f64::NAN])).to_string(), "srv.workers: NaN is not a number a field can take");
    assert!(matches!(why(request("srv.workers", vec![0.0])), SweepError::Point { why: PointError::Invalid(_), .. }));
    assert!(why(request("srv.workers", vec![0.0])).to_string().starts_with("at srv.workers = 0: "));
    assert!(matches!(why(request("nowhere.x", vec![1.0])), SweepError::Field(VaryError::NoNode { .. })));
    assert!(why(request("nowhere.x", vec![1.0])).to_string().starts_with("nowhere.x: no node"));
}

#[test]
fn spread_values_cover_the_range_and_whole_fields_get_whole_numbers() {
    assert_eq!(spread(1.0, 3.0, 5, false).unwrap(), vec![1.0, 1.5, 2.0, 2.5, 3.0]);
    assert_eq!(spread(2.0, 2.0, 1, false).unwrap(), vec![2.0]);
    assert_eq!(spread(1.0, 4.0, 8, true).unwrap(), vec![1.0, 2.0, 3.0, 4.0], "rounded, no repeats");
    assert_eq!(spread(10.0, 98.0, 12, true).unwrap(), vec![10.0, 18.0, 26.0, 34.0, 42.0, 50.0, 58.0, 66.0, 74.0, 82.0, 90.0, 98.0]);
    assert_eq!(spread(0.4, 0.6, 3, true).unwrap_err().to_string(), "no whole number lies from 0.4 to 0.6");
    assert_eq!(spread(3.0, 1.0, 3, false).unwrap_err(), SpreadError::EmptyRange { from: 3.0, to: 1.0 });
    assert_eq!(spread(1.0, 2.0, 0, false).unwrap_err().to_string(), format!("the number of points must be from 1 to {MAX_POINTS}, not 0"));
    assert!(spread(f64::NAN, 2.0, 3, false).is_err());
}

fn m(text: &str) -> Metric {
    Metric::parse(text).unwrap()
}

fn f(text: &str) -> NodeField {
    NodeField::parse(text).unwrap()
}

/// M/M/1/K: a queue holding at most K − 1 with one server, so K in the
/// system. Its drops are all overflow, at the closed form's probability
/// (1 − ρ)ρ^K / (1 − ρ^(K+1)); no other reason is counted.
#[test]
fn a_full_queues_drops_are_overflow_at_the_mm1k_probability() {
    let mut s = mm1();
    let line = s.node_index("line").unwrap();
    let BlockSpec::Queue(q) = &mut s.nodes[line].block else { unreachable!() };
    q.capacity.messages = 4;
    let varies = vec![parse_vary("src.arrivals.rate_per_s=8", &s).unwrap()];
    let p = Plan::new(&s, varies, Options { reps: 8, until_s: 2000.0, warmup_s: 100.0, seed: 5 }).unwrap();
    let point = &run_all(&p).points[0];
    let (rho, k) = (0.8f64, 5);
    let closed = (1.0 - rho) * rho.powi(k) / (1.0 - rho.powi(k + 1));
    let e = &point.metrics[&m("line.drop_probability.overflow")];
    let (mean, h) = (e.mean.unwrap(), e.ci95.unwrap());
    assert!((mean - closed).abs() <= h + 0.02 * closed, "{e:?} against {closed}");
    assert_eq!(point.metrics[&m("line.drop_probability")].mean, Some(mean));
    for other in ["thinned", "disconnect", "disconnected", "expired"] {
        assert_eq!(point.metrics[&m(&format!("line.drop_probability.{other}"))].mean, Some(0.0), "{other}");
    }
}

/// In every shipped scenario, each node's drops by reason add up to its
/// drop probability in every replication (a merge is no loss), and the
/// slow client's sender behind a slow socket splits its drops into video
/// thinned on purpose (most of them) and the rest.
#[test]
fn a_nodes_drops_by_reason_add_up_to_its_drop_probability() {
    let mut shipped: Vec<(&str, &str)> = crate::lesson::SCENARIOS.to_vec();
    shipped.push(("every-block.json", include_str!("../../../scenarios/every-block.json")));
    for (name, text) in shipped {
        let s = Scenario::from_json(text).unwrap();
        let Some(consumer) = s.nodes.iter().find(|n| n.block.kind() == Kind::Consumer) else { continue };
        let varies = vec![parse_vary(&format!("{}.workers=1,2", consumer.id), &s).unwrap()];
        let p = Plan::new(&s, varies, Options { reps: 1, until_s: 40.0, warmup_s: 10.0, seed: 1 }).unwrap();
        for point in 0..p.points() {
            let rep = p.run(point, 0).unwrap();
            for node in &s.nodes {
                let whole = rep[&Metric::Of { node: node.id.clone(), measure: Measure::DropProbability }];
                let parts: Vec<Option<f64>> = Measure::drop_reasons(node.block.kind())
                    .iter()
                    .map(|&reason| rep[&Metric::DropsFor { node: node.id.clone(), reason }])
                    .collect();
                match whole {
                    None => assert!(parts.iter().all(Option::is_none), "{name} {}", node.id),
                    Some(whole) => {
                        let sum: f64 = parts.iter().map(|p| p.unwrap()).sum();
                        assert!((sum - whole).abs() < 1e-9, "{name} {}: {parts:?} add up to {sum}, not {whole}", node.id);
                    }
                }
            }
        }
    }
    let s = Scenario::from_json(crate::lesson::SCENARIOS[0].1).unwrap();
    // The lesson's sweep: a socket of 40 kB/s, the soft limit varied.
    let varies = ["socket.bandwidth_bytes_per_s=40000", "sender.soft_limit.messages=20,60"].map(|v| parse_vary(v, &s).unwrap()).to_vec();
    let p = Plan::new(&s, varies, Options { reps: 2, until_s: 120.0, warmup_s: 20.0, seed: 1 }).unwrap();
    for point in &run_all(&p).points {
        let share = |metric: &str| point.metrics[&m(metric)].mean.unwrap();
        let (thinned, whole) = (share("sender.drop_probability.thinned"), share("sender.drop_probability"));
        assert!(thinned > 0.3 && thinned < whole + 1e-12, "{:?}: thinned {thinned} of {whole}", point.values);
    }
}

#[test]
fn a_varied_field_reads_in_the_inspectors_words() {
    let s = mm1();
    let words = |t: &str| field_words(&s, &NodeField::parse(t).unwrap());
    assert_eq!(words("srv.workers"), "srv: Workers (at once)");
    assert_eq!(words("src.arrivals.rate_per_s"), "src: Arrivals, Rate (messages/s)");
    assert_eq!(words("srv.service_time.mean"), "srv: Service time, Mean (s)");
    assert_eq!(words("line.soft_limit.messages"), "line: Soft limit (messages)");
    // No label: the name as written.
    assert_eq!(words("srv.nothing"), "srv.nothing");
}

/// The phase map's cells: the retry storm's scenario (a 10-s slowdown
/// from 30 s) swept over its retries. Without retries every run comes
/// back or was never hurt; with three attempts at 6 a second, each comes
/// out collapsed, its goodput near nothing. A producer whose clients do
/// not wait has neither metric.
#[test]
fn recovery_tells_a_storm_that_outlives_its_trigger_from_one_that_passes() {
    let s = Scenario::from_json(include_str!("../../../scenarios/retry-storm.json")).unwrap();
    let varies = vec![parse_vary("clients.retries.max_attempts=1,3", &s).unwrap()];
    let p = Plan::new(&s, varies, Options { reps: 3, until_s: 200.0, warmup_s: 30.0, seed: 1 }).unwrap();
    let recovery = Metric::Of { node: "clients".into(), measure: Measure::Recovery };
    let goodput = Metric::Of { node: "clients".into(), measure: Measure::GoodputPerS };
    let result = run_all(&p);
    let at = |k: usize, m: &Metric| result.points[k].metrics[m].mean.unwrap();
    assert!(at(0, &recovery) >= 1.0, "one attempt: {}", at(0, &recovery));
    assert!(at(0, &goodput) > 5.0, "one attempt: {}", at(0, &goodput));
    assert_eq!(at(1, &recovery), 0.0, "three attempts: collapsed every time");
    assert!(at(1, &goodput) < 0.5, "three attempts: {}", at(1, &goodput));
    assert!(!metrics(&mm1()).contains(&Metric::Of { node: "src".into(), measure: Measure::Recovery }));
}

/// A sweep of two fields as a map: the first field's values down, the
/// second's across; a recovery metric in words, `mixed` and the mean
/// where replications differ; a sweep of one field refused.
#[test]
fn a_map_lays_two_fields_out_as_rows_and_columns() {
    let p = plan(&["src.arrivals.rate_per_s=2,4", "srv.workers=1,2,3"], options(2, 20.0, 1)).unwrap();
    let result = run_all(&p);
    let depth = Metric::Of { node: "line".into(), measure: Measure::MeanDepthMessages };
    let map = result.to_map(&depth).unwrap();
    let lines: Vec<&str> = map.lines().skip(2).collect();
    assert_eq!(lines.len(), 3, "{map}");
    assert!(lines[0].contains("src.arrivals.rate_per_s \\ srv.workers") && lines[0].trim_end().ends_with('3'), "{map}");
    assert!(lines[1].trim_start().starts_with('2') && lines[2].trim_start().starts_with('4'), "{map}");
    let one = plan(&["srv.workers=1,2"], options(1, 20.0, 1)).unwrap();
    assert!(run_all(&one).to_map(&depth).unwrap_err().contains("two varied fields"));
    let e = |mean: f64, ci95: f64| Estimate { mean: Some(mean), ci95: Some(ci95), n: 3 };
    assert_eq!(Recovery::of(&e(2.0, 0.0)), Some(Recovery::Stable));
    assert_eq!(Recovery::of(&e(1.0, 0.0)), Some(Recovery::Recovered));
    assert_eq!(Recovery::of(&e(0.0, 0.0)), Some(Recovery::Collapsed));
    assert_eq!(Recovery::of(&e(1.0, 1.2)), Some(Recovery::Mixed), "a 2 and a 0 average to 1");
    assert_eq!(Recovery::of(&Estimate { mean: None, ci95: None, n: 0 }), None);
}
