"""An OpenHands event file that is a folder (a restore or a `mkdir -p` gone wrong) hides
that event: `show -v`, whole or `--tail`, names it as `list -v` and `doctor` do. The
read passed it over without a word, the conversation shown one event short."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

CONVERSATION = "0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f50"


@pytest.mark.parametrize("tail", [[], ["--tail", "2"]])
def test_show_names_an_event_file_that_is_a_folder(
    tmp_path: Path, tail: list[str]
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "openhands" / "home", home)
    event = home / ".openhands/conversations" / CONVERSATION / "events/event-00003.json"
    event.unlink()
    event.mkdir()
    args = ["show", CONVERSATION[:8], "-v", *tail, "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"{event}:0: folder in a file's place" in result.stderr, result.stderr


def test_a_read_of_the_last_rows_names_it_too(tmp_path: Path) -> None:
    """`read_last` (show --tail, follow -n's first read, where they read only the last
    event files) names it as the whole read does."""
    from sessdex import reading, sources
    from sessdex.diagnostics import Diagnostics
    from sessdex.model import Session

    home = tmp_path / "home"
    shutil.copytree(DATA / "openhands" / "home", home)
    folder = home / ".openhands/conversations" / CONVERSATION
    event = folder / "events/event-00003.json"
    event.unlink()
    event.mkdir()
    session = Session("openhands", CONVERSATION, path=str(folder / "base_state.json"))
    diagnostics = Diagnostics()
    source = sources.get("openhands")
    found = reading.last_events(source, session, diagnostics, 2, lambda e: True, 5)
    assert found  # the last rows were read, not the whole
    assert (str(event), 0, "folder in a file's place") in diagnostics.details
