"""Crush quirks: projects found through projects.json, per-project WAL databases, Go OpenCode."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, crush
from tests.helpers import LIST_PATHS, cli_over, list_rows, settle, tables_as_views

HOME = Path(__file__).parent.parent / "data" / "crush" / "home"
SHOP_DB = HOME / "code" / "shop-api" / ".crush" / "crush.db"
SHOP = "/home/alex/code/shop-api"
MAIN = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"
CHILD = "m-assistant-1$$call_agent_1"
NOORA = "a1898573-ca36-4b7c-a7a5-7617a8e34c61"
DBOS = "f306c145-4c83-492c-b575-739c30bbced4"


def sessions(
    home: Path = HOME, diagnostics: Diagnostics | None = None
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = crush.locate(Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in crush.scan(location):
        for session in crush.parse(path, location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session_id: str, home: Path = HOME) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(crush.read(sessions(home)[session_id], diagnostics))
    assert (
        diagnostics.skipped_total == 0
        and not diagnostics.unknown
        and not diagnostics.problems
    )
    return found


def total(found: list[Event], agent: str | None = None) -> Usage:
    usage = Usage()
    for event in found:
        if event.usage is not None and event.agent_id == agent:
            usage += event.usage
    return usage


def registry(home: Path, *projects: tuple[str, str]) -> None:
    folder = home / ".local" / "share" / "crush"
    folder.mkdir(parents=True, exist_ok=True)
    listed = [
        {"path": path, "data_dir": data_dir, "last_accessed": "2026-12-01T09:00:00Z"}
        for path, data_dir in projects
    ]
    (folder / "projects.json").write_text(json.dumps({"projects": listed}))


def test_projects_come_from_the_registry_and_title_sessions_are_skipped() -> None:
    found = sessions()
    assert f"title-{MAIN}" not in found
    assert {s.cwd for s in found.values()} == {
        SHOP,
        "/home/alex/code/noora",
        "/home/alex/code/dbos-transact-golang",
    }
    assert found[NOORA].extra["store"] == "opencode-go"
    assert found[DBOS].extra["store"] == "crush"
    assert found[MAIN].extra["provider"] == "anthropic"


def test_agent_tool_child_session_is_linked_and_read_inline() -> None:
    found = sessions()
    assert found[CHILD].parent_id == MAIN and found[CHILD].agent_type == "agent"
    parent = events(MAIN)
    spawn = next(e for e in parent if e.kind == "subagent")
    assert spawn.call_id == "call_agent_1" and spawn.extra == {
        "child_id": CHILD,
        "agent_type": "agent",
    }
    assert spawn.text == "Find every caller of checkout()"
    inline = [e.kind for e in parent if e.agent_id == CHILD]
    assert inline == [
        "user",
        "tool_call",
        "tool_result",
        "assistant",
        "turn_end",
        "usage",
    ]


def test_usage_is_the_session_counters() -> None:
    parent = events(MAIN)
    usage_events = [e for e in parent if e.kind == "usage"]
    assert [e.extra["scope"] for e in usage_events] == ["session", "session"]
    assert total(parent) == Usage(5200, 310, model="claude-sonnet-4-5")
    assert total(parent, CHILD) == Usage(1800, 40, model="claude-sonnet-4-5")
    assert usage_events[-1].extra["cost"] == 0.042
    assert total(events(DBOS)) == Usage(15805, 59, model="gpt-5")
    assert total(events(NOORA)) == Usage()  # the Go OpenCode row kept no tokens


def usage_rows(home: Path) -> dict[str, dict[str, object]]:
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(
        main, ["usage", "session", "--app", "crush", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    return {row["key"][:8]: row for row in json.loads(result.stdout)}


def test_usage_costs_what_crush_recorded_not_a_price_of_its_last_response(
    tmp_path: Path,
) -> None:
    """Crush keeps the last response's tokens on the session row but a running cost: the
    cost is the one it recorded (the public dbos session made 37 responses; its row's
    tokens priced would say $0.16), the lead's own part less what its sub-agent spent
    (Crush adds a child's cost to its parent row). A row Crush could not price (cost 0)
    is priced from its tokens."""
    rows = usage_rows(HOME)
    assert rows["a20c5ed5"]["cost_usd"] == 3.201505
    shop = rows["8c1f2e3d"]
    assert shop["cost_usd"] == 0.042  # the row's 0.042 holds the child's 0.006
    agents = {a["key"]: a["cost_usd"] for a in shop["agents"]}  # type: ignore[attr-defined]
    assert agents == {"lead": 0.036, "m-assistant-1$$call_agent_1": 0.006}
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = home / "code/dbos-transact-golang/.crush/crush.db"
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE sessions SET cost = 0 WHERE id LIKE 'a20c5ed5%'")
    connection.close()
    # gpt-5: 127,170 input at $1.25/M and 64 output at $10/M
    assert usage_rows(home)["a20c5ed5"]["cost_usd"] == round(
        127_170 * 1.25e-6 + 64 * 10e-6, 6
    )


def test_parts_become_events() -> None:
    found = [e for e in events(MAIN) if e.agent_id is None]
    kinds = [e.kind for e in found]
    assert kinds[:5] == ["user", "thinking", "assistant", "tool_call", "subagent"]
    failed = next(
        e for e in found if e.kind == "tool_result" and e.call_id == "call_edit_1"
    )
    assert failed.is_error and failed.text == "old_string not found in file"
    shell = [e for e in found if e.tool == "shell"]
    assert [e.kind for e in shell] == ["tool_call", "tool_result"] and shell[
        1
    ].text == "3 passed in 0.12s"
    assert any(
        e.kind == "user"
        and e.text == "[image/png /home/alex/code/shop-api/screen.png, 72 B]"
        for e in found
    )
    assert (
        next(e for e in found if e.kind == "compaction").text
        == "Summary: checkout() got a retry decorator; tests pass."
    )
    assert (
        next(e for e in found if e.kind == "error").text == "API Error: 529 overloaded"
    )


def test_go_opencode_times_and_finish_reasons() -> None:
    found = sessions()[NOORA]
    assert (
        found.created is not None
        and found.created.isoformat() == "2025-05-28T12:54:40.381000+00:00"
    )
    found = events(NOORA)
    assert [e.kind for e in found] == [
        "user",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "assistant",
        "meta",
        "turn_end",
    ]
    # finish reason "canceled": the user stopped the turn (agent.go), not a failure
    assert found[-1].extra == {"reason": "canceled", "interrupted": True}


def test_a_moved_home_is_found_again_and_a_gone_project_costs_nothing(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "copied-home"
    shutil.copytree(HOME, copy)
    assert set(sessions(copy)) == set(sessions())
    registry(copy, ("/nowhere/at/all", "/nowhere/at/all/.crush"))
    assert sessions(copy) == {}


def test_a_copied_windows_homes_unregistered_database_is_found_below_the_copy(
    tmp_path: Path,
) -> None:
    """An old Crush database in a C:\\ folder only another agent recorded, in a Windows
    home copied here, is found below the copy (it was passed over: no path here)."""
    home = tmp_path / "backup" / "me"
    registry(home)  # Crush registered nothing
    (home / "code" / "shop-api" / ".crush").mkdir(parents=True)
    shutil.copy(SHOP_DB, home / "code" / "shop-api" / ".crush" / "crush.db")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {"C:\\Users\\me\\code\\shop-api": "shop-api"}})
    )
    assert MAIN in sessions(home)


def test_custom_data_dir_and_resume(tmp_path: Path) -> None:
    found = sessions()
    plan = crush.resume(found[MAIN])
    assert (
        plan is not None
        and plan.argv == ("crush", "--session", MAIN)
        and plan.cwd == SHOP
    )
    assert not plan.withheld and plan.program == "crush"
    assert not any("sub-agent" in note for note in plan.notes)
    child = next(s for s in found.values() if s.parent_id == MAIN)
    child_plan = crush.resume(child)  # an agent tool's run: reopens alone, said so
    assert child_plan and any("a sub-agent session" in n for n in child_plan.notes)
    # interactive crush takes no model flag: the model is said, not silently dropped
    assert found[MAIN].model and any(found[MAIN].model in note for note in plan.notes)
    assert (
        crush.resume(found[NOORA]) is None
    )  # Go OpenCode cannot reopen a given session
    custom = replace(
        found[MAIN], extra={**found[MAIN].extra, "data_dir": "/data/crush/shop"}
    )
    moved = crush.resume(custom)
    assert moved is not None and moved.argv == (
        "crush",
        "--session",
        MAIN,
        "--data-dir",
        "/data/crush/shop",
    )


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    data = home / "code" / "shop-api" / ".crush"
    data.mkdir(parents=True)
    shutil.copy(SHOP_DB, data / "crush.db")
    registry(home, (str(home / "code" / "shop-api"), str(data)))
    writer = sqlite3.connect(data / "crush.db")
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(
            "INSERT INTO sessions (id, title, message_count, prompt_tokens, completion_tokens, cost, updated_at, "
            "created_at) VALUES ('s-new', 'Only in the WAL', 0, 0, 0, 0, 1796200000, 1796200000)"
        )
        writer.commit()
        assert (data / "crush.db-wal").stat().st_size > 0
        before = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in data.iterdir()
        }
        found = sessions(home)
        assert found["s-new"].title == "Only in the WAL" and found["s-new"].cwd == str(
            home / "code" / "shop-api"
        )
        assert MAIN in found
        assert {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in data.iterdir()
        } == before
    finally:
        writer.close()


def test_missing_columns_and_a_corrupt_database(tmp_path: Path) -> None:
    home = tmp_path / "home"
    old, bad = home / "old" / ".crush", home / "bad" / ".crush"
    old.mkdir(parents=True)
    bad.mkdir(parents=True)
    registry(home, (str(home / "old"), str(old)), (str(home / "bad"), str(bad)))
    db = sqlite3.connect(old / "crush.db")
    db.execute(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL)"
    )
    db.execute(
        "CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts TEXT, created_at INTEGER)"
    )
    db.execute(
        "INSERT INTO sessions VALUES ('s-old', 'Before the counters', 1754709060)"
    )
    db.execute(
        """INSERT INTO messages VALUES ('m1', 's-old', 'user', '[{"type":"text","data":{"text":"hi"}}]', 1754709060)"""
    )
    db.commit()
    db.close()
    (bad / "crush.db").write_bytes(b"\x00" * 1024)
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert (
        list(found) == ["s-old"]
        and found["s-old"].updated is None
        and found["s-old"].model is None
    )
    assert (
        len(diagnostics.problems) == 1
        and "bad/.crush/crush.db" in diagnostics.problems[0]
    )
    assert [e.kind for e in events("s-old", home)] == ["user"]


def test_env_overrides(tmp_path: Path) -> None:
    own = Home(
        tmp_path,
        {
            "CRUSH_GLOBAL_DATA": str(tmp_path / "g"),
            "XDG_DATA_HOME": str(tmp_path / "x"),
        },
    )
    assert crush.locate(own).root == tmp_path / "g"
    xdg = crush.locate(Home(tmp_path, {"XDG_DATA_HOME": str(tmp_path / "x")}))
    assert (
        xdg.root == tmp_path / "x" / "crush"
        and xdg.override == f"XDG_DATA_HOME={tmp_path / 'x'}"
    )
    assert (
        crush.locate(Home.at(tmp_path)).root == tmp_path / ".local" / "share" / "crush"
    )


def test_database_times_keep_their_offset_after_fractional_seconds() -> None:
    from datetime import UTC, datetime

    from sessdex.sources._values import db_time

    assert db_time("2025-01-01 10:00:00.123+02:00") == datetime(
        2025, 1, 1, 8, 0, 0, 123000, UTC
    )
    assert db_time("2025-01-01T10:00:00.123456789Z") == datetime(
        2025, 1, 1, 10, 0, 0, 123456, UTC
    )


def test_a_provider_refusal_is_an_error_not_a_plain_turn_end() -> None:
    """crush message/content.go: finish reason `content_filter` is shown as REFUSED."""
    reader = crush._Reader("s", Diagnostics(), sqlite3.connect(":memory:"), "x.db")
    [refused] = reader.finish(
        {"reason": "content_filter", "time": 1796000000}, "assistant", None, None
    )
    assert (refused.kind, refused.text) == ("error", "refused by the provider")
    [ended] = reader.finish({"reason": "end_turn"}, "assistant", None, None)
    assert ended.kind == "turn_end"


def test_a_child_session_is_typed_by_the_tool_that_started_it(tmp_path: Path) -> None:
    """crush agentic_fetch_tool.go runs a sub-agent in a child session
    `<message id>$$<call id>`, like the `agent` tool does."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / "code" / "shop-api" / ".crush" / "crush.db")
    (parts,) = db.execute(
        "SELECT parts FROM messages WHERE id = 'm-assistant-1'"
    ).fetchone()
    db.execute(
        "UPDATE messages SET parts = ? WHERE id = 'm-assistant-1'",
        (parts.replace('"name":"agent"', '"name":"agentic_fetch"'),),
    )
    db.commit()
    db.close()
    assert sessions(home)[CHILD].agent_type == "agentic_fetch"


def test_a_huge_message_is_read_with_its_long_output_elided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message whose parts hold a huge tool output is shown by the output's size, as a
    transcript's huge line is, and never held whole; `full` keeps it."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    output = "q" * 300_000
    db = sqlite3.connect(home / "code" / "shop-api" / ".crush" / "crush.db")
    (parts,) = db.execute("SELECT parts FROM messages WHERE id = 'm-tool-1'").fetchone()
    huge = parts.replace(
        '"content":"checkout() is called once, from api.py:12."',
        f'"content":"{output}"',
    )
    db.execute("UPDATE messages SET parts = ? WHERE id = 'm-tool-1'", (huge,))
    db.commit()
    db.close()
    found = events(MAIN, home)
    [result] = [
        e for e in found if e.kind == "tool_result" and e.call_id == "call_agent_1"
    ]
    assert result.text == f"[text, {files.human_bytes(len(output))}]"
    assert [e.kind for e in found] == [e.kind for e in events(MAIN)]
    whole = list(crush.read(sessions(home)[MAIN], Diagnostics(), full=True))
    assert output in [e.text for e in whole]


def test_projects_crush_never_registered_are_found_where_other_agents_recorded_them(
    tmp_path: Path,
) -> None:
    """Crush before 0.25, and its client/server runs, registered no project: a project's
    database is found in a folder another agent recorded (Gemini's project list, Codex's
    trusted projects, Claude Code's transcripts), as long as Crush is used here at all."""
    home = tmp_path / "home"
    shutil.copytree(HOME / "code", home / "code")
    gemini = home / ".gemini"
    gemini.mkdir(parents=True)
    (gemini / "projects.json").write_text(
        json.dumps({"projects": {str(home / "code" / "shop-api"): "shop"}})
    )
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{home / "code" / "noora"}"]\ntrust_level = "trusted"\n'
    )
    assert sessions(home) == {}  # no trace of Crush in this home: nothing looked for
    (home / ".config" / "crush").mkdir(parents=True)
    found = sessions(home)
    assert {s.extra["store"] for s in found.values()} == {"crush", "opencode-go"}
    assert MAIN in found and NOORA in found and DBOS not in found  # dbos: nobody's
    # registered too: each database once
    registry(
        home,
        (str(home / "code" / "shop-api"), str(home / "code" / "shop-api" / ".crush")),
    )
    assert sorted(map(str, crush.scan(crush.locate(Home.at(home))))) == sorted(
        str(p)
        for p in (
            home / ".local" / "share" / "crush" / "projects.json",  # read with each
            home / "code" / "shop-api" / ".crush" / "crush.db",
            home / "code" / "noora" / ".opencode" / "opencode.db",
        )
    )


