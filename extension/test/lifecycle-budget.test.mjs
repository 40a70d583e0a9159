// The budget close-out: the early reminder, the warning, the hard reserve, get_context_remaining,
// settings, and loop safety (docs/lifecycle.md "Budget").
//
// The faux model reports usage as prompt characters / 4, so a padded prompt moves the window's
// usage by a known amount. Lines with the settings below (context window 40,000, reserve 1,000,
// margin 20,000): reminder at 21,000 tokens left, warning at 1,000 + 12,288 = 13,288 left, hard
// reserve at 1,000 left. A new session starts at about 4,100 tokens (system prompt, tools, boot).

import assert from "node:assert/strict";
import { test } from "node:test";

import { call, createSession, fauxAssistantMessage, observe, say } from "./harness.mjs";
import {
  assertFreshRequest,
  branch,
  count,
  customMessages,
  GUIDANCE,
  markers,
  noticesMatching,
  recordingModel,
  requestText,
  WARNING,
  wipe,
} from "./lifecycle-lib.mjs";

const WINDOW = 40_000;
const SETTINGS = {
  compaction: { enabled: true, reserveTokens: 1_000, keepRecentTokens: 1_000_000 },
  "pi-context": { reminderMarginTokens: 20_000 },
};
/** A prompt of about `tokens` tokens (4 characters each). */
const pad = (label, tokens) => `${label} ${"lorem ipsum ".repeat(Math.ceil((tokens * 4) / 12))}`;

async function budgetSession(extra = {}) {
  const s = await createSession({ contextWindow: WINDOW, settings: SETTINGS, ...extra });
  return { ...s, model: recordingModel(s.faux) };
}

test("the early reminder is persisted hidden once per window, after the turn that crossed its line", async () => {
  const s = await budgetSession();
  try {
    s.model.script([say("a"), say("b"), say("c")]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("BIG-ONE", 16_000)); // about 20,000 used: 20,000 left, under 21,000
    await s.session.prompt("small follow-up");
    const entries = branch(s.session);
    const guidance = customMessages(entries, GUIDANCE);
    assert.equal(guidance.length, 1);
    assert.equal(guidance[0].display, false);
    assert.match(guidance[0].content, /^<context_window_guidance>\nAbout \d+ tokens are left/);
    const left = Number(guidance[0].content.match(/About (\d+) tokens/)[1]);
    assert.ok(left > 13_288 - 1_000 && left <= 20_000, `tokens left before the reset line: ${left}`);
    // Not injected into the request that crossed the line; persisted for the next one.
    assert.equal(count(s.model.requests[1], "<context_window_guidance>"), 0);
    assert.equal(count(s.model.requests[2], "<context_window_guidance>"), 1);
    assert.equal(customMessages(entries, WARNING).length, 0);
    assert.equal(markers(entries).length, 0);
    assert.deepEqual(noticesMatching(s.notices, /context|Context/).filter((n) => !/notes index/.test(n.message)), [], "the reminder is UI-silent");
  } finally {
    s.dispose();
  }
});

test("the warning: shown at once, persisted once, one notice; an ignored warning falls back to a reset at the normal stop", async () => {
  const s = await budgetSession();
  try {
    s.model.script([say("a"), say("ignoring the warning"), say("fresh window")]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("SENTINEL-WARN", 24_000)); // about 28,000 used: 12,000 left
    await s.session.waitForIdle();
    const crossing = s.model.requests[1];
    assert.equal(count(crossing, "Final warning: this context window is almost full"), 1, "the crossing request sees the warning now");
    const entries = branch(s.session);
    assert.equal(customMessages(entries, WARNING).length, 1, "persisted once");
    assert.equal(customMessages(entries, GUIDANCE).length, 0, "a staged reminder gives way to the warning");
    assert.equal(markers(entries).length, 1, "the normal stop fell back to a reset");
    const at = entries.findIndex((e) => e.type === "compaction");
    assert.ok(entries.findIndex((e) => e.customType === WARNING) < at, "the warning belongs to the old window");
    assert.equal(entries[at + 2].details.reason, "budget");
    assert.equal(s.model.requests.length, 3);
    assertFreshRequest(assert, s.model.requests[2], "SENTINEL-WARN");
    assert.equal(noticesMatching(s.notices, /^pi-context: Context almost full; close out the current memory window\.$/, "warning").length, 1);
  } finally {
    s.dispose();
  }
});

