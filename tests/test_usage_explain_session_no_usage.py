"""`usage session --explain ID` of a session that is there but counted no response (no
answer yet, or none in the filters) is an empty result, said plainly, exit 0, as a day
with nothing in it is; it said "no session row is keyed …" and exited 1. An id no
session has stays an error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

COUNTED = "11111111-aaaa-4bbb-8ccc-000000000001"
SILENT = "22222222-aaaa-4bbb-8ccc-000000000002"


def _home(tmp_path: Path, *unanswered: str) -> Path:
    """A home of one session with an answer, and sessions of a prompt alone."""
    home = tmp_path / "home"
    write_claude_session(home, COUNTED, "/work/proj")
    for session_id in unanswered:
        path = write_claude_session(home, session_id, "/work/proj", prompt="no answer")
        path.write_text(path.read_text().splitlines(keepends=True)[0])
    return home


def _explain(
    home: Path, key: str, *more: str, kind: str = "session"
) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main,
        ["usage", kind, "--explain", key, "--home", str(home), *more],
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout, result.stderr


def test_a_session_with_no_usage_is_said_so_and_exits_0(tmp_path: Path) -> None:
    home = _home(tmp_path, SILENT)
    code, out, err = _explain(home, SILENT[:8])
    assert (code, out) == (0, "")
    assert err == (
        f"No token usage was counted for session {SILENT} (claude): nothing to explain.\n"
    )
    code, out, err = _explain(home, SILENT[:8], "--json")
    assert (code, err) == (0, "")
    said = orjson.loads(out)
    assert said["row"]["key"] == said["row"]["id"] == SILENT
    assert (said["row"]["app"], said["row"]["title"]) == ("claude", "no answer")
    assert said["row"]["responses"] == 0 and said["counted"] == said["dropped"] == []
    assert said["notes"] == [
        f"no token usage was counted for session {SILENT} (claude): nothing to explain."
    ]
    # the same shape as a day with nothing in it
    code, day, _ = _explain(home, "2026-11-21", "--json", kind="daily")
    assert code == 0 and orjson.loads(day).keys() == said.keys()


def test_a_session_whose_usage_the_filters_leave_out_is_said_so(
    tmp_path: Path,
) -> None:
    home = _home(tmp_path)
    code, out, err = _explain(home, COUNTED[:8], "--since", "2026-11-25")
    assert (code, out) == (0, "")
    assert f"for session {COUNTED} (claude) with these filters: nothing" in err
    code, out, err = _explain(home, f"claude:{COUNTED[:8]}", "--app", "codex")
    assert (code, out) == (0, "") and "with these filters" in err
    # `app:` before the id is no filter: the session's own usage is explained
    code, out, _ = _explain(home, f"claude:{COUNTED[:8]}", "--json")
    assert code == 0 and orjson.loads(out)["row"]["responses"] == 1


def test_an_id_no_session_has_stays_an_error(tmp_path: Path) -> None:
    home = _home(tmp_path, SILENT)
    for more in ((), ("--json",)):
        code, out, err = _explain(home, "33333333", *more)
        assert (code, out) == (1, "")
        # the row named ends the sentence: it had no full stop
        assert err == f"Error: no session row is keyed '33333333'. Rows: {COUNTED}.\n"
        code, out, err = _explain(home, f"codex:{SILENT[:8]}", *more)
        assert (code, out) == (1, "")
        assert "no session row is keyed 'codex:22222222'" in err


def test_an_id_two_sessions_with_no_usage_start_is_ambiguous(tmp_path: Path) -> None:
    other = "22222222-aaaa-4bbb-8ccc-000000000003"
    home = _home(tmp_path, SILENT, other)
    code, out, err = _explain(home, "2222")
    assert (code, out) == (1, "")
    assert "'2222' matches 2 sessions" in err and SILENT in err and other in err


def test_the_warm_answer_says_what_the_full_command_says(tmp_path: Path) -> None:
    """The quick path (a warm index, no click) answers as the full command does."""
    home = _home(tmp_path, SILENT)
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    env.pop("SESSDEX_NO_QUICK", None)
    args = ["usage", "session", "--explain", SILENT[:8], "--home", str(home)]
    for _ in range(2):  # cold, then warm
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stdout) == (0, "")
        assert done.stderr == (
            f"No token usage was counted for session {SILENT} (claude): nothing to "
            "explain.\n"
        )


def test_a_session_with_no_usage_is_named_as_the_shell_takes_it(
    tmp_path: Path,
) -> None:
    """The id the note names is the one to paste back into `--explain`: one a file gave
    holding `$(…)` and a bidi override was printed bare, the override dropped, and
    pasted the shell ran the `$(…)`."""
    hostile = "2222 $(touch pwned)\u202ex"
    home = _home(tmp_path, hostile)
    result = CliRunner(env={"SESSDEX_SHELL": "bash"}).invoke(
        main, ["usage", "session", "--explain", "2222", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    said = result.stderr
    assert said.startswith("No token usage was counted for session "), said
    word = said.removeprefix("No token usage was counted for session ").split(
        " (claude)"
    )[0]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    pasted = subprocess.run(
        ["bash", "-c", f"printf %s {word}"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=True,
    )
    assert pasted.stdout == hostile, said
    assert list(scratch.iterdir()) == [], said


def test_the_files_it_counted_are_named_as_they_are(tmp_path: Path) -> None:
    """A file whose name holds an escape sequence (`\\x1b]0;T\\x07`) was named with the
    sequence dropped, payload and all: not the file's name. It is written out
    (`\\x1b`), as `--verbose` and `doctor -v` name it, and acts on nothing."""
    home = tmp_path / "home"
    write_claude_session(home, "e5c\x1b]0;T\x07it", "/work/proj")
    result = CliRunner().invoke(
        main, ["usage", "session", "--explain", "e5c", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    counted = [line for line in result.stdout.splitlines() if "claude " in line]
    assert counted, result.stdout
    assert all("e5c\\x1b]0;T\\x07it.jsonl:" in line for line in counted), counted
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout


def test_a_tab_in_a_file_it_counted_is_written_out(tmp_path: Path) -> None:
    """A tab in a file's name reached the terminal raw: it read as spaces, and the
    name copied from the line was another file's. It is written out, as a control
    character is."""
    home = tmp_path / "home"
    write_claude_session(home, "7ab\tit", "/work/proj")
    result = CliRunner().invoke(
        main, ["usage", "session", "--explain", "7ab", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    counted = [line for line in result.stdout.splitlines() if "claude " in line]
    assert counted, result.stdout
    assert all("7ab\\x09it.jsonl:" in line for line in counted), counted
    assert "\t" not in result.stdout


def test_a_copy_whose_responses_the_original_counted_names_it(tmp_path: Path) -> None:
    """A session copied from another (the same responses, their ids kept) has each of
    them counted once, in the original: its `--explain` said "No token usage was
    counted … nothing to explain", as of a session never answered. It says where they
    were counted, naming that session to paste."""
    home = _home(tmp_path)
    original = next((home / ".claude/projects").rglob(f"{COUNTED}.jsonl"))
    copy = "99999999-aaaa-4bbb-8ccc-000000000009"
    (original.parent / f"{copy}.jsonl").write_text(
        original.read_text().replace(COUNTED, copy)
    )
    code, out, err = _explain(home, copy[:8])
    assert (code, out) == (0, "")
    assert f"counted in session {COUNTED}" in err, err
    assert "nothing to explain" not in err, err
