//! Reading notes: read (which counts the access), peek, list and search, one parallel walk.

use super::*;

impl Store {
    /// Reads a note and records the access (`lastAccessed`, `accessCount`) on disk. Foreign
    /// homes are readable, and their counters move like any other. A home that cannot be
    /// written (read-only, full, or an unusable `.locks`) still serves the note, unchanged, and
    /// says so in [`Note::counters`].
    pub fn read(&self, address: &str) -> Result<Note, NotesError> {
        let location = self.locate(address)?;
        let path = self.note_path(&location);
        let not_found = || NotesError::NotFound {
            address: location.address(),
        };
        let root = self.open_root()?;
        if !self.precheck(root.as_ref(), &path)? {
            return Err(not_found());
        }
        let root = root.ok_or_else(not_found)?;
        let now_iso = clock::local_iso(self.clock.now());
        let lock = match self.lock_note_to_read(&root, &path.relative) {
            Ok(lock) => Ok(lock),
            Err(LockError::Unwritable { reason, .. }) => Err(reason),
            Err(LockError::Failed(error)) => return Err(error),
        };
        let disk = self.load(&root, &path)?.ok_or_else(not_found)?;
        let mut doc = Document::parse(&disk.text);
        let fallback = fallback_time(Some(&disk), &now_iso);
        let counters = match lock {
            Ok(_lock) => {
                let mut bumped = doc.clone();
                let count = access_count(&bumped).saturating_add(1);
                bumped.set(Key::LastAccessed, &now_iso);
                bumped.set(Key::AccessCount, &count.to_string());
                complete(&mut bumped, &fallback);
                // Reading never fails for size: the cap is enforced where content is written.
                match self.save(
                    &root,
                    &path,
                    Some(&disk.text),
                    &bumped,
                    Some(disk.mode),
                    Saving::Counters,
                ) {
                    Ok(_) => {
                        doc = bumped;
                        Counters::Updated
                    }
                    Err(error) => match files::unwritable_reason(&error) {
                        Some(reason) => Counters::NotUpdated { reason },
                        None => return Err(error),
                    },
                }
            }
            Err(reason) => Counters::NotUpdated { reason },
        };
        Ok(Note {
            meta: Meta::of(&doc, &fallback),
            body: doc.body,
            location,
            counters,
        })
    }

    /// A note's metadata and body as they are on disk, without recording the access (the boot
    /// block reads `MAP.md` this way: a boot never rewrites a note). `None` when it is missing.
    pub fn peek(&self, location: &Location) -> Result<Option<(Meta, String)>, NotesError> {
        let Some(root) = self.open_root()? else {
            return Ok(None);
        };
        let Some(disk) = self.load(&root, &self.note_path(location))? else {
            return Ok(None);
        };
        let doc = Document::parse(&disk.text);
        let modified = disk.modified.and_then(|m| Timestamp::try_from(m).ok());
        let meta = Meta::with_fallback(&doc, &|| {
            modified.map_or_else(String::new, clock::local_iso)
        });
        Ok(Some((meta, doc.body)))
    }

    /// Notes in the homes the query selects, most recently updated first.
    pub fn list(&self, query: &Query) -> Result<Listing, NotesError> {
        let wanted = query.wastebasket;
        let cache = self
            .list_cache
            .as_deref()
            .map(|dir| ListCache::open(dir, &self.identity.home, self.settle));
        let (rows, homes_unavailable) = match &cache {
            None => self.visit(query, Vec::new, |buffer, found| {
                self.list_row(buffer, found)
            })?,
            Some(cache) => self.list_cached(query, cache)?,
        };
        let (rows, crumpled_excluded) = recent_first(rows, wanted, |r| r);
        Ok(Listing {
            rows,
            crumpled_excluded,
            homes_unavailable,
            wastebasket: wanted,
        })
    }

