"""A session's own log (Amp's `.log`, Copilot's `events.jsonl`) that sessdex may not open
when `show` reads it: said refused in the words every app uses, not "stopped reading"
(nothing of it was read)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home
from tests.helpers import refuse_opening


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("app", "log", "session"),
    [
        (
            "amp",
            ".cache/amp/logs/threads/T-019e8cc2-ebc0-7a3c-8e21-5f0d6b9c2a47.log",
            "T-019e8cc2",
        ),
        (
            "copilot",
            ".copilot/session-state/52ee9297-7cb3-468f-8ca4-46f6b927c8c7/events.jsonl",
            "52ee9297",
        ),
    ],
)
def test_show_of_a_log_it_may_not_open_says_it_could_not_read_it(
    app: str, log: str, session: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    code, out, _ = invoke("list", "--json", "--app", app, "--home", str(home))
    assert code == 0 and session in out  # listed while it opens
    name = str(home / log)
    refuse_opening(monkeypatch, name)  # as the kernel refuses another user
    for verbose in ((), ("--verbose",)):
        code, _, err = invoke("show", f"{app}:{session}", *verbose, "--home", str(home))
        assert code == 0
        said = [line for line in err.splitlines() if name in line]
        assert said == [f"warning: {app}: could not open {name} (permission denied)"], (
            err
        )


@pytest.mark.parametrize(
    ("app", "log", "session"),
    [
        (
            "amp",
            ".cache/amp/logs/threads/T-019e8cc2-ebc0-7a3c-8e21-5f0d6b9c2a47.log",
            "T-019e8cc2",
        ),
        (
            "claude",
            ".claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl",
            "11111111",
        ),
        (
            "copilot",
            ".copilot/session-state/52ee9297-7cb3-468f-8ca4-46f6b927c8c7/events.jsonl",
            "52ee9297",
        ),
    ],
)
def test_follow_of_a_log_it_may_not_open_says_so(
    app: str, log: str, session: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`follow` showed nothing and said nothing: the problem was noted, never printed."""
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    code, out, _ = invoke("list", "--json", "--app", app, "--home", str(home))
    assert code == 0 and session in out
    name = str(home / log)
    opener = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) == name:  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)
    code, _, err = invoke(
        "follow", f"{app}:{session}", "--duration", "0.2", "--home", str(home)
    )
    assert code == 0
    said = [line for line in err.splitlines() if name in line]
    assert said == [f"warning: {app}: could not open {name} (permission denied)"], err
