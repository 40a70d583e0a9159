// /wipe-memory, /pi-context on|off, /compact and /tree summaries across reset windows.

import assert from "node:assert/strict";
import { test } from "node:test";

import { call, createSession, say } from "./harness.mjs";
import {
  assertFreshRequest,
  branch,
  compactions,
  customMessages,
  MANUAL_WIPE,
  markers,
  noticesMatching,
  recordingModel,
  requestText,
  wipe,
} from "./lifecycle-lib.mjs";

const TINY = { compaction: { enabled: true, keepRecentTokens: 1_000_000 } };

test("/wipe-memory when idle: acknowledged at once, one hidden request starts a turn, the reset commits at its end", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-MANUAL in the old window");
    // The model saves something (history_windows stands in for a notes save), then continues
    // in the fresh window after the tool batch.
    model.script([call("history_windows", {}), say("continuing fresh")]);
    await s.session.prompt("/wipe-memory");
    await s.session.waitForIdle();

    assert.equal(noticesMatching(s.notices, /^pi-context: wipe requested/, "info").length, 1, "acknowledged once");
    assert.equal(model.requests.length, 3);
    const ask = model.requests[1];
    assert.ok(requestText(ask).includes("The person asked for a fresh context window"), "the hidden request reached the model");
    assertFreshRequest(assert, model.requests[2], "SENTINEL-MANUAL");
    const entries = branch(s.session);
    assert.equal(customMessages(entries, MANUAL_WIPE).length, 1);
    assert.equal(customMessages(entries, MANUAL_WIPE)[0].display, false);
    assert.equal(markers(entries).length, 1);
    const at = entries.findIndex((e) => e.type === "compaction");
    const save = entries.findIndex((e) => e.type === "message" && e.message.role === "toolResult");
    assert.ok(save >= 0 && save < at, "the tool batch finished and persisted before the checkpoint");
    const boot = entries[at + 2];
    assert.equal(boot.details.reason, "manual");
    assert.equal(noticesMatching(s.notices, /memory cleared/).length, 1);
  } finally {
    s.dispose();
  }
});

test("/wipe-memory while streaming: no hidden message, the running turn resets; repeats share one window", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-BUSY in the old window");
    let sent = 0;
    const unsubscribe = s.session.subscribe((e) => {
      if (e.type === "tool_execution_start" && sent === 0) {
        sent++;
        void s.session.prompt("/wipe-memory");
        void s.session.prompt("/wipe-memory");
      }
    });
    model.script([call("history_windows", {}), say("fresh window answer")]);
    await s.session.prompt("do some work");
    await s.session.waitForIdle();
    unsubscribe();

    assert.equal(noticesMatching(s.notices, /^pi-context: wipe requested/, "info").length, 1, "the first command is acknowledged");
    assert.equal(noticesMatching(s.notices, /already requested/, "info").length, 1, "the repeat says so");
    const entries = branch(s.session);
    assert.equal(customMessages(entries, MANUAL_WIPE).length, 0, "no hidden message while streaming");
    assert.equal(markers(entries).length, 1);
    assert.equal(compactions(entries).length, 1);
    assert.equal(model.requests.length, 3);
    assertFreshRequest(assert, model.requests[2], "SENTINEL-BUSY");
  } finally {
    s.dispose();
  }
});

test("/pi-context: status, off stops wipe_memory and new resets, usage errors, on again", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    await s.session.prompt("/pi-context");
    assert.match(s.notices.at(-1).message, /^pi-context: on · window pcw:[^ ]+:root/);
    await s.session.prompt("/pi-context off");
    assert.match(s.notices.at(-1).message, /^pi-context: off · window /);

    model.script([wipe(), say("not wiped")]);
    await s.session.prompt("wipe please");
    const result = branch(s.session).find((e) => e.type === "message" && e.message.role === "toolResult");
    assert.equal(result.message.isError, true);
    assert.deepEqual(JSON.parse(result.message.content[0].text), { error: "pi-context is off (/pi-context on to enable)" });
    await s.session.prompt("/wipe-memory");
    assert.equal(s.notices.at(-1).message, "pi-context: /wipe-memory requires /pi-context on.");
    assert.equal(s.notices.at(-1).level, "error");
    assert.equal(markers(branch(s.session)).length, 0);

    await s.session.prompt("/pi-context sideways");
    assert.equal(s.notices.at(-1).message, "Usage: /pi-context [on|off]");
    await s.session.prompt("/pi-context on");
    assert.match(s.notices.at(-1).message, /^pi-context: on · /);
    assert.equal(customMessages(branch(s.session), "pi-context/boot").length, 1, "on checks the root boot, never duplicates it");
    model.script([wipe(), say("wiped")]);
    await s.session.prompt("now wipe");
    assert.equal(markers(branch(s.session)).length, 1);
  } finally {
    s.dispose();
  }
});

