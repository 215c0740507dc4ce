"""A followed store's later reads draw on its last rows (`ReadFeed._read_tail`), and what
they draw and count is what a whole read draws and counts: generated OpenCode databases,
Gemini chats, Crush and Goose databases and Cline SDK sessions written at random, each as
its app writes (messages appended, one poll's worth or more than a window holds; the last
answer streamed into its row; an earlier part or an earlier answer's usage rewritten; an
OpenCode tool part that ran on completed in place, however far back; a call billed a poll
late; a revert deleting the last messages; a compaction), each write
read by a follow of each kind."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sessdex import api, reading, sources
from sessdex.diagnostics import Diagnostics
from sessdex.live_feeds import ReadFeed, Seen
from sessdex.model import Event
from sessdex.sources import Home
from sessdex.status import Tracker
from tests.conftest import app_home
from tests.test_follow_store_tail import _shown
from tests.test_tail_compactions import BASIC

STEPS = 40  # writes per session


def _feed(home: Home, prefix: str, tail_reads: bool) -> ReadFeed:
    session = api.resolve(home, prefix)
    feed = ReadFeed(
        session, sources.get(session.app), Diagnostics(), Tracker(lead_id=session.id)
    )
    feed.tail_reads = tail_reads
    return feed


class _Follows:
    """A follow whose later reads draw on the store's end, and one that reads it whole,
    polled alike: each poll's draw and token count compared."""

    def __init__(
        self, home: Home, prefix: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.feeds = [_feed(home, prefix, True), _feed(home, prefix, False)]
        self.seen = [Seen(), Seen()]
        self.now = time.time()
        self.tails = 0  # polls of the first follow that read no whole session
        self.wholes: list[object] = []
        whole = reading.read_session

        def counted(*args: Any, **kwargs: Any) -> Iterator[Event]:
            self.wholes.append(args[1])
            return whole(*args, **kwargs)

        monkeypatch.setattr(reading, "read_session", counted)
        self.poll("first read")

    def poll(self, what: str) -> list[Event]:
        """One poll of each follow: what the first drew (the second drew the same)."""
        self.now += 10  # past the read interval, and no write is "just now"
        drawn: list[list[Event]] = []
        for feed, seen in zip(self.feeds, self.seen, strict=True):
            wholes = len(self.wholes)
            drawn.append(feed.poll(self.now, seen))
            self.tails += feed.tail_reads and len(self.wholes) == wholes
        assert _shown(drawn[0]) == _shown(drawn[1]), what
        assert self.feeds[0].tokens == self.feeds[1].tokens, what
        return drawn[0]


class _OpenCode:
    """BASIC of the fixture's database, written at random."""

    def __init__(self, home: Path, rng: random.Random) -> None:
        shutil.copytree(app_home("opencode"), home, symlinks=True)
        self.path = home / ".local/share/opencode/opencode.db"
        self.rng = rng
        self.at, self.n = 1796026350000, 0
        self.messages: list[str] = []
        self.running: list[str] = []  # the messages whose tool part runs on

    def _write(self, sql: str, *args: object) -> None:
        db = sqlite3.connect(self.path)
        db.execute("PRAGMA synchronous = OFF")  # a test's writes need no fsync
        db.execute(sql, args)
        db.commit()
        db.close()

    def add(self, role: str, part: dict[str, object], **info: object) -> None:
        # each message a millisecond or more after the one before: two turns alike in
        # one millisecond would tell a read of the end nothing of where it was
        self.at, self.n = self.at + self.rng.choice([1, 1000]), self.n + 1
        message, at = f"msg_22b8400000{self.n:06d}", self.at
        if role == "assistant":  # a tool left running before it was given up on
            self.running.clear()
        data = json.dumps({"role": role, **info, "time": {"created": at}})
        self._write("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                    message, BASIC, at, at, data)  # fmt: skip
        self._write("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                    f"prt_22b8400000{self.n:06d}", message, BASIC, at, at,
                    json.dumps(part))  # fmt: skip
        self.messages.append(message)

    def turn(self) -> None:
        n = self.n
        self.add("user", {"type": "text", "text": f"p{n}"})
        tokens = {"input": self.rng.randint(1, 99), "output": 5, "reasoning": 0,
                  "cache": {"read": 0, "write": 0}}  # fmt: skip
        self.add("assistant", {"type": "text", "text": f"a{n}"}, finish="stop",
                 tokens=tokens)  # fmt: skip

    def call(self) -> str:
        """An answer calling a tool that runs on (its part `running`): its message id."""
        at = self.at + 1
        self.add("assistant", {"type": "tool", "tool": "bash",
                               "callID": f"call_{self.n + 1}",
                               "state": {"status": "running", "input": {"command": "make"},
                                         "time": {"start": at}}})  # fmt: skip
        self.running.append(self.messages[-1])
        return self.messages[-1]

    def queue(self, count: int) -> None:
        """Prompts sent while the tool runs: OpenCode writes each at once, and answers
        them once the tool returned."""
        for _ in range(count):
            self.add("user", {"type": "text", "text": f"q{self.n}"})

    def finish(self, message: str, step: bool = False) -> None:
        """The tool part of `message` written again in place, completed, as OpenCode's
        processor writes it once the tool returns (its `time_updated` now); `step`: the
        message's tokens and end written after it, as the step finishes."""
        db = sqlite3.connect(self.path)
        row = db.execute(
            "SELECT data FROM part WHERE message_id = ?", (message,)
        ).fetchone()
        db.close()
        if row is None:  # reverted
            return
        part = json.loads(row[0])
        if part.get("type") != "tool" or part["state"]["status"] != "running":
            return
        start = part["state"]["time"]["start"]
        part["state"] = {"status": "completed", "input": part["state"]["input"],
                         "output": f"built {message[-6:]}", "title": "make",
                         "metadata": {}, "time": {"start": start, "end": self.at}}  # fmt: skip
        self._write("UPDATE part SET data = ?, time_updated = ? WHERE message_id = ?",
                    json.dumps(part), self.at, message)  # fmt: skip
        if step:
            tokens = {"input": self.rng.randint(1, 99), "output": 5, "reasoning": 0,
                      "cache": {"read": 0, "write": 0}}  # fmt: skip
            self._write("UPDATE message SET data = json_set(data, '$.tokens', json(?), "
                        "'$.time.completed', ?), time_updated = ? WHERE id = ?",
                        json.dumps(tokens), self.at, self.at, message)  # fmt: skip

    def stream(self, back: int) -> None:
        """The part of the message `back` from the end written again, longer."""
        if len(self.messages) < back:
            return
        message = self.messages[-back]
        db = sqlite3.connect(self.path)
        (data,) = db.execute("SELECT data FROM part WHERE message_id = ?", (message,))
        db.close()
        part = json.loads(data[0])
        part["text"] = part.get("text", "") + " more"
        self._write("UPDATE part SET data = ? WHERE message_id = ?",
                    json.dumps(part), message)  # fmt: skip

    def recount(self, back: int) -> None:
        """The tokens of the message `back` from the end, an answer's, written again."""
        if len(self.messages) < back:
            return
        message = self.messages[-back]
        db = sqlite3.connect(self.path)
        (data,) = db.execute("SELECT data FROM message WHERE id = ?", (message,))
        db.close()
        info = json.loads(data[0])
        if "tokens" in info:
            info["tokens"]["output"] += 1
            self._write("UPDATE message SET data = ? WHERE id = ?", json.dumps(info),
                        message)  # fmt: skip

    def revert(self, count: int) -> None:
        for message in self.messages[-count:]:
            self._write("DELETE FROM part WHERE message_id = ?", message)
            self._write("DELETE FROM message WHERE id = ?", message)
        del self.messages[-count:]

    def compact(self) -> None:
        part: dict[str, object] = {"type": "compaction", "auto": True}
        if self.messages and self.rng.random() < 0.5:
            part["tail_start_id"] = self.rng.choice(self.messages[-6:])
        self.add("user", part)
        self.add("assistant", {"type": "text", "text": f"summary {self.n}"},
                 summary=True, mode="compaction", finish="stop")  # fmt: skip


class _Gemini:
    """A Gemini CLI chat, written whole again at each write, as the CLI writes it."""

    ID = "5a1e9c3b-0000-4000-8000-000000000001"

    def __init__(self, home: Path, rng: random.Random) -> None:
        self.rng = rng
        chats = home / ".gemini" / "tmp" / "proj" / "chats"
        chats.mkdir(parents=True)
        self.path = chats / "session-2025-11-02T10-00-5a1e9c3b.json"
        self.messages: list[dict[str, object]] = []
        self.n = 0
        self.turn()

    def _save(self) -> None:
        chat = {"sessionId": self.ID, "projectHash": "0" * 64,
                "startTime": "2025-11-02T10:00:00.000Z",
                "lastUpdated": "2025-11-02T11:00:00.000Z", "messages": self.messages}  # fmt: skip
        self.path.write_text(json.dumps(chat, indent=2))

    def _message(self, kind: str, **fields: object) -> None:
        self.n += 1
        n = self.n
        stamp = f"2025-11-02T1{n // 3600 % 10}:{n // 60 % 60:02}:{n % 60:02}.000Z"
        self.messages.append(
            {"id": f"m{n}", "timestamp": stamp, "type": kind, **fields}
        )

    def turn(self, save: bool = True) -> None:
        self._message("user", content=f"prompt {self.n}")
        self._message("gemini", content=f"answer {self.n}", model="gemini-2.5-pro",
                      tokens={"input": self.rng.randint(1, 99), "output": 5})  # fmt: skip
        if save:
            self._save()

    def add_many(self, count: int) -> None:
        for _ in range(count):
            self.turn(save=False)
        self._save()

    def stream(self, back: int) -> None:
        if len(self.messages) >= back:
            message = self.messages[-back]
            message["content"] = f"{message['content']} more"
            self._save()

    def recount(self, back: int) -> None:
        """The tokens of the message `back` from the end, an answer's, written again."""
        if len(self.messages) >= back and "tokens" in self.messages[-back]:
            tokens = self.messages[-back]["tokens"]
            assert isinstance(tokens, dict)
            tokens["output"] += 1
            self._save()

    def revert(self, count: int) -> None:
        del self.messages[-count:]
        self._save()


class _Crush:
    """A session added to the fixture's Crush database, written as Crush writes it: a
    message inserted, then its parts written again in place as they stream; the session
    row's token counters and time written after (Crush records no per-message usage);
    a summary marked on the session row once written. Times are whole seconds, so that
    many rows share one."""

    ID = "9d2c0e51-7a3b-4c6d-9e7f-0a1b2c3d4e5f"

    def __init__(self, home: Path, rng: random.Random) -> None:
        shutil.copytree(app_home("crush"), home, symlinks=True)
        self.path = home / "code/shop-api/.crush/crush.db"
        self.rng = rng
        self.at, self.n = 1796119300, 0
        self.messages: list[str] = []
        self.tokens = 0
        self._write("INSERT INTO sessions (id, title, message_count, prompt_tokens, "
                    "completion_tokens, cost, updated_at, created_at) "
                    "VALUES (?, 'random', 0, 0, 0, 0, ?, ?)", self.ID, self.at, self.at)  # fmt: skip

    def _write(self, sql: str, *args: object) -> None:
        db = sqlite3.connect(self.path)
        db.execute("PRAGMA synchronous = OFF")  # a test's writes need no fsync
        db.execute(sql, args)
        db.commit()
        db.close()

    def add(self, role: str, text: str, summary: bool = False) -> None:
        self.at, self.n = self.at + self.rng.choice([0, 0, 1]), self.n + 1
        message = f"m-random-{self.n:06d}"
        self._write("INSERT INTO messages (id, session_id, role, parts, model, "
                    "created_at, updated_at, provider, is_summary_message) "
                    "VALUES (?, ?, ?, '[]', ?, ?, ?, ?, ?)", message, self.ID, role,
                    "claude-sonnet-4-5" if role == "assistant" else None, self.at,
                    self.at, "anthropic" if role == "assistant" else None,
                    int(summary))  # fmt: skip
        self.messages.append(message)
        self._parts(message, text)

    def _parts(self, message: str, text: str) -> None:
        parts = [{"type": "text", "data": {"text": text}},
                 {"type": "finish", "data": {"reason": "end_turn", "time": self.at}}]  # fmt: skip
        self._write("UPDATE messages SET parts = ? WHERE id = ?", json.dumps(parts),
                    message)  # fmt: skip

    def counters(self) -> None:
        """The session row's counters and time, written after a response."""
        self.tokens += self.rng.randint(1, 99)
        self._write("UPDATE sessions SET prompt_tokens = ?, completion_tokens = 5, "
                    "cost = ?, updated_at = ? WHERE id = ?", self.tokens,
                    self.tokens / 1e6, self.at, self.ID)  # fmt: skip

    def turn(self) -> None:
        n = self.n
        self.add("user", f"p{n}")
        self.add("assistant", f"a{n}")
        if self.rng.random() < 0.7:  # else at a later step
            self.counters()

    def add_many(self, count: int) -> None:
        for _ in range(count):
            self.turn()

    def stream(self, back: int) -> None:
        if len(self.messages) < back:
            self.counters()  # the counters alone written
            return
        message = self.messages[-back]
        db = sqlite3.connect(self.path)
        (parts,) = db.execute("SELECT parts FROM messages WHERE id = ?", (message,))
        db.close()
        self._parts(message, json.loads(parts[0])[0]["data"]["text"] + " more")

    def revert(self, count: int) -> None:
        for message in self.messages[-count:]:
            self._write("DELETE FROM messages WHERE id = ?", message)
        del self.messages[-count:]

    def compact(self) -> None:
        self.add("assistant", f"summary {self.n}", summary=True)
        self._write("UPDATE sessions SET summary_message_id = ? WHERE id = ?",
                    self.messages[-1], self.ID)  # fmt: skip
        self.counters()


class _Goose:
    """A Goose session (schema v16), written as Goose writes it: each message inserted
    whole, never updated in place; each model call a `usage_ledger` row dated when the
    call was made, sometimes written a poll after the answer; a compaction's rewrite of
    the whole conversation (`replace_conversation`: the history hidden from the model,
    the summary after it); an edit's truncation (`truncate_conversation`). Times are whole
    seconds."""

    ID = "20260820_7"

    def __init__(self, home: Path, rng: random.Random) -> None:
        from tests.sources import test_goose as g

        self.g = g
        root, db = g.v16_home(home.parent / "goose")
        shutil.move(root, home)
        db.close()
        self.path = home / ".local/share/goose/sessions/sessions.db"
        self.rng = rng
        self.clock, self.n = 0, 0
        self.pending: list[tuple[int, int]] = []  # calls billed, not yet written
        with self._db() as db:
            g.add_session(db, self.ID, name="Random")

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path)
        db.execute("PRAGMA synchronous = OFF")  # a test's writes need no fsync
        return db

    def turn(self) -> None:
        g, n = self.g, self.n
        self.n += 1
        with self._db() as db:
            self.clock += self.rng.choice([0, 1])
            g.add_message(db, self.ID, "user", g.text(f"p{n}"), self.clock)
            self.clock += self.rng.choice([0, 1])
            call = (self.clock, self.rng.randint(1, 99))
            g.add_message(db, self.ID, "assistant", g.text(f"a{n}"), self.clock)
            self.pending.append(call)
            if self.rng.random() < 0.7:  # else a later step writes it
                self._bill(db)
        db.close()

    def _bill(self, db: sqlite3.Connection) -> None:
        for clock, given in self.pending:
            self.g.add_call(db, self.ID, clock, self.g.SONNET, (given, 5, 0, 0))
        self.pending = []

    def add_many(self, count: int) -> None:
        for _ in range(count):
            self.turn()

    def stream(self, back: int) -> None:
        """Goose rewrites no row: the calls billed late are written, and (`back` > 1)
        the conversation is deleted and inserted again as it was."""
        with self._db() as db:
            self._bill(db)
            if back > 1:
                rows = db.execute(
                    "SELECT role, content_json, created_timestamp, metadata_json "
                    "FROM messages WHERE session_id = ? ORDER BY id",
                    (self.ID,),
                ).fetchall()
                db.execute("DELETE FROM messages WHERE session_id = ?", (self.ID,))
                db.executemany(
                    "INSERT INTO messages (session_id, role, content_json, "
                    "created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)",
                    [(self.ID, *row) for row in rows],
                )
        db.close()

    def revert(self, count: int) -> None:
        """An edit: the messages from the `count`th last on deleted (by their time)."""
        with self._db() as db:
            times = db.execute(
                "SELECT created_timestamp FROM messages WHERE session_id = ? "
                "ORDER BY id DESC LIMIT ?",
                (self.ID, count),
            ).fetchall()
            if times:
                db.execute(
                    "DELETE FROM messages WHERE session_id = ? AND created_timestamp >= ?",
                    (self.ID, times[-1][0]),
                )
        db.close()

    def compact(self) -> None:
        g = self.g
        with self._db() as db:
            self._bill(db)
            # the history hidden from the model, what the user sees kept
            db.execute("UPDATE messages SET metadata_json = json_set(metadata_json, "
                       "'$.agentVisible', json('false')) WHERE session_id = ?",
                       (self.ID,))  # fmt: skip
            self.clock += 1
            g.add_message(db, self.ID, "user", g.text(f"summary {self.n}"), self.clock,
                          {"userVisible": False, "agentVisible": True})  # fmt: skip
            g.add_call(db, self.ID, self.clock, None, (500, 50, 0, 0), compaction=True)
        db.close()


class _ClineSdk(_Gemini):
    """A Cline SDK session: its manifest, and its messages file written whole again at
    each write (each answer with its `metrics`), as the SDK writes it."""

    ID = "1796199600000_rnd01"

    def __init__(self, home: Path, rng: random.Random) -> None:
        folder = home / ".cline" / "data" / "sessions" / self.ID
        folder.mkdir(parents=True)
        manifest = {"version": 1, "session_id": self.ID, "source": "cli",
                    "started_at": "2026-12-02T08:00:00.000Z", "status": "running",
                    "provider": "anthropic", "model": "claude-sonnet-4-5",
                    "cwd": "/home/alex/code/shop-api", "prompt": "p0"}  # fmt: skip
        (folder / f"{self.ID}.json").write_text(json.dumps(manifest))
        self.path = folder / f"{self.ID}.messages.json"
        self.rng = rng
        self.messages = []
        self.n = 0
        self.turn()

    def _save(self) -> None:
        chat = {"version": 1, "updated_at": "2026-12-02T09:00:00.000Z", "agent": "lead",
                "sessionId": self.ID, "messages": self.messages}  # fmt: skip
        self.path.write_text(json.dumps(chat, indent=2))

    def _message(self, kind: str, **fields: object) -> None:
        self.n += 1
        role = "user" if kind == "user" else "assistant"
        message: dict[str, object] = {"id": f"m{self.n}", "role": role,
                   "content": [{"type": "text", "text": fields["content"]}],
                   "ts": 1796199600000 + 1000 * self.n}  # fmt: skip
        tokens = fields.get("tokens")
        if isinstance(tokens, dict):
            message["metrics"] = {"inputTokens": tokens["input"],
                                  "outputTokens": tokens["output"],
                                  "cacheReadTokens": 0, "cacheWriteTokens": 0}  # fmt: skip
            message["tokens"] = tokens  # `recount`'s handle: the SDK reads no such key
        self.messages.append(message)

    def stream(self, back: int) -> None:
        if len(self.messages) >= back:
            content = self.messages[-back]["content"]
            assert isinstance(content, list)
            content[0]["text"] += " more"
            self._save()

    def recount(self, back: int) -> None:
        if len(self.messages) >= back and "metrics" in self.messages[-back]:
            metrics = self.messages[-back]["metrics"]
            assert isinstance(metrics, dict)
            metrics["outputTokens"] += 1
            self._save()


Make = Callable[[Path, random.Random], "_OpenCode | _Gemini | _Crush | _Goose"]


def _step(app: _OpenCode | _Gemini | _Crush | _Goose, rng: random.Random) -> str:
    if isinstance(app, _OpenCode):  # a tool part ends in place, however far back
        roll = rng.random()
        if roll < 0.08:
            app.call()
            return "a tool call that runs on"
        if roll < 0.18 and app.running:
            count = rng.choice([1, rng.randint(40, 120)])
            app.queue(count)
            return f"{count} prompts sent while a tool runs"
        if roll < 0.36 and app.running:
            message = app.running.pop(rng.randrange(len(app.running)))
            if message not in app.messages:
                return "a reverted tool call"
            back = len(app.messages) - app.messages.index(message)
            step = rng.random() < 0.5
            app.finish(message, step)
            ended = ", its step ended" if step else ""
            return f"a tool call {back} messages back returned{ended}"
    roll = rng.random()
    if roll < 0.35:
        app.turn()
        return "a turn"
    if roll < 0.6:
        app.stream(1)
        return "the last answer streamed"
    if roll < 0.7:
        back = rng.randint(2, 4)
        if isinstance(app, _Crush | _Goose) or rng.random() < 0.5:
            app.stream(back)
            return f"the message {back} from the end rewritten"
        app.recount(back)
        return f"the usage of the message {back} from the end rewritten"
    if roll < 0.8:
        count = rng.randint(1, 4)
        app.revert(count)
        return f"{count} messages reverted"
    if roll < 0.9:
        count = rng.randint(40, 200)  # more than the first window's rows
        if not isinstance(app, _OpenCode):
            app.add_many(count)
        else:
            for _ in range(count):
                app.turn()
        return f"{count} turns in one poll"
    if not isinstance(app, _Gemini):
        app.compact()
        return "a compaction"
    return "nothing"


def _opencode(home: Path, rng: random.Random) -> tuple[_OpenCode, str]:
    app = _OpenCode(home, rng)
    for _ in range(rng.randint(0, 150)):
        app.turn()
    return app, BASIC


def _gemini(home: Path, rng: random.Random) -> tuple[_Gemini, str]:
    app = _Gemini(home, rng)
    app.add_many(rng.randint(0, 150))
    return app, _Gemini.ID[:8]


def _crush(home: Path, rng: random.Random) -> tuple[_Crush, str]:
    app = _Crush(home, rng)
    app.add_many(rng.randint(0, 150))
    return app, _Crush.ID[:8]


def _goose(home: Path, rng: random.Random) -> tuple[_Goose, str]:
    app = _Goose(home, rng)
    app.add_many(rng.randint(0, 150))
    return app, _Goose.ID


def _cline(home: Path, rng: random.Random) -> tuple[_ClineSdk, str]:
    app = _ClineSdk(home, rng)
    app.add_many(rng.randint(0, 150))
    return app, _ClineSdk.ID


@pytest.mark.parametrize("app", ["opencode", "gemini", "crush", "goose", "cline"])
@pytest.mark.parametrize("seed", range(8))
def test_a_followed_stores_tail_reads_draw_what_whole_reads_draw(
    tmp_path: Path, app: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed * 104729 + len(app))
    made, prefix = {
        "opencode": _opencode,
        "gemini": _gemini,
        "crush": _crush,
        "goose": _goose,
        "cline": _cline,
    }[app](tmp_path / "home", rng)
    follows = _Follows(Home.at(tmp_path / "home"), prefix, monkeypatch)
    for step in range(STEPS):
        what = _step(made, rng)
        follows.poll(f"seed {seed}, step {step}: {what}")
        if rng.random() < 0.3:
            follows.poll(f"seed {seed}, step {step}: {what}, read again unchanged")
    # a compaction folding from the first message: each later read whole (seed 5)
    assert follows.tails > 0


def test_a_tool_part_completed_further_back_than_the_last_rows_is_drawn_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenCode writes a tool part again in place once its tool returns: one that ran on
    while more prompts were sent, each written at once, than a later read's last rows
    reach is drawn completed once, as a whole read draws it, by a read of the rows back
    to it, not of the whole session."""
    rng = random.Random(7)
    made = _OpenCode(tmp_path / "home", rng)
    for _ in range(100):
        made.turn()
    follows = _Follows(Home.at(tmp_path / "home"), BASIC, monkeypatch)
    running = made.call()
    follows.poll("a tool call runs on")
    for step in range(3):
        made.queue(25)
        follows.poll(f"25 prompts sent while it runs ({step})")
    made.finish(running)
    made.add("assistant", {"type": "text", "text": "built"}, finish="stop")
    wholes = len(follows.wholes)
    drawn = follows.poll("the tool call returns, 76 messages back")
    assert [e.text for e in drawn if e.kind == "tool_result"] == [
        "built " + running[-6:]
    ]
    assert len(follows.wholes) == wholes + 1  # the whole-read follow's alone
    again = follows.poll("read again unchanged")
    assert not [e for e in again if e.kind == "tool_result"]


def test_a_tool_part_left_running_is_not_read_back_to_once_a_later_prompt_is_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool part still running under a prompt answered after it was left so by an
    OpenCode that stopped (killed mid-call, the session resumed later): a later poll
    reads the session's last 64 messages, not every message back to it."""
    rng = random.Random(11)
    made = _OpenCode(tmp_path / "home", rng)
    made.call()
    for _ in range(100):
        made.turn()
    follows = _Follows(Home.at(tmp_path / "home"), BASIC, monkeypatch)
    asked: list[int] = []
    last_events = reading.last_events

    def counted(*args: Any, **kwargs: Any) -> list[Event] | None:
        asked.append(args[3])  # the rows asked for
        return last_events(*args, **kwargs)

    monkeypatch.setattr(reading, "last_events", counted)
    made.turn()
    follows.poll("a turn, 201 messages after the part left running")
    assert asked == [64]


def test_a_crush_sessions_later_reads_after_a_turn_are_of_its_last_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Crush writes the session row's counters and time again at each response: its one
    summed usage, the session's last event, is no anchor a later read finds; the event
    before it is, and a turn a second after the one before is read from the end."""
    rng = random.Random(3)
    made = _Crush(tmp_path / "home", rng)
    rng.choice = lambda options: max(options)  # type: ignore[method-assign]
    made.add_many(100)
    follows = _Follows(Home.at(tmp_path / "home"), _Crush.ID[:8], monkeypatch)
    for turn in range(3):
        made.turn()
        made.counters()
        wholes = len(follows.wholes)
        follows.poll(f"turn {turn}")
        assert len(follows.wholes) == wholes + 1, turn  # the whole-read follow's alone
