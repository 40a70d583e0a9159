// The dreamer's write jail (src/dream/jail.ts) in the real Pi runtime: the `pi` CLI started as
// `pi-context dream` starts it (src/dream/dreamer.rs: JSON mode, no session, the dreamer's tools,
// nothing else loaded, the jail as the one extension, the run's home and writable homes in the
// environment), with the scripted faux model asking for writes inside and outside its homes.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";

import { BIN, EXTENSION_DIR, tempDir } from "./harness.mjs";

const REPO = dirname(EXTENSION_DIR);
const PI_CLI = join(EXTENSION_DIR, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
const FAUX_MODEL = join(EXTENSION_DIR, "test", "fixtures", "faux-model.ts");
/** As src/dream/dreamer.rs names them. */
const DREAMER_TOOLS = "read,grep,find,ls,write,edit,notes_move";

/**
 * Runs the dreamer on `home` with `writable` homes and the faux model's `steps`; the events of its
 * JSON stream. The jail is written out beside the run as the binary writes it (`dream-jail.ts`).
 */
function dream(dir, home, writable, steps) {
  const jail = join(dir, "jail", "dream-jail.ts");
  mkdirSync(dirname(jail), { recursive: true });
  copyFileSync(join(REPO, "src", "dream", "jail.ts"), jail);
  const run = spawnSync(
    process.execPath,
    [
      PI_CLI,
      // What tests/common/pi.rs's faux `pi` adds: offline, the scripted model.
      "--offline",
      "-e",
      FAUX_MODEL,
      // What src/dream/dreamer.rs passes.
      ...["--mode", "json", "--no-session", "--tools", DREAMER_TOOLS],
      ...["--no-extensions", "--no-context-files", "--no-skills", "--no-prompt-templates", "--no-mcp"],
      ...["--extension", jail, "--model", "faux/faux-1", "--", "Tidy the notes."],
    ],
    {
      cwd: home,
      env: {
        ...process.env,
        PI_CODING_AGENT_DIR: join(dir, "agent"),
        PI_CONTEXT_DREAM_HOME: home,
        PI_CONTEXT_DREAM_WRITABLE: JSON.stringify(writable),
        PI_CONTEXT_DREAM_TOKEN: "jail-test",
        PI_NOTES_AGENT: "anonymous",
        PI_CONTEXT_MODEL: "faux-1",
        PI_CONTEXT_BIN: BIN,
        FAUX_SCRIPT: JSON.stringify(steps),
      },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
    },
  );
  assert.equal(run.status, 0, `pi failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

/** The end of each tool call, by call order: `{tool, path, isError, text}`. */
function toolEnds(events) {
  const starts = new Map(
    events.filter((e) => e.type === "tool_execution_start").map((e) => [e.toolCallId, e.args?.path]),
  );
  return events
    .filter((e) => e.type === "tool_execution_end")
    .map((e) => ({
      tool: e.toolName,
      path: starts.get(e.toolCallId),
      isError: e.isError,
      text: (e.result?.content ?? []).map((c) => c.text ?? "").join(""),
    }));
}

test("the write jail refuses writes outside the dreamer's homes and lets one inside through", { timeout: 180_000 }, () => {
  const dir = tempDir("jail");
  const home = join(dir, "notes");
  for (const sub of ["human", "project", "dreams", ".git"]) mkdirSync(join(home, sub), { recursive: true });
  const write = (path) => ({ tool: "write", args: { path, content: `written to ${path}\n` } });
  const refused = [
    "../outside/escaped.md", // outside the notes home
    join(dir, "absolute.md"), // outside, by absolute path
    "project/decisions.md", // in the home, not a writable home of this run
    "dreams/forged.md", // dream reports are never written
    ".git/config", // nor git metadata
  ];
  const events = dream(dir, home, ["human/"], [write("human/kept.md"), ...refused.map(write), { text: "done" }]);

  const ends = toolEnds(events);
  assert.deepEqual(
    ends.map((e) => [e.path, e.isError]),
    [["human/kept.md", false], ...refused.map((path) => [path, true])],
    JSON.stringify(ends, null, 2),
  );
  for (const end of ends.slice(1)) assert.match(end.text, /^write jail: /, JSON.stringify(end));
  assert.equal(readFileSync(join(home, "human", "kept.md"), "utf8"), "written to human/kept.md\n");
  for (const path of [
    join(dir, "outside", "escaped.md"),
    join(dir, "absolute.md"),
    join(home, "project", "decisions.md"),
    join(home, "dreams", "forged.md"),
    join(home, ".git", "config"),
  ]) {
    assert.ok(!existsSync(path), `${path} was written`);
  }
});
