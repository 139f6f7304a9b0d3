//! Every parameter of each block kind, described once: its place in the
//! block, its label, unit, a one-line explanation and the control that
//! sets it. The page's inspector renders from this table, and a test holds
//! `docs/scenario.md`'s tables to it (`engine/tests/docs_fields.rs`).
//!
//! A field names its place in the block with a `FieldPath`, so the
//! inspector needs no code per block: it reads the value there and sets a
//! number in place (`BlockSpec::set_number`), or writes any other value
//! into the block's JSON (`BlockSpec::with_value`); the engine then
//! validates the block in its scenario.


use super::choices::Menu;
use crate::plumbing::units::Quantity;
use super::{Arrivals, ServiceTimes, Backpressure, OnGiveUp, Backoff, Jitter, RetryOn, Balance, Bucket, CreditScope, Distribution, FieldPath, GoCall, Kind, OnExcess, OnFull, OnRefused, OnTimeout, OpensOn, Order, Per, Protocol, RateUnit, Reaction, Scheme, Scope};
use super::{AfterWait, Agents, DemandOnFull, Discipline, Iteration, QueueKey, SlidingWindowType};

/// What a parameter measures, as the inspector shows it beside the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A plain number, or one measured in its parent's unit (a
    /// distribution's parameter: the seconds or bytes drawn).
    None,
    Seconds,
    Bytes,
    BytesPerSecond,
    Messages,
    MessagesPerSecond,
    /// Messages or bytes (a rate limiter counts either) per span.
    PerSpan,
    /// Workers: how many at once.
    AtOnce,
    Times,
    NodeId,
    /// A list or a map, written as JSON.
    Json,
    Resources,
    Demands,
    /// A multiple, such as a spread over a mean.
    Ratio,
    /// A probability, from 0 to 1.
    Share,
    /// A share out of 100.
    Percent,
    /// Requests, as a server counts them.
    Requests,
    /// Requests a second.
    RequestsPerSecond,
    /// An HTTP status code.
    Status,
    /// Keys a limiter keeps state for.
    Keys,
}

impl Unit {
    /// As the inspector writes it.
    pub fn label(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Seconds => "s",
            Unit::Bytes => "bytes",
            Unit::BytesPerSecond => "bytes/s",
            Unit::Messages => "messages",
            Unit::MessagesPerSecond => "messages/s",
            Unit::PerSpan => "per span",
            Unit::AtOnce => "at once",
            Unit::Times => "times",
            Unit::NodeId => "node id",
            Unit::Json => "JSON",
            Unit::Resources => "resources",
            Unit::Demands => "demands",
            Unit::Ratio => "×",
            Unit::Share => "0 to 1",
            Unit::Percent => "%",
            Unit::Requests => "requests",
            Unit::RequestsPerSecond => "requests/s",
            Unit::Status => "HTTP status",
            Unit::Keys => "keys",
        }
    }

    /// The quantity a value of it is, when it may be typed with a unit
    /// suffix (`1200ms`, `16kib`): durations and sizes (a rate limiter's
    /// limit may count bytes).
    pub fn quantity(self) -> Option<Quantity> {
        match self {
            Unit::Seconds => Some(Quantity::Duration),
            Unit::Bytes | Unit::BytesPerSecond | Unit::PerSpan => Some(Quantity::Size),
            _ => None,
        }
    }
}

/// How a parameter is set.
#[derive(Clone, Copy, PartialEq)]
pub enum Control {
    /// A number: a slider over a useful range, and a field that takes any
    /// value (the engine has the last word on what is valid).
    Number { min: f64, max: f64, step: f64 },
    /// A whole number, with a slider.
    Whole { min: f64, max: f64, step: f64 },
    /// A number that may be absent: an empty field means none. `none_is`
    /// is a value the engine also uses for "none" (shown empty).
    Optional { none_is: Option<f64> },
    /// A name that may be absent (a node id).
    Text,
    /// One of the variants of the enum the field holds.
    Choice(Menu),
    /// A router's policy: choosing one makes the router a working router
    /// of that policy (`choices::router_examples`), whose other fields
    /// follow from it.
    Policy,
    /// A product limiter's product: choosing one makes the block a working
    /// limiter of that product (`choices::product_examples`), whose other
    /// fields follow from it.
    Product,
    /// Yes or no.
    Toggle,
    /// A probability distribution (`dist` and its parameters).
    Distribution,
    /// A producer's arrival process (`process` and its parameters).
    Arrivals,
    /// A list or a map, edited as JSON.
    Json,
}

