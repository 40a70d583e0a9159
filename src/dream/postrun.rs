//! The post-run audit: compare the whole home with the snapshot taken before the dreamer ran, and
//! put back what the dreamer changed where it must not write — and nothing else.
//!
//! Rules (docs/dream.md, "The post-run audit"):
//! - `.git/config`, `.git/HEAD`, `.git/info/`, `.git/hooks/` and the dream lock files are
//!   protected: changed at all during the run, they are put back.
//! - A change anywhere else is the dreamer's only when one of its `write`/`edit` calls that may
//!   have written (it succeeded, or the stream was cut before its end) resolves to that file the
//!   way Pi resolves paths, or a `write` call wrote exactly its content. Refused calls touched
//!   nothing. A change nobody can attribute to the dreamer (a live agent, a person) is kept.
//! - The dreamer's change outside its writable homes is put back: to the last version a live agent
//!   wrote meanwhile (from the live-write journal) when there is one, else to the snapshot.
//! - When the dreamer and a live agent both wrote one note, nothing is lost: the note keeps the
//!   version the rules choose, the other is kept in `dreams/<stamp>.conflicts/<path>`, and the
//!   report lists the conflict.
//! - A write outside the notes home cannot be put back; it is reported and fails the dream.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::SystemTime;

use git2::{ObjectType, Oid, Repository};
use serde::Serialize;

use super::dreamer::ToolUse;
use super::resolve;
use super::restore;
use super::Violation;
use crate::home::journal::{self, JournalEntry};
use crate::home::layout::{DREAMS_DIR, GIT_DIR, LAST_RUN};
use crate::home::snapshot::{self, Class, Item, Snapshot};

/// A note both the dreamer and a live agent wrote during the run.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Conflict {
    pub path: String,
    /// Whose version the note holds now: `live` (a live agent's), `dreamer`, or `baseline`.
    pub kept: &'static str,
    /// Where the other version was kept, relative to the home (`None`: it was an absence).
    pub other: Option<String>,
}

/// What the audit found and did.
#[derive(Debug, Default)]
pub struct Findings {
    pub violations: Vec<Violation>,
    pub conflicts: Vec<Conflict>,
    /// The dreamer wrote outside the notes home (cannot be put back).
    pub escaped: bool,
}

/// What the audit needs to know about the run.
pub struct Run<'a> {
    pub home: &'a Path,
    /// The user's home directory, for `~` in the dreamer's paths.
    pub user_home: &'a Path,
    pub writable: &'a [String],
    pub tools: &'a [ToolUse],
    pub stamp: &'a str,
    /// The time stamped on `.dream.lock.last-run` when the lock was taken.
    pub started: SystemTime,
    /// The running dream's lock token (its journal).
    pub token: Option<&'a str>,
}

/// Puts back the protected files the run changed, from the bytes kept before it: the watched
/// parts of `.git` always (nobody but git users should change them during a dream, and a
/// rewritten `.git/config` or hook runs code later), the dream's lock files when the dreamer
/// wrote them. Done first and without git, so a rewritten `.git/config` steers nothing after.
pub fn restore_protected(
    run: &Run,
    before: &snapshot::Protected,
) -> Result<Vec<Violation>, String> {
    let now = snapshot::protected(run.home)
        .map_err(|e| format!("cannot read the protected files: {e}"))?;
    let mut scratch = Findings::default();
    let targets = Targets::of(run, &mut scratch);
    let mut paths: BTreeSet<&String> = before.keys().collect();
    paths.extend(now.keys());
    let mut violations = Vec::new();
    for path in paths {
        let was = before.get(path);
        let is = now.get(path);
        if was == is {
            continue;
        }
        let in_git = path.starts_with(&format!("{GIT_DIR}/"));
        if !in_git && !targets.wrote_raw(path, is) {
            continue;
        }
        restore::put_back_raw(run.home, path, was)
            .map_err(|e| format!("cannot put back {path}: {e}"))?;
        if path == LAST_RUN {
            restore::set_mtime(run.home, path, run.started)
                .map_err(|e| format!("cannot put back the time of {path}: {e}"))?;
        }
        violations.push(Violation {
            kind: "restored",
            path: path.clone(),
            reason: "protected (git metadata or the dream lock); changed during the dream and put back as it was".into(),
        });
    }
    Ok(violations)
}

