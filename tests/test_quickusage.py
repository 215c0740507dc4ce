"""`sessdex usage --json` answered without click (`quickusage`) prints what the full
command prints, on stdout and stderr, cold and warm; what it does not take goes there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import quickusage, usage
from tests.conftest import DATA

ENTRY = """
import atexit, sys
loaded = sys.argv.pop(1)
atexit.register(lambda: open(loaded, "w").write(" ".join(sorted(sys.modules))))
sys.argv[0] = "sessdex"
from sessdex.launch import main
main()
"""


def _sessdex(
    tmp_path: Path, args: list[str], *, quick: bool
) -> tuple[bytes, bytes, set[str]]:
    """stdout, stderr and the modules loaded of `sessdex ARGS`, stderr a pipe."""
    env = dict(os.environ)
    env.pop("SESSDEX_NO_QUICK", None)
    if not quick:
        env["SESSDEX_NO_QUICK"] = "1"
        env["SESSDEX_HOME"] = str(tmp_path / "full-state")
    loaded = tmp_path / "loaded.txt"
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, str(loaded), *args],
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr, set(loaded.read_text().split())


def test_reports_are_the_usage_reports() -> None:
    assert quickusage.REPORTS == usage.REPORTS


@pytest.mark.parametrize(
    "args",
    [
        ["usage", "--json"],
        ["usage", "session", "--nl"],
        ["usage", "--app", "Claude", "model", "--json"],
        ["usage", "--json", "--since", "2020-01-01"],  # the full command's
    ],
)
def test_usage_json_is_the_full_commands_cold_and_warm(
    tmp_path: Path, args: list[str]
) -> None:
    """On homes whose files have lines to skip and a database that is none: the same
    warnings on stderr, then the same rows."""
    home = tmp_path / "home"
    for app in ("claude", "codex", "opencode"):
        shutil.copytree(DATA / app / "malformed/home", home, dirs_exist_ok=True)
    argv = [*args, "--home", str(home)]
    for run in ("cold", "warm"):  # each with its own index
        full = _sessdex(tmp_path, argv, quick=False)[:2]
        assert _sessdex(tmp_path, argv, quick=True)[:2] == full
        if run == "cold" and "--app" not in args:
            assert b"warning: skipped" in full[1]


def test_a_warm_usage_json_loads_no_click(tmp_path: Path) -> None:
    home = shutil.copytree(DATA / "claude/home", tmp_path / "home")
    argv = ["usage", "--json", "--home", str(home)]
    out, said, loaded = _sessdex(tmp_path, argv, quick=True)
    assert out.startswith(b'[{"key":') and said == b""
    assert "click" not in loaded
    assert "sessdex.api" not in loaded
    assert _sessdex(tmp_path, argv, quick=True)[:2] == (out, said)
    assert _sessdex(tmp_path, argv, quick=False)[:2] == (out, said)
    table = _sessdex(tmp_path, ["usage", "--home", str(home)], quick=True)
    assert "click" in table[2]  # a table: the full command's
