"""`show --tail N` of a chat kept as one JSON document (Gemini CLI's `chats/*.json`, laid out
by JSON.stringify(chat, null, 2)) translates only its last messages, found from the
document's end, and shows what the whole read's last N events are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.model import Event
from sessdex.sources import Home
from sessdex.sources import _gemini_messages as gemini_messages
from sessdex.transcripts import transcript

SESSION = "5a1e9c3b-0000-4000-8000-000000000001"


def _chat(home: Path, messages: int) -> Path:
    """A Gemini CLI chat of `messages` messages: prompts, answers running a tool each
    (call and result in the answer), a thought now and then, an info note."""
    found: list[dict[str, object]] = []
    for n in range(messages):
        stamp = f"2025-11-02T1{n // 3600 % 10}:{n // 60 % 60:02}:{n % 60:02}.000Z"
        if n % 5 == 4:
            found.append({"id": f"m{n}", "timestamp": stamp, "type": "info",
                          "content": f"note {n}"})  # fmt: skip
        elif n % 2 == 0:
            found.append({"id": f"m{n}", "timestamp": stamp, "type": "user",
                          "content": f'prompt {n} with "quotes"\n    {{ and braces'})  # fmt: skip
        else:
            call = {"id": f"call-{n}", "name": "run_shell_command",
                    "args": {"command": f"echo {n}"}, "status": "success",
                    "result": [{"functionResponse": {"id": f"call-{n}",
                        "name": "run_shell_command", "response": {"output": f"{n}\n"}}}]}  # fmt: skip
            found.append({"id": f"m{n}", "timestamp": stamp, "type": "gemini",
                          "content": f"answer {n}", "model": "gemini-2.5-pro",
                          "thoughts": [{"subject": "Think", "description": f"t{n}"}]
                          if n % 3 == 0 else [],
                          "tokens": {"input": 100, "output": 5}, "toolCalls": [call]})  # fmt: skip
    chat = {"sessionId": SESSION, "projectHash": "0" * 64,
            "startTime": "2025-11-02T10:00:00.000Z",
            "lastUpdated": "2025-11-02T11:00:00.000Z", "messages": found}  # fmt: skip
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2025-11-02T10-00-5a1e9c3b.json"
    path.write_text(json.dumps(chat, indent=2))
    return path


def _shown(events: list[Event]) -> list[tuple[object, ...]]:
    """What a view shows of each event: all but its number."""
    return [
        (e.kind, e.time, e.text, e.tool, e.call_id, e.is_error, e.usage, e.extra)
        for e in events
    ]


@pytest.mark.parametrize("count", [1, 30, 200, 2000])
def test_a_documents_tail_shows_what_its_whole_read_ends_with(
    tmp_path: Path, count: int
) -> None:
    _chat(tmp_path, 600)
    home = Home.at(tmp_path)
    whole = [e for e in transcript(home, SESSION[:8]).events if e.agent_id is None]
    last = list(transcript(home, SESSION[:8], tail=count).events)
    assert _shown(last) == _shown(whole[-count:])


def test_a_documents_tail_translates_only_its_last_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _chat(tmp_path, 3000)
    translated: list[object] = []
    events = gemini_messages.item_events

    def counted(item: object, *args: object) -> object:
        translated.append(item)
        return events(item, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(gemini_messages, "item_events", counted)
    found = transcript(Home.at(tmp_path), SESSION[:8], tail=20)
    assert len(list(found.events)) == 20
    assert len(translated) < 100  # of 3,000
    assert found.seq_relative  # each `seq` counts from the first message read


def test_a_documents_tail_as_json_says_its_numbers_count_from_the_read(
    tmp_path: Path, run: CliRunner
) -> None:
    _chat(tmp_path, 600)
    argv = ["show", SESSION[:8], "--tail", "5", "--json", "--home", str(tmp_path)]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert len(shown) == 5 and all(e["seq_relative"] is True for e in shown)
    whole = run.invoke(main, ["show", SESSION[:8], "--json", "--home", str(tmp_path)])
    ends = [e for e in json.loads(whole.stdout) if e["agent_id"] is None][-5:]
    assert [e["text"] for e in shown] == [e["text"] for e in ends]
    text = run.invoke(
        main, ["show", SESSION[:8], "--tail", "5", "--home", str(tmp_path)]
    )
    assert text.exit_code == 0, text.output
    assert "note 599" in text.stdout


def test_a_chat_with_sub_agent_chats_is_read_whole_for_its_tail(
    tmp_path: Path,
) -> None:
    path = _chat(tmp_path, 600)
    (path.parent / SESSION).mkdir()
    (path.parent / SESSION / "child-1.jsonl").write_text("")
    found = transcript(Home.at(tmp_path), SESSION[:8], tail=10)
    last = list(found.events)
    whole = [
        e
        for e in transcript(Home.at(tmp_path), SESSION[:8]).events
        if e.agent_id is None
    ]
    assert _shown(last) == _shown(whole[-10:])
    assert not found.seq_relative
