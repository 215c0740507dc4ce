"""Many Mistral Vibe `/branch` forks of one legacy session: the listing of each fork
looks at every folder that names the same session (one of them may have continued it,
compacted), and read each of their meta.json heads again: N forks, N times N reads. Each
is now read once while it looks the same, and every fork still names its source."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import orjson
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import opened_files

SAVED = Path(__file__).parent / "data" / "vibe" / "home" / ".vibe" / "logs" / "session"
OLDER = "session_20261201_100000_3f1c2a9e"  # the session forked
OLDER_ID = "3f1c2a9e-0b1d-4e2f-a3b4-5d6e7f8a9b0c"
FORK = "session_20261201_103000_9e8d7c6b"  # a fork of it (its first line a prompt)


def _reads(home: Path, forks: int) -> Counter[str]:
    """How many times a cold `list` opened each meta.json, the forks checked."""
    save = home / ".vibe" / "logs" / "session"
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
    argv = ["list", "--json", "--all", "--app", "vibe", "--home", str(home)]
    with opened_files() as opened:
        result = CliRunner().invoke(
            main, argv, env={"SESSDEX_HOME": str(home.parent / f"state{forks}")}
        )
    assert result.exit_code == 0, result.output
    rows = orjson.loads(result.stdout)
    named = [row["forked_from"] for row in rows if row.get("forked_from")]
    assert named == [OLDER_ID] * forks
    inside = save.resolve()
    return Counter(
        Path(path).parent.name
        for path in opened
        if Path(path).name == "meta.json" and Path(path).parent.parent == inside
    )


def test_many_forks_of_one_session_read_each_meta_json_a_few_times(
    tmp_path: Path,
) -> None:
    few, many = _reads(tmp_path / "few", 4), _reads(tmp_path / "many", 16)
    first = "session_20261201_110000_00000000"
    # each fork's meta.json was opened once more for every fork (18 times with 16)
    assert many[first] == few[first] <= 3, (few[first], many[first])
