"""pi-context inside the real agents: after `pi-context setup claude` / `setup codex` in the Lab's
HOME, what Claude Code and Codex send to the model server (docs/agents.md):

- the boot block in the first request; the recall hint with a prompt that continues an earlier
  session of the other agent in other words, none with an unrelated prompt, not twice;
- the way back after a compaction (Claude's `/compact`, Codex's auto-compaction) and, for Claude,
  the compaction request inside the compaction's own request;
- an MCP tool round trip (the note exists afterwards);
- the agent still answers when the binary the hooks name fails, hangs, or never gets its input
  (then the hook's own deadline ends it: its status record says `timeout`);
- nothing is sent anywhere but 127.0.0.1 (strace);
- `setup` on the files the agents wrote themselves: merged, idempotent to the byte, removed.

Codex runs without `--dangerously-bypass-hook-trust`: its hooks run because the setup trusted them.

    scripts/test-agents -k Hooks            (or python3 -m unittest discover tests/agents)
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import unittest
from pathlib import Path
from typing import Any

from lab import Lab, Run, last_user_text, pi_context_binary
from model_server import Reply, Rule

BOOT = "pi_context_boot"
HINT = "recall_hint"
COMPACTED = "pi_context_compacted"
COMPACTION_REQUEST = "pi_context_compaction_request"
CLAUDE_SUMMARY_REQUEST = "CRITICAL: Respond with TEXT ONLY"
CODEX_SUMMARY_REQUEST = "You are performing a CONTEXT CHECKPOINT COMPACTION"
CODEX_COMPACT_LIMIT = ("-c", "model_auto_compact_token_limit=50000")

# An earlier session of the other agent, and prompts that continue it in other words (sharing
# its rare words, as the hint's bar asks: docs/recall.md, "The hint"), or do not.
CLAUDE_PLANTED = ("The thumbnailer crashes on CMYK jpegs during the nightly media import.",
                  "Fixed: CMYK jpegs are converted to RGB before the thumbnailer decodes them.")
CLAUDE_RELATED = "The nightly import chokes on those CMYK pictures again; what did we do to the thumbnailer?"
CLAUDE_RELATED_AGAIN = "Still the thumbnailer and the CMYK pictures of the nightly import: anything else?"
CODEX_PLANTED = ("The invoice PDFs round euro totals wrong; switch the rounding to banker's rounding.",
                 "Done: euro totals on invoices now use banker's rounding.")
CODEX_RELATED = "Our invoice PDFs show euro totals a cent off again; which rounding did we settle on?"
CODEX_RELATED_AGAIN = "Euro totals of the invoice PDFs and their rounding, once more?"
UNRELATED = "Add a dark mode toggle to the settings screen."
# Two prompts naming the planted session's component, each little else of it.
CLAUDE_LEAD = "Bump the thumbnailer package version."
CLAUDE_CORROBORATES = "The thumbnailer falls over on print shop pictures."


# --- what a request carries ---------------------------------------------------------------------


def blocks(text: str, tag: str) -> list[str]:
    """Every `<tag>…</tag>` block in a text."""
    return re.findall(rf"<{tag}>.*?</{tag}>", text, re.S)


def messages(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every text in a model request, in order: Claude's messages (tool results
    included), Codex's input items (a function call's output as role "tool")."""
    out = []
    if request["path"].startswith("/v1/messages"):
        for message in request["body"].get("messages", []):
            content = message["content"]
            for text in [content] if isinstance(content, str) else _texts(content):
                out.append((message["role"], text))
    else:
        for item in request["body"].get("input", []):
            role = item.get("role") or ("tool" if item.get("type") == "function_call_output" else item.get("type"))
            output = item.get("output")
            texts = [output] if isinstance(output, str) else _texts(output or item.get("content") or [])
            out += [(role, text) for text in texts]
    return out


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["text"]] if isinstance(value.get("text"), str) else []
        content = value.get("content")
        if isinstance(content, str):
            found.append(content)
        elif isinstance(content, list):
            found += _texts(content)
        return found
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def pushed(request: dict[str, Any], tag: str) -> list[tuple[int, str, str]]:
    """(message index, role, block) of each `<tag>` block in a request."""
    return [(i, role, b) for i, (role, text) in enumerate(messages(request)) for b in blocks(text, tag)]


