"""What every command shares: options, error handling, output helpers, progress."""

from __future__ import annotations

import functools
import itertools
import os
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar, cast

import click

from .. import api, folders, hints, sources
from ..diagnostics import (
    FILE_REFUSED,
    UNDATED,
    Diagnostics,
    damaged_lines,
    detail,
    is_damage,
    undated,
    unfinished_line,
    unreadable_lines,
)
from ..diagnostics import refused as refused_words
from ..errors import AmbiguousId, BadValue, SessdexError, typed
from ..hints import reading_home
from ..index import RefreshReport, once_more_if_damaged
from ..launch import interrupted
from ..model import Event
from ..sources import Home
from ..views.progress import Bar as Bar
from ..views.progress import progress_after as progress_after
from ..views.progress import progress_bar as progress_bar
from .completion import app_names

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# --- shared options ------------------------------------------------------------------------


# Counts a user may pass (--limit, --tail, -n) are clamped to this: any more is "all", and
# a bigger number would overflow SQLite's LIMIT or a bounded queue.
MANY = 10**9


class Count(click.IntRange):
    """A count of 0 or more, named as people say it: click's "'abc' is not a valid
    integer range." named a type, not what to type."""

    name = "whole number"

    def _describe_range(self) -> str:
        return ""  # `--help` said `[x>=0]`; each count's help says "0 shows none."

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Any:
        return at_least(
            click.types.IntParamType.convert, self, value, param, ctx, "a count"
        )


def at_least(
    plain: Callable[[Any, Any, click.Parameter | None, click.Context | None], Any],
    bounded: click.IntRange | click.FloatRange,
    value: Any,
    param: click.Parameter | None,
    ctx: click.Context | None,
    what: str,
) -> Any:
    """`value` read by `plain` (a number type's convert, which names `bounded`), refused
    below `bounded.min` as people say it, "-1 is not a count: give 0 or more.", where
    click said "-1 is not in the range x>=0.". `--help` says its bound in words too."""
    number = plain(bounded, value, param, ctx)
    if bounded.min is not None and number < bounded.min:
        bounded.fail(
            f"{value} is not {what}: give {bounded.min:g} or more.", param, ctx
        )
    return number


class Example(click.Option):
    """An option that, given no value, says what it `needs` and an `example` of it, where
    click said only "Option '--tz' requires an argument."; `{}` in the example is the
    option as it was typed (`-n 20`, `--limit 20`)."""

    def __init__(
        self, names: Sequence[str], *, needs: str, example: str, **settings: Any
    ) -> None:
        super().__init__(names, **settings)
        self.needs = needs
        self.example = example


def count_option(*names: str, help: str, **settings: Any) -> Callable[[F], F]:
    """A count (--limit, --tail, -n): 0 shows none, as `head -n 0` does; a negative
    one is a usage error; one past MANY is MANY."""

    def at_most_many(
        _ctx: click.Context, _param: click.Parameter, value: int | None
    ) -> int | None:
        return value if value is None else min(value, MANY)

    return click.option(
        *names,
        cls=Example,
        needs="a count",
        example="{} 20",
        type=Count(min=0),
        metavar="N",
        callback=at_most_many,
        help=f"{help} 0 shows none.",
        **settings,
    )


def session_id_argument(f: F) -> F:
    """The SESSION_ID argument: an id, a unique start of one, or `app:id`; completed by
    the shell from the index."""
    from .completion import session_ids

    def not_empty(_: click.Context, __: click.Parameter, value: str) -> str:
        told = api.id_left_out(value)
        if told is not None:  # as the library says it (`api.resolve`), a sentence
            raise click.BadParameter(f"{told}.")
        return value

    return click.argument(
        "session_id", cls=_SessionId, shell_complete=session_ids, callback=not_empty
    )(f)


class _SessionId(click.Argument):
    """A SESSION_ID left out says where ids are found, as an empty one does: click's
    bare "Missing argument 'SESSION_ID'." gave no way on."""

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        try:
            return super().process_value(ctx, value)
        except click.MissingParameter:
            raise click.MissingParameter(
                f"Give an id, or the start of one ({hints.named('list')}).", ctx, self
            ) from None


def value_left_out(
    command: click.Command, args: Sequence[str], help_names: Sequence[str]
) -> str | None:
    """The option in `args` given no value but the command's next option (`list --since
    --home DIR`), else None: click took that option for the value, and said what came
    after it was wrong ("list takes no words", of DIR), or wrote a file of its name
    (`-o --home`)."""
    options = [p for p in command.params if isinstance(p, click.Option)]
    names = {name for p in options for name in (*p.opts, *p.secondary_opts)}
    # an option whose value may be left out (`--app`) takes no option for it already
    takes = {
        name
        for p in options
        if not (p.is_flag or p.count or p._flag_needs_value)
        for name in p.opts
    }
    for word, after in itertools.pairwise(args):
        if word == "--":  # the rest are words, whatever they look like
            return None
        if word in takes and after.split("=", 1)[0] in {*names, *help_names}:
            return word
    return None


