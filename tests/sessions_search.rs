//! `pi-context sessions search`: ranking, opening hits, branches, scope, since, roles, phrases,
//! diacritics and query syntax taken literally.

use crate::common;

use common::recall::{
    hits, ids, json_in, project_dir, read_hit, search_all, session_id, write_pi_session,
};
use common::session::SessionBuilder;
use common::TestEnv;
use serde_json::{json, Value};

fn session(n: u32, cwd: &std::path::Path) -> SessionBuilder {
    SessionBuilder::with_id(&session_id(n)).cwd(&cwd.to_string_lossy())
}

#[test]
fn the_session_holding_every_word_ranks_first() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    // Two sessions say one of the words, many times; one says both, once.
    let mut only_deploy = session(1, &project);
    for _ in 0..6 {
        only_deploy.user("deploy deploy deploy the service");
    }
    write_pi_session(&env, &project, &only_deploy);
    let mut only_flaky = session(2, &project);
    for _ in 0..6 {
        only_flaky.user("flaky flaky test again");
    }
    write_pi_session(&env, &project, &only_flaky);
    let mut both = session(3, &project).time_offset(-40 * 86_400);
    both.user("the unrelated start");
    both.assistant("the flaky deploy was the cause");
    write_pi_session(&env, &project, &both);

    let result = search_all(&env, &["flaky deploy"]);
    assert_eq!(ids(&result)[0], session_id(3), "{result}");
    assert_eq!(
        ids(&result).len(),
        3,
        "sessions with one word still appear below"
    );
    assert_eq!(result["indexed_sessions"], 3);
    assert_eq!(result["stale"], false);
    assert_eq!(result["unreadable"], 0);
}

#[test]
fn a_hit_opens_with_history_read_to_text_that_holds_the_match() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("how do we rotate the credentials?");
    s.assistant_with_calls(
        "",
        &[("c1", "bash", r#"{"command":"grep -r Quetzalcoatl ."}"#)],
    );
    s.tool_result(
        "c1",
        "bash",
        &format!("{}found QUETZALCOATL here", "x ".repeat(300)),
        false,
    );
    write_pi_session(&env, &project, &s);

    let result = search_all(&env, &["quetzalcoatl"]);
    let session = &result["sessions"][0];
    let hit = &session["hits"][0];
    assert_eq!(hit["role"], "tool");
    assert_eq!(hit["seq"], 3, "the call's seq, as history gives it: {hit}");
    assert!(hit["leaf_id"].is_null());
    assert_eq!(hit["on_branch"], true);
    let content = hit["content"].as_str().unwrap();
    assert!(content.to_lowercase().contains("quetzalcoatl"), "{content}");
    // Open it by the id's prefix: the full text holds the match at offset_chars onwards.
    let id = session["session_id"].as_str().unwrap();
    let text = read_hit(&env, &id[..13], 3, None);
    let offset = hit["offset_chars"].as_u64().unwrap() as usize;
    let from: String = text.chars().skip(offset).collect();
    assert!(
        from.starts_with(content),
        "preview is the text at offset_chars"
    );
    assert_eq!(
        hit["total_chars"].as_u64().unwrap() as usize,
        text.chars().count()
    );
    assert_eq!(hit["truncated"], true);
}

#[test]
fn abandoned_branches_only_with_branches_all_and_open_through_their_leaf() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    let root = s.user("start here");
    s.assistant("the abandoned idea: use a zeppelin");
    s.user("no, go back");
    s.branch_from(&root);
    s.assistant("the current plan: a bicycle");
    let path = write_pi_session(&env, &project, &s);

    let current = search_all(&env, &["zeppelin"]);
    assert!(ids(&current).is_empty(), "{current}");
    let all = search_all(&env, &["zeppelin", "--branches", "all"]);
    let hit = &all["sessions"][0]["hits"][0];
    assert_eq!(hit["on_branch"], false);
    assert_eq!(hit["seq"], 2);
    let leaf = hit["leaf_id"]
        .as_str()
        .expect("an abandoned hit has a leaf");
    let id = session_id(1);
    let text = read_hit(&env, &id, 2, Some(leaf));
    assert!(text.contains("zeppelin"));
    // Without the leaf, the default branch refuses the seq.
    env.cmd()
        .args(["history", "read", "2", "--session"])
        .arg(&path)
        .assert()
        .code(2);
    // The current branch's text is found without --branches.
    assert_eq!(hits(&search_all(&env, &["bicycle"])), vec![(id, 4)]);
}

