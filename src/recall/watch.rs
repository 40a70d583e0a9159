//! Which session files a search looks at (docs/recall.md, "Incremental refresh"): a directory
//! whose stamp holds is taken from the catalog, and of its files only these are looked at: the
//! most recently changed ones (the sessions being written), the racily clean ones, the live
//! session's file, and the sweep's next share of the others, so that every file is looked at
//! within a bounded number of searches. `sessions index` looks at every file.

use std::fs;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::cachefile::{self, Durability};

use super::catalog::Catalog;
use super::discover::{dir_key, Known, KnownFile};

/// How many of the files of unchanged directories a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checks {
    /// The most recently changed files (by change time), looked at on every search.
    pub hot: usize,
    /// The other files looked at per search, in turn.
    pub sweep: usize,
}

impl Default for Checks {
    fn default() -> Checks {
        Checks {
            hot: 64,
            sweep: 256,
        }
    }
}

impl Checks {
    /// `HOT,SWEEP` (the test hook `PI_CONTEXT_RECALL_CHECKS`); `None` when it is not two numbers.
    pub fn parse(text: &str) -> Option<Checks> {
        let (hot, sweep) = text.split_once(',')?;
        Some(Checks {
            hot: hot.trim().parse().ok()?,
            sweep: sweep.trim().parse().ok()?,
        })
    }
}

/// What the catalog knows, with the files to look at marked: the hot, the racily clean, the
/// live one, and the sweep's share from `cursor` on (positions in the catalog, wrapping).
pub fn known<'a>(
    catalog: &'a Catalog,
    checks: Checks,
    cursor: usize,
    live: Option<&Path>,
) -> Known<'a> {
    let checked = checked_files(catalog, checks, cursor, live);
    let mut files: FxHashMap<&str, Vec<KnownFile>> = FxHashMap::default();
    for (i, record) in catalog.keys().enumerate() {
        let Some((dir, name)) = record.path().rsplit_once('/') else {
            continue;
        };
        let dir = if dir.is_empty() { "/" } else { dir };
        files.entry(dir).or_default().push(KnownFile {
            name,
            stat: record.stat(),
            check: checked.contains(&i),
        });
    }
    for list in files.values_mut() {
        list.sort_unstable_by(|a, b| a.name.cmp(b.name));
    }
    let dirs = catalog
        .dirs
        .iter()
        .map(|d| ((dir_key(&d.path), d.glob.as_str()), (d.stamp, d.files)))
        .collect();
    Known { dirs, files }
}

/// The positions in the catalog of the files a search looks at.
fn checked_files(
    catalog: &Catalog,
    checks: Checks,
    cursor: usize,
    live: Option<&Path>,
) -> FxHashSet<usize> {
    let files = catalog.keys();
    let mut checked: FxHashSet<usize> = FxHashSet::default();
    let mut by_change: Vec<(i64, usize)> = files
        .clone()
        .enumerate()
        .map(|(i, r)| (r.changed_ns(), i))
        .collect();
    if checks.hot < by_change.len() {
        by_change.select_nth_unstable_by(checks.hot, |a, b| b.cmp(a));
        by_change.truncate(checks.hot);
    }
    checked.extend(by_change.into_iter().map(|(_, i)| i));
    checked.extend(
        files
            .clone()
            .enumerate()
            .filter(|(_, r)| r.racy())
            .map(|(i, _)| i),
    );
    if !catalog.is_empty() {
        let start = cursor % files.len();
        checked.extend((0..checks.sweep.min(files.len())).map(|k| (start + k) % files.len()));
    }
    if let Some(live) = live.and_then(Path::to_str) {
        checked.extend(files.clone().position(|r| r.path() == live));
    }
    checked
}

/// The sweep's position, kept in `<recall dir>/sweep` between searches (0 when missing or
/// unreadable: the sweep starts over, which costs nothing but order).
pub fn read_cursor(dir: &Path) -> usize {
    let Ok(mut file) = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(dir.join(CURSOR))
    else {
        return 0;
    };
    let mut text = String::new();
    let _ = (&mut file).take(32).read_to_string(&mut text);
    text.trim().parse().unwrap_or(0)
}

