//! A place inside a block: one type for every way a field is named. The
//! inspector's table, a lesson's change, a sweep's `NODE.FIELD` and the
//! page's element ids hold a `FieldPath` and render it; none converts one
//! string form into another. (Validation's messages write a path in the
//! same form, `nodes[2].soft_limit.messages`.)
//!
//! Guarantees:
//! - One written form, the documentation's: keys joined by dots, list
//!   positions in brackets (`soft_limit.messages`, `rules[0].limit`).
//!   `parse` also reads a JSON pointer (`/rules/0/limit`) and a position
//!   written as a key (`rules.0.limit`); both come out in the one form.
//! - A key is a name of the format or a node's id: letters, digits, `_`
//!   and `-`. A key of digits alone reads as a list position, and a map
//!   keyed by it (a dispatcher's windows per class) takes it back as its
//!   key. A path begins with a key. Anything else is refused with the part
//!   at fault, so no text that is not a path becomes one, and every path
//!   reads back from its own rendering.
//! - Renderings: `Display` (the one form), `pointer` (for JSON) and
//!   `slug` (an element id: `rules-0-limit`). A sweep names a node's field
//!   as `NODE.FIELD` (`sweep::NodeField`).

use std::borrow::Cow;
use std::fmt;


/// A field's place inside a block, as the documentation writes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(Cow<'static, str>);

/// One step of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Why a text is not a field path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldPathError {
    #[error("no field named")]
    Empty,
    #[error("\"{0}\" is not a field's name (letters, digits, _ and -)")]
    BadKey(String),
    #[error("a path begins with a field's name, not a list position")]
    StartsWithPosition,
    #[error("\"{0}\" is not a list position")]
    BadIndex(String),
}

