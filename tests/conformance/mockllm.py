"""A scripted model server on 127.0.0.1 for the real-CLI conformance suite. Standard library only.

It speaks the wire formats the agent CLIs use: Anthropic Messages, OpenAI Responses, OpenAI
and Mistral chat completions, Gemini generateContent (and its SSE stream), plus model lists.
It is not a model: a marker in the prompt (`SCENARIO=basic|resume|subagent|child`) picks a
script, and the number of tool results since that marker picks the next step. Side requests
(titles, summaries, routers, classifiers) are answered too, as JSON when the request asks for
a JSON schema. Every request is logged, so a driver can wait for a step and a test can read
which model a CLI asked for.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# At the start of a line (perhaps quoted: `opencode run` quotes its argument; perhaps after
# the `[Sat 2026-12-05 19:13 UTC] ` envelope OpenClaw puts before a prompt): a prompt is, an
# echo of one inside a JSON notification is not.
MARKER = re.compile(
    r"""(?m)^[ \t>"'`]*(?:\[[^\]\n]{1,64}\][ \t]*)?SCENARIO=(basic|resume|subagent|child|edit)\b"""
)
# `SLOW=<seconds>` in the text that holds the marker: the scenario's shell command then sleeps
# that long, and a sub-agent spawned from it is told the same; so that a live-state check
# can look at a session while its tool (or its sub-agent's) is running.
SLOW = re.compile(r"\bSLOW=(\d{1,2})\b")

TITLE = "Checkout retry smoke test"
SUMMARY = "Ran the greeting command in the shop repository."
CHILD_PROMPT = (
    "SCENARIO=child You are a sub-agent. Run the shell command `echo hello-from-subagent` "
    "and report what it printed."
)
COMMANDS = {
    "basic": "echo hello-from-tool",
    "resume": "echo hello-after-resume",
    "child": "echo hello-from-subagent",
}
FINAL = {
    "basic": "Finished: the greeting command printed hello-from-tool.",
    "resume": "Resumed: the greeting command printed hello-after-resume.",
    "child": "Sub-agent report: the greeting command printed hello-from-subagent.",
    "subagent": "The sub-agent reported back: hello-from-subagent.",
    # For a CLI whose edits are text, not tool calls (aider): one SEARCH/REPLACE block
    # against the conformance repo's checkout.py.
    "edit": (
        "Making checkout return 'done'.\n\n"
        "checkout.py\n```python\n<<<<<<< SEARCH\n    return 'ok'\n=======\n"
        "    return 'done'\n>>>>>>> REPLACE\n```\n"
    ),
}
USAGE = (1000, 25)  # input, output tokens on every answer

SHELL_TOOLS = (
    "Bash",
    "bash",
    "exec_command",
    "shell",
    "run_shell_command",
    "shell_command",
    "run_command",
    "Shell",  # Kimi CLI
    "run_commands",
    "Execute",
    "execute_bash",  # Nanocoder
    # OpenClaw's shell; before `terminal`, which OpenClaw offers too as a tool of its own
    # (no shell), and after the others, as another CLI's `exec` may be no shell
    "exec",
    "terminal",  # Hermes Agent (which offers no `exec`)
)
SPAWN_TOOLS = (
    "Agent",
    "Task",
    "task",
    "agent",
    "invoke_agent",
    "spawn_agent",
    "run_typescript",
    "delegate_task",  # Hermes Agent: its `goal` is the sub-agent's prompt
    "sessions_spawn",  # OpenClaw
)
WAIT_TOOLS = ("wait_agent", "wait")
# gptme offers its sub-agents as Python functions of its `ipython` tool (the `subagent` tool
# has none of its own to call), which its system prompt describes: `subagent("id", "task")`
PYTHON_TOOL = "ipython"
PYTHON_SPAWN = re.compile(r"\bsubagent\(")
GREETER = "greeter"  # the id or name the mock gives the sub-agent it spawns
# gptme's `complete` (no arguments): a run without `--non-interactive`'s last call; without
# it gptme asks twice more ("No tool call detected") before it stops by itself
COMPLETE_TOOL = "complete"
AGENT_KINDS = ("general-purpose", "general", "generalist", "explore")


