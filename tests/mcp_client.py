"""`pi-context mcp` against the Python `mcp` package's stdio client (run by scripts/test-mcp).

    python tests/mcp_client.py PATH/TO/pi-context

Every test runs the real binary in a hermetic temp environment (HOME, notes home, Pi agent dir,
TZ) like the Rust tests' TestEnv. Both protocol generations are driven: the `initialize`
handshake (2025-11-25) and `server/discover` (the stateless 2026-07-28 revision). What no SDK
client sends (malformed lines, a bare EOF, SIGTERM) is written as raw bytes.
"""

import asyncio
import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp import types

BIN = Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug/pi-context").resolve()
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "mcp" / "session.jsonl"
SESSION_ID = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
BUDGET = 32 * 1024


class Env:
    """A temp HOME, notes home, Pi agent dir and project directory."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="pi-context-mcp-"))
        self.notes = self.root / "notes"
        self.agent_dir = self.root / "pi-agent"
        self.project = self.root / "project"
        for d in (self.root / "home", self.notes, self.agent_dir, self.project):
            d.mkdir(parents=True)

    def vars(self):
        return {
            "HOME": str(self.root / "home"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PI_NOTES_HOME": str(self.notes),
            "PI_CODING_AGENT_DIR": str(self.agent_dir),
            "PI_OFFLINE": "1",
            "TZ": "UTC",
        }

    def cli(self, *args, stdin=None):
        out = subprocess.run(
            [str(BIN), *args], cwd=self.project, env=self.vars(), input=stdin,
            capture_output=True, text=True, timeout=60,
        )
        assert out.returncode == 0, f"{args}: {out.stderr}"
        return out.stdout

    def params(self, *args):
        # The server's environment is exactly ours: no inherited variable decides its identity.
        return StdioServerParameters(
            command=str(BIN), args=["mcp", *args], env=self.vars(), cwd=str(self.project)
        )

    def raw(self, *args):
        return subprocess.Popen(
            [str(BIN), "mcp", *args], cwd=self.project, env=self.vars(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


async def session_of(env, *args, name="claude-code", modern=False):
    """An open client session (the caller closes the stack it returns)."""
    from contextlib import AsyncExitStack

    stack = AsyncExitStack()
    devnull = stack.enter_context(open(os.devnull, "w"))
    read, write = await stack.enter_async_context(stdio_client(env.params(*args), errlog=devnull))
    info = types.Implementation(name=name, version="1.0.0")
    session = await stack.enter_async_context(ClientSession(read, write, client_info=info))
    if modern:
        await session.discover()
    else:
        await session.initialize()
    return stack, session


def text_of(result):
    assert len(result.content) == 1, result
    return result.content[0].text


def ok(result):
    assert result.is_error is False or result.is_error is None, text_of(result)
    return json.loads(text_of(result))


def refusal(result):
    assert result.is_error is True, result
    return json.loads(text_of(result))["error"]


# ---------------------------------------------------------------- tests


async def test_tools_list_is_the_registrys_mcp_set_in_both_generations(env):
    registry = [t for t in json.loads(env.cli("tool", "--schemas"))["tools"] if "mcp" in t["doors"]]
    assert "checkpoint" not in [t["name"] for t in registry]
    for modern in (False, True):
        stack, s = await session_of(env, modern=modern)
        try:
            listed = (await s.list_tools()).tools
        finally:
            await stack.aclose()
        assert [t.name for t in listed] == [t["name"] for t in registry], (modern, [t.name for t in listed])
        for tool, entry in zip(listed, registry):
            assert tool.description == entry["description"], tool.name
            want = dict(entry["parameters"])
            if tool.name.startswith("history_"):
                want["required"] = [*want.get("required", []), "session_id"]
            assert tool.input_schema == want, (tool.name, tool.input_schema)
            writes = {"notes_write", "notes_edit", "notes_move", "notes_restore"}
            assert tool.annotations.read_only_hint is (tool.name not in writes), tool.name


async def test_write_read_search_then_the_cli_and_git_see_the_client(env):
    stack, s = await session_of(env, "--session-id", "py-session", name="claude-code")
    try:
        written = ok(await s.call_tool("notes_write", {"address": "@project/decisions", "content": "Use sqlite for the cache."}))
        assert written["outcome"] == "created", written
        read = await s.call_tool("notes_read", {"address": "@project/decisions"})
        assert text_of(read).endswith("Use sqlite for the cache."), text_of(read)
        found = ok(await s.call_tool("notes_search", {"query": ["sqlite"]}))
        assert found["files"][0]["address"] == "@project/decisions.md", found
        ok(await s.call_tool("notes_write", {"address": "plan", "content": "step one"}))
    finally:
        await stack.aclose()
    assert "Use sqlite for the cache." in env.cli("notes", "read", "@project/decisions")
    assert "step one" in env.cli("notes", "read", "plan", "--session-id", "py-session")
    log = json.loads(env.cli("notes", "log", "--json"))
    assert [c["agent"] for c in log["commits"]] == ["claude-code", "claude-code"], log
    authors = subprocess.run(
        ["git", "log", "--format=%an"], cwd=env.notes, env=env.vars(), capture_output=True, text=True
    ).stdout.split()
    assert authors == ["claude-code", "claude-code"], authors


async def test_refusals_are_error_results_and_unknown_tools_protocol_errors(env):
    stack, s = await session_of(env)
    try:
        assert refusal(await s.call_tool("notes_read", {"address": "@project/nope"}))["code"] == "not_found"
        assert refusal(await s.call_tool("notes_write", {"address": "/etc/x", "content": "x"}))["code"] == "invalid_address"
        assert refusal(await s.call_tool("history_list", {}))["code"] == "invalid_params"
        for name in ("checkpoint", "no_such_tool"):
            try:
                result = await s.call_tool(name, {})
            except MCPError as e:
                assert e.error.code == -32602 and name in e.error.message, e.error
            else:
                raise AssertionError(f"{name} answered {result}")
        assert ok(await s.call_tool("notes_list", {}))["files"] == []
    finally:
        await stack.aclose()


async def test_results_fit_the_32_kib_budget(env):
    env.cli("notes", "write", "@human/wide", stdin="€" * 60000)
    stack, s = await session_of(env)
    try:
        read = await s.call_tool("notes_read", {"address": "@human/wide", "limit_chars": 50000})
        assert not read.is_error
        assert len(text_of(read).encode()) <= BUDGET, len(text_of(read).encode())
        assert "next_offset_chars: " in text_of(read)
    finally:
        await stack.aclose()


async def test_sessions_search_then_history_read_on_the_hit(env):
    lines = FIXTURE.read_text().splitlines()
    header = json.loads(lines[0])
    header["cwd"] = str(env.project)
    encoded = str(env.project).strip("/").replace("/", "-")
    target = env.agent_dir / "sessions" / f"--{encoded}--" / f"2026-03-01T08-00-00-000Z_{SESSION_ID}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    stack, s = await session_of(env, modern=True)
    try:
        found = ok(await s.call_tool("sessions_search", {"query": "flamingo"}))
        session = found["sessions"][0]
        assert session["session_id"] == SESSION_ID, found
        hit = session["hits"][0]
        read = await s.call_tool("history_read", {"session_id": SESSION_ID[:12], "seq": hit["seq"]})
        assert not read.is_error, text_of(read)
        assert "flamingo protocol" in text_of(read), text_of(read)
    finally:
        await stack.aclose()


async def test_twenty_concurrent_edits_lose_nothing(env):
    env.cli("notes", "write", "@human/log", "--content", "log\nEND\n")
    stack, s = await session_of(env)
    try:
        edits = [
            s.call_tool("notes_edit", {"address": "@human/log", "edits": [{"oldText": "END", "newText": f"edit {i}\nEND"}]})
            for i in range(20)
        ]
        for result in await asyncio.gather(*edits):
            assert ok(result)["applied"] == 1
    finally:
        await stack.aclose()
    body = env.cli("notes", "read", "@human/log")
    for i in range(20):
        assert body.count(f"edit {i}\n") == 1, (i, body)


def receive(proc):
    line = proc.stdout.readline()
    message = json.loads(line)  # stdout carries JSON-RPC only
    assert message["jsonrpc"] == "2.0", message
    return message


def send(proc, data):
    proc.stdin.write(data)
    proc.stdin.flush()


INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n'
)


def exit_code(proc, timeout=20):
    try:
        return proc.wait(timeout=timeout)
    finally:
        proc.kill()


async def test_a_malformed_line_gets_a_json_rpc_error_and_the_server_goes_on(env):
    proc = env.raw()
    send(proc, INITIALIZE)
    assert receive(proc)["result"]["protocolVersion"] == "2025-11-25"
    send(proc, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    send(proc, b"{oops\n")
    error = receive(proc)
    assert error["error"]["code"] == -32700 and error["id"] is None, error
    send(proc, b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"notes_list","arguments":{}}}\n')
    answer = receive(proc)
    assert answer["id"] == 9 and answer["result"]["isError"] is False, answer
    proc.stdin.close()
    assert exit_code(proc) == 0
    assert proc.stdout.read() == b"", "nothing but answers on stdout"


async def test_eof_and_sigterm_end_it_cleanly(env):
    proc = env.raw()
    proc.stdin.close()
    assert exit_code(proc) == 0
    proc = env.raw()
    send(proc, INITIALIZE)
    receive(proc)
    proc.send_signal(signal.SIGTERM)
    assert exit_code(proc) == 0
    assert proc.stdout.read() == b""


async def main():
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_")]
    failed = 0
    for name, test in tests:
        env = Env()
        started = time.monotonic()
        try:
            await asyncio.wait_for(test(env), timeout=120)
            print(f"ok    {name} ({time.monotonic() - started:.1f}s)")
        except Exception:
            failed += 1
            print(f"FAIL  {name}")
            traceback.print_exc()
        finally:
            env.cleanup()
    print(f"\n{len(tests) - failed} passed, {failed} failed (mcp {importlib.metadata.version('mcp')}, {BIN})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
