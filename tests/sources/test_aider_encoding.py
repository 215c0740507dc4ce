"""Aider logs written in the encoding aider was told (`--encoding`, `encoding:` in an
`.aider.conf.yml`, AIDER_ENCODING): read as written, where sessdex can know it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Session
from sessdex.sources import Home, aider
from tests.helpers import write_claude_session
from tests.sources.test_aider import utc  # noqa: F401  (autouse: aider's local times in UTC)


def _cli(*args: str) -> tuple[str, str]:
    """(stdout, stderr) of a sessdex command that succeeded."""
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def _written(path: Path, encoding: str, *pieces: str) -> None:
    """Each piece appended as aider appends to its log (io.py append_chat_history)."""
    for piece in pieces:
        with path.open("a", encoding=encoding, errors="ignore") as stream:
            stream.write(piece)


_RUN = (
    "\n# aider chat started at 2026-11-20 10:00:00\n\n",
    "> Aider v0.86.2\n",
    "#### résumé please  \n",
    "\n",
    "café au lait, 1 € and 日本\n",
)


def _home(tmp_path: Path, config: str | None, encoding: str) -> tuple[Path, Path]:
    """A home with aider's caches folder, a log in `encoding` and that config."""
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    if config is not None:
        (home / ".aider.conf.yml").write_text(config)
    path = home / aider.HISTORY
    _written(path, encoding, *_RUN)
    return home, path


def _sessions(home: Home, diagnostics: Diagnostics | None = None) -> list[Session]:
    location = aider.locate(home)
    found: list[Session] = []
    for path in aider.scan(location):
        found += aider.parse(path, location, diagnostics or Diagnostics())
    return found


def _said(session: Session, diagnostics: Diagnostics | None = None) -> list[str]:
    return [
        e.text or ""
        for e in aider.read(session, diagnostics or Diagnostics())
        if e.kind == "assistant"
    ]


@pytest.mark.parametrize(
    "config",
    [
        "encoding: latin-1\n",
        "model: sonnet\nencoding: 'latin-1'  # the old laptop's\n",
        'encoding: "ISO-8859-1"\n',
    ],
)
def test_a_latin1_log_named_by_the_homes_config_reads_as_written(
    tmp_path: Path, config: str
) -> None:
    """`encoding: latin-1` in ~/.aider.conf.yml: the log's text as the user wrote it
    (what latin-1 cannot hold aider dropped), and no line said to be damaged."""
    home, path = _home(tmp_path, config, "latin-1")
    out, err = _cli("list", "--json", "--home", str(home))
    [row] = orjson.loads(out)
    assert row["title"] == "résumé please"
    assert "not UTF-8" not in err
    out, err = _cli("show", row["id"], "--json", "--verbose", "--home", str(home))
    said = [e["text"] for e in orjson.loads(out) if e["kind"] == "assistant"]
    assert said == ["café au lait, 1  and"]
    assert "not UTF-8" not in err and "damage" not in err
    out, _ = _cli("doctor", "--app", "aider", "--json", "--home", str(home))
    [report] = orjson.loads(out)
    assert report["damaged_lines"] == {} and report["skipped_lines"] == {}
    config = home / ".aider.conf.yml"
    assert f"{path}: read as " in report["notes"][-1]
    assert report["notes"][-1].endswith(f"({config})")


def test_the_repositorys_config_comes_before_the_homes(tmp_path: Path) -> None:
    """Aider reads `.aider.conf.yml` from the home, then the git root, each later one
    winning: a repository's cp1252 log in a home whose config says latin-1."""
    home, _ = _home(tmp_path, "encoding: latin-1\n", "latin-1")
    repo = tmp_path / "work" / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / ".aider.conf.yml").write_text("encoding: cp1252\n")
    _written(repo / aider.HISTORY, "cp1252", *_RUN)
    write_claude_session(home, "c1aude00-0000-4000-8000-000000000001", str(repo))
    by_folder = {s.cwd: s for s in _sessions(Home.at(home))}
    assert _said(by_folder[str(repo)]) == ["café au lait, 1 € and"]
    assert _said(by_folder[str(home)]) == ["café au lait, 1  and"]


def test_aider_encoding_in_the_environment_comes_before_the_config(
    tmp_path: Path,
) -> None:
    """AIDER_ENCODING, as aider reads every option from `AIDER_*` variables, over the
    config files (configargparse: environment before config)."""
    home, _ = _home(tmp_path, "encoding: latin-1\n", "shift_jis")
    diagnostics = Diagnostics()
    [session] = _sessions(Home(home, {"AIDER_ENCODING": "shift_jis"}), diagnostics)
    # what shift_jis cannot hold aider dropped
    assert session.title == "rsum please"
    assert _said(session, diagnostics) == ["caf au lait, 1  and 日本"]
    assert diagnostics.damaged_total == 0 and diagnostics.skipped_total == 0


