//! The notes store: its types, the [`Store`] and the steps its operations share (locating a
//! note, loading and saving it, recording the change). The operations live by what they do:
//! [`change`] (write, move, edit, restore; log and diff) and [`read`] (read, list, search).
//!
//! Every read-modify-write of a note (a read too, because it bumps the access counters) runs
//! under the note's exclusive lock and ends in an atomic durable replace. `list` and `search`
//! take no locks: notes are only ever replaced by rename, so a reader sees the old or the new
//! file, never a mix.

mod change;
mod read;

use std::borrow::Cow;
use std::cmp::Reverse;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use jiff::Timestamp;
use serde::Serialize;

use super::address::{Address, Home, HomeSpec, Location, Pattern, Scan, MAX_PATH_BYTES};
use super::committer::{self, Committer, Held, ReadLock};
use super::error::NotesError;
use super::files::{self, OnDisk};
use super::frontmatter::{Document, Key};
use super::history::{self, Recorded};
use super::identity::{is_slug, Identity};
use super::list_cache::{self, ListCache};
use super::lock::LockError;
use super::{clock, frontmatter, lock, pending, walk};
use crate::beneath::{Dir, ReadLimit, Stamp};
use crate::clock::Clock;
use crate::home::journal;
use crate::home::repo::PathChange;
use crate::text::{self, LiteralMatcher};
use crate::wire;

/// The largest note, serialized, in UTF-8 bytes.
pub const MAX_NOTE_BYTES: usize = 1_000_000;

/// Who wrote a note's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    User,
    #[serde(rename = "self")]
    Agent,
    External,
}

impl Origin {
    pub fn parse(value: &str) -> Result<Origin, NotesError> {
        match value {
            "user" => Ok(Origin::User),
            "self" => Ok(Origin::Agent),
            "external" => Ok(Origin::External),
            other => Err(NotesError::InvalidOrigin(other.to_string())),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Origin::User => "user",
            Origin::Agent => "self",
            Origin::External => "external",
        }
    }
}

/// A note's metadata as written (values not interpreted beyond the access count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub origin: String,
    pub created_at: String,
    pub updated_at: String,
    pub last_accessed: String,
    pub access_count: u64,
    pub crumpled_at: Option<String>,
    /// The project key recorded when a session note was created.
    pub project: Option<String>,
}

impl Meta {
    /// Missing timestamps fall back to `fallback` (the file's modification time).
    fn of(doc: &Document, fallback: &str) -> Meta {
        Meta::with_fallback(doc, &|| fallback.to_string())
    }

    /// As [`Meta::of`], computing the fallback only when a timestamp is missing.
    fn with_fallback(doc: &Document, fallback: &dyn Fn() -> String) -> Meta {
        Meta::from_values(Key::ALL.map(|key| doc.get(key)), fallback)
    }

    /// The metadata from the value of each known key (indexed by `Key as usize`; `None` when it
    /// is not written), as [`frontmatter::known_values`] reads them.
    fn from_values(
        mut values: [Option<String>; Key::ALL.len()],
        fallback: &dyn Fn() -> String,
    ) -> Meta {
        let mut take = |key: Key| values[key as usize].take();
        let origin = take(Key::Origin).unwrap_or_else(|| "self".into());
        let created_at = take(Key::CreatedAt).unwrap_or_else(fallback);
        let updated_at = take(Key::UpdatedAt).unwrap_or_else(fallback);
        let last_accessed = take(Key::LastAccessed).unwrap_or_else(fallback);
        Meta {
            origin,
            created_at,
            updated_at,
            last_accessed,
            access_count: take(Key::AccessCount).map_or(0, |v| count(&v)),
            crumpled_at: take(Key::CrumpledAt),
            project: take(Key::Project),
        }
    }
}

fn access_count(doc: &Document) -> u64 {
    doc.get(Key::AccessCount).map_or(0, |v| count(&v))
}

fn count(value: &str) -> u64 {
    value.parse().unwrap_or(0)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteOutcome {
    Created,
    Overwrote,
    Uncrumpled,
}

impl WriteOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            WriteOutcome::Created => "created",
            WriteOutcome::Overwrote => "overwrote",
            WriteOutcome::Uncrumpled => "uncrumpled",
        }
    }
}