    /// The rows of a list that takes what did not change from `cache` ([`list_cache`]) and
    /// records what it read.
    fn list_cached(
        &self,
        query: &Query,
        cache: &ListCache,
    ) -> Result<(Vec<Vec<Row>>, Vec<String>), NotesError> {
        let known = cache.known();
        let walked = self.walk(query, Some(&known), Default::default, |state, found| {
            self.list_row_cached(&known, state, found)
        })?;
        let mut read = Vec::new();
        let rows = walked
            .kept
            .into_iter()
            .map(|batch| {
                batch
                    .into_iter()
                    .map(|(row, note)| {
                        read.extend(note);
                        row
                    })
                    .collect()
            })
            .collect();
        cache.update(&known, &walked.homes, &walked.listed, &read);
        Ok((rows, walked.unavailable))
    }

    /// Case-insensitive literal OR over body lines; one hit per matching line.
    pub fn search<S: AsRef<str>>(
        &self,
        queries: &[S],
        query: &Query,
    ) -> Result<SearchListing, NotesError> {
        let matcher = matcher(queries)?;
        let wanted = query.wastebasket;
        let (rows, homes_unavailable) = self.visit(query, Vec::new, |buffer, found| {
            self.search_row(buffer, found, &matcher)
        })?;
        let (rows, crumpled_excluded) = recent_first(rows, wanted, |r| &r.row);
        Ok(SearchListing {
            rows,
            crumpled_excluded,
            homes_unavailable,
            wastebasket: wanted,
        })
    }

