#!/bin/sh
# pi-context for the Claude Code plugin: its hooks and its MCP server run this script, which
# finds the binary the way the npm package does (extension/locate.mjs):
#
#   1. PI_CONTEXT_BIN, when set;
#   2. this platform's npm package (@pi-context/<platform>-<arch>, of the same version as the
#      `pi-context` package that depends on it), when node is installed and resolves it: from
#      the project (a local `npm install pi-context`), NODE_PATH, or the global npm prefix
#      (`npm install -g pi-context`);
#   3. `pi-context` on PATH (`cargo install pi-context`, or the npm launcher itself).
#
# No binary found: it prints nothing and exits 0, so a hook never blocks or breaks a prompt
# (Claude Code then lists the MCP server as failed). A hook's errors stay off the agent's
# screen: pi-context records them itself (`pi-context setup --status`). POSIX sh: no toolchain.

bin=${PI_CONTEXT_BIN:-}

if [ -z "$bin" ] && command -v node >/dev/null 2>&1; then
  # Plain JavaScript without single quotes, run by `node -e`; prints the binary's path or nothing.
  bin=$(node -e '
const { createRequire } = require("module");
const path = require("path");
const fs = require("fs");
const packages = {
  "linux-x64": "@pi-context/linux-x64",
  "linux-arm64": "@pi-context/linux-arm64",
  "darwin-arm64": "@pi-context/darwin-arm64",
  "darwin-x64": "@pi-context/darwin-x64",
};
let key = process.platform + "-" + process.arch;
if (process.platform === "linux") {
  // musl: Node names no glibc; the packages are built for glibc (as locate.mjs decides).
  process.report.excludeNetwork = true;
  if (!process.report.getReport().header.glibcVersionRuntime) key += "-musl";
}
const pkg = packages[key];
const prefix = process.env.npm_config_prefix;
const roots = [
  process.cwd(),
  prefix && path.join(prefix, "lib", "node_modules"),
  path.join(path.dirname(process.execPath), "..", "lib", "node_modules"),
];
const version = (manifest) => JSON.parse(fs.readFileSync(manifest, "utf8")).version;
for (const root of pkg ? roots : []) {
  if (!root) continue;
  try {
    const npmPackage = createRequire(path.join(root, "noop.js")).resolve("pi-context/package.json");
    const platform = createRequire(npmPackage).resolve(pkg + "/package.json");
    if (version(platform) !== version(npmPackage)) continue;
    const binary = path.join(path.dirname(platform), "bin", "pi-context");
    fs.accessSync(binary, fs.constants.X_OK);
    process.stdout.write(binary);
    break;
  } catch {}
}
' 2>/dev/null) || bin=
fi

if [ -z "$bin" ]; then
  bin=$(command -v pi-context 2>/dev/null) || bin=
fi

[ -n "$bin" ] || exit 0

if [ "${1:-}" = hook ]; then
  "$bin" "$@" 2>/dev/null
  exit 0
fi
exec "$bin" "$@"
