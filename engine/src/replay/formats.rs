//! The logs a replay reads: a CSV of instants (`time_s[,key][,service_s]`),
//! nginx's access log in the format `docs/traffic.md` gives, Envoy's
//! default access log, and a browser's HAR. Each gives, per request, the
//! instant it began, a key, and (but a CSV without its third column) how
//! long it took.
//!
//! Guarantees:
//! - A request begins at its log's start instant: nginx's `$msec` (the
//!   instant the line was written, at the request's end) less
//!   `$request_time`; Envoy's `START_TIME`; a HAR entry's
//!   `startedDateTime`; a CSV's first column. All read as decimal text into
//!   whole nanoseconds, never through a float (a HAR's `time`, a JSON
//!   number, is rounded to the nanosecond).
//! - A log is written as requests end, so its start instants go back now
//!   and then: they are sorted (equal instants in file order), and the
//!   replay says how many lines came before the line above them and the
//!   first such line, never silently.
//! - A line that does not parse names its number and the format expected;
//!   a log with no request is refused; nothing runs until every line is
//!   read.

use std::fmt;
use std::io::BufRead;

use super::{parse_instant, shown, LineError, Replay, ReplayError, MAX_KEY_BYTES, NANOS};
use crate::time::{SimDuration, SimTime};

/// A log's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Csv,
    Nginx,
    Envoy,
    Har,
}

impl LogFormat {
    pub const ALL: [LogFormat; 4] = [LogFormat::Csv, LogFormat::Nginx, LogFormat::Envoy, LogFormat::Har];

