"""The command line as a person uses it: list, find, resume, doctor, demo."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from sessdex import api, sources
from sessdex.cli import main
from sessdex.sources import Home
from tests.conftest import app_home
from tests.helpers import on_a_terminal, pretend_windows, write_claude_session

DEMO = str(api.demo_home().path)
CLAUDE_A = "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90"
CLAUDE_B = "a7c41d05-2b9e-4f3a-8c17-5e6d9b0a1f24"
CODEX = "019a7e21-5c3d-7b40-9e8f-2a1b3c4d5e6f"


def invoke(*args: str, runner: CliRunner | None = None) -> tuple[int, str, str]:
    result = (runner or CliRunner()).invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_list_json_has_every_session_newest_first_with_the_documented_fields() -> None:
    code, out, _ = invoke("list", "--json", "--home", DEMO)
    assert code == 0
    sessions = json.loads(out)
    assert [s["id"] for s in sessions] == [CODEX, CLAUDE_A, CLAUDE_B]
    for key in (
        "app",
        "id",
        "cwd",
        "branch",
        "title",
        "created",
        "updated",
        "model",
        "effort",
        "permission_mode",
        "cli_version",
        "path",
        "bytes",
        "parent_id",
    ):
        assert key in sessions[0]
    codex = sessions[0]
    assert codex["app"] == "codex"
    assert codex["title"] == "Checkout timeout under load"
    assert codex["branch"] == "fix/checkout-timeout"
    assert codex["cwd"] == "/home/demo/code/shop-api"
    assert codex["model"] == "gpt-5.1-codex"
    assert codex["updated"].endswith("Z")
    assert sessions[1]["title"] == "Retry checkout payments with backoff"
    assert sessions[2]["title"] == "Fix the broken links in the deployment guide"
    assert all(s["parent_id"] is None for s in sessions)


def test_list_nl_and_limit_and_app_filter() -> None:
    code, out, _ = invoke("list", "--nl", "--limit", "2", "--home", DEMO)
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [s["id"] for s in lines] == [CODEX, CLAUDE_A]
    _, out, _ = invoke("list", "--json", "--app", "claude", "--home", DEMO)
    assert {s["app"] for s in json.loads(out)} == {"claude"}


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["find", "checkout"],
        ["show", CLAUDE_A],
        ["tree", CLAUDE_A],
        ["usage"],
        ["doctor"],
        ["watch", "--once", "--since", "2026-01-01"],
    ],
)
def test_json_and_nl_together_give_lines_in_every_command(command: list[str]) -> None:
    """`--json --nl` asks for JSON, one object per line: every command gives lines (it
    used to depend on the command: an array from most, lines from show)."""
    code, out, _ = invoke(*command, "--json", "--nl", "--home", DEMO)
    assert code == 0
    lines = out.splitlines()
    assert lines and all(isinstance(json.loads(line), dict) for line in lines)


def test_list_since_filters_by_update_time() -> None:
    _, out, _ = invoke("list", "--json", "--since", "2026-11-27", "--home", DEMO)
    assert [s["id"] for s in json.loads(out)] == [CODEX, CLAUDE_A]


def test_out_of_range_times_and_counts_mean_all_not_a_traceback() -> None:
    """A --since before year 1, an --until at the end of 9999 and counts past what SQLite
    or a queue holds are "everything", as a person asking for them means."""
    every = [CODEX, CLAUDE_A, CLAUDE_B]
    for since in ("800000d", "99999999999d", "0001-01-01"):
        code, out, _ = invoke("list", "--json", "--since", since, "--home", DEMO)
        assert code == 0 and [s["id"] for s in json.loads(out)] == every, since
    huge = "99999999999999999999999"
    code, out, _ = invoke("list", "--json", "-n", huge, "--home", DEMO)
    assert code == 0 and len(json.loads(out)) == 3
    code, out, _ = invoke("usage", "--json", "--until", "9999-12-31", "--home", DEMO)
    assert code == 0 and json.loads(out)
    code, out, _ = invoke(
        "show", CLAUDE_A[:8], "--json", "--tail", huge, "--home", DEMO
    )
    assert code == 0 and out
    # the quick path a warm `list` takes without click clamps the same way
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--json", "-n", huge, "--home", DEMO],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and len(json.loads(done.stdout)) == 3, done.stderr


def test_a_count_of_0_shows_none_and_a_negative_one_is_a_usage_error() -> None:
    """As `head -n 0`: nothing, and no hint that nothing matched."""
    assert invoke("list", "-n", "0", "--home", DEMO) == (0, "", "")
    assert invoke("find", "checkout", "-n", "0", "--home", DEMO) == (0, "", "")
    assert invoke("list", "-n", "0", "--json", "--home", DEMO) == (0, "[]\n", "")
    code, out, _ = invoke("show", CLAUDE_A[:8], "--tail", "0", "--json", "--home", DEMO)
    assert code == 0 and json.loads(out) == []
    for *args, negative in (
        ["list", "-n", "-3"],
        ["find", "checkout", "--limit", "-1"],
        ["watch", "--once", "-n", "-1"],
        ["show", CLAUDE_A[:8], "--tail", "-2"],
        ["follow", CLAUDE_A[:8], "--duration", "0", "-n", "-2"],
    ):
        code, out, err = invoke(*args, negative, "--home", DEMO)
        assert (code, out) == (2, ""), args
        assert f"{negative} is not a count: give 0 or more." in err, args
    _, shown, _ = invoke("list", "--help")
    assert "Show at most N sessions. 0 shows none." in shown
    # the quick path leaves both to the full command
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "-n", "-3", "--home", DEMO],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "-3 is not a count: give 0 or more." in done.stderr


def test_list_human_output_is_one_line_per_session() -> None:
    code, out, _ = invoke("list", "--home", DEMO)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("codex")
    assert "019a7e21" in lines[0] and "Checkout timeout under load" in lines[0]
    assert "~/code/shop-api" not in lines[0]  # the demo home is not the user's home


def test_list_writes_an_unknown_age_as_every_other_unknown_value(
    tmp_path: Path,
) -> None:
    """An Amazon Q chat that kept no time has no age: `list` wrote `?` there, beside
    the `-` of its unknown branch (and every other unknown value sessdex shows)."""
    home = tmp_path / "home"
    shutil.copytree(app_home("kiro"), home)
    code, out, _ = invoke("list", "--app", "kiro", "--home", str(home))
    line = next(line for line in out.splitlines() if "1b3d5f7a" in line)
    assert code == 0 and line.split()[2:4] == ["-", "-"], line


def test_list_columns_stay_aligned_when_an_app_name_is_long(home: Home) -> None:
    """ "antigravity" is wider than the usual app column: every id and every branch still
    starts where the line above starts it, on the full and the fast listing paths."""
    for args in (["list", "--all"], ["list"], ["find", "a"]):
        code, out, _ = invoke(*args, "--home", str(home.path))
        assert code == 0
        lines = out.splitlines()
        assert any(line.startswith("antigravity ") for line in lines)
        columns = set()
        for line in lines:
            match = re.match(r"(\S+ +)(\S+ +)( *\S+ {2})", line)
            assert match, line
            columns.add((match.end(1), match.end(3)))
        assert len(columns) == 1, (args, columns)
        assert columns.pop()[0] == len("antigravity") + 1


def test_an_id_two_apps_share_is_picked_by_naming_the_app(home: Home) -> None:
    """A task copied from Roo Code into Kilo Code keeps its id: the bare id is ambiguous
    and says how to choose; `kilo:ID` and `roo:ID` each open their own app's copy."""
    import shutil

    storage = home.path / ".config" / "Code" / "User" / "globalStorage"
    task = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
    shutil.copytree(
        storage / "rooveterinaryinc.roo-cline" / "tasks" / task,
        storage / "kilocode.kilo-code" / "tasks" / task,
    )
    where = ("--home", str(home.path))
    code, _, err = invoke("show", task, "--json", *where)
    assert code == 1
    assert "matches 2 sessions (1 kilo, 1 roo)" in err and f"kilo:{task}" in err
    for app in ("kilo", "roo", "KILO"):
        code, out, err = invoke("show", f"{app}:{task[:6]}", "--no-pager", *where)
        assert code == 0, err
        assert f"{app.lower()} · {task}" in out  # the header names the app it opened
        code, out, _ = invoke("tree", f"{app}:{task}", "--json", *where)
        assert code == 0 and json.loads(out)["id"] == task
    code, _, err = invoke("show", f"claude:{task}", *where)
    assert code == 1 and f"no session id starts with 'claude:{task}'" in err
    # a word before a colon that names no app is part of the id
    code, _, err = invoke("show", "nonesuch:123", *where)
    assert code == 1 and "'nonesuch:123'" in err
    assert "'nonesuch' is no app sessdex reads" in err  # a misspelt app, most likely


def test_an_id_of_another_app_than_the_one_named_says_which_app_has_it() -> None:
    """`codex:3f2b` for a Claude Code session's id: the error names the form that works."""
    code, out, err = invoke("show", f"codex:{CLAUDE_A[:8]}", "--home", DEMO)
    assert (code, out) == (1, "")
    assert f"a claude session's does: 'claude:{CLAUDE_A[:8]}'" in err
    code, _, err = invoke("resume", f"claude:{CODEX[:6]}", "--print", "--home", DEMO)
    assert code == 1 and f"'codex:{CODEX[:6]}'" in err


def test_a_session_file_given_for_an_id_shows_its_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A transcript's name pasted where the id goes (as a user in the folder types it)
    holds the session's id: that session is shown; another file says it is none."""
    _, out, _ = invoke("list", "--json", "--app", "codex", "--home", DEMO)
    path = Path(json.loads(out)[0]["path"])
    monkeypatch.chdir(path.parent)
    for command in ("show", "tree", "export"):
        code, out, err = invoke(command, path.name, "--home", DEMO)
        assert code == 0, (command, err)
        assert CODEX in out, command
    code, _, err = invoke(
        "show", str(Path(DEMO) / ".codex" / "config.toml"), "--home", DEMO
    )
    assert (
        code == 1
        and f"that is a file, not an id: give the id 'sessdex list --home {DEMO}' shows"
        in err
    )


def test_an_ambiguous_id_names_an_app_only_where_that_settles_it() -> None:
    from sessdex.errors import AmbiguousId

    one_kilo = [("roo", "9e8d1", "a"), ("roo", "9e8d2", "b"), ("kilo", "9e8d3", "c")]
    assert "('kilo:9e8d')" in str(AmbiguousId("9e8d", one_kilo))
    two_each = [*one_kilo, ("kilo", "9e8d4", "d")]
    told = str(AmbiguousId("9e8d", two_each))
    assert "matches 4 sessions (2 kilo, 2 roo); type more of the id." in told


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--since", ""],
        ["list", "--since= "],
        ["find", "checkout", "--since", ""],
        ["usage", "--since", ""],
        ["usage", "--until", ""],
        ["usage", "--tz", ""],
        ["watch", "--since", "", "--once"],
    ],
)
def test_an_empty_value_is_a_usage_error_not_everything(args: list[str]) -> None:
    """A script passing an unset variable (`--since "$SINCE"`) got every session, or
    every day of usage, as if the option were left out."""
    code, out, err = invoke(*args, "--home", DEMO)
    assert (code, out) == (2, "") and "it is empty: give a value" in err, args


@pytest.mark.parametrize("words", [[""], ["", " "]])
def test_find_with_no_word_is_a_usage_error_not_every_session(
    words: list[str],
) -> None:
    """`sessdex find "$WORD"` with WORD unset listed every session."""
    code, out, err = invoke("find", *words, "--home", DEMO)
    assert (code, out) == (2, "")
    assert (
        f"give a word to find; 'sessdex list --home {DEMO}' shows every session" in err
    )


def test_a_value_an_option_cannot_take_is_a_usage_error() -> None:
    """Exit codes as README says: 2 for a usage error (a --since sessdex cannot read, as
    for an option click checks itself), 1 for an explained error (an id not found)."""
    code, out, err = invoke("list", "--since", "last tuesday", "--home", DEMO)
    assert (code, out) == (2, "") and "cannot read the time 'last tuesday'" in err
    code, _, err = invoke("find", "x", "--since", "3 fortnights", "--home", DEMO)
    assert code == 2 and "use 3d, 12h, 2w" in err
    code, _, err = invoke("list", "--limit", "many", "--home", DEMO)
    assert code == 2  # click's own check
    code, _, err = invoke("show", "ffffffffffff", "--home", DEMO)
    assert code == 1 and "no session id starts with" in err
    for command in ("show", "resume", "export", "tree", "follow"):
        code, out, err = invoke(command, " ", "--home", DEMO)
        assert (code, out) == (2, "") and "give an id" in err, command
        code, out, err = invoke(command, "Codex:", "--home", DEMO)  # the id left out
        assert (code, out) == (2, "") and "give an id after 'Codex:'" in err, command
        assert f"'sessdex list --app codex --home {DEMO}'" in err
    code, _, err = invoke("show", "nonesuch:", "--home", DEMO)  # no app: an id's start
    assert code == 1 and "no session id starts with 'nonesuch:'" in err


def test_usage_explain_of_an_app_with_no_id_explains_no_session() -> None:
    """`--explain codex:` (the id left out) explained the demo's only Codex session as if
    its id had been given; `show codex:` asks for the id. (A blank key is a usage error:
    tests/test_refused_empty_options.py.)"""
    code, out, err = invoke("usage", "session", "--explain", "codex:", "--home", DEMO)
    assert code == 1 and out == ""
    assert "no session row is keyed 'codex:'" in err


def test_a_windows_path_given_for_an_id_names_no_app() -> None:
    """A transcript's path pasted on Windows was said to name an app 'C' sessdex does not
    read; a misspelt app before an id is still named."""
    code, _, err = invoke("show", "C:\\Users\\alex\\s.jsonl", "--home", DEMO)
    assert code == 1 and "no session id starts with" in err
    assert "is no app" not in err
    code, _, err = invoke("show", "nope:3f2b", "--home", DEMO)
    assert code == 1 and "'nope' is no app sessdex reads" in err


def test_apps_joined_in_one_app_option_are_told_apart() -> None:
    """`--app codex,claude` named both apps: the guess was claude alone, as if codex were
    a typo; now each is to be given its own --app."""
    for given in ("codex,claude", "codex, claude"):
        code, _, err = invoke("list", "--app", given, "--home", DEMO)
        assert code == 2
        assert "(give each app its own --app: --app codex --app claude)" in err, given
        assert "did you mean" not in err


def test_unknown_app_is_a_clear_error() -> None:
    code, _, err = invoke("list", "--app", "cladue", "--home", DEMO)
    assert code == 2  # a value the option cannot take: a usage error, as click's own
    assert "unknown app 'cladue' (did you mean 'claude'?)" in err
    known = err.split("Known apps: ", 1)[1].rstrip(".\n").split(", ")
    assert known == sorted(known)  # easy to scan
    for args, meant in (
        (("watch", "--once", "--app", "gemeni"), "gemini"),
        (("find", "app:codx"), "codex"),
    ):
        code, _, err = invoke(*args, "--home", DEMO)
        assert code == 2 and f"(did you mean {meant!r}?)" in err, args
    code, _, err = invoke("list", "--app", "xyz", "--home", DEMO)
    assert code == 2 and "did you mean" not in err  # nothing near: no guess
    code, _, err = invoke("show", "codx:019a", "--home", DEMO)
    assert code == 1 and err.rstrip().endswith("did you mean 'codex:019a'?")


def test_an_app_name_in_capitals_is_the_app() -> None:
    code, out, _ = invoke("list", "--json", "--app", "Claude", "--home", DEMO)
    assert code == 0 and {s["app"] for s in json.loads(out)} == {"claude"}


def test_find_matches_all_words_across_fields() -> None:
    _, out, _ = invoke("find", "checkout", "--json", "--home", DEMO)
    assert {s["id"] for s in json.loads(out)} == {CODEX, CLAUDE_A}
    _, out, _ = invoke("find", "checkout", "backoff", "--json", "--home", DEMO)
    assert [s["id"] for s in json.loads(out)] == [CLAUDE_A]
    _, out, _ = invoke("find", "CHECKOUT", "app:codex", "--json", "--home", DEMO)
    assert [s["id"] for s in json.loads(out)] == [CODEX]
    _, out, _ = invoke("find", "branch:fix/", "--json", "--home", DEMO)
    assert [s["id"] for s in json.loads(out)] == [CODEX]
    _, out, _ = invoke("find", "dir:docs-site", "--json", "--home", DEMO)
    assert [s["id"] for s in json.loads(out)] == [CLAUDE_B]
    code, out, _ = invoke("find", "nothing-like-this", "--json", "--home", DEMO)
    assert code == 0 and json.loads(out) == []
    # an id with its app in front, as `show` and `resume` take it (and their errors say)
    _, out, _ = invoke("find", f"codex:{CODEX[:8]}", "--json", "--home", DEMO)
    assert [s["id"] for s in json.loads(out)] == [CODEX]
    _, out, _ = invoke("find", f"claude:{CODEX[:8]}", "--json", "--home", DEMO)
    assert json.loads(out) == []


