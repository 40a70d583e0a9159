#!/usr/bin/env python3
"""Writes tests/fixtures/claude-real/, codex-real/, gemini-real/, copilot-real/ and opencode-real/: transcripts
written by the real agents (versions pinned in scripts/setup-agents), driven offline by the
scripted model server. Nothing in them is edited: each fixture directory is a copy of what the
agent wrote under its home (Claude's `projects/`, Codex's `sessions/`, Gemini's `tmp/` and
`projects.json`, the `events.jsonl` of each of Copilot's `session-state/` directories), plus an
ORIGIN.md made here.

    python3 tests/agents/make_fixtures.py [--out tests/fixtures] [--keep] [--only claude,codex,gemini,copilot,opencode]

OpenCode's fixture is its data directory (the database with its -wal and -shm, as OpenCode left
them); its ORIGIN.md is kept by hand (session ids and times change with every run).

--keep leaves the labs (temp HOME, recorded requests.jsonl) in place and prints where.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab import REPO, Lab, Run, agent_binaries, read_jsonl  # noqa: E402
from model_server import ModelServer, Reply, Rule  # noqa: E402

FAKE_SECRET = "ghp_" + "LabFakeToken" + "0123456789" * 2 + "abcd"  # ghp_ + 36 alnum, not a real token
CLAUDE_SUMMARY_REQUEST = "CRITICAL: Respond with TEXT ONLY"
CODEX_SUMMARY_REQUEST = "You are performing a CONTEXT CHECKPOINT COMPACTION"
COPILOT_SUMMARY_REQUEST = "Please create a detailed summary of the conversation so far"
# AKIA + 16 uppercase alphanumerics, not a real key (Copilot masks `ghp_` tokens itself, not these)
FAKE_AWS_KEY = "AKIA" + "LABFAKEKEY" + "012345"


def bash(command: str, text: str | None = None, input_tokens: int = 100) -> Reply:
    return Reply(text, [{"name": "Bash", "input": {"command": command, "description": "Print a marker"}}], input_tokens)


def shell(cmd: str, text: str | None = None, input_tokens: int = 100) -> Reply:
    return Reply(text, [{"name": "exec_command", "input": {"cmd": cmd}}], input_tokens)


def agent(prompt: str, background: bool) -> Reply:
    call = {"description": "Find the answer", "prompt": prompt, "subagent_type": "general-purpose"}
    if not background:
        call["run_in_background"] = False
    return Reply("Delegating.", [{"name": "Agent", "input": call}])


class Log:
    """What ORIGIN.md says about each session: its scenario and the commands that wrote it."""

    def __init__(self, lab: Lab):
        self.lab = lab
        self.sessions: list[tuple[str, str, list[str]]] = []

    def note(self, commands: list[str], argv: list[str], rules: list[Rule], default: Reply | None) -> None:
        shown = " ".join(_quote(a.replace(str(self.lab.root), "$LAB")) for a in argv)
        commands.append(f"`{shown}`")
        for rule in rules:
            cond = {k: v for k, v in vars(rule).items() if k not in ("reply", "used") and v is not None}
            shown = f"  - rule {json.dumps(cond)} → {_reply(rule.reply)}"
            commands.append(shown.replace(str(self.lab.root), "$LAB"))
        if default is not None:
            commands.append(f"  - otherwise → {_reply(default)}")


def _quote(arg: str) -> str:
    return arg if re.fullmatch(r"[\w./:=@+-]+", arg) else "'" + arg.replace("'", "'\\''") + "'"


def _reply(reply: Reply) -> str:
    parts = []
    if reply.text is not None:
        parts.append(json.dumps(reply.text))
    parts += [f"{c['name']} {json.dumps(c['input'])}" for c in reply.tool_calls]
    if reply.input_tokens != 100:
        parts.append(f"usage.input_tokens {reply.input_tokens}")
    return ", ".join(parts)


class ClaudeDriver:
    def __init__(self, lab: Lab, log: Log):
        self.lab, self.log = lab, log

    def run(self, commands: list[str], prompt: str, *args: str, rules: list[Rule], default: Reply) -> Run:
        self.lab.script(rules, default)
        argv = ["claude", "-p", prompt, *args, "--output-format", "json"]
        self.log.note(commands, argv, rules, default)
        return self.lab.claude(prompt, *args, "--output-format", "json").check()

    def start(self, scenario: str, prompt: str, *args: str, rules: list[Rule], default: Reply) -> tuple[str, list[str]]:
        commands: list[str] = []
        run = self.run(commands, prompt, *args, rules=rules, default=default)
        session_id = json.loads(run.stdout)["session_id"]
        self.log.sessions.append((scenario, session_id, commands))
        return session_id, commands

    def transcript(self, session_id: str) -> list[dict]:
        return read_jsonl(self.lab.claude_project_dir() / f"{session_id}.jsonl")


def make_claude(lab: Lab, out: Path) -> Log:
    log = Log(lab)
    c = ClaudeDriver(lab, log)
    allow = ("--allowedTools", "Bash")

    # A: a Bash tool call; a resumed turn; a rewind to the first answer (the resumed turn is abandoned).
    sid, cmds = c.start(
        "Bash tool call, `--resume` turn, rewind with `--resume-session-at` (turn 2 abandoned)",
        "A1: print the marker with bash",
        *allow,
        rules=[Rule(bash("echo hello-from-bash", "Running it."), last_user="A1:")],
        default=Reply("The command printed hello-from-bash."),
    )
    c.run(cmds, "A2: what did it print?", "--resume", sid, rules=[], default=Reply("It printed hello-from-bash."))
    first_answer = next(
        r["uuid"]
        for r in c.transcript(sid)
        if r.get("type") == "assistant"
        and any(b.get("text") == "The command printed hello-from-bash." for b in r["message"]["content"])
    )
    c.run(cmds, "A3: forget that question; say goodbye", "--resume", sid, "--resume-session-at", first_answer,
          rules=[], default=Reply("Goodbye."))

    # B: a background subagent (task-notification later), then a synchronous one.
    sid, cmds = c.start(
        "Background subagent (`Agent`, default) with its `<task-notification>`; then a synchronous one "
        "(`run_in_background: false`) on a `--resume` turn",
        "B1: delegate in background",
        "--allowedTools", "Agent",
        rules=[
            Rule(Reply("SUB-BG-REPORT: the answer is 42."), last_user="SUB-BG-TASK"),
            Rule(agent("SUB-BG-TASK: find the answer", background=True), last_user="B1:"),
            Rule(Reply("The background agent reported 42."), last_user="<task-notification>"),
        ],
        default=Reply("Waiting for the background agent."),
    )
    c.run(cmds, "B2: delegate and wait", "--resume", sid, "--allowedTools", "Agent",
          rules=[
              Rule(Reply("SUB-FG-REPORT: the answer is 43."), last_user="SUB-FG-TASK"),
              Rule(agent("SUB-FG-TASK: find the answer", background=False), last_user="B2:"),
          ],
          default=Reply("The subagent reported 43."))

    # C: manual compaction (`-p /compact --resume`), then one more turn.
    sid, cmds = c.start(
        "Manual compaction: a Bash turn, `claude -p /compact --resume ID`, one more `--resume` turn",
        "C1: print the marker with bash",
        *allow,
        rules=[Rule(bash("echo before-compaction", "Running it."), last_user="C1:")],
        default=Reply("The command printed before-compaction."),
    )
    summary = "<analysis>lab analysis</analysis>\n<summary>LAB-MANUAL-SUMMARY: the user ran echo before-compaction.</summary>"
    c.run(cmds, "/compact", "--resume", sid, rules=[Rule(Reply(summary), last_user=CLAUDE_SUMMARY_REQUEST)],
          default=Reply("unexpected request"))
    c.run(cmds, "C3: what happened before?", "--resume", sid, rules=[], default=Reply("You ran echo before-compaction."))

    # D: auto-compaction: a tool turn reporting 190,000 input tokens under --autocompact 100000.
    big = 190_000
    sid, cmds = c.start(
        "Auto-compaction: `--autocompact 100000`, a Bash turn whose replies report usage.input_tokens 190000; "
        "the next `--resume` turn compacts first",
        "D1: print the marker with bash",
        *allow, "--autocompact", "100000",
        rules=[
            Rule(bash("echo before-auto-compaction", "Running it.", big), last_user="D1:"),
            Rule(Reply("The command printed before-auto-compaction.", input_tokens=big), last_user="before-auto-compaction"),
        ],
        default=Reply("unexpected request"),
    )
    summary = "<analysis>lab analysis</analysis>\n<summary>LAB-AUTO-SUMMARY: the user ran echo before-auto-compaction.</summary>"
    c.run(cmds, "D2: and now?", "--resume", sid, *allow, "--autocompact", "100000",
          rules=[Rule(Reply(summary), last_user=CLAUDE_SUMMARY_REQUEST)],
          default=Reply("Answered after the auto-compaction."))

    # E: a prompt holding a fake secret.
    c.start(
        "A prompt holding a fake GitHub token (`ghp_` + 36 alphanumerics, not a real token)",
        f"E1: my token is {FAKE_SECRET}, keep it safe",
        rules=[],
        default=Reply("I will not repeat it."),
    )

    copy_tree(lab.claude_config / "projects", out / "projects")
    return log


class CodexDriver:
    def __init__(self, lab: Lab, log: Log):
        self.lab, self.log = lab, log

    def run(self, commands: list[str], *args: str, rules: list[Rule], default: Reply) -> Run:
        self.lab.script(rules, default)
        self.log.note(commands, ["codex", "exec", "--skip-git-repo-check", *args], rules, default)
        return self.lab.codex(*args).check()

    def start(self, scenario: str, *args: str, rules: list[Rule], default: Reply) -> tuple[str, list[str]]:
        commands: list[str] = []
        run = self.run(commands, *args, rules=rules, default=default)
        session_id = re.search(r"^session id: (\S+)$", run.stderr, re.M).group(1)
        self.log.sessions.append((scenario, session_id, commands))
        return session_id, commands


def make_codex(lab: Lab, out: Path) -> Log:
    log = Log(lab)
    c = CodexDriver(lab, log)
    summary = Reply("LAB-CODEX-SUMMARY: the user ran echo and asked for the next step.")

    # X: a shell tool call, then `codex exec resume`.
    sid, cmds = c.start(
        "`exec_command` tool call, then `codex exec resume ID PROMPT`",
        "X1: print the marker with the shell",
        rules=[Rule(shell("echo hello-from-shell", "Running it."), last_user="X1:")],
        default=Reply("The command printed hello-from-shell."),
    )
    c.run(cmds, "resume", sid, "X2: what did it print?", rules=[], default=Reply("It printed hello-from-shell."))

    # Y: auto-compaction before a turn: turn 1 reports 200,000 input tokens; turn 2 compacts first.
    limit = ("-c", "model_auto_compact_token_limit=50000")
    sid, cmds = c.start(
        "Auto-compaction before a turn: `model_auto_compact_token_limit=50000`, turn 1 reports "
        "usage.input_tokens 200000, the `resume` turn compacts first",
        *limit, "Y1: print the marker with the shell",
        rules=[Rule(shell("echo before-compaction", "Running it."), last_user="Y1:"),
               Rule(Reply("The command printed before-compaction.", input_tokens=200_000), last_user="before-compaction")],
        default=Reply("unexpected request"),
    )
    c.run(cmds, *limit, "resume", sid, "Y2: and now?",
          rules=[Rule(summary, last_user=CODEX_SUMMARY_REQUEST)], default=Reply("Answered after the compaction."))

    # Z: auto-compaction mid-turn: the tool call's reply reports 200,000 input tokens.
    c.start(
        "Auto-compaction mid-turn: the tool call's reply reports usage.input_tokens 200000",
        *limit, "Z1: print the marker with the shell",
        rules=[Rule(summary, last_user=CODEX_SUMMARY_REQUEST),
               Rule(shell("echo mid-turn", "Running it.", 200_000), last_user="Z1:", times=1)],
        default=Reply("Finished after the compaction."),
    )

    copy_tree(lab.codex_home / "sessions", out / "sessions")
    return log


def copilot_tool(name: str, text: str | None = None, **arguments) -> Reply:
    return Reply(text, [{"name": name, "input": arguments}])


class CopilotDriver:
    ARGS = ("--allow-all-tools", "--output-format", "json")

    def __init__(self, lab: Lab, log: Log):
        self.lab, self.log = lab, log
        self.count = 0

    def run(self, commands: list[str], prompt: str, *args: str, rules: list[Rule], default: Reply) -> Run:
        self.lab.script(rules, default)
        self.log.note(commands, ["copilot", "-p", prompt, *args, *self.ARGS], rules, default)
        return self.lab.copilot("-p", prompt, *args, *self.ARGS).check()

    def start(self, scenario: str, prompt: str, *args: str, rules: list[Rule], default: Reply) -> tuple[str, list[str]]:
        """A new session under a fixed id (`--session-id`), so that the fixtures' names are stable."""
        self.count += 1
        session_id = f"00000000-0000-4000-8000-{self.count:012d}"
        commands: list[str] = []
        self.run(commands, prompt, "--session-id", session_id, *args, rules=rules, default=default)
        self.log.sessions.append((scenario, session_id, commands))
        return session_id, commands


