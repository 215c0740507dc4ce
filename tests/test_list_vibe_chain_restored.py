"""A Mistral Vibe folder whose compacted predecessor's folder comes later (restored from
a backup, copied or synced newest first) lists its chain as one session warm, as a cold
list does: the warm list kept the newer folder's parse, which had not found its parent,
and listed the restored older folder as a session of its own beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA
from tests.helpers import settle

SAVES = DATA / "vibe" / "home" / ".vibe" / "logs" / "session"
OLDER, NEWER = "session_20261201_100000_3f1c2a9e", "session_20261201_101005_7a8b9c0d"


def _ids(home: Path, state: Path) -> list[str]:
    argv = ["list", "--app", "vibe", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    return [line.split()[1] for line in result.stdout.splitlines()]


def test_an_older_folder_restored_after_its_successor_joins_its_chain(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    saves = home / ".vibe" / "logs" / "session"
    shutil.copytree(SAVES / NEWER, saves / NEWER)
    settle(home)
    assert _ids(home, tmp_path / "state") == ["7a8b9c0d"]
    shutil.copytree(SAVES / OLDER, saves / OLDER)
    settle(home)
    cold = _ids(home, tmp_path / "cold")
    assert cold == ["7a8b9c0d"]  # the older folder is the chain's start
    assert _ids(home, tmp_path / "state") == cold
