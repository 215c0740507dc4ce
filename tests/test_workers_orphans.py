"""A sessdex killed outright (SIGKILL, the OOM killer) mid-refresh leaves no worker behind.

The index's parse and `usage`'s reads run on forked worker processes that wait on a pipe
their parent feeds. Killed with SIGKILL, the parent never shut them down, and each worker
holds the pipe's other end itself: they waited for work forever, a copy of the parent's
memory each, until the user found and killed them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
    reason="workers are used on Linux with two cores or more",
)

# Each pool as its caller starts it, then a caller that stalls (a scan still listing)
# while the workers wait for more: the moment a SIGKILL finds them in.
INDEX_POOL = """
import time
from sessdex import indexparse

indexparse._busy_cores = lambda cores: 0  # workers however loaded the machine

def jobs():
    for n in range(indexparse.PARALLEL_FROM):
        yield ("claude", None, f"/nonexistent/{n}.jsonl", (0, 0, 0, ""))
    print("workers started", flush=True)
    time.sleep(120)

indexparse.parse_stream(jobs())
"""

USAGE_POOL = """
import time
from sessdex import usage

def progress(done, total):
    print("workers started", flush=True)
    time.sleep(120)

jobs = [usage._Job("claude", f"/nonexistent/{n}", "") for n in range(4)]
sizes = {job.path: usage.PARALLEL_BYTES for job in jobs}
for _ in usage._run(jobs, sizes, progress):
    pass
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


@pytest.mark.parametrize("script", [INDEX_POOL, USAGE_POOL], ids=["index", "usage"])
def test_workers_end_with_a_killed_parent(script: str) -> None:
    env = {**os.environ}
    env.pop("SESSDEX_DEBUG", None)  # it parses in the one process
    workers: list[int] = []
    with subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env
    ) as parent:
        try:
            assert parent.stdout is not None
            assert parent.stdout.readline() == "workers started\n"
            workers = _children(parent.pid)
            assert workers, "the pool started no worker"
            parent.send_signal(signal.SIGKILL)
            parent.wait(10)
            deadline = time.monotonic() + 10
            while any(map(_alive, workers)) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not [pid for pid in workers if _alive(pid)]
        finally:
            parent.kill()
            for pid in workers:  # what the failing case leaves, ended by the test
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)
