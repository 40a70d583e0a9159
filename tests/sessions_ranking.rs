//! `sessions search` skips what cannot enter the top (block-max pruning on a bound of the role,
//! recency and project weights) and counts the rest apart: whatever `--limit` asks for (up to
//! the pool of sessions that compete on their evidence, `CANDIDATE_SESSIONS`), the sessions
//! shown, their hits and `more` must be those of the search that ranks the whole pool.
//!
//! And what a query means (CONTRACT §10.7): a question typed as a person asks it.

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

/// The sessions that compete on their evidence whatever the limit (src/recall/search.rs).
const CANDIDATE_SESSIONS: usize = 24;

fn assert_every_limit_agrees(env: &TestEnv, cwd: &std::path::Path, query: &[&str]) {
    let (pool, left) = shown(&search(env, cwd, query, CANDIDATE_SESSIONS));
    let matching = pool.len() + left as usize;
    assert!(
        pool.len() > 8,
        "{query:?} matches too few sessions to test pruning"
    );
    let (everything, none_left) = shown(&search(env, cwd, query, 1000));
    assert_eq!(none_left, 0, "{query:?}");
    assert_eq!(everything.len(), matching, "{query:?}: every match counted");
    for limit in [1, 2, 5, 9] {
        let (top, more) = shown(&search(env, cwd, query, limit));
        assert_eq!(top, pool[..limit], "{query:?} --limit {limit}");
        assert_eq!(
            more as usize,
            matching - limit,
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

/// The sessions a search shows, by id.
fn session_ids(result: &Value) -> Vec<String> {
    shown(result).0.into_iter().map(|(id, _)| id).collect()
}

fn write(env: &TestEnv, cwd: &std::path::Path, n: u32, turns: &[(&str, &str)]) {
    let mut s = SessionBuilder::with_id(&session_id(n)).cwd(&cwd.to_string_lossy());
    for (user, assistant) in turns {
        s.user(user);
        s.assistant(assistant);
    }
    write_pi_session(env, cwd, &s);
}

/// Stop words and question words never decide a match, and a word matches its other forms:
/// "What did Caroline research?" finds where the assistant said Caroline researched something,
/// not the turns full of "what did it…".
#[test]
fn a_question_typed_as_a_person_asks_it_finds_the_session_that_answers() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    write(
        &env,
        &alpha,
        1,
        &[(
            "remind me about my friends",
            "Caroline researched adoption agencies in Portland last spring.",
        )],
    );
    for n in 2..6 {
        write(
            &env,
            &alpha,
            n,
            &[(
                "What did it look like? What did you do then?",
                "What did it do? It did what it did.",
            )],
        );
    }
    let found = search(&env, &alpha, &["What did Caroline research?"], 3);
    assert_eq!(session_ids(&found)[0], session_id(1), "{found}");
    let hit = &found["sessions"][0]["hits"][0];
    assert_eq!(hit["role"], "assistant", "{found}");
}

/// A word as written ranks above its other forms; both are found.
#[test]
fn exact_forms_rank_above_folded_ones() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    write(&env, &alpha, 1, &[("the upload retry loop", "noted")]);
    write(&env, &alpha, 2, &[("the upload retries loop", "noted")]);
    let found = search(&env, &alpha, &["retries"], 5);
    assert_eq!(
        session_ids(&found),
        [session_id(2), session_id(1)],
        "{found}"
    );
    let found = search(&env, &alpha, &["retry"], 5);
    assert_eq!(
        session_ids(&found),
        [session_id(1), session_id(2)],
        "{found}"
    );
}

/// A component is found by its verb ("compressing" finds the compressor), not every verb by
/// the component; and "waht" typed for "what" decides nothing.
#[test]
fn an_agent_noun_and_its_verb_find_each_other() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    write(&env, &alpha, 1, &[("the compressor drops frames", "noted")]);
    write(&env, &alpha, 2, &[("waht a waht day", "noted")]);
    write(&env, &alpha, 3, &[("we are compressing the logs", "noted")]);
    let found = search(&env, &alpha, &["waht compressing frames"], 5);
    assert_eq!(
        session_ids(&found),
        [session_id(1), session_id(3)],
        "{found}"
    );
    let found = search(&env, &alpha, &["compressor"], 5);
    assert_eq!(session_ids(&found), [session_id(1)], "{found}");
    // Found by the verb alone, the event is shown, the agent noun highlighted.
    let found = search(&env, &alpha, &["compressing"], 5);
    assert_eq!(
        session_ids(&found),
        [session_id(3), session_id(1)],
        "{found}"
    );
    assert_eq!(found["more"], 0, "{found}");
    let hit = &found["sessions"][1]["hits"][0];
    assert_eq!(hit["content"], "the compressor drops frames", "{found}");
}

/// A session ranks by the evidence of all its events: one that holds every word of the
/// question across its turns outranks one whose single best turn holds two of them.
#[test]
fn a_session_holding_the_whole_question_across_its_events_ranks_first() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    // "jitter" is the rarest word, "backoff" the most common.
    write(
        &env,
        &alpha,
        1,
        &[("backoff with jitter for the webhook", "noted")],
    );
    write(
        &env,
        &alpha,
        2,
        &[
            ("exponential backoff for the webhook", "noted"),
            ("and the jitter", "noted"),
        ],
    );
    for n in 3..9 {
        write(
            &env,
            &alpha,
            n,
            &[("backoff here", "noted"), ("exponential there", "noted")],
        );
    }
    let found = search(&env, &alpha, &["exponential backoff jitter"], 5);
    assert_eq!(session_ids(&found)[0], session_id(2), "{found}");
}

/// Over the whole store, a session holding the question's rare word outranks sessions of the
/// current project that hold only its common words many times.
#[test]
fn over_the_whole_store_a_rare_word_outranks_common_ones() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    let beta = project_dir(&env, "beta");
    for n in 1..8 {
        write(
            &env,
            &alpha,
            n,
            &[(
                "the deploy script config deploy config",
                "deploy config done",
            )],
        );
    }
    write(
        &env,
        &beta,
        9,
        &[("the deploy of the tamarind service", "tamarind is live")],
    );
    let found = search(&env, &alpha, &["how do we deploy the tamarind config"], 3);
    assert_eq!(session_ids(&found)[0], session_id(9), "{found}");
}

/// The pool weighs stems, so a word rare as written whose stem is common ("paginator" among
/// many "pagination"s) still brings the session that names it into the ranking, ahead of more
/// sessions than the pool holds that say only the stem's common form and the other words.
#[test]
fn a_session_naming_a_rare_form_of_a_common_stem_is_not_left_out() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    write(
        &env,
        &alpha,
        1,
        &[(
            "the paginator in the api drops the last page",
            "Fixed: an off-by-one in the paginator was the api problem.",
        )],
    );
    for n in 2..32 {
        write(
            &env,
            &alpha,
            n,
            &[
                ("pagination api problem", "pagination api problem noted"),
                ("more pagination api problem", "noted"),
            ],
        );
    }
    let found = search(&env, &alpha, &["paginator api problem"], 3);
    assert_eq!(session_ids(&found)[0], session_id(1), "{found}");
}
