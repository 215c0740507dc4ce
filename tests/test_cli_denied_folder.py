"""A folder the user gave (`--home`, the folder of `export -o`) that is there but may not
be entered (a folder above it chmod 000) is said so: it is not 'a folder that does not
exist', which would send the user looking for a typo."""

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


def test_home_below_a_folder_that_may_not_be_entered_is_said_so(work: Path) -> None:
    home = work / "closed" / "home"
    copy_home(homes()["claude"], home)
    give_to_user(work)
    (work / "closed").chmod(0)
    done = as_user(work, home, ["list"])
    assert done.returncode == 2
    assert "may not be entered" in done.stderr
    assert "does not exist" not in done.stderr


def test_export_into_a_folder_that_may_not_be_entered_is_said_so(work: Path) -> None:
    home = work / "home"
    copy_home(homes()["claude"], home)
    (work / "closed" / "notes").mkdir(parents=True)
    give_to_user(work)
    listed = as_user(work, home, ["list", "--json"])
    row = json.loads(listed.stdout)[0]
    (work / "closed").chmod(0)
    target = work / "closed" / "notes" / "session.md"
    done = as_user(
        work, home, ["export", f"{row['app']}:{row['id']}", "-o", str(target)]
    )
    assert done.returncode == 2
    assert "may not be entered" in done.stderr
    assert "does not exist" not in done.stderr
