"""The conformance suite's mock model, tested over real HTTP on 127.0.0.1. Fast, and always run."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from . import apps
from .mockllm import CHILD_PROMPT, FINAL, SUMMARY, TITLE, MockLLM, sse_events

SHELL = {
    "type": "object",
    "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
    "required": ["command"],
}


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockLLM]:
    with MockLLM(tmp_path / "requests.jsonl") as server:
        yield server


def post(mock: MockLLM, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
    request = urllib.request.Request(
        mock.base_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def anthropic(
    mock: MockLLM,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    **extra: Any,
) -> list[tuple[str, Any]]:
    status, body = post(
        mock,
        "/v1/messages?beta=true",
        {
            "model": "claude-test",
            "stream": True,
            "messages": messages,
            "tools": tools,
            **extra,
        },
    )
    assert status == 200
    return list(sse_events(body))


def test_anthropic_runs_the_shell_tool_then_answers(mock: MockLLM) -> None:
    tools = [{"name": "Bash", "input_schema": SHELL}]
    first = [{"role": "user", "content": "SCENARIO=basic run it"}]
    events = anthropic(mock, first, tools)
    assert events[0][0] == "message_start"
    assert events[0][1]["message"]["model"] == "claude-test"
    start = next(data for name, data in events if name == "content_block_start")[
        "content_block"
    ]
    delta = next(data for name, data in events if name == "content_block_delta")[
        "delta"
    ]
    assert start["type"] == "tool_use" and start["name"] == "Bash"
    assert json.loads(delta["partial_json"]) == {
        "command": "echo hello-from-tool",
        "description": "Print a greeting",
    }
    assert (
        next(d for n, d in events if n == "message_delta")["delta"]["stop_reason"]
        == "tool_use"
    )

    second = [
        *first,
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": start["id"], "name": "Bash", "input": {}}
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": start["id"],
                    "content": "hello-from-tool",
                }
            ],
        },
    ]
    events = anthropic(mock, second, tools)
    assert (
        next(d for n, d in events if n == "content_block_delta")["delta"]["text"]
        == FINAL["basic"]
    )
    assert (
        next(d for n, d in events if n == "message_delta")["delta"]["stop_reason"]
        == "end_turn"
    )
    log = mock.requests()
    assert [(r["scenario"], r["results"], r["action"]) for r in log] == [
        ("basic", 0, "Bash"),
        ("basic", 1, "final"),
    ]


def test_the_last_marker_picks_the_scenario(mock: MockLLM) -> None:
    tools = [{"name": "Bash", "input_schema": SHELL}]
    messages = [
        {"role": "user", "content": "SCENARIO=basic run it"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "SCENARIO=resume again"},
    ]
    events = anthropic(mock, messages, tools)
    assert (
        "hello-after-resume"
        in next(d for n, d in events if n == "content_block_delta")["delta"][
            "partial_json"
        ]
    )
    # A marker quoted inside JSON (a notification echoing a task) is not a prompt.
    quoted = [{"role": "user", "content": 'notice: {"message":"SCENARIO=child do it"}'}]
    anthropic(mock, quoted, tools)
    assert mock.requests()[-1]["scenario"] is None


def test_title_requests_get_a_title_as_json_or_text(mock: MockLLM) -> None:
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string"}},
        "required": ["title"],
    }
    status, body = post(
        mock,
        "/v1/messages",
        {
            "model": "m",
            "messages": [{"role": "user", "content": "SCENARIO=basic x"}],
            "output_format": {"type": "json_schema", "schema": schema},
        },
    )
    assert status == 200 and json.loads(json.loads(body)["content"][0]["text"]) == {
        "title": TITLE
    }
    status, body = post(
        mock,
        "/v1/chat/completions",
        {
            "model": "m",
            "messages": [
                {"role": "system", "content": "You are a title generator."},
                {"role": "user", "content": "hi"},
            ],
        },
    )
    assert json.loads(body)["choices"][0]["message"]["content"] == TITLE
    assert [r["kind"] for r in mock.requests()] == ["json", "title"]


def test_responses_spawn_wait_and_answer_with_namespaced_tools(mock: MockLLM) -> None:
    tools = [
        {
            "type": "function",
            "name": "exec_command",
            "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
        },
        {
            "type": "namespace",
            "name": "collaboration",
            "tools": [
                {
                    "type": "function",
                    "name": "spawn_agent",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "message": {"type": "string"},
                            "task_name": {"type": "string"},
                        },
                    },
                },
                {
                    "type": "function",
                    "name": "wait_agent",
                    "parameters": {"type": "object", "properties": {}},
                },
            ],
        },
    ]
    items: list[dict[str, Any]] = [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "SCENARIO=subagent go"}],
        }
    ]

    def turn() -> dict[str, Any]:
        status, body = post(
            mock,
            "/v1/responses",
            {"model": "gpt-test", "stream": True, "input": items, "tools": tools},
        )
        assert status == 200
        events = list(sse_events(body))
        assert (
            events[0][0] == "response.created" and events[-1][0] == "response.completed"
        )
        return next(d for n, d in events if n == "response.output_item.done")["item"]

    spawn = turn()
    assert spawn["name"] == "spawn_agent" and spawn["namespace"] == "collaboration"
    assert json.loads(spawn["arguments"]) == {
        "message": CHILD_PROMPT,
        "task_name": "greeter",
    }
    items += [
        spawn,
        {"type": "function_call_output", "call_id": spawn["call_id"], "output": "{}"},
    ]
    wait = turn()
    assert wait["name"] == "wait_agent"
    items += [
        wait,
        {"type": "function_call_output", "call_id": wait["call_id"], "output": "{}"},
    ]
    final = turn()
    assert (
        final["type"] == "message" and final["content"][0]["text"] == FINAL["subagent"]
    )

    # The child sees the parent's history, then its task as an agent message.
    child = [
        *items,
        {
            "type": "agent_message",
            "content": [
                {"type": "encrypted_content", "encrypted_content": CHILD_PROMPT}
            ],
        },
    ]
    _, body = post(
        mock,
        "/v1/responses",
        {"model": "gpt-test", "stream": True, "input": child, "tools": tools},
    )
    item = next(d for n, d in sse_events(body) if n == "response.output_item.done")[
        "item"
    ]
    assert json.loads(item["arguments"]) == {"cmd": "echo hello-from-subagent"}


def test_chat_completions_stream_tool_calls_usage_and_done(mock: MockLLM) -> None:
    body = {
        "model": "mock-model",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "sys"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "SCENARIO=basic go"}],
            },
        ],
        "tools": [
            {"type": "function", "function": {"name": "bash", "parameters": SHELL}}
        ],
    }
    status, raw = post(mock, "/v1/chat/completions", body)
    events = [data for _, data in sse_events(raw)]
    assert status == 200 and events[-1] == "[DONE]"
    call = next(
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in events[:-1]
        if c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    )
    assert (
        call["function"]["name"] == "bash"
        and json.loads(call["function"]["arguments"])["command"]
        == "echo hello-from-tool"
    )
    assert events[-2]["usage"]["prompt_tokens"] > 0 and events[-2]["choices"] == []
    finish = [
        c["choices"][0]["finish_reason"]
        for c in events[:-1]
        if c["choices"] and c["choices"][0]["finish_reason"]
    ]
    assert finish == ["tool_calls"]
    body["messages"] += [
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "hello"},
    ]
    body["stream"] = False
    status, raw = post(mock, "/v1/chat/completions", body)
    assert json.loads(raw)["choices"][0]["message"]["content"] == FINAL["basic"]


def test_gemini_sse_function_call_and_json_router(mock: MockLLM) -> None:
    tools = [
        {
            "functionDeclarations": [
                {"name": "run_shell_command", "parametersJsonSchema": SHELL}
            ]
        }
    ]
    contents = [{"role": "user", "parts": [{"text": "SCENARIO=basic go"}]}]
    status, raw = post(
        mock,
        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
        {"contents": contents, "tools": tools},
    )
    ((_, chunk),) = list(sse_events(raw))
    part = chunk["candidates"][0]["content"]["parts"][0]
    assert status == 200 and part["functionCall"]["name"] == "run_shell_command"
    router = {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "complexity_score": {"type": "integer", "minimum": 1},
        },
    }
    status, raw = post(
        mock,
        "/v1beta/models/flash-lite:generateContent",
        {"contents": contents, "generationConfig": {"responseJsonSchema": router}},
    )
    answer = json.loads(json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"])
    assert answer["complexity_score"] >= 1
    summary = [
        {
            "role": "user",
            "parts": [{"text": "Summarize this conversation in one line."}],
        }
    ]
    status, raw = post(
        mock, "/v1beta/models/flash-lite:generateContent", {"contents": summary}
    )
    assert json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"] == SUMMARY
    assert [r["model"] for r in mock.requests()] == [
        "gemini-test",
        "flash-lite",
        "flash-lite",
    ]


def test_subagent_tools_get_the_child_prompt_and_a_known_agent_type(
    mock: MockLLM,
) -> None:
    agent = {
        "type": "object",
        "properties": {
            "prompt": {"type": "string"},
            "description": {"type": "string"},
            "subagent_type": {"type": "string"},
        },
        "required": ["prompt", "description"],
    }
    tools = [
        {
            "type": "function",
            "function": {
                "name": "task",
                "description": "Agents: general, explore",
                "parameters": agent,
            },
        }
    ]
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "SCENARIO=subagent go"}],
        "tools": tools,
    }
    _, raw = post(mock, "/v1/chat/completions", body)
    call = json.loads(raw)["choices"][0]["message"]["tool_calls"][0]["function"]
    assert json.loads(call["arguments"]) == {
        "prompt": CHILD_PROMPT,
        "description": "Greeting sub-agent",
        "subagent_type": "general",
    }


def test_unknown_routes_are_404_and_logged(mock: MockLLM, tmp_path: Path) -> None:
    status, _ = post(mock, "/v2/nothing", {})
    assert status == 404
    with urllib.request.urlopen(mock.base_url + "/v1/models", timeout=10) as response:
        assert json.loads(response.read())["data"][0]["id"] == "mock-model"
    lines = (tmp_path / "requests.jsonl").read_text().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["unknown", "models"]


def test_session_ids_are_read_from_each_clis_stream() -> None:
    assert (
        apps.session_id_from_stdout(
            '{"type":"system","subtype":"init","session_id":"abc"}\n'
        )
        == "abc"
    )
    assert (
        apps.session_id_from_stdout(
            'not json\n{"type":"thread.started","thread_id":"t-1"}'
        )
        == "t-1"
    )
    assert (
        apps.session_id_from_stdout('{"type":"session","version":3,"id":"pi-1"}')
        == "pi-1"
    )
    assert (
        apps.session_id_from_stdout('{"type":"x","data":{"sessionId":"cp-1"}}')
        == "cp-1"
    )
    assert apps.session_id_from_stdout("") is None


def test_kimi_shell_tool_is_run_and_a_toolless_chat_gets_the_plain_answer(
    mock: MockLLM,
) -> None:
    """Kimi CLI names its shell tool `Shell` (beside `ReadFile`); aider sends no tools at all."""
    read = {"type": "object", "properties": {"path": {"type": "string"}}}
    body: dict[str, Any] = {
        "model": "mock-model",
        "messages": [{"role": "user", "content": "SCENARIO=basic go"}],
        "tools": [
            {"type": "function", "function": {"name": "ReadFile", "parameters": read}},
            {"type": "function", "function": {"name": "Shell", "parameters": SHELL}},
        ],
    }
    status, raw = post(mock, "/v1/chat/completions", body)
    call = json.loads(raw)["choices"][0]["message"]["tool_calls"][0]["function"]
    assert status == 200 and call["name"] == "Shell"
    assert json.loads(call["arguments"])["command"] == "echo hello-from-tool"
    del body["tools"]
    body["messages"].insert(0, {"role": "system", "content": "Act as an expert."})
    status, raw = post(mock, "/v1/chat/completions", body)
    assert json.loads(raw)["choices"][0]["message"]["content"] == FINAL["basic"]


def test_aider_session_ids_are_the_ones_sessdex_gives_each_run(tmp_path: Path) -> None:
    """The harness names aider's runs as sources/aider.py does: all of them, or those a step added."""
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import Home, aider

    (tmp_path / ".aider").mkdir()
    log = tmp_path / aider.HISTORY
    run = "\n# aider chat started at 2026-12-02 08:0{}:00\n\n#### hello {}  \n\nhi\n"
    log.write_text(run.format(1, "one"))
    middle = log.stat().st_size
    log.write_text(run.format(1, "one") + run.format(2, "two"))
    location = aider.locate(Home.at(tmp_path))
    listed = [s.id for s in aider.parse(log, location, Diagnostics())]
    assert len(listed) == 2
    assert apps.aider_session_ids(log, 0) == listed
    assert apps.aider_session_ids(log, middle) == listed[1:]


