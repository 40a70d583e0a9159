//! A snapshot of the whole notes home, for the dream's audit.
//!
//! The audit compares the home before the dreamer ran with the home after it, so the snapshot
//! must see everything the dreamer could have changed, whatever the repository's ignore rules
//! say: every file at any depth (ignored ones included), never following a link, plus the parts
//! of `.git` that change what git does later (`config`, `HEAD`, `info/`, `hooks/`) and the dream's
//! own lock files. Only the per-note lock files and the temp files of writes in progress are left
//! out. File contents go into the repository's object database, so any of them can be put back.
//!
//! The commits of the audit trail are built from snapshots too (never through the index and its
//! ignore rules): everything but `.git`, the dream lock files and the live-write journal.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use git2::{Oid, Repository};

use super::layout::{self, DREAM_LOCK, GIT_DIR, JOURNAL_DIR, LAST_RUN, LOCK_DIR, SYNC_LOCK};

/// Files larger than this are compared by size only and never committed (a note is at most
/// 1 MB; the home is not a place for large files).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// The parts of `.git` a dreamer could use to run code or redirect later git commands.
const GIT_WATCHED: [&str; 4] = ["config", "HEAD", "info", "hooks"];

/// What a snapshot holds for one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    File {
        oid: Oid,
        executable: bool,
    },
    /// A symbolic link; the blob holds its target.
    Link {
        oid: Oid,
    },
    /// A FIFO, socket or device: never opened.
    Special,
    /// Over [`MAX_FILE_BYTES`]: compared by size and never committed.
    Large {
        len: u64,
    },
}

impl Item {
    /// The git file mode of an item that can be committed.
    fn mode(self) -> Option<(Oid, i32)> {
        match self {
            Item::File {
                oid,
                executable: false,
            } => Some((oid, 0o100644)),
            Item::File {
                oid,
                executable: true,
            } => Some((oid, 0o100755)),
            Item::Link { oid } => Some((oid, 0o120000)),
            Item::Special | Item::Large { .. } => None,
        }
    }
}

/// Every audited path of the home (relative, `/`-separated) and what it held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub items: BTreeMap<String, Item>,
}

/// How the audit treats a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Notes, reports and anything else a person keeps in the home: committed.
    Content,
    /// `.git` files and the dream lock files: never committed, always put back when changed.
    Protected,
    /// The live-write journal: audited, never committed.
    Journal,
}

pub fn class(path: &str) -> Class {
    let first = path.split('/').next().unwrap_or_default();
    if first == GIT_DIR || path == DREAM_LOCK || path == LAST_RUN {
        Class::Protected
    } else if first == JOURNAL_DIR {
        Class::Journal
    } else {
        Class::Content
    }
}

impl Snapshot {
    /// Snapshots `home`, writing every file's content into `repo`'s object database.
    pub fn take(repo: &Repository, home: &Path) -> io::Result<Snapshot> {
        let mut snapshot = Snapshot::default();
        let mut walker = Walker {
            repo,
            items: &mut snapshot.items,
        };
        walker.dir(home, "", Scope::Root)?;
        Ok(snapshot)
    }

    /// Paths whose item differs between `self` (before) and `after`, sorted.
    pub fn changed(&self, after: &Snapshot) -> Vec<String> {
        let mut paths: Vec<String> = self
            .items
            .iter()
            .filter(|(path, item)| after.items.get(*path) != Some(item))
            .map(|(path, _)| path.clone())
            .collect();
        paths.extend(
            after
                .items
                .keys()
                .filter(|p| !self.items.contains_key(*p))
                .cloned(),
        );
        paths.sort();
        paths
    }

    /// The tree of everything committed: the [`Class::Content`] items.
    pub fn content_tree(&self, repo: &Repository) -> Result<Oid, git2::Error> {
        let mut root = Node::default();
        for (path, item) in &self.items {
            if class(path) != Class::Content {
                continue;
            }
            if let Some((oid, mode)) = item.mode() {
                root.insert(path, oid, mode);
            }
        }
        root.write(repo)
    }
}

/// A protected file as bytes (kept in memory: they are small), so it can be put back without
/// git — even when the dreamer rewrote the repository's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Raw {
    File { bytes: Vec<u8>, mode: u32 },
    Link { target: std::path::PathBuf },
    Other,
}

