//! Java code out, for Netflix's concurrency-limits (0.5.4): per limiter,
//! the `SimpleLimiter` built with its limit, wrapped in its
//! `WindowedLimit` when it has one.
//!
//! Guarantees: every setting of the block is written with the builder
//! method of the same meaning, defaults included (a reader sees what the
//! library would otherwise choose); times as whole milliseconds when they
//! are, else nanoseconds; every limiter names the node it is for. The
//! library has no configuration file, so nothing is imported.

use super::{ExportError, Exported};
use crate::blocks::product_limiter::{NetflixAimdSpec, NetflixGradient2Spec, NetflixVegasSpec, NetflixWindowSpec};
use crate::plumbing::numbers::readable;
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::ConcurrencyLimiter => "Sluice's own concurrency limiter keeps a fixed limit; a product limiter of Netflix's adapts it as the library does",
        Kind::ProductLimiter => "it is another product's limiter",
        _ => "concurrency-limits has no such limiter",
    }
}

/// A time as Java's `(long, TimeUnit)` arguments.
fn duration(s: f64) -> String {
    let ns = (s * 1e9).round() as u64;
    if ns.is_multiple_of(1_000_000) {
        format!("{}, TimeUnit.MILLISECONDS", ns / 1_000_000)
    } else {
        format!("{ns}, TimeUnit.NANOSECONDS")
    }
}

/// A Java name for node `id`: `api-edge` is `apiEdgeLimiter`.
fn java_name(id: &str) -> String {
    let mut name = String::new();
    let mut upper = false;
    for c in id.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = false;
        } else {
            upper = !name.is_empty();
        }
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name.insert_str(0, "node");
    }
    name + "Limiter"
}

/// The limit's builder, `indent` deep.
fn limit(spec: &ProductLimiterSpec, indent: &str) -> String {
    let line = |method: &str, value: String| format!("{indent}    .{method}({value})\n");
    let mut code = String::new();
    match spec {
        ProductLimiterSpec::NetflixAimd(NetflixAimdSpec { initial_limit, min_limit, max_limit, backoff_ratio, timeout_s, .. }) => {
            code.push_str("AIMDLimit.newBuilder()\n");
            code.push_str(&line("initialLimit", initial_limit.to_string()));
            code.push_str(&line("minLimit", min_limit.to_string()));
            code.push_str(&line("maxLimit", max_limit.to_string()));
            code.push_str(&line("backoffRatio", readable(*backoff_ratio)));
            code.push_str(&line("timeout", duration(*timeout_s)));
        }
        ProductLimiterSpec::NetflixVegas(NetflixVegasSpec { initial_limit, max_concurrency, smoothing, probe_multiplier, alpha, beta, .. }) => {
            code.push_str("VegasLimit.newBuilder()\n");
            code.push_str(&line("initialLimit", initial_limit.to_string()));
            code.push_str(&line("maxConcurrency", max_concurrency.to_string()));
            code.push_str(&line("smoothing", readable(*smoothing)));
            code.push_str(&line("probeMultiplier", probe_multiplier.to_string()));
            if let Some(alpha) = alpha {
                code.push_str(&line("alpha", alpha.to_string()));
            }
            if let Some(beta) = beta {
                code.push_str(&line("beta", beta.to_string()));
            }
        }
        ProductLimiterSpec::NetflixGradient2(NetflixGradient2Spec { initial_limit, min_limit, max_concurrency, smoothing, queue_size, long_window, rtt_tolerance, .. }) => {
            code.push_str("Gradient2Limit.newBuilder()\n");
            code.push_str(&line("initialLimit", initial_limit.to_string()));
            code.push_str(&line("minLimit", min_limit.to_string()));
            code.push_str(&line("maxConcurrency", max_concurrency.to_string()));
            code.push_str(&line("smoothing", readable(*smoothing)));
            code.push_str(&line("queueSize", queue_size.to_string()));
            code.push_str(&line("longWindow", long_window.to_string()));
            code.push_str(&line("rttTolerance", readable(*rtt_tolerance)));
        }
        _ => {}
    }
    code.push_str(indent);
    code.push_str("    .build()");
    code
}

/// The window of a Netflix limiter, if it has one.
fn window_of(spec: &ProductLimiterSpec) -> Option<&NetflixWindowSpec> {
    match spec {
        ProductLimiterSpec::NetflixAimd(s) => s.window.as_ref(),
        ProductLimiterSpec::NetflixVegas(s) => s.window.as_ref(),
        ProductLimiterSpec::NetflixGradient2(s) => s.window.as_ref(),
        _ => None,
    }
}

/// The `SimpleLimiter` for node `id`.
fn limiter(id: &str, spec: &ProductLimiterSpec) -> String {
    let mut code = format!("// Sluice's node \"{id}\": {}.\nSimpleLimiter<Void> {} = SimpleLimiter.newBuilder()\n", spec.summary(), java_name(id));
    match window_of(spec) {
        None => code.push_str(&format!("    .limit({})\n", limit(spec, "    "))),
        Some(w) => {
            code.push_str("    .limit(WindowedLimit.newBuilder()\n");
            code.push_str(&format!("        .minWindowTime({})\n", duration(w.min_window_s)));
            code.push_str(&format!("        .maxWindowTime({})\n", duration(w.max_window_s)));
            code.push_str(&format!("        .minRttThreshold({})\n", duration(w.min_rtt_threshold_s)));
            code.push_str(&format!("        .windowSize({})\n", w.window_size));
            if let Some(p) = w.percentile {
                code.push_str(&format!("        .sampleWindowFactory(PercentileSampleWindowFactory.of({}, {}))\n", readable(p), w.capacity));
            }
            code.push_str(&format!("        .build({}))\n", limit(spec, "        ")));
        }
    }
    code.push_str("    .build();\n");
    code
}

