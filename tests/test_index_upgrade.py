"""An upgrade reads again only the sessions of the apps whose code it changed
(`indexcarry`): the rows of the others are kept from the older build's index."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex import api, indexcarry, indexdb, indexfile
from sessdex.cli import main
from sessdex.sources import Home
from tests.helpers import write_claude_session

THREAD = "019bd5f2-4444-7000-8000-0000000000d9"


def _write_home(root: Path) -> Home:
    """Two Claude Code sessions and one Codex rollout, with tokens."""
    for n in (1, 2):
        write_claude_session(root, f"0d0d0d0d-0000-4000-8000-00000000000{n}", "/w",
                             prompt=f"task {n}")  # fmt: skip
    count = {"input_tokens": 1000, "cached_input_tokens": 400, "output_tokens": 10,
             "reasoning_output_tokens": 0, "total_tokens": 1010}  # fmt: skip
    lines = [
        {"timestamp": "2026-01-06T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": THREAD, "timestamp": "2026-01-06T10:00:00.000Z",
                     "cwd": "/home/dev/x", "cli_version": "0.80.0"}},
        {"timestamp": "2026-01-06T10:00:01.000Z", "type": "turn_context",
         "payload": {"cwd": "/home/dev/x", "model": "gpt-5.1"}},
        {"timestamp": "2026-01-06T10:00:02.000Z", "type": "event_msg",
         "payload": {"type": "token_count",
                     "info": {"total_token_usage": count, "last_token_usage": count}}},
    ]  # fmt: skip
    folder = root / ".codex" / "sessions" / "2026" / "01" / "06"
    folder.mkdir(parents=True)
    name = f"rollout-2026-01-06T10-00-00-{THREAD}.jsonl"
    (folder / name).write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return Home.at(root)


def _upgrade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str) -> None:
    """A new build of sessdex whose copy of `changed` (a path below the package) differs
    from this one's: its own index name, and that file's bytes changed."""
    copy = tmp_path / f"build-{changed.replace('/', '-')}"
    shutil.copytree(indexcarry.ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / changed, "a") as file:
        file.write("\n# a fix\n")
    monkeypatch.setattr(indexcarry, "ROOT", str(copy))
    monkeypatch.setattr(indexfile, "_STAMP", indexfile.stamp_of(str(copy)))


def _usage(home: Home) -> object:
    result = CliRunner().invoke(
        main, ["usage", "session", "--home", str(home.path), "--json"]
    )
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path) -> Home:
    found = _write_home(tmp_path / "home")
    assert api.list_sessions(found).report.parsed == 3  # cold: every file
    return found


def test_an_upgrade_of_one_reader_reads_only_its_apps_files_again(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first run after an upgrade read every session of every app again (the index
    was per build): one that changed only Codex's reader reads only the rollout."""
    cold_usage = _usage(home)
    cold = api.list_sessions(home).sessions()
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    listed = api.list_sessions(home)
    assert listed.report.parsed == 1
    assert listed.sessions() == cold
    assert _usage(home) == cold_usage


