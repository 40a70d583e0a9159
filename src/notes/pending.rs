//! Changes saved on disk whose commit is not made yet.
//!
//! A notes operation writes its note first and commits it second. A writer killed between the
//! two, or a commit that fails (a lock in the repository, a full disk), would leave a change on
//! disk that no commit ever records: later commits only add the paths they changed. So before
//! a note is written, a marker naming it is left in `<home>/.locks/pending/` (the name is the
//! note's lock name, the content its home-relative path), and removed once a commit holds the
//! note's change. Every commit first adopts the markers of notes whose lock is free — their
//! writer is done or dead — and commits those notes as they are on disk, under their locks.
//! A marker of a note whose lock is held belongs to a live writer, which commits it itself.

use std::os::unix::fs::FileExt;

use super::error::NotesError;
use super::files;
use super::lock::{self, NoteLock};
use crate::beneath::{Dir, Kind, ReadLimit};
use crate::home::layout::{
    AGENTS_DIR, HUMAN_DIR, LOCK_DIR, MODELS_DIR, PENDING_DIR, PROJECT_DIR, SESSIONS_DIR,
};

/// At most this many markers are adopted by one commit, so that a long backlog (commits failed
/// for days) is worked off over several writes instead of stalling one.
const ADOPT_AT_MOST: usize = 256;

/// A marker holds one path; anything longer is not ours.
const MARKER_MAX_BYTES: usize = 4096;

/// Leaves the marker of the note at `relative` (home-relative), before the note is written.
///
/// A marker's content is fixed by its name, so one that is already whole is left as it is: a
/// writer killed here must never cut short the marker of an earlier change nobody committed.
pub fn mark(root: &Dir, relative: &str) -> Result<(), NotesError> {
    let dir = root
        .create_dirs(&[LOCK_DIR, PENDING_DIR])
        .map_err(files::notes_error)?;
    let file = dir
        .open_or_create_file(lock::lock_name(relative))
        .map_err(files::notes_error)?;
    let failed = |e| NotesError::io(format!("cannot write the pending mark of {relative}"), e);
    let mut current = vec![0; relative.len() + 1];
    let read = file.read_at(&mut current, 0).map_err(failed)?;
    if &current[..read] == relative.as_bytes() {
        return Ok(());
    }
    file.write_all_at(relative.as_bytes(), 0)
        .and_then(|()| file.set_len(relative.len() as u64))
        .map_err(failed)
}

/// Removes the marker of the note at `relative`: its change is in a commit now.
pub fn clear(root: &Dir, relative: &str) {
    if let Ok(Some(dir)) = root.open_dirs(&[LOCK_DIR, PENDING_DIR]) {
        let _ = dir.remove_file(lock::lock_name(relative));
    }
}

/// A note whose change a dead or failed writer left uncommitted, taken over by this commit:
/// its lock is held until this value is dropped.
pub struct Adopted {
    _lock: NoteLock,
    /// Home-relative.
    pub relative: String,
    /// The note as it is on disk now; `None` when it is gone (a move's source, a removal).
    pub content: Option<Vec<u8>>,
}

/// The markers of other notes than `own` whose lock could be taken now, with their notes'
/// content. Markers that cannot be read, name no note or disagree with their name are
/// removed; a note that cannot be read now is left for a later commit.
pub fn adopt(root: &Dir, own: &[&str]) -> Vec<Adopted> {
    let Ok(Some(mut dir)) = root.open_dirs(&[LOCK_DIR, PENDING_DIR]) else {
        return Vec::new();
    };
    let Ok(entries) = dir.entries() else {
        return Vec::new();
    };
    let mut adopted = Vec::new();
    for entry in entries {
        if adopted.len() >= ADOPT_AT_MOST {
            break;
        }
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        if entry.kind != Kind::File || !lock::is_lock_name(name) {
            let _ = dir.remove_file(name);
            continue;
        }
        // A marker has its note's lock's name, and its writer holds that lock from before it
        // creates the marker until its commit: the lock is taken before the marker is read, so
        // that a marker still being written (empty, or cut short) is never taken for garbage
        // and removed under its writer, and a garbage one is removed with no writer at it.
        let Ok(Some(held)) = lock::try_lock_named(root, name) else {
            continue;
        };
        let Some(relative) = marked_path(&dir, name, entry.kind) else {
            let _ = dir.remove_file(name);
            continue;
        };
        if own.contains(&relative.as_str()) {
            continue;
        }
        let Ok(content) = files::read_below(root, &relative) else {
            continue;
        };
        adopted.push(Adopted {
            _lock: held,
            relative,
            content,
        });
    }
    adopted
}

/// The path a marker names, when it is a marker this module wrote.
fn marked_path(dir: &Dir, name: &str, kind: Kind) -> Option<String> {
    if kind != Kind::File {
        return None;
    }
    let limit = ReadLimit::Whole {
        max_bytes: MARKER_MAX_BYTES as u64,
    };
    let bytes = dir.read_file(name, limit).ok()??.bytes;
    let relative = String::from_utf8(bytes).ok()?;
    (is_note_path(&relative) && lock::lock_name(&relative) == name).then_some(relative)
}

