"""Continue (continue.dev): the VS Code and JetBrains extensions and the `cn` CLI.

Both keep a chat as one JSON document, `~/.continue/sessions/<session id>.json`
(`$CONTINUE_GLOBAL_DIR` instead of `~/.continue`, on every OS), rewritten whole with
JSON.stringify(session, null, 2) on every change: `{sessionId, title, workspaceDirectory,
history[], mode?, chatModelTitle?, usage?}` in that order. A history item is `{message,
contextItems, editorState?, toolCallStates?, reasoning?, promptLogs?, conversationSummary?}`;
its message is `{role: user|assistant|thinking|tool|system, content (text or parts),
toolCalls?, toolCallId?, usage?}`. `sessions/sessions.json` lists `{sessionId, title,
dateCreated (epoch ms, as text), workspaceDirectory, messageCount}` per session: the only
time Continue keeps, read as the session's creation. There is no time per message (but an
extension's `reasoning.startAt`): a session is last active when its file was last written.

The CLI keeps a tool's output in its call's `toolCallStates[].output` only; the extension
also writes a `tool` message with it (shown once, from the message). A `conversationSummary`
sums up the history up to its item: the CLI's compaction is an item of its own, the summary
as an assistant message; the extension's "compact" sets it on the response it was asked at,
whose text, calls and usage stay that response's (conversationCompaction.ts). The CLI writes each
response's usage on its assistant message in OpenAI's words (`prompt_tokens`,
`completion_tokens`, `model`; Continue's Anthropic adapter adds `cache_read_tokens` and
`cache_write_tokens`, its prompt count then without them; OpenAI's `cached_tokens` is inside
it) and the session's running totals in `usage` (counted, as one sum, only in a chat none
of whose responses carries its own). `cn --fork <id>` copies a session's
history into a new one whose totals start at zero: its copied responses count in the
session they came from (the first ones, as far as the history's sum passes its totals; in
a file cut before its totals, as far as it opens alike with a session beside it that bills
them: one whose totals say they are its own, or one cut too that was made before it).
The extension titles a chat, keeps the chat model's title (`chatModelTitle`), the mode and
a `file://` URI for the folder; the CLI titles only interactive chats ("Untitled Session"
otherwise: the first prompt titles those here). `show --tail` finds a session's last items
from its end, but where it keeps running totals (the whole history says what they count).

Resume: `cn --resume` takes no id and reopens only the newest session file, whichever it is
(by whole milliseconds; of files written in the same one, the first by name); `cn --fork
<id>` reopens any by copying it into a new session. The extension's chats reopen from its
History view. `auth.json`, `.env` and `config.yaml` beside the sessions are never opened.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from .. import files, folders, shells
from ..diagnostics import Diagnostics, odd_in
from ..errors import NotQuotable
from ..hints import named
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_list,
    as_str,
    local_path,
    ms_time,
    odd_count,
    one_line,
    shown_arguments,
    shown_text,
    stat_size,
    stripped,
    type_tag,
    written_time,
)
from .base import Home, Location, Opened, WholeRead

if TYPE_CHECKING:
    from . import _json_chat
    from ._json_chat import Document

NAME = "continue"
TITLE = "Continue (cn CLI and IDE extensions)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "the real cn 1.5.47 (npm @continuedev/cli) against a mock model, in the conformance "
    "suite and by hand: a headless turn with a Bash call, `-p --resume`, `--fork <id>`, the "
    "TUI (its title, a call waiting for approval, a refused call, /title); resume flags "
    "from its --help; the "
    "extension's chats from continuedev/continue @d0a3c0b626b5 (core/util/history.ts, "
    "core/index.d.ts, gui/src/redux), never a real extension capture (Medium)"
)
NEWEST_CHECKED = "1.5.47"
ENV_VARS = ("CONTINUE_GLOBAL_DIR",)
CLI = ("cn",)

INDEX = "sessions.json"
# a bigger session is listed from its ends, read in pieces
WHOLE_CAP = files.WHOLE_JSON_CAP
_ENDS = 256 * 1024  # bytes read at either end of a session too big to list whole
# the titles Continue gives a chat it has not titled (the CLI's, the extension's)
_UNTITLED = frozenset({"Untitled Session", "New Session"})
_HISTORY = frozenset({"history"})
_ROLES = frozenset({"user", "assistant", "thinking", "tool", "system"})
_OPEN = frozenset({"generating", "generated", "calling"})  # a call not over yet

# A top-level member as JSON.stringify(session, null, 2) writes it: at the start of a line,
# two spaces in (a string's own newlines are escaped, so only structure starts a line).
_TOP_MEMBER = re.compile(
    rb'^  "(sessionId|title|workspaceDirectory|mode|chatModelTitle)": ("(?:[^"\\\n]|\\.)*"|null)',
    re.MULTILINE,
)
# a response's model, in an assistant message's usage (history, item, message, usage)
_USAGE_MODEL = re.compile(rb'^ {10}"model": ("(?:[^"\\\n]|\\.)*")', re.MULTILINE)


def locate(home: Home) -> Location:
    """`$CONTINUE_GLOBAL_DIR`, else `~/.continue` (paths.ts: the same on every OS). A
    relative folder is not followed: Continue resolves it against the folder each run
    starts in."""
    given = home.env_dir("CONTINUE_GLOBAL_DIR")
    if given is not None and given.is_absolute():
        return Location(given, override=f"CONTINUE_GLOBAL_DIR={given}")
    notes: tuple[str, ...] = ()
    if given is not None:
        notes = (
            f"CONTINUE_GLOBAL_DIR={given} is not followed: Continue resolves a relative "
            "folder against the folder each run starts in, which sessdex cannot know",
        )
    return Location(home.path / ".continue", notes=notes)


# where `scan` reads a session (see base.py): a broken link elsewhere hides none
SESSION_NAMES = ("sessions", "sessions/*.json")


def scan(location: Location) -> Iterator[str]:
    """The session files and `sessions.json` in `sessions/`; nothing else is listed."""
    if not location.exists:
        return
    for entry in folders.entries(location.root / "sessions", location.root):
        if entry.name.endswith(".json") and folders.file_entry(entry):
            yield entry.path


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == INDEX:
        return _parse_index(path, diagnostics)
    size = stat_size(path)
    if size is None:
        files.say_if_refused(NAME, path, diagnostics)
        return []
    if size > WHOLE_CAP:
        facts = _ends(path) or _in_pieces(path, diagnostics)
    else:
        value = files.read_json_file(path, limit=WHOLE_CAP, diagnostics=diagnostics)
        if value is not None and not isinstance(value, dict):
            diagnostics.skip(str(path), 1, "not an object")
            return []
        facts = _whole(value) if value is not None else _in_pieces(path, diagnostics)
    if facts is None:
        return []
    # the file's name is the id Continue opens it by (history.ts `load` sets sessionId
    # from it; `cn --fork <id>` looks for `<id>.json`), whatever the document says
    session_id = path.stem
    title = stripped(facts.top.get("title"))
    if title in _UNTITLED:
        title = None
    model = facts.model or stripped(facts.top.get("chatModelTitle"))
    extra: dict[str, JSONValue] = {"origin": _origin(facts.top)}
    mode = as_str(facts.top.get("mode"))
    if mode:
        extra["mode"] = mode
    folder = as_str(facts.top.get("workspaceDirectory"))
    cwd = local_path(folder)
    if folder and cwd is None:  # a remote workspace (`vscode-remote://…`)
        extra["workspace"] = folder
    return [
        Session(
            app=NAME,
            id=session_id,
            path=str(path),
            cwd=cwd,
            title=one_line(title) or one_line(facts.prompt),
            updated=written_time(path),
            model=model,
            permission_mode=mode if mode == "plan" else None,
            bytes=size,
            extra=extra,
        )
    ]


@dataclass(frozen=True, slots=True)
class _Facts:
    """What a listing takes from one session file."""

    top: dict[str, object]  # the members other than `history`
    prompt: str | None = None  # the first typed prompt
    model: str | None = None  # the last response's


def _whole(value: dict[str, object]) -> _Facts:
    """A session small enough to parse at once."""
    prompt = model = None
    for item in as_list(value.get("history")):
        message = as_dict(as_dict(item).get("message"))
        prompt = prompt or (
            _text(message.get("content")) if message.get("role") == "user" else None
        )
        model = stripped(as_dict(message.get("usage")).get("model")) or model
    top = {k: v for k, v in value.items() if k != "history"}
    return _Facts(top, prompt, model)


def _ends(path: Path) -> _Facts | None:
    """A session too big to parse: its members from its first and last bytes, its first
    prompt from its head, its model from the last response in its tail (the history
    between is left unread); None where it is not laid out as Continue writes it."""
    from . import _json_chat  # what other apps' one-document chats are listed by

    blocks = _json_chat.end_bytes(path, _ENDS)
    if blocks is None:
        return None
    head, tail = blocks
    top = _json_chat.top_members(blocks, _TOP_MEMBER)
    if not isinstance(top.get("sessionId"), str):
        return None
    models = [_loads(m.group(1)) for m in _USAGE_MODEL.finditer(tail)]
    model = next((m for m in reversed(models) if isinstance(m, str) and m), None)
    return _Facts(top, _head_prompt(head), model)


def _head_prompt(head: bytes) -> str | None:
    """The first typed prompt among the history items the head holds whole."""
    from ..jsonstream import NotThisShape, array_items

    try:
        for item in array_items(BytesIO(head), "history"):
            message = as_dict(as_dict(item).get("message"))
            if message.get("role") == "user":
                return _text(message.get("content"))
    except NotThisShape:  # the head ends inside an item: the prompt is further on
        pass
    return None


def _in_pieces(path: Path, diagnostics: Diagnostics, app: str = NAME) -> _Facts | None:
    """A session that does not parse whole (cut short by a write stopped half way, or
    a copy taken during one): the members read before its cut; None (counted) where
    none names it."""
    from ..jsonstream import file_members

    top = file_members(path, _HISTORY, diagnostics, app, cut=True)
    if top is None:
        if not files.refuses_reading(str(path)):
            diagnostics.skip(str(path), 1, "not JSON")
        return None
    prompt = None
    from . import _json_chat

    for item in _json_chat.items(path, "history", diagnostics, app, counted=False):
        message = as_dict(item.get("message"))
        if message.get("role") == "user":
            prompt = _text(message.get("content"))
            break
    return _Facts(top, prompt)


def _parse_index(
    path: Path, diagnostics: Diagnostics, app: str = NAME
) -> list[Session]:
    """`sessions.json`: each session's creation time (and title), filling in what its
    own file does not say; a session it lists without a file is not listed."""
    entries: Iterable[object]
    if (
        stat_size(path) or 0
    ) > WHOLE_CAP:  # tens of thousands of chats: a piece at a time
        from ..jsonstream import file_items

        entries = file_items(path, None, diagnostics, app)
    else:
        value = files.read_json_file(path, limit=WHOLE_CAP, diagnostics=diagnostics)
        if value is None and stat_size(path):
            diagnostics.skip(str(path), 1, "not JSON")
        if not isinstance(value, list):
            if value is not None:
                diagnostics.skip(str(path), 1, "not an object")
            return []
        entries = value
    found: list[Session] = []
    for entry in entries:
        if not isinstance(entry, dict):
            diagnostics.skip(str(path), 0, "not an object")
            continue
        session_id = as_str(entry.get("sessionId"))
        if session_id is None:
            if "sessionId" in entry:  # there, but not text
                diagnostics.skip(str(path), 0, "bad value")
            continue  # the extension's format before sessionId: Continue skips it too
        title = stripped(entry.get("title"))
        created = entry.get("dateCreated")
        if isinstance(created, str) and created.isdigit():
            created = int(created)
        found.append(
            Session(
                app=app,
                id=session_id,
                title=None if title in _UNTITLED else one_line(title),
                created=ms_time(created),
                precedence=-1,
                listed=False,
            )
        )
    return found


def _origin(top: dict[str, object]) -> str:
    """Which program wrote the session: the extension writes the chat model's title and
    the mode (and a URI for the folder); the CLI writes neither."""
    folder = as_str(top.get("workspaceDirectory")) or ""
    if "chatModelTitle" in top or "mode" in top or "://" in folder:
        return "ide"
    return "cli"


# --- reading ------------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    from . import _json_chat

    path = Path(session.path)
    found = _json_chat.document(path, NAME, "history", WHOLE_CAP, diagnostics)
    if found is None:
        return
    if found.top is not None:
        items = list(found.items)
        totals = as_dict(found.top.get("usage"))
        copied = _copied(items, totals)
        yield from _Reader(session, diagnostics, copied, totals).items(iter(items))
        return
    # too big to parse whole, or broken: one history item at a time, and (when the
    # totals ask for it) a first pass over them for the copies a fork made
    totals = _totals(found, diagnostics)
    quiet = Diagnostics()  # the read counts what is wrong in it
    copied = _copied(_json_chat.items(path, "history", quiet, NAME), totals) if totals else _copied_beside(path)  # fmt: skip
    yield from _Reader(session, diagnostics, copied, totals).items(found.items)


def _totals(found: Document, diagnostics: Diagnostics) -> dict[str, object]:
    """The session's running totals; {} where it has none, or is cut before them. One
    cut inside them: a count cut or not reached is 0, so that no copy a fork made is
    billed again (its own responses may go uncounted)."""
    within: dict[str, object] = {}
    totals = as_dict(found.members(diagnostics, within).get("usage"))
    if "usage" in within:
        partial = as_dict(within["usage"])
        totals = {"promptTokens": 0, "completionTokens": 0, **partial}
    return totals


def _copied_beside(path: Path) -> int:
    """`_copied` of a session read in pieces whose running totals were not read (its
    file cut before them): the first responses it holds alike with a session beside it
    that bills them, which `cn --fork` copied from there. One whose totals were read bills
    those past its own copies; one cut before its totals too, those it holds alike where
    it was made first (see `_made`). Within a pass (`folders.one_pass`) the files beside
    it are read once for all the folder's sessions, and each compared by the runs of
    items it opens with: work that grows with the folder, not with it times the cut."""
    folder = path.parent
    firsts = folders.kept((NAME, "firsts", str(folder)), lambda: _firsts(folder))
    first = firsts.get(path.name)
    if first is None:
        return 0
    group = folders.kept(
        (NAME, "group", str(folder), first),
        lambda: _group(folder, [name for name, its in firsts.items() if its == first]),
    )
    ours = group.cut.get(path.name)
    if ours is None:
        return 0
    made = _made(path)
    alike = found = 0
    for prefix, response in zip(ours.prefixes, ours.billed, strict=False):
        alike += response
        run = group.runs.get(prefix)
        if run is None:
            break
        if run.fewest < alike or any(
            other < made for other in run.made if other[1] != path.name
        ):
            found = alike  # one that holds these first items bills some of them
    return found


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a look beside a session cut before its totals takes from a session file."""

    prefixes: tuple[bytes, ...]  # a digest of each run of its first history items
    billed: bytes  # 1 where the item is a response the reader bills, else 0
    copied: int | None  # its first responses billed elsewhere; None: totals not read


