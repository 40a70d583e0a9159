//! `.git/index` kept at the branch tip, cheaply, so that `git status` in the notes home shows
//! nothing to commit and a person's `git commit -a` never records the deletion of notes an old
//! index does not list (docs/notes.md, "The index follows HEAD").
//!
//! A per-write commit changes one or two paths; rewriting a 10,000-entry index through libgit2
//! (collision-detecting SHA-1 over it twice, every path validated, every entry re-inserted)
//! cost 90 ms per write. So a commit edits the index itself: it reads the file (format 2 or 3),
//! checks its checksum, replaces or removes the entries of the paths it committed, drops the
//! optional caches (`TREE`, …) that could now be wrong, and writes it back under `index.lock`,
//! taken with `O_EXCL` as git takes it. Entries it writes carry no stat data, so git hashes
//! those files once and finds them clean.
//!
//! The edit is right only when the index was at the tip before the commit. Every commit edits
//! it under the lock of each note it changed, so edits of one path are in commit order and
//! edits of different paths commute. When the index cannot be edited (its lock is held past a
//! short wait, by a person's `git commit` with its editor open or by a process that died), the
//! commit leaves a mark (`.locks/index-stale`), and the next commit that can take the lock
//! removes the mark and rebuilds the whole index from the tip it reads afterwards, keeping the
//! stat data of entries whose blob did not change. A format this module does not edit (version
//! 4, a split index, a merge in progress) is rebuilt the same way.

use std::borrow::Cow;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};
use sha1::{Digest, Sha1};

use super::layout::LOCK_DIR;

/// How long a commit waits for `index.lock` (other writers hold it for a millisecond or two).
const LOCK_WAIT: Duration = Duration::from_millis(200);
/// The mark of an index that missed an edit: the next commit rebuilds it whole.
pub const STALE_MARK: &str = "index-stale";

const HEADER_LEN: usize = 12;
const ENTRY_FIXED_LEN: usize = 62;
const CHECKSUM_LEN: usize = 20;
const REGULAR_FILE: u32 = 0o100644;

/// One path a commit changed: its blob now, or `None` when it is gone.
#[derive(Debug, Clone, Copy)]
pub struct Edit<'a> {
    pub path: &'a str,
    pub blob: Option<Oid>,
}

/// Why the index was left as it is.
#[derive(Debug)]
enum NotEdited {
    /// Its lock stayed held: marked stale for the next commit.
    Locked,
    /// A format this module does not edit, or a damaged file: rebuild it whole.
    Unsupported,
    Io(#[allow(dead_code)] io::Error),
}

impl From<io::Error> for NotEdited {
    fn from(e: io::Error) -> Self {
        NotEdited::Io(e)
    }
}

/// Brings the index of `repo` (whose branch tip now holds `edits`) to the tip. `None` edits:
/// rebuild it whole from the tip. Never fails the commit: the worst outcome is a stale index,
/// marked for the next commit to rebuild.
pub fn follow_commit(repo: &Repository, edits: Option<&[Edit]>) {
    let Some(home) = repo.workdir() else {
        return;
    };
    let mark = home.join(LOCK_DIR).join(STALE_MARK);
    let outcome = match edits {
        Some(edits) if !mark.exists() => edit_paths(repo.path(), edits),
        _ => Err(NotEdited::Unsupported),
    };
    let outcome = match outcome {
        Err(NotEdited::Unsupported) => rebuild(repo, &mark),
        other => other,
    };
    if let Err(NotEdited::Locked | NotEdited::Io(_)) = outcome {
        let _ = fs::create_dir_all(home.join(LOCK_DIR));
        let _ = fs::write(&mark, b"");
    }
}

fn index_path(git_dir: &Path) -> PathBuf {
    git_dir.join("index")
}

/// Applies `edits` to the index as it is on disk.
fn edit_paths(git_dir: &Path, edits: &[Edit]) -> Result<(), NotEdited> {
    let lock = IndexLock::take(git_dir)?;
    let bytes = match fs::read(index_path(git_dir)) {
        Ok(bytes) => bytes,
        // No index at all: it must be built whole.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(NotEdited::Unsupported),
        Err(e) => return Err(e.into()),
    };
    let mut index = Parsed::parse(&bytes).ok_or(NotEdited::Unsupported)?;
    for edit in edits {
        index.apply(edit);
    }
    lock.commit(&index.render())
}

/// Rebuilds the whole index from the branch tip, keeping the stat data of unchanged entries.
/// The stale mark goes first, under the lock: a commit that marks the index after that is
/// either before the tip read here (so in it) or marks it again.
fn rebuild(repo: &Repository, mark: &Path) -> Result<(), NotEdited> {
    let lock = IndexLock::take(repo.path())?;
    let _ = fs::remove_file(mark);
    let old = fs::read(index_path(repo.path())).ok();
    let old = old.as_deref().and_then(Parsed::parse);
    let Ok(tree) = repo.head().and_then(|h| h.peel_to_tree()) else {
        return Ok(());
    };
    let mut entries: Vec<(Vec<u8>, Oid, u32)> = Vec::new();
    let walked = tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(ObjectType::Blob) {
            let path = format!("{dir}{}", String::from_utf8_lossy(entry.name_bytes()));
            entries.push((path.into_bytes(), entry.id(), entry.filemode() as u32));
        }
        TreeWalkResult::Ok
    });
    if walked.is_err() {
        return Err(NotEdited::Io(io::Error::other(
            "cannot read the branch tip's tree",
        )));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut index = Parsed {
        version: 2,
        entries: Vec::with_capacity(entries.len()),
    };
    for (path, oid, mode) in entries {
        let kept = old.as_ref().and_then(|old| old.entry(&path)).filter(|raw| {
            raw.len() >= ENTRY_FIXED_LEN && &raw[40..60] == oid.as_bytes() && mode_of(raw) == mode
        });
        let raw = match kept {
            Some(raw) => plain_entry(raw),
            None => new_entry(&path, oid, mode),
        };
        index.entries.push((Cow::Owned(path), Cow::Owned(raw)));
    }
    lock.commit(&index.render())
}

