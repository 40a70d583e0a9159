// Repair of a reset a crash interrupted. A reset is four entries Pi appends one by one
// (checkpoint, marker, boot, continuation); the session files here are real ones, written by Pi
// during a real reset and cut after each step, the way a crash would leave them. Opening such a
// file finishes the reset once, silently; after real work followed the broken reset nothing is
// repaired.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { createSession, fauxAssistantMessage, pi, say, tempDir } from "./harness.mjs";
import {
  assertBoundary,
  assertFreshRequest,
  BOOT,
  branch,
  compactions,
  CONTINUATION,
  count,
  customMessages,
  MARKER,
  markers,
  noticesMatching,
  recordingModel,
  requestText,
  userTexts,
  wipe,
} from "./lifecycle-lib.mjs";

const TINY = { compaction: { enabled: true, keepRecentTokens: 1_000_000 } };
const SENTINEL = "SENTINEL-CUT";

/** A session file in which Pi wrote `resets` complete resets (by `wipe_memory`). */
async function resetSessionFile(resets = 1) {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt(`${SENTINEL} in the old window`);
    for (let i = 0; i < resets; i++) {
      model.script([wipe(), say(`fresh ${i}`)]);
      await s.session.prompt(`wipe ${i}`);
    }
    assert.equal(markers(branch(s.session)).length, resets);
    return s.session.sessionFile;
  } finally {
    s.dispose();
  }
}

/**
 * A copy of `file` cut where a crash during its last reset would leave it: `before` the
 * checkpoint, after the `checkpoint`, after the checkpoint with half the marker line written
 * (`torn`), after the `marker`, after the `boot`, or `complete` (after the continuation).
 */
function cut(file, step) {
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  const k = lines.findLastIndex((l) => JSON.parse(l).type === "compaction");
  const keep = { before: k, checkpoint: k + 1, torn: k + 1, marker: k + 2, boot: k + 3, complete: k + 4 }[step];
  let text = lines.slice(0, keep).join("\n") + "\n";
  if (step === "torn") text += lines[k + 1].slice(0, 40);
  const path = join(tempDir("cut"), `${step}.jsonl`);
  writeFileSync(path, text);
  return path;
}

/** Appends entries to a session file through Pi's own session manager (as Pi would write them). */
function appendWithPi(file, write) {
  const dir = tempDir("append");
  const sm = pi.SessionManager.open(file, dir, dir);
  write(sm);
}

/** The entries pi-context writes at a window head, in branch order. */
const headEntries = (entries) =>
  entries.filter((e) => e.type === "compaction" || (e.type === "custom" && e.customType === MARKER) || (e.type === "custom_message" && [BOOT, CONTINUATION].includes(e.customType)));

const silent = (notices) => notices.filter((n) => !/notes index/.test(n.message));

test("a crash before the checkpoint leaves nothing to repair: the old window goes on", async () => {
  const s = await createSession({ settings: TINY, open: cut(await resetSessionFile(), "before") });
  try {
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 0);
    assert.equal(compactions(entries).length, 0);
    assert.equal(customMessages(entries, BOOT).length, 1, "only the root boot");
    assert.deepEqual(silent(s.notices), []);
    const model = recordingModel(s.faux);
    model.script([say("still the root window")]);
    await s.session.prompt("hello again");
    assert.ok(requestText(model.requests[0]).includes(SENTINEL), "the reset never began");
  } finally {
    s.dispose();
  }
});

