"""`show --tail 50` of a big chat kept as one JSON document, for the apps that keep one
(Nanocoder's `messages`, Codebuff's list, Continue's `history`, Auggie's `chatHistory`),
in both layouts: as the app writes it (JSON.stringify(chat, null, 2): the last messages
found from its end where the app has a `read_last`) and minified (another tool's copy: read through, a message at a
time, the last events kept). Against `show --json` of the whole chat, in the same layout.

Each chat is the app's fixture chat with its messages repeated to about --mb MB. Each
command runs in its own process (`python -m sessdex ... --home`), its peak RSS read alone;
figures are medians of --runs runs, the ratios tail/whole. Usage:

    .venv/bin/python bench/bench_json_document_tail.py [--mb 500] [--runs 3] [--apps nanocoder,codebuff,continue,auggie]
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

from _common import ROOT, environment, mb, median, run, sessdex

DATA = ROOT / "tests" / "data"
CHATS = {  # app: (its fixture chat, the member holding the messages; None: a list)
    "nanocoder": (
        ".local/share/nanocoder/sessions/c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e0f.json",
        "messages",
    ),
    "codebuff": (
        ".config/manicode/projects/shop-api/chats/2026-12-01T10-00-00.000Z/chat-messages.json",
        None,
    ),
    "continue": (
        ".continue/sessions/0b7e2c1a-5d4f-4e8a-9c3b-2f1e0d9c8b7a.json",
        "history",
    ),
    "auggie": (  # its members after the history kept there, as Auggie writes them
        ".augment/sessions/9b8a7c6d-5e4f-4321-8a9b-0c1d2e3f4a5b.json",
        "chatHistory",
    ),
}


def _write(path: Path, key: str | None, size: int, *, pretty: bool) -> int:
    """The fixture chat at `path` rewritten with its messages repeated to `size` bytes,
    streamed (never held whole); how many messages it holds."""
    chat = json.loads(path.read_text())
    found = chat if key is None else chat.pop(key)
    # Auggie's members after its history stay after it (what finds its end needs them)
    names = list(json.loads(path.read_text())) if key == "chatHistory" else []
    after = {n: chat.pop(n) for n in names[names.index(key) + 1 :]} if names else {}
    indent = "    " if key is not None else "  "
    if pretty:
        pieces = ["\n" + indent + json.dumps(m, indent=2).replace("\n", "\n" + indent)
                  for m in found]  # fmt: skip
        head = json.dumps(chat, indent=2)[:-2] + f',\n  "{key}": [' if key else "["
        rest = "," + json.dumps(after, indent=2)[1:] if after else "\n}"
        tail = "\n  ]" + rest if key else "\n]"
    else:
        pieces = [json.dumps(m, separators=(",", ":")) for m in found]
        head = (
            json.dumps(chat, separators=(",", ":"))[:-1] + f',"{key}":[' if key else "["
        )
        rest = "," + json.dumps(after, separators=(",", ":"))[1:] if after else "}"
        tail = "]" + rest if key else "]"
    written, count = 0, 0
    with path.open("w") as out:
        out.write(head)
        while written < size:
            for piece in pieces:
                out.write(("," if count else "") + piece)
                written += len(piece) + 1
                count += 1
        out.write(tail)
    return count


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--apps", default=",".join(CHATS))
    args = parser.parse_args()
    print(
        f"chats of about {args.mb} MB; medians of {args.runs} runs; each command alone"
    )
    print(f"{'app':10} {'layout':8} {'messages':>9} {'tail s':>7} {'whole s':>8} "
          f"{'ratio':>6} {'tail RSS':>9} {'whole RSS':>10} {'ratio':>6}")  # fmt: skip
    for app in args.apps.split(","):
        relative, key = CHATS[app]
        for pretty in (True, False):
            with tempfile.TemporaryDirectory() as scratch:
                home = Path(scratch) / "home"
                shutil.copytree(DATA / app / "home", home)
                path = home / relative
                count = _write(path, key, args.mb * 2**20, pretty=pretty)
                env = environment(Path(scratch) / "state")
                listed = run(sessdex("list", "--app", app, "--json", "--home", str(home)),
                             env, keep_stdout=True)  # fmt: skip
                (session,) = [s["id"] for s in json.loads(listed.stdout)
                              if s["path"] == str(path)]  # fmt: skip
                figures: dict[str, list[tuple[float, int]]] = {"tail": [], "whole": []}
                shown: dict[str, bytes] = {}
                for _ in range(args.runs):
                    for how, extra in (("tail", ["--tail", "50"]), ("whole", [])):
                        argv = sessdex(
                            "show", session, "--json", "--home", str(home), *extra
                        )
                        done = run(
                            argv, env, keep_stdout=how == "tail", measure_rss=True
                        )
                        assert done.returncode == 0, done.stderr
                        figures[how].append((done.seconds, done.peak_rss))
                        if how == "tail":
                            shown[how] = done.stdout
                assert len(json.loads(shown["tail"])) == 50
                t, w = ({k: median([f[i] for f in figures[k]]) for k in figures}
                        for i in (0, 1))  # fmt: skip
                print(f"{app:10} {'pretty' if pretty else 'minified':8} {count:>9} "
                      f"{t['tail']:>7.2f} {t['whole']:>8.2f} {t['tail'] / t['whole']:>6.3f} "
                      f"{mb(w['tail']):>9} {mb(w['whole']):>10} {w['tail'] / w['whole']:>6.2f}",
                      flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
