"""The Cursor IDE's own conversation store: `<config>/Cursor/User/globalStorage/state.vscdb`.

Layout (Cursor 3.x, as jlreyes/agent-history-skills `exploring-cursor-history/data-model.md`
@2721f8e describes it, verified there on macOS with Cursor 3.7; no real capture here):
the key/value table `cursorDiskKV` holds one `composerData:<id>` JSON per conversation
(`name`, `createdAt`/`lastUpdatedAt` in epoch ms, `unifiedMode`, `modelConfig.modelName`,
`workspaceIdentifier.uri.fsPath`, `gitWorktree.branchName`, `subagentComposerIds`, and the
ordered `fullConversationHeadersOnly` of `{bubbleId, type}`), and one
`bubbleId:<composer>:<bubble>` JSON per message: `type` 1 (user) or 2 (assistant),
`text`, `thinking.text`, `toolFormerData` (`name`, `rawArgs`/`params`, `result` as JSON
text, `status`, `toolCallId`), `tokenCount` (`inputTokens`, `outputTokens`), `createdAt`
(ISO, missing on the oldest). An older composer holds its messages whole, in the same
shape, as an inline `conversation` list (no headers, no bubble rows). A composer with
neither is an empty tab: not listed.

Conversations from before Cursor 3.0 (April 2026) may carry no workspace in the global
store; each workspace's own `workspaceStorage/<hash>/state.vscdb` lists them in its
`ItemTable` key `composer.composerData` (`allComposers`: `name`, `createdOnBranch`, …) and
names its folder in `workspace.json`: those fill in folder, branch and title. The same store
keeps the tabs of the Chat panel from before Composer (to early 2025), read by `_cursor_chat`.

An IDE agent conversation is also mirrored as JSONL under `~/.cursor/projects/` with the
same id; this store says more (title, times, folder, branch, model, tool results, tokens),
so its fragment has the higher precedence and `show` reads it. The CLI cannot resume an IDE
conversation: it is opened in the app. Every value is read through
`databases.bounded_value`, so a huge bubble (a pasted image, a file read whole) is elided
as a transcript's huge line is.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import orjson

from .. import databases, files, folders
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..model import Event, EventKind, JSONValue, Session, Usage
from . import _cursor_chat
from ._values import (
    Emitter,
    EventFields,
    as_int,
    as_str,
    dicts,
    iso_time,
    items,
    json_copy,
    local_path,
    ms_time,
    obj,
    odd_count,
    one_line,
    shown_json,
    text_of,
)
from .base import Home, WholeRead

STORE = "state.vscdb"
TABLE = "cursorDiskKV"
_CHILDREN_CAP = 500  # sub-agent conversations read into one session
_DEFAULT_NAMES = frozenset({"New Chat", "New Agent", "New Composer"})  # not a title
_DEPTH = 3  # sub-agents of sub-agents read into a session
_ERROR_STATUSES = frozenset({"error", "failed", "cancelled", "canceled", "rejected"})
# what a tool's JSON result most often holds as its text
_RESULT_KEYS = ("output", "contents", "content", "text", "stdout", "result", "error")

Draft = tuple[EventKind, datetime | None, EventFields]  # an event before its number


def store_dirs(home: Home) -> list[Path]:
    """The IDE's `User/globalStorage` folders for this home, on every OS's layout (Linux
    under `$XDG_CONFIG_HOME` when set, as Electron resolves it), and under
    `$VSCODE_APPDATA` when set, where VS Code and its forks look first."""
    roots = [
        home.path / ".config",
        home.path / "Library" / "Application Support",
        home.path / "AppData" / "Roaming",
    ]
    for name in ("XDG_CONFIG_HOME", "VSCODE_APPDATA"):
        chosen = home.env_dir(name)
        if chosen is not None and chosen not in roots:
            roots.insert(0, chosen)
    return [root / "Cursor" / "User" / "globalStorage" for root in roots]


def login_tables(path: str | Path) -> tuple[str, ...]:
    """The tables of the store that keep Cursor's login: the global one's ItemTable
    (`cursorAuth/accessToken`, `cursorAuth/refreshToken`), never read there; none in a
    workspace's."""
    return ("ItemTable",) if Path(path).parent.name == "globalStorage" else ()


