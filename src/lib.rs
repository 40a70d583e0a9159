//! pi-context: durable memory for coding agents (Pi, Claude Code, Codex).
//!
//! The library holds everything that is not printing; the `pi-context` binary adds the command
//! line, the printers and the tool protocol on top. Its modules, each one capability:
//!
//! - [`beneath`]: files below a directory handle, reached one `openat` at a time, never through
//!   a link.
//! - [`boot`]: the boot block at the head of every context window, and the boot request.
//! - `cachefile` (inside the crate): cache files (a framed payload, read or mapped behind the
//!   SIGBUS guard) and the one atomic save, synced or not as the file needs.
//! - [`checkpoint`]: the task-state handoff: its fields, the branch's applicable checkpoint, its
//!   rendering.
//! - [`clock`]: the process's clock (`PI_CONTEXT_NOW`), spans like `30d`, relative ages.
//! - [`dream`]: consolidating the notes store with a dreamer agent, `dream doctor` and
//!   `dream undo`.
//! - [`environment`]: the one resolver of every default (notes home, session, project, clock,
//!   cache, Pi's agent dir and settings, session roots).
//! - [`history`]: a session's branch as context windows and `user` / `assistant` / `tool` /
//!   `context` events: windows, list, search, read.
//! - [`home`]: the notes home as a versioned directory: its fixed names, its git repository, the
//!   run lock, the dream's journal, snapshot and audit.
//! - [`notes`]: the notes store: addresses, the frontmatter codec, write, edit, move, read, list,
//!   search and history.
//! - [`project`]: the project key of a directory, from its `origin` remote or its path.
//! - [`readwindow`]: the READ WINDOW block shared by history and notes reads.
//! - [`recall`]: every past session: discovery, the full-text index, refresh and ranked search.
//! - [`redact`]: secrets masked (length-preserving) before text is indexed or shown from
//!   another session.
//! - [`session`]: reading a session file of Pi, Claude Code, Codex or Gemini CLI (guarded map, tolerant
//!   parser, on-disk index).
//! - [`settings`]: pi-context's keys in Pi's settings files.
//! - [`sync`]: `notes sync`, the notes home's history exchanged with a git remote.
//! - [`text`]: code-point helpers, slugs and the case-insensitive literal matcher.
//! - [`wire`]: the limits of the tool protocol (the result budget, preview and read defaults).

#![deny(unsafe_code)]

pub mod beneath;
pub mod boot;
mod cachefile;
pub mod checkpoint;
pub mod clock;
pub mod dream;
pub mod environment;
pub mod history;
pub mod home;
pub mod notes;
pub mod project;
pub mod push;
pub mod readwindow;
pub mod recall;
pub mod redact;
pub mod session;
pub mod settings;
pub mod setup;
pub mod sidefile;
pub mod sync;
pub mod text;
pub mod wire;