def prompt_index(request: dict[str, Any], prompt: str) -> int:
    """The index of the (last) user message holding the prompt."""
    found = [i for i, (role, text) in enumerate(messages(request)) if role == "user" and prompt in text]
    assert found, f"the prompt {prompt!r} is not in the request"
    return found[-1]


def all_text(request: dict[str, Any]) -> str:
    return "\n".join(text for _, text in messages(request))


def claude_session(run: Run) -> str:
    return json.loads(run.stdout)["session_id"]


def codex_session(run: Run) -> str:
    return re.search(r"^session id: (\S+)$", run.stderr, re.M).group(1)


def hook_run(status: dict[str, Any], event: str) -> dict[str, Any] | None:
    return next(h for h in status["hooks"] if h["event"] == event)["last_run"]


# --- the worlds ---------------------------------------------------------------------------------


def plant_codex_session(lab: Lab, prompt: str, answer: str) -> str:
    lab.script([], Reply(answer))
    return codex_session(lab.codex(prompt).check())


def plant_claude_session(lab: Lab, prompt: str, answer: str) -> str:
    lab.script([], Reply(answer))
    return claude_session(lab.claude(prompt, "--output-format", "json").check())


def claude(lab: Lab, prompt: str, *args: str) -> Run:
    return lab.claude(prompt, "--output-format", "json", *args).check()


def codex_trust_hash(event_label: str, command: str, timeout: int = 600) -> str:
    """The hash Codex trusts a command hook by (docs/agents.md), written here from its rule,
    independently of pi-context's (src/setup/codex.rs)."""
    identity = {"event_name": event_label,
                "hooks": [{"async": False, "command": command, "timeout": timeout, "type": "command"}]}
    compact = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(compact.encode()).hexdigest()


# --- Claude Code --------------------------------------------------------------------------------


