//! Reading JSON into typed values strictly, and naming every type error in
//! it.
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
//! - Every typed value is read from JSON text by `serde_json`'s one text
//!   reader (`from_value` prints a value first), never from a `Value`, and
//!   written by its one pretty writer (`to_value` reads the text back):
//!   each type's reading and writing is compiled once, which keeps the
//!   page's WebAssembly small. An error's path comes from its line in the
//!   text read, which is printed one field or list element a line.

use std::cell::RefCell;
use std::fmt;
use std::fmt::Write as _;

use serde::de::{DeserializeOwned, DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::plumbing::validate::FieldError;

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

/// Prints `value` as JSON text with one field, list element or closing
/// bracket a line, in the order a reader visits them; with `paths`, the
/// path of each line (the value a line opens, holds or closes).
fn print_lines(value: &Value, at: &mut Vec<Step>, text: &mut String, mut paths: Option<&mut Vec<Path>>) {
    let line = |text: &mut String, at: &[Step], paths: &mut Option<&mut Vec<Path>>| {
        text.push('\n');
        if let Some(paths) = paths.as_deref_mut() {
            paths.push(Path(at.to_vec()));
        }
    };
    let (open, close, children): (char, char, Vec<(Step, &Value)>) = match value {
        Value::Object(fields) if !fields.is_empty() => ('{', '}', fields.iter().map(|(k, v)| (Step::Key(k.clone()), v)).collect()),
        Value::Array(items) if !items.is_empty() => ('[', ']', items.iter().enumerate().map(|(i, v)| (Step::Index(i), v)).collect()),
        scalar => {
            let _ = write!(text, "{scalar}");
            return;
        }
    };
    text.push(open);
    line(text, at, &mut paths);
    let count = children.len();
    for (i, (step, child)) in children.into_iter().enumerate() {
        if let Step::Key(key) = &step {
            let _ = write!(text, "{}:", Value::String(key.clone()));
        }
        at.push(step);
        print_lines(child, at, text, paths.as_deref_mut());
        if i + 1 < count {
            text.push(',');
        }
        line(text, at, &mut paths);
        at.pop();
    }
    text.push(close);
}

/// Reads `value` as `T`; on failure, where (below `value`) and what.
fn read_at<T: DeserializeOwned>(value: &Value) -> Result<T, (Path, String)> {
    let mut text = String::new();
    print_lines(value, &mut Vec::new(), &mut text, None);
    serde_json::from_str(&text).map_err(|e| located(value, &e))
}

/// The path and the bare message of an error reading `value`'s printed
/// text.
fn located(value: &Value, error: &serde_json::Error) -> (Path, String) {
    let mut message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    if message.ends_with(&suffix) {
        message.truncate(message.len() - suffix.len());
    }
    // paths[i] is the path of line i + 1; the last line (the value's own
    // end) has no line break and is the value itself.
    let mut paths = Vec::new();
    print_lines(value, &mut Vec::new(), &mut String::new(), Some(&mut paths));
    let path = error.line().checked_sub(1).and_then(|i| paths.get(i)).cloned().unwrap_or_default();
    (path, message)
}

/// Reads `value` as `T` (through its printed text, see the guarantees):
/// what every typed reading of a `Value` in the engine and the page uses.
/// The error is serde's message, as reading the value directly gives it.
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    read_at(value).map_err(|(_, message)| message)
}

/// `value` as a JSON value, through its pretty text: every typed value is
/// written one way (serde_json's pretty writer, which the files use), so
/// each type's writing is compiled once. Numbers keep their exact value
/// (floats print at full precision and read back to the same bits).
pub fn to_value<T: serde::Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_string_pretty(value).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or(Value::Null)
}

/// The first error reading a value: where, and what.
type FirstError<'a> = &'a dyn Fn(&Value) -> Option<(Path, String)>;

/// Where, at or below `at`, the error `message` comes from. serde reports
/// an error inside an internally tagged enum at the enum itself; trying its
/// fields one at a time (each with the tag) finds the one that gives the
/// same error. Lists are narrowed by halves.
fn find_leaf(doc: &Value, at: Path, message: &str, first_error: FirstError) -> Path {
    if let Some(field) = message.strip_prefix("missing field `").and_then(|m| m.split('`').next()) {
        return lacking(doc, at, field, message, first_error);
    }
    // An unknown field is its own leaf, whatever it holds.
    let unknown = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next());
    if unknown.is_some() && matches!(at.0.last(), Some(Step::Key(k)) if Some(k.as_str()) == unknown) {
        return at;
    }
    let same = |trial: &Value| {
        first_error(trial).is_some_and(|(p, m)| m == message && (p.starts_with(&at) || at.starts_with(&p)))
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
                    return find_leaf(doc, at.child(Step::Key(key.clone())), message, first_error);
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
            find_leaf(doc, at.child(Step::Index(high - 1)), message, first_error)
        }
        _ => at,
    }
}

/// The most objects tried as the one lacking a field.
const MAX_LACKING_TRIALS: usize = 256;

