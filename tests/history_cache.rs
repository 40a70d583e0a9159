//! A bad session index only costs speed (issue 9, item 6).
//!
//! An index file that was a symlink to `/dev/zero`, or a 2 GB sparse file, used to be read whole
//! (an OOM kill); a FIFO planted as one hung the binary. Here each bad index is planted where the
//! real one lives, and `history` must still answer exactly what a fresh parse answers, with a
//! small peak memory (a 4 GiB address-space limit keeps a runaway read from exhausting the
//! machine), and before a generous kill timeout that only guards against a hang.

use crate::common;

use std::io::Write;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::session::SessionBuilder;
use common::TestEnv;

/// The address space a call may use, so that reading a bad index whole ends before the machine's
/// memory does.
const ADDRESS_SPACE_BYTES: u64 = 4 << 30;
/// The most memory a call on a small session may need; reading a 2 GB index needs 2 GB.
const PEAK_RSS_BYTES: u64 = 256 << 20;

struct Cache {
    env: TestEnv,
    session: PathBuf,
}

impl Cache {
    fn new() -> Cache {
        Cache::with_turns(40)
    }

    /// A session of `turns` questions, each answered with a tool call, its result and a reply.
    fn with_turns(turns: usize) -> Cache {
        let env = TestEnv::new();
        let mut s = SessionBuilder::new();
        for n in 0..turns {
            s.user(&format!("question {n}"));
            let call = format!("call{n}");
            s.assistant_with_calls("", &[(&call, "read", r#"{"path":"a.md"}"#)]);
            s.tool_result(&call, "read", &format!("file {n} about caches"), false);
            s.assistant(&format!("answer {n} about caches"));
        }
        let session = s.write_to(env.work().join("session.jsonl"));
        Cache { env, session }
    }

    fn cache_dir(&self) -> PathBuf {
        self.env.root().join("cache")
    }

    /// `pi-context history <args> --session S`, always indexing, with the memory limit and the
    /// hang guard.
    fn run(&self, args: &[&str], indexed: bool) -> Output {
        let mut cmd = self.env.process();
        cmd.env("PI_CONTEXT_CACHE_DIR", self.cache_dir())
            .env("PI_CONTEXT_CACHE_MIN_BYTES", "0")
            .env(
                "PI_CONTEXT_SESSION_INDEX",
                if indexed { "on" } else { "off" },
            )
            .arg("history")
            .args(args)
            .arg("--session")
            .arg(&self.session)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        run_guarded(cmd)
    }

    /// The one cache file of kind `ext` (`idx`: the session index, `proj`: the stored
    /// projection), written by an indexed call.
    fn index_file(&self, ext: &str) -> PathBuf {
        let output = self.run(&["list", "--json"], true);
        assert!(output.status.success(), "{output:?}");
        let dir = self.cache_dir().join("sessions");
        let files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        assert_eq!(files.len(), 1, "one .{ext} file: {files:?}");
        files[0].clone()
    }

    /// Plants `bad` as the cache file of kind `ext`, then checks that every operation answers
    /// as a fresh parse does, and that the bad file was replaced by a good one.
    fn check_survives(&self, what: &str, ext: &str, plant: impl FnOnce(&Path)) {
        let index = self.index_file(ext);
        std::fs::remove_file(&index).unwrap();
        plant(&index);
        for args in [
            &["windows", "--json"][..],
            &["list", "--json"],
            &["search", "caches", "--json"],
            &["read", "7"],
        ] {
            let expected = self.run(args, false);
            assert!(expected.status.success(), "{expected:?}");
            let got = self.run(args, true);
            assert_eq!(
                got.status.signal(),
                None,
                "{what}: {args:?} was killed: {got:?}"
            );
            assert!(got.status.success(), "{what}: {args:?} failed: {got:?}");
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&expected.stdout),
                "{what}: {args:?} answers as a fresh parse does"
            );
        }
        let replaced = std::fs::symlink_metadata(&index).unwrap();
        assert!(
            replaced.file_type().is_file(),
            "{what}: a fresh index replaced the bad one"
        );
        assert!(replaced.len() < 1 << 20, "{what}: the new index is small");
    }
}

/// Runs the child under the hang guard and the address-space limit, and checks its peak
/// memory.
fn run_guarded(cmd: Command) -> Output {
    let (output, peak) = common::peak::run_measured_within(cmd, Some(ADDRESS_SPACE_BYTES));
    assert!(
        peak < PEAK_RSS_BYTES,
        "the call used {} MiB: {output:?}",
        peak >> 20
    );
    output
}

fn mkfifo(path: &Path) {
    let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
}

/// The cache files a call keeps: the session index and the stored projection.
const KINDS: [&str; 2] = ["idx", "proj"];

/// The header of a cache file of kind `ext` of the current format (magic and format, read off
/// the one the binary writes, so that it cannot go stale), promising a payload of this length.
fn index_header(cache: &Cache, ext: &str, payload_len: u64) -> Vec<u8> {
    let written = std::fs::read(cache.index_file(ext)).unwrap();
    let mut header = written[..12].to_vec();
    header.extend_from_slice(&payload_len.to_le_bytes());
    header
}

#[test]
fn a_symlink_to_dev_zero_is_not_followed() {
    for ext in KINDS {
        Cache::new().check_survives("a symlink to /dev/zero", ext, |index| {
            symlink("/dev/zero", index).unwrap();
        });
    }
}

#[test]
fn a_2_gb_sparse_file_is_not_read() {
    for ext in KINDS {
        Cache::new().check_survives("a 2 GB sparse file", ext, |index| {
            std::fs::File::create(index)
                .unwrap()
                .set_len(2 << 30)
                .unwrap();
        });
    }
}

#[test]
fn a_2_gb_sparse_file_whose_header_promises_it_all_is_not_read() {
    for ext in KINDS {
        let cache = Cache::new();
        let len: u64 = 2 << 30;
        let header = index_header(&cache, ext, len - 20);
        cache.check_survives("a 2 GB file with a header promising 2 GB", ext, |index| {
            let mut file = std::fs::File::create(index).unwrap();
            file.write_all(&header).unwrap();
            file.set_len(len).unwrap();
        });
    }
}

#[test]
fn a_fifo_is_not_opened_for_reading_blocked() {
    for ext in KINDS {
        Cache::new().check_survives("a FIFO", ext, mkfifo);
    }
}

#[test]
fn a_truncated_index_is_ignored() {
    for ext in KINDS {
        let cache = Cache::new();
        let good = std::fs::read(cache.index_file(ext)).unwrap();
        cache.check_survives("a truncated index", ext, |index| {
            std::fs::write(index, &good[..good.len() / 2]).unwrap();
        });
    }
}

/// A stored projection whose every byte after the header is flipped in turn, one at a time,
/// must never change an answer (each index is checked against the session).
#[test]
fn a_stored_projection_with_any_byte_changed_only_costs_speed() {
    let cache = Cache::new();
    let good = std::fs::read(cache.index_file("proj")).unwrap();
    for at in (20..good.len()).step_by((good.len() / 24).max(1)) {
        cache.check_survives("a changed byte", "proj", |index| {
            let mut bad = good.clone();
            bad[at] ^= 0x5a;
            std::fs::write(index, &bad).unwrap();
        });
    }
}

/// An index whose entries are decoded a chunk at a time when first used (a list or a search
/// decodes only the chunks it shows) may turn out corrupt in a chunk only when that chunk is
/// reached: the operation is then done again on a fresh parse, never answered from stand-ins.
/// Here the last chunk (the newest entries, which every list shows) ends in bytes that cannot
/// be decoded.
#[test]
fn a_corrupt_chunk_of_the_index_only_costs_speed() {
    // 4 entries a turn: several chunks of the index.
    let cache = Cache::with_turns(400);
    let good = std::fs::read(cache.index_file("idx")).unwrap();
    cache.check_survives("a corrupt last chunk", "idx", |index| {
        let mut bad = good.clone();
        let len = bad.len();
        bad[len - 16..].fill(0xff);
        std::fs::write(index, &bad).unwrap();
    });
}

/// The atom table (entry ids, tool names) is read from the index only when an atom is first
/// used, well after the index was opened; a table that is not UTF-8 is found then, and the
/// operation is done again on a fresh parse. Here the table's `call7` starts with a byte that
/// UTF-8 never uses.
#[test]
fn an_atom_table_that_is_not_utf8_only_costs_speed() {
    let cache = Cache::new();
    let good = std::fs::read(cache.index_file("idx")).unwrap();
    let id = b"call7";
    let at = good
        .windows(id.len())
        .position(|w| w == id)
        .expect("the atom table holds the call ids");
    cache.check_survives("an atom table that is not UTF-8", "idx", |index| {
        let mut bad = good.clone();
        bad[at] = 0xff;
        std::fs::write(index, &bad).unwrap();
    });
}

#[test]
fn random_bytes_are_ignored() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let bytes: Vec<u8> = (0..65_536)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    for ext in KINDS {
        Cache::new().check_survives("random bytes", ext, |index| {
            std::fs::write(index, &bytes).unwrap();
        });
        let cache = Cache::new();
        let header = index_header(&cache, ext, bytes.len() as u64);
        cache.check_survives("random bytes after a valid header", ext, |index| {
            let mut data = header.clone();
            data.extend_from_slice(&bytes);
            std::fs::write(index, &data).unwrap();
        });
    }
}

#[test]
fn a_directory_in_the_index_place_only_costs_speed() {
    for ext in KINDS {
        let cache = Cache::new();
        let index = cache.index_file(ext);
        std::fs::remove_file(&index).unwrap();
        std::fs::create_dir(&index).unwrap();
        let expected = cache.run(&["list", "--json"], false);
        let got = cache.run(&["list", "--json"], true);
        assert!(got.status.success(), "{got:?}");
        assert_eq!(got.stdout, expected.stdout);
    }
}

#[test]
fn index_files_are_private() {
    let cache = Cache::new();
    let index = cache.index_file("idx");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&index), 0o600, "the index file");
    assert_eq!(
        mode(&cache.index_file("proj")),
        0o600,
        "the stored projection"
    );
    assert_eq!(mode(index.parent().unwrap()), 0o700, "its directory");
    let leftovers: Vec<_> = std::fs::read_dir(index.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temp files left: {leftovers:?}");
}