for (const step of ["checkpoint", "torn"]) {
  test(`a crash right after the checkpoint${step === "torn" ? " (half the marker line written)" : ""}: the reset is finished with a new window, once`, async () => {
    const file = cut(await resetSessionFile(), step);
    const s = await createSession({ settings: TINY, open: file });
    try {
      assert.equal(s.faux.state.callCount, 0, "no model call");
      const entries = branch(s.session);
      const b = assertBoundary(assert, entries, entries.findIndex((e) => e.type === "compaction"));
      const root = `pcw:${s.session.sessionId.slice(0, 8)}:root`;
      assert.equal(entries.indexOf(b.continuation), entries.length - 1, "appended at the tail");
      assert.match(b.windowId, new RegExp(`^pcw:${s.session.sessionId.slice(0, 8)}:[0-9a-f]{8}$`));
      assert.deepEqual(b.boot.details, { windowId: b.windowId, reason: "repair", previousWindowId: root });
      assert.ok(b.boot.content.includes(`Previous context window id: ${root}`));
      assert.deepEqual(silent(s.notices), [], "repair is silent");

      const model = recordingModel(s.faux);
      model.script([say("fresh after the crash")]);
      await s.session.prompt("hello after the crash");
      assert.equal(model.requests.length, 1, "the repaired head passes the boundary check");
      assertFreshRequest(assert, model.requests[0], SENTINEL);
      assert.deepEqual(silent(s.notices), [], "no boundary-check error");
    } finally {
      s.dispose();
    }
    const again = await createSession({ settings: TINY, open: file });
    try {
      assert.equal(headEntries(branch(again.session)).length, 4 + 1, "reopened: nothing written twice (root boot + 4)");
    } finally {
      again.dispose();
    }
  });
}

test("a crash after the checkpoint, then a model change on reopening: still repaired, the head still checks", async () => {
  const file = cut(await resetSessionFile(), "checkpoint");
  appendWithPi(file, (sm) => sm.appendModelChange("faux", "faux-1"));
  const s = await createSession({ settings: TINY, open: file });
  try {
    const entries = branch(s.session);
    const at = entries.findIndex((e) => e.type === "compaction");
    assert.equal(entries[at + 1].type, "model_change");
    assert.equal(markers(entries).length, 1);
    const model = recordingModel(s.faux);
    model.script([say("fresh")]);
    await s.session.prompt("hello");
    assert.equal(model.requests.length, 1);
    assertFreshRequest(assert, model.requests[0], SENTINEL);
  } finally {
    s.dispose();
  }
});

test("a crash after the second reset's checkpoint: the new window follows the first reset's window", async () => {
  const full = await resetSessionFile(2);
  const first = markers(pi.SessionManager.open(full, tempDir("read"), tempDir("read")).getBranch())[0].data.windowId;
  const s = await createSession({ settings: TINY, open: cut(full, "checkpoint") });
  try {
    const entries = branch(s.session);
    const ms = markers(entries);
    assert.equal(ms.length, 2);
    const b = assertBoundary(assert, entries, entries.indexOf(ms[1]) - 1);
    assert.equal(b.boot.details.previousWindowId, first);
    const model = recordingModel(s.faux);
    model.script([say("fresh")]);
    await s.session.prompt("hello");
    assert.equal(model.requests.length, 1, "the earlier window's head plus a later checkpoint no longer fails closed");
    assertFreshRequest(assert, model.requests[0], "wipe 1");
  } finally {
    s.dispose();
  }
});

for (const [step, missing] of [
  ["marker", "its boot and continuation are"],
  ["boot", "its continuation is"],
]) {
  test(`a crash after the ${step}: ${missing} appended, once`, async () => {
    const file = cut(await resetSessionFile(), step);
    const s = await createSession({ settings: TINY, open: file });
    try {
      const entries = branch(s.session);
      const b = assertBoundary(assert, entries, entries.findIndex((e) => e.type === "compaction"));
      assert.equal(entries.indexOf(b.continuation), entries.length - 1);
      assert.equal(customMessages(entries, BOOT).length, 2, "the root boot and one window boot");
      assert.equal(b.boot.details.reason, step === "marker" ? "repair" : "wipe_memory", "an existing boot is kept");
      assert.deepEqual(silent(s.notices), []);
      const model = recordingModel(s.faux);
      model.script([say("fresh")]);
      await s.session.prompt("hello");
      assertFreshRequest(assert, model.requests[0], SENTINEL);
    } finally {
      s.dispose();
    }
    const again = await createSession({ settings: TINY, open: file });
    try {
      assert.equal(headEntries(branch(again.session)).length, 5, "reopened: nothing written twice");
    } finally {
      again.dispose();
    }
  });
}

