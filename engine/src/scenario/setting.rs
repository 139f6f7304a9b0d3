//! Setting one field of a block, by its `FieldPath`: a number in place (a
//! slider's tick, a sweep's point), or any value through the block's JSON
//! (a choice, a list, a lesson's change), after which the block is read
//! again so that no change leaves it half-written.
//!
//! Guarantees:
//! - `set_number` and `with_value` give the same block for the same number
//!   below 9×10^15 (checked over every number field of every shipped
//!   scenario).
//! - A refused value leaves the block as it was; the error names the
//!   field in the documentation's form.

use serde_json::{Map, Value};

use super::{BlockSpec, FieldError};
use crate::plumbing::field_path::{FieldPath, Step};
use crate::plumbing::number_field::{NumberField, NumberError};

/// Why a field was not set.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SetError {
    /// The block has no number field at this path (or the field is in a
    /// part the block lacks, such as a lifecycle it was not given).
    #[error("{path}: no number field there")]
    NotANumber { path: FieldPath },
    #[error("{path}: {why}")]
    Number { path: FieldPath, why: NumberError },
    /// The path does not fit the block's JSON (a list position past its
    /// end, a field inside a plain value).
    #[error("{path}: {why}")]
    Misplaced { path: FieldPath, why: PlaceError },
    /// The block did not read back with the value (a wrong type, an
    /// unknown field, a choice that does not exist).
    #[error("{path}: {why}")]
    Unread { path: FieldPath, why: String },
}

impl BlockSpec {
    /// The number field at `path`, to read or set in place.
    pub fn number_mut(&mut self, path: &FieldPath) -> Option<NumberField<'_>> {
        let steps = path.steps();
        match self {
            BlockSpec::Producer(p) => p.number_mut(&steps),
            BlockSpec::Queue(q) => q.number_mut(&steps),
            BlockSpec::Consumer(c) => c.number_mut(&steps),
            BlockSpec::Router(r) => r.number_mut(&steps),
            BlockSpec::Window(w) => w.number_mut(&steps),
            BlockSpec::Credit(c) => c.number_mut(&steps),
            BlockSpec::RateLimiter(r) => r.number_mut(&steps),
            BlockSpec::ConcurrencyLimiter(c) => c.number_mut(&steps),
            BlockSpec::Link(l) => l.number_mut(&steps),
            BlockSpec::Dispatcher(d) => d.number_mut(&steps),
            BlockSpec::ResourcePool(r) => r.number_mut(&steps),
            BlockSpec::ProductLimiter(p) => p.number_mut(&steps),
        }
    }

    /// The number at `path` now and whether the field counts (takes whole
    /// numbers); none when there is no number field there or it is absent.
    pub fn number(&self, path: &FieldPath) -> Option<(f64, bool)> {
        let mut copy = self.clone();
        let slot = copy.number_mut(path)?;
        Some((slot.get()?, slot.is_whole()))
    }

    /// Sets the number field at `path` to `value`, or leaves the block as
    /// it was and says why not. Whether the block still holds together is
    /// for `validate` to say.
    pub fn set_number(&mut self, path: &FieldPath, value: f64) -> Result<(), SetError> {
        let slot = self.number_mut(path).ok_or_else(|| SetError::NotANumber { path: path.clone() })?;
        slot.set(value).map_err(|why| SetError::Number { path: path.clone(), why })
    }

    /// The block with `value` written at `path` in its JSON and read
    /// again: any field, of any type.
    pub fn with_value(&self, path: &FieldPath, value: Value) -> Result<BlockSpec, SetError> {
        let mut doc = crate::plumbing::json_read::to_value(self);
        set_at(&mut doc, path, Some(value)).map_err(|why| SetError::Misplaced { path: path.clone(), why })?;
        crate::plumbing::json_read::from_value(&doc).map_err(|why| SetError::Unread { path: path.clone(), why })
    }

    /// The block's own checks, as the scenario's `validate` makes them for
    /// node `index`.
    pub(crate) fn check(&self, index: usize) -> Vec<FieldError> {
        let mut errors = Vec::new();
        self.validate(&format!("nodes[{index}]"), &mut errors);
        errors
    }
}

