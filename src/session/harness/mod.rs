//! The harness contract: each agent whose transcripts are read ("harness") is one module here
//! that answers every question about its files: how a line is read ([`Reader`], one dispatch),
//! how files lie under its root ([`Layout`]), the id a file name carries, its name and label.
//! Everything above `session` asks [`Harness`] and never matches on a variant of its own
//! (`tests/architecture.rs`).
//!
//! Every format turns its lines into the same [`Entry`](super::Entry) values (kinds, byte
//! spans, ids and parents), so that `history`, the stored projection, the search prefilter and
//! the recall index read any agent's transcript exactly as they read a Pi session. The format
//! is recognized from the file's first records, never from its path: the first line that is a
//! JSON object with a decisive mark ([`detect_line`]) decides, and lines before it (none in a
//! real file) are read as Pi reads them.
//!
//! Adding a harness (docs/architecture.md, "Adding a harness"): its module here (reader,
//! `LAYOUT`, `id_from_path`), a variant of [`Harness`] and [`Reader`] and its row in the
//! `match`es of this file; its variable and default root in `environment`; its fixtures.

/// The text of a small file an agent keeps beside its transcripts (a project map, a marker);
/// `None` unless it is a small regular file ([`crate::sidefile`]).
pub(super) fn side_file(path: &Path) -> Option<String> {
    crate::sidefile::read(path).ok()
}

pub(super) mod claude;
pub(super) mod codex;
pub(super) mod copilot;
pub(super) mod cursor;
pub(super) mod gemini;
pub(super) mod opencode;
pub(crate) mod pi;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::record::Read;
use super::Header;

/// The agent that wrote a session file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Harness {
    /// Pi (the default: a file nothing marks as another format reads as Pi's).
    #[default]
    Pi,
    /// Claude Code (`~/.claude/projects/<enc-cwd>/<uuid>.jsonl`).
    Claude,
    /// OpenAI Codex CLI (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`).
    Codex,
    /// GitHub Copilot CLI (`~/.copilot/session-state/<id>/events.jsonl`).
    Copilot,
    /// Cursor's agent CLI (`~/.cursor/projects/<enc-cwd>/agent-transcripts/…/<id>.jsonl`).
    Cursor,
    /// Gemini CLI (`~/.gemini/tmp/<project>/chats/session-….jsonl`).
    Gemini,
    /// OpenCode (its SQLite database, `~/.local/share/opencode/opencode.db`, mirrored as one
    /// JSONL file per session: [`Root::prepare`]).
    OpenCode,
}

