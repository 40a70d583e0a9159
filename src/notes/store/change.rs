//! Changing notes: write, move, edit and restore, and the history of a note (log, diff).

use super::*;

impl Store {
    /// Creates or overwrites a note. A leading frontmatter block in `content` is dropped; the
    /// note keeps its creation time, counters, project, origin (unless one is given) and every
    /// unknown frontmatter line; a crumpled note is smoothed.
    pub fn write(
        &self,
        address: &str,
        content: &str,
        origin: Option<Origin>,
    ) -> Result<WriteResult, NotesError> {
        let location = self.locate_writable(address)?;
        let body = strip_frontmatter(content);
        let now_iso = clock::local_iso(self.clock.now());
        let path = self.note_path(&location);
        self.precheck(self.open_root()?.as_ref(), &path)?;
        let root = files::create_root(&self.identity.home)?;
        let lock = self.lock_note(&root, &path.relative)?;
        let existing = self.load(&root, &path)?;
        let (mut doc, outcome, mode) = match &existing {
            Some(disk) => {
                let doc = Document::parse(&disk.text);
                let outcome = if doc.get(Key::CrumpledAt).is_some() {
                    WriteOutcome::Uncrumpled
                } else {
                    WriteOutcome::Overwrote
                };
                (doc, outcome, Some(disk.mode))
            }
            None => (
                self.new_document(&location, &now_iso),
                WriteOutcome::Created,
                None,
            ),
        };
        doc.body = body;
        doc.ensure_gap();
        if let Some(origin) = origin {
            doc.set(Key::Origin, origin.as_str());
        }
        doc.set(Key::UpdatedAt, &now_iso);
        doc.remove(Key::CrumpledAt);
        complete(&mut doc, &fallback_time(existing.as_ref(), &now_iso));
        let text = self.save(
            &root,
            &path,
            existing.as_ref().map(|d| d.text.as_str()),
            &doc,
            mode,
            Saving::Change { capped: true },
        )?;
        let address = location.address();
        let history = self.record(
            &root,
            &history::Operation::on_note(
                "write",
                &address,
                &[],
                &[PathChange {
                    path: &path.relative,
                    content: Some(text.as_bytes()),
                }],
            ),
            vec![lock],
        );
        Ok(WriteResult {
            meta: Meta::of(&doc, &now_iso),
            location,
            outcome,
            history,
        })
    }

    /// Moves a note from one address to another (both in writable homes). The note keeps its
    /// creation time, origin, access counts and every unknown frontmatter line; `updatedAt`
    /// moves to now, and `project` follows the session boundary (set when the note enters a
    /// session home, removed when it leaves one). A crumpled note at the target is replaced; a
    /// live one is refused.
    pub fn move_note(&self, from: &str, to: &str) -> Result<MoveResult, NotesError> {
        let from = self.locate_writable(from)?;
        let to = self.locate_writable(to)?;
        self.move_location(from, to)
    }

    /// [`Store::move_note`] with notes named by their file paths below the notes home
    /// (`human/a.md`, `project/<key>/b.md`, …): how the dreamer, which works with files, names
    /// them.
    pub fn move_files(&self, from: &str, to: &str) -> Result<MoveResult, NotesError> {
        let locate = |file: &str| -> Result<Location, NotesError> {
            let location = Location::from_home_path(file, &self.identity)?;
            if location.path.len() > MAX_PATH_BYTES + ".md".len() {
                return Err(NotesError::PathTooLarge {
                    actual: location.path.len() - ".md".len(),
                    limit: MAX_PATH_BYTES,
                });
            }
            location.check_writable()?;
            Ok(location)
        };
        self.move_location(locate(from)?, locate(to)?)
    }

