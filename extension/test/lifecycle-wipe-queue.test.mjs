// `/wipe-memory` while the agent is streaming, with steering and follow-up messages queued
// around it: each queued message is answered exactly once, before or after the reset, never twice
// and never lost, whatever the order and the moment (during a tool call, during the final answer,
// after the run's last turn).

import assert from "node:assert/strict";
import { test } from "node:test";

import { call, createSession, messageText, say } from "./harness.mjs";
import { assertFreshRequest, branch, compactions, markers, providerText, recordingModel } from "./lifecycle-lib.mjs";

const TINY = { compaction: { enabled: true, keepRecentTokens: 1_000_000 } };
const SENTINEL = "SENTINEL-QUEUE";

/** Queues `text` as a steering or follow-up message while the agent streams. */
const queue = (session, mode, text) => session.prompt(text, { streamingBehavior: mode });

/**
 * Each queued text was answered exactly once: one durable user entry, one request that delivered
 * it (its newest message), and it sits on the side of the checkpoint where it was answered (a
 * text answered before the reset never reaches the fresh window). Returns which side, or
 * "no reset".
 */
function answeredOnce(s, requests, text) {
  const entries = branch(s.session);
  const users = entries.filter((e) => e.type === "message" && e.message.role === "user" && messageText(e.message).includes(text));
  assert.equal(users.length, 1, `${text}: one durable user entry`);
  const delivering = requests.filter((r) => r.at(-1).role === "user" && providerText(r.at(-1)).includes(text));
  assert.equal(delivering.length, 1, `${text}: delivered by exactly one request`);
  const checkpoint = entries.findIndex((e) => e.type === "compaction");
  if (checkpoint < 0) return "no reset";
  const after = entries.indexOf(users[0]) > checkpoint;
  const fresh = requests.filter((r) => r.some((m) => m.role === "compactionSummary"));
  if (!after) assert.ok(fresh.every((r) => !r.some((m) => providerText(m).includes(text))), `${text}: answered before the reset, absent after`);
  return after ? "after" : "before";
}

async function oldWindow(s, model) {
  model.script([say("ok")]);
  await s.session.prompt(`${SENTINEL} in the old window`);
}

for (const mode of ["steer", "followUp"]) {
  test(`/wipe-memory during a tool call, then a ${mode} message: one reset, the message answered once in the fresh window`, async () => {
    const s = await createSession({ settings: TINY });
    try {
      const model = recordingModel(s.faux);
      await oldWindow(s, model);
      let done = false;
      const unsubscribe = s.session.subscribe((e) => {
        if (e.type === "tool_execution_start" && !done) {
          done = true;
          void s.session.prompt("/wipe-memory").then(() => queue(s.session, mode, `QUEUED-${mode}`));
        }
      });
      model.script([call("history_windows", {}), say("answered in the fresh window"), say("spare")]);
      await s.session.prompt("do some work");
      await s.session.waitForIdle();
      unsubscribe();
      assert.equal(markers(branch(s.session)).length, 1);
      assert.equal(compactions(branch(s.session)).length, 1);
      assert.equal(answeredOnce(s, model.requests, `QUEUED-${mode}`), "after");
      // A steer joins the tool batch's own next request; a follow-up waits until the agent would stop.
      assert.equal(model.requests.length, mode === "steer" ? 3 : 4);
      assertFreshRequest(assert, model.requests[2], SENTINEL);
    } finally {
      s.dispose();
    }
  });

  test(`a ${mode} message queued first, then /wipe-memory, during the final answer: answered once in the fresh window`, async () => {
    const s = await createSession({ settings: TINY });
    try {
      const model = recordingModel(s.faux);
      await oldWindow(s, model);
      const streaming = async () => {
        void queue(s.session, mode, `EARLY-${mode}`);
        await s.session.prompt("/wipe-memory");
        return say("the final answer of the old window");
      };
      model.script([streaming, say("answered in the fresh window"), say("spare")]);
      await s.session.prompt("answer me");
      await s.session.waitForIdle();
      assert.equal(markers(branch(s.session)).length, 1);
      assert.equal(answeredOnce(s, model.requests, `EARLY-${mode}`), "after");
      assert.equal(model.requests.length, 3);
      assertFreshRequest(assert, model.requests[2], SENTINEL);
    } finally {
      s.dispose();
    }
  });
}

