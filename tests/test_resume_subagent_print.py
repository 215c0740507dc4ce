"""`sessdex resume SUB-AGENT --print` names the line that resumes its lead: that line
keeps `--print`, so pasted it prints the lead's command too. It dropped it, and the line
pasted ran the app's CLI, where only a line to read was asked for."""

from __future__ import annotations

import shlex

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

HOME = str(app_home("claude"))
SUB = "a199d630441234c05"
LEAD = "claude:82d9f90c-3f87-46b4-b09c-58027a5e630c"


def _named(*args: str) -> list[str]:
    result = CliRunner().invoke(main, [*args, "--home", HOME])
    assert (result.exit_code, result.stdout) == (1, "")
    line = result.stderr.split("resume the session that started it: '", 1)[1]
    return shlex.split(line.split("'.", 1)[0])


def test_print_keeps_print_in_the_leads_line() -> None:
    words = _named("resume", SUB, "--print")
    assert words == ["sessdex", "resume", LEAD, "--print", "--home", HOME]
    result = CliRunner().invoke(main, words[1:])
    assert result.stdout.startswith("cd /home/alex/code/shop-api && claude --resume ")


def test_resume_itself_names_the_line_that_resumes() -> None:
    assert _named("resume", SUB) == ["sessdex", "resume", LEAD, "--home", HOME]
