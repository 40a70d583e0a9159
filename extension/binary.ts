/**
 * Running the `pi-context` binary: where it is, spawning it with a request on stdin, and turning
 * a failed run into a sentence a person (or the model) can act on. Shared by the tools
 * (index.ts) and the context-window lifecycle (lifecycle/, whose boot.ts runs `pi-context boot`).
 */

import { spawn } from "node:child_process";

import { type Found, locateBinary, type Missing, VERSION } from "./locate.mjs";

export { locateBinary, VERSION };
export type { Found, Missing };

/** How to get the binary, named in every "missing binary" error. */
export const INSTALL_HINT =
  "Install it with `pi install npm:pi-context` (its platform package holds the binary), " +
  "`cargo install --locked pi-context`, or `cargo install --path .` in a checkout of the pi-context repository " +
  "(or set PI_CONTEXT_BIN to the path of the binary), then restart pi.";

const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const MAX_STDERR_CHARS = 4000;

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started or was aborted. */
  error?: NodeJS.ErrnoException;
}

/**
 * The binary to run: `PI_CONTEXT_BIN` when set and non-empty, else this platform's package's
 * binary, else `pi-context` (looked up on PATH when it is spawned).
 */
export function binaryPath(env: NodeJS.ProcessEnv = process.env): string {
  const found = locateBinary({ env, searchPath: false });
  return "path" in found ? found.path : "pi-context";
}

/**
 * Why a binary is refused, or undefined when the version `tool --schemas` printed is this
 * extension's: the tool schemas and facts of another version may not be the ones it speaks.
 */
export function versionRefusal(found: string, printed: unknown): string | undefined {
  if (printed === VERSION) return undefined;
  const theirs = typeof printed === "string" ? `version ${printed}` : "of a version that prints none (older than the version handshake)";
  return (
    `The pi-context binary ${found} is ${theirs}, but this extension is version ${VERSION}; it is not used. ` +
    `Install pi-context ${VERSION} (\`pi install npm:pi-context@${VERSION}\` brings its binary, or \`cargo install --locked pi-context@${VERSION}\`), ` +
    "or point PI_CONTEXT_BIN at a binary of that version, then restart pi."
  );
}

/** Runs the binary with `input` on stdin; never rejects. */
export function run(
  bin: string,
  args: string[],
  input: string,
  signal?: AbortSignal,
  timeoutMs?: number,
): Promise<RunResult> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outBytes = 0;
    let settled = false;
    let error: NodeJS.ErrnoException | undefined;
    const finish = (code: number | null, sig: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      resolve({
        code,
        signal: sig,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
        error,
      });
    };
    if (signal?.aborted) {
      error = Object.assign(new Error("aborted"), { name: "AbortError", code: "ABORT_ERR" });
      finish(null, null);
      return;
    }
    let child;
    try {
      child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"], signal, windowsHide: true });
    } catch (e) {
      error = e as NodeJS.ErrnoException;
      finish(null, null);
      return;
    }
    // Our own timer (spawn's `timeout` option outlives a child that never started).
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        error ??= Object.assign(new Error(`timed out after ${timeoutMs} ms`), { code: "ETIMEDOUT" });
        child.kill("SIGKILL");
      }, timeoutMs);
      timer.unref();
      child.on("close", () => clearTimeout(timer));
      child.on("error", () => clearTimeout(timer));
    }
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_OUTPUT_BYTES) {
        error = Object.assign(new Error(`output larger than ${MAX_OUTPUT_BYTES} bytes`), { code: "EOVERFLOW" });
        child.kill("SIGKILL");
        return;
      }
      stdout.push(chunk);
    });
    let errBytes = 0;
    child.stderr.on("data", (chunk: Buffer) => {
      errBytes += chunk.length;
      if (errBytes <= MAX_OUTPUT_BYTES) stderr.push(chunk);
    });
    // The binary may exit before reading all of stdin (a usage error): not our failure.
    child.stdin.on("error", () => {});
    child.on("error", (e: NodeJS.ErrnoException) => {
      error ??= e;
      // A process that never started emits no "close".
      if (child.pid === undefined) finish(null, null);
    });
    child.on("close", (code, sig) => finish(code, sig));
    child.stdin.end(input);
  });
}

export function clip(text: string, max = MAX_STDERR_CHARS): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max)}… (${t.length - max} more characters)` : t;
}

/** Why a run failed, for a person reading a tool result; undefined when it succeeded. */
export function failure(bin: string, what: string, result: RunResult): string | undefined {
  const e = result.error;
  if (e?.code === "ENOENT") {
    return bin === "pi-context"
      ? `The pi-context binary was not found on PATH. ${INSTALL_HINT}`
      : `The pi-context binary was not found at PI_CONTEXT_BIN=${bin}. ${INSTALL_HINT}`;
  }
  if (e?.code === "EACCES") return `The pi-context binary at ${bin} is not executable. ${INSTALL_HINT}`;
  if (e?.name === "AbortError" || e?.code === "ABORT_ERR") return `${what} was aborted.`;
  if (e && result.code === null && result.signal === null) return `${what} could not run: ${e.message}`;
  if (e) return `${what} failed: ${e.message}${result.stderr.trim() ? `\n${clip(result.stderr)}` : ""}`;
  if (result.code !== 0) {
    const status = result.signal ? `was killed by ${result.signal}` : `failed with exit status ${result.code}`;
    const stderr = clip(result.stderr);
    return `${what} ${status}${stderr ? `:\n${stderr}` : " (no output on stderr)."}`;
  }
  return undefined;
}
