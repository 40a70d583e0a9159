//! File system work for notes, on top of [`crate::beneath`]: every note, directory and lock file
//! is reached from a handle of the notes home, one component at a time and never through a link,
//! so a directory swapped for a symlink mid-operation cannot lead outside the home. This module
//! adds the notes rules (one link, the read cap, UTF-8) and the notes error messages.

use std::io;
use std::path::Path;
use std::time::SystemTime;

use crate::beneath::{BeneathError, Dir, Kind, ReadInto, ReadLimit};

use super::error::NotesError;

/// Files larger than this are never read as notes (a note is at most 1,000,000 bytes when this
/// store writes it; a hand-made giant must not exhaust memory).
pub const MAX_READ_BYTES: u64 = 64 << 20;

/// A note file as read from disk.
#[derive(Debug)]
pub struct OnDisk {
    pub text: String,
    pub mode: u32,
    pub modified: Option<SystemTime>,
}

/// The notes home, or `None` when it does not exist yet.
pub fn open_root(home: &Path) -> Result<Option<Dir>, NotesError> {
    Dir::open_root(home).map_err(notes_error)
}

/// The notes home, created when missing.
pub fn create_root(home: &Path) -> Result<Dir, NotesError> {
    Dir::create_root(home).map_err(notes_error)
}

/// The directory `components` below `root`, or `None` when one is missing. A symlink or a
/// non-directory on the way is refused.
pub fn open_dirs(root: &Dir, components: &[&str]) -> Result<Option<Dir>, NotesError> {
    root.open_dirs(components).map_err(notes_error)
}

/// Creates (where missing) and opens the directory `components` below `root`.
pub fn create_dirs(root: &Dir, components: &[&str]) -> Result<Dir, NotesError> {
    root.create_dirs(components).map_err(notes_error)
}

/// Whether the note `name` exists in `dir`, refusing links and anything but a regular file,
/// without opening it.
pub fn note_exists(dir: &Dir, name: &str) -> Result<bool, NotesError> {
    let Some(meta) = dir.stat(name).map_err(notes_error)? else {
        return Ok(false);
    };
    let path = || dir.path().join(name);
    match meta.kind {
        Kind::Symlink => Err(notes_error(BeneathError::Link { path: path() })),
        Kind::File if meta.nlink > 1 => Err(notes_error(BeneathError::HardLinked { path: path() })),
        Kind::File => Ok(true),
        kind => Err(notes_error(BeneathError::NotRegular { path: path(), kind })),
    }
}

/// Reads a note, or `None` when it does not exist. Links and non-regular files are refused; a
/// FIFO never blocks.
pub fn read_note(dir: &Dir, name: &str) -> Result<Option<OnDisk>, NotesError> {
    let whole = ReadLimit::Whole {
        max_bytes: MAX_READ_BYTES,
    };
    let Some(contents) = dir.read_file(name, whole).map_err(notes_error)? else {
        return Ok(None);
    };
    let text = String::from_utf8(contents.bytes).map_err(|_| {
        NotesError::io(
            format!(
                "{} is not valid UTF-8; fix or remove it by hand",
                dir.path().join(name).display()
            ),
            io::Error::new(io::ErrorKind::InvalidData, "invalid UTF-8"),
        )
    })?;
    Ok(Some(OnDisk {
        text,
        mode: contents.meta.mode,
        modified: contents.meta.modified,
    }))
}

/// Reads a note (whole, or its head) into `buffer`, which a caller reading many notes reuses.
/// `None` when it does not exist. The bytes are not checked to be UTF-8: see [`note_text`].
pub fn read_into(
    dir: &Dir,
    name: &str,
    limit: ReadLimit,
    buffer: &mut Vec<u8>,
) -> Result<Option<ReadInto>, NotesError> {
    dir.read_file_into(name, limit, buffer).map_err(notes_error)
}

/// The text of a note's bytes: all of them (`None` when they are not UTF-8), or when they are
/// only the note's head (`complete` false), their longest UTF-8 prefix (a character may be cut).
pub fn note_text(bytes: &[u8], complete: bool) -> Option<&str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(_) if complete => None,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok(),
    }
}

