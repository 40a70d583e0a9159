//! The dream report, `dreams/<stamp>.md`.

use super::purge::Purged;
use super::{Conflict, Violation};
use crate::home::audit::Change;
use crate::text::one_line;

/// What a report says.
pub struct Report<'a> {
    pub stamp: &'a str,
    pub failed: bool,
    pub answer: &'a str,
    pub error: Option<&'a str>,
    /// `None`: the post-run audit failed, so the changes are unknown.
    pub changes: Option<&'a [Change]>,
    pub violations: &'a [Violation],
    pub conflicts: &'a [Conflict],
    pub purged: &'a [Purged],
    /// When the run started (for the wastebasket's ages).
    pub now: std::time::SystemTime,
}

pub fn render(report: &Report) -> String {
    let mut out = format!(
        "# Dream {}{}\n\n",
        report.stamp,
        if report.failed { " (failed)" } else { "" }
    );
    if let Some(error) = report.error {
        out.push_str(&format!("Error: {error}\n\n"));
    }
    let answer = report.answer.trim();
    if !answer.is_empty() {
        out.push_str(answer);
        out.push_str("\n\n");
    } else if report.error.is_none() {
        out.push_str("(the dreamer gave no final text)\n\n");
    }
    out.push_str("## Changes\n\n");
    match report.changes {
        None => out
            .push_str("- unknown: the post-run audit failed; see `git status` in the notes home\n"),
        Some([]) => out.push_str("- no changes\n"),
        Some(changes) => {
            for change in changes {
                out.push_str(&format!("- {}: {}\n", change.kind, one_line(&change.path)));
            }
        }
    }
    if !report.violations.is_empty() {
        out.push_str("\n## Violations\n\n");
        for v in report.violations {
            out.push_str(&format!(
                "- {}: {} ({})\n",
                v.kind,
                one_line(&v.path),
                one_line(&v.reason)
            ));
        }
    }
    if !report.purged.is_empty() {
        out.push_str("\n## Wastebasket\n\n");
        let now = jiff::Timestamp::try_from(report.now).ok();
        for p in report.purged {
            let age = now
                .zip(crate::notes::clock::parse(&p.crumpled_at))
                .map(|(now, at)| format!("crumpled {}", crate::clock::age_in_words(now, at)))
                .unwrap_or_else(|| format!("crumpled {}", p.crumpled_at));
            out.push_str(&format!("- purged: {} ({age})\n", one_line(&p.path)));
        }
    }
    if !report.conflicts.is_empty() {
        out.push_str("\n## Conflicts\n\n");
        for c in report.conflicts {
            let other = match &c.other {
                Some(copy) => format!("the other version is kept in {}", one_line(copy)),
                None => "the other version was a deletion".to_string(),
            };
            out.push_str(&format!(
                "- {}: written by the dreamer and by a live agent during the dream; the note keeps the {} version, {other}\n",
                one_line(&c.path),
                match c.kept {
                    "live" => "live agent's",
                    "dreamer" => "dreamer's",
                    _ => "baseline",
                },
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_control_characters_stay_on_one_line() {
        let changes = [Change {
            kind: "added",
            path: "human/a\nb.md".into(),
        }];
        let violations = [Violation {
            kind: "refused",
            path: "human/x\0.md".into(),
            reason: "write jail: no".into(),
        }];
        let report = render(&Report {
            stamp: "s",
            failed: false,
            answer: "done",
            error: None,
            changes: Some(&changes),
            violations: &violations,
            conflicts: &[],
            purged: &[],
            now: std::time::SystemTime::UNIX_EPOCH,
        });
        assert!(report.contains("- added: human/a\\nb.md\n"), "{report}");
        assert!(
            report.contains("- refused: human/x\\u{0}.md (write jail: no)\n"),
            "{report}"
        );
    }
}
