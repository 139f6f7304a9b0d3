//! Share codes: a whole scenario in one short string, so that a link can
//! carry it (the page puts it in the URL fragment; no server is involved).
//!
//! A code is `2.` (the code format) followed by the scenario's compact JSON,
//! compressed with DEFLATE in a zlib wrapper (whose Adler-32 checksum of the
//! JSON catches a mistyped or lost character) and written in URL-safe
//! base64 without padding. Codes of format `1` (raw DEFLATE, no checksum),
//! made before, still open.
//!
//! A link's fragment (`Link`) opens a scenario, `#s=CODE`, a lesson of the
//! catalogue, `#lesson=N` or `#lesson=N&step=K` (the lesson's number and
//! the step's, counted from 1 as the page shows them), or a lesson written
//! by its reader, `#l=CODE` (the lesson file with its scenario, packed as
//! a scenario is: `lesson::Lesson::to_code`).
//!
//! Guarantees:
//! - `Link::read(&link.fragment())` gives back `link`; a fragment that is
//!   not Sluice's (empty, or another page's anchor) reads as none, and one
//!   of Sluice's that is mistyped is refused saying how it should read.
//! - `decode(&encode(s))` gives back `s` exactly, for every scenario the
//!   editor can hold (complete or still a draft).
//! - Decoding never trusts the code: an overlong code, bad base64, corrupt
//!   compressed data, a checksum that does not match, bytes after the end of
//!   the compressed data, data that would inflate beyond the largest
//!   scenario file (a "zip bomb"), malformed JSON or an unsound scenario each
//!   give an error saying which, and nothing else.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::scenario::{Scenario, ScenarioError, MAX_SCENARIO_BYTES};
use crate::time::SimTime;

/// The code format, written before the first `.`.
pub const SHARE_FORMAT: &str = "2";

/// The first format: raw DEFLATE without a checksum. Still read.
const FIRST_FORMAT: &str = "1";

/// The longest code accepted. Compression of JSON is rarely worse than 1:1,
/// and base64 adds a third, so this admits any scenario of the largest size.
pub const MAX_CODE_CHARS: usize = most_chars(MAX_SCENARIO_BYTES);

/// The longest code of a text of at most `bytes` bytes.
const fn most_chars(bytes: usize) -> usize {
    bytes / 3 * 4 + 16
}

/// The longest link a QR code holds: version 40 at the lowest error
/// correction, in byte mode (ISO/IEC 18004, table 7), 2,953 characters of
/// a link's ASCII.
pub const QR_CODE_CHARS: usize = 2953;

/// How hard to compress: the best ratio (codes are small; time is not an issue).
const LEVEL: u8 = 9;

/// The share code of `scenario`.
pub fn encode(scenario: &Scenario) -> String {
    // Compact, its fields in the order of their names (the text that a
    // JSON value prints): decoding reads any order.
    pack(&crate::plumbing::json_read::to_value(scenario).to_string())
}

