// @ts-check
/**
 * Which pi-context binary to run: `PI_CONTEXT_BIN` when set, else the binary of this platform's
 * npm package (an optional dependency of `pi-context`, installed beside it), else `pi-context` on
 * PATH. Shared by the extension (binary.ts) and the npm launcher (bin/pi-context.mjs), so both
 * name the same binary and say the same thing when there is none. Plain JavaScript: Node strips
 * no types under node_modules, and the launcher runs without Pi. docs/install.md explains it.
 */

import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The package of each platform a binary is built for, by `<process.platform>-<process.arch>`. */
export const PLATFORM_PACKAGES = Object.freeze({
  "linux-x64": "@pi-context/linux-x64",
  "linux-arm64": "@pi-context/linux-arm64",
  "darwin-arm64": "@pi-context/darwin-arm64",
  "darwin-x64": "@pi-context/darwin-x64",
  "win32-x64": "@pi-context/win32-x64",
});

const PACKAGE_ROOT = dirname(fileURLToPath(import.meta.url));

/** This package's version: the binary must print the same one. */
export const VERSION = /** @type {string} */ (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version);

/**
 * The binary's file name on a platform.
 * @param {string} [platform]
 */
export function binaryName(platform = process.platform) {
  return platform === "win32" ? "pi-context.exe" : "pi-context";
}

/** @type {boolean | undefined} */
let muslSeen;

/** Whether this Linux runs on musl: Node's report names the glibc it runs on, and none on musl. */
export function isMusl() {
  if (process.platform !== "linux") return false;
  muslSeen ??= runsOnMusl();
  return muslSeen;
}

function runsOnMusl() {
  // Without the network section the report takes half the time (about 12 ms).
  const reports = /** @type {NodeJS.ProcessReport & { excludeNetwork?: boolean }} */ (process.report);
  const excluded = reports.excludeNetwork;
  reports.excludeNetwork = true;
  try {
    const report = /** @type {{ header?: { glibcVersionRuntime?: string } }} */ (reports.getReport());
    return !report.header?.glibcVersionRuntime;
  } finally {
    reports.excludeNetwork = excluded;
  }
}

/**
 * This machine's platform as the packages name it (`linux-x64`), with `-musl` on a musl Linux:
 * the binaries are built for glibc and no package is offered there.
 * @param {{ platform?: string, arch?: string, musl?: boolean }} [machine]
 */
export function platformKey({ platform = process.platform, arch = process.arch, musl = isMusl() } = {}) {
  return `${platform}-${arch}${platform === "linux" && musl ? "-musl" : ""}`;
}

/**
 * @typedef {"PI_CONTEXT_BIN" | "package" | "PATH"} Source
 * @typedef {{ path: string, source: Source, label: string }} Found
 * @typedef {{ missing: string }} Missing
 * @typedef {{
 *   env?: NodeJS.ProcessEnv,
 *   platform?: string,
 *   arch?: string,
 *   musl?: boolean,
 *   searchPath?: boolean,
 *   from?: string,
 * }} Options
 */

/**
 * Finds the binary. `searchPath: false` skips the PATH step (the launcher, which is itself a
 * `pi-context` on PATH). `from` is where the platform package is resolved from (this package).
 * @param {Options} [options]
 * @returns {Found | Missing}
 */
export function locateBinary(options = {}) {
  const env = options.env ?? process.env;
  const configured = env.PI_CONTEXT_BIN?.trim();
  if (configured) return { path: configured, source: "PI_CONTEXT_BIN", label: `PI_CONTEXT_BIN=${configured}` };

  const key = platformKey(options);
  const pkg = /** @type {Record<string, string>} */ (PLATFORM_PACKAGES)[key];
  const fromPackage = pkg ? packagedBinary(pkg, options) : undefined;
  if (fromPackage) return fromPackage;

  if (options.searchPath !== false) {
    const onPath = searchPath(binaryName(options.platform), env);
    if (onPath) return { path: onPath, source: "PATH", label: `${onPath} (pi-context on PATH)` };
  }
  return { missing: missingMessage(key, pkg, options.searchPath !== false) };
}

/**
 * The binary inside an installed platform package, or undefined when the package is not
 * installed. A package of another version (a stale copy npm left) counts as not installed.
 * @param {string} pkg
 * @param {Options} options
 * @returns {Found | undefined}
 */
function packagedBinary(pkg, options) {
  let manifest;
  try {
    manifest = createRequire(options.from ?? import.meta.url).resolve(`${pkg}/package.json`);
  } catch {
    return undefined;
  }
  const version = JSON.parse(readFileSync(manifest, "utf8")).version;
  const path = join(dirname(manifest), "bin", binaryName(options.platform));
  if (version !== VERSION || !executable(path)) return undefined;
  return { path, source: "package", label: `${path} (${pkg} ${version})` };
}

/** @param {string} path */
function executable(path) {
  try {
    accessSync(path, process.platform === "win32" ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first executable `name` in PATH's directories.
 * @param {string} name
 * @param {NodeJS.ProcessEnv} env
 */
export function searchPath(name, env = process.env) {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    const candidate = dir ? join(dir, name) : undefined;
    if (candidate && executable(candidate)) return candidate;
  }
  return undefined;
}

/** Where this package is installed by npm: the prefix holding its node_modules, if it is. */
function npmPrefix() {
  const marker = `${sep}node_modules${sep}`;
  const at = PACKAGE_ROOT.lastIndexOf(marker);
  return at < 0 ? undefined : PACKAGE_ROOT.slice(0, at);
}

/**
 * What to say when no binary is found: what was looked for, and the exact thing to install.
 * @param {string} key
 * @param {string | undefined} pkg
 * @param {boolean} searchedPath
 */
export function missingMessage(key, pkg, searchedPath) {
  const looked = [
    "PI_CONTEXT_BIN is not set",
    pkg ? `the platform package ${pkg}@${VERSION} is not installed` : `no platform package is built for ${key}`,
    ...(searchedPath ? ["there is no pi-context on PATH"] : []),
  ];
  const prefix = npmPrefix();
  // The launcher never looks on PATH: a cargo-installed binary is run by its own name instead.
  const cargoThen = searchedPath ? "puts pi-context on PATH" : "then run that pi-context instead of this launcher";
  const installs = [
    ...(pkg
      ? [
          prefix
            ? `\`npm install --prefix ${JSON.stringify(prefix)} ${pkg}@${VERSION}\` (npm skipped this optional dependency; --omit=optional does that)`
            : `\`npm install ${pkg}@${VERSION}\``,
        ]
      : []),
    ...(prefix === undefined && existsSync(join(PACKAGE_ROOT, "..", "Cargo.toml"))
      ? [`\`cargo install --locked --path ${JSON.stringify(dirname(PACKAGE_ROOT))}\` (this checkout's binary, ${cargoThen})`]
      : []),
    `\`cargo install --locked pi-context@${VERSION}\` (${cargoThen})`,
    "set PI_CONTEXT_BIN to a pi-context binary",
  ];
  return `No pi-context binary found: ${looked.join(", ")}. Install one: ${installs.join("; or ")}.`;
}
