"""A followed session's event whose text changes between two reads (an answer, a summary
written into its row after the row was first read) is drawn once, as it ends up: not once
as it was first read and again as it was read later."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex import api, live, live_feeds
from sessdex.live import LiveSession
from sessdex.model import Event
from sessdex.sources import Home

OPENCODE = Path(__file__).parent / "data" / "opencode" / "home"
BASIC = "ses_dd47cef52ffe38O37iH1Ffe05b"
AT = 1796026350000  # after the fixture's messages (epoch ms)


class _OpenCode:
    """The OpenCode fixture home, its BASIC session followed while rows are written to
    its database as the app writes them (WAL)."""

    def __init__(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        shutil.copytree(OPENCODE, home)
        database = home / ".local/share/opencode/opencode.db"
        self.writer = sqlite3.connect(database, isolation_level=None)
        self.writer.execute("PRAGMA journal_mode=WAL")
        self.follower = LiveSession(api.resolve(Home.at(home), BASIC))
        self.follower.poll()
        self.shown: list[Event] = []
        self.parts = 0

    def message(self, message: str, info: dict[str, object]) -> None:
        values = (message, BASIC, AT, AT, json.dumps(info))
        self.writer.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", values)

    def part(self, message: str, data: dict[str, object], part: str = "") -> str:
        """Write a part, or `part` again (OpenCode updates a streamed one in place)."""
        if part:
            update = "UPDATE part SET data = ? WHERE id = ?"
            self.writer.execute(update, (json.dumps(data), part))
            return part
        self.parts += 1
        part = f"prt_22b8350{self.parts:05d}"
        values = (part, message, BASIC, AT, AT, json.dumps(data))
        self.writer.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", values)
        return part

    def poll(self) -> None:
        time.sleep(live_feeds.STORE_SECONDS)
        self.shown.extend(self.follower.poll())


REQUEST = "msg_22b8350000010000000000000a"
ANSWER = "msg_22b8350000020000000000000b"


def _compacting(app: _OpenCode, idle: bool) -> list[Event]:
    """A compaction's request, then its summary streamed into a part (after a poll with
    nothing written, where `idle`): the compaction events followed."""
    try:
        app.message(REQUEST, {"role": "user", "time": {"created": AT}})
        app.part(REQUEST, {"type": "compaction", "auto": True})
        app.poll()
        if idle:
            app.poll()  # nothing written meanwhile: what was read is shown
        app.message(
            ANSWER,
            {"role": "assistant", "summary": True, "mode": "compaction",
             "time": {"created": AT + 1}},
        )  # fmt: skip
        said = app.part(ANSWER, {"type": "text", "text": "Ran the"})
        app.poll()
        app.part(ANSWER, {"type": "text", "text": "Ran the greeting twice."}, said)
        for _ in range(3):
            app.poll()
    finally:
        app.writer.close()
    return [e for e in app.shown if e.kind == "compaction"]


def test_an_opencode_compaction_is_drawn_once_with_its_summary(tmp_path: Path) -> None:
    """OpenCode 1.x writes a compaction's request, then streams the summary answer into
    a part of the message after it. `watch`/`follow` drew "context compacted" at the
    request, again with the summary's first words and again with its whole: its text
    made it a new event at each read. It is kept back while its summary grows."""
    compactions = _compacting(_OpenCode(tmp_path), idle=False)
    assert [e.text for e in compactions] == ["Ran the greeting twice."]


def test_an_opencode_compaction_shown_before_its_summary_is_not_drawn_again(
    tmp_path: Path,
) -> None:
    """A request the summary follows only after a read that found nothing written is
    drawn then, once: its summary, read later, is no new event."""
    compactions = _compacting(_OpenCode(tmp_path), idle=True)
    assert [e.text for e in compactions] == [None]


AIDER = Path(__file__).parent / "data" / "aider" / "real" / "home"


def test_aider_lines_quoted_one_at_a_time_are_drawn_once(tmp_path: Path) -> None:
    """Aider appends what it says after an answer a line at a time (`> Applied edit`,
    then `> Commit …` once git is done): the block, one event, was drawn at each read
    that found it longer, its first line again each time. The same words quoted after
    a later answer are drawn again."""
    home = tmp_path / "home"
    shutil.copytree(AIDER, home)
    log = home / ".aider.chat.history.md"
    runs = api.list_sessions(Home.at(home)).sessions()  # the last run first
    follower = LiveSession(api.resolve(Home.at(home), runs[0].id))
    shown = follower.poll()
    for line in (
        "> Applied edit to hello.py  \n",
        "> Commit 1a2b3c4 feat: greet the user  \n",
        "\n#### And now in French.  \n",
        "\nBonjour.\n\n> Applied edit to hello.py  \n",  # the same words again: news
    ):
        with log.open("a", encoding="utf-8") as file:
            file.write(line)
        time.sleep(live_feeds.STORE_SECONDS)
        shown += follower.poll()
    time.sleep(live_feeds.STORE_SECONDS)
    shown += follower.poll()
    said = [e.text for e in shown if e.text and "Applied edit" in e.text]
    assert said == [
        "Applied edit to hello.py\nCommit 1a2b3c4 feat: greet the user",
        "Applied edit to hello.py",
    ]
    assert [e.text for e in shown if e.kind == "user"][-1:] == ["And now in French."]


CRUSH = Path(__file__).parent / "data" / "crush" / "home"
CRUSH_AT = 1_796_119_300  # after the fixture's messages (epoch s)


def test_a_crush_summary_marked_once_it_is_written_is_drawn_once(
    tmp_path: Path,
) -> None:
    """Crush streams a summary as an ordinary answer and marks it the session's summary
    (sessions.summary_message_id) only once it is written: `watch`/`follow` drew it as
    an answer, then again as "context compacted" once it was marked."""
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    session = api.resolve(Home.at(home), "8c1f2e3d")
    writer = sqlite3.connect(str(session.path).split("#", 1)[0], isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    follower = LiveSession(session)
    follower.poll()
    shown: list[Event] = []

    def write(sql: str, *values: object) -> None:
        writer.execute(sql, values)
        time.sleep(live_feeds.STORE_SECONDS)
        shown.extend(follower.poll())

    summary = "Summary: the retry decorator is in."
    text = {"type": "text", "data": {"text": summary}}
    finish = {"type": "finish", "data": {"reason": "end_turn", "time": CRUSH_AT}}
    try:
        write(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at,"
            " updated_at) VALUES ('m-live-sum', ?, 'assistant', ?, 'm', ?, ?)",
            session.id, json.dumps([text]), CRUSH_AT, CRUSH_AT,
        )  # fmt: skip
        write(
            "UPDATE messages SET parts = ? WHERE id = 'm-live-sum'",
            json.dumps([text, finish]),
        )
        write(
            "UPDATE sessions SET summary_message_id = 'm-live-sum' WHERE id = ?",
            session.id,
        )
        for _ in range(2):
            time.sleep(live_feeds.STORE_SECONDS)
            shown.extend(follower.poll())
    finally:
        writer.close()
    assert [(e.kind, e.text) for e in shown if e.text == summary] == [
        ("assistant", summary)
    ]


def test_follow_started_while_a_crush_summary_streams_draws_it_whole_once(
    tmp_path: Path,
) -> None:
    """`follow` started while Crush streams a summary into its row (marked a summary,
    its parts not finished) drew "context compacted" with the words so far, and never
    the whole summary: a compaction's identity leaves its text out, so the grown one
    read later was no news. The first read holds it back, as it does an answer."""
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    session = api.resolve(Home.at(home), "8c1f2e3d")
    writer = sqlite3.connect(str(session.path).split("#", 1)[0], isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")

    def said(text: str, finished: bool = False) -> str:
        parts: list[object] = [{"type": "text", "data": {"text": text}}]
        if finished:
            parts.append({"type": "finish", "data": {"reason": "end_turn"}})
        return json.dumps(parts)

    summary = "Summary: checkout() retries; the tests pass."
    try:
        writer.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at,"
            " updated_at, is_summary_message) VALUES ('m-sum', ?, 'assistant', ?,"
            " 'm', ?, ?, 1)",
            (session.id, said("Summary: check"), CRUSH_AT, int(time.time())),
        )
        writer.execute(
            "UPDATE sessions SET summary_message_id = 'm-sum' WHERE id = ?",
            (session.id,),
        )
        follower = LiveSession(session)
        shown = follower.poll()
        writer.execute(
            "UPDATE messages SET parts = ? WHERE id = 'm-sum'", (said(summary, True),)
        )
        for _ in range(3):
            time.sleep(live_feeds.STORE_SECONDS)
            shown += follower.poll()
    finally:
        writer.close()
    compactions = [e.text for e in shown if e.kind == "compaction"]
    assert compactions[-1:] == [summary]
    assert "Summary: check" not in compactions


QWEN = Path(__file__).parent / "data" / "qwen" / "home"


@pytest.mark.parametrize("whole", [True, False], ids=["read_whole", "read_on"])
def test_a_qwen_reply_written_in_fragments_is_billed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    """Qwen Code writes a streamed reply as fragments sharing its uuid, each with the
    counts so far; a read that ended between two drew the first's usage, and the
    next read the whole reply's too (`follow --nl`: two usage lines, tokens twice).
    A file's last usage is kept back while the file grows. `read_on`: a file over
    FULL_REREAD_MAX, read on from its last line."""
    if not whole:
        monkeypatch.setattr(live_feeds, "FULL_REREAD_MAX", 0)
    home = tmp_path / "home"
    shutil.copytree(QWEN, home)
    chat = next((home / ".qwen/projects").glob("*/chats/5d1e0c2a*.jsonl"))
    lines = chat.read_text().splitlines(keepends=True)
    assert json.loads(lines[4])["uuid"] == json.loads(lines[5])["uuid"]
    chat.write_text("".join(lines[:4]))
    follower = LiveSession(api.resolve(Home.at(home), "5d1e0c2a"))
    shown = follower.poll()
    for line in (lines[4], lines[5], lines[6]):  # two fragments, then the tool's result
        with chat.open("a", encoding="utf-8") as file:
            file.write(line)
        shown += follower.poll()
    shown += follower.poll()
    usages = [e.usage.output_tokens for e in shown if e.kind == "usage" and e.usage]
    assert usages == [50]  # 40 answered, 10 thought
    assert follower.tracker.tokens == 2050


@pytest.mark.parametrize("whole", [True, False], ids=["read_whole", "read_on"])
def test_a_qwen_reply_cut_at_follows_first_read_is_billed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    """`follow` started between two fragments of a Qwen Code reply drew the first
    fragment's usage with its history, then the whole reply's once the rest came:
    two usage lines, and read on from a line, the reply's tokens counted twice (4,072
    where the file holds 2,050). The first read's last usage is kept back too."""
    if not whole:
        monkeypatch.setattr(live_feeds, "FULL_REREAD_MAX", 0)
    home = tmp_path / "home"
    shutil.copytree(QWEN, home)
    chat = next((home / ".qwen/projects").glob("*/chats/5d1e0c2a*.jsonl"))
    lines = chat.read_text().splitlines(keepends=True)
    chat.write_text("".join(lines[:5]))  # the reply's first fragment, written now
    follower = LiveSession(api.resolve(Home.at(home), "5d1e0c2a"))
    shown = follower.poll()
    for line in (lines[5], lines[6]):  # its second fragment, then the tool's result
        with chat.open("a", encoding="utf-8") as file:
            file.write(line)
        shown += follower.poll()
    shown += follower.poll()
    usages = [e.usage.output_tokens for e in shown if e.kind == "usage" and e.usage]
    assert usages == [50]
    assert follower.tracker.tokens == 2050


