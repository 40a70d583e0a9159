/**
 * Resets: what asks for one (the `wipe_memory` tool, `/wipe-memory`, the budget close-out, the
 * hard reserve, provider overflow), when it commits (`turn_end` or `agent_before_settle`, never on
 * abort, nor on an error other than an overflow), and the boundary drafts it proposes: a
 * retain-none checkpoint, the marker, the hidden boot and the hidden continuation.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type {
  AgentBeforeSettleEvent,
  ExtensionContext,
  SessionBoundaryDraft,
  ToolExecutionEndEvent,
  TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";

import { bootDetails, type BootRender, renderBoot, reportBoot } from "./boot.ts";
import { hardReserveDue, takeStaged } from "./budget.ts";
import { automaticResetAllowed } from "./guards.ts";
import { notify } from "./notify.ts";
import { staleCheckpointRefusal } from "./freshness.ts";
import { isOverflowLike, retryContinuation, startRetry } from "./overflow.ts";
import { policyOf } from "./policy.ts";
import { NO_PARAMETERS, textResult } from "./result.ts";
import { branchOf, clearTransient, type LifecycleState, type Request, type ResetReason, sessionIdOf, windowOf } from "./state.ts";
import { clearedNotice, CONTINUATION, MANUAL_WIPE, NOTICES, REFUSALS } from "./texts.ts";

// -- building a reset ----------------------------------------------------------------------------

/** What a reset opens: the drafts of its boundary and the id of its window. */
interface Reset {
  drafts: SessionBoundaryDraft[];
  windowId: string;
}

/**
 * The reset drafts for the current window, or undefined when the lifecycle moved on while the
 * boot was rendered (then only the incoming entries are kept and nothing continues). `retry` is
 * the continuation of a window that retries an overflowing request (overflow.ts).
 */
async function buildReset(s: LifecycleState, ctx: ExtensionContext, reason: ResetReason, retry?: string): Promise<Reset | undefined> {
  const continuation = retry ?? CONTINUATION;
  const gen = s.generation;
  const sessionId = sessionIdOf(ctx);
  const branch = branchOf(ctx);
  const oldWindow = s.win.currentWindowId(branch, sessionId);
  const newWindow = s.win.mintWindowId(sessionId, branch, s.random);
  const isCurrent = () =>
    s.active && gen === s.generation && s.enabled && ctx.signal?.aborted !== true && sessionIdOf(ctx) === sessionId && windowOf(s, ctx) === oldWindow;
  let boot: BootRender;
  try {
    boot = await renderBoot(s, ctx, { current: newWindow, previous: oldWindow }, reason, ctx.signal);
  } catch (e) {
    if (isCurrent()) notify(ctx, `pi-context: could not build reset (${String(e)}).`, "warning");
    return undefined;
  }
  if (!isCurrent()) return undefined;
  reportBoot(s, ctx, boot);
  s.proposed.set(newWindow, { boot: boot.text, continuation, notice: clearedNotice(newWindow, retry !== undefined) });
  return {
    windowId: newWindow,
    drafts: [
      { type: "compaction", summary: "", firstKeptEntryId: null },
      { type: "custom", customType: s.facts.marker_type, data: { windowId: newWindow } },
      { type: "custom_message", customType: s.facts.boot_type, content: boot.text, display: false, details: bootDetails(newWindow, reason, oldWindow) },
      { type: "custom_message", customType: s.facts.continuation_type, content: continuation, display: false },
    ],
  };
}

/**
 * The hook result that commits a reset after `entries`, or keeps only `entries` when it cannot;
 * with the window it opened.
 */
async function commit(s: LifecycleState, ctx: ExtensionContext, entries: SessionBoundaryDraft[], reason: ResetReason, retry?: string) {
  const reset = await buildReset(s, ctx, reason, retry);
  if (!reset) return { result: { entries }, windowId: undefined };
  s.request = undefined;
  return { result: { entries: [...entries, ...reset.drafts], continue: true }, windowId: reset.windowId };
}

// -- when a reset commits ------------------------------------------------------------------------

const isAborted = (outcome: string, message: AgentMessage | undefined, ctx: ExtensionContext) =>
  outcome === "aborted" || (message as { stopReason?: string } | undefined)?.stopReason === "aborted" || ctx.signal?.aborted === true;

