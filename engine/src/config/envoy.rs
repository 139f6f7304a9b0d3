//! Envoy configurations in and out, for its HTTP local rate limit filter
//! (`envoy.filters.http.local_ratelimit`) and its clusters' circuit
//! breakers, in YAML.
//!
//! Guarantees: import finds every such filter wherever it stands (a whole
//! bootstrap, a listener, a list of `http_filters` as export writes it) and
//! makes each a row named after its `stat_prefix`; every cluster with
//! `circuit_breakers` is a row of its own named after the cluster, its
//! `DEFAULT` thresholds, its upstream protocol, and the timeout of the
//! first route to it (15 s when no route gives one); every field of the
//! filter or the thresholds it does not model, and every other HTTP
//! filter, is noted with its line; a value it cannot read is refused with
//! its line. Export writes the `http_filters` entry (and, for a breaker,
//! the cluster and a route to it); importing it gives the same block back. The
//! filter's token bucket, `filter_enabled`,
//! `filter_enforced` (each at the block's percentage, as a fraction of a
//! hundred, ten thousand or a million) and `status` are the block's; a block Envoy cannot
//! express is refused with why; where the meaning depends on the version
//! or the deployment (the timer bucket, one bucket per process) it warns.

use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoadError, Node};

use super::{scenario_of, ExportError, Exported, ImportError, Imported, Note, Row};
use crate::blocks::product_limiter::{Bucket, EnvoyAdaptiveConcurrencySpec, EnvoyCircuitBreakerSpec, EnvoyLocalRateLimitSpec, Protocol};
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

const FILTER: &str = "envoy.filters.http.local_ratelimit";
const TYPE: &str = "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
/// The message's name, what `@type` ends with.
const TYPE_NAME: &str = "envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
/// The deepest nesting of a file read (a list in a list…), in columns.
const MAX_NESTING_COLUMNS: usize = 2_000;

fn at(line: usize, expected: impl Into<String>) -> ImportError {
    ImportError::At { line, expected: expected.into() }
}

fn line_of(node: &Node) -> usize {
    node.span().start().map_or(0, |m| m.line())
}

fn key_line(key: &MarkedScalarNode) -> usize {
    key.span().start().map_or(0, |m| m.line())
}

/// A whole number at `key` of `map`, if there.
fn whole(map: &MarkedMappingNode, key: &str, what: &str) -> Result<Option<u32>, ImportError> {
    let Some(node) = map.get_node(key) else { return Ok(None) };
    let text = node.as_scalar().map(|s| s.as_str().to_string()).unwrap_or_default();
    text.parse::<u32>().ok().filter(|n| *n > 0).map(Some).ok_or_else(|| at(line_of(node), format!("{what}: a whole number above 0, not \"{text}\"")))
}

/// A protobuf `Duration` (`1s`, `0.05s`) at field `what`, in whole
/// milliseconds as Envoy reads it (truncated).
fn duration_ms(node: &Node, what: &str) -> Result<u64, ImportError> {
    let text = node.as_scalar().map(|s| s.as_str().trim().to_string()).unwrap_or_default();
    let seconds = text.strip_suffix('s').and_then(|n| n.parse::<f64>().ok()).filter(|s| s.is_finite() && (0.0..=1e6).contains(s));
    seconds.map(|s| (s * 1000.0 + 1e-9).floor() as u64).ok_or_else(|| at(line_of(node), format!("{what}: a duration such as 1s or 0.05s, not \"{text}\"")))
}

/// A threshold at `key` of `map` (a whole number, 0 allowed), if there.
fn threshold(map: &MarkedMappingNode, key: &str) -> Result<Option<u32>, ImportError> {
    let Some(node) = map.get_node(key) else { return Ok(None) };
    let text = node.as_scalar().map(|s| s.as_str().to_string()).unwrap_or_default();
    text.parse::<u32>().ok().filter(|n| *n <= 1 << 30).map(Some).ok_or_else(|| at(line_of(node), format!("{key}: a whole number from 0 to 2^30, not \"{text}\"")))
}

/// The thresholds of a circuit breaker Sluice reads.
const THRESHOLDS: &[&str] = &["priority", "max_connections", "max_pending_requests", "max_requests"];

/// Reads a cluster with `circuit_breakers` into a block (its route's
/// timeout still Envoy's default), noting what it does not model; none
/// when it has no `DEFAULT` thresholds.
fn read_cluster(cluster: &MarkedMappingNode, breakers: &Node, notes: &mut Vec<Note>) -> Result<Option<(String, EnvoyCircuitBreakerSpec)>, ImportError> {
    let name = cluster.get_scalar("name").map(|s| s.as_str().to_string()).unwrap_or_else(|| "cluster".into());
    let line = line_of(breakers);
    let Some(breakers) = breakers.as_mapping() else { return Err(at(line, "circuit_breakers: a mapping with thresholds")) };
    for (key, _) in breakers.iter().filter(|(k, _)| k.as_str() != "thresholds") {
        let why = if key.as_str() == "per_host_thresholds" { "limits per host are not modelled; Sluice models one host" } else { "not modelled" };
        notes.push(Note { line: key_line(key), text: format!("{}: {why}", key.as_str()) });
    }
    let mut chosen = None;
    for t in breakers.get_sequence("thresholds").map(|s| s.iter().collect::<Vec<_>>()).unwrap_or_default() {
        let Some(t) = t.as_mapping() else { return Err(at(line_of(t), "thresholds: a list of mappings")) };
        let priority = t.get_scalar("priority").map_or("DEFAULT", |p| p.as_str());
        if priority != "DEFAULT" || chosen.is_some() {
            let why = if priority == "DEFAULT" { "a second DEFAULT threshold: Envoy takes the first" } else { "thresholds of the HIGH priority: Sluice models the DEFAULT one" };
            notes.push(Note { line: key_line_of(t, line), text: why.into() });
            continue;
        }
        for (key, _) in t.iter().filter(|(k, _)| !THRESHOLDS.contains(&k.as_str())) {
            notes.push(Note { line: key_line(key), text: format!("{}: not modelled", key.as_str()) });
        }
        let mut spec = EnvoyCircuitBreakerSpec::of(1024, 1024);
        spec.max_connections = threshold(t, "max_connections")?.unwrap_or(1024);
        spec.max_pending_requests = threshold(t, "max_pending_requests")?.unwrap_or(1024);
        spec.max_requests = threshold(t, "max_requests")?.unwrap_or(1024);
        chosen = Some(spec);
    }
    let Some(mut spec) = chosen else {
        notes.push(Note { line, text: format!("cluster {name}: no DEFAULT thresholds, so Envoy's defaults (1024 of each) apply: left out") });
        return Ok(None);
    };
    // HTTP/2 upstream: the cluster's own option, or its protocol options'.
    let http2 = cluster.get_node("http2_protocol_options").is_some()
        || cluster
            .get_mapping("typed_extension_protocol_options")
            .and_then(|o| o.get_mapping("envoy.extensions.upstreams.http.v3.HttpProtocolOptions"))
            .and_then(|o| o.get_mapping("explicit_http_config"))
            .is_some_and(|c| c.get_node("http2_protocol_options").is_some());
    if http2 {
        spec.protocol = Protocol::Http2;
    }
    Ok(Some((name, spec)))
}

