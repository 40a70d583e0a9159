// Provider overflow: a request the provider refuses as too long for the context window (or a
// recoverable `length` stop) resets once and retries the turn in the fresh window, whose
// continuation repeats the person's request. One notice; bounded (no loop).

import assert from "node:assert/strict";
import { test } from "node:test";

import { call, createSession, fauxAssistantMessage, say } from "./harness.mjs";
import {
  assertBoundary,
  assertFreshRequest,
  branch,
  compactions,
  count,
  customMessages,
  CONTINUATION,
  markers,
  recordingModel,
  requestText,
} from "./lifecycle-lib.mjs";

const TINY = { compaction: { enabled: true, keepRecentTokens: 1_000_000 } };
const overflow = () => fauxAssistantMessage([], { stopReason: "error", errorMessage: "prompt is too long: 210000 tokens > 200000 maximum" });

/** The notices pi-context and Pi show, except the notes-index warning the test store may give. */
const shown = (notices) => notices.filter((n) => !/notes index/.test(n.message));
const OVERFLOW_NOTICE = /^pi-context: the request was too long for the model's context window; memory cleared · pcw:\S+, retrying it in the fresh window\.$/;

test("provider overflow: one reset, the turn retried in the fresh window with the request, one notice, no compaction by Pi", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok"), overflow(), say("recovered")]);
    await s.session.prompt("SENTINEL-OVER in the root window");
    await s.session.prompt("REQUEST-OVER: summarize everything");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 3);
    const retry = model.requests[2];
    assertFreshRequest(assert, retry, "SENTINEL-OVER");
    assert.equal(count(retry, "REQUEST-OVER: summarize everything"), 1, "the request is repeated once in the fresh window");

    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    assert.equal(compactions(entries).length, 1, "only the checkpoint: Pi compacted nothing");
    const b = assertBoundary(assert, entries, entries.findIndex((e) => e.type === "compaction"));
    assert.equal(b.boot.details.reason, "overflow");
    assert.match(b.continuation.content, /too long for the model's context window/);
    assert.equal(entries.filter((e) => e.type === "context_edit").length, 0, "Pi's own recovery never ran");
    assert.equal(s.events.filter((e) => e.type === "compaction_start").length, 0, "no Pi compaction started (no 'Auto-compaction cancelled')");
    assert.equal(entries.at(-1).message?.role, "assistant", "the retry was answered");

    const notices = shown(s.notices);
    assert.equal(notices.length, 1, JSON.stringify(notices));
    assert.match(notices[0].message, OVERFLOW_NOTICE);
    assert.ok(notices[0].message.includes(b.windowId));
  } finally {
    s.dispose();
  }
});

test("the retry overflows too: no loop (one reset, two requests, one notice); a later prompt in that window may reset again", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([overflow(), overflow(), overflow()]);
    await s.session.prompt("SENTINEL-BOUND overflows at once");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 2, "the request, then its one retry");
    let entries = branch(s.session);
    assert.equal(markers(entries).length, 1, "bounded: one marker");
    assert.equal(compactions(entries).length, 1, "bounded: one checkpoint");
    assert.equal(shown(s.notices).filter((n) => n.message.startsWith("pi-context")).length, 1, "one notice");

    // The person asks again in that window: a new request is a new turn, with its own one retry.
    model.script([overflow(), say("fits now")]);
    await s.session.prompt("SECOND-ASK shorter");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 4);
    entries = branch(s.session);
    assert.equal(markers(entries).length, 2);
    assert.equal(count(model.requests[3], "SECOND-ASK shorter"), 1);
  } finally {
    s.dispose();
  }
});

test("a separate overflow later in the fresh window resets again, and repeats that window's request", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([overflow(), say("recovered"), say("fine"), overflow(), say("recovered again")]);
    await s.session.prompt("FIRST request");
    await s.session.prompt("SECOND request, in the fresh window");
    await s.session.prompt("THIRD request overflows");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 5);
    assert.equal(markers(branch(s.session)).length, 2);
    const retry = model.requests[4];
    assert.equal(count(retry, "THIRD request overflows"), 1);
    assert.ok(!requestText(retry).includes("SECOND request"), "only the last request is repeated");
    assert.equal(shown(s.notices).filter((n) => OVERFLOW_NOTICE.test(n.message)).length, 2, "one notice per reset");
  } finally {
    s.dispose();
  }
});

