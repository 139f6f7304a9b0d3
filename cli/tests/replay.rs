//! `sluice run --arrivals FILE --decisions OUT`: a file's traffic through
//! a scenario's limiters, every decision written, instants exact.

use std::process::Command;

fn sluice() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sluice"))
}

/// A file written for one test.
fn file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("sluice-replay-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Clients, nginx's `limit_req` with `settings`, and an application that
/// takes everything at once.
fn nginx(name: &str, settings: &str) -> String {
    file(
        name,
        &format!(
            r#"{{"version": 1, "nodes": [
                {{"id": "clients", "kind": "producer", "arrivals": {{"process": "poisson", "rate_per_s": 1}}}},
                {{"id": "edge", "kind": "product_limiter", "product": "nginx_limit_req", {settings}}},
                {{"id": "app", "kind": "consumer", "workers": 100000, "service_time": {{"dist": "fixed", "value": 0.001}}}}],
               "edges": [{{"from": "clients", "to": "edge"}}, {{"from": "edge", "to": "app"}}]}}"#
        ),
    )
}

fn run(args: &[&str]) -> Result<String, String> {
    let out = sluice().args(args).output().unwrap();
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).unwrap())
    } else {
        Err(String::from_utf8(out.stderr).unwrap())
    }
}

#[test]
fn a_replayed_trace_is_decided_as_nginx_decides_it() {
    // rate=10r/s burst=4: 10,000 thousandths a second, so each millisecond
    // drains 10 of the 1,000 a request adds.
    let scenario = nginx("delay.json", r#""rate": 10, "burst": 4"#);
    let trace = file(
        "burst.csv",
        "created_s,key\n1700000000.000,a\n1700000000.000,a\n1700000000.001,a\n1700000000.002,a\n1700000000.002,a\n1700000000.003,a\n1700000000.004,b\n1700000000.5,a\n",
    );
    let csv = run(&["run", &scenario, "--arrivals", &trace, "--decisions", "-"]).unwrap();
    let expected = [
        "created_s,key,node,outcome,at_s",
        // A key's first request: excess 0.
        "1700000000,a,edge,admitted,1700000000",
        // Same millisecond: 1000, delayed 1000 * 1000 / 10000 = 100 ms.
        "1700000000,a,edge,delayed,1700000000.1",
        // 1 ms later: 1000 - 10 + 1000 = 1990, 199 ms.
        "1700000000.001,a,edge,delayed,1700000000.2",
        "1700000000.002,a,edge,delayed,1700000000.3",
        // Same millisecond again: 3980, 398 ms.
        "1700000000.002,a,edge,delayed,1700000000.4",
        // 4970 > burst 4000: refused, nothing charged.
        "1700000000.003,a,edge,rejected,1700000000.003",
        // Another key, another state.
        "1700000000.004,b,edge,admitted,1700000000.004",
        // 498 ms drain 4980: back to 0.
        "1700000000.5,a,edge,admitted,1700000000.5",
    ];
    assert_eq!(csv.lines().collect::<Vec<_>>(), expected);
    // Written to a file, the summary goes to standard output beside it.
    let out = file("decisions.csv", "");
    let summary = run(&["run", &scenario, "--arrivals", &trace, "--decisions", &out]).unwrap();
    assert!(summary.contains("rate_limited 1"), "{summary}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), csv);
}

#[test]
fn nodelay_lets_burst_plus_one_through_at_once_and_refuses_the_rest() {
    let scenario = nginx("nodelay.json", r#""rate": 10, "burst": 4, "nodelay": true"#);
    let trace = file("ten.csv", &"5.000\n".repeat(10));
    let csv = run(&["run", &scenario, "--arrivals", &trace, "--decisions", "-"]).unwrap();
    let outcomes: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').nth(3).unwrap()).collect();
    assert_eq!(outcomes, [["admitted"; 5], ["rejected"; 5]].concat());
}

#[test]
fn instants_come_back_to_the_nanosecond_as_written() {
    let scenario = nginx("exact.json", r#""rate": 1000, "burst": 100, "nodelay": true"#);
    let instants = ["1700000000.123456", "1700000000.123457", "1700000001.000000001", "1700000002.9"];
    let trace = file("exact.csv", &instants.iter().map(|t| format!("{t},10.0.0.1\n")).collect::<String>());
    let csv = run(&["run", &scenario, "--arrivals", &trace, "--decisions", "-"]).unwrap();
    let created: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(created, instants);
}

#[test]
fn a_key_with_a_comma_is_quoted_in_the_decisions() {
    let scenario = nginx("quoted.json", r#""rate": 10"#);
    let trace = file("quoted.csv", "1,\"a,b\"\n");
    let csv = run(&["run", &scenario, "--arrivals", &trace, "--decisions", "-"]).unwrap();
    assert_eq!(csv.lines().nth(1), Some(r#"1,"a,b",edge,admitted,1"#));
}

#[test]
fn a_bad_trace_names_its_line_and_nothing_runs() {
    let scenario = nginx("bad.json", r#""rate": 10"#);
    let out = file("never.csv", "untouched");
    for (text, says) in [
        ("created_s\n1\n2\nsoon\n", "line 4: \"soon\" is not an instant"),
        ("1\n-2\n", "line 2: \"-2\" is not an instant"),
        ("1\n2e3\n", "line 2: \"2e3\" is not an instant"),
        ("1\n0.0000000001\n", "line 2: \"0.0000000001\" has more than nine decimals"),
        ("created_s,key\n", "it holds no instant"),
    ] {
        let trace = file("bad.csv", text);
        let err = run(&["run", &scenario, "--arrivals", &trace, "--decisions", &out]).unwrap_err();
        assert!(err.starts_with("sluice: --arrivals ") && err.contains(says), "{text:?}: {err}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "untouched", "nothing written");
    }
    let missing = run(&["run", &scenario, "--arrivals", "/nonexistent/trace.csv"]).unwrap_err();
    assert!(missing.contains("--arrivals /nonexistent/trace.csv: cannot read it"), "{missing}");
}

#[test]
fn the_producer_that_replays_is_named_when_there_are_several() {
    let two = file(
        "two.json",
        r#"{"version": 1, "nodes": [
            {"id": "a", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1}},
            {"id": "b", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1}},
            {"id": "edge", "kind": "product_limiter", "product": "nginx_limit_req", "rate": 10},
            {"id": "app", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.001}}],
           "edges": [{"from": "a", "to": "edge"}, {"from": "b", "to": "edge"}, {"from": "edge", "to": "app"}]}"#,
    );
    let trace = file("one.csv", "0.5,k\n");
    let err = run(&["run", &two, "--arrivals", &trace]).unwrap_err();
    assert!(err.contains("which producer replays the file? name one of a, b"), "{err}");
    let err = run(&["run", &two, "--arrivals", &trace, "--producer", "edge"]).unwrap_err();
    assert!(err.contains("no producer \"edge\" in the scenario (producers: a, b)"), "{err}");
    let csv = run(&["run", &two, "--arrivals", &trace, "--producer", "b", "--until", "1", "--decisions", "-"]).unwrap();
    assert!(csv.lines().any(|l| l == "0.5,k,edge,admitted,0.5"), "{csv}");
}

#[test]
fn an_nginx_configuration_imports_and_exports_back() {
    let conf = file(
        "site.conf",
        "user www-data;\nevents { worker_connections 768; }\nhttp {\n    limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;\n    limit_req_status 429;\n    server {\n        listen 80;\n        location / {\n            limit_req zone=perip burst=4 nodelay;\n        }\n    }\n}\n",
    );
    let out = sluice().args(["import", "nginx", &conf]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let notes = String::from_utf8(out.stderr).unwrap();
    assert!(notes.contains("site.conf: line 1: user: not a limit Sluice models"), "{notes}");
    assert!(notes.contains("line 7: listen: not a limit Sluice models"), "{notes}");
    let scenario = file("imported.json", &String::from_utf8(out.stdout).unwrap());
    // The imported scenario runs, and its limiter decides as nginx.
    let trace = file("six.csv", &"1.000,10.0.0.1\n".repeat(6));
    let csv = run(&["run", &scenario, "--arrivals", &trace, "--decisions", "-"]).unwrap();
    let outcomes: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').nth(3).unwrap()).collect();
    assert_eq!(outcomes, ["admitted", "admitted", "admitted", "admitted", "admitted", "rejected"]);
    let exported = run(&["export", "nginx", &scenario]).unwrap();
    assert!(exported.contains("limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;"), "{exported}");
    assert!(exported.contains("limit_req zone=perip burst=4 nodelay;") && exported.contains("limit_req_status 429;"), "{exported}");
}

#[test]
fn a_bad_configuration_or_block_is_refused_saying_where_and_why() {
    let conf = file("bad.conf", "http {\n    limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\n    limit_req zone=one burst=4\n}\n");
    let err = run(&["import", "nginx", &conf]).unwrap_err();
    assert!(err.contains("bad.conf: line 4: a ; ending \"limit_req\" (line 3) before this }"), "{err}");
    let every = format!("{}/../scenarios/every-block.json", env!("CARGO_MANIFEST_DIR"));
    let err = run(&["export", "nginx", &every, "--node", "job_queue"]).unwrap_err();
    assert!(err.contains("queue \"job_queue\" cannot be written for nginx: nginx keeps no queue of its own"), "{err}");
    let err = run(&["export", "teapot", &every]).unwrap_err();
    assert!(err.contains("no product \"teapot\": Sluice writes nginx, haproxy, envoy, go, tower"), "{err}");
    let err = run(&["import", "teapot", &conf]).unwrap_err();
    assert!(err.contains("no product \"teapot\": Sluice reads nginx, haproxy, envoy"), "{err}");
    let err = run(&["import", "go", &conf]).unwrap_err();
    assert!(err.contains("Go has no configuration file to import"), "{err}");
    let err = run(&["export", "go", &every]).unwrap_err();
    assert!(err.contains("the scenario has no limiter Go can express"), "{err}");
}

/// An access log replays in its own format, told from its first line: an
/// nginx log's lines, written as requests end, sorted by their start with a
/// warning; each request's key its client; with `--service-times log`, each
/// served for what it took. A wrong format or key is said before anything
/// runs.
#[test]
fn an_access_log_replays_its_requests_sorted_with_their_times() {
    let scenario = nginx("log.json", r#""rate": 1000"#);
    let log = file(
        "access.log",
        "1700000000.500 0.100 10.0.0.1 api \"GET /a HTTP/1.1\" 200\n\
         1700000000.900 0.800 10.0.0.2 api \"GET /b HTTP/1.1\" 200\n\
         1700000002.000 0.250 10.0.0.1 api \"GET /a HTTP/1.1\" 200\n",
    );
    let out = sluice().args(["run", &scenario, "--arrivals", &log, "--service-times", "log", "--decisions", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("1 line comes before the line above (the first: line 2); sorted by instant"), "{said}");
    let rows: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().skip(1).map(|l| l.split(',').take(2).collect::<Vec<_>>().join(",")).collect();
    assert_eq!(rows, ["1700000000.1,10.0.0.2", "1700000000.4,10.0.0.1", "1700000001.75,10.0.0.1"]);
    // The application serves each for what it took: 0.8, 0.1 and 0.25 s.
    let report = run(&["run", &scenario, "--arrivals", &log, "--service-times", "log", "--format", "json"]).unwrap();
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let sojourn = report["nodes"]["app"]["mean_sojourn_s"].as_f64().unwrap();
    assert!((sojourn - 1.15 / 3.0).abs() < 1e-9, "{sojourn}");
    for (args, says) in [
        (vec!["--log-format", "apache"], "--log-format apache: expected one of csv, nginx, envoy, har"),
        (vec!["--log-format", "envoy"], "line 1: \"1700000000.500 0.100 10.0.0.1 api \"GET /a HTTP/1.1\" 200\" is not Envoy's default access log"),
        (vec!["--key", "header:X-Key"], "--key: this log holds no header by name"),
        (vec!["--key", "nobody"], "--key \"nobody\": expected client, path, host, none, header:NAME or field:N"),
    ] {
        let mut all = vec!["run", scenario.as_str(), "--arrivals", log.as_str()];
        all.extend(args.iter().copied());
        let err = run(&all).unwrap_err();
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let plain = file("plain.csv", "1,a\n2,b\n");
    let err = run(&["run", &scenario, "--arrivals", &plain, "--service-times", "log"]).unwrap_err();
    assert!(err.contains("--service-times: --arrivals") && err.contains("gives no service times"), "{err}");
}

/// `--shadow`: what nginx's `limit_req` (1 r/s, burst 2, delayed) did per
/// minute and key. Three requests of one key at once: one at once, two
/// delayed by 1 and 2 s; four of another: the fourth refused; a key at one
/// request every 2 s: all at once, thirty a minute.
#[test]
fn a_shadow_replay_says_what_the_limits_did_per_key_and_minute() {
    let scenario = nginx("shadow.json", r#""rate": 1, "burst": 2"#);
    let mut trace = String::from("time_s,key\n1700000000,a\n1700000000,a\n1700000000,a\n");
    for i in 0..60 {
        trace.push_str(&format!("{},b\n", 1_700_000_040 + 2 * i));
    }
    trace.push_str("1700000100.5,c\n1700000100.5,c\n1700000100.5,c\n1700000100.5,c\n");
    let mut lines: Vec<&str> = trace.lines().collect();
    lines[1..].sort_by(|x, y| x.split(',').next().unwrap().parse::<f64>().unwrap().total_cmp(&y.split(',').next().unwrap().parse::<f64>().unwrap()));
    let trace = file("shadow.csv", &(lines.join("\n") + "\n"));
    let shadow = run(&["run", &scenario, "--arrivals", &trace, "--shadow", "-"]).unwrap();
    assert_eq!(
        shadow,
        "minute_s,node,key,admitted,delayed,delay_mean_s,delay_max_s,refused\n\
         1699999980,edge,a,1,2,1.5,2,0\n\
         1700000040,edge,b,30,0,0,0,0\n\
         1700000100,edge,b,30,0,0,0,0\n\
         1700000100,edge,c,1,2,1.5,2,1\n"
    );
    let both = run(&["run", &scenario, "--arrivals", &trace, "--shadow", "-", "--decisions", "-"]).unwrap_err();
    assert!(both.contains("only one of them can go to standard output"), "{both}");
}
