"""Cold and warm `list --json` and `usage --json` on homes of many small files: what a
command pays per file, where the files themselves cost next to nothing to read.

Three generated homes (under --root, default /tmp/sessdex-many), half Claude Code
transcripts (one project folder) and half Codex rollouts (one day's folder):
(a) `empty`: --files empty `.jsonl` files;
(b) `tiny`: --files sessions of one user line and one answer carrying usage;
(c) `medium`: --files / 10 sessions of 100 turns each (about 60 KB).
Each command runs cold (no index: SESSDEX_HOME an empty folder) and warm (the index the
cold run left, nothing changed), alternating, with the bytecode cache on; figures are
medians of --runs whole-process runs: wall and CPU time (user + system, workers included).
Beside them, the floor: a `python -c` that stats and reads every file of the home once.
The output of each command is checked the same bytes at every run, cold and warm.
`--baseline-src OLD/src` runs that build's commands too, alternating, and checks that both
print the same bytes.

    .venv/bin/python bench/bench_usage_many_files.py [--files 20000] [--runs 3]
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

from _common import PYTHON, Report, environment, median, ms, run, sessdex

DEFAULT_ROOT = Path("/tmp/sessdex-many")
PROJECT = "/home/bench/code/many"
DAY = "2026/11/30"
LAYOUT = 1  # bump when the homes' contents change

FLOOR = (
    "import os, sys\n"
    "for top, _, names in os.walk(sys.argv[1]):\n"
    "    for name in names:\n"
    "        path = os.path.join(top, name); os.stat(path)\n"
    "        with open(path, 'rb') as f: f.read()\n"
)


def _claude_lines(session: str, turns: int, n: int) -> list[str]:
    lines = []
    parent = None
    for turn in range(turns):
        stamp = f"2026-11-30T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{turn % 60:02d}.000Z"
        common = {"cwd": PROJECT, "sessionId": session, "version": "2.1.197"}
        user = f"{session[:8]}-u{turn}"
        lines.append(json.dumps({
            **common, "type": "user", "uuid": user, "parentUuid": parent,
            "timestamp": stamp,
            "message": {"role": "user", "content": f"task {n} step {turn}: fix the tests " * 4},
        }))  # fmt: skip
        answer = f"{session[:8]}-a{turn}"
        lines.append(json.dumps({
            **common, "type": "assistant", "uuid": answer, "parentUuid": user,
            "timestamp": stamp, "requestId": f"req_{n}_{turn}",
            "message": {
                "id": f"msg_{n}_{turn}", "role": "assistant", "model": "claude-sonnet-4-5",
                "type": "message", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Done; the tests pass now. " * 8}],
                "usage": {"input_tokens": 100 + turn, "output_tokens": 20,
                          "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 10},
            },
        }))  # fmt: skip
        parent = answer
    return lines


def _codex_lines(session: str, turns: int, n: int) -> list[str]:
    stamp = f"2026-11-30T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"
    lines = [
        json.dumps({"timestamp": stamp, "type": "session_meta", "payload": {
            "id": session, "timestamp": stamp, "cwd": PROJECT, "originator": "codex_cli_rs",
            "cli_version": "0.171.0", "source": "cli", "model_provider": "openai"}}),
        json.dumps({"timestamp": stamp, "type": "turn_context", "payload": {
            "cwd": PROJECT, "model": "gpt-5.1-codex", "approval_policy": "on-request"}}),
    ]  # fmt: skip
    total = 0
    for turn in range(turns):
        text = f"task {n} step {turn}: fix the tests " * 4
        total += 1000 + turn
        last = {
            "input_tokens": 1000 + turn,
            "cached_input_tokens": 500,
            "output_tokens": 30,
            "reasoning_output_tokens": 10,
            "total_tokens": 1030 + turn,
        }
        lines += [
            json.dumps({"timestamp": stamp, "type": "event_msg", "payload": {
                "type": "user_message", "message": text, "images": []}}),
            json.dumps({"timestamp": stamp, "type": "response_item", "payload": {
                "type": "message", "role": "user",
                "content": [{"type": "input_text", "text": text}]}}),
            json.dumps({"timestamp": stamp, "type": "response_item", "payload": {
                "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "Done; the tests pass. " * 8}]}}),
            json.dumps({"timestamp": stamp, "type": "event_msg", "payload": {
                "type": "token_count", "info": {
                    "total_token_usage": {**last, "input_tokens": total},
                    "last_token_usage": last, "model_context_window": 272000}}}),
        ]  # fmt: skip
    return lines


def make_home(out: Path, kind: str, files: int) -> Path:
    """`out`/home, written unless a home of that kind, size and layout is there."""
    stamp = out / "made.json"
    wanted = {"kind": kind, "files": files, "layout": LAYOUT}
    home = out / "home"
    if stamp.exists() and json.loads(stamp.read_bytes()) == wanted:
        return home
    print(f"writing the {kind} home of {files} files to {out} ...", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    claude = home / ".claude/projects" / PROJECT.replace("/", "-")
    codex = home / ".codex/sessions" / DAY
    claude.mkdir(parents=True)
    codex.mkdir(parents=True)
    turns = {"empty": 0, "tiny": 1, "medium": 100}[kind]
    for n in range(files):
        session = f"{n:08x}-0000-4000-8000-{n:012x}"
        if n % 2:
            path = codex / f"rollout-2026-11-30T00-00-00-{session}.jsonl"
            lines = _codex_lines(session, turns, n) if turns else []
        else:
            path = claude / f"{session}.jsonl"
            lines = _claude_lines(session, turns, n) if turns else []
        path.write_text("".join(line + "\n" for line in lines))
    stamp.write_text(json.dumps(wanted))
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--homes", nargs="+", default=["empty", "tiny", "medium"])
    parser.add_argument("--commands", nargs="+", default=["list", "usage"])
    parser.add_argument("--baseline-src", type=Path, help="an older checkout's src/")
    args = parser.parse_args()
    report = Report()
    trees = ["new", "old"] if args.baseline_src else ["new"]
    for kind in args.homes:
        files = args.files // 10 if kind == "medium" else args.files
        home = make_home(args.root / kind, kind, files)
        floors = [run([PYTHON, "-c", FLOOR, str(home)]) for _ in range(args.runs)]
        floor = median([f.seconds for f in floors])
        report.note(
            f"{kind} ({files} files): floor (stat + read every file) {ms(floor)}"
            f" cpu {ms(median([f.cpu for f in floors]))}"
        )
        for command in args.commands:
            argv = sessdex(command, "--json", "--home", str(home))
            figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
            printed: set[bytes] = set()
            with tempfile.TemporaryDirectory() as scratch:
                for n in range(args.runs):
                    for tree in trees:  # alternating, so that load falls on both
                        env = environment(Path(scratch) / f"{tree}{n}")
                        if tree == "old":
                            env["PYTHONPATH"] = str(args.baseline_src.resolve())
                        for state in ("cold", "warm"):
                            result = run(argv, env, keep_stdout=True)
                            if result.returncode:
                                raise SystemExit(
                                    f"{tree} {command} failed: {result.stderr[-500:]}"
                                )
                            printed.add(result.stdout)
                            figures.setdefault((tree, state), []).append(
                                (result.seconds, result.cpu)
                            )
                        shutil.rmtree(Path(scratch) / f"{tree}{n}", ignore_errors=True)
            for (tree, state), values in sorted(figures.items()):
                wall = median([v[0] for v in values])
                cpu = median([v[1] for v in values])
                label = "this tree" if tree == "new" else "baseline "
                report.note(
                    f"  {command:<5} {state}  {label}  {ms(wall):>9}  cpu {ms(cpu):>9}"
                    f"  x{wall / floor:6.1f} floor"
                )
            report.check(
                f"{kind} {command}: the same bytes every run",
                len(printed) == 1,
                f"{len(printed)} distinct outputs",
            )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