/// `text` packed as a share code: compressed, checksummed, in URL-safe
/// base64 after the code format.
pub fn pack(text: &str) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec_zlib(text.as_bytes(), LEVEL);
    format!("{SHARE_FORMAT}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// The text a share code packs, if it unpacks to at most `limit` bytes of
/// UTF-8; what it says is for its reader to check.
pub fn unpack(code: &str, limit: usize) -> Result<String, ShareError> {
    let code = code.trim();
    let most = most_chars(limit);
    if code.len() > most {
        return Err(ShareError::TooLong { chars: code.len(), most });
    }
    let Some((format, body)) = code.split_once('.') else {
        return Err(ShareError::NotACode);
    };
    let checked = match format {
        SHARE_FORMAT => true,
        FIRST_FORMAT => false,
        _ => return Err(ShareError::UnknownFormat(format.to_string())),
    };
    let packed = URL_SAFE_NO_PAD.decode(body).map_err(|e| ShareError::NotBase64(e.to_string()))?;
    let json = inflate(&packed, checked, limit)?;
    String::from_utf8(json).map_err(|_| ShareError::NotText)
}

/// Why a share code does not open. Each says so in words a link's reader
/// can act on.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShareError {
    #[error("the share code is {chars} characters; at most {most} are accepted")]
    TooLong { chars: usize, most: usize },
    #[error("this is not a share code (it should start with \"{SHARE_FORMAT}.\")")]
    NotACode,
    #[error("share code format {} is not known to this version (it reads \"{SHARE_FORMAT}\" and \"{FIRST_FORMAT}\")", crate::plumbing::printable::quoted(.0))]
    UnknownFormat(String),
    #[error("the share code is damaged (not base64: {0}); was the link cut short?")]
    NotBase64(String),
    #[error("the share code has {0} byte(s) after the end of its data; was something added to the link?")]
    BytesAfterTheEnd(usize),
    #[error("the share code unpacks to more than {0} bytes, the largest file accepted")]
    TooLarge(usize),
    #[error("the share code is damaged (its checksum does not match: was a character changed?)")]
    Checksum,
    #[error("the share code is damaged (its compressed data is corrupt); was the link cut short?")]
    Corrupt,
    #[error("the share code is damaged (not UTF-8 text)")]
    NotText,
    #[error("the shared scenario is not valid: {0}")]
    Invalid(ScenarioError),
    /// A shared lesson does not read or hold together (the lesson's
    /// words, the path of the field at fault first).
    #[error("the shared lesson does not hold together: {0}")]
    Lesson(String),
    #[error("the instant in the link \"{}\" does not read: it should be &t=SECONDS, a number from 0 to 1e9", crate::plumbing::printable::printable(.0, 60))]
    InstantLink(String),
    #[error("the lesson link \"{}\" does not read: it should be #lesson=N or #lesson=N&step=K, with N and K whole numbers from 1", crate::plumbing::printable::printable(.0, 60))]
    LessonLink(String),
}

/// The fragment of a link to a scenario.
const SCENARIO_PREFIX: &str = "s=";
/// The fragment of a link to a lesson.
const LESSON_PREFIX: &str = "lesson=";
/// The fragment of a link that carries a lesson written by its reader.
const WRITTEN_LESSON_PREFIX: &str = "l=";

/// What a link to the page opens, as its fragment (after `#`) says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// A scenario, by its share code (not yet decoded), opened paused at
    /// an instant of its run when `at` says (`&t=SECONDS`, to the
    /// millisecond).
    Scenario { code: String, at: Option<SimTime> },
    /// A lesson by its number, at its start or at a step (counted from 1).
    Lesson { number: u32, step: Option<u32> },
    /// A lesson written by its reader, by its code (not yet read).
    WrittenLesson(String),
}

impl Link {
    /// The link to `scenario`.
    pub fn scenario(scenario: &Scenario) -> Link {
        Link::Scenario { code: encode(scenario), at: None }
    }

    /// The link to `scenario` opened paused at `at` of its run (to the
    /// millisecond).
    pub fn scenario_at(scenario: &Scenario, at: SimTime) -> Link {
        Link::Scenario { code: encode(scenario), at: Some(SimTime::from_nanos(at.as_nanos() / 1_000_000 * 1_000_000)) }
    }

    /// The fragment, `#` included, to put after the page's address.
    pub fn fragment(&self) -> String {
        match self {
            Link::Scenario { code, at: None } => format!("#{SCENARIO_PREFIX}{code}"),
            Link::Scenario { code, at: Some(at) } => {
                let ms = at.as_nanos() / 1_000_000;
                let seconds = format!("{}.{:03}", ms / 1000, ms % 1000);
                format!("#{SCENARIO_PREFIX}{code}&t={}", seconds.trim_end_matches('0').trim_end_matches('.'))
            }
            Link::WrittenLesson(code) => format!("#{WRITTEN_LESSON_PREFIX}{code}"),
            Link::Lesson { number, step: None } => format!("#{LESSON_PREFIX}{number}"),
            Link::Lesson { number, step: Some(k) } => format!("#{LESSON_PREFIX}{number}&step={k}"),
        }
    }