def test_a_model_stored_as_a_blob_is_an_unknown_model_not_a_crash(
    tmp_path: Path,
) -> None:
    """SQLite keeps any type in any column: a model name written as a BLOB is no name."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    for db in [*home.rglob("crush.db"), *home.rglob("opencode.db")]:
        with contextlib.closing(sqlite3.connect(db)) as connection, connection:
            connection.execute("UPDATE messages SET model = CAST(model AS BLOB)")
        connection.close()
    assert all(s.model is None for s in sessions(home).values())
    for report in ("model", "session", "daily"):
        result = CliRunner().invoke(
            main, ["usage", report, "--app", "crush", "--json", "--home", str(home)]
        )
        assert result.exit_code == 0 and not result.exception, result.output
    assert usage_rows(home)["a20c5ed5"]["cost_usd"] == 3.201505  # Crush's own cost


def test_a_windows_homes_registry_and_projects_are_found_in_its_copy(
    tmp_path: Path,
) -> None:
    """Crush on Windows keeps `projects.json` in `%LOCALAPPDATA%\\crush` and records
    `C:\\Users\\…` paths: a copy of that home lists its projects' sessions."""
    from click.testing import CliRunner

    from sessdex.cli import main

    copy = tmp_path / "windows-home"
    shutil.copytree(HOME / "code", copy / "code")
    folder = copy / "AppData" / "Local" / "crush"
    folder.mkdir(parents=True)
    listed = [
        {
            "path": "C:\\Users\\alex\\code\\shop-api",
            "data_dir": "C:\\Users\\alex\\code\\shop-api\\.crush",
        },
        {"path": "c:/Users/alex/code/dbos-transact-golang"},  # data_dir left out
    ]
    (folder / "projects.json").write_text(json.dumps({"projects": listed}))
    found = sessions(copy)
    assert found[MAIN].cwd == "C:\\Users\\alex\\code\\shop-api"
    assert found[DBOS].cwd == "c:/Users/alex/code/dbos-transact-golang"
    result = CliRunner().invoke(main, ["list", "--json", "--home", str(copy)])
    assert result.exit_code == 0, result.output
    assert MAIN in {s["id"] for s in json.loads(result.stdout) if s["app"] == "crush"}


