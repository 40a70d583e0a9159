// Checkpoints in the real Pi runtime (docs/lifecycle.md "Checkpoints"): the binary checks the
// fields and the extension appends the entry; the entry is branch-local and opens the fresh
// window's boot; dirty tracking, the once-per-episode ask in the budget messages, the one-time
// wipe refusal, /checkpoint and the status line; a new session inherits the project's latest
// checkpoint; a malformed entry breaks nothing.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { BIN, call, createSession, fauxAssistantMessage, fauxToolCall, observe, readJsonl, say, tempDir } from "./harness.mjs";
import { BOOT, branch, customMessages, GUIDANCE, markers, recordingModel, requestText, WARNING, wipe } from "./lifecycle-lib.mjs";

const CHECKPOINT = "pi-context/checkpoint";
const REQUEST = "pi-context/checkpoint-request";

const { freshnessOf, READ_RESULTS_DIRTY, READ_TURNS_DIRTY } = await import("../checkpoint.ts");
const { FALLBACK_FACTS } = await import("../facts.ts");

/** Checkpoint arguments: `current`, a next action, and any other fields. */
const args = (current, extra = {}) => ({ current, next_action: `next after ${current}`, ...extra });
const checkpoints = (entries) => entries.filter((e) => e.type === "custom" && e.customType === CHECKPOINT);
const batch = (...calls) => fauxAssistantMessage(calls.map(([name, a]) => fauxToolCall(name, a)), { stopReason: "toolUse" });
/** Every session of these tests keeps its recall index to itself. */
const isolated = () => ({ PI_CONTEXT_CACHE_DIR: tempDir("cache"), PI_NOTES_HOME: tempDir("notes") });

/** The status line `/pi-context` shows. */
async function status(s) {
  await s.session.prompt("/pi-context");
  return s.notices.at(-1).message;
}

/** The parsed results of every call of `tool` on the branch, in order. */
function results(entries, tool) {
  return entries
    .filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === tool)
    .map((e) => ({ isError: e.message.isError === true, value: JSON.parse(e.message.content[0].text) }));
}

test("the binary checks the fields (refused by path and size, never echoed) and the extension appends the accepted entry", async () => {
  const s = await createSession({ env: isolated() });
  try {
    const seen = [];
    s.faux.setResponses([
      call("checkpoint", args(`SECRET-${"x".repeat(2050)}`, { next_action: "n", findings: ["fine", `SECRET-${"f".repeat(1020)}`], blockers: Array(31).fill("b") })),
      observe(seen, call("checkpoint", args("  Porting the parser.  ", { completed: ["lexer"], verification: ["cargo test: 12 passed"] }))),
      observe(seen, say("saved")),
    ]);
    await s.session.prompt("write a checkpoint");
    const [refused, saved] = seen;
    assert.equal(refused.isError, true);
    assert.ok(!refused.text.includes("SECRET"), "the rejected text is never echoed");
    assert.ok(!refused.text.includes("Received arguments"), "the binary answered, not Pi's validator");
    const error = JSON.parse(refused.text).error;
    assert.equal(error.code, "checkpoint_out_of_bounds");
    assert.deepEqual(
      error.violations.map((v) => [v.field, v.size, v.unit, v.max]),
      [
        ["current", 2057, "characters", 2048],
        ["findings[1]", 1027, "characters", 1024],
        ["blockers", 31, "items", 30],
      ],
    );
    assert.match(error.message, /^checkpoint not saved: current is 2057 characters \(at most 2048\); findings\[1\] is 1027 characters \(at most 1024\); blockers has 31 items \(at most 30\)\. Nothing was stored and nothing is ever cut/);

    assert.equal(saved.isError, false, saved.text);
    assert.equal(JSON.parse(saved.text).generation, 1);
    const entries = branch(s.session);
    const [entry, ...more] = checkpoints(entries);
    assert.equal(more.length, 0, "only the accepted call is stored");
    assert.equal(entry.data.generation, 1);
    assert.equal(entry.data.current, "Porting the parser.", "trimmed, never cut");
    assert.deepEqual(entry.data.verification, ["cargo test: 12 passed"]);
    // Between the call and its result, on disk too.
    const at = entries.indexOf(entry);
    assert.equal(entries[at - 1].message.content.find((b) => b.type === "toolCall").name, "checkpoint");
    assert.equal(entries[at + 1].message.toolName, "checkpoint");
    assert.equal(readJsonl(s.session.sessionFile).filter((e) => e.customType === CHECKPOINT).length, 1);
    // And the person's view of it is the same checkpoint.
    const shown = JSON.parse(execFileSync(BIN, ["checkpoint", "show", "--json", "--session", s.session.sessionFile], { encoding: "utf8" }));
    assert.equal(shown.checkpoint.data.current, "Porting the parser.");
  } finally {
    s.dispose();
  }
});

