"""Run the real agents (Claude Code, Codex CLI, Gemini CLI, GitHub Copilot CLI, OpenCode) headless
and offline against model_server.py.

A Lab is one temporary world: a fresh HOME (with CLAUDE_CONFIG_DIR, CODEX_HOME, ~/.gemini, COPILOT_HOME
and OpenCode's XDG directories inside it), a
TMPDIR, a project directory used as the agents' working directory, and a scripted model server
on 127.0.0.1. Runs in the same Lab share that world, so a resume finds its session.

    with Lab([Rule(Reply("hello"), last_user="greet")]) as lab:
        run = lab.claude("greet me")
        run.exit_code, run.stdout, run.transcripts, run.requests

The agents are on the Lab's PATH (a `bin/` directory of links named `claude` and `codex`), as on
a user's machine: `pi-context setup claude` registers its MCP server through `claude mcp add`.
`Lab.pi_context(...)` runs the pi-context binary under test (PI_CONTEXT_TEST_BIN, else the debug
build of this checkout) in the same world.

Every variable and config key known to keep each agent off the network is set (Claude's four
quiet variables; Codex's provider block and its switches for plugins, apps, updates, analytics
and feedback, without which it runs `git ls-remote https://github.com/openai/plugins.git`;
Gemini's settings.json with the API-key auth, telemetry, statistics and updates off, its base URL
variable) are set; checked with `strace -f -e trace=connect` (Lab(trace_connects=True),
OfflineTest): only the model server on 127.0.0.1 is contacted. Of the caller's environment only
PATH is passed on. Copilot runs with COPILOT_OFFLINE=true (no GitHub authentication, telemetry,
web tools or update) and its BYOK provider pointed at the server's Chat Completions endpoint.
OpenCode gets a provider speaking Chat Completions through OPENCODE_CONFIG_CONTENT, its model list,
update and share switched off, and an npm registry on a closed port (its embedded npm client
otherwise reaches registry.npmjs.org); its configuration directory is seeded so that OpenCode
finds its plugin dependency installed (else it tries to install it at every start and waits about
70 s for the closed registry).
The executables come from PI_CONTEXT_CLAUDE_BIN / PI_CONTEXT_CODEX_BIN / PI_CONTEXT_GEMINI_BIN /
PI_CONTEXT_COPILOT_BIN / PI_CONTEXT_OPENCODE_BIN, else from scripts/setup-agents (which installs them into the test cache
once).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model_server import ANTHROPIC, CHAT, GEMINI, GEMINI_PREFIX, OPENAI, ModelServer, Reply, Rule
from model_server import last_user_text as _last_user_text

REPO = Path(__file__).resolve().parents[2]
API_KEY = "lab-key-not-secret"
CODEX_FEATURES_OFF = (
    "plugins",
    "remote_plugin",
    "apps",
    "daemon_auto_start",
    "in_app_updates",
    "plugin_sharing",
    "skill_mcp_dependency_install",
)


@functools.cache
def agent_binaries() -> dict[str, str]:
    """{"claude": path, "codex": path, "gemini": path, "copilot": path, "opencode": path}: from the environment,
    else from scripts/setup-agents."""
    given = {name: os.environ.get(f"PI_CONTEXT_{name.upper()}_BIN") for name in ("claude", "codex", "gemini", "copilot", "opencode")}
    if all(given.values()):
        return given
    setup = REPO / "scripts" / "setup-agents"
    out = subprocess.run([str(setup)], check=True, stdout=subprocess.PIPE, text=True).stdout
    found = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return {name: given[name] or found[name] for name in given}


def pi_context_binary() -> str:
    """The pi-context under test: PI_CONTEXT_TEST_BIN, else this checkout's debug build."""
    given = os.environ.get("PI_CONTEXT_TEST_BIN")
    if given:
        return str(Path(given).resolve())
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    return str((REPO / target / "debug" / "pi-context").resolve())


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str
    transcripts: list[Path]  # every transcript file of this agent in the Lab, sorted
    requests: list[dict[str, Any]]  # the model requests this run made, oldest first
    connects: list[str] | None = None  # with Lab(trace_connects=True): "address:port" of each connect()

    def check(self) -> Run:
        if self.exit_code != 0:
            raise AssertionError(f"agent exited {self.exit_code}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}")
        return self


