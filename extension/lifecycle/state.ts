/**
 * What the lifecycle remembers between hooks: one state object per extension instance, and the
 * transitions that drop what must not outlive a turn, a window or a session.
 *
 * Only transient, in-memory facts live here. Everything durable (markers, boots, the reminder and
 * the warning of a window) is read back from the session branch.
 */

import { randomUUID } from "node:crypto";

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

import type { Facts } from "../facts.ts";
import { type Windows, windowsOf } from "../window.ts";

export interface LifecycleOptions {
  bin: string;
  /** The facts shared with the binary (its own, or the extension's fallback copy). */
  facts: Facts;
  /** Whether the binary's tools are registered (false: it could not describe them at load). */
  binaryTools: boolean;
  /** Whether the binary answers `sessions_hint` (its `--schemas` lists it; an older one does not). */
  hints?: boolean;
  /** Which binary that is and where it came from, for `/pi-context` (locate.mjs's label). */
  binary?: string;
  env?: NodeJS.ProcessEnv;
  /** Random source for window ids (tests). */
  random?: () => string;
}

export type RequestKind = "tool" | "manual" | "closeout";

/** A reset asked for (by `wipe_memory`, `/wipe-memory` or the close-out), bound to its window. */
export interface Request {
  kind: RequestKind;
  windowId: string;
}

/** A budget message (reminder or warning) waiting for the next `turn_end` to persist it. */
export interface Staged {
  windowId: string;
  customType: string;
  content: string;
  /** `{checkpointAsked: true}` when it asks for a checkpoint (freshness.ts reads it back). */
  details?: Record<string, unknown>;
}

/** Why a reset was committed; recorded in the boot's details and passed to `pi-context boot`. */
export type ResetReason = "wipe_memory" | "manual" | "budget" | "hard_reserve" | "overflow";

export interface LifecycleState {
  readonly pi: ExtensionAPI;
  /** The binary that renders boots. */
  readonly bin: string;
  readonly facts: Facts;
  /** The window readers for those facts. */
  readonly win: Windows;
  /** Whether the binary's tools are registered: without them the fallback boot says so. */
  readonly binaryTools: boolean;
  /** Whether the binary answers `sessions_hint` (hint.ts). */
  readonly hints: boolean;
  /** Which binary runs, for `/pi-context`. */
  readonly binary: string;
  /** Read at every boot (`PI_NOTES_AGENT`, `PI_NOTES_HOME`). */
  readonly env: NodeJS.ProcessEnv;
  /** Random source for window ids. */
  readonly random: () => string;

  /** `/pi-context on|off`; every load starts on. */
  enabled: boolean;
  /** False after `session_shutdown` until the next `session_start`: the hooks stand still. */
  active: boolean;
  /** Incremented on every transition; an async reset built across one is discarded. */
  generation: number;
  /** The pending reset, if any (transient). */
  request: Request | undefined;
  /**
   * The window an overflow reset just opened after a failed request: Pi ends a run after a failed
   * turn whatever `turn_end` asks, so `agent_before_settle` starts the retry there (transient).
   */
  retry: string | undefined;
  stagedReminder: Staged | undefined;
  stagedWarning: Staged | undefined;

  /** Windows whose warning was staged: notify once when it is durable. */
  readonly warningNotices: Set<string>;
  /**
   * Boundaries this process committed: window id → the exact boot and continuation it proposed,
   * and the notice shown once its head is confirmed.
   */
  readonly proposed: Map<string, { boot: string; continuation: string; notice: string }>;
  /** Windows whose "memory cleared" notice was shown. */
  readonly clearedNotified: Set<string>;
  /** Windows whose broken head was reported. */
  readonly headReported: Set<string>;
  /** Windows whose loop guard was reported. */
  readonly loopReported: Set<string>;
  /** `wipe_memory` refusals already given, per window: "empty" and "notes:<toolCallId>". */
  readonly refusals: Map<string, Set<string>>;
  /** Checkpoint episodes whose stale-checkpoint refusal of `wipe_memory` was given (freshness.ts). */
  readonly checkpointRefusals: Set<string>;
  /** The last notes save seen in this process, per window. */
  readonly notesSaves: Map<string, { id: string; failed: boolean }>;
  /** Distinct warnings already shown (settings, conflicts, incomplete notes index). */
  readonly shownWarnings: Set<string>;
  conflictScanDone: boolean;
  /** The last recall hint given in this process (`/pi-context` status shows it). */
  lastHint: LastHint | undefined;
  /**
   * Per window, the sessions its prompts' answers gave as `lead` (ranked first by a rare word,
   * no hint), sent back with the next prompts (hint.ts). Kept in this process only: after a
   * restart a window starts without leads, which costs at most a hint.
   */
  readonly hintLeads: Map<string, string[]>;
}

/** A recall hint given with a prompt (hint.ts). */
export interface LastHint {
  sessionId: string;
  shortId: string;
  seq: number;
  /** When it was given (ISO 8601). */
  at: string;
}

export function createState(pi: ExtensionAPI, options: LifecycleOptions): LifecycleState {
  return {
    pi,
    bin: options.bin,
    facts: options.facts,
    win: windowsOf(options.facts),
    binaryTools: options.binaryTools,
    hints: options.hints ?? false,
    binary: options.binary ?? options.bin,
    env: options.env ?? process.env,
    random: options.random ?? (() => randomUUID().replaceAll("-", "")),
    enabled: true,
    active: true,
    generation: 0,
    request: undefined,
    retry: undefined,
    stagedReminder: undefined,
    stagedWarning: undefined,
    warningNotices: new Set(),
    proposed: new Map(),
    clearedNotified: new Set(),
    headReported: new Set(),
    loopReported: new Set(),
    refusals: new Map(),
    notesSaves: new Map(),
    checkpointRefusals: new Set(),
    shownWarnings: new Set(),
    conflictScanDone: false,
    lastHint: undefined,
    hintLeads: new Map(),
  };
}

// -- transitions ---------------------------------------------------------------------------------

export function clearStaged(s: LifecycleState): void {
  s.stagedReminder = undefined;
  s.stagedWarning = undefined;
}

/** Drops the pending request, a pending overflow retry and the staged budget messages. */
export function clearTransient(s: LifecycleState): void {
  s.request = undefined;
  s.retry = undefined;
  clearStaged(s);
}

/** A session, tree or switch change: everything transient goes, and resets in flight are void. */
export function transition(s: LifecycleState): void {
  s.generation++;
  clearTransient(s);
}

// -- reading the live session --------------------------------------------------------------------

export const branchOf = (ctx: ExtensionContext) => ctx.sessionManager.getBranch();
export const sessionIdOf = (ctx: ExtensionContext) => ctx.sessionManager.getSessionId();
export const windowOf = (s: LifecycleState, ctx: ExtensionContext) => s.win.currentWindowId(branchOf(ctx), sessionIdOf(ctx));
