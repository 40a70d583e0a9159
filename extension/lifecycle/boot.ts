/**
 * The boot block at every window head: rendering it with `pi-context boot` (or a minimal one
 * when the binary cannot), and the root boot at session start. Reset boots travel inside the
 * boundary drafts (reset.ts); an interrupted reset gets its boot from repair.ts.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

import { clip, failure, run } from "../binary.ts";
import { callContext } from "../context.ts";
import type { Facts } from "../facts.ts";
import { notify, warnOnce } from "./notify.ts";
import { branchOf, type LifecycleState, sessionIdOf } from "./state.ts";
import { notesIndexIncomplete, notesIndexUnavailable } from "./texts.ts";

const BOOT_TIMEOUT_MS = 5_000;

export interface BootRender {
  text: string;
  homesUnavailable: string[];
  /** Why `pi-context boot` could not render it (the text is then the fallback boot). */
  fallback?: string;
}

/**
 * A minimal boot, used only when `pi-context boot` cannot run (for example, a missing binary):
 * the window identity header the binary writes (its tags and labels are facts), then why the
 * notes index is missing.
 */
export function fallbackBoot(
  facts: Facts,
  ids: { first: string; current: string; previous: string | null },
  reason: string,
  binaryTools: boolean,
): string {
  return [
    facts.boot_header_open,
    `${facts.first_window_label}: ${ids.first}`,
    `${facts.current_window_label}: ${ids.current}`,
    ...(ids.previous ? [`${facts.previous_window_label}: ${ids.previous}`] : []),
    facts.boot_header_close,
    "",
    notesIndexUnavailable(reason, binaryTools),
  ].join("\n");
}

/** Renders the boot of a window with `pi-context boot --json`; never fails (falls back). */
export async function renderBoot(
  s: LifecycleState,
  ctx: ExtensionContext,
  ids: { current: string; previous: string | null },
  reason: string,
  signal?: AbortSignal,
): Promise<BootRender> {
  const sessionId = sessionIdOf(ctx);
  const first = s.win.rootWindowId(sessionId);
  // The session as tools see it (its file or entries, the leaf, cwd, identity): the binary reads
  // the branch's checkpoint from it.
  const live = callContext(ctx, s.env);
  const input = {
    reason,
    session_id: sessionId,
    window_id: ids.current,
    previous_window_id: ids.previous,
    snapshot_time: new Date().toISOString(),
    cwd: live.cwd,
    agent: live.agent,
    model: live.model,
    notes_home: live.notes_home,
    session_dir: live.session_dir,
    session_file: live.session_file,
    leaf_id: live.leaf_id,
    ...(live.entries ? { entries: live.entries } : {}),
  };
  const result = await run(s.bin, ["boot", "--json"], JSON.stringify(input), signal, BOOT_TIMEOUT_MS);
  if (signal?.aborted) throw new Error("aborted");
  let why = failure(s.bin, "`pi-context boot`", result);
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
  return { text: fallbackBoot(s.facts, { first, ...ids }, why.split("\n")[0]!, s.binaryTools), homesUnavailable: [], fallback: why };
}

/** Tells the person when a boot fell back or its notes index is incomplete. */
export function reportBoot(s: LifecycleState, ctx: ExtensionContext, boot: BootRender): void {
  if (boot.fallback) warnOnce(s, ctx, `pi-context: could not render the boot block; using a minimal one (${clip(boot.fallback, 300)}).`);
  if (boot.homesUnavailable.length > 0) {
    notify(ctx, notesIndexIncomplete(boot.homesUnavailable), "warning");
  }
}

/** The `details` of a boot message. */
export function bootDetails(windowId: string, reason: string, previous: string | null) {
  return {
    windowId,
    reason,
    ...(previous ? { previousWindowId: previous } : {}),
  };
}

/**
 * The root boot: a root window (no marker on the branch) without its boot gets one, hidden and
 * without a model turn, never twice (the branch is checked again after the boot is rendered).
 */
export async function ensureRootBoot(s: LifecycleState, ctx: ExtensionContext): Promise<void> {
  const gen = s.generation;
  const sessionId = sessionIdOf(ctx);
  const rootId = s.win.rootWindowId(sessionId);
  const present = () => branchOf(ctx).some((e) => s.win.isBootEntry(e, rootId));
  if (s.win.hasMarker(branchOf(ctx)) || present()) return;
  const boot = await renderBoot(s, ctx, { current: rootId, previous: null }, "session_start");
  const still = s.active && gen === s.generation && sessionIdOf(ctx) === sessionId && s.enabled;
  if (!still || s.win.hasMarker(branchOf(ctx)) || present()) return;
  reportBoot(s, ctx, boot);
  sendHidden(s, s.facts.boot_type, boot.text, bootDetails(rootId, "session_start", null));
}

/** Appends a hidden custom message without a model turn. */
export function sendHidden(s: LifecycleState, customType: string, content: string, details?: unknown): void {
  s.pi.sendMessage({ customType, content, display: false, ...(details === undefined ? {} : { details }) }, { triggerTurn: false });
}
