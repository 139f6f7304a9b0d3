//! Reading a scenario's JSON strictly, and naming every type error in it.
//!
//! Guarantees:
//! - `parse_strict` refuses a key that appears twice in one object (plain
//!   JSON keeps the last silently, so `"version": 2` then `"version": 1`
//!   would read as 1), naming its path and line.
//! - `typed_all` reads a JSON value into a typed field set and, when it
//!   does not fit, names every type error it can find, each at the full path
//!   of the field at fault, not only the first. serde stops at the first
//!   error and loses the path inside internally tagged enums (an arrival
//!   process, a distribution, a router policy); this module finds the leaf
//!   by trying the fields of such an object one at a time, then sets the
//!   bad value aside (a value of the expected type, or the field removed)
//!   and reads again, a bounded number of times.
//! - It never reports an error that the file does not have: after a value
//!   is set aside, errors inside what replaced it are not reported.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeOwned, DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::validate::FieldError;

/// The tags of the internally tagged enums of the format: an object that
/// holds one of these keys (as a string) is read by it, and keeps it when
/// its other fields are tried one at a time.
const TAG_KEYS: [&str; 3] = ["process", "dist", "policy"];

/// The most errors looked for in one value: a file with more has more to
/// mend than anyone reads at once.
const MAX_ERRORS: usize = 64;

/// The longest list whose element at fault is looked for; an error in a
/// longer one is named at the list.
const MAX_NARROWED_LIST: usize = 4096;

/// One step of a path: a field or a list position.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A path inside a value, written as the documentation writes it
/// (`arrivals.rate_per_s`, `classes[1].size`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Path(Vec<Step>);

impl Path {
    fn child(&self, step: Step) -> Path {
        let mut steps = self.0.clone();
        steps.push(step);
        Path(steps)
    }

    fn starts_with(&self, other: &Path) -> bool {
        self.0.starts_with(&other.0)
    }

    fn from_serde(path: &serde_path_to_error::Path) -> Path {
        use serde_path_to_error::Segment;
        Path(
            path.iter()
                .filter_map(|s| match s {
                    Segment::Seq { index } => Some(Step::Index(*index)),
                    Segment::Map { key } => Some(Step::Key(key.clone())),
                    Segment::Enum { variant } => Some(Step::Key(variant.clone())),
                    Segment::Unknown => None,
                })
                .collect(),
        )
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if i == 0 => write!(f, "{k}")?,
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// `inner` below `prefix`, as a path is written.
pub(crate) fn join(prefix: &str, inner: &str) -> String {
    match (prefix.is_empty(), inner.is_empty() || inner == ".") {
        (_, true) => prefix.to_string(),
        (true, false) => inner.to_string(),
        (false, false) if inner.starts_with('[') => format!("{prefix}{inner}"),
        (false, false) => format!("{prefix}.{inner}"),
    }
}

fn get<'v>(value: &'v Value, path: &Path) -> Option<&'v Value> {
    path.0.iter().try_fold(value, |v, step| match step {
        Step::Key(k) => v.get(k.as_str()),
        Step::Index(i) => v.get(*i),
    })
}

fn get_mut<'v>(value: &'v mut Value, path: &Path) -> Option<&'v mut Value> {
    path.0.iter().try_fold(value, |v, step| match step {
        Step::Key(k) => v.get_mut(k.as_str()),
        Step::Index(i) => v.get_mut(*i),
    })
}

/// The first error reading `value` as `T`: where, and what.
fn first_error<T: DeserializeOwned>(value: &Value) -> Option<(Path, String)> {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(_) => None,
        Err(e) => Some((Path::from_serde(e.path()), e.inner().to_string())),
    }
}