#[derive(Clone, Copy)]
pub struct Field {
    /// Its place in the block (`path`), as the table writes it: the
    /// table is built at compile time, where only a plain text will do.
    place: &'static str,
    pub label: &'static str,
    pub unit: Unit,
    pub help: &'static str,
    pub control: Control,
    /// See `when` (set by `shown_if`).
    shown_when: Option<(&'static str, &'static [&'static str])>,
}

const fn f(path: &'static str, label: &'static str, unit: Unit, help: &'static str, control: Control) -> Field {
    Field { place: path, label, unit, help, control, shown_when: None }
}

impl Field {
    const fn shown_if(self, path: &'static str, values: &'static [&'static str]) -> Field {
        Field { shown_when: Some((path, values)), ..self }
    }

    /// Its place in the block, like `soft_limit.messages`.
    pub const fn path(&self) -> FieldPath {
        FieldPath::of(self.place)
    }

    /// Shown only while the field at this path has one of these values
    /// (none listed: any value).
    pub fn when(&self) -> Option<(FieldPath, &'static [&'static str])> {
        self.shown_when.map(|(path, values)| (FieldPath::of(path), values))
    }

    /// Whether it is shown for `block`, the block as JSON: always, or while
    /// the field `when` names holds one of its values.
    pub fn shown_in(&self, block: &serde_json::Value) -> bool {
        match self.when() {
            // No values listed: shown while the field is there at all (a
            // setting inside an object the block may leave out).
            Some((path, values)) => block.pointer(&path.pointer()).is_some_and(|v| values.is_empty() || v.as_str().is_some_and(|v| values.contains(&v))),
            None => true,
        }
    }
}

const fn num(min: f64, max: f64, step: f64) -> Control {
    Control::Number { min, max, step }
}

const fn whole(min: f64, max: f64, step: f64) -> Control {
    Control::Whole { min, max, step }
}

const OPTIONAL: Control = Control::Optional { none_is: None };

const PRODUCER: &[Field] = &[
    f("arrivals", "Arrivals", Unit::None, "When the producer makes messages.", Control::Arrivals),
    f("on_refused", "When refused", Unit::None, "What the producer does with a message the next block refuses.", Control::Choice(Menu::or_default::<OnRefused>())),
    f("retry_after_s", "Retry after", Unit::Seconds, "Time between offers of a refused message.", num(0.001, 5.0, 0.001))
        .shown_if("on_refused", &["retry"]),
    f("backpressure", "When asked to pause", Unit::None, "What a queue's soft limit does to this source: a client the server stops reading pauses; a live stream cannot and keeps sending; ping requests read but not answered are dropped (unanswered).", Control::Choice(Menu::or_default::<Backpressure>())),
    f("classes", "Message classes", Unit::Json, "Each: name, weight, size (a distribution of bytes), droppable, priority (0 is served first: lower numbers first, as super-queue counts; SObjectizer's article counts the other way), destination.", Control::Json),
    f("linked_to", "Linked to", Unit::NodeId, "A consumer this producer is linked to (rotor): it sends nothing until the consumer is operational, and stops for good when it shuts down (empty: not linked).", Control::Text),
    f("keys", "Client keys", Unit::Keys, "How many clients its messages come from, each message's drawn at random (k1 to kN), for limiters that keep state per key (empty: no key, one shared state).", OPTIONAL),
    f("timeout_s", "Client time-out", Unit::Seconds, "A client gives up on a request not answered this long after it was made; answers after that are late, and work spent on it is wasted (empty: clients wait for ever).", OPTIONAL),
    f("on_timeout", "When a client gives up", Unit::None, "Whether the server hears of it: work on (it serves the request for nobody) or cancel (a waiting request is dropped before any work, one in service is stopped).", Control::Choice(Menu::or_default::<OnGiveUp>())),
    f("retries.max_attempts", "Attempts", Unit::Times, "Attempts in all, the first included (gRPC's maxAttempts): 1 never retries. Set, it turns retries on and shows their other settings.", OPTIONAL),
    f("retries.on", "Retry on", Unit::None, "What is tried again: an attempt given up at the time-out, one answered with an error, or either.", Control::Choice(Menu::or_default::<RetryOn>())).shown_if("retries", &[]),
    f("retries.backoff", "Back-off", Unit::None, "The wait before each retry (AWS's definitions).", Control::Choice(Menu::or_default::<Backoff>())).shown_if("retries", &[]),
    f("retries.base_s", "Back-off base", Unit::Seconds, "A fixed back-off's wait; an exponential one's first, doubled at each retry; decorrelated jitter's least.", num(0.0, 10.0, 0.005)).shown_if("retries", &[]),
    f("retries.cap_s", "Back-off cap", Unit::Seconds, "The longest wait of an exponential back-off or decorrelated jitter (empty: uncapped).", OPTIONAL).shown_if("retries", &[]),
    f("retries.jitter", "Jitter", Unit::None, "How the wait is drawn at random around the back-off (AWS's definitions).", Control::Choice(Menu::or_default::<Jitter>())).shown_if("retries", &[]),
    f("retries.budget", "Retry budget", Unit::Json, "{\"kind\": \"envoy\", \"budget_percent\", \"min_retry_concurrency\"}: retries at most that share of the attempts in flight (at least the minimum); {\"kind\": \"grpc\", \"max_tokens\", \"token_ratio\"}: gRPC's throttling, no retry once the tokens are at half or below (empty: none).", Control::Json).shown_if("retries", &[]),
];

const QUEUE: &[Field] = &[
    f("soft_limit.messages", "Soft limit", Unit::Messages, "At this depth the queue's soft-limit reaction starts (0: no limit).", whole(0.0, 500.0, 1.0)),
    f("hard_limit.messages", "Hard limit", Unit::Messages, "At this depth the hard-limit reaction starts (0: no limit).", whole(0.0, 1000.0, 1.0)),
    f("soft_limit.bytes", "Soft limit", Unit::Bytes, "The same threshold counted in bytes; whichever is reached first counts.", whole(0.0, 1_048_576.0, 1024.0)),
    f("hard_limit.bytes", "Hard limit", Unit::Bytes, "The hard threshold in bytes (0: no limit).", whole(0.0, 2_097_152.0, 1024.0)),
    f("resume_below.messages", "Resume below", Unit::Messages, "An extension, not the Moment note's rule: once at the soft limit, stay there until a send leaves fewer than this (0: leave at the first send below the soft limit).", whole(0.0, 500.0, 1.0)),
    f("reactions.overloaded", "When overloaded", Unit::None, "The reaction once a write to the socket (a link's send buffer) would block.", Control::Choice(Menu::of::<Reaction>())),
    f("reactions.soft_limit", "At the soft limit", Unit::None, "The reaction at the soft limit (and beyond).", Control::Choice(Menu::of::<Reaction>())),
    f("reactions.hard_limit", "At the hard limit", Unit::None, "The reaction at the hard limit.", Control::Choice(Menu::of::<Reaction>())),
    f("reconnect_after_s", "Reconnect after", Unit::Seconds, "After a disconnect, a new client connects this much later.", num(0.0, 10.0, 0.1)),
    f("capacity.messages", "Capacity", Unit::Messages, "The most the queue holds (0: no bound).", whole(0.0, 1000.0, 1.0)),
    f("capacity.bytes", "Capacity", Unit::Bytes, "The most bytes the queue holds (0: no bound).", whole(0.0, 2_097_152.0, 1024.0)),
    f("on_full", "When full", Unit::None, "What happens to a message that does not fit (drops count as overflow).", Control::Choice(Menu::or_default::<OnFull>())),
    f("order", "Order", Unit::None, "Which message leaves first.", Control::Choice(Menu::or_default::<Order>())),
    f("message_priorities", "Message priorities", Unit::Json, "With priority order: [{\"class\", \"destination\", \"source\" (any of the three), \"priority\"}]. Lower numbers are served first (super-queue's order; SObjectizer's article gives the urgent message the higher number).", Control::Json)
        .shown_if("order", &["priority"]),
    f("ttl_s", "Time to live", Unit::Seconds, "A message that waited this long is discarded (empty: never).", OPTIONAL),
];

const CONSUMER: &[Field] = &[
    f("service_time", "Service time", Unit::Seconds, "How long one message takes to serve.", Control::Distribution),
    f("workers", "Workers", Unit::AtOnce, "How many messages the consumer serves in parallel.", whole(1.0, 32.0, 1.0)),
    f("timeout_s", "Time-out", Unit::Seconds, "A service that would take longer is cut off and tried again (empty: none).", OPTIONAL),
    f("max_retries", "Retries", Unit::Times, "Retries after a time-out; then the message is dropped (timed_out).", whole(0.0, 10.0, 1.0)),
    f("on_timeout", "On time-out", Unit::None, "Where a job cut off by the time-out is tried again.", Control::Choice(Menu::or_default::<OnTimeout>())),
    f("lifecycle.initializing_s", "Ready after", Unit::Seconds, "Initializing until then, refusing work (empty: ready at once).", OPTIONAL),
    f("lifecycle.shutdown_at_s", "Shut down at", Unit::Seconds, "From then on it refuses work, finishes what it holds and stops (empty: never).", OPTIONAL),
    f("lifecycle.init_timeout_s", "Initialization time-out", Unit::Seconds, "Still initializing then, it gives up and shuts down without being operational; its supervisor shuts down too (empty: none).", OPTIONAL),
    f("lifecycle.supervisor", "Supervisor", Unit::NodeId, "The consumer that owns this one: when it shuts down, so does this one (empty: none).", Control::Text),
    f("slowdowns", "Slow-downs", Unit::Json, "[{\"from_s\", \"to_s\", \"factor\"}]: service times multiplied meanwhile.", Control::Json),
    f("outages", "Outages", Unit::Json, "[{\"from_s\", \"to_s\"}]: no new work taken meanwhile.", Control::Json),
];

const ROUTER: &[Field] = &[
    f("policy", "Policy", Unit::None, "Which output each message takes.", Control::Policy),
    f("weights", "Weights", Unit::Json, "One number per outgoing edge, in edge order.", Control::Json).shown_if("policy", &["by_weight"]),
    f("classes", "Classes", Unit::Json, "{\"class name\": \"output node id\"}.", Control::Json).shown_if("policy", &["by_class"]),
    f("default", "Other classes to", Unit::NodeId, "The output for classes not listed (empty: dropped as no_route).", Control::Text)
        .shown_if("policy", &["by_class"]),
];

const WINDOW: &[Field] = &[
    f("max_messages", "Window", Unit::Messages, "Messages in flight at most (0: no bound in messages).", whole(0.0, 100.0, 1.0)),
    f("max_bytes", "Window", Unit::Bytes, "Bytes in flight at most (0: no bound in bytes).", whole(0.0, 1_048_576.0, 1024.0)),
    f("scope", "Scope", Unit::None, "One window for everything, one per destination, or one per class.", Control::Choice(Menu::or_default::<Scope>())),
    f("opens_on", "Opens on", Unit::None, "Whether a message stops counting when it is received or when it is processed.", Control::Choice(Menu::or_default::<OpensOn>())),
    f("ack_latency_s", "Acknowledgement latency", Unit::Seconds, "How long the acknowledgement takes to come back.", num(0.0, 1.0, 0.001)),
    f("receipts.to", "Receipts to", Unit::NodeId, "With a receipt queue (Exon): the queue, dispatcher or consumer where receipts wait to be read; the window opens only when one is read, and an ACK it has no room for is retransmitted (empty: the window opens on the acknowledgement).", Control::Text),
    f("receipts.retransmit_after_s", "Retransmit after", Unit::Seconds, "An ACK not accepted makes the sender send the message again this much later: over a link, the copy takes the wire's bandwidth again, and its ACK comes back when it arrives.", num(0.001, 2.0, 0.001))
        .shown_if("receipts.to", &[]),
];

const CREDIT: &[Field] = &[
    f("initial_credit", "Initial credit", Unit::Messages, "Credits granted when a peer's state is created.", whole(1.0, 100.0, 1.0)),
    f("implicit_single_credit", "Implicit single credit", Unit::None, "A peer without state may send one message at once, instead of a CONNECT and its CONNACK first.", Control::Toggle),
    f("grant_batch", "Grant batch", Unit::Messages, "The receiver grants credit per this many processed messages.", whole(1.0, 50.0, 1.0)),
    f("grant_latency_s", "Grant latency", Unit::Seconds, "How long a grant takes to come back; a CONNECT and its CONNACK take it each way.", num(0.0, 1.0, 0.001)),
    f("scope", "Scope", Unit::None, "One peer per message destination, or one for all.", Control::Choice(Menu::of::<CreditScope>())),
    f("close_after_idle_s", "Close when idle for", Unit::Seconds, "A peer with nothing in flight this long is released (empty: never).", OPTIONAL),
];

const RATE_LIMITER: &[Field] = &[
    f("rules[0].scheme", "First rule", Unit::None, "How the first rule counts.", Control::Choice(Menu::of::<Scheme>())),
    f("rules[0].limit", "First rule: limit", Unit::PerSpan, "Messages (or bytes) allowed per span.", num(1.0, 1000.0, 1.0)),
    f("rules[0].span_s", "First rule: span", Unit::Seconds, "The span the limit counts over.", num(0.01, 60.0, 0.01)),
    f("rules", "All rules", Unit::Json, "Every rule must allow a message: [{\"scheme\", \"limit\", \"span_s\", \"burst\"}].", Control::Json),
    f("unit", "Counts", Unit::None, "What the limits count.", Control::Choice(Menu::or_default::<RateUnit>())),
    f("on_excess", "Over the limit", Unit::None, "Hold the message until a rule allows it, or drop it (rate_limited).", Control::Choice(Menu::or_default::<OnExcess>())),
];

const CONCURRENCY_LIMITER: &[Field] = &[f(
    "max_in_flight",
    "In flight",
    Unit::Messages,
    "Messages passed and not yet processed or dropped, at most.",
    whole(1.0, 64.0, 1.0),
)];

const NGINX: &[&str] = &["nginx_limit_req"];
const GO: &[&str] = &["go_rate"];
const HAPROXY: &[&str] = &["haproxy_http_req_rate"];
const ENVOY: &[&str] = &["envoy_local_rate_limit"];
const NGINX_CONN: &[&str] = &["nginx_limit_conn"];
const HAPROXY_SERVER: &[&str] = &["haproxy_server"];
const ENVOY_BREAKER: &[&str] = &["envoy_circuit_breaker"];
const TOWER: &[&str] = &["tower"];
const NETFLIX: &[&str] = &["netflix_aimd", "netflix_vegas", "netflix_gradient2"];
const NETFLIX_AIMD: &[&str] = &["netflix_aimd"];
const NETFLIX_VEGAS: &[&str] = &["netflix_vegas"];
const NETFLIX_GRADIENT2: &[&str] = &["netflix_gradient2"];
const NETFLIX_FLOORED: &[&str] = &["netflix_aimd", "netflix_gradient2"];
const NETFLIX_SMOOTHED: &[&str] = &["netflix_vegas", "netflix_gradient2"];
const ENVOY_ADAPTIVE: &[&str] = &["envoy_adaptive_concurrency"];
const RESILIENCE4J: &[&str] = &["resilience4j_circuit_breaker"];

const PRODUCT_LIMITER: &[Field] = &[
    f("product", "Product", Unit::None, "Whose limiter it is: it decides as that product's own code does.", Control::Product),
    f("rate", "Rate", Unit::Requests, "limit_req_zone's rate=: this many requests per second or per minute.", whole(1.0, 100.0, 1.0)).shown_if("product", NGINX),
    f("per", "Per", Unit::None, "rate=Nr/s or rate=Nr/m (nginx keeps 1000/60 of a request a second per r/m, rounded down).", Control::Choice(Menu::or_default::<Per>())).shown_if("product", NGINX),
    f("burst", "Burst", Unit::Requests, "burst=: requests beyond the rate it takes (burst + 1 back to back); more are refused.", whole(0.0, 100.0, 1.0)).shown_if("product", NGINX),
    f("nodelay", "No delay", Unit::None, "nodelay: what the burst takes goes at once rather than at the rate.", Control::Toggle).shown_if("product", NGINX),
    f("delay", "Delay after", Unit::Requests, "delay=: of a burst, this many go at once and the rest wait (0: all wait).", whole(0.0, 100.0, 1.0)).shown_if("product", NGINX),
    f("status", "Refusal status", Unit::Status, "limit_req_status: what a refused request is answered.", whole(400.0, 599.0, 1.0)).shown_if("product", NGINX),
    f("dry_run", "Dry run", Unit::None, "limit_req_dry_run: decide and count, but refuse and delay nothing.", Control::Toggle).shown_if("product", NGINX),
    f("zone_bytes", "Zone size", Unit::Bytes, "The zone=name:size: about 8,100 keys a MiB; when full, the least recently used key is forgotten.", num(32768.0, 10_485_760.0, 32768.0)).shown_if("product", NGINX),
    f("key", "Key", Unit::None, "What the zone keys on, as the configuration writes it ($binary_remote_addr); the run keys on each message's key.", Control::Text).shown_if("product", NGINX),
    f("limit", "Limit", Unit::RequestsPerSecond, "rate.Limit: tokens added a second, one taken per request.", num(0.0, 100.0, 0.5)).shown_if("product", GO),
    f("burst", "Burst", Unit::Requests, "The bucket's size: requests granted back to back from full (burst, not burst + 1).", whole(0.0, 100.0, 1.0)).shown_if("product", GO),
    f("call", "Call", Unit::None, "What the handler calls for each request: Allow refuses, Wait and Reserve make it wait.", Control::Choice(Menu::or_default::<GoCall>())).shown_if("product", GO),
    f("timeout_s", "Wait's deadline", Unit::Seconds, "Wait's context deadline after the call: a wait longer than this is refused at once (empty: none).", OPTIONAL).shown_if("call", &["wait"]),
    f("per_key", "Per key", Unit::None, "One limiter per message key (a map of limiters) rather than one for all.", Control::Toggle).shown_if("product", GO),
    f("status", "Refusal status", Unit::Status, "What the handler answers a refused request.", whole(400.0, 599.0, 1.0)).shown_if("product", GO),
    f("limit", "Deny above", Unit::Requests, "deny if { sc_http_req_rate(0) gt L }: the request that makes the estimate exceed L is denied (and still counted).", whole(0.0, 1000.0, 1.0)).shown_if("product", HAPROXY),
    f("period_s", "Period", Unit::Seconds, "http_req_rate(P): requests are counted per period, the previous one weighing what of it is still within the last P.", num(0.01, 60.0, 0.001)).shown_if("product", HAPROXY),
    f("status", "Refusal status", Unit::Status, "deny_status: what a denied request is answered (403 unless set).", whole(200.0, 599.0, 1.0)).shown_if("product", HAPROXY),
    f("size", "Table size", Unit::Keys, "The stick table's size: a new key in a full table forgets the size/256 + 1 least recently used.", whole(1.0, 1_000_000.0, 1.0)).shown_if("product", HAPROXY),
    f("expire_s", "Expire", Unit::Seconds, "An entry is forgotten this long after its last request.", num(0.01, 600.0, 0.001)).shown_if("product", HAPROXY),
    f("key", "Tracked key", Unit::None, "What track-sc0 tracks, as the configuration writes it (src, req.hdr(x-client)); the run keys on each message's key.", Control::Text).shown_if("product", HAPROXY),
    f("max_tokens", "Max tokens", Unit::Requests, "token_bucket.max_tokens: the bucket's size, full at the start.", whole(1.0, 100.0, 1.0)).shown_if("product", ENVOY),
    f("tokens_per_fill", "Tokens per fill", Unit::Requests, "token_bucket.tokens_per_fill (1 unless set).", whole(1.0, 100.0, 1.0)).shown_if("product", ENVOY),
    f("fill_interval_s", "Fill interval", Unit::Seconds, "token_bucket.fill_interval: at least 50 ms.", num(0.05, 10.0, 0.05)).shown_if("product", ENVOY),
    f("bucket", "Bucket", Unit::None, "Envoy 1.30 and earlier refill on a timer, whole fills at each tick; 1.31 and later continuously.", Control::Choice(Menu::or_default::<Bucket>())).shown_if("product", ENVOY),
    f("enabled_percent", "Enabled for", Unit::None, "filter_enabled, percent of requests (unset in Envoy: 0, the filter does nothing).", num(0.0, 100.0, 1.0)).shown_if("product", ENVOY),
    f("enforced_percent", "Enforced for", Unit::None, "filter_enforced, percent of requests (unset: 0, nothing refused: shadow mode).", num(0.0, 100.0, 1.0)).shown_if("product", ENVOY),
    f("status", "Refusal status", Unit::Status, "status.code: 429 unless set (a code below 400 is sent as 429).", whole(400.0, 599.0, 1.0)).shown_if("product", ENVOY),
    f("conn", "At once per key", Unit::Requests, "limit_conn zone N: requests of one key in progress at once; one more is refused (nothing waits).", whole(1.0, 100.0, 1.0)).shown_if("product", NGINX_CONN),
    f("status", "Refusal status", Unit::Status, "limit_conn_status: what a refused request is answered.", whole(400.0, 599.0, 1.0)).shown_if("product", NGINX_CONN),
    f("dry_run", "Dry run", Unit::None, "limit_conn_dry_run: decide, but refuse nothing (what it would refuse is not counted).", Control::Toggle).shown_if("product", NGINX_CONN),
    f("zone_bytes", "Zone size", Unit::Bytes, "The zone=name:size: about 16,000 keys a MiB; when full, a new key is refused.", num(32768.0, 10_485_760.0, 32768.0)).shown_if("product", NGINX_CONN),
    f("key", "Key", Unit::None, "What limit_conn_zone keys on, as the configuration writes it ($binary_remote_addr); the run keys on each message's key.", Control::Text).shown_if("product", NGINX_CONN),
    f("maxconn", "maxconn", Unit::Requests, "server ... maxconn: requests served at once; the next ones wait (0: no limit).", whole(0.0, 100.0, 1.0)).shown_if("product", HAPROXY_SERVER),
    f("maxqueue", "maxqueue", Unit::Requests, "server ... maxqueue: requests waiting for this server; one more is refused with 503 (0: no bound). Only with balance hash.", whole(0.0, 100.0, 1.0)).shown_if("product", HAPROXY_SERVER),
    f("timeout_queue_s", "timeout queue", Unit::Seconds, "A request that waited this long is refused with 503 (empty: it waits as long as it takes).", OPTIONAL).shown_if("product", HAPROXY_SERVER),
    f("balance", "balance", Unit::None, "roundrobin (the default) skips a full server and queues in the backend, where maxqueue does not count; hash queues at the server.", Control::Choice(Menu::or_default::<Balance>())).shown_if("product", HAPROXY_SERVER),
    f("max_connections", "max_connections", Unit::Requests, "Connections open to the upstream (HTTP/1.1: requests at once; the first one opens even at 0).", whole(0.0, 100.0, 1.0)).shown_if("product", ENVOY_BREAKER),
    f("max_pending_requests", "max_pending_requests", Unit::Requests, "Requests waiting for a connection; one more is refused with 503 (0: a request that needs a new connection is refused).", whole(0.0, 100.0, 1.0)).shown_if("product", ENVOY_BREAKER),
    f("max_requests", "max_requests", Unit::Requests, "Requests in progress upstream; one more is refused with 503 as it reaches a connection.", whole(0.0, 100.0, 1.0)).shown_if("product", ENVOY_BREAKER),
    f("protocol", "Upstream protocol", Unit::None, "HTTP/1.1 queues for connections; HTTP/2 puts every request on one, so only max_requests counts.", Control::Choice(Menu::or_default::<Protocol>())).shown_if("product", ENVOY_BREAKER),
    f("timeout_s", "Route timeout", Unit::Seconds, "The route's timeout: a request waiting that long for a connection is refused with 504 (0: none).", num(0.0, 60.0, 0.5)).shown_if("product", ENVOY_BREAKER),
    f("layers", "Layers", Unit::Json, "[{\"layer\": \"load_shed\"}, {\"layer\": \"buffer\", \"bound\"}, {\"layer\": \"concurrency_limit\", \"max\"}, {\"layer\": \"rate_limit\", \"num\", \"per_s\"}], outermost first as ServiceBuilder adds them. Only load_shed refuses, and only directly above what would wait.", Control::Json).shown_if("product", TOWER),
    f("status", "Refusal status", Unit::Status, "What the handler answers a request load_shed refused (Overloaded).", whole(400.0, 599.0, 1.0)).shown_if("product", TOWER),
    f("initial_limit", "Initial limit", Unit::Requests, "initialLimit: requests in flight at once until the first sample moves it; one more is refused (nothing waits).", whole(1.0, 200.0, 1.0)).shown_if("product", NETFLIX),
    f("min_limit", "Least limit", Unit::Requests, "minLimit: the limit never goes below it.", whole(1.0, 200.0, 1.0)).shown_if("product", NETFLIX_FLOORED),
    f("max_limit", "Greatest limit", Unit::Requests, "maxLimit: the limit never goes above it.", whole(1.0, 1000.0, 1.0)).shown_if("product", NETFLIX_AIMD),
    f("backoff_ratio", "Back-off ratio", Unit::None, "backoffRatio: after a drop, or a round trip over the time-out, the limit is multiplied by it (0.5 to below 1).", num(0.5, 0.99, 0.01)).shown_if("product", NETFLIX_AIMD),
    f("timeout_s", "Time-out", Unit::Seconds, "timeout: a round trip longer than this counts as a drop.", num(0.001, 10.0, 0.001)).shown_if("product", NETFLIX_AIMD),
    f("max_concurrency", "Greatest limit", Unit::Requests, "maxConcurrency: the limit never goes above it.", whole(1.0, 1000.0, 1.0)).shown_if("product", NETFLIX_SMOOTHED),
    f("smoothing", "Smoothing", Unit::None, "smoothing: how much of the new estimate the limit takes at each sample (1: all of it).", num(0.01, 1.0, 0.01)).shown_if("product", NETFLIX_SMOOTHED),
    f("probe_multiplier", "Probe multiplier", Unit::None, "probeMultiplier: the no-load round trip is measured afresh after 0.5 to 1 times this times the limit samples.", whole(1.0, 100.0, 1.0)).shown_if("product", NETFLIX_VEGAS),
    f("alpha", "Alpha", Unit::Requests, "alpha(int): below this many queued the limit grows (empty: 3 x log10 of the limit).", OPTIONAL).shown_if("product", NETFLIX_VEGAS),
    f("beta", "Beta", Unit::Requests, "beta(int): above this many queued the limit shrinks (empty: 6 x log10 of the limit).", OPTIONAL).shown_if("product", NETFLIX_VEGAS),
    f("queue_size", "Queue allowance", Unit::Requests, "queueSize: added to the limit times the gradient at each sample.", whole(0.0, 50.0, 1.0)).shown_if("product", NETFLIX_GRADIENT2),
    f("long_window", "Long window", Unit::None, "longWindow: samples the long average of round trips spans (its warm-up is the first 10).", whole(10.0, 2000.0, 10.0)).shown_if("product", NETFLIX_GRADIENT2),
    f("rtt_tolerance", "Round-trip tolerance", Unit::None, "rttTolerance: how much above the long average a round trip may be before the limit shrinks (1.5: 50 %).", num(1.0, 5.0, 0.1)).shown_if("product", NETFLIX_GRADIENT2),
    f("concurrency_update_interval_s", "Update interval", Unit::Seconds, "concurrency_update_interval: every this long the percentile of the latencies since becomes the sample RTT and the limit is worked out again.", num(0.001, 2.0, 0.001)).shown_if("product", ENVOY_ADAPTIVE),
    f("sample_aggregate_percentile", "Percentile", Unit::None, "sample_aggregate_percentile: which percentile of the latencies is the sample RTT, and minRTT (50: the median).", num(0.0, 100.0, 1.0)).shown_if("product", ENVOY_ADAPTIVE),
    f("max_concurrency_limit", "Greatest limit", Unit::Requests, "max_concurrency_limit: the limit never goes above it.", whole(1.0, 1000.0, 1.0)).shown_if("product", ENVOY_ADAPTIVE),
    f("min_rtt_interval_s", "minRTT every", Unit::Seconds, "min_rtt_calc_params.interval: how often minRTT is measured again, the limit pinned to the least meanwhile (empty: with a fixed minRTT only).", OPTIONAL).shown_if("product", ENVOY_ADAPTIVE),
    f("min_rtt_fixed_s", "Fixed minRTT", Unit::Seconds, "min_rtt_calc_params.fixed_value: minRTT set, never measured (empty: measured).", OPTIONAL).shown_if("product", ENVOY_ADAPTIVE),
    f("min_rtt_request_count", "minRTT samples", Unit::Requests, "request_count: the requests a minRTT measurement takes.", whole(1.0, 500.0, 1.0)).shown_if("product", ENVOY_ADAPTIVE),
    f("min_rtt_jitter_percent", "minRTT jitter", Unit::None, "jitter: each next measurement comes up to this percentage of the interval later, at random.", num(0.0, 100.0, 1.0)).shown_if("product", ENVOY_ADAPTIVE),
    f("min_concurrency", "Least limit", Unit::Requests, "min_concurrency: the limit while minRTT is measured, and never below it.", whole(1.0, 100.0, 1.0)).shown_if("product", ENVOY_ADAPTIVE),
    f("min_rtt_buffer_percent", "minRTT buffer", Unit::None, "buffer: how far above minRTT latencies may go, as a percentage, before the limit shrinks.", num(0.0, 100.0, 1.0)).shown_if("product", ENVOY_ADAPTIVE),
    f("status", "Refusal status", Unit::Status, "concurrency_limit_exceeded_status: 503 unless set.", whole(400.0, 599.0, 1.0)).shown_if("product", ENVOY_ADAPTIVE),
    f("failure_rate_threshold", "Failure rate threshold", Unit::Percent, "failureRateThreshold: once the window holds its minimum of calls, this share failed or more opens the breaker (a call dropped further on, or given up at its client's time-out, failed).", num(1.0, 100.0, 1.0)).shown_if("product", RESILIENCE4J),
    f("sliding_window_type", "Window counts", Unit::None, "slidingWindowType: the last calls, or the calls of the last seconds.", Control::Choice(Menu::or_default::<SlidingWindowType>())).shown_if("product", RESILIENCE4J),
    f("sliding_window_size", "Window size", Unit::None, "slidingWindowSize: calls (COUNT_BASED) or seconds (TIME_BASED) the rates are taken over.", whole(1.0, 500.0, 1.0)).shown_if("product", RESILIENCE4J),
    f("minimum_number_of_calls", "Minimum of calls", Unit::Requests, "minimumNumberOfCalls: no rate is judged before the window holds this many (a count window: at most its size).", whole(1.0, 500.0, 1.0)).shown_if("product", RESILIENCE4J),
    f("wait_duration_in_open_state_s", "Open for", Unit::Seconds, "waitDurationInOpenState: every call is refused this long; then the next call turns it half-open.", num(0.001, 120.0, 0.5)).shown_if("product", RESILIENCE4J),
    f("automatic_transition_from_open_to_half_open_enabled", "Half-open by itself", Unit::None, "automaticTransitionFromOpenToHalfOpenEnabled: turn half-open when the wait is over, without waiting for a call.", Control::Toggle).shown_if("product", RESILIENCE4J),
    f("permitted_number_of_calls_in_half_open_state", "Trial calls", Unit::Requests, "permittedNumberOfCallsInHalfOpenState: calls let through half-open; their failure rate closes the breaker or opens it again.", whole(1.0, 100.0, 1.0)).shown_if("product", RESILIENCE4J),
    f("max_wait_duration_in_half_open_state_s", "Half-open for at most", Unit::Seconds, "maxWaitDurationInHalfOpenState: half-open this long undecided, it goes to the state below (0: waits for its trial calls).", num(0.0, 120.0, 0.5)).shown_if("product", RESILIENCE4J),
    f("transition_to_state_after_wait_duration", "Then", Unit::None, "transitionToStateAfterWaitDuration: where a half-open wait that ran out goes.", Control::Choice(Menu::or_default::<AfterWait>())).shown_if("product", RESILIENCE4J),
    f("slow_call_duration_threshold_s", "Slow call after", Unit::Seconds, "slowCallDurationThreshold: a call longer than this, from its permission to its outcome, is slow.", num(0.001, 120.0, 0.1)).shown_if("product", RESILIENCE4J),
    f("slow_call_rate_threshold", "Slow call rate threshold", Unit::Percent, "slowCallRateThreshold: this share of slow calls or more opens the breaker too.", num(1.0, 100.0, 1.0)).shown_if("product", RESILIENCE4J),
    f("window", "Window", Unit::Json, "WindowedLimit: {\"min_window_s\", \"max_window_s\", \"min_rtt_threshold_s\", \"window_size\", \"percentile\", \"capacity\"}: the limit hears one sample per window, the mean (or percentile) of its round trips (empty: every sample).", Control::Json).shown_if("product", NETFLIX),
];

const RESOURCE_POOL: &[Field] = &[
    f("max_total", "Total at most", Unit::Resources, "Idle, lent and being created together.", whole(1.0, 64.0, 1.0)),
    f("min_total", "Total at least", Unit::Resources, "Resources kept at least.", whole(0.0, 64.0, 1.0)),
    f("min_spare", "Spare at least", Unit::Resources, "Idle (or being created) resources kept ready, room allowing.", whole(0.0, 64.0, 1.0)),
    f("max_spare", "Spare at most", Unit::Resources, "A returned resource beyond this many idle ones is destroyed (empty: no bound).", Control::Optional { none_is: Some(4_294_967_295.0) }),
    f("create_s", "Creation time", Unit::Seconds, "Seconds to create one resource.", num(0.0, 5.0, 0.01)),
];

const LINK: &[Field] = &[
    f("bandwidth_bytes_per_s", "Bandwidth", Unit::BytesPerSecond, "Bytes per second on the wire (0: no limit).", num(0.0, 2_000_000.0, 1000.0)),
    f("latency_s", "Latency", Unit::Seconds, "From leaving the wire to reaching the far end.", num(0.0, 1.0, 0.001)),
    f("buffer.bytes", "Send buffer", Unit::Bytes, "A message that does not fit is refused: the sender's \"would block\".", whole(0.0, 1_048_576.0, 1024.0)),
    f("buffer.messages", "Send buffer", Unit::Messages, "The same bound in messages (0: none).", whole(0.0, 1000.0, 1.0)),
    f("receive_buffer.bytes", "Receive window", Unit::Bytes, "The far end's receive buffer: what was sent and not yet read. Full, the link stops sending and its send buffer fills (0: no bound).", whole(0.0, 1_048_576.0, 1024.0)),
    f("receive_buffer.messages", "Receive window", Unit::Messages, "The same bound in messages (0: none).", whole(0.0, 1000.0, 1.0)),
    f("down", "Down periods", Unit::Json, "[{\"from_s\", \"to_s\"}]: what is on the wire is lost, sending stops.", Control::Json),
];

const DISPATCHER: &[Field] = &[
    f("workers", "Workers", Unit::AtOnce, "Demands served at once; one agent runs one at a time.", whole(1.0, 32.0, 1.0)),
    f("service_time", "Service time", Unit::Seconds, "Time per demand.", Control::Distribution),
    f("queues", "Demand queues", Unit::None, "Which queue a message joins.", Control::Choice(Menu::or_default::<QueueKey>())),
    f("discipline", "Discipline", Unit::None, "How a free worker picks the next demand.", Control::Choice(Menu::or_default::<Discipline>())),
    f("agents", "Agents", Unit::None, "Whose demand a message is: one agent never runs two at once, whatever the workers.", Control::Choice(Menu::or_default::<Agents>()))
    .shown_if("discipline", &["round_robin", "priority"]),
    f("iteration", "Iteration", Unit::None, "Serve what was queued when the iteration began, or everything.", Control::Choice(Menu::or_default::<Iteration>()))
    .shown_if("discipline", &["event_loop"]),
    f("register_once", "Register once", Unit::None, "A task scheduled again while it still waits joins the waiting run (merged) instead of queueing twice.", Control::Toggle)
        .shown_if("discipline", &["round_robin", "priority", "event_loop", "alternate"]),
    f("queue_priorities", "Queue priorities", Unit::Json, "{\"queue name\": number}. Lower numbers are served first (the reverse of SObjectizer's agent priorities, where higher wins).", Control::Json).shown_if("discipline", &["priority"]),
    f("order", "Order inside a queue", Unit::None, "Which demand of one queue goes first.", Control::Choice(Menu::or_default::<Order>())),
    f("message_priorities", "Message priorities", Unit::Json, "[{\"class\", \"destination\", \"source\" (any of the three), \"priority\"}]. Lower numbers are served first (SObjectizer's article gives the urgent message the higher number).", Control::Json)
        .shown_if("order", &["priority"]),
    f("capacity", "Capacity", Unit::Demands, "The most one demand queue holds (0: no bound).", whole(0.0, 1000.0, 1.0)),
    f("on_full", "When full", Unit::None, "A demand that does not fit.", Control::Choice(Menu::or_default::<DemandOnFull>())),
    f("ttl_s", "Time to live", Unit::Seconds, "A demand that waited this long is skipped when a worker reaches it (empty: never).", OPTIONAL),
    f("windows", "Windows per class", Unit::Json, "{\"class\": messages in flight to one host}.", Control::Json).shown_if("discipline", &["netsendq"]),
    f("one_shot", "One-shot classes", Unit::Json, "[\"class\"]: go to the head of the ready queue.", Control::Json).shown_if("discipline", &["netsendq"]),
    f("queueable_if_down", "Queueable if down", Unit::Json, "[\"class\"]: kept while their host is down.", Control::Json)
        .shown_if("discipline", &["netsendq"]),
    f("hosts_down", "Hosts down", Unit::Json, "[{\"host\", \"from_s\", \"to_s\"}].", Control::Json).shown_if("discipline", &["netsendq"]),
];

/// The fields of a block kind, in the order the inspector shows them.
pub fn fields(kind: Kind) -> &'static [Field] {
    match kind {
        Kind::Producer => PRODUCER,
        Kind::Queue => QUEUE,
        Kind::Consumer => CONSUMER,
        Kind::Router => ROUTER,
        Kind::Window => WINDOW,
        Kind::Credit => CREDIT,
        Kind::RateLimiter => RATE_LIMITER,
        Kind::ConcurrencyLimiter => CONCURRENCY_LIMITER,
        Kind::ResourcePool => RESOURCE_POOL,
        Kind::ProductLimiter => PRODUCT_LIMITER,
        Kind::Link => LINK,
        Kind::Dispatcher => DISPATCHER,
    }
}

/// A parameter inside a distribution or an arrival process.
#[derive(Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub label: &'static str,
    pub unit: Unit,
    pub help: &'static str,
    pub control: Control,
    /// Its slider's range follows the value (a distribution's seconds or
    /// bytes, whose scale only the value tells), rather than `control`'s.
    pub scales: bool,
}

