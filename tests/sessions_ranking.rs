//! `sessions search` skips what cannot enter the top (block-max pruning on a bound of the role,
//! recency and project weights) and counts the rest apart: whatever `--limit` asks for, the
//! sessions shown, their hits and `more` must be those of the search that ranks everything.

use crate::common;

use common::recall::{json_in, project_dir, session_id, write_pi_session};
use common::session::SessionBuilder;
use common::{Rng, TestEnv};
use serde_json::Value;

const WORDS: [&str; 8] = [
    "amber", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo",
];

/// Words, now and then one of [`WORDS`], so many sessions share scores.
fn text(dice: &mut Rng) -> String {
    let len = 1 + dice.below(12);
    (0..len)
        .map(|_| {
            if dice.below(3) == 0 {
                WORDS[dice.below(WORDS.len())]
            } else {
                "filler"
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Sessions in three projects, of every age (recency), role, length (BM25's length norm) and
/// with abandoned branches, many sharing scores.
fn session(dice: &mut Rng, n: u32, cwd: &std::path::Path) -> SessionBuilder {
    let days_ago = dice.below(90) as i64;
    let mut s = SessionBuilder::with_id(&session_id(n))
        .cwd(&cwd.to_string_lossy())
        .time_offset(-days_ago * 86_400);
    for turn in 0..(1 + dice.below(6)) {
        let asked = s.user(&text(dice));
        s.assistant(&text(dice));
        if dice.below(2) == 0 {
            let call = format!("c{n}-{turn}");
            s.assistant_with_calls("", &[(&call, "bash", r#"{"command":"ls"}"#)]);
            s.tool_result(&call, "bash", &text(dice), false);
        }
        if dice.below(5) == 0 {
            // A rewind: what follows continues from the question, the answer is abandoned.
            s.branch_from(&asked);
            s.assistant(&text(dice));
        }
    }
    s
}

fn search(env: &TestEnv, cwd: &std::path::Path, query: &[&str], limit: usize) -> Value {
    let limit = limit.to_string();
    let mut args = vec!["sessions", "search", "--all", "--hits", "2", "-n", &limit];
    args.extend_from_slice(query);
    json_in(env, cwd, &args).0
}

/// A session as shown: its id, and each hit's seq, score and window.
type Shown = (String, Vec<(u64, String, String)>);

/// The sessions shown, in order, and `more`.
fn shown(result: &Value) -> (Vec<Shown>, u64) {
    let sessions = result["sessions"].as_array().cloned().unwrap_or_default();
    let sessions = sessions
        .iter()
        .map(|s| {
            let hits = s["hits"].as_array().unwrap();
            let hits = hits
                .iter()
                .map(|h| {
                    (
                        h["seq"].as_u64().unwrap(),
                        h["score"].to_string(),
                        h["window_id"].to_string(),
                    )
                })
                .collect();
            (s["session_id"].as_str().unwrap().to_string(), hits)
        })
        .collect();
    (sessions, result["more"].as_u64().unwrap_or(0))
}

fn assert_every_limit_agrees(env: &TestEnv, cwd: &std::path::Path, query: &[&str]) {
    let (everything, none_left) = shown(&search(env, cwd, query, 1000));
    assert_eq!(none_left, 0, "{query:?}");
    assert!(
        everything.len() > 8,
        "{query:?} matches too few sessions to test pruning"
    );
    for limit in [1, 2, 5, 9] {
        let (top, more) = shown(&search(env, cwd, query, limit));
        assert_eq!(top, everything[..limit], "{query:?} --limit {limit}");
        assert_eq!(
            more as usize,
            everything.len() - limit,
            "{query:?} --limit {limit}: more"
        );
    }
}

#[test]
fn the_top_sessions_and_more_do_not_depend_on_the_limit() {
    let env = TestEnv::new();
    let projects = [
        project_dir(&env, "alpha"),
        project_dir(&env, "beta"),
        project_dir(&env, "gamma"),
    ];
    // A fixed seed: the corpus is the same on every run.
    let mut dice = Rng::new(0x9e37_79b9_7f4a_7c15);
    // Two long sessions where one word is in thousands of events: enough matches in a segment
    // for the count to skip counted sessions by their document ranges.
    let mut sessions: Vec<(SessionBuilder, usize)> = Vec::new();
    for n in 0..2u32 {
        let mut long = SessionBuilder::with_id(&session_id(900 + n))
            .cwd(&projects[n as usize].to_string_lossy())
            .time_offset(-(n as i64) * 40 * 86_400);
        for turn in 0..2500 {
            let asked = long.user(&format!("amber turn {turn} {}", text(&mut dice)));
            if turn % 7 == 0 {
                long.assistant("an answer left behind");
                long.branch_from(&asked);
            }
        }
        sessions.push((long, n as usize));
    }
    // Indexed in ten refreshes, sessions growing in between: several segments (merged once
    // there are eight small ones, which splits a grown session's documents into several
    // ranges), and documents deleted when a grown session is indexed again.
    for round in 0..10u32 {
        if round < 3 {
            for n in 0..16u32 {
                let at = (n % 3) as usize;
                sessions.push((session(&mut dice, round * 100 + n, &projects[at]), at));
            }
        }
        for (i, (s, at)) in sessions.iter_mut().enumerate() {
            if (i + round as usize).is_multiple_of(4) {
                s.user(&text(&mut dice));
                s.assistant(&text(&mut dice));
            }
            write_pi_session(&env, &projects[*at], s);
        }
        search(&env, &env.work(), &["amber"], 1);
    }

    let work = env.work();
    for query in [
        &["amber"][..],
        &["cobalt", "--role", "user"],
        &["amber delta"],
        &["amber delta ember"],
        &["\"filler amber\""],
        &["garnet", "harbor indigo"],
        &["fjord", "--branches", "all"],
        &["ember", "--since", "60d"],
    ] {
        assert_every_limit_agrees(&env, &work, query);
        // From a project: its sessions get the project boost.
        assert_every_limit_agrees(&env, &projects[1], query);
    }
}