# --- what the model decides ---------------------------------------------------------------


@dataclass
class Tool:
    name: str
    schema: dict[str, Any]
    description: str = ""
    namespace: str | None = None


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    namespace: str | None = None
    id: str = field(default_factory=lambda: "call_" + uuid.uuid4().hex[:20])


@dataclass
class Reply:
    """One model turn: some text, or one tool call."""

    kind: str  # agent, title, summary, json, chat
    action: str  # the tool name, "final", or the side request answered
    text: str = ""
    call: Call | None = None
    scenario: str | None = None
    results: int = 0


@dataclass
class Request:
    """What the model needs from a request, whatever its wire format."""

    api: str
    model: str
    stream: bool
    tools: list[Tool]
    texts: list[str]  # every piece of text, in conversation order, one per message
    results_after: list[int]  # tool results counted after each of those messages
    instructions: str = ""
    schema: dict[str, Any] | None = None
    children_done: int = (
        0  # sub-agents that answered since the last spawn (the server knows)
    )


def decide(request: Request) -> Reply:
    """The next turn for this request: the whole script of the mock lives here."""
    if request.schema is not None and not request.tools:
        return Reply("json", "json", json.dumps(fill(request.schema, "")))
    scenario, results, slow = None, 0, 0
    for text, after in zip(
        reversed(request.texts), reversed(request.results_after), strict=True
    ):
        found = MARKER.findall(text)
        if found:
            scenario, results = found[-1], after
            slowed = SLOW.search(text)
            slow = int(slowed.group(1)) if slowed else 0
            break
    if not request.tools:
        words = (request.instructions + " " + " ".join(request.texts[-1:])).lower()
        if "title" in words:
            return Reply("title", "title", TITLE)
        if "summar" in words:
            return Reply("summary", "summary", SUMMARY)
        if scenario is None:
            return Reply("chat", "chat", "OK.")
    if scenario is None:
        return Reply(
            "agent", "final", "There is no scenario marker in this conversation."
        )
    tools = {t.name: t for t in request.tools}
    reply = Reply("agent", "final", FINAL[scenario], scenario=scenario, results=results)
    complete = tools.get(COMPLETE_TOOL)
    if complete is not None and not (complete.schema.get("properties") or {}):
        # the final answer's text, and the call that ends the run (as a model does)
        reply.call = Call(COMPLETE_TOOL, {}, complete.namespace)
    if scenario == "edit":
        return reply
    if scenario in COMMANDS:
        if results == 0:
            command = COMMANDS[scenario]
            if (
                slow
            ):  # after the echo: Qwen Code refuses a command that starts with a sleep
                command = f"{command} && sleep {slow}"
            call = shell_call(tools, command) or read_call(tools)
            if call:
                reply.action, reply.text, reply.call = call.name, "", call
        elif results == 1 and scenario == "child" and "complete_task" in tools:
            call = Call(
                "complete_task",
                fill_arguments(tools["complete_task"], {"response": FINAL["child"]}),
            )
            reply.action, reply.text, reply.call = call.name, "", call
        return reply
    # scenario == "subagent": spawn, wait if the CLI spawns in the background, then answer.
    python_spawn = python_spawns(tools, request.instructions)
    if results == 0:
        call = spawn_call(tools, request.instructions, slow)
        if call:
            reply.action, reply.text, reply.call = call.name, "", call
    elif results == 1 and python_spawn:
        # gptme's subagent() returns at once: wait for it, as its own examples do
        code = f"subagent_wait({json.dumps(GREETER)}, timeout=120)"
        call = Call(PYTHON_TOOL, {"code": code}, tools[PYTHON_TOOL].namespace)
        reply.action, reply.text, reply.call = "subagent_wait", "", call
    elif results == 1:
        for name in WAIT_TOOLS:
            if name in tools:
                # Wait briefly when the child has answered already: some waits block to the timeout.
                seconds = 1 if request.children_done else 30
                known = {"timeout_ms": seconds * 1000, "timeout": seconds}
                call = Call(
                    name, fill_arguments(tools[name], known), tools[name].namespace
                )
                reply.action, reply.text, reply.call = call.name, "", call
                break
    return reply