def test_find_dir_takes_a_folder_under_the_home_as_list_shows_it(
    tmp_path: Path,
) -> None:
    """`list` shows a folder under the home as `~/code/shop`; `dir:` takes it back (no
    shell expands a `~` after `dir:`)."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_A, str(home / "code" / "shop"))
    write_claude_session(home, CLAUDE_B, "/srv/code/shop")
    _, out, _ = invoke("list", "--home", str(home))
    assert "~/code/shop" in out
    for value in ("~/code/shop", "~"):
        _, out, _ = invoke("find", f"dir:{value}", "--json", "--home", str(home))
        assert [s["id"] for s in json.loads(out)] == [CLAUDE_A]


def test_find_takes_a_folder_with_its_trailing_slash(tmp_path: Path) -> None:
    """A shell completes a folder with a "/": it still names the folder, and only it."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_A, "/srv/code/shop")
    write_claude_session(home, CLAUDE_B, "/srv/code/shop-old")
    for query in ("dir:code/shop/", "/srv/code/shop/", "dir:/"):
        _, out, _ = invoke("find", query, "--json", "--home", str(home))
        found = [s["id"] for s in json.loads(out)]
        assert found == ([CLAUDE_A] if query != "dir:/" else [CLAUDE_A, CLAUDE_B])


def test_find_matches_an_accent_however_it_was_composed(tmp_path: Path) -> None:
    """macOS may record a folder's é as e and a combining accent (NFD); a keyboard types
    é (NFC). Either finds the other."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_A, "/Users/zoe\u0301/code/cafe\u0301")
    write_claude_session(home, CLAUDE_B, "/srv/code/shop", title="Menu du caf\u00e9")
    for query, found in (
        ("caf\u00e9", [CLAUDE_A, CLAUDE_B]),
        ("dir:zo\u00e9/code/caf\u00e9", [CLAUDE_A]),
        ("CAFE\u0301", [CLAUDE_A, CLAUDE_B]),
    ):
        _, out, _ = invoke("find", query, "--json", "--home", str(home))
        assert [s["id"] for s in json.loads(out)] == found


@pytest.mark.parametrize(
    ("title", "typed"),
    [
        ("Straße renovieren", "STRASSE"),
        ("Menu du Café", "cafe"),
        ("İstanbul trip", "istanbul"),
        ("Οδός plan", "ΟΔΟΣ"),
        ("Nguyễn's notes", "nguyen"),
        ("Đà Nẵng trip", "da"),  # a stroke is left out as an accent is
        ("Łódź office", "LODZ"),
        ("København move", "kobenhavn"),
        ("Ħamrun build", "hamrun"),
        ("ＡＰＩ設計の見直し", "api"),
        ("ｶﾀｶﾅ変換", "カタカナ"),
        ("fix the \u2764 button", "\u2764\ufe0f"),  # an emoji picker adds U+FE0F
    ],
)
def test_find_folds_case_and_accents_as_people_type(
    tmp_path: Path, title: str, typed: str
) -> None:
    """A word typed without its accents, or in capitals that fold to more than one letter,
    finds the title that has them (and the other way round); only that session."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_A, "/srv/code/shop", title=title)
    write_claude_session(home, CLAUDE_B, "/srv/code/other", title="plain words")
    for query in (typed, title.split()[0]):
        _, out, _ = invoke("find", query, "--json", "--home", str(home))
        assert [s["id"] for s in json.loads(out)] == [CLAUDE_A], query


def test_since_takes_its_units_in_capitals_but_m(tmp_path: Path) -> None:
    """`--since 3D` is three days, as `3d`; `30M` is refused (minutes or months?)."""
    code, lower, _ = invoke("list", "--since", "400d", "--json", "--home", DEMO)
    assert code == 0 and json.loads(lower)
    for typed in ("400D", "58W", "9600H"):
        code, out, err = invoke("list", "--since", typed, "--json", "--home", DEMO)
        assert (code, out) == (0, lower), (typed, err)
    code, _, err = invoke("list", "--since", "30M", "--home", DEMO)
    assert code != 0 and "30m" in err


def test_find_keeps_a_cyrillic_or_kana_mark_a_letter_of_its_own(
    tmp_path: Path,
) -> None:
    """й is not и, nor が か: only accents on Latin and Greek letters are dropped."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_A, "/srv/code/shop", title="мой план がぎ")
    for query in ("мои", "かき"):
        _, out, _ = invoke("find", query, "--json", "--home", str(home))
        assert json.loads(out) == [], query


def test_an_id_written_as_find_takes_it_opens_the_session() -> None:
    """`find id:019a` lists a session; `show id:019a` said no session id starts with
    'id:019a', and that 'id' was no app."""
    code, out, err = invoke("show", "id:019a7e21", "--json", "--home", DEMO)
    assert code == 0, err
    assert {event["session_id"] for event in json.loads(out)} == {CODEX}
    code, out, err = invoke("resume", "ID:3f2b", "--print", "--home", DEMO)
    assert code == 1 and f"claude --resume {CLAUDE_A}" in out, err
    code, _, err = invoke("show", "id:zzzz", "--home", DEMO)
    assert code == 1 and "no session id starts with 'id:zzzz'" in err
    assert "no app" not in err


def test_find_help_names_every_filter_and_how_to_look_for_a_flag() -> None:
    """`title:` was only in the README; `find --dry-run` is refused as an unknown option
    and the help it points to says to put such a word after `--`, which finds it."""
    from sessdex.selection import _SCOPES

    _, out, _ = invoke("find", "-h")
    for scope in set(_SCOPES.values()):
        assert f"{scope}:" in out, scope
    assert "sessdex find -- --dry-run" in out
    code, _, err = invoke("find", "--dry-run", "--home", DEMO)
    assert code == 2 and "find --help' for help" in err
    home = str(app_home("codex"))
    code, out, _ = invoke("find", "--json", "--home", home, "--", "--dry-run")
    assert code == 0
    assert [s["title"] for s in json.loads(out)] == [
        "Add a --dry-run flag to the importer"
    ]


def test_find_ranks_an_id_prefix_first() -> None:
    _, out, _ = invoke("find", "a7c4", "--json", "--home", DEMO)
    assert next(s["id"] for s in json.loads(out)) == CLAUDE_B


def test_find_ranks_an_id_prefix_first_in_any_case(tmp_path: Path) -> None:
    """An id with capitals (an Amp thread's `T-…`) ranks first whichever case is typed,
    above a newer session that only mentions it."""
    home = tmp_path / "home"
    shutil.copytree(app_home("amp"), home)
    newer = "11111111-0000-4000-8000-000000000001"
    write_claude_session(home, newer, "/code/shop", title="Compare with T-019e8cc2")
    for typed in ("T-019e8cc2", "t-019e8cc2"):
        _, out, _ = invoke("find", typed, "--json", "--home", str(home))
        assert [s["id"][:10] for s in json.loads(out)] == ["T-019e8cc2", newer[:10]]


def test_find_ranks_an_id_prefix_first_when_asked_with_id_or_the_app(
    tmp_path: Path,
) -> None:
    """`id:7f3a` and `claude:7f3a` match inside an id too; the session whose id starts
    so (the one `show claude:7f3a` opens) comes first, above a newer one."""
    home = tmp_path / "home"
    older = "7f3a0000-0000-4000-8000-000000000001"
    newer = "11117f3a-0000-4000-8000-000000000002"
    write_claude_session(home, older, "/srv/a", when="2026-11-01T10:00:00.000Z")
    write_claude_session(home, newer, "/srv/b", when="2026-11-20T10:00:00.000Z")
    for query in ("7f3a", "id:7f3a", "claude:7f3a", "ID:7F3A"):
        _, out, _ = invoke("find", query, "--json", "--home", str(home))
        assert [s["id"] for s in json.loads(out)] == [older, newer], query


def test_here_keeps_sessions_of_this_folder_and_below(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "code" / "shop"
    (project / "sub").mkdir(parents=True)
    other = tmp_path / "code" / "shopping"
    other.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, "11111111-0000-4000-8000-000000000001", str(project))
    write_claude_session(
        home, "22222222-0000-4000-8000-000000000002", str(project / "sub")
    )
    write_claude_session(home, "33333333-0000-4000-8000-000000000003", str(other))
    monkeypatch.chdir(project)
    _, out, _ = invoke("list", "--here", "--json", "--home", str(home))
    assert sorted(s["id"][:2] for s in json.loads(out)) == ["11", "22"]


def test_here_in_a_folder_removed_under_the_shell_lists_its_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The working folder was removed (a branch's worktree, a temporary checkout): the
    shell's $PWD still names it, and its sessions are listed; without one, a sentence."""
    project = tmp_path / "code" / "shop"
    project.mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_A, str(project))
    write_claude_session(home, CLAUDE_B, str(tmp_path / "code" / "other"))
    monkeypatch.chdir(project)
    project.rmdir()
    monkeypatch.setenv("PWD", str(project))
    code, out, _ = invoke("list", "--here", "--json", "--home", str(home))
    assert code == 0 and [s["id"] for s in json.loads(out)] == [CLAUDE_A]
    monkeypatch.delenv("PWD")
    code, out, err = invoke("find", "hello", "--here", "--home", str(home))
    assert code == 1 and out == ""
    assert (
        err
        == "Error: --here: the folder you are in no longer exists; cd to one that does.\n"
    )


def test_here_finds_a_session_recorded_under_another_path_to_this_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home reached through a link: the shell's $PWD names the folder one way, the
    system's working folder (links resolved) another; a session may record either."""
    real = tmp_path / "disk" / "code" / "shop"
    real.mkdir(parents=True)
    (tmp_path / "home-link").symlink_to(tmp_path / "disk")
    linked = tmp_path / "home-link" / "code" / "shop"
    home = tmp_path / "home"
    write_claude_session(home, "11111111-0000-4000-8000-000000000001", str(real))
    write_claude_session(home, "22222222-0000-4000-8000-000000000002", str(linked))
    write_claude_session(home, "33333333-0000-4000-8000-000000000003", str(tmp_path))
    monkeypatch.chdir(linked)  # as a shell does: the working folder is the real one
    monkeypatch.setenv("PWD", str(linked))
    assert os.getcwd() == str(real)
    _, out, _ = invoke("list", "--here", "--json", "--home", str(home))
    assert sorted(s["id"][:2] for s in json.loads(out)) == ["11", "22"]
    # the quick path (the second run, warm) means the same folder
    env = {**os.environ, "PWD": str(linked)}
    command = [
        sys.executable,
        "-m",
        "sessdex",
        "list",
        "--here",
        "--json",
        "--home",
        str(home),
    ]
    for _ in range(2):
        done = subprocess.run(
            command, cwd=real, env=env, capture_output=True, check=True
        )
        assert sorted(s["id"][:2] for s in json.loads(done.stdout)) == ["11", "22"]
    monkeypatch.setenv("PWD", str(tmp_path / "elsewhere"))  # not this folder: ignored
    _, out, _ = invoke("list", "--here", "--json", "--home", str(home))
    assert sorted(s["id"][:2] for s in json.loads(out)) == ["11"]


def test_resume_print_keeps_model_and_quotes_everything() -> None:
    code, out, err = invoke("resume", CODEX[:8], "--print", "--home", DEMO)
    assert code == 1  # printed, but its cd fails: resume refuses it
    words = shlex.split(out)
    assert words[:3] == ["cd", "/home/demo/code/shop-api", "&&"]
    assert words[3:6] == ["codex", "resume", CODEX]
    assert "-m" in words and words[words.index("-m") + 1] == "gpt-5.1-codex"
    assert (
        "no longer exists" in err
    )  # the demo folder is not on this machine: said, not hidden


def test_resume_json_gives_a_script_the_plan_as_values() -> None:
    code, out, err = invoke("resume", CODEX[:8], "--json", "--home", DEMO)
    assert code == 0
    plan = json.loads(out)
    assert (plan["app"], plan["id"]) == ("codex", CODEX)
    assert plan["cwd"] == "/home/demo/code/shop-api"
    assert plan["argv"][:3] == ["codex", "resume", CODEX]
    assert shlex.split(plan["command"])[3:] == plan["argv"]
    assert any("no longer exists" in refusal for refusal in plan["refusals"])
    assert plan["branch_mismatch"] is None and plan["live_pids"] == []
    assert err == ""  # a script's log gets what the object holds once, not twice


def test_hostile_folder_name_comes_out_inert(tmp_path: Path) -> None:
    folder = tmp_path / "a b'; rm -rf ~ $(touch pwned) `id`"
    folder.mkdir()
    home = tmp_path / "home"
    session_id = "44444444-0000-4000-8000-000000000004"
    write_claude_session(home, session_id, str(folder))
    code, out, _ = invoke("resume", "4444", "--print", "--home", str(home))
    assert code == 0
    words = shlex.split(out)
    assert words[1] == str(folder)
    assert words[3:6] == ["claude", "--resume", session_id]
    marker = tmp_path / "ran"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "claude").write_text(f"#!/bin/sh\npwd > '{marker}'\n")
    (fake_bin / "claude").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", out], cwd=tmp_path, env=env, check=True)
    assert marker.read_text().strip() == str(folder)
    assert not (tmp_path / "pwned").exists() and not (folder / "pwned").exists()


@pytest.mark.parametrize("folder", ["-", "-P", "-L", "--help", "+1", "+0"])
def test_a_folder_that_reads_as_an_option_of_cd_is_not_one(
    tmp_path: Path, folder: str
) -> None:
    """A file's folder `-P` (or `-`): `cd -P && …` would resume in the home folder (`cd -`
    in the last one; zsh's `cd +1` in an entry of its folder stack); the command goes
    into the folder of that name, as resume would."""
    home = tmp_path / "home"
    session_id = "46464646-0000-4000-8000-000000000004"
    write_claude_session(home, session_id, folder)
    (tmp_path / folder).mkdir()
    session = api.resolve(Home.at(home), "4646")
    assert session.cwd == folder
    code, out, err = invoke("resume", "4646", "--print", "--home", str(home))
    # no full path: printed with the refusal (and 1), which an export's line leaves out
    assert code == 1 and "is no full path" in err
    assert api.resume_command(session) is None
    assert shlex.split(out)[:3] == ["cd", f"./{folder}", "&&"]
    marker = tmp_path / "ran"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "claude").write_text(f"#!/bin/sh\npwd > '{marker}'\n")
    (fake_bin / "claude").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}", "HOME": str(home)}
    env["OLDPWD"] = str(home)
    subprocess.run(["bash", "-c", out], cwd=tmp_path, env=env, check=True)
    assert marker.read_text().strip() == str(tmp_path / folder)


def test_a_folder_holding_a_nul_byte_gets_no_command_that_runs_elsewhere(
    tmp_path: Path,
) -> None:
    """A broken file's folder `<real folder>` + NUL + `x`: a shell ends `$'…'` at the
    NUL, so the printed or exported command would resume in the real folder above."""
    home = tmp_path / "home"
    session_id = "45454545-0000-4000-8000-000000000004"
    path = write_claude_session(home, session_id, str(tmp_path))
    path.write_text(path.read_text().replace(str(tmp_path), str(tmp_path) + "\\u0000x"))
    code, out, err = invoke("resume", "4545", "--print", "--home", str(home))
    assert code == 1 and "NUL" in err
    assert "cd " not in out
    session = api.resolve(Home.at(home), "4545")
    assert api.resume_command(session) is None  # what export writes into the file
    code, out, _ = invoke("export", "4545", "-f", "md", "--home", str(home))
    assert code == 0 and "claude --resume" not in out


def test_a_newline_from_a_file_starts_no_line_of_its_own_on_stderr(
    tmp_path: Path,
) -> None:
    """A record type, a folder or a file name holding a newline would print a line
    of the file's choosing among sessdex's warnings (a made-up unreadable file)."""
    home = tmp_path / "home"
    folder = str(tmp_path / "gone\n  /etc/passwd:1: not JSON")
    path = write_claude_session(home, "47474747-0000-4000-8000-000000000004", folder)
    with path.open("a") as f:
        f.write(json.dumps({"type": "odd\n  /etc/shadow:2: not JSON"}) + "\n")
    code, _, err = invoke("show", "4747", "-v", "--no-pager", "--home", str(home))
    assert code == 0 and "record types not recognised: odd" in err
    code, _, err2 = invoke("resume", "4747", "--home", str(home))
    assert code == 1 and "no longer exists" in err2
    for line in (err + err2).splitlines():
        assert not line.startswith("  /etc/"), line
    code, out, _ = invoke("doctor", "--deep", "--app", "claude", "--home", str(home))
    assert code == 0 and "unknown     odd" in out
    assert not any(line.startswith("  /etc/") for line in out.splitlines()), out


def test_a_cut_emoji_in_a_transcript_stops_no_command(tmp_path: Path) -> None:
    """JSON allows a lone surrogate (`\\ud83d`, half an emoji) and the reader keeps it;
    SQLite and orjson take UTF-8 only: the index refresh, `show --json` and every
    command after them ended in a traceback."""
    home = tmp_path / "home"
    path = write_claude_session(home, "4d4d4d4d-0000-4000-8000-000000000004", str(tmp_path),
                                prompt="PROMPT", branch="BRANCH")  # fmt: skip
    cut = (
        path.read_text()
        .replace("PROMPT", "fix it \\ud83d")
        .replace("BRANCH", "b\\udce9")
    )
    path.write_text(cut.replace('"text": "', '"text": "half \\ud83d ', 1))
    code, out, _ = invoke("list", "--json", "--home", str(home))
    assert code == 0
    (listed,) = json.loads(out)
    assert (listed["title"], listed["branch"]) == ("fix it \ufffd", "b\ufffd")
    code, out, _ = invoke("show", "4d4d", "--json", "--home", str(home))
    assert code == 0 and any(
        (e["text"] or "").startswith("half \ufffd") for e in json.loads(out)
    )
    code, out, _ = invoke("resume", "4d4d", "--print", "--home", str(home))
    assert code == 0 and shlex.split(out)[:2] == ["cd", str(tmp_path)]
    # the replacement character, as for every other app, not a question mark
    code, out, _ = invoke("show", "4d4d", "--home", str(home))
    assert code == 0 and "half \ufffd " in out and "half ? " not in out
    for fmt in ("md", "html"):  # a file is UTF-8 too
        target = tmp_path / f"out.{fmt}"
        code, _, _ = invoke("export", "4d4d", "-o", str(target), "--home", str(home))
        assert code == 0 and "half \ufffd " in target.read_text(encoding="utf-8")


