/**
 * Where windows begin: markers, the metadata that may sit between entries, retain-none
 * checkpoints, and window ids (the root window's, and fresh ones for a reset).
 */

import type { SessionEntry } from "@earendil-works/pi-coding-agent";

import type { Facts } from "../facts.ts";

/** Entry types that never reach the model: they may sit anywhere inside a window head. */
const METADATA_TYPES = new Set(["model_change", "thinking_level_change", "label", "session_info", "usage"]);

export type Entry = SessionEntry;
export type Marker = Entry & { type: "custom"; data: { windowId: string } };

/** The marker readers for one set of facts. */
export type Markers = ReturnType<typeof markersOf>;

export function markersOf(facts: Facts) {
  const rootWindowId = (sessionId: string): string =>
    `${facts.window_id_prefix}${sessionId.slice(0, facts.window_id_session_chars)}${facts.root_window_suffix}`;

  const isMarker = (entry: Entry | undefined): entry is Marker => {
    if (entry?.type !== "custom" || entry.customType !== facts.marker_type) return false;
    const id = (entry.data as { windowId?: unknown } | undefined)?.windowId;
    return typeof id === "string" && id !== "";
  };

  /** A metadata entry, or a `custom` entry other than a marker (extension state, not model input). */
  const isMetadata = (entry: Entry): boolean => METADATA_TYPES.has(entry.type) || (entry.type === "custom" && !isMarker(entry));

  /**
   * The marker at `index` is checkpoint-backed when the last entry before it on the branch other
   * than metadata is a retain-none checkpoint. Metadata between the two (a model change written
   * when a session is reopened, before an interrupted reset is repaired) reaches no model.
   */
  const isCheckpointBacked = (branch: readonly Entry[], index: number): boolean => {
    if (!isMarker(branch[index])) return false;
    for (let i = index - 1; i >= 0; i--) {
      const entry = branch[i]!;
      if (!isMetadata(entry)) return isRetainNone(entry);
    }
    return false;
  };

  /**
   * A reset interrupted right after its first entry: the index of a retain-none checkpoint that
   * no marker follows, with nothing but metadata after it; -1 when the branch does not end so.
   */
  const unfinishedCheckpoint = (branch: readonly Entry[]): number => {
    for (let i = branch.length - 1; i >= 0; i--) {
      const entry = branch[i]!;
      if (!isMetadata(entry)) return isRetainNone(entry) ? i : -1;
    }
    return -1;
  };

  /** Index of the last marker on the branch, or -1. */
  const lastMarkerIndex = (branch: readonly Entry[]): number => {
    for (let i = branch.length - 1; i >= 0; i--) if (isMarker(branch[i])) return i;
    return -1;
  };

  const hasMarker = (branch: readonly Entry[]): boolean => lastMarkerIndex(branch) >= 0;

  /** The current window: the last marker's id, else the root window. */
  const currentWindowId = (branch: readonly Entry[], sessionId: string): string => {
    const i = lastMarkerIndex(branch);
    return i >= 0 ? (branch[i] as Marker).data.windowId : rootWindowId(sessionId);
  };

  /** Every marker id on the branch, oldest first. */
  const markerIds = (branch: readonly Entry[]): string[] => branch.filter(isMarker).map((m) => m.data.windowId);

  /** A fresh reset window id (`<prefix><session chars>:<8 random>`), unique among the markers on the branch. */
  const mintWindowId = (sessionId: string, branch: readonly Entry[], random: () => string): string => {
    const taken = new Set(markerIds(branch));
    taken.add(rootWindowId(sessionId));
    for (;;) {
      const id = `${facts.window_id_prefix}${sessionId.slice(0, facts.window_id_session_chars)}:${random().slice(0, 8)}`;
      if (!taken.has(id)) return id;
    }
  };

  /** The entries of the current window: everything after the last marker (or the whole branch). */
  const windowSlice = (branch: readonly Entry[]): readonly Entry[] => branch.slice(lastMarkerIndex(branch) + 1);

  return {
    rootWindowId,
    isMarker,
    isMetadata,
    isCheckpointBacked,
    unfinishedCheckpoint,
    lastMarkerIndex,
    hasMarker,
    currentWindowId,
    markerIds,
    mintWindowId,
    windowSlice,
  };
}

/**
 * A retain-none checkpoint: a compaction with an empty summary whose `firstKeptEntryId` is its
 * own id (Pi's projection keeps nothing before it).
 */
export function isRetainNone(entry: Entry | undefined): boolean {
  return entry?.type === "compaction" && entry.summary === "" && entry.firstKeptEntryId === entry.id;
}

/** A custom message of ours of this type (a boot, a continuation, a budget message). */
export function isOurMessageEntry(entry: Entry, customType: string): boolean {
  return entry.type === "custom_message" && entry.customType === customType;
}

/** The window id a boot's `details` names, if any. */
export function detailsWindowId(details: unknown): string | undefined {
  const id = (details as { windowId?: unknown } | undefined)?.windowId;
  return typeof id === "string" ? id : undefined;
}
