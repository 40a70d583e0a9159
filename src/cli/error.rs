//! The one place where failures become messages, hints and exit codes.
//!
//! Library errors are typed; each `From` impl below decides the error's [`Kind`] and any hint,
//! and [`Kind::exit`] alone turns a kind into an exit status. Output: `error: <message>`, then
//! `caused by: …` lines, then `hint: …` lines, on stderr.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use pi_context::boot::{BootError, Reason};
use pi_context::checkpoint::CheckpointError;
use pi_context::dream::undo::UndoError;
use pi_context::dream::DreamError;
use pi_context::environment::EnvironmentError;
use pi_context::history::HistoryError;
use pi_context::home::repo::RepositoryError;
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
    /// The work was done and failed (a dream that failed): 1.
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
}

impl Kind {
    /// The one place exit statuses are decided.
    pub fn exit(self) -> u8 {
        match self {
            Kind::Failed => 1,
            Kind::Usage => 2,
            Kind::Internal => 70,
            Kind::Io => 74,
            Kind::Locked => 75,
        }
    }
}

#[derive(Debug)]
pub struct CommandError {
    pub kind: Kind,
    pub message: String,
    pub causes: Vec<String>,
    pub hints: Vec<String>,
}

/// The hint every internal error carries.
pub const BUG_HINT: &str =
    "this is a bug in pi-context; please report it with the command you ran and this message";

impl CommandError {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        let error = CommandError {
            kind,
            message: message.into(),
            causes: Vec::new(),
            hints: Vec::new(),
        };
        if kind == Kind::Internal {
            error.with_hint(BUG_HINT)
        } else {
            error
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        CommandError::new(Kind::Usage, message)
    }

    /// An I/O failure on something named in `what`.
    pub fn io(what: impl fmt::Display, err: io::Error) -> Self {
        CommandError::new(Kind::Io, what.to_string()).with_cause(err)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.causes.push(cause.to_string());
        self
    }

