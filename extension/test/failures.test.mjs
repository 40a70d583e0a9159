// What the model sees when the binary is missing, fails, misbehaves or is aborted, and how
// execution modes from --schemas reach Pi.

import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  BIN,
  call,
  createSession,
  fauxAssistantMessage,
  fauxToolCall,
  observe,
  say,
  schemaNames,
  script,
  tempDir,
} from "./harness.mjs";

const { VERSION } = await import("../locate.mjs");

const { UNAVAILABLE_TOOL } = await import("../index.ts");

/** Runs one scripted call of `tool` and returns what the model received. */
async function callOnce(session, faux, tool, args) {
  const seen = [];
  faux.setResponses([call(tool, args), observe(seen, say("done"))]);
  await session.prompt("go");
  assert.equal(faux.getPendingResponseCount(), 0);
  return seen[0];
}

test("a missing PI_CONTEXT_BIN: no binary tool is registered; one tool says why and how to install the binary", async () => {
  const missing = join(tempDir("nobin"), "pi-context");
  const { session, faux, notices, dispose } = await createSession({ bin: missing });
  try {
    const names = session.getAllTools().map((t) => t.name);
    const binaryTools = await schemaNames();
    assert.deepEqual(binaryTools.filter((n) => names.includes(n)), [], `no binary tool registered: ${names}`);
    assert.ok(names.includes(UNAVAILABLE_TOOL), `${UNAVAILABLE_TOOL} registered: ${names}`);
    assert.ok(session.getActiveToolNames().includes(UNAVAILABLE_TOOL), "and active, so the model sees it");
    const r = await callOnce(session, faux, UNAVAILABLE_TOOL, {});
    assert.equal(r.isError, true);
    assert.match(r.text, /history and notes tools are missing/);
    assert.match(r.text, /cargo install --path \./);
    assert.ok(r.text.includes(`PI_CONTEXT_BIN=${missing}`), r.text);
    assert.equal(r.details.error, "binary_unavailable");
    // A binary tool the model calls anyway is unknown to Pi: an error result, not a crash.
    const unknown = await callOnce(session, faux, binaryTools[0], {});
    assert.equal(unknown.isError, true);
    const shown = notices.filter((n) => n.level === "warning" && n.message.includes("history and notes tools are unavailable"));
    assert.equal(shown.length, 1, JSON.stringify(notices));
    assert.ok(shown[0].message.includes(`PI_CONTEXT_BIN=${missing}`));
  } finally {
    dispose();
  }
});

test("pi-context missing from PATH: the unavailable tool says so and how to install it", async () => {
  const path = process.env.PATH;
  process.env.PATH = tempDir("emptypath");
  try {
    const { session, faux, dispose } = await createSession({ bin: "" });
    try {
      const r = await callOnce(session, faux, UNAVAILABLE_TOOL, {});
      assert.equal(r.isError, true);
      assert.match(r.text, /there is no pi-context on PATH/);
      assert.match(r.text, /cargo install --locked --path "[^"]+"/);
      assert.match(r.text, /Then restart pi\.$/);
    } finally {
      dispose();
    }
  } finally {
    process.env.PATH = path;
  }
});

test("a binary that fails: its exit status and stderr reach the model as an error result", async () => {
  const bin = script(`if [ "$2" = "--schemas" ]; then exec '${BIN}' "$@"; fi
cat >/dev/null
echo "error: the disk is on fire" >&2
echo "hint: call the fire brigade" >&2
exit 3`);
  const { session, faux, dispose } = await createSession({ bin });
  try {
    const r = await callOnce(session, faux, "history_windows", {});
    assert.equal(r.isError, true);
    assert.match(r.text, /exit status 3/);
    assert.match(r.text, /the disk is on fire/);
    assert.match(r.text, /call the fire brigade/);
    assert.equal(r.details.exit_code, 3);
  } finally {
    dispose();
  }
});

