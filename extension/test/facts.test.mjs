// The facts shared with the binary (docs/protocol.md "The facts"): the golden test that pins the
// extension's fallback copy to the binary's values and the tool names the TypeScript mentions to
// the tools the binary lists, how the binary's facts are read, and that a running extension takes
// them from the binary.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { BIN, createSession, EXTENSION_DIR, say, schemas, script } from "./harness.mjs";
import { branch, customMessages, markers, noticesMatching, recordingModel, wipe } from "./lifecycle-lib.mjs";

const { FALLBACK_FACTS, readFacts } = await import("../facts.ts");

test("golden: the extension's fallback facts are the binary's facts", async () => {
  const { facts } = await schemas();
  assert.deepEqual(
    { ...FALLBACK_FACTS },
    facts,
    "extension/facts.ts FALLBACK_FACTS must equal `pi-context tool --schemas` facts; change both sides together",
  );
});

test("golden: every binary tool the extension names is one the binary lists", async () => {
  const names = (await schemas()).tools.map((t) => t.name);
  for (const name of FALLBACK_FACTS.notes_save_tools) assert.ok(names.includes(name), `notes_save_tools names ${name}, which --schemas does not list`);
  // The fixed texts the model reads name tools of the binary's families (history_…, notes_…):
  // each must exist.
  const families = [...new Set(names.map((n) => n.split("_")[0]))];
  const texts = readFileSync(join(EXTENSION_DIR, "lifecycle", "texts.ts"), "utf8");
  const mentioned = new Set(texts.match(new RegExp(`\\b(?:${families.join("|")})_[a-z_]+\\b`, "g")) ?? []);
  assert.ok(mentioned.size > 0, "the texts name tools");
  for (const name of mentioned) assert.ok(names.includes(name), `lifecycle/texts.ts names ${name}, which --schemas does not list`);
  // The checkpoint tool has no family prefix: the texts name it by the fact's value.
  assert.ok(names.includes(FALLBACK_FACTS.checkpoint_tool), `--schemas lists ${FALLBACK_FACTS.checkpoint_tool}`);
  assert.ok(new RegExp(`\\bcall ${FALLBACK_FACTS.checkpoint_tool}\\b`).test(texts), "the texts ask to call the checkpoint tool by its name");
});

test("readFacts: the binary's values key by key, the fallback for a missing or mistyped key, one warning", () => {
  const all = { ...FALLBACK_FACTS, marker_type: "x/marker", window_id_session_chars: 6, unknown_key: true };
  assert.deepEqual(readFacts(all), { facts: { ...FALLBACK_FACTS, marker_type: "x/marker", window_id_session_chars: 6 } });

  const { marker_type: _dropped, ...partial } = FALLBACK_FACTS;
  const odd = readFacts({ ...partial, boot_type: "", window_id_session_chars: "8", continuation_type: "x/c", notes_save_tools: "notes_write" });
  assert.deepEqual(odd.facts, { ...FALLBACK_FACTS, continuation_type: "x/c" });
  assert.match(odd.warning, /lack or mistype marker_type, boot_type, window_id_session_chars, notes_save_tools;/);
  assert.deepEqual(readFacts({ ...FALLBACK_FACTS, notes_save_tools: ["notes_write", "notes_move"] }).facts.notes_save_tools, ["notes_write", "notes_move"]);
  assert.deepEqual(readFacts({ ...FALLBACK_FACTS, notes_save_tools: [] }).facts.notes_save_tools, FALLBACK_FACTS.notes_save_tools);

  for (const none of [undefined, null, [], "facts"]) {
    const r = readFacts(none);
    assert.deepEqual(r.facts, { ...FALLBACK_FACTS });
    assert.match(r.warning, /printed no facts \(an older binary\?\)/);
  }
});

/** A binary whose `--schemas` facts are edited by a sed script; everything else is the real binary. */
function editedFacts(sed) {
  return script(`if [ "$1 $2" = "tool --schemas" ]; then '${BIN}' tool --schemas | sed '${sed}'; exit 0; fi\nexec '${BIN}' "$@"`);
}

test("a running extension takes the facts from the binary, not from its own copy", async () => {
  const bin = editedFacts('s|"marker_type":"pi-context/reset-marker"|"marker_type":"test/marker"|; s|"root_window_suffix":":root"|"root_window_suffix":":first"|');
  const s = await createSession({ settings: { compaction: { enabled: true, keepRecentTokens: 1_000_000 } }, bin });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok"), wipe(), say("fresh")]);
    await s.session.prompt("hello");
    await s.session.prompt("wipe");
    const entries = branch(s.session);
    const boots = customMessages(entries, FALLBACK_FACTS.boot_type);
    assert.equal(boots[0].details.windowId, `pcw:${s.session.sessionId.slice(0, 8)}:first`, "the root window id from the binary's facts");
    assert.equal(markers(entries).length, 0, "no marker of the fallback type");
    const ours = entries.filter((e) => e.type === "custom" && e.customType === "test/marker");
    assert.equal(ours.length, 1, "the reset marker has the binary's type");
    assert.equal(boots[1].details.windowId, ours[0].data.windowId);
    assert.deepEqual(noticesMatching(s.notices, /facts/), [], "no facts warning");
  } finally {
    s.dispose();
  }
});

test("a binary without facts (older): the extension's own values and one warning", async () => {
  const bin = editedFacts('s|,"facts":{[^}]*}||');
  const s = await createSession({ bin });
  try {
    assert.equal(noticesMatching(s.notices, /printed no facts/, "warning").length, 1, JSON.stringify(s.notices));
    const boots = customMessages(branch(s.session), FALLBACK_FACTS.boot_type);
    assert.equal(boots.length, 1);
    assert.equal(boots[0].details.windowId, `pcw:${s.session.sessionId.slice(0, 8)}:root`);
    const registered = s.session.getAllTools().map((t) => t.name);
    // Every tool offered to Pi's model (sessions_hint has no door: the extension calls it itself).
    const offered = (await schemas()).tools.filter((t) => t.doors.includes("pi")).map((t) => t.name);
    assert.deepEqual(offered.filter((n) => !registered.includes(n)), [], "its tools are registered");
    assert.ok(!registered.includes("sessions_hint"), "a tool without a door is not registered");
  } finally {
    s.dispose();
  }
});
