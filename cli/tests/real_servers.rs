//! Sluice against the real servers: a limiter's configuration written by
//! `sluice export`, traffic sent to a real nginx at its instants, the
//! instants nginx itself logged replayed through `sluice run --arrivals`,
//! and each request's outcome compared with `--decisions`. Timing on a
//! shared machine is noisy, and a decision depends on the exact
//! millisecond, so the comparison is against what the server saw, not
//! what the client meant to send.
//!
//! Go's limiter takes its instant from the caller, so there the code
//! `sluice export go` writes is built with Debian's golang.org/x/time and
//! fed the very nanoseconds Sluice replays (`go/harness.go`): every
//! decision, and every delayed request's instant, must be the same.
//!
//! These need the servers installed (`scripts/setup.sh test` installs
//! Debian's), so they are left out of a plain `cargo test` and run in
//! their own stage of `make test`: `cargo test -p sluice-cli --test
//! real_servers -- --ignored --nocapture`. Each prints its agreement.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sluice_engine::SimRng;

/// Limits of requests in progress, against the servers.
#[path = "real_servers/concurrency.rs"]
mod concurrency;
/// tower's own layers, under tokio's paused clock.
#[path = "real_servers/tower.rs"]
mod tower_layers;

/// The agreement aimed at, over every request of a test: below it the
/// stage says so, and what disagreed is printed above.
const GOAL: f64 = 0.995;
/// The agreement below which the test fails: a transcription wrong in any
/// rule (B instead of B + 1, a refused request charged, a rate rounded the
/// other way) parts from nginx on whole bursts, far below this; what the
/// log cannot tell (a request checked a few milliseconds after it began,
/// on a loaded machine) parts on a few requests at a key's limit, and one
/// request decided the other way can carry a key's next ones with it: a
/// whole `make test` has measured 98.9%.
const FLOOR: f64 = 0.97;

/// Runs `case` for each setting of `cases` (its name, and the block's
/// fields) and prints how many of all their requests Sluice decided as
/// `server` did, under the name `product`; fails below the floor.
fn judged(product: &str, server: &str, cases: &[(&str, &str)], case: impl Fn(&str, &str) -> (usize, usize)) {
    let mut total = (0, 0);
    for (name, settings) in cases {
        let (agree, n) = case(name, settings);
        total = (total.0 + agree, total.1 + n);
    }
    let share = total.0 as f64 / total.1 as f64;
    let goal = if share >= GOAL { "the goal of 99.5% met" } else { "below the goal of 99.5%: the requests that differ are listed above" };
    println!("{product}: {} of {} requests as {server} decided ({:.2}%), {goal}", total.0, total.1, share * 100.0);
    assert!(share >= FLOOR, "agreement {:.2}% is below {:.0}%: the transcription parts from {server}", share * 100.0, FLOOR * 100.0);
}

/// Prints how many of all requests Sluice decided exactly as `server`
/// did (outcome and instant), under the name `product`; fails unless all.
fn judged_exactly(product: &str, server: &str, total: (usize, usize)) {
    let share = total.0 as f64 / total.1 as f64;
    println!("{product}: {} of {} requests as {server} decided ({:.2}%), the goal of 100% {}", total.0, total.1, share * 100.0, if total.0 == total.1 { "met" } else { "missed" });
    assert_eq!(total.0, total.1, "every decision must be {server}'s: the transcription parts from {server}");
}

/// A request to send: when (seconds from the start), and its key.
#[derive(Clone, Debug)]
struct Request {
    at_s: f64,
    key: String,
}

