"""`show --tail N` of an OpenCode session compacted more than once: the last messages
are read, not the whole session, though a compaction among them says what it folded,
counted from messages before them (`_opencode_folds`); the events are the whole read's."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from sessdex import api, reading, sources
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event
from sessdex.sources import Home
from tests.conftest import app_home

BASIC = "ses_dd47cef52ffe38O37iH1Ffe05b"  # six messages in the fixture home
CORPUS = Path("/work/shared/corpus/realcli/opencode-1.18.33/home")
ROUNDS = 12  # compactions in the grown session
PROMPTS = 40  # prompts (each answered) between two compactions


def _lead(event: Event) -> bool:
    return event.agent_id is None


def _unnumbered(events: list[Event]) -> list[Event]:
    return [dataclasses.replace(e, seq=0) for e in events]


def _grow(home: Path, tails: list[str]) -> None:
    """BASIC grown by ROUNDS rounds of PROMPTS prompts and answers, each round ended by
    a compaction (its request, then the summary answer) whose kept tail is, in turn
    (`tails`): the round's last 3 prompts ("near"), none ("none"), or a message of an
    earlier round ("far")."""
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    at = 1796026350000
    n = 0
    ids: list[str] = []

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at += 1000
        n += 1
        message = f"msg_22b8400000{n:06d}"
        db.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (message, BASIC, at, at, json.dumps({**info, "time": {"created": at}})),
        )
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_22b8400000{n:06d}", message, BASIC, at, at, json.dumps(part)),
        )
        ids.append(message)
        return message

    for round_ in range(ROUNDS):
        prompts = []
        for p in range(PROMPTS):
            prompts.append(add({"role": "user"}, {"type": "text", "text": f"r{round_} p{p}"}))  # fmt: skip
            add({"role": "assistant", "finish": "stop"}, {"type": "text", "text": "ok " * 50})  # fmt: skip
        kind = tails[round_ % len(tails)]
        part: dict[str, object] = {"type": "compaction", "auto": round_ % 2 == 0}
        if kind == "near":
            part["tail_start_id"] = prompts[-3]
        elif kind == "far":
            part["tail_start_id"] = ids[max(0, len(ids) - 3 * PROMPTS * 2)]
        add({"role": "user"}, part)
        add(
            {
                "role": "assistant",
                "summary": True,
                "mode": "compaction",
                "finish": "stop",
            },
            {"type": "text", "text": f"summary of round {round_}"},
        )
        add({"role": "user"}, {"type": "text", "text": f"after {round_}"})
    db.commit()
    db.close()


@pytest.fixture(params=[["near"], ["none"], ["far", "near"], ["far"]])
def compacted(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Home, bool]:
    """The grown home, and whether its last messages place what a compaction folded:
    not where every compaction keeps a message before the one before it, which the read
    of the whole session alone says was not kept (no count)."""
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    _grow(tmp_path / "home", list(request.param))
    return Home.at(tmp_path / "home"), request.param != ["far"]


def _whole(home: Home, session_id: str) -> list[Event]:
    session = api.resolve(home, session_id)
    events = reading.read_session(sources.get(session.app), session, Diagnostics())
    return [e for e in events if _lead(e)]


@pytest.mark.parametrize("count", [1, 2, 5, 20, 120, 400])
def test_a_tail_among_compactions_is_the_end_of_the_whole_read(
    compacted: tuple[Home, bool], count: int
) -> None:
    """A compaction among the last messages read the whole session (1,000 messages
    here); now only more of the last ones, as many as place what it folded."""
    compacted, placed = compacted
    whole = _whole(compacted, BASIC)
    assert [e.kind for e in whole].count("compaction") == ROUNDS
    found = api.transcript(compacted, BASIC, tail=count)
    shown = list(found.events)
    assert _unnumbered(shown) == _unnumbered(whole[-count:])
    notes = [e for e in shown if e.extra.get("compaction")]
    if count >= 5 and notes:
        assert "compacted" in (notes[-1].text or "")
    # only the last rows were read, not the whole session
    assert found.seq_relative or not placed


def test_every_window_of_last_rows_ends_the_whole_read(
    compacted: tuple[Home, bool],
) -> None:
    """Read from each of many windows of last rows: what the hook gives (where it gives
    any) is the whole read's end; where a note it gives is not settled, none."""
    compacted, _ = compacted
    session = api.resolve(compacted, BASIC)
    whole = _whole(compacted, BASIC)
    source = sources.get("opencode")
    given = 0
    for rows in range(1, 3 * PROMPTS * 2, 7):
        for count in (1, 4, 30):
            last = reading.last_events(
                source, session, Diagnostics(), rows, _lead, count
            )
            if not last:
                continue
            given += 1
            assert _unnumbered(last) == _unnumbered(whole[-len(last) :]), (rows, count)
    assert given


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not here")
def test_each_real_opencode_session_tail_ends_its_whole_read(tmp_path: Path) -> None:
    """OpenCode 1.18.33's own database (its WAL too): each session's tail, of each
    length, is the end of its whole read."""
    shutil.copytree(CORPUS, tmp_path / "home", symlinks=True)
    home = Home.at(tmp_path / "home")
    listing = api.list_sessions(home, apps=["opencode"], include_subagents=True)
    ids = [row.session().id for row in listing.rows]
    assert ids
    for session_id in ids:
        whole = _whole(home, session_id)
        for count in range(1, len(whole) + 2):
            shown = list(api.transcript(home, session_id, tail=count).events)
            assert _unnumbered(shown) == _unnumbered(whole[-count:]), (
                session_id,
                count,
            )


