//! Putting a path of the notes home back as a snapshot saw it, without ever writing through a
//! link: parents are real directories of the home (created when missing), files are replaced
//! by rename, and a link the dreamer left on the way is refused rather than followed.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use git2::Repository;

use super::snapshot::{Item, Raw};

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
            let target = PathBuf::from(std::ffi::OsStr::new(
                std::str::from_utf8(blob.content()).map_err(io::Error::other)?,
            ));
            let parent = parent_dir(home, rel)?;
            let name = file_name(rel)?;
            clear_entry(&parent.join(name))?;
            std::os::unix::fs::symlink(target, parent.join(name))
        }
        Some(Item::Special | Item::Large { .. }) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "it was not a regular file the audit could keep a copy of",
        )),
    }
}

/// Makes `home/rel` hold a protected file's kept bytes (`None`: makes it absent).
pub fn put_back_raw(home: &Path, rel: &str, raw: Option<&Raw>) -> io::Result<()> {
    match raw {
        None => remove(home, rel),
        Some(Raw::File { bytes, mode }) => write_file(home, rel, bytes, Some(*mode)),
        Some(Raw::Link { target }) => {
            let parent = parent_dir(home, rel)?;
            let name = file_name(rel)?;
            clear_entry(&parent.join(name))?;
            std::os::unix::fs::symlink(target, parent.join(name))
        }
        Some(Raw::Other) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "it was not a regular file the audit could keep a copy of",
        )),
    }
}

/// Writes `home/rel` atomically (temp file, fsync, rename, directory fsync), replacing whatever
/// entry is there (a link is replaced, never followed).
pub fn write_file(home: &Path, rel: &str, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let parent = parent_dir(home, rel)?;
    let name = file_name(rel)?;
    if fs::symlink_metadata(parent.join(name)).is_ok_and(|m| m.is_dir()) {
        clear_entry(&parent.join(name))?;
    }
    let temp = parent.join(format!(".pi-context.{}.restore.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&temp)?;
        if let Some(mode) = mode {
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, parent.join(name))?;
        fs::File::open(&parent)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Sets the modification time of `home/rel`, a regular file (never through a link).
pub fn set_mtime(home: &Path, rel: &str, time: SystemTime) -> io::Result<()> {
    fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(home.join(rel))?
        .set_modified(time)
}

fn remove(home: &Path, rel: &str) -> io::Result<()> {
    let mut path = home.to_path_buf();
    let segments: Vec<&str> = rel.split('/').collect();
    for dir in &segments[..segments.len() - 1] {
        path.push(dir);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => {}
            // A parent that is gone, or is not a directory, holds nothing to remove.
            Ok(meta) if !meta.file_type().is_symlink() => return Ok(()),
            Ok(_) => return Err(link_on_the_way(&path)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    clear_entry(&path.join(file_name(rel)?))
}

/// Removes whatever entry is at `path` (a directory with everything in it); absent is fine.
fn clear_entry(path: &Path) -> io::Result<()> {
    let result = match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(e) => Err(e),
    };
    match result {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The parent directory of `rel`, created when missing; every directory on the way is a real
/// directory of the home.
fn parent_dir(home: &Path, rel: &str) -> io::Result<PathBuf> {
    let mut path = home.to_path_buf();
    let segments: Vec<&str> = rel.split('/').collect();
    for dir in &segments[..segments.len() - 1] {
        if dir.is_empty() || *dir == "." || *dir == ".." {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{rel} is not a plain relative path"),
            ));
        }
        path.push(dir);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) if meta.file_type().is_symlink() => return Err(link_on_the_way(&path)),
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!("{} is in the way (not a directory)", path.display()),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(&path)?,
            Err(e) => return Err(e),
        }
    }
    Ok(path)
}

fn file_name(rel: &str) -> io::Result<&str> {
    match rel.rsplit('/').next() {
        Some(name) if !name.is_empty() && name != "." && name != ".." => Ok(name),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{rel} names no file"),
        )),
    }
}

fn link_on_the_way(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link; the audit never writes through one",
            path.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
