"""`--tz` as a new user types it: an IANA name in another case (`europe/paris`, as
`--app CLAUDE` and `--tz utc` are taken), `Local`, or a city alone (`paris`), which is
answered with the zone that names it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def _usage(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main, ["usage", *args, "--home", DEMO], catch_exceptions=False
    )
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("typed", ["europe/paris", "EUROPE/PARIS"])
def test_a_zone_in_another_case_is_that_zone(typed: str) -> None:
    code, out, err = _usage("--tz", typed)
    assert code == 0, err
    assert "days: Europe/Paris" in out
    _, exact, _ = _usage("--tz", "Europe/Paris", "--json")
    code, given, _ = _usage("--tz", typed, "--json")
    assert code == 0 and json.loads(given) == json.loads(exact)


def test_local_in_another_case_is_this_machines_zone() -> None:
    code, out, err = _usage("--tz", "Local")
    assert code == 0, err
    assert "days: local time" in out


@pytest.mark.parametrize(
    ("typed", "meant"), [("paris", "Europe/Paris"), ("new york", "America/New_York")]
)
def test_a_city_alone_is_answered_with_its_zone(typed: str, meant: str) -> None:
    code, out, err = _usage("--tz", typed)
    assert code == 2 and out == ""
    assert f"unknown time zone {typed!r} (did you mean {meant!r}?)" in err
