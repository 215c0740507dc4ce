"""A Mistral Vibe legacy chain (a session compacted into a new folder, then again) one of
whose folders' messages.jsonl cannot be read (another user's, empty or cut inside its
first line): whether that folder opened with the compaction's summary is unknown. Its
running totals, carried over from the folder before, were billed again (that folder
counted twice), or, refused, the read stopped there and the chain's newer folders
counted nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import refuse_opening

HOME = Path(__file__).parent / "data" / "vibe" / "home"
SESSIONS = Path(".vibe") / "logs" / "session"
FIRST = "session_20261201_100000_3f1c2a9e"  # 10,000 prompt (6,000 cached), 800 out
RESUMED = "session_20261201_101005_7a8b9c0d"  # its compaction: 16,000 (9,500), 1,300
AGAIN = "session_20261201_102010_5c6d7e8f"  # compacted again: 20,000 (12,000), 1,500
IDS = ("3f1c2a9e", "7a8b9c0d", "5c6d7e8f")
KINDS = ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")


def _home(tmp_path: Path) -> Path:
    """The fixture home with the chain's second folder compacted once more."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    meta = json.loads((home / SESSIONS / RESUMED / "meta.json").read_text())
    meta["parent_session_id"] = meta["session_id"]
    meta["session_id"] = "5c6d7e8f-0d1e-4f2a-8b3c-5d6e7f8a9b0c"
    meta["start_time"], meta["end_time"] = (
        "2026-12-01T10:20:10+00:00",
        "2026-12-01T10:25:00+00:00",
    )
    meta["stats"].update(
        session_prompt_tokens=20_000,
        session_completion_tokens=1_500,
        session_cached_tokens=12_000,
    )
    folder = home / SESSIONS / AGAIN
    folder.mkdir()
    (folder / "meta.json").write_text(json.dumps(meta))
    summary = {"role": "user", "content": "Summary: retries.", "injected": True}
    prompt = {"role": "user", "content": "Now log them", "injected": False}
    lines = [json.dumps(summary), json.dumps(prompt)]
    (folder / "messages.jsonl").write_text("\n".join(lines) + "\n")
    return home


def _tokens(home: Path, state: Path) -> tuple[int, dict[str, int]]:
    """(every counted kind of the chain's rows, summed; each row's), read cold."""
    args = ["usage", "session", "--json", "--app", "vibe", "--home", str(home)]
    result = CliRunner().invoke(main, args, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    rows = {
        row["key"]: sum(row[k] for k in KINDS)
        for row in json.loads(result.stdout)
        if row["key"].startswith(IDS)
    }
    return sum(rows.values()), rows


@pytest.mark.parametrize("damage", ["empty", "cut"])
@pytest.mark.parametrize("folder", [AGAIN, RESUMED, FIRST])
def test_a_folder_whose_opening_is_lost_is_billed_once(
    tmp_path: Path, folder: str, damage: str
) -> None:
    home = _home(tmp_path)
    assert _tokens(home, tmp_path / "whole")[0] == 21_500
    messages = home / SESSIONS / folder / "messages.jsonl"
    messages.write_bytes(b"" if damage == "empty" else messages.read_bytes()[:40])
    assert _tokens(home, tmp_path / "damaged")[0] == 21_500  # 32,300: billed twice


@pytest.mark.parametrize("folder", [AGAIN, RESUMED, FIRST])
def test_a_folder_that_may_not_be_read_is_billed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str
) -> None:
    home = _home(tmp_path)
    refuse_opening(monkeypatch, str(home / SESSIONS / folder / "messages.jsonl"))
    total, rows = _tokens(home, tmp_path / "state")
    # the newest folder's own share counted (10,800 or nothing: the read stopped)
    assert total == 21_500, rows
