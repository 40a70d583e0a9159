//! The one place where failures become messages, hints and exit codes.
//!
//! Library errors are typed; each `From` impl below decides the exit code and any hint. Output:
//! `error: <message>`, then `caused by: …` lines, then `hint: …` lines, on stderr.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use pi_context::history::HistoryError;
use pi_context::notes::NotesError;
use pi_context::recall::RecallError;
use pi_context::session::SessionError;

/// Exit statuses fixed by the contract.
pub mod exit {
    pub const SUCCESS: u8 = 0;
    /// `search` found nothing; `doctor` found issues; a dream failed.
    pub const NEGATIVE: u8 = 1;
    /// Usage or input error.
    pub const USAGE: u8 = 2;
    /// An I/O or environment failure (a session file that kept changing while it was read, an
    /// unusable session index).
    pub const IO: u8 = 74;
    /// The dream lock is held.
    pub const LOCKED: u8 = 75;
}

#[derive(Debug)]
pub struct CommandError {
    pub exit: u8,
    pub message: String,
    pub causes: Vec<String>,
    pub hints: Vec<String>,
}

impl CommandError {
    pub fn usage(message: impl Into<String>) -> Self {
        CommandError {
            exit: exit::USAGE,
            message: message.into(),
            causes: Vec::new(),
            hints: Vec::new(),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.causes.push(cause.to_string());
        self
    }

    /// An I/O failure on a named path.
    pub fn io(what: impl fmt::Display, err: io::Error) -> Self {
        CommandError::usage(what.to_string()).with_cause(err)
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
        let error = CommandError::usage(err.to_string());
        match hint {
            Some(h) => error.with_hint(h),
            None => error,
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
            SessionError::Changed { .. } => CommandError {
                exit: exit::IO,
                ..CommandError::usage(err.to_string())
            }
            .with_hint("it was rewritten during each of 3 attempts; run the command again"),
        }
    }
}

impl From<NotesError> for CommandError {
    /// Every notes refusal is an input error (exit 2); the hint says what to do instead.
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
            NotesError::Io { what, source } => CommandError::usage(what).with_cause(source),
            other => CommandError::usage(other.to_string()),
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
            RecallError::Io { what, source } => CommandError {
                exit: exit::IO,
                ..CommandError::usage(what).with_cause(source)
            },
            RecallError::Corrupt(_) | RecallError::Busy => CommandError {
                exit: exit::IO,
                ..CommandError::usage(err.to_string())
            }
            .with_hint("the index is a cache: removing <cache>/recall is always safe"),
        }
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

impl From<HistoryError> for Outcome {
    fn from(e: HistoryError) -> Self {
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
