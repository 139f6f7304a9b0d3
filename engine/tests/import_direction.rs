//! Imports run one way. Each crate's modules are stacked in layers, lowest
//! first; a module may name (`crate::module`, `use crate::{module, ...}`)
//! only modules of a lower layer, never one beside it or above it. So no
//! import circle can form, and a reader can start at the bottom.
//!
//! A module is a file or a folder at the top of a crate's `src/`; what a
//! folder's files name among themselves (`super::`) is the folder's own
//! business. Code under `#[cfg(test)] mod tests` is left out: a test may
//! build on anything. Inside a crate a module is named by its path, not by
//! the crate root's re-exports (`crate::Simulation`), which would hide the
//! direction.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use support::source::{before_tests, rust_files};

/// The engine, lowest layer first.
const ENGINE: &[&[&str]] = &[
    &["plumbing"],
    &["time", "flows"],
    &["rng", "message", "state"],
    &["distribution", "scheduler", "priorities", "buffer", "state_times", "answers"],
    &["arrivals", "metrics", "replay"],
    &["tally", "why"],
    &["context"],
    &["blocks"],
    &["scenario"],
    &["supervision", "report", "share", "editor", "config"],
    &["simulation"],
    &["timeline"],
    &["measure", "bench_model", "shadow", "explain"],
    &["theory"],
    &["sweep"],
    &["tune", "lesson"],
    &["playground"],
];

/// The page, lowest layer first: the glue to the browser, what the page
/// shows as plain data, the components that draw it, the app that holds
/// them; the workers and the entry points on top.
const PAGE: &[&[&str]] = &[&["browser"], &["view"], &["components"], &["app", "bench"], &["main"]];

/// The code of a file as the check reads it: without its test module and
/// without comment lines.
fn code(text: &str) -> String {
    before_tests(text).lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The first path segment of everything a piece of code names through
/// `crate::`, braces opened.
fn named(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // a longer name ending in `crate`, as `my_crate::`
        }
        if let Some(inner) = rest.strip_prefix('{') {
            // Up to the matching brace; the first segment of each item.
            let mut depth = 1;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in inner.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => items.push(std::mem::take(&mut item)),
                    _ => {}
                }
                if depth >= 1 && c != ',' {
                    item.push(c);
                }
            }
            items.push(item);
            for item in items {
                let first: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !first.is_empty() {
                    names.push(first);
                }
            }
        } else {
            let first: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            names.push(first);
        }
    }
    names
}

/// Every import against the layers, as lines naming the file and the pair.
fn wrong_way(src: &Path, layers: &[&[&str]]) -> Vec<String> {
    let layer_of: BTreeMap<&str, usize> =
        layers.iter().enumerate().flat_map(|(k, mods)| mods.iter().map(move |m| (*m, k))).collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        if rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue; // a module's tests, which may build on anything
        }
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if top == "lib" || top == "bin" {
            continue; // the crate root re-exports; a binary is a crate of its own
        }
        let Some(&mine) = layer_of.get(top.as_str()) else {
            wrong.push(format!("{}: module `{top}` is in no layer of this check", rel.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for name in named(&code(&text)) {
            if name == top {
                continue;
            }
            match layer_of.get(name.as_str()) {
                None => wrong.push(format!("{}: names `crate::{name}`, which is no module of a layer (name the module, not a re-export)", rel.display())),
                Some(&theirs) if theirs >= mine => wrong.push(format!(
                    "{}: `{top}` (layer {mine}) imports `{name}` (layer {theirs}); imports run to lower layers only",
                    rel.display()
                )),
                Some(_) => {}
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    wrong
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_engines_imports_run_down_its_layers() {
    let wrong = wrong_way(&manifest().join("src"), ENGINE);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_pages_imports_run_down_its_layers() {
    let wrong = wrong_way(&manifest().join("../src"), PAGE);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_check_finds_an_import_up_and_one_beside() {
    let dir = std::env::temp_dir().join(format!("sluice-import-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("blocks")).unwrap();
    std::fs::write(dir.join("time.rs"), "use crate::{rng::SimRng, blocks::{Queue, Link}};\n").unwrap();
    std::fs::write(dir.join("blocks/queue.rs"), "use super::x;\nfn f() { crate::blocks::y(); }\n").unwrap();
    std::fs::write(dir.join("rng.rs"), "// crate::blocks in a comment\nuse crate::message::M;\nuse crate::Simulation;\n").unwrap();
    std::fs::write(dir.join("message.rs"), "use crate::time::T;\n#[cfg(test)]\nmod tests { use crate::blocks::B; }\n").unwrap();
    let wrong = wrong_way(&dir, &[&["time"], &["rng", "message"], &["blocks"]]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        wrong,
        [
            "rng.rs: `rng` (layer 1) imports `message` (layer 1); imports run to lower layers only",
            "rng.rs: names `crate::Simulation`, which is no module of a layer (name the module, not a re-export)",
            "time.rs: `time` (layer 0) imports `blocks` (layer 2); imports run to lower layers only",
            "time.rs: `time` (layer 0) imports `rng` (layer 1); imports run to lower layers only",
        ]
    );
}