/// Where, at or below `at`, the error `message` comes from. serde reports
/// an error inside an internally tagged enum at the enum itself; trying its
/// fields one at a time (each with the tag) finds the one that gives the
/// same error. Lists are narrowed by halves.
fn find_leaf<T: DeserializeOwned>(doc: &Value, at: Path, message: &str) -> Path {
    if message.starts_with("missing field") {
        return at;
    }
    // An unknown field is its own leaf, whatever it holds.
    let unknown = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next());
    if unknown.is_some() && matches!(at.0.last(), Some(Step::Key(k)) if Some(k.as_str()) == unknown) {
        return at;
    }
    let same = |trial: &Value| {
        first_error::<T>(trial).is_some_and(|(p, m)| m == message && (p.starts_with(&at) || at.starts_with(&p)))
    };
    match get(doc, &at) {
        Some(Value::Object(fields)) => {
            let tags: Map<String, Value> = fields
                .iter()
                .filter(|(k, v)| TAG_KEYS.contains(&k.as_str()) && v.is_string())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let mut only_tags = doc.clone();
            if let Some(slot) = get_mut(&mut only_tags, &at) {
                *slot = Value::Object(tags.clone());
            }
            if tags.len() == 1 && same(&only_tags) {
                // The tag itself: an unknown variant.
                let tag = tags.keys().next().cloned().unwrap_or_default();
                return at.child(Step::Key(tag));
            }
            for (key, field) in fields {
                if tags.contains_key(key) {
                    continue;
                }
                let mut alone = tags.clone();
                alone.insert(key.clone(), field.clone());
                let mut trial = doc.clone();
                if let Some(slot) = get_mut(&mut trial, &at) {
                    *slot = Value::Object(alone);
                }
                if same(&trial) {
                    return find_leaf::<T>(doc, at.child(Step::Key(key.clone())), message);
                }
            }
            at
        }
        // A long list is named whole: narrowing it clones the value each time.
        Some(Value::Array(items)) if !items.is_empty() && items.len() <= MAX_NARROWED_LIST => {
            // The shortest prefix of the list that still gives the error
            // ends with the element at fault.
            let with_prefix = |len: usize| {
                let mut trial = doc.clone();
                if let Some(Value::Array(list)) = get_mut(&mut trial, &at) {
                    list.truncate(len);
                }
                same(&trial)
            };
            if !with_prefix(items.len()) {
                return at;
            }
            let (mut low, mut high) = (0, items.len());
            while low + 1 < high {
                let mid = low + (high - low) / 2;
                if with_prefix(mid) {
                    high = mid;
                } else {
                    low = mid;
                }
            }
            find_leaf::<T>(doc, at.child(Step::Index(high - 1)), message)
        }
        _ => at,
    }
}

/// A value of the type serde said it expected, to set aside a bad one.
fn stand_in(message: &str) -> Option<Value> {
    let expected = message.rsplit_once("expected ").map(|(_, e)| e.trim())?;
    if let Some(first) = expected.strip_prefix("one of `").and_then(|rest| rest.split('`').next()) {
        return Some(Value::String(first.to_string()));
    }
    if let Some(variant) = expected.strip_prefix('`').and_then(|rest| rest.split('`').next()) {
        return Some(Value::String(variant.to_string()));
    }
    Some(match expected {
        "f64" | "f32" => Value::from(1.0),
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" => Value::from(1),
        "a string" | "a borrowed string" => Value::from("x"),
        "a boolean" => Value::Bool(false),
        "a sequence" => Value::Array(Vec::new()),
        "a map" => Value::Object(Map::new()),
        _ => return None,
    })
}

