//! Finding note files in a home, for `list`, `search` and the wastebasket.
//!
//! Only regular `.md` files with a single link and a valid address are notes; symlinks (files or
//! directories) are never followed, and temp files never end in `.md`. The lock directory sits
//! beside the homes, so it is never walked.
//!
//! A walk may be given the listings `list` cached ([`Listings`]): a directory whose [`Stamp`]
//! is the one recorded with its listing is not opened nor listed again, and its notes are handed
//! over in a [`Place`] that opens the directory only when a note must be read.

use std::cell::OnceCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::address::{validate_path, Home, Location};
use super::identity::is_slug;
use crate::beneath::{BeneathError, Dir, Kind, PathBelow, Stamp};

/// A note found by [`visit_notes`].
pub struct Found<'a> {
    pub location: Location,
    /// The note's directory.
    pub dir: &'a Place<'a>,
    /// The note's file name in `dir`.
    pub name: &'a str,
}

/// The directory of the notes of one task: open already, or known from a cached listing and
/// opened (from the notes home's handle, one component at a time) only when first needed.
pub struct Place<'a> {
    root: &'a Dir,
    /// The directory's path below the notes home (`human/design`).
    path: &'a str,
    open: OnceCell<Option<Arc<Dir>>>,
    /// The path checked once for the `fstatat` of each note, while the directory is not open.
    below: OnceCell<Option<PathBelow>>,
}

impl<'a> Place<'a> {
    fn new(root: &'a Dir, path: &'a str, handle: Option<Arc<Dir>>) -> Place<'a> {
        let open = OnceCell::new();
        if let Some(handle) = handle {
            let _ = open.set(Some(handle));
        }
        Place {
            root,
            path,
            open,
            below: OnceCell::new(),
        }
    }

    /// The directory's path below the notes home.
    pub fn path(&self) -> &str {
        self.path
    }

    /// The open directory, opened now if it was not; `None` when it cannot be.
    pub fn dir(&self) -> Option<&Dir> {
        self.open
            .get_or_init(|| {
                let components: Vec<&str> = self.path.split('/').collect();
                self.root
                    .open_dirs(&components)
                    .ok()
                    .flatten()
                    .map(Arc::new)
            })
            .as_deref()
    }

    /// The [`Stamp`] of the entry `name` of this directory: through its handle when it is open,
    /// else by its path (see [`Dir::stamp_below`]); `None` when it is missing or cannot be told.
    pub fn stamp(&self, name: &str) -> Option<Stamp> {
        match self.open.get() {
            Some(Some(dir)) => dir.stamp(name).ok().flatten(),
            Some(None) => None,
            None => {
                let below = self.below.get_or_init(|| {
                    let components: Vec<&str> = self.path.split('/').collect();
                    self.root.path_below(&components).ok()
                });
                self.root.stamp_at(below.as_ref()?, name).ok().flatten()
            }
        }
    }
}

/// The directory listings a walk may trust without listing again (`list`'s cache).
pub trait Listings: Sync {
    /// The listing recorded for the directory at `path` below the notes home, with the stamp
    /// the directory had then.
    fn listing(&self, path: &str) -> Option<(Stamp, DirListing)>;
}

/// A directory's entries as a walk uses them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirListing {
    pub subdirs: Vec<String>,
    /// File names that may be notes (`.md`, a valid address, checked when the directory was
    /// listed); links and hard links are told apart only when one is read.
    pub notes: Vec<String>,
}

/// A directory a walk with [`Listings`] reached.
#[derive(Debug)]
pub struct Listed {
    /// Below the notes home.
    pub path: String,
    /// The directory's stamp, taken before it was listed; `None` when the cached listing was
    /// trusted (the recorded one still holds).
    pub stamp: Option<Stamp>,
    /// The entries, when the directory was listed again.
    pub listing: Option<DirListing>,
}

/// What [`visit_notes`] kept, and which homes could not be read.
pub struct Visited<R> {
    /// In batches, in no particular order. Results are not gathered into one vector here: a
    /// caller that orders them moves each once, into its final place.
    pub kept: Vec<Vec<R>>,
    /// Indexes (into the walk's `homes`, ascending) of the homes with a directory that could not
    /// be opened or listed. None of their notes are in `kept`.
    pub failed: Vec<usize>,
    /// With [`Listings`]: every directory reached, in no particular order.
    pub listed: Vec<Listed>,
}

/// Notes handed to one task: a few dozen, so that the threads share a large directory.
const NOTES_PER_TASK: usize = 32;
/// Helper threads start once this many tasks wait: a small store is walked by the calling
/// thread alone, without paying for threads.
const TASKS_FOR_HELPERS: usize = 2;

