"""Small JSON files a session keeps beside its transcript (Roo's history_item.json, a Kimi
sub-agent's meta.json) that sessdex may not open: said refused, as a refused transcript is,
never counted as a broken line."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

ROO_TASK = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
ROO_ITEM = (
    ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/"
    f"{ROO_TASK}/history_item.json"
)
KIMI_CHILD_META = (
    ".kimi/sessions/83966a3838d499c6ec0c7147091f7d31/"
    "3f6c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f/subagents/"
    "a7c3e9f0-1b2c-4d5e-8f90-123456789abc/meta.json"
)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def refuse(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """The paths added to the set are refused as the kernel refuses another user's
    file (mode 000 alone would not stop root, who runs these tests in some places)."""
    shut: set[str] = set()
    opener = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        name = os.fspath(path)  # type: ignore[call-overload]
        if name in shut:
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)
    yield shut
    for name in shut:
        os.chmod(name, 0o644)


@pytest.mark.parametrize(("app", "aux"), [("roo", ROO_ITEM), ("kimi", KIMI_CHILD_META)])
def test_a_side_file_it_may_not_open_is_said_refused_not_a_broken_line(
    app: str, aux: str, tmp_path: Path, refuse: set[str]
) -> None:
    """`list --verbose` and `doctor` said such a file "skipped 1 unreadable line" and
    "<path>:1: not JSON", as if it were broken, where the file is whole and only shut."""
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    name = str(home / aux)
    os.chmod(name, 0)
    refuse.add(name)
    code, _, err = invoke("list", "--verbose", "--app", app, "--home", str(home))
    assert code == 0
    assert f"warning: {app}: could not open 1 file, such as {name}" in err
    assert f"  {app}: could not open {name} (permission denied)\n" in err
    assert "not JSON" not in err and "unreadable" not in err
    code, out, _ = invoke("doctor", "-v", "--app", app, "--home", str(home))
    assert code == 0
    assert (
        "1 permission denied" in out
        and f"could not open {name} (permission denied)" in out
    )
    assert "not JSON" not in out


def test_a_broken_side_file_is_still_said_not_json(tmp_path: Path) -> None:
    """The same file, readable and broken, is still counted as a line that is not JSON."""
    home = tmp_path / "home"
    shutil.copytree(app_home("roo"), home)
    (home / ROO_ITEM).write_text('{"title": "cut sh')
    code, _, err = invoke("list", "--verbose", "--app", "roo", "--home", str(home))
    assert code == 0
    assert f"  roo: {home / ROO_ITEM}:1: not JSON\n" in err
    assert "permission denied" not in err


def test_show_says_a_side_file_it_may_not_open_was_not_opened(
    tmp_path: Path, refuse: set[str]
) -> None:
    """`show` of a Roo task whose history_item.json is shut said "skipped 1 unreadable
    line", as of a transcript cut short: it names the file and why."""
    home = tmp_path / "home"
    shutil.copytree(app_home("roo"), home)
    name = str(home / ROO_ITEM)
    os.chmod(name, 0)
    refuse.add(name)
    for verbose in ((), ("--verbose",)):
        code, out, err = invoke(
            "show", f"roo:{ROO_TASK}", *verbose, "--home", str(home)
        )
        assert code == 0 and "Export implemented and tested." in out
        assert f"warning: roo: could not open {name} (permission denied)\n" in err
        assert "unreadable" not in err and err.count(name) == 1


def test_show_says_an_opencode_part_it_may_not_open_is_missing(
    tmp_path: Path, refuse: set[str]
) -> None:
    """OpenCode keeps each part of a message in its own file: one shut (another user's)
    left the user's prompt out of `show` without a word."""
    home = tmp_path / "home"
    shutil.copytree(app_home("opencode"), home)
    session = "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n"
    part = next(home.rglob(f"part/{session}/*/prt_75d0e3f40002Qa1Bc2De3Fg4Hi.json"))
    name = str(part)
    os.chmod(name, 0)
    refuse.add(name)
    code, out, err = invoke("show", f"opencode:{session}", "--home", str(home))
    assert code == 0 and "Renamed loadConfig to readConfig" in out
    assert "Rename loadConfig to readConfig in src/" not in out  # it was not read
    assert f"warning: opencode: could not open {name} (permission denied)\n" in err


VIBE_STORE = ".vibe/logs/session/unified/11e8c9f6-0261-4b81-c506-fc5d45ed7a3a"
VIBE_MANIFEST = f"{VIBE_STORE}/generations/0000000000000036/manifest.json"
VIBE_CHUNK = (
    f"{VIBE_STORE}/chunks/"
    "d9420a7155f3ec44b8ad7c0df6f1d838a2430bc9a7dbf6f1f679e464c689643b.json"
)


def test_a_vibe_store_file_it_may_not_open_is_said_refused(
    tmp_path: Path, refuse: set[str]
) -> None:
    """A Vibe session store's manifest or transcript chunk sessdex may not open was said
    "missing or broken" (`list`, `show`): it names the file and why, as a refused
    meta.json is named."""
    home = tmp_path / "home"
    shutil.copytree(app_home("vibe"), home)
    chunk = str(home / VIBE_CHUNK)
    refuse.add(chunk)
    code, _, err = invoke("show", "vibe:11e8c9f6", "--home", str(home))
    assert code == 0
    assert f"warning: vibe: could not open {chunk} (permission denied)\n" in err
    assert "missing or broken" not in err
    home = tmp_path / "other"  # a home not listed yet
    shutil.copytree(app_home("vibe"), home)
    manifest = str(home / VIBE_MANIFEST)
    refuse.add(manifest)
    code, _, err = invoke("list", "--app", "vibe", "--home", str(home))
    assert code == 0
    assert f"warning: vibe: could not open {manifest} (permission denied)\n" in err
    assert "missing or broken" not in err


@pytest.mark.parametrize(
    ("lead", "shut"),
    [
        (
            "11e8c9f6",
            ".vibe/logs/session/unified/child-d6d2c0b9d4b3f893638acbd9/CURRENT",
        ),
        (
            "fe38b8f5",
            ".vibe/logs/session/session_20261130_081129_fe38b8f5/agents/"
            "explore_20261130_081129_ad739610/meta.json",
        ),
    ],
)
def test_show_names_a_vibe_sub_agent_file_it_may_not_open(
    lead: str, shut: str, tmp_path: Path, refuse: set[str]
) -> None:
    """A Vibe sub-agent's store pointer (CURRENT) or meta.json sessdex may not open:
    `show` of its lead said "skipped 1 unreadable line" or "meta.json unreadable"."""
    home = tmp_path / "home"
    shutil.copytree(app_home("vibe"), home)
    name = str(home / shut)
    refuse.add(name)
    code, out, err = invoke("show", f"vibe:{lead}", "--home", str(home))
    assert code == 0 and out
    said = [line for line in err.splitlines() if name in line]
    assert len(said) == 1 and "permission denied" in said[0], err
    assert "unreadable" not in err