    pub fn name(self) -> &'static str {
        match self {
            LogFormat::Csv => "csv",
            LogFormat::Nginx => "nginx",
            LogFormat::Envoy => "envoy",
            LogFormat::Har => "har",
        }
    }

    /// The format named `name`, if any.
    pub fn named(name: &str) -> Option<LogFormat> {
        LogFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// What a line of this format looks like, as an error says it.
    fn expected(self) -> &'static str {
        match self {
            LogFormat::Csv => "a CSV line: seconds as a plain decimal, then optionally a comma and a key, then optionally a comma and the service time in seconds",
            LogFormat::Nginx => "nginx's log_format sluice: '$msec $request_time $remote_addr $host \"$request\" $status' (docs/traffic.md)",
            LogFormat::Envoy => "Envoy's default access log: '[START_TIME] \"METHOD PATH PROTOCOL\" CODE FLAGS RECEIVED SENT DURATION UPSTREAM_TIME \"X-FORWARDED-FOR\" \"USER-AGENT\" \"REQUEST-ID\" \"AUTHORITY\" \"UPSTREAM\"'",
            LogFormat::Har => "a HAR file: {\"log\": {\"entries\": [{\"startedDateTime\": ..., \"time\": ...}, ...]}}",
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which part of a request is its key (the limiters' `key`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum KeyField {
    /// The format's own: nginx's and Envoy's client address, a CSV's
    /// second column, none for a HAR.
    #[default]
    Default,
    None,
    /// The client's address: nginx's `$remote_addr`, Envoy's
    /// `X-Forwarded-For`.
    Client,
    /// The request's path, without its query.
    Path,
    /// nginx's `$host`, Envoy's `:authority`, a HAR request's host.
    Host,
    /// A request header of a HAR, by name (any case).
    Header(String),
    /// The Nth field of an nginx or Envoy line (from 1; a quoted or
    /// bracketed field is one).
    Field(usize),
}

impl KeyField {
    /// `client`, `path`, `host`, `none`, `header:NAME` or `field:N`.
    pub fn parse(text: &str) -> Result<KeyField, String> {
        let refuse = || format!("--key {}: expected client, path, host, none, header:NAME or field:N", shown(text));
        Ok(match text {
            "client" => KeyField::Client,
            "path" => KeyField::Path,
            "host" => KeyField::Host,
            "none" => KeyField::None,
            _ => match text.split_once(':') {
                Some(("header", name)) if !name.is_empty() => KeyField::Header(name.to_string()),
                Some(("field", n)) => KeyField::Field(n.parse().ok().filter(|&n| n >= 1).ok_or_else(refuse)?),
                _ => return Err(refuse()),
            },
        })
    }

    /// Why this key cannot be read from `format`, if it cannot.
    fn refused_by(&self, format: LogFormat) -> Option<String> {
        let why = match (format, self) {
            (_, KeyField::Default | KeyField::None) => return None,
            (LogFormat::Csv, _) => "a CSV's key is its second column",
            (LogFormat::Har, KeyField::Client) => "a HAR names no client address: use path, host or header:NAME",
            (LogFormat::Har, KeyField::Field(_)) => "a HAR has no fields by number: use path, host or header:NAME",
            (LogFormat::Nginx | LogFormat::Envoy, KeyField::Header(_)) => "this log holds no header by name: log it as a field of its own and use field:N",
            _ => return None,
        };
        Some(format!("--key: {why}"))
    }
}

/// Reads the first lines of `head` and says which format they are in:
/// a HAR begins with `{`, Envoy's lines with `[` and a date, nginx's with
/// two decimals and a space; anything else is read as a CSV.
pub fn detect(head: &str) -> LogFormat {
    let first = head.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").trim_start_matches('\u{feff}');
    if first.starts_with('{') {
        return LogFormat::Har;
    }
    if first.starts_with('[') && first.as_bytes().get(1).is_some_and(u8::is_ascii_digit) {
        return LogFormat::Envoy;
    }
    let words: Vec<&str> = first.split(' ').take(3).collect();
    if words.len() >= 3 && parse_instant(words[0]).is_ok() && parse_instant(words[1]).is_ok() {
        return LogFormat::Nginx;
    }
    LogFormat::Csv
}

/// A line's fields: separated by spaces; a field in double quotes or in
/// square brackets is one, without them.
fn fields(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let (field, after) = match rest.as_bytes()[0] {
            b'"' => match rest[1..].find('"') {
                Some(end) => (&rest[1..1 + end], &rest[2 + end..]),
                None => (&rest[1..], ""),
            },
            b'[' => match rest.find(']') {
                Some(end) => (&rest[1..end], &rest[end + 1..]),
                None => (&rest[1..], ""),
            },
            _ => match rest.find(' ') {
                Some(end) => (&rest[..end], &rest[end..]),
                None => (rest, ""),
            },
        };
        out.push(field);
        rest = after.trim_start();
    }
    out
}

/// The path of a request line (`GET /a/b?c=1 HTTP/1.1` → `/a/b`) or of a
/// URL (`https://h/a/b?c=1` → `/a/b`).
fn path_of(text: &str) -> &str {
    let target = if text.contains(' ') { text.split(' ').nth(1).unwrap_or("") } else { text };
    let after_host = match target.find("://") {
        Some(i) => {
            let rest = &target[i + 3..];
            rest.find('/').map_or("/", |j| &rest[j..])
        }
        None => target,
    };
    after_host.split(['?', '#']).next().unwrap_or("")
}

/// A URL's host (`https://h:8080/a` → `h:8080`).
fn host_of(url: &str) -> &str {
    let rest = url.find("://").map_or(url, |i| &url[i + 3..]);
    rest.split(['/', '?', '#']).next().unwrap_or("")
}

/// Whole nanoseconds since 1970 of an ISO 8601 instant with a date, a time
/// to the second or finer, and a zone (`Z`, `+01:00`, `-0500`):
/// `2016-04-15T20:17:00.310Z`. A date that is not on the calendar (the
/// 30th of February, the 29th in a common year) or a zone past 14 hours
/// is none.
pub fn parse_iso8601(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let s = text.get(from..from + len)?;
        s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d, h, mi, s) = (num(0, 4)?, num(5, 2)?, num(8, 2)?, num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&mo) || d < 1 || d > month_days[(mo - 1) as usize] || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos: i64 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 9 {
                nanos += i64::from(b[i] - b'0') * 10i64.pow(8 - (i - start) as u32);
            }
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset_s = match &text[i..] {
        "Z" | "z" => 0,
        zone if (zone.len() == 6 && zone.as_bytes()[3] == b':' || zone.len() == 5) && matches!(zone.as_bytes()[0], b'+' | b'-') => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            // Zones run from −12:00 to +14:00, in hours and minutes.
            let (zh, zm) = (num(i + 1, 2)?, num(i + zone.len() - 2, 2)?);
            if zh > 14 || zm > 59 {
                return None;
            }
            sign * (zh * 3600 + zm * 60)
        }
        _ => return None,
    };
    // Days from 1970-01-01 to the date (Howard Hinnant's days_from_civil).
    let (y, m) = if mo <= 2 { (y - 1, mo + 9) } else { (y, mo - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + h * 3600 + mi * 60 + s - offset_s;
    u64::try_from(seconds).ok()?.checked_mul(NANOS)?.checked_add(nanos as u64)
}

/// One request as read: where it begins (nanoseconds since the log's
/// epoch), its key's number, how long it took, and its line.
struct Request {
    start: u64,
    key: u32,
    service: Option<u64>,
    line: u64,
}

/// Requests gathered in file order, then sorted into a replay.
#[derive(Default)]
struct Gathered {
    requests: Vec<Request>,
    replay: Replay,
    /// Lines read so far (or HAR entries).
    lines: u64,
}

impl Gathered {
    fn push(&mut self, start: u64, key: &str, service: Option<u64>, line: u64) -> Result<(), ReplayError> {
        if key.len() > MAX_KEY_BYTES {
            return Err(ReplayError::Line { line, why: LineError::KeyTooLong });
        }
        let key = self.replay.names.index(key).ok_or(ReplayError::Line { line, why: LineError::TooManyKeys })?;
        if let Some(first) = self.requests.first() {
            if first.service.is_some() != service.is_some() {
                let (with, without) = if service.is_some() { (line, first.line) } else { (first.line, line) };
                return Err(ReplayError::Line { line, why: LineError::ServiceMixed { with, without } });
            }
        }
        self.requests.push(Request { start, key, service, line });
        Ok(())
    }

    fn finish(mut self) -> Result<Replay, ReplayError> {
        let mut reordered = 0u64;
        let mut first_line = None;
        for w in self.requests.windows(2) {
            if w[1].start < w[0].start {
                reordered += 1;
                first_line.get_or_insert(w[1].line);
            }
        }
        if reordered > 0 {
            // Stable: equal instants stay in file order.
            self.requests.sort_by_key(|r| r.start);
        }
        let Some(first) = self.requests.first() else { return Err(ReplayError::Empty) };
        let mut replay = self.replay;
        replay.origin_s = first.start / NANOS;
        let origin = replay.origin_s * NANOS;
        replay.at = self.requests.iter().map(|r| SimTime::from_nanos(r.start - origin)).collect();
        replay.keys = self.requests.iter().map(|r| r.key).collect();
        replay.service = self.requests.iter().filter_map(|r| r.service.map(SimDuration::from_nanos)).collect();
        replay.reordered = first_line.map(|first_line| super::Reordered { lines: reordered, first_line });
        Ok(replay)
    }
}

/// Reads a log in `format` (detected from its first lines when `None`),
/// each request's key as `key` says.
pub fn read_log(mut input: impl BufRead, format: Option<LogFormat>, key: &KeyField) -> Result<(Replay, LogFormat), ReplayError> {
    let format = match format {
        Some(f) => f,
        None => {
            let head = input.fill_buf()?;
            detect(&String::from_utf8_lossy(&head[..head.len().min(4096)]))
        }
    };
    if let Some(why) = key.refused_by(format) {
        return Err(ReplayError::Key(why));
    }
    let replay = match format {
        LogFormat::Har => read_har(input, key)?,
        _ => {
            let mut g = Gathered::default();
            for line in input.lines() {
                let line = line?;
                g.lines += 1;
                let number = g.lines;
                let text = line.trim_end_matches('\r');
                let text = if number == 1 { text.trim_start_matches('\u{feff}') } else { text };
                if text.trim().is_empty() {
                    continue;
                }
                let bad = |why| ReplayError::Line { line: number, why };
                let not_format = || bad(LineError::NotFormat { text: shown(text), expected: format.expected() });
                match format {
                    LogFormat::Csv => match csv_line(text) {
                        Ok(Some((start, k, service))) => g.push(start, if *key == KeyField::None { "" } else { &k }, service, number)?,
                        // A header: the first line, beginning with a letter.
                        Ok(None) if number == 1 => {}
                        Ok(None) => return Err(bad(LineError::NotAnInstant(shown(text.split(',').next().unwrap_or(text))))),
                        Err(why) => return Err(bad(why)),
                    },
                    LogFormat::Nginx => {
                        let f = fields(text);
                        let (Some(end), Some(took)) = (f.first().and_then(|t| parse_instant(t).ok()), f.get(1).and_then(|t| parse_instant(t).ok())) else {
                            return Err(not_format());
                        };
                        let start = end.checked_sub(took).ok_or_else(not_format)?;
                        let k = pick(&f, key, [3, 4, 5], number)?;
                        let k = if matches!(key, KeyField::Path) { path_of(k) } else { k };
                        g.push(start, k, Some(took), number)?;
                    }
                    LogFormat::Envoy => {
                        let f = fields(text);
                        let (Some(start), Some(took)) = (f.first().and_then(|t| parse_iso8601(t)), f.get(6).and_then(|t| t.parse::<u64>().ok())) else {
                            return Err(not_format());
                        };
                        let k = pick(&f, key, [9, 12, 2], number)?;
                        let k = if matches!(key, KeyField::Path) { path_of(k) } else { k };
                        // A field Envoy had no value for is "-".
                        let k = if k == "-" { "" } else { k };
                        g.push(start, k, Some(took.saturating_mul(1_000_000)), number)?;
                    }
                    LogFormat::Har => unreachable!("read whole above"),
                }
            }
            g.finish()?
        }
    };
    Ok((replay, format))
}

/// The key field of `f` that `key` names: the default (the client) or
/// `client`, `host`, `path` at the positions given (from 1), or `field:N`.
fn pick<'a>(f: &[&'a str], key: &KeyField, [client, host, path]: [usize; 3], line: u64) -> Result<&'a str, ReplayError> {
    let n = match key {
        KeyField::None => return Ok(""),
        KeyField::Default | KeyField::Client => client,
        KeyField::Host => host,
        KeyField::Path => path,
        KeyField::Field(n) => *n,
        KeyField::Header(_) => return Ok(""),
    };
    f.get(n - 1).copied().ok_or(ReplayError::Line { line, why: LineError::NoField { n, has: f.len() } })
}

