//! The git audit trail of the notes home, with git2 (no `git` executable needed).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use git2::{Delta, IndexAddOption, Oid, Repository, Signature, Tree};
use serde::Serialize;

/// Never snapshotted: the dream lock and its last-run file, and the notes store's lock files.
const EXCLUDE_LINES: [&str; 3] = [".dream.lock*", "/.locks/", ".pi-context.*.tmp"];

/// One path that differs between two snapshots.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Change {
    /// `added`, `modified` or `deleted`.
    pub kind: &'static str,
    /// Relative to the notes home, `/`-separated.
    pub path: String,
}

pub struct Audit {
    repo: Repository,
    home: PathBuf,
}

impl Audit {
    /// Opens the repository at the home, creating it if absent, and keeps the lock files out of
    /// every snapshot.
    pub fn open_or_init(home: &Path) -> Result<Audit, git2::Error> {
        let repo = match Repository::open(home) {
            Ok(repo) if repo.workdir().is_some_and(|w| same_dir(w, home)) => repo,
            _ => Repository::init(home)?,
        };
        let audit = Audit {
            repo,
            home: home.to_path_buf(),
        };
        audit
            .ensure_excluded()
            .map_err(|e| git2::Error::from_str(&format!("cannot write .git/info/exclude: {e}")))?;
        Ok(audit)
    }

    fn ensure_excluded(&self) -> io::Result<()> {
        let info = self.repo.path().join("info");
        fs::create_dir_all(&info)?;
        let exclude = info.join("exclude");
        let current = fs::read_to_string(&exclude).unwrap_or_default();
        let missing: Vec<&str> = EXCLUDE_LINES
            .into_iter()
            .filter(|line| !current.lines().any(|l| l.trim() == *line))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&exclude)?;
        if !current.is_empty() && !current.ends_with('\n') {
            file.write_all(b"\n")?;
        }
        for line in missing {
            writeln!(file, "{line}")?;
        }
        Ok(())
    }

    /// Stages everything (additions, changes, deletions) and returns the staged tree.
    pub fn stage_all(&self) -> Result<Oid, git2::Error> {
        let mut index = self.repo.index()?;
        index.add_all(["*"], IndexAddOption::DEFAULT, None)?;
        index.update_all(["*"], None)?;
        index.write()?;
        index.write_tree()
    }

    fn head_commit(&self) -> Option<git2::Commit<'_>> {
        self.repo.head().ok()?.peel_to_commit().ok()
    }

    /// Commits the staged home when it differs from HEAD, or when the repository has no commit
    /// yet (then possibly empty). Returns the commit made, if any, and the snapshot tree.
    pub fn commit_all(&self, message: &str) -> Result<(Option<Oid>, Oid), git2::Error> {
        let tree_id = self.stage_all()?;
        let head = self.head_commit();
        if head.as_ref().is_some_and(|h| h.tree_id() == tree_id) {
            return Ok((None, tree_id));
        }
        let tree = self.repo.find_tree(tree_id)?;
        let signature = self.signature()?;
        let parents: Vec<&git2::Commit> = head.iter().collect();
        let oid = self.repo.commit(
            Some("HEAD"),
            &signature,
            &signature,
            message,
            &tree,
            &parents,
        )?;
        Ok((Some(oid), tree_id))
    }

    /// The user's git identity when configured, else `pi-context dream <dream@localhost>`.
    fn signature(&self) -> Result<Signature<'static>, git2::Error> {
        match self.repo.signature() {
            Ok(sig) => Ok(sig.to_owned()),
            Err(_) => Signature::now("pi-context dream", "dream@localhost"),
        }
    }

    /// Paths that differ between two trees, sorted.
    pub fn changes(&self, from: Oid, to: Oid) -> Result<Vec<Change>, git2::Error> {
        let (from, to) = (self.repo.find_tree(from)?, self.repo.find_tree(to)?);
        let diff = self.repo.diff_tree_to_tree(Some(&from), Some(&to), None)?;
        let mut changes: Vec<Change> = diff
            .deltas()
            .filter_map(|delta| {
                let kind = match delta.status() {
                    Delta::Added | Delta::Copied | Delta::Untracked => "added",
                    Delta::Deleted => "deleted",
                    Delta::Modified | Delta::Renamed | Delta::Typechange => "modified",
                    _ => return None,
                };
                let file = if kind == "deleted" {
                    delta.old_file()
                } else {
                    delta.new_file()
                };
                let path = file.path()?.to_string_lossy().replace('\\', "/");
                Some(Change { kind, path })
            })
            .collect();
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    /// Puts `path` back as it was in `baseline`: rewrites its bytes, or removes it when it did
    /// not exist then.
    pub fn restore(&self, baseline: Oid, path: &str) -> Result<(), git2::Error> {
        let tree: Tree = self.repo.find_tree(baseline)?;
        let target = self.home.join(path);
        let io_error = |e: io::Error| git2::Error::from_str(&format!("cannot restore {path}: {e}"));
        match tree.get_path(Path::new(path)) {
            Ok(entry) => {
                let blob = entry.to_object(&self.repo)?.peel_to_blob()?;
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(io_error)?;
                }
                if fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
                    fs::remove_dir_all(&target).map_err(io_error)?;
                }
                fs::write(&target, blob.content()).map_err(io_error)
            }
            Err(_) => match fs::remove_file(&target) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(e)),
                _ => Ok(()),
            },
        }
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
