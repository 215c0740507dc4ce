"""A session id is completed from the `--home` typed after it, as before it: the shell
sends the whole line, the cursor on the id (`sessdex show 3f<TAB> --home DIR`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home

DEMO = str(api.demo_home().path)
CLAUDE_A = "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90"


def completes(shell: str, line: str, cursor: int) -> str:
    """What sessdex answers a shell's request for the word at `cursor` of `line`."""
    sessdex = Path(sys.executable).parent / "sessdex"
    if not sessdex.is_file():
        pytest.skip("needs the installed sessdex command")
    env = {
        **os.environ,
        "_SESSDEX_COMPLETE": f"{shell}_complete",
        "COMP_WORDS": line,
        "COMP_CWORD": str(cursor),
    }
    done = subprocess.run(
        [str(sessdex)], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stderr == ""
    return done.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_an_id_is_completed_from_the_home_given_after_it(shell: str) -> None:
    api.list_sessions(Home.at(DEMO))  # ids come from the index a command made
    for line in (
        f"sessdex show 3f --home {DEMO}",
        f"sessdex show 3f --json --home={DEMO}",
        f"sessdex tree 3f -v --home {DEMO} --nl",
    ):
        assert CLAUDE_A in completes(shell, line, 2), line
    # a home before the id, as before
    assert CLAUDE_A in completes(shell, f"sessdex show --home {DEMO} 3f", 4)
