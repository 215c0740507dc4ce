"""`sessdex usage --explain KEY` and `usage -v` answered without click (`quickusage`):
the same bytes as the full command (`SESSDEX_NO_QUICK=1`), text and JSON, what the read
met named by -v as the full command names it; a key the quick path cannot read goes to
the full command, which says what is wrong with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA
from tests.test_quickusage_options import DEMO, _every_app, _sessdex

# the command, noting whether the quick path answered it (a warning said loads the
# command line, so the modules loaded cannot tell)
NOTED = """
import sys
note = sys.argv.pop(1)
sys.argv[0] = "sessdex"
from sessdex import quickusage
answer = quickusage.answer
def noted(args):
    said = answer(args)
    open(note, "w").write(str(said))
    return said
quickusage.answer = noted
from sessdex.launch import main
main()
"""

ASKED = [
    ["--explain", "2026-11-28"],
    ["--explain=2026-11-28", "--json"],
    ["--explain", "2026-11-27"],  # a day with nothing counted: a line on stderr
    ["model", "--explain", "claude-sonnet-4-5", "--nl"],
    ["session", "--explain", "3f2b9c1e", "-n", "1"],  # at most 1 response listed
    ["daily", "-v"],
    ["session", "--verbose", "--json"],
    ["-v", "--explain", "2026-11-29", "--tz", "Europe/Paris"],
]

# keys and values the full command refuses, or finds no row for, in its own words
REFUSED = [
    ["--explain", "2026-11-31"],  # no calendar has it
    ["--explain", " "],
    # the last one, as click takes it
    ["--explain", "2026-11-28", "--explain", "2026-11-29"],
    ["model", "--explain", "no-such-model"],
    ["--explain"],
]


def _damaged(tmp_path: Path) -> Path:
    """Every app's malformed fixture files in one home: lines -v names."""
    home = tmp_path / "damaged"
    for malformed in sorted(DATA.glob("*/malformed/home")):
        shutil.copytree(malformed, home, dirs_exist_ok=True, symlinks=True)
    return home


def _answered(tmp_path: Path, argv: list[str]) -> bool:
    """Whether the quick path answered `sessdex ARGV` (the same state as `_sessdex`'s)."""
    env = dict(os.environ, SESSDEX_HOME=str(tmp_path / "quick-state"))
    env.pop("SESSDEX_NO_QUICK", None)
    note = tmp_path / "answered.txt"
    note.unlink(missing_ok=True)
    subprocess.run(
        [sys.executable, "-c", NOTED, str(note), *argv],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    return note.exists() and note.read_text() == "True"


@pytest.mark.parametrize("which", ["demo", "every app", "damaged"])
def test_explain_and_verbose_read_without_click_print_the_full_commands_bytes(
    tmp_path: Path, which: str
) -> None:
    home = {"demo": lambda: DEMO, "every app": lambda: _every_app(tmp_path)}.get(
        which, lambda: _damaged(tmp_path)
    )()
    for args in ASKED:
        argv = ["usage", *args, "--home", str(home)]
        status, out, said, loaded = _sessdex(tmp_path, argv, quick=True)
        # answered by the quick path; a key no row has here (another home's session)
        # is said by the full command
        assert _answered(tmp_path, argv) == (status == 0), args
        if which == "demo":  # nothing to warn of: no command line loaded to say it
            assert status == 0 and "click" not in loaded, args
        assert (status, out, said) == _sessdex(tmp_path, argv, quick=False)[:3], args
    if which == "damaged":  # -v named what the read met, as the full command does
        argv = ["usage", "-v", "--home", str(home)]
        said = _sessdex(tmp_path, argv, quick=True)[2]
        assert b"unreadable line:\n  " in said and b"see --verbose" not in said


def test_a_key_the_quick_path_cannot_use_is_said_by_the_full_command(
    tmp_path: Path,
) -> None:
    for args in REFUSED:
        argv = ["usage", *args, "--home", str(DEMO)]
        quick = _sessdex(tmp_path, argv, quick=True)
        assert quick[:3] == _sessdex(tmp_path, argv, quick=False)[:3], args
        assert quick[0] != 0 or args.count("--explain") == 2, args