def _qwen_fragments(tmp_path: Path) -> tuple[Path, list[str]]:
    """The Qwen fixture's chat whose reply is written as two fragments of one uuid (its
    lines 4 and 5, 22 then 50 output tokens), and its lines."""
    home = tmp_path / "home"
    shutil.copytree(QWEN, home)
    chat = next((home / ".qwen/projects").glob("*/chats/5d1e0c2a*.jsonl"))
    return chat, chat.read_text().splitlines(keepends=True)


def _usages(shown: list[Event]) -> list[int]:
    return [e.usage.output_tokens for e in shown if e.kind == "usage" and e.usage]


@pytest.mark.parametrize("whole", [True, False], ids=["read_whole", "read_on"])
def test_a_qwen_reply_cut_at_an_old_write_is_billed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    """`follow` started between two fragments of a Qwen Code reply written 3 s before
    (a long tool call's wait, a slow start) drew the first fragment's usage, then the
    whole reply's: only a file written in the last 2 s was taken to be mid-reply. A
    reply no later record ends is held back however old the write."""
    if not whole:
        monkeypatch.setattr(live_feeds, "FULL_REREAD_MAX", 0)
    chat, lines = _qwen_fragments(tmp_path)
    chat.write_text("".join(lines[:5]))  # the reply's first fragment
    then = time.time() - 3
    os.utime(chat, (then, then))
    follower = LiveSession(api.resolve(Home.at(chat.parents[4]), "5d1e0c2a"))
    shown = follower.poll()
    for line in (lines[5], lines[6]):  # its second fragment, then the tool's result
        with chat.open("a", encoding="utf-8") as file:
            file.write(line)
        shown += follower.poll()
    shown += follower.poll()
    assert _usages(shown) == [50]
    assert follower.tracker.tokens == 2050


