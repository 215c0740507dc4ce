"""A JSON-lines file that ends in a line with no newline yet, for every app that keeps one.

An app writes a record, then its newline: a bad last line without its newline is most
often one still being written (or a crash cut it off), not damage. It is said by
--verbose and `doctor`, never counted among the unreadable lines; a bad line that has
its newline still is, and a last line that parses whole is read.
"""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, sources
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.reading import read_session
from sessdex.sources import Home

from .test_sources import DATA, discover


def _jsonl_sessions(app: str) -> list[Session]:
    """The app's fixture sessions whose own file is a JSON-lines log."""
    found = discover(sources.get(app), Home.at(DATA / app / "home"))
    return [
        s
        for key, s in sorted(found.items())
        if s.path and s.path.endswith(".jsonl") and Path(s.path).stat().st_size
    ]


JSONL_APPS = [app for app in sources.names() if _jsonl_sessions(app)]


def _copied(app: str, tmp_path: Path) -> tuple[Session, Path]:
    """Its first JSON-lines session in a copy of the app's fixture home, and its file."""
    shutil.copytree(DATA / app / "home", tmp_path / "home", symlinks=True)
    home = Home.at(tmp_path / "home")
    original = _jsonl_sessions(app)[0]
    relative = Path(original.path or "").relative_to(DATA / app / "home")
    found = discover(sources.get(app), home)
    return found[original.id], tmp_path / "home" / relative


def _read(session: Session) -> tuple[list[Event], Diagnostics]:
    diagnostics = Diagnostics()
    source = sources.get(session.app)
    return list(read_session(source, session, diagnostics)), diagnostics


def _last_record(path: Path) -> bytes:
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    return lines[-1]


def test_every_app_with_a_jsonl_log_is_checked() -> None:
    """The apps below keep JSON-lines logs: none is left out of these tests unnoticed."""
    assert {"claude", "codex", "pi", "copilot"} <= set(JSONL_APPS)


