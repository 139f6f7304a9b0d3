//! The kinds of block, as the `kind` field of a scenario spells them.
//!
//! Guarantee: `Kind` reads and writes exactly the names the scenario format
//! documents (`rate_limiter`, `concurrency_limiter`...), so files, JSON
//! output and reports are as they were when kinds were strings.

use serde::{Deserialize, Serialize};

/// A kind of block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Producer,
    Queue,
    Consumer,
    Router,
    Window,
    Credit,
    RateLimiter,
    ConcurrencyLimiter,
    Link,
    Dispatcher,
    ResourcePool,
    ProductLimiter,
}

impl Kind {
    /// Whether a block of this kind takes incoming edges (all but a
    /// producer, which makes its own messages).
    pub fn takes_input(self) -> bool {
        self != Kind::Producer
    }

    /// Every kind, in the order the palette and the documentation list them.
    pub const ALL: [Kind; 12] = [
        Kind::Producer,
        Kind::Queue,
        Kind::Consumer,
        Kind::Router,
        Kind::Window,
        Kind::Credit,
        Kind::RateLimiter,
        Kind::ConcurrencyLimiter,
        Kind::Link,
        Kind::Dispatcher,
        Kind::ResourcePool,
        Kind::ProductLimiter,
    ];

    /// The name in the `kind` field: "rate_limiter".
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Producer => "producer",
            Kind::Queue => "queue",
            Kind::Consumer => "consumer",
            Kind::Router => "router",
            Kind::Window => "window",
            Kind::Credit => "credit",
            Kind::RateLimiter => "rate_limiter",
            Kind::ConcurrencyLimiter => "concurrency_limiter",
            Kind::Link => "link",
            Kind::Dispatcher => "dispatcher",
            Kind::ResourcePool => "resource_pool",
            Kind::ProductLimiter => "product_limiter",
        }
    }

    /// The kind named `name` in the `kind` field, if there is one.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Blocks of this kind pass a message on at once or refuse it, keeping
    /// none: a wake and a pause pass through them (`Node::passes_through`).
    pub fn holds_nothing(self) -> bool {
        matches!(
            self,
            Kind::Router | Kind::Window | Kind::Credit | Kind::RateLimiter | Kind::ConcurrencyLimiter | Kind::ResourcePool
        )
    }

    /// Every kind's name, for messages: "producer, queue, …".
    pub fn names() -> String {
        Kind::ALL.map(Kind::as_str).join(", ")
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that widths and alignment in format strings apply.
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_serialise_as_the_format_spells_them() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::Value::from(kind.as_str()));
        }
        assert_eq!(Kind::parse("teapot"), None);
    }

    #[test]
    fn a_width_in_a_format_string_applies() {
        assert_eq!(format!("[{:<14}]", Kind::RateLimiter), format!("[{:<14}]", Kind::RateLimiter.as_str()));
    }
}
