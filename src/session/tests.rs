use super::*;

fn session(lines: &[&str]) -> Session {
    Session::from_lines(lines)
}

#[test]
fn missing_file_is_an_empty_session() {
    let s = Session::open(Path::new("/definitely/not/here.jsonl")).unwrap();
    assert!(s.entries.is_empty());
    assert!(s.header.is_none());
}

#[test]
fn malformed_lines_are_skipped_and_counted() {
    let s = session(&[
        r#"{"type":"session","version":3,"id":"abc"}"#,
        r#"not json"#,
        r#"[1,2]"#,
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#,
        r#"{"x": NaN}"#,
        r#"{"type":"message","id":"b","parentId":"a","mess"#,
    ]);
    assert_eq!(s.entries.len(), 1);
    assert_eq!(s.skipped_lines, 4);
}

#[test]
fn non_utf8_lines_are_skipped_with_line_numbers_kept() {
    let mut bytes = br#"{"type":"session","version":3,"id":"abc"}"#.to_vec();
    bytes.extend_from_slice(b"\n\xff\xfe\n");
    bytes.extend_from_slice(
        br#"{"type":"message","id":"a","message":{"role":"user","content":"hi"}}"#,
    );
    let s = Session::from_bytes(bytes);
    assert_eq!(s.skipped_lines, 1);
    assert_eq!(s.entries[0].line, 3);
    assert_eq!(s.content_text(message_content(&s.entries[0])), "hi");
}

fn message_content(e: &Entry) -> Option<Span> {
    match &e.kind {
        EntryKind::Message(Message::User { content }) => *content,
        _ => panic!("not a user message"),
    }
}

#[test]
fn v1_files_get_synthetic_ids_and_a_linear_chain() {
    let s = session(&[
        r#"{"type":"session","id":"abc"}"#,
        r#"{"type":"message","id":"ignored","message":{"role":"user","content":"a"}}"#,
        r#"{"type":"message","message":{"role":"user","content":"b"}}"#,
    ]);
    assert_eq!(s.entry_id(&s.entries[0].id), "line:2");
    assert_eq!(s.entries[0].parent_id, None);
    assert_eq!(s.entries[1].parent_id, Some(EntryId::Line(2)));
}

#[test]
fn content_text_joins_text_blocks_and_drops_the_rest() {
    let s = session(&[
        r#"{"type":"session","version":3,"id":"abc"}"#,
        r#"{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"one"},{"type":"image","data":"x"},{"type":"text","text":"t\u00e9\"o"},3]}}"#,
    ]);
    let content = message_content(&s.entries[0]);
    assert_eq!(s.content_text(content), "one\nté\"o");
    assert!(!s.content_is_empty(content));
}

