//! Traffic replayed from a file: one message a line, its instant in
//! seconds, optionally a comma and its key (`12.345,10.0.0.7`), optionally
//! another comma and its service time in seconds, a header line allowed
//! first; or an access log (`formats`: nginx, Envoy, HAR). What `sluice run
//! --arrivals FILE` gives a producer in place of its own arrival process.
//!
//! Guarantees:
//! - Instants are read as decimal text into whole nanoseconds, never
//!   through a float: `0.001` is exactly one millisecond and
//!   `1700000000.123456` exactly that microsecond, so no decision moves
//!   across a millisecond boundary on the way in. More than nine decimals
//!   (finer than a nanosecond), an exponent, a sign or anything else that
//!   is not a plain decimal is refused.
//! - Every line is read before the run: an unreadable line or a negative
//!   instant is refused with its line number, and nothing runs. Instants
//!   that go back are sorted, and the replay says how many lines did and
//!   the first (`reordered`); equal instants are kept in file order.
//! - The file is read once, as it streams: a line's text is not kept, only
//!   its instant (8 bytes) and its key's number (4 bytes); each distinct
//!   key's text is kept once.
//! - The run starts at `origin`, the first instant's whole second: an
//!   instant `t` of the file happens at `t - origin` in the run, and is
//!   written back as `origin + (t - origin)`, digit for digit.

use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;

use crate::message::NO_KEY;
use crate::time::{SimDuration, SimTime};

pub mod formats;

pub use formats::{read_log, KeyField, LogFormat};

const NANOS: u64 = 1_000_000_000;

/// The instants and keys of a replayed file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    /// Whole seconds subtracted from every instant (the first's).
    pub origin_s: u64,
    /// Each message's instant in the run, in file order.
    pub at: Vec<SimTime>,
    /// Each message's key (`Keys::index`), `NO_KEY` where the line had none.
    pub keys: Vec<u32>,
    /// The keys' texts.
    pub names: Keys,
    /// Each message's service time, as its log gave it (how long the
    /// request took), in run order; empty when the file gave none.
    pub service: Vec<SimDuration>,
    /// Lines whose instant came before the line above them, sorted.
    pub reordered: Option<Reordered>,
}

/// How many lines of a file came before the line above them (a log written
/// as each request ends), and the first of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reordered {
    pub lines: u64,
    pub first_line: u64,
}

impl fmt::Display for Reordered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (n, s) = if self.lines == 1 { ("1 line".to_string(), "s") } else { (format!("{} lines", self.lines), "") };
        write!(f, "{n} come{s} before the line above (the first: line {}); sorted by instant, as a log written at each request's end needs", self.first_line)
    }
}

/// Key texts, each numbered once from 1 (0 is `NO_KEY`, the empty key).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keys {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Keys {
    /// The number of `name`, numbered anew if it is new; the empty text
    /// is `NO_KEY`. `None` once 2^32 - 1 keys are numbered.
    pub fn index(&mut self, name: &str) -> Option<u32> {
        if name.is_empty() {
            return Some(NO_KEY);
        }
        if let Some(&k) = self.index.get(name) {
            return Some(k);
        }
        let k = u32::try_from(self.names.len() + 1).ok().filter(|&k| k < u32::MAX)?;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), k);
        Some(k)
    }

    /// The text of key `k` (empty for `NO_KEY` or an unknown number).
    pub fn name(&self, k: u32) -> &str {
        match k {
            NO_KEY => "",
            k => self.names.get(k as usize - 1).map_or("", String::as_str),
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Why a replay file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot read it: {0}")]
    Io(#[from] std::io::Error),
    #[error("line {line}: {why}")]
    Line { line: u64, why: LineError },
    #[error("entry {entry}: {why}")]
    Entry { entry: u64, why: LineError },
    #[error("it holds no instant")]
    Empty,
    #[error("it is not a HAR file: {0}")]
    NotHar(String),
    #[error("{0}")]
    Key(String),
}

/// What is wrong with one line.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("{0} is not an instant: expected seconds as a plain decimal (12, 0.25, 1700000000.123456), then optionally a comma and a key")]
    NotAnInstant(Shown),
    #[error("{0} has more than nine decimals: instants are kept to the nanosecond")]
    TooFine(Shown),
    #[error("{0} is too large an instant")]
    TooLarge(Shown),
    #[error("the key is longer than {MAX_KEY_BYTES} bytes")]
    KeyTooLong,
    #[error("more distinct keys than a run can number")]
    TooManyKeys,
    #[error("{text} is not {expected}")]
    NotFormat { text: Shown, expected: &'static str },
    #[error("no field {n} for the key (the line has {has})")]
    NoField { n: usize, has: usize },
    #[error("line {with} gives a service time and line {without} none: give every line one, or none")]
    ServiceMixed { with: u64, without: u64 },
    #[error("{0} is not a service time: expected seconds as a plain decimal")]
    NotAService(Shown),
    #[error("{0} columns: expected at most three (time_s, key, service_s)")]
    TooManyColumns(usize),
    #[error("startedDateTime {0} is not an ISO 8601 instant with its zone")]
    NotIso8601(Shown),
}

/// A line's text as an error shows it: escaped and cut short.
#[derive(Debug, PartialEq, Eq)]
pub struct Shown(String);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0)
    }
}

fn shown(text: &str) -> Shown {
    Shown(crate::plumbing::printable::printable(text, 60))
}

pub use crate::message::MAX_KEY_BYTES;

