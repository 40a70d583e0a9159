//! Saving a file whole: a new temp file in the same directory, renamed over the old one, so that
//! a reader sees the old file or the new one, never a part of either.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use rustix::fs::{self as rfs, AtFlags, Mode, OFlags};

/// What a save promises once it returns (docs/architecture.md, "Cache files").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// A cache that can always be rebuilt from what it describes: nothing is synced. Another
    /// process sees the old file or the new one; after a crash of the machine the old one, none,
    /// or (where the file system does not write a renamed file's data before the rename) one
    /// its reader must refuse. Saved on the path of a call that otherwise touches only the page
    /// cache, where a sync would wait for the disk.
    Rebuildable,
    /// What others rely on once it is saved (they remove what it replaced): the temp file's data
    /// synced before the rename, the directory synced after it.
    Durable,
}

/// Saves `data` as the file at `path`, creating its directory (0700) when missing; the file is
/// 0600.
pub(crate) fn save(path: &Path, data: &[u8], durability: Durability) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a cache file needs a file name",
        )
    })?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let dir = rfs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    save_in(&dir, name, data, durability)
}

/// [`save`] of the entry `name` of the open directory `dir` (a single name, never a path): the
/// temp file is created (`O_EXCL`, never through a link) and renamed in that directory.
pub(crate) fn save_in(
    dir: impl AsFd,
    name: &OsStr,
    data: &[u8],
    durability: Durability,
) -> io::Result<()> {
    let temp = temp_name(name);
    let saved = write_new(&dir, &temp, data, durability)
        .and_then(|()| Ok(rfs::renameat(&dir, &temp, &dir, name)?));
    if let Err(e) = saved {
        let _ = rfs::unlinkat(&dir, &temp, AtFlags::empty());
        return Err(e);
    }
    match durability {
        Durability::Rebuildable => Ok(()),
        Durability::Durable => Ok(rfs::fsync(&dir)?),
    }
}

/// A temp name no other writer uses, hidden and ending in `.tmp`.
fn temp_name(name: &OsStr) -> OsString {
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(".{}.tmp", uuid::Uuid::new_v4().simple()));
    temp
}

fn write_new(dir: impl AsFd, name: &OsStr, data: &[u8], durability: Durability) -> io::Result<()> {
    let fd = rfs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    let mut file = File::from(fd);
    file.write_all(data)?;
    if durability == Durability::Durable {
        file.sync_data()?;
    }
    Ok(())
}