#[test]
fn scope_is_the_current_project_unless_all() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    let beta = project_dir(&env, "beta");
    let mut a = session(1, &alpha);
    a.user("pelican notes for alpha");
    write_pi_session(&env, &alpha, &a);
    let mut b = session(2, &beta);
    b.user("pelican notes for beta, pelican pelican");
    write_pi_session(&env, &beta, &b);

    let (in_alpha, _) = json_in(&env, &alpha, &["sessions", "search", "pelican"]);
    assert_eq!(ids(&in_alpha), vec![session_id(1)]);
    let (by_cwd, _) = json_in(
        &env,
        &env.work(),
        &[
            "sessions",
            "search",
            "pelican",
            "--cwd",
            beta.to_str().unwrap(),
        ],
    );
    assert_eq!(ids(&by_cwd), vec![session_id(2)]);
    let key = in_alpha["sessions"][0]["project_key"]
        .as_str()
        .unwrap()
        .to_string();
    let (by_key, _) = json_in(
        &env,
        &beta,
        &["sessions", "search", "pelican", "--project-key", &key],
    );
    assert_eq!(ids(&by_key), vec![session_id(1)]);
    // Under --all the current project's session is boosted over a better match elsewhere.
    let (all, _) = json_in(&env, &alpha, &["sessions", "search", "pelican", "--all"]);
    assert_eq!(ids(&all), vec![session_id(1), session_id(2)]);
    let (all_from_beta, _) = json_in(&env, &beta, &["sessions", "search", "pelican", "--all"]);
    assert_eq!(ids(&all_from_beta)[0], session_id(2));
}

#[test]
fn since_keeps_recent_hits_and_drops_sessions_without_any() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut old = session(1, &project).time_offset(-10 * 86_400);
    old.user("walrus migration plan");
    write_pi_session(&env, &project, &old);
    let mut recent = session(2, &project).time_offset(-3600);
    recent.user("walrus follow-up");
    write_pi_session(&env, &project, &recent);

    assert_eq!(ids(&search_all(&env, &["walrus"])).len(), 2);
    assert_eq!(
        ids(&search_all(&env, &["walrus", "--since", "2d"])),
        vec![session_id(2)]
    );
    assert_eq!(
        ids(&search_all(
            &env,
            &["walrus", "--since", "2026-02-01T00:00:00Z"]
        ))
        .len(),
        2
    );
    let (_, code) = json_in(
        &env,
        &env.work(),
        &["sessions", "search", "--all", "walrus", "--since", "30m"],
    );
    assert_eq!(code, 1, "nothing that recent");
}

#[test]
fn role_filters_events() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the narwhal question");
    s.assistant("the narwhal answer");
    write_pi_session(&env, &project, &s);
    let user = search_all(&env, &["narwhal", "--role", "user"]);
    assert_eq!(hits(&user), vec![(session_id(1), 1)]);
    let assistant = search_all(&env, &["narwhal", "--role", "assistant"]);
    assert_eq!(hits(&assistant), vec![(session_id(1), 2)]);
    assert!(ids(&search_all(&env, &["narwhal", "--role", "tool"])).is_empty());
}

/// A quoted phrase is a boost, not a filter (CONTRACT §10.7): the event holding it as written
/// ranks first, one holding its words apart still matches.
#[test]
fn quoted_text_ranks_the_phrase_first_and_keeps_its_words() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("code exit order differs");
    s.user("the exit code was 137");
    s.user("code exit again, in that order");
    write_pi_session(&env, &project, &s);
    let phrase = search_all(&env, &["\"exit code\"", "--hits", "3"]);
    assert_eq!(hits(&phrase)[0], (session_id(1), 2), "{phrase}");
    assert_eq!(hits(&phrase).len(), 3, "{phrase}");
    let words = search_all(&env, &["exit code", "--hits", "3"]);
    assert_eq!(hits(&words).len(), 3);
}