#[derive(Debug, Clone)]
pub struct WriteResult {
    pub location: Location,
    pub outcome: WriteOutcome,
    pub meta: Meta,
    pub history: Recorded,
}

/// What a move did.
#[derive(Debug, Clone)]
pub struct MoveResult {
    pub from: Location,
    pub to: Location,
    /// A crumpled note was at the target and is gone.
    pub replaced_crumpled: bool,
    pub meta: Meta,
    pub history: Recorded,
}

/// What a restore did.
#[derive(Debug, Clone)]
pub struct RestoreResult {
    pub location: Location,
    pub outcome: RestoreOutcome,
    /// The commit whose version was put back.
    pub from: String,
    pub history: Recorded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestoreOutcome {
    Restored,
    /// The note was gone and is back.
    Recreated,
    /// The note already was as it was then (counters aside): nothing written.
    Unchanged,
}

impl RestoreOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            RestoreOutcome::Restored => "restored",
            RestoreOutcome::Recreated => "recreated",
            RestoreOutcome::Unchanged => "unchanged",
        }
    }
}

/// One exact replacement in a note's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub old_text: String,
    pub new_text: String,
}

#[derive(Debug, Clone, Default)]
pub struct EditRequest {
    pub edits: Vec<Edit>,
    pub origin: Option<Origin>,
    /// `true` crumples (once), `false` smooths, `None` leaves it.
    pub crumpled: Option<bool>,
    pub replace_all: bool,
    /// The most diff text the result needs, in bytes (`None`: the whole diff).
    pub diff_max_bytes: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    None,
    Body,
    Metadata,
    File,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::None => "none",
            ChangeKind::Body => "body",
            ChangeKind::Metadata => "metadata",
            ChangeKind::File => "file",
        }
    }
}

/// What an edit changed: the body, the frontmatter block, or the whole file, before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    pub before: String,
    pub after: String,
}

/// How long the line diff of an edit may search for the smallest diff before it settles for a
/// coarser one (still a correct diff). An ordinary edit takes microseconds; a body where
/// hundreds of thousands of lines change would otherwise take minutes.
const DIFF_TIMEOUT: Duration = Duration::from_millis(300);

impl Change {
    /// A unified diff of the change (empty for `none`), with at most `max_bytes` bytes of text
    /// (`None`: all of it). The diff search is bounded in time: past [`DIFF_TIMEOUT`] the rest
    /// is diffed coarsely, so the work never grows with the square of the body.
    pub fn unified_diff(&self, address: &str, max_bytes: Option<usize>) -> Diff {
        if self.kind == ChangeKind::None {
            return Diff::default();
        }
        let diff = similar::TextDiff::configure()
            .algorithm(similar::Algorithm::Myers)
            .timeout(DIFF_TIMEOUT)
            .diff_lines(&self.before, &self.after);
        let mut text = BoundedText::new(max_bytes.unwrap_or(usize::MAX));
        let complete = std::fmt::Write::write_fmt(
            &mut text,
            format_args!(
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(address, address)
            ),
        )
        .is_ok();
        Diff {
            text: text.text,
            truncated: !complete,
        }
    }
}

/// A unified diff, possibly cut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    pub text: String,
    /// Whether `text` is only a prefix of the diff.
    pub truncated: bool,
}

/// A `fmt::Write` sink that keeps at most `max` bytes (cut at a character boundary) and then
/// fails, which stops the formatting that feeds it.
struct BoundedText {
    text: String,
    max: usize,
}

impl BoundedText {
    fn new(max: usize) -> Self {
        BoundedText {
            text: String::new(),
            max,
        }
    }
}

impl std::fmt::Write for BoundedText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = self.max - self.text.len();
        if s.len() <= room {
            self.text.push_str(s);
            return Ok(());
        }
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&s[..cut]);
        Err(std::fmt::Error)
    }
}

#[derive(Debug, Clone)]
pub struct EditResult {
    pub location: Location,
    /// Edits that changed the body.
    pub applied: usize,
    pub change: Change,
    /// The unified diff of `change`, computed before the note was written, so a result always
    /// describes a change that landed (and a change never lands without its result).
    pub diff: Diff,
    pub meta: Meta,
    pub history: Recorded,
}

