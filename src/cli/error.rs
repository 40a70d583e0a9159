//! The one place where failures become messages, hints and exit codes.
//!
//! A [`CommandError`] is what a command fails with: a [`Kind`], the error itself (kept typed,
//! with its `source()` chain) and hints. Each `From` impl below decides a library error's kind
//! and hints; [`Kind::exit`] alone turns a kind into an exit status. Printed on stderr:
//! `error: <the error>`, a `caused by: …` line for each error of its source chain, then
//! `hint: …` lines. A closed stdout pipe is a kind of its own ([`Kind::BrokenPipe`]): the run
//! ends quietly, with status 0. (The shape is jj's `cli/src/command_error.rs`.)

use std::error::Error;
use std::fmt;
use std::io::{self, Write};

use pi_context::boot::{BootError, Reason};
use pi_context::checkpoint::CheckpointError;
use pi_context::dream::undo::UndoError;
use pi_context::dream::DreamError;
use pi_context::environment::EnvironmentError;
use pi_context::history::HistoryError;
use pi_context::notes::NotesError;
use pi_context::recall::RecallError;
use pi_context::session::SessionError;
use pi_context::sync::SyncError;

/// Exit statuses of a run that did not fail (docs/architecture.md, "Errors and exit codes").
pub mod exit {
    pub const SUCCESS: u8 = 0;
    /// `search` found nothing; `doctor` found issues.
    pub const NEGATIVE: u8 = 1;
}

/// What kind of failure an error is; its exit status follows from it alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The work was done and failed (a dream that failed, a fetch that failed): 1.
    Failed,
    /// A usage or input error (a bad flag, address, seq or query): 2.
    Usage,
    /// A bug in pi-context: 70.
    Internal,
    /// The machine let us down: a full disk, an unreadable home, a file that kept changing, no
    /// notes home or cache directory: 74 (`EX_IOERR`).
    Io,
    /// A lock another process holds (a dream, a sync): 75.
    Locked,
    /// Stdout was closed (`| head`): the reader has what it wanted, so the run ends quietly: 0.
    BrokenPipe,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Failed,
        Kind::Usage,
        Kind::Internal,
        Kind::Io,
        Kind::Locked,
        Kind::BrokenPipe,
    ];

    /// The one place exit statuses are decided.
    pub fn exit(self) -> u8 {
        match self {
            Kind::Failed => 1,
            Kind::Usage => 2,
            Kind::Internal => 70,
            Kind::Io => 74,
            Kind::Locked => 75,
            Kind::BrokenPipe => exit::SUCCESS,
        }
    }

    /// When a run ends with this kind, as the exit-status table of `--help` says it.
    fn when(self) -> &'static str {
        match self {
            Kind::Failed => "the work was done and failed: a dream, a sync's fetch or push (nothing lost)",
            Kind::Usage => "a usage or input error: a bad flag, address, seq, query or request",
            Kind::Internal => "an internal error (a bug in pi-context; the message asks for a report)",
            Kind::Io => "an I/O or environment failure: a full disk, an unreadable or unwritable home, no notes home, a session file that kept changing, an unusable index",
            Kind::Locked => "a lock another process holds: a dream or a notes sync is running",
            Kind::BrokenPipe => "stdout closed early (`| head`), which ends the run quietly",
        }
    }
}

/// The exit-status table `--help` and the man page end with, from [`Kind::exit`] (laid out as
/// the environment variables before it).
pub fn exit_status_help() -> String {
    let mut rows = vec![
        (
            exit::SUCCESS,
            "success (search: at least one hit; dream: ran, planned or skipped by a gate)",
        ),
        (
            exit::NEGATIVE,
            "a negative answer: search found nothing, doctor found issues",
        ),
    ];
    rows.extend(Kind::ALL.iter().map(|kind| (kind.exit(), kind.when())));
    rows.sort_by_key(|&(status, _)| status);
    let mut text = String::from("Exit status:\n");
    for (i, &(status, when)) in rows.iter().enumerate() {
        if i == 0 || rows[i - 1].0 != status {
            text.push_str(&format!("  {status}\n          {when}"));
        } else {
            text.push_str(&format!("; {when}"));
        }
        if rows.get(i + 1).is_none_or(|next| next.0 != status) {
            text.push('\n');
        }
    }
    text
}

