"""`--since 0mo` (a span of nothing) was taken as now: `watch` said "No session changed
in the last 0 mo", `list` "No session matches --since 0mo". A zero span is refused where
--since or --until is taken, as a time it cannot read is, naming what to type."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import cli_over

HOME = Path(__file__).parent / "data" / "claude" / "home"


@pytest.mark.parametrize(
    "args",
    [
        ["watch", "--since", "0mo", "--duration", "0"],
        ["list", "--since", "0d"],
        ["find", "x", "--since", "00h"],
        ["usage", "--since", "0 weeks"],
        ["list", "--until", "0min"],
    ],
)
def test_a_zero_span_is_refused(args: list[str]) -> None:
    result = cli_over(HOME, *args)
    value = args[args.index("--since" if "--since" in args else "--until") + 1]
    assert result.exit_code == 2, result.output
    assert f"'{value}' is no time at all" in result.stderr, result.stderr
    assert "in the last 0" not in result.output


def test_a_zero_capital_m_is_not_told_to_write_a_zero_span() -> None:
    said = cli_over(HOME, "list", "--since", "0M").stderr
    # it said "Write 0min or 0mo.", each then refused
    assert "minutes or months? Write 1min or 1mo." in said, said
