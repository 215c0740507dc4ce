"""A folder of an app's home its user may not enter (left by `sudo`, a backup tool, a
`chmod` gone wrong) is said, never a traceback: every command still answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzzing import copy_home, homes

# root enters any folder: the commands run as nobody there, where setpriv can make them
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
pytestmark = pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None,
    reason="root enters any folder, and no setpriv to run as another user",
)


@pytest.fixture
def work() -> Iterator[Path]:
    """A folder the unprivileged user owns (pytest's tmp_path is root's alone: one in
    /tmp, which any user may pass through)."""
    below = "/tmp" if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="sessdex-denied-", dir=below))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path, _, _ in os.walk(folder):
            os.chmod(path, 0o755)
        shutil.rmtree(folder)


def _owned(folder: Path) -> None:
    if os.geteuid() != 0:
        return
    for path, names, files in os.walk(folder):
        for entry in [path, *(os.path.join(path, n) for n in names + files)]:
            os.lchown(entry, 65534, 65534)


def sessdex(work: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    prefix = AS_NOBODY if os.geteuid() == 0 else []
    return subprocess.run(
        [*prefix, sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        env={
            "PATH": os.environ["PATH"],
            "SESSDEX_HOME": str(work / "state"),
            "HOME": str(work),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_doctor_says_what_it_found_when_an_apps_folder_may_not_be_entered(
    work: Path,
) -> None:
    home = work / "home"
    copy_home(homes()["amp"], home)
    _owned(work)
    (home / ".cache").chmod(0)  # Amp's log folder is below it; its threads are not
    done = sessdex(work, home, "doctor", "--deep", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    amp = next(app for app in json.loads(done.stdout) if app["app"] == "amp")
    assert amp["sessions"] == 3  # those of its threads store, which may be entered
