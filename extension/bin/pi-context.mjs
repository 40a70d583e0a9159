#!/usr/bin/env node
// @ts-check
// `pi-context` from npm (`npx pi-context mcp`, `npx pi-context dream doctor`): runs the binary of
// this platform's package (or PI_CONTEXT_BIN) with the same arguments and stdio, passes the
// signals a supervisor sends on to it, and exits as it exited. It never looks on PATH: it is
// itself the `pi-context` there. docs/install.md explains the exit statuses.

import { spawn } from "node:child_process";
import { constants } from "node:os";

import { locateBinary } from "../locate.mjs";

/** Forwarded to the binary; a terminal's Ctrl-C reaches both, and a second SIGINT is harmless. */
const FORWARDED = /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]);

const found = locateBinary({ searchPath: false });
if ("missing" in found) {
  process.stderr.write(`pi-context: ${found.missing}\n`);
  process.exit(127);
}

// The handlers are in place before the binary starts: a signal sent once the binary is running
// (even before this process is scheduled again after the spawn) must reach it, not end the
// launcher with the default action and leave the binary orphaned. Handlers run from the event
// loop, so after `child` is set below.
/** @type {import("node:child_process").ChildProcess | undefined} */
let child;
/** @type {Map<NodeJS.Signals, () => void>} */
const handlers = new Map();
for (const signal of FORWARDED) {
  if (process.platform === "win32" && signal !== "SIGINT") continue;
  const forward = () => {
    child?.kill(signal);
  };
  handlers.set(signal, forward);
  process.on(signal, forward);
}

child = spawn(found.path, process.argv.slice(2), { stdio: "inherit" });

child.on("error", (error) => {
  const code = /** @type {NodeJS.ErrnoException} */ (error).code;
  process.stderr.write(`pi-context: could not run ${found.label}: ${error.message}\n`);
  process.exit(code === "ENOENT" ? 127 : 126);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what the binary saw.
    for (const [sig, handler] of handlers) process.off(sig, handler);
    process.kill(process.pid, signal);
    // Only reached where the signal does not end a process (or not at once): the shell's code.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 500);
    return;
  }
  process.exit(code ?? 1);
});