class GeminiDriver:
    def __init__(self, lab: Lab, log: Log):
        self.lab, self.log = lab, log

    def run(self, commands: list[str], prompt: str, *args: str, rules: list[Rule], default: Reply) -> Run:
        self.lab.script(rules, default)
        argv = ["gemini", "-p", prompt, "--skip-trust", "-m", "lab-model", *args, "-o", "json", "-y"]
        self.log.note(commands, argv, rules, default)
        return self.lab.gemini(prompt, *args, "-o", "json", "-y").check()

    def start(self, scenario: str, prompt: str, *args: str, rules: list[Rule], default: Reply) -> tuple[str, list[str]]:
        commands: list[str] = []
        run = self.run(commands, prompt, *args, rules=rules, default=default)
        session_id = json.loads(run.stdout)["session_id"]
        self.log.sessions.append((scenario, session_id, commands))
        return session_id, commands


def make_copilot(lab: Lab, out: Path) -> Log:
    log = Log(lab)
    c = CopilotDriver(lab, log)
    notes = lab.project / "notes.txt"
    notes.write_text("view-marker-line\n")

    # P: `bash` and `view` tool calls, then a `--resume` turn.
    sid, cmds = c.start(
        "`bash` and `view` tool calls, then a `--resume` turn",
        "P1: print the marker with bash, then read notes.txt",
        rules=[
            Rule(copilot_tool("bash", "Running it.", command="echo hello-from-bash", description="Print a marker"),
                 last_user="P1:"),
            Rule(copilot_tool("view", "Reading it.", path=str(notes)), last_user="hello-from-bash"),
        ],
        default=Reply("The command printed hello-from-bash and notes.txt says view-marker-line."),
    )
    c.run(cmds, "P2: what did it print?", f"--resume={sid}", rules=[], default=Reply("It printed hello-from-bash."))

    # Q: a `task` subagent that runs `bash` itself; its report comes back as the task's result.
    task = {"description": "Find the answer", "prompt": "SUB-TASK: find the answer with bash",
            "agent_type": "general-purpose", "name": "finder"}
    c.start(
        "A `task` subagent (`general-purpose`) that calls `bash` itself; its report is the task's result",
        "Q1: delegate to a subagent",
        rules=[
            Rule(copilot_tool("bash", "Checking.", command="echo sub-agent-bash", description="Print a marker"),
                 last_user="SUB-TASK", times=1),
            Rule(Reply("SUB-REPORT: the answer is 42."), last_user="sub-agent-bash"),
            Rule(Reply("Delegating.", [{"name": "task", "input": task}]), last_user="Q1:"),
        ],
        default=Reply("The subagent reported 42."),
    )

    # R: manual compaction (`-p /compact --resume`), then one more turn.
    sid, cmds = c.start(
        "Manual compaction: a `bash` turn, `copilot -p /compact --resume=ID`, one more `--resume` turn",
        "R1: print the marker with bash",
        rules=[Rule(copilot_tool("bash", "Running it.", command="echo before-compaction", description="Print a marker"),
                    last_user="R1:")],
        default=Reply("The command printed before-compaction."),
    )
    c.run(cmds, "/compact", f"--resume={sid}",
          rules=[Rule(Reply("LAB-COPILOT-SUMMARY: the user ran echo before-compaction."), contains=COPILOT_SUMMARY_REQUEST)],
          default=Reply("unexpected request"))
    c.run(cmds, "R3: what happened before?", f"--resume={sid}", rules=[], default=Reply("You ran echo before-compaction."))

    # S: a prompt holding a fake AWS key.
    c.start(
        "A prompt holding a fake AWS access key id (`AKIA` + 16 characters, not a real key)",
        f"S1: my key is {FAKE_AWS_KEY}, keep it safe",
        rules=[],
        default=Reply("I will not repeat it."),
    )

    copy_copilot_sessions(lab.copilot_home / "session-state", out / "session-state")
    return log


