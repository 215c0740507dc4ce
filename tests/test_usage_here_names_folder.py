"""`usage --here` that counts nothing names the folder it looked in, as `list --here`
does: the folder the shell is in may not be the one meant."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def test_usage_here_that_counts_nothing_names_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    listed = CliRunner().invoke(main, ["list", "--here", "--home", DEMO])
    assert f"--here (in {str(tmp_path)!r})" in listed.stderr
    result = CliRunner().invoke(main, ["usage", "--here", "--home", DEMO])
    assert f"No token usage matches --here (in {str(tmp_path)!r})" in result.stderr
