//! Every environment variable pi-context reads, declared once: its name, what it means and its
//! default. The resolver ([`super::Environment`]) reads variables only through these
//! declarations ([`super::Vars::text`] takes an [`EnvVar`]), `--help` and the man page list the
//! documented ones ([`help`]), and `docs/environment.md` is checked against [`ALL`] by a test.
//! Hidden variables are test hooks and the dreamer's own: declared here, never documented for
//! users.

/// One variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvVar {
    pub name: &'static str,
    /// What it sets, in one sentence.
    pub meaning: &'static str,
    /// What applies when it is unset or empty.
    pub default: &'static str,
    /// A test hook or an internal variable: not in `--help` or the docs.
    pub hidden: bool,
}

const fn var(name: &'static str, meaning: &'static str, default: &'static str) -> EnvVar {
    EnvVar {
        name,
        meaning,
        default,
        hidden: false,
    }
}

const fn hidden(name: &'static str, meaning: &'static str) -> EnvVar {
    EnvVar {
        name,
        meaning,
        default: "unset",
        hidden: true,
    }
}

pub const HOME: EnvVar = var(
    "HOME",
    "The user's home; the default notes home, cache, Pi agent directory and Claude Code's and Codex's directories are below it.",
    "none: without it there is no default notes home, cache or Pi agent directory (an error names what to set)",
);
pub const PI_NOTES_HOME: EnvVar = var(
    "PI_NOTES_HOME",
    "The notes home (`--notes-home` wins).",
    "$HOME/.agents/notes",
);
pub const PI_CONTEXT_SESSION_ID: EnvVar = var(
    "PI_CONTEXT_SESSION_ID",
    "The session whose notes bare addresses name (`--session-id` wins).",
    "none: bare addresses are refused",
);
pub const PI_NOTES_AGENT: EnvVar = var(
    "PI_NOTES_AGENT",
    "The agent's name, slugified: its home is @self (`--agent` wins).",
    "anonymous",
);
pub const PI_CONTEXT_MODEL: EnvVar = var(
    "PI_CONTEXT_MODEL",
    "The model, `provider/id` or `id`; its last segment, slugified, is @model (`--model` wins).",
    "default",
);
pub const PI_CONTEXT_NOW: EnvVar = var(
    "PI_CONTEXT_NOW",
    "A fixed clock (RFC 3339) for every timestamp pi-context writes; for tests and reproducible runs.",
    "the system clock",
);
pub const PI_CONTEXT_CACHE_DIR: EnvVar = var(
    "PI_CONTEXT_CACHE_DIR",
    "The cache directory: session indexes, the recall index, the notes list record.",
    "$XDG_CACHE_HOME/pi-context, else $HOME/.cache/pi-context",
);
pub const XDG_CACHE_HOME: EnvVar = var(
    "XDG_CACHE_HOME",
    "The user's cache directory; pi-context caches in its pi-context/.",
    "$HOME/.cache",
);
pub const PI_CONTEXT_SESSION_INDEX: EnvVar = var(
    "PI_CONTEXT_SESSION_INDEX",
    "`off` (or `0`) reads every session file whole instead of through its index in the cache.",
    "on",
);
pub const PI_CONTEXT_CACHE_MIN_BYTES: EnvVar = var(
    "PI_CONTEXT_CACHE_MIN_BYTES",
    "The smallest session file (bytes) that keeps an index in the cache.",
    "1048576",
);
pub const PI_CODING_AGENT_DIR: EnvVar = var(
    "PI_CODING_AGENT_DIR",
    "Pi's agent directory: its settings.json and sessions/.",
    "$HOME/.pi/agent",
);
pub const PI_CODING_AGENT_SESSION_DIR: EnvVar = var(
    "PI_CODING_AGENT_SESSION_DIR",
    "Where Pi keeps sessions, when not in its settings' sessionDir (`--sessions-dir` wins).",
    "the sessionDir setting, and always <agent dir>/sessions",
);
pub const CLAUDE_CONFIG_DIR: EnvVar = var(
    "CLAUDE_CONFIG_DIR",
    "Claude Code's configuration directory: its sessions are in projects/ below it (`--claude-dir` wins).",
    "$HOME/.claude",
);
pub const CODEX_HOME: EnvVar = var(
    "CODEX_HOME",
    "Codex's home: its sessions are in sessions/ and archived_sessions/ below it (`--codex-dir` wins).",
    "$HOME/.codex",
);
pub const GEMINI_CLI_HOME: EnvVar = var(
    "GEMINI_CLI_HOME",
    "The home Gemini CLI keeps its `.gemini` directory in: its chats are in .gemini/tmp/<project>/chats/ (`--gemini-dir` wins).",
    "$HOME",
);
pub const COPILOT_HOME: EnvVar = var(
    "COPILOT_HOME",
    "GitHub Copilot CLI's home: its sessions are in session-state/ below it (`--copilot-dir` wins).",
    "$HOME/.copilot",
);
pub const CURSOR_CONFIG_DIR: EnvVar = var(
    "CURSOR_CONFIG_DIR",
    "Cursor's configuration directory: its agent transcripts are in projects/*/agent-transcripts/ below it (`--cursor-dir` wins).",
    "$HOME/.cursor",
);
pub const OPENCODE_DB: EnvVar = var(
    "OPENCODE_DB",
    "OpenCode's database file (`--opencode-dir` wins); read-only, mirrored into the cache as one JSONL file per session.",
    "$XDG_DATA_HOME/opencode/opencode*.db",
);
pub const XDG_DATA_HOME: EnvVar = var(
    "XDG_DATA_HOME",
    "The user's data directory; OpenCode keeps its database in its opencode/.",
    "$HOME/.local/share",
);
pub const XDG_CONFIG_HOME: EnvVar = var(
    "XDG_CONFIG_HOME",
    "The user's configuration directory: `setup opencode` writes OpenCode's configuration in its opencode/.",
    "$HOME/.config",
);
pub const PI_CONTEXT_NOTES_HISTORY: EnvVar = var(
    "PI_CONTEXT_NOTES_HISTORY",
    "`off` (`0`, `false`, `no`) stops committing every notes change; `on` commits even when the notesHistory setting is false.",
    "on, unless the notesHistory setting is false",
);
pub const PI_CONTEXT_NOTES_LIST_CACHE: EnvVar = var(
    "PI_CONTEXT_NOTES_LIST_CACHE",
    "`off` makes `notes list` read every note instead of trusting its record of unchanged ones.",
    "on",
);
pub const PI_CONTEXT_REDACT: EnvVar = var(
    "PI_CONTEXT_REDACT",
    "`off` (`0`, `false`, `no`) stops masking secrets in the recall index, its previews and other sessions' history reads. Unsafe: API keys and passwords from transcripts then sit in the index and are shown. The index is rebuilt when it changes.",
    "on",
);
pub const PI_CONTEXT_PI: EnvVar = var(
    "PI_CONTEXT_PI",
    "The `pi` executable a dream runs (`--pi` wins).",
    "pi on PATH",
);
pub const PI_CONTEXT_BIN: EnvVar = var(
    "PI_CONTEXT_BIN",
    "Read by the Pi extension (not the binary): the pi-context binary it runs.",
    "pi-context on PATH",
);
pub const PATH: EnvVar = var(
    "PATH",
    "Where programs are found: `setup claude` registers the MCP server through `claude` when it is here.",
    "the system's",
);
pub const NO_COLOR: EnvVar = var(
    "NO_COLOR",
    "Any value turns colors off (as `--color never`).",
    "colors on a terminal",
);
pub const PI_CONTEXT_DREAM_TOKEN: EnvVar = hidden(
    "PI_CONTEXT_DREAM_TOKEN",
    "Set by a dream for its dreamer: the dream's lock token, so the dreamer's own notes changes are not journaled as a live agent's and are not committed one by one.",
);
pub const PI_CONTEXT_SETTLE_MS: EnvVar = hidden(
    "PI_CONTEXT_SETTLE_MS",
    "Test hook: the settling time in milliseconds of the records that trust stamps (recall's catalog, the notes list record), so tests need not sleep; 2000 when unset.",
);
pub const PI_CONTEXT_RECALL_CHECKS: EnvVar = hidden(
    "PI_CONTEXT_RECALL_CHECKS",
    "Test hook: `HOT,SWEEP`, how many recently changed session files a search looks at and how many of the others in turn (docs/recall.md, \"Incremental refresh\"); 64,256 when unset.",
);
pub const PI_CONTEXT_SYNC_TEST_PAUSE: EnvVar = hidden(
    "PI_CONTEXT_SYNC_TEST_PAUSE",
    "Test hook: `<point>[:<ms>]` pauses `notes sync` the first time it reaches <point>, so a test can kill it there.",
);

