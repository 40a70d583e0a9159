//! Fetch and push through the `git` executable, so the user's credentials, ssh agent,
//! `insteadOf` and proxies work as they do for `git` itself.
//!
//! Every run: `git -C <home>` with hooks off (`core.hooksPath=/dev/null`: nothing in the home's
//! repository runs), no prompt (`GIT_TERMINAL_PROMPT=0`, stdin from `/dev/null`), messages in
//! English (`LC_ALL=C`, so a missing branch and a rejected push can be told apart), and none of
//! the variables that would point git at another repository. Output is captured; a failure
//! carries git's own message.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use git2::Oid;

/// The ref their branch is fetched into (a private ref, so no remote-tracking ref of the
/// user's is moved and a URL works as well as a remote's name).
pub const THEIRS_REF: &str = "refs/pi-context/sync/theirs";

/// Variables that would make git use another repository, index or object store.
const REPOSITORY_VARS: [&str; 8] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_COMMON_DIR",
    "GIT_CONFIG_PARAMETERS",
];

/// A git command that failed.
#[derive(Debug, thiserror::Error)]
#[error("`{command}` failed{}: {message}", status.map(|s| format!(" (exit {s})")).unwrap_or_default())]
pub struct GitFailure {
    pub command: String,
    pub status: Option<i32>,
    /// What git said on stderr (trimmed), or why it could not run.
    pub message: String,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    Done,
    /// Someone else pushed first (non-fast-forward, or the remote's ref was locked by another
    /// push): fetch, merge and push again.
    Rejected(String),
    /// The remote could not take its branch's lock file, which exists (named as the remote's
    /// git printed it): a push in progress there, or a lock left by a git that died.
    RemoteLocked(String),
}

pub struct Git {
    home: PathBuf,
}

impl Git {
    pub fn new(home: &Path) -> Git {
        Git {
            home: home.to_path_buf(),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(&self.home)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
            ])
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in REPOSITORY_VARS {
            command.env_remove(var);
        }
        command
    }

    fn run(&self, args: &[&str]) -> Result<Output, GitFailure> {
        let shown = format!("git {}", args.join(" "));
        self.command(args).output().map_err(|e| GitFailure {
            command: shown,
            status: None,
            message: match e.kind() {
                io::ErrorKind::NotFound => "the git executable is not on PATH".to_string(),
                _ => format!("cannot run git: {e}"),
            },
        })
    }

    /// Fetches `branch` of `remote` into [`THEIRS_REF`]: their tip, or `None` when the remote
    /// has no such branch yet (an empty remote).
    pub fn fetch(&self, remote: &str, branch: &str) -> Result<Option<Oid>, GitFailure> {
        let refspec = format!("+refs/heads/{branch}:{THEIRS_REF}");
        let args = [
            "fetch",
            "--no-tags",
            "--no-recurse-submodules",
            "--quiet",
            "--",
            remote,
            &refspec,
        ];
        let output = self.run(&args)?;
        if !output.status.success() {
            let message = stderr(&output);
            if message.contains("couldn't find remote ref") {
                return Ok(None);
            }
            return Err(failure(&args, &output, message));
        }
        let args = ["rev-parse", "--verify", "--quiet", THEIRS_REF];
        let output = self.run(&args)?;
        let text = String::from_utf8_lossy(&output.stdout);
        match Oid::from_str(text.trim()) {
            Ok(oid) if output.status.success() => Ok(Some(oid)),
            _ => Err(failure(&args, &output, stderr(&output))),
        }
    }

    /// Pushes our `branch` to the same branch of `remote`, never forced.
    pub fn push(&self, remote: &str, branch: &str) -> Result<Pushed, GitFailure> {
        let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
        let args = ["push", "--porcelain", "--no-verify", "--", remote, &refspec];
        let output = self.run(&args)?;
        if output.status.success() {
            return Ok(Pushed::Done);
        }
        let said = stderr(&output);
        if let Some(lock) = remote_lock_file(&said) {
            return Ok(Pushed::RemoteLocked(lock));
        }
        let porcelain = String::from_utf8_lossy(&output.stdout);
        let rejected = porcelain
            .lines()
            .find(|line| line.starts_with('!'))
            .map(str::to_string);
        match rejected {
            Some(line) if is_retryable(&line) => Ok(Pushed::Rejected(line)),
            Some(line) => Err(failure(
                &args,
                &output,
                format!("{line}\n{}", stderr(&output)),
            )),
            None => Err(failure(&args, &output, stderr(&output))),
        }
    }
}

/// A rejection that another push explains: theirs moved (`fetch first`, `non-fast-forward`),
/// or the remote's ref was being updated by another push at that moment.
fn is_retryable(line: &str) -> bool {
    [
        "fetch first",
        "non-fast-forward",
        "stale info",
        "cannot lock ref",
        "failed to update ref",
        "failed to lock",
    ]
    .iter()
    .any(|reason| line.contains(reason))
}

/// The lock file named by git's "Unable to create '<path>.lock': File exists." (as the remote
/// relays it), when that is why the push failed.
fn remote_lock_file(stderr: &str) -> Option<String> {
    const BEFORE: &str = "Unable to create '";
    const AFTER: &str = "': File exists";
    stderr.lines().find_map(|line| {
        let start = line.find(BEFORE)? + BEFORE.len();
        let len = line[start..].find(AFTER)?;
        let path = &line[start..start + len];
        path.ends_with(".lock").then(|| path.replace("/./", "/"))
    })
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).trim().to_string()
}

fn failure(args: &[&str], output: &Output, message: String) -> GitFailure {
    GitFailure {
        command: format!("git {}", args.join(" ")),
        status: output.status.code(),
        message: if message.is_empty() {
            "git gave no message".to_string()
        } else {
            message
        },
    }
}

/// A remote as people may see it: a URL's user and password are left out (they would
/// otherwise land in conflict markers and messages).
pub fn shown_remote(remote: &str) -> String {
    let Some((scheme, rest)) = remote.split_once("://") else {
        return remote.to_string();
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    match rest[..host_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => remote.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_show() {
        assert_eq!(
            shown_remote("https://me:secret@example.com/notes.git"),
            "https://example.com/notes.git"
        );
        assert_eq!(
            shown_remote("git@example.com:notes.git"),
            "git@example.com:notes.git"
        );
        assert_eq!(shown_remote("origin"), "origin");
        assert_eq!(shown_remote("ssh://git@host/a@b.git"), "ssh://host/a@b.git");
    }

    #[test]
    fn a_remote_lock_is_named() {
        let said = "remote: error: cannot lock ref 'refs/heads/main': Unable to create '/srv/notes.git/./refs/heads/main.lock': File exists.        \nremote: \nerror: failed to push some refs to '../remote.git'";
        assert_eq!(
            remote_lock_file(said).as_deref(),
            Some("/srv/notes.git/refs/heads/main.lock")
        );
        assert_eq!(remote_lock_file("error: failed to push some refs"), None);
    }

    #[test]
    fn only_races_are_retried() {
        assert!(is_retryable(
            "!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)"
        ));
        assert!(is_retryable(
            "!\trefs/heads/main:refs/heads/main\t[rejected] (non-fast-forward)"
        ));
        assert!(!is_retryable(
            "!\trefs/heads/main:refs/heads/main\t[remote rejected] (pre-receive hook declined)"
        ));
    }
}
