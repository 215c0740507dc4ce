"""An app's folder below one its user may not enter (chmod 000, left by `sudo` or a
backup tool) hides the app's sessions there: `list` says which folder, every time (a
warm list too), as it says a folder it may not open; before, they went missing unsaid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzzing import (
    AS_NOBODY,
    as_user,
    can_deny,
    copy_home,
    denied_work,
    give_to_user,
    homes,
    remove_denied,
)

pytestmark = pytest.mark.skipif(
    not can_deny(),
    reason="root enters any folder, and no setpriv to run as another user",
)


@pytest.fixture
def work() -> Iterator[Path]:
    folder = denied_work()
    try:
        yield folder
    finally:
        remove_denied(folder)


def test_list_names_the_folder_above_an_apps_store_that_may_not_be_entered(
    work: Path,
) -> None:
    home = work / "home"
    copy_home(homes()["cline"], home)
    give_to_user(work)
    before = json.loads(as_user(work, home, ["list", "--json", "--all"]).stdout)
    closed = home / ".config" / "Code" / "User"  # above Cline's VS Code task store
    closed.chmod(0)
    for _ in range(2):  # the second one warm
        done = as_user(work, home, ["list", "--json", "--all"])
        assert done.returncode == 0, done.stderr[-2000:]
        assert len(json.loads(done.stdout)) < len(before)
        assert f"cline: could not open 1 folder(s), such as {closed}" in done.stderr
        assert "permission denied" in done.stderr


def test_a_link_into_a_folder_that_may_not_be_entered_names_that_folder(
    work: Path,
) -> None:
    (work / "closed" / "sub").mkdir(parents=True)
    (work / "closed" / "sub" / "chat.jsonl").write_text("{}\n")
    (work / "open").mkdir()
    (work / "open" / "chat.jsonl").symlink_to(work / "closed" / "sub" / "chat.jsonl")
    give_to_user(work)
    (work / "closed").chmod(0)
    probe = (
        "from sessdex import folders\n"
        f"print(folders.is_file({str(work / 'open' / 'chat.jsonl')!r}))\n"
        "print(folders.take_passed_over())\n"
    )
    prefix = AS_NOBODY if os.geteuid() == 0 else []
    done = subprocess.run(
        [*prefix, sys.executable, "-c", probe], capture_output=True, text=True
    )
    assert done.stdout.splitlines() == [
        "False",
        str([(str(work / "closed"), "folder not readable")]),
    ], done.stderr