impl Harness {
    /// Every harness, in the order the wire lists them.
    pub const ALL: [Harness; 7] = [
        Harness::Pi,
        Harness::Claude,
        Harness::Codex,
        Harness::Gemini,
        Harness::Copilot,
        Harness::Cursor,
        Harness::OpenCode,
    ];
    /// The wire names (`harness` in results and tool parameters).
    pub const NAMES: [&'static str; 7] = [
        "pi", "claude", "codex", "gemini", "copilot", "cursor", "opencode",
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Harness::Pi => "pi",
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Copilot => "copilot",
            Harness::Cursor => "cursor",
            Harness::Gemini => "gemini",
            Harness::OpenCode => "opencode",
        }
    }

    /// The agent's name as people say it (the boot names other agents' sessions by it).
    pub fn label(self) -> &'static str {
        match self {
            Harness::Pi => "Pi",
            Harness::Claude => "Claude Code",
            Harness::Codex => "Codex",
            Harness::Copilot => "GitHub Copilot CLI",
            Harness::Cursor => "Cursor",
            Harness::Gemini => "Gemini CLI",
            Harness::OpenCode => "OpenCode",
        }
    }

    /// Where its session files are under one of its roots.
    pub fn layout(self) -> Layout {
        match self {
            Harness::Pi => pi::LAYOUT,
            Harness::Claude => claude::LAYOUT,
            Harness::Codex => codex::LAYOUT,
            Harness::Copilot => copilot::LAYOUT,
            Harness::Cursor => cursor::LAYOUT,
            Harness::Gemini => gemini::LAYOUT,
            Harness::OpenCode => opencode::LAYOUT,
        }
    }

    /// The command-line flag naming its roots (`--<flag> DIR`, repeatable).
    pub fn dir_flag(self) -> &'static str {
        match self {
            Harness::Pi => "sessions-dir",
            Harness::Claude => "claude-dir",
            Harness::Codex => "codex-dir",
            Harness::Copilot => "copilot-dir",
            Harness::Cursor => "cursor-dir",
            Harness::Gemini => "gemini-dir",
            Harness::OpenCode => "opencode-dir",
        }
    }

    /// What its flag's directory is, for `--help`.
    pub fn dir_help(self) -> &'static str {
        match self {
            Harness::Pi => "Pi session directory",
            Harness::Claude => "Claude Code `projects` directory",
            Harness::Codex => "Codex home",
            Harness::Copilot => "GitHub Copilot CLI home",
            Harness::Cursor => "Cursor home",
            Harness::Gemini => "Gemini CLI directory (`~/.gemini`)",
            Harness::OpenCode => {
                "OpenCode data directory (`~/.local/share/opencode`) or database file"
            }
        }
    }

    /// The session id a file's name carries, when the file itself names none: Pi's
    /// `<timestamp>_<id>.jsonl`, Codex's `rollout-<time>-<uuid>.jsonl`, Copilot's directory
    /// (`<id>/events.jsonl`), else the name without its extension.
    pub fn id_from_path(self, path: &Path) -> Option<String> {
        let id = match self {
            Harness::Pi => pi::id_from_path(path),
            Harness::Claude | Harness::Cursor | Harness::Gemini | Harness::OpenCode => None,
            Harness::Codex => codex::id_from_file_name(path),
            Harness::Copilot => path
                .parent()
                .and_then(Path::file_name)
                .map(|name| name.to_string_lossy().into_owned()),
        };
        id.or_else(|| Some(path.file_stem()?.to_string_lossy().into_owned()))
            .filter(|id| !id.is_empty())
    }

    /// The line an event's own lines must follow to be read again alone (a hit's preview):
    /// Pi's header of the session's version, which decides ids and `hookMessage`; none for the
    /// others.
    pub fn header_for_lines(self, version: Option<u64>) -> Option<String> {
        match self {
            Harness::Pi => Some(match version {
                Some(v) => format!("{{\"type\":\"session\",\"version\":{v}}}\n"),
                None => "{\"type\":\"session\"}\n".to_string(),
            }),
            Harness::Claude
            | Harness::Codex
            | Harness::Copilot
            | Harness::Cursor
            | Harness::Gemini
            | Harness::OpenCode => None,
        }
    }

    /// Whether its files give each event's time. Cursor's give none: the file's modification
    /// time stands in for the session's last update, and nothing for its start
    /// (docs/harnesses.md).
    pub fn writes_times(self) -> bool {
        self != Harness::Cursor
    }

    /// Whether one record can span several lines: a message of Gemini CLI's older whole-file
    /// JSON chats (a search preview then reads the record's bytes whole).
    pub fn records_span_lines(self) -> bool {
        self == Harness::Gemini
    }

    /// Whether pi-context's own records (checkpoints, window markers) can be in its sessions:
    /// only Pi runs the extension that writes them.
    pub fn holds_checkpoints(self) -> bool {
        self == Harness::Pi
    }

    /// How the agent takes what pi-context pushes into it through its hooks (docs/agents.md);
    /// `None` for Pi, whose extension pushes from inside.
    pub fn agent_facts(self) -> Option<AgentFacts> {
        match self {
            Harness::Pi => None,
            Harness::OpenCode => Some(opencode::AGENT),
            Harness::Claude => Some(claude::AGENT),
            Harness::Codex => Some(codex::AGENT),
            Harness::Copilot => Some(copilot::AGENT),
            Harness::Cursor => Some(cursor::AGENT),
            Harness::Gemini => Some(gemini::AGENT),
        }
    }

    /// Whether its sessions are not files of its own but rows of a database, mirrored as
    /// files in the cache before they are listed ([`Root::prepare`]): OpenCode's.
    pub fn mirrored(self) -> bool {
        self == Harness::OpenCode
    }

    /// The harnesses whose sessions can hold pi-context's checkpoints.
    pub fn holding_checkpoints() -> Vec<Harness> {
        Harness::ALL
            .into_iter()
            .filter(|h| h.holds_checkpoints())
            .collect()
    }

    /// Whether a session's boot line names its agent (every agent but the one the boot is
    /// written into by default, Pi).
    pub fn named_in_boot(self) -> bool {
        self != Harness::Pi
    }
}

