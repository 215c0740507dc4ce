"""An index sessdex may not keep in its cache folder (a read-only home, a container) is
kept in a folder of the user's own below the temporary folder, so the next run is warm:
it was built from nothing on every run. That folder is used only where it is the user's
alone (made 0700 by them, not a link, in a temporary folder others cannot move it out
of); anything else gets the old stand-in, removed at exit."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest

from sessdex import api, paths
from sessdex.sources import Home
from tests.helpers import counting_parse, write_claude_session
from tests.test_quick import settled

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid"), reason="a temporary folder is the user's own there"
)
SID = "bbbbbbbb-0000-4000-8000-0000000000f1"


def _blocked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Home, Path]:
    """(a home, the temporary folder) for runs whose cache folder cannot be made."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SESSDEX_HOME", str(blocker / "state"))
    temporary = tmp_path / "tmp"
    temporary.mkdir(mode=0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, SID, "/w/b")
    return home, temporary


def _run(home: Home, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids one run lists, as a new process would (nothing of the last run kept)."""
    for name in ("_fallback", "_private"):
        monkeypatch.setattr(paths, name, None, raising=False)
    return [row.id for row in api.list_sessions(home).rows]


def test_the_second_run_without_a_cache_folder_is_warm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    home, temporary = _blocked(tmp_path, monkeypatch)
    parsed = counting_parse(monkeypatch)
    with caplog.at_level("WARNING"):
        assert _run(home, monkeypatch) == [SID]
    assert len(parsed) == 1
    folder = temporary / f"sessdex-{os.geteuid()}"
    assert f"keeping it in {folder}" in caplog.text and "SESSDEX_HOME" in caplog.text
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert list(folder.glob("index-*.sqlite"))
    assert _run(home, monkeypatch) == [SID]
    assert len(parsed) == 1  # nothing read again
    # a session written since is read, and only that one
    write_claude_session(home.path, SID.replace("f1", "f2"), "/w/c")
    assert sorted(_run(home, monkeypatch)) == [SID, SID.replace("f1", "f2")]
    assert len(parsed) == 2


def _not_ours(folder: Path, how: str, tmp_path: Path) -> None:
    if how == "a link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        folder.symlink_to(tmp_path / "elsewhere")
    elif how == "open to others":
        folder.mkdir()
        folder.chmod(0o755)
    elif how == "another user's":
        folder.mkdir(mode=0o700)
        os.chown(folder, 65534, 65534)


@pytest.mark.parametrize("how", ["a link", "open to others", "another user's"])
def test_a_folder_that_is_not_the_users_alone_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "another user's" and os.geteuid() != 0:
        pytest.skip("only root can give a folder to another user")
    home, temporary = _blocked(tmp_path, monkeypatch)
    folder = temporary / f"sessdex-{os.geteuid()}"
    _not_ours(folder, how, tmp_path)
    parsed = counting_parse(monkeypatch)
    assert _run(home, monkeypatch) == [SID]
    assert _run(home, monkeypatch) == [SID]
    assert len(parsed) == 2  # built again, as before, in a stand-in of each run's own
    for where in (folder, tmp_path / "elsewhere"):
        assert not where.exists() or not list(where.iterdir()), where


def test_a_temporary_folder_others_may_replace_ours_in_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, temporary = _blocked(tmp_path, monkeypatch)
    temporary.chmod(0o777)  # writable by all, without the sticky bit /tmp has
    parsed = counting_parse(monkeypatch)
    _run(home, monkeypatch)
    _run(home, monkeypatch)
    assert len(parsed) == 2
    assert not (temporary / f"sessdex-{os.geteuid()}").exists()


def test_a_warm_listing_reads_the_index_kept_in_the_temporary_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """The runs after the first answer from the kept index on the quick path, as a
    writable cache's do (they took the full path: about 4 times the time), with the
    full command's warning, said once."""
    from sessdex import indexfile, quick

    home, temporary = _blocked(tmp_path, monkeypatch)
    monkeypatch.setenv("TMPDIR", str(temporary))  # what a new process would read
    monkeypatch.setattr(indexfile, "_kept_said", False, raising=False)
    settled(home.path)  # a folder changed just now is never trusted
    _run(home, monkeypatch)
    args = ["--json", "--home", str(home.path)]
    capsysbinary.readouterr()
    monkeypatch.setattr(indexfile, "_kept_said", False, raising=False)  # a new process
    assert quick.answer("list", args)
    out, err = capsysbinary.readouterr()
    assert [record["id"] for record in json.loads(out)] == [SID]
    folder = temporary / f"sessdex-{os.geteuid()}"
    assert err.decode().count(f"keeping it in {folder}") == 1
    # a live session grew: re-read into the kept index, the warning still said once
    session = next(home.path.glob(f".claude/projects/*/{SID}.jsonl"))
    with session.open("a") as file:
        file.write(session.read_text().splitlines()[-1] + "\n")
    monkeypatch.setattr(paths, "_fallback", None)  # a new process
    monkeypatch.setattr(paths, "_private", None)
    monkeypatch.setattr(indexfile, "_kept_said", False)
    assert quick.answer("list", args)
    out, err = capsysbinary.readouterr()
    assert [record["id"] for record in json.loads(out)] == [SID]
    assert err.decode().count(f"keeping it in {folder}") == 1


@pytest.mark.parametrize("how", ["a link", "open to others", "another user's"])
def test_a_warm_listing_never_reads_a_folder_that_is_not_the_users_alone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    how: str,
) -> None:
    """An index in a folder someone else could have placed there (a link to theirs, one
    they may write, one they own) is never answered from."""
    from sessdex import quick

    if how == "another user's" and os.geteuid() != 0:
        pytest.skip("only root can give a folder to another user")
    home, temporary = _blocked(tmp_path, monkeypatch)
    monkeypatch.setenv("TMPDIR", str(temporary))
    settled(home.path)
    _run(home, monkeypatch)
    folder = temporary / f"sessdex-{os.geteuid()}"
    kept = next(folder.glob("index-*.sqlite"))
    moved = tmp_path / "moved"
    folder.rename(moved)
    _not_ours(folder, how, tmp_path)
    target = tmp_path / "elsewhere" if how == "a link" else folder
    if how == "another user's":
        os.chown(folder, 0, 0)  # ours for a moment, to place the index
    (moved / kept.name).rename(target / kept.name)
    if how == "another user's":
        os.chown(folder, 65534, 65534)
    assert not quick.answer("list", ["--json", "--home", str(home.path)])
    assert capsysbinary.readouterr().out == b""


