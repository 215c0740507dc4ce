"""The captions under a `usage` table (the `*` note on costs an app recorded, the days'
zone) at the width the table fits: a terminal 60 columns wide, or `$COLUMNS` into a
pipe, got the `*` note as one 150-character line, which the terminal broke mid-word
("no price for the mo" / "del"). It is wrapped at its words now, each line within the
width and without trailing spaces; into a pipe with no width given it stays whole."""

from __future__ import annotations

import os
import re

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home
from tests.helpers import on_a_terminal

HOME = str(app_home("crush"))  # Crush records costs its model has no price for
NOTE = (
    "* includes costs the apps recorded themselves ($3.26 in all): where the price "
    "list has no price for the model, or the app's tokens are too rough to price"
)


def _captions(out: str) -> list[str]:
    """The lines after the table's bottom border."""
    lines = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out).replace("\r", "").splitlines()
    bottom = max(n for n, line in enumerate(lines) if line.startswith("└"))
    return lines[bottom + 1 :]


def test_a_caption_wraps_at_its_words_on_a_narrow_terminal() -> None:
    result, seen = on_a_terminal(
        ["usage", "--home", HOME], dict(os.environ), stdout_too=True, columns=60
    )
    assert result.returncode == 0
    captions = _captions(seen)
    assert all(len(line) <= 60 and line == line.rstrip() for line in captions)
    assert " ".join(captions[:3]) == NOTE
    assert captions[3:] == ["days: UTC (--tz sets another)", "prices: genai-prices 0.2.5"]  # fmt: skip


def test_a_pipe_gets_the_width_columns_says_else_the_caption_whole() -> None:
    narrow = CliRunner().invoke(main, ["usage", "--home", HOME], env={"COLUMNS": "60"})
    captions = _captions(narrow.stdout)
    assert max(map(len, captions)) <= 60 and " ".join(captions[:3]) == NOTE
    whole = CliRunner().invoke(main, ["usage", "--home", HOME], env={"COLUMNS": ""})
    assert _captions(whole.stdout)[0] == NOTE
