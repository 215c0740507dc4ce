"""Shell completion, as bash runs it: session ids from the index, app names."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home
from tests.helpers import write_claude_session

DEMO = str(api.demo_home().path)
CLAUDE_A = "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90"
CLAUDE_B = "a7c41d05-2b9e-4f3a-8c17-5e6d9b0a1f24"
CODEX = "019a7e21-5c3d-7b40-9e8f-2a1b3c4d5e6f"


def bash_completes(*words: str, cwd: Path | None = None) -> list[str]:
    """What bash offers for the last of `words`, through the script sessdex prints for it."""
    bash = shutil.which("bash")
    sessdex = Path(sys.executable).parent / "sessdex"
    if bash is None or not sessdex.is_file():
        pytest.skip("needs bash and the installed sessdex command")
    script = (
        'eval "$(_SESSDEX_COMPLETE=bash_source sessdex)"\n'
        'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))\n'
        "_sessdex_completion sessdex\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    # sessdex's own state: the test's (conftest), as for every command
    env = {**os.environ, "PATH": f"{sessdex.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [bash, "-c", script, "bash", "sessdex", *words],
        env=env, capture_output=True, text=True, timeout=60, check=True, cwd=cwd,
    )  # fmt: skip
    assert done.stderr == ""
    return done.stdout.split()


def test_bash_completes_a_session_id_from_its_first_characters() -> None:
    api.list_sessions(Home.at(DEMO))  # ids come from the index a command made
    assert bash_completes("show", "--home", DEMO, "3f") == [CLAUDE_A]
    assert bash_completes("resume", "--home", DEMO, "A7C") == [CLAUDE_B]
    # every session, newest first, when nothing is typed yet
    assert bash_completes("tree", "--home", DEMO, "") == [
        CODEX,
        CLAUDE_A,
        CLAUDE_B,
    ]
    assert bash_completes("export", "--home", DEMO, "zz") == []


def test_bash_completes_app_names() -> None:
    assert bash_completes("list", "--app", "co") == [
        "codex",
        "copilot",
        "continue",
        "codebuff",
    ]


def test_an_id_the_shell_would_misread_is_never_offered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plain = "c0c0c0c0-0000-4000-8000-000000000001"
    write_claude_session(home, plain, "/w/app", title="fine")
    hostile = "c0$(touch pwned)"
    write_claude_session(home, hostile, "/w/app", title="hostile")
    assert hostile in {row.id for row in api.list_sessions(Home.at(home)).rows}
    offered = bash_completes("show", "--home", str(home), "c0", cwd=tmp_path)
    assert offered == [plain]
    assert not (tmp_path / "pwned").exists()
    for option in ("--help", "-rf"):  # typed back, sessdex would read an option
        write_claude_session(home, option, "/w/app", title="an option")
    assert bash_completes("show", "--home", str(home), "", cwd=tmp_path) == [plain]


def test_zsh_completion_shows_each_sessions_app_and_title() -> None:
    sessdex = Path(sys.executable).parent / "sessdex"
    if not sessdex.is_file():
        pytest.skip("needs the installed sessdex command")
    api.list_sessions(Home.at(DEMO))  # ids come from the index a command made
    done = subprocess.run(
        [str(sessdex)],
        env={
            **os.environ,
            "_SESSDEX_COMPLETE": "zsh_complete",
            "COMP_WORDS": f"sessdex show --home {DEMO} 01",
            "COMP_CWORD": "4",
        },
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    kind, value, description = done.stdout.splitlines()[:3]
    assert (kind, value) == ("plain", CODEX)
    assert description.startswith("codex · ")