/// Moves the sweep on past the files this search looked at. Best effort: two searches at once
/// may sweep the same share, and a lost write sweeps a share again.
///
/// Saved whole (a temp file renamed over it), so a reader never sees a half-written number and
/// whatever stood in its place (a link, a FIFO, a directory) is replaced, never written
/// through: a position that could not be written would leave the sweep at its start for good.
pub fn advance_cursor(dir: &Path, cursor: usize, checks: Checks, files: usize) {
    if files == 0 || checks.sweep == 0 {
        return;
    }
    let next = (cursor % files + checks.sweep.min(files)) % files;
    let path = dir.join(CURSOR);
    let save = || cachefile::save(&path, next.to_string().as_bytes(), Durability::Rebuildable);
    if save().is_err() && fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
        // A directory cannot be renamed over; nothing of ours is in it.
        let _ = fs::remove_dir_all(&path);
        let _ = save();
    }
}

/// The sweep's position file in the recall directory.
pub const CURSOR: &str = "sweep";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::catalog::{FileRecord, SessionInfo};
    use crate::recall::discover::Stat;

    fn record(i: u64, ctime_s: i64, racy: bool) -> FileRecord {
        FileRecord {
            file_id: i,
            path: format!("/s/p/{i:02}.jsonl"),
            stat: Stat {
                dev: 1,
                ino: i,
                size: 10,
                mtime_ns: ctime_s * 1_000_000_000,
                ctime_ns: ctime_s * 1_000_000_000,
            },
            indexed_len: 10,
            indexed_entries: 1,
            head_check: [0; 20],
            tail_check: [0; 20],
            prefix_crc: 0,
            racy,
            version: None,
            events: 1,
            info: SessionInfo {
                session_id: i.to_string(),
                harness: crate::session::Harness::Pi,
                parent_session_id: None,
                cwd: None,
                project_key: None,
                name: None,
                created_at: None,
                updated_at: None,
                updated_ms: 0,
                entries: 1,
                bytes: 10,
                first_user_preview: None,
            },
            unknown_types: Default::default(),
        }
    }

    fn checked_names(
        catalog: &Catalog,
        checks: Checks,
        cursor: usize,
        live: Option<&Path>,
    ) -> Vec<u64> {
        let mut ids: Vec<u64> = checked_files(catalog, checks, cursor, live)
            .into_iter()
            .map(|i| catalog.key(i).file_id())
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Of 20 files, a search looks at the 2 changed last, the racy one, the live one and the
    /// sweep's 3 from its cursor (wrapping past the end), and every file within 7 searches.
    #[test]
    fn a_search_looks_at_the_hot_the_racy_the_live_and_a_share_of_the_rest() {
        let catalog = Catalog::of(
            20,
            (0..20)
                .map(|i| record(i, 1000 + i as i64 % 7, i == 4))
                .collect(),
        );
        let checks = Checks { hot: 2, sweep: 3 };
        let live = Path::new("/s/p/10.jsonl");
        // Changed last: 6 and 13 (at 1006).
        assert_eq!(
            checked_names(&catalog, checks, 18, Some(live)),
            vec![0, 4, 6, 10, 13, 18, 19]
        );
        let mut seen = FxHashSet::default();
        let mut cursor = 0;
        for _ in 0..7 {
            seen.extend(checked_names(&catalog, checks, cursor, None));
            cursor = (cursor + checks.sweep) % catalog.len();
        }
        assert_eq!(seen.len(), 20);
        assert_eq!(Checks::parse("0, 5"), Some(Checks { hot: 0, sweep: 5 }));
        assert_eq!(Checks::parse("5"), None);
    }

    #[test]
    fn the_cursor_survives_between_searches_and_wraps() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_cursor(dir.path()), 0);
        advance_cursor(dir.path(), 8, Checks { hot: 0, sweep: 3 }, 10);
        assert_eq!(read_cursor(dir.path()), 1);
        fs::write(dir.path().join(CURSOR), "garbage").unwrap();
        assert_eq!(read_cursor(dir.path()), 0);
    }
}
