//! OpenCode's SQLite database mirrored as one JSONL file per session (docs/architecture.md,
//! "OpenCode's database").
//!
//! The database is opened read-only through SQLite (never by copying the main file: the newest
//! rows may be only in its write-ahead log), never created when missing and never written. A
//! database in WAL mode whose log is absent (no OpenCode has it open) is opened `immutable`, so
//! that reading it creates no `-wal` or `-shm` file beside it. Everything is read in one read
//! transaction: beside a writer's open transaction it sees the last committed state.
//!
//! Each session becomes `<mirror>/<database name>/<session id>.jsonl`: a session line, then a
//! line per message and per part, in order. A session's file is rewritten (a temporary file
//! renamed over it) only when its fingerprint (its update time, the number and the newest
//! update of its messages and parts) changed, so the session index re-reads only those; the
//! files of sessions no longer in the database are removed, and so are temporary files older
//! than a minute (a sync killed before its rename left them; there is no lock to tell a live
//! sync's from a dead one's, and a sync writes a file within moments).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::value::RawValue;

/// The record types of the mirror's lines.
pub(in crate::session) const SESSION: &str = "opencode.session";
pub(in crate::session) const MESSAGE: &str = "opencode.message";
pub(in crate::session) const PART: &str = "opencode.part";

/// The file that keeps each mirrored session's fingerprint.
const STATE_FILE: &str = "fingerprints.json";

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
    for db in &databases {
        let Some(name) = db.file_stem().and_then(|n| n.to_str()) else {
            continue;
        };
        if let Err(reason) = sync_database(db, &mirror.join(name)) {
            problems.push(reason);
        }
    }
    remove_gone_databases(mirror, &databases);
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
        if !names.contains(&entry.file_name().as_os_str()) && entry.path().is_dir() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// One session row and what its fingerprint is made of.
struct SessionRow {
    id: String,
    parent_id: Option<String>,
    directory: Option<String>,
    title: Option<String>,
    version: Option<String>,
    created_ms: i64,
    updated_ms: i64,
}

fn sync_database(db: &Path, dir: &Path) -> Result<(), String> {
    let why = |e: rusqlite::Error| format!("OpenCode database {}: {e}", db.display());
    let conn = open_read_only(db).map_err(why)?;
    let tx = conn.unchecked_transaction().map_err(why)?;
    let sessions = read_sessions(&tx).map_err(why)?;
    let fingerprints = read_fingerprints(&tx).map_err(why)?;
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut known = load_state(dir);
    let mut now: BTreeMap<String, String> = BTreeMap::new();
    for session in &sessions {
        let Some(file) = session_file(dir, &session.id) else {
            continue;
        };
        let fingerprint = format!(
            "{}|{}",
            session.updated_ms,
            fingerprints.get(&session.id).map_or("", String::as_str)
        );
        if known.remove(&session.id).as_deref() != Some(fingerprint.as_str()) || !file.is_file() {
            let lines = session_lines(&tx, session).map_err(why)?;
            write_atomically(&file, &lines).map_err(|e| format!("{}: {e}", file.display()))?;
        }
        now.insert(session.id.clone(), fingerprint);
    }
    drop(tx);
    remove_gone_sessions(dir, &now);
    remove_stale_temps(dir, std::time::SystemTime::now());
    save_state(dir, &now);
    Ok(())
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

fn read_sessions(conn: &Connection) -> rusqlite::Result<Vec<SessionRow>> {
    let mut statement = conn.prepare(
        "SELECT id, parent_id, directory, title, version, time_created, time_updated \
         FROM session ORDER BY time_created, id",
    )?;
    let rows = statement.query_map([], |row| {
        Ok(SessionRow {
            id: row.get(0)?,
            parent_id: row.get(1)?,
            directory: row.get(2)?,
            title: row.get(3)?,
            version: row.get(4)?,
            created_ms: row.get(5)?,
            updated_ms: row.get(6)?,
        })
    })?;
    rows.collect()
}

/// Per session, the number and newest update of its messages and of its parts.
fn read_fingerprints(conn: &Connection) -> rusqlite::Result<HashMap<String, String>> {
    let mut out: HashMap<String, String> = HashMap::new();
    for table in ["message", "part"] {
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

/// The session's lines: the session, then each message (by time, then id) followed by its
/// parts (by id: OpenCode's ids grow with time).
fn session_lines(conn: &Connection, session: &SessionRow) -> rusqlite::Result<Vec<String>> {
    let mut parts: HashMap<String, Vec<(String, String)>> = HashMap::new();
    let mut statement =
        conn.prepare("SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY id")?;
    let rows = statement.query_map([&session.id], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?,
        ))
    })?;
    for row in rows {
        let (id, message_id, data) = row?;
        parts.entry(message_id).or_default().push((id, data));
    }
    let mut lines = vec![session_line(session)];
    let mut statement = conn.prepare(
        "SELECT id, time_created, data FROM message WHERE session_id = ?1 \
         ORDER BY time_created, id",
    )?;
    let rows = statement.query_map([&session.id], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, String>(2)?,
        ))
    })?;
    for row in rows {
        let (id, created_ms, data) = row?;
        let message = json_value(&data);
        let role = serde_json::from_str::<serde_json::Value>(message.get())
            .ok()
            .and_then(|v| {
                let role = v.get("role")?.as_str()?.to_string();
                let summary = v.get("summary").is_some_and(|s| s == true);
                Some((role, summary))
            });
        let timestamp = iso(created_ms);
        lines.push(
            serde_json::json!({
                "type": MESSAGE, "id": id, "timestamp": timestamp, "message": message,
            })
            .to_string(),
        );
        let (role, summary) = role.unwrap_or_default();
        for (part_id, data) in parts.remove(&id).unwrap_or_default() {
            lines.push(
                serde_json::json!({
                    "type": PART, "id": part_id, "messageID": id, "role": role,
                    "summary": summary, "timestamp": timestamp, "part": json_value(&data),
                })
                .to_string(),
            );
        }
    }
    Ok(lines)
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
fn json_value(text: &str) -> Box<RawValue> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => serde_json::value::to_raw_value(&value).unwrap_or_else(|_| null()),
        Err(_) => null(),
    }
}

fn null() -> Box<RawValue> {
    RawValue::from_string("null".to_string()).expect("null is JSON")
}

/// Milliseconds since the epoch as an RFC 3339 time.
fn iso(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// The file of a session, when its id is a plain file name.
fn session_file(dir: &Path, id: &str) -> Option<PathBuf> {
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