@pytest.mark.parametrize("drift", ["renamed", "retyped"])
def test_a_registry_entry_whose_path_drifted_still_finds_its_project_by_data_dir(
    tmp_path: Path, drift: str
) -> None:
    # an entry with no usable `path` was passed over: the project's sessions went
    # missing, unsaid, though the entry still named where its data is
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry_file = home / ".local" / "share" / "crush" / "projects.json"
    document = json.loads(registry_file.read_text())
    entry = document["projects"][0]
    if drift == "renamed":
        entry["projectPath"] = entry.pop("path")
    else:
        entry["path"] = {"value": entry["path"]}
    registry_file.write_text(json.dumps(document))
    found = sessions(home)
    assert found[MAIN].cwd == SHOP and CHILD in found


def test_a_registry_whose_projects_are_not_a_list_is_read_as_a_torn_one(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry_file = home / ".local" / "share" / "crush" / "projects.json"
    document = json.loads(registry_file.read_text())
    document["projects"] = {str(n): p for n, p in enumerate(document["projects"])}
    registry_file.write_text(json.dumps(document))
    diagnostics = Diagnostics()
    assert {MAIN, NOORA, DBOS} <= set(sessions(home, diagnostics))
    assert any("projects.json does not parse" in p for p in diagnostics.problems)


def test_a_session_row_with_no_id_is_counted_not_dropped_unsaid(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / "code" / "noora" / ".opencode" / "opencode.db")
    db.execute("UPDATE sessions SET id = NULL WHERE id = ?", (NOORA,))
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert NOORA not in found and MAIN in found
    assert diagnostics.skipped == {"bad value": 1}


def test_doctor_says_so_when_the_registry_names_no_project_it_can_read(
    tmp_path: Path,
) -> None:
    # `projects` drifted to a number: every project's sessions went missing, and as no
    # database was read, nothing said why
    from sessdex import api

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry_file = home / ".local" / "share" / "crush" / "projects.json"
    registry_file.write_text(json.dumps({"projects": -1}))
    [report] = api.doctor(Home.at(home), ["crush"])
    assert report.notes == (
        f"{registry_file} does not parse as Crush writes it and names no project; "
        "only projects other agents recorded were looked at",
    )
    [report] = api.doctor(Home.at(HOME), ["crush"])
    assert report.notes == ()


def test_doctor_says_so_when_a_registry_entry_names_no_project(tmp_path: Path) -> None:
    # an entry retyped to a string (or one with neither a path nor a data folder) was
    # passed over: that project's sessions went missing, and no word said why
    from sessdex import api

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry_file = home / ".local" / "share" / "crush" / "projects.json"
    document = json.loads(registry_file.read_text())
    document["projects"][0] = "shop"
    registry_file.write_text(json.dumps(document))
    [report] = api.doctor(Home.at(home), ["crush"])
    assert report.notes == (
        f"{registry_file}: 1 project entry names no folder sessdex can read; that "
        "project's sessions are missing unless another agent recorded its folder",
    )


def test_a_registry_folder_that_is_not_utf8_falls_back_to_the_projects_own(
    tmp_path: Path,
) -> None:
    # a byte in `data_dir` that is not UTF-8 made it a folder that is nowhere: the
    # project's sessions went missing unsaid, though its `path` still names its folder
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry_file = home / ".local" / "share" / "crush" / "projects.json"
    data = registry_file.read_bytes()
    at = data.rindex(b'.crush"')
    registry_file.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    assert set(sessions(home)) == set(sessions(HOME))


@pytest.mark.parametrize(
    ("damage", "kind"),
    [("pipe", "pipe"), ("loop", "link that loops"), ("broken", "broken link")],
)
def test_doctor_counts_a_project_database_that_is_no_file(
    tmp_path: Path, damage: str, kind: str
) -> None:
    # a pipe or a dead link where the registry says crush.db is: that project's sessions
    # went missing, and doctor, which counts such things in a listed folder, said nothing
    import os

    from sessdex import api

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = home / SHOP_DB.relative_to(HOME)
    db.unlink()
    if damage == "pipe":
        os.mkfifo(db)
    else:
        db.symlink_to(db.name if damage == "loop" else tmp_path / "gone.db")
    assert MAIN not in sessions(home)
    [report] = api.doctor(Home.at(home), ["crush"])
    assert report.diagnostics.passed_over == {kind: 1}
    [report] = api.doctor(Home.at(HOME), ["crush"])
    assert not report.diagnostics.passed_over


def test_list_and_watch_say_a_session_was_last_active_at_its_last_message() -> None:
    """Go OpenCode (and Crush) leave a session row's `updated_at` as it was when a turn
    is cancelled: the cancelled answer's row holds the later time, which `watch` reads.
    `list` took the session row's, 10 s earlier."""
    from click.testing import CliRunner

    from sessdex.cli import main

    def run(*argv: str) -> dict[str, object]:
        result = CliRunner().invoke(
            main, [*argv, "--app", "crush", "--home", str(HOME)]
        )
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)
        assert isinstance(rows, list)
        return {row["id"]: row["updated"] for row in rows}

    listed = run("list", "--all", "--json")
    watched = run("watch", "--once", "--json", "--since", "3000w", "--poll")
    cancelled = "997456c3-8270-45c4-ae95-ac4c9b7a26fb"
    assert listed[cancelled] == watched[cancelled] == "2025-05-28T12:48:25.775Z"
    for session_id, updated in watched.items():
        if session_id is not None:
            assert listed[session_id] == updated, session_id


