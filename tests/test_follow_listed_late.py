"""`follow` of an OpenClaw lead draws a sub-agent that another agent's folder starts
while it follows: listed under the lead only by that agent's sessions.json (the lead's
own read holds no spawn of it), its events come told apart by its id, once."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sessdex import api
from sessdex.sources import Home

OPENCLAW = Path(__file__).parent / "data" / "openclaw" / "home"
LEAD = "a717db17-7bed-408a-8491-a2bb0b190f46"
LATE = "c3b1f0aa-5e2d-4c8f-9a71-0d6e4b2f8c11"


def _start_sub_agent(sessions: Path) -> None:
    """What OpenClaw writes as the lead spawns a sub-agent on the coder agent: its file,
    then its entry in that agent's sessions.json."""
    lines = [
        {"type": "session", "version": 3, "id": LATE,
         "timestamp": "2026-12-01T09:20:00.000Z", "cwd": "/home/alex/.openclaw/workspace-coder"},
        {"type": "message", "id": "17000001", "parentId": None,
         "timestamp": "2026-12-01T09:20:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "Check the cron"}]}},
        {"type": "message", "id": "17000002", "parentId": "17000001",
         "timestamp": "2026-12-01T09:20:05.000Z",
         "message": {"role": "assistant",
                     "content": [{"type": "text", "text": "cron runs prune.sh nightly."}]}},
    ]  # fmt: skip
    (sessions / f"{LATE}.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines)
    )
    index = sessions / "sessions.json"
    entries = json.loads(index.read_text())
    entries[f"agent:coder:subagent:{LATE}"] = {
        "sessionId": LATE,
        "updatedAt": 1796115605000,
        "spawnedBy": "agent:main:main",
        "spawnDepth": 1,
    }
    index.write_text(json.dumps(entries, indent=2))


def test_follow_draws_a_sub_agent_listed_while_it_follows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    started = False
    drawn: list[tuple[str | None, str | None, str]] = []

    def stop() -> bool:
        nonlocal started
        if not started:
            _start_sub_agent(sessions)
            started = True
        return any(text == "cron runs prune.sh nightly." for *_, text in drawn)

    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=12, notify=False, history=3, stop=stop
    )
    for batch in batches:
        drawn += [(e.session_id, e.agent_id, e.text) for e in batch if e.text]
    late = [d for d in drawn if d[1] == LATE]
    assert late == [
        (LEAD, LATE, "Check the cron"),
        (LEAD, LATE, "cron runs prune.sh nightly."),
    ]


def test_follow_reads_its_sub_agents_listed_apart_up_to_a_bound_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from sessdex import transcripts
    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    argv = ["follow", LEAD, "-n", "50", "--duration", "0", "--home", str(home)]
    whole = CliRunner().invoke(main, argv)
    assert (
        "prune.sh keeps the last 90 days." in whole.stdout
    )  # the coder's, listed apart
    # a bound below the coder's file (865 bytes): it is left out, and said to be
    monkeypatch.setattr(transcripts, "LISTED_APART_READ_MOST", 500, raising=False)
    bounded = CliRunner().invoke(main, argv)
    assert bounded.exit_code == 0, bounded.output
    assert "prune.sh keeps the last 90 days." not in bounded.stdout
    assert "1 sub-agent listed apart left out" in bounded.stderr


OPENCODE = Path(__file__).parent / "data" / "opencode" / "home"
OPENCODE_LEAD = "ses_dd47cef52ffe38O37iH1Ffe05b"
OPENCODE_CHILD = "ses_dd47cc26cffeODfwLbHNPwBmj1"  # the fixture's, under another lead
OPENCODE_LATE = "ses_dd47cc26cffeLateChild00001"


def _start_opencode_child(db_path: Path) -> None:
    """A child session as OpenCode writes one: its row, then its messages and parts
    (copies of the fixture's child's, under the followed lead, stamped now)."""
    import sqlite3
    import time as clock

    now = int(clock.time() * 1000)
    db = sqlite3.connect(db_path)
    with db:
        columns = [c[1] for c in db.execute("PRAGMA table_info(session)")]
        row = dict(
            zip(
                columns,
                db.execute(
                    "SELECT * FROM session WHERE id = ?", (OPENCODE_CHILD,)
                ).fetchone(),
                strict=True,
            )
        )
        row |= {"id": OPENCODE_LATE, "parent_id": OPENCODE_LEAD, "slug": "late"}
        row |= {"time_created": now, "time_updated": now}
        marks = ", ".join("?" * len(row))
        db.execute(f"INSERT INTO session VALUES ({marks})", list(row.values()))
        moved = "replace({}, 'msg_22b833', 'msg_22b899')"
        db.execute(
            f"INSERT INTO message SELECT {moved.format('id')}, ?, time_created,"
            f" time_updated, {moved.format('data')} FROM message WHERE session_id = ?",
            (OPENCODE_LATE, OPENCODE_CHILD),
        )
        db.execute(
            "INSERT INTO part SELECT replace(id, 'prt_22b833', 'prt_22b899'),"
            f" {moved.format('message_id')}, ?, time_created, time_updated, data"
            " FROM part WHERE session_id = ?",
            (OPENCODE_LATE, OPENCODE_CHILD),
        )
    db.close()


