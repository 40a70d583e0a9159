//! Emptying the wastebasket: removing the notes that were crumpled long ago.
//!
//! Only `dream` calls this (the dreamer itself never deletes): after its post-run audit, every
//! note crumpled before a cutoff is removed, in every home of the store, each under its own lock
//! and re-checked there, so a note smoothed or rewritten meanwhile stays. When the home is a git
//! repository the removal is committed, so the note stays in history.

use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;

use crate::beneath::{Dir, Kind};
use crate::home::layout::{AGENTS_DIR, MODELS_DIR, PROJECT_DIR, SESSIONS_DIR};
use crate::notes::address::Home;
use crate::notes::frontmatter::{Document, Key};
use crate::notes::NotesError;
use crate::notes::{clock, files, lock, walk};

/// A note the wastebasket gave up.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Purged {
    /// Relative to the notes home.
    pub path: String,
    /// Its `crumpledAt`, as written.
    pub crumpled_at: String,
}

/// Removes every note crumpled before `cutoff`, in every home. Notes whose `crumpledAt` does not
/// parse are kept.
pub fn purge_crumpled(home: &Path, cutoff: Timestamp) -> Result<Vec<Purged>, NotesError> {
    let Some(root) = files::open_root(home)? else {
        return Ok(Vec::new());
    };
    let mut purged = Vec::new();
    for store_home in every_home(&root)? {
        let notes = walk::notes_in(&root, &store_home).map_err(files::notes_error)?;
        for note in notes {
            if let Some(gone) = purge_one(&root, &note, cutoff)? {
                purged.push(gone);
            }
        }
    }
    purged.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(purged)
}

fn purge_one(
    root: &Dir,
    note: &walk::Candidate,
    cutoff: Timestamp,
) -> Result<Option<Purged>, NotesError> {
    let relative = format!("{}/{}", note.dir.join("/"), note.name);
    let Some(dir) = files::open_dirs(
        root,
        &note.dir.iter().map(String::as_str).collect::<Vec<_>>(),
    )?
    else {
        return Ok(None);
    };
    if crumpled_before(&dir, &note.name, cutoff)?.is_none() {
        return Ok(None);
    }
    let _lock = lock::lock(root, &relative).map_err(NotesError::from)?;
    // Checked again under the lock: a note smoothed or rewritten meanwhile stays.
    let Some(crumpled_at) = crumpled_before(&dir, &note.name, cutoff)? else {
        return Ok(None);
    };
    dir.remove_file(&note.name).map_err(files::notes_error)?;
    dir.sync().map_err(files::notes_error)?;
    Ok(Some(Purged {
        path: relative,
        crumpled_at,
    }))
}

/// The note's `crumpledAt` when it is set and before `cutoff`. A file that cannot be read as a
/// note (a hard link, not UTF-8, too large, unreadable) is left alone: only what is surely an
/// old crumpled note goes.
fn crumpled_before(dir: &Dir, name: &str, cutoff: Timestamp) -> Result<Option<String>, NotesError> {
    let Ok(Some(disk)) = files::read_note(dir, name) else {
        return Ok(None);
    };
    let Some(at) = Document::parse(&disk.text).get(Key::CrumpledAt) else {
        return Ok(None);
    };
    Ok(clock::parse(&at).filter(|t| *t < cutoff).map(|_| at))
}

/// Every home of the store: `human/`, each `project/<key>/`, `agents/<name>/`, `models/<name>/`
/// and `pi/session/<id>/`.
fn every_home(root: &Dir) -> Result<Vec<Home>, NotesError> {
    let mut homes = vec![Home::Human];
    for key in subdirectories(root, &[PROJECT_DIR])? {
        homes.push(Home::Project(key));
    }
    for name in walk::home_names(root, AGENTS_DIR).map_err(files::notes_error)? {
        homes.push(Home::Agent {
            name,
            current: false,
        });
    }
    for name in walk::home_names(root, MODELS_DIR).map_err(files::notes_error)? {
        homes.push(Home::Model {
            name,
            current: false,
        });
    }
    for id in subdirectories(root, &SESSIONS_DIR)? {
        homes.push(Home::Session(id));
    }
    Ok(homes)
}

/// The names of the real directories in `components` (plain, visible names only).
fn subdirectories(root: &Dir, components: &[&str]) -> Result<Vec<String>, NotesError> {
    let Some(mut dir) = files::open_dirs(root, components)? else {
        return Ok(Vec::new());
    };
    let mut names: Vec<String> = dir
        .entries()
        .map_err(files::notes_error)?
        .into_iter()
        .filter(|e| e.kind == Kind::Dir)
        .filter_map(|e| e.name.into_string().ok())
        .filter(|n| !n.starts_with('.') && !n.chars().any(char::is_control))
        .collect();
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn note(crumpled: Option<&str>) -> String {
        let mut text = String::from("---\norigin: self\n");
        if let Some(at) = crumpled {
            text.push_str(&format!("crumpledAt: {at}\n"));
        }
        text.push_str("---\n\nbody\n");
        text
    }

    #[test]
    fn removes_only_notes_crumpled_before_the_cutoff_in_every_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let put = |rel: &str, text: String| {
            let path = home.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        put("human/old.md", note(Some("2026-01-01T00:00:00.000+00:00")));
        put(
            "human/recent.md",
            note(Some("2026-02-25T00:00:00.000+00:00")),
        );
        put("human/live.md", note(None));
        put(
            "project/app-1a2b3c4d/old.md",
            note(Some("2025-12-01T00:00:00Z")),
        );
        put("agents/other/old.md", note(Some("2025-12-01T00:00:00Z")));
        put(
            "pi/session/s1/deep/old.md",
            note(Some("2025-12-01T00:00:00Z")),
        );
        put("human/bad.md", note(Some("yesterday")));
        let cutoff: Timestamp = "2026-02-01T00:00:00Z".parse().unwrap();
        let purged: Vec<String> = purge_crumpled(home, cutoff)
            .unwrap()
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert_eq!(
            purged,
            [
                "agents/other/old.md",
                "human/old.md",
                "pi/session/s1/deep/old.md",
                "project/app-1a2b3c4d/old.md",
            ]
        );
        for kept in ["human/recent.md", "human/live.md", "human/bad.md"] {
            assert!(home.join(kept).exists(), "{kept}");
        }
        assert!(!home.join("human/old.md").exists());
    }
}