def copy_copilot_sessions(src: Path, dst: Path) -> None:
    """Each session's `events.jsonl` (its directory's other files are Copilot's workspace state)."""
    if dst.exists():
        shutil.rmtree(dst)
    for events in sorted(src.glob("*/events.jsonl")):
        (dst / events.parent.name).mkdir(parents=True)
        shutil.copyfile(events, dst / events.parent.name / "events.jsonl")


def gemini_tool(name: str, args: dict, text: str | None = None) -> Reply:
    return Reply(text, [{"name": name, "input": args}])


def make_gemini(lab: Lab, out: Path) -> Log:
    log = Log(lab)
    g = GeminiDriver(lab, log)

    # G: a shell tool call and a file read, then `--resume ID` with a second prompt holding a secret.
    (lab.project / "notes.txt").write_text("the launch code is amber-42\n")
    sid, cmds = g.start(
        "`run_shell_command` and `read_file` tool calls, then a `--resume ID` turn",
        "G1: print the marker with the shell, then read notes.txt",
        rules=[
            Rule(gemini_tool("run_shell_command", {"command": "echo hello-from-gemini"}, "Running it."), last_user="G1:"),
            Rule(gemini_tool("read_file", {"file_path": "notes.txt"}), last_user="hello-from-gemini"),
        ],
        default=Reply("The command printed hello-from-gemini and notes.txt holds the launch code."),
    )
    g.run(cmds, f"G2: what did it print? my token is {FAKE_SECRET}", "--resume", sid,
          rules=[], default=Reply("It printed hello-from-gemini."))

    # S: a subagent (`invoke_agent` of the generalist, which ends with `complete_task`).
    g.start(
        "A subagent: `invoke_agent` (generalist) runs the shell and answers with `complete_task`",
        "S1: delegate the question",
        rules=[
            Rule(gemini_tool("complete_task", {"result": {"response": "SUB-REPORT: the answer is 42."}}),
                 last_user="sub-marker"),
            Rule(gemini_tool("run_shell_command", {"command": "echo sub-marker"}), last_user="SUB-TASK"),
            Rule(gemini_tool("invoke_agent", {"agent_name": "generalist", "prompt": "SUB-TASK: find the answer"},
                             "Delegating."), last_user="S1:"),
        ],
        default=Reply("The subagent found 42."),
    )

    # R: a rewind, which only the interactive CLI writes: driven in tmux.
    if shutil.which("tmux"):
        gemini_rewind_in_tmux(lab, log)

    copy_tree(lab.gemini_dir / "tmp", out / "tmp", ignore=shutil.ignore_patterns("logs", "logs.json"))
    shutil.copy(lab.gemini_dir / "projects.json", out / "projects.json")
    return log