/// How an agent takes pushed text and names the MCP tools (facts found by running it:
/// docs/agents.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentFacts {
    /// Its name as a notes identity: the MCP server's `--agent`, as its client names itself.
    pub agent_name: &'static str,
    /// How its model sees a tool of an MCP server: `{server}` is the server's name (as
    /// [`AgentFacts::tool_of`] spells it), `{}` the tool's.
    pub mcp_tool: &'static str,
    /// Whether its tool names spell a `-` of the server's name as `_` (Codex).
    pub mcp_server_dash_as_underscore: bool,
    /// Whether the plain output of its `PreCompact` hook reaches the compaction's summary.
    pub precompact_reaches_summary: bool,
    /// Whether what its session-start hook gave stays in the conversation when the session is
    /// resumed (Claude Code, Codex keep every earlier hook output); when not (Copilot CLI gives
    /// it to the model afresh at each start), a resumed session gets its boot again.
    pub boot_survives_restart: bool,
    /// How its hooks answer with text for the context.
    pub context_output: ContextOutput,
    /// Its name of the hook event that runs with each prompt (`UserPromptSubmit`; Gemini CLI's
    /// `BeforeAgent`).
    pub prompt_event: &'static str,
    /// How its configuration takes pi-context's MCP server and hooks (`pi-context setup`).
    pub config: AgentConfig,
}

/// The shape of a hook's answer that adds to the model's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextOutput {
    /// `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}` (Claude Code, Codex).
    HookSpecific,
    /// `{"additionalContext"}` (Copilot CLI, which ignores the nested form).
    AdditionalContext,
    /// `{"additionalContext"}` for every event, the compaction's request too: read by
    /// pi-context's own plugin inside the agent (OpenCode), which puts the text where it goes.
    Plugin,
}

/// The kinds of agent configuration `pi-context setup` edits, one file each in `src/setup/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentConfig {
    /// Claude Code: `settings.json` hooks, user-scope MCP servers in `.claude.json`.
    Claude,
    /// Codex: `hooks.json`, and `config.toml` for MCP servers and the hooks' trust.
    Codex,
    /// Copilot CLI: its own hooks file in `hooks/`, MCP servers in `mcp-config.json`.
    Copilot,
    /// Cursor: MCP servers in `mcp.json` only.
    Cursor,
    /// Gemini CLI: `settings.json` holds both the hooks and the MCP servers.
    Gemini,
    /// OpenCode: a plugin file of pi-context's in `plugin/`, MCP servers in `opencode.json`.
    OpenCode,
}

/// The name pi-context's MCP server is registered under (`pi-context setup`).
pub const MCP_SERVER: &str = "pi-context";

impl AgentFacts {
    /// The name the agent's model calls `tool` of pi-context's MCP server by, registered as
    /// [`MCP_SERVER`].
    pub fn tool(&self, tool: &str) -> String {
        self.tool_of(MCP_SERVER, tool)
    }

    /// The name the agent's model calls `tool` by when the server is registered as `server`
    /// (Claude Code names a plugin's server `plugin_<plugin>_<server>`).
    pub fn tool_of(&self, server: &str, tool: &str) -> String {
        let server = if self.mcp_server_dash_as_underscore {
            server.replace('-', "_")
        } else {
            server.to_string()
        };
        self.mcp_tool
            .replace("{server}", &server)
            .replace("{}", tool)
    }

    /// What its names of MCP tools are made of around the server's name: the text before it
    /// and the separator between it and the tool's name (`("mcp__", "__")` for Claude Code,
    /// `("", "-")` for Copilot CLI).
    pub fn mcp_tool_parts(&self) -> (&'static str, &'static str) {
        let (prefix, rest) = self.mcp_tool.split_once("{server}").unwrap_or(("", ""));
        (prefix, rest.strip_suffix("{}").unwrap_or(rest))
    }
}

/// Where a harness keeps its session files under a root: path patterns of fixed depth, each
/// component a literal, `*` (any one directory) or, last, a file name glob with one `*`
/// (`*.jsonl`, `rollout-*.jsonl`). Fixed depths mean a directory link that loops back is read
/// at most once per pattern and never walked into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout(pub &'static [&'static str]);

/// A directory holding sessions in one harness's layout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Root {
    pub harness: Harness,
    pub path: PathBuf,
    /// Where the root's sessions are listed when they are not files under it: the mirror in
    /// the cache of a database ([`Harness::mirrored`]); set by [`Root::mirrored_in`].
    pub mirror: Option<PathBuf>,
}

