/**
 * Checkpoints on a session branch, as the extension sees them: pure functions over Pi's entries
 * (no hooks, no I/O), like window.ts.
 *
 * A checkpoint is a `custom` entry of the checkpoint type (a fact) that the binary built and the
 * extension appended. Its fields, bounds and format are the binary's; the extension reads only
 * its `generation`. What the extension owns is what happened on the branch since the latest
 * checkpoint, which only Pi's entries show:
 *
 * - the activity the `checkpoint` tool's request carries (files written or edited; test, build
 *   and failing commands with their exit status), which the binary bounds and stores;
 * - whether the checkpoint is dirty (stale): high-signal activity at once, sustained read-only
 *   investigation after a threshold (docs/lifecycle.md, "Checkpoints").
 *
 * Everything is derived from the branch, so it survives a reload and follows `/tree`.
 */

import type { SessionEntry } from "@earendil-works/pi-coding-agent";

import type { Facts } from "./facts.ts";

/** Pi's tools that write files; their `path` argument names the file. */
export const FILE_TOOLS: ReadonlySet<string> = new Set(["edit", "write"]);
/** Pi's shell tool; its `command` argument is the command. */
export const SHELL_TOOL = "bash";
/** Tools that hand work to a subagent (pi-subagents and Pi's example extension call it this). */
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(["subagent"]);
/** The lifecycle's own tools: never activity. */
export const LIFECYCLE_TOOLS: ReadonlySet<string> = new Set(["wipe_memory", "get_context_remaining"]);
/** A command that tests, builds or checks: a word of the command line. */
export const VERIFICATION_COMMAND =
  /(?<![\w.-])(test|tests|build|check|lint|clippy|tsc|typecheck|pytest|jest|vitest|mocha|rspec|make|ninja|gradle|gradlew|mvn|bazel|ctest|tox|nox|nextest)(?![\w.-])/i;

/** Successful read-only tool results since the checkpoint that make it dirty… */
export const READ_RESULTS_DIRTY = 16;
/** …and model turns with tool calls since the checkpoint that do. */
export const READ_TURNS_DIRTY = 10;

export interface Activity {
  /** In the order they happened, repeats included (the binary folds them). */
  files: { path: string; tool: string }[];
  /** Test, build and failing commands; `exit_code` null when the command did not finish. */
  commands: { command: string; exit_code: number | null }[];
}

/** The branch's latest checkpoint and what happened since. */
export interface Freshness {
  /** The latest checkpoint entry; undefined when the branch has none. */
  latest?: { entryId: string; generation: number; savedAt: string };
  activity: Activity;
  counts: { files: number; failed: number; verification: number; subagents: number; reads: number; turns: number };
  dirty: boolean;
  /** What made it dirty, for the model and the person: `2 file writes or edits, 1 failing command` (empty when clean). */
  why: string;
  /**
   * The episode the branch is in: it ends with the next checkpoint. Each kind of nudge is given
   * at most once per episode.
   */
  episode: string;
}

type Entry = SessionEntry;
type Block = { type: string; id?: string; name?: string; arguments?: unknown };

/** The checkpoint entries' generation, when the entry is one (a positive integer). */
function generationOf(entry: Entry, facts: Facts): number | undefined {
  if (entry.type !== "custom" || entry.customType !== facts.checkpoint_type) return undefined;
  const g = (entry.data as { generation?: unknown } | undefined)?.generation;
  return typeof g === "number" && Number.isSafeInteger(g) && g > 0 ? g : undefined;
}

/** Index of the latest checkpoint entry on the branch, or -1. */
export function lastCheckpointIndex(branch: readonly Entry[], facts: Facts): number {
  for (let i = branch.length - 1; i >= 0; i--) if (generationOf(branch[i]!, facts) !== undefined) return i;
  return -1;
}

const stringArg = (args: unknown, ...keys: string[]): string | undefined => {
  for (const key of keys) {
    const v = (args as Record<string, unknown> | undefined)?.[key];
    if (typeof v === "string" && v.trim() !== "") return v;
  }
  return undefined;
};

