"""`sessdex` typed alone, a new user's first try, shows the help on stdout (to page or
pipe) and exits 0, as `sessdex --help` does: it is no usage error."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from sessdex.cli import main


def test_sessdex_alone_prints_the_help_and_exits_0() -> None:
    # click 8.2+ wrote it to stderr and exited 2: `sessdex | less` showed nothing
    alone = CliRunner().invoke(main, [])
    helped = CliRunner().invoke(main, ["--help"])
    assert (alone.exit_code, alone.stderr) == (0, "")
    assert alone.stdout == helped.stdout
    assert "Commands:" in alone.stdout and "sessdex list --limit 20" in alone.stdout


def test_sessdex_alone_run_as_a_program_too() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex"], capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: ") and "Commands:" in done.stdout
