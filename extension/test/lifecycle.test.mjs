// The reset boundary in a real Pi session with a scripted model: what each model call receives,
// what is persisted, and what history still reaches (docs/lifecycle.md).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { createSession, messageText, observe, readJsonl, say, call, tempDir } from "./harness.mjs";
import {
  assertBoundary,
  assertFreshRequest,
  BOOT,
  branch,
  compactions,
  CONTINUATION,
  count,
  customMessages,
  markers,
  noticesMatching,
  recordingModel,
  requestText,
  tools,
  userTexts,
  wipe,
} from "./lifecycle-lib.mjs";

const TINY = { compaction: { enabled: true, keepRecentTokens: 1_000_000 } };

test("the root boot is written hidden at session start, without a model call, once", async () => {
  const s = await createSession({ settings: TINY, env: { PI_NOTES_AGENT: "tester" } });
  try {
    assert.equal(s.faux.state.callCount, 0, "no model call at startup");
    const boots = customMessages(branch(s.session), BOOT);
    assert.equal(boots.length, 1);
    const rootId = `pcw:${s.session.sessionId.slice(0, 8)}:root`;
    assert.equal(boots[0].display, false);
    assert.equal(boots[0].details.windowId, rootId);
    assert.match(boots[0].content, /^<context_window>\nAgent name: tester \(brain: faux-1\)\n/);
    assert.ok(boots[0].content.includes(`Current context window id: ${rootId}`));
    assert.ok(!boots[0].content.includes("Previous context window id"), "the root boot names no previous window");
    assert.equal(customMessages(branch(s.session), CONTINUATION).length, 0, "no continuation in the root window");
    assert.deepEqual(s.notices.filter((n) => !/notes index incomplete/.test(n.message)), [], "startup is silent");

    // The first request carries the boot right after the system prompt.
    const model = recordingModel(s.faux);
    model.script([say("hello")]);
    await s.session.prompt("hi there");
    const [request] = model.requests;
    assert.equal(request[0].role, "system");
    assert.equal(count(request, "<context_window>"), 1);
    assert.ok(requestText(request.slice(1, 2)).startsWith("<context_window>"), "the boot is the first message after the system prompt");

    // A reload (a new extension runtime, session_start "reload") does not write a second boot.
    await s.session.reload();
    assert.equal(customMessages(branch(s.session), BOOT).length, 1, "no duplicate boot after reload");
    // Nor does opening the same session file again (a restart).
    const file = s.session.sessionFile;
    s.dispose();
    const again = await createSession({ settings: TINY, open: file });
    try {
      assert.equal(customMessages(branch(again.session), BOOT).length, 1, "no duplicate boot");
    } finally {
      again.dispose();
    }
  } finally {
    s.dispose();
  }
});

test("wipe_memory on a tiny session: one reset after the batch, a fresh request, raw history kept", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("noted")]);
    await s.session.prompt("SENTINEL-ONE is the secret word.");
    model.script([wipe(), say("fresh start")]);
    await s.session.prompt("please wipe your memory now");

    assert.equal(model.requests.length, 3, "one request before the wipe, one after it");
    const fresh = model.requests[2];
    assertFreshRequest(assert, fresh, "SENTINEL-ONE");

    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    assert.equal(compactions(entries).length, 1);
    const at = entries.findIndex((e) => e.type === "compaction");
    const b = assertBoundary(assert, entries, at);
    assert.match(b.windowId, new RegExp(`^pcw:${s.session.sessionId.slice(0, 8)}:[0-9a-f]{8}$`));
    assert.ok(b.boot.content.includes(`Previous context window id: pcw:${s.session.sessionId.slice(0, 8)}:root`));
    assert.ok(b.boot.content.includes(`Current context window id: ${b.windowId}`));
    assert.equal(b.boot.details.reason, "wipe_memory");
    // The tool result persisted before the boundary.
    const result = entries.findIndex((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "wipe_memory");
    assert.ok(result >= 0 && result < at, "the wipe_memory result precedes the checkpoint");
    assert.ok(userTexts(entries).some((t) => t.includes("SENTINEL-ONE")), "the raw branch keeps the old conversation");
    assert.ok(!s.events.some((e) => e.type === "compaction_start"), "no native compaction ran (no ctx.compact)");
    assert.equal(noticesMatching(s.notices, /^pi-context: memory cleared · pcw:/, "info").length, 1);
  } finally {
    s.dispose();
  }
});