def _json_tree(home: Path, messages: int) -> str:
    """An OpenCode 1.3 session of the JSON files (storage/session, message, part), of
    `messages` prompts and answers, compacted every 40 prompts keeping the last three."""
    storage = home / ".local/share/opencode/storage"
    session = "ses_tailjson0000000000000001"
    (storage / "session" / "proj_tail").mkdir(parents=True)
    (storage / "session" / "proj_tail" / f"{session}.json").write_text(
        json.dumps({"id": session, "version": "1.3.17", "projectID": "proj_tail",
                    "directory": "/tmp/tail", "title": "Tail",
                    "time": {"created": 1730000000000, "updated": 1730009000000}})
    )  # fmt: skip
    at, n, prompts = 1730000000000, 0, []

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at, n = at + 1000, n + 1
        message = f"msg_{n:08d}"
        folder = storage / "message" / session
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{message}.json").write_text(
            json.dumps({"id": message, "sessionID": session, **info,
                        "time": {"created": at}})
        )  # fmt: skip
        (storage / "part" / message).mkdir(parents=True)
        (storage / "part" / message / f"prt_{n:08d}.json").write_text(
            json.dumps({"id": f"prt_{n:08d}", "messageID": message, **part})
        )
        return message

    for p in range(messages // 2):
        prompts.append(add({"role": "user"}, {"type": "text", "text": f"p{p}"}))
        add({"role": "assistant"}, {"type": "text", "text": f"answer {p}"})
        if len(prompts) % 40 == 0:
            add({"role": "user"}, {"type": "compaction", "auto": True,
                                   "tail_start_id": prompts[-3]})  # fmt: skip
            add({"role": "assistant", "summary": True}, {"type": "text", "text": "s"})
    return session


@pytest.mark.parametrize("count", [1, 3, 10, 60])
def test_a_tail_of_the_json_files_reads_the_last_messages_parts(
    tmp_path: Path, count: int
) -> None:
    """A session of OpenCode's JSON files was read whole for --tail (every part file
    of its 1,024 messages): now every message file, for their order, and the parts of
    the last messages only (64, then 256 to place its last compaction's fold); the
    events are the end of the whole read."""
    from tests.helpers import opened_files

    home = tmp_path / "home"
    session = _json_tree(home, 1000)
    whole = _whole(Home.at(home), session)
    with opened_files() as opened:
        found = api.transcript(Home.at(home), session, tail=count)
        shown = list(found.events)
    assert _unnumbered(shown) == _unnumbered(whole[-count:])
    assert found.seq_relative
    parts = [p for p in opened if f"{os.sep}part{os.sep}" in p]
    assert 0 < len(parts) <= 64 + 256, len(parts)


V2 = "ses_f2b662ccdffe16PlkJxTailV2"  # a 2.x session of its own: no child, no fork


def _v2_home(tmp_path: Path, compacted: int, failed: int = 0) -> Home:
    """A 2.x database (the one test_opencode_v2 builds, its session with a sub-agent
    too) and V2: 300 prompts answered, a compaction row after each `compacted` prompts
    (manual, keeping the last prompt and its answer; failed after each `failed`)."""
    from tests.sources.test_opencode_v2 import (
        T0,
        add_rows,
        add_session,
        assistant,
        database_v2,
        tokens,
    )

    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_session(db, V2, "Tail of rows")
    rows: list[tuple[str, str, dict[str, object]]] = []
    at = T0
    for p in range(300):
        at += 100
        rows.append((f"msg_tu{p}", "user", {"time": {"created": at}, "text": f"p{p}"}))
        answer = assistant(at + 50, [{"type": "text", "text": f"a{p}"}],
                           finish="stop", tokens=tokens(100, 5))  # fmt: skip
        rows.append((f"msg_ta{p}", "assistant", answer))
        if (p + 1) % compacted == 0:
            ended = "failed" if failed and (p + 1) % failed == 0 else "completed"
            rows.append((f"msg_tc{p}", "compaction", {
                "time": {"created": at + 60}, "status": ended, "reason": "manual",
                "summary": f"up to p{p}", "recent": f"[User]: p{p}\n\n[Assistant]: a{p}",
                "tokens": tokens(300, 60)}))  # fmt: skip
    add_rows(db, V2, rows)
    db.commit()
    db.close()
    return Home.at(home)


@pytest.mark.parametrize("count", [1, 4, 30, 200])
@pytest.mark.parametrize("compacted", [25, 1000])
def test_a_2x_sessions_tail_reads_its_last_rows(
    tmp_path: Path, count: int, compacted: int
) -> None:
    """A 2.x session was read whole for --tail (all its rows): now its last rows, more
    of them where a compaction among them folds rows before them; the events are the
    end of the whole read."""
    home = _v2_home(tmp_path, compacted)
    whole = _whole(home, V2)
    found = api.transcript(home, V2, tail=count)
    shown = list(found.events)
    assert _unnumbered(shown) == _unnumbered(whole[-count:])
    assert found.seq_relative
    if compacted < 1000 and count >= 30:
        assert any("summarized" in (e.text or "") for e in shown)


def test_a_2x_session_with_a_sub_agent_is_read_whole(tmp_path: Path) -> None:
    """Which child a spawn naming none takes depends on the spawns before it."""
    from tests.sources.test_opencode_v2 import NATIVE

    home = _v2_home(tmp_path, 25)
    whole = _whole(home, NATIVE)
    for count in range(1, len(whole) + 2):
        found = api.transcript(home, NATIVE, tail=count)
        assert _unnumbered(list(found.events)) == _unnumbered(whole[-count:])
        assert not found.seq_relative


def test_every_window_of_last_2x_rows_ends_the_whole_read(tmp_path: Path) -> None:
    """The hook from each of many windows of last rows (starting before, at and after
    a compaction row): what it gives is the whole read's end."""
    home = _v2_home(tmp_path, 7)
    session = api.resolve(home, V2)
    whole = _whole(home, V2)
    given = 0
    for rows in range(1, 80):
        for count in (1, 5, 40):
            last = reading.last_events(
                sources.get("opencode"), session, Diagnostics(), rows, _lead, count
            )
            if last:
                given += 1
                assert _unnumbered(last) == _unnumbered(whole[-len(last) :]), rows
    assert given


def test_a_tail_of_a_short_json_session_reads_each_message_file_once(
    tmp_path: Path,
) -> None:
    """A session of the JSON files no longer than the rows a tail reads first is read
    whole: its message files were all read for their order first, then again by the
    whole read (each twice); now counted by name, each read once, as `show` reads it."""
    from tests.helpers import opened_files

    home = tmp_path / "home"
    session = _json_tree(home, 12)
    api.resolve(Home.at(home), session)  # the index built: the reads alone counted
    with opened_files() as whole_read:
        whole = _whole(Home.at(home), session)
    with opened_files() as opened:
        shown = list(api.transcript(Home.at(home), session, tail=3).events)
    assert _unnumbered(shown) == _unnumbered(whole[-3:])

    def messages(paths: list[str]) -> list[str]:
        return [p for p in paths if f"{os.sep}message{os.sep}" in p]

    assert len(messages(whole_read)) == 12
    assert sorted(messages(opened)) == sorted(messages(whole_read))


def _rchar() -> int:
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


def _shaped(home: Path, prompts: int, compacted: list[int]) -> None:
    """BASIC grown by `prompts` prompts, each answered with 3 KB, a compaction (its
    request keeping the last three prompts, the summary) after each prompt `compacted`
    names."""
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    at, n, asked = 1796026350000, 0, []

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at, n = at + 1000, n + 1
        message = f"msg_22b8400000{n:06d}"
        data = json.dumps({**info, "time": {"created": at}})
        db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (message, BASIC, at, at, data))  # fmt: skip
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_22b8400000{n:06d}", message, BASIC, at, at, json.dumps(part)),
        )
        return message

    for p in range(prompts):
        asked.append(add({"role": "user"}, {"type": "text", "text": f"p{p}"}))
        add({"role": "assistant", "finish": "stop"}, {"type": "text", "text": "ok " * 1000})  # fmt: skip
        if p in compacted:
            add({"role": "user"}, {"type": "compaction", "auto": True, "tail_start_id": asked[-3]})  # fmt: skip
            add({"role": "assistant", "summary": True, "finish": "stop"}, {"type": "text", "text": "s"})  # fmt: skip
    db.commit()
    db.close()


