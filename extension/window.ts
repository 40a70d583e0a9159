/**
 * Context windows on a session branch: pure functions over Pi's session entries (no hooks, no I/O).
 *
 * A window boundary is a `custom` entry of the marker type (`pi-context/reset-marker`) with a
 * non-empty `data.windowId` (docs/lifecycle.md, "Windows and their states"). A committed reset
 * is four consecutive entries: a retain-none checkpoint (`compaction`, empty summary,
 * `firstKeptEntryId` = its own id), the marker, a hidden boot custom message whose
 * `details.windowId` names the window, and a hidden continuation. The root window has no marker;
 * its boot is written at session start.
 *
 * The custom types and the window id format are facts shared with the binary (facts.ts):
 * `windowsOf(facts)` gives the readers for one set of facts. Each part answers one question:
 *
 * - window/markers.ts    where windows begin: markers, metadata, retain-none checkpoints, window ids
 * - window/head.ts       a window's head: its boot and continuation, what blocks it, whether it is confirmed
 * - window/content.ts    what the current window holds: conversation, the last request, the last notes save
 * - window/projection.ts what a provider is sent: head tokens, a root window's projection, system first
 */

import type { Facts } from "./facts.ts";
import { contentOf } from "./window/content.ts";
import { headConfirmed, headsOf } from "./window/head.ts";
import { markersOf } from "./window/markers.ts";
import { estimateMessages, projectionOf, systemFirst } from "./window/projection.ts";

export type { WindowHead } from "./window/head.ts";
export { headConfirmed } from "./window/head.ts";
export { isRetainNone } from "./window/markers.ts";
export { estimateMessages, systemFirst } from "./window/projection.ts";

/** The window readers for one set of facts (custom types, window id format). */
export type Windows = ReturnType<typeof windowsOf>;

export function windowsOf(facts: Facts) {
  const markers = markersOf(facts);
  return {
    ...markers,
    ...headsOf(facts, markers),
    ...contentOf(facts, markers),
    ...projectionOf(facts),
    headConfirmed,
    estimateMessages,
    systemFirst,
  };
}
