"""Every command on a terminal: with NO_COLOR set (no-color.org) no colour escape,
bold and dim allowed; on a dumb terminal (TERM=dumb: Emacs' shell) no escape at all.
Progress bars shown from the start, and a pager (`cat`), so that theirs are looked at."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import app_home
from tests.helpers import on_a_terminal

COMMANDS = [
    ["list", "--all"],
    ["show", "fe5e1c67", "--detail", "full"],
    ["tree", "fe5e1c67"],
    ["usage"],
    ["doctor"],
    ["watch", "--duration", "1", "--since", "100y"],
    ["follow", "fe5e1c67", "--duration", "0.5"],
]
# foreground, background or underline colour: 30-39, 40-49, 90-97, 100-107, 38/48/58;...
_COLOUR = re.compile(r"(?:^|;)(?:3\d|4\d|9[0-7]|10[0-7]|[345]8)(?:;|$)")


def _run(args: list[str], tmp_path: Path, **env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    base.update(
        SESSDEX_HOME=str(tmp_path / "own"),  # cold: the index's progress too
        SESSDEX_PROGRESS_AFTER="0",
        PAGER="cat",
        LINES="10",
    )
    home = ["--home", str(app_home("claude"))]
    term = env.pop("TERM", "xterm-256color")
    result, seen = on_a_terminal(
        [*args, *home], {**base, **env}, stdout_too=True, term=term
    )
    assert result.returncode == 0, seen
    return seen


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args[:2]))
def test_no_color_leaves_out_every_colour(args: list[str], tmp_path: Path) -> None:
    seen = _run(args, tmp_path, NO_COLOR="1")
    codes = re.findall(r"\x1b\[([0-9;:]*)m", seen)
    assert [code for code in codes if _COLOUR.search(code)] == [], seen


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args[:2]))
def test_a_dumb_terminal_gets_no_escape(args: list[str], tmp_path: Path) -> None:
    seen = _run(args, tmp_path, TERM="dumb")
    assert "\x1b" not in seen, seen
