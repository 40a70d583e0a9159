//! The per-file state that goes with one commit of the index: which files are indexed, up to
//! which byte, and what each session is (id, cwd, project, name, dates).
//!
//! The catalog is written to `catalog-<n>.bin` before the index commit whose payload names it,
//! so a reader that opens the commit finds exactly the catalog that describes it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::discover::Stat;
use super::refresh::project_key_of;

/// Bumped whenever the catalog or the index schema changes meaning; an index of another format
/// is rebuilt, except one of [`REKEYED_FORMAT`].
pub const FORMAT: u32 = 2;

/// The format before project keys came from a checkout's `origin` remote: it differs from
/// [`FORMAT`] only in its sessions' project keys, which are recomputed from their cwds when it
/// is loaded (the next commit writes the current format), instead of rebuilding the index.
const REKEYED_FORMAT: u32 = 1;

/// What `sessions list` shows of a session (CONTRACT §10.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub session_id: String,
    pub cwd: Option<String>,
    pub project_key: Option<String>,
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
    /// The file's complete lines up to here are indexed (a torn last line waits).
    pub indexed_len: u64,
    /// Entries in the indexed prefix.
    pub indexed_entries: usize,
    /// SHA-1 of the first and of the last 4 KiB of the indexed prefix.
    pub head_check: [u8; 20],
    pub tail_check: [u8; 20],
    /// The header's `version` (None: v1), needed to re-read single lines as the file's reader
    /// would.
    pub version: Option<u64>,
    pub events: u64,
    pub info: SessionInfo,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Catalog {
    pub format: u32,
    pub next_file_id: u64,
    pub files: Vec<FileRecord>,
}

impl Catalog {
    pub fn empty() -> Catalog {
        Catalog {
            format: FORMAT,
            next_file_id: 1,
            files: Vec::new(),
        }
    }

    pub fn load(path: &Path) -> Option<Catalog> {
        let data = fs::read(path).ok()?;
        let mut catalog = postcard::from_bytes::<Catalog>(&data).ok()?;
        match catalog.format {
            FORMAT => Some(catalog),
            REKEYED_FORMAT => {
                catalog.rekey();
                Some(catalog)
            }
            _ => None,
        }
    }

    /// Recomputes every session's project key from its cwd (once per distinct cwd), as an
    /// index of the current format has it.
    fn rekey(&mut self) {
        let mut keys: FxHashMap<String, String> = FxHashMap::default();
        for record in &mut self.files {
            record.info.project_key = record.info.cwd.as_ref().map(|cwd| {
                keys.entry(cwd.clone())
                    .or_insert_with(|| project_key_of(Path::new(cwd)))
                    .clone()
            });
        }
        self.format = FORMAT;
    }

    /// Writes the catalog to a new file in `dir` (temp, rename) and returns its name and the
    /// file, which the caller syncs (with the commit that names it) before the commit.
    pub fn save(&self, dir: &Path) -> std::io::Result<(String, fs::File)> {
        let data = postcard::to_stdvec(self).map_err(std::io::Error::other)?;
        let name = format!(
            "catalog-{}.bin",
            uuid::Uuid::new_v4()
                .simple()
                .to_string()
                .get(..16)
                .unwrap_or("0")
        );
        let target = dir.join(&name);
        let temp = dir.join(format!(".{name}.tmp"));
        let written = fs::File::create(&temp).and_then(|mut f| {
            f.write_all(&data)?;
            Ok(f)
        });
        match written.and_then(|f| fs::rename(&temp, &target).map(|()| f)) {
            Ok(file) => Ok((name, file)),
            Err(e) => {
                let _ = fs::remove_file(&temp);
                Err(e)
            }
        }
    }
}

/// Removes every catalog file but `keep` (older commits' catalogs, abandoned temp files).
pub fn remove_others(dir: &Path, keep: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_catalog = name.starts_with("catalog-") || name.starts_with(".catalog-");
        if is_catalog && name != keep {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The commit payload: the format and the catalog file it goes with.
#[derive(Debug, Serialize, Deserialize)]
pub struct Payload {
    pub format: u32,
    pub catalog: String,
}

impl Payload {
    pub fn parse(text: &str) -> Option<Payload> {
        serde_json::from_str::<Payload>(text)
            .ok()
            .filter(|p| matches!(p.format, FORMAT | REKEYED_FORMAT))
            .filter(|p| is_catalog_name(&p.catalog))
    }

    pub fn path(&self, dir: &Path) -> PathBuf {
        dir.join(&self.catalog)
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

    fn record(file_id: u64, cwd: Option<&Path>, key: &str) -> FileRecord {
        FileRecord {
            file_id,
            path: format!("/sessions/{file_id}.jsonl"),
            stat: Stat {
                dev: 0,
                ino: 0,
                size: 0,
                mtime_ns: 0,
            },
            indexed_len: 0,
            indexed_entries: 0,
            head_check: [0; 20],
            tail_check: [0; 20],
            version: Some(3),
            events: 0,
            info: SessionInfo {
                session_id: format!("s{file_id}"),
                cwd: cwd.map(|c| c.to_string_lossy().into_owned()),
                project_key: Some(key.to_string()),
                name: None,
                created_at: None,
                updated_at: None,
                updated_ms: 0,
                entries: 0,
                bytes: 0,
                first_user_preview: None,
            },
        }
    }

    #[test]
    fn a_catalog_of_the_path_key_format_loads_with_current_keys() {
        let dir = tempfile::tempdir().unwrap();
        let checkout = dir.path().join("repo");
        std::fs::create_dir_all(checkout.join(".git")).unwrap();
        std::fs::write(
            checkout.join(".git/config"),
            "[remote \"origin\"]\n\turl = git@example.com:owner/repo.git\n",
        )
        .unwrap();
        let old = Catalog {
            format: REKEYED_FORMAT,
            next_file_id: 3,
            files: vec![
                record(1, Some(&checkout), "repo-00000000"),
                record(2, None, "stale-00000000"),
            ],
        };
        let (name, _) = old.save(dir.path()).unwrap();
        let payload = format!(r#"{{"format":{REKEYED_FORMAT},"catalog":"{name}"}}"#);
        let loaded = Catalog::load(&Payload::parse(&payload).unwrap().path(dir.path())).unwrap();
        assert_eq!(loaded.format, FORMAT);
        assert_eq!(
            loaded.files[0].info.project_key.as_deref(),
            Some(crate::project::project_key(&checkout).as_str())
        );
        assert!(loaded.files[0]
            .info
            .project_key
            .as_deref()
            .is_some_and(|k| k.starts_with("repo-") && k != "repo-00000000"));
        assert_eq!(loaded.files[1].info.project_key, None);

        let unknown = Catalog { format: 99, ..old };
        let (name, _) = unknown.save(dir.path()).unwrap();
        assert!(Catalog::load(&dir.path().join(name)).is_none());
        assert!(Payload::parse(r#"{"format":99,"catalog":"catalog-1.bin"}"#).is_none());
    }
}
