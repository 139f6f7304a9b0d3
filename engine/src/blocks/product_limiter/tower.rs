//! tower's limiting layers, stacked as `ServiceBuilder` stacks them (the
//! first layer is the outermost, and the order is the semantics):
//! transcribed from tower 0.5.3 (`tower/src/limit/rate/service.rs`,
//! `limit/concurrency/service.rs`, `buffer/service.rs` and `worker.rs`,
//! `load_shed/mod.rs`; tag `tower-0.5.3`, the same behaviour as 0.5.2)
//! and tokio 1's timer (`runtime/time/source.rs`: a deadline rounds up
//! to the millisecond tick).
//!
//! Guarantees, as tower decides:
//! - `concurrency_limit(N)`: at most N requests called and not finished (a
//!   permit goes when the response is dropped: here, when the request is
//!   finished). A request that finds none waits, first come first served
//!   (tokio's semaphore is fair), and is called the instant one frees.
//! - `rate_limit(num, per)`: a fixed window, not a token bucket. A call
//!   after the window ended opens the next one at its own instant,
//!   `[C, C + per)`; `num` calls pass in a window, and the num-th leaves it
//!   limited until the window's end, rounded up to tokio's millisecond
//!   tick. A request waiting then is called at that tick, opening the next
//!   window there: a backlog passes `num` at a time at each window's start.
//!   Built at the run's start, its first window has already ended.
//! - Nothing is refused unless `load_shed` stands directly above a layer
//!   that would make its caller wait; then the request is refused at once
//!   (tower's `Overloaded`) instead of waiting. Directly above a limit,
//!   that is when the limit is reached (no request waits); directly above
//!   `buffer(K)` with a limit beneath it, when K + 1 already wait (the
//!   buffer's K and the one its worker holds). `load_shed` with nothing
//!   beneath it never refuses; a `buffer` above `load_shed` changes
//!   nothing, its worker being always ready.
//! - Without `load_shed` (or with one that never refuses), a request
//!   waits as long as it takes, first come first served: a `buffer`'s
//!   bound changes nothing decided, callers beyond it waiting for a slot
//!   in the same order.
//!
//! Sluice models stacks of at most one of each layer, with at most one of
//! `concurrency_limit` and `rate_limit`. A `rate_limit` shared by
//! concurrent callers needs a `buffer` or a `load_shed` above it
//! (`RateLimit` is not `Clone`), as in tower. Not modelled: the layers'
//! errors (a failing service fails the buffer's worker), a caller that
//! gives up waiting, and other layers (`timeout`, `retry`).

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{push_error, FieldError};

/// One layer of a tower stack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "layer", rename_all = "snake_case", deny_unknown_fields)]
pub enum TowerLayer {
    /// `LoadShedLayer`: refuses when the layer beneath would wait.
    LoadShed,
    /// `BufferLayer::new(bound)`: a channel of `bound` and a worker.
    Buffer { bound: u32 },
    /// `ConcurrencyLimitLayer::new(max)`.
    ConcurrencyLimit { max: u32 },
    /// `RateLimitLayer::new(num, per)`.
    RateLimit { num: u32, per_s: f64 },
}

/// A tower stack, outermost layer first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TowerSpec {
    pub layers: Vec<TowerLayer>,
    /// What the handler answers a refused (`Overloaded`) request.
    #[serde(default = "default_status")]
    pub status: u16,
}

fn default_status() -> u16 {
    503
}

/// The longest window taken: about 11 days.
const MAX_PER_S: f64 = 1e6;

/// What a stack limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    None,
    Concurrency(u32),
    Rate { num: u32, per_ns: u64 },
}

/// When a stack refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shed {
    /// Never: requests wait.
    Never,
    /// When the limit is reached: nothing waits.
    AtLimit,
    /// When this many already wait (a buffer's bound + 1).
    Beyond(u64),
}

impl TowerSpec {
    /// `.load_shed().buffer(bound).concurrency_limit(max)`.
    pub fn shed_buffered(bound: u32, max: u32) -> TowerSpec {
        TowerSpec { layers: vec![TowerLayer::LoadShed, TowerLayer::Buffer { bound }, TowerLayer::ConcurrencyLimit { max }], status: default_status() }
    }

