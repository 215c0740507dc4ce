"""The errors sessdex raises on purpose, each with a message that says what to do next.

SessdexError
├── BadValue            an option's value sessdex cannot use (a usage error: exit 2)
│   └── UnknownApp      --app names no known source
├── SessionNotFound     no session id starts with the prefix
├── AmbiguousId         the prefix matches several sessions
├── ResumeRefused       the app has no resume command for the session (a sub-agent's, an
│                       app without one); what a preflight finds is `ResumeCheck.refusals`
├── NotQuotable         a word the user's shell cannot be given in a printed command
├── IndexBusy           another sessdex holds the index for too long
├── BadSetting          a variable of sessdex's own (SESSDEX_SHELL) holds what it cannot use
└── NoHome              HOME is unset and the user has no home in the password database
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .hints import command_line, named, spelt

TYPE_CHECKING = False  # not typing's: the quick listing path imports this module
if TYPE_CHECKING:
    from .model import Session


def typed(word: str) -> str:
    """`word` (what the user typed) quoted as repr quotes it, a byte that is not UTF-8
    written `\\xe9` as `folders.shown` writes a file name's, not `\\udce9`, an escape
    the user never typed."""
    said = repr(word)
    if "\\udc" not in said:
        return said
    import re  # rare: not at import, as difflib

    # a byte not UTF-8, as repr spells it (surrogateescape): after pairs of backslashes
    return re.sub(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])", r"\1\\x\2", said)


class SessdexError(Exception):
    """An error we explain to the user; the CLI prints it and exits 1."""


class BadValue(SessdexError):
    """A value given for an option that sessdex cannot use (a time, a zone, an app): a
    usage error, so the CLI exits 2, as click does for a value it checks itself."""


class UnknownApp(BadValue):
    """An app name (`--app`, `apps=`) that no source has; `.name` is the name given."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        meant = _meant_app(name, known)
        super().__init__(
            f"unknown app {typed(name)}{meant}. Known apps: {', '.join(sorted(known))}."
        )
        self.name = name


def _meant_app(name: str, known: Sequence[str]) -> str:
    """What an unknown app name most likely meant, as a parenthesis: several apps written
    in one (`codex,claude`, which the nearest-name guess read as a misspelt `claude`), or
    the nearest name; "" for no guess."""
    parts = name.lower().replace(",", " ").split()
    if len(parts) > 1 and all(part in known for part in parts):
        if not command_line():  # `apps=["codex,claude"]`: a list of names
            return f" (give each app its own name: apps={parts!r})"
        return (
            f" (give each app its own --app: {' '.join('--app ' + p for p in parts)})"
        )
    near = nearest(name, known)
    return f" (did you mean {near!r}?)" if near else ""


def nearest(name: str, known: Sequence[str]) -> str | None:
    """The known name `name` most likely misspells (`cladue`: claude), else None."""
    import difflib  # not at import: the quick listing path loads this module

    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
    return close[0] if close else None


class SessionNotFound(SessdexError):
    """No session id starts with `.prefix` (sub-agents' included)."""

    def __init__(
        self, prefix: str, unknown_app: str | None = None, hint: str | None = None
    ) -> None:
        """`unknown_app`: the word before a colon in `prefix`, where it names no app;
        `hint`: what the user most likely meant, said instead of pointing at `list`."""
        told = f"no session id starts with {typed(prefix)}"
        if unknown_app:  # `nope:7f3a` is most likely a misspelt app, not an id
            told += f", and {typed(unknown_app)} is no app sessdex reads (see {named('doctor')})"
        if not hint:
            told += f". Run {named('list')} to see recent ones"
        super().__init__(f"{told}; {hint}" if hint else f"{told}.")
        self.prefix = prefix


class AmbiguousId(SessdexError):
    """`.prefix` starts several sessions' ids; `.candidates` holds (app, id, title) of each."""

    def __init__(self, prefix: str, candidates: Sequence[tuple[str, str, str]]) -> None:
        """`candidates` holds (app, id, title) for each match."""
        apps: dict[str, int] = {}
        for app, _, _ in candidates:
            apps[app] = apps.get(app, 0) + 1
        counted = ", ".join(f"{n} {app}" for app, n in sorted(apps.items()))
        how = "type more of the id"
        # an id two apps share needs its app, `<app>:<id>`: named where that settles it
        alone = sorted(app for app, n in apps.items() if n == 1)
        if len(apps) > 1 and alone:
            how += f", or put its app in front ({spelt(f'{alone[0]}:{prefix}')})"
        spellings: dict[str, set[str]] = {}
        for _, session_id, _ in candidates:
            spellings.setdefault(session_id.lower(), set()).add(session_id)
        # a prefix matches in any case: more of it never tells these apart, only the id
        # typed whole as it is spelt; an id comes from a file, so it is quoted as the
        # user's shell takes it
        cased = next((sorted(s) for s in spellings.values() if len(s) > 1), [])
        if len(spellings) == 1 and len(apps) == len(candidates):  # more settles nothing
            which = " or ".join(spelt(f"{app}:{prefix}") for app in sorted(apps))
            how = f"put the app in front: {which}"
            counted += (
                "), whose ids differ only in case"
                if cased
                else f"), which share the id {spelt(candidates[0][1])}"
            )
        elif len(spellings) == 1 and cased:
            how = f"type the id whole, as it is spelt: {' or '.join(map(spelt, cased))}"
            counted += "), whose ids differ only in case"
        else:
            counted += ")"
            if cased:
                how += (
                    f"; {' and '.join(map(spelt, cased))} differ only in case: type "
                    "one whole, as it is spelt"
                )
        super().__init__(
            f"{typed(prefix)} matches {len(candidates)} sessions ({counted}; {how}."
        )
        self.prefix = prefix
        self.candidates = list(candidates)


class ResumeRefused(SessdexError):
    """No resume command can be built for the session (its app has none for it, or its
    id or folder cannot be passed); the message says why. `.session` is the session
    refused, where one was found (`resume --json` still describes it), and `.lead` the
    `app:id` of the session to resume instead (a sub-agent's lead) that the message names
    in a `sessdex resume` line, or None. What a preflight check finds (folder gone, CLI
    missing) is in `ResumeCheck.refusals` instead."""

    def __init__(
        self, message: str, session: Session | None = None, lead: str | None = None
    ) -> None:
        super().__init__(message)
        self.session = session
        self.lead = lead


class NotQuotable(SessdexError):
    """A word (a folder, an id) that the shell a command is printed for cannot be given
    as it is (cmd.exe expands `%` inside quotes too): no line is printed for it."""


class IndexBusy(SessdexError):
    """Another sessdex holds the index too long; trying again is enough."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"the index at {path} is busy (another sessdex is refreshing it); try again."
        )


class BadSetting(SessdexError):
    """An environment variable of sessdex's own (`SESSDEX_SHELL`) holds a value it cannot
    use: the environment is at fault, not the command line, so no usage error (exit 1, as
    for `NoHome`); the message names the values it takes."""


class NoHome(SessdexError):
    """No home folder to read: HOME is not set and the user has no entry in the password
    database (a container run with a bare numeric user), where Python leaves `~` as is."""

    def __init__(self) -> None:
        super().__init__(
            "cannot tell which folder is your home: HOME is not set and this user "
            f"(uid {os.getuid()}) has no home in the password database. Set HOME, or "
            "pass --home FOLDER."
        )
