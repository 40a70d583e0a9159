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
//!
//! A writer killed while it holds `index.lock` would block every later edit for good (git
//! writes no owner into the lock, and a person's `git commit` holds one for as long as its
//! editor is open, so age proves nothing). So this module's writers make their locks provably
//! theirs: each holds an flock on `.locks/index-lock-owner` from before it creates `index.lock`
//! until after it removed it, writes a token of its own there first, and creates `index.lock`
//! already holding that token (a hard link of a file written beforehand; the new index goes to
//! a file of its own and is renamed over `index`, so the lock keeps its token to the end). An
//! `index.lock` that holds the token of the record while nobody holds the record's flock was
//! left by a writer of ours that died: the next writer removes it and rebuilds the index whole
//! (the dead one's edit may be missing). Any other `index.lock` is never taken.

use std::borrow::Cow;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt as _, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};
use sha1::{Digest, Sha1};

use super::layout::LOCK_DIR;
use crate::beneath::Dir;

/// How long a commit waits for `index.lock` (other writers hold it for a millisecond or two).
const LOCK_WAIT: Duration = Duration::from_millis(200);
/// The mark of an index that missed an edit: the next commit rebuilds it whole.
pub const STALE_MARK: &str = "index-stale";
/// In `.locks/`: flocked by the writer of ours that holds `index.lock`, and holding the token
/// that writer put into `index.lock`.
pub const OWNER_RECORD: &str = "index-lock-owner";
/// In `.git`, used only under the owner record's flock: the token, before it is linked as
/// `index.lock`; the new index, before it is renamed over `index`; a lock moved aside to be
/// checked before it is removed.
const TOKEN_TEMP: &str = "pi-context-index-lock.tmp";
const INDEX_TEMP: &str = "pi-context-index.tmp";
const ASIDE_TEMP: &str = "pi-context-index-lock.aside";
/// What a token starts with; a uuid follows.
const TOKEN_PREFIX: &str = "pi-context index lock ";
/// A token is one short line; a lock file longer than this is not one of ours.
const TOKEN_MAX_BYTES: u64 = 128;

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
    // `.locks/`, never through a link; unusable, the index is rebuilt whole every time.
    let locks = Dir::open_root(home)
        .ok()
        .flatten()
        .and_then(|root| root.create_dir(LOCK_DIR).ok());
    let marked = locks
        .as_ref()
        .is_none_or(|locks| !matches!(locks.stat(STALE_MARK), Ok(None)));
    let outcome = IndexLock::take(repo.path(), locks.as_ref()).and_then(|lock| {
        // An index whose last writer died holding its lock may have missed that edit.
        let edited = match edits {
            Some(edits) if !lock.took_over && !marked => edited(repo.path(), edits),
            _ => Err(NotEdited::Unsupported),
        };
        let index = match edited {
            Err(NotEdited::Unsupported) => rebuilt(repo, locks.as_ref()),
            other => other,
        }?;
        match index {
            Some(index) => lock.commit(&index),
            None => Ok(()),
        }
    });
    if let (Err(NotEdited::Locked | NotEdited::Io(_)), Some(locks)) = (outcome, &locks) {
        let _ = locks.open_or_create_file(STALE_MARK);
    }
}

fn index_path(git_dir: &Path) -> PathBuf {
    git_dir.join("index")
}

/// The index as it is on disk with `edits` applied.
fn edited(git_dir: &Path, edits: &[Edit]) -> Result<Option<Vec<u8>>, NotEdited> {
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
    Ok(Some(index.render()))
}