def test_resume_refuses_a_missing_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(
        home, "55555555-0000-4000-8000-000000000005", str(tmp_path / "gone")
    )
    code, _, err = invoke("resume", "5555", "--home", str(home))
    assert code == 1
    assert "no longer exists" in err and "never resumes elsewhere" in err


def test_resume_says_a_windows_folder_from_a_copied_home_is_not_here(
    tmp_path: Path,
) -> None:
    """A home copied from Windows records `C:\\Users\\…`: "no longer exists" sent the
    user looking for a folder that was never on this machine."""
    home = tmp_path / "home"
    write_claude_session(
        home, "5a5a5a5a-0000-4000-8000-000000000005", "C:\\Users\\me\\shop"
    )
    code, out, err = invoke("resume", "5a5a", "--print", "--home", str(home))
    assert code == 1 and shlex.split(out)[:2] == ["cd", "C:\\Users\\me\\shop"]
    assert "C:\\Users\\me\\shop is a Windows folder, not on this machine" in err
    code, _, err = invoke("resume", "5a5a", "--home", str(home))
    assert code == 1 and "is a Windows folder" in err and "no longer exists" not in err


def test_resume_refuses_a_session_that_recorded_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`claude --resume <id>` finds a session only in the project folder it ran in: with
    no folder recorded, the line once printed `cd . && claude --resume …` (exit 0), which
    ran nowhere useful; now it is refused, as Kimi's, Gemini's or Cursor's is, saying why
    and what to do."""
    home = tmp_path / "home"
    path = write_claude_session(home, "56565656-0000-4000-8000-000000000005", "/w/x")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text(
        "".join(
            json.dumps({k: v for k, v in r.items() if k != "cwd"}) + "\n" for r in lines
        )
    )
    assert api.resolve(Home.at(home), "5656").cwd is None
    monkeypatch.chdir(tmp_path)
    for words in ((), ("--print",)):
        code, out, err = invoke("resume", "5656", *words, "--home", str(home))
        assert code == 1 and out == ""
        assert "Claude Code recorded no folder for this session" in err
        assert "finds a session only from the folder the session ran in" in err
        assert "go to that folder and resume it there" in err
    code, out, err = invoke("resume", "5656", "--json", "--home", str(home))
    record = json.loads(out)
    assert code == 0 and record["command"] is None
    assert "recorded no folder" in record["refusals"][0]


@pytest.mark.parametrize(
    ("target", "line"),
    [
        ("hermes:20260405_101500_5e5e5e", "hermes --resume 20260405_101500_5e5e5e"),
        (
            "copilot:3f6c2a1e",
            "copilot --resume 3f6c2a1e-8b4d-4e7a-9c2f-5d1e0b7a6c48",
        ),
        ("amp:test-thread-1", "amp threads continue test-thread-1"),
    ],
)
def test_resume_of_a_session_with_no_folder_runs_anywhere_its_cli_finds_it(
    home: Home, target: str, line: str
) -> None:
    """Hermes keeps every session in one database, Copilot in one folder, Amp its threads
    by id: their CLI finds the session from any folder, so the line has no `cd` (once
    `cd . && hermes …` for Hermes, a refusal for Copilot and Amp) and a note says the
    folder is unknown."""
    code, out, err = invoke("resume", target, "--print", "--home", str(home.path))
    assert code == 0, err
    assert out.strip().startswith(line) and "cd " not in out
    assert "recorded no folder for this session" in err
    assert "runs in the folder you are in" in err
    code, out, _ = invoke("resume", target, "--json", "--home", str(home.path))
    record = json.loads(out)
    assert code == 0 and record["cwd"] is None and record["command"].startswith(line)


def test_a_recorded_model_that_reads_as_an_option_is_left_out(tmp_path: Path) -> None:
    """Quoting keeps a shell from reading a value as words, not a CLI from reading it as
    a flag: `claude --model --dangerously-skip-permissions` would loosen the session."""
    home = tmp_path / "home"
    write_claude_session(
        home,
        "57575757-0000-4000-8000-000000000005",
        str(tmp_path),
        model="--dangerously-skip-permissions",
    )
    check = api.check_resume(Home.at(home), "5757")
    assert "--dangerously-skip-permissions" not in check.plan.argv
    assert any("left out the recorded model" in w for w in check.warnings)
    code, out, err = invoke("resume", "5757", "--print", "--home", str(home))
    assert code == 0 and "dangerously" not in out and "left out" in err


def test_a_recorded_mode_that_reads_as_an_option_is_left_out(tmp_path: Path) -> None:
    """--keep-permissions keeps a recorded mode as the value of the CLI's option, never
    as an option of its own (`qwen --approval-mode --yolo`)."""
    home = tmp_path / "home"
    shutil.copytree(app_home("qwen"), home)
    for chat in home.rglob("5d1e0c2a-*.jsonl"):
        chat.write_text(re.sub(r'"mode":"[^"]*"', '"mode":"--yolo"', chat.read_text()))
    check = api.check_resume(Home.at(home), "5d1e0c2a", keep_permissions=True)
    assert check.session.permission_mode is None
    assert not any(word.startswith("--yolo") for word in check.plan.argv)
    assert any("left out the recorded permission mode" in w for w in check.warnings)
    code, out, _ = invoke(
        "resume", "5d1e0c2a", "--print", "--keep-permissions", "--home", str(home)
    )
    assert code == 1 and "--yolo" not in out and "--approval-mode" not in out


def test_a_codex_mode_of_two_settings_is_not_said_to_be_left_out() -> None:
    """Codex's mode names its approval and its sandbox (`approval=never
    sandbox=danger-full-access`): two plain words, kept for the adapter, which passes
    the looser ones only with --keep-permissions; no note says it was left out."""
    home = Home.at(app_home("codex"))
    check = api.check_resume(home, "01a22b81-6e0b")
    assert check.session.permission_mode == "approval=never sandbox=danger-full-access"
    assert not any("left out the recorded" in w for w in check.warnings)
    assert any("left out -a never" in w for w in check.warnings)
    kept = api.check_resume(home, "01a22b81-6e0b", keep_permissions=True)
    assert kept.plan.argv[-4:] == ("-a", "never", "-s", "danger-full-access")
    assert not any("left out" in w for w in kept.warnings)


def test_ambiguous_prefix_lists_the_candidates(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(
        home, "66666666-0000-4000-8000-000000000006", str(tmp_path), title="first"
    )
    write_claude_session(
        home, "66666666-1111-4000-8000-000000000007", str(tmp_path), title="second"
    )
    code, _, err = invoke("resume", "6666", "--print", "--home", str(home))
    assert code == 1
    assert "matches 2 sessions (2 claude)" in err
    assert "first" in err and "second" in err
    code, _, err = invoke("resume", "zzzz", "--home", str(home))
    assert code == 1 and "no session id starts with 'zzzz'" in err


def _git_repo(folder: Path, branch: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", branch, str(folder)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(folder),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "init",
        ],
        check=True,
    )


def _with_a_quiet_claude(tmp_path: Path) -> dict[str, str]:
    """The environment with a `claude` first on PATH that does nothing and succeeds:
    what resume runs, without the real CLI."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "claude").write_text("#!/bin/sh\nexit 0\n")
    (fake_bin / "claude").chmod(0o755)
    return {**os.environ, "PATH": f"{fake_bin}{os.pathsep}{os.environ['PATH']}"}


def _run_sessdex(
    args: list[str], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_resume_runs_the_cli_in_the_folder_and_refuses_a_branch_switch(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "project"
    _git_repo(folder, "feature/x")
    home = tmp_path / "home"
    session_id = "77777777-0000-4000-8000-000000000008"
    write_claude_session(
        home, session_id, str(folder), branch="feature/x", model="claude-opus-4-1"
    )
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    log = tmp_path / "argv"
    (fake_bin / "claude").write_text(
        f'#!/bin/sh\npwd > "{log}"\nprintf "%s\\n" "$@" >> "{log}"\n'
    )
    (fake_bin / "claude").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}"}
    result = _run_sessdex(["resume", "7777", "--home", str(home)], env, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = log.read_text().splitlines()
    assert lines[0] == str(folder)
    assert lines[1:3] == ["--resume", session_id]
    assert "--model" in lines and lines[lines.index("--model") + 1] == "claude-opus-4-1"

    subprocess.run(
        ["git", "-C", str(folder), "checkout", "-q", "-b", "main"], check=True
    )
    log.unlink()
    result = _run_sessdex(["resume", "7777", "--home", str(home)], env, tmp_path)
    assert result.returncode == 1
    assert (
        "feature/x" in result.stderr
        and "main" in result.stderr
        and "--yes" in result.stderr
    )
    assert not log.exists()
    assert (
        subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--abbrev-ref", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        == "main"
    )
    result = _run_sessdex(
        ["resume", "7777", "--yes", "--home", str(home)], env, tmp_path
    )
    assert result.returncode == 0 and log.exists()


def test_resume_says_a_detached_head_is_no_branch(tmp_path: Path) -> None:
    """A folder checked out at a commit (a bisect, a CI checkout) was said to be "on
    'HEAD'", a branch of that name; a session begun so, that it "was on branch 'HEAD'"."""
    folder = tmp_path / "project"
    _git_repo(folder, "main")
    subprocess.run(["git", "-C", str(folder), "checkout", "-q", "--detach"], check=True)
    home = tmp_path / "home"
    write_claude_session(home, "7d7d7d7d-0000-4000-8000-000000000008", str(folder))
    env = _with_a_quiet_claude(tmp_path)
    for args in (["--print"], []):
        result = _run_sessdex(["resume", "7d7d", *args, "--home", str(home)], env, tmp_path)  # fmt: skip
        assert "branch 'main'" in result.stderr, result.stderr
        assert "a detached HEAD (no branch)" in result.stderr
        assert "'HEAD'" not in result.stderr
    assert result.returncode == 1 and "--yes" in result.stderr
    subprocess.run(["git", "-C", str(folder), "checkout", "-q", "main"], check=True)
    write_claude_session(home, "7d7d7d7d-0000-4000-8000-000000000008", str(folder), branch="HEAD")  # fmt: skip
    result = _run_sessdex(["resume", "7d7d", "--print", "--home", str(home)], env, tmp_path)  # fmt: skip
    assert "was on a detached HEAD (no branch)" in result.stderr, result.stderr
    assert "branch 'HEAD'" not in result.stderr and "branch 'main'" in result.stderr


def test_resume_says_when_git_would_not_tell_the_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository another user owns (a copied home, a container's mount): git refuses
    it as "dubious ownership", and the branch check was skipped without a word."""
    folder = tmp_path / "project"
    _git_repo(folder, "main")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        for path in (folder, *folder.rglob("*")):  # as root: really another user's
            os.chown(path, 65534, 65534, follow_symlinks=False)
    else:  # what git 2.39 says of one, from a stand-in on PATH
        fake_bin = tmp_path / "bin"
        fake_bin.mkdir()
        (fake_bin / "git").write_text(
            '#!/bin/sh\necho "fatal: detected dubious ownership in repository at '
            f"'{folder}'\" >&2\nexit 128\n"
        )
        (fake_bin / "git").chmod(0o755)
        monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path))  # no safe.directory of the user's
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    home = tmp_path / "home"
    write_claude_session(home, "7e7e7e7e-0000-4000-8000-000000000008", str(folder), branch="feature/x")  # fmt: skip
    code, out, err = invoke("resume", "7e7e", "--json", "--home", str(home))
    assert code == 0
    plan = json.loads(out)
    assert plan["branch_mismatch"] is None
    (said,) = [w for w in plan["warnings"] if "branch" in w]
    assert "could not check" in said and "'feature/x'" in said
    assert "dubious ownership" in said and err == ""


def test_resume_from_another_home_says_the_cli_reads_your_own(tmp_path: Path) -> None:
    """`--home COPY` ran the CLI without a word, and the CLI looked the session up in the
    user's own home, where a copied home's session is not."""
    copy = tmp_path / "copy"
    write_claude_session(copy, "7c7c7c7c-0000-4000-8000-000000000008", str(tmp_path))
    env = _with_a_quiet_claude(tmp_path)
    env["HOME"] = str(tmp_path / "mine")
    result = _run_sessdex(["resume", "7c7c", "--home", str(copy)], env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"read from {copy}, not your own home" in result.stderr
    result = _run_sessdex(["resume", "7c7c", "--json", "--home", str(copy)], env, tmp_path)  # fmt: skip
    assert any("not your own home" in w for w in json.loads(result.stdout)["warnings"])
    env["HOME"] = str(copy)  # --home naming your own home: nothing to say
    result = _run_sessdex(["resume", "7c7c", "--json", "--home", str(copy)], env, tmp_path)  # fmt: skip
    assert not any("own home" in w for w in json.loads(result.stdout)["warnings"])


def test_on_windows_resume_waits_for_the_cli_and_exits_with_its_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows has no exec: os.execvp there starts the CLI and exits 0 at once, and the
    shell prompts again while the CLI reads the same console. sessdex waits for it, in
    the session's folder, and exits with its status."""
    folder = tmp_path / "project"
    folder.mkdir()
    home = tmp_path / "home"
    session_id = "77777777-0000-4000-8000-000000000009"
    write_claude_session(home, session_id, str(folder))
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    log = tmp_path / "argv"
    shim = fake_bin / "claude.CMD"  # as npm installs it there
    shim.write_text(
        f'#!/bin/sh\nsleep 0.2\npwd > "{log}"\nprintf "%s\\n" "$@" >> "{log}"\nexit 3\n'
    )
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")
    monkeypatch.setenv("PATHEXT", ".CMD")
    monkeypatch.chdir(tmp_path)  # resume moves into the session's folder

    def windows_execvp(program: str, argv: list[str]) -> None:
        subprocess.Popen([program, *argv[1:]])  # what the C runtime does there
        raise SystemExit(0)

    pretend_windows(monkeypatch)
    monkeypatch.setattr(os, "execvp", windows_execvp)
    result = CliRunner().invoke(main, ["resume", "7777", "--home", str(home)])
    assert result.exit_code == 3, result.output
    lines = log.read_text().splitlines()
    assert lines[0] == str(folder) and lines[1:3] == ["--resume", session_id]


def test_on_windows_resume_refuses_a_recorded_word_cmd_exe_would_act_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """npm installs the CLIs on Windows as `.cmd` files, which cmd.exe runs, acting on a
    `&` in any argument however it is quoted: a model name from the session's files
    holding one would start another command. sessdex refuses and runs nothing."""
    folder = tmp_path / "project"
    folder.mkdir()
    home = tmp_path / "home"
    session_id = "77777777-0000-4000-8000-00000000000a"
    write_claude_session(home, session_id, str(folder), model="opus&calc.exe")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    ran = tmp_path / "ran"
    shim = fake_bin / "claude.CMD"
    shim.write_text(f'#!/bin/sh\ntouch "{ran}"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")
    monkeypatch.setenv("PATHEXT", ".CMD")
    monkeypatch.chdir(tmp_path)
    pretend_windows(monkeypatch)
    monkeypatch.setattr(os, "execvp", lambda *args: pytest.fail("exec on Windows"))
    result = CliRunner().invoke(main, ["resume", "7777", "--home", str(home)])
    assert result.exit_code == 1, result.output
    assert "cmd.exe" in result.output and "opus&calc.exe" in result.output
    assert not ran.exists()


def test_resume_says_why_it_has_no_command_for_a_session(home: Home) -> None:
    """A sub-agent's session names the lead to resume instead; a session whose folder was
    never recorded says so (its app could resume it, sessdex will not guess where); an app
    without a resume command says to open it in the app."""
    where = ("--home", str(home.path))
    code, _, err = invoke("resume", "cursor:9d8e7f6a", "--print", *where)
    assert code == 1
    assert "is a sub-agent's session" in err
    assert "sessdex resume cursor:4c8f2a1e-6b3d-4e5f-9a0b-1c2d3e4f5a6b" in err
    code, _, err = invoke("resume", "cursor:7e6d5c4b", "--print", *where)
    assert (
        code == 1 and "Cursor (CLI and IDE) recorded no folder for this session" in err
    )
    assert "finds a session only from the folder the session ran in" in err
    code, _, err = invoke("resume", "roo:9e8d7c6b", "--print", *where)
    assert code == 1 and "has no command to resume a session" in err


def test_resume_json_describes_a_session_it_has_no_command_for(
    home: Home, tmp_path: Path
) -> None:
    """A sub-agent, an app without a resume command, a folder holding a NUL: `--json`
    printed nothing but an error line, where a script asked for the plan and its
    `refusals`; it gets the object, with 0, as for a folder that is gone."""
    where = ("--home", str(home.path))
    for prefix, why in (
        ("cursor:9d8e7f6a", "is a sub-agent's session"),
        ("roo:9e8d7c6b", "has no command to resume a session"),
    ):
        code, out, err = invoke("resume", prefix, "--json", *where)
        assert code == 0, err
        plan = json.loads(out)
        app, _, start = prefix.partition(":")
        assert plan["app"] == app and plan["id"].startswith(start)
        assert plan["argv"] is None and plan["command"] is None
        assert len(plan["refusals"]) == 1 and why in plan["refusals"][0]
        assert why not in err  # in the object: a script's log gets it once
    nul_home = tmp_path / "nul-home"
    path = write_claude_session(nul_home, "45454545-0000-4000-8000-000000000004", str(tmp_path))  # fmt: skip
    path.write_text(path.read_text().replace(str(tmp_path), str(tmp_path) + "\\u0000x"))
    code, out, _ = invoke("resume", "4545", "--json", "--home", str(nul_home))
    assert code == 0 and "NUL" in json.loads(out)["refusals"][0]
    code, out, _ = invoke("resume", "4545", "--print", "--home", str(nul_home))
    assert code == 1 and out == ""  # --print has no command to print


def test_a_sub_agent_of_a_sub_agent_names_the_session_at_the_top() -> None:
    """A sub-agent a sub-agent started named that one, which resume refuses too: the
    user had to go up one refusal at a time."""
    home = str(Path(__file__).parent / "data" / "claude" / "home")
    code, _, err = invoke("resume", "claude:a2d2d2d2", "--print", "--home", home)
    assert code == 1 and "is a sub-agent's session" in err
    assert "resume the session it ran under" in err
    told = shlex.split(
        err.rpartition("sessdex resume ")[2].rstrip("'.\n")
    )  # with --home
    assert told == [
        "claude:33333333-3333-4333-8333-333333333333",
        "--print",  # kept, as asked: pasted, it prints
        "--home",
        home,
    ]
    code, out, _ = invoke("resume", *told)
    assert code == 1 and "claude --resume 33333333-" in out


def test_a_sub_agent_known_by_its_folder_names_its_lead() -> None:
    """Qwen Code tells a sub-agent's transcript by its `subagents/` folder, not by a
    parent id: resume said Qwen has no resume command at all."""
    home = str(Path(__file__).parent / "data" / "qwen" / "subagents" / "home")
    code, _, err = invoke("resume", "general-", "--print", "--home", home)
    assert code == 1 and "is a sub-agent's session" in err
    assert "sessdex resume qwen:7b3c1f0e-5a2d-4c8b-9e6f-1a2b3c4d5e6f" in err
    assert "no command to resume" not in err


def test_resume_says_how_to_install_a_missing_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, "88888888-0000-4000-8000-000000000009", str(tmp_path))
    env = {**os.environ, "PATH": str(tmp_path / "empty-bin")}
    result = _run_sessdex(["resume", "8888", "--home", str(home)], env, tmp_path)
    assert result.returncode == 1
    assert "'claude' is not on PATH" in result.stderr and "npm install" in result.stderr


def test_resume_says_what_stands_in_the_way_when_the_folder_or_cli_fails(
    tmp_path: Path,
) -> None:
    """A file where the folder was, a folder the user may not enter, a CLI on PATH that
    is no program (a broken install): one line each, never a traceback."""
    home = tmp_path / "home"
    (tmp_path / "was-a-folder").write_text("now a file")
    write_claude_session(home, "8a8a8a8a-0000-4000-8000-000000000009", str(tmp_path / "was-a-folder"))  # fmt: skip
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "claude").write_text("not a program\n")
    (fake_bin / "claude").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}"}
    result = _run_sessdex(["resume", "8a8a", "--home", str(home)], env, tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "was-a-folder is a file now" in result.stderr

    write_claude_session(home, "8b8b8b8b-0000-4000-8000-000000000009", str(tmp_path))
    result = _run_sessdex(["resume", "8b8b", "--home", str(home)], env, tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"could not run {fake_bin / 'claude'}: Exec format error" in result.stderr
    assert "npm install" in result.stderr


def test_resume_refuses_a_folder_it_may_not_enter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder another user closed (`chmod 700`): `--print` prints, 1, resume refuses
    instead of a traceback from chdir (root may enter any folder, so it is faked)."""
    home = tmp_path / "home"
    folder = tmp_path / "closed"
    folder.mkdir()
    write_claude_session(home, "8c8c8c8c-0000-4000-8000-000000000009", str(folder))
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode, **kw: p != str(folder) and real_access(p, mode)
    )
    code, out, err = invoke("resume", "8c8c", "--print", "--home", str(home))
    assert code == 1 and "closed cannot be entered (no permission)" in err
    assert shlex.split(out)[:2] == ["cd", str(folder)]
    code, _, err = invoke("resume", "8c8c", "--home", str(home))
    assert code == 1 and "closed cannot be entered (no permission)" in err

    # removed between the checks and the chdir: said, and nothing runs elsewhere
    monkeypatch.setattr(os, "access", real_access)
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "claude").write_text("#!/bin/sh\n")
    (fake_bin / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")

    def gone(path: str) -> None:
        raise FileNotFoundError(2, "No such file or directory", path)

    def ran(*args: object) -> None:
        raise AssertionError(f"ran {args}")

    monkeypatch.setattr(os, "chdir", gone)
    monkeypatch.setattr(os, "execvp", ran)
    code, _, err = invoke("resume", "8c8c", "--home", str(home))
    assert code == 1 and "cannot enter the session's folder" in err


def test_resume_refuses_while_a_running_cli_has_the_session_open(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    session_id = "99999999-0000-4000-8000-00000000000a"
    write_claude_session(home, session_id, str(tmp_path))
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "claude").write_text("#!/bin/sh\nexec sleep 30\n")
    (fake_bin / "claude").chmod(0o755)
    live = subprocess.Popen(
        [
            "bash",
            "-c",
            'exec -a claude "$0" -c "import time; time.sleep(30)" --resume "$1"',
            sys.executable,
            session_id,
        ]
    )
    try:
        env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}"}
        result = _run_sessdex(["resume", "9999", "--home", str(home)], env, tmp_path)
        assert result.returncode == 1
        assert f"pid {live.pid}" in result.stderr and "--force" in result.stderr
    finally:
        live.kill()
        live.wait()


def test_withheld_permission_mode_is_said_and_kept_on_request(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(
        home,
        "aaaaaaaa-0000-4000-8000-00000000000b",
        str(tmp_path),
        permission_mode="bypassPermissions",
    )
    _, out, err = invoke("resume", "aaaa", "--print", "--home", str(home))
    assert "bypassPermissions" not in out and "dangerously" not in out
    assert "bypassPermissions" in err or "permission" in err
    _, out, _ = invoke(
        "resume", "aaaa", "--print", "--keep-permissions", "--home", str(home)
    )
    assert "bypassPermissions" in out or "--dangerously-skip-permissions" in out


def test_listed_ids_are_prefixes_resume_takes(tmp_path: Path) -> None:
    """Codex's time-ordered ids share their first eight characters when sessions start
    within a minute: the listing prints as much of each id as tells it apart from every
    other session's (sub-agents too), however few of them it lists."""
    home = str(Path(__file__).parent / "data" / "codex" / "home")
    every = [s["id"] for s in json.loads(invoke("list", "--all", "--json", "--home", home)[1])]  # fmt: skip
    for args in (["--all"], [], ["--limit", "1"]):
        _, out, _ = invoke("list", *args, "--home", home)
        shown = [line.split()[1] for line in out.splitlines()]
        assert shown and len({len(p) for p in shown}) == 1
        for prefix in shown:
            assert sum(i.startswith(prefix) for i in every) == 1, (args, prefix)
    assert len({i[:8] for i in every}) < len(every)  # the case this guards
    _, out, _ = invoke("list", "--home", DEMO)
    assert [line.split()[1] for line in out.splitlines()] == [CODEX[:8], CLAUDE_A[:8], CLAUDE_B[:8]]  # fmt: skip


def test_each_withheld_flag_is_said_once(tmp_path: Path) -> None:
    """A real Codex session run with `-a never -s danger-full-access`: both left out of
    the command, each named in one note on stderr, not two."""
    home = Path(__file__).parent / "data" / "codex" / "home"
    code, out, err = invoke("resume", "01a22b81-6e0b", "--print", "--home", str(home))
    assert code == 1 and "never" not in out and "danger" not in out
    assert err.count("-a never") == 1 and err.count("-s danger-full-access") == 1, err


def test_titles_with_escape_sequences_print_harmless(tmp_path: Path) -> None:
    home = tmp_path / "home"
    evil = "\x1b]0;owned\x07\x1b[31mred\x1b[0m \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \u202eexe.txt\x9b31m"
    write_claude_session(
        home, "bbbbbbbb-0000-4000-8000-00000000000c", str(tmp_path), title=evil
    )
    _, out, _ = invoke("list", "--home", str(home))
    assert (
        "\x1b" not in out
        and "\x07" not in out
        and "\u202e" not in out
        and "\x9b" not in out
    )
    assert "red" in out and "link" in out
    _, out, _ = invoke("list", "--json", "--home", str(home))
    assert json.loads(out)[0]["title"] == evil  # JSON keeps the text exactly, escaped
    # ...escaped: what a terminal acts on (ESC, the one-character CSI U+009B, bidi
    # overrides) is written as \u escapes, so JSON printed as it is stays inert
    for command in (["list", "--json"], ["list", "--nl"], ["find", "red", "--json"]):
        _, out, _ = invoke(*command, "--home", str(home))
        assert not re.search("[\x1b\x9b\u202e]", out), command
        assert "\\u009b" in out and "\\u202e" in out
    write_claude_session(
        home, "cccccccc-0000-4000-8000-00000000000c", str(tmp_path), prompt=evil
    )
    for command in (
        ["show", "cccccccc", "--json"],
        ["export", "cccccccc", "-f", "json"],
    ):
        _, out, _ = invoke(*command, "--home", str(home))
        assert not re.search("[\x1b\x9b\u202e]", out), command
        assert json.loads(out)[0]["text"] == evil


def test_doctor_json_reports_each_app() -> None:
    code, out, _ = invoke("doctor", "--json", "--home", DEMO)
    assert code == 0
    reports = {r["app"]: r for r in json.loads(out)}
    assert reports["claude"]["sessions"] == 2
    assert reports["codex"]["sessions"] == 1
    assert reports["claude"]["root"].endswith("/.claude")
    assert reports["claude"]["versions"] == {"2.1.197": 2}
    for report in reports.values():
        assert set(report) >= {
            "app",
            "root",
            "override",
            "sessions",
            "versions",
            "skipped_lines",
            "unknown_record_types",
        }
        assert report["skipped_lines"] == {} and report["unknown_record_types"] == {}


def test_doctor_json_root_is_null_where_an_app_could_not_say(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A source whose `locate` fails: doctor says so, and --json gives no "?" for a path."""
    from sessdex.sources import claude

    def broken(home: Home) -> None:
        raise OSError("permission denied")

    monkeypatch.setattr(claude, "locate", broken)
    code, out, _ = invoke("doctor", "--json", "--app", "claude", "--home", DEMO)
    assert code == 0
    [report] = json.loads(out)
    assert report["root"] is None and report["exists"] is False
    assert any("could not locate" in problem for problem in report["problems"])
    code, out, _ = invoke("doctor", "--app", "claude", "--home", DEMO)
    assert "looked in   ?" in out


def test_doctor_counts_skipped_lines_without_showing_content(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_claude_session(
        home, "cccccccc-0000-4000-8000-00000000000d", str(tmp_path)
    )
    with path.open("a") as out:  # a cut line, then the app's next: damage
        out.write('{"type":"custom-title","customTitle":"secret-content-here\n')
    _code, out, _ = invoke("doctor", "--json", "--app", "claude", "--home", str(home))
    report = json.loads(out)[0]
    assert sum(report["skipped_lines"].values()) == 1
    assert "secret-content-here" not in out
    _, _, err = invoke("list", "--verbose", "--home", str(home))
    assert "secret-content-here" not in err


def test_doctor_says_how_to_see_where_the_skipped_lines_are(tmp_path: Path) -> None:
    """`list` points to doctor for what it skipped; doctor gave a count ("skipped 1
    truncated") and no word of the file, nor of how to have it named."""
    home = tmp_path / "home"
    path = write_claude_session(
        home, "cccccccc-0000-4000-8000-00000000000d", str(tmp_path)
    )
    with path.open("a") as out:  # a cut line, then the app's next: damage
        out.write('{"type":"custom-title","customTitle":"secret-content-here\n')
    _, out, _ = invoke("doctor", "--app", "claude", "--home", str(home))
    [skipped] = [line for line in out.splitlines() if "skipped" in line]
    assert skipped.endswith("1 not JSON (-v names the files and lines)")
    _, out, _ = invoke("doctor", "-v", "--app", "claude", "--home", str(home))
    assert f"{path}:" in out and "-v names" not in out
    assert "secret-content-here" not in out


def test_verbose_names_the_unreadable_line_the_warning_spoke_of_on_the_next_run(
    tmp_path: Path,
) -> None:
    """`list` warns once, when it reads the file, and points at --verbose; the user runs
    `list --verbose` next, the index is warm, nothing is read again, and it named nothing."""
    home = tmp_path / "home"
    path = write_claude_session(
        home, "dddddddd-0000-4000-8000-00000000000e", str(tmp_path)
    )
    with path.open("a") as out:  # a cut line, then the app's next: damage
        out.write('{"type":"custom-title","customTitle":"secret-content-here\n')
    _, _, err = invoke("list", "--home", str(home))
    assert "skipped 1 unreadable line in 1 claude file; see --verbose" in err
    for command in (["list"], ["find", "hello"]):
        code, out, err = invoke(*command, "--verbose", "--home", str(home))
        assert code == 0 and "dddddddd" in out
        assert f"  claude: {path}:3: " in err
        assert "secret-content-here" not in err  # the line's place, never its content


def test_show_verbose_names_the_unreadable_lines_under_its_warning() -> None:
    """`show -v` lists each unreadable line right under the warning that counts them; it
    told the user to "see --verbose", the option they had given, and the lines came after
    a note on other things."""
    home = str(app_home("claude").parent / "malformed" / "home")
    for command in (("show", "44444444", "--json"), ("tree", "44444444")):
        code, _, err = invoke(*command, "-v", "--home", home)
        lines = err.splitlines()
        assert code == 0 and lines[0] == "warning: skipped 2 unreadable lines:", command
        assert [line.rsplit(": ", 1)[1] for line in lines[1:3]] == [
            "not JSON",
            "not an object",
        ]
        # its unfinished last line is no unreadable one: said apart, once
        assert lines[3].startswith("note: ") and lines[3].endswith(
            "its last line is unfinished (203 bytes): the app may still be writing "
            "it, or it was cut off"
        )
        assert "see --verbose" not in err
        code, _, err = invoke(*command, "--home", home)
        assert (
            "skipped 2 unreadable lines; see --verbose" in err
        )  # the hint, without -v
        assert "unfinished" not in err


def test_an_id_prefix_matching_many_sessions_says_how_many_it_does_not_list(
    tmp_path: Path,
) -> None:
    """'0' matches 12 sessions: ten are listed, and the rest are said, not dropped."""
    home = tmp_path / "home"
    for n in range(12):
        write_claude_session(home, f"0{n:07d}-aaaa-4aaa-8aaa-000000000000", "/w/a")
    code, out, err = invoke("show", "0", "--home", str(home))
    assert code == 1 and out == ""
    assert "'0' matches 12 sessions (12 claude); type more of the id." in err
    assert len(re.findall(r"^  claude ", err, re.MULTILINE)) == 10
    assert err.endswith("  … and 2 more\n")


def test_an_id_prefix_matching_more_than_twenty_sessions_counts_them_all(
    tmp_path: Path,
) -> None:
    """25 sessions match: 25 are counted (not the 20 looked at first), and an app's
    session older than all of them is found by `app:prefix`."""
    home = tmp_path / "home"
    shutil.copytree(app_home("pi"), home)  # 0190a1b2-…, 0190a1c7-…: November 21st
    for n in range(25):
        write_claude_session(
            home, f"0190a1b2-{n:04d}-4000-8000-0000000000aa", "/w/a",
            when="2026-12-01T10:00:00.000Z",
        )  # fmt: skip
    code, _, err = invoke("show", "0190a1", "--home", str(home))
    assert code == 1
    assert "'0190a1' matches 27 sessions (25 claude, 2 pi);" in err
    assert err.endswith("  … and 17 more\n")
    code, out, _ = invoke("resume", "pi:0190a1b2", "--print", "--home", str(home))
    assert code == 1 and "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" in out
    code, _, err = invoke("show", "pi:0190a1", "--home", str(home))
    assert code == 1 and "'0190a1' matches 2 sessions (2 pi);" in err


def test_wide_characters_keep_the_list_aligned_and_within_the_terminal(
    tmp_path: Path,
) -> None:
    """A CJK title and folder take two columns a character: cut and padded by
    characters, they pushed the title column right and ran past the terminal's edge."""
    import unicodedata

    def columns(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    home = tmp_path / "home"
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-00000000000a", "/w/plain",
                         title="plain title", when="2026-11-20T10:00:00.000Z")  # fmt: skip
    write_claude_session(home, "bbbbbbbb-0000-4000-8000-00000000000b", "/w/日本語のプロジェクト",
                         title="日本語のタイトルはとても長いのでここで切られるはずです",
                         when="2026-11-20T11:00:00.000Z")  # fmt: skip
    # no progress bar, however busy the machine: the table alone is looked at
    quiet = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    for width in (100, 60):
        result, seen = on_a_terminal(
            ["list", "--home", str(home)],
            quiet,
            stdout_too=True,
            columns=width,
        )
        assert result.returncode == 0
        lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in seen.splitlines()]
        wide, plain = (line for line in lines if line.strip())
        assert columns(wide) <= width and columns(plain) <= width
        title_at = plain.index("plain title")
        assert columns(wide[: wide.index("日本語のタイトル")]) == title_at
    code, out, _ = invoke("watch", "--once", "--since", "9999d", "--home", str(home))
    sessions = [line for line in out.splitlines() if line.startswith("  ")]
    assert code == 0 and len(sessions) == 2
    folder_at = {columns(line[: re.search(r" (/w/|…)", line).start()]) for line in sessions}  # type: ignore[union-attr]  # fmt: skip
    assert len(folder_at) == 1


def test_emoji_sequences_keep_list_and_watch_aligned(tmp_path: Path) -> None:
    """A joined emoji (👨‍👩‍👧), a keycap (1️⃣) and a skin-toned one (👍🏽) take the two
    columns Rich and today's terminals give them: counted a character at a time (six
    columns for the family, one for the keycap, four for the thumb), they shifted every
    column after them and cut titles short."""
    from rich.cells import cell_len

    home = tmp_path / "home"
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-00000000000a", "/w/plain",
                         title="plain title", when="2026-11-20T10:00:00.000Z")  # fmt: skip
    write_claude_session(home, "bbbbbbbb-0000-4000-8000-00000000000b",
                         "/w/👨‍👩‍👧👨‍👩‍👧1️⃣👍🏽", branch="👍🏽👨‍👩‍👧1️⃣",
                         title="👨‍👩‍👧 family " + "👍🏽 1️⃣ " * 30,
                         when="2026-11-20T11:00:00.000Z")  # fmt: skip
    quiet = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    for width in (120, 70):
        result, seen = on_a_terminal(
            ["list", "--home", str(home)], quiet, stdout_too=True, columns=width
        )
        assert result.returncode == 0
        lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in seen.splitlines()]
        wide, plain = (line for line in lines if line.strip())
        assert width - 3 <= cell_len(wide) <= width and cell_len(plain) <= width
        assert cell_len(wide[: wide.index("👨‍👩‍👧 family")]) == plain.index(
            "plain title"
        )
    code, out, _ = invoke("watch", "--once", "--since", "9999d", "--home", str(home))
    sessions = [line for line in out.splitlines() if line.startswith("  ")]
    assert code == 0 and len(sessions) == 2
    assert len({cell_len(line[: line.index(" /w/")]) for line in sessions}) == 1


def test_a_piped_list_prints_whole_titles_unless_columns_says_otherwise(
    tmp_path: Path,
) -> None:
    """`sessdex list | grep word` must see a long title's last word: piped lines were cut
    at 160 columns. $COLUMNS, when set, still fits them, on the full and the fast path."""
    home = tmp_path / "home"
    title = "Fix the flaky checkout test " + "and more " * 13 + "zebra-at-the-end"
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-00000000000a", "/w/shop",
                         title=title)  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    for attempt in ("index built", "index warm"):
        done = _run_sessdex(["list", "--home", str(home)], env, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip("\n").endswith(title), attempt
        for args in (["list"], ["find", "flaky"]):
            done = _run_sessdex(
                [*args, "--home", str(home)], {**env, "COLUMNS": "80"}, tmp_path
            )
            (line,) = done.stdout.splitlines()
            assert len(line) <= 80 and line.endswith("…") and "zebra" not in line


def test_demo_shows_list_find_and_a_resume_command() -> None:
    code, out, _ = invoke("demo")
    assert code == 0
    assert "$ sessdex list" in out and "$ sessdex find checkout" in out
    assert "Checkout timeout under load" in out
    assert "codex resume 019a7e21-5c3d-7b40-9e8f-2a1b3c4d5e6f" in out


def test_several_app_words_match_any_of_them_as_find_help_says() -> None:
    """Every other word must match; `app:` words (and --app options) were silently OR'd."""
    _, help_text, _ = invoke("find", "--help")
    said = " ".join(help_text.split())
    assert "several app: words (or --app options) take a session of any" in said
    _, out, _ = invoke(
        "find", "checkout", "app:claude", "app:codex", "--json", "--home", DEMO
    )
    assert {s["app"] for s in json.loads(out)} == {"claude", "codex"}
    _, out, _ = invoke(
        "find",
        "checkout",
        "--app",
        "claude",
        "--app",
        "codex",
        "--json",
        "--home",
        DEMO,
    )
    assert {s["app"] for s in json.loads(out)} == {"claude", "codex"}
    _, out, _ = invoke(
        "find", "checkout", "app:claude", "--app", "codex", "--json", "--home", DEMO
    )
    assert json.loads(out) == []  # with both: an app both name


def test_each_command_the_demo_prints_runs_as_printed(tmp_path: Path) -> None:
    """`$ sessdex resume 019a7e21 --print`, copied, failed on the user's own home: each
    line names the demo's --home, and prints what the demo shows under it."""
    _, out, _ = invoke("demo")
    blocks = out.split("\n\n")
    commands = [b for b in blocks if b.startswith("$ ")]
    assert len(commands) == 3
    empty = tmp_path / "empty"
    empty.mkdir()
    for block in commands:
        line, shown = block.split("\n", 1)
        argv = shlex.split(line[2:])
        assert argv[0] == "sessdex"
        # run where the user's own home is empty: the line must not depend on it
        code, printed, _ = invoke(*argv[1:], runner=CliRunner(env={"HOME": str(empty)}))
        # the demo's folders are not on this machine: resume's line is printed with 1
        assert code == ("resume" in argv) and printed.strip() == shown.strip(), line


def test_help_version_and_usage_errors() -> None:
    code, out, _ = invoke("-h")
    assert code == 0 and "list" in out and "resume" in out
    code, out, _ = invoke("--version")
    assert code == 0 and "sessdex" in out
    code, _, _ = invoke("list", "--limit", "zero")
    assert code == 2


def test_an_empty_machine_points_at_the_demo(tmp_path: Path) -> None:
    code, out, err = invoke("list", "--home", str(tmp_path))
    assert code == 0 and out == ""
    assert "sessdex demo" in err
    code, out, _ = invoke("list", "--json", "--home", str(tmp_path))
    assert code == 0 and json.loads(out) == []


def test_an_empty_result_says_why_and_what_to_try(tmp_path: Path) -> None:
    """Nothing on stdout (scripts see an empty list), one line on stderr naming the
    filter, query or missing folder that emptied it."""
    cases = [
        (["find", "zzzz"], "No session matches 'zzzz' in its title,"),
        (
            ["find", "zzzz", "--app", "codex", "--since", "1h"],
            "'zzzz' in its title, folder, branch, app or id, with --app codex --since 1h",
        ),
        (["list", "--since", "1h"], "No session matches --since 1h;"),
        (["list", "--app", "gemini"], "No folder of gemini"),
        (  # apps that exclude each other: no app read, none missing
            ["find", "app:codex", "checkout", "--app", "claude"],
            "No session matches 'app:codex checkout' in its title, folder, branch, app "
            "or id, with --app claude.",
        ),
    ]
    for args, said in cases:
        code, out, err = invoke(*args, "--home", DEMO)
        assert code == 0 and out == "", args
        assert said in err and err.count("\n") == 1, (args, err)
        code, out, err = invoke(*args, "--json", "--home", DEMO)
        assert json.loads(out) == [] and err == "", args
    (tmp_path / ".claude" / "projects").mkdir(parents=True)  # a folder, no sessions
    _, out, err = invoke("list", "--home", str(tmp_path))
    assert out == "" and "No sessions found" in err and "sessdex doctor" in err


def test_an_empty_warm_listing_still_says_that_no_agent_is_there(
    tmp_path: Path,
) -> None:
    """A warm full `list` of a home with no agent's folder, where every app is left as
    the index holds it (its source not loaded), still looks for each app's folder to
    say why it is empty: no agent is there yet, as the first listing said."""
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    for path in (home / "notes", home):  # not just written: the index trusts them
        os.utime(path, (1_700_000_000, 1_700_000_000))
    for _ in range(2):  # the index made, then read warm
        code, out, err = invoke("list", "--home", str(home))
        assert code == 0 and out == ""
        assert err.startswith("No agent sessions in the --home folder yet."), err


def test_an_empty_result_never_sends_to_a_list_that_is_empty_too(
    tmp_path: Path,
) -> None:
    """An app asked for with `app:` (or `gemini:ID`) whose folder is missing is named,
    as `--app` names it: the machine has sessions, of other apps. An app whose folder
    holds no session at all is said to have none, not to be filtered out: `sessdex
    list` (or fewer words) would show nothing either."""
    for args in (["find", "app:gemini", "checkout"], ["find", "gemini:3f2b"]):
        code, out, err = invoke(*args, "--home", DEMO)
        assert code == 0 and out == "", args
        assert err.startswith("No folder of gemini in the --home folder."), (args, err)
    (tmp_path / ".claude" / "projects").mkdir(parents=True)  # a folder, no sessions
    for args in (
        ["list", "--app", "claude"],
        ["list", "--since", "1d"],
        ["find", "checkout"],
        ["find", "app:claude", "checkout"],
    ):
        code, out, err = invoke(*args, "--home", str(tmp_path))
        assert code == 0 and out == "", args
        assert err.count("\n") == 1 and "sessdex doctor" in err, (args, err)
        assert "No session matches" not in err and "sessdex list" not in err, err
    _, _, err = invoke("list", "--app", "claude", "--home", str(tmp_path))
    assert err.startswith("No session of claude in its folder yet."), err


def test_long_work_shows_progress_on_the_terminal_never_in_the_output(
    tmp_path: Path,
) -> None:
    """A first index shows its bar, an export to a file or a pipe its spinner, on stderr
    when that is a terminal (SESSDEX_PROGRESS_AFTER=0 stands for work over a second);
    the output stays clean. On a pipe, no progress at all."""
    from .conftest import merged_home

    home = str(merged_home(tmp_path / "home"))
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "0"}
    listed, terminal = on_a_terminal(["list", "--json", "--home", home], env)
    assert listed.returncode == 0
    assert "Indexing sessions" in terminal
    session = next(s for s in json.loads(listed.stdout) if s["app"] == "claude")
    target = tmp_path / "out.md"
    exported, terminal = on_a_terminal(
        ["export", session["id"], "-f", "md", "-o", str(target), "--home", home], env
    )
    assert exported.returncode == 0
    assert f"Exporting {session['id']}" in terminal
    assert "events" in terminal
    assert "Exporting" not in target.read_text()
    shown, terminal = on_a_terminal(
        ["show", session["id"], "--json", "--home", home], env
    )
    assert f"Reading {session['id']}" in terminal
    assert json.loads(shown.stdout)  # the JSON on stdout, untouched
    piped = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessdex",
            "show",
            session["id"],
            "--json",
            "--home",
            home,
        ],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert piped.stderr == b""
    assert json.loads(piped.stdout) == json.loads(shown.stdout)


def test_a_reader_failing_mid_transcript_keeps_what_it_read_and_says_it_is_a_bug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reader that meets a shape it cannot handle must not cost the user the events
    before it: show prints them, then a warning that names the failure as a sessdex bug;
    SESSDEX_DEBUG=1 lets it raise, for the trace."""
    from sessdex.sources import claude

    real_read = claude.read

    def breaks_after_two(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        for seq, event in enumerate(real_read(*args, **kwargs)):  # type: ignore[arg-type]
            if seq == 2:
                raise TypeError("unhashable type: 'dict'")
            yield event

    monkeypatch.setattr(claude, "read", breaks_after_two)
    code, out, err = invoke("show", CLAUDE_A, "--json", "--home", DEMO)
    assert code == 0
    assert [event["seq"] for event in json.loads(out)] == [0, 1]
    assert "stopped reading" in err and "TypeError: unhashable type: 'dict'" in err
    assert "a sessdex bug" in err
    monkeypatch.setenv("SESSDEX_DEBUG", "1")
    with pytest.raises(TypeError):
        invoke("show", CLAUDE_A, "--json", "--home", DEMO)


def test_a_folder_name_that_is_not_utf8_is_passed_over_and_said(
    tmp_path: Path,
) -> None:
    """Linux allows any bytes in a name; one that is not UTF-8 cannot be stored, printed
    or sent as JSON. It must not stop listing, usage or doctor: its files are passed
    over, counted, and named with the odd byte escaped."""
    home = tmp_path / "home"
    kept = write_claude_session(home, "11111111-aaaa-4aaa-8aaa-111111111111", "/w/ok")
    odd = write_claude_session(home, "22222222-bbbb-4bbb-8bbb-222222222222", "/w/x")
    projects = os.fsencode(odd.parent.parent)
    os.rename(odd.parent, os.fsdecode(projects + b"/-w-caf\xe9"))
    (home / ".aider").mkdir()  # an aider user: aider looks into Claude Code's projects
    code, out, err = invoke("list", "--json", "--home", str(home))
    assert code == 0
    assert [row["id"] for row in json.loads(out)] == [kept.stem]
    assert "passed over 1 file name that are not valid UTF-8" in err
    assert "-w-caf\\xe9" in err
    assert "unreadable line" not in err  # a name is no line: said once, by its warning
    # said by the app whose folder it is, not again by those that look into it
    assert err.count("-w-caf\\xe9") == 1 and "warning: claude:" in err
    code, out, err = invoke("list", "--verbose", "--home", str(home))
    assert "-w-caf\\xe9:0: file name not valid UTF-8" in err
    code, out, err = invoke("doctor", "--json", "--home", str(home))
    assert code == 0 and "-w-caf\\\\xe9" in out
    code, out, err = invoke("doctor", "--app", "claude", "--home", str(home))
    assert out.startswith("Claude Code (claude): 1 session\n")
    code, out, err = invoke("usage", "--json", "--home", str(home))
    assert code == 0 and "-w-caf\\xe9" in err


def test_a_project_folder_it_may_not_open_is_said_not_silently_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project folder of another owner's (chmod 000, a `sudo` run's): its sessions went
    missing from `list` and `doctor` without a word."""
    home = tmp_path / "home"
    kept = write_claude_session(home, "56565656-aaaa-4aaa-8aaa-565656565656", "/w/ok")
    shut = write_claude_session(home, "78787878-bbbb-4bbb-8bbb-787878787878", "/w/shut")
    folder = str(shut.parent)
    os.chmod(folder, 0)
    if os.geteuid() == 0:  # root opens it anyway: refuse as the kernel would for others
        scandir = os.scandir

        def refusing(path: object = ".") -> object:
            if os.fspath(path) == folder:  # type: ignore[call-overload]
                raise PermissionError(13, "Permission denied", folder)
            return scandir(path)  # type: ignore[call-overload]

        monkeypatch.setattr(os, "scandir", refusing)
    try:
        code, out, err = invoke("list", "--json", "--home", str(home))
        assert code == 0 and [row["id"] for row in json.loads(out)] == [kept.stem]
        assert f"warning: claude: could not open 1 folder, such as {folder}" in err
        assert "unreadable line" not in err  # a folder is no line
        code, out, _ = invoke("doctor", "--app", "claude", "--home", str(home))
        assert "could not open 1 folder" in out and folder in out
    finally:
        os.chmod(folder, 0o755)


def test_a_transcript_it_may_not_open_is_said_missing_not_an_unreadable_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript of another owner's (0600, a `sudo claude` run's): `list` said
    "skipped 1 unreadable line", as of a session cut short, of a session left out."""
    home = tmp_path / "home"
    kept = write_claude_session(home, "56565656-aaaa-4aaa-8aaa-565656565656", "/w/ok")
    shut = write_claude_session(home, "78787878-bbbb-4bbb-8bbb-787878787878", "/w/shut")
    name = str(shut)
    os.chmod(name, 0)
    if os.geteuid() == 0:  # root opens it anyway: refuse as the kernel would for others
        opener = os.open

        def refusing(path: object, *args: object, **kwargs: object) -> int:
            if os.fspath(path) == name:  # type: ignore[call-overload]
                raise PermissionError(13, "Permission denied", name)
            return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

        monkeypatch.setattr(os, "open", refusing)
    try:
        for _ in range(2):  # the second run warm: it was said only the first time
            code, out, err = invoke("list", "--json", "--home", str(home))
            assert code == 0 and [row["id"] for row in json.loads(out)] == [kept.stem]
            assert f"warning: claude: could not open 1 file, such as {name}" in err
            assert "the sessions kept in them may be missing" in err
            assert "unreadable line" not in err
        code, out, _ = invoke("doctor", "--app", "claude", "-v", "--home", str(home))
        assert (
            "1 permission denied" in out
            and f"could not open {name} (permission denied)" in out
        )
        # its id, given to show, names the file and why (it said only "no session")
        code, _, err = invoke("show", "78787878", "--home", str(home))
        assert code != 0 and f"could not open {name} (permission denied" in err
    finally:
        os.chmod(name, 0o644)


def test_a_session_dated_in_2099_is_said_listed_without_its_time(
    tmp_path: Path,
) -> None:
    """A transcript dated 2099 (a broken clock) is listed without that time: `list`
    said "skipped 1 unreadable line in 1 claude file" of a session it listed whole."""
    home = tmp_path / "home"
    write_claude_session(home, "56565656-aaaa-4aaa-8aaa-565656565656", "/w/ok")
    odd = write_claude_session(
        home,
        "78787878-bbbb-4bbb-8bbb-787878787878",
        "/w/odd",
        when="2099-01-01T10:00:00Z",
    )
    code, out, err = invoke("list", "--json", "--home", str(home))
    assert code == 0 and len(json.loads(out)) == 2
    assert "unreadable" not in err
    assert (
        "warning: 1 session dated in the future or before 1970 is listed without that "
        "time; see --verbose\n" in err
    )
    code, _, err = invoke("list", "--verbose", "--home", str(home))
    assert f"{odd}:0: dated in the future" in err


@pytest.mark.parametrize(
    ("app", "ident", "database"),
    [
        ("goose", "20261201_1", ".local/share/goose/sessions/sessions.db"),
        (
            "antigravity",
            "7d2e9f10-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
            ".gemini/antigravity-cli/conversations/"
            "7d2e9f10-4a5b-4c6d-8e7f-9a0b1c2d3e4f.db",
        ),
    ],
)
def test_a_database_it_may_not_open_is_said_denied_by_show_as_by_list(
    app: str, ident: str, database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session's database sessdex may not open (another user's, a `sudo` run's), with
    no WAL beside it: `show`, `export` and `tree` said SQLite's "unable to open database
    file" where `list` says "permission denied"."""
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    name = str(home / database)
    code, out, _ = invoke("list", "--json", "--app", app, "--home", str(home))
    assert code == 0 and ident in [row["id"] for row in json.loads(out)]
    # then refused, as the kernel refuses another user (root opens anything)
    opener, connect = os.open, sqlite3.connect

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) == name:  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    def refusing_sqlite(target: str | Path, *args: object, **kwargs: object) -> object:
        if name in unquote(os.fspath(target)):  # SQLite says no more than this
            raise sqlite3.OperationalError("unable to open database file")
        return connect(target, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "open", refusing)
    monkeypatch.setattr(sqlite3, "connect", refusing_sqlite)
    for command in ("show", "export", "tree"):
        _, _, err = invoke(command, f"{app}:{ident}", "--home", str(home))
        assert "unable to open" not in err, (command, err)
        said = [line for line in err.splitlines() if name in line]
        assert said, (command, err)
        for line in said:
            assert "permission denied" in line and line.count(name) == 1, line


def test_a_warm_verbose_list_says_a_session_dated_before_1970_was_kept(
    tmp_path: Path,
) -> None:
    """`list --verbose` on a warm run (the file unchanged, not read again) headed a
    session dated 1969, which it lists, "skipped when these files were read"."""
    home = tmp_path / "home"
    write_claude_session(home, "56565656-aaaa-4aaa-8aaa-565656565656", "/w/ok")
    odd = write_claude_session(
        home,
        "78787878-bbbb-4bbb-8bbb-787878787878",
        "/w/odd",
        when="1969-07-20T20:17:00Z",
    )
    invoke("list", "--home", str(home))  # reads it, and says so
    code, out, err = invoke("list", "--json", "--verbose", "--home", str(home))
    assert code == 0 and len(json.loads(out)) == 2  # listed, not skipped
    assert "skipped" not in err
    assert (
        "listed without an odd time when these files were read (unchanged since):\n"
        f"  claude: {odd}:0: dated before 1970\n"
    ) in err


def test_a_file_usage_may_not_open_is_named_once_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`usage` over a transcript it may not open said "could not count <path>:
    PermissionError: [Errno 13] Permission denied: '<path>'", the path twice."""
    home = tmp_path / "home"
    write_claude_session(home, "56565656-aaaa-4aaa-8aaa-565656565656", "/w/ok")
    shut = write_claude_session(home, "78787878-bbbb-4bbb-8bbb-787878787878", "/w/shut")
    name = str(shut)
    opener = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) == name:  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)  # as the kernel refuses another user
    code, _, err = invoke("usage", "--home", str(home))
    assert code == 0
    assert f"warning: claude: could not open {name} (permission denied)\n" in err
    assert err.count(name) == 1 and "Errno" not in err


def test_a_codex_folder_it_may_not_open_costs_only_its_own_rollouts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex's state db names rollouts in a folder sessdex may not open: one refused
    stat lost every thread of the db ("could not read state_5.sqlite"), and with it the
    titles and sub-agent links of all of Codex's sessions."""
    home = tmp_path / "home"
    shutil.copytree(app_home("codex"), home)
    shut = str(home / ".codex" / "sessions" / "2026")
    os.chmod(shut, 0)
    if os.geteuid() == 0:  # root opens it anyway: refuse as the kernel would for others
        scandir, stat = os.scandir, os.stat

        def refused(path: object) -> bool:
            name = os.fsdecode(path) if isinstance(path, str | bytes | Path) else ""
            return name == shut or name.startswith(shut + os.sep)

        def refusing_scandir(path: object = ".") -> object:
            if refused(path):
                raise PermissionError(13, "Permission denied", path)
            return scandir(path)  # type: ignore[call-overload]

        def refusing_stat(path: object, *args: object, **kwargs: object) -> object:
            if refused(path) and os.fspath(path) != shut:  # inside it, not itself
                raise PermissionError(13, "Permission denied", path)
            return stat(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

        monkeypatch.setattr(os, "scandir", refusing_scandir)
        monkeypatch.setattr(os, "stat", refusing_stat)
    try:
        code, out, err = invoke("list", "--json", "--app", "codex", "--home", str(home))
    finally:
        os.chmod(shut, 0o755)
    assert code == 0 and "state_5.sqlite" not in err
    assert f"could not open 1 folder, such as {shut}" in err
    listed = {row["id"]: row["title"] for row in json.loads(out)}
    assert listed["01a22b81-6e0b-7650-ac72-188ccaa967c5"] == "Checkout retry smoke"
    assert "5f0c2a9e-3b1d-4c8e-9f7a-2d4b6e8a0c13" in listed  # a readable one, still


def test_a_project_folder_kept_elsewhere_through_a_link_is_listed(
    tmp_path: Path,
) -> None:
    """`~/.claude/projects/<project>` as a link to another disk: its sessions are the
    user's like any other; they were left out without a word."""
    home = tmp_path / "home"
    kept = write_claude_session(home, "12121212-aaaa-4aaa-8aaa-121212121212", "/w/ok")
    moved = write_claude_session(home, "34343434-bbbb-4bbb-8bbb-343434343434", "/w/far")
    disk = tmp_path / "disk" / moved.parent.name
    disk.parent.mkdir()
    shutil.move(moved.parent, disk)
    moved.parent.symlink_to(disk)
    code, out, _ = invoke("list", "--json", "--home", str(home))
    assert code == 0
    assert sorted(row["id"] for row in json.loads(out)) == sorted(
        [kept.stem, moved.stem]
    )
    code, out, _ = invoke("show", "3434", "--json", "--home", str(home))
    assert code == 0 and "hello there" in out


def test_pipes_and_looping_links_in_an_agent_folder_are_passed_over(
    tmp_path: Path,
) -> None:
    """A named pipe where a transcript would be (opening it waits for a writer, forever)
    and a symlink that loops: list, usage, show and tree finish and find the session."""
    import signal

    home = tmp_path / "home"
    sid = "77777777-aaaa-4aaa-8aaa-777777777777"
    path = write_claude_session(home, sid, "/w/pipes")
    os.mkfifo(path.parent / "88888888-bbbb-4bbb-8bbb-888888888888.jsonl")
    (path.parent / sid / "subagents").mkdir(parents=True)
    os.mkfifo(path.parent / sid / "subagents" / "agent-a1.jsonl")
    os.symlink("loop", path.parent / "loop")

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("sessdex waited on a pipe or a link loop")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        code, out, err = invoke("list", "--json", "--home", str(home))
        assert code == 0 and [row["id"] for row in json.loads(out)] == [sid]
        assert "could not list" not in err
        code, out, _ = invoke("usage", "--json", "--home", str(home))
        assert code == 0 and sum(row["output_tokens"] for row in json.loads(out)) == 5
        code, out, _ = invoke("show", sid, "--json", "--home", str(home))
        assert code == 0 and json.loads(out)[0]["text"] == "hello there"
        code, out, _ = invoke("tree", sid, "--json", "--home", str(home))
        assert code == 0 and json.loads(out)["children"] == []
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_doctor_counts_and_names_what_it_passed_over_and_list_stays_quiet(
    tmp_path: Path,
) -> None:
    """A pipe, a broken link and a looping link among the transcripts: `list` has
    nothing to warn of (an app may keep a socket there on purpose), but `doctor` counts
    them by kind and -v names each, so a user wondering about a missing session can see
    it was a link to a file that is gone."""
    home = tmp_path / "home"
    sid = "77777777-aaaa-4aaa-8aaa-777777777777"
    path = write_claude_session(home, sid, "/w/odd")
    os.mkfifo(path.parent / "88888888-bbbb-4bbb-8bbb-888888888888.jsonl")
    gone = path.parent / "99999999-cccc-4ccc-8ccc-999999999999.jsonl"
    os.symlink(tmp_path / "elsewhere.jsonl", gone)
    os.symlink("loop", path.parent / "loop")
    code, out, err = invoke("list", "--json", "--home", str(home))
    assert code == 0 and [row["id"] for row in json.loads(out)] == [sid]
    assert err == ""
    code, out, _ = invoke("doctor", "--app", "claude", "--home", str(home))
    assert code == 0
    assert "passed over broken link (1), link that loops (1), pipe (1)" in out
    code, out, _ = invoke("doctor", "--app", "claude", "-v", "--home", str(home))
    assert f"{gone}:0: broken link" in out
    code, out, _ = invoke("doctor", "--json", "--app", "claude", "--home", str(home))
    (report,) = json.loads(out)
    assert report["passed_over"] == {"pipe": 1, "broken link": 1, "link that loops": 1}
    assert report["skipped_lines"] == {}


def test_absurd_token_counts_count_as_nothing_and_break_no_sum(tmp_path: Path) -> None:
    """Two responses claiming 2**63 - 1 output tokens (a broken file): usage and tree
    leave those counts out instead of overflowing JSON's 64-bit integers, and the
    sound response still counts."""
    from tests.helpers import claude_line

    home = tmp_path / "home"
    sid = "99999999-aaaa-4aaa-8aaa-999999999999"
    path = write_claude_session(home, sid, "/w/huge")
    broken = [
        claude_line(
            sid,
            "/w/huge",
            type="assistant",
            uuid=f"a{n}",
            parentUuid=f"a{n - 1}",
            timestamp=f"2026-11-20T10:00:0{n}.000Z",
            requestId=f"req_{n}",
            message={
                "id": f"msg_{n}",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "again"}],
                "usage": {"input_tokens": 1, "output_tokens": 2**63 - 1},
            },
        )
        for n in (2, 3)
    ]
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in broken)
    code, out, _ = invoke("usage", "--json", "--home", str(home))
    assert code == 0
    assert sum(row["output_tokens"] for row in json.loads(out)) == 5
    assert sum(row["input_tokens"] for row in json.loads(out)) == 12
    code, out, _ = invoke("tree", sid, "--json", "--home", str(home))
    assert code == 0 and json.loads(out)["usage"]["output_tokens"] == 5
    code, out, _ = invoke("show", sid, "--json", "--home", str(home))
    assert code == 0 and len(json.loads(out)) > 4


def test_hostile_text_in_any_field_prints_harmless_and_pastes_exactly(
    tmp_path: Path,
) -> None:
    """Control and bidi characters in every field a file can set (folder, branch,
    model, version, a record type, a sub-agent's type) never reach the terminal raw, in
    any command's output for people or its warnings; and the resume command, pasted
    into bash, still passes the exact folder (and leaves such a model out)."""
    from tests.helpers import claude_line

    bad = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202e\r"
    sid = "abcdef12-0000-4000-8000-00000000000d"
    cwd = tmp_path / f"dir{bad}x"
    cwd.mkdir()
    home = tmp_path / "home"
    path = write_claude_session(
        home, sid, str(cwd), branch=f"b{bad}", model=f"claude-{bad}", title=f"t{bad}"
    )
    odd = claude_line(sid, str(cwd), type=f"kind{bad}", version=f"9.9{bad}")
    spawn = claude_line(
        sid,
        str(cwd),
        type="assistant",
        uuid="a2",
        parentUuid="a1",
        timestamp="2026-11-20T10:00:06.000Z",
        message={
            "id": "msg_2",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "Task",
                    "input": {"subagent_type": f"agent{bad}", "prompt": f"go{bad}"},
                }
            ],
        },
    )
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in (odd, spawn))
    unprintable = re.compile(
        r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]"
    )
    commands = [
        ["list"],
        ["list", "--all", "--verbose"],
        ["find", "claude"],
        ["show", sid],
        ["show", sid, "--detail", "full"],
        ["tree", sid],
        ["export", sid, "-f", "md"],
        ["resume", sid, "--print"],
        ["doctor", "--verbose"],
        ["usage"],
        ["usage", "session"],
        ["usage", "model"],
        ["watch", "--once", "--since", "10000d"],
    ]
    for command in commands:
        code, out, err = invoke(*command, "--home", str(home))
        assert code == 0, (command, err)
        for stream in (out, err):
            found = unprintable.search(stream)
            assert found is None, (command, stream[max(0, found.start() - 40) :][:80])
    _, out, err = invoke("resume", sid, "--print", "--home", str(home))
    line = out.strip().splitlines()[-1]
    assert line.startswith("cd ") and " && claude " in line
    echo = line.replace("cd ", "printf '%s\\0' ", 1).replace(
        " && claude ", " && printf '%s\\0' ", 1
    )
    words = subprocess.run(["bash", "-c", echo], capture_output=True, check=True)
    pasted = words.stdout.decode().split("\0")
    assert pasted[0] == str(cwd)
    # a "model" of control characters is no model: left out, and said, not passed on
    assert "--model" not in pasted and "left out the recorded model" in err


def test_a_pager_that_cannot_start_leaves_the_transcript_on_the_terminal(
    tmp_path: Path,
) -> None:
    """$PAGER naming a program that is not there: show prints the transcript itself
    (with a warning), instead of a shell's 'not found' and nothing else."""

    home = tmp_path / "home"
    sid = "cccccccc-0000-4000-8000-000000000010"
    write_claude_session(home, sid, "/w/p", prompt="where did the pager go")
    env = {**os.environ, "PAGER": "/nowhere/pager -R"}
    result, shown = on_a_terminal(
        ["show", sid, "--home", str(home)], env, stdout_too=True
    )
    assert result.returncode == 0
    assert "where did the pager go" in shown
    assert "the pager in $PAGER (/nowhere/pager -R) was not found" in shown


def test_on_windows_the_pager_is_named_as_cmd_exe_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows runs the pager through cmd.exe, which takes double quotes and keeps a
    backslash: Git's less under Program Files starts, and so does a $PAGER path (it was
    put in single quotes, "not recognized", and a $PAGER path read as not there)."""
    from sessdex.cli import pager

    less = "C:\\Program Files\\Git\\usr\\bin\\less.exe"
    more = "C:\\Windows\\System32\\more.com"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(pager.shutil, "which", {"less": less, more: more}.get)
    monkeypatch.delenv("PAGER", raising=False)
    monkeypatch.delenv("TERM", raising=False)  # Windows sets none; a dumb one: no pager
    assert pager.pager_command() == f'"{less}"'
    monkeypatch.setenv("PAGER", more)
    assert pager.pager_command() == more


def test_the_pager_gets_the_transcript_as_it_is_read_and_may_quit_early(
    tmp_path: Path,
) -> None:
    """On a terminal, show pipes its lines into $PAGER (a shell command) as they are
    rendered, coloured, with LESS=FRX unless the user set LESS; a pager that quits
    after the first screen ends the read quietly, with status 0, however long the
    transcript."""
    home = tmp_path / "home"
    sid = "eeeeeeee-0000-4000-8000-000000000012"
    prompt = "\n".join(f"pasted line {n}" for n in range(30_000))
    write_claude_session(home, sid, "/w/p", prompt=prompt)
    seen = tmp_path / "seen"
    pager = tmp_path / "pager.py"
    pager.write_text(
        "import os, sys\n"
        "lines = [sys.stdin.readline() for _ in range(5)]\n"
        f"open({str(seen)!r}, 'w').write(os.environ.get('LESS', '') + '\\n' + ''.join(lines))\n"
    )
    env = {**os.environ, "PAGER": f"{sys.executable} {pager}", "TERM": "xterm-256color"}  # fmt: skip
    env.pop("LESS", None)
    env.pop("NO_COLOR", None)
    result, shown = on_a_terminal(
        ["show", sid, "--home", str(home)], env, stdout_too=True
    )
    assert result.returncode == 0 and "Traceback" not in shown, shown
    less, *lines = seen.read_text().splitlines()
    assert less == "FRX"
    assert "\x1b[" in lines[0] and lines[0].endswith("\x1b[0m")  # the title, bold
    assert any("pasted line 0" in line for line in lines)
    # the user's LESS is kept, and $PAGER is run by the shell, as git runs it
    env["LESS"] = "-S"
    env["PAGER"] = f"cat | {shlex.quote(sys.executable)} {shlex.quote(str(pager))}"
    result, _ = on_a_terminal(["show", sid, "--home", str(home)], env, stdout_too=True)  # fmt: skip
    assert result.returncode == 0
    less, *lines = seen.read_text().splitlines()
    assert less == "-S" and any("pasted line 0" in line for line in lines)


def test_a_line_holding_bytes_that_are_not_utf8_is_read_not_dropped(
    tmp_path: Path,
) -> None:
    """A writer that copied raw Latin-1 bytes into a string: the line is read with the
    odd bytes shown as U+FFFD, its tokens counted by show and usage alike."""
    home = tmp_path / "home"
    sid = "dddddddd-0000-4000-8000-000000000011"
    path = write_claude_session(home, sid, "/w/latin", prompt="caf\u00e9")
    data = path.read_bytes()
    assert data.count(b'"text": "hi"') == 1
    path.write_bytes(data.replace(b'"text": "hi"', b'"text": "d\xe9j\xe0 vu"'))
    code, out, _ = invoke("show", sid, "--json", "--home", str(home))
    assert code == 0
    said = [e["text"] for e in json.loads(out) if e["kind"] == "assistant"]
    assert said == ["d\ufffdj\ufffd vu"]
    usage_events = [e["usage"] for e in json.loads(out) if e["kind"] == "usage"]
    assert [u["output_tokens"] for u in usage_events] == [5]
    code, out, _ = invoke("usage", "--json", "--home", str(home))
    assert code == 0 and sum(row["output_tokens"] for row in json.loads(out)) == 5


def test_a_reader_leaving_early_is_no_failure(tmp_path: Path) -> None:
    """`sessdex show ID | head`: when the pipe's reader leaves, sessdex stops quietly
    with status 0, as `list` does, whichever writer (Rich, JSON, Markdown) was busy."""
    prompt = "\n".join(f"line {n} of a long pasted log" for n in range(40_000))
    session = "c0ffee00-0000-4000-8000-000000000001"
    write_claude_session(tmp_path, session, "/w", prompt=prompt)
    for args in (
        ["show", session],
        ["show", session, "--json"],
        ["export", session, "-f", "md"],
        ["list"],
    ):
        with subprocess.Popen(
            [sys.executable, "-m", "sessdex", *args, "--home", str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "COLUMNS": "100"},
        ) as process:
            assert process.stdout is not None and process.stderr is not None
            assert process.stdout.read(100)
            process.stdout.close()
            said = process.stderr.read()
            assert process.wait(timeout=60) == 0 and said == b"", (args, said)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_output_to_a_full_disk_says_so_in_one_line(tmp_path: Path) -> None:
    """stdout on a full disk (/dev/full here): one line that blames the output, exit 1.
    A warm `list`, `--help` and `--version` ended in a traceback, and the other commands
    told the user to move sessdex's own files (SESSDEX_HOME), which were not at fault."""
    session = "c0ffee00-0000-4000-8000-000000000002"
    write_claude_session(tmp_path, session, "/w")
    for folder, _, _ in os.walk(tmp_path):  # changed long ago: the quick path trusts it
        os.utime(folder, (1_767_225_600, 1_767_225_600))
    home = ["--home", str(tmp_path)]
    subprocess.run(
        [sys.executable, "-m", "sessdex", "list", *home],
        capture_output=True,
        check=True,
    )  # a warm index: the quick path answers `list`
    # stdout buffered, as a user's is: a small output fails only when flushed
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    for args in (["list", *home], ["show", session, *home], ["--help"], ["--version"]):
        with open("/dev/full", "wb") as full:
            result = subprocess.run(
                [sys.executable, "-m", "sessdex", *args],
                stdout=full,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                env=buffered,
            )
        said = result.stderr.decode()
        assert result.returncode == 1, (args, said)
        assert said.startswith("Error: no room left to write the output"), (args, said)
        assert said.count("\n") == 1 and "SESSDEX_HOME" not in said, (args, said)


def _with_closed(fd: int, args: list[str], **kwargs: object) -> tuple[int, str, str]:
    """Run sessdex with descriptor `fd` closed, as `<&-`, `>&-` or `2>&-` leave it."""
    result = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(fd),
        **kwargs,  # type: ignore[arg-type]
    )
    return result.returncode, result.stdout, result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors")
def test_a_closed_stdout_stderr_or_stdin_is_no_traceback(tmp_path: Path) -> None:
    """`sessdex list >&-` ended in an AttributeError's traceback (every command did),
    `sessdex list 2>&-` printed nothing and exited 1, and `resume <&-` on another
    branch a traceback too; now a closed stdout is one line, exit 1, a closed stderr
    only drops the warnings, and a closed stdin asks for --yes as a pipe's does."""
    folder = tmp_path / "project"
    _git_repo(folder, "main")
    session = "c0ffee00-0000-4000-8000-000000000003"
    write_claude_session(tmp_path / "home", session, str(folder), branch="feature")
    home = ["--home", str(tmp_path / "home")]
    for args in (["list", *home], ["list", *home], ["show", session, *home]):
        code, _, said = _with_closed(1, args)  # the second list: the warm quick path
        assert code == 1, (args, said)
        assert said.startswith("Error: stdout is closed"), (args, said)
        assert said.count("\n") == 1, (args, said)
    env = {k: v for k, v in os.environ.items() if k != "SESSDEX_NO_QUICK"}
    for quick in ("", "1"):
        code, out, _ = _with_closed(
            2, ["list", *home], env={**env, "SESSDEX_NO_QUICK": quick}
        )
        assert code == 0 and session[:8] in out
    path = _with_a_quiet_claude(tmp_path)
    code, _, said = _with_closed(0, ["resume", session, *home], env=path)
    assert code == 1 and "Traceback" not in said
    assert said.rstrip().endswith("Use --yes to resume anyway."), said


@pytest.mark.skipif(sys.platform != "linux", reason="file names as bytes")
def test_a_home_whose_name_is_not_utf8_is_refused_with_what_to_do(
    tmp_path: Path,
) -> None:
    """`--home` naming a folder in Latin-1 (`h\\xffome`, copied from an old disk) ended
    every command in a UnicodeEncodeError's traceback as the index stored its paths;
    now it is refused as a usage error that says how to read it: through a link."""
    home = tmp_path / os.fsdecode(b"h\xffome")
    session = "c0ffee00-0000-4000-8000-000000000004"
    write_claude_session(home, session, "/w")
    for command in (["list"], ["list", "--json"], ["show", session], ["usage"]):
        code, out, said = invoke(*command, "--home", str(home))
        assert code == 2 and out == "", (command, said)
        assert "h\\xffome' has a name that is not valid UTF-8" in said, said
        assert "ln -s" in said
    link = tmp_path / "home-link"
    link.symlink_to(home)
    code, out, _ = invoke("list", "--home", str(link))
    assert code == 0 and session[:8] in out


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX terminal")
def test_ctrl_c_at_the_branch_question_stops_as_anywhere_else(tmp_path: Path) -> None:
    """Ctrl-C at "Resume on the current branch?" printed click's "Aborted!" and exited
    1 (a shell loop around sessdex went on); now it ends quietly, killed by SIGINT, as
    Ctrl-C does everywhere else in sessdex."""
    import signal

    from tests.helpers import interrupted_on_a_terminal

    folder = tmp_path / "project"
    _git_repo(folder, "main")
    session = "c0ffee00-0000-4000-8000-000000000005"
    write_claude_session(tmp_path / "home", session, str(folder), branch="feature")
    env = _with_a_quiet_claude(tmp_path)
    code, terminal = interrupted_on_a_terminal(
        ["resume", session, "--home", str(tmp_path / "home")],
        env,
        once="Resume on the current branch?",
        at_rest=True,
    )
    assert code == -signal.SIGINT, terminal
    assert "Aborted" not in terminal and "Traceback" not in terminal


@pytest.mark.skipif(sys.platform != "linux", reason="file names as bytes")
def test_an_override_whose_name_is_not_utf8_leaves_its_app_out_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`CODEX_HOME` naming a folder in Latin-1 (`c\xffodex`) ended list, show and usage
    in a UnicodeEncodeError's traceback as the index stored its paths; the other apps'
    sessions are listed, Codex is left out with one line saying why."""
    home = tmp_path / "home"
    session = "c0ffee00-0000-4000-8000-000000000005"
    write_claude_session(home, session, "/w")
    odd = tmp_path / os.fsdecode(b"c\xffodex")
    shutil.copytree(app_home("codex") / ".codex", odd)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(odd))
    note = "codex: its folder " + str(tmp_path) + "/c\\xffodex (from CODEX_HOME)"
    for command in (["list"], ["list", "--json"], ["usage"]):
        code, out, said = invoke(*command)
        assert code == 0, (command, said)
        assert note in said and "not valid UTF-8" in said, (command, said)
        assert said.count("\n") == 1, said
    code, out, _ = invoke("list")
    assert session[:8] in out
    code, out, _ = invoke("show", session)
    assert code == 0 and "/w" in out


def test_doctor_on_an_empty_machine_is_short_and_names_each_apps_variables() -> None:
    """A first run read ~60 lines (each app's folder and the versions it was checked
    with) and never said which variable points sessdex at a folder kept elsewhere."""
    code, out, _ = invoke("doctor")  # the test's own empty home, no override set
    assert code == 0
    apps = len(sources.BUILTIN)
    assert out.startswith(f"Not found ({apps} apps; -v shows each in full)")
    assert "  checked " not in out and len(out.splitlines()) <= apps + 4
    claude = next(line for line in out.splitlines() if line.startswith("  claude "))
    assert "/.claude " in claude and claude.endswith(
        "CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME"
    )
    assert re.search(r"^  codex +\S+/\.codex +CODEX_HOME", out, re.M)
    code, out, _ = invoke("doctor", "-v", "--app", "claude")
    assert out.startswith("Claude Code (claude): not found\n  looked in   ")
    assert "  variables   CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME" in out
    assert "  checked     Claude Code" in out
    _, out, _ = invoke("doctor", "--json", "--app", "codex")
    assert json.loads(out)[0]["env_vars"] == ["CODEX_HOME", "CODEX_SQLITE_HOME"]
    # a folder a variable names, not there: in full, with the variable that named it
    _, out, _ = invoke("doctor", runner=CliRunner(env={"CODEX_HOME": "/nowhere/c"}))
    assert "OpenAI Codex CLI (codex): not found\n" in out
    assert "  looked in   /nowhere/c  (from CODEX_HOME=/nowhere/c)\n" in out


def test_doctor_names_every_folder_an_app_was_found_in(tmp_path: Path) -> None:
    """An app that writes outside its main folder (Kimi Code beside Kimi CLI, Cline's
    standalone data, a pi session folder of the user's choice) says where else it looked."""
    home = tmp_path / "home"
    (home / ".kimi-code" / "sessions").mkdir(parents=True)
    code, out, _ = invoke("doctor", "--app", "kimi", "--home", str(home))
    assert code == 0
    assert f"  and in      {home / '.kimi-code'}\n" in out
    code, out, _ = invoke("doctor", "--app", "kimi", "--json", "--home", str(home))
    assert json.loads(out)[0]["also"] == [str(home / ".kimi-code")]


def test_doctor_deep_reads_every_transcript_for_what_it_cannot_read(
    tmp_path: Path,
) -> None:
    """Listing reads only a transcript's ends; `doctor --deep` reads every one, so a
    record type only its middle holds is counted and named."""
    home = tmp_path / "home"
    path = write_claude_session(home, "11111111-aaaa-4aaa-8aaa-111111111111", "/w/deep")
    lines = path.read_text().splitlines()
    odd = {
        "type": "brand-new-record",
        "sessionId": "11111111-aaaa-4aaa-8aaa-111111111111",
    }
    lines.insert(1, json.dumps(odd))
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = invoke("doctor", "--app", "claude", "--json", "--home", str(home))
    assert code == 0 and json.loads(out)[0]["unknown_record_types"] == {}
    code, out, _ = invoke(
        "doctor", "--app", "claude", "--deep", "--json", "--home", str(home)
    )
    assert code == 0
    assert list(json.loads(out)[0]["unknown_record_types"]) == [
        "brand-new-record@2.1.197"
    ]


def test_doctor_says_where_sessdex_keeps_its_own_files_and_what_they_weigh(
    tmp_path: Path, sessdex_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index of each home, the snapshots of apps' databases in WAL mode (whole
    copies, which can weigh GBs) and what the first read of a big transcript found are
    sessdex's own: doctor names them and their size."""
    from sessdex import passcache

    home = tmp_path / "home"
    monkeypatch.setattr(passcache, "MIN_SIZE", 1)  # every transcript is big
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-00000000000a", "/w/shop")
    assert invoke("show", "aaaaaaaa", "--json", "--home", str(home))[0] == 0
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE session (id TEXT)")
    writer.commit()
    invoke("list", "--home", DEMO)  # another home's index
    from sessdex.index import index_file

    mine = index_file(Home.at(home))  # and this home's, by the build before an upgrade
    shutil.copy(mine, mine.with_name(mine.stem.rsplit("-", 1)[0] + "-00000000.sqlite"))
    code, out, _ = invoke("doctor", "--home", str(home))
    writer.close()
    assert code == 0
    own = out[out.index("sessdex's own files") :].splitlines()
    assert own[0].endswith(str(sessdex_state / "cache"))
    assert re.fullmatch(
        rf"  index +[\d.]+ KB, 1 session  {re.escape(str(sessdex_state / 'cache'))}"
        r"/index-[\w-]+\.sqlite",
        own[1],
    )
    assert re.fullmatch(
        r"  also +[\d.]+ KB  the indexes of 1 other home \(.*\), removed after "
        r"four weeks unused; 1 index other builds of sessdex wrote, removed "
        r"after a week unused",
        own[2],
    )
    assert re.fullmatch(
        r"  snapshots +[\d.]+ KB  copies of 1 database apps keep in WAL mode, .*",
        own[3],
    )
    assert re.fullmatch(
        r"  passes +[\d.]+ K?B  what a first read of 1 big transcript found, .*",
        own[4],
    )


def test_doctor_names_app_versions_newer_than_sessdex_was_checked_with(
    tmp_path: Path,
) -> None:
    """Files written by a Codex newer than any sessdex was checked with are where records
    it does not know yet are likeliest: doctor names those versions (compared as numbers:
    0.106 is older than 0.171, 0.180 newer)."""
    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "codex" / "home", home)
    first = next(
        p
        for p in sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        if '"cli_version":"0.171.0"' in p.read_text()
    )
    text = first.read_text()
    first.write_text(
        text.replace('"cli_version":"0.171.0"', '"cli_version":"0.180.2"', 1)
    )
    code, out, _ = invoke("doctor", "--app", "codex", "--home", str(home))
    assert code == 0
    assert "  newer than checked: 0.180.2 (1): " in out
    code, out, _ = invoke("doctor", "--app", "codex", "--json", "--home", str(home))
    [report] = json.loads(out)
    assert report["newer_than_checked"] == {"0.180.2": 1}
    assert "0.106.0" in report["versions"]  # older, by number if not by text
    assert api.version_key("v0.171.0-alpha.3") == (0, 171, 0)


def test_doctor_lists_versions_by_number_and_apps_with_sessions_first(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    for app in ("qwen", "codex"):  # qwen comes late in the registry, codex second
        shutil.copytree(Path(__file__).parent / "data" / app / "home", home, dirs_exist_ok=True)  # fmt: skip
    rollouts = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    latest = [p for p in rollouts if '"cli_version":"0.171.0"' in p.read_text()]
    for path, version in zip(latest, ("0.50.0", "0.1000.0", "0.180.2", "dev"), strict=False):  # fmt: skip
        text = path.read_text().replace('"cli_version":"0.171.0"', f'"cli_version":"{version}"', 1)  # fmt: skip
        path.write_text(text)
    code, out, _ = invoke("doctor", "--home", str(home))
    assert code == 0
    versions = next(line for line in out.splitlines() if line.startswith("  versions"))
    shown = re.findall(r"(\S+) \(\d+\)", versions)
    assert shown == ["0.50.0", "0.106.0", "0.146.0", "0.180.2", "0.1000.0", "dev"]
    assert "  newer than checked: 0.180.2 (1), 0.1000.0 (1): " in out
    titles = [line for line in out.splitlines() if re.match(r"\S.* \(\w+\): ", line)]
    assert titles[0].startswith("OpenAI Codex CLI (codex): ")
    assert titles[1].startswith("Qwen Code (qwen): ")
    assert all(line.endswith(": not found") for line in titles[2:]), titles
    # the registry's order within a group, and --json in the same order
    _, raw, _ = invoke("doctor", "--json", "--home", str(home))
    reports = json.loads(raw)
    apps = [r["app"] for r in reports]
    registry = [r["app"] for r in reports if r["sessions"] == 0 and not r["exists"]]
    assert apps[:2] == ["codex", "qwen"] and apps[2:] == registry
    assert registry == [a for a in sources.BUILTIN if a not in ("codex", "qwen")]
    assert next(iter(reports[0]["versions"])) == "0.50.0"


def test_export_takes_its_format_from_the_file_name_and_checks_the_folder(
    tmp_path: Path,
) -> None:
    out = tmp_path / "my s.json"
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(out), "--home", DEMO)
    # quoted, as every other message names a path: a space ends no name
    assert code == 0 and f"wrote {str(out)!r}" in err
    assert isinstance(json.loads(out.read_text()), list)  # JSON, as the name says
    code, _, _ = invoke(
        "export", CLAUDE_A[:8], "-o", str(tmp_path / "s.html"), "--home", DEMO
    )
    assert (
        (tmp_path / "s.html").read_text().lstrip().lower().startswith("<!doctype html")
    )
    # a usage error, as an -o that names a folder is (exit 2)
    missing = tmp_path / "nowhere" / "s.md"
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(missing), "--home", DEMO)
    assert code == 2 and "does not exist" in err and "Traceback" not in err
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(tmp_path), "--home", DEMO)
    assert code == 2 and "is a directory" in err
    # a name that asks for no format sessdex writes: Markdown, and said so
    pdf = tmp_path / "report.pdf"
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(pdf), "--home", DEMO)
    assert code == 0 and "writing Markdown; --format picks another" in err
    assert pdf.read_text().startswith("# ")
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(tmp_path / "s.txt"), "--home", DEMO)  # fmt: skip
    assert code == 0 and "note:" not in err
    code, _, err = invoke(
        "export",
        CLAUDE_A[:8],
        "-f",
        "md",
        "-o",
        str(tmp_path / "x.html"),
        "--home",
        DEMO,
    )
    assert code == 2 and "disagree" in err  # the options contradict: a usage error


def test_an_export_onto_a_file_says_it_replaced_what_was_there(
    tmp_path: Path,
) -> None:
    """A file `-o` names that held something is replaced whole: said with what it held
    (a mistyped name loses a file), never of a new or empty one."""
    out = tmp_path / "notes.md"
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(out), "--home", DEMO)
    assert code == 0 and err == f"wrote {str(out)!r}\n"
    out.write_text("my own notes, typed by hand\n")
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(out), "--home", DEMO)
    assert code == 0
    assert err == f"wrote {str(out)!r}, replacing the 28 B file that was there\n"
    assert out.read_text().startswith("# ")
    out.write_text("")
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(out), "--home", DEMO)
    assert code == 0 and err == f"wrote {str(out)!r}\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /proc and /dev/full")
@pytest.mark.parametrize(
    ("target", "fmt", "reason"),
    [
        ("/proc/s.md", "md", "No such file or directory"),  # a folder no file goes in
        ("/dev/full", "md", "No space left on device"),  # the disk fills while writing
        ("/dev/full", "json", "No space left on device"),
    ],
)
def test_export_says_why_its_file_could_not_be_written(
    target: str, fmt: str, reason: str
) -> None:
    code, out, err = invoke(
        "export", CLAUDE_A[:8], "-f", fmt, "-o", target, "--home", DEMO
    )
    assert (code, out) == (1, "")
    assert err == f"Error: could not write {target!r}: {reason}.\n"


def test_export_to_dash_writes_to_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke("export", CLAUDE_A[:8], "-o", "-", "--home", DEMO)
    assert code == 0 and out.startswith("# Retry checkout payments") and not err
    code, out, _ = invoke(
        "export", CLAUDE_A[:8], "-f", "json", "-o", "-", "--home", DEMO
    )
    assert code == 0 and json.loads(out)[0]["kind"] == "user"
    assert list(tmp_path.iterdir()) == []  # no file named "-"


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_an_export_cut_short_leaves_the_earlier_file_whole(
    tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session that cannot be read to its end (a Ctrl-C or a full disk are alike):
    the file -o names keeps the export it held, and no half-written file is left."""
    from sessdex.errors import SessdexError

    def cut(
        events: Iterable[object], *args: object, **kwargs: object
    ) -> Iterator[object]:
        for at, event in enumerate(events):
            if at == 3:
                raise SessdexError("the session's file went away.")
            yield event

    monkeypatch.setattr("sessdex.cli.transcripts.counted_events", cut)
    target = tmp_path / f"s.{fmt}"
    target.write_text("the earlier export")
    target.chmod(0o640)
    code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(target), "--home", DEMO)
    assert code == 1 and "went away" in err and "wrote" not in err
    assert target.read_text() == "the earlier export"
    assert list(tmp_path.iterdir()) == [target]
    monkeypatch.undo()
    # read to its end, it replaces the file, through a link to it, keeping its mode
    link = tmp_path / "link"
    link.symlink_to(target.name)
    code, _, err = invoke("export", CLAUDE_A[:8], "-f", fmt, "-o", str(link), "--home", DEMO)  # fmt: skip
    assert code == 0 and f"wrote {str(link)!r}" in err
    assert link.is_symlink() and target.read_text() != "the earlier export"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(tmp_path.iterdir()) == [link, target]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_an_export_to_dev_stdout_writes_where_the_shell_points_it(
    tmp_path: Path,
) -> None:
    """`-o /dev/stdout` (here a link into /proc, as it is on Linux) while the shell sends
    stdout to a file: written into that file, not a new one put in its place (the
    shell's own writes after it would have gone to the file replaced)."""
    log = tmp_path / "log.md"
    with log.open("w") as shell:
        stdout = tmp_path / "stdout"
        stdout.symlink_to(f"/proc/self/fd/{shell.fileno()}")
        before = log.stat().st_ino
        code, _, err = invoke("export", CLAUDE_A[:8], "-o", str(stdout), "--home", DEMO)  # fmt: skip
        assert code == 0, err
        assert log.stat().st_ino == before and log.read_text().startswith("# Retry")
    assert sorted(tmp_path.iterdir()) == [log, stdout]


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["find", "checkout"],
        ["usage"],
        ["doctor"],
        ["show", CLAUDE_A],
        ["tree", CLAUDE_A],
        ["export", CLAUDE_A],
        ["resume", CLAUDE_A, "--print"],
        ["watch", "--once", "--since", "2026-01-01"],
        ["follow", CLAUDE_A, "--duration", "0"],
        ["replay", CLAUDE_A],
    ],
)
def test_a_home_folder_that_does_not_exist_is_a_usage_error(
    command: list[str], tmp_path: Path
) -> None:
    """Not "no agent sessions on this machine": the folder was mistyped."""
    missing = str(tmp_path / "no-such-home")
    code, out, err = invoke(*command, "--home", missing)
    assert (code, out) == (2, "")
    assert err.endswith(
        f"Error: Invalid value for '--home': the folder {missing!r} does not exist.\n"
    )


@pytest.mark.parametrize("command", [["list"], ["usage"], ["show", CLAUDE_A]])
def test_a_home_that_is_a_file_is_said_so_in_sessdex_words(
    command: list[str], tmp_path: Path
) -> None:
    """click's "Directory '…' is a file.", where every other --home error says folder:
    a transcript's path given as the home is said to be a file, and what to give."""
    given = tmp_path / "session.jsonl"
    given.write_text("{}\n")
    code, out, err = invoke(*command, "--home", str(given))
    assert (code, out) == (2, "")
    assert err.endswith(
        f"Error: Invalid value for '--home': {str(given)!r} is a file, not a folder: "
        "give the home folder that holds the apps' folders (.claude, .codex, …).\n"
    )


def test_doctor_says_how_many_of_its_sessions_are_sub_agents() -> None:
    """`list` shows 9 Claude Code sessions here; doctor counts the 7 sub-agents' own
    transcripts too, and says so, so the two figures can be told apart: `(9 leads, 7
    sub-agents)`, where `(9 + 7 sub-agents')` read as a sum of sub-agents."""
    home = str(Path(__file__).parent / "data" / "claude" / "home")
    _, listed, _ = invoke("list", "--json", "--app", "claude", "--home", home)
    code, out, _ = invoke("doctor", "--app", "claude", "--home", home)
    shown = len(json.loads(listed))
    first = out.splitlines()[0]
    match = re.fullmatch(
        r"Claude Code \(claude\): (\d+) sessions \((\d+) leads, (\d+) sub-agents\)",
        first,
    )
    assert code == 0 and match, first
    total, leads, children = map(int, match.groups())
    assert leads == shown and total == leads + children and children > 0
    _, raw, _ = invoke("doctor", "--app", "claude", "--json", "--home", home)
    [report] = json.loads(raw)
    assert (report["sessions"], report["subagents"]) == (total, children)


def test_a_broken_line_show_meets_points_to_where_it_is_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_claude_session(home, "56565656-0000-4000-8000-000000000005", "/w/a")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "{not json\n" + "".join(lines[1:]))
    code, _, err = invoke("show", "5656", "--no-pager", "--home", str(home))
    assert code == 0
    assert "skipped 1 unreadable line;" in err and "sessdex doctor --deep" in err
    code, out, _ = invoke("doctor", "--deep", "--app", "claude", "--home", str(home))
    assert code == 0 and "not JSON" in out