const fn p(name: &'static str, label: &'static str, unit: Unit, help: &'static str, control: Control) -> Param {
    Param { name, label, unit, help, control, scales: false }
}

/// A distribution's parameter: its slider scales with its value.
const fn d(name: &'static str, label: &'static str, unit: Unit, help: &'static str, control: Control) -> Param {
    Param { name, label, unit, help, control, scales: true }
}

/// The parameters of `dist`'s kind. `unit` is the unit of the quantity
/// drawn (seconds, bytes).
pub fn distribution_params(dist: &Distribution) -> &'static [Param] {
    const FIXED: &[Param] = &[d("value", "Value", Unit::None, "Always this.", num(0.0, 1.0, 0.001))];
    const EXPONENTIAL: &[Param] = &[d("mean", "Mean", Unit::None, "The average; exponential, so memoryless.", num(0.0, 1.0, 0.001))];
    const UNIFORM: &[Param] = &[
        d("min", "Least", Unit::None, "Draws lie between the least and the most.", num(0.0, 1.0, 0.001)),
        d("max", "Most", Unit::None, "", num(0.0, 2.0, 0.001)),
    ];
    const LOG_NORMAL: &[Param] = &[
        d("mean", "Mean", Unit::None, "The average.", num(0.0, 1.0, 0.001)),
        d("cv", "Spread (CV)", Unit::Ratio, "Standard deviation over mean: the longer the tail, the higher.", num(0.0, 5.0, 0.05)),
    ];
    const MIX: &[Param] = &[
        p("p", "Share of the first mode", Unit::Share, "With this probability a draw from the first, otherwise from the second.", num(0.0, 1.0, 0.01)),
        p("a", "First mode", Unit::Json, "A distribution.", Control::Json),
        p("b", "Second mode", Unit::Json, "A distribution.", Control::Json),
    ];
    match dist {
        Distribution::Fixed { .. } => FIXED,
        Distribution::Exponential { .. } => EXPONENTIAL,
        Distribution::Uniform { .. } => UNIFORM,
        Distribution::LogNormal { .. } => LOG_NORMAL,
        Distribution::Mix { .. } => MIX,
    }
}

