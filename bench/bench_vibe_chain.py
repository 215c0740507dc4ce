"""A live Mistral Vibe legacy chain: what each turn of its newest folder costs a warm `list`.

The Vibe fixture's compacted conversation (an older folder continued by a newer one) and
a fork of the older; then --turns turns of the newer folder as Vibe writes them (a line
appended to its messages.jsonl, its meta.json replaced whole), a warm `list --json` after
each, in process. Counted: how many times each folder's meta.json was parsed again (the
older folder's should never be: nothing of it changed), and the warm lists' median wall
time. Target: the older folder parsed 0 times.

    .venv/bin/python bench/bench_vibe_chain.py [--turns 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
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
    print(f"{options.turns} turns of the newer folder, a warm list after each:")
    for what, name in FOLDERS.items():
        print(f"  {what:5} folder's meta.json parsed again {parsed[name]:3} times")
    print(f"  warm list: median {statistics.median(times) * 1000:.1f} ms")
    sys.exit(0 if parsed[FOLDERS["older"]] == 0 else 1)


if __name__ == "__main__":
    main()