# --- listing ------------------------------------------------------------------------------


def parse(path: Path, app: str, diagnostics: Diagnostics) -> list[Session]:
    """One session per conversation in the store (sub-agent ones under their parent)."""
    return _listed(path, TABLE, diagnostics, lambda store: _conversations(store, app))


def _listed(
    path: Path,
    table: str,
    diagnostics: Diagnostics,
    job: Callable[[_Store], list[Session]],
) -> list[Session]:
    """`job`'s sessions from one of the IDE's stores; none (and a problem said) when the
    store cannot be opened or read, none when it has no key/value `table`."""
    connection = databases.open_or_say(
        path, "cursor", diagnostics, login=login_tables(path)
    )
    if connection is None:
        return []
    try:
        if not {"key", "value"} <= databases.table_columns(connection, table):
            return []
        return job(_Store(connection, path, diagnostics, table=table))
    except sqlite3.Error as error:
        diagnostics.problem(read_failed("cursor", path, error))
        return []
    finally:
        connection.close()


def _conversations(store: _Store, app: str) -> list[Session]:
    composers = [
        (cid, data, headers)
        for cid, data in store.composers()
        # a composer none of whose messages names its bubble is an empty tab
        if _last(headers := _message_list(data)) is not None
    ]
    parents = {
        child: cid
        for cid, data, _ in composers
        for child in _children(data)[:_CHILDREN_CAP]
    }
    wanted = [  # the last message (its time), the first prompt of an unnamed one
        (cid, bubble)
        for cid, data, headers in composers
        for bubble in (_last(headers), *_prompts(data, headers))
        if bubble
    ]
    facts = store.bubble_facts(wanted)
    return [
        _session(store, cid, data, headers, app, parents.get(cid), facts)
        for cid, data, headers in composers
    ]


def _session(
    store: _Store,
    cid: str,
    data: dict[str, object],
    headers: list[object],
    app: str,
    parent: str | None,
    facts: dict[tuple[str, str], tuple[object, object, object]] | None,
) -> Session:
    inline = (
        {b: h for h in headers if (b := _bubble_of(h)) and isinstance(h, dict)}
        if _inline(data)
        else {}
    )

    def typed(bubble: str) -> bool:  # not a message Cursor wrote itself
        return fact(bubble, 2, "isSimulatedMsg") is not True

    def fact(bubble: str | None, field: int, key: str) -> object:
        if not bubble:
            return None
        if bubble in inline:  # an older composer's message, held in it whole
            return inline[bubble].get(key)
        if facts is not None:
            return facts.get((cid, bubble), (None, None, None))[field]
        return store.bubble(cid, bubble).get(key)  # no JSON functions in this SQLite

    title = one_line(as_str(data.get("name")), limit=None)
    if not title or title in _DEFAULT_NAMES:  # known by its first prompt
        title = one_line(
            as_str(
                fact(
                    next((b for b in _prompts(data, headers) if typed(b)), None),
                    1,
                    "text",
                )
            ),
            limit=None,
        )
    created = ms_time(data.get("createdAt"))
    # `lastUpdatedAt` often stays at the start: the last message says when it was used
    last = iso_time(fact(_last(headers), 0, "createdAt"))
    times = [ms_time(data.get("lastUpdatedAt")), last]
    updated = max((t for t in times if t is not None), default=created)
    workspace = obj(obj(data, "workspaceIdentifier"), "uri")
    extra: dict[str, JSONValue] = {"store": "ide"}
    if isinstance(mode := data.get("unifiedMode"), str):
        extra["mode"] = mode
    if data.get("isArchived") is True:
        extra["archived"] = True
    return Session(
        app=app,
        id=cid,
        path=f"{store.path}#{cid}",
        cwd=text_of(workspace, "fsPath"),
        branch=text_of(obj(data, "gitWorktree"), "branchName"),
        title=title,
        created=created,
        updated=updated,
        model=text_of(obj(data, "modelConfig"), "modelName"),
        parent_id=parent,
        precedence=2,  # above the JSONL mirror of the same conversation
        extra=extra,
    )