/// Every kind of distribution, as a working example with the mean `mean`,
/// and its words: the inspector's menu, and what choosing one sets.
pub fn distribution_examples(mean: f64) -> Vec<(Distribution, &'static str)> {
    vec![
        (Distribution::Fixed { value: mean }, "fixed"),
        (Distribution::Exponential { mean }, "exponential"),
        (Distribution::Uniform { min: 0.0, max: 2.0 * mean }, "uniform"),
        (Distribution::LogNormal { mean, cv: 1.0 }, "log-normal (long tail)"),
        // A fast mode most of the time and a slow one now and then, with
        // the same mean: 0.9 × m/2 + 0.1 × 5.5 m = m.
        (
            Distribution::Mix {
                p: 0.9,
                a: Box::new(Distribution::Fixed { value: mean / 2.0 }),
                b: Box::new(Distribution::Exponential { mean: 5.5 * mean }),
            },
            "two modes",
        ),
    ]
}

/// Every kind of arrival process, as a working example at about `rate`
/// messages a second, and its words.
pub fn arrival_examples(rate: f64) -> Vec<(Arrivals, &'static str)> {
    vec![
        (Arrivals::Poisson { rate_per_s: rate }, "Poisson (random gaps)"),
        (Arrivals::Constant { rate_per_s: rate }, "constant (even gaps)"),
        (Arrivals::OnOff { rate_per_s: 2.0 * rate, on_s: 1.0, off_s: 1.0 }, "on/off bursts"),
        (Arrivals::Bursts { size: 10, every_s: 10.0 / rate }, "bursts at once"),
        (Arrivals::Ramp { from_per_s: 0.0, to_per_s: rate, over_s: 10.0 }, "ramp"),
        (Arrivals::trace(vec![0.1, 0.2, 0.3, 1.0, 1.05, 2.0]), "scripted trace"),
        (Arrivals::ClosedLoop { clients: 4, think: Distribution::Exponential { mean: 4.0 / rate } }, "closed loop (clients)"),
    ]
}

