//! The checkpoint block the boot puts at the top of a window: whole (never cut), the authored
//! fields under their labels in [`FIELDS`](super::fields::FIELDS) order (empty lists left out),
//! then what pi-context recorded. An inherited checkpoint (another session's) says so first.

use jiff::Timestamp;

use super::activity::Activity;
use super::fields::{FieldValue, FIELDS};
use super::Found;
use crate::clock::relative_time;

/// Whose checkpoint is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    /// The branch's own; `skipped` newer checkpoint entries could not be read.
    Branch { skipped: usize },
    /// The latest of another session of the project (its shortest unique id prefix), shown
    /// because this branch has none.
    Inherited { session: &'a str },
}

pub const OPEN: &str = "<checkpoint>";
pub const CLOSE: &str = "</checkpoint>";
pub const INHERITED_OPEN: &str = "<inherited_checkpoint>";
pub const INHERITED_CLOSE: &str = "</inherited_checkpoint>";

/// The block, without a trailing newline.
pub fn render(found: &Found, origin: Origin, now: Timestamp) -> String {
    let saved = saved_phrase(found, now);
    let generation = found.checkpoint.generation;
    let (open, close, intro) = match origin {
        Origin::Branch { skipped } => {
            let mut intro = format!(
                "Your checkpoint: generation {generation} of this branch, saved {saved}. It is the task state you handed over; carry on from it."
            );
            if skipped > 0 {
                intro.push_str(&format!(
                    " ({skipped} newer checkpoint {} on this branch could not be read and {} skipped.)",
                    plural(skipped, "entry", "entries"),
                    if skipped == 1 { "was" } else { "were" }
                ));
            }
            (OPEN, CLOSE, intro)
        }
        Origin::Inherited { session } => (
            INHERITED_OPEN,
            INHERITED_CLOSE,
            format!(
                "This session has no checkpoint yet. This is the latest checkpoint of session {session}, an earlier session of this project (generation {generation}, saved {saved}). It is a starting point to confirm, not the truth: check what it claims before you rely on it, then write this session's own with the checkpoint tool."
            ),
        ),
    };
    let body = body(found);
    // Another session's checkpoint is quoted: it cannot close this block or open another.
    let body = match origin {
        Origin::Inherited { .. } => crate::text::inert_markup(&body).into_owned(),
        Origin::Branch { .. } => body,
    };
    format!("{open}\n{intro}\n{body}\n{close}")
}

/// The fields under their labels, then the recorded activity (no leading or trailing newline):
/// what the boot block and `checkpoint show` both print.
pub fn body(found: &Found) -> String {
    let mut out = String::new();
    for field in &FIELDS {
        match found.checkpoint.authored.get(field.name) {
            Some(FieldValue::Text(text)) => push_text(&mut out, field.label, text),
            Some(FieldValue::List(items)) if !items.is_empty() => {
                out.push_str(&format!("\n{}:", field.label));
                for item in items {
                    push_item(&mut out, item);
                }
            }
            _ => {}
        }
    }
    push_activity(&mut out, &found.checkpoint.activity);
    match out.strip_prefix('\n') {
        Some(rest) => rest.to_string(),
        None => out,
    }
}

/// `2026-03-01T08:55:00Z (5m ago)`, or `at an unknown time`.
fn saved_phrase(found: &Found, now: Timestamp) -> String {
    match found.saved_time() {
        Some(at) => format!("{at} ({})", relative_time(now, at)),
        None => "at an unknown time".to_string(),
    }
}

/// `Label: text` for one line, else the label on its own line and the text below it.
fn push_text(out: &mut String, label: &str, text: &str) {
    if text.contains('\n') {
        out.push_str(&format!("\n{label}:\n{text}"));
    } else {
        out.push_str(&format!("\n{label}: {text}"));
    }
}

/// `- item`, its further lines indented by two spaces.
fn push_item(out: &mut String, item: &str) {
    let mut lines = item.lines();
    out.push_str(&format!("\n- {}", lines.next().unwrap_or_default()));
    for line in lines {
        out.push_str(&format!("\n  {line}"));
    }
}