/// A note as `read` returns it.
#[derive(Debug, Clone)]
pub struct Note {
    pub location: Location,
    pub meta: Meta,
    pub body: String,
    /// Whether the read was recorded in the note's access counters.
    pub counters: Counters,
}

/// Whether a read recorded its access on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counters {
    Updated,
    /// The home cannot be written (read-only, full, or an unusable `.locks`): the note was
    /// served as it is, and this says why its counters did not move.
    NotUpdated {
        reason: &'static str,
    },
}

/// Which notes `list` and `search` consider.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// A glob over canonical addresses; it also narrows the homes read.
    pub pattern: Option<String>,
    /// Only this home (overrides the pattern's narrowing; the pattern still filters).
    pub home: Option<HomeSpec>,
    /// Only crumpled notes instead of only live ones.
    pub wastebasket: bool,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub location: Location,
    pub meta: Meta,
    pub body_bytes: usize,
    pub(super) updated: Timestamp,
}

#[derive(Debug, Clone)]
pub struct Listing {
    /// Most recently updated first, then by address.
    pub rows: Vec<Row>,
    /// Notes left out because they are crumpled (or, with `wastebasket`, because they are not).
    pub crumpled_excluded: usize,
    /// Labels of homes that could not be read.
    pub homes_unavailable: Vec<String>,
    /// Whether this lists the wastebasket (crumpled notes only).
    pub wastebasket: bool,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineMatch {
    /// 1-based.
    pub line: usize,
    /// The whole line (without its line ending).
    pub text: String,
    /// Code points into the body of the earliest match on the line: ready for `read`.
    pub offset_chars: usize,
    /// Code points into the line of the same match.
    #[serde(skip)]
    pub column_chars: usize,
}

#[derive(Debug, Clone)]
pub struct SearchRow {
    pub row: Row,
    pub matches: Vec<LineMatch>,
}

#[derive(Debug, Clone)]
pub struct SearchListing {
    pub rows: Vec<SearchRow>,
    /// Crumpled notes that matched but were left out (the reverse with `wastebasket`).
    pub crumpled_excluded: usize,
    pub homes_unavailable: Vec<String>,
    pub wastebasket: bool,
}

/// The notes store of one identity.
#[derive(Debug, Clone)]
pub struct Store {
    identity: Identity,
    clock: Clock,
    /// Whether changes are committed to the home's repository ([`history`]).
    history: bool,
    /// Where `list` keeps its record of listings and frontmatter values ([`list_cache`]), if
    /// anywhere.
    list_cache: Option<PathBuf>,
    /// What changed within this long is not trusted to a record by its stamp.
    settle: Duration,
    /// The running dream's token when this process is its dreamer: its own changes are not a
    /// live agent's, so the dream's journal leaves them out ([`journal::record`]).
    dreamer_token: Option<String>,
    /// Commits after the answer, in a process that lives on ([`committer`]).
    committer: Option<Arc<Committer>>,
}

/// What [`Store::save`] writes.
#[derive(Clone, Copy)]
enum Saving {
    /// A change for the history: marked as pending until its commit; held to the size cap
    /// when `capped` (content a caller gave; a restore puts back what was there).
    Change { capped: bool },
    /// A read's access counters, which ride along in the note's next change uncommitted.
    Counters,
}

/// Where a note lives on disk.
struct NotePath {
    /// Directories below the notes home, the home's own included.
    dirs: Vec<String>,
    file_name: String,
    /// Relative to the notes home, `/`-separated (the lock's key).
    relative: String,
}

impl NotePath {
    fn dir_refs(&self) -> Vec<&str> {
        self.dirs.iter().map(String::as_str).collect()
    }
}

impl Store {
    /// The store of `identity`, by the system clock.
    pub fn new(identity: Identity) -> Store {
        Store::with_clock(identity, Clock::System)
    }

    /// The store of `identity`; `clock` stamps `updatedAt`, `lastAccessed` and the rest.
    pub fn with_clock(identity: Identity, clock: Clock) -> Store {
        Store {
            identity,
            clock,
            history: false,
            list_cache: None,
            dreamer_token: None,
            committer: None,
            settle: list_cache::SETTLED,
        }
    }

