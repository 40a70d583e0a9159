/**
 * The context-window lifecycle (CONTRACT §6, docs/lifecycle.md): what only Pi's hooks can do.
 *
 * - Resets. A committed reset is returned as boundary drafts from `turn_end` or
 *   `agent_before_settle` (never `ctx.compact()`): a retain-none checkpoint, the
 *   `pi-context/reset-marker` `{windowId}`, a hidden `pi-context/boot` and a hidden
 *   `pi-context/continuation`. Triggers: the `wipe_memory` tool and `/wipe-memory` (next successful
 *   `turn_end`), the budget close-out (an explicit `wipe_memory`, else a successful normal stop),
 *   the hard reserve (`turn_end`), provider overflow (`agent_before_settle`, once per failure).
 *   Abort and error never commit.
 * - The boot block, rendered by `pi-context boot`: the root boot at session start (hidden, written
 *   once), one per reset inside the drafts; a partial tail (a crash between drafts) is repaired.
 * - Budget: one early reminder and one warning per window, persisted hidden at `turn_end`;
 *   `get_context_remaining`.
 * - Pi's own compaction is cancelled while enabled or while the branch has a marker; `/tree`
 *   summaries are suppressed across markers.
 * - Guards beyond the anchor: every window head is verified before a request goes out (fail closed
 *   when it is not exactly ours), a fresh window is never reset automatically, `wipe_memory` refuses
 *   once after a failed notes save or in a window without conversation, and a startup scan warns
 *   about installed extensions known to rewrite compaction.
 */

import { randomUUID } from "node:crypto";

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { getCurrentSystemMessage, isContextOverflow, isRecoverableLength } from "@earendil-works/pi-ai";
import type {
  ExtensionAPI,
  ExtensionCommandContext,
  ExtensionContext,
  SessionBoundaryDraft,
  SessionEntry,
} from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";

import { clip, failure, run } from "./binary.ts";
import {
  BOOT_TYPE,
  CONTINUATION_TYPE,
  currentWindowId,
  estimateMessages,
  GUIDANCE_TYPE,
  hasMarker,
  headConfirmed,
  headTokens,
  inspectHead,
  isBootEntry,
  lastMarkerIndex,
  lastNotesWrite,
  MANUAL_WIPE_TYPE,
  MARKER_TYPE,
  markerIds,
  mintWindowId,
  projectRootWindow,
  rootWindowId,
  systemFirst,
  WARNING_TYPE,
  windowHasConversation,
  windowHasMessage,
  type WindowHead,
} from "./window.ts";

// ---------------------------------------------------------------------------------------------
// Constants and texts
// ---------------------------------------------------------------------------------------------

/** The close-out warning line sits this far above Pi's compaction reserve (the seed's G4 value). */
export const WARNING_RUNWAY_TOKENS = 12_288;
export const DEFAULT_RESERVE_TOKENS = 16_384;
export const DEFAULT_REMINDER_MARGIN_TOKENS = 24_576;
const BOOT_TIMEOUT_MS = 5_000;

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

export const CONTINUATION = `<context_window_continuation>
Your memory was just wiped: this is a fresh context window, and nothing from the previous one is in your context. Nothing is lost: your notes are indexed above, and history_search, history_list and history_read reach everything said and done before (history_windows lists the windows). Read your checkpoint notes, recover what you need, then carry on with the task.
</context_window_continuation>`;

export function reminderText(tokensLeft: number): string {
  return `<context_window_guidance>
About ${tokensLeft} tokens are left in this context window before it is wiped. Start closing out: write down what is only in your head (the goal, decisions, current state, next steps) with notes_write or notes_edit, crumple notes that went stale, and keep each MAP.md honest. Call wipe_memory yourself when you reach a good stopping point.
</context_window_guidance>`;
}

export const WARNING = `<context_window_guidance>
Final warning: this context window is almost full and will be wiped soon.
1. Write the current state into your notes now: the goal, what changed, blockers, next steps, the skills you need, and the notes and docs to read first.
2. Fix or crumple stale notes and keep every MAP.md truthful.
3. Record the seqs of the history items that matter.
4. Then call wipe_memory.
History is an archive, not a rescue: what you do not write down now is hard to find later.
</context_window_guidance>`;

export const MANUAL_WIPE = `<context_window_guidance>
The person asked for a fresh context window: this one is wiped at the end of this turn. In this turn, write the current state into your notes (the goal, what changed, blockers, next steps, the notes and docs to read first), fix or crumple stale notes, and record the seqs of the history items that matter.
</context_window_guidance>`;

export const NOTICES = {
  compactDisabled: "pi-context: /compact is disabled while context windows are active; use /wipe-memory to start a fresh window.",
  treeSummarySkipped: "pi-context: skipped branch summary across a reset window; navigation continues without erased history.",
  warning: "pi-context: Context almost full; close out the current memory window.",
  wipeNeedsOn: "pi-context: /wipe-memory requires /pi-context on.",
  usage: "Usage: /pi-context [on|off]",
  offError: "pi-context is off (/pi-context on to enable)",
};

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

