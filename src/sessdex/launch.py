"""The `sessdex` command's entry point: a warm `list`/`find` from the index first, else the CLI.

`SESSDEX_NO_QUICK=1` always takes the full command (to compare the two, or to debug).
"""

from __future__ import annotations

import os
import sys

# `typing` (with `re` and `enum`) costs a warm `list` some 13 ms: the quick path loads none
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def main() -> None:
    from .charset import fit_streams

    fit_streams()
    args = sys.argv[1:]
    try:
        try:
            if args[:1] in (["list"], ["find"]) and not os.environ.get(
                "SESSDEX_NO_QUICK"
            ):
                from .quick import answer

                if answer(args[0], args[1:]):
                    return
            from .cli import main as cli

            cli()
        finally:
            # what stdout still holds is written here, where a failure is said below,
            # not at exit ("Exception ignored", exit 120)
            sys.stdout.flush()
    except KeyboardInterrupt:
        interrupted()
    except BrokenPipeError:  # the reader left (`| head`) before the last write
        from .cli._common import reader_left

        reader_left()
    # writing to a full disk (a warm listing, --help, any output)
    except OSError as error:
        from .cli._common import no_room, out_of_room

        if not no_room(error) or os.environ.get("SESSDEX_DEBUG"):
            raise
        out_of_room(error, output=True)


STATUS_CONTROL_C_EXIT = 0xC000013A  # Windows' status of a program Ctrl-C ended


def interrupted() -> NoReturn:
    """Ctrl-C: stop now, without a traceback (progress bars are cleared on the way
    out), and end as killed by SIGINT, so that the shell says 130 and a loop around
    sessdex stops too (a shell carries on after a child that merely exits 130)."""
    if sys.platform == "win32":
        # os.kill is TerminateProcess there, ending with the signal's number (2, a usage
        # error's status): end as Python does on Ctrl-C there instead
        sys.exit(STATUS_CONTROL_C_EXIT)
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
    sys.exit(130)  # where a signal does not end the process