/// The protected files of a home ([`Class::Protected`]), by relative path.
pub type Protected = BTreeMap<String, Raw>;

/// Reads the protected files: the dream lock files and `.git/{config,HEAD,info,hooks}`.
pub fn protected(home: &Path) -> io::Result<Protected> {
    let mut out = Protected::new();
    for name in [DREAM_LOCK, LAST_RUN] {
        raw_entry(&home.join(name), name, &mut out)?;
    }
    let git = home.join(GIT_DIR);
    if fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir()) {
        for name in GIT_WATCHED {
            raw_entry(&git.join(name), &format!("{GIT_DIR}/{name}"), &mut out)?;
        }
    }
    Ok(out)
}

fn raw_entry(path: &Path, rel: &str, out: &mut Protected) -> io::Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(with_path(e, path)),
    };
    if meta.file_type().is_symlink() {
        let target = fs::read_link(path).map_err(|e| with_path(e, path))?;
        out.insert(rel.to_string(), Raw::Link { target });
    } else if meta.is_dir() {
        for entry in fs::read_dir(path).map_err(|e| with_path(e, path))? {
            let entry = entry.map_err(|e| with_path(e, path))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            raw_entry(&entry.path(), &format!("{rel}/{name}"), out)?;
        }
    } else {
        let raw = match read_regular(path)? {
            Some((Some(bytes), mode, _)) => Raw::File {
                bytes,
                mode: mode & 0o7777,
            },
            Some((None, _, _)) => Raw::Other,
            None => return Ok(()),
        };
        out.insert(rel.to_string(), raw);
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Root,
    /// Inside `.git`: only the watched entries.
    GitDir,
    Everything,
}

struct Walker<'a> {
    repo: &'a Repository,
    items: &'a mut BTreeMap<String, Item>,
}

impl Walker<'_> {
    fn dir(&mut self, dir: &Path, prefix: &str, scope: Scope) -> io::Result<()> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            // Removed while we walked: nothing left to see.
            Err(e) if e.kind() == io::ErrorKind::NotFound && !prefix.is_empty() => return Ok(()),
            Err(e) => return Err(with_path(e, dir)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| with_path(e, dir))?;
            let name = entry.file_name();
            let name_text = String::from_utf8_lossy(name.as_bytes()).into_owned();
            if layout::is_temp_file(&name_text) {
                continue;
            }
            let child_scope = match (scope, name_text.as_str()) {
                (Scope::Root, LOCK_DIR | SYNC_LOCK) => continue,
                (Scope::Root, GIT_DIR) => Scope::GitDir,
                (Scope::GitDir, n) if !GIT_WATCHED.contains(&n) => continue,
                (Scope::GitDir, _) => Scope::Everything,
                (_, _) => Scope::Everything,
            };
            let rel = if prefix.is_empty() {
                name_text
            } else {
                format!("{prefix}/{name_text}")
            };
            let kind = match entry.file_type() {
                Ok(kind) => kind,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(with_path(e, &entry.path())),
            };
            if kind.is_dir() {
                self.dir(&entry.path(), &rel, child_scope)?;
            } else if let Some(item) = self.item(&entry.path(), kind)? {
                self.items.insert(rel, item);
            }
        }
        Ok(())
    }

    fn item(&mut self, path: &Path, kind: fs::FileType) -> io::Result<Option<Item>> {
        if kind.is_symlink() {
            let target = match fs::read_link(path) {
                Ok(target) => target,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(with_path(e, path)),
            };
            let oid = self.blob(target.as_os_str().as_bytes())?;
            return Ok(Some(Item::Link { oid }));
        }
        if !kind.is_file() {
            return Ok(Some(Item::Special));
        }
        let Some((bytes, mode, len)) = read_regular(path)? else {
            return Ok(None);
        };
        let Some(bytes) = bytes else {
            return Ok(Some(Item::Large { len }));
        };
        Ok(Some(Item::File {
            oid: self.blob(&bytes)?,
            executable: mode & 0o111 != 0,
        }))
    }

    fn blob(&self, bytes: &[u8]) -> io::Result<Oid> {
        self.repo
            .blob(bytes)
            .map_err(|e| io::Error::other(format!("cannot store a blob: {e}")))
    }
}

