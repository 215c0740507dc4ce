"""GitHub Copilot CLI's first session files: `history-session-state/<file>.json` (to 0.0.341).

Until 0.0.342 (2025-10-15) Copilot CLI kept each session as one JSON document in
`~/.copilot/history-session-state/`, rewritten whole: `sessionId`, `startTime`, `chatMessages`
(the conversation as the model saw it, in OpenAI chat-completions form: `user`, `assistant`
with `tool_calls[{id, function{name, arguments}}]`, `tool` with `tool_call_id`, `system`) and
`timeline` (what the terminal showed, read here only for its times). 0.0.342 writes new
sessions to `session-state/` and converts one of these only when it is resumed, so both can
hold one session: the newer file wins. No folder, model or token count was recorded, and the
messages carry no time: each event is dated at the session's start, marked as a guess. A
document over _WHOLE is read in pieces (`jsonstream`): its other members past the two arrays,
then one message (or timeline entry) at a time.

Shapes from Copilot CLI's changelog (0.0.342) and third-party readers of these files; no
real file was seen here (Low confidence).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, Session
from ._values import (
    Emitter,
    as_dict,
    as_str,
    dicts,
    epoch_or_iso_time,
    file_size,
    one_line,
    shown_arguments,
    shown_text,
)

NAME = "copilot"
FOLDER = "history-session-state"
_WHOLE = files.WHOLE_JSON_CAP  # a bigger document is read in pieces
_ARRAYS = frozenset({"chatMessages", "timeline"})


def parse(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """The session one legacy document holds."""
    loaded = _load(path, diagnostics)
    if loaded is None:
        return []
    document = loaded.top
    first_prompt = next(
        (
            t
            for m in loaded.items("chatMessages")
            if m.get("role") == "user" and (t := _text(m))
        ),
        None,
    )
    created = epoch_or_iso_time(document.get("startTime"))
    times = [
        moment
        for entry in loaded.items("timeline")
        if (moment := epoch_or_iso_time(entry.get("timestamp"))) is not None
    ]
    ended = epoch_or_iso_time(document.get("endTime"))
    return [
        Session(
            app=NAME,
            id=as_str(document.get("sessionId")) or path.stem,
            path=str(path),
            title=one_line(first_prompt, limit=None),
            created=created,
            updated=max(
                [t for t in (*times, ended, created) if t is not None], default=None
            ),
            bytes=file_size(path) or None,
            precedence=0,  # the converted session-state/ file says more
            extra={"store": FOLDER},
        )
    ]


def read(session: Session, diagnostics: Diagnostics) -> Iterator[Event]:
    """The conversation of one legacy document, in order."""
    if not session.path:
        return
    loaded = _load(Path(session.path), diagnostics)
    if loaded is None:
        return
    emit = Emitter(session.id)
    when: datetime | None = epoch_or_iso_time(loaded.top.get("startTime"))
    names: dict[str, str] = {}  # tool call id -> tool name
    for message in loaded.items("chatMessages"):
        role = message.get("role")
        text = _text(message)
        if role == "user" and text:
            yield emit("user", when, estimated=True, text=text)
        elif role == "assistant":
            if text:
                yield emit("assistant", when, estimated=True, text=text)
            for call in dicts(message, "tool_calls"):
                function = as_dict(call.get("function"))
                call_id = as_str(call.get("id"))
                tool = as_str(function.get("name"))
                if call_id and tool:
                    names[call_id] = tool
                yield emit(
                    "tool_call", when, estimated=True, tool=tool, call_id=call_id,
                    extra={"input": shown_arguments(function.get("arguments"))},
                )  # fmt: skip
        elif role == "tool":
            call_id = as_str(message.get("tool_call_id"))
            yield emit(
                "tool_result", when, estimated=True, text=text, call_id=call_id,
                tool=names.get(call_id or "") or as_str(message.get("name")),
            )  # fmt: skip
        elif role not in ("system", "developer", "user"):
            diagnostics.unknown_type(role if isinstance(role, str) else "<no role>")


class _Document(NamedTuple):
    top: dict[str, object]  # every member but the two arrays
    items: Callable[[str], Iterator[dict[str, object]]]  # an array's objects, read anew


def _load(path: Path, diagnostics: Diagnostics) -> _Document | None:
    """The document at `path`, whole when small, else in pieces; None (counted as
    skipped) where it is no session document."""
    try:
        size = path.stat().st_size
    except OSError:
        diagnostics.skip(str(path), 1, "vanished")
        return None
    if size > _WHOLE:
        return _load_in_pieces(path, diagnostics)
    document = files.read_json_file(path, limit=_WHOLE, diagnostics=diagnostics)
    if document is None and files.say_if_refused(NAME, path, diagnostics):
        # another user's: unread
        return None
    if not isinstance(document, dict) or not isinstance(
        document.get("chatMessages"), list
    ):
        reason = "not JSON" if document is None else "bad value"
        diagnostics.skip(str(path), 1, reason if path.exists() else "vanished")
        return None
    return _Document(document, lambda key: iter(dicts(document, key)))


def _load_in_pieces(path: Path, diagnostics: Diagnostics) -> _Document | None:
    from ..jsonstream import file_items, file_members

    top = file_members(path, _ARRAYS, diagnostics, NAME)
    if top is None:
        if not files.refuses_reading(str(path)):  # refused: file_members said so
            diagnostics.skip(str(path), 1, "not JSON")
        return None

    def items(key: str) -> Iterator[dict[str, object]]:
        # the timeline gives times only: one missing or cut short is no problem to report
        said = diagnostics if key == "chatMessages" else Diagnostics()
        for item in file_items(path, key, said, NAME):
            if isinstance(item, dict):
                yield item

    return _Document(top, items)


def _text(message: dict[str, object]) -> str | None:
    """A message's text: a string, or the text parts of a content list."""
    content = message.get("content")
    if isinstance(content, list):
        parts = [
            as_str(as_dict(p).get("text"))
            for p in content
            if as_dict(p).get("type") == "text"
        ]
        content = "\n".join(p for p in parts if p)
    return shown_text(content, keep_empty=False)
