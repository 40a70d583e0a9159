// Which binary runs (locate.mjs): PI_CONTEXT_BIN, else the platform package, else PATH, and what
// is said when there is none; the version handshake that refuses another version's binary; the
// `/pi-context` status naming the binary; and the npm launcher (bin/pi-context.mjs) passing
// argv, stdio, exit status and signals through.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { BIN, call, createSession, EXTENSION_DIR, observe, say, script, tempDir } from "./harness.mjs";

const { locateBinary, missingMessage, platformKey, PLATFORM_PACKAGES, VERSION } = await import("../locate.mjs");
const { UNAVAILABLE_TOOL } = await import("../index.ts");

const LAUNCHER = join(EXTENSION_DIR, "bin", "pi-context.mjs");
const LINUX = { platform: "linux", arch: "x64", musl: false };

/** A directory laid out as npm installs pi-context and a platform package into; returns `from`. */
function installedTree({ version = VERSION, pkg = "@pi-context/linux-x64", withBinary = true } = {}) {
  const prefix = tempDir("prefix");
  const pkgDir = join(prefix, "node_modules", ...pkg.split("/"));
  mkdirSync(join(pkgDir, "bin"), { recursive: true });
  writeFileSync(join(pkgDir, "package.json"), JSON.stringify({ name: pkg, version }));
  if (withBinary) {
    writeFileSync(join(pkgDir, "bin", "pi-context"), "#!/bin/sh\n");
    chmodSync(join(pkgDir, "bin", "pi-context"), 0o755);
  }
  const main = join(prefix, "node_modules", "pi-context");
  mkdirSync(main, { recursive: true });
  return { prefix, from: pathToFileURL(join(main, "locate.mjs")).href, binary: join(pkgDir, "bin", "pi-context") };
}

/** A PATH holding one executable `pi-context`. */
function pathWithBinary() {
  const dir = tempDir("path");
  writeFileSync(join(dir, "pi-context"), "#!/bin/sh\n");
  chmodSync(join(dir, "pi-context"), 0o755);
  return { dir, binary: join(dir, "pi-context") };
}

test("platform keys: one package per supported platform, none for musl", () => {
  assert.equal(platformKey(LINUX), "linux-x64");
  assert.equal(platformKey({ platform: "linux", arch: "arm64", musl: true }), "linux-arm64-musl");
  assert.equal(platformKey({ platform: "darwin", arch: "arm64", musl: true }), "darwin-arm64", "musl is a Linux question");
  assert.deepEqual(Object.keys(PLATFORM_PACKAGES), ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64", "win32-x64"]);
  for (const [key, pkg] of Object.entries(PLATFORM_PACKAGES)) assert.equal(pkg, `@pi-context/${key}`);
});

test("locate: PI_CONTEXT_BIN first, then the platform package, then PATH", () => {
  const tree = installedTree();
  const path = pathWithBinary();
  const env = { PATH: path.dir };
  const at = (extra) => locateBinary({ ...LINUX, from: tree.from, env: { ...env, ...extra } });

  assert.deepEqual(at({ PI_CONTEXT_BIN: " /opt/pc " }), { path: "/opt/pc", source: "PI_CONTEXT_BIN", label: "PI_CONTEXT_BIN=/opt/pc" });
  assert.deepEqual(at({ PI_CONTEXT_BIN: "" }), {
    path: tree.binary,
    source: "package",
    label: `${tree.binary} (@pi-context/linux-x64 ${VERSION})`,
  });
  const elsewhere = installedTree({ pkg: "@pi-context/darwin-arm64" });
  assert.deepEqual(locateBinary({ ...LINUX, from: elsewhere.from, env }), {
    path: path.binary,
    source: "PATH",
    label: `${path.binary} (pi-context on PATH)`,
  }, "another platform's package is not this one's");
  assert.equal(locateBinary({ ...LINUX, from: installedTree({ version: "0.0.1" }).from, env }).source, "PATH", "a stale package is skipped");
  assert.equal(locateBinary({ ...LINUX, from: installedTree({ withBinary: false }).from, env }).source, "PATH", "a package without its binary is skipped");
  assert.equal(locateBinary({ ...LINUX, from: tree.from, env, searchPath: false }).source, "package", "the launcher's lookup finds the package too");
});

test("locate: with neither, the message names the platform package to install, or cargo where none is built", () => {
  const none = locateBinary({ ...LINUX, from: pathToFileURL(join(tempDir("empty"), "x.mjs")).href, env: { PATH: tempDir("emptypath") } });
  assert.ok("missing" in none);
  assert.match(none.missing, /^No pi-context binary found: PI_CONTEXT_BIN is not set, the platform package @pi-context\/linux-x64@\S+ is not installed, there is no pi-context on PATH\./);
  assert.ok(none.missing.includes(`@pi-context/linux-x64@${VERSION}\``), none.missing);
  assert.ok(none.missing.includes(`cargo install --locked pi-context@${VERSION}`), none.missing);

  const musl = missingMessage("linux-x64-musl", undefined, true);
  assert.match(musl, /no platform package is built for linux-x64-musl/);
  assert.doesNotMatch(musl, /npm install/);
  assert.match(musl, /cargo install --locked pi-context@/);
  assert.doesNotMatch(missingMessage("linux-x64", "@pi-context/linux-x64", false), /no pi-context on PATH/, "the launcher does not claim to search PATH");
});

/** The text of the unavailable tool in a session whose binary is `bin`. */
async function unavailableText(bin) {
  const { session, faux, dispose } = await createSession({ bin });
  try {
    const names = session.getAllTools().map((t) => t.name);
    assert.ok(!names.includes("notes_write"), `no binary tool is registered: ${names}`);
    const seen = [];
    faux.setResponses([call(UNAVAILABLE_TOOL, {}), observe(seen, say("done"))]);
    await session.prompt("go");
    return seen[0].text;
  } finally {
    dispose();
  }
}

test("version handshake: a binary of another version, or one that prints none, is refused by name", async () => {
  const other = script(`if [ "$1 $2" = "tool --schemas" ]; then '${BIN}' tool --schemas | sed 's/"version":"[^"]*"/"version":"9.9.9"/'; exit 0; fi\nexec '${BIN}' "$@"`);
  const text = await unavailableText(other);
  assert.ok(text.includes(`The pi-context binary PI_CONTEXT_BIN=${other} is version 9.9.9, but this extension is version ${VERSION}; it is not used.`), text);
  assert.ok(text.includes(`pi install npm:pi-context@${VERSION}`), text);

  const old = script(`if [ "$1 $2" = "tool --schemas" ]; then '${BIN}' tool --schemas | sed 's/"version":"[^"]*",//'; exit 0; fi\nexec '${BIN}' "$@"`);
  assert.match(await unavailableText(old), /is of a version that prints none \(older than the version handshake\)/);
});

test("/pi-context status names the binary in use, or that none is used", async () => {
  const ok = await createSession();
  try {
    await ok.session.prompt("/pi-context");
    assert.ok(ok.notices.at(-1).message.includes(` · binary PI_CONTEXT_BIN=${BIN} · `), ok.notices.at(-1).message);
  } finally {
    ok.dispose();
  }
  const missing = join(tempDir("nobin"), "pi-context");
  const bad = await createSession({ bin: missing });
  try {
    await bad.session.prompt("/pi-context");
    assert.ok(bad.notices.at(-1).message.includes(` · binary PI_CONTEXT_BIN=${missing}, not used (see the warning) · `), bad.notices.at(-1).message);
  } finally {
    bad.dispose();
  }
});

/** Runs the launcher with `env` added to a copy of this process's. */
function launch(args, env, input) {
  return spawnSync(process.execPath, [LAUNCHER, ...args], { env: { ...process.env, ...env }, input, encoding: "utf8" });
}

test("launcher: argv, stdin, stdout, stderr and the exit status pass through", () => {
  const version = launch(["--version"], { PI_CONTEXT_BIN: BIN });
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), `pi-context ${VERSION}`);

  const echo = script(`printf '%s|' "$@"; cat; echo oops >&2; exit 7`);
  const r = launch(["a b", "--x", ""], { PI_CONTEXT_BIN: echo }, "from stdin");
  assert.equal(r.stdout, "a b|--x||from stdin");
  assert.equal(r.stderr, "oops\n");
  assert.equal(r.status, 7);
});

