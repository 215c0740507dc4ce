"""A cold refresh of many files: each file's source looked up, not imported again,
however many files."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home


def test_a_cold_refresh_imports_no_source_again_for_each_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source already loaded is looked up: a cold list of 300 files asked
    `importlib.import_module` for its source 4 times a file (10 us each), 1,200 in all."""
    folder = tmp_path / ".claude/projects/-home-u-code-many"
    folder.mkdir(parents=True)
    for n in range(300):
        session = f"{n:08x}-0000-4000-8000-{n:012x}"
        line = {"type": "user", "sessionId": session, "uuid": f"u{n}",
                "cwd": "/home/u/code/many", "timestamp": "2026-11-30T08:10:07Z",
                "message": {"role": "user", "content": f"prompt {n}"}}  # fmt: skip
        (folder / f"{session}.jsonl").write_text(json.dumps(line) + "\n")
    monkeypatch.setenv("SESSDEX_DEBUG", "1")  # parsed in this process, where it is seen
    imported: list[str] = []
    real = importlib.import_module

    def counted(name: str, package: str | None = None) -> object:
        imported.append(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", counted)
    listed = api.list_sessions(Home.at(tmp_path))
    assert len(listed.rows) == 300
    assert len(imported) < 50, sorted(set(imported))
