//! `dream doctor`: a read-only health check of the notes store.
//!
//! It never creates the home, writes, commits, or touches the lock: every check is an `lstat`,
//! a directory listing or a read. Symlinks are reported, never followed.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::lock::{self, LockState, LAST_RUN_FILE, LOCK_FILE};
use crate::home::index;
use crate::home::layout::has_conflict_markers;
use crate::home::layout::{
    AGENTS_DIR, DREAMS_DIR, GIT_DIR, HUMAN_DIR, JOURNAL_DIR, LOCK_DIR, MODELS_DIR, PENDING_DIR,
    PROJECT_DIR, SESSIONS_DIR, SYNC_LOCK,
};
use crate::home::repo::{lock_age, STALE_LOCK_AFTER};
use crate::notes::address::{Address, HomeSpec};
use crate::notes::frontmatter::Document;
use crate::notes::identity::is_slug;

/// One problem found, at a path relative to the home (`.` for the home itself).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Issue {
    pub path: String,
    pub code: &'static str,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    pub home: PathBuf,
    pub issues: Vec<Issue>,
}

/// Root entries that belong to dreams or to the store's machinery, not to a home (`snapshots`
/// and `trash` are the seed's dream artifacts).
const ARTIFACTS: [&str; 8] = [
    GIT_DIR,
    DREAMS_DIR,
    LAST_RUN_FILE,
    LOCK_DIR,
    JOURNAL_DIR,
    SYNC_LOCK,
    "snapshots",
    "trash",
];

/// Checks the store; `progress` is told how many notes were checked so far.
pub fn check(home: &Path, progress: &mut dyn FnMut(usize)) -> DoctorReport {
    let mut doctor = Doctor {
        home,
        issues: Vec::new(),
        notes: 0,
        progress,
    };
    doctor.check_root();
    let mut issues = doctor.issues;
    // Sorted as printed: `<path>: <message>`.
    issues.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    DoctorReport {
        home: home.to_path_buf(),
        issues,
    }
}

/// Where a note sits, for resolving the addresses it mentions.
#[derive(Clone, Copy)]
struct Context<'a> {
    /// The home directory the note belongs to (bare addresses resolve against it).
    home_root: &'a Path,
    /// The `project/<key>/` directory, for notes inside one.
    project: Option<&'a Path>,
}

struct Doctor<'a> {
    home: &'a Path,
    issues: Vec<Issue>,
    notes: usize,
    progress: &'a mut dyn FnMut(usize),
}