    fn move_location(&self, from: Location, to: Location) -> Result<MoveResult, NotesError> {
        let now_iso = clock::local_iso(self.clock.now());
        let (source, target) = (self.note_path(&from), self.note_path(&to));
        if source.relative == target.relative {
            return Err(NotesError::NothingToMove(format!(
                "{} and {} are the same note",
                from.address(),
                to.address()
            )));
        }
        let not_found = || NotesError::NotFound {
            address: from.address(),
        };
        if !self.precheck(self.open_root()?.as_ref(), &source)? {
            return Err(not_found());
        }
        let live_target = || {
            NotesError::AlreadyExists(format!(
                "{} is a live note; crumple it first or pick another address",
                to.address()
            ))
        };
        // A live target is refused before any lock file is made (checked again under the locks).
        if let Some(existing_root) = self.open_root()? {
            if self.precheck(Some(&existing_root), &target)?
                && self
                    .load(&existing_root, &target)?
                    .is_some_and(|t| Document::parse(&t.text).get(Key::CrumpledAt).is_none())
            {
                return Err(live_target());
            }
        }
        let root = files::create_root(&self.identity.home)?;
        // Both locks, always in the same order, so two moves never wait on each other.
        let (first, second) = if source.relative < target.relative {
            (&source, &target)
        } else {
            (&target, &source)
        };
        let first = self.lock_note(&root, &first.relative)?;
        let second = self.lock_note(&root, &second.relative)?;
        let disk = self.load(&root, &source)?.ok_or_else(not_found)?;
        let replaced = match self.load(&root, &target)? {
            Some(existing)
                if Document::parse(&existing.text)
                    .get(Key::CrumpledAt)
                    .is_some() =>
            {
                Some(existing.text)
            }
            Some(_) => return Err(live_target()),
            None => None,
        };
        let mut doc = Document::parse(&disk.text);
        doc.set(Key::UpdatedAt, &now_iso);
        match (&from.home, &to.home) {
            (Home::Session(_), Home::Session(_)) => {}
            (_, Home::Session(_)) => doc.set(Key::Project, &self.identity.project_key),
            (Home::Session(_), _) => doc.remove(Key::Project),
            _ => {}
        }
        complete(&mut doc, &fallback_time(Some(&disk), &now_iso));
        let text = doc.render();
        // One rename moves the note: a reader finds it at exactly one of the two addresses.
        // Then its metadata is brought up to date in place, atomically.
        let source_dir = files::open_dirs(&root, &source.dir_refs())?.ok_or_else(not_found)?;
        let target_dir = files::create_dirs(&root, &target.dir_refs())?;
        self.mark_pending(&root, &source.relative)?;
        self.mark_pending(&root, &target.relative)?;
        source_dir
            .rename_to(&source.file_name, &target_dir, &target.file_name)
            .map_err(files::notes_error)?;
        files::write_atomic(
            &target_dir,
            &target.file_name,
            text.as_bytes(),
            Some(disk.mode),
        )?;
        journal::record(
            &root,
            &source.relative,
            Some(&disk.text),
            None,
            self.dreamer_token(),
        );
        journal::record(
            &root,
            &target.relative,
            replaced.as_deref(),
            Some(&text),
            self.dreamer_token(),
        );
        let (from_address, to_address) = (from.address(), to.address());
        let history = self.record(
            &root,
            &history::Operation::on_note(
                "move",
                &to_address,
                &[("From", &from_address)],
                &[
                    PathChange {
                        path: &source.relative,
                        content: None,
                    },
                    PathChange {
                        path: &target.relative,
                        content: Some(text.as_bytes()),
                    },
                ],
            ),
            vec![first, second],
        );
        Ok(MoveResult {
            meta: Meta::of(&doc, &now_iso),
            from,
            to,
            replaced_crumpled: replaced.is_some(),
            history,
        })
    }

    /// The commits that changed a note (an address) or the notes an address glob matches
    /// (`*`, `?` in `target`), or every commit (`None`), newest first, at most `limit`.
    pub fn log(&self, target: Option<&str>, limit: usize) -> Result<history::Log, NotesError> {
        let filter = match target {
            None => history::LogFilter::All,
            Some(glob) if glob.contains(['*', '?']) => {
                history::LogFilter::Pattern(Pattern::parse(Some(glob), &self.identity)?)
            }
            Some(address) => {
                let location = self.locate(address)?;
                history::LogFilter::Path(self.note_path(&location).relative)
            }
        };
        self.flush_commits();
        history::log(&self.identity, &filter, limit)
    }

    /// The note at `rev` (by default: before its last recorded change) against the note now.
    /// Reading it for the comparison is not an access: the counters do not move.
    pub fn diff(&self, address: &str, rev: Option<&str>) -> Result<history::NoteDiff, NotesError> {
        let location = self.locate(address)?;
        let path = self.note_path(&location);
        self.flush_commits();
        let root = self.open_root()?;
        let now = match &root {
            Some(root) if self.precheck(Some(root), &path)? => self.load(root, &path)?,
            _ => None,
        };
        history::diff(
            &self.identity,
            &location,
            &path.relative,
            rev,
            now.as_ref().map(|d| d.text.as_str()),
        )
    }

