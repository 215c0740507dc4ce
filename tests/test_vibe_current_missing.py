"""Mistral Vibe 3 points `unified/<id>/CURRENT` at a session's live generation, and
rewrites it at every turn. While it is gone (deleted, or mid-rewrite) the session is
read from its newest generation, as an unreadable CURRENT is: listed and shown, cold or
warm, and listed once when CURRENT is back. Before, it dropped out of `list` unsaid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data" / "vibe" / "home"
SESSION = "a63ab208-5aab-fb2c-9a25-672f66edb7ae"
CURRENT = f".vibe/logs/session/unified/{SESSION}/CURRENT"


def _ids(home: Path) -> list[str]:
    listed = CliRunner().invoke(main, ["list", "--all", "--json", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    return [row["id"] for row in json.loads(listed.stdout)]


@pytest.mark.parametrize("warm", [False, True])
def test_a_session_whose_current_is_gone_is_still_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm: bool
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    if warm:
        assert SESSION in _ids(home)
    current = (home / CURRENT).read_bytes()
    (home / CURRENT).unlink()

    assert _ids(home).count(SESSION) == 1
    shown = CliRunner().invoke(main, ["show", SESSION, "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    assert "SCENARIO=basic" in shown.stdout

    (home / CURRENT).write_bytes(current)  # the rewrite done
    assert _ids(home).count(SESSION) == 1


def test_a_cold_list_parses_no_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a generation's manifest may stand in for a CURRENT: the transcript chunks
    and other generation files are read with their CURRENT alone, not parsed each to
    nothing (a cold list of 2,000 sessions x 30 chunks, 11.0 -> 14.5 s CPU)."""
    from sessdex.sources import vibe

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    parsed: list[Path] = []
    parse = vibe.parse

    def spied(path: Path, *args: object) -> object:
        parsed.append(path)
        return parse(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(vibe, "parse", spied)
    assert SESSION in _ids(home)
    assert [p for p in parsed if "unified" in p.parts]  # its CURRENT, journal, ...
    assert not [p for p in parsed if p.parent.name == "chunks"]
    assert not [p for p in parsed if p.name == "projection-state.json"]


@pytest.mark.parametrize("warm", [False, True])
def test_a_current_gone_between_the_scan_and_the_parse_lists_its_session_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm: bool
) -> None:
    """The scan listed CURRENT and its generation's files; CURRENT went (Vibe's rewrite)
    before the index parsed them: the session is listed once, not once from CURRENT's
    parse (read from the newest generation) and again from its manifest's."""
    from sessdex.sources import vibe

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    if warm:
        assert SESSION in _ids(home)
        (home / CURRENT).touch()  # a turn: CURRENT rewritten, its session read again
        (home / CURRENT).with_name("meta.json").touch()
    parse = vibe.parse
    parsed: list[str] = []

    def racing(path: Path, *args: object) -> object:
        if SESSION in path.parts:
            (home / CURRENT).unlink(missing_ok=True)
            parsed.append(path.name)
        return parse(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(vibe, "parse", racing)
    assert _ids(home).count(SESSION) == 1
    # CURRENT was listed, and read with the stand-in's manifest beside it
    assert "CURRENT" in parsed
    assert warm or "manifest.json" in parsed
    monkeypatch.setattr(vibe, "parse", parse)
    assert _ids(home).count(SESSION) == 1  # the next list, CURRENT still gone
