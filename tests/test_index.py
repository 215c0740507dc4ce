"""The index: incremental refresh, vanished files, concurrent processes, migrations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sessdex import api, diagnostics, index, indexdb, indexparse, indexschema, sources
from sessdex.sources import Home
from tests.helpers import (
    LIST_PATHS,
    counting_parse,
    scramble_table,
    write_claude_session,
)


def make_home(tmp_path: Path, count: int) -> Path:
    home = tmp_path / "home"
    for n in range(count):
        write_claude_session(
            home,
            f"{n:08x}-0000-4000-8000-{n:012x}",
            f"/work/p{n % 7}",
            title=f"session {n}",
        )
    return home


def test_refresh_rereads_only_changed_files_and_drops_vanished_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home_dir = make_home(tmp_path, 5)
    home = Home.at(home_dir)
    calls = counting_parse(monkeypatch)
    assert len(api.list_sessions(home, apps=["claude"]).rows) == 5
    assert len(calls) == 5
    calls.clear()
    assert len(api.list_sessions(home, apps=["claude"]).rows) == 5
    assert calls == []  # nothing changed: nothing parsed
    files = sorted(home_dir.rglob("*.jsonl"))
    with files[0].open("a") as out:
        out.write(
            json.dumps(
                {
                    "type": "custom-title",
                    "customTitle": "renamed",
                    "sessionId": files[0].stem,
                }
            )
            + "\n"
        )
    files[1].unlink()
    listing = api.list_sessions(home, apps=["claude"])
    assert calls == [str(files[0])]
    assert listing.report.vanished == 1
    titles = {s.id: s.title for s in listing.sessions()}
    assert titles[files[0].stem] == "renamed"
    assert files[1].stem not in titles


def test_a_file_deleted_during_refresh_is_skipped_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the app removed between the scan and its read is no unreadable line:
    nothing of a session that is gone was lost, so no warning says so (it was 'skipped 1
    unreadable line'); --verbose still names it."""
    home_dir = make_home(tmp_path, 3)
    claude = sources.get("claude")
    original = claude.parse
    victim = sorted(home_dir.rglob("*.jsonl"))[0]

    def parse(path, location, diagnostics):  # type: ignore[no-untyped-def]
        if path == victim:
            victim.unlink()
        return original(path, location, diagnostics)

    monkeypatch.setattr(claude, "parse", parse)
    listing = api.list_sessions(Home.at(home_dir), apps=["claude"])
    assert victim.stem not in {row.id for row in listing.rows}
    assert len(listing.rows) == 2
    diagnostics = listing.report.diagnostics["claude"]
    assert diagnostics.skipped_total == 0
    assert (str(victim), 0, "vanished") in diagnostics.details
    assert api.skipped_summary(listing.report) is None
    monkeypatch.setattr(claude, "parse", original)
    assert len(api.list_sessions(Home.at(home_dir), apps=["claude"]).rows) == 2


