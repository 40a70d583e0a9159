/**
 * The facts the extension shares with the binary: the custom types of the entries pi-context
 * writes (and the tool whose entries are checkpoints), how window ids are built, the boot's
 * identity header, pi-context's settings keys, and which of the binary's tools save notes. The binary is their source: `pi-context tool --schemas` prints them as `facts`
 * (docs/protocol.md), and the extension uses the binary's values.
 *
 * The lifecycle must also run without the binary (degraded), so the extension keeps its own copy,
 * `FALLBACK_FACTS`, used only where the binary cannot be asked. test/facts.test.mjs pins that copy
 * to the binary's values, so a change on one side fails CI until the other follows.
 */

export interface Facts {
  /** Custom type of the `custom` entry `{windowId}` that opens a window. */
  marker_type: string;
  /** Custom types of the hidden messages pi-context writes. */
  boot_type: string;
  continuation_type: string;
  /** The hidden recall hint given with a user prompt (never indexed). */
  hint_type: string;
  guidance_type: string;
  warning_type: string;
  manual_wipe_type: string;
  /** The `custom` entry a checkpoint is, the hidden message `/checkpoint` sends, the tool that writes one. */
  checkpoint_type: string;
  checkpoint_request_type: string;
  checkpoint_tool: string;
  /** Window ids: prefix, the session id's first `window_id_session_chars` characters, then `root_window_suffix` for the root. */
  window_id_prefix: string;
  window_id_session_chars: number;
  root_window_suffix: string;
  /** The boot's identity block: its tags and the `<label>: <window id>` lines. */
  boot_header_open: string;
  boot_header_close: string;
  first_window_label: string;
  current_window_label: string;
  previous_window_label: string;
  /** pi-context's object in Pi's settings, its keys, and the default reminder margin. */
  settings_section: string;
  reminder_margin_setting: string;
  dreamer_setting: string;
  /** `false` turns off the recall hint at each prompt. */
  auto_recall_setting: string;
  default_reminder_margin_tokens: number;
  /** The binary's tools whose failed result is a failed notes save (wipe_memory refuses once after one). */
  notes_save_tools: readonly string[];
}

export const FALLBACK_FACTS: Readonly<Facts> = Object.freeze({
  marker_type: "pi-context/reset-marker",
  boot_type: "pi-context/boot",
  continuation_type: "pi-context/continuation",
  hint_type: "pi-context/hint",
  guidance_type: "pi-context/guidance",
  warning_type: "pi-context/warning",
  manual_wipe_type: "pi-context/manual-wipe",
  checkpoint_type: "pi-context/checkpoint",
  checkpoint_request_type: "pi-context/checkpoint-request",
  checkpoint_tool: "checkpoint",
  window_id_prefix: "pcw:",
  window_id_session_chars: 8,
  root_window_suffix: ":root",
  boot_header_open: "<context_window>",
  boot_header_close: "</context_window>",
  first_window_label: "First context window id",
  current_window_label: "Current context window id",
  previous_window_label: "Previous context window id",
  settings_section: "pi-context",
  reminder_margin_setting: "reminderMarginTokens",
  dreamer_setting: "dreamer",
  auto_recall_setting: "autoRecall",
  default_reminder_margin_tokens: 24_576,
  notes_save_tools: Object.freeze(["notes_write", "notes_edit"]),
});

/** A usable value of the same kind as the fallback: a non-empty string, a positive integer, or a non-empty list of non-empty strings. */
function sameKind(value: unknown, fallback: string | number | readonly string[]): boolean {
  if (typeof fallback === "string") return typeof value === "string" && value !== "";
  if (Array.isArray(fallback)) {
    return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string" && v !== "");
  }
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

/**
 * The binary's `facts` laid over the fallback key by key: a key that is missing or of the wrong
 * kind keeps the fallback value. `warning` says which (undefined when every key came from the
 * binary); unknown keys are ignored.
 */
export function readFacts(printed: unknown): { facts: Facts; warning?: string } {
  if (typeof printed !== "object" || printed === null || Array.isArray(printed)) {
    return {
      facts: { ...FALLBACK_FACTS },
      warning: "pi-context: `pi-context tool --schemas` printed no facts (an older binary?); using the extension's own values.",
    };
  }
  const given = printed as Record<string, unknown>;
  const facts: Record<string, unknown> = { ...FALLBACK_FACTS };
  const kept: string[] = [];
  for (const [key, fallback] of Object.entries(FALLBACK_FACTS)) {
    if (sameKind(given[key], fallback)) facts[key] = given[key];
    else kept.push(key);
  }
  return {
    facts: facts as unknown as Facts,
    ...(kept.length > 0
      ? { warning: `pi-context: the binary's facts lack or mistype ${kept.join(", ")}; using the extension's own values for them.` }
      : {}),
  };
}
