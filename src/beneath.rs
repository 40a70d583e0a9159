//! Files below a directory handle, reached without ever following a link.
//!
//! A path that was checked once does not stay the same path: between a check of `human/` and a
//! use of `human/x.md`, another process can swap `human/` for a symlink to a directory outside
//! (`renameat2(RENAME_EXCHANGE)`), and the use then lands outside. So nothing here checks a path
//! and then uses it. A [`Dir`] is an open directory; every name below it is reached one component
//! at a time with `openat(O_NOFOLLOW)` relative to the handle of its parent, and every file
//! operation (read, atomic replace, create, remove, stat, list) is an `*at` call on the handle
//! of the file's own directory. A concurrent swap then either changes nothing for a walk that
//! already holds the directory, or makes the walk fail on the link: it never leads outside.
//!
//! Only the root is opened by path, and may be reached through symlinks (where the user keeps
//! the directory is the user's choice). Names passed to a [`Dir`] are single components: no
//! `/`, no NUL, not empty, `.` or `..`.
//!
//! Regular files are opened with `O_NONBLOCK`, so a FIFO or device planted where a file should
//! be never blocks the open; it is then refused by its `fstat` type.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;

/// Why an operation below a directory handle was refused or failed. Every variant names the
/// path it concerns (for messages only: the operation itself never used that path).
#[derive(Debug, thiserror::Error)]
pub enum BeneathError {
    #[error("{} is a symbolic link", path.display())]
    Link { path: PathBuf },
    #[error("{} is not a directory", path.display())]
    NotADirectory { path: PathBuf },
    #[error("{} is not a regular file ({kind})", path.display())]
    NotRegular { path: PathBuf, kind: Kind },
    #[error("{} is a hard link (it has other names)", path.display())]
    HardLinked { path: PathBuf },
    #[error("{} is {actual} bytes; files over {limit} bytes are not read", path.display())]
    TooLarge {
        path: PathBuf,
        actual: u64,
        limit: u64,
    },
    #[error("{name:?} is not a single file name below {}", dir.display())]
    BadName { dir: PathBuf, name: OsString },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl BeneathError {
    /// The operating system's error number, when the failure came from a system call.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            BeneathError::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }
}

/// The type of a directory entry, as `lstat` reports it (links are never followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Unknown,
}

impl Kind {
    fn of(file_type: FileType) -> Kind {
        match file_type {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            FileType::Fifo => Kind::Fifo,
            FileType::Socket => Kind::Socket,
            FileType::CharacterDevice => Kind::CharDevice,
            FileType::BlockDevice => Kind::BlockDevice,
            _ => Kind::Unknown,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::File => "a regular file",
            Kind::Dir => "a directory",
            Kind::Symlink => "a symbolic link",
            Kind::Fifo => "a FIFO",
            Kind::Socket => "a socket",
            Kind::CharDevice => "a character device",
            Kind::BlockDevice => "a block device",
            Kind::Unknown => "of unknown type",
        })
    }
}

/// What `fstat`/`lstat` says about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    pub len: u64,
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
    pub nlink: u64,
    pub modified: Option<SystemTime>,
}

impl Meta {
    // The field types of `stat` differ between architectures; the casts are lossless on each.
    #[allow(clippy::unnecessary_cast)]
    fn of(stat: &rfs::Stat) -> Meta {
        Meta {
            kind: Kind::of(FileType::from_raw_mode(stat.st_mode as u32)),
            len: u64::try_from(stat.st_size).unwrap_or(0),
            mode: (stat.st_mode as u32) & 0o7777,
            nlink: stat.st_nlink as u64,
            modified: modified(stat.st_mtime as i64, stat.st_mtime_nsec),
        }
    }
}

/// A path below a [`Dir`], of components each checked as a single name (`a/b/`; empty for the
/// directory itself).
#[derive(Debug, Clone)]
pub struct PathBelow(Vec<u8>);

/// What tells one version of a file or directory from another without reading it, as git's
/// index does: device, inode, type, link count, size, and modification and change times. A file
/// rewritten in place gets a new change time (no call sets it back); a file replaced by a rename
/// or moved gets a new inode or a new change time; a directory gains or loses an entry only with
/// a new modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    /// `st_mode`: the type and the permission bits.
    pub mode: u32,
    pub nlink: u64,
    pub len: u64,
    /// `st_mtime` and its nanoseconds.
    pub modified: (i64, i64),
    /// `st_ctime` and its nanoseconds.
    pub changed: (i64, i64),
}

