//! The three-way merge of our tip and the remote's, path by path.
//!
//! Only the paths the remote changed since the merge base can differ from our tip in the
//! result, so the merge walks the base and their tree side by side (skipping every subtree both
//! hold alike) and decides each of those paths:
//!
//! - we left it as in the base: theirs is taken (a change, an addition or a deletion);
//! - we changed it the same way: nothing to do;
//! - we deleted it and they edited it, or the other way round: the edit is kept;
//! - both edited it: a note is merged by [`super::note`] (body line by line, frontmatter key by
//!   key), other text line by line by [`super::text`]; a conflict keeps both versions between
//!   markers. A binary file keeps ours, and theirs goes next to it at `<path>.theirs-<short>`.
//!
//! Their tree is not trusted: an entry whose name could leave the home or reach its machinery
//! (`..`, `.git`, an empty name, a slash, the store's lock files), a symbolic link, a submodule,
//! a blob over [`MAX_BLOB_BYTES`] or a tree nested deeper than [`MAX_DEPTH`] is refused — left
//! as our tip has it — and reported. Nothing of theirs is ever written outside the home or
//! through a link (the files are written through [`crate::beneath`] as well).

use std::collections::BTreeSet;
use std::path::Path;

use git2::build::TreeUpdateBuilder;
use git2::{FileMode, ObjectType, Oid, Repository, Tree, TreeEntry};
use serde::Serialize;

use super::note::{self, KeyConflict};
use super::text::{self, Labels};
use crate::home::layout::{self, GIT_DIR};

/// Their blobs larger than this are refused (a note is at most 1 MB; the dream's audit leaves
/// files over 64 MiB out too).
pub const MAX_BLOB_BYTES: usize = 64 << 20;
/// Their trees nested deeper than this are refused (no home nests anywhere near it).
pub const MAX_DEPTH: usize = 32;

/// A blob entry of a tree: its object and its mode (`0o100644` or `0o100755`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub oid: Oid,
    pub mode: i32,
}

/// One path whose merged entry differs from our tip's: what to put on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathWrite {
    /// Relative to the home, `/`-separated, checked component by component.
    pub path: String,
    /// Our tip's blob at the path (`None`: absent, or not a blob).
    pub ours: Option<Oid>,
    /// The merged entry (`None`: the path is removed).
    pub merged: Option<Entry>,
}

/// An entry of theirs left out of the merge, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refused {
    pub path: String,
    pub reason: &'static str,
}

/// A binary file both sides changed: ours stays at `path`, theirs is kept at `theirs_path`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptAside {
    pub path: String,
    pub theirs_path: String,
}

/// The merged tree and everything a person should hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub tree: Oid,
    /// Sorted by path.
    pub writes: Vec<PathWrite>,
    /// Paths whose merged text keeps a conflict between markers.
    pub conflicts: Vec<String>,
    /// Frontmatter values both sides changed differently: (path, conflict).
    pub key_conflicts: Vec<(String, KeyConflict)>,
    pub kept_aside: Vec<KeptAside>,
    pub refused: Vec<Refused>,
}

/// What to merge: `theirs` into `ours` (`None`: an unborn branch), over `base` (`None`:
/// unrelated histories, merged as if from an empty tree).
pub struct Sides<'a, 'r> {
    pub repo: &'r Repository,
    pub base: Option<&'a Tree<'r>>,
    pub ours: Option<&'a Tree<'r>>,
    pub theirs: &'a Tree<'r>,
    /// Their commit, abbreviated: names what a binary conflict keeps aside.
    pub theirs_short: &'a str,
    pub labels: &'a Labels,
}

/// What one side holds at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Blob(Entry),
    /// A link, a submodule or another entry that is not a plain blob: never merged or written.
    Other(Oid, i32),
}