def test_kimi_names_its_session_on_stderr() -> None:
    pattern = apps.RECIPES["kimi"].stderr_id
    hint = "\nTo resume this session: kimi -r 0b9c7b36-4f1e-4d0a-9d55-1c2b3a4d5e6f\n"
    found = re.search(pattern or "^$", hint)
    assert found and found.group(1) == "0b9c7b36-4f1e-4d0a-9d55-1c2b3a4d5e6f"


def test_the_edit_scenario_answers_with_one_search_replace_block(mock: MockLLM) -> None:
    """For aider, whose edits are text: the answer is the edit, with or without tools."""
    body: dict[str, Any] = {
        "model": "mock-model",
        "messages": [{"role": "user", "content": "SCENARIO=edit make it 'done'"}],
    }
    for tools in ([], [{"type": "function", "function": {"name": "Agent"}}]):
        status, raw = post(mock, "/v1/chat/completions", body | {"tools": tools})
        text = json.loads(raw)["choices"][0]["message"]["content"]
        assert status == 200 and text == FINAL["edit"]
        assert "<<<<<<< SEARCH\n    return 'ok'\n=======\n    return 'done'\n" in text


def test_a_run_commands_tool_gets_the_command_as_one_line_of_its_list(
    mock: MockLLM,
) -> None:
    """Cline's `run_commands` takes a list of shell lines, not one argv."""
    lines = {
        "type": "object",
        "properties": {"commands": {"type": "array", "items": {"type": "string"}}},
        "required": ["commands"],
    }
    body = {
        "model": "mock-model",
        "messages": [{"role": "user", "content": "SCENARIO=basic go"}],
        "tools": [
            {
                "type": "function",
                "function": {"name": "run_commands", "parameters": lines},
            }
        ],
    }
    status, raw = post(mock, "/v1/chat/completions", body)
    call = json.loads(raw)["choices"][0]["message"]["tool_calls"][0]
    assert status == 200 and call["function"]["name"] == "run_commands"
    assert json.loads(call["function"]["arguments"]) == {
        "commands": ["echo hello-from-tool"]
    }


