//! Message priorities set for a class, or for a class sent to one receiving
//! agent (SObjectizer: the same message type can be high priority for Alice
//! and low for Bob).
//!
//! Guarantees: a message's priority is the one set for its class and its
//! destination if there is one, else the one set for its class alone, else
//! its class's own `priority`. Names are resolved to indices once, so the
//! lookup on every message compares numbers, not strings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::message::{Message, NO_DESTINATION};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessagePriority {
    pub class: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    pub priority: u8,
}

#[derive(Clone, Debug, Default)]
pub struct PriorityTable {
    /// (class, destination) → priority.
    specific: BTreeMap<(u16, u16), u8>,
    /// class → priority.
    general: BTreeMap<u16, u8>,
}

impl PriorityTable {
    /// Resolves `list` against the scenario's class names (by scenario-wide
    /// class index) and node ids (by node index). A class name shared by
    /// several producers' classes applies to all of them.
    pub fn resolve(list: &[MessagePriority], class_names: &[String], node_ids: &[String]) -> Self {
        let mut table = PriorityTable::default();
        for p in list {
            let classes = class_names.iter().enumerate().filter(|(_, n)| **n == p.class).map(|(i, _)| i as u16);
            match &p.destination {
                Some(d) => {
                    if let Some(node) = node_ids.iter().position(|id| id == d) {
                        for c in classes {
                            table.specific.insert((c, node as u16), p.priority);
                        }
                    }
                }
                None => {
                    for c in classes {
                        table.general.insert(c, p.priority);
                    }
                }
            }
        }
        table
    }

    pub fn is_empty(&self) -> bool {
        self.specific.is_empty() && self.general.is_empty()
    }

    /// The priority `msg` takes in a queue ordered by priority.
    pub fn of(&self, msg: &Message) -> u8 {
        if msg.destination != NO_DESTINATION {
            if let Some(p) = self.specific.get(&(msg.class, msg.destination)) {
                return *p;
            }
        }
        self.general.get(&msg.class).copied().unwrap_or(msg.priority)
    }
}
