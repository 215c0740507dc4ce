"""Each command's help fits the terminal it is read on: its prose is wrapped to the
width (only a command line, which a wrap would break, may be longer)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sessdex.cli import main


@pytest.mark.parametrize("name", [None, *sorted(main.commands)])
def test_help_fits_the_terminal(name: str | None) -> None:
    args = ["--help"] if name is None else [name, "--help"]
    for columns in (60, 80):
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", *args],
            env={**os.environ, "COLUMNS": str(columns)},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=True,
        )
        over = [
            line
            for line in done.stdout.decode().splitlines()
            if len(line) > columns
            and not line.startswith("Usage:")
            and not line.lstrip().startswith(("sessdex ", "Example: sessdex "))
        ]
        assert not over, (columns, over)


@pytest.mark.parametrize("name", [None, *sorted(main.commands)])
def test_help_reads_on_an_ascii_terminal(name: str | None) -> None:
    """click writes its help as UTF-8 even to an ASCII terminal (`LC_ALL=C`), where a
    character past ASCII shows as bytes of nonsense: the help keeps to ASCII."""
    args = ["--help"] if name is None else [name, "--help"]
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=True,
    )
    done.stdout.decode("ascii")


@pytest.mark.parametrize("name", [None, *sorted(main.commands)])
def test_help_holds_no_control_character(name: str | None) -> None:
    """A docstring's `\\b` (click's mark for a paragraph kept as written) given twice
    reached the terminal as a backspace on a line of its own in `list --help`."""
    from click.testing import CliRunner

    args = ["--help"] if name is None else [name, "--help"]
    shown = CliRunner().invoke(main, args, prog_name="sessdex").stdout
    assert [line for line in shown.splitlines() if not line.isprintable()] == []
    assert "\n\n\n" not in shown
