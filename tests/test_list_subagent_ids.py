"""`list --all` prints a sub-agent's id far enough to tell it from its siblings: Qwen
Code's ids start with the sub-agent's type (`general-purpose-call_8f2b…`), so the 8
characters printed were `general-`, the same for every general-purpose sub-agent. Past
the type they go on for 8 more, warm and cold, and still name it to `show`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import app_home


def _sessdex(*args: str, state: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        env={**os.environ, "SESSDEX_HOME": str(state), "COLUMNS": "120"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_a_sub_agent_whose_id_starts_with_its_type_is_listed_past_it(
    tmp_path: Path,
) -> None:
    home = str(app_home("qwen").parent / "subagents" / "home")
    cold = _sessdex("list", "--all", "--home", home, state=tmp_path)
    warm = _sessdex("list", "--all", "--home", home, state=tmp_path)  # the quick path
    assert warm == cold
    (row,) = [line for line in cold.splitlines() if "↳" in line]
    printed = row.split()[1]
    assert printed == "general-purpose-call_8f2", row
    shown = _sessdex("show", printed, "--home", home, state=tmp_path)
    assert "qwen · general-purpose-call_8f2b1c9d0e" in shown