class ClaudeHooksTest(unittest.TestCase):
    def setUp(self):
        self.lab = Lab()
        self.addCleanup(self.lab.close)

    def setup_claude(self) -> None:
        out = self.lab.setup("claude")
        self.assertIn("ran ", out, "the MCP server is registered by Claude Code itself")
        self.assertIn("mcp add --scope user pi-context", out)

    def test_the_boot_block_is_in_the_first_request(self):
        self.setup_claude()
        self.lab.script([], Reply("Hello."))
        run = claude(self.lab, "hello")
        self.assertEqual(json.loads(run.stdout)["result"], "Hello.")
        found = pushed(run.requests[0], BOOT)
        self.assertEqual(len(found), 1, all_text(run.requests[0])[:2000])
        _, role, boot = found[0]
        self.assertEqual(role, "system", "a mid-conversation system message")
        self.assertLessEqual(len(boot.encode()), 4096)
        self.assertIn(f"This session's id: {claude_session(run)}", boot)
        self.assertIn("mcp__pi-context__history_read", boot)
        self.assertIn("SessionStart hook additional context: <pi_context_boot>", all_text(run.requests[0]))

    def test_a_prompt_continuing_earlier_work_gets_one_hint(self):
        planted = plant_codex_session(self.lab, *CLAUDE_PLANTED)
        self.setup_claude()
        self.lab.script([], Reply("OK."))
        unrelated = claude(self.lab, UNRELATED)
        session = claude_session(unrelated)
        self.assertEqual(pushed(unrelated.requests[0], HINT), [], "no hint with an unrelated prompt")

        related = claude(self.lab, CLAUDE_RELATED, "--resume", session)
        request = related.requests[0]
        hints = pushed(request, HINT)
        self.assertEqual(len(hints), 1, all_text(request)[-3000:])
        index, role, hint = hints[0]
        self.assertEqual(role, "system")
        self.assertGreater(index, prompt_index(request, CLAUDE_RELATED), "right after the prompt")
        self.assertIn(f'mcp__pi-context__history_read {{"session_id":"{planted}"', hint)
        self.assertIn("CMYK jpegs", hint, "the earlier session's own words, quoted")

        again = claude(self.lab, CLAUDE_RELATED_AGAIN, "--resume", session)
        self.assertEqual(len(pushed(again.requests[0], HINT)), 1, "only the first hint, still in the conversation")
        self.assertEqual(hook_run(self.lab.status("claude"), "prompt")["detail"], "no hint: already_hinted")

        # The pushed blocks Claude Code keeps in its transcript are nobody's words: "jpegs" is in
        # the hint only, and a search finds it in the planted session alone.
        found = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "jpegs").stdout)
        self.assertEqual([s["session_id"] for s in found["sessions"]], [planted])

    def test_compact_asks_the_summary_to_keep_the_task_and_the_next_request_has_the_way_back(self):
        self.setup_claude()
        self.lab.script([], Reply("Noted: the flaky upload test."))
        first = claude(self.lab, "The upload test is flaky on the CI runner.")
        session = claude_session(first)
        summary = "<analysis>lab</analysis>\n<summary>LAB-SUMMARY: the upload test is flaky.</summary>"
        self.lab.script([Rule(Reply(summary), last_user=CLAUDE_SUMMARY_REQUEST)], Reply("unexpected request"))
        compact = claude(self.lab, "/compact", "--resume", session)
        self.assertEqual(len(compact.requests), 1)
        request = compact.requests[0]
        self.assertTrue(last_user_text(request).startswith(CLAUDE_SUMMARY_REQUEST), last_user_text(request)[:200])
        asked = blocks(last_user_text(request), COMPACTION_REQUEST)
        self.assertEqual(len(asked), 1, "PreCompact's plain output is in the compaction's own request")
        self.assertIn(session, asked[0])

        self.lab.script([], Reply("Next: fix the upload test."))
        after = claude(self.lab, "What next?", "--resume", session)
        request = after.requests[0]
        ways = pushed(request, COMPACTED)
        self.assertEqual(len(ways), 1, all_text(request)[-3000:])
        way = ways[0][2]
        self.assertIn(session, way)
        self.assertEqual(pushed(request, BOOT), [], "the boot left with the compaction")
        # The call it names reopens what left the context.
        call = re.search(r'mcp__pi-context__history_list (\{[^}]*\})', way)
        self.assertIsNotNone(call, way)
        listed = self.lab.pi_context("tool", "history_list", stdin=json.dumps(
            {"params": json.loads(call.group(1)),
             "context": {"session_file": None, "leaf_id": None, "session_id": "lab", "cwd": str(self.lab.project)}}))
        self.assertIn("The upload test is flaky on the CI runner.", listed.stdout)

    def test_an_mcp_tool_round_trip(self):
        self.setup_claude()
        call = {"name": "mcp__pi-context__notes_write",
                "input": {"address": "@project/lab-canary.md", "content": "lab canary 7f3a"}}
        self.lab.script([Rule(Reply("Writing.", [call]), last_user="keep a note")], Reply("Noted."))
        run = claude(self.lab, "please keep a note", "--allowedTools", "mcp__pi-context__notes_write")
        self.assertEqual(json.loads(run.stdout)["result"], "Noted.")
        self.assertEqual(len(run.requests), 2)
        result = json.loads(last_user_text(run.requests[1]))
        self.assertEqual((result["address"], result["outcome"]), ("@project/lab-canary.md", "created"))
        note = self.lab.pi_context("notes", "read", "@project/lab-canary.md").stdout
        self.assertIn("lab canary 7f3a", note)

    def test_a_second_prompt_pointing_at_the_same_earlier_session_gets_the_hint(self):
        """Each prompt alone falls short of the bar (its one rare word, the component, is little
        of the prompt); the first leaves the session as a lead in the hook's state, and the second,
        ranking it first again, gets the hint (docs/recall.md, "The hint", corroboration)."""
        planted = plant_codex_session(self.lab, *CLAUDE_PLANTED)
        # Alone, the second prompt gets nothing: it leaves the planted session as its lead.
        alone = json.loads(self.lab.pi_context("tool", "sessions_hint", stdin=json.dumps(
            {"params": {"prompt": CLAUDE_CORROBORATES},
             "context": {"session_file": None, "leaf_id": None, "session_id": "lab",
                         "cwd": str(self.lab.project)}})).stdout)
        self.assertEqual((alone["details"]["hint"], alone["details"].get("lead")), (False, planted), alone)
        self.setup_claude()
        self.lab.script([], Reply("OK."))
        first = claude(self.lab, CLAUDE_LEAD)
        session = claude_session(first)
        self.assertEqual(pushed(first.requests[0], HINT), [], "alone, no hint")
        self.assertEqual(hook_run(self.lab.status("claude"), "prompt")["detail"], "no hint: low_coverage")

        second = claude(self.lab, CLAUDE_CORROBORATES, "--resume", session)
        hints = pushed(second.requests[0], HINT)
        self.assertEqual(len(hints), 1, all_text(second.requests[0])[-3000:])
        self.assertIn(f'mcp__pi-context__history_read {{"session_id":"{planted}"', hints[0][2])


