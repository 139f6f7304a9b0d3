//! The browser's clock: the one place the page reads real time.

/// Milliseconds since the page opened (0 where the browser has no
/// performance clock).
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}