export interface Policy {
  /** `compaction.reserveTokens` (the active model's override wins). */
  reserve: number;
  /** `compaction.enabled`: gates the warning, the close-out, the hard reserve and overflow recovery. */
  automatic: boolean;
  /** `pi-context.reminderMarginTokens`. */
  margin: number;
  warnings: string[];
}

const isPositiveInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
const isNonNegativeInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * The policy from Pi's effective settings (`pi.getSettings()`: the global and the trusted project
 * settings files merged per key, project winning, exactly as Pi reads them). Invalid values fall
 * back to the defaults with one warning each; nothing throws.
 */
export function resolvePolicy(settings: unknown, model: { provider: string; id: string } | undefined): Policy {
  const warnings: string[] = [];
  const s = (settings ?? {}) as Record<string, unknown>;
  const compaction = (typeof s.compaction === "object" && s.compaction !== null ? s.compaction : {}) as Record<string, unknown>;
  const automatic = compaction.enabled === undefined ? true : compaction.enabled !== false;

  let reserve = DEFAULT_RESERVE_TOKENS;
  const ordinary = compaction.reserveTokens;
  if (ordinary !== undefined) {
    if (isNonNegativeInteger(ordinary)) reserve = ordinary;
    else warnings.push("pi-context: compaction.reserveTokens must be a non-negative integer; using the default reserve.");
  }
  const overrides = compaction.modelOverrides as Record<string, { reserveTokens?: unknown }> | undefined;
  const override = model && typeof overrides === "object" && overrides !== null ? overrides[`${model.provider}/${model.id}`] : undefined;
  if (override && typeof override === "object" && override.reserveTokens !== undefined) {
    if (isNonNegativeInteger(override.reserveTokens)) reserve = override.reserveTokens;
    else warnings.push(`pi-context: compaction.modelOverrides["${model!.provider}/${model!.id}"].reserveTokens must be a non-negative integer; ignoring it.`);
  }

  let margin = DEFAULT_REMINDER_MARGIN_TOKENS;
  const ours = s["pi-context"];
  if (ours !== undefined) {
    if (typeof ours !== "object" || ours === null || Array.isArray(ours)) {
      warnings.push("pi-context: the pi-context settings must be an object; using the defaults.");
    } else {
      const o = ours as Record<string, unknown>;
      if (o.reminderMarginTokens !== undefined) {
        if (isPositiveInteger(o.reminderMarginTokens)) margin = o.reminderMarginTokens;
        else warnings.push("pi-context: pi-context.reminderMarginTokens must be a positive integer; using the default reminder margin.");
      }
      if (o.dreamer !== undefined && !(typeof o.dreamer === "string" && o.dreamer.trim() !== "")) {
        warnings.push("pi-context: pi-context.dreamer must be a non-empty string; ignoring it.");
      }
    }
  }
  return { reserve, automatic, margin, warnings };
}

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

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

type RequestKind = "tool" | "manual" | "closeout";
interface Request {
  kind: RequestKind;
  windowId: string;
}
type Overflow = "idle" | "pending" | "spent" | "pending-spent";
interface Staged {
  windowId: string;
  customType: string;
  content: string;
}
/** Why a reset was committed; recorded in the boot's details and passed to `pi-context boot`. */
export type ResetReason = "wipe_memory" | "manual" | "budget" | "hard_reserve" | "overflow";

export interface LifecycleOptions {
  bin: string;
  env?: NodeJS.ProcessEnv;
  /** Random source for window ids (tests). */
  random?: () => string;
}

interface BootRender {
  text: string;
  homesUnavailable: string[];
  fallback?: string;
}

function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== "" ? value : null;
}

function modelKey(ctx: ExtensionContext): { provider: string; id: string } | undefined {
  return ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined;
}

function textResult(value: unknown, isError = false, terminate = false) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(value) }],
    details: value as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
    ...(terminate ? { terminate: true } : {}),
  };
}

