#!/usr/bin/env python3
"""Write src/sessdex/sources/_facts.py: what `doctor` says of each built-in source
(CHECKED_WITH, NEWEST_CHECKED, ENV_VARS, and which of its hooks it has), and the folders
its `locate` gives in a home no variable moves (FOLDERS, what `export -o` keeps out of),
read from the sources themselves, so that a warm doctor or an export need not import all
34 of them to say it.

Run it after changing any of those in a source; `--check` says whether the file is out
of date (tests/test_source_facts.py checks the same). Usage:

    .venv/bin/python scripts/make-source-facts.py [--check]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "sessdex" / "sources" / "_facts.py"
sys.path.insert(0, str(ROOT / "src"))

from sessdex import sources  # noqa: E402
from sessdex.sources import Home  # noqa: E402

HEAD = '''"""What `doctor` says of each built-in source without importing it: the versions its
files were checked with, the newest of them, the variables it reads, and which of the
hooks doctor calls (`found`, `doctor_notes`, `looked_in`) it has: doctor loads a
source for those alone. FOLDERS: where its `locate` puts the app in a home that no
variable moves, relative to that home (root, also, keeps, owned), as `export -o`
keeps out of them. Written by scripts/make-source-facts.py from the sources;
tests/test_source_facts.py checks it.
"""

'''
# a home `locate` is given to say its folders relative to it: no variable set
PLACE = Path("/home/sessdex-facts")

# the hooks of a source that doctor calls where it has them
HOOKS_DOCTOR_CALLS = ("found", "doctor_notes", "looked_in")


def text() -> str:
    """The module, as the sources say it today (before `ruff format`)."""
    loaded = [sources.get(name) for name in sources.BUILTIN]
    checked = {s.NAME: s.CHECKED_WITH for s in loaded}
    newest = {s.NAME: getattr(s, "NEWEST_CHECKED", None) for s in loaded}
    variables = {s.NAME: tuple(s.ENV_VARS) for s in loaded}
    hooks = {
        s.NAME: tuple(h for h in HOOKS_DOCTOR_CALLS if callable(getattr(s, h, None)))
        for s in loaded
    }
    folders = {s.NAME: folders_of(s) for s in loaded}
    return (
        HEAD
        + f"CHECKED_WITH: dict[str, str] = {checked!r}\n\n"
        + f"NEWEST_CHECKED: dict[str, str | None] = {newest!r}\n\n"
        + f"ENV_VARS: dict[str, tuple[str, ...]] = {variables!r}\n\n"
        + f"HOOKS: dict[str, tuple[str, ...]] = {hooks!r}\n\n"
        + "FOLDERS: dict[\n    str, tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...] | None]\n"
        + f"] = {folders!r}\n"
    )


def folders_of(
    source: sources.Source,
) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...] | None]:
    """(root, also, keeps, owned) of `source` in a home no variable moves, each relative
    to that home (POSIX separators)."""
    found = source.locate(Home(PLACE, {}))

    def at(path: Path) -> str:
        return path.relative_to(PLACE).as_posix()

    owned = None if found.owned is None else tuple(map(at, found.owned))
    also, keeps = tuple(map(at, found.also)), tuple(map(at, found.keeps))
    return at(found.root), also, keeps, owned


def formatted(source: str) -> str:
    """`source` as `ruff format` writes it (the project's venv's ruff)."""
    ruff = ROOT / ".venv" / "bin" / "ruff"
    done = subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(TARGET), "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; 1 if stale"
    )
    options = parser.parse_args()
    new = formatted(text())
    if options.check:
        stale = TARGET.read_text(encoding="utf-8") != new
        if stale:
            print(f"{TARGET} is out of date: run scripts/make-source-facts.py")
        return int(stale)
    TARGET.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