def test_nanocoders_execute_bash_is_a_shell_tool(mock: MockLLM) -> None:
    """Nanocoder offers its shell as `execute_bash` among twenty tools (`agent` too)."""
    command = {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    }
    body = {
        "model": "mock-model",
        "messages": [{"role": "user", "content": "SCENARIO=basic go"}],
        "tools": [
            {"type": "function", "function": {"name": name, "parameters": command}}
            for name in ("read_file", "execute_bash")
        ],
    }
    status, raw = post(mock, "/v1/chat/completions", body)
    call = json.loads(raw)["choices"][0]["message"]["tool_calls"][0]
    assert status == 200 and call["function"]["name"] == "execute_bash"
    assert json.loads(call["function"]["arguments"]) == {
        "command": "echo hello-from-tool"
    }


def test_slow_makes_the_shell_call_sleep_after_its_echo_and_the_child_too(
    mock: MockLLM,
) -> None:
    """SLOW=<n> (the live-state checks): the command still prints the greeting, then sleeps
    (not `sleep` first, which Qwen Code refuses); a sub-agent is told the same."""
    tools = [{"name": "Bash", "input_schema": SHELL}]
    events = anthropic(
        mock, [{"role": "user", "content": "SCENARIO=basic SLOW=8 run it"}], tools
    )
    delta = next(data for name, data in events if name == "content_block_delta")
    command = json.loads(delta["delta"]["partial_json"])["command"]
    assert command == "echo hello-from-tool && sleep 8"
    spawn = {
        "name": "Agent",
        "input_schema": {
            "type": "object",
            "properties": {
                "prompt": {"type": "string"},
                "run_in_background": {"type": "boolean"},
            },
            "required": ["prompt"],
        },
    }
    events = anthropic(
        mock, [{"role": "user", "content": "SCENARIO=subagent SLOW=3 go"}], [spawn]
    )
    delta = next(data for name, data in events if name == "content_block_delta")
    arguments = json.loads(delta["delta"]["partial_json"])
    assert arguments == {"prompt": f"{CHILD_PROMPT} SLOW=3", "run_in_background": False}
    events = anthropic(mock, [{"role": "user", "content": arguments["prompt"]}], tools)
    delta = next(data for name, data in events if name == "content_block_delta")
    command = json.loads(delta["delta"]["partial_json"])["command"]
    assert command == "echo hello-from-subagent && sleep 3"
    # without SLOW, nothing sleeps
    events = anthropic(mock, [{"role": "user", "content": CHILD_PROMPT}], tools)
    delta = next(data for name, data in events if name == "content_block_delta")
    assert json.loads(delta["delta"]["partial_json"])["command"] == (
        "echo hello-from-subagent"
    )


