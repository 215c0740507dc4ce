"""What an app's last scan said (where it looked, what its listings passed over) is kept
with the index: `list -v` and `doctor` of an app whose files and folders did not change
say it again without scanning it, word for word what a scan says."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, exports, sources
from sessdex.cli import main
from sessdex.errors import SessdexError
from sessdex.index import Index
from sessdex.sources import Home, Location
from tests.conftest import DATA, merged_home
from tests.helpers import write_claude_session

COMMANDS = (("list", "-v"), ("doctor",), ("doctor", "-v"), ("doctor", "--json"))


def _backdated(home: Path) -> Path:
    """`home`, every file and folder dated in 2023: no folder just written, which the
    index would not trust (it might change again within the same tick)."""
    for folder, _, names in os.walk(home):
        for name in [*names, "."]:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.utime(path, (1_700_000_000, 1_700_000_000))
    return home


def _fixtures(tmp_path: Path) -> Path:
    return merged_home(tmp_path / "home")


def _damaged(tmp_path: Path) -> Path:
    """Every app's malformed fixture files in one home."""
    home = tmp_path / "home"
    for malformed in sorted(DATA.glob("*/malformed/home")):
        shutil.copytree(malformed, home, dirs_exist_ok=True, symlinks=True)
    return home


def _passed_over(tmp_path: Path) -> Path:
    """A pipe, a broken link and a looping link among Claude Code's transcripts, and a
    pipe among Codex's: what a scan passes over, said by doctor and -v."""
    home = tmp_path / "home"
    sid = "77777777-aaaa-4aaa-8aaa-777777777777"
    path = write_claude_session(home, sid, "/w/odd")
    os.mkfifo(path.parent / "88888888-bbbb-4bbb-8bbb-888888888888.jsonl")
    os.symlink(tmp_path / "elsewhere.jsonl", path.parent / "gone.jsonl")
    os.symlink("loop", path.parent / "loop")
    sessions = home / ".codex" / "sessions" / "2026" / "11" / "20"
    sessions.mkdir(parents=True)
    os.mkfifo(sessions / "rollout-2026-11-20T10-00-00-pipe.jsonl")
    return home


def _sizeless(said: tuple[int, str, str]) -> tuple[int, str, str]:
    code, out, err = said
    return code, re.sub(r"(?m)^  index .*$", "  index", out), err


