"""The `sessdex` commands a message tells the user to run ('sessdex list', 'sessdex
doctor'), written as they should be typed: a command given `--home DIR` read that folder
as the home, so each command its messages name carries the same `--home` (a plain one
would read the user's own home instead). And a value a message quotes, named as it was
given: `--since '3d'` to the command line, `since='3d'` to the library.

The front end that took a `--home` says so once (`reading_home`), before anything is
said; every message builds its commands here, the library's too (where none was said,
they name no `--home`). On the quick path: no typing.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar

# what a word any shell takes as it is is made of (a command, an option, a plain id); a
# set, not a regular expression: `re` imports `enum`, which the quick path never loads
_PLAIN = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-"
)

# the --home of the command running now, as the user typed it; None: none was given
_HOME: ContextVar[str | None] = ContextVar("sessdex_home", default=None)
# whether the command line runs now (its options are what the user gave), or a program
_COMMAND_LINE: ContextVar[bool] = ContextVar("sessdex_command_line", default=False)
# a command being named now: a message built while its --home is quoted (the shell refused
# it, and says so naming a command) names its commands without it
_NAMING: ContextVar[bool] = ContextVar("sessdex_naming", default=False)


# sessdex as the commands a message names call it (`program`), found once when first needed
_PROGRAM: list[list[str]] = []
# a command being named to run in another folder (`named_in`): sessdex by its path from `/`
_ELSEWHERE: ContextVar[bool] = ContextVar("sessdex_elsewhere", default=False)


def program(absolute: bool = False) -> str:
    """sessdex as a command a message names calls it, to run as printed: `sessdex`
    where that name on PATH is this program, else the path it was run by (the README's
    quick start runs `.venv/bin/sessdex list` with no virtualenv active: `sessdex` is
    not found there); `absolute`: that path from `/`, for a line that changes folder
    first. Run as `python -m sessdex`, that python's `-m sessdex`, as `run_as` says it
    (the bare `sessdex` was not found, or was another one)."""
    return " ".join(_program(absolute))


def _program(absolute: bool = False) -> list[str]:
    """`program`'s words: one, or a python's three (`/x/python -m sessdex`)."""
    found = run_as()
    if (absolute or _ELSEWHERE.get()) and found[0] != "sessdex":
        import os

        found[0] = os.path.abspath(found[0])
    return found


def program_typed() -> str:
    """`program` as the user's shell runs it (a path with a space in it quoted), for
    click's "Usage: …" and "Try '… --help'" lines; quoted as sh quotes it where that
    shell is one sessdex does not know (as `named` does), said bare where the shell
    cannot be given it. A plain name (`sessdex`) loads no quoting: every full command
    names itself so before it starts."""
    words = _program()
    if all(word and _PLAIN.issuperset(word) for word in words):
        return " ".join(words)
    from .errors import BadSetting, NotQuotable
    from .shells import POSIX, run

    try:
        try:  # a path quoted: PowerShell's `& '…'`, as `line` writes it
            return run(words)
        except BadSetting:  # SESSDEX_SHELL names a shell sessdex does not know
            return run(words, POSIX)
    except NotQuotable:
        return " ".join(words)


def run_as() -> list[str]:
    """The words that run sessdex as this process was run, looked up on PATH once:
    `sessdex` where that name on PATH is this program, else the path it was run by,
    or, run as `python -m sessdex`, that python's `-m sessdex` (unless the `sessdex`
    beside that python, a virtualenv's bin, is on PATH)."""
    if not _PROGRAM:
        _PROGRAM.append(_as_run())
    return list(_PROGRAM[0])


def _as_run() -> list[str]:
    import os
    import shutil
    import sys

    typed = sys.argv[0] if sys.argv else ""
    found = shutil.which("sessdex")
    if run_as_module():
        if not sys.executable or (found and _same_folder(found, sys.executable)):
            return ["sessdex"]
        return [sys.executable, "-m", "sessdex"]
    if os.path.basename(typed) not in ("sessdex", "sessdex.exe"):
        return ["sessdex"]  # the library, a test's runner: the name as installed
    # on Windows pip's launcher takes its `.exe` off the name it was run by
    ran = typed + ".exe" if not os.path.exists(typed) else typed
    try:
        if found is None or not os.path.samefile(found, ran):
            return [typed]
    except OSError:  # the path it was run by is gone, or was no file's
        pass
    return ["sessdex"]


def _same_folder(one: str, other: str) -> bool:
    """Whether the files `one` and `other` are in the same folder, however PATH names
    it (a link to it, a `/` at its end, other letter case on Windows)."""
    import os

    try:
        return os.path.samefile(os.path.dirname(one), os.path.dirname(other))
    except OSError:  # a folder gone or unreadable: as its names say
        return os.path.dirname(one) == os.path.dirname(other)


def run_as_module() -> bool:
    """Whether this process is `python -m sessdex`."""
    import sys

    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == "sessdex.__main__"


def on_command_line(running: bool) -> None:
    """The command line starts (True) or ends (False): values are named as its options."""
    _COMMAND_LINE.set(running)