def gemini_rewind_in_tmux(lab: Lab, log: Log) -> None:
    """Two prompts in the interactive Gemini CLI (in a tmux pane, 160x50), `/rewind` to the
    second one (Up, Enter, then Enter on "Rewind conversation"), the prefilled prompt erased and
    a third one sent."""
    import shlex
    import subprocess
    import time

    rules = [Rule(Reply("First answer: ALPHA."), last_user="R1:"),
             Rule(Reply("Second answer: BRAVO, to be rewound."), last_user="R2:"),
             Rule(Reply("Third answer: CHARLIE after the rewind."), last_user="R3:")]
    lab.script(rules, Reply("Default answer."))
    env = {**lab.gemini_env(), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    gemini_bin = shlex.quote(lab_gemini_binary())
    socket = ["tmux", "-L", f"pi-context-{lab.root.name}"]
    command = f"cd {shlex.quote(str(lab.project))} && env -i {exports} {gemini_bin} --skip-trust -m lab-model"
    subprocess.run([*socket, "new-session", "-d", "-s", "rw", "-x", "160", "-y", "50", command], check=True)

    def keys(*k: str, wait: float = 1.0) -> None:
        subprocess.run([*socket, "send-keys", "-t", "rw", *k], check=True)
        time.sleep(wait)

    def screen() -> str:
        return subprocess.run([*socket, "capture-pane", "-t", "rw", "-p"], capture_output=True, text=True).stdout

    def wait_for(text: str, timeout: float = 60) -> None:
        end = time.time() + timeout
        while text not in screen():
            if time.time() > end:
                raise AssertionError(f"{text!r} never shown:\n{screen()}")
            time.sleep(0.5)

    try:
        wait_for("Type your message")
        keys("R1: first question"); keys("Enter"); wait_for("ALPHA")
        keys("R2: second question"); keys("Enter"); wait_for("BRAVO")
        keys("/rewind"); keys("Enter"); wait_for("Stay at current position")
        keys("Up"); keys("Enter"); wait_for("Rewind conversation")
        keys("Enter", wait=2)
        keys(*["BSpace"] * 25)
        keys("R3: third question"); keys("Enter"); wait_for("CHARLIE")
    finally:
        subprocess.run([*socket, "kill-server"], check=False)
    chats = lab.gemini_chats_dir()
    chat = next(p for p in sorted(chats.glob("*.jsonl")) if "BRAVO" in p.read_text() and "CHARLIE" in p.read_text())
    session_id = json.loads(chat.read_text().splitlines()[0])["sessionId"]
    commands = ["`gemini --skip-trust -m lab-model` in a tmux pane (160x50, TERM=xterm-256color): "
                "type `R1: first question`, Enter; `R2: second question`, Enter; `/rewind`, Enter; Up "
                "(the R2 message), Enter; Enter (\"Rewind conversation\"); Backspace ×25 (the prefilled "
                "prompt); `R3: third question`, Enter; then the pane is closed"]
    for rule in rules:
        cond = {k: v for k, v in vars(rule).items() if k not in ("reply", "used") and v is not None}
        commands.append(f"  - rule {json.dumps(cond)} → {_reply(rule.reply)}")
    log.sessions.append(("A rewind: the interactive `/rewind` to the second prompt, then a third prompt",
                         session_id, commands))


def lab_gemini_binary() -> str:
    from lab import agent_binaries
    return agent_binaries()["gemini"]


def copy_tree(src: Path, dst: Path, ignore=None) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=ignore)