test("generations count per branch, also for a session Pi keeps in memory", async () => {
  const s = await createSession({ inMemory: true, env: isolated() });
  try {
    s.faux.setResponses([call("checkpoint", args("one")), call("checkpoint", args("two")), say("ok")]);
    await s.session.prompt("twice");
    assert.deepEqual(checkpoints(branch(s.session)).map((e) => e.data.generation), [1, 2]);
  } finally {
    s.dispose();
  }
});

test("the checkpoint is branch-local: after /tree the other branch's applies, and the fresh window's boot starts with it", async () => {
  const s = await createSession({ env: isolated() });
  try {
    const model = recordingModel(s.faux);
    model.script([call("checkpoint", args("TASK-ON-B")), say("ok B")]);
    await s.session.prompt("start");
    const pointB = s.sessionManager.getLeafId();
    model.script([call("checkpoint", args("TASK-ON-A")), say("ok A")]);
    await s.session.prompt("go on");
    assert.match(await status(s), / · checkpoint generation 2, saved (just now|\d+s ago), clean$/);

    const nav = await s.session.navigateTree(pointB, { summarize: false });
    assert.equal(nav.cancelled, false);
    assert.match(await status(s), / · checkpoint generation 1, saved (just now|\d+s ago), clean$/);

    model.script([wipe(), say("fresh")]);
    await s.session.prompt("wipe now");
    const entries = branch(s.session);
    assert.equal(markers(entries).length, 1);
    const boot = customMessages(entries, BOOT).at(-1);
    const [identity, checkpoint] = boot.content.split("\n\n");
    assert.match(identity, /^<context_window>\n/);
    assert.match(checkpoint, /^<checkpoint>\nYour checkpoint: generation 1 of this branch, saved /);
    assert.ok(checkpoint.includes("\nCurrent: TASK-ON-B\nNext action: next after TASK-ON-B\n"), checkpoint);
    assert.ok(!boot.content.includes("TASK-ON-A"), "the abandoned branch's checkpoint stays there");
    const fresh = requestText(model.requests.at(-1));
    assert.ok(fresh.includes("Current: TASK-ON-B"), "the fresh window starts from it");
    assert.ok(!fresh.includes("ok B"), "and from nothing else of the old window");
  } finally {
    s.dispose();
  }
});

test("a checkpoint and wipe_memory in one batch: the fresh window starts from that checkpoint", async () => {
  const s = await createSession({ env: isolated() });
  try {
    const model = recordingModel(s.faux);
    model.script([say("ok")]);
    await s.session.prompt("SENTINEL-OLD");
    model.script([batch(["checkpoint", args("HANDOFF-IN-BATCH")], ["wipe_memory", {}]), say("fresh")]);
    await s.session.prompt("hand off and wipe");
    const boot = customMessages(branch(s.session), BOOT).at(-1);
    assert.equal(boot.details.reason, "wipe_memory");
    assert.ok(boot.content.split("\n\n")[1].startsWith("<checkpoint>\n"), boot.content);
    assert.ok(boot.content.includes("Current: HANDOFF-IN-BATCH"));
    assert.ok(!requestText(model.requests.at(-1)).includes("SENTINEL-OLD"));
  } finally {
    s.dispose();
  }
});

