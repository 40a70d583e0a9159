/**
 * pi-context: the Pi extension.
 *
 * Two halves: the binary's tools, registered in Pi, and the context-window lifecycle, which only
 * Pi's hooks can drive (not a thin shell: docs/architecture.md). At load it asks the binary for
 * its tools and the facts it shares with the extension (`pi-context tool --schemas`) and
 * registers each tool with Pi exactly as described there (name, label, description, JSON Schema parameters, execution
 * mode); it keeps no list of tools of its own. Every call spawns
 * `pi-context tool <name>`, writes `{"params", "context"}` to its stdin and turns the
 * `{"text", "details", "is_error"}` it prints into Pi's tool result. A tool may ask for the
 * activity seen on the branch since the last checkpoint (checkpoint.ts) and have the extension
 * append the entry it built (`append_entry`): only Pi's hooks write to a session. The protocol
 * is documented in the repository's docs/protocol.md.
 *
 * It also owns the context-window lifecycle (lifecycle/): the `wipe_memory` and
 * `get_context_remaining` tools, the boot block at every window head, the budget close-out,
 * checkpoint freshness, and the `/wipe-memory`, `/checkpoint` and `/pi-context` commands
 * (docs/lifecycle.md).
 *
 * Environment:
 *   PI_CONTEXT_BIN   the binary to run (default: this platform's package's, else `pi-context` on
 *                    PATH; locate.mjs), refused unless its version is this package's
 *   PI_NOTES_HOME    notes home, passed to the binary as context.notes_home
 *   PI_NOTES_AGENT   agent name, passed to the binary as context.agent
 */

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";

import { binaryPath, clip, failure, INSTALL_HINT, locateBinary, run, versionRefusal } from "./binary.ts";
import { freshnessOf } from "./checkpoint.ts";
import { callContext } from "./context.ts";
import { FALLBACK_FACTS, type Facts, readFacts } from "./facts.ts";
import { registerLifecycle } from "./lifecycle/index.ts";

export { binaryPath, INSTALL_HINT, locateBinary, VERSION } from "./binary.ts";
export { callContext, type ToolCallContext } from "./context.ts";

/**
 * The one tool registered in place of the binary's when it cannot describe them at load: it
 * says why and how to install the binary.
 */
export const UNAVAILABLE_TOOL = "pi_context_unavailable";

const SCHEMAS_TIMEOUT_MS = 15_000;

/** The binary's tool the extension calls on each prompt (lifecycle/hint.ts), offered to no model. */
const HINT_TOOL = "sessions_hint";

/** One entry of `pi-context tool --schemas`. */
export interface ToolSchema {
  name: string;
  label?: string;
  description: string;
  parameters: Record<string, unknown>;
  execution_mode?: string;
  /** The tool's requests carry `context.activity` (what happened since the last checkpoint). */
  activity?: boolean;
  /** Where the tool is offered to a model ("pi", "mcp"); absent from older binaries: every tool is Pi's. */
  doors?: string[];
}

/** What `pi-context tool <name>` prints. */
interface ToolResponse {
  text: string;
  details?: unknown;
  is_error?: boolean;
  /** A custom entry to append to the session when the call succeeded. */
  append_entry?: { custom_type?: unknown; data?: unknown };
}

/** How one call is made beyond its parameters. */
export interface CallOptions {
  bin?: string;
  /** Added to the request's `context` (the activity a tool asks for). */
  context?: Record<string, unknown>;
  /**
   * Appends a custom entry to the live session (`pi.appendEntry`): what the binary asks for with
   * `append_entry` in a successful result. Without it, such a request is ignored.
   */
  append?: (customType: string, data: unknown) => void;
}

/**
 * Outcome of asking the binary for its tools and facts. `factsWarning` says which facts fell back
 * to the extension's own values.
 */
export type SchemaLoad = { ok: true; tools: ToolSchema[]; facts: Facts; factsWarning?: string } | { ok: false; reason: string };