    /// Puts back the note as it was at `rev`, as a new change (and commit): history is never
    /// rewritten. The note keeps its current access counters; `updatedAt` becomes now. A note
    /// that is gone now is recreated.
    pub fn restore(&self, address: &str, rev: &str) -> Result<RestoreResult, NotesError> {
        let location = self.locate_writable(address)?;
        let path = self.note_path(&location);
        self.flush_commits();
        let repo = history::open(&self.identity.home)?.ok_or_else(|| {
            NotesError::InvalidRevision(format!("{rev:?}: the notes home has no history yet"))
        })?;
        let commit = history::resolve_rev(&repo, rev)?;
        let from = commit.id().to_string();
        let past = history::content_at(&repo, &commit, &path.relative)?.ok_or_else(|| {
            NotesError::NotFound {
                address: format!("{} at {}", location.address(), &from[..12]),
            }
        })?;
        let past = String::from_utf8(past).map_err(|_| {
            NotesError::History(format!(
                "{} at {} is not UTF-8 text",
                location.address(),
                &from[..12]
            ))
        })?;
        let now_iso = clock::local_iso(self.clock.now());
        self.precheck(self.open_root()?.as_ref(), &path)?;
        let root = files::create_root(&self.identity.home)?;
        let lock = self.lock_note(&root, &path.relative)?;
        let existing = self.load(&root, &path)?;
        let mut doc = Document::parse(&past);
        if let Some(current) = existing.as_ref().map(|d| Document::parse(&d.text)) {
            for key in [Key::AccessCount, Key::LastAccessed] {
                match current.get(key) {
                    Some(value) => doc.set(key, &value),
                    None => doc.remove(key),
                }
            }
        }
        let unchanged = existing.as_ref().is_some_and(|d| {
            history::without_counters(&d.text) == history::without_counters(&doc.render())
        });
        if unchanged {
            return Ok(RestoreResult {
                location,
                outcome: RestoreOutcome::Unchanged,
                from,
                history: Recorded::Unchanged,
            });
        }
        if doc.has_frontmatter() {
            doc.set(Key::UpdatedAt, &now_iso);
            complete(&mut doc, &fallback_time(existing.as_ref(), &now_iso));
        }
        let text = self.save(
            &root,
            &path,
            existing.as_ref().map(|d| d.text.as_str()),
            &doc,
            existing.as_ref().map(|d| d.mode),
            Saving::Change { capped: false },
        )?;
        let address = location.address();
        let history = self.record(
            &root,
            &history::Operation::on_note(
                "restore",
                &address,
                &[("Restored-From", &from)],
                &[PathChange {
                    path: &path.relative,
                    content: Some(text.as_bytes()),
                }],
            ),
            vec![lock],
        );
        Ok(RestoreResult {
            location,
            outcome: if existing.is_some() {
                RestoreOutcome::Restored
            } else {
                RestoreOutcome::Recreated
            },
            from,
            history,
        })
    }

    /// Applies exact replacements to the body (in order, all or nothing) and the metadata
    /// setters. Nothing is written when nothing changes.
    pub fn edit(&self, address: &str, request: &EditRequest) -> Result<EditResult, NotesError> {
        let location = self.locate_writable(address)?;
        if request.edits.is_empty() && request.origin.is_none() && request.crumpled.is_none() {
            return Err(NotesError::NothingToDo);
        }
        let now_iso = clock::local_iso(self.clock.now());
        let path = self.note_path(&location);
        let not_found = || NotesError::NotFound {
            address: location.address(),
        };
        let root = self.open_root()?;
        if !self.precheck(root.as_ref(), &path)? {
            return Err(not_found());
        }
        let root = root.ok_or_else(not_found)?;
        let lock = self.lock_note(&root, &path.relative)?;
        let disk = self.load(&root, &path)?.ok_or_else(not_found)?;
        let mut doc = Document::parse(&disk.text);
        let before_block = doc.frontmatter_text();
        let (body, applied) = apply_edits(&doc, &request.edits, request.replace_all)?;
        let body_changed = body != doc.body;
        let before_body = std::mem::replace(&mut doc.body, body);

        let origin_changed = request
            .origin
            .is_some_and(|o| doc.get(Key::Origin).as_deref() != Some(o.as_str()));
        if let Some(origin) = request.origin {
            doc.set(Key::Origin, origin.as_str());
        }
        let crumple_changed = set_crumpled(&mut doc, request.crumpled, &now_iso);
        let kind = match (body_changed, origin_changed || crumple_changed) {
            (false, false) => ChangeKind::None,
            (true, false) => ChangeKind::Body,
            (false, true) => ChangeKind::Metadata,
            (true, true) => ChangeKind::File,
        };
        if kind != ChangeKind::None {
            if body_changed || origin_changed {
                doc.set(Key::UpdatedAt, &now_iso);
            }
            complete(&mut doc, &fallback_time(Some(&disk), &now_iso));
        }
        let change = match kind {
            ChangeKind::None => Change {
                kind,
                before: String::new(),
                after: String::new(),
            },
            ChangeKind::Body => Change {
                kind,
                before: before_body,
                after: doc.body.clone(),
            },
            ChangeKind::Metadata => Change {
                kind,
                before: before_block,
                after: doc.frontmatter_text(),
            },
            ChangeKind::File => Change {
                kind,
                before: disk.text.clone(),
                after: doc.render(),
            },
        };
        // The result is complete before anything is written: a caller never sees a failure for
        // a change that landed.
        let address = location.address();
        let diff = change.unified_diff(&address, request.diff_max_bytes);
        let history = if kind == ChangeKind::None {
            Recorded::Unchanged
        } else {
            let text = self.save(
                &root,
                &path,
                Some(&disk.text),
                &doc,
                Some(disk.mode),
                Saving::Change { capped: true },
            )?;
            self.record(
                &root,
                &history::Operation::on_note(
                    edit_operation(request),
                    &address,
                    &[],
                    &[PathChange {
                        path: &path.relative,
                        content: Some(text.as_bytes()),
                    }],
                ),
                vec![lock],
            )
        };
        Ok(EditResult {
            meta: Meta::of(&doc, &fallback_time(Some(&disk), &now_iso)),
            location,
            applied,
            change,
            diff,
            history,
        })
    }
}

