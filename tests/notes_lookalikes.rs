//! Invisible and look-alike characters (bidi controls, zero-width and other format characters,
//! variation selectors, odd spaces, look-alikes of `.`, `/` and `\`) are refused as
//! `invalid_address` by every notes operation, in addresses and in patterns, before any file is
//! touched (docs/notes.md, "Invisible and look-alike characters").

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::json;

/// Every kind the docs name, with a code point each (several for the brief's own list).
const REFUSED: &[(char, &str)] = &[
    ('\u{061C}', "arabic letter mark"),
    ('\u{200E}', "left-to-right mark"),
    ('\u{200F}', "right-to-left mark"),
    ('\u{202A}', "left-to-right embedding"),
    ('\u{202B}', "right-to-left embedding"),
    ('\u{202C}', "pop directional formatting"),
    ('\u{202D}', "left-to-right override"),
    ('\u{202E}', "right-to-left override"),
    ('\u{2066}', "left-to-right isolate"),
    ('\u{2067}', "right-to-left isolate"),
    ('\u{2068}', "first strong isolate"),
    ('\u{2069}', "pop directional isolate"),
    ('\u{200B}', "zero width space"),
    ('\u{200C}', "zero width non-joiner"),
    ('\u{200D}', "zero width joiner"),
    ('\u{2060}', "word joiner"),
    ('\u{2061}', "function application"),
    ('\u{2062}', "invisible times"),
    ('\u{2063}', "invisible separator"),
    ('\u{2064}', "invisible plus"),
    ('\u{FEFF}', "byte order mark"),
    ('\u{00AD}', "soft hyphen"),
    ('\u{180E}', "mongolian vowel separator"),
    ('\u{034F}', "combining grapheme joiner"),
    ('\u{FE00}', "variation selector 1"),
    ('\u{FE0F}', "variation selector 16"),
    ('\u{E0100}', "variation selector 17"),
    ('\u{E0041}', "tag latin capital a"),
    ('\u{3164}', "hangul filler"),
    ('\u{2028}', "line separator"),
    ('\u{00A0}', "no-break space"),
    ('\u{3000}', "ideographic space"),
    ('\u{2024}', "one dot leader"),
    ('\u{2025}', "two dot leader"),
    ('\u{2026}', "horizontal ellipsis"),
    ('\u{FE52}', "small full stop"),
    ('\u{FF0E}', "fullwidth full stop"),
    ('\u{3002}', "ideographic full stop"),
    ('\u{2215}', "division slash"),
    ('\u{2044}', "fraction slash"),
    ('\u{FF0F}', "fullwidth solidus"),
    ('\u{29F8}', "big solidus"),
    ('\u{2216}', "set minus"),
    ('\u{FF3C}', "fullwidth reverse solidus"),
    ('\u{29F5}', "reverse solidus operator"),
    ('\u{29F9}', "big reverse solidus"),
    ('\u{FE68}', "small reverse solidus"),
];

/// The tool calls of the five operations on an address (or pattern) holding `c`.
fn calls(c: char) -> Vec<(&'static str, serde_json::Value)> {
    let address = format!("@human/notes{c}{c}/plan");
    vec![
        ("notes_write", json!({"address": address, "content": "x"})),
        ("notes_read", json!({"address": format!("@human/a{c}b")})),
        (
            "notes_edit",
            json!({"address": format!("{c}plan"), "crumpled": true}),
        ),
        ("notes_list", json!({"pattern": format!("@human/**/*{c}*")})),
        (
            "notes_search",
            json!({"query": "x", "pattern": format!("*{c}")}),
        ),
    ]
}

#[test]
fn every_tool_refuses_every_kind_before_touching_a_file() {
    let env = TestEnv::new();
    write(&env, "@human/existing", "x\n");
    let before = snapshot(&env.notes_home());
    for &(c, name) in REFUSED {
        for (tool, params) in calls(c) {
            let error = tool_refusal(&env, tool, params);
            assert_eq!(
                error["code"], "invalid_address",
                "{name} in {tool}: {error}"
            );
            let code = format!("U+{:04X}", u32::from(c));
            assert!(
                error["message"].as_str().unwrap().contains(&code),
                "{name} in {tool}: {error}"
            );
        }
    }
    assert_eq!(snapshot(&env.notes_home()), before, "nothing was touched");
}

#[test]
fn the_command_line_refuses_them_too() {
    let env = TestEnv::new();
    write(&env, "@human/a", "x\n");
    let before = snapshot(&env.notes_home());
    for c in ['\u{202E}', '\u{200B}', '\u{2024}', '\u{2215}', '\u{FF3C}'] {
        let address = format!("@human/{c}{c}/a");
        let pattern = format!("@human/{c}*");
        for args in [
            vec!["write", address.as_str(), "--content", "x"],
            vec!["read", address.as_str()],
            vec!["edit", address.as_str(), "--crumple"],
            vec!["list", "--pattern", pattern.as_str()],
            vec!["search", "x", "--pattern", pattern.as_str()],
        ] {
            let (code, stderr) = fails(&env, &args);
            assert_eq!(code, 2, "{args:?}");
            assert!(
                stderr.contains("invisible, bidi-control"),
                "{args:?}: {stderr}"
            );
        }
    }
    assert_eq!(snapshot(&env.notes_home()), before);
}

#[test]
fn files_with_such_names_made_by_hand_are_not_listed_or_searched() {
    let env = TestEnv::new();
    write(&env, "@human/plain", "needle\n");
    let human = env.notes_home().join("human");
    std::fs::write(human.join("pl\u{200B}ain.md"), "needle\n").unwrap();
    std::fs::create_dir(human.join("dir\u{2024}\u{2024}")).unwrap();
    std::fs::write(human.join("dir\u{2024}\u{2024}/n.md"), "needle\n").unwrap();
    let listed = json(&env, &["list", "--pattern", "@human/**"]);
    assert_eq!(listed["files"].as_array().unwrap().len(), 1, "{listed}");
    let found = json(&env, &["search", "needle", "--pattern", "@human/**"]);
    assert_eq!(found["files"].as_array().unwrap().len(), 1, "{found}");
    // Visible non-ASCII names are fine.
    write(&env, "@human/café/日本", "needle\n");
    assert_eq!(json(&env, &["list"])["files"].as_array().unwrap().len(), 2);
}
