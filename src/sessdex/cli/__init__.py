"""The `sessdex` command: a thin click layer over `api`.

stdout carries only results; progress, warnings and hints go to stderr. Exit codes: 0 on
success (an empty result too), 1 for an error we explain, 2 for a usage error. Each
module here holds a few related commands; heavy imports (Rich, watchfiles) happen inside
the commands that need them, so `sessdex list` starts fast.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from typing import IO, Any

import click

from .. import __version__
from ..errors import typed
from ..hints import named, on_command_line, program_typed, reading_home
from ..launch import warnings_said
from ._common import (
    CONTEXT,
    TYPED,
    Example,
    command_needed,
    option_meant,
    value_left_out,
)

# what a user may type from other tools' habits, and the command that does it here
_MEANT = {
    "search": "find",
    "grep": "find",
    "ls": "list",
    "cat": "show",
    "view": "show",
    "read": "show",
    "log": "show",
    "open": "resume",
    "continue": "resume",
    "cost": "usage",
    "costs": "usage",
    "stats": "usage",
    "tokens": "usage",
    "status": "watch",
    "ps": "watch",
    "top": "watch",
    "tail": "follow",
}


# stand for a hyphen between letters and a space in click's `[0 or more]` while click
# wraps the help, which broke a line after them (`a sub-` over `agent's`, `[0` over
# `or more]`); one character each, so the widths stay right
_JOINED = "\u2011"
_KEPT = "\ue000"


def _joined(text: str) -> str:
    """`text` with each hyphen that joins letters (`sub-agent`) one no wrap breaks at."""
    import re

    return re.sub(r"(?<=[^\W\d])-(?=[^\W\d])", _JOINED, text)


def _kept(text: str, room: int) -> str:
    """`text` with the `[default: …; 0 or more]` click ends an option's help with kept
    on one line, where it fits in `room` columns."""
    head, bracket, tail = text.rpartition("  [")
    if not bracket or not tail.endswith("]") or len(tail) + 1 > room:
        return text
    return f"{head}  [{tail.replace(' ', _KEPT)}"


class _Formatter(click.HelpFormatter):
    """click's, but a line is broken only at its spaces: click cut a word wider than
    the usage line, `usage`'s `[daily|weekly|month` over `ly|session|…]`, and broke
    the help's words at their hyphens (`a sub-` over `agent's`)."""

    def write(self, string: str) -> None:
        super().write(string.replace(_JOINED, "-").replace(_KEPT, " "))

    def write_text(self, text: str) -> None:
        super().write_text(_joined(text))

    def write_dl(
        self,
        rows: Iterable[tuple[str, str]],
        col_max: int = 30,
        col_spacing: int = 2,
    ) -> None:
        rows = list(rows)
        first_column = min(max((len(first) for first, _ in rows), default=0), col_max)
        room = max(self.width - first_column - col_spacing - 2, 10)  # as click's
        rows = [(first, _kept(_joined(second), room)) for first, second in rows]
        super().write_dl(rows, col_max, col_spacing)

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        import textwrap

        head = (
            f"{'Usage: ' if prefix is None else prefix:>{self.current_indent}}{prog} "
        )
        room = self.width - self.current_indent
        longest = max((len(word) for word in args.split()), default=0)
        # the words under the command's name, as click puts them, where the longest
        # fits there; else near the edge, where it may
        indent = len(head) if len(head) + longest <= room else 2
        lines = textwrap.wrap(
            args,
            room,
            initial_indent=head,
            subsequent_indent=" " * indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
        self.write("\n".join(lines) if lines else head.rstrip())
        self.write("\n")


class _Context(click.Context):
    formatter_class = _Formatter


class _Commands(click.Group):
    """The command group, saying which command was meant for a name it does not have:
    a typo's nearest (as click 8.4+ does, for older clicks too) or a synonym's. Its
    commands' help and usage lines come from `_Formatter`."""

    context_class = _Context

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        cmd.context_class = _Context
        if cmd.short_help is None and cmd.help:
            # its first sentence whole, wrapped as a `short_help` given is: click cut
            # the one it makes at the room a narrow terminal leaves ("on a small...")
            first = " ".join(cmd.help.split("\n\n", 1)[0].split())
            cmd.short_help = first.partition(". ")[0].removesuffix(".") + "."
        super().add_command(cmd, name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if (
            ctx.resilient_parsing  # shell completion: no message
            or name.startswith("-")  # click says "No such option"
            or self.get_command(ctx, name) is not None
        ):
            return self._with_values(ctx, *super().resolve_command(ctx, args))
        import difflib

        asked = args[1].lower() if len(args) > 1 else ""
        if name.lower() == "help" and self.get_command(ctx, asked) is not None:
            hint = f" Try '{ctx.command_path} {asked} --help'."  # `help show`, as git's
        elif name.lower() == "help":
            hint = f" Try '{ctx.command_path} --help', or '{ctx.command_path} COMMAND --help'."
        elif name.lower() == "version":
            hint = f" Try '{ctx.command_path} --version'."
        else:
            close = difflib.get_close_matches(
                name.lower(), self.list_commands(ctx), n=1
            )
            meant = _MEANT.get(name.lower()) or next(iter(close), None)
            hint = f" Did you mean '{meant}'?" if meant else ""
        raise click.UsageError(f"No such command {typed(name)}.{hint}", ctx)

    def _with_values(
        self,
        ctx: click.Context,
        name: str | None,
        command: click.Command | None,
        args: list[str],
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command resolved, where no option of it is given the next option for its
        value (`list --since --home DIR`): that is said as an option given no value at
        the line's end is, with what it takes."""
        if command is None or ctx.resilient_parsing:
            return name, command, args
        option = value_left_out(command, args, ctx.help_option_names)
        if option is None:
            return name, command, args
        error = click.BadOptionUsage(option, f"Option '{option}' requires an argument.")
        raise _with_choices(error, _Context(command, ctx, name))

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as error:
            raise _fitted(error) from error.__cause__

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:
            # `sessdex` alone asks what it does: the help on stdout, exit 0, as
            # `--help` gives it (click 8.2+ made it a usage error on stderr, exit 2)
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit()
        given = list(args)  # the parser takes words off the list it is given
        ctx.meta[TYPED] = tuple(given)  # `usage --color always`: the value, to a hint
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            moved = self._after_the_command(ctx, error.option_name, given)
            if moved is None and error.option_name in ("-v", "--verbose"):
                # `sessdex -v` for the version, as many tools take it: here it is -V,
                # and -v is --verbose on a command
                option = error.option_name
                version = " Did you mean '-V' (the version)?" if option == "-v" else ""
                raise click.UsageError(
                    f"{error.message}{version} {option} goes after a command: "
                    f"{named('list', option)}.",
                    ctx,
                ) from None
            # the command named, past any value the option was given (`--limt 5 list`)
            commands = self.list_commands(ctx)
            command = next((w for w in given if w in commands), None)
            sub = self.get_command(ctx, command) if moved is None and command else None
            if sub is not None and command is not None:
                # `sessdex --no-color list`, `--jsn list`: as `list --no-color` says
                meant = option_meant(sub, error) or _misspelt(sub, command, ctx, error)
                raise _after(meant, command, given, error.option_name) from None
            if moved is None:
                raise command_needed(error, given) or error from None
            raise click.UsageError(
                f"{error.option_name} goes after the command: {named(*moved)}.",
                ctx,
            ) from None

    def invoke(self, ctx: click.Context) -> object:
        try:
            try:
                return super().invoke(ctx)
            except click.BadOptionUsage as error:
                name = ctx.invoked_subcommand
                command = (
                    self.get_command(ctx, name) if name and error.ctx is None else None
                )
                if command is None:
                    raise
                raise _with_choices(error, _Context(command, ctx, name)) from None
            except click.NoSuchOption as error:
                # `list --lines 5`: the command's own -n, whatever command it is
                meant = error.ctx and option_meant(error.ctx.command, error)
                raise meant or error from None
        except click.ClickException as error:
            raise _fitted(error) from error.__cause__

    def _after_the_command(
        self, ctx: click.Context, option: str, args: list[str]
    ) -> list[str] | None:
        """`sessdex --home DIR list` (as `git -C DIR log` is typed) as it is meant,
        `sessdex list --home DIR`, where a command takes that option; else None."""
        at = next((i for i, arg in enumerate(args) if self.get_command(ctx, arg)), None)
        if not at or not option.startswith("-"):
            return None
        command = self.get_command(ctx, args[at])
        assert command is not None
        taken = {name for p in command.params for name in p.opts}
        if option.split("=", 1)[0] not in taken:
            return None
        return [args[at], *args[:at], *args[at + 1 :]]


def _after(
    error: click.ClickException, command: str, given: list[str], option: str
) -> click.ClickException:
    """`sessdex --today list`'s "Did you mean '--since today'?" as the line that takes
    it, the option after the command ('sessdex list --since today'), with the value
    typed after it (`--limt 5 list`: 'sessdex list --limit 5'): typed where it was, the
    option the hint offers fails as this one did."""
    said = _OFFERED.search(error.message)
    if said is None or not isinstance(error, click.UsageError):
        return error
    # `--limt=5` is one word, its value in it: none to carry
    at = given.index(option) + 1 if option in given else len(given)
    value = given[at : given.index(command)] if command in given else []
    line = named(command, *said.group(1).split(), *value)
    message = error.message.replace(said.group(0), f"Did you mean {line}?")
    return click.UsageError(message, error.ctx)


# a hint's offered option ("Did you mean '--since today'?")
_OFFERED = re.compile(r"Did you mean '(-[^']*)'\?")


def _misspelt(
    command: click.Command, name: str, ctx: click.Context, error: click.NoSuchOption
) -> click.ClickException:
    """`sessdex --jsn list` answered as `sessdex list --jsn` is ("Did you mean
    '--json'?"): the option given to the command alone, for click to say what it
    would say of it there; `error` where it says nothing of it."""
    try:
        command.make_context(name, [error.option_name], parent=ctx)
    except click.UsageError as there:  # a command may say it in its own words
        if there.format_message().startswith(error.format_message()):
            return there
    except click.ClickException:
        pass
    return error


def _fitted(error: click.ClickException) -> click.ClickException:
    """`error`, said on a terminal broken at spaces to its width, as sessdex's own notes
    are (`views.text.for_stderr`): click's `Error: No such option ...` ran past the edge,
    cut mid-word. Where click is told where to say it, or stderr is no terminal, it is
    said as click says it."""
    show = error.show

    def fitted(file: IO[Any] | None = None) -> None:
        from ..views.text import broken, stderr_width

        width = stderr_width()
        if file is not None or width is None:
            return show(file)
        said = io.StringIO()
        show(said)
        lines = said.getvalue().split("\n")
        click.echo("\n".join(broken(line, width) for line in lines), nl=False, err=True)

    error.show = fitted  # type: ignore[method-assign]
    return error


def _with_choices(
    error: click.BadOptionUsage, ctx: click.Context
) -> click.BadOptionUsage:
    """`show ID --detail` (or `--subagents`, `export -f`) given no value: click says only
    "Option '--detail' requires an argument."; the values such an option takes, said with
    it, are what was missing (an `Example` option: what it needs, and an example). Any
    other misuse is kept as click words it."""
    option = next(
        (
            p
            for p in ctx.command.params
            if error.option_name in p.opts or error.option_name in p.secondary_opts
        ),
        None,
    )
    missing = error.message.endswith("requires an argument.")
    if missing and isinstance(option, Example):
        return click.BadOptionUsage(
            error.option_name,
            f"{error.option_name} needs {option.needs}, "
            f"e.g. {option.example.replace('{}', error.option_name)}.",
            ctx,
        )
    if option is None or not isinstance(option.type, click.Choice) or not missing:
        error.ctx = ctx  # the command's usage line above the message, as click gives it
        return error
    choices = ", ".join(str(choice) for choice in option.type.choices)
    return click.BadOptionUsage(
        error.option_name, f"{error.message[:-1]}: one of {choices}.", ctx
    )


@click.group(cls=_Commands, context_settings=CONTEXT)
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


def run() -> None:
    """`main`, its usage lines ("Try '… --help'") naming sessdex as it was run, as the
    hints do (`.venv/bin/sessdex`, `/x/python -m sessdex`): click names the file's name
    alone, or a bare `python`, neither found by a shell where sessdex is not on PATH.
    Tab completion keeps click's own name: its variable (`_SESSDEX_COMPLETE`), and the
    command a completion script registers (`sessdex`, which shells also find for any
    path ending in `/sessdex`; the path it was made by was that path alone)."""
    import os

    name = _click_name()
    detected = name.replace("-", "_").replace(".", "_")
    complete_var = f"_{detected}_COMPLETE".upper()
    completing = bool(os.environ.get(complete_var))
    prog_name = name if completing else program_typed()
    main(prog_name=prog_name, complete_var=complete_var)


def _click_name() -> str:
    """The name click gives this program where none is given: `sessdex` (the file's
    name), or `python -m sessdex`. click's function for it is private: where it is gone
    or changed, the same read here, rather than no command running at all."""
    try:
        from click.utils import _detect_program_name

        return str(_detect_program_name())
    except (ImportError, TypeError):
        import os
        import sys

        from ..hints import run_as_module

        if run_as_module():
            return "python -m sessdex"
        return os.path.basename(sys.argv[0]) if sys.argv else "sessdex"


# Importing the command modules registers their commands on `main`.
from . import live, sessions, transcripts, usage  # noqa: E402

__all__ = ["live", "main", "sessions", "transcripts", "usage"]
