/**
 * Resets: what asks for one (the `wipe_memory` tool, `/wipe-memory`, the budget close-out, the
 * hard reserve, provider overflow), when it commits (`turn_end` or `agent_before_settle`, never on
 * abort or error), and the boundary drafts it proposes: a retain-none checkpoint, the marker, the
 * hidden boot and the hidden continuation.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { isContextOverflow, isRecoverableLength } from "@earendil-works/pi-ai";
import type {
  AgentBeforeSettleEvent,
  ExtensionContext,
  SessionBoundaryDraft,
  ToolExecutionEndEvent,
  TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";

import { NOTES_SAVE_TOOLS } from "../window.ts";
import { bootDetails, type BootRender, renderBoot, reportBoot } from "./boot.ts";
import { hardReserveDue, takeStaged } from "./budget.ts";
import { automaticResetAllowed } from "./guards.ts";
import { notify } from "./notify.ts";
import { policyOf } from "./policy.ts";
import { NO_PARAMETERS, textResult } from "./result.ts";
import { branchOf, clearTransient, type LifecycleState, type ResetReason, sessionIdOf, windowOf } from "./state.ts";
import { CONTINUATION, MANUAL_WIPE, NOTICES, REFUSALS } from "./texts.ts";

// -- building a reset ----------------------------------------------------------------------------

/**
 * The reset drafts for the current window, or undefined when the lifecycle moved on while the
 * boot was rendered (then only the incoming entries are kept and nothing continues).
 */
async function buildReset(s: LifecycleState, ctx: ExtensionContext, reason: ResetReason): Promise<SessionBoundaryDraft[] | undefined> {
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
  s.proposed.set(newWindow, { boot: boot.text, continuation: CONTINUATION });
  return [
    { type: "compaction", summary: "", firstKeptEntryId: null },
    { type: "custom", customType: s.facts.marker_type, data: { windowId: newWindow } },
    { type: "custom_message", customType: s.facts.boot_type, content: boot.text, display: false, details: bootDetails(newWindow, reason, oldWindow) },
    { type: "custom_message", customType: s.facts.continuation_type, content: CONTINUATION, display: false },
  ];
}

/** The hook result that commits a reset after `entries`, or keeps only `entries` when it cannot. */
async function commit(s: LifecycleState, ctx: ExtensionContext, entries: SessionBoundaryDraft[], reason: ResetReason) {
  const reset = await buildReset(s, ctx, reason);
  if (!reset) return { entries };
  s.request = undefined;
  s.overflow = s.overflow === "pending" || s.overflow === "pending-spent" ? "spent" : s.overflow;
  return { entries: [...entries, ...reset], continue: true };
}

// -- when a reset commits ------------------------------------------------------------------------

const isAborted = (outcome: string, message: AgentMessage | undefined, ctx: ExtensionContext) =>
  outcome === "aborted" || (message as { stopReason?: string } | undefined)?.stopReason === "aborted" || ctx.signal?.aborted === true;

const isOverflowLike = (message: AgentMessage, ctx: ExtensionContext): boolean => {
  if ((message as { role: string }).role !== "assistant") return false;
  const m = message as Parameters<typeof isContextOverflow>[0];
  return isContextOverflow(m, ctx.model?.contextWindow) || (ctx.model !== undefined && isRecoverableLength(m, ctx.model.maxTokens));
};

/**
 * `turn_end`: persists the staged budget messages, commits a requested wipe or the hard reserve
 * after a successful turn, and starts an overflow chain after an overflow-like response.
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
  if (isOverflowLike(event.message, ctx)) {
    const spent = s.overflow === "spent" || s.overflow === "pending-spent";
    const p = policyOf(s, ctx);
    const pending = s.enabled && p.automatic && !queued;
    s.overflow = pending ? (spent ? "pending-spent" : "pending") : spent ? "spent" : "idle";
    if (s.request?.kind !== "manual") s.request = undefined;
    return result();
  }
  if (failed || !s.enabled) {
    s.request = undefined;
    if (!s.enabled) s.overflow = "idle";
    return result();
  }
  s.overflow = "idle";
  const r = s.request && s.request.windowId === windowId ? s.request : undefined;
  if (s.request && s.request.windowId !== windowId) s.request = undefined;
  if (r && (r.kind === "tool" || r.kind === "manual")) {
    return commit(s, ctx, entries, r.kind === "tool" ? "wipe_memory" : "manual");
  }
  const p = policyOf(s, ctx);
  if (hardReserveDue(s, ctx, p) && automaticResetAllowed(s, ctx, p)) return commit(s, ctx, entries, "hard_reserve");
  return result();
}

/**
 * `agent_before_settle`: the overflow reset (once per failure chain), a wipe requested after the
 * run's last turn, and the budget close-out at a successful normal stop.
 */
export async function onAgentBeforeSettle(s: LifecycleState, event: AgentBeforeSettleEvent, ctx: ExtensionContext) {
  if (!s.active) return undefined;
  if (event.outcome === "aborted" || ctx.signal?.aborted === true) {
    clearTransient(s);
    return undefined;
  }
  const windowId = windowOf(s, ctx);
  const queued = event.context.pendingMessages.length > 0 || ctx.hasPendingMessages();
  if (s.overflow === "pending" || s.overflow === "pending-spent") {
    if (queued) return undefined;
    const spent = s.overflow === "pending-spent";
    s.overflow = "spent";
    const p = policyOf(s, ctx);
    if (spent || !s.enabled || !p.automatic || !automaticResetAllowed(s, ctx, p)) return undefined;
    return commit(s, ctx, event.entries, "overflow");
  }
  const r = s.request && s.request.windowId === windowId ? s.request : undefined;
  if (event.outcome === "error" || !s.enabled || !r) {
    s.request = undefined;
    return undefined;
  }
  if (queued) return undefined;
  // A wipe requested after the run's last turn ended (a /wipe-memory that arrived late) still
  // commits, before the run settles.
  if (r.kind === "manual" || r.kind === "tool") return commit(s, ctx, event.entries, r.kind === "tool" ? "wipe_memory" : "manual");
  const p = policyOf(s, ctx);
  if (!p.automatic || !automaticResetAllowed(s, ctx, p)) {
    s.request = undefined;
    return undefined;
  }
  return commit(s, ctx, event.entries, "budget");
}

// -- asking for a reset --------------------------------------------------------------------------

export function registerWipeMemory(s: LifecycleState): void {
  s.pi.registerTool({
    name: "wipe_memory",
    label: "Wipe memory",
    description:
      "End this context window and start a fresh one after the current tool batch. Everything in your context is then gone; your notes and the whole session history stay (history_* and notes_* tools). Save your state to notes first. No parameters. Refused once when your last notes save in this window failed or when the window has no conversation yet.",
    promptSnippet: "End this context window and start a fresh one after the current tool batch (save your notes first).",
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
  s.request = { kind: "tool", windowId };
  return textResult(
    { status: "scheduled", window_id: windowId, message: "This window is wiped after the current tool batch; a fresh window follows." },
    false,
    true,
  );
}

/** `tool_execution_end`: remembers the last notes save per window (a failed one makes wipe_memory refuse once). */
export function trackNotesSave(s: LifecycleState, event: ToolExecutionEndEvent, ctx: ExtensionContext): void {
  if (!NOTES_SAVE_TOOLS.has(event.toolName)) return;
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
