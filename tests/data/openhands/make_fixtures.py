"""Writes the synthetic OpenHands CLI fixtures (no real conversation was at hand).

Run from anywhere: `python tests/data/openhands/make_fixtures.py`. The records follow the
agent SDK's pydantic models as `model_dump_json(exclude_none=True)` writes them (each event
with its class name in `kind`; OpenHands/software-agent-sdk @611629e6, event/*.py,
conversation/state.py, llm/utils/metrics.py) in the CLI's layout (OpenHands/OpenHands-CLI
@6b3838ce, locations.py): `~/.openhands/conversations/<uuid hex>/base_state.json` and
`events/event-<index:05d>-<event id>.json`; the second conversation uses the SDK's first
naming, `event-<index:05d>.json`. Times are naive local ISO times, as the SDK writes them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE / "home" / ".openhands"
MALFORMED = HERE / "malformed" / "home" / ".openhands" / "conversations"

FINISHED = "5f0c3e2a9b8d4c7e a1f2b3c4d5e6f708".replace(" ", "")
PAUSED = "0d9e8f7a6b5c4d3e 2f1a0b9c8d7e6f50".replace(" ", "")


def text(value: str) -> dict[str, object]:
    return {"cache_prompt": False, "type": "text", "text": value}


def event(
    kind: str, index: int, second: int, source: str, **fields: object
) -> dict[str, object]:
    return {
        "kind": kind,
        "id": f"{index:08x}-0000-4000-8000-{second:012x}",
        "timestamp": f"2026-10-02T08:52:{second:02d}.000000",
        "source": source,
        **fields,
    }


def message(
    index: int, second: int, source: str, words: str, **fields: object
) -> dict[str, object]:
    role = "user" if source == "user" else "assistant"
    llm = {"role": role, "content": [text(words)], **fields.pop("llm", {})}  # type: ignore[dict-item]
    return event(
        "MessageEvent", index, second, source, llm_message=llm,
        activated_skills=[], extended_content=[], **fields,
    )  # fmt: skip


def action(
    index: int,
    second: int,
    tool: str,
    call_id: str,
    act: dict[str, object],
    **fields: object,
) -> dict[str, object]:
    arguments = {k: v for k, v in act.items() if k != "kind"}
    return event(
        "ActionEvent", index, second, "agent",
        thought=fields.pop("thought", []),
        thinking_blocks=fields.pop("thinking_blocks", []),
        action=act, tool_name=tool, tool_call_id=call_id,
        tool_call={"id": call_id, "name": tool, "arguments": json.dumps(arguments),
                   "origin": "completion"},
        llm_response_id=f"resp-{index}", security_risk="LOW", **fields,
    )  # fmt: skip


def observation(
    index: int, second: int, tool: str, call_id: str, kind: str, output: str,
    error: bool = False,
) -> dict[str, object]:  # fmt: skip
    return event(
        "ObservationEvent", index, second, "environment", tool_name=tool,
        tool_call_id=call_id, action_id=f"{index - 1:08x}-0000-4000-8000-{second:012x}",
        observation={"kind": kind, "content": [text(output)], "is_error": error},
        extended_content=[],
    )  # fmt: skip


def state(
    cid: str, cwd: str, model: str, status: str, metrics: dict[str, object]
) -> dict[str, object]:
    dashed = f"{cid[:8]}-{cid[8:12]}-{cid[12:16]}-{cid[16:20]}-{cid[20:]}"
    return {
        "id": dashed,
        "agent": {
            "kind": "Agent",
            "llm": {"model": model, "api_key": "**********", "usage_id": "agent"},
            "tools": [{"name": "terminal"}, {"name": "file_editor"}],
        },
        "workspace": {"kind": "LocalWorkspace", "working_dir": cwd},
        "persistence_dir": f"/home/alex/.openhands/conversations/{cid}",
        "max_iterations": 500,
        "stuck_detection": True,
        "execution_status": status,
        "confirmation_policy": {"kind": "AlwaysConfirm"},
        "activated_knowledge_skills": [],
        "blocked_actions": {},
        "blocked_messages": {},
        "stats": {"usage_to_metrics": metrics},
        "secret_registry": {"secret_sources": {}},
    }


def write(
    folder: Path,
    base: dict[str, object],
    events: list[dict[str, object]],
    named: bool = True,
) -> None:
    (folder / "events").mkdir(parents=True)
    (folder / "base_state.json").write_text(json.dumps(base))
    (folder / "events" / ".eventlog.lock").write_text("")
    for index, record in enumerate(events):
        name = (
            f"event-{index:05d}-{record['id']}.json"
            if named
            else f"event-{index:05d}.json"
        )
        (folder / "events" / name).write_text(json.dumps(record))


def usage(
    response: str, prompt: int, output: int, read: int, write: int, reasoning: int
) -> dict[str, object]:
    return {
        "model": "anthropic/claude-sonnet-4-5-20250929", "prompt_tokens": prompt,
        "completion_tokens": output, "cache_read_tokens": read, "cache_write_tokens": write,
        "reasoning_tokens": reasoning, "context_window": 200000,
        "per_turn_token": prompt + output, "response_id": response,
    }  # fmt: skip


def finished() -> None:
    edit = {
        "kind": "FileEditorAction", "command": "str_replace", "path": "/home/alex/code/shop-api/app.py",
        "old_str": "app = Flask(__name__)\n", "new_str": "app = Flask(__name__)\n\n@app.get('/health')\ndef health():\n    return 'ok'\n",
    }  # fmt: skip
    events = [
        event("SystemPromptEvent", 0, 1, "agent", system_prompt=text("You are OpenHands agent."), tools=[]),
        message(1, 2, "user", "Add a /health endpoint to the API"),
        action(
            2, 4, "terminal", "toolu_01", {"kind": "TerminalAction", "command": "ls", "is_input": False},
            thought=[text("Let me look at the project first.")],
            reasoning_content="The user wants a health check.",
            thinking_blocks=[{"type": "thinking", "thinking": "The user wants a health check.", "signature": "sig"}],
        ),
        observation(3, 5, "terminal", "toolu_01", "TerminalObservation", "app.py\nrequirements.txt"),
        action(4, 7, "file_editor", "toolu_02", edit),
        observation(5, 8, "file_editor", "toolu_02", "FileEditorObservation", "The file app.py has been edited."),
        event("ConversationStateUpdateEvent", 6, 9, "environment", key="execution_status", value="running"),
        event("ConversationStateUpdateEvent", 7, 9, "environment", key="agent",
              value={"llm": {"model": "anthropic/claude-opus-4-1"}}),
        action(8, 11, "finish", "toolu_03", {"kind": "FinishAction", "message": "Added GET /health."}),
        observation(9, 12, "finish", "toolu_03", "FinishObservation", "Added GET /health."),
    ]  # fmt: skip
    metrics = {
        "agent": {
            "model_name": "anthropic/claude-sonnet-4-5-20250929",
            "accumulated_cost": 0.0123,
            "accumulated_token_usage": {
                "model": "anthropic/claude-sonnet-4-5-20250929", "prompt_tokens": 12000,
                "completion_tokens": 800, "cache_read_tokens": 9000, "cache_write_tokens": 1000,
                "reasoning_tokens": 100, "context_window": 200000, "per_turn_token": 4000,
                "response_id": "",
            },
            "costs": [], "response_latencies": [],
            # one per response, keyed by the id its events carry (llm_response_id)
            "token_usages": [
                usage("resp-2", 5000, 300, 4000, 500, 0),
                usage("resp-4", 4000, 250, 3000, 500, 0),
                usage("resp-8", 3000, 250, 2000, 0, 100),
            ],
        },
        "condenser": {
            "model_name": "openai/gpt-5-mini", "accumulated_cost": 0.0,
            "accumulated_token_usage": {"prompt_tokens": 0, "completion_tokens": 0},
        },
    }  # fmt: skip
    write(
        ROOT / "conversations" / FINISHED,
        state(FINISHED, "/home/alex/code/shop-api", "anthropic/claude-sonnet-4-5-20250929", "finished", metrics),
        events,
    )  # fmt: skip


def paused() -> None:
    events = [
        message(0, 20, "user", "Why does the build fail?"),
        message(1, 25, "agent", "The lockfile is stale.",
                llm={"reasoning_content": "Check the lockfile."}, llm_response_id="resp-1"),
        event("Condensation", 2, 30, "environment", forgotten_event_ids=["a", "b"],
              summary="The user asked why the build fails.", summary_offset=0, llm_response_id="resp-2"),
        message(3, 31, "user", "Then fix it."),
        event("AgentErrorEvent", 4, 33, "agent", tool_name="terminal", tool_call_id="call_9",
              error="Tool 'terminal' timed out"),
        event("UserRejectObservation", 5, 34, "environment", tool_name="terminal",
              tool_call_id="call_10", rejection_reason="not now", rejection_source="user",
              action_id="x"),
        event("PauseEvent", 6, 35, "user"),
    ]  # fmt: skip
    write(
        ROOT / "conversations" / PAUSED,
        state(PAUSED, "/home/alex/code/mono", "openai/gpt-5", "paused", {}),
        events,
        named=False,
    )


def secrets() -> None:
    """What the CLI keeps beside its conversations: never opened."""
    (ROOT / "agent_settings.json").write_text(
        json.dumps(
            {"llm": {"model": "openai/gpt-5", "api_key": "sk-fixture-never-read"}}
        )
    )
    (ROOT / "cli_config.json").write_text("{}")
    (ROOT / "mcp.json").write_text("{}")
    (ROOT / "cloud").mkdir()
    (ROOT / "cloud" / "api_key.txt").write_text("oh-fixture-never-read")


def malformed() -> None:
    broken = MALFORMED / ("f" * 32)
    (broken / "events").mkdir(parents=True)
    (broken / "base_state.json").write_text(
        '{"id": "x", "agent": {"llm": {"model": 5}}, "workspace": []}'
    )
    (broken / "events" / "event-00000-00000000-0000.json").write_text(
        '{"kind": "MessageEvent", "source": "us'
    )
    (broken / "events" / "event-00001-00000001-0000.json").write_text(
        '["not an event"]'
    )
    (broken / "events" / "event-00002-00000002-0000.json").write_text(
        json.dumps(
            {
                "kind": "ActionEvent",
                "thought": "not a list",
                "action": 7,
                "tool_name": None,
            }
        )
    )
    (broken / "events" / "event-00003-00000003-0000.json").write_text(
        json.dumps(
            {
                "kind": "ObservationEvent",
                "observation": {"content": "text", "is_error": "yes"},
            }
        )
    )
    (broken / "events" / "event-00004-00000004-0000.json").write_text(
        json.dumps({"kind": 12})
    )
    empty = MALFORMED / ("e" * 32)
    empty.mkdir(parents=True)
    (empty / "base_state.json").write_text("not json")


def main() -> None:
    for folder in (HERE / "home", HERE / "malformed"):
        shutil.rmtree(folder, ignore_errors=True)
    finished()
    paused()
    secrets()
    malformed()


if __name__ == "__main__":
    main()
