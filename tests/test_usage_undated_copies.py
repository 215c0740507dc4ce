"""A response dated in the future or before 1970 that a resumed session copied into its
own file is counted once under (no time), and the warning says so: it counted the
copy too, and the negative row that takes the copy back out again."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

FIRST = "aaaaaaaa-0000-4000-8000-000000000001"
RESUMED = "bbbbbbbb-0000-4000-8000-000000000002"
THIRD = "cccccccc-0000-4000-8000-000000000003"


def test_a_copied_response_dated_2099_is_one_response_in_the_warning(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    # the same response (its message and request ids) in three files, as a session
    # resumed twice keeps its predecessor's messages, all from a clock set to 2099
    for session in (FIRST, RESUMED, THIRD):
        write_claude_session(home, session, "/w/shop", when="2099-01-01T10:00:00.000Z")
    runner = CliRunner()
    env = {"SESSDEX_HOME": str(tmp_path / "state")}
    args = ["usage", "--json", "--verbose", "--home", str(home)]
    result = runner.invoke(main, args, env=env)
    assert result.exit_code == 0, result.output
    days = {row["key"]: row for row in orjson.loads(result.stdout)}
    assert days["(no time)"]["responses"] == 1
    assert (
        "warning: 1 response dated in the future or before 1970 is counted under "
        "(no time):\n" in result.stderr
    ), result.stderr
    # the session whose response is counted is named, and once
    assert result.stderr.count(" dated in the future\n") == 1, result.stderr
