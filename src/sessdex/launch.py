"""The `sessdex` command's entry point: a warm `list`/`find` from the index first, `usage`
(any report, table or JSON) without click, else the CLI.

`SESSDEX_NO_QUICK=1` always takes the full command (to compare the two, or to debug).
"""

from __future__ import annotations

# the C module `signal` wraps, loaded when Python starts: `signal` itself imports enum,
# which the quick path does not load
import _signal  # type: ignore[import-not-found]
import errno
import io
import os
import sys

# `typing` (with `re` and `enum`) costs a warm `list` some 13 ms: the quick path loads none
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO, NoReturn


# the -X option that tells a sessdex started again in UTF-8 mode its streams' encoding
_STREAMS = "sessdex-streams"


def main() -> None:
    from .charset import fit_streams

    _names_as_utf8()
    _stand_in_for_closed_streams()
    _streams_as_before()
    fit_streams()
    _signal.signal(_signal.SIGTERM, _on_terminate)
    args = sys.argv[1:]
    quick = not os.environ.get("SESSDEX_NO_QUICK")
    try:
        try:
            # a tab press (the shell's script runs `sessdex`), which click answers
            # whatever the arguments
            completing = bool(os.environ.get("_SESSDEX_COMPLETE")) and _named_sessdex()
            if quick and completing:
                from . import quicktab

                if quicktab.answer():
                    return
            elif quick and args[:1] in (["list"], ["find"]):
                from .quick import answer

                if answer(args[0], args[1:]):
                    return
            elif quick and args[:1] == ["usage"]:
                from .quickusage import answer as usage_answer

                if usage_answer(args[1:]):
                    return
            from .cli import run as cli

            cli()
        finally:
            # what stdout still holds is written here, where a failure is said below,
            # not at exit ("Exception ignored", exit 120)
            sys.stdout.flush()
    except KeyboardInterrupt:
        interrupted()
    except Terminated:
        terminated()
    except BrokenPipeError:  # the reader left (`| head`) before the last write
        from .cli._common import reader_left

        reader_left()
    # writing to a full disk (a warm listing, --help, any output)
    except OSError as error:
        from .cli._common import no_room, out_of_room

        if error.errno == errno.EBADF and isinstance(sys.stdout, _ClosedOutput):
            sys.stderr.write(
                "Error: stdout is closed, so there is nowhere to print to; "
                "send it to /dev/null to discard the output.\n"
            )
            sys.exit(1)
        if not no_room(error) or os.environ.get("SESSDEX_DEBUG"):
            raise
        out_of_room(error, output=True)


def _named_sessdex() -> bool:
    """Whether click names this program `sessdex`, and so reads `_SESSDEX_COMPLETE` (as
    `python -m sessdex` it reads another variable)."""
    main = sys.modules.get("__main__")
    return (
        os.name == "posix"
        and getattr(main, "__package__", None) in (None, "")
        and os.path.basename(sys.argv[0]) == "sessdex"
    )


def _names_as_utf8() -> None:
    """Under an ASCII locale with Python's UTF-8 mode off (`LC_ALL=C PYTHONUTF8=0`),
    Python reads every non-ASCII file name as bytes it cannot decode (lone surrogates),
    which no index, JSON or terminal takes: the sessions kept under such names (a home
    named `jösé`, a project folder `-srv-café`) would be left out. The command starts
    again in UTF-8 mode (`-X utf8`: names, arguments and variables read as UTF-8), in
    the same process, its environment unchanged (the programs it runs see what the
    user set); `_streams_as_before` keeps its output in the locale's encoding. Where
    it cannot, it goes on as it is: the names are passed over, and a warning says why."""
    if (
        os.name != "posix"
        or sys.flags.utf8_mode
        or sys.getfilesystemencoding() != "ascii"
        or not sys.executable
        or len(sys.orig_argv) < 2
        or _STREAMS in sys._xoptions  # started again already
    ):
        return
    stdout = sys.stdout
    encoding = stdout.encoding if isinstance(stdout, io.TextIOWrapper) else "ascii"
    argv = [sys.executable, "-X", "utf8", "-X", f"{_STREAMS}={encoding}"]
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: closed by the shell, and so it stays
                stream.flush()
        os.execv(sys.executable, argv + sys.orig_argv[1:])
    except (OSError, ValueError):  # no such program now: as before
        return


def _streams_as_before() -> None:
    """After `_names_as_utf8`: stdout and stderr in the encoding the locale gave them
    before (UTF-8 mode writes UTF-8), so that a terminal set to ASCII gets ASCII, as
    `fit_streams` writes it."""
    encoding = sys._xoptions.get(_STREAMS)
    if not isinstance(encoding, str) or not encoding:
        return
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.encoding != encoding:
            try:
                stream.reconfigure(encoding=encoding)
            except (LookupError, ValueError):  # an encoding this Python lacks
                continue


