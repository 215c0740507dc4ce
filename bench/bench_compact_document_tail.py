"""`show --tail N --json` of a chat kept as one JSON document of `--mb` MB written on one
line (another tool's copy, not laid out as the app writes it): `--app codebuff`, a Codebuff
`chat-messages.json` (a bare array: prompts and answers whose tool blocks carry outputs of
up to 4,000 words); `--app auggie`, an Auggie session (its `chatHistory` of exchanges
whose answers run up to 4,000 words, `agentState` after it). Each run its own process, the
index warm; wall, CPU and peak RSS, medians of `--runs`; against `--baseline-src` (an older
checkout's `src/`, which read such a chat whole) in the same minutes, the same events
checked. Usage:

    .venv/bin/python bench/bench_compact_document_tail.py [--app codebuff] [--mb 120] [--runs 5] [--tail 20] [--baseline-src OLD/src]
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

CHAT = "2026-12-01T10-00-00.000Z"
WORDS = ["the", "a", "to", "of", "def", "return", "self", "if", "else", "import"]


SESSION = "5a3e1c2b-7d4f-4a6b-9c8d-1e2f3a4b5c6d"


def make_auggie(out: Path, megabytes: int) -> Path:
    """An Auggie session of `megabytes` MB on one line (json.dumps's spacing)."""
    rng = random.Random(3)
    folder = out / "home" / ".augment" / "sessions"
    folder.mkdir(parents=True)
    path = folder / f"{SESSION}.json"
    with open(path, "w") as f:
        f.write(f'{{"sessionId": "{SESSION}", "created": "2026-12-05T10:05:00.000Z", '
                '"modified": "2026-12-05T18:00:00.000Z", "chatHistory": [')  # fmt: skip
        n = 0
        while f.tell() < megabytes * 1024 * 1024:
            prompt = " ".join(rng.choices(WORDS, k=40))
            answer = " ".join(rng.choices(WORDS, k=rng.randint(200, 4000)))
            exchange = {"request_message": prompt, "response_text": answer,
                "request_id": f"req-{n}", "model_id": "claude-opus-4-5",
                "request_nodes": [{"id": 0, "type": 0, "text_node": {"content": prompt}}],
                "response_nodes": [{"id": 0, "type": 0, "content": answer}]}  # fmt: skip
            item = {"exchange": exchange, "completed": True,
                    "finishedAt": "2026-12-05T10:05:10.000Z"}  # fmt: skip
            f.write(("," if n else "") + json.dumps(item))
            n += 1
        f.write('], "agentState": {"modelId": "claude-opus-4-5"}}')
    return path


def make_chat(out: Path, megabytes: int) -> Path:
    """A Codebuff chat of `megabytes` MB on one line (json.dumps's spacing)."""
    rng = random.Random(3)
    folder = out / "home" / ".config" / "manicode" / "projects" / "shop-api" / "chats"
    folder = folder / CHAT
    folder.mkdir(parents=True)
    state = {
        "sessionState": {"fileContext": {"projectRoot": "/home/alex/code/shop-api"}}
    }
    (folder / "run-state.json").write_text(json.dumps(state))
    path = folder / "chat-messages.json"
    with open(path, "w") as f:
        f.write("[")
        n, ms = 0, 1796119200000
        while f.tell() < megabytes * 1024 * 1024:
            ms += 1000
            message: dict[str, object] = {"id": f"user-{ms}", "timestamp": "10:00 AM",
                "variant": "user", "content": " ".join(rng.choices(WORDS, k=40))}  # fmt: skip
            if n % 2:
                output = " ".join(rng.choices(WORDS, k=rng.randint(200, 4000)))
                block = {"type": "tool", "toolCallId": f"call-{n}", "toolName": "run_terminal_command",
                         "input": {"command": "pytest -q"}, "output": output}  # fmt: skip
                message = {"id": f"ai-{ms}-9f3c2a", "timestamp": "10:00 AM", "variant": "ai",
                    "content": "", "isComplete": True, "credits": 42,
                    "blocks": [block, {"type": "text", "content": "Ran the tests."}]}  # fmt: skip
            f.write(("," if n else "") + json.dumps(message))
            n += 1
        f.write("]")
    return path


def _runs(argv: list[str], env: dict[str, str], count: int) -> list[Run]:
    found = [run(argv, env, keep_stdout=True, measure_rss=True) for _ in range(count)]
    assert all(r.returncode == 0 for r in found), found[0].stderr
    return found


def _events(output: bytes) -> list[dict[str, object]]:
    """The events printed, but for their numbers (a tail's count from its read)."""
    found = json.loads(output.decode())
    return [{k: v for k, v in e.items() if k not in ("seq", "seq_relative")} for e in found]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", choices=["codebuff", "auggie"], default="codebuff")
    parser.add_argument("--mb", type=int, default=120)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tail", type=int, default=20)
    parser.add_argument("--baseline-src")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        make = make_auggie if args.app == "auggie" else make_chat
        path = make(out, args.mb)
        chat = SESSION if args.app == "auggie" else CHAT
        print(f"chat: {mb(float(path.stat().st_size))}")
        home = str(out / "home")
        trees = {"now": str(ROOT / "src")}
        if args.baseline_src:
            trees["before"] = args.baseline_src
        shown: dict[str, list[dict[str, object]]] = {}
        for name, src in trees.items():
            env = environment(out / f"state-{name}")
            env["PYTHONPATH"] = src
            listed = run(sessdex("list", "--json", "--home", home), env)  # index warm
            assert listed.returncode == 0, listed.stderr
            tail = str(args.tail)
            show = _runs(sessdex("show", chat, "--tail", tail, "--json", "--home", home), env, args.runs)  # fmt: skip
            wall = median([r.seconds for r in show])
            cpu = median([r.cpu for r in show])
            rss = median([float(r.peak_rss) for r in show])
            print(f"{name}: show --tail {tail} --json wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS {mb(rss)} (medians of {args.runs})")  # fmt: skip
            shown[name] = _events(show[0].stdout)
            assert len(shown[name]) == args.tail, len(shown[name])
        if args.baseline_src:
            assert shown["now"] == shown["before"], "the tails differ"
            print("the same events shown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
