"""`watch --nl` whose first board is empty: no line on stdout, and, typed at a terminal,
how far it looked on stderr, as `watch --json` and `watch --once` say it; a script's log
(stderr no terminal) gets nothing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import live, main


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("once", [["--once"], ["--duration", "0"]])
def test_an_empty_watch_nl_says_how_far_it_looked_at_a_terminal_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, once: list[str]
) -> None:
    home = shutil.copytree(api.demo_home().path, tmp_path / "home", symlinks=True)
    for folder, _, names in os.walk(home):
        for name in names:
            os.utime(os.path.join(folder, name), (1.6e9, 1.6e9))  # 2020
    args = ("watch", "--nl", *once, "--since", "1h", "--home", str(home))
    assert _run(*args) == (0, "", "")
    monkeypatch.setattr(live, "stderr_is_terminal", lambda: True, raising=False)
    code, out, err = _run(*args)
    assert (code, out) == (0, "")
    assert err.startswith("No session changed in the last 1h; the newest changed "), err
    assert _run(*args, "-n", "0") == (0, "", "")  # none asked for: no hint