/// Reads `value` as `T`. On failure, every type error found, each with its
/// path below `prefix`. `template` is a sound value of `T`: a field found
/// missing is borrowed from it to read on.
pub(crate) fn typed_all<T: DeserializeOwned>(value: Value, prefix: &str, template: Option<&Value>) -> Result<T, Vec<FieldError>> {
    let mut doc = value;
    let mut errors = Vec::new();
    // Where a value was set aside: errors inside are of the stand-in's
    // making, not the file's.
    let mut set_aside: Vec<Path> = Vec::new();
    let mut seen: Vec<(Path, String)> = Vec::new();
    for _ in 0..MAX_ERRORS * 2 {
        let (at, message) = match serde_path_to_error::deserialize::<_, T>(&doc) {
            Ok(typed) if errors.is_empty() => return Ok(typed),
            Ok(_) => break,
            Err(e) => (Path::from_serde(e.path()), e.inner().to_string()),
        };
        let leaf = find_leaf::<T>(&doc, at, &message);
        if seen.contains(&(leaf.clone(), message.clone())) || errors.len() >= MAX_ERRORS {
            break;
        }
        seen.push((leaf.clone(), message.clone()));
        if !set_aside.iter().any(|p| leaf.starts_with(p)) {
            errors.push(FieldError { path: join(prefix, &leaf.to_string()), message: message.clone() });
        }
        if !set_aside_at(&mut doc, &leaf, &message, template) {
            break;
        }
        // A new variant's fields are not the old one's: what follows inside
        // it is not reported.
        let whole = match leaf.0.last() {
            Some(Step::Key(k)) if TAG_KEYS.contains(&k.as_str()) => Path(leaf.0[..leaf.0.len() - 1].to_vec()),
            _ => leaf,
        };
        set_aside.push(whole);
    }
    if errors.is_empty() {
        // Nothing the file says could be named: say where it failed.
        let (at, message) = first_error::<T>(&doc).unwrap_or_default();
        errors.push(FieldError { path: join(prefix, &at.to_string()), message });
    }
    Err(errors)
}

/// Sets aside the value at `leaf` that gave `message`, so that reading can
/// go on to the next error. Returns false when it cannot.
fn set_aside_at(doc: &mut Value, leaf: &Path, message: &str, template: Option<&Value>) -> bool {
    if let Some(field) = message.strip_prefix("missing field `").and_then(|m| m.split('`').next()) {
        let path = leaf.child(Step::Key(field.to_string()));
        let Some(borrowed) = template.and_then(|t| lookup_like(t, &path)).cloned() else { return false };
        return match get_mut(doc, leaf) {
            Some(Value::Object(fields)) => {
                fields.insert(field.to_string(), borrowed);
                true
            }
            _ => false,
        };
    }
    if message.starts_with("unknown field") {
        let Some((Step::Key(key), parent)) = leaf.0.split_last() else { return false };
        return match get_mut(doc, &Path(parent.to_vec())) {
            Some(Value::Object(fields)) => fields.remove(key).is_some(),
            _ => false,
        };
    }
    // A value of the expected type, else the template's.
    let replacement = stand_in(message).or_else(|| template.and_then(|t| lookup_like(t, leaf)).cloned());
    match (get_mut(doc, leaf), replacement) {
        (Some(slot), Some(value)) if *slot != value => {
            *slot = value;
            true
        }
        _ => false,
    }
}

/// The value at `path` in `template`, reading a list position the template
/// lacks as its first element.
fn lookup_like<'t>(template: &'t Value, path: &Path) -> Option<&'t Value> {
    path.0.iter().try_fold(template, |v, step| match step {
        Step::Key(k) => v.get(k.as_str()),
        Step::Index(i) => v.get(*i).or_else(|| v.get(0)),
    })
}

/// A duplicate key found while parsing: its path.
type Duplicate = RefCell<Option<String>>;

/// Builds a `Value` like `serde_json::from_str`, refusing a key that
/// appears twice in one object.
struct Strict<'a> {
    path: String,
    duplicate: &'a Duplicate,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let path = format!("{}[{}]", self.path, items.len());
            match seq.next_element_seed(Strict { path, duplicate: self.duplicate })? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = join(&self.path, &key);
            if fields.contains_key(&key) {
                *self.duplicate.borrow_mut() = Some(path);
                return Err(A::Error::custom("duplicate key"));
            }
            let value = map.next_value_seed(Strict { path, duplicate: self.duplicate })?;
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }
}

