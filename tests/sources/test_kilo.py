"""Kilo Code quirks: Roo Code's task layout under its own extension id."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Usage
from sessdex.sources import Home, kilo

DATA = Path(__file__).parent.parent / "data" / "kilo"


def test_usage_totals_of_the_sample_task() -> None:
    location = kilo.locate(Home.at(DATA / "home"))
    [path] = [p for p in kilo.scan(location) if p.name == "ui_messages.json"]
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
    (home / ".local/share/kilo").mkdir(parents=True, exist_ok=True)
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
    (home / ".local/share/kilo").mkdir(parents=True, exist_ok=True)
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


def _delegating_task(tasks: Path, parent: str, child: str) -> None:
    """A task that ran a sub-task (Roo-style `newTask`) as Kilo Code 4.x/5.x writes it:
    no history item; the parent's model is told "Subtask <id> completed." at its end
    (shapes from kilocode-legacy 5.10.4's NewTaskTool and ClineProvider)."""
    import json

    def write(path: Path, value: object) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=1))

    ts = 1767000000000
    spawn = {
        "tool": "newTask",
        "mode": "code",
        "content": "Write the tests",
        "todos": [],
    }
    write(tasks / parent / "ui_messages.json", [
        {"ts": ts, "type": "say", "say": "text", "text": "Refactor the parser"},
        {"ts": ts + 2000, "type": "ask", "ask": "tool", "text": json.dumps(spawn)},
        {"ts": ts + 9000, "type": "say", "say": "subtask_result", "text": "Tests written: 4 passing"},
        {"ts": ts + 9500, "type": "say", "say": "completion_result", "text": "Done"},
    ])  # fmt: skip
    write(tasks / parent / "api_conversation_history.json", [
        {"role": "user", "ts": ts, "content": [{"type": "text", "text": "<task>Refactor the parser</task>"}]},
        {"role": "assistant", "ts": ts + 2000, "content": [{"type": "tool_use", "id": "toolu_01",
         "name": "new_task", "input": {"mode": "code", "message": "Write the tests"}}]},
        {"role": "user", "ts": ts + 9000, "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
         "content": f"Subtask {child} completed.\n\nResult:\nTests written: 4 passing"}]},
    ])  # fmt: skip
    write(tasks / child / "ui_messages.json", [
        {"ts": ts + 3000, "type": "say", "say": "text", "text": "Write the tests"},
        {"ts": ts + 4000, "type": "say", "say": "command", "text": "pytest"},
        {"ts": ts + 8000, "type": "say", "say": "completion_result", "text": "Tests written: 4 passing"},
    ])  # fmt: skip


def test_a_delegated_sub_task_is_linked_by_what_its_parent_was_told(
    tmp_path: Path,
) -> None:
    """Kilo Code 4.x/5.x keeps no history item: the sub-task was listed on its own and
    read nowhere in its parent (`child_id` null). The Kilo CLI 0.x keeps the history
    list in its global state, which links them too."""
    from click.testing import CliRunner

    from sessdex.cli import main

    parent, child = (
        "11111111-aaaa-4aaa-8aaa-000000000001",
        "22222222-bbbb-4bbb-8bbb-000000000002",
    )
    tasks = tmp_path / ".config/Code/User/globalStorage/kilocode.kilo-code/tasks"
    _delegating_task(tasks, parent, child)

    def run(*argv: str) -> str:
        result = CliRunner().invoke(main, [*argv, "--home", str(tmp_path)])
        assert result.exit_code == 0, result.output
        return result.stdout

    import json

    listed = {r["id"]: r for r in json.loads(run("list", "--all", "--json"))}
    assert listed[child]["parent_id"] == parent
    assert [r["id"] for r in json.loads(run("list", "--json"))] == [parent]
    tree = json.loads(run("tree", parent, "--json"))
    [node] = tree["children"]
    assert (node["id"], node["agent_type"], node["status"]) == (child, "code", "done")
    assert node["tool_calls"] == 1  # its own events, read into its parent's
    # the Kilo CLI 0.x: the same folders, and the history list in its global state
    cli = tmp_path / ".kilocode" / "cli" / "global"
    other_parent, other_child = parent.replace("1", "3"), child.replace("2", "4")
    _delegating_task(cli / "tasks", other_parent, "not-the-child-id")
    (cli / "tasks" / "not-the-child-id").rename(cli / "tasks" / other_child)
    (cli / "global-state.json").write_text(json.dumps({"taskHistory": [
        {"id": other_parent, "ts": 1767000009500, "task": "Refactor the parser",
         "workspace": "/w/proj", "childIds": [other_child]},
        {"id": other_child, "parentTaskId": other_parent, "ts": 1767000008000,
         "task": "Write the tests", "workspace": "/w/proj"},
    ]}))  # fmt: skip
    listed = {r["id"]: r for r in json.loads(run("list", "--all", "--json"))}
    assert listed[other_child]["parent_id"] == other_parent
    assert listed[other_parent]["cwd"] == "/w/proj"
    [node] = json.loads(run("tree", other_parent, "--json"))["children"]
    assert node["id"] == other_child  # the history list's link, not the text's


