//! A three-way merge of text, line by line (diff3).
//!
//! The base is diffed against each side; the base lines both sides kept unchanged are the
//! stable points, and each stretch between two stable points is a chunk. A chunk only one side
//! changed takes that side; one both sides changed alike takes it once; one they changed
//! differently is a conflict. As in git, changes on adjacent lines conflict.
//!
//! A conflict first loses the lines both sides agree on at its start and its end (git's
//! "zealous" merge), so two notes created apart with the same first lines conflict only where
//! they differ. Then, when one side's lines hold the other's whole inside conflict markers —
//! a conflict this merge (or a merge killed halfway) already kept — that side is taken, so
//! merging a kept conflict again never nests markers. Otherwise both versions are kept between
//! the markers of [`crate::home::layout`].

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

use crate::home::layout::{marker_block, CONFLICT_END, CONFLICT_SEPARATOR, CONFLICT_START};

/// How long each line diff may search for the smallest diff before settling for a coarser one
/// (still a correct diff): a giant note never makes a sync hang.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// The names the conflict markers carry: `<<<<<<< ours (laptop)`, `>>>>>>> theirs (origin)`.
#[derive(Debug, Clone)]
pub struct Labels {
    pub ours: String,
    pub theirs: String,
}

/// The merged text and how many conflicts it keeps between markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub conflicts: usize,
}

/// Merges the changes `ours` and `theirs` made to `base`.
pub fn merge(base: &str, ours: &str, theirs: &str, labels: &Labels) -> Merged {
    let clean = |text: &str| Merged {
        text: text.to_string(),
        conflicts: 0,
    };
    if ours == theirs || base == theirs {
        return clean(ours);
    }
    if base == ours {
        return clean(theirs);
    }
    let (b, o, t) = (lines(base), lines(ours), lines(theirs));
    let to_ours = matches(&b, &o);
    let to_theirs = matches(&b, &t);
    let mut out = String::with_capacity(ours.len().max(theirs.len()));
    let mut conflicts = 0;
    let (mut ib, mut io, mut it) = (0, 0, 0);
    loop {
        while ib < b.len() && to_ours[ib] == Some(io) && to_theirs[ib] == Some(it) {
            out.push_str(b[ib]);
            (ib, io, it) = (ib + 1, io + 1, it + 1);
        }
        if ib == b.len() && io == o.len() && it == t.len() {
            break;
        }
        let mut next = ib;
        while next < b.len() && (to_ours[next].is_none() || to_theirs[next].is_none()) {
            next += 1;
        }
        let (jo, jt) = match (to_ours.get(next), to_theirs.get(next)) {
            (Some(Some(jo)), Some(Some(jt))) => (*jo, *jt),
            _ => (o.len(), t.len()),
        };
        conflicts += chunk(&b[ib..next], &o[io..jo], &t[it..jt], labels, &mut out);
        (ib, io, it) = (next, jo, jt);
    }
    Merged {
        text: out,
        conflicts,
    }
}

/// The lines of `text`, each with its terminator.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// For each base line, the line of `side` it is kept as, if any (monotone in both).
fn matches(base: &[&str], side: &[&str]) -> Vec<Option<usize>> {
    let mut map = vec![None; base.len()];
    let deadline = Instant::now() + DIFF_DEADLINE;
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, base, side, Some(deadline));
    for op in ops {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                map[old_index + k] = Some(new_index + k);
            }
        }
    }
    map
}

