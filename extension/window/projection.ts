/**
 * What a provider is sent: the tokens of a fresh window's head, the projection of a root window,
 * the system message first.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { estimateTokens } from "@earendil-works/pi-coding-agent";

import type { Facts } from "../facts.ts";
import { detailsWindowId } from "./markers.ts";

/** The projection readers for one set of facts. */
export function projectionOf(facts: Facts) {
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

  return { headTokens, projectRootWindow };
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
