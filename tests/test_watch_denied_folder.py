"""`watch` and `follow` where a folder of an app's home became one its user may not
enter after the last list (`sudo`, a backup tool): the board still shows, no traceback
(Python 3.11's Path.is_dir raises PermissionError below such a folder)."""

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


def _listed(work: Path, app: str) -> Path:
    """`app`'s fixture home, owned by the commands' user, listed once (a warm index)."""
    home = work / "home"
    copy_home(homes()[app], home)
    give_to_user(work)
    done = as_user(work, home, ["list", "--json", "--all"])
    assert done.returncode == 0 and json.loads(done.stdout), done.stderr[-2000:]
    return home


def test_watch_shows_the_board_when_an_apps_folder_may_no_longer_be_entered(
    work: Path,
) -> None:
    home = _listed(work, "antigravity")
    (home / ".config").chmod(0)  # the IDE's profiles, watched for new sessions
    done = as_user(
        work, home, ["watch", "--nl", "--duration", "0.5", "--since", "100y"]
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert [json.loads(line)["app"] for line in done.stdout.splitlines()]


def test_follow_streams_a_session_whose_sub_agents_folder_may_not_be_entered(
    work: Path,
) -> None:
    home = _listed(work, "claude")
    lead = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
    (home / ".claude/projects/-tmp" / lead).chmod(0)  # where its sub-agents' files are
    done = as_user(
        work, home, ["follow", f"claude:{lead}", "--duration", "0.5", "--nl"]
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert done.stdout.splitlines()  # the lead's events, read before the wait