    /// What `fragment` (with its `#` or without) opens: none when it is not
    /// a link of Sluice's. The fragment comes as the address bar holds it;
    /// a share code escaped by a mail program is the caller's to unescape.
    pub fn read(fragment: &str) -> Option<Result<Link, ShareError>> {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        if let Some(rest) = fragment.strip_prefix(SCENARIO_PREFIX) {
            let Some((code, instant)) = rest.split_once('&') else { return Some(Ok(Link::Scenario { code: rest.to_string(), at: None })) };
            let at = instant.strip_prefix("t=").and_then(seconds_written);
            return Some(match at {
                Some(at) => Ok(Link::Scenario { code: code.to_string(), at: Some(at) }),
                None => Err(ShareError::InstantLink(format!("&{instant}"))),
            });
        }
        if let Some(code) = fragment.strip_prefix(WRITTEN_LESSON_PREFIX) {
            return Some(Ok(Link::WrittenLesson(code.to_string())));
        }
        let rest = fragment.strip_prefix(LESSON_PREFIX)?;
        let refused = || ShareError::LessonLink(format!("#{fragment}"));
        // A whole number from 1, written plainly (no sign, no spaces).
        let whole = |t: &str| {
            t.bytes().all(|b| b.is_ascii_digit()).then(|| t.parse::<u32>().ok()).flatten().filter(|&n| n >= 1)
        };
        let (number, step) = match rest.split_once('&') {
            None => (rest, None),
            Some((number, step)) => (number, Some(step.strip_prefix("step=").unwrap_or(""))),
        };
        let number = whole(number).ok_or_else(refused);
        Some(number.and_then(|number| match step {
            None => Ok(Link::Lesson { number, step: None }),
            Some(k) => whole(k).map(|k| Link::Lesson { number, step: Some(k) }).ok_or_else(refused),
        }))
    }
}

/// Seconds written plainly (digits, one point at most, from 0 to 10⁹), to
/// the nanosecond: read exactly, not through a float.
fn seconds_written(text: &str) -> Option<SimTime> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || whole.len() > 10 || !digits(whole) || !digits(fraction) {
        return None;
    }
    let whole: u64 = whole.parse().ok().filter(|&s| s <= 1_000_000_000)?;
    let nanos: u64 = format!("{:0<9}", &fraction[..fraction.len().min(9)]).parse().ok()?;
    Some(SimTime::from_nanos(whole * 1_000_000_000 + nanos)).filter(|t| t.as_nanos() <= 1_000_000_000 * 1_000_000_000)
}

/// The scenario a share code carries. It may be a draft (lacking outgoing
/// edges), as the editor can share one; it is otherwise fully validated.
pub fn decode(code: &str) -> Result<Scenario, ShareError> {
    let text = unpack(code, MAX_SCENARIO_BYTES)?;
    Scenario::from_json_draft(&text).map_err(ShareError::Invalid)
}

