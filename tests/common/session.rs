//! Pi session files for tests, written the way Pi's `SessionManager` writes them, plus small
//! helpers for the history tool requests that read them.
//!
//! A [`SessionBuilder`] holds a header and a list of JSONL lines. Every appending method writes
//! one entry whose `parentId` is the current leaf, makes it the new leaf (as Pi's `_appendEntry`
//! does) and returns its id. Ids are deterministic 8-hex strings and timestamps advance one
//! second per entry from [`super::FIXED_NOW`], so tests can state exact expected values.
//!
//! Tool-call `arguments` are embedded as the exact JSON text given (never re-serialized), because
//! history documents carry the raw bytes Pi wrote.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// The session id a builder uses unless told otherwise.
pub const SESSION_ID: &str = "0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0";
/// `FIXED_NOW` in Unix milliseconds (message payload timestamps are numbers).
const FIXED_NOW_MS: u64 = 1_772_355_600_000;

pub struct SessionBuilder {
    session_id: String,
    /// `Some(n)`: a header with `"version":n`; `None`: a v1 header (no version).
    version: Option<u64>,
    header: bool,
    lines: Vec<String>,
    leaf: Option<String>,
    counter: u32,
    timestamps: HashMap<String, String>,
    cwd: String,
    /// Seconds added to every timestamp (negative: an older session).
    time_offset: i64,
}

impl Default for SessionBuilder {
    fn default() -> Self {
        Self::new()
    }
}

/// Compact JSON of a value (the builder's one serializer; no ASCII escaping, like JS).
fn js<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("serializable")
}

