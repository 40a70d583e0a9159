//! Reading a cache file: read into memory, or mapped behind the SIGBUS guard.

use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::frame::{Kind, HEADER_LEN};
use super::guard::GuardedMap;

/// The payload of the cache file at `path`, read only when it is a regular file (never through
/// a symlink, never blocking on a FIFO) whose header is of this `kind` and promises a payload of
/// exactly the file's size, no larger than `max_payload`.
pub(crate) fn read(path: &Path, kind: Kind, max_payload: u64) -> Option<Vec<u8>> {
    let (file, payload_len) = open(path, kind, max_payload)?;
    read_payload(file, payload_len)
}

/// [`read`], mapped when a guarded map can be set up (read otherwise): the payload then costs
/// no fresh memory, and only the pages used are touched. Cache files are replaced by a rename,
/// never written in place; one truncated by someone else under the map reads as zeros past its
/// end and reports [`Payload::damaged`].
pub(crate) fn map(path: &Path, kind: Kind, max_payload: u64) -> Option<Payload> {
    let (file, payload_len) = open(path, kind, max_payload)?;
    let len = usize::try_from(payload_len).ok()?.checked_add(HEADER_LEN)?;
    let payload = match GuardedMap::map(&file, len) {
        Some(map) => Bytes::Mapped(map),
        None => Bytes::Owned(read_payload(file, payload_len)?),
    };
    Some(Payload(payload))
}

/// The payload of a cache file: mapped or read.
pub(crate) struct Payload(Bytes);

enum Bytes {
    Mapped(GuardedMap),
    Owned(Vec<u8>),
}

impl Payload {
    /// A payload read into memory.
    pub(crate) fn owned(bytes: Vec<u8>) -> Payload {
        Payload(Bytes::Owned(bytes))
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.0 {
            Bytes::Mapped(map) => map.bytes().get(HEADER_LEN..).unwrap_or_default(),
            Bytes::Owned(bytes) => bytes,
        }
    }

    /// Whether a read of the map faulted past the file's end (it was truncated), so that some
    /// bytes read were zeros.
    pub(crate) fn damaged(&self) -> bool {
        matches!(&self.0, Bytes::Mapped(map) if map.damaged())
    }
}

/// A cache file opened and checked as [`read`] says, with its payload length; the file is
/// positioned after the header.
fn open(path: &Path, kind: Kind, max_payload: u64) -> Option<(File, u64)> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.file_type().is_file() {
        return None;
    }
    let mut header = [0; HEADER_LEN];
    file.read_exact(&mut header).ok()?;
    let payload_len = kind.payload_len(&header)?;
    let plausible = payload_len <= max_payload
        && metadata.len() == (HEADER_LEN as u64).checked_add(payload_len)?;
    plausible.then_some((file, payload_len))
}

fn read_payload(mut file: File, payload_len: u64) -> Option<Vec<u8>> {
    let mut payload = Vec::with_capacity(usize::try_from(payload_len).ok()?);
    (&mut file)
        .take(payload_len)
        .read_to_end(&mut payload)
        .ok()?;
    (payload.len() as u64 == payload_len).then_some(payload)
}