test("dirty tracking: writes, failing commands and test runs at once; reads after a threshold; the activity goes into the next checkpoint", async () => {
  const s = await createSession({ builtinTools: true, env: isolated() });
  try {
    s.faux.setResponses([call("write", { path: "a.txt", content: "alpha\n" }), say("written")]);
    await s.session.prompt("write a file");
    assert.match(await status(s), / · no checkpoint yet, dirty \(1 file write or edit so far\)$/);

    s.faux.setResponses([call("checkpoint", args("wrote a.txt")), say("ok")]);
    await s.session.prompt("checkpoint");
    assert.match(await status(s), /, clean$/);
    const first = checkpoints(branch(s.session)).at(-1);
    assert.deepEqual(first.data.activity.files, [{ path: "a.txt", tools: ["write"] }]);

    s.faux.setResponses([
      batch(["bash", { command: "exit 3" }], ["bash", { command: "echo running the tests" }], ["bash", { command: "echo plain" }]),
      say("ran"),
    ]);
    await s.session.prompt("run things");
    assert.match(await status(s), /, dirty \(1 failing command, 1 test or build run\)$/);
    s.faux.setResponses([call("checkpoint", args("ran commands")), say("ok")]);
    await s.session.prompt("checkpoint");
    const second = checkpoints(branch(s.session)).at(-1);
    assert.equal(second.data.generation, 2);
    assert.deepEqual(second.data.activity.files, [], "files since the previous checkpoint only");
    assert.deepEqual(second.data.activity.commands, [
      { command: "exit 3", exit_code: 3 },
      { command: "echo running the tests", exit_code: 0 },
    ]);

    // Read-only investigation: clean below the threshold, dirty at it, in one turn.
    const reads = (n) => batch(...Array.from({ length: n }, () => ["read", { path: "a.txt" }]));
    s.faux.setResponses([reads(READ_RESULTS_DIRTY - 1), say("read")]);
    await s.session.prompt("look around");
    assert.match(await status(s), /, clean$/);
    s.faux.setResponses([reads(1), say("read more")]);
    await s.session.prompt("look more");
    assert.match(await status(s), new RegExp(`checkpoint generation 2, saved [^,]+, dirty \\(${READ_RESULTS_DIRTY} read-only tool results\\)$`));

    // Or in many turns.
    s.faux.setResponses([call("checkpoint", args("read a lot")), say("ok")]);
    await s.session.prompt("checkpoint");
    const turns = Array.from({ length: READ_TURNS_DIRTY - 1 }, () => call("read", { path: "a.txt" }));
    s.faux.setResponses([...turns, say("looked")]);
    await s.session.prompt("investigate");
    assert.match(await status(s), /, clean$/);
    s.faux.setResponses([call("read", { path: "a.txt" }), say("looked again")]);
    await s.session.prompt("investigate more");
    assert.match(await status(s), new RegExp(`checkpoint generation 3, saved [^,]+, dirty \\(${READ_TURNS_DIRTY} turns of investigation\\)$`));
  } finally {
    s.dispose();
  }
});

test("wipe_memory refuses once while the checkpoint is dirty, once per episode", async () => {
  const s = await createSession({ builtinTools: true, env: isolated() });
  try {
    s.faux.setResponses([call("write", { path: "a.txt", content: "x" }), wipe(), wipe(), say("fresh")]);
    await s.session.prompt("write and wipe");
    let wipes = results(branch(s.session), "wipe_memory");
    assert.equal(wipes[0].isError, true);
    assert.equal(wipes[0].value.error.code, "checkpoint_stale");
    assert.equal(
      wipes[0].value.error.message,
      "You have no checkpoint yet (1 file write or edit so far), and the next window would start without one. Call checkpoint with the current task state, then call wipe_memory; call it again now to reset anyway.",
    );
    assert.equal(wipes[1].value.status, "scheduled", "the second call resets anyway");
    assert.equal(markers(branch(s.session)).length, 1);

    // Still the same episode in the fresh window: no second refusal.
    s.faux.setResponses([call("write", { path: "b.txt", content: "y" }), wipe(), say("fresh again")]);
    await s.session.prompt("more and wipe");
    wipes = results(branch(s.session), "wipe_memory");
    assert.equal(wipes.at(-1).value.status, "scheduled");
    assert.equal(markers(branch(s.session)).length, 2);

    // A checkpoint starts a new episode: clean, no refusal; dirty again, one refusal again.
    s.faux.setResponses([call("checkpoint", args("saved")), wipe(), say("fresh 3")]);
    await s.session.prompt("checkpoint and wipe");
    assert.equal(results(branch(s.session), "wipe_memory").at(-1).value.status, "scheduled");
    s.faux.setResponses([call("write", { path: "c.txt", content: "z" }), wipe(), wipe(), say("fresh 4")]);
    await s.session.prompt("write and wipe again");
    wipes = results(branch(s.session), "wipe_memory");
    assert.equal(wipes.at(-2).value.error.code, "checkpoint_stale");
    assert.match(wipes.at(-2).value.error.message, /^Your checkpoint is out of date \(1 file write or edit since generation 1\), and the next window starts from it\./);
    assert.equal(wipes.at(-1).value.status, "scheduled");
  } finally {
    s.dispose();
  }
});

