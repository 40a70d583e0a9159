//! OpenCode sessions read from its SQLite database (docs/harnesses.md, "OpenCode"): the real
//! database OpenCode 1.18.33 wrote (tests/fixtures/opencode-real, see its ORIGIN.md), and
//! databases generated here from its schema for what the real run did not make (a compaction,
//! reasoning, a failed tool, an unknown part, secrets, a writer's open transaction, a torn file).

use crate::common;

use std::path::{Path, PathBuf};

use common::harness::rows;
use common::{fixture, TestEnv};
use rusqlite::Connection;
use serde_json::{json, Value};

const PARENT: &str = "ses_db4a3a844ffeZthwApaKN47MAM";
const CHILD: &str = "ses_db4a36083ffeaXN2F6cm6hTKab";

fn row(seq: u64, role: &str, tool: &str, content: &str) -> (u64, String, String, String) {
    (seq, role.into(), tool.into(), content.into())
}

/// A copy of the real data directory (the database with its `-wal` and `-shm`).
fn real_data_dir(env: &TestEnv) -> PathBuf {
    let dir = env.work().join("data/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["opencode.db", "opencode.db-wal", "opencode.db-shm"] {
        std::fs::copy(fixture("opencode-real/opencode").join(name), dir.join(name)).unwrap();
    }
    dir
}

/// Runs the binary with `OPENCODE_DB` or the data directory set, and the cache in the test.
fn run(env: &TestEnv, db_var: (&str, &Path), args: &[&str]) -> common::CommandOutput {
    env.run_with(|cmd| cmd.env(db_var.0, db_var.1).args(args))
}

fn list_events(env: &TestEnv, db_var: (&str, &Path), session: &str) -> Value {
    let mut args = vec![
        "history",
        "list",
        "--session",
        session,
        "--json",
        "--limit",
        "100",
    ];
    for role in ["user", "assistant", "tool", "context"] {
        args.extend(["--role", role]);
    }
    let out = run(env, db_var, &args);
    assert_eq!(out.code, 0, "{out}");
    out.json()
}

#[test]
fn the_real_database_reads_as_a_tree_with_its_tools_paired_through_the_wal() {
    let env = TestEnv::new();
    let data = real_data_dir(&env);
    let var = ("XDG_DATA_HOME", data.parent().unwrap());
    let list = list_events(&env, var, PARENT);
    let rows = rows(&list);
    assert_eq!(
        rows.iter()
            .map(|(seq, role, tool, _)| (*seq, role.as_str(), tool.as_str()))
            .collect::<Vec<_>>(),
        vec![
            (1, "user", ""),
            (2, "assistant", ""),
            (3, "tool", "bash"),
            (5, "assistant", ""),
            (6, "tool", "read"),
            (8, "assistant", ""),
            (9, "user", ""),
            (10, "assistant", ""),
            (11, "tool", "task"),
            (13, "assistant", ""),
        ],
        "{list}"
    );
    assert_eq!(rows[0], row(1, "user", "", "\"run the marker\""));
    // The second turn is only in the log (ORIGIN.md): read through SQLite.
    assert_eq!(rows[6], row(9, "user", "", "\"delegate it\""));
    let bash = run(
        &env,
        var,
        &["history", "read", "3", "--session", PARENT, "--json"],
    );
    assert!(
        bash.stdout.contains("hello-from-bash"),
        "a call and its output are one tool event: {bash}"
    );
    // Nothing was written beside the database but what SQLite keeps there.
    let mut names: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["opencode.db", "opencode.db-shm", "opencode.db-wal"]);
}

/// The main file alone (OpenCode not running, its log checkpointed away or lost) is read as it
/// is, and reading it creates no `-wal` or `-shm` beside it.
#[test]
fn a_database_without_its_log_is_read_and_nothing_is_created_beside_it() {
    let env = TestEnv::new();
    let dir = env.work().join("main-only");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("opencode.db");
    std::fs::copy(fixture("opencode-real/opencode/opencode.db"), &db).unwrap();
    let out = run(
        &env,
        ("OPENCODE_DB", &db),
        &["sessions", "list", "--all", "--json"],
    );
    assert_eq!(out.code, 0, "{out}");
    let sessions = out.json()["sessions"].as_array().unwrap().len();
    assert!(sessions >= 1, "{out}");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["opencode.db"]);
}

#[test]
fn a_child_session_is_a_subagent_of_its_parent_and_is_searched() {
    let env = TestEnv::new();
    let data = real_data_dir(&env);
    let var = ("OPENCODE_DB", &*data.join("opencode.db"));
    let listed = run(&env, var, &["sessions", "list", "--all", "--json"]).json();
    let sessions = listed["sessions"].as_array().expect("sessions");
    let by_id = |id: &str| {
        sessions
            .iter()
            .find(|s| s["session_id"] == id)
            .unwrap_or_else(|| panic!("{id} in {listed}"))
            .clone()
    };
    assert_eq!(by_id(PARENT)["harness"], "opencode", "{listed}");
    assert_eq!(by_id(CHILD)["parent_session_id"], PARENT, "{listed}");
    assert_eq!(by_id(PARENT)["cwd"], "/tmp/ocrun/r1/proj", "{listed}");
    let found = run(
        &env,
        var,
        &["sessions", "search", "sub-agent-bash", "--all", "--json"],
    );
    assert_eq!(found.code, 0, "{found}");
    let hits = found.json();
    assert_eq!(hits["sessions"][0]["session_id"], CHILD, "{hits}");
    // `--harness opencode` keeps them; another harness has none of them.
    let only = run(
        &env,
        var,
        &[
            "sessions",
            "list",
            "--all",
            "--json",
            "--harness",
            "opencode",
        ],
    )
    .json();
    assert_eq!(only["sessions"].as_array().unwrap().len(), 2, "{only}");
    let other = run(
        &env,
        var,
        &["sessions", "list", "--all", "--json", "--harness", "codex"],
    )
    .json();
    assert_eq!(other["sessions"].as_array().unwrap().len(), 0, "{other}");
}