def write_origin(out: Path, agent: str, version: str, layout: str, log: Log, setup: str) -> None:
    lines = [
        f"# Origin of the {agent} fixtures (real transcripts)",
        "",
        f"Written by {agent} {version} itself, run headless and offline in a temporary HOME against",
        "the scripted model server `tests/agents/model_server.py`, by `tests/agents/make_fixtures.py`",
        f"on {datetime.date.today().isoformat()}. Regenerate with `python3 tests/agents/make_fixtures.py`.",
        f"Nothing was edited, trimmed or replaced: this is a copy of {layout} as the agent wrote it.",
        "Paths are temporary lab paths (`$LAB` below); prompts and replies are invented, the replies",
        "coming from the model server's rules listed under each command.",
        "",
        setup,
        "",
        "## Sessions",
        "",
    ]
    for scenario, session_id, commands in log.sessions:
        lines += [f"### `{session_id}`", "", scenario, "", *[f"- {c}" if not c.startswith("  ") else c for c in commands], ""]
    (out / "ORIGIN.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "fixtures")
    parser.add_argument("--keep", action="store_true", help="keep the labs and print where they are")
    parser.add_argument("--only", default="claude,codex,gemini,copilot,opencode", help="comma-separated agents to run")
    args = parser.parse_args()
    only = set(args.only.split(","))

    if "claude" in only:
        make_claude_fixtures(args)
    if "codex" in only:
        make_codex_fixtures(args)
    if "gemini" in only:
        with Lab(keep=args.keep) as lab:
            out = args.out / "gemini-real"
            log = make_gemini(lab, out)
            write_origin(out, "Gemini CLI", "0.61.0", "`~/.gemini/tmp/` and `~/.gemini/projects.json`", log, GEMINI_SETUP)
            print(f"gemini lab: {lab.root}" if args.keep else "gemini fixtures written", file=sys.stderr)
    if "opencode" in only:
        make_opencode(args.out / "opencode-real" / "opencode")
        print("opencode fixture written", file=sys.stderr)
    if "copilot" in only:
        with Lab(keep=args.keep) as lab:
            out = args.out / "copilot-real"
            log = make_copilot(lab, out)
            write_origin(out, "GitHub Copilot CLI", "1.0.102",
                         "the `events.jsonl` of each `$COPILOT_HOME/session-state/<id>/`", log, COPILOT_SETUP)
            print(f"copilot lab: {lab.root}" if args.keep else "copilot fixtures written", file=sys.stderr)


def make_opencode(out: Path) -> None:
    """Two `opencode run` turns (bash, read, then a `task` subagent) against the model server, in
    a temporary HOME; copies OpenCode's data directory as it was left (tests/fixtures/opencode-real/ORIGIN.md)."""
    import os
    import subprocess
    import tempfile

    lab = Path(tempfile.mkdtemp(prefix="ocrun-"))
    home, proj = lab / "home", lab / "proj"
    home.mkdir()
    proj.mkdir()
    (proj / "notes.txt").write_text("a note in the project\n")
    rules = [
        Rule(Reply("Running it.", tool_calls=[{"name": "bash", "input": {
            "command": "echo hello-from-bash", "description": "Print a marker"}}]), api="chat", last_user="run the marker"),
        Rule(Reply("Reading it.", tool_calls=[{"name": "read", "input": {"filePath": str(proj / "notes.txt")}}]),
             api="chat", last_user="hello-from-bash"),
        Rule(Reply("Delegating.", tool_calls=[{"name": "task", "input": {
            "description": "check marker", "prompt": "subagent: print sub-agent-bash", "subagent_type": "general"}}]),
             api="chat", last_user="delegate it"),
        Rule(Reply("Checking.", tool_calls=[{"name": "bash", "input": {
            "command": "echo sub-agent-bash", "description": "marker"}}]), api="chat", last_user="subagent: print"),
    ]
    data = home / ".local" / "share"
    with ModelServer(rules, default=Reply("done.")) as server:
        config = {"provider": {"fake": {"npm": "@ai-sdk/openai-compatible",
                                        "options": {"baseURL": server.url + "/v1", "apiKey": "x"},
                                        "models": {"m": {"tool_call": True}}}},
                  "model": "fake/m", "permission": {"bash": "allow", "read": "allow", "edit": "allow"}}
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "PWD": str(proj),
               "OPENCODE_CONFIG_CONTENT": json.dumps(config), "npm_config_registry": "http://127.0.0.1:9/",
               "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
               "OPENCODE_DISABLE_SHARE": "1", "XDG_DATA_HOME": str(data),
               "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
               "XDG_STATE_HOME": str(home / ".local" / "state")}

        def run(*args: str) -> str:
            argv = [agent_binaries()["opencode"], "run", "--format", "json", "-m", "fake/m", *args]
            return subprocess.run(argv, cwd=proj, env=env, check=True, capture_output=True, text=True,
                                  timeout=300).stdout

        first = run("run the marker")
        session = next(json.loads(line)["sessionID"] for line in first.splitlines() if "sessionID" in line)
        run("--session", session, "delegate it")
    out.mkdir(parents=True, exist_ok=True)
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        if (data / "opencode" / name).exists():
            shutil.copyfile(data / "opencode" / name, out / name)
    shutil.rmtree(lab)


