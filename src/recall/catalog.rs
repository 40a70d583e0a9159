//! The per-file state that goes with one commit of the index: which files are indexed, up to
//! which byte, and what each session is (id, cwd, project, name, dates).
//!
//! The catalog is written to `catalog-<n>.bin` in the index's generation before the commit
//! whose payload names it, so a reader that opens the commit finds exactly the catalog that
//! describes it.

use std::fs;
use std::io::Write;

use serde::{Deserialize, Serialize};

use super::directory::BatchSyncDirectory;
use super::discover::{DirRecord, Stat};
use crate::session::Harness;

/// Bumped whenever the catalog or the index schema changes meaning; an index of another format
/// is rebuilt (format 3 added the change time to a file's stamp; format 4 each session's
/// harness and parent session; format 5 a CRC-32 for the racy-clean check instead of SHA-1; format 6 that CRC kept for
/// every file and extended as it grows; format 7 the round-4 fixes: session names masked like
/// first prompts, words over 80 bytes indexed cut to their first 80 bytes instead of left out, a
/// Codex compaction's reply no longer an assistant event, Codex event copies before their roled
/// twins read once, Claude Code's harness words context events, a compaction's missing logical
/// parent; the record types a reader did not know, by file; format 9 the listed directories'
/// stamps, so a search need not look at every file; format 10 each event's stems indexed
/// beside its words, issue 42).
pub const FORMAT: u32 = 10;

/// What `sessions list` shows of a session (docs/recall.md, "Output").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub session_id: String,
    /// The agent that wrote the session, recognized from the file's content.
    pub harness: Harness,
    /// The session that started this one (a Claude Code subagent's parent).
    pub parent_session_id: Option<String>,
    pub cwd: Option<String>,
    pub project_key: Option<String>,
    /// Masked when masking is on (docs/recall.md, "Secrets").
    pub name: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// `updated_at` in Unix milliseconds (0 when unknown), for sorting and `--since`.
    pub updated_ms: i64,
    pub entries: usize,
    pub bytes: u64,
    pub first_user_preview: Option<String>,
}

/// One indexed session file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    /// The value of the index's `file` field for this file's documents.
    pub file_id: u64,
    pub path: String,
    pub stat: Stat,
    /// The file's lines up to here are indexed: its complete lines, and a last line without
    /// its newline once it parsed and had settled.
    pub indexed_len: u64,
    /// Entries in the indexed prefix.
    pub indexed_entries: usize,
    /// SHA-1 of the first and of the last 4 KiB of the indexed prefix.
    pub head_check: [u8; 20],
    pub tail_check: [u8; 20],
    /// CRC-32 of the whole indexed prefix, extended (CRCs combine) as the file grows, so
    /// keeping it costs a read of what was appended, not of the whole file.
    pub prefix_crc: u32,
    /// The file is "racily clean": it was changed within the settling time before the
    /// refresh that read it, so a change in the same tick of the file system's clock would
    /// leave its stamp as it is. The next refresh compares the content (`prefix_crc`) instead
    /// of trusting the stamp. A change detector, not a seal (the size and the SHA-1 of both
    /// ends must match too): a CRC runs at memory speed, where the SHA-1 of a 70 MB session's
    /// prefix took 60 ms of the search after an append.
    pub racy: bool,
    /// The header's `version` (None: v1), needed to re-read single lines as the file's reader
    /// would.
    pub version: Option<u64>,
    pub events: u64,
    pub info: SessionInfo,
    /// Records of types the file's reader does not know, by type (a format that changed).
    pub unknown_types: std::collections::BTreeMap<String, u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Catalog {
    pub format: u32,
    pub next_file_id: u64,
    pub files: Vec<FileRecord>,
    /// The session directories whose listing these files stand for while their stamps hold
    /// (docs/recall.md, "Incremental refresh").
    pub dirs: Vec<DirRecord>,
}

impl Catalog {
    pub fn empty() -> Catalog {
        Catalog {
            format: FORMAT,
            next_file_id: 1,
            files: Vec::new(),
            dirs: Vec::new(),
        }
    }

    /// The catalog `name` of a generation; `None` when it is missing, not a regular file,
    /// too large, or does not parse as this format.
    pub fn load(directory: &BatchSyncDirectory, name: &str) -> Option<Catalog> {
        let data = directory.read_small(name).ok()?;
        postcard::from_bytes::<Catalog>(&data)
            .ok()
            .filter(|catalog| catalog.format == FORMAT)
    }

    /// Writes the catalog to a new file of the generation (temp, rename) and returns its name
    /// and the file, which the caller syncs (with the commit that names it) before the commit.
    pub fn save(&self, directory: &BatchSyncDirectory) -> std::io::Result<(String, fs::File)> {
        let data = postcard::to_stdvec(self).map_err(std::io::Error::other)?;
        let id = uuid::Uuid::new_v4().simple().to_string();
        let name = format!("catalog-{}.bin", &id[..16]);
        let temp = format!(".{name}.tmp");
        let written = directory.create_new(&temp).and_then(|mut f| {
            f.write_all(&data)?;
            Ok(f)
        });
        match written.and_then(|f| directory.rename(&temp, &name).map(|()| f)) {
            Ok(file) => Ok((name, file)),
            Err(e) => {
                let _ = directory.remove(&temp);
                Err(e)
            }
        }
    }
}

/// Removes every catalog file of the generation but `keep` (older commits' catalogs,
/// abandoned temp files).
pub fn remove_others(directory: &BatchSyncDirectory, keep: &str) {
    let Ok(names) = directory.names() else {
        return;
    };
    for name in names {
        let is_catalog = name.starts_with("catalog-") || name.starts_with(".catalog-");
        if is_catalog && name != keep {
            let _ = directory.remove(&name);
        }
    }
}

/// The commit payload: the format, the catalog file it goes with, and the masking its
/// documents were built with ([`crate::redact::Masking::stamp`]: the rules' version, or `off`).
#[derive(Debug, Serialize, Deserialize)]
pub struct Payload {
    pub format: u32,
    pub catalog: String,
    /// Absent in indexes built before secrets were masked: those are rebuilt.
    #[serde(default)]
    pub masking: String,
}

impl Payload {
    pub fn parse(text: &str) -> Option<Payload> {
        serde_json::from_str::<Payload>(text)
            .ok()
            .filter(|p| p.format == FORMAT)
            .filter(|p| is_catalog_name(&p.catalog))
    }
}

/// A catalog name the payload may point at (never a path outside the index directory).
fn is_catalog_name(name: &str) -> bool {
    name.starts_with("catalog-")
        && name.ends_with(".bin")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}