    /// This store, keeping `list`'s record of listings in `dir` (`None`: reading every note).
    pub fn with_list_cache(self, dir: Option<PathBuf>) -> Store {
        Store {
            list_cache: dir,
            ..self
        }
    }

    /// This store, trusting stamps of what changed more than `settle` ago (tests shorten it).
    pub fn with_settle(self, settle: Duration) -> Store {
        Store { settle, ..self }
    }

    /// This store, working for the dreamer of the dream whose lock token is `token`.
    pub fn with_dreamer_token(self, token: Option<String>) -> Store {
        Store {
            dreamer_token: token,
            ..self
        }
    }

    /// The dreamer's dream token, when this store works for a dreamer.
    pub(super) fn dreamer_token(&self) -> Option<&str> {
        self.dreamer_token.as_deref()
    }

    /// This store, committing every change it makes to the notes history when `on`.
    pub fn with_history(self, on: bool) -> Store {
        Store {
            history: on,
            ..self
        }
    }

    /// Commits a change just made, whose notes' locks `held` are (so the commits of one note
    /// are in the order of its changes), together with the changes that earlier writers saved
    /// but could not commit ([`pending`]); once committed, their marks go. With a
    /// [`Committer`], the commit is queued instead and the locks go with it.
    pub(super) fn record(
        &self,
        root: &Dir,
        operation: &history::Operation,
        held: Vec<Held>,
    ) -> Recorded {
        match &self.committer {
            Some(committer) if self.history => {
                let job = committer::Job::of(&self.identity, self.clock.now(), operation);
                committer.queue(root, job, held)
            }
            _ => self.record_now(root, operation),
        }
    }

    /// [`Store::record`] before answering, whatever the store's committer: for a caller that
    /// holds its notes' locks itself.
    pub(super) fn record_now(&self, root: &Dir, operation: &history::Operation) -> Recorded {
        if !self.history {
            return Recorded::Off;
        }
        committer::record_now(root, &self.identity, self.clock.now(), operation)
    }

    /// The lock of the note at `relative`, held until its change is committed ([`record`]).
    /// With a [`Committer`], it waits for the commit of the note's earlier queued change.
    pub(super) fn lock_note(&self, root: &Dir, relative: &str) -> Result<Held, LockError> {
        match &self.committer {
            Some(committer) if self.history => {
                committer.lock_to_change(root, &self.identity.home, relative)
            }
            _ => lock::lock(root, relative).map(|lock| Held::own(relative, lock)),
        }
    }

    /// The lock of the note at `relative` while a read moves its access counters: with a
    /// [`Committer`], borrowed from its queue without waiting for the note's commit.
    pub(super) fn lock_note_to_read(
        &self,
        root: &Dir,
        relative: &str,
    ) -> Result<ReadLock, LockError> {
        match &self.committer {
            Some(committer) if self.history => {
                committer.lock_to_read(root, &self.identity.home, relative)
            }
            _ => lock::lock(root, relative).map(ReadLock::own),
        }
    }

    /// Waits for the commits this process has queued, before the history is read.
    pub(super) fn flush_commits(&self) {
        if let Some(committer) = &self.committer {
            committer.flush();
        }
    }

    /// This store, committing its changes through `committer` (after answering) instead of
    /// before answering.
    pub fn with_committer(self, committer: Option<Arc<Committer>>) -> Store {
        Store { committer, ..self }
    }

