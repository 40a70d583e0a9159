//! The notes store: markdown notes in five homes under one notes home (docs/notes.md).
//!
//! This module knows nothing about printing or the tool protocol. [`Store`] runs the five
//! operations for one [`Identity`]; addresses, patterns and the frontmatter codec are usable on
//! their own.

pub mod address;
pub mod clock;
mod committer;
mod edits;
mod error;
pub(crate) mod files;
pub mod frontmatter;
pub mod history;
pub mod identity;
mod list_cache;
pub mod lock;
pub mod migrate;
mod page;
mod pending;

pub mod revert;
mod store;
pub(crate) mod walk;

pub use address::{Address, Home, HomeSpec, Location, Pattern, MAX_PATH_BYTES};
pub use committer::{Committer, Reporter};
pub use edits::{edits_from_json, EditsShapeError};
pub use error::NotesError;
pub use history::{Log, LogEntry, NoteDiff, Recorded};
pub use identity::{model_slug, project_key, project_keys, slugify, Identity, ProjectKeys};
pub use page::{
    read_details, read_window, EditReceipt, ListFile, ListPage, LogPage, MoveReceipt, NotesPage,
    RestoreReceipt, SearchFile, SearchMatch, SearchPage, WriteReceipt, COUNTERS_KEY,
    MATCH_PREVIEW_CHARS,
};
pub use store::{
    Change, ChangeKind, Counters, Diff, Edit, EditRequest, EditResult, LineMatch, Listing, Meta,
    Note, Origin, Query, RestoreOutcome, RestoreResult, Row, SearchListing, SearchRow, Store,
    WriteOutcome, WriteResult, MAX_NOTE_BYTES,
};
