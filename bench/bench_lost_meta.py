"""Listing Claude Code sub-agents whose meta files are lost, as a cold index build does.

Such a sub-agent's row names the sibling whose call it opens with, read from the
siblings' heads and tails. A home of --leads sessions, each with --spawners sub-agents
that each spawn --nested sub-agents (every file --lines lines of tool calls), is parsed
file by file in this process, each run with nothing kept: (a) every meta file kept;
(b0) the nested ones' meta files removed, the sibling look-up switched off (what sessdex
did before it); (b) the same with the look-up. Target: (b) at most 2 x (b0): one more
head and tail read of each file in a folder holding such a sub-agent. Then (c0), (c):
one session of --flat sub-agents, all without meta files, all the lead's, without and
with the look-up: (c) at most 2 x (c0) too (it once listed the folder again per file).
(d0), (d), (d1): a warm listing's one changed file, a sub-agent still writing without
its meta file, in a folder of --flat finished ones last written the day before, parsed
as a new process does (nothing kept): without the look-up, with it (only siblings
written since an hour before it started are read), and with every sibling read (what
sessdex did before); beside (s), a stat of every file in the folder, as the warm
listing's scan does anyway: (d) - (d0) at most 2 x (s). Medians of --runs.

    .venv/bin/python bench/bench_lost_meta.py [--leads 20] [--spawners 10] [--nested 4] [--flat 1000] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ms

RATIO = 2.0
PROJECT = "-home-dev-bench"


def line(
    agent: str | None, n: int, kind: str, content: object, start: int
) -> dict[str, object]:
    record: dict[str, object] = {
        "parentUuid": None if n == 0 else f"{agent}-{n - 1}",
        "isSidechain": agent is not None,
        "cwd": "/home/dev/bench",
        "sessionId": "s",
        "version": "2.1.197",
        "gitBranch": "main",
        "timestamp": f"2026-11-30T08:{(start + n) // 60 % 60:02d}:{(start + n) % 60:02d}Z",
        "uuid": f"{agent}-{n}",
        "type": kind,
        "message": {"role": kind, "content": content},
    }
    if agent is not None:
        record["agentId"] = agent
    if kind == "assistant":
        record["message"] |= {"id": f"m-{agent}-{n}", "model": "claude-sonnet-4-5"}  # type: ignore[operator]
    return record


def transcript(
    agent: str | None, task: str, spawns: list[str], lines: int, start: int
) -> str:
    """A lead (start 0), spawner (60) or nested sub-agent (120): each after its call."""
    out = [line(agent, 0, "user", task, start)]
    for n in range(1, lines):
        if n - 1 < len(spawns):
            spec = {"prompt": spawns[n - 1], "description": "d", "subagent_type": "x"}
            block = {"type": "tool_use", "id": f"c{n}", "name": "Agent", "input": spec}
        else:
            block = {"type": "tool_use", "id": f"b{n}", "name": "Bash", "input": {}}
            block["input"] = {"command": "echo " + "x" * 400}
        out.append(line(agent, n, "assistant", [block], start))
    return "".join(json.dumps(record) + "\n" for record in out)


def build(home: Path, args: argparse.Namespace, keep: bool) -> None:
    project = home / ".claude" / "projects" / PROJECT
    for lead in range(args.leads):
        session = f"00000000-0000-4000-8000-{lead:012d}"
        folder = project / session / "subagents"
        folder.mkdir(parents=True)
        tasks = [f"Task {lead}.{s}" for s in range(args.spawners)]
        (project / f"{session}.jsonl").write_text(
            transcript(None, "go", tasks, args.lines, 0)
        )
        for s, task in enumerate(tasks):
            spawner = f"a{lead:04d}{s:04d}0000"
            nested = [f"{task} part {k}" for k in range(args.nested)]
            write = folder / f"agent-{spawner}.jsonl"
            write.write_text(transcript(spawner, task, nested, args.lines, 60))
            meta = {"agentType": "x", "description": "d", "toolUseId": f"c{s + 1}"}
            (folder / f"agent-{spawner}.meta.json").write_text(json.dumps(meta))
            for k, asked in enumerate(nested):
                child = f"a{lead:04d}{s:04d}{k + 1:04d}"
                (folder / f"agent-{child}.jsonl").write_text(
                    transcript(child, asked, [], args.lines, 120)
                )
                if keep:
                    told = meta | {"toolUseId": f"c{k + 1}", "parentAgentId": spawner}
                    (folder / f"agent-{child}.meta.json").write_text(json.dumps(told))


def build_flat(home: Path, count: int, lines: int) -> None:
    """One session whose `count` sub-agents, the lead's, have no meta files."""
    project = home / ".claude" / "projects" / PROJECT
    session = "00000000-0000-4000-8000-000000000000"
    folder = project / session / "subagents"
    folder.mkdir(parents=True)
    tasks = [f"Task {k}" for k in range(count)]
    (project / f"{session}.jsonl").write_text(
        transcript(None, "go", tasks[:30], lines, 0)
    )
    for k, task in enumerate(tasks):
        child = f"a{k:016d}"
        text = transcript(child, task, [], lines, 120)
        (folder / f"agent-{child}.jsonl").write_text(text)


def build_live(home: Path, count: int, lines: int) -> Path:
    """(c)'s folder, its files last written the day before, and a spawner and its child
    written now, the child without a meta file: the child's path."""
    build_flat(home, count, lines)
    [folder] = home.glob(".claude/projects/*/*/subagents")
    day_before = datetime(2026, 11, 29, tzinfo=UTC).timestamp()
    for path in folder.iterdir():
        os.utime(path, (day_before, day_before))
    spawner, child = "s" + "0" * 16, "l" + "0" * 16
    text = transcript(spawner, "Task live", ["Live part"], lines, 60)
    (folder / f"agent-{spawner}.jsonl").write_text(text)
    meta = {"agentType": "x", "description": "d", "toolUseId": "c1"}
    (folder / f"agent-{spawner}.meta.json").write_text(json.dumps(meta))
    live = folder / f"agent-{child}.jsonl"
    live.write_text(transcript(child, "Live part", [], lines, 120))
    return live


