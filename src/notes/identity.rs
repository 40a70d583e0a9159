//! Who is asking: notes home, session id, project key, agent and model (contract §1). The
//! defaults are decided in [`crate::environment`]; this module holds the rules: slugs, safe
//! directory names and the project key of a directory.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use sha1::{Digest, Sha1};

use super::error::NotesError;
pub use crate::text::slugify;

/// A resolved identity. Agent and model are slugs; the session id and project key are single,
/// safe directory names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The notes home, absolute.
    pub home: PathBuf,
    pub session_id: Option<String>,
    pub project_key: String,
    pub agent: String,
    pub model: String,
}

fn relative_to(dir: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    }
}

/// Session ids and project keys become one directory name each.
pub fn checked_component(what: &'static str) -> impl Fn(String) -> Result<String, NotesError> {
    move |value: String| {
        if value == "."
            || value == ".."
            || value.contains(['/', '\\', '\0'])
            || value.chars().any(char::is_control)
        {
            return Err(NotesError::InvalidScope(format!(
                "{what} {value:?} must be a single safe directory name (no /, \\, NUL, control characters, . or ..)"
            )));
        }
        Ok(value)
    }
}

/// A model id `provider/id` uses its last `/` segment, slugified.
pub fn model_slug(model: &str) -> String {
    slugify(model.rsplit('/').next().unwrap_or(model))
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`: what `slugify` produces.
pub fn is_slug(value: &str) -> bool {
    !value.is_empty()
        && !value.starts_with('-')
        && !value.ends_with('-')
        && !value.contains("--")
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A project's key and, when the key comes from its `origin` remote, the path-based key its
/// notes had before (they are moved once: [`super::migrate`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectKeys {
    pub key: String,
    /// `basename(root) + "-" + sha1(root path)[..8]` when it differs from `key`.
    pub path_key: Option<String>,
}

/// `basename(root) + "-" + sha1(origin)[..8]`, where the root is the git checkout holding `cwd`
/// (linked worktrees give their main checkout), or `cwd` itself outside git, and `origin` is
/// the normalized URL of the root repository's `origin` remote ([`super::remote_url`]); without
/// one (or outside git) the root's path stands in for it (CONTRACT §1).
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
        .and_then(|url| super::remote_url::normalize(&url, &checkout.root));
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
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) if !text.trim().is_empty() => relative_to(git_dir, Path::new(text.trim())),
        _ => git_dir.to_path_buf(),
    }
}

/// The real path of `path`; a part that does not exist yet is appended to the real path of its
/// longest existing ancestor, so a future subdirectory shares its checkout's key.
pub(super) fn real_path(path: &Path) -> PathBuf {
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
    let text = std::fs::read_to_string(dot_git).ok()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugify_examples() {
        assert_eq!(slugify("Test Agent"), "test-agent");
        assert_eq!(slugify("First.Model"), "first-model");
        assert_eq!(slugify("--a__b--"), "a-b");
        assert_eq!(slugify("Ünïcode"), "n-code");
        assert_eq!(slugify("模型"), "root");
        assert_eq!(slugify(""), "root");
        assert_eq!(model_slug("provider/First.Model"), "first-model");
        assert_eq!(model_slug("a/b/c"), "c");
    }

    #[test]
    fn slug_shape() {
        assert!(is_slug("a-b-9"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "é"] {
            assert!(!is_slug(bad), "{bad:?}");
        }
    }

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
}
