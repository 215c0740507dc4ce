"""Messages on a 40-column terminal: a line broken to its width keeps a quoted command
(a line to copy) whole, where a break inside it left a newline in what was pasted."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sessdex import api

from .helpers import on_a_terminal, write_claude_session

DEMO = str(api.demo_home().path)
COPILOT_FUSION = Path(__file__).parent / "data" / "copilot" / "fusion" / "home"


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["find", "zzzqqq"], "'sessdex list --home demo'"),
        (["show", "zzzqqqzz"], "'sessdex list --home demo'"),
        (["find", "chekout"], "('sessdex find checkout --home demo')"),
    ],
)
def test_a_not_found_message_keeps_its_command_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], hint: str
) -> None:
    """It was broken inside: "Run 'sessdex list --home" over "demo' to see recent
    ones."."""
    shutil.copytree(DEMO, tmp_path / "demo")
    monkeypatch.chdir(tmp_path)
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    result, shown = on_a_terminal([*args, "--home", "demo"], env, columns=40)
    assert result.returncode == (1 if args[0] == "show" else 0), shown
    lines = shown.replace("\r\n", "\n").splitlines()
    assert any(hint in line for line in lines), shown
    assert all(len(line) <= 40 for line in lines), shown


@pytest.mark.parametrize("columns", [40, 70])
def test_the_sessions_an_ambiguous_id_matches_take_a_line_each(
    tmp_path: Path, columns: int
) -> None:
    """At 40 columns each session an ambiguous id matched took four lines, its app, its
    id and its title each broken onto a line of its own ("  claude", "    7e57…",
    "   A fairly long…", "  on number 0"): it is one line, the title cut to the width
    the app and the whole id leave (none where they leave too little, and the id alone
    where the app leaves it no room)."""
    home = tmp_path / "home"
    ids = [f"7e57ca5e-{n}{n}{n}{n}-4000-8000-00000000abcd" for n in range(3)]
    for n, session_id in enumerate(ids):
        write_claude_session(home, session_id, f"/w/a{n}",
                             title=f"A fairly long title that goes on and on, number {n}")  # fmt: skip
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    result, shown = on_a_terminal(
        ["show", "7e57", "--home", str(home)], env, columns=columns
    )
    assert result.returncode == 1, shown
    lines = shown.replace("\r\n", "\n").splitlines()
    listed = lines[next(n for n, line in enumerate(lines) if line.startswith("  ")) :]
    assert len(listed) == 3, shown
    # at 40 columns the id alone fits (the count above names the app), at 70 a title too
    assert sorted(line.split()[-1 if columns == 40 else 1] for line in listed) == ids
    for line in listed:
        assert len(line) <= columns, shown
        if columns == 70:
            assert len(line) == 70 and line.endswith("…"), shown
            assert "A fairly long title" in line, shown


def test_a_usage_line_is_broken_only_at_its_spaces() -> None:
    """`usage`'s reports in its usage line were cut mid-word on a narrow terminal,
    "[daily|weekly|month" over "ly|session|project|model|app]", in its --help and above
    a usage error: the word is whole, on a line of its own."""
    reports = "[daily|weekly|monthly|session|project|model|app]"
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    for args in (["usage", "--help"], ["usage", "--by", "model"]):
        _, shown = on_a_terminal(args, env, stdout_too=True, columns=40)
        said = shown.replace("\r\n", "\n")
        assert f" usage [OPTIONS]\n  {reports}\n" in said, said


def test_a_hostile_record_type_of_quoted_sessdex_words_is_said_at_once(
    tmp_path: Path,
) -> None:
    """`show -v` names a record type it does not know as the file wrote it; one made of
    40,000 "'sessdex" words (360 KB: a command's first word, each, never closed) was
    looked through to the line's end from each of them: on a terminal the note took
    minutes (quadratic), where it takes a moment."""
    home = tmp_path / "home"
    shutil.copytree(COPILOT_FUSION, home)
    log = next(home.glob(".copilot/session-state/*/events.jsonl"))
    hostile = {"type": "'sessdex " * 40_000, "id": "x1", "parentId": None,
               "timestamp": "2026-12-01T09:05:00.000Z", "data": {}}  # fmt: skip
    with log.open("a") as out:
        out.write(json.dumps(hostile) + "\n")
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    result, shown = on_a_terminal(
        ["show", log.parent.name, "-v", "--home", str(home)], env, columns=80
    )
    assert result.returncode == 0, shown[-2000:]
    assert "record types not recognised: 'sessdex 'sessdex" in shown


COPILOT_PERMISSIONS = Path(__file__).parent / "data" / "copilot" / "permissions"
LOWERED = "1089e194-53fb-4162-a1e0-b23c6a23c1d2"  # its folder is gone here


def _lines(shown: str) -> list[str]:
    return shown.replace("\r\n", "\n").splitlines()