/// Fills in the keys every note carries, with `fallback` for missing times.
/// How an edit is named in the history: a crumple or a smoothing without body edits is that.
fn edit_operation(request: &EditRequest) -> &'static str {
    match (request.edits.is_empty(), request.crumpled) {
        (true, Some(true)) => "crumple",
        (true, Some(false)) => "smooth",
        _ => "edit",
    }
}

/// `true` crumples (keeping an earlier time), `false` smooths. Returns whether it changed.
fn set_crumpled(doc: &mut Document, crumpled: Option<bool>, now_iso: &str) -> bool {
    let was = doc.get(Key::CrumpledAt).is_some();
    match crumpled {
        Some(true) if !was => doc.set(Key::CrumpledAt, now_iso),
        Some(false) if was => doc.remove(Key::CrumpledAt),
        _ => return false,
    }
    true
}

/// Content supplied to `write` never carries its own frontmatter into the file.
pub(super) fn strip_frontmatter(content: &str) -> String {
    let doc = Document::parse(content);
    if doc.has_frontmatter() {
        doc.body
    } else {
        content.to_string()
    }
}

pub(super) fn apply_edits(
    doc: &Document,
    edits: &[Edit],
    replace_all: bool,
) -> Result<(String, usize), NotesError> {
    let mut body = doc.body.clone();
    let mut applied = 0;
    for (index, edit) in edits.iter().enumerate() {
        let no_match = |reason: &str| NotesError::NoMatch {
            edit_index: index,
            reason: reason.to_string(),
        };
        if edit.old_text.is_empty() {
            return Err(no_match("oldText must be a non-empty string"));
        }
        let starts: Vec<usize> = body
            .match_indices(&edit.old_text)
            .map(|(at, _)| at)
            .collect();
        if starts.is_empty() {
            return Err(if doc.frontmatter_text().contains(&edit.old_text) {
                no_match("oldText occurs only in the frontmatter; edits change the body (use origin or crumpled for metadata)")
            } else {
                no_match("oldText does not occur in the note body")
            });
        }
        if starts.len() > 1 && !replace_all {
            return Err(NotesError::AmbiguousEdit {
                edit_index: index,
                line_numbers: line_numbers(&body, &starts),
            });
        }
        let next = if replace_all {
            body.replace(&edit.old_text, &edit.new_text)
        } else {
            body.replacen(&edit.old_text, &edit.new_text, 1)
        };
        if next != body {
            applied += 1;
        }
        body = next;
    }
    Ok((body, applied))
}

/// 1-based line numbers of ascending byte offsets.
fn line_numbers(text: &str, starts: &[usize]) -> Vec<usize> {
    let mut numbers = Vec::with_capacity(starts.len());
    let (mut line, mut from) = (1, 0);
    for &start in starts {
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[from..start]).count();
        from = start;
        numbers.push(line);
    }
    numbers
}
