//! `notes list`'s record of listings and frontmatter blocks (`<cache>/notes/*.list`): a list
//! served from it is the list read from the notes, every change made after it was written shows
//! at once, and a record that is damaged, foreign or hostile only costs speed.
//!
//! Things are recorded only when their last change is more than two seconds old, so each test
//! writes its notes, waits that long once, and lists to record them.

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::notes::*;
use common::TestEnv;
use serde_json::Value;

/// The record's settling time in these tests (`PI_CONTEXT_SETTLE_MS`; two seconds by default),
/// and a wait that is longer.
const SETTLE_MS: &str = "200";
const SETTLE: Duration = Duration::from_millis(300);

fn note(updated: &str, body: &str) -> String {
    format!(
        "---\norigin: self\ncreatedAt: 2026-01-01T00:00:00.000Z\nupdatedAt: {updated}\n---\n{body}\n"
    )
}

fn put(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

/// A store of notes in nested directories of two homes (the session's and @human).
fn store(env: &TestEnv) {
    let home = env.notes_home();
    for d in 0..6 {
        for n in 0..4 {
            let updated = format!("2026-01-{:02}T00:00:00.000Z", 1 + d * 4 + n);
            put(
                &home.join(format!("human/t{d}/sub{}/n{n}.md", d % 2)),
                &note(&updated, "body"),
            );
        }
    }
    for n in 0..5 {
        let updated = format!("2026-02-{:02}T00:00:00.000Z", 1 + n);
        put(
            &home.join(format!("pi/session/{SESSION}/s{n}.md")),
            &note(&updated, "session"),
        );
    }
}

fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
}

fn list(env: &TestEnv, cached: bool) -> Value {
    list_settling(env, cached, Some(SETTLE_MS))
}

/// A list whose record takes `settle_ms` to trust a change (`None`: the default two seconds).
fn list_settling(env: &TestEnv, cached: bool, settle_ms: Option<&str>) -> Value {
    let mut cmd = notes(env, &["list", "--json"]);
    if let Some(ms) = settle_ms {
        cmd.env("PI_CONTEXT_SETTLE_MS", ms);
    }
    if !cached {
        cmd.env("PI_CONTEXT_NOTES_LIST_CACHE", "off");
    }
    let output = cmd.run().success();
    output.json()
}

/// The list with the record and without it, which must be the same.
fn list_both(env: &TestEnv) -> Value {
    let cached = list(env, true);
    let read = list(env, false);
    assert_eq!(cached, read, "the record changed what the list shows");
    cached
}

fn record_files(env: &TestEnv) -> Vec<PathBuf> {
    let dir = env.home().join(".cache/pi-context/notes");
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "list"))
        .collect()
}

fn the_record(env: &TestEnv) -> PathBuf {
    let files = record_files(env);
    assert_eq!(files.len(), 1, "one record per notes home: {files:?}");
    files.into_iter().next().unwrap()
}

/// A store written, settled and recorded by one list.
fn recorded_store() -> TestEnv {
    let env = TestEnv::new();
    store(&env);
    std::thread::sleep(SETTLE);
    list_both(&env);
    env
}

