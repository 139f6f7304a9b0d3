//! Reading the project's own source, for the checks of its house rules
//! (`import_direction.rs`, `file_sizes.rs`).

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, in no particular order.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's text before its test module (`#[cfg(test)] mod tests { … }`).
pub fn before_tests(text: &str) -> &str {
    &text[..text.find("#[cfg(test)]\nmod tests {").unwrap_or(text.len())]
}
