"""`usage project` shows a folder under the home as `list` does (`~/code/shop`), and
`--explain` takes that form, the full path, a relative path and a shell-expanded `~`;
the JSON keys stay full paths."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for n, name in enumerate(("shop-api", "docs-site")):
        path = write_claude_session(
            home,
            f"c0b1ed00-0000-4000-8000-00000000000{n}",
            str(home / "code" / name),
            title=f"work on {name}",
            when="2026-11-20T10:00:00.000Z",
        )
        # a response of its own: one the other file repeats is counted once
        text = path.read_text().replace("msg_1", f"msg_{n}").replace("req_1", f"r{n}")
        path.write_text(text)
    return home


def test_the_project_table_shows_folders_as_list_does(home: Path) -> None:
    code, listed, _ = _run("list", "--home", str(home))
    assert code == 0 and "~/code/shop-api" in listed
    code, out, err = _run("usage", "project", "--home", str(home))
    assert code == 0, err
    assert "~/code/shop-api" in out and "~/code/docs-site" in out
    assert str(home) not in out
    # the JSON keeps the full paths
    code, out, err = _run("usage", "project", "--json", "--home", str(home))
    keys = {row["key"] for row in json.loads(out)}
    assert keys == {str(home / "code" / "shop-api"), str(home / "code" / "docs-site")}


def _explained(home: Path, key: str) -> str:
    code, out, err = _run("usage", "project", "--explain", key, "--home", str(home))
    assert code == 0, err
    return out.splitlines()[0]


def test_explain_takes_the_folder_as_the_table_shows_it(home: Path) -> None:
    full = str(home / "code" / "shop-api")
    shown = "row ~/code/shop-api: "  # as the table shows it
    assert _explained(home, full).startswith(shown)
    assert _explained(home, "~/code/shop-api").startswith(shown)
    assert _explained(home, "~/code/shop-api/").startswith(shown)
    # the shell made /root/code/shop-api of ~/code/shop-api: --home reads another home
    expanded = os.path.expanduser("~/code/shop-api")
    assert _explained(home, expanded).startswith(shown)


def test_explain_takes_a_path_from_the_current_folder(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / "code" / "docs-site").mkdir(parents=True)
    monkeypatch.chdir(home / "code")
    assert _explained(home, "docs-site").startswith("row ~/code/docs-site: ")
    assert _explained(home, "./docs-site").startswith("row ~/code/docs-site: ")


def test_an_unknown_folder_names_the_rows_as_the_table_shows_them(home: Path) -> None:
    code, out, err = _run(
        "usage", "project", "--explain", "~/code/nope", "--home", str(home)
    )
    assert code == 1 and out == ""
    assert "no project row is keyed '~/code/nope'" in err
    assert "~/code/shop-api" in err and str(home) not in err