/// Replaces `name` in `dir` with `bytes` atomically and durably (see [`Dir::replace_file`]).
pub fn write_atomic(
    dir: &Dir,
    name: &str,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<(), NotesError> {
    dir.replace_file(name, bytes, mode).map_err(notes_error)
}

/// A file system refusal in the notes vocabulary: links, non-regular files and names that are
/// not plain components are `invalid_address`; everything else is `io_error` (or `too_large`).
pub fn notes_error(error: BeneathError) -> NotesError {
    let never = "notes never follow or write through links";
    match error {
        BeneathError::Link { path } => {
            NotesError::address(format!("{} is a symbolic link: {never}", path.display()))
        }
        BeneathError::HardLinked { path } => NotesError::address(format!(
            "{} is a hard link (it has other names): {never}",
            path.display()
        )),
        BeneathError::NotRegular { path, kind } => NotesError::address(format!(
            "{} is not a regular file (it is {kind})",
            path.display()
        )),
        BeneathError::BadName { dir, name } => NotesError::address(format!(
            "{name:?} is not a plain name below {}",
            dir.display()
        )),
        BeneathError::NotADirectory { path } => NotesError::io(
            format!("{} is in the way", path.display()),
            io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
        ),
        BeneathError::TooLarge { actual, limit, .. } => NotesError::FileTooLarge { actual, limit },
        BeneathError::Io {
            action,
            path,
            source,
        } => NotesError::io(format!("cannot {action} {}", path.display()), source),
    }
}

/// Why the notes home cannot be written, when `error` says so: permission denied, a read-only
/// file system, or a full disk.
pub fn unwritable_reason(error: &NotesError) -> Option<&'static str> {
    let NotesError::Io { source, .. } = error else {
        return None;
    };
    match source.raw_os_error()? {
        libc::EACCES | libc::EPERM | libc::EROFS => Some("the notes home is read-only"),
        libc::ENOSPC | libc::EDQUOT => Some("the notes home is full"),
        _ => None,
    }
}

/// A `/`-separated path below the notes home: its directories and its file name.
pub fn split_path(path: &str) -> (Vec<&str>, &str) {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    (parts, name)
}

/// The bytes of the file at `path` below `root` now, or `None` when it is gone (links and
/// non-files are refused).
pub fn read_below(root: &Dir, path: &str) -> Result<Option<Vec<u8>>, NotesError> {
    let (dirs, name) = split_path(path);
    let Some(dir) = open_dirs(root, &dirs)? else {
        return Ok(None);
    };
    let limit = ReadLimit::Whole {
        max_bytes: MAX_READ_BYTES,
    };
    Ok(dir
        .read_file(name, limit)
        .map_err(notes_error)?
        .map(|c| c.bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn links_are_refused_as_invalid_addresses() {
        let temp = tempfile::tempdir().unwrap();
        let root = open_root(temp.path()).unwrap().unwrap();
        fs::write(temp.path().join("real.md"), "x").unwrap();
        std::os::unix::fs::symlink(temp.path().join("real.md"), temp.path().join("sym.md"))
            .unwrap();
        fs::hard_link(temp.path().join("real.md"), temp.path().join("hard.md")).unwrap();
        for name in ["sym.md", "hard.md"] {
            assert_eq!(
                read_note(&root, name).unwrap_err().code(),
                "invalid_address"
            );
            assert_eq!(
                note_exists(&root, name).unwrap_err().code(),
                "invalid_address"
            );
        }
        assert!(read_note(&root, "missing.md").unwrap().is_none());
        assert!(!note_exists(&root, "missing.md").unwrap());
    }

    #[test]
    fn a_file_in_place_of_a_directory_is_in_the_way() {
        let temp = tempfile::tempdir().unwrap();
        let root = open_root(temp.path()).unwrap().unwrap();
        fs::write(temp.path().join("human"), "").unwrap();
        let err = create_dirs(&root, &["human", "x"]).unwrap_err();
        assert_eq!(err.code(), "io_error");
        assert!(err.to_string().contains("in the way"), "{err}");
    }

    #[test]
    fn permission_and_space_errors_are_unwritable() {
        let denied = NotesError::io("x", io::Error::from_raw_os_error(libc::EROFS));
        assert_eq!(
            unwritable_reason(&denied),
            Some("the notes home is read-only")
        );
        let full = NotesError::io("x", io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(unwritable_reason(&full), Some("the notes home is full"));
        let other = NotesError::io("x", io::Error::from_raw_os_error(libc::EIO));
        assert_eq!(unwritable_reason(&other), None);
    }
}