/// The whole index rebuilt from the branch tip, keeping the stat data of unchanged entries
/// (`None` on an unborn branch). Called under the index's lock: the stale mark goes first, so
/// that a commit that marks the index after that is either before the tip read here (so in
/// it) or marks it again.
fn rebuilt(repo: &Repository, locks: Option<&Dir>) -> Result<Option<Vec<u8>>, NotEdited> {
    if let Some(locks) = locks {
        let _ = locks.remove_file(STALE_MARK);
    }
    let old = fs::read(index_path(repo.path())).ok();
    let old = old.as_deref().and_then(Parsed::parse);
    let Ok(tree) = repo.head().and_then(|h| h.peel_to_tree()) else {
        return Ok(None);
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
    Ok(Some(index.render()))
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

/// `index.lock`, taken as git takes it (created only when absent) and provably ours while it
/// is there (module doc): it holds the token of the owner record, whose flock this value
/// holds. Removed when dropped.
#[must_use = "the lock is released when the guard is dropped"]
struct IndexLock {
    git_dir: PathBuf,
    token: Vec<u8>,
    /// Flocked: released when dropped, after the lock is removed (fields drop in order).
    /// `None` when `.locks/` is unusable: the lock is then as unprovable as git's.
    _owner: Option<fs::File>,
    /// The lock this one replaced was left by a writer of ours that died.
    took_over: bool,
}

impl IndexLock {
    fn take(git_dir: &Path, locks: Option<&Dir>) -> Result<IndexLock, NotEdited> {
        let deadline = Instant::now() + LOCK_WAIT;
        let owner = match locks {
            Some(locks) => Some(take_owner_record(locks, deadline)?),
            None => None,
        };
        let lock = git_dir.join("index.lock");
        let token = format!("{TOKEN_PREFIX}{}\n", uuid::Uuid::new_v4().simple());
        let mut took_over = false;
        if let Some(owner) = &owner {
            // Before the record gets this writer's token: a kill in between must not hide the
            // proof that the lock there was a dead writer's.
            took_over = take_over_dead_writers_lock(git_dir, owner)?;
            owner.set_len(0)?;
            owner.write_all_at(token.as_bytes(), 0)?;
        }
        let temp = git_dir.join(TOKEN_TEMP);
        write_new(&temp, token.as_bytes())?;
        let created = loop {
            match create_holding(&temp, &lock, token.as_bytes()) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    // Another lock: git's (a person's command), never taken.
                    if Instant::now() >= deadline {
                        break Err(NotEdited::Locked);
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                other => break other.map_err(NotEdited::from),
            }
        };
        let _ = fs::remove_file(&temp);
        created?;
        Ok(IndexLock {
            git_dir: git_dir.to_path_buf(),
            token: token.into_bytes(),
            _owner: owner,
            took_over,
        })
    }

    /// Writes `bytes` as the new index: into a file of its own, renamed over the index; then
    /// the lock goes (when dropped).
    fn commit(self, bytes: &[u8]) -> Result<(), NotEdited> {
        let temp = self.git_dir.join(INDEX_TEMP);
        let written =
            write_new(&temp, bytes).and_then(|()| fs::rename(&temp, index_path(&self.git_dir)));
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        Ok(written?)
    }
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        let _ = remove_lock_holding(&self.git_dir, &self.token);
    }
}

/// Creates `lock` holding `token` (written to `temp` already), failing with `AlreadyExists` when
/// it is there: a hard link, so that the lock never exists without its token. Where the file
/// system has no hard links, it is created and then written (a kill in between leaves a lock
/// that is not provably ours).
fn create_holding(temp: &Path, lock: &Path, token: &[u8]) -> io::Result<()> {
    match fs::hard_link(temp, lock) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(lock)?;
            file.write_all(token)
        }
        linked => linked,
    }
}

/// Writes `bytes` to a new file at `path`, replacing what is there without following it.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)?
        .write_all(bytes)
}