@pytest.mark.parametrize("app", JSONL_APPS)
def test_an_unfinished_last_line_is_noted_not_counted(app: str, tmp_path: Path) -> None:
    session, path = _copied(app, tmp_path)
    before, _ = _read(session)
    if not path.read_bytes().endswith(b"\n"):
        with path.open("ab") as out:
            out.write(b"\n")
    piece = _last_record(path)[: len(_last_record(path)) // 2]
    with path.open("ab") as out:
        out.write(piece)  # half of a real record: what a reader meets mid-write
    after, diagnostics = _read(session)
    assert diagnostics.skipped_total == 0, diagnostics.details
    assert diagnostics.unfinished == {str(path): len(piece)}
    assert [e.text for e in after] == [e.text for e in before]


@pytest.mark.parametrize("app", JSONL_APPS)
def test_a_bad_line_with_its_newline_is_still_unreadable(
    app: str, tmp_path: Path
) -> None:
    session, path = _copied(app, tmp_path)
    if not path.read_bytes().endswith(b"\n"):
        with path.open("ab") as out:
            out.write(b"\n")
    with path.open("ab") as out:
        out.write(_last_record(path)[:20] + b"\n")  # cut, then a newline: damage
    _, diagnostics = _read(session)
    assert diagnostics.skipped_total == 1, diagnostics.details
    assert not diagnostics.unfinished


@pytest.mark.parametrize("app", JSONL_APPS)
def test_a_whole_last_record_without_its_newline_is_read(
    app: str, tmp_path: Path
) -> None:
    session, path = _copied(app, tmp_path)
    before, _ = _read(session)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    after, diagnostics = _read(session)
    assert [e.text for e in after] == [e.text for e in before]
    assert diagnostics.skipped_total == 0 and not diagnostics.unfinished


# --- what the commands say -----------------------------------------------------------


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


CLAUDE_ID = "11111111-1111-4111-8111-111111111111"


def _claude_torn(tmp_path: Path) -> tuple[Path, Path]:
    shutil.copytree(DATA / "claude" / "home", tmp_path / "home", symlinks=True)
    home = tmp_path / "home"
    path = home / ".claude" / "projects" / "-home-dev-shop" / f"{CLAUDE_ID}.jsonl"
    with path.open("ab") as out:
        out.write(b'{"type":"user","message":{"role":"user","con')
    return home, path


@pytest.mark.parametrize(
    "command",
    [
        ("show", CLAUDE_ID[:8]),
        ("show", CLAUDE_ID[:8], "--tail", "3"),
        ("export", CLAUDE_ID[:8], "-f", "md"),
        ("tree", CLAUDE_ID[:8]),
        ("replay", CLAUDE_ID[:8], "--speed", "100000"),
    ],
)
def test_reading_a_session_mid_write_warns_of_nothing(
    command: tuple[str, ...], tmp_path: Path
) -> None:
    home, path = _claude_torn(tmp_path)
    code, out, err = _invoke(*command, "--home", str(home))
    assert code == 0 and out
    assert "unreadable" not in err and "unfinished" not in err
    code, _, err = _invoke(*command, "-v", "--home", str(home))
    assert code == 0 and "unreadable" not in err
    said = [line for line in err.splitlines() if "unfinished" in line]
    assert said == [
        f"note: {path}: its last line is unfinished (44 bytes): the app may still "
        "be writing it, or it was cut off"
    ]


def test_doctor_deep_says_the_unfinished_line_apart_from_the_skipped_ones(
    tmp_path: Path,
) -> None:
    home, path = _claude_torn(tmp_path)
    code, out, _ = _invoke("doctor", "--deep", "--app", "claude", "--home", str(home))
    assert code == 0 and "skipped" not in out
    assert f"note        {path}: its last line is unfinished (44 bytes)" in out
    code, out, _ = _invoke(
        "doctor", "--deep", "--json", "--app", "claude", "--home", str(home)
    )
    [report] = json.loads(out)
    assert report["skipped_lines"] == {}
    assert report["unfinished_last_lines"] == {str(path): 44}


def test_a_listing_reads_the_unfinished_line_again_once_it_is_written(
    tmp_path: Path,
) -> None:
    """The app finishes the line it was writing (a new title): the next `list` shows it."""
    shutil.copytree(DATA / "claude" / "home", tmp_path / "home", symlinks=True)
    home = tmp_path / "home"
    path = home / ".claude" / "projects" / "-home-dev-shop" / f"{CLAUDE_ID}.jsonl"
    record = json.dumps(
        {
            "type": "custom-title",
            "customTitle": "Renamed mid-write",
            "sessionId": CLAUDE_ID,
        }
    ).encode()
    with path.open("ab") as out:
        out.write(record[:30])
    code, out, err = _invoke("list", "--home", str(home))
    assert code == 0 and "Renamed mid-write" not in out and "unreadable" not in err
    with path.open("ab") as out_file:
        out_file.write(record[30:] + b"\n")
    code, out, err = _invoke("list", "--home", str(home))
    assert code == 0 and "unreadable" not in err
    [row] = [line for line in out.splitlines() if CLAUDE_ID[:8] in line]
    assert "Renamed mid-write" in row


def test_the_library_gives_the_unfinished_line_in_its_diagnostics(
    tmp_path: Path,
) -> None:
    home, path = _claude_torn(tmp_path)
    found = api.transcript(Home.at(home), CLAUDE_ID[:8])
    assert [e.kind for e in found.events]
    value = found.diagnostics.to_json()
    assert value["skipped"] == {} and value["unfinished"] == {str(path): 44}
    assert Diagnostics.from_json(value).unfinished == {str(path): 44}
    kept = pickle.loads(pickle.dumps(found.diagnostics))  # as index workers send it
    assert kept.unfinished == {str(path): 44}


def test_list_verbose_names_the_unfinished_line_on_a_warm_run_too(
    tmp_path: Path,
) -> None:
    """The first `list` reads the file and the next reads nothing again: its --verbose
    still says the line, from what the index noted, and neither warns of it."""
    session, path = _copied("pi", tmp_path)
    with path.open("ab") as out:
        out.write(b'{"timestamp":"2025-')
    home = str(tmp_path / "home")
    said = (
        f"note: pi: {path}: its last line is unfinished (19 bytes): the app may "
        "still be writing it, or it was cut off"
    )
    for _ in range(2):
        code, out, err = _invoke("list", "-v", "--home", home)
        assert code == 0 and session.id[:8] in out
        assert err.splitlines().count(said) == 1 and "unreadable" not in err
    code, _, err = _invoke("list", "--home", home)
    assert code == 0 and "unfinished" not in err and "unreadable" not in err


def test_listing_a_claude_session_mid_write_notes_its_unfinished_line(
    tmp_path: Path,
) -> None:
    """Listing reads a transcript's tail for a few keys only; the unfinished line it ends in
    is said by `list -v` and plain `doctor` all the same, and warned of by neither."""
    home, path = _claude_torn(tmp_path)
    said = f"{path}: its last line is unfinished (44 bytes)"
    code, _, err = _invoke("list", "--home", str(home))
    assert code == 0 and "unfinished" not in err and "unreadable" not in err
    code, _, err = _invoke("list", "-v", "--home", str(home))
    assert code == 0 and f"note: claude: {said}" in err
    code, out, _ = _invoke("doctor", "--app", "claude", "--home", str(home))
    assert code == 0 and f"note        {said}" in out and "skipped" not in out


def test_listing_a_codex_rollout_mid_write_notes_its_unfinished_line(
    tmp_path: Path,
) -> None:
    """A rollout's listing reads its head lazily: the unfinished line it ends in is said
    by `doctor` all the same, the size in the file's bytes, and warned of by no one."""
    _, path = _copied("codex", tmp_path)
    piece = b'{"timestamp":"2025-12-18T10:00:00Z","type":"event_msg","payload":{"ty'
    with path.open("ab") as out:
        out.write(piece)
    home = str(tmp_path / "home")
    code, _, err = _invoke("list", "--home", home)
    assert code == 0 and "unreadable" not in err and "unfinished" not in err
    code, out, _ = _invoke("doctor", "--json", "--app", "codex", "--home", home)
    [report] = json.loads(out)
    assert report["unfinished_last_lines"] == {str(path): len(piece)}
    assert report["skipped_lines"] == {}


# Vibe's legacy listing reads its `meta.json`, never the end of `messages.jsonl`: only a
# read of the session (`show -v`, `doctor --deep`) meets the line
LISTING_READS_NO_END = {"vibe"}


@pytest.mark.parametrize("app", sorted(set(JSONL_APPS) - LISTING_READS_NO_END))
def test_every_listing_notes_an_unfinished_last_line(app: str, tmp_path: Path) -> None:
    """What `doctor` and `list -v` say comes from the listing: it meets the line too."""
    _, path = _copied(app, tmp_path)
    if not path.read_bytes().endswith(b"\n"):
        with path.open("ab") as out:
            out.write(b"\n")
    piece = _last_record(path)[: len(_last_record(path)) // 2]
    with path.open("ab") as out:
        out.write(piece)
    source = sources.get(app)
    diagnostics = Diagnostics()
    discover(source, Home.at(tmp_path / "home"), diagnostics)
    assert diagnostics.skipped_total == 0, diagnostics.details
    assert diagnostics.unfinished == {str(path): len(piece)}


def test_a_kimi_wire_past_the_listings_head_notes_its_unfinished_last_line(
    tmp_path: Path,
) -> None:
    """A Kimi CLI wire longer than the head the listing parses: its tail's last line is
    parsed too when it has no newline, so `doctor` says it."""
    shutil.copytree(DATA / "kimi" / "home", tmp_path / "home", symlinks=True)
    [path] = [
        p
        for p in (tmp_path / "home" / ".kimi" / "sessions").rglob("wire.jsonl")
        if "3f6c1d2e" in p.parent.name
    ]
    last = _last_record(path)
    piece = last[: len(last) // 2]
    with path.open("ab") as out:
        out.write(b"\n" * (not path.read_bytes().endswith(b"\n")))
        out.write((last + b"\n") * 100 + piece)  # past the 80 lines of the head
    diagnostics = Diagnostics()
    discover(sources.get("kimi"), Home.at(tmp_path / "home"), diagnostics)
    assert diagnostics.skipped_total == 0, diagnostics.details
    assert diagnostics.unfinished == {str(path): len(piece)}


def test_doctor_counts_many_unfinished_lines_in_one_line_and_v_names_them(
    tmp_path: Path,
) -> None:
    """Sessions a crash cut off keep their unfinished line for good: past a few, plain
    `doctor` says how many in one line, and -v names each."""
    shutil.copytree(DATA / "claude" / "home", tmp_path / "home", symlinks=True)
    home = tmp_path / "home"
    cut = sorted((home / ".claude" / "projects").glob("*/*-*-*-*-*.jsonl"))[:4]
    assert len(cut) == 4
    for path in cut:
        with path.open("ab") as out:
            out.write(b'{"type":"user","message":{"role":"user","con')
    code, out, _ = _invoke("doctor", "--app", "claude", "--home", str(home))
    said = [line for line in out.splitlines() if "unfinished" in line]
    assert code == 0 and said == [
        "  note        4 files' last lines are unfinished: their apps may still be "
        "writing them, or they were cut off (-v names them)"
    ]
    code, out, _ = _invoke("doctor", "-v", "--app", "claude", "--home", str(home))
    said = [line for line in out.splitlines() if "unfinished" in line]
    assert code == 0 and len(said) == 4
    assert all(f"note        {path}: its last line" in out for path in cut)
