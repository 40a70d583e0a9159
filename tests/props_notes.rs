//! Property tests of the notes parsers on every `cargo test` (the cargo-fuzz targets
//! `fuzz/fuzz_targets/note_address.rs` and `frontmatter.rs` need nightly and never run in CI):
//! the address and pattern parsers never panic and never accept a path that leaves its home; the
//! frontmatter codec is lossless (`parse(text).render() == text`) on any text, and the listing's
//! quick read of the known keys (`known_values`) agrees with it.

use pi_context::notes::address::{Address, Pattern};
use pi_context::notes::frontmatter::{head_len, known_values, Document, Key};
use pi_context::notes::identity::Identity;
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Text built from the pieces addresses are made of, and the pieces that attack them.
fn address_like() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "@project/",
            "@human/",
            "@self/",
            "@model/",
            "@agents/",
            "@models/",
            "@unknown/",
            "@",
            "a",
            "note",
            "dir/",
            ".md",
            ".",
            "..",
            "/",
            "//",
            "\\",
            "\0",
            " ",
            "é",
            "~",
            "*",
            "**",
            "?",
            "\u{202e}",
            "\u{200b}",
            "\u{2024}",
            "\u{ff0e}",
            "file:",
            "%2e",
            "\n",
            "😀",
        ]),
        0..10,
    )
    .prop_map(|pieces| pieces.concat())
}

/// Text built from the pieces note files are made of.
fn note_like() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "---",
            "  ---  ",
            "\n",
            "\r\n",
            "\r",
            "\u{feff}",
            " ",
            "origin: user",
            "origin: self",
            "created_at: 2026-01-01T00:00:00Z",
            "updatedAt: 2026-01-01T00:00:00Z",
            "accessCount: '7'",
            "project: \"p\\u0041\"",
            "crumpled_at:",
            "key: \"quoted: value\"",
            "- item",
            "#",
            ":",
            "body text",
            "é😀",
            "...",
            "\t",
        ]),
        0..16,
    )
    .prop_map(|pieces| pieces.concat())
}

fn identity() -> Identity {
    Identity {
        session_id: Some("prop-session".into()),
        project_key: "proj-0123abcd".into(),
        agent: "me".into(),
        model: "model".into(),
        home: "/notes".into(),
    }
}

/// An accepted address names a relative path of real segments, inside its home.
fn check_address(text: &str) -> Result<(), TestCaseError> {
    if let Ok(address) = Address::parse(text) {
        let path = &address.path;
        prop_assert!(!path.starts_with('/'), "absolute path accepted: {text:?}");
        prop_assert!(!path.contains('\\') && !path.contains('\0'), "{text:?}");
        prop_assert!(
            path.split('/')
                .all(|segment| !segment.is_empty() && segment != "." && segment != ".."),
            "escaping path accepted: {text:?}"
        );
        prop_assert!(path.ends_with(".md"));
    }
    let _ = Pattern::parse(Some(text), &identity());
    Ok(())
}

fn check_codec(text: &str) -> Result<(), TestCaseError> {
    let document = Document::parse(text);
    prop_assert_eq!(document.render(), text, "the codec is lossless");
    let values = known_values(text);
    for key in Key::ALL {
        prop_assert_eq!(&values[key as usize], &document.get(key), "{:?}", key);
    }
    if let Some(head) = head_len(text, true) {
        prop_assert!(head <= text.len());
    }
    for cut in [0, text.len() / 3, text.len() / 2] {
        if text.is_char_boundary(cut) {
            if let Some(head) = head_len(&text[..cut], false) {
                prop_assert!(head <= cut);
                // Decided from the start of the file: the whole file agrees.
                prop_assert_eq!(Some(head), head_len(text, true), "cut at {}", cut);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_text_as_an_address(text in "\\PC{0,64}") {
        check_address(&text)?;
    }

    #[test]
    fn address_like_text(text in address_like()) {
        check_address(&text)?;
    }

    #[test]
    fn any_text_round_trips_through_the_frontmatter_codec(text in "(?s).{0,200}") {
        check_codec(&text)?;
    }

    #[test]
    fn note_like_text_round_trips_through_the_frontmatter_codec(text in note_like()) {
        check_codec(&text)?;
    }
}