def test_a_batch_calls_results_read_as_each_calls_output_not_json() -> None:
    """Go OpenCode's `batch` tool ran several tools in one call and answered with their
    results as one JSON document (`{"results": [{tool_name, tool_input, result}]}`,
    real in the Noora database): each shows as the output of the call it answers, under
    the call's name and argument, never the JSON."""
    from click.testing import CliRunner

    from sessdex.cli import main

    shown = CliRunner().invoke(main, ["show", NOORA, "--json", "--home", str(HOME)])
    assert shown.exit_code == 0, shown.output
    answered = [e for e in json.loads(shown.stdout) if e["kind"] == "tool_result"]
    assert len(answered) == 2
    first = answered[0]["text"]
    assert '"results"' not in first and "\\u003c" not in first
    readme = "/home/alex/code/noora/packages/cli/README.md"
    assert first.startswith(f"[view — {readme}]\n<file>\n     1|# Noora")
    assert "\n\n[glob — .all-contributorsrc]\nNo files found\n\n" in first
    assert first.endswith(
        "[view — /home/alex/code/noora/package.json] (failed)\n"
        "File not found: /home/alex/code/noora/package.json"
    )


def test_a_messages_table_made_a_view_lists_its_sessions_and_counts_what_it_hides(
    tmp_path: Path,
) -> None:
    """A view's rows have no rowid (SQLite gives NULL) for blob IO to open: each
    message it holds is counted as unread, never a crash that loses the session."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    tables_as_views(
        home / "code" / "dbos-transact-golang" / ".crush" / "crush.db", "messages"
    )
    listed = cli_over(home, "list", "--json", "--all", "--app", "crush")
    assert DBOS in {row["id"] for row in json.loads(listed.stdout)}
    assert cli_over(home, "show", DBOS).exit_code == 0
    doctor = cli_over(home, "doctor", "--deep", "--json", "--app", "crush")
    (app,) = json.loads(doctor.stdout)
    assert app["skipped_lines"], app


def _rewrite_registry(home: Path, edit: str) -> None:
    """projects.json as Crush rewrites it: `edit` "last_accessed" only notes a start
    (every start), "path" moves shop-api's project folder, its data kept."""
    registry = home / ".local" / "share" / "crush" / "projects.json"
    listed = json.loads(registry.read_text())
    entry = listed["projects"][0]
    if edit == "last_accessed":
        entry["last_accessed"] = "2026-12-06T11:00:00.123456789Z"
    else:
        entry["path"] = "/home/alex/code/shop"
    registry.write_text(json.dumps(listed, indent=2))