    /// Marks the note at `relative` as changed on disk and not yet committed, before it is
    /// written (only when changes are committed at all).
    pub(super) fn mark_pending(&self, root: &Dir, relative: &str) -> Result<(), NotesError> {
        if self.history {
            pending::mark(root, relative)?;
        }
        Ok(())
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Parses an address and binds it to this store's identity.
    pub fn locate(&self, address: &str) -> Result<Location, NotesError> {
        Address::parse(address)?.resolve(&self.identity)
    }

    /// Checks that the address may be written: path length and home.
    fn locate_writable(&self, address: &str) -> Result<Location, NotesError> {
        let parsed = Address::parse(address)?;
        parsed.check_writable_length()?;
        let location = parsed.resolve(&self.identity)?;
        location.check_writable()?;
        Ok(location)
    }

    fn note_path(&self, location: &Location) -> NotePath {
        let mut dirs: Vec<String> = location
            .home
            .components()
            .into_iter()
            .map(str::to_string)
            .collect();
        let mut segments: Vec<&str> = location.path.split('/').collect();
        let file_name = segments.pop().unwrap_or_default().to_string();
        dirs.extend(segments.into_iter().map(str::to_string));
        let relative = format!("{}/{file_name}", dirs.join("/"));
        NotePath {
            dirs,
            file_name,
            relative,
        }
    }

    /// The notes home, or `None` when it does not exist yet.
    fn open_root(&self) -> Result<Option<Dir>, NotesError> {
        files::open_root(&self.identity.home)
    }

    /// Whether the note exists, refusing links, without reading it or taking its lock: a refused
    /// or missing note leaves no trace, not even a lock file.
    fn precheck(&self, root: Option<&Dir>, path: &NotePath) -> Result<bool, NotesError> {
        let Some(root) = root else {
            return Ok(false);
        };
        match files::open_dirs(root, &path.dir_refs())? {
            Some(dir) => files::note_exists(&dir, &path.file_name),
            None => Ok(false),
        }
    }

    /// Reads the note at `path` if it and its directories exist (links refused).
    fn load(&self, root: &Dir, path: &NotePath) -> Result<Option<OnDisk>, NotesError> {
        match files::open_dirs(root, &path.dir_refs())? {
            Some(dir) => files::read_note(&dir, &path.file_name),
            None => Ok(None),
        }
    }

    /// Replaces the note at `path` with `doc` (its content was `before`), and records the change
    /// in a running dream's live-write journal.
    fn save(
        &self,
        root: &Dir,
        path: &NotePath,
        before: Option<&str>,
        doc: &Document,
        mode: Option<u32>,
        saving: Saving,
    ) -> Result<String, NotesError> {
        let text = doc.render();
        if matches!(saving, Saving::Change { capped: true }) && text.len() > MAX_NOTE_BYTES {
            return Err(NotesError::NoteTooLarge {
                actual: text.len(),
                limit: MAX_NOTE_BYTES,
            });
        }
        let dir = files::create_dirs(root, &path.dir_refs())?;
        if matches!(saving, Saving::Change { .. }) {
            self.mark_pending(root, &path.relative)?;
        }
        files::write_atomic(&dir, &path.file_name, text.as_bytes(), mode)?;
        journal::record(
            root,
            &path.relative,
            before,
            Some(&text),
            self.dreamer_token(),
        );
        Ok(text)
    }

    fn new_document(&self, location: &Location, now_iso: &str) -> Document {
        let mut doc = Document::new(String::new());
        doc.set(Key::Origin, Origin::Agent.as_str());
        doc.set(Key::CreatedAt, now_iso);
        doc.set(Key::UpdatedAt, now_iso);
        doc.set(Key::LastAccessed, now_iso);
        doc.set(Key::AccessCount, "0");
        if matches!(location.home, Home::Session(_)) {
            doc.set(Key::Project, &self.identity.project_key);
        }
        doc
    }
}

fn complete(doc: &mut Document, fallback: &str) {
    if doc.get(Key::Origin).is_none() {
        doc.set(Key::Origin, Origin::Agent.as_str());
    }
    for key in [Key::CreatedAt, Key::UpdatedAt, Key::LastAccessed] {
        if doc.get(key).is_none() {
            doc.set(key, fallback);
        }
    }
    if doc.get(Key::AccessCount).is_none() {
        doc.set(Key::AccessCount, "0");
    }
}

/// A note's missing times default to its file's modification time (else now).
fn fallback_time(disk: Option<&OnDisk>, now_iso: &str) -> String {
    disk.and_then(|d| d.modified)
        .and_then(|m| Timestamp::try_from(m).ok())
        .map_or_else(|| now_iso.to_string(), clock::local_iso)
}

#[cfg(test)]
mod tests {
    use super::change::{apply_edits, strip_frontmatter};
    use super::read::{match_lines, matcher};
    use super::*;

    fn doc(body: &str) -> Document {
        let mut doc = Document::new(body.to_string());
        doc.set(Key::Origin, "self");
        doc
    }

    fn edit(old: &str, new: &str) -> Edit {
        Edit {
            old_text: old.into(),
            new_text: new.into(),
        }
    }

