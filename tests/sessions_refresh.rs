//! The index follows the session files: appends, rewrites, deletions and torn last lines,
//! with the projection recomputed on every append.

use crate::common;

use std::io::Write;

use common::recall::{
    append, append_what_is_new, hits, ids, project_dir, read_hit, search_all, session_id,
    write_pi_session,
};
use common::session::SessionBuilder;
use common::{CommandOutput, Run, TestEnv};
use serde_json::Value;

fn session(n: u32, cwd: &std::path::Path) -> SessionBuilder {
    SessionBuilder::with_id(&session_id(n)).cwd(&cwd.to_string_lossy())
}

fn index(env: &TestEnv) -> Value {
    let output = env
        .cmd()
        .args(["sessions", "index", "--json"])
        .run()
        .success();
    output.json()
}

#[test]
fn an_appended_event_is_found_and_nothing_is_indexed_twice() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("first mention of the lighthouse");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(index(&env)["events"], 1);
    let before = std::fs::read_to_string(&path).unwrap();
    s.assistant("second lighthouse mention");
    let after = s.text();
    append(&path, &after[before.len()..]);

    let result = search_all(&env, &["lighthouse", "--hits", "10"]);
    assert_eq!(hits(&result), vec![(session_id(1), 2), (session_id(1), 1)]);
    let counts = index(&env);
    assert_eq!(counts["events"], 2);
    assert_eq!(counts["sessions"], 1);
}

#[test]
fn an_appended_result_pairs_with_its_indexed_call() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("list the files");
    s.assistant_with_calls("", &[("c1", "ls", r#"{"path":"."}"#)]);
    let path = write_pi_session(&env, &project, &s);
    index(&env);
    let before = s.text();
    s.tool_result("c1", "ls", "marmoset.txt", false);
    append(&path, &s.text()[before.len()..]);

    let result = search_all(&env, &["marmoset"]);
    // The output is found in the call's event (seq 3), not as a result of its own (seq 4).
    assert_eq!(hits(&result), vec![(session_id(1), 3)], "{result}");
    assert!(read_hit(&env, &session_id(1), 3, None).contains("marmoset.txt"));
}

#[test]
fn an_append_that_moves_the_default_branch_abandons_the_old_one() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    let root = s.user("the question");
    s.assistant("first answer about a gondola");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(hits(&search_all(&env, &["gondola"])).len(), 1);
    let before = s.text();
    s.branch_from(&root);
    s.assistant("second answer about a canoe");
    append(&path, &s.text()[before.len()..]);

    assert!(hits(&search_all(&env, &["gondola"])).is_empty());
    let all = search_all(&env, &["gondola", "--branches", "all"]);
    let hit = &all["sessions"][0]["hits"][0];
    assert_eq!(hit["on_branch"], false);
    assert!(hit["leaf_id"].is_string());
    assert_eq!(
        hits(&search_all(&env, &["canoe"])),
        vec![(session_id(1), 3)]
    );
}

#[test]
fn a_session_rewound_off_its_match_is_neither_shown_nor_counted_on_the_default_branch() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut rewound = session(1, &project);
    let root = rewound.user("the question");
    rewound.assistant("first answer about a gondola");
    let path = write_pi_session(&env, &project, &rewound);
    let mut kept = session(2, &project);
    kept.user("a gondola on the canal");
    write_pi_session(&env, &project, &kept);
    let before = search_all(&env, &["gondola", "--limit", "1"]);
    assert_eq!(before["more"], 1, "{before}");

    // Indexed on the default branch, then left behind by an append: its words stay in the
    // session's first part, so the count must look at its events.
    rewound.branch_from(&root);
    rewound.assistant("second answer about a canoe");
    append_what_is_new(&path, &rewound);
    let after = search_all(&env, &["gondola", "--limit", "1"]);
    assert_eq!(ids(&after), vec![session_id(2)], "{after}");
    assert_eq!(after["more"], 0, "{after}");
    let all = search_all(&env, &["gondola", "--limit", "1", "--branches", "all"]);
    assert_eq!(all["more"], 1, "{all}");
}

#[test]
fn sessions_whose_matches_all_left_the_branch_do_not_crowd_out_one_that_holds_it() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut plain = session(100, &project);
    plain.user("one gondola");
    write_pi_session(&env, &project, &plain);
    // More rewound sessions than a search's pool, each holding the word far more often and
    // updated later: the part documents rank them first.
    for n in 1..=30 {
        let mut s = session(n, &project);
        let root = s.user("the question");
        s.assistant("gondola gondola gondola gondola gondola gondola gondola gondola");
        let path = write_pi_session(&env, &project, &s);
        index(&env);
        s.branch_from(&root);
        s.assistant("a canoe instead");
        append_what_is_new(&path, &s);
    }
    let result = search_all(&env, &["gondola"]);
    assert_eq!(ids(&result), vec![session_id(100)], "{result}");
    assert_eq!(result["more"], 0, "{result}");
    let all = search_all(&env, &["gondola", "--branches", "all", "--limit", "40"]);
    assert_eq!(ids(&all).len(), 31, "{all}");
}