test("after a reset the model no longer sees the old window, but history_search finds it and history_windows lists both", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("Remember: the launch code is ORCHID-4471.");
    const seen = [];
    model.script([
      wipe(),
      call("history_windows", {}),
      observe(seen, call("history_search", { query: "orchid-4471" })),
      observe(seen, say("found it")),
    ]);
    await s.session.prompt("wipe, then look it up");
    for (const r of model.requests.slice(2)) assert.ok(!requestText(r).includes("ORCHID-4471 is") && !requestText(r).includes("launch code is ORCHID"), "old user text is out of the provider context");
    const [windowsSeen, searchSeen] = seen;
    assert.equal(windowsSeen.toolName, "history_windows");
    const w = JSON.parse(windowsSeen.text);
    assert.equal(w.windows.length, 2, JSON.stringify(w));
    assert.match(w.windows[0].window_id, /:root$/);
    assert.equal(w.windows[1].window_id, markers(branch(s.session))[0].data.windowId);
    assert.equal(searchSeen.isError, false, searchSeen.text);
    const hits = JSON.parse(searchSeen.text).items;
    assert.ok(hits.some((r) => r.role === "user" && r.content.startsWith("ORCHID-4471") && r.window_id.endsWith(":root")), searchSeen.text);
  } finally {
    s.dispose();
  }
});

test("two successive resets: distinct windows, the second boot names the first; reopening reproduces the projection", async () => {
  const s = await createSession({ settings: TINY });
  let file;
  let projection;
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-ALPHA in the root window");
    model.script([wipe(), say("in window one")]);
    await s.session.prompt("first wipe");
    model.script([wipe(), say("in window two")]);
    await s.session.prompt("SENTINEL-BETA then the second wipe");
    assert.equal(model.requests.length, 5);
    assertFreshRequest(assert, model.requests[4], "SENTINEL-BETA");

    const entries = branch(s.session);
    const ms = markers(entries);
    assert.equal(ms.length, 2);
    assert.equal(compactions(entries).length, 2);
    const [first, second] = ms.map((m) => m.data.windowId);
    assert.notEqual(first, second);
    for (const m of ms) {
      const parent = entries.find((e) => e.id === m.parentId);
      assert.equal(parent.type, "compaction");
      assert.equal(parent.firstKeptEntryId, parent.id);
    }
    const boots = customMessages(entries, BOOT);
    assert.equal(boots.length, 3, "root boot plus one per reset");
    assert.ok(boots[2].content.includes(`Previous context window id: ${first}`));
    assert.ok(boots[2].content.includes(`Current context window id: ${second}`));
    file = s.session.sessionFile;
    projection = s.sessionManager.buildSessionProjection().messages;
  } finally {
    s.dispose();
  }

  // The file on disk, reopened: the same projection; raw history kept.
  const onDisk = readJsonl(file);
  assert.equal(onDisk.filter((e) => e.type === "compaction").length, 2);
  const { SessionManager } = await import("@earendil-works/pi-coding-agent");
  const reopened = SessionManager.open(file);
  assert.deepEqual(reopened.buildSessionProjection().messages, projection, "the reopened file projects the same context");
  const raw = reopened.getBranch();
  assert.ok(userTexts(raw).some((t) => t.includes("SENTINEL-ALPHA")));
  const projected = reopened.buildSessionProjection().messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""))).join("\n");
  assert.ok(!projected.includes("SENTINEL-ALPHA") && !projected.includes("SENTINEL-BETA"));
  assert.ok(reopened.buildSessionProjection().messages.some((m) => m.role === "compactionSummary"), "the empty summary wrapper");
  assert.equal(reopened.buildSessionProjection().messages[0].role, "system", "the system checkpoint survives");

  // A new Pi session on the reopened file sends exactly that projection (and writes nothing new).
  const again = await createSession({ settings: TINY, open: file });
  try {
    const model = recordingModel(again.faux);
    model.script([say("still here")]);
    await again.session.prompt("are you there?");
    const sent = model.requests[0];
    assert.ok(!requestText(sent).includes("SENTINEL-ALPHA"));
    assert.equal(count(sent, "<context_window>"), 1);
    assert.equal(count(sent, "<context_window_continuation>"), 1);
    assert.equal(markers(branch(again.session)).length, 2, "no new marker");
  } finally {
    again.dispose();
  }
});

