"""`show` of a session whose one JSON document sessdex may not open, where the index
still lists it (the file's change time unchanged since it was read: a folder above it
shut, a refusal the kernel makes for another reason): said refused, never counted as an
unreadable line."""

from __future__ import annotations

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
    ("app", "document", "session"),
    [
        ("amp", ".local/share/amp/threads/T-test-thread-1.json", "test-thread-1"),
        (
            "amp",
            ".local/share/amp/threads/T-5e1c9a70-2b1f-4c3e-9d7a-0f1e2d3c4b5a.json",
            "T-5e1c9a70",
        ),
        (
            "copilot",
            ".copilot/history-session-state/"
            "session_3f6c2a1e-8b4d-4e7a-9c2f-5d1e0b7a6c48_1759312840123.json",
            "3f6c2a1e",
        ),
    ],
)
@pytest.mark.parametrize("big", [False, True])
def test_show_of_a_listed_document_it_may_not_open_says_permission_denied(
    big: bool,
    app: str,
    document: str,
    session: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Amp's thread said "permission denied" and "skipped 1 unreadable line"; Copilot's
    early session document said only "skipped 1 unreadable line"."""
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    code, out, _ = invoke("list", "--json", "--app", app, "--home", str(home))
    assert code == 0 and session in out  # listed while it opens
    name = str(home / document)
    refuse_opening(monkeypatch, name)  # as the kernel refuses another user
    if big:  # one too big to read whole is read in pieces
        from sessdex.sources import _copilot_history, amp

        monkeypatch.setattr(amp, "WHOLE_CAP", 16)
        monkeypatch.setattr(_copilot_history, "_WHOLE", 16)
    for verbose in ((), ("--verbose",)):
        code, _, err = invoke("show", f"{app}:{session}", *verbose, "--home", str(home))
        assert code == 0
        said = [line for line in err.splitlines() if name in line]
        assert len(said) == 1 and "permission denied" in said[0], err
        assert "unreadable" not in err and "not JSON" not in err