test("a complete reset is left alone", async () => {
  const file = cut(await resetSessionFile(), "complete");
  const before = readFileSync(file, "utf8");
  const s = await createSession({ settings: TINY, open: file });
  try {
    assert.equal(headEntries(branch(s.session)).length, 5);
    assert.equal(readFileSync(file, "utf8"), before, "nothing appended");
  } finally {
    s.dispose();
  }
});

/** The user went on working in the session after the crash (for example with pi-context not loaded). */
const work = (sm) => {
  sm.appendMessage({ role: "user", content: "WORK after the crash", timestamp: Date.now() });
  sm.appendMessage(fauxAssistantMessage("done some work"));
};

test("never repaired after real work followed the broken reset: a lone checkpoint leaves the window without a boot", async () => {
  const file = cut(await resetSessionFile(), "checkpoint");
  appendWithPi(file, work);
  const s = await createSession({ settings: TINY, open: file });
  try {
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 0, "no marker appended");
    assert.equal(customMessages(entries, BOOT).length, 1, "only the root boot, before the checkpoint");
    assert.equal(customMessages(entries, CONTINUATION).length, 0);
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("and more");
    const request = model.requests[0];
    assert.ok(!requestText(request).includes(SENTINEL), "the checkpoint still keeps the old conversation out");
    assert.ok(requestText(request).includes("WORK after the crash"));
    assert.equal(count(request, "<context_window>"), 0);
  } finally {
    s.dispose();
  }
});

