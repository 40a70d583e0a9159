/**
 * The live session as the binary wants it (docs/protocol.md, "Request"): the `context` of every
 * tool request, and the session fields of a boot request.
 */

import { existsSync } from "node:fs";

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

/** The live session, as the binary wants it (docs/protocol.md, "Request"). */
export interface ToolCallContext {
  session_file: string | null;
  leaf_id: string;
  session_id: string | null;
  cwd: string;
  agent: string | null;
  model: string | null;
  notes_home: string | null;
  /**
   * Pi's `getSessionDir()`: recall searches it besides the default session dirs (docs/recall.md,
   * "Where sessions are").
   */
  session_dir: string | null;
  entries?: string[];
  /** What happened on the branch since the last checkpoint, for tools whose schema asks for it. */
  activity?: unknown;
}

export function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== "" ? value : null;
}

/** The serialized session for a session Pi keeps only in memory: header first, then every entry. */
function inMemoryEntries(ctx: ExtensionContext): string[] {
  const sm = ctx.sessionManager;
  const lines: string[] = [];
  const header = sm.getHeader();
  if (header) lines.push(JSON.stringify(header));
  for (const entry of sm.getEntries()) lines.push(JSON.stringify(entry));
  return lines;
}

/**
 * The live context sent with every call (docs/protocol.md, "Request"). Environment is read at
 * call time.
 */
export function callContext(ctx: ExtensionContext, env: NodeJS.ProcessEnv = process.env, withEntries = true): ToolCallContext {
  const sm = ctx.sessionManager;
  const file = sm.getSessionFile();
  // Pi writes the session file lazily; until it exists the binary reads the entries we send.
  const onDisk = typeof file === "string" && file !== "" && existsSync(file);
  const context: ToolCallContext = {
    session_file: onDisk ? file : null,
    leaf_id: sm.getLeafId() ?? "none",
    session_id: nonEmpty(sm.getSessionId()),
    cwd: ctx.cwd,
    agent: nonEmpty(env.PI_NOTES_AGENT),
    model: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : null,
    notes_home: nonEmpty(env.PI_NOTES_HOME),
    session_dir: nonEmpty(typeof sm.getSessionDir === "function" ? sm.getSessionDir() : undefined),
  };
  if (!onDisk && withEntries) context.entries = inMemoryEntries(ctx);
  return context;
}