_NONE = 2**63  # no session's count: none whose totals were read holds the run


@dataclass(slots=True)
class _Run:
    """What the sessions whose history opens with one run of items say of it."""

    fewest: int = _NONE  # the fewest responses copied by one whose totals were read
    made: tuple[tuple[int, str], ...] = ()  # the first two made of those cut before


@dataclass(frozen=True, slots=True)
class _Group:
    """The sessions of a folder that open with the same history item: each run of
    items they open with, and the shapes of those cut before their totals."""

    runs: dict[bytes, _Run]
    cut: dict[str, _Shape]


def _group(folder: Path, names: list[str]) -> _Group:
    """The `_Group` of the sessions `names`, each file read once."""
    runs: dict[bytes, _Run] = {}
    cut: dict[str, _Shape] = {}
    for name in names:
        shape = _read_shape(folder / name)
        if shape is None:
            continue
        made = _made(folder / name)
        if shape.copied is None:
            cut[name] = shape
        for prefix in shape.prefixes:
            run = runs.setdefault(prefix, _Run())
            if shape.copied is not None:
                run.fewest = min(run.fewest, shape.copied)
            else:
                run.made = tuple(sorted((*run.made, made))[:2])
    return _Group(runs, cut)


# the history items a look beside compares at most: a copy longer than this (tens of MB
# at the least) is taken for one so long, so that the digests kept stay bounded
_COMPARED = 100_000