fn updated_at(list: &Value, address: &str) -> Option<String> {
    list["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["address"] == address)
        .map(|f| f["updated_at"].as_str().unwrap().to_string())
}

#[test]
fn a_settled_store_is_recorded_and_listed_from_the_record() {
    let env = recorded_store();
    let record = fs::read(the_record(&env)).unwrap();
    // The record holds what the list read of each note's frontmatter.
    let block = "2026-01-24T00:00:00.000Z";
    assert!(
        record.windows(block.len()).any(|w| w == block.as_bytes()),
        "the record keeps each note's frontmatter values"
    );
    // Forge one recorded value, same length: a list that trusts the record (the note's stamp
    // is unchanged) shows the forged date; a list without the record shows the note's.
    let forged = "2026-01-29T00:00:00.000Z";
    let at = record
        .windows(block.len())
        .position(|w| w == block.as_bytes())
        .unwrap();
    let mut changed = record.clone();
    changed[at..at + block.len()].copy_from_slice(forged.as_bytes());
    fs::write(the_record(&env), &changed).unwrap();
    let address = "@human/t5/sub1/n3.md";
    assert_eq!(
        updated_at(&list(&env, true), address).as_deref(),
        Some("2026-01-29T00:00:00.000Z"),
        "an unchanged note is served from the record, not read"
    );
    assert_eq!(
        updated_at(&list(&env, false), address).as_deref(),
        Some("2026-01-24T00:00:00.000Z")
    );
}

#[test]
fn a_store_changed_within_the_settling_time_is_not_recorded() {
    let env = TestEnv::new();
    store(&env);
    for _ in 0..2 {
        let cached = list_settling(&env, true, None);
        assert_eq!(cached, list_settling(&env, false, None));
    }
    let record = fs::read(the_record(&env)).unwrap_or_default();
    let block = "2026-01-24T00:00:00.000Z";
    assert!(
        !record.windows(block.len()).any(|w| w == block.as_bytes()),
        "a note changed a moment ago is read again, not recorded"
    );
}

#[test]
fn every_kind_of_change_after_recording_shows_at_once() {
    let env = recorded_store();
    let home = env.notes_home();
    let human = home.join("human");
    let old_time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600);

    // Rewritten in place, same size, its modification time put back: only the change time
    // tells.
    let same_size = human.join("t0/sub0/n0.md");
    fs::write(&same_size, note("2026-03-09T00:00:00.000Z", "body")).unwrap();
    fs::File::options()
        .write(true)
        .open(&same_size)
        .unwrap()
        .set_modified(old_time)
        .unwrap();
    // Replaced by a rename, same size.
    let replaced = human.join("t0/sub0/n1.md");
    let temp = human.join("t0/sub0/n1.tmp");
    fs::write(&temp, note("2026-03-08T00:00:00.000Z", "body")).unwrap();
    fs::rename(&temp, &replaced).unwrap();
    // Removed; added beside recorded notes; a new directory; a directory removed.
    fs::remove_file(human.join("t1/sub1/n0.md")).unwrap();
    put(
        &human.join("t1/sub1/new.md"),
        &note("2026-03-07T00:00:00.000Z", "new"),
    );
    put(
        &human.join("t1/sub1/deeper/more.md"),
        &note("2026-03-06T00:00:00.000Z", "new"),
    );
    fs::remove_dir_all(human.join("t2")).unwrap();
    // A directory swapped for a link to one outside holding a note of the same name.
    let outside = env.root().join("outside");
    put(
        &outside.join("sub1/n0.md"),
        &note("2026-03-05T00:00:00.000Z", "outside"),
    );
    fs::rename(human.join("t3"), env.root().join("t3-moved")).unwrap();
    std::os::unix::fs::symlink(&outside, human.join("t3")).unwrap();
    // A note hard-linked (it has another name now), one swapped for a FIFO, one made a link.
    fs::hard_link(
        human.join("t4/sub0/n0.md"),
        env.root().join("other-name.md"),
    )
    .unwrap();
    let fifo = human.join("t4/sub0/n1.md");
    fs::remove_file(&fifo).unwrap();
    mkfifo(&fifo);
    let linked = human.join("t4/sub0/n2.md");
    fs::remove_file(&linked).unwrap();
    std::os::unix::fs::symlink(outside.join("sub1/n0.md"), &linked).unwrap();
    // A session note written through the store.
    write(&env, "s9", "through the CLI");

    let listed = list_both(&env);
    let all = addresses(&listed);
    assert_eq!(
        updated_at(&listed, "@human/t0/sub0/n0.md").as_deref(),
        Some("2026-03-09T00:00:00.000Z")
    );
    assert_eq!(
        updated_at(&listed, "@human/t0/sub0/n1.md").as_deref(),
        Some("2026-03-08T00:00:00.000Z")
    );
    for gone in [
        "@human/t1/sub1/n0.md",
        "@human/t2/sub0/n0.md",
        "@human/t3/sub1/n0.md",
        "@human/t4/sub0/n0.md",
        "@human/t4/sub0/n1.md",
        "@human/t4/sub0/n2.md",
    ] {
        assert!(!all.contains(&gone.to_string()), "{gone} is still listed");
    }
    for new in [
        "@human/t1/sub1/new.md",
        "@human/t1/sub1/deeper/more.md",
        "s9.md",
    ] {
        assert!(all.contains(&new.to_string()), "{new} is missing");
    }
    assert_eq!(all.len(), 29 - 1 + 2 - 4 - 4 - 3 + 1);

    // The next lists (the record rewritten meanwhile) agree as well.
    list_both(&env);
    std::thread::sleep(SETTLE);
    list_both(&env);
    let again = list_both(&env);
    assert_eq!(addresses(&again), all);
}

