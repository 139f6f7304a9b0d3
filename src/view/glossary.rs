//! The glossary: `docs/glossary.md`, built into the page, read as entries
//! (each `##` heading and the paragraph under it). One text serves the
//! documentation and the page.
//!
//! Guarantees: every entry has a word and a definition; `find` looks a word
//! up whatever its case, and an unknown word finds nothing (the page then
//! shows the word plainly).

/// The glossary's text.
const TEXT: &str = include_str!("../../docs/glossary.md");

/// One entry: the word as written, and its definition on one line.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub word: &'static str,
    pub definition: String,
}

impl Entry {
    /// An id for the entry's place in the glossary: `glossary-softlimit`.
    pub fn anchor(&self) -> String {
        anchor(self.word)
    }
}

/// The id of `word`'s entry.
pub fn anchor(word: &str) -> String {
    let slug: String = word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    format!("glossary-{slug}")
}

/// Every entry, in the glossary's order: read once, as every underlined
/// word looks its entry up on every render.
pub fn entries() -> &'static [Entry] {
    static ENTRIES: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    ENTRIES.get_or_init(read)
}

fn read() -> Vec<Entry> {
    TEXT.split("\n## ")
        .skip(1)
        .filter_map(|part| {
            let (word, body) = part.split_once('\n')?;
            let definition = body.split_whitespace().collect::<Vec<_>>().join(" ");
            (!word.trim().is_empty() && !definition.is_empty()).then(|| Entry { word: word.trim(), definition })
        })
        .collect()
}

/// The entry for `word` (any case; a drop reason's `_` read as a space:
/// `not_permitted` is "Not permitted").
pub fn find(word: &str) -> Option<&'static Entry> {
    let spaced = word.replace('_', " ");
    entries().iter().find(|e| e.word.eq_ignore_ascii_case(word) || e.word == word || e.word.eq_ignore_ascii_case(&spaced))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_glossary_defines_every_word_the_page_underlines() {
        // The words `Term` is given across the page.
        for word in ["Backpressure", "Ready", "Overloaded", "SoftLimit", "HardLimit", "Thinned", "Disconnect", "Disconnected", "ρ", "Lq", "Wq", "CLOSED", "HALF_OPEN", "OPEN", "not_permitted"] {
            assert!(find(word).is_some(), "{word} is not in docs/glossary.md");
        }
        assert!(find("overloaded").unwrap().definition.contains("would block"));
        assert!(find("no such word").is_none());
        let all = entries();
        let anchors: std::collections::BTreeSet<String> = all.iter().map(Entry::anchor).collect();
        assert_eq!(anchors.len(), all.len(), "two words share an anchor");
    }
}
