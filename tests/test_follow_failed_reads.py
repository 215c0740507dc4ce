"""`follow` when a read fails for a moment (an I/O error, a file briefly not a file): the
read is made again at the next look, the follow going on, and said once. A store's
failed read waited for the store to change again (a finished sub-agent never drawn); an
error from one sub-agent's read ended the whole follow."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import api, sources, transcripts
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.sources import Home
from tests.test_show_document_tail import SESSION as GEMINI_SESSION
from tests.test_show_document_tail import _chat

FAILING_FOR = 0.5  # seconds every open of the file fails, from the first that does


def _failing_once(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[float]:
    """Every open of `path` fails (EIO) for FAILING_FOR seconds from the first one
    after the returned list is given a start; the times it failed at."""
    real = os.open
    failed: list[float] = []
    armed: list[float] = []

    def opening(name: object, *args: object, **kwargs: object) -> int:
        if armed and os.fspath(name) == str(path):  # type: ignore[call-overload]
            now = time.monotonic()
            if not failed or now - failed[0] < FAILING_FOR:
                failed.append(now)
                raise OSError(errno.EIO, "Input/output error", str(path))
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", opening)
    return armed


def test_a_stores_failed_read_is_made_again_at_the_next_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _chat(tmp_path, 6)
    armed = _failing_once(monkeypatch, path)
    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(tmp_path), GEMINI_SESSION[:8], duration=6, notify=False,
        diagnostics=diagnostics,
    )  # fmt: skip
    next(batches)
    chat = json.loads(path.read_text())
    chat["messages"].append(
        {"id": "late", "timestamp": "2025-11-02T12:00:00.000Z", "type": "user",
         "content": "written once, then never again"}
    )  # fmt: skip
    path.write_text(json.dumps(chat, indent=2))
    # the next read of it fails, and nothing changes the store after it
    armed.append(time.monotonic())
    drawn = [e.text for batch in batches for e in batch]
    assert any("stopped reading" in p for p in diagnostics.problems), diagnostics
    assert "written once, then never again" in drawn


OPENCLAW = Path(__file__).parent / "data" / "openclaw" / "home"
LEAD = "a717db17-7bed-408a-8491-a2bb0b190f46"
CHILD = "a07e2dd2-a3a4-4616-b863-2f9e2b97b6e0"


def _openclaw_answer(text: str) -> bytes:
    message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    line = {"type": "message", "id": "16000009", "parentId": "16000008",
            "timestamp": "2026-12-01T09:30:00.000Z", "message": message}  # fmt: skip
    return json.dumps(line).encode() + b"\n"


def test_a_sub_agents_read_that_raises_leaves_the_follow_going(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    api.list_sessions(Home.at(home))  # the index lists the sub-agent under its lead
    source = sources.get("openclaw")
    read = source.read

    def broken(session: Session, *args: object, **kwargs: object) -> Iterator[Event]:
        # a reader's bug on a record only the sub-agent holds: no read of it gets far
        if session.id == CHILD:
            raise RuntimeError("a record the reader cannot handle")
        yield from read(session, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(source, "read", broken)
    wrote = False

    def stop() -> bool:
        nonlocal wrote
        if not wrote:
            with lead.open("ab") as stream:
                stream.write(_openclaw_answer("the lead goes on"))
            wrote = True
        return False

    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=2, notify=False, stop=stop,
        diagnostics=diagnostics,
    )  # fmt: skip
    drawn = [e.text for batch in batches for e in batch]
    assert "the lead goes on" in drawn
    said = [p for p in diagnostics.problems if "stopped following" in p]
    assert len(said) == 1 and CHILD in said[0], diagnostics.problems


class _StatFailsOnce:
    """`os` as transcripts sees it, whose first stat of `path` fails (EIO): the lead's
    own file met an I/O error as follow read it for the sub-agents it holds."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.failed = 0

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    def stat(self, name: object, *args: object, **kwargs: object) -> os.stat_result:
        if os.fspath(name) == self.path and not self.failed:  # type: ignore[call-overload]
            self.failed += 1
            raise OSError(errno.EIO, "Input/output error", self.path)
        return os.stat(name, *args, **kwargs)  # type: ignore[call-overload,no-any-return]


def test_a_leads_failed_read_at_the_start_is_said_and_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    api.list_sessions(Home.at(home))  # the index lists the sub-agent under its lead
    failing = _StatFailsOnce(lead)
    monkeypatch.setattr(transcripts, "os", failing)
    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=4, notify=False, diagnostics=diagnostics
    )
    drawn = [(e.agent_id, e.text) for batch in batches for e in batch if e.text]
    assert failing.failed == 1
    assert (CHILD, "prune.sh keeps the last 90 days.") in drawn
    said = [p for p in diagnostics.problems if "could not read" in p]
    assert len(said) == 1 and "input/output error" in said[0], diagnostics.problems


