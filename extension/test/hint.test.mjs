// Recall pushed at the prompt through the real Pi runtime (docs/lifecycle.md, "The recall hint"):
// a prompt that continues an earlier session's work reaches the model with one hidden hint whose
// history_read call opens that work; an unrelated prompt gets none; a second prompt pointing at
// the same session as an earlier one gets it; the same session is hinted once per window;
// autoRecall: false turns it off; a slow or failing binary never holds up or breaks the prompt.

import assert from "node:assert/strict";
import { test } from "node:test";

import { BIN, call, createSession, loggingBinary, observe, readJsonl, readLog, say, script, tempDir } from "./harness.mjs";
import { count, customMessages, providerText, recordingModel, requestText } from "./lifecycle-lib.mjs";

const HINT = "pi-context/hint";
const FACT = "The thumbnailer crashed on CMYK jpegs because the decoder assumed three channels; fixed in src/media/thumbnailer.rs by converting to RGB first.";

/** A project with one earlier session that holds FACT, and the env its later sessions share. */
async function earlierWork() {
  const env = { PI_CONTEXT_CACHE_DIR: tempDir("cache"), PI_NOTES_HOME: tempDir("notes"), PI_CONTEXT_SETTLE_MS: "0" };
  const first = await createSession({ env });
  try {
    first.faux.setResponses([say(FACT)]);
    await first.session.prompt("Why does the thumbnailer crash on some jpeg uploads?");
    first.faux.setResponses([say("The weekly report job runs on Mondays at six.")]);
    await first.session.prompt("When does the weekly report job run?");
    return { env, dir: first.dir, cwd: first.cwd, sessionDir: first.sessionDir, id: first.session.sessionId };
  } finally {
    first.dispose();
  }
}

/** A later session of the same project (same cwd and session directory). */
function later(work, options = {}) {
  return createSession({ env: work.env, dir: work.dir, ...options });
}

test("a continuing prompt gets one hidden hint whose history_read call opens the earlier work", async () => {
  const work = await earlierWork();
  const s = await later(work);
  try {
    const model = recordingModel(s.faux);
    const seen = [];
    let hintCall;
    model.script([
      (context) => {
        // Pi gives custom messages to the model as user messages.
        const hint = context.messages.map(providerText).find((t) => t.startsWith("<recall_hint>"));
        assert.ok(hint, "the hint reaches the model with the prompt");
        const match = /history_read (\{.*\})/.exec(hint);
        assert.ok(match, hint);
        hintCall = JSON.parse(match[1]);
        return call("history_read", hintCall);
      },
      observe(seen, say("That session is where we fixed it.")),
    ]);
    await s.session.prompt("the thumbnailer CMYK crash is back, what did we change last time?");
    assert.equal(s.faux.getPendingResponseCount(), 0, "the whole script ran");
    const first = requestText(model.requests[0]);
    assert.equal(count(model.requests[0], "<recall_hint>"), 1, "exactly one hint");
    assert.ok(first.indexOf("the thumbnailer CMYK crash is back") < first.indexOf("<recall_hint>"), "after the prompt");
    assert.equal(hintCall.session_id, work.id);
    assert.equal(hintCall.leaf_id, null);
    assert.equal(seen[0].isError, false, seen[0].text);
    assert.match(seen[0].text, /^--- READ WINDOW ---\n/);
    assert.match(seen[0].text, /thumbnailer/, "the call opens the earlier event the hint quotes");

    const hints = customMessages(s.sessionManager.getBranch(), HINT);
    assert.equal(hints.length, 1);
    assert.equal(hints[0].display, false);
    assert.equal(hints[0].details.sessionId, work.id);
    assert.ok(Buffer.byteLength(hints[0].content) <= 600);

    // The same session is not hinted twice in one window.
    model.script([say("Same fix as before.")]);
    await s.session.prompt("is the CMYK thumbnailer crash fix still in thumbnailer.rs?");
    assert.equal(count(model.requests[2], "<recall_hint>"), 1, "only the first hint, still in the context");
    assert.equal(customMessages(s.sessionManager.getBranch(), HINT).length, 1);

    // The status line names the last hint.
    await s.session.prompt("/pi-context");
    assert.match(s.notices.at(-1).message, new RegExp(`last recall hint: session ${work.id.slice(0, 8)}\\S* seq \\d+`));
  } finally {
    s.dispose();
  }
});

