//! Putting a path of the notes home back as a snapshot saw it, without ever writing through a
//! link: every directory on the way is reached through the home's directory handle (created when
//! missing, refused when it is a link), files are replaced by rename within their directory, and
//! a link at the target itself is replaced, never followed.

use std::io;
use std::path::Path;
use std::time::SystemTime;

use git2::Repository;

use crate::beneath::{BeneathError, Dir, Kind};
use crate::home::snapshot::{Item, Raw};

/// Makes `home/rel` hold `item` (`None`: makes it absent).
pub fn put_back(repo: &Repository, home: &Path, rel: &str, item: Option<Item>) -> io::Result<()> {
    match item {
        None => remove(home, rel),
        Some(Item::File { oid, executable }) => {
            let blob = repo.find_blob(oid).map_err(io::Error::other)?;
            let mode = if executable { 0o755 } else { 0o644 };
            write_file(home, rel, blob.content(), Some(mode))
        }
        Some(Item::Link { oid }) => {
            let blob = repo.find_blob(oid).map_err(io::Error::other)?;
            let target = std::str::from_utf8(blob.content()).map_err(io::Error::other)?;
            put_link(home, rel, Path::new(target))
        }
        Some(Item::Special | Item::Large { .. }) => Err(not_kept()),
    }
}

/// Makes `home/rel` hold a protected file's kept bytes (`None`: makes it absent).
pub fn put_back_raw(home: &Path, rel: &str, raw: Option<&Raw>) -> io::Result<()> {
    match raw {
        None => remove(home, rel),
        Some(Raw::File { bytes, mode }) => write_file(home, rel, bytes, Some(*mode)),
        Some(Raw::Link { target }) => put_link(home, rel, target),
        Some(Raw::Other) => Err(not_kept()),
    }
}

fn not_kept() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "it was not a regular file the audit could keep a copy of",
    )
}

/// Writes `home/rel` atomically (temp file, fsync, rename, directory fsync), replacing whatever
/// entry is there (a link is replaced, never followed).
pub fn write_file(home: &Path, rel: &str, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let (dir, name) = parent(home, rel, true)?.expect("created");
    clear_directory(&dir, name)?;
    dir.replace_file(name, bytes, mode).map_err(io_error)
}

/// Sets the modification time of `home/rel`, a regular file (never through a link).
pub fn set_mtime(home: &Path, rel: &str, time: SystemTime) -> io::Result<()> {
    let Some((dir, name)) = parent(home, rel, false)? else {
        return Err(io::ErrorKind::NotFound.into());
    };
    match dir.open_file(name).map_err(io_error)? {
        Some((file, _)) => file.set_modified(time),
        None => Err(io::ErrorKind::NotFound.into()),
    }
}

fn remove(home: &Path, rel: &str) -> io::Result<()> {
    let Some((dir, name)) = parent(home, rel, false)? else {
        return Ok(());
    };
    clear_directory(&dir, name)?;
    dir.remove_file(name).map(|_| ()).map_err(io_error)
}

fn put_link(home: &Path, rel: &str, target: &Path) -> io::Result<()> {
    let (dir, name) = parent(home, rel, true)?.expect("created");
    clear_directory(&dir, name)?;
    dir.remove_file(name).map_err(io_error)?;
    std::os::unix::fs::symlink(target, dir.path().join(name))
}

/// A directory where a file belongs (the dreamer turned a note into a folder) goes, with what
/// is in it; `std::fs::remove_dir_all` never follows the links inside.
fn clear_directory(dir: &Dir, name: &str) -> io::Result<()> {
    match dir.stat(name).map_err(io_error)? {
        Some(meta) if meta.kind == Kind::Dir => std::fs::remove_dir_all(dir.path().join(name)),
        _ => Ok(()),
    }
}

/// The directory holding `rel` (through the home's handle) and the file name; `None` when a
/// directory on the way is missing and `create` is false.
fn parent<'r>(home: &Path, rel: &'r str, create: bool) -> io::Result<Option<(Dir, &'r str)>> {
    let segments: Vec<&str> = rel.split('/').collect();
    let (name, dirs) = segments.split_last().expect("split yields one item");
    let root = if create {
        Dir::create_root(home).map_err(io_error)?
    } else {
        match Dir::open_root(home).map_err(io_error)? {
            Some(root) => root,
            None => return Ok(None),
        }
    };
    let dir = if dirs.is_empty() {
        Some(root)
    } else if create {
        Some(root.create_dirs(dirs).map_err(io_error)?)
    } else {
        root.open_dirs(dirs).map_err(io_error)?
    };
    Ok(dir.map(|dir| (dir, *name)))
}

fn io_error(e: BeneathError) -> io::Error {
    let kind = match &e {
        BeneathError::Io { source, .. } => source.kind(),
        BeneathError::Link { .. } | BeneathError::BadName { .. } => io::ErrorKind::InvalidInput,
        BeneathError::NotADirectory { .. } => io::ErrorKind::NotADirectory,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn never_writes_through_a_linked_directory() {
        let home = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), home.path().join("human")).unwrap();
        assert!(write_file(home.path(), "human/a.md", b"x", None).is_err());
        assert!(remove(home.path(), "human/a.md").is_err());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn replaces_a_link_at_the_target_instead_of_following_it() {
        let home = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        fs::create_dir(home.path().join("human")).unwrap();
        std::os::unix::fs::symlink(&victim, home.path().join("human/a.md")).unwrap();
        write_file(home.path(), "human/a.md", b"restored", None).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(
            fs::read_to_string(home.path().join("human/a.md")).unwrap(),
            "restored"
        );
        remove(home.path(), "human/a.md").unwrap();
        assert!(!home.path().join("human/a.md").exists());
        assert!(victim.exists());
    }
}