fn mode_of(raw: &[u8]) -> u32 {
    u32::from_be_bytes([raw[24], raw[25], raw[26], raw[27]])
}

/// One entry of an index: its path and its bytes without their padding, borrowed from the file
/// read unless new.
type Entry<'a> = (Cow<'a, [u8]>, Cow<'a, [u8]>);

/// An index file's entries in git's order, its optional extensions dropped.
struct Parsed<'a> {
    version: u32,
    entries: Vec<Entry<'a>>,
}

impl<'a> Parsed<'a> {
    /// `None` for anything but a whole, checksummed format 2 or 3 index of stage-0 entries
    /// whose extensions are all optional.
    fn parse(bytes: &'a [u8]) -> Option<Parsed<'a>> {
        if bytes.len() < HEADER_LEN + CHECKSUM_LEN || &bytes[..4] != b"DIRC" {
            return None;
        }
        let (body, checksum) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
        if Sha1::digest(body).as_slice() != checksum {
            return None;
        }
        let version = be32(body, 4)?;
        if version != 2 && version != 3 {
            return None;
        }
        let count = be32(body, 8)? as usize;
        let mut entries = Vec::with_capacity(count.min(body.len() / ENTRY_FIXED_LEN));
        let mut at = HEADER_LEN;
        for _ in 0..count {
            let (entry, next) = read_entry(body, at, version)?;
            entries.push(entry);
            at = next;
        }
        while at < body.len() {
            let signature = body.get(at..at + 4)?;
            let size = be32(body, at + 4)? as usize;
            if !signature[0].is_ascii_uppercase() {
                return None;
            }
            at = at.checked_add(8 + size)?;
        }
        (at == body.len()).then_some(Parsed { version, entries })
    }

    fn entry(&self, path: &[u8]) -> Option<&[u8]> {
        let at = self
            .entries
            .binary_search_by(|(p, _)| p.as_ref().cmp(path))
            .ok()?;
        Some(&self.entries[at].1)
    }

    fn apply(&mut self, edit: &Edit) {
        let path = edit.path.as_bytes();
        let found = self.entries.binary_search_by(|(p, _)| p.as_ref().cmp(path));
        let entry = |blob| Cow::Owned(new_entry(path, blob, REGULAR_FILE));
        match (found, edit.blob) {
            (Ok(at), Some(blob)) => self.entries[at].1 = entry(blob),
            (Err(at), Some(blob)) => self
                .entries
                .insert(at, (Cow::Owned(path.to_vec()), entry(blob))),
            (Ok(at), None) => {
                self.entries.remove(at);
            }
            (Err(_), None) => {}
        }
    }

    /// The index file: header, entries (each padded to 8 bytes), no extensions, checksum.
    fn render(&self) -> Vec<u8> {
        let entry_bytes: usize = self.entries.iter().map(|(_, raw)| raw.len() + 8).sum();
        let mut out = Vec::with_capacity(HEADER_LEN + entry_bytes + CHECKSUM_LEN);
        out.extend_from_slice(b"DIRC");
        out.extend_from_slice(&self.version.to_be_bytes());
        out.extend_from_slice(&(self.entries.len() as u32).to_be_bytes());
        for (_, raw) in &self.entries {
            out.extend_from_slice(raw);
            let padding = 8 - (raw.len() % 8);
            out.extend(std::iter::repeat_n(0u8, padding));
        }
        let checksum = Sha1::digest(&out);
        out.extend_from_slice(&checksum);
        out
    }
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// The entry at `at`: its path, its bytes without padding, and where the next one starts.
/// `None` for an entry of a merge stage or one that runs past the file.
fn read_entry(body: &[u8], at: usize, version: u32) -> Option<(Entry<'_>, usize)> {
    let flags = u16::from_be_bytes(body.get(at + 60..at + 62)?.try_into().ok()?);
    if (flags >> 12) & 0x3 != 0 {
        return None;
    }
    let extended = flags & 0x4000 != 0;
    if extended && version < 3 {
        return None;
    }
    let path_at = at + ENTRY_FIXED_LEN + if extended { 2 } else { 0 };
    let path_len = body.get(path_at..)?.iter().position(|b| *b == 0)?;
    let end = path_at + path_len;
    let entry_len = end - at;
    let next = at + entry_len + (8 - entry_len % 8);
    if next > body.len() {
        return None;
    }
    let entry = (
        Cow::Borrowed(&body[path_at..end]),
        Cow::Borrowed(&body[at..end]),
    );
    Some((entry, next))
}

/// An entry of format 2 with the stat data of `raw` and its path, its extended flags dropped.
fn plain_entry(raw: &[u8]) -> Vec<u8> {
    let flags = u16::from_be_bytes([raw[60], raw[61]]);
    if flags & 0x4000 == 0 {
        return raw.to_vec();
    }
    let mut out = raw[..60].to_vec();
    out.extend_from_slice(&(flags & !0x4000).to_be_bytes());
    out.extend_from_slice(&raw[64..]);
    out
}

/// A new entry without stat data: git hashes the file once and finds it clean.
fn new_entry(path: &[u8], blob: Oid, mode: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(ENTRY_FIXED_LEN + path.len());
    out.extend_from_slice(&[0u8; 24]);
    out.extend_from_slice(&mode.to_be_bytes());
    out.extend_from_slice(&[0u8; 12]);
    out.extend_from_slice(blob.as_bytes());
    let name_len = path.len().min(0xfff) as u16;
    out.extend_from_slice(&name_len.to_be_bytes());
    out.extend_from_slice(path);
    out
}

/// `index.lock`, created with `O_EXCL` as git creates it; removed when dropped unless committed.
struct IndexLock {
    path: PathBuf,
    file: Option<fs::File>,
}

impl IndexLock {
    fn take(git_dir: &Path) -> Result<IndexLock, NotEdited> {
        let path = git_dir.join("index.lock");
        let deadline = Instant::now() + LOCK_WAIT;
        loop {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(&path)
            {
                Ok(file) => {
                    return Ok(IndexLock {
                        path,
                        file: Some(file),
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if Instant::now() >= deadline {
                        return Err(NotEdited::Locked);
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Writes `bytes` as the new index: into the lock file, then renamed over the index.
    fn commit(mut self, bytes: &[u8]) -> Result<(), NotEdited> {
        let mut file = self.file.take().expect("an open lock");
        file.write_all(bytes)?;
        drop(file);
        let index = self.path.with_file_name("index");
        fs::rename(&self.path, index)?;
        Ok(())
    }
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn an_index_git_wrote_is_edited_and_git_reads_the_edit() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        git(home, &["init", "-q", "-b", "main"]);
        for name in ["a.md", "b/c.md", "b.md", "z.md"] {
            let path = home.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, name).unwrap();
        }
        git(home, &["add", "-A"]);
        git(home, &["commit", "-q", "-m", "x"]);
        let repo = Repository::open(home).unwrap();
        fs::write(home.join("b/new.md"), "new").unwrap();
        fs::write(home.join("a.md"), "changed").unwrap();
        fs::remove_file(home.join("z.md")).unwrap();
        let blob = |text: &str| repo.blob(text.as_bytes()).unwrap();
        let edits = [
            Edit {
                path: "b/new.md",
                blob: Some(blob("new")),
            },
            Edit {
                path: "a.md",
                blob: Some(blob("changed")),
            },
            Edit {
                path: "z.md",
                blob: None,
            },
        ];
        edit_paths(repo.path(), &edits).unwrap();
        assert_eq!(
            git(home, &["ls-files", "-s"]).lines().count(),
            4,
            "a.md, b.md, b/c.md, b/new.md"
        );
        // The index now says what the work tree holds: nothing to add, nothing staged away.
        git(home, &["update-index", "-q", "--refresh"]);
        assert_eq!(git(home, &["diff", "--name-only"]), "");
        assert_eq!(git(home, &["fsck", "--no-dangling", "--cache"]), "");
    }

    #[test]
    fn a_damaged_or_unknown_index_is_not_edited() {
        assert!(Parsed::parse(b"DIRC").is_none());
        let mut index = Parsed {
            version: 2,
            entries: Vec::new(),
        };
        index.apply(&Edit {
            path: "a.md",
            blob: Some(Oid::ZERO_SHA1),
        });
        let mut bytes = index.render();
        assert!(Parsed::parse(&bytes).is_some());
        bytes[HEADER_LEN] ^= 1;
        assert!(Parsed::parse(&bytes).is_none(), "a bad checksum");
        let mut v4 = index.render();
        v4[7] = 4;
        assert!(
            Parsed::parse(&v4).is_none(),
            "format 4 is rebuilt, not edited"
        );
    }
}
