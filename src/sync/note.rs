//! Merging one note changed on both sides: the body line by line ([`super::text`]), the
//! frontmatter key by key.
//!
//! Every write moves `updatedAt`, so a line merge of the whole file would make every concurrent
//! edit conflict on it. Instead each known key has its rule: `updatedAt` and `lastAccessed` take
//! the later time, `accessCount` the larger count, `createdAt` the earlier time. The others
//! (`origin`, `crumpledAt`, `project`) are merged three-way; when both sides changed one
//! differently, the later note's value (by `updatedAt`) is kept and the other is reported. The
//! lines the store does not interpret (unknown keys, comments, lists) are merged line by line as
//! one text, with the same fallback. The later note's block is the one the result keeps, so its
//! layout and unknown lines stay as written.
//!
//! Which note is later never depends on which side is ours: equal times fall back to comparing
//! the texts, so two machines merging the same pair choose alike.

use std::cmp::Ordering;

use serde::Serialize;

use super::text::{self, Labels};
use crate::notes::frontmatter::{Document, Key};

/// A frontmatter value both sides changed differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyConflict {
    /// The key (`origin`, …), or `frontmatter` for the lines the store does not interpret.
    pub key: String,
    /// The value kept (the later note's); empty when the key is absent there.
    pub kept: String,
    /// The value not kept.
    pub other: String,
}

/// A merged note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedNote {
    pub text: String,
    /// Conflicts kept in the body between markers.
    pub body_conflicts: usize,
    pub key_conflicts: Vec<KeyConflict>,
}

/// Merges a note both sides changed (`base` is `None` when both added it).
pub fn merge(base: Option<&str>, ours: &str, theirs: &str, labels: &Labels) -> MergedNote {
    let (o, t) = (Document::parse(ours), Document::parse(theirs));
    if !o.has_frontmatter() || !t.has_frontmatter() {
        let merged = text::merge(base.unwrap_or(""), ours, theirs, labels);
        return MergedNote {
            text: merged.text,
            body_conflicts: merged.conflicts,
            key_conflicts: Vec::new(),
        };
    }
    let b = Document::parse(base.unwrap_or(""));
    let b_body = if b.has_frontmatter() {
        b.body.as_str()
    } else {
        ""
    };
    let body = text::merge(b_body, &o.body, &t.body, labels);
    let ours_later = later(&o, ours, &t, theirs) == Side::Ours;
    let (later_doc, earlier_doc) = if ours_later { (&o, &t) } else { (&t, &o) };
    let mut merged = later_doc.clone();
    merged.body = body.text;
    let mut key_conflicts = Vec::new();
    for key in Key::ALL {
        let value = match key {
            Key::CreatedAt => pick_time(o.get(key), t.get(key), Ordering::Less),
            Key::UpdatedAt | Key::LastAccessed => {
                pick_time(o.get(key), t.get(key), Ordering::Greater)
            }
            Key::AccessCount => larger_count(o.get(key), t.get(key)),
            Key::Origin | Key::CrumpledAt | Key::Project => {
                let (bv, later_v, earlier_v) =
                    (b.get(key), later_doc.get(key), earlier_doc.get(key));
                match three_way(bv, later_v.clone(), earlier_v.clone()) {
                    Ok(value) => value,
                    Err(()) => {
                        key_conflicts.push(KeyConflict {
                            key: key.name().to_string(),
                            kept: later_v.clone().unwrap_or_default(),
                            other: earlier_v.unwrap_or_default(),
                        });
                        later_v
                    }
                }
            }
        };
        match value {
            Some(value) => merged.set(key, &value),
            None => merged.remove(key),
        }
    }
    let (bo, lo, eo) = (
        b.other_lines(),
        later_doc.other_lines(),
        earlier_doc.other_lines(),
    );
    let others = text::merge(&bo, &lo, &eo, labels);
    if others.conflicts == 0 {
        merged.set_other_lines(&others.text);
    } else {
        key_conflicts.push(KeyConflict {
            key: "frontmatter".to_string(),
            kept: lo.trim_end().to_string(),
            other: eo.trim_end().to_string(),
        });
    }
    MergedNote {
        text: merged.render(),
        body_conflicts: body.conflicts,
        key_conflicts,
    }
}

