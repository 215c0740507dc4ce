"""`show --tail N --json` and `follow -n N --duration 0 --nl` of a Gemini CLI chat kept as a
`--mb` MB JSON document written on one line (not laid out as the app writes it: prompts and
answers each running a tool, as `bench_whole.make_gemini` writes them, but none of its 50 MB
outputs, one of which ends that chat and sends any tail to the whole read), each command in its own process, the index warm: wall, CPU and peak
RSS, medians of `--runs`; against `--baseline-src` (an older checkout's `src/`, which read
such a chat whole for both) in the same minutes, its output checked the same; without one,
against `show --json` of the whole chat. Usage:

    .venv/bin/python bench/bench_gemini_compact_tail.py [--mb 100] [--runs 3] [--tail 20] [--baseline-src OLD/src]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, Run, environment, mb, median, run, sessdex

SESSION = "5a1e9c3b-7d2e-4f10-9a3b-0c1d2e3f4a5b"
WORDS = [
    "the",
    "a",
    "to",
    "of",
    "def",
    "return",
    "self",
    "if",
    "else",
    "import",
    "None",
]


def make_chat(out: Path, megabytes: int) -> str:
    """A pre-0.40 Gemini CLI chat of `megabytes` MB on one line (json.dumps's spacing)."""
    rng = random.Random(3)
    chats = out / "home" / ".gemini" / "tmp" / "shop-api" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text("/home/alex/code/shop-api")
    path = chats / "session-2025-11-02T10-15-5a1e9c3b.json"
    with open(path, "w") as f:
        f.write(f'{{"sessionId": "{SESSION}", "projectHash": "{"0" * 64}", '
                '"startTime": "2025-11-02T10:15:00.000Z", '
                '"lastUpdated": "2025-11-02T18:00:00.000Z", "messages": [')  # fmt: skip
        n = 0
        while f.tell() < megabytes * 1024 * 1024:
            # a second each: a baseline before 8064167f drew one of two answers alike in
            # text, usage and second where `follow -n` read the chat's end
            stamp = f"2025-11-{2 + n // 86400:02}T{n // 3600 % 24:02}:{n // 60 % 60:02}:{n % 60:02}.000Z"
            message: dict[str, object] = {"id": f"m{n}", "timestamp": stamp, "type": "user",
                "content": " ".join(rng.choices(WORDS, k=40))}  # fmt: skip
            if n % 2:
                output = " ".join(rng.choices(WORDS, k=rng.randint(200, 4000)))
                call = {"id": f"run_shell_command-{n}", "name": "run_shell_command",
                        "args": {"command": "pytest -q"}, "status": "success",
                        "timestamp": stamp, "resultDisplay": output[:200],
                        "result": [{"functionResponse": {"id": f"run_shell_command-{n}",
                            "name": "run_shell_command", "response": {"output": output}}}]}  # fmt: skip
                message = {"id": f"m{n}", "timestamp": stamp, "type": "gemini",
                    "model": "gemini-2.5-pro", "content": "Ran the tests.",
                    "tokens": {"input": 1000, "output": 50, "total": 1050}, "toolCalls": [call]}  # fmt: skip
            f.write(("," if n else "") + json.dumps(message))
            n += 1
        f.write('], "summary": "Run the test suite"}')
    return SESSION


def _runs(argv: list[str], env: dict[str, str], count: int) -> list[Run]:
    found = [run(argv, env, keep_stdout=True, measure_rss=True) for _ in range(count)]
    assert all(r.returncode == 0 for r in found), found[0].stderr
    return found


def _said(name: str, what: str, runs: list[Run]) -> None:
    wall = median([r.seconds for r in runs])
    cpu = median([r.cpu for r in runs])
    rss = median([float(r.peak_rss) for r in runs])
    print(f"{name}: {what} wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS {mb(rss)} (medians of {len(runs)})")  # fmt: skip


def _events(output: bytes) -> list[dict[str, object]]:
    """The events printed, but for their numbers (a tail's count from its read)."""
    text = output.decode()
    found = (
        json.loads(text)
        if text.lstrip().startswith("[")
        else [json.loads(line) for line in text.splitlines() if line.strip()]
    )
    return [{k: v for k, v in e.items() if k not in ("seq", "seq_relative")} for e in found]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tail", type=int, default=20)
    parser.add_argument("--baseline-src")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        sid = make_chat(out, args.mb)
        home = str(out / "home")
        trees = {"now": str(ROOT / "src")}
        if args.baseline_src:
            trees["before"] = args.baseline_src
        shown: dict[str, list[dict[str, object]]] = {}
        followed: dict[str, list[dict[str, object]]] = {}
        for name, src in trees.items():
            env = environment(out / f"state-{name}")
            env["PYTHONPATH"] = src
            listed = run(
                sessdex("list", "--json", "--home", home), env
            )  # the index warm
            assert listed.returncode == 0, listed.stderr
            tail = str(args.tail)
            show = _runs(sessdex("show", sid[:8], "--tail", tail, "--json", "--home", home), env, args.runs)  # fmt: skip
            _said(name, f"show --tail {tail} --json", show)
            follow = _runs(sessdex("follow", sid[:8], "-n", tail, "--duration", "0", "--nl", "--home", home), env, args.runs)  # fmt: skip
            _said(name, f"follow -n {tail} --duration 0", follow)
            shown[name] = _events(show[0].stdout)
            assert len(shown[name]) == args.tail, len(shown[name])
            followed[name] = _events(
                follow[0].stdout
            )  # what its view shows: no answer's usage
            if name == "now" and not args.baseline_src:
                whole = _runs(sessdex("show", sid[:8], "--json", "--home", home), env, args.runs)  # fmt: skip
                _said(name, "show --json (the whole chat)", whole)
                assert _events(whole[0].stdout)[-args.tail :] == shown[name]
        if args.baseline_src:
            assert shown["now"] == shown["before"], "the tails differ"
            assert followed["now"] == followed["before"], "the follows differ"
            print("the same events shown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
