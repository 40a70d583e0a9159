//! Helpers for the `dream` tests: the fixed stamp, file times, whole-tree snapshots (to prove a
//! run changed nothing), the notes home's git history (read with git2), and fake `pi` scripts
//! that print Pi-shaped JSON events.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

pub use super::pi::sh_quote;
use super::pi::write_script;
pub use super::Run;
use super::{CommandOutput, TestEnv};

/// The report stamp of a run at [`super::FIXED_NOW`].
pub const STAMP: &str = "2026-03-01T09-00-00-000Z";
/// The identity commits get on a machine without a git identity.
pub const FALLBACK_AUTHOR: &str = "pi-context dream <dream@localhost>";

/// [`super::FIXED_NOW`] as a time.
pub fn fixed_now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(1_772_355_600_000)
}

pub fn hours_before_now(hours: u64) -> SystemTime {
    fixed_now() - Duration::from_secs(hours * 3600)
}

pub fn set_mtime(path: &Path, time: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(time))
        .unwrap_or_else(|e| panic!("set mtime of {}: {e}", path.display()));
}

pub fn mtime(path: &Path) -> SystemTime {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("mtime of {}: {e}", path.display()))
}

/// Writes `<dir>/<rel>`, creating its parents.
pub fn put(dir: &Path, rel: &str, content: &str) -> PathBuf {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
    fs::write(&path, content).expect("write file");
    path
}

/// Writes `<home>/.dream.lock.last-run` with the given mtime.
pub fn set_last_run(home: &Path, time: SystemTime) -> PathBuf {
    let path = put(home, ".dream.lock.last-run", "2026-01-01T00:00:00Z");
    set_mtime(&path, time);
    path
}

/// Session notes `pi/session/<id>/note.md` for each id, changed at `time`.
pub fn seed_sessions(home: &Path, ids: &[&str], time: SystemTime) {
    for id in ids {
        let path = put(
            home,
            &format!("pi/session/{id}/note.md"),
            &format!("# Session {id}\n\nlearned something\n"),
        );
        set_mtime(&path, time);
    }
}

/// The report path a run at the fixed clock writes.
pub fn report_path(home: &Path) -> PathBuf {
    home.join("dreams").join(format!("{STAMP}.md"))
}

/// What one entry of a tree looks like, for "nothing changed" assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir { mtime: SystemTime },
    File { bytes: Vec<u8>, mtime: SystemTime },
    Link { target: PathBuf },
}

/// Every entry under `dir` (`.git` included), by relative path. Empty when `dir` is missing.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Entry> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Entry>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let entry = entry.expect("dir entry");
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).expect("metadata");
            if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).expect("read link");
                out.insert(rel, Entry::Link { target });
            } else if meta.is_dir() {
                out.insert(
                    rel,
                    Entry::Dir {
                        mtime: meta.modified().expect("mtime"),
                    },
                );
                walk(root, &path, out);
            } else {
                let bytes = fs::read(&path).expect("read");
                out.insert(
                    rel,
                    Entry::File {
                        bytes,
                        mtime: meta.modified().expect("mtime"),
                    },
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Asserts two snapshots are equal, naming the entries that differ.
pub fn assert_same_tree(before: &BTreeMap<String, Entry>, after: &BTreeMap<String, Entry>) {
    let mut differences = Vec::new();
    for (path, entry) in before {
        match after.get(path) {
            None => differences.push(format!("removed: {path}")),
            Some(other) if other != entry => differences.push(format!("changed: {path}")),
            _ => {}
        }
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        differences.push(format!("created: {path}"));
    }
    assert!(
        differences.is_empty(),
        "the tree changed:\n{}",
        differences.join("\n")
    );
}

/// One commit of the notes home's history.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    pub id: String,
    pub summary: String,
    pub author: String,
    pub committer: String,
}

/// The history from HEAD back (newest first); empty without a repository or a commit.
pub fn git_log(home: &Path) -> Vec<CommitInfo> {
    let Ok(repo) = git2::Repository::open(home) else {
        return Vec::new();
    };
    let Ok(head) = repo.head().and_then(|h| h.peel_to_commit()) else {
        return Vec::new();
    };
    let mut commits = Vec::new();
    let mut next = Some(head);
    while let Some(commit) = next {
        let person = |s: git2::Signature| {
            format!(
                "{} <{}>",
                s.name().unwrap_or_default(),
                s.email().unwrap_or_default()
            )
        };
        commits.push(CommitInfo {
            id: commit.id().to_string(),
            summary: commit.message().unwrap_or_default().trim().to_string(),
            author: person(commit.author()),
            committer: person(commit.committer()),
        });
        assert!(commit.parent_count() <= 1, "the audit trail is linear");
        next = commit.parent(0).ok();
    }
    commits
}

/// The commit messages, newest first.
pub fn git_subjects(home: &Path) -> Vec<String> {
    git_log(home).into_iter().map(|c| c.summary).collect()
}

/// A file's bytes in HEAD, as text.
pub fn head_file(home: &Path, rel: &str) -> Option<String> {
    let repo = git2::Repository::open(home).ok()?;
    let tree = repo.head().ok()?.peel_to_tree().ok()?;
    let entry = tree.get_path(Path::new(rel)).ok()?;
    let blob = entry.to_object(&repo).ok()?.peel_to_blob().ok()?;
    Some(String::from_utf8_lossy(blob.content()).into_owned())
}

/// Every file path in HEAD.
pub fn head_paths(home: &Path) -> Vec<String> {
    let repo = git2::Repository::open(home).expect("open the home's repository");
    let tree = repo
        .head()
        .and_then(|h| h.peel_to_tree())
        .expect("HEAD tree");
    let mut paths = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() != Some(git2::ObjectType::Tree) {
            paths.push(format!("{dir}{}", entry.name().unwrap_or_default()));
        }
        git2::TreeWalkResult::Ok
    })
    .expect("walk HEAD");
    paths
}