def shell_call(tools: dict[str, Tool], command: str) -> Call | None:
    for name in SHELL_TOOLS:
        tool = tools.get(name)
        if tool is None:
            continue
        properties = tool.schema.get("properties") or {}
        key = next(
            (k for k in ("command", "cmd", "commands") if k in properties), "command"
        )
        value: Any = command
        if key == "commands":  # a list of command lines (Cline)
            value = [command]
        elif (properties.get(key) or {}).get("type") == "array":  # one argv
            value = ["bash", "-lc", command]
        known = {key: value, "description": "Print a greeting", "is_background": False}
        return Call(name, fill_arguments(tool, known), tool.namespace)
    return None


def read_call(tools: dict[str, Tool]) -> Call | None:
    """A read-only sub-agent (no shell) reads the README instead."""
    for tool in tools.values():
        properties = tool.schema.get("properties") or {}
        key = next(
            (
                k
                for k in ("file_path", "path", "filePath", "absolute_path")
                if k in properties
            ),
            None,
        )
        if "read" in tool.name.lower() and key:
            return Call(
                tool.name, fill_arguments(tool, {key: "README.md"}), tool.namespace
            )
    return None


def python_spawns(tools: dict[str, Tool], instructions: str = "") -> bool:
    """Whether sub-agents are spawned in Python, through the `ipython` tool (gptme)."""
    python = tools.get(PYTHON_TOOL)
    return (
        python is not None
        and "code" in (python.schema.get("properties") or {})
        and not any(name in tools for name in SPAWN_TOOLS)
        and PYTHON_SPAWN.search(instructions + "\n" + python.description) is not None
    )


def spawn_call(
    tools: dict[str, Tool], instructions: str = "", slow: int = 0
) -> Call | None:
    child = f"{CHILD_PROMPT} SLOW={slow}" if slow else CHILD_PROMPT
    if python_spawns(tools, instructions):
        code = f"subagent({json.dumps(GREETER)}, {json.dumps(child)})"
        return Call(PYTHON_TOOL, {"code": code}, tools[PYTHON_TOOL].namespace)
    for name in SPAWN_TOOLS:
        tool = tools.get(name)
        if tool is None:
            continue
        if name == "run_typescript":
            code = (
                "async function main() {\n"
                f"  return await tools.agents.spawn({{ name: '{GREETER}', message: {json.dumps(child)} }});\n"
                "}"
            )
            return Call(name, fill_arguments(tool, {"code": code}), tool.namespace)
        properties = tool.schema.get("properties") or {}
        known: dict[str, Any] = {
            "description": "Greeting sub-agent",
            "name": GREETER,
            "task_name": GREETER,
            "await": True,  # droid's Task otherwise runs it in the background, via its daemon
            # Claude Code 2.1.3xx runs an Agent in the background unless told otherwise: the
            # lead then answers at once, where the script (and the live check) has it wait
            "run_in_background": False,
        }
        for key in ("prompt", "message", "task", "instructions", "goal"):
            if (
                key in properties
                and (properties[key] or {}).get("type", "string") == "string"
            ):
                known[key] = child
        for key in ("subagent_type", "agent_type", "agent", "agent_name"):
            if key in properties:
                known[key] = agent_kind(tool, properties[key] or {}, instructions)
        return Call(name, fill_arguments(tool, known), tool.namespace)
    return None


def agent_kind(tool: Tool, schema: dict[str, Any], instructions: str = "") -> str:
    """The general-purpose agent type this CLI offers: from the enum, the default, or where it is named."""
    choices = [str(c) for c in schema.get("enum") or []]
    for kind in AGENT_KINDS:
        if kind in choices:
            return kind
    if choices:
        return choices[0]
    if isinstance(schema.get("default"), str) and schema["default"]:
        return str(schema["default"])
    described = (
        tool.description
        + "\n"
        + str(schema.get("description", ""))
        + "\n"
        + instructions
    )
    for kind in AGENT_KINDS:  # named as a name: <name>x</name>, `x`, "x", "- x:"
        named = (
            rf"""(<name>|[`'"]|^[ \t]*[-*]?[ \t]*){re.escape(kind)}(</name>|[`'"]|:)"""
        )
        if re.search(named, described, re.MULTILINE):
            return kind
    for kind in AGENT_KINDS:
        if re.search(rf"(?<![\w-]){re.escape(kind)}(?![\w-])", described):
            return kind
    return AGENT_KINDS[0]