def test_an_empty_board_on_a_home_with_no_session_sends_nowhere_further_back(
    tmp_path: Path,
) -> None:
    """A first `watch` where no agent has written a session yet said to try a longer
    --since, which showed nothing either."""
    (tmp_path / ".claude" / "projects").mkdir(parents=True)  # a folder, no sessions
    for args in (["--once"], ["--duration", "0.5"], ["--once", "--app", "claude"]):
        code, out, err = invoke("watch", *args, "--home", str(tmp_path))
        assert code == 0 and out == "", args
        # of one app, that app's: other apps' sessions were not read to say "no agent"
        none = "No session of claude" if "--app" in args else "No agent sessions"
        assert err.startswith(f"{none} in the --home folder yet"), (args, err)
        assert "--since" not in err and "sessdex doctor" in err
        assert err.count("\n") == 1


def test_an_empty_board_says_how_far_it_looked_and_how_to_look_further(
    tmp_path: Path,
) -> None:
    """`watch` with nothing recent says what --since it used and one that reaches the
    newest session, not only "no recent sessions": on stderr, a hint, while stdout, the
    data, stays empty, and --json and --nl print an empty array and no line."""
    home = tmp_path / "home"
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-00000000000a", "/w/old",
                         title="an old one", when="2020-01-01T10:00:00.000Z")  # fmt: skip
    # more than a year old: the rung that reaches it is its day
    reach = re.compile(
        r"; the newest changed \d+y ago: --since 2020-01-01 shows it.\n\Z"
    )
    code, out, err = invoke("watch", "--once", "--home", str(home))
    assert code == 0 and out == ""
    assert err.startswith("No session changed in the last 1d; ") and reach.search(err)
    code, out, err = invoke("watch", "--once", "--since", "3w", "--home", str(home))
    assert err.startswith("No session changed in the last 3w; ") and reach.search(err)
    code, out, err = invoke(
        "watch", "--once", "--since", "2021-06-01", "--home", str(home)
    )
    assert out == "" and err.startswith("No session changed since 2021-06-01; ")
    assert reach.search(err)
    # the date suggested shows the session
    code, out, err = invoke(
        "watch", "--once", "--since", "2020-01-01", "--home", str(home)
    )
    assert "an old one" in out and err == ""
    # the board streamed into a pipe until --duration: the hint once, on stderr
    code, out, err = invoke("watch", "--duration", "1.2", "--home", str(home))
    assert code == 0 and out == ""
    assert err.startswith("No session changed in the last 1d; ") and reach.search(err)
    assert err.count("\n") == 1
    code, out, err = invoke("watch", "--json", "--home", str(home))
    assert code == 0 and json.loads(out) == [] and err == ""
    code, out, err = invoke("watch", "--nl", "--once", "--home", str(home))
    assert code == 0 and out == "" and err == ""