#[test]
fn hook_message_is_custom_below_version_3() {
    let line = r#"{"type":"message","id":"a","message":{"role":"hookMessage","content":"x"}}"#;
    let v2 = session(&[r#"{"type":"session","version":2,"id":"abc"}"#, line]);
    assert!(matches!(
        v2.entries[0].kind,
        EntryKind::Message(Message::Custom { .. })
    ));
    let v3 = session(&[r#"{"type":"session","version":3,"id":"abc"}"#, line]);
    assert!(matches!(
        v3.entries[0].kind,
        EntryKind::Message(Message::Unknown)
    ));
}

#[test]
fn repeated_ids_resolve_to_the_later_line() {
    let s = session(&[
        r#"{"type":"session","version":3,"id":"abc"}"#,
        r#"{"type":"message","id":"a","message":{"role":"user","content":"first"}}"#,
        r#"{"type":"message","id":"a","message":{"role":"user","content":"second"}}"#,
    ]);
    assert_eq!(s.id_index().get("a"), Some(&1));
}

#[test]
fn reset_marker_needs_a_non_empty_string_window_id() {
    let s = session(&[
        r#"{"type":"session","version":3,"id":"abc"}"#,
        r#"{"type":"custom","id":"a","customType":"pi-context/reset-marker","data":{"windowId":"w1"}}"#,
        r#"{"type":"custom","id":"b","customType":"pi-context/reset-marker","data":{"windowId":""}}"#,
        r#"{"type":"custom","id":"c","customType":"pi-context/reset-marker","data":{"windowId":7}}"#,
        r#"{"type":"custom","id":"d","customType":"other","data":{"windowId":"w2"}}"#,
    ]);
    let ids: Vec<_> = s
        .entries
        .iter()
        .map(|e| match &e.kind {
            EntryKind::Custom { window_id, .. } => window_id.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(ids, vec![Some("w1".to_string()), None, None, None]);
}

mod index {
    use super::*;
    use std::io::Write;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"abc"}"#;

    fn line(id: &str, parent: &str, text: &str) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"{text}"}}}}"#
        )
    }

    fn options(dir: &Path) -> OpenOptions {
        OpenOptions {
            cache_dir: Some(dir.join("cache")),
            cache_min_bytes: 0,
        }
    }

    /// The parsed view of a session, for comparing an indexed open with a fresh parse.
    fn fingerprint(s: &Session) -> String {
        format!("{:?}|{:?}|{}", s.header, s.entries, s.skipped_lines)
    }

    fn append(path: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn appended_lines_are_picked_up_and_match_a_fresh_parse() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, format!("{HEADER}\n{}\n", line("a", "x", "one"))).unwrap();
        let first = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(first.entries.len(), 1);
        assert_eq!(
            std::fs::read_dir(dir.path().join("cache")).unwrap().count(),
            1
        );

        append(
            &path,
            &format!("{}\n{{\"type\":\"mess", line("b", "a", "two")),
        );
        let second = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(second.entries.len(), 2);
        assert_eq!(second.skipped_lines, 1, "the half-written line is skipped");
        assert_eq!(
            fingerprint(&second),
            fingerprint(&Session::open(&path).unwrap())
        );

        append(&path, "age\",\"id\":\"c\",\"parentId\":\"b\",\"message\":{\"role\":\"user\",\"content\":\"three\"}}\n");
        let third = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(third.entries.len(), 3);
        assert_eq!(third.skipped_lines, 0, "the completed line parses");
        assert_eq!(
            third.content_text(message_content(&third.entries[2])),
            "three"
        );
        assert_eq!(
            fingerprint(&third),
            fingerprint(&Session::open(&path).unwrap())
        );
    }

    #[test]
    fn the_index_is_rewritten_only_after_a_large_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, format!("{HEADER}\n{}\n", line("a", "x", "one"))).unwrap();
        Session::open_with(&path, &options(dir.path())).unwrap();
        let index = std::fs::read_dir(dir.path().join("cache"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let written = std::fs::read(&index).unwrap();

        append(&path, &format!("{}\n", line("b", "a", "small")));
        let small = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(small.entries.len(), 2, "the unindexed tail is parsed");
        assert_eq!(
            std::fs::read(&index).unwrap(),
            written,
            "a small tail leaves the index as it was"
        );

        let big = "x".repeat(300 * 1024);
        append(&path, &format!("{}\n", line("c", "b", &big)));
        let large = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(large.entries.len(), 3);
        assert_ne!(
            std::fs::read(&index).unwrap(),
            written,
            "a large tail rewrites the index"
        );
        assert_eq!(
            fingerprint(&large),
            fingerprint(&Session::open(&path).unwrap())
        );
    }

    #[test]
    fn a_rewritten_file_is_parsed_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, format!("{HEADER}\n{}\n", line("a", "x", "one"))).unwrap();
        Session::open_with(&path, &options(dir.path())).unwrap();
        std::fs::write(
            &path,
            format!(
                "{HEADER}\n{}\n{}\n",
                line("z", "x", "other"),
                line("y", "z", "more")
            ),
        )
        .unwrap();
        let reopened = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(reopened.entry_id(&reopened.entries[0].id), "z");
        assert_eq!(
            fingerprint(&reopened),
            fingerprint(&Session::open(&path).unwrap())
        );
    }

    #[test]
    fn a_corrupt_index_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, format!("{HEADER}\n{}\n", line("a", "x", "one"))).unwrap();
        Session::open_with(&path, &options(dir.path())).unwrap();
        for index in std::fs::read_dir(dir.path().join("cache")).unwrap() {
            std::fs::write(index.unwrap().path(), b"\x01\x02garbage").unwrap();
        }
        let reopened = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(
            fingerprint(&reopened),
            fingerprint(&Session::open(&path).unwrap())
        );
    }

    #[test]
    fn an_unwritable_cache_only_costs_speed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, format!("{HEADER}\n{}\n", line("a", "x", "one"))).unwrap();
        std::fs::write(
            dir.path().join("cache"),
            b"a file where the cache dir should be",
        )
        .unwrap();
        let opened = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(opened.entries.len(), 1);
    }
}
