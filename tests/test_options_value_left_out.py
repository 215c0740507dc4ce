"""An option given no value before another option (`list --since --home DIR`): click took
the next option for its value, and said what came after was wrong ("sessdex list takes no
words; 'sessdex find DIR' finds the sessions they name"), or wrote a file named `--home`.
It is said as the same option given no value at the line's end is."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["list", "--since"], "Option '--since' requires an argument."),
        (["list", "-n"], "-n needs a count, e.g. -n 20."),
        (
            ["show", "3f2b", "--detail"],
            "requires an argument: one of full, normal, user.",
        ),
        (["export", "3f2b", "-o"], "Option '-o' requires an argument."),
        (["usage", "--tz"], "--tz"),
        (["watch", "--since"], "Option '--since' requires an argument."),
        (["find", "x", "--until"], "Option '--until' requires an argument."),
    ],
)
def test_an_option_given_no_value_before_another_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [*args, "--home", DEMO])
    assert result.exit_code == 2, result.output
    last = result.stderr.strip().splitlines()[-1]
    assert said in last and "--home" not in last, result.stderr
    assert (
        "Usage: " in result.stderr
    )  # the command's usage line above, as click gives it
    assert list(tmp_path.iterdir()) == []  # no file named --home


def test_export_writes_no_file_named_after_the_next_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", "3f2b", "--home", DEMO, "-o", "-v"])
    assert result.exit_code == 2, result.output
    assert list(tmp_path.iterdir()) == []


def test_a_value_that_only_looks_like_an_option_is_still_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words after `--` are words, whatever they look like."""
    result = CliRunner().invoke(main, ["find", "--home", DEMO, "--", "--since"])
    assert result.exit_code == 0, result.output
    assert "requires an argument" not in result.stderr
