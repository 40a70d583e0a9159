"""The Claude Code plugin of this repository (.claude-plugin/marketplace.json, plugins/claude-code/):

- its launcher, plugins/claude-code/pi-context.sh, finds the binary as the npm package does
  (PI_CONTEXT_BIN, this platform's npm package, PATH) and fails open;
- installed into the real Claude Code from this repository's path (`claude plugin marketplace
  add` + `claude plugin install`, offline), its hooks push the boot block naming the tools as
  Claude Code names a plugin's (`mcp__plugin_pi-context_pi-context__…`), and its MCP server
  answers them.

    scripts/test-agents -k Plugin -k Launcher
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import tomllib
import unittest
from pathlib import Path

from lab import REPO, Lab, last_user_text, pi_context_binary
from model_server import Reply, Rule
from test_hooks import BOOT, pushed

PLUGIN = REPO / "plugins" / "claude-code"
LAUNCHER = PLUGIN / "pi-context.sh"
TOOL_PREFIX = "mcp__plugin_pi-context_pi-context__"
NODE = shutil.which("node")


@functools.cache
def platform_package() -> str | None:
    """This machine's platform package, as locate.mjs names it (None: node missing, or none built)."""
    if not NODE:
        return None
    key = subprocess.run(
        [NODE, "-p", 'process.platform + "-" + process.arch + (process.platform === "linux" && '
                     '!process.report.getReport().header.glibcVersionRuntime ? "-musl" : "")'],
        capture_output=True, text=True, check=True).stdout.strip()
    return {"linux-x64": "@pi-context/linux-x64", "linux-arm64": "@pi-context/linux-arm64",
            "darwin-arm64": "@pi-context/darwin-arm64", "darwin-x64": "@pi-context/darwin-x64"}.get(key)


