"""Smoke tests of the offline lab: the scripted model server alone, then each real agent
answering a scripted reply and doing a tool round trip against it.

    scripts/test-agents            (installs the agents first)
    python3 -m unittest discover tests/agents
"""

from __future__ import annotations

import json
import shutil
import tempfile
import unittest
import urllib.request
from pathlib import Path

from lab import API_KEY, Lab, last_user_text, read_jsonl
from model_server import ModelServer, Reply, Rule

CANARY = "lab-canary-7f3a"


def post(url: str, body: dict) -> str:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def sse_data(stream: str) -> list[dict]:
    return [json.loads(line[len("data: "):]) for line in stream.splitlines() if line.startswith("data: ")]


def anthropic_body(text: str) -> dict:
    return {"model": "m", "stream": True, "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}


def openai_body(*items: dict) -> dict:
    return {"model": "m", "stream": True, "input": list(items)}


def user_item(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


class ModelServerTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)

    def test_anthropic_stream_carries_text_tool_use_and_usage(self):
        reply = Reply("hi", [{"name": "Bash", "input": {"command": "ls"}}], input_tokens=190_000, output_tokens=7)
        with ModelServer([Rule(reply)]) as server:
            events = sse_data(post(server.url + "/v1/messages?beta=true", anthropic_body("go")))
        self.assertEqual(
            [e["type"] for e in events],
            ["message_start"] + ["content_block_start", "content_block_delta", "content_block_stop"] * 2
            + ["message_delta", "message_stop"],
        )
        self.assertEqual(events[0]["message"]["usage"]["input_tokens"], 190_000)
        self.assertEqual(events[2]["delta"], {"type": "text_delta", "text": "hi"})
        self.assertEqual(events[4]["content_block"]["name"], "Bash")
        self.assertEqual(json.loads(events[5]["delta"]["partial_json"]), {"command": "ls"})
        self.assertEqual(events[7]["delta"]["stop_reason"], "tool_use")
        self.assertEqual(events[7]["usage"]["output_tokens"], 7)

    def test_openai_stream_carries_message_function_call_and_usage(self):
        reply = Reply("hi", [{"name": "exec_command", "input": {"cmd": "ls"}}], input_tokens=200_000)
        with ModelServer([Rule(reply)]) as server:
            events = sse_data(post(server.url + "/v1/responses", openai_body(user_item("go"))))
        self.assertEqual(
            [e["type"] for e in events],
            ["response.created", "response.output_item.added", "response.output_text.delta",
             "response.output_item.done", "response.output_item.added", "response.output_item.done",
             "response.completed"],
        )
        call = events[5]["item"]
        self.assertEqual((call["type"], call["name"], json.loads(call["arguments"])), ("function_call", "exec_command", {"cmd": "ls"}))
        completed = events[-1]["response"]
        self.assertEqual(completed["usage"]["input_tokens"], 200_000)
        self.assertEqual([i["type"] for i in completed["output"]], ["message", "function_call"])

    def test_rules_match_in_order_by_api_last_user_contains_nth_and_times(self):
        rules = [
            Rule(Reply("once"), last_user="hello", times=1),
            Rule(Reply("openai"), api="openai"),
            Rule(Reply("third"), nth=4),
            Rule(Reply("anywhere"), contains="needle"),
        ]
        with ModelServer(rules, default=Reply("default"), record_path=str(self.dir / "r.jsonl")) as server:
            texts = [
                sse_data(post(server.url + "/v1/messages", anthropic_body("hello")))[2]["delta"]["text"],
                sse_data(post(server.url + "/v1/messages", anthropic_body("hello")))[2]["delta"]["text"],
                sse_data(post(server.url + "/v1/responses", openai_body(user_item("x"))))[2]["delta"],
                sse_data(post(server.url + "/v1/messages", anthropic_body("x")))[2]["delta"]["text"],
                sse_data(post(server.url + "/v1/messages", {**anthropic_body("x"), "system": "a needle"}))[2]["delta"]["text"],
            ]
            answers = [r["answer"] for r in server.requests()]
        self.assertEqual(texts, ["once", "default", "openai", "third", "anywhere"])
        self.assertEqual(answers, ["rule 0", "default", "rule 1", "rule 2", "rule 3"])
        self.assertEqual([r["answer"] for r in read_jsonl(self.dir / "r.jsonl")], answers)

    def test_last_user_is_the_tool_result_after_a_tool_call(self):
        output = {"type": "function_call_output", "call_id": "c1", "output": f"Output:\n{CANARY}"}
        call = {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"}
        with ModelServer([Rule(Reply("saw it"), last_user=CANARY)]) as server:
            stream = post(server.url + "/v1/responses", openai_body(user_item("run it"), call, output))
            self.assertIn(CANARY, last_user_text(server.requests()[0]))
        self.assertEqual(sse_data(stream)[2]["delta"], "saw it")

    def test_count_tokens_models_and_plain_json_answers(self):
        with ModelServer(default=Reply("plain")) as server:
            tokens = json.loads(post(server.url + "/v1/messages/count_tokens", anthropic_body("x")))
            with urllib.request.urlopen(server.url + "/v1/models", timeout=10) as response:
                models = json.loads(response.read())
            message = json.loads(post(server.url + "/v1/messages", {**anthropic_body("x"), "stream": False}))
        self.assertGreater(tokens["input_tokens"], 0)
        self.assertEqual(models["data"][0]["id"], "lab-model")
        self.assertEqual(message["content"], [{"type": "text", "text": "plain"}])


class ClaudeTest(unittest.TestCase):
    def test_answers_a_scripted_reply_offline(self):
        with Lab([Rule(Reply("Hello from the lab."), last_user="greet")]) as lab:
            run = lab.claude("greet me").check()
            transcript = lab.claude_project_dir()
            self.assertEqual(run.stdout.strip(), "Hello from the lab.")
            self.assertEqual(len(run.requests), 1)
            self.assertEqual(run.requests[0]["headers"].get("x-api-key"), API_KEY)
            self.assertTrue(run.requests[0]["path"].startswith("/v1/messages"))
            self.assertEqual([p.parent for p in run.transcripts], [transcript])
            self.assertIn("Hello from the lab.", run.transcripts[0].read_text())

    def test_bash_tool_result_reaches_the_model(self):
        bash = Reply("Running it.", [{"name": "Bash", "input": {"command": f"echo {CANARY}", "description": "echo"}}])
        with Lab([Rule(bash, last_user="run the echo")], default=Reply("Done.")) as lab:
            run = lab.claude("please run the echo", "--allowedTools", "Bash").check()
        self.assertEqual(run.stdout.strip(), "Done.")
        self.assertEqual(len(run.requests), 2)
        self.assertIn(CANARY, last_user_text(run.requests[1]))
        self.assertIn("tool_result", json.dumps(run.requests[1]["body"]["messages"][-1]))


class CodexTest(unittest.TestCase):
    def test_answers_a_scripted_reply_offline(self):
        with Lab([Rule(Reply("Hello from the lab."), last_user="greet")]) as lab:
            run = lab.codex("greet me").check()
            self.assertEqual(run.stdout.strip(), "Hello from the lab.")
            self.assertEqual([r["path"] for r in run.requests], ["/v1/responses"])
            self.assertEqual(run.requests[0]["headers"].get("authorization"), f"Bearer {API_KEY}")
            self.assertEqual(len(run.transcripts), 1)
            self.assertTrue(run.transcripts[0].name.startswith("rollout-"))
            self.assertIn("Hello from the lab.", run.transcripts[0].read_text())

    def test_exec_command_output_reaches_the_model(self):
        shell = Reply("Running it.", [{"name": "exec_command", "input": {"cmd": f"echo {CANARY}"}}])
        with Lab([Rule(shell, last_user="run the echo")], default=Reply("Done.")) as lab:
            run = lab.codex("please run the echo").check()
        self.assertEqual(run.stdout.strip(), "Done.")
        self.assertEqual(len(run.requests), 2)
        last = run.requests[1]["body"]["input"][-1]
        self.assertEqual(last["type"], "function_call_output")
        self.assertIn(CANARY, last_user_text(run.requests[1]))


@unittest.skipUnless(shutil.which("strace"), "strace is not installed")
class OfflineTest(unittest.TestCase):
    """With a tool call, each agent connects to nothing but the model server."""

    def assert_only_the_server(self, lab: Lab, connects: list[str]) -> None:
        self.assertTrue(connects, "strace saw no connect() at all")
        self.assertEqual(set(connects), {f"127.0.0.1:{lab.server.port}"})

    def test_claude(self):
        bash = Reply("Running it.", [{"name": "Bash", "input": {"command": "echo hi", "description": "echo"}}])
        with Lab([Rule(bash, last_user="run")], default=Reply("Done."), trace_connects=True) as lab:
            run = lab.claude("run it", "--allowedTools", "Bash").check()
            self.assert_only_the_server(lab, run.connects)

    def test_codex(self):
        shell = Reply("Running it.", [{"name": "exec_command", "input": {"cmd": "echo hi"}}])
        with Lab([Rule(shell, last_user="run")], default=Reply("Done."), trace_connects=True) as lab:
            run = lab.codex("run it").check()
            self.assert_only_the_server(lab, run.connects)

    def test_copilot(self):
        bash = Reply("Running it.", [{"name": "bash", "input": {"command": "echo hi", "description": "echo"}}])
        with Lab([Rule(bash, last_user="run")], default=Reply("Done."), trace_connects=True) as lab:
            run = lab.copilot("-p", "run it", "--allow-all-tools", "--output-format", "json").check()
            self.assertEqual(len(run.requests), 2)
            self.assert_only_the_server(lab, run.connects)


if __name__ == "__main__":
    unittest.main()