pub fn merge(sides: &Sides) -> Result<Merged, git2::Error> {
    let mut theirs_changes = Vec::new();
    let mut refused = Vec::new();
    changes(
        sides.repo,
        sides.base,
        Some(sides.theirs),
        "",
        0,
        &mut theirs_changes,
        &mut refused,
    )?;
    let mut merged = Merged {
        tree: Oid::ZERO_SHA1,
        writes: Vec::new(),
        conflicts: Vec::new(),
        key_conflicts: Vec::new(),
        kept_aside: Vec::new(),
        refused,
    };
    for (path, theirs) in theirs_changes {
        let base = held(sides.base, &path);
        let ours = held(sides.ours, &path);
        let result = if ours == base {
            theirs.map(Held::Blob)
        } else if ours == theirs.map(Held::Blob) {
            continue;
        } else {
            match resolve(sides, &path, base, ours, theirs, &mut merged)? {
                Some(result) => result,
                None => continue,
            }
        };
        if result == ours {
            continue;
        }
        if let Some(Held::Other(..)) = ours {
            // Never written over: the file system entry may be a link.
            merged.refused.push(Refused {
                path,
                reason: "ours is a symbolic link or a submodule there",
            });
            continue;
        }
        let merged_entry = match result {
            Some(Held::Blob(entry)) => Some(entry),
            None => None,
            Some(Held::Other(..)) => continue,
        };
        merged.writes.push(PathWrite {
            ours: blob_of(ours),
            path,
            merged: merged_entry,
        });
    }
    refuse_clashes(sides.ours, &mut merged);
    merged.writes.sort_by(|a, b| a.path.cmp(&b.path));
    merged.tree = build_tree(sides.repo, sides.ours, &merged.writes)?;
    Ok(merged)
}

/// Both sides changed `path` differently: the merged entry (`Some(None)`: removed), or `None`
/// when ours stays as it is.
fn resolve(
    sides: &Sides,
    path: &str,
    base: Option<Held>,
    ours: Option<Held>,
    theirs: Option<Entry>,
    merged: &mut Merged,
) -> Result<Option<Option<Held>>, git2::Error> {
    let (ours_entry, theirs_entry) = match (ours, theirs) {
        // Deleted here, edited there: the edit is kept.
        (None, Some(theirs)) => return Ok(Some(Some(Held::Blob(theirs)))),
        // Edited here (or something of ours that is not a blob), deleted there: ours stays.
        (Some(_), None) | (None, None) => return Ok(None),
        (Some(Held::Other(..)), Some(_)) => {
            merged.refused.push(Refused {
                path: path.to_string(),
                reason: "ours is a symbolic link or a submodule there",
            });
            return Ok(None);
        }
        (Some(Held::Blob(ours)), Some(theirs)) => (ours, theirs),
    };
    let repo = sides.repo;
    let ours_bytes = repo.find_blob(ours_entry.oid)?.content().to_vec();
    let theirs_bytes = repo.find_blob(theirs_entry.oid)?.content().to_vec();
    let base_bytes = match base {
        Some(Held::Blob(entry)) => Some(repo.find_blob(entry.oid)?.content().to_vec()),
        _ => None,
    };
    let texts = (
        as_text(&ours_bytes),
        as_text(&theirs_bytes),
        base_bytes.as_deref().map(as_text),
    );
    let (Some(ours_text), Some(theirs_text), base_text) = texts else {
        return keep_aside(sides, path, theirs_entry, merged).map(|_| None);
    };
    // A binary base merges as an empty one: both texts are kept whole where they differ.
    let base_text = base_text.flatten();
    let text = if path.ends_with(".md") {
        let result = note::merge(base_text, ours_text, theirs_text, sides.labels);
        for conflict in result.key_conflicts {
            merged.key_conflicts.push((path.to_string(), conflict));
        }
        if result.body_conflicts > 0 {
            merged.conflicts.push(path.to_string());
        }
        result.text
    } else {
        let result = text::merge(
            base_text.unwrap_or(""),
            ours_text,
            theirs_text,
            sides.labels,
        );
        if result.conflicts > 0 {
            merged.conflicts.push(path.to_string());
        }
        result.text
    };
    let oid = repo.blob(text.as_bytes())?;
    Ok(Some(Some(Held::Blob(Entry {
        oid,
        mode: ours_entry.mode,
    }))))
}

/// Ours stays at `path`; theirs goes to `<path>.theirs-<short>`.
fn keep_aside(
    sides: &Sides,
    path: &str,
    theirs: Entry,
    merged: &mut Merged,
) -> Result<(), git2::Error> {
    let theirs_path = format!("{path}.theirs-{}", sides.theirs_short);
    let ours_there = held(sides.ours, &theirs_path);
    if ours_there != Some(Held::Blob(theirs)) {
        merged.writes.push(PathWrite {
            ours: blob_of(ours_there),
            path: theirs_path.clone(),
            merged: Some(theirs),
        });
    }
    merged.kept_aside.push(KeptAside {
        path: path.to_string(),
        theirs_path,
    });
    Ok(())
}