/// The rest of the audit, on a home whose protected files are already as they were.
pub fn audit(
    repo: &Repository,
    run: &Run,
    before: &Snapshot,
    after: &Snapshot,
) -> Result<Findings, String> {
    let mut findings = Findings::default();
    let changed = before.changed(after);
    let changed_set: BTreeSet<&str> = changed.iter().map(String::as_str).collect();
    let targets = Targets::of(run, &mut findings);
    // A journal the dreamer wrote into can no longer say what live agents wrote.
    let mut trusted_journal = true;
    for path in changed
        .iter()
        .filter(|p| snapshot::class(p) == Class::Journal)
    {
        if targets.dreamer_calls(path, after, &changed_set).is_some() {
            trusted_journal = false;
            put_back_violation(
                repo,
                run,
                before,
                path,
                &mut findings,
                "the live-write journal is never the dreamer's to write",
            )?;
        }
    }
    for path in changed
        .iter()
        .filter(|p| snapshot::class(p) == Class::Content)
    {
        let Some(tools) = targets.dreamer_calls(path, after, &changed_set) else {
            continue;
        };
        {
            {
                let root = crate::beneath::Dir::create_root(run.home)
                    .map_err(|e| format!("cannot open the notes home: {e}"))?;
                let _lock = crate::notes::lock::lock(&root, path).map_err(|e| {
                    format!("cannot lock {path}: {}", crate::notes::NotesError::from(e))
                })?;
                let live = if trusted_journal {
                    live_writes(run, path)
                } else {
                    Vec::new()
                };
                let current = version_now(repo, run.home, path)?;
                let case = Case {
                    repo,
                    run,
                    path,
                    baseline: version(before.items.get(path)),
                    current,
                    live: &live,
                    tools: &tools,
                };
                if is_writable(path, run.writable) {
                    case.keep(&mut findings)?;
                } else {
                    case.put_back(before, &mut findings)?;
                }
            }
        }
    }
    Ok(findings)
}

fn put_back_violation(
    repo: &Repository,
    run: &Run,
    before: &Snapshot,
    path: &str,
    findings: &mut Findings,
    why: &str,
) -> Result<(), String> {
    restore::put_back(repo, run.home, path, before.items.get(path).copied())
        .map_err(|e| format!("cannot put back {path}: {e}"))?;
    findings.violations.push(Violation {
        kind: "restored",
        path: path.to_string(),
        reason: format!("{why}; put back as it was"),
    });
    Ok(())
}

/// A file's content as a blob id (`None`: absent). Links and special files count as versions too.
type Version = Option<Oid>;

fn version(item: Option<&Item>) -> Version {
    item.map(|item| match item {
        Item::File { oid, .. } | Item::Link { oid } => *oid,
        Item::Special | Item::Large { .. } => Oid::ZERO_SHA1,
    })
}

fn text_version(text: Option<&str>) -> Version {
    text.map(|t| Oid::hash_object(ObjectType::Blob, t.as_bytes()).unwrap_or(Oid::ZERO_SHA1))
}

/// The file as it is now (re-read under its lock).
fn version_now(repo: &Repository, home: &Path, path: &str) -> Result<Version, String> {
    let full = home.join(path);
    match std::fs::symlink_metadata(&full) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot inspect {path}: {e}")),
        Ok(meta) if !meta.is_file() => return Ok(Some(Oid::ZERO_SHA1)),
        Ok(_) => {}
    }
    match snapshot::read_regular(&full).map_err(|e| format!("cannot read {path}: {e}"))? {
        None => Ok(None),
        Some((Some(bytes), _, _)) => repo
            .blob(&bytes)
            .map(Some)
            .map_err(|e| format!("cannot store {path}: {e}")),
        Some((None, _, _)) => Ok(Some(Oid::ZERO_SHA1)),
    }
}

fn live_writes(run: &Run, path: &str) -> Vec<JournalEntry> {
    let Some(token) = run.token else {
        return Vec::new();
    };
    journal::read(run.home, token)
        .into_iter()
        .filter(|e| e.path == path)
        .collect()
}

/// Where the dreamer's calls wrote.
struct Targets<'a> {
    /// Home-relative paths, with the calls that resolve to each.
    inside: BTreeMap<String, Vec<&'a ToolUse>>,
    /// `write` calls whose content identifies the file they wrote.
    writes: Vec<&'a ToolUse>,
}

