"""A shell's tab press for a session id or an app name, answered without click.

Click answers the shell's completion requests (`_SESSDEX_COMPLETE=bash_complete`, with
COMP_WORDS and COMP_CWORD) after importing itself and every command: most of a tab
press. The two values people complete, a session id (`sessdex show 7f<TAB>`) and an app
(`sessdex list --app co<TAB>`), are answered here from the index, byte for byte as click
answers them through `cli/completion.py`. Anything this path is not sure of (an option
given a value, --home, a quote or escape in the line, a `source` request) returns False,
and click answers as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from . import quick
from .sources import BUILTIN, TITLES

# the newest matches: a shell shows no more than a screenful anyway
MAX_OFFERED = 200
# a title is cut to this many columns in a session's help
TITLE_COLUMNS = 60

# The commands whose SESSION_ID argument is completed, and the flags (options that take
# no value) each takes; tests check these against the CLI's own.
ID_COMMANDS: dict[str, frozenset[str]] = {
    "resume": frozenset(
        {
            "--print",
            "--json",
            "--yes",
            "-y",
            "--force",
            "--keep-permissions",
            "--verbose",
            "-v",
        }
    ),
    "show": frozenset(
        {"--full-payloads", "--no-pager", "--json", "--nl", "--verbose", "-v"}
    ),
    "tree": frozenset({"--json", "--nl", "--verbose", "-v"}),
    "export": frozenset({"--verbose", "-v"}),
    "follow": frozenset({"--nl", "--poll", "--verbose", "-v"}),
    "replay": frozenset({"--nl", "--verbose", "-v"}),
}
# The commands that take --app: their flags, and how many words they take as
# arguments (None: any number).
APP_COMMANDS: dict[str, tuple[frozenset[str], int | None]] = {
    "list": (frozenset({"--all", "--here", "--json", "--nl", "--verbose", "-v"}), 0),
    "find": (
        frozenset({"--all", "--here", "--json", "--nl", "--verbose", "-v"}),
        None,
    ),
    "doctor": (frozenset({"--deep", "--own", "--json", "--nl", "--verbose", "-v"}), 0),
    "watch": (
        frozenset({"--here", "--nl", "--json", "--once", "--poll", "--verbose", "-v"}),
        0,
    ),
    "usage": (frozenset({"--here", "--json", "--nl", "--verbose", "-v"}), 1),
}
HELP = frozenset({"-h", "--help"})  # every command's

# what click's shell_complete splits COMP_WORDS on (shlex's whitespace); a line with a
# quote or an escape is split by shlex's rules, left to click
_SPACES = " \t\r\n"
_QUOTING = "\"'\\"


def answer() -> bool:
    """Print click's answer to the shell's completion request in the environment, if this
    path understands it; False (nothing printed) for click to answer."""
    request = _request(os.environ)
    if request is None:
        return False
    shell, typed, wants_ids = request
    try:
        items = _ids(shell, typed) if wants_ids else _apps(typed)
        if items is None:
            return False
        lines = [_formatted(shell, value, help_) for value, help_ in items]
        body = "\n".join(lines).encode() + b"\n"
    except Exception:  # click answers instead, as it always did (SESSDEX_DEBUG: why)
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        return False
    sys.stdout.flush()
    sys.stdout.buffer.write(body)
    sys.stdout.buffer.flush()
    return True


def _request(environ: Mapping[str, str]) -> tuple[str, str, bool] | None:
    """(shell, what was typed, whether a session id is asked for: else an app name),
    or None for a request click should answer."""
    shell = {
        "bash_complete": "bash",
        "zsh_complete": "zsh",
        "fish_complete": "fish",
    }.get(environ.get("_SESSDEX_COMPLETE", ""))
    line, position = environ.get("COMP_WORDS"), environ.get("COMP_CWORD")
    if shell is None or line is None or position is None:
        return None
    words = _split(line)
    if words is None:
        return None
    if shell == "fish":  # COMP_CWORD holds the word being typed, which ends COMP_WORDS
        typed = position
        if typed and (_split(typed) != [typed]):
            return None
        args = words[1:]
        if typed and args and args[-1] == typed:
            args.pop()
    else:
        if not (position.isascii() and position.isdigit()):
            return None
        index = int(position)
        args = words[1:index]
        typed = words[index] if index < len(words) else ""
        if home_after(words, index) is not None:  # click reads it: see `home_after`
            return None
    if not args or typed.startswith("-") or typed == "=":
        return None  # a command's name, an option's, or a value split by the shell
    command, given = args[0], args[1:]
    if command in ID_COMMANDS:
        if all(word in ID_COMMANDS[command] or word in HELP for word in given):
            return shell, typed, True
        return None
    if command not in APP_COMMANDS or given[-1:] != ["--app"]:
        return None
    flags, most = APP_COMMANDS[command]
    arguments = 0
    for word in given[:-1]:
        if word in flags or word in HELP:
            continue
        if not word or word.startswith("-"):
            return None
        arguments += 1
    if most is not None and arguments > most:
        return None
    return shell, typed, False


def home_after(words: list[str], index: int) -> str | None:
    """The `--home` given after the word at `index` (`show 3f<TAB> --home DIR`), which
    click leaves out of what it parses: it reads the words before the cursor alone."""
    later = iter(words[index + 1 :])
    found = None
    for word in later:
        if word == "--home":
            found = next(later, found)
        elif word.startswith("--home="):
            found = word.removeprefix("--home=")
    return found


def _split(line: str) -> list[str] | None:
    """The words of `line` as click's `split_arg_string` (shlex) makes them, or None where
    a quote or escape would need shlex."""
    if any(c in _QUOTING for c in line):
        return None
    for space in _SPACES[1:]:
        line = line.replace(space, " ")
    return [word for word in line.split(" ") if word]


def _apps(typed: str) -> list[tuple[str, str]]:
    """(name, help) of the apps whose name starts with what was typed (any case)."""
    typed = typed.lower()
    return [(name, TITLES[name]) for name in BUILTIN if name.startswith(typed)]


def _ids(shell: str, typed: str) -> list[tuple[str, str]] | None:
    """(value, help) of the sessions offered for what was typed, as `cli/completion.py`
    gives them to click; None for a home only the CLI names."""
    home = _home()
    if home is None:
        return None
    try:
        quick.freshen(home)
    except Exception:  # busy, a full disk: what the index holds is offered still
        if os.environ.get("SESSDEX_DEBUG"):
            raise
    found = quick.session_ids(home, typed, MAX_OFFERED, one_word)
    if shell == "bash":  # which shows no help
        return [(value, "") for _, value, _ in found]
    return [(value, f"{app} · {_title(title)}") for app, value, title in found]


def _title(title: str | None) -> str:
    """`views.text.title_line(title, TITLE_COLUMNS)`, loading `re` only for a title that
    needs it."""
    shown = title_line(title)
    if shown is None:
        from .views.text import title_line as cleaned

        return cleaned(title, TITLE_COLUMNS)
    return shown


def _home() -> tuple[str, Mapping[str, str]] | None:
    """(the user's home, the environment), as `Home.current` names its index: None for a
    home pathlib would name otherwise (relative, unknown) or that is not text."""
    given = os.path.expanduser("~")
    path = quick.as_home_at(given) if given.startswith("/") else None
    if path is None or not (path.isascii() or _utf8(path)):
        return None
    return path, os.environ


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def one_word(value: str) -> bool:
    """Typed back unquoted, the shell reads it as this one word and nothing else, and
    sessdex as a session id, not an option (`-rf`, `--help`)."""
    return (
        value.isprintable()
        and not value.startswith("-")
        and not any(c.isspace() or c in "\"'\\$`;&|<>()*?[]{}!#~" for c in value)
    )


# what makes characters one emoji of two columns (views.text._JOINED): such a title is
# measured by Rich, in the CLI
_JOINED = frozenset("\u200d\ufe0f") | frozenset(map(chr, range(0x1F3FB, 0x1F400)))


def title_line(title: str | None) -> str | None:
    """`views.text.title_line(title, TITLE_COLUMNS)` for the titles that need no cleaning
    (printable, but for line breaks and tabs) nor Rich to measure (most), without `re`;
    None for the others."""
    if title and not (
        title.isprintable() or title.replace("\n", " ").replace("\t", " ").isprintable()
    ):
        return None  # escapes or controls to remove first
    line = " ".join(title.split()) if title else ""
    if not line:
        return "(untitled)"
    if len(line) * 2 <= TITLE_COLUMNS or (
        line.isascii() and len(line) <= TITLE_COLUMNS
    ):
        return line
    if line.isascii():
        return line[: TITLE_COLUMNS - 1] + "…"
    if any(c in _JOINED for c in line):
        return None
    from .cells import char_cells

    sizes = [1 if c.isascii() else char_cells(c) for c in line]
    if sum(sizes) <= TITLE_COLUMNS:
        return line
    kept = 0
    for position, size in enumerate(sizes):
        kept += size
        if kept > TITLE_COLUMNS - 1:
            return line[:position] + "…"
    return line


def _formatted(shell: str, value: str, help_: str) -> str:
    """One item as click's completion class for `shell` writes it (a help always given)."""
    if shell == "bash":
        return f"plain,{value}"
    if shell == "zsh":  # `_describe` splits value from help at the first bare colon
        return f"plain\n{value.replace(':', chr(92) + ':')}\n{help_}"
    return (
        f"plain,{value}\t{help_.replace(chr(10), chr(92) + 'n').replace(chr(9), ' ')}"
    )
