//! Finding note files in a home, for `list`, `search` and the wastebasket.
//!
//! Only regular `.md` files with a single link and a valid address are notes; symlinks (files or
//! directories) are never followed, and temp files never end in `.md`. The lock directory sits
//! beside the homes, so it is never walked.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::address::{validate_path, Home, Location};
use super::identity::is_slug;
use crate::beneath::{BeneathError, Dir, Kind};

/// A note found by [`visit_notes`], with the open handle of its directory.
pub struct Found<'a> {
    pub location: Location,
    /// The note's directory, opened from its parent's handle (never through a link).
    pub dir: &'a Dir,
    /// The note's file name in `dir`.
    pub name: &'a str,
}

/// What [`visit_notes`] kept, and which homes could not be read.
pub struct Visited<R> {
    /// In batches, in no particular order. Results are not gathered into one vector here: a
    /// caller that orders them moves each once, into its final place.
    pub kept: Vec<Vec<R>>,
    /// Indexes (into the walk's `homes`, ascending) of the homes with a directory that could not
    /// be opened or listed. None of their notes are in `kept`.
    pub failed: Vec<usize>,
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
pub fn visit_notes<S, R, W, I, V>(
    root: &Dir,
    homes: &[Home],
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
    let mut kept = Vec::new();
    std::thread::scope(|scope| {
        let mut helpers = Vec::new();
        let mut started = false;
        walk.work(&mut kept, || {
            if std::mem::replace(&mut started, true) {
                return;
            }
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
            for _ in 1..threads {
                // A thread the system refuses is one helper fewer, not an error.
                let helper = std::thread::Builder::new().spawn_scoped(scope, || {
                    let mut kept = Vec::new();
                    walk.work(&mut kept, || {});
                    kept
                });
                helpers.extend(helper.ok());
            }
        });
        for helper in helpers {
            match helper.join() {
                Ok(theirs) => kept.extend(theirs),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    let failed: Vec<usize> = (0..homes.len()).filter(|&i| walk.has_failed(i)).collect();
    let kept = kept
        .into_iter()
        .filter(|(home, _)| !failed.contains(home))
        .map(|(_, batch)| batch)
        .collect();
    Visited { kept, failed }
}

/// What a thread kept: per task, its home's index and the results of its notes.
type Kept<R> = Vec<(usize, Vec<R>)>;

/// A unit of work of a walk.
enum Task {
    /// Open and walk the home `homes[index]`.
    Home(usize),
    /// Open the subdirectory `name` of `parent` (at `relative` in its home) and walk it.
    Directory {
        home: usize,
        parent: Arc<Dir>,
        name: String,
        relative: String,
    },
    /// Visit these notes (file name, path in the home) of `dir`.
    Notes {
        home: usize,
        dir: Arc<Dir>,
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

impl<S, R, W, I, V> Walk<'_, W, I, V>
where
    W: Fn(&Location) -> bool + Sync,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, Found<'_>) -> Option<R> + Sync,
{
    /// Runs tasks until the walk is over, keeping what `visit` keeps (with its home's index).
    /// `busy` is called after each task while tasks wait (the calling thread starts helpers).
    fn work(&self, kept: &mut Kept<R>, mut busy: impl FnMut()) {
        let mut state = (self.state)();
        while let Some(task) = self.next_task() {
            let done = Done {
                queue: &self.queue,
                changed: &self.changed,
            };
            self.run(task, &mut state, kept);
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

    fn push(&self, task: Task) {
        let mut queue = lock(&self.queue);
        queue.tasks.push(task);
        queue.waiting_work += 1;
        drop(queue);
        self.changed.notify_one();
    }

    fn fail(&self, home: usize) {
        self.failed[home].store(true, Ordering::Relaxed);
    }

    fn has_failed(&self, home: usize) -> bool {
        self.failed[home].load(Ordering::Relaxed)
    }

    fn run(&self, task: Task, state: &mut S, kept: &mut Kept<R>) {
        match task {
            Task::Home(home) => match self.root.open_dirs(&self.homes[home].components()) {
                Ok(Some(dir)) => self.directory(home, dir, String::new(), state, kept),
                Ok(None) => {}
                Err(_) => self.fail(home),
            },
            Task::Directory {
                home,
                parent,
                name,
                relative,
            } => {
                if self.has_failed(home) {
                    return;
                }
                let opened = parent.open_dir(&name);
                // The parent's descriptor closes once its last task is done with it.
                drop(parent);
                match opened {
                    Ok(Some(dir)) => self.directory(home, dir, relative, state, kept),
                    Ok(None) => {}
                    Err(_) => self.fail(home),
                }
            }
            Task::Notes { home, dir, notes } => self.notes(home, &dir, notes, state, kept),
        }
    }

    /// Lists `dir` (at `prefix` in its home), hands its subdirectories and all but the last
    /// few notes to other tasks, and visits those notes itself.
    fn directory(
        &self,
        home: usize,
        mut dir: Dir,
        prefix: String,
        state: &mut S,
        kept: &mut Kept<R>,
    ) {
        if self.has_failed(home) {
            return;
        }
        let Ok(entries) = dir.entries() else {
            return self.fail(home);
        };
        let dir = Arc::new(dir);
        let mut notes = Vec::new();
        for entry in entries {
            let Ok(name) = entry.name.into_string() else {
                continue;
            };
            let relative = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            // The listing's type costs no system call; links of regular files, and a file
            // swapped meanwhile, are checked on the open file when it is read.
            match entry.kind {
                Kind::Dir => self.push(Task::Directory {
                    home,
                    parent: Arc::clone(&dir),
                    name,
                    relative,
                }),
                Kind::File
                    if name.ends_with(".md") && validate_path(&relative, &relative).is_ok() =>
                {
                    notes.push((name, relative));
                }
                _ => {}
            }
        }
        while notes.len() > NOTES_PER_TASK {
            let batch = notes.split_off(notes.len() - NOTES_PER_TASK);
            self.push(Task::Notes {
                home,
                dir: Arc::clone(&dir),
                notes: batch,
            });
        }
        self.notes(home, &dir, notes, state, kept);
    }

    fn notes(
        &self,
        home: usize,
        dir: &Dir,
        notes: Vec<(String, String)>,
        state: &mut S,
        kept: &mut Kept<R>,
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
                dir,
                name: &name,
            };
            if let Some(result) = (self.visit)(state, found) {
                results.push(result);
            }
        }
        if !results.is_empty() {
            kept.push((home, results));
        }
    }
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
