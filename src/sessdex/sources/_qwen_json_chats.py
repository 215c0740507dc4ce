"""Qwen Code 0.1.x's chats: `tmp/<sha256 of the project folder>/chats/session-*.json`.

Before 0.5 moved chats to `projects/<folder>/chats/<id>.jsonl`, Qwen wrote Gemini CLI's
one-file JSON chat (`_json_chat`), its model's messages typed `qwen`: `{sessionId, projectHash,
startTime, lastUpdated, messages}`, a message `{id, timestamp, type: user|qwen, content}`,
`content` one string (the prompt as sent, or the reply's text), a `qwen` one adding `thoughts`
(`[{subject, description, timestamp}]`), `tokens` (`{input, output, cached, thoughts, tool,
total}` or null) and `model`. Nothing else: no tool calls (the writer's method for them is
never called), no summary, info or error message, version, branch or path.

Qwen starts a file, `session-<UTC minute>-<the id's first 8 characters>.json`, for every chat
it sets up, all under the session's id: at the start, after /clear, after a compression, and
for each sub-agent run (written from its first message on; two set up in one minute share
it). A session's files are those that start with its id (`sessionId`, the first member), not
all whose names end alike: two ids may start with the same 8 characters. The first file by
name lists the session, the others are its companions; `read` shows the messages of all of
them in time order, a line naming the file wherever it changes (several files are read side
by side, a message at a time, none held whole). Left out: the `<system-reminder>` notes
before a prompt's text (`_gemini_messages`). Qwen wrote no turn end: a reply with text ends
its turn when a prompt comes next, in its file and in time, or nothing does. Usage: each
`qwen` message's `tokens`, as Gemini's are counted; a response that only called tools kept
none (the next one's replaced them before they were written).

`show --tail` of a session of one file (the common case) reads only its last messages, found
from the file's end as Gemini's are (`last_events`; a 64 MB chat: 5.6 ms of CPU instead of
1.5 s). A session of several files is read whole: a message's place in the merged order is
the latest time its file held up to it (so every earlier message of the file counts), and
whether a file is entered for the first time (`continued in`) or again (`back in`) depends
on the whole merge; neither the newest file nor any file's end says them.
"""

from __future__ import annotations

import heapq
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .. import folders, freshness
from ..diagnostics import Diagnostics
from ..hints import named
from ..model import Event, JSONValue, Session
from . import _gemini_messages as messages
from . import _json_chat as json_chat
from . import _qwen_folders as folders_of
from ._values import Emitter, iso_time, type_tag
from .base import WholeRead

APP = "qwen"
TYPES = ("user", "qwen")  # all that 0.1.x's writer was ever asked to record
FILES_READ = 64  # files of one session that are read, the first ones by name
# `session-<minute>-<the id's first characters>.json`: those characters name its session
_NAME = re.compile(r"^session-.+-([^-]+)\.json$")


def is_chat(path: Path) -> bool:
    """Whether `path` is one of these chats (by its place and name)."""
    return path.parent.name == "chats" and _NAME.match(path.name) is not None


def files_of(path: Path) -> list[Path]:
    """The files of `path`'s session (those that start with its id), the first by name
    (the session's start) first."""
    if _NAME.match(path.name) is None:
        return []
    names = _grouping(str(path.parent)).sessions.get(path.name, ())
    return [path.parent / name for name in names[:FILES_READ]]


def companion_of(path: str) -> str | None:
    """The first file of the session a later file of it belongs to, else None."""
    folder, name = os.path.split(path)
    found = _NAME.match(name)
    if os.path.basename(folder) != "chats" or found is None:
        return None
    grouping = _grouping(folder)
    group = grouping.sessions.get(name)
    # a file gone (the index asks whose it was) took its id along: the first file left
    # whose name ends alike
    first = group[0] if group else grouping.firsts.get(found.group(1), name)
    return os.path.join(folder, first) if first != name else None


@dataclass(frozen=True, slots=True)
class _Grouping:
    """A chats folder's files by session, as listed."""

    mtime: int  # the folder's, as it was listed
    until: int | None  # trusted until then, or for as long as the mtime stays
    sessions: dict[str, tuple[str, ...]]  # each chat's name -> its session's, sorted
    firsts: dict[str, str]  # the characters names end with -> the first name ending so


# Chat folders as last grouped. Listing asks for the group of every file (`sessions`, and the
# index's `companion_of`): a folder of 3,000 chats is listed once, not 3,000 times.
_GROUPINGS: dict[str, _Grouping] = {}
_GROUPINGS_KEPT = 16  # folders