/// Inflates the compressed data of a code (with its zlib wrapper and
/// checksum when `checked`), refusing anything after its end.
fn inflate(packed: &[u8], checked: bool, limit: usize) -> Result<Vec<u8>, ShareError> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;
    let mut flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    if checked {
        flags |= inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER;
    }
    let mut out = vec![0; packed.len().saturating_mul(4).clamp(1024, limit)];
    let mut state = Box::<DecompressorOxide>::default();
    let (mut input, mut written) = (packed, 0);
    loop {
        let (status, read, wrote) = decompress(&mut state, input, &mut out, written, flags);
        written += wrote;
        input = input.get(read..).unwrap_or_default();
        match status {
            TINFLStatus::Done if input.is_empty() => {
                out.truncate(written);
                return Ok(out);
            }
            TINFLStatus::Done => return Err(ShareError::BytesAfterTheEnd(input.len())),
            TINFLStatus::HasMoreOutput if out.len() < limit => {
                let grown = out.len().saturating_mul(2).min(limit);
                out.resize(grown, 0);
            }
            TINFLStatus::HasMoreOutput => return Err(ShareError::TooLarge(limit)),
            TINFLStatus::Adler32Mismatch => return Err(ShareError::Checksum),
            _ => return Err(ShareError::Corrupt),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_block() -> Scenario {
        Scenario::from_json(include_str!("../../scenarios/every-block.json")).unwrap()
    }

    #[test]
    fn round_trips_every_block_and_is_short() {
        let s = every_block();
        let code = encode(&s);
        assert!(code.starts_with("2."));
        assert!(code.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)), "URL-safe: {code}");
        assert_eq!(decode(&code).unwrap(), s);
        let json_len = serde_json::to_string(&s).unwrap().len();
        assert!(code.len() < json_len, "compressed: {} chars for {json_len} bytes of JSON", code.len());
    }

    #[test]
    fn round_trips_a_draft() {
        // Every block with one edge taken out: a draft the editor could hold.
        let full = every_block();
        let s = (0..full.edges.len())
            .map(|k| {
                let mut s = full.clone();
                s.edges.remove(k);
                s
            })
            .find(|s| s.validate_draft().is_ok_and(|missing| !missing.is_empty()))
            .expect("some edge can be taken out leaving a sound draft");
        assert_eq!(decode(&encode(&s)).unwrap(), s);
    }

    #[test]
    fn refuses_damaged_codes_with_a_reason() {
        let code = encode(&every_block());
        let cut = &code[..code.len() / 2];
        let long = "1.".to_string() + &"A".repeat(MAX_CODE_CHARS);
        assert_eq!(decode("hello"), Err(ShareError::NotACode));
        assert_eq!(decode("9.abc"), Err(ShareError::UnknownFormat("9".into())));
        assert_eq!(decode("9.abc").unwrap_err().to_string(), "share code format \"9\" is not known to this version (it reads \"2\" and \"1\")");
        assert!(matches!(decode("1.***"), Err(ShareError::NotBase64(_))));
        assert!(matches!(decode(cut), Err(ShareError::Corrupt | ShareError::Checksum)), "{:?}", decode(cut));
        assert_eq!(decode(&long), Err(ShareError::TooLong { chars: long.len(), most: MAX_CODE_CHARS }));
    }

    /// A code as the first format wrote it: raw DEFLATE, no checksum.
    fn first_format(text: &[u8]) -> String {
        format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(text, 9)))
    }

    #[test]
    fn codes_of_the_first_format_still_open() {
        let s = every_block();
        let code = first_format(serde_json::to_string(&s).unwrap().as_bytes());
        assert_eq!(decode(&code).unwrap(), s);
    }

    #[test]
    fn refuses_bytes_after_the_data() {
        let s = every_block();
        let json = serde_json::to_string(&s).unwrap();
        for (format, mut packed) in [
            ("2", miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 9)),
            ("1", miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9)),
        ] {
            packed.extend_from_slice(b"junk");
            let e = decode(&format!("{format}.{}", URL_SAFE_NO_PAD.encode(&packed))).unwrap_err();
            assert_eq!(e, ShareError::BytesAfterTheEnd(4), "format {format}");
            assert!(e.to_string().starts_with("the share code has 4 byte(s) after the end of its data"));
        }
    }

    /// Every one-character change of a code (to any other base64 letter) is
    /// refused, or still gives the same scenario: a mistyped link never
    /// opens a different one.
    #[test]
    fn a_mistyped_character_never_opens_another_scenario() {
        let s = every_block();
        let code = encode(&s);
        let letters = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut refused = 0;
        for i in 2..code.len() {
            for &c in letters.iter().step_by(7) {
                if code.as_bytes()[i] == c {
                    continue;
                }
                let mut typo = code.clone().into_bytes();
                typo[i] = c;
                match decode(std::str::from_utf8(&typo).unwrap()) {
                    Ok(other) => assert_eq!(other, s, "a typo at {i} opened another scenario"),
                    Err(_) => refused += 1,
                }
            }
        }
        assert!(refused > 0);
    }

    #[test]
    fn refuses_a_zip_bomb() {
        let bomb = vec![b' '; MAX_SCENARIO_BYTES + 1];
        let code = first_format(&bomb);
        assert!(code.len() < 20_000, "the bomb is small: {}", code.len());
        assert_eq!(decode(&code), Err(ShareError::TooLarge(MAX_SCENARIO_BYTES)));
        let code = format!("2.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec_zlib(&bomb, 9)));
        assert_eq!(decode(&code), Err(ShareError::TooLarge(MAX_SCENARIO_BYTES)));
    }

    #[test]
    fn links_read_back_what_they_wrote() {
        let links = [
            Link::scenario(&every_block()),
            Link::scenario_at(&every_block(), SimTime::from_secs_f64(12.5)),
            Link::scenario_at(&every_block(), SimTime::ZERO),
            Link::scenario_at(&every_block(), SimTime::from_nanos(999_999_999_999_999_999)),
            Link::Lesson { number: 3, step: None },
            Link::Lesson { number: 16, step: Some(2) },
            Link::Lesson { number: u32::MAX, step: Some(u32::MAX) },
        ];
        for link in links {
            assert_eq!(Link::read(&link.fragment()), Some(Ok(link.clone())));
            assert_eq!(Link::read(link.fragment().trim_start_matches('#')), Some(Ok(link)));
        }
        assert_eq!(Link::Lesson { number: 3, step: Some(2) }.fragment(), "#lesson=3&step=2");
        // Another page's anchor, or nothing, is not a link of Sluice's.
        for other in ["", "#", "#top", "#lessons", "#S=2.abc"] {
            assert_eq!(Link::read(other), None, "{other}");
        }
    }

    #[test]
    fn a_link_to_an_instant_says_it_in_seconds_to_the_millisecond() {
        let at = |s: f64| Link::scenario_at(&every_block(), SimTime::from_secs_f64(s)).fragment();
        assert!(at(12.5).ends_with("&t=12.5"), "{}", at(12.5));
        assert!(at(0.0).ends_with("&t=0"));
        assert!(at(7.0).ends_with("&t=7"));
        assert!(at(5.43219).ends_with("&t=5.432"), "cut to the millisecond: {}", at(5.43219));
        let Some(Ok(Link::Scenario { at: Some(read), .. })) = Link::read(&at(41.2)) else { panic!() };
        assert_eq!(read, SimTime::from_secs_f64(41.2));
        for bad in ["&t=", "&t=-1", "&t=1e3", "&t=1.2.3", "&t=nan", "&t=inf", "&t= 4", "&time=4", "&t=2000000000", "&"] {
            let e = Link::read(&format!("#s=2.abc{bad}")).unwrap().unwrap_err();
            assert_eq!(e, ShareError::InstantLink(bad.to_string()), "{bad}");
            assert!(e.to_string().contains("it should be &t=SECONDS"), "{e}");
        }
    }

    #[test]
    fn a_mistyped_lesson_link_is_refused_saying_how_it_reads() {
        for bad in ["#lesson=", "#lesson=0", "#lesson=-1", "#lesson=+3", "#lesson=three", "#lesson=3&step=0", "#lesson=3&step=",
                    "#lesson=3&stop=2", "#lesson=3&step=2&x=1", "#lesson= 3", "#lesson=99999999999", "#lesson=3&"] {
            let e = Link::read(bad).unwrap().unwrap_err();
            assert_eq!(e, ShareError::LessonLink(bad.to_string()), "{bad}");
            assert!(e.to_string().contains("it should be #lesson=N or #lesson=N&step=K"), "{e}");
        }
    }

    #[test]
    fn refuses_unsound_scenarios_naming_the_field() {
        let text = r#"{"version": 1, "nodes": [{"id": "q", "kind": "queue", "capasity": {"messages": 3}}]}"#;
        let code = first_format(text.as_bytes());
        let Err(ShareError::Invalid(e)) = decode(&code) else { panic!("{:?}", decode(&code)) };
        assert!(e.errors.iter().any(|e| e.path.contains("capasity")), "{e}");
        let not_json = first_format(b"{nope");
        assert!(matches!(decode(&not_json), Err(ShareError::Invalid(_))));
        assert!(decode(&not_json).unwrap_err().to_string().starts_with("the shared scenario is not valid: not valid JSON"));
    }
}