def test_two_processes_refreshing_at_once_agree(tmp_path: Path) -> None:
    home_dir = make_home(tmp_path, 150)
    env = {**os.environ}
    command = [
        sys.executable,
        "-m",
        "sessdex",
        "list",
        "--json",
        "--home",
        str(home_dir),
    ]
    procs = [
        subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err.decode()
        assert len(json.loads(out)) == 150
    integrity = (
        index.connect(index.index_file(Home.at(home_dir)))
        .execute("PRAGMA integrity_check")
        .fetchone()[0]
    )
    assert integrity == "ok"


def test_schema_is_migrated_once_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    db = index.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(
        indexschema.MIGRATIONS
    )
    db.close()
    db = index.connect(path)  # reopening runs nothing again
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(
        indexschema.MIGRATIONS
    )


def test_each_home_has_its_own_index(tmp_path: Path) -> None:
    a = make_home(tmp_path / "a", 2)
    b = make_home(tmp_path / "b", 3)
    assert len(api.list_sessions(Home.at(a)).rows) == 2
    assert len(api.list_sessions(Home.at(b)).rows) == 3
    assert len(api.list_sessions(Home.at(a)).rows) == 2


def test_a_variable_no_app_reads_keeps_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyenv's shims export PYENV_DIR, the working folder: each folder sessdex was run
    in built an index of its own from nothing (6 s for 3,000 sessions), and kept it."""
    home_dir = make_home(tmp_path, 3)

    def home(**environ: str) -> Home:
        return Home(home_dir, {"HOME": str(home_dir), **environ})

    assert len(api.list_sessions(home(PYENV_DIR="/work/a")).rows) == 3
    calls = counting_parse(monkeypatch)
    assert len(api.list_sessions(home(PYENV_DIR="/work/b", JAVA_HOME="/j")).rows) == 3
    assert calls == []  # the same index, nothing read again
    assert len(list(index.index_file(home()).parent.glob("index-*.sqlite"))) == 1
    # an override an app honours still keeps its own index, whatever its name
    assert index.index_file(home(OPENCODE_DB="/x.db")) != index.index_file(home())
    assert index.index_file(home(CODEX_HOME="/x")) != index.index_file(home())


def test_a_home_reached_through_a_link_keeps_one_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--home /b` where /b -> /a, and a `$HOME` with a link in it, are the same home:
    one index, its files not read again, and what is shown stays the path given."""
    real = make_home(tmp_path, 3)
    link = tmp_path / "link"
    link.symlink_to(real)
    assert len(api.list_sessions(Home.at(real)).rows) == 3
    calls = counting_parse(monkeypatch)
    listing = api.list_sessions(Home.at(link))
    assert len(listing.rows) == 3
    assert calls == []  # the same index, nothing read again
    assert index.index_file(Home.at(link)) == index.index_file(Home.at(real))
    assert len(list(index.index_file(Home.at(real)).parent.glob("index-*.sqlite"))) == 1
    # a $HOME with a link in its path
    (tmp_path / "homes").mkdir()
    (tmp_path / "homes" / "alex").symlink_to(real)
    linked = tmp_path / "homes" / "alex"
    linked_home = Home(linked, {"HOME": str(linked)})
    assert index.index_file(linked_home) == index.index_file(
        Home(real, {"HOME": str(real)})
    )
    # read by the path it was built by, shown by the one given: `~` for the folders
    # under either name
    result = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--home", str(link)],
        env={**os.environ, "SESSDEX_NO_QUICK": "1", "COLUMNS": "200"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(result.stdout.splitlines()) == 3
    assert len(list(index.index_file(Home.at(real)).parent.glob("index-*.sqlite"))) == 1
    from click.testing import CliRunner

    from sessdex.cli import main

    doctor = CliRunner().invoke(
        main, ["doctor", "--app", "claude", "--home", str(link)]
    )
    assert f"lookedin{link}/.claude" in "".join(doctor.output.split()), doctor.output
    # a new session found through the link is read once, and by the path the index keeps
    write_claude_session(
        link, "ffffffff-0000-4000-8000-000000000009", "/work/p9", title="new one"
    )
    assert len(api.list_sessions(Home.at(link)).rows) == 4
    assert [str(p) for p in calls] and all(str(real) in str(p) for p in calls)
    calls.clear()
    assert len(api.list_sessions(Home.at(real)).rows) == 4
    assert calls == []


def test_the_variables_that_pick_an_index_are_all_those_the_apps_read() -> None:
    """`sources.OVERRIDES` is kept by hand: every variable a source's `locate` looks at
    must be in it, or homes that differ only there would share one index."""
    from sessdex import freshness

    for source in sources.all_sources():
        assert set(source.ENV_VARS) <= sources.OVERRIDES, source.NAME
        environ = freshness.RecordingEnviron({})
        source.locate(Home(Path("/nowhere"), environ))
        assert set(environ.read) <= sources.OVERRIDES, source.NAME


def test_index_lives_in_sessdex_state_dir(tmp_path: Path, sessdex_state: Path) -> None:
    assert index.index_file(Home.at(tmp_path)).parent == sessdex_state / "cache"


def test_opening_one_session_refreshes_only_its_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home_dir = make_home(tmp_path, 3)
    home = Home.at(home_dir)
    api.list_sessions(home)
    calls = counting_parse(monkeypatch)
    files = sorted(home_dir.rglob("*.jsonl"))
    with files[1].open("a") as out:
        out.write(
            json.dumps(
                {
                    "type": "custom-title",
                    "customTitle": "later",
                    "sessionId": files[1].stem,
                }
            )
            + "\n"
        )
    assert api.resolve(home, files[0].stem[:8]).id == files[0].stem
    assert calls == []  # the other file changed, but nobody asked for it
    assert api.resolve(home, files[1].stem[:8]).title == "later"
    assert calls == [str(files[1])]
    calls.clear()
    write_claude_session(home_dir, "abcdef01-0000-4000-8000-000000000099", "/work/new")
    assert (
        api.resolve(home, "abcdef01").cwd == "/work/new"
    )  # unknown: a full refresh finds it
    assert str(files[1]) not in calls


def test_a_big_cold_index_parses_on_every_core_with_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home_dir = make_home(tmp_path, 40)
    broken = sorted(home_dir.rglob("*.jsonl"))[3]
    with broken.open("a") as out:
        out.write('{"type":"custom-title","customTitle":"cut\n')
    serial = api.list_sessions(Home.at(home_dir))
    expected = sorted((row.id, row.record) for row in serial.rows)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "other-state"))
    monkeypatch.setattr(indexparse, "PARALLEL_FROM", 10)
    parallel = api.list_sessions(Home.at(home_dir))
    assert sorted((row.id, row.record) for row in parallel.rows) == expected
    assert parallel.report.parsed == 40
    assert (
        parallel.report.diagnostics["claude"].skipped
        == serial.report.diagnostics["claude"].skipped
    )
    assert sum(parallel.report.diagnostics["claude"].skipped.values()) == 1


