"""Shared fixtures: a fake home made of every app's fixture tree, a fresh sessdex state dir.

No test ever reads the real home: `SESSDEX_HOME` points at a temporary folder and every
source is handed an explicit `Home`.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.sources import Home

DATA = Path(__file__).parent / "data"

# A run started in the background by a non-interactive shell (`nohup … &`, some CI
# runners) inherits SIGINT ignored, and so would every sessdex the tests start: the
# Ctrl-C tests would see nothing stop. Their processes get the terminal's default back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The sessdex tests start as `python -m sessdex` names itself `sessdex` in its hints
# where the `sessdex` beside that python is on PATH, as with its virtualenv active; run
# from `.venv/bin/python -m pytest` with none active, they named the interpreter instead
_BIN = os.path.dirname(sys.executable)
if os.path.isfile(os.path.join(_BIN, "sessdex")):
    os.environ["PATH"] = os.pathsep.join([_BIN, os.environ.get("PATH", "")])


def app_home(app: str) -> Path:
    """The fixture home of one app: tests/data/<app>/home."""
    return DATA / app / "home"


def merged_home(target: Path) -> Path:
    """Copy every app's fixture home into one folder, as a real home holds them all."""
    target.mkdir(parents=True, exist_ok=True)
    for home in sorted(DATA.glob("*/home")):
        shutil.copytree(home, target, dirs_exist_ok=True, symlinks=True)
    return target


@pytest.fixture(autouse=True)
def no_snapshot_outlives_its_test() -> Iterator[None]:
    """A database snapshot serves a process until it ends: each test starts anew, and
    one that watched (`keep_fresh`, which a process asks for once) leaves no pace behind."""
    from sessdex import databases

    # a process's own pace, set at the start too: a test that monkeypatches the pace
    # after a watch set it has it put back (to the watch's) once this fixture has ended
    pace = databases.FRESH_SECONDS = float("inf")
    yield
    databases.forget_snapshots()
    databases.FRESH_SECONDS = pace
    # the copies of login-holding databases went with the test's cache folder: none to
    # remove at the end of the session (from the user's own cache, by then)
    databases._logins.clear()
    databases._exit_root = None


@pytest.fixture(autouse=True)
def free_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every core counts as free, however loaded the machine running the tests: a big
    refresh parses on workers wherever there are two cores (`indexparse._busy_cores`)."""
    from sessdex import indexparse

    monkeypatch.setattr(indexparse, "_busy_cores", lambda cores: 0)


@pytest.fixture(autouse=True)
def no_fine_tick(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed within a fine clock's tick before a listing began (8 ms on Linux at
    250 Hz) is read again by the next (`freshness.racy`): a test that writes a home and
    lists it twice in one process would read it again or not as fast as the machine runs
    it. No such tick here but for the tests of that rule, which ask for `fine_tick`. (A
    `sessdex` run as a process of its own starts well past it.)"""
    if "fine_tick" not in request.fixturenames:
        from sessdex import freshness

        monkeypatch.setattr(freshness, "FINE_TICK_NS", 0)


@pytest.fixture
def fine_tick() -> int:
    """The fine clock's tick as sessdex holds it outside the tests (`no_fine_tick`)."""
    from sessdex import freshness

    return freshness.FINE_TICK_NS


@pytest.fixture(autouse=True)
def sessdex_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """sessdex's own cache/data go to a fresh folder; the user's real home is never read."""
    state = tmp_path_factory.mktemp("sessdex-state")
    monkeypatch.setenv("SESSDEX_HOME", str(state))
    # sessdex's temporary folders (and the index it keeps in one when it cannot write its
    # cache folder) go to this test's own, not the machine's, where each run left one
    monkeypatch.setenv("TMPDIR", str(tmp_path_factory.mktemp("tmp")))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read from TMPDIR again
    fake_user_home = tmp_path_factory.mktemp("empty-user-home")
    monkeypatch.setenv("HOME", str(fake_user_home))
    for name in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "CODEX_SQLITE_HOME",
        "VIBE_HOME",
        "GEMINI_CLI_HOME",
        "COPILOT_HOME",
        "PI_CODING_AGENT_DIR",
        "KIMI_SHARE_DIR",
        "CURSOR_CONFIG_DIR",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "PAGER",
        "FORCE_COLOR",  # colours even a pipe: the tests choose it where they need it
        "COLUMNS",
        "SESSDEX_SHELL",  # commands are printed for POSIX sh unless a test says,
        "SHELL",  # whichever shell the person running the tests logs in to
    ):
        monkeypatch.delenv(name, raising=False)
    from sessdex import sources

    for source in sources.all_sources():  # every override an app honours
        for name in source.ENV_VARS:
            if name != "HOME":  # some apps honour it; it stays the empty one set above
                monkeypatch.delenv(name, raising=False)
    return state


@pytest.fixture
def home(tmp_path: Path) -> Home:
    """A fake home holding every app's fixture sessions (a private copy per test)."""
    return Home.at(merged_home(tmp_path / "home"))


@pytest.fixture
def run() -> Iterator[CliRunner]:
    yield CliRunner()
