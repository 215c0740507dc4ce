"""Paths a home records for itself are untrusted: a Codex state db (copied, or written by
someone else) whose `rollout_path` names a file outside the app's folder, another app's
login, a named pipe or a device. sessdex reads none of them as a transcript."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import opened_files

DATA = Path(__file__).parent / "data"


@contextlib.contextmanager
def at_most(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise TimeoutError("the command waited on a pipe or a device")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _hostile_codex_home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The Codex fixture home, its state db given one thread per hostile rollout_path;
    the thread ids, by what their path names."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home, symlinks=True)
    outside = tmp_path / "etc" / "passwd"
    outside.parent.mkdir()
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    login = home / ".claude" / ".credentials.json"
    login.parent.mkdir()
    login.write_text('{"claudeAiOauth": {"accessToken": "secret"}}\n')
    codex_login = home / ".codex" / "auth.json"
    codex_login.write_text('{"OPENAI_API_KEY": "secret"}\n')
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    targets = {
        "a file outside the app's folder": str(outside),
        "another app's login": str(login),
        "the app's own login": str(codex_login),
        "a named pipe": str(pipe),
        "a device": "/dev/zero",
    }
    ids = {}
    with contextlib.closing(sqlite3.connect(home / ".codex" / "state_5.sqlite")) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(threads)")]
        template = db.execute("SELECT * FROM threads LIMIT 1").fetchone()
        for number, (what, target) in enumerate(targets.items()):
            row = dict(zip(columns, template, strict=True))
            row["id"] = f"019bffff-{number:04d}-7000-8000-0000000000{number:02d}"
            row["rollout_path"] = target
            row["title"] = f"hostile {number}"
            db.execute(
                f"INSERT INTO threads ({', '.join(columns)})"
                f" VALUES ({', '.join('?' * len(columns))})",
                [row[column] for column in columns],
            )
            ids[what] = row["id"]
        db.commit()
    return home, targets | {"ids": json.dumps(ids)}


def test_a_recorded_rollout_path_outside_the_app_is_never_opened(
    tmp_path: Path,
) -> None:
    home, targets = _hostile_codex_home(tmp_path)
    ids: dict[str, str] = json.loads(targets.pop("ids"))
    runner = CliRunner()
    with opened_files() as opened, at_most(120):
        for args in (("list", "--json"), ("usage", "--json"), ("doctor", "--deep")):
            runner.invoke(main, [*args, "--home", str(home)])
        for thread in ids.values():
            for args in (
                ("show", thread, "--json"),
                ("show", thread, "--tail", "2", "--no-pager"),
                ("tree", thread, "--json"),
                ("export", thread, "-f", "md"),
                ("usage", "session", "--explain", thread, "--json"),
                ("replay", thread, "--speed", "1000", "--duration", "1"),
                ("follow", thread, "--duration", "1"),
            ):
                result = runner.invoke(main, [*args, "--home", str(home)])
                assert "root:x:0:0" not in result.output
                assert "secret" not in result.output
    assert opened, "the audit hook saw the run's own reads"
    read = {what for what, path in targets.items() if os.path.realpath(path) in opened}
    assert read == set()


@pytest.mark.parametrize(
    "name", ["auth.json", "AUTH.JSON", ".credentials.json", "oauth_creds.json"]
)
def test_a_login_file_is_never_opened_by_its_recorded_path(
    name: str, tmp_path: Path
) -> None:
    """Whatever names it, not only a listing: a recorded path to a credential file (or
    a link to one under another name) is refused before it is opened."""
    from sessdex import files

    secret = tmp_path / name
    secret.write_text('{"token": "secret"}')
    link = tmp_path / "rollout-2026-01-01T00-00-00-0000aaaa.jsonl"
    link.symlink_to(secret)
    with opened_files() as opened:
        for path in (secret, link):
            with pytest.raises(OSError):
                files.open_regular(path).close()
    assert os.path.realpath(secret) not in opened
