"""The Cursor CLI's chat store, `chats/<md5(workspace)>/<id>/store.db`: its messages.

`meta` holds one row of hex-encoded JSON (`agentId`, `latestRootBlobId`, `name`, `mode`,
`createdAt`, `lastUsedModel`); `blobs(id, data)` is content-addressed (`id` is the sha256
of `data`, in hex). The root blob `latestRootBlobId` names is a protobuf message: field 1,
repeated, holds the 32-byte ids of the conversation's messages in order, field 9 the
workspace path. Each message blob is JSON, `{role: system | user | assistant | tool,
content: text | [parts]}` in the AI SDK's shapes (`text`, `reasoning`, `tool-call
{toolCallId, toolName, args}`, `tool-result {toolCallId, toolName, result}`).

A chat run in a dev container or over SSH writes no JSONL transcript on this machine, so
the store is all there is of it. Shapes from third-party readers of real stores (their
fixtures and notes; vibe-replay's sqlite-reader.ts, agent-session readers in Go and
Python): no real store seen here — Low confidence.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterator

import orjson

from .. import databases
from ..diagnostics import Diagnostics
from . import _protobuf

ROOT_CAP = 16 * 1024 * 1024  # a root of 500,000 messages: past it, a broken store
_ID_FIELD, _WORKSPACE_FIELD = 1, 9
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


def meta(connection: sqlite3.Connection) -> dict[str, object]:
    """The `meta` table as one object: hex-encoded JSON rows (current CLI), plain JSON
    rows, or plain key/value rows."""
    if not {"key", "value"} <= databases.table_columns(connection, "meta"):
        return {}
    found: dict[str, object] = {}
    for key, value in connection.execute("SELECT key, value FROM meta"):
        decoded = decode(value)
        if isinstance(decoded, dict):
            found.update(decoded)
        elif isinstance(key, str):
            found[key] = decoded
    return found


def decode(value: object) -> object:
    """A meta value: hex-encoded JSON, plain JSON, or a plain string."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return value
    text = value
    if _HEX.fullmatch(value):
        try:
            text = bytes.fromhex(value).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return value
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return value


def root(
    connection: sqlite3.Connection, root_id: str
) -> tuple[list[str], str | None] | None:
    """(the conversation's message ids in order, the workspace) from the root blob, or
    None when the store has no such blob or it is not the protobuf we know."""
    data = _blob(connection, root_id, ROOT_CAP)
    if data is None:
        return None
    try:
        parts = _protobuf.fields(data)
    except ValueError:
        return None
    ids: list[str] = []
    workspace: str | None = None
    for number, _wire, value in parts:
        if number == _ID_FIELD and isinstance(value, bytes) and len(value) == 32:
            ids.append(value.hex())
        elif number == _WORKSPACE_FIELD and isinstance(value, bytes):
            with contextlib.suppress(UnicodeDecodeError):
                workspace = value.decode("utf-8") or workspace
    return ids, workspace


def messages(
    connection: sqlite3.Connection,
    ids: list[str],
    diagnostics: Diagnostics,
    where: str,
    *,
    full: bool = False,
) -> Iterator[dict[str, object]]:
    """Each message blob as JSON, in order; huge ones with their long strings elided (as
    a transcript's lines are), missing or unreadable ones counted and passed over."""
    for blob_id in ids:
        row = connection.execute(
            "SELECT rowid FROM blobs WHERE id = ?", (blob_id,)
        ).fetchone()
        if row is None:
            diagnostics.skip(f"{where}#blobs/{blob_id}", 0, "missing")
            continue
        value = databases.bounded_value(
            connection, "blobs", "data", row[0], full=full,
            diagnostics=diagnostics, where=f"{where}#blobs/{blob_id}",
        )  # fmt: skip
        if value is None:
            continue
        try:
            message = orjson.loads(value)
        except orjson.JSONDecodeError:
            diagnostics.skip(f"{where}#blobs/{blob_id}", 0, "not JSON")
            continue
        if isinstance(message, dict):
            yield message


def _blob(connection: sqlite3.Connection, blob_id: str, cap: int) -> bytes | None:
    row = connection.execute(
        "SELECT rowid FROM blobs WHERE id = ?", (blob_id,)
    ).fetchone()
    if row is None:
        return None
    try:
        with databases.open_blob(connection, "blobs", "data", row[0]) as blob:
            return blob.read() if len(blob) <= cap else None
    except sqlite3.Error:  # not a blob (NULL, text in an odd encoding)
        value = connection.execute(
            "SELECT data FROM blobs WHERE rowid = ?", (row[0],)
        ).fetchone()[0]
        return value if isinstance(value, bytes) and len(value) <= cap else None
