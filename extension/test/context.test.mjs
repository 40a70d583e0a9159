// callContext() and binaryPath() on their own (index.ts loaded by Node's type stripping): the
// cases a live session rarely produces, such as a null leaf.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { tempDir } from "./harness.mjs";

const { binaryPath, callContext } = await import("../index.ts");

function fakeCtx({ file, leaf = "abcd1234", noModel = false } = {}) {
  return {
    cwd: "/work/project",
    model: noModel ? undefined : { provider: "anthropic", id: "claude-x" },
    sessionManager: {
      getSessionFile: () => file,
      getLeafId: () => leaf,
      getSessionId: () => "01a2b3c4-0000-7000-8000-000000000000",
      getSessionDir: () => "/sessions",
      getHeader: () => ({ type: "session", version: 3, id: "01a2b3c4-0000-7000-8000-000000000000" }),
      getEntries: () => [{ type: "message", id: "abcd1234", parentId: null, message: { role: "user", content: "hi" } }],
    },
  };
}

test("a null leaf is sent as \"none\"; a missing model as null", () => {
  const c = callContext(fakeCtx({ leaf: null, noModel: true }), {});
  assert.equal(c.leaf_id, "none");
  assert.equal(c.model, null);
});

test("a session file that exists is sent by path, without entries", () => {
  const file = join(tempDir("ctx"), "s.jsonl");
  writeFileSync(file, "{}\n");
  const c = callContext(fakeCtx({ file }), { PI_NOTES_HOME: "/notes", PI_NOTES_AGENT: "me" });
  assert.deepEqual(c, {
    session_file: file,
    leaf_id: "abcd1234",
    session_id: "01a2b3c4-0000-7000-8000-000000000000",
    cwd: "/work/project",
    agent: "me",
    model: "anthropic/claude-x",
    notes_home: "/notes",
    session_dir: "/sessions",
  });
});

test("a session file not written yet (or none at all): null plus header and entries", () => {
  for (const file of [join(tempDir("ctx"), "not-yet.jsonl"), undefined]) {
    const c = callContext(fakeCtx({ file }), { PI_NOTES_HOME: "", PI_NOTES_AGENT: "  " });
    assert.equal(c.session_file, null);
    assert.deepEqual(c.entries.map((l) => JSON.parse(l).type), ["session", "message"]);
    assert.equal(c.notes_home, null, "empty PI_NOTES_HOME means the binary's default");
    assert.equal(c.agent, null);
  }
});

test("PI_CONTEXT_BIN when set and non-empty, else pi-context on PATH", () => {
  assert.equal(binaryPath({ PI_CONTEXT_BIN: "/opt/pi-context" }), "/opt/pi-context");
  assert.equal(binaryPath({ PI_CONTEXT_BIN: "" }), "pi-context");
  assert.equal(binaryPath({}), "pi-context");
});
