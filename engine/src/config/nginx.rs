//! nginx configurations in and out, for the limits Sluice models
//! (`limit_req_zone`, `limit_req`, `limit_req_status`, `limit_req_dry_run`
//! and the same four of `limit_conn`, as nginx 1.22 reads them).
//!
//! Guarantees:
//! - Import reads `http`, `server` and `location` blocks as nginx merges
//!   them: a level with any `limit_req` (or `limit_conn`) replaces its
//!   parent's list of them, a level without inherits it; the statuses and
//!   dry runs are inherited one by one. Each location (or server without
//!   one) that ends up limited becomes a row: a placeholder producer, its
//!   limits in the order nginx applies them (every `limit_req`, then every
//!   `limit_conn`), an application that takes everything.
//! - Every directive it does not model is noted with its line; none is
//!   dropped in silence. What it cannot read is refused with the line and
//!   what was expected.
//! - Export writes what enforces each nginx product limiter, as an `http`
//!   block of its own; importing it gives the same block back.

use std::collections::BTreeMap;

use super::nginx_conf::{parse, Directive, SyntaxError};
use super::{scenario_of, Exported, ImportError, Imported, Note, Row};
use crate::blocks::product_limiter::{NginxLimitConnSpec, NginxLimitReqSpec, Per, MAX_ZONE_BYTES, MIN_ZONE_BYTES};
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

/// A `limit_req_zone`.
#[derive(Clone, Debug)]
struct Zone {
    key: String,
    bytes: u64,
    rate: u32,
    per: Per,
}

/// A `limit_req` as written.
#[derive(Clone, Debug)]
struct Limit {
    zone: String,
    burst: u32,
    nodelay: bool,
    delay: u32,
    line: usize,
}

/// A `limit_conn` as written.
#[derive(Clone, Debug)]
struct ConnLimit {
    zone: String,
    conn: u32,
    line: usize,
}

/// What a level of the configuration passes down.
#[derive(Clone, Debug, Default)]
struct Inherited {
    limits: Vec<Limit>,
    status: Option<u16>,
    dry_run: Option<bool>,
    conns: Vec<ConnLimit>,
    conn_status: Option<u16>,
    conn_dry_run: Option<bool>,
}

impl Inherited {
    fn is_limited(&self) -> bool {
        !self.limits.is_empty() || !self.conns.is_empty()
    }
}

fn at(line: usize, expected: impl Into<String>) -> ImportError {
    ImportError::At { line, expected: expected.into() }
}

