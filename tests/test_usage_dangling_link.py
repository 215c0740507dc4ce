"""A broken link where an app keeps its only store (`opencode.db -> gone`) or a
session's file hides that app's usage: `usage` names the link and where it leads, in its
warning and its empty report's line, as `list` does, and so is the app's whole folder as
one (`~/.claude -> gone`). Before, the empty report said only "No token usage found",
and a Claude or Codex file's or folder's link was not said at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize(
    "link",
    [
        ".local/share/opencode/opencode.db",
        ".claude/projects/-home-dev-shop/5a5a5a5a.jsonl",
        ".claude",  # the app's whole folder
        ".codex",
    ],
)
def test_a_broken_link_that_hides_an_apps_usage_is_named(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    link: str,
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / link).parent.mkdir(parents=True)
    (home / link).symlink_to("gone")
    said = f"{home / link} is a link to 'gone', which does not exist"

    for _ in ("cold", "warm"):
        counted = CliRunner().invoke(main, ["usage", "--home", str(home)])
        assert counted.exit_code == 0, counted.output
        warning, empty = counted.stderr.strip().splitlines()
        assert said in warning
        assert empty.startswith("No token usage found")
        assert said in empty
    # the fast path a status bar takes (`quickusage`) says it as the full command does
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "usage", "--home", str(home)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    warning, empty = done.stderr.strip().splitlines()
    assert said in warning
    assert said in empty


@pytest.mark.parametrize(
    ("link", "said"),
    [
        (".local/share/opencode/opencode.db", "opencode: {link} is a link"),
        (".config", "{link} is a link"),  # a folder of many apps'
    ],
)
def test_usage_says_a_broken_links_usage_is_not_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str, said: str
) -> None:
    """`usage` counts, it lists nothing: an app read through the index (OpenCode's
    store) warned that its sessions 'are not listed'."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / link).parent.mkdir(parents=True)
    (home / link).symlink_to("gone")

    counted = CliRunner().invoke(main, ["usage", "--home", str(home)])
    assert counted.exit_code == 0, counted.output
    warnings = [x for x in counted.stderr.splitlines() if x.startswith("warning")]
    assert len(warnings) == 1, counted.stderr
    assert warnings[0].startswith("warning: " + said.format(link=home / link))
    assert warnings[0].endswith(" not counted"), warnings[0]
    assert "not listed" not in counted.stderr


def test_usage_names_the_apps_a_shared_folders_link_hides_as_list_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """~/.config linked to a gone disk hides Claude Code's XDG folder too: `usage`'s
    one warning names claude with the others, as `list`'s does (before, claude was
    left out of it: its own listing looked above `~/.claude` alone)."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    home.mkdir()
    (home / ".config").symlink_to("/mnt/gone")

    listed = CliRunner().invoke(main, ["list", "--home", str(home)])
    assert "claude" in listed.stderr.splitlines()[0]
    for _ in ("cold", "warm"):
        counted = CliRunner().invoke(main, ["usage", "--home", str(home)])
        assert counted.exit_code == 0, counted.output
        warnings = [x for x in counted.stderr.splitlines() if x.startswith("warning")]
        assert len(warnings) == 1, counted.stderr
        said = f"warning: {home / '.config'} is a link to '/mnt/gone'"
        assert warnings[0].startswith(said), warnings[0]
        assert "claude" in warnings[0] and "cline" in warnings[0], warnings[0]
        assert warnings[0].endswith(" is not counted"), warnings[0]