class _SaysItsWords(click.Command):
    """A command given words it does not take: `words_error` says what it takes, not
    click's bare "Got unexpected extra argument"; a count option another tool spells
    (`--limit`) is named as the command's own `-n`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.allow_extra_args = True  # kept in ctx.args, said below
        given = list(args)  # the parser takes words off the list it is given
        try:
            rest = super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            meant = (
                export_meant(self, error, given)
                or dashed_id_meant(self, error, given)
                or option_meant(self, error, given)
            )
            raise meant or error from None
        except click.BadParameter as error:  # `show -nabc`: `-n`'s value, 'abc'
            raise dashed_value_meant(self, error, given) or error from None
        if ctx.args and not ctx.resilient_parsing:
            raise self.words_error(ctx)
        return rest

    def words_error(self, ctx: click.Context) -> click.UsageError:
        raise NotImplementedError


class TakesNoWords(_SaysItsWords):
    """A command that takes options only, given words: an app's names (`sessdex doctor
    claude`) get the `--app` line that keeps to them; others what `other_words` says."""

    def words_error(self, ctx: click.Context) -> click.UsageError:
        told = apps_meant((self.name or "",), ctx.args) or self.other_words(ctx)
        return click.UsageError(f"sessdex {self.name} takes no words; {told}", ctx)

    def other_words(self, ctx: click.Context) -> str:
        return "an app's name goes after --app, and the rest is in --help."


class TakesOneId(_SaysItsWords):
    """A command of one SESSION_ID given more words (a title typed after the id, or two
    ids): said what it takes and the `find` that looks for the words."""

    def words_error(self, ctx: click.Context) -> click.UsageError:
        given = ctx.params.get("session_id")
        if isinstance(given, str) and _only_options(self, ctx.args):
            # `show -- -abc --home H`: past `--` the options were words too
            line = hints.named(*hints.with_id(self.name or "", given, *ctx.args))
            return click.UsageError(
                f"sessdex {self.name} takes one session id, and "
                f"{typed(' '.join(ctx.args))} came after it, past '--', where an "
                f"option is a word too; {line} gives them as options.",
                ctx,
            )
        words = [*([given] if isinstance(given, str) else []), *ctx.args]
        if any(word.startswith("-") for word in words):  # words after `--`: find's too
            words.insert(0, "--")
        return click.UsageError(
            f"sessdex {self.name} takes one session id, and "
            f"{typed(' '.join(ctx.args))} came after it; "
            f"{hints.named('find', *words)} finds sessions by their words.",
            ctx,
        )


def _valued_options(command: click.Command) -> set[str]:
    """The names of the command's options that take a value (`--home DIR`, `-n 5`)."""
    return {
        name
        for p in command.params
        if isinstance(p, click.Option) and not p.is_flag and not p.count
        for name in p.opts
    }


def _only_options(command: click.Command, words: Sequence[str]) -> bool:
    """Whether `words` are all the command's own options, each with its value."""
    valued = _valued_options(command)
    flags = {name for p in command.params for name in (*p.opts, *p.secondary_opts)}
    rest = iter(words)
    for word in rest:
        name, equals, _ = word.partition("=")
        if name in valued and not equals:
            if next(rest, None) is None:
                return False
        elif name not in flags:
            return False
    return bool(words)


def options_at_end(command: click.Command, words: Sequence[str]) -> int | None:
    """Where a run of the command's own options, each with its value, ends `words`
    (after one word at least) from one `_said_at_end`, else None: words past `--`, where
    `find`'s options typed after them were taken for words to find."""
    for at in range(1, len(words)):
        if _said_at_end(command, words[at]) and _only_options(command, words[at:]):
            return at
    return None


def _said_at_end(command: click.Command, word: str) -> bool:
    """Whether `word`, past `--`, is an option the user meant as one where it starts the
    options that end the line: one taking a value (`--home DIR`, `-n 5`) or an output
    (`--json`), which no search looks for. A flag of the command's own that is a word of
    other tools' too (`pytest -v`, `git add --all`) stays a word to find, as `--` says."""
    name = word.partition("=")[0]
    return any(
        name in p.opts
        and (p.name in ("as_json", "as_nl") or not (p.is_flag or p.count))
        for p in command.params
        if isinstance(p, click.Option)
    )


# how other tools (and `export`) ask for an output format: the command's --json instead
_FORMAT_WORDS = frozenset({"--format", "-f", "--output-format", "--output", "-o"})
_FORMAT_OPTIONS = {
    ("--json", "--nl"): "'--json' (or '--nl', one object a line)",
    ("--json",): "'--json'",
    ("--nl",): "'--nl' (one JSON object a line)",
}

# how many to show, as other tools and sessdex's own list spell it: the command's -n
_COUNT_WORDS = frozenset({"--limit", "--lines", "--tail", "--last", "--count"})


# when sessions were active, as list, find and usage take it: a session's commands take none
_TIME_WORDS = frozenset({"--since", "--until"})

# a day typed as an option of its own (`list --today`): the --since value meant
_DAY_OPTIONS = {"--today": "today", "--yesterday": "yesterday"}

# colour asked for or off with an option, as other tools take it: the environment's here
_COLOUR_OPTIONS = frozenset({"--color", "--colour", "--no-color", "--no-colour"})
# where the group keeps the words sessdex was given (`ctx.meta`), for a hint to read
TYPED = "sessdex.typed"

# `--color always`: colour asked for into a pipe too, as FORCE_COLOR gives it
_COLOUR_ON = frozenset({"always", "force", "yes", "on"})
# `--color auto`: what sessdex does with none given
_COLOUR_AUTO = frozenset({"auto", "tty", "if-tty"})

# a field `find` narrows by with a word, typed as an option of `list` or `find`
# (`list --branch main`): that word's filter
_FIELD_OPTIONS = {
    "--branch": "branch",
    "--dir": "dir",
    "--cwd": "dir",
    "--folder": "dir",
    "--title": "title",
    "--id": "id",
}

# what a field is called in a sentence, where its word says it otherwise
_FIELD_NAMES = {"dir": "folder"}

# a file `export` writes that a command printing a transcript does not: its names
_EXPORTED = {"md": "Markdown", "markdown": "Markdown", "html": "HTML", "htm": "HTML"}


def _format_flag(option: str) -> str | None:
    """`--html`, `--md` or `--markdown` (any case): the format `-f` takes for it."""
    name = option.lower().removeprefix("--")
    return name if option.startswith("--") and name in _EXPORTED else None


def export_meant(
    command: click.Command, error: click.NoSuchOption, given: Sequence[str]
) -> click.UsageError | None:
    """`show 7f3a -f md` or `show 7f3a -o notes.html` as meant: the `export` line that
    writes that Markdown or HTML, where `option_meant` named `--json`. None for a
    command that exports itself or takes no session, and for any other value."""
    option = error.option_name.partition("=")[0]
    names = {name for p in command.params for name in p.opts}
    flag = _format_flag(option)  # `show 7f3a --html`: a format named as a flag
    if (option not in _FORMAT_WORDS and flag is None) or "--format" in names:
        return None
    if "--json" in given or "session_id" not in {p.name for p in command.params}:
        return None
    valued = _valued_options(command)
    found: dict[str, str] = {}  # the unknown option's value, and --home's
    session, skip = None, False
    for at, word in enumerate(given):
        name, equals, held = word.partition("=")
        if skip:
            skip = False
        elif word == option and flag is not None:
            found[option] = flag
        elif word in (option, "--home") and at + 1 < len(given):
            found[word], skip = given[at + 1], True
        elif equals and name in (option, "--home"):
            found[name] = held
        elif word.startswith("-"):
            skip = word in valued
        elif session is None:
            session = word
    value, home = found.get(option), found.get("--home")
    if value is None or session is None:
        return None
    writes = option in ("-o", "--output")
    kind = os.path.splitext(value)[1].lstrip(".") if writes else value
    if kind.lower() not in _EXPORTED:
        return None
    # the command never ran, so its --home is not known to the hints yet: said here
    words = ["export", session, option if writes else "-f", value]
    if flag is not None:
        words = ["export", session, "-f", flag]
    line = hints.named(*words, *(["--home", home] if home is not None else []))
    return click.UsageError(
        f"{error.message} {line} writes the session as {_EXPORTED[kind.lower()]}.",
        error.ctx,
    )


def dashed_id_meant(
    command: click.Command, error: click.NoSuchOption, given: Sequence[str]
) -> click.UsageError | None:
    """`show -abc12345`, an id as `list` shows one that starts with '-': the line that
    gives it after `--`, where click said only "No such option '-a'". None where
    click guessed an option meant (`--no-pagr`), or the command takes no id."""
    if error.possibilities or "session_id" not in {p.name for p in command.params}:
        return None
    option = error.option_name
    words = itertools.takewhile(lambda word: word != "--", given)
    # a short option's letters run together: '-a' is the start of the word typed, or a
    # letter past those that are options (`-v1abc`: `-v`, then no `-1`)
    params = command.get_params(error.ctx) if error.ctx else command.params
    typed = next((w for w in words if _fails_at(w, option, params)), None)
    if typed is None:
        return None
    others = list(given)
    others.remove(typed)
    if not _only_options(command, others):  # the --home alone: where the id is
        home = _given_home(given)
        others = ["--home", home] if home is not None else []
    words_meant = hints.with_id(command.name or "", typed, *others)
    return click.UsageError(
        f"{error.message} An id that starts with '-' goes after '--': "
        f"{hints.named(*words_meant)}.",
        error.ctx,
    )


def dashed_value_meant(
    command: click.Command, error: click.BadParameter, given: Sequence[str]
) -> click.UsageError | None:
    """`show -nabc`, a dashed id whose second letter is an option taking a value
    (`-n`): click read the rest as that value ("'abc' is not a valid whole number");
    the line that gives the id after `--`, as for every other dashed id. None where an
    id was given besides, or the word is no such run of letters."""
    option = error.param
    if not isinstance(option, click.Option) or "session_id" not in {
        p.name for p in command.params
    }:
        return None
    words = itertools.takewhile(lambda word: word != "--", given)
    params = command.get_params(error.ctx) if error.ctx else command.params
    typed = next(
        (w for w in words if any(_fails_at(w, o, params, 2) for o in option.opts)),
        None,
    )
    if typed is None:
        return None
    others = list(given)
    others.remove(typed)
    if others and not _only_options(command, others):  # an id too: -n's value it was
        return None
    home = _given_home(given)
    if home is not None:  # read already (hints.reading_home): the line adds it
        others = _without_home(others)
    words_meant = hints.with_id(command.name or "", typed, *others)
    line = hints.named(*words_meant) if home is None else hints.named_at(home, *words_meant)  # fmt: skip
    return click.UsageError(
        f"{error.format_message()} An id that starts with '-' goes after '--': {line}.",
        error.ctx,
    )


def _without_home(words: Sequence[str]) -> list[str]:
    """`words` without their `--home` and its folder."""
    kept: list[str] = []
    rest = iter(words)
    for word in rest:
        if word == "--home":
            next(rest, None)
        elif not word.startswith("--home="):
            kept.append(word)
    return kept


def _fails_at(
    word: str, option: str, params: Sequence[click.Parameter], rest: int = 0
) -> bool:
    """Whether click, reading `word` as short options run together (`-v1abc`: `-v`,
    `-1`, …), stops at `option`: each letter before it an option taking no value, and
    at least `rest` characters of the word from `option`'s letter on (2: a value
    after it)."""
    if len(word) < 3 or word.startswith("--") or not word.startswith("-"):
        return False
    if "=" in word:
        return False
    flags = {
        name
        for p in params
        if isinstance(p, click.Option) and (p.is_flag or p.count)
        for name in (*p.opts, *p.secondary_opts)
    }
    for at, letter in enumerate(word[1:], 1):
        if f"-{letter}" == option:
            return len(word) - at >= rest
        if f"-{letter}" not in flags:  # a value, or another unknown: not this word
            return False
    return False


def _given_home(given: Sequence[str]) -> str | None:
    """The `--home` of a command line that never ran (its hints do not know it yet)."""
    for word, after in itertools.pairwise([*given, ""]):
        if word == "--":
            return None
        if word == "--home" and after:
            return after
        if word.startswith("--home="):
            return word.partition("=")[2]
    return None


def option_meant(
    command: click.Command,
    error: click.NoSuchOption,
    given: Sequence[str] | None = None,
) -> click.UsageError | None:
    """`follow --limit 2` as meant: the command's own `-n` option, named in the error
    where click said only "No such option", or guessed a look-alike (`list --lines`:
    "Did you mean '--since'?"). With it, the other options other commands have that
    this one says otherwise (`export --json`: `-f json`; `show ID --app claude`: the
    app in front of the id), and a word to find that looks like an option (`find
    --dry-run`) where no option looks like it: the line that finds it, with the other
    words and options of `given` (the command's arguments) where they are known."""
    option = error.option_name.split("=", 1)[0]
    names = {name for p in command.params for name in p.opts}
    if option == "-V":  # the version, as `sessdex -V` gives it; or this one's -v
        return _meant_one_of(
            error,
            ["sessdex --version", *(["--verbose"] if "--verbose" in names else [])],
        )
    if option in _COLOUR_OPTIONS:  # `list --no-color`: NO_COLOR, as README says
        return _colour_meant(command, error, given or ())
    if option in ("--json", "--nl") and "--format" in names:
        return click.UsageError(f"{error.message} Did you mean '-f json'?", error.ctx)
    if (flag := _format_flag(option)) is not None and "--format" in names:
        kind = "md" if flag == "markdown" else flag  # `export --html`: `-f html`
        return click.UsageError(f"{error.message} Did you mean '-f {kind}'?", error.ctx)
    offered = tuple(name for name in ("--json", "--nl") if name in names)
    if option in _FORMAT_WORDS and offered:  # `list --format json`
        how = _FORMAT_OPTIONS[offered]
        return click.UsageError(f"{error.message} Did you mean {how}?", error.ctx)
    if option == "--app" and "session_id" in {p.name for p in command.params}:
        return click.UsageError(
            f"{error.message} An id takes its app in front instead: "
            f"{hints.named(command.name or '', 'claude:7f3a')}.",
            error.ctx,
        )
    if option in _DAY_OPTIONS and "--since" in names:  # `list --today`
        day = _DAY_OPTIONS[option]
        # `--since yesterday` runs on to now: that day alone ends where --until's does
        ends = f" --until {day}" if day != "today" and "--until" in names else ""
        return click.UsageError(
            f"{error.message} Did you mean '--since {day}{ends}'?", error.ctx
        )
    fielded = option in _FIELD_OPTIONS and command.name in ("list", "find")
    if fielded and (meant := _field_meant(command, error, given or ())) is not None:
        return meant
    finds = "query" in {p.name for p in command.params}
    if (
        finds
        and option.startswith("--")
        and not error.possibilities
        and option not in _COUNT_WORDS
    ):  # `find --dry-run`: a word, as README says, once after `--`
        return _found_as_word(command, error, given)
    timed = option in _TIME_WORDS or option in _DAY_OPTIONS
    if timed and "session_id" in {p.name for p in command.params}:
        return _no_time(command, error)
    if option not in _COUNT_WORDS:
        near = _near(command, error, option)
        if near is None and finds:  # `find pytest -x`: no option looks like it
            return _found_as_word(command, error, given)
        return near
    taken = next((p.opts for p in command.params if "-n" in p.opts), None)
    long = next((o for o in taken or () if o.startswith("--")), None)
    if long is None:
        return None
    return click.UsageError(f"{error.message} Did you mean '-n/{long}'?", error.ctx)


def _colour_meant(
    command: click.Command, error: click.NoSuchOption, given: Sequence[str]
) -> click.UsageError:
    """`list --no-color`: the variable that turns colour off, NO_COLOR, or on into a
    pipe too, FORCE_COLOR, where `--color always` asked for it; set as the user's shell
    sets it for one command (PowerShell and cmd take no `NAME=1 sessdex`)."""
    option, _, value = error.option_name.partition("=")
    if (
        not given
    ):  # a command parsed by the group (`usage`): the words sessdex was given
        ctx = click.get_current_context(silent=True)
        given = ctx.meta.get(TYPED, ()) if ctx else ()
    at = next((i for i, w in enumerate(given) if w.partition("=")[0] == option), -1)
    if at >= 0:  # `--color=always` or `--color always`, as typed
        _, equals, value = given[at].partition("=")
        if not equals and at + 1 < len(given):
            value = given[at + 1]
    asked = option in ("--color", "--colour") and value.lower()
    if asked in _COLOUR_AUTO:  # what sessdex does unasked: nothing to set
        return click.UsageError(
            f"{error.message} Colour is already automatic (on at a terminal, none into "
            "a pipe or a file): leave it out.",
            error.ctx,
        )
    on = asked in _COLOUR_ON
    name, what = ("FORCE_COLOR", "on") if on else ("NO_COLOR", "off")
    return click.UsageError(
        f"{error.message} Colour is the environment's to turn {what}: "
        f"{_with_variable(name, command.name or '')} "
        f"({'a pipe or a file gets it too' if on else 'a pipe or a file gets none'}).",
        error.ctx,
    )


def _with_variable(name: str, command: str) -> str:
    """`NAME=1 sessdex COMMAND …`, or where the user's shell takes no such line, the one
    that sets it first (`$env:NAME = '1'`)."""
    from .. import shells
    from ..errors import BadSetting

    try:
        shell = shells.current()
    except BadSetting:  # an unknown SESSDEX_SHELL: the line most shells take
        shell = shells.POSIX
    if shell in (shells.POWERSHELL, shells.CMD):
        return f"{shells.set_variable(name, '1', shell)}, then sessdex {command} …"
    return f"{name}=1 sessdex {command} …"


def _field_meant(
    command: click.Command, error: click.NoSuchOption, given: Sequence[str]
) -> click.UsageError | None:
    """`list --branch main`, `find retry --title x`: the `find` line that narrows by
    that field with its word (`branch:main`), the other words and options given kept;
    None where the option has no value to put in the word."""
    option = error.option_name.partition("=")[0]
    words = list(given)
    # as typed: `--branch main` or `--branch=main` (click names the option alone)
    at = next((i for i, w in enumerate(words) if w.partition("=")[0] == option), -1)
    if at < 0:
        return None
    _, equals, value = words[at].partition("=")
    if not equals:  # its value is the next word: `--branch main`
        if at + 1 >= len(words) or words[at + 1].startswith("-"):
            return None
        value = words.pop(at + 1)
    del words[at]
    field = _FIELD_OPTIONS[option]
    # find splits its words at spaces: a title's each narrows the title (all of them
    # must be in it); a folder's, branch's or id's would narrow by its first part alone
    parts = value.split()
    if not parts:
        return None
    if len(parts) > 1 and field != "title":  # no line finds it: what find takes, said
        return click.UsageError(
            f"{error.message} find narrows by {_FIELD_NAMES.get(field, field)} with "
            f"{field}:WORD, one word with "
            f"no space in it ({field}:{parts[-1]}, say).",
            error.ctx,
        )
    options, rest = _options_and_words(command, words)
    line = hints.named("find", *options, *rest, *(f"{field}:{p}" for p in parts))
    return click.UsageError(f"{error.message} Did you mean {line}?", error.ctx)


def _found_as_word(
    command: click.Command, error: click.NoSuchOption, given: Sequence[str] | None
) -> click.UsageError:
    """A word to find that click read as an unknown option: the line that looks for it
    after `--`, the command's own options (as typed) in front and every other word in
    its place (`find pytest -x --json`: `find --json -- pytest -x`)."""
    options, words = _options_and_words(command, given or [error.option_name])
    line = hints.named(command.name or "", *options, "--", *words)
    return click.UsageError(
        f"{error.message} A word that starts with '-' goes after '--': {line}.",
        error.ctx,
    )


def flags_as_words(command: click.Command, given: Sequence[str]) -> str | None:
    """For `find` that found nothing: the flags of its own typed after a word to find
    (`find pytest -v`: click took -v for --verbose, silently) and the line that looks
    for them as words, after `--`; None where none came after a word, or a `--` was
    typed. A long flag (`--here`), an option with a value or an output (`--json`) is
    the user's option, as `_said_at_end` reads them."""
    valued = _valued_options(command)
    flags = {
        name: next((o for o in p.opts if o.startswith("--")), name)
        for p in command.params
        if isinstance(p, click.Option) and p.name not in ("as_json", "as_nl")
        for name in (*p.opts, *p.secondary_opts)
        if name not in valued
    }
    options: list[str] = []
    words: list[str] = []
    taken: list[str] = []
    rest = iter(given)
    for word in rest:
        name, equals, _ = word.partition("=")
        if word == "--":
            return None
        if name == "--home":  # the line named carries the running command's
            if not equals:
                next(rest, None)  # its folder
        elif name in valued and not equals:
            options.extend([word, *itertools.islice(rest, 1)])
        elif name in flags and words and not name.startswith("--"):
            taken.append(word)  # `pytest -v`, `ls -a`: a short flag another tool's too
            words.append(word)
        elif name in flags or name in valued or word in ("--json", "--nl"):
            options.append(word)
        else:
            words.append(word)
    if not taken:
        return None
    one = len(taken) == 1
    said = " and ".join(map(typed, taken))
    meant = " and ".join(dict.fromkeys(flags[word.partition("=")[0]] for word in taken))
    line = hints.named(command.name or "", *options, "--", *words)
    return (
        f"{said} {'was' if one else 'were'} taken as the option{'' if one else 's'} "
        f"{meant}: {line} looks for {'it as a word' if one else 'them as words'}."
    )


def _options_and_words(
    command: click.Command, given: Sequence[str]
) -> tuple[list[str], list[str]]:
    """`given` parted into the command's own options (each with its value) and the
    rest, in their order: everything past a `--` is a word."""
    valued = _valued_options(command)
    flags = {name for p in command.params for name in (*p.opts, *p.secondary_opts)}
    options: list[str] = []
    words: list[str] = []
    rest = iter(given)
    for word in rest:
        name, equals, _ = word.partition("=")
        if word == "--":
            words.extend(rest)
        elif name in valued and not equals:
            options.extend([word, *itertools.islice(rest, 1)])
        elif name in flags:
            options.append(word)
        else:
            words.append(word)
    return options, words


def _near(
    command: click.Command, error: click.NoSuchOption, option: str
) -> click.UsageError | None:
    """What `option` may have meant among `command`'s own options: the long ones of a
    short flag's letter (`list -a`: `--all`, `--app`), else the commands that take it
    (`watch --until`), else click's guesses close in spelling alone (`--jsn`: `--json`,
    where click guessed `--nl` and `--since` too). None where click's answer stands."""
    from difflib import SequenceMatcher

    names = sorted({n for p in command.params for n in p.opts if n.startswith("--")})
    letter = option[1:] if len(option) == 2 and option[1].isalpha() else None
    takers = [] if option in names else _taking(error, option)
    longs = [n for n in names if letter and n[2:3].lower() == letter.lower()]
    # a flag other commands take means what it means there (`tree -n`: a count, not
    # `--nl`): its letter's long options here only where one of them is that
    same = [n for n in longs if n in _stands_for(error, option)]
    if same or (longs and not takers):
        return _meant_one_of(error, same or longs)
    if takers:
        return click.UsageError(
            f"{error.message} sessdex {command.name} takes no {option!r}; "
            f"{_and(takers)} {'do' if len(takers) > 1 else 'does'}.",
            error.ctx,
        )
    guessed = error.possibilities or []
    close = [
        n
        for n in guessed
        if SequenceMatcher(None, option.lstrip("-"), n.lstrip("-")).ratio() >= 0.7
    ]
    return None if close == guessed else _meant_one_of(error, close)


def _meant_one_of(error: click.NoSuchOption, names: list[str]) -> click.UsageError:
    """Click's "No such option" with `names` the ones meant (none: the message alone)."""
    if not names:
        return click.UsageError(error.message, error.ctx)
    quoted = [repr(name) for name in names]
    said = " or ".join(
        [", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted
    )
    return click.UsageError(f"{error.message} Did you mean {said}?", error.ctx)


def command_needed(
    error: click.NoSuchOption, given: list[str]
) -> click.UsageError | None:
    """`sessdex -n 5`, no command given: the commands that take the option, and the
    line with one of them (`'sessdex list -n 5'`); None where none takes it."""
    option = error.option_name.split("=", 1)[0]
    takers = _taking(error, option)
    if not takers:
        return None
    words = (
        given[given.index(error.option_name) :] if error.option_name in given else []
    )
    example = "list" if "list" in takers else takers[0]  # the command most typed
    return click.UsageError(
        f"{error.message} {_and(takers)} {'take' if len(takers) > 1 else 'takes'} it, "
        f"after the command: {hints.named(example, *words or [option])}.",
        error.ctx,
    )


def _taking(error: click.NoSuchOption, option: str) -> list[str]:
    """The sessdex commands that take `option`, in the order `--help` lists them."""
    root = error.ctx.find_root().command if error.ctx else None
    if not isinstance(root, click.Group):
        return []
    return [
        name
        for name, command in root.commands.items()
        if not command.hidden
        and any(option in p.opts for p in command.params if not getattr(p, "hidden", 0))
    ]


def _stands_for(error: click.NoSuchOption, option: str) -> set[str]:
    """The long options that short `option` is in the sessdex commands that take it."""
    root = error.ctx.find_root().command if error.ctx else None
    if not isinstance(root, click.Group):
        return set()
    return {
        name
        for command in root.commands.values()
        for p in command.params
        if option in p.opts
        for name in p.opts
        if name.startswith("--")
    }


def _and(words: list[str]) -> str:
    """`list, find and usage`."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _no_time(command: click.Command, error: click.NoSuchOption) -> click.UsageError:
    """`follow ID --since 1h`: a command of one session picks none by time. Said, with
    its `-n` where it has one (how much of the session), where click guessed a look-alike
    option ("Did you mean '--lines'?", "'--json'?") that takes no time either."""
    told = f"{error.message} sessdex {command.name} takes one session, not a time"
    taken = next((p.opts for p in command.params if "-n" in p.opts), ())
    long = next((o for o in taken if o.startswith("--")), None)
    if long is not None:
        return click.UsageError(
            f"{told}: '-n/{long} N' shows its last N events.", error.ctx
        )
    option = error.option_name.split("=", 1)[0]
    return click.UsageError(
        f"{told}; list, find and usage take {option!r} to pick sessions by time.",
        error.ctx,
    )


def apps_meant(command: Sequence[str], words: Sequence[str]) -> str | None:
    """Where every one of `words` is an app's name (`sessdex doctor claude`, `sessdex
    usage claude`), the `--app` line of `command` that keeps to them, as a sentence
    ("'sessdex doctor --app claude' keeps to that app."); else None."""
    apps = [word.lower() for word in words]
    if not apps or not set(apps) <= set(sources.names()):
        return None
    options = [word for app in dict.fromkeys(apps) for word in ("--app", app)]
    which = "that app" if len(options) == 2 else "those apps"
    return f"{hints.named(*command, *options)} keeps to {which}."


def not_blank(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> str | None:
    """An option given an empty value (`--since ""`, a script's unset variable) is a usage
    error: taken as left out, it would show everything without a word."""
    if value is not None and not value.strip():
        raise click.BadParameter(
            "it is empty: give a value, or leave the option out.", ctx, param
        )
    return value


def apps_option(f: F) -> F:
    """--app NAME (repeatable), completed by the shell from the apps sessdex reads."""
    return click.option(
        "--app",
        "apps",
        multiple=True,
        metavar="NAME",
        help="Only this app (repeatable: any of them).",
        shell_complete=app_names,
        callback=_app_names,
        # `--app` last, or before another option: the value below, not click's bare
        # "Option '--app' requires an argument.", which named no app
        is_flag=False,
        flag_value=_NO_NAME,
    )(f)


_NO_NAME = (
    "\0"  # what `--app` given no name stands for: no word on a command line is it
)


def _app_names(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """--app's values, as the apps' own names (`--app NAME` is taken in any case, and by
    the name `doctor` shows or the app's package's: `Claude Code`, `claude-code`); an
    empty one is a usage error as any empty option is, not an unknown app, and one left
    out names the apps there are."""
    if _NO_NAME in value:
        raise click.BadParameter(
            f"give an app's name after it. Known apps: {', '.join(sorted(sources.names()))}.",
            ctx,
            param,
        )
    for name in value:
        not_blank(ctx, param, name)
    return tuple(sources.canonical(v) for v in value)


def detail_option(f: F) -> F:
    """--detail, shared by show, follow and replay."""
    return click.option(
        "--detail",
        type=click.Choice(["full", "normal", "user"]),
        default="normal",
        show_default=True,
        help="full: everything (each tool input whole, edits as diffs, token counts); "
        "normal: one line per tool call, results folded; user: only what was typed and said "
        "(in JSON output too: every other event is left out).",
    )(f)


def home_option(f: F) -> F:
    return click.option(
        "--home",
        "home_dir",
        type=_Folder(file_okay=False, path_type=str),
        metavar="DIR",
        callback=_existing_folder,
        # taken first, wherever it is typed: what the other options and arguments say
        # of a value they refuse names it in the commands it points at
        is_eager=True,
        help="Read this folder as the home (a copied home); the apps' env overrides are then ignored.",
    )(f)


class _Folder(click.Path):
    """A folder, completed by the shell as one; whether it is there, and a folder,
    `_existing_folder` says in sessdex's words (click's "Directory 'x' is a file.")."""

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Any:
        return value if isinstance(value, str) else super().convert(value, param, ctx)


def _existing_folder(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> str | None:
    """--home names a folder that is there (`~` as `Home.at` takes it): a mistyped
    one would read as a machine without sessions."""
    not_blank(ctx, param, value)
    if value is not None and not os.path.isdir(os.path.expanduser(value)):
        if folders.shut_out(os.path.expanduser(value)):
            raise click.BadParameter(
                f"the folder {typed(value)} may not be entered (permission denied): "
                "a folder above it is closed to you.",
                ctx,
                param,
            )
        if os.path.exists(os.path.expanduser(value)):  # a file: the folder above it?
            raise click.BadParameter(
                f"{typed(value)} is a file, not a folder: give the home folder that "
                "holds the apps' folders (.claude, .codex, …).",
                ctx,
                param,
            )
        raise click.BadParameter(
            f"the folder {typed(value)} does not exist.", ctx, param
        )
    if value is not None and not folders.is_text(
        os.path.abspath(os.path.expanduser(value))
    ):
        raise click.BadParameter(
            _NOT_TEXT.format(which="folder", path=folders.shown(value)), ctx, param
        )
    reading_home(value)  # the commands its messages point at read this home too
    return value


# sessdex keeps paths as text (the index, JSON): one below a name in another encoding
# (Latin-1 bytes Python keeps as lone surrogates) could be read, never stored or printed
_NOT_TEXT = (
    "the {which} '{path}' has a name that is not valid UTF-8, which sessdex cannot "
    "store or print; read it through a link with a UTF-8 name (ln -s) given to --home."
)


def home_below(home: Home, command: str) -> str | None:
    """`api.home_elsewhere`: where a --home holds no app's folder, the home it most
    likely meant and the line that reads it; else None."""
    return api.home_elsewhere(home, command)


def verbose_option(f: F) -> F:
    """-v/--verbose: name what could not be read."""
    return click.option(
        "--verbose",
        "-v",
        is_flag=True,
        help="Name each unreadable file and line (never its content).",
    )(f)


def output_options(f: F) -> F:
    """--json, --nl and --verbose, shared by every list-like command."""
    return _output_options(f, "One JSON array.")


def output_options_or_object(option: str) -> Callable[[F], F]:
    """`output_options` for a command that `option` makes print one object instead."""
    return lambda f: _output_options(f, f"One JSON array (with {option}: one object).")


def _output_options(f: F, json_help: str) -> F:
    @functools.wraps(f)
    def lines_win(*args: Any, as_json: bool, as_nl: bool, **kwargs: Any) -> Any:
        return f(*args, as_json=json_array(as_json, as_nl), as_nl=as_nl, **kwargs)

    wrapped = verbose_option(lines_win)
    wrapped = click.option(
        "--nl", "as_nl", is_flag=True, help="One JSON object per line."
    )(wrapped)
    wrapped = click.option("--json", "as_json", is_flag=True, help=json_help)(wrapped)
    return cast(F, wrapped)


def json_array(as_json: bool, as_nl: bool) -> bool:
    """Whether to print one JSON array: `--json` unless `--nl` asks for lines too (the
    more specific of the two wins, in every command alike)."""
    return as_json and not as_nl


# what every --since and --until says of a date that names its zone (as README does)
ZONED_DATE = (
    "a date with a zone, 2026-11-28Z or 2026-11-28+09:00, counts whole in that zone"
)

# `--since` of list, find and watch, worded alike
SINCE_HELP = (
    "Only sessions updated since: 3d, 12h, 2w, 1mo, 1y, 30min (or 3days, 2weeks, "
    "6months, 3 days ago), today, yesterday (their local midnight), now (when the command "
    "starts: watch shows the sessions that change after), a month (2026-11: its first "
    "day) or a date (2026-11-01: its midnight UTC, as --json's times; "
    f"{ZONED_DATE}; a time without an offset is UTC too)."
)


def filter_options(f: F) -> F:
    f = count_option("--limit", "-n", help="Show at most N sessions.")(f)
    f = click.option(
        "--until",
        metavar="WHEN",
        callback=not_blank,
        help="Only sessions updated until: 3d, 12h, 2w, 1mo, 1y, 30min ago (or 3 days "
        "ago), now (when the command starts), the end of "
        "today or yesterday (local), of a month (2026-11) or of a date (2026-11-30: to "
        "its next midnight UTC; "
        f"{ZONED_DATE}; a time without an offset is UTC).",
    )(f)
    f = click.option("--since", metavar="WHEN", callback=not_blank, help=SINCE_HELP)(f)
    f = click.option(
        "--here",
        is_flag=True,
        help="Only sessions whose folder is this one or below it.",
    )(f)
    f = apps_option(f)
    f = click.option(
        "--all", "include_subagents", is_flag=True, help="Include sub-agent sessions."
    )(f)
    return f


def resolve_home(home_dir: str | None) -> Home:
    if home_dir:
        return Home.at(home_dir)
    home = Home.current()
    if not folders.is_text(str(home.path)):
        # the user gave nothing wrong (no usage error): their own home is what sessdex
        # cannot keep as text, so say which and how to read it
        raise SessdexError(
            f"your home folder '{folders.shown(str(home.path))}' (HOME) has a name that "
            "is not valid UTF-8, which sessdex cannot store or print; make a link to it "
            "with a UTF-8 name (ln -s) and give that to --home."
        )
    return home


def fail_nicely(f: F) -> F:
    """Map SessdexError to a one-line message and exit 1, or 2 for a value an option cannot
    take (`BadValue`, a usage error as click's own); SESSDEX_DEBUG=1 shows the traceback.
    A query that found the index damaged sets it aside and runs the command again, once."""
    retried = once_more_if_damaged(f)

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return retried(*args, **kwargs)
        except SessdexError as error:
            if os.environ.get("SESSDEX_DEBUG"):
                raise
            err(f"Error: {error}")
            if isinstance(error, AmbiguousId):
                _say_candidates(error)
            sys.exit(2 if isinstance(error, BadValue) else 1)
        except BrokenPipeError:
            reader_left()
        except KeyboardInterrupt:  # before click's "Aborted!" and exit 1
            interrupted()
        except Exception as error:
            if not no_room(error) or os.environ.get("SESSDEX_DEBUG"):
                raise
            out_of_room(error, output=_output_elsewhere(error))

    return wrapper  # type: ignore[return-value]


def _say_candidates(error: AmbiguousId) -> None:
    """The sessions an ambiguous id matched, one line each: its app, its whole id (what
    to type) and its title, cut to what a terminal's width leaves after them (none where
    that is too little to read; the id alone where the app leaves no room for it, the
    count above naming the apps); a line broken at its spaces put each on its own. The
    titles start in one column, whatever the ids' lengths (a Vibe child's beside uuids)."""
    from ..views.text import app_width, cells, flat, stderr_width, title_line

    shown = error.candidates[:10]
    column = app_width(app for app, _, _ in shown)
    width = stderr_width()
    # quoted for the shell where it is not plain: an id a file gave (`$(…)`, a control
    # character) printed bare ran a command pasted, or was another id
    said_ids = [hints.id_typed(session_id) for _, session_id, _ in shown]
    id_column = max(cells(flat(said)) for said in said_ids)
    for (app, _, title), said in zip(shown, said_ids, strict=True):
        line = flat(f"  {app:<{column}} {said}")
        padded = line + " " * (id_column - cells(flat(said)))
        # a title out of line beats none, where another's long id leaves it no room
        start = next((s for s in (padded, line) if _title_room(s, width)), None)
        if start is not None:
            line = f"{start}  {title_line(title, _title_room(start, width))}"
        elif width is not None and cells(line) > width >= cells(
            alone := flat(f"  {said}")
        ):
            line = alone
        echo(line, err=True)  # never broken: the id is copied whole
    if len(error.candidates) > len(shown):  # the count said 11: show 10 of 11
        err(f"  … and {len(error.candidates) - len(shown)} more")


_TITLE_ROOM = 10  # columns: a title cut shorter says too little to tell sessions apart


def _title_room(start: str, width: int | None) -> int:
    """The columns a title has after `start` (60 at most), 0 where too few to read."""
    from ..views.text import cells

    room = 60 if width is None else min(60, width - cells(start) - 2)
    return room if room >= _TITLE_ROOM else 0


def no_room(error: BaseException) -> bool:
    """A full disk, as the OS or SQLite (writing the index) reports it."""
    import errno

    if isinstance(error, OSError):
        return error.errno in (errno.ENOSPC, errno.EDQUOT)
    return type(error).__name__ == "OperationalError" and "full" in str(error)


def out_of_room(error: BaseException, *, output: bool) -> NoReturn:
    """A full disk stopped the command: say whose write it was, the output's (stdout sent
    to a file on a full disk, or to /dev/full) or sessdex's own files', and exit 1."""
    _drop_stdout()
    if output:
        err(f"Error: no room left to write the output ({error}); free some space where it goes.")  # fmt: skip
    else:
        err(
            f"Error: no room left to write sessdex's own files ({error}); free some "
            "space, or point SESSDEX_HOME to a bigger disk."
        )
    sys.exit(1)


def _output_elsewhere(error: BaseException) -> bool:
    """Whether a full disk is the output's: stdout goes to a file or a device on another
    file system than sessdex's own files (on the same one, either may have filled it)."""
    import stat

    from ..indexfile import cache_folder

    if not isinstance(error, OSError):  # SQLite's: the index
        return False
    try:
        out = os.fstat(sys.stdout.fileno())
        own = os.stat(cache_folder())
    except (OSError, ValueError):  # no real stdout (a test runner's), or no cache yet
        return False
    to_file = stat.S_ISREG(out.st_mode) or stat.S_ISCHR(out.st_mode)
    return to_file and out.st_dev != own.st_dev


def reader_left() -> NoReturn:
    """The reader of stdout left early (`| head`): not an error, so exit 0 quietly."""
    _drop_stdout()
    sys.exit(0)


def output_gone() -> bool:
    """Whether stdout is a pipe whose reader left (`follow | head -3` got its lines).
    A command that may print nothing for hours (follow, watch) asks as it waits: it
    would learn it only from its next write, which a quiet session never makes."""
    import select
    import stat

    if not hasattr(select, "poll"):
        return False
    try:
        fd = sys.stdout.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        poller = select.poll()
        poller.register(fd, 0)  # no events asked: only an error or a hang-up is said
        return any(
            flags & (select.POLLERR | select.POLLHUP) for _, flags in poller.poll(0)
        )
    except (OSError, ValueError):  # no real stdout (a test runner's)
        return False


def _drop_stdout() -> None:
    """What is still buffered for stdout goes to /dev/null, or flushing it at exit would
    fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test runner's): nothing to flush
        pass


def echo(
    message: str = "", *, nl: bool = True, err: bool = False, styled: bool = False
) -> None:
    """`click.echo` to stdout (or stderr) as it is. Given no file, click writes UTF-8 to
    a stream whose encoding is ASCII, taking it for a broken locale; sessdex writes the
    ASCII that `charset.fit_streams` makes of what such a terminal cannot show. A
    `styled` message keeps its colour where click would take it out (a pipe: what
    `views.text.coloured` allowed, FORCE_COLOR)."""
    click.echo(
        message, nl=nl, file=sys.stderr if err else sys.stdout, color=styled or None
    )


def err(message: str) -> None:
    """A line for people on stderr: what it quotes (paths, ids, versions) comes from
    files, so control sequences are removed here, whatever the caller did, and a
    newline in it (a file's name, a record's type) cannot start a line of its own; on a
    terminal it is broken at spaces to the terminal's width."""
    from ..views.text import for_stderr

    echo(for_stderr(message), err=True)


def stdout_bytes(data: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def counted_events(
    events: Iterable[Event], label: str, *, show: bool, until_first: bool = False
) -> Generator[Event, None, None]:
    """`events`, with a spinner on stderr while they come (a terminal only, after a
    second): how many so far and for how long. A transcript read whole (GBs) may take a
    while before its first event (the reader surveys the file first), and its output may
    be held back (a file), so without it the terminal would look hung. `show` False: the
    events are going to this same terminal as they come; no spinner. `until_first`: it
    stops at the first event (a pager takes the terminal from there)."""
    if not show or not sys.stderr.isatty():
        yield from events
        return
    bar = Bar(label, counting=True)
    try:
        for count, event in enumerate(events, 1):
            if count == 1 and until_first:
                bar.close()
            elif count % 512 == 0:
                bar.update(count)
            yield event
    finally:
        bar.close()


def report_skipped(
    report: RefreshReport,
    verbose: bool,
    noted: Sequence[tuple[str, str, int, str]] = (),
    unfinished: Sequence[tuple[str, str, int]] = (),
) -> None:
    """The refresh's warnings; with `verbose`, each file and line it could not read, and
    those the index `noted` before (a warm refresh reads nothing again: the warning was
    given the run that read them, and its --verbose must still name them), and each file
    whose last line was unfinished, (app, path, bytes) as the index noted it."""
    for app, message in sorted(report.failures.items()):
        err(f"warning: {app}: {message}")
    for diagnostics in report.diagnostics.values():
        for problem in diagnostics.problems:
            err(f"warning: {problem}")
    summaries = [
        *api.refused_summaries(report),
        api.skipped_summary(report),
        api.undated_summary(report),
        api.damaged_summary(report),
    ]
    for summary in summaries:
        if summary:
            # with --verbose given, its lines follow: no pointer to it, or to doctor
            told, see, _ = summary.rpartition("; see ")
            err(f"warning: {told if verbose and see else summary}")
    if verbose:
        said: set[tuple[str, str, int, str]] = set()
        for app, diagnostics in sorted(report.diagnostics.items()):
            for path, line, reason in diagnostics.details:
                said.add((app, path, line, reason))
                err(f"  {app}: {detail(path, line, reason)}")
        # a line the app may still be writing: no unreadable line, a note (once a file)
        cut = {(app, path): size for app, path, size in unfinished}
        for app, diagnostics in report.diagnostics.items():
            cut.update(((app, p), n) for p, n in diagnostics.unfinished.items())
        for (app, path), size in sorted(cut.items()):
            err(f"note: {app}: {path}: {unfinished_line(size)}")
        earlier = [detail for detail in noted if detail not in said]
        # a session kept without an odd time is listed, not skipped: said apart
        for heading, details in (
            (
                "skipped when these files were read (unchanged since):",
                [
                    detail
                    for detail in earlier
                    if detail[3] not in UNDATED and not is_damage(detail[3])
                ],
            ),
            (
                "listed without an odd time when these files were read (unchanged "
                "since):",
                [detail for detail in earlier if detail[3] in UNDATED],
            ),
            (
                "shown with damage when these files were read (unchanged since):",
                [detail for detail in earlier if is_damage(detail[3])],
            ),
        ):
            if details:
                err(heading)
            for app, path, line, reason in details:
                err(f"  {app}: {detail(path, line, reason)}")


def print_rows(
    listing: api.Listing, as_json: bool, as_nl: bool, home: Home, grouped: bool = False
) -> None:
    """`grouped`: the rows are in `list --all`'s order, a sub-agent's own sub-agents
    after it, marked deeper (`selection.under_leads`)."""
    rows = listing.rows
    if as_json:
        stdout_bytes(b"[" + b",".join(row.record for row in rows) + b"]\n")
        return
    if as_nl:
        stdout_bytes(b"".join(row.record + b"\n" for row in rows))
        return
    import orjson

    from ..selection import listing_depths
    from ..views.text import (
        app_width,
        coloured,
        id_column,
        listing_columns,
        listing_line,
        short_id_width,
        terminal_width,
    )

    width = terminal_width()
    records = [orjson.loads(row.record) for row in rows]
    kinds = [record.get("agent_type") for record in records]
    id_width = short_id_width((row.id for row in rows), listing.ids, kinds)
    id_cells = id_column((row.id for row in rows), id_width)
    app_column = app_width(row.app for row in rows)
    home_text = str(home.path)
    styled = coloured(sys.stdout)
    branch_column, folder_column = listing_columns(
        ((record.get("branch"), record.get("cwd")) for record in records),
        home=home_text, width=width, app_column=app_column, id_width=id_cells,
    )  # fmt: skip
    leads = [
        (row.app, row.id, record.get("parent_id"))
        for row, record in zip(rows, records, strict=True)
    ]
    depths = (
        listing_depths(leads)
        if grouped
        else [int(lead is not None) for *_, lead in leads]
    )
    for row, record, depth, kind in zip(rows, records, depths, kinds, strict=True):
        fields = (
            record.get("updated"),
            record.get("created"),
            record.get("branch"),
            record.get("cwd"),
            record.get("title"),
        )
        echo(
            listing_line(
                row.app,
                row.id,
                fields,
                width=width,
                home=home_text,
                styled=styled,
                sub_agent=depth,
                observer=record.get("observer") is True,
                kind=kind,
                id_width=id_width,
                id_cells=id_cells,
                app_column=app_column,
                branch_column=branch_column,
                folder_column=folder_column,
            ),
            styled=styled,
        )


def event_chunks(
    events: Iterable[Event], as_nl: bool, seq_relative: bool = False
) -> Iterator[bytes]:
    """Events as a JSON array (or lines), a piece at a time, without holding them all.
    `seq_relative`: each record says its `seq` counts from where the read began."""
    from ..views.records import dumps, event_record

    # the records of small events joined into pieces of about `_PIECE` (a write and a
    # yield each, not two an event); a big one (MBs with --full-payloads) goes alone,
    # not copied behind the others
    pieces: list[bytes] = [] if as_nl else [b"["]
    size, n = 0, -1
    for n, event in enumerate(events):
        fields = event_record(event)
        if seq_relative:
            fields["seq_relative"] = True
        data = dumps(fields, kept=False)
        if len(data) >= _PIECE:
            if pieces:
                yield b"".join(pieces)
                pieces, size = [], 0
            if not as_nl:
                yield b",\n" if n else b"\n"
            yield data
            if as_nl:
                yield b"\n"
            continue
        if as_nl:
            pieces += (data, b"\n")
        else:
            pieces += (b",\n" if n else b"\n", data)
        size += len(data)
        if size >= _PIECE:
            yield b"".join(pieces)
            pieces, size = [], 0
    if not as_nl:
        # no event: `[]`, as every empty list is
        pieces.append(b"\n]\n" if n >= 0 else b"]\n")
    if pieces:
        yield b"".join(pieces)


_PIECE = 64 * 1024


def write_events(
    events: Iterable[Event], as_nl: bool, seq_relative: bool = False
) -> None:
    """Stream events as a JSON array (or lines) to stdout."""
    sys.stdout.flush()
    out = sys.stdout.buffer
    for chunk in event_chunks(events, as_nl, seq_relative):
        out.write(chunk)
    out.flush()


def report_diagnostics(
    diagnostics: Diagnostics, verbose: bool, app: str | None = None
) -> None:
    """Say on stderr what reading `app`'s files met: its name leads the files it was
    not let open, as every other reading problem (`claude: could not open …`) says it."""
    for problem in diagnostics.problems:
        err(f"warning: {problem}")
    named = verbose and bool(diagnostics.details)
    # files it was not let open (another user's): nothing of them was read, said apart
    # from the lines a reader skipped, in the words `list` uses
    whose = f"{app}: " if app else ""
    refused = diagnostics.skipped[FILE_REFUSED]
    met = [path for path, _, reason in diagnostics.details if reason == FILE_REFUSED]
    shut = list(dict.fromkeys(met))
    # a file two reads met (a task's side file, read with it and with its sub-agent's
    # session) is one file
    files = refused - (len(met) - len(shut))
    if files == 1 and shut:
        err(f"warning: {whose}{refused_words(shut[0])}")
    elif files:
        such = f", such as {shut[0]}" if shut and not named else ""
        err(
            f"warning: {whose}could not open {files} "
            f"file{'s' if files != 1 else ''}{such} "
            "(permission denied)" + (":" if named else "; see --verbose")
        )
        if named:
            for path in shut:
                err(f"  {path}")
    skipped = diagnostics.skipped_total - diagnostics.undated_total - refused
    if skipped:
        if named:  # --verbose given: the lines below, not a hint to give it
            err(f"warning: {unreadable_lines(skipped)}:")
        else:  # (a transcript's middle is read by `doctor --deep` only: plain doctor
            # counts what listing reads, its ends)
            err(
                f"warning: {unreadable_lines(skipped)}; see --verbose, or "
                f"{hints.named('doctor', '--deep')} for every session"
            )
    if named:
        for path, line, reason in diagnostics.details:
            if (
                reason not in UNDATED
                and reason != FILE_REFUSED
                and not is_damage(reason)
            ):
                err(f"  {detail(path, line, reason)}")
    # lines read and shown with damage (bytes not UTF-8 as U+FFFD): nothing skipped
    if diagnostics.damaged:
        said = damaged_lines(diagnostics.damaged)
        err(f"warning: {said}" + (":" if named else "; see --verbose"))
    if named:
        for path, line, reason in diagnostics.details:
            if is_damage(reason):
                err(f"  {detail(path, line, reason)}")
    # responses `usage` counted in its `(no time)` row (the only odd times said here):
    # counted, not skipped
    if odd := diagnostics.undated_total:
        said = undated(odd, "response", "counted under (no time)")
        err(f"warning: {said}" + (":" if named else "; see --verbose"))
    if named:
        for path, line, reason in diagnostics.details:
            if reason in UNDATED:
                err(f"  {detail(path, line, reason)}")
    if verbose:  # a last line the app may still be writing: no damage, no warning
        for note in diagnostics.unfinished_notes():
            err(f"note: {note}")
    if diagnostics.unknown and verbose:
        err(
            "note: record types not recognised: "
            + ", ".join(f"{t} ({n})" for t, n in sorted(diagnostics.unknown.items()))
        )
