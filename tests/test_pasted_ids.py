"""Ids printed for a user to paste back: one holding a character the shell reads (Crush
sub-agents' `<message>$$<call>`) is printed quoted, as bash then gives it back; and one
the shell already expanded (`$$`, its process id) finds no other session."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import app_home

CHILD = "m-1$$call_agent_1"
LEAD = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The Crush fixture, its sub-agent's id `m-1$$call_agent_1` (its lead's message
    `m-1`): the first 8 characters `list` prints hold the `$$`."""
    home = tmp_path / "home"
    shutil.copytree(app_home("crush"), home)
    db = sqlite3.connect(home / "code/shop-api/.crush/crush.db")
    old = "m-assistant-1$$call_agent_1"
    db.execute("UPDATE sessions SET id = ? WHERE id = ?", (CHILD, old))
    db.execute("UPDATE messages SET session_id = ? WHERE session_id = ?", (CHILD, old))
    db.execute("UPDATE messages SET id = 'm-1' WHERE id = 'm-assistant-1'")
    db.commit()
    db.close()
    return home


def _sessdex(
    home: Path, *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        env={
            **os.environ,
            "SESSDEX_HOME": str(home.parent / "state"),
            "SESSDEX_SHELL": "bash",
            "COLUMNS": "200",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=check,
    )


def _pasted(word: str) -> str:
    """What bash makes of `word` pasted as one argument."""
    done = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_lists_short_id_pasted_is_the_ids_start_and_keeps_the_columns(
    home: Path,
) -> None:
    """`list --all` printed `m-1$$cal`: pasted, bash made it `m-1<its pid>cal`, no id."""
    lines = _sessdex(home, "list", "--all").stdout.splitlines()
    child = next(line for line in lines if "Find every caller" in line)
    lead = next(line for line in lines if "Add retry" in line)
    short = child.split()[1]
    assert short == "'m-1$$cal'", child
    assert CHILD.startswith(_pasted(short))
    # the columns after the id stay aligned: the plain id padded as wide
    assert lead.index("/home/alex") == child.index("/home/alex"), lines


def test_shows_spawn_line_names_the_sub_agent_by_a_start_bash_gives_back(
    home: Path,
) -> None:
    """`Spawned sub-agent agent m-1$$cal` named an id that pasted was another."""
    shown = _sessdex(home, "show", LEAD[:8]).stdout
    spawned = re.search(r"^Spawned sub-agent agent (\S+) — ", shown, re.M)
    assert spawned is not None, shown
    assert spawned[1] == "'m-1$$cal'", shown
    assert CHILD.startswith(_pasted(spawned[1]))


def test_show_and_tree_name_a_lead_or_source_to_paste(home: Path) -> None:
    """`sub-agent of` names its lead as pasted: a plain id as it is (this lead's)."""
    shown = _sessdex(home, "show", CHILD).stdout
    tree = _sessdex(home, "tree", CHILD).stdout
    assert f"sub-agent of {LEAD}" in shown
    assert f"sub-agent of {LEAD}" in tree
    # the tree's own line names the sub-agent's whole id quoted too
    assert "'m-1$$call_agent_1' · " in tree, tree


def test_an_id_the_shell_expanded_is_said_so_not_taken_for_another(
    home: Path,
) -> None:
    """`show m-1$$cal` unquoted reached sessdex as `m-1<pid>cal`: "no session id
    starts with" it, not a word on why; now it names the id to quote."""
    done = _sessdex(home, "show", "m-129071cal", check=False)
    assert done.returncode != 0
    assert done.stdout == ""
    assert "'m-1$$cal'" in done.stderr, done.stderr
    assert "$$" in done.stderr and "process id" in done.stderr, done.stderr


def test_usage_sessions_sub_agent_line_names_it_to_paste(home: Path) -> None:
    """`usage session` named the sub-agent `└ m-1$$cal`, as `list` did."""
    said = _sessdex(home, "usage", "session").stdout
    line = next(line for line in said.splitlines() if "Find every caller" in line)
    assert "└ 'm-1$$cal'  agent" in line, said


def test_watchs_board_prints_an_id_to_paste_and_keeps_its_columns() -> None:
    """`watch --once` printed `m-1$$cal`, as `list` did; a plain id beside it is padded
    as wide, the columns after both aligned."""

    from sessdex.live import BoardRow
    from sessdex.model import Session
    from sessdex.status import Status
    from sessdex.views.board import plain

    def row(session_id: str, title: str) -> BoardRow:
        session = Session("crush", session_id, title=title, cwd="/home/dev/x")
        return BoardRow(session, Status("working", "model responding"), 0.0, 10, False)

    lines = plain([row(CHILD, "Child"), row(LEAD, "Lead")], "/home/dev").splitlines()
    child = next(line for line in lines if "Child" in line)
    lead = next(line for line in lines if "Lead" in line)
    assert child.split()[1] == "'m-1$$cal'", lines
    assert child.index("~/x") == lead.index("~/x"), lines


def test_lists_short_id_is_quoted_for_the_users_shell_on_every_run(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first `list` (the full command) quoted the id for cmd.exe, `"m-1$$cal"`;
    the next, answered from the index alone, quoted it for sh, `'m-1$$cal'`, quotes
    cmd.exe passes on as letters of the id."""
    monkeypatch.setenv("SESSDEX_SHELL", "cmd")
    shown = []
    for _ in range(2):  # the second run is answered from the index the first wrote
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", "list", "--all", "--home", str(home)],
            env={**os.environ, "SESSDEX_HOME": str(home.parent / "state")},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        child = next(line for line in done.stdout.splitlines() if "Find every" in line)
        shown.append(child.split()[1])
    assert shown == ['"m-1$$cal"', '"m-1$$cal"']


@pytest.mark.parametrize(
    ("session_id", "beside"),
    [
        ("7e57a$(printf Q)b", None),  # command substitution: its output in its place
        ("7e57a`printf Q`b", None),
        ("7e57a\\b", None),  # the backslash dropped
        ("7e57a*b", "7e57aXb"),  # a glob: the file's name it matched
    ],
)
def test_an_id_the_shell_read_otherwise_is_said_so(
    session_id: str, beside: str | None, tmp_path: Path
) -> None:
    """An id holding another character bash acts on in a word, typed bare, reached
    sessdex changed (`7e57aQb`): "no session id starts with" it, not a word on why,
    as was said of `$$` alone. Now it names the id to type, quoted, and why."""
    from click.testing import CliRunner

    from sessdex.cli import main
    from tests.helpers import write_claude_session

    home = tmp_path / "home"
    write_claude_session(home, session_id, "/w/a", title="T")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if beside:
        (scratch / beside).touch()
    typed = subprocess.run(
        ["bash", "-c", f"printf %s {session_id}"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert typed != session_id and not session_id.startswith(typed)
    done = CliRunner(env={"SESSDEX_SHELL": "bash"}).invoke(
        main, ["show", typed, "--home", str(home)]
    )
    assert done.exit_code == 1, done.output
    meant = re.search(r"did you mean (.+)\? Your shell", done.stderr)
    assert meant, done.stderr
    assert "type the id in quotes" in done.stderr, done.stderr
    pasted = subprocess.run(
        ["bash", "-c", f"printf %s {meant[1]}"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert session_id.startswith(pasted) and len(pasted) > len("7e57a"), meant[1]


def test_an_id_with_an_invisible_character_names_no_other_session(
    tmp_path: Path,
) -> None:
    """`7e57\\u200bx1` (a zero-width space in it) was named `7e57x1` by `show`'s, `tree`'s
    and the export's header and by `list`: pasted, that opened the session `7e57x1`
    beside it. Each names it with the character written as the shell's escape."""
    from click.testing import CliRunner

    from sessdex.cli import main
    from tests.helpers import write_claude_session

    hidden = "7e57\u200bx1"
    home = tmp_path / "home"
    write_claude_session(home, hidden, "/w/a", title="HIDDEN")
    write_claude_session(home, "7e57x1", "/w/a", title="PLAIN")

    def run(*args: str) -> str:
        done = CliRunner(env={"SESSDEX_SHELL": "bash", "COLUMNS": "120"}).invoke(
            main, [*args, "--home", str(home)]
        )
        assert done.exit_code == 0, done.output
        return done.stdout

    def typed(word: str) -> str:
        return subprocess.run(
            ["bash", "-c", f"printf %s {word}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    header = run("show", "--no-pager", hidden).splitlines()[1]
    assert typed(header.split(" · ")[1]) == hidden, header
    tree = run("tree", hidden).splitlines()[1]
    assert typed(tree.split(" · ")[0]) == hidden, tree
    exported = run("export", "-f", "md", hidden)
    found = re.search(r"^- \*\*session\*\*: `(.+)`$", exported, re.MULTILINE)
    assert found and typed(found[1]) == hidden, exported
    row = next(line for line in run("list").splitlines() if "HIDDEN" in line)
    assert hidden.startswith(typed(row.split()[1])), row
    assert not "7e57x1".startswith(typed(row.split()[1])), row


def test_usage_names_an_id_with_an_invisible_character_as_pasted(
    tmp_path: Path,
) -> None:
    """`usage session` named the row of `7e57\\u200bx1` `7e57x1`, as `list` did: pasted
    into `--explain`, that explained the session `7e57x1` beside it."""
    from click.testing import CliRunner

    from sessdex.cli import main
    from tests.helpers import write_claude_session

    hidden = "7e57\u200bx1"
    home = tmp_path / "home"
    path = write_claude_session(home, hidden, "/w/a", title="HIDDEN")
    path.write_text(path.read_text().replace("msg_1", "msg_2").replace("req_1", "r2"))
    write_claude_session(home, "7e57x1", "/w/a", title="PLAIN")
    done = CliRunner(env={"SESSDEX_SHELL": "bash", "COLUMNS": "160"}).invoke(
        main, ["usage", "session", "--home", str(home)]
    )
    assert done.exit_code == 0, done.output
    row = next(line for line in done.stdout.splitlines() if "HIDDEN" in line)
    word = row.strip("│ ").split()[0]
    typed = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, text=True, check=True
    ).stdout
    assert hidden.startswith(typed) and not "7e57x1".startswith(typed), row


def test_a_sub_agent_with_an_invisible_character_is_named_by_its_own_start(
    home: Path,
) -> None:
    """`show`'s spawn line named the sub-agent `c\\u200ball_agent_1` by its start cleaned
    (`call_age`): pasted, that was the start of another id, not this one's. It is named
    with the character written as the shell's escape."""
    hidden = "c\u200ball_agent_1"
    db = sqlite3.connect(home / "code/shop-api/.crush/crush.db")
    db.execute("UPDATE sessions SET id = ? WHERE id = ?", (hidden, CHILD))
    db.execute(
        "UPDATE messages SET session_id = ? WHERE session_id = ?", (hidden, CHILD)
    )
    db.commit()
    db.close()
    shown = _sessdex(home, "show", LEAD[:8]).stdout
    spawned = re.search(r"^Spawned sub-agent agent (\S+) — ", shown, re.M)
    assert spawned is not None, shown
    typed = _pasted(spawned[1])
    assert typed and hidden.startswith(typed), shown
    assert "\u200b" in typed, shown


def test_usage_names_an_untitled_id_with_an_invisible_character_as_pasted(
    tmp_path: Path,
) -> None:
    """A row with no title was named by its id cleaned (`7e57x1`), as a titled row was
    before: pasted into `--explain`, that explained the session `7e57x1` beside it."""
    from click.testing import CliRunner

    from sessdex.cli import main
    from tests.helpers import write_claude_session

    hidden = "7e57\u200bx1"
    home = tmp_path / "home"
    path = write_claude_session(home, hidden, "/w/a", prompt="")
    path.write_text(path.read_text().replace("msg_1", "msg_2").replace("req_1", "r2"))
    write_claude_session(home, "7e57x1", "/w/a", title="PLAIN")
    done = CliRunner(env={"SESSDEX_SHELL": "bash", "COLUMNS": "160"}).invoke(
        main, ["usage", "session", "--home", str(home)]
    )
    assert done.exit_code == 0, done.output
    rows = [line for line in done.stdout.splitlines() if "7e57" in line]
    row = next(line for line in rows if "PLAIN" not in line)
    word = row.strip("│ ").split()[0]
    typed = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, text=True, check=True
    ).stdout
    assert hidden.startswith(typed) and not "7e57x1".startswith(typed), row
