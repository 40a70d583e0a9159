//! Finding note files in a home, for `list` and `search`.
//!
//! Only regular `.md` files with a single link and a valid address are notes; symlinks (files or
//! directories) are never followed, and temp files never end in `.md`. The lock directory sits
//! beside the homes, so it is never walked.

use std::sync::Arc;

use super::address::{validate_path, Home, Location};
use super::identity::is_slug;
use crate::beneath::{BeneathError, Dir, Kind};

/// A note file found on disk.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub location: Location,
    /// The note's directory as components below the notes home (shared by its siblings, which
    /// come one after another, so a reader opens each directory once).
    pub dir: Arc<[String]>,
    pub name: String,
}

/// Every note in `home`, found from the notes home's handle `root`. A home that does not exist
/// has none; one that cannot be read (or is reached through a symlink) is an error.
pub fn notes_in(root: &Dir, home: &Home) -> Result<Vec<Candidate>, BeneathError> {
    let components = home.components();
    let Some(mut dir) = root.open_dirs(&components)? else {
        return Ok(Vec::new());
    };
    let components = components.into_iter().map(str::to_string).collect();
    let mut found = Vec::new();
    walk(&mut dir, components, "", home, &mut found)?;
    Ok(found)
}

fn walk(
    dir: &mut Dir,
    components: Vec<String>,
    prefix: &str,
    home: &Home,
    found: &mut Vec<Candidate>,
) -> Result<(), BeneathError> {
    let shared: Arc<[String]> = components.clone().into();
    let mut subdirs = Vec::new();
    for entry in dir.entries()? {
        let Ok(name) = entry.name.into_string() else {
            continue;
        };
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        // The listing's type costs no system call; links of regular files, and a file swapped
        // meanwhile, are checked on the open file when it is read.
        match entry.kind {
            Kind::Dir => subdirs.push((name, relative)),
            Kind::File if name.ends_with(".md") && validate_path(&relative, &relative).is_ok() => {
                found.push(Candidate {
                    location: Location {
                        home: home.clone(),
                        path: relative,
                    },
                    dir: Arc::clone(&shared),
                    name,
                });
            }
            _ => {}
        }
    }
    for (name, relative) in subdirs {
        let Some(mut child) = dir.open_dir(&name)? else {
            continue;
        };
        let mut below = components.clone();
        below.push(name);
        walk(&mut child, below, &relative, home, found)?;
    }
    Ok(())
}

/// The slug-named home directories under `agents/` or `models/`, sorted.
pub fn home_names(root: &Dir, namespace: &str) -> Result<Vec<String>, BeneathError> {
    let Some(mut dir) = root.open_dir(namespace)? else {
        return Ok(Vec::new());
    };
    let mut names: Vec<String> = dir
        .entries()?
        .into_iter()
        .filter(|entry| entry.kind == Kind::Dir)
        .filter_map(|entry| entry.name.into_string().ok())
        .filter(|name| is_slug(name))
        .collect();
    names.sort();
    Ok(names)
}

/// The directory of each candidate in turn, opened from the notes home through the chain of its
/// parents. The chain stays open between lookups, so walking candidates in walk order opens each
/// directory about once. `None` for a directory that cannot be opened (its notes are skipped).
pub struct DirCache<'a> {
    root: &'a Dir,
    /// `open[i]` is the directory `components[..=i]` of the last lookup.
    open: Vec<(String, Dir)>,
}

impl<'a> DirCache<'a> {
    pub fn new(root: &'a Dir) -> Self {
        DirCache {
            root,
            open: Vec::new(),
        }
    }

    pub fn get(&mut self, dir: &[String]) -> Option<&Dir> {
        let shared = self
            .open
            .iter()
            .zip(dir)
            .take_while(|((open, _), wanted)| open == *wanted)
            .count();
        self.open.truncate(shared);
        for name in &dir[shared..] {
            let parent = self.open.last().map_or(self.root, |(_, d)| d);
            let child = parent.open_dir(name).ok().flatten()?;
            self.open.push((name.clone(), child));
        }
        Some(self.open.last().map_or(self.root, |(_, d)| d))
    }
}

/// Maps `f` over `items` on a few threads when there are enough items to be worth it; the
/// order of the results is the order of the items. Each thread has its own `state`.
pub fn parallel_map<T: Sync, S, R: Send>(
    items: Vec<T>,
    state: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    const MIN_PER_THREAD: usize = 64;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let run = |part: &[T]| {
        let mut state = state();
        part.iter()
            .map(|item| f(&mut state, item))
            .collect::<Vec<R>>()
    };
    if threads <= 1 || items.len() < 2 * MIN_PER_THREAD {
        return run(&items);
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let run = &run;
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || run(part)))
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
    use std::fs;

    fn root(path: &std::path::Path) -> Dir {
        Dir::open_root(path).unwrap().unwrap()
    }

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
        fs::write(human.join("zero\u{200B}width.md"), "").unwrap();
        fs::write(human.join("linked.md"), "").unwrap();
        fs::hard_link(human.join("linked.md"), human.join("linked-too.md")).unwrap();
        std::os::unix::fs::symlink(human.join("a.md"), human.join("sym.md")).unwrap();
        std::os::unix::fs::symlink(dir.path(), human.join("loop")).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            human.join("fifo.md"),
            rustix::fs::Mode::from_raw_mode(0o644),
        )
        .unwrap();
        let found = notes_in(&root(dir.path()), &Home::Human).unwrap();
        let mut paths: Vec<String> = found.iter().map(|c| c.location.path.clone()).collect();
        paths.sort();
        // Hard-linked files are refused when read (on the open file), not by the walk.
        assert_eq!(
            paths,
            vec!["a.md", "linked-too.md", "linked.md", "sub/b.md"]
        );
        let sub = found.iter().find(|c| c.name == "b.md").unwrap();
        assert_eq!(&sub.dir[..], ["human".to_string(), "sub".to_string()]);
    }

    #[test]
    fn a_missing_home_is_empty_and_a_file_or_link_home_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(notes_in(&root(dir.path()), &Home::Human)
            .unwrap()
            .is_empty());
        fs::write(dir.path().join("human"), "").unwrap();
        assert!(notes_in(&root(dir.path()), &Home::Human).is_err());
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("n.md"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("models")).unwrap();
        assert!(home_names(&root(dir.path()), "models").is_err());
    }

    #[test]
    fn parallel_map_keeps_order() {
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(
            parallel_map(items.clone(), || 0, |_, n| n * 2),
            items.iter().map(|n| n * 2).collect::<Vec<_>>()
        );
    }
}