def _read_shape(path: Path) -> _Shape | None:
    """The file's `_Shape`; None where it cannot be read."""
    from . import _json_chat

    quiet = Diagnostics()  # its own read counts what is wrong in it
    found = _json_chat.document(path, NAME, "history", WHOLE_CAP, quiet)
    if found is None:
        return None
    prefixes: list[bytes] = []
    billed = bytearray()
    counts: list[tuple[int, int]] = []  # what `_copied` weighs
    prefix = b""
    for item in found.items:
        usage = _billed(item)
        if usage:
            counts.append(_tokens(usage))
        if len(prefixes) < _COMPARED:
            prefix = _digest(prefix, item)
            prefixes.append(prefix)
            billed.append(bool(usage))
    totals = _totals(found, quiet)
    copied = _copies(counts, totals) if totals or found.top is not None else None
    return _Shape(tuple(prefixes), bytes(billed), copied)


def _firsts(folder: Path) -> dict[str, bytes]:
    """The digest of each session file's first history item, by its name: a session
    can only have copied from one that opens alike. Each read a first piece only."""
    from . import _json_chat

    quiet = Diagnostics()
    found: dict[str, bytes] = {}
    for entry in folders.entries(folder):
        if not entry.name.endswith(".json") or entry.name == INDEX:
            continue
        # the reader let go after its first item: its file closed then, not read on
        for item in _json_chat.items(
            Path(entry.path), "history", quiet, NAME, counted=False, chunk=_FIRST
        ):
            found[entry.name] = _digest(b"", item)
            break
    return found


