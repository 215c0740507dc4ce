"""`sessdex usage` with --since, --until, --tz, --here and --limit answered without click
(`quickusage`): the same bytes as the full command, text and JSON; a value the quick
path cannot read goes to the full command, which says what is wrong with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex.sources import BUILTIN
from tests.conftest import DATA

DEMO = Path(__file__).parent.parent / "src/sessdex/demo/home"

ENTRY = """
import atexit, sys
loaded = sys.argv.pop(1)
atexit.register(lambda: open(loaded, "w").write(" ".join(sorted(sys.modules))))
sys.argv[0] = "sessdex"
from sessdex.launch import main
main()
"""

# what status bars and scripts ask, and each option the quick path reads
ASKED = [
    ["--since", "today", "--json"],
    ["daily", "--since", "7d"],
    ["--since=2026-11-01", "--until", "2026-11-30", "--tz", "Europe/Paris"],
    ["weekly", "--tz", "local", "--nl"],
    ["session", "--since", "2020-01-01"],  # a day named: the caption says its zone
    ["session", "-n", "2"],
    ["model", "--limit=1", "--json"],
    ["app", "--here"],  # the test's folder: nothing there, said on stderr
    ["--since", "3d", "--until", "1d", "--json"],
]

# values the full command refuses, with its own words and status
REFUSED = [
    ["--since", "soonish"],
    ["--tz", "Mars/Olympus"],
    ["--since", "2026-12-01", "--until", "2026-11-01"],
    ["-n", "3"],  # a daily report's rows are never cut
    ["session", "--limit", "-1"],
    ["session", "-n=3"],
    ["--since", " "],
    ["--until", "--json"],
    ["--since", "1d", "--since", "2d"],  # the last one, as click takes it
]


def _sessdex(
    tmp_path: Path, args: list[str], *, quick: bool
) -> tuple[int, bytes, bytes, set[str]]:
    """Status, stdout, stderr and the modules loaded of `sessdex ARGS`."""
    env = dict(os.environ)
    env.pop("SESSDEX_NO_QUICK", None)
    env["SESSDEX_HOME"] = str(tmp_path / ("quick-state" if quick else "full-state"))
    if not quick:
        env["SESSDEX_NO_QUICK"] = "1"
    loaded = tmp_path / "loaded.txt"
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, str(loaded), *args],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr, set(loaded.read_text().split())


def _every_app(tmp_path: Path) -> Path:
    home = tmp_path / "every-app"
    for app in BUILTIN:
        if (DATA / app / "home").is_dir():
            shutil.copytree(
                DATA / app / "home", home, dirs_exist_ok=True, symlinks=True
            )
    return home


@pytest.mark.parametrize("which", ["demo", "every app"])
def test_the_options_read_without_click_print_the_full_commands_bytes(
    tmp_path: Path, which: str
) -> None:
    home = DEMO if which == "demo" else _every_app(tmp_path)
    for args in ASKED:
        argv = ["usage", *args, "--home", str(home)]
        status, out, said, loaded = _sessdex(tmp_path, argv, quick=True)
        assert "click" not in loaded, args  # answered by the quick path
        assert "sessdex.api" not in loaded, args
        assert (status, out, said) == _sessdex(tmp_path, argv, quick=False)[:3], args
    assert status == 0 and out.startswith(b"[")


def test_a_value_the_quick_path_cannot_read_is_said_by_the_full_command(
    tmp_path: Path,
) -> None:
    for args in REFUSED:
        argv = ["usage", *args, "--home", str(DEMO)]
        quick = _sessdex(tmp_path, argv, quick=True)
        assert quick[:3] == _sessdex(tmp_path, argv, quick=False)[:3], args
        assert quick[0] == (0 if args[-2:] == ["--since", "2d"] else 2), args
        assert quick[1] == b"" or args[-2:] == ["--since", "2d"]