/// A database in OpenCode's schema (the columns the reader uses), in WAL mode as OpenCode
/// keeps it.
struct Db {
    path: PathBuf,
    conn: Connection,
    next: u64,
}

impl Db {
    fn create(path: &Path) -> Db {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL,
               parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL,
               version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
             CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
               time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
             CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL,
               session_id text NOT NULL, time_created integer NOT NULL,
               time_updated integer NOT NULL, data text NOT NULL);",
        )
        .unwrap();
        Db {
            path: path.to_path_buf(),
            conn,
            next: 0,
        }
    }

    fn tick(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn session(&mut self, id: &str, parent: Option<&str>, cwd: &str, title: &str) {
        let t = 1_780_000_000_000 + self.tick() as i64 * 1000;
        self.conn
            .execute(
                "INSERT INTO session VALUES (?1, 'p', ?2, 's', ?3, ?4, '1.18.33', ?5, ?5)",
                rusqlite::params![id, parent, cwd, title, t],
            )
            .unwrap();
    }

    /// A message and its parts; answers the message's id.
    fn message(&mut self, session: &str, data: Value, parts: &[Value]) -> String {
        let n = self.tick();
        let id = format!("msg_{n:06}");
        let t = 1_780_000_000_000 + n as i64 * 1000;
        self.conn
            .execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![id, session, t, data.to_string()],
            )
            .unwrap();
        for part in parts {
            let p = self.tick();
            self.conn
                .execute(
                    "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                    rusqlite::params![format!("prt_{p:06}"), id, session, t, part.to_string()],
                )
                .unwrap();
        }
        self.conn
            .execute(
                "UPDATE session SET time_updated = ?2 WHERE id = ?1",
                rusqlite::params![session, t],
            )
            .unwrap();
        id
    }

    fn user(&mut self, session: &str, text: &str) -> String {
        self.message(
            session,
            json!({"role": "user"}),
            &[json!({"type": "text", "text": text})],
        )
    }
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool(call: &str, name: &str, input: Value, state: Value) -> Value {
    let mut state = state;
    state["input"] = input;
    json!({"type": "tool", "callID": call, "tool": name, "state": state})
}

/// A session with every kind of part: two turns, a completed and a failed tool, reasoning, a
/// compaction and its summary, a step's bookkeeping and a part of a type OpenCode does not write.
fn generated(db: &mut Db) {
    db.session("ses_generated", None, "/w/app", "generated");
    db.user("ses_generated", "please list the files");
    db.message(
        "ses_generated",
        json!({"role": "assistant"}),
        &[
            json!({"type": "step-start"}),
            json!({"type": "reasoning", "text": "privatethought about the files"}),
            text("Listing them."),
            tool(
                "c1",
                "bash",
                json!({"command": "ls"}),
                json!({"status": "completed", "output": "main.rs\nlib.rs\n"}),
            ),
            tool(
                "c2",
                "read",
                json!({"filePath": "/w/app/gone.rs"}),
                json!({"status": "error", "error": "File not found: gonefile"}),
            ),
            json!({"type": "step-finish", "reason": "tool-calls"}),
            json!({"type": "hologram", "text": "unknownparttext"}),
        ],
    );
    db.message(
        "ses_generated",
        json!({"role": "user"}),
        &[json!({"type": "compaction", "auto": true})],
    );
    db.message(
        "ses_generated",
        json!({"role": "assistant", "summary": true, "mode": "compaction"}),
        &[text(
            "Summary: the user listed the files; gone.rs is missing.",
        )],
    );
    db.user("ses_generated", "now fix it");
    db.message(
        "ses_generated",
        json!({"role": "assistant"}),
        &[text("Fixed.")],
    );
}

