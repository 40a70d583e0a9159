//! Moving a project's notes to its remote-based key, once.
//!
//! A project whose repository has an `origin` remote takes its key from the remote's URL
//! ([`super::identity::project_keys`]); before, the key came from the checkout's path, and the
//! project's notes are still under `project/<path key>/`. The first notes command, tool call or
//! boot that runs with the new key moves them to `project/<key>/`:
//!
//! - Under a lock of its own (`.locks/`, keyed by `project/<path key>`), so of several processes
//!   migrating at once one moves the notes and the others find nothing left to move. Each note
//!   moves under its per-note locks (its old address, its new one and the name it may take
//!   beside an existing note, all taken in sorted order), so no write of either address
//!   interleaves, and the commit of the move lands while they are held.
//! - One `renameat` per note through the home's directory handles, never over an existing
//!   file (`RENAME_NOREPLACE`) and never through a link: a symlinked `project/<path key>` is
//!   refused, not followed. The note's bytes do not change.
//! - A note that already exists at the new key stays, and the old one moves beside it as
//!   `<name>.from-<path key, slugified>.md`. When that name is taken too, the old note is left
//!   where it is and reported.
//! - One commit (`migrate @project`, with `From-Key` and `To-Key` trailers) for the whole move,
//!   made while every moved note's locks are held. Three lock files per note stay open until
//!   then, so the process's soft limit of open files is raised toward its hard limit when the
//!   project has many notes; where even the hard limit is too low, the notes move in batches
//!   of what it allows, one commit each.
//! - Not while a dream runs (its dreamer writes `project/*/` directly): the next command after
//!   the dream moves them. A move that starts just before a dream is recorded in the dream's
//!   live-write journal like any store change.
//! - Empty directories under `project/<path key>/` are removed afterwards; anything that is not
//!   a note (a stray file) stays.

use super::address::Home;
use super::error::NotesError;
use super::files;
use super::history::{self, Recorded};
use super::identity::slugify;
use super::lock;
use super::store::Store;
use super::walk::{self, Candidate};
use crate::beneath::{Dir, Kind};
use crate::home::journal;
use crate::home::layout::PROJECT_DIR;
use crate::home::repo::PathChange;

/// The lock files each moved note holds: its old address, its new one and the name beside.
const LOCKS_PER_NOTE: u64 = 3;

/// Open files left for everything but the locks (directory handles, the repository's files).
const SPARE_FILES: u64 = 256;

/// What a migration did.
#[derive(Debug, Clone)]
pub struct Migration {
    /// The path-based key the notes were under.
    pub from_key: String,
    /// The key they are under now.
    pub to_key: String,
    pub moved: Vec<Moved>,
    /// Notes that stayed under the old key, and why.
    pub left: Vec<Left>,
    /// The commit of each batch (one, unless the open-file limit forced batches).
    pub history: Vec<Recorded>,
}

/// One note moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// Its path below the project home (`decisions.md`), the same under both keys…
    pub path: String,
    /// …unless a note was already there: then `<stem>.from-<old key>.md`.
    pub to: String,
}

impl Moved {
    /// Whether the note went beside an existing one instead of to its own address.
    pub fn kept_beside(&self) -> bool {
        self.path != self.to
    }
}

/// A note left under the old key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Left {
    pub path: String,
    pub reason: String,
}