/// An object from already-serialized field values, in the given order.
fn object<K: AsRef<str>>(fields: &[(K, String)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{v}", js(k.as_ref())))
        .collect();
    format!("{{{}}}", body.join(","))
}

/// The ISO timestamp `n` seconds after `FIXED_NOW` (2026-03-01T09:00:00.000Z).
pub fn iso_at(n: u64) -> String {
    let secs = 9 * 3600 + n;
    let (day, rest) = (1 + secs / 86_400, secs % 86_400);
    format!(
        "2026-03-{day:02}T{:02}:{:02}:{:02}.000Z",
        rest / 3600,
        (rest / 60) % 60,
        rest % 60
    )
}

impl SessionBuilder {
    /// A v3 session with the default id.
    pub fn new() -> Self {
        Self::with_id(SESSION_ID)
    }

    pub fn with_id(session_id: &str) -> Self {
        SessionBuilder {
            session_id: session_id.to_string(),
            version: Some(3),
            header: true,
            lines: Vec::new(),
            leaf: None,
            counter: 0,
            timestamps: HashMap::new(),
            cwd: "/work/project".to_string(),
            time_offset: 0,
        }
    }

    /// The header's `version` (`None` writes a v1 header without one).
    pub fn version(mut self, version: Option<u64>) -> Self {
        self.version = version;
        self
    }

    /// The header's `cwd` (default `/work/project`).
    pub fn cwd(mut self, cwd: &str) -> Self {
        self.cwd = cwd.to_string();
        self
    }

    /// Shifts every timestamp by `seconds` (negative: the session happened earlier).
    pub fn time_offset(mut self, seconds: i64) -> Self {
        self.time_offset = seconds;
        self
    }

    /// The ISO timestamp of the `n`th entry (0: the header).
    fn iso(&self, n: u64) -> String {
        if self.time_offset == 0 {
            return iso_at(n);
        }
        let base: jiff::Timestamp = super::FIXED_NOW.parse().expect("FIXED_NOW");
        let at = base.as_second() + n as i64 + self.time_offset;
        jiff::Timestamp::from_second(at)
            .expect("timestamp in range")
            .strftime("%Y-%m-%dT%H:%M:%S.000Z")
            .to_string()
    }

    /// Writes no header line at all.
    pub fn without_header(mut self) -> Self {
        self.header = false;
        self
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// `pcw:<first 8 chars of the session id>:root`.
    pub fn root_window(&self) -> String {
        let prefix: String = self.session_id.chars().take(8).collect();
        format!("pcw:{prefix}:root")
    }

    /// The current leaf (the parent of the next entry).
    pub fn leaf(&self) -> Option<&str> {
        self.leaf.as_deref()
    }

    /// The entry timestamp of an entry this builder wrote.
    pub fn timestamp(&self, id: &str) -> String {
        self.timestamps
            .get(id)
            .cloned()
            .unwrap_or_else(|| panic!("no entry {id}"))
    }

    /// The header line, if the builder writes one.
    pub fn header_line(&self) -> Option<String> {
        if !self.header {
            return None;
        }
        let mut fields = vec![("type", js("session"))];
        if let Some(v) = self.version {
            fields.push(("version", js(&v)));
        }
        fields.push(("id", js(&self.session_id)));
        fields.push(("timestamp", js(&self.iso(0))));
        fields.push(("cwd", js(&self.cwd)));
        Some(object(&fields))
    }

    /// Every line of the file: the header, then the entries.
    pub fn lines(&self) -> Vec<String> {
        self.header_line()
            .into_iter()
            .chain(self.lines.iter().cloned())
            .collect()
    }

    /// The file text: every line `\n`-terminated, as Pi's `appendFileSync` writes it.
    pub fn text(&self) -> String {
        self.lines().iter().map(|l| format!("{l}\n")).collect()
    }

    /// Writes the file and returns its path.
    pub fn write_to(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref().to_path_buf();
        std::fs::write(&path, self.text()).expect("write session file");
        path
    }

    // ----- entries ---------------------------------------------------------------------------

    fn next_id(&mut self) -> (String, String) {
        self.counter += 1;
        let n = self.counter;
        // A bijection of the counter, so ids look random but never collide.
        let id = format!("{:08x}", n.wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995);
        let timestamp = self.iso(u64::from(n));
        self.timestamps.insert(id.clone(), timestamp.clone());
        (id, timestamp)
    }

    /// The payload timestamp (Unix ms) of the entry about to be appended.
    fn message_ms(&self) -> u64 {
        FIXED_NOW_MS + u64::from(self.counter + 1) * 1000
    }

    /// Appends an entry whose fields before `id` are `head` and after `timestamp` are `tail`.
    fn append(&mut self, head: Vec<(&str, String)>, tail: Vec<(&str, String)>) -> String {
        let (id, timestamp) = self.next_id();
        self.append_with(&id, &timestamp, head, tail);
        id
    }

    fn append_with(
        &mut self,
        id: &str,
        timestamp: &str,
        head: Vec<(&str, String)>,
        tail: Vec<(&str, String)>,
    ) {
        let mut fields = head;
        fields.push(("id", js(id)));
        fields.push(("parentId", js(&self.leaf)));
        fields.push(("timestamp", js(timestamp)));
        fields.extend(tail);
        self.lines.push(object(&fields));
        self.leaf = Some(id.to_string());
    }

    /// A `message` entry with this message object (already serialized).
    fn message_raw(&mut self, message: String) -> String {
        self.append(vec![("type", js("message"))], vec![("message", message)])
    }

    /// A `message` entry with any message payload (e.g. a 1.6 `system` message, an unknown role).
    pub fn message(&mut self, message: Value) -> String {
        self.message_raw(js(&message))
    }

    /// A user message: `content` is one text block, as Pi's prompt writes it.
    pub fn user(&mut self, text: &str) -> String {
        self.user_blocks(json!([{"type": "text", "text": text}]))
    }

    /// A user message whose `content` is a plain string.
    pub fn user_string(&mut self, text: &str) -> String {
        self.user_blocks(json!(text))
    }

    /// A user message with any `content` (an array of text/image blocks, or a string).
    pub fn user_blocks(&mut self, content: Value) -> String {
        let ms = self.message_ms();
        self.message_raw(object(&[
            ("role", js("user")),
            ("content", js(&content)),
            ("timestamp", js(&ms)),
        ]))
    }

    /// An assistant message with one text block (no block at all when `text` is empty).
    pub fn assistant(&mut self, text: &str) -> String {
        self.assistant_with_calls(text, &[])
    }

    /// An assistant message: a text block (when `text` is non-empty), then one `toolCall` block
    /// per `(id, name, arguments JSON text)`. The arguments text is embedded verbatim.
    pub fn assistant_with_calls(&mut self, text: &str, calls: &[(&str, &str, &str)]) -> String {
        let mut blocks = Vec::new();
        if !text.is_empty() {
            blocks.push(js(&json!({"type": "text", "text": text})));
        }
        for (id, name, arguments) in calls {
            serde_json::from_str::<Value>(arguments).expect("arguments must be JSON text");
            blocks.push(object(&[
                ("type", js("toolCall")),
                ("id", js(id)),
                ("name", js(name)),
                ("arguments", arguments.to_string()),
            ]));
        }
        let stop = if calls.is_empty() { "stop" } else { "toolUse" };
        self.assistant_content(&format!("[{}]", blocks.join(",")), stop)
    }

    /// An assistant message with raw `content` JSON text (thinking blocks, odd tool calls, …).
    pub fn assistant_content(&mut self, content: &str, stop_reason: &str) -> String {
        let ms = self.message_ms();
        self.message_raw(object(&[
            ("role", js("assistant")),
            ("content", content.to_string()),
            ("api", js("anthropic-messages")),
            ("provider", js("anthropic")),
            ("model", js("claude-test")),
            (
                "usage",
                js(&json!({"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})),
            ),
            ("stopReason", js(stop_reason)),
            ("timestamp", js(&ms)),
        ]))
    }

    /// A tool result with one text block.
    pub fn tool_result(&mut self, call_id: &str, name: &str, text: &str, is_error: bool) -> String {
        let ms = self.message_ms();
        self.message_raw(object(&[
            ("role", js("toolResult")),
            ("toolCallId", js(call_id)),
            ("toolName", js(name)),
            ("content", js(&json!([{"type": "text", "text": text}]))),
            ("isError", js(&is_error)),
            ("timestamp", js(&ms)),
        ]))
    }

    /// A standalone shell run (`!cmd`): a `bashExecution` message.
    pub fn bash_execution(
        &mut self,
        command: &str,
        output: &str,
        truncated: bool,
        full_output_path: Option<&str>,
    ) -> String {
        let ms = self.message_ms();
        let mut fields = vec![
            ("role", js("bashExecution")),
            ("command", js(command)),
            ("output", js(output)),
            ("exitCode", js(&0)),
            ("cancelled", js(&false)),
            ("truncated", js(&truncated)),
        ];
        if let Some(path) = full_output_path {
            fields.push(("fullOutputPath", js(path)));
        }
        fields.push(("timestamp", js(&ms)));
        self.message_raw(object(&fields))
    }

    /// A `custom_message` entry (an extension message in the model's context), hidden.
    pub fn custom_message(&mut self, custom_type: &str, text: &str) -> String {
        self.custom_message_content(custom_type, json!(text))
    }

    /// A `custom_message` entry with any `content` (a string or text/image blocks).
    pub fn custom_message_content(&mut self, custom_type: &str, content: Value) -> String {
        self.append(
            vec![
                ("type", js("custom_message")),
                ("customType", js(custom_type)),
                ("content", js(&content)),
                ("display", js(&false)),
            ],
            vec![],
        )
    }

    /// A `custom` entry (extension state, never in the context).
    pub fn custom(&mut self, custom_type: &str, data: Value) -> String {
        self.append(
            vec![
                ("type", js("custom")),
                ("customType", js(custom_type)),
                ("data", js(&data)),
            ],
            vec![],
        )
    }

    /// A pi-context reset marker opening the window `window_id`.
    pub fn reset_marker(&mut self, window_id: &str) -> String {
        self.custom("pi-context/reset-marker", json!({ "windowId": window_id }))
    }

    /// A native compaction; retain-none (`firstKeptEntryId` is its own id), as pi-context writes.
    pub fn compaction(&mut self, summary: &str) -> String {
        let (id, timestamp) = self.next_id();
        self.append_with(
            &id,
            &timestamp,
            vec![("type", js("compaction"))],
            vec![
                ("summary", js(summary)),
                ("firstKeptEntryId", js(&id)),
                ("tokensBefore", js(&1000)),
            ],
        );
        id
    }

    /// Pi's `branchWithSummary(from, summary)`: moves the leaf to `from` (`None`: the root) and
    /// appends a `branch_summary` whose `parentId` is that branch point.
    pub fn branch_summary(&mut self, from: Option<&str>, summary: &str) -> String {
        self.leaf = from.map(str::to_string);
        let from_id = from.unwrap_or("root").to_string();
        self.append(
            vec![("type", js("branch_summary"))],
            vec![("fromId", js(&from_id)), ("summary", js(summary))],
        )
    }

    /// Any other entry type (`model_change`, `label`, `session_info`, unknown types), with
    /// extra fields after the base fields.
    pub fn entry(&mut self, entry_type: &str, extra: Value) -> String {
        let tail: Vec<(String, String)> = match extra {
            Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), js(v))).collect(),
            Value::Null => Vec::new(),
            other => panic!("extra fields must be an object, not {other}"),
        };
        let (id, timestamp) = self.next_id();
        let mut fields: Vec<(String, String)> = vec![
            ("type".into(), js(entry_type)),
            ("id".into(), js(&id)),
            ("parentId".into(), js(&self.leaf)),
            ("timestamp".into(), js(&timestamp)),
        ];
        fields.extend(tail);
        self.lines.push(object(&fields));
        self.leaf = Some(id.clone());
        id
    }

    /// Pi's `/tree` navigation (`branch(id)`): moves the leaf without writing anything.
    pub fn branch_from(&mut self, id: &str) {
        self.leaf = Some(id.to_string());
    }

    /// Pi's `resetLeaf()`: the next entry becomes a new root.
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
    }

    /// Appends a line exactly as given (malformed, truncated, foreign…). The leaf does not move.
    /// Returns the line's string `id`, or an empty string when it has none.
    pub fn raw_line(&mut self, line: &str) -> String {
        self.lines.push(line.to_string());
        serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default()
    }
}

// ----- history tool requests -------------------------------------------------------------------

/// `{"params":…,"context":{"session_file":path,"leaf_id":null,"session_id":null}}`.
pub fn request(path: &Path, params: Value) -> Value {
    request_at(path, None, params)
}

/// A request with an explicit `leaf_id` (`Some("none")` for an empty branch).
pub fn request_at(path: &Path, leaf: Option<&str>, params: Value) -> Value {
    json!({
        "params": params,
        "context": {"session_file": path.to_str().expect("utf-8 path"), "leaf_id": leaf, "session_id": null}
    })
}

/// The JSON object in a successful (non-read) response's `text`.
pub fn ok_json(response: &Value) -> Value {
    assert_eq!(
        response["is_error"],
        json!(false),
        "unexpected refusal: {response}"
    );
    serde_json::from_str(response["text"].as_str().expect("text")).expect("text is JSON")
}

/// The `error` object of a refusal (checks `is_error` and the envelope).
pub fn refusal(response: &Value) -> Value {
    assert_eq!(
        response["is_error"],
        json!(true),
        "expected a refusal: {response}"
    );
    let text: Value = serde_json::from_str(response["text"].as_str().expect("text"))
        .expect("refusal text is JSON");
    let object = text.as_object().expect("refusal is an object");
    assert_eq!(
        object.keys().collect::<Vec<_>>(),
        ["error"],
        "refusal has only `error`: {text}"
    );
    let error = text["error"].clone();
    assert!(error["code"].is_string(), "refusal has a code: {error}");
    assert!(
        error["message"].is_string(),
        "refusal has a message: {error}"
    );
    error
}

/// The text of a read response.
pub fn read_text(response: &Value) -> String {
    assert_eq!(
        response["is_error"],
        json!(false),
        "unexpected refusal: {response}"
    );
    response["text"].as_str().expect("text").to_string()
}

/// A parsed READ WINDOW block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub identity: Vec<(String, String)>,
    pub start: usize,
    pub end: usize,
    pub total: usize,
    pub next: Option<usize>,
    pub content: String,
}

