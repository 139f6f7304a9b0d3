//! Share codes: a whole scenario in one short string, so that a link can
//! carry it (the page puts it in the URL fragment; no server is involved).
//!
//! A code is `1.` (the code format) followed by the scenario's compact JSON,
//! compressed with DEFLATE and written in URL-safe base64 without padding.
//!
//! Guarantees:
//! - `decode(&encode(s))` gives back `s` exactly, for every scenario the
//!   editor can hold (complete or still a draft).
//! - Decoding never trusts the code: an overlong code, bad base64, corrupt
//!   compressed data, data that would inflate beyond the largest scenario
//!   file (a "zip bomb"), malformed JSON or an unsound scenario each give an
//!   error saying which, and nothing else.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::scenario::{Scenario, MAX_SCENARIO_BYTES};

/// The code format, written before the first `.`.
pub const SHARE_FORMAT: &str = "1";

/// The longest code accepted. Compression of JSON is rarely worse than 1:1,
/// and base64 adds a third, so this admits any scenario of the largest size.
pub const MAX_CODE_CHARS: usize = MAX_SCENARIO_BYTES / 3 * 4 + 16;

/// How hard to compress: the best ratio (codes are small; time is not an issue).
const LEVEL: u8 = 9;

/// The share code of `scenario`.
pub fn encode(scenario: &Scenario) -> String {
    // Serializing plain data structures cannot fail.
    let json = serde_json::to_string(scenario).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), LEVEL);
    format!("{SHARE_FORMAT}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// The scenario a share code carries. It may be a draft (lacking outgoing
/// edges), as the editor can share one; it is otherwise fully validated.
pub fn decode(code: &str) -> Result<Scenario, String> {
    let code = code.trim();
    if code.len() > MAX_CODE_CHARS {
        return Err(format!("the share code is {} characters; at most {MAX_CODE_CHARS} are accepted", code.len()));
    }
    let Some((format, body)) = code.split_once('.') else {
        return Err("this is not a share code (it should start with \"1.\")".into());
    };
    if format != SHARE_FORMAT {
        return Err(format!("share code format \"{format}\" is not known to this version (it reads \"{SHARE_FORMAT}\")"));
    }
    let packed = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|e| format!("the share code is damaged (not base64: {e}); was the link cut short?"))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_SCENARIO_BYTES).map_err(|e| {
        if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput {
            format!("the share code unpacks to more than {MAX_SCENARIO_BYTES} bytes, the largest scenario accepted")
        } else {
            "the share code is damaged (its compressed data is corrupt); was the link cut short?".to_string()
        }
    })?;
    let text = String::from_utf8(json).map_err(|_| "the share code is damaged (not UTF-8 text)".to_string())?;
    Scenario::from_json_draft(&text).map_err(|e| format!("the shared scenario is not valid: {e}"))
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
        assert!(code.starts_with("1."));
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
        let cases: Vec<(String, &str)> = vec![
            ("hello".into(), "not a share code"),
            ("9.abc".into(), "format \"9\""),
            ("1.***".into(), "not base64"),
            (cut.to_string(), "damaged"),
            ("1.".to_string() + &"A".repeat(MAX_CODE_CHARS), "characters"),
        ];
        for (code, why) in cases {
            let e = decode(&code).unwrap_err();
            assert!(e.contains(why), "{code:.20}: {e}");
        }
    }

    #[test]
    fn refuses_a_zip_bomb() {
        let bomb = vec![b' '; MAX_SCENARIO_BYTES + 1];
        let code = format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&bomb, 9)));
        assert!(code.len() < 20_000, "the bomb is small: {}", code.len());
        assert!(decode(&code).unwrap_err().contains("more than"));
    }

    #[test]
    fn refuses_unsound_scenarios_naming_the_field() {
        let text = r#"{"version": 1, "nodes": [{"id": "q", "kind": "queue", "capasity": {"messages": 3}}]}"#;
        let code = format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9)));
        let e = decode(&code).unwrap_err();
        assert!(e.contains("capasity"), "{e}");
        let not_json = format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b"{nope", 9)));
        assert!(decode(&not_json).unwrap_err().contains("not valid JSON"));
    }
}
