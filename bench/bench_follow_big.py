"""`follow -n 3 --duration 0` of one long Claude Code lead vs `show --tail 3` of it.

The lead is the real Claude Code 2.1.197 sub-agent session (shared/corpus/realcli) with
real turns repeated after it to `--mb` MB (parents chained, ids and times fresh per turn),
the index made first. Each command a fresh process: wall time and peak RSS, medians of
`--runs`; the pass cache is emptied before each run (a first `follow` of the file). A figure
that grows with `--mb` is what to look for. Usage:

    .venv/bin/python bench/bench_follow_big.py [--mb 1500] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared/corpus/realcli/claude-2.1.197/home/.claude/projects"
PROJECT = "-home-alex-code-shop-api"
LEAD = "82d9f90c-3f87-46b4-b09c-58027a5e630c"
TURNS_FROM = "a82be759-b0cd-4d2b-9219-abad61d191d4"  # a plain session: its second turn
MB = 1024 * 1024
# a uuid's last 8 digits and a mock id's are the turn's number: each turn's ids are new
_UUID = re.compile(rb'"(uuid|parentUuid)":"([0-9a-f-]{28})[0-9a-f]{8}"')
_IDS = re.compile(rb"(msg_mock|toolu_mock)[0-9a-f]{8}")
_STAMP = re.compile(rb'"timestamp":"[^"]+"')


def write_lead(home: Path, size: int) -> None:
    src, dst = REAL / PROJECT, home / ".claude/projects" / PROJECT
    dst.mkdir(parents=True)
    shutil.copytree(src / LEAD, dst / LEAD)
    lead = (src / f"{LEAD}.jsonl").read_bytes().splitlines()
    other = (src / f"{TURNS_FROM}.jsonl").read_bytes().splitlines()
    turn = [line.replace(TURNS_FROM.encode(), LEAD.encode()) for line in other[12:16]]
    parent = json.loads(lead[-2])["uuid"].encode()
    with open(dst / f"{LEAD}.jsonl", "wb") as out:
        out.write(b"\n".join(lead[:-1]) + b"\n")
        n = 0
        while out.tell() < size:
            n += 1
            suffix = b"%08x" % n
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1796026260 + n))
            for i, line in enumerate(turn):
                line = _UUID.sub(rb'"\g<1>":"\g<2>' + suffix + b'"', line)
                if i == 0:
                    line = re.sub(
                        rb'"parentUuid":"[^"]+"',
                        b'"parentUuid":"' + parent + b'"',
                        line,
                    )
                line = _IDS.sub(rb"\g<1>" + suffix, line)
                line = _STAMP.sub(b'"timestamp":"%s.000Z"' % stamp.encode(), line)
                out.write(line + b"\n")
            parent = _UUID.findall(turn[-1])[-1][1] + suffix
        out.write(lead[-1] + b"\n")


def measure(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one `sessdex` run."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "sessdex", *args],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _, status, usage = os.wait4(child.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, args
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1500)
    parser.add_argument("--runs", type=int, default=3)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sessdex-follow-big-") as tmp:
        home, cache = Path(tmp) / "home", Path(tmp) / "cache"
        write_lead(home, opts.mb * MB)
        env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        env["PYTHONPATH"] = str(ROOT / "src")
        measure(["list", "--home", str(home)], env)  # the index, apart
        commands = {
            "follow -n 3 --duration 0": ["follow", LEAD[:8], "-n", "3", "--duration", "0"],
            "show --tail 3": ["show", LEAD[:8], "--tail", "3", "--no-pager"],
        }  # fmt: skip
        print(f"a Claude Code lead of {opts.mb} MB, medians of {opts.runs}")
        for label, args in commands.items():
            runs = []
            for _ in range(opts.runs):
                shutil.rmtree(cache / "sessdex" / "passes", ignore_errors=True)
                runs.append(measure([*args, "--home", str(home)], env))
            wall = sorted(r[0] for r in runs)[len(runs) // 2]
            rss = sorted(r[1] for r in runs)[len(runs) // 2]
            print(f"  {label:28} {wall:7.2f} s  {rss:7.1f} MB peak RSS")


if __name__ == "__main__":
    main()