/** A minimal boot, used only when `pi-context boot` cannot run (for example, a missing binary). */
export function fallbackBoot(ids: { first: string; current: string; previous: string | null }, reason: string): string {
  return [
    "<context_window>",
    `First context window id: ${ids.first}`,
    `Current context window id: ${ids.current}`,
    ...(ids.previous ? [`Previous context window id: ${ids.previous}`] : []),
    "</context_window>",
    "",
    `The notes index is unavailable (${reason}). notes_list can retry; history_windows, history_search and history_read reach earlier windows.`,
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------------------------

export function registerLifecycle(pi: ExtensionAPI, options: LifecycleOptions): void {
  const env = options.env ?? process.env;
  const random = options.random ?? (() => randomUUID().replaceAll("-", ""));

  let enabled = true;
  let active = true;
  /** Incremented on every transition; an async reset built across one is discarded. */
  let generation = 0;
  let request: Request | undefined;
  let overflow: Overflow = "idle";
  let stagedReminder: Staged | undefined;
  let stagedWarning: Staged | undefined;
  /** Windows whose warning was staged: notify once when it is durable. */
  const warningNotices = new Set<string>();
  /** Boundaries this process committed: window id → the exact boot and continuation it proposed. */
  const proposed = new Map<string, { boot: string; continuation: string }>();
  /** Windows whose "memory cleared" notice was shown. */
  const clearedNotified = new Set<string>();
  /** Windows whose broken head was reported. */
  const headReported = new Set<string>();
  /** Windows whose loop guard was reported. */
  const loopReported = new Set<string>();
  /** `wipe_memory` refusals already given, per window: "empty" and "notes:<toolCallId>". */
  const refusals = new Map<string, Set<string>>();
  /** The last notes save seen in this process, per window. */
  const notesSaves = new Map<string, { id: string; failed: boolean }>();
  /** Distinct warnings already shown (settings, conflicts, incomplete notes index). */
  const shownWarnings = new Set<string>();
  let conflictScanDone = false;

  const branchOf = (ctx: ExtensionContext) => ctx.sessionManager.getBranch();
  const sessionIdOf = (ctx: ExtensionContext) => ctx.sessionManager.getSessionId();
  const windowOf = (ctx: ExtensionContext) => currentWindowId(branchOf(ctx), sessionIdOf(ctx));

  const notify = (ctx: ExtensionContext, message: string, level: "info" | "warning" | "error" = "info") => {
    if (ctx.hasUI) ctx.ui.notify(message, level);
  };
  const warnOnce = (ctx: ExtensionContext, message: string) => {
    if (shownWarnings.has(message)) return;
    shownWarnings.add(message);
    notify(ctx, message, "warning");
  };

  const policy = (ctx: ExtensionContext): Policy => {
    let settings: unknown;
    try {
      settings = pi.getSettings();
    } catch (e) {
      warnOnce(ctx, `pi-context: could not read settings; using defaults (${String(e)}).`);
    }
    const p = resolvePolicy(settings, modelKey(ctx));
    for (const w of p.warnings) warnOnce(ctx, w);
    return p;
  };

  const clearStaged = () => {
    stagedReminder = undefined;
    stagedWarning = undefined;
  };
  const clearTransient = () => {
    request = undefined;
    overflow = "idle";
    clearStaged();
  };
  const transition = () => {
    generation++;
    clearTransient();
  };

  // -- usage ---------------------------------------------------------------------------------

  /** Tokens in the current window and the model's context window; tokens null when unknown. */
  const usage = (ctx: ExtensionContext): { tokens: number | null; contextWindow: number } | undefined => {
    const u = ctx.getContextUsage();
    if (!u) return undefined;
    if (u.tokens !== null) return { tokens: u.tokens, contextWindow: u.contextWindow };
    // Right after our checkpoint Pi knows no usage until the model answers: estimate the projection.
    const branch = branchOf(ctx);
    const m = lastMarkerIndex(branch);
    if (m < 0 || !inspectHead(branch, m).checkpointBacked) return { tokens: null, contextWindow: u.contextWindow };
    try {
      return { tokens: estimateMessages(ctx.sessionManager.buildSessionProjection().messages), contextWindow: u.contextWindow };
    } catch {
      return { tokens: null, contextWindow: u.contextWindow };
    }
  };
  const remaining = (ctx: ExtensionContext): number | null => {
    const u = usage(ctx);
    return !u || u.tokens === null ? null : u.contextWindow - u.tokens;
  };

  const hardReserveDue = (ctx: ExtensionContext, p: Policy): boolean => {
    if (!p.automatic) return false;
    const left = remaining(ctx);
    return left !== null && left <= p.reserve;
  };

  /**
   * Loop safety: an automatic reset (hard reserve, budget close-out, overflow) never closes a
   * fresh window (no conversation of its own since its head), nor a window whose head alone (system
   * prompt and boot) leaves no room above the reserve: the next window would start there too.
   */
  const automaticResetAllowed = (ctx: ExtensionContext, p: Policy): boolean => {
    const branch = branchOf(ctx);
    if (!windowHasConversation(branch)) return false;
    const u = ctx.getContextUsage();
    if (!u) return true;
    let head = 0;
    try {
      head = headTokens(ctx.sessionManager.buildSessionProjection().messages);
    } catch {
      return true;
    }
    if (u.contextWindow - head > p.reserve) return true;
    const windowId = currentWindowId(branch, sessionIdOf(ctx));
    if (!loopReported.has(windowId)) {
      loopReported.add(windowId);
      notify(
        ctx,
        `pi-context: the start of this window (system prompt and boot, about ${head} tokens) leaves no room above the ${p.reserve}-token reserve; automatic resets are skipped to avoid a reset loop. Trim the MAP.md notes or use a model with a larger context window.`,
        "warning",
      );
    }
    return false;
  };

  // -- the boot ------------------------------------------------------------------------------

  const renderBoot = async (
    ctx: ExtensionContext,
    ids: { current: string; previous: string | null },
    reason: string,
    signal?: AbortSignal,
  ): Promise<BootRender> => {
    const sessionId = sessionIdOf(ctx);
    const first = rootWindowId(sessionId);
    const input = {
      reason,
      session_id: sessionId,
      window_id: ids.current,
      previous_window_id: ids.previous,
      snapshot_time: new Date().toISOString(),
      cwd: ctx.cwd,
      agent: nonEmpty(env.PI_NOTES_AGENT),
      model: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : null,
      notes_home: nonEmpty(env.PI_NOTES_HOME),
      session_dir: nonEmpty(typeof ctx.sessionManager.getSessionDir === "function" ? ctx.sessionManager.getSessionDir() : undefined),
    };
    const result = await run(options.bin, ["boot", "--json"], JSON.stringify(input), signal, BOOT_TIMEOUT_MS);
    if (signal?.aborted) throw new Error("aborted");
    let why = failure(options.bin, "`pi-context boot`", result);
    if (!why) {
      try {
        const parsed = JSON.parse(result.stdout) as { text?: unknown; homes_unavailable?: unknown };
        if (typeof parsed.text === "string" && parsed.text !== "") {
          const homes = Array.isArray(parsed.homes_unavailable) ? parsed.homes_unavailable.filter((h): h is string => typeof h === "string") : [];
          return { text: parsed.text, homesUnavailable: homes };
        }
        why = "`pi-context boot --json` printed no text";
      } catch {
        why = `\`pi-context boot --json\` did not print JSON: ${clip(result.stdout, 200)}`;
      }
    }
    return { text: fallbackBoot({ first, ...ids }, why.split("\n")[0]!), homesUnavailable: [], fallback: why };
  };

  const reportBoot = (ctx: ExtensionContext, boot: BootRender) => {
    if (boot.fallback) warnOnce(ctx, `pi-context: could not render the boot block; using a minimal one (${clip(boot.fallback, 300)}).`);
    if (boot.homesUnavailable.length > 0) {
      notify(ctx, `pi-context: notes index incomplete for ${boot.homesUnavailable.join(", ")}; notes_list can retry after recovery.`, "warning");
    }
  };

  const bootDetails = (windowId: string, reason: string, previous: string | null) => ({
    windowId,
    reason,
    ...(previous ? { previousWindowId: previous } : {}),
  });

  /**
   * Root boot and tail repair (session start, /tree, /pi-context on). A root window without its
   * boot gets one; a reset window whose marker is followed only by metadata gets its missing boot
   * and/or continuation. Sent hidden, without a model turn, never twice (the branch is checked
   * again after the boot is rendered).
   */
  const ensureHead = async (ctx: ExtensionContext) => {
    const gen = generation;
    const sessionId = sessionIdOf(ctx);
    const branch = branchOf(ctx);
    const m = lastMarkerIndex(branch);
    const still = () => active && gen === generation && sessionIdOf(ctx) === sessionId && enabled;

    if (m < 0) {
      const rootId = rootWindowId(sessionId);
      if (branch.some((e) => isBootEntry(e, rootId))) return;
      const boot = await renderBoot(ctx, { current: rootId, previous: null }, "session_start");
      if (!still() || hasMarker(branchOf(ctx)) || branchOf(ctx).some((e) => isBootEntry(e, rootId))) return;
      reportBoot(ctx, boot);
      pi.sendMessage(
        { customType: BOOT_TYPE, content: boot.text, display: false, details: bootDetails(rootId, "session_start", null) },
        { triggerTurn: false },
      );
      return;
    }

    const head = inspectHead(branch, m);
    if (head.blocked || head.continuation) return;
    const needBoot = !head.boot;
    let bootText: string | undefined;
    const ids = markerIds(branch);
    const previous = ids.length >= 2 ? ids[ids.length - 2]! : rootWindowId(sessionId);
    if (needBoot) {
      const boot = await renderBoot(ctx, { current: head.windowId, previous }, "repair");
      if (!still()) return;
      const again = inspectHead(branchOf(ctx), lastMarkerIndex(branchOf(ctx)));
      if (again.windowId !== head.windowId || again.blocked || again.boot || again.continuation) return;
      reportBoot(ctx, boot);
      bootText = boot.text;
    }
    if (bootText !== undefined) {
      pi.sendMessage(
        { customType: BOOT_TYPE, content: bootText, display: false, details: bootDetails(head.windowId, "repair", previous) },
        { triggerTurn: false },
      );
    }
    pi.sendMessage({ customType: CONTINUATION_TYPE, content: CONTINUATION, display: false }, { triggerTurn: false });
  };

  // -- building a reset ----------------------------------------------------------------------

  /**
   * The reset drafts for the current window, or undefined when the lifecycle moved on while the
   * boot was rendered (then only the incoming entries are kept and nothing continues).
   */
  const buildReset = async (ctx: ExtensionContext, reason: ResetReason): Promise<SessionBoundaryDraft[] | undefined> => {
    const gen = generation;
    const sessionId = sessionIdOf(ctx);
    const branch = branchOf(ctx);
    const oldWindow = currentWindowId(branch, sessionId);
    const newWindow = mintWindowId(sessionId, branch, random);
    const isCurrent = () =>
      active && gen === generation && enabled && ctx.signal?.aborted !== true && sessionIdOf(ctx) === sessionId && windowOf(ctx) === oldWindow;
    let boot: BootRender;
    try {
      boot = await renderBoot(ctx, { current: newWindow, previous: oldWindow }, reason, ctx.signal);
    } catch (e) {
      if (isCurrent()) notify(ctx, `pi-context: could not build reset (${String(e)}).`, "warning");
      return undefined;
    }
    if (!isCurrent()) return undefined;
    reportBoot(ctx, boot);
    proposed.set(newWindow, { boot: boot.text, continuation: CONTINUATION });
    return [
      { type: "compaction", summary: "", firstKeptEntryId: null },
      { type: "custom", customType: MARKER_TYPE, data: { windowId: newWindow } },
      { type: "custom_message", customType: BOOT_TYPE, content: boot.text, display: false, details: bootDetails(newWindow, reason, oldWindow) },
      { type: "custom_message", customType: CONTINUATION_TYPE, content: CONTINUATION, display: false },
    ];
  };

  const commit = async (ctx: ExtensionContext, entries: SessionBoundaryDraft[], reason: ResetReason) => {
    const reset = await buildReset(ctx, reason);
    if (!reset) return { entries };
    request = undefined;
    overflow = overflow === "pending" || overflow === "pending-spent" ? "spent" : overflow;
    return { entries: [...entries, ...reset], continue: true };
  };

  // -- head verification ---------------------------------------------------------------------

  /** Why the current window's head is not one pi-context can stand behind; undefined when it is. */
  const headProblem = (head: WindowHead): string | undefined => {
    if (!head.checkpointBacked) return "its retain-none checkpoint is missing or was changed";
    if (head.laterCompaction) return "a compaction was appended after its checkpoint";
    if (head.blocked) return `${head.blocked} sits where its boot and continuation belong`;
    if (!head.boot) return "it has no boot";
    if (!head.continuation) return "it has no continuation";
    if (head.boot.display !== false || head.continuation.display !== false) return "its boot or continuation is visible";
    if (head.editedHead) return "a context edit hides or replaces its boot or continuation";
    const expected = proposed.get(head.windowId);
    if (expected) {
      if (head.boot.content !== expected.boot) return "its boot differs from the one pi-context proposed";
      if (head.continuation.content !== expected.continuation) return "its continuation differs from the one pi-context proposed";
    }
    return undefined;
  };

  const notifyCleared = (ctx: ExtensionContext) => {
    const branch = branchOf(ctx);
    const m = lastMarkerIndex(branch);
    if (m < 0) return;
    const head = inspectHead(branch, m);
    if (!proposed.has(head.windowId) || clearedNotified.has(head.windowId)) return;
    if (!headConfirmed(head) || headProblem(head)) return;
    clearedNotified.add(head.windowId);
    notify(ctx, `pi-context: memory cleared · ${head.windowId}`, "info");
  };

  const notifyWarnings = (ctx: ExtensionContext, settled: boolean) => {
    if (warningNotices.size === 0) return;
    // Which windows on the branch hold a persisted warning.
    const withWarning = new Set<string>();
    let w = rootWindowId(sessionIdOf(ctx));
    for (const e of branchOf(ctx)) {
      if (e.type === "custom" && e.customType === MARKER_TYPE) w = (e.data as { windowId: string }).windowId;
      else if (e.type === "custom_message" && e.customType === WARNING_TYPE) withWarning.add(w);
    }
    for (const windowId of [...warningNotices]) {
      if (withWarning.has(windowId)) {
        warningNotices.delete(windowId);
        notify(ctx, NOTICES.warning, "warning");
      } else if (settled) {
        warningNotices.delete(windowId);
      }
    }
  };

  // -- tools ---------------------------------------------------------------------------------

  pi.registerTool({
    name: "wipe_memory",
    label: "Wipe memory",
    description:
      "End this context window and start a fresh one after the current tool batch. Everything in your context is then gone; your notes and the whole session history stay (history_* and notes_* tools). Save your state to notes first. No parameters. Refused once when your last notes save in this window failed or when the window has no conversation yet.",
    promptSnippet: "End this context window and start a fresh one after the current tool batch (save your notes first).",
    parameters: { type: "object", properties: {}, additionalProperties: false } as unknown as TSchema,
    executionMode: "sequential",
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      if (!enabled) return textResult({ error: NOTICES.offError }, true);
      const branch = branchOf(ctx);
      const windowId = currentWindowId(branch, sessionIdOf(ctx));
      if (request && request.windowId === windowId && request.kind !== "closeout") {
        return textResult({ status: "already_pending", window_id: windowId, message: "A reset of this window is already scheduled for the end of this turn." }, false, true);
      }
      const given = refusals.get(windowId) ?? new Set<string>();
      refusals.set(windowId, given);
      if (!windowHasConversation(branch) && !given.has("empty")) {
        given.add("empty");
        return textResult(
          {
            error: {
              code: "empty_window",
              message: "This window has no conversation yet: there is nothing to wipe. Call wipe_memory again if you still want a fresh window.",
            },
          },
          true,
        );
      }
      const save = notesSaves.get(windowId) ?? lastNotesWrite(branch);
      if (save?.failed && !given.has(`notes:${save.id}`)) {
        given.add(`notes:${save.id}`);
        return textResult(
          {
            error: {
              code: "notes_save_failed",
              message:
                "Your last notes save in this window failed, so your state may not be saved. Retry the save (notes_write or notes_edit), then call wipe_memory; call it again now to reset anyway.",
            },
          },
          true,
        );
      }
      request = { kind: "tool", windowId };
      return textResult(
        { status: "scheduled", window_id: windowId, message: "This window is wiped after the current tool batch; a fresh window follows." },
        false,
        true,
      );
    },
  });

  pi.registerTool({
    name: "get_context_remaining",
    label: "Get context remaining",
    description:
      "How many tokens are left in this context window before it is wiped (Pi's compaction reserve already taken off). Returns {\"remaining_tokens\": n}, or null when Pi cannot estimate usage yet. No parameters.",
    promptSnippet: "Tokens left in this context window before it is wiped.",
    parameters: { type: "object", properties: {}, additionalProperties: false } as unknown as TSchema,
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      const left = remaining(ctx);
      const p = policy(ctx);
      return textResult({ remaining_tokens: left === null ? null : Math.max(0, left - p.reserve) });
    },
  });

  // Track notes saves per window (a failed one makes wipe_memory refuse once).
  pi.on("tool_execution_end", (event, ctx) => {
    if (event.toolName !== "notes_write" && event.toolName !== "notes_edit") return;
    if (event.parentToolCallId) return;
    notesSaves.set(windowOf(ctx), { id: event.toolCallId, failed: event.isError === true });
  });

  // -- commands ------------------------------------------------------------------------------

  pi.registerCommand("wipe-memory", {
    description: "Start a fresh context window after the next completed turn (notes and history stay)",
    handler: async (_args: string, ctx: ExtensionCommandContext) => {
      if (!enabled) {
        notify(ctx, NOTICES.wipeNeedsOn, "error");
        return;
      }
      const windowId = windowOf(ctx);
      if (request && request.windowId === windowId && request.kind === "manual") {
        notify(ctx, `pi-context: a fresh window is already requested for ${windowId}.`, "info");
        return;
      }
      request = { kind: "manual", windowId };
      if (ctx.isIdle()) {
        notify(ctx, `pi-context: wipe requested · ${windowId}; the agent saves its notes in one turn, then a fresh window starts.`, "info");
        pi.sendMessage({ customType: MANUAL_WIPE_TYPE, content: MANUAL_WIPE, display: false }, { triggerTurn: true });
      } else {
        notify(ctx, `pi-context: wipe requested · ${windowId}; the window resets when the current turn completes.`, "info");
      }
    },
  });

  const status = (ctx: ExtensionContext): string => {
    const windowId = windowOf(ctx);
    const parts = [`pi-context: ${enabled ? "on" : "off"}`, `window ${windowId}`];
    if (!enabled && hasMarker(branchOf(ctx))) parts.push("its reset marker stays in force");
    if (enabled) {
      const left = remaining(ctx);
      if (left !== null) parts.push(`${Math.max(0, left - policy(ctx).reserve)} tokens before the reset line`);
    }
    return parts.join(" · ");
  };

  pi.registerCommand("pi-context", {
    description: "Turn automatic context windows on or off; without an argument, show the status",
    getArgumentCompletions: (prefix: string) => {
      const items = ["on", "off"].filter((v) => v.startsWith(prefix.trim())).map((v) => ({ value: v, label: v }));
      return items.length > 0 ? items : null;
    },
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      const arg = args.trim();
      if (arg === "on") {
        const was = enabled;
        enabled = true;
        if (!was) transition();
        await ensureHead(ctx);
      } else if (arg === "off") {
        enabled = false;
        transition();
      } else if (arg !== "") {
        notify(ctx, NOTICES.usage, "error");
        return;
      }
      notify(ctx, status(ctx), "info");
    },
  });

  // -- session transitions -------------------------------------------------------------------

  const scanConflicts = (ctx: ExtensionContext) => {
    if (conflictScanDone) return;
    conflictScanDone = true;
    const sources: string[] = [];
    try {
      const packages = (pi.getSettings() as { packages?: unknown }).packages;
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
      for (const t of pi.getAllTools()) sources.push(t.sourceInfo.path, t.sourceInfo.source);
      for (const c of pi.getCommands()) sources.push(c.sourceInfo.path, c.sourceInfo.source);
    } catch {
      // Older Pi without these: the settings scan still runs.
    }
    for (const name of compactionRewriters(sources.filter((s) => typeof s === "string"))) {
      warnOnce(ctx, `pi-context: the installed extension ${name} is known to rewrite compaction and may undo pi-context's context windows; consider removing it.`);
    }
  };

  pi.on("session_start", async (_event, ctx) => {
    active = true;
    transition();
    scanConflicts(ctx);
    policy(ctx);
    if (enabled) await ensureHead(ctx);
  });

  pi.on("session_tree", async (_event, ctx) => {
    transition();
    if (enabled) await ensureHead(ctx);
  });

  pi.on("session_shutdown", () => {
    active = false;
    transition();
  });

  pi.on("model_select", () => {
    clearStaged();
  });

  // -- Pi's own compaction and /tree summaries -------------------------------------------------

  pi.on("session_before_compact", (event, ctx) => {
    if (!active) return undefined;
    if (event.signal.aborted) return { cancel: true };
    if (enabled || hasMarker(branchOf(ctx))) {
      if (event.reason === "manual") notify(ctx, NOTICES.compactDisabled, "warning");
      return { cancel: true };
    }
    return undefined;
  });

  pi.on("session_before_tree", (event, ctx) => {
    if (!active || !event.preparation.userWantsSummary) return undefined;
    let target: SessionEntry[] = [];
    try {
      target = ctx.sessionManager.getBranch(event.preparation.targetId);
    } catch {
      target = [];
    }
    if (!hasMarker(branchOf(ctx)) && !hasMarker(target)) return undefined;
    notify(ctx, NOTICES.treeSummarySkipped, "info");
    return { summary: { summary: "" } };
  });

  // -- budget ----------------------------------------------------------------------------------

  pi.on("context", (event, ctx) => {
    if (!active || !enabled) return undefined;
    const left = remaining(ctx);
    if (left === null) return undefined;
    const p = policy(ctx);
    const branch = branchOf(ctx);
    const windowId = currentWindowId(branch, sessionIdOf(ctx));
    const warningDone = windowHasMessage(branch, WARNING_TYPE) || stagedWarning?.windowId === windowId;
    if (p.automatic && left <= p.reserve + WARNING_RUNWAY_TOKENS) {
      // Re-armed on every eligible request, so an aborted attempt is retried.
      if (!request || request.windowId !== windowId) request = { kind: "closeout", windowId };
      if (warningDone) return undefined;
      stagedReminder = undefined;
      stagedWarning = { windowId, customType: WARNING_TYPE, content: WARNING };
      warningNotices.add(windowId);
      const transient = { role: "custom", customType: WARNING_TYPE, content: WARNING, display: false, timestamp: Date.now() };
      return { messages: [...event.messages, transient as unknown as AgentMessage] };
    }
    if (warningDone) return undefined;
    if (windowHasMessage(branch, GUIDANCE_TYPE) || stagedReminder?.windowId === windowId) return undefined;
    if (left <= p.reserve + p.margin) {
      stagedReminder = { windowId, customType: GUIDANCE_TYPE, content: reminderText(Math.max(0, left - p.reserve)) };
    }
    return undefined;
  });

  /** The staged budget messages of this window, as drafts (consumed). */
  const takeStaged = (windowId: string): SessionBoundaryDraft[] => {
    const drafts = [stagedReminder, stagedWarning]
      .filter((s): s is Staged => s !== undefined && s.windowId === windowId)
      .map((s) => ({ type: "custom_message" as const, customType: s.customType, content: s.content, display: false }));
    clearStaged();
    return drafts;
  };

  // -- the boundaries --------------------------------------------------------------------------

  const isAborted = (outcome: string, message: AgentMessage | undefined, ctx: ExtensionContext) =>
    outcome === "aborted" || (message as { stopReason?: string } | undefined)?.stopReason === "aborted" || ctx.signal?.aborted === true;

  const isOverflowLike = (message: AgentMessage, ctx: ExtensionContext): boolean => {
    if ((message as { role: string }).role !== "assistant") return false;
    const m = message as Parameters<typeof isContextOverflow>[0];
    return isContextOverflow(m, ctx.model?.contextWindow) || (ctx.model !== undefined && isRecoverableLength(m, ctx.model.maxTokens));
  };

  pi.on("turn_end", async (event, ctx) => {
    if (!active) return undefined;
    const windowId = windowOf(ctx);
    const aborted = isAborted(event.outcome, event.message, ctx);
    const failed = event.outcome === "error";
    const staged = takeStaged(windowId);
    const entries = enabled && !aborted && !failed ? [...event.entries, ...staged] : event.entries;
    const result = () => (entries !== event.entries ? { entries } : undefined);
    if (aborted) {
      clearTransient();
      return undefined;
    }
    const queued = event.context.pendingMessages.length > 0 || ctx.hasPendingMessages();
    if (isOverflowLike(event.message, ctx)) {
      const spent = overflow === "spent" || overflow === "pending-spent";
      const p = policy(ctx);
      const pending = enabled && p.automatic && !queued;
      overflow = pending ? (spent ? "pending-spent" : "pending") : spent ? "spent" : "idle";
      if (request?.kind !== "manual") request = undefined;
      return result();
    }
    if (failed || !enabled) {
      request = undefined;
      if (!enabled) overflow = "idle";
      return result();
    }
    overflow = "idle";
    const r = request && request.windowId === windowId ? request : undefined;
    if (request && request.windowId !== windowId) request = undefined;
    if (r && (r.kind === "tool" || r.kind === "manual")) {
      return commit(ctx, entries, r.kind === "tool" ? "wipe_memory" : "manual");
    }
    const p = policy(ctx);
    if (hardReserveDue(ctx, p) && automaticResetAllowed(ctx, p)) return commit(ctx, entries, "hard_reserve");
    return result();
  });

  pi.on("agent_before_settle", async (event, ctx) => {
    if (!active) return undefined;
    if (event.outcome === "aborted" || ctx.signal?.aborted === true) {
      clearTransient();
      return undefined;
    }
    const windowId = windowOf(ctx);
    const queued = event.context.pendingMessages.length > 0 || ctx.hasPendingMessages();
    if (overflow === "pending" || overflow === "pending-spent") {
      if (queued) return undefined;
      const spent = overflow === "pending-spent";
      overflow = "spent";
      const p = policy(ctx);
      if (spent || !enabled || !p.automatic || !automaticResetAllowed(ctx, p)) return undefined;
      return commit(ctx, event.entries, "overflow");
    }
    const r = request && request.windowId === windowId ? request : undefined;
    if (event.outcome === "error" || !enabled || !r) {
      request = undefined;
      return undefined;
    }
    if (queued) return undefined;
    // A wipe requested after the run's last turn ended (a /wipe-memory that arrived late) still
    // commits, before the run settles.
    if (r.kind === "manual" || r.kind === "tool") return commit(ctx, event.entries, r.kind === "tool" ? "wipe_memory" : "manual");
    const p = policy(ctx);
    if (!p.automatic || !automaticResetAllowed(ctx, p)) {
      request = undefined;
      return undefined;
    }
    return commit(ctx, event.entries, "budget");
  });

  pi.on("turn_start", (_event, ctx) => {
    if (!active) return;
    notifyCleared(ctx);
    notifyWarnings(ctx, false);
  });

  pi.on("agent_settled", (_event, ctx) => {
    if (!active) return;
    notifyCleared(ctx);
    notifyWarnings(ctx, true);
    clearTransient();
  });

  pi.on("agent_end", (_event, ctx) => {
    if (ctx.signal?.aborted) clearTransient();
  });

  // -- every request: the window head is ours, or nothing goes out ---------------------------

  pi.on("context_with_system", (event, ctx) => {
    if (!active) return undefined;
    const branch = branchOf(ctx);
    const sessionId = sessionIdOf(ctx);
    const m = lastMarkerIndex(branch);
    if (m < 0) {
      const projected = projectRootWindow(event.messages, rootWindowId(sessionId));
      return projected ? { messages: projected } : undefined;
    }
    const head = inspectHead(branch, m);
    const problem = headProblem(head);
    if (!problem) {
      const reordered = systemFirst(event.messages);
      return reordered ? { messages: reordered } : undefined;
    }
    const system = getCurrentSystemMessage(event.messages as Parameters<typeof getCurrentSystemMessage>[0]) as AgentMessage | undefined;
    // A /wipe-memory in a broken window gets its one turn with nothing but the system prompt and
    // the request, so a proper boundary can replace the broken one.
    if (request?.kind === "manual" && request.windowId === head.windowId) {
      const ask = event.messages.filter((msg) => (msg as { customType?: string }).customType === MANUAL_WIPE_TYPE).slice(-1);
      const tail = ask.length > 0 ? ask : [{ role: "custom", customType: MANUAL_WIPE_TYPE, content: MANUAL_WIPE, display: false, timestamp: Date.now() } as unknown as AgentMessage];
      return { messages: system ? [system, ...tail] : tail };
    }
    ctx.abort();
    if (!headReported.has(head.windowId)) {
      headReported.add(head.windowId);
      notify(
        ctx,
        `pi-context: context window ${head.windowId} failed its boundary check (${problem}); the request was cancelled so erased history cannot reach the model. ` +
          "Another extension may rewrite compaction or boundary entries. Use /wipe-memory to start another window.",
        "error",
      );
    }
    return { messages: system ? [system] : [] };
  });
}