def test_a_resume_hints_line_is_never_broken_inside(tmp_path: Path) -> None:
    """At 60 columns the line a gone folder's hint offers (`copilot --resume <id>
    --model …`) was broken at its spaces: pasted, each half ran alone. The line where
    the project moved (`cd '<folder>' && copilot …`, wider than the terminal) too. Each
    is whole on one line now, in backticks; the prose around it is broken as before."""
    home = tmp_path / "home"
    shutil.copytree(COPILOT_PERMISSIONS / "home", home)
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600", "SESSDEX_SHELL": "sh"}
    args = ["resume", LOWERED[:8], "--print", "--home", str(home)]
    result, shown = on_a_terminal(args, env, columns=60)
    assert result.returncode == 1, shown
    line = f"copilot --resume {LOWERED} --model mock-model"
    assert any(line in each for each in _lines(shown)), shown
    home = (
        tmp_path / "moved"
    )  # another home: one the first run indexed may look settled
    shutil.copytree(COPILOT_PERMISSIONS / "home", home)
    args = ["resume", LOWERED[:8], "--print", "--home", str(home)]
    new = tmp_path / "a folder the project moved to" / "shop-api"
    new.mkdir(parents=True)
    state = home / ".copilot" / "session-state"
    later = "0f0f0f0f-0000-4000-8000-00000000000f"
    shutil.copytree(state / LOWERED, state / later)
    for name in ("events.jsonl", "workspace.yaml"):
        path = state / later / name
        text = path.read_text().replace(LOWERED, later)
        text = text.replace("/home/alex/code/shop-api", str(new))
        path.write_text(text.replace("2026-12-06", "2026-12-07"))
    result, shown = on_a_terminal(args, env, columns=60)
    assert result.returncode == 1, shown
    moved = f"cd '{new}' && {line}"
    assert any(moved in each for each in _lines(shown)), shown
    # on a line of its own: the prose before it is broken to the width as ever
    assert any(each.startswith(f"`{moved}`") for each in _lines(shown)), shown


def test_list_here_names_the_folder_aboves_command_whole(tmp_path: Path) -> None:
    """`list --here` below a project names `cd '<folder>' && sessdex list --here` to
    run: at 60 columns it was broken at its spaces (only a `sessdex …` line was kept
    whole), even where it fitted a line."""
    project = tmp_path / "shop"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "h"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000001", str(project))
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600", "SESSDEX_SHELL": "sh"}
    env.pop("PWD", None)
    cwd = os.getcwd()
    os.chdir(project / "src")
    try:
        result, shown = on_a_terminal(["list", "--here", "--home", str(home)], env, columns=60)  # fmt: skip
    finally:
        os.chdir(cwd)
    assert result.returncode == 0, shown
    command = f"cd {project} && sessdex list --here --home {home}"
    assert any(command in each for each in _lines(shown)), shown


def test_the_line_resume_runs_is_echoed_whole(tmp_path: Path) -> None:
    """`resume` echoes the line it runs (`$ cd '<folder>' && claude --resume …`) for
    the user to check, or copy: at 60 columns it was broken over three lines."""
    folder = tmp_path / "a rather long project folder name" / "shop"
    folder.mkdir(parents=True)
    home = tmp_path / "home"
    session = "7e7e7e7e-0000-4000-8000-000000000002"
    write_claude_session(home, session, str(folder))
    claude = tmp_path / "bin" / "claude"  # run in its place: exits at once
    claude.parent.mkdir()
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    env = {**os.environ, "SESSDEX_SHELL": "bash", "SESSDEX_PROGRESS_AFTER": "600",
           "PATH": f"{claude.parent}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    result, shown = on_a_terminal(["resume", session, "--home", str(home)], env, columns=60)  # fmt: skip
    assert result.returncode == 0, shown
    echoed = f"$ cd '{folder}' && claude --resume {session} --model "
    assert any(line.startswith(echoed) for line in _lines(shown)), shown


def test_a_stray_backtick_in_a_folder_joins_no_prose_to_the_line(
    tmp_path: Path,
) -> None:
    """A session's folder holding ' `' (`/code/shop `api`, said bare in the gone
    folder's hint) opened a "command" that ran to the pasted line's closing backtick:
    at 60 columns the hint took one line of 322 cells. The prose is broken to the
    width; the line to paste is whole."""
    home = tmp_path / "home"
    shutil.copytree(COPILOT_PERMISSIONS / "home", home)
    for path in (home / ".copilot" / "session-state" / LOWERED).iterdir():
        if path.is_file():
            text = path.read_text().replace(
                "/home/alex/code/shop-api", "/code/shop `api"
            )
            path.write_text(text)
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600", "SESSDEX_SHELL": "sh"}
    args = ["resume", LOWERED[:8], "--print", "--home", str(home)]
    result, shown = on_a_terminal(args, env, columns=60)
    assert result.returncode == 1, shown
    line = f"`copilot --resume {LOWERED} --model mock-model`"
    assert line in _lines(shown), shown
    # a word wider than the width (the copied home's path) runs on alone, as ever
    wide = [each for each in _lines(shown) if len(each) > 60 and " " in each.strip()]
    assert wide == [line], shown


def test_list_here_names_the_folder_aboves_powershell_line_whole(
    tmp_path: Path,
) -> None:
    """Under PowerShell the line is `Set-Location -LiteralPath '<folder>'; if ($?) {
    & sessdex list --here … }`: at 60 columns it was broken after `if ($?)`, where a
    `cd … && sessdex …` line is kept whole."""
    project = tmp_path / "shop"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "h"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000001", str(project))
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600", "SESSDEX_SHELL": "powershell"}
    env.pop("PWD", None)
    cwd = os.getcwd()
    os.chdir(project / "src")
    try:
        result, shown = on_a_terminal(["list", "--here", "--home", str(home)], env, columns=60)  # fmt: skip
    finally:
        os.chdir(cwd)
    assert result.returncode == 0, shown
    command = (
        f"Set-Location -LiteralPath '{project}'; if ($?) "
        f"{{ & sessdex list --here --home '{home}' }}"
    )
    assert any(command in each for each in _lines(shown)), shown