test("launcher: no binary is exit 127 with what to install; an unrunnable one is 126", () => {
  const none = spawnSync(process.execPath, [LAUNCHER, "--version"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    encoding: "utf8",
  });
  if (platformKey() === "linux-x64") {
    assert.equal(none.status, 127, none.stderr);
    assert.match(none.stderr, /^pi-context: No pi-context binary found: PI_CONTEXT_BIN is not set, the platform package @pi-context\/linux-x64@/);
    assert.doesNotMatch(none.stderr, /no pi-context on PATH/);
  }
  const notExecutable = join(tempDir("noexec"), "pi-context");
  writeFileSync(notExecutable, "#!/bin/sh\n");
  const r = launch([], { PI_CONTEXT_BIN: notExecutable });
  assert.equal(r.status, 126);
  assert.match(r.stderr, /^pi-context: could not run PI_CONTEXT_BIN=.*: spawn .* EACCES/);
});

test("launcher: a signal sent to it reaches the binary, and it dies of the same signal", async () => {
  const dir = tempDir("sig");
  const child = script(`trap 'echo "got TERM" > '${dir}/got'; exit 0' TERM
echo ready
while :; do sleep 0.05; done`);
  const launcher = spawn(process.execPath, [LAUNCHER], { env: { ...process.env, PI_CONTEXT_BIN: child }, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => launcher.stdout.once("data", resolve));
  launcher.kill("SIGTERM");
  const [code, signal] = await new Promise((resolve) => launcher.on("exit", (c, s) => resolve([c, s])));
  assert.deepEqual([code, signal], [0, null], "the binary handled SIGTERM and exited 0; so did the launcher");
  const { readFileSync } = await import("node:fs");
  assert.equal(readFileSync(join(dir, "got"), "utf8"), "got TERM\n");

  const dies = script(`echo ready\nexec sleep 30`);
  const second = spawn(process.execPath, [LAUNCHER], { env: { ...process.env, PI_CONTEXT_BIN: dies }, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => second.stdout.once("data", resolve));
  second.kill("SIGHUP");
  const [, how] = await new Promise((resolve) => second.on("exit", (c, s) => resolve([c, s])));
  assert.equal(how, "SIGHUP", "the binary died of SIGHUP: so does the launcher");
});
