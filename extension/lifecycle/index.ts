/**
 * The context-window lifecycle (docs/lifecycle.md): what only Pi's hooks can do.
 * This file wires the parts to Pi; each part answers one question:
 *
 * - state.ts    what the lifecycle remembers between hooks, and when it forgets it
 * - policy.ts   whether it acts (`/pi-context on|off`) and the settings it follows
 * - boot.ts     the boot block at every window head: rendering it, the root boot
 * - repair.ts   the head a branch needs when it is opened: the root boot, or an interrupted reset finished
 * - budget.ts   tokens left: the reminder, the warning, the hard reserve, `get_context_remaining`
 * - reset.ts    what asks for a reset, when it commits, and the boundary drafts
 * - overflow.ts a request too long for the context window: the reset that retries it, bounded
 * - guards.ts   fail-closed head checks, compaction and `/tree` guards, loop safety, conflicts
 * - freshness.ts whether the checkpoint is dirty, and its nudges (budget ask, wipe refusal, `/checkpoint`)
 * - hint.ts     recall pushed at the prompt: at most one hint per user prompt, within a deadline
 * - commands.ts `/wipe-memory`, `/checkpoint` and `/pi-context`
 * - texts.ts    the fixed texts the model and the person read; notify.ts how notices are shown
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

import { ensureHead } from "./repair.ts";
import { notifyWarnings, onContext, registerContextRemaining } from "./budget.ts";
import { registerCommands } from "./commands.ts";
import { registerHint } from "./hint.ts";
import { failClosed, holdOffCompaction, notifyCleared, scanConflicts, skipTreeSummary } from "./guards.ts";
import { policyOf } from "./policy.ts";
import { onAgentBeforeSettle, onTurnEnd, registerWipeMemory, trackNotesSave } from "./reset.ts";
import { clearStaged, clearTransient, createState, type LifecycleOptions, transition } from "./state.ts";

export type { LifecycleOptions, ResetReason } from "./state.ts";

export function registerLifecycle(pi: ExtensionAPI, options: LifecycleOptions): void {
  const s = createState(pi, options);

  registerWipeMemory(s);
  registerContextRemaining(s);
  pi.on("tool_execution_end", (event, ctx) => trackNotesSave(s, event, ctx));
  registerCommands(s);
  registerHint(s);

  // -- session transitions ---------------------------------------------------------------------

  pi.on("session_start", async (_event, ctx) => {
    s.active = true;
    transition(s);
    scanConflicts(s, ctx);
    policyOf(s, ctx);
    if (s.enabled) await ensureHead(s, ctx);
  });

  pi.on("session_tree", async (_event, ctx) => {
    transition(s);
    if (s.enabled) await ensureHead(s, ctx);
  });

  pi.on("session_shutdown", () => {
    s.active = false;
    transition(s);
  });

  pi.on("model_select", () => {
    clearStaged(s);
  });

  // -- Pi's own compaction and /tree summaries ---------------------------------------------------

  pi.on("session_before_compact", (event, ctx) => holdOffCompaction(s, event, ctx));
  pi.on("session_before_tree", (event, ctx) => skipTreeSummary(s, event, ctx));

  // -- the budget and the boundaries -------------------------------------------------------------

  pi.on("context", (event, ctx) => onContext(s, event, ctx));
  pi.on("turn_end", (event, ctx) => onTurnEnd(s, event, ctx));
  pi.on("agent_before_settle", (event, ctx) => onAgentBeforeSettle(s, event, ctx));

  pi.on("turn_start", (_event, ctx) => {
    if (!s.active) return;
    notifyCleared(s, ctx);
    notifyWarnings(s, ctx, false);
  });

  pi.on("agent_settled", (_event, ctx) => {
    if (!s.active) return;
    notifyCleared(s, ctx);
    notifyWarnings(s, ctx, true);
    clearTransient(s);
  });

  pi.on("agent_end", (_event, ctx) => {
    if (ctx.signal?.aborted) clearTransient(s);
  });

  // -- every request: the window head is ours, or nothing goes out -------------------------------

  pi.on("context_with_system", (event, ctx) => failClosed(s, event, ctx));
}
