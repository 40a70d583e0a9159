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
    bytes.extend_from_slice(br#"{"type":"message","id":"a","message":{"role":"user","content":"hi"}}"#);
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
    assert_eq!(s.entries[0].id, "line:2");
    assert_eq!(s.entries[0].parent_id, None);
    assert_eq!(s.entries[1].parent_id.as_deref(), Some("line:2"));
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
    assert!(matches!(v2.entries[0].kind, EntryKind::Message(Message::Custom { .. })));
    let v3 = session(&[r#"{"type":"session","version":3,"id":"abc"}"#, line]);
    assert!(matches!(v3.entries[0].kind, EntryKind::Message(Message::Unknown { .. })));
}

#[test]
fn repeated_ids_resolve_to_the_later_line() {
    let s = session(&[
        r#"{"type":"session","version":3,"id":"abc"}"#,
        r#"{"type":"message","id":"a","message":{"role":"user","content":"first"}}"#,
        r#"{"type":"message","id":"a","message":{"role":"user","content":"second"}}"#,
    ]);
    assert_eq!(s.index_of("a"), Some(1));
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
