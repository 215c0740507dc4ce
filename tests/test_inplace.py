"""A store read in place (no WAL, `immutable=1`: no lock) while its app commits: what
sessdex gives is one committed state, never half of one transaction and half of the next.

The app is a real SQLite writer in rollback-journal mode (journal_mode=DELETE). To be
deterministic on a busy machine, the read is hooked so the app commits between two queries
of one read; the last test lets a writer process commit in a loop while sessdex reads.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home, _cursor_ide
from tests.sources.test_cursor_ide import at, composer, store

ONE = "c0a1b2c3-0000-4000-8000-00000000000a"
TWO = "c0a1b2c3-0000-4000-8000-00000000000b"
PAD = " " + "x" * 3000  # a message per page or two, as real ones are


def rows(n: int, *, follow_up: bool = False) -> dict[str, object]:
    """The store at version `n`: conversation ONE (a question, its answer, and with
    `follow_up` a third message) titled "one n", conversation TWO titled "two n"."""
    bubbles = [("q", 1), ("a", 2), *([("f", 1)] if follow_up else [])]
    texts = {"q": f"question {n}", "a": f"answer {n}", "f": f"follow-up {n}"}
    found: dict[str, object] = {
        f"composerData:{ONE}": composer(ONE, bubbles, name=f"one {n}", text=PAD),
        f"composerData:{TWO}": composer(TWO, [("q", 1)], name=f"two {n}", text=PAD),
        f"bubbleId:{TWO}:q": {
            "_v": 3,
            "type": 1,
            "text": f"hello {n}",
            "createdAt": at(1),
        },
    }
    for second, (bubble, kind) in enumerate(bubbles):
        found[f"bubbleId:{ONE}:{bubble}"] = {
            "_v": 3, "type": kind, "text": texts[bubble] + PAD, "createdAt": at(second),
        }  # fmt: skip
    return found


# a row updated in place keeps its rowid, as an app's UPDATE does
UPSERT = (
    "INSERT INTO cursorDiskKV VALUES (?, ?) "
    "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
)


class App:
    """The app: one transaction per `commit`, in rollback-journal mode, that brings every
    row of the store to version `n` together."""

    def __init__(self, db: Path) -> None:
        self.connection = sqlite3.connect(db, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=DELETE")

    def commit(self, n: int, *, follow_up: bool = False) -> None:
        self.connection.execute("BEGIN IMMEDIATE")
        for key, value in rows(n, follow_up=follow_up).items():
            self.connection.execute(UPSERT, (key, json.dumps(value)))
        self.connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Home, Path, App]]:
    db = store(tmp_path, rows(0))
    writer = App(db)
    yield Home.at(tmp_path), db, writer
    writer.close()


def commit_at(
    monkeypatch: pytest.MonkeyPatch, call: int, commit: Callable[[], None]
) -> list[str]:
    """Have the app commit just before the reader's `call`-th value read, once; the keys
    read, in order."""
    original = _cursor_ide._Store._value
    read: list[str] = []

    def value(store: _cursor_ide._Store, rowid: int, key: object) -> dict[str, object]:
        read.append(str(key))
        if len(read) == call:
            commit()
        return original(store, rowid, key)

    monkeypatch.setattr(_cursor_ide._Store, "_value", value)
    return read


def texts(home: Home) -> tuple[list[str], list[str]]:
    """What `show` gives of conversation ONE (each message's first two words), and the
    problems it says."""
    shown = api.transcript(home, ONE)
    said = [" ".join((e.text or "").split()[:2]) for e in shown.events if e.text]
    return said, shown.diagnostics.problems


def titles(home: Home) -> dict[str, str | None]:
    listing = api.list_sessions(home)
    return {s.id: s.title for s in listing.sessions()}


def test_a_commit_before_anything_is_given_shows_the_state_after_it_whole(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app answers (a new message, the others rewritten) after `show` read the
    conversation's list of messages but before its first message: the messages are those
    the app committed, all of them, not the old list filled with new messages."""
    home, _, writer = app
    assert titles(home)[ONE] == "one 0"
    commit_at(monkeypatch, 2, lambda: writer.commit(1, follow_up=True))
    said, problems = texts(home)
    assert said == ["question 1", "answer 1", "follow-up 1"]
    assert problems == []


@pytest.mark.parametrize("given", ["at once", "in batches"])
def test_a_commit_between_two_messages_never_shows_half_of_each(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    """The app rewrites the question and its answer in one transaction after `show` read
    the question: the answer of the next version is never shown after the question of the
    first. A question given already (each event given as soon as it is read) stays given,
    and the read says it changed; one still held in its batch is dropped with the batch,
    and the conversation read again, whole, as the app committed it."""
    from sessdex import inplace

    home, _, writer = app
    assert titles(home)[ONE] == "one 0"
    if given == "at once":
        monkeypatch.setattr(inplace, "BATCH", 1)
    else:  # however slow the machine, both messages are read in one batch
        monkeypatch.setattr(inplace, "BATCH_SECONDS", 60.0)
    read = commit_at(monkeypatch, 3, lambda: writer.commit(1))
    said, problems = texts(home)
    assert read[:3] == [f"composerData:{ONE}", f"bubbleId:{ONE}:q", f"bubbleId:{ONE}:a"]
    if given == "at once":
        assert said == ["question 0"]
        assert any("changed while it was read" in p for p in problems)
    else:
        assert said == ["question 1", "answer 1"]
        assert problems == []


def test_a_rewrite_of_an_earlier_message_given_already_is_said(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app edits the question in place (one row updated) after `show` gave it and its
    answer: the read again finds the answer as it was, but not the question, and says
    that what was shown changed instead of going on as if it all still stood."""
    from sessdex import inplace

    home, _, writer = app
    writer.commit(0, follow_up=True)
    assert titles(home)[ONE] == "one 0"
    monkeypatch.setattr(inplace, "BATCH", 1)  # each message given as soon as it is read
    edited = rows(0, follow_up=True)[f"bubbleId:{ONE}:q"]
    assert isinstance(edited, dict)
    edited = {**edited, "text": "question edited" + PAD}

    def edit() -> None:
        writer.connection.execute(UPSERT, (f"bubbleId:{ONE}:q", json.dumps(edited)))

    read = commit_at(monkeypatch, 4, edit)  # before the follow-up is read
    said, problems = texts(home)
    assert read[:4] == [
        f"composerData:{ONE}", f"bubbleId:{ONE}:q", f"bubbleId:{ONE}:a",
        f"bubbleId:{ONE}:f",
    ]  # fmt: skip
    assert said == ["question 0", "answer 0"]  # what was given, and no more
    assert any("changed while it was read" in p for p in problems)


def test_a_listing_never_mixes_two_commits(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app renames both conversations in one transaction while `list` reads the first
    name and not yet the second: both names come from one commit."""
    home, db, writer = app
    read = commit_at(monkeypatch, 2, lambda: writer.commit(1))
    assert titles(home) == {ONE: "one 1", TWO: "two 1"}
    assert read[:2] == [f"composerData:{ONE}", f"composerData:{TWO}"]
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.vscdb"]


WRITER = r"""
import json, sqlite3, sys, time
sys.path.insert(0, sys.argv[2])
from tests.test_inplace import UPSERT, rows
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode=DELETE")
n = 0
print("ready", flush=True)
while True:
    n += 1
    c.execute("BEGIN IMMEDIATE")
    for key, value in rows(n, follow_up=n % 2 == 1).items():
        c.execute(UPSERT, (key, json.dumps(value)))
    c.execute("COMMIT")
    time.sleep(0.01)  # 100 commits a second: a busy app
"""


def test_reads_while_the_app_commits_in_a_loop_each_give_one_state(
    app: tuple[Home, Path, App],
) -> None:
    """A writer process commits version after version while `list` and `show` read, on
    and on: each read gives one version throughout (or stops with a problem said, never
    mixing two), none crashes, and no file sessdex made appears in the app's folder."""
    home, db, _ = app
    root = str(Path(__file__).parent.parent)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), root],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        names: set[str] = set()
        given = 0
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline or given < 5:
            assert time.monotonic() < deadline + 60, "no read gave anything"
            names.update(p.name for p in db.parent.iterdir())
            found = titles(home)
            assert found[ONE] is not None and found[TWO] is not None
            assert found[ONE].split()[1] == found[TWO].split()[1], found
            said, _ = texts(home)
            versions = {text.split()[1] for text in said}
            assert len(versions) <= 1, said
            given += bool(said)
    finally:
        writer.terminate()
        writer.wait(10)
        if writer.stdout is not None:
            writer.stdout.close()
    assert names <= {"state.vscdb", "state.vscdb-journal"}


def test_a_copy_the_app_commits_during_is_taken_again(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read again takes a copy of the store; the app commits while it is copied (the
    copy's first pages from before, the rest from after): that copy is not read, another
    is, and both messages come from one commit (not the old question beside the new
    answer). The app's folder gets no file."""
    from sessdex import databases, inplace

    _, db, writer = app
    original = databases._copy
    copies: list[str] = []

    def copy(source: str, target: Path) -> None:
        original(source, target)
        copies.append(source)
        if copies == [str(db)]:
            # copied up to the answer's page before the commit, the rest after it
            split = target.read_bytes().index(b"answer 0") // 4096 * 4096
            writer.commit(1)
            with open(target, "r+b") as torn:
                torn.seek(split)
                torn.write(db.read_bytes()[split:])

    monkeypatch.setattr(databases, "_copy", copy)
    with inplace.Reading(copied=True) as reading:
        connection = databases.open_sqlite(db)
        try:
            values = [
                json.loads(value)["text"].split()[:2]
                for (value,) in connection.execute(
                    "SELECT value FROM cursorDiskKV WHERE key IN (?, ?) ORDER BY key",
                    (f"bubbleId:{ONE}:a", f"bubbleId:{ONE}:q"),
                )
            ]
        finally:
            connection.close()
            reading.close()
    assert values == [["answer", "1"], ["question", "1"]]
    assert copies == [str(db), str(db)]
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.vscdb"]


def test_a_commit_that_leaves_size_and_mtime_as_they_were_is_listed(
    app: tuple[Home, Path, App], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The app renames a conversation in the timestamp tick of sessdex's last look, in
    place, the file's size unchanged: the next `list` (the index's refresh, and a warm
    `list --json` answered from the index alone) shows the new name, not the old one."""
    from sessdex import quick

    home, db, writer = app
    assert titles(home)[ONE] == "one 0"
    looked = os.stat(db)
    writer.commit(1)
    assert os.stat(db).st_size == looked.st_size
    os.utime(db, ns=(looked.st_atime_ns, looked.st_mtime_ns))  # one coarse tick
    assert titles(home)[ONE] == "one 1"
    writer.commit(2)
    os.utime(db, ns=(looked.st_atime_ns, looked.st_mtime_ns))
    capsysbinary.readouterr()
    assert quick.answer("list", ["--json", "--home", str(db.parents[4])])
    listed = {s["id"]: s["title"] for s in json.loads(capsysbinary.readouterr().out)}
    assert listed[ONE] == "one 2"


def test_show_tail_never_shows_half_of_each_commit(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`show --tail` reads a store once, whole, with the same check as `show`: the app
    rewriting question and answer together between the two gives both of one commit."""
    from sessdex import inplace

    home, _, writer = app
    assert titles(home)[ONE] == "one 0"
    monkeypatch.setattr(inplace, "BATCH_SECONDS", 60.0)
    # the 4th value read: the tail's look at the headers (too few messages to read
    # from the end), then the whole read's headers and question; the answer is next
    read = commit_at(monkeypatch, 4, lambda: writer.commit(1))
    shown = api.transcript(home, ONE, tail=5)
    said = [" ".join((e.text or "").split()[:2]) for e in shown.events if e.text]
    assert said == ["question 1", "answer 1"]
    assert shown.diagnostics.problems == []
    assert read[:4] == [f"composerData:{ONE}", f"composerData:{ONE}",
                        f"bubbleId:{ONE}:q", f"bubbleId:{ONE}:a"]  # fmt: skip
    # that look, the whole read, and once again after the commit: not once per window
    assert read.count(f"composerData:{ONE}") == 3


def test_watch_never_shows_half_of_each_commit(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`watch` and `follow` read a store's session whole at each change, with the same
    check as `show`: the app rewriting question and answer together between the two
    gives both of one commit, not the old question beside the new answer."""
    from sessdex import inplace, live_feeds, sources
    from sessdex.diagnostics import Diagnostics
    from sessdex.status import Tracker

    home, _, writer = app
    session = api.resolve(home, ONE)
    monkeypatch.setattr(inplace, "BATCH_SECONDS", 60.0)
    commit_at(monkeypatch, 3, lambda: writer.commit(1))
    feed = live_feeds.ReadFeed(
        session, sources.get(session.app), Diagnostics(), Tracker()
    )
    got = feed.poll(100.0, live_feeds.Seen())
    said = [" ".join((e.text or "").split()[:2]) for e in got if e.text]
    assert said == ["question 1", "answer 1"]
