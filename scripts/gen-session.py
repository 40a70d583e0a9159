#!/usr/bin/env python3
"""Write a synthetic Pi coding-agent session (JSONL, version 3) of about a given size.

The file looks like what Pi writes: a `session` header, then one compact JSON line per entry
(raw UTF-8, like `JSON.stringify`), entries chained into a tree by 8-hex `id`/`parentId`.
It holds every shape a reader must cope with: text/thinking/toolCall/image blocks, tool results
(errors, truncation details, huge outputs), bash executions, native compactions, branch
summaries, model/thinking-level changes, labels, session names, pi-context resets (retain-none
compaction, reset marker, hidden boot and continuation messages), abandoned branches, pending
calls, orphan and duplicate results, empty assistant messages and a Unicode mix.

Two needle words are planted so benchmarks have a rare and a common search term; the manifest
says how many lines contain each (what `rg -i -F -c WORD FILE` prints).

With `--harness claude` or `--harness codex` it writes the same conversation shapes as a Claude
Code transcript (records split per content block, tool_use/tool_result with `toolUseResult`
copies, thinking, rewinds as abandoned branches, compact boundaries with their summaries,
file-history snapshots) or a Codex rollout (session_meta, instructions and environment context,
function and custom tool calls with their outputs, encrypted reasoning, every turn repeated as
`event_msg`, token counts, compactions), with the needles planted the same way.
`--harness gemini` writes a Gemini CLI chat (header, `$set` patches, gemini messages written again
with their tool calls and results, the results repeated as `functionResponse` parts, state
snapshots of compressions, `info` notices, `$rewindTo` rewinds); `--harness copilot` a Copilot CLI
`events.jsonl` (events chained by parentId, turns, usage records, tool executions, `task`
subagents under their own agentId, compactions with their summaries); `--harness cursor` a Cursor
agent transcript (role/message lines without ids or times, tool results only for some calls,
`turn_ended` records). The needles are counted by line the same way for every format.

Same --seed and --size-mb, same bytes. Python 3.9+, standard library only.

    python3 scripts/gen-session.py --size-mb 100 --out big.jsonl --manifest big.json [--seed 1]
    python3 scripts/gen-session.py --harness codex --size-mb 100 --out rollout.jsonl
    python3 scripts/gen-session.py --harness gemini|copilot|cursor --size-mb 100 --out chat.jsonl
"""
import argparse
import base64
import datetime as dt
import json
import random
import sys
import time
import uuid

RARE_NEEDLE = "quetzalcoatl"
COMMON_NEEDLE = "kestrel"

VOCAB = """
the a an of to in and or for with on by from at as is are was be this that it its not but if then
so we you they will should could would can may must need needs want use using used call calls
function method struct trait impl module crate type value values result error errors panic return
returns returned parse parser parsing read reads write writes file files path paths line lines
byte bytes char chars offset offsets index seq window windows history session sessions entry entries
branch branches leaf parent child tree node list search query match matches page cursor budget limit
note notes home store lock rename fsync temp test tests fixture fixtures case cases bench benchmark
fast slow memory cache warm cold build release debug flag flags option options command commands
output input stream json jsonl schema field fields key keys map vector string slice buffer reader
writer iterator closure lifetime borrow owned clone copy async await thread process signal exit
status code check checks assert expect unwrap config settings default explicit implicit fallback
compaction summary marker boot reset context token tokens model provider agent tool tools result
event events role roles user assistant folded fold preview truncated truncation unicode utf8 grapheme
""".split()

FILE_PATHS = [
    "src/main.rs", "src/lib.rs", "src/session/parse.rs", "src/history/project.rs",
    "src/history/search.rs", "src/readwindow.rs", "src/cli/commands/history.rs", "src/text.rs",
    "tests/history.rs", "Cargo.toml", "README.md", "docs/architecture.md",
    "extension/index.ts", "extension/package.json", "docs/日本語/設計.md", "notes/😀-ideas.md",
    "src/wire.rs", "benches/search.rs", ".ci/run", "playbook/playbook.md",
]

CODE_LINES = [
    "use std::io::{self, BufRead, Write};",
    "use serde_json::value::RawValue;",
    "pub fn project(entries: &[Entry], leaf: Option<&str>) -> Vec<Event> {",
    "    let mut events = Vec::with_capacity(entries.len());",
    "    for entry in branch.iter().rev() {",
    "        match entry.kind {",
    "            Kind::Message(ref m) => events.push(Event::from_message(m, seq)),",
    "            Kind::Compaction { ref summary, .. } => events.push(Event::context(summary)),",
    "            _ => {}",
    "        }",
    "    }",
    "    Ok(events)",
    "}",
    "",
    "#[derive(Debug, Clone, Deserialize)]",
    "pub struct Entry<'a> {",
    "    #[serde(borrow)]",
    "    pub id: Option<&'a str>,",
    "    pub parent_id: Option<&'a str>,",
    "impl<'a> Iterator for Lines<'a> {",
    "    type Item = &'a [u8];",
    "    fn next(&mut self) -> Option<Self::Item> {",
    "        let end = memchr::memchr(b'\\n', &self.rest[self.pos..])?;",
    "        if offset > total { return Err(Refusal::InvalidOffset { total }); }",
    "export default function (pi: ExtensionAPI) {",
    "  pi.registerTool({ name: \"history_read\", parameters: schema, execute });",
    "  const result = await pi.exec(bin, [\"tool\", name], { signal, input });",
    "    let folded = text.chars().flat_map(char::to_lowercase).collect::<String>();",
    "    assert_eq!(window.first_seq, Some(1));",
    "fn main() -> anyhow::Result<()> {",
    "    let cli = Cli::parse();",
    "    std::process::exit(run(cli)?);",
    "// SAFETY: the slice is valid UTF-8, checked by the caller",
    "    /// The leaf entry id, or `none` for an empty branch.",
    "const BUDGET_BYTES: usize = 32 * 1024;",
]