/// A read moves only `accessCount` and `lastAccessed`, and no commit records that alone: two
/// versions of a note that differ only there are the same version.
pub fn same_but_counters(a: &[u8], b: &[u8]) -> bool {
    match (std::str::from_utf8(a), std::str::from_utf8(b)) {
        (Ok(a), Ok(b)) => without_counters(a) == without_counters(b),
        _ => false,
    }
}

fn without_counters(text: &str) -> String {
    let mut doc = Document::parse(text);
    doc.remove(Key::AccessCount);
    doc.remove(Key::LastAccessed);
    doc.render()
}

/// `merged` with the read counters of `disk` where those are ahead (the larger count, the later
/// access): what a read on this machine counted is not lost when the merge replaces the file.
pub fn carry_counters(merged: &str, disk: &str) -> String {
    let (mut doc, disk) = (Document::parse(merged), Document::parse(disk));
    if !doc.has_frontmatter() || !disk.has_frontmatter() {
        return merged.to_string();
    }
    let last = pick_time(
        doc.get(Key::LastAccessed),
        disk.get(Key::LastAccessed),
        Ordering::Greater,
    );
    let count = larger_count(doc.get(Key::AccessCount), disk.get(Key::AccessCount));
    for (key, value) in [(Key::LastAccessed, last), (Key::AccessCount, count)] {
        if let Some(value) = value {
            doc.set(key, &value);
        }
    }
    doc.render()
}

#[derive(Debug, PartialEq, Eq)]
enum Side {
    Ours,
    Theirs,
}

/// The note with the later `updatedAt`; equal (or unreadable) times: the larger text.
fn later(o: &Document, ours: &str, t: &Document, theirs: &str) -> Side {
    let order =
        compare_times(o.get(Key::UpdatedAt), t.get(Key::UpdatedAt)).then_with(|| ours.cmp(theirs));
    if order == Ordering::Less {
        Side::Theirs
    } else {
        Side::Ours
    }
}

/// Times compared as instants when both parse, else as text; a missing time is the earliest.
fn compare_times(a: Option<String>, b: Option<String>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => match (a.parse::<jiff::Timestamp>(), b.parse::<jiff::Timestamp>()) {
            (Ok(x), Ok(y)) => x.cmp(&y).then_with(|| a.cmp(&b)),
            _ => a.cmp(&b),
        },
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

/// The earlier (`Less`) or later (`Greater`) of two times; one alone when the other is missing.
fn pick_time(a: Option<String>, b: Option<String>, want: Ordering) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => {
            if compare_times(Some(a.clone()), Some(b.clone())) == want {
                Some(a)
            } else {
                Some(b)
            }
        }
        (a, b) => a.or(b),
    }
}

fn larger_count(a: Option<String>, b: Option<String>) -> Option<String> {
    let count = |v: &Option<String>| v.as_deref().and_then(|v| v.trim().parse::<u64>().ok());
    match (count(&a), count(&b)) {
        (Some(x), Some(y)) => Some(x.max(y).to_string()),
        (Some(_), None) => a,
        (None, Some(_)) => b,
        (None, None) => a.or(b),
    }
}

