"""pi-context inside the real GitHub Copilot CLI (1.0.102, pinned in scripts/setup-agents): after
`pi-context setup copilot` in the Lab's HOME, what Copilot sends to the model server over Chat
Completions (docs/agents.md, "GitHub Copilot CLI"):

- whether a hook's output reaches the model at all (Copilot's docs say no for `sessionStart` and
  `userPromptSubmitted`, its changelog says yes): the boot block is in the first request, and again
  at a resume (Copilot gives a session start's context afresh at each start);
- a transcript Copilot writes during the test is read (`history list`), searched (`sessions
  search`) and, in a later session whose prompt continues it, hinted;
- an MCP tool round trip under the name Copilot's model calls it by (`pi-context-notes_write`);
- `setup --remove` leaves Copilot's home as it found it.

    scripts/test-agents -k Copilot
"""

from __future__ import annotations

import json
import re
import unittest
from typing import Any

from lab import Lab, Run
from model_server import Reply, Rule, chat_messages

BOOT = "pi_context_boot"
HINT = "recall_hint"
ARGS = ("--allow-all-tools", "--output-format", "json")
SUMMARY_REQUEST = "Please create a detailed summary of the conversation so far"

PLANTED = ("The thumbnailer crashes on CMYK jpegs during the nightly media import.",
           "Fixed: CMYK jpegs are converted to RGB before the thumbnailer decodes them.")
# Copilot writes the prompt into its transcript after the prompt's hook ran: the prompt's own
# words are then new to the index, which weighs them most (docs/recall.md, "The hint"), so the
# continuing prompt uses the planted session's words.
RELATED = "Are CMYK jpegs of the nightly media import still converted to RGB for the thumbnailer?"
UNRELATED = "Add a dark mode toggle to the settings screen."


def pushed(request: dict[str, Any], tag: str) -> list[tuple[int, str, str]]:
    """(message index, role, block) of each `<tag>…</tag>` block in a request."""
    return [(i, role, block) for i, (role, text) in enumerate(chat_messages(request))
            for block in re.findall(rf"<{tag}>.*?</{tag}>", text, re.S)]


def all_text(request: dict[str, Any]) -> str:
    return "\n".join(f"[{role}] {text}" for role, text in chat_messages(request))


