/**
 * What keeps erased history from coming back, and resets from looping: the check of every window
 * head before a request goes out (fail closed), Pi's own compaction and `/tree` summaries held
 * off, loop safety for automatic resets, and the startup scan for extensions known to rewrite
 * compaction.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { getCurrentSystemMessage } from "@earendil-works/pi-ai";
import type {
  ContextWithSystemEvent,
  ExtensionContext,
  SessionBeforeCompactEvent,
  SessionBeforeTreeEvent,
  SessionEntry,
} from "@earendil-works/pi-coding-agent";

import { headConfirmed, systemFirst, type WindowHead } from "../window.ts";
import { notify, warnOnce } from "./notify.ts";
import type { Policy } from "./policy.ts";
import { branchOf, type LifecycleState, sessionIdOf } from "./state.ts";
import { MANUAL_WIPE, NOTICES } from "./texts.ts";

/** Installed extensions known to rewrite compaction (warned about at startup, never blocked). */
export const KNOWN_COMPACTION_REWRITERS = [
  "pi-agenticoding",
  "pi-context-prune",
  "billion-context-pi",
  "pi-codex-compaction",
  "pi-codex-compact",
  "pi-session-continuity",
  "pi-continue",
];

// -- the window head -----------------------------------------------------------------------------

/** Why the current window's head is not one pi-context can stand behind; undefined when it is. */
export function headProblem(s: LifecycleState, head: WindowHead): string | undefined {
  if (!head.checkpointBacked) return "its retain-none checkpoint is missing or was changed";
  if (head.laterCompaction) return "a compaction was appended after its checkpoint";
  if (head.blocked) return `${head.blocked} sits where its boot and continuation belong`;
  if (!head.boot) return "it has no boot";
  if (!head.continuation) return "it has no continuation";
  if (head.boot.display !== false || head.continuation.display !== false) return "its boot or continuation is visible";
  if (head.editedHead) return "a context edit hides or replaces its boot or continuation";
  const expected = s.proposed.get(head.windowId);
  if (expected) {
    if (head.boot.content !== expected.boot) return "its boot differs from the one pi-context proposed";
    if (head.continuation.content !== expected.continuation) return "its continuation differs from the one pi-context proposed";
  }
  return undefined;
}

/** The reset's one notice ("memory cleared"), once per window this process reset, and only for a confirmed head. */
export function notifyCleared(s: LifecycleState, ctx: ExtensionContext): void {
  const branch = branchOf(ctx);
  const m = s.win.lastMarkerIndex(branch);
  if (m < 0) return;
  const head = s.win.inspectHead(branch, m);
  const proposed = s.proposed.get(head.windowId);
  if (!proposed || s.clearedNotified.has(head.windowId)) return;
  if (!headConfirmed(head) || headProblem(s, head)) return;
  s.clearedNotified.add(head.windowId);
  notify(ctx, proposed.notice, "info");
}

/**
 * The `context_with_system` hook: every request goes out with a window head that is exactly
 * ours, or with nothing but the system prompt (and the request is aborted). A root window only
 * gets its projection (system first, this session's boot).
 */
export function failClosed(s: LifecycleState, event: ContextWithSystemEvent, ctx: ExtensionContext) {
  if (!s.active) return undefined;
  const branch = branchOf(ctx);
  const sessionId = sessionIdOf(ctx);
  const m = s.win.lastMarkerIndex(branch);
  if (m < 0) {
    const projected = s.win.projectRootWindow(event.messages, s.win.rootWindowId(sessionId));
    return projected ? { messages: projected } : undefined;
  }
  const head = s.win.inspectHead(branch, m);
  const problem = headProblem(s, head);
  if (!problem) {
    const reordered = systemFirst(event.messages);
    return reordered ? { messages: reordered } : undefined;
  }
  const system = getCurrentSystemMessage(event.messages as Parameters<typeof getCurrentSystemMessage>[0]) as AgentMessage | undefined;
  // A /wipe-memory in a broken window gets its one turn with nothing but the system prompt and
  // the request, so a proper boundary can replace the broken one.
  if (s.request?.kind === "manual" && s.request.windowId === head.windowId) {
    const ask = event.messages.filter((msg) => (msg as { customType?: string }).customType === s.facts.manual_wipe_type).slice(-1);
    const tail = ask.length > 0 ? ask : [{ role: "custom", customType: s.facts.manual_wipe_type, content: MANUAL_WIPE, display: false, timestamp: Date.now() } as unknown as AgentMessage];
    return { messages: system ? [system, ...tail] : tail };
  }
  ctx.abort();
  if (!s.headReported.has(head.windowId)) {
    s.headReported.add(head.windowId);
    notify(
      ctx,
      `pi-context: context window ${head.windowId} failed its boundary check (${problem}); the request was cancelled so erased history cannot reach the model. ` +
        "Another extension may rewrite compaction or boundary entries. Use /wipe-memory to start another window.",
      "error",
    );
  }
  return { messages: system ? [system] : [] };
}