def test_a_big_refresh_written_in_parts_gives_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every app's fixtures (sessions spread over several files: Codex's database,
    rollouts and title index) written three files per transaction, then changed."""
    from .conftest import merged_home

    home = Home.at(merged_home(tmp_path / "home"))
    whole = api.list_sessions(home, include_subagents=True)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "other-state"))
    monkeypatch.setattr(index, "WRITE_BATCH", 3)
    monkeypatch.setattr(indexparse, "PARALLEL_FROM", 4)
    parts = api.list_sessions(home, include_subagents=True)
    assert parts.report.parsed > 3 * 3
    assert [(r.app, r.id, r.record) for r in parts.rows] == [
        (r.app, r.id, r.record) for r in whole.rows
    ]
    # the batches drop each app's packed signatures; the last write packs them all,
    # also when only files changed (no folder: the notes hold, the last batch is short)
    _assert_signatures_packed(tmp_path / "other-state")
    for number, path in enumerate(
        sorted(p for p in home.path.rglob("*") if p.is_file())
    ):
        os.utime(path, ns=(10**18 + number, 10**18 + number))
    assert api.list_sessions(home, include_subagents=True).report.parsed > 3 * 3
    _assert_signatures_packed(tmp_path / "other-state")
    victim = next(p for p in sorted(home.path.rglob("rollout-*.jsonl")))
    victim.unlink()
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "third-state"))
    again_whole = api.list_sessions(home, include_subagents=True)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "other-state"))
    again_parts = api.list_sessions(home, include_subagents=True)
    assert again_parts.report.vanished == 1
    assert [(r.app, r.id, r.record) for r in again_parts.rows] == [
        (r.app, r.id, r.record) for r in again_whole.rows
    ]


def _assert_signatures_packed(state: Path) -> None:
    """Every app's packed file signatures equal its rows in `files` (what the quick
    path would otherwise read), for each `nested` value."""
    import marshal
    import sqlite3

    (path,) = state.rglob("index-*.sqlite")
    db = sqlite3.connect(path)
    try:
        packed = {
            (app, nested): sorted(map(list, marshal.loads(blob)))
            for app, nested, blob in db.execute(
                "SELECT app, nested, packed FROM signatures"
            )
        }
        apps = [app for (app,) in db.execute("SELECT DISTINCT app FROM files")]
        assert apps
        for app in apps:
            for nested in (0, 1):
                rows = db.execute(
                    "SELECT path, size, mtime_ns, inode, wal FROM files "
                    "WHERE app = ? AND nested = ?",
                    (app, nested),
                ).fetchall()
                assert packed.get((app, nested)) == sorted(map(list, rows)), app
    finally:
        db.close()


def test_a_broken_app_warns_once_and_hides_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    home_dir = make_home(tmp_path, 2)
    (home_dir / ".codex" / "sessions").mkdir(parents=True)
    assert len(api.list_sessions(Home.at(home_dir)).rows) == 2
    codex = sources.get("codex")

    def broken(location):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied")
        yield

    monkeypatch.setattr(codex, "scan", broken)
    result = CliRunner().invoke(main, ["list", "--json", "--home", str(home_dir)])
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)) == 2
    assert result.stderr.count("warning: codex: could not list") == 1
    # in the system's words, as every refused read is said (not PermissionError: [Errno 13])
    assert "/.codex: permission denied\n" in result.stderr
    assert "Errno" not in result.stderr


@pytest.mark.parametrize(
    "damage", ["cut", "scrambled header", "not a database"], ids=lambda d: d
)
def test_a_damaged_index_is_moved_aside_and_built_again(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The index is sessdex's own cache: a disk error or a copy cut short must cost a
    rebuild and a warning, not a traceback on every command."""
    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, "aaaaaaaa-0000-4000-8000-00000000000e", "/w/a")
    assert len(api.list_sessions(home).rows) == 1
    path = index.index_file(home)
    data = path.read_bytes()
    broken = {
        "cut": data[:150],
        "scrambled header": data[:100] + b"\xff" * 3900 + data[4000:],
        "not a database": b"this is not SQLite\n" * 100,
    }[damage]
    path.write_bytes(broken)
    with caplog.at_level("WARNING"):
        listed = api.list_sessions(home).rows
    assert [row.id for row in listed] == ["aaaaaaaa-0000-4000-8000-00000000000e"]
    assert "index was damaged" in caplog.text and ".damaged" in caplog.text
    assert path.with_name(path.name + ".damaged").read_bytes() == broken


