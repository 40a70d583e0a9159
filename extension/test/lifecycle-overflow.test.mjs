// Provider overflow: a request the provider refuses as too long for the context window (or a
// recoverable `length` stop) resets once and retries the turn in the fresh window.

import assert from "node:assert/strict";
import { test } from "node:test";

import { createSession, fauxAssistantMessage, say } from "./harness.mjs";
import { assertBoundary, assertFreshRequest, branch, compactions, markers, recordingModel } from "./lifecycle-lib.mjs";

const TINY = { compaction: { enabled: true, keepRecentTokens: 1_000_000 } };
const overflow = () => fauxAssistantMessage([], { stopReason: "error", errorMessage: "prompt is too long: 210000 tokens > 200000 maximum" });

test("provider overflow resets once and retries in the fresh window; a later, separate overflow resets again", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok"), overflow(), say("recovered")]);
    await s.session.prompt("SENTINEL-OVER in the root window");
    await s.session.prompt("this request overflows");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 3);
    assertFreshRequest(assert, model.requests[2], "SENTINEL-OVER");
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    assert.equal(compactions(entries).length, 1);
    const b = assertBoundary(assert, entries, entries.findIndex((e) => e.type === "compaction"));
    assert.equal(b.boot.details.reason, "overflow");

    // A later, separate overflow is a new failure: it resets again.
    model.script([overflow(), say("recovered again")]);
    await s.session.prompt("overflow again later");
    await s.session.waitForIdle();
    assert.equal(markers(branch(s.session)).length, 2);
  } finally {
    s.dispose();
  }
});

test("a retry that overflows again stays bounded: one marker, one checkpoint, two requests", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([overflow(), overflow(), overflow()]);
    await s.session.prompt("SENTINEL-BOUND overflows at once");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 2);
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1, "bounded: one marker");
    assert.equal(compactions(entries).length, 1, "bounded: one checkpoint");
  } finally {
    s.dispose();
  }
});

test("a recoverable length stop resets once and retries in the fresh window", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok"), fauxAssistantMessage("cut short", { stopReason: "length" }), say("complete now")]);
    await s.session.prompt("SENTINEL-LENGTH");
    await s.session.prompt("long answer please");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 3);
    assertFreshRequest(assert, model.requests[2], "SENTINEL-LENGTH");
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    assert.equal(entries[entries.findIndex((e) => e.type === "compaction") + 2].details.reason, "overflow");
  } finally {
    s.dispose();
  }
});