test("the hint is never indexed: a search finds the earlier session, not the hint", async () => {
  const work = await earlierWork();
  const s = await later(work);
  try {
    s.faux.setResponses([say("Looking.")]);
    await s.session.prompt("the thumbnailer CMYK crash is back, what did we change last time?");
    const [hint] = customMessages(s.sessionManager.getBranch(), HINT);
    assert.ok(hint.content.includes("jpeg uploads"), `the hint quotes the earlier prompt: ${hint.content}`);
    const file = s.sessionManager.getSessionFile();
    assert.ok(readJsonl(file).some((e) => e.type === "custom_message" && e.customType === HINT), "the hint is in the file");
    const { execFileSync } = await import("node:child_process");
    const found = JSON.parse(
      execFileSync(BIN, ["sessions", "search", "jpeg uploads", "--json", "--sessions-dir", work.sessionDir, "--cwd", work.cwd], {
        env: { ...process.env, ...work.env },
        encoding: "utf8",
      }),
    );
    const ids = found.sessions.map((x) => x.session_id);
    assert.deepEqual(ids, [work.id], "only the earlier session holds those words; the hint quoting them is not indexed");
    assert.ok(ids.length === 1 && s.session.sessionId !== work.id);
  } finally {
    s.dispose();
  }
});

test("an unrelated prompt gets no hint", async () => {
  const work = await earlierWork();
  const s = await later(work);
  try {
    const model = recordingModel(s.faux);
    model.script([say("Sure.")]);
    await s.session.prompt("add a dark mode toggle to the settings screen");
    assert.equal(count(model.requests[0], "<recall_hint>"), 0);
    assert.equal(customMessages(s.sessionManager.getBranch(), HINT).length, 0);
  } finally {
    s.dispose();
  }
});

test("a second prompt ranking the same earlier session first corroborates the first and gets the hint", async () => {
  const second = "the thumbnailer falls over on print shop pictures";
  // Alone (in a project of its own), the second prompt falls short of the bar.
  const control = await earlierWork();
  const alone = await later(control);
  try {
    const model = recordingModel(alone.faux);
    model.script([say("Sure.")]);
    await alone.session.prompt(second);
    assert.equal(count(model.requests[0], "<recall_hint>"), 0, "alone, the second prompt gets no hint");
  } finally {
    alone.dispose();
  }
  const work = await earlierWork();
  const log = `${tempDir("log")}/calls.jsonl`;
  const s = await later(work, { bin: loggingBinary(log) });
  try {
    const model = recordingModel(s.faux);
    model.script([say("Sure."), say("Looking.")]);
    await s.session.prompt("bump the thumbnailer package version");
    assert.equal(count(model.requests[0], "<recall_hint>"), 0, "the first prompt alone gets no hint");
    await s.session.prompt(second);
    assert.equal(count(model.requests[1], "<recall_hint>"), 1, "the second prompt gets the hint");
    const hints = customMessages(s.sessionManager.getBranch(), HINT);
    assert.equal(hints.length, 1);
    assert.equal(hints[0].details.sessionId, work.id);
    const asked = readLog(log).filter((c) => c.args.includes("sessions_hint")).map((c) => c.request.params.leads);
    assert.deepEqual(asked, [[], [work.id]], "the first answer's lead went with the second prompt");
  } finally {
    s.dispose();
  }
});

test("autoRecall: false asks the binary nothing and adds no hint", async () => {
  const work = await earlierWork();
  const log = `${tempDir("log")}/calls.jsonl`;
  const s = await later(work, { bin: loggingBinary(log), settings: { "pi-context": { autoRecall: false } } });
  try {
    const model = recordingModel(s.faux);
    model.script([say("Sure.")]);
    await s.session.prompt("the thumbnailer CMYK crash is back, what did we change last time?");
    assert.equal(count(model.requests[0], "<recall_hint>"), 0);
    assert.ok(!readLog(log).some((c) => c.args.includes("sessions_hint")), "sessions_hint was never run");
    await s.session.prompt("/pi-context");
    assert.match(s.notices.at(-1).message, /recall hints off/);
  } finally {
    s.dispose();
  }
});

for (const [what, body, limitMs] of [
  ["a binary that hangs", "exec sleep 30", 2_000],
  ["a failing binary", "echo boom >&2; exit 3", 2_000],
  ["a binary printing garbage", "echo '{not json'", 2_000],
  ["a binary refusing", `echo '{"text":"refused","details":{"code":"x"},"is_error":true}'`, 2_000],
  ["a binary that sleeps in a child", "sleep 30", 2_000],
]) {
  test(`${what} never delays or breaks the prompt`, async () => {
    const work = await earlierWork();
    // Everything but sessions_hint is the real binary.
    const bin = script(`if [ "$2" = "sessions_hint" ]; then cat >/dev/null; ${body}; exit; fi\nexec '${BIN}' "$@"`);
    const s = await later(work, { bin });
    try {
      const model = recordingModel(s.faux);
      model.script([say("Answered.")]);
      const started = Date.now();
      await s.session.prompt("the thumbnailer CMYK crash is back, what did we change last time?");
      const took = Date.now() - started;
      assert.ok(took < limitMs, `the prompt took ${took} ms`);
      assert.equal(model.requests.length, 1, "the prompt reached the model");
      assert.equal(count(model.requests[0], "<recall_hint>"), 0);
      assert.deepEqual(s.errors, []);
      assert.deepEqual(s.notices.filter((n) => n.level !== "info"), [], "silently");
    } finally {
      s.dispose();
    }
  });
}
