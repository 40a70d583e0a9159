//! A machine-local record of the notes home's directory listings and of what `list` read of each
//! note's frontmatter, so that `list` opens only what changed since an earlier list.
//!
//! Listing 10,000 notes reads them: an open, `fstat`, read and close per note and an open, two
//! listings and a close per directory, most of the list's time. With this record, a directory
//! whose [`Stamp`] is the recorded one is not opened (its entries are the recorded ones: a
//! directory gains or loses an entry only with a new modification time), and a note whose stamp
//! is the recorded one is not read (its frontmatter is the recorded one: a file rewritten
//! in place gets a new change time, which no call can set back, and a file replaced or moved a
//! new inode or a new change time). One `fstatat` each instead.
//!
//! As git's index does, something is recorded only when its last change is more than
//! [`SETTLED`] before the list started: a change within one tick of a coarse file-system clock
//! could otherwise leave the stamp as it was. Stamps are taken before the bytes they vouch for
//! are read, so a change while they are read leaves a stamp that no longer matches.
//!
//! Nothing read from the record is trusted further than its stamps: the walk still reaches
//! every directory from its parent's listing, a record naming anything but single names is not
//! used for that directory, and a note is read (through directory handles, never a link) whenever its stamp
//! differs. The record is a cache: one that is missing, of another format, for another home,
//! damaged or unwritable only costs the next list its speed.
//!
//! One file per notes home, `<cache>/notes/<sha1 of the home>.list`, written as a new file and
//! renamed into place (concurrent lists each write a whole record; the last rename wins), and
//! only when a list learned something.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::walk::{DirListing, Listed, Listings};
use crate::beneath::Stamp;
use crate::cachefile::{self, Durability, Kind, Payload};

/// A record file: its magic, and its format, bumped whenever the layout or the meaning of a
/// record changes: what it holds, the keys `frontmatter::known_values` reads, or the rules a
/// note's name is checked by when its directory is listed (names from a record are not checked
/// again).
const RECORD: Kind = Kind::new(b"PICTXNLS", 1);
/// A record larger than this is not read (a few hundred bytes a note: about a million notes).
const MAX_RECORD_BYTES: u64 = 512 << 20;
/// A frontmatter block longer than this is read each time rather than recorded.
const MAX_HEAD_BYTES: usize = 64 << 10;
/// Something changed less than this long before a list started is not recorded by it.
pub const SETTLED: Duration = Duration::from_secs(2);

/// The record file's contents.
#[derive(Debug, Serialize, Deserialize)]
struct Record<'a> {
    /// The notes home it describes (its canonical path).
    #[serde(borrow)]
    home: Cow<'a, str>,
    /// Sorted by path.
    #[serde(borrow)]
    dirs: Vec<DirRecord<'a>>,
}

/// One directory: its stamp when it was listed (`None`: it had changed too recently to be
/// trusted), its subdirectories and the names of its possible notes, sorted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct DirRecord<'a> {
    /// Below the notes home (`human/design`).
    #[serde(borrow)]
    path: Cow<'a, str>,
    stamp: Option<Stamp>,
    #[serde(borrow)]
    subdirs: Vec<Cow<'a, str>>,
    #[serde(borrow)]
    notes: Vec<NoteRecord<'a>>,
}

/// One note of a directory, with what a list needs of it when that was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct NoteRecord<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    version: Option<Version<'a>>,
}

/// One version of a note, as a list saw it: its stamp, the length of its frontmatter block and
/// the values of the known keys in it (`frontmatter::known_values`, indexed by key), so that a
/// list served from the record does not parse the block again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version<'a> {
    pub stamp: Stamp,
    pub head_len: u64,
    #[serde(borrow)]
    pub values: Vec<Option<Cow<'a, str>>>,
}

/// A note a list read, for the record to keep when it has settled ([`ListCache::update`]).
#[derive(Debug, Clone)]
pub struct ReadNote {
    /// The note's directory below the notes home.
    pub dir: String,
    pub name: String,
    pub version: Version<'static>,
}

/// The record file of a notes home, where it is and what it held when the list started.
pub struct ListCache {
    file: PathBuf,
    key: String,
    payload: Option<Payload>,
    /// Changes before this are settled.
    settled_before: SystemTime,
}

