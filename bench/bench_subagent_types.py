"""A warm `sessdex list --all` of a home where only a lead changed, its sub-agents typed
by the lead's calls (Claude Code sub-agents without meta files; Mistral Vibe 3's).

One Claude Code session whose --children sub-agents have no `.meta.json`: each takes its
type from the lead's Agent call whose prompt is its task; then (--app vibe) the Vibe 3
fixture's lead with --children copies of its sub-agent, each spawned in the lead's
journal. Timed, medians of --runs:
(a) a warm list with nothing changed; (b) a warm list after a line was appended to the
lead alone (no new call): what each turn of a live lead costs; (c) a cold list (a new
index). Target: (b) within 1.3 x of what it was before sub-agents were typed from the
lead's calls through the index (the lead's calls kept by the index, its sub-agents'
rows filled from them, none read again); the rows' types are checked, warm = cold.

    .venv/bin/python bench/bench_subagent_types.py [--children 200] [--runs 5] [--app vibe]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import environment, median, ms, run, sessdex

LEAD = "00000000-0000-4000-8000-000000000000"


def line(n: int, kind: str, content: object, agent: str | None = None) -> bytes:
    record: dict[str, object] = {
        "parentUuid": None if n == 0 else f"{agent}-{n - 1}",
        "isSidechain": agent is not None,
        "cwd": "/home/dev/bench",
        "sessionId": LEAD,
        "version": "2.0.50",
        "gitBranch": "main",
        "timestamp": f"2026-11-30T08:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "uuid": f"{agent}-{n}",
        "type": kind,
        "message": {"role": kind, "content": content},
    }
    if agent is not None:
        record["agentId"] = agent
    if kind == "assistant":
        record["message"] |= {"id": f"m-{agent}-{n}", "model": "claude-sonnet-4-5"}  # type: ignore[operator]
    return json.dumps(record).encode() + b"\n"


def build(home: Path, children: int) -> Path:
    project = home / ".claude" / "projects" / "-home-dev-bench"
    folder = project / LEAD / "subagents"
    folder.mkdir(parents=True)
    lead = [line(0, "user", "go")]
    for k in range(children):
        spec = {"prompt": f"Task {k}.", "description": f"Job {k}",
                "subagent_type": f"type-{k % 7}"}  # fmt: skip
        block = {"type": "tool_use", "id": f"c{k}", "name": "Task", "input": spec}
        lead.append(line(k + 1, "assistant", [block]))
        agent = f"a{k:016d}"
        told = [line(0, "user", f"Task {k}.", agent)]
        told += [line(n, "assistant", [{"type": "text", "text": "x" * 300}], agent)
                 for n in range(1, 20)]  # fmt: skip
        (folder / f"agent-{agent}.jsonl").write_bytes(b"".join(told))
    path = project / f"{LEAD}.jsonl"
    path.write_bytes(b"".join(lead))
    return path


VIBE = (
    Path(__file__).resolve().parent.parent
    / "tests/data/vibe/home/.vibe/logs/session/unified"
)
VIBE_LEAD = "11e8c9f6-0261-4b81-c506-fc5d45ed7a3a"
VIBE_CHILD = "child-d6d2c0b9d4b3f893638acbd9"


def vibe_line(child: str) -> bytes:
    """A journal record of the lead naming the spawn of `child`, as Vibe 3 writes one."""
    effect = {"type": "effect", "id": f"effect-{child}", "detail": {
        "kind": "subagent", "childSessionId": child, "toolName": "agents.spawn",
        "input": {"agent": "explore", "task": f"Task {child}."}}}  # fmt: skip
    delta = [{"op": "append_entry", "entry": effect}]
    record = {"type": "projection_delta", "payload": {"delta": delta}}
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def build_vibe(home: Path, children: int) -> Path:
    unified = home / ".vibe" / "logs" / "session" / "unified"
    shutil.copytree(VIBE / VIBE_LEAD, unified / VIBE_LEAD)
    journal = unified / VIBE_LEAD / "journal" / "0000000000000037.jsonl"
    lines = []
    for k in range(children):
        child = f"child-{k:024x}"
        target = unified / child
        shutil.copytree(VIBE / VIBE_CHILD, target)
        for path in target.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                path.write_bytes(data.replace(VIBE_CHILD.encode(), child.encode()))
        lines.append(vibe_line(child))
    journal.write_bytes(b"".join(lines))
    return journal


def typed(output: bytes) -> int:
    return sum(1 for row in json.loads(output) if row.get("agent_type"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--app", choices=("claude", "vibe"), default="claude")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        vibe = options.app == "vibe"
        lead = (build_vibe if vibe else build)(home, options.children)
        env = environment(Path(scratch) / "state")
        argv = [*sessdex("list", "--all", "--json"), "--home", str(home)]
        run(argv, env)  # the index and the bytecode cache built
        still, grown, cold = [], [], []
        cpu: dict[str, list[float]] = {"a": [], "b": [], "c": []}
        warm_typed = cold_typed = -1
        for n in range(options.runs):
            done = run(argv, env)
            still.append(done.seconds)
            cpu["a"].append(done.cpu)
            with open(lead, "ab") as out:
                grown_by = {
                    "type": "action_result",
                    "sequence": 1000 + n,
                    "payload": {},
                }
                turn = line(1000 + n, "assistant", [{"type": "text", "text": "on"}])
                out.write(json.dumps(grown_by).encode() + b"\n" if vibe else turn)
            done = run(argv, env, keep_stdout=True)
            grown.append(done.seconds)
            cpu["b"].append(done.cpu)
            warm_typed = typed(done.stdout)
            fresh = environment(Path(scratch) / f"cold{n}")
            done = run(argv, fresh, keep_stdout=True)
            cold.append(done.seconds)
            cpu["c"].append(done.cpu)
            cold_typed = typed(done.stdout)
    print(
        f"{options.app}: {options.children} sub-agents, medians of {options.runs} runs: wall, cpu"
    )
    for name, what, times in (
        ("a", "warm list, nothing changed", still),
        ("b", "warm list, the lead alone grown", grown),
        ("c", "cold list", cold),
    ):
        wall, used = ms(median(times)), ms(median(cpu[name]))
        print(f"({name}) {what:31} {wall:>9} {used:>9}")
    print(f"typed sub-agents: warm {warm_typed}, cold {cold_typed}")


if __name__ == "__main__":
    main()
