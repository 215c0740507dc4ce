"""Does one app cost `sessdex list` nothing, whether it is absent or installed but empty?

Warm `sessdex list --json` over the benchmark corpus, three homes in turn: the app's folders
absent, its folder (`locate(...).root`) present and empty, and, where the app keeps its
sessions in a database the fixtures hold (`tests/data/<app>/home`), that database present
with its rows deleted. Target: each within 10% of the absent figure (noise on a shared
machine is a few percent). Runs alternate; the figures are medians of the same run.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from _common import (
    DEFAULT_CORPUS,
    ensure_corpus,
    environment,
    load,
    median,
    ms,
    run,
    sessdex,
)

from sessdex import sources
from sessdex.sources import Home

FIXTURES = Path(__file__).parent.parent / "tests" / "data"


def emptied_database(app: str, home: Path) -> Path | None:
    """The app's fixture database copied into `home` at its place, every table emptied;
    None where its fixtures hold no SQLite database."""
    fixture = FIXTURES / app / "home"
    for path in sorted(
        p for p in fixture.rglob("*") if p.suffix in (".db", ".sqlite3")
    ):
        target = home / path.relative_to(fixture)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
        db = sqlite3.connect(target)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]  # fmt: skip
        for table in tables:
            db.execute(f'DELETE FROM "{table}"')
        db.commit()
        db.execute("VACUUM")
        db.close()
        return target
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--app", required=True, choices=sources.names())
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    ensure_corpus(args.corpus, args.sessions)
    corpus = args.corpus / "home"
    with tempfile.TemporaryDirectory() as scratch:
        homes = {}
        for kind in ("absent", "empty folder", "empty database"):
            home = Path(scratch) / kind.replace(" ", "-")
            home.mkdir()
            for entry in corpus.iterdir():  # the corpus's apps, linked, not copied
                (home / entry.name).symlink_to(entry)
            homes[kind] = home
        root = sources.get(args.app).locate(Home.at(homes["empty folder"])).root
        root.mkdir(parents=True)
        if emptied_database(args.app, homes["empty database"]) is None:
            del homes["empty database"]
        times: dict[str, list[float]] = {kind: [] for kind in homes}
        with tempfile.TemporaryDirectory() as state:
            env = environment(Path(state))
            commands = {
                kind: sessdex("list", "--json", "--home", str(home))
                for kind, home in homes.items()
            }
            for command in commands.values():
                run(command, env)  # each home's index warm
            for _ in range(args.runs):
                for kind, command in commands.items():
                    times[kind].append(run(command, env).seconds)
    absent = median(times["absent"])
    print(f"load {load()}")
    verdict = "PASS"
    for kind, taken in times.items():
        ratio = median(taken) / absent
        print(
            f"warm list, {args.app} {kind + ':':16} {ms(median(taken))}  ({ratio:.2f}x)"
        )
        if ratio > 1.10:
            verdict = "FAIL"
    print(f"{verdict}: each within 1.10x of the absent figure")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
