"""The one-file JSON chat of Gemini CLI before 0.40 and of Qwen Code before 0.5.

`{sessionId, projectHash, startTime, lastUpdated, messages, summary?}`, laid out by
JSON.stringify(chat, null, 2) and rewritten whole on every message. Read here: what a listing
needs of one (its top-level members, first prompt and last model; from its first and last
bytes when it is too big to parse) and its messages, parsed whole or, past READ_LIMIT, one at
a time (`jsonstream`). Not a translator: `_gemini_messages` makes events of the messages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from pathlib import Path

import orjson

from .. import files
from ..diagnostics import Diagnostics
from . import _gemini_messages as messages
from . import _hashed_folders as hashed
from ._values import dicts, file_size, iso_time, one_line, text_of, type_tag

LIST_LIMIT = 16 * 1024 * 1024  # a bigger chat is listed from its ends
READ_LIMIT = files.WHOLE_JSON_CAP  # ...and read one message at a time past this
_ENDS = 256 * 1024  # bytes read at either end of a chat too big to list whole

# A top-level member of a chat written with JSON.stringify(chat, null, 2): at the start of a
# line, indented two spaces (a string's own newlines are escaped, so only the document's
# structure starts a line).
_TOP_MEMBER = re.compile(
    rb'^  "(sessionId|projectHash|startTime|lastUpdated|summary|kind)": ("(?:[^"\\\n]|\\.)*")',
    re.MULTILINE,
)
# The session id as these apps write it, the document's first member: its first bytes hold it.
_FIRST_ID = re.compile(rb'\A\s*\{\s*"sessionId"\s*:\s*("(?:[^"\\\n]|\\.)*")')
_HEAD = 4096  # bytes read for it


@dataclass(frozen=True, slots=True)
class Listing:
    """What one chat file says for a listing."""

    session_id: str
    project_hash: str | None
    started: datetime | None
    updated: datetime | None
    summary: str | None
    prompt: str | None  # the first typed prompt that may title it
    model: str | None  # the last model message's
    tool_paths: tuple[
        str, ...
    ]  # absolute paths its tool calls took (as many as are tried)


def listing(path: Path, size: int, diagnostics: Diagnostics) -> Listing | None:
    """The chat's listing; None (counted) when it is not a chat as these apps write it."""
    document: object
    if size > LIST_LIMIT:
        document = ends(path)
        if document is None:
            diagnostics.skip(str(path), 1, "too long")
            return None
    else:
        document = files.read_json_file(path, limit=LIST_LIMIT)
    session_id = text_of(document, "sessionId")
    if not isinstance(document, dict) or not session_id:
        diagnostics.skip(str(path), 1, "not JSON" if document is None else "bad value")
        return None
    found = dicts(document, "messages")
    project_hash = document.get("projectHash")
    return Listing(
        session_id=session_id,
        project_hash=project_hash if isinstance(project_hash, str) else None,
        started=iso_time(document.get("startTime"), naive="local"),
        updated=iso_time(document.get("lastUpdated"), naive="local"),
        summary=one_line(text_of(document, "summary")),
        prompt=one_line(
            next(
                (
                    t
                    for m in found
                    if m.get("type") == "user" and (t := messages.title_text(m))
                ),
                None,
            )
        ),
        model=next(
            (m for m in (text_of(x, "model") for x in reversed(found)) if m), None
        ),
        tool_paths=tuple(islice(hashed.tool_paths(found), hashed.PATHS_TRIED)),
    )


def ends(path: Path) -> dict[str, object] | None:
    """The top-level members of a chat too big to parse, from its first and last bytes
    (the messages between are left unread); None if it is not laid out as these apps
    write it."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(_ENDS)
            stream.seek(max(len(head), stream.seek(0, 2) - _ENDS))
            tail = stream.read(_ENDS)
    except OSError:
        return None
    if not head.startswith(b"{\n"):
        return None
    found: dict[str, object] = {}
    for block in (head, tail):
        for match in _TOP_MEMBER.finditer(block):
            try:
                found[match.group(1).decode()] = orjson.loads(match.group(2))
            except orjson.JSONDecodeError:
                continue
    return found if isinstance(found.get("sessionId"), str) else None


def first_id(path: str | os.PathLike[str]) -> str | None:
    """The session id a chat names first, from its first bytes; None where it does not
    start with one (not written so, unreadable, gone)."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(_HEAD).removeprefix(files.BOM)
    except OSError:
        return None
    found = _FIRST_ID.match(head)
    if found is None:
        return None
    try:
        value = orjson.loads(found.group(1))
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) and value else None


def read(
    path: Path,
    diagnostics: Diagnostics,
    app: str,
    types: tuple[str, ...],
    *,
    chunk: int | None = None,
) -> tuple[str | None, Iterable[dict[str, object]]]:
    """The chat's session id and its messages of the known `types`, in order; messages of
    other types are counted. Lazy past READ_LIMIT, or whatever its size when `chunk` is
    given: one message at a time, the file read `chunk` bytes at a time."""
    if chunk is not None:
        return first_id(path), _streamed(path, diagnostics, app, types, chunk)
    if file_size(path) > READ_LIMIT:
        top = ends(path) or {}
        return text_of(top, "sessionId"), _streamed(path, diagnostics, app, types, None)
    document = files.read_json_file(path, limit=READ_LIMIT)
    if not isinstance(document, dict):
        diagnostics.skip(str(path), 1, "not JSON")
    found = []
    for message in dicts(document, "messages"):
        if type_tag(message.get("type")) in types:
            found.append(message)
        else:
            diagnostics.unknown_type(f"message:{message.get('type')}")
    return text_of(document, "sessionId"), found


def _streamed(
    path: Path,
    diagnostics: Diagnostics,
    app: str,
    types: tuple[str, ...],
    chunk: int | None,
) -> Iterator[dict[str, object]]:
    from ..jsonstream import file_items

    for message in file_items(path, "messages", diagnostics, app, chunk=chunk):
        if not isinstance(message, dict):
            diagnostics.skip(str(path), 0, "not an object")
        elif type_tag(message.get("type")) not in types:
            diagnostics.unknown_type(f"message:{message.get('type')}")
        else:
            yield message
