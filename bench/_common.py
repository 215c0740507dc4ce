"""Helpers shared by the bench scripts: run a process, time it, read its peak memory, report."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PYTHON = sys.executable  # run the scripts with the project's venv python
DEFAULT_CORPUS = Path("/tmp/sessdex-bench")


@dataclass
class Run:
    seconds: float  # wall time of the whole process
    first_output: float | None  # seconds until its first byte on stdout
    peak_rss: int  # bytes (ru_maxrss of this child alone)
    cpu: float  # user + system seconds of this child alone
    returncode: int
    stdout: bytes
    stderr: str
    system: float = 0.0  # seconds of `cpu` in the kernel (reads, stats, opens)
    disk_read: int = 0  # bytes read from disk, not the page cache (ru_inblock)


# Linux folds the memory high-water mark of the process that spawned a child into the
# child's ru_maxrss (it is kept across exec), so a child of this script would report at
# least this script's own RSS. A small intermediary (GNU time, else a bare Python
# launcher) spawns the command and reports that grandchild's figure instead.
_TIME = "/usr/bin/time"
_LAUNCHER = (
    "import os, subprocess, sys; p = subprocess.Popen(sys.argv[2:]); "
    "_, status, usage = os.wait4(p.pid, 0); "
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss)); "
    "sys.exit(os.waitstatus_to_exitcode(status))"
)


def run(
    argv: list[str],
    env: dict[str, str] | None = None,
    *,
    keep_stdout: bool = False,
    first_byte: bool = False,
    measure_rss: bool = False,
) -> Run:
    """Run `argv` to completion, timing it; with `measure_rss`, read its own peak RSS.

    Without `measure_rss`, `peak_rss` is only an upper bound (see `_TIME`).
    """
    rss_file = None
    if measure_rss:
        handle, rss_file = tempfile.mkstemp(suffix=".rss")
        os.close(handle)
        if os.access(_TIME, os.X_OK):
            argv = [_TIME, "-f", "%M", "-o", rss_file, *argv]
        else:
            argv = [PYTHON, "-c", _LAUNCHER, rss_file, *argv]
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE
            if (keep_stdout or first_byte)
            else subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
        first = None
        chunks: list[bytes] = []
        if process.stdout is not None:
            fd = process.stdout.fileno()
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                if first is None:
                    first = time.perf_counter() - started
                if keep_stdout:
                    chunks.append(chunk)
            process.stdout.close()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    peak = usage.ru_maxrss * 1024
    if rss_file is not None:
        with open(rss_file) as f:
            text = f.read().split()
        os.unlink(rss_file)
        peak = int(text[-1]) * 1024 if text and text[-1].isdigit() else 0
    return Run(
        seconds,
        first,
        peak,
        usage.ru_utime + usage.ru_stime,
        process.returncode,
        b"".join(chunks),
        stderr,
        usage.ru_stime,
        usage.ru_inblock * 512,
    )


def sessdex(*args: str) -> list[str]:
    return [PYTHON, "-m", "sessdex", *args]


def environment(state: Path | None = None) -> dict[str, str]:
    """The child's environment: its own sessdex state, and bytecode caching on.

    PYTHONDONTWRITEBYTECODE (set in some dev shells) would make every run compile sessdex
    from source, which an installed sessdex never does; compiled files go to a cache of
    their own so that nothing is written into the source tree.
    """
    env = dict(os.environ)
    if state is not None:
        env["SESSDEX_HOME"] = str(state)
    env.pop("SESSDEX_DEBUG", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(
        Path(tempfile.gettempdir()) / "sessdex-bench-pycache"
    )
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def median(values: list[float]) -> float:
    return statistics.median(values)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def mb(n: float) -> str:
    return f"{n / 1024 / 1024:.0f} MB"


class Report:
    """Collects figures and PASS/FAIL lines, printed as they come and summed up at the end."""

    def __init__(self) -> None:
        self.verdicts: list[tuple[str, bool | None, str]] = []
        self.note(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {load()}")

    def note(self, text: str) -> None:
        print(text, flush=True)

    def check(self, name: str, ok: bool | None, detail: str) -> None:
        word = {True: "PASS", False: "FAIL", None: "N/A "}[ok]
        self.verdicts.append((name, ok, detail))
        print(f"  {word}  {name}: {detail}", flush=True)

    def summary(self) -> int:
        print(f"\nsummary ({load()}; wall-clock figures are noisy on a busy machine)")
        for name, ok, detail in self.verdicts:
            word = {True: "PASS", False: "FAIL", None: "N/A "}[ok]
            print(f"  {word}  {name}: {detail}")
        return 0 if all(ok is not False for _, ok, _ in self.verdicts) else 1


def ensure_corpus(corpus: Path, sessions: int, seed: int = 1) -> dict:
    """The corpus's manifest, writing the corpus first if it is missing, a different size or an older layout."""
    import json

    from make_corpus import LAYOUT

    manifest = corpus / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_bytes())
        if (
            data.get("layout") == LAYOUT
            and data.get("top_level") == sessions
            and data.get("seed") == seed
            and "real_bytes" in data
        ):
            return data
    print(f"writing a {sessions}-session corpus to {corpus} ...", flush=True)
    subprocess.run(
        [
            PYTHON,
            str(HERE / "make_corpus.py"),
            str(corpus),
            "--sessions",
            str(sessions),
            "--seed",
            str(seed),
            "--force",
        ],
        check=True,
    )
    return json.loads(manifest.read_bytes())


def make_real(
    out: Path, megabytes: float, big_lines: int = 0, app: str = "claude"
) -> dict:
    import json

    subprocess.run(
        [
            PYTHON,
            str(HERE / "make_corpus.py"),
            str(out),
            "--real-bytes",
            str(megabytes),
            "--big-lines",
            str(big_lines),
            "--real-app",
            app,
            "--force",
        ],
        check=True,
    )
    return json.loads((out / "manifest.json").read_bytes())


def free_bytes(path: Path) -> int:
    path.mkdir(parents=True, exist_ok=True)
    return shutil.disk_usage(path).free


def last_line(text: str) -> str:
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1][:300] if lines else ""


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min)"
