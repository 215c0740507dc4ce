"""The `sessdex` command's entry point: a warm `list`/`find` from the index first, else the CLI.

`SESSDEX_NO_QUICK=1` always takes the full command (to compare the two, or to debug).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    from .charset import fit_streams

    fit_streams()
    args = sys.argv[1:]
    if args[:1] in (["list"], ["find"]) and not os.environ.get("SESSDEX_NO_QUICK"):
        from .quick import answer

        if answer(args[0], args[1:]):
            return
    from .cli import main as cli

    cli()
