"""Live sessions: real fixture lines written into files with delays, followed as they come.

Each test copies an app's fixture home, resolves a session through the index, then empties
its files and writes the real lines back in the order they were first written (by their
timestamps), checking the events that come out and the status after each step.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex import api, live, live_feeds
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.live import LiveSession, Processes, attach_processes
from sessdex.model import Event, Session
from sessdex.sources import Home, get
from sessdex.status import Status, Tracker, decide

from .helpers import NESTED, SPAWNER, nested_claude_run, write_claude_session

DATA = Path(__file__).parent / "data"
CODEX_PARENT = "01a22b81-666a-7993-963b-4b7cc4e806e9"
CODEX_CHILD = "01a22b81-66cf-74d0-99b4-ed78fda80cf9"
PI_SESSION = "01a22b83-eeaa-75d4-a59d-adc5e4fb9817"


# --- helpers -------------------------------------------------------------------------------


def copy_home(app: str, tmp_path: Path) -> Home:
    target = tmp_path / "home"
    shutil.copytree(DATA / app / "home", target, symlinks=True)
    return Home.at(target)


def stamp(line: bytes) -> str:
    value = json.loads(line)
    return str(value.get("timestamp") or "")


def timeline(files: dict[Path, list[bytes]]) -> list[tuple[Path, bytes]]:
    """Every line of several files, in the order they were written (by timestamp)."""
    steps = [
        (stamp(line), order, n, path, line)
        for order, (path, lines) in enumerate(files.items())
        for n, line in enumerate(lines)
    ]
    steps.sort(key=lambda step: (step[0], step[1], step[2]))
    return [(path, line) for _, _, _, path, line in steps]


def empty(paths: list[Path]) -> dict[Path, list[bytes]]:
    """Remove the files, keeping their lines to write back."""
    kept = {}
    for path in paths:
        kept[path] = path.read_bytes().splitlines(keepends=True)
        path.unlink()
    return kept


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


def shape(events: list[Event]) -> dict[str | None, list[tuple[object, ...]]]:
    by_agent: dict[str | None, list[tuple[object, ...]]] = {}
    for e in events:
        by_agent.setdefault(e.agent_id, []).append(
            (e.kind, e.tool, e.call_id, e.text, e.usage)
        )
    return by_agent


def spawned_once(events: list[Event]) -> list[Event]:
    """The events less a spawn followed again once its child's file appeared, naming
    the child (`show` knows the child at once): what `show` gives."""
    unnamed: set[str] = set()
    kept = []
    for e in events:
        if e.kind == "subagent" and e.call_id is not None:
            if e.extra.get("child_id") is None:
                unnamed.add(e.call_id)
            elif e.call_id in unnamed:
                unnamed.discard(e.call_id)
                continue
        kept.append(e)
    return kept


def statuses(trail: list[str]) -> list[str]:
    """Consecutive repeats folded."""
    folded: list[str] = []
    for status in trail:
        if not folded or folded[-1] != status:
            folded.append(status)
    return folded


class Writer(threading.Thread):
    """Writes (path, bytes) steps with a delay between them, as an agent would."""

    def __init__(self, steps: list[tuple[Path, bytes]], delay: float = 0.03) -> None:
        super().__init__(daemon=True)
        self.steps = steps
        self.delay = delay
        self.finished_at: float | None = None

    def run(self) -> None:
        for path, data in self.steps:
            time.sleep(self.delay)
            append(path, data)
        self.finished_at = time.monotonic()

    def settled(self, quiet: float = 0.8) -> bool:
        return (
            self.finished_at is not None and time.monotonic() - self.finished_at > quiet
        )


# --- codex: a sub-agent spawned, waited for, finished ---------------------------------------


@pytest.fixture
def codex_thread(
    tmp_path: Path,
) -> tuple[Session, list[Event], dict[Path, list[bytes]]]:
    home = copy_home("codex", tmp_path)
    session = api.resolve(home, CODEX_PARENT)
    expected = list(get("codex").read(session, Diagnostics()))
    folder = Path(str(session.path)).parent
    child = next(folder.glob(f"*{CODEX_CHILD}.jsonl"))
    return session, expected, empty([Path(str(session.path)), child])


def test_codex_follow_with_a_writer_thread(codex_thread, tmp_path: Path) -> None:
    session, expected, files = codex_thread
    writer = Writer(timeline(files))
    writer.start()
    got = [
        e
        for batch in live.follow(session, duration=20, stop=writer.settled)
        for e in batch
    ]
    writer.join()
    assert shape(got) == shape(expected)
    assert {e.agent_id for e in got} == {None, CODEX_CHILD}


def test_codex_follow_finds_a_sub_agent_written_in_a_later_days_folder(
    codex_thread, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A session running past midnight: Codex writes the sub-agents it spawns from then
    # on in the new day's folder (sessions/YYYY/MM/DD), which another session may have
    # made first.
    monkeypatch.setattr(live_feeds, "LISTING_SECONDS", 0.0)
    session, expected, files = codex_thread
    lead, child = files
    append(lead, b"".join(files[lead]))
    follower = LiveSession(session)
    assert {e.agent_id for e in follower.poll()} == {None}
    day = lead.parent.parent.parent / "12" / "01"
    day.mkdir(parents=True)
    other = "rollout-2026-12-01T00-00-05-01a22b81-0000-7000-8000-000000000001.jsonl"
    (day / other).write_bytes(b"")
    assert follower.poll() == []
    append(day / child.name.replace("2026-11-30", "2026-12-01"), b"".join(files[child]))
    got = follower.poll()
    assert shape(got)[CODEX_CHILD] == shape(expected)[CODEX_CHILD]


def test_codex_status_through_a_sub_agent(codex_thread) -> None:
    session, expected, files = codex_thread
    follower = LiveSession(session)
    trail = []
    for path, line in timeline(files):
        append(path, line)
        follower.poll()
        trail.append(follower.status().status)
    folded = statuses(trail)
    assert folded[-1] == "waiting_for_user"
    # spawn, wait while the child writes, then the lead answers and its turn ends
    assert folded[0] == "working"
    assert folded[-3:] == ["waiting_on_subagent", "working", "waiting_for_user"]
    assert follower.tracker.tokens == sum(e.usage.total for e in expected if e.usage)


def test_no_change_reads_zero_bytes(codex_thread) -> None:
    session, _, files = codex_thread
    for path, line in timeline(files):
        append(path, line)
    follower = LiveSession(session)
    assert follower.poll()
    time.sleep(2.1)  # past the listing interval: sub-agent files are listed again
    follower.poll()
    read = follower.bytes_read()
    for _ in range(20):
        assert follower.poll() == []
    assert follower.bytes_read() == read
    # one appended line costs that line, not the file
    path = Path(str(session.path))
    extra = files[path][-1]
    append(path, extra)
    follower.poll()
    assert follower.bytes_read() - read <= len(extra) + 2 * 64


def test_truncated_partial_line_completed_later(codex_thread) -> None:
    session, expected, files = codex_thread
    main = Path(str(session.path))
    lines = files[main]
    follower = LiveSession(session)
    for line in lines[:-3]:
        append(main, line)
    before = follower.poll()
    cut = lines[-3][: len(lines[-3]) // 2]
    append(main, cut)
    assert follower.poll() == []  # half a line: nothing yet, nothing counted as broken
    assert follower.diagnostics.skipped_total == 0
    append(main, lines[-3][len(cut) :])
    after = follower.poll()
    append(main, b"".join(lines[-2:]))
    after += follower.poll()
    lead = [e for e in expected if e.agent_id is None]
    assert shape(before + after)[None] == shape(lead)[None]
    assert follower.status().status == "waiting_for_user"


def test_rewrite_mid_follow_is_read_again_without_repeats(codex_thread) -> None:
    session, expected, files = codex_thread
    main = Path(str(session.path))
    lines = files[main]
    follower = LiveSession(session)
    for line in lines[:15]:
        append(main, line)
    first = follower.poll()
    # rewritten as a new file (an atomic save), with more lines than before
    temporary = main.with_suffix(".tmp")
    temporary.write_bytes(b"".join(lines[:20]))
    temporary.replace(main)
    second = follower.poll()
    append(main, b"".join(lines[20:]))
    third = follower.poll()
    lead = [e for e in expected if e.agent_id is None]
    got = [e for e in first + second + third if e.agent_id is None]
    assert shape(got)[None] == shape(lead)[None]
    assert follower.feed.files[main].follower.rewrites == 1  # type: ignore[union-attr]


def test_a_save_in_place_seen_half_done_repeats_nothing(codex_thread) -> None:
    """An app that saves in place empties its transcript, then writes it again: a poll
    between the two saw an empty file, after which every line written back was shown
    again as new. What follows the lines shown before is new."""
    session, expected, files = codex_thread
    main = Path(str(session.path))
    lines = files[main]
    follower = LiveSession(session)
    append(main, b"".join(lines[:15]))
    first = follower.poll()
    with open(main, "r+b") as stream:  # emptied, as `open(path, "w")` does
        stream.truncate(0)
    assert follower.poll() == []
    append(main, b"".join(lines[:10]))
    assert follower.poll() == []
    append(main, b"".join(lines[10:15]))
    assert follower.poll() == []
    append(main, b"".join(lines[15:]))
    rest = follower.poll()
    lead = [e for e in expected if e.agent_id is None]
    got = [e for e in first + rest if e.agent_id is None]
    assert shape(got)[None] == shape(lead)[None]


def test_deleted_transcript_ends_the_session(codex_thread) -> None:
    session, _, files = codex_thread
    main = Path(str(session.path))
    main.write_bytes(b"".join(files[main]))
    follower = LiveSession(session)
    assert follower.poll()
    main.unlink()
    assert follower.poll() == []
    status = follower.status()
    assert (status.status, status.reason) == ("ended", "its transcript was deleted")
    main.write_bytes(b"".join(files[main]))  # back: nothing is repeated
    assert follower.poll() == []
    assert follower.status().status == "waiting_for_user"


# --- an app without a follow hook: re-read from the last offset --------------------------------


@pytest.fixture
def pi_session(tmp_path: Path) -> tuple[Session, list[Event], Path, list[bytes]]:
    home = copy_home("pi", tmp_path)
    session = api.resolve(home, PI_SESSION)
    expected = list(get("pi").read(session, Diagnostics()))
    path = Path(str(session.path))
    return session, expected, path, empty([path])[path]


@pytest.mark.parametrize("small", [True, False], ids=["whole", "from-offset"])
def test_generic_follow_appends(
    pi_session, monkeypatch: pytest.MonkeyPatch, small: bool
) -> None:
    session, expected, path, lines = pi_session
    assert not hasattr(get("pi"), "follow")
    if not small:
        monkeypatch.setattr(live_feeds, "FULL_REREAD_MAX", 0)
    follower = LiveSession(session)
    got: list[Event] = []
    trail = []
    for line in lines:
        append(path, line[:10])
        got += follower.poll()
        append(path, line[10:])
        got += follower.poll()
        trail.append(follower.status().status)
    assert [(e.kind, e.tool, e.text) for e in got] == [
        (e.kind, e.tool, e.text) for e in expected
    ]
    assert "working" in trail
    read = follower.bytes_read()
    assert follower.poll() == []
    assert follower.bytes_read() == read


def test_generic_whole_json_store_keeps_only_new_events(tmp_path: Path) -> None:
    home = copy_home("amp", tmp_path)
    session = api.resolve(home, "T-5e1c9a70")
    path = Path(str(session.path))
    follower = LiveSession(session)
    first = follower.poll()
    assert first
    thread = orjson.loads(path.read_bytes())
    thread["messages"].append(
        {"role": "user", "content": [{"type": "text", "text": "one more thing"}]}
    )
    path.write_bytes(orjson.dumps(thread))
    time.sleep(live_feeds.STORE_SECONDS)
    new = follower.poll()
    assert [(e.kind, e.text) for e in new] == [("user", "one more thing")]


def test_a_codex_json_document_is_read_whole_not_line_by_line(tmp_path: Path) -> None:
    # the TypeScript codex-cli rewrote one JSON document: nothing to follow line by line
    home = copy_home("codex", tmp_path)
    session = api.resolve(home, "6a1f0c3e")
    path = Path(str(session.path))
    follower = LiveSession(session)
    first = follower.poll()
    assert [e.kind for e in first] == [
        "user",
        "thinking",
        "tool_call",
        "tool_result",
        "assistant",
    ]
    document = orjson.loads(path.read_bytes())
    document["items"].append(
        {
            "role": "user",
            "type": "message",
            "content": [{"type": "input_text", "text": "one more thing"}],
        }
    )
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    time.sleep(live_feeds.STORE_SECONDS)
    new = follower.poll()
    assert [(e.kind, e.text) for e in new] == [("user", "one more thing")]


def _crush_being_written(
    tmp_path: Path,
) -> tuple[Home, Session, sqlite3.Connection, LiveSession]:
    """A copy of the Crush fixture home, its session, a connection writing to its
    database as the app does (WAL), and a follower that has read it once."""
    home = copy_home("crush", tmp_path)
    session = api.resolve(home, "8c1f2e3d")
    database = Path(str(session.path).split("#", 1)[0])
    writer = sqlite3.connect(database, isolation_level=None)  # the app, writing
    writer.execute("PRAGMA journal_mode=WAL")
    follower = LiveSession(session)
    follower.poll()
    return home, session, writer, follower


def test_an_answer_a_database_app_streams_into_its_row_is_shown_once_complete(
    tmp_path: Path,
) -> None:
    """Crush (OpenCode, an IDE's store) writes an answer into its row as it streams:
    each re-read found the row's text grown, a new event to `follow`, which printed
    "Hel", then "Hello, the", then the whole answer, each on its own line. The store's
    last event is shown once a read finds it as the one before did, or others after it."""
    _home, session, writer, follower = _crush_being_written(tmp_path)
    insert = (
        "INSERT INTO messages (id, session_id, role, parts, model, created_at,"
        " updated_at, finished_at, provider) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    shown: list[Event] = []

    def write(message: str, role: str | None, *parts: dict[str, object]) -> None:
        if role is None:  # the row written again, grown
            update = "UPDATE messages SET parts = ? WHERE id = ?"
            writer.execute(update, (json.dumps(parts), message))
        else:
            when = 1_796_119_300 + len(shown)  # after the fixture's messages
            values = (message, session.id, role, json.dumps(parts), "m", when, when)
            writer.execute(insert, (*values, None, ""))
        time.sleep(live_feeds.STORE_SECONDS)
        shown.extend(follower.poll())

    def said(text: str) -> dict[str, object]:
        return {"type": "text", "data": {"text": text}}

    finish = {"type": "finish", "data": {"reason": "end_turn", "time": 0}}
    try:
        write("m-live-user", "user", said("one more thing"))
        write("m-live-1", "assistant", said("Hel"))
        write("m-live-1", None, said("Hello, the answer"))
        write("m-live-1", None, said("Hello, the answer is 42."), finish)
        write("m-live-2", "assistant", said("Anything"))
        write("m-live-2", None, said("Anything else?"))
        # the app wrote nothing more: it is complete
        time.sleep(live_feeds.STORE_SECONDS)
        shown.extend(follower.poll())
    finally:
        writer.close()
    texts = [event.text for event in shown if event.kind == "assistant"]
    assert texts == ["Hello, the answer is 42.", "Anything else?"]
    assert [event.kind for event in shown if event.kind != "usage"] == [
        "user",
        "assistant",
        "turn_end",
        "assistant",
    ]


def test_a_last_event_that_differs_at_every_read_is_shown_once_nothing_is_written(
    tmp_path: Path,
) -> None:
    """A store's last event is kept back while each read finds it changed, as a streamed
    answer; one whose every read differs with no write between (a source that dates a
    running tool by the clock) would be kept back, and read again, for ever. Once the
    store was not written since the read before, it is shown as it is."""
    document = tmp_path / "chat.json"
    document.write_text("{}")
    reads = []

    class Source:
        name = "stub"

        def read(self, session: Session, diagnostics: object, **_: object):  # type: ignore[no-untyped-def]
            reads.append(None)
            when = datetime(2026, 11, 20, tzinfo=UTC)
            yield Event("s", 0, "user", when, text="go")
            yield Event("s", 1, "assistant", when, text=f"version {len(reads)}")

    session = Session("stub", "s", path=str(document))
    feed = live_feeds.ReadFeed(session, Source(), Diagnostics(), Tracker())  # type: ignore[arg-type]
    seen = live_feeds.Seen()
    assert [e.text for e in feed.poll(100.0, seen)] == ["go", "version 1"]
    document.write_text('{"more": 1}')  # the app writes: the last event grew
    assert feed.poll(103.0, seen) == []
    shown = [e.text for e in feed.poll(106.0, seen)]  # no write since: shown
    assert shown == ["version 3"]
    assert feed.poll(109.0, seen) == [] and len(reads) == 3  # and not read again


def test_a_usage_total_a_database_app_updates_in_place_is_counted_once(
    tmp_path: Path,
) -> None:
    """Crush keeps a session's tokens as running totals in its row: each change made a
    new usage event at the next read, added to the ones before, and the board's tokens
    grew by the whole session's at every answer (7.4k, 14k, 22k, 30k for a 10.7k one).
    A store read whole counts its usage afresh, as `show` would."""
    home, session, writer, follower = _crush_being_written(tmp_path)
    try:
        for _ in range(3):  # three answers, each billed into the session's totals
            writer.execute(
                "UPDATE sessions SET prompt_tokens = prompt_tokens + 1000,"
                " completion_tokens = completion_tokens + 100 WHERE id = ?",
                (session.id,),
            )
            time.sleep(live_feeds.STORE_SECONDS)
            follower.poll()
    finally:
        writer.close()
    now = api.resolve(home, "8c1f2e3d")
    read = list(get("crush").read(now, Diagnostics()))
    total = sum(e.usage.total for e in read if e.kind == "usage" and e.usage)
    assert total > 3300  # the updates are in it
    assert follower.tracker.tokens == total


# --- the rules --------------------------------------------------------------------------------


def event(
    kind: str, seconds: float, agent: str | None = None, **fields: object
) -> Event:
    return Event(
        "s",
        0,
        kind,  # type: ignore[arg-type]
        time=datetime.fromtimestamp(seconds, UTC),
        agent_id=agent,
        **fields,  # type: ignore[arg-type]
    )


def tracked(*events: Event) -> Tracker:
    tracker = Tracker()
    for e in events:
        tracker.add(e, e.time.timestamp() if e.time else 0.0)
    return tracker


T = 1_800_000_000.0


def test_rules_turns_and_tools() -> None:
    prompt = event("user", T, text="go")
    assert decide(tracked(prompt), T + 5, T, None).status == "working"
    call = event("tool_call", T + 1, tool="Bash", call_id="c1")
    status = decide(tracked(prompt, call), T + 43, T + 1, True)
    # the same compact form as `list`'s ages (`6m`), not '42 s'
    assert status == status.__class__("working", "tool Bash running 42s")
    done = tracked(
        prompt,
        call,
        event("tool_result", T + 2, call_id="c1"),
        event("assistant", T + 3, text="ok"),
        event("turn_end", T + 3),
    )
    assert decide(done, T + 63, T + 3, True).reason == "turn ended 1m ago"
    assert decide(done, T + 63, T + 3, True).status == "waiting_for_user"
    assert decide(done, T + 3600, T + 3, True).status == "idle"
    assert decide(done, T + 63, T + 3, False).status == "ended"
    answered = tracked(
        prompt, event("assistant", T + 1, text="hi")
    )  # an app without turn ends
    assert decide(answered, T + 1.5, T + 1, None).status == "working"
    assert decide(answered, T + 10, T + 1, None).status == "waiting_for_user"
    # an app seen to write turn ends: its answer then silence is not the end of the turn
    # (Claude Code writes a text block, then the tool call it streams after it)
    streaming = tracked(
        prompt,
        call,
        event("tool_result", T + 2, call_id="c1"),
        event("assistant", T + 3, text="ok"),
        event("turn_end", T + 3),
        event("user", T + 10, text="now write it"),
        event("assistant", T + 11, text="I'll write the file."),
    )
    assert decide(streaming, T + 20, T + 11, True).status == "working"


def test_a_session_holding_only_its_settings_is_starting(tmp_path: Path) -> None:
    """pi writes its model and effort before the first prompt: a session holding only
    those is starting, as one with nothing written is, not the model responding (nor,
    the CLI long silent, working on)."""
    from sessdex.sources import pi

    path = tmp_path / "s.jsonl"
    stamp = "2027-01-15T08:00:00.000Z"
    records = [
        {"type": "session", "version": 3, "id": "s", "timestamp": stamp, "cwd": "/w"},
        {"type": "model_change", "id": "a1", "parentId": None, "timestamp": stamp,
         "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
        {"type": "thinking_level_change", "id": "a2", "parentId": "a1",
         "timestamp": stamp, "thinkingLevel": "high"},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    found = list(pi.read(Session("pi", "s", path=str(path)), Diagnostics()))
    assert found and {e.kind for e in found} == {"meta"}
    start = datetime.fromisoformat(stamp).timestamp()
    settings = tracked(*found)
    for alive in (None, True):
        status = decide(settings, start + 5, start, alive)
        assert (status.status, status.reason) == ("working", "starting")
    status = decide(settings, start + 300, start, True)
    assert (status.status, status.reason) == ("idle", "nothing written yet")
    assert decide(settings, start + 300, start, False).status == "ended"
    prompted = tracked(*found, event("user", start + 1, text="go"))
    assert decide(prompted, start + 5, start + 1, None).reason == "model responding"


def test_rules_a_deferred_answer() -> None:
    """The model took the request to answer later (a background answer the app polls for):
    working while the CLI runs, idle once it is gone, ended after a day; an answer that
    came with some text first is no end of the turn either."""
    prompt = event("user", T, text="go")
    later = event("meta", T + 1, text="answer deferred", extra={"deferred": True})
    deferred = tracked(prompt, event("assistant", T + 1, text="Working on it"), later)
    status = decide(deferred, T + 1201, T + 1, True)
    assert status == status.__class__("working", "waiting for a deferred answer (20m)")
    assert decide(deferred, T + 301, T + 1, False).reason == (
        "a deferred answer pending for 5m"
    )
    assert decide(deferred, T + 2 * 86400, T + 1, None).status == "ended"
    answered = tracked(
        prompt, later, event("assistant", T + 9), event("turn_end", T + 9)
    )
    assert decide(answered, T + 20, T + 9, True).status == "waiting_for_user"


def test_an_api_error_an_app_retries_and_a_users_abort_are_not_failures(
    tmp_path: Path,
) -> None:
    """Claude Code writes a line per retry of an API error (`retryAttempt` of
    `maxRetries`); OpenCode and Copilot record the user's stop as the turn's error or an
    `abort`: the board says working, then interrupted, never failed."""
    retry = {"type": "system", "subtype": "api_error", "level": "error",
             "error": {"status": 529}, "retryAttempt": 2, "maxRetries": 10,
             "retryInMs": 4000, "uuid": "e1", "timestamp": "2026-11-30T10:00:00.000Z",
             "sessionId": "s", "cwd": "/w"}  # fmt: skip
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import claude

    path = tmp_path / "s.jsonl"
    prompt = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
              "cwd": "/w", "timestamp": "2026-11-30T09:59:59.000Z",
              "message": {"role": "user", "content": "go"}}  # fmt: skip
    path.write_text(
        "".join(json.dumps(x) + "\n" for x in (prompt, dict(retry, parentUuid="u1")))
    )
    found = list(claude.read(Session("claude", "s", path=str(path)), Diagnostics()))
    [error] = [e for e in found if e.kind == "error"]
    assert error.extra.get("retrying") is True and "retry 2 of 10" in (error.text or "")
    start = found[0].time.timestamp() if found[0].time else T
    status = decide(tracked(*found), start + 30, start + 1, True)
    assert status.status != "failed"
    last = dict(retry, retryAttempt=10, uuid="e2")  # the last try failed: it ends there
    path.write_text(
        "".join(json.dumps(x) + "\n" for x in (prompt, dict(last, parentUuid="u1")))
    )
    found = list(claude.read(Session("claude", "s", path=str(path)), Diagnostics()))
    assert decide(tracked(*found), start + 30, start + 1, True).status == "failed"
    aborted = tracked(
        event("user", T, text="go"),
        event("meta", T + 2, text="aborted: user cancelled"),
        event(
            "turn_end", T + 2, extra={"reason": "user cancelled", "interrupted": True}
        ),
    )
    status = decide(aborted, T + 10, T + 2, True)
    assert (status.status, status.reason) == ("waiting_for_user", "interrupted 8s ago")


def test_rules_errors_interruptions_and_approval() -> None:
    prompt = event("user", T, text="go")
    failed = tracked(prompt, event("error", T + 1, text="overloaded\ntrace"))
    assert decide(failed, T + 30, T + 1, None) == decide(failed, T + 30, T + 1, False)
    assert decide(failed, T + 30, T + 1, None).reason == "error: overloaded"
    retried = tracked(prompt, event("error", T + 1, text="x", extra={"retrying": True}))
    assert decide(retried, T + 2, T + 1, None).status == "working"
    ended_on_error = tracked(
        prompt, event("error", T + 1, text="boom"), event("turn_end", T + 1)
    )
    assert decide(ended_on_error, T + 5, T + 1, True).status == "failed"
    stopped = tracked(
        prompt,
        event("tool_call", T + 1, tool="Bash", call_id="c"),
        event("user", T + 2, text="[stop]", extra={"interrupted": True}),
    )
    assert decide(stopped, T + 5, T + 2, True).reason.startswith("interrupted")
    asking = tracked(prompt, event("tool_call", T + 1, tool="Edit", call_id="c"))
    assert (
        decide(asking, T + 20, T + 1, True, lambda since: False).status
        == "waiting_for_user"
    )
    assert decide(asking, T + 20, T + 1, True, lambda since: True).status == "working"
    assert decide(asking, T + 2, T + 1, True, lambda since: False).status == "working"


def test_an_inferred_approval_nobody_answers_goes_idle_as_a_recorded_one_does() -> None:
    """A call taken to wait for approval (the CLI alive and silent, no process started
    since) stayed 'waiting for you' for ever: a prompt left overnight, or an in-process
    tool hung for hours, topped the board, where an approval the app recorded, or a
    turn that ended, is idle after 15 min."""
    prompt = event("user", T, text="go")
    later = T + 1 + 3 * 3600
    recorded = tracked(
        prompt,
        event(
            "tool_call", T + 1, tool="Shell", call_id="c", extra={"asks": "approval"}
        ),
    )
    assert decide(recorded, later, T + 1, True).status == "idle"
    asking = tracked(prompt, event("tool_call", T + 1, tool="Edit", call_id="c"))
    status = decide(asking, later, T + 1, True, lambda since: False)
    assert (status.status, status.reason) == ("idle", "Edit waits for approval (3h)?")
    # JSON's reason has no age: it counts from the call
    assert (status.plain, status.since) == ("Edit waits for approval?", T + 1)
    status = decide(asking, T + 60, T + 1, True, lambda since: False)
    assert status.status == "waiting_for_user"
    # a sub-agent's, which the lead's window asks for
    spawn = event("tool_call", T + 1, tool="Task", call_id="s")
    announced = event(
        "subagent", T + 1, call_id="s", extra={"child_id": "k", "agent_type": "Explore"}
    )
    child = event("tool_call", T + 2, agent="k", tool="Read", call_id="k1")
    tracker = tracked(prompt, spawn, announced, child)
    status = decide(tracker, T + 2 + 3 * 3600, T + 2, True, lambda since: False)
    assert (status.status, status.reason) == (
        "idle",
        "Explore k: Read waits for approval (3h)?",
    )
    assert (status.plain, status.since) == (
        "Explore k: Read waits for approval?",
        T + 2,
    )
    status = decide(tracker, T + 60, T + 2, True, lambda since: False)
    assert status.status == "waiting_for_user"


def test_rules_sub_agents() -> None:
    prompt = event("user", T, text="go")
    spawn = event("tool_call", T + 1, tool="Task", call_id="c")
    announced = event(
        "subagent", T + 1, call_id="c", extra={"child_id": "k", "agent_type": "Explore"}
    )
    child = event("tool_call", T + 2, agent="k", tool="Read", call_id="k1")
    tracker = tracked(prompt, spawn, announced, child)
    status = decide(tracker, T + 12, T + 2, True)
    assert status.status == "waiting_on_subagent"
    assert status.reason == "sub-agent Explore k working 11s"
    tracker.add(event("turn_end", T + 13, agent="k"), T + 13)
    assert decide(tracker, T + 14, T + 13, True).reason == "tool Task running 13s"
    # a spawn whose child has no file we can read still counts while its call is open
    blind = tracked(
        prompt, spawn, event("subagent", T + 1, call_id="c", extra={"child_id": None})
    )
    assert decide(blind, T + 5, T + 1, None).reason == "1 sub-agent working"
    # ... until, with no process information, nothing was written for half an hour
    status = decide(blind, T + 3601, T + 1, None)
    assert (status.status, status.reason) == ("ended", "nothing written for 1h")
    assert decide(blind, T + 3601, T + 1, True).status == "waiting_on_subagent"
    two = tracked(
        prompt,
        spawn,
        event("subagent", T + 1, call_id="c", extra={"child_id": "a"}),
        event("tool_call", T + 1, tool="Task", call_id="d"),
        event("subagent", T + 1, call_id="d", extra={"child_id": "b"}),
        event("user", T + 2, agent="a", text="x"),
        event("user", T + 2, agent="b", text="y"),
    )
    assert decide(two, T + 3, T + 2, None).reason == "2 sub-agents working"
    # a background sub-agent outlives its lead's turn
    launched = tracked(
        prompt,
        spawn,
        announced,
        event("tool_result", T + 2, call_id="c", extra={"launched": True}),
        event("user", T + 2, agent="k", text="x"),
        event("turn_end", T + 3),
    )
    status = decide(launched, T + 5, T + 3, True)
    assert status.reason == "turn ended 2s ago (1 sub-agent working)"
    launched.add(event("user", T + 4, agent="j", text="y"), T + 4)
    assert decide(launched, T + 5, T + 4, True).reason.endswith(
        "(2 sub-agents working)"
    )


# --- processes ----------------------------------------------------------------------------------


def fake_process(
    root: Path, pid: int, args: list[str], cwd: Path, start: int = 100
) -> None:
    folder = root / str(pid)
    (folder / "task" / str(pid)).mkdir(parents=True)
    (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in args) + b"\0")
    (folder / "cwd").symlink_to(cwd)
    (folder / "stat").write_text(
        f"{pid} (x) S 1 " + " ".join(["0"] * 17) + f" {start} 0\n"
    )
    (folder / "task" / str(pid) / "children").write_text("")


def test_processes_by_id_then_by_folder(tmp_path: Path) -> None:
    root = tmp_path / "proc"
    (root / "self").mkdir(parents=True)
    (root / "stat").write_text("cpu 0\nbtime 1000\n")
    work = tmp_path / "work"
    work.mkdir()
    fake_process(root, 10, ["node", "/usr/bin/claude", "--resume", "aaa"], tmp_path)
    fake_process(root, 11, ["claude"], work)  # a new session in its folder
    fake_process(root, 12, ["vim", "aaa"], work)
    fake_process(root, 13, ["claude", "--resume", "ddd"], work)  # names another session
    processes = Processes(root=root)
    processes.refresh(force=True)

    def session(sid: str, cwd: Path, updated: float) -> LiveSession:
        found = LiveSession.__new__(LiveSession)
        found.session = Session("claude", sid, cwd=str(cwd))
        found.source = get("claude")
        found.program, found.aliases = "claude", ()
        found.tracker = Tracker()
        found.tracker.touch(None, updated)
        found.feed = live_feeds.ReadFeed.__new__(live_feeds.ReadFeed)
        found.feed.written = 0.0
        found._first_written = None  # not read yet
        found.since = 0.0
        found.pids, found.alive = [], None
        return found

    # the processes started at 1001 (epoch seconds), a little before these writes
    a, b = session("aaa", tmp_path, 1005), session("bbb", work, 1009)
    c, d = session("ccc", work, 1001), session("ddd", work, 1002)
    attach_processes([a, b, c, d], processes)
    assert (a.alive, a.pids) == (True, [10])
    assert (b.alive, b.pids) == (True, [11])  # the newest session in that folder
    assert (c.alive, c.pids) == (False, [])
    assert (d.alive, d.pids) == (True, [13])
    # a child process started after a time: the tool runs (no approval pending)
    fake_process(root, 20, ["bash"], work, start=100 * os.sysconf("SC_CLK_TCK"))
    (root / "11" / "task" / "11" / "children").write_text("20")
    assert processes.spawned_since(11, 1050) is True
    assert processes.spawned_since(11, 1200) is False


def test_a_fresh_cli_in_its_folder_does_not_keep_a_crashed_session_working(
    tmp_path: Path,
) -> None:
    """A session that crashed during a tool call three hours ago, and a CLI of its app
    started in the same folder just now: that CLI has not written the session, so the
    board says it stopped, not 'tool Bash running 3h'."""
    root = tmp_path / "proc"
    (root / "self").mkdir(parents=True)
    (root / "stat").write_text("cpu 0\nbtime 1000\n")
    work = tmp_path / "work"
    work.mkdir()
    ticks = os.sysconf("SC_CLK_TCK")
    crashed_at, now = 1000 + 3600.0, 1000 + 4 * 3600.0
    fake_process(root, 11, ["claude"], work, start=4 * 3600 * ticks)  # just now
    processes = Processes(root=root)
    processes.refresh(force=True)
    assert processes.started(11) == 1000 + 4 * 3600

    def session(sid: str) -> LiveSession:
        found = LiveSession(Session("claude", sid, cwd=str(work)))
        found.program, found.aliases = "claude", ()
        found.since = now  # followed from now on
        prompt = event("user", crashed_at - 5, text="run the tests")
        call = event("tool_call", crashed_at, tool="Bash", call_id="c")
        for item in (prompt, call):
            found.tracker.add(item, now)
        return found

    crashed = session("aaa")
    attach_processes([crashed], processes)
    assert (crashed.alive, crashed.pids) == (False, [])
    status = crashed.status(now, processes)
    assert (status.status, status.reason) == (
        "ended",
        "stopped during Bash (process gone)",
    )
    # once that CLI writes the session (or one there), it is its process again
    crashed.tracker.add(event("tool_result", now + 1, call_id="c"), now + 1)
    attach_processes([crashed], processes)
    assert (crashed.alive, crashed.pids) == (True, [11])
    # where the process's start is unknown, the folder is enough, as before
    fresh = session("bbb")
    (root / "11" / "stat").unlink()
    attach_processes([fresh], processes)
    assert (fresh.alive, fresh.pids) == (True, [11])


def test_a_cli_running_under_its_older_name_is_still_its_process(
    tmp_path: Path,
) -> None:
    """Cursor's CLI is `agent` now; installs that kept `cursor-agent` run node as
    `exec -a "$0"`, so the process shows the older name: the session is still alive."""
    root = tmp_path / "proc"
    (root / "self").mkdir(parents=True)
    (root / "stat").write_text("cpu 0\nbtime 1000\n")
    chat = "5e5e5e5e-0000-4000-8000-000000000001"
    args = ["/home/dev/.local/bin/cursor-agent", "--use-system-ca", "/x/index.js",
            "--resume", chat]  # fmt: skip
    fake_process(root, 30, args, tmp_path)
    processes = Processes(root=root)
    processes.refresh(force=True)
    from sessdex.sources import cursor

    plan = cursor.resume(Session("cursor", chat, cwd=str(tmp_path)))
    assert plan is not None and plan.program == "agent"
    found = LiveSession.__new__(LiveSession)
    found.session = Session("cursor", chat, cwd=str(tmp_path))
    found.source = cursor
    found.program, found.aliases = plan.program, plan.process_names
    found.pids, found.alive = [], None
    attach_processes([found], processes)
    assert (found.alive, found.pids) == (True, [30])


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_resume_sees_a_session_open_in_a_cli_running_under_its_older_name() -> None:
    import subprocess
    import sys

    from sessdex import api

    chat = "5e5e5e5e-0000-4000-8000-0000000000aa"
    # a real process whose argv[0] is the older name, as `exec -a "$0"` leaves it
    child = subprocess.Popen(
        [
            "bash",
            "-c",
            f'exec -a cursor-agent {sys.executable} -c "import time; time.sleep(30)" {chat}',
        ]
    )
    try:
        for _ in range(100):
            if api.live_processes("agent", chat, ("cursor-agent",)):
                break
            time.sleep(0.05)
        assert api.live_processes("agent", chat, ("cursor-agent",)) == [child.pid]
        assert api.live_processes("agent", chat) == []
    finally:
        child.kill()
        child.wait()


# --- the commands ---------------------------------------------------------------------------------


def lines_of(output: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_follow_command_streams_json_lines(
    codex_thread, run: CliRunner, tmp_path: Path
) -> None:
    session, expected, files = codex_thread
    home = str(tmp_path / "home")
    main_file = Path(str(session.path))
    steps = timeline(files)
    # the first line is there when the command starts; the rest comes while it follows
    head = next(i for i, (path, _) in enumerate(steps) if path == main_file)
    append(*steps.pop(head))
    writer = Writer(steps, delay=0.02)
    threading.Timer(0.5, writer.start).start()
    result = run.invoke(
        main,
        [
            "follow",
            CODEX_PARENT[:13],
            "--nl",
            "-n",
            "1000",  # on a slow machine some lines are history already: shown all the same
            "--duration",
            "6",
            "--home",
            home,
            "--poll",
        ],
    )
    assert result.exit_code == 0, result.output
    records = lines_of(result.stdout)
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert {"kind", "time", "agent_id", "text", "tool", "call_id", "usage"} <= records[
        0
    ].keys()
    assert [r["kind"] for r in records if r["agent_id"] is None] == [
        e.kind for e in expected if e.agent_id is None
    ]
    assert any(r["agent_id"] == CODEX_CHILD for r in records)


def test_follow_command_prints_labelled_sub_agents(
    codex_thread, run: CliRunner, tmp_path: Path
) -> None:
    _, _, files = codex_thread
    for path, line in timeline(files):
        append(path, line)
    result = run.invoke(
        main,
        [
            "follow",
            CODEX_PARENT,
            "-n",
            "100",
            "--duration",
            "0.3",
            "--home",
            str(tmp_path / "home"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Spawned sub-agent" in result.stdout
    assert "↳" in result.stdout


def test_watch_help_says_what_a_pipe_gets(home: Home, run: CliRunner) -> None:
    """A board into a pipe or a file is printed again at each status change until
    Ctrl-C, which neither `watch --help` nor docs/live.md said (only --once's single
    board and --nl's lines were named)."""
    shown = run.invoke(main, ["watch", "--help"])
    assert shown.exit_code == 0
    assert "Into a pipe or a file, the board is printed again" in " ".join(
        shown.stdout.split()
    )
    piped = run.invoke(
        main,
        ["watch", "--since", "3000w", "--duration", "0", "--home", str(home.path)],
    )
    assert piped.exit_code == 0 and "ended (" in piped.stdout


def test_watch_command_nl_and_once(home: Home, run: CliRunner) -> None:
    result = run.invoke(
        main, ["watch", "--nl", "--once", "--since", "3000w", "--home", str(home.path)]
    )
    assert result.exit_code == 0, result.output
    records = lines_of(result.stdout)
    assert len(records) > 10
    assert all(
        r.keys() >= {"id", "app", "title", "cwd", "status", "reason", "updated"}
        for r in records
    )
    assert {r["status"] for r in records} <= set(live.STATUSES)
    ranks = [live.STATUSES.index(str(r["status"])) for r in records]
    assert ranks == sorted(ranks)  # most urgent first
    plain = run.invoke(
        main,
        [
            "watch",
            "--once",
            "--app",
            "codex",
            "--since",
            "3000w",
            "--home",
            str(home.path),
        ],
    )
    assert plain.exit_code == 0, plain.output
    assert "codex" in plain.stdout


def test_watch_board_columns_stay_aligned_with_a_long_app_name(
    home: Home, run: CliRunner
) -> None:
    result = run.invoke(
        main, ["watch", "--once", "--since", "3000w", "--home", str(home.path)]
    )
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line.startswith("  ")]
    # the app first, as `list` has it; the id starts at the same place on every row,
    # past the longest app name
    assert any(line[2:].startswith("antigravity ") for line in rows)
    id_at = {len(line) - len(line[2:].split(" ", 1)[1].lstrip(" ")) for line in rows}
    assert id_at == {2 + len("antigravity") + 1}


def test_watch_command_streams_changes(
    codex_thread, run: CliRunner, tmp_path: Path
) -> None:
    session, _, files = codex_thread
    steps = timeline(files)
    main_file = Path(str(session.path))
    head = [i for i, (path, _) in enumerate(steps) if path == main_file][:10]
    for i in head:
        append(*steps[i])
    rest = [step for i, step in enumerate(steps) if i not in head]
    writer = Writer(
        rest, delay=0.08
    )  # slow enough to see each state at 4 polls a second
    threading.Timer(1.0, writer.start).start()
    result = run.invoke(
        main,
        [
            "watch",
            "--nl",
            "--app",
            "codex",
            "--since",
            "3000w",
            "--duration",
            "9",
            "--poll",
            "--home",
            str(tmp_path / "home"),
        ],
    )
    assert result.exit_code == 0, result.output
    mine = [r["status"] for r in lines_of(result.stdout) if r["id"] == CODEX_PARENT]
    assert mine[0] == "working"
    assert "waiting_on_subagent" in mine
    assert mine[-1] == "waiting_for_user"


def test_replay_paces_and_caps() -> None:
    pauses: list[float] = []
    stamps = [datetime(2026, 1, 1, 0, 0, s, tzinfo=UTC) for s in (0, 1, 1, 30, 31)]
    events = [Event("s", n, "assistant", time=t) for n, t in enumerate(stamps)]
    assert list(live.replay(events, speed=2, max_gap=5, sleep=pauses.append)) == events
    assert pauses == [0.5, 5, 0.5]


def test_replay_adds_up_short_pauses_instead_of_sleeping_per_event() -> None:
    pauses: list[float] = []
    start = datetime(2026, 1, 1, tzinfo=UTC)
    stamps = [start + timedelta(milliseconds=n) for n in range(1000)]
    events = [Event("s", n, "assistant", time=t) for n, t in enumerate(stamps)]
    assert list(live.replay(events, speed=1, max_gap=5, sleep=pauses.append)) == events
    assert 90 <= len(pauses) <= 100  # one per 10 ms of pacing, not one per event
    assert sum(pauses) == pytest.approx(0.99, abs=0.011)
    pauses.clear()
    assert list(live.replay(events, speed=1, max_gap=0, sleep=pauses.append)) == events
    assert pauses == []  # no pause at all is asked for: none is slept


def test_replay_waits_out_a_pause_of_centuries_instead_of_crashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bogus date (1990, then 2026) with --speed 0.01 and --max-gap inf asked
    time.sleep for 1e11 s: 'OverflowError: timestamp out of range' ended the replay in
    a traceback. Each sleep asked for is handed to the real time.sleep (in a thread of
    its own, for a moment) to see that it waits rather than refuses."""
    session_id = "bbbbbbbb-0000-4000-8000-000000000001"
    path = write_claude_session(
        tmp_path, session_id, "/w/a", when="1990-01-01T00:00:00Z"
    )
    lines = path.read_text().splitlines()
    last = json.loads(lines[-1])
    last["timestamp"] = "2026-11-20T10:00:05.000Z"
    path.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")
    real_sleep = time.sleep

    class Waiting(Exception):
        """The real sleep took the pause: the replay waits, as it should."""

    def sleep(seconds: float) -> None:
        refused: list[Exception] = []

        def take() -> None:
            try:
                real_sleep(seconds)
            except Exception as error:  # raised again in the test's own thread
                refused.append(error)

        waiter = threading.Thread(target=take, daemon=True)
        waiter.start()
        waiter.join(0.2)
        if refused:
            raise refused[0]
        raise Waiting

    found = api.replay_session(
        Home.at(tmp_path), "bbbbbbbb", speed=0.01, max_gap=float("inf")
    )
    monkeypatch.setattr(time, "sleep", sleep)
    events = iter(found.events)
    next(events)
    with pytest.raises(Waiting):
        next(events)


def test_replay_command(home: Home, run: CliRunner) -> None:
    result = run.invoke(
        main,
        ["replay", CODEX_PARENT, "--nl", "--speed", "1000", "--home", str(home.path)],
    )
    assert result.exit_code == 0, result.output
    records = lines_of(result.stdout)
    assert {r["agent_id"] for r in records} == {None, CODEX_CHILD}
    assert [r["seq"] for r in records] == list(range(len(records)))


def test_follow_with_notifications(codex_thread) -> None:
    pytest.importorskip("watchfiles")
    session, expected, files = codex_thread
    assert live.Waiter(True).backend == "watchfiles"
    writer = Writer(timeline(files), delay=0.02)
    writer.start()
    got = [
        e
        for batch in live.follow(session, duration=20, notify=True, stop=writer.settled)
        for e in batch
    ]
    writer.join()
    assert shape(got) == shape(expected)


def test_board_text_is_sanitised() -> None:
    from rich.console import Console

    from sessdex.status import Status
    from sessdex.views.board import plain, render, status_record

    hostile = "fix \x1b]0;pwned\x07 the \x1b[2Jbuild"
    row = live.BoardRow(
        Session("claude", "abc", title=hostile, cwd="/home/dev/\x1b[31mred"),
        Status("working", "tool \x1b[1mBash running 3s"),
        T,
        1234,
        True,
    )
    console = Console(record=True, width=200, force_terminal=False)
    console.print(render([row], "/home/dev"))
    shown = console.export_text() + plain([row], "/home/dev")
    assert "\x1b" not in shown and "\x07" not in shown
    assert "waiting for you" not in shown and "working (1)" in shown
    assert status_record(row)["tokens"] == 1234


def test_a_session_id_from_a_file_cannot_drive_the_terminal_from_the_board(
    tmp_path: Path, run: CliRunner
) -> None:
    """An id is what a file says (a name, a record's field): the board prints a right-to-
    left override or an escape in it as the shell's escape, as `list` does, so neither
    reaches the terminal."""
    from rich.console import Console

    from sessdex.status import Status
    from sessdex.views.board import render

    home = tmp_path / "home"
    when = "2026-01-10T10:00:00.000Z"
    write_claude_session(
        home, "\u202ec0b1ed00-0000-4000-8000-0000000000a1", "/w", when=when
    )
    board = run.invoke(
        main, ["watch", "--once", "--since", "100000d", "--home", str(home)]
    )
    assert board.exit_code == 0, board.output
    assert "\u202e" not in board.stdout
    # the id with the shell's escape for the override, as `list` prints it since
    # 7a7abf1c: pasted, the shell gives back the id's own start
    word = re.search(r"  claude   (.+?)  \d", board.stdout)
    assert word is not None, board.stdout
    typed = subprocess.run(
        ["sh", "-c", f"printf %s {word[1]}"], capture_output=True, text=True, check=True
    ).stdout
    assert "\u202ec0b1ed00-0000-4000-8000-0000000000a1".startswith(typed), word[1]
    assert typed.endswith("c0b1ed00"), word[1]  # 8 characters a reader sees
    row = live.BoardRow(
        Session("claude", "\x1b]0;pwned\x07c0b1ed00"), Status("idle", "x"), T, 0, False
    )
    console = Console(record=True, width=200, force_terminal=False)
    console.print(render([row], "/home/dev"))
    shown = console.export_text()
    # written out, as the shell's escape (spelt outside a command line): it acts on nothing
    assert "\x1b" not in shown and "\x07" not in shown
    # 8 characters a reader sees (the escape written out among them)
    assert "  '\\x1b]0;pwned'  " in shown, shown


def test_the_plain_board_fits_what_it_shows_and_the_terminal() -> None:
    """`watch --once`: columns as wide as their texts; on an 80-column terminal the
    reason gives way first, then the folder (which keeps its end), then the title."""
    from sessdex.status import Status
    from sessdex.views.board import plain

    def row(title: str, cwd: str, reason: str) -> live.BoardRow:
        return live.BoardRow(
            Session("claude", title[:3], title=title, cwd=cwd), Status("working", reason),
            T, 1200, False,
        )  # fmt: skip

    rows = [
        row("Fix the flaky checkout test in CI", "/home/dev/code/shop-api", "tool Bash running 42s"),
        row("Plan", "/home/dev/x", "model responding"),
    ]  # fmt: skip
    now = datetime.fromtimestamp(T, UTC)
    wide = plain(rows, "/home/dev", now).splitlines()
    # each row starts with enough of its id to `show` or `resume` it
    # in `list`'s order: app, id, age (the tokens beside it), folder, title; the reason last
    assert wide[1] == (
        "  claude   Fix       now    1.2k ~/code/shop-api Fix the flaky checkout test in "
        "CI tool Bash running 42s"
    )
    narrow = plain(rows, "/home/dev", now, width=80).splitlines()
    assert narrow[1] == (
        "  claude   Fix       now    1.2k …de/shop-api Fix the flaky … tool Bash running…"
    )
    assert all(len(line) <= 80 for line in narrow)


def test_the_live_board_is_the_plain_board_fitted_to_the_terminal() -> None:
    """`watch` on a terminal shows --once's lines, fitted to its width: the reason, then
    the folder give way, the app is cut to the letters that tell the board's apps apart
    and the title narrows; the status heading, the id,
    the age and the tokens are never cut."""
    import io

    from rich.console import Console

    from sessdex.status import Status
    from sessdex.views.board import plain, render

    rows = [
        live.BoardRow(
            Session(
                app,
                sid,
                title="Fix the flaky checkout test in CI",
                cwd="/home/dev/code/shop-api",
            ),
            Status(status, "tool Bash running 42s"),
            T - 300,
            123_456,
            False,
        )
        for app, sid, status in (
            ("opencode", "01a22b81-666a", "waiting_on_subagent"),
            ("claude", "01a22b81-5c00", "working"),
            ("codex", "01a22b81-6e0b", "working"),
        )
    ]
    now = datetime.fromtimestamp(T, UTC)
    shown = {}
    for width in (160, 80, 60, 40):
        console = Console(file=io.StringIO(), width=width, color_system=None)
        console.print(render(rows, "/home/dev", now, width=width))
        lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
        assert lines == plain(rows, "/home/dev", now, width=width).splitlines()
        assert all(len(line) <= width for line in lines), width
        assert lines[0] == "waiting on a sub-agent (1)" and lines[2] == "working (2)"
        assert all("01a22b81-" in line and "   5m  123.5k " in line for line in lines if line[:2] == "  ")  # fmt: skip
        shown[width] = lines[1]
    assert shown == {
        160: "  opencode 01a22b81-66   5m  123.5k ~/code/shop-api Fix the flaky checkout "
        "test in CI tool Bash running 42s",
        80: "  opencode 01a22b81-66   5m  123.5k …de/shop-api Fix the flaky checkout test in…",
        60: "  opencode 01a22b81-66   5m  123.5k Fix the flaky checkout …",
        40: "  ope… 01a22b81-66   5m  123.5k Fix the…",  # the app cut, as tables cut
    }


# --- claude: a Task sub-agent in its own file ---------------------------------------------------

CLAUDE_PARENT = "82d9f90c-3f87-46b4-b09c-58027a5e630c"
CLAUDE_CHILD = "a199d630441234c05"


def claude_tui_home(tmp_path: Path) -> Home:
    """The Claude Code fixture home, its session files saying `entrypoint: "cli"`, as the
    TUI's do: they are `claude -p` captures (`"sdk-cli"`, tests/data/claude/PROVENANCE.md),
    which these tests take for a session someone types into."""
    home = copy_home("claude", tmp_path)
    for path in sorted(home.path.rglob("*.jsonl")):
        text = path.read_text()
        path.write_text(text.replace('"entrypoint":"sdk-cli"', '"entrypoint":"cli"'))
    return home


@pytest.fixture
def claude_task(
    tmp_path: Path,
) -> tuple[Session, list[Event], dict[Path, list[bytes]], Path, bytes]:
    home = claude_tui_home(tmp_path)
    session = api.resolve(home, CLAUDE_PARENT)
    expected = list(get("claude").read(session, Diagnostics()))
    main_file = Path(str(session.path))
    child = main_file.with_suffix("") / "subagents" / f"agent-{CLAUDE_CHILD}.jsonl"
    meta = child.with_suffix(".meta.json")
    meta_bytes = meta.read_bytes()
    meta.unlink()
    return session, expected, empty([main_file, child]), meta, meta_bytes


def test_claude_sub_agent_spawn_and_finish(claude_task) -> None:
    session, expected, files, meta, meta_bytes = claude_task
    assert callable(getattr(get("claude"), "follow", None))
    follower = LiveSession(session)
    got: list[Event] = []
    trail = []
    for path, line in timeline(files):
        if path.parent == meta.parent and not meta.exists():
            meta.write_bytes(meta_bytes)  # Claude Code writes it when the agent starts
        append(path, line)
        got += follower.poll()
        trail.append(follower.status())
    assert shape(spawned_once(got)) == shape(expected)
    folded = statuses([s.status for s in trail])
    assert folded == ["working", "waiting_on_subagent", "working", "waiting_for_user"]
    waiting = [s.reason for s in trail if s.status == "waiting_on_subagent"]
    assert "sub-agent general-purpose a199d630 working" in waiting[-1]
    assert follower.tracker.tokens == sum(e.usage.total for e in expected if e.usage)


def test_claude_follow_with_a_writer_thread(claude_task) -> None:
    session, expected, files, meta, meta_bytes = claude_task
    meta.write_bytes(meta_bytes)
    writer = Writer(timeline(files), delay=0.05)
    writer.start()
    got = [
        e
        for batch in live.follow(session, duration=20, stop=writer.settled)
        for e in batch
    ]
    writer.join()
    assert shape(spawned_once(got)) == shape(expected)
    # one spawn, given again naming its child where its file came after the spawn
    spawns = [e for e in got if e.kind == "subagent"]
    assert spawns[-1].extra["child_id"] == CLAUDE_CHILD
    assert len(spawns) == 1 or (
        len(spawns) == 2
        and spawns[0].call_id == spawns[1].call_id
        and spawns[0].extra["child_id"] is None
    )


@pytest.mark.parametrize("meta", ["kept", "missing"])
def test_watch_links_a_nested_sub_agent_whose_meta_file_is_lost(
    tmp_path: Path, meta: str
) -> None:
    """The real 2.1.197 run with a nested sub-agent, written line by line as it ran:
    without the nested one's `.meta.json`, its spawner's call names it once its file
    opens with the call's prompt, as `show` links it (it was announced by the lead)."""
    lead = nested_claude_run(tmp_path / "home", meta)
    session = api.resolve(Home.at(tmp_path / "home"), lead.stem)
    shown = list(get("claude").read(session, Diagnostics()))
    folder = lead.with_suffix("") / "subagents"
    written = empty([lead, *sorted(folder.glob("*.jsonl"))])
    follower = LiveSession(session)
    got: list[Event] = []
    for n, (path, line) in enumerate(timeline(written)):
        append(path, line)
        got += follower.poll(T + 3.0 * n)  # its sub-agent files listed at each poll

    def spawns(found: list[Event]) -> list[tuple[str | None, str | None, object]]:
        """Each spawn once, as it was said last (naming its child once its file came)."""
        said = {(e.agent_id, e.call_id): e for e in found if e.kind == "subagent"}
        return [(*key, e.extra["child_id"]) for key, e in said.items()]

    assert spawns(got) == spawns(shown)
    assert spawns(shown)[-1] == (SPAWNER, "toolu_nested", NESTED)
    assert shape(got)[NESTED] == shape(shown)[NESTED]
    # watched once it has all been written: its history links it the same
    assert spawns(LiveSession(session).poll(T)) == spawns(shown)


def test_follow_labels_a_sub_agent_whose_file_came_after_its_spawn(
    claude_task, capsys: pytest.CaptureFixture[str]
) -> None:
    """The spawn is read before the sub-agent's file exists: its lines are labelled by
    its type, as `show` labels them (not `↳ a199d630`), and the spawn is printed once."""
    from sessdex.cli.live import _follow_text

    session, _, files, meta, meta_bytes = claude_task
    meta.write_bytes(meta_bytes)
    follower = LiveSession(session)
    batches = []
    for path, line in timeline(files):
        append(path, line)
        batches.append(follower.poll())
    _follow_text(session, batches, "normal", {}, 1000)
    out = capsys.readouterr().out
    assert out.count("Spawned sub-agent general-purpose — Greeting sub-agent") == 1
    assert "↳ general-purpose Using Bash — echo hello-from-subagent" in out
    assert f"↳ {CLAUDE_CHILD[:8]}" not in out


def test_claude_interruption_waits_for_the_user(claude_task) -> None:
    session, _, files, _, _ = claude_task
    main_file = Path(str(session.path))
    lines = files[main_file]
    prompt = next(line for line in lines if b'"type":"user"' in line)
    follower = LiveSession(session)
    append(main_file, prompt)
    follower.poll()
    assert follower.status().status == "working"
    record = json.loads(prompt)
    record["uuid"] = "99999999-0000-4000-8000-000000000001"
    record["parentUuid"] = json.loads(prompt)["uuid"]
    record["message"] = {
        "role": "user",
        "content": [{"type": "text", "text": "[Request interrupted by user]"}],
    }
    append(main_file, json.dumps(record).encode() + b"\n")
    follower.poll()
    status = follower.status()
    assert status.status == "waiting_for_user"
    assert status.reason.startswith("interrupted")


def test_claude_sub_agent_followed_on_its_own(tmp_path: Path) -> None:
    home = claude_tui_home(tmp_path)
    child = api.resolve(home, CLAUDE_CHILD)
    assert child.parent_id == CLAUDE_PARENT
    os.utime(str(child.path))  # written just now
    follower = LiveSession(child)
    events = follower.poll()
    assert events and all(e.agent_id is None for e in events)
    assert follower.status().status == "waiting_for_user"


def test_claude_rewrite_and_partial_line_while_following(claude_task) -> None:
    """A writer thread appends, cuts a line in two, then rewrites the whole file mid-follow
    (an atomic save holding the same lines and more); the follower shows each event once."""
    session, expected, files, meta, meta_bytes = claude_task
    meta.write_bytes(meta_bytes)
    main_file = Path(str(session.path))
    child = next(path for path in files if path != main_file)
    child.write_bytes(b"".join(files[child]))
    lines = files[main_file]
    half = len(lines) // 2
    done = threading.Event()

    def write() -> None:
        for line in lines[:half]:
            time.sleep(0.05)
            append(main_file, line)
        cut = len(lines[half]) // 2
        append(main_file, lines[half][:cut])
        time.sleep(0.6)  # the follower sees the cut line and waits for the rest
        temporary = main_file.with_suffix(".tmp")
        temporary.write_bytes(b"".join(lines[: half + 1]))
        temporary.replace(main_file)
        for line in lines[half + 1 :]:
            time.sleep(0.05)
            append(main_file, line)
        time.sleep(0.8)
        done.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    got = [
        e
        for batch in live.follow(session, duration=20, stop=done.is_set)
        for e in batch
    ]
    writer.join()
    assert shape(got)[None] == shape(expected)[None]
    assert [e.kind for e in got].count("subagent") == 1


def test_a_workflow_agent_is_followed_as_it_writes(tmp_path: Path) -> None:
    """An agent a Workflow run launched writes `subagents/workflows/<run>/agent-*.jsonl`:
    followed like an Agent-tool sub-agent, its lines tagged with its id."""
    home = copy_home("claude", tmp_path)
    session = api.resolve(home, CLAUDE_PARENT)
    main_file = Path(str(session.path))
    subagents = main_file.with_suffix("") / "subagents"
    run = subagents / "workflows" / "wf_1"
    run.mkdir(parents=True)
    moved = run / f"agent-{CLAUDE_CHILD}.jsonl"
    (subagents / f"agent-{CLAUDE_CHILD}.jsonl").rename(moved)
    meta = subagents / f"agent-{CLAUDE_CHILD}.meta.json"
    meta.rename(run / meta.name)
    expected = list(get("claude").read(session, Diagnostics()))
    files = empty([main_file, moved])
    follower = LiveSession(session)
    got: list[Event] = []
    for path, line in timeline(files):
        append(path, line)
        got += follower.poll()
    assert shape(spawned_once(got)) == shape(expected)
    assert [e.kind for e in got if e.agent_id == CLAUDE_CHILD][:2] == [
        "user",
        "tool_call",
    ]


def test_a_session_in_a_shared_store_is_as_recent_as_its_own_events(
    tmp_path: Path, run: CliRunner
) -> None:
    """A database many sessions share (Cursor's IDE store, OpenCode's, Crush's) is written
    whenever any of them is: its mtime says nothing of one session. A two-day-old
    conversation in a store written just now is two days old on the board."""
    from tests.sources.test_cursor_ide import sample

    sample(tmp_path)
    result = run.invoke(
        main, ["watch", "--nl", "--once", "--since", "3000w", "--home", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    updated = {r["title"]: r["updated"] for r in lines_of(result.stdout)}
    assert updated["Fix the flaky checkout test"] == "2026-11-29T10:00:10.000Z"
    statuses = {r["status"] for r in lines_of(result.stdout)}
    assert statuses == {"ended"}  # not "waiting for you": nothing was written just now


def test_a_recorded_question_or_approval_waits_for_the_user_until_settled() -> None:
    """An app that records its question (Goose's elicitation) or its approval request
    (Kimi's, Cline's, Goose's state machine) waits for the user, no guess needed, until
    the answer, or anything the agent does next."""
    prompt = event("user", T, text="deploy it")
    call = event("tool_call", T + 1, tool="shell", call_id="c1")
    asked = event("meta", T + 2, text="Which environment?", extra={"asks": "answer"})
    status = decide(tracked(prompt, call, asked), T + 12, T + 2, True)
    assert status == status.__class__(
        "waiting_for_user", "a question waits for your answer (10s)"
    )
    answered = event("user", T + 13, text='{"env": "prod"}')
    assert (
        decide(tracked(prompt, call, asked, answered), T + 15, T + 13, True).status
        == "working"
    )
    permission = event("meta", T + 2, tool="shell", extra={"asks": "approval"})
    status = decide(tracked(prompt, call, permission), T + 9, T + 2, None)
    assert status.reason == "shell waits for approval (7s)"
    allowed = event("meta", T + 10, extra={"answered": True})
    assert (
        decide(tracked(prompt, call, permission, allowed), T + 12, T + 10, None).status
        == "working"
    )


def test_a_call_blocked_on_the_user_comes_before_a_turn_that_only_ended() -> None:
    """Two sessions wait for you: one asks to run a command, one has finished its turn. The
    one that cannot go on without you comes first, though the other wrote last; each
    kind keeps the newest first."""
    from sessdex.live import BoardRow, most_urgent_first

    prompt = event("user", T, text="deploy it")
    call = event("tool_call", T + 1, tool="shell", call_id="c1")
    permission = event("meta", T + 2, tool="shell", extra={"asks": "approval"})
    blocked = decide(tracked(prompt, call, permission), T + 60, T + 2, None)
    done = decide(
        tracked(
            prompt, event("assistant", T + 50, text="ok"), event("turn_end", T + 50)
        ),
        T + 60,
        T + 50,
        True,
    )
    assert blocked.status == done.status == "waiting_for_user"
    row = {
        name: BoardRow(Session("claude", name), status, updated, 0, False)
        for name, status, updated in (
            ("asks", blocked, T + 2),
            ("asked-earlier", blocked, T + 1),
            ("ended", done, T + 50),
            ("ended-earlier", done, T + 40),
            ("working", Status("working", "answering"), T + 59),
        )
    }
    board = most_urgent_first(list(row.values())[::-1])
    assert [r.session.id for r in board] == [
        "asks",
        "asked-earlier",
        "ended",
        "ended-earlier",
        "working",
    ]


def test_watch_json_is_the_board_once_as_one_array(home: Home, run: CliRunner) -> None:
    result = run.invoke(
        main, ["watch", "--json", "--since", "3000w", "--home", str(home.path)]
    )
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout)
    assert isinstance(board, list) and len(board) > 5
    assert set(board[0]) == {
        "id",
        "app",
        "title",
        "cwd",
        "status",
        "reason",
        "since",
        "updated",
        "tokens",
        "tokens_partial",
        "pid",
    }
    listed = {
        row["id"]
        for row in json.loads(
            run.invoke(
                main,
                [
                    "list",
                    "--json",
                    "--since",
                    "3000w",
                    "--limit",
                    "1000",
                    "--home",
                    str(home.path),
                ],
            ).stdout
        )
    }
    assert {row["id"] for row in board} <= listed


def test_watch_json_says_which_tokens_are_counted_from_a_tail_window(
    tmp_path: Path, run: CliRunner
) -> None:
    """A session longer than the history `watch` reads first shows `+` after its tokens on
    the board: its JSON object says so too (scripts could not tell its count was short)."""
    home = copy_home("claude", tmp_path)
    path = (
        home.path
        / ".claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"
    )
    lines = path.read_bytes().splitlines(keepends=True)
    grown = list(lines)
    while sum(map(len, grown)) < 2 * live_feeds.FULL_REREAD_MAX:
        grown += lines[1:]  # the same turns again
    path.write_bytes(b"".join(grown))
    args = ["watch", "--since", "10000w", "--app", "claude", "--home", str(home.path)]
    board = json.loads(run.invoke(main, [*args, "--json"]).stdout)
    partial = {row["id"][:8]: row["tokens_partial"] for row in board}
    assert partial["11111111"] is True and partial["22222222"] is False
    shown = run.invoke(main, [*args, "--once"]).stdout
    [line] = [line for line in shown.splitlines() if "11111111" in line]
    assert re.search(r"[\dkM]\+ ", line)  # the tokens, after the age


def test_follow_history_counts_the_lines_it_shows(
    codex_thread, run: CliRunner, tmp_path: Path
) -> None:
    """`follow -n N` shows the last N lines of history: token counts and turn ends, which
    are no lines, do not use it up (`-n 2` could show nothing)."""
    _, _, files = codex_thread
    for path, line in timeline(files):
        append(path, line)
    for n in (1, 2, 3):
        result = run.invoke(
            main,
            ["follow", CODEX_PARENT, "-n", str(n), "--duration", "0.3",
             "--home", str(tmp_path / "home")],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        shown = [line for line in result.stdout.splitlines() if line.strip()]
        assert len(shown) == n, result.stdout


def test_follow_nl_history_longer_than_the_session_gives_all_of_it(
    run: CliRunner,
) -> None:
    """`follow --nl -n 20` on a session of 11 events prints all 11 (not the last 9: a
    start index of 11 - 20 counted from the end), as -n 11 and -n 1000 do."""
    demo = str(api.demo_home().path)
    counts = []
    for n in ("11", "20", "1000"):
        result = run.invoke(
            main,
            ["follow", "3f2b9c1e", "--nl", "-n", n, "--duration", "0.2", "--poll",
             "--home", demo],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        counts.append(len(lines_of(result.stdout)))
    assert counts == [11, 11, 11]


def test_a_big_rewrite_is_read_again_whole_and_later_lines_are_all_new(
    claude_task,
) -> None:
    """A transcript replaced by an atomic save holding what was shown and 500 KB more:
    every new prompt is shown once (only the last 256 KB were read again); and what is
    appended after, even two prompts alike to the millisecond, is all new."""
    session, _, files, _, _ = claude_task
    main_file = Path(str(session.path))
    lines = files[main_file]
    prompt = json.loads(next(line for line in lines if b'"type":"user"' in line))
    follower = LiveSession(session)
    append(main_file, lines[0])
    follower.poll()

    def said(n: int, text: str) -> bytes:
        record = {**prompt, "uuid": f"99999999-0000-4000-8000-{n:012d}",
                  "message": {"role": "user", "content": text}}  # fmt: skip
        return json.dumps(record).encode() + b"\n"

    filler = "x" * 1000
    more = [said(n, f"prompt {n} {filler}") for n in range(500)]
    temporary = main_file.with_suffix(".tmp")
    temporary.write_bytes(lines[0] + b"".join(more))
    temporary.replace(main_file)
    got = follower.poll()
    shown = [e.text for e in got if e.kind == "user"]
    assert [t.split(" ", 2)[1] for t in shown if t and t.startswith("prompt ")] == [
        str(n) for n in range(500)
    ]
    append(main_file, said(900, "again") + said(901, "again"))
    assert [e.text for e in follower.poll() if e.kind == "user"] == ["again", "again"]


def test_a_session_in_a_new_project_folder_shows_at_once(tmp_path: Path) -> None:
    """With notifications the board watched only the folders of the sessions it
    followed: a session in a new project's folder waited for the 30 s rescan, and a
    short turn could end unseen. The folders the apps list are watched too."""
    home = copy_home("claude", tmp_path)
    fresh = "12345678-aaaa-4aaa-8aaa-123456789abc"
    written: list[float] = []

    def start() -> None:
        written.append(time.monotonic())
        write_claude_session(
            home.path, fresh, "/home/dev/brand-new", when=datetime.now(UTC).isoformat()
        )

    threading.Timer(2.0, start).start()
    seen_at = None
    for rows in api.watch_sessions(
        home, since=api.parse_since("3000w"), duration=12, notify=True
    ):
        if any(row.session.id == fresh for row in rows):
            seen_at = time.monotonic()
            break
    assert written and seen_at is not None
    assert seen_at - written[0] < 8  # not the 30 s rescan


def test_a_new_session_in_a_database_no_shown_session_is_in_shows_at_once(
    tmp_path: Path,
) -> None:
    """An app that keeps its sessions in a database (Crush, OpenCode) has its scan look
    for that file, not list a folder: with notifications, the database's folder was
    watched only while one of its sessions was on the board, so a session started (or
    resumed) in it waited for the 30 s rescan, three times what polling takes."""
    home = copy_home("crush", tmp_path)
    database = home.path / "code" / "shop-api" / ".crush" / "crush.db"
    with contextlib.closing(sqlite3.connect(database, isolation_level=None)) as db:
        db.execute("DELETE FROM messages")  # a project whose sessions are all gone:
        db.execute("DELETE FROM sessions")  # none of its database's is on the board
    fresh = "0badcafe-1234-4567-8901-23456789abcd"
    written: list[float] = []

    def start() -> None:
        now = int(time.time())
        writer = sqlite3.connect(database, isolation_level=None)  # the app, writing
        try:
            writer.execute("PRAGMA journal_mode=WAL")
            writer.execute(
                "INSERT INTO sessions (id, title, updated_at, created_at)"
                " VALUES (?, 'Started while watched', ?, ?)",
                (fresh, now, now),
            )
            writer.execute(
                "INSERT INTO messages (id, session_id, role, parts, created_at,"
                " updated_at) VALUES (?, ?, 'user', ?, ?, ?)",
                (
                    f"m-{fresh}",
                    fresh,
                    '[{"type":"text","data":{"text":"hi"}}]',
                    now,
                    now,
                ),
            )
            written.append(time.monotonic())
        finally:
            writer.close()

    threading.Timer(2.0, start).start()
    seen_at = None
    for rows in api.watch_sessions(home, since="1h", duration=14, notify=True):
        others = [row for row in rows if row.session.id != fresh]
        assert not any(str(database) in (row.session.path or "") for row in others)
        if any(row.session.id == fresh for row in rows):
            seen_at = time.monotonic()
            break
    assert written and seen_at is not None
    assert seen_at - written[0] < 8  # not the 30 s rescan


def test_replay_stops_after_duration_as_follow_and_watch_do(run: CliRunner) -> None:
    home = str(DATA / "gemini" / "home")  # a session whose turns are 4 s apart
    whole = run.invoke(
        main, ["replay", "91700103", "--speed", "1000", "--nl", "--home", home]
    )
    assert whole.exit_code == 0, whole.output
    started = time.monotonic()
    cut = run.invoke(
        main,
        ["replay", "91700103", "--speed", "1", "--max-gap", "5", "--duration", "1",
         "--nl", "--home", home],
    )  # fmt: skip
    assert cut.exit_code == 0, cut.output
    assert time.monotonic() - started < 3  # a pause is cut short at the deadline
    assert 0 < len(cut.stdout.splitlines()) < len(whole.stdout.splitlines())


@pytest.mark.parametrize(
    "args",
    [
        ["watch", "--duration", "nan"],
        ["follow", "91700103", "--duration", "nan"],
        ["replay", "91700103", "--duration", "nan"],
        ["replay", "91700103", "--speed", "nan"],
        ["replay", "91700103", "--max-gap", "NaN"],
    ],
)
def test_nan_is_no_number_of_seconds_or_speed(run: CliRunner, args: list[str]) -> None:
    """`nan` passes every range check unseen: `watch --duration nan` stopped at once,
    `follow --duration nan` never did, `replay --max-gap nan` capped no pause. It is a
    usage error, as -1 is."""
    home = str(DATA / "gemini" / "home")
    result = run.invoke(main, [*args, "--home", home])
    assert result.exit_code == 2, result.output
    assert "is not a number" in result.output and result.stdout == ""


def test_an_error_after_the_last_retry_fails_at_once() -> None:
    """An error just written may be retried (the board says so for 10 s); one the app
    marks as its last try (Claude Code's retryAttempt reaching maxRetries) is a failure
    at once."""
    prompt = event("user", T, text="go")
    maybe = event("error", T + 1, text="API Error: 529 Overloaded")
    last = event(
        "error", T + 1, text="API Error: 529 Overloaded", extra={"final": True}
    )
    assert (
        decide(tracked(prompt, maybe), T + 2, T + 1, True).reason
        == "retrying after an error"
    )
    assert decide(tracked(prompt, last), T + 2, T + 1, True).status == "failed"


def test_a_database_read_from_a_snapshot_a_moment_old_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While an app streams into its database, a snapshot of it serves a process's reads
    for a moment (one copy a second at most): a re-read it served after the app's last
    write is behind, and the feed reads again at its next poll, even if the app wrote
    nothing more meanwhile. The new message was lost until the app's next write."""
    import sqlite3

    from sessdex import databases
    from sessdex.sources import crush

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = copy_home("crush", tmp_path)
    db = home.path / "code" / "shop-api" / ".crush" / "crush.db"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE sessions SET title = 'x' WHERE id LIKE 'title-%'")  # a WAL
    writer.commit()
    [session] = [
        s
        for s in crush.parse(db, crush.locate(home), Diagnostics())
        if s.id.startswith("8c1f2e3d")
    ]
    feed = live_feeds.ReadFeed(session, get("crush"), Diagnostics(), Tracker())
    seen = live_feeds.Seen()
    assert feed.poll(100.0, seen)  # the history
    monkeypatch.setattr(databases, "FRESH_SECONDS", 3600.0)
    parts = json.dumps([{"type": "text", "data": {"text": "Retry added."}}])
    writer.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at)"
        " VALUES ('m-late', ?, 'assistant', ?, 1796119300, 1796119300)",
        (session.id, parts),
    )
    writer.commit()
    later = 100.0 + live_feeds.STORE_SECONDS + 1
    assert [e.text for e in feed.poll(later, seen) if e.text == "Retry added."] == []
    monkeypatch.setattr(databases, "FRESH_SECONDS", 0.0)
    again = feed.poll(later + live_feeds.STORE_SECONDS + 1, seen)
    # the store's last answer, which may still grow, is shown once read again alike
    again += feed.poll(later + 2 * (live_feeds.STORE_SECONDS + 1), seen)
    assert [e.text for e in again if e.kind == "assistant"] == ["Retry added."]
    writer.close()


def test_a_store_session_is_followed_from_its_recent_history(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A session a database keeps is read whole at each change: the first read keeps its
    recent history only (as a file is read from its tail), so a session of a million
    events is not held whole (`watch` took 387 MB for a 317 MB one)."""
    from sessdex.sources import crush

    home = copy_home("crush", tmp_path)
    db = home.path / "code" / "shop-api" / ".crush" / "crush.db"
    [session] = [
        s
        for s in crush.parse(db, crush.locate(home), Diagnostics())
        if s.id.startswith("8c1f2e3d")
    ]
    whole = list(get("crush").read(session, Diagnostics()))
    monkeypatch.setattr(live_feeds, "HISTORY_EVENTS", 4)
    tracker = Tracker()
    feed = live_feeds.ReadFeed(session, get("crush"), Diagnostics(), tracker)
    first = feed.poll(100.0, live_feeds.Seen())
    assert len(whole) > 4 and [e.seq for e in first] == [e.seq for e in whole[-4:]]
    assert tracker.partial  # the tokens it counts are the history's, not the session's


def test_a_store_session_longer_than_the_seen_events_is_not_repeated(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A store's session is read whole at each change, and `seen` keeps SEEN_CAP events:
    past that, every re-read gave the session's older events again as new (duplicates
    on screen, tokens counted again)."""
    from sessdex.sources import crush

    home = copy_home("crush", tmp_path)
    db = home.path / "code" / "shop-api" / ".crush" / "crush.db"
    [session] = [
        s
        for s in crush.parse(db, crush.locate(home), Diagnostics())
        if s.id.startswith("8c1f2e3d")
    ]
    monkeypatch.setattr(live_feeds, "SEEN_CAP", 4)
    monkeypatch.setattr(live_feeds, "HISTORY_EVENTS", 4)
    seen = live_feeds.Seen(cap=4)
    feed = live_feeds.ReadFeed(session, get("crush"), Diagnostics(), Tracker())
    assert len(feed._read(seen, 0)) == 4
    assert feed._read(seen, 0) == []  # nothing changed: nothing new


def test_watch_on_a_terminal_fits_its_width(tmp_path: Path) -> None:
    """The live board (not --once) on a 60-column terminal: every line fits, each
    session's age and tokens whole after its id."""
    import re

    from .helpers import on_a_terminal

    home = copy_home("claude", tmp_path)
    args = ["watch", "--since", "10000w", "--duration", "0.5", "--home", str(home.path)]
    env = {**os.environ, "NO_COLOR": "1"}
    result, shown = on_a_terminal(args, env, stdout_too=True, columns=60)
    assert result.returncode == 0, shown
    # styles go; a redraw's cursor moves start a line (Live rewrites the board)
    text = re.sub(r"\x1b\[[0-9;]*m", "", shown).replace("\r", "")
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", text)
    lines = [line for line in text.split("\n") if line.strip()]
    sessions = [line for line in lines if line.startswith("  ")]
    assert sessions and all(len(line) <= 60 for line in lines)
    assert all(
        re.search(r" +(\d+[mhdwy]|now) +(\d[\d.]*[kM]?\+?|-)( |$)", s) for s in sessions
    )


def test_every_id_the_board_prints_is_one_show_takes() -> None:
    """A lead's id can share its first characters with a sub-agent's, which the board
    does not show (Codex: 01a22b81-666a… and its child 01a22b81-66cf…): the board prints
    as much of each id as `list` does, enough to tell it from every session indexed."""
    home = str(DATA / "codex" / "home")
    board = CliRunner().invoke(
        main, ["watch", "--once", "--since", "100000d", "--home", home]
    )
    assert board.exit_code == 0, board.output
    printed = [  # after the app, as `list` prints them
        line.split()[1] for line in board.stdout.splitlines() if line[:2] == "  "
    ]
    assert any(p.startswith("01a22b81-666") for p in printed)
    for prefix in printed:
        shown = CliRunner().invoke(main, ["show", prefix, "--json", "--home", home])
        assert shown.exit_code == 0, (prefix, shown.output)


def test_watch_shows_when_the_records_say_not_when_the_file_was_copied(
    tmp_path: Path, run: CliRunner
) -> None:
    """A home copied without its files' times (`cp -r`): every transcript's mtime is now,
    but the board, like `list` and `--since`, goes by the times the records carry."""
    home = tmp_path / "home"
    write_claude_session(
        home, "c0b1ed00-0000-4000-8000-000000000001", "/w/shop",
        when="2026-01-10T10:00:00.000Z",
    )  # fmt: skip
    args = ["--since", "100000d", "--home", str(home)]
    result = run.invoke(main, ["watch", "--json", *args])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert row["updated"] == "2026-01-10T10:00:05.000Z"  # the answer's, not the copy's
    [listed] = json.loads(run.invoke(main, ["list", "--json", *args]).stdout)
    assert listed["updated"] == row["updated"]
    board = run.invoke(main, ["watch", "--once", *args])
    assert board.exit_code == 0, board.output
    assert " now " not in board.stdout and re.search(r"\b\d+w\b", board.stdout)


def test_follow_nl_says_its_seq_is_counted_from_what_it_printed(run: CliRunner) -> None:
    """`follow --nl -n 2` starts at the session's tail: its seq counts from 0 there, not
    from the session's start as `show --json`'s does, and every event it prints says so."""
    demo = str(api.demo_home().path)
    shown = json.loads(
        run.invoke(main, ["show", "3f2b9c1e", "--json", "--home", demo]).stdout
    )
    result = run.invoke(
        main,
        ["follow", "3f2b9c1e", "--nl", "-n", "2", "--duration", "0.2", "--poll",
         "--home", demo],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    followed = lines_of(result.stdout)
    assert [r["seq"] for r in followed] == [0, 1]
    assert all(r["seq_relative"] is True for r in followed)
    # the same two events, which show numbers from the session's start
    assert [(r["time"], r["kind"]) for r in followed] == [
        (r["time"], r["kind"]) for r in shown[-2:]
    ]
    assert [r["seq"] for r in shown[-2:]] == [len(shown) - 2, len(shown) - 1]
    assert all("seq_relative" not in r for r in shown)


def test_a_sub_agent_whose_spawn_returned_is_done_though_it_wrote_no_turn_end(
    tmp_path: Path,
) -> None:
    """Qwen Code's sub-agent (seen through the lead's telemetry) and Gemini CLI's (which
    ends on complete_task) write no turn end: once the spawn's result is in, the lead's
    next tool call is what runs, not the sub-agent (real Qwen Code 0.15.10 lines)."""
    home = copy_home("qwen", tmp_path)
    path = next((home.path / ".qwen/projects").glob("*/chats/51ca07c5*.jsonl"))
    lines = path.read_text().splitlines(keepends=True)
    assert '"functionResponse"' in lines[8]  # the agent call's result
    call = json.loads(lines[3])
    call.update(uuid="u-next", parentUuid=json.loads(lines[8])["uuid"],
                timestamp="2026-11-30T08:12:53.000Z",
                message={"role": "model", "parts": [{"functionCall": {
                    "id": "c2", "name": "run_shell_command",
                    "args": {"command": "rm -rf build"}}}]})  # fmt: skip
    path.write_text("".join(lines[:9]) + json.dumps(call) + "\n")
    written = datetime.fromisoformat("2026-11-30T08:12:53+00:00").timestamp()
    os.utime(path, (written, written))
    follower = LiveSession(api.resolve(home, "51ca07c5"))
    follower.poll(written + 10)
    follower.alive = True
    status = follower.status(written + 10)
    assert (status.status, status.reason) == (
        "working",
        "tool run_shell_command running 10s",
    )
    follower.tracker.add(event("turn_end", written + 11), written + 11)
    assert follower.status(written + 12).reason == "turn ended 1s ago"


def test_watch_nl_prints_no_line_when_only_a_durations_unit_moves(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """'turn ended 59s ago', then '1m ago', then '1h ago' is one state: one line."""
    from sessdex.cli.live import _watch_lines
    from sessdex.live import BoardRow
    from sessdex.status import Status

    session = Session("claude", "s1", title="t")

    def board(status: str, reason: str) -> list[BoardRow]:
        return [BoardRow(session, Status(status, reason), T, 10, False)]

    _watch_lines(
        [
            board("waiting_for_user", "turn ended 59s ago"),
            board("waiting_for_user", "turn ended 1m ago"),
            board("waiting_for_user", "turn ended 1h ago"),
            board("working", "tool Bash running 2s"),
            board("working", "tool Bash running 1m"),
            board("waiting_for_user", "Bash waits for approval (59s)?"),
            board("waiting_for_user", "Bash waits for approval (1m)?"),
            board("working", "2 sub-agents working"),
            board("working", "3 sub-agents working"),
        ],
        once=False,
    )
    reasons = [r["reason"] for r in lines_of(capsysbinary.readouterr().out.decode())]
    assert reasons == [
        "turn ended 59s ago",
        "tool Bash running 2s",
        "Bash waits for approval (59s)?",
        "2 sub-agents working",
    ]


def test_a_sub_agents_call_waiting_for_approval_waits_for_the_user(
    claude_task,
) -> None:
    """Claude Code asks the user to allow a sub-agent's Bash as it asks for the lead's: a
    sub-agent silent on an open call, the CLI alive and starting no process, waits for
    the user, not for the sub-agent (real 2.1.197 lines, cut at the sub-agent's Bash; of a
    `claude -p` run, which asks no one, so marked as the TUI writes them)."""
    session, _, files, meta, meta_bytes = claude_task
    files = {
        path: [line.replace(b'"sdk-cli"', b'"cli"') for line in lines]
        for path, lines in files.items()
    }
    meta.write_bytes(meta_bytes)
    main_file = Path(str(session.path))
    [child] = [path for path in files if path != main_file]
    bash = next(i for i, line in enumerate(files[child]) if b'"name":"Bash"' in line)
    for path, line in timeline(files):
        append(path, line)
        if path == child and line == files[child][bash]:
            break
    called = datetime.fromisoformat(stamp(files[child][bash])).timestamp()
    for path in files:
        os.utime(path, (called, called))
    follower = LiveSession(session)
    follower.poll(called + 20)
    tracker, last_write = follower.tracker, follower.feed.last_write()
    status = decide(tracker, called + 20, last_write, True, lambda since: False)
    assert (status.status, status.reason) == (
        "waiting_for_user",
        "general-purpose a199d630: Bash waits for approval (20s)?",
    )
    # the CLI ran a process for it: the sub-agent's Bash is running
    status = decide(tracker, called + 20, last_write, True, lambda since: True)
    assert status.status == "waiting_on_subagent"
    assert decide(
        tracker, called + 2, last_write, True, lambda since: False
    ).status == ("waiting_on_subagent")


@pytest.mark.parametrize(("lines", "expected"), [(14, "ended"), (17, "working")])
def test_a_recorded_exit_ends_the_session_until_it_is_resumed(
    tmp_path: Path, lines: int, expected: str
) -> None:
    """Copilot CLI writes `session.shutdown` as it exits: with no process information
    the session has ended, not waited 15 min for the user; a resume after it goes on
    (real Copilot CLI 1.0.102 lines, cut after its first exit or just after its resume)."""
    home = copy_home("copilot", tmp_path)
    path = (
        home.path
        / ".copilot/session-state/16801a53-676d-4309-90f1-817ad09d82dd/events.jsonl"
    )
    kept = path.read_bytes().splitlines(keepends=True)[:lines]
    path.write_bytes(b"".join(kept))
    written = datetime.fromisoformat(stamp(kept[-1]).replace("Z", "+00:00")).timestamp()
    os.utime(path, (written, written))
    follower = LiveSession(api.resolve(home, "16801a53"))
    follower.poll(written + 20)
    follower.alive = None  # no process information (no /proc, another machine's home)
    status = follower.status(written + 20)
    assert status.status == expected, status
    if expected == "ended":
        assert status.reason == "exited after its turn, 20s ago"


APPS_WITH_HOMES = sorted(p.parent.name for p in DATA.glob("*/home"))


@pytest.mark.parametrize("app", APPS_WITH_HOMES)
def test_a_copied_homes_reasons_agree_with_its_ages(
    app: str, tmp_path: Path, run: CliRunner
) -> None:
    """A home copied ten minutes ago without its files' times (`cp -r`): the age column
    goes by the records, and so does the reason: no session days old says 'turn ended
    10m ago' or 'model responding' beside its age of days."""
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    copied = time.time() - 600
    for path in home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            os.utime(path, (copied, copied))
    result = run.invoke(
        main, ["watch", "--json", "--since", "100000d", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows
    for row in rows:
        updated = datetime.fromisoformat(str(row["updated"])).timestamp()
        if time.time() - updated > 86400:  # a session of days ago is no live one
            assert row["status"] in ("ended", "failed"), row
        assert not re.search(r"\d+ ?[smhd]\b", str(row["reason"])), row  # `since` is
        if row["since"] is not None:
            # the reason's age is never less than the age the board shows beside it
            since = datetime.fromisoformat(str(row["since"])).timestamp()
            assert since < updated + 5, row


def test_a_thai_or_hindi_title_keeps_the_board_aligned() -> None:
    """A Thai or Devanagari vowel sign is drawn on the letter before it, in no column of
    its own, though Python's combining() says 0 for it: the board counted each as a
    column, so the folder, reason, age and tokens after such a title moved left."""
    import unicodedata

    from sessdex.status import Status
    from sessdex.views.board import plain

    def columns(text: str) -> int:  # as a terminal draws it (wcwidth)
        return sum(
            0
            if unicodedata.category(c) in ("Mn", "Me")
            else 2
            if unicodedata.east_asian_width(c) in "WF"
            else 1
            for c in text
        )

    titles = ["Fix the build", "สวัสดีครับ แก้บั๊กที่นี่", "नमस्ते दुनिया ठीक करें"]
    rows = [
        live.BoardRow(
            Session("claude", f"{n}a22b81", title=title, cwd="/home/dev/shop"),
            Status("working", "model responding"),
            T - 300,
            1200,
            False,
        )
        for n, title in enumerate(titles)
    ]
    now = datetime.fromtimestamp(T, UTC)
    for width in (None, 80, 50):
        lines = [
            line
            for line in plain(rows, "/home/dev", now, width=width).splitlines()
            if line.startswith("  ")
        ]
        assert len(lines) == 3
        assert width is None or all(columns(line) <= width for line in lines)
        if width == 50:  # the title is the last column: nothing after it to align
            continue
        # the reason, after the title, starts in one column on every row
        assert len({columns(line[: line.index("model")]) for line in lines}) == 1, lines
        assert len({columns(line) for line in lines}) == 1, lines


def test_a_terminal_too_narrow_for_a_title_still_gets_each_age_and_token_count() -> (
    None
):
    """A narrow pane (30 columns, a phone's terminal): once the title cannot keep even
    its narrowest width, it goes, as the reason and folder went before it (the app's
    first letters stay where they fit); the live
    board cropped each line's age and tokens instead ('Checkou…   3d  ')."""
    import io

    from rich.console import Console

    from sessdex.status import Status
    from sessdex.views.board import plain, render

    rows = [
        live.BoardRow(
            Session("codex", sid, title="Checkout retry smoke", cwd="/home/dev/shop"),
            Status("working", "model responding"),
            T - 3 * 86400,
            2_500,
            False,
        )
        for sid in ("01a22b81-6e0b", "01a22b81-666a")
    ]
    now = datetime.fromtimestamp(T, UTC)
    for width in (36, 30, 27):
        console = Console(file=io.StringIO(), width=width, color_system=None)
        console.print(render(rows, "/home/dev", now, width=width))
        lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
        assert lines == plain(rows, "/home/dev", now, width=width).splitlines()
        sessions = [line for line in lines if line[:2] == "  "]
        assert len(sessions) == 2 and all(len(line) <= width for line in lines)
        assert all(  # whole, after the id, as `list` has its age
            re.match(r"  (cod )?01a22b81-6\w   3d    2\.5k( |$)", line)
            for line in sessions
        ), lines
        assert ("Checkout" in sessions[0]) == (width >= 36)


def test_a_board_left_running_drops_a_session_once_it_is_older_than_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: CliRunner
) -> None:
    """`watch --since 1d` left running in a pane for days: '1d' is the last day at each
    listing, not the day before the board started (it kept every session of the week)."""
    monkeypatch.setattr(live, "RESCAN_SECONDS", 0.5)  # the board lists again this often
    home = tmp_path / "home"
    # 52 s old: within the last minute when the board starts, no longer 8 s later
    when = datetime.now(UTC) - timedelta(seconds=52)
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000b1", "/w/shop",
                         when=f"{when:%Y-%m-%dT%H:%M:%S}.123Z")  # fmt: skip
    args = ["watch", "--since", "1m", "--duration", "14", "--poll", "--home", str(home)]
    result = run.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "  claude   c0b1ed00 " in result.stdout  # the board while it was recent
    assert result.stderr.startswith("No session changed in the last 1m; ")
    assert result.stderr.endswith(" ago: --since 1h shows it.\n")


# --- unreadable lines: said once as watch and follow end -----------------------------------


def test_follow_says_how_many_unreadable_lines_it_met(
    tmp_path: Path, run: CliRunner
) -> None:
    path = write_claude_session(
        tmp_path, "5e6f7a8b-0000-4000-8000-00000000b0b0", "/work/proj"
    )
    first, *rest = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + b"{broken\n" + b"not json either\n" + b"".join(rest))
    result = run.invoke(
        main, ["follow", "5e6f7a8b", "--duration", "0", "--home", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "warning: skipped 2 unreadable lines; see --verbose, or "
        f"'sessdex doctor --deep --home {tmp_path}' for every session\n"
    )
    assert "hello there" in result.stdout  # the lines around them still shown


@pytest.mark.parametrize("app", ["claude", "pi", "gemini", "crush"])
def test_watch_says_how_many_unreadable_lines_it_met_for_every_app(
    app: str, tmp_path: Path, run: CliRunner
) -> None:
    # a followed file (claude), a file read again whole (pi), a JSON document (gemini),
    # a database (crush): each feed counts what it could not read
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "malformed" / "home", home, symlinks=True)
    result = run.invoke(
        main, ["watch", "--once", "--since", "3000w", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert re.fullmatch(
        r"warning: skipped [1-9]\d* unreadable lines?; see --verbose, or "
        rf"'sessdex doctor --deep --home {re.escape(str(home))}' for every session\n",
        result.stderr,
    ), result.stderr
    sound = run.invoke(
        main,
        ["watch", "--once", "--since", "3000w", "--home", str(DATA / app / "home")],
    )
    assert "unreadable" not in sound.stderr


def test_a_broken_token_count_adds_nothing_to_the_boards_tokens(
    tmp_path: Path, run: CliRunner
) -> None:
    """A response whose file says 10**14 output tokens: the board said 100000000.0M."""
    session_id = "cccccccc-0000-4000-8000-000000000003"
    path = write_claude_session(tmp_path, session_id, "/home/dev/x")
    path.write_text(
        path.read_text().replace(
            '"output_tokens": 5', '"output_tokens": 99999999999999'
        )
    )
    board = run.invoke(
        main,
        ["watch", "--once", "--json", "--since", "100000d", "--home", str(tmp_path)],
    )
    assert board.exit_code == 0, board.output
    assert [row["tokens"] for row in orjson.loads(board.stdout)] == [10]


def test_a_broken_token_count_in_a_database_adds_nothing_to_the_boards_tokens(
    tmp_path: Path,
) -> None:
    """A store read whole sums its usage afresh: a broken running total (10**14) in Crush's
    row was added to the board's tokens as it stood."""
    home, session, writer, follower = _crush_being_written(tmp_path)
    try:
        writer.execute(
            "UPDATE sessions SET completion_tokens = 99999999999999 WHERE id = ?",
            (session.id,),
        )
        time.sleep(live_feeds.STORE_SECONDS)
        follower.poll()
    finally:
        writer.close()
    now = api.resolve(home, "8c1f2e3d")
    read = list(get("crush").read(now, Diagnostics()))
    assert any(e.usage and e.usage.output_tokens == 99999999999999 for e in read)
    assert follower.tracker.tokens < 10**10


def test_board_calls_a_sub_agent_by_the_name_its_lead_gave_it() -> None:
    # Codex (agent_path /root/greeter) and Cline (type "subagent" for all) name their
    # sub-agents; the board said "sub-agent SCENARIO=child You are a sub-ag… working" or
    # "sub-agent subagent working" where the tree says greeter
    prompt = event("user", T, text="go")
    spawn = event("tool_call", T + 1, tool="spawn_agent", call_id="c")
    for extra, said in (
        ({"child_id": "k", "agent_type": None, "agent_name": "greeter"}, "greeter k"),
        (
            {"child_id": "k", "agent_type": "subagent", "agent_name": "greeter"},
            "subagent k (greeter)",  # named by the rule `show` names it by, then so
        ),
    ):
        announced = event(
            "subagent",
            T + 1,
            call_id="c",
            text="You are a sub-agent. Run it",
            extra=extra,
        )
        child = event("tool_call", T + 2, agent="k", tool="shell", call_id="k1")
        status = decide(tracked(prompt, spawn, announced, child), T + 12, T + 2, True)
        assert (status.status, status.reason) == (
            "waiting_on_subagent",
            f"sub-agent {said} working 11s",
        )


def test_a_headless_lead_whose_turn_ended_waits_on_its_background_sub_agent() -> None:
    # `claude -p` (and the like) keeps running after its lead's turn until its background
    # sub-agents are done: no one can type into it, so it does not wait for the user
    def session(headless: bool) -> Tracker:
        return tracked(
            event("user", T, text="go", extra={"headless": True} if headless else {}),
            event("tool_call", T + 1, tool="Agent", call_id="c"),
            event(
                "subagent",
                T + 1,
                call_id="c",
                extra={"child_id": "k", "agent_type": "Explore"},
            ),
            event("tool_result", T + 2, call_id="c", extra={"launched": True}),
            event("tool_call", T + 2, agent="k", tool="Bash", call_id="k1"),
            event("turn_end", T + 3),
        )

    headless = session(True)
    status = decide(headless, T + 5, T + 3, True)
    assert (status.status, status.reason) == (
        "waiting_on_subagent",
        "sub-agent Explore k working (turn ended 2s ago, headless)",
    )
    # its sub-agent's long tool writes nothing: the running CLI still waits for it
    assert decide(headless, T + 300, T + 3, True).status == "waiting_on_subagent"
    assert decide(session(False), T + 300, T + 3, True).status == "waiting_for_user"
    # without process information, while the sub-agent was written in the last 30 min
    assert decide(headless, T + 5, T + 3, None).status == "waiting_on_subagent"
    assert decide(headless, T + 300, T + 3, None).status == "waiting_on_subagent"
    assert decide(headless, T + 2000, T + 3, None).status == "ended"
    # its process exited: the run is over
    status = decide(headless, T + 300, T + 3, False)
    assert (status.status, status.reason) == ("ended", "exited after its turn, 4m ago")
    # the sub-agent is done: nothing is pending
    headless.add(event("turn_end", T + 10, agent="k"), T + 10)
    assert decide(headless, T + 11, T + 10, True).status == "waiting_for_user"
    # resumed in the TUI: a prompt not marked headless is the interactive rule again
    resumed = session(True)
    resumed.add(event("user", T + 4, text="and?"), T + 4)
    resumed.add(event("turn_end", T + 5), T + 5)
    assert decide(resumed, T + 6, T + 5, True).reason.endswith("(1 sub-agent working)")


def test_a_headless_run_is_never_taken_to_wait_for_an_approval() -> None:
    # `claude -p` shows no permission prompt (a call it was not allowed is denied at once):
    # a silent in-process tool (a web fetch) of such a run is running, not asking anyone
    headless = {"headless": True}
    prompt = event("user", T, text="go", extra=headless)
    fetch = event("tool_call", T + 1, tool="WebFetch", call_id="c")
    status = decide(tracked(prompt, fetch), T + 13, T + 1, True, lambda since: False)
    assert (status.status, status.reason) == ("working", "tool WebFetch running 12s")
    typed = event("user", T, text="go")
    status = decide(tracked(typed, fetch), T + 13, T + 1, True, lambda since: False)
    assert status.reason == "WebFetch waits for approval (12s)?"
    # nor is its sub-agent's call
    spawn = event("tool_call", T + 1, tool="Agent", call_id="s")
    announced = event(
        "subagent", T + 1, call_id="s", extra={"child_id": "k", "agent_type": "Explore"}
    )
    child = event("tool_call", T + 2, agent="k", tool="WebFetch", call_id="k1")
    tracker = tracked(prompt, spawn, announced, child)
    status = decide(tracker, T + 20, T + 2, True, lambda since: False)
    assert (status.status, status.reason) == (
        "waiting_on_subagent",
        "sub-agent Explore k working 19s",
    )


def test_a_claude_observer_is_never_a_sub_agent_the_lead_waits_on() -> None:
    """Claude Code's observers (2.1.33x, `isObserver` in the meta) run in the background
    beside the agent they watch, for as long as it runs; Claude Code lists them apart from
    its agents at work and a headless run does not wait on them. So a session whose only
    busy sub-agent is an observer is not waiting on a sub-agent."""

    def session(observer: bool, headless: bool) -> Tracker:
        spawn = {"child_id": "w", "agent_type": "reviewer"}
        return tracked(
            event("user", T, text="go", extra={"headless": True} if headless else {}),
            event("subagent", T + 1, extra=spawn | ({"observer": True} if observer else {})),
            event("thinking", T + 2, text="hmm"),
            event("tool_call", T + 3, agent="w", tool="Read", call_id="w1"),
        )  # fmt: skip

    assert decide(session(False, False), T + 4, T + 3, True).status == (
        "waiting_on_subagent"
    )
    assert decide(session(True, False), T + 4, T + 3, True).status == "working"
    ended = session(True, True)
    ended.add(event("turn_end", T + 4), T + 4)
    assert decide(ended, T + 300, T + 4, True).status == "waiting_for_user"
    # as `watch` links it from its meta file, before any spawn event names it
    linked = tracked(event("user", T, text="go", extra={"headless": True}))
    linked.link("w", None, "reviewer", observer=True)
    linked.add(event("tool_call", T + 3, agent="w", tool="Read", call_id="w1"), T + 3)
    linked.add(event("turn_end", T + 4), T + 4)
    assert decide(linked, T + 300, T + 4, True).status == "waiting_for_user"