def test_two_sessdex_finding_the_index_damaged_at_once_both_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `list` and a `usage` started together on a damaged index: the one that moved
    it aside second found nothing to move and ended in a FileNotFoundError traceback."""
    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, "aaaaaaaa-0000-4000-8000-00000000000e", "/w/a")
    assert len(api.list_sessions(home).rows) == 1
    path = index.index_file(home)
    path.write_bytes(b"this is not SQLite\n" * 100)
    real = indexdb._connect
    opened: list[Path] = []

    def racing(target: Path) -> object:
        if opened:
            return real(target)
        opened.append(target)
        try:
            return real(target)  # fails: damaged
        finally:  # ...and meanwhile the other sessdex sets it aside
            os.replace(target, f"{target}.damaged")

    monkeypatch.setattr(indexdb, "_connect", racing)
    listed = api.list_sessions(home).rows
    assert [row.id for row in listed] == ["aaaaaaaa-0000-4000-8000-00000000000e"]


@pytest.mark.parametrize("command", ["list", "doctor"])
def test_an_index_damaged_past_its_schema_is_built_again_once(
    tmp_path: Path, command: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Damage deep in the file (a bad sector, a copy cut short and patched) passes the
    check on opening and shows only when a query reaches it: every command ended in
    a traceback until the user found the file and deleted it."""

    from click.testing import CliRunner

    from sessdex.cli import main

    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, "aaaaaaaa-0000-4000-8000-00000000000e", "/w/a")
    assert len(api.list_sessions(home).rows) == 1
    path = index.index_file(home)
    scramble_table(path, "sessions")
    args = [command, "--home", str(home.path)]
    with caplog.at_level("WARNING"):
        first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert caplog.text.count("index was damaged") == 1
    assert path.with_name(path.name + ".damaged").exists()
    caplog.clear()
    with caplog.at_level("WARNING"):
        again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "damaged" not in caplog.text
    if command == "list":
        assert "aaaaaaaa" in first.output and "aaaaaaaa" in again.output


@pytest.mark.parametrize("call", ["list_sessions", "resolve"])
def test_library_callers_get_an_index_damaged_past_its_schema_built_again(
    tmp_path: Path, call: str, caplog: pytest.LogCaptureFixture
) -> None:
    """`sessdex.api` used as a library recovers as the CLI does: each call raised
    sqlite3.DatabaseError ('database disk image is malformed') until the file was
    deleted by hand."""

    home = Home.at(tmp_path / "home")
    session_id = "aaaaaaaa-0000-4000-8000-00000000000f"
    write_claude_session(home.path, session_id, "/w/a")
    assert len(api.list_sessions(home).rows) == 1
    path = index.index_file(home)
    scramble_table(path, "sessions")

    def ids() -> list[str]:
        if call == "resolve":
            return [api.resolve(home, "aaaaaaaa").id]
        return [row.id for row in api.list_sessions(home).rows]

    with caplog.at_level("WARNING"):
        assert ids() == [session_id]
    assert caplog.text.count("index was damaged") == 1
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert ids() == [session_id]
    assert "damaged" not in caplog.text


@pytest.mark.parametrize("thing", ["folder", "pipe"])
def test_something_else_where_the_index_should_be_is_left_alone(
    tmp_path: Path, thing: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder or a pipe in the index's place: a temporary index for this run and a
    warning, not a traceback (nor a hang on the pipe)."""
    import os

    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, "aaaaaaaa-0000-4000-8000-00000000000e", "/w/a")
    path = index.index_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    if thing == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    with caplog.at_level("WARNING"):
        listed = api.list_sessions(home).rows
    assert [row.id for row in listed] == ["aaaaaaaa-0000-4000-8000-00000000000e"]
    assert "is not a file" in caplog.text
    assert path.is_dir() if thing == "folder" else path.is_fifo()  # left as it was


def test_an_index_sessdex_may_not_write_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An index another user owns (a `sudo sessdex` run) in a folder sessdex may write:
    every command worked until a session changed, then ended in a traceback."""
    import os

    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, "aaaaaaaa-0000-4000-8000-00000000000e", "/w/a")
    assert len(api.list_sessions(home).rows) == 1
    path = index.index_file(home)
    before = path.read_bytes()
    write_claude_session(home.path, "bbbbbbbb-0000-4000-8000-00000000000f", "/w/b")
    real_access = os.access

    def access(target: object, mode: int) -> bool:  # (as root, chmod would not do)
        if os.fspath(target) == os.fspath(path) and mode & os.W_OK:  # type: ignore[arg-type]
            return False
        return real_access(target, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(index.os, "access", access)
    with caplog.at_level("WARNING"):
        listed = api.list_sessions(home).rows
    assert len(listed) == 2 and "not writable" in caplog.text
    assert path.read_bytes() == before  # left as it was


def test_a_full_disk_under_the_index_says_so_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index cannot grow (a full disk, here a page limit SQLite reports the same
    way): the listing comes from a stand-in for this run, with one line that says why
    and what to do. A failed COMMIT had rolled back already, and the ROLLBACK after it
    raised "no transaction is active", a traceback that hid the cause."""
    from click.testing import CliRunner

    from sessdex.cli import main

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-00000000000e", "/w/a")
    assert CliRunner().invoke(main, ["list", "--home", str(home)]).exit_code == 0
    for n in range(200):  # more rows than the free pages of the index hold
        write_claude_session(home, f"bbbbbbbb-0000-4000-8000-{n:012d}", f"/w/b{n}")
    real = indexdb._connect

    def full(path: Path) -> object:
        db = real(path)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")  # not one page more
        return db

    monkeypatch.setattr(indexdb, "_connect", full)
    result = CliRunner().invoke(main, ["list", "--home", str(home), "-n", "500"])
    assert result.exit_code == 0, result.output
    assert "could not update its index" in result.output
    assert "no room left" in result.output
    assert "SESSDEX_HOME" in result.output and "Traceback" not in result.output
    assert result.output.count("/w/b") == 200


def test_an_unwritable_state_folder_costs_only_the_memory_of_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A read-only home or a container: sessdex still lists, from a temporary index,
    and says where it could not write and what to set."""
    from sessdex import paths

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SESSDEX_HOME", str(blocker / "state"))
    monkeypatch.setattr(paths, "_fallback", None)
    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, "bbbbbbbb-0000-4000-8000-00000000000f", "/w/b")
    with caplog.at_level("WARNING"):
        rows = api.list_sessions(home).rows
    assert [row.id for row in rows] == ["bbbbbbbb-0000-4000-8000-00000000000f"]
    assert f"cannot keep its index in {blocker / 'state' / 'cache'}" in caplog.text
    assert "SESSDEX_HOME" in caplog.text
    stand_in = paths.cache_dir()
    assert stand_in.is_dir() and stand_in.is_relative_to(tempfile.gettempdir())


