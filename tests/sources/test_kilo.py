"""Kilo Code quirks: Roo Code's task layout under its own extension id."""

from __future__ import annotations

from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Usage
from sessdex.sources import Home, kilo

DATA = Path(__file__).parent.parent / "data" / "kilo"


def test_usage_totals_of_the_sample_task() -> None:
    location = kilo.locate(Home.at(DATA / "home"))
    [path] = list(kilo.scan(location))
    [session] = kilo.parse(path, location, Diagnostics())
    got = list(kilo.read(session, Diagnostics()))
    usage = sum((e.usage for e in got if e.usage), Usage())
    assert (usage.input_tokens, usage.output_tokens) == (90 + 200 + 350, 0 + 250 + 400)
    assert [e.kind for e in got if e.kind in ("user", "thinking")] == [
        "user",
        "user",
        "thinking",
    ]
    assert kilo.resume(session) is None


def test_kilo_reads_only_its_own_extension(tmp_path: Path) -> None:
    home = tmp_path / "home"
    other = home / ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/x"
    other.mkdir(parents=True)
    (other / "ui_messages.json").write_text("[]")
    assert list(kilo.scan(kilo.locate(Home.at(home)))) == []


def test_the_kilo_cli_database_is_read_as_opencode_reads_its_own(
    tmp_path: Path,
) -> None:
    """Kilo Code 7 runs on the Kilo CLI, an OpenCode fork keeping OpenCode's tables in
    `$XDG_DATA_HOME/kilo/kilo.db` (its fork's `global/index.ts`: app = "kilo")."""
    import shutil

    from sessdex.sources import opencode

    source = Path(__file__).parent.parent / "data" / "opencode" / "home"
    database = source / ".local/share/opencode/opencode.db"
    home = tmp_path / "home"
    (home / ".local/share/kilo").mkdir(parents=True)
    shutil.copy(database, home / ".local/share/kilo/kilo.db")
    location = kilo.locate(Home.at(home))
    [path] = list(kilo.scan(location))
    found = {s.id: s for s in kilo.parse(path, location, Diagnostics())}
    theirs = {
        s.id: s
        for s in opencode.parse(
            database, opencode.locate(Home.at(source)), Diagnostics()
        )
    }
    assert set(found) == set(theirs) and {s.app for s in found.values()} == {"kilo"}
    basic = "ses_dd47cef52ffe38O37iH1Ffe05b"
    mine = [(e.kind, e.text) for e in kilo.read(found[basic], Diagnostics())]
    assert mine == [
        (e.kind, e.text) for e in opencode.read(theirs[basic], Diagnostics())
    ]
    plan = kilo.resume(found[basic])
    assert plan is not None and plan.argv[:3] == ("kilo", "--session", basic)


def test_a_task_kilo_code_7_copied_into_its_database_lists_once(
    tmp_path: Path,
) -> None:
    """Kilo Code 7 copies each older extension task into kilo.db (legacy-migration/
    sessions/lib/session.ts: version "v2", the task's id as `slug`, its first prompt as
    title). The copy is listed; the task folder it came from is not listed beside it."""
    import shutil
    import sqlite3

    from sessdex import api

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    task = "5f0e1d2c-3b4a-4958-8776-655443322110"
    source = Path(__file__).parent.parent / "data" / "opencode" / "home"
    (home / ".local/share/kilo").mkdir(parents=True)
    db_path = home / ".local/share/kilo/kilo.db"
    shutil.copy(source / ".local/share/opencode/opencode.db", db_path)
    before = {r.id for r in api.list_sessions(Home.at(home), apps=["kilo"]).rows}
    assert task in before
    db = sqlite3.connect(db_path)
    columns = [row[1] for row in db.execute("PRAGMA table_info(session)")]
    (copied,) = db.execute("SELECT id FROM session ORDER BY id LIMIT 1").fetchone()
    if "slug" not in columns:
        db.execute("ALTER TABLE session ADD COLUMN slug TEXT")
    db.execute(
        "UPDATE session SET version = 'v2', slug = ? WHERE id = ?", (task, copied)
    )
    db.commit()
    db.close()
    after = {r.id for r in api.list_sessions(Home.at(home), apps=["kilo"]).rows}
    assert task not in after and copied in after
    assert after == before - {task}
    # the task's id, as the History view or a note knew it, opens the copy
    assert api.resolve(Home.at(home), task[:8]).id == copied
    assert api.resolve(Home.at(home), f"kilo:{task}").id == copied


def test_kilo_db_and_the_kilo_cli_0x_task_folder_are_read(tmp_path: Path) -> None:
    """`KILO_DB` names the Kilo CLI's database (absolute, or in its data folder); the
    Kilo CLI 0.x kept the extension's task folders in `~/.kilocode/cli/global/tasks`."""
    import shutil

    source = Path(__file__).parent.parent / "data" / "opencode" / "home"
    database = source / ".local/share/opencode/opencode.db"
    home = tmp_path / "home"
    elsewhere = tmp_path / "kilo-dev.sqlite"
    shutil.copy(database, elsewhere)
    location = kilo.locate(Home(home, {"KILO_DB": str(elsewhere)}))
    assert location.override == f"KILO_DB={elsewhere}"
    assert list(kilo.scan(location)) == [elsewhere]
    tasks = DATA / "home/.config/Code/User/globalStorage/kilocode.kilo-code/tasks"
    shutil.copytree(tasks, home / ".kilocode/cli/global/tasks")
    location = kilo.locate(Home.at(home))
    found = {
        s.id
        for path in kilo.scan(location)
        for s in kilo.parse(path, location, Diagnostics())
    }
    assert found == {task.name for task in tasks.iterdir()}