/// Parses a READ WINDOW with the anchor's grammar:
/// `^--- READ WINDOW ---\n(?:[a-z_]+: [^\n]*\n)+chars: \[(\d+),(\d+)\) of (\d+)\nnext_offset_chars: (null|\d+)\n\n`.
pub fn parse_block(text: &str) -> Block {
    let rest = text
        .strip_prefix("--- READ WINDOW ---\n")
        .unwrap_or_else(|| panic!("no READ WINDOW header: {text:.200}"));
    let mut identity = Vec::new();
    let mut rest = rest;
    loop {
        let (line, after) = rest.split_once('\n').expect("header line");
        rest = after;
        if let Some(range) = line.strip_prefix("chars: [") {
            let (range, total) = range.split_once(") of ").expect("chars line");
            let (start, end) = range.split_once(',').expect("chars range");
            let (next_line, after) = rest.split_once('\n').expect("next line");
            let next = next_line
                .strip_prefix("next_offset_chars: ")
                .expect("next_offset_chars line");
            let content = after
                .strip_prefix('\n')
                .expect("one blank line after the block");
            return Block {
                identity,
                start: start.parse().expect("start"),
                end: end.parse().expect("end"),
                total: total.parse().expect("total"),
                next: if next == "null" {
                    None
                } else {
                    Some(next.parse().expect("next"))
                },
                content: content.to_string(),
            };
        }
        let (key, value) = line.split_once(": ").expect("key: value line");
        assert!(
            !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "bad key {key:?}"
        );
        identity.push((key.to_string(), value.to_string()));
    }
}

