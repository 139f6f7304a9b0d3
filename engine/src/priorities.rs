//! Message priorities set by message type (class), by the receiving agent
//! (destination), by the source mailbox (the producer that sent it), or by
//! any of them together, as SObjectizer's priority demand queues allow: the
//! same message type can be high priority for Alice and low for Bob, and a
//! mailbox's messages can outrank another's.
//!
//! Guarantees: a message's priority is the one set by the most specific
//! rule that matches it (the one naming the most of class, destination and
//! source; among rules naming as many, class before source before
//! destination), else its class's own `priority`. Names are resolved to
//! indices once, so the lookup on every message compares numbers, not
//! strings, and tries only the combinations some rule uses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::message::{Message, NodeRef};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessagePriority {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    /// The producer whose messages this sets (SObjectizer's source mailbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub priority: u8,
}

const CLASS: u8 = 1;
const DESTINATION: u8 = 2;
const SOURCE: u8 = 4;

/// The combinations of fields, most specific first.
const BY_SPECIFICITY: [u8; 7] =
    [CLASS | DESTINATION | SOURCE, CLASS | DESTINATION, CLASS | SOURCE, DESTINATION | SOURCE, CLASS, SOURCE, DESTINATION];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PriorityTable {
    /// (fields named, class, destination, source) → priority; a field not
    /// named is 0.
    rules: BTreeMap<(u8, u16, NodeRef, NodeRef), u8>,
    /// The combinations some rule names, most specific first.
    used: Vec<u8>,
}

impl PriorityTable {
    /// Resolves `list` against the scenario's class names (by scenario-wide
    /// class index) and node ids (by node index). A class name shared by
    /// several producers' classes applies to all of them. A rule naming
    /// nothing, or a name that does not resolve, sets nothing (validation
    /// reports those).
    pub fn resolve(list: &[MessagePriority], class_names: &[String], node_ids: &[String]) -> Self {
        let mut table = PriorityTable::default();
        let node = |id: &Option<String>| -> Option<Option<NodeRef>> {
            match id {
                None => Some(None),
                Some(id) => node_ids.iter().position(|n| n == id).map(|i| Some(i as NodeRef)),
            }
        };
        for p in list {
            let (Some(dest), Some(source)) = (node(&p.destination), node(&p.source)) else { continue };
            let classes: Vec<Option<u16>> = match &p.class {
                None => vec![None],
                Some(name) => class_names.iter().enumerate().filter(|(_, n)| *n == name).map(|(i, _)| Some(i as u16)).collect(),
            };
            let fields = p.class.as_ref().map_or(0, |_| CLASS) | dest.map_or(0, |_| DESTINATION) | source.map_or(0, |_| SOURCE);
            if fields == 0 {
                continue;
            }
            for c in classes {
                table.rules.insert((fields, c.unwrap_or(0), dest.unwrap_or(0), source.unwrap_or(0)), p.priority);
            }
        }
        table.used = BY_SPECIFICITY.iter().copied().filter(|&f| table.rules.keys().any(|k| k.0 == f)).collect();
        table
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The priority `msg` takes in a queue ordered by priority.
    pub fn of(&self, msg: &Message) -> u8 {
        self.rule_for(msg).unwrap_or(msg.priority)
    }

    /// The priority `msg`, already waiting, takes under this table: as
    /// `of`, from the priority it entered with (a rule taken away gives
    /// back the one it had).
    pub fn again(&self, msg: &Message) -> u8 {
        self.rule_for(msg).unwrap_or(msg.entered_priority)
    }

    /// The priority of the most specific rule matching `msg`, if any.
    fn rule_for(&self, msg: &Message) -> Option<u8> {
        for &f in &self.used {
            let key = (
                f,
                if f & CLASS != 0 { msg.class } else { 0 },
                if f & DESTINATION != 0 { msg.destination } else { 0 },
                if f & SOURCE != 0 { msg.source } else { 0 },
            );
            if let Some(p) = self.rules.get(&key) {
                return Some(*p);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::NO_DESTINATION;

    fn rule(class: Option<&str>, destination: Option<&str>, source: Option<&str>, priority: u8) -> MessagePriority {
        MessagePriority {
            class: class.map(str::to_string),
            destination: destination.map(str::to_string),
            source: source.map(str::to_string),
            priority,
        }
    }

    fn msg(class: u16, destination: NodeRef, source: NodeRef) -> Message {
        Message {
            id: 0,
            created: crate::time::SimTime::ZERO,
            size_bytes: 1,
            source,
            destination,
            class,
            priority: 9,
            entered_priority: 9,
            droppable: false,
            attempts: 0,
            resent: 0,
            key: crate::message::NO_KEY,
            gates: Default::default(),
        }
    }

    #[test]
    fn the_most_specific_rule_wins() {
        let classes = ["hello".to_string(), "bye".to_string()];
        let nodes = ["alice".to_string(), "bob".to_string(), "mbox_a".to_string(), "mbox_b".to_string()];
        let table = PriorityTable::resolve(
            &[
                rule(Some("hello"), None, None, 5),
                rule(Some("hello"), Some("alice"), None, 1),
                rule(None, None, Some("mbox_b"), 3),
                rule(Some("bye"), None, Some("mbox_b"), 0),
            ],
            &classes,
            &nodes,
        );
        // Type and receiving agent: hello is high for Alice, low for Bob.
        assert_eq!(table.of(&msg(0, 0, 2)), 1);
        assert_eq!(table.of(&msg(0, 1, 2)), 5);
        // Source mailbox alone, and mailbox and type together.
        assert_eq!(table.of(&msg(1, 1, 3)), 0);
        assert_eq!(table.of(&msg(1, NO_DESTINATION, 2)), 9);
        // Class and destination outrank source alone.
        assert_eq!(table.of(&msg(0, 0, 3)), 1);
        // Class alone outranks source alone.
        assert_eq!(table.of(&msg(0, 1, 3)), 5);
    }

    #[test]
    fn a_rule_naming_nothing_or_an_unknown_node_sets_nothing() {
        let classes = ["hello".to_string()];
        let nodes = ["alice".to_string()];
        let table = PriorityTable::resolve(&[rule(None, None, None, 0), rule(None, None, Some("nobody"), 0)], &classes, &nodes);
        assert!(table.is_empty());
        assert_eq!(table.of(&msg(0, 0, 0)), 9);
    }
}