test("/wipe-memory during the final answer with a steer and a follow-up queued: one reset, each answered once", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    await oldWindow(s, model);
    const streaming = async () => {
      await s.session.prompt("/wipe-memory");
      void queue(s.session, "steer", "BOTH-steer");
      void queue(s.session, "followUp", "BOTH-followUp");
      return say("the final answer of the old window");
    };
    model.script([streaming, say("answered the steer"), say("answered the follow-up"), say("spare")]);
    await s.session.prompt("answer me");
    await s.session.waitForIdle();
    assert.equal(markers(branch(s.session)).length, 1);
    assert.equal(answeredOnce(s, model.requests, "BOTH-steer"), "after");
    assert.equal(answeredOnce(s, model.requests, "BOTH-followUp"), "after");
    assert.equal(model.requests.length, 4);
  } finally {
    s.dispose();
  }
});

test("/wipe-memory after the run's last turn, with a follow-up queued: answered once in the old window, then the reset", async () => {
  let session;
  // An extension whose agent_end handler (awaited by Pi) asks for the wipe and queues a
  // follow-up: both arrive after the last turn ended, before the run settles.
  let late = false;
  const lateAsk = (api) =>
    api.on("agent_end", async () => {
      if (late || !session) return;
      late = true;
      await session.prompt("/wipe-memory");
      void queue(session, "followUp", "LATE-followUp");
    });
  const s = await createSession({ settings: TINY, extensions: [lateAsk] });
  session = s.session;
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok"), say("first answer"), say("answered the follow-up"), say("fresh window"), say("spare")]);
    await s.session.prompt(`${SENTINEL} in the old window`);
    await s.session.waitForIdle();
    assert.ok(late);
    assert.equal(markers(branch(s.session)).length, 1, "one reset");
    assert.equal(answeredOnce(s, model.requests, "LATE-followUp"), "before");
    assertFreshRequest(assert, model.requests.at(-1), SENTINEL);
    assert.equal(model.requests.length, 3, "the follow-up, then the fresh window's one request");
  } finally {
    s.dispose();
  }
});

test("an idle /wipe-memory, then a steer during its hidden turn: the steer is answered once in the fresh window", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    await oldWindow(s, model);
    const saving = async () => {
      void queue(s.session, "steer", "IDLE-steer");
      return say("notes saved");
    };
    model.script([saving, say("answered the steer"), say("spare")]);
    await s.session.prompt("/wipe-memory");
    await s.session.waitForIdle();
    assert.equal(markers(branch(s.session)).length, 1);
    assert.equal(answeredOnce(s, model.requests, "IDLE-steer"), "after");
    assert.equal(model.requests.length, 3);
    assertFreshRequest(assert, model.requests[2], SENTINEL);
  } finally {
    s.dispose();
  }
});

test("stopped (aborted) after /wipe-memory with a follow-up queued: no reset, and the follow-up is answered once, later", async () => {
  const s = await createSession({ settings: TINY });
  try {
    const model = recordingModel(s.faux);
    await oldWindow(s, model);
    const stopped = async () => {
      await s.session.prompt("/wipe-memory");
      void queue(s.session, "followUp", "STOP-followUp");
      void s.session.abort();
      return say("never finished");
    };
    model.script([stopped]);
    await s.session.prompt("work");
    await s.session.waitForIdle();
    assert.equal(markers(branch(s.session)).length, 0, "an abort commits nothing");
    assert.deepEqual(s.session.getFollowUpMessages(), ["STOP-followUp"], "Pi keeps the follow-up queued");

    model.script([say("next"), say("answered the follow-up"), say("spare")]);
    await s.session.prompt("after the stop");
    await s.session.waitForIdle();
    assert.equal(answeredOnce(s, model.requests, "STOP-followUp"), "no reset");
    assert.equal(markers(branch(s.session)).length, 0, "the wipe request did not survive the abort");
  } finally {
    s.dispose();
  }
});
