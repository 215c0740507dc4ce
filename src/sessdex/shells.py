"""The shell a printed command is written for, and how a word and a `cd`-then-run line
are written in it: POSIX sh (dash too), bash/zsh/ksh, fish, PowerShell (5.1 and 7) or
cmd.exe.

This module only writes text for a person to paste; sessdex never runs a shell. A word
one shell cannot be given safely is refused (`NotQuotable`), never printed wrongly.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence

from .cells import INVISIBLE
from .errors import BadSetting, NotQuotable, typed

# POSIX: any POSIX sh, dash (Debian's and Ubuntu's /bin/sh) too, which reads no $'…';
# BASH: the shells that do (bash, zsh, ksh), where a control character is written so;
# FISH: fish, which reads `\\` and `\'` inside single quotes, so neither form is its
POSIX, BASH, FISH, POWERSHELL, CMD = "posix", "bash", "fish", "powershell", "cmd"
_NAMES = {
    "posix": POSIX,
    "sh": POSIX,
    "dash": POSIX,
    "ash": POSIX,
    "bash": BASH,
    "zsh": BASH,
    "ksh": BASH,
    "ksh93": BASH,
    "mksh": BASH,
    "fish": FISH,
    "powershell": POWERSHELL,
    "pwsh": POWERSHELL,
    "cmd": CMD,
}

# control and bidi characters: printing them raw could drive the terminal or reorder
# what the reader sees (views/text strips the same set from transcript text)
_CONTROLS = r"\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# a byte that is not UTF-8 (a word typed under LANG=C, a file name), as Python holds it
# (surrogateescape): written out as that byte's escape, the line pasted gives the byte
# back, where printed raw it came out as `?`
_NOT_UTF8 = "\udc80-\udcff"
# and what draws nothing (`cells.INVISIBLE`): printed raw, a folder or id holding one
# looks like another, and the line pasted would not be the one the reader saw
_UNPRINTABLE = re.compile(f"[{_CONTROLS}{_NOT_UTF8}{INVISIBLE}]")
_UNPRINTABLE_RUN = re.compile(f"[{_CONTROLS}{_NOT_UTF8}{INVISIBLE}]+")
# and, where stdout is no UTF-8 (`LC_ALL=C PYTHONUTF8=0`, a Latin-1 terminal), every
# character past ASCII: printed, it would come out as `?` or in the locale's bytes,
# where the folder's name on disk holds its UTF-8 ones
_BEYOND_ASCII = r"\x80-\ud7ff\ue000-\U0010ffff"
_UNPRINTABLE_IN_ASCII = re.compile(
    f"[{_CONTROLS}{_NOT_UTF8}{INVISIBLE}{_BEYOND_ASCII}]"
)
_UNPRINTABLE_RUN_IN_ASCII = re.compile(
    f"[{_CONTROLS}{_NOT_UTF8}{INVISIBLE}{_BEYOND_ASCII}]+"
)
# cmd.exe has no way to write a character as an escape: a control cannot be typed into
# it, and an invisible one, printed raw, would pass a word other than the one the reader
# sees (`8c1f<U+200B>2e3` looks like `8c1f2e3`, another id's start). Both are refused:
# `resume` runs such a line itself, and a message names the word as repr writes it.
_CMD_CONTROLS = re.compile(f"[{_CONTROLS}]")
_INVISIBLE = re.compile(f"[{INVISIBLE}]")
# what a printed word writes as an escape, whatever stdout's encoding: not a character
# a reader sees (`shown_start` counts the others)
_HIDDEN = re.compile(f"[{_CONTROLS}{INVISIBLE}]")
_NOT_UTF8_CHAR = re.compile(f"[{_NOT_UTF8}]")
# PowerShell reads these as quote marks too, not only the ASCII ones
_PS_SINGLE = "'\u2018\u2019\u201a\u201b"
_PS_DOUBLE = '"\u201c\u201d\u201e'
# words fish takes as they are: shlex's plain words less `%` (`%self` is fish's pid)
_FISH_BARE = re.compile(r"[A-Za-z0-9_@+=:,./-]+")
# the escapes fish reads outside quotes for the controls people know by name
_FISH_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}
# words either shell takes as they are: no quoting needed, none of them a number
_PS_BARE = re.compile(r"-{0,2}[A-Za-z][A-Za-z0-9_-]*")
_CMD_BARE = re.compile(r"[A-Za-z0-9_.:/\\+@-]+")
# what cmd.exe acts on inside double quotes too (`%PATH%` expands, `!` with delayed
# expansion on); outside them `&|<>^()` as well, which an npm .cmd shim's `%*` would
# act on again, so a caret cannot make them safe
_CMD_UNQUOTABLE = frozenset("%!")
_CMD_OUTSIDE = frozenset("&|<>^()")


def current(
    environ: Mapping[str, str] | None = None, platform: str | None = None
) -> str:
    """The shell the user types in: `SESSDEX_SHELL` when set; else bash's dialect where
    `SHELL` names bash, zsh or ksh, fish's where it names fish, and POSIX sh's where it
    names another or none (dash reads no $'…'); but on Windows outside a POSIX shell
    (Git Bash, MSYS2 and Cygwin set MSYSTEM or SHELL) PowerShell, the shell Windows
    Terminal opens by default. cmd.exe leaves no trace a program can trust, so it is
    chosen only by `SESSDEX_SHELL=cmd`."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    chosen = environ.get("SESSDEX_SHELL", "").strip()
    if chosen:
        if chosen.lower() not in _NAMES:
            raise BadSetting(
                f"SESSDEX_SHELL is {chosen!r}; set it to sh (or dash, posix), bash (or "
                "zsh, ksh), fish, powershell or cmd."
            )
        return _NAMES[chosen.lower()]
    login = environ.get("SHELL", "")
    if platform != "win32" or environ.get("MSYSTEM") or login:
        name = re.split(r"[/\\]", login)[-1].lower().removesuffix(".exe")
        return _NAMES[name] if _NAMES.get(name) in (BASH, FISH) else POSIX
    return POWERSHELL


