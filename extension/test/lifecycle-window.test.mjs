// The pure parts of the lifecycle on their own (window.ts and lifecycle/ loaded by Node's type
// stripping): branch inspection, window ids, settings resolution, the conflict name matcher. They
// run with the extension's fallback facts (facts.test.mjs pins them to the binary's).

import assert from "node:assert/strict";
import { test } from "node:test";

import "./harness.mjs";

const { FALLBACK_FACTS: facts } = await import("../facts.ts");
const win = (await import("../window.ts")).windowsOf(facts);
const life = {
  ...(await import("../lifecycle/policy.ts")),
  ...(await import("../lifecycle/guards.ts")),
  ...(await import("../lifecycle/boot.ts")),
};

let n = 0;
const id = () => `e${++n}`.padStart(8, "0");
function chain(...entries) {
  let parent = null;
  return entries.map((e) => {
    const entry = { id: id(), parentId: parent, timestamp: "2026-03-01T00:00:00.000Z", ...e };
    parent = entry.id;
    return entry;
  });
}
const user = (text) => ({ type: "message", message: { role: "user", content: text } });
const assistant = (text) => ({ type: "message", message: { role: "assistant", content: [{ type: "text", text }] } });
const marker = (windowId) => ({ type: "custom", customType: facts.marker_type, data: { windowId } });
const boot = (windowId) => ({ type: "custom_message", customType: facts.boot_type, content: "<context_window>", display: false, details: { windowId } });
const continuation = () => ({ type: "custom_message", customType: facts.continuation_type, content: "go on", display: false });
function checkpointed(...rest) {
  const entries = chain(user("old"), assistant("old"), { type: "compaction", summary: "", firstKeptEntryId: "?" }, ...rest);
  const cp = entries[2];
  cp.firstKeptEntryId = cp.id;
  return entries;
}

test("window ids: root, current, unique reset ids", () => {
  assert.equal(win.rootWindowId("01a2b3c4-ffff"), "pcw:01a2b3c4:root");
  const entries = chain(user("hi"), marker("pcw:01a2b3c4:aaaaaaaa"), marker("pcw:01a2b3c4:bbbbbbbb"));
  assert.equal(win.currentWindowId(entries, "01a2b3c4-ffff"), "pcw:01a2b3c4:bbbbbbbb");
  assert.equal(win.currentWindowId(chain(user("hi")), "01a2b3c4-ffff"), "pcw:01a2b3c4:root");
  const draws = ["aaaaaaaa1234", "bbbbbbbb", "cccccccc"];
  assert.equal(win.mintWindowId("01a2b3c4-ffff", entries, () => draws.shift()), "pcw:01a2b3c4:cccccccc", "taken ids are drawn again");
  assert.ok(!win.isMarker({ type: "custom", customType: facts.marker_type, data: { windowId: "" } }), "an empty id is no marker");
});

test("inspectHead: confirmed, missing pieces, blocked, edited, not checkpoint-backed", () => {
  const w = "pcw:s:11111111";
  let entries = checkpointed(marker(w), { type: "model_change", provider: "p", modelId: "m" }, boot(w), continuation(), user("new"));
  let head = win.inspectHead(entries, win.lastMarkerIndex(entries));
  assert.ok(head.checkpointBacked && win.headConfirmed(head), "metadata may sit inside the head");

  entries = checkpointed(marker(w));
  head = win.inspectHead(entries, win.lastMarkerIndex(entries));
  assert.equal(head.boot, undefined);
  assert.equal(head.blocked, undefined, "a bare marker can be repaired");

  entries = checkpointed(marker(w), user("work"));
  head = win.inspectHead(entries, win.lastMarkerIndex(entries));
  assert.equal(head.blocked, "a user message");

  entries = checkpointed(marker(w), continuation(), boot(w));
  head = win.inspectHead(entries, win.lastMarkerIndex(entries));
  assert.equal(head.blocked, "a pi-context/continuation message", "a continuation before the boot");

  entries = checkpointed(marker(w), boot(w), continuation());
  entries.push({ type: "context_edit", id: id(), parentId: entries.at(-1).id, targetId: entries.at(-2).id, replacement: null });
  head = win.inspectHead(entries, win.lastMarkerIndex(entries));
  assert.equal(head.editedHead, true);
  assert.equal(win.headConfirmed(head), false);

  entries = chain(user("old"), marker(w), boot(w), continuation());
  head = win.inspectHead(entries, win.lastMarkerIndex(entries));
  assert.equal(head.checkpointBacked, false, "no checkpoint before the marker");

  entries = checkpointed(marker(w), boot(w), continuation(), { type: "compaction", summary: "x", firstKeptEntryId: "e" });
  assert.equal(win.inspectHead(entries, win.lastMarkerIndex(entries)).laterCompaction, true);
});

