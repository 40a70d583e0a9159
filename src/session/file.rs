//! Opening a session file, and telling afterwards whether what was read is one version of it.
//!
//! Pi appends to a session file, but it also rewrites it in place (`openSync(file, "w")`, for
//! migrations and forks). A reader that maps the file can then see a mix of two versions, or
//! zeros where the file shrank (see [`super::guard`]). So every read is an attempt: the caller
//! runs its whole operation on a [`SessionFile`], then asks [`SessionFile::is_consistent`]
//! whether the bytes it used can have changed, and if so runs it again on a fresh open.
//! [`read_consistently`] is that loop.
//!
//! An append keeps the read consistent: the bytes that were read are still the file's first
//! bytes. A rewrite is recognized by a read that faulted past the end, a file now shorter than
//! what was read, a change in the first or last 4 KiB of what was read, or the canary page
//! leaving the page tables (see [`Canary`]): every in-place rewrite starts with a truncation,
//! which the canary sees even when the file was restored to the same bytes before the check.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::cache::Decode;
use super::harness::{detect, Harness, DETECT_BYTES};
use super::{OpenOptions, Session, SessionError, Source};
use crate::cachefile::{Canary, GuardedMap};

/// How many times an operation runs before a file that keeps changing is reported.
const ATTEMPTS: u32 = 3;
/// How many bytes at each end of what was read are kept to compare with the file afterwards.
const CHECK_BYTES: usize = 4096;

/// Runs `op` on the session file at `path`, again on a fresh open when the file changed under
/// it (rewritten in place, or shrunk), up to three times; then fails with
/// [`SessionError::Changed`]. An append never causes another attempt.
pub fn read_consistently<T, E>(
    path: &Path,
    mut op: impl FnMut(&SessionFile) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<SessionError>,
{
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            // A rewrite in progress usually ends within milliseconds.
            std::thread::sleep(Duration::from_millis(5 << attempt));
        }
        let file = SessionFile::open(path)?;
        let result = op(&file);
        if file.is_consistent() {
            return result;
        }
    }
    Err(SessionError::Changed {
        path: path.to_path_buf(),
    }
    .into())
}

/// An open session file: its bytes (mapped when possible) and what is needed to tell, once an
/// operation is done, whether those bytes stayed the bytes of one version of the file.
#[derive(Debug)]
pub struct SessionFile {
    path: PathBuf,
    source: Source,
    /// `None` for a missing or empty file: there is nothing that could change.
    opened: Option<Opened>,
}

#[derive(Debug)]
struct Opened {
    file: File,
    metadata: Metadata,
    /// Recognizes a truncation during the read even when the file grew back to the same bytes.
    canary: Option<Canary>,
    /// The first and last bytes of what was read, and where the last ones start.
    head: Vec<u8>,
    tail: Vec<u8>,
    tail_at: u64,
}

impl SessionFile {
    /// Opens a session file without blocking. A missing file is an empty session (Pi creates the
    /// file lazily); a directory, FIFO, socket or device is refused.
    pub fn open(path: &Path) -> Result<SessionFile, SessionError> {
        let io_error = |source| SessionError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = match open_nonblocking(path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(SessionFile::empty(path)),
            Err(e) => return Err(not_a_file(path).unwrap_or_else(|| io_error(e))),
        };
        let metadata = file.metadata().map_err(io_error)?;
        if !metadata.file_type().is_file() {
            return Err(SessionError::NotAFile {
                path: path.to_path_buf(),
                kind: kind_of(&metadata.file_type()),
            });
        }
        let Ok(len) = usize::try_from(metadata.len()) else {
            return Err(io_error(io::Error::other("the file is too large to read")));
        };
        if len == 0 {
            return Ok(SessionFile::empty(path));
        }
        let source = match GuardedMap::map(&file, len) {
            Some(map) => Source::Mapped(Arc::new(map)),
            None => Source::Owned(Arc::new(read_at_most(&file, len).map_err(io_error)?)),
        };
        // The canary is touched before the ends are copied and anything is parsed, so any
        // truncation after it is seen, and the bytes read before it are these ends' version.
        let canary = Canary::new(&file, len);
        let bytes = source.bytes();
        let tail_at = bytes.len().saturating_sub(CHECK_BYTES);
        let opened = Opened {
            canary,
            head: bytes[..bytes.len().min(CHECK_BYTES)].to_vec(),
            tail: bytes[tail_at..].to_vec(),
            tail_at: tail_at as u64,
            file,
            metadata,
        };
        Ok(SessionFile {
            path: path.to_path_buf(),
            source,
            opened: Some(opened),
        })
    }