SHAPES = {
    "one near the end": [1496],
    "two far apart": [900, 1496],
    "none": [],
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_tail_costs_no_more_than_the_whole_read(tmp_path: Path, shape: str) -> None:
    """A tail of 20 of a session of 3,000 messages whose last compaction is among its
    last ones widened its window x4 (64, 256, 1024 rows) before reading it whole: 2.5
    times the bytes of the whole read. Now it reads from the compaction before it, or
    whole where none is (its fold starts at the session's first message)."""
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    _shaped(tmp_path / "home", 1500, SHAPES[shape])
    home = Home.at(tmp_path / "home")
    whole = _whole(home, BASIC)
    # the index made, as a warm `show` finds it, and the tail path's modules imported:
    # a first import reads their source (and writes .pyc) inside the counted read
    list(api.transcript(home, BASIC, tail=20).events)
    started = _rchar()
    list(api.transcript(home, BASIC).events)
    whole_read = _rchar() - started
    started = _rchar()
    found = api.transcript(home, BASIC, tail=20)
    shown = list(found.events)
    tail_read = _rchar() - started
    assert _unnumbered(shown) == _unnumbered(whole[-20:])
    assert tail_read <= 1.3 * whole_read, (tail_read, whole_read)
    if shape == "two far apart":  # read from the first one's kept tail
        assert found.seq_relative
        assert tail_read <= 0.6 * whole_read, (tail_read, whole_read)
    elif shape == "none":
        assert found.seq_relative
        assert tail_read <= 0.2 * whole_read, (tail_read, whole_read)


@pytest.mark.parametrize("count", [20, 3])
@pytest.mark.parametrize("compacted", [[716], [400, 716], []])
def test_a_tail_of_the_json_files_opens_no_more_than_the_whole_read(
    tmp_path: Path, compacted: list[int], count: int
) -> None:
    """The same of OpenCode's JSON files: every message file was read again by each
    wider window (3 times the files the whole read opens); now twice at most (the
    first window's, and the read from where the fold starts, all parts where that is
    the session's first message). A tail that shows no compaction's note reads the
    parts of its first window alone."""
    from tests.helpers import opened_files

    home = tmp_path / "home"
    session = _json_tree(home, 0)
    storage = home / ".local/share/opencode/storage"
    at, n, asked = 1740000000000, 0, []

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at, n = at + 1000, n + 1
        message = f"msg_{n:08d}"
        folder = storage / "message" / session
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{message}.json").write_text(
            json.dumps(
                {"id": message, "sessionID": session, **info, "time": {"created": at}}
            )
        )
        (storage / "part" / message).mkdir(parents=True)
        (storage / "part" / message / f"prt_{n:08d}.json").write_text(
            json.dumps({"id": f"prt_{n:08d}", "messageID": message, **part})
        )
        return message

    for p in range(720):
        asked.append(add({"role": "user"}, {"type": "text", "text": f"p{p}"}))
        add({"role": "assistant"}, {"type": "text", "text": f"answer {p}"})
        if p in compacted:
            add({"role": "user"}, {"type": "compaction", "auto": True, "tail_start_id": asked[-3]})  # fmt: skip
            add({"role": "assistant", "summary": True}, {"type": "text", "text": "s"})
    api.resolve(Home.at(home), session)
    with opened_files() as whole_read:
        whole = _whole(Home.at(home), session)
    with opened_files() as opened:
        found = api.transcript(Home.at(home), session, tail=count)
        shown = list(found.events)
    assert _unnumbered(shown) == _unnumbered(whole[-count:])
    assert len(opened) <= 1.6 * len(whole_read), (len(opened), len(whole_read))
    if count == 3:
        assert found.seq_relative
        parts = [p for p in opened if f"{os.sep}part{os.sep}" in p]
        assert len(parts) <= 64, len(parts)
    if not compacted:  # every message file, the last ones' parts
        assert len(opened) <= 0.6 * len(whole_read), (len(opened), len(whole_read))