test("an interrupted reset: a checkpoint without its marker; metadata between a checkpoint and its marker", () => {
  const w = "pcw:s:33333333";
  const modelChange = { type: "model_change", provider: "p", modelId: "m" };
  let entries = checkpointed();
  assert.equal(win.unfinishedCheckpoint(entries), 2, "the checkpoint ends the branch");
  assert.equal(win.unfinishedCheckpoint(checkpointed(modelChange)), 2, "metadata may follow it");
  assert.equal(win.unfinishedCheckpoint(checkpointed(user("work"))), -1, "work followed it");
  assert.equal(win.unfinishedCheckpoint(checkpointed(marker(w))), -1, "its marker was written");
  assert.equal(win.unfinishedCheckpoint(chain(user("a"), { type: "compaction", summary: "native", firstKeptEntryId: "x" })), -1, "not retain-none");

  entries = checkpointed(modelChange, marker(w), boot(w), continuation());
  const head = win.inspectHead(entries, win.lastMarkerIndex(entries));
  assert.ok(head.checkpointBacked && win.headConfirmed(head), "a model change between checkpoint and marker");
  entries = checkpointed(user("between"), marker(w), boot(w), continuation());
  assert.equal(win.inspectHead(entries, win.lastMarkerIndex(entries)).checkpointBacked, false, "a message between them");
});

test("the last request of the current window", () => {
  const w = "pcw:s:44444444";
  const blocks = { type: "message", message: { role: "user", content: [{ type: "text", text: "look" }, { type: "image", data: "", mimeType: "image/png" }, { type: "text", text: "here" }] } };
  assert.deepEqual(win.lastRequest(chain(user("first"), assistant("a"), user("second"), assistant("b"))), { text: "second", images: 0 });
  assert.deepEqual(win.lastRequest(chain(blocks)), { text: "look\nhere", images: 1 });
  assert.equal(win.lastRequest(checkpointed(marker(w), boot(w), continuation(), assistant("working"))), undefined, "none in this window");
});

test("fresh windows, window messages, the last notes save", () => {
  const w = "pcw:s:22222222";
  let entries = checkpointed(marker(w), boot(w), continuation(), assistant("hello"));
  assert.equal(win.windowHasConversation(entries), false, "model replies alone keep a window fresh");
  entries = checkpointed(marker(w), boot(w), continuation(), user("do it"));
  assert.equal(win.windowHasConversation(entries), true);
  assert.equal(win.windowHasConversation(chain(user("root window talk"))), true);

  entries = chain(user("a"), { type: "custom_message", customType: facts.warning_type, content: "w", display: false }, marker(w));
  assert.equal(win.windowHasMessage(entries, facts.warning_type), false, "the warning belongs to the previous window");

  const save = (toolCallId, isError) => ({ type: "message", message: { role: "toolResult", toolName: "notes_write", toolCallId, isError, content: [] } });
  entries = chain(user("a"), save("c1", true), save("c2", false));
  assert.deepEqual(win.lastNotesWrite(entries), { id: "c2", failed: false });
  entries = chain(user("a"), save("c1", false), save("c2", true));
  assert.deepEqual(win.lastNotesWrite(entries), { id: "c2", failed: true });
  assert.equal(win.lastNotesWrite(chain(save("c0", true), marker(w))), undefined, "saves of earlier windows do not count");
});

