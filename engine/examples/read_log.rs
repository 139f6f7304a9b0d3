//! How fast a log is read: a million-line nginx access log (the format of
//! `docs/traffic.md`, 10,000 clients, lines written as requests end, so
//! some start out of order), and the same requests as a CSV, each read
//! into a replay. Then what the page does with it once read: its lists
//! made a producer, added to the playground's scenario in one edit (the
//! run rebuilt with it), and undone. Prints seconds and lines a second;
//! `make bench` runs it.
//!
//!   cargo run --release -p sluice-engine --example read_log [-- LINES]

use std::fmt::Write;
use std::time::Instant;

use sluice_engine::config::Imported;
use sluice_engine::replay::{read_log, KeyField, LogFormat};
use sluice_engine::scenario::LogLists;
use sluice_engine::{Command, NodeSpec, Playground, Scenario};

fn main() {
    let lines: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(1_000_000);
    // A small generator of its own, so the figures are the same each time.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ended, mut csv) = (Vec::with_capacity(lines), String::new());
    let mut start_ms = 1_700_000_000_000u64;
    for _ in 0..lines {
        start_ms += next() % 3;
        let took_ms = next() % 400;
        let client = next() % 10_000;
        let end = start_ms + took_ms;
        ended.push((end, format!("{}.{:03} {}.{:03} 10.{}.{}.{} api.example \"GET /items/{} HTTP/1.1\" 200\n", end / 1000, end % 1000, took_ms / 1000, took_ms % 1000, client >> 16, (client >> 8) & 255, client & 255, client % 97)));
        let _ = writeln!(csv, "{}.{:03},10.{}.{}.{},{}.{:03}", start_ms / 1000, start_ms % 1000, client >> 16, (client >> 8) & 255, client & 255, took_ms / 1000, took_ms % 1000);
    }
    // nginx writes each line as its request ends.
    ended.sort_by_key(|(end, _)| *end);
    let nginx: String = ended.into_iter().map(|(_, line)| line).collect();
    println!("{:<8} {:>10} {:>10} {:>9} {:>14} {:>10}", "format", "lines", "MB", "seconds", "lines/s", "reordered");
    let mut read = None;
    for (format, text) in [(LogFormat::Nginx, &nginx), (LogFormat::Csv, &csv)] {
        let t = Instant::now();
        let (replay, _) = read_log(text.as_bytes(), Some(format), &KeyField::Default).unwrap();
        let replay = read.insert(replay);
        let seconds = t.elapsed().as_secs_f64();
        assert_eq!(replay.len(), lines);
        println!(
            "{:<8} {:>10} {:>10.1} {:>9.3} {:>14} {:>10}",
            format.name(),
            lines,
            text.len() as f64 / 1e6,
            seconds,
            sluice_engine::thousands(lines as f64 / seconds),
            replay.reordered.map_or(0, |r| r.lines)
        );
    }
    // What the page does with the lines its worker read.
    let replay = read.expect("a log was read");
    let timed = |what: &str, t: Instant| println!("{what:<44} {:>9.3} s", t.elapsed().as_secs_f64());
    println!();
    let t = Instant::now();
    let block = LogLists::of(&replay).producer().unwrap();
    timed("lists made a producer", t);
    let scenario = Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).unwrap();
    let mut play = Playground::new(scenario, Vec::new()).unwrap();
    let node = NodeSpec { id: "log".into(), position: None, block };
    let t = Instant::now();
    play.apply(Command::ImportConfig { imported: Imported { scenario: Scenario::alone(node), notes: Vec::new() } }).unwrap();
    timed("added in one edit, the run rebuilt", t);
    let t = Instant::now();
    play.apply(Command::Undo).unwrap();
    timed("undone", t);
}
