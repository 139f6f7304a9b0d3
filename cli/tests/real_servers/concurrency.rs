//! Limits of requests in progress against the real servers: HAProxy's
//! server `maxconn`, `maxqueue` and `timeout queue`, and nginx's
//! `limit_conn`, in front of an application that holds every request
//! `SERVICE` before answering.
//!
//! Here a decision depends on when a place frees: the application's time
//! plus what the server spends around it (connecting, reading the
//! answer), which no configuration says. So each run measures it from the
//! server's own log (the median time a request that did not wait held its
//! place) and gives it to Sluice's consumer as a fixed service time; the
//! requests are replayed at the instants the server logged. A request
//! agrees when both refuse it, or both serve it having waited within 2 ms
//! of one another (HAProxy logs its wait in whole milliseconds).

use super::*;

/// How long the application holds each request.
const SERVICE: Duration = Duration::from_millis(30);

/// Waits agree within 2 ms (HAProxy logs whole milliseconds), or within
/// 2% of a long wait: a wait behind a dozen requests sums their times, and
/// each varies with the machine by a fraction of a millisecond.
const WAIT_TOLERANCE_MS: f64 = 2.0;
const WAIT_TOLERANCE: f64 = 0.02;

/// A scenario of clients, the limiter `settings` and an application that
/// holds every request `service_s`, as many at once as come.
fn served_by(dir: &Path, settings: &str, service_s: f64) -> PathBuf {
    let scenario = dir.join("scenario.json");
    std::fs::write(
        &scenario,
        format!(
            r#"{{"version": 1, "nodes": [
                {{"id": "clients", "kind": "producer", "arrivals": {{"process": "poisson", "rate_per_s": 1}}}},
                {{"id": "limit", "kind": "product_limiter", {settings}}},
                {{"id": "site", "kind": "consumer", "workers": 100000, "service_time": {{"dist": "fixed", "value": {service_s}}}}}],
               "edges": [{{"from": "clients", "to": "limit"}}, {{"from": "limit", "to": "site"}}]}}"#
        ),
    )
    .unwrap();
    scenario
}

/// A request as a server logged it: when its limit read it (in
/// microseconds), its key and number, and whether it was served having
/// waited so many milliseconds, or refused.
#[derive(Debug)]
struct Seen {
    at_us: u64,
    key: String,
    seq: u64,
    waited_ms: Option<f64>,
}

/// The mean of `values`.
fn mean(values: &[f64]) -> f64 {
    assert!(!values.is_empty(), "no request served: nothing to measure the service by");
    assert!(values.iter().all(|v| *v > 0.0), "a place held for no time: the application's record and the log disagree");
    values.iter().sum::<f64>() / values.len() as f64
}

/// Replays `seen` through the limiter `settings` with a service of
/// `service_s`, and counts the requests Sluice decided as the server did.
/// Requests of one instant (and one key, if the limit is `keyed`) are
/// compared as a group: the server's log does not say in which order it
/// took them.
fn agreement(product: &str, trace: &str, dir: &Path, settings: &str, service_s: f64, mut seen: Vec<Seen>, keyed: bool) -> (usize, usize) {
    seen.sort_by_key(|s| (s.at_us, s.seq));
    let scenario = served_by(dir, settings, service_s);
    let arrivals: String = seen.iter().map(|s| format!("{}.{:06},{}\n", s.at_us / 1_000_000, s.at_us % 1_000_000, s.key)).collect();
    let file = dir.join("arrivals.csv");
    std::fs::write(&file, arrivals).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["run", scenario.to_str().unwrap(), "--arrivals", file.to_str().unwrap(), "--decisions", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "sluice: {}", String::from_utf8_lossy(&out.stderr));
    // Sluice's decisions by instant and key: waited (ms) or refused. Requests
    // the server read in one pass of its loop share an instant: each group
    // is compared as a whole, its waits in order.
    type Groups = std::collections::BTreeMap<(u64, String), Vec<Option<f64>>>;
    let mut ours: Groups = Default::default();
    for line in String::from_utf8(out.stdout).unwrap().lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (created, at) = (nanos(f[0]), nanos(f[4]));
        let waited = (f[3] != "rejected").then(|| (at - created) as f64 / 1e6);
        let key = if keyed { f[1].to_string() } else { String::new() };
        ours.entry((created / 1000, key)).or_default().push(waited);
    }
    let mut theirs: Groups = Default::default();
    for s in &seen {
        let key = if keyed { s.key.clone() } else { String::new() };
        theirs.entry((s.at_us, key)).or_default().push(s.waited_ms);
    }
    assert_eq!(ours.values().map(Vec::len).sum::<usize>(), seen.len(), "one decision a request");
    let (mut agree, mut differ) = (0, Vec::new());
    // Served by both: how many waited alike, and by how much the others differ.
    let mut waits = Vec::new();
    let (mut both_served, mut alike) = (0, 0);
    for ((at_us, key), mut server) in theirs {
        let mut sluice = ours.remove(&(at_us, key.clone())).unwrap_or_default();
        let order = |a: &Option<f64>, b: &Option<f64>| a.unwrap_or(f64::MAX).total_cmp(&b.unwrap_or(f64::MAX));
        server.sort_by(order);
        sluice.sort_by(order);
        for (s, o) in server.iter().zip(&sluice) {
            match (s, o) {
                (None, None) => agree += 1,
                (Some(a), Some(b)) => {
                    agree += 1;
                    both_served += 1;
                    if (a - b).abs() <= WAIT_TOLERANCE_MS.max(a * WAIT_TOLERANCE) {
                        alike += 1;
                    } else {
                        waits.push((a - b).abs());
                    }
                }
                _ => differ.push(format!("    a request{} at {at_us} µs: {product} {s:?}, sluice {o:?} (ms waited, None: refused)", if key.is_empty() { String::new() } else { format!(" of {key}") })),
            }
        }
    }
    let refused = seen.iter().filter(|s| s.waited_ms.is_none()).count();
    let waited = seen.iter().filter(|s| s.waited_ms.is_some_and(|w| w > 0.0)).count();
    waits.sort_by(f64::total_cmp);
    let worst = waits.last().map_or(String::new(), |w| format!(", the others by up to {w:.1} ms"));
    println!(
        "{product}, {trace}: {agree} of {} requests decided as the server did ({refused} refused, {waited} waited; service {:.2} ms); of {both_served} served by both, {alike} waited alike{worst}",
        seen.len(),
        service_s * 1000.0
    );
    for d in differ.iter().take(10) {
        println!("{d}");
    }
    (agree, seen.len())
}

