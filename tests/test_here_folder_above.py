"""`list --here` in a folder below a project's: nothing is listed (the rule is this
folder or below it), but the line on stderr names the folder above that holds
sessions, and the command that lists them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import quick

from .helpers import settle, write_claude_session


def _list_here(
    home: Path, folder: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PWD"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sessdex",
            "list",
            "--here",
            *options,
            "--home",
            str(home),
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_list_here_below_a_project_names_the_folder_above(tmp_path: Path) -> None:
    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000001", str(project))
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000002", str(project))
    settle(home)
    # twice: the first run builds the index, the second may take the quick path
    for _ in range(2):
        done = _list_here(home, project / "src")
        assert done.returncode == 0, done.stderr
        assert done.stdout == ""  # the rule is kept: this folder or below it
        assert f"2 sessions are in {str(project)!r} above it" in done.stderr
        assert f"cd {project} && sessdex list --here --home {home}" in done.stderr


def test_list_here_stops_at_the_repository_root(tmp_path: Path) -> None:
    # sessions outside the repository the user is in are another project's
    outer = tmp_path / "code"
    repo = outer / "shop-api"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000003", str(outer))
    settle(home)
    done = _list_here(home, repo / "src")
    assert done.returncode == 0, done.stderr
    assert "above it" not in done.stderr
    assert "No session matches --here" in done.stderr


def test_the_quick_path_says_what_the_full_command_says(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000004", str(project))
    settle(home)
    expected = _list_here(home, project / "src").stderr.encode()
    assert b"1 session is in" in expected
    monkeypatch.chdir(project / "src")
    monkeypatch.delenv("PWD", raising=False)
    capsysbinary.readouterr()
    assert quick.answer("list", ["--here", "--home", str(home)])
    assert capsysbinary.readouterr() == (b"", expected)


def test_the_command_named_lists_just_the_sessions_it_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `find dir:FOLDER` matched `My Project2` too, and split `My Project` in two words
    monkeypatch.setenv("SHELL", "/bin/bash")  # the line is run by bash
    monkeypatch.delenv("SESSDEX_SHELL", raising=False)
    project = tmp_path / "My Project"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    for n in (1, 2):
        write_claude_session(
            home, f"3f2b9c1e-0000-4000-8000-00000000001{n}", str(project)
        )
    other = tmp_path / "My Project2"
    other.mkdir()
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000019", str(other))
    settle(home)
    for _ in range(2):  # the full command, then the quick path
        done = _list_here(home, project / "src")
        assert f"2 sessions are in {str(project)!r} above it" in done.stderr
        named = re.search(r"above it: (.)(.+)\1 lists them", done.stderr)
        assert named, done.stderr
        bin_folder = os.path.dirname(sys.executable)
        env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}
        listed = subprocess.run(
            ["bash", "-c", named.group(2)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert listed.count("3f2b9c1e") == 2, listed
        assert "000000000019" not in listed


def test_the_command_named_keeps_the_options_given(tmp_path: Path) -> None:
    # the full command dropped `--all --limit 5` (the quick path kept them): the line
    # named depended on whether the index was warm
    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000021", str(project))
    settle(home)
    for _ in range(2):  # the full command, then the quick path
        done = _list_here(home, project / "src", "--app", "claude", "--all", "-n", "5")
        assert done.returncode == 0, done.stderr
        assert (
            f"'cd {project} && sessdex list --app claude --here --all --limit 5"
            f" --home {home}' lists it" in done.stderr
        ), done.stderr


def test_the_command_named_keeps_json_when_a_person_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000022", str(project))
    settle(home)
    monkeypatch.chdir(project / "src")
    monkeypatch.delenv("PWD", raising=False)
    # a person at a terminal tried `--json`: the hint is said, and its command keeps it
    monkeypatch.setattr("sessdex.cli.sessions.stderr_is_terminal", lambda: True)
    done = CliRunner().invoke(main, ["list", "--here", "--json", "--home", str(home)])
    assert done.exit_code == 0, done.output
    assert done.stdout == "[]\n"
    assert f"sessdex list --here --json --home {home}' lists it" in done.stderr


def test_a_span_given_is_kept_and_counted(tmp_path: Path) -> None:
    # `--since 2020-01-01`: the folder above was not looked for at all ("'sessdex list' alone
    # shows them all", which drops both --here and the span)
    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000031", str(project))
    settle(home)
    for _ in range(2):  # the full command, then the quick path
        done = _list_here(home, project / "src", "--since", "2020-01-01")
        assert done.returncode == 0, done.stderr
        assert f"1 session is in {str(project)!r} above it" in done.stderr
        assert (
            f"'cd {project} && sessdex list --since 2020-01-01 --here --home {home}' lists it"
            in done.stderr
        ), done.stderr
    # none above within the span: no folder named, the line as before
    done = _list_here(home, project / "src", "--until", "2000-01-01")
    assert "above it" not in done.stderr
    assert "No session matches --until 2000-01-01 --here" in done.stderr


def test_a_folder_with_a_backslash_is_named_as_it_is(tmp_path: Path) -> None:
    # the folders were named as Python's repr writes them: every backslash doubled,
    # each of a Windows path's too ('C:\\Users\\me\\shop')
    project = tmp_path / "back\\slash"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000041", str(project))
    settle(home)
    for _ in range(2):  # the full command, then the quick path
        done = _list_here(home, project / "src")
        assert done.returncode == 0, done.stderr
        assert f"--here (in '{project / 'src'}')" in done.stderr, done.stderr
        assert f"1 session is in '{project}' above it" in done.stderr, done.stderr
        assert "\\\\" not in done.stderr


def test_a_limit_below_the_count_is_said_as_what_the_command_lists(
    tmp_path: Path,
) -> None:
    # `--limit 2` with 3 sessions above: the line said the command named "lists them",
    # where it lists 2 of the 3
    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    for n in (1, 2, 3):
        write_claude_session(
            home, f"3f2b9c1e-0000-4000-8000-00000000005{n}", str(project)
        )
    settle(home)
    for _ in range(2):  # the full command, then the quick path
        done = _list_here(home, project / "src", "-n", "2")
        assert done.returncode == 0, done.stderr
        assert f"3 sessions are in {str(project)!r} above it" in done.stderr
        assert (
            f"sessdex list --here --limit 2 --home {home}' lists the newest 2 of them."
            in done.stderr
        ), done.stderr
    # a limit that covers them all lists them all, as said before
    done = _list_here(home, project / "src", "-n", "3")
    assert f"--limit 3 --home {home}' lists them." in done.stderr, done.stderr
    done = _list_here(home, project / "src", "-n", "1")
    assert f"--limit 1 --home {home}' lists the newest of them." in done.stderr
