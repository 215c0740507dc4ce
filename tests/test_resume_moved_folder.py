"""`resume` of a session whose folder is gone: where the project may have moved, and
how to resume it there, said (never done, never on another branch unsaid)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, sources
from sessdex.cli import main
from sessdex.shells import cd_then_run
from sessdex.sources import Home

from .helpers import write_claude_session

GONE = "61616161-0000-4000-8000-000000000001"  # ran in old/my shop, removed since
MOVED = "62626262-0000-4000-8000-000000000002"  # newer, in new/my shop
OLDER = "63636363-0000-4000-8000-000000000003"  # older, in stale/my shop

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="no git")


@pytest.fixture
def moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    home = tmp_path / "home"
    old, new = tmp_path / "old" / "my shop", tmp_path / "new" / "my shop"
    stale = tmp_path / "stale" / "my shop"
    new.mkdir(parents=True)
    stale.mkdir(parents=True)
    for session, folder, day in ((OLDER, stale, "01"), (GONE, old, "10")):
        when = f"2026-11-{day}T10:00:00.000Z"
        write_claude_session(home, session, str(folder), when=when)
    return home


def refusal(home: Path) -> str:
    check = api.check_resume(Home.at(home), GONE[:8])
    gone = [r for r in check.refusals if "no longer exists" in r]
    assert len(gone) == 1, check.refusals
    return gone[0]


def test_no_newer_folder_of_that_name_no_hint(moved: Path) -> None:
    """stale/my shop is older than the session: no reason to think it moved there. What
    to do is said all the same (it was only that the folder is gone)."""
    old = moved.parent / "old" / "my shop"
    assert refusal(moved) == (
        f"the session's folder {old} no longer exists; sessdex never resumes elsewhere."
        f" Put the project back at {old} (restore or clone it there) to resume it: "
        "Claude Code finds a session only from the folder it ran in."
    )


def test_print_of_a_gone_folder_says_what_to_do(moved: Path) -> None:
    """`resume --print` of a session whose folder is gone, with no newer folder of its
    name: the error said that it no longer exists and nothing the user could do."""
    old = moved.parent / "old" / "my shop"
    printed = CliRunner().invoke(
        main, ["resume", GONE[:8], "--print", "--home", str(moved)]
    )
    assert printed.exit_code == 1
    assert f"Put the project back at {old} (restore or clone it there)" in (
        printed.stderr
    )


def test_an_anywhere_cli_is_given_the_line_without_its_cd(
    moved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the CLI finds a session from any folder and no newer folder of the name is
    known, the line without `cd` is offered, to run where the user chooses."""
    monkeypatch.setattr(sources.get("claude"), "RESUMES_ANYWHERE", True, raising=False)
    said = refusal(moved)
    assert said.endswith(
        "to go on with it in another folder, run this there (claude finds the session "
        f"from any folder): `claude --resume {GONE} --model claude-sonnet-4-5 "
        "--permission-mode default`"
    ), said


@needs_git
def test_a_folder_bound_cli_is_told_where_the_project_went(moved: Path) -> None:
    """Claude Code finds a session only from the folder it ran in: the hint names the
    new folder and its branch, and says to move the project back."""
    old, new = moved.parent / "old" / "my shop", moved.parent / "new" / "my shop"
    subprocess.run(["git", "init", "-q", "-b", "other", str(new)], check=True)
    write_claude_session(moved, MOVED, str(new), when="2026-11-20T10:00:00.000Z")
    assert refusal(moved) == (
        f"the session's folder {old} no longer exists; sessdex never resumes "
        f"elsewhere. A folder of the same name, {new}, holds newer sessions: the "
        "project may have moved there (on branch 'other' now, the session's was "
        "'main': check it out first to go on with it). Claude Code finds a session "
        f"only from the folder it ran in: move the project back to {old} to resume it."
    )
    result = CliRunner().invoke(main, ["resume", GONE[:8], "--home", str(moved)])
    assert result.exit_code == 1
    assert f"A folder of the same name, {new}, holds newer sessions" in result.stderr


