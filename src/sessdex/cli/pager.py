"""Paging a transcript as it is read, as git pages its log.

The pager starts with the first line and reads the rest as it comes, so the first
screen shows at once and nothing is held back in memory. Quitting the pager early ends
the read (the next write meets a closed pipe).
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from .. import charset
from ._common import err


def pager_command() -> str | None:
    """The shell command of the pager to start: $PAGER (run by the shell, as git and
    Python's pydoc run it, so `less -RS` or `delta | less` work), else `less`, else
    `more`; None where there is none, or $PAGER's program is not there (said once: it
    would swallow the transcript behind a shell's "not found"), and None on a terminal
    that runs no full-screen program unless $PAGER names one (as pydoc and click do)."""
    command = os.environ.get("PAGER", "").strip()
    windows = sys.platform == "win32"
    if not command:
        if os.environ.get("TERM") in ("dumb", "emacs"):
            # less would stop at "terminal is not fully functional", waiting for a key
            return None
        found = shutil.which("less") or shutil.which("more")
        if found is None:
            return None
        # cmd.exe runs it there, which takes double quotes and no single ones
        return subprocess.list2cmdline([found]) if windows else shlex.quote(found)
    try:  # cmd.exe keeps a backslash as it is: C:\Program Files\…
        words = shlex.split(command, posix=not windows)
    except ValueError as error:
        if "quotation" in str(error):  # the shell fails too: its program may be there
            err(
                f"warning: the shell cannot read $PAGER ({command}): a quote is left "
                "open; printing directly"
            )
            return None
        words = [command]
    if windows:
        program: str | None = words[0].strip('"') if words else None
    else:
        program = _program(words)
        if program is None:  # only the shell can tell: its own "not found" it is
            return command
    if program and shutil.which(program):
        return command
    err(f"warning: the pager in $PAGER ({command}) was not found; printing directly")
    return None


def _program(words: list[str]) -> str | None:
    """The program a POSIX shell would run for these words, as git's pager is run: past
    the variables set for it (`LESS=FRX less`), its ~ expanded; None where only the shell
    can tell ($VAR, `cmd`, a shell keyword or builtin). "" for no program at all."""
    for word in words:
        name, equals, _ = word.partition("=")
        if equals and name.isascii() and name.isidentifier():
            continue  # NAME=value, for the pager's environment
        if (
            "$" in word
            or "`" in word
            or word in _SHELL_WORDS
            or word.startswith(("(", "{"))
        ):
            return None
        return os.path.expanduser(word) if word.startswith("~") else word
    return ""


# what `sh -c` runs that is no program on PATH
_SHELL_WORDS = frozenset(
    ("exec", "command", "eval", "if", "for", "while", "until", "case", "!")
)


@contextmanager
def paged(command: str) -> Iterator[TextIO | None]:
    """A text stream into a started pager (None if it would not start): written lines
    show as they come. Leaving waits for the pager to end, as the terminal is its."""
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")  # one screen: print and quit; keep colours; no clear
    env.setdefault("LV", "-c")
    try:
        process = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError as error:
        err(f"warning: could not start the pager ({error}); printing directly")
        yield None
        return
    assert process.stdin is not None
    # line by line: the first screen shows as soon as its lines are read; in the
    # terminal's encoding, which the pager shows
    charset.register()
    stream = io.TextIOWrapper(
        process.stdin,
        encoding=getattr(sys.stdout, "encoding", None) or "utf-8",
        errors=charset.FALLBACK,
        line_buffering=True,
    )
    try:
        yield stream
    finally:
        with contextlib.suppress(BrokenPipeError):  # the pager quit before the end
            stream.close()
        while True:
            try:
                process.wait()
                break
            except KeyboardInterrupt:  # Ctrl-C reaches both; the pager decides
                continue
