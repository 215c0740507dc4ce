"""`QWEN_RUNTIME_DIR` as Qwen Code resolves it (`Storage.resolveRuntimeBaseDir` in
QwenLM/qwen-code packages/core/src/config/storage.ts): `~`, `~/…` and `~\\…` are below
the home, on every OS (the rest split at `/` and `\\` alike); an absolute path is taken as
it is; any other value is resolved against the folder the qwen process started in, which
sessdex cannot know (each qwen run in another project writes to another folder). Such a
value is left aside, as a relative `advanced.runtimeOutputDir` already is, and `doctor`
says so: looking below sessdex's own working folder would show one project's sessions or
another's depending on where sessdex runs, all in one index (its key is the variable as
written)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, qwen
from tests.sources.test_qwen import HOME


def _found(home: Path, value: str) -> set[str]:
    location = qwen.locate(Home(home, {"QWEN_RUNTIME_DIR": value}))
    return {
        session.id
        for path in qwen.scan(location)
        for session in qwen.parse(path, location, Diagnostics())
    }


@pytest.mark.parametrize("value", ["~\\runtime", "~/runtime", "~\\\\runtime\\", "~"])
def test_a_value_from_the_home_sign_is_below_the_home(
    tmp_path: Path, value: str
) -> None:
    home = tmp_path / "home"
    below = home if value == "~" else home / "runtime"
    shutil.copytree(HOME / ".qwen", below, dirs_exist_ok=True)
    expected = _found(HOME, str(HOME / ".qwen"))
    assert expected and _found(home, value) == expected
    location = qwen.locate(Home(home, {"QWEN_RUNTIME_DIR": value}))
    assert location.root == below


def test_a_relative_value_is_left_aside_and_doctor_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    here = tmp_path / "project"
    shutil.copytree(HOME / ".qwen", here / "runtime")  # what qwen run here would use
    monkeypatch.chdir(here)
    location = qwen.locate(Home(home, {"QWEN_RUNTIME_DIR": "runtime"}))
    assert location.root == home / ".qwen"  # where qwen keeps them without it
    run = CliRunner(env={"HOME": str(home), "QWEN_RUNTIME_DIR": "runtime"})
    result = run.invoke(main, ["doctor", "--app", "qwen"])
    assert result.exit_code == 0, result.output
    assert f"looked in   {home / '.qwen'}" in result.stdout
    assert "QWEN_RUNTIME_DIR=runtime" in result.stdout
    assert "relative" in result.stdout


def test_the_setting_takes_the_home_sign_with_a_backslash_too(tmp_path: Path) -> None:
    """`advanced.runtimeOutputDir` goes through the same resolution (with the project
    folder for a relative one, which is left aside as before)."""
    import json

    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    settings = {"advanced": {"runtimeOutputDir": "~\\runtime"}}
    (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
    assert qwen.locate(Home(home, {})).root == home / "runtime"


@pytest.mark.parametrize("value", ["~\\qh", "~/qh"])
def test_qwen_home_from_the_home_sign_is_below_the_home(
    tmp_path: Path, value: str
) -> None:
    """`QWEN_HOME` goes through the same resolution (`Storage.getGlobalQwenDir`)."""
    home = tmp_path / "home"
    shutil.copytree(HOME / ".qwen", home / "qh")
    location = qwen.locate(Home(home, {"QWEN_HOME": value}))
    assert location.root == home / "qh"
    found = {
        s.id
        for p in qwen.scan(location)
        for s in qwen.parse(p, location, Diagnostics())
    }
    assert found and found == _found(HOME, str(HOME / ".qwen"))


def test_a_relative_qwen_home_is_left_aside_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    shutil.copytree(HOME / ".qwen", tmp_path / "project" / "qh")
    monkeypatch.chdir(tmp_path / "project")
    location = qwen.locate(Home(home, {"QWEN_HOME": "qh"}))
    assert location.root == home / ".qwen"
    assert any("QWEN_HOME=qh" in note for note in location.notes)
