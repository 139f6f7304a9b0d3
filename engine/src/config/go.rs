//! Go code out, for the limiters of `golang.org/x/time/rate`: a package
//! `limits` with, per limiter, the constructor of its `rate.Limiter` and
//! an HTTP middleware that makes the call the block makes.
//!
//! Guarantees: the constructor builds the very limit and burst the block
//! holds (the limit written as the shortest decimal that reads back as the
//! same float); the middleware calls `Allow`, `Wait` (with its deadline)
//! or `Reserve` as the block does, per key or for all, and answers a
//! refusal with the block's status. Go has no configuration file, so
//! nothing is imported.

use super::{ExportError, Exported};
use crate::blocks::product_limiter::{GoCall, GoRateSpec};
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::RateLimiter => "Sluice's own rate limiter is not transcribed from Go; a product limiter go_rate says what rate.Limiter does (a token bucket of capacity C at rate r is close to rate.NewLimiter(r, C))",
        Kind::ProductLimiter => "it is another product's limiter",
        _ => "golang.org/x/time/rate has no such block",
    }
}

/// A Go name for node `id`: `server_80-api` is `Server80Api`.
fn go_name(id: &str) -> String {
    let mut name = String::new();
    for part in id.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            name.push(first.to_ascii_uppercase());
            name.extend(chars);
        }
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name.insert_str(0, "Node");
    }
    name
}

/// A duration as gofmt writes it in an argument: `250*time.Millisecond`.
fn duration(ns: i64) -> String {
    match ns {
        0 => "0".to_string(),
        _ if ns % 1_000_000_000 == 0 => format!("{}*time.Second", ns / 1_000_000_000),
        _ if ns % 1_000_000 == 0 => format!("{}*time.Millisecond", ns / 1_000_000),
        _ => format!("time.Duration({ns})"),
    }
}

/// The limiter's constructor and its middleware, as `name`.
fn limiter_code(id: &str, name: &str, spec: &GoRateSpec) -> String {
    let keyed = if spec.per_key { ", one per client key" } else { "" };
    let mut code = format!(
        "// New{name}Limiter returns the limiter of Sluice's node \"{id}\": {} tokens a\n// second, a burst of {}.\nfunc New{name}Limiter() *rate.Limiter {{\n\treturn rate.NewLimiter(rate.Limit({}), {})\n}}\n\n",
        spec.limit, spec.burst, spec.limit, spec.burst
    );
    let how = match (spec.call, spec.timeout_s) {
        (GoCall::Allow, _) => "Allow, refusing".to_string(),
        (GoCall::Wait, None) => "Wait, with no deadline".to_string(),
        (GoCall::Wait, Some(t)) => format!("Wait, refusing what would wait beyond {t} s"),
        (GoCall::Reserve, _) => "Reserve, then sleeping the delay".to_string(),
    };
    code.push_str(&format!("// {name}Middleware limits as node \"{id}\" does:\n// {how}{keyed}, answering a refused request {}.\nfunc {name}Middleware(next http.Handler) http.Handler {{\n", spec.status));
    if spec.per_key {
        code.push_str(&format!("\tvar mu sync.Mutex\n\tlimiters := map[string]*rate.Limiter{{}}\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {{\n\t\tkey := {name}Key(r)\n\t\tmu.Lock()\n\t\tlim, ok := limiters[key]\n\t\tif !ok {{\n\t\t\tlim = New{name}Limiter()\n\t\t\tlimiters[key] = lim\n\t\t}}\n\t\tmu.Unlock()\n"));
    } else {
        code.push_str(&format!("\tlim := New{name}Limiter()\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {{\n"));
    }
    let refuse = format!("\t\t\thttp.Error(w, http.StatusText({0}), {0})\n\t\t\treturn\n", spec.status);
    match spec.call {
        GoCall::Allow => code.push_str(&format!("\t\tif !lim.Allow() {{\n{refuse}\t\t}}\n")),
        GoCall::Wait => {
            match spec.timeout_s {
                Some(t) => code.push_str(&format!(
                    "\t\tctx, cancel := context.WithTimeout(r.Context(), {})\n\t\tdefer cancel()\n",
                    duration((t * 1e9).round() as i64)
                )),
                None => code.push_str("\t\tctx := r.Context()\n"),
            }
            code.push_str(&format!("\t\tif err := lim.Wait(ctx); err != nil {{\n{refuse}\t\t}}\n"));
        }
        GoCall::Reserve => code.push_str(&format!("\t\tres := lim.Reserve()\n\t\tif !res.OK() {{\n{refuse}\t\t}}\n\t\ttime.Sleep(res.Delay())\n")),
    }
    code.push_str("\t\tnext.ServeHTTP(w, r)\n\t})\n}\n");
    if spec.per_key {
        code.push_str(&format!(
            "\n// {name}Key is what node \"{id}\" keys on: the client's address. Behind a\n// proxy, key on the header that carries the client instead.\nfunc {name}Key(r *http.Request) string {{\n\thost, _, err := net.SplitHostPort(r.RemoteAddr)\n\tif err != nil {{\n\t\treturn r.RemoteAddr\n\t}}\n\treturn host\n}}\n"
        ));
    }
    code
}