/** Runs `<bin> tool --schemas` and checks the answer's shape and version (`label` names the binary). */
export async function loadSchemas(bin: string = binaryPath(), label: string = bin): Promise<SchemaLoad> {
  const result = await run(bin, ["tool", "--schemas"], "", undefined, SCHEMAS_TIMEOUT_MS);
  const failed = failure(bin, `\`${bin} tool --schemas\``, result);
  if (failed) return { ok: false, reason: failed };
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.stdout);
  } catch {
    return { ok: false, reason: `\`${bin} tool --schemas\` did not print JSON: ${clip(result.stdout, 300)}` };
  }
  const refused = versionRefusal(label, (parsed as { version?: unknown })?.version);
  if (refused) return { ok: false, reason: refused };
  const tools = (parsed as { tools?: unknown })?.tools;
  if (!Array.isArray(tools)) return { ok: false, reason: `\`${bin} tool --schemas\` printed no "tools" array.` };
  const valid = tools.filter(
    (t): t is ToolSchema =>
      typeof t?.name === "string" &&
      t.name !== "" &&
      typeof t.description === "string" &&
      typeof t.parameters === "object" &&
      t.parameters !== null,
  );
  const { facts, warning } = readFacts((parsed as { facts?: unknown }).facts);
  return { ok: true, tools: valid, facts, ...(warning ? { factsWarning: warning } : {}) };
}

type TextResult = {
  content: { type: "text"; text: string }[];
  details: unknown;
  isError?: boolean;
};

function errorResult(text: string, details: Record<string, unknown>): TextResult {
  return { content: [{ type: "text", text }], details, isError: true };
}

/** Answers one tool call by running `<bin> tool <name>`. */
export async function callTool(
  name: string,
  params: unknown,
  ctx: ExtensionContext,
  signal?: AbortSignal,
  options: CallOptions = {},
): Promise<TextResult> {
  const bin = options.bin ?? binaryPath();
  const request = JSON.stringify({ params: params ?? {}, context: { ...callContext(ctx), ...options.context } });
  const result = await run(bin, ["tool", name], request, signal);
  const failed = failure(bin, `\`pi-context tool ${name}\``, result);
  if (failed) {
    return errorResult(failed, {
      error: "binary_failed",
      exit_code: result.code,
      ...(result.signal ? { signal: result.signal } : {}),
    });
  }
  let response: ToolResponse;
  try {
    response = JSON.parse(result.stdout) as ToolResponse;
    if (typeof response?.text !== "string") throw new Error("no text field");
  } catch {
    const stderr = clip(result.stderr);
    return errorResult(
      `\`pi-context tool ${name}\` printed an answer that is not a tool result: ${clip(result.stdout, 300)}` +
        (stderr ? `\nstderr:\n${stderr}` : ""),
      { error: "bad_response" },
    );
  }
  const isError = response.is_error === true;
  if (!isError && response.append_entry !== undefined && options.append) {
    const stored = appendEntry(name, response.append_entry, options.append);
    if (stored) return stored;
  }
  return {
    content: [{ type: "text", text: response.text }],
    details: response.details ?? {},
    isError,
  };
}

/**
 * Appends the entry a successful result asks for, before the result reaches Pi (so it sits on
 * the branch right after the call's assistant message). Returns an error result instead of the
 * binary's when the entry cannot be appended: the model must not believe it was stored.
 */
function appendEntry(name: string, entry: ToolResponse["append_entry"], append: NonNullable<CallOptions["append"]>): TextResult | undefined {
  const customType = entry?.custom_type;
  if (typeof customType !== "string" || customType === "") {
    return errorResult(`\`pi-context tool ${name}\` asked to append an entry without a custom type; nothing was stored.`, {
      error: "bad_response",
    });
  }
  try {
    append(customType, entry?.data);
    return undefined;
  } catch (e) {
    return errorResult(`The result of ${name} could not be stored in the session, so nothing was saved: ${String(e)}`, {
      error: "append_failed",
    });
  }
}