LOG_LINES = [
    "   Compiling pi-context v0.1.0 (/work/main)",
    "   Compiling serde_json v1.0.128",
    "    Finished `release` profile [optimized + debuginfo] target(s) in 41.07s",
    "     Running tests/history.rs (target/debug/deps/history-3f2a9c0d1e4b5a6f)",
    "test history::read::refuses_offset_past_end ... ok",
    "test history::search::folds_case_without_shifting_offsets ... ok",
    "test history::list::pages_with_anchors ... ok",
    "test session::parse::skips_half_written_last_line ... ok",
    "test notes::write::keeps_unknown_frontmatter_keys ... FAILED",
    "warning: unused variable: `leaf`",
    "  --> src/history/project.rs:88:13",
    "error[E0502]: cannot borrow `events` as mutable because it is also borrowed as immutable",
    "test result: ok. 142 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.84s",
    "On branch main",
    "Changes not staged for commit:",
    "\tmodified:   src/history/search.rs",
    "\tmodified:   tests/history.rs",
    "drwxr-xr-x  9 root root  4096 Mar  1 09:12 .",
    "-rw-r--r--  1 root root  2417 Mar  1 09:12 Cargo.toml",
    "-rw-r--r--  1 root root 18234 Mar  1 09:12 Cargo.lock",
    "2f4e1c9 Project history search onto event text",
    "a91b07d Read v1 sessions with synthetic ids",
    "[2026-03-01T09:14:02Z INFO  pi_context::history] parsed 71234 entries in 212ms",
]

COMMANDS = [
    "cargo build --release", "cargo test", "cargo test --test history -- --nocapture",
    "git status", "git log --oneline -5", "git diff --stat", "ls -la", "rg -n 'fn project' src/",
    "cargo clippy --all-targets -- -D warnings", "wc -l src/**/*.rs", "cat Cargo.toml",
]

# Text a reader must not mangle: CJK, ZWJ sequences, RTL, combining marks, Turkish dotted I,
# line/paragraph separators, astral-plane characters, escapes.
UNICODE_SNIPPETS = [
    "日本語の履歴を検索する（全角括弧とカタカナ）",
    "中文：上下文窗口与历史记录",
    "한국어 세션 기록",
    "family 👨‍👩‍👧‍👦 and 🏳️‍🌈 and 👍🏽 and 🇯🇵",
    "עברית בתוך טקסט and العربية مرحبا",
    "cafe\u0301 nai\u0308ve Z\u0335\u0321a\u0336l\u0334g\u0337o",
    "İstanbul ve ıspanak (İ ı I i)",
    "before\u2028after and para\u2029graph",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝄞 𠜎𠜱 🦀",
    "Straße ǅemal ﬁle",
    "tab\there \"quoted\" back\\slash \u001b[31mred\u001b[0m",
]

MODELS = [
    ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    ("openai", "openai-responses", "gpt-5"),
    ("google", "google-generative-ai", "gemini-2.5-pro"),
]

PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def js_number(x):
    """A cost as JSON.stringify prints it: 0 not 0.0, and >= 1e-4 so Python uses no exponent."""
    x = round(x, 6)
    return int(x) if x == int(x) else x


def seq_cost(obj):
    """How many seq numbers pi-context gives an entry, so the manifest can report the highest:
    1 for a compaction, branch summary, custom message or conversation message, plus 1 per tool
    call of an assistant message."""
    kind = obj["type"]
    if kind in ("compaction", "branch_summary", "custom_message"):
        return 1
    if kind != "message":
        return 0
    msg = obj["message"]
    role = msg.get("role")
    if role == "assistant":
        return 1 + sum(1 for b in msg["content"] if b.get("type") == "toolCall")
    if role in ("user", "toolResult", "bashExecution", "custom", "compactionSummary", "branchSummary"):
        return 1
    return 0


