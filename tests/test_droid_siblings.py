"""`doctor --deep` and `usage` on a Factory Droid folder of many sessions: each session's
read looked at the first line of every other transcript beside it for its sub-agents, so
the reads of a folder grew as their count squared (1,600 sessions did not end in 5 minutes)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.sources import droid

FOLDER = Path(__file__).parent / "data" / "droid" / "home" / ".factory" / "sessions" / "-tmp"  # fmt: skip
MANY = 40


def _first_lines_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> tuple[str, list[Path]]:
    """The output of `args` on a home of MANY more copies of a Droid session beside the
    fixture's, listed first, and the transcripts whose first line that command read."""
    home = tmp_path / "home"
    folder = home / ".factory" / "sessions" / "-tmp"
    shutil.copytree(FOLDER, folder)
    data = (folder / "droid_s1.jsonl").read_bytes()
    for n in range(MANY):
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
    result = runner.invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.output, heads


def test_a_folder_of_droid_sessions_is_looked_through_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output, heads = _first_lines_read(
        tmp_path, monkeypatch, ["doctor", "--deep", "--app", "droid"]
    )
    assert f"{MANY + 2} sessions" in output
    # each transcript's first line once for the folder, and once for its own read
    assert len(heads) < 4 * (MANY + 2), f"{len(heads)} first lines read"


def test_usage_looks_through_a_folder_of_droid_sessions_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`usage` reads every session for its sums, each read looking at the others' first
    lines: 1,600 sessions in one folder took 92.6 s of CPU (200: 1.55 s)."""
    _, heads = _first_lines_read(
        tmp_path, monkeypatch, ["usage", "session", "--json", "--app", "droid"]
    )
    assert len(heads) < 4 * (MANY + 2), f"{len(heads)} first lines read"
