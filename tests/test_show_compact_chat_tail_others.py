"""`show --tail N` of a Nanocoder, Continue or Cline CLI chat written on one line
(another tool's compact copy, not laid out as the app writes it) reads its last N
messages from its end, as Gemini CLI's is read (tests/test_show_compact_chat_tail.py),
and shows what the whole read's last N events are. It parsed the whole chat. A Continue session keeping running
totals is still read whole, as one laid out so is."""

from __future__ import annotations

import json
import random
from pathlib import Path

import orjson
import pytest

from sessdex.model import Event
from sessdex.sources import Home, _json_chat
from sessdex.transcripts import transcript

from .test_show_compact_chat_tail import _encoded, _message, _text

REAL = Path(__file__).parent / "data" / "nanocoder" / "real" / "home"
SESSIONS = REAL / ".local" / "share" / "nanocoder" / "sessions"
CHATS = sorted(p.name for p in SESSIONS.glob("*-*.json"))


def _compact(tmp_path: Path, name: str, copies: int) -> tuple[Home, str, Path]:
    """The real chat's messages written `copies` times on one line, alone in a home."""
    chat = json.loads((SESSIONS / name).read_bytes())
    chat["messages"] = chat["messages"] * copies
    chat["messageCount"] = len(chat["messages"])
    folder = tmp_path / ".local" / "share" / "nanocoder" / "sessions"
    folder.mkdir(parents=True)
    path = folder / name
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    return Home.at(tmp_path), str(chat["id"]), path


def _shown(events: list[Event]) -> list[tuple[object, ...]]:
    return [
        (e.kind, e.time, e.text, e.tool, e.call_id, e.is_error, e.usage, e.extra)
        for e in events
    ]


@pytest.mark.parametrize("name", CHATS)
@pytest.mark.parametrize("count", [1, 3, 10])
def test_a_compact_nanocoder_chats_tail_is_what_its_whole_read_ends_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, count: int
) -> None:
    for variable in ("NANOCODER_DATA_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(variable, raising=False)
    home, session, _ = _compact(tmp_path, name, 20)
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=count)
    assert _shown(list(found.events)) == _shown(whole[-count:])
    assert found.seq_relative  # read from its end, not whole
    assert not found.diagnostics.problems and found.diagnostics.skipped_total == 0


CONTINUE = (
    Path(__file__).parent / "data" / "continue" / "home" / ".continue" / "sessions"
)


@pytest.mark.parametrize(
    ("name", "from_end"),
    [
        ("0b7e2c1a-5d4f-4e8a-9c3b-2f1e0d9c8b7a.json", True),  # mode after its history
        ("51ef62d5-b480-45bf-b5d2-84868e10cde8.json", False),  # running totals: whole
    ],
)
@pytest.mark.parametrize("count", [1, 4])
def test_a_compact_continue_sessions_tail_is_what_its_whole_read_ends_with(
    tmp_path: Path, name: str, from_end: bool, count: int
) -> None:
    chat = json.loads((CONTINUE / name).read_bytes())
    chat["history"] = chat["history"] * 20
    folder = tmp_path / ".continue" / "sessions"
    folder.mkdir(parents=True)
    (folder / name).write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    home, session = Home.at(tmp_path), str(chat["sessionId"])
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=count)
    assert _shown(list(found.events)) == _shown(whole[-count:])
    assert found.seq_relative is from_end
    assert not found.diagnostics.problems and found.diagnostics.skipped_total == 0


CLINE = Path(__file__).parent / "data" / "cline" / "real" / "home"


@pytest.mark.parametrize("count", [1, 4])
def test_a_compact_cline_sessions_tail_is_what_its_whole_read_ends_with(
    tmp_path: Path, count: int
) -> None:
    session = "1796199537105_fpxn5"
    folder = tmp_path / ".cline" / "data" / "sessions" / session
    folder.mkdir(parents=True)
    source = CLINE / ".cline" / "data" / "sessions" / session
    (folder / f"{session}.json").write_bytes((source / f"{session}.json").read_bytes())
    chat = json.loads((source / f"{session}.messages.json").read_bytes())
    chat["messages"] = chat["messages"] * 20
    path = folder / f"{session}.messages.json"
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    home = Home.at(tmp_path)
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=count)
    assert _shown(list(found.events)) == _shown(whole[-count:])
    assert found.seq_relative  # read from its end, not whole
    assert not found.diagnostics.problems and found.diagnostics.skipped_total == 0


CODEBUFF = Path(__file__).parent / "data" / "codebuff" / "home" / ".config" / "manicode"
CODEBUFF_CHAT = Path("projects/shop-api/chats/2026-12-01T10-00-00.000Z")


