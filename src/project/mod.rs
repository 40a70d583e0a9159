//! Which project a directory belongs to: its key, `basename-<8 hex>` (docs/notes.md, "Project
//! keys across machines"). The notes store files `@project` notes under it, recall scopes
//! sessions by it, and the boot and the environment ask for it; so it lives here, below all of
//! them, and imports none of them.
//!
//! Computing a key never fails: a directory that is not in a checkout, a repository that cannot
//! be read or a missing `origin` all give the path-based key, so this module has no error type.

pub mod remote_url;

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use sha1::{Digest, Sha1};

fn relative_to(dir: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    }
}

/// A project's key and, when the key comes from its `origin` remote, the path-based key its
/// notes had before (they are moved once: `notes::migrate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectKeys {
    pub key: String,
    /// `basename(root) + "-" + sha1(root path)[..8]` when it differs from `key`.
    pub path_key: Option<String>,
}

/// `basename(root) + "-" + sha1(origin)[..8]`, where the root is the git checkout holding `cwd`
/// (linked worktrees give their main checkout), or `cwd` itself outside git, and `origin` is
/// the normalized URL of the root repository's `origin` remote ([`remote_url`]); without
/// one (or outside git) the root's path stands in for it (docs/notes.md, "Identity").
pub fn project_key(cwd: &Path) -> String {
    project_keys(cwd).key
}

/// [`project_key`] and the path-based key it replaces.
pub fn project_keys(cwd: &Path) -> ProjectKeys {
    let checkout = project_root(&real_path(cwd));
    let name = checkout
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "root".to_string());
    let path_key = format!("{name}-{}", sha1_prefix(&checkout.root.to_string_lossy()));
    let remote = checkout
        .git_dir
        .as_deref()
        .and_then(origin_url)
        .and_then(|url| remote_url::normalize(&url, &checkout.root));
    match remote {
        Some(remote) => ProjectKeys {
            key: format!("{name}-{}", sha1_prefix(&remote)),
            path_key: Some(path_key),
        },
        None => ProjectKeys {
            key: path_key,
            path_key: None,
        },
    }
}

/// The first 8 hex characters of SHA-1 of `text`'s UTF-8 bytes.
fn sha1_prefix(text: &str) -> String {
    let digest = Sha1::digest(text.as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// The URL of `remote.origin.url` (its first value) in the repository's own config file, read
/// without opening the repository: no global or system config, no `insteadOf` rewriting, no
/// ownership check. `None` when there is no such file, value or readable config.
fn origin_url(git_dir: &Path) -> Option<String> {
    let config = git2::Config::open(&common_dir(git_dir).join("config")).ok()?;
    let mut values = config.multivar("remote.origin.url", None).ok()?;
    let first = values.next()?.ok()?;
    first.value().ok().map(str::to_string)
}

/// The directory holding the repository's shared files (its config among them): a linked
/// worktree's or a submodule worktree's git dir names it in its `commondir` file.
fn common_dir(git_dir: &Path) -> PathBuf {
    match crate::sidefile::read(&git_dir.join("commondir")) {
        Ok(text) if !text.trim().is_empty() => relative_to(git_dir, Path::new(text.trim())),
        _ => git_dir.to_path_buf(),
    }
}

/// The real path of `path`; a part that does not exist yet is appended to the real path of its
/// longest existing ancestor, so a future subdirectory shares its checkout's key.
pub(crate) fn real_path(path: &Path) -> PathBuf {
    let normal = lexical_normal(path);
    let mut missing: Vec<OsString> = Vec::new();
    let mut existing = normal.as_path();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return missing.iter().rev().fold(real, |acc, part| acc.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = parent;
            }
            _ => return normal,
        }
    }
}

/// Removes `.` and resolves `..` textually.
fn lexical_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The checkout a directory belongs to: its root, and the repository's git directory when
/// there is one.
struct Checkout {
    root: PathBuf,
    git_dir: Option<PathBuf>,
}

fn project_root(start: &Path) -> Checkout {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        match std::fs::symlink_metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => {
                return Checkout {
                    root: dir.to_path_buf(),
                    git_dir: Some(dot_git),
                }
            }
            Ok(_) => return gitfile_checkout(dir, &dot_git),
            Err(_) => continue,
        }
    }
    Checkout {
        root: start.to_path_buf(),
        git_dir: None,
    }
}

/// The checkout of a `.git` file `gitdir: P`: for `P` = `<main>/.git/worktrees/<name>` (a linked
/// worktree) the main checkout; otherwise (a submodule, …) the directory holding the file, with
/// `P` as its git directory. A `.git` file that names nothing leaves the directory without a
/// repository.
fn gitfile_checkout(dir: &Path, dot_git: &Path) -> Checkout {
    let Some(git_dir) = gitfile_target(dir, dot_git) else {
        return Checkout {
            root: dir.to_path_buf(),
            git_dir: None,
        };
    };
    match worktree_main(&git_dir) {
        Some(main) => Checkout {
            git_dir: Some(main.join(".git")),
            root: main,
        },
        None => Checkout {
            root: dir.to_path_buf(),
            git_dir: Some(git_dir),
        },
    }
}

/// The real path of the directory a `.git` file's `gitdir:` line names.
fn gitfile_target(dir: &Path, dot_git: &Path) -> Option<PathBuf> {
    let text = crate::sidefile::read(dot_git).ok()?;
    let target = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("gitdir:"))?
        .trim();
    if target.is_empty() {
        return None;
    }
    Some(real_path(&relative_to(dir, Path::new(target))))
}

/// For a git dir `<main>/.git/worktrees/<name>`, the main checkout.
fn worktree_main(git_dir: &Path) -> Option<PathBuf> {
    let worktrees = git_dir.parent()?;
    let git = worktrees.parent()?;
    let is_worktree = worktrees.file_name()? == "worktrees" && git.file_name()? == ".git";
    is_worktree
        .then(|| git.parent().map(Path::to_path_buf))
        .flatten()
}

/// The project key of a session's cwd (docs/recall.md): [`project_key`] when the directory
/// exists, else `basename-sha1(path)[..8]` without looking for a repository (a checkout that
/// was removed or is on another machine).
pub fn project_key_of(cwd: &Path) -> String {
    if cwd.is_dir() {
        return project_key(cwd);
    }
    let name = cwd
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "root".to_string());
    format!("{name}-{}", sha1_prefix(&cwd.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_basename_and_sha1_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("My Project");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        let key = project_key(&root.join("src"));
        let digest = Sha1::digest(root.to_string_lossy().as_bytes());
        assert_eq!(
            key,
            format!(
                "My Project-{:02x}{:02x}{:02x}{:02x}",
                digest[0], digest[1], digest[2], digest[3]
            )
        );
        assert_eq!(project_key(&root.join("not/yet/there")), key);
    }

    #[test]
    fn a_missing_directory_is_keyed_by_its_path_alone() {
        let key = project_key_of(Path::new("/nowhere/gone-project"));
        assert!(key.starts_with("gone-project-") && key.len() == "gone-project-".len() + 8);
    }
}
