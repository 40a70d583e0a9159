// pi-context's plugin for OpenCode, written by `pi-context setup opencode` (docs/agents.md):
// it runs `pi-context hook opencode <event>` and puts what that answers into OpenCode's
// context: the boot into the system prompt of a person's own sessions (asked once per session;
// not in a subagent's session, nor in OpenCode's requests for a title or a summary), the recall
// hint into a prompt's message (a synthetic text part), the compaction's request into the
// compaction's context. It fails open: an error, a timeout or no answer changes nothing.
// A setup rewrites this file; `pi-context setup opencode --remove` deletes it.
import { spawn } from "node:child_process";

const BIN = "__PI_CONTEXT_BIN__";
const TIMEOUT_MS = 3000;

/** The `additionalContext` the hook answers for `event`, or null. */
function ask(event, input) {
  return new Promise((resolve) => {
    let out = "";
    let settled = false;
    let timer;
    const done = (text) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(text);
    };
    try {
      const child = spawn(BIN, ["hook", "opencode", event], { stdio: ["pipe", "pipe", "ignore"] });
      timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {}
        done(null);
      }, TIMEOUT_MS);
      child.on("error", () => done(null));
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        out += chunk;
      });
      child.on("close", () => {
        try {
          const text = JSON.parse(out).additionalContext;
          done(typeof text === "string" && text ? text : null);
        } catch {
          done(null);
        }
      });
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(input));
    } catch {
      done(null);
    }
  });
}

/** A part id after every part of the message, as OpenCode makes them: `prt_`, 12 hex digits
 * of the time in ms times 4096 plus a counter, 14 random letters and digits. */
function partId(parts) {
  let next = BigInt(Date.now()) * 4096n;
  for (const part of parts) {
    const hex = typeof part.id === "string" ? part.id.slice(4, 16) : "";
    if (/^[0-9a-f]{12}$/.test(hex) && BigInt("0x" + hex) >= next) next = BigInt("0x" + hex) + 1n;
  }
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let random = "";
  for (let i = 0; i < 14; i += 1) random += alphabet[Math.floor(Math.random() * 62)];
  return "prt_" + next.toString(16).padStart(12, "0").slice(-12) + random;
}

/** Whether a request's system prompt is one of a conversation's turns: OpenCode builds those
 * with its environment block (`<env>`, the working directory); its own requests for a title, a
 * summary or a compaction carry only their agent's prompt. */
function isConversationTurn(system) {
  return system.some((text) => typeof text === "string" && text.includes("<env>"));
}

export const PiContext = async ({ client, directory }) => {
  const boots = new Map();
  // Sessions known to be a task's child (a subagent's session), or a person's own.
  const parents = new Map();
  const noteSession = (info) => {
    if (info && typeof info.id === "string") parents.set(info.id, info.parentID || null);
  };
  /** Whether `session` is a person's own (no parent session): from OpenCode's events, else
   * asked of OpenCode's server once. */
  const isPrimary = async (session) => {
    if (!parents.has(session)) {
      try {
        const found = await client.session.get({ path: { id: session } });
        noteSession(found && found.data);
      } catch {}
    }
    return !parents.get(session);
  };
  return {
    event: async ({ event }) => {
      try {
        if (event && (event.type === "session.created" || event.type === "session.updated")) {
          noteSession(event.properties && event.properties.info);
        }
      } catch {}
    },
    "experimental.chat.system.transform": async (input, output) => {
      try {
        const session = input && input.sessionID;
        if (!session || !Array.isArray(output.system)) return;
        if (!isConversationTurn(output.system) || !(await isPrimary(session))) return;
        if (!boots.has(session)) {
          boots.set(session, ask("session-start", { session_id: session, cwd: directory, source: "startup" }));
        }
        const boot = await boots.get(session);
        if (!boot) return;
        if (output.system.length > 0) output.system[0] = `${output.system[0]}\n\n${boot}`;
        else output.system.push(boot);
      } catch {}
    },
    "chat.message": async (input, output) => {
      try {
        const parts = output.parts;
        const prompt = parts
          .filter((part) => part.type === "text" && !part.synthetic && typeof part.text === "string")
          .map((part) => part.text)
          .join("\n");
        if (!input.sessionID || !prompt.trim()) return;
        const hint = await ask("prompt", { session_id: input.sessionID, cwd: directory, prompt });
        if (!hint) return;
        parts.push({
          id: partId(parts),
          sessionID: input.sessionID,
          messageID: output.message.id,
          type: "text",
          synthetic: true,
          text: hint,
        });
      } catch {}
    },
    "experimental.session.compacting": async (input, output) => {
      try {
        if (!input.sessionID || !Array.isArray(output.context)) return;
        const request = await ask("pre-compact", { session_id: input.sessionID, cwd: directory });
        if (request) output.context.push(request);
      } catch {}
    },
  };
};
