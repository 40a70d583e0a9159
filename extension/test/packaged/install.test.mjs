// The install a newcomer does, from the packed npm tarballs (scripts/test-install packs them and
// names them in PI_CONTEXT_TARBALLS), served by a local registry: no cargo, no checkout binary and
// no PI_CONTEXT_BIN; PATH holds node, npm and the system's /usr/bin and /bin only. HOME, npm's
// cache and Pi's agent dir are temp directories: nothing touches ~/.pi or ~/.npm.
//
//   npm install pi-context      → the launcher runs the platform package's binary (npx)
//   npx -y pi-context           → the same, the way Claude Code and Codex are told to start it
//   pi install npm:pi-context   → the real Pi runtime, a scripted model, notes_write and
//                                 sessions_search through the installed extension and binary
//   --omit=optional             → the extension falls back to PATH; with neither, it says what to install

import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { startRegistry } from "./registry.mjs";

const EXTENSION_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PI_CLI = join(EXTENSION_DIR, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
const FAUX_MODEL = join(EXTENSION_DIR, "test", "fixtures", "faux-model.ts");
const VERSION = JSON.parse(readFileSync(join(EXTENSION_DIR, "package.json"), "utf8")).version;
const PLATFORM = `${process.platform}-${process.arch}`;
const PLATFORM_PACKAGE = `@pi-context/${PLATFORM}`;

const TARBALLS = (process.env.PI_CONTEXT_TARBALLS ?? "").split("\n").filter(Boolean);
if (TARBALLS.length !== 2 || !TARBALLS.every((t) => existsSync(t))) {
  throw new Error(`PI_CONTEXT_TARBALLS must name the two tarballs scripts/package printed; run scripts/test-install (got ${JSON.stringify(TARBALLS)})`);
}

const ROOT = mkdtempSync(join(tmpdir(), "pi-context-install-"));
process.on("exit", () => {
  if (!process.env.PI_CONTEXT_KEEP_TMP) rmSync(ROOT, { recursive: true, force: true });
});
let counter = 0;
function tempDir(prefix) {
  const dir = join(ROOT, `${prefix}-${++counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The first `name` on the outer PATH, resolved (npm is a symlink to its npm-cli.js). */
function outerCommand(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return realpathSync(join(dir, name));
  }
  throw new Error(`${name} is not on PATH`);
}

/** A bin directory holding only node, npm and npx. */
function toolsDir() {
  const dir = tempDir("tools");
  symlinkSync(process.execPath, join(dir, "node"));
  symlinkSync(outerCommand("npm"), join(dir, "npm"));
  symlinkSync(outerCommand("npx"), join(dir, "npx"));
  return dir;
}

let registry;
let env;
let scrubbedPath;

before(async () => {
  registry = await startRegistry(TARBALLS);
  scrubbedPath = [toolsDir(), "/usr/bin", "/bin"].join(delimiter);
  const home = tempDir("home");
  env = {
    PATH: scrubbedPath,
    HOME: home,
    TMPDIR: tempDir("tmp"),
    LANG: "C.UTF-8",
    npm_config_registry: registry.url,
    npm_config_cache: tempDir("npm-cache"),
    npm_config_userconfig: join(home, ".npmrc"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    PI_OFFLINE: "1",
    PI_TELEMETRY: "0",
  };
});

after(async () => {
  await registry?.close();
});

/** Runs a command in the scrubbed environment (asynchronously: the registry answers meanwhile). */
function run(command, args, { extra = {}, input, cwd = ROOT, timeout = 300_000 } = {}) {
  return new Promise((done) => {
    const child = execFile(command, args, { env: { ...env, ...extra }, cwd, timeout, maxBuffer: 64 << 20, encoding: "utf8" }, (error, stdout, stderr) => {
      done({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, signal: error?.signal ?? null, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

const npm = (args, options) => run(join(env.PATH.split(delimiter)[0], "npm"), args, options);
const npx = (args, options) => run(join(env.PATH.split(delimiter)[0], "npx"), args, options);
const pi = (args, options) => run(process.execPath, [PI_CLI, ...args], options);
const show = (r) => `status ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

test("the scrubbed PATH holds no cargo and no pi-context", async () => {
  for (const name of ["cargo", "rustc", "pi-context"]) {
    const r = await run("/bin/sh", ["-c", `command -v ${name}`]);
    assert.notEqual(r.status, 0, `${name} is on the scrubbed PATH: ${r.stdout}`);
  }
});

/** `npm install pi-context` into a fresh prefix; returns the prefix. */
async function npmInstall(...flags) {
  const prefix = tempDir("prefix");
  const r = await npm(["install", "--prefix", prefix, ...flags, `pi-context@${VERSION}`]);
  assert.equal(r.status, 0, show(r));
  return prefix;
}

test("npm install pi-context: only this platform's package comes with it; npx runs its binary", async () => {
  const prefix = await npmInstall();
  const scoped = readdirSync(join(prefix, "node_modules", "@pi-context"));
  assert.deepEqual(scoped, [PLATFORM], "exactly this platform's package is installed");
  assert.ok(existsSync(join(prefix, "node_modules", PLATFORM_PACKAGE, "bin", "pi-context")));
  for (const other of ["linux-arm64", "darwin-arm64", "darwin-x64", "win32-x64"].filter((p) => p !== PLATFORM)) {
    assert.ok(registry.requests.includes(`GET /@pi-context/${other} 404`), `npm asked for ${other} and skipped it: ${registry.requests}`);
  }

  const version = await npx(["--prefix", prefix, "pi-context", "--version"]);
  assert.equal(version.status, 0, show(version));
  assert.equal(version.stdout, `pi-context ${VERSION}\n`);

  const notes = tempDir("notes");
  const doctor = await npx(["--prefix", prefix, "pi-context", "dream", "doctor", "--json"], { extra: { PI_NOTES_HOME: notes } });
  assert.equal(doctor.status, 0, show(doctor));
  assert.equal(typeof JSON.parse(doctor.stdout), "object", doctor.stdout);

  const usage = await npx(["--prefix", prefix, "pi-context", "no-such-command"]);
  assert.equal(usage.status, 2, `a usage error's exit status comes through: ${show(usage)}`);
  assert.match(usage.stderr, /unrecognized subcommand 'no-such-command'/);
});

test("npx -y pi-context (the Claude Code and Codex line) fetches and runs it", async () => {
  const r = await npx(["-y", `pi-context@${VERSION}`, "--version"], { cwd: tempDir("anywhere") });
  assert.equal(r.status, 0, show(r));
  assert.equal(r.stdout, `pi-context ${VERSION}\n`);
});

test("npx pi-context mcp starts the MCP server (when this build has `pi-context mcp`)", async (t) => {
  const prefix = await npmInstall();
  const help = await npx(["--prefix", prefix, "pi-context", "mcp", "--help"]);
  if (help.status !== 0) {
    t.skip(`this build has no \`pi-context mcp\` (${help.stderr.trim().split("\n")[0]})`);
    return;
  }
  const server = spawn(join(env.PATH.split(delimiter)[0], "npx"), ["--prefix", prefix, "pi-context", "mcp"], {
    env: { ...env, PI_NOTES_HOME: tempDir("notes") },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  server.stderr.on("data", (d) => (stderr += d));
  const lines = [];
  let buffered = "";
  const answered = new Promise((resolveAnswer, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to initialize; stderr:\n${stderr}`)), 60_000);
    server.stdout.on("data", (chunk) => {
      buffered += chunk;
      for (let at = buffered.indexOf("\n"); at >= 0; at = buffered.indexOf("\n")) {
        lines.push(JSON.parse(buffered.slice(0, at)));
        buffered = buffered.slice(at + 1);
        if (lines.some((l) => l.id === 2)) {
          clearTimeout(timer);
          resolveAnswer();
        }
      }
    });
  });
  const send = (message) => server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "install-test", version: "0" } } });
  send({ method: "notifications/initialized" });
  send({ id: 2, method: "tools/list", params: {} });
  await answered;
  const init = lines.find((l) => l.id === 1);
  assert.ok(init?.result?.serverInfo, `initialize answered: ${JSON.stringify(init)}`);
  const tools = lines.find((l) => l.id === 2)?.result?.tools?.map((tool) => tool.name) ?? [];
  assert.ok(tools.includes("sessions_search"), `tools/list: ${tools}`);
  server.stdin.end();
  const [code] = await new Promise((done) => server.on("exit", (c, s) => done([c, s])));
  assert.equal(code, 0, `the server exits 0 when its input ends; stderr:\n${stderr}`);
});

/** A Pi run in print mode with the scripted model; `steps` as extension/test/fixtures/faux-model.ts reads them. */
function piRun(agentDir, cwd, steps, prompt, extra = {}, extraArgs = []) {
  return pi(["--offline", "-p", "--model", "faux/faux-1", "-e", FAUX_MODEL, ...extraArgs, prompt], {
    cwd,
    extra: { PI_CODING_AGENT_DIR: agentDir, FAUX_SCRIPT: JSON.stringify(steps), ...extra },
  });
}

test("pi install npm:pi-context: the real Pi runtime calls notes_write and sessions_search through its platform binary", async (t) => {
  const agentDir = tempDir("agent");
  const install = await pi(["install", "npm:pi-context"], { extra: { PI_CODING_AGENT_DIR: agentDir } });
  assert.equal(install.status, 0, show(install));
  const installed = join(agentDir, "npm", "node_modules");
  assert.ok(existsSync(join(installed, "pi-context", "index.ts")), "the package is under Pi's npm directory");
  assert.ok(existsSync(join(installed, PLATFORM_PACKAGE, "bin", "pi-context")), "with its platform package");
  const list = await pi(["list"], { extra: { PI_CODING_AGENT_DIR: agentDir } });
  assert.equal(list.status, 0, show(list));
  assert.match(list.stdout, /npm:pi-context/);

  const cwd = tempDir("project");
  const write = await piRun(agentDir, cwd, [
    { tool: "notes_write", args: { address: "@project/install-check", content: "Installed from npm: TEAL-TOKEN-7." } },
    { echo: "WROTE " },
  ], "Remember that the token is TEAL-TOKEN-7.");
  assert.equal(write.status, 0, show(write));
  assert.match(write.stdout, /^WROTE (?!ERROR)/, write.stdout);
  const notes = join(env.HOME, ".agents", "notes", "project");
  const saved = readdirSync(notes, { recursive: true }).filter((f) => String(f).endsWith("install-check.md"));
  assert.equal(saved.length, 1, `the note is on disk under ${notes}`);
  assert.match(readFileSync(join(notes, String(saved[0])), "utf8"), /TEAL-TOKEN-7/);

  const search = await piRun(agentDir, cwd, [{ tool: "sessions_search", args: { query: "TEAL-TOKEN-7" } }, { echo: "FOUND " }], "Find the token.");
  assert.equal(search.status, 0, show(search));
  assert.match(search.stdout, /^FOUND (?!ERROR)/, search.stdout);
  t.diagnostic(search.stdout.slice(0, 300));
  const { sessions } = JSON.parse(search.stdout.slice("FOUND ".length));
  assert.ok(
    sessions.some((s) => s.hits.some((h) => h.role === "user" && h.content.includes("TEAL-TOKEN-7"))),
    `the earlier session's prompt is found: ${search.stdout}`,
  );
});

/** A directory holding a `pi-context` that logs each call, then runs `binary`. */
function loggingPathBinary(binary, log) {
  const dir = tempDir("pathbin");
  writeFileSync(join(dir, "pi-context"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${binary}' "$@"\n`);
  chmodSync(join(dir, "pi-context"), 0o755);
  return dir;
}

test("without the platform package (--omit=optional) the extension runs pi-context from PATH; with neither it says what to install", async () => {
  const withBinary = await npmInstall();
  const binary = join(withBinary, "node_modules", PLATFORM_PACKAGE, "bin", "pi-context");
  const prefix = await npmInstall("--omit=optional");
  assert.ok(!existsSync(join(prefix, "node_modules", "@pi-context")), "no platform package");
  const extension = join(prefix, "node_modules", "pi-context");
  const agentDir = tempDir("agent");
  const cwd = tempDir("project");

  const log = join(tempDir("log"), "calls");
  const onPath = { PATH: [loggingPathBinary(binary, log), scrubbedPath].join(delimiter) };
  const viaPath = await piRun(agentDir, cwd, [{ tool: "notes_write", args: { address: "@human/fallback", content: "PATH works." } }, { echo: "WROTE " }], "go", onPath, ["-e", extension]);
  assert.equal(viaPath.status, 0, show(viaPath));
  assert.match(viaPath.stdout, /^WROTE (?!ERROR)/, viaPath.stdout);
  assert.match(readFileSync(log, "utf8"), /^tool --schemas$/m, "the PATH binary described the tools");
  assert.match(readFileSync(log, "utf8"), /^tool notes_write$/m, "and answered the call");

  const none = await piRun(agentDir, cwd, [{ tool: "pi_context_unavailable", args: {} }, { echo: "WHY " }], "go", {}, ["-e", extension]);
  assert.equal(none.status, 0, show(none));
  assert.ok(none.stdout.includes(`the platform package ${PLATFORM_PACKAGE}@${VERSION} is not installed`), none.stdout);
  assert.ok(none.stdout.includes(`npm install --prefix ${JSON.stringify(realpathSync(prefix))} ${PLATFORM_PACKAGE}@${VERSION}`), none.stdout);
  assert.ok(none.stdout.includes("there is no pi-context on PATH"), none.stdout);

  const launcher = await npx(["--prefix", prefix, "pi-context", "--version"]);
  assert.equal(launcher.status, 127, show(launcher));
  assert.match(launcher.stderr, new RegExp(`^pi-context: No pi-context binary found: PI_CONTEXT_BIN is not set, the platform package ${PLATFORM_PACKAGE}@`));
});
