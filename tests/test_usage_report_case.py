"""`sessdex usage Session` is the session report, as `--app CLAUDE` is claude's and
`--tz utc` is UTC: it said "'Session' is no usage report. Did you mean …'session'?"."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize("quick", [True, False])
def test_a_report_named_in_another_case_is_that_report(quick: bool) -> None:
    args = ["usage", "Session", "--json", "--home", DEMO]
    if quick:  # the real command, whose `usage` answers without click
        done = subprocess.run(
            [sys.executable, "-c", "from sessdex.launch import main; main()", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        code, out, err = result.exit_code, result.stdout, result.stderr
    assert code == 0, err
    assert '"key":"3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90"' in out