const reasonOf = (r: Request): ResetReason => (r.kind === "tool" ? "wipe_memory" : r.kind === "manual" ? "manual" : "budget");

/**
 * `turn_end`: persists the staged budget messages, commits a requested wipe or the hard reserve
 * after a successful turn, and resets after an overflow-like response (overflow.ts).
 */
export async function onTurnEnd(s: LifecycleState, event: TurnEndEvent, ctx: ExtensionContext) {
  if (!s.active) return undefined;
  const windowId = windowOf(s, ctx);
  const aborted = isAborted(event.outcome, event.message, ctx);
  const failed = event.outcome === "error";
  const staged = takeStaged(s, windowId);
  const entries = s.enabled && !aborted && !failed ? [...event.entries, ...staged] : event.entries;
  const result = () => (entries !== event.entries ? { entries } : undefined);
  if (aborted) {
    clearTransient(s);
    return undefined;
  }
  const queued = event.context.pendingMessages.length > 0 || ctx.hasPendingMessages();
  if (isOverflowLike(event.message, ctx)) return (await resetAfterOverflow(s, event, ctx, entries, queued)) ?? result();
  if (failed || !s.enabled) {
    s.request = undefined;
    return result();
  }
  const r = s.request && s.request.windowId === windowId ? s.request : undefined;
  if (s.request && s.request.windowId !== windowId) s.request = undefined;
  if (r && (r.kind === "tool" || r.kind === "manual")) return (await commit(s, ctx, entries, reasonOf(r))).result;
  const p = policyOf(s, ctx);
  if (hardReserveDue(s, ctx, p) && automaticResetAllowed(s, ctx, p)) return (await commit(s, ctx, entries, "hard_reserve")).result;
  return result();
}

/**
 * After an overflow-like response, nothing queued: the reset that retries the turn. Automatic
 * (reason `overflow`) when automatic compaction is on and loop safety allows it; a wipe already
 * asked for in this window (`/wipe-memory` while streaming) commits here too, as itself. After a
 * failed request Pi ends the run, so the retry is left to `agent_before_settle`.
 */
async function resetAfterOverflow(s: LifecycleState, event: TurnEndEvent, ctx: ExtensionContext, entries: SessionBoundaryDraft[], queued: boolean) {
  const windowId = windowOf(s, ctx);
  const explicit = s.request?.windowId === windowId && s.request.kind !== "closeout" ? s.request : undefined;
  if (!explicit) s.request = undefined;
  if (!s.enabled || queued) return undefined;
  const p = policyOf(s, ctx);
  if (!explicit && !(p.automatic && automaticResetAllowed(s, ctx, p))) return undefined;
  const { result, windowId: opened } = await commit(s, ctx, entries, explicit ? reasonOf(explicit) : "overflow", retryContinuation(s, ctx));
  if (opened !== undefined && event.outcome === "error") s.retry = opened;
  return result;
}

/**
 * `agent_before_settle`: the retry after an overflow reset, a wipe requested after the run's last
 * turn, and the budget close-out at a successful normal stop.
 */
export async function onAgentBeforeSettle(s: LifecycleState, event: AgentBeforeSettleEvent, ctx: ExtensionContext) {
  if (!s.active) return undefined;
  if (event.outcome === "aborted" || ctx.signal?.aborted === true) {
    clearTransient(s);
    return undefined;
  }
  const windowId = windowOf(s, ctx);
  const queued = event.context.pendingMessages.length > 0 || ctx.hasPendingMessages();
  if (s.retry !== undefined) return startRetry(s, event, ctx, queued);
  const r = s.request && s.request.windowId === windowId ? s.request : undefined;
  if (event.outcome === "error" || !s.enabled || !r) {
    s.request = undefined;
    return undefined;
  }
  if (queued) return undefined;
  // A wipe requested after the run's last turn ended (a /wipe-memory that arrived late) still
  // commits, before the run settles.
  if (r.kind === "manual" || r.kind === "tool") return (await commit(s, ctx, event.entries, reasonOf(r))).result;
  const p = policyOf(s, ctx);
  if (!p.automatic || !automaticResetAllowed(s, ctx, p)) {
    s.request = undefined;
    return undefined;
  }
  return (await commit(s, ctx, event.entries, "budget")).result;
}