/// The scratch state of one thread of a list: its read buffer, and the directory whose notes
/// it is looking up.
#[derive(Default)]
pub struct Lookup {
    pub buffer: Vec<u8>,
    last: Option<(String, Option<usize>)>,
}

/// A loaded record, borrowing from its [`ListCache`].
pub struct Known<'a> {
    dirs: Vec<DirRecord<'a>>,
}

impl ListCache {
    /// The record of the notes home `home` kept in `dir`; what changed within `settle` before
    /// now is not recorded ([`SETTLED`] unless a test says otherwise).
    pub fn open(dir: &Path, home: &Path, settle: Duration) -> ListCache {
        let (file, key) = cachefile::for_path(dir, home, "list");
        let payload = cachefile::map(&file, RECORD, MAX_RECORD_BYTES);
        let settled_before = SystemTime::now()
            .checked_sub(settle)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        ListCache {
            file,
            key,
            payload,
            settled_before,
        }
    }

    /// What the record holds (nothing when it is missing, damaged or of another home).
    pub fn known(&self) -> Known<'_> {
        let decoded = self.payload.as_ref().and_then(|payload| {
            let record: Record = postcard::from_bytes(payload.bytes()).ok()?;
            let usable =
                !payload.damaged() && record.home == self.key && is_sorted_by_path(&record.dirs);
            usable.then_some(record.dirs)
        });
        Known {
            dirs: decoded.unwrap_or_default(),
        }
    }

    /// Whether a note read with `stamp` and a frontmatter block of `head_len` bytes may be
    /// recorded.
    fn may_record(&self, stamp: &Stamp, head_len: usize) -> bool {
        stamp.changed_before(self.settled_before) && head_len <= MAX_HEAD_BYTES
    }

    /// Writes the record again with what a walk of the homes at `walked` (below the notes home;
    /// homes that could not be read are left out) learned, when that changes it. Best effort:
    /// a record that cannot be written only costs the next list its speed.
    pub fn update(
        &self,
        known: &Known<'_>,
        walked: &[String],
        listed: &[Listed],
        read: &[ReadNote],
    ) {
        if !self.learned(known, walked, listed, read) {
            return;
        }
        let dirs = self.updated(known, walked, listed, read);
        if dirs == known.dirs {
            return;
        }
        let record = Record {
            home: Cow::Borrowed(&self.key),
            dirs,
        };
        if let Ok(payload) = postcard::to_allocvec(&record) {
            let framed = RECORD.framed(&payload);
            let _ = cachefile::save(&self.file, &framed, Durability::Rebuildable);
        }
    }

    /// Whether a walk may have learned something: it listed a directory again, read a note it
    /// may record, or did not reach a directory recorded in the homes it walked (the common
    /// case, a walk that trusted every listing and read nothing, costs no rewrite and no
    /// comparison).
    fn learned(
        &self,
        known: &Known<'_>,
        walked: &[String],
        listed: &[Listed],
        read: &[ReadNote],
    ) -> bool {
        let in_walked = |path: &str| walked.iter().any(|home| is_below(path, home));
        let recorded = known.dirs.iter().filter(|dir| in_walked(&dir.path)).count();
        let reached: Vec<&Listed> = listed.iter().filter(|dir| in_walked(&dir.path)).collect();
        reached.iter().any(|dir| dir.listing.is_some())
            || read
                .iter()
                .any(|note| self.may_record(&note.version.stamp, head_len(&note.version)))
            || recorded != reached.len()
    }

    fn updated<'k>(
        &self,
        known: &'k Known<'k>,
        walked: &[String],
        listed: &'k [Listed],
        read: &'k [ReadNote],
    ) -> Vec<DirRecord<'k>> {
        let mut read: Vec<&ReadNote> = read
            .iter()
            .filter(|note| self.may_record(&note.version.stamp, head_len(&note.version)))
            .collect();
        read.sort_unstable_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
        let in_walked = |path: &str| walked.iter().any(|home| is_below(path, home));
        let mut dirs: Vec<DirRecord<'k>> = known
            .dirs
            .iter()
            .filter(|dir| !in_walked(&dir.path))
            .cloned()
            .collect();
        for reached in listed.iter().filter(|dir| in_walked(&dir.path)) {
            let before = known.dir(&reached.path);
            let mut record = match (&reached.listing, before) {
                (None, Some(before)) => before.clone(),
                (None, None) => continue,
                (Some(listing), before) => DirRecord {
                    path: Cow::Borrowed(&reached.path),
                    stamp: reached
                        .stamp
                        .filter(|stamp| stamp.changed_before(self.settled_before)),
                    subdirs: sorted(&listing.subdirs),
                    notes: sorted(&listing.notes)
                        .into_iter()
                        .map(|name| NoteRecord {
                            version: before.and_then(|b| b.note(&name)?.version.clone()),
                            name,
                        })
                        .collect(),
                },
            };
            let from = read.partition_point(|note| note.dir.as_str() < reached.path.as_str());
            for note in read[from..].iter().take_while(|n| n.dir == reached.path) {
                if let Ok(i) = record.note_index(&note.name) {
                    record.notes[i].version = Some(note.version.clone());
                }
            }
            dirs.push(record);
        }
        dirs.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        dirs.dedup_by(|a, b| a.path == b.path);
        dirs
    }
}