def test_an_upgrade_of_shared_code_reads_every_apps_files_again(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change to code every reader depends on (`files`, the registry's facts) keeps
    nothing: what the older code made of any file may be wrong now."""
    for changed in ["files.py", "sources/_facts.py", "data/prices.json"]:
        _upgrade(tmp_path, monkeypatch, changed)
        assert api.list_sessions(home).report.parsed == 3, changed


def test_a_release_number_changed_alone_keeps_every_apps_rows(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every release changes `__version__`: the number alone reads no file otherwise,
    so it reads nothing again (it sits in the package's `__init__`, code every reader
    counts, and kept no row of any app)."""
    copy = tmp_path / "build-release"
    shutil.copytree(indexcarry.ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "__init__.py"
    text = init.read_text()
    assert '__version__ = "' in text
    init.write_text(text.replace('__version__ = "', '__version__ = "9.9.9+', 1))
    monkeypatch.setattr(indexcarry, "ROOT", str(copy))
    monkeypatch.setattr(indexfile, "_STAMP", indexfile.stamp_of(str(copy)))
    assert api.list_sessions(home).report.parsed == 0
    _upgrade(tmp_path, monkeypatch, "__init__.py")  # anything else in it still counts
    assert api.list_sessions(home).report.parsed == 3


def test_an_upgrade_of_a_module_one_reader_imports_reads_its_app_again(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader's helper module (imported by it, lazily too) counts as its code."""
    _upgrade(tmp_path, monkeypatch, "sources/_claude_read.py")
    assert api.list_sessions(home).report.parsed == 2


def test_an_upgrade_that_brings_another_python_reads_every_apps_files_again(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python and the libraries sessdex reads with (orjson, msgspec, ...) count as every
    app's code: another version may read a file otherwise."""
    import sys

    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    monkeypatch.setattr(sys, "version", sys.version + " (another)")
    assert api.list_sessions(home).report.parsed == 3


def test_an_upgrade_that_brings_another_sqlite_reads_every_apps_files_again(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite reads the apps' databases (its JSON functions, its parser): another
    version counts as every app's code, as Python's does."""
    import sqlite3

    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    monkeypatch.setattr(sqlite3, "sqlite_version", "9.99.0")
    assert api.list_sessions(home).report.parsed == 3


def test_an_older_index_read_only_in_part_keeps_nothing(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """An older build's index that fails part way through the copy (a table gone, a bad
    sector) keeps none of its rows: half an app's rows would be a wrong listing."""
    import sqlite3

    (older,) = sessdex_state.rglob(f"index-*-{indexfile.code_stamp()}.sqlite")
    with sqlite3.connect(older) as db:
        db.execute("DROP TABLE depends")
    db.close()
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    listed = api.list_sessions(home)
    assert listed.report.parsed == 3
    assert len(listed.sessions()) == 3


def test_an_index_made_by_a_process_older_than_its_files_keeps_nothing_for_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """A `watch` started before an upgrade runs the older code over the newer files: an
    index it makes then stores no digests (those of the files would not be of the code
    that wrote its rows), so the new build keeps none of its rows."""
    home = _write_home(tmp_path / "home")
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    newer = indexfile.code_stamp()
    monkeypatch.setattr(indexfile, "_STAMP", "01d0b1d0")  # started before it
    assert api.list_sessions(home).report.parsed == 3
    monkeypatch.setattr(indexfile, "_STAMP", newer)
    assert api.list_sessions(home).report.parsed == 3


def test_a_module_imported_in_any_way_counts_as_its_readers_code(
    tmp_path: Path,
) -> None:
    """Each way a reader may load another module (a list with comments, a lazy import,
    a helper named in a string) puts that module's changes in the reader's digest."""
    sources = tmp_path / "pkg" / "sources"
    sources.mkdir(parents=True)
    (sources / "__init__.py").write_text("")
    (sources / "reader.py").write_text(
        "from . import (  # the helpers, (all) of them\n"
        "    other,  # first, then\n"
        "    third,\n"
        ")\n"
        "def later():\n"
        "    from ._lazy import x\n"
        "    return load_by_name('_named')\n"
    )
    for name in ("other", "third", "_lazy", "_named", "unrelated"):
        (sources / f"{name}.py").write_text("")
    root = str(tmp_path / "pkg")
    before = indexcarry._digests(["reader", "unrelated"], root)
    for name in ("other", "third", "_lazy", "_named"):
        (sources / f"{name}.py").write_text(f"# {name} changed\n")
        after = indexcarry._digests(["reader", "unrelated"], root)
        assert after["reader"] != before["reader"], name
        assert after["unrelated"] == before["unrelated"], name
        before = after


def test_an_older_index_written_during_the_copy_is_copied_as_of_one_moment(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """The older build's `watch` may write its index while the new build copies it:
    every table is read as of one moment, so the files' signatures the quick path
    trusts are those of the rows kept, not of a later write's."""
    import marshal
    import sqlite3

    from sessdex import freshness

    (older,) = sessdex_state.rglob(f"index-*-{indexfile.code_stamp()}.sqlite")
    copy_rows = indexcarry._copy_rows

    def watched(db: sqlite3.Connection, old: sqlite3.Connection, table: str,
                *rest: object) -> None:  # fmt: skip
        copy_rows(db, old, table, *rest)  # type: ignore[arg-type]
        if table == "files":  # the watch writes a grown file's rows
            with sqlite3.connect(older, isolation_level=None) as watch:
                watch.execute("BEGIN IMMEDIATE")
                watch.execute("UPDATE files SET size = size + 1")
                freshness.pack_signatures(watch, ["claude", "codex"])
                watch.execute("COMMIT")
            watch.close()

    monkeypatch.setattr(indexcarry, "_copy_rows", watched)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    indexdb.connect(indexdb.index_file(home)).close()  # made: the copy, nothing read
    (newer,) = sessdex_state.rglob(f"index-*-{indexfile.code_stamp()}.sqlite")
    with sqlite3.connect(newer) as db:
        files = db.execute(
            "SELECT path, size, mtime_ns, inode, wal FROM files WHERE app = 'claude'"
            " AND nested = 0"
        ).fetchall()
        assert files, "claude's rows were not kept"
        row = db.execute(
            "SELECT packed FROM signatures WHERE app = 'claude' AND nested = 0"
        ).fetchone()
    db.close()
    assert sorted(marshal.loads(row[0])) == sorted(files)


def test_another_sessdex_is_not_kept_waiting_by_the_copy(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """The copy held the new index's write lock for its whole length (40 s for an older
    index of 200,000 sessions, `bench/bench_upgrade.py --held`): another sessdex gave
    up after its busy timeout. The index is made beside and put in place whole: one
    run meanwhile lists as it would have, its index kept, the copy left out (no
    second `home` row, no app's rows of two builds)."""
    import sqlite3

    copy_rows = indexcarry._copy_rows
    meanwhile: list[object] = []

    def and_another_runs(db: sqlite3.Connection, old: sqlite3.Connection,
                         table: str, *rest: object) -> None:  # fmt: skip
        copy_rows(db, old, table, *rest)  # type: ignore[arg-type]
        if table == "files":
            listed = api.list_sessions(home)
            meanwhile.append((listed.report.parsed, len(listed.sessions())))

    monkeypatch.setattr(indexdb, "BUSY_TIMEOUT_MS", 200)
    # the run meanwhile waits for the making while it goes on: here, in the same
    # thread, it stops meanwhile
    monkeypatch.setattr(indexcarry, "MAKING_STILL", 0.2)
    monkeypatch.setattr(indexcarry, "_copy_rows", and_another_runs)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    assert len(api.list_sessions(home).sessions()) == 3
    assert meanwhile == [(3, 3)]
    (newer,) = sessdex_state.rglob(f"index-*-{indexfile.code_stamp()}.sqlite")
    with sqlite3.connect(newer) as db:
        homes = db.execute("SELECT count(*) FROM home").fetchone()[0]
    db.close()
    assert homes == 1
    assert api.list_sessions(home).report.parsed == 0


def test_a_run_while_the_copy_is_made_waits_for_it(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that starts while another makes the new index (the copy made beside, not
    yet in place) waits for it while it is written, and reads only what the copy left
    out: making its own, it read every app's files again."""
    import threading
    import time

    copy_rows = indexcarry._copy_rows
    copying = threading.Event()

    def slowly(db: sqlite3.Connection, old: sqlite3.Connection, table: str,
               *rest: object) -> None:  # fmt: skip
        copy_rows(db, old, table, *rest)  # type: ignore[arg-type]
        if table == "files":
            copying.set()
            time.sleep(1)

    monkeypatch.setattr(indexcarry, "_copy_rows", slowly)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    path = indexdb.index_file(home)
    maker = threading.Thread(target=lambda: indexdb.connect(path).close())
    maker.start()
    assert copying.wait(30)
    listed = api.list_sessions(home)
    maker.join()
    assert listed.report.parsed == 1
    assert len(listed.sessions()) == 3


def test_an_index_deleted_after_an_upgrade_reads_every_apps_files_again(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """Deleting the index (what `doctor --own` names) reads every file again, as the
    README says to do after some changes no file shows (Aider's encoding setting): the
    build that made it once copies nothing from an older build's index again."""
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    assert api.list_sessions(home).report.parsed == 1
    (newer,) = sessdex_state.rglob(f"index-*-{indexfile.code_stamp()}.sqlite")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{newer}{suffix}").unlink(missing_ok=True)
    assert api.list_sessions(home).report.parsed == 3


def test_an_upgrade_while_the_digests_are_worked_out_stores_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """An upgrade landing while a process reads its code's files for the digests gives
    digests of the newer code beside rows the older code wrote: none are stored, and
    the next build keeps none of its rows."""
    import sqlite3

    home = _write_home(tmp_path / "home")
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    digests = indexcarry._digests

    def upgraded_meanwhile(apps: object, root: str, *kept: Path) -> dict[str, str]:
        found = digests(apps, root, *kept)  # type: ignore[arg-type]
        with open(Path(root) / "sources" / "claude.py", "a") as file:
            file.write("\n# the upgrade, landed meanwhile\n")
        return found

    monkeypatch.setattr(indexcarry, "_digests", upgraded_meanwhile)
    indexdb.connect(indexdb.index_file(home)).close()
    (made,) = sessdex_state.rglob(f"index-*-{indexfile.code_stamp()}.sqlite")
    with sqlite3.connect(made) as db:
        stored = db.execute("SELECT count(*) FROM codes").fetchone()[0]
    db.close()
    assert stored == 0


def test_an_upgrade_from_the_release_before_the_codes_table_reads_everything(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """The previous release's index is of schema 8 (no `codes`): the first run of this
    one copies nothing from it and lists what a cold run lists."""
    import sqlite3

    cold = api.list_sessions(home).sessions()
    (older,) = sessdex_state.rglob(f"index-*-{indexfile.code_stamp()}.sqlite")
    with sqlite3.connect(older) as db:
        db.execute("DROP TABLE codes")
        db.execute("PRAGMA user_version = 8")
    db.close()
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    listed = api.list_sessions(home)
    assert listed.report.parsed == 3
    assert listed.sessions() == cold


def test_a_context_file_rewritten_with_the_same_meaning_after_an_upgrade_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """Kimi rewrites kimi.json at every session's start, its meaning the same: the
    first such rewrite after an upgrade that kept Kimi's rows reads none of its
    sessions again, as it reads none before (the digests of what each context file
    meant are kept with the rows)."""
    import json

    from sessdex.sources import kimi

    root = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "kimi" / "real" / "home", root)
    home = Home.at(root)
    cold = api.list_sessions(home).sessions()
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    assert api.list_sessions(home).report.parsed == 0  # Kimi's rows kept
    parsed: list[str] = []
    parse = kimi.parse
    monkeypatch.setattr(
        kimi, "parse", lambda path, *a: parsed.append(path.name) or parse(path, *a)
    )
    kimi_json = root / ".kimi" / "kimi.json"
    metadata = json.loads(kimi_json.read_text())
    metadata["work_dirs"][0]["last_session_id"] = "0000-begun-since"
    kimi_json.write_text(json.dumps(metadata, indent=2))
    assert api.list_sessions(home).sessions() == cold
    assert parsed == []


def test_what_each_module_imports_kept_from_an_older_build_follows_its_changes(
    tmp_path: Path,
) -> None:
    """What each module imports is kept beside the indexes by its bytes' digest, for
    the next build's digests: a module the upgrade changed is read again, so a new
    import puts the imported module's changes in its reader's digest."""
    sources = tmp_path / "pkg" / "sources"
    sources.mkdir(parents=True)
    (sources / "__init__.py").write_text("")
    (sources / "reader.py").write_text("from . import other\n")
    for name in ("other", "_later", "unrelated"):
        (sources / f"{name}.py").write_text("")
    root, kept = str(tmp_path / "pkg"), tmp_path / "cache"
    kept.mkdir()
    before = indexcarry._digests(["reader", "unrelated"], root, kept)
    assert (kept / indexcarry.SCANS).exists()
    assert indexcarry._digests(["reader", "unrelated"], root, kept) == before
    (sources / "reader.py").write_text("from . import other, _later\n")
    changed = indexcarry._digests(["reader", "unrelated"], root, kept)
    (sources / "_later.py").write_text("# changed\n")
    after = indexcarry._digests(["reader", "unrelated"], root, kept)
    assert after["reader"] != changed["reader"] != before["reader"]
    assert after["unrelated"] == before["unrelated"]


_DIGESTS_UNDER_A_GIGABYTE = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from sessdex import indexcarry
print(indexcarry._digests(["claude", "codex"], indexcarry.ROOT, Path(sys.argv[1])))
"""


def test_module_scans_kept_damaged_are_read_again(tmp_path: Path) -> None:
    """`code-scans.marshal` cut short, or its bytes garbled (a disk error): the scans are
    read again and the digests are the same. marshal trusts what it is given: five bytes
    (a tuple header asking for 2**31 items) took 16 GB and 90 s, here a MemoryError the
    run died of."""
    import subprocess
    import sys

    kept = tmp_path / "cache"
    kept.mkdir()
    whole = indexcarry._digests(["claude", "codex"], indexcarry.ROOT, kept)
    good = (kept / indexcarry.SCANS).read_bytes()
    for damaged in (good[: len(good) // 2], b"(\xff\xff\xff\x7f", b"\x00" * 4096,
                    good[:40] + b"\xff" * 8 + good[48:]):  # fmt: skip
        (kept / indexcarry.SCANS).write_bytes(damaged)
        run = subprocess.run(
            [sys.executable, "-c", _DIGESTS_UNDER_A_GIGABYTE, str(kept)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.strip() == str(whole)


def test_a_run_just_as_the_copy_begins_waits_for_it(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that starts after the maker's mark and before its making is there (two
    runs started together) waits for it too: it made its own index, every app's files
    read again and the copy lost."""
    import threading
    import time

    make = indexcarry._make
    marked = threading.Event()

    def late(making: str, *rest: object) -> None:
        marked.set()
        time.sleep(0.4)  # under `MAKING_BEGUN`
        make(making, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(indexcarry, "_make", late)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    path = indexdb.index_file(home)
    maker = threading.Thread(target=lambda: indexdb.connect(path).close())
    maker.start()
    assert marked.wait(30)
    listed = api.list_sessions(home)
    maker.join()
    assert listed.report.parsed == 1
    assert len(listed.sessions()) == 3


def test_a_making_cut_short_is_removed_by_the_run_that_stops_waiting(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a run killed while it made the index left (`.making`, as big as the rows
    copied: GBs of an older index of 200,000 sessions) goes once a run stopped waiting
    for it: it stayed beside the index as long as the build was used."""
    monkeypatch.setattr(indexcarry, "MAKING_STILL", 0.2)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    path = indexdb.index_file(home)
    Path(f"{path}{indexcarry.MADE}").touch()
    making = Path(f"{path}{indexcarry.MAKING}")
    making.write_bytes(b"SQLite format 3\x00" + b"\x00" * 8192)
    assert api.list_sessions(home).report.parsed == 3
    assert not making.exists()


def test_the_copy_is_kept_where_a_file_open_to_read_cannot_be_synced(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows flushes only a file open to write (`os.fsync` of one open to read fails,
    EBADF): the made index was synced through one, so there no copy was ever kept and
    every upgrade read every app's files again."""
    import errno
    import os

    sync = os.fsync

    def as_windows(fd: int) -> None:
        if _flags(fd) & os.O_ACCMODE == os.O_RDONLY:
            raise OSError(errno.EBADF, "Bad file descriptor")
        sync(fd)

    monkeypatch.setattr(os, "fsync", as_windows)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    assert api.list_sessions(home).report.parsed == 1


def _flags(fd: int) -> int:
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_GETFL)


def test_the_copy_is_kept_on_a_file_system_without_hard_links(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessdex_state: Path
) -> None:
    """Where the cache's file system has no hard links (FAT, some network shares:
    os.link fails, EPERM), the made index is renamed into place: it was dropped, every
    app's files read again."""
    import errno
    import os

    def no_links(*_: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    assert api.list_sessions(home).report.parsed == 1
    assert api.list_sessions(home).report.parsed == 0
    assert not list(sessdex_state.rglob("*.making")) + list(
        sessdex_state.rglob("*.placing")
    )


def test_without_hard_links_an_index_made_meanwhile_is_never_renamed_over(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rename is made only where no index is there yet: one another sessdex
    created meanwhile (open there, its WAL beside it) is never replaced; the copy is
    left out."""
    import errno
    import os

    made: list[int] = []

    def another_made_one(source: str, target: str) -> None:
        Path(target).write_bytes(b"")  # another sessdex's index, as SQLite creates it
        made.append(os.stat(target).st_ino)
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", another_made_one)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    assert api.list_sessions(home).report.parsed == 3
    assert made == [os.stat(indexdb.index_file(home)).st_ino]


def test_a_run_waits_while_the_made_index_reaches_the_disk(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The made index synced to a slow disk (GBs: seconds) changes no more while it is:
    a run waiting for it took it for one cut short past `MAKING_STILL`, made its own
    index and read every app's files again."""
    import os
    import threading
    import time

    sync = os.fsync
    syncing = threading.Event()

    def slowly(fd: int) -> None:
        syncing.set()
        time.sleep(1)  # five times `MAKING_STILL`
        sync(fd)

    monkeypatch.setattr(indexcarry, "MAKING_STILL", 0.2)
    monkeypatch.setattr(os, "fsync", slowly)
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    path = indexdb.index_file(home)
    maker = threading.Thread(target=lambda: indexdb.connect(path).close())
    maker.start()
    assert syncing.wait(30)
    listed = api.list_sessions(home)
    maker.join()
    assert listed.report.parsed == 1


# a run that makes the new index and stops once its files' rows are copied, till killed
_MAKER_STOPPED = """
import sys, time
from pathlib import Path
from sessdex import indexcarry, indexdb, indexfile
from sessdex.sources import Home
indexcarry.ROOT = sys.argv[1]
indexfile._STAMP = indexfile.stamp_of(sys.argv[1])
copy_rows = indexcarry._copy_rows
def and_stop(db, old, table, *rest):
    copy_rows(db, old, table, *rest)
    if table == "files":
        print("copying", flush=True)
        time.sleep(120)
indexcarry._copy_rows = and_stop
indexdb.connect(indexdb.index_file(Home.at(Path(sys.argv[2])))).close()
"""


def _kill_a_maker(home: Home) -> None:
    """A real sessdex process killed (SIGKILL) while it makes the new index (`.making`
    half written, its mark made), as `_upgrade` set it up here."""
    import signal
    import subprocess
    import sys

    child = subprocess.Popen(
        [sys.executable, "-c", _MAKER_STOPPED, indexcarry.ROOT, str(home.path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "copying"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(30)
        if child.stdout is not None:
            child.stdout.close()


def test_a_making_left_by_a_killed_run_costs_the_next_no_wait(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed (SIGKILL) while it made the index left its `.making`: the next run
    waited `MAKING_STILL` (5 s) for it to change before it made its own. The maker
    holds a lock that dies with it: a dead one is told at once."""
    import time

    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    _kill_a_maker(home)
    making = Path(f"{indexdb.index_file(home)}{indexcarry.MAKING}")
    assert making.exists()
    # a wait told from a loaded machine's slow run (two cores shared by a busy CI)
    monkeypatch.setattr(indexcarry, "MAKING_STILL", 20.0)
    started = time.monotonic()
    listed = api.list_sessions(home)
    waited = time.monotonic() - started
    assert listed.report.parsed == 3  # the killed run's copy is lost
    assert waited < indexcarry.MAKING_STILL / 2, waited
    assert not making.exists()


def test_a_lock_left_by_a_run_killed_placing_the_index_holds_no_later_run(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed (SIGKILL) while it held the lock under which an index is created
    or renamed into place (`.placing`) left it: every later run without hard links
    waited `PLACING_WAIT` (1 s) for it twice, dropped the copy and read every app's
    files again, for as long as the build was used."""
    import errno
    import os
    import signal
    import subprocess
    import sys
    import time

    def no_links(*_: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    path = indexdb.index_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_PLACING, str(path)], timeout=60
    )
    assert killed.returncode == -signal.SIGKILL
    monkeypatch.setattr(os, "link", no_links)
    # a wait told from a loaded machine's slow run (two cores shared by a busy CI)
    monkeypatch.setattr(indexcarry, "PLACING_WAIT", 10.0)
    started = time.monotonic()
    listed = api.list_sessions(home)
    waited = time.monotonic() - started
    assert listed.report.parsed == 1
    assert waited < indexcarry.PLACING_WAIT / 2, waited
    assert not Path(f"{path}{indexcarry.PLACING}").exists()


# a run killed as it holds the lock an index is put in place under
_KILLED_PLACING = """
import os, signal, sys
from pathlib import Path
from sessdex import indexcarry
with indexcarry._placing(Path(sys.argv[1])):
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_module_scans_half_written_by_runs_killed_are_removed(tmp_path: Path) -> None:
    """What a run killed while it wrote `code-scans.marshal` left beside it (its
    `.<pid>` part, 170 KB) goes when the scans are next written: each stayed in the
    cache for good. That of a live run goes only once a minute old (a write is ms)."""
    import os
    import subprocess
    import sys
    import time

    kept = tmp_path / "cache"
    kept.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = kept / f"{indexcarry.SCANS}.{int(gone.stdout)}"
    # a run writing now: a child of ours, alive (the test's parent may be pid 1 itself,
    # a run started in the background, then its part and the stuck one are one)
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    writing = kept / f"{indexcarry.SCANS}.{running.pid}"
    stuck = kept / f"{indexcarry.SCANS}.1"  # a pid alive, its part two minutes old
    other = kept / f"{indexcarry.SCANS}.notes"
    for part in (dead, writing, stuck, other):
        part.write_bytes(b"\x00" * 1000)
    old = time.time() - 120
    os.utime(stuck, (old, old))
    try:
        indexcarry._digests(["claude"], indexcarry.ROOT, kept)
    finally:
        running.kill()
        running.wait()
    assert (kept / indexcarry.SCANS).exists()
    assert sorted(p.name for p in kept.iterdir()) == sorted(
        [indexcarry.SCANS, writing.name, other.name]
    )


# a run killed once the index it made is in place, its `.making` not yet removed
_KILLED_PLACED = """
import os, signal, sys
from pathlib import Path
from sessdex import indexcarry, indexdb, indexfile
from sessdex.sources import Home
indexcarry.ROOT = sys.argv[1]
indexfile._STAMP = indexfile.stamp_of(sys.argv[1])
put = indexcarry._put_in_place
def and_killed(making, path):
    put(making, path)
    os.kill(os.getpid(), signal.SIGKILL)
indexcarry._put_in_place = and_killed
indexdb.connect(indexdb.index_file(Home.at(Path(sys.argv[2])))).close()
"""


def test_a_making_left_as_the_index_second_name_is_removed(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The made index is put in place as a second name (os.link), then its `.making`
    name removed: a run killed between the two, or (Windows) one whose removal another
    run refused (the index open there), left it, the index's GBs kept once it is
    deleted or set aside. The next run removes it, the index itself kept."""
    import signal
    import subprocess
    import sys

    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_PLACED, indexcarry.ROOT, str(home.path)],
        timeout=60,
    )
    assert killed.returncode == -signal.SIGKILL
    path = indexdb.index_file(home)
    making = Path(f"{path}{indexcarry.MAKING}")
    assert making.exists()
    assert api.list_sessions(home).report.parsed == 1  # its copy, kept
    assert not making.exists()
    assert api.list_sessions(home).report.parsed == 0


def test_a_making_that_windows_will_not_remove_is_removed_by_the_next_run(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows refuses to remove the `.making` name of the index put in place while
    another run has the index open (a sharing violation): it stayed for good, the
    copy said not made."""
    import errno
    import os

    unlink = os.unlink

    def as_windows(name: str) -> None:
        if str(name).endswith(indexcarry.MAKING):
            raise PermissionError(errno.EACCES, "used by another process", name)
        unlink(name)

    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    monkeypatch.setattr(os, "unlink", as_windows)
    assert api.list_sessions(home).report.parsed == 1
    making = Path(f"{indexdb.index_file(home)}{indexcarry.MAKING}")
    assert making.exists()
    monkeypatch.setattr(os, "unlink", unlink)
    assert api.list_sessions(home).report.parsed == 0
    assert not making.exists()


def test_a_making_left_where_the_index_is_made_is_not_made_into(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `.making` left without its mark (its index and mark deleted by hand) is no
    start for the next making: SQLite opened it, and a file that is none (or another
    index by a second name) lost the copy or was written into."""
    _upgrade(tmp_path, monkeypatch, "sources/codex.py")
    making = Path(f"{indexdb.index_file(home)}{indexcarry.MAKING}")
    making.write_bytes(b"not an index " * 1000)
    assert api.list_sessions(home).report.parsed == 1
    assert not making.exists()