# --- Codex --------------------------------------------------------------------------------------


def developer_blocks(request: dict[str, Any], tag: str) -> list[tuple[int, str]]:
    """(input index, text) of each developer message that is a `<tag>` block."""
    return [(i, text) for i, (role, text) in enumerate(messages(request))
            if role == "developer" and text.startswith(f"<{tag}>")]


class CodexHooksTest(unittest.TestCase):
    def setUp(self):
        self.lab = Lab()
        self.addCleanup(self.lab.close)

    def setup_codex(self) -> None:
        out = self.lab.setup("codex")
        self.assertIn("trusted", out)

    def test_the_boot_block_is_a_developer_message_of_the_first_request(self):
        self.setup_codex()
        self.lab.script([], Reply("Hello."))
        run = self.lab.codex("hello").check()
        self.assertEqual(run.stdout.strip(), "Hello.")
        self.assertIn("hook: SessionStart Completed", run.stderr, "trusted: Codex ran it")
        request = run.requests[0]
        boots = developer_blocks(request, BOOT)
        self.assertEqual(len(boots), 1, all_text(request)[-3000:])
        index, boot = boots[0]
        self.assertLess(index, prompt_index(request, "hello"))
        self.assertIn(f"This session's id: {codex_session(run)}", boot)
        self.assertIn("mcp__pi_context.history_read", boot)
        self.assertLessEqual(len(boot.encode()), 4096)

    def test_a_prompt_continuing_earlier_work_gets_one_hint(self):
        planted = plant_claude_session(self.lab, *CODEX_PLANTED)
        self.setup_codex()
        self.lab.script([], Reply("OK."))
        unrelated = self.lab.codex(UNRELATED).check()
        session = codex_session(unrelated)
        self.assertEqual(pushed(unrelated.requests[0], HINT), [])

        related = self.lab.codex("resume", session, CODEX_RELATED).check()
        request = related.requests[0]
        hints = developer_blocks(request, HINT)
        self.assertEqual(len(hints), 1, all_text(request)[-3000:])
        index, hint = hints[0]
        self.assertEqual(index, prompt_index(request, CODEX_RELATED) + 1, "right after the prompt")
        self.assertIn(f'mcp__pi_context.history_read {{"session_id":"{planted}"', hint)

        again = self.lab.codex("resume", session, CODEX_RELATED_AGAIN).check()
        self.assertEqual(len(pushed(again.requests[0], HINT)), 1, "only the first hint")
        self.assertEqual(hook_run(self.lab.status("codex"), "prompt")["detail"], "no hint: already_hinted")

        # Codex keeps the hint as a developer message in its rollout: never indexed as anyone's.
        found = json.loads(self.lab.pi_context("sessions", "search", "--all", "--json", "banker").stdout)
        self.assertEqual([s["session_id"] for s in found["sessions"]], [planted])

    def test_after_an_auto_compaction_the_next_request_has_the_way_back(self):
        self.setup_codex()
        big = Reply("Noted: the flaky upload test.", input_tokens=200_000)
        self.lab.script([Rule(big, last_user="upload test")], Reply("unexpected request"))
        first = self.lab.codex(*CODEX_COMPACT_LIMIT, "The upload test is flaky on the CI runner.").check()
        session = codex_session(first)
        summary = Reply("LAB-SUMMARY: the upload test is flaky.")
        self.lab.script([Rule(summary, last_user=CODEX_SUMMARY_REQUEST)], Reply("Next: fix the upload test."))
        after = self.lab.codex(*CODEX_COMPACT_LIMIT, "resume", session, "What next?").check()
        self.assertEqual(after.stdout.strip(), "Next: fix the upload test.")
        compaction = [i for i, r in enumerate(after.requests) if last_user_text(r).startswith(CODEX_SUMMARY_REQUEST)]
        self.assertEqual(len(compaction), 1, "Codex compacted before the turn")
        request = after.requests[compaction[0] + 1]
        ways = developer_blocks(request, COMPACTED)
        self.assertEqual(len(ways), 1, all_text(request)[-3000:])
        way = ways[0][1]
        self.assertIn(session, way)
        call = re.search(r'mcp__pi_context\.history_list (\{[^}]*\})', way)
        self.assertIsNotNone(call, way)
        listed = self.lab.pi_context("tool", "history_list", stdin=json.dumps(
            {"params": json.loads(call.group(1)),
             "context": {"session_file": None, "leaf_id": None, "session_id": "lab", "cwd": str(self.lab.project)}}))
        self.assertIn("The upload test is flaky on the CI runner.", listed.stdout)

    def test_an_mcp_tool_round_trip(self):
        self.setup_codex()
        call = {"name": "notes_write", "namespace": "mcp__pi_context",
                "input": {"address": "@project/lab-canary.md", "content": "lab canary 7f3a"}}
        self.lab.script([Rule(Reply("Writing.", [call]), last_user="keep a note")], Reply("Noted."))
        run = self.lab.codex("please keep a note").check()
        self.assertEqual(run.stdout.strip(), "Noted.")
        self.assertEqual(len(run.requests), 2)
        output = run.requests[1]["body"]["input"][-1]
        self.assertEqual(output["type"], "function_call_output")
        result = json.loads(messages(run.requests[1])[-1][1])
        self.assertEqual((result["address"], result["outcome"]), ("@project/lab-canary.md", "created"))
        self.assertIn("lab canary 7f3a", self.lab.pi_context("notes", "read", "@project/lab-canary.md").stdout)