def fill_arguments(tool: Tool, known: dict[str, Any]) -> dict[str, Any]:
    """Arguments for a tool call: the known values the schema has room for, plus its required ones."""
    properties = tool.schema.get("properties") or {}
    required = tool.schema.get("required") or []
    arguments: dict[str, Any] = {}
    for key, value in known.items():
        if key in properties or key in required:
            arguments[key] = (
                fill(properties.get(key) or {}, key, value)
                if isinstance(value, dict)
                else value
            )
    for key in required:
        if key not in arguments:
            arguments[key] = fill(properties.get(key) or {}, key)
    return arguments


def fill(schema: dict[str, Any], name: str, known: dict[str, Any] | None = None) -> Any:
    """A small value that satisfies a JSON schema, with answers for the fields CLIs ask about."""
    known = known or {}
    if "anyOf" in schema or "oneOf" in schema:
        options = [
            s
            for s in schema.get("anyOf") or schema.get("oneOf") or []
            if s.get("type") != "null"
        ]
        return fill(options[0] if options else {}, name, known)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        choices = schema["enum"]
        for preferred in (
            "user",
            "simple",
            "flash",
            "low",
        ):  # next speaker, router, effort
            if preferred in choices:
                return preferred
        return choices[0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    kind = str(kind).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        keys = list(properties) if properties else []
        value = {}
        for key in keys:
            value[key] = (
                known[key] if key in known else fill(properties[key] or {}, key)
            )
        for key, item in known.items():
            value.setdefault(key, item)
        return value
    if kind == "array":
        minimum = int(schema.get("minItems") or 0)
        return [fill(schema.get("items") or {}, name) for _ in range(minimum)]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = max(1, int(low) + (1 if "exclusiveMinimum" in schema else 0))
        high = schema.get("maximum")
        return min(value, int(high)) if high is not None else value
    if kind == "boolean":
        return False
    lowered = name.lower()
    if "title" in lowered or lowered == "name":
        return TITLE
    if "summary" in lowered:
        return SUMMARY
    if lowered in ("response", "result", "answer", "output"):
        return FINAL["child"]
    return "ok"


# --- reading requests ---------------------------------------------------------------------


def _text_of(value: Any) -> str:
    """All text inside a message's content, whatever its shape."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value)
    if isinstance(value, dict):
        parts = []
        for key in ("text", "content", "encrypted_content", "input_text", "parts"):
            if key in value:
                parts.append(_text_of(value[key]))
        return "\n".join(p for p in parts if p)
    return ""


def _schema_tools(raw: list[Any]) -> list[Tool]:
    tools = []
    for item in raw or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "namespace" or (
            isinstance(item.get("tools"), list) and "name" in item
        ):
            for inner in _schema_tools(item.get("tools") or []):
                inner.namespace = item.get("name")
                tools.append(inner)
            continue
        function = (
            item.get("function") if isinstance(item.get("function"), dict) else item
        )
        name = function.get("name")
        if not name:
            continue
        schema = (
            function.get("parameters")
            or function.get("input_schema")
            or function.get("parametersJsonSchema")
            or {}
        )
        tools.append(
            Tool(
                str(name),
                schema if isinstance(schema, dict) else {},
                str(function.get("description") or ""),
            )
        )
    return tools


def _json_schema(*candidates: Any) -> dict[str, Any] | None:
    for candidate in candidates:
        if not isinstance(candidate, dict):
            continue
        if (
            candidate.get("type") in ("json_schema",)
            or "schema" in candidate
            or "json_schema" in candidate
        ):
            inner = candidate.get("json_schema", candidate)
            schema = inner.get("schema") if isinstance(inner, dict) else None
            if isinstance(schema, dict):
                return schema
        if "properties" in candidate:
            return candidate
    return None


def parse_anthropic(body: dict[str, Any]) -> Request:
    texts, results_after = [], []
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = (
            content
            if isinstance(content, list)
            else [{"type": "text", "text": content}]
        )
        results = sum(
            1 for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"
        )
        if results:
            results_after = [n + results for n in results_after]
        text = "\n".join(
            _text_of(b)
            for b in blocks
            if isinstance(b, dict) and b.get("type") != "tool_result"
        )
        texts.append(text if message.get("role") == "user" else "")
        results_after.append(0)
    output = body.get("output_format") or (body.get("output_config") or {}).get(
        "format"
    )
    return Request(
        "anthropic",
        str(body.get("model") or "mock-model"),
        bool(body.get("stream")),
        _schema_tools(body.get("tools") or []),
        texts,
        results_after,
        _text_of(body.get("system")),
        _json_schema(output),
    )


def parse_responses(body: dict[str, Any]) -> Request:
    texts, results_after = [], []
    items = body.get("input")
    for item in (
        items
        if isinstance(items, list)
        else [{"type": "message", "role": "user", "content": items}]
    ):
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind in (
            "function_call_output",
            "custom_tool_call_output",
            "local_shell_call_output",
            "mcp_tool_call_output",
        ):
            results_after = [n + 1 for n in results_after]
            continue
        if (
            kind in ("message", "agent_message")
            and item.get("role", "user") != "assistant"
        ):
            texts.append(_text_of(item.get("content")))
            results_after.append(0)
    text_format = (body.get("text") or {}).get("format")
    return Request(
        "responses",
        str(body.get("model") or "mock-model"),
        bool(body.get("stream")),
        _schema_tools(body.get("tools") or []),
        texts,
        results_after,
        _text_of(body.get("instructions")),
        _json_schema(text_format),
    )


def parse_chat(body: dict[str, Any]) -> Request:
    texts, results_after, system = [], [], []
    for message in body.get("messages") or []:
        role = message.get("role")
        if role == "tool" or role == "function":
            results_after = [n + 1 for n in results_after]
            continue
        if role in ("system", "developer"):
            system.append(_text_of(message.get("content")))
            continue
        texts.append(_text_of(message.get("content")) if role == "user" else "")
        results_after.append(0)
    return Request(
        "chat",
        str(body.get("model") or "mock-model"),
        bool(body.get("stream")),
        _schema_tools(body.get("tools") or []),
        texts,
        results_after,
        "\n".join(system),
        _json_schema(body.get("response_format")),
    )


def parse_gemini(body: dict[str, Any], model: str, stream: bool) -> Request:
    texts, results_after = [], []
    for content in body.get("contents") or []:
        parts = content.get("parts") or []
        results = sum(
            1 for p in parts if isinstance(p, dict) and "functionResponse" in p
        )
        if results:
            results_after = [n + results for n in results_after]
        text = "\n".join(
            str(p.get("text", "")) for p in parts if isinstance(p, dict) and "text" in p
        )
        texts.append(text if content.get("role", "user") == "user" else "")
        results_after.append(0)
    declarations = []
    for group in body.get("tools") or []:
        declarations.extend(
            group.get("functionDeclarations")
            or group.get("function_declarations")
            or []
        )
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema is None and config.get("responseMimeType") == "application/json":
        schema = {"type": "object"}
    system = body.get("systemInstruction") or body.get("system_instruction") or {}
    return Request(
        "gemini",
        model,
        stream,
        _schema_tools(declarations),
        texts,
        results_after,
        _text_of(system.get("parts") if isinstance(system, dict) else system),
        _json_schema(schema),
    )


# --- writing answers ----------------------------------------------------------------------


def _arguments(call: Call) -> str:
    return json.dumps(call.arguments)


def anthropic_answer(
    request: Request, reply: Reply
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """The whole message, and the same message as SSE events."""
    message_id = "msg_mock" + uuid.uuid4().hex[:20]
    block: dict[str, Any]
    if reply.call:
        block = {
            "type": "tool_use",
            "id": "toolu_mock" + uuid.uuid4().hex[:20],
            "name": reply.call.name,
            "input": reply.call.arguments,
        }
        stop = "tool_use"
    else:
        block = {"type": "text", "text": reply.text}
        stop = "end_turn"
    usage = {
        "input_tokens": USAGE[0],
        "output_tokens": USAGE[1],
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    whole = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    start = dict(
        whole, content=[], stop_reason=None, usage=dict(usage, output_tokens=1)
    )
    if reply.call:
        opening = dict(block, input={})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        opening = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply.text}
    events = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": opening},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": delta},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": USAGE[1]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return whole, events


def responses_answer(
    request: Request, reply: Reply
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    response_id = "resp_mock" + uuid.uuid4().hex[:20]
    item: dict[str, Any]
    if reply.call:
        item = {
            "type": "function_call",
            "id": "fc_mock" + uuid.uuid4().hex[:20],
            "status": "completed",
            "name": reply.call.name,
            "arguments": _arguments(reply.call),
            "call_id": reply.call.id,
        }
        if reply.call.namespace:
            item["namespace"] = reply.call.namespace
    else:
        item = {
            "type": "message",
            "id": "msg_mock" + uuid.uuid4().hex[:20],
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        }
    usage = {
        "input_tokens": USAGE[0],
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": USAGE[1],
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": sum(USAGE),
    }
    base = {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "model": request.model,
    }
    whole = dict(base, status="completed", output=[item], usage=usage)
    sequence = itertools.count()
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "response.created",
            {
                "type": "response.created",
                "response": dict(base, status="in_progress", output=[]),
            },
        ),
    ]
    pending = dict(item, status="in_progress")
    if not reply.call:
        pending["content"] = []
    events.append(
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": pending},
        )
    )
    if reply.call:
        events.append(
            (
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "delta": item["arguments"],
                },
            )
        )
    else:
        events.append(
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": reply.text,
                },
            )
        )
    events.append(
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        )
    )
    events.append(
        ("response.completed", {"type": "response.completed", "response": whole})
    )
    for _, data in events:
        data["sequence_number"] = next(sequence)
    return whole, events


def chat_answer(
    request: Request, reply: Reply, include_usage: bool
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    completion_id = "chatcmpl-mock" + uuid.uuid4().hex[:16]
    created = int(time.time())
    usage = {
        "prompt_tokens": USAGE[0],
        "completion_tokens": USAGE[1],
        "total_tokens": sum(USAGE),
    }
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    finish = "stop"
    if reply.call:
        # Short ids: Mistral-style backends accept 9 characters, OpenAI-style accept anything.
        call_id = uuid.uuid4().hex[:9]
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": reply.call.name,
                    "arguments": _arguments(reply.call),
                },
            }
        ]
        finish = "tool_calls"
    base = {"id": completion_id, "created": created, "model": request.model}
    whole = dict(
        base,
        object="chat.completion",
        choices=[{"index": 0, "message": message, "finish_reason": finish}],
        usage=usage,
    )
    chunk = dict(base, object="chat.completion.chunk")
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "",
            dict(
                chunk,
                choices=[
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": ""},
                        "finish_reason": None,
                    }
                ],
            ),
        ),
    ]
    if reply.call and reply.text:  # the text first, then the call (gptme's `complete`)
        events.append(
            (
                "",
                dict(
                    chunk,
                    choices=[
                        {
                            "index": 0,
                            "delta": {"content": reply.text},
                            "finish_reason": None,
                        }
                    ],
                ),
            )
        )
    if reply.call:
        call = dict(message["tool_calls"][0], index=0)
        events.append(
            (
                "",
                dict(
                    chunk,
                    choices=[
                        {
                            "index": 0,
                            "delta": {"tool_calls": [call]},
                            "finish_reason": None,
                        }
                    ],
                ),
            )
        )
    else:
        events.append(
            (
                "",
                dict(
                    chunk,
                    choices=[
                        {
                            "index": 0,
                            "delta": {"content": reply.text},
                            "finish_reason": None,
                        }
                    ],
                ),
            )
        )
    if include_usage:
        events.append(
            (
                "",
                dict(
                    chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}]
                ),
            )
        )
        events.append(("", dict(chunk, choices=[], usage=usage)))
    else:
        events.append(
            (
                "",
                dict(
                    chunk,
                    choices=[{"index": 0, "delta": {}, "finish_reason": finish}],
                    usage=usage,
                ),
            )
        )
    return whole, events


def gemini_answer(request: Request, reply: Reply) -> dict[str, Any]:
    part: dict[str, Any]
    if reply.call:
        part = {"functionCall": {"name": reply.call.name, "args": reply.call.arguments}}
    else:
        part = {"text": reply.text}
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [part]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": USAGE[0],
            "candidatesTokenCount": USAGE[1],
            "totalTokenCount": sum(USAGE),
        },
        "modelVersion": request.model,
        "responseId": "mock" + uuid.uuid4().hex[:16],
    }


# --- the server ---------------------------------------------------------------------------


class MockLLM:
    """The server: `with MockLLM(log_path) as mock: mock.base_url`. Safe to share between threads."""

    def __init__(
        self,
        log_path: str | Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        bodies_path: str | Path | None = None,
    ) -> None:
        self.log_path = Path(log_path) if log_path else None
        # Whole request bodies, for debugging a recipe.
        self.bodies_path = Path(bodies_path) if bodies_path else None
        self._lock = threading.Lock()
        self._log: list[dict[str, Any]] = []
        handler = type("Handler", (_Handler,), {"mock": self})
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="mockllm", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MockLLM:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> MockLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def requests(self) -> list[dict[str, Any]]:
        """A copy of the request log so far."""
        with self._lock:
            return list(self._log)

    def children_done(self) -> int:
        """Sub-agent answers served since the last spawn."""
        done = 0
        with self._lock:
            for entry in reversed(self._log):
                if (
                    entry.get("scenario") == "subagent"
                    and entry.get("results") == 0
                    and entry.get("action") != "final"
                ):
                    break
                if entry.get("scenario") == "child" and entry.get("action") in (
                    "final",
                    "complete_task",
                ):
                    done += 1
        return done

    def record_body(self, path: str, body: Any) -> None:
        if self.bodies_path is None:
            return
        with self._lock, self.bodies_path.open("a", encoding="utf-8") as out:
            out.write(
                json.dumps({"n": len(self._log), "path": path, "body": body}) + "\n"
            )

    def record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            entry["n"] = len(self._log)
            self._log.append(entry)
            if self.log_path:
                with self.log_path.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(entry) + "\n")


class _Handler(BaseHTTPRequestHandler):
    mock: MockLLM
    protocol_version = "HTTP/1.1"
    server_version = "mockllm/1"

    def log_message(
        self, format: str, *args: Any
    ) -> None:  # quiet: the request log says it all
        return

    # routing

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path.rstrip("/").endswith("/models"):
            if "/v1beta" in path or "/v1alpha" in path:
                body: dict[str, Any] = {
                    "models": [
                        {
                            "name": "models/mock-model",
                            "displayName": "Mock",
                            "supportedGenerationMethods": ["generateContent"],
                        }
                    ]
                }
            else:
                body = {
                    "object": "list",
                    "data": [
                        {
                            "id": "mock-model",
                            "object": "model",
                            "created": 0,
                            "owned_by": "mock",
                        }
                    ],
                }
            self._log_plain("models", path, 200)
            self._json(200, body)
            return
        self._log_plain("unknown", path, 404)
        self._json(
            404,
            {
                "error": {
                    "message": f"mockllm has no route for GET {path}",
                    "type": "not_found",
                }
            },
        )

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        split = urlsplit(self.path)
        path = split.path
        try:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw or b"{}")
        except (ValueError, OSError):
            self._log_plain("bad-json", path, 400)
            self._json(
                400,
                {
                    "error": {
                        "message": "request body is not JSON",
                        "type": "invalid_request_error",
                    }
                },
            )
            return
        self.mock.record_body(self.path, body)
        if path.endswith("/messages/count_tokens"):
            self._log_plain("count_tokens", path, 200)
            self._json(200, {"input_tokens": USAGE[0]})
            return
        if path.endswith("/messages"):
            request = parse_anthropic(body)
            request.children_done = self.mock.children_done()
            reply = decide(request)
            whole, events = anthropic_answer(request, reply)
            self._answer(
                request, reply, path, whole, [(name, data) for name, data in events]
            )
            return
        if path.endswith("/responses"):
            request = parse_responses(body)
            request.children_done = self.mock.children_done()
            reply = decide(request)
            whole, events = responses_answer(request, reply)
            self._answer(request, reply, path, whole, events)
            return
        if path.endswith("/chat/completions"):
            request = parse_chat(body)
            request.children_done = self.mock.children_done()
            reply = decide(request)
            include_usage = bool(
                (body.get("stream_options") or {}).get("include_usage")
            )
            whole, events = chat_answer(request, reply, include_usage)
            self._answer(request, reply, path, whole, events, done_marker=True)
            return
        gemini = re.search(
            r"/models/([^/:]+):(generateContent|streamGenerateContent|countTokens)$",
            path,
        )
        if gemini:
            model, method = gemini.group(1), gemini.group(2)
            if method == "countTokens":
                self._log_plain("count_tokens", path, 200)
                self._json(200, {"totalTokens": USAGE[0]})
                return
            stream = method == "streamGenerateContent"
            request = parse_gemini(body, model, stream)
            request.children_done = self.mock.children_done()
            reply = decide(request)
            whole = gemini_answer(request, reply)
            if stream and "alt=sse" in split.query:
                self._answer(request, reply, path, whole, [("", whole)])
            elif stream:
                self._log(request, reply, path, 200)
                self._json(200, [whole])
            else:
                request.stream = False
                self._answer(request, reply, path, whole, [])
            return
        self._log_plain("unknown", path, 404)
        self._json(
            404,
            {
                "error": {
                    "message": f"mockllm has no route for POST {path}",
                    "type": "not_found",
                }
            },
        )

    # writing

    def _answer(
        self,
        request: Request,
        reply: Reply,
        path: str,
        whole: dict[str, Any],
        events: list[tuple[str, dict[str, Any]]],
        done_marker: bool = False,
    ) -> None:
        self._log(request, reply, path, 200)
        if not request.stream:
            self._json(200, whole)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for name, data in events:
            frame = (
                f"event: {name}\n" if name else ""
            ) + f"data: {json.dumps(data)}\n\n"
            self._chunk(frame.encode())
        if done_marker:
            self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _log(self, request: Request, reply: Reply, path: str, status: int) -> None:
        self.mock.record(
            {
                "time": time.time(),
                "api": request.api,
                "path": path,
                "status": status,
                "model": request.model,
                "stream": request.stream,
                "tools": len(request.tools),
                "tool_names": sorted(t.name for t in request.tools)[:80],
                "kind": reply.kind,
                "scenario": reply.scenario,
                "results": reply.results,
                "action": reply.action,
                "user_agent": self.headers.get("User-Agent", ""),
            }
        )

    def _log_plain(self, kind: str, path: str, status: int) -> None:
        self.mock.record(
            {
                "time": time.time(),
                "api": None,
                "path": path,
                "status": status,
                "kind": kind,
                "action": kind,
            }
        )


def sse_events(data: bytes) -> Iterator[tuple[str, Any]]:
    """Parse an SSE body back into (event, data) pairs: for tests and debugging."""
    for frame in data.decode().split("\n\n"):
        name, payload = "", []
        for line in frame.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                payload.append(line[5:].strip())
        if payload:
            text = "\n".join(payload)
            yield name, text if text == "[DONE]" else json.loads(text)


if __name__ == "__main__":  # pragma: no cover - for poking at it by hand
    import argparse

    parser = argparse.ArgumentParser(
        description="Serve the scripted mock model on 127.0.0.1."
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", help="append every request to this JSONL file")
    options = parser.parse_args()
    with MockLLM(options.log, port=options.port) as server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