impl Root {
    /// The path is kept in normal form (no `.`, no repeated or trailing `/`), so the paths
    /// found under it begin with its bytes ([`Root::holds`]).
    pub fn new(harness: Harness, path: impl Into<PathBuf>) -> Root {
        Root {
            harness,
            path: path.into().components().collect(),
            mirror: None,
        }
    }

    /// The root with its mirror under `cache`, for a harness whose sessions are not files
    /// ([`Harness::mirrored`]); other roots are unchanged.
    pub fn mirrored_in(mut self, cache: Option<&Path>) -> Root {
        if self.harness.mirrored() {
            self.mirror = cache.map(|cache| opencode::mirror::mirror_dir(&self.path, cache));
        }
        self
    }

    /// The directory whose files, in the harness's layout, are the root's sessions: the
    /// mirror when it has one. A mirrored root without a cache to mirror into has none.
    pub fn listed(&self) -> Option<&Path> {
        match (&self.mirror, self.harness.mirrored()) {
            (Some(mirror), _) => Some(mirror),
            (None, true) => None,
            (None, false) => Some(&self.path),
        }
    }

    /// Brings the root's mirror up to date before its files are listed (nothing for a root
    /// of files); answers why a database could not be read, one reason each.
    pub fn prepare(&self) -> Vec<String> {
        match (&self.mirror, self.harness) {
            (Some(mirror), Harness::OpenCode) => opencode::mirror::sync(&self.path, mirror),
            _ => Vec::new(),
        }
    }

    /// Whether `path`, as discovery spells the files under this root, is under it: a byte
    /// comparison, where [`Path::starts_with`] parses both into components (every search asks
    /// this of every indexed file).
    pub fn holds(&self, path: &str) -> bool {
        let Some(listed) = self.listed() else {
            return false;
        };
        let root = listed.as_os_str().as_encoded_bytes();
        path.as_bytes()
            .strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest[0] == b'/' || root.last() == Some(&b'/'))
    }
}

impl std::fmt::Display for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown harness name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown harness {0:?} (expected pi, claude, codex, gemini, copilot, cursor or opencode)")]
pub struct UnknownHarness(pub String);

impl FromStr for Harness {
    type Err = UnknownHarness;

    fn from_str(name: &str) -> Result<Harness, UnknownHarness> {
        Harness::ALL
            .into_iter()
            .find(|h| h.as_str() == name)
            .ok_or_else(|| UnknownHarness(name.to_string()))
    }
}

/// How many leading bytes [`detect`] looks at: a decisive record is the first or second line
/// of every real transcript, but a Pi header or a Claude summary line can be long.
pub const DETECT_BYTES: usize = 1 << 20;

/// The harness of a transcript from its first bytes (at most [`DETECT_BYTES`] are read): the
/// first line that [`detect_line`] decides; Pi when none does (an empty or missing file, or
/// garbage).
pub fn detect(bytes: &[u8]) -> Harness {
    let head = &bytes[..bytes.len().min(DETECT_BYTES)];
    let mut lines = head
        .split(|&b| b == b'\n')
        .filter_map(|line| std::str::from_utf8(line).ok());
    let first = lines.next().unwrap_or("");
    // `{` alone marks a whole-file document only as a whole line: a first line being written
    // (any agent's record, torn after its `{`) decides nothing yet.
    let first_is_whole = head.contains(&b'\n');
    detect_line(first)
        .or_else(|| first_is_whole.then(|| detect_first_line(first)).flatten())
        .or_else(|| lines.find_map(detect_line))
        .unwrap_or_default()
}

/// The fields that mark a record's format.
#[derive(Deserialize)]
struct MarksRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    record_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uuid: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    #[serde(rename = "projectHash", borrow, default)]
    project_hash: Option<&'a RawValue>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<&'a RawValue>,
    #[serde(rename = "$rewindTo", borrow, default)]
    rewind_to: Option<&'a RawValue>,
}

/// The harness a file's first line alone marks: `{` by itself opens a whole-file JSON
/// document, which only Gemini CLI's older chats are.
pub fn detect_first_line(line: &str) -> Option<Harness> {
    (line.trim() == "{").then_some(Harness::Gemini)
}