/// Every variable, documented ones first, in the order the docs list them.
pub const ALL: &[EnvVar] = &[
    HOME,
    PI_NOTES_HOME,
    PI_CONTEXT_SESSION_ID,
    PI_NOTES_AGENT,
    PI_CONTEXT_MODEL,
    PI_CONTEXT_NOW,
    PI_CONTEXT_CACHE_DIR,
    XDG_CACHE_HOME,
    PI_CONTEXT_SESSION_INDEX,
    PI_CONTEXT_CACHE_MIN_BYTES,
    PI_CODING_AGENT_DIR,
    PI_CODING_AGENT_SESSION_DIR,
    CLAUDE_CONFIG_DIR,
    CODEX_HOME,
    GEMINI_CLI_HOME,
    COPILOT_HOME,
    CURSOR_CONFIG_DIR,
    OPENCODE_DB,
    XDG_DATA_HOME,
    XDG_CONFIG_HOME,
    PI_CONTEXT_NOTES_HISTORY,
    PI_CONTEXT_NOTES_LIST_CACHE,
    PI_CONTEXT_REDACT,
    PI_CONTEXT_PI,
    PI_CONTEXT_BIN,
    PATH,
    NO_COLOR,
    PI_CONTEXT_DREAM_TOKEN,
    PI_CONTEXT_SETTLE_MS,
    PI_CONTEXT_RECALL_CHECKS,
    PI_CONTEXT_SYNC_TEST_PAUSE,
];

/// The documented variables, for `--help` and the man page.
pub fn help() -> String {
    let mut text = String::from("Environment:\n");
    for var in ALL.iter().filter(|v| !v.hidden) {
        text.push_str(&format!(
            "  {}\n          {} [default: {}]\n",
            var.name, var.meaning, var.default
        ));
    }
    text
}

/// The documented variables as the Markdown table of `docs/environment.md`.
pub fn markdown_table() -> String {
    let mut text = String::from("| variable | what it sets | default |\n| --- | --- | --- |\n");
    for var in ALL.iter().filter(|v| !v.hidden) {
        text.push_str(&format!(
            "| `{}` | {} | {} |\n",
            var.name, var.meaning, var.default
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_upper_case() {
        let mut names: Vec<&str> = ALL.iter().map(|v| v.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        assert!(names
            .iter()
            .all(|n| n.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')));
    }

    #[test]
    fn help_lists_every_documented_variable_and_no_hidden_one() {
        let help = help();
        for var in ALL {
            assert_eq!(help.contains(var.name), !var.hidden, "{}", var.name);
        }
    }
}
