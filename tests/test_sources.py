"""The source contract, the same for every registered app, over tests/data/<app>/.

Each app's fixture folder holds `home/` (a fake home in the app's real layout),
`expected.json` (the sessions a person checked by hand, and the override variable to try)
and `malformed/home/` (broken input that must be counted, never raised).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import stat
from pathlib import Path
from urllib.parse import unquote

import orjson
import pytest

from sessdex import sources
from sessdex.diagnostics import ODD_COUNT, Diagnostics
from sessdex.indexparse import parse_as_is
from sessdex.model import EVENT_KINDS, Session, merge, typed_by_leads
from sessdex.reading import read_session
from sessdex.sources import Home, Source

DATA = Path(__file__).parent / "data"
APPS = sources.names()


def discover(
    source: Source, home: Home, diagnostics: Diagnostics | None = None
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = source.locate(home)
    fragments: dict[str, list[Session]] = {}
    for path in source.scan(location):
        for session in source.parse(Path(path), location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    merged = typed_by_leads({key: merge(parts) for key, parts in fragments.items()})
    return {key: s for key, s in merged.items() if s.listed}


def expected(app: str) -> dict[str, object]:
    value = orjson.loads((DATA / app / "expected.json").read_bytes())
    assert isinstance(value, dict)
    return value


def snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            data = path.read_bytes() if stat.S_ISREG(st.st_mode) else b""
            out[str(path.relative_to(root))] = (st.st_mode, st.st_mtime_ns, data)
    return out


@pytest.mark.parametrize("app", APPS)
def test_every_app_has_fixtures_and_a_description(app: str) -> None:
    source = sources.get(app)
    assert app == source.NAME
    assert source.TITLE and source.CHECKED_WITH
    assert (DATA / app / "home").is_dir()
    assert (DATA / app / "expected.json").is_file()
    assert (DATA / app / "malformed" / "home").is_dir()


@pytest.mark.parametrize("app", APPS)
def test_discover_finds_exactly_the_fixture_sessions(app: str) -> None:
    source = sources.get(app)
    found = discover(source, Home.at(DATA / app / "home"))
    wanted = expected(app)["sessions"]
    assert isinstance(wanted, list)
    assert sorted(found) == sorted(w["id"] for w in wanted)
    for want in wanted:
        session = found[want["id"]]
        for key, value in want.items():
            got = getattr(session, key)
            if hasattr(got, "isoformat"):
                got = got.isoformat().replace("+00:00", "Z")
            assert got == value, f"{app} {want['id']} {key}"
        assert session.app == app
        assert session.path


@pytest.mark.parametrize("app", APPS)
def test_discover_is_stable(app: str) -> None:
    source = sources.get(app)
    home = Home.at(DATA / app / "home")
    location = source.locate(home)
    assert list(source.scan(location)) == list(source.scan(location))


@pytest.mark.parametrize("app", APPS)
def test_read_yields_ordered_events_of_known_kinds(app: str) -> None:
    source = sources.get(app)
    diagnostics = Diagnostics()
    found = discover(source, Home.at(DATA / app / "home"))
    total = 0
    for session in found.values():
        events = list(source.read(session, diagnostics))
        seqs = [e.seq for e in events]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        for event in events:
            assert event.kind in EVENT_KINDS
            assert event.session_id == session.id
        total += len(events)
    assert total > 0
    assert diagnostics.skipped_total == 0, diagnostics.details
    assert not diagnostics.unknown, diagnostics.unknown


@pytest.mark.parametrize("app", APPS)
def test_malformed_input_is_counted_never_raised_nor_leaked(app: str) -> None:
    source = sources.get(app)
    diagnostics = Diagnostics()
    home = Home.at(DATA / app / "malformed" / "home")
    found = discover(source, home, diagnostics)
    for session in found.values():
        for _ in source.read(session, diagnostics):
            pass
    assert (
        diagnostics.skipped_total
        + len(diagnostics.problems)
        + sum(diagnostics.unknown.values())
        > 0
    )
    for path, line, reason in diagnostics.details:
        # a token count no app writes: read, and said (in a line, a response, ...)
        assert reason.startswith(ODD_COUNT) or reason in {
            "not JSON",
            "truncated",
            "too long",
            "not an object",
            "unreadable",
            "vanished",
            "bad value",
        }
        assert isinstance(line, int) and isinstance(path, str)


@pytest.mark.parametrize("app", APPS)
def test_environment_override_is_honoured(app: str, tmp_path: Path) -> None:
    source = sources.get(app)
    override = expected(app).get("override")
    assert isinstance(override, dict) and override, (
        "expected.json names the override to test"
    )
    environ = {
        name: str(DATA / app / "home" / relative) for name, relative in override.items()
    }
    home = Home(tmp_path / "nobody", environ)
    location = source.locate(home)
    assert location.override and location.override.split("=")[0] in override
    assert sorted(discover(source, home)) == sorted(
        w["id"] for w in expected(app)["sessions"]
    )  # type: ignore[union-attr]


@pytest.mark.parametrize("app", APPS)
def test_nothing_is_written_into_the_app_folder(app: str, tmp_path: Path) -> None:
    source = sources.get(app)
    copy = tmp_path / "home"
    shutil.copytree(DATA / app / "home", copy, symlinks=True)
    before = snapshot(copy)
    for dirpath, dirnames, filenames in os.walk(copy):
        for name in dirnames + filenames:
            os.chmod(Path(dirpath) / name, 0o555 if name in dirnames else 0o444)
    os.chmod(copy, 0o555)
    try:
        diagnostics = Diagnostics()
        for session in discover(source, Home.at(copy), diagnostics).values():
            list(source.read(session, diagnostics))
            source.resume(session)
    finally:
        for dirpath, dirnames, _ in os.walk(copy):
            os.chmod(dirpath, 0o755)
            for name in dirnames:
                os.chmod(Path(dirpath) / name, 0o755)
    after = snapshot(copy)
    assert {k: v[1:] for k, v in after.items()} == {k: v[1:] for k, v in before.items()}


@pytest.mark.parametrize("app", APPS)
def test_an_absent_app_costs_nothing(app: str, tmp_path: Path) -> None:
    source = sources.get(app)
    location = source.locate(Home.at(tmp_path))
    assert not location.exists
    assert list(source.scan(location)) == []


@pytest.mark.parametrize("app", APPS)
def test_a_byte_order_mark_before_a_json_file_changes_nothing(
    app: str, tmp_path: Path
) -> None:
    """Some Windows editors and tools start a file with a UTF-8 byte order mark, which
    orjson refuses: it must not cost a session, a title or an event."""
    source = sources.get(app)
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)

    def seen() -> dict[str, tuple[object, ...]]:
        found = discover(source, Home.at(home))
        return {
            key: (
                (s.title, s.cwd, s.branch, s.model, s.created, s.parent_id),
                [
                    (e.kind, e.text, e.tool, e.usage)
                    for e in source.read(s, Diagnostics())
                ],
            )
            for key, s in found.items()
        }

    plain = seen()
    marked = 0
    for path in home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if data[:1] in (b"{", b"["):
                path.write_bytes(b"\xef\xbb\xbf" + data)
                marked += 1
    if not marked:
        pytest.skip(f"{app} keeps no JSON files")
    assert seen() == plain


@pytest.mark.parametrize(
    "refusal",
    [
        PermissionError(13, "Permission denied"),
        sqlite3.OperationalError("database is locked"),
    ],
    ids=["permission denied", "database is locked"],
)
def test_a_store_it_may_not_open_is_said_in_plain_words(
    refusal: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database or file sessdex may not open (another user's, a `sudo` run's), or one
    the app holds locked: Crush, Goose, Antigravity, Cursor, OpenCode said "cannot open
    <path>: [Errno 13] Permission denied: '<path>'" (Python's words, the path twice),
    Codex's rollouts "(PermissionError)", Aider's and Qwen's files "Permission
    denied", Vibe's meta.json "is missing or broken", Claude's transcripts
    "unreadable", Cursor's chat store nothing of why. Each names its app and its file
    once, and says why in the words the others use; a locked database is no sessdex bug
    (no type name)."""
    from sessdex import databases

    def refused(path: object) -> Exception:
        if isinstance(refusal, OSError):
            return PermissionError(refusal.errno, refusal.strerror, os.fspath(path))  # type: ignore[call-overload]
        return refusal

    def refusing_database(path: object, login: bool = False) -> object:
        raise refused(path)

    opener, open_sqlite, connect = os.open, databases.open_sqlite, sqlite3.connect
    root = str(DATA)

    def refusing_sqlite(target: str | Path, *args: object, **kwargs: object) -> object:
        if root in unquote(os.fspath(target)):  # SQLite says no more than this
            raise sqlite3.OperationalError("unable to open database file")
        return connect(target, *args, **kwargs)  # type: ignore[call-overload]

    def refusing_open(path: object, *args: object, **kwargs: object) -> int:
        name = os.fspath(path)  # type: ignore[call-overload]
        if isinstance(refusal, OSError) and str(name).startswith(root):
            raise refused(name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    said: list[str] = []
    for app in APPS:
        source = sources.get(app)
        home = Home.at(DATA / app / "home")
        found = discover(source, home)  # listed first: the refusal comes at the read
        location = source.locate(home)
        if isinstance(refusal, OSError):  # the kernel refuses SQLite as it does others
            monkeypatch.setattr(sqlite3, "connect", refusing_sqlite)
        else:
            monkeypatch.setattr(databases, "open_sqlite", refusing_database)
        monkeypatch.setattr(os, "open", refusing_open)
        diagnostics = Diagnostics()
        for path in source.scan(location):  # as the index and `show` read them
            said += parse_as_is(app, location, os.fspath(path))[1].problems
        for session in found.values():
            for _ in read_session(source, session, diagnostics):
                pass
        monkeypatch.setattr(databases, "open_sqlite", open_sqlite)
        monkeypatch.setattr(sqlite3, "connect", connect)
        monkeypatch.setattr(os, "open", opener)
        said += diagnostics.problems
    assert said
    words = (
        "permission denied" if isinstance(refusal, OSError) else "database is locked"
    )
    assert any(words in problem for problem in said)
    for problem in said:
        assert "Errno" not in problem and "Permission denied" not in problem, problem
        assert "OperationalError" not in problem, problem
        assert "unable to open" not in problem, problem  # SQLite's words for a refusal
        if isinstance(refusal, OSError):  # each says why (Vibe: "missing or broken")
            assert problem.startswith(tuple(f"{app}: " for app in APPS)), problem
            assert "permission denied" in problem, problem
        assert "Error)" not in problem, problem  # codex said "(PermissionError)"
        named = re.findall(re.escape(root) + r"[^\s:']*", problem)
        assert len(named) == len(set(named)), problem  # no file named twice
