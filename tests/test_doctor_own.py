"""`sessdex doctor` on sessdex's own files: where the cache folder is (and, where it cannot
be written, why and where the index went instead), the index's file, size and how many
sessions it holds, and the snapshot folder; `doctor --own` shows that section alone, as
it stands, and `--own --json` as one object. Never what the files hold."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import indexfile, paths
from sessdex.cli import main
from tests.helpers import write_claude_session

SIDS = [f"dddddddd-0000-4000-8000-00000000000{n}" for n in (1, 2)]


def doctor(*args: str) -> tuple[str, str]:
    result = CliRunner().invoke(main, ["doctor", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for sid in SIDS:
        write_claude_session(home, sid, "/w/shop", prompt="a secret prompt")
    return home


def test_doctor_says_how_many_sessions_its_index_holds(
    tmp_path: Path, sessdex_state: Path
) -> None:
    home = _home(tmp_path)
    out, _ = doctor("--home", str(home))
    own = out[out.index("sessdex's own files") :].splitlines()
    assert own[0].endswith(f": {sessdex_state / 'cache'}")
    assert own[1].startswith("  index ") and ", 2 sessions  " in own[1]
    # --own: that section alone, read as it stands (nothing listed again)
    alone, _ = doctor("--own", "--home", str(home))
    assert alone.splitlines() == own
    record = json.loads(doctor("--own", "--json", "--home", str(home))[0])
    index = Path(record["index"])
    assert record == {
        "cache_folder": str(sessdex_state / "cache"),
        "cache_problem": None,
        "index": str(index),
        "index_kept": True,
        "index_bytes": index.stat().st_size + _wal(index),
        "index_sessions": 2,
        "index_subagents": 0,
        "other_indexes": 0,
        "other_builds": 0,
        "other_index_bytes": 0,
        "snapshots_folder": str(sessdex_state / "cache" / "snapshots"),
        "snapshots": 0,
        "snapshot_bytes": 0,
        "passes": 0,
        "pass_bytes": 0,
    }
    assert index.parent == sessdex_state / "cache"
    assert json.loads(doctor("--own", "--nl", "--home", str(home))[0]) == record


def _wal(index: Path) -> int:
    wal = Path(f"{index}-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_doctor_own_builds_nothing(tmp_path: Path, sessdex_state: Path) -> None:
    """Before any listing: no index, so none counted, and none made."""
    home = _home(tmp_path)
    record = json.loads(doctor("--own", "--json", "--home", str(home))[0])
    assert (record["index_bytes"], record["index_sessions"]) == (0, 0)
    assert not Path(record["index"]).exists()


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="no private temporary folder")
def test_an_unwritable_cache_folder_is_named_with_where_the_index_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """doctor named the folder standing in for this run (gone once it ended) as where
    sessdex keeps its files, and nothing said the cache folder could not be written."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cache = blocker / "state" / "cache"
    monkeypatch.setenv("SESSDEX_HOME", str(blocker / "state"))
    monkeypatch.setattr(paths, "_fallback", None)  # a new process
    monkeypatch.setattr(paths, "_private", None)
    monkeypatch.setattr(indexfile, "_kept_said", False, raising=False)
    home = _home(tmp_path)
    out, _ = doctor("--home", str(home))
    own = out[out.index("sessdex's own files") :].splitlines()
    kept = Path(tempfile.gettempdir(), f"sessdex-{os.geteuid()}")
    assert own[0].endswith(f": {cache}")
    assert own[1].startswith("  problem     it cannot be written (Not a directory)")
    assert f"the index is kept in {kept}," in own[1]
    assert own[2].startswith("  index ") and own[2].endswith(".sqlite")
    assert f"  {kept}/index-" in own[2] and ", 2 sessions  " in own[2]
    record = json.loads(doctor("--own", "--json", "--home", str(home))[0])
    assert record["cache_folder"] == str(cache)
    assert record["cache_problem"] == "Not a directory"
    assert record["index_kept"] is True and Path(record["index"]).parent == kept
    assert record["index_sessions"] == 2
    assert "secret" not in out + json.dumps(record)
