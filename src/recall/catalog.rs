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
/// beside its words, issue 42; format 11 a part document per file and refresh holding its
/// events' stems, the session level of a search's pool and count; format 12 an agent noun's root
/// indexed beside its stem, `signer` also as `sign`).
pub const FORMAT: u32 = 12;

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
    /// too large, cut short while it was read, or does not parse as this format.
    pub fn load(directory: &BatchSyncDirectory, name: &str) -> Option<Catalog> {
        let file = directory.map_small(name).ok()?;
        let catalog = Catalog::decode(file.bytes())?;
        (!file.damaged()).then_some(catalog)
    }

    /// The catalog's bytes: a [`Head`], then its files in [`Head::parts`] runs, each decoded on a
    /// thread of its own (decoding the records' strings is most of what reading a catalog of
    /// thousands of sessions costs a search).
    fn encode(&self) -> postcard::Result<Vec<u8>> {
        let per_part = self.files.len().div_ceil(CATALOG_PARTS).max(MIN_PART_FILES);
        let parts: Vec<Vec<u8>> = self
            .files
            .chunks(per_part)
            .map(postcard::to_stdvec)
            .collect::<postcard::Result<_>>()?;
        let head = Head {
            format: self.format,
            next_file_id: self.next_file_id,
            dirs: self.dirs.clone(),
            parts: parts.iter().map(|p| p.len() as u64).collect(),
        };
        let mut data = postcard::to_stdvec(&head)?;
        for part in parts {
            data.extend_from_slice(&part);
        }
        Ok(data)
    }

    fn decode(data: &[u8]) -> Option<Catalog> {
        let (head, mut rest) = postcard::take_from_bytes::<Head>(data).ok()?;
        // More runs than a catalog is written in is not a catalog of ours (and each run is a
        // thread).
        if head.format != FORMAT || head.parts.len() > CATALOG_PARTS {
            return None;
        }
        let mut parts = Vec::with_capacity(head.parts.len());
        for len in &head.parts {
            let len = usize::try_from(*len).ok().filter(|l| *l <= rest.len())?;
            let (part, after) = rest.split_at(len);
            parts.push(part);
            rest = after;
        }
        if !rest.is_empty() {
            return None;
        }
        // The first run is decoded straight into the catalog's list, sized for every run, and
        // the others beside it each into a list of its size: growing the lists and copying them
        // together touched twice the records' memory again (fresh pages the kernel zeroes).
        let total = parts
            .iter()
            .try_fold(0usize, |sum, part| Some(sum + records_in(part)?.0))?;
        let mut files = Vec::with_capacity(total);
        let decoded: Option<Vec<Vec<FileRecord>>> = match parts.split_first() {
            Some((first, others)) => std::thread::scope(|scope| {
                let others: Vec<_> = others
                    .iter()
                    .map(|part| scope.spawn(move || decode_run(part, Vec::new())))
                    .collect();
                files = decode_run(first, std::mem::take(&mut files))?;
                others
                    .into_iter()
                    .map(|t| t.join().ok().flatten())
                    .collect()
            }),
            None => Some(Vec::new()),
        };
        for part in decoded? {
            files.extend(part);
        }
        Some(Catalog {
            format: head.format,
            next_file_id: head.next_file_id,
            files,
            dirs: head.dirs,
        })
    }

    /// Writes the catalog to a new file of the generation (temp, rename) and returns its name
    /// and the file, which the caller syncs (with the commit that names it) before the commit.
    pub fn save(&self, directory: &BatchSyncDirectory) -> std::io::Result<(String, fs::File)> {
        let data = self.encode().map_err(std::io::Error::other)?;
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

/// What a catalog file starts with: all but its files, and the lengths of the runs of files
/// that follow it.
#[derive(Serialize, Deserialize)]
struct Head {
    format: u32,
    next_file_id: u64,
    dirs: Vec<DirRecord>,
    parts: Vec<u64>,
}

/// How many records the run `part` (a postcard list) holds, and the bytes after its count. The
/// count is bounded by the bytes left (a record takes at least its two 20-byte checks), so a
/// damaged count cannot reserve more memory than the file could describe.
fn records_in(part: &[u8]) -> Option<(usize, &[u8])> {
    let (count, rest) = postcard::take_from_bytes::<usize>(part).ok()?;
    (count <= rest.len() / 40).then_some((count, rest))
}

/// The records of the run `part` appended to `files` (reserved for them when empty).
fn decode_run(part: &[u8], mut files: Vec<FileRecord>) -> Option<Vec<FileRecord>> {
    let (count, mut rest) = records_in(part)?;
    files.reserve(count);
    for _ in 0..count {
        let (record, after) = postcard::take_from_bytes::<FileRecord>(rest).ok()?;
        files.push(record);
        rest = after;
    }
    rest.is_empty().then_some(files)
}

/// The runs a catalog's files are written in (as many as a search has threads to decode them).
const CATALOG_PARTS: usize = 2;
/// A catalog of fewer files is one run: a thread costs more than decoding them.
const MIN_PART_FILES: usize = 1024;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(file_id: u64) -> FileRecord {
        FileRecord {
            file_id,
            path: format!("/sessions/{file_id}.jsonl"),
            stat: Stat {
                dev: 1,
                ino: file_id,
                size: 10 * file_id,
                mtime_ns: 7,
                ctime_ns: 8,
            },
            indexed_len: 10 * file_id,
            indexed_entries: 3,
            head_check: [1; 20],
            tail_check: [2; 20],
            prefix_crc: 9,
            racy: false,
            version: Some(3),
            events: 4,
            info: SessionInfo {
                session_id: format!("s{file_id}"),
                harness: Harness::Pi,
                parent_session_id: None,
                cwd: Some("/work".into()),
                project_key: None,
                name: None,
                created_at: None,
                updated_at: None,
                updated_ms: file_id as i64,
                entries: 3,
                bytes: 10 * file_id,
                first_user_preview: Some(format!("question {file_id}")),
            },
            unknown_types: Default::default(),
        }
    }

    fn catalog(files: u64) -> Catalog {
        Catalog {
            format: FORMAT,
            next_file_id: files + 1,
            files: (1..=files).map(record).collect(),
            dirs: vec![DirRecord {
                path: "/sessions".into(),
                glob: "*.jsonl".into(),
                stamp: record(1).stat,
                files: files as u32,
            }],
        }
    }

    fn ids(catalog: &Catalog) -> Vec<u64> {
        catalog.files.iter().map(|f| f.file_id).collect()
    }

    #[test]
    fn a_catalog_reads_back_in_order_whether_in_one_run_or_several() {
        for files in [0, 5, MIN_PART_FILES as u64 * 3 + 7] {
            let written = catalog(files);
            let read = Catalog::decode(&written.encode().unwrap()).unwrap();
            assert_eq!(ids(&read), ids(&written));
            assert_eq!(
                read.files.last().map(|f| &f.info),
                written.files.last().map(|f| &f.info)
            );
            assert_eq!(read.next_file_id, files + 1);
            assert_eq!(read.dirs.len(), 1);
        }
    }

    #[test]
    fn a_cut_or_padded_catalog_is_refused() {
        let data = catalog(MIN_PART_FILES as u64 * 3).encode().unwrap();
        for cut in [1, 100, data.len() / 2, data.len() - 1] {
            assert!(Catalog::decode(&data[..cut]).is_none(), "cut at {cut}");
        }
        let mut padded = data.clone();
        padded.push(0);
        assert!(Catalog::decode(&padded).is_none());
        // A head that names 100,000 runs (a thread each), every one a valid empty list, is
        // refused before any is read.
        let runs = 100_000;
        let head = Head {
            format: FORMAT,
            next_file_id: 1,
            dirs: Vec::new(),
            parts: vec![1; runs],
        };
        let mut many = postcard::to_stdvec(&head).unwrap();
        many.extend(std::iter::repeat_n(0u8, runs));
        assert!(Catalog::decode(&many).is_none());
        // A run whose count claims more records than its bytes could hold is refused before
        // anything is reserved for them.
        let mut huge = postcard::to_stdvec(&Head {
            format: FORMAT,
            next_file_id: 1,
            dirs: Vec::new(),
            parts: vec![64],
        })
        .unwrap();
        let mut run = postcard::to_stdvec(&(1usize << 60)).unwrap();
        run.resize(64, 0);
        huge.extend(run);
        assert!(Catalog::decode(&huge).is_none());
        let mut flipped = data;
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0xff;
        // A flipped byte either fails to decode or decodes to other values; it never panics.
        let _ = Catalog::decode(&flipped);
    }
}
