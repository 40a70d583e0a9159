/**
 * The token budget of a window: how much is left, the early reminder and the final warning
 * (staged by the `context` hook, persisted at `turn_end`, at most one each per window; while the
 * checkpoint is dirty the first of them in an episode also asks for one), the hard reserve, and
 * the `get_context_remaining` tool.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ContextEvent, ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";

import { estimateMessages } from "../window.ts";
import { notify } from "./notify.ts";
import { type Policy, policyOf } from "./policy.ts";
import { NO_PARAMETERS, textResult } from "./result.ts";
import { branchOf, clearStaged, type LifecycleState, sessionIdOf, type Staged } from "./state.ts";
import { budgetAsk } from "./freshness.ts";
import { NOTICES, reminderText, WARNING, withCheckpointAsk } from "./texts.ts";

/** The close-out warning line sits this far above Pi's compaction reserve (the seed's G4 value). */
export const WARNING_RUNWAY_TOKENS = 12_288;

/** Tokens in the current window and the model's context window; tokens null when unknown. */
function usage(s: LifecycleState, ctx: ExtensionContext): { tokens: number | null; contextWindow: number } | undefined {
  const u = ctx.getContextUsage();
  if (!u) return undefined;
  if (u.tokens !== null) return { tokens: u.tokens, contextWindow: u.contextWindow };
  // Right after our checkpoint Pi knows no usage until the model answers: estimate the projection.
  const branch = branchOf(ctx);
  const m = s.win.lastMarkerIndex(branch);
  if (m < 0 || !s.win.inspectHead(branch, m).checkpointBacked) return { tokens: null, contextWindow: u.contextWindow };
  try {
    return { tokens: estimateMessages(ctx.sessionManager.buildSessionProjection().messages), contextWindow: u.contextWindow };
  } catch {
    return { tokens: null, contextWindow: u.contextWindow };
  }
}

/** Tokens left in the current window (the reserve not yet taken off), or null when unknown. */
export function remaining(s: LifecycleState, ctx: ExtensionContext): number | null {
  const u = usage(s, ctx);
  return !u || u.tokens === null ? null : u.contextWindow - u.tokens;
}

/** The hard reserve is reached (automatic compaction on): the safety reset is due. */
export function hardReserveDue(s: LifecycleState, ctx: ExtensionContext, p: Policy): boolean {
  if (!p.automatic) return false;
  const left = remaining(s, ctx);
  return left !== null && left <= p.reserve;
}

/**
 * The `context` hook: before each request, stage the reminder (persisted at the next
 * `turn_end`), or past the warning line show the warning to this request, stage it and arm the
 * close-out.
 */
export function onContext(s: LifecycleState, event: ContextEvent, ctx: ExtensionContext) {
  if (!s.active || !s.enabled) return undefined;
  const left = remaining(s, ctx);
  if (left === null) return undefined;
  const p = policyOf(s, ctx);
  const branch = branchOf(ctx);
  const windowId = s.win.currentWindowId(branch, sessionIdOf(ctx));
  const warningDone = s.win.windowHasMessage(branch, s.facts.warning_type) || s.stagedWarning?.windowId === windowId;
  if (p.automatic && left <= p.reserve + WARNING_RUNWAY_TOKENS) {
    // Re-armed on every eligible request, so an aborted attempt is retried.
    if (!s.request || s.request.windowId !== windowId) s.request = { kind: "closeout", windowId };
    if (warningDone) return undefined;
    s.stagedReminder = undefined;
    s.stagedWarning = staged(s, ctx, windowId, s.facts.warning_type, WARNING);
    s.warningNotices.add(windowId);
    const transient = { role: "custom", customType: s.facts.warning_type, content: s.stagedWarning.content, display: false, timestamp: Date.now() };
    return { messages: [...event.messages, transient as unknown as AgentMessage] };
  }
  if (warningDone) return undefined;
  if (s.win.windowHasMessage(branch, s.facts.guidance_type) || s.stagedReminder?.windowId === windowId) return undefined;
  if (left <= p.reserve + p.margin) {
    s.stagedReminder = staged(s, ctx, windowId, s.facts.guidance_type, reminderText(Math.max(0, left - p.reserve)));
  }
  return undefined;
}

/** A budget message, asking for a checkpoint too while it is dirty (once per episode: freshness.ts). */
function staged(s: LifecycleState, ctx: ExtensionContext, windowId: string, customType: string, text: string): Staged {
  const ask = budgetAsk(s, ctx);
  return { windowId, customType, content: withCheckpointAsk(text, ask), ...(ask ? { details: { checkpointAsked: true } } : {}) };
}

/** The staged budget messages of this window, as drafts (consumed). */
export function takeStaged(s: LifecycleState, windowId: string): SessionBoundaryDraft[] {
  const drafts = [s.stagedReminder, s.stagedWarning]
    .filter((staged): staged is Staged => staged !== undefined && staged.windowId === windowId)
    .map((staged) => ({
      type: "custom_message" as const,
      customType: staged.customType,
      content: staged.content,
      display: false,
      ...(staged.details ? { details: staged.details } : {}),
    }));
  clearStaged(s);
  return drafts;
}

/** The one warning notice per window, once its warning is persisted (dropped when the run settles without it). */
export function notifyWarnings(s: LifecycleState, ctx: ExtensionContext, settled: boolean): void {
  if (s.warningNotices.size === 0) return;
  // Which windows on the branch hold a persisted warning.
  const withWarning = new Set<string>();
  let w = s.win.rootWindowId(sessionIdOf(ctx));
  for (const e of branchOf(ctx)) {
    if (e.type === "custom" && e.customType === s.facts.marker_type) w = (e.data as { windowId: string }).windowId;
    else if (e.type === "custom_message" && e.customType === s.facts.warning_type) withWarning.add(w);
  }
  for (const windowId of [...s.warningNotices]) {
    if (withWarning.has(windowId)) {
      s.warningNotices.delete(windowId);
      notify(ctx, NOTICES.warning, "warning");
    } else if (settled) {
      s.warningNotices.delete(windowId);
    }
  }
}

export function registerContextRemaining(s: LifecycleState): void {
  s.pi.registerTool({
    name: "get_context_remaining",
    label: "Get context remaining",
    description:
      "How many tokens are left in this context window before it is wiped (Pi's compaction reserve already taken off). Returns {\"remaining_tokens\": n}, or null when Pi cannot estimate usage yet. No parameters.",
    promptSnippet: "Tokens left in this context window before it is wiped.",
    parameters: NO_PARAMETERS as unknown as TSchema,
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      const left = remaining(s, ctx);
      const p = policyOf(s, ctx);
      return textResult({ remaining_tokens: left === null ? null : Math.max(0, left - p.reserve) });
    },
  });
}
