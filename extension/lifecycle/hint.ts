/**
 * Recall pushed at the prompt (docs/lifecycle.md, "The recall hint"): on each user prompt the
 * binary is asked (`pi-context tool sessions_hint`) for at most one earlier event of this
 * project's other sessions that the prompt continues; the block it answers goes to the model with
 * the prompt, as a hidden `pi-context/hint` custom message (never indexed, so hints never feed
 * hints).
 *
 * It never delays a prompt by more than `HINT_DEADLINE_MS` and never breaks one: a missing, slow,
 * failing or confused binary means no hint, silently. The same session is hinted at most once
 * per context window: the hints already on the window's branch are sent as `hinted`, so the rule
 * survives a restart. The sessions the window's earlier answers gave as `lead` (ranked first by a
 * rare word, short of the rest of the bar) are sent as `leads`: a prompt that ranks one of them
 * first again corroborates it (docs/recall.md, "The hint").
 */

import type { BeforeAgentStartEvent, BeforeAgentStartEventResult, ExtensionContext } from "@earendil-works/pi-coding-agent";

import { run } from "../binary.ts";
import { callContext } from "../context.ts";
import { policyOf } from "./policy.ts";
import { branchOf, type LifecycleState, windowOf } from "./state.ts";

/** Leads kept per window, and windows kept (the oldest go first). */
const MAX_LEADS = 64;
const MAX_LEAD_WINDOWS = 32;

/**
 * How long a prompt may wait for its hint. The hint costs about 5-10 ms with a warm index
 * (docs/benchmarks.md); a refresh after other sessions grew, a cold page cache or a loaded
 * machine can take 100 ms more. A person notices a pause of a few hundred milliseconds after
 * pressing Enter, and the model's own first token takes far longer, so 250 ms is the most a hint
 * may add; past it the binary is killed (its index commits are atomic) and the prompt goes alone.
 */
export const HINT_DEADLINE_MS = 250;

interface HintDetails {
  hint?: unknown;
  session_id?: unknown;
  short_id?: unknown;
  seq?: unknown;
  leaf_id?: unknown;
  lead?: unknown;
}

export function registerHint(s: LifecycleState): void {
  s.pi.on("before_agent_start", (event, ctx) => hintFor(s, event, ctx));
}

/** The hint message for a user prompt, or nothing. Never throws. */
export async function hintFor(s: LifecycleState, event: BeforeAgentStartEvent, ctx: ExtensionContext): Promise<BeforeAgentStartEventResult | undefined> {
  try {
    if (event.messageType !== "user" || !s.active || !s.hints) return undefined;
    const prompt = event.prompt.trim();
    if (prompt === "" || !policyOf(s, ctx).autoRecall) return undefined;
    const windowId = windowOf(s, ctx);
    const hinted = hintedInWindow(s, ctx);
    const leads = s.hintLeads.get(windowId) ?? [];
    const request = { params: { prompt, hinted, leads }, context: callContext(ctx, s.env, false) };
    // The run kills the binary at the deadline; the race also covers a child that keeps its
    // output open after the kill.
    const result = await Promise.race([
      run(s.bin, ["tool", "sessions_hint"], JSON.stringify(request), undefined, HINT_DEADLINE_MS),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), HINT_DEADLINE_MS + 20).unref()),
    ]);
    if (!result || result.error || result.code !== 0) return undefined;
    const answer = JSON.parse(result.stdout) as { text?: unknown; details?: HintDetails; is_error?: unknown };
    const d = answer.details ?? {};
    if (answer.is_error !== true && typeof d.lead === "string") keepLead(s, windowId, d.lead);
    if (answer.is_error === true || d.hint !== true || typeof answer.text !== "string" || answer.text === "") return undefined;
    if (typeof d.session_id !== "string" || typeof d.seq !== "number" || hinted.includes(d.session_id)) return undefined;
    const shortId = typeof d.short_id === "string" ? d.short_id : d.session_id.slice(0, 8);
    s.lastHint = { sessionId: d.session_id, shortId, seq: d.seq, at: new Date().toISOString() };
    return {
      message: {
        customType: s.facts.hint_type,
        content: answer.text,
        display: false,
        details: { windowId, sessionId: d.session_id, seq: d.seq, leafId: typeof d.leaf_id === "string" ? d.leaf_id : null },
      },
    };
  } catch {
    return undefined;
  }
}

function keepLead(s: LifecycleState, windowId: string, sessionId: string): void {
  const leads = s.hintLeads.get(windowId) ?? [];
  if (!leads.includes(sessionId)) leads.push(sessionId);
  leads.splice(0, Math.max(0, leads.length - MAX_LEADS));
  s.hintLeads.delete(windowId);
  s.hintLeads.set(windowId, leads);
  for (const old of s.hintLeads.keys()) {
    if (s.hintLeads.size <= MAX_LEAD_WINDOWS) break;
    s.hintLeads.delete(old);
  }
}

/** The sessions hinted in the current window, read from its branch. */
function hintedInWindow(s: LifecycleState, ctx: ExtensionContext): string[] {
  const ids: string[] = [];
  for (const entry of s.win.windowSlice(branchOf(ctx))) {
    if (entry.type !== "custom_message" || entry.customType !== s.facts.hint_type) continue;
    const id = (entry.details as { sessionId?: unknown } | undefined)?.sessionId;
    if (typeof id === "string" && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** `/pi-context` status: the last hint, or why there is none. */
export function hintStatus(s: LifecycleState, ctx: ExtensionContext): string {
  if (!s.hints) return "no recall hints (the binary has no sessions_hint)";
  if (!policyOf(s, ctx).autoRecall) return "recall hints off (autoRecall: false)";
  const last = s.lastHint;
  if (!last) return "no recall hint yet";
  return `last recall hint: session ${last.shortId} seq ${last.seq} at ${last.at.slice(11, 19)}`;
}
