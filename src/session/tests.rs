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

/// Content decoded in place after a prefix is the prefix and what `content_text` gives, for
/// every kind of escape, and content that cannot be decoded in place takes the same path.
#[test]
fn content_text_after_a_prefix_is_the_prefix_and_the_content_text() {
    let contents = [
        r#""plain""#,
        r#""esc \" \\ \/ \b \f \n \r \t \u00e9 \u4e2d \ud83d\ude00 end""#,
        r#"[{"type":"text","text":"one"},{"type":"image","data":"x"},{"type":"text","text":"t\u00e9\"o"},3]"#,
        r#"[{"type":"text","text":"a\nb"},{"text":"c","type":"text"}]"#,
        r#""lone \ud800 surrogate""#,
        r#"[{"type":"text","text":"lone \udc00"},{"type":"text","text":"kept"}]"#,
        r#"[]"#,
        r#""""#,
        r#"42"#,
    ];
    for content in contents {
        let line = format!(
            r#"{{"type":"message","id":"a","message":{{"role":"user","content":{content}}}}}"#
        );
        let s = session(&[r#"{"type":"session","version":3,"id":"abc"}"#, &line]);
        let span = message_content(&s.entries[0]);
        let expected = format!("head: {}", s.content_text(span));
        assert_eq!(s.content_text_after("head: ", span), expected, "{content}");
        assert_eq!(
            s.content_text_after("", span),
            s.content_text(span),
            "{content}"
        );
    }
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

    /// The one session index file that `options(dir)` writes.
    fn cache_file(dir: &Path) -> std::path::PathBuf {
        std::fs::read_dir(dir.join("cache"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
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
        let index = cache_file(dir.path());
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

    /// A line can make several entries that share its span (a Gemini CLI message written again
    /// with its tool calls makes an entry for them and one per result): the index must keep
    /// them, not be refused and rebuilt by every reader.
    #[test]
    fn an_index_of_lines_with_several_entries_is_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session-2026-01-01T00-00-g1.jsonl");
        let ts = r#""timestamp":"2026-01-01T00:00:00.000Z""#;
        let chat = [
            r#"{"sessionId":"g1","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}"#.to_string(),
            format!(r#"{{"id":"u1",{ts},"type":"user","content":[{{"text":"run it"}}]}}"#),
            format!(r#"{{"id":"m1",{ts},"type":"gemini","content":"Running.","thoughts":[]}}"#),
            format!(
                r#"{{"id":"m1",{ts},"type":"gemini","content":"Running.","thoughts":[],"toolCalls":[{{"id":"c1","name":"run_shell_command","args":{{"command":"ls"}},"result":[{{"functionResponse":{{"id":"c1","name":"run_shell_command","response":{{"output":"a.txt"}}}}}}],"status":"success"}}]}}"#
            ),
        ];
        std::fs::write(&path, chat.join("\n") + "\n").unwrap();
        let first = Session::open_with(&path, &options(dir.path())).unwrap();
        let last_line = first.entries.iter().map(|e| e.line).max().unwrap();
        assert!(
            first.entries.iter().filter(|e| e.line == last_line).count() > 1,
            "the message written again makes several entries"
        );
        let index = cache_file(dir.path());
        let written = std::fs::read(&index).unwrap();

        append(
            &path,
            &format!(
                "{{\"id\":\"u2\",{ts},\"type\":\"user\",\"content\":[{{\"text\":\"thanks\"}}]}}\n"
            ),
        );
        let second = Session::open_with(&path, &options(dir.path())).unwrap();
        assert_eq!(
            std::fs::read(&index).unwrap(),
            written,
            "the index was loaded and the small tail parsed on top of it, not rebuilt"
        );
        assert_eq!(
            fingerprint(&second),
            fingerprint(&Session::open(&path).unwrap())
        );
    }

    /// What a reader remembers between lines (a Gemini CLI reader: every message met, the live
    /// chain) is read from the index only to read lines past it: an open of a chat that did not
    /// change takes the index whole without it, and one that grew reads it (damaged, the file
    /// is parsed afresh).
    #[test]
    fn the_readers_state_is_read_only_for_lines_past_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session-2026-01-01T00-00-g1.jsonl");
        let ts = r#""timestamp":"2026-01-01T00:00:00.000Z""#;
        let mut chat = vec![
            r#"{"sessionId":"g1","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}"#.to_string(),
        ];
        for n in 0..50 {
            chat.push(format!(
                r#"{{"id":"u{n}",{ts},"type":"user","content":[{{"text":"question {n}"}}]}}"#
            ));
            chat.push(format!(
                r#"{{"id":"m{n}",{ts},"type":"gemini","content":"answer {n}","thoughts":[]}}"#
            ));
        }
        std::fs::write(&path, chat.join("\n") + "\n").unwrap();
        let options = options(dir.path());
        let fresh = fingerprint(&Session::open_with(&path, &options).unwrap());
        let index = cache_file(dir.path());
        let state = super::cache::reader_state_range(&index).unwrap();
        assert!(state.len() > 50, "the state remembers the messages");
        let mut damaged = std::fs::read(&index).unwrap();
        damaged[state].fill(0xff);
        std::fs::write(&index, &damaged).unwrap();

        let unchanged = Session::open_with(&path, &options).unwrap();
        assert_eq!(fingerprint(&unchanged), fresh);
        assert_eq!(unchanged.harness, Harness::Gemini);
        assert_eq!(
            std::fs::read(&index).unwrap(),
            damaged,
            "the index was taken without its reader's state, not refused and rebuilt"
        );

        append(
            &path,
            &format!(
                "{{\"id\":\"u50\",{ts},\"type\":\"user\",\"content\":[{{\"text\":\"more\"}}]}}\n"
            ),
        );
        let grown = Session::open_with(&path, &options).unwrap();
        assert_eq!(
            fingerprint(&grown),
            fingerprint(&Session::open(&path).unwrap())
        );
        assert_ne!(
            std::fs::read(&index).unwrap(),
            damaged,
            "a damaged state is refused once lines past the index are read"
        );
    }

    /// An atom read from an index (a tool name a search's document shows, an id) is copied out
    /// alone: the atom table, mostly ids, stays in the index until every id is read at once.
    #[test]
    fn an_atom_is_read_from_the_index_without_its_table() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = format!("{HEADER}\n");
        for n in 0..300 {
            let parent = format!("entry-{}", n.max(1) - 1);
            text.push_str(&line(&format!("entry-{n}"), &parent, "turn"));
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        let options = options(dir.path());
        let fresh = Session::open_with(&path, &options).unwrap();
        let file = SessionFile::open(&path).unwrap();
        let indexed = file.session_decoding_lazily(&options);
        assert_eq!(fingerprint(&indexed), fingerprint(&fresh));
        for n in [0, 150, 299] {
            assert_eq!(
                indexed.entry_id(&indexed.entries[n].id),
                format!("entry-{n}")
            );
        }
        assert!(
            !indexed.atoms.is_held(),
            "the atoms were read without copying the table"
        );
        assert!(!indexed.index_damaged());
        let ids = indexed.id_index();
        assert_eq!(ids.get("entry-7"), Some(&7));
        assert!(indexed.atoms.is_held(), "every id: the table at once");
    }

    /// The recall refresh reads a grown session decoding only the entries it reaches, and
    /// rewrites the index after a large append by copying the chunks it holds whole: the
    /// rewritten index must decode, chunk by chunk, to exactly the entries of a fresh parse.
    #[test]
    fn an_index_rewritten_by_a_lazy_reader_decodes_as_a_fresh_parse() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = format!("{HEADER}\n");
        for n in 0..300 {
            text.push_str(&line(
                &format!("e{n}"),
                &format!("e{}", n.max(1) - 1),
                "turn",
            ));
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        let options = options(dir.path());
        let lazily = |path: &Path| {
            let file = SessionFile::open(path).unwrap();
            fingerprint(&file.session_rewriting_lazily(&options))
        };
        lazily(&path);
        let index = cache_file(dir.path());
        let written = std::fs::read(&index).unwrap();
        let big = "x".repeat(5 << 20);
        append(&path, &format!("{}\n", line("big", "e299", &big)));
        for n in 300..500 {
            append(
                &path,
                &format!("{}\n", line(&format!("e{n}"), "big", "more")),
            );
        }
        let fresh = fingerprint(&Session::open(&path).unwrap());
        assert_eq!(lazily(&path), fresh);
        assert_ne!(std::fs::read(&index).unwrap(), written, "rewritten");
        let file = SessionFile::open(&path).unwrap();
        let reread = file.session_decoding_lazily(&options);
        assert_eq!(fingerprint(&reread), fresh);
        assert!(!reread.index_damaged(), "every chunk decodes");
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

/// A session file that changes while it is read: the map survives, and the check tells an append
/// (still one version) from a rewrite or a shrink (not).
mod rewrite {
    use super::*;
    use std::io::Write;

    const PAGE: usize = 4096;

    /// Lines of `fill` long enough that the file spans several pages.
    fn text(fill: char, pages: usize) -> Vec<u8> {
        let line = format!(
            "{{\"type\":\"message\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
            fill.to_string().repeat(200)
        );
        line.repeat(pages * PAGE / line.len() + 1).into_bytes()
    }

    fn write_in_place(path: &Path, bytes: &[u8]) {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .unwrap();
        f.write_all(bytes).unwrap();
    }

    fn opened(content: &[u8]) -> (tempfile::TempDir, PathBuf, SessionFile) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, content).unwrap();
        let file = SessionFile::open(&path).unwrap();
        (dir, path, file)
    }

    #[test]
    fn a_read_past_the_end_of_a_shrunk_map_sees_zeros_not_a_signal() {
        let content = text('a', 8);
        let (_dir, path, file) = opened(&content);
        assert!(
            matches!(file.source(), Source::Mapped(_)),
            "the file is mapped"
        );
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(PAGE as u64)
            .unwrap();
        let bytes = file.bytes();
        assert_eq!(bytes.len(), content.len(), "the map keeps its length");
        assert_eq!(
            bytes[..PAGE],
            content[..PAGE],
            "the first page is still there"
        );
        assert!(!file.source().damaged());
        assert_eq!(bytes[5 * PAGE + 7], 0, "a page past the end reads as zero");
        assert!(
            bytes[PAGE..].iter().all(|&b| b == 0),
            "the rest of the map is zeros"
        );
        assert!(file.source().damaged(), "the map is marked damaged");
        assert!(!file.is_consistent());
    }

    #[test]
    fn an_append_keeps_the_read_consistent() {
        let content = text('a', 3);
        let (_dir, path, file) = opened(&content);
        let _ = file.session(&OpenOptions::default());
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&text('b', 2)).unwrap();
        assert!(file.is_consistent());
        assert!(
            !file.is_unchanged(),
            "the index is not saved from a file that grew"
        );
    }

    #[test]
    fn an_untouched_file_is_unchanged() {
        let (_dir, _path, file) = opened(&text('a', 3));
        let _ = file.session(&OpenOptions::default());
        assert!(file.is_consistent());
        assert!(file.is_unchanged());
    }

    #[test]
    fn a_shrink_or_a_rewrite_in_place_makes_the_read_inconsistent() {
        let content = text('a', 3);

        let (_dir, path, file) = opened(&content);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(content.len() as u64 - 1)
            .unwrap();
        assert!(!file.is_consistent(), "one byte shorter");

        let (_dir, path, file) = opened(&content);
        let mut rewritten = content.clone();
        rewritten[10] = b'X';
        write_in_place(&path, &rewritten);
        assert!(!file.is_consistent(), "the head changed");

        let (_dir, path, file) = opened(&content);
        let mut rewritten = content.clone();
        let last = rewritten.len() - 3;
        rewritten[last] = b'X';
        rewritten.extend_from_slice(&text('c', 1));
        write_in_place(&path, &rewritten);
        assert!(!file.is_consistent(), "the tail of what was read changed");
    }

    #[test]
    fn a_rewrite_back_to_the_same_bytes_is_still_recognized() {
        let content = text('a', 3);
        let (_dir, path, file) = opened(&content);
        let _ = file.session(&OpenOptions::default());
        write_in_place(&path, &text('b', 5));
        write_in_place(&path, &content);
        assert_eq!(std::fs::read(&path).unwrap(), content);
        assert!(
            !file.is_consistent(),
            "the read may have seen the other version in between"
        );

        let (_dir, path, file) = opened(&content);
        truncate(&path, 100);
        write_in_place(&path, &content);
        assert!(!file.is_consistent(), "a truncation, then the same bytes");
    }

    fn truncate(path: &Path, len: u64) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .unwrap()
            .set_len(len)
            .unwrap();
    }

    #[test]
    fn read_consistently_retries_then_reports_a_file_that_keeps_changing() {
        let content = text('a', 3);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, &content).unwrap();
        let mut runs = 0;
        let result: Result<(), SessionError> = read_consistently(&path, |_| {
            runs += 1;
            let mut rewritten = content.clone();
            rewritten[0] = b' ' + runs as u8;
            write_in_place(&path, &rewritten);
            Ok(())
        });
        assert_eq!(runs, 3);
        let err = result.unwrap_err();
        assert_eq!(err.code(), "session_changed");
        assert!(
            err.to_string().contains("changed while it was read"),
            "{err}"
        );

        let mut runs = 0;
        let result: Result<usize, SessionError> = read_consistently(&path, |file| {
            runs += 1;
            if runs == 1 {
                write_in_place(&path, &content);
            }
            Ok(file.bytes().len())
        });
        assert_eq!(runs, 2, "one rewrite, one more attempt");
        assert_eq!(result.unwrap(), content.len());
    }

    #[test]
    #[allow(unsafe_code)] // mkfifo: std has no safe way to make a FIFO
    fn only_regular_files_are_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        for (path, kind) in [
            (dir.path().to_path_buf(), "a directory"),
            (fifo, "a FIFO (named pipe)"),
            (PathBuf::from("/dev/null"), "a device"),
        ] {
            match SessionFile::open(&path) {
                Err(SessionError::NotAFile { kind: k, .. }) => assert_eq!(k, kind),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
    }
}