test("a mixed batch finishes and persists before the boundary; a repeated wipe in the batch is deduplicated", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-MIX here");
    model.script([tools(["history_windows", {}], ["wipe_memory", {}], ["wipe_memory", {}]), say("after")]);
    await s.session.prompt("list windows and wipe");
    assert.equal(model.requests.length, 3);
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1, "one reset");
    const at = entries.findIndex((e) => e.type === "compaction");
    const results = entries.filter((e) => e.type === "message" && e.message.role === "toolResult");
    assert.deepEqual(results.map((e) => e.message.toolName), ["history_windows", "wipe_memory", "wipe_memory"]);
    for (const r of results) assert.ok(entries.indexOf(r) < at, `${r.message.toolName} result precedes the checkpoint`);
    const [firstWipe, secondWipe] = results.slice(1).map((e) => JSON.parse(e.message.content[0].text));
    assert.equal(firstWipe.status, "scheduled");
    assert.equal(secondWipe.status, "already_pending");
    assertFreshRequest(assert, model.requests[2], "SENTINEL-MIX");
  } finally {
    s.dispose();
  }
});

for (const mode of ["steer", "followUp"]) {
  test(`a ${mode} message queued during wipe_memory reaches the fresh window exactly once`, async () => {
    const s = await createSession({ settings: TINY });
    try {
      const model = recordingModel(s.faux);
      model.script([say("ok")]);
      await s.session.prompt("SENTINEL-QUEUE in the old window");
      let queued = false;
      const unsubscribe = s.session.subscribe((e) => {
        if (e.type === "tool_execution_start" && e.toolName === "wipe_memory" && !queued) {
          queued = true;
          void s.session.prompt("QUEUED-INPUT please", { streamingBehavior: mode });
        }
      });
      model.script([wipe(), say("answered the queued input")]);
      await s.session.prompt("wipe now");
      await s.session.waitForIdle();
      unsubscribe();
      assert.ok(queued);
      assert.equal(model.requests.length, 3, "no extra request for the queued input");
      assertFreshRequest(assert, model.requests[2], "SENTINEL-QUEUE");
      assert.equal(count(model.requests[2], "QUEUED-INPUT"), 1, "once, in the fresh window");
      const entries = branch(s.session);
      const queuedEntries = entries.filter((e) => e.type === "message" && e.message.role === "user" && messageText(e.message).includes("QUEUED-INPUT"));
      assert.equal(queuedEntries.length, 1, "one durable user entry");
      assert.ok(entries.indexOf(queuedEntries[0]) > entries.findIndex((e) => e.type === "compaction"), "after the boundary");
    } finally {
      s.dispose();
    }
  });
}

test("the system prompt and a changed tool loadout survive the reset projection", async () => {
  const { getCurrentTools } = await import("@earendil-works/pi-ai");
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-TOOLS");
    const active = s.session.getActiveToolNames().filter((n) => n !== "history_read");
    s.session.setActiveToolsByName(active);
    model.script([wipe(), say("fresh")]);
    await s.session.prompt("wipe with fewer tools");
    const fresh = model.requests.at(-1);
    assertFreshRequest(assert, fresh, "SENTINEL-TOOLS");
    const declared = getCurrentTools(fresh).map((t) => t.name).sort();
    assert.deepEqual(declared, [...active].sort(), "the fresh window declares exactly the active tools");
    assert.ok(providerTextOf(fresh[0]).length > 1000, "the whole system prompt is there");
  } finally {
    s.dispose();
  }
});

function providerTextOf(system) {
  return Object.values(system.sections ?? {}).join("\n") + (system.content ?? "");
}