    /// Runs `visit` on every note of the homes the query selects whose address the pattern
    /// matches (see [`walk::visit_notes`]); returns what it kept and the labels of the homes that
    /// could not be read.
    fn visit<T, R>(
        &self,
        query: &Query,
        state: impl Fn() -> T + Sync,
        visit: impl Fn(&mut T, walk::Found<'_>) -> Option<R> + Sync,
    ) -> Result<(Vec<Vec<R>>, Vec<String>), NotesError>
    where
        R: Send,
    {
        let walked = self.walk(query, None, state, visit)?;
        Ok((walked.kept, walked.unavailable))
    }

    /// [`Store::visit`], trusting the directory listings of `listings` that still hold, and
    /// telling which directories it reached.
    fn walk<T, R>(
        &self,
        query: &Query,
        listings: Option<&dyn walk::Listings>,
        state: impl Fn() -> T + Sync,
        visit: impl Fn(&mut T, walk::Found<'_>) -> Option<R> + Sync,
    ) -> Result<Walked<R>, NotesError>
    where
        R: Send,
    {
        let pattern = Pattern::parse(query.pattern.as_deref(), &self.identity)?;
        let scan = match &query.home {
            Some(spec) => Scan::One(self.home_for_query(spec)?),
            None => pattern.scan().clone(),
        };
        let mut unavailable = Vec::new();
        let root = match self.open_root() {
            Ok(Some(root)) => root,
            Ok(None) => return Ok(Walked::nothing(unavailable)),
            Err(_) => {
                // The notes home itself cannot be opened: every home it holds is unavailable.
                let labels = match &scan {
                    Scan::AllAgents => vec!["@agents".to_string()],
                    Scan::AllModels => vec!["@models".to_string()],
                    _ => self
                        .homes(None, &scan, &mut unavailable)
                        .iter()
                        .map(Home::label)
                        .collect(),
                };
                return Ok(Walked::nothing(labels));
            }
        };
        let homes = self.homes(Some(&root), &scan, &mut unavailable);
        let visited = walk::visit_notes(
            &root,
            &homes,
            listings,
            |location| pattern.matches(location),
            state,
            visit,
        );
        unavailable.extend(visited.failed.iter().map(|&i| homes[i].label()));
        let walked_homes = homes
            .iter()
            .enumerate()
            .filter(|(i, _)| !visited.failed.contains(i))
            .map(|(_, home)| home.components().join("/"))
            .collect();
        Ok(Walked {
            kept: visited.kept,
            unavailable,
            homes: walked_homes,
            listed: visited.listed,
        })
    }

    fn home_for_query(&self, spec: &HomeSpec) -> Result<Home, NotesError> {
        if let HomeSpec::Agent(Some(name)) | HomeSpec::Model(Some(name)) = spec {
            if !is_slug(name) {
                return Err(NotesError::InvalidScope(format!(
                    "who must be a canonical lowercase slug (got {name:?})"
                )));
            }
        }
        spec.resolve(&self.identity)
    }

    fn homes(&self, root: Option<&Dir>, scan: &Scan, unavailable: &mut Vec<String>) -> Vec<Home> {
        let who = &self.identity;
        match scan {
            Scan::Default => {
                let mut homes = Vec::new();
                if let Some(id) = &who.session_id {
                    homes.push(Home::Session(id.clone()));
                }
                homes.push(Home::Project(who.project_key.clone()));
                homes.push(Home::Human);
                homes.push(Home::Agent {
                    name: who.agent.clone(),
                    current: true,
                });
                homes.push(Home::Model {
                    name: who.model.clone(),
                    current: true,
                });
                homes
            }
            Scan::One(home) => vec![home.clone()],
            Scan::AllAgents => self.named_homes(root, "agents", unavailable, |name| Home::Agent {
                current: name == who.agent,
                name,
            }),
            Scan::AllModels => self.named_homes(root, "models", unavailable, |name| Home::Model {
                current: name == who.model,
                name,
            }),
        }
    }

    fn named_homes(
        &self,
        root: Option<&Dir>,
        namespace: &str,
        unavailable: &mut Vec<String>,
        make: impl Fn(String) -> Home,
    ) -> Vec<Home> {
        let Some(root) = root else {
            return Vec::new();
        };
        match walk::home_names(root, namespace) {
            Ok(names) => names.into_iter().map(make).collect(),
            Err(_) => {
                unavailable.push(format!("@{namespace}"));
                Vec::new()
            }
        }
    }

    /// A row for `list` from `known` when the note did not change since it was recorded, else
    /// read ([`Store::read_head`]), with what the record may keep of it (the record decides).
    fn list_row_cached(
        &self,
        known: &list_cache::Known<'_>,
        state: &mut list_cache::Lookup,
        found: walk::Found<'_>,
    ) -> Option<(Row, Option<list_cache::ReadNote>)> {
        let dir = found.dir.path();
        if let Some(recorded) = known.note(state, dir, found.name) {
            if let Some(stamp) = found.dir.stamp(found.name) {
                if stamp == recorded.stamp {
                    return Some((row_from_record(found.location, &stamp, recorded), None));
                }
            }
        }
        let head = self.read_head(&mut state.buffer, &found)?;
        let values = frontmatter::known_values(head.text);
        let note = list_cache::ReadNote {
            dir: dir.to_string(),
            name: found.name.to_string(),
            version: list_cache::Version {
                stamp: head.stamp,
                head_len: head.text.len() as u64,
                values: values
                    .iter()
                    .map(|value| value.clone().map(Cow::Owned))
                    .collect(),
            },
        };
        let modified = head.stamp.modified_time();
        let row = row_of_values(found.location, values, modified, head.body_bytes);
        Some((row, Some(note)))
    }

    /// A row for `list`: only the frontmatter is read and parsed, usually from the first KiB.
    fn list_row(&self, buffer: &mut Vec<u8>, found: walk::Found<'_>) -> Option<Row> {
        let head = self.read_head(buffer, &found)?;
        let modified = head.stamp.modified_time();
        Some(row(found.location, head.text, modified, head.body_bytes))
    }

    /// The frontmatter block of a note for `list`, read from its first KiB (the whole note only
    /// when the block goes on past it), with the note's stamp taken before it was read.
    fn read_head<'b>(&self, buffer: &'b mut Vec<u8>, found: &walk::Found<'_>) -> Option<Head<'b>> {
        let dir = found.dir.dir()?;
        let head_read = ReadLimit::Head { bytes: HEAD_BYTES };
        let mut read = files::read_into(dir, found.name, head_read, buffer).ok()??;
        let mut head = files::note_text(buffer, read.complete)
            .and_then(|text| frontmatter::head_len(text, read.complete));
        if head.is_none() {
            // The frontmatter goes on past the first KiB: read the whole note.
            let whole = ReadLimit::Whole {
                max_bytes: files::MAX_READ_BYTES,
            };
            read = files::read_into(dir, found.name, whole, buffer).ok()??;
            head = files::note_text(buffer, true)
                .map(|text| frontmatter::head_len(text, true).unwrap_or(0));
        }
        let head = head?;
        let text = files::note_text(buffer, read.complete)?;
        let body_bytes = usize::try_from(read.meta.len)
            .unwrap_or(usize::MAX)
            .saturating_sub(head);
        Some(Head {
            text: &text[..head],
            stamp: read.stamp,
            body_bytes,
        })
    }

    /// A row and its matching lines for `search`; `None` when nothing matches. The whole file
    /// is searched first, as bytes: most notes do not match, and those are never checked to be
    /// UTF-8 nor parsed.
    fn search_row(
        &self,
        buffer: &mut Vec<u8>,
        found: walk::Found<'_>,
        matcher: &LiteralMatcher,
    ) -> Option<SearchRow> {
        let whole = ReadLimit::Whole {
            max_bytes: files::MAX_READ_BYTES,
        };
        let read = files::read_into(found.dir.dir()?, found.name, whole, buffer).ok()??;
        if !matcher.is_match_bytes(buffer) {
            return None;
        }
        // A note that is not UTF-8 is skipped (read and edit refuse it).
        let text = files::note_text(buffer, true)?;
        let head = frontmatter::head_len(text, true).unwrap_or(0);
        let body = &text[head..];
        let matches = match_lines(matcher, body);
        if matches.is_empty() {
            return None;
        }
        let row = row(
            found.location,
            &text[..head],
            read.meta.modified,
            body.len(),
        );
        Some(SearchRow { row, matches })
    }
}

/// What a walk kept, the labels of the homes it could not read, the directories (below the
/// notes home) of those it read, and the directories it reached.
struct Walked<R> {
    kept: Vec<Vec<R>>,
    unavailable: Vec<String>,
    homes: Vec<String>,
    listed: Vec<walk::Listed>,
}

impl<R> Walked<R> {
    fn nothing(unavailable: Vec<String>) -> Walked<R> {
        Walked {
            kept: Vec::new(),
            unavailable,
            homes: Vec::new(),
            listed: Vec::new(),
        }
    }
}

/// A note's frontmatter block as `list` read it.
struct Head<'b> {
    text: &'b str,
    /// The note's stamp, taken before it was read.
    stamp: Stamp,
    body_bytes: usize,
}

/// Notes are read in full only when their frontmatter does not end within this many bytes
/// (a typical block is a few hundred bytes; reading less per file keeps `list` cheap).
const HEAD_BYTES: usize = 1024;

/// A listing row from a note's frontmatter block `head` (unlocked); missing times fall back to
/// the file's modification time.
fn row(location: Location, head: &str, modified: Option<SystemTime>, body_bytes: usize) -> Row {
    row_of_values(
        location,
        frontmatter::known_values(head),
        modified,
        body_bytes,
    )
}

/// The row of a note unchanged since `recorded` (its `stamp`), as [`row`] made it then.
fn row_from_record(location: Location, stamp: &Stamp, recorded: &list_cache::Version<'_>) -> Row {
    let mut values: [Option<String>; Key::ALL.len()] = Default::default();
    for (value, recorded) in values.iter_mut().zip(&recorded.values) {
        *value = recorded.as_deref().map(str::to_string);
    }
    let head_len = usize::try_from(recorded.head_len).unwrap_or(usize::MAX);
    let body_bytes = usize::try_from(stamp.len)
        .unwrap_or(usize::MAX)
        .saturating_sub(head_len);
    row_of_values(location, values, stamp.modified_time(), body_bytes)
}

/// A listing row from the values of the known keys of a note's frontmatter block.
fn row_of_values(
    location: Location,
    values: [Option<String>; Key::ALL.len()],
    modified: Option<SystemTime>,
    body_bytes: usize,
) -> Row {
    let fallback_at = modified.and_then(|m| Timestamp::try_from(m).ok());
    let meta = Meta::from_values(values, &|| {
        fallback_at.map_or_else(String::new, clock::local_iso)
    });
    let updated = clock::parse(&meta.updated_at)
        .or(fallback_at)
        .unwrap_or(Timestamp::UNIX_EPOCH);
    Row {
        location,
        meta,
        body_bytes,
        updated,
    }
}

pub(super) fn matcher<S: AsRef<str>>(queries: &[S]) -> Result<LiteralMatcher, NotesError> {
    wire::check_queries(queries).map_err(|e| NotesError::InvalidQuery(e.to_string()))?;
    LiteralMatcher::new(queries)
        .map_err(|e| NotesError::InvalidQuery(format!("query cannot be compiled: {e}")))
}

/// One hit per matching line of `body`: its number, its text and where the earliest match on
/// it starts. The body is searched as a whole, jumping from each hit to the next line, so lines
/// without a match cost only the scan for the next one.
pub(super) fn match_lines(matcher: &LiteralMatcher, body: &str) -> Vec<LineMatch> {
    if matcher.is_multiline() {
        return match_each_line(matcher, body);
    }
    let bytes = body.as_bytes();
    let mut matches = Vec::new();
    // Line number and code points before the start of the line at `counted`.
    let (mut line, mut chars_before, mut counted) = (1, 0, 0);
    let mut from = 0;
    while let Some(at) = matcher.find_at(body, from) {
        // No query holds a line feed, so the match lies within one line.
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        line += count_line_feeds(&bytes[counted..start]);
        chars_before += text::char_len(&body[counted..start]);
        counted = start;
        let column = text::char_len(&body[start..at]);
        let whole = &body[start..end];
        matches.push(LineMatch {
            line,
            text: whole.strip_suffix('\r').unwrap_or(whole).to_string(),
            offset_chars: chars_before + column,
            column_chars: column,
        });
        if end == bytes.len() {
            break;
        }
        from = end + 1;
    }
    matches
}

/// [`match_lines`] one line at a time, for queries that hold a line feed (which never match:
/// no line holds one).
pub(super) fn match_each_line(matcher: &LiteralMatcher, body: &str) -> Vec<LineMatch> {
    let mut matches = Vec::new();
    let mut chars_before = 0;
    for (index, line) in body.split('\n').enumerate() {
        if let Some(at) = matcher.find(line) {
            let column = text::char_len(&line[..at]);
            matches.push(LineMatch {
                line: index + 1,
                text: line.strip_suffix('\r').unwrap_or(line).to_string(),
                offset_chars: chars_before + column,
                column_chars: column,
            });
        }
        chars_before += text::char_len(line) + 1;
    }
    matches
}

fn count_line_feeds(bytes: &[u8]) -> usize {
    text::count_byte(bytes, b'\n')
}

/// The rows shown (crumpled ones with `wastebasket`, live ones without), recent-first then by
/// address, and the count of the others. Rows are large and come in batches: the order is found
/// on small keys (the update time, then the address where times are equal), and each row is
/// moved once, into its place.
fn recent_first<T>(
    batches: Vec<Vec<T>>,
    wastebasket: bool,
    row: impl Fn(&T) -> &Row,
) -> (Vec<T>, usize) {
    let total: usize = batches.iter().map(Vec::len).sum();
    let mut order = Vec::with_capacity(total);
    for (b, batch) in batches.iter().enumerate() {
        for (i, item) in batch.iter().enumerate() {
            let item = row(item);
            if item.meta.crumpled_at.is_some() == wastebasket {
                order.push((Reverse(item.updated), b, i));
            }
        }
    }
    let excluded = total - order.len();
    order.sort_unstable_by_key(|&(updated, _, _)| updated);
    let address =
        |&(_, b, i): &(Reverse<Timestamp>, usize, usize)| row(&batches[b][i]).location.address();
    for same_time in order.chunk_by_mut(|a, b| a.0 == b.0) {
        if same_time.len() > 1 {
            same_time.sort_by_cached_key(address);
        }
    }
    let mut slots: Vec<Vec<Option<T>>> = batches
        .into_iter()
        .map(|batch| batch.into_iter().map(Some).collect())
        .collect();
    let mut sorted = Vec::with_capacity(order.len());
    sorted.extend(order.into_iter().filter_map(|(_, b, i)| slots[b][i].take()));
    (sorted, excluded)
}
