"""A heavy user's day, round 5: the small option mistakes, narrow terminals and shared ids."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

from .test_json_outputs import _shared_id_home


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("usage", "-n"), "Error: -n needs a count, e.g. -n 20."),
        (("list", "--limit"), "Error: --limit needs a count, e.g. --limit 20."),
        (("show", "7f3a", "--tail"), "Error: --tail needs a count, e.g. --tail 20."),
        (("follow", "-n"), "Error: -n needs a count, e.g. -n 20."),
    ],
)
def test_a_count_given_no_value_says_what_it_takes(
    args: tuple[str, ...], said: str
) -> None:
    # click said only "Option '-n' requires an argument.", where --tz says what it needs
    code, out, err = invoke(*args)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith(said), err
    assert err.startswith(f"Usage: main {args[0]} "), err


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("list", "--lines", "3"), "-n/--limit"),  # click guessed '--since'
        (("list", "--last", "3"), "-n/--limit"),  # click guessed '--limit', '--nl'
        (("find", "x", "--lines", "3"), "-n/--limit"),
        (("watch", "--lines", "3"), "-n/--limit"),
        (("usage", "--lines", "3"), "-n/--limit"),
    ],
)
def test_a_count_word_click_guessed_otherwise_names_the_commands_n(
    args: tuple[str, ...], meant: str
) -> None:
    code, out, err = invoke(*args)
    assert (code, out) == (2, "")
    said = f"Error: No such option '{args[-2]}'. Did you mean '{meant}'?"
    assert err.rstrip().endswith(said), err


def _board(apps_titles: list[tuple[str, str]], width: int) -> list[str]:
    from datetime import UTC, datetime

    from sessdex.live import BoardRow
    from sessdex.model import Session
    from sessdex.status import Status
    from sessdex.views.board import plain

    now = 1_780_000_000.0
    rows = [
        BoardRow(
            Session(app, f"{n}f3a9c2e-77", title=title, cwd="/home/dev/code/shop"),
            Status("working", "tool Bash running 42s"),
            now - 300,
            12_000,
            False,
        )
        for n, (app, title) in enumerate(apps_titles)
    ]
    text = plain(rows, "/home/dev", datetime.fromtimestamp(now, UTC), width=width)
    return [line for line in text.splitlines() if line.startswith("  ")]


@pytest.mark.parametrize("width", [40, 60, 80])
def test_a_narrow_watch_board_still_says_each_sessions_app(width: int) -> None:
    # at 60 columns or less the app column went whole: the same task run in claude and in
    # codex showed as two alike lines; now each app keeps the letters that tell it apart
    same = "Fix the flaky checkout test in CI"
    lines = _board([("claude", same), ("codex", same), ("copilot", same)], width)
    assert all(len(line) <= width for line in lines), lines
    tags = [line.split()[0] for line in lines]
    assert len(set(tags)) == 3, lines
    apps = ("claude", "codex", "copilot")
    # a name cut ends in "…", as every table cuts (`cop` read as an app of that name)
    assert all(t in (a, f"{a[: len(t) - 1]}…") for a, t in zip(apps, tags, strict=True)), lines  # fmt: skip
    if width == 40:
        assert tags == ["cla…", "cod…", "cop…"], lines
    assert all("Fix the" in line for line in lines), lines  # and the title stays


def test_a_narrow_board_cuts_apps_one_names_the_start_of_apart() -> None:
    lines = _board([("kiro", "Plan the release"), ("kiroide", "Plan the release")], 40)
    assert [line.split()[0] for line in lines] == ["kiro", "kir…"]


@pytest.mark.parametrize("columns", ["120", "40"])
def test_usage_session_table_names_the_app_of_an_id_two_apps_share(
    tmp_path: Path, columns: str
) -> None:
    # Roo's task and Kilo's copy of it were two alike rows, `2b9d4c1e  Set up a CI/CD…`;
    # --json keys them `roo:2b9d…` and `kilo:2b9d…`, and --explain takes those
    home = _shared_id_home(tmp_path)
    code, out, _ = invoke("usage", "session", "--home", home, env={"COLUMNS": columns})
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("│ ")]
    keys = [row.split("│")[1].split()[0] for row in rows[:-1]]  # the total last
    assert keys == ["7c1a2b3d", "lead", "└", "kilo:2b9d4c1e", "roo:2b9d4c1e"], out
    for key in keys[-2:]:
        code, said, _ = invoke("usage", "session", "--explain", key, "--home", home)
        assert code == 0 and key.split(":")[0] in said, said


def test_export_to_a_folder_names_a_file_in_it(tmp_path: Path) -> None:
    # click's "Invalid value for '--output' / '-o': File 'out' is a directory." said
    # what was wrong, not what to type; the file is named for the id typed
    out = tmp_path / "my out"
    out.mkdir()
    code, stdout, err = invoke("export", "3f2b9c1e", "-f", "html", "-o", str(out))
    assert (code, stdout, list(out.iterdir())) == (2, "", [])
    name = str(out / "3f2b9c1e.html")
    said = (
        f"is a directory: name a file in it, e.g. \"sessdex export 3f2b9c1e -o '{name}'"
    )
    assert said in err, err
    assert "Invalid value" not in err
    assert "-o, --output FILE " in invoke("export", "--help")[1]  # as the help says it


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("export", "7f3a", "--json"), "No such option '--json'. Did you mean '-f json'?"),
        (("show", "7f3a", "--app", "codex"), "An id takes its app in front instead: 'sessdex show claude:7f3a'."),
        (("resume", "--app=codex", "7f3a"), "'sessdex resume claude:7f3a'."),
        # click guessed "Did you mean '--lines'?" and "'--json'?", no time either
        (("follow", "7f3a", "--since", "x"), "No such option '--since'. sessdex follow takes one session, not a time: '-n/--lines N' shows its last N events."),
        (("show", "7f3a", "--until=x"), "sessdex show takes one session, not a time: '-n/--tail N' shows its last N events."),
        (("export", "7f3a", "--since", "x"), "sessdex export takes one session, not a time; list, find and usage take '--since' to pick sessions by time."),
    ],
)  # fmt: skip
def test_an_option_other_commands_take_names_this_ones_way(
    args: tuple[str, ...], said: str
) -> None:
    # `export --json` said only "No such option '--json'."; `show ID --app codex` the same
    code, out, err = invoke(*args)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith(said), err


def test_watch_n_0_says_no_session_changed_of_none(tmp_path: Path) -> None:
    # `watch --once -n 0` said "no session changed in the last 1d; the newest changed
    # 0s ago: --since 1h shows it", of a session that had; -n 0 shows none, as list's
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    write_claude_session(
        tmp_path, "5a5a5a5a-0000-4000-8000-000000000001", "/w/shop", when=now
    )
    home = ["--home", str(tmp_path)]
    assert invoke("watch", "--once", *home)[1].count("5a5a5a5a") == 1
    assert invoke("watch", "--once", "-n", "0", *home) == (0, "", "")
    assert invoke("list", "-n", "0", *home) == (0, "", "")


def test_an_empty_board_says_a_session_changed_a_moment_ago_as_just_now() -> None:
    # "the newest changed now ago", of a session the board did not show (one -n left out)
    from datetime import timedelta

    from sessdex.views.board import empty_board

    now = datetime.now(UTC)
    said = empty_board("30m", now - timedelta(seconds=20), now)
    assert said == (
        "No session changed in the last 30m; the newest changed just now: "
        "--since 1h shows it."
    )


def test_watch_here_keeps_to_the_folder_as_list_here_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # list, find and usage took --here; watch said "No such option '--here'"
    home, shop, docs = tmp_path / "home", tmp_path / "shop", tmp_path / "docs"
    for folder in (shop / "api", docs):
        folder.mkdir(parents=True)
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    for n, folder in enumerate((shop / "api", docs)):
        session = f"{n}b{n}b{n}b{n}b-0000-4000-8000-000000000001"
        write_claude_session(home, session, str(folder), when=now)
    monkeypatch.chdir(shop)
    monkeypatch.delenv("PWD", raising=False)
    code, out, _ = invoke("watch", "--once", "--here", "--home", str(home))
    assert code == 0 and "0b0b0b0b" in out and "1b1b1b1b" not in out, out
    code, out, _ = invoke("watch", "--json", "--here", "--home", str(home))
    assert [row["id"][:8] for row in json.loads(out)] == ["0b0b0b0b"]
    code, out, err = invoke(
        "watch", "--once", "--here", "--since", "2000-01-01", "--home", str(home)
    )
    assert code == 0 and "1b1b1b1b" not in out
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    code, out, err = invoke("watch", "--once", "--here", "--home", str(home))
    assert (code, out) == (0, "")
    said = f"No session in {str(tmp_path / 'empty')!r} or below it yet; "
    assert err.startswith(said), err


def test_a_status_of_a_session_dated_decades_ago_says_long_ago(tmp_path: Path) -> None:
    # a clock set to 1990 (the board's age said 36y): "exited after its turn, ever ago"
    session = "e0e0e0e0-0000-4000-8000-000000000001"
    path = write_claude_session(
        tmp_path, session, "/w/old", when="1990-01-01T00:00:00.000Z"
    )
    os.utime(path, (631152000, 631152000))  # its file's time too: 1990-01-01
    args = ("watch", "--json", "--since", "1900-01-01", "--home", str(tmp_path))
    code, out, _ = invoke(*args)
    [row] = json.loads(out)
    # JSON says no age (`since` dates it); the board's reason does
    assert code == 0 and row["reason"] == "exited after its turn", row
    assert row["since"] == "1990-01-01T00:00:05.000Z", row  # its answer
    code, out, _ = invoke("watch", "--once", *args[2:])
    assert code == 0 and "exited after its turn, long ago" in out, out


def test_find_of_a_word_like_an_option_says_where_it_goes() -> None:
    # "No such option '--dry-run'." left the README's `find -- --dry-run` unsaid
    code, out, err = invoke("find", "--dry-run")
    assert (code, out) == (2, "")
    said = "A word that starts with '-' goes after '--': 'sessdex find -- --dry-run'."
    assert err.rstrip().endswith(said), err
    code, out, err = invoke(
        "find", "--limt", "3", "x"
    )  # a typo keeps click's close guess
    assert code == 2 and "Did you mean '--limit'?" in err and "--'" not in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("usage", "--by", "session"), "No such option '--by'. The report is a word after usage: 'sessdex usage session'; the reports are daily, weekly, monthly, session, project, model or app."),
        (("usage", "--by=model"), "after usage: 'sessdex usage model';"),
        (("usage", "--group-by", "days"), "after usage: 'sessdex usage daily';"),
        (("usage", "--daily"), "No such option '--daily'. Did you mean 'sessdex usage daily'?"),
        (("usage", "sessions"), "'sessions' is no usage report. Did you mean 'sessdex usage session'?"),
    ],
)  # fmt: skip
def test_usage_report_typed_as_an_option_or_plural_names_the_report(
    args: tuple[str, ...], said: str
) -> None:
    # ccusage and others spell the report otherwise: click said "No such option '--by'."
    # and `usage sessions` listed the seven reports, `session` among them
    code, out, err = invoke(*args)
    assert (code, out) == (2, "")
    assert said in err, err


def test_find_of_one_word_that_matches_nothing_asks_for_no_fewer_words() -> None:
    # "Fewer words find more" was said of one word; where one was typed, what find does
    # not search (what was said) is the likelier reason
    demo = str(Path(__file__).parents[1] / "src" / "sessdex" / "demo" / "home")
    err = invoke("find", "zzzz", "--home", demo)[2]
    assert "Fewer words" not in err
    assert "What was said in a session is not searched;" in err, err
    err = invoke("find", "zzzz", "checkout", "--home", demo)[2]
    assert "Fewer words find more;" in err, err


@pytest.mark.parametrize("given", ["", "claude:"])
def test_an_id_left_out_is_said_in_a_whole_sentence(given: str) -> None:
    # "... or the start of one ('sessdex list --app claude')" ended with no full stop,
    # where the library's own BadValue, and every other message, has one
    code, out, err = invoke("show", given)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith("')."), err