def test_an_id_holding_what_no_terminal_shows_opens_by_the_id_list_printed(
    tmp_path: Path,
) -> None:
    """An id is what a file says: one beginning with a right-to-left override or an escape
    is listed cleaned, and that cleaned id (what the user can copy) opens it."""
    home = tmp_path / "home"
    for raw in (
        "\u202ec0b1ed00-0000-4000-8000-0000000000a1",
        "\x1b[31md0b1ed00-0000-4000-8000-0000000000a2",
    ):
        write_claude_session(home, raw, str(tmp_path), title=f"about {raw[-2:]}")
    code, out, _ = invoke("list", "--json", "--home", str(home))
    listed = {row["title"]: row["id"] for row in json.loads(out)}
    assert listed["about a1"].startswith("\u202e")  # --json keeps the id as stored
    for short, title in (("c0b1ed00", "about a1"), ("d0b1ed00-0000", "about a2")):
        code, out, err = invoke("show", short, "--json", "--home", str(home))
        assert code == 0, err
        assert {event["session_id"] for event in json.loads(out)} == {listed[title]}
    code, _, err = invoke("show", "e0b1ed00", "--home", str(home))
    assert code != 0 and "e0b1ed00" in err
    assert invoke("show", "claude:c0b1ed00", "--home", str(home))[0] == 0
    assert invoke("show", "codex:c0b1ed00", "--home", str(home))[0] != 0


