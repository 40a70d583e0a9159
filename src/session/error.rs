use std::io;
use std::path::PathBuf;

/// Why a session file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The file could not be opened or examined.
    #[error("cannot read session file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The path names a directory, FIFO, socket or device: reading one could block forever or
    /// never end, so only regular files are sessions.
    #[error("session file {} is {kind}, not a regular file", path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    /// The file was rewritten in place (or shrank) while it was read, on every attempt.
    #[error(
        "the session file {} changed while it was read (rewritten in place); try again",
        path.display()
    )]
    Changed { path: PathBuf },
}

impl SessionError {
    /// The stable code of the refusal on the wire.
    pub fn code(&self) -> &'static str {
        match self {
            SessionError::Io { .. } => "io_error",
            SessionError::NotAFile { .. } => "invalid_session_file",
            SessionError::Changed { .. } => "session_changed",
        }
    }

    /// The session file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            SessionError::Io { path, .. }
            | SessionError::NotAFile { path, .. }
            | SessionError::Changed { path } => path,
        }
    }
}