#[test]
fn a_damaged_foreign_or_hostile_record_only_costs_speed() {
    let env = recorded_store();
    let record = the_record(&env);
    let truth = list(&env, false);
    let bytes = fs::read(&record).unwrap();
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("empty", Vec::new()),
        (
            "random",
            (0..bytes.len()).map(|i| (i * 7919 % 251) as u8).collect(),
        ),
        ("flipped", {
            let mut b = bytes.clone();
            let mid = b.len() / 2;
            b[mid..].iter_mut().for_each(|x| *x = !*x);
            b
        }),
    ];
    for (what, contents) in damaged {
        fs::write(&record, &contents).unwrap();
        assert_eq!(list(&env, true), truth, "{what} record");
        // A list after a bad record writes a good one again.
        assert_eq!(list(&env, true), truth, "{what} record, rewritten");
    }
    // A record naming a subdirectory `..` (the same length as the `t0` it replaces): the
    // directory is listed again, never walked through the bad name nor given up.
    list(&env, true);
    let bytes = fs::read(&record).unwrap();
    let name = b"\x02t0";
    let at = bytes
        .windows(name.len())
        .position(|w| w == name)
        .expect("the record names t0");
    let mut dotdot = bytes.clone();
    dotdot[at + 1..at + 3].copy_from_slice(b"..");
    fs::write(&record, &dotdot).unwrap();
    assert_eq!(list(&env, true), truth, "a record naming ..");
    // Not a regular file: a link to an endless device, a FIFO nobody writes.
    fs::remove_file(&record).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &record).unwrap();
    assert_eq!(list(&env, true), truth, "a link to /dev/zero");
    fs::remove_file(&record).unwrap();
    mkfifo(&record);
    assert_eq!(list(&env, true), truth, "a FIFO");
}

#[test]
fn the_record_is_private_and_can_be_turned_off() {
    let env = recorded_store();
    let record = the_record(&env);
    assert_eq!(
        fs::metadata(&record).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let dir = record.parent().unwrap();
    assert_eq!(
        fs::metadata(dir).unwrap().permissions().mode() & 0o777,
        0o700
    );

    let other = TestEnv::new();
    store(&other);
    std::thread::sleep(SETTLE);
    list(&other, false);
    assert!(record_files(&other).is_empty(), "off writes no record");
}

#[test]
fn lists_racing_a_writer_end_with_the_notes_as_they_are() {
    let env = recorded_store();
    let home = env.notes_home();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let home = home.clone();
        std::thread::spawn(move || {
            let mut round = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                round += 1;
                for d in 0..6 {
                    // Same size each round: only the stamps can tell the versions apart.
                    let day = 1 + (round % 28);
                    let updated = format!("2026-04-{day:02}T00:00:00.000Z");
                    let path = home.join(format!("human/t{d}/sub{}/n{}.md", d % 2, round % 4));
                    fs::write(path, note(&updated, "body")).unwrap();
                }
            }
            round
        })
    };
    for _ in 0..15 {
        list(&env, true);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let rounds = writer.join().unwrap();
    assert!(rounds > 0);
    list_both(&env);
    std::thread::sleep(SETTLE);
    list_both(&env);
    list_both(&env);
}

#[test]
fn lists_writing_the_record_at_once_all_list_the_notes() {
    let env = recorded_store();
    // Every list of the round below lists this directory again and rewrites the record.
    fs::remove_file(env.notes_home().join("human/t0/sub0/n0.md")).unwrap();
    std::thread::sleep(SETTLE);
    let truth = list(&env, false);
    for round in 0..3 {
        let lists: Vec<Value> = std::thread::scope(|scope| {
            let running: Vec<_> = (0..6).map(|_| scope.spawn(|| list(&env, true))).collect();
            running.into_iter().map(|l| l.join().unwrap()).collect()
        });
        for listed in lists {
            assert_eq!(listed, truth, "round {round}");
        }
        // The record left by the last rename serves the next list.
        assert_eq!(list(&env, true), truth);
        assert_eq!(record_files(&env).len(), 1);
    }
}

#[test]
fn a_list_killed_while_it_writes_the_record_leaves_nothing_wrong_behind() {
    let env = recorded_store();
    let truth = list(&env, false);
    let record = the_record(&env);
    for round in 0..20u64 {
        // Without a record the list reads every note and writes a whole one: kill it somewhere
        // along the way.
        let _ = fs::remove_file(&record);
        let mut child = env
            .process()
            .env("PI_CONTEXT_SESSION_ID", SESSION)
            .args(["notes", "list", "--json"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(500 * round));
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(list(&env, true), truth, "after a kill at round {round}");
    }
    assert_eq!(record_files(&env).len(), 1);
}
