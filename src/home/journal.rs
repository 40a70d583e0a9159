//! The live-write journal: what agents wrote through the store while a dream was running.
//!
//! A dream's post-run audit must tell its dreamer's writes from those of live agents, which keep
//! writing notes during a dream. Every change the store makes to a note (write, edit, the counter
//! bump of a read) checks, under the note's lock, whether a dream holds `.dream.lock`; if one does,
//! the change is recorded with the note's content before and after it in
//! `.dream.journal/<the lock's token>/`. The audit then knows every version a live agent wrote,
//! so it never puts back a note over a live write, and it can keep both versions when the dreamer
//! and a live agent wrote the same note.
//!
//! Recording is best effort: a journal that cannot be written must never fail a live write.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::layout::{DREAM_LOCK, JOURNAL_DIR};
use crate::beneath::{Dir, ReadLimit};

/// One change a live agent made to a note during a dream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The note, relative to the notes home, `/`-separated.
    pub path: String,
    /// The file before the change (`None`: it did not exist).
    pub before: Option<String>,
    /// The file after the change (`None`: removed).
    pub after: Option<String>,
}

/// The token of the dream that holds the lock right now, if one does: the second word of the
/// lock file (`<pid> <uuid>`).
pub fn running_dream(root: &Dir) -> Option<String> {
    let lock = root
        .read_file(DREAM_LOCK, ReadLimit::Head { bytes: 256 })
        .ok()??;
    let content = String::from_utf8_lossy(&lock.bytes);
    let token = content.split_whitespace().nth(1)?;
    is_token(token).then(|| token.to_string())
}

/// Lock tokens are uuids; anything else is never used as a directory name.
fn is_token(token: &str) -> bool {
    !token.is_empty()
        && token.len() <= 64
        && token.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// Records a change to the note at `relative` (below the notes home `root`) when a dream is
/// running and the change is not its dreamer's own (`own_token`: the dream token of the process
/// making the change, when it is a dreamer; set from `PI_CONTEXT_DREAM_TOKEN`). Called under
/// the note's lock, after the change is on disk. Never fails.
pub fn record(
    root: &Dir,
    relative: &str,
    before: Option<&str>,
    after: Option<&str>,
    own_token: Option<&str>,
) {
    if before == after {
        return;
    }
    let Some(token) = running_dream(root) else {
        return;
    };
    if own_token == Some(token.as_str()) {
        return;
    }
    let entry = JournalEntry {
        path: relative.to_string(),
        before: before.map(str::to_string),
        after: after.map(str::to_string),
    };
    let Ok(bytes) = serde_json::to_vec(&entry) else {
        return;
    };
    if let Ok(dir) = root.create_dirs(&[JOURNAL_DIR, token.as_str()]) {
        let _ = dir.replace_file(format!("{}.json", entry_name()), &bytes, Some(0o600));
    }
}

/// Entry names sort in the order they were written (wall clock, then pid and a counter); the
/// note lock serializes the changes of one note, so its entries keep their order.
fn entry_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{nanos:024}-{:010}-{n:06}", std::process::id())
}

/// Every entry of the dream with `token`, oldest first. Unreadable entries are skipped.
pub fn read(home: &Path, token: &str) -> Vec<JournalEntry> {
    let Some(mut dir) = Dir::open_root(home)
        .ok()
        .flatten()
        .and_then(|root| root.open_dirs(&[JOURNAL_DIR, token]).ok().flatten())
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .entries()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|e| e.name.into_string().ok())
        .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|name| {
            let file = dir
                .read_file(name, ReadLimit::Whole { max_bytes: 8 << 20 })
                .ok()??;
            serde_json::from_slice(&file.bytes).ok()
        })
        .collect()
}

/// Removes the journal of every dream (the running one's included: call it when that dream is
/// done with it).
pub fn clear(home: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(home.join(JOURNAL_DIR)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn records_only_while_a_dream_holds_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let root = Dir::open_root(home).unwrap().unwrap();
        record(&root, "human/a.md", None, Some("x"), None);
        assert!(!home.join(JOURNAL_DIR).exists());
        let token = "0b2f6a8e-1c1d-4c8e-9a51-5f0c2d4e7a10";
        fs::write(home.join(DREAM_LOCK), format!("123 {token}")).unwrap();
        record(&root, "human/a.md", None, Some("one"), None);
        record(&root, "human/a.md", Some("one"), Some("two"), None);
        record(&root, "human/b.md", Some("same"), Some("same"), None);
        record(
            &root,
            "human/c.md",
            None,
            Some("the dreamer's"),
            Some(token),
        );
        let entries = read(home, token);
        assert_eq!(
            entries,
            vec![
                JournalEntry {
                    path: "human/a.md".into(),
                    before: None,
                    after: Some("one".into())
                },
                JournalEntry {
                    path: "human/a.md".into(),
                    before: Some("one".into()),
                    after: Some("two".into())
                },
            ]
        );
        clear(home).unwrap();
        assert!(read(home, token).is_empty());
    }

    #[test]
    fn a_lock_without_a_token_means_no_journal() {
        let dir = tempfile::tempdir().unwrap();
        let root = Dir::open_root(dir.path()).unwrap().unwrap();
        fs::write(dir.path().join(DREAM_LOCK), "123 ../../etc").unwrap();
        assert_eq!(running_dream(&root), None);
        fs::write(dir.path().join(DREAM_LOCK), "").unwrap();
        assert_eq!(running_dream(&root), None);
    }
}