def command_line() -> bool:
    """Whether the values a message names were given as the command line's options."""
    return _COMMAND_LINE.get()


def see_each() -> str:
    """Where a warning's files and lines are each named: `--verbose` on the command line;
    to a program, each app's diagnostics in the report it holds (`details`)."""
    if _COMMAND_LINE.get():
        return "--verbose"
    return "the report's diagnostics (each app's details)"


def flag(name: str) -> str:
    """An on/off choice as the user gives it: `--keep-permissions` on the command line,
    `keep_permissions=True` to the library."""
    if _COMMAND_LINE.get():
        return f"--{name.replace('_', '-')}"
    return f"{name}=True"


def option(name: str, value: object) -> str:
    """A value as the user gave it: `--since '3d'` on the command line, `since='3d'`
    (a keyword argument, its `repr`) to the library."""
    if _COMMAND_LINE.get():
        return f"--{name.replace('_', '-')} {value!r}"
    return f"{name}={value!r}"


def spelt(word: str) -> str:
    """A word a file gave (a session's id) as a message quotes it for the user to type:
    on the command line as their shell takes it, in quotes it does not hold itself, as
    `named` quotes a line ('7E57…', "$'a\\033b'"), so that pasted it is the word; to the
    library, as `repr` (`errors.typed`). One their shell cannot be given (cmd's `%`)
    is quoted as repr: said, never printed wrong."""
    from .errors import BadSetting, NotQuotable, typed

    if not _COMMAND_LINE.get():
        return typed(word)
    from .shells import word as shell_word

    try:
        said = shell_word(word)
    except (NotQuotable, BadSetting):
        return typed(word)
    for mark in "'\"`":
        if mark not in said:
            return f"{mark}{said}{mark}"
    return said


def id_typed(word: str) -> str:
    """An id a line gives alone, to type: bare where any shell takes it as it is (a
    plain id, as `named` leaves it), else as the user's shell takes it, in no quotes
    of a sentence's: copied as printed, `"'m-1$$call_2'"` was bash's process id in a
    word with quotes in it. One the shell cannot be given is `spelt`."""
    if word and _PLAIN.issuperset(word):
        return word
    if not _COMMAND_LINE.get():
        return spelt(word)
    from .errors import BadSetting, NotQuotable
    from .shells import word as shell_word

    try:
        return shell_word(word)
    except (NotQuotable, BadSetting):
        return spelt(word)


def with_id(command: str, session_id: str, *options: str) -> tuple[str, ...]:
    """The words of `sessdex COMMAND ID OPTIONS` for `named` or `line`: an id that starts
    with '-' (`-abc`, quoted or not) goes last, after a `--`, as pasted it would read as
    an option (click's "No such option '-a'")."""
    if session_id.startswith("-"):
        return (command, *options, "--", session_id)
    return (command, session_id, *options)


def reading_home(folder: str | None) -> None:
    """The running command was given `--home folder` (None: none): the commands its
    messages name from now on carry it."""
    _HOME.set(folder)


def given_home() -> str | None:
    """The running command's `--home` folder, as typed; None for the user's own."""
    return _HOME.get()


def named_at(folder: str, *words: str) -> str:
    """`named(*words)` with `--home folder` in place of the running command's."""
    given = _HOME.set(folder)
    try:
        return named(*words)
    finally:
        _HOME.reset(given)


def where() -> str:
    """Where the running command looked, as a message says it: a user's own home is
    "on this machine", a folder given with `--home` is not."""
    return "on this machine" if _HOME.get() is None else "in the --home folder"


def line(*words: str) -> str:
    """`sessdex WORDS` as a line to type in the user's shell, each word quoted for it,
    with the running command's `--home` (before a `--`, past which it would be a word).
    Raises NotQuotable for a word that shell cannot be given."""
    from .shells import run, word

    argv = [*_program(), *_with_home(words)]
    if argv[0] == "sessdex":
        return " ".join(map(word, argv))
    # a path: PowerShell runs a quoted one only after its call operator, `& '…'`
    return run(argv)


def _with_home(words: Sequence[str]) -> list[str]:
    """`words` with the running command's `--home` (before a `--`, past which it would
    be a word)."""
    home = _HOME.get()
    argv = list(words)
    if home is not None:
        at = argv.index("--") if "--" in argv else len(argv)
        argv[at:at] = ["--home", home]
    return argv


def named_in(folder: str, *words: str) -> str:
    """`cd FOLDER && sessdex WORDS` as a sentence names it, in quotes (as `named`
    does), the folder and each word quoted for the user's shell, with the running
    command's `--home`. Where that shell cannot be given the folder (or is one sessdex
    does not know): `named(*words)` said to be run there, the folder named before it."""
    from .errors import BadSetting, NotQuotable
    from .shells import cd_then_run

    try:
        typed = cd_then_run(folder, [*_program(absolute=True), *_with_home(words)])
    except (NotQuotable, BadSetting):
        elsewhere = _ELSEWHERE.set(True)  # run there, a path from here finds nothing
        try:
            return f"{named(*words)}, run in that folder,"
        finally:
            _ELSEWHERE.reset(elsewhere)
    return _in_quotes(typed)


