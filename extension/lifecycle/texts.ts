/**
 * The fixed texts of the lifecycle: what the model reads in its hidden messages, and the notices
 * the person sees. Notices that carry live values are written where they are shown.
 */

import type { Freshness } from "../checkpoint.ts";

export const CONTINUATION = `<context_window_continuation>
Your memory was just wiped: this is a fresh context window, and nothing from the previous one is in your context. Nothing is lost: your checkpoint (at the top of the boot, when there is one) says where you were, your notes are indexed above, and history_search, history_list and history_read reach everything said and done before (history_windows lists the windows). Recover what you need, then carry on with the task.
</context_window_continuation>`;

/** The person's last request as an overflow continuation repeats it (overflow.ts decides the cut). */
export interface CarriedRequest {
  /** The text repeated: the whole request, or its first `shown` characters. */
  text: string;
  /** Its length in characters. */
  total: number;
  /** Fewer characters than `total` when it was cut. */
  shown: number;
  images: number;
}

/**
 * The continuation of a window opened because the provider refused a request as too long: the
 * fresh window retries the turn, so it repeats the person's last request (or its start, and
 * where the rest is).
 */
export function overflowContinuation(previousWindowId: string, request: CarriedRequest | undefined): string {
  const head = `<context_window_continuation>
Your memory was just wiped: the last request in the previous window (${previousWindowId}) was too long for the model's context window, so this fresh window retries it. Nothing from the previous window is in your context, and there was no chance to save notes before it ended. Nothing is lost: your notes are indexed above, and history_search, history_list and history_read reach everything said and done before (history_windows lists the windows).`;
  const tail = "</context_window_continuation>";
  if (!request) {
    return `${head}

Find in history what you were working on at the end of that window, then carry on with it.
${tail}`;
  }
  const notes: string[] = [];
  if (request.shown < request.total) {
    notes.push(
      `its first ${request.shown} of ${request.total} characters; history_list with window_id ${previousWindowId} and roles ["user"] shows it last, and history_read reads it whole`,
    );
  }
  if (request.images > 0) notes.push(`${request.images === 1 ? "its image is" : `its ${request.images} images are`} not repeated here`);
  const about = notes.length > 0 ? ` (${notes.join("; ")})` : "";
  return `${head}

The person's last message, repeated from the previous window${about}:
<request>
${request.text}
</request>

Find in history what you had already done for it, then carry on with it.
${tail}`;
}

export function reminderText(tokensLeft: number): string {
  return `<context_window_guidance>
About ${tokensLeft} tokens are left in this context window before it is wiped. Start closing out: keep your checkpoint current (the checkpoint tool: the task state and the one next action), write durable knowledge down with notes_write or notes_edit, crumple notes that went stale, and keep each MAP.md honest. Call wipe_memory yourself when you reach a good stopping point.
</context_window_guidance>`;
}

export const WARNING = `<context_window_guidance>
Final warning: this context window is almost full and will be wiped soon.
1. Call checkpoint with the current task state (its fields say what goes where): the next window starts from it.
2. Write durable knowledge into your notes (the skills you need, the notes and docs to read first); fix or crumple stale notes and keep every MAP.md truthful.
3. Record the seqs of the history items that matter.
4. Then call wipe_memory.
History is an archive, not a rescue: what you do not write down now is hard to find later.
</context_window_guidance>`;

export const MANUAL_WIPE = `<context_window_guidance>
The person asked for a fresh context window: this one is wiped at the end of this turn. In this turn, call checkpoint with the current task state (the next window starts from it), write durable knowledge into your notes (the notes and docs to read first), fix or crumple stale notes, and record the seqs of the history items that matter.
</context_window_guidance>`;

/** The last line of the minimal boot (when `pi-context boot` cannot run). */
export function notesIndexUnavailable(reason: string, binaryTools: boolean): string {
  return binaryTools
    ? `The notes index is unavailable (${reason}). notes_list can retry; history_windows, history_search and history_read reach earlier windows.`
    : `The notes index is unavailable (${reason}). The notes and history tools are missing from this session too: tell the person, who can install the pi-context binary and restart pi.`;
}

/** The messages of `wipe_memory`'s one-time refusals. */
export const REFUSALS = {
  emptyWindow: "This window has no conversation yet: there is nothing to wipe. Call wipe_memory again if you still want a fresh window.",
  notesSaveFailed:
    "Your last notes save in this window failed, so your state may not be saved. Retry the save (notes_write or notes_edit), then call wipe_memory; call it again now to reset anyway.",
  checkpointStale: (f: Freshness) =>
    `${staleness(f)}, and the next window ${f.latest ? "starts from it" : "would start without one"}. Call checkpoint with the current task state, then call wipe_memory; call it again now to reset anyway.`,
};

/** `Your checkpoint is out of date (1 file write or edit since generation 2)`, or `You have no checkpoint yet (… so far)`. */
export function staleness(f: Freshness): string {
  return f.latest
    ? `Your checkpoint is out of date (${f.why} since generation ${f.latest.generation})`
    : `You have no checkpoint yet (${f.why} so far)`;
}

/** What the budget reminder or warning adds while the checkpoint is dirty (once per episode). */
export function checkpointAsk(f: Freshness): string {
  return `${staleness(f)}: call checkpoint with the current task state first, so the next window starts from where you are.`;
}

/** A budget message with the checkpoint request inside its guidance block. */
export function withCheckpointAsk(text: string, ask: string | undefined): string {
  if (!ask) return text;
  const close = "</context_window_guidance>";
  return text.endsWith(close) ? `${text.slice(0, -close.length)}${ask}\n${close}` : `${text}\n${ask}`;
}

/** The hidden request `/checkpoint` sends. */
export const CHECKPOINT_REQUEST = `<requested_checkpoint>
The person asked for a checkpoint. Call checkpoint now with the current task state (its fields say what goes where), then carry on where you were.
</requested_checkpoint>`;

/** `30s ago`, `5m ago`, `2h ago`, `3d ago` (the binary's units) for an age in milliseconds. */
export function relativeAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds === 0) return "just now";
  const [n, unit] =
    seconds >= 86_400 ? [Math.floor(seconds / 86_400), "d"] : seconds >= 3_600 ? [Math.floor(seconds / 3_600), "h"] : seconds >= 60 ? [Math.floor(seconds / 60), "m"] : [seconds, "s"];
  return `${n}${unit} ago`;
}

export function notesIndexIncomplete(homes: readonly string[]): string {
  return `pi-context: notes index incomplete for ${homes.join(", ")}; notes_list can retry after recovery.`;
}

/** The one notice of a reset, shown once its head is confirmed. */
export function clearedNotice(windowId: string, overflowed: boolean): string {
  return overflowed
    ? `pi-context: the request was too long for the model's context window; memory cleared · ${windowId}, retrying it in the fresh window.`
    : `pi-context: memory cleared · ${windowId}`;
}

export const NOTICES = {
  compactDisabled: "pi-context: /compact is disabled while context windows are active; use /wipe-memory to start a fresh window.",
  treeSummarySkipped: "pi-context: skipped branch summary across a reset window; navigation continues without erased history.",
  warning: "pi-context: Context almost full; close out the current memory window.",
  wipeNeedsOn: "pi-context: /wipe-memory requires /pi-context on.",
  usage: "Usage: /pi-context [on|off]",
  offError: "pi-context is off (/pi-context on to enable)",
};