/// What a walk found: filters, clusters with breakers, and routes (the
/// cluster they lead to, their timeout, if any, and their line).
#[derive(Default)]
struct Found {
    filters: Vec<(String, EnvoyLocalRateLimitSpec)>,
    adaptive: Vec<(String, EnvoyAdaptiveConcurrencySpec)>,
    clusters: Vec<(String, EnvoyCircuitBreakerSpec)>,
    routes: Vec<(String, Option<u64>, usize)>,
}

/// A `RuntimeFractionalPercent`'s default value, in percent (absent: 0).
fn percent(map: &MarkedMappingNode, key: &str) -> Result<f64, ImportError> {
    let Some(node) = map.get_node(key) else { return Ok(0.0) };
    let value = node.as_mapping().and_then(|m| m.get_mapping("default_value"));
    let Some(value) = value else { return Err(at(line_of(node), format!("{key}: a default_value with a numerator"))) };
    let numerator = match value.get_node("numerator") {
        None => 0.0,
        Some(n) => n.as_scalar().and_then(|s| s.as_str().parse::<u32>().ok()).map(f64::from).ok_or_else(|| at(line_of(n), format!("{key}: a whole numerator")))?,
    };
    let denominator = match value.get_node("denominator") {
        None => 100.0,
        Some(d) => match d.as_scalar().map(|s| s.as_str()) {
            Some("HUNDRED") => 100.0,
            Some("TEN_THOUSAND") => 10_000.0,
            Some("MILLION") => 1_000_000.0,
            _ => return Err(at(line_of(d), format!("{key}: a denominator of HUNDRED, TEN_THOUSAND or MILLION"))),
        },
    };
    Ok((numerator * 100.0 / denominator).min(100.0))
}

/// A status as Envoy's `StatusCode` names it, or its number; one below
/// 400 is answered 429.
fn status_code(node: &Node) -> Result<u16, ImportError> {
    status_or(node, 429)
}

/// The same, one below 400 answered `instead`.
fn status_or(node: &Node, instead: u16) -> Result<u16, ImportError> {
    let text = node.as_mapping().and_then(|m| m.get_scalar("code")).map(|s| s.as_str().to_string()).unwrap_or_default();
    let code = match text.as_str() {
        "BadRequest" => Some(400),
        "Forbidden" => Some(403),
        "TooManyRequests" => Some(429),
        "InternalServerError" => Some(500),
        "BadGateway" => Some(502),
        "ServiceUnavailable" => Some(503),
        "GatewayTimeout" => Some(504),
        n => n.parse::<u16>().ok(),
    };
    code.filter(|c| (100..=599).contains(c)).map(|c| if c < 400 { instead } else { c }).ok_or_else(|| at(line_of(node), format!("status: a code such as TooManyRequests or 429, not \"{text}\"")))
}

/// The fields of a filter's `typed_config` Sluice reads.
const READ: &[&str] = &["@type", "stat_prefix", "token_bucket", "filter_enabled", "filter_enforced", "status"];

/// Reads one filter's `typed_config` into a block, noting what it does not
/// model; none when it limits nothing (no token bucket).
fn read_filter(config: &MarkedMappingNode, line: usize, notes: &mut Vec<Note>) -> Result<Option<(String, EnvoyLocalRateLimitSpec)>, ImportError> {
    for (key, _) in config.iter() {
        if !READ.contains(&key.as_str()) {
            let why = match key.as_str() {
                "descriptors" => "descriptors (buckets per header or path) are not modelled; only the default bucket is",
                "local_rate_limit_per_downstream_connection" => "a bucket per connection is not modelled; Sluice keeps one for the process",
                _ => "not modelled",
            };
            notes.push(Note { line: key_line(key), text: format!("{}: {why}", key.as_str()) });
        }
    }
    let name = config.get_scalar("stat_prefix").map(|s| s.as_str().to_string()).unwrap_or_else(|| "local_rate_limit".into());
    let Some(bucket) = config.get_mapping("token_bucket") else {
        notes.push(Note { line, text: format!("{FILTER} \"{name}\": no token_bucket, so it limits nothing here") });
        return Ok(None);
    };
    let max_tokens = whole(bucket, "max_tokens", "max_tokens")?.ok_or_else(|| at(key_line_of(bucket, line), "token_bucket: a max_tokens above 0"))?;
    let tokens_per_fill = whole(bucket, "tokens_per_fill", "tokens_per_fill")?.unwrap_or(1);
    let interval = bucket.get_node("fill_interval").ok_or_else(|| at(key_line_of(bucket, line), "token_bucket: a fill_interval"))?;
    let ms = duration_ms(interval, "fill_interval")?;
    if ms < 50 {
        return Err(at(line_of(interval), "fill_interval: at least 50ms, as Envoy requires"));
    }
    if ms > 1_000_000_000 {
        return Err(at(line_of(interval), "fill_interval: at most 1000000s"));
    }
    let status = match config.get_node("status") {
        Some(node) => status_code(node)?,
        None => 429,
    };
    notes.push(Note { line, text: format!("{FILTER} \"{name}\": read as Envoy 1.31 and later refill it, continuously; for 1.30 and earlier choose the timer bucket") });
    let spec = EnvoyLocalRateLimitSpec {
        max_tokens,
        tokens_per_fill,
        fill_interval_s: ms as f64 / 1000.0,
        bucket: Bucket::Atomic,
        enabled_percent: percent(config, "filter_enabled")?,
        enforced_percent: percent(config, "filter_enforced")?,
        status,
    };
    Ok(Some((name, spec)))
}