@LIST_PATHS
def test_a_projects_path_changed_in_the_registry_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def cwd(state: str) -> object:
        rows = list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)
        return rows[MAIN]["cwd"]

    assert cwd("warm") == SHOP
    _rewrite_registry(home, "path")
    assert cwd("warm") == cwd("cold") == "/home/alex/code/shop"


def test_a_registry_rewritten_for_a_start_reads_no_database_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Crush rewrites projects.json's `last_accessed` at every start, and every
    # database's parse reads the registry: each start made a warm list read every
    # project's database again, as slow as a cold one
    from sessdex.index import Index

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry = home / ".local" / "share" / "crush" / "projects.json"
    parsed: list[str] = []
    original = crush.parse

    def parse(path, location, diagnostics):  # type: ignore[no-untyped-def]
        parsed.append(path.name)
        return original(path, location, diagnostics)

    monkeypatch.setattr(crush, "parse", parse)
    before = list_rows(home, tmp_path / "state", monkeypatch, "--all")
    assert "crush.db" in parsed
    parsed.clear()
    _rewrite_registry(home, "last_accessed")
    assert list_rows(home, tmp_path / "state", monkeypatch, "--all") == before
    assert [name for name in parsed if name != "projects.json"] == []  # full refresh
    _rewrite_registry(home, "last_accessed")
    os.utime(registry, ns=(1, 1))  # a stat unlike the last one's
    index = Index(Home.at(home))
    try:  # the quick path's refresh of the file alone
        assert index.refresh_file(crush, str(registry))
    finally:
        index.close()
    assert list_rows(home, tmp_path / "state", monkeypatch, "--all") == before
    assert [name for name in parsed if name != "projects.json"] == []


