"""An error the library raises names the value as the caller gave it: `since=`, `apps=`,
not the command line's `--since`, `--app`; the command line's own messages keep theirs."""

from __future__ import annotations

from datetime import date

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.errors import BadValue, UnknownApp


def test_bounds_that_cross_are_named_as_the_call_gave_them() -> None:
    with pytest.raises(BadValue) as raised:
        api.usage_report(api.demo_home(), since="2026-11-05", until=date(2026, 11, 1))
    told = str(raised.value)
    assert "since='2026-11-05'" in told and "until=datetime.date(2026, 11, 1)" in told
    assert "--since" not in told and "--until" not in told
    cli = CliRunner().invoke(
        main, ["usage", "--since", "2026-11-05", "--until", "2026-11-01"]
    )
    assert cli.exit_code == 2
    assert "--since '2026-11-05' is not before --until '2026-11-01'" in cli.stderr


def test_apps_written_as_one_name_are_told_as_a_list() -> None:
    with pytest.raises(UnknownApp) as raised:
        api.list_sessions(api.demo_home(), apps=["codex,claude"])
    told = str(raised.value)
    assert "apps=['codex', 'claude']" in told and "--app" not in told
    cli = CliRunner().invoke(main, ["list", "--app", "codex,claude"])
    assert "(give each app its own --app: --app codex --app claude)" in cli.stderr
