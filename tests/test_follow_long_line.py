"""`follow` over a transcript with a line longer than a follower holds (a pasted 10 MB
prompt): the line is read through and the events after it are shown. Reading such a
line asked the follower's stream whether it could seek, which it could not say: follow
stopped with an AttributeError."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

SESSION = "hhhhhhhh-0000-4000-8000-0000000000b2"


def test_follow_reads_past_a_line_longer_than_it_holds(tmp_path: Path) -> None:
    write_claude_session(tmp_path, SESSION, "/w/long", prompt="x" * (10 * 1024 * 1024))
    argv = ["follow", SESSION, "-n", "5", "--nl", "--duration", "0"]
    result = CliRunner().invoke(main, [*argv, "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    kinds = [json.loads(line)["kind"] for line in result.stdout.splitlines()]
    assert "assistant" in kinds
