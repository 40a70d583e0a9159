// Recall through the real Pi runtime: a new session finds what an earlier one said (in Pi, or in
// Claude Code) with sessions_search and opens the hit with history_read.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { call, createSession, EXTENSION_DIR, observe, pi, say, schemaNames, tempDir } from "./harness.mjs";

test("--schemas lists sessions_list and sessions_search", async () => {
  const names = await schemaNames();
  for (const name of ["sessions_list", "sessions_search"]) assert.ok(names.includes(name), `${name}: ${names}`);
});

test("a later session finds an earlier one's words and reads the hit", async () => {
  const env = { PI_CONTEXT_CACHE_DIR: tempDir("cache"), PI_NOTES_HOME: tempDir("notes") };
  const first = await createSession({ env });
  let sessionDir, cwd, firstId;
  try {
    first.faux.setResponses([say("Noted: the staging password rotates on Fridays.")]);
    await first.session.prompt("Remember that the staging password is ZEBRA-MANGO-77.");
    sessionDir = first.sessionDir;
    cwd = first.cwd;
    firstId = first.session.sessionId;
  } finally {
    first.dispose();
  }

  // A new session of the same project, kept in the same custom session directory: Pi's
  // getSessionDir() is how the binary finds it.
  const second = await createSession({ env, manager: () => pi.SessionManager.create(cwd, sessionDir) });
  try {
    const seen = [];
    let hit;
    second.faux.setResponses([
      call("sessions_search", { query: "zebra mango", scope: "all" }),
      observe(seen, () => {
        const result = JSON.parse(seen.at(-1).text);
        const session = result.sessions.find((s) => s.session_id === firstId);
        assert.ok(session, `the first session is found: ${seen.at(-1).text}`);
        hit = session.hits[0];
        return call("history_read", { session_id: session.session_id.slice(0, 13), seq: hit.seq, leaf_id: hit.leaf_id ?? undefined });
      }),
      observe(seen, say("It is ZEBRA-MANGO-77.")),
    ]);
    await second.session.prompt("What was the staging password last time?");
    assert.equal(second.faux.getPendingResponseCount(), 0, "the whole script ran");
    const [search, read] = seen;
    assert.equal(search.isError, false, search.text);
    assert.equal(hit.role, "user");
    assert.equal(hit.on_branch, true);
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /^--- READ WINDOW ---\nseq: \d+\n/);
    assert.ok(read.text.includes("ZEBRA-MANGO-77"), read.text);
    assert.ok(Buffer.byteLength(search.text) <= 32768);
  } finally {
    second.dispose();
  }
});

test("sessions_search finds a Claude Code session's words and history_read opens the hit", async () => {
  // A Claude Code session of this project, where Claude Code keeps it: the fixture of the
  // binary's own tests (tests/fixtures/harnesses/), under CLAUDE_CONFIG_DIR.
  const dir = tempDir("session");
  const cwd = join(dir, "work");
  const claudeConfig = tempDir("claude");
  const claudeId = "c1a0de00-1111-4aaa-8bbb-000000000001";
  const encoded = cwd.replace(/[^A-Za-z0-9]/g, "-");
  const fixture = readFileSync(join(EXTENSION_DIR, "..", "tests", "fixtures", "harnesses", "claude", "session.jsonl"), "utf8");
  mkdirSync(join(claudeConfig, "projects", encoded), { recursive: true });
  writeFileSync(
    join(claudeConfig, "projects", encoded, `${claudeId}.jsonl`),
    fixture.replaceAll("__CWD__", JSON.stringify(cwd).slice(1, -1)),
  );
  const env = { PI_CONTEXT_CACHE_DIR: tempDir("cache"), PI_NOTES_HOME: tempDir("notes"), CLAUDE_CONFIG_DIR: claudeConfig };
  const { session, faux, dispose } = await createSession({ env, dir });
  try {
    const seen = [];
    let found, hit;
    faux.setResponses([
      call("sessions_search", { query: "kumquat migration", harness: ["claude"] }),
      observe(seen, () => {
        const result = JSON.parse(seen.at(-1).text);
        found = result.sessions.find((s) => s.session_id === claudeId);
        assert.ok(found, `the Claude Code session is found: ${seen.at(-1).text}`);
        hit = found.hits[0];
        return call("history_read", { session_id: claudeId.slice(0, 8), seq: hit.seq, leaf_id: hit.leaf_id ?? undefined });
      }),
      observe(seen, say("Pin zeta-orm 3.1.")),
    ]);
    await session.prompt("Why did the kumquat migration fail when Claude Code looked at it?");
    assert.equal(faux.getPendingResponseCount(), 0, "the whole script ran");
    const [search, read] = seen;
    assert.equal(search.isError, false, search.text);
    assert.equal(found.harness, "claude");
    assert.equal(found.parent_session_id, null);
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /^--- READ WINDOW ---\nseq: \d+\n/);
    assert.ok(read.text.includes("kumquat migration"), read.text);
  } finally {
    dispose();
    delete process.env.CLAUDE_CONFIG_DIR;
  }
});