/// The harness one line marks, if any: a Pi header or entry type; a Codex rollout item (a
/// `type` of its own with a `payload`); a Copilot CLI event (a `type` of its own with a
/// `data`); a Cursor message (a `role` and a `message`, no `type`) or record (`turn_ended`,
/// `metadata`); a Claude record (a `type` of its own, or a `uuid` or `sessionId`). Anything
/// else (not an object, an unknown type) decides nothing.
pub fn detect_line(line: &str) -> Option<Harness> {
    if !line.trim_start().starts_with('{') {
        return None;
    }
    let marks: MarksRepr = serde_json::from_str(line).ok()?;
    let record_type = marks
        .record_type
        .and_then(|raw| raw.get().strip_prefix('"')?.strip_suffix('"'))
        .unwrap_or("");
    if codex::RECORD_TYPES.contains(&record_type) && marks.payload.is_some() {
        return Some(Harness::Codex);
    }
    if opencode::RECORD_TYPES.contains(&record_type) {
        return Some(Harness::OpenCode);
    }
    if copilot::RECORD_TYPES.contains(&record_type) && marks.data.is_some() {
        return Some(Harness::Copilot);
    }
    let role = marks
        .role
        .and_then(|raw| raw.get().strip_prefix('"')?.strip_suffix('"'))
        .unwrap_or("");
    if (record_type.is_empty() && cursor::ROLES.contains(&role) && marks.message.is_some())
        || (cursor::RECORD_TYPES.contains(&record_type) && marks.uuid.is_none())
    {
        return Some(Harness::Cursor);
    }
    if gemini::is_gemini_record(record_type, &marks) {
        return Some(Harness::Gemini);
    }
    if pi::ENTRY_TYPES.contains(&record_type) {
        return Some(Harness::Pi);
    }
    if claude::RECORD_TYPES.contains(&record_type)
        || marks.uuid.is_some()
        || marks.session_id.is_some()
    {
        return Some(Harness::Claude);
    }
    None
}

/// The line reader of a file being parsed, with what it must remember between lines (saved
/// in the session index, so that an append is read as a whole read would read it).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) enum Reader {
    /// No line has decided the format yet; lines are read as Pi reads them.
    #[default]
    Undecided,
    Pi,
    Claude(claude::State),
    Codex(codex::State),
    Copilot(copilot::State),
    Cursor,
    Gemini(gemini::State),
    OpenCode(opencode::State),
}

impl Reader {
    /// The reader for a harness, before its first line.
    pub(super) fn new(harness: Harness) -> Reader {
        match harness {
            Harness::Pi => Reader::Pi,
            Harness::Claude => Reader::Claude(claude::State::default()),
            Harness::Codex => Reader::Codex(codex::State::default()),
            Harness::Copilot => Reader::Copilot(copilot::State::default()),
            Harness::Cursor => Reader::Cursor,
            Harness::Gemini => Reader::Gemini(gemini::State::default()),
            Harness::OpenCode => Reader::OpenCode(opencode::State::default()),
        }
    }

    /// The reader of a file read to its end before: the format alone, with none of what the
    /// reader remembered between lines (see `cache::IndexMeta::reader_state`). It reads no line.
    pub(super) fn resting(decided: Option<Harness>) -> Reader {
        decided.map_or(Reader::Undecided, Reader::new)
    }

    /// The format a line decided; `None` while none has.
    pub(super) fn decided(&self) -> Option<Harness> {
        match self {
            Reader::Undecided => None,
            reader => Some(reader.harness()),
        }
    }

    /// Reads one line (the one dispatch to a format's reader).
    pub(super) fn read_line(
        &mut self,
        line: &str,
        base: usize,
        header: &mut Option<Header>,
        atoms: &mut String,
    ) -> Read {
        match self {
            Reader::Undecided | Reader::Pi => pi::read_line(line, base, header, atoms),
            Reader::Claude(state) => claude::read_line(state, line, base, header, atoms),
            Reader::Codex(state) => codex::read_line(state, line, base, header, atoms),
            Reader::Copilot(state) => copilot::read_line(state, line, base, header, atoms),
            Reader::Cursor => cursor::read_line(line, base, header, atoms),
            Reader::Gemini(state) => gemini::read_line(state, line, base, header, atoms),
            Reader::OpenCode(state) => opencode::read_line(state, line, base, header, atoms),
        }
    }

    /// Reads a whole-file JSON document a line reader asked for ([`Read::Document`]).
    pub(super) fn read_document(
        &mut self,
        document: &str,
        base: usize,
        header: &mut Option<Header>,
        atoms: &mut String,
    ) -> Read {
        match self {
            Reader::Gemini(state) => gemini::read_document(state, document, base, header, atoms),
            _ => Read::Malformed,
        }
    }