/// Reads a regular file without following a link or blocking on a FIFO swapped in meanwhile:
/// `(content, or None when over the cap; mode; length)`, or `None` when it vanished.
#[allow(clippy::type_complexity)]
pub fn read_regular(path: &Path) -> io::Result<Option<(Option<Vec<u8>>, u32, u64)>> {
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(with_path(e, path)),
    };
    let meta = file.metadata().map_err(|e| with_path(e, path))?;
    let mode = meta.permissions().mode();
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return Ok(Some((None, mode, meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| with_path(e, path))?;
    Ok(Some((Some(bytes), mode, meta.len())))
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// A directory of the tree being built.
#[derive(Default)]
struct Node {
    blobs: BTreeMap<String, (Oid, i32)>,
    dirs: BTreeMap<String, Node>,
}

impl Node {
    fn insert(&mut self, path: &str, oid: Oid, mode: i32) {
        match path.split_once('/') {
            Some((dir, rest)) => self
                .dirs
                .entry(dir.to_string())
                .or_default()
                .insert(rest, oid, mode),
            None => {
                self.blobs.insert(path.to_string(), (oid, mode));
            }
        }
    }

    fn write(&self, repo: &Repository) -> Result<Oid, git2::Error> {
        let mut builder = repo.treebuilder(None)?;
        for (name, node) in &self.dirs {
            let oid = node.write(repo)?;
            builder.insert(name, oid, 0o040000)?;
        }
        for (name, (oid, mode)) in &self.blobs {
            builder.insert(name, *oid, *mode)?;
        }
        builder.write()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(class("human/a.md"), Class::Content);
        assert_eq!(class(".gitignore"), Class::Content);
        assert_eq!(class(".git/config"), Class::Protected);
        assert_eq!(class(".dream.lock"), Class::Protected);
        assert_eq!(class(".dream.lock.last-run"), Class::Protected);
        assert_eq!(class(".dream.journal/x/1.json"), Class::Journal);
    }

    #[test]
    fn sees_ignored_files_links_and_watched_git_files_but_not_locks_or_temps() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let repo = Repository::init(home).unwrap();
        fs::write(home.join(".gitignore"), "pi/\n").unwrap();
        fs::create_dir_all(home.join("pi/session/s1")).unwrap();
        fs::write(home.join("pi/session/s1/a.md"), "ignored but audited").unwrap();
        fs::create_dir_all(home.join(".locks")).unwrap();
        fs::write(home.join(".locks/x.lock"), "").unwrap();
        fs::write(home.join("human.pi-context.1.2.3.tmp"), "").unwrap();
        fs::write(home.join(".pi-context.1.2.3.tmp"), "").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", home.join("link.md")).unwrap();
        let snapshot = Snapshot::take(&repo, home).unwrap();
        let paths: Vec<&str> = snapshot.items.keys().map(String::as_str).collect();
        assert!(paths.contains(&"pi/session/s1/a.md"), "{paths:?}");
        assert!(paths.contains(&".git/config"), "{paths:?}");
        assert!(paths.contains(&".git/HEAD"), "{paths:?}");
        assert!(
            paths.iter().any(|p| p.starts_with(".git/hooks/")),
            "{paths:?}"
        );
        assert!(
            !paths.iter().any(|p| p.starts_with(".git/objects")),
            "{paths:?}"
        );
        assert!(!paths.iter().any(|p| p.starts_with(".locks")), "{paths:?}");
        assert!(!paths.contains(&".pi-context.1.2.3.tmp"));
        assert!(matches!(snapshot.items["link.md"], Item::Link { .. }));

        fs::write(home.join("pi/session/s1/a.md"), "changed").unwrap();
        fs::write(home.join("pi/new.md"), "new").unwrap();
        let after = Snapshot::take(&repo, home).unwrap();
        assert_eq!(
            snapshot.changed(&after),
            ["pi/new.md", "pi/session/s1/a.md"]
        );
        let tree = repo.find_tree(after.content_tree(&repo).unwrap()).unwrap();
        assert!(tree.get_path(Path::new("pi/session/s1/a.md")).is_ok());
        assert!(tree.get_path(Path::new(".git")).is_err());
    }
}