#[test]
fn a_session_of_more_distinct_words_than_a_part_holds_is_found_by_any_of_them_and_counted_once() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    // 70,000 distinct words: more than one part document's worth (65,536 stems).
    let words: Vec<String> = (0..70_000).map(|n| format!("tok{n}z")).collect();
    let mut many = session(1, &project);
    // The first word again at the end: in the first part and in the last.
    many.user(&format!("{} tok0z", words.join(" ")));
    write_pi_session(&env, &project, &many);
    let mut other = session(2, &project);
    other.user("tok0z and nothing else");
    write_pi_session(&env, &project, &other);
    for (word, holders) in [("tok0z", 2), ("tok35000z", 1), ("tok69999z", 1)] {
        let result = search_all(&env, &[word, "--limit", "1"]);
        let shown = ids(&result);
        assert_eq!(shown.len(), 1, "{word}: {result}");
        assert_eq!(result["more"], holders - 1, "{word}: {result}");
        let all = search_all(&env, &[word, "--limit", "5"]);
        assert!(ids(&all).contains(&session_id(1)), "{word}: {all}");
        assert_eq!(ids(&all).len(), holders as usize, "{word}: {all}");
    }
}

#[test]
fn a_torn_last_line_waits_until_it_is_complete() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("stable text");
    let path = write_pi_session(&env, &project, &s);
    let before = s.text();
    s.user("the pangolin arrives");
    let line = &s.text()[before.len()..];
    let cut = line.len() / 2;
    append(&path, &line[..line.len() - cut - 1]);
    assert!(hits(&search_all(&env, &["stable"])).len() == 1);
    // Half a line: not indexed, and the search does not fail.
    let (torn, code) = common::recall::json_in(
        &env,
        &env.work(),
        &["sessions", "search", "--all", "pangolin"],
    );
    assert_eq!(code, 1, "{torn}");
    append(&path, &line[line.len() - cut - 1..]);
    assert_eq!(
        hits(&search_all(&env, &["pangolin"])),
        vec![(session_id(1), 2)]
    );
    assert_eq!(index(&env)["events"], 2);
}

#[test]
fn a_rewritten_file_is_indexed_afresh() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the original ocelot text");
    s.user("more original text");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(hits(&search_all(&env, &["ocelot"])).len(), 1);
    // Rewritten in place with other words (Pi migrates old files this way).
    let mut other = session(1, &project);
    other.user("the replaced jaguar text");
    other.user("more replaced  text");
    std::fs::write(&path, other.text()).unwrap();
    assert!(hits(&search_all(&env, &["ocelot"])).is_empty());
    assert_eq!(
        hits(&search_all(&env, &["jaguar"])),
        vec![(session_id(1), 1)]
    );
    // Shrunk to less than what was indexed.
    let mut short = session(1, &project);
    short.user("tapir");
    std::fs::write(&path, short.text()).unwrap();
    assert!(hits(&search_all(&env, &["jaguar"])).is_empty());
    assert_eq!(hits(&search_all(&env, &["tapir"])).len(), 1);
    assert_eq!(index(&env)["events"], 1);
}

#[test]
fn a_deleted_file_leaves_the_index() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut a = session(1, &project);
    a.user("the ibis");
    let path = write_pi_session(&env, &project, &a);
    let mut b = session(2, &project);
    b.user("the ibis too");
    write_pi_session(&env, &project, &b);
    assert_eq!(search_all(&env, &["ibis"])["indexed_sessions"], 2);
    std::fs::remove_file(&path).unwrap();
    let result = search_all(&env, &["ibis"]);
    assert_eq!(hits(&result), vec![(session_id(2), 1)]);
    assert_eq!(result["indexed_sessions"], 1);
}

#[test]
fn rebuild_starts_from_nothing_and_finds_the_same() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the quokka");
    write_pi_session(&env, &project, &s);
    let first = index(&env);
    let output = env
        .cmd()
        .args(["sessions", "index", "--rebuild", "--json"])
        .run();
    let rebuilt = output.json();
    assert_eq!(first["sessions"], rebuilt["sessions"]);
    assert_eq!(first["events"], rebuilt["events"]);
    assert_eq!(rebuilt["unreadable"], 0);
    assert!(rebuilt["seconds"].is_number());
    assert_eq!(hits(&search_all(&env, &["quokka"])).len(), 1);
}

/// `sessions search --all QUERY --json` with `PI_CONTEXT_SETTLE_MS` set: how long a session
/// file must be left alone before recall trusts its stamp and indexes an unterminated last line.
fn search_settling(env: &TestEnv, settle_ms: u64, query: &str) -> (Value, i32) {
    let output = env
        .cmd()
        .env("PI_CONTEXT_SETTLE_MS", settle_ms.to_string())
        .args([
            "sessions", "search", "--all", "--json", "--hits", "10", query,
        ])
        .run();
    search_answer(&output)
}

/// Puts the file's modification time back to `mtime` (its change time moves all the same).
fn set_mtime(path: &std::path::Path, mtime: std::time::SystemTime) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(mtime).unwrap();
}