/// Text when the bytes are UTF-8 without a NUL byte (what git also calls binary).
fn as_text(bytes: &[u8]) -> Option<&str> {
    if memchr::memchr(0, bytes).is_some() {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

fn blob_of(held: Option<Held>) -> Option<Oid> {
    match held {
        Some(Held::Blob(entry)) => Some(entry.oid),
        _ => None,
    }
}

/// What `tree` holds at `path` (`None`: nothing, or a directory).
fn held(tree: Option<&Tree>, path: &str) -> Option<Held> {
    let entry = tree?.get_path(Path::new(path)).ok()?;
    match entry.kind() {
        Some(ObjectType::Tree) => None,
        _ => Some(held_entry(&entry)),
    }
}

fn held_entry(entry: &TreeEntry) -> Held {
    let mode = entry.filemode();
    match mode {
        0o100644 | 0o100755 | 0o100664 if entry.kind() == Some(ObjectType::Blob) => {
            Held::Blob(Entry {
                oid: entry.id(),
                mode: if mode == 0o100755 { mode } else { 0o100644 },
            })
        }
        _ => Held::Other(entry.id(), mode),
    }
}

/// The blob paths `side` changed relative to `base` under `prefix`, each with its new entry
/// (`None`: removed), into `out`; their entries that cannot be taken into `refused`.
fn changes(
    repo: &Repository,
    base: Option<&Tree>,
    side: Option<&Tree>,
    prefix: &str,
    depth: usize,
    out: &mut Vec<(String, Option<Entry>)>,
    refused: &mut Vec<Refused>,
) -> Result<(), git2::Error> {
    let mut names: BTreeSet<Vec<u8>> = BTreeSet::new();
    for tree in [base, side].into_iter().flatten() {
        names.extend(tree.iter().map(|e| e.name_bytes().to_vec()));
    }
    for name in names {
        let before = base.and_then(|t| entry_named(t, &name));
        let after = side.and_then(|t| entry_named(t, &name));
        if let (Some(b), Some(a)) = (&before, &after) {
            if b.id() == a.id() && b.filemode() == a.filemode() {
                continue;
            }
        }
        let path = format!("{prefix}{}", shown_name(&name));
        if let Err(reason) = check_name(&name, prefix.is_empty(), depth) {
            // Removing something unreachable is nothing to do; adding or changing it is refused.
            if after.is_some() {
                refused.push(Refused { path, reason });
            }
            continue;
        }
        let subtree = |entry: &Option<TreeEntry>| -> Result<Option<Tree>, git2::Error> {
            match entry {
                Some(e) if e.kind() == Some(ObjectType::Tree) => Ok(Some(repo.find_tree(e.id())?)),
                _ => Ok(None),
            }
        };
        let (before_tree, after_tree) = (subtree(&before)?, subtree(&after)?);
        if before_tree.is_some() || after_tree.is_some() {
            changes(
                repo,
                before_tree.as_ref(),
                after_tree.as_ref(),
                &format!("{path}/"),
                depth + 1,
                out,
                refused,
            )?;
        }
        match (&after, after_tree.is_some()) {
            (Some(_), true) => {
                // A file that became a directory is removed first.
                if before.is_some() && before_tree.is_none() {
                    out.push((path, None));
                }
            }
            (Some(entry), false) => match held_entry(entry) {
                Held::Blob(blob) => match blob_size(repo, blob.oid) {
                    Some(size) if size <= MAX_BLOB_BYTES => out.push((path, Some(blob))),
                    _ => refused.push(Refused {
                        path,
                        reason: "a file over 64 MiB, or not a readable blob",
                    }),
                },
                Held::Other(_, mode) => refused.push(Refused {
                    path,
                    reason: if mode == 0o120000 {
                        "a symbolic link (links are never written into the notes home)"
                    } else {
                        "a submodule or an entry that is not a file"
                    },
                }),
            },
            (None, _) => {
                if before.is_some() && before_tree.is_none() {
                    out.push((path, None));
                }
            }
        }
    }
    Ok(())
}

fn entry_named<'t>(tree: &'t Tree, name: &[u8]) -> Option<TreeEntry<'t>> {
    tree.iter().find(|e| e.name_bytes() == name)
}

fn blob_size(repo: &Repository, oid: Oid) -> Option<usize> {
    let (size, kind) = repo.odb().ok()?.read_header(oid).ok()?;
    (kind == ObjectType::Blob).then_some(size)
}

