//! Sizes and durations written with a unit suffix, as arataga's
//! configuration writes them (`bandlim.in 850kib`, `timeout.authentification
//! 1200ms`, `timeout.connect_target 7s`).
//!
//! Guarantees:
//! - `parse` reads a number with an optional suffix into the base unit the
//!   format uses: seconds for a duration (`ns`, `us`, `ms`, `s`, `min`,
//!   `h`), bytes for a size (`b`, `kb`, `kib`, `mb`, `mib`, `gb`, `gib`: kb
//!   is 1000 bytes, kib 1024). Case and spaces between number and suffix do
//!   not matter. A size suffix where a duration is expected (or the other
//!   way round) is refused, naming what was expected.
//! - `read_suffixes` turns every such string in one node of a scenario
//!   into its number, where the field is a duration (a name ending in `_s`,
//!   `times_s`'s instants, the parameters of `service_time` and `think`) or
//!   a size (a name ending in `bytes`, `bandwidth_bytes_per_s`, the
//!   parameters of a class's `size`, a byte-counting rate rule's `limit`
//!   and `burst`). Any other string is left for the typed reading to
//!   refuse. What it cannot read is returned with the field's path; the
//!   file is then refused with that message.

use serde_json::Value;

/// What a field measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Seconds.
    Duration,
    /// Bytes.
    Size,
}

const DURATIONS: [(&str, f64); 7] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0), ("min", 60.0), ("h", 3600.0)];

const SIZES: [(&str, f64); 7] = [
    ("b", 1.0),
    ("kb", 1e3),
    ("kib", 1024.0),
    ("mb", 1e6),
    ("mib", 1_048_576.0),
    ("gb", 1e9),
    ("gib", 1_073_741_824.0),
];

fn examples(q: Quantity) -> &'static str {
    match q {
        Quantity::Duration => "a duration such as 250ms, 7s or 2min",
        Quantity::Size => "a size such as 16kib, 1500b or 2mib",
    }
}

/// The other quantity's name: what a suffix of the wrong kind measures.
fn other(q: Quantity) -> &'static str {
    match q {
        Quantity::Duration => "size",
        Quantity::Size => "duration",
    }
}

/// Why a text is not a duration or a size (`wanted`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("\"{text}\" is not {}", examples(*wanted))]
    NotA { text: String, wanted: Quantity },
    /// A size's suffix where a duration is wanted, or the other way round.
    #[error("\"{text}\" is a {}; expected {}", other(*wanted), examples(*wanted))]
    OtherQuantity { text: String, wanted: Quantity },
    #[error("\"{0}\" is too large")]
    TooLarge(String),
}

/// Reads `text`, a number with an optional unit suffix, into seconds or
/// bytes.
pub fn parse(text: &str, q: Quantity) -> Result<f64, UnitError> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))).unwrap_or(t.len());
    // An exponent's `e` is part of the number only if digits follow it.
    let (mut number, mut suffix) = t.split_at(split);
    while number.ends_with(['e', 'E']) {
        let cut = number.len() - 1;
        (number, suffix) = t.split_at(cut);
    }
    let suffix = suffix.trim().to_lowercase();
    let value: f64 = number.parse().map_err(|_| UnitError::NotA { text: t.to_string(), wanted: q })?;
    let scale = |table: &[(&str, f64)]| table.iter().find(|(s, _)| *s == suffix).map(|(_, k)| *k);
    let factor = if suffix.is_empty() {
        1.0
    } else {
        match (q, scale(&DURATIONS), scale(&SIZES)) {
            (Quantity::Duration, Some(k), _) | (Quantity::Size, _, Some(k)) => k,
            (Quantity::Duration, None, Some(_)) | (Quantity::Size, Some(_), None) => return Err(UnitError::OtherQuantity { text: t.to_string(), wanted: q }),
            _ => return Err(UnitError::NotA { text: t.to_string(), wanted: q }),
        }
    };
    let v = value * factor;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(UnitError::TooLarge(t.to_string()))
    }
}

/// `v` as JSON: a size is a count of bytes, so one a hair off a whole
/// number (`0.3kb` is 300.00000000000006 in floating point) is that whole
/// number, for integer fields; a duration is exactly what was written
/// (`1ns` is 1e-9 s, not 0; `5000000004ns` is not 5 s).
fn number(v: f64, q: Quantity) -> Value {
    let whole = v.round();
    let near = match q {
        Quantity::Size => (v - whole).abs() <= 1e-9 * v.abs() || (v - whole).abs() < 1e-6,
        Quantity::Duration => v == whole,
    };
    if near && (0.0..9.0e15).contains(&whole) {
        serde_json::json!(whole as u64)
    } else {
        serde_json::json!(v)
    }
}

/// A node's field that measures something, by its name.
fn quantity_of(key: &str) -> Option<Quantity> {
    if key.ends_with("bytes") || key == "bandwidth_bytes_per_s" {
        Some(Quantity::Size)
    } else if key.ends_with("_per_s") {
        None
    } else if key.ends_with("_s") {
        Some(Quantity::Duration)
    } else {
        None
    }
}

/// Replaces each suffixed string of one node's JSON (at `path`) by its
/// number; returns the paths and reasons of those it cannot read.
pub fn read_suffixes(node: &mut Value, path: &str) -> Vec<(String, UnitError)> {
    let mut errors = Vec::new();
    let counts_bytes = node.get("unit").and_then(Value::as_str) == Some("bytes");
    walk(node, path, None, counts_bytes, &mut errors);
    errors
}