def test_a_log_written_before_the_encoding_was_set_still_reads(tmp_path: Path) -> None:
    """UTF-8 lines (the runs before `encoding: cp1252` was set) read as UTF-8, as
    cp1252 would read `é` as `Ã©`; a byte neither reads is damage, said of both."""
    home, path = _home(tmp_path, "encoding: cp1252\n", "utf-8")
    with path.open("ab") as stream:
        stream.write(
            b"\n# aider chat started at 2026-11-21 10:00:00\n\n#### caf\xe9  \n"
        )
        stream.write(b"\nbroken \x81\xff here\n")
    diagnostics = Diagnostics()
    first, second = _sessions(Home.at(home), diagnostics)
    assert (first.title, second.title) == ("résumé please", "café")
    assert _said(first) == ["café au lait, 1 € and 日本"]
    assert diagnostics.damaged_total == 1
    [(_, line, reason)] = diagnostics.details
    assert line == 13 and reason.startswith("not UTF-8") and "cp1252" in reason


def test_an_escaping_encoding_is_read_on_every_line(tmp_path: Path) -> None:
    """UTF-7 writes `é` as ASCII (`+AOk-`): every line is decoded, not only the lines
    holding bytes past ASCII."""
    home, _ = _home(tmp_path, "encoding: utf-7\n", "utf-7")
    [session] = _sessions(Home.at(home))
    assert session.title == "résumé please"
    assert _said(session) == ["café au lait, 1 € and 日本"]


def test_an_encoding_python_does_not_know_falls_back_to_utf8_and_is_said(
    tmp_path: Path,
) -> None:
    """A name Python has no codec for (aider could not have written with it either):
    read as UTF-8, the lines that are not counted as today, and doctor says why."""
    home, _ = _home(tmp_path, "encoding: klingon\n", "latin-1")
    out, _ = _cli("list", "--json", "--home", str(home))
    [row] = orjson.loads(out)
    assert row["title"] == "r\ufffdsum\ufffd please"
    out, _ = _cli("doctor", "--app", "aider", "--json", "--home", str(home))
    [report] = orjson.loads(out)
    assert report["damaged_lines"] == {"not UTF-8 (shown as \ufffd)": 2}
    [note] = [n for n in report["notes"] if "klingon" in n]
    assert str(home / ".aider.conf.yml") in note and "UTF-8" in note


def test_an_unknown_aider_encoding_variable_is_said_in_doctor(tmp_path: Path) -> None:
    home, _ = _home(tmp_path, None, "utf-8")
    location = aider.locate(Home(home, {"AIDER_ENCODING": "base64"}))
    [session] = _sessions(Home(home, {"AIDER_ENCODING": "base64"}))
    assert session.title == "résumé please"
    [note] = aider.doctor_notes(location)
    assert "AIDER_ENCODING=base64" in note and "UTF-8" in note


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "cp037"])
def test_a_log_in_an_encoding_not_built_on_ascii_is_not_read_and_said(
    tmp_path: Path, encoding: str
) -> None:
    """In UTF-16 or EBCDIC aider's run-start words are no longer ASCII bytes: the log
    is not read (no guess at where its runs start), and listing and doctor say so."""
    home, path = _home(tmp_path, f"encoding: {encoding}\n", encoding)
    out, err = _cli("list", "--json", "--verbose", "--home", str(home))
    assert orjson.loads(out) == []
    assert f"{path}" in err and "not read" in err
    location = aider.locate(Home.at(home))
    [note] = aider.doctor_notes(location)
    assert note.startswith(f"{path}: written in {encoding}") and "not read" in note


def test_a_utf8_log_says_nothing_of_its_encoding(tmp_path: Path) -> None:
    home, _ = _home(tmp_path, "encoding: utf-8\n", "utf-8")
    location = aider.locate(Home.at(home))
    [session] = _sessions(Home.at(home))
    assert "encoding" not in session.extra
    assert aider.doctor_notes(location) == []


def test_setting_aider_encoding_reads_an_indexed_log_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's own home: a log listed with U+FFFD before AIDER_ENCODING was set
    lists as written once it is, though the log did not change."""
    home, _ = _home(tmp_path, None, "latin-1")
    monkeypatch.setenv("HOME", str(home))
    out, _ = _cli("list", "--json")
    assert [row["title"] for row in orjson.loads(out)] == ["r\ufffdsum\ufffd please"]
    monkeypatch.setenv("AIDER_ENCODING", "latin-1")
    out, _ = _cli("list", "--json")
    [row] = orjson.loads(out)
    assert row["title"] == "résumé please"
    out, _ = _cli("show", row["id"], "--json")
    said = [e["text"] for e in orjson.loads(out) if e["kind"] == "assistant"]
    assert said == ["café au lait, 1  and"]


def test_a_log_named_by_an_absolute_path_reads_in_aider_encoding(
    tmp_path: Path,
) -> None:
    """AIDER_CHAT_HISTORY_FILE=/abs/log: no known folder, so no folder's config; the
    variable AIDER_ENCODING still says how aider wrote it."""
    _, path = _home(tmp_path, None, "cp1252")
    environ = {"AIDER_CHAT_HISTORY_FILE": str(path), "AIDER_ENCODING": "cp1252"}
    [session] = _sessions(Home(tmp_path / "nobody", environ))
    assert session.cwd is None and session.title == "résumé please"
    assert _said(session) == ["café au lait, 1 € and"]