#[test]
fn parts_become_events_reasoning_is_never_text_and_a_compaction_is_context() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create(&path);
    generated(&mut db);
    let var = ("OPENCODE_DB", path.as_path());
    let list = list_events(&env, var, "ses_generated");
    assert_eq!(
        rows(&list)
            .iter()
            .map(|(seq, role, tool, _)| (*seq, role.as_str(), tool.as_str()))
            .collect::<Vec<_>>(),
        vec![
            (1, "user", ""),
            (2, "assistant", ""),
            (3, "tool", "bash"),
            (5, "tool", "read"),
            (7, "context", ""),
            (8, "user", ""),
            (9, "assistant", ""),
        ],
        "{list}"
    );
    let all = list.to_string();
    assert!(all.contains("Summary: the user listed"), "{all}");
    for never in ["privatethought", "unknownparttext"] {
        assert!(!all.contains(never), "{never}: {all}");
        let searched = run(
            &env,
            var,
            &[
                "history",
                "search",
                never,
                "--session",
                "ses_generated",
                "--json",
            ],
        );
        assert_eq!(searched.code, 1, "{searched}");
    }
    let failed = run(
        &env,
        var,
        &[
            "history",
            "read",
            "5",
            "--session",
            "ses_generated",
            "--json",
        ],
    );
    assert!(failed.stdout.contains("gonefile"), "{failed}");
    // The unknown part type is counted by name for the agent.
    let report = run(&env, var, &["sessions", "index", "--json"]).json();
    let opencode = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "opencode")
        .unwrap_or_else(|| panic!("opencode in {report}"))
        .clone();
    assert_eq!(
        opencode["unknown_types"],
        json!({"part:hologram": 1}),
        "{report}"
    );
}

#[test]
fn a_secret_in_a_part_is_never_found() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create(&path);
    let github = ["ghp", "_", "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ0123456"].concat();
    db.session("ses_secret", None, "/w/app", "deploy");
    db.user(
        "ses_secret",
        &format!("deploy kumquat with GITHUB_TOKEN={github}"),
    );
    db.message(
        "ses_secret",
        json!({"role": "assistant"}),
        &[tool(
            "c1",
            "bash",
            json!({"command": "cat .env"}),
            json!({"status": "completed", "output": format!("TOKEN={github}")}),
        )],
    );
    let var = ("OPENCODE_DB", path.as_path());
    let kumquat = run(
        &env,
        var,
        &["sessions", "search", "kumquat", "--all", "--json"],
    );
    assert_eq!(kumquat.code, 0, "{kumquat}");
    assert!(!kumquat.stdout.contains(&github), "{kumquat}");
    for query in [github.as_str(), &github["ghp_".len()..]] {
        let found = run(&env, var, &["sessions", "search", query, "--all", "--json"]);
        assert!(!found.stdout.contains(&github), "{found}");
        assert_eq!(
            found.json()["sessions"].as_array().map_or(0, Vec::len),
            0,
            "{found}"
        );
    }
}

#[test]
fn a_missing_database_is_never_created() {
    let env = TestEnv::new();
    let db = env.work().join("nowhere/opencode.db");
    let out = run(
        &env,
        ("OPENCODE_DB", &db),
        &["sessions", "list", "--all", "--json"],
    );
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(out.json()["sessions"], json!([]), "{out}");
    assert!(!db.exists() && !db.parent().unwrap().exists());
    // Nor the default data directory.
    let out = env.run(["sessions", "list", "--all", "--json"]).success();
    assert_eq!(out.json()["sessions"], json!([]), "{out}");
    assert!(!env.home().join(".local/share/opencode").exists());
}

#[test]
fn a_writers_open_transaction_leaves_the_last_committed_state_readable() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create(&path);
    db.session("ses_live", None, "/w/app", "live");
    db.user("ses_live", "committed kumquat prompt");
    let var = ("OPENCODE_DB", path.as_path());
    // A writer holds a write transaction with a row not yet committed.
    db.conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    db.user("ses_live", "uncommitted papaya prompt");
    let committed = run(
        &env,
        var,
        &["sessions", "search", "kumquat", "--all", "--json"],
    );
    assert_eq!(committed.code, 0, "{committed}");
    assert_eq!(committed.json()["sessions"][0]["session_id"], "ses_live");
    let uncommitted = run(
        &env,
        var,
        &["sessions", "search", "papaya", "--all", "--json"],
    );
    assert_eq!(
        uncommitted.json()["sessions"]
            .as_array()
            .map_or(0, Vec::len),
        0,
        "{uncommitted}"
    );
    // Once committed, the next read has it.
    db.conn.execute_batch("COMMIT").unwrap();
    let now = run(
        &env,
        var,
        &["sessions", "search", "papaya", "--all", "--json"],
    );
    assert_eq!(now.code, 0, "{now}");
    assert_eq!(now.json()["sessions"][0]["session_id"], "ses_live", "{now}");
    let _ = &db.path;
}

#[test]
fn a_deleted_session_leaves_the_mirror() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create(&path);
    db.session("ses_keep", None, "/w/app", "keep");
    db.user("ses_keep", "keep this");
    db.session("ses_drop", None, "/w/app", "drop");
    db.user("ses_drop", "drop this");
    let var = ("OPENCODE_DB", path.as_path());
    let ids = |env: &TestEnv| -> Vec<String> {
        let out = run(env, var, &["sessions", "list", "--all", "--json"]).json();
        let mut ids: Vec<String> = out["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["session_id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&env), ["ses_drop", "ses_keep"]);
    db.conn
        .execute_batch(
            "DELETE FROM part WHERE session_id = 'ses_drop';
             DELETE FROM message WHERE session_id = 'ses_drop';
             DELETE FROM session WHERE id = 'ses_drop';",
        )
        .unwrap();
    assert_eq!(ids(&env), ["ses_keep"]);
}