def _grouping(folder: str) -> _Grouping:
    """`folder`'s chats by session, listed again only when the folder has changed."""
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return _Grouping(freshness.MISSING, 0, {}, {})
    now = time.time_ns()
    kept = _GROUPINGS.get(folder)
    if kept and kept.mtime == mtime and (kept.until is None or now < kept.until):
        return kept
    # a change in the listing's own timestamp tick leaves the mtime as it was (see
    # `freshness`), and a chat being rewritten may not start with its id yet: a folder or
    # chat changed so close to the listing is trusted a while only
    grouping = _grouped(folder, mtime, now)
    _GROUPINGS.pop(folder, None)
    _GROUPINGS[folder] = grouping
    for stale in list(_GROUPINGS)[:-_GROUPINGS_KEPT]:
        _GROUPINGS.pop(stale, None)
    return grouping


def _grouped(folder: str, mtime: int, now: int) -> _Grouping:
    """The folder's chats grouped by the id each starts with (one that starts with none, cut
    short or not written so, is a session of its own)."""
    by_session: dict[tuple[str, str], list[str]] = {}
    firsts: dict[str, str] = {}
    settled = mtime < now - freshness.RACY_NS
    for entry in folders.listing(folder):
        if not ((found := _NAME.match(entry.name)) and folders.file_entry(entry)):
            continue
        session_id = json_chat.first_id(entry.path)
        if session_id is None:
            settled = settled and _settled(entry, now)
        key = ("id", session_id) if session_id else ("file", entry.name)
        by_session.setdefault(key, []).append(entry.name)
        firsts.setdefault(found.group(1), entry.name)
    return _Grouping(
        mtime,
        None if settled else now + freshness.RACY_NS,
        {name: group for group in map(tuple, by_session.values()) for name in group},
        firsts,
    )


def _settled(entry: os.DirEntry[str], now: int) -> bool:
    """Whether a file was last written long enough ago not to be being written now."""
    try:
        return entry.stat().st_mtime_ns < now - freshness.RACY_NS
    except OSError:
        return True  # gone: nothing to wait for


def sessions(
    path: Path, root: Path, config: Path, diagnostics: Diagnostics
) -> list[Session]:
    """The session whose first file `path` is (nothing for a later file): its id and
    title from the first, its times over all of them; its folder, the one whose sha256
    names `tmp/<sha256>/` (`_qwen_folders`)."""
    group = files_of(path) or [path]
    if group[0].name != path.name:
        return []  # a later file: the first one lists the session
    found: list[json_chat.Listing] = []
    size = 0
    for file in group:
        try:
            file_size = file.stat().st_size
        except OSError:
            diagnostics.skip(str(file), 0, "vanished")
            continue
        listing = json_chat.listing(file, file_size, diagnostics, APP)
        if listing is None or (found and listing.session_id != found[0].session_id):
            continue  # broken (counted), or naming another id than it starts with
        found.append(listing)
        size += file_size
    if not found:
        return []
    started = [f.started for f in found if f.started is not None]
    updated = [f.updated for f in found if f.updated is not None]
    extra: dict[str, JSONValue] = {"format": "json"}
    if len(found) > 1:
        extra["chat_files"] = len(found)
    return [
        Session(
            app=APP,
            id=found[0].session_id,
            path=str(path),
            cwd=folders_of.folder(root, path.parent.parent, config),
            title=next((f.prompt for f in found if f.prompt), None),
            created=min(started, default=None),
            updated=max(updated, default=None),
            model=next((f.model for f in reversed(found) if f.model), None),
            bytes=size,
            extra=extra,
        )
    ]


# Bytes of each file held between its messages while a session's files are merged. All of
# them are open at once (each one's next message decides the order), so a session of many
# files costs a small buffer and a message or two a file, where parsing each whole held
# every document of the session at once.
_MERGE_CHUNK = 16 * 1024

# One message in the merged order: (its time or its file's last time before it, the file's
# place in the group, its place in the file, the message, whether its turn ends with it).
_Timed = tuple[float, int, int, dict[str, object], bool]


def events(session: Session, diagnostics: Diagnostics) -> Iterator[Event]:
    """The messages of all the session's files in time order (a file's own order kept)."""
    if not session.path:
        return
    group = files_of(Path(session.path)) or [Path(session.path)]
    emit = Emitter(session.id)
    chat = messages.Chat(None, session.id, model_type="qwen", turn_ends=False)
    chunk = (
        _MERGE_CHUNK if len(group) > 1 else None
    )  # one file: parsed whole if it fits
    timed = (
        _timed(n, file, session.id, diagnostics, chunk) for n, file in enumerate(group)
    )
    current, entered = 0, {0}
    # the reply just shown ends its turn if a prompt comes next (not a sub-agent's run)
    ends_turn = False
    replied: datetime | None = None
    for _, index, _, message, ends in heapq.merge(*timed, key=lambda t: t[:3]):
        when = iso_time(message.get("timestamp"), naive="local")
        if ends_turn and message.get("type") == "user":
            yield emit("turn_end", replied)
        if index != current:
            name = group[index].name
            text = (
                f"back in chat file {name}"
                if index in entered
                else f"continued in chat file {name} (Qwen 0.1.x starts one after "
                "/clear, after a compression, and for each sub-agent run)"
            )
            current = index
            entered.add(index)
            yield emit("meta", when, text=text, extra={"chat_file": name})
        yield from messages.item_events(messages.Item("message", message), chat, emit)
        ends_turn, replied = ends, when
    if ends_turn:
        yield emit("turn_end", replied)


