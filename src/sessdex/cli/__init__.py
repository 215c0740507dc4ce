"""The `sessdex` command: a thin click layer over `api`.

stdout carries only results; progress, warnings and hints go to stderr. Exit codes: 0 on
success (an empty result too), 1 for an error we explain, 2 for a usage error. Each
module here holds a few related commands; heavy imports (Rich, watchfiles) happen inside
the commands that need them, so `sessdex list` starts fast.
"""

from __future__ import annotations

import click

from .. import __version__
from ..hints import on_command_line, reading_home
from ..launch import warnings_said
from ._common import CONTEXT


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "--version", "-V", prog_name="sessdex")
def main() -> None:
    """Find, resume, read and count every AI coding agent session on this machine.

    \b
    Examples:
      sessdex list --limit 20
      sessdex find checkout branch:fix/
      sessdex resume 7f3a --print
    """
    # no --home until one is given, and none once the command ends, however it ends (a
    # test, a program, runs many commands and library calls in one process)
    reading_home(None)
    on_command_line(True)  # values are named as its options (`--since`, not `since=`)
    ending = click.get_current_context()
    ending.call_on_close(lambda: reading_home(None))
    ending.call_on_close(lambda: on_command_line(False))
    ending.call_on_close(warnings_said())  # said until the command ends


# Importing the command modules registers their commands on `main`.
from . import live, sessions, transcripts, usage  # noqa: E402

__all__ = ["live", "main", "sessions", "transcripts", "usage"]
