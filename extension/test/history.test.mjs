// The history tools inside a real Pi session, called by a scripted model.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import {
  call,
  createSession,
  loggingBinary,
  messageText,
  observe,
  readJsonl,
  readLog,
  say,
  schemaNames,
  tempDir,
} from "./harness.mjs";

test("Pi registers and activates every tool --schemas lists", async () => {
  const names = await schemaNames();
  assert.ok(names.length > 0, "--schemas lists tools");
  const { session, dispose } = await createSession();
  try {
    const registered = session.getAllTools().map((t) => t.name);
    assert.deepEqual(
      names.filter((n) => !registered.includes(n)),
      [],
      `every --schemas tool is registered; registered: ${registered}`,
    );
    const active = session.getActiveToolNames();
    for (const name of names) assert.ok(active.includes(name), `${name} is active`);
  } finally {
    dispose();
  }
});

test("the model calls every history tool and gets the binary's answers", async () => {
  const notesHome = tempDir("notes");
  const { session, faux, dispose } = await createSession({
    env: { PI_NOTES_HOME: notesHome, PI_NOTES_AGENT: "tester" },
  });
  try {
    faux.setResponses([say("noted")]);
    await session.prompt("Remember this: the codeword is PURPLE-ELEPHANT-42.");

    const seen = [];
    let foundSeq;
    faux.setResponses([
      call("history_windows", {}),
      observe(seen, call("history_list", {})),
      observe(seen, call("history_search", { query: "purple-elephant" })),
      observe(seen, () => {
        const rows = JSON.parse(seen.at(-1).text).items;
        foundSeq = rows.find((r) => r.role === "user").seq;
        return call("history_read", { seq: foundSeq });
      }),
      observe(seen, say("The codeword is PURPLE-ELEPHANT-42.")),
    ]);
    await session.prompt("What was the codeword?");
    assert.equal(faux.getPendingResponseCount(), 0, "the whole script ran");

    const [windows, list, search, read] = seen;
    assert.equal(windows.toolName, "history_windows");
    assert.equal(list.toolName, "history_list");
    assert.equal(search.toolName, "history_search");
    assert.equal(read.toolName, "history_read");
    assert.deepEqual(seen.map((s) => s.isError), [false, false, false, false]);

    const w = JSON.parse(windows.text);
    assert.equal(w.session_id, session.sessionId);
    assert.equal(w.windows.length, 1);
    assert.match(w.windows[0].window_id, /^pcw:[0-9a-f-]{8}:root$/);

    const listed = JSON.parse(list.text).items;
    assert.ok(
      listed.some((r) => r.role === "user" && r.content.includes("PURPLE-ELEPHANT-42")),
      `history_list shows the earlier user message: ${list.text}`,
    );

    const hit = JSON.parse(search.text).items.find((r) => r.role === "user");
    assert.ok(hit, `history_search finds the user message: ${search.text}`);
    assert.equal(hit.offset_chars, "Remember this: the codeword is ".length);
    assert.match(hit.content, /^PURPLE-ELEPHANT-42/);

    assert.ok(
      read.text.startsWith(`--- READ WINDOW ---\nseq: ${foundSeq}\nwindow_id: ${w.windows[0].window_id}\n`),
      read.text,
    );
    assert.match(read.text, /\nchars: \[0,\d+\) of \d+\nnext_offset_chars: null\n\nRemember this: the codeword is PURPLE-ELEPHANT-42\.$/);
    assert.equal(read.details.seq, foundSeq);
    assert.equal(read.details.next_offset_chars, null);
    assert.ok(!("content" in read.details), "details carry cursors, never the content");

    // The session JSONL on disk holds every tool result exactly as the model received it.
    const entries = readJsonl(session.sessionFile);
    const results = entries.filter((e) => e.type === "message" && e.message.role === "toolResult");
    assert.deepEqual(
      results.map((e) => e.message.toolName),
      seen.map((r) => r.toolName),
    );
    for (const [i, e] of results.entries()) {
      assert.equal(e.message.content[0].text, seen[i].text, `${e.message.toolName} result on disk`);
      assert.equal(e.message.isError, false);
      assert.deepEqual(e.message.details, seen[i].details);
    }
  } finally {
    dispose();
  }
});

test("refusals come back as error results and the run goes on", async () => {
  const { session, faux, dispose } = await createSession();
  try {
    faux.setResponses([say("ok")]);
    await session.prompt("hello there");
    const seen = [];
    faux.setResponses([
      call("history_read", { seq: 999999 }),
      observe(seen, call("history_list", { window_id: "pcw:nope:nope" })),
      observe(seen, call("history_read", { seq: 1, offset_chars: 100000 })),
      observe(seen, call("history_search", { query: "hello", roles: ["nobody"] })),
      observe(seen, say("all refused")),
    ]);
    await session.prompt("try bad calls");
    assert.equal(faux.getPendingResponseCount(), 0, "the model was asked again after every refusal");
    assert.equal(session.getLastAssistantText(), "all refused");

    const [unknownSeq, unknownWindow, badOffset, badRole] = seen;
    for (const r of [unknownSeq, unknownWindow, badOffset, badRole]) assert.equal(r.isError, true, JSON.stringify(r));
    assert.equal(JSON.parse(unknownSeq.text).error.code, "unknown_seq");
    assert.equal(unknownSeq.details.code, "unknown_seq");
    assert.equal(JSON.parse(unknownWindow.text).error.code, "unknown_window_id");
    assert.equal(JSON.parse(badOffset.text).error.code, "invalid_offset");
    // Pi validates the schema before the binary runs: its message, still an error result.
    assert.match(badRole.text, /roles/);

    const onDisk = readJsonl(session.sessionFile).filter(
      (e) => e.type === "message" && e.message.role === "toolResult",
    );
    assert.deepEqual(
      onDisk.map((e) => e.message.isError),
      [true, true, true, true],
    );
  } finally {
    dispose();
  }
});

