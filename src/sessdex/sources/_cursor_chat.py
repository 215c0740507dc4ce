"""The Cursor IDE's old Chat panel: each workspace's `state.vscdb`, `ItemTable` key
`workbench.panel.aichat.view.aichat.chatdata`. Translation only: `_cursor_ide` reads the value.

No real capture here; the shape is what five public readers of it rely on (mid-2024 to
early 2025, see tests/data/cursor/PROVENANCE.md): `{tabs: [{tabId, chatTitle, lastSendTime
(epoch ms), bubbles}]}`, a bubble `{type: "user" | "ai", text, …}`. An answer holds its words
in `text` or `rawText` and its model in `modelType`. A prompt holds them in `text`, before an
update at the end of August 2024 in `delegate.a`, or as Lexical JSON in `initText`, with the
code `selections` (`text`, `uri`, `range`), `fileSelections`, `folderSelections` and an
`image` it was sent with. Types 1 and 2 and "assistant", bubble times (`timestamp`,
`createdAt`) and words in `content` are accepted as hedging readers accept them, though no
reader shows them here. Cursor stopped writing here when chats moved to the Composer store
(a reader found new chats missing in January 2025); old tabs stay.

Each tab is one session in the workspace's folder. A tab that is not an object with a
`tabId` and a list of `bubbles` is skipped and counted; a bubble of another type is counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Literal

import orjson

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, JSONValue, Session
from ._values import (
    Emitter,
    as_int,
    as_str,
    dicts,
    epoch_time,
    first_line,
    iso_time,
    items,
    obj,
    one_line,
    shown_text,
    text_of,
    type_tag,
)

KEY = "workbench.panel.aichat.view.aichat.chatdata"
PREFIX = "chat/"  # a tab's session path: `<store>#chat/<tabId>`
PANEL = "chat"  # extra["panel"] of a tab's session
_DEFAULT_NAMES = frozenset({"New Chat"})  # Cursor's placeholder elsewhere: not a title
Role = Literal["user", "assistant"]
_USER = frozenset({"user", 1})
_ASSISTANT = frozenset({"ai", "assistant", 2})
_CONTEXT_CAP = 20  # attachments of one prompt named one by one; the rest counted
_LEXICAL_DEPTH = 32  # nesting of a prompt's Lexical tree walked for its words


def sessions(
    data: dict[str, object],
    store: Path,
    folder: str | None,
    app: str,
    diagnostics: Diagnostics,
) -> list[Session]:
    """One session per tab of the panel that holds a message."""
    where = f"{store}#{KEY}"
    tabs = data.get("tabs")
    if not isinstance(tabs, list):
        if data:
            diagnostics.skip(where, 0, "no chat tabs")
        return []
    found: list[Session] = []
    for number, tab in enumerate(tabs, 1):
        tab_id = text_of(tab, "tabId")
        bubbles = tab.get("bubbles") if isinstance(tab, dict) else None
        if not isinstance(tab, dict) or not tab_id or not isinstance(bubbles, list):
            diagnostics.skip(where, number, "not a chat tab")
            continue
        said = [b for b in bubbles if isinstance(b, dict)]
        if not said:  # a tab opened and left
            continue
        found.append(_session(tab, tab_id, said, store, folder, app))
    return found


def _session(
    tab: dict[str, object],
    tab_id: str,
    bubbles: list[dict[str, object]],
    store: Path,
    folder: str | None,
    app: str,
) -> Session:
    title = one_line(first_line(tab.get("chatTitle")), limit=None)
    if not title or title in _DEFAULT_NAMES:  # known by its first prompt
        prompt = next(
            (
                words
                for b in bubbles
                if _role(b) == "user" and (words := _words(b, whole_only=True))
            ),
            None,
        )
        title = one_line(prompt, limit=None)
    times = [moment for b in bubbles if (moment := _time(b))]
    sent = epoch_time(tab.get("lastSendTime"))  # when the last prompt went out
    model = next(
        (m for b in reversed(bubbles) if _role(b) == "assistant" and (m := as_str(b.get("modelType")))),
        None,
    )  # fmt: skip
    return Session(
        app=app,
        id=tab_id,
        path=f"{store}#{PREFIX}{tab_id}",
        cwd=folder,
        title=title,
        created=min(times, default=None),
        updated=max([*times, sent] if sent else times, default=None),
        model=model,
        precedence=2,
        extra={"store": "ide", "panel": PANEL},
    )


def events(
    data: dict[str, object],
    tab_id: str,
    emit: Emitter,
    diagnostics: Diagnostics,
) -> Iterator[Event]:
    """The tab's messages in order, each prompt's attachments after it as a `meta` event."""
    tab = next((t for t in items(data, "tabs") if text_of(t, "tabId") == tab_id), None)
    # a tab closed since it was listed (an unreadable value is counted where it was read)
    if tab is None and data:
        diagnostics.problem(f"cursor: the Chat panel no longer holds tab {tab_id}")
    for bubble in items(tab, "bubbles"):
        if not isinstance(bubble, dict):
            diagnostics.unknown_type("chat/<not an object>")
            continue
        role, time = _role(bubble), _time(bubble)
        if role is None:
            kind = bubble.get("type")
            # a number names itself; anything else by its tag, never its contents
            named = (
                kind if isinstance(kind, int) and not isinstance(kind, bool) else None
            )
            diagnostics.unknown_type(
                f"chat/bubble/{named if named is not None else type_tag(kind) or '<none>'}"
            )
            continue
        text = _words(bubble)
        if text:
            yield emit(role, time, text=text)
        if role == "user" and (context := _context(bubble)):
            shown, extra = context
            yield emit("meta", time, text=shown, extra=extra)


def _role(bubble: dict[str, object]) -> Role | None:
    kind = bubble.get("type")
    if isinstance(kind, bool) or not isinstance(kind, str | int):
        return None
    return "user" if kind in _USER else "assistant" if kind in _ASSISTANT else None


def _time(bubble: dict[str, object]) -> datetime | None:
    for key in ("timestamp", "createdAt"):
        value = bubble.get(key)
        moment = iso_time(value) if isinstance(value, str) else epoch_time(value)
        if moment:
            return moment
    return None


def _words(bubble: dict[str, object], *, whole_only: bool = False) -> str | None:
    """What the message says: the first of the fields readers found it in that is not blank
    (`whole_only`: None where that was elided as too long to read, no title)."""
    found = (
        bubble.get("text"),
        bubble.get("rawText"),
        obj(bubble, "delegate").get("a"),
        _lexical(bubble.get("initText")),
        bubble.get("content"),
    )
    value = next((v for v in found if isinstance(v, str) and v.strip()), None)
    if value is None or (whole_only and files.elided(value)):
        return None
    return shown_text(value)


def _lexical(value: object) -> str | None:
    """The words of a prompt kept as a Lexical editor state (JSON text): one line a paragraph."""
    if not isinstance(value, str):
        return None
    try:
        tree = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    lines = [_node_words(p, 0) for p in items(obj(tree, "root"), "children")]
    return "\n".join(lines).strip() or None


def _node_words(node: object, depth: int) -> str:
    if not isinstance(node, dict) or depth > _LEXICAL_DEPTH:
        return ""
    own = node.get("text")
    children = "".join(_node_words(c, depth + 1) for c in items(node, "children"))
    return (own if isinstance(own, str) else "") + children


def _context(
    bubble: dict[str, object],
) -> tuple[str, dict[str, JSONValue]] | None:
    """A prompt's attachments, summarised: what was selected in which file, which files and
    folders were added, an image; never the selected code itself (it can be long)."""
    found: list[dict[str, JSONValue]] = []
    for selection in dicts(bubble, "selections"):
        entry: dict[str, JSONValue] = {"kind": "selection", "path": _path(selection)}
        span = obj(selection, "range")
        lines = sorted(
            n for key in ("selectionStartLineNumber", "positionLineNumber")
            if (n := as_int(span.get(key), floats=False)) > 0
        )  # fmt: skip
        if lines:
            entry["lines"] = [lines[0], lines[-1]]
        if code := as_str(selection.get("text")):
            entry["chars"] = len(code)
        found.append(entry)
    for key, kind in (("fileSelections", "file"), ("folderSelections", "folder")):
        found.extend({"kind": kind, "path": _path(s)} for s in dicts(bubble, key))
    if image := obj(bubble, "image"):
        found.append({"kind": "image", "path": text_of(image, "path")})
    if not found:
        return None
    named = [_named(entry) for entry in found[:_CONTEXT_CAP]]
    if len(found) > _CONTEXT_CAP:
        named.append(f"{len(found) - _CONTEXT_CAP} more")
    kept: list[JSONValue] = list(found[:_CONTEXT_CAP])
    return "context: " + ", ".join(named), {"context": kept}


def _path(selection: dict[str, object]) -> str | None:
    uri = obj(selection, "uri")
    return text_of(uri, "fsPath") or text_of(uri, "path") or text_of(selection, "path")


def _named(entry: dict[str, JSONValue]) -> str:
    where = entry.get("path") or "?"
    lines = entry.get("lines")
    if isinstance(lines, list) and lines:
        start, end = lines[0], lines[-1]
        where = f"{where}:{start}" if start == end else f"{where}:{start}-{end}"
    return f"{entry['kind']} {where}"