def test_a_sub_task_that_never_ended_does_not_shift_the_later_ones(
    tmp_path: Path,
) -> None:
    """The ids come from the lines the parent was told as each sub-task ended: one that
    was cancelled has none, and every later spawn was linked to the task before its own.
    Each spawn is linked to the task that opens with its words, or to none."""
    import json

    from sessdex import api
    from sessdex.sources import Home

    parent, done = (
        "11111111-aaaa-4aaa-8aaa-000000000001",
        "22222222-bbbb-4bbb-8bbb-000000000002",
    )
    tasks = tmp_path / ".config/Code/User/globalStorage/kilocode.kilo-code/tasks"
    _delegating_task(tasks, parent, done)
    ui = tasks / parent / "ui_messages.json"
    messages = json.loads(ui.read_text())
    cancelled = {
        "tool": "newTask",
        "mode": "debug",
        "content": "Find the flaky test",
        "todos": [],
    }
    messages.insert(
        1,
        {
            "ts": 1767000001000,
            "type": "ask",
            "ask": "tool",
            "text": json.dumps(cancelled),
        },
    )
    ui.write_text(json.dumps(messages))
    (tasks / "33333333-cccc-4ccc-8ccc-000000000003").mkdir()  # the cancelled one
    (tasks / "33333333-cccc-4ccc-8ccc-000000000003" / "ui_messages.json").write_text(
        json.dumps(
            [
                {
                    "ts": 1767000001500,
                    "type": "say",
                    "say": "text",
                    "text": "Find the flaky test",
                }
            ]
        )
    )
    found = list(api.transcript(Home.at(tmp_path), parent).events)
    spawns = [(e.text, e.extra["child_id"]) for e in found if e.kind == "subagent"]
    assert spawns == [("Find the flaky test", None), ("Write the tests", done)]


def test_channel_databases_under_either_name_are_read_once(tmp_path: Path) -> None:
    """A Kilo CLI of another channel than latest, beta or prod (a dev or preview build)
    writes `kilo-<channel>.db`, or goes on with the `opencode-<channel>.db` an earlier build
    of the channel left in Kilo's data folder until a `kilo-<channel>.db` exists
    (Kilo-Org/kilocode storage/database.ts). Both are listed; a session both hold (a
    copy) is listed and counted once, from the Kilo-named one."""
    import shutil

    from sessdex import api

    source = Path(__file__).parent.parent / "data" / "opencode" / "home"
    database = source / ".local/share/opencode/opencode.db"
    home = tmp_path / "home"
    data = home / ".local/share/kilo"
    data.mkdir(parents=True)
    shutil.copy(database, data / "opencode-dev.db")
    listed = api.list_sessions(Home.at(home), apps=["kilo"]).rows
    ids = {row.id for row in listed}
    assert len(ids) == 3 and all(i.startswith("ses_") for i in ids)
    once = api.usage_report(Home.at(home), "app", apps=["kilo"]).total
    assert once.input_tokens > 0
    shutil.copy(database, data / "kilo-dev.db")  # the channel's Kilo-named database
    for rewritten in ("kilo-dev.db", "opencode-dev.db"):  # the newer file, either one
        path = data / rewritten
        path.write_bytes(path.read_bytes())
        listed = api.list_sessions(Home.at(home), apps=["kilo"]).rows
        assert sorted(row.id for row in listed) == sorted(ids)
        paths = {row.session().path.partition("#")[0] for row in listed}
        assert paths == {str(data / "kilo-dev.db")}
        both = api.usage_report(Home.at(home), "app", apps=["kilo"]).total
        assert (both.input_tokens, both.output_tokens) == (
            once.input_tokens,
            once.output_tokens,
        )