    /// Whether entries form one chain in file order under synthetic ids: a Codex rollout, a
    /// Cursor transcript, and a Pi session whose header says version 1 (or that has none yet).
    pub(super) fn is_linear(&self, header: Option<&Header>) -> bool {
        match self {
            Reader::Undecided | Reader::Pi => pi::is_linear(header.and_then(|h| h.version)),
            Reader::Claude(_) | Reader::Copilot(_) | Reader::Gemini(_) | Reader::OpenCode(_) => {
                false
            }
            Reader::Codex(_) | Reader::Cursor => true,
        }
    }

    pub(super) fn harness(&self) -> Harness {
        match self {
            Reader::Undecided | Reader::Pi => Harness::Pi,
            Reader::Claude(_) => Harness::Claude,
            Reader::Codex(_) => Harness::Codex,
            Reader::Copilot(_) => Harness::Copilot,
            Reader::Cursor => Harness::Cursor,
            Reader::Gemini(_) => Harness::Gemini,
            Reader::OpenCode(_) => Harness::OpenCode,
        }
    }
}

/// What a session learns from its file's path: a Codex rollout without a `session_meta` takes
/// its id from the uuid in its file name (`rollout-<time>-<uuid>.jsonl`); a Cursor transcript,
/// which names nothing, its id from its file name, in a `subagents/` directory its parent from
/// the directory that holds it, and its cwd from its project directory's name
/// ([`cursor::cwd_from_path`]); a Gemini chat its parent (a subagent's directory) and its
/// project's root ([`gemini::complete_from_path`]).
pub(super) fn complete_from_path(session: &mut super::Session, path: &Path) {
    match session.harness {
        Harness::Codex if session.id().is_none() => {
            if let Some(id) = codex::id_from_file_name(path) {
                session.header.get_or_insert_with(Default::default).id = Some(id);
            }
        }
        Harness::Cursor => {
            let header = session.header.get_or_insert_with(Default::default);
            header.id = Harness::Cursor.id_from_path(path);
            header.parent_session_id = cursor::parent_from_path(path);
            header.cwd = cursor::cwd_from_path(path);
        }
        Harness::Gemini => {
            gemini::complete_from_path(session.header.get_or_insert_with(Default::default), path);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole-file JSON chat (Gemini CLI's older format) opens with `{` alone on its first
    /// line; an agent's first record torn after its `{` is not one.
    #[test]
    fn a_torn_first_line_is_no_whole_file_document() {
        assert_eq!(detect(b"{\n  \"sessionId\": \"s\",\n"), Harness::Gemini);
        assert_eq!(detect(b"{"), Harness::Pi);
        let copilot = br#"{"type":"session.start","data":{"sessionId":"s"}}"#;
        assert_eq!(detect(copilot), Harness::Copilot);
        assert_eq!(detect(&copilot[..1]), Harness::Pi);
    }

    /// As the agents named the tools when run (tests/agents): Claude Code keeps the server's
    /// name, a plugin's server included; Codex makes one namespace of it, `-` as `_`.
    #[test]
    fn each_agent_names_a_servers_tools_its_own_way() {
        let claude = Harness::Claude.agent_facts().unwrap();
        assert_eq!(claude.tool("notes_write"), "mcp__pi-context__notes_write");
        assert_eq!(
            claude.tool_of("plugin_pi-context_pi-context", "notes_write"),
            "mcp__plugin_pi-context_pi-context__notes_write"
        );
        let codex = Harness::Codex.agent_facts().unwrap();
        assert_eq!(codex.tool("notes_write"), "mcp__pi_context.notes_write");
        assert_eq!(codex.tool("*"), "mcp__pi_context.*");
        let copilot = Harness::Copilot.agent_facts().unwrap();
        assert_eq!(copilot.tool("notes_write"), "pi-context-notes_write");
        assert_eq!(copilot.mcp_tool_parts(), ("", "-"));
        assert_eq!(claude.mcp_tool_parts(), ("mcp__", "__"));
        assert_eq!(codex.mcp_tool_parts(), ("mcp__", "."));
        let opencode = Harness::OpenCode.agent_facts().unwrap();
        assert_eq!(opencode.tool("history_read"), "pi-context_history_read");
        assert_eq!(opencode.mcp_tool_parts(), ("", "_"));
    }
}