@pytest.mark.parametrize("finished", [True, False], ids=["then written", "left so"])
def test_a_database_read_mid_write_is_read_again_once_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finished: bool
) -> None:
    """The Cursor IDE writes its store in place (no WAL) while sessdex reads it without
    a lock: a read can meet half-written pages. Read again once the file has changed, the
    store's conversations are all listed and no problem is reported; a store that stays
    broken is read once and said to be broken."""
    from tests.sources.test_cursor_ide import AGENT, sample

    home_dir = tmp_path / "home"
    db = sample(home_dir)
    whole = db.read_bytes()
    half_written = whole[:100] + bytes(len(whole) - 100)  # pages not yet written
    db.write_bytes(half_written)
    cursor_source = sources.get("cursor")
    original = cursor_source.parse
    reads: list[str] = []

    def parse(path, location, diagnostics):  # type: ignore[no-untyped-def]
        reads.append(path.name)
        found = original(path, location, diagnostics)
        if finished and path == db and db.read_bytes() == half_written:
            db.write_bytes(whole)  # the app's write is over
            os.utime(db, ns=(db.stat().st_atime_ns, db.stat().st_mtime_ns + 10**9))
        return found

    monkeypatch.setattr(cursor_source, "parse", parse)
    listing = api.list_sessions(Home.at(home_dir), apps=["cursor"])
    listed = {row.id for row in listing.rows}
    problems = listing.report.diagnostics.get("cursor")
    if finished:
        assert AGENT in listed
        assert reads.count("state.vscdb") == 2
        assert problems is None or not problems.problems
    else:
        assert AGENT not in listed
        assert reads.count("state.vscdb") == 1  # unchanged: no point reading it again
        assert problems is not None and "state.vscdb" in " ".join(problems.problems)


def test_a_new_build_of_sessdex_reads_unchanged_files_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """An index is per build of sessdex (`indexfile.code_stamp`): after an upgrade that
    fixes a reader, files that did not change are read again by the fixed reader, not
    listed as the older one made them; the older build's index is removed."""
    from sessdex import indexfile
    from sessdex.sources import claude

    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, "0d0d0d0d-0000-4000-8000-000000000001", "/w",
                         prompt="the real title")  # fmt: skip
    real_parse = claude.parse

    def older_parse(*args: object, **kwargs: object) -> list[object]:
        return [
            replace(found, title="what an older reader made of it")
            for found in real_parse(*args, **kwargs)  # type: ignore[arg-type]
        ]

    monkeypatch.setattr(indexfile, "_STAMP", "0ld0b1d0", raising=False)
    monkeypatch.setattr(claude, "parse", older_parse)
    [row] = api.list_sessions(home).sessions()
    assert row.title == "what an older reader made of it"
    older = list(sessdex_state.rglob("index-*-0ld0b1d0.sqlite"))
    monkeypatch.setattr(claude, "parse", real_parse)
    [row] = api.list_sessions(home).sessions()  # the same build: its index holds
    assert row.title == "what an older reader made of it"
    monkeypatch.setattr(indexfile, "_STAMP", "fe11b1d0", raising=False)  # an upgrade
    [row] = api.list_sessions(home).sessions()
    assert row.title == "the real title"
    # the older build's index stays while it may still be in use (two installs)...
    assert older and all(path.exists() for path in older)
    # ...and goes once a week passed without it being written
    week_ago = time.time() - indexdb.OTHER_BUILD_KEPT - 60
    for path in older:
        for other in path.parent.glob(path.name + "*"):
            os.utime(other, (week_ago, week_ago))
    monkeypatch.setattr(indexfile, "_STAMP", "5ec0b1d0", raising=False)
    api.list_sessions(home)
    assert not any(path.exists() for path in older)