test("the root projection: system first, only this session's boot at the first boot's place", () => {
  const sys = { role: "system", content: "", sections: { a: "prompt" } };
  const ours = { role: "custom", customType: facts.boot_type, content: "ours", details: { windowId: "pcw:new:root" } };
  const copied = { role: "custom", customType: facts.boot_type, content: "copied", details: { windowId: "pcw:old:root" } };
  const u1 = { role: "user", content: "u1" };
  const u2 = { role: "user", content: "u2" };
  assert.deepEqual(win.projectRootWindow([ours, sys, u1], "pcw:new:root"), [sys, ours, u1]);
  assert.deepEqual(win.projectRootWindow([copied, sys, u1, ours, u2], "pcw:new:root"), [sys, ours, u1, u2]);
  assert.equal(win.projectRootWindow([sys, ours, u1], "pcw:new:root"), undefined, "unchanged");
  assert.deepEqual(win.systemFirst([u1, sys, u2]), [sys, u1, u2]);
});

test("resolvePolicy: defaults, per-key values, model overrides, one warning per invalid value", () => {
  assert.deepEqual(life.resolvePolicy(facts, {}, undefined), { reserve: 16_384, automatic: true, margin: 24_576, autoRecall: true, warnings: [] });
  const p = life.resolvePolicy(
    facts,
    {
      compaction: { enabled: false, reserveTokens: 1000, modelOverrides: { "a/b": { reserveTokens: 500 } } },
      "pi-context": { reminderMarginTokens: 2000, dreamer: "x/y", autoRecall: false },
    },
    { provider: "a", id: "b" },
  );
  assert.deepEqual(p, { reserve: 500, automatic: false, margin: 2000, autoRecall: false, warnings: [] });
  const recall = life.resolvePolicy(facts, { "pi-context": { autoRecall: "no" } }, undefined);
  assert.equal(recall.autoRecall, true, "an invalid autoRecall keeps hints on");
  assert.deepEqual(recall.warnings, ["pi-context: pi-context.autoRecall must be true or false; recall hints stay on."]);
  for (const bad of [0, -1, 1.5, "12", null]) {
    const q = life.resolvePolicy(facts, { "pi-context": { reminderMarginTokens: bad } }, undefined);
    assert.equal(q.margin, 24_576);
    assert.deepEqual(q.warnings, ["pi-context: pi-context.reminderMarginTokens must be a positive integer; using the default reminder margin."]);
  }
  assert.match(life.resolvePolicy(facts, { "pi-context": { dreamer: " " } }).warnings[0], /pi-context\.dreamer must be a non-empty string/);
  assert.match(life.resolvePolicy(facts, { compaction: { reserveTokens: -5 } }).warnings[0], /compaction\.reserveTokens/);
  assert.match(life.resolvePolicy(facts, { "pi-context": [1] }).warnings[0], /must be an object/);
});

test("compactionRewriters: package sources and extension paths", () => {
  assert.deepEqual(
    life.compactionRewriters([
      "npm:pi-context-prune@1.2.3",
      "git:github.com/someone/pi-codex-compaction.git",
      "/home/u/.pi/agent/extensions/pi-continue/index.ts",
      "<inline:billion-context-pi>",
      "npm:@scope/pi-agenticoding",
      "npm:pi-context",
      "/x/pi-continue-lite/index.ts",
    ]),
    ["billion-context-pi", "pi-agenticoding", "pi-codex-compaction", "pi-context-prune", "pi-continue"],
  );
});

test("the fallback boot names the windows and says notes_list can retry", () => {
  const text = life.fallbackBoot(facts, { first: "pcw:a:root", current: "pcw:a:1", previous: "pcw:a:root" }, "binary missing", true);
  assert.match(text, /^<context_window>\nFirst context window id: pcw:a:root\nCurrent context window id: pcw:a:1\nPrevious context window id: pcw:a:root\n<\/context_window>\n\n/);
  assert.match(text, /binary missing\). notes_list can retry/);
  assert.ok(!life.fallbackBoot(facts, { first: "r", current: "r", previous: null }, "x", true).includes("Previous"));
  // Without the binary's tools (it could not describe them at load) the boot says they are missing.
  const bare = life.fallbackBoot(facts, { first: "r", current: "r", previous: null }, "binary missing", false);
  assert.match(bare, /binary missing\). The notes and history tools are missing from this session too/);
  assert.ok(!bare.includes("notes_list can retry"), bare);
});