/// The `seq` of every event row of a page (fold rows skipped).
pub fn seqs(page: &Value) -> Vec<u64> {
    rows(page)
        .iter()
        .map(|r| r["seq"].as_u64().expect("seq"))
        .collect()
}

/// The event rows of a page (fold rows skipped).
pub fn rows(page: &Value) -> Vec<Value> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i.get("folded").is_none())
        .cloned()
        .collect()
}

/// The fold rows of a page.
pub fn folds(page: &Value) -> Vec<Value> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i.get("folded").is_some())
        .cloned()
        .collect()
}

/// `(seq, content)` of every event row.
pub fn seq_contents(page: &Value) -> Vec<(u64, String)> {
    rows(page)
        .iter()
        .map(|r| {
            (
                r["seq"].as_u64().expect("seq"),
                r["content"].as_str().expect("content").to_string(),
            )
        })
        .collect()
}

/// The number of Unicode code points of `s`.
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Runs `pi-context tool <name>` like [`super::TestEnv::tool`], with extra environment variables.
pub fn tool_with_env(
    env: &super::TestEnv,
    vars: &[(&str, &str)],
    name: &str,
    request: &Value,
) -> Value {
    env.tool_with_env(vars, name, request)
}

/// A session file written into its own hermetic environment.
pub struct Fixture {
    pub env: super::TestEnv,
    pub path: std::path::PathBuf,
}

