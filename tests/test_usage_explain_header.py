"""`usage project --explain` names its row as the table does (`row ~/code/shop-api: …`)
however the folder was given; it said the full path (`row /home/me/code/shop-api: …`)
even when given `~/code/shop-api`. `--json` keeps the full path as the row's key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_claude_session(
        home,
        "c0b1ed00-0000-4000-8000-000000000001",
        str(home / "code" / "shop-api"),
        title="work on the shop",
        when="2026-11-20T10:00:00.000Z",
    )
    return home


def _usage(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["usage", *args, "--home", str(home)])
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("given", ["~/code/shop-api", "{home}/code/shop-api"])
def test_the_explain_header_names_the_folder_as_the_table_does(
    home: Path, given: str
) -> None:
    table = _usage(home, "project")
    assert "~/code/shop-api" in table
    out = _usage(home, "project", "--explain", given.format(home=home))
    assert out.splitlines()[0].startswith("row ~/code/shop-api: 1 response")
    assert str(home) not in out.splitlines()[0]
    data = json.loads(
        _usage(home, "project", "--explain", given.format(home=home), "--json")
    )
    assert data["row"]["key"] == str(home / "code" / "shop-api")


def test_a_folder_outside_the_home_keeps_its_full_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(
        home,
        "c0b1ed00-0000-4000-8000-000000000002",
        "/srv/build",
        title="outside",
        when="2026-11-20T10:00:00.000Z",
    )
    out = _usage(home, "project", "--explain", "/srv/build")
    assert out.splitlines()[0].startswith("row /srv/build: ")
