//! HAProxy configurations in and out, for the limits Sluice models: a
//! stick table storing `http_req_rate(P)`, `http-request track-scN` and
//! `http-request deny if { sc_http_req_rate(N) gt L }` (or an `acl` that
//! says the same); a server's `maxconn` and `maxqueue` with its backend's
//! `timeout queue` (or `timeout connect`) and `balance`; as HAProxy 2.6
//! reads them.
//!
//! Guarantees:
//! - Import reads the file as HAProxy tokenizes it (words, quotes,
//!   backslashes, `#` comments) into sections. Each `frontend` or `listen`
//!   whose deny rule reads a request rate its own rules tracked before, or
//!   whose server (its own, or its `default_backend`'s) has a `maxconn`,
//!   becomes a row: a placeholder producer, a limiter per such rule in
//!   rule order, then the server's limit, then an application. A backend
//!   with a limited server that no frontend reaches is a row of its own.
//!   The table may be the section's own or another section's
//!   (`track-sc0 src table NAME`). A backend takes its timeouts and
//!   balance from itself, else from the last `defaults` above it.
//! - Every line it does not model is noted with its line; a deny rule with
//!   a condition it cannot read is noted, never taken as something else. A
//!   table, time or size it cannot read is refused with the line.
//! - Export writes a `frontend` per HAProxy limiter, named after its node,
//!   with its table, its tracking and its deny rule (or, for a server's
//!   limit, a `backend` named after its node with its server), and a
//!   placeholder `bind` and server to replace; importing it gives the same
//!   block back.

use std::collections::BTreeMap;

use super::{scenario_of, ExportError, Exported, ImportError, Imported, Note, Row};
use crate::blocks::product_limiter::{duration_text, Balance, HaproxyReqRateSpec, HaproxyServerSpec, HAPROXY_MAX_MS};
use crate::scenario::{Kind, ProductLimiterSpec, Scenario};

fn at(line: usize, expected: impl Into<String>) -> ImportError {
    ImportError::At { line, expected: expected.into() }
}

/// One line's words, as HAProxy splits them.
#[derive(Clone, Debug)]
struct Line {
    number: usize,
    words: Vec<String>,
}

/// Splits a line into words: blanks separate, `"..."` and `'...'` quote,
/// `\` escapes the next character (outside single quotes), `#` outside
/// quotes ends the line.
fn words(text: &str, number: usize) -> Result<Vec<String>, ImportError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '#' => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\\' => {
                word.push(chars.next().ok_or_else(|| at(number, "a character after \\"))?);
                in_word = true;
            }
            '"' | '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        None => return Err(at(number, format!("a closing {c}"))),
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => word.push(chars.next().ok_or_else(|| at(number, format!("a closing {c}")))?),
                        Some(other) => word.push(other),
                    }
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// A section: its keyword, its name, where it starts, and its lines.
#[derive(Debug)]
struct Section {
    keyword: String,
    name: String,
    line: usize,
    lines: Vec<Line>,
}

const SECTIONS: &[&str] = &["global", "defaults", "frontend", "backend", "listen", "peers", "resolvers", "userlist", "cache", "program", "http-errors", "ring", "mailers", "log-forward"];

fn sections(text: &str) -> Result<(Vec<Section>, Vec<Note>), ImportError> {
    let mut sections: Vec<Section> = Vec::new();
    let mut notes = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let w = words(raw, number)?;
        let Some(first) = w.first() else { continue };
        if first.starts_with('.') {
            notes.push(Note { line: number, text: format!("{first}: conditional blocks are not evaluated; the lines within are read as written") });
            continue;
        }
        if SECTIONS.contains(&first.as_str()) {
            sections.push(Section { keyword: first.clone(), name: w.get(1).cloned().unwrap_or_default(), line: number, lines: Vec::new() });
        } else if let Some(section) = sections.last_mut() {
            section.lines.push(Line { number, words: w });
        } else {
            notes.push(Note { line: number, text: format!("{first}: outside any section, HAProxy refuses it") });
        }
    }
    Ok((sections, notes))
}

/// A time as HAProxy reads one (`10s`, `250ms`, `1m`; milliseconds when
/// bare), in milliseconds.
fn time_ms(text: &str, line: usize) -> Result<u64, ImportError> {
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let scale_us: u64 = match unit {
        "us" => 1,
        "" | "ms" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => return Err(at(line, format!("a time such as 10s or 250ms, not \"{text}\""))),
    };
    let us = digits.parse::<u64>().ok().and_then(|n| n.checked_mul(scale_us)).ok_or_else(|| at(line, format!("a time such as 10s or 250ms, not \"{text}\"")))?;
    if us / 1000 > HAPROXY_MAX_MS {
        return Err(at(line, format!("a time of at most 2^31 − 1 ms (about 24 days), not \"{text}\"")));
    }
    if !us.is_multiple_of(1000) || us == 0 {
        return Err(at(line, format!("a time of whole milliseconds above 0, not \"{text}\"")));
    }
    Ok(us / 1000)
}