def make_claude_fixtures(args) -> None:
    with Lab(keep=args.keep) as lab:
        out = args.out / "claude-real"
        log = make_claude(lab, out)
        write_origin(out, "Claude Code", "2.1.328", "`$CLAUDE_CONFIG_DIR/projects/`", log, CLAUDE_SETUP)
        print(f"claude lab: {lab.root}" if args.keep else "claude fixtures written", file=sys.stderr)


def make_codex_fixtures(args) -> None:
    with Lab(keep=args.keep) as lab:
        out = args.out / "codex-real"
        log = make_codex(lab, out)
        write_origin(out, "Codex CLI", "0.169.0", "`$CODEX_HOME/sessions/`", log, CODEX_SETUP)
        print(f"codex lab: {lab.root}" if args.keep else "codex fixtures written", file=sys.stderr)


CLAUDE_SETUP = """Environment of every run (`tests/agents/lab.py`, `Lab.claude_env`): `HOME=$LAB/home`,
`CLAUDE_CONFIG_DIR=$LAB/home/.claude`, `TMPDIR=$LAB/tmp`, `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`,
`ANTHROPIC_API_KEY` (a dummy), `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_TELEMETRY=1`,
`DISABLE_AUTOUPDATER=1`, `DISABLE_ERROR_REPORTING=1`; working directory `$LAB/project`; stdin
/dev/null. `claude` is the native binary installed by `scripts/setup-agents`."""