test("/compact is cancelled with a notice while on, and while off when the branch has a marker", async () => {
  const s = await createSession({ settings: { compaction: { enabled: true, keepRecentTokens: 10 } } });
  try {
    const model = recordingModel(s.faux);
    model.script([say("one"), say("two")]);
    await s.session.prompt("first message with some words in it");
    await s.session.prompt("second message with some more words");
    await assert.rejects(s.session.compact(), /cancel/i);
    assert.equal(noticesMatching(s.notices, /\/compact is disabled while context windows are active; use \/wipe-memory/, "warning").length, 1);

    model.script([wipe(), say("fresh")]);
    await s.session.prompt("wipe");
    assert.equal(markers(branch(s.session)).length, 1);
    await s.session.prompt("/pi-context off");
    model.script([say("three")]);
    await s.session.prompt("third message, while off, with words");
    await assert.rejects(s.session.compact(), /cancel/i);
    assert.equal(noticesMatching(s.notices, /\/compact is disabled/).length, 2, "the marker keeps /compact cancelled");
    assert.equal(compactions(branch(s.session)).length, 1, "only the reset checkpoint");
    // The marker stays in force: the projection is still cut there.
    const projected = JSON.stringify(s.sessionManager.buildSessionProjection().messages);
    assert.ok(!projected.includes("first message with some words"));
  } finally {
    s.dispose();
  }
});

test("/tree summaries are suppressed when either branch has a marker; navigation still happens", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("alpha reply")]);
    await s.session.prompt("ALPHA topic");
    const alpha = s.sessionManager.getLeafId();
    model.script([wipe(), say("fresh")]);
    await s.session.prompt("wipe on this branch");
    assert.equal(markers(branch(s.session)).length, 1);
    const fresh = s.sessionManager.getLeafId();

    const calls = model.requests.length;
    const nav = await s.session.navigateTree(alpha, { summarize: true });
    assert.equal(nav.cancelled, false);
    assert.equal(s.sessionManager.getLeafId(), alpha, "navigated");
    assert.equal(model.requests.length, calls, "no summary model call");
    assert.equal(s.sessionManager.getEntries().filter((e) => e.type === "branch_summary").length, 0, "no summary entry");
    assert.equal(noticesMatching(s.notices, /skipped branch summary across a reset window/, "info").length, 1);
    // The navigated branch has no marker: back in the root window.
    assert.equal(markers(branch(s.session)).length, 0);
    // And back: the target branch has the marker.
    const nav2 = await s.session.navigateTree(fresh, { summarize: true });
    assert.equal(nav2.cancelled, false);
    assert.equal(model.requests.length, calls, "still no summary model call");
    assert.equal(noticesMatching(s.notices, /skipped branch summary across a reset window/, "info").length, 2);
    assert.equal(markers(branch(s.session)).length, 1);
  } finally {
    s.dispose();
  }
});

test("/tree between branches without markers keeps Pi's native summary", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    model.script([say("alpha reply"), say("bravo reply")]);
    await s.session.prompt("ALPHA topic");
    const alpha = s.sessionManager.getLeafId();
    await s.session.prompt("BRAVO topic");
    model.append([say("## Goal\nnative summary of bravo")]);
    const nav = await s.session.navigateTree(alpha, { summarize: true });
    assert.equal(nav.cancelled, false);
    const summary = s.sessionManager.getBranch().find((e) => e.type === "branch_summary");
    assert.ok(summary, "a branch summary was written");
    assert.match(summary.summary, /native summary of bravo/);
    assert.equal(noticesMatching(s.notices, /skipped branch summary/).length, 0);
  } finally {
    s.dispose();
  }
});
