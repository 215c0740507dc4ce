"""Many Mistral Vibe `/branch` forks of one legacy session, and one more folder naming
that session whose messages are not written yet. Each fork's listing depended on every
folder naming its session, two notes each (N forks: N x 2N notes, each a stat of a warm
list): past ~250 of them a parse's notes were full and the later folders dropped, so a
warm `list` missed the folder that then continued the session (compacted), and every
fork kept naming the older one. Now it depends on the folders that may still change
what it names alone: those that continued the session, and those with no first line yet."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex import index, sources
from sessdex.cli import main
from sessdex.sources import Home

SAVED = Path(__file__).parent / "data" / "vibe" / "home" / ".vibe" / "logs" / "session"
OLDER = "session_20261201_100000_3f1c2a9e"  # the session forked
OLDER_ID = "3f1c2a9e-0b1d-4e2f-a3b4-5d6e7f8a9b0c"
FORK = "session_20261201_103000_9e8d7c6b"  # a fork of it (its first line a prompt)
NEWER = "session_20261201_101005_7a8b9c0d"  # a compaction of it (the summary first)
LATE_ID = "ffffffff-1e2f-4a3b-8c4d-5d6e7f8a9b0c"
LATE = f"session_20261201_120000_{LATE_ID[:8]}"  # sorts after every fork


def _forks(save: Path, forks: int) -> None:
    save.mkdir(parents=True)
    shutil.copytree(SAVED / OLDER, save / OLDER)
    for number in range(forks):
        session_id = f"{number:08x}-5a4f-4e3d-9c2b-5d6e7f8a9b0c"
        folder = save / f"session_20261201_11{number:04d}_{session_id[:8]}"
        shutil.copytree(SAVED / FORK, folder)
        meta = json.loads((folder / "meta.json").read_text())
        (folder / "meta.json").write_text(
            json.dumps({**meta, "session_id": session_id})
        )
    # the folder a compaction starts: its meta.json first, its messages not yet
    (save / LATE).mkdir()
    meta = json.loads((SAVED / NEWER / "meta.json").read_text())
    (save / LATE / "meta.json").write_text(json.dumps({**meta, "session_id": LATE_ID}))


def _named(home: Path, state: Path) -> list[str]:
    """What a `list` names each fork's source, from the index kept in `state`."""
    argv = ["list", "--json", "--all", "--app", "vibe", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    rows = orjson.loads(result.stdout)
    return sorted(str(row["forked_from"]) for row in rows if row.get("forked_from"))


def test_a_warm_list_sees_the_session_continued_past_300_forks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    save = home / ".vibe" / "logs" / "session"
    _forks(save, 300)
    # the new folder, which opens with no summary yet, is listed as one more fork
    assert _named(home, tmp_path / "warm") == [OLDER_ID] * 301
    # the compaction writes its first line, the summary: the session goes on there
    shutil.copy(SAVED / NEWER / "messages.jsonl", save / LATE / "messages.jsonl")
    cold = _named(home, tmp_path / "cold")
    assert cold == [LATE_ID] * 300
    assert _named(home, tmp_path / "warm") == cold


def _notes(home: Path, state: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many files beside the one parsed the index notes for a warm list to stat."""
    monkeypatch.setenv("SESSDEX_HOME", str(state))
    held = index.Index(Home.at(home))
    try:
        assert held.refresh([sources.get("vibe")]).parsed > 0
        return int(held.db.execute("SELECT count(*) FROM depends").fetchone()[0])
    finally:
        held.close()


def test_each_fork_depends_on_a_few_folders_not_on_every_other_fork(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = []
    for forks in (16, 64):
        home = tmp_path / f"home{forks}"
        _forks(home / ".vibe" / "logs" / "session", forks)
        counts.append(_notes(home, tmp_path / f"state{forks}", monkeypatch))
    few, many = counts
    # each fork noted every other fork's two files: 64 forks, 15 times 16's notes
    assert many <= 5 * few, (few, many)  # now 4 times
