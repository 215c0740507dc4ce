"""A side file sessdex may not open (a Roo task's history_item.json) is said with its app's
name in front, as every other reading problem is (`roo: could not open …`), by `show`,
`usage` and `tree` as by `list`, on the full and the warm (quick) path alike: `show` and
`usage` said `warning: could not open <path> (permission denied)`, with no app."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import quick
from sessdex.cli import main
from tests.conftest import app_home
from tests.helpers import refuse_opening

TASK = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
ITEM = (
    ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/"
    f"{TASK}/history_item.json"
)


@pytest.mark.parametrize(
    "command",
    [
        ["show", f"roo:{TASK[:8]}"],
        ["show", f"roo:{TASK[:8]}", "--verbose"],
        ["tree", f"roo:{TASK[:8]}"],
        ["usage", "--app", "roo"],
        ["usage", "--app", "roo", "--verbose"],
        ["list", "--app", "roo"],
        ["list", "--app", "roo", "--verbose"],
    ],
)
def test_a_refused_side_file_is_said_with_its_app_in_front(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    home = tmp_path / "home"
    shutil.copytree(app_home("roo"), home)
    name = str(home / ITEM)
    refuse_opening(monkeypatch, name)  # as the kernel refuses another user
    said = []
    for _ in range(2):  # cold (the index built), then warm
        result = CliRunner().invoke(
            main, [*command, "--home", str(home)], catch_exceptions=False
        )
        assert result.exit_code == 0, result.stderr
        said += [x for x in result.stderr.splitlines() if "could not open" in x]
    if command[:1] == ["list"] and "--verbose" not in command:  # the quick path too
        capsysbinary.readouterr()
        assert quick.answer(command[0], [*command[1:], "--home", str(home)])
        err = capsysbinary.readouterr().err.decode()
        said += [line for line in err.splitlines() if "could not open" in line]
    assert said
    for line in said:
        assert line.startswith(("warning: roo: could not open ", "  roo: ")), line


@pytest.mark.parametrize(
    "command",
    [
        ["follow", f"roo:{TASK[:8]}", "--duration", "0.3"],
        ["watch", "--app", "roo", "--since", "2026-01-01", "--duration", "0.5", "--nl"],
    ],
)
def test_follow_and_watch_say_a_refused_side_file_not_an_unreadable_line(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They said `warning: skipped 1 unreadable line` of a whole file they were only not
    let open, sending the user to `doctor --deep` for a broken line."""
    home = tmp_path / "home"
    shutil.copytree(app_home("roo"), home)
    name = str(home / ITEM)
    opener = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) == name:  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)
    result = CliRunner().invoke(
        main, [*command, "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    assert f"warning: roo: could not open {name} (permission denied)\n" in result.stderr
    assert "unreadable" not in result.stderr


@pytest.mark.parametrize("verbose", [[], ["--verbose"]])
def test_usage_counts_a_side_file_two_sessions_read_once(
    verbose: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Roo task's history_item.json, read with the task and with the one that started
    it, was "could not open 2 files" (the path named twice under --verbose)."""
    home = tmp_path / "home"
    shutil.copytree(app_home("roo"), home)
    name = str(home / ITEM)
    opener = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) == name:  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)
    result = CliRunner().invoke(
        main, ["usage", "--app", "roo", *verbose, "--home", str(home)]
    )
    assert result.exit_code == 0, result.stderr
    assert f"warning: roo: could not open {name} (permission denied)\n" in result.stderr
    assert result.stderr.count(name) == 1, result.stderr
    assert "unreadable" not in result.stderr