    fn position(&self, pick: impl Fn(&TowerLayer) -> bool) -> Option<usize> {
        self.layers.iter().position(pick)
    }

    /// What the stack limits, and when it refuses.
    pub fn shape(&self) -> (Limit, Shed) {
        let limit_at = self.position(|l| matches!(l, TowerLayer::ConcurrencyLimit { .. } | TowerLayer::RateLimit { .. }));
        let limit = match limit_at.map(|i| &self.layers[i]) {
            Some(TowerLayer::ConcurrencyLimit { max }) => Limit::Concurrency(*max),
            Some(TowerLayer::RateLimit { num, per_s }) => Limit::Rate { num: *num, per_ns: (per_s * 1e9).round().max(1.0) as u64 },
            _ => Limit::None,
        };
        let shed = match (self.position(|l| *l == TowerLayer::LoadShed), limit_at) {
            (Some(s), Some(l)) if s + 1 == l => Shed::AtLimit,
            (Some(s), Some(l)) if s < l => match self.layers.get(s + 1) {
                Some(TowerLayer::Buffer { bound }) => Shed::Beyond(u64::from(*bound) + 1),
                _ => Shed::Never,
            },
            _ => Shed::Never,
        };
        (limit, shed)
    }

    /// Whether it counts requests in progress (its limit is
    /// `concurrency_limit`): the one home of that rule.
    pub fn counts_in_progress(&self) -> bool {
        matches!(self.shape().0, Limit::Concurrency(_))
    }

    /// As `ServiceBuilder` writes it: `tower load_shed buffer(2) concurrency_limit(1)`.
    pub fn summary(&self) -> String {
        let layers: Vec<String> = self.layers.iter().map(TowerLayer::written).collect();
        if layers.is_empty() {
            "tower (no layer)".into()
        } else {
            format!("tower {}", layers.join(" "))
        }
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        let mut seen = Vec::new();
        for (i, layer) in self.layers.iter().enumerate() {
            let at = format!("{path}.layers[{i}]");
            let name = std::mem::discriminant(layer);
            if seen.contains(&name) {
                push_error(errors, at.clone(), "each layer once: Sluice models a stack of at most one of each");
            }
            seen.push(name);
            match layer {
                TowerLayer::Buffer { bound } if !(1..=1 << 20).contains(bound) => push_error(errors, format!("{at}.bound"), "must be from 1 to 2^20 (tower's buffer panics at 0)"),
                TowerLayer::ConcurrencyLimit { max } if !(1..=1 << 30).contains(max) => push_error(errors, format!("{at}.max"), "must be from 1 to 2^30"),
                TowerLayer::RateLimit { num, .. } if !(1..=1 << 30).contains(num) => push_error(errors, format!("{at}.num"), "must be from 1 to 2^30 (tower's Rate panics at 0)"),
                TowerLayer::RateLimit { per_s, .. } if !per_s.is_finite() || !(1e-6..=MAX_PER_S).contains(per_s) || (per_s * 1e9 - (per_s * 1e9).round()).abs() > 1e-3 => {
                    push_error(errors, format!("{at}.per_s"), "must be whole nanoseconds from 0.000001 s to 1,000,000 s (tower's Rate panics at 0)")
                }
                _ => {}
            }
        }
        let limits = self.layers.iter().filter(|l| matches!(l, TowerLayer::ConcurrencyLimit { .. } | TowerLayer::RateLimit { .. })).count();
        if limits > 1 {
            push_error(errors, format!("{path}.layers"), "one limit a stack: concurrency_limit or rate_limit, not both");
        }
        if let Some(r) = self.position(|l| matches!(l, TowerLayer::RateLimit { .. })) {
            if !self.layers[..r].iter().any(|l| matches!(l, TowerLayer::Buffer { .. } | TowerLayer::LoadShed)) {
                push_error(errors, format!("{path}.layers[{r}]"), "a rate_limit needs a buffer or a load_shed above it: tower's RateLimit is not Clone, so concurrent callers cannot share it alone");
            }
        }
        if !(400..=599).contains(&self.status) {
            push_error(errors, format!("{path}.status"), "must be from 400 to 599");
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("status")] => Some(NumberField::Whole16(&mut self.status)),
            [Step::Key("layers"), Step::Index(i), Step::Key(field)] => match (self.layers.get_mut(*i)?, *field) {
                (TowerLayer::Buffer { bound }, "bound") => Some(NumberField::Whole32(bound)),
                (TowerLayer::ConcurrencyLimit { max }, "max") => Some(NumberField::Whole32(max)),
                (TowerLayer::RateLimit { num, .. }, "num") => Some(NumberField::Whole32(num)),
                (TowerLayer::RateLimit { per_s, .. }, "per_s") => Some(NumberField::Real(per_s)),
                _ => None,
            },
            _ => None,
        }
    }
}