#[test]
fn a_same_size_rewrite_in_place_with_the_old_mtime_is_indexed_again() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the old walrus sleeps");
    let path = write_pi_session(&env, &project, &s);
    let old = std::fs::read(&path).unwrap();
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    // Settling 0: the stamp alone must tell the rewrite (no racily-clean recheck).
    assert_eq!(search_settling(&env, 0, "walrus").1, 0);

    let text = String::from_utf8(old.clone())
        .unwrap()
        .replace("walrus", "beaver");
    assert_eq!(text.len(), old.len());
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
    drop(file);
    set_mtime(&path, mtime);
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (meta.len(), meta.modified().unwrap()),
        (old.len() as u64, mtime)
    );

    let (found, code) = search_settling(&env, 0, "beaver");
    assert_eq!(code, 0, "{found}");
    assert_eq!(hits(&found), vec![(session_id(1), 1)]);
    assert_eq!(search_settling(&env, 0, "walrus").1, 1);
}

#[test]
fn a_racily_clean_file_rechecked_on_each_refresh_keeps_its_events_once() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the old marten sleeps");
    let path = write_pi_session(&env, &project, &s);
    // A long settling time: the file just written is racily clean, its content is recorded.
    assert_eq!(search_settling(&env, 600_000, "marten").1, 0);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("marten", "weasel");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert_eq!(
        hits(&search_settling(&env, 600_000, "weasel").0),
        vec![(session_id(1), 1)]
    );
    assert_eq!(search_settling(&env, 600_000, "marten").1, 1);
    // Unchanged and still racy: rechecked, the same answer.
    assert_eq!(search_settling(&env, 600_000, "weasel").1, 0);
    assert_eq!(index(&env)["events"], 1);
}

#[test]
fn a_settled_last_line_without_newline_is_indexed_like_history_reads_it() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("stable text");
    s.user("the unterminated axolotl");
    let full = s.text();
    let path = write_pi_session(&env, &project, &s);
    std::fs::write(&path, full.trim_end_matches('\n')).unwrap();

    // Just written: Pi may be writing it, so it waits (a long settling time).
    assert_eq!(search_settling(&env, 600_000, "axolotl").1, 1);
    // Settled: indexed, as `history` already reads it.
    let (found, code) = search_settling(&env, 0, "axolotl");
    assert_eq!(code, 0, "{found}");
    assert_eq!(hits(&found), vec![(session_id(1), 2)]);
    assert!(read_hit(&env, &session_id(1), 2, None).contains("axolotl"));

    // The newline arrives, then another line: each event once, none lost.
    append(&path, "\n");
    assert_eq!(
        hits(&search_settling(&env, 0, "axolotl").0),
        vec![(session_id(1), 2)]
    );
    let before = s.text();
    s.assistant("an axolotl answer");
    append(&path, &s.text()[before.len()..]);
    let (all, _) = search_settling(&env, 0, "axolotl");
    assert_eq!(
        sorted(hits(&all)),
        vec![(session_id(1), 2), (session_id(1), 3)]
    );
    let (stable, _) = search_settling(&env, 0, "stable");
    assert_eq!(hits(&stable), vec![(session_id(1), 1)]);
    assert_eq!(index(&env)["events"], 3);
}

/// Hits in session and seq order: which of equal events ranks first is ranking's business.
fn sorted(mut hits: Vec<(String, u64)>) -> Vec<(String, u64)> {
    hits.sort();
    hits
}

#[test]
fn a_settled_last_line_followed_by_more_lines_in_one_append_is_indexed_once() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the unterminated capybara");
    let path = write_pi_session(&env, &project, &s);
    let full = s.text();
    std::fs::write(&path, full.trim_end_matches('\n')).unwrap();
    assert_eq!(search_settling(&env, 0, "capybara").1, 0);
    let before = s.text();
    s.assistant("a capybara reply");
    s.user("a capybara question");
    append(&path, &format!("\n{}", &s.text()[before.len()..]));
    let (all, _) = search_settling(&env, 0, "capybara");
    assert_eq!(
        sorted(hits(&all)),
        vec![(session_id(1), 1), (session_id(1), 2), (session_id(1), 3)]
    );
    assert_eq!(index(&env)["events"], 3);
}