_FIRST = 64 * 1024  # bytes a look at a file's first history item reads at a time


def _digest(before: bytes, item: dict[str, object]) -> bytes:
    """The digest of a run of history items, from that of the run before `item`: equal
    for runs whose items are equal as parsed."""
    import hashlib  # loads OpenSSL: only where a cut fork is compared, not in every listing

    try:
        data = orjson.dumps(item, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # a count past 64 bits: alike only to itself
        data = repr(item).encode(errors="surrogateescape")
    return hashlib.blake2b(before + data, digest_size=16).digest()


def _made(path: Path) -> tuple[int, str]:
    """When the session was made, as `sessions.json` says it, else when its file was
    last written (it was made no later), the name after: of two sessions cut before
    their totals that open alike, one is taken to have come first, so that it alone
    bills what they share."""
    made = folders.kept((NAME, "made", str(path.parent)), lambda: _created(path.parent))
    when = made.get(path.stem)
    if when is None:
        with contextlib.suppress(OSError):
            when = _date_ms(path.stat().st_mtime_ns)
    return (when if when is not None else _NONE, path.name)


def _created(folder: Path) -> dict[str, int]:
    """Each session's creation (epoch ms) as `sessions.json` beside them says it."""
    listed = files.read_json_file(folder / INDEX, limit=WHOLE_CAP)
    made: dict[str, int] = {}
    for entry in as_list(listed):
        entry = as_dict(entry)
        session_id, when = as_str(entry.get("sessionId")), entry.get("dateCreated")
        if session_id and isinstance(when, str) and when.isdigit():
            made[session_id] = int(when)
    return made


# the running totals as JSON.stringify(session, null, 2) writes them: a top-level member
_TOTALS = b'\n  "usage": '


def _keeps_totals(path: Path, compact: _json_chat.Compact) -> bool:
    """Whether the session keeps running totals after its history (`usage`), laid out
    as Continue writes it or on one line (another tool's copy); True where its ends do
    not read as either."""
    from . import _json_chat

    ends = _json_chat.end_bytes(path)
    if ends is not None:
        return any(_TOTALS in block for block in ends)
    members = _json_chat.compact_ends(path, compact, "history")
    return members is None or "usage" in members


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the session's last `rows` history items, found from its end (see
    base.py), the item before them translated too, unshown, for the calls it left
    waiting. Not where the session keeps running totals (`usage`, after its history):
    which responses a fork copied, and whether any carries its own usage, take the
    whole history."""
    from . import _json_chat

    path = Path(session.path or "")
    # one written on one line too: `{sessionId, …, history: [{message: {…}, …}]}`
    compact = _json_chat.Compact("sessionId", "message")
    found = _json_chat.last_messages(path, rows + 1, key="history", compact=compact)
    if found is None or _keeps_totals(path, compact):
        raise WholeRead("not laid out to be read from its end, keeps totals, or short")
    reader = _Reader(session, diagnostics, 0, {})
    for _ in reader.read(iter(found[:1])):
        pass
    reader.event = Emitter(session.id)  # the events shown are numbered from the first
    yield from reader.items(iter(found[1:]))


def _copied(
    items: Iterator[dict[str, object]] | list[dict[str, object]],
    totals: dict[str, object],
) -> int:
    """How many of the first responses a fork copied from its source: `cn --fork` starts
    the new session's totals at zero, so the history's responses add up to more than
    they; the first ones, as far as the excess goes, are the copies. Each count says how
    many its excess covers, and the copies are as many as either says: a count damaged
    (null) in one response cannot stop them short and bill a copy again."""
    if not totals:
        return 0
    return _copies(
        [_tokens(usage) for item in items if (usage := _billed(item))], totals
    )


def _copies(billed: list[tuple[int, int]], totals: dict[str, object]) -> int:
    """`_copied` of the (prompt, completion) counts of a history's responses."""
    if not totals:
        return 0
    columns = {"promptTokens": [p for p, _ in billed], "completionTokens": [c for _, c in billed]}  # fmt: skip
    # a total damaged (null) says nothing: taken as 0, it called every response a copy
    # and billed none; where neither is read, both are 0 (no copy is billed twice)
    known = [key for key in columns if totals.get(key) is not None] or list(columns)
    covered = 0
    for key in known:
        excess = sum(columns[key]) - as_int(totals.get(key))
        if excess <= 0:  # no copies by this count (by the prompts': no fork)
            if key == "promptTokens":
                return 0
            continue
        covered = max(covered, _covered(columns[key], excess))
    return covered