def workspace_stores(global_storage: Path) -> Iterator[Path]:
    """Each workspace's `state.vscdb` beside the global store (`User/workspaceStorage/*/`)."""
    root = global_storage.parent / "workspaceStorage"
    for workspace in folders.entries(root, root.parent):
        store = Path(workspace.path) / STORE
        if workspace.is_dir() and folders.is_file(store):
            yield store


def parse_workspace(path: Path, app: str, diagnostics: Diagnostics) -> list[Session]:
    """What a workspace's own store says of its conversations from before Cursor 3.0 moved
    them to the global store (`composer.composerData` `allComposers`): their folder (from
    `workspace.json`), branch and title, fill-ins only, as the global store lists them;
    and the tabs of the old Chat panel (`_cursor_chat`), listed in that folder."""
    description = files.read_json_file(
        path.parent / "workspace.json", limit=1 << 20, diagnostics=diagnostics
    )
    folder = local_path(text_of(description, "folder")) if description else None

    def fill_ins(store: _Store) -> list[Session]:
        sessions = _cursor_chat.sessions(
            store.keyed(_cursor_chat.KEY), path, folder, app, diagnostics
        )
        for old in dicts(store.keyed("composer.composerData"), "allComposers"):
            cid = as_str(old.get("composerId"))
            if not cid:
                continue
            name = one_line(as_str(old.get("name")), limit=None)
            sessions.append(
                Session(
                    app=app,
                    id=cid,
                    cwd=folder,
                    branch=as_str(old.get("createdOnBranch")),
                    title=None if name in _DEFAULT_NAMES else name,
                    created=ms_time(old.get("createdAt")),
                    precedence=1,  # below the global store's own fields
                    listed=False,
                )
            )
        return sessions

    return _listed(path, "ItemTable", diagnostics, fill_ins)


# --- reading ------------------------------------------------------------------------------


def read(
    session: Session,
    diagnostics: Diagnostics,
    *,
    full: bool = False,
    last: int | None = None,
) -> Iterator[Event]:
    """The conversation's messages in header order, its sub-agents' merged in by time;
    one message in memory at a time. `last`: only the last messages (`read_last`), where
    no sub-agent goes in among them."""
    db, _, cid = (session.path or "").rpartition("#")
    if last is not None and cid.startswith(_cursor_chat.PREFIX):
        raise WholeRead("a Chat panel tab is one JSON document")
    connection = databases.open_or_say(
        db, "cursor", diagnostics, login=login_tables(db)
    )
    if connection is None:
        return
    emit = Emitter(session.id)
    try:
        if cid.startswith(_cursor_chat.PREFIX):  # a tab of the old Chat panel
            panel = _Store(
                connection, Path(db), diagnostics, full=full, table="ItemTable"
            )
            data = panel.keyed(_cursor_chat.KEY)
            tab = cid.removeprefix(_cursor_chat.PREFIX)
            yield from _cursor_chat.events(data, tab, emit, diagnostics)
            return
        store = _Store(connection, Path(db), diagnostics, full=full)
        for kind, time, fields in _conversation(
            store, cid, None, session.model, 0, {cid}, last
        ):
            yield emit(kind, time, **fields)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed("cursor", db, error, "stopped reading"))
    finally:
        connection.close()