def test_a_new_process_answers_from_the_kept_index_without_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real entry point: the run after the first loads neither click nor
    any source, and prints what the full command prints."""
    import subprocess
    import sys

    home, temporary = _blocked(tmp_path, monkeypatch)
    settled(home.path)
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONWARNINGS": "ignore"}
    args = ["list", "--json", "--home", str(home.path)]
    full = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        capture_output=True,
        check=True,
        env={**env, "SESSDEX_NO_QUICK": "1"},
    )
    probe = (
        "import sys; from sessdex.launch import main; main(); sys.stderr.write("
        "'loaded: ' + ' '.join(sorted(m for m in sys.modules if m.startswith("
        "('sessdex.cli', 'click', 'sessdex.sources.')))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, check=True, env=env
    )
    assert done.stdout == full.stdout
    said = done.stderr.decode()
    assert said.count("keeping it in") == 1 and said.endswith("loaded: ")


def test_a_cache_folder_made_read_only_since_its_index_was_built_is_not_read(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A home read-only in a sandbox or container that sessdex ran in before: the
    index left in the cache folder is the one the full command no longer opens (it
    keeps its own below the temporary folder). The quick path read the old one, which
    it cannot bring up to date there: every `list` took the full path, without the
    warning the full command says."""
    from sessdex import indexfile, quick

    state = tmp_path / "state"
    monkeypatch.setenv("SESSDEX_HOME", str(state))
    temporary = tmp_path / "tmp"
    temporary.mkdir(mode=0o755)
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, SID, "/w/b")
    settled(home.path)
    assert _run(home, monkeypatch) == [SID]
    cache = state / "cache"
    assert list(cache.glob("index-*.sqlite"))  # built where it could be written
    cache.chmod(0o555)  # now read-only; root writes past a mode, as a mount would not
    real_access = os.access

    def access(path: object, mode: int, **kwargs: object) -> bool:
        if mode & os.W_OK and os.fspath(path) == str(cache):  # type: ignore[call-overload]
            return False
        return real_access(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    try:
        monkeypatch.setattr(indexfile, "_kept_said", False)
        assert _run(home, monkeypatch) == [SID]  # the full command: the kept index
        kept = temporary / f"sessdex-{os.geteuid()}"
        assert list(kept.glob("index-*.sqlite"))
        capsysbinary.readouterr()
        monkeypatch.setattr(indexfile, "_kept_said", False)  # a new process
        assert quick.answer("list", ["--json", "--home", str(home.path)])
        out, err = capsysbinary.readouterr()
        assert [record["id"] for record in json.loads(out)] == [SID]
        assert err.decode().count(f"keeping it in {kept}") == 1
    finally:
        cache.chmod(0o755)