for (const step of ["marker", "boot"]) {
  test(`never repaired after real work followed the broken reset: after the ${step}, requests fail closed`, async () => {
    const file = cut(await resetSessionFile(), step);
    appendWithPi(file, work);
    const s = await createSession({ settings: TINY, open: file });
    try {
      const entries = branch(s.session);
      assert.equal(customMessages(entries, BOOT).length, step === "marker" ? 1 : 2, "no boot appended");
      assert.equal(customMessages(entries, CONTINUATION).length, 0, "no continuation appended");
      const model = recordingModel(s.faux);
      model.script([say("must not be asked")]);
      await s.session.prompt("hello?");
      await s.session.waitForIdle();
      assert.equal(model.requests.length, 0, "cancelled before the provider");
      assert.equal(noticesMatching(s.notices, /failed its boundary check \(a user message sits where its/, "error").length, 1);
      assert.ok(userTexts(branch(s.session)).some((t) => t.includes(SENTINEL)), "raw history kept");
    } finally {
      s.dispose();
    }
  });
}

// Hand-written heads: a marker written by Pi's session manager, then what follows it.

/** A session file with an old conversation, a checkpoint and a marker, then `tail(sm)`. */
function brokenSession(tail) {
  return (cwd, sessionDir) => {
    const sm = pi.SessionManager.create(cwd, sessionDir);
    sm.appendMessage({ role: "user", content: "SENTINEL-CRASH before the reset", timestamp: Date.now() });
    sm.appendMessage(fauxAssistantMessage("old answer"));
    sm.appendCompaction("", null, 0, undefined, true);
    sm.appendCustomEntry(MARKER, { windowId: `pcw:${sm.getSessionId().slice(0, 8)}:deadbeef` });
    tail(sm);
    return sm;
  };
}

test("repair: a marker followed only by metadata gets its boot and continuation, silently and once", async () => {
  const s = await createSession({ settings: TINY, manager: brokenSession((sm) => sm.appendModelChange("faux", "faux-1")) });
  let file;
  try {
    assert.equal(s.faux.state.callCount, 0);
    const entries = branch(s.session);
    const m = entries.findIndex((e) => e.type === "custom" && e.customType === MARKER);
    const [boot, continuation] = entries.slice(m + 1).filter((e) => e.type === "custom_message");
    assert.equal(boot.customType, BOOT);
    assert.equal(boot.display, false);
    assert.equal(boot.details.windowId, entries[m].data.windowId);
    assert.equal(boot.details.reason, "repair");
    assert.ok(boot.content.includes(`Previous context window id: pcw:${s.session.sessionId.slice(0, 8)}:root`));
    assert.equal(continuation.customType, CONTINUATION);
    assert.equal(continuation.display, false);
    assert.deepEqual(s.notices.filter((n) => !/notes index/.test(n.message)), [], "repair is silent");

    const model = recordingModel(s.faux);
    model.script([say("fine")]);
    await s.session.prompt("hello after the crash");
    assertFreshRequest(assert, model.requests[0], "SENTINEL-CRASH");
    file = s.session.sessionFile;
  } finally {
    s.dispose();
  }
  const again = await createSession({ settings: TINY, open: file });
  try {
    assert.equal(customMessages(branch(again.session), BOOT).length, 1, "idempotent: no second boot");
    assert.equal(customMessages(branch(again.session), CONTINUATION).length, 1);
  } finally {
    again.dispose();
  }
});

test("repair: a boot without its continuation gets only the continuation", async () => {
  const s = await createSession({
    settings: TINY,
    manager: brokenSession((sm) =>
      sm.appendCustomMessageEntry(BOOT, "<context_window>\nCurrent context window id: x\n</context_window>", false, {
        windowId: `pcw:${sm.getSessionId().slice(0, 8)}:deadbeef`,
      }),
    ),
  });
  try {
    const entries = branch(s.session);
    assert.equal(customMessages(entries, BOOT).length, 1, "the existing boot is never duplicated");
    assert.equal(customMessages(entries, CONTINUATION).length, 1);
    assert.equal(entries.at(-1).customType, CONTINUATION);
  } finally {
    s.dispose();
  }
});

test("a bare marker followed by conversation is not repaired: requests fail closed until /wipe-memory", async () => {
  const s = await createSession({
    settings: TINY,
    manager: brokenSession((sm) => sm.appendMessage({ role: "user", content: "work after the bare marker", timestamp: Date.now() })),
  });
  try {
    assert.equal(customMessages(branch(s.session), BOOT).length, 0, "no repair");
    const model = recordingModel(s.faux);
    model.script([say("must not be asked")]);
    await s.session.prompt("hello?");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 0, "the request was cancelled before the provider");
    const notice = noticesMatching(s.notices, /failed its boundary check \(a user message sits where its boot and continuation belong\)/, "error");
    assert.equal(notice.length, 1);
    assert.ok(userTexts(branch(s.session)).some((t) => t.includes("SENTINEL-CRASH")), "raw history kept");

    // /wipe-memory gets one turn with only the system prompt and the request, then a proper window.
    model.script([say("saving nothing"), say("fresh and well")]);
    await s.session.prompt("/wipe-memory");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 2);
    const [ask, fresh] = model.requests;
    assert.deepEqual(ask.map((m) => m.role), ["system", "user"]);
    assert.ok(requestText(ask).includes("The person asked for a fresh context window"));
    assertFreshRequest(assert, fresh, "SENTINEL-CRASH");
    assert.equal(markers(branch(s.session)).length, 2);
  } finally {
    s.dispose();
  }
});

test("a boot hidden by a later context edit is not replaced; requests fail closed", async () => {
  const s = await createSession({
    settings: TINY,
    manager: brokenSession((sm) => {
      const windowId = `pcw:${sm.getSessionId().slice(0, 8)}:deadbeef`;
      const boot = sm.appendCustomMessageEntry(BOOT, "<context_window>\nCurrent context window id: x\n</context_window>", false, { windowId });
      sm.appendCustomMessageEntry(CONTINUATION, "continue", false);
      sm.appendContextEdit(boot, null);
    }),
  });
  try {
    assert.equal(customMessages(branch(s.session), BOOT).length, 1, "no replacement boot");
    const model = recordingModel(s.faux);
    model.script([say("must not be asked")]);
    await s.session.prompt("hello");
    await s.session.waitForIdle();
    assert.equal(model.requests.length, 0);
    assert.equal(noticesMatching(s.notices, /a context edit hides or replaces its boot or continuation/, "error").length, 1);
  } finally {
    s.dispose();
  }
});

