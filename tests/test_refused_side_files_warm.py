"""A session's side file sessdex may not open (Roo's history_item.json, a Kimi sub-agent's
meta.json, a Vibe store's manifest, an OpenCode message file): a warm listing says what
the cold one said, and once the file opens (`chmod`), lists the session's full data,
though the session's main file never changed."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import quick
from sessdex.cli import main
from tests.conftest import app_home

SETTLED = 1_767_225_600  # 2026-01-01: a folder changed just now is never trusted

CASES = [
    pytest.param(
        "roo",
        ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/"
        "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b/history_item.json",
        "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
        ("cwd", "/home/alex/code/reports"),
        id="roo-history-item",
    ),
    pytest.param(
        "kimi",
        ".kimi/sessions/83966a3838d499c6ec0c7147091f7d31/"
        "3f6c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f/subagents/"
        "a7c3e9f0-1b2c-4d5e-8f90-123456789abc/meta.json",
        "a7c3e9f0-1b2c-4d5e-8f90-123456789abc",
        ("agent_type", "coder"),
        id="kimi-sub-agent-meta",
    ),
    pytest.param(
        "vibe",
        ".vibe/logs/session/unified/11e8c9f6-0261-4b81-c506-fc5d45ed7a3a/"
        "generations/0000000000000036/manifest.json",
        "11e8c9f6-0261-4b81-c506-fc5d45ed7a3a",
        ("id", "11e8c9f6-0261-4b81-c506-fc5d45ed7a3a"),  # the session is listed
        id="vibe-manifest",
    ),
    pytest.param(
        "opencode",
        ".local/share/opencode/project/global/storage/session/message/"
        "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n/msg_75d0e3f6a002Tn4Wp9LsXcJd3e.json",
        "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n",
        ("model", "claude-sonnet-4-20250514"),
        id="opencode-message",
    ),
]


@pytest.fixture
def refuse(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[set[str], list[str]]]:
    """The paths added to the set are refused as the kernel refuses another user's file
    (mode 000 alone would not stop root); each try to open one is listed."""
    shut: set[str] = set()
    tries: list[str] = []
    opener = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        name = os.fspath(path)  # type: ignore[call-overload]
        if name in shut:
            tries.append(name)
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)
    yield shut, tries
    for name in shut:
        os.chmod(name, 0o644)


def shut_home(app: str, side: str, tmp_path: Path, shut: set[str]) -> tuple[Path, str]:
    home = tmp_path / "home"
    shutil.copytree(app_home(app), home)
    for folder, _, _ in os.walk(home):
        os.utime(folder, (SETTLED, SETTLED))
    name = str(home / side)
    os.chmod(name, 0)
    shut.add(name)
    return home, name


def full_list(*args: str) -> tuple[list[dict[str, object]], list[str]]:
    """The full command's sessions and warnings."""
    result = CliRunner().invoke(main, ["list", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), warnings(result.stderr)


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


def value_of(rows: list[dict[str, object]], session: str, key: str) -> object:
    return next((row.get(key) for row in rows if row["id"] == session), None)


def opened(shut: set[str], name: str) -> None:
    """The user gives the file back (`chmod 644`, `sudo chown`): its change time moves."""
    shut.discard(name)
    os.chmod(name, 0o644)


@pytest.mark.parametrize(("app", "side", "session", "field"), CASES)
def test_the_full_command_says_it_again_and_reads_it_once_it_opens(
    app: str,
    side: str,
    session: str,
    field: tuple[str, str],
    tmp_path: Path,
    refuse: tuple[set[str], list[str]],
) -> None:
    """A second `list` (the index built) said nothing of the side file, and after a
    `chmod` kept listing the session as read without it, until its main file changed."""
    shut, _ = refuse
    home, name = shut_home(app, side, tmp_path, shut)
    args = ("--json", "--all", "--app", app, "--home", str(home))
    key, wanted = field
    rows, cold = full_list(*args)
    assert value_of(rows, session, key) != wanted
    assert any(name in line and "permission denied" in line for line in cold)
    rows, warm = full_list(*args)
    assert warm == cold and value_of(rows, session, key) != wanted
    opened(shut, name)
    rows, now = full_list(*args)
    assert value_of(rows, session, key) == wanted
    assert not any(name in line for line in now)


@pytest.mark.parametrize(("app", "side", "session", "field"), CASES)
def test_a_warm_list_says_it_from_the_index_and_reads_it_once_it_opens(
    app: str,
    side: str,
    session: str,
    field: tuple[str, str],
    tmp_path: Path,
    refuse: tuple[set[str], list[str]],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """The quick path (a warm `list`) answered without the side file's warning, and
    after a `chmod` without its data: only a change of the main file was looked for."""
    shut, tries = refuse
    home, name = shut_home(app, side, tmp_path, shut)
    args = ["--json", "--all", "--app", app, "--home", str(home)]
    key, wanted = field
    _, cold = full_list(*args)  # builds the index
    for _ in range(2):
        capsysbinary.readouterr()
        tries.clear()
        assert quick.answer("list", args)
        got = capsysbinary.readouterr()
        assert value_of(json.loads(got.out), session, key) != wanted
        assert warnings(got.err.decode()) == cold
        assert tries == []  # said from the index: the warm list stays as fast
    opened(shut, name)
    capsysbinary.readouterr()
    assert quick.answer("list", args)
    got = capsysbinary.readouterr()
    assert value_of(json.loads(got.out), session, key) == wanted
    assert name.encode() not in got.err
    # and it is listed as a fresh index of the same files lists it
    rows, _ = full_list(*args)
    assert json.loads(got.out) == rows


def test_a_warm_top_level_list_says_a_sub_agents_side_file_too(
    tmp_path: Path,
    refuse: tuple[set[str], list[str]],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A file that holds only a sub-agent is not looked at by a listing without --all:
    one whose side file was refused must be, to say it as the full command does."""
    app, side = "kimi", str(CASES[1].values[1])
    shut, _ = refuse
    home, name = shut_home(app, side, tmp_path, shut)
    args = ["--json", "--app", app, "--home", str(home)]
    _, cold = full_list(*args)
    assert any(name in line for line in cold)
    capsysbinary.readouterr()
    assert quick.answer("list", args)
    assert warnings(capsysbinary.readouterr().err.decode()) == cold


def test_a_side_file_its_reader_passed_over_in_silence_is_said(
    tmp_path: Path,
    refuse: tuple[set[str], list[str]],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """OpenCode reads a session's message files for its model and folder: one it may not
    open was passed over without a word, the session listed without them."""
    app, side = "opencode", str(CASES[3].values[1])
    shut, _ = refuse
    home, name = shut_home(app, side, tmp_path, shut)
    args = ["--json", "--app", app, "--home", str(home)]
    said = f"warning: {app}: could not open 1 file, such as {name} (permission denied)"
    for _ in range(2):  # cold, then warm
        _, cold = full_list(*args)
        assert any(line.startswith(said) for line in cold), cold
    capsysbinary.readouterr()
    assert quick.answer("list", args)
    assert warnings(capsysbinary.readouterr().err.decode()) == cold
    result = CliRunner().invoke(main, ["list", "-v", *args], catch_exceptions=False)
    assert f"  {app}: could not open {name} (permission denied)\n" in result.stderr


def test_a_side_file_under_a_shut_folder_is_read_again_once_the_folder_opens(
    tmp_path: Path,
) -> None:
    """A side file that cannot even be stat'ed (a folder above it shut) is noted as
    such: unchanged while it stays so, changed once it can be seen (`chmod` of the
    folder), so that the session's file is read again then."""
    from sessdex import freshness

    name = str(tmp_path / "shut" / "meta.json")
    wal = freshness.with_sides("", [name])
    noted = wal.partition(freshness.SIDE)[2]
    assert wal.startswith(freshness.SIDE) and freshness.sides_hold(noted)
    (tmp_path / "shut").mkdir()
    Path(name).write_text("{}")
    assert not freshness.sides_hold(noted)
    noted = freshness.with_sides("", [name]).partition(freshness.SIDE)[2]
    assert freshness.sides_hold(noted)
    os.utime(name, ns=(1, 1))  # its change time moves too
    assert not freshness.sides_hold(noted)