/// `10m`, `32k`, `1g` or bytes, as nginx's `ngx_parse_size` reads a size.
fn size(text: &str, line: usize) -> Result<u64, ImportError> {
    let (digits, scale) = match text.char_indices().last() {
        Some((i, 'k' | 'K')) => (&text[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&text[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| at(line, format!("a zone size such as 10m, not \"{text}\"")))
}

/// A whole number above 0 for `name=`.
fn count(text: &str, name: &str, line: usize) -> Result<u32, ImportError> {
    text.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(|| at(line, format!("{name}= a whole number above 0, not \"{text}\"")))
}

/// `zone=NAME:SIZE`, `p`'s, if it is one: the name and the size.
fn zone_param(p: &str, line: usize) -> Result<Option<(String, u64)>, ImportError> {
    let Some(z) = p.strip_prefix("zone=") else { return Ok(None) };
    let (n, s) = z.split_once(':').ok_or_else(|| at(line, format!("zone=NAME:SIZE, not \"{p}\"")))?;
    if n.is_empty() {
        return Err(at(line, format!("zone=NAME:SIZE with a name, not \"{p}\"")));
    }
    let bytes = size(s, line)?;
    if !(MIN_ZONE_BYTES..=MAX_ZONE_BYTES).contains(&bytes) {
        return Err(at(line, "a zone of 32k (nginx's smallest) to 1024g"));
    }
    Ok(Some((n.to_string(), bytes)))
}

/// `limit_conn_zone KEY zone=NAME:SIZE`: the name, the key and the size.
fn read_conn_zone(d: &Directive) -> Result<(String, (String, u64)), ImportError> {
    let line = d.line;
    let [key, zone] = &d.args[..] else {
        return Err(at(line, "limit_conn_zone KEY zone=NAME:SIZE"));
    };
    let (name, bytes) = zone_param(zone, line)?.ok_or_else(|| at(line, format!("zone=NAME:SIZE, not \"{zone}\"")))?;
    Ok((name, (key.clone(), bytes)))
}

/// `limit_conn ZONE N`.
fn read_conn(d: &Directive) -> Result<ConnLimit, ImportError> {
    let line = d.line;
    let [zone, n] = &d.args[..] else {
        return Err(at(line, "limit_conn ZONE N"));
    };
    let conn = n.parse::<u32>().ok().filter(|n| (1..=65535).contains(n)).ok_or_else(|| at(line, format!("a number of connections from 1 to 65535, not \"{n}\"")))?;
    Ok(ConnLimit { zone: zone.clone(), conn, line })
}

fn read_zone(d: &Directive) -> Result<(String, Zone), ImportError> {
    let line = d.line;
    let [key, params @ ..] = &d.args[..] else {
        return Err(at(line, "limit_req_zone KEY zone=NAME:SIZE rate=RATE"));
    };
    let (mut name, mut bytes, mut rate) = (None, None, (1, Per::Second));
    for p in params {
        if let Some((n, b)) = zone_param(p, line)? {
            name = Some(n);
            bytes = Some(b);
        } else if let Some(r) = p.strip_prefix("rate=") {
            let (n, per) = match (r.strip_suffix("r/s"), r.strip_suffix("r/m")) {
                (Some(n), _) => (n, Per::Second),
                (_, Some(n)) => (n, Per::Minute),
                _ => (r, Per::Second),
            };
            rate = (count(n, "rate", line).map_err(|_| at(line, format!("rate=Nr/s or rate=Nr/m, not \"{p}\"")))?, per);
        } else if p == "sync" {
            return Err(at(line, "no sync: it is NGINX Plus's, and nginx 1.22 refuses it"));
        } else {
            return Err(at(line, format!("zone=NAME:SIZE and rate=RATE, not \"{p}\"")));
        }
    }
    let name = name.ok_or_else(|| at(line, "zone=NAME:SIZE in limit_req_zone"))?;
    let bytes = bytes.unwrap_or(0);
    if rate.0 > 1_000_000 {
        return Err(at(line, "a rate of at most 1,000,000 requests a second or a minute"));
    }
    Ok((name, Zone { key: key.clone(), bytes, rate: rate.0, per: rate.1 }))
}

fn read_limit(d: &Directive) -> Result<Limit, ImportError> {
    let line = d.line;
    let mut limit = Limit { zone: String::new(), burst: 0, nodelay: false, delay: 0, line };
    for p in &d.args {
        if let Some(z) = p.strip_prefix("zone=") {
            limit.zone = z.to_string();
        } else if let Some(b) = p.strip_prefix("burst=") {
            limit.burst = count(b, "burst", line)?;
        } else if let Some(b) = p.strip_prefix("delay=") {
            // nginx takes the last of delay= and nodelay.
            (limit.delay, limit.nodelay) = (count(b, "delay", line)?, false);
        } else if p == "nodelay" {
            (limit.delay, limit.nodelay) = (0, true);
        } else {
            return Err(at(line, format!("zone=NAME, burst=N, nodelay or delay=N, not \"{p}\"")));
        }
    }
    if limit.zone.is_empty() {
        return Err(at(line, "zone=NAME in limit_req"));
    }
    if limit.burst > 1_000_000 || limit.delay > 1_000_000 {
        return Err(at(line, "a burst and a delay of at most 1,000,000"));
    }
    Ok(limit)
}

/// The zones of a configuration, by name.
#[derive(Default)]
struct Zones {
    req: BTreeMap<String, Zone>,
    /// `limit_conn_zone`s: their key and size.
    conn: BTreeMap<String, (String, u64)>,
}

/// Every `limit_req_zone` and `limit_conn_zone` of the `http` blocks, or
/// of the top level of a file that has none (a site's file, included into
/// `http`), by name: one name is one zone.
fn zones(top: &[Directive]) -> Result<Zones, ImportError> {
    let mut zones = Zones::default();
    let levels: Vec<&[Directive]> = top.iter().filter(|d| d.name == "http").filter_map(|d| d.block.as_deref()).chain(std::iter::once(top)).collect();
    for level in levels {
        for d in level.iter().filter(|d| d.name == "limit_req_zone" || d.name == "limit_conn_zone") {
            let name = if d.name == "limit_req_zone" {
                let (name, zone) = read_zone(d)?;
                let taken = zones.conn.contains_key(&name) || zones.req.insert(name.clone(), zone).is_some();
                taken.then_some(name)
            } else {
                let (name, zone) = read_conn_zone(d)?;
                let taken = zones.req.contains_key(&name) || zones.conn.insert(name.clone(), zone).is_some();
                taken.then_some(name)
            };
            if let Some(name) = name {
                return Err(at(d.line, format!("one zone named \"{name}\", not two (nginx: is already used, or is duplicate)")));
            }
        }
    }
    Ok(zones)
}

/// A limited place: where it is, and what limits it.
struct Place {
    name: String,
    limits: Inherited,
}

/// Walks the directives of one level, inheriting `parent`; notes what it
/// does not model and collects the limited places.
fn walk(level: &[Directive], parent: &Inherited, place: &str, places: &mut Vec<Place>, notes: &mut Vec<Note>) -> Result<Inherited, ImportError> {
    let mut here = parent.clone();
    let conns: Vec<&Directive> = level.iter().filter(|d| d.name == "limit_conn").collect();
    if !conns.is_empty() {
        here.conns = conns.into_iter().map(read_conn).collect::<Result<_, _>>()?;
        for later in here.conns.iter().skip(1) {
            notes.push(Note {
                line: later.line,
                text: "limit_conn: a second one in a place; nginx undoes a request's counts when one zone refuses it, the blocks here count one after the other".into(),
            });
        }
    }
    let own: Vec<&Directive> = level.iter().filter(|d| d.name == "limit_req").collect();
    if !own.is_empty() {
        here.limits = own.into_iter().map(read_limit).collect::<Result<_, _>>()?;
        for later in here.limits.iter().skip(1) {
            notes.push(Note {
                line: later.line,
                text: "limit_req: a second one in a place; nginx checks every zone before charging any, the blocks here charge one after the other".into(),
            });
        }
    }
    for d in level {
        match d.name.as_str() {
            "limit_req_status" => {
                let code = d.args.first().and_then(|c| c.parse::<u16>().ok()).filter(|c| (400..=599).contains(c));
                here.status = Some(code.ok_or_else(|| at(d.line, "limit_req_status a code from 400 to 599"))?);
            }
            "limit_conn_status" => {
                let code = d.args.first().and_then(|c| c.parse::<u16>().ok()).filter(|c| (400..=599).contains(c));
                here.conn_status = Some(code.ok_or_else(|| at(d.line, "limit_conn_status a code from 400 to 599"))?);
            }
            "limit_req_dry_run" | "limit_conn_dry_run" => {
                let on = match d.args.first().map(String::as_str) {
                    Some("on") => true,
                    Some("off") => false,
                    _ => return Err(at(d.line, format!("{} on or off", d.name))),
                };
                if d.name == "limit_req_dry_run" {
                    here.dry_run = Some(on);
                } else {
                    here.conn_dry_run = Some(on);
                }
            }
            _ => {}
        }
    }
    for d in level {
        match (d.name.as_str(), &d.block) {
            ("limit_req" | "limit_req_zone" | "limit_req_status" | "limit_req_dry_run", None) => {}
            ("limit_conn" | "limit_conn_zone" | "limit_conn_status" | "limit_conn_dry_run", None) => {}
            ("limit_req_log_level" | "limit_conn_log_level", None) => {
                notes.push(Note { line: d.line, text: format!("{}: what is logged, not what is decided", d.name) })
            }
            ("include", None) => notes.push(Note {
                line: d.line,
                text: format!("include {}: not followed; import the included file, or the whole configuration as nginx -T prints it", d.args.join(" ")),
            }),
            ("server", Some(inner)) => {
                let before = places.len();
                let label = server_label(inner).unwrap_or_else(|| format!("server at line {}", d.line));
                let server = walk(inner, &here, &label, places, notes)?;
                // A server with no location limited on its own.
                if places.len() == before && !inner.iter().any(|d| d.name == "location") && server.is_limited() {
                    places.push(Place { name: label, limits: server });
                }
            }
            ("location", Some(inner)) => {
                let label = format!("{place} location {}", d.args.join(" "));
                let before = places.len();
                let location = walk(inner, &here, &label, places, notes)?;
                if places.len() == before && location.is_limited() {
                    places.push(Place { name: label, limits: location });
                }
            }
            ("http", Some(inner)) => {
                walk(inner, &here, place, places, notes)?;
            }
            (name, Some(_)) => notes.push(Note { line: d.line, text: format!("{name} {{...}}: not modelled, nor what it holds") }),
            (name, None) => notes.push(Note { line: d.line, text: format!("{name}: not a limit Sluice models") }),
        }
    }
    Ok(here)
}

/// A server's name for people: its first `server_name`, or `listen`.
fn server_label(inner: &[Directive]) -> Option<String> {
    let by = |name: &str| inner.iter().find(|d| d.name == name).and_then(|d| d.args.first().cloned());
    by("server_name").or_else(|| by("listen")).map(|n| format!("server {n}"))
}

/// Reads an nginx configuration into a scenario of its limited places.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    let top = parse(text).map_err(|SyntaxError { line, expected }| at(line, expected))?;
    let mut notes = Vec::new();
    let zones = zones(&top)?;
    let mut places = Vec::new();
    walk(&top, &Inherited::default(), "", &mut places, &mut notes)?;
    if places.is_empty() {
        return Err(ImportError::NothingLimited("limit_req or limit_conn"));
    }
    let mut rows = Vec::new();
    for place in &places {
        let mut limiters = Vec::new();
        for limit in &place.limits.limits {
            let zone = zones.req.get(&limit.zone).ok_or_else(|| at(limit.line, format!("a limit_req_zone named \"{}\" in the http block", limit.zone)))?;
            let spec = NginxLimitReqSpec {
                rate: zone.rate,
                per: zone.per,
                burst: limit.burst,
                nodelay: limit.nodelay,
                delay: limit.delay,
                status: place.limits.status.unwrap_or(503),
                dry_run: place.limits.dry_run.unwrap_or(false),
                zone_bytes: zone.bytes,
                key: zone.key.clone(),
            };
            limiters.push((limit.zone.clone(), ProductLimiterSpec::NginxLimitReq(spec)));
        }
        for limit in &place.limits.conns {
            let (key, bytes) = zones.conn.get(&limit.zone).ok_or_else(|| at(limit.line, format!("a limit_conn_zone named \"{}\" in the http block", limit.zone)))?;
            let spec = NginxLimitConnSpec {
                conn: limit.conn,
                status: place.limits.conn_status.unwrap_or(503),
                dry_run: place.limits.conn_dry_run.unwrap_or(false),
                zone_bytes: *bytes,
                key: key.clone(),
            };
            limiters.push((limit.zone.clone(), ProductLimiterSpec::NginxLimitConn(spec)));
        }
        rows.push(Row { name: place.name.trim().to_string(), limiters });
    }
    let scenario = scenario_of("nginx", &rows)?;
    Ok(Imported { scenario, notes })
}

/// A size as nginx writes it: `10m`, `32k`, or bytes.
fn written_size(bytes: u64) -> String {
    match bytes {
        b if b % (1 << 20) == 0 => format!("{}m", b >> 20),
        b if b % (1 << 10) == 0 => format!("{}k", b >> 10),
        b => b.to_string(),
    }
}

/// What enforces `spec` (of node `id`) in nginx: the zone, then the limit
/// and its settings, for the `http` block and the location.
fn limit_lines(id: &str, spec: &ProductLimiterSpec) -> (String, Vec<String>) {
    let (zone, mut location, dry_run) = match spec {
        ProductLimiterSpec::NginxLimitConn(s) => (
            format!("limit_conn_zone {} zone={id}:{};", s.key, written_size(s.zone_bytes)),
            vec![format!("limit_conn {id} {};", s.conn), format!("limit_conn_status {};", s.status)],
            s.dry_run.then_some("limit_conn_dry_run on;"),
        ),
        ProductLimiterSpec::NginxLimitReq(s) => (
            format!("limit_req_zone {} zone={id}:{} rate={};", s.key, written_size(s.zone_bytes), s.rate_text()),
            vec![format!("limit_req zone={id}{};", s.limit_args()), format!("limit_req_status {};", s.status)],
            s.dry_run.then_some("limit_req_dry_run on;"),
        ),
        _ => unreachable!("chosen only nginx's limiters"),
    };
    location.extend(dry_run.map(String::from));
    (zone, location)
}

/// Why a block has no nginx equivalent.
fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::RateLimiter => "Sluice's own rate limiter has no exact nginx equivalent; a product limiter nginx_limit_req says what nginx does (a token bucket of capacity C at rate r is close to burst=C-1 nodelay)",
        Kind::ConcurrencyLimiter => "Sluice's own concurrency limiter makes its sender wait; nginx's limit_conn refuses at once: a product limiter nginx_limit_conn says what nginx does",
        Kind::Queue => "nginx keeps no queue of its own: limit_req without nodelay delays requests instead",
        Kind::ProductLimiter => "it is another product's limiter",
        _ => "nginx has no such block",
    }
}

