#!/usr/bin/env node
// Latency of one tool call through Pi: extension spawn → binary → result, measured inside a real
// Pi AgentSession from `tool_execution_start` to `tool_execution_end` (scripted faux model, so no
// model time is included).
//
//   cargo build --release
//   PATH="$(scripts/setup-node):$PATH" node extension/bench/tool-latency.mjs [--calls 50] [--size-mb 10]
//       [--notes 1000] [--query WORD]… [--json] [--builtin-generator]
//
// Binary: PI_CONTEXT_BIN, else target/release/pi-context, else target/debug/pi-context.
// Cases:
//   the floor: history_windows on a tiny session (what any call costs: spawn, protocol, Pi);
//   history_search on a generated session of --size-mb MB (scripts/gen-session.py when present,
//     else a small generator below), opened in Pi the way `pi --session <file>` opens it;
//   notes_read on a store of --notes notes (written through the binary), when the binary has the
//     notes tools.
// Each case also times the same request sent straight to the binary (no Pi) for comparison.

import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "..", "..");

const { values: opt } = parseArgs({
  options: {
    calls: { type: "string", default: "50" },
    warmup: { type: "string", default: "5" },
    "size-mb": { type: "string", default: "10" },
    notes: { type: "string", default: "1000" },
    query: { type: "string", multiple: true, default: ["quetzalcoatl", "kestrel"] },
    json: { type: "boolean", default: false },
    "builtin-generator": { type: "boolean", default: false },
  },
});
const CALLS = Number(opt.calls);
const WARMUP = Number(opt.warmup);
const SIZE_MB = Number(opt["size-mb"]);
const NOTES = Number(opt.notes);

if (!process.env.PI_CONTEXT_BIN) {
  const release = join(REPO, "target", "release", "pi-context");
  const debug = join(REPO, "target", "debug", "pi-context");
  process.env.PI_CONTEXT_BIN = existsSync(release) ? release : debug;
}
const BIN = process.env.PI_CONTEXT_BIN;
const h = await import("../test/harness.mjs");

const log = (...a) => console.error(...a);

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return { n: s.length, median: q(0.5), p95: q(0.95), min: s[0], max: s.at(-1) };
}
const fmt = (x) => `${x.toFixed(2)} ms`;

/** Runs `calls` tool calls through Pi and returns each call's start→end time in ms. */
async function throughPi(session, faux, events, calls) {
  const start = new Map();
  const times = [];
  const unsubscribe = session.subscribe((e) => {
    if (e.type === "tool_execution_start") start.set(e.toolCallId, performance.now());
    if (e.type === "tool_execution_end") {
      times.push({ ms: performance.now() - start.get(e.toolCallId), isError: e.isError, name: e.toolName });
    }
  });
  faux.setResponses([...calls.map(([name, args]) => h.call(name, args)), h.say("done")]);
  await session.prompt("bench");
  unsubscribe();
  const failed = times.filter((t) => t.isError);
  if (failed.length) throw new Error(`${failed.length} of ${times.length} calls were error results`);
  return times.map((t) => t.ms);
}