def fake_binary(path: Path, label: str, exit_code: int = 0) -> Path:
    """A `pi-context` that says which one it is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "{label} $*"\necho "{label} stderr" >&2\nexit {exit_code}\n')
    path.chmod(0o755)
    return path


def npm_install(node_modules: Path, version: str, platform_version: str | None = None, nested: bool = False) -> Path:
    """The layout `npm install pi-context` leaves in NODE_MODULES: the package, and its platform
    package beside it (hoisted, a local install) or inside it (nested, `npm install -g`); the
    directory holding the platform package."""
    package = node_modules / "pi-context"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "pi-context", "version": version}))
    holder = package / "node_modules" if nested else node_modules
    platform = holder / platform_package()
    platform.mkdir(parents=True)
    (platform / "package.json").write_text(
        json.dumps({"name": platform_package(), "version": platform_version or version}))
    fake_binary(platform / "bin" / "pi-context", f"package {holder}")
    return holder


class ManifestTest(unittest.TestCase):
    def test_the_plugin_is_the_crates_version(self):
        crate = tomllib.loads((REPO / "Cargo.toml").read_text())["package"]["version"]
        plugin = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
        self.assertEqual(plugin["version"], crate, "Claude Code updates a plugin when its version changes")

    def test_the_hooks_name_the_server_as_claude_code_names_the_plugins(self):
        marketplace = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
        [entry] = marketplace["plugins"]
        self.assertEqual((REPO / entry["source"]).resolve(), PLUGIN)
        plugin = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())["name"]
        self.assertEqual(entry["name"], plugin)
        [server] = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
        hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
        commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
        self.assertEqual(len(commands), 3)
        for command in commands:
            self.assertTrue(command.endswith(f" --mcp-server plugin_{plugin}_{server}"), command)
        self.assertEqual(TOOL_PREFIX, f"mcp__plugin_{plugin}_{server}__")


class LauncherTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="pi-context-launcher-"))
        self.addCleanup(shutil.rmtree, self.dir)
        self.cwd = self.dir / "project"
        self.cwd.mkdir()
        self.path_dir = self.dir / "path"
        self.path_dir.mkdir()
        # Only node (when there is one) and the shell's tools: no pi-context of the machine's.
        self.system_path = os.pathsep.join(
            dict.fromkeys(([str(Path(NODE).parent)] if NODE else []) + ["/usr/bin", "/bin"]))

    def launch(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        base = {"PATH": f"{self.path_dir}{os.pathsep}{self.system_path}", "HOME": str(self.dir)}
        return subprocess.run(["sh", str(LAUNCHER), *args], cwd=self.cwd, env={**base, **(env or {})},
                              input="{}", capture_output=True, text=True, timeout=60)

    def test_pi_context_bin_comes_first(self):
        given = fake_binary(self.dir / "given" / "pi-context", "given")
        fake_binary(self.path_dir / "pi-context", "path")
        if platform_package():
            npm_install(self.cwd / "node_modules", "1.2.3")
        out = self.launch("mcp", "--agent", "claude-code", env={"PI_CONTEXT_BIN": str(given)})
        self.assertEqual(out.stdout, "given mcp --agent claude-code\n")

    @unittest.skipUnless(platform_package(), "no node, or no platform package for this machine")
    def test_the_platform_package_of_a_local_npm_install_comes_before_path(self):
        holder = npm_install(self.cwd / "node_modules", "1.2.3")
        fake_binary(self.path_dir / "pi-context", "path")
        self.assertEqual(self.launch("--version").stdout, f"package {holder} --version\n")

    @unittest.skipUnless(platform_package(), "no node, or no platform package for this machine")
    def test_the_platform_package_of_a_global_npm_install(self):
        prefix = self.dir / "prefix"
        holder = npm_install(prefix / "lib" / "node_modules", "1.2.3", nested=True)
        out = self.launch("--version", env={"npm_config_prefix": str(prefix)})
        self.assertEqual(out.stdout, f"package {holder} --version\n")

    @unittest.skipUnless(platform_package(), "no node, or no platform package for this machine")
    def test_a_platform_package_of_another_version_is_passed_over(self):
        npm_install(self.cwd / "node_modules", "1.2.3", platform_version="1.2.2")
        fake_binary(self.path_dir / "pi-context", "path")
        self.assertEqual(self.launch("--version").stdout, "path --version\n")

    def test_pi_context_on_path(self):
        fake_binary(self.path_dir / "pi-context", "path")
        self.assertEqual(self.launch("hook", "claude", "prompt").stdout, "path hook claude prompt\n")

    def test_no_binary_prints_nothing_and_exits_0(self):
        for args in (["hook", "claude", "session-start"], ["mcp", "--agent", "claude-code"]):
            out = self.launch(*args)
            self.assertEqual((out.returncode, out.stdout, out.stderr), (0, "", ""), args)

    def test_a_hook_whose_binary_fails_stays_silent_and_exits_0(self):
        broken = fake_binary(self.dir / "broken" / "pi-context", "broken", exit_code=127)
        out = self.launch("hook", "claude", "prompt", env={"PI_CONTEXT_BIN": str(broken)})
        self.assertEqual((out.returncode, out.stderr), (0, ""))
        # The MCP server's failure is Claude Code's to show: its status passes through.
        self.assertEqual(self.launch("mcp", env={"PI_CONTEXT_BIN": str(broken)}).returncode, 127)


class PluginTest(unittest.TestCase):
    """Installed from this repository's path into the real Claude Code, once for the class."""

    @classmethod
    def setUpClass(cls):
        cls.lab = Lab(trace_connects=bool(shutil.which("strace")))
        try:
            cls.installs = [
                cls.lab.claude_command("plugin", "marketplace", "add", str(REPO)).check(),
                cls.lab.claude_command("plugin", "install", "pi-context@pi-context").check(),
            ]
        except BaseException:
            cls.lab.close()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.lab.close()

    def run_claude(self, prompt: str, *args: str, path: str | None = None, binary: str | None = None):
        env = {"PATH": path or f"{self.lab.bin}{os.pathsep}/usr/bin{os.pathsep}/bin"}
        if binary:
            env["PI_CONTEXT_BIN"] = binary
        return self.lab.claude(prompt, "--output-format", "json", *args, env=env).check()

    def test_this_repository_is_a_valid_marketplace(self):
        out = self.lab.claude_command("plugin", "validate", str(REPO)).check()
        self.assertIn("Validation passed", out.stdout)

    def test_installing_from_the_repository_path_needs_no_network(self):
        listed = self.lab.claude_command("plugin", "list").check().stdout
        self.assertIn("pi-context@pi-context", listed)
        self.assertIn("enabled", listed)
        if self.lab.trace_connects:
            self.assertEqual([c for run in self.installs for c in run.connects], [])

    def test_the_boot_names_the_plugins_tools_and_its_server_answers_them(self):
        call = {"name": f"{TOOL_PREFIX}notes_write",
                "input": {"address": "@project/plugin-canary.md", "content": "plugin canary 3b9"}}
        self.lab.script([Rule(Reply("Writing.", [call]), last_user="keep a note")], Reply("Noted."))
        run = self.run_claude("please keep a note", "--allowedTools", f"{TOOL_PREFIX}notes_write",
                              binary=pi_context_binary())
        self.assertEqual(json.loads(run.stdout)["result"], "Noted.")
        boots = pushed(run.requests[0], BOOT)
        self.assertEqual(len(boots), 1)
        boot = boots[0][2]
        self.assertIn(f"{TOOL_PREFIX}history_read", boot)
        self.assertNotIn("mcp__pi-context__", boot, "the names the model sees for a plugin's server")
        self.assertIn(f"{TOOL_PREFIX}history_read", json.dumps(run.requests[0]["body"]), "the tool exists")
        result = json.loads(last_user_text(run.requests[1]))
        self.assertEqual(result["outcome"], "created", result)
        self.assertIn("plugin canary 3b9", self.lab.pi_context("notes", "read", "@project/plugin-canary.md").stdout)
        if self.lab.trace_connects:
            self.assertEqual(set(run.connects), {f"127.0.0.1:{self.lab.server.port}"})

    def test_the_binary_on_path_is_found(self):
        on_path = self.lab.root / "cargo-bin"
        on_path.mkdir(exist_ok=True)
        link = on_path / "pi-context"
        if not link.exists():
            link.symlink_to(pi_context_binary())
        self.lab.script([], Reply("Hello."))
        run = self.run_claude("hello", path=f"{self.lab.bin}{os.pathsep}{on_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
        self.assertEqual(len(pushed(run.requests[0], BOOT)), 1)

    def test_without_a_binary_claude_still_answers(self):
        self.lab.script([], Reply("Hello without memory."))
        run = self.run_claude("hello")
        self.assertEqual(json.loads(run.stdout)["result"], "Hello without memory.")
        self.assertEqual(pushed(run.requests[0], BOOT), [])


if __name__ == "__main__":
    unittest.main()