impl Doctor<'_> {
    fn issue(&mut self, path: &Path, code: &'static str, message: impl Into<String>) {
        let relative = path.strip_prefix(self.home).unwrap_or(path);
        let path = match relative.to_string_lossy().into_owned() {
            p if p.is_empty() => ".".to_string(),
            p => p,
        };
        self.issues.push(Issue {
            path,
            code,
            message: message.into(),
        });
    }

    fn check_root(&mut self) {
        let home = self.home;
        match fs::symlink_metadata(home) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return self.issue(home, "missing_home", "the notes home does not exist");
            }
            Err(e) => return self.issue(home, "cannot_inspect", format!("cannot inspect: {e}")),
            Ok(m) if !m.is_dir() => {
                return self.issue(
                    home,
                    "not_a_directory",
                    "expected a directory (symlinks are not followed); check the notes home's location",
                );
            }
            Ok(_) => {}
        }
        for (name, path) in self.entries(home) {
            self.check_root_entry(&name, &path);
        }
    }

    /// Directory entries sorted by name; an unreadable directory is an issue.
    fn entries(&mut self, dir: &Path) -> Vec<(String, PathBuf)> {
        match fs::read_dir(dir) {
            Ok(entries) => {
                let mut all: Vec<(String, PathBuf)> = entries
                    .filter_map(Result::ok)
                    .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                    .collect();
                all.sort();
                all
            }
            Err(e) => {
                self.issue(dir, "cannot_inspect", format!("cannot list: {e}"));
                Vec::new()
            }
        }
    }

    fn check_root_entry(&mut self, name: &str, path: &Path) {
        if name == GIT_DIR && self.is_dir(path) {
            self.check_git_locks(path, 0);
        }
        if name == LOCK_DIR && self.is_dir(path) {
            self.check_pending(&path.join(PENDING_DIR));
        }
        if ARTIFACTS.contains(&name) {
            return;
        }
        if name == LOCK_FILE {
            return self.check_lock(path);
        }
        if self.is_symlink(path) {
            return;
        }
        match name {
            "global" => self.issue(
                path,
                "legacy_home",
                "legacy home; move its notes into human/ by hand, without overwriting existing files",
            ),
            "personal" => self.issue(
                path,
                "legacy_home",
                "legacy home; rename it to human/ (merge by hand if human/ already exists)",
            ),
            HUMAN_DIR if self.is_dir(path) => self.walk(
                path,
                Context {
                    home_root: path,
                    project: None,
                },
            ),
            AGENTS_DIR | MODELS_DIR if self.is_dir(path) => self.check_named_homes(name, path),
            PROJECT_DIR if self.is_dir(path) => self.check_projects(path),
            name if name == SESSIONS_DIR[0] && self.is_dir(path) => self.check_sessions(path),
            HUMAN_DIR | AGENTS_DIR | MODELS_DIR | PROJECT_DIR => {}
            name if name == SESSIONS_DIR[0] => {}
            _ => self.issue(
                path,
                "unexpected_entry",
                "unexpected root entry; expected human/, project/, agents/, models/, pi/session/ or dream artifacts",
            ),
        }
    }

    fn check_lock(&mut self, path: &Path) {
        let remove = format!("rm {}", path.display());
        match lock::state(self.home) {
            LockState::Absent => {}
            LockState::Live { pid } => {
                let pid = pid.map_or_else(|| "unknown pid".to_string(), |p| format!("pid {p}"));
                self.issue(
                    path,
                    "lock_live",
                    format!("live lock: a dream is running ({pid}); it removes the lock when it ends"),
                );
            }
            LockState::Stale { .. } => self.issue(
                path,
                "lock_stale",
                format!("stale lock: no process holds it (a dream died); once sure no dream runs, remove it: {remove}"),
            ),
        }
    }

    /// Lock files git left in the repository (`index.lock`, `refs/heads/main.lock`, …) that are
    /// too old to belong to a running update: each blocks what it locks until removed.
    fn check_git_locks(&mut self, dir: &Path, depth: usize) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                // `.git` itself and the ref tree below `refs/`, never the object store.
                let in_refs = depth > 0 || entry.file_name() == "refs";
                if in_refs && depth < 6 {
                    self.check_git_locks(&path, depth + 1);
                }
                continue;
            }
            if !entry.file_name().to_string_lossy().ends_with(".lock") {
                continue;
            }
            if let Ok(Some((age, _))) = lock_age(&path) {
                if age >= STALE_LOCK_AFTER {
                    let notes_writers = depth == 0
                        && entry.file_name() == "index.lock"
                        && index::lock_is_a_notes_writers(dir);
                    let message = if notes_writers {
                        format!(
                            "stale index lock ({} s old) of a notes writer that was killed holding it: the next notes write takes it over and rebuilds the index (or: rm {})",
                            age.as_secs(),
                            path.display()
                        )
                    } else {
                        format!(
                            "stale git lock ({} s old; an update holds one for milliseconds): a git process died here, and what it locks cannot change until it is removed; once sure no git command runs in the home: rm {}",
                            age.as_secs(),
                            path.display()
                        )
                    };
                    self.issue(&path, "git_lock_stale", message);
                }
            }
        }
    }

    /// Notes whose change is saved but not committed yet (their commit failed, or their writer
    /// was killed between the two): the next change that can commit records them.
    fn check_pending(&mut self, dir: &Path) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let count = entries.filter_map(Result::ok).count();
        if count > 0 {
            self.issue(
                dir,
                "uncommitted_changes",
                format!(
                    "{count} saved change(s) not in the notes history yet; the next notes write that can commit records them (a stale git lock reported here blocks that)"
                ),
            );
        }
    }

    fn is_symlink(&mut self, path: &Path) -> bool {
        let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if link {
            self.issue(
                path,
                "symlink",
                "symlink not inspected; replace it with a regular note or directory",
            );
        }
        link
    }

    fn is_dir(&mut self, path: &Path) -> bool {
        let dir = fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
        if !dir {
            self.issue(path, "unexpected_file", "expected a directory");
        }
        dir
    }

    /// `agents/<slug>/` and `models/<slug>/`.
    fn check_named_homes(&mut self, kind: &str, dir: &Path) {
        for (name, path) in self.entries(dir) {
            if self.is_symlink(&path) || !self.is_dir(&path) {
                continue;
            }
            if !is_slug(&name) {
                let what = if kind == AGENTS_DIR { "agent" } else { "model" };
                self.issue(
                    &path,
                    "invalid_slug",
                    format!("invalid {what} name; expected [a-z0-9-]"),
                );
            }
            self.walk(
                &path,
                Context {
                    home_root: &path,
                    project: None,
                },
            );
        }
    }

    /// `project/<name>-<8 hex>/`.
    fn check_projects(&mut self, dir: &Path) {
        for (name, path) in self.entries(dir) {
            if self.is_symlink(&path) || !self.is_dir(&path) {
                continue;
            }
            if !is_project_key(&name) {
                self.issue(
                    &path,
                    "invalid_project_key",
                    "invalid project key; expected <name>-<8 hex>",
                );
            }
            self.walk(
                &path,
                Context {
                    home_root: &path,
                    project: Some(&path),
                },
            );
        }
    }

    /// `pi/session/<id>/`.
    fn check_sessions(&mut self, pi: &Path) {
        for (name, path) in self.entries(pi) {
            if self.is_symlink(&path) {
                continue;
            }
            if name != SESSIONS_DIR[1] {
                self.issue(
                    &path,
                    "unexpected_entry",
                    "unexpected entry; expected pi/session/<id>/",
                );
                continue;
            }
            if !self.is_dir(&path) {
                continue;
            }
            for (_, session) in self.entries(&path) {
                if self.is_symlink(&session) || !self.is_dir(&session) {
                    continue;
                }
                self.walk(
                    &session,
                    Context {
                        home_root: &session,
                        project: None,
                    },
                );
            }
        }
    }

    fn walk(&mut self, dir: &Path, context: Context) {
        for (name, path) in self.entries(dir) {
            let Ok(metadata) = fs::symlink_metadata(&path) else {
                continue;
            };
            if self.is_symlink(&path) {
                continue;
            }
            if metadata.is_dir() {
                self.walk(&path, context);
            } else if name.starts_with(".pi-context.") && name.ends_with(".tmp") {
                self.issue(
                    &path,
                    "stray_temp_file",
                    "leftover of an interrupted note write; safe to delete",
                );
            } else if metadata.is_file() && name.ends_with(".md") {
                self.check_note(&path, &name, &metadata, context);
            } else {
                self.issue(
                    &path,
                    "unexpected_file",
                    "unexpected file in a note home; inspect and move it",
                );
            }
        }
    }

    fn check_note(&mut self, path: &Path, name: &str, metadata: &fs::Metadata, context: Context) {
        self.notes += 1;
        (self.progress)(self.notes);
        if metadata.nlink() > 1 {
            self.issue(
                path,
                "hard_link",
                "hard-linked note; the notes tools refuse it, so copy it to a file of its own",
            );
        }
        let text = match fs::read(path).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            Ok(Err(_)) => return self.issue(path, "not_utf8", "not UTF-8 text"),
            Err(e) => return self.issue(path, "cannot_inspect", format!("cannot read: {e}")),
        };
        if has_conflict_markers(&text) {
            self.issue(
                path,
                "conflict_markers",
                "holds two versions between conflict markers (<<<<<<< ======= >>>>>>>), kept by a notes sync or a forced dream undo; edit the note to keep what is right and remove the markers",
            );
        }
        // Parsed exactly as the store parses it (a byte order mark and spaces around the fences
        // included), so doctor never flags what the store reads fine.
        let doc = Document::parse(&text);
        let Some(fields) = doc.fields() else {
            return self.issue(
                path,
                "frontmatter",
                "missing or unclosed frontmatter; add a valid metadata block",
            );
        };
        for problem in field_problems(&fields) {
            self.issue(path, problem.0, problem.1);
        }
        for (address, problem) in
            reference_problems(&doc.body, name == "MAP.md", self.home, context)
        {
            self.issue(path, problem.0, format!("{address}: {}", problem.1));
        }
    }
}

