"""Aider: one Markdown chat log per repository, every run of aider appended to it.

Aider writes `.aider.chat.history.md` into the git root it works in (or its cwd
outside git); each run opens with `# aider chat started at <local time>`, user input
is `#### ` lines, aider's own output (command echo, file adds, token reports, errors)
is `> ` block quotes, and the model's replies are plain Markdown. There is no session
id, no per-message time and no index of repositories, so:

- sessions are the "chat started" sections; the id is a short hash of the history
  file's folder name, the file's first heading and the section's byte offset, so it
  survives moving or copying the home;
- repositories are found only where something cheap already names them: the home
  itself, and the project folders other agents recorded (`_project_folders`: Claude
  Code's transcripts, `~/.gemini/projects.json`, `~/.codex/config.toml` `[projects]`),
  at most MAX_FOLDERS folders, one `stat` each (plus the enclosing git root). The disk
  is never crawled, so a repository no agent has recorded is not found.

Listing needs one pass over the file (a byte test per line) to find the sections;
nothing is parsed but the opening lines of each. Times are the local wall-clock
times aider printed, read in this machine's time zone. The `> Tokens: … sent, …
received.` report is the only usage aider logs: one `usage` event per report, its
figures rounded by aider (`1.2k`; whole, with commas, in 0.46 to 0.51, and `N prompt
tokens, N completion tokens` for an unstreamed reply before 0.46), cache reads and
writes taken out of "sent". Aider prints the provider's counts unchecked (`format_tokens`
writes one below 1000 as it is): a negative one ("-5 received", from a provider or proxy
that sent it) is billed as 0 and said as an odd token count, by its line.
Model replies and quoted output cannot be told apart when a reply itself contains
`> ` or `#### ` lines; we read such lines as aider's markup. Aider writes the log in its
`--encoding` (io.py, 0.86.2: `errors="ignore"`, so what the encoding cannot hold is
dropped): where aider would take it from AIDER_ENCODING or the `encoding:` of an
`.aider.conf.yml` (the repository's, else the home's), the log reads in it, a line past
ASCII that is valid UTF-8 still as UTF-8 (runs from before the setting). A name Python
has no codec for reads as UTF-8, and doctor says so; an encoding in which aider's
markup is not ASCII bytes (UTF-16, EBCDIC) is not read, and said, rather than its runs
guessed at. A line neither reads (or UTF-8 alone, where no encoding is set: aider run
with `--encoding` on the command line, or damage) is read with U+FFFD and counted, as is
one holding NUL bytes; a run's first line damaged so starts a run only while aider's
words before its time are whole. The index reads a log again when the log changes, not
when the setting does: a log listed before it changed keeps its old reading until then. `.aider.input.history` and `--llm-history-file` logs
are not read.

`AIDER_CHAT_HISTORY_FILE` (aider reads every option from `AIDER_*` variables): an
absolute path is the one file to read (its sessions have no known cwd); a relative
one is the name looked for in each repository. A `chat-history-file` in an
`.aider.conf.yml` (the repository's, else the home's) names one more file to look for
there; its sessions belong to that repository. Resume: aider cannot reopen one run;
`aider --restore-chat-history --chat-history-file <log>` in the repository reloads the
whole file the session is in.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Unpack

from .. import files, folders
from ..diagnostics import NUL_BYTES, ODD_COUNT, Diagnostics, read_failed
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from ._aider_text import NOT_ASCII, UNKNOWN, UTF8, Text, text_in
from ._project_folders import recorded_folders
from ._values import Emitter, EventFields
from .base import Home, Location

NAME = "aider"
TITLE = "Aider"
SCAN_NOTED = True  # locate reads the environment (and small files through files.read_small); scan only lists, probes and reads through files
CHECKED_WITH = (
    "aider 0.86.1 (one real public chat log) and 0.86.2 (real runs in the conformance suite);"
    " markup read from aider's io.py; token reports of 0.2x-0.51 from base_coder.py at"
    " those tags; resume flags (`--restore-chat-history`, `--chat-history-file`) from"
    " aider 0.86.2's --help and args.py; 0.86.2 is still the newest release (PyPI,"
    " 2026-12-07)"
)
NEWEST_CHECKED = "0.86.2"  # doctor names versions past it
ENV_VARS = ("AIDER_CHAT_HISTORY_FILE", "AIDER_ENCODING")

HISTORY = ".aider.chat.history.md"
# what aider writes into a repository: its chat log (listed only where an agent recorded
# the folder) and the prompts typed, which its prompt reads back (never a session)
IN_PROJECTS = (HISTORY, ".aider.input.history")
GIT_ROOT_DEPTH = 8  # parents climbed from a recorded folder to its git root
HEAD_LINES = 200  # lines of a section read for its title, model and version

# Aider opens each run with `\n# aider chat started at %Y-%m-%d %H:%M:%S\n\n` (io.py),
# ASCII in UTF-8 and in the one-byte encodings --encoding may name: a byte that is not
# UTF-8 on such a line is damage, as is a NUL byte anywhere (a crash's zeros)
_HEADER = b"# aider chat started at "
_HEADER_WORDS = _HEADER.rstrip()
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_TIME_SIZE = len("2025-10-20 21:49:17")
# What --verbose and doctor say of a damaged line (it is read: U+FFFD for what is not
# UTF-8); one whose run-start words are damaged starts no run: said, not guessed at
# (diagnostics.NOT_UTF8 and NUL_BYTES, counted as read with damage, not as skipped)
_MAYBE_START = ", maybe a run's first line: two runs may read as one"
# the decoders' words for a character cut at the end (UTF-8's, the CJK codecs')
_CUT = ("unexpected end of data", "incomplete multibyte sequence")
_START_TIME = re.compile(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s*$")
# Since 0.52 counts are rounded (`12k`); 0.46 to 0.51 printed them whole with commas
# (`12,345`), and until 0.49 the cost was per `request`, not per `message`.
# A count is the provider's as it came (`format_tokens` prints one below 1000 whole, a
# negative one too: "-5"): a negative one is read, billed as 0 and said.
_TOKENS = re.compile(
    r"Tokens: (?P<sent>-?[\d.,]+[kM]?) sent"
    r"(?:, (?P<write>-?[\d.,]+[kM]?) cache write)?"
    r"(?:, (?P<hit>-?[\d.,]+[kM]?) cache hit)?"
    r", (?P<received>-?[\d.,]+[kM]?) received\."
    r"(?: Cost: \$(?P<cost>[\d.]+) (?:message|request))?"
)
# Before 0.46 only a reply that was not streamed got a report, in words of its own.
_OLD_TOKENS = re.compile(
    r"^(?P<sent>-?\d+) prompt tokens, (?P<received>-?\d+) completion tokens"
    r"(?:, \$(?P<cost>[\d.]+) cost)?"
)
# With both cache writes and hits aider puts the cost on a line of its own, unquoted.
_COST_LINE = re.compile(r"^Cost: \$(?P<cost>[\d.]+) message, \$[\d.]+ session\.")
# `Models: <main> with … edit format, weak model <weak>` from 0.30 until 0.60
_MODEL = re.compile(r"^(?:Main model|Models?): (\S+)")
# on the same line: `, 8k think tokens` and `, reasoning high` (base_coder.py)
_THINKING = re.compile(r", (\S+) think tokens\b")
# a thinking budget as an effort: one word, as resume passes every recorded value
_THINKING_EFFORT = "thinking:"
_EFFORT = re.compile(r", reasoning (\w+)")
_VERSION = re.compile(r"^Aider v(\S+)")

log = logging.getLogger(__name__)


def locate(home: Home) -> Location:
    """`~/.aider` (aider's own caches folder) marks an aider user; repositories hold the logs."""
    value = home.environ.get("AIDER_CHAT_HISTORY_FILE")
    encoding = home.environ.get("AIDER_ENCODING")
    settings = (f"{_ENCODING_VARIABLE}={encoding}",) if encoding else ()
    if value and os.path.isabs(os.path.expanduser(value)):
        path = Path(value).expanduser()
        return Location(
            path.parent,
            override=f"AIDER_CHAT_HISTORY_FILE={value}",
            settings=settings,
        )
    override = f"AIDER_CHAT_HISTORY_FILE={value}" if value else None
    root = home.path / ".aider"
    # a file or a pipe in the caches folder's place marks an aider user too: the logs
    # are looked for, and what stands there said (`scan`)
    return Location(root, override=override, settings=settings, marks=(root,))


def looked_in(location: Location) -> list[str]:
    """For `doctor`: where the chat histories were looked for, which `root` is not
    (`~/.aider`, aider's caches folder, only marks an aider user): the home's history
    file, then the one of each project folder other agents recorded (and its git root),
    as `scan` looks."""
    single = _single_file(location)
    if single is not None:
        return [str(single)]
    if not location.exists:
        return [
            f"{location.root} (aider's caches folder: without it no history is looked for)"
        ]
    home = location.root.parent
    name = _history_name(location)
    count = len(recorded_folders(home))
    projects = (
        "1 project folder other agents recorded, and its git root"
        if count == 1
        else f"{count} project folders other agents recorded, and their git roots"
    )
    return [
        str(home / name),
        f"{name} (or the file an .aider.conf.yml names) in the {projects}",
    ]


def scan(location: Location) -> Iterator[Path]:
    """The history files of the home and of every folder another agent has recorded."""
    if not location.exists:
        return
    single = _single_file(location)
    if single is not None:
        if folders.is_file(single):
            yield single
        return
    if not folders.is_dir(location.root):  # a file or a pipe in its place: said
        folders.not_a_folder(location.root)
    name = _history_name(location)
    home = location.root.parent
    everywhere = _configured_history(home)  # ~/.aider.conf.yml applies to every repo
    found: set[Path] = set()
    for folder in [home, *recorded_folders(home)]:
        for target in (folder, _git_root(folder)):
            if target is None:
                continue
            configured = _configured_history(target) or everywhere
            for chosen in (name, configured):
                path = target / chosen if chosen else None
                if path is not None and path not in found and folders.is_file(path):
                    found.add(path)
    yield from sorted(found)


_CONFIG_HISTORY = re.compile(
    rb"^chat-history-file:[ \t]*[\"']?([^\"'\r\n#]+?)[\"']?[ \t]*(?:#.*)?$", re.M
)
_CONFIG_ENCODING = re.compile(
    rb"^encoding:[ \t]*[\"']?([^\"'\r\n#]+?)[\"']?[ \t]*(?:#.*)?$", re.M
)
_ENCODING_VARIABLE = "AIDER_ENCODING"


def _folder_of(path: Path, location: Location) -> Path:
    """The folder aider ran in: the history file's own, unless an `.aider.conf.yml` of a
    folder above it (or the home's) put the file there (`.aider/chat.md`)."""
    everywhere = _configured_history(location.root.parent)
    for folder in list(path.parents)[:4]:
        chosen = _configured_history(folder) or everywhere
        if chosen and folder / chosen == path:
            return folder
    return path.parent


def _configured_history(folder: Path) -> str | None:
    """The `chat-history-file` an `.aider.conf.yml` in the folder names (aider reads it
    from the home, the git root and the working folder), if any."""
    return _configured(folder, _CONFIG_HISTORY)


def _configured(folder: Path, setting: re.Pattern[bytes]) -> str | None:
    data = files.read_small(folder / ".aider.conf.yml", 256 * 1024)
    found = setting.search(data) if data else None
    if found is None:
        return None
    value = found.group(1).decode("utf-8", "replace").strip()
    return value or None


def _encoding_said(location: Location, cwd: Path | None) -> tuple[str, str] | None:
    """(the encoding aider was told, where) for a log of `cwd`'s: AIDER_ENCODING (aider
    takes a variable over its config files), else the `encoding:` of the folder's
    `.aider.conf.yml`, else the home's. A log of no known folder (an absolute
    AIDER_CHAT_HISTORY_FILE, whose folder is not the home's): the variable only."""
    for said in location.settings:
        name, _, value = said.partition("=")
        if name == _ENCODING_VARIABLE:
            return value, said
    if cwd is None:
        return None
    for folder in (cwd, location.root.parent):
        configured = _configured(folder, _CONFIG_ENCODING)
        if configured:
            return configured, str(folder / ".aider.conf.yml")
    return None


def _cwd(path: Path, location: Location) -> Path | None:
    """The folder aider wrote the log in, where known."""
    return None if _single_file(location) == path else _folder_of(path, location)


def _text_of(
    location: Location, cwd: Path | None
) -> tuple[Text | str, tuple[str, str] | None]:
    """How a log of `cwd`'s reads (a `Text`, or why not as aider wrote it: `text_in`),
    and what said its encoding."""
    said = _encoding_said(location, cwd)
    return (UTF8 if said is None else text_in(said[0])), said


def doctor_notes(location: Location) -> list[str]:
    """Each log read in an encoding other than UTF-8, and each whose encoding is not
    one Python knows (read as UTF-8) or not built on ASCII (not read)."""
    notes = []
    for path in scan(location):
        text, said = _text_of(location, _cwd(path, location))
        if said is None or text is UTF8:
            continue
        value, where = said
        if text == UNKNOWN:
            notes.append(
                f"{path}: {where} names the encoding {value!r}, which Python has no "
                "codec for: read as UTF-8, each line that is not UTF-8 counted as damage"
            )
        elif text == NOT_ASCII:
            notes.append(f"{path}: {_not_read(value, where)}")
        elif isinstance(text, Text):
            notes.append(f"{path}: read as {value} ({where})")
    return notes


def _not_read(value: str, where: str) -> str:
    return (
        f"written in {value} ({where}), not read: aider's words that start a run are "
        "not ASCII bytes in it, and where its runs start is not guessed"
    )


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    """One session per "chat started" section of the file."""
    folder = _cwd(path, location)
    text, said = _text_of(location, folder)
    if not isinstance(text, Text):
        if text == NOT_ASCII and said is not None:
            diagnostics.problem(f"aider: {path} is {_not_read(*said)}")
            return []
        text = UTF8  # an encoding Python does not know: as before it was set (doctor)
    try:
        size = path.stat().st_size
        mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
        sections = _sections(path, diagnostics, text)
    except FileNotFoundError:
        diagnostics.problem(f"aider: {path} vanished while it was read")
        return []
    except OSError as error:
        diagnostics.problem(read_failed("aider", path, error))
        return []
    if not sections:
        return []
    cwd = None if folder is None else str(folder)
    first_header = sections[0].header
    sessions = []
    for index, section in enumerate(sections):
        last = index == len(sections) - 1
        end = None if last else sections[index + 1].offset
        extra: dict[str, JSONValue] = {
            "offset": section.offset,
            "line": section.line,
            "end": end,
            "time_zone": "local",
        }
        if text.name is not None:
            extra["encoding"] = text.name  # for `read`
        sessions.append(
            Session(
                app=NAME,
                id=_session_id(path.parent.name, first_header, section.offset),
                path=str(path),
                cwd=cwd,
                title=section.title,
                created=section.started,
                # an earlier run's last time in the log is its start
                updated=mtime if last else section.started,
                model=section.model,
                effort=section.effort
                or (
                    f"{_THINKING_EFFORT}{section.thinking}"
                    if section.thinking
                    else None
                ),
                cli_version=section.version,
                bytes=(size if end is None else end) - section.offset,
                extra=extra,
            )
        )
    for section in sections:
        if section.version:
            diagnostics.versions[section.version] += 1
    return sessions


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """The section's user input, replies, aider output and token reports, in file order."""
    if session.path is None:
        return
    start = _int(session.extra.get("offset"))
    end = session.extra.get("end")
    stop = end if isinstance(end, int) else None
    begin = max(start, offset)
    reader = _Reader(session, diagnostics)
    encoding = session.extra.get("encoding")
    text = text_in(encoding) if isinstance(encoding, str) else UTF8
    if not isinstance(text, Text):
        text = UTF8  # listed by another build of sessdex
    try:
        with files.open_regular(session.path) as stream:
            stream.seek(begin)
            for line in files.iter_lines(
                stream,
                offset=begin,
                cap=files.READ_LINE_CAP,
                path=session.path,
                diagnostics=diagnostics,  # a longer line is passed over: say so
                # numbered as in the file when read from the run's start; from a
                # --tail offset, whose line's number is not known, by byte
                first_number=_int(session.extra.get("line")) or 1
                if begin == start
                else None,
            ):
                if stop is not None and line.offset >= stop:
                    break
                if begin > start and line.offset == begin and offset > start:
                    continue  # the partial line at a --tail offset
                data = line.data
                if line.offset > start and _starts_run(data, text):
                    break
                if not data.isascii() or 0 in data:
                    _note_damage(line, session.path, diagnostics, text)
                if line.offset == start:
                    continue  # the run's first line: its time is the session's
                yield from reader.feed(text.decode(data), line.number)
    except FileNotFoundError:
        diagnostics.problem(f"aider: {session.path} vanished")
        return
    yield from reader.flush()


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`aider --restore-chat-history --chat-history-file <log>` in the repository: aider
    reloads the whole log, not one run. The log is named: which file aider picks on its
    own depends on `.aider.conf.yml` files and AIDER_CHAT_HISTORY_FILE as they are when
    it starts, and a repository may hold an older log beside the one its config names."""
    if session.cwd is None:
        return None
    argv = ["aider", "--restore-chat-history"]
    if session.path:  # full, so that no name of it reads as an option
        argv += ["--chat-history-file", os.path.abspath(session.path)]
    if session.model:
        argv += ["--model", session.model]
    notes = [
        "aider has no per-run resume: --restore-chat-history loads every run in this "
        "repository's .aider.chat.history.md into the new chat"
    ]
    effort = session.effort or ""
    budget = effort.removeprefix(_THINKING_EFFORT)
    if budget.startswith("-"):
        # the shared check sees `thinking:-…`, no option: the budget alone would be one
        # (`, --yes-always think tokens` made `--thinking-tokens --yes-always`)
        notes.append(
            f"left out the recorded thinking budget {budget!r}: not a plain value"
        )
    elif effort.startswith(_THINKING_EFFORT):
        argv += ["--thinking-tokens", budget]
    elif effort:
        argv += ["--reasoning-effort", effort]
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="aider",
        install_hint="python -m pip install aider-install && aider-install",
        notes=tuple(notes),
    )


# --- listing ---------------------------------------------------------------------------


class _Section:
    __slots__ = (
        "effort", "header", "line", "model", "offset", "started", "thinking", "title",
        "titles", "version",
    )  # fmt: skip

    def __init__(self, offset: int, line: int, data: bytes, text: Text) -> None:
        self.offset = offset
        self.line = line  # the header's line number in the file
        # as UTF-8 in any encoding: a part of the ids, which a setting must not change
        self.header = data.decode("utf-8", "replace").strip()
        self.started = _header_time(data, text)
        self.title: str | None = None
        self.titles: list[str] = []
        self.model: str | None = None
        self.effort: str | None = None  # `--reasoning-effort`
        self.thinking: str | None = None  # `--thinking-tokens` (aider's "8k")
        self.version: str | None = None


def _sections(path: Path, diagnostics: Diagnostics, text: Text) -> list[_Section]:
    sections: list[_Section] = []
    current: _Section | None = None
    seen = 0
    pending: list[str] = []
    name = str(path)
    with files.open_regular(path) as stream:
        for line in files.iter_lines(stream):
            data = line.data
            # two C calls a line, and a decode of the few that are not ASCII
            damaged = (not data.isascii() or 0 in data) and _note_damage(
                line, name, diagnostics, text
            )
            if data.startswith(_HEADER) or (damaged and _starts_run(data, text)):
                if current is not None:
                    _finish(current, pending)
                current = _Section(line.offset, line.number, data, text)
                if current.started is None and not damaged:
                    diagnostics.skip(name, line.number, "bad value")
                sections.append(current)
                seen, pending = 0, []
                continue
            if current is None or seen >= HEAD_LINES:
                continue
            seen += 1
            if data.startswith(b"#### "):
                pending.append(text.decode(data[5:]).rstrip())
                continue
            if pending:
                current.titles.append(" ".join(p for p in pending if p))
                pending = []
            if data.startswith(b"> "):
                said = text.decode(data[2:]).rstrip()
                model = _MODEL.match(said)
                if model and current.model is None:
                    current.model = model.group(1)
                    effort, thinking = _EFFORT.search(said), _THINKING.search(said)
                    current.effort = effort.group(1) if effort else None
                    current.thinking = thinking.group(1) if thinking else None
                version = _VERSION.match(said)
                if version and current.version is None:
                    current.version = version.group(1)
    if current is not None:
        _finish(current, pending)
    return sections


def _finish(section: _Section, pending: list[str]) -> None:
    if pending:
        section.titles.append(" ".join(p for p in pending if p))
    plain = [t for t in section.titles if t and not t.startswith("/")]
    chosen = plain[0] if plain else (section.titles[0] if section.titles else None)
    section.title = chosen.strip() if chosen else None


def _starts_run(data: bytes, text: Text) -> bool:
    """Whether a line opens a run: aider's words, with what follows them intact, or
    damaged (`_damage`: an ASCII line aider wrote, made so)."""
    if data.startswith(_HEADER):
        return True
    return data.startswith(_HEADER_WORDS) and _damage(data, text) is not None


def _damage(data: bytes, text: Text) -> str | None:
    """What is wrong with a line aider would not have written so, or None."""
    if text.error(data) is not None:
        return text.damage
    return NUL_BYTES if 0 in data else None


def _note_damage(
    line: files.Line, path: str, diagnostics: Diagnostics, text: Text
) -> bool:
    """Count a damaged line (True), or note a last line cut inside a character as
    unfinished (a log cut off, as a JSON-lines file's last line is)."""
    data = line.data
    error = text.error(data)
    if error is None:
        if 0 not in data:
            return False
        reason = NUL_BYTES
    elif not line.complete and error.end == len(data) and error.reason in _CUT:
        diagnostics.unfinished_line(path, line.end - line.offset)
        return False
    else:
        reason = text.damage
    if not _starts_run(data, text) and (
        len(data) <= 2 * len(_HEADER) + _TIME_SIZE
        and (_START_TIME.search(data) or b"aider chat" in data)
    ):
        reason += _MAYBE_START
    diagnostics.damage(path, line.number, reason)  # read and shown, not skipped
    return True


def _header_time(data: bytes, text: Text) -> datetime | None:
    """The run's start: what follows aider's words, or, on a damaged line, its last 19
    bytes where they are a time (damage there would show)."""
    if _damage(data, text) is not None:
        said = data.rstrip()[-_TIME_SIZE:].decode("utf-8", "replace")
    else:
        said = text.decode(data[len(_HEADER) :]).strip()
    try:
        return datetime.strptime(said, _TIME_FORMAT).astimezone(UTC)
    # a local 9999-12-31 west of UTC, 0001-01-01 east of it, is no UTC time: the run keeps
    # no start, the file's other runs are read
    except (ValueError, OverflowError, OSError):
        return None


def _session_id(folder: str, first_header: str, offset: int) -> str:
    import hashlib  # here: OpenSSL loads only where a hash is taken

    key = f"{folder}\0{first_header}\0{offset}".encode()
    return hashlib.sha1(key).hexdigest()[:12]


def _single_file(location: Location) -> Path | None:
    if location.override is None:
        return None
    value = location.override.partition("=")[2]
    path = Path(value).expanduser()
    return path if path.is_absolute() else None


def _history_name(location: Location) -> str:
    if location.override is not None:
        value = location.override.partition("=")[2]
        if value and not Path(value).expanduser().is_absolute():
            return value
    return HISTORY


def _git_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding `.git` (aider logs there), if any."""
    current = folder
    for _ in range(GIT_ROOT_DEPTH):
        if folders.exists(current / ".git"):
            return current if current != folder else None
        if current.parent == current:
            return None
        current = current.parent
    return None


# --- reading ---------------------------------------------------------------------------


class _Reader:
    """Turns the section's lines into events; blocks of one kind are joined into one event."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.emit = Emitter(session.id)
        self.kind: str | None = None  # "user", "quote" or "text"
        self.lines: list[str] = []
        # each line's number in the log, by which an odd count is said
        self.numbers: list[int] = []
        self.command: str | None = (
            None  # call id of the slash command whose output follows
        )
        self.started = session.created
        self.model = session.model

    def feed(self, text: str, number: int) -> Iterator[Event]:
        if text.startswith("#### "):
            kind, body = "user", text[5:].rstrip()
        elif text.startswith("> ") or text == ">":
            kind, body = "quote", text[2:].rstrip()
        else:
            kind, body = "text", text.rstrip()
            if (
                self.kind == "quote"
                and self.lines
                and _COST_LINE.match(body)
                and _TOKENS.search(self.lines[-1])
            ):
                kind = "quote"  # the second line of a usage report
        if kind != self.kind:
            yield from self.flush()
            self.kind = kind
        self.lines.append(body)
        self.numbers.append(number)

    def flush(self) -> Iterator[Event]:
        kind, lines, numbers = self.kind, self.lines, self.numbers
        self.kind, self.lines, self.numbers = None, [], []
        if kind is None:
            return
        text = "\n".join(lines).strip()
        if kind == "user":
            message = "\n".join(line.strip() for line in lines).strip()
            if not message:
                return
            yield self._event("user", text=message)
            if message.startswith("/"):
                name, _, rest = message.partition(" ")
                self.command = f"{self.session.id}:{self.emit.seq}"
                yield self._event(
                    "tool_call",
                    tool=name,
                    call_id=self.command,
                    extra={"input": rest.strip()},
                )
            else:
                self.command = None
        elif kind == "text":
            if text:
                self.command = None
                thought, said = _reasoning_and_answer(text)
                if thought:
                    yield self._event("thinking", text=thought)
                if said:
                    yield self._event("assistant", text=said)
        else:
            yield from self._quote(lines, numbers)

    def _quote(self, lines: list[str], numbers: list[int]) -> Iterator[Event]:
        body: list[str] = []
        cost_line: re.Match[str] | None = None
        for number, line in enumerate(lines):
            if cost_line is not None:
                cost_line = None  # read with the usage report above it
                continue
            match = _report(line)
            if match is None:
                body.append(line)
                continue
            yield from self._quote_text(body)
            body = []
            if any(
                (value or "").startswith("-") for value in match.groupdict().values()
            ):
                # billed as 0 (`_tokens`)
                self.diagnostics.damage(
                    self.session.path or "", numbers[number], ODD_COUNT
                )
            extra = _cost(match)
            if not match["cost"] and number + 1 < len(lines):
                cost_line = _COST_LINE.match(lines[number + 1])
                if cost_line is not None:
                    extra["cost_usd"] = float(cost_line["cost"])
            cost = extra.get("cost_usd")
            if isinstance(cost, float) and cost > 0:
                # priced by aider from its exact counts (the logged ones are rounded), and
                # known for a model no price list names: `usage` takes it over a price
                extra["app_cost_usd"] = cost
            yield self._event("usage", usage=_usage(match, self.model), extra=extra)
            yield self._event("turn_end")
        yield from self._quote_text(body)

    def _quote_text(self, lines: list[str]) -> Iterator[Event]:
        text = "\n".join(lines).strip()
        if not text:
            return
        if self.command is not None:
            yield self._event("tool_result", call_id=self.command, text=text)
            self.command = None
            return
        extra: dict[str, JSONValue] = {}
        for line in lines:
            model = _MODEL.match(line)
            if model:
                extra["model"] = self.model = model.group(1)
        yield self._event("meta", text=text, extra=extra)

    def _event(self, kind: EventKind, **fields: Unpack[EventFields]) -> Event:
        # aider logs no per-message times: the first event gets the section's start, and
        # so does each token report, so that `usage` counts it on the day the run began
        time = self.started if self.emit.seq == 0 or kind == "usage" else None
        return self.emit(kind, time, estimated=True, **fields)


def _report(line: str) -> re.Match[str] | None:
    """A token report on a quoted line, in the words of any aider version."""
    return _TOKENS.search(line) or _OLD_TOKENS.match(line)


def _tokens(value: str | None) -> int:
    if not value or value.startswith("-"):  # a negative count: said by the reader
        return 0
    value = value.replace(",", "")
    scale = 1
    if value[-1] in "kM":
        scale = 1000 if value[-1] == "k" else 1_000_000
        value = value[:-1]
    try:
        return round(float(value) * scale)
    except ValueError:
        return 0


def _usage(match: re.Match[str], model: str | None) -> Usage:
    found = match.groupdict()
    sent, write, hit = (
        _tokens(found["sent"]),
        _tokens(found.get("write")),
        _tokens(found.get("hit")),
    )
    return Usage(
        input_tokens=max(0, sent - write - hit),
        output_tokens=_tokens(match["received"]),
        cache_read_tokens=hit,
        cache_write_tokens=write,
        model=model,
    )


def _cost(match: re.Match[str]) -> dict[str, JSONValue]:
    extra: dict[str, JSONValue] = {"approximate": True}
    if match["cost"]:
        extra["cost_usd"] = float(match["cost"])
    return extra


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


# A streamed reply's reasoning, as Aider writes it into the history ahead of the answer:
# inside its own tag (reasoning_tags.py REASONING_TAG) or the model's `<think>` tags.
_REASONING = re.compile(
    r"\A\s*<(thinking-content-[0-9a-f]{8,64}|think|thinking|reasoning)>(.*?)(?:</\1>|\Z)",
    re.DOTALL,
)


def _reasoning_and_answer(text: str) -> tuple[str | None, str]:
    """(the reasoning, the answer) of a reply; a stream cut inside the reasoning is all
    reasoning."""
    match = _REASONING.match(text)
    if match is None:
        return None, text
    return match.group(2).strip() or None, text[match.end() :].strip()
