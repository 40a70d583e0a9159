#!/usr/bin/env python3
"""A scripted model server for running the real agents offline (stdlib only).

It listens on 127.0.0.1 and speaks just enough of two APIs:

- Anthropic Messages (Claude Code): ``POST /v1/messages`` (``?beta=true``), streamed as SSE
  (message_start, content_block_start/delta/stop for text and tool_use, message_delta with the
  usage and stop_reason, message_stop) or as one JSON body when ``stream`` is false;
  ``POST /v1/messages/count_tokens``.
- OpenAI Responses (Codex): ``POST /v1/responses`` streamed as SSE (response.created,
  response.output_item.added/done for message and function_call items,
  response.output_text.delta, response.completed with the usage).
- OpenAI Chat Completions (GitHub Copilot CLI's BYOK provider): ``POST /v1/chat/completions``
  streamed as SSE (``chat.completion.chunk`` deltas: the role, the text, each tool call's id and
  name then its arguments, the finish reason, a last chunk with the usage, ``[DONE]``) or as one
  ``chat.completion`` body when ``stream`` is false.
- Gemini API (Gemini CLI): ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``
  streamed as SSE (one chunk: candidates[0].content.parts with text and functionCall parts,
  finishReason STOP, usageMetadata), ``:generateContent`` (the same as one JSON body) and
  ``:countTokens``.
- ``GET /v1/models`` for both.

What it answers is a script: a list of rules, tried in order; the first that matches a request
gives the reply, else the default reply. Every request (method, path, headers with lower-case
names, JSON body, which rule answered) is kept in memory and, when a record path is given, appended to a JSONL file.

As a library::

    with ModelServer([Rule(Reply(tool_calls=[{"name": "Bash", "input": {"command": "echo hi"}}]),
                           last_user="run it")],
                     default=Reply("done")) as server:
        ...  # point the agent at server.url
        server.requests()

As a program (the script is JSON: ``{"rules": [{"last_user": "…", "reply": {…}}, …],
"default": {"text": "…"}}``)::

    python3 model_server.py --script rules.json --record requests.jsonl [--port 0]
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

ANTHROPIC = "anthropic"
OPENAI = "openai"
CHAT = "chat"  # OpenAI Chat Completions
GEMINI = "gemini"
GEMINI_PREFIX = "/v1beta/models/"


@dataclass
class Reply:
    """What the model answers: text and/or tool calls, and the usage it reports.

    A tool call is ``{"name": …, "input": {…}}``; other keys (e.g. Codex's ``namespace``) are
    copied into the OpenAI function_call item. A large ``input_tokens`` makes the agents compact.
    """

    text: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 100
    output_tokens: int = 20

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Reply:
        return cls(**d)


@dataclass
class Rule:
    """Matches a request when every given condition holds.

    api: "anthropic", "openai", "chat" or "gemini". last_user: a substring of the last user-side
    input (the last user message, a tool result included: Anthropic's last ``user`` message,
    OpenAI's last ``user`` message or ``function_call_output``, Chat Completions' last ``user`` or
    ``tool`` message, Gemini's last ``user`` content, whose ``functionResponse`` parts hold tool
    results). contains: a substring of any string anywhere
    in the request body. nth: the request's 1-based number among the model requests this server
    received. times: how often the rule may answer (None: always).
    """

    reply: Reply
    api: str | None = None
    last_user: str | None = None
    contains: str | None = None
    nth: int | None = None
    times: int | None = None
    used: int = 0

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rule:
        d = dict(d)
        return cls(reply=Reply.from_dict(d.pop("reply")), **d)

    def matches(self, api: str, n: int, body: dict[str, Any]) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.api is not None and self.api != api:
            return False
        if self.nth is not None and self.nth != n:
            return False
        if self.last_user is not None and self.last_user not in last_user_text(api, body):
            return False
        if self.contains is not None and not any(self.contains in s for s in strings_in(body)):
            return False
        return True


def strings_in(value: Any):
    """Every string anywhere in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


def last_user_text(api: str, body: dict[str, Any]) -> str:
    """The text of the last user-side input (a prompt or a tool result), all strings joined."""
    if api == ANTHROPIC:
        items = [m for m in body.get("messages", []) if m.get("role") == "user"]
    elif api == CHAT:
        items = [m for m in body.get("messages", []) if m.get("role") in ("user", "tool")]
    elif api == GEMINI:
        items = [c for c in body.get("contents", []) if c.get("role") == "user"]
    else:
        items = [
            i
            for i in body.get("input", [])
            if (i.get("type") == "message" and i.get("role") == "user")
            or i.get("type") == "function_call_output"
        ]
    return "\n".join(texts_in(items[-1])) if items else ""


def chat_messages(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every text of a Chat Completions request, in order."""
    out = []
    for message in request["body"].get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            out.append((message["role"], content))
        elif isinstance(content, list):
            out += [(message["role"], part["text"]) for part in content if isinstance(part.get("text"), str)]
    return out


def texts_in(value: Any):
    """The message texts in a JSON value: strings under "text", "content" or "output"."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                if k in ("text", "content", "output"):
                    yield v
            else:
                yield from texts_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from texts_in(v)


class ModelServer:
    def __init__(
        self,
        rules: list[Rule] | None = None,
        default: Reply | None = None,
        record_path: str | None = None,
        port: int = 0,
    ):
        self.rules = list(rules or [])
        self.default = default or Reply("OK.")
        self.record_path = record_path
        self._records: list[dict[str, Any]] = []
        self._model_requests = 0
        self._ids = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ModelServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join()

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def requests(self, path_prefix: str | None = None) -> list[dict[str, Any]]:
        """The recorded requests, oldest first; only those whose path starts with path_prefix."""
        with self._lock:
            return [r for r in self._records if path_prefix is None or r["path"].startswith(path_prefix)]

    def next_id(self) -> int:
        with self._lock:
            self._ids += 1
            return self._ids

    def choose(self, api: str, body: dict[str, Any]) -> tuple[int, Reply, str]:
        """(request number, reply, which rule) for a model request."""
        with self._lock:
            self._model_requests += 1
            n = self._model_requests
            for i, rule in enumerate(self.rules):
                if rule.matches(api, n, body):
                    rule.used += 1
                    return n, rule.reply, f"rule {i}"
            return n, self.default, "default"

    def record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            entry["seq"] = len(self._records) + 1
            self._records.append(entry)
            if self.record_path:
                with open(self.record_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def anthropic_events(reply: Reply, model: str, ids) -> list[bytes]:
    usage = {
        "input_tokens": reply.input_tokens,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    message = {
        "id": f"msg_lab{ids():04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    out = [sse("message_start", {"type": "message_start", "message": message})]
    for index, (start, delta) in enumerate(anthropic_blocks(reply, ids)):
        out.append(sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        out.append(sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop_reason = "tool_use" if reply.tool_calls else "end_turn"
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {**usage, "output_tokens": reply.output_tokens},
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return out


def anthropic_blocks(reply: Reply, ids):
    """(content_block_start block, its one delta) per content block."""
    if reply.text is not None:
        yield {"type": "text", "text": ""}, {"type": "text_delta", "text": reply.text}
    for call in reply.tool_calls:
        block = {"type": "tool_use", "id": f"toolu_lab{ids():04d}", "name": call["name"], "input": {}}
        yield block, {"type": "input_json_delta", "partial_json": json.dumps(call.get("input", {}))}


def anthropic_message(reply: Reply, model: str, ids) -> dict[str, Any]:
    content = []
    for start, delta in anthropic_blocks(reply, ids):
        if start["type"] == "text":
            content.append({"type": "text", "text": delta["text"]})
        else:
            content.append({**start, "input": json.loads(delta["partial_json"])})
    return {
        "id": f"msg_lab{ids():04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
    }


def openai_events(reply: Reply, model: str, ids) -> list[bytes]:
    response = {"id": f"resp_lab{ids():04d}", "object": "response", "model": model, "status": "in_progress", "output": []}
    out = [sse("response.created", {"type": "response.created", "response": response})]
    items = []
    if reply.text is not None:
        items.append({"type": "message", "id": f"msg_lab{ids():04d}", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
    for call in reply.tool_calls:
        extra = {k: v for k, v in call.items() if k not in ("name", "input")}
        items.append({"type": "function_call", "id": f"fc_lab{ids():04d}", "call_id": f"call_lab{ids():04d}",
                      "name": call["name"], "arguments": json.dumps(call.get("input", {})), "status": "completed", **extra})
    for index, item in enumerate(items):
        if item["type"] == "message":
            added = {**item, "status": "in_progress", "content": []}
        else:
            added = {**item, "status": "in_progress", "arguments": ""}
        out.append(sse("response.output_item.added", {"type": "response.output_item.added", "output_index": index, "item": added}))
        if item["type"] == "message":
            out.append(sse("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                          "output_index": index, "content_index": 0, "delta": reply.text}))
        out.append(sse("response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item}))
    usage = {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }
    done = {**response, "status": "completed", "output": items, "usage": usage}
    out.append(sse("response.completed", {"type": "response.completed", "response": done}))
    return out


def chat_events(reply: Reply, model: str, ids) -> list[bytes]:
    """A Chat Completions stream: ``data:`` lines of ``chat.completion.chunk`` objects."""
    chunk_id = f"chatcmpl-lab{ids():04d}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        body = {"id": chunk_id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [choice]}
        return f"data: {json.dumps(body)}\n\n".encode()

    out = [chunk({"role": "assistant", "content": ""})]
    if reply.text is not None:
        out.append(chunk({"content": reply.text}))
    for index, call in enumerate(chat_tool_calls(reply, ids)):
        named = {"index": index, "id": call["id"], "type": "function",
                 "function": {"name": call["function"]["name"], "arguments": ""}}
        out.append(chunk({"tool_calls": [named]}))
        arguments = {"index": index, "function": {"arguments": call["function"]["arguments"]}}
        out.append(chunk({"tool_calls": [arguments]}))
    out.append(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
    usage = {"id": chunk_id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
             "usage": chat_usage(reply)}
    out.append(f"data: {json.dumps(usage)}\n\n".encode())
    out.append(b"data: [DONE]\n\n")
    return out


def chat_tool_calls(reply: Reply, ids) -> list[dict[str, Any]]:
    return [{"id": f"call_lab{ids():04d}", "type": "function",
             "function": {"name": call["name"], "arguments": json.dumps(call.get("input", {}))}}
            for call in reply.tool_calls]


def chat_usage(reply: Reply) -> dict[str, int]:
    return {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens}


def chat_completion(reply: Reply, model: str, ids) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = chat_tool_calls(reply, ids)
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}
    return {"id": f"chatcmpl-lab{ids():04d}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [choice], "usage": chat_usage(reply)}
def gemini_response(reply: Reply, model: str, ids) -> dict[str, Any]:
    """A generateContent response (also each SSE chunk of streamGenerateContent)."""
    parts: list[dict[str, Any]] = []
    if reply.text is not None:
        parts.append({"text": reply.text})
    for call in reply.tool_calls:
        parts.append({"functionCall": {"name": call["name"], "args": call.get("input", {}), "id": f"call_lab{ids():04d}"}})
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": reply.input_tokens,
            "candidatesTokenCount": reply.output_tokens,
            "totalTokenCount": reply.input_tokens + reply.output_tokens,
        },
        "modelVersion": model,
        "responseId": f"resp_lab{ids():04d}",
    }


def gemini_events(reply: Reply, model: str, ids) -> list[bytes]:
    return [f"data: {json.dumps(gemini_response(reply, model, ids))}\r\n\r\n".encode()]


def gemini_call(path: str) -> tuple[str, str] | None:
    """(model, method) of a Gemini API path ``/v1beta/models/{model}:{method}``."""
    if not path.startswith(GEMINI_PREFIX) or ":" not in path:
        return None
    model, method = path[len(GEMINI_PREFIX):].rsplit(":", 1)
    return model, method


def _handler_for(server: ModelServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            self._record(None, "models" if self._path() == "/v1/models" else "not found")
            if self._path() == "/v1/models":
                model = {"id": "lab-model", "object": "model", "type": "model", "created": 0,
                         "owned_by": "lab", "display_name": "lab-model"}
                self._json(200, {"object": "list", "data": [model], "has_more": False})
            else:
                self._json(404, {"error": {"type": "not_found", "message": self.path}})

        def do_POST(self) -> None:
            raw = self._read_body()
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            path = self._path()
            gemini = gemini_call(path)
            if gemini and gemini[1] == "countTokens":
                self._record(body, "count_tokens")
                self._json(200, {"totalTokens": max(1, len(raw) // 4)})
            elif gemini and gemini[1] in ("streamGenerateContent", "generateContent"):
                n, reply, rule = server.choose(GEMINI, body)
                self._record(body, rule, n)
                self._answer_gemini(gemini[0], gemini[1] == "streamGenerateContent", reply)
            elif path == "/v1/messages/count_tokens":
                self._record(body, "count_tokens")
                self._json(200, {"input_tokens": max(1, len(raw) // 4)})
            elif path in ("/v1/messages", "/v1/responses", "/v1/chat/completions"):
                api = {"/v1/messages": ANTHROPIC, "/v1/responses": OPENAI}.get(path, CHAT)
                n, reply, rule = server.choose(api, body)
                self._record(body, rule, n)
                self._answer(api, body, reply)
            else:
                self._record(body, "not found")
                self._json(404, {"error": {"type": "not_found", "message": self.path}})

        def _read_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0], 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(chunks)

        def _path(self) -> str:
            return urlsplit(self.path).path

        def _record(self, body, answer: str, n: int | None = None) -> None:
            server.record({"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                           "body": body, "answer": answer, "model_request": n})

        def _answer(self, api: str, body: dict[str, Any], reply: Reply) -> None:
            model = body.get("model") or "lab-model"
            if api == ANTHROPIC and not body.get("stream"):
                self._json(200, anthropic_message(reply, model, server.next_id))
                return
            if api == CHAT and not body.get("stream"):
                self._json(200, chat_completion(reply, model, server.next_id))
                return
            events = {ANTHROPIC: anthropic_events, OPENAI: openai_events, CHAT: chat_events}[api](
                reply, model, server.next_id)
            payload = b"".join(events)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _answer_gemini(self, model: str, stream: bool, reply: Reply) -> None:
            if not stream:
                self._json(200, gemini_response(reply, model, server.next_id))
                return
            payload = b"".join(gemini_events(reply, model, server.next_id))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, value: dict[str, Any]) -> None:
            payload = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def load_script(path: str) -> tuple[list[Rule], Reply]:
    with open(path, encoding="utf-8") as f:
        script = json.load(f)
    rules = [Rule.from_dict(r) for r in script.get("rules", [])]
    return rules, Reply.from_dict(script.get("default", {"text": "OK."}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", help="JSON file: {rules: [...], default: {...}}")
    parser.add_argument("--record", help="append every request to this JSONL file")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    args = parser.parse_args()
    rules, default = load_script(args.script) if args.script else ([], Reply("OK."))
    server = ModelServer(rules, default, args.record, args.port).start()
    print(server.url, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    server.stop()


if __name__ == "__main__":
    sys.exit(main())
