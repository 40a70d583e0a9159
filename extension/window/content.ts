/**
 * What the current window holds: our messages, conversation of its own, the person's last
 * request, the last notes save.
 */

import type { Facts } from "../facts.ts";
import { type Entry, isOurMessageEntry, type Markers } from "./markers.ts";

/** The readers of the current window's content for one set of facts. */
export function contentOf(facts: Facts, markers: Markers) {
  const { windowSlice } = markers;

  /** Whether the current window already holds a custom message of this type (persisted). */
  const windowHasMessage = (branch: readonly Entry[], customType: string): boolean =>
    windowSlice(branch).some((e) => isOurMessageEntry(e, customType));

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

  return { windowHasMessage, windowHasConversation, lastRequest, lastNotesWrite };
}