/// Writes the Java that builds the scenario's Netflix limiters (or node
/// `node`'s alone).
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    let chosen = super::chosen(
        scenario,
        node,
        "Netflix concurrency-limits",
        |p| match p {
            ProductLimiterSpec::NetflixAimd(_) | ProductLimiterSpec::NetflixVegas(_) | ProductLimiterSpec::NetflixGradient2(_) => Some(p),
            _ => None,
        },
        cannot,
    )?;
    let mut text = String::from(
        "// Netflix concurrency-limits 0.5.4: what Sluice's limiters enforce.\n// Gradle: implementation(\"com.netflix.concurrency-limits:concurrency-limits-core:0.5.4\")\nimport com.netflix.concurrency.limits.limit.*;\n",
    );
    if chosen.iter().any(|(_, spec)| window_of(spec).is_some_and(|w| w.percentile.is_some())) {
        text.push_str("import com.netflix.concurrency.limits.limit.window.PercentileSampleWindowFactory;\n");
    }
    text.push_str("import com.netflix.concurrency.limits.limiter.SimpleLimiter;\nimport java.util.concurrent.TimeUnit;\n");
    for &(id, spec) in &chosen {
        text.push('\n');
        text.push_str(&limiter(id, spec));
    }
    text.push_str(
        "\n// Per request: Optional<Limiter.Listener> l = limiter.acquire(null); empty: refuse it (429 or 503);\n// else l.get().onSuccess() when it completes, onDropped() when it times out or fails.\n",
    );
    let warnings = vec![
        "each process keeps its own limit: N replicas let up to N times the limit through".to_string(),
        "a request counts as dropped only where the code calls onDropped (a time-out, an error); Sluice counts a drop anywhere further on".to_string(),
    ];
    Ok(Exported { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::super::limiter_node as node;

    #[test]
    fn every_setting_is_written_with_its_builder_method_and_a_window_wraps_the_limit() {
        let aimd = NetflixAimdSpec { window: Some(NetflixWindowSpec { percentile: Some(0.9), min_window_s: 0.5, ..NetflixWindowSpec::default() }), ..NetflixAimdSpec::default() };
        let out = super::super::export_node(super::super::Product::Netflix, &node("api-edge", ProductLimiterSpec::NetflixAimd(aimd))).unwrap();
        let expected = "// Sluice's node \"api-edge\": Netflix AIMD 20..200, windowed p90.
SimpleLimiter<Void> apiEdgeLimiter = SimpleLimiter.newBuilder()
    .limit(WindowedLimit.newBuilder()
        .minWindowTime(500, TimeUnit.MILLISECONDS)
        .maxWindowTime(1000, TimeUnit.MILLISECONDS)
        .minRttThreshold(100000, TimeUnit.NANOSECONDS)
        .windowSize(10)
        .sampleWindowFactory(PercentileSampleWindowFactory.of(0.9, 100))
        .build(AIMDLimit.newBuilder()
            .initialLimit(20)
            .minLimit(20)
            .maxLimit(200)
            .backoffRatio(0.9)
            .timeout(5000, TimeUnit.MILLISECONDS)
            .build()))
    .build();
";
        assert!(out.text.contains(expected), "{}", out.text);
        assert!(out.text.contains("import com.netflix.concurrency.limits.limit.window.PercentileSampleWindowFactory;\n"));
        let vegas = NetflixVegasSpec { alpha: Some(2), beta: Some(4), ..NetflixVegasSpec::default() };
        let out = super::super::export_node(super::super::Product::Netflix, &node("1st", ProductLimiterSpec::NetflixVegas(vegas))).unwrap();
        assert!(out.text.contains("SimpleLimiter<Void> node1stLimiter = SimpleLimiter.newBuilder()\n    .limit(VegasLimit.newBuilder()\n"), "{}", out.text);
        assert!(out.text.contains("        .probeMultiplier(30)\n        .alpha(2)\n        .beta(4)\n        .build())\n    .build();"), "{}", out.text);
        assert!(!out.text.contains("PercentileSampleWindowFactory"), "imported only where used");
        let out = super::super::export_node(super::super::Product::Netflix, &node("g", ProductLimiterSpec::NetflixGradient2(NetflixGradient2Spec::default()))).unwrap();
        assert!(out.text.contains(".queueSize(4)\n        .longWindow(600)\n        .rttTolerance(1.5)\n"), "{}", out.text);
    }

    #[test]
    fn another_products_limiter_is_refused_saying_why() {
        let other = node("n", ProductLimiterSpec::NginxLimitConn(crate::blocks::product_limiter::NginxLimitConnSpec::of(3)));
        let err = super::super::export_node(super::super::Product::Netflix, &other).unwrap_err().to_string();
        assert_eq!(err, "product_limiter \"n\" cannot be written for Netflix concurrency-limits: it is another product's limiter");
    }
}
