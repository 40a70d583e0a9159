//! OpenCode's SQLite database, and its older JSON storage ([`super::storage`]), mirrored as one
//! JSONL file per session (docs/architecture.md, "OpenCode's database").
//!
//! The database is opened read-only through SQLite (never by copying the main file: the newest
//! rows may be only in its write-ahead log), never created when missing and never written. A
//! database in WAL mode whose log is absent (no OpenCode has it open) is opened `immutable`, so
//! that reading it creates no `-wal` or `-shm` file beside it. Everything is read in one read
//! transaction: beside a writer's open transaction it sees the last committed state.
//!
//! Each session becomes `<mirror>/<database name>/<session id>.jsonl`: a session line, then a
//! line per message and per part, in order. A session whose `message` table holds nothing but
//! whose `session_message` rows (OpenCode's V2 session runner) hold it is read from those
//! ([`super::session_message`]). A pending revert (`session.revert`) puts the messages it hides
//! between a [`REVERT`] line and a [`REVERTED`] line at the end, so they read as an abandoned
//! branch. A session's file is rewritten (a temporary file
//! renamed over it) only when its fingerprint (its update time, the number and the newest
//! update of its messages and parts) changed, so the session index re-reads only those; the
//! files of sessions no longer in the database are removed, and so are temporary files older
//! than a minute (a sync killed before its rename left them; there is no lock to tell a live
//! sync's from a dead one's, and a sync writes a file within moments).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

/// The record types of the mirror's lines.
pub(in crate::session) const SESSION: &str = "opencode.session";
pub(in crate::session) const MESSAGE: &str = "opencode.message";
pub(in crate::session) const PART: &str = "opencode.part";
/// The messages after this line are hidden by a pending revert (OpenCode's undo).
pub(in crate::session) const REVERT: &str = "opencode.revert";
/// The end of the reverted messages: the conversation as it now is goes on from before them.
pub(in crate::session) const REVERTED: &str = "opencode.reverted";

/// The mirror's directory of the JSON storage's sessions (no database is named so: theirs
/// begin with `opencode`).
const STORAGE_DIR: &str = "storage";

/// The file that keeps each mirrored session's fingerprint.
const STATE_FILE: &str = "fingerprints.json";
/// The file that keeps what could not be read of each mirrored session (when anything).
const PROBLEMS_FILE: &str = "problems.json";

/// How old a temporary file in the mirror must be to be one a sync left when it was killed (a
/// sync writes each file within moments); younger ones may be another sync's, being written.
const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// How long a read waits for a lock a writer holds (a database in rollback mode while it commits).
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(2000);

/// The directory `root`'s sessions are mirrored into, under the cache: one per root path.
pub(in crate::session) fn mirror_dir(root: &Path, cache: &Path) -> PathBuf {
    use sha1::Digest;
    let digest = sha1::Sha1::digest(root.as_os_str().as_encoded_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    cache.join("opencode").join(hex)
}

/// Brings `mirror` up to date with the databases of `root` (a database file, or OpenCode's
/// data directory holding `opencode*.db`); answers what could not be read, one reason each.
pub(in crate::session) fn sync(root: &Path, mirror: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let databases = databases(root);
    let mut in_databases: HashSet<String> = HashSet::new();
    for db in &databases {
        let Some(name) = db.file_stem().and_then(|n| n.to_str()) else {
            continue;
        };
        let dir = mirror.join(name);
        if let Err(reason) = sync_database(db, &dir) {
            problems.push(reason);
        }
        in_databases.extend(load_state(&dir).into_keys());
    }
    remove_gone_databases(mirror, &databases);
    if root.is_dir() {
        problems.extend(super::storage::sync(
            root,
            &mirror.join(STORAGE_DIR),
            &in_databases,
        ));
    }
    problems
}

/// The database files of a root: itself when it is a file, else its `opencode*.db` files.
fn databases(root: &Path) -> Vec<PathBuf> {
    if root.is_file() {
        return vec![root.to_path_buf()];
    }
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("opencode") && n.ends_with(".db"))
                && p.is_file()
        })
        .collect();
    found.sort();
    found
}

