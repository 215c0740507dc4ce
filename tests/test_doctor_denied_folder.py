"""A folder of an app's home its user may not enter (left by `sudo`, a backup tool, a
`chmod` gone wrong) is said, never a traceback: every command still answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzzing import (
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


def test_doctor_says_what_it_found_when_an_apps_folder_may_not_be_entered(
    work: Path,
) -> None:
    home = work / "home"
    copy_home(homes()["amp"], home)
    give_to_user(work)
    (home / ".cache").chmod(0)  # Amp's log folder is below it; its threads are not
    done = as_user(work, home, ["doctor", "--deep", "--json"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    amp = next(app for app in json.loads(done.stdout) if app["app"] == "amp")
    assert amp["sessions"] == 3  # those of its threads store, which may be entered
