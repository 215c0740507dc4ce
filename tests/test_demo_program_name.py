"""`sessdex demo` prints each command to run as printed: after the README's quick start
(`.venv/bin/sessdex demo`, no virtualenv active) its `$ sessdex list --home …` lines
said "sessdex: command not found" when pasted. They name sessdex as it was run where
`sessdex` on PATH is not this program."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "sessdex"


def _demo(cwd: Path, program: str, path: str, home: Path) -> list[str]:
    """The `$ …` lines `program demo` prints, run in `cwd` with this PATH."""
    env = {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8"}
    done = subprocess.run(
        [program, "demo"], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return [x[2:] for x in done.stdout.splitlines() if x.startswith("$ ")]


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_the_demos_lines_run_as_printed_where_sessdex_is_not_on_path(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    root = SCRIPT.parent.parent.parent  # .venv/bin/sessdex, run from the clone
    program = os.path.relpath(SCRIPT, root)
    lines = _demo(root, program, os.defpath, home)
    assert lines and all(shlex.split(x)[0] == program for x in lines), lines
    listed = subprocess.run(
        shlex.split(lines[0]),
        cwd=root,
        env={"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
    )
    assert listed.returncode == 0, listed.stderr
    assert "3f2b9c1e" in listed.stdout


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_they_say_sessdex_where_that_is_the_program_on_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = f"{SCRIPT.parent}{os.pathsep}{os.defpath}"
    lines = _demo(tmp_path, str(SCRIPT), path, home)
    assert lines and all(x.startswith("sessdex ") for x in lines), lines


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_a_path_to_sessdex_holding_a_control_character_is_quoted_for_the_shell(
    tmp_path: Path,
) -> None:
    """The path it was run by is quoted for the user's shell, as every line to paste is:
    an escape in a folder's name was written raw (a colour, or worse, on the terminal),
    and the closing line put its quoted path inside quotes of its own."""
    home = tmp_path / "home"
    home.mkdir()
    folder = tmp_path / "my \x1b[31mtools"
    folder.mkdir()
    program = folder / "sessdex"
    program.write_bytes(SCRIPT.read_bytes())
    program.chmod(0o755)
    env = {"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8"}
    done = subprocess.run(
        [str(program), "demo"],
        env={**env, "SESSDEX_SHELL": "bash"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert "\x1b" not in done.stdout, done.stdout
    lines = [x[2:] for x in done.stdout.splitlines() if x.startswith("$ ")]
    listed = subprocess.run(
        ["bash", "-c", lines[0]], env=env, capture_output=True, text=True
    )
    assert listed.returncode == 0, listed.stderr
    assert "3f2b9c1e" in listed.stdout
    last = done.stdout.splitlines()[-1]
    assert f"run `{lines[0].split(' list ')[0]} list` for your own" in last, last


def test_python_m_sessdex_names_the_interpreter_where_sessdex_is_not_on_path(
    tmp_path: Path,
) -> None:
    # `python -m sessdex demo` with no sessdex on PATH said `$ sessdex list --home …`
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8"}
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "demo"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [x[2:] for x in done.stdout.splitlines() if x.startswith("$ ")]
    assert lines and all(
        shlex.split(x)[:3] == [sys.executable, "-m", "sessdex"] for x in lines
    ), lines
    listed = subprocess.run(
        shlex.split(lines[0]), cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert listed.returncode == 0, listed.stderr
    assert "3f2b9c1e" in listed.stdout


def test_a_windows_launcher_run_without_its_exe_is_named_where_another_is_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Windows the name it was run by comes without the launcher's `.exe` (no file
    has it): the demo said `sessdex`, the other program on PATH, as if this were it."""
    from sessdex.hints import _as_run

    ours, other = tmp_path / "venv" / "Scripts", tmp_path / "elsewhere"
    ours.mkdir(parents=True)
    other.mkdir()
    (ours / "sessdex.exe").write_bytes(b"this program")
    (other / "sessdex").write_bytes(b"another")
    (other / "sessdex").chmod(0o755)
    monkeypatch.setenv("PATH", str(other))
    monkeypatch.setattr(sys, "argv", [str(ours / "sessdex"), "demo"])
    assert _as_run() == [str(ours / "sessdex")]
    (other / "sessdex").unlink()
    os.link(ours / "sessdex.exe", other / "sessdex")  # the one on PATH is this one
    (other / "sessdex").chmod(0o755)
    assert _as_run() == ["sessdex"]