# --- a binary that fails ------------------------------------------------------------------------

EXIT_127 = "#!/bin/sh\nexit 127\n"
HANGS = "#!/bin/sh\nsleep 5\n"
# The real binary, whose input never ends (stdin held open 20 s after the agent's JSON): only
# its own deadline can end it.
INPUT_NEVER_ENDS = "#!/bin/bash\nexec 2>/dev/null\nexec {binary} \"$@\" < <(cat; sleep 20)\n"


class FailOpenTest(unittest.TestCase):
    """Set up from a copy of the binary, then the copy replaced: the agent still answers."""

    def broken_lab(self, agent: str, script: str) -> Lab:
        lab = Lab()
        self.addCleanup(lab.close)
        copy = lab.root / "moved" / "pi-context"
        copy.parent.mkdir()
        shutil.copy2(pi_context_binary(), copy)
        lab.setup(agent, binary=str(copy))
        copy.unlink()
        copy.write_text(script.format(binary=pi_context_binary()))
        copy.chmod(0o755)
        lab.script([], Reply("Still here."))
        return lab

    def run_agent(self, lab: Lab, agent: str) -> Run:
        if agent == "claude":
            run = claude(lab, "hello")
            self.assertEqual(json.loads(run.stdout)["result"], "Still here.")
        else:
            run = lab.codex("hello").check()
            self.assertEqual(run.stdout.strip(), "Still here.")
        self.assertEqual(pushed(run.requests[0], BOOT), [])
        return run

    def check_missing_binary(self, agent: str) -> None:
        lab = self.broken_lab(agent, EXIT_127)
        self.run_agent(lab, agent)
        status = lab.status(agent)
        self.assertTrue(all(h["installed"] for h in status["hooks"]), status)
        self.assertEqual({h["binary_present"] for h in status["hooks"]}, {False}, "the status tells")

    def check_hanging_binary(self, agent: str) -> None:
        self.run_agent(self.broken_lab(agent, HANGS), agent)

    def check_input_that_never_ends(self, agent: str) -> None:
        lab = self.broken_lab(agent, INPUT_NEVER_ENDS)
        self.run_agent(lab, agent)
        for event in ("session-start", "prompt"):
            last = hook_run(lab.status(agent), event)
            self.assertIsNotNone(last, f"{event} ran")
            self.assertEqual(last["outcome"], "timeout", last)
            self.assertEqual(last["detail"], "no answer within 900 ms: nothing pushed")
            self.assertGreaterEqual(last["millis"], 900)

    def test_claude_answers_when_the_binary_is_missing(self):
        self.check_missing_binary("claude")

    def test_claude_answers_when_the_binary_hangs(self):
        self.check_hanging_binary("claude")

    def test_claude_answers_when_the_hook_input_never_ends(self):
        self.check_input_that_never_ends("claude")

    def test_codex_answers_when_the_binary_is_missing(self):
        self.check_missing_binary("codex")

    def test_codex_answers_when_the_binary_hangs(self):
        self.check_hanging_binary("codex")

    def test_codex_answers_when_the_hook_input_never_ends(self):
        self.check_input_that_never_ends("codex")


