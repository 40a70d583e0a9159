//! The dream report, `dreams/<stamp>.md`.

use super::audit::Change;
use super::Violation;

pub fn render(
    stamp: &str,
    failed: bool,
    answer: &str,
    error: Option<&str>,
    changes: &[Change],
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
    if changes.is_empty() {
        out.push_str("- no changes\n");
    }
    for change in changes {
        out.push_str(&format!("- {}: {}\n", change.kind, change.path));
    }
    if !violations.is_empty() {
        out.push_str("\n## Violations\n\n");
        for v in violations {
            out.push_str(&format!("- {}: {} ({})\n", v.kind, v.path, v.reason));
        }
    }
    out
}