class CopilotTest(unittest.TestCase):
    def setUp(self):
        self.lab = Lab()
        self.addCleanup(self.lab.close)

    def copilot(self, prompt: str, *args: str) -> Run:
        return self.lab.copilot("-p", prompt, *args, *ARGS).check()

    def start(self, session_id: str, prompt: str) -> Run:
        return self.copilot(prompt, "--session-id", session_id)

    def test_hook_output_reaches_the_model_the_boot_at_every_start(self):
        self.lab.setup("copilot")
        self.lab.script([], Reply("Hello."))
        session = "00000000-0000-4000-8000-0000000000b1"
        first = self.start(session, "hello")
        boots = pushed(first.requests[0], BOOT)
        self.assertEqual(len(boots), 1, all_text(first.requests[0])[-3000:])
        _, role, boot = boots[0]
        self.assertEqual(role, "user", "a user message of its own")
        self.assertIn(f"This session's id: {session}", boot)
        self.assertIn("pi-context-history_read", boot, "Copilot's name for the MCP tool")
        self.assertLessEqual(len(boot.encode()), 4096)

        # Copilot does not keep a session start's context: a resume gets the boot again, once.
        resumed = self.copilot("and now?", f"--resume={session}")
        self.assertEqual(len(pushed(resumed.requests[0], BOOT)), 1, all_text(resumed.requests[0])[-3000:])
        start = next(h for h in self.lab.status("copilot")["hooks"] if h["event"] in ("session-start", "SessionStart", "sessionStart"))
        self.assertEqual(start["last_run"]["outcome"], "ok")
        self.assertTrue(start["last_run"]["detail"].startswith("boot"), start["last_run"])

    def test_a_transcript_it_writes_is_read_searched_and_hinted(self):
        planted = "00000000-0000-4000-8000-0000000000c1"
        self.lab.script([], Reply(PLANTED[1]))
        self.start(planted, PLANTED[0])
        transcript = self.lab.copilot_home / "session-state" / planted / "events.jsonl"
        self.assertTrue(transcript.is_file())

        listed = json.loads(self.lab.pi_context("history", "list", "--session", str(transcript), "--json").stdout)
        said = [(row["role"], row["content"]) for row in listed["items"]]
        self.assertEqual([r for r, _ in said], ["user", "assistant"], said)
        self.assertIn("CMYK jpegs", said[0][1])

        found = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "thumbnailer").stdout)
        self.assertEqual([(s["session_id"], s["harness"]) for s in found["sessions"]], [(planted, "copilot")])

        self.lab.setup("copilot")
        self.lab.script([], Reply("OK."))
        unrelated = self.start("00000000-0000-4000-8000-0000000000c2", UNRELATED)
        self.assertEqual(pushed(unrelated.requests[0], HINT), [], "no hint with an unrelated prompt")
        related = self.start("00000000-0000-4000-8000-0000000000c3", RELATED)
        request = related.requests[0]
        hints = pushed(request, HINT)
        prompt_hook = next(h for h in self.lab.status("copilot")["hooks"] if h["event"] == "prompt")
        self.assertEqual(len(hints), 1, f"{prompt_hook['last_run']}\n{all_text(request)[-1500:]}")
        index, role, hint = hints[0]
        self.assertEqual(role, "user")
        self.assertIn(RELATED, chat_messages(request)[index][1], "in the prompt's own message")
        self.assertIn(f'pi-context-history_read {{"session_id":"{planted}"', hint)
        self.assertIn("thumbnailer crashes", hint, "the earlier session's own words, quoted")

        # Copilot keeps the pushed blocks in its transcript (`hook.end`): nobody's words, never
        # found by a search ("crashes" is in the planted session and in the hint only).
        self.assertIn("thumbnailer crashes", (self.lab.copilot_home / "session-state" /
                      "00000000-0000-4000-8000-0000000000c3" / "events.jsonl").read_text())
        found = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "crashes").stdout)
        self.assertEqual([s["session_id"] for s in found["sessions"]], [planted])

    def test_an_mcp_tool_round_trip(self):
        self.lab.setup("copilot")
        call = {"name": "pi-context-notes_write",
                "input": {"address": "@project/lab-canary.md", "content": "lab canary 7f3a"}}
        self.lab.script([Rule(Reply("Writing.", [call]), last_user="keep a note")], Reply("Noted."))
        run = self.start("00000000-0000-4000-8000-0000000000d1", "please keep a note")
        self.assertGreaterEqual(len(run.requests), 2, run.stdout[-2000:])
        tool_results = [text for role, text in chat_messages(run.requests[1]) if role == "tool"]
        self.assertTrue(any('"created"' in t for t in tool_results), tool_results)
        note = self.lab.pi_context("notes", "read", "@project/lab-canary.md").stdout
        self.assertIn("lab canary 7f3a", note)

    def test_what_of_a_hooks_output_reaches_the_model(self):
        """Copilot's own hooks file, not pi-context's: which answer shapes reach the model, from
        which events, in which order the hooks run."""
        order = self.lab.root / "order.txt"

        def hook(name: str, answer: str, sleep: float = 0) -> dict[str, Any]:
            return {"type": "command", "timeoutSec": 10,
                    "bash": f"echo {name}-begins >> {order}; sleep {sleep}; echo {name}-ends >> {order}; echo '{answer}'"}

        hooks = {"version": 1, "hooks": {
            "sessionStart": [hook("start", '{"additionalContext":"FLAT-START-MARK"}', sleep=2),
                             hook("start", '{"hookSpecificOutput":{"hookEventName":"SessionStart",'
                                           '"additionalContext":"NESTED-START-MARK"}}')],
            "userPromptSubmitted": [hook("prompt", '{"additionalContext":"FLAT-PROMPT-MARK"}')],
            "preCompact": [hook("compact", '{"additionalContext":"FLAT-COMPACT-MARK"}'),
                           hook("compact", "PLAIN-COMPACT-MARK")],
        }}
        (self.lab.copilot_home / "hooks").mkdir(parents=True)
        (self.lab.copilot_home / "hooks" / "lab.json").write_text(json.dumps(hooks))
        self.lab.script([], Reply("Hello."))
        session = "00000000-0000-4000-8000-0000000000f1"
        first = all_text(self.start(session, "hello").requests[0])
        self.assertIn("FLAT-START-MARK", first)
        self.assertIn("FLAT-PROMPT-MARK", first)
        self.assertNotIn("NESTED-START-MARK", first, "the nested (Claude Code) form is ignored")
        ran = order.read_text().split()
        self.assertLess(ran.index("prompt-begins"), ran.index("start-ends"),
                        f"the prompt's hook runs while the session start's still runs: {ran}")

        self.lab.script([Rule(Reply("LAB-SUMMARY."), contains=SUMMARY_REQUEST)], Reply("unexpected request"))
        compact = self.copilot("/compact", f"--resume={session}")
        asked = [r for r in compact.requests if SUMMARY_REQUEST in json.dumps(r["body"])]
        self.assertEqual(len(asked), 1, [all_text(r)[-500:] for r in compact.requests])
        self.assertIn("compact-ends", order.read_text().split(), "the preCompact hook ran")
        for mark in ("FLAT-COMPACT-MARK", "PLAIN-COMPACT-MARK"):
            self.assertNotIn(mark, json.dumps(asked[0]["body"]), "a preCompact answer reaches no one")

    def test_setup_then_remove_leaves_the_home_as_it_was(self):
        self.lab.script([], Reply("Hello."))
        self.start("00000000-0000-4000-8000-0000000000e1", "hello")
        before = snapshot(self.lab)
        self.lab.setup("copilot")
        once = snapshot(self.lab)
        self.lab.setup("copilot")
        self.assertEqual(snapshot(self.lab), once, "idempotent to the byte")
        self.lab.setup("copilot", "--remove")
        self.assertEqual(snapshot(self.lab), before)


def snapshot(lab: Lab) -> dict[str, bytes]:
    """Copilot's configuration files (its session state and logs left out)."""
    home = lab.copilot_home
    files = [home / "mcp-config.json", home / "settings.json", home / "config.json", *sorted((home / "hooks").glob("*"))]
    return {str(f.relative_to(home)): f.read_bytes() for f in files if f.is_file()}


if __name__ == "__main__":
    unittest.main()