def test_a_registry_rewritten_for_a_start_prints_the_listing_saved_before(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # the real command's warm list after a Crush start: the listing saved before, with
    # no source loaded and no database parsed (the full command read them all)
    from sessdex import quick

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    list_rows(home, tmp_path / "state", monkeypatch, "--all")  # the index, cold
    args = ["--json", "--all", "--home", str(home)]
    settle(home)
    assert quick.answer("list", args)
    before = capsysbinary.readouterr().out
    parsed: list[str] = []
    parse = crush.parse
    monkeypatch.setattr(crush, "parse", lambda *a: parsed.append(1) or parse(*a))
    _rewrite_registry(home, "last_accessed")
    settle(home)
    assert quick.answer("list", args)
    assert capsysbinary.readouterr().out == before
    assert parsed == []
    _rewrite_registry(home, "path")  # the meaning changed: the full command lists
    settle(home)
    assert not quick.answer("list", args)


@pytest.mark.parametrize(
    ("before", "after", "same"),
    [
        ('"last_accessed": "a"', '"last_accessed": "b\\u00e9\\"c"', True),
        ('"last_accessed": "a"', '"last_accessed":"b"', True),
        ('"last_accessed": "a"', '"last_accessed": null', False),
        ('"path": "/w/a"', '"path": "/w/b"', False),
    ],
)
def test_the_registrys_digest_leaves_out_last_accessed_alone(
    tmp_path: Path, before: str, after: str, same: bool
) -> None:
    registry = tmp_path / "projects.json"
    digests = []
    for member in (before, after):
        text = '{"projects": [{"data_dir": "/w/a/.crush", ' + member + "}]}"
        if member.startswith('"path"'):
            text = '{"projects": [{' + member + ', "last_accessed": "s"}]}'
        registry.write_text(text)
        digests.append(crush.context_digest(str(registry)))  # type: ignore[attr-defined]
    assert (digests[0] == digests[1]) is same


def test_a_batch_call_shows_its_calls_not_their_json() -> None:
    """Go OpenCode's `batch` call (its calls' names and inputs, as a list) is named by
    its calls in `show`, not by the start of its arguments' JSON."""
    from click.testing import CliRunner

    from sessdex.cli import main

    shown = CliRunner().invoke(main, ["show", NOORA, "--home", str(HOME)])
    assert shown.exit_code == 0, shown.output
    lines = [line for line in shown.stdout.splitlines() if "batch" in line]
    assert lines == [
        "Using batch — 4 calls: view, view, glob, view",
        "Using batch — 3 calls: view, view, view",
    ]


def test_a_session_id_with_a_nul_in_it_is_shown_or_refused_never_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An id with `\\x00` in it (a text cell SQLite keeps whole): `show` of it looked
    for the sub-agent it might be in the session's store, named by a path holding that
    NUL, and stopped on "ValueError: embedded null byte"."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    [db] = home.rglob("dbos-transact-golang/.crush/crush.db")
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute(
            "UPDATE sessions SET id = substr(id, 1, 22) || char(0) || substr(id, 23)"
            " WHERE id LIKE 'f306c145%'"
        )
        connection.commit()
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--json", "--all", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    [ref] = [f"crush:{r['id']}" for r in json.loads(listed.stdout) if r["id"].startswith("f306c145")]  # fmt: skip
    shown = runner.invoke(main, ["show", ref, "--home", str(home)])
    assert shown.exit_code in (0, 1), shown.output
    assert shown.exception is None or isinstance(shown.exception, SystemExit)
    assert "ValueError" not in shown.output
