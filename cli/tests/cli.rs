//! `sluice` as a user runs it: whatever the file or the reader at the other
//! end of the pipe, it answers and ends, with a clear line when it cannot.

use std::io::Read;
use std::process::{Command, Stdio};

fn sluice() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sluice"))
}

/// A scenario file written for one test.
fn scenario_file(name: &str, json: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sluice-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, json).unwrap();
    path
}

fn every_block() -> String {
    format!("{}/../scenarios/every-block.json", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn an_endless_file_is_read_no_further_than_the_size_cap() {
    let out = sluice().args(["check", "/dev/zero"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/dev/zero is larger than 4194304 bytes"), "{err}");
}

/// A chain of 400 queues: its report is far longer than a pipe holds.
fn long_chain() -> std::path::PathBuf {
    let mut nodes = vec![r#"{"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 10}}"#.to_string()];
    let mut edges = vec![r#"{"from": "p", "to": "q0"}"#.to_string()];
    for k in 0..400 {
        nodes.push(format!(r#"{{"id": "q{k}", "kind": "queue"}}"#));
        let next = if k == 399 { "c".to_string() } else { format!("q{}", k + 1) };
        edges.push(format!(r#"{{"from": "q{k}", "to": "{next}"}}"#));
    }
    nodes.push(r#"{"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.01}}"#.to_string());
    scenario_file("chain.json", &format!(r#"{{"version": 1, "nodes": [{}], "edges": [{}]}}"#, nodes.join(","), edges.join(",")))
}

#[test]
fn a_reader_that_stops_reading_is_a_quiet_end() {
    let chain = long_chain();
    let mut child = sluice()
        .args(["run", chain.to_str().unwrap(), "--format", "json", "--until", "5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe closes here, with most of the report unread.
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "no panic, no complaint");
}

#[test]
fn a_full_disk_is_said_plainly() {
    let full = std::fs::File::create("/dev/full").unwrap();
    let out = sluice().args(["run", &every_block(), "--until", "5"]).stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("sluice: cannot write the output: No space left on device"), "{err}");
}

#[test]
fn a_run_the_watchdog_stops_is_an_error_naming_the_loop() {
    let file = scenario_file(
        "loop.json",
        r#"{"version": 1, "nodes": [
            {"id": "clients", "kind": "producer", "arrivals": {"process": "closed_loop", "clients": 2, "think": {"dist": "fixed", "value": 0}}},
            {"id": "limit", "kind": "rate_limiter", "on_excess": "reject", "rules": [{"scheme": "anchored", "limit": 1, "span_s": 1}]},
            {"id": "server", "kind": "consumer", "workers": 4, "service_time": {"dist": "fixed", "value": 10}}],
           "edges": [{"from": "clients", "to": "limit"}, {"from": "limit", "to": "server"}]}"#,
    );
    let out = sluice().args(["run", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("sluice: the simulation stopped at 0.000000 s: 10000000 events"), "{err}");
    assert!(err.contains("(nodes taking part: \"clients\", \"limit\")"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_flooded_queue_without_a_capacity_is_stopped_before_it_takes_the_machine() {
    let file = scenario_file(
        "flood.json",
        r#"{"version": 1, "nodes": [
            {"id": "flood", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1e9}},
            {"id": "line", "kind": "queue"},
            {"id": "server", "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.1}}],
           "edges": [{"from": "flood", "to": "line"}, {"from": "line", "to": "server"}]}"#,
    );
    let out = sluice().args(["run", file.to_str().unwrap(), "--until", "1000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than the 5000000 a run may hold (most of them in \"line\""), "{err}");
    // A sweep reaching such a point says which.
    let out = sluice()
        .args(["sweep", file.to_str().unwrap(), "--vary", "flood.arrivals.rate_per_s=5,1e9", "--reps", "2", "--until", "100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at flood.arrivals.rate_per_s = 1000000000, replication 1: the simulation stopped"), "{err}");
}

#[test]
fn what_a_file_says_reaches_the_terminal_escaped() {
    let long_id = "\u{1b}[2J".to_string() + &"x".repeat(10_000);
    let bad = scenario_file(
        "bad-ids.json",
        &serde_json_like(&format!(
            r#"{{"version": 1, "nodes": [{{"id": "{long_id}", "kind": "queue"}}], "edges": [{{"from": "a", "to": "b"}}]}}"#
        )),
    );
    let out = sluice().args(["check", bad.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains('\u{1b}'), "raw escape: {err:?}");
    assert!(err.contains("\"\\u{1b}[2Jxxxx"), "{err}");
    assert!(err.len() < 2_000, "an over-long id is cut short: {} bytes", err.len());

    let named = scenario_file(
        "named.json",
        &std::fs::read_to_string(every_block()).unwrap().replacen("\"Every block\"", "\"Every\\u001b]0;owned\\u0007 block\"", 1),
    );
    let out = sluice().args(["run", named.to_str().unwrap(), "--until", "1"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("scenario   Every\\u{1b}]0;owned\\u{7} block\n"), "{text}");
}

/// JSON text with its control characters written as `\u` escapes, as a
/// file that carries them would be.
fn serde_json_like(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { format!("\\u{:04x}", c as u32) } else { c.to_string() }).collect()
}

fn queueing_theory() -> String {
    format!("{}/../scenarios/queueing-theory.json", env!("CARGO_MANIFEST_DIR"))
}

/// `sluice sweep` with `args` after the file; its output, or its error.
fn sweep(args: &[&str]) -> Result<String, String> {
    let file = queueing_theory();
    let out = sluice().arg("sweep").arg(&file).args(args).output().unwrap();
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

const SMALL: [&str; 6] = ["--vary", "arrivals.arrivals.rate_per_s=4:8:2", "--vary", "server.workers=1,2", "--reps", "3"];

#[test]
fn a_sweep_prints_the_same_bytes_on_one_thread_or_two() {
    let mut one: Vec<&str> = SMALL.to_vec();
    one.extend(["--until", "100", "--format", "json", "--jobs", "1"]);
    let mut two = one.clone();
    *two.last_mut().unwrap() = "2";
    let (one, two) = (sweep(&one).unwrap(), sweep(&two).unwrap());
    assert_eq!(one, two);
    let json: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(json["points"].as_array().unwrap().len(), 6);
    assert_eq!(json["points"][0]["theory"]["line"]["model"], "M/M/1");
    assert_eq!(json["points"][0]["metrics"]["line.mean_wait_s"]["n"], 3);
}

#[test]
fn shards_merged_are_the_unsharded_sweep_byte_for_byte() {
    let mut whole: Vec<&str> = SMALL.to_vec();
    whole.extend(["--until", "100", "--format", "json"]);
    let expected = sweep(&whole).unwrap();
    let dir = std::env::temp_dir().join(format!("sluice-cli-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut parts = Vec::new();
    for i in 0..4 {
        let shard = format!("{i}/4");
        let mut args = whole.clone();
        args.extend(["--shard", &shard]);
        let path = dir.join(format!("part{i}.json"));
        std::fs::write(&path, sweep(&args).unwrap()).unwrap();
        parts.push(path);
    }
    let out = sluice().args(["sweep", "merge"]).args(parts.iter().rev()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    let out = sluice().args(["sweep", "merge"]).args(&parts[..3]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 of 4 shards given"));
}

#[test]
fn every_bad_sweep_gets_a_clear_error_before_it_runs() {
    let cases: [(&[&str], &str); 12] = [
        (&["--vary", "nowhere.workers=1,2"], "no node of the scenario begins"),
        (&["--vary", "server.workers=1,2", "--vary", "server.workers=3,4"], "server.workers is varied twice"),
        (&["--vary", "server.workers=1", "--jobs", "100000"], "--jobs must be from 1 to 1024"),
        (&["--vary", "server.workers=1", "--metric", "line.mean_wait_s", "--plot", "/no/such/folder/plot.svg"], "there is no folder /no/such/folder"),
        (&["--vary", "server.speed=1,2"], "consumer \"server\" has no number field there"),
        (&["--vary", "server.workers=5:1:1"], "the range 5 to 1 is empty"),
        (&["--vary", "server.workers=1,0"], "at server.workers = 0: "),
        (&["--vary", "server.workers=1:1000:1", "--vary", "arrivals.arrivals.rate_per_s=1:200:1"], "more than the 100000 points"),
        (&["--vary", "server.workers=1", "--shard", "4/4"], "--shard 4/4: expected I/N"),
        (&["--vary", "server.workers=1", "--jobs", "0"], "--jobs must be from 1 to 1024"),
        (&["--vary", "server.workers=1", "--warmup", "2000"], "--warmup must be"),
        (&["--vary", "server.workers=1", "--metric", "line.speed"], "--metric line.speed: no such metric"),
    ];
    for (args, says) in cases {
        let err = sweep(args).expect_err(says);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn a_sweep_draws_its_metric_with_intervals_and_theory_into_an_svg() {
    let dir = std::env::temp_dir().join(format!("sluice-cli-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("sweep.svg");
    let out_name = out.to_str().unwrap();
    let args = ["--vary", "arrivals.arrivals.rate_per_s=4:8:2", "--reps", "3", "--until", "100", "--metric", "line.mean_wait_s", "--plot", out_name];
    sweep(&args).unwrap();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("line.mean_wait_s") && svg.contains("theory"), "{}", &svg[..200.min(svg.len())]);
    let err = sweep(&["--vary", "server.workers=1,2", "--plot", out_name]).unwrap_err();
    assert!(err.contains("--plot needs the --metric"), "{err}");
    let err = sweep(&["--vary", "server.workers=1,2", "--metric", "line.mean_wait_s", "--plot", "sweep.gif"]).unwrap_err();
    assert!(err.contains("name the file .svg or .png"), "{err}");
}

/// The phase map of a retry storm: load × attempts as a grid of words,
/// and as a PNG of coloured cells (red where a storm outlived its trigger,
/// green where the clients never felt it).
#[test]
fn a_sweep_of_load_and_attempts_prints_and_draws_a_phase_map() {
    let dir = std::env::temp_dir().join(format!("sluice-cli-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png_path = dir.join("phase.png");
    let file = format!("{}/../scenarios/retry-storm.json", env!("CARGO_MANIFEST_DIR"));
    let args = ["sweep", &file, "--vary", "clients.arrivals.rate_per_s=2,8", "--vary", "clients.retries.max_attempts=1,3", "--reps", "3",
        "--until", "200", "--warmup", "30", "--metric", "clients.recovery", "--format", "map", "--plot", png_path.to_str().unwrap()];
    let out = sluice().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(3).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows[0], ["2", "stable", "stable"], "{text}");
    assert_eq!(rows[1].last(), Some(&"collapsed"), "{text}");
    let decoder = png::Decoder::new(std::fs::File::open(&png_path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut pixels).unwrap();
    let count = |colour: [u8; 3]| pixels.chunks(3).filter(|p| *p == colour).count();
    let rgb = |k: sluice_engine::sweep::Recovery| <[u8; 3]>::from(k.rgb());
    assert!(count(rgb(sluice_engine::sweep::Recovery::Stable)) > 10_000, "the stable cells");
    assert!(count(rgb(sluice_engine::sweep::Recovery::Collapsed)) > 10_000, "the collapsed cell");
    let err = sluice().args(["sweep", &file, "--vary", "clients.arrivals.rate_per_s=2,8", "--vary", "clients.retries.max_attempts=1,3", "--format", "map"]).output().unwrap();
    assert!(String::from_utf8_lossy(&err.stderr).contains("--format map draws one metric"));
    let err = sluice().args(["sweep", &file, "--vary", "clients.arrivals.rate_per_s=2,8", "--metric", "clients.recovery", "--format", "map"]).output().unwrap();
    assert!(String::from_utf8_lossy(&err.stderr).contains("this sweep varies 1"));
}

#[test]
fn a_sweep_draws_its_plot_into_a_png_with_its_own_font() {
    let dir = std::env::temp_dir().join(format!("sluice-cli-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("sweep.PNG");
    let args = ["--vary", "arrivals.arrivals.rate_per_s=4:8:2", "--reps", "3", "--until", "100", "--metric", "line.mean_wait_s", "--plot", out.to_str().unwrap()];
    sweep(&args).unwrap();
    let decoder = png::Decoder::new(std::fs::File::open(&out).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), (900, 560));
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    let width = frame.width as usize;
    let at = |x: usize, y: usize| {
        let i = (y * width + x) * 3;
        (pixels[i], pixels[i + 1], pixels[i + 2])
    };
    // The caption is text along the top: dark pixels there mean the
    // embedded font drew it (no system font is asked for).
    let caption_ink = (0..width).flat_map(|x| (8..36).map(move |y| (x, y))).filter(|&(x, y)| at(x, y).0 < 100).count();
    assert!(caption_ink > 300, "the caption drew {caption_ink} dark pixels");
    // The measured line in its blue, and the theory dashed in dark grey.
    let count = |colour: (u8, u8, u8)| (0..pixels.len() / 3).filter(|i| at(i % width, i / width) == colour).count();
    assert!(count((0x1c, 0x7e, 0xd6)) > 200, "the measured line is missing");
    assert!(count((0x49, 0x50, 0x57)) > 100, "the theory line is missing");
}

/// The shards of a small sweep, written to files, with `extra` arguments.
fn shards_of(file: &std::path::Path, tag: &str, extra: &[&str]) -> Vec<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("sluice-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    (0..2)
        .map(|i| {
            let shard = format!("{i}/2");
            let out = sluice()
                .arg("sweep")
                .arg(file)
                .args(["--vary", "arrivals.arrivals.rate_per_s=4:8:2", "--reps", "2", "--until", "50", "--format", "json", "--shard", &shard])
                .args(extra)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let path = dir.join(format!("part{i}.json"));
            std::fs::write(&path, out.stdout).unwrap();
            path
        })
        .collect()
}

#[test]
fn merge_joins_only_the_shards_of_one_sweep_and_all_of_its_points() {
    let file = std::path::PathBuf::from(queueing_theory());
    let parts = shards_of(&file, "merge-a", &[]);
    let merge = |paths: &[&std::path::PathBuf]| sluice().args(["sweep", "merge"]).args(paths).output().unwrap();
    assert!(merge(&[&parts[0], &parts[1]]).status.success());
    // The same name, another scenario: a different service time.
    let text = std::fs::read_to_string(&file).unwrap().replacen("\"mean\": 0.1", "\"mean\": 0.11", 1);
    assert_ne!(text, std::fs::read_to_string(&file).unwrap(), "the scenario has a mean of 0.1 to change");
    let other = shards_of(&scenario_file("other-mm1.json", &text), "merge-b", &[]);
    let out = merge(&[&parts[0], &other[1]]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("of another sweep than the others: its scenario or its grid differs"), "{err}");
    // Another grid of the same scenario.
    let wider = shards_of(&file, "merge-c", &["--vary", "server.workers=1,2"]);
    let out = merge(&[&parts[0], &wider[1]]);
    assert!(!out.status.success());
    // A shard with a point taken out.
    let mut cut: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&parts[1]).unwrap()).unwrap();
    cut["points"].as_array_mut().unwrap().pop();
    let cut_path = parts[1].with_file_name("cut.json");
    std::fs::write(&cut_path, cut.to_string()).unwrap();
    let out = merge(&[&parts[0], &cut_path]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("shard 1/2 has 0 points; its part of the 3-point grid is 1"), "{err}");
    // An endless file is read no further than a shard can be.
    let out = sluice().args(["sweep", "merge", "/dev/zero"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("is larger than"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn what_a_file_says_cannot_drive_the_terminal() {
    // A name and an id with an escape that would clear the screen.
    let text = std::fs::read_to_string(queueing_theory()).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["name"] = serde_json::json!("M/M/1 \u{1b}[2J\u{202e}");
    let file = scenario_file("escapes.json", &doc.to_string());
    let out = sluice().arg("sweep").arg(&file).args(["--vary", "arrivals.arrivals.rate_per_s=4,5", "--reps", "2", "--until", "20"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("M/M/1 \\u{1b}[2J\\u{202e}"), "{table}");
    assert!(!table.contains('\u{1b}') && !table.contains('\u{202e}'));
    let out = sluice().arg("sweep").arg(&file).args(["--vary", "no\u{1b}[2Jde.workers=1"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !err.contains('\u{1b}') && err.contains("\\u{1b}"), "{err}");
    // A plot of it is readable XML: the escape is drawn as text.
    let plot = file.with_file_name("escapes.svg");
    let out = sluice()
        .arg("sweep")
        .arg(&file)
        .args(["--vary", "arrivals.arrivals.rate_per_s=4,5", "--reps", "2", "--until", "20", "--metric", "line.mean_wait_s", "--plot"])
        .arg(&plot)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(!svg.chars().any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r'), "a control character in the SVG");
}

#[test]
fn a_file_that_begins_with_a_byte_order_mark_is_read() {
    let text = std::fs::read_to_string(queueing_theory()).unwrap();
    let file = scenario_file("bom.json", &format!("\u{feff}{text}"));
    let out = sluice().arg("check").arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_long_run_can_be_given_a_budget_of_events() {
    let out = sluice().args(["run", &every_block(), "--until", "1000", "--max-events", "5000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped after 5000 events (--max-events) at t = ") && err.contains("so --until 1000 needs about"), "{err}");
    // A budget the run does not reach changes nothing.
    let plain = sluice().args(["run", &every_block(), "--until", "5"]).output().unwrap();
    let budgeted = sluice().args(["run", &every_block(), "--until", "5", "--max-events", "100000000"]).output().unwrap();
    assert!(plain.status.success() && budgeted.status.success());
    assert_eq!(plain.stdout, budgeted.stdout);
}

/// `sluice tune` over two fields of `queueing-theory.json` (λ = 8, μ =
/// 10): the fewest servers whose drop probability is at most 4% at 1, 5
/// and 9 waiting places is 3, 2 and 1 (M/M/c/K: 5.7% at 2 servers and 1
/// place, 6.6% at 1 server and 5 places, 2.3% at 1 server and 9 places),
/// drawn as the frontier; and its mistakes said first.
#[test]
fn tune_draws_the_frontier_over_two_fields() {
    let tune = |args: &[&str]| sluice().arg("tune").arg(queueing_theory()).args(args).output().unwrap();
    let ask = ["--vary", "server.workers=1:4", "--vary", "line.capacity.messages=1:9:4", "--minimize", "server.workers", "--require", "line.drop_probability<=0.04", "--until", "600"];
    let out = tune(&[&ask[..], &["--format", "json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frontier: Vec<(f64, f64)> = json["frontier"].as_array().unwrap().iter().map(|p| (p["values"]["line.capacity.messages"].as_f64().unwrap(), p["values"]["server.workers"].as_f64().unwrap())).collect();
    assert_eq!(frontier, [(1.0, 3.0), (5.0, 2.0), (9.0, 1.0)], "{json}");
    assert_eq!((json["along"].as_str(), json["best"]["values"]["server.workers"].as_f64()), (Some("line.capacity.messages"), Some(1.0)));
    let table = String::from_utf8(tune(&ask).stdout).unwrap();
    assert!(table.contains("best: server.workers = 1 at line.capacity.messages = 9\n"), "{table}");
    assert!(table.contains("  server.workers = 2 at line.capacity.messages = 5\n"), "{table}");
    let cases: [(&[&str], &str); 3] = [
        (&["--vary", "server.workers=1:4", "--vary", "line.capacity.messages=1:9", "--minimize", "arrivals.arrivals.rate_per_s", "--require", "line.drop_probability<=0.04"], "the field to choose is the varied one, server.workers or line.capacity.messages"),
        (&["--vary", "server.workers=1:4", "--vary", "server.workers=2:3", "--minimize", "server.workers", "--require", "line.drop_probability<=0.04"], "--vary server.workers twice"),
        (&["--vary", "server.workers=1:4", "--vary", "line.capacity.messages=1:9", "--vary", "arrivals.arrivals.rate_per_s=1:2", "--minimize", "server.workers", "--require", "line.drop_probability<=0.04"], "give one --vary to search along, or two for a frontier"),
    ];
    for (args, said) in cases {
        let out = tune(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{args:?}: {err}");
    }
}

/// `sluice tune` on the M/M/1 of `queueing-theory.json` (λ = 8, μ = 10):
/// the fewest servers whose mean wait is at most 10 ms is 3 (Erlang C:
/// 19 ms at 2, 2 ms at 3); the same bytes on one thread or two; JSON with
/// the best setting, what binds and what it took; and a mistake said
/// before anything runs.
#[test]
fn tune_finds_the_fewest_servers_and_says_what_is_wrong_first() {
    let tune = |args: &[&str]| sluice().arg("tune").arg(queueing_theory()).args(args).output().unwrap();
    let ask = ["--vary", "server.workers=1:20", "--minimize", "server.workers", "--require", "line.mean_wait_s<=0.01", "--until", "300"];
    let one = tune(&[&ask[..], &["--jobs", "1"]].concat());
    let two = tune(&[&ask[..], &["--jobs", "2"]].concat());
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    assert_eq!(one.stdout, two.stdout);
    let table = String::from_utf8(one.stdout).unwrap();
    assert!(table.contains("best: server.workers = 3\n"), "{table}");
    assert!(table.contains("binding: line.mean_wait_s"), "{table}");
    let json = tune(&[&ask[..], &["--format", "json"]].concat());
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["feasible"], true);
    assert_eq!(json["best"]["values"]["server.workers"], 3.0);
    assert!(json["best"]["metrics"]["line.mean_wait_s"]["mean"].as_f64().unwrap() <= 0.01);
    assert_eq!(json["binding"], serde_json::json!(["line.mean_wait_s"]));
    let (points, reps) = (json["points"].as_u64().unwrap(), json["replications"].as_u64().unwrap());
    assert!(points <= 7 && reps >= 5 * points && json["events"].as_u64().unwrap() > 0, "{json}");
    let cases: [(&[&str], &str); 5] = [
        (&["--vary", "server.workers=1:20", "--minimize", "server.workers", "--require", "line.mean_wait_s<0.01"], "--require line.mean_wait_s<0.01: expected METRIC<=VALUE"),
        (&["--vary", "server.workers=1:20", "--minimize", "server.workers", "--require", "line.wait<=0.01"], "\"line.wait\" is not a metric"),
        (&["--vary", "server.workers=1.2:1.8", "--minimize", "server.workers", "--require", "line.mean_wait_s<=0.01"], "no whole number lies from 1.2 to 1.8"),
        (&["--vary", "server.workers=1:20", "--maximize", "line.capacity.messages", "--require", "line.mean_wait_s<=0.01"], "the field to choose is the varied one, server.workers"),
        (&["--vary", "server.workers=1:20", "--require", "line.mean_wait_s<=0.01"], "give one of --minimize NODE.FIELD and --maximize NODE.FIELD"),
    ];
    for (args, said) in cases {
        let out = tune(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{args:?}: {err}");
    }
}

/// `sluice share` prints a link a page opens: a scenario's, read back
/// whole, or a lesson's at a step; a lesson or step that is not one is
/// refused naming it.
#[test]
fn share_prints_links_to_a_scenario_and_to_a_lesson_at_a_step() {
    use sluice_engine::share::{decode, Link};
    let out = sluice().args(["share", &every_block(), "--page", "https://example.org/course/sluice/"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let link = String::from_utf8(out.stdout).unwrap();
    let fragment = link.trim().strip_prefix("https://example.org/course/sluice/").expect("the page's address first");
    let Some(Ok(Link::Scenario { code, at: None })) = Link::read(fragment) else { panic!("{link}") };
    let text = std::fs::read_to_string(every_block()).unwrap();
    assert_eq!(decode(&code).unwrap(), sluice_engine::Scenario::from_json(&text).unwrap());
    // At an instant of its run: the page opens there, paused.
    let out = sluice().args(["share", &every_block(), "--at", "41.25", "--page", "http://h/"]).output().unwrap();
    let link = String::from_utf8(out.stdout).unwrap();
    assert!(link.trim().ends_with("&t=41.25"), "{link}");
    let Some(Ok(Link::Scenario { at: Some(at), .. })) = Link::read(link.trim().trim_start_matches("http://h/")) else { panic!("{link}") };
    assert_eq!(at, sluice_engine::SimTime::from_secs_f64(41.25));

    let out = sluice().args(["share", "--lesson", "3", "--step", "2", "--page", "http://h/"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "http://h/#lesson=3&step=2\n");
    let out = sluice().args(["share", "--lesson", "3"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("/#lesson=3\n"));

    for (args, said) in [
        (vec!["share", "--lesson", "99"], "there is no lesson 99; lessons are numbered 1 to 19"),
        (vec!["share", "--lesson", "3", "--step", "9"], "lesson 3 has 3 step(s); there is no step 9"),
    ] {
        let out = sluice().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), format!("sluice: {said}\n"));
    }
    // --step needs a lesson; a file and a lesson together are one too many.
    for args in [vec!["share", "--step", "2", &every_block()], vec!["share", &every_block(), "--lesson", "3"], vec!["share"]] {
        let out = sluice().args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
    }
}

/// A link longer than a QR code holds is printed, with a word on standard
/// error; a short one is printed alone.
#[test]
fn share_says_when_a_link_is_too_long_for_a_qr_code() {
    let out = sluice().args(["share", &long_chain().to_string_lossy()]).output().unwrap();
    assert!(out.status.success());
    let link = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(link.trim().len() > 2953, "the chain's link is long: {}", link.len());
    assert_eq!(err, format!("sluice: the link is {} characters, more than a QR code holds (2953)\n", link.trim().len()));
    let out = sluice().args(["share", "--lesson", "1"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Lesson 1's file, as `edit` leaves it, written where no scenario is.
fn lesson_file(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> std::path::PathBuf {
    let text = std::fs::read_to_string(format!("{}/../lessons/01-slow-client.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut lesson: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut lesson);
    scenario_file(name, &serde_json::to_string_pretty(&lesson).unwrap())
}

#[test]
fn lesson_judges_a_lesson_file_from_disk_and_names_what_is_wrong_in_it() {
    // As shipped, it names a built-in scenario: every step as it says.
    let file = lesson_file("mine.lesson.json", |_| {});
    let out = sluice().args(["lesson", file.to_str().unwrap()]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.starts_with("Lesson 1: ") && said.contains("step 1, ") && !said.contains("NOT as"), "{said}");
    // A step that asks the learner for its change is followed with the
    // change "Do it for me" makes, and says so.
    assert!(said.contains("  asks:   ping_requests.arrivals.rate_per_s from 200 to 1000 (made here as \"Do it for me\" makes it: 400)\n"), "{said}");
    // An ask its own change does not make is refused, naming the step.
    let file = lesson_file("unmade.lesson.json", |l| l["steps"][5]["ask"]["at_least"] = serde_json::json!(500));
    let said = String::from_utf8_lossy(&sluice().args(["lesson", file.to_str().unwrap()]).output().unwrap().stderr).to_string();
    assert!(said.contains("step 6: ask of ping_requests.arrivals.rate_per_s: the step's changes (\"Do it for me\") do not make what it asks"), "{said}");

    // A bound the run cannot meet: judged, and said not to hold.
    let file = lesson_file("strict.lesson.json", |l| {
        let check = &mut l["steps"][0]["check"][0];
        check.as_object_mut().unwrap().retain(|k, _| k == "node" || k == "figure" || k == "variant");
        check["at_least"] = serde_json::json!(1e12);
    });
    let out = sluice().args(["lesson", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("step 1, ") && said.contains("NOT as the lesson says") && said.contains("FAIL"), "{said}");

    // A mistyped field and a missing scenario are named, with the file.
    let file = lesson_file("typo.lesson.json", |l| l["steps"][1]["within"] = serde_json::json!(10));
    let out = sluice().args(["lesson", file.to_str().unwrap()]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(said.contains("typo.lesson.json: steps[1].within: unknown field `within`"), "{said}");
    let file = lesson_file("lost.lesson.json", |l| l["scenario"] = serde_json::json!("nowhere.json"));
    let out = sluice().args(["lesson", file.to_str().unwrap()]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(said.contains("lost.lesson.json: no scenario file \"nowhere.json\""), "{said}");

    // A scenario beside the lesson file comes before the built-in one of
    // that name, and a broken one is named by its path.
    let scenario = std::fs::read_to_string(format!("{}/../scenarios/slow-client.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut broken: serde_json::Value = serde_json::from_str(&scenario).unwrap();
    broken["nodes"][0]["id"] = serde_json::json!("");
    let beside = scenario_file("slow-client.json", &broken.to_string());
    let file = beside.with_file_name("beside.lesson.json");
    std::fs::copy(lesson_file("copy.lesson.json", |_| {}), &file).unwrap();
    let said = String::from_utf8_lossy(&sluice().args(["lesson", file.to_str().unwrap()]).output().unwrap().stderr).to_string();
    assert!(said.contains("beside.lesson.json: slow-client.json: ") && said.contains("nodes[0]"), "{said}");
    // One there that is not text is said too, not passed over.
    std::fs::write(&beside, [0xff, 0xfe, 0x00]).unwrap();
    let said = String::from_utf8_lossy(&sluice().args(["lesson", file.to_str().unwrap()]).output().unwrap().stderr).to_string();
    assert!(said.contains("slow-client.json is not UTF-8 text"), "{said}");
    std::fs::remove_file(beside).unwrap();
}

/// `--at T` reports every node as a run stopped at T does, beside the
/// whole run's report; an instant outside the run is refused, naming it.
#[test]
fn a_run_reports_every_node_at_an_instant_as_a_run_stopped_there() {
    let json = |args: &[&str]| -> serde_json::Value {
        let out = sluice().args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let file = every_block();
    for t in ["0", "7.25", "20"] {
        let whole = json(&["run", &file, "--until", "20", "--at", t, "--format", "json"]);
        let stopped = json(&["run", &file, "--until", t, "--format", "json"]);
        assert_eq!(whole["at"]["t_s"].as_f64(), t.parse::<f64>().ok());
        assert_eq!(whole["at"]["nodes"], stopped["nodes"], "at {t} s");
        assert_eq!(whole["sim_time_s"].as_f64(), Some(20.0), "the whole run is reported too");
    }
    let plain = json(&["run", &file, "--until", "20", "--format", "json"]);
    assert!(plain.get("at").is_none(), "no `at` unless asked for");
    for t in ["21", "-1", "nan"] {
        let out = sluice().args(["run", &file, "--until", "20", &format!("--at={t}")]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "--at {t}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--at must be between 0 and --until (20 s)"), "{err}");
    }
}

/// `sluice explain`: the slow client of lesson 1 reading slowly, its
/// sender's last thinned frame traced back to the client's one busy
/// worker, in text and in JSON (every node by its id); a node that is not
/// there and an instant that is not one are refused, naming them.
#[test]
fn explain_traces_a_thinned_frame_back_to_the_slow_reader() {
    let path = format!("{}/../scenarios/slow-client.json", env!("CARGO_MANIFEST_DIR"));
    let mut scenario: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for node in scenario["nodes"].as_array_mut().unwrap() {
        if node["id"] == "client" {
            node["workers"] = 1.into();
            node["service_time"] = serde_json::json!({"dist": "fixed", "value": 0.01});
        }
    }
    let file = scenario_file("slow-reader.json", &scenario.to_string());
    let file = file.to_str().unwrap();
    let out = sluice().args(["explain", file, "--at", "9.9", "--node", "sender"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "sender:");
    assert!(lines[1].contains("thinned a droppable video message"), "{text}");
    assert!(lines[2].contains("to Overloaded") && lines[2].contains("a write would block, as socket refused"), "{text}");
    assert!(lines[3].contains("socket refused sender's messages") && lines[3].contains("its send buffer was full"), "{text}");
    assert!(lines[4].contains("client refused socket's messages") && lines[4].contains("all its workers were busy"), "{text}");
    assert!(lines[5].contains("entered client") && lines[5].contains("workers 1"), "{text}");

    let out = sluice().args(["explain", file, "--at", "9.9", "--format", "json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let links = json["nodes"]["sender"]["links"].as_array().unwrap();
    assert_eq!(links.len(), 5);
    assert!(links.iter().all(|l| l["at"].as_f64().is_some_and(|t| t <= 9.9)));
    let cited: Vec<&str> = links.iter().flat_map(|l| l["facts"].as_array().unwrap()).map(|f| f["node"].as_str().unwrap()).collect();
    assert!(cited.contains(&"client") && cited.contains(&"socket"), "{cited:?}");
    assert!(links[3]["facts"].as_array().unwrap().iter().any(|f| f["fact"] == "setting" && f["path"] == "/workers" && f["value"] == 1));

    let out = sluice().args(["explain", file, "--at", "9.9", "--node", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--node: no node \"nosuch\""));
    let out = sluice().args(["explain", file, "--at=-1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--at must be between 0 and 1e9 seconds, got -1"));
    let out = sluice().args(["explain", file, "--at", "0"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Nothing was dropped, refused or changed state by 0 s.\n");
}