/// Writes what enforces the scenario's nginx limiters (or node `node`
/// alone) as an nginx configuration.
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, super::ExportError> {
    let chosen = super::chosen(scenario, node, "nginx", |p| matches!(p, ProductLimiterSpec::NginxLimitReq(_) | ProductLimiterSpec::NginxLimitConn(_)).then_some(p), cannot)?;
    let mut zones = Vec::new();
    let mut locations = Vec::new();
    for &(id, spec) in &chosen {
        let (zone, lines) = limit_lines(id, spec);
        zones.push(format!("    {zone}"));
        let path = if chosen.len() == 1 { "/".to_string() } else { format!("/{id}/") };
        let body: Vec<String> = lines.iter().map(|l| format!("            {l}")).collect();
        locations.push(format!("        location {path} {{\n{}\n        }}", body.join("\n")));
    }
    let names: Vec<String> = chosen.iter().map(|(id, _)| format!("\"{id}\"")).collect();
    let text = format!(
        "# nginx 1.22: what Sluice's {} {} enforce{}.\nhttp {{\n{}\n    server {{\n{}\n    }}\n}}\n",
        if names.len() == 1 { "limiter" } else { "limiters" },
        names.join(", "),
        if names.len() == 1 { "s" } else { "" },
        zones.join("\n"),
        locations.join("\n")
    );
    let mut warnings = vec![
        "each nginx instance keeps its own zones: behind a load balancer, N instances let through N times the rate (worker processes of one instance share them)".to_string(),
        "a request's key is the zone's key variable; Sluice keyed each message by its own key".to_string(),
    ];
    if chosen.iter().any(|(_, p)| matches!(p, ProductLimiterSpec::NginxLimitConn(_))) {
        warnings.push("limit_conn counts a request until nginx has sent its response and freed it; Sluice counts it until its consumer completes it: a slow client holds its place longer in nginx".into());
    }
    Ok(Exported { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::BlockSpec;

    const CONF: &str = "user www-data;\nevents { worker_connections 768; }\nhttp {\n    limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\n    limit_req_zone $http_x_client zone=api:1m rate=30r/m;\n    limit_req_status 429;\n    limit_req zone=one burst=4 nodelay;\n    server {\n        listen 80;\n        location / { root /srv; }\n        location /api/ {\n            limit_req zone=api burst=6 delay=2;\n            limit_req zone=one;\n            limit_req_dry_run on;\n        }\n    }\n}\n";

    /// The scenario's limiters of this product, as an export picks them.
    fn limiters(s: &Scenario) -> Vec<(String, NginxLimitReqSpec)> {
        let picked = super::super::chosen(s, None, "nginx", |p| match p {
            ProductLimiterSpec::NginxLimitReq(spec) => Some(spec),
            _ => None,
        }, |_| "");
        picked.map_or(Vec::new(), |l| l.into_iter().map(|(id, spec)| (id.to_string(), spec.clone())).collect())
    }

    #[test]
    fn a_configuration_imports_as_nginx_merges_it() {
        let imported = import(CONF).unwrap();
        let l = limiters(&imported.scenario);
        // `/` inherits the http level's limit; `/api/` replaces it with its own two.
        assert_eq!(l.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["server_80_location_one", "server_80_location_api_api", "server_80_location_api_one"]);
        let (_, root) = &l[0];
        assert_eq!((root.rate, root.per, root.burst, root.nodelay, root.status, root.dry_run), (10, Per::Second, 4, true, 429, false));
        assert_eq!((root.zone_bytes, root.key.as_str()), (10 << 20, "$binary_remote_addr"));
        let (_, api) = &l[1];
        assert_eq!((api.rate, api.per, api.burst, api.delay, api.dry_run, api.zone_bytes), (30, Per::Minute, 6, 2, true, 1 << 20));
        assert_eq!((l[2].1.burst, l[2].1.nodelay), (0, false));
        // What it does not model is noted with its line.
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert!(noted.contains(&(1, "user: not a limit Sluice models")), "{noted:?}");
        assert!(noted.contains(&(2, "events {...}: not modelled, nor what it holds")), "{noted:?}");
        assert!(noted.contains(&(9, "listen: not a limit Sluice models")), "{noted:?}");
        assert!(noted.contains(&(10, "root: not a limit Sluice models")), "{noted:?}");
    }

    #[test]
    fn a_bad_configuration_names_its_line() {
        let err = |text: &str| import(text).unwrap_err().to_string();
        assert_eq!(err("http {\n limit_req zone=none;\n server { }\n}\n"), "line 2: a limit_req_zone named \"none\" in the http block");
        assert_eq!(err("http {\n limit_req_zone $a zone=z:10q rate=1r/s;\n}\n"), "line 2: a zone size such as 10m, not \"10q\"");
        assert_eq!(err("http {\n limit_req_zone $a zone=z:1m rate=fast;\n}\n"), "line 2: rate=Nr/s or rate=Nr/m, not \"rate=fast\"");
        assert_eq!(err("http {\n limit_req_zone $a zone=z:1m rate=1r/s;\n limit_req zone=z burst=0;\n server {}\n}\n"), "line 3: burst= a whole number above 0, not \"0\"");
        assert_eq!(err("http {\n limit_req_zone $a zone=z:1k rate=1r/s;\n}\n"), "line 2: a zone of 32k (nginx's smallest) to 1024g");
        assert_eq!(err("http {\n limit_req_zone $a zone=z:1m rate=1r/s;\n limit_req_zone $b zone=z:1m rate=2r/s;\n}\n"), "line 3: one zone named \"z\", not two (nginx: is already used, or is duplicate)");
        assert_eq!(err("http {\n limit_req_zone $a zone=z:1m rate=1r/s;\n limit_conn_zone $a zone=z:1m;\n}\n"), "line 3: one zone named \"z\", not two (nginx: is already used, or is duplicate)");
        assert_eq!(err("http {\n limit_conn_zone $a zone=z:1m;\n limit_conn z 0;\n server {}\n}\n"), "line 3: a number of connections from 1 to 65535, not \"0\"");
        assert_eq!(err("http {\n limit_conn_zone $a;\n}\n"), "line 2: limit_conn_zone KEY zone=NAME:SIZE");
        assert_eq!(err("http {\n limit_conn_zone $a zone=z:1m;\n server { limit_conn y 1; }\n}\n"), "line 3: a limit_conn_zone named \"y\" in the http block");
        assert_eq!(err("http {\n limit_conn_status 302;\n}\n"), "line 2: limit_conn_status a code from 400 to 599");
        assert_eq!(err("http {\n server { listen 80; }\n}\n"), "nothing in it is limited by limit_req or limit_conn: there is nothing to simulate");
        assert_eq!(err("http {\n limit_req_zone $a zone=z:1m rate=1r/s sync;\n}\n"), "line 2: no sync: it is NGINX Plus's, and nginx 1.22 refuses it");
        assert_eq!(err("http {\n limit_req zone=z\n}"), "line 3: a ; ending \"limit_req\" (line 2) before this }");
    }

    #[test]
    fn a_site_file_several_limits_and_clashing_names_import_as_nginx_reads_them() {
        // A site's file, included into http: its zone and server at the top.
        let site = "limit_req_zone $binary_remote_addr zone=app:1m rate=5r/s;\nserver {\n listen 80;\n location / {\n  limit_req zone=app nodelay delay=3;\n  limit_req zone=app;\n }\n}\ninclude /etc/nginx/snippets/*.conf;\n";
        let imported = import(site).unwrap();
        let ids: Vec<&str> = imported.scenario.nodes.iter().map(|n| n.id.as_str()).collect();
        // The zone named "app" and the application: each id once.
        assert_eq!(ids, ["clients", "app", "app_2", "app_3"]);
        let l = limiters(&imported.scenario);
        assert_eq!((l[0].1.delay, l[0].1.nodelay), (3, false), "nginx takes the last of nodelay and delay=");
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert!(noted.iter().any(|(line, text)| *line == 6 && text.contains("nginx checks every zone before charging any")), "{noted:?}");
        assert!(noted.iter().any(|(line, text)| *line == 9 && text.starts_with("include /etc/nginx/snippets/*.conf: not followed")), "{noted:?}");
    }

    #[test]
    fn an_export_imports_back_to_the_same_limiter() {
        let specs = [
            NginxLimitReqSpec::of(10, 4),
            NginxLimitReqSpec { nodelay: true, status: 429, ..NginxLimitReqSpec::of(250, 20) },
            NginxLimitReqSpec { per: Per::Minute, delay: 3, dry_run: true, zone_bytes: 32 << 10, key: "$http_x_client".into(), ..NginxLimitReqSpec::of(30, 6) },
            NginxLimitReqSpec { zone_bytes: 123_457, ..NginxLimitReqSpec::of(1, 0) },
        ];
        for spec in specs {
            let scenario = Scenario::from_value(serde_json::json!({"version": 1, "nodes": [
                {"id": "c", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 1}},
                {"id": "edge", "kind": "product_limiter", "product": "nginx_limit_req", "rate": 1},
                {"id": "app", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.001}}],
                "edges": [{"from": "c", "to": "edge"}, {"from": "edge", "to": "app"}]}))
            .unwrap();
            let mut scenario = scenario;
            scenario.nodes[1].block = BlockSpec::ProductLimiter(ProductLimiterSpec::NginxLimitReq(spec.clone()));
            let exported = export(&scenario, None).unwrap();
            let back = import(&exported.text).unwrap_or_else(|e| panic!("{e}\n{}", exported.text));
            assert_eq!(limiters(&back.scenario), vec![("edge".to_string(), spec)], "{}", exported.text);
            assert!(back.notes.is_empty(), "{:?}", back.notes);
        }
    }

    #[test]
    fn limit_conn_imports_after_limit_req_and_round_trips() {
        let conf = "http {\n limit_conn_zone $binary_remote_addr zone=addr:1m;\n limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\n limit_conn_status 429;\n server {\n  location / {\n   limit_conn addr 3;\n   limit_req zone=one burst=4;\n   limit_conn_dry_run on;\n   limit_conn_log_level warn;\n  }\n }\n}\n";
        let imported = import(conf).unwrap();
        let specs: Vec<&ProductLimiterSpec> = imported.scenario.nodes.iter().filter_map(|n| match &n.block {
            BlockSpec::ProductLimiter(p) => Some(p),
            _ => None,
        }).collect();
        // nginx runs limit_req's handler before limit_conn's, whatever the order written.
        assert!(matches!(specs[0], ProductLimiterSpec::NginxLimitReq(_)), "{specs:?}");
        let ProductLimiterSpec::NginxLimitConn(conn) = specs[1] else { panic!("{specs:?}") };
        assert_eq!(*conn, NginxLimitConnSpec { conn: 3, status: 429, dry_run: true, zone_bytes: 1 << 20, key: "$binary_remote_addr".into() });
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert_eq!(noted, [(10, "limit_conn_log_level: what is logged, not what is decided")]);
        for spec in [conn.clone(), NginxLimitConnSpec { key: "$http_x_client".into(), zone_bytes: 32 << 10, ..NginxLimitConnSpec::of(65535) }] {
            let mut scenario = imported.scenario.clone();
            let id = scenario.nodes[2].id.clone();
            scenario.nodes[2].block = BlockSpec::ProductLimiter(ProductLimiterSpec::NginxLimitConn(spec.clone()));
            let exported = export(&scenario, Some(&id)).unwrap();
            let back = import(&exported.text).unwrap_or_else(|e| panic!("{e}\n{}", exported.text));
            let got: Vec<&BlockSpec> = back.scenario.nodes.iter().map(|n| &n.block).filter(|b| b.kind() == Kind::ProductLimiter).collect();
            assert_eq!(got, [&BlockSpec::ProductLimiter(ProductLimiterSpec::NginxLimitConn(spec))], "{}", exported.text);
            assert!(back.notes.is_empty(), "{:?}", back.notes);
        }
    }

    #[test]
    fn what_nginx_cannot_express_is_refused_with_why() {
        let s = Scenario::from_json(crate::scenario::DEFAULT_SCENARIO).unwrap();
        let queue = s.nodes.iter().find(|n| n.block.kind() == Kind::Queue).unwrap().id.clone();
        let err = export(&s, Some(&queue)).unwrap_err().to_string();
        assert!(err.contains("nginx keeps no queue of its own"), "{err}");
        assert_eq!(export(&s, None).unwrap_err().to_string(), "the scenario has no limiter nginx can express");
        assert_eq!(export(&s, Some("nowhere")).unwrap_err().to_string(), "no node \"nowhere\" in the scenario");
    }
}
