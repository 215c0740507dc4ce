"""`follow -n N` of a session kept in a database or one JSON document draws its history
from the session's last messages, read from its end as `show --tail` reads them (it read
the whole session first), and then draws exactly what a whole read finds was written
since: nothing twice, nothing missed."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, reading, sources
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event
from sessdex.sources import Home
from sessdex.sources import _gemini_messages as gemini_messages
from tests import test_tail_compactions as compactions
from tests.conftest import app_home
from tests.test_show_document_tail import SESSION as GEMINI_SESSION
from tests.test_show_document_tail import _chat

OPENCODE_SESSION = (
    "ses_dd47cef"  # no sub-agent: its end is read as show --tail reads it
)
COPIES = 120  # times its messages are written again, later


def _shown(events: list[Event]) -> list[tuple[object, ...]]:
    """What a view shows of each event: all but its number."""
    return [
        (e.agent_id, e.kind, e.time, e.text, e.tool, e.call_id, e.usage, e.extra)
        for e in events
    ]


def _whole(home: Home, prefix: str) -> list[Event]:
    session = api.resolve(home, prefix)
    source = sources.get(session.app)
    return list(reading.read_session(source, session, Diagnostics()))


def _later(value: object, later: int, copy: int) -> object:
    """A message's or part's record as a later copy writes it: its times (epoch ms)
    moved on, its call ids its own."""
    if isinstance(value, dict):
        return {
            k: f"{v}-{copy}" if k == "callID" else _later(v, later, copy)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_later(v, later, copy) for v in value]
    if isinstance(value, int) and value > 10**12:
        return value + later
    return value


def _copy_opencode(db_path: Path, copies: range) -> None:
    """The session's own messages and parts written again, later, once per copy."""
    db = sqlite3.connect(db_path)
    messages = db.execute(
        "SELECT id, session_id, time_created, time_updated, data FROM message "
        "WHERE session_id LIKE ? AND id NOT LIKE '%\\_c%' ESCAPE '\\'",
        (OPENCODE_SESSION + "%",),
    ).fetchall()
    # each copy after the one before: the session ran over days (it was resumed)
    (start, end), *_ = db.execute(
        "SELECT min(time_created), max(time_updated) FROM part WHERE session_id LIKE ?",
        (OPENCODE_SESSION + "%",),
    )
    for copy in copies:
        later = copy * (end - start + 1000)
        for message_id, session_id, created, updated, data in messages:
            new = f"{message_id}_c{copy:03d}"
            db.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (new, session_id, created + later, updated + later,
                 json.dumps(_later(json.loads(data), later, copy))),
            )  # fmt: skip
            parts = db.execute(
                "SELECT id, session_id, time_created, time_updated, data FROM part "
                "WHERE message_id = ?",
                (message_id,),
            ).fetchall()
            for part_id, part_session, part_created, part_updated, part in parts:
                db.execute(
                    "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                    (f"{part_id}_c{copy:03d}", new, part_session,
                     part_created + later, part_updated + later,
                     json.dumps(_later(json.loads(part), later, copy))),
                )  # fmt: skip
    db.commit()
    db.close()


def _opencode(tmp_path: Path) -> tuple[Home, str, Callable[[int], None]]:
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    db_path = tmp_path / "home" / ".local" / "share" / "opencode" / "opencode.db"
    _copy_opencode(db_path, range(1, COPIES + 1))

    def append(step: int) -> None:
        first = COPIES + 1 + 2 * step
        _copy_opencode(db_path, range(first, first + 2))

    return Home.at(tmp_path / "home"), OPENCODE_SESSION, append


def _gemini(tmp_path: Path) -> tuple[Home, str, Callable[[int], None]]:
    path = _chat(tmp_path, 600)

    def append(step: int) -> None:
        """The CLI's save: the document written again whole, two messages longer."""
        chat = json.loads(path.read_text())
        for n in range(2):
            stamp = f"2025-11-02T12:00:{2 * step + n:02}.000Z"
            chat["messages"].append(
                {
                    "id": f"new{step}-{n}",
                    "timestamp": stamp,
                    "type": "user",
                    "content": f"later prompt {step}.{n}",
                }
            )
        path.write_text(json.dumps(chat, indent=2))

    return Home.at(tmp_path), GEMINI_SESSION[:8], append


def _gemini_compact(tmp_path: Path) -> tuple[Home, str, Callable[[int], None]]:
    """The chat written on one line (another tool's compact copy), and so again."""
    home, prefix, append = _gemini(tmp_path)
    path = next(tmp_path.rglob("session-*.json"))

    def compact() -> None:
        chat = json.loads(path.read_text())
        path.write_text(json.dumps(chat, separators=(",", ":")))

    def append_compact(step: int) -> None:
        append(step)
        compact()

    compact()
    return home, prefix, append_compact


