"""`sessdex usage --json` answered without click (`quickusage`) prints what the full
command prints, on stdout and stderr, cold and warm; what it does not take goes there."""

from __future__ import annotations

import json
import os
import re
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
        ["usage", "--json", "--since", "2020-01-01"],
        ["usage"],  # the tables, their captions and notes
        ["usage", "session"],
        ["usage", "--app", "codex", "model"],
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
    # the price list's version is read from its start, beside the module
    assert "importlib.resources" not in loaded
    assert _sessdex(tmp_path, argv, quick=True)[:2] == (out, said)
    assert _sessdex(tmp_path, argv, quick=False)[:2] == (out, said)
    table = ["usage", "--home", str(home)]
    drawn, said, loaded = _sessdex(tmp_path, table, quick=True)
    assert "click" not in loaded and "sessdex.api" not in loaded
    assert "rich.tree" not in loaded and "sessdex.tree" not in loaded  # no tree drawn
    assert b"\xe2\x94\x82 Total " in drawn and said == b""
    assert _sessdex(tmp_path, table, quick=False)[:2] == (drawn, said)


@pytest.mark.parametrize("columns", [None, "80"])
def test_a_table_is_the_full_commands_narrow_and_on_an_empty_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    """The widths $COLUMNS asks for, and a home with nothing to count (said on stderr)."""
    if columns is not None:
        monkeypatch.setenv("COLUMNS", columns)
    full = DATA / "claude/home"
    empty = tmp_path / "empty"
    empty.mkdir()
    for home, report in ((full, "session"), (full, "daily"), (empty, "daily")):
        argv = ["usage", report, "--home", str(home)]
        out, said, loaded = _sessdex(tmp_path, argv, quick=True)
        assert "click" not in loaded
        assert (out, said) == _sessdex(tmp_path, argv, quick=False)[:2]
    assert out == b"" and said.startswith(b"No token usage found in the --home folder.")


_COUNTS = ("input", "output", "cache_write", "cache_read", "reasoning")


def test_the_totals_are_the_librarys_through_the_table_and_json(tmp_path: Path) -> None:
    """Every fixture app's home, each report: each token count the library totals is the
    sum of the JSON rows and the table's Total line (warm, on the quick path)."""
    from sessdex import api
    from sessdex.sources import Home
    from tests.conftest import merged_home

    home = merged_home(tmp_path / "home")
    for report in usage.REPORTS:
        total = api.usage_report(Home.at(home), report).total
        expected = [getattr(total, f"{name}_tokens") for name in _COUNTS]
        assert sum(expected) > 0
        argv = ["usage", report, "--home", str(home)]
        rows = json.loads(_sessdex(tmp_path, [*argv, "--json"], quick=True)[0])
        assert [sum(r[f"{n}_tokens"] for r in rows) for n in _COUNTS] == expected
        drawn = _sessdex(tmp_path, argv, quick=True)[0].decode()
        line = next(line for line in drawn.splitlines() if line.startswith("│ Total "))
        cells = [cell.strip().replace(",", "") for cell in line.split("│")]
        assert [int(cell) for cell in cells if cell.isdigit()] == expected, line


@pytest.mark.parametrize("stdout_too", [False, True], ids=["pipe", "terminal"])
def test_on_a_terminal_the_table_is_the_full_commands_without_click(
    tmp_path: Path, stdout_too: bool
) -> None:
    """A person's `sessdex usage`, stderr (and stdout) a terminal: the full command's
    table, colours, captions and notes, warm, drawn without loading click."""
    from tests.conftest import merged_home
    from tests.helpers import on_a_terminal

    home = merged_home(tmp_path / "home")
    argv = ["usage", "--home", str(home)]
    seen = []
    for quick in (True, False):
        env = {k: v for k, v in os.environ.items() if k != "SESSDEX_NO_QUICK"}
        env["SESSDEX_PROGRESS_AFTER"] = "600"  # however slow this machine is now
        if not quick:
            env |= {"SESSDEX_NO_QUICK": "1", "SESSDEX_HOME": str(tmp_path / "full")}
        on_a_terminal(argv, env)  # the index built
        result, terminal = on_a_terminal(argv, env, stdout_too=stdout_too)
        assert result.returncode == 0, terminal
        seen.append((result.stdout, terminal))
    assert seen[0] == seen[1]
    assert "note: no price for" in seen[0][1] and "Total" in str(seen[0])
    _, loaded = on_a_terminal(argv, {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    assert "sessdex.quickusage" in loaded
    assert not re.search(r"\|\s+click\s*$", loaded, re.M)