def folder_said(folder: str) -> str:
    """A folder as a sentence names it: as `list` shows one (`~/code` below the home
    sessdex reads, the `--home` given, else the user's), on one line, with no control
    character, in the first quote mark it does not hold; its backslashes as they are
    (Python's repr doubled each, a Windows path's too). A command to paste keeps the
    full path (`named_in`): `~` in quotes is no home to a shell."""
    import os

    from .pathnames import below_home
    from .views.text import one_line

    home = _HOME.get() or os.path.expanduser("~")
    below = below_home(folder, home) if home not in ("", "~", "/") else None
    return _in_quotes(one_line(folder if below is None else "~" + below))


def pasted(typed: str) -> str:
    """A line to paste (`resume`'s, a hint's) as a sentence gives it: in backticks, so
    that a message broken to a terminal's width keeps it whole (`views.text.broken`),
    in the first quote mark it does not hold where it holds one."""
    return f"`{typed}`" if "`" not in typed else _in_quotes(typed)


def _in_quotes(typed: str) -> str:
    """`typed` in the first quote mark it does not hold itself (none where it holds
    them all)."""
    for mark in "'\"`":
        if mark not in typed:
            return f"{mark}{typed}{mark}"
    return typed


def _untypable(words: Sequence[str]) -> str:
    """The first of `words` the user's shell cannot be given, as typed; else "a word of
    it" (the `--home` it would add)."""
    from .errors import NotQuotable, typed
    from .shells import word

    for each in words:
        try:
            word(each)
        except NotQuotable:
            return typed(each)
    return "a word of it"


def named(*words: str) -> str:
    """`sessdex WORDS` (plain words: a command, its options, an app's name) as a
    sentence names it, in quotes: 'sessdex list --app codex', and under a `--home`
    'sessdex list --app codex --home DIR', DIR quoted for the user's shell. Quotes the
    line holds itself are not used around it (`…` then, or none). A word that is not
    plain (a session id a file gave: `x;touch y`, `$(…)`) is quoted for the shell too,
    so that the line is safe to paste. Where `SESSDEX_SHELL` names a shell sessdex does
    not know, the words needing its rules are left out and the reason said: a hint is
    no reason to fail a listing (a line to run, as `resume --print` writes, is)."""
    plain = all(word and _PLAIN.issuperset(word) for word in (*_program(), *words))
    if _NAMING.get() or (_HOME.get() is None and plain):  # no shells' rules needed
        return f"'{' '.join((program(), *words))}'"
    from .errors import BadSetting, NotQuotable

    naming = _NAMING.set(True)
    try:
        typed = line(*words)
    except (NotQuotable, BadSetting) as error:  # said, not printed wrong
        return _named_anyway(words, isinstance(error, BadSetting))
    finally:
        _NAMING.reset(naming)
    return _in_quotes(typed)


def _named_anyway(words: Sequence[str], unknown: bool) -> str:
    """`named`'s sentence where the user's shell cannot be given the line (`unknown`:
    or is one sessdex does not know): the words that need it left out, and why;
    sessdex's path quoted as that shell (or sh) quotes it, a folder with a space in it
    whole."""
    from .errors import NotQuotable
    from .shells import POSIX, run

    why = " (SESSDEX_SHELL names a shell sessdex does not know)" if unknown else ""
    sessdex = program()
    try:
        # a path: quoted (PowerShell's `& '…'`), as `line` does; `sessdex` bare
        if sessdex != "sessdex":
            sessdex = run(_program(), POSIX if unknown else None)
    except NotQuotable:  # a path the shell cannot be given: named as it is
        pass
    if not all(word and _PLAIN.issuperset(word) for word in words):
        if unknown:
            also = " and the same --home" if _HOME.get() is not None else ""
            said = f"{sessdex} {words[0]}"
            return f"{_in_quotes(said)} with {_left_out(words)}{also}{why}"
        # the word itself: an id a file gave, or one the user typed (`find`'s)
        what = _untypable(words[1:])
        said = f"{sessdex} {words[0]}"
        return f"{_in_quotes(said)} ({what} cannot be typed in your shell)"
    said = " ".join((sessdex, *words))
    if _HOME.get() is not None:
        return f"{_in_quotes(said)} with the same --home{why}"
    # only sessdex's path needed the shell's rules: sh's, said so
    told = " (quoted for sh: SESSDEX_SHELL names a shell sessdex does not know)"
    return _in_quotes(said) + (told if unknown else "")


def _left_out(words: Sequence[str]) -> str:
    """What the words a hint leaves out are, as it says them: `find`'s are the words it
    looks for, where another command's are an id (or the folder or file an option
    names)."""
    if words[0] == "find":
        looked_for = [word for word in words[1:] if word != "--"]
        return "that word" if len(looked_for) == 1 else "those words"
    quoted = (
        n for n, word in enumerate(words) if not _PLAIN.issuperset(word) or not word
    )
    first = next(quoted, 0)
    before = words[first - 1] if first else ""
    return {"--home": "that folder", "-o": "that file"}.get(before, "that id")