// The budget lines of lifecycle-budget.test.mjs: window 40,000, reserve 1,000, margin 20,000.
const BUDGET = {
  contextWindow: 40_000,
  settings: { compaction: { enabled: true, reserveTokens: 1_000, keepRecentTokens: 1_000_000 }, "pi-context": { reminderMarginTokens: 20_000 } },
};
const pad = (label, tokens) => `${label} ${"lorem ipsum ".repeat(Math.ceil((tokens * 4) / 12))}`;
const ASK = "call checkpoint with the current task state first";

test("the budget reminder asks for a checkpoint while it is dirty, once per episode; the warning then does not", async () => {
  const s = await createSession({ builtinTools: true, env: isolated(), ...BUDGET });
  try {
    const model = recordingModel(s.faux);
    model.script([call("write", { path: "a.txt", content: "x" }), say("written"), say("big one"), say("small"), say("ignoring the warning"), say("fresh")]);
    await s.session.prompt("write");
    await s.session.prompt(pad("BIG", 15_000)); // the reminder line
    await s.session.prompt("small follow-up");
    let entries = branch(s.session);
    const [reminder] = customMessages(entries, GUIDANCE);
    assert.ok(reminder.content.includes(`You have no checkpoint yet (1 file write or edit so far): ${ASK}, so the next window starts`), reminder.content);
    assert.match(reminder.content, /call checkpoint with the current task state first[^\n]*\n<\/context_window_guidance>$/);
    assert.deepEqual(reminder.details, { checkpointAsked: true });
    assert.ok(requestText(model.requests.at(-1)).includes(ASK), "the next request reads it");

    await s.session.prompt(pad("WARN", 8_000)); // the warning line; the close-out follows at the stop
    await s.session.waitForIdle();
    entries = branch(s.session);
    const [warning] = customMessages(entries, WARNING);
    assert.ok(warning, "the warning was persisted");
    assert.ok(!warning.content.includes(ASK), "same episode: asked once already");
    assert.equal(markers(entries).length, 1, "the close-out reset");
  } finally {
    s.dispose();
  }
});

test("a clean checkpoint is not asked for; a new episode is asked again", async () => {
  const s = await createSession({ builtinTools: true, env: isolated(), ...BUDGET });
  try {
    const model = recordingModel(s.faux);
    model.script([call("write", { path: "a.txt", content: "x" }), call("checkpoint", args("wrote it")), say("ok"), say("big"), say("small")]);
    await s.session.prompt("write and checkpoint");
    await s.session.prompt(pad("BIG", 15_000));
    await s.session.prompt("small");
    const [reminder] = customMessages(branch(s.session), GUIDANCE);
    assert.ok(reminder, "the reminder is there");
    assert.ok(!reminder.content.includes(ASK), "clean: no ask");
    assert.equal(reminder.details, undefined);

    model.script([call("write", { path: "b.txt", content: "y" }), say("written"), say("warned"), say("fresh")]);
    await s.session.prompt("write more");
    await s.session.prompt(pad("WARN", 8_000));
    await s.session.waitForIdle();
    const [warning] = customMessages(branch(s.session), WARNING);
    assert.ok(warning.content.includes(`Your checkpoint is out of date (1 file write or edit since generation 1): ${ASK}`), "a new episode: the warning asks");
    assert.ok(requestText(model.requests.at(-2)).includes(ASK), "the crossing request reads it at once");
  } finally {
    s.dispose();
  }
});