/// Moves the notes under `project/<from_key>/` to the store's project key. `None` when there
/// is nothing to move (no such directory, the same key, a dream running, or nothing but
/// non-notes left there). An error means nothing more could be tried (the home cannot be
/// written, the old directory is a link); notes already moved stay moved.
pub fn migrate_project(store: &Store, from_key: &str) -> Result<Option<Migration>, NotesError> {
    let to_key = store.identity().project_key.clone();
    if from_key == to_key {
        return Ok(None);
    }
    let Some(root) = files::open_root(&store.identity().home)? else {
        return Ok(None);
    };
    let old_home = Home::Project(from_key.to_string());
    if files::open_dirs(&root, &old_home.components())?.is_none()
        || journal::running_dream(&root).is_some()
    {
        return Ok(None);
    }
    let _migrating = lock::lock(&root, &format!("{PROJECT_DIR}/{from_key}"))?;
    let mut notes = walk::notes_in(&root, &old_home).map_err(files::notes_error)?;
    notes.sort_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
    let mut migration = Migration {
        from_key: from_key.to_string(),
        to_key,
        moved: Vec::new(),
        left: Vec::new(),
        history: Vec::new(),
    };
    for batch in notes.chunks(batch_size(notes.len())) {
        move_batch(store, &root, batch, &mut migration)?;
    }
    remove_empty_dirs(&root, from_key);
    if migration.moved.is_empty() && migration.left.is_empty() {
        return Ok(None);
    }
    Ok(Some(migration))
}

/// How many notes may move under one set of locks: all of them when the open-file limit
/// allows (raising the soft limit toward the hard one if it must), else as many as it allows.
fn batch_size(notes: usize) -> usize {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let wanted = (notes as u64).saturating_mul(LOCKS_PER_NOTE) + SPARE_FILES;
    let limit = getrlimit(Resource::Nofile);
    let mut soft = limit.current.unwrap_or(u64::MAX);
    if soft < wanted {
        let raised = limit.maximum.map_or(wanted, |hard| hard.min(wanted));
        let new = Rlimit {
            current: Some(raised),
            maximum: limit.maximum,
        };
        if raised > soft && setrlimit(Resource::Nofile, new).is_ok() {
            soft = raised;
        }
    }
    let fits = soft.saturating_sub(SPARE_FILES) / LOCKS_PER_NOTE;
    usize::try_from(fits)
        .unwrap_or(usize::MAX)
        .clamp(1, notes.max(1))
}

/// Where one note goes.
struct Plan {
    /// Below the project home.
    path: String,
    /// Its directories below the project home.
    dirs: Vec<String>,
    file_name: String,
    /// The name it takes beside an existing note.
    beside_name: String,
}

impl Plan {
    fn of(candidate: &Candidate, suffix: &str) -> Plan {
        // The candidate's directory starts with `project/<key>`.
        let dirs: Vec<String> = candidate.dir.iter().skip(2).cloned().collect();
        let file_name = candidate.name.clone();
        let path = dirs
            .iter()
            .chain([&file_name])
            .cloned()
            .collect::<Vec<_>>()
            .join("/");
        let stem = file_name.strip_suffix(".md").unwrap_or(&file_name);
        Plan {
            beside_name: format!("{stem}{suffix}.md"),
            path,
            dirs,
            file_name,
        }
    }

    /// The directories of the note under `key`, from the notes home.
    fn dirs_under(&self, key: &str) -> Vec<String> {
        let mut dirs = vec![PROJECT_DIR.to_string(), key.to_string()];
        dirs.extend(self.dirs.iter().cloned());
        dirs
    }

    /// `name` in the note's directory under `key`, relative to the notes home (a lock's key).
    fn relative(&self, key: &str, name: &str) -> String {
        let mut parts = self.dirs_under(key);
        parts.push(name.to_string());
        parts.join("/")
    }

    /// The path below the project home of `name` in the note's directory.
    fn sibling(&self, name: &str) -> String {
        let mut parts = self.dirs.clone();
        parts.push(name.to_string());
        parts.join("/")
    }
}

