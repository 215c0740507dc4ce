"""An empty `list --since 1w` names the age of the newest session and a --since that
reaches it, as an empty `watch` board does: ages round down, so a session 7.5 days old
shows `1w` in every row while `--since 1w` leaves it out."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import settle, write_claude_session


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    when = datetime.now(UTC) - timedelta(days=7, hours=12)
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000d1", "/w/shop",
                         title="a week and a half day old",
                         when=f"{when:%Y-%m-%dT%H:%M:%S}.000Z")  # fmt: skip
    return home


def test_an_empty_list_since_names_the_since_that_reaches_the_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = _home(tmp_path)
    result = CliRunner().invoke(main, ["list", "--since", "1w", "--home", str(home)])
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == (
        "No session matches --since 1w; the newest changed 1w ago: "
        f"'sessdex list --since 2w --home {home}' lists it.\n"
    )
    shown = CliRunner().invoke(main, ["list", "--since", "2w", "--home", str(home)])
    assert "a week and a half day old" in shown.stdout


def test_the_quick_path_says_the_same(tmp_path: Path) -> None:
    state = tmp_path / "state"
    home = _home(tmp_path)
    env = {**os.environ, "SESSDEX_HOME": str(state)}
    run = [sys.executable, "-m", "sessdex", "list", "--home", str(home)]
    settle(home)
    subprocess.run(run, env=env, capture_output=True, check=True)  # the index, warm
    settle(home)
    done = subprocess.run(
        [*run, "--since", "1w"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr == (
        "No session matches --since 1w; the newest changed 1w ago: "
        f"'sessdex list --since 2w --home {home}' lists it.\n"
    )


def test_the_quick_paths_hint_loads_nothing_of_watch(tmp_path: Path) -> None:
    """Its age and reach are worked out without `views.board`, which takes in `live`
    and the database code (some 40 modules) to say one line of an empty warm `list`."""
    state = tmp_path / "state"
    home = _home(tmp_path)
    env = {**os.environ, "SESSDEX_HOME": str(state)}
    args = ["list", "--home", str(home)]
    settle(home)
    subprocess.run([sys.executable, "-m", "sessdex", *args], env=env, check=True,
                   capture_output=True)  # fmt: skip
    settle(home)
    probe = (
        "import sys; from sessdex.launch import main; main(); "
        "sys.stderr.write(' '.join(sorted(m for m in sys.modules if m in "
        "('sessdex.cli', 'sessdex.views.board', 'sessdex.live', 'sessdex.databases'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe, *args, "--since", "1w"],
                          env=env, capture_output=True, text=True)  # fmt: skip
    assert done.stderr == (
        "No session matches --since 1w; the newest changed 1w ago: "
        f"'sessdex list --since 2w --home {home}' lists it.\n"
    )
