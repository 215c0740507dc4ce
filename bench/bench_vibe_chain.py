"""A live Mistral Vibe legacy chain: what each turn of its newest folder costs a warm `list`.

The Vibe fixture's compacted conversation (an older folder continued by a newer one) and
a fork of the older; then --turns turns of the newer folder as Vibe writes them (a line
appended to its messages.jsonl, its meta.json replaced whole), a warm `list --json` after
each, in process. Counted: how many times each folder's meta.json was parsed again (the
older folder's should never be: nothing of it changed), and the warm lists' median wall
time. Target: the older folder parsed 0 times.
Then (c) Vibe's own caches written in the save folder (`.session_index.json`,
`.last_session/`), then a new session folder, a warm list after each: how many times the
fork was parsed again (target: 0 for the caches; a new folder may continue its chain).
Then (b) a cold listing of a chain of --chain folders (each compacted into the next), the
CPU of parsing every folder in process, the median of --repeat: each folder is listed as
its own chain too (its successor's listing hides it), so what each reads of the older
ones is kept per process.

    .venv/bin/python bench/bench_vibe_chain.py [--turns 20] [--chain 50] [--repeat 9]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAVE_DIR = Path(".vibe") / "logs" / "session"
FOLDERS = {
    "older": "session_20261201_100000_3f1c2a9e",
    "newer": "session_20261201_101005_7a8b9c0d",
    "fork": "session_20261201_103000_9e8d7c6b",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--chain", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=9)
    options = parser.parse_args()
    from click.testing import CliRunner

    from sessdex.cli import main as cli
    from sessdex.sources import vibe

    parsed: Counter[str] = Counter()
    parse = vibe.parse

    def counted(path: Path, *args: object) -> object:
        parsed[path.parent.name] += 1
        return parse(path, *args)  # type: ignore[arg-type]

    vibe.parse = counted  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        sessions = home / SAVE_DIR
        sessions.mkdir(parents=True)
        source = ROOT / "tests" / "data" / "vibe" / "home" / SAVE_DIR
        for name in FOLDERS.values():
            shutil.copytree(source / name, sessions / name)
        os.environ["SESSDEX_HOME"] = str(Path(scratch) / "state")
        argv = ["list", "--json", "--app", "vibe", "--home", str(home)]
        assert CliRunner().invoke(cli, argv).exit_code == 0  # cold: the index built
        parsed.clear()
        newer = sessions / FOLDERS["newer"]
        meta = (newer / "meta.json").read_bytes()
        times = []
        for turn in range(options.turns):
            with open(newer / "messages.jsonl", "ab") as out:
                out.write(b'{"role": "user", "content": "turn %d"}\n' % turn)
            replaced = newer / "meta.json.tmp"  # as Vibe saves it: a new file renamed
            replaced.write_bytes(meta.replace(b"10:20:05", b"10:%02d:05" % (21 + turn)))
            os.replace(replaced, newer / "meta.json")
            started = time.perf_counter()
            assert CliRunner().invoke(cli, argv).exit_code == 0
            times.append(time.perf_counter() - started)
        turns = Counter(parsed)
        parsed.clear()
        (sessions / ".session_index.json").write_text("{}")  # as Vibe's listing keeps
        (sessions / ".last_session").mkdir()
        assert CliRunner().invoke(cli, argv).exit_code == 0
        cached = parsed[FOLDERS["fork"]]
        parsed.clear()
        shutil.copytree(sessions / FOLDERS["older"], sessions / "session_x_new")
        assert CliRunner().invoke(cli, argv).exit_code == 0
        came = parsed[FOLDERS["fork"]]
    print(f"{options.turns} turns of the newer folder, a warm list after each:")
    for what, name in FOLDERS.items():
        print(f"  {what:5} folder's meta.json parsed again {turns[name]:3} times")
    print(f"  warm list: median {statistics.median(times) * 1000:.1f} ms")
    print(
        f"(c) Vibe's caches written beside the sessions: the fork parsed {cached} times"
    )
    print(f"    a new session folder: the fork parsed {came} times")
    costs = [chain_cost(options.chain, parse) for _ in range(options.repeat)]
    print(
        f"(b) a cold listing of a chain of {options.chain} folders: "
        f"{statistics.median(costs) * 1000:.1f} ms CPU (median of {options.repeat})"
    )
    sys.exit(0 if turns[FOLDERS["older"]] == 0 and cached == 0 else 1)


def chain_cost(length: int, parse: Callable[..., object]) -> float:
    """(b): a chain of `length` folders made from the fixture's pair, parsed cold: the
    CPU seconds."""
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import Home, vibe

    source = ROOT / "tests" / "data" / "vibe" / "home" / SAVE_DIR
    with tempfile.TemporaryDirectory() as scratch:
        sessions = Path(scratch) / SAVE_DIR
        sessions.mkdir(parents=True)
        parent = None
        for k in range(length):
            template = source / FOLDERS["older" if k == 0 else "newer"]
            meta = json.loads((template / "meta.json").read_text())
            session_id = f"{k:08x}-0b1d-4e2f-a3b4-5d6e7f8a9b0c"
            meta |= {"session_id": session_id, "parent_session_id": parent}
            folder = sessions / f"session_20261201_{k:06d}_{session_id[:8]}"
            folder.mkdir()
            (folder / "meta.json").write_text(json.dumps(meta))
            shutil.copy(template / "messages.jsonl", folder / "messages.jsonl")
            parent = session_id
        location = vibe.locate(Home.at(Path(scratch)))
        paths = list(vibe.scan(location))
        started = time.process_time()
        for path in paths:
            parse(path, location, Diagnostics())
        return time.process_time() - started


if __name__ == "__main__":
    main()
