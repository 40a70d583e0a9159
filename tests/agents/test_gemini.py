"""pi-context inside the real Gemini CLI (0.61.0, pinned in scripts/setup-agents): after
`pi-context setup gemini` in the Lab's HOME, what Gemini sends to the model server, and what its
own chats then read as (docs/agents.md, docs/harnesses.md):

- the boot block in the first request (Gemini prepends a `SessionStart` hook's context to the
  prompt in a headless run, `<` and `>` escaped); the recall hint with a prompt that continues
  an earlier session of another agent, none with an unrelated prompt, not twice;
- the chat Gemini wrote during the test, read by `history` (the boot a context event, the prompt
  the user's) and found by `sessions search`; the pushed blocks never found as anyone's words;
- an MCP tool round trip (`mcp_pi-context_notes_write`);
- nothing is sent anywhere but 127.0.0.1 (strace);
- `setup` on the settings.json Gemini runs with: merged, idempotent to the byte, removed; with a
  person's comments in it: kept, and the file read by Gemini.

    scripts/test-agents -k Gemini
"""

from __future__ import annotations

import json
import shutil
import unittest
from typing import Any

from lab import Lab, Run, last_user_text
from model_server import Reply, Rule
from test_hooks import CLAUDE_PLANTED, CLAUDE_RELATED, CLAUDE_RELATED_AGAIN, UNRELATED, plant_codex_session

BOOT = "&lt;pi_context_boot&gt;"
HINT = "&lt;recall_hint&gt;"


