// Test harness: a real Pi AgentSession (the runtime `pi` itself uses) with the extension loaded
// from ../index.ts by Pi's own extension loader, and a scripted `fauxProvider` model.
// Nothing touches ~/.pi or the network: PI_CODING_AGENT_DIR is a temp dir, PI_OFFLINE=1.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const EXTENSION_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const EXTENSION = join(EXTENSION_DIR, "index.ts");

export const ROOT = mkdtempSync(join(tmpdir(), "pi-context-ext-"));
const AGENT_DIR = join(ROOT, "agent");
mkdirSync(AGENT_DIR, { recursive: true });
// Before Pi is imported: Pi reads these at import time.
process.env.PI_CODING_AGENT_DIR = AGENT_DIR;
// Boots and notes tools read the notes home: never the user's ~/.agents/notes.
process.env.PI_NOTES_HOME ||= join(ROOT, "notes-home");
process.env.PI_OFFLINE = "1";
process.env.PI_TELEMETRY = "0";
process.on("exit", () => {
  if (!process.env.PI_CONTEXT_KEEP_TMP) rmSync(ROOT, { recursive: true, force: true });
});

export const pi = await import("@earendil-works/pi-coding-agent");
export const ai = await import("@earendil-works/pi-ai");
export const { fauxAssistantMessage, fauxToolCall, fauxText } = ai;

/** The binary under test: PI_CONTEXT_BIN, which scripts/test-extension points at target/debug. */
export const BIN = process.env.PI_CONTEXT_BIN;
if (!BIN || !existsSync(BIN)) {
  throw new Error(
    `PI_CONTEXT_BIN must name the built pi-context binary (got ${JSON.stringify(BIN)}); run scripts/test-extension`,
  );
}

let counter = 0;
/** A fresh directory under the test root. */
export function tempDir(prefix = "t") {
  const dir = join(ROOT, `${prefix}-${++counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A shell script standing in for the binary (for failure and logging tests). `pi-context boot`
 * (the boot block at every window head) is passed through to the real binary unless `ownBoot`.
 */
export function script(body, { ownBoot = false } = {}) {
  const path = join(tempDir("bin"), "pi-context");
  const boot = ownBoot ? "" : `if [ "$1" = "boot" ]; then exec '${BIN}' "$@"; fi\n`;
  writeFileSync(path, `#!/bin/sh\n${boot}${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A wrapper around the real binary that appends `{"args":[…],"request":<stdin>}` to `log` (one
 * JSON line per call) and then runs the real binary on the same input.
 */
export function loggingBinary(log) {
  return script(
    `req=$(mktemp)
cat > "$req"
args=$(printf '%s' "$*")
if [ -s "$req" ]; then body=$(cat "$req"); else body=null; fi
printf '{"args":"%s","request":%s}\\n' "$args" "$body" >> '${log}'
"${BIN}" "$@" < "$req"
status=$?
rm -f "$req"
exit $status`,
  );
}

/** Lines of a JSONL log written by loggingBinary, parsed. */
export function readLog(log) {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * Creates a session: a new file-backed one, an in-memory one (`inMemory`), an existing session
 * file opened as Pi does with `--session` (`open`), or one `manager(cwd, sessionDir)` returns.
 * `settings` are Pi settings (compaction defaults to disabled), `extensions` extra inline
 * extension factories loaded after pi-context. `env` values are set on process.env before the extension loads (it reads
 * PI_CONTEXT_BIN at load, PI_NOTES_HOME and PI_NOTES_AGENT at every call); undefined deletes.
 * `builtinTools` enables Pi's own read, bash, edit and write tools (working in the session's
 * cwd); `dir` reuses an earlier session's directory (the same cwd, so the same project, and the
 * same session directory).
 */
