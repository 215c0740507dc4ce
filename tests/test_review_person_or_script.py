"""A day's use of sessdex: what a person at a terminal and a script each read from the
same commands (hints on stderr, names in --json, the library's arguments)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main, sessions
from sessdex.errors import BadValue

from .test_quick import full, settled

DEMO = str(api.demo_home().path)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_find_json_of_a_misspelt_word_hints_a_person_not_a_script(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`find --json chekout` typed at a terminal: stdout stays `[]` (jq reads it), and
    stderr names the word meant, as the table's hint does; into a script's log (stderr
    no terminal) nothing but the empty list."""
    code, out, err = run("find", "chekout", "--json", "--home", DEMO)
    assert (code, out.strip(), err) == (0, "[]", "")
    monkeypatch.setattr(sessions, "stderr_is_terminal", lambda: True, raising=False)
    code, out, err = run("find", "chekout", "--json", "--home", DEMO)
    assert (code, out.strip()) == (0, "[]")
    assert "Did you mean 'checkout'?" in err, err
    code, out, err = run("find", "chekout", "--nl", "--home", DEMO)
    assert (code, out) == (0, "")
    assert "Did you mean 'checkout'?" in err, err
    # list too: what emptied it is said
    code, out, err = run("list", "--json", "--app", "gemini", "--home", DEMO)
    assert (code, out.strip()) == (0, "[]")
    assert "No folder of gemini" in err, err
    # --limit 0 asked for nothing: no hint
    code, out, err = run("find", "chekout", "--json", "-n", "0", "--home", DEMO)
    assert (code, out.strip(), err) == (0, "[]", "")