def _covered(counts: list[int], excess: int) -> int:
    """How many of the first `counts` the `excess` holds whole."""
    count = 0
    for given in counts:
        if given > excess:
            break
        excess, count = excess - given, count + 1
    return count


def _billed(item: dict[str, object]) -> dict[str, object]:
    """The usage of a response the reader bills ({} for any other item)."""
    message = as_dict(item.get("message"))
    if message.get("role") != "assistant" or _summary_only(item):
        return {}
    return as_dict(message.get("usage"))


def _summary_only(item: dict[str, object]) -> bool:
    """Whether the item is the CLI's compaction, an assistant message that is the summary
    itself; the extension keeps its summary on the response it compacted at, whose
    message, calls and usage stay the response's own."""
    summary = item.get("conversationSummary")
    message = as_dict(item.get("message"))
    return isinstance(summary, str) and message.get("content") == summary


def _tokens(usage: dict[str, object]) -> tuple[int, int]:
    """(prompt, completion) tokens of a response, as the session's totals count them."""
    return (
        _count(usage.get("prompt_tokens", usage.get("promptTokens"))),
        _count(usage.get("completion_tokens", usage.get("completionTokens"))),
    )


def _count(value: object) -> int:
    """A count as `_usage` adds it: 0 below 0 (broken), so that less a negative cached
    count no input grows by it."""
    return max(0, as_int(value))