const ADAPTIVE: &str = "envoy.filters.http.adaptive_concurrency";
const ADAPTIVE_TYPE_NAME: &str = "envoy.extensions.filters.http.adaptive_concurrency.v3.AdaptiveConcurrency";

/// A `type.v3.Percent`'s value (`{value: 50}`), or `default` absent.
fn percent_value(map: &MarkedMappingNode, key: &str, default: f64) -> Result<f64, ImportError> {
    let Some(node) = map.get_node(key) else { return Ok(default) };
    let value = node.as_mapping().and_then(|m| m.get_scalar("value")).and_then(|v| v.as_str().parse::<f64>().ok());
    value.filter(|v| v.is_finite()).ok_or_else(|| at(line_of(node), format!("{key}: a percentage, {{value: N}}")))
}

/// Reads an adaptive concurrency filter's `typed_config` into a block,
/// noting what it does not model; none without a gradient controller.
fn read_adaptive(config: &MarkedMappingNode, line: usize, notes: &mut Vec<Note>) -> Result<Option<(String, EnvoyAdaptiveConcurrencySpec)>, ImportError> {
    for (key, _) in config.iter() {
        match key.as_str() {
            "@type" | "gradient_controller_config" | "concurrency_limit_exceeded_status" => {}
            "enabled" => notes.push(Note { line: key_line(key), text: "enabled: a runtime flag; Sluice keeps the filter on".into() }),
            other => notes.push(Note { line: key_line(key), text: format!("{other}: not modelled") }),
        }
    }
    let Some(gradient) = config.get_mapping("gradient_controller_config") else {
        notes.push(Note { line, text: format!("{ADAPTIVE}: no gradient_controller_config, so it limits nothing here") });
        return Ok(None);
    };
    let needed = |key: &str| gradient.get_mapping(key).ok_or_else(|| at(key_line_of(gradient, line), format!("gradient_controller_config: its {key}, which Envoy requires")));
    let (limits, min_rtt) = (needed("concurrency_limit_params")?, needed("min_rtt_calc_params")?);
    let interval = limits.get_node("concurrency_update_interval").ok_or_else(|| at(key_line_of(limits, line), "concurrency_limit_params: a concurrency_update_interval, which Envoy requires"))?;
    let seconds = |node: Option<&Node>, what: &str| node.map(|n| duration_ms(n, what).map(|ms| ms as f64 / 1000.0)).transpose();
    let defaults = EnvoyAdaptiveConcurrencySpec::of(60.0);
    let spec = EnvoyAdaptiveConcurrencySpec {
        concurrency_update_interval_s: duration_ms(interval, "concurrency_update_interval")? as f64 / 1000.0,
        sample_aggregate_percentile: percent_value(gradient, "sample_aggregate_percentile", defaults.sample_aggregate_percentile)?,
        max_concurrency_limit: whole(limits, "max_concurrency_limit", "max_concurrency_limit")?.unwrap_or(defaults.max_concurrency_limit),
        min_rtt_interval_s: seconds(min_rtt.get_node("interval"), "interval")?.filter(|&s| s > 0.0),
        // A fixed value of 0 is none: minRTT is measured (Envoy's
        // `isMinRTTSamplingEnabled`).
        min_rtt_fixed_s: seconds(min_rtt.get_node("fixed_value"), "fixed_value")?.filter(|&s| s > 0.0),
        min_rtt_request_count: whole(min_rtt, "request_count", "request_count")?.unwrap_or(defaults.min_rtt_request_count),
        min_rtt_jitter_percent: percent_value(min_rtt, "jitter", defaults.min_rtt_jitter_percent)?,
        min_concurrency: whole(min_rtt, "min_concurrency", "min_concurrency")?.unwrap_or(defaults.min_concurrency),
        min_rtt_buffer_percent: percent_value(min_rtt, "buffer", defaults.min_rtt_buffer_percent)?,
        status: config.get_node("concurrency_limit_exceeded_status").map(|n| status_or(n, 503)).transpose()?.unwrap_or(503),
    };
    Ok(Some(("adaptive_concurrency".into(), spec)))
}

fn key_line_of(map: &MarkedMappingNode, fallback: usize) -> usize {
    map.span().start().map_or(fallback, |m| m.line())
}

