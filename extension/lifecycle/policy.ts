/**
 * Whether and how the lifecycle acts: the `/pi-context on|off` switch, and the policy read from
 * Pi's settings (the compaction reserve, automatic compaction, the reminder margin).
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

import type { Facts } from "../facts.ts";
import { warnOnce } from "./notify.ts";
import { type LifecycleState, transition } from "./state.ts";

/** Pi's default `compaction.reserveTokens`. (The default reminder margin is a fact: facts.ts.) */
export const DEFAULT_RESERVE_TOKENS = 16_384;

export interface Policy {
  /** `compaction.reserveTokens` (the active model's override wins). */
  reserve: number;
  /** `compaction.enabled`: gates the warning, the close-out, the hard reserve and overflow recovery. */
  automatic: boolean;
  /** `pi-context.reminderMarginTokens` (section and key are facts). */
  margin: number;
  /** `pi-context.autoRecall` (default true): a recall hint with each user prompt (hint.ts). */
  autoRecall: boolean;
  warnings: string[];
}

const isPositiveInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
const isNonNegativeInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * The policy from Pi's effective settings (`pi.getSettings()`: the global and the trusted project
 * settings files merged per key, project winning, exactly as Pi reads them). Invalid values fall
 * back to the defaults with one warning each; nothing throws.
 */
export function resolvePolicy(facts: Facts, settings: unknown, model: { provider: string; id: string } | undefined): Policy {
  const warnings: string[] = [];
  const s = (settings ?? {}) as Record<string, unknown>;
  const compaction = (typeof s.compaction === "object" && s.compaction !== null ? s.compaction : {}) as Record<string, unknown>;
  const automatic = compaction.enabled === undefined ? true : compaction.enabled !== false;

  let reserve = DEFAULT_RESERVE_TOKENS;
  const ordinary = compaction.reserveTokens;
  if (ordinary !== undefined) {
    if (isNonNegativeInteger(ordinary)) reserve = ordinary;
    else warnings.push("pi-context: compaction.reserveTokens must be a non-negative integer; using the default reserve.");
  }
  const overrides = compaction.modelOverrides as Record<string, { reserveTokens?: unknown }> | undefined;
  const override = model && typeof overrides === "object" && overrides !== null ? overrides[`${model.provider}/${model.id}`] : undefined;
  if (override && typeof override === "object" && override.reserveTokens !== undefined) {
    if (isNonNegativeInteger(override.reserveTokens)) reserve = override.reserveTokens;
    else warnings.push(`pi-context: compaction.modelOverrides["${model!.provider}/${model!.id}"].reserveTokens must be a non-negative integer; ignoring it.`);
  }

  let margin = facts.default_reminder_margin_tokens;
  let autoRecall = true;
  const section = facts.settings_section;
  const ours = s[section];
  if (ours !== undefined) {
    if (typeof ours !== "object" || ours === null || Array.isArray(ours)) {
      warnings.push(`pi-context: the ${section} settings must be an object; using the defaults.`);
    } else {
      const o = ours as Record<string, unknown>;
      const marginValue = o[facts.reminder_margin_setting];
      if (marginValue !== undefined) {
        if (isPositiveInteger(marginValue)) margin = marginValue;
        else warnings.push(`pi-context: ${section}.${facts.reminder_margin_setting} must be a positive integer; using the default reminder margin.`);
      }
      const recall = o[facts.auto_recall_setting];
      if (recall !== undefined) {
        if (typeof recall === "boolean") autoRecall = recall;
        else warnings.push(`pi-context: ${section}.${facts.auto_recall_setting} must be true or false; recall hints stay on.`);
      }
      const dreamer = o[facts.dreamer_setting];
      if (dreamer !== undefined && !(typeof dreamer === "string" && dreamer.trim() !== "")) {
        warnings.push(`pi-context: ${section}.${facts.dreamer_setting} must be a non-empty string; ignoring it.`);
      }
    }
  }
  return { reserve, automatic, margin, autoRecall, warnings };
}

function modelKey(ctx: ExtensionContext): { provider: string; id: string } | undefined {
  return ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined;
}

/** The policy now (settings are read at every use), each invalid value warned about once. */
export function policyOf(s: LifecycleState, ctx: ExtensionContext): Policy {
  let settings: unknown;
  try {
    settings = s.pi.getSettings();
  } catch (e) {
    warnOnce(s, ctx, `pi-context: could not read settings; using defaults (${String(e)}).`);
  }
  const p = resolvePolicy(s.facts, settings, modelKey(ctx));
  for (const w of p.warnings) warnOnce(s, ctx, w);
  return p;
}

/** `/pi-context on`: turning it on from off is a transition. */
export function switchOn(s: LifecycleState): void {
  if (s.enabled) return;
  s.enabled = true;
  transition(s);
}

/** `/pi-context off`: stops everything new; pending requests and staged messages are dropped. */
export function switchOff(s: LifecycleState): void {
  s.enabled = false;
  transition(s);
}
