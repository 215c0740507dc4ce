"""The prompt log Gemini CLI and its fork Qwen Code keep per project: `tmp/<project>/logs.json`.

Both apps append every prompt typed in any session of the project to one JSON array,
`[{sessionId, messageId, timestamp, type: "user", message}]` (their Logger, for the up-arrow
history), rewritten whole. Most sessions it names also have a chat file, which says
everything the log does and more; the log alone knows the sessions of releases that recorded
no chats yet and those whose chat was deleted. Each session it names is listed as a fragment
of the lowest precedence (a chat file's fragment of the same id wins every field), at
`<log>#<session id>`; read alone it is its prompts, as typed, after a line saying why there
is nothing else. A log over WHOLE bytes is read one entry at a time (`jsonstream`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from .. import files, folders
from ..diagnostics import FILE_REFUSED, WIDE_TEXT, Diagnostics
from ..hints import named
from ..model import Event, JSONValue, Session
from ._values import Emitter, iso_time, one_line, plain, text_of

if TYPE_CHECKING:
    from ..jsonstream import Cursor

FILE_NAME = "logs.json"
WHOLE = 16 * 1024 * 1024  # a bigger prompt log is read one entry at a time


def entries(
    path: Path,
    size: int,
    diagnostics: Diagnostics,
    app: str,
    cursor: Cursor | None = None,
) -> Iterator[dict[str, object]]:
    """The log's entries that name a session, whole when small, else one at a time
    (`cursor` then says where each starts)."""
    found: Iterable[object]
    if size > WHOLE:
        from ..jsonstream import file_items

        found = file_items(path, None, diagnostics, app, cursor=cursor)
    else:
        document = files.read_json_file(path, limit=WHOLE, diagnostics=diagnostics)
        if not isinstance(document, list):
            if path.exists():
                reason = "not JSON" if document is None else "bad value"
                diagnostics.skip(str(path), 1, reason)
            return
        found = document
    for entry in found:
        if isinstance(entry, dict) and text_of(entry, "sessionId"):
            yield entry


@dataclass(slots=True)
class _Prompts:
    """What the log says of one session."""

    first: datetime | None = None
    last: datetime | None = None
    title: str | None = None


def sessions(
    path: Path,
    diagnostics: Diagnostics,
    app: str,
    cwd: str | None,
    extra: dict[str, JSONValue],
) -> list[Session]:
    """One prompt-only fragment per session the log names: titled by its first prompt that
    is no slash command, timed by its prompts."""
    try:
        size = path.stat().st_size
    except OSError:
        diagnostics.skip(str(path), 0, "vanished")
        return []
    found: dict[str, _Prompts] = {}
    cursor: Cursor | None = None
    if size > WHOLE:  # read one entry at a time: where each starts is known
        from ..jsonstream import Cursor

        cursor = Cursor()
    for entry in entries(path, size, diagnostics, app, cursor):
        prompts = found.setdefault(str(entry["sessionId"]), _Prompts())
        when = iso_time(entry.get("timestamp"))
        if when is not None:
            prompts.first = min(prompts.first or when, when)
            prompts.last = max(prompts.last or when, when)
        message = text_of(entry, "message")
        if prompts.title is None and cursor and message and files.elided(message):
            message = _opening_message(path, cursor.start)
        if prompts.title is None and _titles(message):
            prompts.title = one_line(message)
    return [
        Session(
            app=app,
            id=session_id,
            path=f"{path}#{session_id}",
            cwd=cwd,
            title=prompts.title,
            created=prompts.first,
            updated=prompts.last,
            precedence=-1,  # a chat file of the same session says everything this does
            extra=dict(extra),  # each session its own
        )
        for session_id, prompts in found.items()
    ]


def _opening_message(path: Path, start: int) -> str | None:
    """The start of a prompt too long to keep (its text elided as the log was read one
    entry at a time): its entry's first bytes (files.OPENING), read alone and closed up
    as JSON, its message cut where they end (`files.closed_opening`)."""
    if start < 0:
        return None
    try:
        with files.open_binary(path) as stream:
            stream.seek(start)
            opening = stream.read(files.OPENING)
    except OSError:
        return None
    closed = files.closed_opening(opening)
    try:
        found = files.loads(closed) if closed else None
    except orjson.JSONDecodeError:
        return None
    return text_of(found, "message") if isinstance(found, dict) else None


def _titles(message: str | None) -> bool:
    """Whether a prompt may title its session: not a slash command, nor the note of a
    prompt too long to keep (a paste read in pieces, `jsonstream`)."""
    if not message or message.startswith(("/", "?")):
        return False
    return files.elided(message) is None


def log_of(session: Session) -> Path | None:
    """The prompt log a session was listed from alone (`<log>#<id>`), else None."""
    where, mark, _ = (session.path or "").rpartition("#")
    return Path(where) if mark and where.endswith(FILE_NAME) else None


def unread_chat(chats: Iterable[Path]) -> str | None:
    """`<path> (<reason>)` of the first of `chats` (where the app keeps the session's
    chat file) that is there but could not be read: re-saved as UTF-16, a pipe or a
    folder in its place, one we may not open. None where none is there."""
    for path in chats:
        why = _why_unread(path)
        if why is not None:
            return f"{folders.shown(path)} ({why})"
    return None


def _why_unread(path: Path) -> str | None:
    odd = folders.odd_at(path)
    if odd is not None:
        return odd
    try:
        with files.open_regular(path):
            pass
    except PermissionError:
        return FILE_REFUSED
    except OSError:  # not there
        return None
    return WIDE_TEXT if files.wide_text(path) else None


def refusal(session: Session, program: str, chats: Iterable[Path] = ()) -> str | None:
    """Why there is no resume command for a session only the log holds, else None."""
    if log_of(session) is None:
        return None
    unread = unread_chat(chats)
    if unread is not None:
        return (
            f"only this session's prompts could be read (the prompt log); {program} "
            f"--resume needs its chat file, and sessdex could not read {unread}."
        )
    return (
        f"only this session's prompts are left (the prompt log); {program} --resume needs "
        f"its chat file, which was never written or was deleted: {named('show', f'{session.app}:{session.id}')} shows them."
    )


def events(
    session: Session, diagnostics: Diagnostics, app: str, chats: Iterable[Path] = ()
) -> Iterator[Event]:
    """The session's prompts, as typed: all the log holds of it. `chats`: where the app
    keeps the session's chat file, named where one is there that could not be read."""
    path = log_of(session)
    if path is None:
        return
    unread = unread_chat(chats)
    if unread is not None:  # there, not gone: named, in full, where a line is cut
        diagnostics.problem(
            f"{app}: could not read {unread}, the chat file of session {session.id}: "
            "only its prompts are shown (the prompt log)"
        )
    why = (
        "; its chat file could not be read"
        if unread
        else ", and no chat file this session's replies"
    )
    try:
        size = path.stat().st_size
    except OSError:
        diagnostics.problem(f"{app}: {path} vanished")
        return
    emit = Emitter(session.id)
    said = False
    for entry in entries(path, size, diagnostics, app):
        if entry["sessionId"] == session.id and (text := text_of(entry, "message")):
            when = iso_time(entry.get("timestamp"))
            if not said:  # why there are no replies, once, before the first prompt
                said = True
                yield emit(
                    "meta",
                    when,
                    text=f"only the prompts are left: the app's prompt log holds them{why}",
                    extra={"prompts_only": True},
                )
            yield emit("user", when, text=plain(text))