class _Reader:
    """Translates history items into events; a call's output waits for the item that
    follows it, which may be the extension's `tool` message with the same output."""

    def __init__(
        self,
        session: Session,
        diagnostics: Diagnostics,
        copied: int,
        totals: dict[str, object],
    ) -> None:
        self.event = Emitter(session.id)
        self.diagnostics = diagnostics
        self.copied = copied  # responses at the start billed in another session
        self.responses = 0
        self.totals = totals  # the session's running totals
        self.billed = False  # a response's own usage was given
        self.model = session.model
        # no time per response: usage is dated, as a guess, by the file's last write
        self.when = session.updated
        self.path = session.path or ""
        self.pending: dict[str, dict[str, object]] = {}  # call id -> its toolCallState
        self.tools: dict[str, str | None] = {}  # call id -> tool name

    def items(self, items: Iterator[dict[str, object]]) -> Iterator[Event]:
        yield from self.read(items)
        yield from self.flush()
        yield from self.summed()

    def read(self, items: Iterator[dict[str, object]]) -> Iterator[Event]:
        """The items' events, the outputs of the last one's calls still waiting."""
        for item in items:
            message = as_dict(item.get("message"))
            role = type_tag(message.get("role"))
            if role != "tool":
                yield from self.flush()
            if role not in _ROLES:
                self.diagnostics.unknown_type(f"message:{role}")
                continue
            yield from self.item(item, message, str(role))

    def item(
        self, item: dict[str, object], message: dict[str, object], role: str
    ) -> Iterator[Event]:
        event = self.event
        reasoning = as_dict(item.get("reasoning"))
        time = ms_time(reasoning.get("startAt"))
        summary = shown_text(item.get("conversationSummary"), keep_empty=False)
        if summary is not None and _summary_only(item):
            yield event("compaction", time, text=summary)
            return
        yield from self.message(item, message, role, time)
        if summary is not None:  # the history up to this item, summed up after it
            yield event("compaction", time, text=summary)

    def message(
        self,
        item: dict[str, object],
        message: dict[str, object],
        role: str,
        time: datetime | None,
    ) -> Iterator[Event]:
        event = self.event
        if role == "user":
            extra: dict[str, JSONValue] = {}
            context = [
                name
                for raw in as_list(item.get("contextItems"))
                if (name := stripped(as_dict(raw).get("name")))
            ]
            if context:
                extra["context"] = list(context)
            yield event("user", text=_text(message.get("content")) or "", extra=extra)
        elif role == "thinking":
            text = _text(message.get("content")) or stripped(
                message.get("redactedThinking")
            )
            if text:
                yield event("thinking", time, text=text)
        elif role == "tool":
            call_id = as_str(message.get("toolCallId"))
            state = self.pending.pop(call_id, {}) if call_id else {}
            yield event(
                "tool_result",
                text=_text(message.get("content")) or "",
                tool=self.tools.get(call_id or ""),
                call_id=call_id,
                is_error=state.get("status") in ("errored", "canceled"),
            )
        elif role == "assistant":
            yield from self.assistant(item, message, time)
        # a system message (the CLI drops them before saving) says nothing of the chat

    def assistant(
        self, item: dict[str, object], message: dict[str, object], time: datetime | None
    ) -> Iterator[Event]:
        event = self.event
        reasoning = stripped(as_dict(item.get("reasoning")).get("text"))
        if reasoning:
            yield event("thinking", time, text=reasoning)
        text = _text(message.get("content"))
        if text:
            yield event("assistant", text=text)
        states = {
            as_str(state.get("toolCallId")): state
            for state in (as_dict(raw) for raw in as_list(item.get("toolCallStates")))
        }
        calls = as_list(message.get("toolCalls")) or [
            state.get("toolCall") for state in states.values()
        ]
        for raw in calls:
            call = as_dict(raw)
            function = as_dict(call.get("function"))
            call_id = as_str(call.get("id"))
            tool = as_str(function.get("name"))
            if call_id is None and tool is None:
                self.diagnostics.skip(self.path, 0, "bad value")
                continue
            arguments = function.get("arguments")
            state = states.get(call_id, {})
            if arguments in (None, "") and "parsedArgs" in state:
                arguments = state["parsedArgs"]
            yield event(
                "tool_call",
                tool=tool,
                call_id=call_id,
                extra={"input": shown_arguments(arguments or {})},
            )
            if call_id:
                self.tools[call_id] = tool
                if state:
                    self.pending[call_id] = state
        usage = _billed(item)
        if usage:
            self.responses += 1
            counted = _usage(usage, self.model)
            self.model = counted.model
            self.billed = True
            if self.responses > self.copied:  # a copy's count is its source's to say
                self.say_odd(usage, "response")
            if self.responses > self.copied and counted.total:
                yield event(
                    "usage", time or self.when, estimated=time is None, usage=counted
                )
        if not calls and text:  # an answer that asks for no tool ends the turn
            yield event("turn_end")

    def say_odd(self, usage: dict[str, object], counted: str) -> None:
        """Say a billed count no app writes (`odd_count`): counted as `_usage` takes it.
        `counted`: a response or the session's set of totals (the file names no line)."""
        if any(odd_count(value) for value in _counts(usage)):
            self.diagnostics.damage(self.path, 0, odd_in(counted))

    def summed(self) -> Iterator[Event]:
        """A session whose responses carry no usage of their own: its running totals,
        as one usage event that adds them up."""
        if self.billed or not self.totals:
            return
        self.say_odd(self.totals, "set of totals")
        counted = _usage(self.totals, self.model)
        if counted.total:
            yield self.event(
                "usage",
                self.when,
                estimated=True,
                usage=counted,
                extra={"summed": True},
            )

    def flush(self) -> Iterator[Event]:
        """The outputs of the calls no `tool` message answered, from their states."""
        for call_id, state in self.pending.items():
            status = as_str(state.get("status"))
            if status in _OPEN:
                continue  # still running, or waiting for the user's approval
            output = "\n".join(
                text
                for raw in as_list(state.get("output"))
                if (text := shown_text(as_dict(raw).get("content"))) is not None
            )
            failed = status in ("errored", "canceled")
            yield self.event(
                "tool_result",
                text=output or (status if failed else ""),
                tool=self.tools.get(call_id),
                call_id=call_id,
                is_error=failed,
            )
        self.pending.clear()


