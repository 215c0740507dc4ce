"""`--tz` as a new user types it: an IANA name in another case (`europe/paris`, as
`--app CLAUDE` and `--tz utc` are taken), `Local`, or a city alone (`paris`), which is
answered with the zone that names it."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture
def zones_found_in_any_case(tmp_path: Path) -> Iterator[None]:
    """A zone database that finds `europe/paris` as macOS's finds it (its disk ignores
    case): beside Europe/Paris, a link to a folder of the file in lower case, which no
    listing of the database walks."""
    import zoneinfo

    source = next(
        (
            os.path.join(root, "Europe", "Paris")
            for root in zoneinfo.TZPATH
            if os.path.isfile(os.path.join(root, "Europe", "Paris"))
        ),
        None,
    )
    if source is None:  # Windows: the zones come from the tzdata package
        pytest.skip("no zone database on TZPATH to copy Europe/Paris from")
    for folder, name in (("zones/Europe", "Paris"), ("lower/europe", "paris")):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copyfile(source, tmp_path / folder / name)
    (tmp_path / "zones/europe").symlink_to(tmp_path / "lower/europe")
    zoneinfo.reset_tzpath([str(tmp_path / "zones")])
    zoneinfo.ZoneInfo.clear_cache()
    yield
    zoneinfo.reset_tzpath()
    zoneinfo.ZoneInfo.clear_cache()


@pytest.mark.usefixtures("zones_found_in_any_case")
def test_a_zone_found_in_the_case_typed_is_named_as_the_database_spells_it() -> None:
    """macOS found `europe/paris` as typed, and the header said "europe/paris"."""
    code, out, err = _usage("--tz", "europe/paris")
    assert code == 0, err
    assert "days: Europe/Paris" in out
    code, out, err = _usage("--explain", "2026-11-26", "--tz", "europe/paris")
    assert code == 0, err
    assert "times in Europe/Paris" in out


def test_a_zone_spelled_as_the_database_does_is_not_looked_up_in_its_listing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Listing the zone database took some 80-100 ms of every `--tz Europe/Paris`, to
    learn a spelling the name typed already has."""
    import zoneinfo

    listed: list[int] = []

    def listing() -> set[str]:
        listed.append(1)
        return {"Europe/Paris", "UTC"}

    monkeypatch.setattr(zoneinfo, "available_timezones", listing)
    code, out, err = _usage("--tz", "Europe/Paris")
    assert code == 0, err
    assert "days: Europe/Paris" in out
    if not any(
        os.path.isfile(os.path.join(r, "Europe", "Paris")) for r in zoneinfo.TZPATH
    ):
        pytest.skip(
            "no zone database on TZPATH: the zones come from the tzdata package"
        )
    assert listed == []