#[test]
fn a_torn_or_corrupt_database_is_skipped_and_reported() {
    let env = TestEnv::new();
    let data = real_data_dir(&env);
    // Half of a database file, without its log: a copy interrupted.
    let whole = std::fs::read(data.join("opencode.db")).unwrap();
    let torn = env.work().join("torn/opencode.db");
    std::fs::create_dir_all(torn.parent().unwrap()).unwrap();
    std::fs::write(&torn, &whole[..whole.len() / 2 + 100]).unwrap();
    let garbage = env.work().join("garbage/opencode.db");
    std::fs::create_dir_all(garbage.parent().unwrap()).unwrap();
    std::fs::write(&garbage, b"SQLite format 3\0 but nothing after it").unwrap();
    for db in [&torn, &garbage] {
        let var = ("OPENCODE_DB", db.as_path());
        let out = run(&env, var, &["sessions", "list", "--all", "--json"]);
        assert_eq!(out.code, 0, "{out}");
        assert!(!out.stderr.contains("panicked"), "{out}");
        let report = run(&env, var, &["sessions", "index", "--json"]);
        assert_eq!(report.code, 0, "{report}");
        assert!(!report.stderr.contains("panicked"), "{report}");
    }
    let report = run(
        &env,
        ("OPENCODE_DB", garbage.as_path()),
        &["sessions", "index", "--json"],
    )
    .json();
    let opencode = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "opencode")
        .unwrap_or_else(|| panic!("opencode in {report}"))
        .clone();
    let reasons = opencode["unreadable"].to_string();
    assert!(reasons.contains("OpenCode database"), "{report}");
}

/// What pi-context's plugin adds to a prompt's message (the hint, a synthetic text part, as
/// OpenCode keeps it) is a context event: never indexed, so never found or hinted as anyone's
/// words; the prompt beside it is the user's.
#[test]
fn a_hint_the_plugin_added_to_a_prompt_is_a_context_event_never_indexed() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create(&path);
    db.session("ses_hinted", None, "/w/app", "hinted");
    db.message(
        "ses_hinted",
        json!({"role": "user"}),
        &[
            text("why does quokkaprompt fail"),
            json!({"type": "text", "synthetic": true,
                   "text": "<recall_hint>\nquokkahint from an earlier session\n</recall_hint>"}),
        ],
    );
    db.message(
        "ses_hinted",
        json!({"role": "assistant"}),
        &[text("Looking.")],
    );
    let var = ("OPENCODE_DB", path.as_path());
    let list = list_events(&env, var, "ses_hinted");
    let roles: Vec<(String, bool)> = rows(&list)
        .iter()
        .map(|(_, role, _, content)| (role.clone(), content.contains("quokkahint")))
        .collect();
    assert_eq!(
        roles,
        [
            ("user".to_string(), false),
            ("context".to_string(), true),
            ("assistant".to_string(), false)
        ],
        "{list}"
    );
    let found = run(
        &env,
        var,
        &[
            "sessions",
            "search",
            "--all",
            "--json",
            "quokkahint",
            "quokkaprompt",
        ],
    )
    .json();
    let hits = common::recall::hit_contents(&found);
    assert_eq!(hits.len(), 1, "{found}");
    assert!(hits[0].contains("quokkaprompt"), "{hits:?}");
}

/// The files of the directory under `dir` that holds a mirrored database (its
/// `fingerprints.json`).
fn mirrored_database_dir(dir: &Path) -> Option<PathBuf> {
    if dir.join("fingerprints.json").is_file() {
        return Some(dir.to_path_buf());
    }
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.path().is_dir())
        .find_map(|e| mirrored_database_dir(&e.path()))
}

/// A sync killed before it renamed its temporary file leaves it in the mirror: the next sync
/// removes one older than a minute, and leaves a younger one (another sync's, being written).
#[test]
fn a_temporary_file_a_killed_sync_left_is_swept() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create(&path);
    db.session("ses_one", None, "/w/app", "one");
    db.user("ses_one", "hello");
    let var = ("OPENCODE_DB", path.as_path());
    assert_eq!(
        run(&env, var, &["sessions", "list", "--all", "--json"]).code,
        0
    );
    let mirror = mirrored_database_dir(&env.home()).expect("a mirror in the cache");
    let now = std::time::SystemTime::now();
    let temp = |name: &str, age_secs: u64| {
        let file = std::fs::File::create(mirror.join(name)).unwrap();
        file.set_modified(now - std::time::Duration::from_secs(age_secs))
            .unwrap();
        mirror.join(name)
    };
    let (stale, young) = (temp(".tmpK1ll3d", 300), temp(".tmpWr1t1n", 5));
    db.user("ses_one", "a change to mirror");
    assert_eq!(
        run(&env, var, &["sessions", "list", "--all", "--json"]).code,
        0
    );
    assert!(!stale.exists(), "left by a killed sync: swept");
    assert!(young.exists(), "maybe another sync's: kept");
}