/// A tagged field (a distribution, an arrival process) as its menu shows
/// it: the kind it holds, every kind with its words, what choosing each one
/// sets (a working example, as JSON), and the parameters of the kind held.
#[derive(Clone, Default)]
pub struct Kinds {
    /// The name of the kind held (none when the value does not read).
    pub current: String,
    pub menu: Vec<(String, &'static str)>,
    /// In the order of `menu`.
    pub examples: Vec<serde_json::Value>,
    pub params: &'static [Param],
}

/// The kinds for a field holding `value`, read as `read` when it reads
/// whole. A value that names its kind (`tag`) without reading whole (a
/// long trace whose lists the inspector shows in words) keeps its kind
/// and that kind's parameters.
fn kinds<T: serde::Serialize>(value: Option<&serde_json::Value>, tag: &str, read: Option<&T>, examples: Vec<(T, &'static str)>, params: fn(&T) -> &'static [Param]) -> Kinds {
    let kind_name = super::choices::kind_name;
    let named = || value.and_then(|v| v.get(tag)?.as_str()).map(str::to_string);
    let current = read.map(kind_name).or_else(named).unwrap_or_default();
    let params = match read {
        Some(read) => params(read),
        None => examples.iter().find(|(example, _)| kind_name(example) == current).map_or(&[][..], |(example, _)| params(example)),
    };
    Kinds {
        current,
        menu: examples.iter().map(|(example, label)| (kind_name(example), *label)).collect(),
        examples: examples.iter().map(|(example, _)| crate::plumbing::json_read::to_value(example)).collect(),
        params,
    }
}

/// The kinds of distribution for a field holding `value`: the examples
/// keep its mean.
pub fn distribution_kinds(value: Option<&serde_json::Value>) -> Kinds {
    let read: Option<Distribution> = value.and_then(|v| crate::plumbing::json_read::from_value(v).ok());
    let mean = read.as_ref().map(Distribution::mean).filter(|m| m.is_finite() && *m > 0.0).unwrap_or(1.0);
    kinds(value, "dist", read.as_ref(), distribution_examples(mean), distribution_params)
}

/// The kinds of arrival process for a field holding `value`: the examples
/// keep its rate.
pub fn arrival_kinds(value: Option<&serde_json::Value>) -> Kinds {
    let read: Option<Arrivals> = value.and_then(|v| crate::plumbing::json_read::from_value(v).ok());
    let rate = read.as_ref().and_then(Arrivals::rate_per_s).filter(|r| r.is_finite() && *r > 0.0).unwrap_or(10.0);
    kinds(value, "process", read.as_ref(), arrival_examples(rate), process_params)
}

/// The parameters of `arrivals`' kind of process.
pub fn process_params(arrivals: &Arrivals) -> &'static [Param] {
    const RATE: Param = p("rate_per_s", "Rate", Unit::MessagesPerSecond, "How many messages per second, on average.", num(0.1, 2000.0, 0.1));
    const STEADY: &[Param] = &[RATE];
    const ON_OFF: &[Param] = &[
        RATE,
        p("on_s", "On for", Unit::Seconds, "Sending at the rate for this long…", num(0.01, 10.0, 0.01)),
        p("off_s", "Off for", Unit::Seconds, "…then silent for this long, repeating.", num(0.0, 10.0, 0.01)),
    ];
    const RAMP: &[Param] = &[
        p("from_per_s", "From", Unit::MessagesPerSecond, "The rate at time zero.", num(0.0, 2000.0, 0.1)),
        p("to_per_s", "To", Unit::MessagesPerSecond, "The rate reached at the end of the ramp, and kept.", num(0.0, 2000.0, 0.1)),
        p("over_s", "Over", Unit::Seconds, "How long the ramp lasts.", num(0.1, 600.0, 0.1)),
    ];
    const BURSTS: &[Param] = &[
        p("size", "Burst", Unit::Messages, "Messages sent at the same instant, back to back…", whole(1.0, 100.0, 1.0)),
        p("every_s", "Every", Unit::Seconds, "…every this many seconds (the first after one period).", num(0.01, 10.0, 0.01)),
    ];
    const TRACE: &[Param] = &[
        p("times_s", "Instants", Unit::Json, "[seconds, …]: one message at each, in order.", Control::Json),
        p("keys", "Keys", Unit::Json, "[text, …]: each message's key (a client, a path: what a keyed limiter counts by), \"\" for none; or none at all.", Control::Json),
        p("service_s", "Service times", Unit::Json, "[seconds, …]: how long each message's request took (a log's durations); or none.", Control::Json),
        p("service_times", "Served for", Unit::None, "What the consumers take to serve these messages: their own service time, each request's time from the log, or one drawn from the log's times.", Control::Choice(Menu::or_default::<ServiceTimes>())),
    ];
    const CLOSED: &[Param] = &[
        p("clients", "Clients", Unit::None, "Requests outstanding: each client waits for its reply, thinks, sends again.", whole(1.0, 200.0, 1.0)),
        p("think", "Think time", Unit::Seconds, "Between a reply and the client's next request.", Control::Distribution),
    ];
    match arrivals {
        Arrivals::Constant { .. } | Arrivals::Poisson { .. } => STEADY,
        Arrivals::OnOff { .. } => ON_OFF,
        Arrivals::Ramp { .. } => RAMP,
        Arrivals::Bursts { .. } => BURSTS,
        Arrivals::Trace { .. } => TRACE,
        Arrivals::ClosedLoop { .. } => CLOSED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::default_block;

    /// Every path of the table is written in the one form.
    #[test]
    fn every_path_is_written_in_the_one_form() {
        for kind in Kind::ALL {
            for field in fields(kind) {
                let path = field.path();
                assert_eq!(FieldPath::parse(path.as_str()).unwrap(), path, "{kind} {path}");
                if let Some((when, _)) = field.when() {
                    assert_eq!(FieldPath::parse(when.as_str()).unwrap(), when);
                }
            }
        }
    }

    #[test]
    fn every_kind_has_fields_and_every_choice_parses() {
        let products = crate::scenario::choices::product_examples().into_iter().map(|(p, _)| crate::scenario::BlockSpec::ProductLimiter(p));
        let blocks: Vec<crate::scenario::BlockSpec> = Kind::ALL.iter().map(|&k| default_block(k)).chain(products).collect();
        for kind in Kind::ALL {
            assert!(!fields(kind).is_empty(), "{kind} has no fields");
        }
        for spec in blocks {
            let kind = spec.kind();
            let block = crate::plumbing::json_read::to_value(&spec);
            for field in fields(kind).iter().filter(|f| f.shown_in(&block)) {
                if let Control::Choice(menu) = field.control {
                    for (value, _) in menu.entries() {
                        let mut v = block.clone();
                        if crate::scenario::set_at(&mut v, &field.path(), Some(serde_json::Value::from(value.clone()))).is_err() {
                            continue; // a list item the default lacks
                        }
                        let parsed: Result<crate::scenario::BlockSpec, _> = crate::plumbing::json_read::from_value(&v);
                        assert!(parsed.is_ok(), "{kind} {} = {value}: {:?}", field.path(), parsed.err());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod defaults {
    use super::*;
    use crate::scenario::default_block;

    /// A menu's field that a block's file leaves out shows the choice the
    /// block holds: written back, it changes nothing.
    #[test]
    fn a_choice_left_out_of_the_file_shows_what_the_block_holds() {
        let mut blocks: Vec<crate::scenario::BlockSpec> = Kind::ALL.iter().map(|&k| default_block(k)).collect();
        blocks.extend(crate::scenario::choices::product_examples().into_iter().map(|(p, _)| crate::scenario::BlockSpec::ProductLimiter(p)));
        let every = crate::scenario::Scenario::from_json(include_str!("../../../scenarios/every-block.json")).unwrap();
        blocks.extend(every.nodes.into_iter().map(|n| n.block));
        let mut left_out = 0;
        for block in blocks {
            let doc = crate::plumbing::json_read::to_value(&block);
            for field in fields(block.kind()).iter().filter(|f| f.shown_in(&doc)) {
                let Control::Choice(menu) = field.control else { continue };
                if doc.pointer(&field.path().pointer()).is_some() {
                    continue;
                }
                let shown = menu.default().unwrap_or_else(|| panic!("{} {}: left out, with no default to show", block.kind(), field.path()));
                let written = block.with_value(&field.path(), serde_json::Value::String(shown.clone())).unwrap();
                assert_eq!(written, block, "{} {} = {shown}", block.kind(), field.path());
                left_out += 1;
            }
        }
        assert!(left_out >= 2, "{left_out} fields left out");
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    /// Each example of a kind keeps the mean (or rate) it was given, is
    /// valid, and the examples name every kind once, with its parameters.
    #[test]
    fn examples_keep_the_mean_or_rate_and_cover_every_kind() {
        let examples = distribution_examples(0.2);
        let names: Vec<String> = examples.iter().map(|(d, _)| super::super::choices::kind_name(d)).collect();
        assert_eq!(names, ["fixed", "exponential", "uniform", "log_normal", "mix"]);
        for (d, _) in &examples {
            assert!((d.mean() - 0.2).abs() < 1e-9, "{d:?}");
            assert!(!distribution_params(d).is_empty());
        }
        let examples = arrival_examples(20.0);
        let names: Vec<String> = examples.iter().map(|(a, _)| super::super::choices::kind_name(a)).collect();
        assert_eq!(names, ["poisson", "constant", "on_off", "bursts", "ramp", "trace", "closed_loop"]);
        for (a, _) in &examples {
            if let Some(r) = a.rate_per_s() {
                assert!((r - 20.0).abs() < 1e-9, "{a:?}: {r}");
            }
            assert!(!process_params(a).is_empty());
        }
    }
}