/// Removes the mirrors of databases that are no longer there.
fn remove_gone_databases(mirror: &Path, databases: &[PathBuf]) {
    let Ok(entries) = fs::read_dir(mirror) else {
        return;
    };
    let names: Vec<&std::ffi::OsStr> = databases.iter().filter_map(|d| d.file_stem()).collect();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name != STORAGE_DIR && !names.contains(&name.as_os_str()) && entry.path().is_dir() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// One session (a row, or a JSON file of the older storage) and what its fingerprint is made of.
#[derive(Clone)]
pub(super) struct SessionRow {
    pub(super) id: String,
    pub(super) parent_id: Option<String>,
    pub(super) directory: Option<String>,
    pub(super) title: Option<String>,
    pub(super) version: Option<String>,
    pub(super) created_ms: i64,
    pub(super) updated_ms: i64,
    /// `session.revert` as stored (JSON), when a revert is pending.
    pub(super) revert: Option<String>,
}

/// One message: its id, creation time and `data` JSON.
pub(super) struct MessageRow {
    pub(super) id: String,
    pub(super) created_ms: i64,
    pub(super) data: Value,
}

/// One part: its id and `data` JSON.
pub(super) struct PartRow {
    pub(super) id: String,
    pub(super) data: Value,
}

/// A message with its parts, in order.
pub(super) type Message = (MessageRow, Vec<PartRow>);

/// What a session's file is made from: its lines, or nothing when it could not be read (its
/// file, if any, is kept as it was); and what of it could not be read, one reason each.
pub(super) struct Read {
    pub(super) lines: Option<Vec<String>>,
    pub(super) problems: Vec<String>,
}

/// Writes the file of each session whose fingerprint changed (`read` makes its lines), removes
/// the files of sessions no longer there and records the fingerprints; answers what could not
/// be read of the sessions (remembered for those not read again, so that they are counted at
/// every sync, not only at the one that met them).
pub(super) fn write_sessions<'a, E>(
    dir: &Path,
    sessions: impl IntoIterator<Item = (&'a SessionRow, String)>,
    mut read: impl FnMut(&SessionRow) -> Result<Read, E>,
) -> Result<Vec<String>, String>
where
    E: std::fmt::Display,
{
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut known = load_state(dir);
    let mut known_problems = load_problems(dir);
    let mut now: BTreeMap<String, String> = BTreeMap::new();
    let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (session, fingerprint) in sessions {
        let Some(file) = session_file(dir, &session.id) else {
            continue;
        };
        let before = known.remove(&session.id);
        let before_problems = known_problems.remove(&session.id);
        if before.as_deref() == Some(fingerprint.as_str()) && file.is_file() {
            now.insert(session.id.clone(), fingerprint);
            problems.extend(before_problems.map(|p| (session.id.clone(), p)));
            continue;
        }
        let read = read(session).map_err(|e| e.to_string())?;
        if !read.problems.is_empty() {
            problems.insert(session.id.clone(), read.problems);
        }
        match read.lines {
            Some(lines) => {
                write_atomically(&file, &lines).map_err(|e| format!("{}: {e}", file.display()))?;
                now.insert(session.id.clone(), fingerprint);
            }
            None if file.is_file() => {
                now.insert(session.id.clone(), before.unwrap_or_default());
            }
            None => {}
        }
    }
    remove_gone_sessions(dir, &now);
    remove_stale_temps(dir, std::time::SystemTime::now());
    save_state(dir, &now);
    save_problems(dir, &problems);
    Ok(problems.into_values().flatten().collect())
}

/// The optional parts of OpenCode's schema a database has (older ones lack them).
struct Schema {
    revert: bool,
    session_message: bool,
}

fn schema(conn: &Connection) -> rusqlite::Result<Schema> {
    let revert = conn
        .prepare("SELECT 1 FROM pragma_table_info('session') WHERE name = 'revert'")?
        .exists([])?;
    let session_message = conn
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_message'")?
        .exists([])?;
    Ok(Schema {
        revert,
        session_message,
    })
}

fn sync_database(db: &Path, dir: &Path) -> Result<(), String> {
    let why = |e: rusqlite::Error| format!("OpenCode database {}: {e}", db.display());
    let conn = open_read_only(db).map_err(why)?;
    let tx = conn.unchecked_transaction().map_err(why)?;
    let schema = schema(&tx).map_err(why)?;
    let sessions = read_sessions(&tx, &schema).map_err(why)?;
    let fingerprints = read_fingerprints(&tx, &schema).map_err(why)?;
    let fingerprinted = sessions.iter().map(|session| {
        let fingerprint = format!(
            "{}|{}|{}",
            session.updated_ms,
            fingerprints.get(&session.id).map_or("", String::as_str),
            session.revert.as_deref().unwrap_or("")
        );
        (session, fingerprint)
    });
    write_sessions(dir, fingerprinted, |session| {
        let mut messages = read_messages(&tx, &session.id)?;
        if messages.is_empty() && schema.session_message {
            messages = read_session_messages(&tx, &session.id)?;
        }
        Ok::<_, rusqlite::Error>(Read {
            lines: Some(session_lines(session, messages)),
            problems: Vec::new(),
        })
    })
    .map(drop)
    .map_err(|e| format!("OpenCode database {}: {e}", db.display()))
}

/// Opens the database read-only; `immutable` when it is in WAL mode and has no log beside it
/// (so that SQLite creates none), never creating it.
fn open_read_only(db: &Path) -> rusqlite::Result<Connection> {
    let immutable = is_wal_mode(db) && !wal_of(db).exists();
    let uri = format!(
        "file:{}?mode=ro{}",
        uri_path(db),
        if immutable { "&immutable=1" } else { "" }
    );
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// Whether the database's header says WAL mode (bytes 18 and 19 are 2).
fn is_wal_mode(db: &Path) -> bool {
    let mut header = [0u8; 20];
    fs::File::open(db)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header))
        .is_ok_and(|()| header[18] == 2 && header[19] == 2)
}