/// The schema OpenCode 1.18.33 creates for the tables the reader uses (its `session` with
/// `revert`, and `session_message`), copied from the real database
/// (tests/fixtures/opencode-real), without the foreign keys to tables not made here.
const REAL_SCHEMA: &str = "PRAGMA journal_mode=WAL;
    CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL,
      `workspace_id` text, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL,
      `path` text, `title` text NOT NULL, `version` text NOT NULL, `share_url` text,
      `summary_additions` integer, `summary_deletions` integer, `summary_files` integer,
      `summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL,
      `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL,
      `tokens_reasoning` integer DEFAULT 0 NOT NULL, `tokens_cache_read` integer DEFAULT 0 NOT NULL,
      `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text, `permission` text,
      `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
      `time_compacting` integer, `time_archived` integer);
    CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL,
      `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
      CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`)
      REFERENCES `session`(`id`) ON DELETE CASCADE);
    CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL,
      `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
      `data` text NOT NULL, CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY
      (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);
    CREATE TABLE `session_message` (`id` text PRIMARY KEY, `session_id` text NOT NULL,
      `type` text NOT NULL, `seq` integer NOT NULL, `time_created` integer NOT NULL,
      `time_updated` integer NOT NULL, `data` text NOT NULL,
      CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`)
      REFERENCES `session`(`id`) ON DELETE CASCADE);";

impl Db {
    /// A database with the real schema.
    fn create_real(path: &Path) -> Db {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(REAL_SCHEMA).unwrap();
        Db {
            path: path.to_path_buf(),
            conn,
            next: 0,
        }
    }

    fn real_session(&mut self, id: &str, title: &str) {
        let t = 1_780_000_000_000 + self.tick() as i64 * 1000;
        self.conn
            .execute(
                "INSERT INTO session (id, project_id, slug, directory, title, version, \
                 time_created, time_updated) VALUES (?1, 'p', 's', '/w/app', ?2, '1.18.33', ?3, ?3)",
                rusqlite::params![id, title, t],
            )
            .unwrap();
    }

    /// A `session_message` row (`data` as OpenCode stores it: the message without its id and
    /// type).
    fn session_message(&mut self, session: &str, kind: &str, seq: i64, data: Value) {
        let n = self.tick();
        let t = 1_780_000_000_000 + n as i64 * 1000;
        self.conn
            .execute(
                "INSERT INTO session_message VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6)",
                rusqlite::params![
                    format!("msg_v2_{n:04}"),
                    session,
                    kind,
                    seq,
                    t,
                    data.to_string()
                ],
            )
            .unwrap();
    }
}

/// A session OpenCode's V2 runner kept in `session_message` only (its `message` table empty
/// for it) is read from those rows, in `seq` order (not their insertion or time order).
#[test]
fn a_session_kept_in_session_message_is_read_in_seq_order() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create_real(&path);
    db.real_session("ses_v2runner", "v2 runner");
    let t = json!({"created": 1_780_000_000_000_i64});
    db.session_message(
        "ses_v2runner",
        "assistant",
        2,
        json!({"agent": "build", "model": {"id": "m", "providerID": "fake"}, "time": t,
        "content": [
            {"type": "reasoning", "id": "r1", "text": "privatemusing"},
            {"type": "text", "id": "t1", "text": "Listing the wallaby files."},
            {"type": "tool", "id": "call_1", "name": "bash", "time": t, "state": {
                "status": "completed", "input": {"command": "ls"}, "structured": {},
                "content": [{"type": "text", "text": "wallaby.rs"}]}},
        ]}),
    );
    db.session_message(
        "ses_v2runner",
        "user",
        1,
        json!({"text": "list the wallaby files", "time": t}),
    );
    db.session_message(
        "ses_v2runner",
        "compaction",
        3,
        json!({"reason": "auto", "summary": "Summary: wallaby files listed.", "recent": "", "time": t}),
    );
    db.session_message(
        "ses_v2runner",
        "model-switched",
        4,
        json!({"model": {"id": "m2", "providerID": "fake"}, "time": t}),
    );
    db.session_message(
        "ses_v2runner",
        "shell",
        5,
        json!({"callID": "sh1", "command": "pwd", "output": "/w/app", "time": t}),
    );
    let var = ("OPENCODE_DB", path.as_path());
    let list = list_events(&env, var, "ses_v2runner");
    assert_eq!(
        rows(&list),
        vec![
            row(1, "user", "", "list the wallaby files"),
            row(2, "assistant", "", "Listing the wallaby files."),
            row(
                3,
                "tool",
                "bash",
                "bash {\"command\":\"ls\"}\n--- output ---\nwallaby.rs"
            ),
            row(5, "context", "", "Summary: wallaby files listed."),
            row(
                6,
                "tool",
                "bash",
                "bash {\"command\":\"pwd\"}\n--- output ---\n/w/app"
            ),
        ],
        "{list}"
    );
    assert!(!list.to_string().contains("privatemusing"), "{list}");
    let found = run(
        &env,
        var,
        &["sessions", "search", "wallaby", "--all", "--json"],
    );
    assert_eq!(found.code, 0, "{found}");
    assert_eq!(
        found.json()["sessions"][0]["session_id"],
        "ses_v2runner",
        "{found}"
    );
    let report = run(&env, var, &["sessions", "index", "--json"]).json();
    let opencode = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "opencode")
        .unwrap_or_else(|| panic!("opencode in {report}"))
        .clone();
    assert_eq!(opencode["unknown_types"], json!({}), "{report}");
}

