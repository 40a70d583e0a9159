/**
 * What a window head needs when a branch is opened (session start, `/tree`, `/pi-context on`):
 * the root boot, or the rest of a reset that a crash interrupted.
 *
 * A reset is four entries that Pi writes one by one (checkpoint, marker, boot, continuation), so
 * a crash can leave any prefix of them. When nothing but metadata follows the last piece written,
 * the missing pieces are appended, hidden, without a model turn and without a notice, and the
 * window is the one the reset meant to open. Once real work followed the broken reset (a
 * message, a tool result, a foreign custom message, a compaction, another marker), nothing is
 * repaired: a bare marker then fails closed (guards.ts), a lone checkpoint leaves the window
 * without a boot.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

import { bootDetails, ensureRootBoot, renderBoot, reportBoot, sendHidden } from "./boot.ts";
import { branchOf, type LifecycleState, sessionIdOf } from "./state.ts";
import { CONTINUATION } from "./texts.ts";

export async function ensureHead(s: LifecycleState, ctx: ExtensionContext): Promise<void> {
  const branch = branchOf(ctx);
  if (s.win.unfinishedCheckpoint(branch) >= 0) return completeCheckpoint(s, ctx);
  const m = s.win.lastMarkerIndex(branch);
  if (m >= 0) return completeMarker(s, ctx, m);
  return ensureRootBoot(s, ctx);
}

/** True while the lifecycle, the session and the switch are what they were when `s` was read. */
function stillCurrent(s: LifecycleState, ctx: ExtensionContext): () => boolean {
  const gen = s.generation;
  const sessionId = sessionIdOf(ctx);
  return () => s.active && gen === s.generation && sessionIdOf(ctx) === sessionId && s.enabled;
}

/**
 * A checkpoint without its marker (the crash came right after the first entry): the checkpoint
 * already took the old conversation out of the model's view, so the reset is finished with a
 * new window (marker, boot, continuation) rather than undone.
 */
async function completeCheckpoint(s: LifecycleState, ctx: ExtensionContext): Promise<void> {
  const still = stillCurrent(s, ctx);
  const sessionId = sessionIdOf(ctx);
  const branch = branchOf(ctx);
  const checkpointId = branch[s.win.unfinishedCheckpoint(branch)]!.id;
  const previous = s.win.currentWindowId(branch, sessionId);
  const windowId = s.win.mintWindowId(sessionId, branch, s.random);
  const boot = await renderBoot(s, ctx, { current: windowId, previous }, "repair");
  if (!still()) return;
  const now = branchOf(ctx);
  const at = s.win.unfinishedCheckpoint(now);
  if (at < 0 || now[at]!.id !== checkpointId) return;
  reportBoot(s, ctx, boot);
  s.pi.appendEntry(s.facts.marker_type, { windowId });
  sendHidden(s, s.facts.boot_type, boot.text, bootDetails(windowId, "repair", previous));
  sendHidden(s, s.facts.continuation_type, CONTINUATION);
}

/**
 * A marker followed only by metadata, and by its boot at most: the missing boot and/or
 * continuation. An existing boot is never written twice (one hidden by a later context edit
 * still counts).
 */
async function completeMarker(s: LifecycleState, ctx: ExtensionContext, m: number): Promise<void> {
  const still = stillCurrent(s, ctx);
  const sessionId = sessionIdOf(ctx);
  const branch = branchOf(ctx);
  const head = s.win.inspectHead(branch, m);
  if (head.blocked || head.continuation) return;
  const ids = s.win.markerIds(branch);
  const previous = ids.length >= 2 ? ids[ids.length - 2]! : s.win.rootWindowId(sessionId);
  let bootText: string | undefined;
  if (!head.boot) {
    const boot = await renderBoot(s, ctx, { current: head.windowId, previous }, "repair");
    if (!still()) return;
    const again = s.win.inspectHead(branchOf(ctx), s.win.lastMarkerIndex(branchOf(ctx)));
    if (again.windowId !== head.windowId || again.blocked || again.boot || again.continuation) return;
    reportBoot(s, ctx, boot);
    bootText = boot.text;
  }
  if (bootText !== undefined) sendHidden(s, s.facts.boot_type, bootText, bootDetails(head.windowId, "repair", previous));
  sendHidden(s, s.facts.continuation_type, CONTINUATION);
}