fn wal_of(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// A path as a `file:` URI's path: every byte but the unreserved ones and `/` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn read_sessions(conn: &Connection, schema: &Schema) -> rusqlite::Result<Vec<SessionRow>> {
    let revert = if schema.revert { "revert" } else { "NULL" };
    let mut statement = conn.prepare(&format!(
        "SELECT id, parent_id, directory, title, version, time_created, time_updated, {revert} \
         FROM session ORDER BY time_created, id"
    ))?;
    let rows = statement.query_map([], |row| {
        Ok(SessionRow {
            id: row.get(0)?,
            parent_id: row.get(1)?,
            directory: row.get(2)?,
            title: row.get(3)?,
            version: row.get(4)?,
            created_ms: row.get(5)?,
            updated_ms: row.get(6)?,
            revert: row.get::<_, Option<String>>(7).ok().flatten(),
        })
    })?;
    rows.collect()
}

/// Per session, the number and newest update of its messages and of its parts (and of its
/// `session_message` rows).
fn read_fingerprints(
    conn: &Connection,
    schema: &Schema,
) -> rusqlite::Result<HashMap<String, String>> {
    let mut out: HashMap<String, String> = HashMap::new();
    let tables: &[&str] = if schema.session_message {
        &["message", "part", "session_message"]
    } else {
        &["message", "part"]
    };
    for table in tables {
        let mut statement = conn.prepare(&format!(
            "SELECT session_id, count(*), max(time_updated) FROM {table} GROUP BY session_id"
        ))?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, Option<i64>>(2)?,
            ))
        })?;
        for row in rows {
            let (session, count, newest) = row?;
            let entry = out.entry(session).or_default();
            entry.push_str(&format!("{table}:{count}:{}|", newest.unwrap_or(0)));
        }
    }
    Ok(out)
}