    fn empty(path: &Path) -> SessionFile {
        SessionFile {
            path: path.to_path_buf(),
            source: Source::Empty,
            opened: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of the file as opened (they may change under a map; see the module docs).
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    /// Parses the session, using (and refreshing) an on-disk index when the options allow it.
    pub fn session(&self, options: &OpenOptions) -> Session {
        self.session_indexed(options, super::cache::REWRITE_AFTER_BYTES, Decode::All)
    }

    /// [`session`](Self::session) whose indexed entries are decoded a chunk at a time when
    /// first used, for an operation that needs few of them. A corrupt chunk gives stand-in
    /// entries: the caller checks [`Session::index_damaged`] when done and, if so, does its
    /// work again on [`session`](Self::session), which never takes a corrupt index.
    pub fn session_decoding_lazily(&self, options: &OpenOptions) -> Session {
        self.session_indexed(options, super::cache::REWRITE_AFTER_BYTES, Decode::Lazily)
    }

    /// [`session_decoding_lazily`](Self::session_decoding_lazily) for a reader that reads the
    /// file once and moves on (a recall refresh): the index is rewritten only after 4 MiB were
    /// appended, not 256 KiB, so that such a read does not re-encode a large session's whole
    /// index. The caller checks [`Session::index_damaged`] as that method says.
    pub fn session_rewriting_lazily(&self, options: &OpenOptions) -> Session {
        self.session_indexed(
            options,
            super::cache::LAZY_REWRITE_AFTER_BYTES,
            Decode::Lazily,
        )
    }

    fn session_indexed(
        &self,
        options: &OpenOptions,
        rewrite_after: usize,
        decode: Decode,
    ) -> Session {
        let index_dir = options
            .cache_dir
            .as_deref()
            .filter(|_| self.bytes().len() as u64 >= options.cache_min_bytes);
        let mut session = match (index_dir, &self.opened) {
            (Some(dir), Some(opened)) => {
                super::cache::open_indexed(self, &opened.metadata, dir, rewrite_after, decode)
            }
            _ => Session::parse(self.source.clone()),
        };
        super::harness::complete_from_path(&mut session, &self.path);
        session
    }

    /// The metadata of the opened file, from the `fstat` its bytes were read after; `None` for a
    /// missing or empty file.
    pub fn metadata(&self) -> Option<&Metadata> {
        self.opened.as_ref().map(|o| &o.metadata)
    }

    /// The device and inode of the opened file; `None` for a missing or empty file.
    pub(crate) fn identity(&self) -> Option<(u64, u64)> {
        self.opened
            .as_ref()
            .map(|o| (o.metadata.dev(), o.metadata.ino()))
    }

    /// Whether the bytes are a map of the file, which can change under a reader (a rewrite in
    /// place); owned bytes hold still.
    pub fn is_mapped(&self) -> bool {
        matches!(self.source, Source::Mapped(_))
    }

    /// Reads the file at `offset` into `buffer` (`pread`): the bytes of the file now, which are
    /// those of [`bytes`](Self::bytes) unless the file was rewritten since it was opened (which
    /// [`is_consistent`](Self::is_consistent) then tells).
    pub fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        match &self.opened {
            Some(opened) => opened.file.read_at(buffer, offset),
            None => Ok(0),
        }
    }

    pub(super) fn source(&self) -> &Source {
        &self.source
    }

    /// Whether everything read so far is the bytes of one version of the file: no read faulted
    /// past its end, it is not shorter than what was read, and both ends of what was read are
    /// unchanged. An append keeps this true.
    pub fn is_consistent(&self) -> bool {
        let Some(opened) = &self.opened else {
            return true;
        };
        !self.source.damaged()
            && !opened.canary.as_ref().is_some_and(Canary::tripped)
            && opened
                .file
                .metadata()
                .is_ok_and(|now| now.len() >= self.bytes().len() as u64)
            && opened.ends_unchanged()
    }

    /// Stricter than [`is_consistent`](Self::is_consistent), for what outlives this call (the
    /// index): also nothing was appended and the modification time is the same.
    pub(crate) fn is_unchanged(&self) -> bool {
        let Some(opened) = &self.opened else {
            return true;
        };
        let Ok(now) = opened.file.metadata() else {
            return false;
        };
        now.len() == self.bytes().len() as u64
            && (now.mtime(), now.mtime_nsec())
                == (opened.metadata.mtime(), opened.metadata.mtime_nsec())
            && self.is_consistent()
    }
}

impl Opened {
    fn ends_unchanged(&self) -> bool {
        self.file_has(0, &self.head) && self.file_has(self.tail_at, &self.tail)
    }

    fn file_has(&self, at: u64, expected: &[u8]) -> bool {
        let mut now = vec![0; expected.len()];
        self.file.read_exact_at(&mut now, at).is_ok() && now == expected
    }
}

/// The harness of the file at `path`, from its first bytes (see [`detect`]). A file that
/// cannot be read is Pi's, as a missing session is an empty Pi session.
pub fn detect_file(path: &Path) -> Harness {
    let Ok(file) = open_for_detection(path) else {
        return Harness::Pi;
    };
    let mut head = Vec::new();
    match file.take(DETECT_BYTES as u64).read_to_end(&mut head) {
        Ok(_) => detect(&head),
        Err(_) => Harness::Pi,
    }
}

/// The session id a file's first complete lines give, as its reader reads them: a Pi file's
/// header line (only that line is read); another harness's first records (Claude Code's
/// `sessionId`, or a subagent's `agentId`; Codex's `session_meta`).
pub fn id_in_head(lines: &[u8]) -> Option<String> {
    if lines.is_empty() {
        return None;
    }
    let session = if detect(lines) == Harness::Pi {
        let first = &lines[..memchr::memchr(b'\n', lines).unwrap_or(lines.len())];
        Session::from_bytes(first.to_vec())
    } else {
        Session::from_bytes(lines.to_vec())
    };
    session.id().filter(|id| !id.is_empty()).map(str::to_string)
}

/// A regular file opened for reading its first bytes (a FIFO or device is refused, never
/// waited on).
fn open_for_detection(path: &Path) -> io::Result<File> {
    let file = open_nonblocking(path)?;
    if !file.metadata()?.file_type().is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// `O_NONBLOCK`, so that opening a FIFO cannot wait for a writer.
fn open_nonblocking(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

/// The refusal for a path that exists but is no regular file (a socket cannot even be opened).
fn not_a_file(path: &Path) -> Option<SessionError> {
    let file_type = std::fs::metadata(path).ok()?.file_type();
    (!file_type.is_file()).then(|| SessionError::NotAFile {
        path: path.to_path_buf(),
        kind: kind_of(&file_type),
    })
}

fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else {
        "a special file"
    }
}

/// Reads at most `len` bytes (the file may be growing, or shrinking).
fn read_at_most(file: &File, len: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(len);
    file.take(len as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}
