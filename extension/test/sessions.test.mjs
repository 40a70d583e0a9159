// Recall through the real Pi runtime: a new session finds what an earlier one said with
// sessions_search and opens the hit with history_read.

import assert from "node:assert/strict";
import { test } from "node:test";

import { call, createSession, observe, pi, say, schemaNames, tempDir } from "./harness.mjs";

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
