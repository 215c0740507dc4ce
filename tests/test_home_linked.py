"""A home reached through a link (`/home/alex` -> `/data/alex`, macOS's `/var` ->
`/private/var`, a network home): the apps record the real path (`getcwd` resolves
links), and the user types and reads folders from `~`. Such a folder is shown from `~`,
and found by `~/code/shop`, `dir:~/code/shop`, or the path spelled through the link."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import quick
from sessdex.cli import main

from .helpers import write_claude_session

SESSION = "5e55a0a0-0000-4000-8000-000000000003"


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    real = tmp_path / "realhome-x9"
    write_claude_session(real, SESSION, f"{real}/code/shop", prompt="Fix the cart")
    link = tmp_path / "link"
    link.symlink_to(real)
    return link


def words(link: Path) -> list[list[str]]:
    return [
        ["~/code/shop"],
        ["dir:~/code/shop"],
        [f"{link}/code/shop"],
        [f"dir:{link}/code/shop/"],
        [f"{os.path.realpath(link)}/code/shop"],  # the real path still finds it
        ["cart", "dir:~/code"],
    ]


def test_the_folder_is_shown_from_home(linked: Path, run: CliRunner) -> None:
    result = run.invoke(main, ["list", "--home", str(linked)])
    assert result.exit_code == 0, result.output
    assert "~/code/shop" in result.stdout
    assert "realhome-x9" not in result.stdout


@pytest.mark.parametrize("index", range(6))
def test_a_folder_from_home_finds_the_session(
    linked: Path, run: CliRunner, index: int
) -> None:
    query = words(linked)[index]
    result = run.invoke(main, ["find", "--home", str(linked), "--json", *query])
    assert result.exit_code == 0, result.output
    assert SESSION in result.stdout, query


def test_the_real_home_s_name_finds_no_session(linked: Path, run: CliRunner) -> None:
    # as the home's own name does not: it would find every session
    result = run.invoke(main, ["find", "--home", str(linked), "--json", "realhome-x9"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "[]"


def test_the_quick_path_agrees(
    linked: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    for folder, _, _ in os.walk(
        linked.resolve()
    ):  # one changed just now is not trusted
        os.utime(folder, (1_767_225_600, 1_767_225_600))
    subprocess.run(  # builds the index: what follows is answered from it
        [sys.executable, "-m", "sessdex", "list", "--home", str(linked)],
        capture_output=True,
        check=True,
    )
    monkeypatch.setenv("COLUMNS", "200")
    capsysbinary.readouterr()
    assert quick.answer("list", ["--home", str(linked)])
    assert b"~/code/shop" in capsysbinary.readouterr().out
    for query in words(linked):
        assert quick.answer("find", ["--home", str(linked), *query]), query
        assert SESSION[:8].encode() in capsysbinary.readouterr().out, query
