"""A cold `usage` (and `list`) over many small files: what `usage` asks the index does
not grow with the files (each file's stored keys are read in one pass over the index, not
one query a file), an empty file is opened once, and a response a second file repeats is
still counted once."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from sessdex import usage
from sessdex.sources import Home

PROJECT = "/home/u/code/many"


def answer(session: str, message: str) -> str:
    return json.dumps({
        "cwd": PROJECT, "sessionId": session, "type": "assistant", "uuid": f"{message}-a",
        "parentUuid": None, "timestamp": "2026-11-30T10:00:00.000Z", "requestId": f"r{message}",
        "message": {
            "id": message, "role": "assistant", "model": "claude-sonnet-4-5",
            "type": "message", "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": 100, "output_tokens": 10},
        },
    })  # fmt: skip


def many(tmp_path: Path, files: int) -> Home:
    """`files` transcripts: every third empty, the rest one response each, the first two
    holding the same response (a copy a fork made)."""
    folder = tmp_path / f"h{files}/.claude/projects" / PROJECT.replace("/", "-")
    folder.mkdir(parents=True)
    for n in range(files):
        session = f"{n:08x}-0000-4000-8000-{n:012x}"
        message = "msg_shared" if n < 2 else f"msg_{n}"
        text = "" if n % 3 == 2 else answer(session, message) + "\n"
        (folder / f"{session}.jsonl").write_text(text)
    return Home.at(tmp_path / f"h{files}")


@pytest.fixture
def selects(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every SELECT run on a connection opened while the test runs."""
    seen: list[str] = []
    opened = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = opened(*args, **kwargs)  # type: ignore[arg-type]
        db.set_trace_callback(
            lambda sql: seen.append(sql) if sql.lstrip().startswith("SELECT") else None
        )
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    yield seen


def test_a_cold_usage_asks_the_index_as_much_for_300_files_as_for_30(
    tmp_path: Path, selects: list[str]
) -> None:
    counts = []
    for files in (30, 300):
        selects.clear()
        collected = usage.collect(many(tmp_path, files), ["claude"])
        counts.append(len(selects))
        responses = sum(b[11] for _, b in collected.buckets)
        # one response per non-empty file, the one the first two share counted once
        assert responses == len([n for n in range(files) if n % 3 != 2]) - 1
    assert counts[1] <= counts[0] + 5, counts


def test_a_cold_usage_opens_an_empty_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sessdex import files

    opened: list[str] = []
    plain = files.open_regular

    def counted(path: str | os.PathLike[str], buffering: int = -1) -> BinaryIO:
        opened.append(os.fspath(path))
        return plain(path, buffering)

    monkeypatch.setattr(files, "open_regular", counted)
    home = many(tmp_path, 9)
    usage.collect(home, ["claude"])
    empty = [
        p for p in map(str, home.path.rglob("*.jsonl")) if not Path(p).stat().st_size
    ]
    assert len(empty) == 3
    assert {p: opened.count(p) for p in empty} == dict.fromkeys(empty, 1)


def test_a_cold_list_opens_an_empty_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from sessdex import files
    from sessdex.cli import main

    opened: list[str] = []
    plain = files.open_regular

    def counted(path: str | os.PathLike[str], buffering: int = -1) -> BinaryIO:
        opened.append(os.fspath(path))
        return plain(path, buffering)

    monkeypatch.setattr(files, "open_regular", counted)
    home = many(tmp_path, 9)
    args = ["list", "--json", "--home", str(home.path)]
    listed = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).stdout)
    assert len(listed) == 6  # the files that hold a session
    empty = [
        p for p in map(str, home.path.rglob("*.jsonl")) if not Path(p).stat().st_size
    ]
    assert {p: opened.count(p) for p in empty} == dict.fromkeys(empty, 1)