    #[test]
    fn edits_apply_in_order_to_the_evolving_body() {
        let (body, applied) = apply_edits(
            &doc("a b c"),
            &[edit("a", "x"), edit("x b", "y"), edit("c", "c")],
            false,
        )
        .unwrap();
        assert_eq!((body.as_str(), applied), ("y c", 2));
    }

    #[test]
    fn ambiguous_edits_report_every_start_line() {
        let err = apply_edits(&doc("x\nab\nab\nq ab"), &[edit("ab", "z")], false).unwrap_err();
        assert_eq!(err.code(), "ambiguous_edit");
        assert_eq!(err.details()["line_numbers"], serde_json::json!([2, 3, 4]));
        let multi = apply_edits(&doc("a\nb\na\nb\na\nb"), &[edit("a\nb", "z")], false).unwrap_err();
        assert_eq!(
            multi.details()["line_numbers"],
            serde_json::json!([1, 3, 5])
        );
        let (all, _) = apply_edits(&doc("ab ab"), &[edit("ab", "$0")], true).unwrap();
        assert_eq!(all, "$0 $0", "replacement text is literal");
    }

    #[test]
    fn missing_and_empty_anchors_name_their_index() {
        let err = apply_edits(&doc("abc"), &[edit("a", "b"), edit("zzz", "")], false).unwrap_err();
        assert_eq!(
            (err.code(), err.details()["edit_index"].as_u64()),
            ("no_match", Some(1))
        );
        let empty = apply_edits(&doc("abc"), &[edit("", "x")], false).unwrap_err();
        assert_eq!(empty.code(), "no_match");
        let only_meta = apply_edits(&doc("abc"), &[edit("origin", "x")], false).unwrap_err();
        assert!(only_meta.to_string().contains("frontmatter"), "{only_meta}");
    }

    #[test]
    fn search_offsets_count_code_points_of_the_body() {
        let m = matcher(&["NEEDLE"]).unwrap();
        let hits = match_lines(&m, "🐑字\nneedle tail\r\nno\nx needle");
        assert_eq!(
            hits,
            vec![
                LineMatch {
                    line: 2,
                    text: "needle tail".into(),
                    offset_chars: 3,
                    column_chars: 0
                },
                LineMatch {
                    line: 4,
                    text: "x needle".into(),
                    offset_chars: 21,
                    column_chars: 2
                },
            ]
        );
    }

    /// The body-level scan finds exactly what matching each line on its own finds.
    mod line_matching {
        use super::super::read::{match_each_line, match_lines, matcher};
        use proptest::prelude::*;

        fn pieces(with_line_ends: bool) -> impl Strategy<Value = String> {
            let mut pieces = vec![
                "a", "b", "ab", "K", "k", "\u{212A}", "é", "É", "ß", "SS", "İ", "i", "😀", " ",
                "needle", "NEEDLE",
            ];
            if with_line_ends {
                pieces.extend(["\n", "\r\n", "\r", "\n\n"]);
            }
            prop::collection::vec(prop::sample::select(pieces), 0..40)
                .prop_map(|pieces| pieces.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig {
                cases: 512,
                failure_persistence: None,
                ..ProptestConfig::default()
            })]

            #[test]
            fn agrees_with_each_line_alone(
                body in pieces(true),
                queries in prop::collection::vec(pieces(false).prop_filter("non-empty", |q| !q.is_empty()), 1..4),
            ) {
                let m = matcher(&queries).unwrap();
                prop_assert_eq!(match_lines(&m, &body), match_each_line(&m, &body));
            }
        }

        #[test]
        fn a_query_with_a_line_feed_never_matches() {
            let m = matcher(&["a\nb", "zz"]).unwrap();
            assert!(match_lines(&m, "a\nb\nzz a\nb").len() == 1);
        }
    }

    #[test]
    fn queries_must_be_non_empty() {
        assert_eq!(matcher::<&str>(&[]).unwrap_err().code(), "invalid_query");
        assert_eq!(matcher(&["a", ""]).unwrap_err().code(), "invalid_query");
    }

    #[test]
    fn write_strips_supplied_frontmatter() {
        assert_eq!(strip_frontmatter("---\nscope: x\n---\n\nhello"), "hello");
        assert_eq!(strip_frontmatter("hello\n---\n"), "hello\n---\n");
    }
}
