"""`doctor --deep` on a Factory Droid folder of many sessions: each session's read looked
at the first line of every other transcript beside it for its sub-agents, so the reads
of a folder grew as their count squared (1,600 sessions did not end in 5 minutes)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.sources import droid

FOLDER = Path(__file__).parent / "data" / "droid" / "home" / ".factory" / "sessions" / "-tmp"  # fmt: skip


def test_a_folder_of_droid_sessions_is_looked_through_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    folder = home / ".factory" / "sessions" / "-tmp"
    shutil.copytree(FOLDER, folder)
    data = (folder / "droid_s1.jsonl").read_bytes()
    many = 40
    for n in range(many):
        new = f"droid_s1_{n:03d}"
        (folder / f"{new}.jsonl").write_bytes(data.replace(b"droid_s1", new.encode()))
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--all", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    real = droid._start_of
    heads: list[Path] = []

    def counted(path: Path) -> dict[str, object]:
        heads.append(path)
        return real(path)

    monkeypatch.setattr(droid, "_start_of", counted)
    args = ["doctor", "--deep", "--app", "droid", "--home", str(home)]
    deep = runner.invoke(main, args)
    assert deep.exit_code == 0, deep.output
    assert f"{many + 2} sessions" in deep.output
    # each transcript's first line once for the folder, and once for its own read
    assert len(heads) < 4 * (many + 2), f"{len(heads)} first lines read"


def test_usage_looks_through_a_folder_of_droid_sessions_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`usage` reads every session for its sums, each read looking at the others' first
    lines: 1,600 sessions in one folder took 92.6 s of CPU (200: 1.55 s)."""
    home = tmp_path / "home"
    folder = home / ".factory" / "sessions" / "-tmp"
    shutil.copytree(FOLDER, folder)
    data = (folder / "droid_s1.jsonl").read_bytes()
    many = 40
    for n in range(many):
        new = f"droid_s1_{n:03d}"
        (folder / f"{new}.jsonl").write_bytes(data.replace(b"droid_s1", new.encode()))
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--all", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    real = droid._start_of
    heads: list[Path] = []

    def counted(path: Path) -> dict[str, object]:
        heads.append(path)
        return real(path)

    monkeypatch.setattr(droid, "_start_of", counted)
    args = ["usage", "session", "--json", "--app", "droid", "--home", str(home)]
    used = runner.invoke(main, args)
    assert used.exit_code == 0, used.output
    assert len(heads) < 4 * (many + 2), f"{len(heads)} first lines read"
