"""Factory droid quirks: settings file as a fragment, session-total usage, reminders not user text."""

from __future__ import annotations

import json
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, droid

DATA = Path(__file__).parent.parent / "data" / "droid"


def sessions(home: Home) -> dict[str, Session]:
    location = droid.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in droid.scan(location):
        for session in droid.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session) -> list[Event]:
    return list(droid.read(session, Diagnostics()))


def test_settings_fill_in_model_effort_and_autonomy() -> None:
    large = sessions(Home.at(DATA / "home"))["droid_large"]
    assert large.path and large.path.endswith(
        "droid_large.jsonl"
    )  # the transcript stays the file
    assert (large.model, large.effort, large.permission_mode) == (
        "claude-sonnet-4-5-20250929",
        "medium",
        "auto-low",
    )


def test_usage_is_the_settings_session_total_once() -> None:
    got = events(sessions(Home.at(DATA / "home"))["droid_large"])
    usage = [e for e in got if e.kind == "usage"]
    assert len(usage) == 1 and usage[0].extra == {"session_total": True}
    assert usage[0].usage == Usage(
        1840, 212, 10600, 5300, 96, "claude-sonnet-4-5-20250929"
    )
    assert usage[0].time == got[-2].time  # the last message's time


def test_per_message_usage_replaces_the_total(tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".factory" / "sessions" / "-w"
    folder.mkdir(parents=True)
    lines = [
        {
            "type": "session_start",
            "id": "s",
            "title": "t",
            "cwd": "/w",
            "version": "0.90.0",
        },
        {
            "type": "message",
            "id": "a",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "message",
            "id": "b",
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {
                "role": "assistant",
                "model": "gpt-5",
                "content": [
                    {"type": "thinking", "thinking": "hm"},
                    {"type": "text", "text": "hello"},
                ],
                "usage": {
                    "input_tokens": 7,
                    "output_tokens": 3,
                    "cache_read_input_tokens": 100,
                },
            },
        },
    ]
    (folder / "s.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n"
    )
    (folder / "s.settings.json").write_text(
        json.dumps({"tokenUsage": {"inputTokens": 999}})
    )
    got = events(sessions(Home.at(tmp_path / "home"))["s"])
    assert [e.kind for e in got] == ["user", "thinking", "assistant", "usage"]
    assert got[-1].usage == Usage(7, 3, 100, 0, 0, "gpt-5")


def test_system_reminders_are_not_the_users_words() -> None:
    drift = sessions(Home.at(DATA / "home"))["droid_drift"]
    assert [e.text for e in events(drift) if e.kind == "user"] == ["Do the thing"]
    assert drift.extra["format_version"] == 2 and drift.cli_version is None


def test_tool_call_and_result_pair_up() -> None:
    got = events(sessions(Home.at(DATA / "home"))["droid_s1"])
    call, result = got[1], got[2]
    assert call.tool == "Execute" and call.extra["input"] == {"command": "ls /nope"}
    assert (
        result.call_id == call.call_id == "tu1"
        and result.text
        and result.text.startswith("Error:")
    )


def test_resume_is_the_documented_flag() -> None:
    plan = droid.resume(sessions(Home.at(DATA / "home"))["droid_large"])
    assert plan is not None
    assert (
        plan.argv == ("droid", "--resume", "droid_large") and plan.cwd == "/tmp/large"
    )
    assert not plan.withheld


def test_home_override_only_when_it_differs(tmp_path: Path) -> None:
    assert droid.locate(Home(tmp_path, {"HOME": str(tmp_path)})).override is None
    assert (
        droid.locate(Home(tmp_path, {"HOME": str(DATA / "home")})).root
        == DATA / "home" / ".factory"
    )