#[test]
fn diacritics_and_case_fold_both_ways() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("meet at the Café Zürich");
    s.user("the cafe in zurich is closed");
    write_pi_session(&env, &project, &s);
    assert_eq!(hits(&search_all(&env, &["cafe"])).len(), 2);
    assert_eq!(hits(&search_all(&env, &["CAFÉ zürich"])).len(), 2);
    let hit = &search_all(&env, &["zurich", "--role", "user"])["sessions"][0]["hits"];
    let contents: Vec<&str> = hit
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["content"].as_str().unwrap())
        .collect();
    assert!(
        contents.iter().any(|c| c.contains("Zürich")),
        "{contents:?}"
    );
}

#[test]
fn query_syntax_characters_are_ordinary_text() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("set title:foo AND (bar*) in the config");
    write_pi_session(&env, &project, &s);
    for query in ["title:foo", "AND", "(bar*)", "foo AND bar", "*", "title:"] {
        let output = env
            .cmd()
            .args(["sessions", "search", "--all", "--json", query])
            .output()
            .unwrap();
        let code = output.status.code().unwrap();
        if query == "*" {
            assert_eq!(code, 2, "a query without a word is refused, not a wildcard");
            continue;
        }
        assert_eq!(
            code,
            0,
            "{query}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(hits(&value), vec![(session_id(1), 1)], "{query}");
    }
}

#[test]
fn several_queries_are_alternatives() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut a = session(1, &project);
    a.user("about the heron");
    write_pi_session(&env, &project, &a);
    let mut b = session(2, &project);
    b.user("about the osprey");
    write_pi_session(&env, &project, &b);
    let result = search_all(&env, &["heron", "osprey"]);
    let mut found = ids(&result);
    found.sort();
    assert_eq!(found, vec![session_id(1), session_id(2)]);
}

#[test]
fn boot_blocks_are_not_indexed_but_other_context_is() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.custom_message("pi-context/boot", "boot block mentions albatross");
    s.custom_message("pi-context/continuation", "continue albatross");
    s.compaction("summary mentions albatross");
    write_pi_session(&env, &project, &s);
    let result = search_all(&env, &["albatross"]);
    let found = hits(&result);
    assert_eq!(found, vec![(session_id(1), 3)], "{result}");
    assert_eq!(result["sessions"][0]["hits"][0]["role"], "context");
}