/// The session's messages (by time, then id), each with its parts (by id: OpenCode's ids grow
/// with time).
fn read_messages(conn: &Connection, session: &str) -> rusqlite::Result<Vec<Message>> {
    let mut parts: HashMap<String, Vec<PartRow>> = HashMap::new();
    let mut statement =
        conn.prepare("SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY id")?;
    let rows = statement.query_map([session], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?,
        ))
    })?;
    for row in rows {
        let (id, message_id, data) = row?;
        let data = json_value(&data);
        parts
            .entry(message_id)
            .or_default()
            .push(PartRow { id, data });
    }
    let mut statement = conn.prepare(
        "SELECT id, time_created, data FROM message WHERE session_id = ?1 \
         ORDER BY time_created, id",
    )?;
    let rows = statement.query_map([session], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, String>(2)?,
        ))
    })?;
    let mut messages = Vec::new();
    for row in rows {
        let (id, created_ms, data) = row?;
        let message_parts = parts.remove(&id).unwrap_or_default();
        let data = json_value(&data);
        messages.push((
            MessageRow {
                id,
                created_ms,
                data,
            },
            message_parts,
        ));
    }
    Ok(messages)
}

/// The session's `session_message` rows (by `seq`), as messages with their parts.
fn read_session_messages(conn: &Connection, session: &str) -> rusqlite::Result<Vec<Message>> {
    let mut statement = conn.prepare(
        "SELECT id, type, time_created, data FROM session_message WHERE session_id = ?1 \
         ORDER BY seq, id",
    )?;
    let rows = statement.query_map([session], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, i64>(2)?,
            row.get::<_, String>(3)?,
        ))
    })?;
    let mut messages = Vec::new();
    for row in rows {
        let (id, kind, created_ms, data) = row?;
        messages.push(super::session_message::message(
            id,
            &kind,
            created_ms,
            json_value(&data),
        ));
    }
    Ok(messages)
}

/// The session's lines: the session, then each message followed by its parts; the messages a
/// pending revert hides come last but one, between a [`REVERT`] and a [`REVERTED`] line.
pub(super) fn session_lines(session: &SessionRow, messages: Vec<Message>) -> Vec<String> {
    let revert = session.revert.as_deref().and_then(revert_point);
    let mut lines = vec![session_line(session)];
    let mut reverted = false;
    for (message, parts) in messages {
        let role = message
            .data
            .get("role")
            .and_then(Value::as_str)
            .map(str::to_string);
        let summary = message.data.get("summary").is_some_and(|s| s == true);
        let timestamp = iso(message.created_ms);
        let reverts_here =
            |part: Option<&str>| revert.as_ref().is_some_and(|r| r.at(&message.id, part));
        if !reverted && reverts_here(None) {
            lines.push(revert_line(session));
            reverted = true;
        }
        lines.push(
            serde_json::json!({
                "type": MESSAGE, "id": message.id, "timestamp": timestamp, "message": message.data,
            })
            .to_string(),
        );
        for part in parts {
            if !reverted && reverts_here(Some(&part.id)) {
                lines.push(revert_line(session));
                reverted = true;
            }
            lines.push(
                serde_json::json!({
                    "type": PART, "id": part.id, "messageID": message.id, "role": role,
                    "summary": summary, "timestamp": timestamp, "part": part.data,
                })
                .to_string(),
            );
        }
    }
    if reverted {
        lines.push(serde_json::json!({ "type": REVERTED }).to_string());
    }
    lines
}

/// Where a pending revert begins: at a part of a message (the parts before it stay), or at a
/// whole message.
struct RevertPoint {
    message: String,
    part: Option<String>,
}

impl RevertPoint {
    /// Whether the revert begins at this message (`part` none) or at this part of it.
    fn at(&self, message: &str, part: Option<&str>) -> bool {
        self.message == message && self.part.as_deref() == part
    }
}

fn revert_point(revert: &str) -> Option<RevertPoint> {
    let value: Value = serde_json::from_str(revert).ok()?;
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    Some(RevertPoint {
        message: text("messageID")?,
        part: text("partID"),
    })
}