/// HAProxy's server limit as `sluice export haproxy` writes it for the
/// block `settings`, in front of the application, fed each trace. Each
/// request's instant is the microsecond HAProxy's frontend rules read
/// (`date(0,us)`); its wait is `%Tw`, its refusal a 503.
fn haproxy_server_case(name: &str, settings: &str) -> (usize, usize) {
    let haproxy = Path::new("/usr/sbin/haproxy");
    assert!(haproxy.exists(), "HAProxy is not installed: scripts/setup.sh test installs Debian's haproxy");
    let settings = format!(r#""product": "haproxy_server", {settings}"#);
    let app = application(SERVICE);
    let mut total = (0, 0);
    for (trace, requests) in traces(13) {
        // Numbers start again with each trace: what the last one answered goes.
        app.answered.lock().unwrap().clear();
        let dir = workdir(&format!("haproxy-{name}-{trace}"));
        let port = free_port();
        let exported = exported("haproxy", &served_by(&dir, &settings, SERVICE.as_secs_f64()));
        let conf = "global\n    nbthread 1\n    log stdout format raw local0\n".to_string()
            + &exported
                .replacen("defaults\n", "defaults\n    log global\n", 1)
                .replacen("bind :8080", &format!("bind 127.0.0.1:{port}"), 1)
                .replacen("server app 127.0.0.1:8081", &format!("server app 127.0.0.1:{}", app.port), 1)
                .replacen(
                    "    default_backend limit\n",
                    "    http-request capture req.hdr(x-client) len 64\n    http-request capture req.hdr(x-seq) len 16\n    http-request set-var(txn.t0) date(0,us)\n    log-format \"%[var(txn.t0)] %ST %Tw %[capture.req.hdr(0)] %[capture.req.hdr(1)] %[date(0,us)]\"\n    default_backend limit\n",
                    1,
                );
        std::fs::write(dir.join("haproxy.cfg"), &conf).unwrap();
        let log = std::fs::File::create(dir.join("access.log")).unwrap();
        let server = Server(Command::new(haproxy).args(["-db", "-f", dir.join("haproxy.cfg").to_str().unwrap()]).stdout(log).stderr(Stdio::null()).spawn().unwrap());
        wait_for(port);
        send(port, &requests);
        std::thread::sleep(Duration::from_millis(200));
        drop(server);
        let log = std::fs::read_to_string(dir.join("access.log")).unwrap();
        let mut held = Vec::new();
        let seen: Vec<Seen> = log
            .lines()
            .filter_map(|line| {
                let f: Vec<&str> = line.split(' ').collect();
                // The probe that found the server listening asked nothing.
                let seq = f.get(4)?.parse().ok()?;
                let waited_ms = match f[1] {
                    "200" => Some(f[2].parse::<f64>().unwrap()),
                    "503" => None,
                    other => panic!("a logged request with status {other}: {line}"),
                };
                if waited_ms == Some(0.0) {
                    // Taken at once: it held its place from the rules to
                    // the application's answer.
                    let answered = app.answered.lock().unwrap().get(&seq).copied();
                    held.extend(answered.map(|a| (a as f64 - f[0].parse::<f64>().unwrap()) / 1e6));
                }
                Some(Seen { at_us: f[0].parse().unwrap(), key: f[3].to_string(), seq, waited_ms })
            })
            .collect();
        assert_eq!(seen.len(), requests.len(), "every request logged once:\n{conf}\n{log}");
        let (agree, n) = agreement(name, trace, &dir, &settings, mean(&held), seen, false);
        total = (total.0 + agree, total.1 + n);
        let _ = std::fs::remove_dir_all(&dir);
    }
    total
}

#[test]
#[ignore = "needs HAProxy: run by make test's real-server stage"]
fn haproxy_server_queues_as_haproxy_2_6_does() {
    let cases = [
        ("maxconn 2", r#""maxconn": 2"#),
        ("maxconn 2, timeout queue 75ms", r#""maxconn": 2, "timeout_queue_s": 0.075"#),
        ("maxconn 2 maxqueue 2, balance source", r#""maxconn": 2, "maxqueue": 2, "balance": "hash""#),
    ];
    judged("HAProxy 2.6 server maxconn", "HAProxy", &cases, haproxy_server_case);
}

/// nginx's `limit_conn` as `sluice export nginx` writes it for the block
/// `settings`, keyed by the X-Client header, passing what it lets through
/// to the application (`proxy_pass`), fed each trace. nginx logs
/// milliseconds: a request's instant is `$msec − $request_time`.
fn nginx_conn_case(name: &str, settings: &str) -> (usize, usize) {
    let nginx = Path::new("/usr/sbin/nginx");
    assert!(nginx.exists(), "nginx is not installed: scripts/setup.sh test installs Debian's nginx-light");
    let settings = format!(r#""product": "nginx_limit_conn", "key": "$http_x_client", "zone_bytes": 1048576, {settings}"#);
    let app = application(SERVICE);
    let mut total = (0, 0);
    for (trace, requests) in traces(17) {
        app.answered.lock().unwrap().clear();
        let dir = workdir(&format!("nginx-conn-{name}-{trace}"));
        let port = free_port();
        let d = dir.display();
        let conf = format!("daemon off;\nmaster_process off;\nuser root;\npid {d}/nginx.pid;\nerror_log {d}/error.log error;\nevents {{ worker_connections 4096; }}\n")
            + &exported("nginx", &served_by(&dir, &settings, SERVICE.as_secs_f64()))
                .replacen(
                    "http {",
                    &format!("http {{\n    log_format sluice '$msec $request_time $status $limit_conn_status $http_x_client $http_x_seq';\n    access_log {d}/access.log sluice;\n    client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;"),
                    1,
                )
                .replacen("server {", &format!("server {{\n        listen 127.0.0.1:{port};"), 1)
                .replacen("location / {", &format!("location / {{\n            proxy_pass http://127.0.0.1:{};", app.port), 1);
        std::fs::write(dir.join("nginx.conf"), &conf).unwrap();
        let server = Server(Command::new(nginx).args(["-c", &format!("{d}/nginx.conf"), "-p", &format!("{d}")]).stderr(Stdio::null()).spawn().unwrap());
        wait_for(port);
        send(port, &requests);
        drop(server);
        let log = std::fs::read_to_string(dir.join("access.log")).unwrap();
        let mut held = Vec::new();
        let seen: Vec<Seen> = log
            .lines()
            .filter_map(|line| {
                let f: Vec<&str> = line.split(' ').collect();
                // The probe that found the server listening asked nothing.
                let seq = f.get(5)?.parse().ok()?;
                let ms = |t: &str| -> u64 { (t.parse::<f64>().unwrap() * 1000.0).round() as u64 };
                let at_ms = ms(f[0]) - ms(f[1]);
                let waited_ms = match (f[2], f[3]) {
                    ("200", "PASSED") => Some(0.0),
                    ("503" | "429", "REJECTED") => None,
                    other => panic!("a logged request with status and limit_conn_status {other:?}: {line}\n{conf}"),
                };
                if waited_ms.is_some() {
                    // From its millisecond to the application's answer: the
                    // time it held its place (half a millisecond more, on
                    // average, for the instant rounded down).
                    let answered = app.answered.lock().unwrap().get(&seq).copied();
                    held.extend(answered.map(|a| (a as f64 - at_ms as f64 * 1000.0 - 500.0) / 1e6));
                }
                Some(Seen { at_us: at_ms * 1000, key: f[4].to_string(), seq, waited_ms })
            })
            .collect();
        assert_eq!(seen.len(), requests.len(), "every request logged once:\n{conf}\n{log}");
        let (agree, n) = agreement(name, trace, &dir, &settings, mean(&held), seen, true);
        total = (total.0 + agree, total.1 + n);
        let _ = std::fs::remove_dir_all(&dir);
    }
    total
}

#[test]
#[ignore = "needs nginx: run by make test's real-server stage"]
fn nginx_limit_conn_refuses_as_nginx_1_22_does() {
    let cases = [("limit_conn 1", r#""conn": 1"#), ("limit_conn 2", r#""conn": 2"#), ("limit_conn 3, status 429", r#""conn": 3, "status": 429"#)];
    judged("nginx 1.22 limit_conn", "nginx", &cases, nginx_conn_case);
}