test("abort, an aborted response and an error never reset; a later prompt does not either", async () => {
  const { fauxAssistantMessage } = await import("./harness.mjs");
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-ABORT here");

    // 1. The run is aborted while wipe_memory's batch runs.
    let aborted = false;
    const unsubscribe = s.session.subscribe((e) => {
      if (e.type === "tool_execution_end" && e.toolName === "wipe_memory" && !aborted) {
        aborted = true;
        void s.session.abort();
      }
    });
    model.script([wipe(), say("never")]);
    await s.session.prompt("wipe then abort");
    await s.session.waitForIdle();
    unsubscribe();
    assert.ok(aborted);
    // 2. /wipe-memory, and the turn it starts ends aborted.
    model.script([fauxAssistantMessage([], { stopReason: "aborted" })]);
    await s.session.prompt("/wipe-memory");
    await s.session.waitForIdle();
    // 3. /wipe-memory, and the turn it starts fails.
    model.script([fauxAssistantMessage([], { stopReason: "error", errorMessage: "boom: upstream 500" })]);
    await s.session.prompt("/wipe-memory");
    await s.session.waitForIdle();
    // 4. Later prompts: nothing is pending any more.
    model.script([say("plain"), say("plain again")]);
    await s.session.prompt("just talk");
    await s.session.prompt("and again");

    assert.equal(model.requests.length, 6, "every scripted call ran");
    const entries = branch(s.session);
    assert.equal(customMessages(entries, "pi-context/manual-wipe").length, 2, "both /wipe-memory requests started a turn");
    assert.equal(markers(entries).length, 0);
    assert.equal(compactions(entries).length, 0);
    assert.equal(noticesMatching(s.notices, /memory cleared/).length, 0);
  } finally {
    s.dispose();
  }
});

test("wipe_memory refuses once in a window without conversation, then resets", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-EMPTY");
    // Reset, then in the fresh window the model calls wipe_memory before anything happened.
    model.script([wipe(), wipe(), wipe(), say("second fresh window")]);
    await s.session.prompt("wipe twice");
    const [first, refused, scheduled] = wipeResults(branch(s.session));
    assert.equal(first.status, "scheduled");
    assert.equal(refused.error.code, "empty_window");
    assert.equal(scheduled.status, "scheduled");
    assert.equal(markers(branch(s.session)).length, 2, "the first wipe and the repeated one");
  } finally {
    s.dispose();
  }
});

test("wipe_memory refuses once after a failed notes save in the window", async () => {
  const s = await createSession({ settings: TINY, env: { PI_NOTES_HOME: tempDir("notes") } });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-SAVE");
    const seen = [];
    model.script([
      // An invalid address: the save fails (also when the binary has no notes tools yet).
      call("notes_write", { address: "@nowhere/x", content: "state" }),
      observe(seen, wipe()),
      wipe(),
      say("fresh"),
    ]);
    await s.session.prompt("save and wipe");
    const [save] = seen;
    assert.equal(save.toolName, "notes_write");
    assert.equal(save.isError, true, "the save failed");
    const [refused, scheduled] = wipeResults(branch(s.session));
    assert.equal(refused.error.code, "notes_save_failed");
    assert.equal(scheduled.status, "scheduled");
    assert.equal(markers(branch(s.session)).length, 1);
  } finally {
    s.dispose();
  }
});

/** The parsed results of every wipe_memory call on the branch, in order. */
function wipeResults(entries) {
  return entries
    .filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "wipe_memory")
    .map((e) => JSON.parse(e.message.content[0].text));
}

test("wipe_memory with notes_write in one batch: the note is on disk before the boundary and the fresh boot indexes it", async () => {
  const home = tempDir("notes");
  const s = await createSession({ settings: TINY, env: { PI_NOTES_HOME: home, PI_NOTES_AGENT: "tester" } });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-NOTE: the task is to port the parser.");
    model.script([
      tools(["notes_write", { address: "checkpoint", content: "Goal: port the parser. Next: tests.\n" }], ["wipe_memory", {}]),
      say("reading my checkpoint"),
    ]);
    await s.session.prompt("save a checkpoint and wipe");
    const entries = branch(s.session);
    const at = entries.findIndex((e) => e.type === "compaction");
    const save = entries.find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "notes_write");
    assert.equal(save.message.isError, false, save.message.content[0].text);
    assert.ok(entries.indexOf(save) < at, "the notes_write result precedes the checkpoint");
    const file = join(home, "pi", "session", s.session.sessionId, "checkpoint.md");
    assert.ok(existsSync(file), `${file} on disk`);
    const b = assertBoundary(assert, entries, at);
    assert.match(b.boot.content, /## This session \| bare paths\n●  Recent notes\n- checkpoint\.md \| 36 chars \| /);
    const fresh = model.requests.at(-1);
    assertFreshRequest(assert, fresh, "SENTINEL-NOTE");
    assert.ok(requestText(fresh).includes("- checkpoint.md |"), "the fresh window sees its checkpoint in the index");
  } finally {
    s.dispose();
  }
});