impl Stamp {
    // The field types of `stat` differ between architectures; the casts are lossless on each.
    #[allow(clippy::unnecessary_cast)]
    fn of(stat: &rfs::Stat) -> Stamp {
        Stamp {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            mode: stat.st_mode as u32,
            nlink: stat.st_nlink as u64,
            len: u64::try_from(stat.st_size).unwrap_or(0),
            modified: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            changed: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        }
    }

    pub fn kind(&self) -> Kind {
        Kind::of(FileType::from_raw_mode(self.mode))
    }

    /// The modification time, as [`Meta::modified`] has it.
    pub fn modified_time(&self) -> Option<SystemTime> {
        modified(self.modified.0, self.modified.1)
    }

    /// Whether the last change came before `time` (`false` when it cannot be told).
    pub fn changed_before(&self, time: SystemTime) -> bool {
        modified(self.changed.0, self.changed.1).is_some_and(|changed| changed < time)
    }
}

fn modified(seconds: i64, nanos: impl TryInto<u32>) -> Option<SystemTime> {
    let nanos = nanos.try_into().ok()?;
    if seconds >= 0 {
        UNIX_EPOCH.checked_add(Duration::new(seconds as u64, nanos))
    } else {
        UNIX_EPOCH
            .checked_sub(Duration::from_secs(seconds.unsigned_abs()))?
            .checked_add(Duration::from_nanos(u64::from(nanos)))
    }
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: OsString,
    pub kind: Kind,
}

/// How much of a file [`Dir::read_file`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadLimit {
    /// The whole file; a file larger than this many bytes is refused ([`BeneathError::TooLarge`]).
    Whole { max_bytes: u64 },
    /// At most the first this many bytes.
    Head { bytes: usize },
}

/// A file read through a handle.
#[derive(Debug, Clone)]
pub struct Contents {
    pub bytes: Vec<u8>,
    /// The open file's `fstat`.
    pub meta: Meta,
    /// Whether `bytes` is the whole file (a head read of a longer file is not).
    pub complete: bool,
}

/// What [`Dir::read_file_into`] read: the open file's `fstat`, and whether the buffer holds the
/// whole file.
#[derive(Debug, Clone, Copy)]
pub struct ReadInto {
    pub meta: Meta,
    /// The same `fstat`, taken before the bytes were read.
    pub stamp: Stamp,
    pub complete: bool,
}

/// An open directory. Everything below it is reached through it, never through a path string.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    /// Where the directory was when it was opened: for messages only.
    path: PathBuf,
    /// Whether the descriptor was listed before (its position is then past the start).
    listed: bool,
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);
const FILE_FLAGS: OFlags = OFlags::NOFOLLOW
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