test("/checkpoint asks the agent for one: at once when idle, after the run otherwise", async () => {
  const s = await createSession({ env: isolated() });
  try {
    const model = recordingModel(s.faux);
    model.script([say("hello")]);
    await s.session.prompt("hi");
    model.script([call("checkpoint", args("asked for")), say("done")]);
    await s.session.prompt("/checkpoint");
    await s.session.waitForIdle();
    const entries = branch(s.session);
    const [request] = customMessages(entries, REQUEST);
    assert.equal(request.display, false);
    assert.match(request.content, /^<requested_checkpoint>\nThe person asked for a checkpoint\. Call checkpoint now with the current task state/);
    assert.equal(checkpoints(entries).length, 1);
    assert.ok(requestText(model.requests.at(-2)).includes("The person asked for a checkpoint"));
    assert.equal(s.notices.at(-1).message, "pi-context: checkpoint requested; the agent writes it now.");
  } finally {
    s.dispose();
  }
});

test("a new session sees the project's latest checkpoint, labelled as inherited, until it writes its own", async () => {
  const env = isolated();
  const first = await createSession({ env });
  let dir, firstId;
  try {
    first.faux.setResponses([call("checkpoint", args("THE-EARLIER-TASK", { blockers: ["waiting for review"] })), say("bye")]);
    await first.session.prompt("work, then hand off");
    dir = join(first.sessionDir, "..");
    firstId = first.session.sessionId;
  } finally {
    first.dispose();
  }
  const second = await createSession({ env, dir });
  try {
    const [rootBoot] = customMessages(branch(second.session), BOOT);
    const [identity, inherited] = rootBoot.content.split("\n\n");
    assert.match(identity, /^<context_window>\n/);
    assert.ok(
      inherited.startsWith(
        `<inherited_checkpoint>\nThis session has no checkpoint yet. This is the latest checkpoint of session ${firstId.slice(0, 8)}, an earlier session of this project (generation 1, saved `,
      ),
      inherited,
    );
    assert.ok(inherited.includes("It is a starting point to confirm, not the truth"), inherited);
    assert.ok(inherited.includes("\nCurrent: THE-EARLIER-TASK\n") && inherited.includes("\nBlockers:\n- waiting for review\n"), inherited);
    assert.match(await status(second), / · no checkpoint yet$/, "inherited is not this branch's");

    const model = recordingModel(second.faux);
    model.script([call("checkpoint", args("MY-OWN-TASK")), say("ok"), wipe(), say("fresh")]);
    await second.session.prompt("start mine");
    assert.equal(checkpoints(branch(second.session))[0].data.generation, 1, "its own generations start at 1");
    await second.session.prompt("wipe");
    const boot = customMessages(branch(second.session), BOOT).at(-1);
    assert.ok(boot.content.includes("<checkpoint>\nYour checkpoint: generation 1 of this branch"), boot.content);
    assert.ok(!boot.content.includes("THE-EARLIER-TASK"));
  } finally {
    second.dispose();
  }
});

