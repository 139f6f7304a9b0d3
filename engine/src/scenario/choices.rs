//! The choices a field offers, taken from the enum the field holds: its
//! variants (`Choice::ALL`), each one's name as the file writes it (from
//! its serde attribute, the one place a name is spelt) and its words in
//! the inspector's menu. A tagged field (a distribution, an arrival
//! process, a router's policy) offers a working example of each kind
//! instead, named by its tag.

use serde::Serialize;
use serde_json::Value;

use crate::blocks::consumer::OnTimeout;
use crate::blocks::dispatcher::{Agents, DemandOnFull, Discipline, Iteration, QueueKey};
use crate::blocks::router::RouterSpec;
use crate::blocks::{
    Balance, Bucket, EnvoyCircuitBreakerSpec, EnvoyLocalRateLimitSpec, GoCall, GoRateSpec, HaproxyReqRateSpec, HaproxyServerSpec, NginxLimitConnSpec, NginxLimitReqSpec, Per,
    EnvoyAdaptiveConcurrencySpec, NetflixAimdSpec, NetflixGradient2Spec, NetflixVegasSpec, ProductLimiterSpec, Protocol, TowerSpec,
    AfterWait, Resilience4jCircuitBreakerSpec, SlidingWindowType,
};
use crate::blocks::{Backoff, Jitter, RetryOn};
use crate::blocks::{Backpressure, ServiceTimes, CreditScope, OnExcess, OnFull, OnGiveUp, OnRefused, OpensOn, RateUnit, Reaction, Scheme, Scope};
use crate::buffer::Order;

/// An enum a field holds, as a menu.
pub trait Choice: Serialize + Copy + PartialEq + 'static {
    /// Every variant, in the order the menu lists them.
    const ALL: &'static [Self];
    /// In words, for the menu.
    fn label(self) -> &'static str;
    /// As the file writes it.
    fn name(self) -> String {
        name_of(&self)
    }
}

/// The name a value serialises to: a unit variant's, or a tagged one's tag.
fn name_of<T: Serialize>(value: &T) -> String {
    match crate::plumbing::json_read::to_value(value) {
        Value::String(name) => name,
        Value::Object(map) => ["dist", "process", "policy", "product"].iter().find_map(|tag| map.get(*tag)?.as_str().map(str::to_string)).unwrap_or_default(),
        _ => String::new(),
    }
}

/// The name of a tagged value's kind: a distribution's `dist`, an arrival
/// process's `process`, a router's `policy`, a product limiter's `product`.
pub fn kind_name<T: Serialize>(value: &T) -> String {
    name_of(value)
}

/// A field's menu: each choice's name and words, and the choice a block
/// holds when its file leaves the field out (a field written only when it
/// is not its default).
#[derive(Clone, Copy)]
pub struct Menu {
    entries: fn() -> Vec<(String, &'static str)>,
    default: fn() -> Option<String>,
}

impl Menu {
    /// The menu of a field the file always writes.
    pub const fn of<T: Choice>() -> Menu {
        Menu { entries: entries::<T>, default: || None }
    }

    /// The menu of a field left out of the file when it holds `T`'s
    /// default.
    pub const fn or_default<T: Choice + Default>() -> Menu {
        Menu { entries: entries::<T>, default: default_name::<T> }
    }

    pub fn entries(&self) -> Vec<(String, &'static str)> {
        (self.entries)()
    }

    /// The choice held when the field is left out, if it may be.
    pub fn default(&self) -> Option<String> {
        (self.default)()
    }
}

fn entries<T: Choice>() -> Vec<(String, &'static str)> {
    T::ALL.iter().map(|c| (c.name(), c.label())).collect()
}

fn default_name<T: Choice + Default>() -> Option<String> {
    Some(T::default().name())
}

impl PartialEq for Menu {
    fn eq(&self, other: &Menu) -> bool {
        self.entries() == other.entries() && self.default() == other.default()
    }
}

impl std::fmt::Debug for Menu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries().iter().map(|(name, _)| name)).finish()
    }
}

macro_rules! choice {
    ($t:ty { $($variant:ident => $label:literal,)+ }) => {
        impl Choice for $t {
            const ALL: &'static [Self] = &[$(<$t>::$variant),+];
            fn label(self) -> &'static str {
                match self {
                    $(<$t>::$variant => $label,)+
                }
            }
        }
    };
}

choice!(OnRefused {
    Pause => "hold it and wait to be woken",
    Drop => "drop it (counted as refused)",
    Retry => "retry after a delay",
});

choice!(OnGiveUp {
    WorkOn => "work on: the answer goes nowhere",
    Cancel => "cancel: dropped before more work",
});

choice!(RetryOn {
    Timeout => "an attempt given up at the time-out",
    Error => "an attempt answered with an error",
    Both => "either",
});

