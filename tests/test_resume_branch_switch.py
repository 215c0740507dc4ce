"""`resume` of a session whose folder is now on another branch: it never switches, and
names the `git switch` the user may run where the session's branch is there to switch to."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

SESSION = "7e7e7e7e-0000-4000-8000-000000000002"


def _git(folder: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}  # fmt: skip
    subprocess.run(["git", "-C", str(folder), *args], check=True, env=env)


def _resume(tmp_path: Path, folder: Path, branch: str) -> str:
    """What `resume --print` says on stderr of a session recorded on `branch`."""
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder), branch=branch)
    claude = tmp_path / "bin" / "claude"  # found on PATH, never run by --print
    claude.parent.mkdir(exist_ok=True)
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    env = {
        "PATH": f"{claude.parent}{os.pathsep}{os.environ['PATH']}",
        "SESSDEX_SHELL": "bash",
    }
    result = CliRunner().invoke(
        main, ["resume", SESSION, "--print", "--home", str(home)], env=env
    )
    assert result.exit_code == 0, result.output
    return result.stderr


def test_the_switch_to_the_sessions_branch_is_named_when_it_is_there(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "my project"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "start")
    _git(folder, "branch", "fix;it")
    said = _resume(tmp_path, folder, "fix;it")
    assert "sessdex never switches branches" in said
    assert f"To go on with it there: `git -C '{folder}' switch 'fix;it'`" in said
    # named, never run: the folder is still on main
    head = subprocess.run(
        ["git", "-C", str(folder), "branch", "--show-current"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert head.stdout.strip() == "main"


def test_no_switch_is_named_to_a_branch_the_folder_does_not_have(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "start")
    said = _resume(tmp_path, folder, "gone")
    assert "the session was on branch 'gone'" in said
    assert "sessdex never switches branches." in said
    assert "git -C" not in said and "To go on with it" not in said


def test_a_branch_that_looks_like_an_option_is_named_after_dashes(
    tmp_path: Path,
) -> None:
    # a ref named `-x` (git update-ref makes one): 'git switch -x' is read as an option
    # ("unknown switch `x'"), 'git switch -- -x' switches to it
    folder = tmp_path / "project"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "start")
    _git(folder, "update-ref", "refs/heads/-x", "HEAD")
    said = _resume(tmp_path, folder, "-x")
    assert f"To go on with it there: `git -C {folder} switch -- -x`" in said, said


def test_the_switch_is_whole_on_a_narrow_terminal(tmp_path: Path) -> None:
    """At 60 columns `git -C '<folder>' switch 'fix;it'` was broken at its spaces, so
    a user copying it got half a command: it is one line now, in backticks."""
    from .helpers import on_a_terminal

    folder = tmp_path / "my project"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "start")
    _git(folder, "branch", "fix;it")
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder), branch="fix;it")
    claude = tmp_path / "bin" / "claude"
    claude.parent.mkdir()
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    env = {**os.environ, "SESSDEX_SHELL": "bash", "SESSDEX_PROGRESS_AFTER": "600",
           "PATH": f"{claude.parent}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    args = ["resume", SESSION, "--print", "--home", str(home)]
    _, shown = on_a_terminal(args, env, columns=60)
    switch = f"`git -C '{folder}' switch 'fix;it'`"
    assert any(switch in line for line in shown.splitlines()), shown


def test_a_branch_checked_out_in_another_worktree_is_named_there_not_switched_to(
    tmp_path: Path,
) -> None:
    # `git switch` refuses a branch another worktree has checked out ("is already
    # used by worktree at …"): it was offered all the same
    folder = tmp_path / "project"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "start")
    _git(folder, "worktree", "add", "-q", str(tmp_path / "project-fix"), "-b", "fix")
    said = _resume(tmp_path, folder, "fix")
    assert "switch" not in said.replace("never switches", ""), said
    assert f"branch 'fix' is checked out in {tmp_path / 'project-fix'}" in said, said


def test_git_that_hangs_holds_resume_up_about_5_seconds_in_all(tmp_path: Path) -> None:
    """A network folder that does not answer: each git call waited its own 5 seconds
    (up to 15 in all), with the terminal's stdin open to a git that might ask."""
    import time

    folder = tmp_path / "project"
    folder.mkdir()
    fake = tmp_path / "fake-bin" / "git"
    fake.parent.mkdir()
    seen = tmp_path / "seen"
    # each call answers after 2 s: rev-parse fails, symbolic-ref names `main`, the
    # branch look-up would answer after 2 s more
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$(readlink /proc/self/fd/0) $GIT_TERMINAL_PROMPT" >> {seen}\n'
        "sleep 2\n"
        'case "$*" in *symbolic-ref*) echo main; exit 0;; *abbrev-ref*) exit 1;; esac\n'
        "sleep 5\n"
    )
    fake.chmod(0o755)
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder), branch="fix")
    claude = tmp_path / "bin" / "claude"
    claude.parent.mkdir()
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    env = {
        "PATH": f"{fake.parent}{os.pathsep}{claude.parent}{os.pathsep}"
        + os.environ["PATH"],
        "SESSDEX_SHELL": "bash",
    }
    start = time.monotonic()
    result = CliRunner().invoke(
        main, ["resume", SESSION, "--print", "--home", str(home)], env=env
    )
    took = time.monotonic() - start
    assert result.exit_code == 0, result.output
    assert took < 7, took
    assert all(line == "/dev/null 0" for line in seen.read_text().splitlines())


