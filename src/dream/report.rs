//! The dream report, `dreams/<stamp>.md`.

use super::audit::Change;
use super::Violation;

pub fn render(
    stamp: &str,
    failed: bool,
    answer: &str,
    error: Option<&str>,
    changes: Option<&[Change]>,
    violations: &[Violation],
) -> String {
    let mut out = format!(
        "# Dream {stamp}{}\n\n",
        if failed { " (failed)" } else { "" }
    );
    if let Some(error) = error {
        out.push_str(&format!("Error: {error}\n\n"));
    }
    let answer = answer.trim();
    if !answer.is_empty() {
        out.push_str(answer);
        out.push_str("\n\n");
    } else if error.is_none() {
        out.push_str("(the dreamer gave no final text)\n\n");
    }
    out.push_str("## Changes\n\n");
    let Some(changes) = changes else {
        out.push_str("- unknown: the post-run audit failed; see `git status` in the notes home\n");
        return out;
    };
    if changes.is_empty() {
        out.push_str("- no changes\n");
    }
    for change in changes {
        out.push_str(&format!("- {}: {}\n", change.kind, one_line(&change.path)));
    }
    if !violations.is_empty() {
        out.push_str("\n## Violations\n\n");
        for v in violations {
            out.push_str(&format!(
                "- {}: {} ({})\n",
                v.kind,
                one_line(&v.path),
                one_line(&v.reason)
            ));
        }
    }
    out
}

/// `text` with control characters escaped (`\n`, `\u{0}`), so one item stays one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
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
        let report = render("s", false, "done", None, Some(&changes), &violations);
        assert!(report.contains("- added: human/a\\nb.md\n"), "{report}");
        assert!(
            report.contains("- refused: human/x\\u{0}.md (write jail: no)\n"),
            "{report}"
        );
    }
}