fn revert_line(session: &SessionRow) -> String {
    let revert: Value = session
        .revert
        .as_deref()
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or(Value::Null);
    serde_json::json!({ "type": REVERT, "revert": revert }).to_string()
}

fn session_line(session: &SessionRow) -> String {
    serde_json::json!({
        "type": SESSION,
        "id": session.id,
        "parentID": session.parent_id,
        "directory": session.directory,
        "title": session.title,
        "version": session.version,
        "timestamp": iso(session.created_ms),
        "updated": iso(session.updated_ms),
    })
    .to_string()
}

/// A column's JSON text as a value of the line; `null` when it is not JSON.
fn json_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// Milliseconds since the epoch as an RFC 3339 time.
pub(super) fn iso(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// The file of a session, when its id is a plain file name.
pub(super) fn session_file(dir: &Path, id: &str) -> Option<PathBuf> {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    plain.then(|| dir.join(format!("{id}.jsonl")))
}

fn write_atomically(file: &Path, lines: &[String]) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    for line in lines {
        temp.write_all(line.as_bytes())?;
        temp.write_all(b"\n")?;
    }
    temp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

fn remove_gone_sessions(dir: &Path, sessions: &BTreeMap<String, String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let gone = path.extension().is_some_and(|e| e == "jsonl")
            && path
                .file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|id| !sessions.contains_key(id));
        if gone {
            let _ = fs::remove_file(path);
        }
    }
}

/// Removes the temporary files ([`write_atomically`]'s, named `.tmp…`) older than
/// [`STALE_TEMP_AGE`] at `now`: left by a sync that was killed before it renamed them.
fn remove_stale_temps(dir: &Path, now: std::time::SystemTime) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let temp = entry.file_name().to_string_lossy().starts_with(".tmp");
        let stale = || {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|modified| now.duration_since(modified).ok())
                .is_some_and(|age| age > STALE_TEMP_AGE)
        };
        if temp && entry.file_type().is_ok_and(|t| t.is_file()) && stale() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn load_state(dir: &Path) -> BTreeMap<String, String> {
    fs::read(dir.join(STATE_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn save_state(dir: &Path, state: &BTreeMap<String, String>) {
    if load_state(dir) == *state {
        return;
    }
    if let Ok(text) = serde_json::to_string(state) {
        let _ = write_atomically(&dir.join(STATE_FILE), &[text]);
    }
}

fn load_problems(dir: &Path) -> BTreeMap<String, Vec<String>> {
    fs::read(dir.join(PROBLEMS_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn save_problems(dir: &Path, problems: &BTreeMap<String, Vec<String>>) {
    if load_problems(dir) == *problems {
        return;
    }
    if problems.is_empty() {
        let _ = fs::remove_file(dir.join(PROBLEMS_FILE));
    } else if let Ok(text) = serde_json::to_string(problems) {
        let _ = write_atomically(&dir.join(PROBLEMS_FILE), &[text]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_temporary_files_older_than_a_minute_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        let file = |name: &str, age_secs: u64| {
            let path = dir.path().join(name);
            let f = fs::File::create(&path).unwrap();
            f.set_modified(now - std::time::Duration::from_secs(age_secs))
                .unwrap();
            path
        };
        let stale = file(".tmpAbC123", 120);
        let young = file(".tmpXyZ789", 10);
        let session = file("ses_1.jsonl", 3600);
        remove_stale_temps(dir.path(), now);
        assert!(!stale.exists());
        assert!(young.exists(), "another sync may be writing it");
        assert!(session.exists());
    }

    #[test]
    fn a_path_is_escaped_for_a_file_uri() {
        assert_eq!(uri_path(Path::new("/a b/x?y#z.db")), "/a%20b/x%3Fy%23z.db");
    }

    #[test]
    fn only_plain_ids_name_a_file() {
        let dir = Path::new("/m");
        assert!(session_file(dir, "ses_1aZ").is_some());
        assert!(session_file(dir, "../x").is_none());
        assert!(session_file(dir, ".hidden").is_none());
        assert!(session_file(dir, "").is_none());
    }
}