#[test]
fn human_output_ranks_sessions_and_says_how_to_open_each_hit() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.entry(
        "session_info",
        serde_json::json!({"name": "Kingfisher work"}),
    );
    s.user("where is the kingfisher module");
    write_pi_session(&env, &project, &s);
    let output = env
        .cmd()
        .args(["sessions", "search", "--all", "kingfisher"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("Kingfisher work"), "{text}");
    assert!(
        text.contains("pi-context history read 1 --session 0192aaaa"),
        "{text}"
    );
    assert!(text.contains("2026-03-01 09:00"), "{text}");
    // No hit: exit 1 and a plain message.
    let none = env
        .cmd()
        .args(["sessions", "search", "--all", "nothinglikethis"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
    let text = String::from_utf8_lossy(&none.stdout);
    assert!(text.contains("no matches"), "{text}");
}

#[test]
fn every_printed_open_command_opens_its_hit_even_without_a_unique_id_prefix() {
    // A forked or copied session shares its id with another file, and an id may be shorter
    // than the 8 characters a prefix needs: then the command names the file, quoted for the
    // shell where its path needs it.
    let env = TestEnv::new();
    let original = project_dir(&env, "alpha");
    let copied = project_dir(&env, "beta project");
    for (cwd, text) in [(&original, "pelican original"), (&copied, "pelican copy")] {
        let mut s = session(1, cwd);
        s.user(text);
        write_pi_session(&env, cwd, &s);
    }
    let mut short = SessionBuilder::with_id("abc12").cwd(&original.to_string_lossy());
    short.user("pelican short");
    write_pi_session(&env, &original, &short);

    let output = env
        .cmd()
        .args(["sessions", "search", "--all", "pelican"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim_start).collect();
    let opened: Vec<(&str, &str)> = lines
        .windows(2)
        .filter_map(|pair| Some((pair[0], pair[1].strip_prefix("→ ")?)))
        .collect();
    assert_eq!(opened.len(), 3, "{text}");
    for (preview, command) in opened {
        let output = env.shell(&format!("{command} --json")).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let read: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(read["content"], preview, "{command} opens its own hit");
    }
}

#[test]
fn real_fixture_sessions_are_searchable_and_hits_open() {
    let env = TestEnv::new();
    let dir = common::recall::sessions_root(&env).join("--fixtures--");
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "pi-mono-before-compaction.jsonl",
        "pi-mono-large-session.jsonl",
        "kuato-pi-session.jsonl",
        "episodic-memory-pi-session.jsonl",
    ] {
        std::fs::copy(common::fixture(&format!("sessions/{name}")), dir.join(name)).unwrap();
    }
    let result = search_all(&env, &["compaction", "--limit", "8", "--hits", "3"]);
    assert_eq!(result["indexed_sessions"], 4);
    assert!(!ids(&result).is_empty());
    for session in result["sessions"].as_array().unwrap() {
        let id = session["session_id"].as_str().unwrap();
        for hit in session["hits"].as_array().unwrap() {
            let seq = hit["seq"].as_u64().unwrap();
            let text = read_hit(&env, id, seq, hit["leaf_id"].as_str());
            // "compaction", "compacted", "compact": one stem.
            assert!(text.to_lowercase().contains("compact"), "{id} {seq}");
        }
    }
}

/// A search hit inside a huge tool output (issue 38, item 10): the hit is rebuilt and previewed
/// for about twice the event's size in memory, as `history read` of it costs; collecting every
/// token of the document first cost ten times the event (2 GB for a 200 MB output).
#[test]
fn a_hit_inside_a_huge_tool_output_costs_about_twice_the_event_in_memory() {
    const OUTPUT_BYTES: usize = 32 << 20;
    let env = TestEnv::new();
    let cwd = env.work();
    let projects = env.root().join("claude-projects");
    let words = [
        "alpha", "beta", "gamma", "delta", "log", "line", "error", "value",
    ];
    let mut output = String::with_capacity(OUTPUT_BYTES + 64);
    let mut n = 0usize;
    while output.len() < OUTPUT_BYTES / 2 {
        output.push_str(words[n % words.len()]);
        output.push_str(&(n % 997).to_string());
        output.push(if n % 16 == 15 { '\n' } else { ' ' });
        n += 1;
    }
    output.push_str("the zanzibarneedle was found here\n");
    let half = output.len();
    output.extend_from_within(..half - 34);
    let id = "4a5e0000-1111-4aaa-8bbb-000000000010";
    let record = |value: serde_json::Value| serde_json::to_string(&value).unwrap() + "\n";
    let mut text = record(
        json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId":id,
        "cwd":cwd,"timestamp":"2026-02-01T10:00:00Z",
        "message":{"role":"user","content":"print the big log"}}),
    );
    text += &record(
        json!({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":id,
        "timestamp":"2026-02-01T10:00:01Z","message":{"role":"assistant","content":[
            {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat big.log"}}]}}),
    );
    text += &record(
        json!({"type":"user","uuid":"u2","parentUuid":"a1","sessionId":id,
        "timestamp":"2026-02-01T10:00:02Z","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":output}]}}),
    );
    drop(output);
    common::other_agents::write(&projects.join("-work").join(format!("{id}.jsonl")), &text);
    let event_bytes = text.len() as u64;
    drop(text);
    let claude_dir = projects.to_string_lossy().into_owned();
    let base = ["--all", "--claude-dir", &claude_dir, "--harness", "claude"];
    // Stamps are trusted at once (no settling time), so the search only reads the hit.
    env.cmd()
        .env("PI_CONTEXT_SETTLE_MS", "0")
        .args(["sessions", "index"])
        .args(&base[1..])
        .assert()
        .success();
    for query in ["zanzibarneedle", "zanzibarneedle \"was found\""] {
        let mut search = env.process();
        search
            .env("PI_CONTEXT_SETTLE_MS", "0")
            .args(["sessions", "search", "--json"])
            .arg(query)
            .args(base)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let (result, peak) = common::peak::run_measured(search);
        assert!(result.status.success(), "{query:?}: {result:?}");
        let found: Value = serde_json::from_slice(&result.stdout).unwrap();
        let hit = &found["sessions"][0]["hits"][0];
        assert!(
            hit["content"].as_str().unwrap().contains("zanzibarneedle"),
            "{query:?}: {hit}"
        );
        assert!(
            peak < 3 * event_bytes + (48 << 20),
            "{query:?}: a search peaked at {} MiB for an event of {} MiB",
            peak >> 20,
            event_bytes >> 20
        );
    }
}