def test_an_anywhere_cli_gets_the_line_with_the_folder_quoted(
    moved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the CLI finds a session from any folder, the hint is the line that runs
    it in the new folder, quoted for the shell (the folder holds a blank)."""
    new = moved.parent / "new" / "my shop"
    write_claude_session(moved, MOVED, str(new), when="2026-11-20T10:00:00.000Z")
    monkeypatch.setattr(sources.get("claude"), "RESUMES_ANYWHERE", True, raising=False)
    check = api.check_resume(Home.at(moved), GONE[:8])
    line = cd_then_run(str(new), check.plan.argv)
    assert line.startswith(f"cd '{new}' && claude ")
    said = refusal(moved)
    assert said.endswith(
        f"the project may have moved there. claude finds the session from any "
        f"folder; to resume it there: `{line}`"
    ), said
    assert GONE in line


def test_print_refuses_a_session_whose_folder_is_gone_as_resume_does(
    moved: Path,
) -> None:
    """`resume --print` printed `cd '…/old/my shop' && claude …` with 0 and warnings,
    where `resume` refuses the session: a script running the line ran a cd that failed.
    The line is printed with 1 and the reason now; --json still gives the plan and why."""
    old = moved.parent / "old" / "my shop"
    runner = CliRunner()
    printed = runner.invoke(main, ["resume", GONE[:8], "--print", "--home", str(moved)])
    resumed = runner.invoke(main, ["resume", GONE[:8], "--home", str(moved)])
    assert printed.exit_code == resumed.exit_code == 1
    assert printed.stdout.startswith(f"cd '{old}' && claude ")
    assert "Error: " in printed.stderr and "cd would fail" in printed.stderr
    assert f"the session's folder {old} no longer exists" in printed.stderr
    described = runner.invoke(
        main, ["resume", GONE[:8], "--json", "--home", str(moved)]
    )
    assert described.exit_code == 0
    plan = json.loads(described.stdout)
    assert any(f"{old} no longer exists" in why for why in plan["refusals"])


def test_print_ends_its_error_with_the_line_offered(
    moved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`resume --print`'s error put "The line's cd would fail." right after the line the
    hint offers to run elsewhere, with no stop between: copied to the end, it was part
    of the command. That is said first now; the offered line ends the error."""
    monkeypatch.setattr(sources.get("claude"), "RESUMES_ANYWHERE", True, raising=False)
    printed = CliRunner().invoke(
        main, ["resume", GONE[:8], "--print", "--home", str(moved)]
    )
    assert printed.exit_code == 1
    error = printed.stderr.strip().splitlines()[-1]
    assert error.startswith("Error: the printed line's cd would fail: "), error
    assert error.endswith("--permission-mode default`"), error


def test_a_file_where_the_folder_was_is_told_what_to_do(
    moved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file now stands where the session's folder was: the refusal said only that it
    "is a file now", where a gone folder is told how to put the project back (and, for
    a CLI that finds the session from any folder, the line to run elsewhere)."""
    old = moved.parent / "old" / "my shop"
    old.parent.mkdir(parents=True)
    old.write_text("not a folder")
    monkeypatch.setattr(sources.get("claude"), "RESUMES_ANYWHERE", True, raising=False)
    check = api.check_resume(Home.at(moved), GONE[:8])
    said = next(r for r in check.refusals if "is a file now" in r)
    assert (
        f" Move the file away and put the project back at {old} (restore or clone it "
        "there) to resume it, or, to go on with it in another folder, run this there"
    ) in said, said
    assert said.endswith(f"`claude --resume {GONE} --model claude-sonnet-4-5 --permission-mode default`")  # fmt: skip


def test_refusals_after_a_line_to_paste_are_told_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gone folder's refusal ends with the line to run elsewhere; the next refusal
    (the CLI not installed) starts a sentence of its own, in `resume` and in `demo`'s
    note: run together, "…workspace-write` 'codex' is not on PATH" read as one line."""
    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    monkeypatch.setenv("PATH", str(tmp_path))  # no codex
    monkeypatch.setenv("HOME", str(tmp_path))
    demo = Path(sources.__file__).parent.parent / "demo" / "home"
    resumed = CliRunner().invoke(main, ["resume", "019a7e21", "--home", str(demo)])
    shown = CliRunner().invoke(main, ["demo"])
    for result in (resumed, shown):
        said = " ".join(result.output.split())
        assert "workspace-write` 'codex' is not on PATH" not in said, said
        assert "workspace-write`. 'codex' is not on PATH" in said, said
        assert "@openai/codex." not in said  # no dot on the command to copy
