/**
 * Checkpoint freshness (docs/lifecycle.md, "Checkpoints"): whether the branch's checkpoint is
 * dirty, and where that surfaces, each at most once per episode (from the checkpoint the branch
 * has, or its start, to the next one): the budget reminder or warning asks for one, `wipe_memory`
 * refuses once, `/checkpoint` asks when the person wants one, and `/pi-context` shows the state.
 *
 * The state is read from the branch every time (checkpoint.ts), so it survives a reload and
 * follows `/tree`; only which nudges were given lives here (in memory, like the other refusals).
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

import { type Freshness, freshnessOf, lastCheckpointIndex } from "../checkpoint.ts";
import { notify } from "./notify.ts";
import { branchOf, type LifecycleState, sessionIdOf } from "./state.ts";
import { CHECKPOINT_REQUEST, checkpointAsk, relativeAge } from "./texts.ts";

export function freshness(s: LifecycleState, ctx: ExtensionContext): Freshness {
  return freshnessOf(branchOf(ctx), s.facts);
}

/** The episode as a key: the session and the checkpoint it started from. */
export function episodeKey(ctx: ExtensionContext, f: Freshness): string {
  return `${sessionIdOf(ctx)}:${f.episode}`;
}

/**
 * Whether the model can write a checkpoint now: the binary's `checkpoint` tool is active. When
 * it is not (no binary, or another mode hid it), nothing asks for one or refuses without one.
 */
export function checkpointAvailable(s: LifecycleState): boolean {
  try {
    return s.pi.getActiveTools().includes(s.facts.checkpoint_tool);
  } catch {
    return s.binaryTools;
  }
}

/**
 * What the budget reminder or warning adds: a request for a checkpoint, when it is dirty and no
 * budget message of this episode asked yet (persisted on the branch, or staged now). Returns the
 * sentence, or undefined.
 */
export function budgetAsk(s: LifecycleState, ctx: ExtensionContext): string | undefined {
  if (!checkpointAvailable(s)) return undefined;
  const branch = branchOf(ctx);
  const f = freshnessOf(branch, s.facts);
  if (!f.dirty) return undefined;
  const types = new Set([s.facts.guidance_type, s.facts.warning_type]);
  const asked = (details: unknown) => (details as { checkpointAsked?: unknown } | undefined)?.checkpointAsked === true;
  const persisted = branch
    .slice(lastCheckpointIndex(branch, s.facts) + 1)
    .some((e) => e.type === "custom_message" && types.has(e.customType) && asked(e.details));
  const staged = [s.stagedReminder, s.stagedWarning].some((m) => m !== undefined && asked(m.details));
  return persisted || staged ? undefined : checkpointAsk(f);
}

/** Whether `wipe_memory` refuses now because the checkpoint is stale: once per episode. */
export function staleCheckpointRefusal(s: LifecycleState, ctx: ExtensionContext): Freshness | undefined {
  if (!checkpointAvailable(s)) return undefined;
  const f = freshness(s, ctx);
  if (!f.dirty) return undefined;
  const key = episodeKey(ctx, f);
  if (s.checkpointRefusals.has(key)) return undefined;
  s.checkpointRefusals.add(key);
  return f;
}

/**
 * `/checkpoint`: asks the agent for a checkpoint with one hidden message; when idle it starts a
 * turn at once, else it is delivered when the current run is done.
 */
export function requestCheckpoint(s: LifecycleState, ctx: ExtensionContext): void {
  if (!checkpointAvailable(s)) {
    notify(ctx, `pi-context: the ${s.facts.checkpoint_tool} tool is not available in this session, so no checkpoint can be written.`, "error");
    return;
  }
  const message = { customType: s.facts.checkpoint_request_type, content: CHECKPOINT_REQUEST, display: false };
  if (ctx.isIdle()) {
    notify(ctx, "pi-context: checkpoint requested; the agent writes it now.", "info");
    s.pi.sendMessage(message, { triggerTurn: true });
  } else {
    notify(ctx, "pi-context: checkpoint requested; the agent writes it when its current run is done.", "info");
    s.pi.sendMessage(message, { deliverAs: "followUp" });
  }
}

/** The checkpoint part of `/pi-context`'s status line. */
export function checkpointStatus(s: LifecycleState, ctx: ExtensionContext, now = Date.now()): string {
  const f = freshness(s, ctx);
  const state = f.dirty ? `dirty (${f.why}${f.latest ? "" : " so far"})` : "clean";
  if (!f.latest) return f.dirty ? `no checkpoint yet, ${state}` : "no checkpoint yet";
  const saved = Date.parse(f.latest.savedAt);
  const age = Number.isNaN(saved) ? "saved at an unknown time" : `saved ${relativeAge(now - saved)}`;
  return `checkpoint generation ${f.latest.generation}, ${age}, ${state}`;
}