def word(text: str, shell: str | None = None) -> str:
    """`text` as one word of a command line in `shell` (the user's when None)."""
    shell = shell or current()
    if shell == POWERSHELL:
        _check_powershell_argument(text)  # what it quotes is a program's argument
        return _powershell_word(text)
    if shell == CMD:
        return _cmd_word(text)
    if shell == FISH:
        return _fish_word(text)
    return _posix_word(text, shell)


def run(argv: Sequence[str], shell: str | None = None) -> str:
    """The line that runs `argv` in the current folder."""
    shell = shell or current()
    if shell == POWERSHELL:
        for argument in argv[1:]:
            _check_powershell_argument(argument)
        rest = "".join(" " + _powershell_word(a) for a in argv[1:])
        # the call operator runs a quoted program name, which alone would be a string
        return f"& {_powershell_word(argv[0])}{rest}"
    if shell == CMD:
        return " ".join(map(_cmd_word, argv))
    return " ".join(word(a, shell) for a in argv)


def cd_then_run(folder: str, argv: Sequence[str], shell: str | None = None) -> str:
    """The line that enters `folder` and, only if that worked, runs `argv` there."""
    shell = shell or current()
    if shell == POWERSHELL:
        # 5.1 has no `&&`; `$?` says whether Set-Location entered the folder
        return (
            f"Set-Location -LiteralPath {_powershell_word(folder)}; "
            f"if ($?) {{ {run(argv, shell)} }}"
        )
    if shell == CMD:
        _check_cmd(folder, folder=True)
        # /d: change the drive too, as a folder on another drive needs
        return f'cd /d "{folder}" && ' + run(argv, shell)
    # to cd, an option (`cd -`: the last folder, `-P`: home) or, to zsh, an entry of
    # its folder stack (`cd +1`): `./-P` is the folder of that name, as resume's
    if folder.startswith(("-", "+")):
        folder = os.path.join(os.curdir, folder)
    # the same folder, but a name that does not end in a line break, which sh's form
    # cannot write at a word's end
    if shell == POSIX and folder.endswith("\n"):
        folder += "/"
    # fish reads `&&` from 3.0 on (2.x only `; and`)
    return f"cd {word(folder, shell)} && " + run(argv, shell)


