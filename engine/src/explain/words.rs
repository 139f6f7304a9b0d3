//! The sentences of a chain: one home for what each drop reason, each
//! cause of a state change and each kind of block refusing says, and for
//! the facts each cites.

use serde_json::Value;

use super::{kind, Fact, Link, Next};
use crate::metrics::DropReason;
use crate::plumbing::numbers::{plain, readable, thousands};
use crate::scenario::Kind;
use crate::simulation::Simulation;
use crate::state::{Cause, Family, State};
use crate::time::SimTime;
use crate::why::{HeldBack, What, Why};

/// An instant as a chain writes it: "41.203 s".
pub(super) fn secs(t: SimTime) -> String {
    format!("{:.3} s", t.as_secs_f64())
}

/// A value as a sentence writes it: a setting as written (thousands
/// separated when whole), a distribution or a rule as its fields.
fn shown(v: &Value) -> String {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() >= 1000.0 => thousands(x),
            Some(x) => readable(x),
            None => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(shown).collect::<Vec<_>>().join("; ")),
        Value::Object(fields) => fields.iter().map(|(k, v)| if k == "dist" { shown(v) } else { format!("{k} {}", shown(v)) }).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// The facts of a link and the words that cite them, gathered as they are
/// read.
struct Cited<'s> {
    sim: &'s Simulation,
    at: SimTime,
    facts: Vec<Fact>,
    /// The settings of the block last asked of, as the file writes them.
    spec: Option<(usize, Option<Value>)>,
}

impl<'s> Cited<'s> {
    fn new(sim: &'s Simulation, at: SimTime) -> Self {
        Cited { sim, at, facts: Vec::new(), spec: None }
    }

    /// `node`'s settings as the file writes them, read once however many
    /// are asked of.
    fn spec(&mut self, node: usize) -> Option<&Value> {
        if self.spec.as_ref().map(|(n, _)| *n) != Some(node) {
            let spec = self.sim.scenario().nodes.get(node).and_then(|n| serde_json::to_value(n).ok());
            self.spec = Some((node, spec));
        }
        self.spec.as_ref().and_then(|(_, spec)| spec.as_ref())
    }

    /// One setting of `node`, not cited.
    fn setting(&mut self, node: usize, path: &str) -> Option<Value> {
        self.spec(node)?.pointer(path).cloned()
    }

    /// A field of `node`'s report now, cited.
    fn reading(&mut self, node: usize, field: &'static str) -> Option<Value> {
        if node >= self.sim.nodes().len() {
            return None;
        }
        let report = serde_json::to_value(self.sim.node_report(node)).ok()?;
        let value = report.get(field)?.clone();
        self.facts.push(Fact::Reading { node, at: self.at, field, value: value.clone() });
        Some(value)
    }