/// `within`: the quantity every number below measures (inside a
/// distribution, or a list of instants).
fn walk(value: &mut Value, path: &str, within: Option<Quantity>, counts_bytes: bool, errors: &mut Vec<(String, UnitError)>) {
    match value {
        Value::String(text) => {
            if let Some(q) = within {
                match parse(text, q) {
                    Ok(v) => *value = number(v, q),
                    Err(why) => errors.push((path.to_string(), why)),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                walk(item, &format!("{path}[{i}]"), within, counts_bytes, errors);
            }
        }
        Value::Object(map) => {
            let is_distribution = map.contains_key("dist");
            for (key, item) in map.iter_mut() {
                let q = match key.as_str() {
                    // A distribution's parameters measure what it draws;
                    // its shape (cv, p) measures nothing.
                    "value" | "mean" | "min" | "max" if is_distribution => within,
                    "a" | "b" if is_distribution => within,
                    "service_time" | "think" => Some(Quantity::Duration),
                    "size" => Some(Quantity::Size),
                    "limit" | "burst" if counts_bytes => Some(Quantity::Size),
                    k => quantity_of(k),
                };
                walk(item, &format!("{path}.{key}"), q, counts_bytes, errors);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn suffixes_read_as_the_proxy_writes_them() {
        assert_eq!(parse("16kib", Quantity::Size), Ok(16384.0));
        assert_eq!(parse("850KiB", Quantity::Size), Ok(870400.0));
        assert_eq!(parse("1.5 mb", Quantity::Size), Ok(1.5e6));
        assert_eq!(parse("1200ms", Quantity::Duration), Ok(1.2));
        assert_eq!(parse("7s", Quantity::Duration), Ok(7.0));
        assert_eq!(parse("2min", Quantity::Duration), Ok(120.0));
        assert_eq!(parse("250", Quantity::Duration), Ok(250.0));
        assert_eq!(parse("1e3b", Quantity::Size), Ok(1000.0));
        assert_eq!(parse("2e", Quantity::Size).unwrap_err().to_string(), "\"2e\" is not a size such as 16kib, 1500b or 2mib");
    }

    #[test]
    fn a_duration_is_what_was_written_and_a_size_a_whole_count() {
        let mut node = json!({"kind": "consumer", "service_time": {"dist": "fixed", "value": "1ns"}, "timeout_s": "5000000004ns"});
        assert!(read_suffixes(&mut node, "nodes[0]").is_empty());
        assert_eq!(node["service_time"]["value"], json!(1e-9));
        assert_eq!(node["timeout_s"], json!(5.000000004));
        let mut node = json!({"kind": "link", "buffer": {"bytes": "0.3kb"}, "latency_s": "3s"});
        assert!(read_suffixes(&mut node, "nodes[0]").is_empty());
        assert_eq!(node["buffer"]["bytes"], json!(300));
        assert_eq!(node["latency_s"], json!(3));
    }

    #[test]
    fn the_wrong_kind_of_unit_is_named() {
        assert_eq!(parse("16kib", Quantity::Duration).unwrap_err().to_string(), "\"16kib\" is a size; expected a duration such as 250ms, 7s or 2min");
        assert_eq!(parse("7s", Quantity::Size).unwrap_err().to_string(), "\"7s\" is a duration; expected a size such as 16kib, 1500b or 2mib");
        assert!(parse("7 parsecs", Quantity::Duration).unwrap_err().to_string().contains("is not a duration"));
        assert!(parse("1e400kib", Quantity::Size).is_err());
    }

    #[test]
    fn a_node_reads_its_sizes_and_durations() {
        let mut node = json!({"kind": "rate_limiter", "unit": "bytes",
            "rules": [{"scheme": "natural_period", "limit": "850kib", "span_s": "1s"}]});
        assert!(read_suffixes(&mut node, "nodes[0]").is_empty());
        assert_eq!(node["rules"][0]["limit"], json!(870400));
        assert_eq!(node["rules"][0]["span_s"], json!(1));
        let mut node = json!({"kind": "consumer", "service_time": {"dist": "log_normal", "mean": "20ms", "cv": 2},
            "timeout_s": "1200ms"});
        assert!(read_suffixes(&mut node, "nodes[1]").is_empty());
        assert_eq!(node["service_time"]["mean"], json!(0.02));
        assert_eq!(node["service_time"]["cv"], json!(2));
        assert_eq!(node["timeout_s"], json!(1.2));
        let mut node = json!({"kind": "producer", "classes": [{"name": "kib", "size": {"dist": "fixed", "value": "16kib"}}],
            "arrivals": {"process": "trace", "times_s": ["100ms", 0.5]}});
        assert!(read_suffixes(&mut node, "nodes[2]").is_empty());
        assert_eq!(node["classes"][0]["size"]["value"], json!(16384));
        assert_eq!(node["classes"][0]["name"], json!("kib"));
        assert_eq!(node["arrivals"]["times_s"][0], json!(0.1));
        let mut node = json!({"kind": "queue", "ttl_s": "16kib"});
        assert_eq!(
            read_suffixes(&mut node, "nodes[3]").into_iter().map(|(path, why)| (path, why.to_string())).collect::<Vec<_>>(),
            vec![("nodes[3].ttl_s".to_string(), "\"16kib\" is a size; expected a duration such as 250ms, 7s or 2min".to_string())]
        );
        // A rule counting messages takes no size.
        let mut node = json!({"kind": "rate_limiter", "rules": [{"scheme": "natural_period", "limit": "850kib"}]});
        assert!(read_suffixes(&mut node, "nodes[4]").is_empty());
        assert_eq!(node["rules"][0]["limit"], json!("850kib"));
    }
}