@pytest.mark.parametrize("whole", [True, False], ids=["read_whole", "read_on"])
def test_a_qwen_reply_whose_fragments_are_a_poll_apart_is_billed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    """A poll that found the file unchanged between two fragments of a Qwen Code reply
    drew the first fragment's usage (22), and the next read the whole reply's (50)."""
    if not whole:
        monkeypatch.setattr(live_feeds, "FULL_REREAD_MAX", 0)
    chat, lines = _qwen_fragments(tmp_path)
    chat.write_text("".join(lines[:4]))
    follower = LiveSession(api.resolve(Home.at(chat.parents[4]), "5d1e0c2a"))
    shown = follower.poll()
    for line in (lines[4], lines[5], lines[6]):
        with chat.open("a", encoding="utf-8") as file:
            file.write(line)
        shown += follower.poll()
        shown += follower.poll()  # nothing written since
    assert _usages(shown) == [50]
    assert follower.tracker.tokens == 2050


def test_a_qwen_session_left_mid_reply_bills_it_when_follow_ends(
    tmp_path: Path,
) -> None:
    """A reply no later record ends is not held for good: follow's end draws it."""
    chat, lines = _qwen_fragments(tmp_path)
    chat.write_text("".join(lines[:6]))  # both fragments, nothing after
    follower = LiveSession(api.resolve(Home.at(chat.parents[4]), "5d1e0c2a"))
    shown = follower.poll() + follower.poll()
    assert _usages(shown) == []
    shown += follower.release()
    assert _usages(shown) == [50]


