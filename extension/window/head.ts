/**
 * A window's head: the boot and the continuation after its marker, what blocks it, and whether
 * it is confirmed.
 */

import type { Facts } from "../facts.ts";
import { detailsWindowId, type Entry, isOurMessageEntry, type Marker, type Markers } from "./markers.ts";

/** What follows a marker, up to its continuation (see `inspectHead`). */
export interface WindowHead {
  markerIndex: number;
  windowId: string;
  checkpointBacked: boolean;
  boot?: Entry & { type: "custom_message" };
  continuation?: Entry & { type: "custom_message" };
  /** Why the head cannot be completed by appending the missing pieces; undefined when it can. */
  blocked?: string;
  /** A compaction after the checkpoint on this window (another extension rewrote the head). */
  laterCompaction: boolean;
  /** A later `context_edit` hides or replaces the boot or the continuation. */
  editedHead: boolean;
}

/** The head readers for one set of facts. */
export function headsOf(facts: Facts, markers: Markers) {
  const { isMarker, isMetadata, isCheckpointBacked } = markers;

  const isBootEntry = (entry: Entry, windowId?: string): boolean =>
    entry.type === "custom_message" &&
    entry.customType === facts.boot_type &&
    (windowId === undefined || detailsWindowId(entry.details) === windowId);

  const describe = (entry: Entry): string => {
    if (entry.type === "message") return `a ${entry.message.role} message`;
    if (entry.type === "custom_message") return `a ${entry.customType} message`;
    if (isMarker(entry)) return "another reset marker";
    return `a ${entry.type} entry`;
  };

  /**
   * Reads the head of the window opened by the marker at `index`: its boot and continuation, in
   * that order, with only metadata between them. Anything else first (a conversation message, a
   * foreign custom message, a compaction, a branch summary, another marker, a continuation before
   * the boot) blocks the head: it can neither be confirmed nor repaired.
   */
  const inspectHead = (branch: readonly Entry[], index: number): WindowHead => {
    const marker = branch[index] as Marker;
    const head: WindowHead = {
      markerIndex: index,
      windowId: marker.data.windowId,
      checkpointBacked: isCheckpointBacked(branch, index),
      laterCompaction: branch.slice(index + 1).some((e) => e.type === "compaction"),
      editedHead: false,
    };
    for (let i = index + 1; i < branch.length && !head.continuation; i++) {
      const entry = branch[i]!;
      if (isMetadata(entry)) continue;
      if (!head.boot && isBootEntry(entry, head.windowId)) {
        head.boot = entry as WindowHead["boot"];
        continue;
      }
      if (head.boot && isOurMessageEntry(entry, facts.continuation_type)) {
        head.continuation = entry as WindowHead["continuation"];
        continue;
      }
      head.blocked = describe(entry);
      break;
    }
    const ids = new Set([head.boot?.id, head.continuation?.id].filter((id): id is string => id !== undefined));
    head.editedHead = branch.slice(index + 1).some((e) => e.type === "context_edit" && ids.has(e.targetId));
    return head;
  };

  return { isBootEntry, inspectHead };
}

/** A head is confirmed when it is checkpoint-backed and has its hidden boot and continuation. */
export function headConfirmed(head: WindowHead): boolean {
  return (
    head.checkpointBacked &&
    !head.laterCompaction &&
    !head.editedHead &&
    head.boot !== undefined &&
    head.boot.display === false &&
    head.continuation !== undefined &&
    head.continuation.display === false
  );
}
