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

use serde_json::{json, Value};

use super::{FieldPath, Kind};

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
    /// One of a few words.
    Choice(&'static [(&'static str, &'static str)]),
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
    pub unit: &'static str,
    pub help: &'static str,
    pub control: Control,
    /// See `when` (set by `shown_if`).
    shown_when: Option<(&'static str, &'static [&'static str])>,
    /// For a choice that decides which other fields the block has: the
    /// whole block for a choice, given the ids of the block's outputs. The
    /// inspector then replaces the block rather than setting one field.
    pub reshape: Option<fn(&str, &[String]) -> Value>,
}

const fn f(path: &'static str, label: &'static str, unit: &'static str, help: &'static str, control: Control) -> Field {
    Field { place: path, label, unit, help, control, shown_when: None, reshape: None }
}

impl Field {
    const fn shown_if(self, path: &'static str, values: &'static [&'static str]) -> Field {
        Field { shown_when: Some((path, values)), ..self }
    }

    const fn reshapes(self, block_for: fn(&str, &[String]) -> Value) -> Field {
        Field { reshape: Some(block_for), ..self }
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
}

const fn num(min: f64, max: f64, step: f64) -> Control {
    Control::Number { min, max, step }
}

const fn whole(min: f64, max: f64, step: f64) -> Control {
    Control::Whole { min, max, step }
}

const OPTIONAL: Control = Control::Optional { none_is: None };

const PRODUCER: &[Field] = &[
    f("arrivals", "Arrivals", "", "When the producer makes messages.", Control::Arrivals),
    f("on_refused", "When refused", "", "What the producer does with a message the next block refuses.", Control::Choice(&[
        ("pause", "hold it and wait to be woken"),
        ("drop", "drop it (counted as refused)"),
        ("retry", "retry after a delay"),
    ])),
    f("retry_after_s", "Retry after", "s", "Time between offers of a refused message.", num(0.001, 5.0, 0.001))
        .shown_if("on_refused", &["retry"]),
    f("backpressure", "When asked to pause", "", "What a queue's soft limit does to this source: a client the server stops reading pauses; a live stream cannot and keeps sending; ping requests read but not answered are dropped (unanswered).", Control::Choice(&[
        ("pause", "pause (a client we stop reading)"),
        ("ignore", "ignore (a live source)"),
        ("drop", "drop (ping requests left unanswered)"),
    ])),
    f("classes", "Message classes", "JSON", "Each: name, weight, size (a distribution of bytes), droppable, priority (0 is served first: lower numbers first, as super-queue counts; SObjectizer's article counts the other way), destination.", Control::Json),
    f("linked_to", "Linked to", "node id", "A consumer this producer is linked to (rotor): it sends nothing until the consumer is operational, and stops for good when it shuts down (empty: not linked).", Control::Text),
];

const QUEUE: &[Field] = &[
    f("soft_limit.messages", "Soft limit", "messages", "At this depth the queue's soft-limit reaction starts (0: no limit).", whole(0.0, 500.0, 1.0)),
    f("hard_limit.messages", "Hard limit", "messages", "At this depth the hard-limit reaction starts (0: no limit).", whole(0.0, 1000.0, 1.0)),
    f("soft_limit.bytes", "Soft limit", "bytes", "The same threshold counted in bytes; whichever is reached first counts.", whole(0.0, 1_048_576.0, 1024.0)),
    f("hard_limit.bytes", "Hard limit", "bytes", "The hard threshold in bytes (0: no limit).", whole(0.0, 2_097_152.0, 1024.0)),
    f("resume_below.messages", "Resume below", "messages", "An extension, not the Moment note's rule: once at the soft limit, stay there until a send leaves fewer than this (0: leave at the first send below the soft limit).", whole(0.0, 500.0, 1.0)),
    f("reactions.overloaded", "When overloaded", "", "The reaction once a write to the socket (a link's send buffer) would block.", Control::Choice(REACTIONS)),
    f("reactions.soft_limit", "At the soft limit", "", "The reaction at the soft limit (and beyond).", Control::Choice(REACTIONS)),
    f("reactions.hard_limit", "At the hard limit", "", "The reaction at the hard limit.", Control::Choice(REACTIONS)),
    f("reconnect_after_s", "Reconnect after", "s", "After a disconnect, a new client connects this much later.", num(0.0, 10.0, 0.1)),
    f("capacity.messages", "Capacity", "messages", "The most the queue holds (0: no bound).", whole(0.0, 1000.0, 1.0)),
    f("capacity.bytes", "Capacity", "bytes", "The most bytes the queue holds (0: no bound).", whole(0.0, 2_097_152.0, 1024.0)),
    f("on_full", "When full", "", "What happens to a message that does not fit (drops count as overflow).", Control::Choice(&[
        ("drop_newest", "drop the newcomer"),
        ("drop_oldest", "drop the oldest"),
        ("drop_droppable_first", "drop droppable ones first"),
        ("refuse", "refuse (the sender holds it)"),
    ])),
    f("order", "Order", "", "Which message leaves first.", Control::Choice(ORDERS)),
    f("message_priorities", "Message priorities", "JSON", "With priority order: [{\"class\", \"destination\", \"source\" (any of the three), \"priority\"}]. Lower numbers are served first (super-queue's order; SObjectizer's article gives the urgent message the higher number).", Control::Json)
        .shown_if("order", &["priority"]),
    f("ttl_s", "Time to live", "s", "A message that waited this long is discarded (empty: never).", OPTIONAL),
];

const REACTIONS: &[(&str, &str)] = &[
    ("none", "none"),
    ("thin", "thin droppable messages"),
    ("pause_input", "pause the producers"),
    ("disconnect", "disconnect the client"),
];

const ORDERS: &[(&str, &str)] = &[("fifo", "first in, first out"), ("lifo", "last in, first out"), ("priority", "by priority, lower number first")];

const CONSUMER: &[Field] = &[
    f("service_time", "Service time", "s", "How long one message takes to serve.", Control::Distribution),
    f("workers", "Workers", "at once", "How many messages the consumer serves in parallel.", whole(1.0, 32.0, 1.0)),
    f("timeout_s", "Time-out", "s", "A service that would take longer is cut off and tried again (empty: none).", OPTIONAL),
    f("max_retries", "Retries", "times", "Retries after a time-out; then the message is dropped (timed_out).", whole(0.0, 10.0, 1.0)),
    f("on_timeout", "On time-out", "", "Where a job cut off by the time-out is tried again.", Control::Choice(&[
        ("retry", "again at once, on the same worker"),
        ("requeue", "cancelled: back to its job queue, through the limiters"),
    ])),
    f("lifecycle.initializing_s", "Ready after", "s", "Initializing until then, refusing work (empty: ready at once).", OPTIONAL),
    f("lifecycle.shutdown_at_s", "Shut down at", "s", "From then on it refuses work, finishes what it holds and stops (empty: never).", OPTIONAL),
    f("lifecycle.init_timeout_s", "Initialization time-out", "s", "Still initializing then, it gives up and shuts down without being operational; its supervisor shuts down too (empty: none).", OPTIONAL),
    f("lifecycle.supervisor", "Supervisor", "node id", "The consumer that owns this one: when it shuts down, so does this one (empty: none).", Control::Text),
    f("slowdowns", "Slow-downs", "JSON", "[{\"from_s\", \"to_s\", \"factor\"}]: service times multiplied meanwhile.", Control::Json),
    f("outages", "Outages", "JSON", "[{\"from_s\", \"to_s\"}]: no new work taken meanwhile.", Control::Json),
];

const ROUTER: &[Field] = &[
    f("policy", "Policy", "", "Which output each message takes.", Control::Choice(&[
        ("round_robin", "round robin"),
        ("by_weight", "by weight"),
        ("by_class", "by class"),
        ("by_destination", "by destination"),
    ]))
    .reshapes(router_template),
    f("weights", "Weights", "JSON", "One number per outgoing edge, in edge order.", Control::Json).shown_if("policy", &["by_weight"]),
    f("classes", "Classes", "JSON", "{\"class name\": \"output node id\"}.", Control::Json).shown_if("policy", &["by_class"]),
    f("default", "Other classes to", "node id", "The output for classes not listed (empty: dropped as no_route).", Control::Text)
        .shown_if("policy", &["by_class"]),
];

/// A router of `policy` with the fields that policy needs.
pub fn router_template(policy: &str, outputs: &[String]) -> Value {
    let mut v = json!({"kind": Kind::Router.as_str(), "policy": policy});
    match policy {
        "by_weight" => v["weights"] = json!(vec![1.0; outputs.len().max(1)]),
        "by_class" => {
            v["classes"] = json!({});
            if let Some(first) = outputs.first() {
                v["default"] = json!(first);
            }
        }
        _ => {}
    }
    v
}

const WINDOW: &[Field] = &[
    f("max_messages", "Window", "messages", "Messages in flight at most (0: no bound in messages).", whole(0.0, 100.0, 1.0)),
    f("max_bytes", "Window", "bytes", "Bytes in flight at most (0: no bound in bytes).", whole(0.0, 1_048_576.0, 1024.0)),
    f("scope", "Scope", "", "One window for everything, one per destination, or one per class.", Control::Choice(&[
        ("shared", "shared by all destinations"),
        ("per_destination", "one per destination"),
        ("per_class", "one per class"),
    ])),
    f("opens_on", "Opens on", "", "Whether a message stops counting when it is received or when it is processed.", Control::Choice(&[
        ("receipt", "receipt"),
        ("processing", "processing"),
    ])),
    f("ack_latency_s", "Acknowledgement latency", "s", "How long the acknowledgement takes to come back.", num(0.0, 1.0, 0.001)),
    f("receipts.to", "Receipts to", "node id", "With a receipt queue (Exon): the queue, dispatcher or consumer where receipts wait to be read; the window opens only when one is read, and an ACK it has no room for is retransmitted (empty: the window opens on the acknowledgement).", Control::Text),
    f("receipts.retransmit_after_s", "Retransmit after", "s", "An ACK not accepted makes the sender send the message again this much later: over a link, the copy takes the wire's bandwidth again, and its ACK comes back when it arrives.", num(0.001, 2.0, 0.001))
        .shown_if("receipts.to", &[]),
];

const CREDIT: &[Field] = &[
    f("initial_credit", "Initial credit", "messages", "Credits granted when a peer's state is created.", whole(1.0, 100.0, 1.0)),
    f("implicit_single_credit", "Implicit single credit", "", "A peer without state may send one message at once, instead of a CONNECT and its CONNACK first.", Control::Toggle),
    f("grant_batch", "Grant batch", "messages", "The receiver grants credit per this many processed messages.", whole(1.0, 50.0, 1.0)),
    f("grant_latency_s", "Grant latency", "s", "How long a grant takes to come back; a CONNECT and its CONNACK take it each way.", num(0.0, 1.0, 0.001)),
    f("scope", "Scope", "", "One peer per message destination, or one for all.", Control::Choice(&[
        ("per_destination", "one peer per destination"),
        ("shared", "one peer for all"),
    ])),
    f("close_after_idle_s", "Close when idle for", "s", "A peer with nothing in flight this long is released (empty: never).", OPTIONAL),
];

const RATE_LIMITER: &[Field] = &[
    f("rules[0].scheme", "First rule", "", "How the first rule counts.", Control::Choice(&[
        ("timer", "scheme 1: a timer, one per tick"),
        ("batch", "scheme 2: a batch each span"),
        ("anchored", "scheme 3: window anchored at the first message"),
        ("natural_period", "natural-period counter"),
        ("spread", "pacer (extension)"),
        ("sliding", "sliding window"),
        ("token_bucket", "token bucket"),
    ])),
    f("rules[0].limit", "First rule: limit", "per span", "Messages (or bytes) allowed per span.", num(1.0, 1000.0, 1.0)),
    f("rules[0].span_s", "First rule: span", "s", "The span the limit counts over.", num(0.01, 60.0, 0.01)),
    f("rules", "All rules", "JSON", "Every rule must allow a message: [{\"scheme\", \"limit\", \"span_s\", \"burst\"}].", Control::Json),
    f("unit", "Counts", "", "What the limits count.", Control::Choice(&[("messages", "messages"), ("bytes", "bytes")])),
    f("on_excess", "Over the limit", "", "Hold the message until a rule allows it, or drop it (rate_limited).", Control::Choice(&[
        ("delay", "delay it"),
        ("reject", "reject it"),
    ])),
];

const CONCURRENCY_LIMITER: &[Field] = &[f(
    "max_in_flight",
    "In flight",
    "messages",
    "Messages passed and not yet processed or dropped, at most.",
    whole(1.0, 64.0, 1.0),
)];

const RESOURCE_POOL: &[Field] = &[
    f("max_total", "Total at most", "resources", "Idle, lent and being created together.", whole(1.0, 64.0, 1.0)),
    f("min_total", "Total at least", "resources", "Resources kept at least.", whole(0.0, 64.0, 1.0)),
    f("min_spare", "Spare at least", "resources", "Idle (or being created) resources kept ready, room allowing.", whole(0.0, 64.0, 1.0)),
    f("max_spare", "Spare at most", "resources", "A returned resource beyond this many idle ones is destroyed (empty: no bound).", Control::Optional { none_is: Some(4_294_967_295.0) }),
    f("create_s", "Creation time", "s", "Seconds to create one resource.", num(0.0, 5.0, 0.01)),
];

const LINK: &[Field] = &[
    f("bandwidth_bytes_per_s", "Bandwidth", "bytes/s", "Bytes per second on the wire (0: no limit).", num(0.0, 2_000_000.0, 1000.0)),
    f("latency_s", "Latency", "s", "From leaving the wire to reaching the far end.", num(0.0, 1.0, 0.001)),
    f("buffer.bytes", "Send buffer", "bytes", "A message that does not fit is refused: the sender's \"would block\".", whole(0.0, 1_048_576.0, 1024.0)),
    f("buffer.messages", "Send buffer", "messages", "The same bound in messages (0: none).", whole(0.0, 1000.0, 1.0)),
    f("receive_buffer.bytes", "Receive window", "bytes", "The far end's receive buffer: what was sent and not yet read. Full, the link stops sending and its send buffer fills (0: no bound).", whole(0.0, 1_048_576.0, 1024.0)),
    f("receive_buffer.messages", "Receive window", "messages", "The same bound in messages (0: none).", whole(0.0, 1000.0, 1.0)),
    f("down", "Down periods", "JSON", "[{\"from_s\", \"to_s\"}]: what is on the wire is lost, sending stops.", Control::Json),
];

const DISPATCHER: &[Field] = &[
    f("workers", "Workers", "at once", "Demands served at once; one agent runs one at a time.", whole(1.0, 32.0, 1.0)),
    f("service_time", "Service time", "s", "Time per demand.", Control::Distribution),
    f("queues", "Demand queues", "", "Which queue a message joins.", Control::Choice(&[
        ("per_input", "one per sender"),
        ("per_destination", "one per destination"),
        ("per_class", "one per class"),
        ("shared", "one for all (global FIFO)"),
    ])),
    f("discipline", "Discipline", "", "How a free worker picks the next demand.", Control::Choice(&[
        ("round_robin", "round robin over non-empty queues"),
        ("priority", "strict priority, lower number first"),
        ("event_loop", "event loop iterations"),
        ("alternate", "alternate between queues (Exon's receive)"),
        ("netsendq", "per-host windows (netsendq)"),
    ])),
    f("agents", "Agents", "", "Whose demand a message is: one agent never runs two at once, whatever the workers.", Control::Choice(&[
        ("by_destination", "its destination (else its sender's queue; per class: one agent)"),
        ("per_queue", "one agent per demand queue"),
        ("independent", "none: any worker takes any demand"),
    ]))
    .shown_if("discipline", &["round_robin", "priority"]),
    f("iteration", "Iteration", "", "Serve what was queued when the iteration began, or everything.", Control::Choice(&[
        ("snapshot", "snapshot"),
        ("all", "everything"),
    ]))
    .shown_if("discipline", &["event_loop"]),
    f("register_once", "Register once", "", "A task scheduled again while it still waits joins the waiting run (merged) instead of queueing twice.", Control::Toggle)
        .shown_if("discipline", &["round_robin", "priority", "event_loop", "alternate"]),
    f("queue_priorities", "Queue priorities", "JSON", "{\"queue name\": number}. Lower numbers are served first (the reverse of SObjectizer's agent priorities, where higher wins).", Control::Json).shown_if("discipline", &["priority"]),
    f("order", "Order inside a queue", "", "Which demand of one queue goes first.", Control::Choice(ORDERS)),
    f("message_priorities", "Message priorities", "JSON", "[{\"class\", \"destination\", \"source\" (any of the three), \"priority\"}]. Lower numbers are served first (SObjectizer's article gives the urgent message the higher number).", Control::Json)
        .shown_if("order", &["priority"]),
    f("capacity", "Capacity", "demands", "The most one demand queue holds (0: no bound).", whole(0.0, 1000.0, 1.0)),
    f("on_full", "When full", "", "A demand that does not fit.", Control::Choice(&[
        ("drop_newest", "drop the newcomer"),
        ("drop_oldest", "drop the oldest"),
        ("refuse", "refuse"),
    ])),
    f("ttl_s", "Time to live", "s", "A demand that waited this long is skipped when a worker reaches it (empty: never).", OPTIONAL),
    f("windows", "Windows per class", "JSON", "{\"class\": messages in flight to one host}.", Control::Json).shown_if("discipline", &["netsendq"]),
    f("one_shot", "One-shot classes", "JSON", "[\"class\"]: go to the head of the ready queue.", Control::Json).shown_if("discipline", &["netsendq"]),
    f("queueable_if_down", "Queueable if down", "JSON", "[\"class\"]: kept while their host is down.", Control::Json)
        .shown_if("discipline", &["netsendq"]),
    f("hosts_down", "Hosts down", "JSON", "[{\"host\", \"from_s\", \"to_s\"}].", Control::Json).shown_if("discipline", &["netsendq"]),
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
        Kind::Link => LINK,
        Kind::Dispatcher => DISPATCHER,
    }
}

/// A parameter inside a distribution or an arrival process.
pub struct Param {
    pub name: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub help: &'static str,
    pub control: Control,
}

const fn p(name: &'static str, label: &'static str, unit: &'static str, help: &'static str, control: Control) -> Param {
    Param { name, label, unit, help, control }
}

/// The distributions, each with a label and its parameters. `unit` is the
/// unit of the quantity drawn (seconds, bytes).
pub fn distribution_params(dist: &str) -> &'static [Param] {
    const FIXED: &[Param] = &[p("value", "Value", "", "Always this.", num(0.0, 1.0, 0.001))];
    const EXPONENTIAL: &[Param] = &[p("mean", "Mean", "", "The average; exponential, so memoryless.", num(0.0, 1.0, 0.001))];
    const UNIFORM: &[Param] = &[
        p("min", "Least", "", "Draws lie between the least and the most.", num(0.0, 1.0, 0.001)),
        p("max", "Most", "", "", num(0.0, 2.0, 0.001)),
    ];
    const LOG_NORMAL: &[Param] = &[
        p("mean", "Mean", "", "The average.", num(0.0, 1.0, 0.001)),
        p("cv", "Spread (CV)", "×", "Standard deviation over mean: the longer the tail, the higher.", num(0.0, 5.0, 0.05)),
    ];
    const MIX: &[Param] = &[
        p("p", "Share of the first mode", "0 to 1", "With this probability a draw from the first, otherwise from the second.", num(0.0, 1.0, 0.01)),
        p("a", "First mode", "JSON", "A distribution.", Control::Json),
        p("b", "Second mode", "JSON", "A distribution.", Control::Json),
    ];
    match dist {
        "fixed" => FIXED,
        "exponential" => EXPONENTIAL,
        "uniform" => UNIFORM,
        "log_normal" => LOG_NORMAL,
        "mix" => MIX,
        _ => &[],
    }
}

pub const DISTRIBUTIONS: &[(&str, &str)] = &[
    ("fixed", "fixed"),
    ("exponential", "exponential"),
    ("uniform", "uniform"),
    ("log_normal", "log-normal (long tail)"),
    ("mix", "two modes"),
];

pub const PROCESSES: &[(&str, &str)] = &[
    ("poisson", "Poisson (random gaps)"),
    ("constant", "constant (even gaps)"),
    ("on_off", "on/off bursts"),
    ("ramp", "ramp"),
    ("trace", "scripted trace"),
    ("closed_loop", "closed loop (clients)"),
];

pub fn process_params(process: &str) -> &'static [Param] {
    const RATE: Param = p("rate_per_s", "Rate", "messages/s", "How many messages per second, on average.", num(0.1, 2000.0, 0.1));
    const STEADY: &[Param] = &[RATE];
    const ON_OFF: &[Param] = &[
        RATE,
        p("on_s", "On for", "s", "Sending at the rate for this long…", num(0.01, 10.0, 0.01)),
        p("off_s", "Off for", "s", "…then silent for this long, repeating.", num(0.0, 10.0, 0.01)),
    ];
    const RAMP: &[Param] = &[
        p("from_per_s", "From", "messages/s", "The rate at time zero.", num(0.0, 2000.0, 0.1)),
        p("to_per_s", "To", "messages/s", "The rate reached at the end of the ramp, and kept.", num(0.0, 2000.0, 0.1)),
        p("over_s", "Over", "s", "How long the ramp lasts.", num(0.1, 600.0, 0.1)),
    ];
    const TRACE: &[Param] = &[p("times_s", "Instants", "JSON", "[seconds, …]: one message at each, in order.", Control::Json)];
    const CLOSED: &[Param] = &[
        p("clients", "Clients", "", "Requests outstanding: each client waits for its reply, thinks, sends again.", whole(1.0, 200.0, 1.0)),
        p("think", "Think time", "s", "Between a reply and the client's next request.", Control::Distribution),
    ];
    match process {
        "constant" | "poisson" => STEADY,
        "on_off" => ON_OFF,
        "ramp" => RAMP,
        "trace" => TRACE,
        "closed_loop" => CLOSED,
        _ => &[],
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
        for kind in Kind::ALL {
            let fields = fields(kind);
            assert!(!fields.is_empty(), "{kind} has no fields");
            let block = crate::plumbing::json_read::to_value(&default_block(kind));
            for field in fields {
                if let Control::Choice(options) = field.control {
                    for (value, _) in options {
                        let mut v = block.clone();
                        if crate::scenario::set_at(&mut v, &field.path(), Some(serde_json::Value::from(*value))).is_err() {
                            continue; // a list item the default lacks
                        }
                        let parsed: Result<crate::scenario::BlockSpec, _> = crate::plumbing::json_read::from_value(&v);
                        assert!(parsed.is_ok() || field.reshape.is_some(), "{kind} {} = {value}: {:?}", field.path(), parsed.err());
                    }
                }
            }
        }
    }
}