test("a request too long to repeat whole: its start, its size and where the rest is", async () => {
  const s = await createSession({ settings: TINY, contextWindow: 50_000 });
  try {
    const model = recordingModel(s.faux);
    const request = `HUGE-START ${"ü".repeat(60_000)} HUGE-END`;
    model.script([overflow(), say("read the rest from history")]);
    await s.session.prompt(request);
    await s.session.waitForIdle();
    const retry = requestText(model.requests[1]);
    const total = Array.from(request).length;
    assert.ok(retry.includes("HUGE-START"));
    assert.ok(!retry.includes("HUGE-END"), "not repeated whole");
    assert.ok(retry.includes(`its first 2000 of ${total} characters`), retry.slice(0, 2000));
    const windowId = markers(branch(s.session))[0].data.windowId;
    const root = `pcw:${s.session.sessionId.slice(0, 8)}:root`;
    assert.ok(retry.includes(`history_list with window_id ${root}`), "says where the rest is");
    assert.ok(windowId);
  } finally {
    s.dispose();
  }
});

test("an overflow after the model worked on its own in a reset window: the retry says to look in history", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    // The first overflow opens a window without a user message; the model works there (tool turn)
    // and overflows again: no request of its own to repeat, and that window is not fresh (a tool result).
    model.script([overflow(), call("history_windows", {}), overflow(), say("recovered")]);
    await s.session.prompt("FIRST request");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 4);
    assert.equal(markers(branch(s.session)).length, 2);
    const continuation = customMessages(branch(s.session), CONTINUATION).at(-1).content;
    assert.match(continuation, /Find in history what you were working on at the end of that window/);
    assert.ok(!continuation.includes("<request>"));
  } finally {
    s.dispose();
  }
});

test("a recoverable length stop resets once and retries the request in the fresh window", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok"), fauxAssistantMessage("cut short", { stopReason: "length" }), say("complete now")]);
    await s.session.prompt("SENTINEL-LENGTH");
    await s.session.prompt("LONG-ANSWER please");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 3);
    assertFreshRequest(assert, model.requests[2], "SENTINEL-LENGTH");
    assert.equal(count(model.requests[2], "LONG-ANSWER please"), 1);
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    assert.equal(entries[entries.findIndex((e) => e.type === "compaction") + 2].details.reason, "overflow");
    assert.equal(shown(s.notices).length, 1);
  } finally {
    s.dispose();
  }
});

test("with automatic compaction off an overflow does not reset, but a /wipe-memory asked while streaming still commits and retries", async () => {
  const s = await createSession({ settings: { compaction: { enabled: false } } });
  try {
    const model = recordingModel(s.faux);
    model.script([overflow()]);
    await s.session.prompt("SENTINEL-OFF overflows");
    await s.session.waitForIdle();
    assert.equal(markers(branch(s.session)).length, 0, "no automatic recovery");

    // /wipe-memory arrives while the request that overflows is streaming.
    const askThenOverflow = async () => {
      await s.session.prompt("/wipe-memory");
      return overflow();
    };
    model.script([askThenOverflow, say("fresh")]);
    await s.session.prompt("WORK then overflow");
    await s.session.waitForIdle();
    assert.equal(s.notices.filter((n) => /wipe requested .*when the current turn completes/.test(n.message)).length, 1);
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    assert.equal(entries[entries.findIndex((e) => e.type === "compaction") + 2].details.reason, "manual");
    assertFreshRequest(assert, model.requests.at(-1), "SENTINEL-OFF");
    assert.equal(count(model.requests.at(-1), "WORK then overflow"), 1);
  } finally {
    s.dispose();
  }
});
