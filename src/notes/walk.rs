//! Finding note files in a home, for `list` and `search`.
//!
//! Only regular `.md` files with a single link and a valid address are notes; symlinks (files or
//! directories) are never followed, and temp files never end in `.md`. The lock directory sits
//! beside the homes, so it is never walked.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::address::{validate_path, Home, Location};
use super::files;
use super::identity::is_slug;

/// A note file found on disk.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub location: Location,
    pub path: PathBuf,
}

/// Every note in `home`. A home that does not exist has none; one that cannot be read (or is
/// reached through a symlink) is an error.
pub fn notes_in(root: &Path, home: &Home) -> io::Result<Vec<Candidate>> {
    let components = home.components();
    match files::dirs_exist(root, &components) {
        Ok(true) => {}
        Ok(false) => return Ok(Vec::new()),
        Err(e) => return Err(io::Error::other(e.to_string())),
    }
    let dir = components.iter().fold(root.to_path_buf(), |p, c| p.join(c));
    let mut found = Vec::new();
    walk(&dir, "", home, &mut found)?;
    Ok(found)
}

fn walk(dir: &Path, prefix: &str, home: &Home, found: &mut Vec<Candidate>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        // The directory entry's type costs no system call; links of regular files are checked
        // on the open file when it is read.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), &relative, home, found)?;
        } else if kind.is_file() && name.ends_with(".md") {
            if validate_path(&relative, &relative).is_err() {
                continue;
            }
            found.push(Candidate {
                location: Location {
                    home: home.clone(),
                    path: relative,
                },
                path: entry.path(),
            });
        }
    }
    Ok(())
}

/// The slug-named home directories under `agents/` or `models/`, sorted.
pub fn home_names(root: &Path, namespace: &str) -> io::Result<Vec<String>> {
    match files::dirs_exist(root, &[namespace]) {
        Ok(true) => {}
        Ok(false) => return Ok(Vec::new()),
        Err(e) => return Err(io::Error::other(e.to_string())),
    }
    let mut names = Vec::new();
    for entry in fs::read_dir(root.join(namespace))? {
        let entry = entry?;
        if !entry.file_type()?.is_dir() {
            continue;
        }
        if let Ok(name) = entry.file_name().into_string() {
            if is_slug(&name) {
                names.push(name);
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Maps `f` over `items` on a few threads when there are enough items to be worth it; the
/// order of the results is the order of the items.
pub fn parallel_map<T: Sync, R: Send>(items: Vec<T>, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    const MIN_PER_THREAD: usize = 64;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if threads <= 1 || items.len() < 2 * MIN_PER_THREAD {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_only_plain_md_files_with_valid_addresses() {
        let dir = tempfile::tempdir().unwrap();
        let human = dir.path().join("human");
        fs::create_dir_all(human.join("sub")).unwrap();
        fs::write(human.join("a.md"), "").unwrap();
        fs::write(human.join("sub/b.md"), "").unwrap();
        fs::write(human.join("skip.txt"), "").unwrap();
        fs::write(human.join(".pi-context.1.2.3.tmp"), "").unwrap();
        fs::write(human.join("bad@name.md"), "").unwrap();
        fs::write(human.join("linked.md"), "").unwrap();
        fs::hard_link(human.join("linked.md"), human.join("linked-too.md")).unwrap();
        std::os::unix::fs::symlink(human.join("a.md"), human.join("sym.md")).unwrap();
        std::os::unix::fs::symlink(dir.path(), human.join("loop")).unwrap();
        let mut paths: Vec<String> = notes_in(dir.path(), &Home::Human)
            .unwrap()
            .into_iter()
            .map(|c| c.location.path)
            .collect();
        paths.sort();
        // Hard-linked files are refused when read (on the open file), not by the walk.
        assert_eq!(
            paths,
            vec!["a.md", "linked-too.md", "linked.md", "sub/b.md"]
        );
    }

    #[test]
    fn a_missing_home_is_empty_and_a_file_home_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(notes_in(dir.path(), &Home::Human).unwrap().is_empty());
        fs::write(dir.path().join("human"), "").unwrap();
        assert!(notes_in(dir.path(), &Home::Human).is_err());
    }

    #[test]
    fn parallel_map_keeps_order() {
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(
            parallel_map(items.clone(), |n| n * 2),
            items.iter().map(|n| n * 2).collect::<Vec<_>>()
        );
    }
}