/// An entry name as reports show it: control characters escaped, so a name can never add a
/// line of its own.
fn shown_name(name: &[u8]) -> String {
    crate::text::one_line(&String::from_utf8_lossy(name))
}

/// Why an entry name of theirs cannot be taken, if it cannot.
fn check_name(name: &[u8], at_root: bool, depth: usize) -> Result<(), &'static str> {
    let outside = "a path that could leave the notes home or reach its repository";
    let Ok(name) = std::str::from_utf8(name) else {
        return Err("a name that is not UTF-8");
    };
    if name.chars().any(char::is_control) {
        // A newline in a name could forge lines of the sync's report.
        return Err("a name with a control character (a newline could forge lines of the report)");
    }
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\', '\0'])
        || name.eq_ignore_ascii_case(GIT_DIR)
    {
        return Err(outside);
    }
    if depth >= MAX_DEPTH {
        return Err("a directory nested too deep");
    }
    if layout::is_machinery(name, at_root) {
        return Err(
            "the notes store's own machinery (a lock, the journal or a temp file of a write)",
        );
    }
    Ok(())
}

/// A path theirs adds below a file of ours (or a file where ours has a directory) cannot be
/// both: ours stays, and theirs is refused.
fn refuse_clashes(ours: Option<&Tree>, merged: &mut Merged) {
    let removed: BTreeSet<&str> = merged
        .writes
        .iter()
        .filter(|w| w.merged.is_none())
        .map(|w| w.path.as_str())
        .collect();
    let added: BTreeSet<String> = merged
        .writes
        .iter()
        .filter(|w| w.merged.is_some())
        .map(|w| w.path.clone())
        .collect();
    let is_file = |path: &str| {
        (ours
            .and_then(|t| t.get_path(Path::new(path)).ok())
            .is_some_and(|e| e.kind() != Some(ObjectType::Tree))
            && !removed.contains(path))
            || added.contains(path)
    };
    let is_dir = |path: &str| {
        ours.and_then(|t| t.get_path(Path::new(path)).ok())
            .is_some_and(|e| e.kind() == Some(ObjectType::Tree))
            || added.iter().any(|a| a.starts_with(&format!("{path}/")))
    };
    let mut clashing = Vec::new();
    for write in merged.writes.iter().filter(|w| w.merged.is_some()) {
        let parents = write.path.match_indices('/').map(|(i, _)| &write.path[..i]);
        let under_a_file = parents.into_iter().any(is_file);
        if under_a_file || is_dir(&write.path) {
            clashing.push(write.path.clone());
        }
    }
    for path in clashing {
        merged.writes.retain(|w| w.path != path);
        merged.refused.push(Refused {
            path,
            reason: "a file where the other side has a directory of the same name",
        });
    }
}