def test_a_row_of_cut_json_costs_the_tail_no_wider_windows(tmp_path: Path) -> None:
    """One message row whose data is no JSON (the reads skip it) failed each of
    `fold_reach`'s queries (`json_extract` raises on it): the windows widened x4 before
    the whole read, 1.85 times its bytes, as though no compaction had been placed."""
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    _shaped(tmp_path / "home", 1500, [1496])
    db = sqlite3.connect(tmp_path / "home/.local/share/opencode/opencode.db")
    db.execute(
        "UPDATE message SET data = substr(data, 1, 10) WHERE id = ?",
        ("msg_22b8400000000010",),
    )
    db.commit()
    db.close()
    home = Home.at(tmp_path / "home")
    whole = _whole(home, BASIC)
    api.transcript(home, BASIC, tail=20)  # the index made
    started = _rchar()
    list(api.transcript(home, BASIC).events)
    whole_read = _rchar() - started
    started = _rchar()
    shown = list(api.transcript(home, BASIC, tail=20).events)
    tail_read = _rchar() - started
    assert _unnumbered(shown) == _unnumbered(whole[-20:])
    assert tail_read <= 1.3 * whole_read, (tail_read, whole_read)


def test_a_compaction_never_summarized_costs_the_tail_no_wider_windows(
    tmp_path: Path,
) -> None:
    """A compaction's request among the last messages whose summary never came (stopped
    or failed) was placed by no summary: the windows widened x4 before the whole read,
    1.85 times its bytes; now read from the kept tail of the compaction before it."""
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    _shaped(tmp_path / "home", 1500, [900, 1496])
    db = sqlite3.connect(tmp_path / "home/.local/share/opencode/opencode.db")
    last = db.execute(
        "SELECT max(id) FROM message WHERE json_extract(data, '$.summary') = 1"
    ).fetchone()[0]
    db.execute("DELETE FROM message WHERE id = ?", (last,))
    db.commit()
    db.close()
    home = Home.at(tmp_path / "home")
    whole = _whole(home, BASIC)
    api.transcript(home, BASIC, tail=20)  # the index made
    started = _rchar()
    list(api.transcript(home, BASIC).events)
    whole_read = _rchar() - started
    started = _rchar()
    found = api.transcript(home, BASIC, tail=20)
    shown = list(found.events)
    tail_read = _rchar() - started
    assert _unnumbered(shown) == _unnumbered(whole[-20:])
    assert found.seq_relative
    assert tail_read <= 0.8 * whole_read, (tail_read, whole_read)


