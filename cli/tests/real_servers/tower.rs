//! tower's own layers against Sluice's `tower` limiter: the stack `sluice
//! export tower` writes, read back layer by layer and built from tower
//! 0.5 itself, in front of a service that takes `SERVICE` for each
//! request, driven under tokio's paused clock at the very nanoseconds
//! Sluice replays. Every request must get the same outcome at the same
//! nanosecond: called at once, called later (when), or refused by
//! `load_shed`.
//!
//! The clock moves only when this test moves it: to the next arrival,
//! the next completion, or the next millisecond (tokio's timers fire on
//! millisecond ticks), and everything woken at an instant runs before the
//! clock moves on; at one instant, what finishes is done before what
//! arrives.

use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;
use tokio::time::Instant;
use tower::util::{BoxCloneService, BoxService};
use tower::{BoxError, Service, ServiceExt};

use super::*;

/// Shared between the test and the tasks it spawns.
type Shared<T> = Arc<Mutex<Vec<T>>>;

/// What each request takes in the service behind the layers.
const SERVICE_NS: u64 = 23_400_000;

/// One layer, as the export writes it.
#[derive(Clone, Debug, PartialEq)]
enum Layer {
    LoadShed,
    Buffer(usize),
    ConcurrencyLimit(usize),
    RateLimit(u64, Duration),
}

/// The layers of the `ServiceBuilder` in `code`, outermost first.
fn layers_of(code: &str) -> Vec<Layer> {
    let arg = |line: &str, name: &str| line.trim().strip_prefix(name).and_then(|r| r.strip_suffix(')')).map(str::to_string);
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            if line == ".load_shed()" {
                Some(Layer::LoadShed)
            } else if let Some(n) = arg(line, ".buffer(") {
                Some(Layer::Buffer(n.parse().unwrap()))
            } else if let Some(n) = arg(line, ".concurrency_limit(") {
                Some(Layer::ConcurrencyLimit(n.parse().unwrap()))
            } else if let Some(args) = arg(line, ".rate_limit(") {
                let (num, per) = args.split_once(", ").unwrap();
                let per = if let Some(ms) = per.strip_prefix("Duration::from_millis(") {
                    Duration::from_millis(ms.trim_end_matches(')').parse().unwrap())
                } else if let Some(s) = per.strip_prefix("Duration::from_secs(") {
                    Duration::from_secs(s.trim_end_matches(')').parse().unwrap())
                } else {
                    Duration::from_nanos(per.trim_start_matches("Duration::from_nanos(").trim_end_matches(')').parse().unwrap())
                };
                Some(Layer::RateLimit(num.parse().unwrap(), per))
            } else {
                None
            }
        })
        .collect()
}

/// A stack built: one its callers share by cloning, or one handle.
enum Built {
    Shared(BoxCloneService<usize, usize, BoxError>),
    Single(BoxService<usize, usize, BoxError>),
}

/// The stack of `layers` in front of `inner`, built as `ServiceBuilder`
/// builds it (the first layer outermost).
fn build<S>(layers: &[Layer], inner: S) -> Built
where
    S: Service<usize, Response = usize, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    let mut built = Built::Shared(BoxCloneService::new(inner));
    for layer in layers.iter().rev() {
        built = match (layer, built) {
            (Layer::LoadShed, Built::Shared(s)) => Built::Shared(BoxCloneService::new(tower::load_shed::LoadShed::new(s))),
            (Layer::LoadShed, Built::Single(s)) => Built::Single(BoxService::new(tower::load_shed::LoadShed::new(s))),
            (Layer::Buffer(bound), Built::Shared(s)) => Built::Shared(BoxCloneService::new(tower::buffer::Buffer::new(s, *bound))),
            (Layer::Buffer(bound), Built::Single(s)) => Built::Shared(BoxCloneService::new(tower::buffer::Buffer::new(s, *bound))),
            (Layer::ConcurrencyLimit(max), Built::Shared(s)) => Built::Shared(BoxCloneService::new(tower::limit::ConcurrencyLimit::new(s, *max))),
            (Layer::ConcurrencyLimit(max), Built::Single(s)) => Built::Single(BoxService::new(tower::limit::ConcurrencyLimit::new(s, *max))),
            (Layer::RateLimit(num, per), Built::Shared(s)) => Built::Single(BoxService::new(tower::limit::RateLimit::new(s, tower::limit::rate::Rate::new(*num, *per)))),
            (Layer::RateLimit(num, per), Built::Single(s)) => Built::Single(BoxService::new(tower::limit::RateLimit::new(s, tower::limit::rate::Rate::new(*num, *per)))),
        };
    }
    built
}

/// Lets every task woken at this instant run (the clock does not move).
async fn settle() {
    for _ in 0..256 {
        tokio::task::yield_now().await;
    }
}