// -- asking for a reset --------------------------------------------------------------------------

export function registerWipeMemory(s: LifecycleState): void {
  s.pi.registerTool({
    name: "wipe_memory",
    label: "Wipe memory",
    description:
      "End this context window and start a fresh one after the current tool batch. Everything in your context is then gone; your notes and the whole session history stay (history_* and notes_* tools). Save your state first: the checkpoint tool for the task state, notes for durable knowledge. No parameters. Refused once when your last notes save in this window failed, when the window has no conversation yet, or while your checkpoint is out of date.",
    promptSnippet: "End this context window and start a fresh one after the current tool batch (checkpoint and save your notes first).",
    parameters: NO_PARAMETERS as unknown as TSchema,
    executionMode: "sequential",
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      return wipeMemory(s, ctx);
    },
  });
}

/** The `wipe_memory` tool: schedules a reset of this window, or refuses once (see docs/lifecycle.md). */
function wipeMemory(s: LifecycleState, ctx: ExtensionContext) {
  if (!s.enabled) return textResult({ error: NOTICES.offError }, true);
  const branch = branchOf(ctx);
  const windowId = s.win.currentWindowId(branch, sessionIdOf(ctx));
  if (s.request && s.request.windowId === windowId && s.request.kind !== "closeout") {
    return textResult({ status: "already_pending", window_id: windowId, message: "A reset of this window is already scheduled for the end of this turn." }, false, true);
  }
  const given = s.refusals.get(windowId) ?? new Set<string>();
  s.refusals.set(windowId, given);
  if (!s.win.windowHasConversation(branch) && !given.has("empty")) {
    given.add("empty");
    return textResult(
      {
        error: {
          code: "empty_window",
          message: REFUSALS.emptyWindow,
        },
      },
      true,
    );
  }
  const save = s.notesSaves.get(windowId) ?? s.win.lastNotesWrite(branch);
  if (save?.failed && !given.has(`notes:${save.id}`)) {
    given.add(`notes:${save.id}`);
    return textResult(
      {
        error: {
          code: "notes_save_failed",
          message: REFUSALS.notesSaveFailed,
        },
      },
      true,
    );
  }
  const stale = staleCheckpointRefusal(s, ctx);
  if (stale) {
    return textResult({ error: { code: "checkpoint_stale", message: REFUSALS.checkpointStale(stale) } }, true);
  }
  s.request = { kind: "tool", windowId };
  return textResult(
    { status: "scheduled", window_id: windowId, message: "This window is wiped after the current tool batch; a fresh window follows." },
    false,
    true,
  );
}

/** `tool_execution_end`: remembers the last notes save per window (a failed one makes wipe_memory refuse once). */
export function trackNotesSave(s: LifecycleState, event: ToolExecutionEndEvent, ctx: ExtensionContext): void {
  if (!s.facts.notes_save_tools.includes(event.toolName)) return;
  if (event.parentToolCallId) return;
  s.notesSaves.set(windowOf(s, ctx), { id: event.toolCallId, failed: event.isError === true });
}

/**
 * `/wipe-memory`: a fresh window after the next completed turn. When Pi is idle, one hidden
 * request starts that turn so the agent can save its notes first.
 */
export function requestManualWipe(s: LifecycleState, ctx: ExtensionContext): void {
  if (!s.enabled) {
    notify(ctx, NOTICES.wipeNeedsOn, "error");
    return;
  }
  const windowId = windowOf(s, ctx);
  if (s.request && s.request.windowId === windowId && s.request.kind === "manual") {
    notify(ctx, `pi-context: a fresh window is already requested for ${windowId}.`, "info");
    return;
  }
  s.request = { kind: "manual", windowId };
  if (ctx.isIdle()) {
    notify(ctx, `pi-context: wipe requested · ${windowId}; the agent saves its notes in one turn, then a fresh window starts.`, "info");
    s.pi.sendMessage({ customType: s.facts.manual_wipe_type, content: MANUAL_WIPE, display: false }, { triggerTurn: true });
  } else {
    notify(ctx, `pi-context: wipe requested · ${windowId}; the window resets when the current turn completes.`, "info");
  }
}
