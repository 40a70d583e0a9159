// Helpers for the context-window lifecycle tests: recording what every scripted model call
// receives, and reading the branch.

import { fauxAssistantMessage, fauxToolCall, messageText, readJsonl } from "./harness.mjs";

export const MARKER = "pi-context/reset-marker";
export const BOOT = "pi-context/boot";
export const CONTINUATION = "pi-context/continuation";
export const GUIDANCE = "pi-context/guidance";
export const WARNING = "pi-context/warning";
export const MANUAL_WIPE = "pi-context/manual-wipe";

/** The text of a provider message (string content or text blocks; system prompts by section). */
export function providerText(message) {
  if (message.role === "system") return Object.values(message.sections ?? {}).join("\n") + (message.content ?? "");
  if (typeof message.content === "string") return message.content;
  return (message.content ?? [])
    .map((b) => (b.type === "text" ? b.text : b.type === "toolCall" ? `${b.name} ${JSON.stringify(b.arguments)}` : ""))
    .join("\n");
}

/** The whole request as one string (for "includes"/"excludes" checks). */
export function requestText(request) {
  return request.map(providerText).join("\n\n");
}

/** How often `needle` occurs in the request. */
export function count(request, needle) {
  return requestText(request).split(needle).length - 1;
}

/**
 * A model whose every call is recorded: `model.requests[i]` is the message list call i received.
 * `model.script(steps)` queues steps; a step is an assistant message or a faux step function
 * `(context, options, state, model) => message` (as `observe` from the harness builds).
 */
export function recordingModel(faux) {
  const requests = [];
  return {
    requests,
    script(steps) {
      faux.setResponses(
        steps.map((step) => (context, ...rest) => {
          requests.push(context.messages);
          return typeof step === "function" ? step(context, ...rest) : step;
        }),
      );
    },
    append(steps) {
      faux.appendResponses(
        steps.map((step) => (context, ...rest) => {
          requests.push(context.messages);
          return typeof step === "function" ? step(context, ...rest) : step;
        }),
      );
    },
  };
}

export const wipe = (id) => fauxAssistantMessage([fauxToolCall("wipe_memory", {}, id ? { id } : undefined)], { stopReason: "toolUse" });
export const tools = (...calls) =>
  fauxAssistantMessage(
    calls.map(([name, args]) => fauxToolCall(name, args)),
    { stopReason: "toolUse" },
  );

/** Entries of the session's current branch. */
export const branch = (session) => session.sessionManager.getBranch();
export const markers = (entries) => entries.filter((e) => e.type === "custom" && e.customType === MARKER);
export const compactions = (entries) => entries.filter((e) => e.type === "compaction");
export const customMessages = (entries, type) => entries.filter((e) => e.type === "custom_message" && e.customType === type);
export const userEntries = (entries) => entries.filter((e) => e.type === "message" && e.message.role === "user");

/** Texts the user entries of a branch carry. */
export const userTexts = (entries) => userEntries(entries).map((e) => messageText(e.message));

/** The notices of one level (or all) whose message matches. */
export function noticesMatching(notices, pattern, level) {
  return notices.filter((n) => (level === undefined || n.level === level) && pattern.test(n.message));
}

/** The four boundary entries of a committed reset, in order, start at the checkpoint. */
export function assertBoundary(assert, entries, checkpointIndex) {
  const [checkpoint, marker, boot, continuation] = entries.slice(checkpointIndex, checkpointIndex + 4);
  assert.equal(checkpoint.type, "compaction");
  assert.equal(checkpoint.summary, "");
  assert.equal(checkpoint.firstKeptEntryId, checkpoint.id, "retain-none: the checkpoint keeps itself");
  assert.equal(marker.type, "custom");
  assert.equal(marker.customType, MARKER);
  assert.deepEqual(Object.keys(marker.data), ["windowId"]);
  assert.equal(marker.parentId, checkpoint.id);
  assert.equal(boot.type, "custom_message");
  assert.equal(boot.customType, BOOT);
  assert.equal(boot.display, false);
  assert.equal(boot.details.windowId, marker.data.windowId);
  assert.equal(continuation.customType, CONTINUATION);
  assert.equal(continuation.display, false);
  return { checkpoint, marker, boot, continuation, windowId: marker.data.windowId };
}

/** A fresh-window request: no old sentinel, one boot head, the continuation exactly once. */
export function assertFreshRequest(assert, request, sentinel) {
  const text = requestText(request);
  assert.ok(!text.includes(sentinel), `the old conversation (${sentinel}) is not in the fresh window`);
  assert.equal(request[0].role, "system", "the system prompt leads");
  assert.equal(count(request, "<context_window>"), 1, "one boot");
  assert.equal(count(request, "<context_window_continuation>"), 1, "the continuation exactly once");
}

export { readJsonl };