/// `git status` of the home: one `<path> <flags>` line per entry that is not clean (untracked
/// files included, ignored ones not).
pub fn git_status(home: &Path) -> Vec<String> {
    let repo = git2::Repository::open(home).expect("open the home's repository");
    let mut options = git2::StatusOptions::new();
    options
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false);
    let statuses = repo.statuses(Some(&mut options)).expect("git status");
    statuses
        .iter()
        .map(|s| format!("{} {:?}", s.path().unwrap_or_default(), s.status()))
        .collect()
}

/// Panics with the whole output unless the exit code is `code`.
#[track_caller]
pub fn assert_exit(output: &CommandOutput, code: i32) {
    assert_eq!(output.code, code, "expected exit {code}:\n{output}");
}

/// `pi-context dream` in the test environment.
pub fn dream_cmd(env: &TestEnv) -> assert_cmd::Command {
    let mut cmd = env.cmd();
    cmd.arg("dream");
    cmd
}

/// `pi-context dream --force --pi <pi>`: a run past both gates with the given dreamer.
pub fn forced_dream(env: &TestEnv, pi: &Path) -> assert_cmd::Command {
    let mut cmd = dream_cmd(env);
    cmd.args(["--force", "--pi"]).arg(pi);
    cmd
}

/// `pi-context dream` as a `std` command (for runs spawned in the background), with the same
/// hermetic environment as [`TestEnv::cmd`].
pub fn std_dream_cmd(env: &TestEnv) -> std::process::Command {
    let mut cmd = hermetic_cmd(env, &assert_cmd::cargo::cargo_bin("pi-context"));
    cmd.arg("dream");
    cmd
}

/// `program` with the hermetic environment of [`TestEnv::cmd`] and no arguments.
#[must_use]
pub fn hermetic_cmd(env: &TestEnv, program: &Path) -> std::process::Command {
    env.process_of(Some(program))
}

// ---- fake `pi` -------------------------------------------------------------------------------

/// A final assistant message event.
pub fn ev_text(text: &str) -> String {
    json!({"type": "message_end", "message": {"role": "assistant", "stopReason": "stop",
        "content": [{"type": "text", "text": text}]}})
    .to_string()
}

/// A provider error event, as Pi prints it in JSON mode.
pub fn ev_provider_error(message: &str) -> String {
    json!({"type": "message_end", "message": {"role": "assistant", "stopReason": "error",
        "errorMessage": message, "content": []}})
    .to_string()
}

/// A tool call that ran (start and end events).
pub fn ev_tool(id: &str, tool: &str, path: &str) -> [String; 2] {
    [
        json!({"type": "tool_execution_start", "toolCallId": id, "toolName": tool,
            "args": {"path": path}})
        .to_string(),
        json!({"type": "tool_execution_end", "toolCallId": id, "toolName": tool,
            "isError": false, "result": {"content": [{"type": "text", "text": "ok"}]}})
        .to_string(),
    ]
}

pub const EV_END: &str = r#"{"type":"agent_end","messages":[]}"#;

/// Shell code printing these lines on stdout.
pub fn emit(lines: &[String]) -> String {
    let quoted: Vec<String> = lines.iter().map(sh_quote).collect();
    format!("printf '%s\\n' {}", quoted.join(" "))
}

