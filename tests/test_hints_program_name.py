"""The commands a hint names run as printed: after the README's quick start
(`.venv/bin/sessdex list`, no virtualenv active) they name sessdex as it was run, as
the demo's lines do, where `sessdex` on PATH is not this program."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "sessdex"


def _stderr(cwd: Path, program: str, path: str, home: Path, *args: str) -> str:
    env = {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8",
           "SESSDEX_HOME": str(home / ".state")}  # fmt: skip
    done = subprocess.run(
        [program, *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_an_empty_homes_hint_names_sessdex_as_it_was_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    root = SCRIPT.parent.parent.parent  # .venv/bin/sessdex, run from the clone
    program = os.path.relpath(SCRIPT, root)
    said = _stderr(root, program, os.defpath, home, "list")
    assert f"'{program} demo' shows what sessdex does" in said, said
    assert f"'{program} doctor' shows where it looked" in said, said
    assert "'sessdex " not in said


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_it_says_sessdex_where_that_is_the_program_on_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = f"{SCRIPT.parent}{os.pathsep}{os.defpath}"
    said = _stderr(tmp_path, str(SCRIPT), path, home, "list")
    assert "'sessdex demo' shows what sessdex does" in said, said
    assert "'sessdex doctor' shows where it looked" in said, said


def _on_a_terminal(cwd: Path, program: str, home: Path, *args: str) -> str:
    """What a 20-column terminal shows of sessdex's stderr, run as `program`."""
    import pty

    master, slave = pty.openpty()
    env = {"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8", "COLUMNS": "20",
           "TERM": "xterm", "SESSDEX_HOME": str(home / ".state")}  # fmt: skip
    try:
        subprocess.run([program, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=slave, stdin=subprocess.DEVNULL, timeout=60, check=True)  # fmt: skip
    finally:
        os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed: all read
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return seen.decode().replace("\r", "")


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_a_hint_broken_to_the_terminal_keeps_the_command_named_by_its_path_whole(
    tmp_path: Path,
) -> None:
    """A message broken to a narrow terminal keeps each command it names on one line,
    to copy whole; one naming sessdex by its path was broken inside, as prose is."""
    home = tmp_path / "home"
    home.mkdir()
    root = SCRIPT.parent.parent.parent
    program = os.path.relpath(SCRIPT, root)
    lines = _on_a_terminal(root, program, home, "list").splitlines()
    assert any(f"'{program} demo'" in line for line in lines), lines
    assert any(f"'{program} doctor'" in line for line in lines), lines


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_powershell_is_told_to_call_a_quoted_program(tmp_path: Path) -> None:
    """PowerShell reads a line that starts with a quoted path as a string, and the word
    after it as an error ("Unexpected token 'demo'"): a program named in quotes (a
    folder with a space in it) is run through its call operator, `&`."""
    home = tmp_path / "home"
    home.mkdir()
    spaced = tmp_path / "my tools"
    spaced.mkdir()
    (spaced / "sessdex").symlink_to(SCRIPT)
    env = {"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8",
           "SESSDEX_HOME": str(home / ".state"), "SESSDEX_SHELL": "powershell"}  # fmt: skip
    done = subprocess.run([str(spaced / "sessdex"), "list"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert f"\"& '{spaced}/sessdex' demo\" shows what" in done.stderr, done.stderr
    assert f"\"& '{spaced}/sessdex' doctor\" shows where" in done.stderr


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_a_command_to_run_in_another_folder_names_sessdex_from_the_root(
    tmp_path: Path,
) -> None:
    """`list --here` below a project names the `list --here` to run in the folder above;
    where the user's shell is one sessdex does not know (no `cd` line), it is said "run
    in that folder", and sessdex as run from here (`../../.venv/bin/sessdex`) would not
    be found there: it is named from `/`, as the `cd DIR && …` line names it."""
    from tests.helpers import settle, write_claude_session

    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000001", str(project))
    settle(home)
    program = os.path.relpath(SCRIPT, project / "src")
    env = {"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8",
           "SESSDEX_HOME": str(tmp_path / "state"), "SESSDEX_SHELL": "nosuch"}  # fmt: skip
    for _ in range(2):  # the full command, then the quick path
        done = subprocess.run([program, "list", "--here"], cwd=project / "src",
                              env=env, capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0 and done.stdout == "", done.stderr
        named = f"'{os.path.normpath(SCRIPT)} list --here', run in that folder"
        assert named in done.stderr, done.stderr


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_an_unknown_shell_is_told_sessdex_by_its_path_quoted_as_sh_quotes_it(
    tmp_path: Path,
) -> None:
    """Where `SESSDEX_SHELL` names a shell sessdex does not know, a command it names
    quotes a path with a space in it as sh would, and says so; it said the path bare
    (`'/x/my tools/sessdex demo'`, which runs `/x/my`) and "with that id" where the
    command held none."""
    home = tmp_path / "home"
    home.mkdir()
    spaced = tmp_path / "my tools"
    spaced.mkdir()
    (spaced / "sessdex").symlink_to(SCRIPT)
    env = {"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8",
           "SESSDEX_HOME": str(home / ".state"), "SESSDEX_SHELL": "nosuch"}  # fmt: skip
    sessdex = f"'{spaced}/sessdex'"
    done = subprocess.run([str(spaced / "sessdex"), "list"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True)  # fmt: skip
    told = "(quoted for sh: SESSDEX_SHELL names a shell sessdex does not know)"
    assert f'"{sessdex} demo" {told} shows what' in done.stderr, done.stderr
    assert "that id" not in done.stderr
    done = subprocess.run([str(spaced / "sessdex"), "find", "a;b", "--home", str(home)],
                          env=env, cwd=tmp_path, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    why = "(SESSDEX_SHELL names a shell sessdex does not know)"
    said = f'"{sessdex} demo" with the same --home {why} shows what'
    assert said in done.stderr, done.stderr


def test_python_m_sessdex_hints_name_the_interpreter_where_sessdex_is_not_on_path(
    tmp_path: Path,
) -> None:
    """Run as `python -m sessdex` with no sessdex on PATH, a hint's command names that
    python, as the demo's lines do: it said 'sessdex demo', "command not found"."""
    import shlex

    home = tmp_path / "home"
    home.mkdir()
    said = _stderr(tmp_path, sys.executable, os.defpath, home, "-m", "sessdex", "list")
    program = shlex.join([sys.executable, "-m", "sessdex"])
    assert f"'{program} demo' shows what sessdex does" in said, said
    assert f"'{program} doctor' shows where it looked" in said, said
    assert "'sessdex " not in said


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_python_m_sessdex_says_sessdex_where_path_names_its_folder_another_way(
    tmp_path: Path,
) -> None:
    """The folder of the `sessdex` beside python, on PATH by another name (a link to
    it, a `/` at its end, other letter case on Windows), is that folder: hints say
    `sessdex`. Compared as text, they named the python (`/x/python -m sessdex demo`)."""
    home = tmp_path / "home"
    home.mkdir()
    linked = tmp_path / "bin"
    linked.symlink_to(SCRIPT.parent)
    path = f"{linked}{os.pathsep}{os.defpath}"
    said = _stderr(tmp_path, sys.executable, path, home, "-m", "sessdex", "list")
    assert "'sessdex demo' shows what sessdex does" in said, said
