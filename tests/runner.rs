//! The one integration-test binary: every feature's end-to-end tests are a module here, so the
//! suite links once (jj's `cli/tests/runner.rs`, ripgrep's `tests/tests.rs`). Run one feature
//! with `cargo test --test runner <module>::`, one test with its name. A new file in `tests/`
//! must be named below: `every_test_file_is_a_module_of_the_runner` fails otherwise. Each module
//! says in one line what belongs in it; a test goes in the module of the feature it checks.

// The hermetic `TestEnv`, `CommandOutput` and helpers every module shares (no tests).
mod common;

// The rooms' import rules and never-rules (docs/architecture.md), read from the code.
mod architecture;
// `pi-context boot`: the boot block rendered from a request and the notes store.
mod boot;
// The `checkpoint` tool, `checkpoint show`, and the boot block that opens with one.
mod checkpoint;
// The audit after a dream: writes that slipped past the jail, live agents writing meanwhile.
mod dream_audit;
// How `dream` starts the dreamer (argv, prompt, cwd, jail), its flags, settings, git identity.
mod dream_cli;
// `dream doctor`: every check, read-only, its exit codes and JSON.
mod dream_doctor;
// Failed dreams: the `(failed)` commit and report, the last-run time restored, the lock gone.
mod dream_failures;
// The dream lock, `--dry-run` and the two gates (fake dreamers: only whether one ran matters).
mod dream_lock;
// `dream` end to end with the real `pi` and the scripted faux model.
mod dream_run;
// A dream interrupted by SIGINT, SIGTERM or SIGHUP ends like a failed one.
mod dream_signals;
// `dream undo`: a dream's changes reverted as a new commit, conflicts refused or kept.
mod dream_undo;
// The one resolver of defaults (notes home, clock, identity) and its errors, for every door.
mod environment;
// Generated files: completions, the man page and docs/environment.md match the binary.
mod generate;
// Claude Code transcripts read by `history … --session FILE`, on tests/fixtures/claude.
mod harness_claude;
// Codex rollouts read by `history … --session FILE`, on tests/fixtures/codex.
mod harness_codex;
// Gemini CLI chats read, found and indexed, on tests/fixtures/gemini and gemini-real.
mod harness_gemini;
mod harness_opencode;
// Copilot CLI's events.jsonl (tests/fixtures/copilot-real) read and found; its hooks and setup.
mod harness_copilot;
// Cursor's agent transcripts (tests/fixtures/cursor) read, found, timed by their files.
mod harness_cursor;
// The session index: a bad one only costs speed.
mod history_cache;
// `history` on the command line: human output, `--json`, exit codes, stderr, closed pipes.
mod history_cli;
// `history_list`: seqs, anchor paging, folds, roles, previews, the byte budget.
mod history_list;
// `history_read`: the READ WINDOW, refusals in order, tool documents, offsets, the budget.
mod history_read;
// Reading session files: fixtures, malformed and torn lines, leaves, versions, ids, seqs.
mod history_reader;
// A session file that changes while history calls read it.
mod history_rewrite;
// `tool --schemas` of the history tools: paging, roles, strict parameters.
mod history_schemas;
// `history_search`: literal matching, Unicode offsets, filters, paging, query checks.
mod history_search;
// A session path that names no regular file (a FIFO, a socket, a directory, a device).
mod history_special_files;
// `history_windows` and window derivation from reset markers.
mod history_windows;
// Snapshots of every command group's human output side by side (one command's go in its module).
mod human_output;
// `pi-context mcp` with a real MCP client, and raw bytes on stdin: handshakes, tools, exits.
mod mcp;
// Note addresses: grammar, canonical form, escapes refused by every operation.
mod notes_addresses;
// Many processes on one note lose nothing; a writer killed at any instant leaves a whole note.
mod notes_concurrency;
// `notes edit` and `notes_edit`: replacements, crumple and smooth, diffs, refusals.
mod notes_edit;
// The frontmatter on disk: unknown lines kept, known keys in place, missing ones filled.
mod notes_frontmatter;
// Every notes change a commit: messages, `notes log`, `notes diff`, `notes restore`.
mod notes_history;
// Identity: notes home, session id, project key, agent and model homes, from every source.
mod notes_identity;
// Bounded work in `notes edit` on huge edits.
mod notes_limits;
// `notes list` and `notes_list`: order, patterns, the wastebasket, budgets, missing homes.
mod notes_list;
// `notes list`'s record of listings: never stale, and a damaged one only costs speed.
mod notes_list_cache;
// Invisible and look-alike characters refused in addresses.
mod notes_lookalikes;
// `notes move` and `notes_move`: metadata, boundaries, refusals, atomicity.
mod notes_move;
// Hostile races: directories swapped for symlinks and notes for FIFOs under load.
mod notes_races;
// `notes read` and `notes_read`: READ WINDOWs, cursors, access counts.
mod notes_read;
// A notes home that cannot be written: reads served, counters reported as not updated.
mod notes_readonly;
// `notes search` and `notes_search`: literal OR over body lines.
mod notes_search;
// `notes sync` between machines through a bare repository, with the real `git`.
mod notes_sync;
// The notes tools over the tool protocol: schemas, parameters, result and refusal shapes.
mod notes_tools;
// `notes write` and `notes_write`: where notes land, frontmatter, outcomes, limits.
mod notes_write;
// What `cargo package` ships: sources, included files, playbook, completions.
mod package;
// Project keys from a checkout's origin, and the one-time move of notes from the path key.
mod project_keys;
// Property tests of the Claude Code, Codex, Copilot CLI and Cursor readers on hostile files.
mod props_harness;
// Property tests of the notes parsers (the fuzz targets' properties, on stable).
mod props_notes;
// Property test: a stored projection extended by appends equals a fresh one.
mod props_projection;
// Property tests of the session reader and every history operation.
mod props_session;
// `pi-context hook <agent> <event>`: what is pushed into the agents, and `stats`.
mod push;
// The one query limit of every search, checked before any work.
mod query_limits;
// The recall index under stress: concurrent processes, a held writer, corruption, permissions.
mod sessions_faults;
// Other agents' sessions found, scoped and opened like Pi's.
mod sessions_harnesses;
// `sessions_hint`: at most one hint for a prompt, over the relevance bar.
mod sessions_hint;
// `sessions list`, and naming a session by its id for `history`.
mod sessions_list;
// `sessions search` pruning: the top is that of a search that ranks everything.
mod sessions_ranking;
// The recall index follows the session files: appends, rewrites, deletions, torn lines.
mod sessions_refresh;
// `sessions search`: ranking, hits, branches, scope, since, roles, phrases.
mod sessions_search;
// Secrets kept out of the recall index and masked in previews and reads.
mod sessions_secrets;
// The recall tools over the tool protocol, and the boot block's list of sessions.
mod sessions_tools;
// `pi-context setup claude|codex|copilot|cursor` on the user's own configuration files.
mod setup;
// `tool --schemas` facts the Pi extension shares with the binary, each checked against it.
mod tool_facts;

#[test]
fn every_test_file_is_a_module_of_the_runner() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let runner = std::fs::read_to_string(dir.join("runner.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = match name.strip_suffix(".rs") {
            Some(module) if module != "runner" => module.to_string(),
            _ if path.join("mod.rs").is_file() => name.clone(),
            _ => continue,
        };
        assert!(
            runner.lines().any(|l| l == format!("mod {module};")),
            "tests/{name} is not a module of tests/runner.rs: its tests would never run"
        );
    }
}