@pytest.mark.parametrize("whole", [True, False], ids=["read_whole", "read_on"])
def test_a_qwen_answer_its_telemetry_vouches_for_is_drawn_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    """Qwen Code 0.15.10 writes a response's `api_response` telemetry, its final counts,
    before its record: a session that ends on that answer bills it at once."""
    if not whole:
        monkeypatch.setattr(live_feeds, "FULL_REREAD_MAX", 0)
    home = tmp_path / "home"
    shutil.copytree(QWEN, home)
    chat = next((home / ".qwen/projects").glob("*/chats/06673cb3*.jsonl"))
    lines = chat.read_text().splitlines(keepends=True)
    chat.write_text("".join(lines[:6]))  # up to the tool's result
    follower = LiveSession(api.resolve(Home.at(home), "06673cb3"))
    shown = follower.poll()
    with chat.open("a", encoding="utf-8") as file:
        file.write("".join(lines[6:8]))  # the answer's telemetry, then the answer
    shown += follower.poll()
    shown += follower.poll()  # nothing written since
    assert _usages(shown) == [30, 30]


def test_follow_started_while_an_answer_streams_draws_it_once(tmp_path: Path) -> None:
    """`follow` started while Crush streams an answer into its row drew the words so far
    as the last of its history, then the whole answer again once written. The first
    read's last event, written just now, is drawn once read again; what the session's
    status says takes it at once."""
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    session = api.resolve(Home.at(home), "8c1f2e3d")
    writer = sqlite3.connect(str(session.path).split("#", 1)[0], isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")

    def said(text: str) -> str:
        return json.dumps([{"type": "text", "data": {"text": text}}])

    try:
        # Crush stamps a row it inserts with the time it writes it
        writer.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at,"
            " updated_at) VALUES ('m-live-1', ?, 'assistant', ?, 'm', ?, ?)",
            (session.id, said("Hel"), CRUSH_AT, int(time.time())),
        )
        follower = LiveSession(session)
        shown = follower.poll()
        assert follower.tracker.lead.active == CRUSH_AT  # status: it answers now
        writer.execute(
            "UPDATE messages SET parts = ? WHERE id = 'm-live-1'",
            (said("Hello, the answer is 42."),),
        )
        for _ in range(3):
            time.sleep(live_feeds.STORE_SECONDS)
            shown += follower.poll()
    finally:
        writer.close()
    answers = [e.text for e in shown if e.kind == "assistant"]
    assert answers[-1:] == ["Hello, the answer is 42."]
    assert "Hel" not in answers