test("a malformed checkpoint entry in the file breaks neither boot, history, the tool nor the status", async () => {
  const s = await createSession({ env: isolated() });
  let file;
  try {
    s.faux.setResponses([call("checkpoint", args("GOOD-ONE")), say("ok")]);
    await s.session.prompt("checkpoint");
    file = s.session.sessionFile;
  } finally {
    s.dispose();
  }
  // Broken entries appended to the file, as a hand edit or another program might leave them.
  const lines = readJsonl(file);
  let parent = lines.at(-1).id;
  const junk = (id, data) => {
    appendFileSync(file, `${JSON.stringify({ type: "custom", customType: CHECKPOINT, id, parentId: parent, timestamp: new Date().toISOString(), data })}\n`);
    parent = id;
  };
  junk("bad00001", null);
  junk("bad00002", { generation: "two", current: 5 });
  junk("bad00003", { generation: 2, current: "x".repeat(9000), next_action: "n" });
  appendFileSync(file, `{"type":"custom","customType":"${CHECKPOINT}","id":"torn0001","parentId":"${parent}","data":{"gen\n`);

  const reopened = await createSession({ env: isolated(), open: file });
  try {
    const model = recordingModel(reopened.faux);
    const seen = [];
    model.script([
      call("history_search", { query: "GOOD-ONE" }),
      observe(seen, call("checkpoint", args("AFTER-THE-JUNK"))),
      observe(seen, wipe()),
      say("fresh"),
    ]);
    await reopened.session.prompt("go on");
    const [search, saved] = seen;
    assert.equal(search.isError, false, search.text);
    assert.ok(JSON.parse(search.text).items.length > 0, "history still finds the checkpoint call");
    assert.equal(saved.isError, false, saved.text);
    const entries = branch(reopened.session);
    assert.equal(checkpoints(entries).at(-1).data.generation, 2, "numbered after the last good one");
    const boot = customMessages(entries, BOOT).at(-1);
    assert.ok(boot.content.includes("Current: AFTER-THE-JUNK"), boot.content);
    // The status reads the branch too.
    assert.match(await status(reopened), /checkpoint generation 2/);
    // The pure reader agrees with itself on junk.
    const f = freshnessOf(entries, FALLBACK_FACTS);
    assert.equal(f.latest.generation, 2);
  } finally {
    reopened.dispose();
  }
});

test("freshness is read from the branch alone (unit): own tools, failed writes and user shell commands", () => {
  const facts = FALLBACK_FACTS;
  let n = 0;
  const e = (message) => ({ type: "message", id: `e${++n}`, parentId: null, timestamp: "2026-03-01T09:00:00.000Z", message });
  const callOf = (name, a, id) => e({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: a }] });
  const resultOf = (name, id, isError = false, text = "") => e({ role: "toolResult", toolCallId: id, toolName: name, isError, content: [{ type: "text", text }] });
  const branchEntries = [
    callOf("write", { path: "x" }, "c1"),
    resultOf("write", "c1", true, "EACCES"),
    callOf("notes_write", { address: "a", content: "b" }, "c2"),
    resultOf("notes_write", "c2"),
    callOf("wipe_memory", {}, "c3"),
    resultOf("wipe_memory", "c3", true),
    e({ role: "bashExecution", command: "ls", output: "", exitCode: 0, cancelled: false, truncated: false }),
  ];
  let f = freshnessOf(branchEntries, facts);
  assert.equal(f.dirty, false, f.why);
  assert.deepEqual(f.activity, { files: [], commands: [] });
  assert.equal(f.episode, "start");
  const subagent = [callOf("subagent", { agent: "scout", task: "look" }, "c4"), resultOf("subagent", "c4", false, "found it")];
  f = freshnessOf([...branchEntries, ...subagent], facts);
  assert.equal(f.dirty, true);
  assert.equal(f.why, "1 subagent handoff");
  branchEntries.push(e({ role: "bashExecution", command: "cargo build", output: "", exitCode: undefined, cancelled: true, truncated: false }));
  f = freshnessOf(branchEntries, facts);
  assert.equal(f.dirty, true);
  assert.equal(f.why, "1 failing command");
  assert.deepEqual(f.activity.commands, [{ command: "cargo build", exit_code: null }]);
  // A checkpoint entry starts over; an entry of that type without a generation is not one.
  branchEntries.push({ type: "custom", id: "cp1", parentId: null, timestamp: "2026-03-01T09:00:00.000Z", customType: facts.checkpoint_type, data: { generation: 4 } });
  branchEntries.push({ type: "custom", id: "cp2", parentId: null, timestamp: "2026-03-01T09:00:00.000Z", customType: facts.checkpoint_type, data: { generation: "5" } });
  f = freshnessOf(branchEntries, facts);
  assert.deepEqual([f.dirty, f.latest.generation, f.episode], [false, 4, "cp1"]);
});
