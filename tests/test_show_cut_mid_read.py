"""A transcript its app cut to nothing while sessdex read it (a rewrite, between its
truncate and its write) is said to have been cut short: `show` drew the session's header
and no event, and said nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.fuzzing import copy_home, homes, swap_late

LEAD = "82d9f90c-3f87-46b4-b09c-58027a5e630c"


@pytest.mark.parametrize("json", [False, True])
def test_show_says_a_transcript_was_cut_short_while_it_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, json: bool
) -> None:
    home = tmp_path / "home"
    copy_home(homes()["claude"], home)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    runner = CliRunner()
    at = ["--home", str(home)]
    assert runner.invoke(main, ["list", *at]).exit_code == 0
    path = next(home.rglob(f"{LEAD}.jsonl"))
    whole = runner.invoke(main, ["show", f"claude:{LEAD}", *at])
    assert "cut short" not in whole.output
    mutant = swap_late(path, "emptied mid-read")
    assert mutant.during is not None
    with mutant.during():
        shown = runner.invoke(
            main, ["show", f"claude:{LEAD}", *at, *(["--json"] if json else [])]
        )
    assert shown.exit_code == 0, shown.output
    assert os.path.getsize(path) == 0
    assert f"{path} was cut short while it was read" in shown.stderr