impl Dir {
    /// Opens the root directory by path; `None` when it does not exist. The root itself may be
    /// reached through symlinks.
    pub fn open_root(path: &Path) -> Result<Option<Dir>, BeneathError> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        match rfs::openat(CWD, path, flags, Mode::empty()) {
            Ok(fd) => Ok(Some(Dir {
                fd,
                path: path.to_path_buf(),
                listed: false,
            })),
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::NOTDIR) => Err(BeneathError::NotADirectory {
                path: path.to_path_buf(),
            }),
            Err(e) => Err(io_error("open", path, e)),
        }
    }

    /// Creates the root directory (and its parents) when missing, then opens it.
    pub fn create_root(path: &Path) -> Result<Dir, BeneathError> {
        std::fs::create_dir_all(path).map_err(|e| BeneathError::Io {
            action: "create",
            path: path.to_path_buf(),
            source: e,
        })?;
        Dir::open_root(path)?.ok_or_else(|| io_error("open", path, Errno::NOENT))
    }

    /// Where this directory was when it was opened (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second handle on the same directory, with a listing position of its own.
    pub fn try_clone(&self) -> Result<Dir, BeneathError> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rfs::openat(&self.fd, ".", flags, Mode::empty())
            .map_err(|e| io_error("open", &self.path, e))?;
        Ok(Dir {
            fd,
            path: self.path.clone(),
            listed: false,
        })
    }

    /// Opens the subdirectory `name`; `None` when it does not exist. A symlink or anything but a
    /// directory is refused.
    pub fn open_dir(&self, name: impl AsRef<OsStr>) -> Result<Option<Dir>, BeneathError> {
        let name = self.checked(name.as_ref())?;
        match rfs::openat(&self.fd, name, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => Ok(Some(Dir {
                fd,
                path: self.path.join(name),
                listed: false,
            })),
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::LOOP | Errno::NOTDIR) => Err(self.not_a_directory(name)),
            Err(e) => Err(io_error("open", &self.path.join(name), e)),
        }
    }

    /// Opens the chain of subdirectories `names`, one component at a time; `None` when one is
    /// missing. An empty chain is this directory.
    pub fn open_dirs<S: AsRef<OsStr>>(&self, names: &[S]) -> Result<Option<Dir>, BeneathError> {
        let mut dir = self.try_clone()?;
        for name in names {
            match dir.open_dir(name)? {
                Some(next) => dir = next,
                None => return Ok(None),
            }
        }
        Ok(Some(dir))
    }

    /// Creates the subdirectory `name` unless it exists, then opens it (never through a link).
    pub fn create_dir(&self, name: impl AsRef<OsStr>) -> Result<Dir, BeneathError> {
        let name = self.checked(name.as_ref())?;
        match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(io_error("create", &self.path.join(name), e)),
        }
        self.open_dir(name)?
            .ok_or_else(|| io_error("create", &self.path.join(name), Errno::NOENT))
    }

    /// Creates (where missing) and opens the chain of subdirectories `names`.
    pub fn create_dirs<S: AsRef<OsStr>>(&self, names: &[S]) -> Result<Dir, BeneathError> {
        let mut dir = self.try_clone()?;
        for name in names {
            dir = dir.create_dir(name)?;
        }
        Ok(dir)
    }

    /// The [`Stamp`] of the entry `name` (never through a link); `None` when it does not exist.
    pub fn stamp(&self, name: impl AsRef<OsStr>) -> Result<Option<Stamp>, BeneathError> {
        Ok(self.lstat(name.as_ref())?.map(|stat| Stamp::of(&stat)))
    }

    /// The [`Stamp`] of this directory itself.
    pub fn own_stamp(&self) -> Result<Stamp, BeneathError> {
        rfs::fstat(&self.fd)
            .map(|stat| Stamp::of(&stat))
            .map_err(|e| io_error("inspect", &self.path, e))
    }

    /// The [`Stamp`] of the entry at `names` below this directory, looked up by one `fstatat` of
    /// the joined path; `None` when it does not exist (or a component is not a directory).
    ///
    /// Unlike every other call here, the components before the last are resolved by the kernel
    /// and so may be followed through a link. Use it only to tell whether something is still the
    /// version a [`Stamp`] recorded, never to decide to read through the path: a stamp is only
    /// equal to one taken, through handles, of the very same inode unchanged.
    pub fn stamp_below<S: AsRef<OsStr>>(&self, names: &[S]) -> Result<Option<Stamp>, BeneathError> {
        let Some((last, parents)) = names.split_last() else {
            return self.own_stamp().map(Some);
        };
        self.stamp_at(&self.path_below(parents)?, last)
    }

    /// The checked path of the directory at `names` below this one, for [`Dir::stamp_at`].
    pub fn path_below<S: AsRef<OsStr>>(&self, names: &[S]) -> Result<PathBelow, BeneathError> {
        let mut path = Vec::with_capacity(names.len() * 16);
        for name in names {
            path.extend_from_slice(self.checked(name.as_ref())?.as_bytes());
            path.push(b'/');
        }
        Ok(PathBelow(path))
    }

    /// [`Dir::stamp_below`] of the entry `name` of the directory at `below`, with the same
    /// caveat.
    pub fn stamp_at(
        &self,
        below: &PathBelow,
        name: impl AsRef<OsStr>,
    ) -> Result<Option<Stamp>, BeneathError> {
        let name = self.checked(name.as_ref())?;
        let mut path = Vec::with_capacity(below.0.len() + name.len());
        path.extend_from_slice(&below.0);
        path.extend_from_slice(name.as_bytes());
        let path = OsStr::from_bytes(&path);
        match rfs::statat(&self.fd, path, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(Stamp::of(&stat))),
            Err(Errno::NOENT | Errno::NOTDIR) => Ok(None),
            Err(e) => Err(io_error("inspect", &self.path.join(path), e)),
        }
    }

    /// `lstat` of the entry `name`; `None` when it does not exist.
    pub fn stat(&self, name: impl AsRef<OsStr>) -> Result<Option<Meta>, BeneathError> {
        Ok(self.lstat(name.as_ref())?.map(|stat| Meta::of(&stat)))
    }

    fn lstat(&self, name: &OsStr) -> Result<Option<rfs::Stat>, BeneathError> {
        let name = self.checked(name)?;
        match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(stat)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(io_error("inspect", &self.path.join(name), e)),
        }
    }

    /// Opens the regular file `name` for reading: never through a link, never blocking on a
    /// FIFO or device, and only a regular file with a single link. `None` when it is missing.
    pub fn open_file(&self, name: impl AsRef<OsStr>) -> Result<Option<(File, Meta)>, BeneathError> {
        Ok(self
            .open_file_stamped(name)?
            .map(|(file, meta, _)| (file, meta)))
    }

    /// [`Dir::open_file`], with the open file's [`Stamp`] from the same `fstat`.
    fn open_file_stamped(
        &self,
        name: impl AsRef<OsStr>,
    ) -> Result<Option<(File, Meta, Stamp)>, BeneathError> {
        let name = self.checked(name.as_ref())?;
        // The path is only for messages: built when one is needed.
        let path = || self.path.join(name);
        let fd = match open_for_reading(&self.fd, name) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP) => return Err(BeneathError::Link { path: path() }),
            // Opening a socket fails with ENXIO.
            Err(Errno::NXIO) => {
                return Err(BeneathError::NotRegular {
                    path: path(),
                    kind: Kind::Socket,
                })
            }
            Err(e) => return Err(io_error("open", &path(), e)),
        };
        let stat = rfs::fstat(&fd).map_err(|e| io_error("inspect", &path(), e))?;
        let meta = Meta::of(&stat);
        if meta.kind != Kind::File || meta.nlink > 1 {
            check_single_regular(&path(), &meta)?;
        }
        Ok(Some((File::from(fd), meta, Stamp::of(&stat))))
    }

    /// Reads the regular file `name` (see [`Dir::open_file`]); `None` when it is missing.
    pub fn read_file(
        &self,
        name: impl AsRef<OsStr>,
        limit: ReadLimit,
    ) -> Result<Option<Contents>, BeneathError> {
        let mut bytes = Vec::new();
        let Some(read) = self.read_file_into(name, limit, &mut bytes)? else {
            return Ok(None);
        };
        Ok(Some(Contents {
            bytes,
            meta: read.meta,
            complete: read.complete,
        }))
    }

    /// [`Dir::read_file`] into `buffer` (replacing what it held), so that a caller reading many
    /// files reuses one allocation. `None` when the file is missing (`buffer` is then empty).
    pub fn read_file_into(
        &self,
        name: impl AsRef<OsStr>,
        limit: ReadLimit,
        buffer: &mut Vec<u8>,
    ) -> Result<Option<ReadInto>, BeneathError> {
        buffer.clear();
        let name = name.as_ref();
        let Some((file, meta, stamp)) = self.open_file_stamped(name)? else {
            return Ok(None);
        };
        let path = || self.path.join(name);
        let want = match limit {
            ReadLimit::Whole { max_bytes } if meta.len > max_bytes => {
                return Err(BeneathError::TooLarge {
                    path: path(),
                    actual: meta.len,
                    limit: max_bytes,
                })
            }
            ReadLimit::Whole { .. } => meta.len,
            ReadLimit::Head { bytes } => meta.len.min(bytes as u64),
        };
        read_up_to(file, want, buffer).map_err(|e| BeneathError::Io {
            action: "read",
            path: path(),
            source: e,
        })?;
        let complete = match limit {
            ReadLimit::Whole { .. } => true,
            ReadLimit::Head { bytes: head } => buffer.len() < head,
        };
        Ok(Some(ReadInto {
            meta,
            stamp,
            complete,
        }))
    }

    /// Replaces `name` with `bytes` atomically and durably: a new temp file in this directory
    /// (`O_CREAT|O_EXCL|O_NOFOLLOW`), write, fsync, `renameat` over `name` within this
    /// directory, fsync the directory. A crash leaves the old or the new file, never a mix.
    /// `mode` sets the new file's permission bits (else `0666 & ~umask`).
    pub fn replace_file(
        &self,
        name: impl AsRef<OsStr>,
        bytes: &[u8],
        mode: Option<u32>,
    ) -> Result<(), BeneathError> {
        let name = self.checked(name.as_ref())?;
        let temp = temp_name();
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fail = |e: io::Error| BeneathError::Io {
            action: "write",
            path: self.path.join(name),
            source: e,
        };
        let fd = rfs::openat(&self.fd, temp.as_str(), flags, Mode::from_raw_mode(0o666))
            .map_err(|e| fail(e.into()))?;
        let result = write_durably(fd, bytes, mode).and_then(|()| {
            rfs::renameat(&self.fd, temp.as_str(), &self.fd, name)?;
            Ok(rfs::fsync(&self.fd)?)
        });
        result.map_err(|e| {
            let _ = rfs::unlinkat(&self.fd, temp.as_str(), AtFlags::empty());
            fail(e)
        })
    }

    /// Moves `name` to `to_name` in the directory `to` (this one or another below the same root),
    /// replacing what is there, with one `renameat`: at every instant the file is at exactly one
    /// of the two names. Both directories are fsynced.
    pub fn rename_to(
        &self,
        name: impl AsRef<OsStr>,
        to: &Dir,
        to_name: impl AsRef<OsStr>,
    ) -> Result<(), BeneathError> {
        let name = self.checked(name.as_ref())?;
        let to_name = to.checked(to_name.as_ref())?;
        rfs::renameat(&self.fd, name, &to.fd, to_name)
            .map_err(|e| io_error("move", &self.path.join(name), e))?;
        rfs::fsync(&to.fd).map_err(|e| io_error("sync", &to.path, e))?;
        rfs::fsync(&self.fd).map_err(|e| io_error("sync", &self.path, e))
    }

    /// [`Dir::rename_to`], but never over an existing `to_name`: `Ok(false)` (and nothing
    /// moved) when it exists. Atomic (`renameat2(RENAME_NOREPLACE)`) where the system and the
    /// file system have it; elsewhere the check and the rename are two steps, so callers hold
    /// the locks that keep other writers of `to_name` out.
    pub fn rename_to_new(
        &self,
        name: impl AsRef<OsStr>,
        to: &Dir,
        to_name: impl AsRef<OsStr>,
    ) -> Result<bool, BeneathError> {
        let name = self.checked(name.as_ref())?;
        let to_name = to.checked(to_name.as_ref())?;
        match rename_noreplace(&self.fd, name, &to.fd, to_name) {
            Ok(()) => {}
            Err(Errno::EXIST) => return Ok(false),
            Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => {
                if to.stat(to_name)?.is_some() {
                    return Ok(false);
                }
                rfs::renameat(&self.fd, name, &to.fd, to_name)
                    .map_err(|e| io_error("move", &self.path.join(name), e))?;
            }
            Err(e) => return Err(io_error("move", &self.path.join(name), e)),
        }
        rfs::fsync(&to.fd).map_err(|e| io_error("sync", &to.path, e))?;
        rfs::fsync(&self.fd).map_err(|e| io_error("sync", &self.path, e))?;
        Ok(true)
    }

    /// Removes the empty subdirectory `name` (never through a link); `false` when it is missing
    /// or not empty.
    pub fn remove_empty_dir(&self, name: impl AsRef<OsStr>) -> Result<bool, BeneathError> {
        let name = self.checked(name.as_ref())?;
        match rfs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT | Errno::NOTEMPTY | Errno::EXIST) => Ok(false),
            Err(Errno::NOTDIR) => Err(self.not_a_directory(name)),
            Err(e) => Err(io_error("remove", &self.path.join(name), e)),
        }
    }

    /// Opens the regular file `name` for locking, creating it (empty, `0666 & ~umask`) when it
    /// is missing. Never through a link, never blocking, and never truncating.
    pub fn open_or_create_file(&self, name: impl AsRef<OsStr>) -> Result<File, BeneathError> {
        let name = self.checked(name.as_ref())?;
        let path = self.path.join(name);
        let flags = OFlags::RDWR | OFlags::CREATE | FILE_FLAGS;
        let fd = match rfs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o666)) {
            Ok(fd) => fd,
            Err(Errno::LOOP) => return Err(BeneathError::Link { path }),
            Err(Errno::NXIO) => {
                return Err(BeneathError::NotRegular {
                    path,
                    kind: Kind::Socket,
                })
            }
            Err(e) => return Err(io_error("open", &path, e)),
        };
        let meta = rfs::fstat(&fd)
            .map(|stat| Meta::of(&stat))
            .map_err(|e| io_error("inspect", &path, e))?;
        if meta.kind != Kind::File {
            return Err(BeneathError::NotRegular {
                path,
                kind: meta.kind,
            });
        }
        Ok(File::from(fd))
    }

    /// Removes the file (or symlink) `name`; `false` when it did not exist.
    pub fn remove_file(&self, name: impl AsRef<OsStr>) -> Result<bool, BeneathError> {
        let name = self.checked(name.as_ref())?;
        match rfs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(io_error("remove", &self.path.join(name), e)),
        }
    }

    /// The entries of this directory (without `.` and `..`), with their `lstat` types. Listing
    /// reads through this handle's own descriptor (from its start), hence `&mut`.
    pub fn entries(&mut self) -> Result<Vec<Entry>, BeneathError> {
        let fail = |e: Errno| io_error("read", &self.path, e);
        // A fresh descriptor is at the start already: a walk lists each directory once.
        if self.listed {
            rfs::seek(&self.fd, rfs::SeekFrom::Start(0)).map_err(fail)?;
        }
        self.listed = true;
        let mut buffer = vec![std::mem::MaybeUninit::<u8>::uninit(); 32 * 1024];
        let mut listing = rfs::RawDir::new(&self.fd, &mut buffer);
        let mut entries = Vec::new();
        while let Some(entry) = listing.next() {
            let entry = entry.map_err(fail)?;
            let bytes = entry.file_name().to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            entries.push(Entry {
                name: OsString::from_vec(bytes.to_vec()),
                kind: Kind::of(entry.file_type()),
            });
        }
        // Some file systems leave the type out of the listing.
        for entry in &mut entries {
            if entry.kind == Kind::Unknown {
                entry.kind = self.stat(&entry.name)?.map_or(Kind::Unknown, |m| m.kind);
            }
        }
        Ok(entries)
    }

    /// Flushes this directory's entries to disk.
    pub fn sync(&self) -> Result<(), BeneathError> {
        rfs::fsync(&self.fd).map_err(|e| io_error("sync", &self.path, e))
    }

    /// A single path component, or a refusal.
    fn checked<'n>(&self, name: &'n OsStr) -> Result<&'n OsStr, BeneathError> {
        let bytes = name.as_bytes();
        let single = !bytes.is_empty()
            && bytes != b"."
            && bytes != b".."
            && !bytes.contains(&b'/')
            && !bytes.contains(&0);
        if single {
            Ok(name)
        } else {
            Err(BeneathError::BadName {
                dir: self.path.clone(),
                name: name.to_os_string(),
            })
        }
    }

    /// The refusal for an entry that could not be opened as a directory.
    fn not_a_directory(&self, name: &OsStr) -> BeneathError {
        let path = self.path.join(name);
        match self.stat(name) {
            Ok(Some(meta)) if meta.kind == Kind::Symlink => BeneathError::Link { path },
            _ => BeneathError::NotADirectory { path },
        }
    }
}