/// `text`, seconds as a plain decimal, in whole nanoseconds.
pub fn parse_instant(text: &str) -> Result<u64, LineError> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return Err(LineError::NotAnInstant(shown(text)));
    }
    if fraction.len() > 9 {
        return Err(LineError::TooFine(shown(text)));
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| LineError::TooLarge(shown(text)))? };
    let mut nanos: u64 = 0;
    for (k, b) in fraction.bytes().enumerate() {
        nanos += u64::from(b - b'0') * 10u64.pow(8 - k as u32);
    }
    whole.checked_mul(NANOS).and_then(|n| n.checked_add(nanos)).ok_or_else(|| LineError::TooLarge(shown(text)))
}

/// Whole nanoseconds written as seconds, with no more decimals than they
/// need (`12`, `0.25`, `1700000000.123456`): what `parse_instant` reads
/// back to the same value.
pub fn write_instant(nanos: u64) -> String {
    let (whole, fraction) = (nanos / NANOS, nanos % NANOS);
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = format!("{fraction:09}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

impl Replay {
    /// Reads a replay file (a CSV) from `input`.
    pub fn read(input: impl BufRead) -> Result<Replay, ReplayError> {
        read_log(input, Some(LogFormat::Csv), &KeyField::Default).map(|(replay, _)| replay)
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// An instant of the run as the file would write it.
    pub fn instant(&self, t: SimTime) -> String {
        write_instant(self.origin_s * NANOS + t.as_nanos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Replay, String> {
        Replay::read(text.as_bytes()).map_err(|e| e.to_string())
    }

    #[test]
    fn instants_are_exact_to_the_nanosecond() {
        assert_eq!(parse_instant("0.001"), Ok(1_000_000));
        assert_eq!(parse_instant("12"), Ok(12 * NANOS));
        assert_eq!(parse_instant(".5"), Ok(500_000_000));
        assert_eq!(parse_instant("3."), Ok(3 * NANOS));
        assert_eq!(parse_instant("1700000000.123456"), Ok(1_700_000_000_123_456_000));
        assert_eq!(parse_instant("0.000000001"), Ok(1));
        // Through a float, this instant would be 1700000000.1234560013.
        assert_eq!(write_instant(parse_instant("1700000000.123456").unwrap()), "1700000000.123456");
        for text in ["0", "0.25", "7.000001", "86400.999", "18446744073.709551615"] {
            assert_eq!(write_instant(parse_instant(text).unwrap()), text, "{text}");
        }
        for bad in ["", ".", "-1", "+1", "1e3", "1.2.3", " 1", "0x10", "1,5", "NaN", "inf"] {
            assert!(matches!(parse_instant(bad), Err(LineError::NotAnInstant(_))), "{bad:?}");
        }
        assert!(matches!(parse_instant("0.1234567891"), Err(LineError::TooFine(_))));
        assert!(matches!(parse_instant("18446744074"), Err(LineError::TooLarge(_))));
        assert!(matches!(parse_instant("99999999999999999999999"), Err(LineError::TooLarge(_))));
    }

    #[test]
    fn a_file_reads_with_its_keys_and_its_header() {
        let r = read("created_s,key\n1700000000.5,10.0.0.1\n1700000000.5,10.0.0.2\n1700000001.25,10.0.0.1\n1700000002\n").unwrap();
        assert_eq!(r.origin_s, 1_700_000_000);
        assert_eq!(r.at, vec![SimTime::from_nanos(500_000_000), SimTime::from_nanos(500_000_000), SimTime::from_nanos(1_250_000_000), SimTime::from_nanos(2 * NANOS)]);
        assert_eq!(r.keys, vec![1, 2, 1, NO_KEY]);
        assert_eq!((r.names.name(1), r.names.name(2), r.names.name(NO_KEY)), ("10.0.0.1", "10.0.0.2", ""));
        assert_eq!(r.instant(r.at[2]), "1700000001.25");
        // A quoted key.
        assert_eq!(read("1,\"a,\"\"b\"\"\"\n").unwrap().names.name(1), "a,\"b\"");
        // Windows line ends and a blank last line.
        assert_eq!(read("0.1,a\r\n0.2,b\r\n\n").unwrap().len(), 2);
    }

    #[test]
    fn only_a_first_line_of_words_is_a_header() {
        assert_eq!(read("\u{feff}created_s,key\n1,a\n").unwrap().len(), 1);
        assert_eq!(read("\u{feff}1,a\n2,b\n").unwrap().len(), 2, "a byte order mark before the first instant");
        assert!(read("-1\n2\n").unwrap_err().starts_with("line 1: \"-1\" is not an instant"));
        assert!(read("1e3\n").unwrap_err().starts_with("line 1: \"1e3\" is not an instant"));
    }

    #[test]
    fn a_bad_file_is_refused_naming_the_line() {
        assert_eq!(read("1\n2\nabc\n").unwrap_err(), "line 3: \"abc\" is not an instant: expected seconds as a plain decimal (12, 0.25, 1700000000.123456), then optionally a comma and a key");
        assert_eq!(read("time\n-1\n").unwrap_err().split(':').next(), Some("line 2"));
        assert_eq!(read("created_s,key\n").unwrap_err(), "it holds no instant");
        assert_eq!(read("").unwrap_err(), "it holds no instant");
        let long = format!("1,{}\n", "k".repeat(MAX_KEY_BYTES + 1));
        assert_eq!(read(&long).unwrap_err(), format!("line 1: the key is longer than {MAX_KEY_BYTES} bytes"));
        // A control character in a bad line is shown escaped.
        assert!(read("1\n\u{7}\n").unwrap_err().starts_with("line 2: \"\\u{7}\""), "{}", read("1\n\u{7}\n").unwrap_err());
    }
}