/// Writes the Go that enforces the scenario's Go limiters (or node
/// `node`'s alone).
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    let chosen = super::chosen(scenario, node, "Go", |p| match p {
        ProductLimiterSpec::GoRate(s) => Some(s),
        _ => None,
    }, cannot)?;
    let mut bodies = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut specs = Vec::new();
    for &(id, spec) in &chosen {
        let base = go_name(id);
        let name = (1..).map(|k| if k == 1 { base.clone() } else { format!("{base}{k}") }).find(|name| !names.contains(name)).unwrap_or(base);
        bodies.push(limiter_code(id, &name, spec));
        names.push(name);
        specs.push(spec);
    }
    let mut imports = Vec::new();
    if specs.iter().any(|s| s.call == GoCall::Wait && s.timeout_s.is_some()) {
        imports.push("\"context\"");
    }
    if specs.iter().any(|s| s.per_key) {
        imports.push("\"net\"");
    }
    imports.push("\"net/http\"");
    if specs.iter().any(|s| s.per_key) {
        imports.push("\"sync\"");
    }
    if specs.iter().any(|s| s.call == GoCall::Reserve || (s.call == GoCall::Wait && s.timeout_s.is_some())) {
        imports.push("\"time\"");
    }
    let imports: String = imports.iter().map(|i| format!("\t{i}\n")).collect();
    let text = format!(
        "// Package limits enforces what Sluice's {} enforce{} with\n// golang.org/x/time/rate, whose v0.3.0 Sluice transcribed.\npackage limits\n\nimport (\n{imports}\n\t\"golang.org/x/time/rate\"\n)\n\n{}",
        if chosen.len() == 1 { "limiter" } else { "limiters" },
        if chosen.len() == 1 { "s" } else { "" },
        bodies.join("\n")
    );
    let mut warnings = vec!["each process keeps its own limiters: N replicas let through N times the limit".to_string()];
    if specs.iter().any(|s| s.per_key) {
        warnings.push("a request's key is what the Key function returns (the client's address); Sluice keyed each message by its own key, and the map of limiters is never pruned".to_string());
    }
    if specs.iter().any(|s| s.limit == 0.0) {
        warnings.push("a limit of 0: x/time/rate v0.3.0 grants the burst once over the limiter's life; later versions grant it afresh whenever tokens are counted".to_string());
    }
    Ok(Exported { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scenario of node `id` alone, as `export_node` sees it.
    fn alone(id: &str, block: &str) -> Scenario {
        let node: crate::scenario::NodeSpec = serde_json::from_str(&format!(r#"{{"id": "{id}", "kind": "product_limiter", {block}}}"#)).unwrap();
        Scenario::alone(node)
    }

    fn scenario(settings: &str) -> Scenario {
        alone("api-v2", &format!(r#""product": "go_rate", {settings}"#))
    }

    #[test]
    fn allow_is_written_as_a_limiter_and_a_middleware_that_refuses() {
        let out = export(&scenario(r#""limit": 2.5, "burst": 4"#), None).unwrap();
        assert!(out.text.contains("return rate.NewLimiter(rate.Limit(2.5), 4)"), "{}", out.text);
        assert!(out.text.contains("func ApiV2Middleware(next http.Handler) http.Handler {"), "{}", out.text);
        assert!(out.text.contains("if !lim.Allow() {\n\t\t\thttp.Error(w, http.StatusText(429), 429)"), "{}", out.text);
        assert!(!out.text.contains("\"time\""), "no import it does not use: {}", out.text);
    }

    #[test]
    fn wait_with_a_deadline_and_per_key_bring_what_they_need() {
        let out = export(&scenario(r#""limit": 10, "burst": 1, "call": "wait", "timeout_s": 0.25, "per_key": true, "status": 503"#), None).unwrap();
        for line in ["\"context\"", "\"net\"", "\"sync\"", "\"time\"", "context.WithTimeout(r.Context(), 250*time.Millisecond)", "lim.Wait(ctx)", "func ApiV2Key(r *http.Request) string", "http.StatusText(503), 503"] {
            assert!(out.text.contains(line), "{line} missing:\n{}", out.text);
        }
        assert_eq!(out.warnings.len(), 2);
        let out = export(&scenario(r#""limit": 10, "burst": 1, "call": "reserve""#), None).unwrap();
        assert!(out.text.contains("res := lim.Reserve()") && out.text.contains("time.Sleep(res.Delay())"), "{}", out.text);
    }

    #[test]
    fn another_products_limiter_is_refused_with_why() {
        let s = alone("n", r#""product": "nginx_limit_req", "rate": 1"#);
        assert_eq!(export(&s, None).unwrap_err(), ExportError::Nothing("Go"));
        let err = export(&s, Some("n")).unwrap_err().to_string();
        assert_eq!(err, "product_limiter \"n\" cannot be written for Go: it is another product's limiter");
    }

    #[test]
    fn names_are_go_names() {
        assert_eq!(go_name("server_80_location-api"), "Server80LocationApi");
        assert_eq!(go_name("3rd"), "Node3rd");
        assert_eq!(duration(1_500_000_000), "1500*time.Millisecond");
        assert_eq!(duration(2_000_000_000), "2*time.Second");
        assert_eq!(duration(1_234), "time.Duration(1234)");
    }
}