/// Which object at or below `at` lacks `field`. An error that serde finds
/// inside an internally tagged enum comes out only once the enum's text
/// has been read whole, at the place where the objects that hold it end,
/// where those objects' own missing fields show. Putting the field (as
/// null) into a candidate tells them apart: the object that lacks it reads
/// on differently; one that does not know it refuses it as unknown, or
/// ignores it. Candidates are tried in the order their ends are read, so
/// the first found is the error serde met first.
fn lacking(doc: &Value, at: Path, field: &str, message: &str, first_error: FirstError) -> Path {
    fn ends_in_reading_order(value: &Value, at: &Path, field: &str, out: &mut Vec<Path>) {
        match value {
            Value::Object(fields) => {
                for (key, inner) in fields {
                    ends_in_reading_order(inner, &at.child(Step::Key(key.clone())), field, out);
                }
                if !fields.contains_key(field) {
                    out.push(at.clone());
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    ends_in_reading_order(item, &at.child(Step::Index(i)), field, out);
                }
            }
            _ => {}
        }
    }
    let mut candidates = Vec::new();
    if let Some(value) = get(doc, &at) {
        ends_in_reading_order(value, &at, field, &mut candidates);
    }
    match candidates.len() {
        0 => return at,
        1 => return candidates.remove(0),
        n if n > MAX_LACKING_TRIALS => return at,
        _ => {}
    }
    let unknown = format!("unknown field `{field}`");
    for candidate in candidates {
        let mut trial = doc.clone();
        if let Some(Value::Object(fields)) = get_mut(&mut trial, &candidate) {
            fields.insert(field.to_string(), Value::Null);
        }
        match first_error(&trial) {
            Some((_, m)) if m == message || m.starts_with(&unknown) => continue,
            _ => return candidate,
        }
    }
    at
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
    match read_at::<T>(&value) {
        Ok(typed) => Ok(typed),
        Err(first) => Err(every_error(value, first, prefix, template, &|doc| read_at::<T>(doc).err())),
    }
}

/// Every type error of `doc`, whose first is `first`, each with its path
/// below `prefix` (see `typed_all`). Not generic: one copy serves every
/// type.
fn every_error(mut doc: Value, first: (Path, String), prefix: &str, template: Option<&Value>, first_error: FirstError) -> Vec<FieldError> {
    let mut errors = Vec::new();
    // Where a value was set aside: errors inside are of the stand-in's
    // making, not the file's.
    let mut set_aside: Vec<Path> = Vec::new();
    let mut seen: Vec<(Path, String)> = Vec::new();
    let mut next = Some(first);
    for _ in 0..MAX_ERRORS * 2 {
        let Some((at, message)) = next.take() else { break };
        let leaf = find_leaf(&doc, at, &message, first_error);
        if seen.contains(&(leaf.clone(), message.clone())) || errors.len() >= MAX_ERRORS {
            break;
        }
        seen.push((leaf.clone(), message.clone()));
        if !set_aside.iter().any(|p| leaf.starts_with(p)) {
            errors.push(FieldError { path: join(prefix, &leaf.to_string()), message: in_words(&message) });
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
        next = first_error(&doc);
    }
    if errors.is_empty() {
        // Nothing the file says could be named: say where it failed.
        let (at, message) = first_error(&doc).unwrap_or_default();
        errors.push(FieldError { path: join(prefix, &at.to_string()), message: in_words(&message) });
    }
    errors
}

/// serde's message with the Rust type it expected in a reader's words:
/// "expected u8" is "expected a whole number from 0 to 255".
fn in_words(message: &str) -> String {
    let Some((head, expected)) = message.rsplit_once("expected ") else { return message.to_string() };
    let words = match expected.trim() {
        "f64" | "f32" => "a number",
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65535",
        "u32" => "a whole number from 0 to 4294967295",
        "u64" | "usize" => "a whole number, 0 or more",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        _ => return message.to_string(),
    };
    format!("{head}expected {words}")
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
                "n.inner.a: invalid type: string \"x\", expected a number",
                "n.inner.b: invalid value: integer `-1`, expected a whole number from 0 to 4294967295",
                "n.list[2]: invalid type: string \"w\", expected a number",
                "n.name: invalid type: integer `5`, expected a string",
                "n.tagged.high: invalid type: string \"y\", expected a number",
                "n.tagged.inner.value: invalid type: string \"z\", expected a number",
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
    fn a_field_missing_in_a_last_tagged_field_is_told_from_one_its_holder_lacks() {
        // The tagged field comes last, so its error and its holder's own
        // missing field come out at the same place in the text.
        let v = serde_json::json!({"inner": {"a": 1}, "tagged": {"dist": "pair", "low": 1, "inner": {"dist": "fixed", "value": 1}}});
        assert_eq!(errors(v), vec!["n.tagged: missing field `high`"]);
        let v = serde_json::json!({"tagged": {"dist": "fixed", "value": 1}});
        assert_eq!(errors(v), vec!["n: missing field `inner`"]);
        let v = serde_json::json!({"tagged": {"dist": "pair", "low": 1, "high": 2, "inner": {"dist": "fixed"}}});
        // (No stand-in for `value` at that place: reading stops there.)
        assert_eq!(errors(v), vec!["n.tagged.inner: missing field `value`"]);
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