test("after /tree navigation a history call reads the navigated branch (leaf id passed)", async () => {
  const log = join(tempDir("log"), "calls.jsonl");
  const { session, faux, sessionManager, dispose } = await createSession({ bin: loggingBinary(log) });
  try {
    faux.setResponses([say("first reply")]);
    await session.prompt("ALPHA-TOPIC is what we discuss first");
    const alphaReply = sessionManager.getLeafId();

    faux.setResponses([say("second reply")]);
    await session.prompt("BRAVO-TOPIC is on a branch we abandon");
    const bravoUser = sessionManager
      .getBranch()
      .find((e) => e.type === "message" && e.message.role === "user" && messageText(e.message).includes("BRAVO"));
    assert.ok(bravoUser, "found the BRAVO user entry");

    // What /tree does: move the leaf back to the first reply, keep the abandoned branch in the file.
    const nav = await session.navigateTree(alphaReply, { summarize: false });
    assert.equal(nav.cancelled, false);
    assert.equal(sessionManager.getLeafId(), alphaReply);

    // The seq of the BRAVO message, known from the file while it was on the branch.
    const seen = [];
    faux.setResponses([
      call("history_list", { roles: ["user"] }),
      observe(seen, call("history_search", { query: "topic is" })),
      observe(seen, say("done")),
    ]);
    await session.prompt("what topics did we cover?");

    const [listed, searched] = seen;
    const users = JSON.parse(listed.text).items.map((r) => r.content);
    assert.ok(users.some((c) => c.includes("ALPHA-TOPIC")), `ALPHA on the branch: ${listed.text}`);
    assert.ok(!users.some((c) => c.includes("BRAVO-TOPIC")), `BRAVO is off the branch: ${listed.text}`);
    const found = JSON.parse(searched.text).items.filter((r) => r.role === "user").map((r) => r.content);
    assert.equal(found.length, 1, searched.text);
    assert.match(found[0], /^topic is what we discuss first/i);

    // The context the binary received: the live leaf, which is the tool-calling assistant entry
    // whose branch goes through the first reply, not through BRAVO.
    const calls = readLog(log).filter((c) => c.args.startsWith("tool history_"));
    assert.equal(calls.length, 2);
    const file = readJsonl(session.sessionFile);
    const byId = new Map(file.filter((e) => e.id).map((e) => [e.id, e]));
    for (const c of calls) {
      const leaf = c.request.context.leaf_id;
      assert.ok(byId.has(leaf), `leaf ${leaf} is an entry in the file`);
      const chain = [];
      for (let id = leaf; id; id = byId.get(id)?.parentId) chain.push(id);
      assert.ok(chain.includes(alphaReply), "leaf's branch goes through the first reply");
      assert.ok(!chain.includes(bravoUser.id), "leaf's branch skips the abandoned BRAVO message");
    }
    // The abandoned branch is still in the file: the binary had to choose by leaf.
    assert.ok(byId.has(bravoUser.id));
  } finally {
    dispose();
  }
});

test("every call sends the live context; an in-memory session sends its entries", async () => {
  const log = join(tempDir("log"), "calls.jsonl");
  const notesHome = tempDir("notes");
  for (const inMemory of [false, true]) {
    const { session, faux, cwd, sessionManager, dispose } = await createSession({
      inMemory,
      bin: loggingBinary(log),
      env: { PI_NOTES_HOME: notesHome, PI_NOTES_AGENT: "ctx-agent" },
    });
    try {
      faux.setResponses([say("fine")]);
      await session.prompt("The memo says ZEBRA-CROSSING-7.");
      const seen = [];
      let leafAtCall;
      faux.setResponses([
        call("history_search", { query: "zebra-crossing" }),
        observe(seen, say("done")),
      ]);
      session.subscribe((e) => {
        if (e.type === "tool_execution_start") leafAtCall = sessionManager.getLeafId();
      });
      await session.prompt("find the memo");

      assert.equal(seen[0].isError, false, seen[0].text);
      const hit = JSON.parse(seen[0].text).items.find((r) => r.role === "user");
      assert.ok(hit, `found in ${inMemory ? "memory" : "file"}: ${seen[0].text}`);
      assert.match(hit.content, /^ZEBRA-CROSSING-7/);

      const request = readLog(log).filter((c) => c.args === "tool history_search").at(-1).request;
      assert.deepEqual(request.params, { query: "zebra-crossing" });
      const c = request.context;
      assert.equal(c.session_id, session.sessionId);
      assert.equal(c.cwd, cwd);
      assert.equal(c.model, "faux/faux-1");
      assert.equal(c.agent, "ctx-agent");
      assert.equal(c.notes_home, notesHome);
      assert.equal(c.leaf_id, leafAtCall);
      if (inMemory) {
        assert.equal(c.session_file, null);
        assert.ok(Array.isArray(c.entries), "entries sent");
        const first = JSON.parse(c.entries[0]);
        assert.equal(first.type, "session", "header first");
        assert.equal(first.id, session.sessionId);
        // The header plus every entry up to the tool call (the result and the reply came later).
        assert.equal(c.entries.length, 1 + sessionManager.getEntries().length - 2);
        assert.equal(JSON.parse(c.entries.at(-1)).id, leafAtCall);
      } else {
        assert.equal(c.session_file, session.sessionFile);
        assert.equal(c.entries, undefined);
      }
    } finally {
      dispose();
    }
  }
});