    pub fn exit(&self) -> u8 {
        self.kind.exit()
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
        let _ = writeln!(
            stderr,
            "{} {}",
            label("error:", |t| t.red().bold().to_string()),
            self.message
        );
        for cause in &self.causes {
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

/// The kind of a library error with a stable code: `io_error` and `internal_error` are not the
/// caller's fault; every other code is bad input.
fn kind_of_code(code: &str) -> Kind {
    match code {
        "io_error" | "history_error" => Kind::Io,
        "internal_error" => Kind::Internal,
        _ => Kind::Usage,
    }
}

impl From<HistoryError> for CommandError {
    fn from(err: HistoryError) -> Self {
        let err = match err {
            HistoryError::Session(e) => return e.into(),
            other => other,
        };
        let hint = match &err {
            HistoryError::UnknownWindow { .. } => {
                Some("`pi-context history windows` lists the window ids")
            }
            HistoryError::NotOnBranch { .. } => Some("pass --leaf <id> to read another branch"),
            HistoryError::UnknownLeaf(_) => {
                Some("--leaf takes an entry id of this session, or `none`")
            }
            _ => None,
        };
        let error = CommandError::new(kind_of_code(err.code()), err.to_string());
        match hint {
            Some(h) => error.with_hint(h),
            None => error,
        }
    }
}

impl From<CheckpointError> for CommandError {
    fn from(err: CheckpointError) -> Self {
        match err {
            CheckpointError::History(e) => e.into(),
            other => CommandError::usage(other.to_string()),
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
            SessionError::NotAFile { .. } => CommandError::usage(err.to_string())
                .with_hint("--session takes a Pi session JSONL file"),
            SessionError::Changed { .. } => CommandError::new(Kind::Io, err.to_string())
                .with_hint("it was rewritten during each of 3 attempts; run the command again"),
        }
    }
}

impl From<NotesError> for CommandError {
    /// A notes refusal is an input error (exit 2; the hint says what to do instead); an I/O
    /// failure is 74, an internal one 70.
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
        let error = match err {
            NotesError::Io { what, source } => CommandError::io(what, source),
            other => CommandError::new(kind_of_code(other.code()), other.to_string()),
        };
        match hint {
            Some(h) => error.with_hint(h),
            None => error,
        }
    }
}

impl From<RecallError> for CommandError {
    fn from(err: RecallError) -> Self {
        match err {
            RecallError::AmbiguousSession { ref candidates, .. } => {
                let mut error = CommandError::usage(err.to_string());
                for candidate in candidates {
                    error = error.with_hint(format!("candidate: {candidate}"));
                }
                error
            }
            RecallError::UnknownSession { .. } => CommandError::usage(err.to_string())
                .with_hint("`pi-context sessions list --all` shows the sessions and their ids"),
            RecallError::InvalidQuery(_) | RecallError::InvalidParams(_) => {
                CommandError::usage(err.to_string())
            }
            RecallError::Io { what, source } => CommandError::io(what, source),
            RecallError::Corrupt(_) | RecallError::Busy => {
                CommandError::new(Kind::Io, err.to_string())
                    .with_hint("the index is a cache: removing <cache>/recall is always safe")
            }
        }
    }
}

impl From<EnvironmentError> for CommandError {
    fn from(err: EnvironmentError) -> Self {
        match err {
            EnvironmentError::Identity(e) => e.into(),
            EnvironmentError::BadClock { .. } => CommandError::usage(err.to_string()),
            EnvironmentError::NoCwd(source) => {
                CommandError::io("cannot read the current directory", source)
            }
            EnvironmentError::NoNotesHome | EnvironmentError::NoCacheDir => {
                CommandError::new(Kind::Io, err.to_string())
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
            DreamError::Home { .. } | DreamError::Lock { .. } => Kind::Io,
            // The repository is the environment the dream runs in: not usable as it is.
            DreamError::Repository(RepositoryError::Refused { .. }) => Kind::Io,
            DreamError::Repository(_) => Kind::Io,
            // A dream whose baseline failed is a failed dream (docs/dream.md, "The pipeline").
            DreamError::Baseline(_) => Kind::Failed,
            DreamError::Playbook { .. } | DreamError::InvalidOption(_) => Kind::Usage,
            DreamError::Environment(_) => Kind::Io,
        };
        let mut error = CommandError::new(kind, err.to_string());
        if let Some(source) = std::error::Error::source(&err) {
            error = error.with_cause(source);
        }
        match err.hint() {
            Some(hint) => error.with_hint(hint),
            None => error,
        }
    }
}

impl From<UndoError> for CommandError {
    fn from(err: UndoError) -> Self {
        match err {
            UndoError::Notes(e) => e.into(),
            UndoError::Lock(source) => CommandError::io("cannot take the dream lock", source),
            UndoError::Locked => CommandError::new(Kind::Locked, err.to_string())
                .with_hint("wait for the dream or the sync to finish; `pi-context dream doctor` tells a live dream lock from a stale one"),
            UndoError::Conflicts { .. } => CommandError::new(Kind::Failed, err.to_string())
                .with_hint("`pi-context notes diff ADDRESS` shows each later change; --force keeps both versions in each note, between conflict markers"),
            UndoError::NoDream | UndoError::UnknownDream(_) => CommandError::new(Kind::Failed, err.to_string())
                .with_hint("`pi-context notes log` lists the dreams (their commits are `dream <stamp>`)"),
            UndoError::AlreadyUndone { .. } => CommandError::new(Kind::Failed, err.to_string())
                .with_hint("name an earlier dream: pi-context dream undo <stamp>"),
        }
    }
}

impl From<UndoError> for Outcome {
    fn from(e: UndoError) -> Self {
        Outcome::Failed(e.into())
    }
}

impl From<SyncError> for CommandError {
    /// 75 for a lock another run holds, 2 without a (valid) remote, 1 when git failed or the
    /// remote kept moving (nothing lost), 74 when the home or its repository cannot be used.
    fn from(err: SyncError) -> Self {
        let hint = err.hint();
        let error = match err {
            SyncError::Locked { .. } | SyncError::RemoteLocked { .. } => {
                CommandError::new(Kind::Locked, err.to_string())
            }
            SyncError::NoRemote | SyncError::InvalidRemote(_) | SyncError::AmbiguousRemote(_) => {
                CommandError::usage(err.to_string())
            }
            SyncError::Fetch {
                ref remote,
                ref source,
            }
            | SyncError::Push {
                ref remote,
                ref source,
            } => {
                let what = if matches!(err, SyncError::Fetch { .. }) {
                    "fetch from"
                } else {
                    "push to"
                };
                CommandError::new(
                    Kind::Failed,
                    format!("cannot {what} {remote}; nothing was lost"),
                )
                .with_cause(format!("{}: {}", source.command, source.message))
            }
            SyncError::Contended { .. } | SyncError::Busy(_) => {
                CommandError::new(Kind::Failed, err.to_string())
            }
            SyncError::Notes(NotesError::Internal(_)) => {
                CommandError::new(Kind::Internal, err.to_string())
            }
            SyncError::Notes(NotesError::Io { what, source }) => CommandError::io(what, source),
            SyncError::Repository(_) | SyncError::Notes(_) => {
                CommandError::new(Kind::Io, err.to_string())
            }
            SyncError::Lock { .. } => CommandError::new(Kind::Io, err.to_string()),
        };
        match hint {
            Some(hint) => error.with_hint(hint),
            None => error,
        }
    }
}

impl From<SyncError> for Outcome {
    fn from(e: SyncError) -> Self {
        Outcome::Failed(e.into())
    }
}

impl From<BootError> for CommandError {
    fn from(err: BootError) -> Self {
        match err {
            BootError::Environment(e) => e.into(),
            BootError::UnknownReason(_) => CommandError::usage(err.to_string())
                .with_hint(format!("reasons: {}", Reason::NAMES.join(", "))),
            BootError::Malformed(ref source) => CommandError::usage(err.to_string())
                .with_cause(source)
                .with_hint("see `pi-context boot --help` for the request's fields"),
            BootError::SnapshotTime { ref source, .. } => {
                CommandError::usage(err.to_string()).with_cause(source)
            }
            BootError::Empty(_) => CommandError::usage(err.to_string()),
        }
    }
}

impl From<BootError> for Outcome {
    fn from(e: BootError) -> Self {
        Outcome::Failed(e.into())
    }
}

impl From<RecallError> for Outcome {
    fn from(e: RecallError) -> Self {
        Outcome::Failed(e.into())
    }
}

/// Output failed: a closed pipe ends quietly, anything else is an error.
pub enum Outcome {
    Exit(u8),
    Failed(CommandError),
}

impl From<CommandError> for Outcome {
    fn from(e: CommandError) -> Self {
        Outcome::Failed(e)
    }
}

impl From<io::Error> for Outcome {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Outcome::Exit(exit::SUCCESS)
        } else {
            Outcome::Failed(CommandError::io("cannot write output", e))
        }
    }
}

impl From<EnvironmentError> for Outcome {
    fn from(e: EnvironmentError) -> Self {
        Outcome::Failed(e.into())
    }
}

impl From<DreamError> for Outcome {
    fn from(e: DreamError) -> Self {
        Outcome::Failed(e.into())
    }
}

impl From<HistoryError> for Outcome {
    fn from(e: HistoryError) -> Self {
        Outcome::Failed(e.into())
    }
}

impl From<CheckpointError> for Outcome {
    fn from(e: CheckpointError) -> Self {
        Outcome::Failed(e.into())
    }
}

impl From<NotesError> for Outcome {
    fn from(e: NotesError) -> Self {
        Outcome::Failed(e.into())
    }
}

pub fn exit_code(code: u8) -> ExitCode {
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_documented_exit_status() {
        let statuses: Vec<u8> = [
            Kind::Failed,
            Kind::Usage,
            Kind::Internal,
            Kind::Io,
            Kind::Locked,
        ]
        .iter()
        .map(|kind| kind.exit())
        .collect();
        assert_eq!(statuses, [1, 2, 70, 74, 75]);
    }

    #[test]
    fn an_internal_error_exits_70_and_asks_for_a_bug_report() {
        let error = CommandError::new(Kind::Internal, "internal error: boom");
        assert_eq!(error.exit(), 70);
        let mut printed = Vec::new();
        error.print(&mut printed, false);
        let printed = String::from_utf8(printed).unwrap();
        assert!(
            printed.starts_with("error: internal error: boom"),
            "{printed}"
        );
        assert!(printed.contains(&format!("hint: {BUG_HINT}")), "{printed}");
    }

    #[test]
    fn library_codes_map_to_kinds_in_one_place() {
        assert_eq!(kind_of_code("internal_error"), Kind::Internal);
        assert_eq!(kind_of_code("io_error"), Kind::Io);
        assert_eq!(kind_of_code("history_error"), Kind::Io);
        assert_eq!(kind_of_code("not_found"), Kind::Usage);
        assert_eq!(kind_of_code("invalid_address"), Kind::Usage);
    }
}