fn push_activity(out: &mut String, activity: &Activity) {
    if activity.is_empty() {
        return;
    }
    out.push_str("\nRecorded by pi-context since the previous checkpoint:");
    if !activity.files.is_empty() || activity.files_omitted > 0 {
        let files: Vec<String> = activity
            .files
            .iter()
            .map(|f| match f.tools.is_empty() {
                true => f.path.clone(),
                false => format!("{} ({})", f.path, f.tools.join(", ")),
            })
            .collect();
        let mut line = format!("\n- files written or edited: {}", files.join(", "));
        if activity.files_omitted > 0 {
            line.push_str(&format!(
                "{}and {} earlier {}",
                if files.is_empty() { "" } else { ", " },
                activity.files_omitted,
                plural(activity.files_omitted, "file", "files")
            ));
        }
        out.push_str(&line);
    }
    if activity.commands_omitted > 0 {
        out.push_str(&format!(
            "\n- {} earlier test, build or failing {} not listed",
            activity.commands_omitted,
            plural(activity.commands_omitted, "command", "commands")
        ));
    }
    for run in &activity.commands {
        let status = match run.exit_code {
            Some(code) => format!("exit {code}"),
            None => "did not finish".to_string(),
        };
        out.push_str(&format!("\n- `{}` → {status}", run.command));
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::Checkpoint;
    use serde_json::json;

    fn found(data: serde_json::Value) -> Found {
        Found {
            entry_id: "e1".into(),
            saved_at: Some("2026-03-01T08:55:00.000Z".into()),
            checkpoint: Checkpoint::from_json(&data).unwrap(),
        }
    }

    #[test]
    fn the_whole_block_in_field_order() {
        let f = found(json!({
            "generation": 3,
            "current": "Porting the parser.",
            "completed": ["lexer", "two\nlines"],
            "verification": ["cargo test: 12 passed"],
            "next_action": "Port the expression rules.\nThen run the tests.",
            "activity": {
                "files": [{"path": "src/a.rs", "tools": ["edit"]}, {"path": "b", "tools": []}],
                "files_omitted": 2,
                "commands": [{"command": "cargo test", "exit_code": 101}, {"command": "make", "exit_code": null}]
            }
        }));
        let now: Timestamp = "2026-03-01T09:00:00Z".parse().unwrap();
        assert_eq!(
            render(&f, Origin::Branch { skipped: 1 }, now),
            "<checkpoint>
Your checkpoint: generation 3 of this branch, saved 2026-03-01T08:55:00Z (5m ago). It is the task state you handed over; carry on from it. (1 newer checkpoint entry on this branch could not be read and was skipped.)
Current: Porting the parser.
Completed:
- lexer
- two
  lines
Verification:
- cargo test: 12 passed
Next action:
Port the expression rules.
Then run the tests.
Recorded by pi-context since the previous checkpoint:
- files written or edited: src/a.rs (edit), b, and 2 earlier files
- `cargo test` → exit 101
- `make` → did not finish
</checkpoint>"
        );
    }

    #[test]
    fn an_inherited_checkpoint_says_whose_it_is_and_to_confirm_it() {
        let f = found(json!({"generation": 1, "current": "c", "next_action": "n"}));
        let now: Timestamp = "2026-03-02T09:00:00Z".parse().unwrap();
        let text = render(
            &f,
            Origin::Inherited {
                session: "0192aaaa",
            },
            now,
        );
        assert!(text.starts_with("<inherited_checkpoint>\nThis session has no checkpoint yet. This is the latest checkpoint of session 0192aaaa, an earlier session of this project (generation 1, saved 2026-03-01T08:55:00Z (1d ago)). It is a starting point to confirm, not the truth"), "{text}");
        assert!(text.ends_with("Current: c\nNext action: n\n</inherited_checkpoint>"));
    }
}