/// A pending revert (`session.revert`, OpenCode's undo before the next prompt deletes what it
/// hides) leaves the messages from its point on as an abandoned branch: not listed, read or
/// searched as what happened; `--leaf` reads them. Cleared, they are the conversation again.
#[test]
fn a_pending_revert_leaves_the_reverted_messages_on_an_abandoned_branch() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create_real(&path);
    db.real_session("ses_revertpending", "revert");
    db.user("ses_revertpending", "first kept prompt");
    db.message(
        "ses_revertpending",
        json!({"role": "assistant"}),
        &[text("kept answer")],
    );
    let reverted = db.user("ses_revertpending", "second prompt about narwhal");
    db.message(
        "ses_revertpending",
        json!({"role": "assistant"}),
        &[text("reverted narwhal answer")],
    );
    let last_part: String = db
        .conn
        .query_row("SELECT max(id) FROM part", [], |r| r.get(0))
        .unwrap();
    let revert = json!({"messageID": reverted, "snapshot": "abc", "diff": ""}).to_string();
    db.conn
        .execute(
            "UPDATE session SET revert = ?1 WHERE id = 'ses_revertpending'",
            [&revert],
        )
        .unwrap();
    let var = ("OPENCODE_DB", path.as_path());
    let list = list_events(&env, var, "ses_revertpending");
    assert_eq!(
        rows(&list),
        vec![
            row(1, "user", "", "first kept prompt"),
            row(2, "assistant", "", "kept answer"),
        ],
        "{list}"
    );
    let searched = run(
        &env,
        var,
        &["sessions", "search", "narwhal", "--all", "--json"],
    );
    assert_eq!(
        searched.json()["sessions"].as_array().map_or(0, Vec::len),
        0,
        "{searched}"
    );
    let read = run(
        &env,
        var,
        &[
            "history",
            "read",
            "3",
            "--session",
            "ses_revertpending",
            "--json",
        ],
    );
    assert_eq!(read.code, 2, "{read}");
    assert!(read.stderr.contains("on another branch"), "{read}");
    let mut args = vec![
        "history",
        "list",
        "--session",
        "ses_revertpending",
        "--json",
    ];
    args.extend(["--leaf", last_part.as_str()]);
    let abandoned = run(&env, var, &args);
    assert_eq!(abandoned.code, 0, "{abandoned}");
    assert_eq!(
        rows(&abandoned.json())
            .into_iter()
            .map(|(seq, _, _, content)| (seq, content))
            .collect::<Vec<_>>(),
        vec![
            (1, "first kept prompt".to_string()),
            (2, "kept answer".to_string()),
            (3, "second prompt about narwhal".to_string()),
            (4, "reverted narwhal answer".to_string()),
        ],
        "{abandoned}"
    );
    // Unreverted: the conversation is whole again.
    db.conn
        .execute(
            "UPDATE session SET revert = NULL WHERE id = 'ses_revertpending'",
            [],
        )
        .unwrap();
    let found = run(
        &env,
        var,
        &["sessions", "search", "narwhal", "--all", "--json"],
    );
    assert_eq!(
        found.json()["sessions"][0]["session_id"],
        "ses_revertpending",
        "{found}"
    );
}

/// A revert at a part keeps the parts of its message before it.
#[test]
fn a_revert_at_a_part_keeps_the_parts_before_it() {
    let env = TestEnv::new();
    let path = env.work().join("oc/opencode.db");
    let mut db = Db::create_real(&path);
    db.real_session("ses_part", "part revert");
    db.user("ses_part", "do two things");
    let message = db.message(
        "ses_part",
        json!({"role": "assistant"}),
        &[text("first thing done"), text("second thing undone")],
    );
    let second: String = db
        .conn
        .query_row(
            "SELECT max(id) FROM part WHERE message_id = ?1",
            [&message],
            |r| r.get(0),
        )
        .unwrap();
    let revert = json!({"messageID": message, "partID": second}).to_string();
    db.conn
        .execute("UPDATE session SET revert = ?1", [&revert])
        .unwrap();
    let list = list_events(&env, ("OPENCODE_DB", path.as_path()), "ses_part");
    assert_eq!(
        rows(&list),
        vec![
            row(1, "user", "", "do two things"),
            row(2, "assistant", "", "first thing done"),
        ],
        "{list}"
    );
}

/// OpenCode's older JSON storage under its data directory (docs/harnesses.md, "OpenCode"),
/// written here in the layouts OpenCode wrote.
struct Storage {
    data: PathBuf,
    next: u64,
}

impl Storage {
    fn new(data: &Path) -> Storage {
        Storage {
            data: data.to_path_buf(),
            next: 0,
        }
    }

    fn write(&self, relative: &str, value: &Value) -> PathBuf {
        let path = self.data.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
        path
    }