/** A one-line summary for the system prompt's tool list: the description's first sentence. */
function snippet(description: string): string {
  const first = description.split(/(?<=[.!?])\s/)[0] ?? description;
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

/** Whether Pi's model is offered the tool; the others (like `sessions_hint`) the extension calls itself. */
export function offeredToPi(tool: ToolSchema): boolean {
  return !Array.isArray(tool.doors) || tool.doors.includes("pi");
}

function register(pi: ExtensionAPI, tool: ToolSchema, facts: Facts): void {
  const mode = tool.execution_mode === "sequential" || tool.execution_mode === "parallel" ? tool.execution_mode : undefined;
  pi.registerTool({
    name: tool.name,
    label: tool.label || tool.name,
    description: tool.description,
    promptSnippet: snippet(tool.description),
    // The binary's JSON Schema, unchanged: Pi validates arguments as plain JSON Schema.
    parameters: tool.parameters as unknown as TSchema,
    ...(mode ? { executionMode: mode } : {}),
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const context = tool.activity === true ? { activity: freshnessOf(ctx.sessionManager.getBranch(), facts).activity } : undefined;
      return callTool(tool.name, params, ctx, signal, {
        ...(context ? { context } : {}),
        append: (customType, data) => pi.appendEntry(customType, data),
      });
    },
  });
}

/**
 * Without the binary's schemas no binary tool can be registered (the extension keeps no list of
 * them). One tool takes their place so the model learns why its memory tools are missing and can
 * tell the person how to install the binary; tools register at load, so pi must restart after.
 */
function registerUnavailable(pi: ExtensionAPI, reason: string): void {
  const text = `The pi-context binary could not be loaded, so the history and notes tools are missing from this session. ${reason}` +
    (reason.includes(INSTALL_HINT) || reason.endsWith("restart pi.") ? "" : `\n${INSTALL_HINT}`);
  pi.registerTool({
    name: UNAVAILABLE_TOOL,
    label: "pi-context unavailable",
    description:
      "The pi-context binary could not be loaded when this session started, so the history_* and notes_* tools are missing. Call this (no parameters) to learn why and how to install it, then tell the person.",
    promptSnippet: "Why the pi-context history and notes tools are missing, and how to install the binary.",
    parameters: { type: "object", properties: {}, additionalProperties: false } as unknown as TSchema,
    async execute() {
      return errorResult(text, { error: "binary_unavailable" });
    },
  });
}

export default async function piContext(pi: ExtensionAPI): Promise<void> {
  const found = locateBinary();
  const bin = "path" in found ? found.path : "pi-context";
  const loaded: SchemaLoad = "path" in found ? await loadSchemas(bin, found.label) : { ok: false, reason: `${found.missing} Then restart pi.` };
  // The lifecycle needs the facts, not the tools: wipe_memory, get_context_remaining and the
  // commands work (and the boot falls back to a minimal one) even when the binary is missing.
  const facts = loaded.ok ? loaded.facts : { ...FALLBACK_FACTS };
  const hints = loaded.ok && loaded.tools.some((t) => t.name === HINT_TOOL);
  const binary = "path" in found ? `${found.label}${loaded.ok ? "" : ", not used (see the warning)"}` : "none found";
  registerLifecycle(pi, { bin, facts, binaryTools: loaded.ok, hints, binary });
  const warning = loaded.ok
    ? loaded.factsWarning
    : `pi-context: the history and notes tools are unavailable in this session. ${loaded.reason}`;
  if (loaded.ok) {
    for (const tool of loaded.tools) if (offeredToPi(tool)) register(pi, tool, facts);
  } else {
    registerUnavailable(pi, loaded.reason);
  }
  if (warning) {
    pi.on("session_start", (_event, ctx) => {
      if (ctx.hasUI) ctx.ui.notify(warning, "warning");
    });
  }
}