STORES = {
    "opencode": _opencode,
    "gemini": _gemini,
    "gemini-compact": _gemini_compact,
}


@pytest.mark.parametrize("app", sorted(STORES))
def test_follow_n_of_a_store_draws_its_end_then_all_that_is_written_once(
    tmp_path: Path, app: str
) -> None:
    home, prefix, append = STORES[app](tmp_path)
    before = _whole(home, prefix)
    _, batches = api.follow_session(home, prefix, duration=7, notify=False, history=20)
    first = next(batches)
    # read from its end: numbered from the first of the last rows read, not the start
    assert first and max(e.seq for e in first) < len(before) // 2
    assert _shown(first[-20:]) == _shown(before[-20:])
    drawn: list[Event] = []
    for step in range(2):  # written while followed, each read in a poll of its own
        append(step)
        drawn += next(batches)
    drawn += [e for batch in batches for e in batch]
    after = _whole(home, prefix)
    assert len(after) > len(before)
    assert _shown(drawn) == _shown(after[len(before) :])


def test_follow_n_of_a_gemini_chat_translates_only_its_last_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _chat(tmp_path, 3000)
    translated: list[object] = []
    events = gemini_messages.item_events

    def counted(item: object, *args: object) -> object:
        translated.append(item)
        return events(item, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(gemini_messages, "item_events", counted)
    _, batches = api.follow_session(
        Home.at(tmp_path), GEMINI_SESSION[:8], duration=0, history=20
    )
    assert len(next(batches)) >= 20
    assert len(translated) < 300  # of 3000


def test_follow_n_nl_of_a_database_session_ends_as_show_tail_does(
    tmp_path: Path,
) -> None:
    home, prefix, _ = _opencode(tmp_path)

    def records(*args: str) -> list[dict[str, object]]:
        result = CliRunner().invoke(main, [*args, "--home", str(home.path)])
        assert result.exit_code == 0, result.output
        found = [json.loads(line) for line in result.stdout.splitlines()]
        return [{k: v for k, v in r.items() if k != "seq"} for r in found]

    follow = records("follow", prefix, "-n", "5", "--duration", "0", "--nl")
    assert len(follow) == 5
    assert follow == records("show", prefix, "--tail", "5", "--nl")


@pytest.mark.parametrize("tails", [["near"], ["none"], ["far", "near"], ["far"]])
def test_follow_n_among_compactions_draws_all_that_is_written_once(
    tmp_path: Path, tails: list[str]
) -> None:
    """A compaction among the last messages whose note earlier ones settle: the history
    drawn from after it, and then what is written, as a whole read finds it."""
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    compactions._grow(tmp_path / "home", tails)
    home = Home.at(tmp_path / "home")
    before = _whole(home, compactions.BASIC)
    _, batches = api.follow_session(
        home, compactions.BASIC, duration=5, notify=False, history=3
    )
    first = next(batches)
    assert _shown(first[-3:]) == _shown(before[-3:])
    assert max(e.seq for e in first) < len(before) // 2  # its last rows read
    db = sqlite3.connect(home.path / ".local/share/opencode/opencode.db")
    for n, role in enumerate(("user", "assistant")):
        at = 1896026350000 + n
        info = {"role": role, "time": {"created": at}, "finish": "stop"}
        db.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (f"msg_zz{n}", compactions.BASIC, at, at, json.dumps(info)),
        )
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_zz{n}", f"msg_zz{n}", compactions.BASIC, at, at,
             json.dumps({"type": "text", "text": f"later {role}"})),
        )  # fmt: skip
    db.commit()
    db.close()
    drawn = [e for batch in batches for e in batch]
    after = _whole(home, compactions.BASIC)
    assert len(after) > len(before)
    assert _shown(drawn) == _shown(after[len(before) :])


def test_follow_n_of_a_chat_draws_answers_alike_in_one_second_each(
    tmp_path: Path,
) -> None:
    """Answers alike in text, usage and second (a model that says "Done." to each of
    several prompts typed in one second): each is drawn, as `show` shows each; the read
    of the chat's end drew one of them."""
    path = _chat(tmp_path, 600)
    chat = json.loads(path.read_text())
    for n, message in enumerate(chat["messages"]):
        message["timestamp"] = f"2025-11-02T11:{n // 240:02}:{n // 4 % 60:02}.000Z"
        if message["type"] == "gemini":
            message.update(content="Done.", thoughts=[], toolCalls=[])
    path.write_text(json.dumps(chat, indent=2))
    home = Home.at(tmp_path)
    before = _whole(home, GEMINI_SESSION[:8])
    _, batches = api.follow_session(
        home, GEMINI_SESSION[:8], duration=0, notify=False, history=20
    )
    first = next(batches)
    assert max(e.seq for e in first) < len(before) // 2  # read from its end
    assert _shown(first[-20:]) == _shown(before[-20:])