/// The owner record, flocked: a writer of ours holds it while it holds `index.lock`, so it is
/// free only when none does (a process that dies releases its flocks). Waits until `deadline`.
fn take_owner_record(locks: &Dir, deadline: Instant) -> Result<fs::File, NotEdited> {
    let record = locks
        .open_or_create_file(OWNER_RECORD)
        .map_err(|e| NotEdited::Io(io::Error::other(e)))?;
    loop {
        match record.try_lock() {
            Ok(()) => return Ok(record),
            Err(fs::TryLockError::WouldBlock) => {
                if Instant::now() >= deadline {
                    return Err(NotEdited::Locked);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(fs::TryLockError::Error(e)) => return Err(e.into()),
        }
    }
}

/// Removes `index.lock` when a writer of ours that died left it: called with the owner
/// record's flock held (no writer of ours is alive with a lock), so a lock that holds the
/// record's token is that dead writer's. `true` when it was removed.
fn take_over_dead_writers_lock(git_dir: &Path, owner: &fs::File) -> Result<bool, NotEdited> {
    let mut token = Vec::new();
    owner.take(TOKEN_MAX_BYTES).read_to_end(&mut token)?;
    if token.is_empty() {
        return Ok(false);
    }
    let removed = remove_lock_holding(git_dir, &token)?;
    if removed {
        // What the dead writer left half done; nobody else uses these names.
        let _ = fs::remove_file(git_dir.join(TOKEN_TEMP));
        let _ = fs::remove_file(git_dir.join(INDEX_TEMP));
    }
    Ok(removed)
}

/// Removes `index.lock` if it holds `token`, never another lock that took its place: the lock
/// is moved aside first and removed only when what was moved holds the token (else it is put
/// back). `true` when it was removed.
fn remove_lock_holding(git_dir: &Path, token: &[u8]) -> io::Result<bool> {
    let lock = git_dir.join("index.lock");
    if !holds(&lock, token)? {
        return Ok(false);
    }
    let aside = git_dir.join(ASIDE_TEMP);
    match fs::rename(&lock, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    }
    if holds(&aside, token)? {
        fs::remove_file(&aside)?;
        return Ok(true);
    }
    match rustix::fs::renameat_with(
        rustix::fs::CWD,
        &aside,
        rustix::fs::CWD,
        &lock,
        rustix::fs::RenameFlags::NOREPLACE,
    ) {
        Ok(()) => Ok(false),
        // Yet another lock took the name meanwhile: the one moved by mistake cannot go back,
        // and its process's update then fails, as with a stale ref lock (`repo.rs`).
        Err(_) => fs::remove_file(&aside).map(|()| false),
    }
}

/// Whether the file at `path` is a regular file that holds exactly `token`.
fn holds(path: &Path, token: &[u8]) -> io::Result<bool> {
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(false),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Ok(false);
    }
    let mut content = Vec::new();
    file.take(TOKEN_MAX_BYTES).read_to_end(&mut content)?;
    Ok(content == token)
}

/// Whether the `index.lock` in `git_dir` was made by a writer of ours (it holds a token), judged
/// by a read alone: `dream doctor` asks. Such a lock lives for the milliseconds of an edit; one
/// that stays is taken over by the next commit once its writer is gone.
pub fn lock_is_a_notes_writers(git_dir: &Path) -> bool {
    let mut content = Vec::new();
    fs::File::open(git_dir.join("index.lock"))
        .and_then(|file| file.take(TOKEN_MAX_BYTES).read_to_end(&mut content))
        .is_ok_and(|_| content.starts_with(TOKEN_PREFIX.as_bytes()))
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
        let lock = IndexLock::take(repo.path(), Some(&locks_of(home))).unwrap();
        lock.commit(&edited(repo.path(), &edits).unwrap().unwrap())
            .unwrap();
        assert!(!repo.path().join("index.lock").exists());
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

    /// A notes home whose index is at its tip: `a.md` committed by git.
    fn home_at_tip() -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        fs::write(dir.path().join("a.md"), "a").unwrap();
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "-m", "a"]);
        let repo = Repository::open(dir.path()).unwrap();
        (dir, repo)
    }

    /// Commits `name` with `content` as a notes write does, the index left alone.
    fn commit_without_index(repo: &Repository, name: &str, content: &str) -> Oid {
        fs::write(repo.workdir().unwrap().join(name), content).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        let mut builder = repo.treebuilder(Some(&head.tree().unwrap())).unwrap();
        let blob = repo.blob(content.as_bytes()).unwrap();
        builder.insert(name, blob, 0o100644).unwrap();
        let tree = repo.find_tree(builder.write().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@t").unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, name, &tree, &[&head])
            .unwrap();
        blob
    }

    fn locks_of(home: &Path) -> Dir {
        Dir::open_root(home)
            .unwrap()
            .unwrap()
            .create_dir(LOCK_DIR)
            .unwrap()
    }

    /// What a writer of ours killed while it holds the lock leaves: `index.lock` with its
    /// token, the owner record with the same token, and no flock on the record.
    fn die_holding(lock: IndexLock) {
        lock._owner.as_ref().unwrap().unlock().unwrap();
        std::mem::forget(lock);
    }

    #[test]
    fn a_lock_left_by_a_dead_writer_of_ours_is_taken_over_and_the_index_rebuilt() {
        let (dir, repo) = home_at_tip();
        let home = dir.path();
        let lock_path = repo.path().join("index.lock");
        // A writer commits b.md and dies holding the lock, before its index edit.
        let blob = commit_without_index(&repo, "b.md", "b");
        die_holding(IndexLock::take(repo.path(), Some(&locks_of(home))).unwrap());
        assert!(lock_path.exists());
        assert!(lock_is_a_notes_writers(repo.path()));
        // The next writer commits c.md and edits the index at c.md only, but finds the lock
        // a dead writer's: it takes it over and rebuilds the index whole.
        let edit = Edit {
            path: "c.md",
            blob: Some(commit_without_index(&repo, "c.md", "c")),
        };
        follow_commit(&repo, Some(&[edit]));
        assert!(!lock_path.exists(), "the dead writer's lock is gone");
        assert!(!home.join(LOCK_DIR).join(STALE_MARK).exists());
        assert_eq!(
            git(home, &["status", "--porcelain", "--untracked-files=no"]),
            "",
            "b.md is in the index"
        );
        assert!(git(home, &["ls-files", "-s", "b.md"]).contains(&blob.to_string()));
        let leftovers: Vec<_> = fs::read_dir(repo.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.starts_with("pi-context"))
            .collect();
        assert_eq!(leftovers, Vec::<String>::new());
    }

    #[test]
    fn a_lock_of_git_or_of_a_live_writer_of_ours_is_never_taken() {
        let (dir, repo) = home_at_tip();
        let home = dir.path();
        let lock_path = repo.path().join("index.lock");
        let mark = home.join(LOCK_DIR).join(STALE_MARK);
        let edit = |name: &str| Edit {
            path: "x.md",
            blob: Some(commit_without_index(&repo, "x.md", name)),
        };
        // git's lock (a person's `git commit` with its editor open): no token of ours.
        fs::write(&lock_path, "").unwrap();
        follow_commit(&repo, Some(&[edit("one")]));
        assert_eq!(fs::read(&lock_path).unwrap(), b"", "left as it is");
        assert!(mark.exists(), "the index missed the edit");
        assert!(!lock_is_a_notes_writers(repo.path()));
        fs::remove_file(&lock_path).unwrap();
        // A live writer of ours: its lock holds the record's token, but it holds the flock.
        let live = IndexLock::take(repo.path(), Some(&locks_of(home))).unwrap();
        let token = fs::read(&lock_path).unwrap();
        follow_commit(&repo, Some(&[edit("two")]));
        assert_eq!(fs::read(&lock_path).unwrap(), token, "left to its writer");
        drop(live);
        assert!(!lock_path.exists());
        // The next commit rebuilds what the index missed.
        follow_commit(&repo, Some(&[edit("three")]));
        assert!(!mark.exists());
        assert_eq!(
            git(home, &["status", "--porcelain", "--untracked-files=no"]),
            ""
        );
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