/** The same request sent straight to the binary, `n` times: ms per spawn. */
function direct(name, request, n) {
  const input = JSON.stringify(request);
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = spawnSync(BIN, ["tool", name], { input, encoding: "utf8" });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${name} failed: ${r.stderr}`);
  }
  return times;
}

// A small, valid Pi v3 session: users, assistants with tool calls, tool results, with the needle
// words of scripts/gen-session.py planted (rare "quetzalcoatl", common "kestrel").
function generateSession(path, sizeMb) {
  const words = "the context window history seq search read list tool call result branch compaction async await error retry budget offset cursor page fold".split(" ");
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const word = () => {
    const x = rand();
    return x < 0.00002 ? "quetzalcoatl" : x < 0.001 ? "kestrel" : words[Math.floor(rand() * words.length)];
  };
  const text = (n) => Array.from({ length: n }, word).join(" ");
  const lines = [];
  let bytes = 0;
  let parent = null;
  let id = 0;
  let t = Date.parse("2026-01-01T00:00:00Z");
  const push = (o) => {
    const line = JSON.stringify(o);
    lines.push(line);
    bytes += line.length + 1;
  };
  const sessionId = randomUUID();
  push({ type: "session", version: 3, id: sessionId, timestamp: new Date(t).toISOString(), cwd: "/bench" });
  const entry = (message) => {
    const e = { type: "message", id: (++id).toString(16).padStart(8, "0"), parentId: parent, timestamp: new Date((t += 1000)).toISOString(), message: { ...message, timestamp: t } };
    parent = e.id;
    push(e);
  };
  while (bytes < sizeMb * 1024 * 1024) {
    entry({ role: "user", content: text(30) });
    const callId = `call_${id}`;
    entry({ role: "assistant", content: [{ type: "text", text: text(60) }, { type: "toolCall", id: callId, name: "bash", arguments: { command: `grep -rn ${words[id % words.length]} src` } }], api: "faux", provider: "faux", model: "faux-1", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse" });
    entry({ role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: text(400) }], isError: false });
    entry({ role: "assistant", content: [{ type: "text", text: text(40) }], api: "faux", provider: "faux", model: "faux-1", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop" });
  }
  writeFileSync(path, lines.join("\n") + "\n");
}

const results = { binary: BIN, calls: CALLS };
log(`binary: ${BIN}`);

// --- floor: history_windows on a one-message session (spawn + protocol + Pi overhead) ---------
{
  const { session, faux, events, sessionManager, dispose } = await h.createSession();
  try {
    faux.setResponses([h.say("ok")]);
    await session.prompt("hello");
    const calls = (n) => Array.from({ length: n }, () => ["history_windows", {}]);
    await throughPi(session, faux, events, calls(WARMUP));
    const pi = stats(await throughPi(session, faux, events, calls(CALLS)));
    const request = { params: {}, context: { session_file: session.sessionFile, leaf_id: sessionManager.getLeafId(), session_id: session.sessionId, cwd: "/" } };
    const raw = stats(direct("history_windows", request, CALLS));
    results.floor_history_windows = { through_pi: pi, binary_alone: raw };
    log(`floor, history_windows (small session): through Pi median ${fmt(pi.median)}, p95 ${fmt(pi.p95)}; binary alone median ${fmt(raw.median)}, p95 ${fmt(raw.p95)}`);
  } finally {
    dispose();
  }
}

// --- history_search on a large session -----------------------------------------------------
{
  const dir = h.tempDir("bench-history");
  const file = join(dir, "big.jsonl");
  const generator = join(REPO, "scripts", "gen-session.py");
  let source;
  if (existsSync(generator) && !opt["builtin-generator"]) {
    execFileSync("python3", [generator, "--size-mb", String(SIZE_MB), "--out", file], { stdio: ["ignore", "ignore", "inherit"] });
    source = "scripts/gen-session.py";
  } else {
    generateSession(file, SIZE_MB);
    source = "the bench's built-in generator";
  }
  // Pi appends to the session it opens: work on a copy.
  const live = join(dir, "live.jsonl");
  copyFileSync(file, live);
  const mb = statSync(live).size / 1024 / 1024;
  log(`session: ${mb.toFixed(1)} MB from ${source}`);
  const t0 = performance.now();
  const { session, faux, events, sessionManager, dispose } = await h.createSession({ open: live, contextWindow: 100_000_000 });
  log(`pi opened it in ${fmt(performance.now() - t0)} (${sessionManager.getEntries().length} entries)`);
  try {
    results.history_search = { session_mb: Number(mb.toFixed(1)), source, queries: {} };
    for (const query of opt.query) {
      const calls = (n) => Array.from({ length: n }, () => ["history_search", { query }]);
      await throughPi(session, faux, events, calls(WARMUP));
      const pi = stats(await throughPi(session, faux, events, calls(CALLS)));
      const request = {
        params: { query },
        context: { session_file: session.sessionFile, leaf_id: sessionManager.getLeafId(), session_id: session.sessionId, cwd: "/", model: "faux/faux-1" },
      };
      const raw = stats(direct("history_search", request, CALLS));
      results.history_search.queries[query] = { through_pi: pi, binary_alone: raw };
      log(`history_search (${mb.toFixed(1)} MB, query "${query}"): through Pi median ${fmt(pi.median)}, p95 ${fmt(pi.p95)}; binary alone median ${fmt(raw.median)}, p95 ${fmt(raw.p95)}`);
    }
  } finally {
    dispose();
  }
}

// --- notes_read on a 1,000-note store ------------------------------------------------------
{
  const names = await h.schemaNames();
  if (!names.includes("notes_read") || !names.includes("notes_write")) {
    results.notes_read = { skipped: "the binary has no notes tools yet" };
    log("notes_read: not measured, the binary has no notes tools yet");
  } else {
    const home = join(h.tempDir("bench-notes"), "home");
    const env = { PI_NOTES_HOME: home, PI_NOTES_AGENT: "bench" };
    const context = { session_file: null, entries: [], leaf_id: "none", session_id: randomUUID(), cwd: home, agent: "bench", model: "faux/faux-1", notes_home: home };
    const t0 = performance.now();
    const generator = join(REPO, "scripts", "gen-notes.py");
    let addresses;
    let source;
    if (existsSync(generator)) {
      execFileSync("python3", [generator, "--out", home, "--count", String(NOTES), "--size-mb", String(NOTES / 200)], { stdio: ["ignore", "ignore", "inherit"] });
      // Read spelled-out addresses of @human and @agents notes (readable from any identity).
      addresses = [];
      const walk = (dir, rel) => {
        for (const d of readdirSync(dir, { withFileTypes: true })) {
          if (d.isDirectory()) walk(join(dir, d.name), `${rel}/${d.name}`);
          else if (d.name.endsWith(".md")) addresses.push(`${rel}/${d.name}`);
        }
      };
      if (existsSync(join(home, "human"))) walk(join(home, "human"), "@human");
      if (existsSync(join(home, "agents"))) walk(join(home, "agents"), "@agents");
      source = "scripts/gen-notes.py";
    } else {
      addresses = [];
      for (let i = 0; i < NOTES; i++) {
        const address = `@self/topic-${i % 20}/note-${i}`;
        const input = JSON.stringify({ params: { address, content: `Note ${i}\n${"some remembered fact about the project. ".repeat(20)}\n` }, context });
        const r = spawnSync(BIN, ["tool", "notes_write"], { input, encoding: "utf8" });
        if (r.status !== 0 || JSON.parse(r.stdout).is_error) throw new Error(`notes_write failed: ${r.stdout} ${r.stderr}`);
        addresses.push(address);
      }
      source = "notes_write through the binary";
    }
    if (addresses.length === 0) throw new Error(`no readable notes in ${home}`);
    log(`notes store: ${NOTES} notes from ${source} in ${fmt(performance.now() - t0)}; reading ${addresses.length} of them`);
    const address = (i) => addresses[(i * 37) % addresses.length];
    const { session, faux, events, dispose } = await h.createSession({ env });
    try {
      const calls = (n) => Array.from({ length: n }, (_, i) => ["notes_read", { address: address(i) }]);
      await throughPi(session, faux, events, calls(WARMUP));
      const pi = stats(await throughPi(session, faux, events, calls(CALLS)));
      const raw = stats(direct("notes_read", { params: { address: address(1) }, context }, CALLS));
      results.notes_read = { notes: NOTES, source, through_pi: pi, binary_alone: raw };
      log(`notes_read (${NOTES} notes): through Pi median ${fmt(pi.median)}, p95 ${fmt(pi.p95)}; binary alone median ${fmt(raw.median)}, p95 ${fmt(raw.p95)}`);
    } finally {
      dispose();
    }
  }
}

if (opt.json) console.log(JSON.stringify(results, null, 2));
