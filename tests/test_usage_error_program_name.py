"""click's own usage errors ("Usage: …", "Try '… --help'") name sessdex as it was run,
as sessdex's hints do: run as `.venv/bin/sessdex` or `python -m sessdex` with no
`sessdex` on PATH being this one, "Try 'sessdex --help'" was "command not found"."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "sessdex"


def _stderr(cwd: Path, home: Path, *argv: str) -> str:
    env = {"HOME": str(home), "PATH": os.defpath, "LANG": "C.UTF-8",
           "SESSDEX_HOME": str(home / ".state")}  # fmt: skip
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    return done.stderr


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_the_script_run_by_its_path_is_named_by_that_path(tmp_path: Path) -> None:
    root = SCRIPT.parent.parent.parent  # .venv/bin/sessdex, run from the clone
    program = os.path.relpath(SCRIPT, root)
    said = _stderr(root, tmp_path, program, "nosuch")
    assert f"Usage: {program} [OPTIONS] COMMAND [ARGS]..." in said, said
    assert f"Try '{program} --help' for help." in said, said
    said = _stderr(root, tmp_path, program, "list", "--bogus")
    assert f"Try '{program} list --help' for help." in said, said


def test_python_m_sessdex_is_named_by_that_python(tmp_path: Path) -> None:
    program = shlex.join([sys.executable, "-m", "sessdex"])
    said = _stderr(
        tmp_path, tmp_path, sys.executable, "-m", "sessdex", "list", "--bogus"
    )
    assert f"Usage: {program} list [OPTIONS]" in said, said
    assert f"Try '{program} list --help' for help." in said, said
    # the line it names runs: `--help` prints that usage
    helped = subprocess.run(
        [*shlex.split(program), "list", "--help"],
        env={"HOME": str(tmp_path), "PATH": os.defpath, "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
    )
    assert helped.returncode == 0 and f"Usage: {program} list" in helped.stdout


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
@pytest.mark.parametrize(
    ("shell", "registers"),
    [
        ("bash", "complete -o nosort -F _sessdex_completion sessdex\n"),
        ("zsh", "compdef _sessdex_completion sessdex\n"),
        ("fish", "complete --no-files --command sessdex "),
    ],
)
def test_a_completion_script_made_by_a_path_completes_sessdex(
    tmp_path: Path, shell: str, registers: str
) -> None:
    """`_SESSDEX_COMPLETE=bash_source ~/tools/.venv/bin/sessdex` in a shell's start-up
    file registers completion for `sessdex`, as before: which a shell also finds for any
    path ending in `/sessdex`. Named as the usage lines name it, it registered that path
    alone (`complete … /home/u/tools/.venv/bin/sessdex`): `sessdex <Tab>` offered nothing."""
    env = {"HOME": str(tmp_path), "PATH": os.defpath, "LANG": "C.UTF-8",
           "_SESSDEX_COMPLETE": f"{shell}_source"}  # fmt: skip
    done = subprocess.run(
        [str(SCRIPT)], env=env, capture_output=True, text=True, check=True
    )
    assert registers in done.stdout, done.stdout
    assert str(SCRIPT) not in done.stdout


def test_click_without_its_private_name_detection_still_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """click's `_detect_program_name` is private: a click without it (renamed, taken
    out) gives the usage error still, where sessdex failed on every command with an
    ImportError."""
    import click.utils

    from sessdex.cli import run

    monkeypatch.delattr(click.utils, "_detect_program_name")
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "nosuch"])
    with pytest.raises(SystemExit) as ended:
        run()
    assert ended.value.code == 2
    assert "No such command 'nosuch'" in capsys.readouterr().err


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_a_path_with_a_space_is_quoted_for_a_shell_sessdex_does_not_know(
    tmp_path: Path,
) -> None:
    """Where SESSDEX_SHELL names a shell sessdex does not know, the usage lines quote
    sessdex's path as sh does, as the hints do ('"/x/my tools/sessdex" demo'); they
    named it bare, two words to any shell."""
    spaced = tmp_path / "my tools" / "sessdex"
    spaced.parent.mkdir()
    shutil.copy(SCRIPT, spaced)
    for shell in ("bash", "tcsh"):
        env = {"HOME": str(tmp_path), "PATH": os.defpath, "LANG": "C.UTF-8",
               "SHELL": "/bin/bash", "SESSDEX_SHELL": shell}  # fmt: skip
        done = subprocess.run(
            [str(spaced), "nosuch"], env=env, capture_output=True, text=True
        )
        assert done.returncode == 2, done.stderr
        said = f"Usage: {shlex.quote(str(spaced))} [OPTIONS]"
        assert said in done.stderr, (shell, done.stderr)


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no sessdex script beside python")
def test_a_quoted_path_runs_after_powershells_call_operator(tmp_path: Path) -> None:
    """PowerShell reads a quoted path alone as a string, not a program to run: the
    usage lines put its call operator before it (`& '…'`), as the hints do."""
    spaced = tmp_path / "my tools" / "sessdex"
    spaced.parent.mkdir()
    shutil.copy(SCRIPT, spaced)
    env = {"HOME": str(tmp_path), "PATH": os.defpath, "LANG": "C.UTF-8",
           "SESSDEX_SHELL": "powershell"}  # fmt: skip
    done = subprocess.run(
        [str(spaced), "list", "--bogus"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2, done.stderr
    assert f"Try '& '{spaced}' list --help' for help." in done.stderr, done.stderr
