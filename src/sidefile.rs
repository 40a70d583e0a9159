//! Reading a small file that someone else keeps: an agent's config or side file, a project's
//! `.pi/settings.json`, git's `.git` file and `commondir`. Such a path can hold anything: only a
//! regular file of at most [`MAX`] bytes is read. It is opened non-blocking, so a FIFO or device
//! in its place never holds the caller up (opening a FIFO for reading waits for a writer), and
//! refused by its `fstat` type. A link is followed: where a person keeps such a file is theirs
//! to choose. Imports no room.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The largest side file read (a config or a marker is a few KiB).
pub const MAX: u64 = 16 << 20;

/// The text of the regular file at `path`. A missing file is `NotFound`; a FIFO, device,
/// socket or directory is `InvalidInput`, a file over [`MAX`] bytes `FileTooLarge`, text that is
/// not UTF-8 `InvalidData`.
pub fn read(path: &Path) -> io::Result<String> {
    let (file, metadata) = open_regular(path)?;
    if metadata.len() > MAX {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {MAX} bytes"),
        ));
    }
    let mut text = String::new();
    file.take(MAX + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {MAX} bytes"),
        ));
    }
    Ok(text)
}

/// Opens the file at `path` for reading without blocking on a FIFO, and refuses it
/// (`InvalidInput`) unless it is a regular file once opened (a name can be swapped between a
/// look and an open).
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok((file, metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[test]
    fn a_regular_file_is_read_and_anything_else_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(read(&file).unwrap(), "{}");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read(&link).unwrap(), "{}", "a link is followed");

        let fifo = dir.path().join("fifo.json");
        mkfifo(&fifo);
        assert_eq!(read(&fifo).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            read(dir.path()).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            read(&dir.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        let huge = dir.path().join("huge.json");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX + 1)
            .unwrap();
        assert_eq!(read(&huge).unwrap_err().kind(), io::ErrorKind::FileTooLarge);
    }
}