/// Any error, kept as it is.
pub type BoxError = Box<dyn Error + Send + Sync + 'static>;

/// A failed command: what kind of failure, the error itself, and what to do about it.
#[derive(Debug)]
pub struct CommandError {
    kind: Kind,
    error: BoxError,
    hints: Vec<String>,
}

/// The hint every internal error carries.
pub const BUG_HINT: &str =
    "this is a bug in pi-context; please report it with the command you ran and this message";

impl CommandError {
    /// `error` is a typed error (its `source()` chain is printed) or a message.
    pub fn new(kind: Kind, error: impl Into<BoxError>) -> Self {
        let error = CommandError {
            kind,
            error: error.into(),
            hints: Vec::new(),
        };
        if kind == Kind::Internal {
            error.with_hint(BUG_HINT)
        } else {
            error
        }
    }

    /// A message of the CLI's own, caused by `source` (printed as `caused by:`).
    pub fn caused(kind: Kind, message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        CommandError::new(
            kind,
            Because {
                message: message.into(),
                source: source.into(),
            },
        )
    }

    pub fn usage(message: impl Into<BoxError>) -> Self {
        CommandError::new(Kind::Usage, message)
    }

    /// An I/O failure on something named in `what`.
    pub fn io(what: impl fmt::Display, err: io::Error) -> Self {
        CommandError::caused(Kind::Io, what.to_string(), err)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// Each of `hints` (an `Option` gives none or one).
    pub fn with_hints(self, hints: impl IntoIterator<Item = impl Into<String>>) -> Self {
        hints.into_iter().fold(self, CommandError::with_hint)
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn exit(&self) -> u8 {
        self.kind.exit()
    }

    /// The message, then each error of the source chain that its predecessor's message does not
    /// already end with: a library error's message is one line for the tool protocol, so it
    /// often ends with its source's (`cannot read X: No such file or directory`).
    fn lines(&self) -> (String, Vec<String>) {
        let message = self.error.to_string();
        let mut causes: Vec<String> = Vec::new();
        let mut source = self.error.source();
        while let Some(error) = source {
            let text = error.to_string();
            let said = causes.last().unwrap_or(&message);
            if !said.ends_with(&text) {
                causes.push(text);
            }
            source = error.source();
        }
        (message, causes)
    }

    pub fn print(&self, stderr: &mut dyn Write, color: bool) {
        use owo_colors::OwoColorize;
        let label = |text: &str, style: fn(&str) -> String| {
            if color {
                style(text)
            } else {
                text.to_string()
            }
        };
        let (message, causes) = self.lines();
        let _ = writeln!(
            stderr,
            "{} {message}",
            label("error:", |t| t.red().bold().to_string()),
        );
        for cause in &causes {
            let _ = writeln!(
                stderr,
                "{} {cause}",
                label("caused by:", |t| t.yellow().to_string())
            );
        }
        for hint in &self.hints {
            let _ = writeln!(
                stderr,
                "{} {hint}",
                label("hint:", |t| t.cyan().to_string())
            );
        }
    }
}

/// A message of the CLI's own whose cause is another error, kept as its source.
#[derive(Debug)]
struct Because {
    message: String,
    source: BoxError,
}

impl fmt::Display for Because {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for Because {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.source)
    }
}

/// An I/O error a command meets with `?` is one of writing its output: a closed pipe ends the
/// run quietly, anything else is a failure. (Reading fails with its own message, through
/// [`CommandError::io`].)
impl From<io::Error> for CommandError {
    fn from(err: io::Error) -> Self {
        if err.kind() == io::ErrorKind::BrokenPipe {
            CommandError::new(Kind::BrokenPipe, err)
        } else {
            CommandError::io("cannot write output", err)
        }
    }
}

impl From<HistoryError> for CommandError {
    /// A history refusal is bad input (exit 2), unless the session file could not be read.
    fn from(err: HistoryError) -> Self {
        let hint = match &err {
            HistoryError::Session(_) => None,
            HistoryError::UnknownWindow { .. } => {
                Some("`pi-context history windows` lists the window ids")
            }
            HistoryError::NotOnBranch { .. } => Some("pass --leaf <id> to read another branch"),
            HistoryError::UnknownLeaf(_) => {
                Some("--leaf takes an entry id of this session, or `none`")
            }
            HistoryError::UnknownSeq { .. }
            | HistoryError::NoEvent { .. }
            | HistoryError::InvalidOffset { .. }
            | HistoryError::InvalidQuery(_)
            | HistoryError::InvalidParams(_)
            | HistoryError::OutputTooLarge { .. } => None,
        };
        match err {
            HistoryError::Session(e) => e.into(),
            other => CommandError::usage(other).with_hints(hint),
        }
    }
}

impl From<CheckpointError> for CommandError {
    fn from(err: CheckpointError) -> Self {
        match err {
            CheckpointError::History(e) => e.into(),
            other => CommandError::usage(other),
        }
    }
}

impl From<SessionError> for CommandError {
    fn from(err: SessionError) -> Self {
        match err {
            SessionError::Io { path, source } => CommandError::io(
                format!("cannot read session file {}", path.display()),
                source,
            ),
            SessionError::NotAFile { .. } => {
                CommandError::usage(err).with_hint("--session takes a Pi session JSONL file")
            }
            SessionError::Changed { .. } => CommandError::new(Kind::Io, err)
                .with_hint("it was rewritten during each of 3 attempts; run the command again"),
        }
    }
}

impl From<NotesError> for CommandError {
    /// A notes refusal is an input error (exit 2; the hint says what to do instead); an I/O
    /// failure or an unusable notes history is 74, an internal one 70.
    fn from(err: NotesError) -> Self {
        let hint = match &err {
            NotesError::NotFound { .. } => Some("`pi-context notes list` shows the notes that exist"),
            NotesError::AmbiguousEdit { .. } => {
                Some("include more surrounding text in --old so it matches once, or pass --replace-all")
            }
            NotesError::NoMatch { .. } => Some("`pi-context notes read ADDRESS` shows the current body"),
            NotesError::NothingToDo => Some("pass --old/--new pairs, --edits, --origin, --crumple or --smooth"),
            NotesError::InvalidAddress { .. } => {
                Some("addresses look like `todo`, `@project/plan`, `@human/prefs`, `@self/scratch` or `@model/tips`")
            }
            NotesError::InvalidOffset { .. } => Some("a negative --offset counts from the end of the body"),
            _ => None,
        };
        let kind = match &err {
            NotesError::Io { .. } | NotesError::History(_) => Kind::Io,
            NotesError::Internal(_) => Kind::Internal,
            NotesError::NotFound { .. }
            | NotesError::AlreadyExists(_)
            | NotesError::AmbiguousEdit { .. }
            | NotesError::NoMatch { .. }
            | NotesError::NothingToDo
            | NotesError::NothingToMove(_)
            | NotesError::PathTooLarge { .. }
            | NotesError::NoteTooLarge { .. }
            | NotesError::FileTooLarge { .. }
            | NotesError::InvalidScope(_)
            | NotesError::InvalidOrigin(_)
            | NotesError::InvalidAddress { .. }
            | NotesError::InvalidPattern(_)
            | NotesError::InvalidQuery(_)
            | NotesError::InvalidOffset { .. }
            | NotesError::InvalidRevision(_)
            | NotesError::OutputTooLarge(_) => Kind::Usage,
        };
        let error = match err {
            NotesError::Io { what, source } => CommandError::io(what, source),
            other => CommandError::new(kind, other),
        };
        error.with_hints(hint)
    }
}

impl From<RecallError> for CommandError {
    fn from(err: RecallError) -> Self {
        match err {
            RecallError::AmbiguousSession { ref candidates, .. } => {
                let hints: Vec<String> = candidates
                    .iter()
                    .map(|candidate| format!("candidate: {candidate}"))
                    .collect();
                CommandError::usage(err).with_hints(hints)
            }
            RecallError::UnknownSession { .. } => CommandError::usage(err)
                .with_hint("`pi-context sessions list --all` shows the sessions and their ids"),
            RecallError::InvalidQuery(_) | RecallError::InvalidParams(_) => {
                CommandError::usage(err)
            }
            RecallError::Io { what, source } => CommandError::io(what, source),
            RecallError::Corrupt(_) | RecallError::Busy => CommandError::new(Kind::Io, err)
                .with_hint("the index is a cache: removing <cache>/recall is always safe"),
        }
    }
}

impl From<EnvironmentError> for CommandError {
    fn from(err: EnvironmentError) -> Self {
        match err {
            EnvironmentError::Identity(e) => e.into(),
            EnvironmentError::BadClock { .. } => CommandError::usage(err),
            EnvironmentError::NoCwd(source) => {
                CommandError::io("cannot read the current directory", source)
            }
            EnvironmentError::NoNotesHome | EnvironmentError::NoCacheDir => {
                CommandError::new(Kind::Io, err)
            }
        }
    }
}

impl From<DreamError> for CommandError {
    fn from(err: DreamError) -> Self {
        let err = match err {
            DreamError::Environment(e) => return e.into(),
            other => other,
        };
        let kind = match &err {
            // The repository is the environment the dream runs in: not usable as it is.
            DreamError::Home { .. } | DreamError::Lock { .. } | DreamError::Repository(_) => {
                Kind::Io
            }
            // A dream whose baseline failed is a failed dream (docs/dream.md, "The pipeline").
            DreamError::Baseline(_) => Kind::Failed,
            DreamError::Playbook { .. } | DreamError::InvalidOption(_) => Kind::Usage,
            DreamError::Environment(_) => Kind::Io,
        };
        let hint = err.hint();
        CommandError::new(kind, err).with_hints(hint)
    }
}

impl From<UndoError> for CommandError {
    fn from(err: UndoError) -> Self {
        match err {
            UndoError::Notes(e) => e.into(),
            UndoError::Lock(source) => CommandError::io("cannot take the dream lock", source),
            UndoError::Locked => CommandError::new(Kind::Locked, err)
                .with_hint("wait for the dream or the sync to finish; `pi-context dream doctor` tells a live dream lock from a stale one"),
            UndoError::Conflicts { .. } => CommandError::new(Kind::Failed, err)
                .with_hint("`pi-context notes diff ADDRESS` shows each later change; --force keeps both versions in each note, between conflict markers"),
            UndoError::NoDream | UndoError::UnknownDream(_) => CommandError::new(Kind::Failed, err)
                .with_hint("`pi-context notes log` lists the dreams (their commits are `dream <stamp>`)"),
            UndoError::AlreadyUndone { .. } => CommandError::new(Kind::Failed, err)
                .with_hint("name an earlier dream: pi-context dream undo <stamp>"),
        }
    }
}

impl From<SyncError> for CommandError {
    /// 75 for a lock another run holds, 2 without a (valid) remote, 1 when git failed or the
    /// remote kept moving (nothing lost), 74 when the home or its repository cannot be used.
    fn from(err: SyncError) -> Self {
        let hint = err.hint();
        let error = match err {
            SyncError::Locked { .. } | SyncError::RemoteLocked { .. } => {
                CommandError::new(Kind::Locked, err)
            }
            SyncError::NoRemote | SyncError::InvalidRemote(_) | SyncError::AmbiguousRemote(_) => {
                CommandError::usage(err)
            }
            SyncError::Fetch { remote, source } => CommandError::caused(
                Kind::Failed,
                format!("cannot fetch from {remote}; nothing was lost"),
                source,
            ),
            SyncError::Push { remote, source } => CommandError::caused(
                Kind::Failed,
                format!("cannot push to {remote}; nothing was lost"),
                source,
            ),
            SyncError::Contended { .. } | SyncError::Busy(_) => {
                CommandError::new(Kind::Failed, err)
            }
            SyncError::Notes(NotesError::Internal(_)) => CommandError::new(Kind::Internal, err),
            SyncError::Notes(NotesError::Io { what, source }) => CommandError::io(what, source),
            SyncError::Repository(_) | SyncError::Notes(_) | SyncError::Lock { .. } => {
                CommandError::new(Kind::Io, err)
            }
        };
        error.with_hints(hint)
    }
}

impl From<BootError> for CommandError {
    fn from(err: BootError) -> Self {
        match err {
            BootError::Environment(e) => e.into(),
            BootError::UnknownReason(_) => {
                CommandError::usage(err).with_hint(format!("reasons: {}", Reason::NAMES.join(", ")))
            }
            BootError::Malformed(_) => CommandError::usage(err)
                .with_hint("see `pi-context boot --help` for the request's fields"),
            BootError::SnapshotTime { .. } | BootError::Empty(_) => CommandError::usage(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(error: &CommandError) -> String {
        let mut printed = Vec::new();
        error.print(&mut printed, false);
        String::from_utf8(printed).unwrap()
    }

    #[test]
    fn each_kind_has_its_documented_exit_status() {
        let statuses: Vec<u8> = Kind::ALL.iter().map(|kind| kind.exit()).collect();
        assert_eq!(statuses, [1, 2, 70, 74, 75, 0]);
    }

    #[test]
    fn the_exit_status_table_names_every_kinds_status() {
        let table = exit_status_help();
        for kind in Kind::ALL {
            let status = format!("\n  {}\n", kind.exit());
            let at = table.find(&status).expect("its status");
            let row = &table[at + status.len()..];
            let row = &row[..row.find('\n').unwrap_or(row.len())];
            assert!(row.contains(kind.when()), "{kind:?} in\n{table}");
        }
    }

    #[test]
    fn an_internal_error_exits_70_and_asks_for_a_bug_report() {
        let error = CommandError::new(Kind::Internal, "internal error: boom");
        assert_eq!(error.exit(), 70);
        let printed = printed(&error);
        assert!(
            printed.starts_with("error: internal error: boom"),
            "{printed}"
        );
        assert!(printed.contains(&format!("hint: {BUG_HINT}")), "{printed}");
    }

    #[test]
    fn a_closed_pipe_is_its_own_kind_and_ends_with_success() {
        let error = CommandError::from(io::Error::from(io::ErrorKind::BrokenPipe));
        assert_eq!(error.kind(), Kind::BrokenPipe);
        assert_eq!(error.exit(), exit::SUCCESS);
        let error = CommandError::from(io::Error::from(io::ErrorKind::StorageFull));
        assert_eq!((error.kind(), error.exit()), (Kind::Io, 74));
        assert!(printed(&error).starts_with("error: cannot write output\ncaused by: "));
    }

    /// An error that says `message` and was caused by `source`.
    #[derive(Debug)]
    struct Layer {
        message: &'static str,
        source: Option<Box<Layer>>,
    }

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.message)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.source.as_deref().map(|s| s as &(dyn Error + 'static))
        }
    }

    fn layers(messages: &[&'static str]) -> Option<Box<Layer>> {
        messages.split_first().map(|(message, rest)| {
            Box::new(Layer {
                message,
                source: layers(rest),
            })
        })
    }

    #[test]
    fn the_whole_source_chain_is_printed_then_the_hints() {
        let error = CommandError::new(Kind::Failed, *layers(&["top", "middle", "bottom"]).unwrap())
            .with_hint("try again");
        assert_eq!(
            printed(&error),
            "error: top\ncaused by: middle\ncaused by: bottom\nhint: try again\n"
        );
    }

    #[test]
    fn a_source_the_line_before_already_ends_with_is_not_repeated() {
        let chain = layers(&[
            "cannot use the home",
            "cannot open x: gone: no such file",
            "gone: no such file",
            "no such file",
        ]);
        let error = CommandError::new(Kind::Io, *chain.unwrap());
        assert_eq!(
            printed(&error),
            "error: cannot use the home\ncaused by: cannot open x: gone: no such file\n"
        );
        let io = io::Error::new(io::ErrorKind::NotFound, "no such file");
        let error = CommandError::caused(Kind::Io, "cannot open x", io);
        assert_eq!(
            printed(&error),
            "error: cannot open x\ncaused by: no such file\n"
        );
    }
}