/// Our tree (empty when unborn) with the writes applied.
fn build_tree(
    repo: &Repository,
    ours: Option<&Tree>,
    writes: &[PathWrite],
) -> Result<Oid, git2::Error> {
    let empty;
    let base = match ours {
        Some(tree) => tree,
        None => {
            empty = repo.find_tree(repo.treebuilder(None)?.write()?)?;
            &empty
        }
    };
    let mut update = TreeUpdateBuilder::new();
    for write in writes {
        match write.merged {
            Some(entry) => {
                let mode = if entry.mode == 0o100755 {
                    FileMode::BlobExecutable
                } else {
                    FileMode::Blob
                };
                update.upsert(&write.path, entry.oid, mode);
            }
            None if base.get_path(Path::new(&write.path)).is_ok() => {
                update.remove(&write.path);
            }
            None => {}
        }
    }
    update.create_updated(repo, base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::text::tests::labels;

    /// A tree of `files` (path, content) written with the tree update builder.
    fn tree<'r>(repo: &'r Repository, files: &[(&str, &str)]) -> Tree<'r> {
        let empty = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let mut update = TreeUpdateBuilder::new();
        for (path, content) in files {
            update.upsert(
                *path,
                repo.blob(content.as_bytes()).unwrap(),
                FileMode::Blob,
            );
        }
        repo.find_tree(update.create_updated(repo, &empty).unwrap())
            .unwrap()
    }

    fn run(
        repo: &Repository,
        base: &[(&str, &str)],
        ours: &[(&str, &str)],
        theirs: &[(&str, &str)],
    ) -> Merged {
        let (b, o, t) = (tree(repo, base), tree(repo, ours), tree(repo, theirs));
        merge(&Sides {
            repo,
            base: Some(&b),
            ours: Some(&o),
            theirs: &t,
            theirs_short: "abc1234",
            labels: &labels(),
        })
        .unwrap()
    }

    fn content(repo: &Repository, tree: Oid, path: &str) -> Option<String> {
        let tree = repo.find_tree(tree).unwrap();
        let entry = tree.get_path(Path::new(path)).ok()?;
        Some(String::from_utf8(repo.find_blob(entry.id()).unwrap().content().to_vec()).unwrap())
    }

    #[test]
    fn each_side_keeps_its_own_changes_and_takes_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let merged = run(
            &repo,
            &[("a.md", "a\n"), ("b.md", "b\n"), ("gone.md", "x\n")],
            &[
                ("a.md", "A\n"),
                ("b.md", "b\n"),
                ("gone.md", "x\n"),
                ("mine.md", "m\n"),
            ],
            &[("a.md", "a\n"), ("b.md", "B\n"), ("theirs/new.md", "n\n")],
        );
        assert_eq!(content(&repo, merged.tree, "a.md").unwrap(), "A\n");
        assert_eq!(content(&repo, merged.tree, "b.md").unwrap(), "B\n");
        assert_eq!(content(&repo, merged.tree, "mine.md").unwrap(), "m\n");
        assert_eq!(content(&repo, merged.tree, "theirs/new.md").unwrap(), "n\n");
        assert!(content(&repo, merged.tree, "gone.md").is_none());
        let paths: Vec<&str> = merged.writes.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(paths, ["b.md", "gone.md", "theirs/new.md"]);
        assert!(merged.conflicts.is_empty() && merged.refused.is_empty());
    }

    #[test]
    fn delete_against_edit_keeps_the_edit_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let merged = run(&repo, &[("n.md", "x\n")], &[], &[("n.md", "edited\n")]);
        assert_eq!(content(&repo, merged.tree, "n.md").unwrap(), "edited\n");
        let merged = run(&repo, &[("n.md", "x\n")], &[("n.md", "edited\n")], &[]);
        assert_eq!(content(&repo, merged.tree, "n.md").unwrap(), "edited\n");
        assert!(merged.writes.is_empty());
        let merged = run(&repo, &[("n.md", "x\n")], &[], &[]);
        assert!(content(&repo, merged.tree, "n.md").is_none());
    }

    #[test]
    fn a_binary_file_changed_on_both_sides_keeps_theirs_aside() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let merged = run(
            &repo,
            &[("f.bin", "\0a")],
            &[("f.bin", "\0o")],
            &[("f.bin", "\0t")],
        );
        assert_eq!(content(&repo, merged.tree, "f.bin").unwrap(), "\0o");
        assert_eq!(
            content(&repo, merged.tree, "f.bin.theirs-abc1234").unwrap(),
            "\0t"
        );
        assert_eq!(
            merged.kept_aside,
            [KeptAside {
                path: "f.bin".into(),
                theirs_path: "f.bin.theirs-abc1234".into()
            }]
        );
    }

    #[test]
    fn a_file_under_a_file_of_ours_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let merged = run(&repo, &[], &[("a", "file\n")], &[("a/b.md", "x\n")]);
        assert_eq!(content(&repo, merged.tree, "a").unwrap(), "file\n");
        assert_eq!(merged.refused.len(), 1, "{:?}", merged.refused);
        assert!(merged.writes.is_empty());
    }

    #[test]
    fn hostile_names_are_refused() {
        for name in ["..", ".", ".git", ".GIT", "a\\b", ""] {
            assert!(check_name(name.as_bytes(), false, 0).is_err(), "{name:?}");
        }
        assert!(check_name(b".sync.lock", true, 0).is_err());
        assert!(check_name(b".locks", true, 0).is_err());
        assert!(check_name(b".locks", false, 1).is_ok());
        assert!(check_name(b"\xff", false, 0).is_err());
        assert!(check_name(b"a\nrefused: forged", false, 0).is_err());
        assert!(check_name(b"tab\there", false, 0).is_err());
        assert_eq!(shown_name(b"a\nb"), "a\\nb");
        assert!(check_name(b"notes.md", false, MAX_DEPTH).is_err());
        assert!(check_name(b"notes.md", false, 1).is_ok());
    }
}
