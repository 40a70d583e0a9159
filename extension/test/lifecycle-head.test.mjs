// Window heads: the fail-closed boundary check against other extensions, forks, the startup
// conflict scan, and windows without the binary. (Repair: lifecycle-repair; overflow:
// lifecycle-overflow.)

import assert from "node:assert/strict";
import { test } from "node:test";

import { createSession, observe, pi, say, script } from "./harness.mjs";
import {
  assertBoundary,
  assertFreshRequest,
  BOOT,
  branch,
  compactions,
  count,
  customMessages,
  MARKER,
  markers,
  noticesMatching,
  recordingModel,
  requestText,
  tools,
  wipe,
} from "./lifecycle-lib.mjs";

const TINY = { compaction: { enabled: true, keepRecentTokens: 1_000_000 } };

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
