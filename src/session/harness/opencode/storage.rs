//! OpenCode's older JSON storage, before its database (docs/harnesses.md, "OpenCode"), mirrored
//! into the same lines as the database's sessions ([`super::mirror`]).
//!
//! Two layouts, each file named by its id (ids come from the paths, as OpenCode's own
//! migration into SQLite takes them):
//!
//! - `<data>/storage/session/<project>/<session>.json`, `storage/message/<session>/<message>.json`,
//!   `storage/part/<message>/<part>.json`;
//! - older, one store per project: `<data>/project/<project>/storage/session/info/<session>.json`,
//!   `…/session/message/<session>/<message>.json`, `…/session/part/<session>/<message>/<part>.json`;
//!   its first messages held their parts inside them ([`super::session_message::from_first_shape`]).
//!
//! A session also in a database (OpenCode copies the JSON storage into its database once) is
//! read from the database only; the first layout wins over the second for a session in both.
//! Only what a session file names is read: a message directory without a session, or a part
//! directory without its message, is never visited (OpenCode's migration skips them too). Files
//! are opened without following links and without blocking (a FIFO is refused, never waited
//! on), and must be regular files of at most [`MAX_FILE_BYTES`]; a file that cannot be read or
//! is not JSON (torn, half-written) is skipped and counted (at every sync, until its session
//! changes and is read again).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read as _;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::mirror::{self, Message, MessageRow, PartRow, Read, SessionRow};
use super::session_message::from_first_shape;

/// The largest JSON file read (a part's tool output can be large; one larger is counted).
const MAX_FILE_BYTES: u64 = 256 << 20;

/// Where a session's records are.
#[derive(Clone)]
enum Layout {
    /// `storage/`: messages in `message/<session>/`, parts in `part/<message>/`.
    Shared(PathBuf),
    /// `project/<p>/storage/`: messages in `session/message/<session>/`, parts in
    /// `session/part/<session>/<message>/`.
    PerProject(PathBuf),
}

impl Layout {
    fn messages(&self, session: &str) -> PathBuf {
        match self {
            Layout::Shared(root) => root.join("message").join(session),
            Layout::PerProject(root) => root.join("session/message").join(session),
        }
    }

    fn parts(&self, session: &str, message: &str) -> PathBuf {
        match self {
            Layout::Shared(root) => root.join("part").join(message),
            Layout::PerProject(root) => root.join("session/part").join(session).join(message),
        }
    }
}

/// A session file found.
struct Found {
    id: String,
    file: PathBuf,
    layout: Layout,
}

/// Brings `dir` up to date with the JSON storage of the data directory `data`, leaving out the
/// sessions in `in_databases`; answers what could not be read, one reason each.
pub(super) fn sync(data: &Path, dir: &Path, in_databases: &HashSet<String>) -> Vec<String> {
    let found = sessions(data, in_databases);
    if found.is_empty() && !dir.exists() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    // A session whose file cannot be read now stands as a placeholder that is never read (an
    // empty fingerprint never matches): its mirror is kept as it was.
    let mut rows: Vec<(SessionRow, String, Option<&Found>)> = Vec::new();
    for session in &found {
        // Taken before anything of the session is read: a change made meanwhile shows next time.
        let fingerprint = fingerprint(session);
        match read_session(session) {
            Ok(row) => rows.push((row, fingerprint, Some(session))),
            Err(reason) => {
                problems.push(reason);
                rows.push((placeholder(&session.id), String::new(), None));
            }
        }
    }
    let files: HashMap<&str, &Found> = rows
        .iter()
        .filter_map(|(row, _, found)| Some((row.id.as_str(), (*found)?)))
        .collect();
    let listed = rows.iter().map(|(row, fp, _)| (row, fp.clone()));
    let result = mirror::write_sessions(dir, listed, |row| {
        let Some(session) = files.get(row.id.as_str()) else {
            return Ok::<_, String>(Read {
                lines: None,
                problems: Vec::new(),
            });
        };
        let (messages, problems) = read_messages(session);
        let row = with_directory(row, &messages);
        Ok(Read {
            lines: Some(mirror::session_lines(&row, messages)),
            problems,
        })
    });
    match result {
        Ok(more) => problems.extend(more),
        Err(reason) => problems.push(reason),
    }
    problems
}

/// The session with its directory: the older session files have none; then the first
/// message's working directory (an assistant message's `path.cwd`).
fn with_directory(row: &SessionRow, messages: &[Message]) -> SessionRow {
    let directory = row.directory.clone().or_else(|| {
        messages.iter().find_map(|(message, _)| {
            let cwd = message.data.pointer("/path/cwd")?.as_str()?;
            (!cwd.is_empty()).then(|| cwd.to_string())
        })
    });
    SessionRow {
        directory,
        ..row.clone()
    }
}

/// A row standing for a session whose file could not be read this time.
fn placeholder(id: &str) -> SessionRow {
    SessionRow {
        id: id.to_string(),
        parent_id: None,
        directory: None,
        title: None,
        version: None,
        created_ms: 0,
        updated_ms: 0,
        revert: None,
    }
}