choice!(Backoff {
    None => "none: at once",
    Fixed => "fixed: the base each time",
    Exponential => "exponential: the base doubled each time, up to the cap",
});

choice!(Jitter {
    None => "none",
    Full => "full: anywhere from 0 to the wait",
    Equal => "equal: half the wait, and up to half more",
    Decorrelated => "decorrelated: from the base to 3 times the last wait",
});

choice!(ServiceTimes {
    Scenario => "each consumer's own service time",
    Log => "each request's own time, from the log",
    Empirical => "drawn from the log's times",
});

choice!(Backpressure {
    Pause => "pause (a client we stop reading)",
    Ignore => "ignore (a live source)",
    Drop => "drop (ping requests left unanswered)",
});

choice!(Reaction {
    None => "none",
    Thin => "thin droppable messages",
    PauseInput => "pause the producers",
    Disconnect => "disconnect the client",
});

choice!(OnFull {
    DropNewest => "drop the newcomer",
    DropOldest => "drop the oldest",
    DropDroppableFirst => "drop droppable ones first",
    Refuse => "refuse (the sender holds it)",
});

choice!(Order {
    Fifo => "first in, first out",
    Lifo => "last in, first out",
    Priority => "by priority, lower number first",
});

choice!(OnTimeout {
    Retry => "again at once, on the same worker",
    Requeue => "cancelled: back to its job queue, through the limiters",
});

choice!(Scope {
    Shared => "shared by all destinations",
    PerDestination => "one per destination",
    PerClass => "one per class",
});

choice!(OpensOn {
    Receipt => "receipt",
    Processing => "processing",
});

choice!(CreditScope {
    PerDestination => "one peer per destination",
    Shared => "one peer for all",
});

choice!(Scheme {
    Timer => "scheme 1: a timer, one per tick",
    Batch => "scheme 2: a batch each span",
    Anchored => "scheme 3: window anchored at the first message",
    NaturalPeriod => "natural-period counter",
    Spread => "pacer (extension)",
    Sliding => "sliding window",
    TokenBucket => "token bucket",
});

choice!(RateUnit {
    Messages => "messages",
    Bytes => "bytes",
});

choice!(OnExcess {
    Delay => "delay it",
    Reject => "reject it",
});

choice!(Per {
    Second => "per second (r/s)",
    Minute => "per minute (r/m)",
});

choice!(Bucket {
    Atomic => "atomic: continuous refill (1.31 and later)",
    Timer => "timer: whole fills at each tick (1.30 and earlier)",
});

choice!(Balance {
    Roundrobin => "roundrobin: a full server is skipped, the backend queues (maxqueue unused)",
    Hash => "hash: the server is chosen whatever its load, its queue bounded by maxqueue",
});

choice!(Protocol {
    Http1 => "HTTP/1.1: one request per connection",
    Http2 => "HTTP/2: every request on one connection",
});

choice!(SlidingWindowType {
    CountBased => "COUNT_BASED: the last calls",
    TimeBased => "TIME_BASED: the calls of the last seconds",
});

choice!(AfterWait {
    Open => "OPEN: open again",
    Closed => "CLOSED: close",
});

choice!(GoCall {
    Allow => "Allow: refuse unless a token is there",
    Wait => "Wait: wait for a token (up to a deadline)",
    Reserve => "Reserve: always wait for a token",
});

choice!(QueueKey {
    PerInput => "one per sender",
    PerDestination => "one per destination",
    PerClass => "one per class",
    Shared => "one for all (global FIFO)",
});

choice!(Discipline {
    RoundRobin => "round robin over non-empty queues",
    Priority => "strict priority, lower number first",
    EventLoop => "event loop iterations",
    Alternate => "alternate between queues (Exon's receive)",
    Netsendq => "per-host windows (netsendq)",
});

choice!(Agents {
    ByDestination => "its destination (else its sender's queue; per class: one agent)",
    PerQueue => "one agent per demand queue",
    Independent => "none: any worker takes any demand",
});

choice!(Iteration {
    Snapshot => "snapshot",
    All => "everything",
});

choice!(DemandOnFull {
    DropNewest => "drop the newcomer",
    DropOldest => "drop the oldest",
    Refuse => "refuse",
});

/// The router's policies, each as a working router for `outputs` (the ids
/// of the nodes it feeds), with its words.
pub fn router_examples(outputs: &[String]) -> Vec<(RouterSpec, &'static str)> {
    let classes = Default::default();
    vec![
        (RouterSpec::RoundRobin, "round robin"),
        (RouterSpec::ByWeight { weights: vec![1.0; outputs.len().max(1)] }, "by weight"),
        (RouterSpec::ByClass { classes, default: outputs.first().cloned() }, "by class"),
        (RouterSpec::ByDestination, "by destination"),
    ]
}