fn is_key(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl FieldPath {
    /// A path written in the one form, for the engine's own tables (held
    /// to that form by a test).
    pub const fn of(text: &'static str) -> FieldPath {
        FieldPath(Cow::Borrowed(text))
    }

    /// Reads a path: the one form, a JSON pointer, or positions written as
    /// keys (`rules.0.limit`).
    pub fn parse(text: &str) -> Result<FieldPath, FieldPathError> {
        let text = text.trim();
        let mut steps: Vec<Step> = Vec::new();
        if let Some(pointer) = text.strip_prefix('/') {
            for part in pointer.split('/') {
                steps.push(step_of(part)?);
            }
        } else {
            for part in text.split('.') {
                // `rules[0][1]`: a key, then positions.
                let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
                steps.push(step_of(key)?);
                while !rest.is_empty() {
                    let (index, after) = rest.split_once(']').ok_or_else(|| FieldPathError::BadIndex(rest.to_string()))?;
                    steps.push(Step::Index(index.parse().map_err(|_| FieldPathError::BadIndex(index.to_string()))?));
                    rest = match after {
                        "" => "",
                        more => more.strip_prefix('[').ok_or_else(|| FieldPathError::BadKey(more.to_string()))?,
                    };
                }
            }
        }
        if text.is_empty() {
            return Err(FieldPathError::Empty);
        }
        if matches!(steps.first(), Some(Step::Index(_))) {
            return Err(FieldPathError::StartsWithPosition);
        }
        Ok(FieldPath::from_steps(&steps))
    }

    fn from_steps(steps: &[Step]) -> FieldPath {
        let mut text = String::new();
        for step in steps {
            match step {
                Step::Key(k) if text.is_empty() => text.push_str(k),
                Step::Key(k) => {
                    text.push('.');
                    text.push_str(k);
                }
                Step::Index(i) => text.push_str(&format!("[{i}]")),
            }
        }
        FieldPath(Cow::Owned(text))
    }

    /// The steps, from the block down.
    pub fn steps(&self) -> Vec<Step<'_>> {
        let mut steps = Vec::new();
        for part in self.0.split('.') {
            let mut pieces = part.split('[');
            if let Some(key) = pieces.next().filter(|k| !k.is_empty()) {
                steps.push(Step::Key(key));
            }
            for index in pieces {
                if let Ok(i) = index.trim_end_matches(']').parse() {
                    steps.push(Step::Index(i));
                }
            }
        }
        steps
    }

    /// The path `key` below this one.
    pub fn child(&self, key: &str) -> FieldPath {
        FieldPath(Cow::Owned(format!("{}.{key}", self.0)))
    }

    /// Whether this path is `outer` or lies inside it (a parameter of a
    /// distribution, an entry of a list): `rules[0].limit` is within
    /// `rules`, `rules_b` is not.
    pub fn is_within(&self, outer: &FieldPath) -> bool {
        let (mine, theirs) = (self.steps(), outer.steps());
        mine.len() >= theirs.len() && mine[..theirs.len()] == theirs[..]
    }

    /// As a JSON pointer: `/rules/0/limit`.
    pub fn pointer(&self) -> String {
        self.steps()
            .iter()
            .map(|step| match step {
                Step::Key(k) => format!("/{k}"),
                Step::Index(i) => format!("/{i}"),
            })
            .collect()
    }

    /// As an element id: `rules-0-limit`.
    pub fn slug(&self) -> String {
        self.pointer().trim_start_matches('/').replace('/', "-")
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn step_of(part: &str) -> Result<Step<'_>, FieldPathError> {
    if part.is_empty() {
        return Err(FieldPathError::Empty);
    }
    if part.bytes().all(|b| b.is_ascii_digit()) {
        return part.parse().map(Step::Index).map_err(|_| FieldPathError::BadIndex(part.to_string()));
    }
    if is_key(part) {
        Ok(Step::Key(part))
    } else {
        Err(FieldPathError::BadKey(part.to_string()))
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

super::serde_as_text!(FieldPath);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_lies_within_the_field_it_is_a_part_of() {
        let p = |t: &str| FieldPath::parse(t).unwrap();
        assert!(p("rules[0].limit").is_within(&p("rules")));
        assert!(p("service.mean_s").is_within(&p("service")));
        assert!(p("service").is_within(&p("service")));
        assert!(!p("rules_b").is_within(&p("rules")));
        assert!(!p("service").is_within(&p("service.mean_s")));
        assert!(!p("rate_per_s").is_within(&p("rate")));
    }

    #[test]
    fn every_form_reads_into_the_one_form() {
        for text in ["rules[0].limit", "/rules/0/limit", "rules.0.limit", " rules[0].limit "] {
            let path = FieldPath::parse(text).unwrap();
            assert_eq!(path.to_string(), "rules[0].limit", "{text}");
            assert_eq!(path.pointer(), "/rules/0/limit");
            assert_eq!(path.slug(), "rules-0-limit");
            assert_eq!(path.steps(), vec![Step::Key("rules"), Step::Index(0), Step::Key("limit")]);
        }
        let path = FieldPath::parse("soft_limit.messages").unwrap();
        assert_eq!(path, FieldPath::of("soft_limit.messages"));
        assert_eq!(FieldPath::parse("m[1][2]").unwrap().steps(), vec![Step::Key("m"), Step::Index(1), Step::Index(2)]);
        assert_eq!(FieldPath::parse("queue_priorities.p-1").unwrap().steps(), vec![Step::Key("queue_priorities"), Step::Key("p-1")]);
        // Every path reads back from its own rendering.
        for text in ["a", "rules[0].limit", "m[1][2].x", "windows.7", "q.p-1"] {
            let path = FieldPath::parse(text).unwrap();
            assert_eq!(FieldPath::parse(&path.to_string()).unwrap(), path, "{text}");
            assert_eq!(FieldPath::parse(&path.pointer()).unwrap(), path, "{text}");
        }
    }

    #[test]
    fn what_is_not_a_path_is_refused_naming_the_part() {
        assert_eq!(FieldPath::parse(""), Err(FieldPathError::Empty));
        assert_eq!(FieldPath::parse("a..b"), Err(FieldPathError::Empty));
        assert_eq!(FieldPath::parse("a.b c"), Err(FieldPathError::BadKey("b c".into())));
        assert_eq!(FieldPath::parse("/0/x"), Err(FieldPathError::StartsWithPosition));
        assert_eq!(FieldPath::parse("[0].x"), Err(FieldPathError::Empty));
        assert_eq!(FieldPath::parse("rules[x].limit"), Err(FieldPathError::BadIndex("x".into())));
        assert_eq!(FieldPath::parse("rules[0"), Err(FieldPathError::BadIndex("0".into())));
        assert_eq!(FieldPath::parse("rules[0]x"), Err(FieldPathError::BadKey("x".into())));
        assert_eq!(FieldPath::parse("/a//b"), Err(FieldPathError::Empty));
        assert!(FieldPath::parse("a.99999999999999999999999").is_err());
    }
}
