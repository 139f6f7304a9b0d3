//! `docs/scenario.md` and the engine's table of fields
//! (`scenario::fields`) describe the same parameters: each block kind's
//! table in the documentation lists exactly the top-level fields the
//! inspector sets, no more and no fewer. A field added to a block and to
//! the table but not to the documentation (or the other way round) fails
//! here, naming it.

use std::collections::BTreeSet;

use sluice_engine::scenario::fields::fields;
use sluice_engine::scenario::{Kind, Step};

/// The field names of the first `| field | ...` table under `### \`kind\``.
fn documented(doc: &str, kind: Kind) -> BTreeSet<String> {
    let heading = format!("### `{}`", kind.as_str());
    let section = doc.split_once(&heading).unwrap_or_else(|| panic!("docs/scenario.md has no {heading}")).1;
    let section = section.split("\n### ").next().unwrap_or(section).split("\n## ").next().unwrap_or(section);
    let table = section.split_once("\n| field |").unwrap_or_else(|| panic!("{heading} has no table of fields")).1;
    table
        .lines()
        .skip(2) // the rest of the header row, and the rule under it
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| line.strip_prefix("| `")?.split('`').next().map(str::to_string))
        .collect()
}

/// The top-level fields the table of fields sets for `kind`.
fn in_the_table(kind: Kind) -> BTreeSet<String> {
    fields(kind)
        .iter()
        .filter_map(|f| match f.path().steps().first() {
            Some(Step::Key(key)) => Some(key.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_documentation_lists_each_blocks_fields_as_the_table_does() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scenario.md")).unwrap();
    let mut wrong = Vec::new();
    for kind in Kind::ALL {
        let (docs, table) = (documented(&doc, kind), in_the_table(kind));
        for field in table.difference(&docs) {
            wrong.push(format!("{kind}: `{field}` is in the table of fields but not in docs/scenario.md"));
        }
        for field in docs.difference(&table) {
            wrong.push(format!("{kind}: `{field}` is in docs/scenario.md but not in the table of fields"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_reading_of_the_documentation_finds_a_missing_row() {
    let doc = "### `queue`\n\ntext\n\n| field | type | default | meaning |\n|---|---|---|---|\n| `order` | x | y | z |\n| `ttl_s` | x | y | z |\n\n| field | type |\n|---|---|\n| `messages` | n |\n### `consumer`\n";
    assert_eq!(documented(doc, Kind::Queue), ["order".to_string(), "ttl_s".to_string()].into_iter().collect());
}
