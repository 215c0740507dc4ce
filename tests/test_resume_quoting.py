"""`resume --print` lines pasted into the shell they were written for pass every word as it is."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session


def echo_program(folder: Path) -> Path:
    """A stand-in `claude` on PATH: prints the folder it runs in and its words."""
    program = folder / "claude"
    program.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        "print(json.dumps([os.getcwd(), *sys.argv[1:]]))\n"
    )
    program.chmod(0o755)
    return program


@pytest.mark.parametrize("session_id", ["=ls", "==x"])
def test_a_word_starting_with_an_equals_sign_reaches_the_cli_from_zsh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_id: str
) -> None:
    """zsh reads a bare `=ls` as the path of the `ls` command (`/usr/bin/ls`), or fails
    with "ls not found": the pasted line resumed another session, or none."""
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed")
    folder = tmp_path / "work"
    folder.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, session_id, str(folder), model="=opus")
    monkeypatch.setenv("SHELL", "/bin/zsh")
    monkeypatch.delenv("SESSDEX_SHELL", raising=False)
    result = CliRunner().invoke(
        main, ["resume", session_id, "--print", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    line = result.stdout.strip()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    echo_program(bin_dir)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    ran = subprocess.run(
        ["zsh", "-c", line], env=env, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0, ran.stderr
    where, *words = json.loads(ran.stdout)
    assert where == str(folder)
    assert words[:4] == ["--resume", session_id, "--model", "=opus"]


@pytest.mark.parametrize("folder", ["home", "my home"])
def test_a_sub_agents_refusal_names_its_lead_in_quotes_as_every_hint(
    tmp_path: Path, folder: str
) -> None:
    """The line naming the lead to resume stood bare at the end of the sentence
    (`…: sessdex resume claude:3333… --home DIR`), where every other hint puts a
    command in quotes; inside them, each word is quoted for the shell."""
    home = tmp_path / folder
    shutil.copytree(Path(__file__).parent / "data" / "claude" / "home", home)
    result = CliRunner().invoke(
        main, ["resume", "claude:a2d2d2d2", "--print", "--home", str(home)]
    )
    assert result.exit_code == 1
    told = result.stderr.rpartition("resume the session it ran under: ")[2].strip()
    mark, line, end = told[0], told[1:-2], told[-2:]
    assert mark in "'\"" and end == f"{mark}."
    lead = "claude:33333333-3333-4333-8333-333333333333"
    assert shlex.split(line) == ["sessdex", "resume", lead, "--print", "--home", str(home)]  # fmt: skip


def test_a_sub_agents_refusal_names_it_as_the_shell_takes_it(tmp_path: Path) -> None:
    """The refusal began with the sub-agent's id bare (`a1c1 $(touch pwned)x is a
    sub-agent's session`), a `$(…)` a file name gave it that ran if copied; it is
    quoted for the shell, as the lead's line after it is."""
    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "claude" / "home", home)
    agents = home / ".claude/projects/-home-dev-shop"
    agents /= "33333333-3333-4333-8333-333333333333/subagents"
    hostile = "a1c1 $(touch pwned)x"
    for suffix in (".jsonl", ".meta.json"):
        (agents / f"agent-a1c1c1c1c1c1c1c1c{suffix}").rename(
            agents / f"agent-{hostile}{suffix}"
        )
    result = CliRunner(env={"SESSDEX_SHELL": "bash"}).invoke(
        main, ["resume", "a1c1", "--print", "--home", str(home)]
    )
    assert result.exit_code == 1
    said = result.stderr.removeprefix("Error: ").partition(" is a sub-agent's")[0]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    pasted = subprocess.run(
        ["bash", "-c", f"printf %s {said}"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=True,
    )
    assert pasted.stdout == hostile, result.stderr
    assert list(scratch.iterdir()) == [], result.stderr
