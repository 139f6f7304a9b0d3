//! Share codes: a whole scenario in one short string, so that a link can
//! carry it (the page puts it in the URL fragment; no server is involved).
//!
//! A code is `2.` (the code format) followed by the scenario's compact JSON,
//! compressed with DEFLATE in a zlib wrapper (whose Adler-32 checksum of the
//! JSON catches a mistyped or lost character) and written in URL-safe
//! base64 without padding. Codes of format `1` (raw DEFLATE, no checksum),
//! made before, still open.
//!
//! Guarantees:
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

/// The code format, written before the first `.`.
pub const SHARE_FORMAT: &str = "2";

/// The first format: raw DEFLATE without a checksum. Still read.
const FIRST_FORMAT: &str = "1";

/// The longest code accepted. Compression of JSON is rarely worse than 1:1,
/// and base64 adds a third, so this admits any scenario of the largest size.
pub const MAX_CODE_CHARS: usize = MAX_SCENARIO_BYTES / 3 * 4 + 16;

/// How hard to compress: the best ratio (codes are small; time is not an issue).
const LEVEL: u8 = 9;

/// The share code of `scenario`.
pub fn encode(scenario: &Scenario) -> String {
    // Compact, its fields in the order of their names (the text that a
    // JSON value prints): decoding reads any order.
    let json = crate::plumbing::json_read::to_value(scenario).to_string();
    let packed = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), LEVEL);
    format!("{SHARE_FORMAT}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// Why a share code does not open. Each says so in words a link's reader
/// can act on.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShareError {
    #[error("the share code is {chars} characters; at most {MAX_CODE_CHARS} are accepted")]
    TooLong { chars: usize },
    #[error("this is not a share code (it should start with \"{SHARE_FORMAT}.\")")]
    NotACode,
    #[error("share code format {} is not known to this version (it reads \"{SHARE_FORMAT}\" and \"{FIRST_FORMAT}\")", crate::plumbing::printable::quoted(.0))]
    UnknownFormat(String),
    #[error("the share code is damaged (not base64: {0}); was the link cut short?")]
    NotBase64(String),
    #[error("the share code has {0} byte(s) after the end of its data; was something added to the link?")]
    BytesAfterTheEnd(usize),
    #[error("the share code unpacks to more than {MAX_SCENARIO_BYTES} bytes, the largest scenario accepted")]
    TooLarge,
    #[error("the share code is damaged (its checksum does not match: was a character changed?)")]
    Checksum,
    #[error("the share code is damaged (its compressed data is corrupt); was the link cut short?")]
    Corrupt,
    #[error("the share code is damaged (not UTF-8 text)")]
    NotText,
    #[error("the shared scenario is not valid: {0}")]
    Invalid(ScenarioError),
}

/// The scenario a share code carries. It may be a draft (lacking outgoing
/// edges), as the editor can share one; it is otherwise fully validated.
pub fn decode(code: &str) -> Result<Scenario, ShareError> {
    let code = code.trim();
    if code.len() > MAX_CODE_CHARS {
        return Err(ShareError::TooLong { chars: code.len() });
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
    let json = inflate(&packed, checked)?;
    let text = String::from_utf8(json).map_err(|_| ShareError::NotText)?;
    Scenario::from_json_draft(&text).map_err(ShareError::Invalid)
}

/// Inflates the compressed data of a code (with its zlib wrapper and
/// checksum when `checked`), refusing anything after its end.
fn inflate(packed: &[u8], checked: bool) -> Result<Vec<u8>, ShareError> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;
    let mut flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    if checked {
        flags |= inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER;
    }
    let mut out = vec![0; packed.len().saturating_mul(4).clamp(1024, MAX_SCENARIO_BYTES)];
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
            TINFLStatus::HasMoreOutput if out.len() < MAX_SCENARIO_BYTES => {
                let grown = out.len().saturating_mul(2).min(MAX_SCENARIO_BYTES);
                out.resize(grown, 0);
            }
            TINFLStatus::HasMoreOutput => return Err(ShareError::TooLarge),
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
        assert_eq!(decode(&long), Err(ShareError::TooLong { chars: long.len() }));
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
        assert_eq!(decode(&code), Err(ShareError::TooLarge));
        let code = format!("2.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec_zlib(&bomb, 9)));
        assert_eq!(decode(&code), Err(ShareError::TooLarge));
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