def set_variable(name: str, value: str, shell: str | None = None) -> str:
    """The line that sets the environment variable `name` (a plain word) to `value` for
    the programs this shell runs next."""
    shell = shell or current()
    if shell == POWERSHELL:  # always quoted: a bare word there would run as a command
        return f"$env:{name} = {_powershell_string(value)}"
    if shell == CMD:  # the quotes around the whole keep `&|<>^` out of cmd's reach
        _check_cmd(value, folder=True)
        return f'set "{name}={value}"'
    if shell == FISH:  # -g: past the end of this line; -x: exported
        return f"set -gx {name} {_fish_word(value)}"
    # unexported, it would reach no program
    return f"export {name}={_posix_word(value, shell)}"


def _posix_word(text: str, shell: str) -> str:
    """Plain words are quoted as `shlex.quote` does. A word holding a control or bidi
    character (a folder or model name from a broken file) is written with each such
    character as its bytes' escapes (`\\033`, `\\342\\200\\256`): printing the
    command then cannot drive the terminal or hide a character, and pasting it still
    passes the exact value. bash, zsh and ksh read the $'…' form; for POSIX sh (dash,
    which has none) see `_sh_word`."""
    unprintable = _unprintable()
    if not unprintable.search(text):
        return _plain_word(text)
    if shell != BASH:
        return _sh_word(text)
    out = []
    for char in text:
        if char in "'\\":
            out.append("\\" + char)
        elif unprintable.match(char):
            # each UTF-8 byte in octal: bash from 2.0 (macOS's 3.2 knows no \u), zsh,
            # ksh93 and mksh give the same bytes, whatever the shell's own locale
            out.extend(f"\\{byte:03o}" for byte in _bytes(char))
        else:
            out.append(char)
    return "$'" + "".join(out) + "'"


def _plain_word(text: str) -> str:
    """`shlex.quote`, but a word it leaves bare that starts with `=` quoted too: zsh
    reads a bare `=ls` as the path of that command (`/usr/bin/ls`)."""
    quoted = shlex.quote(text)
    return f"'{text}'" if quoted == text and text.startswith("=") else quoted