def test_hermes_terminal_and_delegate_task_tools(mock: MockLLM) -> None:
    """Hermes Agent's shell tool is `terminal`; its `delegate_task` takes the sub-agent's
    prompt as its `goal` (with a `tasks` list beside it, left empty)."""
    delegate = {
        "type": "object",
        "properties": {
            "goal": {"type": "string"},
            "context": {"type": "string"},
            "tasks": {"type": "array", "items": {"type": "object"}},
            "background": {"type": "boolean"},
        },
        "required": [],
    }
    tools = [
        {"type": "function", "function": {"name": "terminal", "parameters": SHELL}},
        {
            "type": "function",
            "function": {"name": "delegate_task", "parameters": delegate},
        },
    ]
    answers = []
    for prompt in ("SCENARIO=basic go", "SCENARIO=subagent go"):
        body = {
            "model": "mock-model",
            "messages": [{"role": "user", "content": prompt}],
            "tools": tools,
        }
        status, raw = post(mock, "/v1/chat/completions", body)
        assert status == 200
        answers.append(json.loads(raw)["choices"][0]["message"]["tool_calls"][0])
    shell, spawn = (a["function"] for a in answers)
    assert shell["name"] == "terminal"
    assert json.loads(shell["arguments"])["command"] == "echo hello-from-tool"
    assert spawn["name"] == "delegate_task"
    assert json.loads(spawn["arguments"]) == {"goal": CHILD_PROMPT}


