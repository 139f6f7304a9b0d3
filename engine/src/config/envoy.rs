//! Envoy configuration out, for its HTTP local rate limit filter: the
//! `http_filters` entry that enforces what a block enforces, in YAML.
//!
//! Guarantees: the filter's token bucket, `filter_enabled`,
//! `filter_enforced` (each at the block's percentage, as a fraction of a
//! hundred, ten thousand or a million) and `status` are the block's; a block Envoy cannot
//! express is refused with why; where the meaning depends on the version
//! or the deployment (the timer bucket, one bucket per process) it warns.

use super::{ExportError, Exported};
use crate::blocks::product_limiter::{Bucket, EnvoyLocalRateLimitSpec};
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::RateLimiter => "Sluice's own rate limiter is not transcribed from Envoy; a product limiter envoy_local_rate_limit says what Envoy's filter does",
        Kind::ConcurrencyLimiter => "Envoy's circuit breakers are not modelled yet",
        Kind::ProductLimiter => "it is another product's limiter",
        _ => "Envoy has no such filter",
    }
}

/// A percentage as Envoy's `FractionalPercent`: the numerator and the
/// coarsest denominator that holds it.
fn fraction(percent: f64) -> (u64, &'static str) {
    if percent.fract() == 0.0 {
        (percent as u64, "HUNDRED")
    } else if (percent * 100.0).fract().abs() < 1e-9 {
        ((percent * 100.0).round() as u64, "TEN_THOUSAND")
    } else {
        ((percent * 10_000.0).round() as u64, "MILLION")
    }
}

/// A status as Envoy's `StatusCode` enum names it, or its number.
fn status_name(code: u16) -> String {
    match code {
        400 => "BadRequest".into(),
        403 => "Forbidden".into(),
        429 => "TooManyRequests".into(),
        500 => "InternalServerError".into(),
        502 => "BadGateway".into(),
        503 => "ServiceUnavailable".into(),
        504 => "GatewayTimeout".into(),
        n => n.to_string(),
    }
}

/// Whole milliseconds as a protobuf `Duration`: `1s`, `0.05s`.
fn duration(ms: u64) -> String {
    match ms % 1000 {
        0 => format!("{}s", ms / 1000),
        rest => format!("{}.{}s", ms / 1000, format!("{rest:03}").trim_end_matches('0')),
    }
}

/// The filter entry for node `id`.
fn filter(id: &str, spec: &EnvoyLocalRateLimitSpec) -> String {
    let percent = |name: &str, p: f64| {
        let (numerator, denominator) = fraction(p);
        format!("    {name}:\n      runtime_key: {id}_{}\n      default_value:\n        numerator: {numerator}\n        denominator: {denominator}\n", name.trim_start_matches("filter_"))
    };
    format!(
        "- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n    stat_prefix: {id}\n    token_bucket:\n      max_tokens: {}\n      tokens_per_fill: {}\n      fill_interval: {}\n{}{}    status:\n      code: {}\n",
        spec.max_tokens,
        spec.tokens_per_fill,
        duration(spec.fill_interval_ms()),
        percent("filter_enabled", spec.enabled_percent),
        percent("filter_enforced", spec.enforced_percent),
        status_name(spec.sent_status())
    )
}

/// Writes the `http_filters` entries that enforce the scenario's Envoy
/// limiters (or node `node`'s alone).
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    let chosen = super::chosen(scenario, node, "Envoy", |p| match p {
        ProductLimiterSpec::EnvoyLocalRateLimit(s) => Some(s),
        _ => None,
    }, cannot)?;
    let mut text = String::from("# Envoy: what Sluice's limiters enforce, as entries of an HttpConnectionManager's\n# http_filters, before envoy.filters.http.router.\n");
    let mut timer = false;
    let mut partial = false;
    for &(id, spec) in &chosen {
        timer |= spec.bucket == Bucket::Timer;
        partial |= spec.enabled_percent < 100.0 || spec.enforced_percent < 100.0;
        text.push_str(&filter(id, spec));
    }
    let mut warnings = vec!["the bucket is one per Envoy process, shared by its workers: N Envoy instances let through N times the rate".to_string()];
    if timer {
        warnings.push("the timer bucket is Envoy 1.30's and earlier: 1.31 to 1.33 need the runtime guard envoy.reloadable_features.no_timer_based_rate_limit_token_bucket set to false, and 1.34 and later refill continuously whatever is written".to_string());
    } else {
        warnings.push("the continuous (atomic) bucket is Envoy 1.31's and later: 1.30 and earlier refill on a timer, whole fills at each tick".to_string());
    }
    if partial {
        warnings.push("filter_enabled and filter_enforced are drawn at random for each request, and a runtime key of the same name overrides them".to_string());
    }
    Ok(Exported { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::BlockSpec;

    fn alone(spec: EnvoyLocalRateLimitSpec) -> Scenario {
        let node = crate::scenario::NodeSpec { id: "edge".into(), position: None, block: BlockSpec::ProductLimiter(ProductLimiterSpec::EnvoyLocalRateLimit(spec)) };
        Scenario { version: crate::scenario::SCENARIO_VERSION, name: String::new(), description: String::new(), seed: None, nodes: vec![node], edges: Vec::new() }
    }

    #[test]
    fn the_filter_is_written_with_its_bucket_percentages_and_status() {
        let out = export(&alone(EnvoyLocalRateLimitSpec::of(10, 5, 0.5)), None).unwrap();
        for line in ["stat_prefix: edge", "max_tokens: 10", "tokens_per_fill: 5", "fill_interval: 0.5s", "runtime_key: edge_enabled", "numerator: 100", "denominator: HUNDRED", "code: TooManyRequests"] {
            assert!(out.text.contains(line), "{line} missing:\n{}", out.text);
        }
        assert_eq!(out.warnings.len(), 2);
        let shadow = EnvoyLocalRateLimitSpec { enforced_percent: 12.5, bucket: Bucket::Timer, status: 503, ..EnvoyLocalRateLimitSpec::of(1, 1, 1.0) };
        let out = export(&alone(shadow), None).unwrap();
        assert!(out.text.contains("numerator: 1250\n        denominator: TEN_THOUSAND"), "{}", out.text);
        assert!(out.text.contains("code: ServiceUnavailable"), "{}", out.text);
        assert!(out.warnings.iter().any(|w| w.contains("no_timer_based_rate_limit_token_bucket")));
        assert_eq!(fraction(33.3333), (333_333, "MILLION"));
        assert_eq!([duration(1000), duration(50), duration(1500), duration(120_000)], ["1s", "0.05s", "1.5s", "120s"]);
    }
}