/// Opens `name` in `dir` for reading (see [`FILE_FLAGS`]) without updating its access time when
/// the process may ask for that (`O_NOATIME` is for the file's owner): a walk of thousands of
/// notes would otherwise write thousands of inodes the first time each day, or after each
/// change, that it reads them.
fn open_for_reading(dir: &OwnedFd, name: &OsStr) -> Result<OwnedFd, Errno> {
    let flags = OFlags::RDONLY | FILE_FLAGS;
    match rfs::openat(dir, name, flags | OFlags::NOATIME, Mode::empty()) {
        Err(Errno::PERM) => rfs::openat(dir, name, flags, Mode::empty()),
        opened => opened,
    }
}

/// A regular file with a single link (another link could be a name for a file elsewhere).
fn check_single_regular(path: &Path, meta: &Meta) -> Result<(), BeneathError> {
    if meta.kind != Kind::File {
        return Err(BeneathError::NotRegular {
            path: path.to_path_buf(),
            kind: meta.kind,
        });
    }
    if meta.nlink > 1 {
        return Err(BeneathError::HardLinked {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// `renameat2(…, RENAME_NOREPLACE)`; `EINVAL` where the system has no such call.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios"
))]
fn rename_noreplace(
    from_dir: &OwnedFd,
    from: &OsStr,
    to_dir: &OwnedFd,
    to: &OsStr,
) -> Result<(), Errno> {
    rfs::renameat_with(from_dir, from, to_dir, to, rfs::RenameFlags::NOREPLACE)
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios"
)))]
fn rename_noreplace(
    _from_dir: &OwnedFd,
    _from: &OsStr,
    _to_dir: &OwnedFd,
    _to: &OsStr,
) -> Result<(), Errno> {
    Err(Errno::INVAL)
}

