"""The library as a developer embedding it meets it: the values the CLI's options refuse
are refused as BadValue here too, rather than quietly read as something else."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sessdex import api
from sessdex.errors import BadValue
from sessdex.sources import Home


@pytest.mark.parametrize(
    "call",
    [
        lambda home: api.list_sessions(home, limit=-1),  # every session, unlimited
        lambda home: api.find_sessions(home, "", limit=-1),
        lambda home: api.list_sessions(home, limit=float("nan")),  # sqlite3 error
        lambda home: api.watch_sessions(home, limit=-1, duration=0),
        lambda home: api.usage_report(
            home, "session", explain="019a", explain_limit=-1
        ),  # read as 0: nothing listed
    ],
    ids=["list", "find", "list-nan", "watch", "usage-explain"],
)
def test_a_limit_the_command_line_refuses_is_a_bad_value(
    call: Callable[[Home], object],
) -> None:
    """`--limit -1` is a usage error; `limit=-1` listed every session (SQLite's LIMIT
    -1 is no limit), and a nan limit raised sqlite3's "datatype mismatch"."""
    with pytest.raises(BadValue, match="limit must be a number at least 0"):
        call(api.demo_home())


def test_a_limit_of_zero_or_more_still_lists() -> None:
    home = api.demo_home()
    assert api.list_sessions(home, limit=0).rows == []
    assert len(api.list_sessions(home, limit=1).rows) == 1
    assert len(api.find_sessions(home, "", limit=2).rows) == 2


def test_a_reader_that_fails_logs_its_traceback_for_a_developer(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A reader's failure costs a program the rest of a transcript and leaves only a line
    in `diagnostics.problems` ('SESSDEX_DEBUG=1 shows where', which raises instead): the
    traceback goes to the `sessdex` logger at DEBUG, where a program's logging can show
    it, and nothing is printed by default."""
    from sessdex.sources import claude

    real_read = claude.read

    def breaks_after_two(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        for seq, event in enumerate(real_read(*args, **kwargs)):  # type: ignore[arg-type]
            if seq == 2:
                raise TypeError("unhashable type: 'dict'")
            yield event

    monkeypatch.setattr(claude, "read", breaks_after_two)
    home = api.demo_home()
    read = api.transcript(home, "3f2b")
    with caplog.at_level("DEBUG", logger="sessdex"):
        assert [event.seq for event in read.events] == [0, 1]
    assert any("stopped reading" in problem for problem in read.diagnostics.problems)
    traced = [r for r in caplog.records if r.exc_info and r.name.startswith("sessdex")]
    assert traced and traced[0].levelname == "DEBUG"
    assert isinstance(traced[0].exc_info[1], TypeError)  # type: ignore[index]
    assert "breaks_after_two" in caplog.text  # the frames, to see where
    caplog.clear()
    list(api.transcript(home, "3f2b").events)  # logging left unconfigured: quiet
    assert capsys.readouterr() == ("", "")


def test_an_app_that_cannot_be_listed_logs_its_traceback_for_a_developer(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """One app's failure leaves the others listed and its message in the listing's
    `report.failures`: its traceback goes to the `sessdex` logger at DEBUG."""
    from sessdex.sources import codex

    def broken(location):  # type: ignore[no-untyped-def]
        raise KeyError("rollouts")
        yield

    monkeypatch.setattr(codex, "scan", broken)
    with caplog.at_level("DEBUG", logger="sessdex"):
        listing = api.list_sessions(api.demo_home())
    assert {s.app for s in listing.sessions()} == {"claude"}
    assert "codex" in listing.report.failures
    traced = [r for r in caplog.records if r.exc_info and "codex" in r.getMessage()]
    assert traced and isinstance(traced[0].exc_info[1], KeyError)  # type: ignore[index]


def test_list_find_and_watch_take_since_as_a_date_as_usage_does() -> None:
    """`since=date(2026, 11, 29)`, as `usage_report` takes it, is that day as the text
    '2026-11-29' is (an AttributeError: 'datetime.date' object has no attribute
    'timestamp')."""
    from datetime import date

    home = api.demo_home()
    day = date(2026, 11, 29)
    listed = [s.id for s in api.list_sessions(home, since="2026-11-29").sessions()]
    assert listed and listed != [s.id for s in api.list_sessions(home).sessions()]
    assert [s.id for s in api.list_sessions(home, since=day).sessions()] == listed
    assert [r.id for r in api.find_sessions(home, "", since=day).rows] == listed
    board = next(api.watch_sessions(home, since=day, duration=0))
    assert [row.session.id for row in board] == listed


def test_here_takes_a_path_as_home_at_does() -> None:
    """`here=Path(...)`, as `Home.at` takes one, is that folder (a TypeError: 'PosixPath'
    object is not iterable), alone or in a list; and `usage_report`'s `here` alike."""
    from pathlib import Path

    home = api.demo_home()
    folder = "/home/demo/code/shop-api"
    listed = [s.id for s in api.list_sessions(home, here=folder).sessions()]
    assert listed and listed != [s.id for s in api.list_sessions(home).sessions()]
    assert [
        s.id for s in api.list_sessions(home, here=Path(folder)).sessions()
    ] == listed
    assert [
        r.id for r in api.find_sessions(home, "", here=[Path(folder)]).rows
    ] == listed
    counted = [r.key for r in api.usage_report(home, "session", here=folder).rows]
    assert counted and sorted(counted) == sorted(listed)
    assert [
        r.key for r in api.usage_report(home, "session", here=Path(folder)).rows
    ] == counted


def test_an_app_named_in_capitals_is_that_app_as_app_takes_it() -> None:
    """`apps=["Codex"]` is codex, as `--app Codex` and `Codex:019a` are (an UnknownApp:
    "unknown app 'Codex' (did you mean 'codex'?)")."""
    home = api.demo_home()
    codex = [s.id for s in api.list_sessions(home, apps="codex").sessions()]
    assert (
        codex
        and [s.id for s in api.list_sessions(home, apps=["Codex"]).sessions()] == codex
    )
    assert [r.id for r in api.find_sessions(home, "", apps="CODEX").rows] == codex
    assert [r.app for r in api.doctor(home, ["Codex"])] == ["codex"]
    assert [r.key for r in api.usage_report(home, "app", apps="Codex").rows] == [
        "codex"
    ]
    board = next(api.watch_sessions(home, apps="Codex", duration=0))
    assert [r.session.id for r in board] == codex
