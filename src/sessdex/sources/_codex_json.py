"""Codex CLI's first sessions: the TypeScript CLI's one-document `.json` rollouts (2025).

Before the Rust rewrite, codex-cli (npm 0.1.2504xxxx and after) kept each conversation as
one JSON document, rewritten whole at every new item, flat in `~/.codex/sessions/`:
`{"session": {"timestamp", "id", "instructions"[, "responseId"]}, "items": [...]}`, the
items being Responses API items, the shapes the bare-era rollouts later wrote one per line.
The file was named `rollout-<date>-<uuid>.json` at first, later `<uuid>.json` and, for the
copy saved with the last response id, `<uuid without dashes>.json`. No folder,
model, token counts or per-item times were recorded; `timestamp` is the last save's time.
Today's `codex resume` does not open these files: they have no resume command.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from .. import files, folders
from ..diagnostics import Diagnostics
from ..jsonstream import file_items, file_members
from ..model import Event, Session
from ._codex_read import _Finder, _Reader
from ._codex_values import (
    as_str,
    message_text,
    one_line,
    parse_time,
)
from ._values import renumber

# the session ids: a UUID, or (the agent loop's own) a UUID without its dashes
_ID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}"
_NAME = re.compile(rf"(?:rollout-\d{{4}}-\d{{2}}-\d{{2}}-)?(?:{_ID})\.json")
NAME = "codex"
FORMAT = "json"  # extra["format"] of such a session


def is_session_file(path: str) -> bool:
    """Whether `path` is one of these documents: its name, directly in `sessions/`."""
    return (
        _NAME.fullmatch(os.path.basename(path)) is not None
        and os.path.basename(os.path.dirname(path)) == "sessions"
    )


def session_files(sessions: Path, root: Path) -> Iterator[str]:
    """The documents in `sessions/` itself (the TypeScript CLI wrote no date folders)."""
    for entry in folders.entries(sessions, root):
        if _NAME.fullmatch(entry.name) and folders.file_entry(entry):
            yield entry.path


def _session(path: str, diagnostics: Diagnostics) -> dict[str, object] | None:
    """The document's `session` member, or None where the file is not such a document.
    Read in pieces (`jsonstream`): the items are walked past, not decoded."""
    members = file_members(path, frozenset({"items"}), diagnostics, NAME)
    if members is None:
        return None
    session = members.get("session")
    if not isinstance(session, dict) or not as_str(session.get("id")):
        diagnostics.skip(path, 1, "bad value")
        return None
    return session


def _items(path: str, diagnostics: Diagnostics) -> Iterator[dict[str, object]]:
    """The document's items, decoded one at a time (a pasted image elided, as in a line)."""
    for number, item in enumerate(file_items(path, "items", diagnostics, NAME), 1):
        if isinstance(item, dict):
            yield item
        else:
            diagnostics.skip(path, number, "not an object")


def parse(path: str, diagnostics: Diagnostics) -> list[Session]:
    """The session one document lists: its id, its first prompt, its last save."""
    session = _session(path, diagnostics)
    if session is None:
        return []
    prompt = next(
        (
            text
            for item in _items(path, diagnostics)
            if item.get("type") == "message"
            and item.get("role") == "user"
            and (text := message_text(item)[0])
        ),
        None,
    )
    try:
        size = os.path.getsize(path)
    except OSError:
        size = None
    return [
        Session(
            app=NAME,
            id=str(session["id"]),
            path=path,
            title=one_line(prompt),
            updated=parse_time(session.get("timestamp")),
            bytes=size,
            extra={"format": FORMAT},
        )
    ]


class _DocumentReader(_Reader):
    """The rollout reader fed a document's items, as the bare era's lines: line 1 the
    `session` member ({id, timestamp, instructions}), then one item per line."""

    def _records(
        self,
        path: Path,
        offset: int = 0,
        unread: Callable[[bytes], bool] | None = None,  # no such lines: no event_msg
    ) -> Iterator[tuple[files.Line, dict[str, object]]]:
        name = str(path)
        session = _session(name, self.diagnostics)
        if session is None:
            return
        yield files.Line(1, 0, b"", 0, True), session
        for number, item in enumerate(_items(name, self.diagnostics), start=2):
            yield files.Line(number, 0, b"", 0, True), item

    def _load_meta(self) -> None:
        return None  # the `session` member comes as line 1; no lineage in these files


def read_events(
    session: Session, path: Path, diagnostics: Diagnostics, *, full: bool = False
) -> Iterator[Event]:
    """The document's events, in its order (no times: none were recorded)."""
    reader = _DocumentReader(
        path, session.id, None, diagnostics, _Finder(None, None), full=full
    )
    for seq, event in enumerate(reader.events()):
        yield renumber(event, seq)