def texts(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every text part of a Gemini API request, in order."""
    return [
        (content.get("role", ""), part["text"])
        for content in request["body"].get("contents", [])
        for part in content.get("parts", [])
        if isinstance(part.get("text"), str)
    ]


def holding(request: dict[str, Any], marker: str) -> list[str]:
    return [text for _, text in texts(request) if marker in text]


def gemini(lab: Lab, prompt: str, *args: str) -> Run:
    return lab.gemini(prompt, *args, "-o", "json", "-y").check()


def session_of(run: Run) -> str:
    return json.loads(run.stdout)["session_id"]


class GeminiHooksTest(unittest.TestCase):
    def setUp(self):
        self.lab = Lab()
        self.addCleanup(self.lab.close)

    def test_the_boot_then_one_hint_reach_the_model_and_the_chat_reads_back(self):
        planted = plant_codex_session(self.lab, *CLAUDE_PLANTED)
        out = self.lab.setup("gemini")
        self.assertIn("settings.json", out)
        self.lab.script([], Reply("OK."))
        first = gemini(self.lab, UNRELATED)
        session = session_of(first)
        boots = holding(first.requests[0], BOOT)
        self.assertEqual(len(boots), 1, texts(first.requests[0]))
        self.assertIn(f"This session's id: {session}", boots[0])
        self.assertIn("mcp_pi-context_history_read", boots[0], "Gemini's names for the tools")
        self.assertEqual(holding(first.requests[0], HINT), [], "no hint with an unrelated prompt")

        related = gemini(self.lab, CLAUDE_RELATED, "--resume", session)
        hints = holding(related.requests[0], HINT)
        self.assertEqual(len(hints), 1, texts(related.requests[0])[-3:])
        self.assertIn(f'mcp_pi-context_history_read {{"session_id":"{planted}"', hints[0])
        self.assertIn("CMYK jpegs", hints[0], "the earlier session's own words, quoted")
        again = gemini(self.lab, CLAUDE_RELATED_AGAIN, "--resume", session)
        # Not pushed twice. Gemini CLI 0.61 re-sends no earlier user turn after a headless
        # `--resume` (its loader drops them: docs/agents.md), so the first hint is gone too.
        self.assertEqual(holding(again.requests[0], HINT), [])
        prompt_run = next(h for h in self.lab.status("gemini")["hooks"] if h["event"] == "prompt")["last_run"]
        self.assertEqual(prompt_run["detail"], "no hint: already_hinted")

        # The chat Gemini wrote: the boot and the hint are context, the prompts the user's.
        chat = next(p for p in again.transcripts if session[:8] in p.name)
        listed = json.loads(self.lab.pi_context(
            "history", "list", "--session", str(chat), "--role", "user", "--role", "context", "--json").stdout)
        users = [i["content"] for i in listed["items"] if i["role"] == "user"]
        self.assertEqual(users, [UNRELATED, CLAUDE_RELATED, CLAUDE_RELATED_AGAIN])
        contexts = [i["content"] for i in listed["items"] if i["role"] == "context"]
        self.assertTrue(any(BOOT in c for c in contexts), contexts)
        # Searched: the chat by its prompt; "jpegs" is in the hint only, so in the planted session alone.
        found = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "dark mode toggle").stdout)
        self.assertEqual(found["sessions"][0]["session_id"], session, found)
        self.assertEqual(found["sessions"][0]["harness"], "gemini")
        self.assertEqual(found["sessions"][0]["hits"][0]["role"], "user")
        self.assertIn("dark mode toggle", found["sessions"][0]["hits"][0]["content"])
        jpegs = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "jpegs").stdout)
        self.assertEqual([s["session_id"] for s in jpegs["sessions"]], [planted])
        # Counted from Gemini's chat: the boot, the hint.
        stats = json.loads(self.lab.pi_context("stats", "--since", "all", "--json").stdout)
        agent = next(a for a in stats["agents"] if a["agent"] == "gemini")
        self.assertEqual((agent["sessions"], agent["boots"], agent["hints"]), (1, 1, 1), agent)

    def test_an_mcp_tool_round_trip(self):
        self.lab.setup("gemini")
        call = {"name": "mcp_pi-context_notes_write", "input": {"address": "gemini-note.md", "content": "from gemini"}}
        self.lab.script([Rule(Reply("Writing.", [call]), last_user="remember")], Reply("Noted."))
        run = gemini(self.lab, "remember this for later")
        self.assertIn('"outcome":"created"', last_user_text(run.requests[1]))
        stats = json.loads(self.lab.pi_context("stats", "--since", "all", "--json").stdout)
        agent = next(a for a in stats["agents"] if a["agent"] == "gemini")
        self.assertEqual(agent["tool_calls"], {"notes_write": 1}, agent)


class GeminiOfflineTest(unittest.TestCase):
    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_gemini(self):
        with Lab(trace_connects=True) as lab:
            plant_codex_session(lab, *CLAUDE_PLANTED)
            lab.setup("gemini")
            call = {"name": "mcp_pi-context_notes_write", "input": {"address": "n.md", "content": "x"}}
            lab.script([Rule(Reply("Writing.", [call]), last_user="thumbnailer")], Reply("Noted."))
            run = gemini(lab, CLAUDE_RELATED)
            self.assertTrue(holding(run.requests[0], HINT) and holding(run.requests[0], BOOT))
            self.assertIn('"outcome":"created"', last_user_text(run.requests[1]))
            self.assertTrue(run.connects, "strace saw no connect() at all")
            self.assertEqual(set(run.connects), {f"127.0.0.1:{lab.server.port}"})


class GeminiSetupOnItsFilesTest(unittest.TestCase):
    def test_settings_gemini_runs_with(self):
        with Lab() as lab:
            settings = lab.gemini_dir / "settings.json"
            lab.script([], Reply("Hi."))
            gemini(lab, "hello")  # Gemini has read (and may have rewritten) its settings
            before = settings.read_bytes()
            lab.setup("gemini")
            after = settings.read_bytes()
            self.assertIn("already set up", lab.setup("gemini"))
            self.assertEqual(settings.read_bytes(), after)
            gemini(lab, "hello again")
            self.assertIn(b"BeforeAgent", settings.read_bytes())
            lab.setup("gemini", "--remove")
            self.assertEqual(json.loads(settings.read_bytes()), json.loads(before))

    def test_settings_with_comments_keep_them_and_gemini_runs_the_hooks(self):
        """Gemini CLI reads comments in settings.json: the setup keeps a person's, Gemini reads
        the file the setup wrote (its boot reaches the model), and the removal gives the file
        back to the byte."""
        with Lab() as lab:
            settings = lab.gemini_dir / "settings.json"
            lab.script([], Reply("Hi."))
            gemini(lab, "hello")
            commented = "// my settings\n" + settings.read_text().replace("{", "{\n  /* mine */", 1)
            settings.write_text(commented)
            lab.setup("gemini")
            after = settings.read_text()
            self.assertIn("// my settings", after)
            self.assertIn("/* mine */", after)
            run = gemini(lab, "hello again")
            self.assertTrue(holding(run.requests[0], BOOT), texts(run.requests[0])[:3])
            self.assertEqual(settings.read_text(), after, "Gemini kept the file as the setup wrote it")
            lab.setup("gemini", "--remove")
            self.assertEqual(settings.read_text(), commented)


if __name__ == "__main__":
    unittest.main()