/// Walks `node`, reading every local rate limit filter into `found` and
/// noting every other HTTP filter.
fn walk(node: &Node, found: &mut Found, notes: &mut Vec<Note>) -> Result<(), ImportError> {
    match node {
        Node::Mapping(map) => {
            if let Some(breakers) = map.get_node("circuit_breakers") {
                found.clusters.extend(read_cluster(map, breakers, notes)?);
            }
            // A route: `route: {cluster: NAME, timeout: T}`.
            if let Some((route, cluster)) = map.get_mapping("route").and_then(|r| Some((r, r.get_scalar("cluster")?))) {
                let timeout = route.get_node("timeout").map(|t| duration_ms(t, "timeout")).transpose()?;
                found.routes.push((cluster.as_str().to_string(), timeout, key_line_of(route, line_of(node))));
            }
            // A configuration itself: a filter's typed_config, or a route's
            // or virtual host's typed_per_filter_config entry.
            let own_type = map.get_scalar("@type").map(|t| t.as_str().rsplit('/').next().unwrap_or_default().to_string());
            if own_type.as_deref() == Some(TYPE_NAME) {
                found.filters.extend(read_filter(map, line_of(node), notes)?);
                return Ok(());
            }
            if own_type.as_deref() == Some(ADAPTIVE_TYPE_NAME) {
                found.adaptive.extend(read_adaptive(map, line_of(node), notes)?);
                return Ok(());
            }
            // The same, wrapped in a TypedStruct (as Istio writes it).
            if own_type.as_deref().is_some_and(|t| t.ends_with("TypedStruct"))
                && map.get_scalar("type_url").is_some_and(|u| u.as_str().rsplit('/').next() == Some(TYPE_NAME))
            {
                match map.get_mapping("value") {
                    Some(value) => found.filters.extend(read_filter(value, line_of(node), notes)?),
                    None => notes.push(Note { line: line_of(node), text: format!("{FILTER}: a TypedStruct without a value, so it limits nothing here") }),
                }
                return Ok(());
            }
            let named = map.get_scalar("name").map(|s| s.as_str().to_string());
            if named.as_deref() == Some(FILTER) {
                let line = line_of(node);
                if map.get_scalar("disabled").and_then(|d| d.as_bool()) == Some(true) {
                    notes.push(Note { line, text: format!("{FILTER}: disabled here (a route may enable it): left out") });
                    return Ok(());
                }
                let Some(config) = map.get_mapping("typed_config") else {
                    notes.push(Note { line, text: format!("{FILTER}: no typed_config, so it limits nothing here") });
                    return Ok(());
                };
                // Without an @type the name says what it is; with another
                // @type, Envoy goes by the @type.
                match config.get_scalar("@type").map(|t| t.as_str().rsplit('/').next().unwrap_or_default().to_string()) {
                    None => {
                        found.filters.extend(read_filter(config, line, notes)?);
                        return Ok(());
                    }
                    Some(other) if other != TYPE_NAME && !other.ends_with("TypedStruct") => {
                        notes.push(Note { line, text: format!("{FILTER}: its typed_config is a {other}, which Envoy goes by: left out") });
                        return Ok(());
                    }
                    Some(_) => {}
                }
            }
            if let (Some(name), true) = (&named, name_is_http_filter(named.as_deref())) {
                if name != FILTER && name != ADAPTIVE {
                    notes.push(Note { line: line_of(node), text: format!("{name}: not a limit Sluice models") });
                }
            }
            for (_, value) in map.iter() {
                walk(value, found, notes)?;
            }
        }
        Node::Sequence(items) => {
            for item in items.iter() {
                walk(item, found, notes)?;
            }
        }
        Node::Scalar(_) => {}
    }
    Ok(())
}

/// Whether `name` names an HTTP filter (`envoy.filters.http.*`).
fn name_is_http_filter(name: Option<&str>) -> bool {
    name.is_some_and(|n| n.starts_with("envoy.filters.http."))
}

/// Reads an Envoy configuration (YAML) into a scenario of its local rate
/// limit filters.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    // One document, and nesting the reader can follow (it recurses).
    let mut content = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed == "---" && content {
            return Err(at(i + 1, "one YAML document: a file of several (---) is read one at a time"));
        }
        content |= !trimmed.is_empty() && !trimmed.starts_with('#') && trimmed != "---";
        let indent = line.len() - line.trim_start_matches([' ', '-', '\t']).len();
        if indent > MAX_NESTING_COLUMNS {
            return Err(at(i + 1, format!("nesting of at most {MAX_NESTING_COLUMNS} columns")));
        }
    }
    let load = |options: marked_yaml::LoaderOptions| marked_yaml::parse_yaml_with_options(0, text, options.error_on_duplicate_keys(true));
    let node = match load(marked_yaml::LoaderOptions::default()) {
        Err(LoadError::TopLevelMustBeMapping(_)) => load(marked_yaml::LoaderOptions::default().toplevel_sequence()),
        other => other,
    };
    let node = node.map_err(|e| {
        let (line, why) = match &e {
            LoadError::TopLevelMustBeMapping(m) | LoadError::TopLevelMustBeSequence(m) => (m.line(), "a mapping or a list at the top".to_string()),
            LoadError::UnexpectedAnchor(m) | LoadError::UnexpectedTag(m) => (m.line(), "plain YAML: no anchors or tags".to_string()),
            LoadError::MappingKeyMustBeScalar(m) => (m.line(), "a plain key".to_string()),
            LoadError::ScanError(m, scan) => (m.line(), format!("YAML ({})", scan.info())),
            LoadError::DuplicateKey(inner) => (key_line(&inner.key), format!("each key once: \"{}\" was given at line {} already", inner.key.as_str(), key_line(&inner.prev_key))),
        };
        at(line, why)
    })?;
    let mut found = Found::default();
    let mut notes = Vec::new();
    walk(&node, &mut found, &mut notes)?;
    if found.filters.is_empty() && found.adaptive.is_empty() && found.clusters.is_empty() {
        return Err(ImportError::NothingLimited("envoy.filters.http.local_ratelimit or adaptive_concurrency, nor a cluster's circuit_breakers"));
    }
    let mut rows: Vec<Row> = found.filters.into_iter().map(|(name, spec)| Row { name: name.clone(), limiters: vec![(name, ProductLimiterSpec::EnvoyLocalRateLimit(spec))] }).collect();
    rows.extend(found.adaptive.into_iter().map(|(name, spec)| Row { name: name.clone(), limiters: vec![(name, ProductLimiterSpec::EnvoyAdaptiveConcurrency(spec))] }));
    for (name, mut spec) in found.clusters {
        let mut routes = found.routes.iter().filter(|(cluster, _, _)| *cluster == name);
        if let Some((_, timeout, _)) = routes.next() {
            spec.timeout_s = timeout.map_or(15.0, |ms| ms as f64 / 1000.0);
        }
        for (_, _, line) in routes {
            notes.push(Note { line: *line, text: format!("a second route to cluster {name}: the timeout of the first is the one taken") });
        }
        rows.push(Row { name: format!("cluster {name}"), limiters: vec![(name, ProductLimiterSpec::EnvoyCircuitBreaker(spec))] });
    }
    notes.sort_by_key(|n| n.line);
    Ok(Imported { scenario: scenario_of("Envoy", &rows)?, notes })
}

fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::RateLimiter => "Sluice's own rate limiter is not transcribed from Envoy; a product limiter envoy_local_rate_limit says what Envoy's filter does",
        Kind::ConcurrencyLimiter => "Sluice's own concurrency limiter holds its sender back; Envoy's circuit breaker queues a bounded number and refuses the rest: a product limiter envoy_circuit_breaker says what Envoy does",
        Kind::Queue => "a queue behind an Envoy circuit breaker has no Envoy equivalent: the breaker's own pending requests are its queue (none at all over HTTP/2)",
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
        format!("    {name}:\n      runtime_key: \"{id}_{}\"\n      default_value:\n        numerator: {numerator}\n        denominator: {denominator}\n", name.trim_start_matches("filter_"))
    };
    format!(
        "- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    \"@type\": {TYPE}\n    stat_prefix: \"{id}\"\n    token_bucket:\n      max_tokens: {}\n      tokens_per_fill: {}\n      fill_interval: {}\n{}{}    status:\n      code: {}\n",
        spec.max_tokens,
        spec.tokens_per_fill,
        duration(spec.fill_interval_ms()),
        percent("filter_enabled", spec.enabled_percent),
        percent("filter_enforced", spec.enforced_percent),
        status_name(spec.sent_status())
    )
}

/// The adaptive concurrency filter entry for node `id`.
fn adaptive_filter(id: &str, spec: &EnvoyAdaptiveConcurrencySpec) -> String {
    let ms = |s: f64| duration((s * 1000.0).round() as u64);
    let min_rtt = spec.min_rtt_interval_s.map_or(String::new(), |every| format!("        interval: {}\n", ms(every)))
        + &spec.min_rtt_fixed_s.map_or(String::new(), |fixed| format!("        fixed_value: {}\n", ms(fixed)));
    let percent = |p: f64| crate::plumbing::numbers::readable(p);
    format!(
        "- name: envoy.filters.http.adaptive_concurrency   # Sluice's node \"{id}\"\n  typed_config:\n    \"@type\": type.googleapis.com/envoy.extensions.filters.http.adaptive_concurrency.v3.AdaptiveConcurrency\n    gradient_controller_config:\n      sample_aggregate_percentile: {{value: {}}}\n      concurrency_limit_params:\n        max_concurrency_limit: {}\n        concurrency_update_interval: {}\n      min_rtt_calc_params:\n{min_rtt}        request_count: {}\n        jitter: {{value: {}}}\n        min_concurrency: {}\n        buffer: {{value: {}}}\n    concurrency_limit_exceeded_status:\n      code: {}\n",
        percent(spec.sample_aggregate_percentile),
        spec.max_concurrency_limit,
        ms(spec.concurrency_update_interval_s),
        spec.min_rtt_request_count,
        percent(spec.min_rtt_jitter_percent),
        spec.min_concurrency,
        percent(spec.min_rtt_buffer_percent),
        status_name(spec.status)
    )
}

/// The cluster for node `id`, and the route to it.
fn cluster(id: &str, spec: &EnvoyCircuitBreakerSpec) -> (String, String) {
    let route = format!("- match: {{prefix: \"/{id}/\"}}\n  route: {{cluster: \"{id}\", timeout: {}}}\n", duration((spec.timeout_s * 1000.0).round() as u64));
    let http2 = match spec.protocol {
        Protocol::Http1 => String::new(),
        Protocol::Http2 => "  typed_extension_protocol_options:\n    envoy.extensions.upstreams.http.v3.HttpProtocolOptions:\n      \"@type\": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions\n      explicit_http_config:\n        http2_protocol_options: {}\n".into(),
    };
    let cluster = format!(
        "- name: \"{id}\"\n  connect_timeout: 5s\n  type: STATIC\n  circuit_breakers:\n    thresholds:\n    - priority: DEFAULT\n      max_connections: {}\n      max_pending_requests: {}\n      max_requests: {}\n{http2}  load_assignment:\n    cluster_name: \"{id}\"\n    endpoints:\n    - lb_endpoints:\n      - endpoint:\n          address:\n            socket_address: {{address: 127.0.0.1, port_value: 8081}}   # your application\n",
        spec.max_connections, spec.max_pending_requests, spec.max_requests
    );
    (route, cluster)
}