#[test]
fn a_twenty_megabyte_tool_output_line_is_indexed_and_found() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("dump the big log");
    s.assistant_with_calls("", &[("c1", "bash", r#"{"command":"cat big.log"}"#)]);
    let mut output = String::from("firstmarker\n");
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    let mut i = 0;
    while output.len() < 20 << 20 {
        // Escapes too: the output is decoded where it lies.
        output.push_str(&format!("{}{} \"q\"\t", words[i % words.len()], i % 500));
        if i == 1_000_000 {
            output.push_str("middlemarker é ");
        }
        i += 1;
    }
    output.push_str("\nlastmarker");
    s.tool_result("c1", "bash", &output, false);
    write_pi_session(&env, &project, &s);

    assert_eq!(index(&env)["events"], 3);
    for word in ["firstmarker", "middlemarker", "lastmarker", "charlie8"] {
        let result = search_all(&env, &[word]);
        // The call's event (seq 3), with its output.
        assert_eq!(hits(&result), vec![(session_id(1), 3)], "{word}");
        let content = result["sessions"][0]["hits"][0]["content"]
            .as_str()
            .unwrap();
        assert!(content.contains(word), "{word}: {content}");
    }
}

/// `sessions search --all --json --hits 50 <query>` with the session cache used for every
/// session (no size floor) and the index in `cache`, so that two indexes can be compared.
fn search_cached(env: &TestEnv, cache: &std::path::Path, args: &[&str]) -> Value {
    let output = env
        .cmd()
        .env("PI_CONTEXT_CACHE_DIR", cache)
        .env("PI_CONTEXT_CACHE_MIN_BYTES", "0")
        .args(["sessions", "search", "--all", "--json", "--hits", "50"])
        .args(args)
        .run();
    search_answer(&output).0
}

/// A search's JSON answer and exit code: 0 (hits) or 1 (none); anything else fails the test.
fn search_answer(output: &CommandOutput) -> (Value, i32) {
    assert!(output.code == 0 || output.code == 1, "{output}");
    (output.json(), output.code)
}

/// What a search answers, but its scores, hits by seq: BM25 counts the documents a refresh
/// deleted until their segment is merged, so an index refreshed in place scores a little
/// differently from one built from nothing.
fn answer(mut result: Value) -> Value {
    for session in result["sessions"].as_array_mut().expect("sessions") {
        session.as_object_mut().unwrap().remove("score");
        let hits = session["hits"].as_array_mut().expect("hits");
        for hit in hits.iter_mut() {
            hit.as_object_mut().unwrap().remove("score");
        }
        hits.sort_by_key(|hit| hit["seq"].as_u64());
    }
    result
}

/// A session of 600 turns (several chunks of the session cache) whose second event is a call
/// without its result yet, indexed through the session cache into `incremental`.
struct Indexed {
    env: TestEnv,
    incremental: std::path::PathBuf,
    s: SessionBuilder,
    path: std::path::PathBuf,
}

fn indexed_with_an_open_call() -> Indexed {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let incremental = env.root().join("incremental");
    let mut s = session(1, &project);
    s.user("the osprey question");
    s.assistant_with_calls("", &[("early", "read", r#"{"path":"osprey.md"}"#)]);
    for turn in 0..300 {
        s.user(&format!("turn {turn} about the kestrel"));
        s.assistant(&format!("reply {turn}"));
    }
    let path = write_pi_session(&env, &project, &s);
    search_cached(&env, &incremental, &["osprey"]);
    Indexed {
        env,
        incremental,
        s,
        path,
    }
}

/// The words the appends below bring; each is searched after every append.
const WORDS: [&str; 8] = [
    "osprey", "kestrel", "harrier", "merlin", "hobby", "lanner", "saker", "booted",
];

/// Each of `words`, on both branch settings, is answered from the index in `incremental` as
/// from one built from nothing in `fresh`.
fn assert_answers_as_built_afresh(
    env: &TestEnv,
    incremental: &std::path::Path,
    fresh: &std::path::Path,
    words: &[&str],
    when: &str,
) {
    for word in words {
        for branches in ["current", "all"] {
            let args = [word, "--branches", branches];
            let got = answer(search_cached(env, incremental, &args));
            let expected = answer(search_cached(env, fresh, &args));
            assert_eq!(got, expected, "{when}, {args:?}");
        }
    }
}

/// An append of a megabyte of turns (its documents tokenized on two threads, into two
/// segments) answers every search as a build from nothing does, and so do the small appends
/// after it (one thread again) and the merge of those small segments.
#[test]
fn an_append_indexed_on_two_threads_answers_as_a_fresh_build_does() {
    let mut t = indexed_with_an_open_call();
    let filler = "of the long survey notes ".repeat(12);
    for turn in 0..2_400 {
        let word = WORDS[turn % WORDS.len()];
        t.s.user(&format!("question {turn} about the {word} {filler}"));
        t.s.assistant(&format!("answer {turn} on the {word}"));
    }
    t.s.tool_result("early", "read", "the osprey file at last", false);
    let appended = append_what_is_new(&t.path, &t.s);
    assert!(
        appended > 1 << 20,
        "a megabyte appended, not {appended} bytes"
    );
    let fresh = t.env.root().join("fresh-big");
    assert_answers_as_built_afresh(&t.env, &t.incremental, &fresh, &WORDS, "the large append");
    for step in 0..10 {
        t.s.user(&format!("small step {step} about the saker"));
        append_what_is_new(&t.path, &t.s);
        search_cached(&t.env, &t.incremental, &["saker"]);
    }
    let fresh = t.env.root().join("fresh-small");
    assert_answers_as_built_afresh(&t.env, &t.incremental, &fresh, &WORDS, "the small appends");
}

/// A session grown by appends of every kind (calls, their results many turns later, a
/// branch, a compaction, boot blocks, a name, outputs large enough that the session cache is
/// rewritten several times) is indexed, append after append, through the session cache
/// exactly as a build from nothing indexes it.
#[test]
fn appends_read_through_the_session_cache_index_as_a_fresh_build_does() {
    let Indexed {
        env,
        incremental,
        mut s,
        path,
    } = indexed_with_an_open_call();
    let big = "harrier lines of a long build log ".repeat(50_000);
    let mut steps = 0;
    let check = |s: &SessionBuilder, steps: &mut usize| {
        append_what_is_new(&path, s);
        *steps += 1;
        let fresh = env.root().join(format!("fresh-{steps}"));
        assert_answers_as_built_afresh(
            &env,
            &incremental,
            &fresh,
            &WORDS,
            &format!("step {steps}"),
        );
    };
    s.tool_result("early", "read", "the merlin file", false);
    check(&s, &mut steps);
    s.assistant_with_calls("", &[("late", "bash", r#"{"command":"make hobby"}"#)]);
    s.custom_message("pi-context/boot", "boot notes about the lanner");
    check(&s, &mut steps);
    s.tool_result("late", "bash", &big, false);
    let saker = s.user("after the saker build");
    check(&s, &mut steps);
    let fork = saker.clone();
    s.assistant("an answer about the booted eagle");
    s.entry(
        "session_info",
        serde_json::json!({"name": "kestrel survey"}),
    );
    check(&s, &mut steps);
    s.branch_from(&fork);
    s.compaction("summary: the lanner and the saker");
    s.user(&big.replace("harrier", "hobby"));
    check(&s, &mut steps);
    for round in 0..3 {
        s.assistant(&format!(
            "round {round} {}",
            big.replace("harrier", "merlin")
        ));
        check(&s, &mut steps);
    }
    let sessions = search_cached(&env, &incremental, &["kestrel"]);
    assert_eq!(
        sessions["sessions"][0]["name"], "kestrel survey",
        "{sessions}"
    );
    // A line that repeats the id of an entry on the branch (the later line wins), so that
    // the stored branch's parents resolve another way.
    let leaf = s.leaf().unwrap().to_string();
    s.raw_line(&format!(
        r#"{{"type":"message","id":"{saker}","parentId":"{leaf}","timestamp":"2026-03-01T10:00:00.000Z","message":{{"role":"user","content":[{{"type":"text","text":"the saker again"}}]}}}}"#
    ));
    check(&s, &mut steps);
}

/// The byte offset of the first entry chunk in a session cache index (`.idx`): the chunks come
/// last, right after each chunk's end (8 bytes), the last of which is the length of the
/// chunks; the one offset where those 8 bytes say so.
fn first_chunk_offset(index: &[u8]) -> usize {
    const HEADER: usize = 20;
    let starts: Vec<usize> = (HEADER + 8..=index.len())
        .filter(|&start| {
            let last_end = u64::from_le_bytes(index[start - 8..start].try_into().unwrap());
            last_end > 0 && start as u64 + last_end == index.len() as u64
        })
        .collect();
    assert_eq!(starts.len(), 1, "the layout of a session index: {starts:?}");
    starts[0]
}

/// The refresh reads a grown session through its session cache index, decoding only the
/// entries it reaches. Here the index's first chunk is corrupt and the append gives a call in
/// that chunk its result, so the refresh reaches it: it must index what a build from nothing
/// indexes (the call's arguments and its output), never the stand-ins of a corrupt chunk.
#[test]
fn an_append_that_reaches_a_corrupt_chunk_of_the_session_index_indexes_the_real_entries() {
    let Indexed {
        env,
        incremental,
        mut s,
        path,
    } = indexed_with_an_open_call();
    let sessions_cache = incremental.join("sessions");
    let index = std::fs::read_dir(&sessions_cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "idx"))
        .expect("a session index");
    let mut bytes = std::fs::read(&index).unwrap();
    let first = first_chunk_offset(&bytes);
    bytes[first..first + 24].fill(0xff);
    std::fs::write(&index, &bytes).unwrap();

    let before = s.text();
    s.tool_result("early", "read", "the merlin file", false);
    append(&path, &s.text()[before.len()..]);
    for word in ["osprey", "merlin", "kestrel"] {
        let got = answer(search_cached(&env, &incremental, &[word]));
        let fresh = env.root().join(format!("fresh-{word}"));
        let expected = answer(search_cached(&env, &fresh, &[word]));
        assert_eq!(got, expected, "'{word}'");
    }
    let osprey = answer(search_cached(&env, &incremental, &["osprey"]));
    let call = &osprey["sessions"][0]["hits"][1];
    assert_eq!(call["role"], "tool", "{osprey}");
    let document = call["content"].as_str().unwrap();
    assert!(
        document.contains("osprey.md") && document.contains("the merlin file"),
        "the call's arguments and its output: {osprey}"
    );
}

/// A rewind to the start of a session whose turns each left an abandoned side branch moves
/// every turn off the default branch, in seqs scattered between the side branches' (a hundred
/// runs): the file's documents are then replaced, and the index answers as a build from
/// nothing does, on both branch settings.
#[test]
fn a_rewind_past_many_abandoned_branches_indexes_as_a_fresh_build_does() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let incremental = env.root().join("incremental");
    let mut s = session(1, &project);
    let root = s.user("the osprey question");
    for turn in 0..100 {
        let main = s.assistant(&format!("turn {turn} on the kestrel path"));
        s.user(&format!("side {turn} about the merlin, abandoned"));
        s.branch_from(&main);
    }
    s.user("the last kestrel turn");
    let path = write_pi_session(&env, &project, &s);
    search_cached(&env, &incremental, &["kestrel"]);
    let before = std::fs::read_to_string(&path).unwrap();
    s.branch_from(&root);
    s.assistant("rewound to the osprey, now about the saker");
    append(&path, &s.text()[before.len()..]);

    let current = search_cached(&env, &incremental, &["kestrel", "--branches", "current"]);
    assert!(
        current["sessions"].as_array().unwrap().is_empty(),
        "{current}"
    );
    let fresh = env.root().join("fresh");
    let words = ["osprey", "kestrel", "merlin", "saker"];
    assert_answers_as_built_afresh(&env, &incremental, &fresh, &words, "after the rewind");
    let all = search_cached(&env, &incremental, &["kestrel", "--branches", "all"]);
    assert_eq!(
        all["sessions"][0]["hits"].as_array().unwrap().len(),
        50,
        "{all}"
    );
}

/// What a search answers, as `answer`, with its sessions in id order: two indexes built in
/// different steps may order sessions of equal score differently.
/// How many segments the last commit of the index under the cache directory `cache` has.
fn segments_in(cache: &std::path::Path) -> usize {
    let recall = cache.join("recall");
    let current = std::fs::read_to_string(recall.join("current")).unwrap();
    let meta = std::fs::read_to_string(recall.join(current.trim()).join("meta.json")).unwrap();
    let meta: Value = serde_json::from_str(&meta).unwrap();
    meta["segments"].as_array().unwrap().len()
}

fn answer_by_id(result: Value) -> Value {
    let mut result = answer(result);
    result["sessions"]
        .as_array_mut()
        .expect("sessions")
        .sort_by(|a, b| a["session_id"].as_str().cmp(&b["session_id"].as_str()));
    result
}

/// A refresh that reads more than 32 MB reads the session files on several threads, ahead of
/// the writer, which takes each file's documents in the files' order. Forty sessions of
/// different sizes, each with its own word, a call and its result, a branch and a secret,
/// indexed in one such refresh, answer every search as the same sessions indexed eight at a
/// time (refreshes that read on one thread).
#[test]
fn a_large_build_read_on_several_threads_answers_as_small_refreshes_do() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let stepwise = env.root().join("stepwise");
    let threaded = env.root().join("threaded");
    let filler = "the kestrel hovers over the field while the build runs again ".repeat(400);
    let mut total = 0;
    for n in 1..=40u32 {
        let mut s = session(n, &project);
        let root = s.user(&format!("session {n}: the word{n} question"));
        s.assistant_with_calls("", &[(&format!("c{n}"), "read", r#"{"path":"a.md"}"#)]);
        s.tool_result(
            &format!("c{n}"),
            "read",
            &format!("result{n} of the read"),
            false,
        );
        // From 0.2 to 1.2 MB, and one of 10 MB.
        let turns = 8 + (n as usize * 7) % 40 + if n == 20 { 400 } else { 0 };
        for turn in 0..turns {
            s.assistant(&format!("turn {turn} of {n}: {filler}"));
            s.user(&format!("go on {turn}"));
        }
        s.user(&format!(
            "the key is sk-ant-api03-{n:04}aQ7fZ2xK9mB4nR8tW1yE6uJ3pL0vC5sD"
        ));
        s.branch_from(&root);
        s.assistant(&format!("rewound: the branch{n} answer"));
        total += write_pi_session(&env, &project, &s)
            .metadata()
            .unwrap()
            .len();
        if n % 8 == 0 {
            search_cached(&env, &stepwise, &["kestrel"]);
        }
    }
    assert!(
        total > 33 << 20,
        "the sessions hold {total} bytes, not a large refresh"
    );
    search_cached(&env, &threaded, &["kestrel"]);
    assert_eq!(
        segments_in(&threaded),
        1,
        "the build's segments (one per writer thread) are merged"
    );

    let mut words = vec!["kestrel".to_string(), "kestrel hovers".to_string()];
    for n in [1, 9, 20, 40] {
        words.extend([
            format!("word{n}"),
            format!("result{n}"),
            format!("branch{n}"),
        ]);
    }
    words.push("sk-ant-api03-0007aQ7fZ2xK9mB4nR8tW1yE6uJ3pL0vC5sD".into());
    for word in &words {
        for branches in ["current", "all"] {
            let args = [word.as_str(), "--branches", branches, "--limit", "50"];
            let got = answer_by_id(search_cached(&env, &threaded, &args));
            let expected = answer_by_id(search_cached(&env, &stepwise, &args));
            assert_eq!(got, expected, "{args:?}");
        }
    }
    let args = ["kestrel", "--branches", "all", "--limit", "50"];
    let all = answer_by_id(search_cached(&env, &threaded, &args));
    assert_eq!(all["sessions"].as_array().unwrap().len(), 40, "{all}");
    assert_eq!(all["indexed_sessions"], 40, "{all}");
    let word = search_cached(&env, &threaded, &["word20"]);
    assert_eq!(ids(&word), [session_id(20)], "{word}");
    let secret = search_cached(&env, &threaded, &["0007aQ7fZ2xK9mB4nR8tW1yE6uJ3pL0vC5sD"]);
    assert!(
        secret["sessions"].as_array().unwrap().is_empty(),
        "{secret}"
    );
}

// ---- What a search looks at (docs/recall.md, "Incremental refresh"). The settling time is 0
// so that the index records its directories at once; `PI_CONTEXT_RECALL_CHECKS` (`HOT,SWEEP`)
// says how many recently changed files a search looks at and how many of the others in turn.

/// `sessions search --all --json --hits 10 QUERY` looking at `checks` files beside the
/// directories that changed.
fn search_checking(env: &TestEnv, checks: &str, query: &str) -> Value {
    let output = env
        .cmd()
        .env("PI_CONTEXT_SETTLE_MS", "0")
        .env("PI_CONTEXT_RECALL_CHECKS", checks)
        .args([
            "sessions", "search", "--all", "--json", "--hits", "10", query,
        ])
        .run();
    search_answer(&output).0
}

/// `sessions index --json` with the settling time 0 (it looks at every file).
fn index_settled(env: &TestEnv) -> Value {
    env.cmd()
        .env("PI_CONTEXT_SETTLE_MS", "0")
        .args(["sessions", "index", "--json"])
        .run()
        .success()
        .json()
}

/// Three sessions in one project's directory, indexed, each with its own word and `common`;
/// their files in the order written (the last is the most recently changed).
fn three_indexed(env: &TestEnv) -> Vec<(std::path::PathBuf, SessionBuilder)> {
    let project = project_dir(env, "alpha");
    let written = ["heron", "egret", "stork"]
        .iter()
        .enumerate()
        .map(|(n, word)| {
            let mut s = session(n as u32 + 1, &project);
            s.user(&format!("common words about the {word}"));
            (write_pi_session(env, &project, &s), s)
        })
        .collect();
    assert_eq!(index_settled(env)["sessions"], 3);
    written
}

/// Appends a user message to a written session.
fn append_user(written: &mut (std::path::PathBuf, SessionBuilder), text: &str) {
    let (path, s) = written;
    s.user(text);
    append_what_is_new(path, s);
}

fn found_ids(result: &Value) -> Vec<String> {
    let mut found = ids(result);
    found.sort();
    found
}

#[test]
fn a_warm_search_looks_only_at_the_hot_files_and_finds_their_append() {
    let env = TestEnv::new();
    let mut files = three_indexed(&env);
    let result = search_checking(&env, "1,0", "common");
    assert_eq!(result["sessions"].as_array().unwrap().len(), 3, "{result}");
    // Of three files in an unchanged directory, only the one changed last is looked at.
    assert_eq!(result["files_checked"], 1, "{result}");
    append_user(&mut files[2], "an appended flamingo");
    let found = search_checking(&env, "1,0", "flamingo");
    assert_eq!(ids(&found), vec![session_id(3)], "{found}");
    assert_eq!(found["files_checked"], 1);
    // Without the test hook, nothing is reported.
    assert!(search_all(&env, &["common"]).get("files_checked").is_none());
}

#[test]
fn a_rewrite_of_a_hot_file_or_a_replaced_cold_one_is_found_by_the_next_search() {
    let env = TestEnv::new();
    let files = three_indexed(&env);
    // In place, the file changed last (looked at on every search).
    let text = std::fs::read_to_string(&files[2].0)
        .unwrap()
        .replace("stork", "crane");
    std::fs::write(&files[2].0, text).unwrap();
    assert_eq!(
        ids(&search_checking(&env, "1,0", "crane")),
        vec![session_id(3)]
    );
    assert!(ids(&search_checking(&env, "1,0", "stork")).is_empty());
    // Replaced by a new file renamed over it (a new inode: its directory changes), a cold one.
    let text = std::fs::read_to_string(&files[0].0)
        .unwrap()
        .replace("heron", "ibis");
    let temporary = files[0].0.with_extension("tmp");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, &files[0].0).unwrap();
    assert_eq!(
        ids(&search_checking(&env, "0,0", "ibis")),
        vec![session_id(1)]
    );
    assert!(ids(&search_checking(&env, "0,0", "heron")).is_empty());
}

#[test]
fn a_new_file_in_an_old_directory_is_found_by_the_next_search() {
    let env = TestEnv::new();
    three_indexed(&env);
    let project = env.work().join("alpha");
    let mut s = session(4, &project);
    s.user("common words about the pelican");
    write_pi_session(&env, &project, &s);
    let found = search_checking(&env, "0,0", "pelican");
    assert_eq!(ids(&found), vec![session_id(4)], "{found}");
    assert_eq!(found["indexed_sessions"], 4);
}

#[test]
fn a_deleted_or_renamed_file_is_seen_by_the_next_search() {
    let env = TestEnv::new();
    let files = three_indexed(&env);
    std::fs::remove_file(&files[0].0).unwrap();
    let result = search_checking(&env, "0,0", "common");
    assert_eq!(
        found_ids(&result),
        vec![session_id(2), session_id(3)],
        "{result}"
    );
    assert_eq!(result["indexed_sessions"], 2);
    let renamed = files[1]
        .0
        .with_file_name("2026-03-02T09-00-00-000Z_renamed.jsonl");
    std::fs::rename(&files[1].0, &renamed).unwrap();
    let result = search_checking(&env, "0,0", "egret");
    assert_eq!(result["indexed_sessions"], 2);
    assert_eq!(
        result["sessions"][0]["session_file"],
        renamed.to_str().unwrap(),
        "{result}"
    );
}

/// The cold file's case: an append to a file neither changed recently nor live is found by the
/// sweep (each search looks at the next `SWEEP` of the others), by `sessions index`, and at once
/// by a search from that session.
#[test]
fn an_append_to_a_cold_file_is_found_by_the_sweep_within_as_many_searches_as_files() {
    let env = TestEnv::new();
    let mut files = three_indexed(&env);
    append_user(&mut files[0], "an appended spoonbill");
    let mut found_after = None;
    for search in 1..=3 {
        let result = search_checking(&env, "0,1", "spoonbill");
        assert_eq!(result["files_checked"], 1, "{result}");
        if ids(&result) == vec![session_id(1)] {
            found_after = Some(search);
            break;
        }
    }
    assert!(found_after.is_some(), "not found within 3 searches");
}

#[test]
fn an_append_to_a_cold_file_waits_for_sessions_index_when_nothing_is_swept() {
    let env = TestEnv::new();
    let mut files = three_indexed(&env);
    append_user(&mut files[0], "an appended avocet");
    // No file looked at: the append is not seen (this is what a search trades for not looking
    // at every file), and the file was not even opened for a stat.
    let missed = search_checking(&env, "0,0", "avocet");
    assert!(ids(&missed).is_empty(), "{missed}");
    assert_eq!(missed["files_checked"], 0);
    index_settled(&env);
    assert_eq!(
        ids(&search_checking(&env, "0,0", "avocet")),
        vec![session_id(1)]
    );
}

#[test]
fn an_append_to_a_cold_file_is_found_by_a_search_from_its_live_session() {
    let env = TestEnv::new();
    let mut files = three_indexed(&env);
    append_user(&mut files[0], "an appended curlew");
    let request = serde_json::json!({
        "params": {"query": "curlew", "scope": "all"},
        "context": {"session_file": files[0].0.to_str().unwrap(), "session_id": session_id(1)},
    });
    let vars = [
        ("PI_CONTEXT_SETTLE_MS", "0"),
        ("PI_CONTEXT_RECALL_CHECKS", "0,0"),
    ];
    let response = env.tool_with_env(&vars, "sessions_search", &request);
    let result: Value = serde_json::from_str(response["text"].as_str().unwrap()).unwrap();
    assert_eq!(ids(&result), vec![session_id(1)], "{response}");
    assert_eq!(result["files_checked"], 1);
}

/// Whatever stands in place of the sweep's position file (a FIFO, whose reading could block; a
/// link to a file elsewhere; a directory; garbage; a number too large) neither holds a search up
/// nor is written through, and the sweep still reaches every file in turn.
#[test]
fn the_sweep_goes_on_whatever_stands_in_place_of_its_position_file() {
    let env = TestEnv::new();
    let mut files = three_indexed(&env);
    let cursor = env.home().join(".cache/pi-context/recall/sweep");
    let outside = env.home().join("outside.txt");
    std::fs::write(&outside, "1").unwrap();
    let rounds = [
        ("fifo", "ibis"),
        ("link", "crane"),
        ("directory", "rail"),
        ("garbage", "coot"),
        ("too large", "grebe"),
        ("link", "plover"),
    ];
    for (round, (kind, word)) in rounds.iter().enumerate() {
        match std::fs::symlink_metadata(&cursor) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&cursor).unwrap(),
            Ok(_) => std::fs::remove_file(&cursor).unwrap(),
            Err(_) => {}
        }
        match *kind {
            "fifo" => assert!(std::process::Command::new("mkfifo")
                .arg(&cursor)
                .status()
                .unwrap()
                .success()),
            "link" => std::os::unix::fs::symlink(&outside, &cursor).unwrap(),
            "directory" => std::fs::create_dir_all(cursor.join("inside")).unwrap(),
            "garbage" => std::fs::write(&cursor, b"\xff\xfe not a number").unwrap(),
            _ => std::fs::write(&cursor, "9".repeat(100_000)).unwrap(),
        }
        // Each round's word goes to the next file, so a sweep stuck at its start misses some.
        let file = round % files.len();
        append_user(&mut files[file], &format!("an appended {word}"));
        let found = (1..=files.len()).any(|_| {
            let result = search_checking(&env, "0,1", word);
            assert_eq!(result["files_checked"], 1, "{kind}: {result}");
            ids(&result) == vec![session_id(file as u32 + 1)]
        });
        assert!(
            found,
            "{kind}: {word} not found by the sweep within as many searches as files"
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "1", "{kind}");
        let kept = std::fs::symlink_metadata(&cursor).unwrap();
        assert!(kept.is_file(), "{kind}: the position is a file again");
    }
}
