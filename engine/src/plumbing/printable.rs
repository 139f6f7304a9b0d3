//! Text from a scenario, made safe to show: in a terminal, a name or a
//! rejected id could carry escape sequences that recolour, move or clear
//! the screen, or bidirectional overrides that make text read backwards.
//!
//! Guarantees: `printable` leaves ordinary text as it is, writes every
//! control character and bidirectional formatting character as a visible
//! escape (`\u{1b}`), and cuts text longer than the given number of
//! characters, ending it with `…`.

/// Whether `c` would act on a terminal or on the direction of text rather
/// than show as itself.
fn acts(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with what would act on a terminal escaped, and at most
/// `max_chars` characters of it kept.
pub fn printable(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 2));
    for (i, c) in text.chars().enumerate() {
        if i == max_chars {
            out.push('…');
            break;
        }
        if acts(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Text of several lines for a terminal (a table, an error message):
/// every character that would act escaped as `printable` does, except the
/// line breaks and tabs that lay it out; nothing cut.
pub fn printable_lines(text: &str) -> String {
    if !text.chars().any(|c| acts(c) && c != '\n' && c != '\t') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if acts(c) && c != '\n' && c != '\t' {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// A name or id from a scenario, quoted for an error message: escaped,
/// and no more than a short prefix of an over-long one.
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", printable(text, 40))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_kept() {
        assert_eq!(printable("Video → client, 5 ms", 100), "Video → client, 5 ms");
    }

    #[test]
    fn escape_sequences_and_overrides_are_shown_not_obeyed() {
        assert_eq!(printable("a\u{1b}[2Jb\n\u{202e}c\u{7f}", 100), "a\\u{1b}[2Jb\\u{a}\\u{202e}c\\u{7f}");
    }

    #[test]
    fn long_text_is_cut() {
        assert_eq!(printable(&"x".repeat(1000), 5), "xxxxx…");
        assert_eq!(quoted(&"é".repeat(100)).chars().count(), 40 + 3);
    }
}