def test_follow_draws_an_answer_settled_long_ago_at_once_while_another_writes(
    tmp_path: Path,
) -> None:
    """A database many sessions share counts as written when any of them is: `follow`
    started a moment after another session wrote held this one's last answer, settled
    long ago, for a second read (2 s). Where the rows' own stamps say this session was
    not written since (Crush's trigger stamps every update), it is drawn at once."""
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    session = api.resolve(Home.at(home), "8c1f2e3d")
    writer = sqlite3.connect(str(session.path).split("#", 1)[0], isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    said = json.dumps([{"type": "text", "data": {"text": "All done."}}])
    try:
        writer.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at,"
            " updated_at) VALUES ('m-old', ?, 'assistant', ?, 'm', ?, ?)",
            (session.id, said, CRUSH_AT, CRUSH_AT),
        )
        time.sleep(live_feeds.STORE_SECONDS + live_feeds.MTIME_SLACK)
        # another session's prompt, written just now
        now = int(time.time())
        writer.execute(
            "INSERT INTO sessions (id, title, updated_at, created_at)"
            " VALUES ('other', 'Other', ?, ?)",
            (now, now),
        )
        writer.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at,"
            " updated_at) VALUES ('m-other', 'other', 'user', '[]', 'm', ?, ?)",
            (now, now),
        )
        shown = LiveSession(session).poll()
    finally:
        writer.close()
    assert [e.text for e in shown if e.kind == "assistant"][-1:] == ["All done."]


