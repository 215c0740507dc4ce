"""`tree` and `show --subagents inline|tree` of a lead whose sub-agents an app keeps in a
database (OpenCode, Kilo, Crush, Hermes, OpenClaw, Zed): its one sub-agent's rows copied
`--small` and `--big` times under new ids (as `scripts/fuzz-homes.py --fanout` copies
them), each command warm (after a `list --all`), against a warm `list --json --all` in
the same run. Prints each median's CPU and wall time, the CPU each added sub-agent costs
((big - small) / (big - small copies)), and big / small (linear: big / small copies).

    .venv/bin/python bench/bench_subagent_tree.py [--app opencode] [--baseline-src OLD/src]

With `--baseline-src` (an older checkout's `src/`), that build runs the same commands,
alternating with this tree, its output checked to be the same (each build's index is its
own: sub-agents the index dates alike may come in another order, so the lines are
compared sorted, without the branches a tree draws, and `show --json`'s events without their `seq`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _common import ROOT, Report, environment, median, run, sessdex

sys.path.insert(0, str(ROOT))

from tests import fuzzing  # the fixtures' homes, and the fan-out's copies

TARGET_MS = 1.0  # CPU each added sub-agent may cost `tree` (it cost 6-11 ms)


def build(app: str, home: Path, copies: int) -> tuple[str, str]:
    """The fixture home of `app` with its first database sub-agent's rows copied
    `copies` times beside it; (lead, sub-agent) as `app:id`."""
    fuzzing.copy_home(fuzzing.homes()[app], home)
    with tempfile.TemporaryDirectory() as state:
        listed = run(
            sessdex("list", "--json", "--all", "--home", str(home)),
            environment(Path(state)),
            keep_stdout=True,
        )
    rows = json.loads(listed.stdout)
    child = next(r for r in rows if r.get("parent_id") and "#" in (r.get("path") or ""))
    for db in fuzzing._databases(home):
        fuzzing._fan_rows(db, child["id"], range(1, copies + 1), messages=False)
    return f"{child['app']}:{child['parent_id']}", f"{child['app']}:{child['id']}"


def canonical(output: bytes) -> bytes:
    """`output` with its lines sorted, and a JSON list of events without their `seq`:
    what stays the same whichever order two builds' indexes give sub-agents dated alike."""
    try:
        value = json.loads(output)
    except ValueError:  # text: each line without the tree's branches drawn before it
        lines = (line.decode().lstrip("│├└─ ") for line in output.splitlines())
        return "\n".join(sorted(lines)).encode()
    if isinstance(value, list):
        rows = sorted(json.dumps({**e, "seq": None}, sort_keys=True) for e in value)
        return "\n".join(rows).encode()
    return json.dumps(_sorted(value), sort_keys=True).encode()


def _sorted(node: object) -> object:
    """A `tree --json` node with its children in the order of their ids, at every level."""
    if isinstance(node, dict) and isinstance(node.get("children"), list):
        children = [_sorted(child) for child in node["children"]]
        return {**node, "children": sorted(children, key=lambda c: str(c["id"]))}
    return node


def commands(lead: str) -> dict[str, list[str]]:
    return {
        "list --json --all (baseline)": ["list", "--json", "--all"],
        "tree --json": ["tree", lead, "--json"],
        "tree": ["tree", lead],
        "show --subagents inline --json": ["show", lead, "--subagents", "inline", "--json"],
        "show --subagents tree": ["show", lead, "--subagents", "tree"],
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--app", default="opencode", help="fixture home (fuzzing.homes)"
    )
    parser.add_argument("--small", type=int, default=200)
    parser.add_argument("--big", type=int, default=1600)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-src", type=Path, help="an older checkout's src/")
    args = parser.parse_args()
    report = Report()
    builds = [("this tree", None)]
    if args.baseline_src is not None:
        builds.append(("baseline-src", args.baseline_src.resolve()))
    # (build, command, size) -> [(cpu, wall)]
    spent: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-tree-") as work:
        for size in (args.small, args.big):
            home = Path(work) / f"home-{size}"
            lead, child = build(args.app, home, size)
            report.note(f"{size} copies of {child} under {lead}")
            envs = {}
            for name, src in builds:
                env = environment(Path(work) / f"state-{size}-{name.replace(' ', '-')}")
                if src is not None:
                    env["PYTHONPATH"] = str(src)
                run(sessdex("list", "--all", "--home", str(home)), env)  # warm
                envs[name] = env
            for label, argv in commands(lead).items():
                outputs: dict[str, bytes] = {}
                for _ in range(args.runs):
                    for name, _src in builds:  # alternating: the load moves both
                        done = run(
                            sessdex(*argv, "--home", str(home)),
                            envs[name],
                            keep_stdout=True,
                        )
                        if done.returncode:
                            report.note(f"  {name} {label}: exit {done.returncode}")
                        outputs[name] = done.stdout
                        key = (name, label, size)
                        spent.setdefault(key, []).append((done.cpu, done.seconds))
                if len({canonical(o) for o in outputs.values()}) > 1:
                    report.check(f"{label} at {size}: same output", False, "differs")
                for name, _src in builds:
                    runs = spent[(name, label, size)]
                    cpu = median([c for c, _ in runs])
                    wall = median([w for _, w in runs])
                    report.note(
                        f"  {name:12} {label:32} {size:5}: cpu {cpu:6.2f} s, wall {wall:6.2f} s"
                    )
    added = args.big - args.small
    for name, _src in builds:
        report.note(f"\n{name}:")
        base = median(
            [c for c, _ in spent[(name, "list --json --all (baseline)", args.big)]]
        )
        for label in commands("x"):
            small = median([c for c, _ in spent[(name, label, args.small)]])
            big = median([c for c, _ in spent[(name, label, args.big)]])
            each = (big - small) / added * 1000
            line = (
                f"{each:.2f} ms CPU a sub-agent, {big:.2f} s at {args.big} "
                f"({big / base:.1f}x the warm list), x{big / max(small, 1e-3):.1f} "
                f"from {args.small} (copies x{args.big / args.small:.0f})"
            )
            if name == "this tree" and label.startswith(("tree", "show")):
                report.check(f"{label} per sub-agent", each <= TARGET_MS, line)
            else:
                report.note(f"  {label}: {line}")
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