@pytest.mark.parametrize("app", ["qwen", "pi"])
def test_show_tail_past_a_line_longer_than_its_window_warns_of_nothing(
    tmp_path: Path, app: str
) -> None:
    """A pasted 1 MB prompt: `--tail` reads back from the end a window at a time, each
    starting inside that line; a piece the window cut is no unreadable line, and a
    wider try does not say again what the narrower one met."""
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    path = max(home.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    lines = path.read_text().splitlines(keepends=True)
    prompt = next(n for n, line in enumerate(lines) if '"user"' in line and n > 0)
    pasted = json.loads(lines[prompt])
    big = json.dumps(pasted).replace(
        '"user"', '"user", "pasted": "%s"' % ("A" * 1_100_000), 1
    )
    path.write_text("".join(lines[:prompt]) + big + "\n" + "".join(lines[prompt:]))
    listed = json.loads(invoke("list", "--json", "--app", app, "--home", str(home))[1])
    session = next(s["id"] for s in listed if s["path"] == str(path))
    for count in ("2", "400"):  # within the first window; past the long line
        code, out, err = invoke(
            "show", session, "--tail", count, "--json", "--home", str(home)
        )
        assert code == 0 and json.loads(out), err
        assert "unreadable" not in err, (count, err)


@pytest.mark.parametrize(
    ("app", "pattern"),
    [("kimi", "subagents/*/meta.json"), ("droid", "*.settings.json")],
)
def test_a_broken_side_file_is_counted_and_named_not_passed_over(
    tmp_path: Path, app: str, pattern: str
) -> None:
    """A sub-agent's meta.json (Kimi CLI) or a session's settings file (droid) cut short:
    what it held is missing from the listing, and --verbose says which file and why."""
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    broken = next(home.rglob(pattern))
    broken.write_bytes(broken.read_bytes()[:-7])
    code, _, err = invoke(
        "list", "--all", "--verbose", "--app", app, "--home", str(home)
    )
    assert code == 0
    assert f"{broken}:1: not JSON" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_what_an_app_lists_twice_is_passed_over_once(tmp_path: Path) -> None:
    """Codex lists ~/.codex and its sessions folder more than once (the state database,
    then the title index; the rollouts, then its older JSON sessions): a pipe and a
    folder whose name is not UTF-8 there are each one thing passed over, not two."""
    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "codex" / "home", home)
    os.mkfifo(home / ".codex" / "stray.pipe")
    os.mkdir(os.fsencode(home / ".codex" / "sessions") + b"/caf\xe9")
    code, _, err = invoke("list", "--json", "--home", str(home))
    assert code == 0
    assert "passed over 1 file name that are not valid UTF-8" in err
    code, out, _ = invoke("doctor", "--json", "--app", "codex", "--home", str(home))
    (report,) = json.loads(out)
    assert report["passed_over"] == {"pipe": 1}