/// Why a value has no place at a path of a JSON document.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    #[error("empty path")]
    Empty,
    #[error("the list has no item {0}")]
    NoItem(usize),
    #[error("a list item cannot be removed here")]
    ItemRemoved,
    #[error("{0} is not a list index")]
    NotAnIndex(String),
    /// A field inside something that holds none: a missing value, or a
    /// plain one.
    #[error("cannot set {name} inside a {}", if *missing { "missing value" } else { "plain value" })]
    Inside { name: String, missing: bool },
}

/// Writes `new` at `path` in `doc`, creating objects on the way; `None`
/// removes the field (and an object left empty by that).
pub fn set_at(doc: &mut Value, path: &FieldPath, new: Option<Value>) -> Result<(), PlaceError> {
    fn walk(node: &mut Value, steps: &[Step], new: Option<Value>) -> Result<(), PlaceError> {
        let (head, rest) = steps.split_first().ok_or(PlaceError::Empty)?;
        match (node, *head) {
            (Value::Array(items), Step::Index(i)) => {
                let item = items.get_mut(i).ok_or(PlaceError::NoItem(i))?;
                if rest.is_empty() {
                    *item = new.ok_or(PlaceError::ItemRemoved)?;
                    Ok(())
                } else {
                    walk(item, rest, new)
                }
            }
            (Value::Array(_), Step::Key(key)) => Err(PlaceError::NotAnIndex(key.to_string())),
            (Value::Object(map), step) => {
                let key = match step {
                    Step::Key(k) => k.to_string(),
                    Step::Index(i) => i.to_string(),
                };
                if rest.is_empty() {
                    match new {
                        Some(v) => map.insert(key, v),
                        None => map.remove(&key),
                    };
                    return Ok(());
                }
                if new.is_none() && !map.contains_key(&key) {
                    return Ok(());
                }
                let child = map.entry(key.clone()).or_insert_with(|| Value::Object(Map::new()));
                walk(child, rest, new)?;
                if child.as_object().is_some_and(Map::is_empty) {
                    map.remove(&key);
                }
                Ok(())
            }
            (node, step) => {
                let name = match step {
                    Step::Key(k) => k.to_string(),
                    Step::Index(i) => i.to_string(),
                };
                Err(PlaceError::Inside { name, missing: node.is_null() })
            }
        }
    }
    walk(doc, &path.steps(), new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{default_block, Kind, Scenario};
    use crate::scenario::fields::{fields, Control};
    use serde_json::json;

    /// A number as a file writes it: a whole one as an integer.
    fn as_json(v: f64) -> Value {
        if v.fract() == 0.0 && v.abs() < 9.0e15 {
            Value::from(v as i64)
        } else {
            Value::from(v)
        }
    }

    fn path(text: &str) -> FieldPath {
        FieldPath::parse(text).unwrap()
    }

    #[test]
    fn set_at_creates_removes_and_indexes() {
        let mut v = json!({"kind": "queue", "rules": [{"limit": 1}]});
        set_at(&mut v, &path("capacity.messages"), Some(json!(5))).unwrap();
        assert_eq!(v["capacity"], json!({"messages": 5}));
        set_at(&mut v, &path("capacity.messages"), None).unwrap();
        assert!(v.get("capacity").is_none(), "an emptied object goes too");
        set_at(&mut v, &path("rules[0].limit"), Some(json!(9))).unwrap();
        assert_eq!(v["rules"][0]["limit"], json!(9));
        assert!(set_at(&mut v, &path("rules[3].limit"), Some(json!(9))).is_err());
        assert!(set_at(&mut v, &path("kind.x"), Some(json!(9))).is_err());
        set_at(&mut v, &path("ttl_s"), None).unwrap();
    }

    #[test]
    fn with_value_reads_again_and_names_the_field() {
        let queue = default_block(Kind::Queue);
        let changed = queue.with_value(&path("capacity.messages"), json!(7)).unwrap();
        assert_eq!(serde_json::to_value(&changed).unwrap()["capacity"]["messages"], json!(7));
        let err = queue.with_value(&path("capacity.messages"), json!("seven")).unwrap_err();
        assert!(err.to_string().starts_with("capacity.messages: "), "{err}");
        let err = default_block(Kind::Consumer).set_number(&path("lifecycle.initializing_s"), 1.0).unwrap_err();
        assert_eq!(err.to_string(), "lifecycle.initializing_s: no number field there");
    }

    /// Every number in the JSON of every block of every shipped scenario,
    /// with where it is.
    fn numbers_of(value: &Value, at: &mut Vec<String>, out: &mut Vec<(FieldPath, f64)>) {
        match value {
            Value::Number(n) => out.push((FieldPath::parse(&at.join(".")).unwrap(), n.as_f64().unwrap())),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    at.push(i.to_string());
                    numbers_of(item, at, out);
                    at.pop();
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    at.push(key.clone());
                    numbers_of(item, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }

    /// The lessons' scenarios, and the one with every block (a closed
    /// loop among them).
    fn shipped_scenarios() -> Vec<(&'static str, &'static str)> {
        let mut all = crate::lesson::SCENARIOS.to_vec();
        all.push(("every-block.json", include_str!("../../../scenarios/every-block.json")));
        all
    }

    /// Every kind's new block, every block of the shipped scenarios, and
    /// what the inspector's menus turn a block into: each product, each
    /// router policy, each arrival process and each service distribution.
    fn shipped_blocks() -> Vec<BlockSpec> {
        use crate::scenario::choices::{product_examples, router_examples};
        use crate::scenario::fields::{arrival_examples, distribution_examples};
        let mut blocks: Vec<BlockSpec> = Kind::ALL.iter().map(|&k| default_block(k)).collect();
        for (_, text) in shipped_scenarios() {
            blocks.extend(Scenario::from_json(text).unwrap().nodes.into_iter().map(|n| n.block));
        }
        blocks.extend(product_examples().into_iter().map(|(p, _)| BlockSpec::ProductLimiter(p)));
        blocks.extend(router_examples(&["a".into(), "b".into()]).into_iter().map(|(r, _)| BlockSpec::Router(r)));
        for (arrivals, _) in arrival_examples(20.0) {
            let BlockSpec::Producer(mut p) = default_block(Kind::Producer) else { unreachable!() };
            p.arrivals = arrivals;
            blocks.push(BlockSpec::Producer(p));
        }
        for (service_time, _) in distribution_examples(0.05) {
            let BlockSpec::Consumer(mut c) = default_block(Kind::Consumer) else { unreachable!() };
            c.service_time = service_time;
            blocks.push(BlockSpec::Consumer(c));
        }
        // And each of those with every other choice of each of its menus,
        // where that shows or holds other fields (a Go limiter's Wait,
        // whose deadline Allow does not show).
        let shape = |block: &BlockSpec| {
            let json = crate::plumbing::json_read::to_value(block);
            let mut found = Vec::new();
            numbers_of(&json, &mut Vec::new(), &mut found);
            let shown = fields(block.kind()).iter().filter(|f| f.shown_in(&json)).map(|f| f.path().to_string());
            (block.kind(), found.into_iter().map(|(path, _)| path.to_string()).chain(shown).collect::<std::collections::BTreeSet<String>>())
        };
        let mut shapes: std::collections::HashSet<_> = blocks.iter().map(shape).collect();
        let mut chosen = Vec::new();
        for block in &blocks {
            for field in fields(block.kind()) {
                if let Control::Choice(menu) = field.control {
                    for (name, _) in menu.entries() {
                        if let Ok(other) = block.with_value(&field.path(), Value::from(name)) {
                            if shapes.insert(shape(&other)) {
                                chosen.push(other);
                            }
                        }
                    }
                }
            }
        }
        blocks.extend(chosen);
        blocks
    }

    /// Every number field the inspector's table shows for each of those
    /// blocks has its typed slot, an empty optional one too; set there
    /// and written in the file, it gives the same block.
    #[test]
    fn every_number_the_table_shows_has_its_typed_slot() {
        let mut checked = 0;
        for block in shipped_blocks() {
            let json = crate::plumbing::json_read::to_value(&block);
            for field in fields(block.kind()).iter().filter(|f| f.shown_in(&json)) {
                let value = match field.control {
                    Control::Number { max, .. } | Control::Whole { max, .. } => max,
                    Control::Optional { .. } => 1.0,
                    _ => continue,
                };
                let path = field.path();
                let mut typed = block.clone();
                if typed.number_mut(&path).is_none() {
                    // Only a field of a part the block leaves out (a
                    // producer's `retries`, which setting it turns on).
                    let pointer = path.pointer();
                    let part = pointer.rsplit_once('/').map_or("", |(part, _)| part);
                    assert!(!part.is_empty() && json.pointer(part).is_none(), "{} {path}: shown as a number, with no typed slot", block.kind());
                    continue;
                }
                typed.set_number(&path, value).unwrap_or_else(|e| panic!("{} {path} = {value}: {e}", block.kind()));
                assert_eq!(Ok(typed), block.with_value(&path, as_json(value)), "{} {path} = {value}", block.kind());
                checked += 1;
            }
        }
        assert!(checked > 300, "{checked} fields checked");
    }

    /// The typed set and the JSON path agree on every number field of every
    /// block the project ships, for values a field takes and values it
    /// does not; and every number in those files has its typed field.
    #[test]
    fn the_typed_set_gives_what_the_file_would_give() {
        let mut fields = 0;
        for block in shipped_blocks() {
            let mut found = Vec::new();
            numbers_of(&crate::plumbing::json_read::to_value(&block), &mut Vec::new(), &mut found);
            for (path, now) in found {
                assert_eq!(block.number(&path).map(|(v, _)| v), Some(now), "{} {path}: no typed field", block.kind());
                for value in [now, 0.0, 1.0, 2.5, 3.0, -1.0, 1e6, 300.0, 5e9] {
                    let mut typed = block.clone();
                    let set = typed.set_number(&path, value);
                    let json = block.with_value(&path, as_json(value));
                    match (&set, &json) {
                        (Ok(()), Ok(read)) => assert_eq!(&typed, read, "{} {path} = {value}", block.kind()),
                        (Err(_), Err(_)) => assert_eq!(typed, block, "a refused value leaves the block"),
                        _ => panic!("{} {path} = {value}: typed {set:?}, JSON {:?}", block.kind(), json.map(|_| ())),
                    }
                }
                fields += 1;
            }
        }
        assert!(fields > 150, "{fields} number fields checked");
    }

    /// A number changed in one block of a sound draft: the check the
    /// editor makes of it says what validating the whole draft says, error
    /// for error, and what the draft lacks does not move.
    #[test]
    fn checking_one_number_is_checking_the_whole_draft() {
        let mut cases = 0;
        for (name, text) in shipped_scenarios() {
            let scenario = Scenario::from_json(text).unwrap();
            let missing = scenario.validate_draft().unwrap();
            for i in 0..scenario.nodes.len() {
                let mut found = Vec::new();
                numbers_of(&crate::plumbing::json_read::to_value(&scenario.nodes[i].block), &mut Vec::new(), &mut found);
                for (path, now) in found {
                    for value in [now * 2.0, 0.0, -1.0, 0.5, 1e6, 1e9, 4e9] {
                        let mut s = scenario.clone();
                        if s.nodes[i].block.set_number(&path, value).is_err() {
                            continue;
                        }
                        let whole = s.validate_draft();
                        match (s.check_number_change(i), whole) {
                            (Ok(()), Ok(lacks)) => assert_eq!(lacks, missing, "{name} {path} = {value}"),
                            (Err(one), Err(all)) => assert_eq!(one, all, "{name} {path} = {value}"),
                            (one, all) => panic!("{name} nodes[{i}].{path} = {value}: one block {one:?}, whole draft {all:?}"),
                        }
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 1000, "{cases} cases");
    }

    /// A closed loop whose service already takes no time, its think time
    /// then slid to zero: a loop that could never take time, refused by the
    /// one block's check as by the whole draft's.
    #[test]
    fn a_think_time_slid_to_zero_under_a_server_that_takes_none_is_refused() {
        let scenario = Scenario::from_value(serde_json::json!({"version": 1, "nodes": [
            {"id": "clients", "kind": "producer", "arrivals": {"process": "closed_loop", "clients": 2, "think": {"dist": "fixed", "value": 0.5}}},
            {"id": "server", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0}}],
            "edges": [{"from": "clients", "to": "server"}]}))
        .unwrap();
        let mut s = scenario.clone();
        s.nodes[0].block.set_number(&path("arrivals.think.value"), 0.0).unwrap();
        let whole = s.validate_draft().unwrap_err();
        assert_eq!(s.check_number_change(0).unwrap_err(), whole);
        // Taking a little time again, it is taken.
        s.nodes[0].block.set_number(&path("arrivals.think.value"), 0.001).unwrap();
        assert!(s.check_number_change(0).is_ok() && s.validate_draft().is_ok());
    }
}