/// Resolves one chunk into `out`; returns the number of conflicts kept (0 or 1).
fn chunk(
    base: &[&str],
    ours: &[&str],
    theirs: &[&str],
    labels: &Labels,
    out: &mut String,
) -> usize {
    let push = |out: &mut String, lines: &[&str]| lines.iter().for_each(|l| out.push_str(l));
    if ours == theirs || theirs == base {
        push(out, ours);
        return 0;
    }
    if ours == base {
        push(out, theirs);
        return 0;
    }
    let prefix = ours.iter().zip(theirs).take_while(|(a, b)| a == b).count();
    let (o, t) = (&ours[prefix..], &theirs[prefix..]);
    let suffix = o
        .iter()
        .rev()
        .zip(t.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (o, t) = (&o[..o.len() - suffix], &t[..t.len() - suffix]);
    let resolved = if t.is_empty() || covers(o, t) {
        Some(ours)
    } else if o.is_empty() || covers(t, o) {
        Some(theirs)
    } else {
        None
    };
    if let Some(side) = resolved {
        push(out, side);
        return 0;
    }
    push(out, &ours[..prefix]);
    out.push_str(&format!("{CONFLICT_START}{}\n", labels.ours));
    push_terminated(out, o);
    out.push_str(&format!("{CONFLICT_SEPARATOR}\n"));
    push_terminated(out, t);
    out.push_str(&format!("{CONFLICT_END}{}\n", labels.theirs));
    push(out, &ours[ours.len() - suffix..]);
    1
}

/// Pushes `lines`, ending the last one with a line break if it has none (a marker follows).
fn push_terminated(out: &mut String, lines: &[&str]) {
    for line in lines {
        out.push_str(line);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
}

/// Whether `outer` is a kept conflict that already holds every line of `inner`, in one run.
fn covers(outer: &[&str], inner: &[&str]) -> bool {
    if inner.is_empty() || marker_block(outer).is_none() {
        return false;
    }
    let trimmed = |line: &&str| line.trim_end_matches(['\n', '\r']).to_string();
    let outer: Vec<String> = outer.iter().map(trimmed).collect();
    let inner: Vec<String> = inner.iter().map(trimmed).collect();
    outer.windows(inner.len()).any(|window| window == inner)
}

#[cfg(test)]
pub(in crate::sync) mod tests {
    use super::*;

    pub(in crate::sync) fn labels() -> Labels {
        Labels {
            ours: "ours (here)".into(),
            theirs: "theirs (origin)".into(),
        }
    }

    fn m(base: &str, ours: &str, theirs: &str) -> Merged {
        merge(base, ours, theirs, &labels())
    }

    #[test]
    fn one_sided_and_identical_changes_merge_cleanly() {
        assert_eq!(m("a\nb\n", "a\nB\n", "a\nb\n").text, "a\nB\n");
        assert_eq!(m("a\nb\n", "a\nb\n", "A\nb\n").text, "A\nb\n");
        assert_eq!(m("a\nb\n", "x\n", "x\n").text, "x\n");
    }

    #[test]
    fn changes_on_separate_lines_merge() {
        let base = "1\n2\n3\n4\n5\n";
        let merged = m(base, "1\nTWO\n3\n4\n5\n", "1\n2\n3\n4\nFIVE\n");
        assert_eq!(
            merged,
            Merged {
                text: "1\nTWO\n3\n4\nFIVE\n".into(),
                conflicts: 0
            }
        );
        let inserted = m(base, "0\n1\n2\n3\n4\n5\n", "1\n2\n3\n4\n5\n6\n");
        assert_eq!(inserted.text, "0\n1\n2\n3\n4\n5\n6\n");
    }

    #[test]
    fn the_same_line_changed_twice_keeps_both_between_markers() {
        let merged = m("a\nb\nc\n", "a\nours\nc\n", "a\ntheirs\nc\n");
        assert_eq!(merged.conflicts, 1);
        assert_eq!(
            merged.text,
            "a\n<<<<<<< ours (here)\nours\n=======\ntheirs\n>>>>>>> theirs (origin)\nc\n"
        );
        assert!(crate::home::layout::has_conflict_markers(&merged.text));
    }

    #[test]
    fn a_last_line_without_a_break_still_gets_its_marker_line() {
        let merged = m("a\nb", "a\nx", "a\ny");
        assert_eq!(
            merged.text,
            "a\n<<<<<<< ours (here)\nx\n=======\ny\n>>>>>>> theirs (origin)\n"
        );
    }

    #[test]
    fn additions_on_both_sides_conflict_only_where_they_differ() {
        let merged = m("", "# Title\nmine\nend\n", "# Title\nyours\nend\n");
        assert_eq!(merged.conflicts, 1);
        assert!(
            merged.text.starts_with("# Title\n<<<<<<< "),
            "{}",
            merged.text
        );
        assert!(
            merged.text.ends_with(">>>>>>> theirs (origin)\nend\n"),
            "{}",
            merged.text
        );
        // One side adding more than the other is no conflict.
        assert_eq!(m("", "a\nb\n", "a\n").text, "a\nb\n");
    }

    #[test]
    fn a_kept_conflict_is_never_nested_when_merged_again() {
        let first = m("a\nb\nc\n", "a\nours\nc\n", "a\ntheirs\nc\n");
        // The merged note (committed or killed before its commit) meets theirs again.
        let again = m("a\nb\nc\n", &first.text, "a\ntheirs\nc\n");
        assert_eq!(again.text, first.text);
        assert_eq!(again.conflicts, 0);
        // And from the other side: theirs already holds the kept conflict.
        let other = m("a\nb\nc\n", "a\nours\nc\n", &first.text);
        assert_eq!(other.text, first.text);
    }

    #[test]
    fn delete_against_edit_keeps_the_edit() {
        assert_eq!(m("a\nb\nc\n", "a\nc\n", "a\nB\nc\n").text, "a\nB\nc\n");
    }
}
