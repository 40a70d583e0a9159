// The notes tools inside a real Pi session, called by a scripted model.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { test } from "node:test";

import { call, createSession, observe, readJsonl, say, tempDir } from "./harness.mjs";

async function notesSession(extra = {}) {
  const home = tempDir("notes-home");
  const s = await createSession({ env: { PI_NOTES_HOME: home, PI_NOTES_AGENT: "tester" }, ...extra });
  return { ...s, home };
}

test("notes_write then notes_search finds the note; notes_read and notes_list see it", async () => {
  const { session, faux, home, dispose } = await notesSession();
  try {
    const seen = [];
    faux.setResponses([
      call("notes_write", { address: "@self/ideas/colors", content: "Favourite colour: ULTRAMARINE-77.\nSecond line.\n" }),
      observe(seen, call("notes_search", { query: "ultramarine" })),
      observe(seen, call("notes_read", { address: "@self/ideas/colors" })),
      observe(seen, call("notes_list", {})),
      observe(seen, call("notes_edit", { address: "@self/ideas/colors", edits: [{ oldText: "Second line.", newText: "Edited line." }] })),
      observe(seen, say("saved and found")),
    ]);
    await session.prompt("remember my favourite colour");
    assert.equal(faux.getPendingResponseCount(), 0);
    const [written, searched, read, listed, edited] = seen;
    for (const r of seen) assert.equal(r.isError, false, `${r.toolName}: ${r.text}`);

    const w = JSON.parse(written.text);
    assert.equal(w.address, "@self/ideas/colors.md");
    assert.equal(w.outcome, "created");
    const file = join(home, "agents", "tester", "ideas", "colors.md");
    assert.ok(existsSync(file), `${file} written under the agent's home (PI_NOTES_AGENT)`);

    const files = JSON.parse(searched.text).files;
    assert.equal(files.length, 1, searched.text);
    assert.equal(files[0].address, "@self/ideas/colors.md");
    assert.match(files[0].matches[0].text, /ULTRAMARINE-77/);
    assert.equal(typeof files[0].matches[0].offset_chars, "number");

    assert.ok(read.text.startsWith("--- READ WINDOW ---\naddress: @self/ideas/colors.md\n"), read.text);
    assert.ok(read.text.includes("\n\nFavourite colour: ULTRAMARINE-77.\nSecond line."), read.text);

    assert.ok(JSON.parse(listed.text).files.some((f) => f.address === "@self/ideas/colors.md"), listed.text);

    const e = JSON.parse(edited.text);
    assert.equal(e.applied, 1);
    assert.equal(e.change_kind, "body");
    assert.match(readFileSync(file, "utf8"), /Edited line\./);

    const onDisk = readJsonl(session.sessionFile).filter((x) => x.type === "message" && x.message.role === "toolResult");
    assert.deepEqual(
      onDisk.map((x) => [x.message.toolName, x.message.content[0].text]),
      seen.map((r) => [r.toolName, r.text]),
      "the session JSONL holds the notes tool results",
    );
  } finally {
    dispose();
  }
});

test("session, @model and @project notes land in the homes named by the live context", async () => {
  const { session, faux, home, cwd, dispose } = await notesSession();
  try {
    const seen = [];
    faux.setResponses([
      call("notes_write", { address: "scratch/todo", content: "session note" }),
      observe(seen, call("notes_write", { address: "@model/habits", content: "model note" })),
      observe(seen, call("notes_write", { address: "@project/plan", content: "project note" })),
      observe(seen, say("done")),
    ]);
    await session.prompt("write three notes");
    for (const r of seen) assert.equal(r.isError, false, r.text);
    assert.ok(existsSync(join(home, "pi", "session", session.sessionId, "scratch", "todo.md")), "session id passed");
    assert.ok(existsSync(join(home, "models", "faux-1", "habits.md")), "model passed (last / segment)");
    const root = realpathSync(cwd);
    const key = `${basename(root)}-${createHash("sha1").update(root).digest("hex").slice(0, 8)}`;
    assert.ok(existsSync(join(home, "project", key, "plan.md")), `cwd passed (project key ${key})`);
  } finally {
    dispose();
  }
});

test("a bad notes address is an error result, not a crash", async () => {
  const { session, faux, dispose } = await notesSession();
  try {
    const seen = [];
    faux.setResponses([
      call("notes_read", { address: "@bogus/x" }),
      observe(seen, call("notes_write", { address: "../escape", content: "x" })),
      observe(seen, call("notes_read", { address: "@self/does/not/exist" })),
      observe(seen, say("refused")),
    ]);
    await session.prompt("try bad addresses");
    assert.equal(faux.getPendingResponseCount(), 0);
    const [bogus, escape, missing] = seen;
    for (const r of seen) assert.equal(r.isError, true, `${r.toolName}: ${r.text}`);
    assert.equal(JSON.parse(bogus.text).error.code, "invalid_address");
    assert.equal(JSON.parse(escape.text).error.code, "invalid_address");
    assert.equal(JSON.parse(missing.text).error.code, "not_found");
  } finally {
    dispose();
  }
});