def test_hermes_names_its_session_on_stderr() -> None:
    pattern = apps.RECIPES["hermes"].stderr_id
    said = "Finished.\n\nsession_id: 20261205_191117_067db2\n"
    found = re.search(pattern or "^$", said)
    assert found and found.group(1) == "20261205_191117_067db2"


def test_hermes_sessions_begun_since_a_time_leave_sub_agents_out(
    tmp_path: Path,
) -> None:
    """Hermes' TUI and `-z` print no session id: the lead sessions its database gained are
    the step's (the real 0.19.0 database of tests/data/hermes/real)."""
    import shutil

    real = Path(__file__).parents[1] / "data" / "hermes" / "real" / "home"
    shutil.copytree(real, tmp_path, dirs_exist_ok=True)
    begun = apps.hermes_session_ids(tmp_path, 0)
    assert begun == [
        "20261205_191335_32b291",
        "20261205_191422_2ef38f",
        "20261205_191435_b0fe5e",
    ]  # not the sub-agent 20261205_191424_d96816
    assert apps.hermes_session_ids(tmp_path, 1796498091.0) == ["20261205_191435_b0fe5e"]
    assert apps.hermes_session_ids(tmp_path / "nowhere", 0) == []


def test_gptme_spawns_and_waits_in_ipython_and_completes_with_its_answer(
    mock: MockLLM,
) -> None:
    """gptme: its sub-agents are functions of the `ipython` tool, which its system prompt
    describes; `--non-interactive` offers `complete` (no arguments), called with the final
    answer, text and call in one response."""
    python = {
        "type": "object",
        "properties": {"code": {"type": "string"}},
        "required": ["code"],
    }
    tools = [
        {"type": "function", "function": {"name": name, "parameters": schema}}
        for name, schema in (
            ("shell", SHELL),
            ("ipython", python),
            ("complete", {"type": "object", "properties": {}}),
        )
    ]
    system = 'Use `subagent("id", "task")` in ipython to start a subagent.'

    def ask(*after: dict[str, Any]) -> dict[str, Any]:
        body = {
            "model": "mock-model",
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": "SCENARIO=subagent SLOW=2 go"},
                *after,
            ],
            "tools": tools,
        }
        status, raw = post(mock, "/v1/chat/completions", body)
        assert status == 200
        message: dict[str, Any] = json.loads(raw)["choices"][0]["message"]
        return message

    def code(message: dict[str, Any]) -> str:
        call = message["tool_calls"][0]["function"]
        assert call["name"] == "ipython"
        return str(json.loads(call["arguments"])["code"])

    spawn = ask()
    assert (
        code(spawn)
        == f"subagent({json.dumps('greeter')}, {json.dumps(CHILD_PROMPT + ' SLOW=2')})"
    )
    result = {"role": "tool", "tool_call_id": "a", "content": "Executed code block."}
    wait = ask({"role": "assistant", "content": None}, result)
    assert code(wait) == 'subagent_wait("greeter", timeout=120)'
    final = ask({"role": "assistant", "content": None}, result, result)
    assert final["content"] == FINAL["subagent"]
    assert final["tool_calls"][0]["function"]["name"] == "complete"
    # streamed: the text, then the call
    body = {
        "model": "mock-model",
        "stream": True,
        "messages": [{"role": "user", "content": "SCENARIO=basic go"}, result],
        "tools": tools,
    }
    status, raw = post(mock, "/v1/chat/completions", body)
    assert status == 200
    deltas = [
        c["choices"][0]["delta"]
        for _, c in sse_events(raw)
        if isinstance(c, dict) and c.get("choices")
    ]
    said = [d["content"] for d in deltas if d.get("content")]
    called = [
        d["tool_calls"][0]["function"]["name"] for d in deltas if "tool_calls" in d
    ]
    assert (said, called) == ([FINAL["basic"]], ["complete"])