# --- offline ------------------------------------------------------------------------------------


@unittest.skipUnless(shutil.which("strace"), "strace is not installed")
class OfflineHooksTest(unittest.TestCase):
    """With the hooks and the MCP server installed, a hint and a tool call: each agent, its hooks
    and the MCP server connect to nothing but the model server."""

    def assert_only_the_server(self, lab: Lab, run: Run) -> None:
        self.assertTrue(run.connects, "strace saw no connect() at all")
        self.assertEqual(set(run.connects), {f"127.0.0.1:{lab.server.port}"})

    def test_claude(self):
        with Lab(trace_connects=True) as lab:
            plant_codex_session(lab, *CLAUDE_PLANTED)
            lab.setup("claude")
            call = {"name": "mcp__pi-context__notes_write", "input": {"address": "n.md", "content": "x"}}
            lab.script([Rule(Reply("Writing.", [call]), last_user="thumbnailer")], Reply("Noted."))
            run = claude(lab, CLAUDE_RELATED, "--allowedTools", "mcp__pi-context__notes_write")
            self.assertTrue(pushed(run.requests[0], HINT) and pushed(run.requests[0], BOOT))
            self.assertIn('"outcome":"created"', last_user_text(run.requests[1]))
            self.assert_only_the_server(lab, run)

    def test_codex(self):
        with Lab(trace_connects=True) as lab:
            plant_claude_session(lab, *CODEX_PLANTED)
            lab.setup("codex")
            call = {"name": "notes_write", "namespace": "mcp__pi_context", "input": {"address": "n.md", "content": "x"}}
            lab.script([Rule(Reply("Writing.", [call]), last_user="rounding")], Reply("Noted."))
            run = lab.codex(CODEX_RELATED).check()
            self.assertTrue(developer_blocks(run.requests[0], HINT) and developer_blocks(run.requests[0], BOOT))
            self.assertIn('"outcome":"created"', all_text(run.requests[1]))
            self.assert_only_the_server(lab, run)


# --- setup on the agents' own files -------------------------------------------------------------

USER_CANARY = "USER-HOOK-CANARY-5e1"