/// Traffic of three shapes over several keys, drawn from `seed`.
fn traces(seed: u64) -> Vec<(&'static str, Vec<Request>)> {
    let mut rng = SimRng::new(seed);
    let key = |rng: &mut SimRng, n: usize| format!("10.0.0.{}", 1 + (rng.uniform() * n as f64) as usize % n);
    // Bursts: every 0.6 s a key sends 3 to 9 requests back to back.
    let mut bursty = Vec::new();
    let mut t = 0.05;
    while t < 8.0 {
        let k = key(&mut rng, 3);
        for _ in 0..(3 + (rng.uniform() * 7.0) as usize) {
            bursty.push(Request { at_s: t, key: k.clone() });
        }
        t += 0.6 * rng.uniform() + 0.3;
    }
    // Poisson at 40 a second over four keys: each key near its rate.
    let mut poisson = Vec::new();
    let mut t = 0.0;
    loop {
        t += rng.exponential(1.0 / 40.0);
        if t >= 8.0 {
            break;
        }
        poisson.push(Request { at_s: t, key: key(&mut rng, 4) });
    }
    // On and off: 60 a second for half a second, then silence, two keys.
    let mut on_off = Vec::new();
    let mut t = 0.0;
    loop {
        t += rng.exponential(1.0 / 60.0);
        if t >= 8.0 {
            break;
        }
        if t % 1.0 < 0.5 {
            on_off.push(Request { at_s: t, key: key(&mut rng, 2) });
        }
    }
    vec![("bursty", bursty), ("poisson", poisson), ("on and off", on_off)]
}