def _counts(usage: dict[str, object]) -> Iterator[object]:
    """The token counts of a response's usage (or running totals), as written."""
    for key, value in usage.items():
        if key.endswith(("_tokens", "Tokens")):
            yield value
        elif key.endswith(("_details", "Details")):
            yield from _counts(as_dict(value))


def _usage(usage: dict[str, object], model: str | None) -> Usage:
    """One response's usage, input without cache reads and writes: Continue's Anthropic
    adapter writes them apart (`cache_read_tokens`), OpenAI's `cached_tokens` is inside
    the prompt count."""
    prompt, completion = _tokens(usage)
    details = as_dict(
        usage.get("prompt_tokens_details", usage.get("promptTokensDetails"))
    )
    output = as_dict(
        usage.get("completion_tokens_details", usage.get("completionTokensDetails"))
    )
    if "cache_read_tokens" in details or "cache_write_tokens" in details:
        read = _count(details.get("cache_read_tokens"))
        written = _count(details.get("cache_write_tokens"))
        given = prompt
    elif "cachedTokens" in details or "cacheWriteTokens" in details:
        read = _count(details.get("cachedTokens"))
        written = _count(details.get("cacheWriteTokens"))
        given = prompt
    else:
        read, written = _count(details.get("cached_tokens")), 0
        given = max(prompt - read, 0)
    reasoning = _count(output.get("reasoning_tokens", output.get("reasoningTokens")))
    counted = Usage(
        input_tokens=given,
        output_tokens=completion,
        cache_read_tokens=read,
        cache_write_tokens=written,
        reasoning_tokens=reasoning,
        model=stripped(usage.get("model")) or model,
    )
    return counted.plausible()