def test_the_branch_of_a_bare_repository_is_switched_to_from_its_worktree(
    tmp_path: Path,
) -> None:
    # a bare clone with worktrees (one a branch): for-each-ref names the bare folder
    # as where its HEAD's branch is, but no work tree has it and git switch takes it;
    # it was said checked out in the bare folder, no switch named
    source = tmp_path / "source"
    source.mkdir()
    _git(source, "init", "-q", "-b", "main")
    _git(source, "commit", "-q", "--allow-empty", "-m", "start")
    _git(source, "branch", "fix")
    bare = tmp_path / "repo.git"
    _git(tmp_path, "clone", "-q", "--bare", str(source), str(bare))
    folder = tmp_path / "fix tree"
    _git(bare, "worktree", "add", "-q", str(folder), "fix")
    said = _resume(tmp_path, folder, "main")
    assert "checked out in" not in said, said
    assert f"To go on with it there: `git -C '{folder}' switch main`" in said, said


def test_a_worktree_whose_folder_name_holds_a_newline_is_named_whole(
    tmp_path: Path,
) -> None:
    # git's listing of branches and their worktrees is a line each: the folder was cut
    # at its newline, another folder (`…/fix`) named
    folder = tmp_path / "project"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "start")
    _git(folder, "worktree", "add", "-q", str(tmp_path / "fix\ntree"), "-b", "fix")
    said = _resume(tmp_path, folder, "fix")
    assert f"branch 'fix' is checked out in {tmp_path / 'fix tree'}." in said, said


def test_the_refusal_piped_ends_the_switch_before_asking_for_yes(
    tmp_path: Path,
) -> None:
    """Run without a terminal, the refusal ran the pasted line into the next sentence:
    "…switch fix`  Use --yes to resume anyway.", with no full stop between them."""
    folder = tmp_path / "project"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "start")
    _git(folder, "branch", "fix")
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder), branch="fix")
    claude = tmp_path / "bin" / "claude"  # never run: resume stops before it
    claude.parent.mkdir()
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    env = {
        "PATH": f"{claude.parent}{os.pathsep}{os.environ['PATH']}",
        "SESSDEX_SHELL": "bash",
    }
    result = CliRunner().invoke(main, ["resume", SESSION, "--home", str(home)], env=env)
    assert result.exit_code == 1, result.output
    switch = f"`git -C {folder} switch fix`"
    assert f"{switch}. Use --yes to resume anyway." in result.stderr, result.stderr
