// pi-context's plugin for OpenCode, written by `pi-context setup opencode` (docs/agents.md):
// it runs `pi-context hook opencode <event>` and puts what that answers into OpenCode's
// context: the boot into the system prompt (asked once per session), the recall hint into a
// prompt's message (a synthetic text part), the compaction's request into the compaction's
// context. It fails open: an error, a timeout or no answer changes nothing.
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

export const PiContext = async ({ directory }) => {
  const boots = new Map();
  return {
    "experimental.chat.system.transform": async (input, output) => {
      try {
        const session = input && input.sessionID;
        if (!session || !Array.isArray(output.system)) return;
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
