"""Terminal text: untrusted transcript text made harmless, and small formatting helpers.

Titles and transcript text come from models and users. Before anything reaches a terminal,
control characters and escape sequences are removed so they cannot move the cursor, retitle
the window, write a hyperlink or hide text.
"""

from __future__ import annotations

import bisect
import itertools
import os
import re
from collections.abc import Container, Iterable, Iterator, Sequence
from datetime import UTC, datetime

from .. import pathnames
from ..cells import INVISIBLE, written_out
from ..cells import char_cells as _char_cells

# the quick listing imports this module: no model import at run time, nor `typing`'s
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from ..model import Event, Usage

# ESC-introduced sequences (CSI, OSC, DCS, …) first, so their parameters go too; then any
# remaining C0/C1 control character, and bidi controls that can reorder what a reader sees
# (all of Unicode's Bidi_Control: the Arabic letter mark, the marks, embeddings,
# overrides and isolates). A string sequence (OSC, …) goes with its payload only where it
# ends on its line: one never ended would take the rest of the text with it (a reply
# whose last lines a model wants unread), so only its introducer goes.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[@-Z\\-_]"  # two-byte sequences
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|\x9d[^\x07\x9c\n]*(?:\x07|\x9c)"  # 8-bit OSC
)
_CONTROLS = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    # and what draws nothing but is no joiner (`cells.INVISIBLE`). Shown, each makes
    # two texts look the same or hides text, takes a column where a terminal draws
    # none (or `?` on an ASCII console), so a table's columns slip; `clean` drops them
    # (a line separator breaks the line)
    f"{INVISIBLE}]"
)
# England's, Scotland's and Wales' flags: a black flag, tag characters spelling gbeng,
# gbsct or gbwls, and the cancel tag, drawn as one emoji of two columns. The only tag
# sequences Unicode recommends, so kept whole; any other tag character goes.
_FLAGS = (
    "\U0001f3f4\U000e0067\U000e0062"
    "(?:\U000e0065\U000e006e\U000e0067|\U000e0073\U000e0063\U000e0074"
    "|\U000e0077\U000e006c\U000e0073)\U000e007f"
)
_FLAG_OR_CONTROL = re.compile(f"({_FLAGS})|{_CONTROLS.pattern}")
_CANCEL_TAG = "\U000e007f"  # ends each flag: text without it holds none
_LINE_SEPARATORS = re.compile("[\u2028\u2029]")
_SPACES = re.compile(r"\s+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def clean(text: str | None, *, keep_newlines: bool = True) -> str:
    """`text` with escape sequences and control characters removed (tabs and newlines kept)."""
    if not text:
        return ""
    if not isinstance(
        text, str
    ):  # a reader passed a number or a list: show it, never fail
        text = str(text)
    if text.isprintable() or text.replace("\n", " ").replace("\t", " ").isprintable():
        pass  # the common case, checked in C: nothing to remove (escapes are unprintable)
    else:
        text = _LINE_SEPARATORS.sub("\n", _ESCAPES.sub("", text))
        if _CANCEL_TAG in text:
            text = _FLAG_OR_CONTROL.sub(_flag_or_nothing, text)
        else:
            text = _CONTROLS.sub("", text)
    if not keep_newlines:
        # every space but " " is unprintable: a printable text without "  " has no run
        if "  " in text or not text.isprintable():
            text = _SPACES.sub(" ", text)
        text = text.strip()
    return text


def _flag_or_nothing(match: re.Match[str]) -> str:
    return match[1] or ""


def _escaped(match: re.Match[str]) -> str:
    # a flag (`_FLAG_OR_CONTROL`'s group) as it is; else its code point (none prints)
    return match[0] if match.lastindex else written_out(match[0])


def flat(text: str | None) -> str:
    """`clean` text whose line breaks are spaces and tabs written out (`\\x09`): one
    line for stderr that quotes files (a file's name, a record's type, an id). No
    message of ours holds a tab; one a file gave read as spaces, and copied it named
    another file or session."""
    return clean(text).replace("\n", " ").replace("\t", written_out("\t"))


def for_stderr(message: str | None) -> str:
    """A note for stderr, `flat`: one line where stderr is a pipe or a file (a script
    greps it); on a terminal, broken at spaces to its width, which would otherwise cut
    the line mid-word at its edge. The `$ LINE` `resume` runs is never broken."""
    line = flat(message)
    width = stderr_width()
    # `$ LINE`: the line `resume` runs, as the user would type it (and may copy)
    if width is None or cells(line) <= width or line.startswith("$ "):
        return line
    return broken(line, width)


def broken(line: str, width: int) -> str:
    """`line` broken at spaces into lines of `width` cells, each break taking the one
    space it stands for: a word wider than that runs on whole (a path stays one to copy),
    spaces beside a break stay, and each line keeps the first's indent (a `--verbose`
    line under its warning). A command in quotes ('sessdex list --home DIR', 'cd DIR &&
    sessdex …', `copilot --resume ID`) is one word, wider than a line too: broken
    inside, what the user copies would hold a newline."""
    indent = line[: len(line) - len(line.lstrip(" "))]
    parts = _commands_whole(_SPACE_RUNS.split(line[len(indent) :]))
    lines: list[str] = []
    current = indent + parts[0]
    for at in range(1, len(parts), 2):
        gap, word = parts[at], parts[at + 1]
        if current.strip(" ") and cells(current + gap + word) > width:
            lines.append(current)
            current = indent + gap[1:] + word
        else:
            current += gap + word
    lines.append(current)
    return "\n".join(lines)


_SPACE_RUNS = re.compile(r"( +)")
# a quoted command's first word ('sessdex, ("cd, `copilot; PowerShell's "Set-Location
# where a sh has cd, and "& before a quoted program; sessdex named by the path it was
# run by, '.venv/bin/sessdex, `hints.program`), and the word that ends it: its quote
# mark, then a sentence's marks (`…DIR'.`, `…DIR')`); in backticks any line
_COMMAND_OPENS = re.compile(
    r"\(?(?:(['\"`])(?:(?:[^\s'\"`]*[/\\])?sessdex(?:\.exe)?|cd|Set-Location|&)"
    r"|(`)[^`]+)"
)
_CLOSES = ".,;:!?)"
# a command longer than this is broken at its spaces still: no line to paste is, where
# a hostile record type of quoted words would be joined whole
_LONGEST = 4096


def _commands_whole(parts: list[str]) -> list[str]:
    """`parts` (word, spaces, word, ...) with each quoted command's words and spaces
    joined into one word (up to `_LONGEST` cells); a quote never closed joins nothing.
    Each word's next closer is found once: a line of openers never closed ('sessdex
    'sessdex …) is not looked through to its end from each."""
    sizes = list(itertools.accumulate((cells(part) for part in parts), initial=0))
    closers: dict[str, list[int]] = {}
    out: list[str] = []
    at = 0
    while at < len(parts):
        word, at = parts[at], at + 1
        opens = _COMMAND_OPENS.fullmatch(word)
        if opens is not None:
            mark = opens[1] or opens[2]
            if mark not in closers:
                closers[mark] = _next_closers(parts, mark)
            end = closers[mark][at + 1] if at + 1 < len(parts) else len(parts)
            if end < len(parts) and sizes[end + 1] - sizes[at - 1] <= _LONGEST:
                word, at = "".join(parts[at - 1 : end + 1]), end + 1
        out.append(word)
        if at < len(parts):  # the spaces after it
            out.append(parts[at])
            at += 1
    return out


def _next_closers(parts: list[str], mark: str) -> list[int]:
    """For each index of `parts`, the index of the first word at or after it that ends
    with `mark` (a sentence's marks after it); `len(parts)` where none does, or where a
    word before it holds `mark`. A line to paste is quoted in a mark it does not hold
    (`hints.pasted`): a stray one (a folder's `/code/shop `api`) opened a "command"
    that ran over the prose to the pasted line's closing mark."""
    found = [len(parts)] * (len(parts) + 1)
    for n in range(len(parts) - 1, -1, -1):
        body = parts[n].rstrip(_CLOSES)
        if n % 2 == 0 and body.endswith(mark) and mark not in body[:-1]:
            found[n] = n
        else:
            found[n] = len(parts) if mark in parts[n] else found[n + 1]
    return found


def stderr_is_terminal() -> bool:
    """Whether a person reads stderr: hints meant for people alone are said there."""
    import sys

    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed, or replaced by something no file
        return False


def stderr_width() -> int | None:
    """The width of the terminal stderr writes to ($COLUMNS first, as Rich reads it);
    None where stderr is no terminal."""
    import sys

    if not stderr_is_terminal():
        return None
    try:
        width = columns_asked() or os.get_terminal_size(sys.stderr.fileno()).columns
    except (AttributeError, ValueError, OSError):  # no file, or no size
        return None
    return width if width > 0 else None


def visible(text: str | None, *, keep_newlines: bool = True) -> str:
    """`text` with each control, bidi and invisible character written out (`\\x1b`,
    `\\u202e`, `\\u200b`), not removed: for what a tool call ran. `clean` drops a whole OSC string
    (`\\x1b]0;…\\x07`), payload and all, and a shell runs that payload: a command shown
    without it would not be the command that ran. Tabs and newlines stay."""
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    if not (
        text.isprintable() or text.replace("\n", " ").replace("\t", " ").isprintable()
    ):
        # what `clean` removes (tab and newline stay), written out instead
        pattern = _FLAG_OR_CONTROL if _CANCEL_TAG in text else _CONTROLS
        text = pattern.sub(_escaped, text.replace("\r\n", "\n"))
    return _SPACES.sub(" ", text).strip() if not keep_newlines else text


def visible_head(text: str, count: int) -> str:
    """`visible(text)[:count]`, written out from only as much of `text` as it can come
    from: a 20 MB `Write` content is not written out whole to show 2,000 characters."""
    if not _writes_out(text):
        return text[:count]
    pattern = _FLAG_OR_CONTROL if _CANCEL_TAG in text else _CONTROLS
    # a CRLF is the fewest characters in (2) for one out; a flag (7) cut at the end is
    # written out differently from where it starts, past `count` characters out
    head = text[: 2 * count + 16]
    return pattern.sub(_escaped, head.replace("\r\n", "\n"))[:count]


def visible_length(text: str) -> int:
    """`len(visible(text))`, counted without writing it out."""
    if not _writes_out(text):
        return len(text)
    pattern = _FLAG_OR_CONTROL if _CANCEL_TAG in text else _CONTROLS
    length = len(text) - text.count("\r\n")
    for match in pattern.finditer(text):
        if match[0] == "\r" and text.startswith("\n", match.end()):
            continue  # a CRLF's CR: `visible` takes it out, counted above
        length += len(_escaped(match)) - len(match[0])
    return length


def _writes_out(text: str) -> bool:
    """Whether `visible` writes out some of `text` (its test, a piece at a time: no
    copy of a big text)."""
    return not text.isprintable() and not all(
        text[at : at + _PIECE].replace("\n", " ").replace("\t", " ").isprintable()
        for at in range(0, len(text), _PIECE)
    )


_PIECE = 1 << 16  # characters of a text tested at once


def visible_line(text: str | None, width: int | None = None) -> str:
    """`visible` text on one line, cut to `width` columns as `one_line` cuts."""
    if width is not None and isinstance(text, str) and len(text) > _LINE_HEAD:
        head = _visible_line_head(text, width)
        if head is not None:
            return head
    line = visible(text, keep_newlines=False)
    return line if width is None else cut(line, width)


_LINE_HEAD = 1 << 14  # characters of a text past which its summary line is cut first


def _visible_line_head(text: str, width: int) -> str | None:
    """`visible_line(text, width)` written out from the head of `text` alone (a 20 MB
    command was written out whole, 16 times its size at the peak, for 200 characters);
    None where the head cannot tell (a head of blanks, of marks that take no column).

    `cut` reads no further than 4 `width` + 17 characters of a line; the head's line
    (`visible_head`, its spaces run together, stripped) is a prefix of the whole's, as
    far as it goes."""
    need = 4 * width + 17
    head = _SPACES.sub(" ", visible_head(text, 4 * need)).strip()
    if len(head) < need or cells(head[: need - 1]) <= width:
        return None  # `cut` would measure the whole line
    return cut(head[:need], width)


def one_line(text: str | None, width: int | None = None) -> str:
    """Clean text on one line, cut to `width` terminal columns with an ellipsis."""
    line = clean(text, keep_newlines=False)
    return line if width is None else cut(line, width)


def title_line(title: str | None, width: int | None = None) -> str:
    """A session's title as `one_line` shows it, `(untitled)` where none of it shows (no
    title, or one made only of colour codes, invisible or bidi characters)."""
    return one_line(title, width) or one_line("(untitled)", width)


_ERROR_WORD = re.compile(r"^error(?::\s*|\s*$)", re.IGNORECASE)


def error_message(text: str | None) -> str:
    """An error event's message for a view to put under its own `error` label: the `error:`
    some readers begin it with (`error: overloaded_error`), or a bare `error`, is left
    out, so that no view says it twice."""
    text = (text or "").strip()
    return _ERROR_WORD.sub("", text, count=1)


def cells(text: str) -> int:
    """How many terminal columns `text` takes: a wide character (CJK, most emoji) or an
    emoji sequence (joined, keycapped, skin-toned) two, a combining mark or zero-width
    joiner none, any other one."""
    if text.isascii():
        return len(text)
    if _JOINED.search(text):
        return sum(size for _start, _end, size in _pieces(text))
    # an ASCII character is one cell: look up only the others
    others = _NON_ASCII.findall(text)
    return len(text) - len(others) + sum(_char_cells(char) for char in others)


# what makes characters one emoji of two columns, where each alone counts its own: a
# zero-width joiner (👨‍👩‍👧), the emoji variation selector (1️⃣, ❤️), a skin tone (👍🏽),
# the cancel tag that ends a subdivision flag (`_FLAGS`)
_JOINED = re.compile("[\u200d\ufe0f\U0001f3fb-\U0001f3ff\U000e007f]")


def _pieces(text: str) -> Iterator[tuple[int, int, int]]:
    """(start, end, columns) of each piece of `text` a cut keeps whole: an emoji
    sequence, measured as Rich and today's terminals draw it (Rich imported only for
    such text: the quick listing of most titles never needs it), else a character."""
    spans = _graphemes(text) if _JOINED.search(text) else None
    if spans is None:
        yield from ((n, n + 1, _char_cells(char)) for n, char in enumerate(text))
        return
    for start, end, size in spans:
        if _JOINED.search(text, start, end):
            yield start, end, size
        else:  # a vowel sign takes its column in a terminal, where Rich gives it none
            yield start, end, sum(_char_cells(char) for char in text[start:end])


def _graphemes(text: str) -> list[tuple[int, int, int]] | None:
    """Rich's graphemes of `text`; None from a Rich before 14.3, which counts a character
    at a time (as we then do)."""
    try:
        from rich.cells import split_graphemes
    except ImportError:
        return None
    return split_graphemes(text)[0]


def cut(text: str, width: int) -> str:
    """`text` in at most `width` columns, its end replaced by "…" when too long."""
    if text.isascii():  # a column a character: no piece to measure (a listing's most)
        room = max(0, width - 1)
        return text if len(text) <= max(width, room) else text[:room] + "…"
    if len(text) * 2 <= width:  # no piece is over 2 wide
        return text
    # a long text is measured only as far as the cut, not whole (a 30 MB tool input
    # took a minute a line): its head holds `width` columns but in text made mostly of
    # marks that take none, which is then measured whole
    head = text[: 4 * width + 16]
    if len(head) < len(text) and cells(head) > width:
        text = head
    elif cells(text) <= width:
        return text
    room, kept = max(0, width - 1), 0
    for start, _end, size in _pieces(text):
        kept += size
        if kept > room:
            return text[:start] + "…"
    return text


def pad(text: str, width: int) -> str:
    """`text` followed by spaces to fill `width` columns (a wide character counts two)."""
    return text + " " * (width - cells(text))


# a year is 365 days: '52w' is the last week count, then '1y'
_AGE_UNITS = (
    ("y", 365 * 86400),
    ("w", 604800),
    ("d", 86400),
    ("h", 3600),
    ("m", 60),
)


def age(when: datetime | None, now: datetime | None = None) -> str:
    """'5m', '3h', '2d', '7w', '2y': how long ago, compactly (four columns at most for
    anything after 1026: weeks alone made a 1970 date '2935w', out of its column); '-'
    where it is unknown, as every unknown value is written."""
    if when is None:
        return "-"
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    return "now" if seconds < 60 else elapsed(seconds)


def elapsed(seconds: float) -> str:
    """'42s', '5m', '3h', '2d', '7w', '2y': a span of time, compactly, in the form of
    `list`'s ages (`watch` says how long a tool has run with it), each unit cut, not
    rounded: 59.6 seconds is no '60s'."""
    seconds = max(0.0, seconds)
    for unit, size in _AGE_UNITS:
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


# folder -> as shown: a listing's thousands of sessions sit in a few dozen folders
_SHORT_PATHS: dict[tuple[str, str | None], str] = {}


def short_path(path: str | None, home: str | None = None) -> str:
    if not path:
        return "-"
    shown = _SHORT_PATHS.get((path, home))
    if shown is None:
        below = pathnames.below_home(path, home) if home else None
        shown = path if below is None else "~" + below
        if len(_SHORT_PATHS) >= 4096:  # a long-lived process (watch, the web UI)
            _SHORT_PATHS.clear()
        _SHORT_PATHS[(path, home)] = shown
    return shown


_INPUT_KEYS = (
    "command",
    "cmd",
    "commands",
    "file_path",
    "path",
    "paths",
    "filePath",
    "absolute_path",
    "AbsolutePath",
    "TargetFile",
    "dir_path",
    "DirectoryPath",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
    "task_name",
    "task",
    "tasks",  # Forge's agent tools (sage, forge, muse): the tasks they hand out
    "goal",  # Hermes' delegate_task
    "message",
    "skill",
    # last: what a task or a report says, when nothing above named the tool's target
    "content",
    "response",
    "result",
    "text",
)


_PATTERN_KEYS = ("pattern", "regex", "glob_pattern", "query")
_WHERE_KEYS = ("path", "dir_path", "DirectoryPath", "directory", "include")


APP_SENDER = "the app"  # who `sender_name` says wrote text the harness put in a prompt


def sender_name(event: Event, spawner: str | None = None) -> str | None:
    """Who sent a user event a person did not type: another agent (`from_agent`), the
    app itself (`injected`: a command's expansion, a hook's context), or, for a
    sub-agent, the agent that gave it its task: `spawner` (what the view calls the
    sub-agent that spawned it), else the lead; None for what a person typed."""
    sender = event.extra.get("from_agent")
    if sender:
        return one_line(str(sender), 40)
    if event.extra.get("injected"):
        return APP_SENDER
    return (spawner or "the lead") if event.agent_id is not None else None


def spawn_name(event: Event) -> str | None:
    """What a spawn calls its sub-agent: its type, else the name the app gave it; the
    model's words, so one line cut at SPAWN_NAME_COLUMNS, in every view and export."""
    named = event.extra.get("agent_type") or event.extra.get("agent_name")
    return one_line(str(named), SPAWN_NAME_COLUMNS) if named else None


SPAWN_NAME_COLUMNS = 60  # a type is a word or two; `show` cuts it at 30


# what a sub-agent's id holds between its kind and what tells it apart
_ID_SEPARATORS = "-_:./"


def kind_head(session_id: str, kind: str | None) -> int:
    """How many of a sub-agent's id's first characters are a copy of its `kind` and the
    separators after it (`general-purpose-` of `general-purpose-call_8f2b…`): 0 where
    it does not start so, or would be nothing past it."""
    size = len(kind or "")
    if not size or session_id[:size].lower() != (kind or "").lower():
        return 0
    if session_id[size : size + 1] not in tuple(_ID_SEPARATORS):
        return 0
    rest = session_id[size:].lstrip(_ID_SEPARATORS)
    return len(session_id) - len(rest) if rest else 0


def id_start(child: str, kind: str | None = None, size: int | None = None) -> str:
    """The start of a sub-agent's id that a user copies into `show`, `tree` and
    `resume`, as `list --all` prints it: `size` characters (SHORT_ID) past a leading
    copy of its `kind` (`general-purpose-call_8f2` of Qwen's `general-purpose-call_8f2b…`:
    every sibling of that type starts so), as a terminal shows it (`one_line`: `show`
    takes an id so cleaned too)."""
    shown = one_line(child[:_ID_MOST])
    return shown[: kind_head(shown, kind) + (SHORT_ID if size is None else size)]


_ID_MOST = 1024  # an id's start read for its name: a hostile one may be megabytes
KIND_COLUMNS = 30  # a sub-agent's type or name, as every command says it


def agent_name(child: str, kind: str | None = None, size: int | None = None) -> str:
    """What every command calls a sub-agent (`show`'s spawn lines and marks, `export`,
    `usage session`'s id): its type or name (`spawn_name`, `kind`) and the start of its
    id (`id_start`), which `show`, `tree` and `resume` take, quoted where the shell
    reads a character of it (`agent 'm-1$$cal'`, `pasted`); the id's start alone where
    it holds the type already (`general-purpose-call_8f2`, Auggie's `explore`) or
    nothing names the agent."""
    start = id_start(child, kind, size)
    typed = start_typed(child, start)
    if not kind or start.lower().startswith(one_line(kind).lower()):
        # `explore-2`, `general-purpose-call_8f2`: the type said once
        return typed
    return f"{one_line(kind, KIND_COLUMNS)} {typed}"


def start_typed(child: str, start: str) -> str:
    """`start` (`id_start` of `child`) to paste: `pasted`, or where `child` holds what
    `one_line` drops (`c\u200ball…`), as many of its own characters as say `start`,
    with the shell's escapes (`pasted_id`): the cleaned start was another id's."""
    raw = child[:_ID_MOST]
    if one_line(raw) == raw:
        return pasted(start)
    from ..hints import id_typed

    end = 0
    while end < len(raw) and len(one_line(raw[:end])) < len(start):
        end += 1
    return id_typed(raw[:end])


MARK_MOST = 64  # the most of an id a mark says past what tells it apart


class SiblingIds:
    """The ids of a session's sub-agents named so far, and of the agents that spawned
    them (as `id_start` says them, in lower case, as `show` compares ids), sorted: the
    next is named by a start of its id that none of theirs has, so that `show` of it
    opens it alone, not a list of both (`<message>$$<call>` ids of one message, UUIDv7
    ids spawned together, a Codex thread and its lead's). One named first cannot know of
    a sibling spawned after it, unless it is `known` (the index's: `sub_agent_ids`)."""

    def __init__(self, known: Iterable[str] = ()) -> None:
        self.ids: list[str] = sorted({one_line(i[:_ID_MOST]).lower() for i in known})

    def add(self, session_id: str) -> None:
        """Count `session_id` among the ids a name must tell its sub-agent's from."""
        low = one_line(session_id[:_ID_MOST]).lower()
        at = bisect.bisect_left(self.ids, low)
        if at >= len(self.ids) or self.ids[at] != low:
            self.ids.insert(at, low)

    def size(self, child: str, kind: str | None = None) -> int:
        """How much of `child`'s id past its type (`id_start`'s `size`) tells it from
        every id named before: one more than the most it shares with one, SHORT_ID at
        least. It is counted among them from now on."""
        size = self.told(child, kind)
        self.add(child)
        return size

    def told(self, child: str, kind: str | None = None) -> int:
        """`size`, `child` left uncounted: among ids it may be one of (the board's,
        which sees every agent of a session at once), from every other."""
        shown = one_line(child[:_ID_MOST])
        low = shown.lower()
        at = bisect.bisect_left(self.ids, low)
        shared = max(
            (
                _shared(low, other)
                for other in self.ids[max(0, at - 1) : at + 2]
                if other != low
            ),
            default=0,
        )
        return max(SHORT_ID, shared + 1 - kind_head(shown, kind))


def _shared(one: str, other: str) -> int:
    """How many first characters `one` and `other` have alike."""
    return next(
        (n for n, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
        min(len(one), len(other)),
    )


def id_mark(
    child: str,
    taken: Container[str],
    kind: str | None = None,
    siblings: SiblingIds | None = None,
) -> str:
    """A sub-agent's `agent_name`, as much of its id as tells it from its `siblings`
    named before, longer while that is another's name already, then numbered (`#2`)
    where all of it that is said is another's (ids alike for MARK_MOST characters more,
    or but for what no terminal shows): each sub-agent's own in a session, the same on
    every read."""
    least = siblings.size(child, kind) if siblings is not None else SHORT_ID
    name, size = agent_name(child, kind, least), least
    while name in taken and size < least + MARK_MOST:
        size += 1
        longer = agent_name(child, kind, size)
        if longer == name:  # the whole id said: no more of it tells it apart
            break
        name = longer
    return numbered(name, taken) if name in taken else name


def numbered(name: str, taken: Container[str]) -> str:
    """`name` with the first number from 2 (`#2`) that makes it no other's."""
    number = 2
    while f"{name} #{number}" in taken:
        number += 1
    return f"{name} #{number}"


class AgentNames:
    """What an export calls each sub-agent of a session, by the one rule (`id_mark`):
    its spawn's name for it, else, its spawn not read, as much of its id as tells it
    from its siblings'; kept for its every line, so that the Markdown and HTML exports
    of a session say the same names. `known`: the ids of its sub-agents the index
    lists, told apart from the first name on."""

    def __init__(self, known: Iterable[str] = ()) -> None:
        self.names: dict[str, str] = {}  # sub-agent id -> its name
        self.marks: set[str] = set()  # the names' values, for a quick look-up
        # their ids: each named by a start the others' lack
        self.siblings = SiblingIds(known)

    def called(self, agent: str) -> str:
        """`agent`'s name: the one given it before, else a mark of its id alone."""
        if agent not in self.names:
            self.spawned(agent, None, None)
        return self.names[agent]

    def spawned(self, child: str, kind: str | None, spawner: str | None) -> str:
        """Name `child`, spawned by `spawner` (None: the lead, not counted) as a
        `kind`: named again where it was marked before its spawn was read."""
        self.marks.discard(self.names.get(child, ""))  # its own, if said before
        if spawner is not None:
            self.siblings.add(spawner)
        self.names[child] = id_mark(child, self.marks, kind, self.siblings)
        self.marks.add(self.names[child])
        return self.names[child]


# The file editor tool's sub-commands (Anthropic's text editor tool, which several agents
# give their models): its `command` names what it does, `path` to what.
_EDITOR_COMMANDS = frozenset(
    {"view", "create", "str_replace", "insert", "undo_edit", "write", "append"}
)


def _telling_argument(value: dict[str, object]) -> str:
    """The first of _INPUT_KEYS the input holds as text (a list joined), else ""; an
    editor call's command and path (`str_replace src/app.py`)."""
    command, path = value.get("command"), value.get("path")
    if (
        isinstance(command, str)
        and command in _EDITOR_COMMANDS
        and isinstance(path, str)
    ):
        return f"{command} {path}".strip()
    # a search (grep, glob): what it looks for says more than where
    pattern = next(
        (p for k in _PATTERN_KEYS if isinstance(p := value.get(k), str) and p), None
    )
    if pattern is not None and not isinstance(command, str):
        where = next(
            (w for k in _WHERE_KEYS if isinstance(w := value.get(k), str) and w), None
        )
        return f"{pattern} in {where}" if where else pattern
    for key in _INPUT_KEYS:
        found = value.get(key)
        if isinstance(found, list):  # several commands or files: one per comma
            joiner = {"commands": ", ", "paths": ", ", "tasks": "; "}.get(key, " ")
            found = joiner.join(part for part in found if isinstance(part, str))
        if isinstance(found, str) and found and not found.isspace():  # no copy
            return found
    return ""


# A nested input read for its summary: this many values looked at, this many levels down
# (a huge or deep input costs what fits on the line, not its size).
_NESTED_VALUES = 64
_NESTED_DEPTH = 6
# what names each of a list of like things (the calls a batch call makes)
_ITEM_NAME_KEYS = ("name", "tool", "tool_name", "toolName", "type", "kind", "action")


def _nested_summary(value: dict[str, object], width: int) -> str:
    """An input no text argument tells, read out without its JSON: its first list of
    like things counted and named (`3 calls: view, grep, ls`) or told by their own
    telling argument (`2 todos: Fix the bug, Add tests`), else its first values by name
    (`depth: 2, mode: fast`); "" where it holds none within the bounds."""
    for key, found in itertools.islice(value.items(), _NESTED_VALUES):
        if isinstance(found, list) and found and isinstance(found[0], dict):
            noun = key[:-1] if len(found) == 1 and key.endswith("s") else key[:width]
            names: list[str] = []
            for item in found[:_NESTED_VALUES]:
                item = item if isinstance(item, dict) else {}
                name = next(
                    (n for k in _ITEM_NAME_KEYS if isinstance(n := item.get(k), str)),
                    None,
                )  # else what each one says (a to-do's content, a read's path)
                name = name if name is not None else _telling_argument(item)
                if name:
                    names.append(name[:width])
                if sum(map(len, names)) > width:
                    break
            said = f"{len(found)} {noun}"
            return f"{said}: {', '.join(names)}" if names else said
    parts: list[str] = []
    for key, shown in _named_values(value, 0, [_NESTED_VALUES]):
        parts.append(f"{key[:width]}: {shown}")
        if sum(map(len, parts)) > width:
            break
    return ", ".join(parts)


def _named_values(
    value: dict[str, object], depth: int, left: list[int]
) -> Iterator[tuple[str, str]]:
    """The plain values of `value` and of the objects in it, each with its name (a list
    of them joined), in order; `left`: how many more members may be looked at."""
    for key, item in value.items():
        left[0] -= 1
        if left[0] < 0:
            return
        if isinstance(item, dict):
            if depth < _NESTED_DEPTH:
                yield from _named_values(item, depth + 1, left)
        elif isinstance(item, list):
            values = [v for i in item[:_NESTED_VALUES] if (v := _plain(i)) is not None]
            if values:
                yield key, ", ".join(values)
            elif depth < _NESTED_DEPTH:
                for inner in item[:_NESTED_VALUES]:
                    if isinstance(inner, dict):
                        yield from _named_values(inner, depth + 1, left)
        elif (shown := _plain(item)) is not None:
            yield key, shown


def _plain(value: object) -> str | None:
    """A text, number or truth value as a summary shows it (`true`); None for others."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value[:200] if value and not value.isspace() else None
    if isinstance(value, int | float):
        return str(value)
    return None


def tool_summary(tool: str | None, value: object, width: int = 100) -> str:
    """'Bash — npm test': the tool and its most telling argument, on one line."""
    from .diffs import change_counts

    return tool_line(tool, tool_detail(value, width), change_counts(value))


def tool_line(tool: str | None, detail: str, counts: tuple[int, int] | None) -> str:
    """`tool_summary`'s line, of its `tool_detail` and `change_counts` found already."""
    name = one_line(tool or "tool")
    changed = f" (+{counts[0]} -{counts[1]})" if counts else ""
    return f"{name} — {detail}{changed}" if detail else name + changed


def tool_detail(value: object, width: int = 100) -> str:
    """What a tool call's summary shows of its input, on one line of at most `width`."""
    from .diffs import patch_text, patched_files

    detail = ""
    patch = patch_text(value)
    if patch is not None:  # the files it touches, not its first lines
        detail = ", ".join(patched_files(patch)) or patch
    elif isinstance(value, dict):
        detail = _telling_argument(value)
        if (
            not detail and len(value) == 1
        ):  # {"result": {"response": "…"}}: one level in
            (inner,) = value.values()
            detail = _telling_argument(inner) if isinstance(inner, dict) else ""
        if not detail and value:
            detail = _nested_summary(value, width)
    elif isinstance(value, str):
        detail = value
    return visible_line(detail, width)  # nothing of what ran may be hidden


def shown_whole(text: str, shown: str) -> bool:
    """Whether a tool call's summary line (`shown`, its `tool_detail`) already shows
    `text`, one of its arguments, whole (one line, not cut)."""
    # the cheap tests first: a 20 MB argument is not written out on one line to find
    # that a summary of 200 characters is not all of it
    if not shown or shown not in text or not _strips_to(text, shown):
        return False
    return visible_line(text) == shown


_BLANKS = re.compile(r"\s*")  # what `str.strip` takes away (the same `isspace`)


def _strips_to(text: str, shown: str) -> bool:
    """`text.strip() == shown` for a `shown` that holds no blank at either end, without
    the copy of `text` (20 MB) that `strip` makes."""
    start = _BLANKS.match(text).end()  # type: ignore[union-attr]  # \s* always matches
    end = start + len(shown)
    return (
        not shown[-1:].isspace()
        and text.startswith(shown, start)
        and _BLANKS.fullmatch(text, end) is not None
    )


def fold(text: str | None, lines: int = 3, width: int = 160) -> str:
    """The first few lines of a long output, with a count of what was left out.

    Only the lines shown are cleaned (each on its own, so no escape sequence can start
    in one and end in the next): a tool output of megabytes costs a count of its
    newlines."""
    if not text:
        return ""
    total = text.count("\n") + (not text.endswith("\n"))
    if total == lines + 1:  # the line itself takes no more room than "… 1 more line"
        lines = total
    pieces = text.split("\n", lines)
    if len(pieces) <= lines and pieces[-1] == "":
        pieces.pop()  # the newline that ends the last line starts no line of its own
    parts = [clean(p) for p in pieces[:lines]]
    shown = [p if len(p) <= width else p[: width - 1] + "…" for p in parts]
    if total > lines:
        shown.append(f"… {total - lines} more lines")
    return "\n".join(shown)


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    # rounded, each unit up to what rounds to the next: 59.6 s is '1m', not '60s'
    if round(seconds) < 60:
        return f"{seconds:.0f}s"
    if round(seconds / 60) < 60:
        return f"{seconds / 60:.0f}m"
    if round(seconds / 3600, 1) < 48:
        return f"{seconds / 3600:.1f}h"
    return f"{seconds / 86400:.1f}d"  # a session resumed for weeks: not '2519.0h'


def tokens(n: int) -> str:
    """A count in the unit it rounds to: 999,960 is '1.0M', not '1000.0k'; a long
    session's billion cached tokens '1.6B', not '1584.0M'."""
    if n < 1_000:
        return str(n)
    for size, unit in ((1_000, "k"), (1_000_000, "M")):
        if round(n / size, 1) < 1_000:
            return f"{n / size:.1f}{unit}"
    return f"{n / 1_000_000_000:.1f}B"


def credits_amount(value: float) -> str:
    """An amount of an app's credits as apps show theirs: 12.5, 3, 1,234.57 (0.004 kept)."""
    if 0 < abs(value) < 0.01:
        return f"{value:.2g}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def tokens_said(input_tokens: int, cache_tokens: int, output_tokens: int) -> str:
    """Counts as `usage` names them: "1.2k in, 8.4k cache, 60 out", `in` the input its
    Input column counts (never the cache, read or written: said apart, where any)."""
    cache = f", {tokens(cache_tokens)} cache" if cache_tokens else ""
    return f"{tokens(input_tokens)} in{cache}, {tokens(output_tokens)} out"


def usage_said(u: Usage) -> str:
    """One usage event, short: "tokens: 1.2k in, 8.4k cache, 300 out", its credits after
    them (or alone, for an app that billed credits and kept no token count)."""
    taken = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
    cache = u.cache_read_tokens + u.cache_write_tokens
    said = [f"tokens: {tokens_said(u.input_tokens, cache, u.output_tokens)}"]
    if u.credits:
        if not taken and not u.output_tokens:
            return f"credits: {credits_amount(u.credits)}"
        said.append(f"{credits_amount(u.credits)} credits")
    return " · ".join(said)


PIPED_WIDTH = 1 << 20  # piped lines are never cut: `grep` must see the whole title


def terminal_width() -> int:
    """The width `list` fits its lines to: the terminal's; piped, $COLUMNS when set, else
    no limit (as `gh` and `ls` do, a pipe gets whole titles to grep)."""
    import sys

    if sys.stdout.isatty():  # as shutil.get_terminal_size((120, 24)), whose module
        # loads zlib, bz2 and lzma: some ms of a warm listing
        stdout = sys.__stdout__
        try:
            shown = os.get_terminal_size(stdout.fileno()).columns if stdout else 0
        except (AttributeError, ValueError, OSError):
            shown = 0
        return columns_asked() or shown or 120
    return columns_asked() or PIPED_WIDTH


def columns_asked() -> int | None:
    """$COLUMNS, where it is set to a width: what piped output is fitted to."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return columns if columns > 0 else None


def coloured(stream: TextIO) -> bool:
    """Whether lines for `stream` get colour: on a terminal, or anywhere FORCE_COLOR is
    set to anything (force-color.org: `| less -R`), unless NO_COLOR is (no-color.org)
    or TERM says the terminal shows none (dumb), as Rich decides for the rest of
    sessdex's output."""
    return (
        (stream.isatty() or bool(os.environ.get("FORCE_COLOR")))
        and not os.environ.get("NO_COLOR")
        and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")
    )


SHORT_ID = 8  # the fewest characters of an id `list` prints
APP_WIDTH = 8  # the app column's width, wider only where a listed app's name is longer
BRANCH_WIDTH = (
    24  # the branch column at its widest: narrower when every branch shown is
)
FOLDER_WIDTH = 32  # the folder column at its widest, likewise
TITLE_ROOM = (
    30  # what a narrow terminal keeps for the title, taken from folder and branch
)
TITLE_LEAST = 20  # less than this for the title, and the branch, then the folder, go


def listing_columns(
    rows: Iterable[tuple[str | None, str | None]],
    *,
    home: str,
    width: int,
    app_column: int = APP_WIDTH,
    id_width: int = SHORT_ID,
) -> tuple[int, int]:
    """The (branch, folder) column widths for rows of (branch, folder): each as wide as
    its longest text shown, at most BRANCH_WIDTH and FOLDER_WIDTH. Where `width` leaves the
    title less than TITLE_ROOM, the folder gives up room first (down to 12), then the
    branch (down to 8); where the title would still have less than TITLE_LEAST, the
    branch column is left out (0), then the folder column."""
    branch = folder = 1
    for branch_value, cwd in rows:
        branch = max(branch, _shown_length(branch_value or "-"))
        folder = max(folder, _shown_length(short_path(cwd, home)))
        if branch >= BRANCH_WIDTH and folder >= FOLDER_WIDTH:
            break  # both at their widest: no row can widen them
    branch, folder = min(branch, BRANCH_WIDTH), min(folder, FOLDER_WIDTH)
    lead = app_column + 1 + id_width + 1 + 4 + 2
    over = lead + branch + 1 + folder + 1 + 2 + TITLE_ROOM - width
    if over > 0:
        given = min(over, max(0, folder - 12))
        folder, over = folder - given, over - given
        branch -= min(over, max(0, branch - 8))

    def title() -> int:
        return width - lead - (branch and branch + 1) - (folder and folder + 1) - 2

    if title() < TITLE_LEAST:
        branch = 0
    if title() < TITLE_LEAST:
        folder = 0
    return branch, folder


def _shown_length(text: str) -> int:
    """How many columns `one_line` makes `text` take (the common printable case checked
    in C)."""
    return cells(text) if text.isprintable() else cells(one_line(text))


def left_cut(text: str, width: int) -> str:
    """`text` in `width` columns, its start replaced by "…" when too long: a path's end
    (the project) says more than its start."""
    if text.isascii():  # a column a character, as `cut`
        room = max(0, width - 1)
        return text if len(text) <= max(width, room) else "…" + text[len(text) - room :]
    if len(text) * 2 <= width or cells(text) <= width:
        return text
    room, kept = max(0, width - 1), 0
    for _start, end, size in reversed(list(_pieces(text))):
        kept += size
        if kept > room:
            return "…" + text[end:]
    return text


def app_width(apps: Iterable[str]) -> int:
    """The app column's width for these rows: APP_WIDTH, or the longest name shown, so
    that every column after it stays aligned."""
    return max([APP_WIDTH, *(len(app) for app in apps)])


def short_id_width(
    shown: Iterable[str], every: Sequence[str], kinds: Iterable[str | None] = ()
) -> int:
    """How much of each id a listing prints: SHORT_ID, or more where an id shown shares
    that much with another in `every` (sorted, lowercased: Index.ids), so that what is
    printed is a prefix `resume` and `show` take. Time-ordered ids (UUIDv7) share their
    first eight characters for sessions started within a minute of each other. `kinds`:
    the type of each sub-agent shown, in order (None for a lead): one whose id starts
    with its type (`general-purpose-call_8f2b…`) gets SHORT_ID past it, as every sibling
    of that type starts so."""
    shown = list(shown)
    heads = [kind_head(one, kind) for one, kind in zip(shown, kinds, strict=False)]
    width = SHORT_ID + max(heads, default=0)
    for session_id in shown:
        low = session_id.lower()
        at = bisect.bisect_left(every, low)
        for other in (every[at - 1] if at else "", *every[at : at + 2]):
            # ids that differ within what is printed already cannot widen it
            if other != low and other[:width] == low[:width]:
                common = next(
                    (
                        n
                        for n, (a, b) in enumerate(zip(low, other, strict=False))
                        if a != b
                    ),
                    min(len(low), len(other)),
                )
                width = max(width, min(common + 1, len(low)))
    return min(width, 40)


def short_id(session_id: str, id_width: int = SHORT_ID) -> str:
    """The start of an id `list` prints, as a user pastes it back: as it is where every
    shell takes it so, else quoted for theirs (`'m-1$$cal'`: bare, bash read a Crush
    sub-agent's `$$` as its process id, another id)."""
    return pasted_id(session_id, id_width)


def pasted_id(session_id: str, id_width: int | None = None) -> str:
    """An id (or its first `id_width` characters) as shown to be pasted: `pasted` on
    one line; but one holding what `one_line` drops (a control, bidi or invisible
    character, a line break) whole, each such character the shell's escape: dropped, it
    read as another id (`7e57\u200bx1` as `7e57x1`), and pasted it opened that one."""
    shown = one_line(session_id)
    if shown == session_id:
        return pasted(shown[:id_width])
    from ..hints import id_typed

    start = session_id[:_ID_MOST]
    if id_width is not None:  # as many characters a reader sees as a plain id's
        from ..shells import shown_start

        start = shown_start(start, id_width)
    return id_typed(start)


def pasted(shown: str) -> str:
    """An id, or its start, as shown to be pasted into a command: bare where it is plain
    (`hints.id_typed`), else in the quotes the user's shell reads."""
    from ..hints import id_typed

    return id_typed(shown) if shown else shown


def id_column(ids: Iterable[str], id_width: int = SHORT_ID) -> int:
    """The id column's width for `ids` cut to `id_width`: wider where one is quoted
    (`short_id`), so that the columns after it stay aligned."""
    return max([id_width, *(cells(short_id(one, id_width)) for one in ids)])


def listing_line(
    app: str,
    session_id: str,
    fields: tuple[str | None, str | None, str | None, str | None, str | None],
    *,
    width: int,
    home: str,
    styled: bool,
    now: datetime | None = None,
    sub_agent: int = 0,
    observer: bool = False,
    kind: str | None = None,
    id_width: int = SHORT_ID,
    app_column: int = APP_WIDTH,
    branch_column: int = BRANCH_WIDTH,
    folder_column: int = FOLDER_WIDTH,
    id_cells: int | None = None,
) -> str:
    """One session as `sessdex list` shows it: app, short id, age, branch, folder, title
    (a sub-agent's marked `↳`, as `list --all` shows them among the sessions, an observer
    also `(observer)`, as `tree` marks it; `sub_agent` is how deep it sits under the
    leads listed: 2, a sub-agent's own, `  ↳`, and so on; True reads as 1), its type
    (`kind`) before its task, as `usage session` says them (`↳ Explore: Find the tests`).

    `fields` are the record's updated, created, branch, cwd and title; everything printed
    is cleaned of control sequences and cut to fit `width` (the columns' widths come
    from `listing_columns`, 0 for a column left out; a folder too long loses its start,
    the rest their end; the id's, `id_cells`, from `id_column`).
    """
    updated, created, branch, cwd, title = fields
    stamp = updated or created
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None
    head = (
        f"{app:<{app_column}} {pad(short_id(session_id, id_width), id_cells or id_width)} "
        f"{age(when, now):>4}  "
    )
    if branch_column:
        head += pad(one_line(branch or "-", branch_column), branch_column) + " "
    if folder_column:
        folder = left_cut(one_line(short_path(cwd, home)), folder_column)
        head += pad(folder, folder_column) + " "
    mark = ("  " * (sub_agent - 1) + "↳ " if sub_agent else "") + (
        "(observer) " if observer else ""
    )
    if sub_agent and kind:
        title = _typed(kind, title)
    line = head + mark + title_line(title, max(10, width - cells(head) - 2))
    if styled:  # the app name in cyan, as click.style(fg="cyan") writes it
        line = f"\x1b[36m{line[:app_column]}\x1b[0m{line[app_column:]}"
    return line


def _typed(kind: str, title: str | None) -> str | None:
    """A sub-agent's title after its type (`Explore: Find the tests`), its type alone
    where no title shows, as `usage session` and `tree` name it."""
    if not one_line(kind) or kind == title or (title or "").startswith(f"{kind} ("):
        return title  # a title that starts with it says it ("greeter (Kierkegaard)")
    if not one_line(title):  # untitled: its type says what it is
        return kind
    return f"{one_line(kind, KIND_COLUMNS)}: {title}"


def output_first(event: Event) -> str | None:
    """A tool result as a person reads it first: where the app wrapped the output in
    lines for the model (the command again, its folder), the output itself (the span
    of its text `extra["output_span"]` names), then what else says something
    (`extra["output_notes"]`: an exit code but 0); else its text. --json and
    `--detail full` keep the text whole."""
    span, notes = event.extra.get("output_span"), event.extra.get("output_notes")
    text = event.text or ""
    start, end = span if isinstance(span, list) and len(span) == 2 else (None, None)
    if not (
        isinstance(start, int)
        and isinstance(end, int)
        and 0 <= start <= end <= len(text)
    ):
        return event.text
    said = [n for n in notes if isinstance(n, str)] if isinstance(notes, list) else []
    if not said:  # the output alone: one copy of it, not two
        return text[start:end]
    return "\n".join([text[start:end], *said] if start < end else said)


# agent -> its calls waiting for a result: call id -> (the call's summary, whether
# another call was made while it waited)
Waiting = dict[str | None, dict[str, tuple[str, bool]]]
_WAITING = 64  # calls of one agent kept waiting for their results, at most


def answered_call(waiting: Waiting, event: Event) -> str | None:
    """Keep `waiting` up to date with `event`; for a result of one of several calls an
    agent made together (all answered after the last, none under its own), the summary
    of the call it answers, which the views say with it. None for any other event."""
    if event.call_id is None or event.kind not in ("tool_call", "tool_result"):
        return None
    calls = waiting.setdefault(event.agent_id, {})
    if event.kind == "tool_result":
        summary, together = calls.pop(event.call_id, ("", False))
        return summary if together else None
    for call, (summary, _) in calls.items():  # made while they wait
        calls[call] = (summary, True)
    value = event.extra.get("input")
    value = value if value is not None else event.text
    calls[event.call_id] = (tool_summary(event.tool, value, 60), bool(calls))
    if len(calls) > _WAITING:  # calls no result answers: the oldest go
        del calls[next(iter(calls))]
    return None