def parsed_live(home: Path, live: Path, mode: str, repeat: int = 20) -> float:
    """Seconds to parse `live` as a new process does, `repeat` times: mode "off" (no
    look-up), "recent" (as now) or "all" (every sibling read, as before)."""
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import Home, _claude_spawns, claude

    location = claude.locate(Home.at(home))
    spawner, slack = _claude_spawns.spawner, _claude_spawns._SLACK_NS
    if mode == "off":
        _claude_spawns.spawner = lambda *_: None  # type: ignore[assignment]
    elif mode == "all":
        _claude_spawns._SLACK_NS = 1 << 80
    try:
        start = time.perf_counter()
        for _ in range(repeat):
            _claude_spawns._kept.clear()
            [row] = claude.parse(live, location, Diagnostics())
            assert mode == "off" or row.parent_id == "s" + "0" * 16  # its spawner
        return (time.perf_counter() - start) / repeat
    finally:
        _claude_spawns.spawner, _claude_spawns._SLACK_NS = spawner, slack


def stat_all(folder: Path, repeat: int = 20) -> float:
    """Seconds to stat every file in `folder`, as a warm listing's scan does."""
    start = time.perf_counter()
    for _ in range(repeat):
        for entry in os.scandir(folder):
            entry.stat()
    return (time.perf_counter() - start) / repeat


def parsed(home: Path, look_up: bool) -> tuple[float, int]:
    """(seconds, rows under a sub-agent) of parsing every transcript, nothing kept."""
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import Home, _claude_spawns, claude

    location = claude.locate(Home.at(home))
    paths = [Path(name) for name in claude.scan(location)]
    _claude_spawns._kept.clear()
    spawner = _claude_spawns.spawner
    if not look_up:
        _claude_spawns.spawner = lambda *_: None  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        rows = [s for p in paths for s in claude.parse(p, location, Diagnostics())]
        seconds = time.perf_counter() - start
    finally:
        _claude_spawns.spawner = spawner
    return seconds, sum(1 for row in rows if (row.parent_id or "")[:1] == "a")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leads", type=int, default=20)
    parser.add_argument("--spawners", type=int, default=10)
    parser.add_argument("--nested", type=int, default=4)
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--flat", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    timed: dict[str, list[float]] = {
        name: [] for name in ("a", "b0", "b", "c0", "c", "d0", "d", "d1", "s")
    }
    under: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-meta-") as temp:
        kept, lost = Path(temp) / "kept", Path(temp) / "lost"
        build(kept, args, keep=True)
        build(lost, args, keep=False)
        flat = Path(temp) / "flat"
        build_flat(flat, args.flat, args.lines)
        live_home = Path(temp) / "live"
        live = build_live(live_home, args.flat, args.lines)
        for _ in range(args.runs):  # interleaved: a busy machine slows all three alike
            for name, home, look_up in (("a", kept, True), ("b0", lost, False)):
                seconds, under[name] = parsed(home, look_up)
                timed[name].append(seconds)
            seconds, under["b"] = parsed(lost, True)
            timed["b"].append(seconds)
            for name, look_up in (("c0", False), ("c", True)):
                timed[name].append(parsed(flat, look_up)[0])
            for name, mode in (("d0", "off"), ("d", "recent"), ("d1", "all")):
                timed[name].append(parsed_live(live_home, live, mode))
            timed["s"].append(stat_all(live.parent))
    a, b0, b = (statistics.median(timed[name]) for name in ("a", "b0", "b"))
    files = args.leads * (1 + args.spawners * (1 + args.nested))
    lost_files = args.leads * args.spawners * args.nested
    print(
        f"{files} transcripts parsed, {lost_files} without their meta file in (b0), (b):"
    )
    print(f"(a)  every meta file kept:  {ms(a)}, {under['a']} under a sub-agent")
    print(f"(b0) lost, no look-up:      {ms(b0)}, {under['b0']} under a sub-agent")
    print(f"(b)  lost, with look-up:    {ms(b)}, {under['b']} under a sub-agent")
    print(f"ratio (b)/(b0) {b / b0:.2f} (target <= {RATIO}); (b)/(a) {b / a:.2f}")
    c0, c = (statistics.median(timed[name]) for name in ("c0", "c"))
    print(f"(c0) {args.flat} of the lead's, lost, no look-up: {ms(c0)}")
    print(f"(c)  the same with look-up:  {ms(c)}")
    print(f"ratio (c)/(c0) {c / c0:.2f} (target <= {RATIO})")
    d0, d, d1 = (statistics.median(timed[name]) for name in ("d0", "d", "d1"))
    s = statistics.median(timed["s"])
    print(f"(d0) one live sub-agent, lost, no look-up: {d0 * 1000:.2f} ms")
    print(f"(d)  the same, siblings written lately:   {d * 1000:.2f} ms")
    print(f"(d1) the same, every sibling read:         {d1 * 1000:.2f} ms")
    print(f"(s)  a stat of the folder's {args.flat + 2} files:  {s * 1000:.2f} ms")
    added, before = (d - d0) / s, (d1 - d0) / s
    print(f"ratio ((d)-(d0))/(s) {added:.2f} (target <= {RATIO}); before {before:.2f}")
    good = b / b0 <= RATIO and c / c0 <= RATIO and added <= RATIO
    return 0 if good and under["b"] == under["a"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
