"""The session id an export's header names (`- **session**: …` in Markdown, the page's
facts in HTML) is one to paste into `sessdex show`: quoted for the user's shell, as
`show`'s own header names it. It was printed bare: pasted, a `$(…)` a file gave the id
ran, and the id reached sessdex changed."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

ID = "7e57 $(touch pwned)`touch pwned2`'q\"$$!x"


def _export(tmp_path: Path, fmt: str) -> str:
    home = tmp_path / "home"
    write_claude_session(home, ID, "/w/a", title="T")
    result = CliRunner(env={"SESSDEX_SHELL": "bash"}).invoke(
        main, ["export", "-f", fmt, "7e57", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def _header_id(fmt: str, page: str) -> str:
    """The session id as the header shows it, out of its Markdown code span or HTML."""
    if fmt == "md":
        found = re.search(r"^- \*\*session\*\*: (`+) ?(.*?) ?\1$", page, re.MULTILINE)
        assert found, page
        return found[2]
    found = re.search(r'<div class="facts">(.*?)</div>', page)
    assert found, page
    return html.unescape(found[1]).split(" · ")[1]


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_header_names_the_id_as_the_shell_takes_it(
    fmt: str, tmp_path: Path
) -> None:
    shown = _header_id(fmt, _export(tmp_path, fmt))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    pasted = subprocess.run(
        ["bash", "-c", f"printf '%s' {shown}"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=False,
    )
    assert pasted.stdout == ID, shown
    assert list(scratch.iterdir()) == [], shown  # nothing of the id ran
