//! How the page writes what it shows: block kinds, figures and theory, as
//! people read them. Shared by the palette, the canvas, the inspector and
//! the panels, so that one thing is always written one way.

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
    }
}

/// A kind as people read it: "rate_limiter" → "Rate limiter".
pub fn kind_label(kind: Kind) -> String {
    let words = kind.as_str().replace('_', " ");
    let mut c = words.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// Three significant figures at most, so measured and predicted line up.
pub fn short_figure(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1e}")
    }
}

pub fn percent(p: f64) -> String {
    if p == 0.0 {
        "0 %".to_string()
    } else if p >= 0.001 {
        format!("{:.1} %", p * 100.0)
    } else {
        format!("{:.1e} %", p * 100.0)
    }
}

/// All three figures in one line, measured then predicted.
pub fn theory_summary(prediction: &Prediction, measured: &Measured, steady: &Steady) -> String {
    let or_dash = |v: Option<f64>, show: fn(f64) -> String| v.map_or_else(|| "–".to_string(), show);
    format!(
        "{}: measured {} waiting, wait {} s, {} dropped; theory {} waiting, wait {} s, {} dropped",
        prediction.name,
        short_figure(measured.mean_waiting),
        or_dash(measured.mean_wait_s, short_figure),
        or_dash(measured.drop_probability, percent),
        short_figure(steady.mean_waiting),
        short_figure(steady.mean_wait_s),
        percent(steady.drop_probability)
    )
}

/// A number rounded to a whole one, with thousands separators (the
/// engine's, so that the page and the engine's messages agree).
pub use sluice_engine::thousands;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(3000.0), "3,000");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1_234_567.8), "1,234,568");
        assert_eq!(thousands(-12_345.0), "-12,345");
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(f64::NAN), "–");
    }
}
