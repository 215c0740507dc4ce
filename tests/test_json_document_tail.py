"""`show --tail N` of a chat kept as one JSON document, for every app that keeps one
(Nanocoder, Continue, Auggie, Kiro IDE, Codebuff, Amp, Cline): the same last N events as the whole read
shows, whether the app's pretty layout lets them be found from the document's end or a
minified copy is read through; and never a parse of the whole document past the size
parsed at once (orjson.loads instrumented)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.model import Event
from sessdex.sources import (
    Home,
    _json_chat,
    _vscode_tasks,
    amp,
    auggie,
    codebuff,
    continue_,
    nanocoder,
)
from sessdex.transcripts import transcript

DATA = Path(__file__).parent / "data"
CAP = 32 * 1024  # the size parsed at once, made small so that the documents stay small

# app: (its fixture chat, the member holding its messages (None: the document is the
# list), whether `show --tail` finds them from the pretty document's end)
CHATS = {
    "nanocoder": (
        ".local/share/nanocoder/sessions/c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e0f.json",
        "messages",
        True,
    ),
    "codebuff": (
        ".config/manicode/projects/shop-api/chats/2026-12-01T10-00-00.000Z/chat-messages.json",
        None,
        True,
    ),
    "continue": (
        ".continue/sessions/0b7e2c1a-5d4f-4e8a-9c3b-2f1e0d9c8b7a.json",
        "history",
        True,
    ),
    "auggie": (
        ".augment/sessions/9b8a7c6d-5e4f-4321-8a9b-0c1d2e3f4a5b.json",
        "chatHistory",
        True,
    ),
    "continue:totals": (  # the CLI's running totals: read whole
        ".continue/sessions/4f5fc9a5-a39f-4520-a3f4-893c822b4150.json",
        "history",
        False,
    ),
    "amp": (
        ".local/share/amp/threads/T-5e1c9a70-2b1f-4c3e-9d7a-0f1e2d3c4b5a.json",
        "messages",
        False,
    ),
    "cline": (
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1790931121000/"
        "ui_messages.json",
        None,
        False,
    ),
    "kiroide": (
        ".config/Kiro/User/globalStorage/kiro.kiroagent/workspace-sessions/"
        "L2hvbWUvYWxleC9jb2RlL3Nob3AtYXBp/2b7e4c1a-9d3f-4e6a-8b5c-1f0e2d3c4b5a.json",
        "history",
        False,
    ),
}

# apps whose minified chat is found from its end too (`_json_chat.Compact`)
MINIFIED = {"nanocoder", "continue", "codebuff", "auggie"}


@pytest.fixture(autouse=True)
def _small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (nanocoder, continue_, auggie, codebuff, amp, _vscode_tasks):
        monkeypatch.setattr(module, "WHOLE_CAP", CAP)
    # the ends a minified chat's members are parsed from, as much smaller than the cap
    # as they are (256 KB of many MB), not most of these small documents
    monkeypatch.setattr(_json_chat, "_ENDS", CAP // 4)


def _big_chat(tmp_path: Path, app: str, *, pretty: bool) -> tuple[Home, str]:
    """The app's fixture home with one chat's messages repeated past 8 times CAP, written
    as the app writes it (JSON.stringify(chat, null, 2)) or minified; and its id."""
    relative, key, _ = CHATS[app]
    app = app.partition(":")[0]
    shutil.copytree(DATA / app / "home", tmp_path / "home")
    path = tmp_path / "home" / relative
    chat = json.loads(path.read_text())
    found = chat if key is None else chat[key]
    assert isinstance(found, list) and found, "the fixture chat has messages"
    once = list(found)
    found *= 8 * CAP // len(json.dumps(once, separators=(",", ":"))) + 2
    path.write_text(
        json.dumps(chat, indent=2)
        if pretty
        else json.dumps(chat, separators=(",", ":"))
    )
    assert path.stat().st_size > 8 * CAP and len(found) > len(once)
    result = CliRunner().invoke(
        main, ["list", "--app", app, "--json", "--home", str(tmp_path / "home")]
    )
    assert result.exit_code == 0, result.output
    (session,) = [s for s in json.loads(result.stdout) if s["path"] == str(path)]
    return Home.at(tmp_path / "home"), session["id"]


def _shown(events: list[Event]) -> list[tuple[object, ...]]:
    """What a view shows of each event: all but its number."""
    return [
        (e.kind, e.time, e.text, e.tool, e.call_id, e.is_error, e.usage, e.extra)
        for e in events
    ]


@pytest.mark.parametrize("pretty", [True, False], ids=["pretty", "minified"])
@pytest.mark.parametrize("app", sorted(CHATS))
def test_a_big_documents_tail_is_what_its_whole_read_ends_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str, pretty: bool
) -> None:
    home, session = _big_chat(tmp_path, app, pretty=pretty)
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    assert len(whole) > 40
    parsed: list[int] = []
    loads = orjson.loads

    def measured(data: bytes | bytearray | memoryview | str) -> object:
        parsed.append(len(data))
        return loads(data)

    monkeypatch.setattr(orjson, "loads", measured)
    for count in (1, 7, 40):
        found = transcript(home, session, tail=count)
        assert _shown(list(found.events)) == _shown(whole[-count:])
        # from its end where the app's layout allows (minified too, where it can be
        # told for the app's), else read through
        assert found.seq_relative == (CHATS[app][2] and (pretty or app in MINIFIED))
    assert parsed, "the read decodes with orjson"
    assert max(parsed) < CAP  # an item at a time: never the whole document


def test_the_last_messages_are_not_taken_across_another_array(tmp_path: Path) -> None:
    from sessdex.sources import _json_chat

    path = tmp_path / "chat.json"
    chat = {
        "id": "x",
        "messages": [{"n": n} for n in range(20)],
        "children": [{"child": n} for n in range(3)],  # objects closed after them
    }
    path.write_text(json.dumps(chat, indent=2))
    assert _json_chat.last_messages(path, 5) is None  # the whole read serves
    del chat["children"]
    chat["usage"] = {"input": 1}
    path.write_text(json.dumps(chat, indent=2))
    assert _json_chat.last_messages(path, 5) == [{"n": n} for n in range(15, 20)]
    path.write_text(json.dumps(chat["messages"], indent=2))
    assert _json_chat.last_messages(path, 3, key=None) == [
        {"n": 17},
        {"n": 18},
        {"n": 19},
    ]
    assert _json_chat.last_messages(path, 3) is None  # no member of that name


@pytest.mark.parametrize("where", ["last", "first", "none"])
def test_an_auggie_tail_reads_a_kept_sub_agent_from_the_end_only_where_it_ran_there(
    tmp_path: Path, where: str
) -> None:
    """Auggie gives a kept sub-agent run (`subAgents[]`, after the history) after the
    exchange that started it, and one no exchange names at the end: `show --tail` finds
    the last items from the end where the run's exchange is among them, and reads the
    whole session where it ran earlier or nowhere; the last N events are the same."""
    shutil.copytree(DATA / "auggie" / "home", tmp_path / "home")
    path = tmp_path / "home" / ".augment" / "sessions" / f"{MAIN_AUGGIE}.json"
    chat = json.loads(path.read_text())
    once = chat["chatHistory"]
    copies = 8 * CAP // len(json.dumps(once)) + 2
    items = []
    for copy in range(copies):  # each exchange its own request id and calls
        text = (
            json.dumps(once)
            .replace('"req-', f'"r{copy}-')
            .replace('"toolu_', f'"t{copy}_')
        )
        items += json.loads(text)
    chat["chatHistory"] = items
    run = {"last": f"r{copies - 1}-1", "first": "r0-1", "none": "unknown"}[where]
    chat["subAgents"][0]["tool_call_request_id"] = run
    path.write_text(json.dumps(chat, indent=2))
    home = Home.at(tmp_path / "home")
    whole = [e for e in transcript(home, MAIN_AUGGIE).events if e.agent_id is None]
    assert any(e.kind == "subagent" for e in whole)
    for count in (1, 7, 40):
        found = transcript(home, MAIN_AUGGIE, tail=count)
        assert _shown(list(found.events)) == _shown(whole[-count:])
        assert found.seq_relative == (where == "last")


MAIN_AUGGIE = "5a3e1c2b-7d4f-4a6b-9c8d-1e2f3a4b5c6d"  # a call, its output, a sub-agent
