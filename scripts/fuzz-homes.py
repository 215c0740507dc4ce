#!/usr/bin/env python3
"""Run many mutants of every fixture home through the CLI's commands (the long run of
tests/test_fuzz_homes.py): `scripts/fuzz-homes.py --cases 200 [--first 1000] [--tree |
--odd | --hostile | --escapes] [--more] [home ...]`, `--strange`, `--late`, `--linked`, `--cased`, `--denied`, `--writing` or `--fanout [--costs]` likewise, or `--warm-cold
--cases 20 [--first N] [--quick] [--skew | --schema] [--upgrade]` (warm list = cold list
after one file changes; --upgrade: after an upgrade of one app's reader too; --first: the seed that draws the files; --quick: the real command's warm
list too; --skew: its stamps lie; --schema: a database migrated).

Each case is drawn from its home's name and number, so a failure printed here is
reproduced by naming that home and case again. Prints each failure, then a count.
"""

from __future__ import annotations

import argparse
import faulthandler
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import fuzzing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("homes", nargs="*", help="home names (default: all)")
    parser.add_argument("--cases", type=int, default=50, help="mutants per home")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="number of the first case (with --warm-cold: the seed that draws the files)",
    )
    parser.add_argument(
        "--tree",
        action="store_true",
        help="damage the folder tree, not a file's content (a pipe, a broken or looping "
        "link, a link to /dev/zero, a name that is not UTF-8)",
    )
    parser.add_argument(
        "--odd",
        action="store_true",
        help="a file as odd writers and failing systems leave one (UTF-16, Latin-1 "
        "bytes, a NUL run, a -wal and a stale -shm, a writer's lock, a file that "
        "shrinks as it is read)",
    )
    parser.add_argument(
        "--hostile",
        action="store_true",
        help="a value a hostile or broken writer leaves: a token count as a string, "
        "negative, 1e308 or past 64 bits; a time in s, ms, us or ns, or in an odd zone; "
        "an id with a path in it; a 30 MB string; a -wal without its -shm, another "
        "database's -wal, a page of junk, tables made views",
    )
    parser.add_argument(
        "--escapes",
        action="store_true",
        help="a text given a character JSON escapes and no text should hold: half an "
        "emoji (a lone surrogate), a swapped pair, a NUL, U+2028, a bidi override; in "
        "a JSON file or a database's text cell, an id's or a path's too",
    )
    parser.add_argument(
        "--strange",
        action="store_true",
        help="a file's kind, size or bytes as no writer of its app leaves them: a "
        "socket, a device or a link to /dev/tty in its place, its folder a link to "
        "itself or a file, a 2 GB hole, a database emptied, cut or left with a crashed "
        "writer's hot journal, a -wal without its database, a JSON cell cut in half, "
        "a BOM mid-file, CR line ends, a count NaN, 1e999 or 5000 digits long, 100k "
        "levels of nesting, a 1 MB title of zero-width joiners; nothing may be written "
        "in the home, nor usage count more tokens than over the undamaged home",
    )
    parser.add_argument(
        "--more",
        action="store_true",
        help="every command in text and JSON too (find, usage --explain, resume "
        "--print), and list --json warm and cold, which must agree; terminal "
        "controls in what is shown fail",
    )
    parser.add_argument(
        "--denied",
        action="store_true",
        help="instead: one folder or file made one its user may not enter (chmod 000; "
        "as root, the commands run as nobody through setpriv)",
    )
    parser.add_argument(
        "--late",
        action="store_true",
        help="instead: after a warm list, one listed session's file swapped (a folder, "
        "a pipe, a looping, dangling or endless link, emptied, renamed with a newline, "
        "an escape or 255 bytes), then show, tree, export, resume, usage --explain and "
        "find on it, and every command after (as --more)",
    )
    parser.add_argument(
        "--linked",
        action="store_true",
        help="instead: the home, or one folder of it (an app's, or one deeper), moved "
        "to another disk and linked back (absolute, relative, a link to a link; after "
        "a warm list, or before): every command as --more, whose list must be the "
        "unlinked home's row for row, and nothing written where the links lead",
    )
    parser.add_argument(
        "--cased",
        action="store_true",
        help="instead: one session's file copied beside it with its id in the other "
        "case (its name and text): every command as --more, and show, tree, export "
        "and usage --explain of each id typed whole name its own session",
    )
    parser.add_argument(
        "--fanout",
        action="store_true",
        help="instead: one session (a sub-agent half the time) copied 200, then 1600 "
        "times beside itself under new ids (in a database: its rows copied, or its "
        "messages copied into it); list, tree, show, find, usage, watch and "
        "doctor at each size: none may fail, lose a session or cost more than 16 "
        "times its CPU at 200 copies",
    )
    parser.add_argument(
        "--writing",
        action="store_true",
        help="instead: one listed session's file appended to (its lines cut "
        "anywhere) or its database inserted into by a thread while list, show, tree "
        "and usage read it: none may fail or show what it does not show after the "
        "writes, and warm = cold after them",
    )
    parser.add_argument(
        "--costs",
        action="store_true",
        help="with --fanout: print each command's CPU seconds at both sizes",
    )
    parser.add_argument(
        "--warm-cold",
        action="store_true",
        help="instead: for up to --cases files per home, list warm, cut one file to "
        "half, add its last line again or delete it, then list warm and cold, which "
        "must agree (each difference names the file, the row and the field)",
    )
    parser.add_argument(
        "--skew",
        action="store_true",
        help="with --warm-cold: the file's stamps lie after the change (its mtime "
        "kept over a same-size rewrite, 1970, 2100, before 1970, its folder in 2100)",
    )
    parser.add_argument(
        "--schema",
        action="store_true",
        help="with --warm-cold: a database's schema migrated instead (a column added "
        "or dropped, a table renamed or added, every column made TEXT)",
    )
    parser.add_argument(
        "--upgrade",
        action="store_true",
        help="with --warm-cold: an upgrade of one drawn app's reader before the change "
        "(the index of the new build keeps the other apps' rows from the older one)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="with --warm-cold: the real command's warm list too (python -m sessdex, "
        "whose warm list answers from the index and re-reads a changed file alone)",
    )
    args = parser.parse_args()
    every = fuzzing.homes()
    names = args.homes or sorted(every)
    ran = failed = 0
    spent: list[str] = []  # --fanout --costs: each command's CPU at both sizes
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sessdex-fuzz-") as work:
        for name in names:
            folder = Path(work) / name
            folder.mkdir()
            if args.warm_cold:
                ways = (
                    fuzzing.SKEW_CHANGES
                    if args.skew
                    else fuzzing.SCHEMA_CHANGES
                    if args.schema
                    else fuzzing.CHANGES
                )
                failures = fuzzing.warm_cold(
                    name,
                    every[name],
                    folder,
                    args.cases,
                    args.first,
                    args.quick,
                    ways,
                    args.upgrade,
                )
                ran += 1
                failed += bool(failures)
                for failure in failures:
                    print(failure, flush=True)
                continue
            for case in range(args.first, args.first + args.cases):
                # a case stuck where no signal reaches Python (a C loop) says where
                faulthandler.dump_traceback_later(300, exit=True)
                if (
                    args.late
                    or args.denied
                    or args.fanout
                    or args.writing
                    or args.linked
                    or args.cased
                ):
                    failures = (
                        fuzzing.run_late_case(name, every[name], case, folder)
                        if args.late
                        else fuzzing.run_linked_case(name, every[name], case, folder)
                        if args.linked
                        else fuzzing.run_cased_case(name, every[name], case, folder)
                        if args.cased
                        else fuzzing.run_writing_case(name, every[name], case, folder)
                        if args.writing
                        else fuzzing.run_fanout_case(
                            name, every[name], case, folder, spent_said=spent
                        )
                        if args.fanout
                        else fuzzing.run_denied_case(name, every[name], case)
                    )
                    ran += 1
                    failed += bool(failures)
                    for failure in failures:
                        print(failure, flush=True)
                    for line in spent if args.costs else ():
                        print(line, flush=True)
                    spent.clear()
                    continue
                failures = fuzzing.run_case(
                    name,
                    every[name],
                    case,
                    folder,
                    tree=args.tree,
                    odd=args.odd,
                    more=args.more,
                    hostile=fuzzing.HOSTILE_WAYS if args.hostile else (),
                    escapes=args.escapes,
                    strange=fuzzing.STRANGE_WAYS if args.strange else (),
                )
                ran += 1
                failed += bool(failures)
                for failure in failures:
                    print(failure, flush=True)
    took = time.monotonic() - started
    if args.warm_cold:
        print(f"{ran} homes, {failed} with warm and cold lists apart, {took:.0f} s")
        return 1 if failed else 0
    print(f"{ran} mutants over {len(names)} homes, {failed} failed, {took:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
