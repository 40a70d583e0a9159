//! The five store operations: write, edit, read, list, search.
//!
//! Every read-modify-write of a note (a read too, because it bumps the access counters) runs
//! under the note's exclusive lock and ends in an atomic durable replace. `list` and `search`
//! take no locks: notes are only ever replaced by rename, so a reader sees the old or the new
//! file, never a mix.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use jiff::Timestamp;
use serde::Serialize;

use super::address::{Address, Home, HomeSpec, Location, Pattern, Scan, MAX_PATH_BYTES};
use super::error::NotesError;
use super::files::{self, OnDisk};
use super::frontmatter::{Document, Key};
use super::history::RECOVERED;
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

    /// Commits a change just made (the caller still holds the notes' locks, so the commits of
    /// one note are in the order of its changes), together with the changes that earlier
    /// writers saved but could not commit ([`pending`]); once committed, their marks go.
    pub(super) fn record(&self, root: &Dir, operation: &history::Operation) -> Recorded {
        if !self.history {
            return Recorded::Off;
        }
        let own: Vec<&str> = operation.changes.iter().map(|c| c.path).collect();
        let adopted = pending::adopt(root, &own);
        let recorded = if adopted.is_empty() {
            history::record(&self.identity, self.clock.now(), operation)
        } else {
            let mut changes = operation.changes.to_vec();
            changes.extend(adopted.iter().map(|a| PathChange {
                path: &a.relative,
                content: a.content.as_deref(),
            }));
            let mut extra = operation.extra.to_vec();
            extra.extend(adopted.iter().map(|a| (RECOVERED, a.relative.as_str())));
            let with_adopted = history::Operation {
                changes: &changes,
                extra: &extra,
                ..*operation
            };
            history::record(&self.identity, self.clock.now(), &with_adopted)
        };
        if matches!(recorded, Recorded::Committed(_) | Recorded::Unchanged) {
            let adopted_paths = adopted.iter().map(|a| a.relative.as_str());
            for path in own.iter().copied().chain(adopted_paths) {
                pending::clear(root, path);
            }
        }
        recorded
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
        capped: bool,
    ) -> Result<String, NotesError> {
        let text = doc.render();
        if capped && text.len() > MAX_NOTE_BYTES {
            return Err(NotesError::NoteTooLarge {
                actual: text.len(),
                limit: MAX_NOTE_BYTES,
            });
        }
        let dir = files::create_dirs(root, &path.dir_refs())?;
        self.mark_pending(root, &path.relative)?;
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

    /// Creates or overwrites a note. A leading frontmatter block in `content` is dropped; the
    /// note keeps its creation time, counters, project, origin (unless one is given) and every
    /// unknown frontmatter line; a crumpled note is smoothed.
    pub fn write(
        &self,
        address: &str,
        content: &str,
        origin: Option<Origin>,
    ) -> Result<WriteResult, NotesError> {
        let location = self.locate_writable(address)?;
        let body = strip_frontmatter(content);
        let now_iso = clock::local_iso(self.clock.now());
        let path = self.note_path(&location);
        self.precheck(self.open_root()?.as_ref(), &path)?;
        let root = files::create_root(&self.identity.home)?;
        let _lock = lock::lock(&root, &path.relative)?;
        let existing = self.load(&root, &path)?;
        let (mut doc, outcome, mode) = match &existing {
            Some(disk) => {
                let doc = Document::parse(&disk.text);
                let outcome = if doc.get(Key::CrumpledAt).is_some() {
                    WriteOutcome::Uncrumpled
                } else {
                    WriteOutcome::Overwrote
                };
                (doc, outcome, Some(disk.mode))
            }
            None => (
                self.new_document(&location, &now_iso),
                WriteOutcome::Created,
                None,
            ),
        };
        doc.body = body;
        doc.ensure_gap();
        if let Some(origin) = origin {
            doc.set(Key::Origin, origin.as_str());
        }
        doc.set(Key::UpdatedAt, &now_iso);
        doc.remove(Key::CrumpledAt);
        complete(&mut doc, &fallback_time(existing.as_ref(), &now_iso));
        let text = self.save(
            &root,
            &path,
            existing.as_ref().map(|d| d.text.as_str()),
            &doc,
            mode,
            true,
        )?;
        let address = location.address();
        let history = self.record(
            &root,
            &history::Operation::on_note(
                "write",
                &address,
                &[],
                &[PathChange {
                    path: &path.relative,
                    content: Some(text.as_bytes()),
                }],
            ),
        );
        Ok(WriteResult {
            meta: Meta::of(&doc, &now_iso),
            location,
            outcome,
            history,
        })
    }

    /// Moves a note from one address to another (both in writable homes). The note keeps its
    /// creation time, origin, access counts and every unknown frontmatter line; `updatedAt`
    /// moves to now, and `project` follows the session boundary (set when the note enters a
    /// session home, removed when it leaves one). A crumpled note at the target is replaced; a
    /// live one is refused.
    pub fn move_note(&self, from: &str, to: &str) -> Result<MoveResult, NotesError> {
        let from = self.locate_writable(from)?;
        let to = self.locate_writable(to)?;
        self.move_location(from, to)
    }

    /// [`Store::move_note`] with notes named by their file paths below the notes home
    /// (`human/a.md`, `project/<key>/b.md`, …): how the dreamer, which works with files, names
    /// them.
    pub fn move_files(&self, from: &str, to: &str) -> Result<MoveResult, NotesError> {
        let locate = |file: &str| -> Result<Location, NotesError> {
            let location = Location::from_home_path(file, &self.identity)?;
            if location.path.len() > MAX_PATH_BYTES + ".md".len() {
                return Err(NotesError::PathTooLarge {
                    actual: location.path.len() - ".md".len(),
                    limit: MAX_PATH_BYTES,
                });
            }
            location.check_writable()?;
            Ok(location)
        };
        self.move_location(locate(from)?, locate(to)?)
    }

    fn move_location(&self, from: Location, to: Location) -> Result<MoveResult, NotesError> {
        let now_iso = clock::local_iso(self.clock.now());
        let (source, target) = (self.note_path(&from), self.note_path(&to));
        if source.relative == target.relative {
            return Err(NotesError::NothingToMove(format!(
                "{} and {} are the same note",
                from.address(),
                to.address()
            )));
        }
        let not_found = || NotesError::NotFound {
            address: from.address(),
        };
        if !self.precheck(self.open_root()?.as_ref(), &source)? {
            return Err(not_found());
        }
        let live_target = || {
            NotesError::AlreadyExists(format!(
                "{} is a live note; crumple it first or pick another address",
                to.address()
            ))
        };
        // A live target is refused before any lock file is made (checked again under the locks).
        if let Some(existing_root) = self.open_root()? {
            if self.precheck(Some(&existing_root), &target)?
                && self
                    .load(&existing_root, &target)?
                    .is_some_and(|t| Document::parse(&t.text).get(Key::CrumpledAt).is_none())
            {
                return Err(live_target());
            }
        }
        let root = files::create_root(&self.identity.home)?;
        // Both locks, always in the same order, so two moves never wait on each other.
        let (first, second) = if source.relative < target.relative {
            (&source, &target)
        } else {
            (&target, &source)
        };
        let _first = lock::lock(&root, &first.relative)?;
        let _second = lock::lock(&root, &second.relative)?;
        let disk = self.load(&root, &source)?.ok_or_else(not_found)?;
        let replaced = match self.load(&root, &target)? {
            Some(existing)
                if Document::parse(&existing.text)
                    .get(Key::CrumpledAt)
                    .is_some() =>
            {
                Some(existing.text)
            }
            Some(_) => return Err(live_target()),
            None => None,
        };
        let mut doc = Document::parse(&disk.text);
        doc.set(Key::UpdatedAt, &now_iso);
        match (&from.home, &to.home) {
            (Home::Session(_), Home::Session(_)) => {}
            (_, Home::Session(_)) => doc.set(Key::Project, &self.identity.project_key),
            (Home::Session(_), _) => doc.remove(Key::Project),
            _ => {}
        }
        complete(&mut doc, &fallback_time(Some(&disk), &now_iso));
        let text = doc.render();
        // One rename moves the note: a reader finds it at exactly one of the two addresses.
        // Then its metadata is brought up to date in place, atomically.
        let source_dir = files::open_dirs(&root, &source.dir_refs())?.ok_or_else(not_found)?;
        let target_dir = files::create_dirs(&root, &target.dir_refs())?;
        self.mark_pending(&root, &source.relative)?;
        self.mark_pending(&root, &target.relative)?;
        source_dir
            .rename_to(&source.file_name, &target_dir, &target.file_name)
            .map_err(files::notes_error)?;
        files::write_atomic(
            &target_dir,
            &target.file_name,
            text.as_bytes(),
            Some(disk.mode),
        )?;
        journal::record(
            &root,
            &source.relative,
            Some(&disk.text),
            None,
            self.dreamer_token(),
        );
        journal::record(
            &root,
            &target.relative,
            replaced.as_deref(),
            Some(&text),
            self.dreamer_token(),
        );
        let (from_address, to_address) = (from.address(), to.address());
        let history = self.record(
            &root,
            &history::Operation::on_note(
                "move",
                &to_address,
                &[("From", &from_address)],
                &[
                    PathChange {
                        path: &source.relative,
                        content: None,
                    },
                    PathChange {
                        path: &target.relative,
                        content: Some(text.as_bytes()),
                    },
                ],
            ),
        );
        Ok(MoveResult {
            meta: Meta::of(&doc, &now_iso),
            from,
            to,
            replaced_crumpled: replaced.is_some(),
            history,
        })
    }

    /// The commits that changed a note (an address) or the notes an address glob matches
    /// (`*`, `?` in `target`), or every commit (`None`), newest first, at most `limit`.
    pub fn log(&self, target: Option<&str>, limit: usize) -> Result<history::Log, NotesError> {
        let filter = match target {
            None => history::LogFilter::All,
            Some(glob) if glob.contains(['*', '?']) => {
                history::LogFilter::Pattern(Pattern::parse(Some(glob), &self.identity)?)
            }
            Some(address) => {
                let location = self.locate(address)?;
                history::LogFilter::Path(self.note_path(&location).relative)
            }
        };
        history::log(&self.identity, &filter, limit)
    }

    /// The note at `rev` (by default: before its last recorded change) against the note now.
    /// Reading it for the comparison is not an access: the counters do not move.
    pub fn diff(&self, address: &str, rev: Option<&str>) -> Result<history::NoteDiff, NotesError> {
        let location = self.locate(address)?;
        let path = self.note_path(&location);
        let root = self.open_root()?;
        let now = match &root {
            Some(root) if self.precheck(Some(root), &path)? => self.load(root, &path)?,
            _ => None,
        };
        history::diff(
            &self.identity,
            &location,
            &path.relative,
            rev,
            now.as_ref().map(|d| d.text.as_str()),
        )
    }

    /// Puts back the note as it was at `rev`, as a new change (and commit): history is never
    /// rewritten. The note keeps its current access counters; `updatedAt` becomes now. A note
    /// that is gone now is recreated.
    pub fn restore(&self, address: &str, rev: &str) -> Result<RestoreResult, NotesError> {
        let location = self.locate_writable(address)?;
        let path = self.note_path(&location);
        let repo = history::open(&self.identity.home)?.ok_or_else(|| {
            NotesError::InvalidRevision(format!("{rev:?}: the notes home has no history yet"))
        })?;
        let commit = history::resolve_rev(&repo, rev)?;
        let from = commit.id().to_string();
        let past = history::content_at(&repo, &commit, &path.relative)?.ok_or_else(|| {
            NotesError::NotFound {
                address: format!("{} at {}", location.address(), &from[..12]),
            }
        })?;
        let past = String::from_utf8(past).map_err(|_| {
            NotesError::History(format!(
                "{} at {} is not UTF-8 text",
                location.address(),
                &from[..12]
            ))
        })?;
        let now_iso = clock::local_iso(self.clock.now());
        self.precheck(self.open_root()?.as_ref(), &path)?;
        let root = files::create_root(&self.identity.home)?;
        let _lock = lock::lock(&root, &path.relative)?;
        let existing = self.load(&root, &path)?;
        let mut doc = Document::parse(&past);
        if let Some(current) = existing.as_ref().map(|d| Document::parse(&d.text)) {
            for key in [Key::AccessCount, Key::LastAccessed] {
                match current.get(key) {
                    Some(value) => doc.set(key, &value),
                    None => doc.remove(key),
                }
            }
        }
        let unchanged = existing.as_ref().is_some_and(|d| {
            history::without_counters(&d.text) == history::without_counters(&doc.render())
        });
        if unchanged {
            return Ok(RestoreResult {
                location,
                outcome: RestoreOutcome::Unchanged,
                from,
                history: Recorded::Unchanged,
            });
        }
        if doc.has_frontmatter() {
            doc.set(Key::UpdatedAt, &now_iso);
            complete(&mut doc, &fallback_time(existing.as_ref(), &now_iso));
        }
        let text = self.save(
            &root,
            &path,
            existing.as_ref().map(|d| d.text.as_str()),
            &doc,
            existing.as_ref().map(|d| d.mode),
            false,
        )?;
        let address = location.address();
        let history = self.record(
            &root,
            &history::Operation::on_note(
                "restore",
                &address,
                &[("Restored-From", &from)],
                &[PathChange {
                    path: &path.relative,
                    content: Some(text.as_bytes()),
                }],
            ),
        );
        Ok(RestoreResult {
            location,
            outcome: if existing.is_some() {
                RestoreOutcome::Restored
            } else {
                RestoreOutcome::Recreated
            },
            from,
            history,
        })
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

    /// Applies exact replacements to the body (in order, all or nothing) and the metadata
    /// setters. Nothing is written when nothing changes.
    pub fn edit(&self, address: &str, request: &EditRequest) -> Result<EditResult, NotesError> {
        let location = self.locate_writable(address)?;
        if request.edits.is_empty() && request.origin.is_none() && request.crumpled.is_none() {
            return Err(NotesError::NothingToDo);
        }
        let now_iso = clock::local_iso(self.clock.now());
        let path = self.note_path(&location);
        let not_found = || NotesError::NotFound {
            address: location.address(),
        };
        let root = self.open_root()?;
        if !self.precheck(root.as_ref(), &path)? {
            return Err(not_found());
        }
        let root = root.ok_or_else(not_found)?;
        let _lock = lock::lock(&root, &path.relative)?;
        let disk = self.load(&root, &path)?.ok_or_else(not_found)?;
        let mut doc = Document::parse(&disk.text);
        let before_block = doc.frontmatter_text();
        let (body, applied) = apply_edits(&doc, &request.edits, request.replace_all)?;
        let body_changed = body != doc.body;
        let before_body = std::mem::replace(&mut doc.body, body);

        let origin_changed = request
            .origin
            .is_some_and(|o| doc.get(Key::Origin).as_deref() != Some(o.as_str()));
        if let Some(origin) = request.origin {
            doc.set(Key::Origin, origin.as_str());
        }
        let crumple_changed = set_crumpled(&mut doc, request.crumpled, &now_iso);
        let kind = match (body_changed, origin_changed || crumple_changed) {
            (false, false) => ChangeKind::None,
            (true, false) => ChangeKind::Body,
            (false, true) => ChangeKind::Metadata,
            (true, true) => ChangeKind::File,
        };
        if kind != ChangeKind::None {
            if body_changed || origin_changed {
                doc.set(Key::UpdatedAt, &now_iso);
            }
            complete(&mut doc, &fallback_time(Some(&disk), &now_iso));
        }
        let change = match kind {
            ChangeKind::None => Change {
                kind,
                before: String::new(),
                after: String::new(),
            },
            ChangeKind::Body => Change {
                kind,
                before: before_body,
                after: doc.body.clone(),
            },
            ChangeKind::Metadata => Change {
                kind,
                before: before_block,
                after: doc.frontmatter_text(),
            },
            ChangeKind::File => Change {
                kind,
                before: disk.text.clone(),
                after: doc.render(),
            },
        };
        // The result is complete before anything is written: a caller never sees a failure for
        // a change that landed.
        let address = location.address();
        let diff = change.unified_diff(&address, request.diff_max_bytes);
        let history = if kind == ChangeKind::None {
            Recorded::Unchanged
        } else {
            let text = self.save(&root, &path, Some(&disk.text), &doc, Some(disk.mode), true)?;
            self.record(
                &root,
                &history::Operation::on_note(
                    edit_operation(request),
                    &address,
                    &[],
                    &[PathChange {
                        path: &path.relative,
                        content: Some(text.as_bytes()),
                    }],
                ),
            )
        };
        Ok(EditResult {
            meta: Meta::of(&doc, &fallback_time(Some(&disk), &now_iso)),
            location,
            applied,
            change,
            diff,
            history,
        })
    }

    /// Reads a note and records the access (`lastAccessed`, `accessCount`) on disk. Foreign
    /// homes are readable, and their counters move like any other. A home that cannot be
    /// written (read-only, full, or an unusable `.locks`) still serves the note, unchanged, and
    /// says so in [`Note::counters`].
    pub fn read(&self, address: &str) -> Result<Note, NotesError> {
        let location = self.locate(address)?;
        let path = self.note_path(&location);
        let not_found = || NotesError::NotFound {
            address: location.address(),
        };
        let root = self.open_root()?;
        if !self.precheck(root.as_ref(), &path)? {
            return Err(not_found());
        }
        let root = root.ok_or_else(not_found)?;
        let now_iso = clock::local_iso(self.clock.now());
        let lock = match lock::lock(&root, &path.relative) {
            Ok(lock) => Ok(lock),
            Err(LockError::Unwritable { reason, .. }) => Err(reason),
            Err(LockError::Failed(error)) => return Err(error),
        };
        let disk = self.load(&root, &path)?.ok_or_else(not_found)?;
        let mut doc = Document::parse(&disk.text);
        let fallback = fallback_time(Some(&disk), &now_iso);
        let counters = match lock {
            Ok(_lock) => {
                let mut bumped = doc.clone();
                let count = access_count(&bumped).saturating_add(1);
                bumped.set(Key::LastAccessed, &now_iso);
                bumped.set(Key::AccessCount, &count.to_string());
                complete(&mut bumped, &fallback);
                // Reading never fails for size: the cap is enforced where content is written.
                match self.save(
                    &root,
                    &path,
                    Some(&disk.text),
                    &bumped,
                    Some(disk.mode),
                    false,
                ) {
                    Ok(_) => {
                        doc = bumped;
                        Counters::Updated
                    }
                    Err(error) => match files::unwritable_reason(&error) {
                        Some(reason) => Counters::NotUpdated { reason },
                        None => return Err(error),
                    },
                }
            }
            Err(reason) => Counters::NotUpdated { reason },
        };
        Ok(Note {
            meta: Meta::of(&doc, &fallback),
            body: doc.body,
            location,
            counters,
        })
    }

    /// A note's metadata and body as they are on disk, without recording the access (the boot
    /// block reads `MAP.md` this way: a boot never rewrites a note). `None` when it is missing.
    pub fn peek(&self, location: &Location) -> Result<Option<(Meta, String)>, NotesError> {
        let Some(root) = self.open_root()? else {
            return Ok(None);
        };
        let Some(disk) = self.load(&root, &self.note_path(location))? else {
            return Ok(None);
        };
        let doc = Document::parse(&disk.text);
        let modified = disk.modified.and_then(|m| Timestamp::try_from(m).ok());
        let meta = Meta::with_fallback(&doc, &|| {
            modified.map_or_else(String::new, clock::local_iso)
        });
        Ok(Some((meta, doc.body)))
    }

    /// Notes in the homes the query selects, most recently updated first.
    pub fn list(&self, query: &Query) -> Result<Listing, NotesError> {
        let wanted = query.wastebasket;
        let cache = self
            .list_cache
            .as_deref()
            .map(|dir| ListCache::open(dir, &self.identity.home, self.settle));
        let (rows, homes_unavailable) = match &cache {
            None => self.visit(query, Vec::new, |buffer, found| {
                self.list_row(buffer, found)
            })?,
            Some(cache) => self.list_cached(query, cache)?,
        };
        let (rows, crumpled_excluded) = recent_first(rows, wanted, |r| r);
        Ok(Listing {
            rows,
            crumpled_excluded,
            homes_unavailable,
            wastebasket: wanted,
        })
    }

    /// The rows of a list that takes what did not change from `cache` ([`list_cache`]) and
    /// records what it read.
    fn list_cached(
        &self,
        query: &Query,
        cache: &ListCache,
    ) -> Result<(Vec<Vec<Row>>, Vec<String>), NotesError> {
        let known = cache.known();
        let walked = self.walk(query, Some(&known), Default::default, |state, found| {
            self.list_row_cached(&known, state, found)
        })?;
        let mut read = Vec::new();
        let rows = walked
            .kept
            .into_iter()
            .map(|batch| {
                batch
                    .into_iter()
                    .map(|(row, note)| {
                        read.extend(note);
                        row
                    })
                    .collect()
            })
            .collect();
        cache.update(&known, &walked.homes, &walked.listed, &read);
        Ok((rows, walked.unavailable))
    }

    /// Case-insensitive literal OR over body lines; one hit per matching line.
    pub fn search<S: AsRef<str>>(
        &self,
        queries: &[S],
        query: &Query,
    ) -> Result<SearchListing, NotesError> {
        let matcher = matcher(queries)?;
        let wanted = query.wastebasket;
        let (rows, homes_unavailable) = self.visit(query, Vec::new, |buffer, found| {
            self.search_row(buffer, found, &matcher)
        })?;
        let (rows, crumpled_excluded) = recent_first(rows, wanted, |r| &r.row);
        Ok(SearchListing {
            rows,
            crumpled_excluded,
            homes_unavailable,
            wastebasket: wanted,
        })
    }

    /// Runs `visit` on every note of the homes the query selects whose address the pattern
    /// matches (see [`walk::visit_notes`]); returns what it kept and the labels of the homes that
    /// could not be read.
    fn visit<T, R>(
        &self,
        query: &Query,
        state: impl Fn() -> T + Sync,
        visit: impl Fn(&mut T, walk::Found<'_>) -> Option<R> + Sync,
    ) -> Result<(Vec<Vec<R>>, Vec<String>), NotesError>
    where
        R: Send,
    {
        let walked = self.walk(query, None, state, visit)?;
        Ok((walked.kept, walked.unavailable))
    }

    /// [`Store::visit`], trusting the directory listings of `listings` that still hold, and
    /// telling which directories it reached.
    fn walk<T, R>(
        &self,
        query: &Query,
        listings: Option<&dyn walk::Listings>,
        state: impl Fn() -> T + Sync,
        visit: impl Fn(&mut T, walk::Found<'_>) -> Option<R> + Sync,
    ) -> Result<Walked<R>, NotesError>
    where
        R: Send,
    {
        let pattern = Pattern::parse(query.pattern.as_deref(), &self.identity)?;
        let scan = match &query.home {
            Some(spec) => Scan::One(self.home_for_query(spec)?),
            None => pattern.scan().clone(),
        };
        let mut unavailable = Vec::new();
        let root = match self.open_root() {
            Ok(Some(root)) => root,
            Ok(None) => return Ok(Walked::nothing(unavailable)),
            Err(_) => {
                // The notes home itself cannot be opened: every home it holds is unavailable.
                let labels = match &scan {
                    Scan::AllAgents => vec!["@agents".to_string()],
                    Scan::AllModels => vec!["@models".to_string()],
                    _ => self
                        .homes(None, &scan, &mut unavailable)
                        .iter()
                        .map(Home::label)
                        .collect(),
                };
                return Ok(Walked::nothing(labels));
            }
        };
        let homes = self.homes(Some(&root), &scan, &mut unavailable);
        let visited = walk::visit_notes(
            &root,
            &homes,
            listings,
            |location| pattern.matches(location),
            state,
            visit,
        );
        unavailable.extend(visited.failed.iter().map(|&i| homes[i].label()));
        let walked_homes = homes
            .iter()
            .enumerate()
            .filter(|(i, _)| !visited.failed.contains(i))
            .map(|(_, home)| home.components().join("/"))
            .collect();
        Ok(Walked {
            kept: visited.kept,
            unavailable,
            homes: walked_homes,
            listed: visited.listed,
        })
    }

    fn home_for_query(&self, spec: &HomeSpec) -> Result<Home, NotesError> {
        if let HomeSpec::Agent(Some(name)) | HomeSpec::Model(Some(name)) = spec {
            if !is_slug(name) {
                return Err(NotesError::InvalidScope(format!(
                    "who must be a canonical lowercase slug (got {name:?})"
                )));
            }
        }
        spec.resolve(&self.identity)
    }

    fn homes(&self, root: Option<&Dir>, scan: &Scan, unavailable: &mut Vec<String>) -> Vec<Home> {
        let who = &self.identity;
        match scan {
            Scan::Default => {
                let mut homes = Vec::new();
                if let Some(id) = &who.session_id {
                    homes.push(Home::Session(id.clone()));
                }
                homes.push(Home::Project(who.project_key.clone()));
                homes.push(Home::Human);
                homes.push(Home::Agent {
                    name: who.agent.clone(),
                    current: true,
                });
                homes.push(Home::Model {
                    name: who.model.clone(),
                    current: true,
                });
                homes
            }
            Scan::One(home) => vec![home.clone()],
            Scan::AllAgents => self.named_homes(root, "agents", unavailable, |name| Home::Agent {
                current: name == who.agent,
                name,
            }),
            Scan::AllModels => self.named_homes(root, "models", unavailable, |name| Home::Model {
                current: name == who.model,
                name,
            }),
        }
    }

    fn named_homes(
        &self,
        root: Option<&Dir>,
        namespace: &str,
        unavailable: &mut Vec<String>,
        make: impl Fn(String) -> Home,
    ) -> Vec<Home> {
        let Some(root) = root else {
            return Vec::new();
        };
        match walk::home_names(root, namespace) {
            Ok(names) => names.into_iter().map(make).collect(),
            Err(_) => {
                unavailable.push(format!("@{namespace}"));
                Vec::new()
            }
        }
    }

    /// A row for `list` from `known` when the note did not change since it was recorded, else
    /// read ([`Store::read_head`]), with what the record may keep of it (the record decides).
    fn list_row_cached(
        &self,
        known: &list_cache::Known<'_>,
        state: &mut list_cache::Lookup,
        found: walk::Found<'_>,
    ) -> Option<(Row, Option<list_cache::ReadNote>)> {
        let dir = found.dir.path();
        if let Some(recorded) = known.note(state, dir, found.name) {
            if let Some(stamp) = found.dir.stamp(found.name) {
                if stamp == recorded.stamp {
                    return Some((row_from_record(found.location, &stamp, recorded), None));
                }
            }
        }
        let head = self.read_head(&mut state.buffer, &found)?;
        let values = frontmatter::known_values(head.text);
        let note = list_cache::ReadNote {
            dir: dir.to_string(),
            name: found.name.to_string(),
            version: list_cache::Version {
                stamp: head.stamp,
                head_len: head.text.len() as u64,
                values: values
                    .iter()
                    .map(|value| value.clone().map(Cow::Owned))
                    .collect(),
            },
        };
        let modified = head.stamp.modified_time();
        let row = row_of_values(found.location, values, modified, head.body_bytes);
        Some((row, Some(note)))
    }

    /// A row for `list`: only the frontmatter is read and parsed, usually from the first KiB.
    fn list_row(&self, buffer: &mut Vec<u8>, found: walk::Found<'_>) -> Option<Row> {
        let head = self.read_head(buffer, &found)?;
        let modified = head.stamp.modified_time();
        Some(row(found.location, head.text, modified, head.body_bytes))
    }

    /// The frontmatter block of a note for `list`, read from its first KiB (the whole note only
    /// when the block goes on past it), with the note's stamp taken before it was read.
    fn read_head<'b>(&self, buffer: &'b mut Vec<u8>, found: &walk::Found<'_>) -> Option<Head<'b>> {
        let dir = found.dir.dir()?;
        let head_read = ReadLimit::Head { bytes: HEAD_BYTES };
        let mut read = files::read_into(dir, found.name, head_read, buffer).ok()??;
        let mut head = files::note_text(buffer, read.complete)
            .and_then(|text| frontmatter::head_len(text, read.complete));
        if head.is_none() {
            // The frontmatter goes on past the first KiB: read the whole note.
            let whole = ReadLimit::Whole {
                max_bytes: files::MAX_READ_BYTES,
            };
            read = files::read_into(dir, found.name, whole, buffer).ok()??;
            head = files::note_text(buffer, true)
                .map(|text| frontmatter::head_len(text, true).unwrap_or(0));
        }
        let head = head?;
        let text = files::note_text(buffer, read.complete)?;
        let body_bytes = usize::try_from(read.meta.len)
            .unwrap_or(usize::MAX)
            .saturating_sub(head);
        Some(Head {
            text: &text[..head],
            stamp: read.stamp,
            body_bytes,
        })
    }

    /// A row and its matching lines for `search`; `None` when nothing matches. The whole file
    /// is searched first, as bytes: most notes do not match, and those are never checked to be
    /// UTF-8 nor parsed.
    fn search_row(
        &self,
        buffer: &mut Vec<u8>,
        found: walk::Found<'_>,
        matcher: &LiteralMatcher,
    ) -> Option<SearchRow> {
        let whole = ReadLimit::Whole {
            max_bytes: files::MAX_READ_BYTES,
        };
        let read = files::read_into(found.dir.dir()?, found.name, whole, buffer).ok()??;
        if !matcher.is_match_bytes(buffer) {
            return None;
        }
        // A note that is not UTF-8 is skipped (read and edit refuse it).
        let text = files::note_text(buffer, true)?;
        let head = frontmatter::head_len(text, true).unwrap_or(0);
        let body = &text[head..];
        let matches = match_lines(matcher, body);
        if matches.is_empty() {
            return None;
        }
        let row = row(
            found.location,
            &text[..head],
            read.meta.modified,
            body.len(),
        );
        Some(SearchRow { row, matches })
    }
}

/// What a walk kept, the labels of the homes it could not read, the directories (below the
/// notes home) of those it read, and the directories it reached.
struct Walked<R> {
    kept: Vec<Vec<R>>,
    unavailable: Vec<String>,
    homes: Vec<String>,
    listed: Vec<walk::Listed>,
}

impl<R> Walked<R> {
    fn nothing(unavailable: Vec<String>) -> Walked<R> {
        Walked {
            kept: Vec::new(),
            unavailable,
            homes: Vec::new(),
            listed: Vec::new(),
        }
    }
}

/// A note's frontmatter block as `list` read it.
struct Head<'b> {
    text: &'b str,
    /// The note's stamp, taken before it was read.
    stamp: Stamp,
    body_bytes: usize,
}

/// Notes are read in full only when their frontmatter does not end within this many bytes
/// (a typical block is a few hundred bytes; reading less per file keeps `list` cheap).
const HEAD_BYTES: usize = 1024;

/// A listing row from a note's frontmatter block `head` (unlocked); missing times fall back to
/// the file's modification time.
fn row(location: Location, head: &str, modified: Option<SystemTime>, body_bytes: usize) -> Row {
    row_of_values(
        location,
        frontmatter::known_values(head),
        modified,
        body_bytes,
    )
}

/// The row of a note unchanged since `recorded` (its `stamp`), as [`row`] made it then.
fn row_from_record(location: Location, stamp: &Stamp, recorded: &list_cache::Version<'_>) -> Row {
    let mut values: [Option<String>; Key::ALL.len()] = Default::default();
    for (value, recorded) in values.iter_mut().zip(&recorded.values) {
        *value = recorded.as_deref().map(str::to_string);
    }
    let head_len = usize::try_from(recorded.head_len).unwrap_or(usize::MAX);
    let body_bytes = usize::try_from(stamp.len)
        .unwrap_or(usize::MAX)
        .saturating_sub(head_len);
    row_of_values(location, values, stamp.modified_time(), body_bytes)
}

/// A listing row from the values of the known keys of a note's frontmatter block.
fn row_of_values(
    location: Location,
    values: [Option<String>; Key::ALL.len()],
    modified: Option<SystemTime>,
    body_bytes: usize,
) -> Row {
    let fallback_at = modified.and_then(|m| Timestamp::try_from(m).ok());
    let meta = Meta::from_values(values, &|| {
        fallback_at.map_or_else(String::new, clock::local_iso)
    });
    let updated = clock::parse(&meta.updated_at)
        .or(fallback_at)
        .unwrap_or(Timestamp::UNIX_EPOCH);
    Row {
        location,
        meta,
        body_bytes,
        updated,
    }
}

/// Fills in the keys every note carries, with `fallback` for missing times.
/// How an edit is named in the history: a crumple or a smoothing without body edits is that.
fn edit_operation(request: &EditRequest) -> &'static str {
    match (request.edits.is_empty(), request.crumpled) {
        (true, Some(true)) => "crumple",
        (true, Some(false)) => "smooth",
        _ => "edit",
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

/// `true` crumples (keeping an earlier time), `false` smooths. Returns whether it changed.
fn set_crumpled(doc: &mut Document, crumpled: Option<bool>, now_iso: &str) -> bool {
    let was = doc.get(Key::CrumpledAt).is_some();
    match crumpled {
        Some(true) if !was => doc.set(Key::CrumpledAt, now_iso),
        Some(false) if was => doc.remove(Key::CrumpledAt),
        _ => return false,
    }
    true
}

/// Content supplied to `write` never carries its own frontmatter into the file.
fn strip_frontmatter(content: &str) -> String {
    let doc = Document::parse(content);
    if doc.has_frontmatter() {
        doc.body
    } else {
        content.to_string()
    }
}

fn apply_edits(
    doc: &Document,
    edits: &[Edit],
    replace_all: bool,
) -> Result<(String, usize), NotesError> {
    let mut body = doc.body.clone();
    let mut applied = 0;
    for (index, edit) in edits.iter().enumerate() {
        let no_match = |reason: &str| NotesError::NoMatch {
            edit_index: index,
            reason: reason.to_string(),
        };
        if edit.old_text.is_empty() {
            return Err(no_match("oldText must be a non-empty string"));
        }
        let starts: Vec<usize> = body
            .match_indices(&edit.old_text)
            .map(|(at, _)| at)
            .collect();
        if starts.is_empty() {
            return Err(if doc.frontmatter_text().contains(&edit.old_text) {
                no_match("oldText occurs only in the frontmatter; edits change the body (use origin or crumpled for metadata)")
            } else {
                no_match("oldText does not occur in the note body")
            });
        }
        if starts.len() > 1 && !replace_all {
            return Err(NotesError::AmbiguousEdit {
                edit_index: index,
                line_numbers: line_numbers(&body, &starts),
            });
        }
        let next = if replace_all {
            body.replace(&edit.old_text, &edit.new_text)
        } else {
            body.replacen(&edit.old_text, &edit.new_text, 1)
        };
        if next != body {
            applied += 1;
        }
        body = next;
    }
    Ok((body, applied))
}

/// 1-based line numbers of ascending byte offsets.
fn line_numbers(text: &str, starts: &[usize]) -> Vec<usize> {
    let mut numbers = Vec::with_capacity(starts.len());
    let (mut line, mut from) = (1, 0);
    for &start in starts {
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[from..start]).count();
        from = start;
        numbers.push(line);
    }
    numbers
}

fn matcher<S: AsRef<str>>(queries: &[S]) -> Result<LiteralMatcher, NotesError> {
    wire::check_queries(queries).map_err(|e| NotesError::InvalidQuery(e.to_string()))?;
    LiteralMatcher::new(queries)
        .map_err(|e| NotesError::InvalidQuery(format!("query cannot be compiled: {e}")))
}

/// One hit per matching line of `body`: its number, its text and where the earliest match on
/// it starts. The body is searched as a whole, jumping from each hit to the next line, so lines
/// without a match cost only the scan for the next one.
fn match_lines(matcher: &LiteralMatcher, body: &str) -> Vec<LineMatch> {
    if matcher.is_multiline() {
        return match_each_line(matcher, body);
    }
    let bytes = body.as_bytes();
    let mut matches = Vec::new();
    // Line number and code points before the start of the line at `counted`.
    let (mut line, mut chars_before, mut counted) = (1, 0, 0);
    let mut from = 0;
    while let Some(at) = matcher.find_at(body, from) {
        // No query holds a line feed, so the match lies within one line.
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        line += count_line_feeds(&bytes[counted..start]);
        chars_before += text::char_len(&body[counted..start]);
        counted = start;
        let column = text::char_len(&body[start..at]);
        let whole = &body[start..end];
        matches.push(LineMatch {
            line,
            text: whole.strip_suffix('\r').unwrap_or(whole).to_string(),
            offset_chars: chars_before + column,
            column_chars: column,
        });
        if end == bytes.len() {
            break;
        }
        from = end + 1;
    }
    matches
}

/// [`match_lines`] one line at a time, for queries that hold a line feed (which never match:
/// no line holds one).
fn match_each_line(matcher: &LiteralMatcher, body: &str) -> Vec<LineMatch> {
    let mut matches = Vec::new();
    let mut chars_before = 0;
    for (index, line) in body.split('\n').enumerate() {
        if let Some(at) = matcher.find(line) {
            let column = text::char_len(&line[..at]);
            matches.push(LineMatch {
                line: index + 1,
                text: line.strip_suffix('\r').unwrap_or(line).to_string(),
                offset_chars: chars_before + column,
                column_chars: column,
            });
        }
        chars_before += text::char_len(line) + 1;
    }
    matches
}

fn count_line_feeds(bytes: &[u8]) -> usize {
    text::count_byte(bytes, b'\n')
}

/// The rows shown (crumpled ones with `wastebasket`, live ones without), recent-first then by
/// address, and the count of the others. Rows are large and come in batches: the order is found
/// on small keys (the update time, then the address where times are equal), and each row is
/// moved once, into its place.
fn recent_first<T>(
    batches: Vec<Vec<T>>,
    wastebasket: bool,
    row: impl Fn(&T) -> &Row,
) -> (Vec<T>, usize) {
    let total: usize = batches.iter().map(Vec::len).sum();
    let mut order = Vec::with_capacity(total);
    for (b, batch) in batches.iter().enumerate() {
        for (i, item) in batch.iter().enumerate() {
            let item = row(item);
            if item.meta.crumpled_at.is_some() == wastebasket {
                order.push((Reverse(item.updated), b, i));
            }
        }
    }
    let excluded = total - order.len();
    order.sort_unstable_by_key(|&(updated, _, _)| updated);
    let address =
        |&(_, b, i): &(Reverse<Timestamp>, usize, usize)| row(&batches[b][i]).location.address();
    for same_time in order.chunk_by_mut(|a, b| a.0 == b.0) {
        if same_time.len() > 1 {
            same_time.sort_by_cached_key(address);
        }
    }
    let mut slots: Vec<Vec<Option<T>>> = batches
        .into_iter()
        .map(|batch| batch.into_iter().map(Some).collect())
        .collect();
    let mut sorted = Vec::with_capacity(order.len());
    sorted.extend(order.into_iter().filter_map(|(_, b, i)| slots[b][i].take()));
    (sorted, excluded)
}

#[cfg(test)]
mod tests {
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
        use super::super::{match_each_line, match_lines, matcher};
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