/// Moves a batch of notes under their locks and commits them.
fn move_batch(
    store: &Store,
    root: &Dir,
    batch: &[Candidate],
    migration: &mut Migration,
) -> Result<(), NotesError> {
    let (from, to) = (migration.from_key.clone(), migration.to_key.clone());
    let suffix = format!(".from-{}", slugify(&from));
    let plans: Vec<Plan> = batch.iter().map(|c| Plan::of(c, &suffix)).collect();
    let mut names: Vec<String> = plans
        .iter()
        .flat_map(|plan| {
            [
                plan.relative(&from, &plan.file_name),
                plan.relative(&to, &plan.file_name),
                plan.relative(&to, &plan.beside_name),
            ]
        })
        .collect();
    names.sort();
    names.dedup();
    let _locks = names
        .iter()
        .map(|name| lock::lock(root, name))
        .collect::<Result<Vec<_>, _>>()?;
    for name in &names {
        store.mark_pending(root, name)?;
    }
    let mut changes: Vec<(String, Option<String>)> = Vec::new();
    for plan in &plans {
        match move_one(root, plan, &from, &to, store.dreamer_token()) {
            Ok(Some((to_name, text))) => {
                changes.push((plan.relative(&from, &plan.file_name), None));
                changes.push((plan.relative(&to, &to_name), Some(text)));
                migration.moved.push(Moved {
                    path: plan.path.clone(),
                    to: plan.sibling(&to_name),
                });
            }
            Ok(None) => {}
            Err(reason) => migration.left.push(Left {
                path: plan.path.clone(),
                reason,
            }),
        }
    }
    if !changes.is_empty() {
        let changes: Vec<PathChange> = changes
            .iter()
            .map(|(path, text)| PathChange {
                path,
                content: text.as_deref().map(str::as_bytes),
            })
            .collect();
        migration.history.push(store.record_now(
            root,
            &history::Operation {
                name: "migrate",
                target: "@project",
                on_note: false,
                extra: &[("From-Key", &from), ("To-Key", &to)],
                changes: &changes,
            },
        ));
    } else {
        for name in &names {
            super::pending::clear(root, name);
        }
    }
    Ok(())
}

/// Moves one note (its locks held): to its own address under `to`, else beside the note
/// there. Returns the name it got and its content, `None` when it is gone already, or why it
/// stays.
fn move_one(
    root: &Dir,
    plan: &Plan,
    from: &str,
    to: &str,
    own_token: Option<&str>,
) -> Result<Option<(String, String)>, String> {
    let attempt = || -> Result<Option<(String, String)>, NotesError> {
        let source_dirs = plan.dirs_under(from);
        let Some(source) = files::open_dirs(root, &refs(&source_dirs))? else {
            return Ok(None);
        };
        let Some(disk) = files::read_note(&source, &plan.file_name)? else {
            return Ok(None);
        };
        let target = files::create_dirs(root, &refs(&plan.dirs_under(to)))?;
        for name in [&plan.file_name, &plan.beside_name] {
            let moved = source
                .rename_to_new(&plan.file_name, &target, name)
                .map_err(files::notes_error)?;
            if moved {
                journal::record(
                    root,
                    &plan.relative(from, &plan.file_name),
                    Some(&disk.text),
                    None,
                    own_token,
                );
                let to_path = plan.relative(to, name);
                journal::record(root, &to_path, None, Some(&disk.text), own_token);
                return Ok(Some((name.clone(), disk.text)));
            }
        }
        Err(NotesError::AlreadyExists(format!(
            "both {} and {} exist under the new key",
            plan.path,
            plan.sibling(&plan.beside_name)
        )))
    };
    attempt().map_err(|e| e.to_string())
}

fn refs(items: &[String]) -> Vec<&str> {
    items.iter().map(String::as_str).collect()
}

/// Removes the empty directories under `project/<key>/`, and it too when it is empty (best
/// effort: a directory that is not empty, or cannot be removed, stays).
fn remove_empty_dirs(root: &Dir, key: &str) {
    let Ok(Some(project)) = root.open_dir(PROJECT_DIR) else {
        return;
    };
    if let Ok(Some(mut old)) = project.open_dir(key) {
        remove_empty_below(&mut old);
        let _ = project.remove_empty_dir(key);
    }
}

fn remove_empty_below(dir: &mut Dir) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    for entry in entries.into_iter().filter(|e| e.kind == Kind::Dir) {
        if let Ok(Some(mut child)) = dir.open_dir(&entry.name) {
            remove_empty_below(&mut child);
            let _ = dir.remove_empty_dir(&entry.name);
        }
    }
}