/// Visits every note of `homes` below the notes home `root`, reading each note while its
/// directory is open: every directory is opened once, from its parent's handle (one
/// `openat(O_NOFOLLOW)`), listed once, and its notes are handed to `visit` with that handle.
/// `wanted` sees each note's location first (the pattern), so unwanted notes are never opened.
/// `state` makes the scratch state of each thread (a reused read buffer). Directories and
/// batches of notes are tasks on a shared stack; the calling thread starts alone and brings in
/// helper threads (one per further core, at most 8 in all) once enough tasks wait. A home whose
/// directories cannot all be opened and listed keeps none of its notes: it is reported, never
/// half shown.
///
/// With `listings`, a directory whose stamp still is the recorded one is taken from them
/// instead (one `fstatat`, no open), and every directory reached is reported in
/// [`Visited::listed`].
pub fn visit_notes<S, R, W, I, V>(
    root: &Dir,
    homes: &[Home],
    listings: Option<&dyn Listings>,
    wanted: W,
    state: I,
    visit: V,
) -> Visited<R>
where
    R: Send,
    W: Fn(&Location) -> bool + Sync,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, Found<'_>) -> Option<R> + Sync,
{
    let walk = Walk {
        root,
        homes,
        home_paths: homes
            .iter()
            .map(|home| home.components().join("/"))
            .collect(),
        listings,
        wanted,
        state,
        visit,
        queue: Mutex::new(Queue {
            tasks: (0..homes.len()).rev().map(Task::Home).collect(),
            active: 0,
            waiting_work: 0,
        }),
        changed: Condvar::new(),
        failed: homes.iter().map(|_| AtomicBool::new(false)).collect(),
    };
    let mut gathered = Gathered::default();
    std::thread::scope(|scope| {
        let mut helpers = Vec::new();
        let mut started = false;
        walk.work(&mut gathered, || {
            if std::mem::replace(&mut started, true) {
                return;
            }
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
            for _ in 1..threads {
                // A thread the system refuses is one helper fewer, not an error.
                let helper = std::thread::Builder::new().spawn_scoped(scope, || {
                    let mut gathered = Gathered::default();
                    walk.work(&mut gathered, || {});
                    gathered
                });
                helpers.extend(helper.ok());
            }
        });
        for helper in helpers {
            match helper.join() {
                Ok(theirs) => {
                    gathered.kept.extend(theirs.kept);
                    gathered.listed.extend(theirs.listed);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    let failed: Vec<usize> = (0..homes.len()).filter(|&i| walk.has_failed(i)).collect();
    let kept = gathered
        .kept
        .into_iter()
        .filter(|(home, _)| !failed.contains(home))
        .map(|(_, batch)| batch)
        .collect();
    Visited {
        kept,
        failed,
        listed: gathered.listed,
    }
}

/// What one thread gathered: per task, its home's index and the results of its notes; and the
/// directories it reached (with [`Listings`]).
struct Gathered<R> {
    kept: Vec<(usize, Vec<R>)>,
    listed: Vec<Listed>,
}

impl<R> Default for Gathered<R> {
    fn default() -> Self {
        Gathered {
            kept: Vec::new(),
            listed: Vec::new(),
        }
    }
}

/// A unit of work of a walk.
enum Task {
    /// Open and walk the home `homes[index]`.
    Home(usize),
    /// Walk the subdirectory `name` (at `relative` in its home): opened from `parent`'s handle,
    /// or, when the parent was not opened (its listing was cached), from the notes home's.
    Directory {
        home: usize,
        parent: Option<Arc<Dir>>,
        name: String,
        relative: String,
    },
    /// Visit these notes (file name, path in the home) of the directory at `path` below the
    /// notes home, open already or not.
    Notes {
        home: usize,
        dir: Option<Arc<Dir>>,
        path: Arc<str>,
        notes: Vec<(String, String)>,
    },
}

struct Queue {
    /// Taken last in, first out: the walk goes depth first, so few directories stay open.
    tasks: Vec<Task>,
    /// Tasks being run; the walk is over when none are and none wait.
    active: usize,
    /// Directories and batches of notes among `tasks` (opening a home that may not exist is
    /// not worth a thread).
    waiting_work: usize,
}

/// The shared state of one [`visit_notes`] walk.
struct Walk<'a, W, I, V> {
    root: &'a Dir,
    homes: &'a [Home],
    /// Each home's directory below the notes home.
    home_paths: Vec<String>,
    listings: Option<&'a dyn Listings>,
    wanted: W,
    state: I,
    visit: V,
    queue: Mutex<Queue>,
    /// Signalled when a task is added or the walk is over.
    changed: Condvar,
    failed: Vec<AtomicBool>,
}

/// Marks a task done, even when it unwinds, so that no thread waits forever.
struct Done<'q> {
    queue: &'q Mutex<Queue>,
    changed: &'q Condvar,
}

impl Drop for Done<'_> {
    fn drop(&mut self) {
        let mut queue = lock(self.queue);
        queue.active -= 1;
        if queue.active == 0 && queue.tasks.is_empty() {
            self.changed.notify_all();
        }
    }
}

fn lock(queue: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    queue
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A directory's path below the notes home, from its home's and its path in the home.
fn full_path(home_path: &str, relative: &str) -> String {
    match (home_path.is_empty(), relative.is_empty()) {
        (_, true) => home_path.to_string(),
        (true, false) => relative.to_string(),
        (false, false) => format!("{home_path}/{relative}"),
    }
}

/// The path in its home of the entry `name` of the directory at `prefix`.
fn child_path(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    }
}

impl<S, R, W, I, V> Walk<'_, W, I, V>
where
    W: Fn(&Location) -> bool + Sync,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, Found<'_>) -> Option<R> + Sync,
{
    /// Runs tasks until the walk is over, keeping what `visit` keeps (with its home's index).
    /// `busy` is called after each task while tasks wait (the calling thread starts helpers).
    fn work(&self, gathered: &mut Gathered<R>, mut busy: impl FnMut()) {
        let mut state = (self.state)();
        while let Some(task) = self.next_task() {
            let done = Done {
                queue: &self.queue,
                changed: &self.changed,
            };
            self.run(task, &mut state, gathered);
            drop(done);
            if lock(&self.queue).waiting_work >= TASKS_FOR_HELPERS {
                busy();
            }
        }
    }

    /// The next task, waiting while other threads may still add some; `None` when the walk is
    /// over.
    fn next_task(&self) -> Option<Task> {
        let mut queue = lock(&self.queue);
        loop {
            if let Some(task) = queue.tasks.pop() {
                queue.active += 1;
                if !matches!(task, Task::Home(_)) {
                    queue.waiting_work -= 1;
                }
                return Some(task);
            }
            if queue.active == 0 {
                return None;
            }
            queue = self
                .changed
                .wait(queue)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Adds tasks under one lock, waking as many waiting threads as there are tasks.
    fn push(&self, tasks: Vec<Task>) {
        if tasks.is_empty() {
            return;
        }
        let added = tasks.len();
        let mut queue = lock(&self.queue);
        queue.tasks.extend(tasks);
        queue.waiting_work += added;
        drop(queue);
        if added == 1 {
            self.changed.notify_one();
        } else {
            self.changed.notify_all();
        }
    }

    fn fail(&self, home: usize) {
        self.failed[home].store(true, Ordering::Relaxed);
    }

    fn has_failed(&self, home: usize) -> bool {
        self.failed[home].load(Ordering::Relaxed)
    }

    fn run(&self, task: Task, state: &mut S, gathered: &mut Gathered<R>) {
        match task {
            Task::Home(home) => {
                let path = self.home_paths[home].clone();
                if self.walk_recorded(home, &path, "", state, gathered) {
                    return;
                }
                match self.root.open_dirs(&self.homes[home].components()) {
                    Ok(Some(dir)) => {
                        self.directory(home, dir, path, String::new(), state, gathered)
                    }
                    Ok(None) => {}
                    Err(_) => self.fail(home),
                }
            }
            Task::Directory {
                home,
                parent,
                name,
                relative,
            } => {
                if self.has_failed(home) {
                    return;
                }
                let path = full_path(&self.home_paths[home], &relative);
                if self.walk_recorded(home, &path, &relative, state, gathered) {
                    return;
                }
                let opened = match parent {
                    Some(parent) => parent.open_dir(&name),
                    None => {
                        let components: Vec<&str> = path.split('/').collect();
                        self.root.open_dirs(&components)
                    }
                };
                match opened {
                    Ok(Some(dir)) => self.directory(home, dir, path, relative, state, gathered),
                    Ok(None) => {}
                    Err(_) => self.fail(home),
                }
            }
            Task::Notes {
                home,
                dir,
                path,
                notes,
            } => {
                let place = Place::new(self.root, &path, dir);
                self.notes(home, &place, notes, state, gathered);
            }
        }
    }

    /// Walks the directory at `path` below the notes home (at `relative` in its home) from its
    /// cached listing, when there is one and the directory's stamp is still the recorded one.
    fn walk_recorded(
        &self,
        home: usize,
        path: &str,
        relative: &str,
        state: &mut S,
        gathered: &mut Gathered<R>,
    ) -> bool {
        let Some((recorded, listing)) = self.listings.and_then(|l| l.listing(path)) else {
            return false;
        };
        let components: Vec<&str> = path.split('/').collect();
        let unchanged = recorded.kind() == Kind::Dir
            && self.root.stamp_below(&components).ok().flatten() == Some(recorded);
        if !unchanged {
            return false;
        }
        gathered.listed.push(Listed {
            path: path.to_string(),
            stamp: None,
            listing: None,
        });
        self.entries(home, None, path, relative, listing, state, gathered);
        true
    }

    /// Lists the open directory `dir` (at `path` below the notes home, `prefix` in its home) and
    /// walks its entries.
    fn directory(
        &self,
        home: usize,
        mut dir: Dir,
        path: String,
        prefix: String,
        state: &mut S,
        gathered: &mut Gathered<R>,
    ) {
        if self.has_failed(home) {
            return;
        }
        // Taken before the listing: a change made while it is read gives the directory another
        // stamp than the recorded one.
        let stamp = match self.listings {
            Some(_) => match dir.own_stamp() {
                Ok(stamp) => Some(stamp),
                Err(_) => return self.fail(home),
            },
            None => None,
        };
        let Ok(entries) = dir.entries() else {
            return self.fail(home);
        };
        let mut listing = DirListing::default();
        for entry in entries {
            let Ok(name) = entry.name.into_string() else {
                continue;
            };
            // The listing's type costs no system call; links of regular files, and a file
            // swapped meanwhile, are checked on the open file when it is read.
            match entry.kind {
                Kind::Dir => listing.subdirs.push(name),
                Kind::File if is_note_path(&name, &child_path(&prefix, &name)) => {
                    listing.notes.push(name)
                }
                _ => {}
            }
        }
        if self.listings.is_some() {
            gathered.listed.push(Listed {
                path: path.clone(),
                stamp,
                listing: Some(listing.clone()),
            });
        }
        let dir = Arc::new(dir);
        self.entries(home, Some(dir), &path, &prefix, listing, state, gathered);
    }

    /// Hands the subdirectories of a directory and all but the last few of its notes to other
    /// tasks, and visits those notes itself.
    #[allow(clippy::too_many_arguments)]
    fn entries(
        &self,
        home: usize,
        dir: Option<Arc<Dir>>,
        path: &str,
        prefix: &str,
        listing: DirListing,
        state: &mut S,
        gathered: &mut Gathered<R>,
    ) {
        let mut tasks: Vec<Task> = listing
            .subdirs
            .into_iter()
            .map(|name| Task::Directory {
                home,
                parent: dir.clone(),
                relative: child_path(prefix, &name),
                name,
            })
            .collect();
        let mut notes: Vec<(String, String)> = listing
            .notes
            .into_iter()
            .map(|name| {
                let relative = child_path(prefix, &name);
                (name, relative)
            })
            .collect();
        let path: Arc<str> = Arc::from(path);
        while notes.len() > NOTES_PER_TASK {
            let batch = notes.split_off(notes.len() - NOTES_PER_TASK);
            tasks.push(Task::Notes {
                home,
                dir: dir.clone(),
                path: Arc::clone(&path),
                notes: batch,
            });
        }
        self.push(tasks);
        let place = Place::new(self.root, &path, dir);
        self.notes(home, &place, notes, state, gathered);
    }

    fn notes(
        &self,
        home: usize,
        place: &Place<'_>,
        notes: Vec<(String, String)>,
        state: &mut S,
        gathered: &mut Gathered<R>,
    ) {
        let mut results = Vec::with_capacity(notes.len());
        for (name, path) in notes {
            if self.has_failed(home) {
                return;
            }
            let location = Location {
                home: self.homes[home].clone(),
                path,
            };
            if !(self.wanted)(&location) {
                continue;
            }
            let found = Found {
                location,
                dir: place,
                name: &name,
            };
            if let Some(result) = (self.visit)(state, found) {
                results.push(result);
            }
        }
        if !results.is_empty() {
            gathered.kept.push((home, results));
        }
    }
}

/// Whether the file `name`, at `relative` in its home, may be a note: `.md` and a valid
/// address.
fn is_note_path(name: &str, relative: &str) -> bool {
    name.ends_with(".md") && validate_path(relative, relative).is_ok()
}

/// A note file found on disk by [`notes_in`].
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The note's directory as components below the notes home.
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
    walk(&mut dir, components, "", &mut found)?;
    Ok(found)
}

fn walk(
    dir: &mut Dir,
    components: Vec<String>,
    prefix: &str,
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
        walk(&mut child, below, &relative, found)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn root(path: &std::path::Path) -> Dir {
        Dir::open_root(path).unwrap().unwrap()
    }

    /// A `human/` home with notes beside everything that is not one.
    fn odd_home(dir: &std::path::Path) {
        let human = dir.join("human");
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
        std::os::unix::fs::symlink(dir, human.join("loop")).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            human.join("fifo.md"),
            rustix::fs::Mode::from_raw_mode(0o644),
        )
        .unwrap();
    }

    /// The paths `visit_notes` hands over in `homes`, sorted, and the failed homes.
    fn visited_paths(
        root: &Dir,
        homes: &[Home],
        wanted: impl Fn(&Location) -> bool + Sync,
    ) -> (Vec<String>, Vec<usize>) {
        let visited = visit_notes(
            root,
            homes,
            None,
            wanted,
            || (),
            |_, found| {
                Some(format!(
                    "{}{}",
                    found.location.home.prefix(),
                    found.location.path
                ))
            },
        );
        let mut paths: Vec<String> = visited.kept.into_iter().flatten().collect();
        paths.sort();
        (paths, visited.failed)
    }

    #[test]
    fn walks_only_plain_md_files_with_valid_addresses() {
        let dir = tempfile::tempdir().unwrap();
        odd_home(dir.path());
        let found = notes_in(&root(dir.path()), &Home::Human).unwrap();
        let mut paths: Vec<String> = found
            .iter()
            .map(|c| format!("{}/{}", c.dir[1..].join("/"), c.name))
            .map(|p| p.trim_start_matches('/').to_string())
            .collect();
        paths.sort();
        // Hard-linked files are refused when read (on the open file), not by the walk.
        assert_eq!(
            paths,
            vec!["a.md", "linked-too.md", "linked.md", "sub/b.md"]
        );
        let sub = found.iter().find(|c| c.name == "b.md").unwrap();
        assert_eq!(&sub.dir[..], ["human".to_string(), "sub".to_string()]);

        let (visited, failed) = visited_paths(&root(dir.path()), &[Home::Human], |_| true);
        let expected: Vec<String> = paths.iter().map(|p| format!("@human/{p}")).collect();
        assert_eq!((visited, failed), (expected, vec![]));
    }

    #[test]
    fn a_visit_sees_every_note_once_and_only_wanted_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut expected = Vec::new();
        // Enough directories and notes for several tasks and helper threads.
        for d in 0..20 {
            let sub = dir.path().join(format!("human/d{d}/e{}", d % 3));
            fs::create_dir_all(&sub).unwrap();
            for n in 0..(d * 7) {
                fs::write(sub.join(format!("n{n}.md")), "").unwrap();
                expected.push(format!("@human/d{d}/e{}/n{n}.md", d % 3));
            }
        }
        fs::create_dir_all(dir.path().join("models/m")).unwrap();
        fs::write(dir.path().join("models/m/x.md"), "").unwrap();
        expected.push("@models/m/x.md".into());
        expected.sort();
        let homes = [
            Home::Human,
            Home::Project("missing".into()),
            Home::Model {
                name: "m".into(),
                current: false,
            },
        ];
        let (all, failed) = visited_paths(&root(dir.path()), &homes, |_| true);
        assert_eq!((all, failed), (expected.clone(), vec![]));
        let (some, _) = visited_paths(&root(dir.path()), &homes, |l| l.path.ends_with("n3.md"));
        let wanted: Vec<String> = expected
            .into_iter()
            .filter(|p| p.ends_with("n3.md"))
            .collect();
        assert!(wanted.len() > 10);
        assert_eq!(some, wanted);
    }

    #[test]
    fn a_home_that_cannot_be_walked_fails_and_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        odd_home(dir.path());
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("n.md"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("models")).unwrap();
        fs::create_dir_all(dir.path().join("agents")).unwrap();
        fs::write(dir.path().join("agents/a"), "a file, not a home").unwrap();
        let homes = [
            Home::Model {
                name: "m".into(),
                current: true,
            },
            Home::Human,
            Home::Agent {
                name: "a".into(),
                current: true,
            },
        ];
        let (paths, failed) = visited_paths(&root(dir.path()), &homes, |_| true);
        assert_eq!(failed, vec![0, 2]);
        assert_eq!(paths.len(), 4);
        assert!(paths.iter().all(|p| p.starts_with("@human/")), "{paths:?}");
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
}