/// A working limiter of each product, and its name for people: what
/// choosing a product in the inspector turns a product limiter into.
pub fn product_examples() -> Vec<(ProductLimiterSpec, &'static str)> {
    vec![
        (ProductLimiterSpec::NginxLimitReq(NginxLimitReqSpec::of(10, 5)), "nginx limit_req"),
        (ProductLimiterSpec::NginxLimitConn(NginxLimitConnSpec::of(10)), "nginx limit_conn"),
        (ProductLimiterSpec::GoRate(GoRateSpec::of(10.0, 5)), "Go x/time/rate"),
        (ProductLimiterSpec::HaproxyHttpReqRate(HaproxyReqRateSpec::of(100, 10.0)), "HAProxy http_req_rate"),
        (ProductLimiterSpec::HaproxyServer(HaproxyServerSpec::of(10)), "HAProxy server maxconn"),
        (ProductLimiterSpec::EnvoyLocalRateLimit(EnvoyLocalRateLimitSpec::of(10, 10, 1.0)), "Envoy local_ratelimit"),
        (ProductLimiterSpec::EnvoyCircuitBreaker(EnvoyCircuitBreakerSpec::of(10, 10)), "Envoy circuit breaker"),
        (ProductLimiterSpec::Tower(TowerSpec::shed_buffered(2, 4)), "tower layers"),
        (ProductLimiterSpec::NetflixAimd(NetflixAimdSpec::default()), "Netflix AIMD"),
        (ProductLimiterSpec::NetflixVegas(NetflixVegasSpec::default()), "Netflix Vegas"),
        (ProductLimiterSpec::NetflixGradient2(NetflixGradient2Spec::default()), "Netflix Gradient2"),
        (ProductLimiterSpec::EnvoyAdaptiveConcurrency(EnvoyAdaptiveConcurrencySpec::of(60.0)), "Envoy adaptive concurrency"),
        (ProductLimiterSpec::Resilience4jCircuitBreaker(Resilience4jCircuitBreakerSpec::default()), "resilience4j circuit breaker"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each menu lists distinct names, each of which reads back as its
    /// variant.
    fn reads_back<T: Choice + serde::de::DeserializeOwned + std::fmt::Debug>() {
        let names: Vec<String> = T::ALL.iter().map(|c| c.name()).collect();
        let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
        for c in T::ALL {
            let read: T = crate::plumbing::json_read::from_value(&Value::String(c.name())).unwrap();
            assert_eq!(&read, c);
            assert!(!c.label().is_empty());
        }
    }

    #[test]
    fn every_menu_reads_back() {
        reads_back::<OnRefused>();
        reads_back::<Backpressure>();
        reads_back::<ServiceTimes>();
        reads_back::<Reaction>();
        reads_back::<OnFull>();
        reads_back::<Order>();
        reads_back::<OnTimeout>();
        reads_back::<OnGiveUp>();
        reads_back::<RetryOn>();
        reads_back::<Backoff>();
        reads_back::<Jitter>();
        reads_back::<Scope>();
        reads_back::<OpensOn>();
        reads_back::<CreditScope>();
        reads_back::<Scheme>();
        reads_back::<RateUnit>();
        reads_back::<OnExcess>();
        reads_back::<QueueKey>();
        reads_back::<Discipline>();
        reads_back::<Agents>();
        reads_back::<Iteration>();
        reads_back::<DemandOnFull>();
        reads_back::<Per>();
        reads_back::<Balance>();
        reads_back::<Protocol>();
        reads_back::<SlidingWindowType>();
        reads_back::<AfterWait>();
        assert_eq!(Menu::of::<Order>().entries()[2], ("priority".to_string(), "by priority, lower number first"));
    }

    #[test]
    fn every_router_example_is_a_router_of_its_policy() {
        let outputs = ["a".to_string(), "b".to_string()];
        let names: Vec<String> = router_examples(&outputs).iter().map(|(r, _)| kind_name(r)).collect();
        assert_eq!(names, ["round_robin", "by_weight", "by_class", "by_destination"]);
    }

    #[test]
    fn every_product_example_is_a_limiter_of_its_product() {
        let names: Vec<String> = product_examples().iter().map(|(p, _)| kind_name(p)).collect();
        assert_eq!(
            names,
            [
                "nginx_limit_req",
                "nginx_limit_conn",
                "go_rate",
                "haproxy_http_req_rate",
                "haproxy_server",
                "envoy_local_rate_limit",
                "envoy_circuit_breaker",
                "tower",
                "netflix_aimd",
                "netflix_vegas",
                "netflix_gradient2",
                "envoy_adaptive_concurrency",
                "resilience4j_circuit_breaker"
            ]
        );
    }
}