    /// "name 12" for each setting found, joined and cited: the settings that
    /// bound a block. A limit of 0 (no limit in that dimension) is left out.
    fn settings(&mut self, node: usize, paths: &[(&'static str, &str)]) -> String {
        // Settings where 0 means no bound at all.
        const NONE_AT_ZERO: [&str; 5] = ["/messages", "/bytes", "/max_messages", "/max_bytes", "/bandwidth_bytes_per_s"];
        let unlimited = |path: &str, v: &Value| NONE_AT_ZERO.iter().any(|end| path.ends_with(end)) && v.as_f64() == Some(0.0);
        let Some(spec) = self.spec(node) else { return String::new() };
        let found: Vec<(&'static str, &str, Value)> =
            paths.iter().filter_map(|&(path, name)| spec.pointer(path).filter(|v| !unlimited(path, v)).map(|v| (path, name, v.clone()))).collect();
        let mut parts = Vec::new();
        for (path, name, value) in found {
            parts.push(format!("{name} {}", shown(&value)));
            self.facts.push(Fact::Setting { node, at: self.at, path, value });
        }
        parts.join(", ")
    }

    /// ", 97 from fast_sender, 3 from slow_sender": where what `node`
    /// holds came from, cited (nothing when it holds nothing listed).
    fn sources(&mut self, node: usize) -> String {
        let counts = self.sim.held_by_source(node);
        if counts.is_empty() {
            return String::new();
        }
        let words: Vec<String> = counts.iter().map(|&(s, n)| format!("{} from {}", thousands(n as f64), self.sim.node_id(s))).collect();
        self.facts.push(Fact::Sources { node, at: self.at, counts: super::Share::list(counts) });
        format!(", {}", words.join(", "))
    }

    /// ": 9 of them in far_link, 1 in fast_queue": where gate `gate`'s
    /// messages in flight are, cited, and the node holding the most.
    fn gated(&mut self, gate: usize) -> (String, Option<usize>) {
        let counts = self.sim.gated_where(gate);
        if counts.is_empty() {
            return (String::new(), None);
        }
        let most = counts.first().map(|&(n, _)| n);
        let words: Vec<String> = counts
            .iter()
            .enumerate()
            .map(|(k, &(n, m))| format!("{}{} in {}", thousands(m as f64), if k == 0 { " of them" } else { "" }, self.sim.node_id(n)))
            .collect();
        self.facts.push(Fact::Where { gate, at: self.at, counts: super::Share::list(counts) });
        (format!(": {}", words.join(", ")), most)
    }

    fn link(self, node: usize, text: String) -> Link {
        Link { at: self.at, node, node_id: self.sim.node_id(node).to_string(), text, facts: self.facts }
    }
}

/// The thresholds of a queue's state `to`, as settings to cite.
fn threshold_paths(to: State) -> &'static [(&'static str, &'static str)] {
    match to {
        State::SoftLimit => &[("/soft_limit/messages", "soft limit (messages)"), ("/soft_limit/bytes", "soft limit (bytes)")],
        State::HardLimit => &[("/hard_limit/messages", "hard limit (messages)"), ("/hard_limit/bytes", "hard limit (bytes)")],
        _ => &[],
    }
}

/// Of the thresholds of state `to` at `node`, those what `why` records it
/// held had reached: the bytes' alone when 48 messages under a limit of
/// 50 came to more bytes than theirs. Every one when none was reached (a
/// threshold changed since, say).
fn reached(c: &mut Cited, node: usize, to: State, why: &Why) -> Vec<(&'static str, &'static str)> {
    let all = threshold_paths(to);
    let hit: Vec<_> = all
        .iter()
        .filter(|(path, _)| {
            let held = if path.ends_with("/bytes") { why.held_bytes } else { why.held };
            c.setting(node, path).as_ref().and_then(Value::as_f64).is_some_and(|limit| limit > 0.0 && held as f64 >= limit)
        })
        .copied()
        .collect();
    if hit.is_empty() {
        all.to_vec()
    } else {
        hit
    }
}

/// The link of a drop or a state change, from its record, and what to
/// explain next.
pub(super) fn event(sim: &Simulation, why: &Why) -> (Link, Option<Next>) {
    let node = why.node as usize;
    let name = sim.node_id(node).to_string();
    let at = secs(why.at);
    let mut c = Cited::new(sim, why.at);
    let held = Fact::Held { node, at: why.at, event: why.event, messages: why.held, bytes: why.held_bytes };
    // The state of `family` it acted in, cited, and the change to follow.
    let in_state = |c: &mut Cited, family: State| -> Option<(State, Next)> {
        let (state, since) = why.state_like(family)?;
        c.facts.push(Fact::InState { node, state, since, at: why.at });
        Some((state, Next::Change { node, state, since }))
    };
    let refused = |c: &mut Cited| -> Option<(String, Next)> {
        let h = why.held_back?;
        c.facts.push(Fact::RefusedBy { node, by: h.by as usize, since: h.since, at: why.at });
        Some((sim.node_id(h.by as usize).to_string(), Next::Refusal { node, held: h, seen: why.at }))
    };
    let (text, next) = match why.what {
        What::Dropped { reason, class, droppable, .. } => {
            let class = sim.class_name(class).to_string();
            let class = if class == "message" { String::new() } else { format!("{class} ") };
            let what = if droppable { format!("a droppable {class}message") } else { format!("a {class}message") };
            match reason {
                DropReason::Thinned => {
                    let state = in_state(&mut c, State::Ready);
                    let since = state.map(|(s, n)| format!(" It was {s} since {}.", match n { Next::Change { since, .. } => secs(since), _ => String::new() })).unwrap_or_default();
                    (format!("{name} thinned {what} at {at}: while a write to the socket would block, a queue discards droppable messages (the Moment note's reaction to EAGAIN).{since}"), state.map(|s| s.1))
                }
                DropReason::Disconnect => {
                    let state = in_state(&mut c, State::Ready);
                    let entered = state.map_or(State::HardLimit, |s| s.0);
                    let limits = c.settings(node, threshold_paths(entered));
                    let limits = if limits.is_empty() { String::new() } else { format!(" ({limits})") };
                    (format!("{name} dropped {what} at {at} as it disconnected its client: at {entered}{limits} its reaction is to disconnect, dropping everything it holds."), state.map(|s| s.1))
                }
                DropReason::Disconnected => {
                    let state = in_state(&mut c, State::Ready);
                    let after = c.settings(node, &[("/reconnect_after_s", "reconnect after (s)")]);
                    (format!("{name} dropped {what} at {at}: its client was disconnected, and a new one connects only later ({after})."), state.map(|s| s.1))
                }
                DropReason::Refused => {
                    let by = refused(&mut c);
                    let policy = c.settings(node, &[("/on_refused", "on refused")]);
                    let who = by.as_ref().map_or("the next block".to_string(), |b| b.0.clone());
                    (format!("{name} dropped {what} at {at}: {who} refused it, and a producer set so ({policy}) drops what is refused."), by.map(|b| b.1))
                }
                DropReason::Overflow => {
                    c.facts.push(held);
                    let cap = c.settings(node, &[("/capacity/messages", "capacity (messages)"), ("/capacity/bytes", "capacity (bytes)"), ("/capacity", "capacity"), ("/on_full", "on full"), ("/queue", "queue")]);
                    let cap = if cap.is_empty() { "its bound".to_string() } else { format!("its {cap}") };
                    let next = refused(&mut c).map(|b| b.1).unwrap_or(Next::Flow { node, since: why.at, at: why.at });
                    (format!("{what} overflowed {name} at {at}: it held {} messages ({} bytes) against {cap}.", thousands(why.held as f64), thousands(why.held_bytes as f64)), Some(next))
                }
                DropReason::Expired => {
                    let ttl = c.settings(node, &[("/ttl_s", "time to live (s)"), ("/queue_timeout_s", "queue time-out (s)"), ("/timeout_queue_s", "queue time-out (s)")]);
                    let ttl = if ttl.is_empty() { "the time it may wait".to_string() } else { format!("its {ttl}") };
                    let next = refused(&mut c).map(|b| b.1).unwrap_or(Next::Flow { node, since: why.at, at: why.at });
                    (format!("{what} expired in {name} at {at}: it waited longer than {ttl}, unsent."), Some(next))
                }
                DropReason::RateLimited => {
                    let rule = limiter_settings(&mut c, node);
                    (format!("{name} refused {what} at {at}: it came over the limit ({rule})."), Some(Next::Flow { node, since: why.at, at: why.at }))
                }
                DropReason::LinkDown => {
                    let state = in_state(&mut c, State::Up);
                    (format!("{what} was on the wire of {name} when the link went down, at {at}: what a link carries when it goes down is lost."), state.map(|s| s.1))
                }
                DropReason::NoRoute => {
                    let routes = c.settings(node, &[("/policy", "policy"), ("/classes", "routes")]);
                    (format!("{name} had no output for {what} at {at} ({routes})."), None)
                }
                DropReason::TimedOut => {
                    let limits = c.settings(node, &[("/timeout_s", "time-out (s)"), ("/max_retries", "retries")]);
                    (format!("{name} gave up {what} at {at}: its service hit the consumer's time-out more often than its retries allow ({limits})."), None)
                }
                DropReason::HostDown => {
                    let state = in_state(&mut c, State::Up);
                    let down = c.settings(node, &[("/hosts_down", "hosts down"), ("/queueable_if_down", "queueable while down")]);
                    (format!("{name} dropped {what} at {at}: its host was down and its class is not queued while down ({down})."), state.map(|s| s.1))
                }
                DropReason::Unanswered => {
                    let policy = c.settings(node, &[("/backpressure", "backpressure")]);
                    let next = pausing_queue(sim, node).map(|(q, state, since)| {
                        c.facts.push(Fact::InState { node: q, state, since, at: why.at });
                        Next::Change { node: q, state, since }
                    });
                    (format!("{name} dropped {what} at {at}: a queue it feeds asked it to pause, and with {policy} a request read then is not answered."), next)
                }
                DropReason::Merged => {
                    let once = c.settings(node, &[("/register_once", "register once")]);
                    (format!("{name} merged {what} at {at} into the same task already waiting in its demand queue ({once}): no work is lost."), None)
                }
                DropReason::Cancelled => (
                    format!("{name} dropped {what} at {at}: its client had given up waiting for it (its time-out) and cancelled it, so no more work is spent on it."),
                    None,
                ),
                DropReason::NotPermitted => {
                    let state = in_state(&mut c, State::Closed);
                    let name_state = state.map_or("open".to_string(), |s| s.0.to_string());
                    (format!("{name} refused {what} at {at}: its circuit breaker was {name_state}, and refuses calls then (resilience4j's CallNotPermittedException)."), state.map(|s| s.1))
                }
            }
        }
        What::Changed { from, to, cause } => change(&mut c, why, node, &name, &at, from, to, cause, held, refused),
    };
    (c.link(node, text), next)
}

/// The link of a state change.
#[allow(clippy::too_many_arguments)]
fn change(
    c: &mut Cited,
    why: &Why,
    node: usize,
    name: &str,
    at: &str,
    from: State,
    to: State,
    cause: Cause,
    held: Fact,
    refused: impl Fn(&mut Cited) -> Option<(String, Next)>,
) -> (String, Option<Next>) {
    let turned = format!("{name} went from {from} to {to} at {at}");
    let holds = format!("it held {} messages ({} bytes)", thousands(why.held as f64), thousands(why.held_bytes as f64));
    // A send loop that sent something and then found the socket full, or
    // took the queue to a threshold, logs `send` though the state got worse.
    let worse = matches!((from.send_state(), to.send_state()), (Some(f), Some(t)) if t > f);
    let cause = match cause {
        Cause::Send if worse && to == State::Overloaded => Cause::WouldBlock,
        Cause::Send if worse => Cause::Enqueue,
        cause => cause,
    };
    match cause {
        Cause::Enqueue | Cause::Overflow => {
            c.facts.push(held);
            let reached = reached(c, node, to, why);
            let limits = c.settings(node, &reached);
            let next = refused(c).map(|b| b.1).unwrap_or(Next::Flow { node, since: why.at, at: why.at });
            let against = if limits.is_empty() { String::new() } else { format!(", reaching its {limits}") };
            (format!("{turned}: {holds}{against}; a queue's state gets worse after an enqueue or a write and better only after a send."), Some(next))
        }
        Cause::WouldBlock => match refused(c) {
            Some((by, next)) => (format!("{turned}: a write would block, as {by} refused what it sent (the socket's send buffer is full)."), Some(next)),
            None => (format!("{turned}: a write would block."), Some(Next::Flow { node, since: why.at, at: why.at })),
        },
        Cause::Send => {
            c.facts.push(held);
            let below = if from == State::Overloaded { "and its writes no longer block".to_string() } else { format!("below the thresholds of {from}") };
            (format!("{turned} after a send: {holds}, {below}; only a send makes a queue's state better."), None)
        }
        Cause::ThresholdsChanged => {
            c.facts.push(held);
            (format!("{turned}: its thresholds changed while running, and {holds}."), None)
        }
        Cause::Expired => {
            c.facts.push(held);
            (format!("{turned}: messages expired, and {holds}."), None)
        }
        Cause::Emptied => (format!("{turned}: emptied by dropping, it has nothing left to send and settles as if it had sent."), None),
        Cause::NewClientConnected => {
            let after = c.settings(node, &[("/reconnect_after_s", "reconnect after (s)")]);
            (format!("{turned}: a new client connected after the disconnect ({after}), empty and Ready."), None)
        }
        Cause::Start => (format!("{turned}: it started and initializes before it serves."), None),
        Cause::Initialized => {
            let took = c.settings(node, &[("/lifecycle/initializing_s", "initializing (s)")]);
            (format!("{turned}: its initialization finished ({took})."), None)
        }
        Cause::Shutdown => {
            let at_s = c.settings(node, &[("/lifecycle/shutdown_at_s", "shutdown at (s)")]);
            (format!("{turned}: it was told to shut down ({at_s}); it finishes what it holds first."), None)
        }
        Cause::InitTimedOut => {
            let limit = c.settings(node, &[("/lifecycle/init_timeout_s", "initialization time-out (s)")]);
            (format!("{turned}: its initialization took longer than its time-out ({limit})."), None)
        }
        Cause::SupervisorShuttingDown => {
            let sup = c.settings(node, &[("/lifecycle/supervisor", "supervisor")]);
            (format!("{turned}: its supervisor is shutting down ({sup}), and takes its children down with it."), None)
        }
        Cause::ChildFailedToInitialize => {
            let sup = c.settings(node, &[("/lifecycle/supervisor", "supervisor")]);
            (format!("{turned}: a child of its supervisor failed to initialize ({sup}), so the group shuts down."), None)
        }
        Cause::Drained => (format!("{turned}: it finished what it held."), None),
        Cause::Schedule => {
            let plan = c.settings(node, &[("/down", "down"), ("/outages", "outages")]);
            (format!("{turned}, as its schedule says ({plan})."), None)
        }
        Cause::HostSchedule => {
            let plan = c.settings(node, &[("/hosts_down", "hosts down")]);
            (format!("{turned}, as its hosts' schedule says ({plan})."), None)
        }
        Cause::LinkAsked => (format!("{turned}: it asked its server for a link."), None),
        Cause::LinkConfirmed => (format!("{turned}: its server confirmed the link."), None),
        Cause::ServerShuttingDown => (format!("{turned}: its server is shutting down and dropped the link."), None),
        Cause::LinkRemoved => (format!("{turned}: its link was removed."), None),
        Cause::FailureRate => {
            let limit = c.settings(node, &[("/failure_rate_threshold", "failure rate threshold (%)"), ("/minimum_number_of_calls", "minimum calls"), ("/sliding_window_size", "window")]);
            (format!("{turned}: the failed share of the calls in its window reached its threshold ({limit}); an open breaker refuses calls."), None)
        }
        Cause::SlowCallRate => {
            let limit = c.settings(node, &[("/slow_call_rate_threshold", "slow call rate threshold (%)"), ("/slow_call_duration_threshold_s", "slow after (s)"), ("/sliding_window_size", "window")]);
            (format!("{turned}: the slow share of the calls in its window reached its threshold ({limit}); an open breaker refuses calls."), None)
        }
        Cause::OpenWaitElapsed => {
            let wait = c.settings(node, &[("/wait_duration_in_open_state_s", "open wait (s)")]);
            (format!("{turned}: its wait in the open state was over ({wait}); it lets a few trial calls through."), None)
        }
        Cause::TrialCallsPassed => {
            let trials = c.settings(node, &[("/permitted_number_of_calls_in_half_open_state", "trial calls"), ("/failure_rate_threshold", "failure rate threshold (%)")]);
            (format!("{turned}: its trial calls were heard of ({trials})."), None)
        }
        Cause::HalfOpenWaitElapsed => {
            let wait = c.settings(node, &[("/max_wait_duration_in_half_open_state_s", "half-open wait (s)")]);
            (format!("{turned}: its longest wait half-open was over ({wait})."), None)
        }
    }
}

/// The settings that bound a limiter, as a sentence cites them.
fn limiter_settings(c: &mut Cited, node: usize) -> String {
    match kind(c.sim, node) {
        Kind::RateLimiter => c.settings(node, &[("/rules", "rules")]),
        _ => c.settings(node, &[("/product", "product"), ("/rate", "rate"), ("/burst", "burst"), ("/max_connections", "connections"), ("/limit", "limit")]),
    }
}

/// The state a consumer takes no work in, if it was in one (not yet or no
/// longer operational, or in an outage), and since when.
fn not_taking(sim: &Simulation, node: usize) -> Option<(State, SimTime)> {
    let why = sim.whys().changes(node).next_back()?;
    why.states.iter().flatten().copied().find(|(s, _)| matches!(s, State::Initializing | State::ShuttingDown | State::ShutDown | State::Outage | State::Down))
}

/// A queue fed by `producer` (behind blocks that hold nothing) that asks
/// its producers to pause now, its state and since when.
fn pausing_queue(sim: &Simulation, producer: usize) -> Option<(usize, State, SimTime)> {
    let scenario = sim.scenario();
    let mut todo = vec![producer];
    let mut seen = vec![producer];
    while let Some(n) = todo.pop() {
        for e in scenario.edges.iter().filter(|e| e.from == sim.node_id(n)) {
            let Some(to) = scenario.nodes.iter().position(|m| m.id == e.to) else { continue };
            if seen.contains(&to) {
                continue;
            }
            seen.push(to);
            if kind(sim, to) == Kind::Queue {
                if sim.pauses(to) {
                    let why = sim.whys().changes(to).next_back().copied();
                    if let Some((state, since)) = why.and_then(|w| w.state_like(State::Ready)) {
                        return Some((to, state, since));
                    }
                }
            } else if kind(sim, to).holds_nothing() {
                todo.push(to);
            }
        }
    }
    None
}

/// Why `held.by` refused `node`'s offers at `held.since`.
pub(super) fn refusal(sim: &Simulation, node: usize, held: HeldBack, seen: SimTime) -> (Link, Option<Next>) {
    let by = held.by as usize;
    let mut c = Cited::new(sim, held.since);
    let at = secs(held.since);
    c.facts.push(Fact::RefusedBy { node, by, since: held.since, at: held.since });
    let who = sim.node_id(by).to_string();
    let sender = sim.node_id(node).to_string();
    // The next link of a refusal: the flow through a block while it refused
    // (from the hold's onset to when it was seen, a second at most).
    let through = |block: usize| Next::Flow { node: block, since: held.since, at: seen };
    let onward = |c: &mut Cited| -> Next {
        match sim.whys().held_back(by) {
            Some(h) => {
                c.facts.push(Fact::RefusedBy { node: by, by: h.by as usize, since: h.since, at: held.since });
                Next::Refusal { node: by, held: h, seen: held.since }
            }
            None => through(by),
        }
    };
    let (text, next) = match kind(sim, by) {
        Kind::Link => {
            if c.reading(by, "link_up") == Some(Value::Bool(false)) {
                // A link refuses only with its send buffer full, down or up.
                let bytes = c.reading(by, "depth_bytes").map(|v| shown(&v)).unwrap_or_default();
                let cap = c.settings(by, &[("/buffer/bytes", "send buffer (bytes)"), ("/buffer/messages", "send buffer (messages)"), ("/down", "down")]);
                (format!("{who} refused {sender}'s messages from {at}: the link was down and its send buffer full ({bytes} bytes waiting; {cap})."), None)
            } else {
                let bytes = c.reading(by, "depth_bytes").map(|v| shown(&v)).unwrap_or_default();
                let cap = c.settings(by, &[("/buffer/bytes", "send buffer (bytes)"), ("/buffer/messages", "send buffer (messages)"), ("/receive_buffer/bytes", "receive window (bytes)")]);
                let next = onward(&mut c);
                let behind = match next {
                    Next::Refusal { held: h, .. } => format!("; what it carried waited, as {} refused it from {}", sim.node_id(h.by as usize), secs(h.since)),
                    _ => String::new(),
                };
                (format!("{who} refused {sender}'s messages from {at}: its send buffer was full ({bytes} bytes waiting; {cap}){behind}."), Some(next))
            }
        }
        Kind::Consumer if not_taking(sim, by).is_some() => {
            let (state, since) = not_taking(sim, by).unwrap_or((State::Initializing, held.since));
            c.facts.push(Fact::InState { node: by, state, since, at: held.since });
            (format!("{who} refused {sender}'s messages from {at}: it takes no work while {state} (since {}).", secs(since)), Some(Next::Change { node: by, state, since }))
        }
        Kind::Dispatcher => {
            let cap = c.settings(by, &[("/capacity", "capacity of each demand queue"), ("/on_full", "on full"), ("/workers", "workers")]);
            let depth = c.reading(by, "depth_messages").map(|v| shown(&v)).unwrap_or_default();
            let next = onward(&mut c);
            (format!("{who} refused {sender}'s messages from {at}: a demand queue of its was full ({depth} waiting in all; {cap})."), Some(next))
        }
        Kind::Consumer => {
            let busy = c.reading(by, "in_service").map(|v| shown(&v)).unwrap_or_default();
            let bound = c.settings(by, &[("/workers", "workers"), ("/service_time", "service time")]);
            let next = onward(&mut c);
            (format!("{who} refused {sender}'s messages from {at}: all its workers were busy ({busy} in service; {bound})."), Some(next))
        }
        Kind::Queue => {
            let state = c.reading(by, "state");
            let depth = c.reading(by, "depth_messages").map(|v| shown(&v)).unwrap_or_default();
            // A queue asking for a pause leaves what a link brings unread
            // (through the routers on the link's way too); otherwise it
            // refused for being full, as the hold recorded at its onset.
            if held.unread {
                let change = sim.whys().changes(by).next_back().and_then(|w| w.state_like(State::Ready)).map(|(s, since)| {
                    c.facts.push(Fact::InState { node: by, state: s, since, at: held.since });
                    Next::Change { node: by, state: s, since }
                });
                let state = state.map(|s| shown(&s)).unwrap_or_default();
                (format!("{who} refused {sender}'s messages from {at}: at {state} it asks its inputs to pause and stops reading its links ({depth} messages queued)."), change)
            } else {
                let cap = c.settings(by, &[("/capacity/messages", "capacity (messages)"), ("/capacity/bytes", "capacity (bytes)"), ("/on_full", "on full")]);
                let from = c.sources(by);
                let next = onward(&mut c);
                (format!("{who} refused {sender}'s messages from {at}: it was full ({depth} messages; {cap}){from}."), Some(next))
            }
        }
        Kind::Window => {
            let n = c.reading(by, "in_flight").map(|v| shown(&v)).unwrap_or_default();
            let cap = c.settings(by, &[("/max_messages", "window (messages)"), ("/max_bytes", "window (bytes)"), ("/scope", "scope"), ("/opens_on", "opens on")]);
            let (place, most) = c.gated(by);
            let next = through(most.unwrap_or(by));
            (format!("{who} refused {sender}'s messages from {at}: its window was closed ({n} in flight; {cap}){place}; it opens only as they are acknowledged."), Some(next))
        }
        Kind::Credit => {
            let n = c.reading(by, "credits").map(|v| shown(&v)).unwrap_or_default();
            // Credit is held per peer: the peer of these messages had none,
            // whatever the others held, until a grant (or, at a first
            // contact without the implicit credit, the handshake's CONNACK).
            let handshake = matches!(sim.scenario().nodes.get(by).map(|n| &n.block), Some(crate::scenario::BlockSpec::Credit(spec)) if !spec.implicit_single_credit);
            let cap = c.settings(by, &[("/initial_credit", "initial credit"), ("/grant_batch", "grant batch")]);
            let first = if handshake { ", and a first contact waits for its handshake's CONNACK" } else { "" };
            (format!("{who} refused {sender}'s messages from {at}: their peer held no credit ({n} held by all peers; {cap}): the receiver grants more as it processes{first}."), Some(through(by)))
        }
        Kind::ConcurrencyLimiter => {
            let n = c.reading(by, "in_flight").map(|v| shown(&v)).unwrap_or_default();
            let cap = c.settings(by, &[("/max_in_flight", "at most in flight")]);
            (format!("{who} refused {sender}'s messages from {at}: {n} were in flight, its limit ({cap})."), Some(through(by)))
        }
        Kind::ResourcePool => {
            let n = c.reading(by, "depth_messages").map(|v| shown(&v)).unwrap_or_default();
            let cap = c.settings(by, &[("/max_total", "at most"), ("/create_s", "creating one takes (s)")]);
            (format!("{who} refused {sender}'s messages from {at}: {n} resources busy and none free ({cap})."), Some(through(by)))
        }
        Kind::RateLimiter => {
            let rule = c.settings(by, &[("/rules", "rules")]);
            (format!("{who} held {sender}'s messages back from {at}: its rate was used up ({rule})."), Some(through(by)))
        }
        Kind::ProductLimiter => {
            let n = c.reading(by, "depth_messages").map(|v| shown(&v)).unwrap_or_default();
            let rule = limiter_settings(&mut c, by);
            let next = onward(&mut c);
            (format!("{who} held {sender}'s messages back from {at} ({n} waiting in it; {rule})."), Some(next))
        }
        Kind::Router | Kind::Producer => (format!("{who} refused {sender}'s messages from {at}."), None),
    };
    (c.link(by, text), next)
}

/// The flow through `node` over a second, beside what bounds it: its
/// settings as `sim` has them at `read`; `busy`, what it had in service at
/// the flow's end.
pub(super) fn flow(sim: &Simulation, read: SimTime, node: usize, fact: Fact, busy: u64) -> Link {
    let Fact::Flow { from, to, arrived, departed, .. } = fact else { unreachable!("a flow") };
    let mut c = Cited::new(sim, read);
    let who = sim.node_id(node).to_string();
    let bound = match kind(sim, node) {
        Kind::Consumer | Kind::Dispatcher => c.settings(node, &[("/workers", "workers"), ("/service_time", "service time")]),
        Kind::Link => c.settings(node, &[("/bandwidth_bytes_per_s", "bandwidth (bytes/s)"), ("/latency_s", "latency (s)")]),
        Kind::RateLimiter | Kind::ProductLimiter => limiter_settings(&mut c, node),
        Kind::Window => c.settings(node, &[("/max_messages", "window (messages)"), ("/max_bytes", "window (bytes)")]),
        Kind::Credit => c.settings(node, &[("/initial_credit", "initial credit")]),
        Kind::ConcurrencyLimiter => c.settings(node, &[("/max_in_flight", "at most in flight")]),
        Kind::ResourcePool => c.settings(node, &[("/max_total", "at most")]),
        Kind::Queue | Kind::Router | Kind::Producer => String::new(),
    };
    let bound = if bound.is_empty() { String::new() } else { format!(", bounded by {bound}") };
    let span = to.as_secs_f64() - from.as_secs_f64();
    c.facts.push(fact);
    // More came than it passed on: beyond what it has in service now (one
    // more taken than finished is a worker busy, not a backlog).
    let more = if arrived > departed + busy { ": more came than it passed on" } else { "" };
    let rated = to.as_nanos().saturating_sub(from.as_nanos()) >= super::MIN_FLOW_SPAN.as_nanos();
    let rate = if rated { format!(" ({} a second)", plain(departed as f64 / span)) } else { String::new() };
    let text = format!(
        "From {} to {} ({span:.2} s), {} messages entered {who} and {} left it{rate}{bound}{more}.",
        secs(from),
        secs(to),
        thousands(arrived as f64),
        thousands(departed as f64)
    );
    // The link is of the flow's end, whenever its settings were read.
    Link { at: to, ..c.link(node, text) }
}

/// The last link of a chain whose cause the run no longer keeps.
pub(super) fn forgotten(sim: &Simulation, node: usize, since: SimTime, state: State) -> Link {
    let c = Cited::new(sim, since);
    let who = sim.node_id(node).to_string();
    let family = match state.family() {
        Family::Send => "send state",
        Family::Life => "life",
        Family::Schedule => "schedule",
        Family::Link => "link",
        Family::Breaker => "breaker",
    };
    c.link(node, format!("{who} entered {state} ({family}) at {}; what caused it is older than the run keeps.", secs(since)))
}

/// The last link of a chain whose next instant the run no longer keeps.
pub(super) fn older(sim: &Simulation, node: usize, at: SimTime) -> Link {
    let c = Cited::new(sim, sim.now());
    let who = sim.node_id(node).to_string();
    c.link(node, format!("What held at {who} at {} is older than the run keeps (it keeps from {} on).", secs(at), secs(sim.now())))
}