fn io_error(action: &'static str, path: &Path, errno: Errno) -> BeneathError {
    BeneathError::Io {
        action,
        path: path.to_path_buf(),
        source: errno.into(),
    }
}

/// Reads at most `want` bytes (the caller's `fstat` size or less) into the empty `bytes`, in as
/// few `read`s as possible. A file that shrinks meanwhile is read as far as it goes.
fn read_up_to(mut file: File, want: u64, bytes: &mut Vec<u8>) -> io::Result<()> {
    bytes.resize(usize::try_from(want).unwrap_or(usize::MAX), 0);
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                bytes.clear();
                return Err(e);
            }
        }
    }
    bytes.truncate(filled);
    Ok(())
}

fn write_durably(fd: OwnedFd, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    if let Some(mode) = mode {
        rfs::fchmod(&fd, Mode::from_raw_mode(mode))?;
    }
    let mut file = File::from(fd);
    file.write_all(bytes)?;
    file.sync_all()
}

/// Hidden, never ending in `.md`, unique per process and call.
fn temp_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(".pi-context.{}.{nanos:x}.{n}.tmp", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn root() -> (tempfile::TempDir, Dir) {
        let temp = tempfile::tempdir().unwrap();
        let dir = Dir::open_root(temp.path()).unwrap().unwrap();
        (temp, dir)
    }

    #[test]
    fn replace_is_atomic_keeps_the_mode_and_leaves_no_temp() {
        let (temp, mut dir) = root();
        dir.replace_file("a.md", b"one", None).unwrap();
        dir.replace_file("a.md", b"two", Some(0o600)).unwrap();
        assert_eq!(fs::read(temp.path().join("a.md")).unwrap(), b"two");
        let names: Vec<_> = dir.entries().unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, vec![OsString::from("a.md")]);
        let mode = fs::metadata(temp.path().join("a.md"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn links_fifos_and_hard_links_are_refused_when_read() {
        let (temp, dir) = root();
        let real = temp.path().join("real.md");
        fs::write(&real, "x").unwrap();
        symlink(&real, temp.path().join("sym.md")).unwrap();
        fs::hard_link(&real, temp.path().join("hard.md")).unwrap();
        rfs::mkfifoat(&dir.fd, "fifo.md", Mode::from_raw_mode(0o644)).unwrap();
        let whole = ReadLimit::Whole { max_bytes: 10 };
        assert!(matches!(
            dir.read_file("sym.md", whole),
            Err(BeneathError::Link { .. })
        ));
        assert!(matches!(
            dir.read_file("hard.md", whole),
            Err(BeneathError::HardLinked { .. })
        ));
        assert!(matches!(
            dir.read_file("fifo.md", whole),
            Err(BeneathError::NotRegular {
                kind: Kind::Fifo,
                ..
            })
        ));
        assert!(dir.read_file("missing.md", whole).unwrap().is_none());
    }

    #[test]
    fn reads_leave_the_access_time_alone() {
        let (temp, dir) = root();
        let old = SystemTime::now() - Duration::from_secs(3 * 86_400);
        let atime = |name: &str| {
            fs::metadata(temp.path().join(name))
                .unwrap()
                .accessed()
                .unwrap()
        };
        for name in ["note.md", "control.md"] {
            fs::write(temp.path().join(name), "x").unwrap();
            let file = fs::File::options()
                .write(true)
                .open(temp.path().join(name))
                .unwrap();
            file.set_times(fs::FileTimes::new().set_accessed(old))
                .unwrap();
        }
        // A plain read moves a three-day-old access time (relatime); a read through a handle
        // does not.
        fs::read(temp.path().join("control.md")).unwrap();
        if atime("control.md") == old {
            eprintln!("this file system never updates access times: nothing to show");
            return;
        }
        let whole = ReadLimit::Whole { max_bytes: 10 };
        assert!(dir.read_file("note.md", whole).unwrap().is_some());
        assert_eq!(atime("note.md"), old);
    }

    #[test]
    fn reads_are_capped() {
        let (temp, dir) = root();
        fs::write(temp.path().join("n"), "0123456789").unwrap();
        let head = dir
            .read_file("n", ReadLimit::Head { bytes: 4 })
            .unwrap()
            .unwrap();
        assert_eq!(
            (head.bytes.as_slice(), head.complete),
            (&b"0123"[..], false)
        );
        let whole = dir
            .read_file("n", ReadLimit::Whole { max_bytes: 10 })
            .unwrap()
            .unwrap();
        assert_eq!(
            (whole.bytes.len(), whole.complete, whole.meta.len),
            (10, true, 10)
        );
        assert!(matches!(
            dir.read_file("n", ReadLimit::Whole { max_bytes: 9 }),
            Err(BeneathError::TooLarge { actual: 10, .. })
        ));
    }

    #[test]
    fn symlinked_and_non_directories_are_refused_on_the_way() {
        let (temp, dir) = root();
        let outside = tempfile::tempdir().unwrap();
        symlink(outside.path(), temp.path().join("link")).unwrap();
        fs::write(temp.path().join("file"), "").unwrap();
        assert!(matches!(
            dir.open_dir("link"),
            Err(BeneathError::Link { .. })
        ));
        assert!(matches!(
            dir.create_dirs(&["link", "x"]),
            Err(BeneathError::Link { .. })
        ));
        assert!(matches!(
            dir.open_dirs(&["file", "x"]),
            Err(BeneathError::NotADirectory { .. })
        ));
        assert!(dir.open_dirs(&["missing", "x"]).unwrap().is_none());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
        let made = dir.create_dirs(&["a", "b"]).unwrap();
        made.replace_file("n.md", b"x", None).unwrap();
        assert!(temp.path().join("a/b/n.md").is_file());
    }

    #[test]
    fn a_held_directory_survives_a_swap_for_a_symlink() {
        let (temp, dir) = root();
        let outside = tempfile::tempdir().unwrap();
        let human = dir.create_dir("human").unwrap();
        fs::rename(temp.path().join("human"), temp.path().join("moved")).unwrap();
        symlink(outside.path(), temp.path().join("human")).unwrap();
        human.replace_file("n.md", b"x", None).unwrap();
        assert!(temp.path().join("moved/n.md").is_file());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
        assert!(matches!(
            dir.open_dir("human"),
            Err(BeneathError::Link { .. })
        ));
    }

    #[test]
    fn names_must_be_single_components() {
        let (_temp, dir) = root();
        for bad in ["", ".", "..", "a/b", "/abs", "a\0b"] {
            assert!(
                matches!(dir.stat(bad), Err(BeneathError::BadName { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn entries_lock_files_and_removal() {
        let (temp, mut dir) = root();
        dir.create_dir("sub").unwrap();
        symlink("sub", temp.path().join("ln")).unwrap();
        let file = dir.open_or_create_file("x.lock").unwrap();
        drop(file);
        assert!(dir.open_or_create_file("sub").is_err());
        assert!(matches!(
            dir.open_or_create_file("ln"),
            Err(BeneathError::Link { .. })
        ));
        let mut entries = dir.entries().unwrap();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let kinds: Vec<(String, Kind)> = entries
            .into_iter()
            .map(|e| (e.name.into_string().unwrap(), e.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("ln".into(), Kind::Symlink),
                ("sub".into(), Kind::Dir),
                ("x.lock".into(), Kind::File)
            ]
        );
        // A second listing, and one through a clone, start from the beginning again.
        assert_eq!(dir.entries().unwrap().len(), 3);
        assert_eq!(dir.try_clone().unwrap().entries().unwrap().len(), 3);
        assert!(dir.remove_file("x.lock").unwrap());
        assert!(!dir.remove_file("x.lock").unwrap());
        assert_eq!(dir.stat("ln").unwrap().unwrap().kind, Kind::Symlink);
    }
}