export async function createSession({
  inMemory = false,
  open,
  bin = BIN,
  env = {},
  contextWindow = 100_000,
  maxTokens = 4096,
  settings = {},
  extensions = [],
  manager,
  builtinTools = false,
  dir = tempDir("session"),
} = {}) {
  const cwd = join(dir, "work");
  const sessionDir = join(dir, "sessions");
  mkdirSync(cwd, { recursive: true });
  process.env.PI_CONTEXT_BIN = bin;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }

  const faux = ai.fauxProvider({
    provider: "faux",
    models: [{ id: "faux-1", contextWindow, maxTokens }],
  });
  const modelRuntime = await pi.ModelRuntime.create({
    authPath: join(AGENT_DIR, "auth.json"),
    modelsPath: null,
    refreshOnCreate: false,
  });
  modelRuntime.registerNativeProvider(faux.provider);
  const { compaction = {}, ...rest } = settings;
  const settingsManager = pi.SettingsManager.inMemory({
    retry: { enabled: false },
    ...rest,
    compaction: { enabled: false, ...compaction },
  });
  const resourceLoader = new pi.DefaultResourceLoader({
    cwd,
    agentDir: AGENT_DIR,
    settingsManager,
    additionalExtensionPaths: [EXTENSION],
    extensionFactories: extensions,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await resourceLoader.reload();
  const sessionManager = manager
    ? manager(cwd, sessionDir)
    : open
    ? pi.SessionManager.open(open, sessionDir, cwd)
    : inMemory
      ? pi.SessionManager.inMemory(cwd)
      : pi.SessionManager.create(cwd, sessionDir);
  const { session } = await pi.createAgentSession({
    cwd,
    agentDir: AGENT_DIR,
    modelRuntime,
    model: faux.getModel(),
    thinkingLevel: "off",
    resourceLoader,
    settingsManager,
    sessionManager,
    ...(builtinTools ? {} : { noTools: "builtin" }),
  });
  const notices = [];
  const errors = [];
  await session.bindExtensions({ uiContext: recordingUi(notices), onError: (e) => errors.push(e) });
  const events = [];
  session.subscribe((e) => events.push(e));
  return { session, faux, events, notices, errors, cwd, dir, sessionDir, sessionManager, settingsManager, dispose: () => session.dispose() };
}

/**
 * A UI context that records every `notify(message, level)` into `notices` as `{message, level}`;
 * every other UI call does nothing (dialogs answer "no").
 */
export function recordingUi(notices) {
  const target = {
    notify: (message, level = "info") => notices.push({ message, level }),
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    editor: async () => undefined,
    custom: async () => undefined,
    getEditorText: () => "",
    getToolsExpanded: () => false,
    getAllThemes: () => [],
  };
  return new Proxy(target, {
    get: (t, key) => (key in t ? t[key] : typeof key === "string" ? () => undefined : undefined),
  });
}

/** A model step that calls one tool. */
export function call(name, args, id) {
  return fauxAssistantMessage([fauxToolCall(name, args, id ? { id } : undefined)], { stopReason: "toolUse" });
}

/** A model step that ends the turn with text. */
export function say(text) {
  return fauxAssistantMessage(text);
}

/** The text of a message whose content is a string or text blocks. */
export function messageText(message) {
  const c = message.content;
  return typeof c === "string" ? c : c.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

/** The tool results in the transcript the model received, newest last. */
export function toolResults(context) {
  return context.messages.filter((m) => m.role === "toolResult");
}

/** The text of a tool result message. */
export function resultText(message) {
  return message.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");
}

/**
 * A model step that records the newest tool result it receives into `into` (pushes
 * `{toolName, isError, text, details}`), then continues with `next` (a message or a step fn).
 */
export function observe(into, next) {
  return (context, options, state, model) => {
    const last = toolResults(context).at(-1);
    into.push(
      last
        ? { toolName: last.toolName, isError: last.isError === true, text: resultText(last), details: last.details }
        : undefined,
    );
    return typeof next === "function" ? next(context, options, state, model) : next;
  };
}

/** The entries of a session JSONL file. */
export function readJsonl(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** What `pi-context tool --schemas` prints for the real binary: `{tools, facts}`. */
export async function schemas() {
  const { execFileSync } = await import("node:child_process");
  return JSON.parse(execFileSync(BIN, ["tool", "--schemas"], { encoding: "utf8" }));
}

/** The names of the tools `--schemas` offers to Pi's model (door "pi"); a tool without a door, like `sessions_hint`, the extension calls itself. */
export async function schemaNames() {
  return (await schemas()).tools.filter((t) => t.doors.includes("pi")).map((t) => t.name);
}
