"""`doctor --deep` reads every session of a folder in turn; a read that looks through
its folder for a thread's other files (Codex: its parent, its older files) looked at
the whole folder again for each one, the cost growing as the count squared."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import folders
from sessdex.cli import main

DAY = Path(__file__).parent / "data" / "codex" / "home" / ".codex" / "sessions" / "2026" / "11" / "30"  # fmt: skip
THREAD = "01a22b81-666a-7993-963b-4b7cc4e806e9"


def test_a_day_of_codex_threads_is_listed_once_for_all_their_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = tmp_path / "home" / ".codex" / "sessions" / "2026" / "11" / "30"
    shutil.copytree(DAY, day)
    [rollout] = day.glob(f"*{THREAD}.jsonl")
    data = rollout.read_bytes()
    many = 60
    for n in range(many):  # copies under new ids, as a busy day or a swarm leaves
        new = f"{THREAD[:-5]}{n:05d}"
        (day / rollout.name.replace(THREAD, new)).write_bytes(
            data.replace(THREAD.encode(), new.encode())
        )
    home = str(tmp_path / "home")
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--all", "--json", "--home", home])
    assert listed.exit_code == 0, listed.output
    real = folders._listing
    looked: list[str] = []

    def counted(directory: str | Path, root: Path | None) -> list[os.DirEntry[str]]:
        if os.fspath(directory) == os.fspath(day):
            looked.append(os.fspath(directory))
        return real(directory, root)

    monkeypatch.setattr(folders, "_listing", counted)
    deep = runner.invoke(main, ["doctor", "--deep", "--app", "codex", "--home", home])
    assert deep.exit_code == 0, deep.output
    assert "codex" in deep.output
    # a few looks in all (the refresh, the reads), not one or more for each thread
    assert len(looked) < many // 2, f"{len(looked)} listings of the day's folder"
