//! Readable output of `sessions list|search|index`: a ranked list with dates, projects, names
//! and previews, each hit followed by the command that opens it.

use std::io::{self, Write};

use owo_colors::OwoColorize;
use pi_context::recall::{Harness, Hit, IndexResult, ListResult, SearchResult, SessionHits};

use super::{visible_line, HumanPrinter};
use crate::cli::printer::SessionsPrinter;

/// Code points of a hit preview shown on its line.
const PREVIEW_CHARS: usize = 240;
/// Code points of a session's name or first prompt in a heading.
const TITLE_CHARS: usize = 80;

impl HumanPrinter {
    fn stderr_notes(&self, stale: bool, unreadable: usize, more: usize, what: &str) {
        let mut err = io::stderr();
        if more > 0 {
            let _ = writeln!(
                err,
                "{more} more matching {what} not shown (raise --limit, or narrow the search)"
            );
        }
        if stale {
            let _ = writeln!(
                err,
                "note: another process is updating the session index; these results are from its last commit"
            );
        }
        if unreadable > 0 {
            let _ = writeln!(err, "note: {unreadable} session files could not be read");
        }
    }

    fn hit(&self, out: &mut dyn Write, session: &SessionHits, hit: &Hit) -> io::Result<()> {
        let branch = if hit.on_branch {
            ""
        } else {
            " · abandoned branch"
        };
        writeln!(
            out,
            "  {} {} · {}{}",
            self.paint(&format!("#{}", hit.seq), |t| t.bold().to_string()),
            hit.role.as_str(),
            local_time(hit.created_at.as_deref()),
            branch
        )?;
        writeln!(out, "    {}", self.preview(hit))?;
        let mut open = format!(
            "pi-context history read {} --session {}",
            hit.seq,
            visible_line(&shell_quoted(&session.session_arg))
        );
        if let Some(leaf) = &hit.leaf_id {
            open.push_str(&format!(" --leaf {}", visible_line(&shell_quoted(leaf))));
        }
        if hit.offset_chars > 0 {
            open.push_str(&format!(" --offset {}", hit.offset_chars));
        }
        writeln!(
            out,
            "    {}",
            self.paint(&format!("→ {open}"), |t| t.dimmed().to_string())
        )
    }

    /// The hit's preview on one line: whitespace runs collapsed, matches highlighted.
    fn preview(&self, hit: &Hit) -> String {
        let mut line = String::new();
        if hit.offset_chars > 0 {
            line.push('…');
        }
        let mut shown = 0;
        let mut in_space = false;
        let mut highlighted = false;
        for (i, c) in hit.content.chars().enumerate() {
            if shown >= PREVIEW_CHARS {
                break;
            }
            let inside = hit.highlights.iter().any(|&(a, b)| i >= a && i < b);
            if self.color && inside != highlighted {
                line.push_str(if inside { "\x1b[1;33m" } else { "\x1b[0m" });
                highlighted = inside;
            }
            if c.is_whitespace() {
                if !in_space {
                    line.push(' ');
                    shown += 1;
                }
                in_space = true;
            } else if !c.is_control() {
                line.push(c);
                shown += 1;
                in_space = false;
            }
        }
        if highlighted {
            line.push_str("\x1b[0m");
        }
        if shown >= PREVIEW_CHARS
            || hit.offset_chars + hit.content.chars().count() < hit.total_chars
        {
            line.push('…');
        }
        line
    }
}

/// `text` as one shell word: as is when it holds only characters no shell treats specially,
/// else in single quotes.
fn shell_quoted(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// An RFC 3339 time as `YYYY-MM-DD HH:MM` in the local time zone.
fn local_time(time: Option<&str>) -> String {
    time.and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map(|t| {
            t.to_zoned(jiff::tz::TimeZone::system())
                .strftime("%Y-%m-%d %H:%M")
                .to_string()
        })
        .unwrap_or_else(|| "-".to_string())
}

/// A one-line title: the text's whitespace collapsed, cut to `max` code points.
fn one_line(text: &str, max: usize) -> String {
    let collapsed: Vec<&str> = text.split_whitespace().collect();
    let collapsed = collapsed.join(" ");
    let mut out: String = collapsed.chars().take(max).collect();
    if collapsed.chars().count() > max {
        out.push('…');
    }
    out
}

fn title(name: Option<&str>, first_prompt: Option<&str>) -> String {
    match (name, first_prompt) {
        (Some(name), _) => visible_line(&one_line(name, TITLE_CHARS)).into_owned(),
        (None, Some(prompt)) => format!("\"{}\"", visible_line(&one_line(prompt, TITLE_CHARS))),
        (None, None) => "(no prompt)".to_string(),
    }
}

/// The harness that wrote a session (`pi`, `claude`, `codex`), and for a subagent the id of
/// the session that started it: `claude subagent of 7f3a9c21`.
fn origin(harness: Harness, parent: Option<&str>) -> String {
    match parent {
        Some(parent) => format!("{harness} subagent of {}", visible_line(parent)),
        None => harness.to_string(),
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / (1 << 10) as f64),
        b => format!("{b} B"),
    }
}