/// What tower decides for requests arriving at `arrivals` (nanoseconds
/// from the start, in order): per request, its outcome and when it was
/// called or refused.
async fn drive(layers: &[Layer], arrivals: &[u64]) -> Vec<(&'static str, u64)> {
    let t0 = Instant::now();
    let since = move || (Instant::now() - t0).as_nanos() as u64;
    let n = arrivals.len();
    // When each request was called; the services to end, and when; outcomes.
    let called: Shared<Option<u64>> = Arc::new(Mutex::new(vec![None; n]));
    let finishing: Shared<(u64, oneshot::Sender<()>)> = Arc::default();
    let results: Shared<Option<(&'static str, u64)>> = Arc::new(Mutex::new(vec![None; n]));
    let service = {
        let (called, finishing) = (called.clone(), finishing.clone());
        tower::service_fn(move |i: usize| {
            let now = since();
            called.lock().unwrap()[i] = Some(now);
            let (tx, rx) = oneshot::channel();
            finishing.lock().unwrap().push((now + SERVICE_NS, tx));
            async move {
                let _ = rx.await;
                Ok::<usize, BoxError>(i)
            }
        })
    };
    let mut built = build(layers, service);
    // The outcome of request `i`, from what its call returned.
    let record = {
        let (called, results) = (called.clone(), results.clone());
        move |i: usize, arrived: u64, result: Result<usize, BoxError>| {
            let outcome = match result {
                Ok(_) => {
                    let at = called.lock().unwrap()[i].expect("called");
                    (if at == arrived { "admitted" } else { "delayed" }, at)
                }
                Err(e) if e.is::<tower::load_shed::error::Overloaded>() => ("rejected", arrived),
                Err(e) => panic!("request {i}: {e}"),
            };
            results.lock().unwrap()[i] = Some(outcome);
        }
    };
    let mut next = 0;
    loop {
        settle().await;
        let now = since();
        // What finishes now first, then what arrives now, each in turn.
        loop {
            let due: Vec<oneshot::Sender<()>> = {
                let mut f = finishing.lock().unwrap();
                let (due, later): (Vec<_>, Vec<_>) = f.drain(..).partition(|(at, _)| *at <= now);
                *f = later;
                due.into_iter().map(|(_, tx)| tx).collect()
            };
            if due.is_empty() {
                break;
            }
            for tx in due {
                let _ = tx.send(());
            }
            settle().await;
        }
        while next < n && arrivals[next] <= now {
            let (i, record) = (next, record.clone());
            match &mut built {
                // One handle, always ready (load_shed outermost): its call
                // is made now, in the order of arrival.
                Built::Single(s) => {
                    let call = s.ready().await.unwrap().call(i);
                    tokio::spawn(async move { record(i, now, call.await) });
                }
                Built::Shared(s) if layers.first() == Some(&Layer::LoadShed) => {
                    let call = s.ready().await.unwrap().call(i);
                    tokio::spawn(async move { record(i, now, call.await) });
                }
                // Each caller waits on its own clone, first come first served.
                Built::Shared(s) => {
                    let mut s = s.clone();
                    tokio::spawn(async move {
                        let result = match s.ready().await {
                            Ok(s) => s.call(i).await,
                            Err(e) => Err(e),
                        };
                        record(i, now, result)
                    });
                }
            }
            next += 1;
            settle().await;
        }
        if next == n && results.lock().unwrap().iter().all(Option::is_some) {
            break;
        }
        let soonest_finish = finishing.lock().unwrap().iter().map(|(at, _)| *at).min();
        let next_tick = (now / 1_000_000 + 1) * 1_000_000;
        let target = [arrivals.get(next).copied(), soonest_finish, Some(next_tick)].into_iter().flatten().min().unwrap();
        tokio::time::advance(Duration::from_nanos(target - now)).await;
    }
    let results = results.lock().unwrap();
    results.iter().map(|r| r.unwrap()).collect()
}

/// tower's decisions for the stack `layers` on `arrivals`.
fn tower_decisions(layers: &[Layer], arrivals: &[u64]) -> Vec<(&'static str, u64)> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
    runtime.block_on(drive(layers, arrivals))
}

/// The block `settings` against tower on each trace: requests decided
/// alike (outcome and nanosecond), and all of them.
fn tower_case(name: &str, settings: &str) -> (usize, usize) {
    let dir = workdir(&format!("tower-{name}"));
    let scenario = dir.join("scenario.json");
    std::fs::write(
        &scenario,
        format!(
            r#"{{"version": 1, "nodes": [
                {{"id": "clients", "kind": "producer", "arrivals": {{"process": "poisson", "rate_per_s": 1}}}},
                {{"id": "limit", "kind": "product_limiter", "product": "tower", {settings}}},
                {{"id": "site", "kind": "consumer", "workers": 100000, "service_time": {{"dist": "fixed", "value": {}}}}}],
               "edges": [{{"from": "clients", "to": "limit"}}, {{"from": "limit", "to": "site"}}]}}"#,
            SERVICE_NS as f64 / 1e9
        ),
    )
    .unwrap();
    let layers = layers_of(&exported("tower", &scenario));
    assert!(!layers.is_empty(), "the export's ServiceBuilder has layers");
    let mut total = (0, 0);
    for (trace, requests) in traces(19) {
        let arrivals: Vec<u64> = requests.iter().map(|r| (r.at_s * 1e9).round() as u64).collect();
        let file = dir.join("arrivals.csv");
        std::fs::write(&file, arrivals.iter().map(|ns| format!("{}.{:09}\n", ns / 1_000_000_000, ns % 1_000_000_000)).collect::<String>()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .args(["run", scenario.to_str().unwrap(), "--arrivals", file.to_str().unwrap(), "--decisions", "-"])
            .output()
            .unwrap();
        assert!(out.status.success(), "sluice: {}", String::from_utf8_lossy(&out.stderr));
        // Sluice's decisions by the instant each request was made: requests of
        // one instant are compared as a group, in the order of their outcomes.
        let mut ours: std::collections::BTreeMap<u64, Vec<(String, u64)>> = Default::default();
        for line in String::from_utf8(out.stdout).unwrap().lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            ours.entry(nanos(f[0])).or_default().push((f[3].to_string(), nanos(f[4])));
        }
        let mut theirs: std::collections::BTreeMap<u64, Vec<(String, u64)>> = Default::default();
        let mut shapes: std::collections::BTreeMap<&str, usize> = Default::default();
        for (arrived, (outcome, at)) in arrivals.iter().zip(tower_decisions(&layers, &arrivals)) {
            *shapes.entry(outcome).or_default() += 1;
            theirs.entry(*arrived).or_default().push((outcome.to_string(), at));
        }
        let (mut agree, mut differ) = (0, Vec::new());
        for (arrived, mut t) in theirs {
            let mut o = ours.remove(&arrived).unwrap_or_default();
            t.sort();
            o.sort();
            for k in 0..t.len() {
                match (t.get(k), o.get(k)) {
                    (Some(a), Some(b)) if a == b => agree += 1,
                    (a, b) => differ.push(format!("    a request made at {arrived} ns: tower {a:?}, sluice {b:?}")),
                }
            }
        }
        println!("tower {name}, {trace}: {agree} of {} requests as tower decided, at the same nanosecond ({shapes:?})", arrivals.len());
        for d in differ.iter().take(10) {
            println!("{d}");
        }
        total = (total.0 + agree, total.1 + arrivals.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
    total
}

#[test]
#[ignore = "drives tower under tokio: run by make test's real-server stage, beside the servers"]
fn tower_layers_decide_as_tower_0_5_does() {
    let cases = [
        ("load_shed buffer(2) concurrency_limit(2)", r#""layers": [{"layer": "load_shed"}, {"layer": "buffer", "bound": 2}, {"layer": "concurrency_limit", "max": 2}]"#),
        ("load_shed concurrency_limit(3)", r#""layers": [{"layer": "load_shed"}, {"layer": "concurrency_limit", "max": 3}]"#),
        ("buffer(16) concurrency_limit(2)", r#""layers": [{"layer": "buffer", "bound": 16}, {"layer": "concurrency_limit", "max": 2}]"#),
        ("concurrency_limit(2) load_shed", r#""layers": [{"layer": "concurrency_limit", "max": 2}, {"layer": "load_shed"}]"#),
        ("buffer(1) load_shed concurrency_limit(1)", r#""layers": [{"layer": "buffer", "bound": 1}, {"layer": "load_shed"}, {"layer": "concurrency_limit", "max": 1}]"#),
        ("buffer(8) rate_limit(5, 250ms)", r#""layers": [{"layer": "buffer", "bound": 8}, {"layer": "rate_limit", "num": 5, "per_s": 0.25}]"#),
        ("load_shed rate_limit(4, 100ms)", r#""layers": [{"layer": "load_shed"}, {"layer": "rate_limit", "num": 4, "per_s": 0.1}]"#),
        ("load_shed buffer(3) rate_limit(2, 45.5ms)", r#""layers": [{"layer": "load_shed"}, {"layer": "buffer", "bound": 3}, {"layer": "rate_limit", "num": 2, "per_s": 0.0455}]"#),
    ];
    let mut total = (0, 0);
    for (name, settings) in cases {
        let (agree, n) = tower_case(name, settings);
        total = (total.0 + agree, total.1 + n);
    }
    judged_exactly("tower 0.5.3", "tower", total);
}