    fn tick(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// `storage/session/<project>/<id>.json`.
    fn session(&mut self, id: &str, parent: Option<&str>, cwd: &str, title: &str) {
        let t = 1_770_000_000_000 + self.tick() as i64 * 1000;
        let mut info = json!({"id": id, "projectID": "proj", "directory": cwd, "title": title,
            "version": "0.15.0", "time": {"created": t, "updated": t}});
        if let Some(parent) = parent {
            info["parentID"] = json!(parent);
        }
        self.write(&format!("storage/session/proj/{id}.json"), &info);
    }

    /// `storage/message/<session>/<id>.json` and its parts in `storage/part/<id>/`.
    fn message(&mut self, session: &str, info: Value, parts: &[Value]) -> String {
        let n = self.tick();
        let id = format!("msg_{n:06}");
        let mut info = info;
        info["id"] = json!(id);
        info["sessionID"] = json!(session);
        info["time"] = json!({"created": 1_770_000_000_000_i64 + n as i64 * 1000});
        self.write(&format!("storage/message/{session}/{id}.json"), &info);
        for part in parts {
            let p = self.tick();
            let mut part = part.clone();
            part["id"] = json!(format!("prt_{p:06}"));
            part["messageID"] = json!(id);
            self.write(&format!("storage/part/{id}/prt_{p:06}.json"), &part);
        }
        id
    }
}

fn sessions_by_id(env: &TestEnv, var: (&str, &Path)) -> std::collections::BTreeMap<String, Value> {
    let out = run(env, var, &["sessions", "list", "--all", "--json"]);
    assert_eq!(out.code, 0, "{out}");
    out.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["session_id"].as_str().unwrap().to_string(), s.clone()))
        .collect()
}

