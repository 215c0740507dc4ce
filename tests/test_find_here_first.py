"""`find` run in a project folder: that folder's matches first, then the others."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main
from sessdex.sources import Home

from .helpers import write_claude_session
from .test_quick import settled

SHOP = "51515151-0000-4000-8000-000000000001"  # the oldest, in the shop
NEWER = "52525252-0000-4000-8000-000000000002"  # elsewhere, newer
NEWEST = "53535353-0000-4000-8000-000000000003"  # elsewhere, newest
BELOW = "54545454-0000-4000-8000-000000000004"  # below the shop, older than NEWER


@pytest.fixture
def projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of login sessions in three folders, and the user in `shop`."""
    home = tmp_path / "home"
    shop, blog = tmp_path / "code" / "shop", tmp_path / "code" / "blog"
    (shop / "api").mkdir(parents=True)
    blog.mkdir()
    for session, folder, day in (
        (SHOP, shop, "10"),
        (BELOW, shop / "api", "11"),
        (NEWER, blog, "12"),
        (NEWEST, blog, "13"),
    ):
        when = f"2026-11-{day}T10:00:00.000Z"
        write_claude_session(home, session, str(folder), title="fix login", when=when)
    monkeypatch.chdir(shop)
    monkeypatch.setenv("PWD", str(shop))
    return settled(home)


def found(home: Path, *args: str) -> list[str]:
    result = CliRunner().invoke(
        main, ["find", *args, "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return [row["id"] for row in json.loads(result.stdout)]


def test_the_folder_you_are_in_comes_first(projects: Path) -> None:
    """Four sessions match alike: the shop's two (the shop's own and one below it)
    before the newer ones elsewhere, each group newest first; --limit takes the first."""
    assert found(projects, "login", "--json") == [BELOW, SHOP, NEWEST, NEWER]
    assert found(projects, "login", "--json", "--limit", "1") == [BELOW]
    # an id prefix still ranks first, wherever its session ran
    assert found(projects, "5353", "--json") == [NEWEST]
    # `list` stays newest first
    listed = CliRunner().invoke(main, ["list", "--json", "--home", str(projects)])
    assert [r["id"] for r in json.loads(listed.stdout)] == [NEWEST, NEWER, BELOW, SHOP]


def test_the_warm_quick_path_ranks_alike(
    projects: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    expected = found(projects, "login", "--json")
    assert expected == [BELOW, SHOP, NEWEST, NEWER]
    args = ["login", "--json", "--home", str(projects)]
    capsysbinary.readouterr()
    assert quick.answer("find", args)
    assert [r["id"] for r in json.loads(capsysbinary.readouterr().out)] == expected


def test_in_the_home_folder_or_through_the_library_newest_first(
    projects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The home holds every project: nothing is put first there. The library ranks by
    a folder only when given one (`near=`)."""
    home = Path(os.path.expanduser("~"))
    monkeypatch.chdir(home)
    monkeypatch.setenv("PWD", str(home))
    assert found(projects, "login", "--json") == [NEWEST, NEWER, BELOW, SHOP]
    plain = api.find_sessions(Home.at(projects), "login").sessions()
    assert [s.id for s in plain] == [NEWEST, NEWER, BELOW, SHOP]
    shop = str(projects.parent / "code" / "shop")
    near = api.find_sessions(Home.at(projects), "login", near=shop).sessions()
    assert [s.id for s in near] == [BELOW, SHOP, NEWEST, NEWER]
