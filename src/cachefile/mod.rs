//! Cache files: what the session index, the stored projection and the notes list record are
//! made of, and the one way files are saved whole. Imports no room.
//!
//! A cache file is a fixed header (magic, format, payload length; [`Kind`]) and a payload. It is
//! named from the file it describes ([`for_path`]), opened with `O_NOFOLLOW | O_NONBLOCK`, must
//! be a regular file of exactly the header's length and of the reader's kind and format, and is
//! read ([`read`]) or mapped behind the SIGBUS guard ([`map`]). A cache is an accelerator, never
//! a source of truth: a file that is missing, of another kind or format, cut short or longer than
//! promised is refused, and its reader rebuilds what it held. A payload has no checksum: a lazily
//! decoded index touches only the pages it needs, which a checksum of the whole payload would
//! read; each reader checks what it decodes (and the file it describes: [`prefix_checks`]).
//!
//! Files are saved whole ([`save`], [`save_in`]): a new 0600 temp file in the same (0700)
//! directory, renamed over the old one, synced or not as its [`Durability`] says.
//!
//! The SIGBUS guard ([`GuardedMap`], [`Canary`]) lives here with the map that needs it; the
//! session reader maps session files through it too. It is the one module of the library that
//! needs unsafe code besides recall's segment maps and the dreamer's `pre_exec`.

mod frame;
// The SIGBUS handler and its maps (mapping a file and handling the signal are unsafe in Rust).
#[allow(unsafe_code)]
mod guard;
mod read;
mod save;

use std::fs;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

pub(crate) use frame::{end, split_meta, Kind};
pub(crate) use guard::{Canary, GuardedMap};
pub(crate) use read::{map, read, Payload};
pub(crate) use save::{save, save_in, Durability};

/// How many bytes at each end of a prefix [`prefix_checks`] hashes.
const CHECK_BYTES: usize = 4096;

/// The cache file with extension `ext` in `dir` of the file at `path`, and the key it records
/// (the canonical path when it resolves, else the path as given): the SHA-1 of the key, in hex.
pub(crate) fn for_path(dir: &Path, path: &Path, ext: &str) -> (PathBuf, String) {
    let key = fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned();
    let file = dir.join(format!("{}.{ext}", hex(&Sha1::digest(key.as_bytes()))));
    (file, key)
}

/// SHA-1 of the first and of the last 4 KiB of a prefix of a file a cache describes: a prefix
/// whose checks are unchanged is taken to be the same bytes.
pub(crate) fn prefix_checks(prefix: &[u8]) -> ([u8; 20], [u8; 20]) {
    let head = &prefix[..prefix.len().min(CHECK_BYTES)];
    let tail = &prefix[prefix.len().saturating_sub(CHECK_BYTES)..];
    (Sha1::digest(head).into(), Sha1::digest(tail).into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