def test_another_homes_index_unused_for_four_weeks_goes(
    tmp_path: Path, sessdex_state: Path
) -> None:
    """Indexes of other homes (a copied home read once with --home, or one per working
    folder an older sessdex named after PYENV_DIR) were kept for ever: `doctor` counted
    hundreds of MB of them, and only deleting the folder by hand freed it."""
    cache = sessdex_state / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    stale = time.time() - 29 * 24 * 3600  # four weeks and a day
    recent = time.time() - 2 * 24 * 3600
    old_home = [cache / "index-0123456789ab-0ld0b1d0.sqlite"]
    old_home.append(old_home[0].with_name(old_home[0].name + "-wal"))
    old_home.append(old_home[0].with_name(old_home[0].name + ".damaged"))
    used_home = cache / "index-ba9876543210-0ld0b1d0.sqlite"
    for path in [*old_home, used_home]:
        path.write_bytes(b"")
        os.utime(path, (stale, stale))
    os.utime(used_home, (recent, recent))  # read by a --home run two days ago
    home = Home.at(make_home(tmp_path, 1))
    assert len(api.list_sessions(home).rows) == 1
    assert not any(path.exists() for path in old_home)
    assert used_home.exists() and index.index_file(home).exists()


def test_marks_and_files_left_of_an_index_gone_go_as_the_index_would(
    tmp_path: Path, sessdex_state: Path
) -> None:
    """An index deleted by hand (the README's remedy) leaves its build's `.carried`
    mark, and one set aside as damaged its `.damaged` copy: with no index beside them
    they were kept for ever. They go after the week (this home's) or four weeks
    (another home's) an index unused goes after; the running build's own mark stays."""
    home = Home.at(make_home(tmp_path, 1))
    path = index.index_file(home)
    prefix = path.name.rsplit("-", 1)[0]
    cache = path.parent
    cache.mkdir(parents=True, exist_ok=True)
    week = time.time() - indexdb.OTHER_BUILD_KEPT - 60
    month = time.time() - 29 * 24 * 3600
    recent = time.time() - 2 * 24 * 3600
    stale = {
        cache / f"{prefix}-0ld0b1d0.sqlite.carried": week,
        cache / f"{prefix}-0ld0b1d1.sqlite-wal": week,
        cache / f"{prefix}-0ld0b1d1.sqlite.carried": week,
        cache / "index-0123456789ab-0ld0b1d0.sqlite.damaged": month,
        cache / "index-0123456789ab-0ld0b1d0.sqlite.carried": month,
    }
    kept = {
        cache / f"{prefix}-0ld0b1d2.sqlite.carried": recent,
        cache / "index-ba9876543210-0ld0b1d0.sqlite.carried": week,
    }
    for each, when in {**stale, **kept}.items():
        each.write_bytes(b"")
        os.utime(each, (when, when))
    assert len(api.list_sessions(home).rows) == 1
    assert [each.name for each in stale if each.exists()] == []
    assert all(each.exists() for each in kept)
    own = Path(f"{path}.carried")
    assert own.exists()
    os.utime(own, (month, month))
    for suffix in ("", "-wal", "-shm"):  # deleted by hand, as the README says
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    assert len(api.list_sessions(home).rows) == 1
    assert own.exists()


def test_a_database_that_cannot_be_read_for_now_keeps_its_sessions_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live database whose snapshot is refused (no room on the cache's disk) gave no
    sessions: they vanished from `list` and `show`, silently after the first run, until
    the app wrote again. They stay as they were, the problem is said each time, and the
    database is read again at the next refresh."""
    import shutil
    import sqlite3
    from collections import namedtuple

    from click.testing import CliRunner

    from sessdex import databases
    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "opencode" / "home", home)
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    app = sqlite3.connect(db)
    app.execute("PRAGMA journal_mode = WAL")
    app.execute("PRAGMA wal_autocheckpoint = 0")
    app.execute("UPDATE session SET title = title || '!' WHERE rowid = 1")
    app.commit()

    def listed() -> tuple[set[str], str]:
        result = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
        assert result.exit_code == 0, result.output
        return {r["id"] for r in json.loads(result.stdout)}, result.stderr

    before, _ = listed()
    assert before
    app.execute("UPDATE session SET title = title || '?' WHERE rowid = 1")
    app.commit()
    databases.forget_snapshots()  # a new run: a new snapshot is due
    usage = namedtuple("usage", "total used free")
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**9, 10**9, 0))
    for _ in range(2):
        ids, said = listed()
        assert ids == before and "no room" in said
    monkeypatch.setattr(shutil, "disk_usage", real)
    assert listed()[0] == before
    app.close()


def test_a_database_that_cannot_be_read_for_now_keeps_its_sessions_on_the_quick_path(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """The same on a real warm `sessdex list`, which re-reads the changed database
    alone (no folder changed): its sessions vanished there while the full command kept
    them."""
    import shutil
    import sqlite3
    from collections import namedtuple

    from sessdex import databases, quick
    from tests.helpers import list_rows, real_list

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "opencode" / "home", home)
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    app = sqlite3.connect(db)
    app.execute("PRAGMA journal_mode = WAL")
    app.execute("PRAGMA wal_autocheckpoint = 0")
    app.execute("UPDATE session SET title = title || '!' WHERE rowid = 1")
    app.commit()
    args = ["--json", "--home", str(home)]
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    before = {row["id"] for row in json.loads(real_list(home, ["list", *args]).stdout)}
    assert before
    app.execute("UPDATE session SET title = title || '?' WHERE rowid = 1")
    app.commit()
    databases.forget_snapshots()  # a new run: a new snapshot is due
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**9, 10**9, 0))
    capsysbinary.readouterr()
    for _ in range(2):
        assert quick.answer("list", args)  # the quick path: the database alone re-read
        said = capsysbinary.readouterr()
        assert {row["id"] for row in json.loads(said.out)} == before
        assert b"no room" in said.err
    monkeypatch.undo()
    app.close()
    assert set(list_rows(home, tmp_path / "state", monkeypatch)) == before


@LIST_PATHS
def test_a_database_cut_short_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database cut to half (a copy broken off, a disk that lost its end) lists what a
    first listing of it lists, warm too: the rows a warm list kept from before are kept
    only where the file could not be read for now (no room for its copy), not where it
    is damaged; the problem is said either way."""
    import shutil

    from click.testing import CliRunner

    from sessdex.cli import main
    from tests.helpers import list_rows, real_list

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "hermes" / "home", home)
    db = home / ".hermes" / "state.db"
    before = list_rows(home, tmp_path / "warm", monkeypatch, "--all", listing=listing)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "warm"))
    args = ["list", "--json", "--all", "--home", str(home)]
    if listing == "quick":
        result: Any = real_list(home, args)
    else:
        result = CliRunner().invoke(main, args)
    assert f"cannot read {db}" in result.stderr
    warm = {row["id"]: row for row in json.loads(result.stdout)}
    assert warm == list_rows(
        home, tmp_path / "cold", monkeypatch, "--all", listing=listing
    )
    assert len(warm) < len(before)