/** The exit status in a failed shell result's text (`Command exited with code N`), else null. */
export function exitCodeOf(text: string): number | null {
  const m = /Command exited with code (-?\d+)\s*$/.exec(text);
  return m ? Number(m[1]) : null;
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => ((b as { type?: string }).type === "text" ? String((b as { text?: unknown }).text ?? "") : "")).join("");
}

/** The latest checkpoint of the branch and what happened after it. */
export function freshnessOf(branch: readonly Entry[], facts: Facts): Freshness {
  const at = lastCheckpointIndex(branch, facts);
  const checkpoint = at >= 0 ? branch[at]! : undefined;
  const activity: Activity = { files: [], commands: [] };
  const counts = { files: 0, failed: 0, verification: 0, subagents: 0, reads: 0, turns: 0 };
  const calls = new Map<string, Block>();
  const ignored = new Set([facts.checkpoint_tool, ...LIFECYCLE_TOOLS, ...facts.notes_save_tools]);
  const command = (text: string, exitCode: number | null, failed: boolean) => {
    const verification = VERIFICATION_COMMAND.test(text);
    if (!verification && !failed) return false;
    activity.commands.push({ command: text, exit_code: exitCode });
    if (failed) counts.failed++;
    else counts.verification++;
    return true;
  };
  for (const entry of branch.slice(at + 1)) {
    if (entry.type !== "message") continue;
    const m = entry.message as unknown as Record<string, unknown>;
    if (m.role === "assistant" && Array.isArray(m.content)) {
      const blocks = (m.content as Block[]).filter((b) => b?.type === "toolCall");
      for (const b of blocks) if (typeof b.id === "string") calls.set(b.id, b);
      if (blocks.some((b) => !ignored.has(String(b.name)))) counts.turns++;
    } else if (m.role === "toolResult") {
      const name = String(m.toolName ?? "");
      const failed = m.isError === true;
      const args = calls.get(String(m.toolCallId))?.arguments;
      if (ignored.has(name)) continue;
      if (FILE_TOOLS.has(name)) {
        const path = stringArg(args, "path", "file_path");
        if (!failed && path) {
          activity.files.push({ path, tool: name });
          counts.files++;
        }
      } else if (name === SHELL_TOOL) {
        const text = stringArg(args, "command") ?? "";
        if (!command(text, failed ? exitCodeOf(resultText(m.content)) : 0, failed) && !failed) counts.reads++;
      } else if (SUBAGENT_TOOLS.has(name)) {
        if (!failed) counts.subagents++;
      } else if (!failed) {
        counts.reads++;
      }
    } else if (m.role === "bashExecution") {
      const exitCode = typeof m.exitCode === "number" ? m.exitCode : null;
      command(String(m.command ?? ""), exitCode, exitCode !== 0);
    }
  }
  const reasons: string[] = [];
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  if (counts.files > 0) reasons.push(`${n(counts.files, "file write or edit", "file writes or edits")}`);
  if (counts.failed > 0) reasons.push(n(counts.failed, "failing command", "failing commands"));
  if (counts.verification > 0) reasons.push(n(counts.verification, "test or build run", "test or build runs"));
  if (counts.subagents > 0) reasons.push(n(counts.subagents, "subagent handoff", "subagent handoffs"));
  const highSignal = reasons.length > 0;
  if (!highSignal && counts.reads >= READ_RESULTS_DIRTY) reasons.push(`${counts.reads} read-only tool results`);
  if (!highSignal && counts.turns >= READ_TURNS_DIRTY) reasons.push(`${counts.turns} turns of investigation`);
  const dirty = reasons.length > 0;
  return {
    ...(checkpoint
      ? { latest: { entryId: checkpoint.id, generation: generationOf(checkpoint, facts)!, savedAt: checkpoint.timestamp } }
      : {}),
    activity,
    counts,
    dirty,
    why: reasons.join(", "),
    episode: checkpoint ? checkpoint.id : "start",
  };
}