impl<'a> Targets<'a> {
    fn of(run: &Run<'a>, findings: &mut Findings) -> Targets<'a> {
        let real_home = std::fs::canonicalize(run.home).unwrap_or_else(|_| run.home.to_path_buf());
        let mut targets = Targets {
            inside: BTreeMap::new(),
            writes: Vec::new(),
        };
        for tool in run.tools.iter().filter(|t| t.may_have_written()) {
            if tool.tool == "write" {
                targets.writes.push(tool);
            }
            for requested in tool.written_paths() {
                targets.resolve(run, &real_home, tool, requested, findings);
            }
        }
        targets
    }

    /// Records where the path `requested` of `tool` lands: inside the home, or outside it (a
    /// violation the audit cannot undo).
    fn resolve(
        &mut self,
        run: &Run,
        real_home: &Path,
        tool: &'a ToolUse,
        requested: &str,
        findings: &mut Findings,
    ) {
        let lexical = resolve::pi_target(requested, run.home, run.user_home);
        let real = resolve::through_links(&lexical);
        let mut inside_home = false;
        for (path, home) in [(Some(&lexical), run.home), (real.as_ref(), real_home)] {
            if let Some(rel) = path.and_then(|p| relative(p, home)) {
                inside_home = true;
                self.inside.entry(rel).or_default().push(tool);
            }
        }
        if !inside_home {
            findings.escaped = true;
            let shown = real.unwrap_or(lexical);
            findings.violations.push(Violation {
                kind: "outside",
                path: shown.display().to_string(),
                reason: format!("the dreamer's {} call ({requested}) wrote outside the notes home; the audit cannot put it back, check it by hand", tool.tool),
            });
        }
    }

    /// Whether the dreamer wrote the protected file `path`, which now holds `now`.
    fn wrote_raw(&self, path: &str, now: Option<&snapshot::Raw>) -> bool {
        self.inside.contains_key(path)
            || matches!(now, Some(snapshot::Raw::File { bytes, .. })
                if self.writes.iter().any(|t| t.content.as_deref().map(str::as_bytes) == Some(bytes.as_slice())))
    }

    /// The dreamer's calls that wrote `path`, or `None` when none did.
    fn dreamer_calls(
        &self,
        path: &str,
        after: &Snapshot,
        changed: &BTreeSet<&str>,
    ) -> Option<Vec<&'a ToolUse>> {
        if let Some(tools) = self.inside.get(path) {
            return Some(tools.clone());
        }
        // A `write` whose path this module resolved to no changed file, but whose content is
        // exactly what this file holds, wrote it under a spelling we did not foresee.
        let current = version(after.items.get(path))?;
        let by_content: Vec<&ToolUse> = self
            .writes
            .iter()
            .copied()
            .filter(|t| {
                let resolved_elsewhere = self.inside.iter().any(|(p, tools)| {
                    changed.contains(p.as_str()) && tools.iter().any(|x| std::ptr::eq(*x, *t))
                });
                !resolved_elsewhere && text_version(t.content.as_deref()) == Some(current)
            })
            .collect();
        (!by_content.is_empty()).then_some(by_content)
    }
}

/// `path` relative to `home`, when inside it (and not the home itself).
fn relative(path: &Path, home: &Path) -> Option<String> {
    let rel = path.strip_prefix(home).ok()?;
    let text = rel.to_string_lossy().into_owned();
    (!text.is_empty()).then_some(text)
}

/// Whether `path` lies inside one of the writable homes (`a/b/`, a `*` segment matches any one
/// segment): the path has more segments, and the home's segments are its first ones.
pub fn is_writable(path: &str, writable: &[String]) -> bool {
    writable.iter().any(|home| is_inside(path, home))
}

fn is_inside(path: &str, home: &str) -> bool {
    let home: Vec<&str> = home.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = path.split('/').collect();
    path.len() > home.len() && home.iter().zip(&path).all(|(h, p)| *h == "*" || h == p)
}

/// One changed file the dreamer wrote.
struct Case<'a> {
    repo: &'a Repository,
    run: &'a Run<'a>,
    path: &'a str,
    baseline: Version,
    current: Version,
    live: &'a [JournalEntry],
    tools: &'a [&'a ToolUse],
}