/// The session files of both layouts, the first layout's first, without those of a database.
fn sessions(data: &Path, in_databases: &HashSet<String>) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let shared = data.join("storage");
    for project in subdirs(&shared.join("session")) {
        for (id, file) in json_files(&project) {
            found.push(Found {
                id,
                file,
                layout: Layout::Shared(shared.clone()),
            });
        }
    }
    for project in subdirs(&data.join("project")) {
        let root = project.join("storage");
        for (id, file) in json_files(&root.join("session/info")) {
            found.push(Found {
                id,
                file,
                layout: Layout::PerProject(root.clone()),
            });
        }
    }
    found.retain(|f| {
        !in_databases.contains(&f.id)
            && mirror::session_file(Path::new(""), &f.id).is_some()
            && seen.insert(f.id.clone())
    });
    found
}

/// The directories in `dir`, sorted.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The `<id>.json` names in `dir` (whatever they are: a link or FIFO is refused when read),
/// sorted by id.
fn json_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let id = name.to_str()?.strip_suffix(".json")?;
            (!id.is_empty() && !id.starts_with('.')).then(|| (id.to_string(), e.path()))
        })
        .collect();
    out.sort();
    out
}

/// What a session's mirror depends on: the size and change time of its file, of its messages'
/// and of its parts' files (their number too, so a removal shows).
fn fingerprint(session: &Found) -> String {
    let mut out = stat(&session.file);
    let messages = json_files(&session.layout.messages(&session.id));
    out.push_str(&format!("|m{}", messages.len()));
    for (id, file) in &messages {
        out.push_str(&format!(";{}", stat(file)));
        let parts = json_files(&session.layout.parts(&session.id, id));
        out.push_str(&format!("|p{}", parts.len()));
        for (_, part) in &parts {
            out.push_str(&format!(",{}", stat(part)));
        }
    }
    use sha1::Digest;
    let digest = sha1::Sha1::digest(out.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn stat(path: &Path) -> String {
    match fs::symlink_metadata(path) {
        Ok(m) => format!("{}:{}:{}:{}", m.len(), m.mtime(), m.mtime_nsec(), m.ino()),
        Err(_) => "-".to_string(),
    }
}

/// A JSON file: opened without following a link or blocking on a FIFO, a regular file of at
/// most [`MAX_FILE_BYTES`], parsed.
fn read_json(path: &Path, max: u64) -> Result<Value, String> {
    let why = |what: String| format!("OpenCode storage {}: {what}", path.display());
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => why("a link, not a file".to_string()),
            _ => why(e.to_string()),
        })?;
    let metadata = file.metadata().map_err(|e| why(e.to_string()))?;
    if !metadata.is_file() {
        return Err(why("not a regular file".to_string()));
    }
    if metadata.len() > max {
        return Err(why(format!("larger than {max} bytes")));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| why(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(why(format!("larger than {max} bytes")));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| why(format!("not JSON (torn or half-written?): {e}")))
}

/// The session's file as a row (its id the file's name).
fn read_session(session: &Found) -> Result<SessionRow, String> {
    let info = read_json(&session.file, MAX_FILE_BYTES)?;
    let text = |key: &str| info.get(key).and_then(Value::as_str).map(str::to_string);
    let time = |key: &str| {
        info.pointer(&format!("/time/{key}"))
            .and_then(Value::as_i64)
    };
    let created_ms = time("created").unwrap_or(0);
    Ok(SessionRow {
        id: session.id.clone(),
        parent_id: text("parentID"),
        directory: text("directory"),
        title: text("title"),
        version: text("version"),
        created_ms,
        updated_ms: time("updated").unwrap_or(created_ms),
        revert: info
            .get("revert")
            .filter(|r| r.is_object())
            .map(Value::to_string),
    })
}

/// The session's messages (by time, then id) with their parts (by id), and what could not be
/// read of them.
fn read_messages(session: &Found) -> (Vec<Message>, Vec<String>) {
    let mut problems = Vec::new();
    let mut messages: Vec<Message> = Vec::new();
    for (id, file) in json_files(&session.layout.messages(&session.id)) {
        let data = match read_json(&file, MAX_FILE_BYTES) {
            Ok(data) => data,
            Err(reason) => {
                problems.push(reason);
                continue;
            }
        };
        if let Some((info, parts, created_ms)) = from_first_shape(&id, &data) {
            messages.push((
                MessageRow {
                    id,
                    created_ms,
                    data: info,
                },
                parts,
            ));
            continue;
        }
        let created_ms = data
            .pointer("/time/created")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let mut parts = Vec::new();
        for (part_id, part_file) in json_files(&session.layout.parts(&session.id, &id)) {
            match read_json(&part_file, MAX_FILE_BYTES) {
                Ok(data) => parts.push(PartRow { id: part_id, data }),
                Err(reason) => problems.push(reason),
            }
        }
        messages.push((
            MessageRow {
                id,
                created_ms,
                data,
            },
            parts,
        ));
    }
    messages.sort_by(|(a, _), (b, _)| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
    (messages, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_too_large_a_link_a_fifo_and_torn_json_are_refused_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.json");
        fs::write(&good, br#"{"a":1}"#).unwrap();
        assert_eq!(read_json(&good, 100).unwrap()["a"], 1);
        assert!(read_json(&good, 3).unwrap_err().contains("larger than"));
        let torn = dir.path().join("torn.json");
        fs::write(&torn, br#"{"a":"#).unwrap();
        assert!(read_json(&torn, 100).unwrap_err().contains("not JSON"));
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&good, &link).unwrap();
        assert!(read_json(&link, 100).unwrap_err().contains("a link"));
        let fifo = dir.path().join("fifo.json");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        assert!(read_json(&fifo, 100)
            .unwrap_err()
            .contains("not a regular file"));
    }
}
