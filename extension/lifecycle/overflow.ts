/**
 * Provider overflow: the provider refused a request as too long for the context window (or the
 * answer stopped at a `length` limit the context clamped). The window is reset at that turn's
 * `turn_end`, and the turn is retried once in the fresh window, whose continuation repeats the
 * person's last request.
 *
 * Resetting at `turn_end` (not later) matters: the checkpoint is then newer than the failed
 * response, so Pi does not start its own overflow compaction (which pi-context would cancel, and
 * Pi would report as "Auto-compaction cancelled"); the one notice is pi-context's.
 *
 * Bounded: the retry runs in a fresh window, and no automatic reset closes a fresh window
 * (guards.ts), so a retry that overflows again settles with Pi's error and no second reset.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { isContextOverflow, isRecoverableLength } from "@earendil-works/pi-ai";
import type { AgentBeforeSettleEvent, ExtensionContext } from "@earendil-works/pi-coding-agent";

import { branchOf, type LifecycleState, windowOf } from "./state.ts";
import { type CarriedRequest, overflowContinuation } from "./texts.ts";

/** A long request is repeated up to this many characters, followed by where the rest is. */
export const REQUEST_HEAD_CHARS = 2_000;
/** A request is repeated whole up to this many characters, or more on a larger model (below). */
const MIN_WHOLE_REQUEST_CHARS = 8_000;

export function isOverflowLike(message: AgentMessage, ctx: ExtensionContext): boolean {
  if ((message as { role: string }).role !== "assistant") return false;
  const m = message as Parameters<typeof isContextOverflow>[0];
  return isContextOverflow(m, ctx.model?.contextWindow) || (ctx.model !== undefined && isRecoverableLength(m, ctx.model.maxTokens));
}

/**
 * The person's last request in the current window as the retry repeats it: whole while it takes
 * at most a quarter of the model's context window (at four characters a token), else its first
 * `REQUEST_HEAD_CHARS` characters (a request that size may be what overflowed).
 */
export function carriedRequest(s: LifecycleState, ctx: ExtensionContext): CarriedRequest | undefined {
  const request = s.win.lastRequest(branchOf(ctx));
  if (!request) return undefined;
  const chars = Array.from(request.text);
  const whole = Math.max(MIN_WHOLE_REQUEST_CHARS, ctx.model?.contextWindow ?? 0);
  const shown = chars.length <= whole ? chars.length : REQUEST_HEAD_CHARS;
  return { text: shown === chars.length ? request.text : chars.slice(0, shown).join(""), total: chars.length, shown, images: request.images };
}

/** The continuation of the window an overflow reset opens (rendered before the reset). */
export function retryContinuation(s: LifecycleState, ctx: ExtensionContext): string {
  return overflowContinuation(windowOf(s, ctx), carriedRequest(s, ctx));
}

/**
 * `agent_before_settle` after a failed request that was reset: Pi ended the run whatever
 * `turn_end` asked, so the retry starts here, once, in the window the reset opened. Queued
 * messages start the next request themselves.
 */
export function startRetry(s: LifecycleState, event: AgentBeforeSettleEvent, ctx: ExtensionContext, queued: boolean) {
  const window = s.retry;
  s.retry = undefined;
  if (window === undefined || !s.enabled || queued || windowOf(s, ctx) !== window) return undefined;
  return { entries: event.entries, continue: true };
}
