"""Folders a user may not enter (chmod 000, left by `sudo`, a backup tool or a `chmod`
gone wrong) are said, never a traceback, and never taken for folders that do not exist.

- An app's folder below one its user may not enter (chmod 000, left by `sudo` or a
  backup tool) hides the app's sessions there: `list` says which folder, every time (a
  warm list too), as it says a folder it may not open; before, they went missing unsaid.

- A folder of an app's home its user may not enter (left by `sudo`, a backup tool, a
  `chmod` gone wrong) is said, never a traceback: every command still answers.

- `watch` and `follow` where a folder of an app's home became one its user may not
  enter after the last list (`sudo`, a backup tool): the board still shows, no traceback
  (Python 3.11's Path.is_dir raises PermissionError below such a folder).

- A folder the user gave (`--home`, the folder of `export -o`) that is there but may not
  be entered (a folder above it chmod 000) is said so: it is not 'a folder that does not
  exist', which would send the user looking for a typo.

- `resume` of a session whose folder is below one its user may not enter says so: the
  folder is not gone, and the user can open it again (before, 'no longer exists').
"""

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
from tests.helpers import write_claude_session

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
        assert f"cline: could not open 1 folder, such as {closed}" in done.stderr
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


def test_resume_of_a_session_below_a_folder_that_may_not_be_entered_says_so(
    work: Path,
) -> None:
    home = work / "home"
    project = work / "closed" / "shop"
    project.mkdir(parents=True)
    session = "64646464-0000-4000-8000-000000000004"
    write_claude_session(home, session, str(project))
    give_to_user(work)
    (work / "closed").chmod(0)
    done = as_user(work, home, ["resume", session[:8], "--print"])
    assert "Traceback" not in done.stderr
    assert f"{project} may not be entered (permission denied)" in done.stderr
    assert "no longer exists" not in done.stderr


def test_a_folder_that_may_not_be_entered_is_said_once_not_with_folders_below_it(
    work: Path,
) -> None:
    """The folders an app would list below one that may not be entered (OpenCode's
    `storage/session`, `project`; in most homes not there at all) are not said as other
    folders it could not open: the user would look for folders that do not exist."""
    home = work / "home"
    copy_home(homes()["opencode"], home)
    give_to_user(work)
    closed = home / ".local" / "share" / "opencode"
    closed.chmod(0)
    done = as_user(work, home, ["list", "--json", "--all", "--verbose"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"opencode: could not open 1 folder, such as {closed}" in done.stderr
    assert f"{closed}/" not in done.stderr  # nothing below it named


def test_show_names_a_session_folder_that_may_not_be_entered(work: Path) -> None:
    """`show` of a Copilot CLI session whose `session-state/<id>` folder is chmod 000
    names that folder, as `list -v` does: it said "no session id starts with" alone."""
    home = work / "home"
    copy_home(homes()["copilot"], home)
    give_to_user(work)
    closed = (
        home / ".copilot" / "session-state" / "52ee9297-7cb3-468f-8ca4-46f6b927c8c7"
    )
    closed.chmod(0)
    done = as_user(work, home, ["show", "52ee9297"])
    assert done.returncode == 1, done.stderr[-2000:]
    assert f"could not read {closed} (folder not readable)" in done.stderr, done.stderr


def test_show_names_a_refused_file_in_a_folder_named_after_the_session(
    work: Path,
) -> None:
    """`show` of a Copilot CLI session whose `events.jsonl` is chmod 000 names it, as a
    refused file named after its session is named: it said "no session id starts with"
    alone (the file's own name holds no id)."""
    home = work / "home"
    copy_home(homes()["copilot"], home)
    give_to_user(work)
    folder = (
        home / ".copilot" / "session-state" / "52ee9297-7cb3-468f-8ca4-46f6b927c8c7"
    )
    (folder / "events.jsonl").chmod(0)
    done = as_user(work, home, ["show", "52ee9297"])
    assert done.returncode == 1, done.stderr[-2000:]
    assert f"could not open {folder / 'events.jsonl'} (permission denied" in done.stderr