def test_openclaw_prompt_envelope_exec_tool_and_its_one_json_document(
    mock: MockLLM,
) -> None:
    """OpenClaw 2026.9 puts `[Sat 2026-12-05 19:13 UTC] ` before the user's prompt, names
    its shell tool `exec` (beside `process`, `read`, and a `terminal` that is no shell:
    Hermes' shell has that name), and prints `agent --json`'s result as one JSON document
    over many lines, naming the session's id and key."""
    tools = [
        {"type": "function", "function": {"name": name, "parameters": SHELL}}
        for name in ("process", "terminal", "exec")
    ]
    body: dict[str, Any] = {
        "model": "mock-model",
        "messages": [
            {
                "role": "user",
                "content": "[Sat 2026-12-05 19:13 UTC] SCENARIO=basic SLOW=8 go\n\n"
                "Runtime: agent=main | session=agent:main:main",
            }
        ],
        "tools": tools,
    }
    status, raw = post(mock, "/v1/chat/completions", body)
    call = json.loads(raw)["choices"][0]["message"]["tool_calls"][0]["function"]
    assert status == 200 and call["name"] == "exec"
    assert json.loads(call["arguments"])["command"] == "echo hello-from-tool && sleep 8"
    # an envelope is a bracket at the start of the line, not any text before the marker
    body["messages"][0]["content"] = "see [note] SCENARIO=basic go"
    post(mock, "/v1/chat/completions", body)
    assert mock.requests()[-1]["scenario"] is None
    printed = json.dumps(
        {
            "payloads": [{"text": FINAL["basic"]}],
            "meta": {
                "agentMeta": {
                    "sessionId": "e1004494",
                    "sessionFile": "agent:main:main",
                },
                "systemPromptReport": {"sessionKey": "agent:main:main"},
            },
        },
        indent=2,
    )
    assert apps.session_id_from_stdout(printed) == "e1004494"
    assert apps.session_key_from_stdout(printed) == "agent:main:main"
