//! How the page writes what it shows: block kinds, figures and theory, as
//! people read them. Shared by the palette, the canvas, the inspector and
//! the panels, so that one thing is always written one way.

pub use sluice_engine::numbers::{percent, three_figures};
use sluice_engine::scenario::Kind;
use sluice_engine::theory::{Measured, Prediction, Steady};

/// What each block is, in one line.
pub fn describe_kind(kind: Kind) -> &'static str {
    match kind {
        Kind::Producer => "Makes messages: steady, Poisson, bursts, ramps, traces or a closed loop",
        Kind::Queue => "Holds messages; soft and hard limits, states, drops and time-outs",
        Kind::Consumer => "Serves messages with workers; slow-downs, outages, time-outs",
        Kind::Router => "Sends each message down one of several edges",
        Kind::Window => "Lets at most so many messages be in flight until acknowledged",
        Kind::Credit => "Sends only while the receiver has granted credit",
        Kind::RateLimiter => "At most so many messages or bytes per span of time",
        Kind::ConcurrencyLimiter => "At most so many messages being processed at once",
        Kind::Link => "A wire: bandwidth, latency and a send buffer",
        Kind::Dispatcher => "Workers serving many queues: round-robin, priority, per host",
        Kind::ResourcePool => "Workers created and retired between a minimum and a maximum",
        Kind::ProductLimiter => "A real server's limiter, deciding as its own code does (nginx, HAProxy, Envoy, Go, tower, Netflix, resilience4j)",
    }
}

/// A kind as people read it: "rate_limiter" → "Rate limiter".
pub fn kind_label(kind: Kind) -> String {
    let words = kind.as_str().replace('_', " ");
    let mut c = words.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// All three figures in one line, measured then predicted.
pub fn theory_summary(prediction: &Prediction, measured: &Measured, steady: &Steady) -> String {
    let or_dash = |v: Option<f64>, show: fn(f64) -> String| v.map_or_else(|| "–".to_string(), show);
    format!(
        "{}: measured {} waiting, wait {} s, {} dropped; theory {} waiting, wait {} s, {} dropped",
        prediction.name,
        three_figures(measured.mean_waiting),
        or_dash(measured.mean_wait_s, three_figures),
        or_dash(measured.drop_probability, percent),
        three_figures(steady.mean_waiting),
        three_figures(steady.mean_wait_s),
        percent(steady.drop_probability)
    )
}

// Numbers are written in the engine's styles (`sluice_engine::numbers`),
// so that the page and the engine's messages agree.
pub use sluice_engine::thousands;