class SessionWriter:
    """Appends entries to the file and keeps the tree bookkeeping (leaf, current path)."""

    def __init__(self, out, rnd, needles):
        self.out = out
        self.r = rnd
        self.needles = [(n, n.encode()) for n in needles]
        self.clock = dt.datetime(2026, 3, 1, 9, 0, 0, tzinfo=dt.timezone.utc)
        self.ids = set()
        self.path = []  # ids from the root to the leaf
        self.bytes = 0
        self.lines = 0
        self.entries = 0
        self.max_seq = 0
        self.counts = {}
        self.needle_lines = {n: 0 for n in needles}
        self.needle_ids = {n: set() for n in needles}
        self.markers = {}  # reset-marker entry id -> window id
        self._encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

    @property
    def leaf(self):
        return self.path[-1] if self.path else None

    def advance(self, lo=0.3, hi=25.0):
        self.clock += dt.timedelta(milliseconds=int(self.r.uniform(lo, hi) * 1000))

    def iso(self):
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (self.clock.microsecond // 1000)

    def ms(self):
        return int(self.clock.timestamp() * 1000)

    def new_id(self):
        while True:
            eid = "%08x" % self.r.getrandbits(32)
            if eid not in self.ids:
                self.ids.add(eid)
                return eid

    def header(self, session_id, cwd):
        self._write({"type": "session", "version": 3, "id": session_id, "timestamp": self.iso(), "cwd": cwd})

    def append(self, kind, fields, eid=None):
        self.advance()
        eid = eid or self.new_id()
        obj = {"type": kind, "id": eid, "parentId": self.leaf, "timestamp": self.iso()}
        obj.update(fields)
        self._write(obj, eid)
        self.path.append(eid)
        self.entries += 1
        self.max_seq += seq_cost(obj)
        key = kind if kind != "message" else "message:" + obj["message"]["role"]
        self.counts[key] = self.counts.get(key, 0) + 1
        return eid

    def move_leaf(self, target):
        """Continue from an earlier entry on the path; the abandoned entries stay in the file."""
        del self.path[self.path.index(target) + 1:]

    def _write(self, obj, eid=None):
        data = (self._encode(obj) + "\n").encode("utf-8")
        self.out.write(data)
        self.bytes += len(data)
        self.lines += 1
        # ASCII needles: ASCII lowercasing counts exactly the lines `rg -i -F -c` reports.
        low = data.lower()
        for word, raw in self.needles:
            if raw in low:
                self.needle_lines[word] += 1
                if eid:
                    self.needle_ids[word].add(eid)


class Generator:
    def __init__(self, args, out):
        self.a = args
        self.r = random.Random(args.seed)
        self.session_id = str(uuid.UUID(int=self.r.getrandbits(128), version=4))
        self.w = SessionWriter(out, self.r, [RARE_NEEDLE, COMMON_NEEDLE])
        self.target = int(args.size_mb * 1024 * 1024)
        self.model = MODELS[0]
        self.turn = 0
        self.windows_created = []
        rare_step = int(args.rare_every_mb * 1024 * 1024)
        self.rare_step = rare_step
        self.next_rare_at = min(rare_step // 2, self.target // 2)
        self.rare_due = False

    # ------------------------------------------------------------------ text
    def needle_case(self, word):
        return self.r.choice((word, word.capitalize(), word.upper()))

    def plant(self, text):
        """Insert the needles into searchable text at the planned rates."""
        if self.rare_due:
            self.rare_due = False
            text = self.insert_word(text, self.needle_case(RARE_NEEDLE))
        if self.r.random() < self.a.common_rate:
            text = self.insert_word(text, self.needle_case(COMMON_NEEDLE))
        return text

    def insert_word(self, text, word):
        cut = self.r.randrange(len(text) + 1)
        space = text.rfind(" ", 0, cut)
        cut = space + 1 if space >= 0 else 0
        return text[:cut] + word + " " + text[cut:]

    def sentence(self):
        words = self.r.choices(VOCAB, k=self.r.randint(6, 18))
        words[0] = words[0].capitalize()
        return " ".join(words) + self.r.choice((".", ".", ".", "?", ":"))

    def prose(self, lo, hi):
        parts = [self.sentence() for _ in range(self.r.randint(lo, hi))]
        if self.r.random() < self.a.unicode_rate:
            parts.insert(self.r.randrange(len(parts) + 1), self.r.choice(UNICODE_SNIPPETS))
        return " ".join(parts)

    def markdown(self, lo, hi):
        blocks = [self.prose(lo, hi)]
        x = self.r.random()
        if x < 0.25:
            blocks.append("\n".join("- " + self.sentence() for _ in range(self.r.randint(2, 6))))
        elif x < 0.45:
            blocks.append("```rust\n" + self.code(3, 14) + "\n```")
        if self.r.random() < 0.3:
            blocks.append("`%s` " % self.r.choice(FILE_PATHS) + self.prose(1, 3))
        return self.plant("\n\n".join(blocks))

    def code(self, lo, hi):
        return "\n".join(self.r.choices(CODE_LINES, k=self.r.randint(lo, hi)))

    def log(self, lo, hi):
        lines = self.r.choices(LOG_LINES, k=self.r.randint(lo, hi))
        if self.r.random() < self.a.unicode_rate:
            lines.insert(self.r.randrange(len(lines) + 1), self.r.choice(UNICODE_SNIPPETS))
        return "\n".join(lines)

    def huge(self):
        """A 40k-200k character tool output (a long build log or a big file)."""
        size = self.r.randint(40_000, 200_000)
        pool = LOG_LINES if self.r.random() < 0.5 else CODE_LINES
        lines, n = [], 0
        while n < size:
            chunk = self.r.choices(pool, k=200)
            lines.extend(chunk)
            n += sum(len(s) + 1 for s in chunk)
        return self.plant("\n".join(lines)[:size])

    def b64(self, lo, hi):
        return base64.b64encode(self.r.randbytes(self.r.randint(lo, hi))).decode()

    def image(self):
        data = PNG_HEADER + self.r.randbytes(self.r.randint(150, 2400))
        return {"type": "image", "data": base64.b64encode(data).decode(), "mimeType": "image/png"}

    def usage(self):
        i, o = self.r.randint(200, 120_000), self.r.randint(10, 6000)
        cache = self.r.choice((0, self.r.randint(1000, i + 1000)))
        cost = {"input": js_number(i * 3e-6), "output": js_number(o * 1.5e-5),
                "cacheRead": js_number(cache * 3e-7), "cacheWrite": 0}
        cost["total"] = js_number(cost["input"] + cost["output"] + cost["cacheRead"])
        return {"input": i, "output": o, "cacheRead": cache, "cacheWrite": 0,
                "totalTokens": i + o + cache, "cost": cost}

    def call_id(self):
        provider = self.model[0]
        if provider == "anthropic":
            return "toolu_01" + "".join(self.r.choices("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789", k=22))
        if provider == "openai":
            return "call_" + "%024x" % self.r.getrandbits(96)
        return "%08x-%04x" % (self.r.getrandbits(32), self.r.getrandbits(16))

    # ------------------------------------------------------------------ messages
    def message(self, msg):
        msg["timestamp"] = self.w.ms()
        return self.w.append("message", {"message": msg})

    def user(self):
        text = self.markdown(1, 6)
        if self.r.random() < 0.5:
            content = text
        else:
            content = [{"type": "text", "text": text}]
            if self.r.random() < self.a.image_rate:
                content.append(self.image())
        return self.message({"role": "user", "content": content})

    def tool_call(self):
        name = self.r.choice(("read", "read", "bash", "bash", "edit", "grep", "write"))
        path = self.r.choice(FILE_PATHS)
        if name == "read":
            args = {"path": path}
            if self.r.random() < 0.3:
                args.update(offset=self.r.randint(1, 400), limit=self.r.choice((50, 100, 200)))
        elif name == "bash":
            args = {"command": self.r.choice(COMMANDS)}
            if self.r.random() < 0.2:
                args["timeout"] = self.r.choice((60, 120, 600))
        elif name == "edit":
            args = {"path": path, "oldText": self.code(1, 4), "newText": self.plant(self.code(1, 5))}
        elif name == "grep":
            args = {"pattern": self.r.choice(("fn project", "RawValue", "TODO", "window_id", "seq")),
                    "path": "src/"}
            if self.r.random() < 0.4:
                args["ignoreCase"] = True
        else:
            args = {"path": path, "content": self.plant(self.code(5, 40))}
        return {"type": "toolCall", "id": self.call_id(), "name": name, "arguments": args}

    def assistant(self, n_calls):
        content = []
        if self.r.random() < 0.55:
            content.append({"type": "thinking", "thinking": self.prose(2, 12), "thinkingSignature": self.b64(64, 360)})
        if self.r.random() < 0.8:
            content.append({"type": "text", "text": self.markdown(1, 10)})
        calls = [self.tool_call() for _ in range(n_calls)]
        content.extend(calls)
        if self.r.random() < self.a.empty_rate:
            content, calls = self.r.choice(([], [{"type": "text", "text": ""}])), []
        provider, api, model = self.model
        stop = "toolUse" if calls else self.r.choice(("stop",) * 8 + ("length", "aborted", "error"))
        msg = {"role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
               "usage": self.usage(), "stopReason": stop}
        if stop == "error":
            msg["errorMessage"] = "529 overloaded_error: Overloaded"
        if provider == "openai":
            msg["responseId"] = "resp_%032x" % self.r.getrandbits(128)
        self.message(msg)
        return calls

    def tool_output(self, call):
        name, args = call["name"], call["arguments"]
        if self.r.random() < self.a.huge_rate:
            return self.huge()
        if name == "read":
            return self.plant(self.code(5, 80))
        if name == "bash":
            return self.plant(self.log(3, 60))
        if name == "grep":
            lines = ["%s:%d:%s" % (self.r.choice(FILE_PATHS), self.r.randint(1, 900), self.r.choice(CODE_LINES))
                     for _ in range(self.r.randint(1, 30))]
            return self.plant("\n".join(lines))
        if name == "edit":
            return "Successfully replaced text in %s." % args["path"]
        return "Successfully wrote %d bytes to %s" % (len(args.get("content", "").encode()), args["path"])

    def tool_result(self, call):
        name = call["name"]
        error = self.r.random() < 0.06
        if error:
            text = self.r.choice(("ENOENT: no such file or directory, open '%s'" % call["arguments"].get("path", "x"),
                                  self.log(2, 10) + "\n\nCommand exited with code 101",
                                  "Could not find the exact text in the file. The old text must match exactly."))
        else:
            text = self.tool_output(call)
        content = [{"type": "text", "text": text}]
        msg = {"role": "toolResult", "toolCallId": call["id"], "toolName": name, "content": content, "isError": error}
        if name == "read" and not error and self.r.random() < self.a.image_rate:
            content[0]["text"] = "Read image file [image/png]"
            content.append(self.image())
        details = self.result_details(name, text)
        if details is not None:
            msg["details"] = details
        return self.message(msg)

    def result_details(self, name, text):
        if name == "edit":
            return {"diff": "- old line\n+ new line", "firstChangedLine": self.r.randint(1, 400)}
        if name in ("bash", "read") and (len(text) > 50_000 or self.r.random() < 0.03):
            total = max(len(text), 60_000) + self.r.randint(0, 90_000)
            details = {"truncation": {"truncated": True, "truncatedBy": self.r.choice(("bytes", "lines")),
                                      "totalLines": total // 40, "totalBytes": total, "outputLines": 2000,
                                      "outputBytes": 51200, "lastLinePartial": False, "firstLineExceedsLimit": False}}
            if name == "bash":
                details["fullOutputPath"] = "/tmp/pi-bash-%016x.log" % self.r.getrandbits(64)
            return details
        return None

    def orphan_result(self):
        call = {"id": "toolu_01orphan%014x" % self.r.getrandbits(56), "name": "edit", "arguments": {"path": "src/lib.rs"}}
        self.tool_result(call)

    def bash_execution(self):
        truncated = self.r.random() < 0.15
        msg = {"role": "bashExecution", "command": self.r.choice(COMMANDS), "output": self.plant(self.log(1, 40)),
               "exitCode": self.r.choice((0, 0, 0, 1, 101)), "cancelled": False, "truncated": truncated}
        if truncated:
            msg["fullOutputPath"] = "/tmp/pi-bash-%016x.log" % self.r.getrandbits(64)
        if self.r.random() < 0.2:
            msg["excludeFromContext"] = True
        self.message(msg)

    # ------------------------------------------------------------------ other entries
    def native_compaction(self):
        tail = self.w.path[len(self.w.path) * 3 // 4:] or [self.w.leaf]
        summary = ("## Goal\n" + self.prose(2, 5) + "\n\n## Progress\n### Done\n" +
                   "\n".join("- [x] " + self.sentence() for _ in range(self.r.randint(2, 8))) +
                   "\n\n## Next Steps\n1. " + self.sentence())
        self.w.append("compaction", {"summary": self.plant(summary), "firstKeptEntryId": self.r.choice(tail),
                                     "tokensBefore": self.r.randint(80_000, 190_000),
                                     "details": {"readFiles": self.r.sample(FILE_PATHS, 3),
                                                 "modifiedFiles": self.r.sample(FILE_PATHS, 2)}})

    def pi_context_reset(self):
        """A wipe_memory reset, appended in the order pi-context writes it."""
        checkpoint = self.w.new_id()
        self.w.append("compaction", {"summary": "", "firstKeptEntryId": checkpoint,
                                     "tokensBefore": self.r.randint(20_000, 190_000)}, eid=checkpoint)
        window = "pcw:%s:%08x" % (self.session_id[:8], self.r.getrandbits(32))
        self.windows_created.append(window)
        marker = self.w.append("custom", {"customType": "pi-context/reset-marker", "data": {"windowId": window}})
        self.w.markers[marker] = window
        boot = ("<pi_context_window>\nwindow_id: %s\n</pi_context_window>\n\n## Recent notes\n" % window +
                "\n".join("- `@project/%s.md` %s" % (self.r.choice(("design", "todo", "bugs")), self.sentence())
                          for _ in range(self.r.randint(2, 6))))
        self.w.append("custom_message", {"customType": "pi-context/boot", "content": boot, "display": False,
                                         "details": {"windowId": window}})
        self.w.append("custom_message", {"customType": "pi-context/continuation", "display": False,
                                         "content": "Fresh context window. Continue the task; recover details "
                                                    "with history_search and history_read."})

    def branch(self):
        """Go back to an earlier entry and continue there, maybe with a branch summary."""
        path = self.w.path
        if len(path) < 10:
            return
        old_leaf = self.w.leaf
        target = self.r.choice(path[max(0, len(path) - 60):-3])
        self.w.move_leaf(target)
        if self.r.random() < 0.5:
            self.w.append("branch_summary", {"fromId": old_leaf, "summary": self.plant(
                "The user explored an alternative approach: " + self.prose(2, 6))})

    def sidecar(self):
        """Occasional entries that are not part of a turn."""
        x = self.r.random()
        if x < 0.010:
            self.orphan_result()
        elif x < 0.035:
            self.bash_execution()
        elif x < 0.050:
            self.w.append("custom_message", {"customType": "todo-ext/reminder", "content": self.markdown(1, 3),
                                             "display": True})
        elif x < 0.070:
            self.w.append("custom", {"customType": self.r.choice(("pi-context/state", "my-ext/state")),
                                     "data": {"turn": self.turn}})
        elif x < 0.076:
            fields = {"targetId": self.r.choice(self.w.path)}
            if self.r.random() < 0.8:
                fields["label"] = "checkpoint %d %s" % (self.turn, self.r.choice(("✅", "wip", "前")))
            self.w.append("label", fields)
        elif x < 0.078:
            self.w.append("session_info", {"name": "Refactor history search — " + self.r.choice(UNICODE_SNIPPETS)})
        elif x < 0.084:
            self.model = self.r.choice(MODELS)
            self.w.append("model_change", {"provider": self.model[0], "modelId": self.model[2]})
        elif x < 0.088:
            self.w.append("thinking_level_change", {"thinkingLevel": self.r.choice(("off", "low", "medium", "high"))})

    # ------------------------------------------------------------------ driver
    def turn_once(self):
        self.turn += 1
        self.user()
        for _ in range(self.r.randint(1, 7)):
            n = self.r.choice((0, 1, 1, 1, 2, 3)) if self.r.random() < 0.85 else 0
            calls = self.assistant(n)
            pending = calls and self.r.random() < self.a.pending_rate
            for call in calls[:-1] if pending else calls:
                self.tool_result(call)
            if calls and self.r.random() < self.a.duplicate_rate:
                self.tool_result(calls[0])
            if not calls or pending:
                break
        self.sidecar()
        if self.r.random() < self.a.compaction_rate:
            self.native_compaction()
        if self.r.random() < self.a.reset_rate:
            self.pi_context_reset()
        if self.r.random() < self.a.branch_rate:
            self.branch()

    def run(self):
        self.w.header(self.session_id, self.a.cwd)
        self.w.append("model_change", {"provider": self.model[0], "modelId": self.model[2]})
        self.w.append("thinking_level_change", {"thinkingLevel": "medium"})
        while self.w.bytes < self.target:
            if self.w.bytes >= self.next_rare_at:
                self.rare_due = True
                self.next_rare_at += self.rare_step
            self.turn_once()
        return self.manifest()

    def manifest(self):
        w = self.w
        on_branch = set(w.path)
        root_window = "pcw:%s:root" % self.session_id[:8]
        return {
            "generator": "scripts/gen-session.py",
            "seed": self.a.seed,
            "size_mb": self.a.size_mb,
            "session_id": self.session_id,
            "bytes": w.bytes,
            "lines": w.lines,
            "entries": w.entries,
            "leaf_id": w.leaf,
            "branch_entries": len(w.path),
            "max_seq": w.max_seq,
            "turns": self.turn,
            "windows": [root_window] + [w.markers[e] for e in w.path if e in w.markers],
            "windows_created": self.windows_created,
            "needles": {
                role: {"word": word, "lines": w.needle_lines[word],
                       "entries_on_branch": len(w.needle_ids[word] & on_branch)}
                for role, word in (("rare", RARE_NEEDLE), ("common", COMMON_NEEDLE))
            },
            "counts": dict(sorted(w.counts.items())),
        }


class RecordWriter(SessionWriter):
    """Writes another harness's records (no Pi tree bookkeeping), counting needle lines."""

    def record(self, obj):
        self.advance(0.2, 8.0)
        self._write(obj)
        self.entries += 1


class HarnessGenerator(Generator):
    """The text and tool-output helpers of the Pi generator, for another harness's records."""

    def __init__(self, args, out):
        super().__init__(args, out)
        self.w = RecordWriter(out, self.r, [RARE_NEEDLE, COMMON_NEEDLE])

    def run(self):
        self.start()
        while self.w.bytes < self.target:
            if self.w.bytes >= self.next_rare_at:
                self.rare_due = True
                self.next_rare_at += self.rare_step
            self.turn += 1
            self.turn_once()
        return self.harness_manifest()

    def harness_manifest(self):
        w = self.w
        return {
            "generator": "scripts/gen-session.py",
            "harness": self.a.harness,
            "seed": self.a.seed,
            "size_mb": self.a.size_mb,
            "session_id": self.session_id,
            "bytes": w.bytes,
            "lines": w.lines,
            "records": w.entries,
            "turns": self.turn,
            "needles": {
                role: {"word": word, "lines": w.needle_lines[word]}
                for role, word in (("rare", RARE_NEEDLE), ("common", COMMON_NEEDLE))
            },
        }

    def call_output(self, call):
        if self.r.random() < 0.06:
            return self.log(2, 10) + "\n\nCommand exited with code 1", True
        return self.tool_output(call), False


class ClaudeGenerator(HarnessGenerator):
    """A Claude Code transcript: one record per content block, a uuid/parentUuid tree."""

    def start(self):
        self.path = []
        self.w.record({"type": "summary", "summary": self.sentence(), "leafUuid": str(self.uuid())})

    def uuid(self):
        return uuid.UUID(int=self.r.getrandbits(128), version=4)

    def base(self, kind, extra):
        uid = str(self.uuid())
        obj = {"parentUuid": self.path[-1] if self.path else None, "isSidechain": False,
               "userType": "external", "cwd": self.a.cwd, "sessionId": self.session_id,
               "version": "2.0.14", "gitBranch": "main", "type": kind}
        obj.update(extra)
        obj["uuid"] = uid
        obj["timestamp"] = self.w.iso()
        self.w.record(obj)
        self.path.append(uid)
        return uid

    def assistant_record(self, block):
        provider, api, model = self.model
        self.base("assistant", {"message": {
            "id": "msg_%024x" % self.r.getrandbits(96), "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [block], "stop_reason": None,
            "usage": {"input_tokens": self.r.randint(5, 4000), "output_tokens": self.r.randint(5, 900)}},
            "requestId": "req_%024x" % self.r.getrandbits(96)})

    def turn_once(self):
        if self.r.random() < 0.05:
            self.w.record({"type": "file-history-snapshot", "messageId": str(self.uuid()),
                           "snapshot": {"trackedFileBackups": {}, "timestamp": self.w.iso()},
                           "isSnapshotUpdate": False})
        if len(self.path) > 4 and self.r.random() < self.a.branch_rate:
            del self.path[self.r.randrange(1, len(self.path)):]
        if self.path and self.r.random() < self.a.compaction_rate:
            self.compaction()
        self.base("user", {"message": {"role": "user", "content": self.plant(self.markdown(1, 4))}})
        for _ in range(self.r.randint(1, 4)):
            if self.r.random() < 0.55:
                self.assistant_record({"type": "thinking", "thinking": self.prose(2, 12),
                                       "signature": self.b64(64, 360)})
            if self.r.random() < 0.8:
                self.assistant_record({"type": "text", "text": self.plant(self.markdown(1, 8))})
            calls = [self.tool_call() for _ in range(self.r.choice((0, 1, 1, 1, 2)))]
            for call in calls:
                call["use_id"] = "toolu_%024x" % self.r.getrandbits(96)
                self.assistant_record({"type": "tool_use", "id": call["use_id"],
                                       "name": call["name"].capitalize(), "input": call["arguments"]})
            for call in calls:
                text, error = self.call_output(call)
                block = {"tool_use_id": call["use_id"], "type": "tool_result", "content": text}
                if error:
                    block["is_error"] = True
                self.base("user", {"message": {"role": "user", "content": [block]},
                                   "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False}})
            if not calls:
                break

    def compaction(self):
        logical = self.path[-1]
        self.path = []
        self.base("system", {"subtype": "compact_boundary", "content": "Conversation compacted",
                             "logicalParentUuid": logical, "level": "info",
                             "compactMetadata": {"trigger": "auto", "preTokens": self.r.randint(80000, 160000)}})
        self.base("user", {"message": {"role": "user", "content": "This session is being continued from a "
                                       "previous conversation. Summary: " + self.plant(self.prose(4, 14))},
                           "isCompactSummary": True, "isVisibleInTranscriptOnly": True})


class CodexGenerator(HarnessGenerator):
    """A Codex rollout: linear `{timestamp, type, payload}` items, turns repeated as events."""

    def item(self, kind, payload):
        self.w.record({"timestamp": self.w.iso(), "type": kind, "payload": payload})

    def message(self, role, text):
        part = "output_text" if role == "assistant" else "input_text"
        self.item("response_item", {"type": "message", "role": role, "content": [{"type": part, "text": text}]})

    def start(self):
        self.item("session_meta", {"id": self.session_id, "timestamp": self.w.iso(), "cwd": self.a.cwd,
                                   "originator": "codex_cli_rs", "cli_version": "0.58.0", "source": "cli",
                                   "model_provider": "openai", "git": {"branch": "main"}})
        self.message("developer", "<permissions instructions>\n" + self.prose(3, 8) + "\n</permissions instructions>")
        self.message("user", "# AGENTS.md instructions for %s\n\n<INSTRUCTIONS>\n%s\n</INSTRUCTIONS>"
                     % (self.a.cwd, self.markdown(2, 6)))
        self.message("user", "<environment_context>\n  <cwd>%s</cwd>\n  <shell>bash</shell>\n</environment_context>"
                     % self.a.cwd)

    def turn_once(self):
        self.item("turn_context", {"cwd": self.a.cwd, "approval_policy": "on-request",
                                   "sandbox_policy": {"type": "workspace-write"}, "model": "gpt-5-codex"})
        prompt = self.plant(self.markdown(1, 4))
        self.message("user", prompt)
        self.item("event_msg", {"type": "user_message", "message": prompt, "images": []})
        for _ in range(self.r.randint(1, 4)):
            self.item("response_item", {"type": "reasoning", "summary": [
                {"type": "summary_text", "text": "**" + self.sentence() + "**"}],
                "content": None, "encrypted_content": self.b64(200, 1600)})
            calls = [self.tool_call() for _ in range(self.r.choice((0, 1, 1, 1, 2)))]
            for call in calls:
                call_id = "call_%024x" % self.r.getrandbits(96)
                if call["name"] == "edit" and self.r.random() < 0.5:
                    patch = "*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s\n*** End Patch\n" % (
                        call["arguments"]["path"], call["arguments"]["oldText"], call["arguments"]["newText"])
                    self.item("response_item", {"type": "custom_tool_call", "status": "completed",
                                                "call_id": call_id, "name": "apply_patch", "input": patch})
                    self.item("response_item", {"type": "custom_tool_call_output", "call_id": call_id,
                                                "output": "Success. Updated the following files:\nM %s\n"
                                                % call["arguments"]["path"]})
                    continue
                arguments = json.dumps({"command": ["bash", "-lc", call["arguments"].get("command", "cat x")],
                                        "workdir": self.a.cwd}, separators=(",", ":"), ensure_ascii=False)
                self.item("response_item", {"type": "function_call", "name": "shell", "arguments": arguments,
                                            "call_id": call_id})
                text, _ = self.call_output(call)
                self.item("response_item", {"type": "function_call_output", "call_id": call_id, "output": text})
                self.item("event_msg", {"type": "token_count", "info": {"total_token_usage": {
                    "input_tokens": self.r.randint(1000, 90000)}}, "rate_limits": None})
            if not calls:
                break
        answer = self.plant(self.markdown(1, 8))
        self.message("assistant", answer)
        self.item("event_msg", {"type": "agent_message", "message": answer})
        if self.r.random() < self.a.compaction_rate:
            self.item("compacted", {"message": self.plant(self.prose(4, 14)), "replacement_history": []})


class GeminiGenerator(HarnessGenerator):
    """A Gemini CLI chat (JSONL): a header, `$set` patches, user and gemini messages, each gemini
    message written again under its id once its tool calls and their results are known, the
    results repeated as a user message's `functionResponse` parts, compressions' state snapshots,
    `info` notices and `$rewindTo` rewinds."""

    TOOLS = {"read": "read_file", "bash": "run_shell_command", "edit": "replace", "grep": "grep_search",
             "write": "write_file"}

    def uuid(self):
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))

    def start(self):
        self.users = []  # ids of the user prompts on the current conversation
        self.w.record({"sessionId": self.session_id, "projectHash": "%064x" % self.r.getrandbits(256),
                       "startTime": self.w.iso(), "lastUpdated": self.w.iso(), "kind": "main",
                       "directories": [self.a.cwd]})
        context = ("<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
                   "My operating system is: linux\n- **Workspace Directories:**\n  - %s\n</session_context>"
                   % self.a.cwd)
        self.w.record({"$set": {"messages": [{"id": "%032x" % self.r.getrandbits(128), "timestamp": self.w.iso(),
                                              "type": "user", "content": [{"text": context}]}],
                                "lastUpdated": self.w.iso()}})

    def touched(self):
        self.w.record({"$set": {"lastUpdated": self.w.iso()}})

    def user(self, parts):
        uid = self.uuid()
        self.w.record({"id": uid, "timestamp": self.w.iso(), "type": "user", "content": parts})
        return uid

    def gemini(self, mid, text, thoughts, calls=None):
        record = {"id": mid, "timestamp": self.w.iso(), "type": "gemini", "content": text, "thoughts": thoughts,
                  "tokens": {"input": self.r.randint(200, 90000), "output": self.r.randint(5, 900), "cached": 0,
                             "thoughts": 0, "tool": 0, "total": 0}, "model": "gemini-2.5-pro"}
        if calls is not None:
            record["toolCalls"] = calls
        self.w.record(record)

    def turn_once(self):
        if len(self.users) > 3 and self.r.random() < self.a.branch_rate:
            back = len(self.users) - self.r.randint(1, 3)  # /rewind goes back a few prompts
            self.w.record({"$rewindTo": self.users[back]})
            del self.users[back:]
        if self.users and self.r.random() < self.a.compaction_rate:
            self.user([{"text": "<state_snapshot>\n" + self.plant(self.prose(4, 14)) + "\n</state_snapshot>"}])
        if self.r.random() < 0.03:
            self.w.record({"id": self.uuid(), "timestamp": self.w.iso(), "type": "info",
                           "content": "Switched to fallback model. " + self.sentence()})
        self.users.append(self.user([{"text": self.plant(self.markdown(1, 4))}]))
        self.touched()
        for _ in range(self.r.randint(1, 4)):
            mid = self.uuid()
            thoughts = [{"subject": self.sentence(), "description": self.prose(1, 6), "timestamp": self.w.iso()}
                        for _ in range(self.r.choice((0, 0, 1, 2)))]
            text = self.plant(self.markdown(1, 8)) if self.r.random() < 0.8 else ""
            self.gemini(mid, text, thoughts)
            calls = [self.tool_call() for _ in range(self.r.choice((0, 1, 1, 1, 2)))]
            if not calls:
                self.touched()
                break
            records, responses = [], []
            for call in calls:
                name = self.TOOLS[call["name"]]
                call_id = "%s__call_%016x" % (name, self.r.getrandbits(64))
                text_out, error = self.call_output(call)
                response = {"functionResponse": {"id": call_id, "name": name,
                                                 "response": {"error" if error else "output": text_out}}}
                responses.append(response)
                records.append({"id": call_id, "name": name, "args": call["arguments"], "result": [response],
                                "status": "error" if error else "success", "timestamp": self.w.iso(),
                                "resultDisplay": text_out[:200], "displayName": name,
                                "renderOutputAsMarkdown": name == "read_file"})
            self.gemini(mid, text, thoughts, records)
            self.user(responses)
            self.touched()
        if self.r.random() < 0.01:
            self.w.record({"$set": {"summary": self.sentence()}})


class CopilotGenerator(HarnessGenerator):
    """A GitHub Copilot CLI `events.jsonl`: `{type, data, id, timestamp, parentId}` events, each
    chained to the one before it; turns with usage records, tool executions, `task` subagents
    whose events carry their `agentId`, compactions with their summaries."""

    TOOLS = {"read": "view", "bash": "bash", "edit": "edit", "grep": "grep", "write": "create"}

    def uuid(self):
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))

    def event(self, kind, data, agent=None):
        eid = self.uuid()
        obj = {"type": kind, "data": data}
        if agent:
            obj["agentId"] = agent
        obj.update({"id": eid, "timestamp": self.w.iso(), "parentId": self.last})
        self.w.record(obj)
        self.last = eid
        return eid

    def start(self):
        self.last = None
        self.event("session.start", {"sessionId": self.session_id, "version": 1, "producer": "copilot-agent",
                                     "copilotVersion": "1.0.102", "startTime": self.w.iso(),
                                     "selectedModel": "claude-sonnet-4.5", "context": {"cwd": self.a.cwd}})

    def user_message(self, text, agent=None, source=None):
        data = {"content": text, "transformedContent": "<current_datetime>%s</current_datetime>\n\n%s"
                % (self.w.iso(), text), "messageId": self.uuid(), "interactionId": self.uuid(), "turnId": "0"}
        if source:
            data["source"] = source
        self.event("user.message", data, agent)

    def usage(self, agent):
        self.event("session.usage_record", {"usage": {"model": "claude-sonnet-4.5", "inputTokens": self.r.randint(200, 90000),
                                                      "outputTokens": self.r.randint(5, 900), "cacheReadTokens": 0,
                                                      "duration": self.r.randint(200, 9000)}}, agent)

    def agent_turns(self, agent=None, depth=0):
        for turn in range(self.r.randint(1, 4)):
            self.event("assistant.turn_start", {"turnId": str(turn), "interactionId": self.uuid()}, agent)
            self.usage(agent)
            calls = [self.tool_call() for _ in range(self.r.choice((0, 1, 1, 1, 2)))]
            requests = []
            for call in calls:
                call["call_id"] = "toolu_%024x" % self.r.getrandbits(96)
                call["tool"] = self.TOOLS[call["name"]]
                if depth == 0 and self.r.random() < self.a.subagent_rate:
                    call["tool"] = "task"
                    call["arguments"] = {"description": self.sentence(), "prompt": self.plant(self.prose(1, 4)),
                                         "agent_type": "general-purpose"}
                requests.append({"toolCallId": call["call_id"], "name": call["tool"], "arguments": call["arguments"],
                                 "type": "function", "intentionSummary": self.sentence()})
            data = {"messageId": self.uuid(), "model": "claude-sonnet-4.5",
                    "content": self.plant(self.markdown(1, 8)) if self.r.random() < 0.8 or not calls else "",
                    "toolRequests": requests, "turnId": str(turn)}
            if self.r.random() < 0.4:
                data["reasoningText"] = self.prose(2, 10)
            self.event("assistant.message", data, agent)
            for call in calls:
                self.event("tool.execution_start", {"toolCallId": call["call_id"], "toolName": call["tool"],
                                                    "arguments": call["arguments"], "turnId": str(turn)}, agent)
                if call["tool"] == "task":
                    text, error = self.subagent(call), False
                else:
                    text, error = self.call_output(call)
                done = {"toolCallId": call["call_id"], "model": "claude-sonnet-4.5", "turnId": str(turn),
                        "success": not error}
                if error:
                    done["error"] = {"message": text, "code": "failure"}
                else:
                    done["result"] = {"content": text}
                self.event("tool.execution_complete", done, agent)
            self.event("assistant.turn_end", {"turnId": str(turn)}, agent)
            if not calls:
                break

    def subagent(self, call):
        """A `task` call's subagent: its events under its own agentId; returns its report."""
        agent = self.uuid()
        self.event("subagent.started", {"toolCallId": call["call_id"], "agentName": "general-purpose",
                                        "agentDisplayName": "task", "agentDescription": call["arguments"]["description"],
                                        "model": "claude-sonnet-4.5", "executionMode": "sync"}, agent)
        self.user_message(call["arguments"]["prompt"], agent, "agent-" + self.session_id)
        self.agent_turns(agent, depth=1)
        report = self.plant(self.markdown(1, 5))
        self.event("subagent.completed", {"toolCallId": call["call_id"], "agentName": "general-purpose"}, agent)
        return report

    def turn_once(self):
        if self.r.random() < self.a.compaction_rate:
            self.event("session.compaction_start", {})
            self.event("session.compaction_complete", {"success": True, "outcome": "applied",
                                                       "summaryContent": self.plant(self.prose(4, 14)),
                                                       "trigger": "auto", "checkpointNumber": self.turn})
        self.user_message(self.plant(self.markdown(1, 4)))
        self.agent_turns()


class CursorGenerator(HarnessGenerator):
    """A Cursor agent CLI transcript: linear `{role, message: {content}}` lines with
    Anthropic-style blocks, no ids, no times, no cwd; `turn_ended` after each turn; tool results
    (with the ids of their calls) only where the build writes them, here about half the calls."""

    TOOLS = {"read": "Read", "bash": "Shell", "edit": "StrReplace", "grep": "Grep", "write": "Write"}

    def line(self, role, content):
        self.w.record({"role": role, "message": {"content": content}})

    def start(self):
        pass

    def turn_once(self):
        self.line("user", [{"type": "text", "text": "<user_query>\n" + self.plant(self.markdown(1, 4)) + "\n</user_query>"}])
        for _ in range(self.r.randint(1, 4)):
            blocks = []
            if self.r.random() < 0.8:
                blocks.append({"type": "text", "text": self.plant(self.markdown(1, 8))})
            calls = [self.tool_call() for _ in range(self.r.choice((0, 1, 1, 1, 2)))]
            results = []
            for call in calls:
                block = {"type": "tool_use", "name": self.TOOLS[call["name"]], "input": call["arguments"]}
                if self.r.random() < 0.5:
                    block["id"] = "toolu_%024x" % self.r.getrandbits(96)
                    text, error = self.call_output(call)
                    result = {"type": "tool_result", "tool_use_id": block["id"], "content": text}
                    if error:
                        result["is_error"] = True
                    results.append(result)
                blocks.append(block)
            if blocks:
                self.line("assistant", blocks)
            # One result a line: a line of two results cuts the branch in pi-context's Cursor
            # reader (both entries take the line's synthetic id; reported, issue 41).
            for result in results:
                self.line("user", [result])
            if not calls:
                break
        self.w.record({"type": "turn_ended", "status": "success"})


GENERATORS = {"pi": Generator, "claude": ClaudeGenerator, "codex": CodexGenerator, "gemini": GeminiGenerator,
              "copilot": CopilotGenerator, "cursor": CursorGenerator}
HARNESS_NAMES = ("claude", "codex", "gemini", "copilot", "cursor")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size-mb", type=float, default=10, help="stop once the file reaches this size (default 10)")
    p.add_argument("--harness", choices=("pi",) + HARNESS_NAMES, default="pi",
                   help="whose transcript format to write (default pi)")
    p.add_argument("--out", required=True, help="the JSONL file to write")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--manifest", help="also write a JSON manifest (leaf, counts, windows, needles)")
    p.add_argument("--cwd", default="/home/dev/проекты/pi-context")
    p.add_argument("--common-rate", type=float, default=0.08,
                   help=f"chance that a piece of searchable text gets {COMMON_NEEDLE!r}")
    p.add_argument("--rare-every-mb", type=float, default=4,
                   help=f"plant {RARE_NEEDLE!r} once per this many MB (the first at half of it)")
    p.add_argument("--branch-rate", type=float, default=0.015, help="chance per turn of going back to an earlier entry")
    p.add_argument("--reset-rate", type=float, default=0.02, help="chance per turn of a pi-context reset")
    p.add_argument("--compaction-rate", type=float, default=0.015, help="chance per turn of a native compaction")
    p.add_argument("--huge-rate", type=float, default=0.004, help="chance that a tool output is 40k-200k chars")
    p.add_argument("--unicode-rate", type=float, default=0.25)
    p.add_argument("--image-rate", type=float, default=0.02)
    p.add_argument("--pending-rate", type=float, default=0.01, help="chance that a call gets no result")
    p.add_argument("--subagent-rate", type=float, default=0.02,
                   help="chance that a Copilot tool call is a `task` subagent")
    p.add_argument("--duplicate-rate", type=float, default=0.005, help="chance of a second result for a call")
    p.add_argument("--empty-rate", type=float, default=0.01, help="chance of an empty assistant message")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    started = time.monotonic()
    with open(args.out, "wb", buffering=1 << 20) as out:
        generator = GENERATORS[args.harness]
        manifest = generator(args, out).run()
    if args.manifest:
        with open(args.manifest, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2, ensure_ascii=False)
            f.write("\n")
    print("wrote %s: %.1f MB, %d lines, %.1fs" % (
        args.out, manifest["bytes"] / 1048576, manifest["lines"], time.monotonic() - started), file=sys.stderr)


if __name__ == "__main__":
    main()