/// A size as HAProxy reads one (`100k` is 102,400).
fn size(text: &str, line: usize) -> Result<u64, ImportError> {
    let (digits, scale) = match text.char_indices().last() {
        Some((i, 'k' | 'K')) => (&text[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&text[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok().and_then(|n| n.checked_mul(scale)).ok_or_else(|| at(line, format!("a size such as 100k, not \"{text}\"")))
}

/// A stick table: its size, expiry and `http_req_rate` period, if stored.
#[derive(Clone, Debug)]
struct Table {
    size: u64,
    expire_ms: Option<u64>,
    period_ms: Option<u64>,
}

fn read_table(line: &Line) -> Result<Table, ImportError> {
    let n = line.number;
    let mut table = Table { size: 0, expire_ms: None, period_ms: None };
    let mut w = line.words[1..].iter();
    let mut typed = false;
    while let Some(word) = w.next() {
        let mut value = |what: &str| w.next().ok_or_else(|| at(n, format!("a value after {what}")));
        match word.as_str() {
            "type" => {
                let t = value("type")?;
                if !["ip", "ipv6", "integer", "string", "binary"].contains(&t.as_str()) {
                    return Err(at(n, format!("a table type (ip, ipv6, integer, string or binary), not \"{t}\"")));
                }
                typed = true;
            }
            "len" => {
                value("len")?;
            }
            "size" => {
                table.size = size(value("size")?, n)?;
                if table.size == 0 || table.size > 1 << 30 {
                    return Err(at(n, "a table size from 1 to 2^30 entries"));
                }
            }
            "expire" => {
                let text = value("expire")?;
                // `expire 0`: entries never expire.
                table.expire_ms = if text == "0" { None } else { Some(time_ms(text, n)?) };
            }
            "peers" | "srvkey" | "write-to" => {
                value(word)?;
            }
            "nopurge" | "recv-only" => {}
            "store" => {
                for item in value("store")?.split(',') {
                    if item == "http_req_rate" {
                        return Err(at(n, "http_req_rate(PERIOD): a rate needs its period"));
                    }
                    if let Some(arg) = item.strip_prefix("http_req_rate(").and_then(|a| a.strip_suffix(')')) {
                        // HAProxy keeps the first and warns of the rest.
                        if table.period_ms.is_none() {
                            table.period_ms = Some(time_ms(arg, n)?);
                        }
                    }
                }
            }
            other => return Err(at(n, format!("a stick-table setting (type, size, expire, store...), not \"{other}\""))),
        }
    }
    if !typed || table.size == 0 {
        return Err(at(n, "stick-table type TYPE size SIZE [expire TIME] store http_req_rate(PERIOD)"));
    }
    Ok(table)
}

/// A rate test: `sc_http_req_rate(N[,table]) gt L`, `scN_http_req_rate gt
/// L`, or the same with `ge` (`ge L` is `gt L − 1`): the counter and the
/// limit.
fn rate_test(words: &[String]) -> Option<(u8, Option<String>, u32)> {
    let [fetch, op, value] = words else { return None };
    let (counter, table) = if let Some(args) = fetch.strip_prefix("sc_http_req_rate(").and_then(|a| a.strip_suffix(')')) {
        let mut parts = args.split(',');
        let n = parts.next()?.parse::<u8>().ok()?;
        (n, parts.next().map(str::to_string))
    } else {
        let n = fetch.strip_prefix("sc")?.strip_suffix("_http_req_rate")?.parse::<u8>().ok()?;
        (n, None)
    };
    let value: u32 = value.parse().ok()?;
    let limit = match op.as_str() {
        "gt" => value,
        "ge" => value.checked_sub(1)?,
        _ => return None,
    };
    (counter <= 2).then_some((counter, table, limit))
}

/// The rate test a deny rule's condition makes, if it makes only that
/// (an acl of several lines is their "or": not only that).
fn condition(words: &[String], acls: &BTreeMap<String, Vec<Vec<String>>>) -> Option<(u8, Option<String>, u32)> {
    match words {
        [kw, open, test @ .., close] if kw == "if" && open == "{" && close == "}" => rate_test(test),
        [kw, name] if kw == "if" => match acls.get(name).map(Vec::as_slice) {
            Some([test]) => rate_test(test),
            _ => None,
        },
        _ => None,
    }
}

/// What a proxy takes from the last `defaults` above it, or sets itself.
#[derive(Clone, Copy, Debug, Default)]
struct Settings {
    /// `timeout queue`, `timeout connect` (0: unset).
    queue_ms: Option<u64>,
    connect_ms: Option<u64>,
    balance: Option<Balance>,
    /// `default-server maxconn N maxqueue N`: what a server line leaves out.
    server_maxconn: Option<u32>,
    server_maxqueue: Option<u32>,
}

impl Settings {
    /// Reads `line` if it is a setting of these; whether it was.
    fn read(&mut self, line: &Line) -> Result<bool, ImportError> {
        let w = &line.words;
        let n = line.number;
        match (w[0].as_str(), w.get(1).map(String::as_str)) {
            ("timeout", Some(which @ ("queue" | "connect"))) => {
                let text = w.get(2).ok_or_else(|| at(n, format!("a time after timeout {which}")))?;
                // Zero (`0`, `0s`) leaves it unset, as HAProxy reads it.
                let zero = text.starts_with('0') && text.trim_start_matches('0').chars().all(|c| c.is_ascii_alphabetic());
                let ms = if zero { None } else { Some(time_ms(text, n)?) };
                if which == "queue" {
                    self.queue_ms = ms;
                } else {
                    self.connect_ms = ms;
                }
                Ok(true)
            }
            ("balance", algorithm) => {
                let name = algorithm.unwrap_or_default();
                let name = name.split('(').next().unwrap_or_default();
                self.balance = Some(match name {
                    "roundrobin" | "static-rr" | "leastconn" | "first" | "random" => Balance::Roundrobin,
                    "source" | "uri" | "url_param" | "hdr" | "rdp-cookie" | "hash" => Balance::Hash,
                    _ => return Err(at(n, format!("a balance algorithm (roundrobin, static-rr, leastconn, first, random, source, uri, url_param, hdr, rdp-cookie or hash), not \"{name}\""))),
                });
                Ok(true)
            }
            ("default-server", _) => {
                let limits = server_limits(&line.words[1..], n)?;
                self.server_maxconn = limits.maxconn.or(self.server_maxconn);
                self.server_maxqueue = limits.maxqueue.or(self.server_maxqueue);
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// What a server line (or `default-server`) says of its limits.
#[derive(Default)]
struct ServerLimits {
    maxconn: Option<u32>,
    maxqueue: Option<u32>,
    /// The settings Sluice does not model.
    others: Vec<String>,
}

/// A server's settings (`maxconn N`, `maxqueue N`, ...).
fn server_limits(words: &[String], n: usize) -> Result<ServerLimits, ImportError> {
    let (mut maxconn, mut maxqueue, mut others) = (None, None, Vec::new());
    let mut w = words.iter();
    while let Some(word) = w.next() {
        if word == "maxconn" || word == "maxqueue" {
            let value = w.next().and_then(|v| v.parse::<u32>().ok()).filter(|v| *v <= 1 << 30).ok_or_else(|| at(n, format!("a whole number from 0 to 2^30 after {word}")))?;
            if word == "maxconn" {
                maxconn = Some(value);
            } else {
                maxqueue = Some(value);
            }
        } else {
            others.push(word.clone());
        }
    }
    Ok(ServerLimits { maxconn, maxqueue, others })
}

/// A note of what a `default-server` line sets that Sluice does not model.
fn unmodelled_default_server(line: &Line) -> Result<Option<Note>, ImportError> {
    if line.words[0] != "default-server" {
        return Ok(None);
    }
    let limits = server_limits(&line.words[1..], line.number)?;
    Ok((!limits.others.is_empty()).then(|| Note { line: line.number, text: format!("default-server: {} not modelled (only maxconn and maxqueue are)", limits.others.join(" ")) }))
}

/// `server NAME ADDR [maxconn N] [maxqueue N] ...`: its maxconn and
/// maxqueue (else `settings`' `default-server` ones, else 0), and the
/// settings it has that Sluice does not model.
fn read_server(line: &Line, settings: &Settings) -> Result<(u32, u32, Vec<String>), ImportError> {
    let n = line.number;
    if line.words.len() < 3 {
        return Err(at(n, "server NAME ADDRESS [maxconn N] [maxqueue N]"));
    }
    let limits = server_limits(&line.words[3..], n)?;
    Ok((limits.maxconn.or(settings.server_maxconn).unwrap_or(0), limits.maxqueue.or(settings.server_maxqueue).unwrap_or(0), limits.others))
}

/// A row's limiters before the backend it reaches is known.
struct Pending {
    name: String,
    limiters: Vec<(String, ProductLimiterSpec)>,
    /// Where its requests go: its own section (a `listen`) or its
    /// `default_backend`.
    backend: Option<String>,
}

/// Reads an HAProxy configuration into a scenario of its limited
/// frontends and backends.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    let (sections, mut notes) = sections(text)?;
    let mut tables = BTreeMap::new();
    for s in &sections {
        for line in s.lines.iter().filter(|l| l.words[0] == "stick-table") {
            tables.insert(s.name.clone(), (read_table(line)?, line.number));
        }
    }
    let mut pending = Vec::new();
    // Each backend's (or listen's) limited server, by section name.
    let mut servers: BTreeMap<String, HaproxyServerSpec> = BTreeMap::new();
    let mut defaults = Settings::default();
    // The sections that counted in each table, for a note when several do.
    let mut counting: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in &sections {
        if s.keyword == "defaults" {
            defaults = Settings::default();
            for line in &s.lines {
                if !defaults.read(line)? {
                    notes.push(Note { line: line.number, text: format!("{} (in defaults): not a limit Sluice models", line.words[0]) });
                }
                notes.extend(unmodelled_default_server(line)?);
            }
            continue;
        }
        if !["frontend", "listen", "backend"].contains(&s.keyword.as_str()) {
            notes.push(Note { line: s.line, text: format!("{}: not modelled, nor what it holds", s.keyword) });
            continue;
        }
        let mut settings = defaults;
        let mut server: Option<(u32, u32)> = None;
        let mut backend = (s.keyword == "listen").then(|| s.name.clone());
        let mut acls: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        // Counter -> (the tracked key, the table).
        let mut tracked: BTreeMap<u8, (String, String)> = BTreeMap::new();
        let mut limiters = Vec::new();
        for line in &s.lines {
            let w = &line.words;
            let note = |notes: &mut Vec<Note>, text: String| notes.push(Note { line: line.number, text });
            if s.keyword != "frontend" && settings.read(line)? {
                notes.extend(unmodelled_default_server(line)?);
                continue;
            }
            match (w[0].as_str(), w.get(1).map(String::as_str)) {
                ("stick-table", _) => {}
                ("server", _) if s.keyword != "frontend" => {
                    let (maxconn, maxqueue, others) = read_server(line, &settings)?;
                    if server.is_some() {
                        note(&mut notes, "server: a second server; Sluice models one server's limit, the first's".into());
                    } else {
                        server = Some((maxconn, maxqueue));
                        if !others.is_empty() {
                            note(&mut notes, format!("server: {} not modelled (only maxconn and maxqueue are)", others.join(" ")));
                        }
                    }
                }
                ("default_backend", Some(name)) if s.keyword != "backend" => backend = Some(name.to_string()),
                ("use_backend", _) => note(&mut notes, "use_backend: not followed; the row goes to the default_backend".into()),
                ("acl", Some(name)) => {
                    let lines = acls.entry(name.to_string()).or_default();
                    lines.push(w[2..].to_vec());
                    if lines.len() == 2 {
                        note(&mut notes, format!("acl {name}: a second line, which HAProxy ORs with the first; a deny on it is not modelled"));
                    }
                }
                ("http-request" | "tcp-request", Some(what)) if what.starts_with("track-sc") || (w[0] == "tcp-request" && w.get(2).is_some_and(|t| t.starts_with("track-sc"))) => {
                    // `tcp-request connection|content|session track-scN` counts the
                    // request before the http-request rules run, as track-sc does.
                    let at_word = if what.starts_with("track-sc") { 1 } else { 2 };
                    let track = &w[at_word];
                    let counter = track["track-sc".len()..].parse::<u8>().ok().filter(|n| *n <= 2);
                    let (Some(counter), Some(key)) = (counter, w.get(at_word + 1)) else {
                        return Err(at(line.number, format!("{} track-sc0 KEY [table NAME]", w[..at_word].join(" "))));
                    };
                    let rest = &w[at_word + 2..];
                    let table = match rest {
                        [] => s.name.clone(),
                        [t, name, ..] if t == "table" => {
                            if rest.len() > 2 {
                                note(&mut notes, format!("{}: a condition on tracking is not modelled; taken as always tracked", w.join(" ")));
                            }
                            name.clone()
                        }
                        [t] if t == "table" => return Err(at(line.number, "a table's name after table")),
                        _ => {
                            note(&mut notes, format!("{}: a condition on tracking is not modelled; taken as always tracked", w.join(" ")));
                            s.name.clone()
                        }
                    };
                    match tracked.entry(counter) {
                        std::collections::btree_map::Entry::Occupied(_) => {
                            note(&mut notes, format!("{}: sc{counter} is tracked already, so HAProxy ignores this one", w.join(" ")));
                        }
                        std::collections::btree_map::Entry::Vacant(slot) => {
                            counting.entry(table.clone()).or_default().push(format!("{} {}", s.keyword, s.name));
                            slot.insert((key.clone(), table));
                        }
                    }
                }
                ("http-request", Some("deny")) => {
                    let mut rest = &w[2..];
                    let mut status = 403u16;
                    if matches!(rest.first().map(String::as_str), Some("deny_status" | "status")) {
                        status = rest.get(1).and_then(|c| c.parse().ok()).filter(|c| (200..=599).contains(c)).ok_or_else(|| at(line.number, format!("{} a code from 200 to 599", rest[0])))?;
                        rest = &rest[2..];
                    }
                    let Some((counter, table_arg, limit)) = condition(rest, &acls) else {
                        note(&mut notes, format!("{}: a deny on a condition Sluice does not model (it reads sc_http_req_rate(N) gt L, or an acl saying so)", w.join(" ")));
                        continue;
                    };
                    let Some((key, table_name)) = tracked.get(&counter) else {
                        note(&mut notes, format!("{}: nothing tracks sc{counter} before this rule, so HAProxy never denies with it", w.join(" ")));
                        continue;
                    };
                    if table_arg.as_ref().is_some_and(|t| t != table_name) {
                        note(&mut notes, format!("{}: reads a table sc{counter} does not count in, so HAProxy never denies with it", w.join(" ")));
                        continue;
                    }
                    let table_name = table_name.clone();
                    let Some((table, _)) = tables.get(&table_name) else {
                        return Err(at(line.number, format!("a stick-table in a section named \"{table_name}\"")));
                    };
                    if limit > 1_000_000_000 {
                        return Err(at(line.number, "a limit of at most 1,000,000,000"));
                    }
                    let Some(period_ms) = table.period_ms else {
                        note(&mut notes, format!("{}: table \"{table_name}\" stores no http_req_rate, so the rate cannot be read and HAProxy never denies with it", w.join(" ")));
                        continue;
                    };
                    if !limiters.is_empty() {
                        note(&mut notes, "http-request deny: a second rate rule here; each block counts on its own".into());
                    }
                    let spec = HaproxyReqRateSpec {
                        period_s: period_ms as f64 / 1000.0,
                        limit,
                        status,
                        size: table.size as u32,
                        expire_s: table.expire_ms.unwrap_or(HAPROXY_MAX_MS) as f64 / 1000.0,
                        key: key.clone(),
                    };
                    limiters.push((table_name, ProductLimiterSpec::HaproxyHttpReqRate(spec)));
                }
                (first, _) => note(&mut notes, format!("{first}: not a limit Sluice models")),
            }
        }
        if let Some((maxconn, maxqueue)) = server.filter(|&(maxconn, _)| maxconn > 0) {
            let timeout = settings.queue_ms.or(settings.connect_ms);
            let spec = HaproxyServerSpec { maxconn, maxqueue, timeout_queue_s: timeout.map(|ms| ms as f64 / 1000.0), balance: settings.balance.unwrap_or_default() };
            servers.insert(s.name.clone(), spec);
        }
        if s.keyword != "backend" {
            pending.push(Pending { name: format!("{} {}", s.keyword, s.name), limiters, backend });
        }
    }
    let mut rows = Vec::new();
    let mut reached = std::collections::BTreeSet::new();
    for p in pending {
        let mut limiters = p.limiters;
        if let Some((name, spec)) = p.backend.and_then(|b| servers.get(&b).map(|spec| (b, spec))) {
            limiters.push((name.clone(), ProductLimiterSpec::HaproxyServer(spec.clone())));
            if !reached.insert(name.clone()) {
                let line = sections.iter().find(|s| s.name == name && s.keyword != "frontend").map_or(0, |s| s.line);
                notes.push(Note { line, text: format!("backend {name}: reached from several frontends; HAProxy shares its server's maxconn among them, each row here has a copy of its own") });
            }
        }
        if !limiters.is_empty() {
            rows.push(Row { name: p.name, limiters });
        }
    }
    for (name, spec) in servers.iter().filter(|(name, _)| !reached.contains(*name)) {
        rows.push(Row { name: format!("backend {name}"), limiters: vec![(name.clone(), ProductLimiterSpec::HaproxyServer(spec.clone()))] });
    }
    for (table, sections) in &counting {
        if sections.len() > 1 {
            let line = tables.get(table).map_or(0, |(_, l)| *l);
            notes.push(Note { line, text: format!("stick-table {table}: {} count in it together; each of their blocks counts on its own", sections.join(", ")) });
        }
    }
    if rows.is_empty() {
        return Err(ImportError::NothingLimited("an http-request deny on sc_http_req_rate, nor a server's maxconn"));
    }
    notes.sort_by_key(|n| n.line);
    Ok(Imported { scenario: scenario_of("HAProxy", &rows)?, notes })
}

fn cannot(kind: Kind) -> &'static str {
    match kind {
        Kind::RateLimiter => "a token bucket has no HAProxy stick-table equivalent: the table counts requests per period; a product limiter haproxy_http_req_rate says what it does",
        Kind::ConcurrencyLimiter => "Sluice's own concurrency limiter holds its sender back; HAProxy's server maxconn queues in the backend: a product limiter haproxy_server says what HAProxy does",
        Kind::ProductLimiter => "it is another product's limiter",
        _ => "HAProxy has no such block",
    }
}

/// A size as HAProxy writes one: `100k`, or entries.
fn written_size(n: u32) -> String {
    match n {
        n if n.is_multiple_of(1 << 20) => format!("{}m", n >> 20),
        n if n.is_multiple_of(1 << 10) => format!("{}k", n >> 10),
        n => n.to_string(),
    }
}

/// The `frontend` that enforces `spec` as node `id` does.
fn frontend(id: &str, spec: &HaproxyReqRateSpec, port: usize) -> String {
    // ipv6 holds IPv4 addresses too.
    let kind = if spec.key == "src" { "ipv6" } else { "string len 64" };
    let expire = if spec.expire_ms() >= HAPROXY_MAX_MS { String::new() } else { format!(" expire {}", duration_text(spec.expire_ms())) };
    let status = if spec.status == 403 { String::new() } else { format!(" deny_status {}", spec.status) };
    format!(
        "frontend {id}\n    bind :{port}                       # where clients connect: yours\n    mode http\n    stick-table type {kind} size {}{expire} store http_req_rate({})\n    http-request track-sc0 {}\n    http-request deny{status} if {{ sc_http_req_rate(0) gt {} }}\n    default_backend {id}_app\n\nbackend {id}_app\n    mode http\n    server app 127.0.0.1:8081        # your application\n",
        written_size(spec.size),
        duration_text(spec.period_ms().into()),
        spec.key,
        spec.limit
    )
}

/// The `backend` that enforces `spec` as node `id` does, and a frontend
/// that sends to it.
fn backend(id: &str, spec: &HaproxyServerSpec, port: usize) -> String {
    let balance = match spec.balance {
        Balance::Roundrobin => "roundrobin",
        Balance::Hash => "source",
    };
    let timeout = match spec.timeout_queue_ms() {
        Some(ms) => format!("timeout queue {}", duration_text(ms)),
        // Unset, HAProxy takes timeout connect as the queue's: unset too.
        None => "timeout connect 0                # no timeout queue, and none taken from connect".to_string(),
    };
    let maxqueue = if spec.maxqueue > 0 { format!(" maxqueue {}", spec.maxqueue) } else { String::new() };
    format!(
        "frontend {id}_in\n    bind :{port}                       # where clients connect: yours\n    mode http\n    default_backend {id}\n\nbackend {id}\n    mode http\n    balance {balance}\n    {timeout}\n    server app 127.0.0.1:8081 maxconn {}{maxqueue}   # your application\n",
        spec.maxconn
    )
}

/// Writes what enforces the scenario's HAProxy limiters (or node `node`
/// alone) as an HAProxy configuration.
pub fn export(scenario: &Scenario, node: Option<&str>) -> Result<Exported, ExportError> {
    let chosen = super::chosen(scenario, node, "HAProxy", |p| matches!(p, ProductLimiterSpec::HaproxyHttpReqRate(_) | ProductLimiterSpec::HaproxyServer(_)).then_some(p), cannot)?;
    let mut text = String::from("# HAProxy 2.6: what Sluice's limiters enforce, one frontend each.\ndefaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n");
    let mut servers = false;
    for (k, &(id, spec)) in chosen.iter().enumerate() {
        text.push('\n');
        match spec {
            ProductLimiterSpec::HaproxyHttpReqRate(s) => text.push_str(&frontend(id, s, 8080 + k)),
            ProductLimiterSpec::HaproxyServer(s) => {
                servers = true;
                if s.balance == Balance::Roundrobin && s.maxqueue > 0 {
                    text.push_str("# maxqueue counts only where the server is chosen whatever its load (balance source, uri, hdr, hash, a cookie): with roundrobin, requests wait in the backend's queue, unbounded\n");
                }
                text.push_str(&backend(id, s, 8080 + k));
            }
            _ => {}
        }
    }
    let mut warnings = vec![
        "each HAProxy instance keeps its own stick tables unless they are shared with peers: N instances behind a balancer let through N times the rate".to_string(),
        "with several threads (nbthread), requests of one millisecond are counted in an order Sluice does not know; the estimate is the same, which request is denied may differ".to_string(),
        "a request's key is what track-sc0 fetches; Sluice keyed each message by its own key".to_string(),
    ];
    if servers {
        warnings.push("a server's maxconn counts requests until the server's response is complete; Sluice counts a request until its consumer completes it".into());
        warnings.push("several servers in one backend each have their own maxconn: the backend then serves up to their sum at once".into());
    }
    Ok(Exported { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::BlockSpec;

    const CONF: &str = "global\n    log stdout format raw local0\ndefaults\n    mode http\n    timeout client 30s\nfrontend web\n    bind :80\n    stick-table type ip size 100k expire 30s store http_req_rate(10s),conn_cur\n    http-request track-sc0 src\n    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 10 }\n    default_backend app\nfrontend api\n    bind :81\n    acl too_fast sc0_http_req_rate ge 21\n    http-request track-sc0 req.hdr(x-client) table rates\n    http-request deny if too_fast\n    http-request deny if { path_beg /admin }\nbackend rates\n    stick-table type string len 32 size 1m store http_req_rate(1m) # no expire\nbackend app\n    server s1 10.0.0.1:80 maxconn 10\n";

    /// The scenario's limiters of this product, as an export picks them.
    fn limiters(s: &Scenario) -> Vec<(String, HaproxyReqRateSpec)> {
        let picked = super::super::chosen(s, None, "haproxy", |p| match p {
            ProductLimiterSpec::HaproxyHttpReqRate(spec) => Some(spec),
            _ => None,
        }, |_| "");
        picked.map_or(Vec::new(), |l| l.into_iter().map(|(id, spec)| (id.to_string(), spec.clone())).collect())
    }

    #[test]
    fn a_configuration_imports_its_rate_limited_frontends() {
        let imported = import(CONF).unwrap();
        let l = limiters(&imported.scenario);
        assert_eq!(l.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["frontend_web_web", "frontend_api_rates"]);
        let web = &l[0].1;
        assert_eq!((web.limit, web.period_ms(), web.status, web.size, web.expire_ms(), web.key.as_str()), (10, 10_000, 429, 102_400, 30_000, "src"));
        let api = &l[1].1;
        assert_eq!((api.limit, api.period_ms(), api.status, api.size, api.key.as_str()), (20, 60_000, 403, 1 << 20, "req.hdr(x-client)"));
        assert_eq!(api.expire_ms(), HAPROXY_MAX_MS, "no expire: kept");
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert!(noted.contains(&(1, "global: not modelled, nor what it holds")), "{noted:?}");
        assert!(noted.contains(&(7, "bind: not a limit Sluice models")), "{noted:?}");
        assert!(noted.iter().any(|(l, t)| *l == 17 && t.starts_with("http-request deny if { path_beg /admin }: a deny on a condition")), "{noted:?}");
        // The server behind frontend web: its maxconn, the backend's queue.
        let ProductLimiterSpec::HaproxyServer(server) = server_of(&imported.scenario, "app") else { panic!() };
        assert_eq!(*server, HaproxyServerSpec::of(10));
        assert!(noted.contains(&(5, "timeout (in defaults): not a limit Sluice models")), "{noted:?}");
    }

    /// The block of node `id` (in a row of several: its row's prefix, then `id`).
    fn server_of<'a>(s: &'a Scenario, id: &str) -> &'a ProductLimiterSpec {
        let node = s.nodes.iter().find(|n| n.id == id || n.id.ends_with(&format!("_{id}"))).unwrap_or_else(|| panic!("no {id} in {:?}", s.nodes));
        match &node.block {
            BlockSpec::ProductLimiter(p) => p,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_server_limit_imports_with_the_timeouts_and_balance_haproxy_gives_its_backend() {
        let text = "defaults\n    timeout connect 5s\n    balance source\nfrontend web\n    bind :80\n    default_backend app\n    use_backend other if { path_beg /x }\nbackend app\n    server s1 10.0.0.1:80 maxconn 2 maxqueue 5 check\n    server s2 10.0.0.2:80 maxconn 3\ndefaults\n    timeout queue 2s\nlisten solo\n    bind :81\n    balance roundrobin\n    server s 10.0.0.3:80 maxconn 1\nbackend lone\n    timeout queue 0\n    server s 10.0.0.4:80 maxconn 4\nbackend free\n    server s 10.0.0.5:80\n";
        let imported = import(text).unwrap();
        let s = &imported.scenario;
        // app: timeout queue unset, so timeout connect's 5 s; balance source is a hash.
        assert_eq!(*server_of(s, "app"), ProductLimiterSpec::HaproxyServer(HaproxyServerSpec { maxconn: 2, maxqueue: 5, timeout_queue_s: Some(5.0), balance: Balance::Hash }));
        // A later defaults starts afresh: solo has its own balance and the queue's 2 s.
        assert_eq!(*server_of(s, "solo"), ProductLimiterSpec::HaproxyServer(HaproxyServerSpec { maxconn: 1, maxqueue: 0, timeout_queue_s: Some(2.0), balance: Balance::Roundrobin }));
        // lone: reached by no frontend, a row of its own; `timeout queue 0` is unset.
        assert_eq!(*server_of(s, "lone"), ProductLimiterSpec::HaproxyServer(HaproxyServerSpec::of(4)));
        assert!(!s.nodes.iter().any(|n| n.id.ends_with("free")), "a server without maxconn limits nothing");
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert!(noted.contains(&(7, "use_backend: not followed; the row goes to the default_backend")), "{noted:?}");
        assert!(noted.contains(&(9, "server: check not modelled (only maxconn and maxqueue are)")), "{noted:?}");
        assert!(noted.contains(&(10, "server: a second server; Sluice models one server's limit, the first's")), "{noted:?}");
        let err = |text: &str| import(text).unwrap_err().to_string();
        assert_eq!(err("backend b\n    server s 1.2.3.4:80 maxconn many\n"), "line 2: a whole number from 0 to 2^30 after maxconn");
        assert_eq!(err("backend b\n    balance fastest\n    server s 1.2.3.4:80 maxconn 1\n"), "line 2: a balance algorithm (roundrobin, static-rr, leastconn, first, random, source, uri, url_param, hdr, rdp-cookie or hash), not \"fastest\"");
        assert_eq!(err("backend b\n    timeout queue soon\n"), "line 2: a time such as 10s or 250ms, not \"soon\"");
        assert_eq!(err("backend b\n    server s\n"), "line 2: server NAME ADDRESS [maxconn N] [maxqueue N]");
        // default-server gives what a server line leaves out; `0s` is unset as `0` is;
        // a backend two frontends reach is noted, each row having its own copy.
        let text = "defaults\n    default-server maxconn 3\nfrontend a\n    default_backend b\nfrontend c\n    default_backend b\nbackend b\n    timeout queue 0s\n    default-server maxqueue 2 check\n    server s 1.2.3.4:80\n";
        let imported = import(text).unwrap();
        assert_eq!(*server_of(&imported.scenario, "b"), ProductLimiterSpec::HaproxyServer(HaproxyServerSpec { maxqueue: 2, ..HaproxyServerSpec::of(3) }));
        assert!(imported.notes.iter().any(|n| n.line == 7 && n.text.starts_with("backend b: reached from several frontends")), "{:?}", imported.notes);
        assert!(imported.notes.iter().any(|n| n.line == 9 && n.text == "default-server: check not modelled (only maxconn and maxqueue are)"), "{:?}", imported.notes);
    }

    #[test]
    fn a_server_limit_exports_and_imports_as_the_same_block() {
        for spec in [
            HaproxyServerSpec::of(10),
            HaproxyServerSpec { maxqueue: 5, timeout_queue_s: Some(2.5), balance: Balance::Hash, ..HaproxyServerSpec::of(1) },
            HaproxyServerSpec { maxqueue: 3, timeout_queue_s: Some(0.001), ..HaproxyServerSpec::of(1 << 30) },
        ] {
            let node = crate::scenario::NodeSpec { id: "srv".into(), position: None, block: BlockSpec::ProductLimiter(ProductLimiterSpec::HaproxyServer(spec.clone())) };
            let out = super::super::export_node(super::super::Product::Haproxy, &node).unwrap();
            let back = import(&out.text).unwrap_or_else(|e| panic!("{e}\n{}", out.text));
            assert_eq!(*server_of(&back.scenario, "srv"), ProductLimiterSpec::HaproxyServer(spec.clone()), "{}", out.text);
            assert_eq!(out.text.contains("with roundrobin, requests wait"), spec.maxqueue > 0 && spec.balance == Balance::Roundrobin);
        }
    }

    #[test]
    fn tracking_by_tcp_request_acls_of_several_lines_and_the_status_keyword_are_read_as_haproxy_reads_them() {
        let text = "frontend f\n    stick-table type ip size 1k expire 0 store http_req_rate(10s),http_req_rate(1s)\n    tcp-request connection track-sc0 src\n    http-request track-sc0 hdr(x)\n    acl fast sc0_http_req_rate gt 5\n    http-request deny status 429 if fast\n    acl two sc0_http_req_rate gt 9\n    acl two path_beg /a\n    http-request deny if two\n";
        let imported = import(text).unwrap();
        let l = limiters(&imported.scenario);
        assert_eq!(l.len(), 1);
        let spec = &l[0].1;
        // Tracked by the tcp-request rule (the http-request one is ignored),
        // the first period kept, `expire 0` never expiring, `status` read.
        assert_eq!((spec.key.as_str(), spec.period_ms(), spec.expire_ms(), spec.status, spec.limit), ("src", 10_000, HAPROXY_MAX_MS, 429, 5));
        let noted: Vec<(usize, &str)> = imported.notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert!(noted.contains(&(4, "http-request track-sc0 hdr(x): sc0 is tracked already, so HAProxy ignores this one")), "{noted:?}");
        assert!(noted.iter().any(|(l, t)| *l == 8 && t.starts_with("acl two: a second line")), "{noted:?}");
        assert!(noted.iter().any(|(l, t)| *l == 9 && t.contains("a deny on a condition Sluice does not model")), "{noted:?}");
    }

    #[test]
    fn a_bad_configuration_names_its_line() {
        let err = |text: &str| import(text).unwrap_err().to_string();
        assert_eq!(err("frontend f\n    stick-table type ip size lots store http_req_rate(10s)\n"), "line 2: a size such as 100k, not \"lots\"");
        assert_eq!(err("frontend f\n    stick-table type ip size 1k store http_req_rate(ten)\n"), "line 2: a time such as 10s or 250ms, not \"ten\"");
        assert_eq!(err("frontend f\n    stick-table type ip size 1k store http_req_rate(1500us)\n"), "line 2: a time of whole milliseconds above 0, not \"1500us\"");
        assert_eq!(err("frontend f\n    http-request track-sc0 src table nowhere\n    http-request deny if { sc_http_req_rate(0) gt 1 }\n"), "line 3: a stick-table in a section named \"nowhere\"");
        assert_eq!(err("frontend f\n    acl a hdr(x) -m str \"open\n"), "line 2: a closing \"");
        assert_eq!(err("frontend f\n    stick-table type ip size 1k store http_req_rate\n"), "line 2: http_req_rate(PERIOD): a rate needs its period");
        assert_eq!(err("frontend f\n    stick-table type ip size 1k expire 30d store http_req_rate(1s)\n"), "line 2: a time of at most 2^31 − 1 ms (about 24 days), not \"30d\"");
        assert_eq!(err("frontend f\n    stick-table type ip size 2g store http_req_rate(1s)\n"), "line 2: a table size from 1 to 2^30 entries");
        assert_eq!(err("frontend f\n    http-request track-sc0 src table\n"), "line 2: a table's name after table");
        assert_eq!(err("frontend f\n    stick-table type ip size 1k store http_req_rate(1s)\n    http-request track-sc0 src\n    http-request deny if { sc_http_req_rate(0) gt 2000000000 }\n"), "line 4: a limit of at most 1,000,000,000");
        assert_eq!(err("frontend f\n    bind :80\n"), "nothing in it is limited by an http-request deny on sc_http_req_rate, nor a server's maxconn: there is nothing to simulate");
        // A deny before anything is tracked never denies: noted, not taken.
        let text = "frontend f\n    stick-table type ip size 1k store http_req_rate(1s)\n    http-request deny if { sc_http_req_rate(0) gt 1 }\n    http-request track-sc0 src\n";
        assert_eq!(err(text), "nothing in it is limited by an http-request deny on sc_http_req_rate, nor a server's maxconn: there is nothing to simulate");
    }

    #[test]
    fn an_export_imports_as_the_same_block() {
        for spec in [
            HaproxyReqRateSpec::of(10, 10.0),
            HaproxyReqRateSpec { status: 429, size: 1000, expire_s: 2.5, key: "req.hdr(x-client)".into(), ..HaproxyReqRateSpec::of(0, 0.25) },
            HaproxyReqRateSpec { expire_s: HAPROXY_MAX_MS as f64 / 1000.0, ..HaproxyReqRateSpec::of(100, 60.0) },
        ] {
            let node = crate::scenario::NodeSpec { id: "edge".into(), position: None, block: BlockSpec::ProductLimiter(ProductLimiterSpec::HaproxyHttpReqRate(spec.clone())) };
            let out = super::super::export_node(super::super::Product::Haproxy, &node).unwrap();
            let back = import(&out.text).unwrap();
            let l = limiters(&back.scenario);
            assert_eq!(l.len(), 1, "{}", out.text);
            assert_eq!(l[0].1, spec, "{}", out.text);
        }
    }
}