CODEX_SETUP = """Environment of every run (`tests/agents/lab.py`, `Lab.codex_env`): `HOME=$LAB/home`,
`CODEX_HOME=$LAB/home/.codex` holding a `config.toml` with the `lab` provider
(`base_url = "http://127.0.0.1:PORT/v1"`, `wire_api = "responses"`, model `lab-model`) and the
network features off, `TMPDIR=$LAB/tmp`; working directory `$LAB/project`; stdin /dev/null.
`codex` is the native binary installed by `scripts/setup-agents`."""

COPILOT_SETUP = """Environment of every run (`tests/agents/lab.py`, `Lab.copilot_env`): `HOME=$LAB/home`,
`COPILOT_HOME=$LAB/home/.copilot`, `COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:PORT/v1`,
`COPILOT_PROVIDER_TYPE=openai` (Chat Completions), `COPILOT_PROVIDER_API_KEY` (a dummy),
`COPILOT_MODEL=lab-model`, `COPILOT_AUTO_UPDATE=false`, `XDG_CACHE_HOME` (where Copilot unpacks its
package), `TMPDIR=$LAB/tmp`; working directory `$LAB/project`; stdin /dev/null. `copilot` is the
native binary of `@github/copilot-linux-x64` installed by `scripts/setup-agents`. Each session's
directory holds more of Copilot's state (`workspace.yaml`, `checkpoints/`, `session.db`, …): only
`events.jsonl`, the transcript, is copied."""
GEMINI_SETUP = """Environment of every run (`tests/agents/lab.py`, `Lab.gemini_env`): `HOME=$LAB/home`,
`$LAB/home/.gemini/settings.json` selecting the API-key auth (`security.auth.selectedType:
gemini-api-key`) with updates, statistics and telemetry off, `GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT`,
`GEMINI_API_KEY` (a dummy), `GEMINI_TELEMETRY_ENABLED=false`, `GEMINI_CLI_NO_RELAUNCH=1`,
`TMPDIR=$LAB/tmp`; working directory `$LAB/project`; stdin /dev/null. `gemini` is the npm
package's bundle installed by `scripts/setup-agents`, run by Node 20. The `logs/` directories
Gemini keeps beside `chats/` (and its `logs.json` of prompts) are left out. A rewind (`/rewind`) is written only by the interactive
CLI: it was driven in tmux (keystrokes below; skipped without tmux)."""


if __name__ == "__main__":
    main()