def test_follow_n_draws_a_held_answer_beside_one_alike(tmp_path: Path) -> None:
    """A chat written just now that ends on a thought still streamed, the same thought at
    the same second as the answer before it (two prompts typed in one second): its
    drawing is held until the chat is read again, then drawn. The next read took it
    for the one before it, drawn already: it was never drawn."""
    path = _chat(tmp_path, 200)
    chat = json.loads(path.read_text())
    stamp = "2025-11-02T11:59:59.000Z"
    thought = [{"subject": "Plan", "description": "look first"}]
    for n, prompt in enumerate(("one", "two")):
        chat["messages"] += [
            {"id": f"u{n}", "timestamp": stamp, "type": "user", "content": prompt},
            {"id": f"a{n}", "timestamp": stamp, "type": "gemini", "content": "",
             "thoughts": thought, "tokens": {"input": 100, "output": 5}},
        ]  # fmt: skip
    path.write_text(json.dumps(chat, indent=2))  # just now: its end may still grow
    follow = [GEMINI_SESSION[:8], "-n", "10", "--duration", "5", "--poll"]
    result = CliRunner().invoke(
        main, ["follow", *follow, "--nl", "--home", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    drawn = [json.loads(line) for line in result.stdout.splitlines()]
    thoughts = [e for e in drawn if e["kind"] == "thinking"]
    assert [e["text"] for e in thoughts] == ["Plan\nlook first"] * 2


def test_follow_n_draws_an_answer_written_later_alike_one_of_its_history(
    tmp_path: Path,
) -> None:
    """A prompt and its answer written after the history was drawn, alike in text, usage
    and second to the last ones of it (a model that says "Done." to two prompts typed in
    one second): each is drawn. The answer and its usage and turn end were taken for
    the history's, drawn already: only the prompt was drawn."""
    path = _chat(tmp_path, 200)
    chat = json.loads(path.read_text())
    stamp = "2025-11-02T11:59:59.000Z"

    def asked(n: int) -> list[dict[str, object]]:
        return [
            {"id": f"u{n}", "timestamp": stamp, "type": "user", "content": f"p{n}"},
            {"id": f"a{n}", "timestamp": stamp, "type": "gemini", "content": "Done.",
             "tokens": {"input": 100, "output": 5}},
        ]  # fmt: skip

    chat["messages"] += asked(0)
    path.write_text(json.dumps(chat, indent=2))
    home = Home.at(tmp_path)
    _, batches = api.follow_session(
        home, GEMINI_SESSION[:8], duration=6, notify=False, history=4
    )
    first = next(batches)
    chat["messages"] += asked(1)
    path.write_text(json.dumps(chat, indent=2))
    later = [e for batch in batches for e in batch]
    whole = _whole(home, GEMINI_SESSION[:8])
    assert _shown(first[-4:]) == _shown(whole[-8:-4])
    assert _shown(later) == _shown(whole[-4:])


def test_follow_n_counts_only_what_it_drew_while_telling_history_from_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next whole read after `follow -n 4` holds a count of each event the first read
    of the chat's end gave (147 here), not one of each older event it passes too (4,666
    of a chat of 2,000 messages, growing with the chat). Counters that note their size."""
    from collections import Counter

    from sessdex import live_feeds

    sizes: list[int] = []

    class Noted(Counter[int]):
        def __setitem__(self, key: int, value: int) -> None:
            super().__setitem__(key, value)
            sizes.append(len(self))

    monkeypatch.setattr(live_feeds, "Counter", Noted)
    path = _chat(tmp_path, 2000)
    chat = json.loads(path.read_text())
    home = Home.at(tmp_path)
    _, batches = api.follow_session(
        home, GEMINI_SESSION[:8], duration=4, notify=False, history=4
    )
    first = next(batches)
    chat["messages"].append(
        {"id": "new", "timestamp": "2025-11-02T12:00:00.000Z", "type": "user",
         "content": "one more"}
    )  # fmt: skip
    path.write_text(json.dumps(chat, indent=2))
    later = [e for batch in batches for e in batch]
    assert [e.text for e in later if e.kind == "user"] == ["one more"]
    assert first and max(sizes) < 500