class SetupOnAgentFilesTest(unittest.TestCase):
    """`pi-context setup` on files the agents wrote themselves (their state, their own MCP server
    added by their own CLI) beside the user's hook on the same event."""

    def setUp(self):
        self.lab = Lab()
        self.addCleanup(self.lab.close)

    def test_claude(self):
        lab = self.lab
        lab.script([], Reply("OK."))
        claude(lab, "hello")
        lab.claude_command("mcp", "add", "--scope", "user", "other", "--", "true").check()
        state_file = lab.claude_config / ".claude.json"
        state = json.loads(state_file.read_text())
        self.assertIn("other", state["mcpServers"])
        settings_file = lab.claude_config / "settings.json"
        user_settings = {"cleanupPeriodDays": 40, "hooks": {"UserPromptSubmit": [
            {"matcher": "", "hooks": [{"type": "command", "command": f"echo {USER_CANARY}"}]}]}}
        settings_file.write_text(json.dumps(user_settings, indent=2) + "\n")

        out = lab.setup("claude")
        self.assertIn(f"updated {settings_file}", out)
        merged = json.loads(state_file.read_text())
        for key, value in state.items():
            if key != "mcpServers":
                self.assertEqual(merged.get(key), value, f"Claude's own {key}")
        self.assertEqual(merged["mcpServers"]["other"], state["mcpServers"]["other"])
        self.assertEqual(merged["mcpServers"]["pi-context"]["command"], pi_context_binary())
        settings = json.loads(settings_file.read_text())
        self.assertEqual(settings["cleanupPeriodDays"], 40)
        self.assertEqual(settings["hooks"]["UserPromptSubmit"][0], user_settings["hooks"]["UserPromptSubmit"][0])

        files = {p: p.read_bytes() for p in (state_file, settings_file)}
        self.assertIn("already set up: nothing changed", lab.setup("claude"))
        self.assertEqual({p: p.read_bytes() for p in files}, files, "a second setup changes no byte")

        run = claude(lab, "hello again")
        text = all_text(run.requests[0])
        self.assertTrue(pushed(run.requests[0], BOOT), text[:2000])
        self.assertIn(USER_CANARY, text, "the user's own hook on the same event still runs")
        self.assertIn("already set up: nothing changed", lab.setup("claude"), "after Claude rewrote its file")
        status = lab.status("claude")
        self.assertTrue(status["mcp"]["registered"])
        for hook in status["hooks"]:
            self.assertTrue(hook["installed"] and hook["binary_present"] and hook["current_version"], hook)
        for event in ("session-start", "prompt"):
            self.assertEqual(hook_run(status, event)["outcome"], "ok")

        lab.setup("claude", "--remove")
        self.assertEqual(json.loads(settings_file.read_text()), user_settings)
        servers = json.loads(state_file.read_text())["mcpServers"]
        self.assertEqual(list(servers), ["other"])
        self.assertEqual(pushed(claude(lab, "and now").requests[0], BOOT), [])
        self.assertFalse(any(h["installed"] for h in lab.status("claude")["hooks"]))

    def test_codex(self):
        lab = self.lab
        lab.script([], Reply("OK."))
        lab.codex("hello").check()
        lab.codex_command("mcp", "add", "other", "--", "true").check()
        config_file = lab.codex_home / "config.toml"
        hooks_file = lab.codex_home / "hooks.json"
        user_command = f"echo {USER_CANARY}"
        user_hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": user_command}]}]}}
        hooks_file.write_text(json.dumps(user_hooks, indent=2) + "\n")
        with config_file.open("a") as f:  # the user trusts their own hook, as Codex asks
            f.write(f'\n# my own hook\n[hooks.state."{hooks_file}:session_start:0:0"]\n'
                    f'trusted_hash = "{codex_trust_hash("session_start", user_command)}"\n')
        config_before = config_file.read_bytes()

        lab.setup("codex")
        config = config_file.read_text()
        at = 0
        for line in config_before.decode().splitlines():
            at = config.index(line, at) + len(line)  # every line Codex and the user wrote, in order
        self.assertIn("[mcp_servers.pi-context]", config)
        self.assertEqual(json.loads(hooks_file.read_text())["hooks"]["SessionStart"][0], user_hooks["hooks"]["SessionStart"][0])

        files = {p: p.read_bytes() for p in (config_file, hooks_file)}
        self.assertIn("already set up: nothing changed", lab.setup("codex"))
        self.assertEqual({p: p.read_bytes() for p in files}, files, "a second setup changes no byte")

        run = lab.codex("hello again").check()
        request = run.requests[0]
        self.assertTrue(developer_blocks(request, BOOT), all_text(request)[-3000:])
        self.assertIn(USER_CANARY, all_text(request), "the user's own hook still runs")
        self.assertIn("already set up: nothing changed", lab.setup("codex"), "after Codex ran")
        status = lab.status("codex")
        self.assertTrue(status["mcp"]["registered"])
        for hook in status["hooks"]:
            self.assertTrue(hook["installed"] and hook["trusted"] and hook["current_version"], hook)
            self.assertEqual(hook["last_run"]["outcome"], "ok", hook)

        lab.setup("codex", "--remove")
        self.assertEqual(config_file.read_bytes(), config_before, "removed to the byte")
        self.assertEqual(json.loads(hooks_file.read_text()), user_hooks)
        self.assertEqual(developer_blocks(lab.codex("and now").check().requests[0], BOOT), [])

    def test_a_removal_leaves_no_file_the_setup_created(self):
        lab = self.lab
        lab.script([], Reply("OK."))
        claude(lab, "hello")
        lab.codex("hello").check()
        written = {p: p.read_bytes() for p in (lab.codex_home / "config.toml",)}
        created = [lab.claude_config / "settings.json", lab.codex_home / "hooks.json"]
        self.assertFalse(any(p.exists() for p in created), "the agents write neither")
        lab.setup("claude")
        lab.setup("codex")
        self.assertTrue(all(p.exists() for p in created))
        lab.setup("claude", "--remove")
        lab.setup("codex", "--remove")
        for path in created:
            self.assertFalse(path.exists(), f"{path}: {path.read_text() if path.exists() else ''}")
            self.assertFalse(Path(f"{path}.bak").exists(), path)
        self.assertEqual({p: p.read_bytes() for p in written}, written)
        self.assertNotIn("pi-context", json.loads((lab.claude_config / ".claude.json").read_text()).get("mcpServers", {}))


if __name__ == "__main__":
    unittest.main()
