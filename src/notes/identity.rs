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

/// `basename(root) + "-" + sha1(root)[..8]`, where the root is the git checkout holding `cwd`
/// (linked worktrees give their main checkout), or `cwd` itself outside git.
pub fn project_key(cwd: &Path) -> String {
    let root = project_root(&real_path(cwd));
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "root".to_string());
    let digest = Sha1::digest(root.to_string_lossy().as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{name}-{hex}")
}

/// The real path of `path`; a part that does not exist yet is appended to the real path of its
/// longest existing ancestor, so a future subdirectory shares its checkout's key.
fn real_path(path: &Path) -> PathBuf {
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

fn project_root(start: &Path) -> PathBuf {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        match std::fs::symlink_metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => return dir.to_path_buf(),
            Ok(_) => return worktree_main(dir, &dot_git).unwrap_or_else(|| dir.to_path_buf()),
            Err(_) => continue,
        }
    }
    start.to_path_buf()
}

/// For a `.git` file `gitdir: <main>/.git/worktrees/<name>`, the main checkout.
fn worktree_main(dir: &Path, dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("gitdir:"))?
        .trim();
    if target.is_empty() {
        return None;
    }
    let gitdir = real_path(&relative_to(dir, Path::new(target)));
    let worktrees = gitdir.parent()?;
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