def test_a_kilo_database_that_cannot_be_read_is_said_of_kilo(tmp_path: Path) -> None:
    """Kilo keeps OpenCode's tables and is read by OpenCode's code: a kilo.db that is
    not a database is Kilo's problem, named so (it was 'opencode: cannot read', and a
    user with no OpenCode looked for one)."""
    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "kilo" / "home", home)
    (home / ".local/share/kilo/kilo.db").write_bytes(b"not a database\n" * 512)
    code, _, err = invoke("list", "--json", "--app", "kilo", "--home", str(home))
    assert code == 0
    assert "kilo: cannot read" in err and "kilo.db" in err
    assert "opencode" not in err


def test_an_unknown_id_under_home_points_at_a_list_of_that_home(tmp_path: Path) -> None:
    """`show 0 --home DIR` pointed at 'sessdex list', which lists the user's own home, not
    the one searched: the command it gives names that --home, quoted for the shell."""
    home = tmp_path / "a home's copy"
    write_claude_session(home, "51515151-0000-4000-8000-000000000001", "/home/u/p")
    code, out, err = invoke("show", "ffffffffffff", "--home", str(home))
    assert (code, out) == (1, "")
    assert "no session id starts with 'ffffffffffff'" in err
    found = re.search(r"(['\"`])(sessdex .*?)\1", err)  # the command, in its quotes
    assert found, err
    command = found.group(2)
    assert shlex.split(command) == ["sessdex", "list", "--home", str(home)]
    code, out, err = invoke("list", *shlex.split(command)[2:])
    assert code == 0 and "51515151" in out, err


def test_resume_asks_before_running_a_session_whose_folder_is_unknown_here(
    home: Home, tmp_path: Path
) -> None:
    """Hermes finds a session from any folder, so a session with no folder recorded
    resumes in the folder the user is in: the agent then reads and writes there, which
    `resume` asks first, as it does for a branch switch (piped: refused without --yes)."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    log = tmp_path / "argv"
    (fake_bin / "hermes").write_text(
        f'#!/bin/sh\npwd > "{log}"\nprintf "%s\\n" "$@" >> "{log}"\n'
    )
    (fake_bin / "hermes").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}"}
    here = tmp_path / "here"
    here.mkdir()
    target = "hermes:20260405_101500_5e5e5e"
    result = _run_sessdex(["resume", target, "--home", str(home.path)], env, here)
    assert result.returncode == 1, result.stderr
    assert "the session's folder is unknown" in result.stderr
    assert str(here) in result.stderr and "--yes" in result.stderr
    assert not log.exists()
    result = _run_sessdex(
        ["resume", target, "--yes", "--home", str(home.path)], env, here
    )
    assert result.returncode == 0, result.stderr
    lines = log.read_text().splitlines()
    assert lines[0] == str(here) and lines[1:] == ["--resume", "20260405_101500_5e5e5e"]
