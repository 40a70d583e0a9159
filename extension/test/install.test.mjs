// The install path a user follows: `cargo install --path .`, then `pi install ./extension`; then
// the real `pi` CLI in print mode, with a scripted model, calls a tool of the installed package
// and finds the installed binary on PATH (no PI_CONTEXT_BIN).
//
// PI_CONTEXT_INSTALL_PROFILE=release installs a release build (slow on a cold cache); the default
// installs the debug profile (`cargo install --debug`), which reuses `cargo build`'s artifacts.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";

import { EXTENSION_DIR, readJsonl, tempDir } from "./harness.mjs";

const REPO = dirname(EXTENSION_DIR);
const PI_CLI = join(EXTENSION_DIR, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
const FAUX_MODEL = join(EXTENSION_DIR, "test", "fixtures", "faux-model.ts");

test("cargo install + pi install ./extension: pi list shows it, pi -p calls its tool", { timeout: 900_000 }, () => {
  const dir = tempDir("install");
  const root = join(dir, "cargo");
  const agentDir = join(dir, "agent");
  const sessions = join(dir, "sessions");

  const profile = process.env.PI_CONTEXT_INSTALL_PROFILE === "release" ? [] : ["--debug"];
  execFileSync("cargo", ["install", ...profile, "--locked", "--quiet", "--path", ".", "--root", root], {
    cwd: REPO,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const installed = join(root, "bin", "pi-context");
  assert.ok(existsSync(installed), `${installed} installed`);

  // An environment where the only pi-context is the installed one.
  const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", PI_TELEMETRY: "0" };
  delete env.PI_CONTEXT_BIN;
  // The default notes home ($HOME/.agents/notes) must be a temp one: the boot block reads it.
  delete env.PI_NOTES_HOME;
  env.HOME = join(dir, "home");
  mkdirSync(env.HOME, { recursive: true });
  delete env.PI_NOTES_AGENT;
  env.PATH = [join(root, "bin"), dirname(process.execPath), ...(process.env.PATH ?? "").split(delimiter)].join(delimiter);
  const pi = (args, extra = {}) =>
    spawnSync(process.execPath, [PI_CLI, ...args], {
      cwd: REPO,
      env: { ...env, ...extra },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
    });

  const install = pi(["install", "./extension"]);
  assert.equal(install.status, 0, `pi install failed:\n${install.stdout}\n${install.stderr}`);
  const settings = JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));
  assert.ok(
    (settings.packages ?? []).some((p) => String(typeof p === "string" ? p : p.source).endsWith("extension")),
    `settings.json lists the package: ${JSON.stringify(settings)}`,
  );

  const list = pi(["list"]);
  assert.equal(list.status, 0, list.stderr);
  assert.ok(list.stdout.includes(EXTENSION_DIR), `pi list shows the package:\n${list.stdout}`);

  const run = pi(
    ["--offline", "-p", "--model", "faux/faux-1", "-e", FAUX_MODEL, "--session-dir", sessions, "The token is MAGENTA-TOKEN-9."],
    {
      FAUX_SCRIPT: JSON.stringify([{ tool: "history_search", args: { query: "magenta-token" } }, { echo: "RESULT " }]),
    },
  );
  assert.equal(run.status, 0, `pi -p failed:\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^RESULT \{"items":\[/, run.stdout);
  const items = JSON.parse(run.stdout.trim().slice("RESULT ".length)).items;
  assert.ok(
    items.some((r) => r.role === "user" && r.content.startsWith("MAGENTA-TOKEN-9")),
    `the installed binary answered: ${run.stdout}`,
  );

  const files = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
  assert.equal(files.length, 1);
  const result = readJsonl(join(sessions, files[0])).find(
    (e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "history_search",
  );
  assert.ok(result, "the session JSONL holds the tool result");
  assert.equal(result.message.isError, false);
});