@pytest.mark.parametrize("count", [1, 3, 10])
def test_a_compact_codebuff_chats_tail_is_what_its_whole_read_ends_with(
    tmp_path: Path, count: int
) -> None:
    """Codebuff's chat is a bare array: written on one line, it is read back from its
    close too; it was parsed whole."""
    source = CODEBUFF / CODEBUFF_CHAT
    chat = json.loads((source / "chat-messages.json").read_bytes())
    folder = tmp_path / ".config" / "manicode" / CODEBUFF_CHAT
    folder.mkdir(parents=True)
    (folder / "run-state.json").write_bytes((source / "run-state.json").read_bytes())
    (folder / "chat-messages.json").write_bytes(
        json.dumps(chat * 20, separators=(",", ":")).encode()
    )
    home = Home.at(tmp_path)
    whole = [e for e in transcript(home, CODEBUFF_CHAT.name).events]
    found = transcript(home, CODEBUFF_CHAT.name, tail=count)
    assert _shown(list(found.events)) == _shown(whole[-count:])
    assert found.seq_relative  # read from its end, not whole
    assert not found.diagnostics.problems


AUGGIE = Path(__file__).parent / "data" / "auggie" / "home" / ".augment" / "sessions"


@pytest.mark.parametrize(
    "name",
    [
        "9b8a7c6d-5e4f-4321-8a9b-0c1d2e3f4a5b.json",
        "5a3e1c2b-7d4f-4a6b-9c8d-1e2f3a4b5c6d.json",
    ],
)
@pytest.mark.parametrize("count", [1, 4])
def test_a_compact_auggie_sessions_tail_is_what_its_whole_read_ends_with(
    tmp_path: Path, name: str, count: int
) -> None:
    """Its history read back from its close, the members after it (`agentState`,
    `subAgents`...) parsed from its last bytes; it was parsed whole."""
    chat = json.loads((AUGGIE / name).read_bytes())
    chat["chatHistory"] = chat["chatHistory"] * 80
    folder = tmp_path / ".augment" / "sessions"
    folder.mkdir(parents=True)
    (folder / name).write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    home, session = Home.at(tmp_path), str(chat["sessionId"])
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=count)
    assert _shown(list(found.events)) == _shown(whole[-count:])
    assert found.seq_relative  # read from its end, not whole
    assert not found.diagnostics.problems


def _codebuff_chat(rng: random.Random) -> bytes:
    """A Codebuff chat (a bare array of `{id, variant}`) on one line or spaced, its
    texts full of quotes, backslash runs, brackets and escapes of every kind; now and
    then a value among the messages that is no message."""
    chat: list[object] = [
        {**_message(rng, n), "variant": rng.choice(["user", "ai", "error"])}
        for n in range(rng.randrange(12))
    ]
    if chat and rng.random() < 0.1:
        chat.insert(rng.randrange(len(chat)), rng.choice([1, "x", [2], None]))
    return _encoded(rng, chat, rng.random() < 0.5).encode()


def _auggie_chat(rng: random.Random) -> bytes:
    """An Auggie session (`{sessionId, …, chatHistory: [{exchange}], agentState, …}`)
    on one line or spaced, members before and after its history (arrays of objects
    with an exchange too), its history written twice now and then."""
    chat: dict[str, object] = {"sessionId": "s1", "created": _text(rng)}
    chat["chatHistory"] = [
        {**_message(rng, n), "exchange": {"request_message": _text(rng)}}
        for n in range(rng.randrange(12))
    ]
    chat["agentState"] = {"modelId": _text(rng)}
    for name in rng.sample(["subAgents", "summarizations", "extra"], rng.randrange(3)):
        chat[name] = rng.choice([[], [{"exchange": {}, "n": _text(rng)}], _text(rng)])
    spaced = rng.random() < 0.5
    text = _encoded(rng, chat, spaced)
    if rng.random() < 0.1:  # written twice: a parser keeps the last
        again = [{"exchange": {}, "id": f"again{n}"} for n in range(3)]
        text = text.rstrip()[:-1] + f',"chatHistory":{_encoded(rng, again, spaced)}}}'
    return text.encode()


@pytest.mark.parametrize(
    "app, key, shape, then",
    [
        ("codebuff", None, _json_chat.Compact("id", "variant"), None),
        (
            "auggie",
            "chatHistory",
            _json_chat.Compact("sessionId", "exchange"),
            b'"agentState": ',
        ),
    ],
)
def test_a_compact_documents_end_read_back_is_its_whole_parse_s_end(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    app: str,
    key: str | None,
    shape: _json_chat.Compact,
    then: bytes | None,
) -> None:
    """Codebuff's bare array and Auggie's history, on one line, read back a few bytes at
    a time so that each piece falls on a block's edge: where the tail is read from the
    end, its messages are the last of the whole parse's."""
    rng = random.Random(66)
    path = tmp_path / "chat.json"
    served = 0
    for _ in range(150):
        data = _codebuff_chat(rng) if key is None else _auggie_chat(rng)
        path.write_bytes(data)
        monkeypatch.setattr(_json_chat, "_BACK", rng.choice([1, 2, 3, 8, 64]))
        monkeypatch.setattr(_json_chat, "_FIRST_BACK", rng.choice([1, 2, 7]))
        whole = orjson.loads(data)
        messages = whole if key is None else whole[key]
        for count in range(1, len(messages) + 2):
            found = _json_chat.last_messages(path, count, key, then=then, compact=shape)
            if found is not None:
                served += 1
                assert found == messages[-count:], data
    assert served > 100, served  # most are read from the end