test("a binary that prints something other than a tool result is an error result", async () => {
  const bin = script(`if [ "$2" = "--schemas" ]; then exec '${BIN}' "$@"; fi
cat >/dev/null
echo "this is not json"
echo "some warning" >&2`);
  const { session, faux, dispose } = await createSession({ bin });
  try {
    const r = await callOnce(session, faux, "history_windows", {});
    assert.equal(r.isError, true);
    assert.match(r.text, /not a tool result: this is not json/);
    assert.match(r.text, /some warning/);
  } finally {
    dispose();
  }
});

test("a failing --schemas at load: the unavailable tool surfaces the failure and how to reinstall", async () => {
  const bin = script(`echo "error: schemas exploded" >&2; exit 2`);
  const { session, faux, dispose } = await createSession({ bin });
  try {
    const names = session.getAllTools().map((t) => t.name);
    const binaryTools = await schemaNames();
    assert.deepEqual(binaryTools.filter((n) => names.includes(n)), [], `no binary tool registered: ${names}`);
    const r = await callOnce(session, faux, UNAVAILABLE_TOOL, {});
    assert.equal(r.isError, true);
    assert.match(r.text, /exit status 2/);
    assert.match(r.text, /schemas exploded/);
    assert.match(r.text, /cargo install --path \./);
  } finally {
    dispose();
  }
});

test("aborting the run kills the binary and ends the call", async () => {
  const pidFile = join(tempDir("abort"), "pid");
  // The recall hint before the prompt is not the call under test.
  const bin = script(`if [ "$2" = "--schemas" ]; then exec '${BIN}' "$@"; fi
if [ "$2" = "sessions_hint" ]; then exit 1; fi
echo $$ > '${pidFile}'
exec sleep 30`);
  const { session, faux, events, dispose } = await createSession({ bin });
  try {
    faux.setResponses([call("history_windows", {}), say("never")]);
    const started = Date.now();
    const run = session.prompt("go");
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") {
      await new Promise((r) => setTimeout(r, 10));
      assert.ok(Date.now() - started < 10_000, "the binary started");
    }
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    await session.abort();
    await run;
    assert.ok(Date.now() - started < 10_000, "the run ended well before the binary would have");
    const end = events.find((e) => e.type === "tool_execution_end" && e.toolName === "history_windows");
    assert.ok(end, "the call ended");
    assert.equal(end.isError, true);
    // The child is gone (killed by the abort signal, reaped by Node).
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 20));
      } catch {
        alive = false;
      }
    }
    assert.equal(alive, false, `process ${pid} was killed`);
  } finally {
    dispose();
  }
});

test("execution_mode from --schemas: sequential tools never overlap, parallel ones may", async () => {
  const dir = tempDir("modes");
  const schemas = JSON.stringify({
    version: VERSION,
    tools: [
      { name: "slow_seq", label: "Slow seq", description: "Sleeps.", parameters: { type: "object", properties: { n: { type: "integer" } } }, execution_mode: "sequential" },
      { name: "slow_par", label: "Slow par", description: "Sleeps.", parameters: { type: "object", properties: { n: { type: "integer" } } }, execution_mode: "parallel" },
    ],
  });
  const bin = script(`if [ "$2" = "--schemas" ]; then echo '${schemas}'; exit 0; fi
cat >/dev/null
echo "start $2 $(date +%s%N)" >> '${dir}/times'
sleep 0.3
echo "end $2 $(date +%s%N)" >> '${dir}/times'
echo '{"text":"slept","details":{},"is_error":false}'`);
  const { session, faux, dispose } = await createSession({ bin });
  try {
    const two = (name) =>
      fauxAssistantMessage([fauxToolCall(name, { n: 1 }), fauxToolCall(name, { n: 2 })], { stopReason: "toolUse" });
    const overlaps = async (name) => {
      rmSync(join(dir, "times"), { force: true });
      faux.setResponses([two(name), say("done")]);
      await session.prompt("go");
      const lines = readFileSync(join(dir, "times"), "utf8").trim().split("\n").map((l) => l.split(" "));
      assert.equal(lines.length, 4, lines.join("\n"));
      // Overlap: the second call started before the first ended.
      return lines[1][0] === "start";
    };
    assert.equal(await overlaps("slow_seq"), false, "sequential calls ran one after the other");
    assert.equal(await overlaps("slow_par"), true, "parallel calls ran side by side");
  } finally {
    dispose();
  }
});