impl TowerLayer {
    /// As `ServiceBuilder` writes it: `buffer(2)`, `rate_limit(5, 1s)`.
    fn written(&self) -> String {
        match self {
            TowerLayer::LoadShed => "load_shed".into(),
            TowerLayer::Buffer { bound } => format!("buffer({bound})"),
            TowerLayer::ConcurrencyLimit { max } => format!("concurrency_limit({max})"),
            TowerLayer::RateLimit { num, per_s } => format!("rate_limit({num}, {per_s}s)"),
        }
    }
}

/// `ns` rounded up to tokio's millisecond tick (from the run's start).
fn tick(ns: u64) -> u64 {
    ns.div_ceil(1_000_000).saturating_mul(1_000_000)
}

/// A rate limit's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Window {
    /// Calls pass: `rem` more before `until`.
    Ready { until: u64, rem: u32 },
    /// The window's calls are spent until `until`.
    Limited { until: u64 },
}

/// What the stack decided for a request at arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Wait,
    Refuse,
}

/// A stack's state: permits in use, and the rate limit's window.
#[derive(Clone, Debug)]
pub struct State {
    in_use: u64,
    window: Window,
}

impl Default for State {
    fn default() -> State {
        // Built at the start: a window that has just ended.
        State { in_use: 0, window: Window::Ready { until: 0, rem: 0 } }
    }
}

impl State {
    /// Requests called and not finished (a concurrency limit's permits).
    pub fn in_use(&self) -> u64 {
        self.in_use
    }

    /// Whether the limit would let a call through at `now` (its
    /// `poll_ready`, taking nothing).
    fn ready(&self, limit: Limit, now: u64) -> bool {
        match (limit, self.window) {
            (Limit::None, _) => true,
            (Limit::Concurrency(max), _) => self.in_use < u64::from(max),
            (Limit::Rate { .. }, Window::Ready { .. }) => true,
            (Limit::Rate { .. }, Window::Limited { until }) => now >= tick(until),
        }
    }

    /// A call at `now`, the limit ready.
    fn call(&mut self, limit: Limit, now: u64) {
        match limit {
            Limit::None => {}
            Limit::Concurrency(_) => self.in_use += 1,
            Limit::Rate { num, per_ns } => {
                let (mut until, mut rem) = match self.window {
                    Window::Ready { until, rem } => (until, rem),
                    // The sleep fired: the poll opens a window now.
                    Window::Limited { .. } => (now.saturating_add(per_ns), num),
                };
                if now >= until {
                    until = now.saturating_add(per_ns);
                    rem = num;
                }
                self.window = if rem > 1 { Window::Ready { until, rem: rem - 1 } } else { Window::Limited { until } };
            }
        }
    }

    /// Decides a request arriving at `now` while `waiting` wait.
    pub fn decide(&mut self, spec: &TowerSpec, waiting: usize, now: u64) -> Verdict {
        let (limit, shed) = spec.shape();
        if waiting == 0 && self.ready(limit, now) {
            self.call(limit, now);
            return Verdict::Pass;
        }
        match shed {
            Shed::Never => Verdict::Wait,
            Shed::AtLimit => Verdict::Refuse,
            Shed::Beyond(room) if (waiting as u64) < room => Verdict::Wait,
            Shed::Beyond(_) => Verdict::Refuse,
        }
    }

    /// Calls the first waiting request at `now` if the limit lets it.
    pub fn grant(&mut self, spec: &TowerSpec, now: u64) -> bool {
        let (limit, _) = spec.shape();
        let ready = self.ready(limit, now);
        if ready {
            self.call(limit, now);
        }
        ready
    }

