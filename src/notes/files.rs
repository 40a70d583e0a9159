//! File system work for notes: directories that are never symlinks, notes that are never links,
//! and atomic durable replacement.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::NotesError;

/// Opens without following a symlink in the last component.
pub fn nofollow(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
}

/// Whether every directory in `components` (below `root`) exists as a real directory.
/// `Ok(false)`: one is missing. A symlink or a non-directory on the way is refused.
pub fn dirs_exist(root: &Path, components: &[&str]) -> Result<bool, NotesError> {
    let mut path = root.to_path_buf();
    for component in components {
        path.push(component);
        match fs::symlink_metadata(&path) {
            Ok(meta) => check_dir(&path, &meta)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => {
                return Err(NotesError::io(
                    format!("cannot inspect {}", path.display()),
                    e,
                ))
            }
        }
    }
    Ok(true)
}

/// Creates the directories in `components` (below `root`, which is created too), refusing any
/// that is a symlink.
pub fn ensure_dirs(root: &Path, components: &[&str]) -> Result<(), NotesError> {
    fs::create_dir_all(root)
        .map_err(|e| NotesError::io(format!("cannot create {}", root.display()), e))?;
    let mut path = root.to_path_buf();
    for component in components {
        path.push(component);
        match fs::create_dir(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(NotesError::io(
                    format!("cannot create {}", path.display()),
                    e,
                ))
            }
        }
        let meta = fs::symlink_metadata(&path)
            .map_err(|e| NotesError::io(format!("cannot inspect {}", path.display()), e))?;
        check_dir(&path, &meta)?;
    }
    Ok(())
}

fn check_dir(path: &Path, meta: &Metadata) -> Result<(), NotesError> {
    if meta.file_type().is_symlink() {
        return Err(NotesError::address(format!(
            "{} is a symbolic link: notes never follow links",
            path.display()
        )));
    }
    if !meta.is_dir() {
        return Err(NotesError::io(
            format!("{} is in the way", path.display()),
            io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
        ));
    }
    Ok(())
}

/// Files larger than this are never read as notes (a note is at most 1,000,000 bytes when this
/// store writes it; a hand-made giant must not exhaust memory).
pub const MAX_READ_BYTES: u64 = 64 << 20;

/// A note file as read from disk.
#[derive(Debug)]
pub struct OnDisk {
    pub text: String,
    pub mode: u32,
    pub modified: Option<std::time::SystemTime>,
    /// The file's length in bytes.
    pub len: u64,
    /// Whether `text` is the whole file (else a prefix, cut at a character boundary).
    pub complete: bool,
}

/// Reads a note, or `None` when it does not exist. Symlinks and hard-linked files are refused.
pub fn read_note(path: &Path) -> Result<Option<OnDisk>, NotesError> {
    read(path, None)
}

/// Reads at most the first `bytes` bytes of a note (the whole note if it is shorter).
pub fn read_head(path: &Path, bytes: usize) -> Result<Option<OnDisk>, NotesError> {
    read(path, Some(bytes))
}

fn read(path: &Path, head: Option<usize>) -> Result<Option<OnDisk>, NotesError> {
    let file = match nofollow(OpenOptions::new().read(true)).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(link_refusal(path, "a symbolic link"))
        }
        Err(e) => return Err(NotesError::io(format!("cannot open {}", path.display()), e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| NotesError::io(format!("cannot inspect {}", path.display()), e))?;
    check_note_file(path, &meta)?;
    if head.is_none() && meta.len() > MAX_READ_BYTES {
        return Err(NotesError::FileTooLarge {
            actual: meta.len(),
            limit: MAX_READ_BYTES,
        });
    }
    let want = head.map_or(MAX_READ_BYTES + 1, |h| h as u64);
    let bytes = read_up_to(file, meta.len(), want)
        .map_err(|e| NotesError::io(format!("cannot read {}", path.display()), e))?;
    let complete = (bytes.len() as u64) < want;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) if !complete => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).unwrap_or_default()
        }
        Err(_) => {
            return Err(NotesError::io(
                format!(
                    "{} is not valid UTF-8; fix or remove it by hand",
                    path.display()
                ),
                io::Error::new(io::ErrorKind::InvalidData, "invalid UTF-8"),
            ))
        }
    };
    Ok(Some(OnDisk {
        text,
        mode: meta.permissions().mode() & 0o7777,
        modified: meta.modified().ok(),
        len: meta.len(),
        complete,
    }))
}

/// Reads at most `want` bytes of a file `len` bytes long (its `fstat` size) in as few `read`s as
/// possible. This store never changes a note in place, so the size of the open file is stable;
/// a file edited in place by hand meanwhile is read as far as its size said.
fn read_up_to(mut file: File, len: u64, want: u64) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; len.min(want) as usize];
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// A note must be a regular file with a single link.
pub fn check_note_file(path: &Path, meta: &Metadata) -> Result<(), NotesError> {
    if meta.file_type().is_symlink() {
        return Err(link_refusal(path, "a symbolic link"));
    }
    if !meta.is_file() {
        return Err(NotesError::address(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    if meta.nlink() > 1 {
        return Err(link_refusal(path, "a hard link (it has other names)"));
    }
    Ok(())
}

fn link_refusal(path: &Path, what: &str) -> NotesError {
    NotesError::address(format!(
        "{} is {what}: notes never follow or write through links",
        path.display()
    ))
}

/// Replaces `dir/name` with `bytes` atomically and durably: a temp file in the same directory,
/// fsync, rename over the target, fsync the directory. A crash leaves the old or the new file.
pub fn write_atomic(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<(), NotesError> {
    let temp = dir.join(temp_name());
    let result = write_temp(&temp, bytes, mode).and_then(|()| {
        fs::rename(&temp, dir.join(name))?;
        File::open(dir)?.sync_all()
    });
    result.map_err(|e| {
        let _ = fs::remove_file(&temp);
        NotesError::io(format!("cannot write {}", dir.join(name).display()), e)
    })
}

fn write_temp(temp: &PathBuf, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let mut file = nofollow(OpenOptions::new().write(true).create_new(true)).open(temp)?;
    if let Some(mode) = mode {
        file.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    file.write_all(bytes)?;
    file.sync_all()
}

/// Hidden, never ending in `.md`, unique per process and call.
fn temp_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(".pi-context.{}.{nanos:x}.{n}.tmp", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        write_atomic(dir.path(), "a.md", b"one", None).unwrap();
        write_atomic(dir.path(), "a.md", b"two", Some(0o600)).unwrap();
        assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.md")]);
        let mode = fs::metadata(dir.path().join("a.md"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.md");
        fs::write(&real, "x").unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("sym.md")).unwrap();
        fs::hard_link(&real, dir.path().join("hard.md")).unwrap();
        assert_eq!(
            read_note(&dir.path().join("sym.md")).unwrap_err().code(),
            "invalid_address"
        );
        assert_eq!(
            read_note(&dir.path().join("hard.md")).unwrap_err().code(),
            "invalid_address"
        );
        assert!(read_note(&dir.path().join("missing.md")).unwrap().is_none());
    }

    #[test]
    fn symlinked_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        assert_eq!(
            dirs_exist(dir.path(), &["link"]).unwrap_err().code(),
            "invalid_address"
        );
        assert_eq!(
            ensure_dirs(dir.path(), &["link", "x"]).unwrap_err().code(),
            "invalid_address"
        );
        assert!(!outside.path().join("x").exists());
        assert!(!dirs_exist(dir.path(), &["missing", "x"]).unwrap());
    }
}