def test_an_answer_takes_one_place_of_what_is_remembered() -> None:
    """`Seen` remembers SEEN_CAP events to drop what a re-read repeats; an answer took
    two places (its identity and its words, kept for a summary marked later), so a
    session of answers was forgotten at half the cap and drawn again."""
    when = datetime(2026, 12, 1, tzinfo=UTC)
    answers = [Event("s", n, "assistant", when, text=f"answer {n}") for n in range(4)]
    seen = live_feeds.Seen(cap=4)
    assert all(seen.add(answer, True) for answer in answers)
    assert not any(seen.add(answer, True) for answer in answers)  # all still known
    compaction = Event("s", 9, "compaction", when, text="answer 3")
    assert not seen.add(compaction, True)  # the answer, marked a summary since


def test_a_crush_sub_agent_written_now_counts_as_its_lead_written(
    tmp_path: Path,
) -> None:
    """A lead's read shows its sub-agents' answers inline: one streamed now keeps the
    lead's first read holding its last answer, however old the lead's own rows."""
    from sessdex.sources import crush

    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    session = api.resolve(Home.at(home), "8c1f2e3d")
    assert crush.last_written(session) == CRUSH_AT - 60  # the fixture's last row
    writer = sqlite3.connect(str(session.path).split("#", 1)[0], isolation_level=None)
    try:
        writer.execute(
            "UPDATE messages SET parts = parts WHERE session_id = ?",
            ("m-assistant-1$$call_agent_1",),
        )  # the database's trigger stamps it now
    finally:
        writer.close()
    written = crush.last_written(session)
    assert written is not None and time.time() - written < 5