test("the warning then wipe_memory: the reset commits after the batch; the fresh window gets its own budget", async () => {
  const s = await budgetSession();
  try {
    s.model.script([say("a"), wipe(), say("fresh"), say("fresh again")]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("SENTINEL-CLOSE", 24_000));
    await s.session.prompt("how much room now?");
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    const at = entries.findIndex((e) => e.type === "compaction");
    assert.equal(entries[at + 2].details.reason, "wipe_memory");
    assert.equal(customMessages(entries, WARNING).length, 1);
    assert.equal(customMessages(entries.slice(at), WARNING).length, 0, "no warning in the fresh window");
    assert.equal(noticesMatching(s.notices, /Context almost full/).length, 1, "one notice, also after the reset");
  } finally {
    s.dispose();
  }
});

test("the hard reserve resets at turn end, after a tool batch, and the warning stays in the old window", async () => {
  const s = await budgetSession();
  try {
    s.model.script([say("a"), call("history_windows", {}), say("fresh")]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("SENTINEL-HARD", 35_500)); // about 39,600 used: under the 1,000 reserve
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    const at = entries.findIndex((e) => e.type === "compaction");
    assert.equal(entries[at + 2].details.reason, "hard_reserve");
    assert.ok(entries.findIndex((e) => e.customType === WARNING) < at);
    assert.ok(entries.findIndex((e) => e.message?.role === "toolResult") < at, "the batch finished first");
    assert.equal(s.model.requests.length, 3);
    assertFreshRequest(assert, s.model.requests[2], "SENTINEL-HARD");
  } finally {
    s.dispose();
  }
});

test("get_context_remaining: window minus usage minus the reserve; larger after a reset", async () => {
  const s = await budgetSession();
  try {
    const seen = [];
    s.model.script([say("a"), call("get_context_remaining", {}), observe(seen, wipe()), call("get_context_remaining", {}), observe(seen, say("done"))]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("BIG", 10_000));
    const [before, after] = seen.map((r) => JSON.parse(r.text));
    assert.deepEqual(Object.keys(before), ["remaining_tokens"]);
    assert.ok(Number.isInteger(before.remaining_tokens));
    assert.ok(before.remaining_tokens > 20_000 && before.remaining_tokens < WINDOW - 1_000 - 14_000, JSON.stringify(before));
    assert.ok(after.remaining_tokens > before.remaining_tokens + 8_000, `${JSON.stringify(after)} after the reset`);
    assert.ok(after.remaining_tokens <= WINDOW - 1_000);
  } finally {
    s.dispose();
  }
});

test("an aborted turn in the reminder zone commits nothing; the next successful turn commits the reminder once", async () => {
  const s = await budgetSession();
  try {
    s.model.script([say("a"), fauxAssistantMessage([], { stopReason: "aborted" }), say("ok"), say("ok again")]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("BIG", 16_000));
    assert.equal(customMessages(branch(s.session), GUIDANCE).length, 0, "nothing from the aborted turn");
    await s.session.prompt("retry");
    await s.session.prompt("and more");
    assert.equal(customMessages(branch(s.session), GUIDANCE).length, 1);
    assert.equal(markers(branch(s.session)).length, 0);
  } finally {
    s.dispose();
  }
});

test("an aborted warning turn stays silent; the retry persists the warning once and notifies once", async () => {
  const s = await budgetSession();
  try {
    s.model.script([say("a"), fauxAssistantMessage([], { stopReason: "aborted" }), wipe(), say("fresh")]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("SENTINEL-AB", 24_000));
    assert.equal(customMessages(branch(s.session), WARNING).length, 0);
    assert.equal(noticesMatching(s.notices, /Context almost full/).length, 0);
    assert.equal(markers(branch(s.session)).length, 0, "an aborted close-out does not reset");
    await s.session.prompt("retry");
    const entries = branch(s.session);
    assert.equal(customMessages(entries, WARNING).length, 1);
    assert.equal(noticesMatching(s.notices, /Context almost full/).length, 1);
    assert.equal(markers(entries).length, 1);
  } finally {
    s.dispose();
  }
});