def test_follow_draws_an_opencode_child_session_started_while_it_follows(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCODE, home)
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    api.list_sessions(Home.at(home))
    started = False
    report = "Sub-agent report: the command printed hello-from-subagent."
    drawn: list[tuple[str | None, str | None, str]] = []

    def stop() -> bool:
        nonlocal started
        if not started:
            _start_opencode_child(db)
            started = True
        return any(text == report for *_, text in drawn)

    _, batches = api.follow_session(
        Home.at(home), OPENCODE_LEAD, duration=12, notify=False, history=3, stop=stop
    )
    for batch in batches:
        drawn += [(e.session_id, e.agent_id, e.text) for e in batch if e.text]
    late = [d for d in drawn if d[1] == OPENCODE_LATE]
    assert late[-1] == (OPENCODE_LEAD, OPENCODE_LATE, report)
    assert len({d[2] for d in late}) == len(late)  # each drawn once


CRUSH = Path(__file__).parent / "data" / "crush" / "home"
CRUSH_LEAD = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"
CRUSH_LATE = "m-assistant-9$$call_agent_9"


def _crush_spawn(db_path: Path) -> None:
    """As Crush writes an agent call: the lead's message calling the agent tool, the
    child session (named for the message and the call), then the child's messages."""
    import sqlite3

    call = {"type": "tool_call", "data": {"id": "call_agent_9", "name": "agent",
            "input": json.dumps({"prompt": "List the retry tests"}),
            "provider_executed": False, "finished": True}}  # fmt: skip
    asked = [{"type": "text", "data": {"text": "List the retry tests"}}]
    said = [{"type": "text", "data": {"text": "test_retry.py holds three."}}]
    db = sqlite3.connect(db_path)
    with db:
        db.execute(
            "INSERT INTO messages VALUES (?, ?, 'assistant', ?, 'claude-sonnet-4-5',"
            " 1796119300, 1796119300, 1796119300, 'anthropic', 0)",
            ("m-assistant-9", CRUSH_LEAD, json.dumps([call])),
        )
        db.execute(
            "INSERT INTO sessions (id, parent_session_id, title, message_count,"
            " prompt_tokens, completion_tokens, cost, updated_at, created_at)"
            " VALUES (?, ?, 'New Agent Session', 2, 0, 0, 0, 1796119302, 1796119301)",
            (CRUSH_LATE, CRUSH_LEAD),
        )
        for n, (role, parts) in enumerate((("user", asked), ("assistant", said))):
            db.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?, NULL, ?, ?, NULL, NULL, 0)",
                (f"late-{n}", CRUSH_LATE, role, json.dumps(parts), 1796119301 + n,
                 1796119301 + n),
            )  # fmt: skip
    db.close()


def test_follow_draws_a_crush_agent_call_made_while_it_follows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    db = home / "code" / "shop-api" / ".crush" / "crush.db"
    api.list_sessions(Home.at(home))
    started = False
    drawn: list[tuple[str | None, str | None, str]] = []

    def stop() -> bool:
        nonlocal started
        if not started:
            _crush_spawn(db)
            started = True
        return any(text == "test_retry.py holds three." for *_, text in drawn)

    _, batches = api.follow_session(
        Home.at(home), CRUSH_LEAD, duration=12, notify=False, history=3, stop=stop
    )
    for batch in batches:
        drawn += [(e.session_id, e.agent_id, e.text) for e in batch if e.text]
    late = [d[2] for d in drawn if d[1] == CRUSH_LATE]
    assert late == ["List the retry tests", "test_retry.py holds three."]