impl Known<'_> {
    fn dir(&self, path: &str) -> Option<&DirRecord<'_>> {
        self.dir_index(path).map(|i| &self.dirs[i])
    }

    fn dir_index(&self, path: &str) -> Option<usize> {
        self.dirs
            .binary_search_by(|dir| dir.path.as_ref().cmp(path))
            .ok()
    }

    /// The recorded version of the note `name` of the directory at `dir`. The notes of one
    /// directory come together: `lookup` remembers the last directory found.
    pub fn note(&self, lookup: &mut Lookup, dir: &str, name: &str) -> Option<&Version<'_>> {
        let index = match &lookup.last {
            Some((path, index)) if path == dir => *index,
            _ => {
                let index = self.dir_index(dir);
                lookup.last = Some((dir.to_string(), index));
                index
            }
        }?;
        self.dirs[index].note(name)?.version.as_ref()
    }
}

impl Listings for Known<'_> {
    fn listing(&self, path: &str) -> Option<(Stamp, DirListing)> {
        let dir = self.dir(path)?;
        // A record with a name no listing gives (`..`, `a/b`) is not this program's: the
        // directory is listed again rather than the walk led astray or failed.
        let names_plain = dir.subdirs.iter().all(|name| is_plain_name(name))
            && dir
                .notes
                .iter()
                .all(|note| is_plain_name(&note.name) && note.name.ends_with(".md"));
        if !names_plain {
            return None;
        }
        let listing = DirListing {
            subdirs: dir.subdirs.iter().map(|s| s.to_string()).collect(),
            notes: dir.notes.iter().map(|n| n.name.to_string()).collect(),
        };
        Some((dir.stamp?, listing))
    }
}

impl DirRecord<'_> {
    fn note_index(&self, name: &str) -> Result<usize, usize> {
        self.notes
            .binary_search_by(|note| note.name.as_ref().cmp(name))
    }

    fn note(&self, name: &str) -> Option<&NoteRecord<'_>> {
        self.note_index(name).ok().map(|i| &self.notes[i])
    }
}

fn head_len(version: &Version<'_>) -> usize {
    usize::try_from(version.head_len).unwrap_or(usize::MAX)
}

fn sorted(names: &[String]) -> Vec<Cow<'_, str>> {
    let mut names: Vec<Cow<'_, str>> = names.iter().map(|n| Cow::Borrowed(n.as_str())).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Binary searches need sorted records; a record file that is not is not used.
