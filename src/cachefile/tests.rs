use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::*;

const KIND: Kind = Kind::new(b"PICTXTST", 3);
const MAX: u64 = 1 << 20;

fn save_framed(path: &Path, payload: &[u8]) {
    save(path, &KIND.framed(payload), Durability::Rebuildable).unwrap();
}

fn mapped(path: &Path, kind: Kind, max: u64) -> Option<Vec<u8>> {
    map(path, kind, max).map(|payload| {
        assert!(!payload.damaged());
        payload.bytes().to_vec()
    })
}

#[test]
fn a_frame_is_read_back_read_and_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bin");
    for payload in [&b""[..], b"x", &[7u8; 10_000][..]] {
        save_framed(&path, payload);
        assert_eq!(read(&path, KIND, MAX).as_deref(), Some(payload));
        assert_eq!(mapped(&path, KIND, MAX).as_deref(), Some(payload));
    }
}

#[test]
fn a_frame_built_in_place_is_the_framed_payload() {
    let payload = b"a payload of some length";
    let mut data = KIND.start(payload.len());
    data.extend_from_slice(payload);
    let data = end(data);
    assert_eq!(data, KIND.framed(payload));
    assert_eq!(data.len(), frame::HEADER_LEN + payload.len());
    assert_eq!(&data[frame::HEADER_LEN..], payload);
}

#[test]
fn a_truncated_or_lengthened_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bin");
    let whole = KIND.framed(b"twelve bytes");
    for cut in [whole.len() - 1, frame::HEADER_LEN, frame::HEADER_LEN - 1, 0] {
        fs::write(&path, &whole[..cut]).unwrap();
        assert_eq!(read(&path, KIND, MAX), None, "cut at {cut}");
        assert_eq!(mapped(&path, KIND, MAX), None, "cut at {cut}");
    }
    fs::write(&path, [&whole[..], b"!"].concat()).unwrap();
    assert_eq!(read(&path, KIND, MAX), None, "a byte more than promised");
    assert_eq!(mapped(&path, KIND, MAX), None, "a byte more than promised");
}

#[test]
fn another_magic_or_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bin");
    save_framed(&path, b"payload");
    let other_magic = Kind::new(b"PICTXOTH", 3);
    let other_format = Kind::new(b"PICTXTST", 4);
    for kind in [other_magic, other_format] {
        assert_eq!(read(&path, kind, MAX), None, "{kind:?}");
        assert_eq!(mapped(&path, kind, MAX), None, "{kind:?}");
    }
    assert_eq!(read(&path, KIND, MAX).as_deref(), Some(&b"payload"[..]));
}

#[test]
fn a_payload_over_the_readers_bound_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bin");
    save_framed(&path, b"12345");
    assert_eq!(read(&path, KIND, 4), None);
    assert_eq!(mapped(&path, KIND, 4), None);
    assert!(read(&path, KIND, 5).is_some());
}

#[test]
fn a_link_a_directory_or_a_fifo_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.bin");
    save_framed(&target, b"payload");
    let link = dir.path().join("link.bin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let directory = dir.path().join("dir.bin");
    fs::create_dir(&directory).unwrap();
    let fifo = dir.path().join("fifo.bin");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    for path in [&link, &directory, &fifo] {
        assert_eq!(read(path, KIND, MAX), None, "{}", path.display());
        assert!(map(path, KIND, MAX).is_none(), "{}", path.display());
    }
}

#[test]
fn split_meta_takes_the_length_prefixed_part() {
    let payload = [&5u64.to_le_bytes()[..], b"meta!", b"rest"].concat();
    assert_eq!(split_meta(&payload), Some((&b"meta!"[..], &b"rest"[..])));
    assert_eq!(split_meta(&payload[..12]), None, "a meta cut short");
    assert_eq!(split_meta(&payload[..7]), None, "a length cut short");
}

#[test]
fn a_save_creates_a_private_file_in_a_private_directory_and_leaves_no_temp() {
    let dir = tempfile::tempdir().unwrap();
    for durability in [Durability::Rebuildable, Durability::Durable] {
        let cache = dir.path().join(format!("{durability:?}")).join("cache");
        let path = cache.join("a.bin");
        save(&path, b"old", durability).unwrap();
        save(&path, b"new", durability).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&cache), 0o700);
        let names: Vec<_> = fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.bin"], "no temp file left");
    }
}

/// Each read of a file saved over and over while it is read is one whole version, never a mix
/// of two or a file cut short (a save that wrote in place would show both).
#[test]
fn a_save_leaves_the_old_file_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    for durability in [Durability::Rebuildable, Durability::Durable] {
        let path = dir.path().join(format!("{durability:?}.bin"));
        let versions = [vec![b'a'; 64 << 10], vec![b'b'; 96 << 10]];
        save(&path, &versions[0], durability).unwrap();
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let reader = scope.spawn(|| {
                let mut reads = 0;
                while !done.load(Ordering::Acquire) || reads == 0 {
                    let bytes = fs::read(&path).unwrap();
                    assert!(
                        versions.contains(&bytes),
                        "a read saw {} bytes of neither version",
                        bytes.len()
                    );
                    reads += 1;
                }
            });
            let saves = if durability == Durability::Durable {
                20
            } else {
                200
            };
            for i in 0..saves {
                save(&path, &versions[i % 2], durability).unwrap();
            }
            done.store(true, Ordering::Release);
            reader.join().unwrap();
        });
    }
}

#[test]
fn a_save_that_fails_leaves_what_was_there_and_no_temp() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the file would go: the rename fails.
    let taken = dir.path().join("taken.bin");
    fs::create_dir(&taken).unwrap();
    fs::write(taken.join("inside"), b"kept").unwrap();
    assert!(save(&taken, b"new", Durability::Durable).is_err());
    assert_eq!(fs::read(taken.join("inside")).unwrap(), b"kept");
    // A name the temp name cannot be made from: the temp file is never created.
    let long = dir.path().join("l".repeat(250));
    fs::write(&long, b"old").unwrap();
    assert!(save(&long, b"new", Durability::Rebuildable).is_err());
    assert_eq!(fs::read(&long).unwrap(), b"old");
    let mut names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["l".repeat(250), "taken.bin".to_string()]);
}

#[test]
fn a_cache_file_is_named_from_the_canonical_path() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.jsonl");
    fs::write(&real, b"").unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let cache = Path::new("/cache");
    let (file, key) = for_path(cache, &link, "idx");
    assert_eq!((file.clone(), key.clone()), for_path(cache, &real, "idx"));
    assert_eq!(key, fs::canonicalize(&real).unwrap().to_string_lossy());
    assert_eq!(file.parent(), Some(cache));
    assert!(file.to_string_lossy().ends_with(".idx"));
    let missing = dir.path().join("gone.jsonl");
    assert_eq!(
        for_path(cache, &missing, "idx").1,
        missing.to_string_lossy()
    );
}

#[test]
fn prefix_checks_hash_both_ends() {
    let mut bytes = vec![b'x'; 3 * CHECK_BYTES];
    let checks = prefix_checks(&bytes);
    bytes[CHECK_BYTES + 1] = b'y';
    assert_eq!(prefix_checks(&bytes), checks, "the middle is not hashed");
    bytes[0] = b'y';
    assert_ne!(prefix_checks(&bytes).0, checks.0);
    let last = bytes.len() - 1;
    bytes[last] = b'y';
    assert_ne!(prefix_checks(&bytes).1, checks.1);
}