test("invalid settings warn once and fall back; a model override sets the reserve", async () => {
  const s = await createSession({
    contextWindow: WINDOW,
    settings: {
      compaction: { enabled: true, reserveTokens: 1_000, keepRecentTokens: 1_000_000, modelOverrides: { "faux/faux-1": { reserveTokens: 5_000 } } },
      "pi-context": { reminderMarginTokens: -3, dreamer: "" },
    },
  });
  try {
    const model = recordingModel(s.faux);
    const seen = [];
    model.script([call("get_context_remaining", {}), observe(seen, call("get_context_remaining", {})), observe(seen, say("ok"))]);
    await s.session.prompt("hello");
    const margin = noticesMatching(s.notices, /pi-context\.reminderMarginTokens must be a positive integer; using the default reminder margin\./, "warning");
    assert.equal(margin.length, 1, "warned once, although read on every request");
    assert.equal(noticesMatching(s.notices, /pi-context\.dreamer must be a non-empty string/).length, 1);
    const usage = s.session.getContextUsage();
    const left = JSON.parse(seen[1].text).remaining_tokens;
    // The override reserve (5,000), not the ordinary one (1,000).
    assert.ok(left <= WINDOW - usage.tokens - 5_000 + 200 && left >= WINDOW - usage.tokens - 5_000 - 2_000, `${left} vs usage ${usage.tokens}`);
  } finally {
    s.dispose();
  }
});

test("loop safety: turns after a reset never reset again; a head that fills the window pauses automatic resets", async () => {
  const s = await budgetSession();
  try {
    s.model.script([say("a"), call("history_windows", {}), say("fresh"), ...Array.from({ length: 5 }, (_, i) => say(`turn ${i}`))]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("SENTINEL-LOOP", 35_500));
    assert.equal(markers(branch(s.session)).length, 1);
    for (let i = 0; i < 5; i++) await s.session.prompt(`small prompt ${i}`);
    assert.equal(markers(branch(s.session)).length, 1, "no second reset");
  } finally {
    s.dispose();
  }

  // A reserve so large that the system prompt and boot alone cross it: no automatic reset at all.
  const tight = await createSession({
    contextWindow: 8_000,
    settings: { compaction: { enabled: true, reserveTokens: 5_000, keepRecentTokens: 1_000_000 } },
  });
  try {
    const model = recordingModel(tight.faux);
    model.script(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? call("history_windows", {}) : say(`reply ${i}`))));
    for (let i = 0; i < 3; i++) await tight.session.prompt(`work ${i}`);
    assert.equal(markers(branch(tight.session)).length, 0, "no reset loop");
    assert.equal(noticesMatching(tight.notices, /automatic resets are skipped to avoid a reset loop/, "warning").length, 1);
    assert.ok(requestText(model.requests.at(-1)).includes("<context_window>"));
  } finally {
    tight.dispose();
  }
});

test("a persisted warning re-arms the close-out after a failed turn; the next normal stop resets once", async () => {
  const s = await budgetSession();
  try {
    s.model.script([
      say("a"),
      call("history_windows", {}),
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "boom: upstream 500" }),
      say("saved; stopping"),
      say("fresh"),
    ]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("SENTINEL-REARM", 24_000));
    await s.session.waitForIdle();
    let entries = branch(s.session);
    assert.equal(customMessages(entries, WARNING).length, 1, "the warning persisted with the tool turn");
    assert.equal(markers(entries).length, 0, "the failed turn does not reset");
    await s.session.prompt("try again");
    await s.session.waitForIdle();
    entries = branch(s.session);
    assert.equal(customMessages(entries, WARNING).length, 1, "not injected twice");
    assert.equal(markers(entries).length, 1, "the normal stop resets");
    assert.equal(entries[entries.findIndex((e) => e.type === "compaction") + 2].details.reason, "budget");
  } finally {
    s.dispose();
  }
});

test("/pi-context off: no reminder, no warning, no automatic reset, even past the hard reserve", async () => {
  const s = await budgetSession();
  try {
    await s.session.prompt("/pi-context off");
    s.model.script([say("a"), call("history_windows", {}), say("still the old window")]);
    await s.session.prompt("hello");
    await s.session.prompt(pad("SENTINEL-OFF", 35_500));
    const entries = branch(s.session);
    assert.equal(customMessages(entries, GUIDANCE).length, 0);
    assert.equal(customMessages(entries, WARNING).length, 0);
    assert.equal(markers(entries).length, 0);
    assert.ok(requestText(s.model.requests.at(-1)).includes("SENTINEL-OFF"));
  } finally {
    s.dispose();
  }
});