/// The events of a dreamer that finished with `text`.
pub fn emit_done(text: &str) -> String {
    emit(&[ev_text(text), EV_END.to_string()])
}

/// A fake `pi` script and the files it leaves next to itself.
pub struct FakePi {
    pub path: PathBuf,
    /// Created when the script runs.
    pub ran: PathBuf,
    /// Its arguments, NUL-separated.
    pub argv: PathBuf,
    /// Its working directory (`pwd -P`).
    pub cwd: PathBuf,
    /// What it read on stdin.
    pub stdin: PathBuf,
    /// Its `PI_CONTEXT_DREAM_WRITABLE`.
    pub writable: PathBuf,
    /// Its `PI_CONTEXT_DREAM_HOME`.
    pub home: PathBuf,
}

impl FakePi {
    /// Writes `<dir>/<name>`: it records how it was started, then runs `body` (with `$D` set to
    /// `dir`).
    pub fn new(dir: &Path, name: &str, body: &str) -> FakePi {
        let d = dir.join(format!("{name}.out"));
        fs::create_dir_all(&d).expect("create fake pi dir");
        let path = write_script(
            &dir.join(name),
            &format!(
                "D={d}\n\
                 printf '%s\\0' \"$@\" > \"$D/argv\"\n\
                 pwd -P > \"$D/cwd\"\n\
                 cat > \"$D/stdin\"\n\
                 printf '%s' \"$PI_CONTEXT_DREAM_WRITABLE\" > \"$D/writable\"\n\
                 printf '%s' \"$PI_CONTEXT_DREAM_HOME\" > \"$D/home\"\n\
                 touch \"$D/ran\"\n\
                 {body}",
                d = sh_quote(&d),
            ),
        );
        FakePi {
            path,
            ran: d.join("ran"),
            argv: d.join("argv"),
            cwd: d.join("cwd"),
            stdin: d.join("stdin"),
            writable: d.join("writable"),
            home: d.join("home"),
        }
    }

    /// A dreamer that finishes at once with `text`.
    pub fn done(dir: &Path, text: &str) -> FakePi {
        FakePi::new(dir, "pi-done", &emit_done(text))
    }

    pub fn ran(&self) -> bool {
        self.ran.exists()
    }

    pub fn args(&self) -> Vec<String> {
        let raw = fs::read(&self.argv).expect("the fake pi ran and recorded its argv");
        raw.split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect()
    }

    /// The value after `flag` in its argv.
    pub fn arg_after(&self, flag: &str) -> Option<String> {
        let args = self.args();
        let i = args.iter().position(|a| a == flag)?;
        args.get(i + 1).cloned()
    }

    /// The prompt (the argument after `--`).
    pub fn prompt(&self) -> String {
        self.arg_after("--").expect("a prompt after --")
    }
}

/// A tool call with these arguments that ended as given (`error`: its result text, and the call
/// failed; a jail refusal starts with `write jail:`).
pub fn ev_call(id: &str, tool: &str, args: Value, error: Option<&str>) -> [String; 2] {
    let text = error.unwrap_or("ok");
    [
        json!({"type": "tool_execution_start", "toolCallId": id, "toolName": tool, "args": args})
            .to_string(),
        json!({"type": "tool_execution_end", "toolCallId": id, "toolName": tool,
            "isError": error.is_some(), "result": {"content": [{"type": "text", "text": text}]}})
        .to_string(),
    ]
}

/// A successful `write` of `content` to `path`, as the dreamer's event stream reports it.
pub fn ev_write(id: &str, path: &str, content: &str) -> [String; 2] {
    ev_call(id, "write", json!({"path": path, "content": content}), None)
}

/// Shell code running `pi-context` as a live agent of session `session` (inside a fake dreamer,
/// whose environment is the test's hermetic one, without the dreamer's own token: a live agent
/// is another process tree).
pub fn live_agent(session: &str, args: &str) -> String {
    format!(
        "env -u PI_CONTEXT_DREAM_TOKEN PI_CONTEXT_SESSION_ID={} {} {args}",
        sh_quote(session),
        sh_quote(assert_cmd::cargo::cargo_bin("pi-context"))
    )
}

/// The `violations` of a `--json` dream result as `kind: path` lines, sorted.
pub fn violations(out: &Value) -> Vec<String> {
    let mut lines: Vec<String> = out["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            format!(
                "{}: {}",
                v["kind"].as_str().unwrap(),
                v["path"].as_str().unwrap()
            )
        })
        .collect();
    lines.sort();
    lines
}