fn is_sorted_by_path(dirs: &[DirRecord<'_>]) -> bool {
    dirs.windows(2).all(|w| w[0].path < w[1].path)
        && dirs
            .iter()
            .all(|dir| dir.notes.windows(2).all(|w| w[0].name < w[1].name))
}

/// A single file name as a directory listing gives it.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

/// Whether `path` is the directory `home` or below it.
fn is_below(path: &str, home: &str) -> bool {
    path.strip_prefix(home)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000;

    fn stamp(ino: u64, changed: i64) -> Stamp {
        Stamp {
            dev: 1,
            ino,
            mode: 0o100644,
            nlink: 1,
            len: 10,
            modified: (changed, 0),
            changed: (changed, 0),
        }
    }

    fn cache() -> ListCache {
        ListCache {
            file: PathBuf::from("/nonexistent/x.list"),
            key: "/home".into(),
            payload: None,
            settled_before: SystemTime::UNIX_EPOCH + Duration::from_secs(NOW),
        }
    }

    fn version(ino: u64, changed: i64, updated: &str) -> Version<'static> {
        Version {
            stamp: stamp(ino, changed),
            head_len: 4,
            values: vec![Some(Cow::Owned(updated.to_string()))],
        }
    }

    fn dir<'a>(path: &'a str, notes: &[(&'a str, Option<Version<'a>>)]) -> DirRecord<'a> {
        DirRecord {
            path: Cow::Borrowed(path),
            stamp: Some(stamp(100, 1)),
            subdirs: Vec::new(),
            notes: notes
                .iter()
                .map(|(name, version)| NoteRecord {
                    name: Cow::Borrowed(name),
                    version: version.clone(),
                })
                .collect(),
        }
    }

    fn read(dir: &str, name: &str, version: Version<'static>) -> ReadNote {
        ReadNote {
            dir: dir.into(),
            name: name.into(),
            version,
        }
    }

    #[test]
    fn an_update_keeps_other_homes_drops_the_unreached_and_records_only_settled_reads() {
        let old = version(1, 5, "old");
        let known = Known {
            dirs: vec![
                dir(
                    "human",
                    &[("a.md", Some(old.clone())), ("gone.md", Some(old.clone()))],
                ),
                dir("human/unreached", &[]),
                dir("models/m", &[("m.md", Some(old.clone()))]),
            ],
        };
        let listing = DirListing {
            subdirs: Vec::new(),
            notes: vec!["b.md".into(), "a.md".into(), "c.md".into()],
        };
        let listed = [Listed {
            path: "human".into(),
            stamp: Some(stamp(100, 7)),
            listing: Some(listing),
        }];
        let settled = NOW as i64 - 10;
        let fresh = NOW as i64 + 1;
        let reads = [
            read("human", "b.md", version(2, settled, "b")),
            read("human", "c.md", version(3, fresh, "c")),
        ];
        let cache = cache();
        let walked = ["human".to_string()];
        assert!(cache.learned(&known, &walked, &listed, &reads));
        let dirs = cache.updated(&known, &walked, &listed, &reads);
        let paths: Vec<&str> = dirs.iter().map(|d| d.path.as_ref()).collect();
        assert_eq!(
            paths,
            ["human", "models/m"],
            "another home kept, the unreached dropped"
        );
        let human = &dirs[0];
        let notes: Vec<(&str, Option<&str>)> = human
            .notes
            .iter()
            .map(|n| {
                let value = n.version.as_ref().and_then(|v| v.values[0].as_deref());
                (n.name.as_ref(), value)
            })
            .collect();
        assert_eq!(
            notes,
            [("a.md", Some("old")), ("b.md", Some("b")), ("c.md", None)],
            "a name still listed keeps its version, a settled read is recorded, a fresh one not"
        );
        assert_eq!(human.stamp, Some(stamp(100, 7)));
    }

    #[test]
    fn a_walk_that_trusted_every_listing_and_read_nothing_learned_nothing() {
        let known = Known {
            dirs: vec![
                dir("human", &[]),
                dir("human/sub", &[]),
                dir("models/m", &[]),
            ],
        };
        let trusted = |path: &str| Listed {
            path: path.into(),
            stamp: None,
            listing: None,
        };
        let cache = cache();
        let walked = ["human".to_string()];
        let both = [trusted("human"), trusted("human/sub")];
        assert!(!cache.learned(&known, &walked, &both, &[]));
        // One recorded directory was not reached: it is gone.
        assert!(cache.learned(&known, &walked, &both[..1], &[]));
    }

    #[test]
    fn only_single_names_are_plain() {
        assert!(is_plain_name("a.md") && is_plain_name("..."));
        for bad in ["", ".", "..", "a/b", "a\0"] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_directory_is_below_its_home_and_not_below_a_sibling_with_a_longer_name() {
        assert!(is_below("human", "human"));
        assert!(is_below("human/a/b", "human"));
        assert!(!is_below("humans/a", "human"));
        assert!(!is_below("project/k-1", "project/k"));
    }
}
