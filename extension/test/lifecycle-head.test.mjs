// Window heads: provider overflow recovery, repair of a partial tail, the fail-closed boundary
// check against other extensions, forks, and the startup conflict scan.

import assert from "node:assert/strict";
import { test } from "node:test";

import { createSession, fauxAssistantMessage, observe, pi, say, script } from "./harness.mjs";
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
  tools,
  userTexts,
  wipe,
} from "./lifecycle-lib.mjs";

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

test("fail closed: another extension dropping the checkpoint gets no continuation and a visible conflict notice", async () => {
  let stripped = false;
  const stripper = (api) => {
    api.on("turn_end", (event) => {
      if (stripped || !event.entries.some((d) => d.type === "custom" && d.customType === MARKER)) return undefined;
      stripped = true;
      return { entries: event.entries.filter((d) => d.type !== "compaction") };
    });
  };
  const s = await createSession({ settings: TINY, extensions: [stripper] });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-CONFLICT in the root window");
    model.script([wipe(), say("must not be asked")]);
    await s.session.prompt("wipe");
    await s.session.waitForIdle();
    assert.ok(stripped);
    assert.equal(model.requests.length, 2, "no continuation request reached the provider");
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    assert.equal(compactions(entries).length, 0, "the other extension removed the checkpoint");
    assert.equal(noticesMatching(s.notices, /failed its boundary check \(its retain-none checkpoint is missing or was changed\)/, "error").length, 1);
    assert.equal(noticesMatching(s.notices, /memory cleared/).length, 0, "no success notice for a broken boundary");

    // Recovery: /wipe-memory, and this time nobody interferes.
    model.script([say("ok"), say("fresh")]);
    await s.session.prompt("/wipe-memory");
    await s.session.waitForIdle();
    assert.deepEqual(model.requests[2].map((m) => m.role), ["system", "user"], "the broken window sends nothing of its history");
    assertFreshRequest(assert, model.requests[3], "SENTINEL-CONFLICT");
    assert.equal(compactions(branch(s.session)).length, 1);
  } finally {
    s.dispose();
  }
});

test("a forked session keeps one root boot, its own, right after the system prompt", async () => {
  const first = await createSession({ settings: TINY });
  let file;
  try {
    const model = recordingModel(first.faux);
    model.script([say("ok")]);
    await first.session.prompt("SENTINEL-FORK");
    file = first.session.sessionFile;
  } finally {
    first.dispose();
  }
  const fork = await createSession({ settings: TINY, manager: (cwd, dir) => pi.SessionManager.forkFrom(file, cwd, dir) });
  try {
    const rootId = `pcw:${fork.session.sessionId.slice(0, 8)}:root`;
    assert.equal(customMessages(branch(fork.session), BOOT).filter((e) => e.details.windowId === rootId).length, 1);
    const model = recordingModel(fork.faux);
    model.script([say("forked")]);
    await fork.session.prompt("in the fork");
    const request = model.requests[0];
    assert.equal(request[0].role, "system");
    assert.equal(count(request, "<context_window>"), 1, "only this session's boot");
    assert.ok(requestText(request.slice(1, 2)).includes(`Current context window id: ${rootId}`));
    assert.ok(requestText(request).includes("SENTINEL-FORK"), "the copied conversation stays");
  } finally {
    fork.dispose();
  }
});

test("startup warns once about installed extensions known to rewrite compaction", async () => {
  const conflicting = (api) => api.registerCommand("continue-now", { description: "x", handler: async () => {} });
  const s = await createSession({ settings: TINY, extensions: [{ name: "pi-continue", factory: conflicting }] });
  try {
    const warnings = noticesMatching(s.notices, /the installed extension pi-continue is known to rewrite compaction/, "warning");
    assert.equal(warnings.length, 1);
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

test("without the binary the lifecycle still runs: a minimal boot that says the tools are missing, wipe_memory, get_context_remaining", async () => {
  const s = await createSession({ settings: TINY, bin: "/nonexistent/pi-context" });
  try {
    const model = recordingModel(s.faux);
    const seen = [];
    model.script([say("ok"), tools(["get_context_remaining", {}]), observe(seen, wipe()), say("fresh")]);
    await s.session.prompt("SENTINEL-NOBIN");
    await s.session.prompt("how much room, then wipe");
    assert.equal(seen[0].toolName, "get_context_remaining");
    assert.equal(seen[0].isError, false);
    assert.equal(typeof JSON.parse(seen[0].text).remaining_tokens, "number");
    const entries = branch(s.session);
    const boots = customMessages(entries, BOOT);
    assert.equal(boots.length, 2, "the root boot and the reset boot");
    for (const b of boots) {
      assert.match(b.content, /^<context_window>\nFirst context window id: pcw:/);
      assert.match(b.content, /The notes and history tools are missing from this session too/);
      assert.ok(!b.content.includes("notes_list can retry"), b.content);
    }
    assertBoundary(assert, entries, entries.indexOf(markers(entries)[0]) - 1);
    assertFreshRequest(assert, model.requests.at(-1), "SENTINEL-NOBIN");
  } finally {
    s.dispose();
  }
});

test("when pi-context boot fails, windows still open with a minimal boot and one warning", async () => {
  const bin = script(`if [ "$1" = "boot" ]; then echo "error: no boot today" >&2; exit 2; fi\nexec '${process.env.PI_CONTEXT_BIN}' "$@"`, { ownBoot: true });
  const s = await createSession({ settings: TINY, bin });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok"), wipe(), say("fresh")]);
    await s.session.prompt("SENTINEL-NOBOOT");
    await s.session.prompt("wipe");
    const boots = customMessages(branch(s.session), BOOT);
    assert.equal(boots.length, 2);
    for (const b of boots) assert.match(b.content, /The notes index is unavailable \(`pi-context boot` failed with exit status 2:/);
    assert.ok(boots[1].content.includes(`Current context window id: ${boots[1].details.windowId}`));
    assertFreshRequest(assert, model.requests[2], "SENTINEL-NOBOOT");
    assert.equal(noticesMatching(s.notices, /could not render the boot block; using a minimal one/, "warning").length, 1, "warned once");
  } finally {
    s.dispose();
  }
});