/// A CSV line: its instant, key and service time; `None` for a header (a
/// first line beginning with a letter).
fn csv_line(text: &str) -> Result<Option<(u64, String, Option<u64>)>, LineError> {
    let cells = csv_cells(text);
    let instant = cells[0].trim();
    let at = match parse_instant(instant) {
        Ok(at) => at,
        Err(LineError::NotAnInstant(_)) if instant.starts_with(|c: char| c.is_alphabetic()) => return Ok(None),
        Err(why) => return Err(why),
    };
    let key = cells.get(1).map(|k| k.trim().to_string()).unwrap_or_default();
    let service = match cells.get(2).map(|s| s.trim()) {
        None | Some("") => None,
        Some(s) => Some(parse_instant(s).map_err(|_| LineError::NotAService(shown(s)))?),
    };
    if cells.len() > 3 {
        return Err(LineError::TooManyColumns(cells.len()));
    }
    Ok(Some((at, key, service)))
}

/// A CSV line's cells: separated by commas; a cell in double quotes may
/// hold commas, a doubled quote standing for one.
fn csv_cells(text: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        let cell = cells.last_mut().expect("one cell at least");
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' if quoted => quoted = false,
            '"' if cell.trim().is_empty() => {
                cell.clear();
                quoted = true;
            }
            ',' if !quoted => cells.push(String::new()),
            c => cell.push(c),
        }
    }
    cells
}