fn search_ids(env: &TestEnv, var: (&str, &Path), query: &str) -> Vec<String> {
    let out = run(env, var, &["sessions", "search", query, "--all", "--json"]);
    assert!(!out.stderr.contains("panicked"), "{out}");
    out.json()["sessions"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s["session_id"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The JSON storage in both of its layouts (and the first message shape, parts inside the
/// message) reads into the same events as the database; a child session is a subagent of its
/// parent; a session also in the database is read once, from the database.
#[test]
fn the_older_json_storage_reads_as_a_tree_and_a_session_in_the_database_once() {
    let env = TestEnv::new();
    let data = env.work().join("data/opencode");
    let mut storage = Storage::new(&data);
    storage.session("ses_json", None, "/w/json", "json parent");
    storage.user_turn("ses_json");
    storage.session("ses_jsonchild", Some("ses_json"), "/w/json", "child");
    storage.message(
        "ses_jsonchild",
        json!({"role": "user"}),
        &[text("childquokka task")],
    );
    // The session OpenCode copied into its database: the database's copy is the one read.
    storage.session("ses_both", None, "/w/json", "both");
    storage.message(
        "ses_both",
        json!({"role": "user"}),
        &[text("jsonversion kiwi")],
    );
    let mut db = Db::create(&data.join("opencode.db"));
    db.session("ses_both", None, "/w/json", "both");
    db.user("ses_both", "dbversion kiwi");
    // The older layout, one store per project, its first messages with their parts inside; its
    // session file has no directory: the assistant's working directory stands in.
    let old = "project/oldproj/storage/session";
    storage.write(
        &format!("{old}/info/ses_oldlayout.json"),
        &json!({"id": "ses_oldlayout", "title": "old",
            "time": {"created": 1_760_000_000_000_i64, "updated": 1_760_000_000_000_i64}}),
    );
    storage.write(
        &format!("{old}/message/ses_oldlayout/msg_old1.json"),
        &json!({"id": "msg_old1", "role": "user", "parts": [{"type": "text", "text": "oldplatypus question"}],
            "metadata": {"sessionID": "ses_oldlayout", "time": {"created": 1_760_000_001_000_i64}, "tool": {}}}),
    );
    storage.write(
        &format!("{old}/message/ses_oldlayout/msg_old2.json"),
        &json!({"id": "msg_old2", "role": "assistant", "parts": [
                {"type": "step-start"},
                {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "t1",
                    "toolName": "bash", "args": {"command": "ls"}, "result": "platypus.rs"}},
                {"type": "text", "text": "Found it."}],
            "metadata": {"sessionID": "ses_oldlayout", "time": {"created": 1_760_000_002_000_i64}, "tool": {},
                "assistant": {"path": {"cwd": "/w/old", "root": "/w"}}}}),
    );
    storage.write(
        &format!("{old}/message/ses_oldlayout/msg_old3.json"),
        &json!({"id": "msg_old3", "role": "user", "sessionID": "ses_oldlayout",
            "time": {"created": 1_760_000_003_000_i64}}),
    );
    storage.write(
        &format!("{old}/part/ses_oldlayout/msg_old3/prt_old3.json"),
        &json!({"id": "prt_old3", "type": "text", "text": "oldnumbat follow-up"}),
    );
    let var = ("XDG_DATA_HOME", data.parent().unwrap());
    let sessions = sessions_by_id(&env, var);
    assert_eq!(
        sessions.keys().collect::<Vec<_>>(),
        ["ses_both", "ses_json", "ses_jsonchild", "ses_oldlayout"],
        "{sessions:?}"
    );
    assert_eq!(sessions["ses_jsonchild"]["parent_session_id"], "ses_json");
    assert_eq!(sessions["ses_json"]["cwd"], "/w/json");
    assert_eq!(sessions["ses_oldlayout"]["cwd"], "/w/old");
    assert_eq!(
        rows(&list_events(&env, var, "ses_json")),
        vec![
            row(1, "user", "", "find the wombat"),
            row(2, "assistant", "", "Looking."),
            row(
                3,
                "tool",
                "bash",
                "bash {\"command\":\"ls\"}\n--- output ---\nwombat.rs"
            ),
        ]
    );
    assert_eq!(
        rows(&list_events(&env, var, "ses_oldlayout")),
        vec![
            row(1, "user", "", "oldplatypus question"),
            row(
                2,
                "tool",
                "bash",
                "bash {\"command\":\"ls\"}\n--- output ---\nplatypus.rs"
            ),
            row(4, "assistant", "", "Found it."),
            row(5, "user", "", "oldnumbat follow-up"),
        ]
    );
    assert_eq!(search_ids(&env, var, "childquokka"), ["ses_jsonchild"]);
    assert_eq!(search_ids(&env, var, "dbversion"), ["ses_both"]);
    assert!(search_ids(&env, var, "jsonversion").is_empty());
    let found = run(
        &env,
        var,
        &[
            "history",
            "search",
            "wombat",
            "--session",
            "ses_json",
            "--json",
        ],
    );
    assert_eq!(found.code, 0, "{found}");
    // `--opencode-dir` names the same data directory.
    let flag = env.run_with(|cmd| {
        cmd.args([
            "sessions",
            "search",
            "oldnumbat",
            "--all",
            "--json",
            "--opencode-dir",
        ])
        .arg(&data)
    });
    assert_eq!(
        flag.json()["sessions"][0]["session_id"],
        "ses_oldlayout",
        "{flag}"
    );
}

impl Storage {
    fn user_turn(&mut self, session: &str) {
        self.message(session, json!({"role": "user"}), &[text("find the wombat")]);
        self.message(
            session,
            json!({"role": "assistant"}),
            &[
                text("Looking."),
                tool(
                    "c1",
                    "bash",
                    json!({"command": "ls"}),
                    json!({"status": "completed", "output": "wombat.rs"}),
                ),
            ],
        );
    }
}

/// Hostile storage: a torn message, a FIFO and a link in place of files, a message directory
/// without its session, a part directory without its message, a huge part. Nothing hangs or
/// crashes; what could not be read is counted; the rest is read.
#[test]
fn hostile_json_storage_is_skipped_and_counted_never_a_hang() {
    let env = TestEnv::new();
    let data = env.work().join("data/opencode");
    let mut storage = Storage::new(&data);
    storage.session("ses_hostile", None, "/w/h", "hostile");
    storage.user_turn("ses_hostile");
    let torn = storage.message("ses_hostile", json!({"role": "user"}), &[text("torntext")]);
    let torn_file = data.join(format!("storage/message/ses_hostile/{torn}.json"));
    let whole = std::fs::read(&torn_file).unwrap();
    std::fs::write(&torn_file, &whole[..whole.len() / 2]).unwrap();
    let fifo = data.join("storage/message/ses_hostile/msg_fifo.json");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let linked = storage.message(
        "ses_hostile",
        json!({"role": "user"}),
        &[text("linkedsecret")],
    );
    let part_dir = data.join(format!("storage/part/{linked}"));
    let part = std::fs::read_dir(&part_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let target = env.work().join("elsewhere.json");
    std::fs::rename(&part, &target).unwrap();
    std::os::unix::fs::symlink(&target, &part).unwrap();
    let huge = format!("{} hugeendmarker", "lorem ipsum ".repeat(1 << 18));
    storage.message("ses_hostile", json!({"role": "assistant"}), &[text(&huge)]);
    // No session names these.
    storage.write(
        "storage/message/ses_orphan/msg_orphan.json",
        &json!({"id": "msg_orphan", "role": "user", "time": {"created": 1}}),
    );
    storage.write(
        "storage/part/msg_nomessage/prt_x.json",
        &json!({"type": "text", "text": "orphanpart"}),
    );
    // A session file that is torn.
    std::fs::write(
        data.join("storage/session/proj/ses_torn.json"),
        b"{\"id\": \"ses_to",
    )
    .unwrap();
    let var = ("XDG_DATA_HOME", data.parent().unwrap());
    let sessions = sessions_by_id(&env, var);
    assert_eq!(
        sessions.keys().collect::<Vec<_>>(),
        ["ses_hostile"],
        "{sessions:?}"
    );
    assert_eq!(search_ids(&env, var, "hugeendmarker"), ["ses_hostile"]);
    assert_eq!(search_ids(&env, var, "wombat"), ["ses_hostile"]);
    for never in ["torntext", "linkedsecret", "orphanpart"] {
        assert!(search_ids(&env, var, never).is_empty(), "{never}");
    }
    let report = run(&env, var, &["sessions", "index", "--json"]);
    assert!(!report.stderr.contains("panicked"), "{report}");
    let report = report.json();
    let opencode = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "opencode")
        .unwrap_or_else(|| panic!("opencode in {report}"))
        .clone();
    let reasons = opencode["unreadable"].to_string();
    for what in [
        format!("{torn}.json"),
        "msg_fifo.json".to_string(),
        "ses_torn.json".to_string(),
        "a link".to_string(),
    ] {
        assert!(reasons.contains(&what), "{what}: {report}");
    }
}
