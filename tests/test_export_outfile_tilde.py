"""`export -o '~/notes.md'` (a `~` the shell left, quoted or after `=`) is the file in
the home, as `--home '~/copy'` is that folder: it said the folder '~' does not exist,
"create it first", and a `mkdir '~'` made a folder of that name where sessdex ran."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize("given", ["~/notes.md", "--output=~/notes.md"])
def test_an_output_from_the_home_is_written_there(
    given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = Path(os.environ["HOME"])
    monkeypatch.chdir(tmp_path)
    option = [given] if given.startswith("--") else ["-o", given]
    result = CliRunner().invoke(
        main, ["export", "3f2b", *option, "--home", DEMO], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    assert (user / "notes.md").read_text().startswith("# Retry checkout payments")
    assert f"wrote '{user / 'notes.md'}'" in result.stderr
    assert list(tmp_path.iterdir()) == []  # no folder named '~' where it ran