def _conversation(
    store: _Store,
    cid: str,
    agent: str | None,
    model: str | None,
    depth: int,
    seen: set[str],
    last: int | None = None,
) -> Iterator[Draft]:
    """One conversation's events; each sub-agent conversation goes in whole just before
    the first of its parent's events that came after it started (at the end when it has
    no time), so nothing is held but the sub-agents' start times. `last`: only its last
    messages' (each message's events are its own alone), where it has no sub-agents."""
    data = store.composer(cid)
    model = text_of(obj(data, "modelConfig"), "modelName") or model
    headers = _headers(data)
    if last is not None:
        if _children(data):  # where they go in depends on every earlier message's time
            raise WholeRead("sub-agents go in among its messages by time")
        if len(headers) <= last:
            raise WholeRead("no more messages than asked for")
        headers = headers[-last:]
    waiting = _sub_agents(store, data, depth, seen) if depth < _DEPTH else []
    inline = _inline(data)
    for header in headers:
        key = f"bubbleId:{cid}:{as_str(header.get('bubbleId'))}"
        bubble = header if inline else store.bubble(cid, as_str(header.get("bubbleId")))
        if bubble and _simulated(header) and not _simulated(bubble):
            bubble = {**bubble, "isSimulatedMsg": True}  # the header said so
        where = f"{store.path}#{f'composerData:{cid}' if inline else key}"
        for draft in (
            _bubble(bubble, agent, model, store.diagnostics, where) if bubble else ()
        ):
            time = draft[1]
            while waiting and time is not None and waiting[0][0] is not None:
                if waiting[0][0] >= time:
                    break
                yield from _sub_agent(store, waiting.pop(0), agent, model, depth, seen)
            yield draft
    for child in waiting:
        yield from _sub_agent(store, child, agent, model, depth, seen)


_Child = tuple[datetime | None, str, str | None]  # (start, id, name)


def _sub_agents(
    store: _Store, data: dict[str, object], depth: int, seen: set[str]
) -> list[_Child]:
    """The conversation's sub-agent conversations, by when their first message was
    written (undated ones last)."""
    found: list[_Child] = []
    for child in _children(data)[:_CHILDREN_CAP]:
        if child in seen:  # a loop, or listed twice
            continue
        seen.add(child)
        child_data = store.composer(child)
        headers = _headers(child_data)
        first = (
            headers[0]
            if headers and _inline(child_data)
            else store.bubble(child, as_str(headers[0].get("bubbleId")))
            if headers
            else {}
        )
        name = one_line(as_str(child_data.get("name")), limit=None)
        found.append((iso_time(first.get("createdAt")), child, name))
    undated = [c for c in found if c[0] is None]
    dated = [(start, c) for c in found if (start := c[0]) is not None]
    return [c for _, c in sorted(dated, key=lambda pair: pair[0])] + undated


def _sub_agent(
    store: _Store,
    child: _Child,
    agent: str | None,
    model: str | None,
    depth: int,
    seen: set[str],
) -> Iterator[Draft]:
    start, child_id, name = child
    extra: dict[str, JSONValue] = {"child_id": child_id, "agent_type": None}
    if name:  # what the IDE shows it as: its label here too
        extra["agent_name"] = name
    yield "subagent", start, {"agent_id": agent, "extra": extra}
    yield from _conversation(store, child_id, child_id, model, depth + 1, seen)


def _bubble(
    bubble: dict[str, object],
    agent: str | None,
    model: str | None,
    diagnostics: Diagnostics,
    where: str,
) -> list[Draft]:
    """A message's events. `where`: its row, where an odd token count is said."""
    time = iso_time(bubble.get("createdAt"))
    kind = bubble.get("type")
    text = as_str(bubble.get("text"))
    out: list[Draft] = []
    if kind == 1:
        if text and text.strip():
            if _simulated(bubble):  # Cursor wrote it as the user's: not typed
                extra: dict[str, JSONValue] = {"injected": True}
                if (reason := bubble.get("simulatedMsgReason")) is not None:
                    extra["reason"] = json_copy(reason)
                out.append(
                    ("meta", time, {"agent_id": agent, "text": text, "extra": extra})
                )
            else:
                out.append(("user", time, {"agent_id": agent, "text": text}))
        return out
    if kind != 2:
        diagnostics.unknown_type(f"bubble/{kind}")
        return out
    thinking = text_of(obj(bubble, "thinking"), "text")
    if thinking and thinking.strip():
        out.append(("thinking", time, {"agent_id": agent, "text": thinking}))
    if text and text.strip():
        out.append(("assistant", time, {"agent_id": agent, "text": text}))
    tool = obj(bubble, "toolFormerData")
    if tool:
        out.extend(_tool(tool, time, agent))
    tokens = obj(bubble, "tokenCount")
    used = Usage(
        input_tokens=as_int(tokens.get("inputTokens"), floats=False),
        output_tokens=as_int(tokens.get("outputTokens"), floats=False),
        # the model that answered (an "auto" conversation's differs per message), else
        # the conversation's
        model=text_of(obj(bubble, "modelInfo"), "modelName")
        or as_str(bubble.get("modelName"))
        or model,
    )
    if used.input_tokens or used.output_tokens:
        if any(odd_count(tokens.get(k)) for k in ("inputTokens", "outputTokens")):
            diagnostics.damage(where, 0, odd_in("response"))  # billed as 0
        out.append(("usage", time, {"agent_id": agent, "usage": used}))
    return out


