"""A warm `list`/`find` and `usage` asked with an app's other name (`--app claude-code`,
`--app "Claude Code"`) are answered by the quick path, as with the app's own id: the
same bytes, without loading click."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA

ENTRY = """
import atexit, sys
loaded = sys.argv.pop(1)
atexit.register(lambda: open(loaded, "w").write(" ".join(sorted(sys.modules))))
sys.argv[0] = "sessdex"
from sessdex.launch import main
main()
"""


def _sessdex(tmp_path: Path, args: list[str]) -> tuple[int, bytes, set[str]]:
    """Status, stdout and the modules loaded of `sessdex ARGS`."""
    env = {k: v for k, v in os.environ.items() if k != "SESSDEX_NO_QUICK"}
    env["SESSDEX_HOME"] = str(tmp_path / "state")
    loaded = tmp_path / "loaded.txt"
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, str(loaded), *args],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    return done.returncode, done.stdout, set(loaded.read_text().split())


@pytest.mark.parametrize("command", [["list", "--json"], ["usage", "app", "--json"]])
@pytest.mark.parametrize("name", ["claude-code", "Claude Code", "CLAUDE"])
def test_an_apps_other_name_is_answered_by_the_quick_path(
    tmp_path: Path, command: list[str], name: str
) -> None:
    home = ["--home", str(DATA / "claude" / "home")]
    status, by_id, _ = _sessdex(tmp_path, [*command, "--app", "claude", *home])
    assert status == 0 and by_id.strip()
    _sessdex(tmp_path, [*command, "--app", "claude", *home])  # warm, by the app's id
    status, out, loaded = _sessdex(tmp_path, [*command, "--app", name, *home])
    assert (status, out) == (0, by_id)
    assert "click" not in loaded
