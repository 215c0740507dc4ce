"""Goose takes `GOOSE_PATH_ROOT` only when it is an absolute path, else its default folders
(`Paths::validated_path_root` in aaif-goose/goose crates/goose/src/config/paths.rs:
`PathBuf::from(value)` kept if `is_absolute()`); it expands no `~`. So `GOOSE_PATH_ROOT=~/x`
leaves Goose's sessions where they always are, and sessdex looks there too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sessdex.sources import Home, goose
from tests.sources.test_goose import HOME, LEGACY, MAIN, SUB, sessions

DEFAULT = Path(".local/share/goose/sessions")


@pytest.mark.parametrize("value", ["~/x", "~", "~/"])
def test_a_root_from_the_home_sign_is_ignored_as_goose_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    (home / "x" / "data" / "sessions").mkdir(parents=True)  # what `~/x` would name
    monkeypatch.setenv("HOME", str(home))
    environ = {"GOOSE_PATH_ROOT": value}
    unset = sorted(sessions(home, environ={}))
    assert {MAIN, SUB, LEGACY} <= set(unset)
    assert sorted(sessions(home, environ=environ)) == unset
    location = goose.locate(Home(home, environ))
    assert location.root == home / DEFAULT
    assert "GOOSE_PATH_ROOT" not in (location.override or "")


def test_doctor_says_a_root_was_left_aside(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    run = CliRunner(env={"HOME": str(home), "GOOSE_PATH_ROOT": "~/x"})
    result = run.invoke(main, ["doctor", "--app", "goose"])
    assert result.exit_code == 0, result.output
    assert f"looked in   {home / DEFAULT}" in result.stdout
    assert "GOOSE_PATH_ROOT=~/x" in result.stdout
    assert "absolute" in result.stdout
    unset = CliRunner(env={"HOME": str(home)}).invoke(
        main, ["doctor", "--app", "goose"]
    )
    assert "GOOSE_PATH_ROOT" not in unset.stdout