@pytest.mark.parametrize("count", [30, 40])
def test_a_2x_tail_with_an_unsure_note_reads_from_the_compaction_before(
    tmp_path: Path, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2.x session's first window holding an unsure compaction note was widened x4
    to settle it (64, then 256 rows read); every row before a 2.x compaction is folded
    into it, so the rows since the compaction row before it settle it (64, then 121)."""
    from sessdex.sources import _opencode_v2

    home = _v2_home(tmp_path, 60)
    whole = _whole(home, V2)
    read: list[str] = []
    row = _opencode_v2._row

    def counted(reader, kind, *rest):  # type: ignore[no-untyped-def]
        read.append(kind)
        return row(reader, kind, *rest)

    monkeypatch.setattr(_opencode_v2, "_row", counted)
    found = api.transcript(home, V2, tail=count)
    shown = list(found.events)
    assert _unnumbered(shown) == _unnumbered(whole[-count:])
    assert any("summarized" in (e.text or "") for e in shown)
    assert len(read) == 64 + 121, len(read)  # (320 before)


def test_a_2x_tail_settled_past_a_failed_compaction_ends_the_whole_read(
    tmp_path: Path,
) -> None:
    """A compaction that failed folds nothing: the note of the one after it counts from
    the completed one before, as the whole read does."""
    home = _v2_home(tmp_path, 60, failed=120)  # the last but one failed
    whole = _whole(home, V2)
    for count in (30, 60, 90):
        shown = list(api.transcript(home, V2, tail=count).events)
        assert _unnumbered(shown) == _unnumbered(whole[-count:]), count
        assert any("238 messages summarized" in (e.text or "") for e in shown)


def test_a_json_compaction_never_summarized_costs_the_tail_no_wider_windows(
    tmp_path: Path,
) -> None:
    """The same of OpenCode's JSON files: a compaction's request among the last messages
    whose summary never came was placed by no summary, and the windows widened x4 to the
    whole read (4,892 files opened, the whole read 2,951); now read from the kept tail
    of the compaction before it (3,106), the parts of the prompts looked through once."""
    from tests.helpers import opened_files

    home = tmp_path / "home"
    session = _json_tree(home, 1440)  # compacted after each 40 prompts, the last at 720
    storage = home / ".local/share/opencode/storage"
    folder = storage / "message" / session
    last = max(
        (f for f in folder.iterdir() if '"summary": true' in f.read_text()),
        key=lambda f: f.name,
    )
    last.unlink()
    api.resolve(Home.at(home), session)
    with opened_files() as whole_read:
        whole = _whole(Home.at(home), session)
    with opened_files() as opened:
        found = api.transcript(Home.at(home), session, tail=20)
        shown = list(found.events)
    assert _unnumbered(shown) == _unnumbered(whole[-20:])
    assert found.seq_relative
    parts = [p for p in opened if f"{os.sep}part{os.sep}" in p]
    # the first window's and the kept message's again, none a third time
    assert max(parts.count(p) for p in parts) == 2
    # each message file twice (each window reads them all, for their order)
    assert len(opened) <= 1.1 * len(whole_read), (len(opened), len(whole_read))