def _said(args: tuple[str, ...], home: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("make", [_fixtures, _damaged, _passed_over])
def test_list_verbose_and_doctor_say_unscanned_what_a_scan_says(
    make: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Warm (every app left as it was, unscanned), each command says word for word what
    it says where every app is scanned again; doctor says what it said cold too (a
    list's warnings of what a run read are said by the run that read it alone)."""
    home = _backdated(make(tmp_path))  # type: ignore[operator]
    for number, args in enumerate(COMMANDS):  # each in an index of its own, made anew
        monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / f"state-{number}"))
        cold = _said(args, home)
        warm = _said(args, home)
        with monkeypatch.context() as scanning:
            scanning.setattr(Index, "unchanged", lambda self, apps: set())
            assert _said(args, home) == warm, args
        if args[0] == "doctor":  # but for the index's size, which grows as it is used
            assert _sizeless(warm) == _sizeless(cold), args
            if "--json" not in args:
                assert ("passed over" in cold[1]) == (make is _passed_over)
        else:
            assert ("broken link" in warm[2]) == (make is _passed_over)


WARM = """
import sys
from click.testing import CliRunner
from sessdex import api, exports, sources
from sessdex.cli import main
from sessdex.errors import SessdexError
from sessdex.index import Index
from sessdex.sources import Home, Location
result = CliRunner().invoke(main, [*sys.argv[2:], "--home", sys.argv[1]])
assert result.exit_code == 0, result.output
sys.stderr.write(result.stderr)
print(" ".join(sorted(sys.modules)))
"""


def test_a_warm_list_verbose_loads_no_source(tmp_path: Path) -> None:
    """`list -v` where nothing changed loads no app's source (it loaded all 34 to scan
    them again), and still names what the scan passed over."""
    home = _backdated(_passed_over(tmp_path))
    env = dict(os.environ, SESSDEX_NO_QUICK="1", SESSDEX_HOME=str(tmp_path / "own"))
    runs = [
        subprocess.run(
            [sys.executable, "-c", WARM, str(home), "list", "-v"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        for _ in range(2)  # cold, then warm
    ]
    cold, warm = (set(done.stdout.split()) for done in runs)
    assert "sessdex.sources.opencode" in cold
    assert not {name for name in warm if name.startswith("sessdex.sources.")} - {
        "sessdex.sources",
        "sessdex.sources.base",
    }
    assert runs[0].stderr == runs[1].stderr
    assert "gone.jsonl:0: broken link" in runs[1].stderr


def _fields(location: Location) -> tuple[object, ...]:
    return tuple(
        getattr(location, field.name) for field in dataclasses.fields(Location)
    )


def test_every_apps_kept_location_is_the_one_its_source_says(tmp_path: Path) -> None:
    """What `export -o` checks its path against without loading the sources (the
    locations the last noted scans said) is, for every app, what its source's `locate`
    says: in a home read as it is, and in one whose variables send apps elsewhere;
    an app whose variables changed since is located by its source again."""
    path = _backdated(merged_home(tmp_path / "home"))
    elsewhere = tmp_path / "elsewhere"
    moved = {
        "CLAUDE_CONFIG_DIR": str(elsewhere / "claude"),
        "CODEX_HOME": str(elsewhere / "codex"),
        "XDG_DATA_HOME": str(elsewhere / "data"),
        "XDG_CONFIG_HOME": str(elsewhere / "config"),
    }
    for home in (Home.at(path), Home(path, moved)):
        api.list_sessions(home)
        index = Index(home)
        try:
            kept = index.kept_locations(sources.BUILTIN)
        finally:
            index.close()
        # the fields of every app's location (an app's own kind adds fields of its own)
        assert {app: _fields(found) for app, found in kept.items()} == {
            app: _fields(sources.get(app).locate(home)) for app in kept
        }
        assert set(kept) == set(sources.BUILTIN)
    changed = Home(path, {**moved, "CLAUDE_CONFIG_DIR": str(elsewhere / "other")})
    index = Index(Home(path, moved))
    try:
        index.home = changed  # the same index, read with the variable changed
        assert "claude" not in index.kept_locations(sources.BUILTIN)
        assert "codex" in index.kept_locations(sources.BUILTIN)
    finally:
        index.close()


def test_export_refuses_every_apps_folder_as_its_last_scan_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Into each app's own folder, located as its noted scan said (no source loaded),
    an export is refused, naming the app (or one before it that shares the folder: the
    editors' `~/.config/Code`); a folder a variable set since names is refused too (its
    app located again by its source)."""
    path = _backdated(merged_home(tmp_path / "home"))
    home = Home(path, {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    api.list_sessions(home)
    located = {app: sources.get(app).locate(home) for app in sources.BUILTIN}
    monkeypatch.setattr(Home, "current", classmethod(lambda cls: home))
    with monkeypatch.context() as unloaded:
        unloaded.setattr(sources, "get", lambda name: pytest.fail(f"{name} loaded"))
        for number, (app, location) in enumerate(located.items()):
            folder = (location.owned or (location.root,))[0]
            with pytest.raises(SessdexError) as refused:
                exports.refuse_agent_folder(home, str(folder / "export.md"))
            named = [
                title
                for title in map(sources.TITLES.get, sources.BUILTIN[: number + 1])
                if f"into {title}'s folder" in str(refused.value)
            ]
            assert named, (app, str(refused.value))
    moved = Home(path, {"CLAUDE_CONFIG_DIR": str(tmp_path / "moved")})
    (tmp_path / "moved").mkdir()
    with pytest.raises(SessdexError, match="Claude Code's folder"):
        exports.refuse_agent_folder(moved, str(tmp_path / "moved" / "export.md"))


def test_the_names_apps_keep_in_projects_are_those_their_sources_say() -> None:
    """`sources.IN_PROJECTS`, which `export -o` reads without loading the sources."""
    said = {
        app: tuple(getattr(sources.get(app), "IN_PROJECTS", ()))
        for app in sources.BUILTIN
    }
    assert {app: names for app, names in said.items() if names} == sources.IN_PROJECTS


def test_an_index_that_cannot_be_read_leaves_the_export_check_to_the_sources(
    tmp_path: Path,
) -> None:
    """A damaged index (its file overwritten) is no reason to let an export into an
    agent's folder, nor to fail otherwise: the sources say where the apps' folders are."""
    from sessdex.indexdb import index_file

    path = _backdated(merged_home(tmp_path / "home"))
    home = Home.at(path)
    api.list_sessions(home)
    index_file(home).write_bytes(b"not a database" * 100)
    with pytest.raises(SessdexError, match="Claude Code's folder"):
        exports.refuse_agent_folder(home, str(path / ".claude" / "export.md"))
    exports.refuse_agent_folder(home, str(tmp_path / "export.md"))  # elsewhere: fine