def test_the_warm_quick_path_leaves_an_empty_json_answer_at_a_terminal_to_the_hint(
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = settled(Path(shutil.copytree(DEMO, tmp_path / "home", symlinks=True)))
    full("--json", "--home", str(home))
    args = ["chekout", "--json", "--home", str(home)]
    capsysbinary.readouterr()
    assert quick.answer("find", args)  # a script: the warm `[]`
    assert capsysbinary.readouterr() == (b"[]\n", b"")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert not quick.answer("find", args)  # the full command says the word meant
    # a match is still answered warm
    assert quick.answer("find", ["checkout", "--json", "--home", str(home)])
    assert b"checkout" in capsysbinary.readouterr().out.lower()


def test_usage_session_json_names_each_agent_as_list_and_tree_do() -> None:
    """A script totalling a session's sub-agents needs to know which is which: each
    `agents` entry had `key` alone ("lead" or an id); it now has the id `list --all`
    and `tree` print (the lead's is its session's), its app, agent type and title."""
    home = str(Path(__file__).parent / "data" / "claude" / "home")
    code, out, _ = run("usage", "session", "--json", "--app", "claude", "--home", home)
    assert code == 0
    rows = {row["id"]: row for row in json.loads(out)}
    agents = rows["33333333-3333-4333-8333-333333333333"]["agents"]
    lead = "33333333-3333-4333-8333-333333333333"
    reviewer, linter = "a1c1c1c1c1c1c1c1c", "a2d2d2d2d2d2d2d2d"
    assert [(a["key"], a["id"], a["app"]) for a in agents] == [
        ("lead", lead, "claude"),
        (reviewer, reviewer, "claude"),
        (linter, linter, "claude"),
    ]
    assert [(a["agent_type"], a["title"]) for a in agents] == [
        ("lead", "Review the payment module"),
        ("code-reviewer", "Review payments"),
        ("linter", "Lint payments"),
    ]
    _, listed, _ = run("list", "--all", "--json", "--app", "claude", "--home", home)
    ids = {row["id"] for row in json.loads(listed)}
    assert {a["id"] for a in agents} <= ids


def test_the_library_cuts_a_report_as_usage_limit_does() -> None:
    """`api.usage_report(..., limit=N)` gives what `usage session --limit N --json`
    prints: the N costliest rows and one that sums the rest; the total is the whole's.
    A dated report refuses it, as the command does."""
    home = api.Home.at(Path(__file__).parent / "data" / "claude" / "home")
    whole = api.usage_report(home, "session")
    report = api.usage_report(home, "session", limit=2)
    assert len(whole.rows) > 3
    assert [r.key for r in report.rows[:2]] == [r.key for r in whole.rows[:2]]
    [rest] = report.rows[2:]
    assert rest.record()["rest"] is True
    assert rest.record()["rest_rows"] == len(whole.rows) - 2
    assert report.total.record() == whole.total.record()
    _, out, _ = run("usage", "session", "-n", "2", "--json", "--home", str(home.path))
    assert [r.record() for r in report.rows] == json.loads(out)
    with pytest.raises(BadValue, match="never cut"):
        api.usage_report(home, "daily", limit=2)
    with pytest.raises(BadValue):
        api.usage_report(home, "session", limit=-1)


def test_a_session_report_from_a_day_says_whose_day_it_was() -> None:
    """`usage model --since today` (or a date) counts from midnight UTC unless --tz
    says another zone, while `list --since today` starts at local midnight: a daily
    report said so under its table, a session, project, model or app report said
    nothing, nor did the line saying nothing matched (in California, UTC's today had
    begun at 4 pm)."""
    home = str(Path(__file__).parent / "data" / "claude" / "home")
    code, out, _ = run("usage", "model", "--since", "2020-01-01", "--home", home)
    assert code == 0 and "days: UTC (--tz sets another)" in out, out
    _, out, _ = run("usage", "app", "--until", "today", "--tz", "Asia/Tokyo", "--home", home)  # fmt: skip
    assert "days: Asia/Tokyo" in out, out
    # a span back is no day: nothing to place
    _, out, _ = run("usage", "model", "--since", "100000d", "--home", home)
    assert "days:" not in out, out
    code, out, err = run("usage", "session", "--since", "2099-01-01", "--home", home)
    assert (code, out) == (0, "")
    assert err.startswith(
        "No token usage matches --since 2099-01-01, with days in UTC (--tz sets another); "
    ), err
    _, _, err = run("usage", "session", "--since", "1h", "--home", home)
    assert err.startswith("No token usage matches --since 1h; "), err


def test_watch_json_with_nothing_recent_says_how_far_it_looked_at_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`watch --json` typed at a terminal with no session changed in the day printed
    `[]` alone, where `watch --once` says how far it looked and the --since that
    reaches the newest session; a script still gets `[]` alone."""
    from sessdex.cli import live

    home = shutil.copytree(DEMO, tmp_path / "home", symlinks=True)
    for folder, _, names in os.walk(home):
        for name in names:
            os.utime(os.path.join(folder, name), (1.6e9, 1.6e9))  # 2020
    args = ("watch", "--json", "--since", "1h", "--home", str(home))
    assert run(*args) == (0, "[]\n", "")
    monkeypatch.setattr(live, "stderr_is_terminal", lambda: True, raising=False)
    code, out, err = run(*args)
    assert (code, out) == (0, "[]\n")
    assert err.startswith("No session changed in the last 1h; the newest changed "), err
    assert run(*args[:-2], "-n", "0", "--home", str(home)) == (0, "[]\n", "")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("list", "-n", "abc"), "'abc' is not a valid whole number."),
        (("show", "7f3a", "--tail", "1.5"), "'1.5' is not a valid whole number."),
        (("watch", "--duration", "soon"), "'soon' is not a valid number."),
    ],
)
def test_a_count_or_a_number_that_is_not_one_is_named_as_people_say_it(
    args: tuple[str, ...], said: str
) -> None:
    """click said "'abc' is not a valid integer range." (or "float range"): a type's
    name, not what to type."""
    code, out, err = run(*args, "--home", DEMO)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith(said), err


def test_the_session_table_names_each_sub_agent_as_tree_does() -> None:
    """Under a session's row, a sub-agent's line was its bare id (the lead's "lead"),
    so a reviewer's and a linter's tokens could not be told apart without `tree`: it
    now has its short id and what `tree` calls it, its type and task."""
    home = str(Path(__file__).parent / "data" / "claude" / "home")
    code, out, _ = run("usage", "session", "--app", "claude", "--home", home)
    lines = [line.strip("│ ") for line in out.splitlines() if line[1:].strip(" │")]
    assert code == 0
    # the short id: eight characters or more, as wide as the table's ids need to be told
    # apart (the fixture's test-hash-123 and test-hash-456 widen every row's)
    named = re.compile(r"└ (a1c1c1c1\w*  code-reviewer: Review payments|a2d2d2d2\w*  linter: Lint payments)")  # fmt: skip
    assert len({m[1].split()[1] for line in lines if (m := named.match(line))}) == 2, (
        lines
    )
    assert any(line.startswith("lead ") for line in lines), lines


def test_html_exported_to_a_terminal_says_how_to_get_a_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`export ID -f html` typed at a terminal scrolled a page's source past and said
    nothing; it now ends with the command that writes the file. Into a pipe or a file
    (`> page.html`), the HTML alone."""
    from sessdex.cli import transcripts

    args = ("export", "3f2b", "-f", "html", "--home", DEMO)
    code, out, err = run(*args)
    assert (code, err) == (0, "") and out.rstrip().endswith("</html>")
    monkeypatch.setattr(transcripts, "_to_a_terminal", lambda: True, raising=False)
    code, out, err = run(*args)
    assert code == 0 and out.rstrip().endswith("</html>")
    assert err == (
        "note: that was the page's HTML source; "
        f"'sessdex export 3f2b -o session.html --home {DEMO}' writes a file a browser opens.\n"
    )
    _, _, err = run("export", "3f2b", "--home", DEMO)  # Markdown is read where it is
    assert err == ""


def test_the_command_a_json_hint_suggests_keeps_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Typed with --json, the command "Did you mean" names gives JSON too: it named
    'sessdex find checkout', whose table a `| jq` after it could not read."""
    monkeypatch.setattr(sessions, "stderr_is_terminal", lambda: True)
    _, _, err = run("find", "chekout", "--json", "--home", DEMO)
    assert err == (
        "No session matches 'chekout'. Did you mean 'checkout'? "
        f"('sessdex find --json checkout --home {DEMO}')\n"
    )
    _, _, err = run("find", "chekout", "--nl", "--app", "claude", "--home", DEMO)
    assert f"('sessdex find --app claude --nl checkout --home {DEMO}')" in err, err
    # the table's hint as it was
    _, _, err = run("find", "chekout", "--home", DEMO)
    assert f"('sessdex find checkout --home {DEMO}')" in err, err


def test_doctor_at_80_columns_puts_each_apps_variables_under_its_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On an 80-column terminal the folders were padded to the longest (48 columns), so
    the variables after them wrapped anywhere: `CODEX_HOME,` at the end of a line and
    `CODEX_SQLITE_HOME` alone under it. Each app's now go on a line of their own."""
    home = tempfile.mkdtemp(prefix="h", dir="/tmp")  # /tmp/hXXXX: a home's short paths
    monkeypatch.setenv("HOME", home)
    try:
        result = CliRunner(env={"COLUMNS": "80"}).invoke(main, ["doctor"])
        # a wide terminal keeps them after the folder, in one column
        wide = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["doctor"]).stdout
    finally:
        shutil.rmtree(home)
    lines = result.stdout.splitlines()
    assert result.exit_code == 0
    at = next(n for n, line in enumerate(lines) if line.startswith("  codex "))
    assert lines[at].rstrip().endswith("/.codex"), lines[at]
    assert lines[at + 1].strip() == "CODEX_HOME, CODEX_SQLITE_HOME"
    at = next(n for n, line in enumerate(lines) if line.startswith("  claude "))
    assert lines[at + 1].strip() == "CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME"
    assert re.search(
        r"^  codex +\S+/\.codex +CODEX_HOME, CODEX_SQLITE_HOME$", wide, re.M
    )