def test_a_session_dated_far_in_the_future_is_not_listed_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a broken clock (or a value in the wrong unit) dated one transcript 2099: it was
    # listed first, 'now', forever; a clock a few minutes ahead is still believed
    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    monkeypatch.setattr(indexparse, "_clock", now.timestamp, raising=False)
    home_dir = tmp_path / "home"
    write_claude_session(home_dir, "a" * 8 + "-0000-4000-8000-" + "0" * 12, "/w/a")
    write_claude_session(
        home_dir,
        "b" * 8 + "-0000-4000-8000-" + "0" * 12,
        "/w/b",
        when="2099-01-01T10:00:00.000Z",
    )
    write_claude_session(
        home_dir,
        "c" * 8 + "-0000-4000-8000-" + "0" * 12,
        "/w/c",
        when="2026-11-21T12:03:00.000Z",
    )
    # Go's zero time, 0001-01-01T00:00:00Z, is no time either (as an epoch of 0 is none)
    zero = write_claude_session(
        home_dir, "d" * 8 + "-0000-4000-8000-" + "0" * 12, "/w/d"
    )
    zero.write_text(
        zero.read_text().replace("2026-11-20T10:00:00.000Z", "0001-01-01T00:00:00Z", 1)
    )
    listing = api.list_sessions(Home.at(home_dir), apps=["claude"])
    found = [(s.id[0], s.created, s.updated) for s in listing.sessions()]
    day = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
    assert found == [
        (
            "c",
            day.replace(day=21, hour=12, minute=3),
            day.replace(day=21, hour=12, minute=3, second=5),
        ),
        ("a", day, day.replace(second=5)),
        ("d", None, day.replace(second=5)),
        ("b", None, None),
    ]
    skipped = listing.report.diagnostics["claude"].skipped
    assert (skipped[diagnostics.FUTURE], skipped[diagnostics.BEFORE_1970]) == (1, 1)
    # the clock comes to 2099: the file, unchanged, is read again and its session dated
    # (it stayed undated until the file changed)
    monkeypatch.setattr(
        indexparse, "_clock", datetime(2099, 1, 2, tzinfo=UTC).timestamp
    )
    listing = api.list_sessions(Home.at(home_dir), apps=["claude"])
    dated = {s.id[0]: s.created for s in listing.sessions()}
    assert dated["b"] == datetime(2099, 1, 1, 10, 0, tzinfo=UTC)