/// A `/`-separated path of a note inside one of the five homes: never the store's machinery,
/// never a way out.
fn is_note_path(relative: &str) -> bool {
    let homes = [
        HUMAN_DIR,
        PROJECT_DIR,
        AGENTS_DIR,
        MODELS_DIR,
        SESSIONS_DIR[0],
    ];
    let mut parts = relative.split('/');
    let first_is_home = parts.next().is_some_and(|first| homes.contains(&first));
    first_is_home
        && relative.ends_with(".md")
        && relative.split('/').all(|part| {
            !part.is_empty() && part != "." && part != ".." && !part.contains(['\\', '\0'])
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_note_paths_inside_a_home_are_adopted() {
        for good in [
            "human/a.md",
            "project/p-0123abcd/x/y.md",
            "pi/session/s/n.md",
        ] {
            assert!(is_note_path(good), "{good}");
        }
        for bad in [
            "../x.md",
            "human/../../x.md",
            ".git/config",
            ".locks/x.md",
            "human/a",
            "human//a.md",
            "/human/a.md",
            "dreams/r.md",
            "human/a\\b.md",
        ] {
            assert!(!is_note_path(bad), "{bad}");
        }
    }

    #[test]
    fn a_marker_is_adopted_only_when_its_note_is_free() {
        let temp = tempfile::tempdir().unwrap();
        let root = Dir::open_root(temp.path()).unwrap().unwrap();
        std::fs::create_dir_all(temp.path().join("human")).unwrap();
        std::fs::write(temp.path().join("human/a.md"), "a").unwrap();
        mark(&root, "human/a.md").unwrap();
        mark(&root, "human/gone.md").unwrap();
        let held = lock::lock(&root, "human/a.md").unwrap();
        let adopted = adopt(&root, &[]);
        assert_eq!(adopted.len(), 1, "only the note nobody holds");
        assert_eq!(adopted[0].relative, "human/gone.md");
        assert_eq!(adopted[0].content, None);
        drop(adopted);
        drop(held);
        let adopted = adopt(&root, &["human/gone.md"]);
        assert_eq!(adopted.len(), 1);
        assert_eq!(adopted[0].content.as_deref(), Some(&b"a"[..]));
        clear(&root, "human/a.md");
        clear(&root, "human/gone.md");
        drop(adopted);
        assert!(adopt(&root, &[]).is_empty());
    }

    #[test]
    fn a_whole_marker_is_never_rewritten_and_a_damaged_one_is_mended() {
        let temp = tempfile::tempdir().unwrap();
        let root = Dir::open_root(temp.path()).unwrap().unwrap();
        let path = temp
            .path()
            .join(LOCK_DIR)
            .join(PENDING_DIR)
            .join(lock::lock_name("human/a.md"));
        mark(&root, "human/a.md").unwrap();
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        mark(&root, "human/a.md").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "human/a.md");
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before,
            "not written again"
        );
        std::fs::write(&path, "human/a.md and more garbage").unwrap();
        mark(&root, "human/a.md").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "human/a.md");
    }

    /// A writer holds its note's lock from before it creates the marker: a marker that reads
    /// as nothing yet (created, not yet written) under a held lock is left to its writer, and
    /// removed only once nobody holds that lock.
    #[test]
    fn a_marker_being_written_is_never_removed_under_its_writer() {
        let temp = tempfile::tempdir().unwrap();
        let root = Dir::open_root(temp.path()).unwrap().unwrap();
        let pending = temp.path().join(LOCK_DIR).join(PENDING_DIR);
        std::fs::create_dir_all(&pending).unwrap();
        let marker = pending.join(lock::lock_name("human/a.md"));
        let held = lock::lock(&root, "human/a.md").unwrap();
        std::fs::write(&marker, "").unwrap();
        assert!(adopt(&root, &[]).is_empty());
        assert!(marker.exists(), "left to the writer that holds the lock");
        std::fs::write(&marker, "human/a").unwrap();
        assert!(adopt(&root, &[]).is_empty());
        assert!(marker.exists(), "cut short, still being written");
        drop(held);
        assert!(adopt(&root, &[]).is_empty());
        assert!(!marker.exists(), "nobody writes it: garbage");
    }

    #[test]
    fn a_forged_marker_is_removed_not_followed() {
        let temp = tempfile::tempdir().unwrap();
        let root = Dir::open_root(temp.path()).unwrap().unwrap();
        let pending = temp.path().join(LOCK_DIR).join(PENDING_DIR);
        std::fs::create_dir_all(&pending).unwrap();
        std::fs::write(pending.join(lock::lock_name("../etc.md")), "../etc.md").unwrap();
        std::fs::write(pending.join(lock::lock_name("human/b.md")), "human/c.md").unwrap();
        assert!(adopt(&root, &[]).is_empty());
        assert_eq!(std::fs::read_dir(&pending).unwrap().count(), 0);
    }
}