def warnings_said() -> Callable[[], None]:
    """Have what the library logs as a warning (the `sessdex` logger: a damaged index
    rebuilt, a cache that cannot be written) said on stderr as the command says its own,
    `warning: …`, control characters removed (it quotes paths), until the function
    returned is called. The library's messages name no level: a program's own logging
    format adds it."""
    import logging

    from .views.text import for_stderr

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                said = f"{record.levelname.lower()}: {record.getMessage()}"
                sys.stderr.write(for_stderr(said) + "\n")
                sys.stderr.flush()
            except Exception:
                self.handleError(record)

    logger = logging.getLogger("sessdex")
    handler = Said(logging.WARNING)
    logger.addHandler(handler)
    return lambda: logger.removeHandler(handler)


class _ClosedOutput(io.TextIOWrapper):
    """sys.stdout where the shell closed it (`sessdex list >&-`): writing fails, as on a
    closed descriptor, so the command says why it printed nothing (Python leaves None,
    on which every write was an AttributeError's traceback)."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "stdout is closed")

    def flush(self) -> None:
        pass

    @property
    def buffer(self) -> BinaryIO:
        raise OSError(errno.EBADF, "stdout is closed")


def _stand_in_for_closed_streams() -> None:
    """Descriptors 0, 1 and 2 that the shell closed (`<&-`, `>&-`, `2>&-`) are opened
    on the null device first: the index or a snapshot would otherwise take their
    numbers, and a child (git, the pager, the agent's CLI) write into it. A closed stdin
    reads as empty, not a terminal (resume asks for --yes); a closed stderr drops the
    warnings, as asked; a closed stdout fails the first write (`_ClosedOutput`)."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:  # still closed: hold its number
            held = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if held != fd:  # a lower one was free after all: not ours to fill
                os.close(held)
                continue
        if fd == 0:
            sys.stdin = open(fd, encoding="utf-8", closefd=False)  # noqa: SIM115
        elif fd == 1:
            sys.stdout = _ClosedOutput(io.BytesIO(), encoding="utf-8")
        else:
            sys.stderr = open(fd, "w", encoding="utf-8", closefd=False)  # noqa: SIM115


STATUS_CONTROL_C_EXIT = 0xC000013A  # Windows' status of a program Ctrl-C ended


class Terminated(BaseException):
    """SIGTERM (`kill`, `timeout`), raised where sessdex was, as Ctrl-C raises
    KeyboardInterrupt: what is under way is undone on the way out (a partial export
    or database copy removed, a hidden cursor shown again), where the signal's own
    default ended the process at once, leaving them."""


# set by SIGTERM's handler: raised inside a callback SQLite makes (a user-defined SQL
# function) or a finaliser, its Terminated is swallowed there (an SQLite error, an
# "Exception ignored"), and a loop that keeps going after errors never ended
_terminating = False


def _on_terminate(number: int, frame: object) -> None:
    global _terminating
    _terminating = True
    raise Terminated


def raise_if_terminated() -> None:
    """Raise Terminated again where SIGTERM came and its own was swallowed: asked by the
    commands that run until stopped (`watch`, `follow`) at each of their steps."""
    if _terminating:
        raise Terminated


def _drop_login_copies() -> None:
    """Remove the copies of databases that hold an app's login, as `atexit` would at a
    plain exit: a process that ends by its own signal runs no `atexit` function."""
    databases = sys.modules.get(__package__ + ".databases")
    if databases is not None:
        databases.drop_login_copies()


def terminated() -> NoReturn:
    """After SIGTERM's clean-up: end as killed by it, as before (the shell says 143)."""
    _drop_login_copies()
    _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
    if sys.platform != "win32":  # there os.kill ends the process with status 15
        os.kill(os.getpid(), _signal.SIGTERM)
    sys.exit(143)


def interrupted() -> NoReturn:
    """Ctrl-C: stop now, without a traceback (progress bars are cleared on the way
    out), and end as killed by SIGINT, so that the shell says 130 and a loop around
    sessdex stops too (a shell carries on after a child that merely exits 130)."""
    if sys.platform == "win32":
        # os.kill is TerminateProcess there, ending with the signal's number (2, a usage
        # error's status): end as Python does on Ctrl-C there instead
        sys.exit(STATUS_CONTROL_C_EXIT)
    import signal

    _drop_login_copies()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
    sys.exit(130)  # where a signal does not end the process