def _tool(
    tool: dict[str, object], time: datetime | None, agent: str | None
) -> list[Draft]:
    call = as_str(tool.get("toolCallId"))
    arguments = _json_text(tool.get("rawArgs"))
    if arguments is None:
        arguments = _json_text(tool.get("params"))
    out: list[Draft] = [
        (
            "tool_call",
            time,
            {"agent_id": agent, "tool": as_str(tool.get("name")), "call_id": call,
             "extra": {"input": shown_json(arguments)}},
        )
    ]  # fmt: skip
    status = (as_str(tool.get("status")) or "").lower()
    result = tool.get("result")
    if result is None and status in ("", "completed", "loading", "pending"):
        return out  # no answer recorded (yet)
    out.append(
        (
            "tool_result",
            time,
            {"agent_id": agent, "call_id": call, "text": _result_text(result),
             "is_error": status in _ERROR_STATUSES},
        )
    )  # fmt: skip
    return out


def _result_text(result: object) -> str:
    value = _json_text(result) if isinstance(result, str) else result
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in _RESULT_KEYS:
            found = value.get(key)
            if isinstance(found, str) and found:
                return found
    if value is None:
        return as_str(result) or ""
    return orjson.dumps(value).decode()


def _json_text(value: object) -> object:
    """A JSON value written as text (the store keeps arguments and results so)."""
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def _message_list(data: dict[str, object]) -> list[object]:
    """The headers as stored: listing looks only at the few it needs, not at them all.
    An older composer keeps its whole messages inline (`conversation`), no headers."""
    found = data.get("fullConversationHeadersOnly")
    if isinstance(found, list):
        return found
    inline = data.get("conversation")
    return inline if isinstance(inline, list) else []


def _inline(data: dict[str, object]) -> bool:
    """Whether the composer holds its messages whole (`conversation`, older Cursor)
    rather than headers naming `bubbleId:` rows."""
    return not isinstance(data.get("fullConversationHeadersOnly"), list) and isinstance(
        data.get("conversation"), list
    )


def _bubble_of(header: object) -> str | None:
    bubble = header.get("bubbleId") if isinstance(header, dict) else None
    return bubble if isinstance(bubble, str) else None


def _last(headers: list[object]) -> str | None:
    """The bubble of the last message that names one."""
    return next(
        (b for h in reversed(headers) if (b := _bubble_of(h)) is not None), None
    )


def _prompts(data: dict[str, object], headers: list[object]) -> list[str]:
    """The first few prompts' bubbles of a conversation with no name of its own (its
    title: the first the user typed), else none. A message Cursor wrote as the user's
    (`isSimulatedMsg`: a goal's continuation, a background task's notice) is not one."""
    name = one_line(as_str(data.get("name")), limit=None)
    if name and name not in _DEFAULT_NAMES:
        return []
    found: list[str] = []
    for header in headers:
        if (
            isinstance(header, dict)
            and header.get("type") == 1
            and not _simulated(header)
            and (bubble := _bubble_of(header)) is not None
        ):
            found.append(bubble)
            if len(found) == _PROMPT_PROBE:
                break
    return found


_PROMPT_PROBE = 3  # user messages looked at for a title, past those Cursor wrote