    /// When a waiting request may next be called without another finishing
    /// first: a limited window's tick.
    pub fn wakes_at(&self, spec: &TowerSpec) -> Option<u64> {
        match (spec.shape().0, self.window) {
            (Limit::Rate { .. }, Window::Limited { until }) => Some(tick(until)),
            _ => None,
        }
    }

    /// A request called finished: its permit goes.
    pub fn finished(&mut self) {
        self.in_use = self.in_use.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn rate(num: u32, per_s: f64, above: &[TowerLayer]) -> TowerSpec {
        let mut layers = above.to_vec();
        layers.push(TowerLayer::RateLimit { num, per_s });
        TowerSpec { layers, status: 503 }
    }

    /// The notes' example: `rate_limit(2, 10ms)` behind a buffer, requests
    /// at 0, 1, 2 and 3 ms: two at once, the next two at 10 ms.
    #[test]
    fn a_rate_limit_is_a_window_opened_by_the_first_call_and_a_backlog_passes_at_its_end() {
        let spec = rate(2, 0.010, &[TowerLayer::Buffer { bound: 8 }]);
        let mut s = State::default();
        assert_eq!(s.decide(&spec, 0, 0), Verdict::Pass);
        assert_eq!(s.decide(&spec, 0, MS), Verdict::Pass, "the num-th passes too");
        assert_eq!(s.decide(&spec, 0, 2 * MS), Verdict::Wait);
        assert_eq!(s.wakes_at(&spec), Some(10 * MS));
        assert!(!s.grant(&spec, 9 * MS));
        assert!(s.grant(&spec, 10 * MS) && s.grant(&spec, 10 * MS), "two at the window's start");
        assert!(!s.grant(&spec, 10 * MS));
        assert_eq!(s.wakes_at(&spec), Some(20 * MS), "windows back to back while a backlog lasts");
        // Idle past the window: the next call opens one at its own instant.
        assert_eq!(s.decide(&spec, 0, 37 * MS + 5), Verdict::Pass);
        assert_eq!(s.decide(&spec, 0, 38 * MS), Verdict::Pass);
        assert_eq!(s.wakes_at(&spec), Some(48 * MS), "37 ms and 5 ns + 10 ms, rounded up to tokio's tick");
    }

    #[test]
    fn load_shed_refuses_only_directly_above_what_would_wait() {
        let conc = |layers: Vec<TowerLayer>| TowerSpec { layers, status: 503 }.shape();
        let c = TowerLayer::ConcurrencyLimit { max: 1 };
        let b = TowerLayer::Buffer { bound: 2 };
        assert_eq!(conc(vec![TowerLayer::LoadShed, c.clone()]), (Limit::Concurrency(1), Shed::AtLimit));
        assert_eq!(conc(vec![TowerLayer::LoadShed, b.clone(), c.clone()]), (Limit::Concurrency(1), Shed::Beyond(3)));
        assert_eq!(conc(vec![b.clone(), TowerLayer::LoadShed, c.clone()]), (Limit::Concurrency(1), Shed::AtLimit), "a buffer above load_shed changes nothing");
        assert_eq!(conc(vec![c.clone(), TowerLayer::LoadShed]), (Limit::Concurrency(1), Shed::Never), "load_shed over the bare service never refuses");
        assert_eq!(conc(vec![c.clone()]), (Limit::Concurrency(1), Shed::Never));
        assert_eq!(conc(vec![c.clone(), TowerLayer::LoadShed, b.clone()]), (Limit::Concurrency(1), Shed::Never), "a buffer beneath a load_shed beneath the limit: nothing refuses");
        let spec = TowerSpec::shed_buffered(2, 1);
        let mut s = State::default();
        // One called; then, with 0, 1, 2 and 3 waiting already.
        let verdicts: Vec<Verdict> = [0, 0, 1, 2, 3].into_iter().map(|waiting| s.decide(&spec, waiting, 0)).collect();
        assert_eq!(verdicts, [Verdict::Pass, Verdict::Wait, Verdict::Wait, Verdict::Wait, Verdict::Refuse], "one served, bound + 1 waiting, then refused");
        s.finished();
        assert!(s.grant(&spec, 0));
    }

    #[test]
    fn the_stacks_sluice_models_are_checked_with_the_layer_named() {
        let errors = |spec: &TowerSpec| {
            let mut e = Vec::new();
            spec.validate("nodes[1]", &mut e);
            e.into_iter().map(|e| format!("{}: {}", e.path, e.message)).collect::<Vec<_>>()
        };
        assert!(errors(&TowerSpec::shed_buffered(2, 1)).is_empty());
        assert!(errors(&rate(5, 1.0, &[TowerLayer::LoadShed])).is_empty());
        assert!(errors(&rate(5, 1.0, &[]))[0].starts_with("nodes[1].layers[0]: a rate_limit needs a buffer or a load_shed above it"));
        let both = TowerSpec { layers: vec![TowerLayer::Buffer { bound: 1 }, TowerLayer::ConcurrencyLimit { max: 2 }, TowerLayer::RateLimit { num: 1, per_s: 1.0 }], status: 503 };
        assert_eq!(errors(&both), ["nodes[1].layers: one limit a stack: concurrency_limit or rate_limit, not both"]);
        let zero = TowerSpec { layers: vec![TowerLayer::Buffer { bound: 0 }, TowerLayer::Buffer { bound: 1 }], status: 503 };
        assert_eq!(errors(&zero)[0], "nodes[1].layers[0].bound: must be from 1 to 2^20 (tower's buffer panics at 0)");
        assert!(errors(&zero)[1].starts_with("nodes[1].layers[1]: each layer once"));
        assert_eq!(TowerSpec::shed_buffered(2, 1).summary(), "tower load_shed buffer(2) concurrency_limit(1)");
    }

    /// Each bound alone, at its edges, names its own field.
    #[test]
    fn every_bound_is_checked_alone_at_its_edges() {
        let fields = |layer: TowerLayer, status: u16| {
            let spec = TowerSpec { layers: vec![TowerLayer::Buffer { bound: 1 }, layer], status };
            let mut e = Vec::new();
            spec.validate("n", &mut e);
            e.into_iter().map(|e| e.path).collect::<Vec<_>>()
        };
        let limit = |max| TowerLayer::ConcurrencyLimit { max };
        let per = |num, per_s| TowerLayer::RateLimit { num, per_s };
        for (layer, status, wrong) in [
            (limit(1), 503, None),
            (limit(1 << 30), 503, None),
            (limit(0), 503, Some("n.layers[1].max")),
            (limit((1 << 30) + 1), 503, Some("n.layers[1].max")),
            (per(1, 1.0), 503, None),
            (per(1 << 30, 1e-6), 503, None),
            (per(1, MAX_PER_S), 503, None),
            (per(0, 1.0), 503, Some("n.layers[1].num")),
            (per((1 << 30) + 1, 1.0), 503, Some("n.layers[1].num")),
            (per(1, 0.0), 503, Some("n.layers[1].per_s")),
            (per(1, f64::NAN), 503, Some("n.layers[1].per_s")),
            (per(1, 1e-7), 503, Some("n.layers[1].per_s")),
            (per(1, MAX_PER_S * 2.0), 503, Some("n.layers[1].per_s")),
            (per(1, 1.000_000_000_5), 503, Some("n.layers[1].per_s")),
            (limit(1), 400, None),
            (limit(1), 599, None),
            (limit(1), 399, Some("n.status")),
            (limit(1), 600, Some("n.status")),
        ] {
            let found = fields(layer.clone(), status);
            assert_eq!(found, wrong.into_iter().map(String::from).collect::<Vec<_>>(), "{layer:?} answering {status}");
        }
        let bound = |bound| TowerSpec { layers: vec![TowerLayer::Buffer { bound }], status: 503 };
        for (b, ok) in [(1, true), (1 << 20, true), ((1 << 20) + 1, false)] {
            let mut e = Vec::new();
            bound(b).validate("n", &mut e);
            assert_eq!(e.is_empty(), ok, "buffer({b})");
        }
    }

    /// Only a concurrency limit counts requests in progress.
    #[test]
    fn only_a_concurrency_limit_counts_requests_in_progress() {
        assert!(TowerSpec::shed_buffered(2, 1).counts_in_progress());
        assert!(!rate(2, 1.0, &[TowerLayer::Buffer { bound: 2 }]).counts_in_progress());
        assert!(!TowerSpec { layers: vec![TowerLayer::LoadShed], status: 503 }.counts_in_progress());
    }
}