def test_the_real_kilo_cli_database_lists_each_session_with_its_facts() -> None:
    """kilo.db as the Kilo CLI 7.7.7 wrote it (PROVENANCE): OpenCode's tables under
    Kilo's name, a `task` child linked to its parent, usage from each answer."""
    from sessdex import api

    home = Home.at(DATA / "home")
    rows = {
        r.id: r
        for r in api.list_sessions(
            home, apps=["kilo"], include_subagents=True
        ).sessions()
    }
    child = rows["ses_dca3c050bffebCqjqWcltmC3YO"]
    assert child.parent_id == "ses_dca3c4fdfffeLJ9Gzp3KxVSonW"
    assert rows["ses_dca3c4fdfffeLJ9Gzp3KxVSonW"].title == "Sub-agent smoke test"
    session = rows["ses_dca3d578cffeM0KZq5E7M6Frvc"]
    events = list(kilo.read(session, Diagnostics()))
    usage = sum((e.usage for e in events if e.usage), Usage())
    # four answers (a bash call and the final one, before and after the resume)
    assert (usage.input_tokens, usage.output_tokens) == (4 * 1000, 4 * 25)
    assert [e.text for e in events if e.kind == "tool_result"] == [
        "hello-from-tool\n",
        "hello-after-resume\n",
    ]


def test_a_session_kilo_run_left_untitled_is_named_by_its_first_prompt() -> None:
    """`kilo run` asks for no title: the session keeps "New session - <time>", and is
    listed by its first prompt as the user typed it, without the quotes `kilo run` put
    around an argument holding a space when it stored it (the real 7.7.7 capture)."""
    location = kilo.locate(Home.at(DATA / "home"))
    [path] = [p for p in kilo.scan(location) if p.name == "kilo.db"]
    found = {s.id: s for s in kilo.parse(path, location, Diagnostics())}
    assert found["ses_dca3d578cffeM0KZq5E7M6Frvc"].title == (
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed."
    )
    # a title the CLI wrote stays, placeholder-like words and all
    assert found["ses_dca3c4fdfffeLJ9Gzp3KxVSonW"].title == "Sub-agent smoke test"


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        # kilo run fix "the login bug" now
        ('fix "the login bug" now', "fix the login bug now"),
        # kilo run 'say "hi" to all'
        ('"say \\"hi\\" to all"', 'say "hi" to all'),
        # quotes of the user's own, which run would not have written so, stay
        ('"Hello" world', '"Hello" world'),
        ('"it said "no" twice"', '"it said "no" twice"'),
        ('""', '""'),
    ],
)
def test_a_first_prompt_loses_only_the_quotes_kilo_run_added(
    tmp_path: Path, stored: str, shown: str
) -> None:
    import json
    import shutil
    import sqlite3

    folder = tmp_path / ".local/share/kilo"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "home/.local/share/kilo/kilo.db", folder / "kilo.db")
    writer = sqlite3.connect(folder / "kilo.db")
    for rowid, data in writer.execute("SELECT rowid, data FROM part").fetchall():
        part = json.loads(data)
        if part.get("text", "").startswith('"SCENARIO=basic'):
            part["text"] = stored
            writer.execute(
                "UPDATE part SET data = ? WHERE rowid = ?", (json.dumps(part), rowid)
            )
    writer.commit()
    writer.close()
    location = kilo.locate(Home.at(tmp_path))
    [path] = list(kilo.scan(location))
    found = {s.id: s for s in kilo.parse(path, location, Diagnostics())}
    assert found["ses_dca3d578cffeM0KZq5E7M6Frvc"].title == shown


def test_list_and_watch_say_a_kilo_session_was_last_active_at_its_last_answer() -> None:
    """The Kilo CLI 7.7.7 stamps a session's row when its last answer starts, not when it
    ends: `list` took that stamp, half a second (a long answer's length) before the
    answer's end that `watch` reads from the messages."""
    import json

    from click.testing import CliRunner

    from sessdex.cli import main

    def run(*argv: str) -> list[dict[str, object]]:
        result = CliRunner().invoke(
            main, [*argv, "--app", "kilo", "--home", str(DATA / "home")]
        )
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)
        assert isinstance(rows, list)
        return rows

    listed = {r["id"]: r["updated"] for r in run("list", "--all", "--json")}
    watched = {
        r["id"]: r["updated"]
        for r in run("watch", "--once", "--json", "--since", "3000w", "--poll")
    }
    for lead in ("ses_dca3d578cffeM0KZq5E7M6Frvc", "ses_dca3c4fdfffeLJ9Gzp3KxVSonW"):
        assert listed[lead] == watched[lead]
    # the resumed session's last answer ended at 07:58:56.989 (its row says 56.433)
    assert listed["ses_dca3d578cffeM0KZq5E7M6Frvc"] >= "2026-12-02T07:58:56.989Z"


