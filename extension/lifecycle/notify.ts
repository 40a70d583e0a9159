/** How the lifecycle talks to the person: UI notices (none without a UI), each distinct warning once. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

import type { LifecycleState } from "./state.ts";

export type Level = "info" | "warning" | "error";

export function notify(ctx: ExtensionContext, message: string, level: Level = "info"): void {
  if (ctx.hasUI) ctx.ui.notify(message, level);
}

/** Shows a warning unless the same text was shown before in this process. */
export function warnOnce(s: LifecycleState, ctx: ExtensionContext, message: string): void {
  if (s.shownWarnings.has(message)) return;
  s.shownWarnings.add(message);
  notify(ctx, message, "warning");
}