def _text(content: object) -> str | None:
    """A message's text: a string, or its text parts (an image as a note)."""
    if isinstance(content, str):
        return shown_text(content, keep_empty=False)
    parts: list[str] = []
    for raw in as_list(content):
        part = as_dict(raw)
        if part.get("type") == "text":
            text = shown_text(part.get("text"), keep_empty=False)
            if text:
                parts.append(text)
        elif part.get("type") == "imageUrl":
            parts.append("[image]")
    return "\n".join(parts) or None


def _loads(data: bytes) -> object:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


# --- resume ------------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`cn --resume` in the session's folder where its file is the one cn reopens (the
    newest), else `cn --fork <id>`: a new session with a copy of its history. Never
    `--auto`; `--readonly` for a chat kept in plan mode."""
    if resume_refusal(session) is not None or not session.cwd or not session.path:
        return None
    argv = ["cn"]
    notes: list[str] = []
    path = Path(session.path)
    opened = _opened_by_resume(path.parent)
    if opened is not None and opened.name == path.name:
        argv.append("--resume")
    else:
        argv += ["--fork", session.id]
        notes.append(_why_fork(path, opened))
    if session.permission_mode == "plan":
        argv.append("--readonly")
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="cn",
        install_hint="npm install -g @continuedev/cli",
        notes=tuple(notes),
    )


def resume_refusal(session: Session) -> str | None:
    """Why a chat of the IDE extension has no command-line resume."""
    if session.extra.get("origin") != "ide":
        return None
    fork = ""
    with contextlib.suppress(NotQuotable):  # no line that shell could take: not said
        fork = f"; `{shells.run(('cn', '--fork', session.id))}` would copy it into a new cn session"
    return (
        "this chat was written by Continue's VS Code or JetBrains extension, which "
        f"reopens it from its History view{fork}. {named('show', f'{session.app}:{session.id}')} reads it."
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `cn` has open, read back from the words `resume` writes: `--fork
    <id>` a new session (a copy, its id not known yet), `--resume` the newest session
    (cn's newest anywhere; its folder's, as the live status asks)."""
    resumed = False
    for word in args[1:]:
        if word == "--":
            break
        if word == "--fork" or word.startswith("--fork="):
            return Opened()
        resumed = resumed or word == "--resume"
    return Opened(latest=True) if resumed else None


@dataclass(frozen=True, slots=True)
class _Written:
    """A session file as `cn --resume` ranks it: its name and its time in whole ms."""

    name: str
    ms: int


def _opened_by_resume(folder: Path) -> _Written | None:
    """The session file `cn --resume` opens (session.ts, loadSession): the newest by
    `stat().mtime`, a Date, so whole milliseconds; among files written in the same
    millisecond (a copied home: all of them) the first in `fs.readdirSync`'s order, which
    libuv sorts by the names' bytes on Unix. `sessions.json` aside."""
    best: _Written | None = None
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.name.endswith(".json") or entry.name == INDEX:
                    continue
                if not entry.is_file():
                    continue
                written = _Written(entry.name, _date_ms(entry.stat().st_mtime_ns))
                if best is None or (-written.ms, os.fsencode(written.name)) < (
                    -best.ms,
                    os.fsencode(best.name),
                ):
                    best = written
    except OSError:
        return None
    return best


def _why_fork(path: Path, opened: _Written | None) -> str:
    """Why this session gets `--fork` rather than `--resume`."""
    copy = "--fork opens a copy of this one as a new session"
    if opened is None:
        return f"cn --resume opens only the newest session file; {copy}"
    other = one_line(opened.name.removesuffix(".json")) or "another"
    with contextlib.suppress(OSError):
        if _date_ms(path.stat().st_mtime_ns) == opened.ms:
            return (
                f"cn --resume would open {other}, written in the same millisecond as this "
                f"one (cn then takes the first by name); {copy}"
            )
    return f"cn --resume opens only the newest session, {other}; {copy}"


def _date_ms(mtime_ns: int) -> int:
    """A file time as Node's `stat().mtime` holds it: sec * 1e3 + nsec / 1e6 in a double,
    cut to whole milliseconds as a Date cuts it (toward zero)."""
    seconds, nanoseconds = divmod(mtime_ns, 1_000_000_000)
    return int(seconds * 1e3 + nanoseconds / 1e6)
