// pi-context dream write jail. Written out by `pi-context dream` from its embedded copy and
// loaded with `pi -e`; not meant to be installed by hand.
//
// Every `write` and `edit` call of the dreamer is checked before it runs: the target must lie
// inside the notes home (after resolving symlinks), under one of the writable homes of this run,
// and outside `.git/`, `.dream.lock*`, `dreams/` and `pi/session/`. Hard-linked files are refused.
// The run's home and writable prefixes come from PI_CONTEXT_DREAM_HOME and
// PI_CONTEXT_DREAM_WRITABLE (a JSON array such as ["human/", "project/", "agents/me/"]).
//
// Type-checked by scripts/test-extension (extension/tsconfig.jail.json); its type imports are
// erased when Pi loads it, so it needs nothing installed beside it.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const GUARDED_TOOLS = new Set(["write", "edit"]);

function realHome(): string {
  const home = process.env.PI_CONTEXT_DREAM_HOME;
  if (!home) throw new Error("write jail: PI_CONTEXT_DREAM_HOME is not set");
  return fs.realpathSync(home);
}

function writablePrefixes(): string[] {
  try {
    const parsed = JSON.parse(process.env.PI_CONTEXT_DREAM_WRITABLE ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((p) => typeof p === "string" && p.length > 0) : [];
  } catch {
    return [];
  }
}

/** Whether `p` names a directory entry, a dangling symlink included (`existsSync` follows links). */
function entryExists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * The real path of `target`, resolving the deepest entry that exists. A dangling symlink on the
 * way makes `realpathSync` throw, so the call is refused: writing through it would create its
 * target, wherever that is.
 */
function realPathOf(target: string): string {
  let existing = target;
  const rest: string[] = [];
  while (!entryExists(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  return path.join(fs.realpathSync(existing), ...rest);
}

/** Whether `rel` lies inside `home` (`a/b/`; a `*` segment matches any one segment). */
function isInside(rel: string, home: string): boolean {
  const homeParts = home.split("/").filter((part) => part.length > 0);
  const relParts = rel.split("/");
  return relParts.length > homeParts.length && homeParts.every((part, i) => part === "*" || part === relParts[i]);
}

/**
 * The path as Pi's write and edit tools read it (`resolveToCwd`): unicode spaces become spaces,
 * one leading `@` goes, `~` is the user's home, `file://` URLs are paths.
 */
function asPiReadsIt(requested: string): string {
  let p = requested.replace(/[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, " ");
  if (p.startsWith("@")) p = p.slice(1);
  if (p === "~") return os.homedir();
  if (p.startsWith("~/")) return path.join(os.homedir(), p.slice(2));
  if (/^file:\/\//.test(p)) return fileURLToPath(p);
  return p;
}

/** Why writing `requested` is refused, or null when it is allowed. */
export function refusal(requested: string, home = realHome(), writable = writablePrefixes()): string | null {
  // As for notes addresses: no NUL, no other control character, no backslash.
  if (/[\u0000-\u001f\u007f\\]/.test(requested)) {
    return `write jail: ${JSON.stringify(requested)} contains a control character or a backslash`;
  }
  const target = realPathOf(path.resolve(home, asPiReadsIt(requested)));
  const relative = path.relative(home, target);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) {
    return `write jail: ${requested} is outside the notes home ${home}`;
  }
  const rel = relative.split(path.sep).join("/");
  if (rel === ".git" || rel.startsWith(".git/") || rel.startsWith(".dream.lock") || rel.startsWith("dreams/") || rel.startsWith("pi/")) {
    return `write jail: ${rel} is read-only to the dreamer (git metadata, the lock, dream reports and session notes are never written)`;
  }
  if (!writable.some((home) => isInside(rel, home))) {
    return `write jail: ${rel} is not in a writable home of this dream (writable: ${writable.join(", ") || "none"})`;
  }
  try {
    const stat = fs.lstatSync(target);
    if (stat.isFile() && stat.nlink > 1) return `write jail: ${rel} has hard links and is not allowed`;
  } catch {
    // A new file: nothing more to check.
  }
  return null;
}

/** The note file `requested` names, relative to the notes home (after the checks of `refusal`). */
function homeRelative(requested: string, home: string): string {
  const target = realPathOf(path.resolve(home, asPiReadsIt(requested)));
  return path.relative(home, target).split(path.sep).join("/");
}

function failed(text: string) {
  return { content: [{ type: "text" as const, text }], details: {}, isError: true };
}

/**
 * `notes_move`: moves a note through `pi-context notes move --files`, so the move is atomic,
 * takes the notes' locks like every live agent's write, and keeps the note's metadata. Both the
 * source and the target must pass the same checks as a write: moving a note away changes its
 * home as much as writing it.
 */
function registerMove(pi: ExtensionAPI) {
  pi.registerTool({
    name: "notes_move",
    label: "Move a note",
    description:
      "Move a note file to another path below the notes home, in one atomic step, keeping its metadata (creation time, origin, " +
      "access counts); its update time becomes now. Use it to rename a note or file it in the right home instead of copying and " +
      "crumpling. Both paths must be in your writable homes. A crumpled note at the target is replaced; a live one is refused.",
    parameters: {
      type: "object",
      properties: {
        from: { type: "string", description: "The note file now, relative to the notes home (e.g. human/old.md)" },
        to: { type: "string", description: "Its new path, relative to the notes home (e.g. human/topic/new.md)" },
      },
      required: ["from", "to"],
      additionalProperties: false,
    } as unknown as TSchema,
    async execute(_toolCallId, input) {
      const params = input as { from?: unknown; to?: unknown } | undefined;
      const home = realHome();
      const files: string[] = [];
      for (const requested of [params?.from, params?.to]) {
        if (typeof requested !== "string" || requested.length === 0) return failed("write jail: the call names no path");
        let reason: string | null;
        try {
          reason = refusal(requested, home);
        } catch (error) {
          reason = `write jail: cannot check ${requested}: ${(error as Error).message}`;
        }
        if (reason) return failed(reason);
        files.push(homeRelative(requested, home));
      }
      const bin = process.env.PI_CONTEXT_BIN;
      if (!bin) return failed("notes_move is unavailable: PI_CONTEXT_BIN is not set");
      const args = ["notes", "move", "--files", "--json", "--notes-home", home];
      if (process.env.PI_NOTES_AGENT) args.push("--agent", process.env.PI_NOTES_AGENT);
      if (process.env.PI_CONTEXT_MODEL) args.push("--model", process.env.PI_CONTEXT_MODEL);
      const run = spawnSync(bin, [...args, "--", files[0], files[1]], { encoding: "utf8", timeout: 60_000 });
      if (run.status === 0) return { content: [{ type: "text", text: run.stdout.trim() }], details: {} };
      return failed((run.stderr || run.stdout || String(run.error ?? "pi-context failed")).trim());
    },
  });
}

export default function (pi: ExtensionAPI) {
  registerMove(pi);
  pi.on("tool_call", async (event) => {
    if (!GUARDED_TOOLS.has(event.toolName)) return undefined;
    const requested = (event.input as { path?: unknown } | undefined)?.path;
    if (typeof requested !== "string" || requested.length === 0) {
      return { block: true, reason: "write jail: the call names no path" };
    }
    let reason: string | null;
    try {
      reason = refusal(requested);
    } catch (error) {
      reason = `write jail: cannot check ${requested}: ${(error as Error).message}`;
    }
    return reason ? { block: true, reason } : undefined;
  });
}