def test_a_home_given_by_another_path_than_the_index_was_built_by_shows_that_path(
    tmp_path: Path,
) -> None:
    """Built by `--home /a`, then asked with `--home /b` (/b -> /a): every path shown,
    `list --json` (quick and full), `find --json`, show's header and resume's `cd`, is
    under /b, the home given this run; and back under /a when /a is given again."""
    from click.testing import CliRunner

    from sessdex.cli import main

    real = tmp_path / "real"
    project = real / "proj"
    project.mkdir(parents=True)
    session_id = "ffffffff-0000-4000-8000-00000000000a"
    write_claude_session(real, session_id, str(project), title="linked one")
    link = tmp_path / "link"
    link.symlink_to(real)
    runner = CliRunner()

    def listed(home: Path, *quick: str) -> dict[str, str]:
        env = {**os.environ, "COLUMNS": "200"}
        if not quick:
            env["SESSDEX_NO_QUICK"] = "1"
        result = subprocess.run(
            [sys.executable, "-m", "sessdex", "list", "--json", "--home", str(home)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        (record,) = json.loads(result.stdout)
        return {"path": record["path"], "cwd": record["cwd"]}

    name = f".claude/projects/{str(project).replace('/', '-')}/{session_id}.jsonl"
    assert listed(real) == {"path": f"{real}/{name}", "cwd": str(project)}
    for home, other in ((link, real), (real, link), (link, real)):
        shown = {"path": f"{home}/{name}", "cwd": f"{home}/proj"}
        assert listed(home) == shown
        assert listed(home, "quick") == shown
        found = runner.invoke(main, ["find", "linked", "--json", "--home", str(home)])
        assert json.loads(found.output)[0]["path"] == shown["path"], found.output
        header = runner.invoke(main, ["show", "ffff", "--home", str(home)])
        assert "~/proj · main" in header.output, header.output  # a folder in the home
        assert str(other) not in header.output
        resumed = runner.invoke(
            main, ["resume", "--print", "ffff", "--home", str(home)]
        )
        assert resumed.exit_code == 0, resumed.output
        assert f"cd {home}/proj && claude --resume {session_id}" in resumed.output
    assert len(list(index.index_file(Home.at(real)).parent.glob("index-*.sqlite"))) == 1


def test_only_paths_under_the_recorded_home_are_put_under_the_given_one() -> None:
    """A sibling whose name starts like the home's is no path under it."""
    from sessdex.indexfile import rehomed, rehomed_records

    assert rehomed("/h/a/x", "/h/a", "/l") == "/l/x"
    assert rehomed("/h/a", "/h/a", "/l") == "/l"
    assert rehomed("/h/ab/x", "/h/a", "/l") == "/h/ab/x"
    body = b'{"cwd":"/h/ab","path":"/h/a/f.db#session/1","title":"/h/a/t"}'
    assert rehomed_records(body, "/h/a", "/l") == (
        b'{"cwd":"/h/ab","path":"/l/f.db#session/1","title":"/h/a/t"}'
    )


def test_usage_names_a_sessions_folder_under_the_home_given(tmp_path: Path) -> None:
    """`usage session`'s folder of a session is under the home given this run, where the
    index was built by another path to it."""
    from click.testing import CliRunner

    from sessdex.cli import main

    real = tmp_path / "real"
    (real / "proj").mkdir(parents=True)
    write_claude_session(
        real, "ffffffff-0000-4000-8000-00000000000b", str(real / "proj")
    )
    link = tmp_path / "link"
    link.symlink_to(real)
    runner = CliRunner()
    for home in (real, link):
        result = runner.invoke(
            main, ["usage", "session", "--json", "--home", str(home)]
        )
        assert result.exit_code == 0, result.output
        (row,) = json.loads(result.output)
        assert row["cwd"] == f"{home}/proj"


def test_an_older_builds_index_without_skip_counts_hides_no_skipped_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """An index an older sessdex wrote, its files' skip counts not stored (the shape
    before they were: `files.diagnostics` NULL), is never read by a newer build: the new
    build's index is its own (`indexfile.code_stamp`), every file read again once, so
    `list -v` and `doctor` name each skipped line, none taken for 0 from the old rows."""
    import shutil
    import sqlite3

    from click.testing import CliRunner

    from sessdex import indexfile
    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(
        Path(__file__).parent / "data" / "auggie" / "malformed" / "home", home
    )

    def listed() -> str:
        result = CliRunner().invoke(main, ["list", "-v", "--home", str(home)])
        assert result.exit_code == 0, result.output
        return result.stderr

    monkeypatch.setattr(indexfile, "_STAMP", "0ld0b1d0", raising=False)
    assert "not JSON" in listed()
    (older,) = sessdex_state.rglob("index-*-0ld0b1d0.sqlite")
    with sqlite3.connect(older) as db:  # as an index of before skip counts were kept
        db.execute("UPDATE files SET diagnostics = NULL")
    db.close()
    assert "not JSON" not in listed()  # that build's own index: nothing to name
    monkeypatch.setattr(indexfile, "_STAMP", "fe11b1d0", raising=False)  # an upgrade
    said = listed()
    assert "33333333-3333-4333-8333-333333333333.json:1: not JSON" in said
    report = CliRunner().invoke(main, ["doctor", "--json", "--home", str(home)])
    (auggie,) = [a for a in json.loads(report.stdout) if a["app"] == "auggie"]
    assert auggie["skipped_lines"]


@pytest.mark.parametrize(
    "app", ["openhands", "vibe", "qwen", "vscode", "crush", "aider", "opencode"]
)
def test_a_home_unchanged_reads_nothing_again_though_parses_read_other_files(
    app: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each of these apps' parses reads files beside the one parsed (noted with how they
    # looked, `freshness.depending`): none changed, a refresh, the quick path's check
    # and `unchanged` read nothing again
    import shutil
    import sqlite3

    from sessdex import quick

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / app / "home", home)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    source = sources.get(app)
    held = index.Index(Home.at(home))
    try:
        assert held.refresh([source]).parsed > 0
        depends = held.db.execute("SELECT count(*) FROM depends").fetchone()[0]
        assert depends > 0  # what this test is about
        assert held.refresh([source]).parsed == 0
        assert held.unchanged([app]) == {app}
        db = sqlite3.connect(held.path)
        try:
            assert quick._changed_files(db, [app], "") == []
        finally:
            db.close()
    finally:
        held.close()