/// Writes the `http_filters` entries that enforce the scenario's Envoy
/// limiters (or node `node`'s alone); with circuit breakers, the clusters
/// too, and the routes to them.
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    let chosen = super::chosen(
        scenario,
        node,
        "Envoy",
        |p| matches!(p, ProductLimiterSpec::EnvoyLocalRateLimit(_) | ProductLimiterSpec::EnvoyCircuitBreaker(_) | ProductLimiterSpec::EnvoyAdaptiveConcurrency(_)).then_some(p),
        cannot,
    )?;
    let mut adaptive = false;
    let mut filters = String::new();
    let (mut routes, mut clusters) = (String::new(), String::new());
    let mut timer = false;
    let mut partial = false;
    for &(id, spec) in &chosen {
        match spec {
            ProductLimiterSpec::EnvoyLocalRateLimit(spec) => {
                timer |= spec.bucket == Bucket::Timer;
                partial |= spec.enabled_percent < 100.0 || spec.enforced_percent < 100.0;
                filters.push_str(&filter(id, spec));
            }
            ProductLimiterSpec::EnvoyAdaptiveConcurrency(spec) => {
                adaptive = true;
                filters.push_str(&adaptive_filter(id, spec));
            }
            ProductLimiterSpec::EnvoyCircuitBreaker(spec) => {
                let (route, cluster) = cluster(id, spec);
                routes.push_str(&route);
                clusters.push_str(&cluster);
            }
            _ => {}
        }
    }
    let mut text = String::new();
    let mut warnings = Vec::new();
    if clusters.is_empty() {
        text.push_str("# Envoy: what Sluice's limiters enforce, as entries of an HttpConnectionManager's\n# http_filters, before envoy.filters.http.router.\n");
        text.push_str(&filters);
    } else {
        text.push_str("# Envoy: what Sluice's limiters enforce. http_filters: entries of an HttpConnectionManager's,\n# before envoy.filters.http.router; routes: of its route_config's virtual host;\n# clusters: of static_resources.\n");
        if !filters.is_empty() {
            text.push_str("http_filters:\n");
            text.push_str(&filters);
        }
        text.push_str("routes:\n");
        text.push_str(&routes);
        text.push_str("clusters:\n");
        text.push_str(&clusters);
        warnings.push("a circuit breaker's counts are one per Envoy process, shared by its workers, but each worker keeps its own connections and pending queue: with W workers, up to W connections beyond max_connections (each pool opens its first), and N Envoy instances let N times through".to_string());
        warnings.push("Sluice opens a connection at once; Envoy takes connect time, during which requests wait as pending (over HTTP/2 too)".to_string());
    }
    if adaptive {
        warnings.push("the adaptive concurrency controller is one per filter configuration, shared by an Envoy process's workers: N Envoy instances let through N times the limit, each measuring on its own".to_string());
        warnings.push("Envoy reads percentiles from a histogram of two significant digits, as Sluice does; runtime keys adaptive_concurrency.gradient_controller.* override what is written".to_string());
    }
    if filters.is_empty() || !chosen.iter().any(|(_, p)| matches!(p, ProductLimiterSpec::EnvoyLocalRateLimit(_))) {
        return Ok(Exported { text, warnings });
    }
    warnings.push("the bucket is one per Envoy process, shared by its workers: N Envoy instances let through N times the rate".to_string());
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

    /// The scenario's limiters of this product, as an export picks them.
    fn limiters(s: &Scenario) -> Vec<(String, EnvoyLocalRateLimitSpec)> {
        let picked = super::super::chosen(s, None, "envoy", |p| match p {
            ProductLimiterSpec::EnvoyLocalRateLimit(spec) => Some(spec),
            _ => None,
        }, |_| "");
        picked.map_or(Vec::new(), |l| l.into_iter().map(|(id, spec)| (id.to_string(), spec.clone())).collect())
    }

    const BOOTSTRAP: &str = "static_resources:\n  listeners:\n  - name: main\n    filter_chains:\n    - filters:\n      - name: envoy.filters.network.http_connection_manager\n        typed_config:\n          \"@type\": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\n          stat_prefix: ingress\n          http_filters:\n          - name: envoy.filters.http.local_ratelimit\n            typed_config:\n              \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n              stat_prefix: http_local_rate_limiter\n              token_bucket:\n                max_tokens: 10000\n                tokens_per_fill: 1000\n                fill_interval: 1s\n              filter_enabled:\n                runtime_key: local_rate_limit_enabled\n                default_value:\n                  numerator: 100\n                  denominator: HUNDRED\n              descriptors:\n              - entries:\n                - key: path\n                  value: /a\n          - name: envoy.filters.http.router\n";

    #[test]
    fn a_bootstrap_imports_its_filter_and_notes_the_rest() {
        let imported = import(BOOTSTRAP).unwrap();
        let l = limiters(&imported.scenario);
        assert_eq!(l.len(), 1);
        let (id, spec) = &l[0];
        assert_eq!(id, "http_local_rate_limiter");
        // filter_enforced left out: 0%, shadow mode, as Envoy reads it.
        assert_eq!((spec.max_tokens, spec.tokens_per_fill, spec.fill_interval_ms(), spec.enabled_percent, spec.enforced_percent, spec.status), (10_000, 1_000, 1_000, 100.0, 0.0, 429));
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert!(noted.contains(&(24, "descriptors: descriptors (buckets per header or path) are not modelled; only the default bucket is")), "{noted:?}");
        assert!(noted.contains(&(28, "envoy.filters.http.router: not a limit Sluice models")), "{noted:?}");
    }

    #[test]
    fn route_configs_typed_structs_and_disabled_filters_are_read_as_envoy_reads_them() {
        let text = "http_filters:\n- name: envoy.filters.http.local_ratelimit\n  disabled: true\n  typed_config:\n    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n    stat_prefix: off\nroutes:\n- match: {prefix: /a}\n  typed_per_filter_config:\n    envoy.filters.http.local_ratelimit:\n      \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n      stat_prefix: route_a\n      token_bucket: {max_tokens: 5, fill_interval: 2s}\n- match: {prefix: /b}\n  typed_per_filter_config:\n    envoy.filters.http.local_ratelimit:\n      \"@type\": type.googleapis.com/udpa.type.v1.TypedStruct\n      type_url: type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n      value:\n        stat_prefix: route_b\n        token_bucket: {max_tokens: 7, tokens_per_fill: 7, fill_interval: 1s}\n";
        let imported = import(text).unwrap();
        let l = limiters(&imported.scenario);
        let read: Vec<(&str, u32, u64)> = l.iter().map(|(id, s)| (id.as_str(), s.max_tokens, s.fill_interval_ms())).collect();
        assert_eq!(read, [("route_a_route_a", 5, 2_000), ("route_b_route_b", 7, 1_000)]);
        assert!(imported.notes.iter().any(|n| n.line == 2 && n.text.contains("disabled here")), "{:?}", imported.notes);
        let err = |text: &str| import(text).unwrap_err().to_string();
        assert_eq!(err("a: 1\nb: 2\na: 3\n"), "line 3: each key once: \"a\" was given at line 1 already");
        assert_eq!(err("a: 1\n---\nb: 2\n"), "line 2: one YAML document: a file of several (---) is read one at a time");
        let other = "- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    \"@type\": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\n";
        assert_eq!(err(other), "nothing in it is limited by envoy.filters.http.local_ratelimit or adaptive_concurrency, nor a cluster's circuit_breakers: there is nothing to simulate");
        assert_eq!(err(&format!("{}x: 1\n", "- ".repeat(1_500))), "line 1: nesting of at most 2000 columns");
    }

    #[test]
    fn a_bad_filter_names_its_line() {
        let filter = |bucket: &str| format!("- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    stat_prefix: x\n    token_bucket:\n{bucket}");
        let err = |text: &str| import(text).unwrap_err().to_string();
        assert_eq!(err(&filter("      max_tokens: ten\n      fill_interval: 1s\n")), "line 5: max_tokens: a whole number above 0, not \"ten\"");
        assert_eq!(err(&filter("      max_tokens: 10\n      fill_interval: 20ms\n")), "line 6: fill_interval: a duration such as 1s or 0.05s, not \"20ms\"");
        assert_eq!(err(&filter("      max_tokens: 10\n      fill_interval: 0.02s\n")), "line 6: fill_interval: at least 50ms, as Envoy requires");
        assert!(err("a: [1, 2\n").starts_with("line "), "{}", err("a: [1, 2\n"));
        assert_eq!(err("static_resources: {}\n"), "nothing in it is limited by envoy.filters.http.local_ratelimit or adaptive_concurrency, nor a cluster's circuit_breakers: there is nothing to simulate");
    }

    #[test]
    fn an_export_imports_as_the_same_block() {
        for spec in [
            EnvoyLocalRateLimitSpec::of(10, 10, 1.0),
            EnvoyLocalRateLimitSpec { enabled_percent: 12.5, enforced_percent: 33.3333, status: 503, ..EnvoyLocalRateLimitSpec::of(3, 1, 0.25) },
            EnvoyLocalRateLimitSpec { enforced_percent: 0.0, status: 403, ..EnvoyLocalRateLimitSpec::of(1, 7, 120.0) },
        ] {
            let out = export(&alone(spec.clone()), None).unwrap();
            let back = import(&out.text).unwrap();
            let l = limiters(&back.scenario);
            assert_eq!(l.len(), 1, "{}", out.text);
            assert_eq!(l[0].1, spec, "{}", out.text);
        }
    }

    /// The breakers of a scenario, by node id.
    fn breakers(s: &Scenario) -> Vec<(String, EnvoyCircuitBreakerSpec)> {
        let picked = super::super::chosen(s, None, "envoy", |p| match p {
            ProductLimiterSpec::EnvoyCircuitBreaker(spec) => Some(spec),
            _ => None,
        }, |_| "");
        picked.map_or(Vec::new(), |l| l.into_iter().map(|(id, spec)| (id.to_string(), spec.clone())).collect())
    }

    #[test]
    fn clusters_import_their_default_thresholds_protocol_and_route_timeout() {
        let text = "static_resources:\n  listeners:\n  - name: l\n    filter_chains:\n    - filters:\n      - name: envoy.filters.network.http_connection_manager\n        typed_config:\n          route_config:\n            virtual_hosts:\n            - name: v\n              routes:\n              - match: {prefix: /a}\n                route: {cluster: backend, timeout: 2.5s}\n              - match: {prefix: /b}\n                route: {cluster: backend}\n              - match: {prefix: /c}\n                route: {cluster: fast, timeout: 0s}\n  clusters:\n  - name: backend\n    circuit_breakers:\n      thresholds:\n      - priority: HIGH\n        max_connections: 5\n      - max_connections: 2\n        max_pending_requests: 0\n        max_retries: 3\n      per_host_thresholds:\n      - max_connections: 1\n  - name: fast\n    http2_protocol_options: {}\n    circuit_breakers:\n      thresholds:\n      - priority: DEFAULT\n        max_requests: 7\n  - name: plain\n    connect_timeout: 1s\n";
        let imported = import(text).unwrap();
        let b = breakers(&imported.scenario);
        assert_eq!(b.len(), 2, "{b:?}");
        assert_eq!(b[0].1, EnvoyCircuitBreakerSpec { max_connections: 2, max_pending_requests: 0, max_requests: 1024, protocol: Protocol::Http1, timeout_s: 2.5 });
        assert_eq!(b[1].1, EnvoyCircuitBreakerSpec { max_connections: 1024, max_pending_requests: 1024, max_requests: 7, protocol: Protocol::Http2, timeout_s: 0.0 });
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert!(noted.contains(&(15, "a second route to cluster backend: the timeout of the first is the one taken")), "{noted:?}");
        assert!(noted.contains(&(22, "thresholds of the HIGH priority: Sluice models the DEFAULT one")), "{noted:?}");
        assert!(noted.contains(&(26, "max_retries: not modelled")), "{noted:?}");
        assert!(noted.contains(&(27, "per_host_thresholds: limits per host are not modelled; Sluice models one host")), "{noted:?}");
        let err = |text: &str| import(text).unwrap_err().to_string();
        assert_eq!(err("clusters:\n- name: c\n  circuit_breakers:\n    thresholds:\n    - max_requests: lots\n"), "line 5: max_requests: a whole number from 0 to 2^30, not \"lots\"");
        assert_eq!(err("routes:\n- route: {cluster: c, timeout: 15}\n"), "line 2: timeout: a duration such as 1s or 0.05s, not \"15\"");
    }

    #[test]
    fn a_breaker_exports_and_imports_as_the_same_block() {
        for spec in [
            EnvoyCircuitBreakerSpec::of(10, 5),
            EnvoyCircuitBreakerSpec { max_requests: 3, protocol: Protocol::Http2, timeout_s: 0.0, ..EnvoyCircuitBreakerSpec::of(0, 0) },
            EnvoyCircuitBreakerSpec { timeout_s: 0.25, ..EnvoyCircuitBreakerSpec::of(1 << 30, 1) },
        ] {
            let node = crate::scenario::NodeSpec { id: "upstream".into(), position: None, block: BlockSpec::ProductLimiter(ProductLimiterSpec::EnvoyCircuitBreaker(spec.clone())) };
            let out = super::super::export_node(super::super::Product::Envoy, &node).unwrap();
            let back = import(&out.text).unwrap_or_else(|e| panic!("{e}\n{}", out.text));
            assert_eq!(breakers(&back.scenario), vec![("upstream".to_string(), spec)], "{}", out.text);
            assert!(back.notes.is_empty(), "{:?}", back.notes);
        }
    }

    fn adaptive(s: &Scenario) -> Vec<EnvoyAdaptiveConcurrencySpec> {
        s.nodes.iter().filter_map(|n| match &n.block {
            BlockSpec::ProductLimiter(ProductLimiterSpec::EnvoyAdaptiveConcurrency(spec)) => Some(spec.clone()),
            _ => None,
        }).collect()
    }

    #[test]
    fn an_adaptive_concurrency_filter_exports_and_imports_as_the_same_block() {
        for spec in [
            EnvoyAdaptiveConcurrencySpec::of(60.0),
            EnvoyAdaptiveConcurrencySpec { min_rtt_fixed_s: Some(0.025), min_rtt_interval_s: None, sample_aggregate_percentile: 90.0, status: 429, ..EnvoyAdaptiveConcurrencySpec::of(1.5) },
            EnvoyAdaptiveConcurrencySpec { min_rtt_fixed_s: Some(0.025), ..EnvoyAdaptiveConcurrencySpec::of(1.5) },
            EnvoyAdaptiveConcurrencySpec { concurrency_update_interval_s: 0.25, max_concurrency_limit: 64, min_rtt_request_count: 20, min_rtt_jitter_percent: 0.0, min_concurrency: 5, min_rtt_buffer_percent: 12.5, ..EnvoyAdaptiveConcurrencySpec::of(0.5) },
        ] {
            let node = crate::scenario::NodeSpec { id: "api".into(), position: None, block: BlockSpec::ProductLimiter(ProductLimiterSpec::EnvoyAdaptiveConcurrency(spec.clone())) };
            let out = super::super::export_node(super::super::Product::Envoy, &node).unwrap();
            assert!(out.text.contains("- name: envoy.filters.http.adaptive_concurrency   # Sluice's node \"api\"\n"), "{}", out.text);
            let back = import(&out.text).unwrap_or_else(|e| panic!("{e}\n{}", out.text));
            assert_eq!(adaptive(&back.scenario), vec![spec], "{}", out.text);
            assert!(back.notes.is_empty(), "{:?}", back.notes);
            assert!(out.warnings.iter().any(|w| w.contains("one per filter configuration")), "{:?}", out.warnings);
            assert!(!out.warnings.iter().any(|w| w.contains("bucket")), "no token bucket here: {:?}", out.warnings);
        }
    }

    #[test]
    fn an_adaptive_concurrency_filter_reads_envoys_defaults_and_says_what_it_needs() {
        let text = "- name: envoy.filters.http.adaptive_concurrency\n  typed_config:\n    \"@type\": type.googleapis.com/envoy.extensions.filters.http.adaptive_concurrency.v3.AdaptiveConcurrency\n    gradient_controller_config:\n      concurrency_limit_params:\n        concurrency_update_interval: 0.1s\n      min_rtt_calc_params:\n        interval: 60s\n    enabled:\n      default_value: true\n      runtime_key: adaptive_concurrency.enabled\n    concurrency_limit_exceeded_status: {code: 200}\n";
        let read = import(text).unwrap();
        let expected = EnvoyAdaptiveConcurrencySpec { status: 503, ..EnvoyAdaptiveConcurrencySpec::of(60.0) };
        assert_eq!(adaptive(&read.scenario), vec![expected], "a status below 400 is answered 503");
        assert_eq!(read.notes.iter().map(|n| (n.line, n.text.as_str())).collect::<Vec<_>>(), [(9, "enabled: a runtime flag; Sluice keeps the filter on")]);
        let err = |t: &str| import(t).unwrap_err().to_string();
        let without = text.replace("        concurrency_update_interval: 0.1s\n", "        max_concurrency_limit: 9\n");
        assert_eq!(err(&without), "line 6: concurrency_limit_params: a concurrency_update_interval, which Envoy requires");
        let measured = text.replace("        interval: 60s\n", "        interval: 60s\n        fixed_value: 0s\n");
        assert_eq!(adaptive(&import(&measured).unwrap().scenario)[0].min_rtt_fixed_s, None, "a fixed value of 0 is none");
        let neither = text.replace("        interval: 60s\n", "        request_count: 9\n");
        assert!(err(&neither).contains("min_rtt_interval_s: set it (how often minRTT is measured), or min_rtt_fixed_s"), "{}", err(&neither));
    }

    fn alone(spec: EnvoyLocalRateLimitSpec) -> Scenario {
        let node = crate::scenario::NodeSpec { id: "edge".into(), position: None, block: BlockSpec::ProductLimiter(ProductLimiterSpec::EnvoyLocalRateLimit(spec)) };
        Scenario::alone(node)
    }

    #[test]
    fn the_filter_is_written_with_its_bucket_percentages_and_status() {
        let out = export(&alone(EnvoyLocalRateLimitSpec::of(10, 5, 0.5)), None).unwrap();
        for line in ["stat_prefix: \"edge\"", "max_tokens: 10", "tokens_per_fill: 5", "fill_interval: 0.5s", "runtime_key: \"edge_enabled\"", "numerator: 100", "denominator: HUNDRED", "code: TooManyRequests"] {
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
