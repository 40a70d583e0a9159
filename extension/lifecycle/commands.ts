/** The person's commands: `/wipe-memory`, `/checkpoint` and `/pi-context [on|off]` (bare: the status line). */

import type { ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";

import { ensureHead } from "./repair.ts";
import { remaining } from "./budget.ts";
import { checkpointStatus, requestCheckpoint } from "./freshness.ts";
import { hintStatus } from "./hint.ts";
import { notify } from "./notify.ts";
import { policyOf, switchOff, switchOn } from "./policy.ts";
import { requestManualWipe } from "./reset.ts";
import { branchOf, type LifecycleState, windowOf } from "./state.ts";
import { NOTICES } from "./texts.ts";

export function registerCommands(s: LifecycleState): void {
  s.pi.registerCommand("wipe-memory", {
    description: "Start a fresh context window after the next completed turn (notes and history stay)",
    handler: async (_args: string, ctx: ExtensionCommandContext) => requestManualWipe(s, ctx),
  });

  s.pi.registerCommand("checkpoint", {
    description: "Ask the agent to write its checkpoint (the task-state handoff) now, or after its current run",
    handler: async (_args: string, ctx: ExtensionCommandContext) => requestCheckpoint(s, ctx),
  });

  s.pi.registerCommand("pi-context", {
    description: "Turn automatic context windows on or off; without an argument, show the status",
    getArgumentCompletions: (prefix: string) => {
      const items = ["on", "off"].filter((v) => v.startsWith(prefix.trim())).map((v) => ({ value: v, label: v }));
      return items.length > 0 ? items : null;
    },
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      const arg = args.trim();
      if (arg === "on") {
        switchOn(s);
        await ensureHead(s, ctx);
      } else if (arg === "off") {
        switchOff(s);
      } else if (arg !== "") {
        notify(ctx, NOTICES.usage, "error");
        return;
      }
      notify(ctx, status(s, ctx), "info");
    },
  });
}

/** `pi-context: on · window <id> · <n> tokens before the reset line · last recall hint: … · binary <which> · checkpoint generation <g>, saved <age>, clean|dirty (<why>)`. */
function status(s: LifecycleState, ctx: ExtensionContext): string {
  const windowId = windowOf(s, ctx);
  const parts = [`pi-context: ${s.enabled ? "on" : "off"}`, `window ${windowId}`];
  if (!s.enabled && s.win.hasMarker(branchOf(ctx))) parts.push("its reset marker stays in force");
  if (s.enabled) {
    const left = remaining(s, ctx);
    if (left !== null) parts.push(`${Math.max(0, left - policyOf(s, ctx).reserve)} tokens before the reset line`);
  }
  parts.push(hintStatus(s, ctx));
  parts.push(`binary ${s.binary}`);
  parts.push(checkpointStatus(s, ctx));
  return parts.join(" · ");
}