def last_events(
    session: Session, diagnostics: Diagnostics, rows: int
) -> Iterator[Event]:
    """`events` of only the last `rows` messages of a session kept in one chat file (see
    base.py's `read_last`), found from the file's end (`json_chat.last_messages`): the
    message before them is translated too, unshown, for whether a reply ended its turn
    and for the call ids it answered. A session of several files is read whole: where its
    last messages fall in the merged order depends on each file's earlier times (a message
    is placed by the latest time its file held up to it) and on which files were entered
    before (`continued in` or `back in`), none of which a file's end says."""
    path = Path(session.path or "")
    group = files_of(path) or [path]
    if len(group) > 1:
        raise WholeRead("its chat files are merged by time from their starts")
    if json_chat.first_id(path) != session.id:
        raise WholeRead("another session's file, or none")  # the whole read says it
    found = json_chat.last_messages(path, rows + 1, compact=True)
    if found is None:
        raise WholeRead("not laid out to be read from its end, or no longer than that")
    known: list[dict[str, object]] = []
    for index, message in enumerate(found):
        if type_tag(message.get("type")) in TYPES:
            known.append(message)
        elif index == 0:  # the message before the rows is to be one `events` gives
            raise WholeRead("the message before the rows is of an unknown type")
        else:
            diagnostics.unknown_type(f"message:{message.get('type')}")
    chat = messages.Chat(None, session.id, model_type="qwen", turn_ends=False)
    unshown = Emitter(session.id)
    for _ in messages.item_events(messages.Item("message", known[0]), chat, unshown):
        pass
    emit = Emitter(session.id)
    ends_turn = _ends(known[0], known[1] if len(known) > 1 else None)
    replied = iso_time(known[0].get("timestamp"), naive="local")
    for number, message in enumerate(known[1:], start=1):
        when = iso_time(message.get("timestamp"), naive="local")
        if ends_turn and message.get("type") == "user":
            yield emit("turn_end", replied)
        yield from messages.item_events(messages.Item("message", message), chat, emit)
        following = known[number + 1] if number + 1 < len(known) else None
        ends_turn, replied = _ends(message, following), when
    if ends_turn:
        yield emit("turn_end", replied)


def _timed(
    index: int,
    path: Path,
    session_id: str,
    diagnostics: Diagnostics,
    chunk: int | None,
) -> Iterator[_Timed]:
    """One file's messages, each with its place in the merged order (read `chunk` bytes
    at a time, when given)."""
    if not path.is_file():
        diagnostics.problem(f"{APP}: {path} vanished before it could be read")
        return
    found_id, found = json_chat.read(path, diagnostics, APP, TYPES, chunk=chunk)
    if found_id is not None and found_id != session_id:
        return  # another session's (the session was listed before the folder changed)
    held: tuple[float, int, dict[str, object]] | None = None
    latest = float("-inf")
    for number, message in enumerate(found):
        if held is not None:
            yield (held[0], index, held[1], held[2], _ends(held[2], message))
        moment = iso_time(message.get("timestamp"), naive="local")
        latest = max(latest, moment.timestamp()) if moment else latest
        held = (latest, number, message)
    if held is not None:
        yield (held[0], index, held[1], held[2], _ends(held[2], None))


def _ends(message: dict[str, object], following: dict[str, object] | None) -> bool:
    """Whether a message is the reply that ends its turn: one with text, followed in its
    file by a prompt or by nothing."""
    return (
        message.get("type") == "qwen"
        and messages.content_text(message.get("content")) is not None
        and (following is None or following.get("type") == "user")
    )


def refusal(session: Session) -> str:
    """Why `resume` gives no command for a 0.1.x chat file."""
    return (
        "Qwen Code 0.1.x kept this session as one JSON file (tmp/<hash>/chats/session-*.json), "
        "and no Qwen release reopens it: 0.1.x had no --resume, and 0.5 and later resume only "
        f"the chats under projects/. {named('show', f'{session.app}:{session.id}')} shows it."
    )