@pytest.mark.parametrize(
    ("typed", "title", "shown"),
    [
        # kilo run --title "" "fix the bug": the title is the prompt as run stored it
        (["fix the bug"], '"fix the bug"', "fix the bug"),
        # kilo run --title "" say "the word" twice
        (["say", "the word", "twice"], 'say "the word" twice', "say the word twice"),
        # a prompt longer than 50 characters: cut at 50, inside run's quotes
        (
            ["please", "run the greeting shell command and tell me what it printed"],
            'please "run the greeting shell command and tell me...',
            "please run the greeting shell command and tell me ...",
        ),
        # a title of the user's own (kilo run --title '"Quoted"' …) stays
        (["fix the bug"], '"Quoted"', '"Quoted"'),
        # kilo run --title "" --command init: no message, the title empty
        ([], "", None),
    ],
)
def test_a_title_kilo_run_made_of_the_prompt_is_shown_as_typed(
    tmp_path: Path, typed: list[str], title: str, shown: str | None
) -> None:
    """`kilo run --title ""` titles the session with the first 50 characters of the
    prompt as `run` stored it (an argument holding a space in quotes, "..." after a
    longer one: run.ts's `title()`): it is shown as the user typed the prompt, cut where
    Kilo cut it; an empty title (no message) is the first prompt's, as an untitled
    session's is."""
    import json
    import shutil
    import sqlite3

    stored = " ".join(f'"{word}"' if " " in word else word for word in typed)
    folder = tmp_path / ".local/share/kilo"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "home/.local/share/kilo/kilo.db", folder / "kilo.db")
    writer = sqlite3.connect(folder / "kilo.db")
    session = "ses_dca3d578cffeM0KZq5E7M6Frvc"
    writer.execute("UPDATE session SET title = ? WHERE id = ?", (title, session))
    for rowid, data in writer.execute("SELECT rowid, data FROM part").fetchall():
        part = json.loads(data)
        if part.get("text", "").startswith('"SCENARIO=basic') and stored:
            part["text"] = stored
            writer.execute(
                "UPDATE part SET data = ? WHERE rowid = ?", (json.dumps(part), rowid)
            )
    writer.commit()
    writer.close()
    location = kilo.locate(Home.at(tmp_path))
    [path] = list(kilo.scan(location))
    found = {s.id: s for s in kilo.parse(path, location, Diagnostics())}
    expected = shown or (
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed."
    )
    assert found[session].title == expected


def test_a_cli_session_started_in_ask_or_plan_reopens_in_it(tmp_path: Path) -> None:
    """Kilo's built-in `ask` and `plan` agents make no edits: a session started in one
    reopens in it (`--agent`), not in the default `build`; `debug`, which edits, and a
    custom agent are named in a note and not passed."""
    import shutil
    import sqlite3

    source = Path(__file__).parent.parent / "data" / "opencode" / "home"
    home = tmp_path / "home" / ".local/share/kilo"
    home.mkdir(parents=True)
    database = home / "kilo.db"
    shutil.copy(source / ".local/share/opencode/opencode.db", database)
    basic = "ses_dd47cef52ffe38O37iH1Ffe05b"
    other = "ses_dd40000000ffeSynthCache01"
    writer = sqlite3.connect(database)
    writer.execute("UPDATE session SET agent = 'ask' WHERE id = ?", (basic,))
    writer.execute("UPDATE session SET agent = 'debug' WHERE id = ?", (other,))
    writer.commit()
    writer.close()
    location = kilo.locate(Home.at(tmp_path / "home"))
    [path] = list(kilo.scan(location))
    found = {s.id: s for s in kilo.parse(path, location, Diagnostics())}
    asked = kilo.resume(found[basic])
    assert asked is not None and asked.argv[-2:] == ("--agent", "ask")
    debugged = kilo.resume(found[other])
    assert debugged is not None and "--agent" not in debugged.argv
    assert any("'debug' not passed" in note for note in debugged.notes)