impl Fixture {
    pub fn new(session: &SessionBuilder) -> Self {
        let env = super::TestEnv::new();
        let path = session.write_to(env.work().join("session.jsonl"));
        Fixture { env, path }
    }

    /// Writes `session` over the fixture's file.
    pub fn rewrite(&self, session: &SessionBuilder) {
        session.write_to(&self.path);
    }

    /// `history_list` with `params`, which must succeed.
    pub fn list(&self, params: serde_json::Value) -> serde_json::Value {
        ok_json(&self.list_response(params))
    }

    pub fn list_response(&self, params: serde_json::Value) -> serde_json::Value {
        self.env.tool("history_list", &request(&self.path, params))
    }

    /// `history_search` with `params`, which must succeed.
    pub fn search(&self, params: serde_json::Value) -> serde_json::Value {
        ok_json(&self.search_response(params))
    }

    pub fn search_response(&self, params: serde_json::Value) -> serde_json::Value {
        self.env
            .tool("history_search", &request(&self.path, params))
    }

    /// The seqs `history_search` finds for `query`.
    pub fn hits(&self, query: serde_json::Value) -> Vec<u64> {
        seqs(&self.search(serde_json::json!({ "query": query })))
    }

    /// `history_read` with `params`.
    pub fn response(&self, params: serde_json::Value) -> serde_json::Value {
        self.env.tool("history_read", &request(&self.path, params))
    }

    pub fn block(&self, params: serde_json::Value) -> Block {
        parse_block(&read_text(&self.response(params)))
    }

    /// The content of a read of `seq` at `offset_chars` with `limit_chars`.
    pub fn read(&self, seq: u64, offset: u64, limit: Option<u64>) -> String {
        let mut params = serde_json::json!({"seq": seq, "offset_chars": offset});
        if let Some(limit) = limit {
            params["limit_chars"] = serde_json::json!(limit);
        }
        self.block(params).content
    }

    /// The whole document of `seq`, followed through every window.
    pub fn document(&self, seq: u64) -> String {
        let mut out = String::new();
        let mut offset = 0;
        loop {
            let block = self.block(
                serde_json::json!({"seq": seq, "offset_chars": offset, "limit_chars": 50_000}),
            );
            out.push_str(&block.content);
            match block.next {
                Some(next) => offset = next,
                None => return out,
            }
        }
    }
}

/// §4.1 item 5's session: a paired call with an error result, a pending call, an orphan result.
pub fn pairing_session() -> SessionBuilder {
    let mut s = SessionBuilder::new();
    s.assistant_with_calls(
        "",
        &[(
            "call-paired",
            "edit",
            r#"{"path":"😀.md","oldText":"before"}"#,
        )],
    ); // 1, call 2
    s.tool_result("call-paired", "edit", "replacement OK", true); // 3
    s.assistant_with_calls("", &[("call-pending", "edit", r#"{"path":"pending.md"}"#)]); // 4, call 5
    s.tool_result("call-orphan", "edit", "orphan output", false); // 6
    s
}