/// The three-way value of one key; `Err` when both sides changed it differently.
fn three_way<T: PartialEq>(base: T, one: T, other: T) -> Result<T, ()> {
    if one == other || other == base {
        Ok(one)
    } else if one == base {
        Ok(other)
    } else {
        Err(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::text::tests::labels;

    fn note(updated: &str, count: u32, extra: &str, body: &str) -> String {
        format!(
            "---\norigin: self\ncreatedAt: 2026-01-01T00:00:00.000Z\nupdatedAt: {updated}\nlastAccessed: {updated}\naccessCount: {count}\n{extra}---\n\n{body}"
        )
    }

    #[test]
    fn concurrent_edits_merge_without_a_conflict_on_the_times() {
        let base = note("2026-01-02T00:00:00.000Z", 1, "", "one\ntwo\nthree\n");
        let ours = note("2026-01-03T00:00:00.000Z", 4, "", "ONE\ntwo\nthree\n");
        let theirs = note("2026-01-04T00:00:00.000Z", 2, "", "one\ntwo\nTHREE\n");
        let merged = merge(Some(&base), &ours, &theirs, &labels());
        assert_eq!(merged.body_conflicts, 0);
        assert!(merged.key_conflicts.is_empty());
        let doc = Document::parse(&merged.text);
        assert_eq!(doc.body, "ONE\ntwo\nTHREE\n");
        assert_eq!(doc.get(Key::UpdatedAt).unwrap(), "2026-01-04T00:00:00.000Z");
        assert_eq!(doc.get(Key::AccessCount).unwrap(), "4");
        assert_eq!(doc.get(Key::CreatedAt).unwrap(), "2026-01-01T00:00:00.000Z");
        // Symmetric: the other machine merges the same pair to the same note.
        let mirrored = merge(Some(&base), &theirs, &ours, &labels());
        assert_eq!(mirrored.text, merged.text);
    }

    #[test]
    fn a_key_changed_both_ways_keeps_the_later_value_and_reports_the_other() {
        let base = note("2026-01-02T00:00:00.000Z", 0, "", "x\n");
        let ours =
            note("2026-01-03T00:00:00.000Z", 0, "", "x\n").replace("origin: self", "origin: user");
        let theirs = note("2026-01-04T00:00:00.000Z", 0, "", "x\n")
            .replace("origin: self", "origin: external");
        let merged = merge(Some(&base), &ours, &theirs, &labels());
        let doc = Document::parse(&merged.text);
        assert_eq!(doc.get(Key::Origin).unwrap(), "external");
        assert_eq!(
            merged.key_conflicts,
            [KeyConflict {
                key: "origin".into(),
                kept: "external".into(),
                other: "user".into()
            }]
        );
    }

    #[test]
    fn one_side_crumpling_and_unknown_lines_merge_three_way() {
        let base = note("2026-01-02T00:00:00.000Z", 0, "tags: [a]\n", "x\n");
        let ours = note(
            "2026-01-03T00:00:00.000Z",
            0,
            "tags: [a]\ncrumpledAt: 2026-01-03T00:00:00.000Z\n",
            "x\n",
        );
        let theirs = note("2026-01-04T00:00:00.000Z", 0, "tags: [a, b]\n", "x\ny\n");
        let merged = merge(Some(&base), &ours, &theirs, &labels());
        let doc = Document::parse(&merged.text);
        assert_eq!(
            doc.get(Key::CrumpledAt).unwrap(),
            "2026-01-03T00:00:00.000Z"
        );
        assert_eq!(doc.other_lines(), "tags: [a, b]\n");
        assert_eq!(doc.body, "x\ny\n");
        assert!(merged.key_conflicts.is_empty());
    }

    #[test]
    fn read_counters_are_not_a_version_and_are_carried_into_a_merge() {
        let committed = note("2026-01-02T00:00:00.000Z", 1, "", "x\n");
        let read = committed
            .replace("accessCount: 1", "accessCount: 7")
            .replace("lastAccessed: 2026-01-02", "lastAccessed: 2026-02-09");
        assert!(same_but_counters(committed.as_bytes(), read.as_bytes()));
        let edited = committed.replace("x\n", "y\n");
        assert!(!same_but_counters(edited.as_bytes(), read.as_bytes()));
        let carried = Document::parse(&carry_counters(&edited, &read));
        assert_eq!(carried.get(Key::AccessCount).unwrap(), "7");
        assert_eq!(
            carried.get(Key::LastAccessed).unwrap(),
            "2026-02-09T00:00:00.000Z"
        );
        assert_eq!(carried.body, "y\n");
    }

    #[test]
    fn the_same_address_added_on_both_sides_keeps_both_bodies() {
        let ours = note("2026-01-03T00:00:00.000Z", 0, "", "mine\n");
        let theirs = note("2026-01-04T00:00:00.000Z", 0, "", "yours\n");
        let merged = merge(None, &ours, &theirs, &labels());
        assert_eq!(merged.body_conflicts, 1);
        assert!(
            merged.text.contains("mine\n=======\nyours\n"),
            "{}",
            merged.text
        );
        assert_eq!(
            Document::parse(&merged.text).get(Key::UpdatedAt).unwrap(),
            "2026-01-04T00:00:00.000Z"
        );
    }
}
