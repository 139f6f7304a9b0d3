//! Spring Boot's `application.yml` out, for resilience4j's circuit
//! breakers (resilience4j 2.4.0, `resilience4j-spring-boot3`): per breaker,
//! an instance under `resilience4j.circuitbreaker.instances` named after
//! its node, with the properties of
//! `CommonCircuitBreakerConfigurationProperties.InstanceProperties`.
//!
//! Guarantees: every setting of the block is written with the property of
//! the same meaning, defaults included (a reader sees what the library
//! would otherwise choose); times as Spring reads a `Duration` (`60s`,
//! `500ms`, or nanoseconds when finer); every instance names the node it is
//! for. Nothing is imported yet: write the block on the canvas.

use super::{ExportError, Exported};
use crate::blocks::product_limiter::{AfterWait, Resilience4jCircuitBreakerSpec, SlidingWindowType};
use crate::plumbing::numbers::readable;
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::ProductLimiter => "it is another product's limiter",
        _ => "resilience4j's circuit breaker is a product limiter of its own (product resilience4j_circuit_breaker)",
    }
}

/// A time as Spring Boot reads a `Duration`: `60s`, `250ms`, `1500ns`.
fn duration(s: f64) -> String {
    let ns = (s * 1e9).round() as u64;
    if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else {
        format!("{ns}ns")
    }
}

/// A YAML key for node `id`: itself when plain, else quoted.
fn key(id: &str) -> String {
    if id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') && id.starts_with(|c: char| c.is_ascii_alphabetic()) {
        id.to_string()
    } else {
        format!("\"{}\"", id.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// The instance for node `id`, six spaces deep.
fn instance(id: &str, spec: &Resilience4jCircuitBreakerSpec) -> String {
    let mut text = format!("      # Sluice's node \"{id}\": {}.\n      {}:\n", spec.summary(), key(id));
    let mut line = |name: &str, value: String| text.push_str(&format!("        {name}: {value}\n"));
    line("failure-rate-threshold", readable(spec.failure_rate_threshold));
    line("slow-call-rate-threshold", readable(spec.slow_call_rate_threshold));
    line("slow-call-duration-threshold", duration(spec.slow_call_duration_threshold_s));
    let window = match spec.sliding_window_type {
        SlidingWindowType::CountBased => "COUNT_BASED",
        SlidingWindowType::TimeBased => "TIME_BASED",
    };
    line("sliding-window-type", window.to_string());
    line("sliding-window-size", spec.sliding_window_size.to_string());
    line("minimum-number-of-calls", spec.minimum_number_of_calls.to_string());
    line("wait-duration-in-open-state", duration(spec.wait_duration_in_open_state_s));
    line("automatic-transition-from-open-to-half-open-enabled", spec.automatic_transition_from_open_to_half_open_enabled.to_string());
    line("permitted-number-of-calls-in-half-open-state", spec.permitted_number_of_calls_in_half_open_state.to_string());
    line("max-wait-duration-in-half-open-state", duration(spec.max_wait_duration_in_half_open_state_s));
    let after = match spec.transition_to_state_after_wait_duration {
        AfterWait::Open => "OPEN",
        AfterWait::Closed => "CLOSED",
    };
    line("transition-to-state-after-wait-duration", after.to_string());
    text
}

/// Writes the `application.yml` of the scenario's resilience4j breakers (or
/// node `node`'s alone).
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    let chosen = super::chosen(
        scenario,
        node,
        "resilience4j",
        |p| match p {
            ProductLimiterSpec::Resilience4jCircuitBreaker(s) => Some(s),
            _ => None,
        },
        cannot,
    )?;
    let mut text = String::from("# resilience4j 2.4.0 (resilience4j-spring-boot3): what Sluice's circuit breakers enforce.\n# Each instance decorates the calls to one service: @CircuitBreaker(name = \"...\").\nresilience4j:\n  circuitbreaker:\n    instances:\n");
    for &(id, spec) in &chosen {
        text.push_str(&instance(id, spec));
    }
    let warnings = vec![
        "Sluice counts a call failed when it is dropped further on or its client gave up at its time-out; in the service, only exceptions count (all of them, unless record-exceptions or ignore-exceptions say otherwise), and a time-out only where a TimeLimiter or the client's own time-out raises one inside the breaker".to_string(),
        "each instance of the service keeps its own breaker: N replicas judge N windows apart".to_string(),
    ];
    Ok(Exported { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::super::limiter_node as node;

    #[test]
    fn every_setting_is_written_with_its_spring_property() {
        let spec = Resilience4jCircuitBreakerSpec { wait_duration_in_open_state_s: 10.0, slow_call_duration_threshold_s: 0.25, sliding_window_type: SlidingWindowType::TimeBased, ..Default::default() };
        let out = super::super::export_node(super::super::Product::Resilience4j, &node("backend-a", ProductLimiterSpec::Resilience4jCircuitBreaker(spec))).unwrap();
        let expected = "      # Sluice's node \"backend-a\": resilience4j breaker 50% of 100 s, open 10 s.
      backend-a:
        failure-rate-threshold: 50
        slow-call-rate-threshold: 100
        slow-call-duration-threshold: 250ms
        sliding-window-type: TIME_BASED
        sliding-window-size: 100
        minimum-number-of-calls: 100
        wait-duration-in-open-state: 10s
        automatic-transition-from-open-to-half-open-enabled: false
        permitted-number-of-calls-in-half-open-state: 10
        max-wait-duration-in-half-open-state: 0s
        transition-to-state-after-wait-duration: OPEN
";
        assert!(out.text.contains(expected), "{}", out.text);
        assert!(out.text.contains("resilience4j:\n  circuitbreaker:\n    instances:\n"));
        assert_eq!(duration(1e-7), "100ns");
        assert_eq!(key("1 odd\"id"), "\"1 odd\\\"id\"");
    }

    #[test]
    fn another_products_limiter_is_refused_saying_why() {
        let other = node("n", ProductLimiterSpec::NginxLimitConn(crate::blocks::product_limiter::NginxLimitConnSpec::of(3)));
        let err = super::super::export_node(super::super::Product::Resilience4j, &other).unwrap_err().to_string();
        assert_eq!(err, "product_limiter \"n\" cannot be written for resilience4j: it is another product's limiter");
    }
}
