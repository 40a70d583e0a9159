#!/usr/bin/env python3
"""How many events of a generated Gemini CLI, Copilot CLI or Cursor session hold a word: what
`pi-context history search --session FILE WORD` should find, paged to the end.

A model of the readers (docs/harnesses.md), enough for scripts/gen-session.py's output: the
conversation in the order of first appearance, a `$rewindTo` dropping the message it names and
those after it (Gemini); the main agent's events only, a subagent's being another branch
(Copilot); a tool call and its result one `tool` event. Prints the events that hold the word, by
role, and how many lines hold it (what `rg -i -F -c` prints): lines count every copy of a text
(Gemini writes a message again with its calls, and a result twice), events count it once.

    python3 scripts/expected-hits.py gemini FILE WORD
"""
import collections
import json
import sys


def gemini(records):
    order, msgs = [], {}
    for r in records:
        if "$rewindTo" in r:
            if r["$rewindTo"] in order:
                del order[order.index(r["$rewindTo"]):]
        elif "id" in r and r.get("type") in ("user", "gemini"):
            if r["id"] not in msgs:
                order.append(r["id"])
                msgs[r["id"]] = []
            msgs[r["id"]].append(r)
    events, tools = [], {}
    for mid in order:
        first = msgs[mid][0]
        if first["type"] == "user":
            texts = [p["text"] for p in first["content"] if "text" in p]
            if texts:
                snapshot = texts[0].startswith("<state_snapshot>")
                events.append(("context" if snapshot else "user", " ".join(texts)))
            for p in first["content"]:
                fr = p.get("functionResponse")
                if fr and fr["id"] in tools and not tools[fr["id"]][1]:
                    tools[fr["id"]][1] = json.dumps(fr["response"], ensure_ascii=False)
            continue
        if first["content"]:
            events.append(("assistant", first["content"]))
        for r in msgs[mid][1:]:
            for c in r.get("toolCalls", []):
                result = json.dumps(c["result"][0]["functionResponse"]["response"], ensure_ascii=False)
                tools[c["id"]] = [c["name"] + " " + json.dumps(c["args"], ensure_ascii=False), result]
                events.append(("tool", tools[c["id"]]))
    return events


def copilot(records):
    events, tools = [], {}
    for r in records:
        if r.get("agentId"):
            continue
        d, kind = r["data"], r["type"]
        if kind == "user.message":
            events.append(("context" if d.get("source") else "user", d["content"]))
        elif kind == "assistant.message":
            if d["content"]:
                events.append(("assistant", d["content"]))
            for q in d["toolRequests"]:
                tools[q["toolCallId"]] = [q["name"] + " " + json.dumps(q["arguments"], ensure_ascii=False), ""]
                events.append(("tool", tools[q["toolCallId"]]))
        elif kind == "tool.execution_complete" and d["toolCallId"] in tools:
            tools[d["toolCallId"]][1] = d["result"]["content"] if "result" in d else d["error"]["message"]
        elif kind == "session.compaction_complete":
            events.append(("context", d["summaryContent"]))
    return events


def cursor(records):
    events, tools = [], {}
    for r in records:
        content = (r.get("message") or {}).get("content")
        if not content:
            continue
        for b in content:
            if b["type"] == "tool_result" and b["tool_use_id"] in tools:
                tools[b["tool_use_id"]][1] = b["content"]
        texts = [b["text"] for b in content if b["type"] == "text"]
        if texts:
            events.append((r["role"], " ".join(texts)))
        for b in content:
            if b["type"] == "tool_use":
                call = [b["name"] + " " + json.dumps(b["input"], ensure_ascii=False), ""]
                tools[b.get("id")] = call
                events.append(("tool", call))
    return events


def main():
    harness, path, word = sys.argv[1:4]
    word = word.lower()
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    events = {"gemini": gemini, "copilot": copilot, "cursor": cursor}[harness](json.loads(l) for l in lines)
    text = lambda t: t if isinstance(t, str) else "\n".join(t)
    hits = collections.Counter(role for role, t in events if word in text(t).lower())
    print(json.dumps({"events": len(events), "hits": sum(hits.values()), "by_role": dict(sorted(hits.items())),
                      "lines": sum(1 for l in lines if word in l.lower())}))


if __name__ == "__main__":
    main()