// -- Pi's own compaction and /tree summaries -----------------------------------------------------

/** Pi's compaction (and `/compact`) is cancelled while on, and on any branch with a marker. */
export function holdOffCompaction(s: LifecycleState, event: SessionBeforeCompactEvent, ctx: ExtensionContext) {
  if (!s.active) return undefined;
  if (event.signal.aborted) return { cancel: true };
  if (s.enabled || s.win.hasMarker(branchOf(ctx))) {
    if (event.reason === "manual") notify(ctx, NOTICES.compactDisabled, "warning");
    return { cancel: true };
  }
  return undefined;
}

/** A `/tree` summary across a marker is replaced by none (Pi's summarizer reads raw entries). */
export function skipTreeSummary(s: LifecycleState, event: SessionBeforeTreeEvent, ctx: ExtensionContext) {
  if (!s.active || !event.preparation.userWantsSummary) return undefined;
  let target: SessionEntry[] = [];
  try {
    target = ctx.sessionManager.getBranch(event.preparation.targetId);
  } catch {
    target = [];
  }
  if (!s.win.hasMarker(branchOf(ctx)) && !s.win.hasMarker(target)) return undefined;
  notify(ctx, NOTICES.treeSummarySkipped, "info");
  return { summary: { summary: "" } };
}

// -- loop safety ---------------------------------------------------------------------------------

/**
 * Loop safety: an automatic reset (hard reserve, budget close-out, overflow) never closes a
 * fresh window (no conversation of its own since its head), nor a window whose head alone (system
 * prompt and boot) leaves no room above the reserve: the next window would start there too.
 */
export function automaticResetAllowed(s: LifecycleState, ctx: ExtensionContext, p: Policy): boolean {
  const branch = branchOf(ctx);
  if (!s.win.windowHasConversation(branch)) return false;
  const u = ctx.getContextUsage();
  if (!u) return true;
  let head = 0;
  try {
    head = s.win.headTokens(ctx.sessionManager.buildSessionProjection().messages);
  } catch {
    return true;
  }
  if (u.contextWindow - head > p.reserve) return true;
  const windowId = s.win.currentWindowId(branch, sessionIdOf(ctx));
  if (!s.loopReported.has(windowId)) {
    s.loopReported.add(windowId);
    notify(
      ctx,
      `pi-context: the start of this window (system prompt and boot, about ${head} tokens) leaves no room above the ${p.reserve}-token reserve; automatic resets are skipped to avoid a reset loop. Trim the MAP.md notes or use a model with a larger context window.`,
      "warning",
    );
  }
  return false;
}

// -- the conflict scan ---------------------------------------------------------------------------

/** Package sources and extension paths that name a known compaction rewriter. */
export function compactionRewriters(sources: readonly string[]): string[] {
  const found = new Set<string>();
  for (const source of sources) {
    // npm:@scope/name@1.2, git:github.com/owner/name, /path/to/name/index.ts, ./name …
    const words = source
      .toLowerCase()
      .split(/[^a-z0-9._@-]+/)
      .map((w) => w.replace(/^@/, "").replace(/@[^@]*$/, "").replace(/\.git$/, ""))
      .filter(Boolean);
    for (const known of KNOWN_COMPACTION_REWRITERS) if (words.includes(known)) found.add(known);
  }
  return [...found].sort();
}

/** Once per process: one warning per installed extension known to rewrite compaction. */
export function scanConflicts(s: LifecycleState, ctx: ExtensionContext): void {
  if (s.conflictScanDone) return;
  s.conflictScanDone = true;
  const sources: string[] = [];
  try {
    const packages = (s.pi.getSettings() as { packages?: unknown }).packages;
    if (Array.isArray(packages)) {
      for (const p of packages) {
        if (typeof p === "string") sources.push(p);
        else if (p && typeof p === "object" && typeof (p as { source?: unknown }).source === "string") sources.push((p as { source: string }).source);
      }
    }
  } catch {
    // Settings unreadable: the policy reports it.
  }
  try {
    for (const t of s.pi.getAllTools()) sources.push(t.sourceInfo.path, t.sourceInfo.source);
    for (const c of s.pi.getCommands()) sources.push(c.sourceInfo.path, c.sourceInfo.source);
  } catch {
    // Older Pi without these: the settings scan still runs.
  }
  for (const name of compactionRewriters(sources.filter((source) => typeof source === "string"))) {
    warnOnce(s, ctx, `pi-context: the installed extension ${name} is known to rewrite compaction and may undo pi-context's context windows; consider removing it.`);
  }
}
