"""pi-context inside the real OpenCode (1.18.33, pinned in scripts/setup-agents): after
`pi-context setup opencode` in the Lab's HOME (its XDG directories), what OpenCode sends to the
model server over Chat Completions, and what its own database then reads as (docs/agents.md,
"OpenCode"):

- the boot block folded into the request's system message, once, naming the session and the
  tools as OpenCode's model calls them (`pi-context_*`); the MCP tools in the request's tools;
  none in a subagent's (a task's child) session, none in OpenCode's request for a title;
- the recall hint in the prompt's user message when the prompt continues an earlier session (an
  OpenCode session written during the test, read from OpenCode's database), none with an
  unrelated prompt;
- the database OpenCode wrote: read by `history` (the hint a context event, the prompts the
  user's), searched by `sessions search`, the pushed hint never found as anyone's words;
- the compaction's request in the summary's request (`experimental.session.compacting`);
- an MCP tool round trip (`pi-context_notes_write`);
- a revert (`POST /session/:id/revert` of `opencode serve`): the reverted turn an abandoned
  branch, `--leaf` reads it; unreverted, it is the conversation again;
- nothing is sent anywhere but 127.0.0.1 (strace);
- `setup` on a configuration OpenCode runs with: merged, idempotent to the byte, removed.

    scripts/test-agents -k OpenCode
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import unittest
from typing import Any

from lab import Lab, Run
from model_server import Reply, Rule, chat_messages

BOOT = "pi_context_boot"
HINT = "recall_hint"
COMPACTION = "pi_context_compaction_request"

PLANTED = ("The thumbnailer crashes on CMYK jpegs during the nightly media import.",
           "Fixed: CMYK jpegs are converted to RGB before the thumbnailer decodes them.")
RELATED = "Are CMYK jpegs of the nightly media import still converted to RGB for the thumbnailer?"
UNRELATED = "Add a dark mode toggle to the settings screen."


def pushed(request: dict[str, Any], tag: str) -> list[tuple[str, str]]:
    """(role, block) of each `<tag>…</tag>` block in a request."""
    return [(role, block) for role, text in chat_messages(request)
            for block in re.findall(rf"<{tag}>.*?</{tag}>", text, re.S)]


def all_text(request: dict[str, Any]) -> str:
    return "\n".join(f"[{role}] {text}" for role, text in chat_messages(request))


def turn(run: Run) -> dict[str, Any]:
    """The run's first request of the conversation itself (OpenCode also asks for a title,
    without tools)."""
    return next(r for r in run.requests if r["body"].get("tools"))


def session_of(run: Run) -> str:
    return next(json.loads(line)["sessionID"] for line in run.stdout.splitlines() if '"sessionID"' in line)


def unquoted(text: str) -> str:
    """`opencode run` puts a message holding spaces in double quotes."""
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] == '"' else text


class OpenCodeTest(unittest.TestCase):
    def setUp(self):
        self.lab = Lab()
        self.addCleanup(self.lab.close)

    def opencode(self, *args: str) -> Run:
        return self.lab.opencode(*args).check()

    def test_the_boot_the_hint_and_the_tools_reach_the_model_and_its_database_reads_back(self):
        out = self.lab.setup("opencode")
        self.assertIn("opencode.json", out)
        self.assertIn("plugin/pi-context.js", out)

        # A first session: its boot in the system message, the tools under OpenCode's names.
        self.lab.script([], Reply(PLANTED[1]))
        first = self.opencode(PLANTED[0])
        planted = session_of(first)
        request = turn(first)
        boots = pushed(request, BOOT)
        self.assertEqual(len(boots), 1, all_text(request)[-3000:])
        role, boot = boots[0]
        self.assertEqual(role, "system")
        self.assertEqual(chat_messages(request)[0][0], "system", "folded into the one system message")
        self.assertEqual(sum(1 for r, _ in chat_messages(request) if r == "system"), 1)
        self.assertIn(f"This session's id: {planted}", boot)
        self.assertIn("pi-context_history_read", boot, "OpenCode's name for the tool")
        self.assertLessEqual(len(boot.encode()), 4096)
        tools = [t["function"]["name"] for t in request["body"]["tools"]]
        for tool in ("pi-context_history_read", "pi-context_sessions_search", "pi-context_notes_write"):
            self.assertIn(tool, tools)
        self.assertEqual(pushed(request, HINT), [])

        # Another session: no hint with an unrelated prompt; with a prompt that continues the
        # first session (read from OpenCode's database), the hint in the prompt's message.
        self.lab.script([], Reply("OK."))
        unrelated = self.opencode(UNRELATED)
        session = session_of(unrelated)
        self.assertNotEqual(session, planted)
        self.assertEqual(pushed(turn(unrelated), HINT), [], all_text(turn(unrelated))[-1500:])
        related = self.opencode("--session", session, RELATED)
        request = turn(related)
        hints = pushed(request, HINT)
        prompt_hook = next(h for h in self.lab.status("opencode")["hooks"] if h["event"] == "prompt")
        self.assertEqual(len(hints), 1, f"{prompt_hook['last_run']}\n{all_text(request)[-1500:]}")
        self.assertEqual(hints[0][0], "user")
        self.assertIn(f'pi-context_history_read {{"session_id":"{planted}"', hints[0][1])
        self.assertIn("thumbnailer crashes", hints[0][1], "the earlier session's own words, quoted")
        self.assertEqual(len(pushed(request, BOOT)), 1, "a new process boots again, once")
        start_hook = next(h for h in self.lab.status("opencode")["hooks"] if h["event"] == "session-start")
        self.assertEqual(start_hook["last_run"]["outcome"], "ok", start_hook)

        # OpenCode's database: the prompts are the user's, the hint a context event.
        listed = json.loads(self.lab.pi_context(
            "history", "list", "--session", session, "--role", "user", "--role", "context", "--json").stdout)
        users = [unquoted(i["content"]) for i in listed["items"] if i["role"] == "user"]
        self.assertEqual(users, [UNRELATED, RELATED], listed)
        contexts = [i["content"] for i in listed["items"] if i["role"] == "context"]
        self.assertTrue(any(f"<{HINT}>" in c for c in contexts), contexts)
        found = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "thumbnailer").stdout)
        self.assertEqual(found["sessions"][0]["session_id"], planted, found)
        self.assertEqual(found["sessions"][0]["harness"], "opencode")
        # "crashes" is in the first session and in the hint only: the hint is nobody's words.
        crashes = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "crashes").stdout)
        self.assertEqual([s["session_id"] for s in crashes["sessions"]], [planted])
        # Counted from OpenCode's database: the hint it kept; the boot lives in the system
        # prompt only, which OpenCode does not store.
        stats = json.loads(self.lab.pi_context("stats", "--since", "all", "--json").stdout)
        agent = next(a for a in stats["agents"] if a["agent"] == "opencode")
        self.assertEqual((agent["sessions"], agent["boots"], agent["hints"]), (2, 0, 1), agent)

    def test_the_boot_reaches_the_persons_session_only_not_a_subagents_nor_the_title(self):
        """The plugin's system transform sees every model request of OpenCode: a task's child
        session (a subagent) and OpenCode's request for a title get no boot; the person's own
        session gets it, once per request."""
        self.lab.setup("opencode")
        task = {"name": "task", "input": {"description": "Look around", "subagent_type": "general",
                                          "prompt": "SUBAGENT-TASK: say what you see."}}
        self.lab.script([Rule(Reply("I see a lab."), api="chat", last_user="SUBAGENT-TASK"),
                         Rule(Reply("Delegating.", [task]), api="chat", last_user="delegate this",
                              contains="todowrite", times=1)],
                        Reply("Done."))
        run = self.opencode("delegate this")

        def first_user(request):
            return next((text for role, text in chat_messages(request) if role == "user"), "")

        children = [r for r in run.requests if first_user(r).startswith("SUBAGENT-TASK")]
        titles = [r for r in run.requests if "title generator" in all_text(r)]
        own = [r for r in run.requests
               if r["body"].get("tools") and unquoted(first_user(r)).startswith("delegate this")]
        everything = [all_text(r)[:300] for r in run.requests]
        self.assertTrue(children, f"the task ran a child session: {everything}")
        self.assertTrue(titles, f"OpenCode asked for a title: {everything}")
        self.assertGreaterEqual(len(own), 2, f"the turn, then the task's result: {everything}")
        for request in children + titles:
            self.assertEqual(pushed(request, BOOT), [], all_text(request)[:1500])
        for request in own:
            self.assertEqual(len(pushed(request, BOOT)), 1, all_text(request)[-1500:])

    def test_the_compaction_is_asked_to_keep_the_task_state_and_the_session_id(self):
        self.lab.setup("opencode")
        # A model of 20,000 tokens whose first answer says it used 100,000: OpenCode compacts
        # the session before it goes on.
        config = json.loads(self.lab.opencode_env()["OPENCODE_CONFIG_CONTENT"])
        config["provider"]["lab"]["models"]["lab-model"]["limit"] = {"context": 20000, "output": 1000}
        env = {"OPENCODE_CONFIG_CONTENT": json.dumps(config)}
        self.lab.script([Rule(Reply("LAB-SUMMARY of the task."), api="chat", contains=COMPACTION),
                         Rule(Reply("Working on it.", input_tokens=100_000), api="chat", contains="todowrite", times=1)],
                        Reply("Next."))
        second = self.lab.opencode("start the long task", env=env).check()
        session = session_of(second)
        asked = [r for r in second.requests if COMPACTION in json.dumps(r["body"])]
        self.assertEqual(len(asked), 1, [all_text(r)[-800:] for r in second.requests])
        request = pushed(asked[0], COMPACTION)
        self.assertEqual(len(request), 1, all_text(asked[0])[-2000:])
        self.assertIn(session, request[0][1], "the session id, to reopen its history after")
        self.assertIn("pi-context_history_read", request[0][1])
        hook = next(h for h in self.lab.status("opencode")["hooks"] if h["event"] == "pre-compact")
        self.assertEqual(hook["last_run"]["outcome"], "ok", hook)
        # The summary OpenCode kept is a context event, nobody's words.
        listed = json.loads(self.lab.pi_context(
            "history", "list", "--session", session, "--role", "assistant", "--role", "context", "--json").stdout)
        summaries = [i for i in listed["items"] if "LAB-SUMMARY" in i.get("content", "")]
        self.assertEqual([i["role"] for i in summaries], ["context"], listed)

    def test_a_revert_leaves_the_reverted_turn_on_an_abandoned_branch(self):
        self.lab.script([], Reply("kept answer"))
        session = session_of(self.opencode("first kept prompt"))
        self.lab.script([], Reply("reverted answer about the narwhal"))
        self.opencode("--session", session, "second prompt about the narwhal")
        db = sqlite3.connect(self.lab.opencode_data / "opencode.db")
        try:
            users = [m for (m,) in db.execute(
                "SELECT id FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'user' "
                "ORDER BY time_created, id", (session,))]
            (last_part,) = db.execute("SELECT max(id) FROM part WHERE session_id = ?", (session,)).fetchone()
        finally:
            db.close()
        self.assertEqual(len(users), 2, users)

        def contents(*args: str) -> list[str]:
            listed = json.loads(self.lab.pi_context(
                "history", "list", "--session", session, "--role", "user", "--role", "assistant", "--json",
                *args).stdout)
            return [unquoted(i["content"]) for i in listed["items"]]

        def found(word: str) -> list[str]:
            out = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", word, check=False).stdout)
            return [s["session_id"] for s in out["sessions"]]

        with self.lab.opencode_server() as post:
            post(f"/session/{session}/revert", {"messageID": users[1]})
            self.assertEqual(contents(), ["first kept prompt", "kept answer"])
            self.assertEqual(found("narwhal"), [])
            self.assertEqual(contents("--leaf", last_part)[2:],
                             ["second prompt about the narwhal", "reverted answer about the narwhal"])
            post(f"/session/{session}/unrevert", {})
            self.assertEqual(found("narwhal"), [session])

    def test_an_mcp_tool_round_trip(self):
        self.lab.setup("opencode")
        call = {"name": "pi-context_notes_write",
                "input": {"address": "@project/lab-canary.md", "content": "lab canary 7f3a"}}
        self.lab.script([Rule(Reply("Writing.", [call]), api="chat", last_user="keep a note")], Reply("Noted."))
        run = self.opencode("please keep a note")
        with_tools = [r for r in run.requests if r["body"].get("tools")]
        self.assertGreaterEqual(len(with_tools), 2, run.stdout[-2000:])
        results = [text for role, text in chat_messages(with_tools[1]) if role == "tool"]
        self.assertTrue(any('"created"' in t for t in results), results)
        self.assertIn("lab canary 7f3a", self.lab.pi_context("notes", "read", "@project/lab-canary.md").stdout)
        stats = json.loads(self.lab.pi_context("stats", "--since", "all", "--json").stdout)
        agent = next(a for a in stats["agents"] if a["agent"] == "opencode")
        self.assertEqual(agent["tool_calls"], {"notes_write": 1}, agent)


class OpenCodeOfflineTest(unittest.TestCase):
    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_opencode(self):
        with Lab(trace_connects=True) as lab:
            lab.setup("opencode")
            lab.script([], Reply("OK."))
            run = lab.opencode("hello").check()
            self.assertEqual(len(pushed(turn(run), BOOT)), 1)
            self.assertTrue(run.connects, "strace saw no connect() at all")
            self.assertEqual(set(run.connects), {f"127.0.0.1:{lab.server.port}"})


class OpenCodeSetupOnItsFilesTest(unittest.TestCase):
    def test_a_configuration_opencode_runs_with(self):
        with Lab() as lab:
            config = lab.opencode_config / "opencode.json"
            mine = {"$schema": "https://opencode.ai/config.json", "theme": "tokyonight",
                    "mcp": {"other": {"type": "local", "command": ["other-server"], "enabled": False}}}
            config.write_text(json.dumps(mine, indent=2) + "\n")
            before = config.read_bytes()
            lab.setup("opencode")
            after = config.read_bytes()
            self.assertEqual(json.loads(after)["mcp"]["other"], mine["mcp"]["other"])
            self.assertIn("already set up", lab.setup("opencode"))
            self.assertEqual(config.read_bytes(), after)
            lab.script([], Reply("Hi."))
            run = lab.opencode("hello").check()
            self.assertEqual(len(pushed(turn(run), BOOT)), 1, "the plugin loaded beside the user's keys")
            lab.setup("opencode", "--remove")
            self.assertEqual(config.read_bytes(), before)
            self.assertFalse((lab.opencode_config / "plugin" / "pi-context.js").exists())


if __name__ == "__main__":
    unittest.main()