class Lab:
    def __init__(
        self,
        rules: list[Rule] | None = None,
        default: Reply | None = None,
        keep: bool = False,
        trace_connects: bool = False,
    ):
        """keep: leave the temp dir in place. trace_connects: run the agents under
        `strace -f -e trace=connect` and report every network address they connect to."""
        self.root = Path(tempfile.mkdtemp(prefix="pi-context-lab-"))
        self.home = self.root / "home"
        self.tmp = self.root / "tmp"
        self.project = self.root / "project"
        self.bin = self.root / "bin"
        for d in (self.home, self.tmp, self.project, self.bin):
            d.mkdir()
        for name, path in agent_binaries().items():
            (self.bin / name).symlink_to(path)
        self.claude_config = self.home / ".claude"
        self.codex_home = self.home / ".codex"
        self.gemini_dir = self.home / ".gemini"
        self.copilot_home = self.home / ".copilot"
        self.opencode_config = self.home / ".config" / "opencode"
        self.opencode_data = self.home / ".local" / "share" / "opencode"
        self.keep = keep
        self.trace_connects = trace_connects
        self.server = ModelServer(rules, default, record_path=str(self.root / "requests.jsonl")).start()
        self._write_codex_config()
        self._write_gemini_settings()
        self._seed_opencode_config()

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.server.stop()
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def script(self, rules: list[Rule], default: Reply | None = None) -> None:
        """Replace the server's rules (and default reply) for the next runs."""
        self.server.rules = list(rules)
        if default is not None:
            self.server.default = default

    # --- Claude Code -------------------------------------------------------------------------

    def claude_env(self) -> dict[str, str]:
        return {
            **self._base_env(),
            "CLAUDE_CONFIG_DIR": str(self.claude_config),
            "ANTHROPIC_BASE_URL": self.server.url,
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }

    def claude(self, prompt: str, *args: str, env: dict[str, str] | None = None, timeout: float = 180) -> Run:
        """`claude -p PROMPT ARGS…` in the project directory."""
        argv = [agent_binaries()["claude"], "-p", prompt, *args]
        return self._run(argv, {**self.claude_env(), **(env or {})}, self.claude_config / "projects", timeout)

    def claude_command(self, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
        """`claude ARGS…` without -p (`claude plugin install …`, `claude mcp list`)."""
        argv = [agent_binaries()["claude"], *args]
        return self._run(argv, {**self.claude_env(), **(env or {})}, self.claude_config / "projects", timeout)

    def claude_project_dir(self) -> Path:
        """Where Claude keeps this project's transcripts (cwd with every non-alphanumeric → '-')."""
        name = "".join(c if c.isalnum() else "-" for c in str(self.project.resolve()))
        return self.claude_config / "projects" / name

    # --- Codex CLI ---------------------------------------------------------------------------

    def codex_env(self) -> dict[str, str]:
        return {**self._base_env(), "CODEX_HOME": str(self.codex_home), "LAB_KEY": API_KEY}

    def codex(self, *args: str, env: dict[str, str] | None = None, timeout: float = 180) -> Run:
        """`codex exec --skip-git-repo-check ARGS…` (e.g. a prompt, or `resume ID PROMPT`)."""
        argv = [agent_binaries()["codex"], "exec", "--skip-git-repo-check", *args]
        return self._run(argv, {**self.codex_env(), **(env or {})}, self.codex_home / "sessions", timeout)

    def codex_command(self, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
        """`codex ARGS…` (`codex mcp add …`)."""
        argv = [agent_binaries()["codex"], *args]
        return self._run(argv, {**self.codex_env(), **(env or {})}, self.codex_home / "sessions", timeout)

    def _write_codex_config(self) -> None:
        self.codex_home.mkdir()
        features = "".join(f"{name} = false\n" for name in CODEX_FEATURES_OFF)
        (self.codex_home / "config.toml").write_text(
            f"""model = "lab-model"
model_provider = "lab"
check_for_update_on_startup = false

[model_providers.lab]
name = "lab"
base_url = "{self.server.url}/v1"
wire_api = "responses"
env_key = "LAB_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
{features}
[analytics]
enabled = false

[feedback]
enabled = false
"""
        )

    # --- Gemini CLI --------------------------------------------------------------------------

    def gemini_env(self) -> dict[str, str]:
        return {
            **self._base_env(),
            "GOOGLE_GEMINI_BASE_URL": self.server.url,
            "GEMINI_API_KEY": API_KEY,
            "GEMINI_TELEMETRY_ENABLED": "false",
            "GEMINI_CLI_NO_RELAUNCH": "1",
        }

    def gemini(self, prompt: str | None, *args: str, env: dict[str, str] | None = None, timeout: float = 180) -> Run:
        """`gemini -p PROMPT --skip-trust -m lab-model ARGS…` (no prompt: ARGS only)."""
        argv = [agent_binaries()["gemini"], *(["-p", prompt] if prompt is not None else []), "--skip-trust",
                "-m", "lab-model", *args]
        return self._run(argv, {**self.gemini_env(), **(env or {})}, self.gemini_dir / "tmp", timeout)

    def gemini_chats_dir(self) -> Path:
        """Where Gemini keeps this project's chats: tmp/<slug>/chats, the slug from projects.json."""
        projects = json.loads((self.gemini_dir / "projects.json").read_text())["projects"]
        return self.gemini_dir / "tmp" / projects[str(self.project.resolve())] / "chats"

    def _write_gemini_settings(self) -> None:
        self.gemini_dir.mkdir()
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
        }
        (self.gemini_dir / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    # --- GitHub Copilot CLI ------------------------------------------------------------------

    def copilot_env(self) -> dict[str, str]:
        return {
            **self._base_env(),
            "COPILOT_HOME": str(self.copilot_home),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": f"{self.server.url}/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": API_KEY,
            "COPILOT_MODEL": "lab-model",
            "COPILOT_AUTO_UPDATE": "false",
            # Copilot unpacks its package under the cache on first run (about 235 MB): one shared
            # directory instead of one per Lab.
            "XDG_CACHE_HOME": str(copilot_cache()),
            # ... which must not become pi-context's cache (its hooks' state, the recall index):
            # the Lab's own, where it is without XDG_CACHE_HOME.
            "PI_CONTEXT_CACHE_DIR": str(self.home / ".cache" / "pi-context"),
        }

    def copilot(self, *args: str, env: dict[str, str] | None = None, timeout: float = 180) -> Run:
        """`copilot ARGS…` (e.g. `-p PROMPT --allow-all-tools`) in the project directory."""
        argv = [agent_binaries()["copilot"], *args]
        return self._run(argv, {**self.copilot_env(), **(env or {})}, self.copilot_home / "session-state", timeout)

    def copilot_events(self, session_id: str) -> list[dict[str, Any]]:
        return read_jsonl(self.copilot_home / "session-state" / session_id / "events.jsonl")

    # --- OpenCode ----------------------------------------------------------------------------

    def opencode_env(self) -> dict[str, str]:
        config = {
            "provider": {"lab": {"npm": "@ai-sdk/openai-compatible",
                                 "options": {"baseURL": f"{self.server.url}/v1", "apiKey": API_KEY},
                                 "models": {"lab-model": {"tool_call": True}}}},
            "model": "lab/lab-model",
            "permission": {"bash": "allow", "read": "allow", "edit": "allow"},
        }
        return {
            **self._base_env(),
            "PWD": str(self.project),  # else OpenCode records the parent's directory
            "OPENCODE_CONFIG_CONTENT": json.dumps(config),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "npm_config_registry": "http://127.0.0.1:9/",
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
        }

    def opencode(self, *args: str, env: dict[str, str] | None = None, timeout: float = 180) -> Run:
        """`opencode run --format json -m lab/lab-model ARGS…` (e.g. a prompt, `--session ID`)."""
        argv = [agent_binaries()["opencode"], "run", "--format", "json", "-m", "lab/lab-model", *args]
        return self._run(argv, {**self.opencode_env(), **(env or {})}, self.opencode_data, timeout)

    @contextlib.contextmanager
    def opencode_server(self, timeout: float = 60):
        """`opencode serve` on a free port of 127.0.0.1, in the project directory, until the block
        ends; yields `post(path, body)`, which POSTs JSON to its HTTP API (`/session/:id/revert`)
        and answers the decoded reply."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        argv = [agent_binaries()["opencode"], "serve", "--hostname", "127.0.0.1", "--port", str(port)]
        server = subprocess.Popen(argv, cwd=self.project, env=self.opencode_env(), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    urllib.request.urlopen(f"{base}/session", timeout=2).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("opencode serve did not answer")
                    time.sleep(0.2)

            def post(path: str, body: dict[str, Any]) -> Any:
                request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode(), method="POST",
                                                 headers={"content-type": "application/json"})
                with urllib.request.urlopen(request, timeout=timeout) as reply:
                    return json.loads(reply.read())

            yield post
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()

    def _seed_opencode_config(self) -> None:
        """OpenCode installs `@opencode-ai/plugin` into its configuration directory when that has
        no node_modules, or a package.json dependency its package-lock.json lacks: both say it is
        there (no plugin of pi-context's imports it)."""
        (self.opencode_config / "node_modules").mkdir(parents=True)
        deps = {"@opencode-ai/plugin": "1.18.33"}
        (self.opencode_config / "package.json").write_text(json.dumps({"dependencies": deps}) + "\n")
        (self.opencode_config / "package-lock.json").write_text(
            json.dumps({"packages": {"": {"dependencies": deps}}}) + "\n")

    # --- pi-context ---------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        """The world's environment, every agent's variables set (what a user's shell has)."""
        return {**self.opencode_env(), **self.claude_env(), **self.codex_env(), **self.gemini_env(),
                **self.copilot_env()}

    def pi_context(
        self, *args: str, binary: str | None = None, stdin: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess:
        """`pi-context ARGS…` in the project directory (BINARY instead of the one under test)."""
        proc = subprocess.run(
            [binary or pi_context_binary(), *args],
            cwd=self.project,
            env=self.env(),
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"pi-context {' '.join(args)} exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
        return proc

    def setup(self, agent: str, *args: str, binary: str | None = None) -> str:
        """`pi-context setup AGENT ARGS…`: its stdout (an exit status but 0 fails)."""
        return self.pi_context("setup", agent, *args, binary=binary).stdout

    def status(self, agent: str) -> dict[str, Any]:
        """`pi-context setup --status --json AGENT`: the agent's entry."""
        return json.loads(self.pi_context("setup", "--status", "--json", agent).stdout)["agents"][0]

    # --- all ---------------------------------------------------------------------------------

    def _base_env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
        }

    def _run(self, argv: list[str], env: dict[str, str], transcript_root: Path, timeout: float) -> Run:
        before = len(self.server.requests())
        trace = self.root / "strace.txt"
        if self.trace_connects:
            argv = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *argv]
        proc = subprocess.run(
            argv, cwd=self.project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
        requests = [r for r in self.server.requests()[before:] if r["model_request"]]
        transcripts = sorted(transcript_root.rglob("*.jsonl")) if transcript_root.exists() else []
        connects = network_connects(trace.read_text()) if self.trace_connects else None
        return Run(proc.returncode, proc.stdout, proc.stderr, transcripts, requests, connects)


def copilot_cache() -> Path:
    """Where Copilot unpacks its package, shared by every Lab (the test cache, as setup-agents'
    installs)."""
    base = os.environ.get("PI_CONTEXT_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pi-context-test")
    path = Path(base) / "copilot-xdg-cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def network_connects(strace_output: str) -> list[str]:
    """The IPv4/IPv6 "address:port" of every connect() in strace output (Unix sockets left out)."""
    found = []
    for line in strace_output.splitlines():
        if "connect(" not in line:
            continue
        v4 = re.search(r'sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)', line)
        v6 = re.search(r'sin6_port=htons\((\d+)\).*inet_pton\(AF_INET6, "([^"]+)"', line)
        if v4 or v6:
            port, address = (v4 or v6).groups()
            found.append(f"{address}:{port}")
        elif "AF_UNIX" not in line and "AF_NETLINK" not in line:
            found.append(line.strip())  # an address family we do not parse: show it whole
    return found


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def last_user_text(request: dict[str, Any]) -> str:
    """The last user-side input (prompt or tool result) of a recorded model request."""
    path = request["path"]
    if path.startswith(GEMINI_PREFIX):
        api = GEMINI
    else:
        api = ANTHROPIC if path.startswith("/v1/messages") else CHAT if path.startswith("/v1/chat/") else OPENAI
    return _last_user_text(api, request["body"])