impl Case<'_> {
    /// The dreamer may write here: its change stays. A live agent's write to the same note that
    /// the file no longer holds is kept aside.
    fn keep(&self, findings: &mut Findings) -> Result<(), String> {
        if self.live.is_empty() {
            return Ok(());
        }
        let kept = if Some(&self.current) == self.live_chain().last() {
            "live"
        } else {
            "dreamer"
        };
        self.conflict(self.current, kept, findings)
    }

    /// The dreamer must not write here: put the file back, to a live agent's last version when
    /// there is one. A file that changed again after the dreamer's last write, by someone else,
    /// is not the dreamer's to undo.
    fn put_back(&self, before: &Snapshot, findings: &mut Findings) -> Result<(), String> {
        let target = self.live.last().map(|e| text_version(e.after.as_deref()));
        let target_version = target.unwrap_or(self.baseline);
        let reason;
        if self.current == target_version {
            reason = "outside the dreamer's writable homes; a live agent's later write already replaced it".to_string();
        } else if self.live.is_empty() && self.changed_after_the_dreamer() {
            findings.violations.push(Violation {
                kind: "kept",
                path: self.path.to_string(),
                reason: "the dreamer wrote here outside its writable homes, but the file changed again after that, not by the dreamer; kept as it is".into(),
            });
            return Ok(());
        } else {
            match self.live.last() {
                Some(entry) => match &entry.after {
                    Some(text) => {
                        restore::write_file(self.run.home, self.path, text.as_bytes(), None)
                    }
                    None => restore::put_back(self.repo, self.run.home, self.path, None),
                },
                None => restore::put_back(
                    self.repo,
                    self.run.home,
                    self.path,
                    before.items.get(self.path).copied(),
                ),
            }
            .map_err(|e| format!("cannot put back {}: {e}", self.path))?;
            reason = format!(
                "outside the dreamer's writable homes; put back as {}",
                if self.live.is_empty() {
                    "it was"
                } else {
                    "a live agent last wrote it"
                }
            );
        }
        findings.violations.push(Violation {
            kind: "restored",
            path: self.path.to_string(),
            reason,
        });
        if !self.live.is_empty() {
            let kept = if target.is_some() { "live" } else { "baseline" };
            self.conflict(target_version, kept, findings)?;
        }
        Ok(())
    }

    /// Whether the dreamer only `write`s this file and it now holds none of what it wrote.
    fn changed_after_the_dreamer(&self) -> bool {
        let last_write = self.tools.iter().rev().find(|t| t.tool == "write");
        let only_writes = self.tools.iter().all(|t| t.tool == "write");
        match last_write {
            Some(tool) if only_writes => {
                tool.content.is_some()
                    && text_version(tool.content.as_deref()) != self.current
                    && self.current != self.baseline
            }
            _ => false,
        }
    }

    /// The versions the live agents left, in order.
    fn live_chain(&self) -> Vec<Version> {
        self.live
            .iter()
            .map(|e| text_version(e.after.as_deref()))
            .collect()
    }

    /// The most recent version the note held during the run that it no longer holds and that
    /// only this audit can still give back: one a live write replaced without having seen it
    /// (the dreamer's), or a live agent's last one, or the dreamer's final one.
    fn lost_version(&self, kept: Version) -> Option<(Version, Option<String>)> {
        let mut expected = self.baseline;
        let mut lost: Option<(Version, Option<String>)> = None;
        for entry in self.live {
            let before = text_version(entry.before.as_deref());
            if before != expected && before != kept {
                lost = Some((before, entry.before.clone()));
            }
            expected = text_version(entry.after.as_deref());
        }
        if expected != kept && expected != self.baseline {
            lost = self.live.last().map(|e| (expected, e.after.clone()));
        }
        if self.current != kept && self.current != self.baseline {
            lost = Some((self.current, None));
        }
        lost
    }

    fn conflict(
        &self,
        kept: Version,
        who: &'static str,
        findings: &mut Findings,
    ) -> Result<(), String> {
        let Some((version, text)) = self.lost_version(kept) else {
            return Ok(());
        };
        let copy = match version {
            None => None,
            Some(oid) => {
                let bytes = match text {
                    Some(text) => text.into_bytes(),
                    None => self
                        .repo
                        .find_blob(oid)
                        .map(|b| b.content().to_vec())
                        .map_err(|e| {
                            format!("cannot read the other version of {}: {e}", self.path)
                        })?,
                };
                let rel = conflict_copy_path(self.run.stamp, self.path);
                restore::write_file(self.run.home, &rel, &bytes, None)
                    .map_err(|e| format!("cannot keep the other version of {}: {e}", self.path))?;
                Some(rel)
            }
        };
        findings.conflicts.push(Conflict {
            path: self.path.to_string(),
            kept: who,
            other: copy,
        });
        Ok(())
    }
}

/// Where the other version of a conflicting note is kept.
pub fn conflict_copy_path(stamp: &str, path: &str) -> String {
    format!("{DREAMS_DIR}/{stamp}.conflicts/{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_homes_are_writable_but_not_the_project_root() {
        let writable = ["human/".to_string(), "project/*/".to_string()];
        assert!(is_writable("project/app-1a2b3c4d/notes.md", &writable));
        assert!(is_writable("human/MAP.md", &writable));
        assert!(!is_writable("project/stray.md", &writable));
        assert!(!is_writable("humans/x.md", &writable));
        assert!(!is_writable("human", &writable));
    }
}