/// A directory of its own for one server run.
fn workdir(name: &str) -> PathBuf {
    let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let dir = std::env::temp_dir().join(format!("sluice-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("www")).unwrap();
    std::fs::write(dir.join("www/index.html"), "ok\n").unwrap();
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A server process, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(port: u16) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(10), "the server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends every request at its instant, each on a connection of its own,
/// and waits for every answer.
fn send(port: u16, requests: &[Request]) {
    let start = Instant::now() + Duration::from_millis(50);
    let mut threads = Vec::with_capacity(requests.len());
    for (seq, r) in requests.iter().enumerate() {
        let due = start + Duration::from_secs_f64(r.at_s);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let key = r.key.clone();
        threads.push(std::thread::spawn(move || {
            let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
            let request = format!("GET /index.html HTTP/1.1\r\nHost: sluice\r\nX-Client: {key}\r\nX-Seq: {seq}\r\nConnection: close\r\n\r\n");
            stream.write_all(request.as_bytes()).unwrap();
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer);
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
}

/// One logged request: when the server took it (its millisecond), its
/// key, the order it was accepted in, and the server's outcome.
#[derive(Debug)]
struct Logged {
    arrival_ms: u64,
    key: String,
    connection: u64,
    outcome: String,
    seq: u64,
}

/// The agreement of `sluice` with a server's log: the requests in the
/// order the server took them, replayed through `scenario`.
fn compare(product: &str, trace: &str, scenario: &Path, mut logged: Vec<Logged>, dir: &Path) -> (usize, usize) {
    logged.sort_by_key(|l| (l.arrival_ms, l.connection));
    let arrivals: String =
        logged.iter().map(|l| format!("{}.{:03},{}\n", l.arrival_ms / 1000, l.arrival_ms % 1000, l.key)).collect();
    let file = dir.join("arrivals.csv");
    std::fs::write(&file, arrivals).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["run", scenario.to_str().unwrap(), "--arrivals", file.to_str().unwrap(), "--decisions", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "sluice: {}", String::from_utf8_lossy(&out.stderr));
    let decisions = String::from_utf8(out.stdout).unwrap();
    let outcomes: Vec<&str> = decisions.lines().skip(1).map(|l| l.split(',').nth(3).unwrap()).collect();
    assert_eq!(outcomes.len(), logged.len(), "one decision a request");
    // Requests of one key in one millisecond: nginx decides them one after
    // the other, the first let through at once, a later one delayed or
    // refused; which of them came first, its log cannot say (a line is
    // written when the answer has gone, a delayed one later). So within
    // such a group the outcomes are compared as a whole: so many let
    // through, so many delayed, so many refused.
    #[derive(Default)]
    struct Group<'a> {
        server: Vec<&'a str>,
        ours: Vec<&'a str>,
        seqs: Vec<u64>,
    }
    let mut groups: std::collections::BTreeMap<(u64, &str), Group> = Default::default();
    for (l, sluice) in logged.iter().zip(&outcomes) {
        let g = groups.entry((l.arrival_ms, l.key.as_str())).or_default();
        g.server.push(l.outcome.as_str());
        g.ours.push(sluice);
        g.seqs.push(l.seq);
    }
    let mut agree = 0;
    let mut differ = Vec::new();
    for ((ms, key), Group { mut server, mut ours, seqs }) in groups {
        server.sort_unstable();
        ours.sort_unstable();
        let same = ["admitted", "delayed", "rejected"]
            .iter()
            .map(|o| server.iter().filter(|s| *s == o).count().min(ours.iter().filter(|s| *s == o).count()))
            .sum::<usize>();
        agree += same;
        if same < server.len() {
            differ.push(format!("    {} request(s) {seqs:?} of {key} at {ms} ms: {product} {server:?}, sluice {ours:?}", server.len() - same));
        }
    }
    let mut shapes: std::collections::BTreeMap<&str, usize> = Default::default();
    for l in &logged {
        *shapes.entry(l.outcome.as_str()).or_default() += 1;
    }
    println!("{product}, {trace}: {agree} of {} requests as the server decided ({shapes:?})", logged.len());
    for d in differ.iter().take(10) {
        println!("{d}");
    }
    (agree, logged.len())
}

/// A scenario of clients, the limiter `settings` (its `"product"` and
/// the rest) and an application that takes everything at once.
fn scenario_of(dir: &Path, settings: &str) -> PathBuf {
    let scenario = dir.join("scenario.json");
    std::fs::write(
        &scenario,
        format!(
            r#"{{"version": 1, "nodes": [
                {{"id": "clients", "kind": "producer", "arrivals": {{"process": "poisson", "rate_per_s": 1}}}},
                {{"id": "limit", "kind": "product_limiter", {settings}}},
                {{"id": "site", "kind": "consumer", "workers": 100000, "service_time": {{"dist": "fixed", "value": 0.0001}}}}],
               "edges": [{{"from": "clients", "to": "limit"}}, {{"from": "limit", "to": "site"}}]}}"#
        ),
    )
    .unwrap();
    scenario
}

/// What `sluice export PRODUCT` writes for the scenario's limiter.
fn exported(product: &str, scenario: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice")).args(["export", product, scenario.to_str().unwrap(), "--node", "limit"]).output().unwrap();
    assert!(out.status.success(), "sluice export: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// nginx's `limit_req` as `sluice export nginx` writes it for the
/// settings of a block (`settings`), its zone keyed by the X-Client
/// header, fed each trace.
fn nginx_case(name: &str, settings: &str) -> (usize, usize) {
    let nginx = Path::new("/usr/sbin/nginx");
    assert!(nginx.exists(), "nginx is not installed: scripts/setup.sh test installs Debian's nginx-light");
    let settings = format!(r#""product": "nginx_limit_req", "key": "$http_x_client", "zone_bytes": 1048576, {settings}"#);
    let mut total = (0, 0);
    for (trace, requests) in traces(7) {
        let dir = workdir(&format!("{name}-{trace}"));
        let scenario = scenario_of(&dir, &settings);
        let port = free_port();
        let d = dir.display();
        // The limits as exported; around them, where this run listens,
        // logs and serves from.
        let conf = format!("daemon off;\nmaster_process off;\nuser root;\npid {d}/nginx.pid;\nerror_log {d}/error.log error;\nevents {{ worker_connections 4096; }}\n")
            + &exported("nginx", &scenario)
                .replacen(
                    "http {",
                    &format!("http {{\n    log_format sluice '$msec $request_time $status $limit_req_status $http_x_client $connection $http_x_seq';\n    access_log {d}/access.log sluice;\n    client_body_temp_path {d}/body;"),
                    1,
                )
                .replacen("server {", &format!("server {{\n        listen 127.0.0.1:{port};\n        root {d}/www;"), 1);
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let server = Server(Command::new(nginx).args(["-c", &format!("{d}/nginx.conf"), "-p", &format!("{d}")]).stderr(Stdio::null()).spawn().unwrap());
        wait_for(port);
        send(port, &requests);
        drop(server);
        let log = std::fs::read_to_string(dir.join("access.log")).unwrap();
        let logged: Vec<Logged> = log
            .lines()
            .filter_map(|line| {
                let f: Vec<&str> = line.split(' ').collect();
                // The probe that found the server listening asked nothing.
                let seq = f.get(6)?.parse().ok()?;
                let ms = |t: &str| -> u64 { (t.parse::<f64>().unwrap() * 1000.0).round() as u64 };
                let outcome = match f[3] {
                    "PASSED" => "admitted",
                    "DELAYED" => "delayed",
                    "REJECTED" => "rejected",
                    other => panic!("a logged request with limit_req_status {other}: {line}"),
                };
                Some(Logged { arrival_ms: ms(f[0]) - ms(f[1]), key: f[4].to_string(), connection: f[5].parse().unwrap(), outcome: outcome.into(), seq })
            })
            .collect();
        assert_eq!(logged.len(), requests.len(), "every request logged once");
        let (agree, n) = compare(name, trace, &scenario, logged, &dir);
        total = (total.0 + agree, total.1 + n);
        let _ = std::fs::remove_dir_all(&dir);
    }
    total
}

#[test]
#[ignore = "needs nginx: run by make test's real-server stage"]
fn nginx_limit_req_decides_as_nginx_1_22_does() {
    let cases = [
        ("rate=10r/s burst=4 nodelay", r#""rate": 10, "burst": 4, "nodelay": true"#),
        ("rate=8r/s burst=5", r#""rate": 8, "burst": 5"#),
        ("rate=600r/m burst=6 delay=3", r#""rate": 600, "per": "minute", "burst": 6, "delay": 3"#),
    ];
    judged("nginx 1.22 limit_req", "nginx", &cases, nginx_case);
}

/// An application that answers every request `service` after reading it
/// (`200 ok`), for a server to pass what it lets through to; stops with
/// the test.
struct App {
    port: u16,
    /// When each request (by its `X-Seq`) was answered, in microseconds of
    /// the system's clock, the one the servers log by.
    answered: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<u64, u64>>>,
}

fn application(service: Duration) -> App {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let answered = std::sync::Arc::new(std::sync::Mutex::new(std::collections::HashMap::new()));
    let record = answered.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let record = record.clone();
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                std::thread::sleep(service);
                // Recorded before the answer goes, so that it is there when
                // the client has it.
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as u64;
                let text = String::from_utf8_lossy(&request);
                let seq = text.lines().find_map(|l| l.strip_prefix("X-Seq: ").or_else(|| l.strip_prefix("x-seq: "))).and_then(|v| v.trim().parse().ok());
                if let Some(seq) = seq {
                    record.lock().unwrap().insert(seq, now);
                }
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n");
                let _ = stream.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    App { port, answered }
}

/// HAProxy's stick-table rate limit as `sluice export haproxy` writes it
/// for the settings of a block (`settings`), tracking the X-Client header,
/// fed each trace; each request's instant is the millisecond HAProxy's
/// rules read (`date(0,ms)` beside the deny).
fn haproxy_case(name: &str, settings: &str) -> (usize, usize) {
    let haproxy = Path::new("/usr/sbin/haproxy");
    assert!(haproxy.exists(), "HAProxy is not installed: scripts/setup.sh test installs Debian's haproxy");
    let settings = format!(r#""product": "haproxy_http_req_rate", "key": "req.hdr(x-client)", {settings}"#);
    let app = application(Duration::ZERO).port;
    let mut total = (0, 0);
    for (trace, requests) in traces(7) {
        let dir = workdir(&format!("haproxy-{name}-{trace}"));
        let scenario = scenario_of(&dir, &settings);
        let port = free_port();
        // The limits as exported; around them, one thread, a log line per
        // request with the instant the rules saw, and where to listen.
        let exported = exported("haproxy", &scenario);
        let deny = exported.lines().find(|l| l.trim_start().starts_with("http-request deny")).expect("a deny rule").to_string();
        let conf = "global\n    nbthread 1\n    log stdout format raw local0\n".to_string()
            + &exported
                .replacen("defaults\n", "defaults\n    log global\n", 1)
                .replacen("bind :8080", &format!("bind 127.0.0.1:{port}"), 1)
                .replacen("server app 127.0.0.1:8081", &format!("server app 127.0.0.1:{app}"), 1)
                .replacen(
                    &deny,
                    &format!("    http-request capture req.hdr(x-client) len 64\n    http-request capture req.hdr(x-seq) len 16\n    http-request set-var(txn.tms) date(0,ms)\n{deny}\n    log-format \"%[var(txn.tms)] %ST %[capture.req.hdr(0)] %[capture.req.hdr(1)]\""),
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
        let logged: Vec<Logged> = log
            .lines()
            .enumerate()
            .filter_map(|(order, line)| {
                let f: Vec<&str> = line.split(' ').collect();
                // The probe that found the server listening asked nothing.
                let seq = f.get(3)?.parse().ok()?;
                let outcome = match f[1] {
                    "200" => "admitted",
                    "429" => "rejected",
                    other => panic!("a logged request with status {other}: {line}"),
                };
                Some(Logged { arrival_ms: f[0].parse().unwrap(), key: f[2].to_string(), connection: order as u64, outcome: outcome.into(), seq })
            })
            .collect();
        assert_eq!(logged.len(), requests.len(), "every request logged once:\n{conf}\n{log}");
        let (agree, n) = compare(name, trace, &scenario, logged, &dir);
        total = (total.0 + agree, total.1 + n);
        let _ = std::fs::remove_dir_all(&dir);
    }
    total
}

#[test]
#[ignore = "needs HAProxy: run by make test's real-server stage"]
fn haproxy_http_req_rate_decides_as_haproxy_2_6_does() {
    let cases = [
        ("gt 10 per 1s", r#""limit": 10, "period_s": 1, "status": 429"#),
        ("gt 4 per 500ms", r#""limit": 4, "period_s": 0.5, "status": 429"#),
        ("gt 25 per 3s, expire 1s", r#""limit": 25, "period_s": 3, "expire_s": 1, "status": 429"#),
    ];
    judged("HAProxy 2.6 http_req_rate", "HAProxy", &cases, haproxy_case);
}

/// `1.234567891` as nanoseconds, exactly.
fn nanos(text: &str) -> u64 {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = format!("{fraction:0<9}");
    whole.parse::<u64>().unwrap() * 1_000_000_000 + digits[..9].parse::<u64>().unwrap()
}

/// What Go's `golang.org/x/time/rate` decides for the block `settings`,
/// on each trace at nanosecond instants: the Go `sluice export go` writes,
/// built against Debian's x/time, called as the block calls it at the
/// instants Sluice replays. Returns the requests decided alike (outcome
/// and instant) and all of them.
fn go_case(name: &str, settings: &str, call: &str, per_key: bool, timeout_ns: i64) -> (usize, usize) {
    let go = Path::new("/usr/bin/go");
    let x_time = Path::new("/usr/share/gocode/src/golang.org/x/time/rate/rate.go");
    assert!(go.exists() && x_time.exists(), "Go or its x/time is not installed: scripts/setup.sh test installs golang-go and golang-golang-x-time-dev");
    let dir = workdir(&format!("go-{name}"));
    let scenario = scenario_of(&dir, &format!(r#""product": "go_rate", {settings}"#));
    // The exported package, and the harness beside it, built once.
    let gopath = dir.join("gopath");
    std::fs::create_dir_all(gopath.join("src/limits")).unwrap();
    std::fs::create_dir_all(gopath.join("src/harness")).unwrap();
    std::fs::write(gopath.join("src/limits/limits.go"), exported("go", &scenario)).unwrap();
    std::fs::write(gopath.join("src/harness/main.go"), include_str!("go/harness.go")).unwrap();
    // An assembly file, even empty, lets a function be declared without a body (go:linkname).
    std::fs::write(gopath.join("src/harness/linkname.s"), "").unwrap();
    let harness = dir.join("harness");
    let built = Command::new(go)
        .args(["build", "-o", harness.to_str().unwrap(), "."])
        .current_dir(gopath.join("src/harness"))
        .env("GO111MODULE", "off")
        .env("GOPATH", format!("{}:/usr/share/gocode", gopath.display()))
        .env("GOCACHE", dir.join("gocache"))
        .env("GOFLAGS", "")
        .output()
        .unwrap();
    assert!(built.status.success(), "go build: {}", String::from_utf8_lossy(&built.stderr));
    let mut total = (0, 0);
    for (trace, requests) in traces(11) {
        let instants: Vec<(u64, &str)> = requests.iter().map(|r| ((r.at_s * 1e9).round() as u64, r.key.as_str())).collect();
        let arrivals: String = instants.iter().map(|(ns, key)| format!("{}.{:09},{key}\n", ns / 1_000_000_000, ns % 1_000_000_000)).collect();
        let file = dir.join("arrivals.csv");
        std::fs::write(&file, &arrivals).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .args(["run", scenario.to_str().unwrap(), "--arrivals", file.to_str().unwrap(), "--decisions", "-"])
            .output()
            .unwrap();
        assert!(out.status.success(), "sluice: {}", String::from_utf8_lossy(&out.stderr));
        let ours: Vec<(String, u64)> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[3].to_string(), nanos(f[4]))
            })
            .collect();
        let mut child = Command::new(&harness)
            .args([call, if per_key { "per_key" } else { "shared" }, &timeout_ns.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines: String = instants.iter().map(|(ns, key)| format!("{ns},{key}\n")).collect();
        child.stdin.take().unwrap().write_all(lines.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "the Go harness failed");
        let theirs: Vec<(String, u64)> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let (outcome, at) = l.split_once(',').unwrap();
                (outcome.to_string(), at.parse().unwrap())
            })
            .collect();
        assert_eq!(ours.len(), instants.len(), "one decision a request");
        assert_eq!(theirs.len(), instants.len(), "one Go decision a request");
        let mut agree = 0;
        let mut differ = Vec::new();
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if a == b {
                agree += 1;
            } else {
                differ.push(format!("    request {i} of {} at {} ns: Go {b:?}, sluice {a:?}", instants[i].1, instants[i].0));
            }
        }
        let shapes: std::collections::BTreeMap<&str, usize> = theirs.iter().fold(Default::default(), |mut m, (o, _)| {
            *m.entry(o.as_str()).or_default() += 1;
            m
        });
        println!("go {name}, {trace}: {agree} of {} requests as Go decided, at the same nanosecond ({shapes:?})", instants.len());
        for d in differ.iter().take(10) {
            println!("{d}");
        }
        total = (total.0 + agree, total.1 + instants.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
    total
}

#[test]
#[ignore = "needs Go and golang.org/x/time: run by make test's real-server stage"]
fn go_rate_decides_as_x_time_rate_0_3_does() {
    let cases = [
        ("NewLimiter(10, 4) Allow", r#""limit": 10, "burst": 4"#, "allow", false, -1),
        ("NewLimiter(7.3, 3) Allow per key", r#""limit": 7.3, "burst": 3, "per_key": true"#, "allow", true, -1),
        ("NewLimiter(12.5, 2) Reserve", r#""limit": 12.5, "burst": 2, "call": "reserve""#, "reserve", false, -1),
        ("NewLimiter(3, 5) Wait per key", r#""limit": 3, "burst": 5, "call": "wait", "per_key": true"#, "wait", true, -1),
        ("NewLimiter(20, 1) Wait within 0.0333 s", r#""limit": 20, "burst": 1, "call": "wait", "timeout_s": 0.0333"#, "wait", false, 33_300_000),
        ("NewLimiter(0, 6) Allow", r#""limit": 0, "burst": 6"#, "allow", false, -1),
    ];
    let mut total = (0, 0);
    for (name, settings, call, per_key, timeout) in cases {
        let (agree, n) = go_case(name, settings, call, per_key, timeout);
        total = (total.0 + agree, total.1 + n);
    }
    judged_exactly("go x/time/rate 0.3.0", "Go", total);
}