/// Parses JSON text, refusing duplicate keys. The error is a field error:
/// the path of a duplicate key, or none for text that is not JSON.
pub(crate) fn parse_strict(text: &str) -> Result<Value, FieldError> {
    let duplicate = Duplicate::default();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let parsed = Strict { path: String::new(), duplicate: &duplicate }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    parsed.map_err(|e| match duplicate.into_inner() {
        Some(path) => FieldError {
            path,
            message: format!(
                "this key appears twice in one object (the second at line {}, column {}); each field may be given once",
                e.line(),
                e.column()
            ),
        },
        None => FieldError { path: String::new(), message: format!("not valid JSON: {e}") },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        a: f64,
        #[serde(default)]
        b: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
    #[allow(dead_code)]
    enum Tagged {
        Fixed { value: f64 },
        Pair { low: f64, high: f64, inner: Box<Tagged> },
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        #[serde(default)]
        name: String,
        inner: Inner,
        tagged: Tagged,
        #[serde(default)]
        list: Vec<f64>,
        #[serde(default)]
        flag: bool,
    }

    fn errors(v: Value) -> Vec<String> {
        let template = serde_json::json!({"inner": {"a": 1.0}, "tagged": {"dist": "fixed", "value": 1.0}});
        typed_all::<Outer>(v, "n", Some(&template)).unwrap_err().iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn every_error_is_named_at_its_leaf() {
        let v = serde_json::json!({
            "name": 5,
            "inner": {"a": "x", "b": -1},
            "tagged": {"dist": "pair", "low": 1, "high": "y", "inner": {"dist": "fixed", "value": "z"}},
            "list": [1, 2, "w", 4],
            "flag": "yes",
            "extra": 1
        });
        assert_eq!(
            errors(v),
            vec![
                "n.extra: unknown field `extra`, expected one of `name`, `inner`, `tagged`, `list`, `flag`",
                "n.flag: invalid type: string \"yes\", expected a boolean",
                "n.inner.a: invalid type: string \"x\", expected f64",
                "n.inner.b: invalid value: integer `-1`, expected u32",
                "n.list[2]: invalid type: string \"w\", expected f64",
                "n.name: invalid type: integer `5`, expected a string",
                "n.tagged.high: invalid type: string \"y\", expected f64",
                "n.tagged.inner.value: invalid type: string \"z\", expected f64",
            ]
        );
    }

    #[test]
    fn a_missing_field_is_named_and_the_rest_still_read() {
        let v = serde_json::json!({"tagged": {"dist": "fixed", "value": 1, "spare": {"value": 2}}, "flag": 3});
        assert_eq!(
            errors(v),
            vec![
                "n.flag: invalid type: integer `3`, expected a boolean",
                "n.tagged.spare: unknown field `spare`, expected `value`",
                "n: missing field `inner`",
            ]
        );
    }

    #[test]
    fn an_unknown_variant_hides_nothing_else_and_invents_nothing() {
        let v = serde_json::json!({"inner": {"a": 1}, "tagged": {"dist": "pear", "low": 1}, "flag": 0});
        assert_eq!(
            errors(v),
            vec![
                "n.flag: invalid type: integer `0`, expected a boolean",
                "n.tagged.dist: unknown variant `pear`, expected `fixed` or `pair`",
            ]
        );
    }

    #[test]
    fn duplicate_keys_are_refused_with_their_path() {
        let e = parse_strict(r#"{"a": {"b": [1, {"c": 1, "c": 2}]}}"#).unwrap_err();
        assert_eq!(e.path, "a.b[1].c");
        assert!(e.message.contains("appears twice"), "{}", e.message);
        assert!(parse_strict(r#"{"a": 1, "b": {"a": 2}}"#).is_ok(), "the same key in two objects is fine");
        assert!(parse_strict("{nope").unwrap_err().message.starts_with("not valid JSON"));
        assert!(parse_strict(r#"{"a": 1} x"#).unwrap_err().message.starts_with("not valid JSON"));
    }

    #[test]
    fn strict_parsing_reads_what_serde_json_reads() {
        let text = r#"{"n": [1, -2, 3.5, 1e300, 18446744073709551615, "s", true, null, {}]}"#;
        assert_eq!(parse_strict(text).unwrap(), serde_json::from_str::<Value>(text).unwrap());
    }
}