fn is_project_key(name: &str) -> bool {
    name.rsplit_once('-').is_some_and(|(base, hex)| {
        !base.is_empty()
            && hex.len() == 8
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

fn field_problems(fields: &[(String, String)]) -> Vec<(&'static str, String)> {
    let mut seen = std::collections::BTreeSet::new();
    let duplicates: std::collections::BTreeSet<&str> = fields
        .iter()
        .map(|(key, _)| key.as_str())
        .filter(|key| !seen.insert(*key))
        .collect();
    let mut problems: Vec<(&'static str, String)> = duplicates
        .into_iter()
        .map(|key| {
            (
                "duplicate_key",
                format!("duplicate metadata key {key}; keep one value"),
            )
        })
        .collect();
    let get = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    if !matches!(get("origin"), Some("user" | "self" | "external")) {
        problems.push((
            "invalid_origin",
            "missing/invalid origin; use user, self or external".into(),
        ));
    }
    for key in ["createdAt", "updatedAt", "lastAccessed"] {
        if !get(key).is_some_and(is_timestamp) {
            problems.push((
                "invalid_timestamp",
                format!("missing/invalid {key}; use an ISO timestamp"),
            ));
        }
    }
    if !get("accessCount").is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())) {
        problems.push((
            "invalid_access_count",
            "missing/invalid accessCount; use a whole number".into(),
        ));
    }
    if get("crumpledAt").is_some_and(|v| !is_timestamp(v)) {
        problems.push((
            "invalid_timestamp",
            "invalid crumpledAt; use an ISO timestamp".into(),
        ));
    }
    if get("scope").is_some() {
        problems.push((
            "obsolete_scope",
            "obsolete scope field; remove it (the home decides the scope)".into(),
        ));
    }
    problems
}

/// An ISO 8601 time with an offset (`Z` or `±hh:mm`).
fn is_timestamp(value: &str) -> bool {
    value.parse::<jiff::Timestamp>().is_ok()
}

/// Concrete backtick-quoted `.md` addresses in a body that do not resolve. Examples and globs
/// (with spaces, `<`, `>`, `*` or `?`) are prose; bare paths count only in a MAP.
fn reference_problems(
    body: &str,
    is_map: bool,
    home: &Path,
    context: Context,
) -> Vec<(String, (&'static str, String))> {
    let mut problems = Vec::new();
    for span in backtick_spans(body) {
        let concrete = span.ends_with(".md")
            && !span.contains(|c: char| c.is_whitespace() || "<>*?".contains(c));
        if !concrete || !(span.starts_with('@') || is_map) {
            continue;
        }
        let address = match Address::parse(span) {
            Ok(address) => address,
            Err(e) => {
                problems.push((
                    span.to_string(),
                    ("invalid_address", format!("invalid address: {e}")),
                ));
                continue;
            }
        };
        let root = match &address.home {
            HomeSpec::Human => home.join(HUMAN_DIR),
            HomeSpec::Agent(Some(name)) => home.join(AGENTS_DIR).join(name),
            HomeSpec::Model(Some(name)) => home.join(MODELS_DIR).join(name),
            HomeSpec::Agent(None) | HomeSpec::Model(None) => continue,
            HomeSpec::Session => context.home_root.to_path_buf(),
            HomeSpec::Project => match context.project {
                Some(project) => project.to_path_buf(),
                None => {
                    problems.push((
                        span.to_string(),
                        ("unresolved_reference", "project context unavailable outside project/<key>/; use a resolvable reference".into()),
                    ));
                    continue;
                }
            },
        };
        if fs::symlink_metadata(root.join(&address.path)).is_err() {
            problems.push((
                span.to_string(),
                (
                    "missing_target",
                    "target missing; update or remove the reference".into(),
                ),
            ));
        }
    }
    problems
}

/// The contents of closed, single-line backtick spans.
fn backtick_spans(body: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    for line in body.lines() {
        let parts: Vec<&str> = line.split('`').collect();
        let closed = parts.len().saturating_sub(1);
        spans.extend(
            parts[..closed]
                .iter()
                .skip(1)
                .step_by(2)
                .filter(|s| !s.is_empty()),
        );
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_read_as_the_store_reads_it() {
        let fields = |text: &str| Document::parse(text).fields();
        let origin = Some(vec![("origin".to_string(), "user".to_string())]);
        assert_eq!(fields("---\norigin: user\n---\nbody"), origin);
        assert_eq!(fields("  ---  \norigin: user\n  ---  \n"), origin);
        assert_eq!(fields("\u{feff}---\norigin: user\n---\n"), origin);
        assert_eq!(fields("---\norigin: user\n"), None);
        assert_eq!(fields("no block"), None);
    }

    #[test]
    fn each_field_problem_is_named_once() {
        let fields: Vec<(String, String)> = [
            ("origin", "robot"),
            ("createdAt", "2026-01-01T00:00:00.000+01:00"),
            ("updatedAt", "yesterday"),
            ("lastAccessed", "2026-01-01T00:00:00Z"),
            ("accessCount", "3"),
            ("accessCount", "4"),
            ("scope", "project"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let codes: Vec<&str> = field_problems(&fields).iter().map(|p| p.0).collect();
        assert_eq!(
            codes,
            [
                "duplicate_key",
                "invalid_origin",
                "invalid_timestamp",
                "obsolete_scope"
            ]
        );
    }

    #[test]
    fn project_keys_end_in_eight_hex_digits() {
        assert!(is_project_key("my-app-1a2b3c4d"));
        assert!(!is_project_key("my-app-1A2B3C4D"));
        assert!(!is_project_key("-1a2b3c4d"));
        assert!(!is_project_key("app"));
    }

    #[test]
    fn backtick_spans_are_single_line() {
        let spans = backtick_spans("see `@human/a.md` and `b.md`\n`open\nclose`");
        assert_eq!(spans, ["@human/a.md", "b.md"]);
    }
}
