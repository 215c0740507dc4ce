"""A heavy user's day, round 4: what a polished tool says and does, command by command."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main
from tests.helpers import on_a_terminal, write_claude_session

from .test_quick import full, full_run, settled

DEMO = str(api.demo_home().path)


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_watch_verbose_names_the_lines_it_skipped(tmp_path: Path) -> None:
    """`watch` took no -v/--verbose, where follow, show and list name each broken line
    with it: its warning could only send the user to `doctor --deep`."""
    home = tmp_path / "home"
    path = write_claude_session(home, "57575757-0000-4000-8000-000000000005", "/w/a")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "{not json\n" + "".join(lines[1:]))
    watch = ("watch", "--once", "--since", "3000w", "--home", str(home))
    code, out, err = invoke(*watch, "-v")
    assert code == 0 and "57575757" in out
    assert "warning: skipped 1 unreadable line:\n" in err
    assert f"{path}:2" in err and "not JSON" in err
    code, _, err = invoke(*watch, "--verbose")
    assert code == 0 and f"{path}:2" in err
    code, _, err = invoke(*watch)
    assert code == 0 and "skipped 1 unreadable line; see --verbose" in err
    assert str(path) not in err


def test_did_you_mean_keeps_the_words_in_the_order_typed(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """`find chekout branch:featrue` suggested 'branch:feature checkout': the field
    words were put before the plain ones, so the line read unlike what was typed."""
    code, out, err = invoke(
        "find", "chekout", "app:claude", "branch:featrue", "payemnts", "--home", DEMO
    )
    assert (code, out) == (0, "")
    assert "Did you mean 'checkout branch:feature payments'?" in err, err
    assert (
        f"('sessdex find checkout app:claude branch:feature payments --home {DEMO}')"
        in err
    ), err
    # the warm quick path says the same
    home = settled(Path(shutil.copytree(DEMO, tmp_path / "home", symlinks=True)))
    full("--json", "--home", str(home))
    args = ["chekout", "branch:featrue", "--home", str(home)]
    expected = full_run(*args, command="find")
    assert b"Did you mean 'checkout branch:feature'?" in expected.stderr
    capsysbinary.readouterr()
    assert quick.answer("find", args)
    assert capsysbinary.readouterr().err == expected.stderr


def test_clicks_own_usage_errors_break_at_the_terminals_width() -> None:
    """A usage error click words (`No such option '--sinse'. (Did you mean ...)`) ran
    past a narrow terminal's edge, cut mid-word, where sessdex's own notes break at
    spaces; in a pipe it stays one line, for grep."""
    args = ["list", "--sinse", "3d"]
    result, seen = on_a_terminal(args, dict(os.environ), columns=40)
    assert result.returncode == 2
    lines = seen.replace("\r", "").splitlines()
    assert all(len(line) <= 40 for line in lines), lines
    error = lines[next(n for n, line in enumerate(lines) if line.startswith("Error")) :]
    said = "Error: No such option '--sinse'. Did you mean '--since'?"
    assert " ".join(error) == said
    code, _, err = invoke(*args)
    assert code == 2 and err.splitlines()[-1] == said
    # a bad value, said by a command's own option, breaks too
    result, seen = on_a_terminal(
        ["show", "x", "--detail", "everything"], {**os.environ}, columns=40
    )
    lines = seen.replace("\r", "").splitlines()
    assert result.returncode == 2 and all(len(line) <= 40 for line in lines), lines


def test_a_wrapped_note_loses_no_character() -> None:
    """Broken to a narrow terminal, a `--verbose` line indented under its warning lost
    its indent where its path ran past the width, and two spaces in a quoted path lost
    one at the break."""
    from sessdex.views import text

    path = "  /home/u/.claude/projects/-w-a/57575757.jsonl:2: not JSON"
    with mock.patch.object(text, "stderr_width", return_value=30):
        assert text.for_stderr(path) == (
            "  /home/u/.claude/projects/-w-a/57575757.jsonl:2:\n  not JSON"
        )
        spaced = "see '/tmp/my  proj/a b' here"
        assert text.for_stderr(spaced + " and more words") == (
            "see '/tmp/my  proj/a b' here\nand more words"
        )
        gap = text.for_stderr("see '/tmp/aaaaaaaaaaaaaaaaaaa  proj'")
        assert gap == "see '/tmp/aaaaaaaaaaaaaaaaaaa\n proj'"


def test_show_takes_n_for_its_tail_as_follow_does() -> None:
    """`follow ID -n 20` shows the last 20 events, and `follow --tail 20` is taken "as
    show takes it"; `show ID -n 20` was refused (No such option '-n')."""
    tail = invoke("show", "3f2b", "--tail", "2", "--no-pager", "--home", DEMO)
    short = invoke("show", "3f2b", "-n", "2", "--no-pager", "--home", DEMO)
    assert tail[0] == 0 and tail[1].strip()
    assert short == tail