def _opencode_answer(tmp_path: Path, written_ago: float) -> list[Event]:
    """BASIC's first read as `follow` makes it, its last answer's rows stamped
    `written_ago` seconds ago as OpenCode stamps them (Drizzle's `time_updated`), a
    moment after another session of the database was written."""
    home = tmp_path / "home"
    shutil.copytree(OPENCODE, home)
    session = api.resolve(Home.at(home), BASIC)
    writer = sqlite3.connect(str(session.path).split("#", 1)[0], isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    now = int(time.time() * 1000)
    ours = now - int(written_ago * 1000)
    rows = [
        ("message", (ANSWER, BASIC, ours, ours, '{"role": "assistant"}')),
        ("part", ("prt_22b8350000001", ANSWER, BASIC, ours, ours,
                  '{"type": "text", "text": "All done."}')),
        # another session's prompt, written just now
        ("message", ("msg_22b835000003", OTHER, now, now, '{"role": "user"}')),
        ("part", ("prt_22b8350000002", "msg_22b835000003", OTHER, now, now,
                  '{"type": "text", "text": "Go on."}')),
    ]  # fmt: skip
    try:
        for table, values in rows:
            marks = ", ".join("?" * len(values))
            writer.execute(f"INSERT INTO {table} VALUES ({marks})", values)
        return LiveSession(session).poll()
    finally:
        writer.close()


OTHER = "ses_dd40000000ffeSynthCache01"


def test_follow_draws_an_opencode_answer_settled_long_ago_at_once(
    tmp_path: Path,
) -> None:
    """OpenCode stamps every write of a message or part row (Drizzle's `$onUpdate` on
    `time_updated`, an upsert's too): `follow` started a moment after another session
    wrote held this one's last answer, written a minute ago, for a second read (2 s)."""
    shown = _opencode_answer(tmp_path, written_ago=60)
    assert [e.text for e in shown if e.kind == "assistant"][-1:] == ["All done."]


def test_follow_holds_an_opencode_answer_written_just_now(tmp_path: Path) -> None:
    """An answer whose part was written a moment ago may still grow: held for the
    next read, as before."""
    shown = _opencode_answer(tmp_path, written_ago=0)
    assert "All done." not in [e.text for e in shown if e.kind == "assistant"]


def test_an_opencode_sub_agent_written_now_counts_as_its_lead_written(
    tmp_path: Path,
) -> None:
    """A lead's read shows its sub-agents' answers inline (`parent_id`): one written
    now makes the lead written now, however old its own rows. A session with 2.x rows
    (`session_message`, whose writes were not read) cannot tell."""
    from sessdex.sources import opencode

    home = tmp_path / "home"
    shutil.copytree(OPENCODE, home)
    lead = api.resolve(Home.at(home), "ses_dd47cc97dffecuMitBkETrvX9v")
    assert opencode.last_written(lead) == 1796026351.83  # its own newest row
    writer = sqlite3.connect(str(lead.path).split("#", 1)[0], isolation_level=None)
    try:
        now = int(time.time() * 1000)
        writer.execute(
            "UPDATE part SET time_updated = ? WHERE rowid = (SELECT max(rowid)"
            " FROM part WHERE session_id = 'ses_dd47cc26cffeODfwLbHNPwBmj1')",
            (now,),
        )
        assert opencode.last_written(lead) == now / 1000
        writer.execute(
            "INSERT INTO session_message VALUES ('m2', ?, 'user', 1, ?, ?, '{}')",
            (lead.id, now, now),
        )
        assert opencode.last_written(lead) is None
    finally:
        writer.close()


def test_follow_ended_at_its_duration_draws_the_usage_it_kept_back(
    tmp_path: Path,
) -> None:
    """`follow --duration 0` of a Qwen Code file written just now, ending on a reply's
    usage, drew every event but that usage: it was kept back for a read that never
    came. What is kept back is drawn as it is when following ends, as `show` gives it:
    with `--duration 0`, in the history itself, which `-n` cuts as `show --tail`."""
    home = tmp_path / "home"
    shutil.copytree(QWEN, home)
    chat = next((home / ".qwen/projects").glob("*/chats/5d1e0c2a*.jsonl"))
    session = api.resolve(Home.at(home), "5d1e0c2a")
    lines = chat.read_text().splitlines(keepends=True)
    chat.write_text("".join(lines[:5]))  # the reply's first fragment, written now
    batches = list(live.follow(session, duration=0))
    shown = list(api.transcript(Home.at(home), "5d1e0c2a").events)
    assert shown[-1].kind == "usage"
    # one batch, the history `follow -n` cuts its last events from, as show --tail
    assert [[(e.kind, e.usage) for e in batch] for batch in batches] == [
        [(e.kind, e.usage) for e in shown]
    ]


def test_follow_ended_at_its_duration_draws_the_crush_summary_it_kept_back(
    tmp_path: Path,
) -> None:
    """`follow --duration 0` as Crush writes a summary into its row: the summary, kept
    back for a read that tells it whole, was never drawn; it is drawn as it is."""
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    session = api.resolve(Home.at(home), "8c1f2e3d")
    writer = sqlite3.connect(str(session.path).split("#", 1)[0], isolation_level=None)
    parts = json.dumps([{"type": "text", "data": {"text": "Summary: check"}}])
    try:
        writer.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at,"
            " updated_at, is_summary_message) VALUES ('m-sum', ?, 'assistant', ?,"
            " 'm', ?, ?, 1)",
            (session.id, parts, CRUSH_AT, int(time.time())),
        )
        writer.execute(
            "UPDATE sessions SET summary_message_id = 'm-sum' WHERE id = ?",
            (session.id,),
        )
    finally:
        writer.close()
    drawn = [e for batch in live.follow(session, duration=0) for e in batch]
    assert "Summary: check" in [e.text for e in drawn if e.kind == "compaction"]


def test_a_qwen_sub_agent_transcript_ending_on_its_answer_bills_it(
    tmp_path: Path,
) -> None:
    """A Qwen Code sub-agent's own transcript (0.24.4) writes one record per model round
    and ends on its answer: following it alone bills that answer once the file is found
    unchanged, as before, not only when following ends."""
    home = tmp_path / "home"
    shutil.copytree(QWEN.parent / "subagents" / "home", home)
    follower = LiveSession(
        api.resolve(Home.at(home), "general-purpose-call_8f2b1c9d0e")
    )
    shown = follower.poll() + follower.poll()
    assert _usages(shown) == [40, 30]
