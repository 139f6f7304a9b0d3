//! Writing one field of a block's JSON, as the page's inspector and the
//! lessons' "try this" changes do: the block is then parsed and validated
//! again, so a change can never leave a block half-written.

use serde_json::{Map, Value};

use crate::scenario::BlockSpec;

/// Writes `new` at `pointer` in `doc`, creating objects on the way; `None`
/// removes the field (and an object left empty by that). The empty pointer
/// replaces the whole document.
pub fn set_at(doc: &mut Value, pointer: &str, new: Option<Value>) -> Result<(), String> {
    if pointer.is_empty() {
        *doc = new.unwrap_or(Value::Null);
        return Ok(());
    }
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    fn walk(node: &mut Value, parts: &[&str], new: Option<Value>) -> Result<(), String> {
        let (head, rest) = parts.split_first().ok_or("empty path")?;
        match node {
            Value::Array(items) => {
                let i: usize = head.parse().map_err(|_| format!("{head} is not a list index"))?;
                let item = items.get_mut(i).ok_or_else(|| format!("the list has no item {i}"))?;
                if rest.is_empty() {
                    *item = new.ok_or("a list item cannot be removed here")?;
                    Ok(())
                } else {
                    walk(item, rest, new)
                }
            }
            Value::Object(map) => {
                if rest.is_empty() {
                    match new {
                        Some(v) => map.insert(head.to_string(), v),
                        None => map.remove(*head),
                    };
                    return Ok(());
                }
                if new.is_none() && !map.contains_key(*head) {
                    return Ok(());
                }
                let child = map.entry(head.to_string()).or_insert_with(|| Value::Object(Map::new()));
                walk(child, rest, new)?;
                if child.as_object().is_some_and(Map::is_empty) {
                    map.remove(*head);
                }
                Ok(())
            }
            _ => Err(format!("cannot set {head} inside a {}", if node.is_null() { "missing value" } else { "plain value" })),
        }
    }
    walk(doc, &parts, new)
}

/// `block` with `value` written at `pointer`, parsed again; an error names
/// the field and what is wrong with the value.
pub fn with_field(block: &BlockSpec, pointer: &str, value: Value) -> Result<BlockSpec, String> {
    let mut doc = crate::plumbing::json_read::to_value(block);
    set_at(&mut doc, pointer, Some(value)).map_err(|why| format!("{pointer}: {why}"))?;
    crate::plumbing::json_read::from_value(&doc).map_err(|e| format!("{pointer}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_at_creates_removes_and_indexes() {
        let mut v = json!({"kind": "queue", "rules": [{"limit": 1}]});
        set_at(&mut v, "/capacity/messages", Some(json!(5))).unwrap();
        assert_eq!(v["capacity"], json!({"messages": 5}));
        set_at(&mut v, "/capacity/messages", None).unwrap();
        assert!(v.get("capacity").is_none(), "an emptied object goes too");
        set_at(&mut v, "/rules/0/limit", Some(json!(9))).unwrap();
        assert_eq!(v["rules"][0]["limit"], json!(9));
        assert!(set_at(&mut v, "/rules/3/limit", Some(json!(9))).is_err());
        set_at(&mut v, "/ttl_s", None).unwrap();
        set_at(&mut v, "", Some(json!({"kind": "router"}))).unwrap();
        assert_eq!(v, json!({"kind": "router"}));
    }

    #[test]
    fn with_field_parses_again_and_names_the_field() {
        let queue = crate::scenario::default_block(crate::scenario::Kind::Queue);
        let changed = with_field(&queue, "/capacity/messages", json!(7)).unwrap();
        assert_eq!(serde_json::to_value(&changed).unwrap()["capacity"]["messages"], json!(7));
        let err = with_field(&queue, "/capacity/messages", json!("seven")).unwrap_err();
        assert!(err.starts_with("/capacity/messages"), "{err}");
    }
}