def test_a_pager_with_a_quote_left_open_is_not_said_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`PAGER='less "-R'` (a quote left open) was said "not found", though less is
    there: the shell cannot read the command, and that is what to mend."""
    from sessdex.cli.pager import pager_command

    monkeypatch.setenv("PAGER", 'less "-R')
    assert pager_command() is None
    said = capsys.readouterr().err
    assert said == (
        'warning: the shell cannot read $PAGER (less "-R): a quote is left open; '
        "printing directly\n"
    )


def test_a_path_that_is_not_there_is_said_so(tmp_path: Path) -> None:
    """`show ~/.claude/projects/x/gone.jsonl` (a transcript's path stands for its
    session) said only that no session id starts with the whole path, as if a path
    were a mistyped id."""
    gone = tmp_path / "my proj" / "gone.jsonl"
    code, out, err = invoke("show", str(gone), "--home", DEMO)
    assert (code, out) == (1, "")
    assert err == (
        f"Error: no session id starts with {str(gone)!r}; no file is there either: "
        f"check the path, or give the id 'sessdex list --home {DEMO}' shows.\n"
    )


@pytest.mark.parametrize("command", ["show", "tree", "export", "resume"])
def test_words_past_the_id_are_said_as_people_say_it(command: str) -> None:
    """`show 3f2b fix checkout` (a title typed after an id, or two ids) got click's bare
    "Got unexpected extra argument (fix checkout)"; `list`, `watch` and `doctor` say
    what they take and the command that finds sessions by words."""
    code, out, err = invoke(command, "3f2b", "retry", "checkout", "--home", DEMO)
    assert (code, out) == (2, "")
    assert err.endswith(
        f"Error: sessdex {command} takes one session id, and 'retry checkout' came "
        f"after it; 'sessdex find 3f2b retry checkout --home {DEMO}' finds sessions "
        "by their words.\n"
    ), err


@pytest.mark.parametrize("command", [("list",), ("find", "amp")])
def test_verbose_listing_does_not_send_the_user_to_verbose(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """`list -v` said `warning: skipped 3 unreadable lines in 2 amp files; see
    --verbose or 'sessdex doctor'`: the --verbose just given, its lines right below."""
    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "amp" / "malformed" / "home", home)
    log = home / ".cache/amp/logs/threads/T-33333333-3333-7333-8333-333333333333.log"
    args = [*command, "--since", "3000w", "--home", str(home)]
    for _ in ("cold", "warm"):
        code, _, err = invoke(*args, "-v")
        assert code == 0
        assert re.search(
            r"^warning: skipped \d unreadable lines in \d amp files?$", err, re.M
        )
        assert (
            "1 session dated in the future or before 1970 is listed without that time\n"
            in err
        )
        assert f"  amp: {log}:2: not JSON" in err
        assert "see --verbose" not in err, err
    code, _, err = invoke(*args)  # without it, the pointer is the way on
    assert code == 0 and "; see --verbose or 'sessdex doctor" in err, err


def test_an_id_two_apps_share_is_not_told_to_type_more() -> None:
    """Where every session matched has the same id (two apps, one id), `type more of the
    id` can never settle it: only the app in front can, and each choice is named."""
    from sessdex.errors import AmbiguousId

    same = "44444444-4444-4444-8444-444444444444"
    error = AmbiguousId("4444", [("claude", same, "a"), ("auggie", same, "b")])
    assert str(error) == (
        f"'4444' matches 2 sessions (1 auggie, 1 claude), which share the id '{same}'; "
        "put the app in front: 'auggie:4444' or 'claude:4444'."
    )
    other = AmbiguousId("4444", [("claude", same, "a"), ("claude", "4444ab", "b")])
    assert "type more of the id" in str(other)


def test_find_with_options_but_no_word_suggests_the_list_that_keeps_them() -> None:
    """`find --app claude` (no word) said `'sessdex list' shows every session`: the
    options typed were dropped from the command it suggests."""
    code, out, err = invoke("find", "--app", "claude", "--since", "3d", "--home", DEMO)
    assert (code, out) == (2, "")
    assert err.endswith(
        "Error: give a word to find; 'sessdex list --app claude --since 3d --home "
        f"{DEMO}' lists the sessions those options keep.\n"
    ), err
    _, _, err = invoke("find", "--json", "--all", "-n", "5", "--home", DEMO)
    assert f"'sessdex list --all --limit 5 --json --home {DEMO}' lists" in err, err
    _, _, err = invoke("find", "--home", DEMO)  # none: as before
    assert f"'sessdex list --home {DEMO}' shows every session." in err


def test_an_id_one_typo_from_a_session_names_it() -> None:
    """`show 3f2b9c1f` (one character off the demo's 3f2b9c1e) said only that no id
    starts so and to run `list`, as for an id nowhere near any."""
    for typed in ("3f2b9c1f", "3f2bc91e", "3f2b9cc1e", "3f2b9c1ee"):
        code, out, err = invoke("show", typed, "--no-pager", "--home", DEMO)
        assert (code, out) == (1, ""), typed
        said = f"no session id starts with {typed!r}; did you mean '3f2b9c1e'?"
        assert err == f"Error: {said}\n", err
    # a prefix of an id is found as ever; one near no id gets the usual line
    assert invoke("show", "3f2b9c1", "--no-pager", "--home", DEMO)[0] == 0
    _, _, err = invoke("show", "zzzz9c1e", "--home", DEMO)
    assert "Run 'sessdex list" in err and "did you mean" not in err
