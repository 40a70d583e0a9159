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
 * `windowsOf(facts)` gives the readers for one set of facts.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { estimateTokens, type SessionEntry } from "@earendil-works/pi-coding-agent";

import type { Facts } from "./facts.ts";

/** Entry types that never reach the model: they may sit anywhere inside a window head. */
const METADATA_TYPES = new Set(["model_change", "thinking_level_change", "label", "session_info", "usage"]);

type Entry = SessionEntry;
type Marker = Entry & { type: "custom"; data: { windowId: string } };

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

/** The window readers for one set of facts (custom types, window id format). */
export type Windows = ReturnType<typeof windowsOf>;

export function windowsOf(facts: Facts) {
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

  const isBootEntry = (entry: Entry, windowId?: string): boolean =>
    entry.type === "custom_message" &&
    entry.customType === facts.boot_type &&
    (windowId === undefined || detailsWindowId(entry.details) === windowId);

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

  /** Whether the current window already holds a custom message of this type (persisted). */
  const windowHasMessage = (branch: readonly Entry[], customType: string): boolean =>
    windowSlice(branch).some((e) => isOurMessageEntry(e, customType));

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

  /**
   * Whether the current window holds conversation of its own: a user message, a tool result or a
   * bash execution after its head. A window without any (just reset, or the model only talked)
   * is fresh: automatic resets never close it, and `wipe_memory` refuses once there.
   */
  const windowHasConversation = (branch: readonly Entry[]): boolean =>
    windowSlice(branch).some(
      (e) =>
        e.type === "message" &&
        (e.message.role === "user" || e.message.role === "toolResult" || e.message.role === "bashExecution"),
    );

  /**
   * The person's last message in the current window (what an overflow reset retries): its text
   * and how many images it carried. Undefined when the window has none (it was opened by a reset
   * and the model has been working on its own since).
   */
  const lastRequest = (branch: readonly Entry[]): { text: string; images: number } | undefined => {
    const slice = windowSlice(branch);
    for (let i = slice.length - 1; i >= 0; i--) {
      const e = slice[i]!;
      if (e.type !== "message" || e.message.role !== "user") continue;
      const content = e.message.content;
      if (typeof content === "string") return { text: content, images: 0 };
      const text = content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      return { text, images: content.filter((b) => b.type === "image").length };
    }
    return undefined;
  };

  /** The last notes save (a tool of `facts.notes_save_tools`) result in the current window, if any. */
  const lastNotesWrite = (branch: readonly Entry[]): { id: string; failed: boolean } | undefined => {
    const slice = windowSlice(branch);
    for (let i = slice.length - 1; i >= 0; i--) {
      const e = slice[i]!;
      if (e.type !== "message" || e.message.role !== "toolResult") continue;
      if (facts.notes_save_tools.includes(e.message.toolName)) return { id: e.message.toolCallId, failed: e.message.isError === true };
    }
    return undefined;
  };

  /** Estimated tokens of the messages a fresh window starts with: system prompt, summary, boot, continuation. */
  const headTokens = (messages: readonly AgentMessage[]): number => {
    let tokens = 0;
    for (const m of messages) {
      const role = (m as { role: string }).role;
      const customType = (m as { customType?: string }).customType;
      if (role === "system" || role === "compactionSummary" || (role === "custom" && (customType === facts.boot_type || customType === facts.continuation_type))) {
        tokens += estimateTokens(m);
      }
    }
    return tokens;
  };

  const isBootMessage = (m: AgentMessage, windowId?: string): boolean => {
    const c = m as { role: string; customType?: string; details?: unknown };
    return c.role === "custom" && c.customType === facts.boot_type && (windowId === undefined || detailsWindowId(c.details) === windowId);
  };

  /**
   * The provider projection of a root window (no marker): the system message first (a root boot
   * written at session start precedes Pi's first system message in the session), and only the boot
   * of this session's root window, at the place of the first boot (a fork or clone copies the source
   * session's root boot). Returns undefined when nothing changes.
   */
  const projectRootWindow = (messages: AgentMessage[], rootId: string): AgentMessage[] | undefined => {
    let out = messages;
    const boots = out.filter((m) => isBootMessage(m));
    if (boots.length > 0) {
      const ours = out.filter((m) => isBootMessage(m, rootId)).at(-1);
      if (ours && (boots.length > 1 || boots[0] !== ours)) {
        const first = out.findIndex((m) => isBootMessage(m));
        const rest = out.filter((m) => !isBootMessage(m));
        out = [...rest.slice(0, first), ours, ...rest.slice(first)];
      } else if (!ours) {
        // Only copied boots of another session: keep them out; ours is written at session start.
        out = out.filter((m) => !isBootMessage(m));
      }
    }
    out = systemFirst(out) ?? out;
    return out === messages ? undefined : out;
  };

  return {
    rootWindowId,
    isMarker,
    isMetadata,
    isBootEntry,
    lastMarkerIndex,
    hasMarker,
    currentWindowId,
    markerIds,
    mintWindowId,
    windowSlice,
    windowHasMessage,
    inspectHead,
    windowHasConversation,
    lastNotesWrite,
    headTokens,
    projectRootWindow,
    isCheckpointBacked,
    unfinishedCheckpoint,
    lastRequest,
    headConfirmed,
    estimateMessages,
    systemFirst,
  };
}

// -- independent of the facts --------------------------------------------------------------------

function detailsWindowId(details: unknown): string | undefined {
  const id = (details as { windowId?: unknown } | undefined)?.windowId;
  return typeof id === "string" ? id : undefined;
}

function isOurMessageEntry(entry: Entry, customType: string): boolean {
  return entry.type === "custom_message" && entry.customType === customType;
}

/**
 * A retain-none checkpoint: a compaction with an empty summary whose `firstKeptEntryId` is its
 * own id (Pi's projection keeps nothing before it).
 */
export function isRetainNone(entry: Entry | undefined): boolean {
  return entry?.type === "compaction" && entry.summary === "" && entry.firstKeptEntryId === entry.id;
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

/** Estimated tokens of a projection (used where Pi reports none, right after a checkpoint). */
export function estimateMessages(messages: readonly AgentMessage[]): number {
  let tokens = 0;
  for (const m of messages) tokens += estimateTokens(m);
  return tokens;
}

/**
 * The messages with the first system message moved to the front, or undefined when it already
 * leads (or there is none). Pi persists its system message at the first request, after anything
 * pi-context wrote before it (the root boot, or a repaired head); providers read the prompt and
 * the tool declarations from the leading system message.
 */
export function systemFirst(messages: AgentMessage[]): AgentMessage[] | undefined {
  if (messages.length === 0 || (messages[0] as { role: string }).role === "system") return undefined;
  const s = messages.findIndex((m) => (m as { role: string }).role === "system");
  return s > 0 ? [messages[s]!, ...messages.slice(0, s), ...messages.slice(s + 1)] : undefined;
}