/// A HAR's entries: each its `startedDateTime` and `time` (milliseconds).
fn read_har(mut input: impl BufRead, key: &KeyField) -> Result<Replay, ReplayError> {
    #[derive(serde::Deserialize)]
    struct Har {
        log: Log,
    }
    #[derive(serde::Deserialize)]
    struct Log {
        entries: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Entry {
        started_date_time: String,
        time: f64,
        #[serde(default)]
        request: Option<HarRequest>,
    }
    #[derive(serde::Deserialize)]
    struct HarRequest {
        #[serde(default)]
        url: String,
        #[serde(default)]
        headers: Vec<Header>,
    }
    #[derive(serde::Deserialize)]
    struct Header {
        name: String,
        value: String,
    }
    let mut text = String::new();
    input.read_to_string(&mut text)?;
    let har: Har = serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| ReplayError::NotHar(e.to_string()))?;
    let mut g = Gathered::default();
    for (i, e) in har.log.entries.iter().enumerate() {
        let entry = i as u64 + 1;
        let bad = |why| ReplayError::Entry { entry, why };
        let start = parse_iso8601(&e.started_date_time).ok_or_else(|| bad(LineError::NotIso8601(shown(&e.started_date_time))))?;
        if !(e.time.is_finite() && e.time >= 0.0 && e.time < 1e12) {
            return Err(bad(LineError::NotAService(shown(&e.time.to_string()))));
        }
        let took = (e.time * 1e6).round() as u64;
        let (url, headers) = e.request.as_ref().map_or(("", &[][..]), |r| (r.url.as_str(), r.headers.as_slice()));
        let k = match key {
            KeyField::Path => path_of(url),
            KeyField::Host => host_of(url),
            KeyField::Header(name) => headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map_or("", |h| h.value.as_str()),
            _ => "",
        };
        g.push(start, k, Some(took), entry).map_err(|e| match e {
            ReplayError::Line { line, why } => ReplayError::Entry { entry: line, why },
            e => e,
        })?;
    }
    g.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, format: Option<LogFormat>, key: &KeyField) -> Result<(Replay, LogFormat), String> {
        read_log(text.as_bytes(), format, key).map_err(|e| e.to_string())
    }

    fn seconds(r: &Replay) -> Vec<f64> {
        r.at.iter().map(|t| r.origin_s as f64 + t.as_secs_f64()).collect()
    }

    fn keys(r: &Replay) -> Vec<&str> {
        r.keys.iter().map(|&k| r.names.name(k)).collect()
    }

    fn service_ms(r: &Replay) -> Vec<u64> {
        r.service.iter().map(|d| d.as_nanos() / 1_000_000).collect()
    }

    #[test]
    fn iso_8601_instants_are_seconds_since_1970() {
        assert_eq!(parse_iso8601("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso8601("2016-04-15T20:17:00.310Z"), Some(1_460_751_420_310_000_000));
        assert_eq!(parse_iso8601("2009-07-24T19:20:30.45+01:00"), Some(1_248_459_630_450_000_000));
        assert_eq!(parse_iso8601("2024-02-29T12:00:00-0500"), Some(1_709_226_000 * NANOS));
        assert_eq!(parse_iso8601("2000-03-01T00:00:00.000000001+00:00"), Some(951_868_800 * NANOS + 1));
        assert_eq!(parse_iso8601("2000-02-29T00:00:00+14:00"), Some(951_782_400 * NANOS - 14 * 3600 * NANOS));
        for bad in [
            "2016-13-15T20:17:00Z",
            "2016-04-15T20:17:00",
            "2016-04-15T25:17:00Z",
            "1969-12-31T23:59:59Z",
            "2016-04-15T20:17:00.Z",
            "yesterday",
            "",
            "2024-02-30T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2016-04-31T00:00:00Z",
            "2016-04-15T20:17:00+25:00",
            "2016-04-15T20:17:00+05:75",
            "2016-04-15T20:17:00-0590",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_format_is_told_from_the_first_line() {
        assert_eq!(detect("1700000000.512 0.012 10.0.0.1 api \"GET / HTTP/1.1\" 200\n"), LogFormat::Nginx);
        assert_eq!(detect("[2016-04-15T20:17:00.310Z] \"POST /api HTTP/2\" 204 - 154 0 226 100 \"10.0.35.28\" \"ua\" \"id\" \"h\" \"u\"\n"), LogFormat::Envoy);
        assert_eq!(detect("\n  {\"log\": {\"entries\": []}}"), LogFormat::Har);
        assert_eq!(detect("time_s,key\n1,a\n"), LogFormat::Csv);
        assert_eq!(detect("\u{feff}0.5,a,0.01\n"), LogFormat::Csv);
    }

    /// nginx writes a line as a request ends: its start is `$msec` less
    /// `$request_time`, and a long request's line comes after shorter ones
    /// that began later.
    #[test]
    fn an_nginx_log_begins_each_request_at_its_end_less_its_time() {
        let log = "1700000000.500 0.100 10.0.0.1 api.example \"GET /a?x=1 HTTP/1.1\" 200\n\
                   1700000000.510 0.410 10.0.0.2 api.example \"POST /b HTTP/1.1\" 201\n\
                   1700000001.000 0.000 10.0.0.1 www.example \"GET /a HTTP/1.1\" 200 \"key-7\"\n";
        let (r, format) = read(log, None, &KeyField::Default).unwrap();
        assert_eq!(format, LogFormat::Nginx);
        assert_eq!(seconds(&r), [1_700_000_000.1, 1_700_000_000.4, 1_700_000_001.0]);
        assert_eq!(keys(&r), ["10.0.0.2", "10.0.0.1", "10.0.0.1"]);
        assert_eq!(service_ms(&r), [410, 100, 0]);
        assert_eq!(r.reordered, Some(crate::replay::Reordered { lines: 1, first_line: 2 }));
        assert_eq!(keys(&read(log, None, &KeyField::Path).unwrap().0), ["/b", "/a", "/a"]);
        assert_eq!(keys(&read(log, None, &KeyField::Host).unwrap().0), ["api.example", "api.example", "www.example"]);
        assert_eq!(read(log, None, &KeyField::Field(7)).unwrap_err(), "line 1: no field 7 for the key (the line has 6)");
        assert_eq!(
            read("1700000000.500 0.100 a h \"GET / HTTP/1.1\" 200\n12:00:01 GET /\n", None, &KeyField::Default).unwrap_err(),
            "line 2: \"12:00:01 GET /\" is not nginx's log_format sluice: '$msec $request_time $remote_addr $host \"$request\" $status' (docs/traffic.md)"
        );
    }

    #[test]
    fn an_envoy_default_log_reads_its_start_duration_and_keys() {
        let log = "[2016-04-15T20:17:00.310Z] \"POST /api/v1/locations HTTP/2\" 204 - 154 0 226 100 \"10.0.35.28\" \"nsq2http\" \"cc21d9b0\" \"locations\" \"tcp://10.0.2.1:80\"\n\
                   [2016-04-15T20:17:00.300Z] \"GET /api/v1/x?y=2 HTTP/2\" 200 - 0 10 5 4 \"-\" \"curl\" \"ab12\" \"other\" \"tcp://10.0.2.1:80\"\n";
        let (r, format) = read(log, None, &KeyField::Default).unwrap();
        assert_eq!(format, LogFormat::Envoy);
        assert_eq!(seconds(&r), [1_460_751_420.3, 1_460_751_420.31]);
        assert_eq!(keys(&r), ["", "10.0.35.28"], "\"-\" is no key");
        assert_eq!(service_ms(&r), [5, 226]);
        assert_eq!(r.reordered.unwrap().first_line, 2);
        assert_eq!(keys(&read(log, None, &KeyField::Path).unwrap().0), ["/api/v1/x", "/api/v1/locations"]);
        assert_eq!(keys(&read(log, None, &KeyField::Host).unwrap().0), ["other", "locations"]);
        assert!(read("[2016-04-15T20:17:00.310Z] \"POST / HTTP/2\" 204 - 154 0 soon\n", None, &KeyField::Default).unwrap_err().starts_with("line 1: \"[2016-04-15T20:17:00.310Z]"));
    }

    #[test]
    fn a_har_reads_its_entries_with_their_keys() {
        let har = r#"{"log": {"version": "1.2", "entries": [
            {"startedDateTime": "2024-05-01T10:00:00.250+02:00", "time": 120.5,
             "request": {"method": "GET", "url": "https://api.example:8443/items/3?full=1", "headers": [{"name": "X-Api-Key", "value": "k1"}]}},
            {"startedDateTime": "2024-05-01T08:00:00.100Z", "time": 0,
             "request": {"method": "GET", "url": "https://cdn.example/logo.png", "headers": []}}]}}"#;
        let (r, format) = read(har, None, &KeyField::Default).unwrap();
        assert_eq!(format, LogFormat::Har);
        assert_eq!(seconds(&r), [1_714_550_400.1, 1_714_550_400.25]);
        assert_eq!(keys(&r), ["", ""]);
        assert_eq!(r.service, [SimDuration::ZERO, SimDuration::from_nanos(120_500_000)]);
        assert_eq!(keys(&read(har, None, &KeyField::Path).unwrap().0), ["/logo.png", "/items/3"]);
        assert_eq!(keys(&read(har, None, &KeyField::Host).unwrap().0), ["cdn.example", "api.example:8443"]);
        assert_eq!(keys(&read(har, None, &KeyField::Header("x-api-key".into())).unwrap().0), ["", "k1"]);
        assert_eq!(read(har, None, &KeyField::Client).unwrap_err(), "--key: a HAR names no client address: use path, host or header:NAME");
        assert!(read("{\"log\": {}}", None, &KeyField::Default).unwrap_err().starts_with("it is not a HAR file: missing field `entries`"));
        let bad = r#"{"log": {"entries": [{"startedDateTime": "2024-05-01T08:00:00Z", "time": 1}, {"startedDateTime": "May 1st", "time": 1}]}}"#;
        assert_eq!(read(bad, None, &KeyField::Default).unwrap_err(), "entry 2: startedDateTime \"May 1st\" is not an ISO 8601 instant with its zone");
        assert_eq!(read("{\"log\": {\"entries\": []}}", None, &KeyField::Default).unwrap_err(), "it holds no instant");
    }

    #[test]
    fn a_csv_may_give_each_line_its_service_time() {
        let (r, _) = read("time_s,key,service_s\n0.5,\"a,b\",0.25\n0.25,c,1\n", None, &KeyField::Default).unwrap();
        assert_eq!(seconds(&r), [0.25, 0.5]);
        assert_eq!(keys(&r), ["c", "a,b"]);
        assert_eq!(service_ms(&r), [1000, 250]);
        assert_eq!(r.reordered, Some(crate::replay::Reordered { lines: 1, first_line: 3 }));
        assert_eq!(r.reordered.unwrap().to_string(), "1 line comes before the line above (the first: line 3); sorted by instant, as a log written at each request's end needs");
        let (r, _) = read("1,a\n2,b\n3\n", None, &KeyField::Default).unwrap();
        assert!(r.service.is_empty() && r.reordered.is_none());
        assert_eq!(read("1,a,0.5\n2,b\n", None, &KeyField::Default).unwrap_err(), "line 2: line 1 gives a service time and line 2 none: give every line one, or none");
        assert_eq!(read("1,a,soon\n", None, &KeyField::Default).unwrap_err(), "line 1: \"soon\" is not a service time: expected seconds as a plain decimal");
        assert_eq!(read("1,a,0.5,x\n", None, &KeyField::Default).unwrap_err(), "line 1: 4 columns: expected at most three (time_s, key, service_s)");
        assert_eq!(read("1,a\n", None, &KeyField::Path).unwrap_err(), "--key: a CSV's key is its second column");
        assert_eq!(keys(&read("1,a\n2,b\n", None, &KeyField::None).unwrap().0), ["", ""], "--key none: no key");
        assert_eq!(KeyField::parse("field:0").unwrap_err(), "--key \"field:0\": expected client, path, host, none, header:NAME or field:N");
        assert_eq!(KeyField::parse("header:X-Api-Key"), Ok(KeyField::Header("X-Api-Key".into())));
    }
}