impl SessionsPrinter for HumanPrinter {
    fn list(&self, out: &mut dyn Write, result: &ListResult) -> io::Result<()> {
        if result.sessions.is_empty() {
            writeln!(out, "no sessions")?;
        }
        for s in &result.sessions {
            writeln!(
                out,
                "{}  {}  {}  {}  {}  {}",
                local_time(s.updated_at.as_deref()),
                self.paint(&visible_line(&s.short_id), |t| t.bold().to_string()),
                self.paint(&origin(s.harness, s.short_parent_id.as_deref()), |t| t
                    .magenta()
                    .to_string()),
                self.paint(
                    &visible_line(s.project_key.as_deref().unwrap_or("-")),
                    |t| t.cyan().to_string()
                ),
                title(s.name.as_deref(), s.first_user_preview.as_deref()),
                self.paint(
                    &format!(
                        "({} {}, {})",
                        s.entries,
                        if s.entries == 1 { "entry" } else { "entries" },
                        size(s.bytes)
                    ),
                    |t| t.dimmed().to_string()
                ),
            )?;
        }
        self.stderr_notes(result.stale, result.unreadable, result.more, "sessions");
        Ok(())
    }

    fn search(&self, out: &mut dyn Write, result: &SearchResult) -> io::Result<()> {
        if result.secret_queries > 0 {
            let _ = writeln!(
                io::stderr(),
                "note: secrets are masked in the session index and cannot be searched; {} of the queries held one and matched nothing",
                result.secret_queries
            );
        }
        if result.sessions.is_empty() {
            writeln!(
                out,
                "no matches in {} indexed sessions",
                result.indexed_sessions
            )?;
        }
        for (rank, session) in result.sessions.iter().enumerate() {
            if rank > 0 {
                writeln!(out)?;
            }
            writeln!(
                out,
                "{} {}  {}  {}  {}  {}",
                self.paint(&format!("{}.", rank + 1), |t| t.bold().to_string()),
                local_time(session.updated_at.as_deref()),
                self.paint(
                    &origin(session.harness, session.short_parent_id.as_deref()),
                    |t| t.magenta().to_string()
                ),
                self.paint(
                    &visible_line(session.project_key.as_deref().unwrap_or("-")),
                    |t| t.cyan().to_string()
                ),
                self.paint(
                    &title(
                        session.name.as_deref(),
                        session.first_user_preview.as_deref()
                    ),
                    |t| t.bold().to_string()
                ),
                self.paint(&format!("({})", visible_line(&session.short_id)), |t| t
                    .dimmed()
                    .to_string()),
            )?;
            for hit in &session.hits {
                self.hit(out, session, hit)?;
            }
        }
        self.stderr_notes(result.stale, result.unreadable, result.more, "sessions");
        Ok(())
    }

    fn indexed(&self, out: &mut dyn Write, result: &IndexResult) -> io::Result<()> {
        writeln!(
            out,
            "{} sessions, {} events, {} indexed in {:.2} s ({} updated now)",
            result.sessions,
            result.events,
            size(result.bytes),
            result.seconds,
            result.refreshed,
        )?;
        self.stderr_notes(false, result.unreadable, 0, "sessions");
        for agent in &result.agents {
            let mut err = io::stderr();
            for (reason, n) in &agent.unreadable {
                let _ = writeln!(err, "note: {}: {n} files not read: {reason}", agent.agent);
            }
            if !agent.unknown_types.is_empty() {
                let types: Vec<String> = agent
                    .unknown_types
                    .iter()
                    .map(|(t, n)| format!("{} ×{n}", visible_line(t)))
                    .collect();
                let _ = writeln!(
                    err,
                    "note: {}: records of types its reader does not know, kept but not read (a format change?), in {} files: {}",
                    agent.agent,
                    agent.files_with_unknown_types,
                    types.join(", ")
                );
            }
        }
        Ok(())
    }
}