@pytest.mark.parametrize("app", ["kimi", "crush"])
def test_a_pipe_in_a_context_files_place_is_never_waited_on(
    tmp_path: Path, app: str
) -> None:
    # kimi.json, Crush's projects.json: a refresh as follow starts reads it for its
    # meaning (`context_digest`) when it changed; a pipe there would wait for a writer
    path = tmp_path / "context.json"
    os.mkfifo(path)
    hook = sources.get(app).context_digest  # type: ignore[attr-defined]

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("the digest waited on a pipe")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(5)
    try:
        assert hook(str(path)) is None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_sub_agents_file_briefly_a_pipe_is_never_waited_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    child = home / ".openclaw" / "agents" / "coder" / "sessions" / f"{CHILD}.jsonl"
    api.list_sessions(Home.at(home))  # the index lists the sub-agent under its lead
    kept = child.read_bytes()
    step = 0

    def stop() -> bool:
        # a pipe in the file's place for a poll or more, then the file, grown
        nonlocal step
        step += 1
        if step == 1:
            child.unlink()
            os.mkfifo(child)
        elif step == 12:
            child.unlink()
            child.write_bytes(kept + _openclaw_answer("back as a file"))
        return False

    diagnostics = Diagnostics()
    began = time.monotonic()
    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=5, notify=False, stop=stop,
        diagnostics=diagnostics,
    )  # fmt: skip
    drawn = [(e.agent_id, e.text) for batch in batches for e in batch if e.text]
    assert time.monotonic() - began < 10
    assert (CHILD, "back as a file") in drawn
    said = [p for p in diagnostics.problems if "not a regular file" in p]
    assert len(said) == 1 and CHILD in said[0], diagnostics.problems


def test_what_a_read_gave_before_it_failed_is_drawn_by_the_read_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a session read by its source's own read (a folder, a shared log: no whole store's
    # re-reads around it) whose read breaks after the first of two new messages
    from sessdex import reading

    path = _chat(tmp_path, 6)
    monkeypatch.setattr(reading, "whole_store", lambda path: None)
    source = sources.get("gemini")
    read = source.read
    armed: list[bool] = []

    def breaking(session: Session, *args: object, **kwargs: object) -> Iterator[Event]:
        for event in read(session, *args, **kwargs):  # type: ignore[arg-type]
            yield event
            if armed and event.text == "the first written":
                armed.clear()  # once: the read made again reads on
                raise OSError(errno.EIO, "Input/output error", str(path))

    monkeypatch.setattr(source, "read", breaking)
    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(tmp_path), GEMINI_SESSION[:8], duration=6, notify=False,
        diagnostics=diagnostics,
    )  # fmt: skip
    next(batches)
    chat = json.loads(path.read_text())
    for n, text in enumerate(("the first written", "the second written")):
        chat["messages"].append(
            {"id": f"late{n}", "timestamp": f"2025-11-02T12:00:0{n}.000Z",
             "type": "user", "content": text}
        )  # fmt: skip
    armed.append(True)
    path.write_text(json.dumps(chat, indent=2))
    drawn = [e.text for batch in batches for e in batch]
    assert any("stopped reading" in p for p in diagnostics.problems), diagnostics
    assert drawn.count("the second written") == 1, drawn
    assert drawn.count("the first written") == 1, drawn


def test_a_store_whose_read_says_a_sub_agent_missing_is_not_read_again_unwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a sub-agent's transcript deleted for good is what the store holds, not a read
    # that failed: nothing written, nothing to read again (each a whole read of it)
    _chat(tmp_path, 6)
    source = sources.get("gemini")
    read = source.read
    reads: list[float] = []

    def missing(
        session: Session, diagnostics: Diagnostics, *args: object, **kwargs: object
    ) -> Iterator[Event]:
        reads.append(time.monotonic())
        diagnostics.child_missing("gemini", "a-sub-agent-cleaned-up")
        yield from read(session, diagnostics, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(source, "read", missing)
    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(tmp_path), GEMINI_SESSION[:8], duration=7, notify=False,
        diagnostics=diagnostics,
    )  # fmt: skip
    for _ in batches:
        pass
    assert any("transcript not found" in p for p in diagnostics.problems)
    assert len(reads) == 1, reads