def test_follow_goes_on_while_its_index_is_locked_and_draws_the_late_one_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program holding sessdex's index (an exclusive lock: a `VACUUM`, a
    copy) made follow's look for sub-agents fail: `sqlite3.OperationalError: database
    is locked` ended the follow with a traceback. It is looked for again, and the one
    started once the index is free is drawn."""
    import sqlite3
    import time as clock

    from sessdex import indexdb

    monkeypatch.setattr(indexdb, "BUSY_TIMEOUT_MS", 200)  # not 15 s a look
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    index = indexdb.index_file(Home.at(home))
    holder: sqlite3.Connection | None = None
    locked = 0.0
    drawn: list[tuple[str | None, str | None, str]] = []

    def stop() -> bool:
        nonlocal holder, locked
        if not locked:  # followed: the index taken from it
            holder = sqlite3.connect(index, isolation_level=None)
            holder.execute("PRAGMA locking_mode = EXCLUSIVE")
            holder.execute("BEGIN EXCLUSIVE")
            locked = clock.monotonic()
        elif holder is not None and clock.monotonic() - locked > 4:  # a look failed
            holder.execute("COMMIT")
            holder.close()
            holder = None
            _start_sub_agent(sessions)
        return any(text == "cron runs prune.sh nightly." for *_, text in drawn)

    try:
        _, batches = api.follow_session(
            Home.at(home), LEAD, duration=15, notify=False, history=3, stop=stop
        )
        for batch in batches:
            drawn += [(e.session_id, e.agent_id, e.text) for e in batch if e.text]
    finally:
        if holder is not None:
            holder.close()
    assert (LEAD, LATE, "cron runs prune.sh nightly.") in drawn


def test_follow_of_a_claude_lead_writes_nothing_into_the_index_as_it_grows(
    tmp_path: Path,
) -> None:
    """Claude Code's sub-agents come with their lead's read (by their files), never
    listed apart; yet follow's look for sub-agents listed apart refreshed the index
    every 3 s as the lead grew (the lead's file parsed again, the index written), for
    nothing it could find. Its index is as the follow's start left it."""
    import time as clock

    from sessdex import indexdb

    from .helpers import claude_line, write_claude_session

    home = tmp_path / "home"
    session = "3f2b9c1e-0000-4000-8000-000000000001"
    path = write_claude_session(home, session, "/home/u/shop")
    api.list_sessions(Home.at(home))
    index = indexdb.index_file(Home.at(home))
    written: list[int] = []
    said = 0

    def stop() -> bool:  # the lead goes on, a prompt at each turn of the follow
        nonlocal said
        if not written:  # what the follow's start left
            written.append(index.stat().st_mtime_ns)
        said += 1
        line = claude_line(session, "/home/u/shop", type="user", uuid=f"x{said}",
                           parentUuid="a1", timestamp="2026-11-20T10:01:00.000Z",
                           message={"role": "user", "content": f"more {said}"})  # fmt: skip
        with path.open("a") as out:
            out.write(json.dumps(line) + "\n")
        return False

    started = clock.monotonic()
    _, batches = api.follow_session(
        Home.at(home), session, duration=7, notify=False, history=3, stop=stop
    )
    drawn = [e.text for batch in batches for e in batch if e.kind == "user"]
    assert clock.monotonic() - started >= 7
    assert f"more {said - 1}" in drawn  # followed as it grew
    assert index.stat().st_mtime_ns == written[0]


def _follow_until(
    home: Path, start: Callable[[], None], until: str, duration: float = 12, **kw: Any
) -> list[tuple[str | None, str | None, str]]:
    """The (session, agent, text) follow draws of the OpenClaw lead, `start()` called at
    its first look, until `until` is drawn (`duration` seconds at most)."""
    started = False
    drawn: list[tuple[str | None, str | None, str]] = []

    def stop() -> bool:
        nonlocal started
        if not started:
            start()
            started = True
        return any(text == until for *_, text in drawn)

    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=duration, notify=False, history=3, stop=stop, **kw
    )
    for batch in batches:
        drawn += [(e.session_id, e.agent_id, e.text) for e in batch if e.text]
    return drawn


def _pad(sessions: Path, size: int) -> None:
    """The late sub-agent's file grown past `size` bytes after its first prompt (long
    answers, as a sub-agent writes in the seconds before follow looks), its last line
    the answer the tests wait for."""
    path = sessions / f"{LATE}.jsonl"
    lines = path.read_text().splitlines()
    first, last = lines[:2], lines[2]
    filler = []
    n = 0
    while sum(map(len, filler)) < size:
        n += 1
        filler.append(json.dumps({"type": "message", "id": f"18{n:06d}", "parentId": "17000001",
            "timestamp": "2026-12-01T09:20:02.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "x" * 4000}]}}))  # fmt: skip
    path.write_text("\n".join([*first, *filler, last]) + "\n")


def test_follow_draws_a_late_sub_agent_from_its_start_though_it_grew_past_a_window(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))

    def start() -> None:
        _start_sub_agent(sessions)
        _pad(sessions, 1536 * 1024)  # past the 1 MB a first read takes whole

    drawn = _follow_until(home, start, "cron runs prune.sh nightly.")
    late = [text for _, agent, text in drawn if agent == LATE]
    assert late[0] == "Check the cron"  # its prompt, drawn: its beginning shown
    assert late[-1] == "cron runs prune.sh nightly."
    assert late.count("Check the cron") == 1


def test_follow_says_a_late_sub_agent_past_the_bound_was_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sessdex import transcripts
    from sessdex.diagnostics import Diagnostics

    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    # the coder's own file (865 bytes) fits; the late one (about 1 KB) does not
    monkeypatch.setattr(transcripts, "LISTED_APART_READ_MOST", 900, raising=False)
    diagnostics = Diagnostics()

    def start() -> None:
        _start_sub_agent(sessions)
        _pad(sessions, 1)

    # one look for sub-agents listed since its start (3 s), nothing waited for after
    drawn = _follow_until(home, start, "", duration=4.5, diagnostics=diagnostics)
    assert not [d for d in drawn if d[1] == LATE]
    assert any(
        "1 sub-agent listed apart left out" in p and LATE in p
        for p in diagnostics.problems
    ), diagnostics.problems


def test_follow_draws_a_crush_agent_call_once_when_the_look_comes_before_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index lists the child at the look (3 s) before the lead's store is read
    again (every 4 s here, as a busy store may be): the lead's read draws it, so it is
    not followed apart as well."""
    from sessdex import live_feeds

    monkeypatch.setattr(live_feeds, "STORE_SECONDS", 4.0)
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    db = home / "code" / "shop-api" / ".crush" / "crush.db"
    api.list_sessions(Home.at(home))
    started = False

    def stop() -> bool:
        nonlocal started
        if not started:
            _crush_spawn(db)
            started = True
        return False

    _, batches = api.follow_session(
        Home.at(home), CRUSH_LEAD, duration=8, notify=False, history=3, stop=stop
    )
    drawn = [e.text for batch in batches for e in batch if e.agent_id == CRUSH_LATE]
    assert drawn.count("test_retry.py holds three.") == 1, drawn


KILO = Path(__file__).parent / "data" / "kilo" / "home"
KILO_LEAD = "ses_dca3c4fdfffeLJ9Gzp3KxVSonW"
KILO_CHILD = "ses_dca3c050bffebCqjqWcltmC3YO"  # the fixture's, under the same lead
KILO_LATE = "ses_dca3c050bffeLateKiloChild1"


def _kilo_spawn(db_path: Path) -> None:
    """As the Kilo CLI (OpenCode's tables) runs a task: a task part in the lead naming
    the child session, then the child's row, messages and parts (copies of the
    fixture's child's, under new ids, stamped now)."""
    import sqlite3
    import time as clock

    now = int(clock.time() * 1000)
    new = "replace(replace({}, 'msg_235c', 'msg_935c'), 'prt_235c', 'prt_935c')"
    db = sqlite3.connect(db_path)
    with db:
        db.execute(
            "INSERT INTO part SELECT 'prt_935cTaskPartLate00000001', message_id,"
            " session_id, ?, ?, replace(replace(data, ?, ?), '45617af29', 'late0001')"
            ' FROM part WHERE session_id = ? AND data LIKE \'%"tool":"task"%\'',
            (now, now, KILO_CHILD, KILO_LATE, KILO_LEAD),
        )
        columns = [c[1] for c in db.execute("PRAGMA table_info(session)")]
        row = dict(
            zip(
                columns,
                db.execute(
                    "SELECT * FROM session WHERE id = ?", (KILO_CHILD,)
                ).fetchone(),
                strict=True,
            )
        )
        row |= {
            "id": KILO_LATE,
            "slug": "late",
            "time_created": now,
            "time_updated": now,
        }
        marks = ", ".join("?" * len(row))
        db.execute(f"INSERT INTO session VALUES ({marks})", list(row.values()))
        db.execute(
            f"INSERT INTO message SELECT {new.format('id')}, ?, time_created,"
            f" time_updated, data FROM message WHERE session_id = ?",
            (KILO_LATE, KILO_CHILD),
        )
        db.execute(
            f"INSERT INTO part SELECT {new.format('id')}, {new.format('message_id')}, ?,"
            " time_created, time_updated, data FROM part WHERE session_id = ?",
            (KILO_LATE, KILO_CHILD),
        )
    db.close()


def test_follow_draws_a_kilo_task_started_while_it_follows_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(KILO, home)
    db = home / ".local" / "share" / "kilo" / "kilo.db"
    api.list_sessions(Home.at(home))
    started = False
    report = "Sub-agent report: the greeting command printed hello-from-subagent."

    def stop() -> bool:
        nonlocal started
        if not started:
            _kilo_spawn(db)
            started = True
        return False

    _, batches = api.follow_session(
        Home.at(home), KILO_LEAD, duration=8, notify=False, history=3, stop=stop
    )
    late = [
        (e.session_id, e.text)
        for batch in batches
        for e in batch
        if e.agent_id == KILO_LATE
    ]
    assert late.count((KILO_LEAD, report)) == 1, late  # under the lead, marked, once


QWEN = Path(__file__).parent / "data" / "qwen" / "subagents" / "home"
QWEN_LEAD = "7b3c1f0e-5a2d-4c8b-9e6f-1a2b3c4d5e6f"
QWEN_CALL = "call_8f2b1c9d0e"


def _qwen_spawn(project: Path) -> None:
    """As Qwen Code 0.24 runs the `agent` tool again: the lead's call, the run's
    transcript and meta under subagents/<lead>/ (copies of the fixture's, a new call id),
    then the lead's telemetry, result and answer."""
    late = "call_late00001"
    chat = project / "chats" / f"{QWEN_LEAD}.jsonl"
    folder = project / "subagents" / QWEN_LEAD
    lines = chat.read_text().splitlines()[1:]

    def moved(line: str) -> str:
        line = line.replace(QWEN_CALL, late).replace('"uuid":"p', '"uuid":"q')
        line = line.replace('"parentUuid":"p', '"parentUuid":"q').replace(
            "T10:00", "T10:01"
        )
        return line.replace("printed hello.", "printed hello twice.")

    with chat.open("a") as lead:
        lead.write(moved(lines[0]) + "\n")
    for suffix in (".meta.json", ".jsonl"):
        source = folder / f"agent-general-purpose-{QWEN_CALL}{suffix}"
        text = source.read_text().replace(QWEN_CALL, late).replace("T10:00", "T10:01")
        text = text.replace('"uuid":"c', '"uuid":"d').replace(
            '"parentUuid":"c', '"parentUuid":"d'
        )
        (folder / f"agent-general-purpose-{late}{suffix}").write_text(
            text.replace("It printed hello.", "It printed hello twice.")
        )
    with chat.open("a") as lead:
        lead.write("".join(moved(line) + "\n" for line in lines[1:]))


def test_follow_draws_a_qwen_sub_agent_run_started_while_it_follows_once(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(QWEN, home)
    project = home / ".qwen" / "projects" / "-home-alex-code-shop-api"
    api.list_sessions(Home.at(home))
    started = False

    def stop() -> bool:
        nonlocal started
        if not started:
            _qwen_spawn(project)
            started = True
        return False

    _, batches = api.follow_session(
        Home.at(home), QWEN_LEAD, duration=8, notify=False, history=3, stop=stop
    )
    drawn = [(e.session_id, e.agent_id, e.text) for b in batches for e in b if e.text]
    said = [d for d in drawn if d[2] == "It printed hello twice."]
    assert len(said) == 1, drawn
    assert said[0][0] == QWEN_LEAD and "call_late00001" in (said[0][1] or "")  # marked


CODEX = Path(__file__).parent / "data" / "codex" / "home"
CODEX_DAY = Path(".codex") / "sessions" / "2026" / "11" / "30"
CODEX_LEAD = "rollout-2026-11-30T08-10-30-01a22b81-666a-7993-963b-4b7cc4e806e9.jsonl"
CODEX_CHILD = "rollout-2026-11-30T08-10-30-01a22b81-66cf-74d0-99b4-ed78fda80cf9.jsonl"


def test_follow_draws_a_codex_sub_agent_spawned_while_it_follows_once(
    tmp_path: Path,
) -> None:
    """As Codex runs `spawn_agent` (collaboration): the lead's call, then the child's
    rollout, its parent thread in its session_meta, then the rest of the lead's turn."""
    home = tmp_path / "home"
    shutil.copytree(CODEX, home)
    day = home / CODEX_DAY
    lead = (day / CODEX_LEAD).read_text().splitlines(keepends=True)
    child = (day / CODEX_CHILD).read_text()
    spawn = next(n for n, line in enumerate(lead) if '"spawn_agent"' in line)
    (day / CODEX_LEAD).write_text("".join(lead[:spawn]))  # the lead before its call
    (day / CODEX_CHILD).unlink()
    api.list_sessions(Home.at(home))
    started = False

    def stop() -> bool:
        nonlocal started
        if not started:
            with (day / CODEX_LEAD).open("a") as file:
                file.write(lead[spawn])
            (day / CODEX_CHILD).write_text(child)
            with (day / CODEX_LEAD).open("a") as file:
                file.write("".join(lead[spawn + 1 :]))
            started = True
        return False

    session, batches = api.follow_session(
        Home.at(home), "01a22b81-666a", duration=6, notify=False, history=3, stop=stop
    )
    drawn = [(e.session_id, e.agent_id, e.text) for b in batches for e in b if e.text]
    report = "Sub-agent report: the command printed hello-from-subagent."
    said = [d for d in drawn if d[2] == report and d[1] is not None]
    assert said == [(session.id, "01a22b81-66cf-74d0-99b4-ed78fda80cf9", report)], drawn


KIMI = Path(__file__).parent / "data" / "kimi" / "real" / "home"
KIMI_FOLDER = Path(".kimi/sessions/54a67b3dc711941b4653c448cf4d35b0")
KIMI_LEAD = "64bdeb6f-031a-4d2d-bc48-a44662bbfa06"


def test_follow_draws_a_kimi_sub_agent_started_while_it_follows_as_show_does(
    tmp_path: Path,
) -> None:
    """As Kimi CLI runs its Agent tool: the lead's call in its wire, the sub-agent's
    folder (meta.json, prompt.txt, wire.jsonl), then its events copied into the lead's
    wire and the result; each of the sub-agent's lines drawn as often as show gives it."""
    home = tmp_path / "home"
    shutil.copytree(KIMI, home)
    lead = home / KIMI_FOLDER / KIMI_LEAD
    sub = lead / "subagents"
    kept = tmp_path / "subagents"
    shutil.move(sub, kept)
    wire = (lead / "wire.jsonl").read_text().splitlines(keepends=True)
    call = next(n for n, line in enumerate(wire) if '"ToolCall"' in line)
    (lead / "wire.jsonl").write_text("".join(wire[:call]))
    shown = api.transcript(Home.at(KIMI), KIMI_LEAD).events
    want = sorted(e.text for e in shown if e.agent_id and e.text)
    api.list_sessions(Home.at(home))
    started = False

    def stop() -> bool:
        nonlocal started
        if not started:
            with (lead / "wire.jsonl").open("a") as file:
                file.write(wire[call])
            shutil.copytree(kept, sub)
            with (lead / "wire.jsonl").open("a") as file:
                file.write("".join(wire[call + 1 :]))
            started = True
        return False

    _, batches = api.follow_session(
        Home.at(home), KIMI_LEAD, duration=8, notify=False, history=3, stop=stop
    )
    drawn = [(e.session_id, e.agent_id, e.text) for b in batches for e in b if e.text]
    assert sorted(d[2] for d in drawn if d[1]) == want, drawn
    assert {d[0] for d in drawn} == {KIMI_LEAD}


def test_follow_draws_a_late_sub_agent_whose_first_read_met_the_index_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index locked by another program between the look's listing of the new id and
    its read of the sub-agents under the lead (`database is locked`, swallowed in that
    read): the id was taken as known and the sub-agent never drawn."""
    import sqlite3

    from sessdex import transcripts

    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    real = transcripts.Index
    fails = [0]

    def held(home: Home) -> Any:  # the index taken by another program for one look
        if fails[0]:
            fails[0] -= 1
            raise sqlite3.OperationalError("database is locked")
        return real(home)

    def start() -> None:
        _start_sub_agent(sessions)
        monkeypatch.setattr(transcripts, "Index", held)
        fails[0] = 1

    drawn = _follow_until(home, start, "cron runs prune.sh nightly.", duration=15)
    assert (LEAD, LATE, "cron runs prune.sh nightly.") in drawn


def test_follow_draws_a_sub_agent_found_in_its_last_seconds(tmp_path: Path) -> None:
    """One found by the last look before `--duration` ends waited for the next look,
    which never came: never drawn."""
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    # the look at 3 s finds it; the follow ends at 4.5 s, before the next
    drawn = _follow_until(home, lambda: _start_sub_agent(sessions), "", duration=4.5)
    late = [text for _, agent, text in drawn if agent == LATE]
    assert late == ["Check the cron", "cron runs prune.sh nightly."], drawn


def test_follow_goes_on_when_its_first_look_meets_the_index_locked_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index held by another program (an exclusive lock) just as follow took the
    ids listed under the lead, before any look for those listed since: follow ended
    there with a traceback (`database is locked`). It follows on, looks again, draws
    the one started once the index is free, and says once that it could not look."""
    import sqlite3
    import time as clock

    from sessdex import indexdb
    from sessdex.diagnostics import Diagnostics

    monkeypatch.setattr(indexdb, "BUSY_TIMEOUT_MS", 200)  # not 15 s a look
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    index = indexdb.index_file(Home.at(home))
    holder: list[sqlite3.Connection] = []
    real = api.Index
    opened = []

    def taken(home: Home) -> Any:
        if not opened:  # the index locked as the follow's first look opens it
            opened.append(True)
            held = sqlite3.connect(index, isolation_level=None)
            held.execute("PRAGMA locking_mode = EXCLUSIVE")
            held.execute("BEGIN EXCLUSIVE")
            holder.append(held)
        return real(home)

    monkeypatch.setattr(api, "Index", taken)
    locked = clock.monotonic()
    diagnostics = Diagnostics()
    drawn: list[tuple[str | None, str | None, str]] = []

    def stop() -> bool:  # held past the look at 3 s, which fails too
        if holder and clock.monotonic() - locked > 4:
            holder.pop().close()
            _start_sub_agent(sessions)
        return any(text == "cron runs prune.sh nightly." for *_, text in drawn)

    try:
        _, batches = api.follow_session(
            Home.at(home), LEAD, duration=15, notify=False, history=3, stop=stop,
            diagnostics=diagnostics,
        )  # fmt: skip
        for batch in batches:
            drawn += [(e.session_id, e.agent_id, e.text) for e in batch if e.text]
    finally:
        for held in holder:
            held.close()
    assert (LEAD, LATE, "cron runs prune.sh nightly.") in drawn
    said = [p for p in diagnostics.problems if "could not look" in p]
    assert len(said) == 1 and "database is locked" in said[0], diagnostics.problems


def test_follow_draws_a_crush_agent_call_once_when_the_read_is_slower_than_two_looks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lead's store read again only after two looks for sub-agents (a busy store:
    read every 4 s, looked at every second here): the second look follows the child
    apart, then the lead's read draws it too. Each of its lines is drawn once."""
    from sessdex import live, live_feeds

    monkeypatch.setattr(live_feeds, "STORE_SECONDS", 4.0)
    monkeypatch.setattr(live, "RELIST_EVERY", 1.0)
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    db = home / "code" / "shop-api" / ".crush" / "crush.db"
    api.list_sessions(Home.at(home))
    started = False

    def stop() -> bool:
        nonlocal started
        if not started:
            _crush_spawn(db)
            started = True
        return False

    _, batches = api.follow_session(
        Home.at(home), CRUSH_LEAD, duration=6, notify=False, history=3, stop=stop
    )
    drawn = [e.text for batch in batches for e in batch if e.agent_id == CRUSH_LATE]
    assert drawn == ["List the retry tests", "test_retry.py holds three."], drawn


NESTED = "d4c2a1bb-6f3e-4d9a-8b82-1e5f3a9c7d22"
CODER_KEY = "agent:coder:subagent:0c5e1f4d-93b8-4e57-a0f5-2d6c8b9e7a41"


def _nested_under_the_coder(sessions: Path) -> None:
    """A sub-agent the fixture's coder sub-agent spawned: its file, and its entry naming
    the coder's key as its spawner."""
    lines = [
        {"type": "session", "version": 3, "id": NESTED,
         "timestamp": "2026-12-01T09:16:00.000Z", "cwd": "/home/alex/.openclaw/workspace-coder"},
        {"type": "message", "id": "19000001", "parentId": None,
         "timestamp": "2026-12-01T09:16:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "Read prune.sh"}]}},
        {"type": "message", "id": "19000002", "parentId": "19000001",
         "timestamp": "2026-12-01T09:16:04.000Z",
         "message": {"role": "assistant",
                     "content": [{"type": "text", "text": "prune.sh deletes old dumps."}]}},
    ]  # fmt: skip
    (sessions / f"{NESTED}.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines)
    )
    index = sessions / "sessions.json"
    entries = json.loads(index.read_text())
    entries[f"agent:coder:subagent:{NESTED}"] = {
        "sessionId": NESTED,
        "updatedAt": 1796115364000,
        "spawnedBy": CODER_KEY,
        "spawnDepth": 2,
    }
    index.write_text(json.dumps(entries, indent=2))


@pytest.mark.parametrize(
    ("fails", "lost"),
    [
        (1, "prune.sh keeps the last 90 days."),  # asked whether any is listed
        (3, "prune.sh deletes old dumps."),  # the level under the coder: its own
    ],
)
def test_follow_draws_the_sub_agents_its_first_look_missed_once_a_look_can_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: int, lost: str
) -> None:
    """The index locked by another program as follow's first look for the sub-agents
    listed apart walked them (`database is locked`, swallowed there): what it had not
    listed yet, a sub-agent's own sub-agent below it, was taken as known and never
    drawn. The look is made again once the index is free, and they are drawn, once."""
    import sqlite3

    from sessdex import transcripts

    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    _nested_under_the_coder(home / ".openclaw" / "agents" / "coder" / "sessions")
    api.list_sessions(Home.at(home))
    real = transcripts.Index
    opened = [0]

    def held(home: Home) -> Any:  # the index taken by another program for one open
        opened[0] += 1
        if opened[0] == fails:
            raise sqlite3.OperationalError("database is locked")
        return real(home)

    monkeypatch.setattr(transcripts, "Index", held)
    drawn = _follow_until(home, lambda: None, lost, duration=12)
    assert [d[2] for d in drawn].count(lost) == 1, drawn


def test_follow_draws_a_late_sub_agent_and_its_own_once_the_look_under_it_can_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-agent started while it follows, with one of its own: the look that finds
    them meets the index locked as it lists the level under the first. That look is made
    again at the next: both are drawn, each once."""
    import sqlite3

    from sessdex import transcripts

    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    sessions = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    real = transcripts.Index
    opened = [0]

    def held(home: Home) -> Any:  # the second open of a look: its level under LATE
        opened[0] += 1
        if opened[0] == 2:
            raise sqlite3.OperationalError("database is locked")
        return real(home)

    def start() -> None:
        _start_sub_agent(sessions)
        _nested_under_the_coder(sessions)
        entries = json.loads((sessions / "sessions.json").read_text())
        entries[f"agent:coder:subagent:{NESTED}"]["spawnedBy"] = (
            f"agent:coder:subagent:{LATE}"
        )
        (sessions / "sessions.json").write_text(json.dumps(entries, indent=2))
        monkeypatch.setattr(transcripts, "Index", held)

    drawn = _follow_until(home, start, "", duration=10)
    texts = [(agent, text) for _, agent, text in drawn if agent]
    assert texts.count((LATE, "cron runs prune.sh nightly.")) == 1, drawn
    assert texts.count((NESTED, "prune.sh deletes old dumps.")) == 1, drawn


CRUSH_NESTED = "x-assistant-1$$call_agent_10"


def _crush_spawn_nested(db_path: Path) -> None:
    """`_crush_spawn`'s agent call, whose child makes an agent call of its own: the
    child's prompt, its call, the grandchild's session and lines, the child's answer."""
    import sqlite3

    def call(call_id: str, prompt: str) -> str:
        return json.dumps([{"type": "tool_call", "data": {"id": call_id, "name": "agent",
            "input": json.dumps({"prompt": prompt}), "provider_executed": False,
            "finished": True}}])  # fmt: skip

    def said(text: str) -> str:
        return json.dumps([{"type": "text", "data": {"text": text}}])

    sessions = "INSERT INTO sessions (id, parent_session_id, title, message_count,"
    sessions += " prompt_tokens, completion_tokens, cost, updated_at, created_at)"
    sessions += " VALUES (?, ?, 'New Agent Session', 2, 0, 0, 0, ?, ?)"
    message = "INSERT INTO messages VALUES (?, ?, ?, ?, NULL, ?, ?, NULL, NULL, 0)"
    db = sqlite3.connect(db_path)
    with db:
        db.execute(
            "INSERT INTO messages VALUES (?, ?, 'assistant', ?, 'claude-sonnet-4-5',"
            " 1796119300, 1796119300, 1796119300, 'anthropic', 0)",
            ("m-assistant-9", CRUSH_LEAD, call("call_agent_9", "List the retry tests")),
        )
        db.execute(sessions, (CRUSH_LATE, CRUSH_LEAD, 1796119305, 1796119301))
        rows = [
            ("x-user-0", CRUSH_LATE, "user", said("List the retry tests"), 1796119301),
            ("x-assistant-1", CRUSH_LATE, "assistant",
             call("call_agent_10", "Grep for retry"), 1796119302),
            ("y-user-0", CRUSH_NESTED, "user", said("Grep for retry"), 1796119303),
            ("y-assistant-1", CRUSH_NESTED, "assistant", said("grep: three."), 1796119304),
            ("x-assistant-2", CRUSH_LATE, "assistant",
             said("test_retry.py holds three."), 1796119305),
        ]  # fmt: skip
        db.execute(sessions, (CRUSH_NESTED, CRUSH_LATE, 1796119304, 1796119303))
        for name, owner, role, parts, at in rows:
            db.execute(message, (name, owner, role, parts, at, at))
    db.close()


def test_follow_draws_a_child_followed_apart_with_its_own_sub_agent_in_its_place(
    tmp_path: Path,
) -> None:
    """A Crush agent call's child followed apart (a look found it before the busy
    store's read of the lead did), whose lead's read holds it too, with the child's own
    agent call: that grandchild was the lead read's to draw (the first to), its lines
    drawn before the child's prompt and the call that started it. It is drawn by the
    child's read, in the child's order, as `show` gives it."""
    from sessdex import live

    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    _crush_spawn_nested(home / "code" / "shop-api" / ".crush" / "crush.db")
    api.list_sessions(Home.at(home))
    lead = api.resolve(Home.at(home), CRUSH_LEAD)
    child = api.resolve(Home.at(home), CRUSH_LATE)
    ours = (CRUSH_LATE, CRUSH_NESTED)
    shown = [
        (e.agent_id, e.text)
        for e in api.transcript(Home.at(home), CRUSH_LEAD).events
        if e.agent_id in ours and e.text and e.kind != "subagent"
    ]
    batches = live.follow(lead, duration=0, notify=False, listed=[child])
    drawn = [
        (e.agent_id, e.text)
        for batch in batches
        for e in batch
        if e.agent_id in ours and e.text and e.kind != "subagent"
    ]
    assert drawn == shown, drawn


CODER = "a07e2dd2-a3a4-4616-b863-2f9e2b97b6e0"  # the fixture's, listed apart


def _long_coder(home: Path, steps: int) -> None:
    """The fixture's coder sub-agent, `steps` answers longer (each after the one before)."""
    path = home / ".openclaw" / "agents" / "coder" / "sessions" / f"{CODER}.jsonl"
    *head, last_line = path.read_text().splitlines()
    last = json.loads(last_line)
    lines = [json.dumps({"type": "message", "id": f"161{n:05d}",
        "parentId": f"161{n - 1:05d}" if n else "16000001",
        "timestamp": "2026-12-01T09:16:02.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": f"step {n}."}]}})
        for n in range(steps)]  # fmt: skip
    last["parentId"] = f"161{steps - 1:05d}"
    path.write_text("\n".join([*head, *lines, json.dumps(last)]) + "\n")


def test_follow_n_draws_as_much_of_a_sub_agent_its_first_look_missed_as_of_one_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`follow -n 3`: the sub-agents listed apart as it began that its first look missed
    (the index locked) are drawn as those it found are, their last lines; all of the
    coder's 40 old lines were drawn once the next look could read the index."""
    import sqlite3

    from click.testing import CliRunner

    from sessdex import transcripts
    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    _long_coder(home, 40)
    api.list_sessions(Home.at(home))
    real = transcripts.Index
    opened = [0]
    locked = [False]

    def held(home: Home) -> Any:  # the first look's open: the index locked
        opened[0] += 1
        if opened[0] == 1 and locked[0]:
            raise sqlite3.OperationalError("database is locked")
        return real(home)

    monkeypatch.setattr(transcripts, "Index", held)
    argv = ["follow", LEAD, "-n", "3", "--duration", "7.5", "--home", str(home)]
    steps = []
    for locked[0] in (False, True):
        opened[0] = 0
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 0, result.output
        assert "prune.sh keeps the last 90 days." in result.stdout
        steps.append([n for n in range(40) if f"step {n}." in result.stdout])
    found, missed = steps
    assert len(found) < 3 and missed == found, missed