def _fish_word(text: str) -> str:
    """The word in single quotes as fish reads them (`\\\\` and `\\'` are escapes there, so
    a backslash and a quote mark are escaped), each control or invisible character an
    escape between the quoted runs (`'a'\\e'b'`, `'w'\\u200b'ork'`): fish joins them into
    one word. `\\xHH` is a byte to fish, so a character past ASCII is its `\\u` form."""
    if _FISH_BARE.fullmatch(text):
        return text
    unprintable = _unprintable()
    out: list[str] = []
    quoted: list[str] = []
    for char in text:
        if not unprintable.match(char):
            quoted.append("\\" + char if char in "'\\" else char)
            continue
        if quoted:
            out.append("'" + "".join(quoted) + "'")
            quoted = []
        if char in _FISH_NAMED:
            out.append(_FISH_NAMED[char])
        elif ord(char) < 0x80 or _NOT_UTF8_CHAR.match(char):  # fish: \xHH a byte
            out.append(f"\\x{_bytes(char)[0]:02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:  # a tag character: fish's \U takes up to 8 digits
            out.append(f"\\U{ord(char):08x}")
    if quoted or not out:
        out.append("'" + "".join(quoted) + "'")
    return "".join(out)


def _sh_word(text: str) -> str:
    """The word in a form every POSIX sh reads (dash included): its plain runs quoted as
    `shlex.quote` does, each run of control or invisible characters the output of a
    `printf` of their bytes in octal, in double quotes (`"$(printf '\\342\\200\\213')"`).
    `$(…)` drops the line breaks its output ends with, so a run that ends in one takes
    the next character in with it; a word that ends in one has no such form (refused)."""
    if text.endswith("\n"):
        raise NotQuotable(
            f"POSIX sh cannot be given {_shown(text)}, which ends in a line break, "
            "in a line that shows every character (SESSDEX_SHELL=bash prints one for "
            "bash, zsh and ksh; "
            f"{_runs_itself()})."
        )
    unprintable = _unprintable()
    out: list[str] = []
    at = 0
    for found in _unprintable_run().finditer(text):
        start, end = found.span()
        # a run ending in a line break takes the next character, which keeps the break
        if text[end - 1] == "\n":
            end += 1
        if at < start:
            out.append(_plain_word(text[at:start]))
        escaped = "".join(
            char
            if not unprintable.match(char) and char not in "'\\%"
            else "".join(f"\\{byte:03o}" for byte in _bytes(char))
            for char in text[start:end]
        )
        out.append(f"\"$(printf '{escaped}')\"")
        at = end
    if at < len(text):
        out.append(shlex.quote(text[at:]))
    return "".join(out)


def _powershell_word(text: str) -> str:
    """A plain word (`--resume`, `claude`) as it is; any other a string literal."""
    return text if _PS_BARE.fullmatch(text) else _powershell_string(text)


def _powershell_string(text: str) -> str:
    """A single-quoted string, its quote marks doubled; one holding a control or bidi
    character is a double-quoted one instead, each such character `$([char]0x1b)` (5.1
    has no `` `e `` or `` `u{} ``), and `$`, the backtick and the double quotes escaped."""
    _check_text(text, "PowerShell")
    unprintable = _unprintable()
    if not unprintable.search(text):
        return "'" + "".join(c * 2 if c in _PS_SINGLE else c for c in text) + "'"
    out = []
    for char in text:
        if unprintable.match(char) and ord(char) > 0xFFFF:  # past what [char] holds
            out.append(f"$([char]::ConvertFromUtf32(0x{ord(char):x}))")
        elif unprintable.match(char):
            out.append(f"$([char]0x{ord(char):x})")
        elif char in "$`" or char in _PS_DOUBLE:
            out.append("`" + char)
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _check_powershell_argument(text: str) -> None:
    """PowerShell before 7.3 (and 7.3 for a .cmd program) writes a program's command line
    without escaping a `"`, which the program's parser then reads as a quote mark: a word
    whose marks pair up and that holds no blank arrives without them (a `key="value"`
    setting a CLI reads as TOML is the same string either way). Refused: a word that would run into the next
    one (a blank with a `"` or a trailing `\\`, a quote left open) or an empty one (dropped)."""
    blank = any(c.isspace() for c in text)
    if (
        text == ""
        or (blank and ('"' in text or text.endswith("\\")))
        or _opens_a_quote(text)
    ):
        raise NotQuotable(
            f"PowerShell before 7.3 would not pass {_shown(text)} to the program as "
            "one word: no line typed into it can (SESSDEX_SHELL=posix prints one for "
            "Git Bash; "
            f"{_runs_itself()})."
        )


def _opens_a_quote(text: str) -> bool:
    """Whether a program's parser (Microsoft's C runtime) would still be inside quotes at
    the end of `text`: a `"` after an even run of backslashes opens or closes them."""
    inside, backslashes = False, 0
    for char in text:
        if char == '"' and backslashes % 2 == 0:
            inside = not inside
        backslashes = backslashes + 1 if char == "\\" else 0
    return inside


def shown_start(text: str, count: int) -> str:
    """The start of `text` that holds `count` characters a printed word shows as they
    are: a control, bidi or invisible character among them (written as an escape, or
    refused) is kept, and not counted."""
    if not _HIDDEN.search(text, 0, count):
        return text[:count]
    shown = 0
    for at, char in enumerate(text):
        if not _HIDDEN.match(char):
            shown += 1
            if shown == count:
                return text[: at + 1]
    return text


def _cmd_word(text: str) -> str:
    """The word in double quotes, as a program's parser reads them (`\\"` for a `"`,
    backslashes before one doubled); cmd.exe, which knows no `\\"`, must find nothing it
    acts on in what lies outside its own idea of the quotes."""
    _check_cmd(text, folder=False)
    if _CMD_BARE.fullmatch(text):
        return text
    out, backslashes = ['"'], 0
    for char in text:
        if char == "\\":
            backslashes += 1
            continue
        out.append("\\" * (backslashes * 2 + 1 if char == '"' else backslashes) + char)
        backslashes = 0
    out.append("\\" * backslashes * 2 + '"')
    quoted, inside = "".join(out), False
    for char in quoted:
        if char == '"':
            inside = not inside
        elif not inside and char in _CMD_OUTSIDE:
            _refuse_cmd(repr(char), text)
    return quoted


def _check_cmd(text: str, *, folder: bool) -> None:
    """cmd.exe acts on `%` (and `!`) inside double quotes too, and a line break or a
    control character cannot be typed into it; `cd` takes no `"` in a folder."""
    found = next((c for c in text if c in _CMD_UNQUOTABLE), None)
    if found is None and folder and '"' in text:
        found = '"'
    if found is not None:
        _refuse_cmd(repr(found), text)
    if _CMD_CONTROLS.search(text):
        _refuse_cmd("a control character", text)
    if _INVISIBLE.search(text):
        raise NotQuotable(
            f"cmd.exe cannot show {_shown(text)}, which holds a character that draws "
            "nothing: a line would not show the word it passes (SESSDEX_SHELL="
            f"powershell prints one for PowerShell; {_runs_itself()})."
        )
    _check_text(text, "cmd.exe")


def _refuse_cmd(what: str, text: str) -> None:
    raise NotQuotable(
        f"cmd.exe would act on {what} in {_shown(text)} whatever the quotes: no "
        "line typed into it can pass that word (SESSDEX_SHELL=powershell prints "
        "one for PowerShell; "
        f"{_runs_itself()})."
    )


def _runs_itself() -> str:
    """What a refusal's message ends with: sessdex runs the line itself, with no shell
    between, named with the running command's --home."""
    from .hints import named

    return f"{named('resume')} without --print runs it itself"


def run_here(refusal: str) -> str:
    """A refusal to quote a line, as said where sessdex is running it (`resume` without
    --print, the `$ …` line left out): that it runs it now, where the refusal sends the
    user to the `resume` that does."""
    return refusal.replace(_runs_itself(), "sessdex runs it now, with no shell between")  # fmt: skip


def _check_text(text: str, shell: str) -> None:
    """PowerShell and cmd.exe pass a program text, never a byte that is not UTF-8."""
    if _NOT_UTF8_CHAR.search(text):
        raise NotQuotable(
            f"{shell} cannot be given {_shown(text)}, which holds a byte that is not "
            f"UTF-8 (SESSDEX_SHELL=posix prints a line for Git Bash; {_runs_itself()})."
        )


def _bytes(char: str) -> bytes:
    """The bytes `char` stands for: its UTF-8, or the one byte it holds that is not."""
    return char.encode("utf-8", "surrogateescape")


def _shown(text: str) -> str:
    """The word as a message shows it: repr writes out its control and bidi characters,
    `typed` a byte that is not UTF-8 (`\\xe9`)."""
    return typed(text)


def _unprintable() -> re.Pattern[str]:
    """What a printed word writes as an escape: see `_UNPRINTABLE_IN_ASCII`."""
    return _UNPRINTABLE if _stdout_is_utf8() else _UNPRINTABLE_IN_ASCII


def _unprintable_run() -> re.Pattern[str]:
    """A run of what `_unprintable` matches."""
    return _UNPRINTABLE_RUN if _stdout_is_utf8() else _UNPRINTABLE_RUN_IN_ASCII


def _stdout_is_utf8() -> bool:
    """Whether stdout writes UTF-8 (a stream that names no encoding is taken to)."""
    import codecs

    encoding = getattr(sys.stdout, "encoding", None)
    if not isinstance(encoding, str):
        return True
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return True
