//! No source file grows past what a reader takes in at one sitting: at
//! most 700 lines outside tests in every crate, and the page's app
//! (its hooks, one dispatch and the layout) at most 400. A file past its
//! bound is split where it has two subjects, not squeezed.
//!
//! Test code does not count: a file's `#[cfg(test)] mod tests` and files
//! named `tests.rs`.

mod support;

use std::path::{Path, PathBuf};

use support::source::{before_tests, rust_files};

const MOST_LINES: usize = 700;
/// The page's app, by path from the workspace's root, and its bound.
const APP: (&str, usize) = ("src/app/mod.rs", 400);

/// Lines of a file before its test module.
fn code_lines(text: &str) -> usize {
    before_tests(text).lines().count()
}

/// Every file past its bound, as lines naming it, its length and bound.
fn too_long(root: &Path, crates: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    for dir in crates {
        rust_files(&root.join(dir), &mut files);
    }
    files.retain(|f| f.file_name().is_some_and(|n| n != "tests.rs"));
    files.sort();
    files
        .iter()
        .filter_map(|file| {
            let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let bound = if rel == APP.0 { APP.1 } else { MOST_LINES };
            let lines = code_lines(&std::fs::read_to_string(file).unwrap());
            (lines > bound).then(|| format!("{rel}: {lines} lines outside its tests, more than {bound}"))
        })
        .collect()
}

#[test]
fn no_source_file_is_past_its_bound() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    assert!(root.join(APP.0).is_file(), "the app is at {}", APP.0);
    let long = too_long(&root, &["engine/src", "src", "cli/src"]);
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn the_bound_counts_code_and_not_tests() {
    let dir = std::env::temp_dir().join(format!("sluice-file-sizes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/app")).unwrap();
    let code = |n: usize| "let x = 1;\n".repeat(n);
    std::fs::write(dir.join("src/long.rs"), code(701)).unwrap();
    std::fs::write(dir.join("src/fits.rs"), code(700) + "#[cfg(test)]\nmod tests {\n" + &code(900) + "}\n").unwrap();
    std::fs::write(dir.join("src/tests.rs"), code(2000)).unwrap();
    std::fs::write(dir.join("src/app/mod.rs"), code(401)).unwrap();
    let long = too_long(&dir, &["src"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(long, ["src/app/mod.rs: 401 lines outside its tests, more than 400", "src/long.rs: 701 lines outside its tests, more than 700"]);
}
