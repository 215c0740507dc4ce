"""What does `export -o` cost before it writes: its check that the file lands in no
agent's folder (`exports.refuse_agent_folder`)?

A copy of the Claude Code fixture home, listed once (its index warm), then `sessdex export
ID -o FILE --home COPY` run again and again, the user's own home having no index (a new
user's first export of a copied home): wall time and the number of `sessdex.sources`
modules imported (`-X importtime`), with bytecode and without (a fresh
PYTHONPYCACHEPREFIX each run: a first run after install, or a read-only install). Medians.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "claude" / "home"
SESSION = "82d9f90c"


def export(
    home: Path, state: Path, out: Path, cache: Path | None
) -> tuple[float, int, float]:
    """(seconds, sources modules imported, seconds importing all modules) of one export."""
    env = {**os.environ, "SESSDEX_HOME": str(state), "HOME": str(state / "own")}
    if cache is not None:
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    out.unlink(missing_ok=True)
    argv = [sys.executable, "-X", "importtime", "-m", "sessdex", "export", SESSION]
    start = time.perf_counter()
    done = subprocess.run(
        [*argv, "-o", str(out), "--home", str(home)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    lines = [
        line for line in done.stderr.splitlines() if line.startswith("import time:")
    ]
    loaded = sum("sessdex.sources." in line for line in lines)
    # each line: `import time: self [us] | cumulative | name`; the header's is no number
    importing = sum(int(f) for line in lines if (f := line[12:].split("|")[0].strip()).isdigit())  # fmt: skip
    return seconds, loaded, importing / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        home, state = tmp / "home", tmp / "state"
        shutil.copytree(FIXTURE, home, symlinks=True)
        (state / "own").mkdir(parents=True)
        env = {**os.environ, "SESSDEX_HOME": str(state), "HOME": str(state / "own")}
        subprocess.run([sys.executable, "-m", "sessdex", "list", "--home", str(home)],
                       env=env, capture_output=True, check=True)  # fmt: skip
        for label, fresh in (("with bytecode", False), ("without bytecode", True)):
            figures = []
            for n in range(runs):
                cache = tmp / f"pyc{n}" if fresh else None
                figures.append(export(home, state, tmp / "out.md", cache))
            seconds = statistics.median(s for s, _, _ in figures)
            loaded = statistics.median(m for _, m, _ in figures)
            importing = statistics.median(i for _, _, i in figures)
            print(
                f"{label:17} {seconds * 1000:7.0f} ms in all, {importing * 1000:6.0f} ms "
                f"importing, {loaded:3.0f} sources modules"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