def _simulated(message: dict[str, object]) -> bool:
    """A user message Cursor wrote itself (the flag on the bubble, or on its header's
    `grouping`, as third-party readers of Cursor 3.x stores find it)."""
    return (
        message.get("isSimulatedMsg") is True
        or obj(message, "grouping").get("isSimulatedMsg") is True
    )


def _headers(data: dict[str, object]) -> list[dict[str, object]]:
    """The conversation's messages in order, those that name their bubble (an older
    composer's inline messages, whole)."""
    found = _message_list(data)
    return [
        h for h in found if isinstance(h, dict) and isinstance(h.get("bubbleId"), str)
    ]


def _children(data: dict[str, object]) -> list[str]:
    return [c for c in items(data, "subagentComposerIds") if isinstance(c, str) and c]


class _Store:
    """Keyed reads from `cursorDiskKV` (or a workspace's `ItemTable`), each value bounded."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        path: Path,
        diagnostics: Diagnostics,
        *,
        full: bool = False,
        table: str = TABLE,
    ) -> None:
        self.connection = connection
        self.path = path
        self.diagnostics = diagnostics
        self.full = full
        self.table = table

    def composers(self) -> Iterator[tuple[str, dict[str, object]]]:
        # a range on the key (its UNIQUE index), not LIKE, which would scan every blob row
        rows = self.connection.execute(
            f"SELECT rowid, key FROM {TABLE} WHERE key >= 'composerData:' "
            "AND key < 'composerData;' ORDER BY key"
        ).fetchall()
        for rowid, key in rows:
            data = self._value(rowid, key)
            if data:
                yield as_str(data.get("composerId")) or str(key).partition(":")[2], data

    def bubble_facts(
        self, wanted: list[tuple[str, str]]
    ) -> dict[tuple[str, str], tuple[object, object, object]] | None:
        """(`createdAt`, the first 1,000 characters of `text`, `isSimulatedMsg`) of many
        messages, taken out in SQL so a message of MBs never becomes a Python value; None
        where this SQLite has no JSON functions (before 3.38, unless built with them)."""
        found: dict[tuple[str, str], tuple[object, object, object]] = {}
        by_key = {f"bubbleId:{cid}:{bubble}": (cid, bubble) for cid, bubble in wanted}
        keys = list(by_key)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self.connection.execute(
                    "SELECT key, CASE WHEN json_valid(v) THEN json_extract(v, '$.createdAt') END,"
                    " CASE WHEN json_valid(v) THEN substr(json_extract(v, '$.text'), 1, 1000) END,"
                    " CASE WHEN json_valid(v) THEN json_extract(v, '$.isSimulatedMsg') END"
                    f" FROM (SELECT key, CAST(value AS TEXT) AS v FROM {TABLE}"
                    f" WHERE key IN ({marks}))",
                    chunk,
                ).fetchall()
            except sqlite3.OperationalError as error:
                if "no such function" in str(error):
                    return None
                raise
            for key, created, text, simulated in rows:
                # SQLite's JSON gives a boolean as 1
                found[by_key[key]] = (created, text, True if simulated == 1 else None)
        return found

    def composer(self, cid: str) -> dict[str, object]:
        return self.keyed(f"composerData:{cid}")

    def bubble(self, cid: str, bubble: str | None) -> dict[str, object]:
        return self.keyed(f"bubbleId:{cid}:{bubble}") if bubble else {}

    def keyed(self, key: str) -> dict[str, object]:
        row = self.connection.execute(
            f"SELECT rowid FROM {self.table} WHERE key = ?", (key,)
        ).fetchone()
        return self._value(row[0], key) if row else {}

    def _value(self, rowid: int, key: object) -> dict[str, object]:
        where = f"{self.path}#{key}"
        raw = databases.bounded_value(
            self.connection, self.table, "value", rowid,
            full=self.full, diagnostics=self.diagnostics, where=where,
        )  # fmt: skip
        if raw is None:
            return {}
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            self.diagnostics.skip(where, 0, "not JSON")
            return {}
        if not isinstance(value, dict):
            self.diagnostics.skip(where, 0, "not an object")
            return {}
        return value
