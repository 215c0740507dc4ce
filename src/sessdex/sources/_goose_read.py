"""The goose source's reader: a database session (its sub-agents' among it) or a JSONL
file as events, older releases' content read in today's shape.

`goose.read` runs a `_Reader` over the whole session; `_goose_tail._Tail` reads only its
last messages. What each record means is told in `goose.py`'s docstring.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import datetime

import orjson

from .. import databases, files
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..model import Event, EventKind, JSONValue
from ._goose_usage import (
    _COUNTS,
    _Call,
    _counter_prefix,
    _ledger,
    _odd,
    _spent,
    _unledgered,
    _unledgered_total,
    _usage,
)
from ._values import (
    Emitter,
    as_dict,
    as_str,
    copied_note,
    db_time,
    json_copy,
    json_object,
    one_line,
    shown_text,
    type_tag,
)

_NAME = "goose"  # goose.NAME: goose.py imports this module, not the other way

# Goose 0.x content types, as the Python `exchange` package's `Content.to_dict` tags them
_PYTHON_TYPES = {"Text", "ToolUse", "ToolResult"}
# Goose 1.0.0-1.0.10's `MessageContent`, in serde's default (external) enum tagging
_RUST_TAGS = {"Text", "Image", "ToolRequest", "ToolResponse", "ToolConfirmationRequest"}


def _shape(content: object) -> str | None:
    """Which older release's content shape a message has: "python" (Goose 0.x),
    "untagged" (1.0.0-1.0.10), or None for today's."""
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("type") in _PYTHON_TYPES:
            return "python"
        if "type" not in item and len(item) == 1 and next(iter(item)) in _RUST_TAGS:
            return "untagged"
    return None


def _current_items(content: object) -> list[object]:
    """A message's content with each older item in today's shape (see `_current`)."""
    return [
        _current(item) if isinstance(item, dict) else item
        for item in (content if isinstance(content, list) else [])
    ]


def _current(item: dict[str, object]) -> dict[str, object]:
    """An item of Goose 0.x or 1.0.0-1.0.10 as today's Goose writes it, for `content`;
    today's, and what no release wrote, as it is (an unknown type stays unknown)."""
    kind = item.get("type")
    if kind is None and len(item) == 1:
        ((tag, value),) = item.items()
        return _untagged(tag, as_dict(value))
    if kind == "Text":
        return {"type": "text", "text": item.get("text")}
    if kind == "ToolUse":
        call = {"name": item.get("name"), "arguments": item.get("parameters")}
        return {
            "type": "toolRequest",
            "id": item.get("id"),
            "toolCall": {"status": "success", "value": call},
        }
    if kind == "ToolResult":
        output = {"type": "text", "text": _python_output(item.get("output"))}
        result = {"content": [output], "isError": item.get("is_error") is True}
        return {
            "type": "toolResponse",
            "id": item.get("tool_use_id"),
            "toolResult": {"status": "success", "value": result},
        }
    return item


def _untagged(tag: str, value: dict[str, object]) -> dict[str, object]:
    if tag == "ToolRequest":
        return {
            "type": "toolRequest",
            "id": value.get("id"),
            "toolCall": _rust_result(value.get("tool_call")),
        }
    if tag == "ToolResponse":
        return {
            "type": "toolResponse",
            "id": value.get("id"),
            "toolResult": _rust_result(value.get("tool_result")),
        }
    # Text, Image and ToolConfirmationRequest kept today's fields; a tag no release
    # wrote keeps its name, for the count of unknown types
    return {**value, "type": tag[:1].lower() + tag[1:]}


def _rust_result(value: object) -> dict[str, object]:
    """A Rust `Result` as serde writes it (`{"Ok": …}` or `{"Err": {"<Kind>": "…"}}`) in
    today's `{status, value}` / `{status, error}` wrapper."""
    result = as_dict(value)
    if "Ok" in result:
        return {"status": "success", "value": result["Ok"]}
    error = result.get("Err")
    if isinstance(error, dict) and len(error) == 1:
        ((kind, message),) = error.items()
        error = as_str(message) or kind
    return {"status": "error", "error": as_str(error) or "error"}


def _python_output(output: object) -> object:
    """A Goose 0.x tool result's text: `exchange` stored a tool's return value as JSON, so
    a string comes back quoted; one that is not JSON (an error's traceback) is as it is."""
    if isinstance(output, str) and output.startswith('"'):
        try:
            value = orjson.loads(output)
        except orjson.JSONDecodeError:
            return output
        return value if isinstance(value, str) else output
    return output


# how a background delegate ended, as `load` reports it (summon.rs task_status); one
# still running ("running") is not an end, and one stopped ("cancelled") did not fail
_TASK_ENDS = {
    "completed": "done",
    "cancelled": "done",
    "failed": "failed",
    "panicked": "failed",
}
# sub-agents inside sub-agents this deep at most (Goose's summon allows one level)
_MAX_DEPTH = 4
_USAGE_COLUMNS = (
    "model_config_json",
    "provider_name",
    "updated_at",
    *(
        f"{prefix}{name}_tokens"
        for prefix in ("", "accumulated_")
        for name in (*_COUNTS, "total")
    ),
)
# Goose shows these as a passing spinner caption (goose-cli session/output.rs), not a line
_SPINNER_NOTIFICATIONS = {"progressMessage", "thinkingMessage"}
_PERMISSIONS = {
    "allow_once": "allowed once",
    "always_allow": "always allowed",
    "deny_once": "denied once",
    "always_deny": "always denied",
    "cancel": "cancelled",
}


def _copied_from(
    connection: sqlite3.Connection, session_id: str
) -> tuple[str, datetime | None] | None:
    """(the session this one is a copy of, when its first turn was written), for a session
    `copy_session` made (Desktop's duplicate; an import of an export of one kept here): a
    new row, then the source's messages written again, each keeping its `message_id` and
    `created_timestamp`. Its first message is then older than the session and another,
    older session holds the same message id."""
    messages = databases.table_columns(connection, "messages")
    if not {"message_id", "created_timestamp"} <= messages or not {
        "id",
        "created_at",
    } <= databases.table_columns(connection, "sessions"):
        return None
    first = connection.execute(
        "SELECT m.message_id, m.created_timestamp, s.created_at FROM messages AS m "
        "JOIN sessions AS s ON s.id = m.session_id WHERE m.session_id = ? "
        "ORDER BY m.id LIMIT 1",
        (session_id,),
    ).fetchone()
    if first is None or not isinstance(first[0], str) or not first[0]:
        return None
    message_id, stamp, created = first
    when, born = db_time(stamp), db_time(created)
    if when is None or born is None or when >= born:
        return None
    found = connection.execute(
        "SELECT s.id FROM messages AS m JOIN sessions AS s ON s.id = m.session_id "
        "WHERE m.message_id = ? AND m.session_id != ? AND s.created_at < ? "
        "ORDER BY s.created_at, s.id LIMIT 1",
        (message_id, session_id, created),
    ).fetchone()
    source = as_str(found[0]) if found else None
    return (source, when) if source else None


def _session_row(connection: sqlite3.Connection, session_id: str) -> dict[str, object]:
    available = databases.table_columns(connection, "sessions")
    wanted = [c for c in _USAGE_COLUMNS if c in available]
    if "id" not in available or not wanted:
        return {}
    row = connection.execute(
        f"SELECT {', '.join(wanted)} FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return dict(zip(wanted, row, strict=True)) if row else {}


def _message_rows(connection: sqlite3.Connection) -> str:
    """The query of a session's message rows: (id, role, rowid, time, metadata)."""
    columns = databases.table_columns(connection, "messages")
    created = "created_timestamp" if "created_timestamp" in columns else "NULL"
    metadata = "metadata_json" if "metadata_json" in columns else "NULL"
    return f"SELECT id, role, rowid, {created}, {metadata} FROM messages WHERE session_id = ? "


class _Reader:
    def __init__(
        self, session_id: str, diagnostics: Diagnostics, full: bool = False
    ) -> None:
        self.session_id = session_id
        self.diagnostics = diagnostics
        self.full = full  # huge messages whole, not with their long strings elided
        self.event = Emitter(session_id)
        self.say = self.event.by
        self.last_time: datetime | None = None
        self.connection: sqlite3.Connection | None = None
        self.db = ""
        self.linked = False  # the database records sub-agents' parents (schema v15)
        self.inlined = {session_id}  # sessions whose events are read, against cycles
        # tool call id -> (instructions, source) of a call that may be summon's delegate
        self.delegations: dict[str, tuple[str | None, str | None]] = {}
        # delegate calls with `async`: answered at launch
        self.background: set[str] = set()
        # agents whose history a compaction took from the model (agentVisible false)
        # and whose summary has not come yet
        self.compacted: set[str | None] = set()

    def action(
        self, data: dict[str, object], time: datetime | None, agent: str | None
    ) -> Iterator[Event]:
        """An `actionRequired` item: the agent asking the user something (elicitation) and
        the answer; a tool confirmation repeats the tool request and is passed over, the
        user's answer to it is a `meta` event on the tool call."""
        kind = as_str(data.get("actionType"))
        if kind == "elicitation":
            question = as_str(data.get("message"))
            yield self.say(
                "meta",
                time,
                agent,
                text=question,
                # mid-tool, the agent waits for the user's answer (agent.rs stores it)
                extra={"elicitation": as_str(data.get("id")), "asks": "answer"},
            )
        elif kind == "elicitationResponse":
            answer = _action_event_text(data)
            if answer:
                yield self.say(
                    "user",
                    time,
                    agent,
                    text=answer,
                    extra={"answers": as_str(data.get("id"))},
                )
        elif kind == "toolConfirmationResponse":
            # not typed input (it would start a new turn in the live status): a setting
            # of the call, like a mode change
            permission = as_str(data.get("permission"))
            said = _PERMISSIONS.get(permission or "", permission or "answered")
            yield self.say(
                "meta",
                time,
                agent,
                text=f"tool call {said}",
                call_id=as_str(data.get("id")),
                extra={"permission": permission, "answered": True},
            )
        elif kind == "toolConfirmation":
            # stored only by the opt-in state machine (ops_tool_approval.rs): the call
            # waits for the user's permission until the response
            tool = as_str(data.get("toolName")) or as_str(data.get("tool_name"))
            yield self.say(
                "meta",
                time,
                agent,
                tool=tool,
                call_id=as_str(data.get("id")),
                text=f"{tool or 'a tool'} asks for permission",
                extra={"asks": "approval"},
            )
        else:
            self.diagnostics.unknown_type(f"actionRequired:{kind}")

    def database(self, db: str) -> Iterator[Event]:
        connection = databases.open_or_say(db, _NAME, self.diagnostics)
        if connection is None:
            return
        self.connection, self.db = connection, db
        try:
            self.linked = "parent_session_id" in databases.table_columns(
                connection, "sessions"
            )
            columns = databases.table_columns(connection, "messages")
            if not {"session_id", "role", "content_json"} <= columns:
                self.diagnostics.problem(f"{_NAME}: {db} has no messages table we know")
                return
            yield from self.lead(connection)
        except sqlite3.Error as error:
            self.diagnostics.problem(read_failed(_NAME, db, error))
        finally:
            self.connection = None
            connection.close()

    def lead(self, connection: sqlite3.Connection) -> Iterator[Event]:
        """The session's events, its sub-agents' among them (a tail reads fewer)."""
        return self.session(connection, self.session_id, None, 0)

    def session(
        self,
        connection: sqlite3.Connection,
        session_id: str,
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        """One session's messages with its model calls among them (by time), what its
        counters hold beyond those, then the sub-agents no tool result named."""
        info = _session_row(connection, session_id)
        model = as_str(json_object(info.get("model_config_json")).get("model_name"))
        # whom the session's model calls went to, for the price list
        provider = as_str(info.get("provider_name"))
        billing: dict[str, JSONValue] = {"provider": provider} if provider else {}
        calls = _ledger(connection, session_id)
        spent = _spent(calls)
        pending = iter(calls or [])
        call = next(pending, None)
        if depth == 0 and (copied := _copied_from(connection, session_id)) is not None:
            source, when = copied
            yield self.say(
                "meta",
                when,
                agent,
                text=copied_note(source),
                extra={"forked_from": source},
            )
        for time, role, items, meta in self.messages(connection, session_id):
            while call is not None and (
                call.time is None or (time is not None and call.time < time)
            ):
                yield from self.call(call, model, agent, billing)
                call = next(pending, None)
            yield from self.message(role, items, time, meta, agent, depth)
        while call is not None:
            yield from self.call(call, model, agent, billing)
            call = next(pending, None)
        self.odd_counters(info, spent is not None)
        usage = _usage(_unledgered(info, spent), model, _unledgered_total(info, spent))
        if usage is not None:
            yield self.say(
                "usage",
                db_time(info.get("updated_at")) or self.last_time,
                agent,
                usage=usage,
                extra={"scope": "session", "summed": True, **billing},
            )
        if self.linked:
            children = connection.execute(
                "SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
            for (child,) in children:
                yield from self.spawn(child, session_id, None, None, agent, depth)

    def odd_counters(self, info: dict[str, object], ledgered: bool) -> None:
        """Say a counter of the session's row no app writes, which `_unledgered` takes
        as 0: its `accumulated_` ones where it has a ledger, else those it reads."""
        if _odd(info, "accumulated_" if ledgered else _counter_prefix(info)):
            self.diagnostics.damage(f"{self.db}#sessions", 0, odd_in("set of totals"))

    def odd_call(self) -> None:
        """Say a ledger row with a count no app writes, which `_Call` takes as 0."""
        self.diagnostics.damage(f"{self.db}#usage_ledger", 0, odd_in("response"))

    def call(
        self,
        call: _Call,
        model: str | None,
        agent: str | None,
        billing: dict[str, JSONValue],
    ) -> Iterator[Event]:
        if call.odd:  # taken as 0
            self.odd_call()
        usage = _usage(call.counts, call.model or model, call.total)
        if usage is None:
            return
        extra: dict[str, JSONValue] = {}
        if call.carried:
            extra["scope"] = "session"
            extra["summed"] = True
        if call.compaction:
            extra["compaction"] = True
        yield self.say(
            "usage", call.time, agent, usage=usage, extra={**extra, **billing}
        )

    def spawn(
        self,
        child: object,
        parent: str,
        call_id: str | None,
        time: datetime | None,
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        """A sub-agent's session, read inside its parent's: only one that records this
        parent, as `sessdex usage` then counts it with the parent and not on its own."""
        connection = self.connection
        if (
            not isinstance(child, str)
            or child in self.inlined
            or depth >= _MAX_DEPTH
            or connection is None
            or not self.linked
        ):
            return
        row = connection.execute(
            "SELECT created_at, name FROM sessions WHERE id = ? AND parent_session_id = ?",
            (child, parent),
        ).fetchone()
        if (
            row is None
            and connection.execute(
                "SELECT 1 FROM sessions WHERE id = ?", (child,)
            ).fetchone()
        ):
            return  # another session's (it records another parent): not read here
        self.inlined.add(child)
        if row is None:  # the result names a session Goose made, and it is gone
            self.diagnostics.child_missing(_NAME, child)
            row = (None, None)
        instructions, source = self.delegations.get(call_id or "", (None, None))
        extra: dict[str, JSONValue] = {"child_id": child, "agent_type": "sub_agent"}
        if source:  # the recipe or agent it ran
            extra["agent_name"] = source
        yield self.say(
            "subagent",
            db_time(row[0]) or time,  # when it was created
            agent,
            call_id=call_id,
            text=instructions or one_line(row[1], limit=None),
            extra=extra,
        )
        yield from self.session(connection, child, child, depth + 1)

    def messages(
        self,
        connection: sqlite3.Connection,
        session_id: str,
        rows: Iterable[tuple[object, ...]] | None = None,
    ) -> Iterator[tuple[datetime | None, object, object, dict[str, object]]]:
        """The session's readable messages in order (of `rows`, `_message_rows`' rows,
        where given)."""
        if rows is None:
            rows = connection.execute(
                _message_rows(connection) + "ORDER BY id", (session_id,)
            )
        for row_id, role, rowid, stamp, meta in rows:
            content = self.items(connection, row_id, rowid, self.diagnostics)
            if content is not None:
                yield db_time(stamp), role, content[0], json_object(meta)

    def items(
        self,
        connection: sqlite3.Connection,
        row_id: object,
        rowid: object,
        diagnostics: Diagnostics,
    ) -> tuple[object] | None:
        """A message's content (JSON `null` too), or None where the whole read passes it
        over (counted)."""
        where = f"{self.db}#messages/{row_id}"
        if not isinstance(rowid, int):
            return None
        content = databases.bounded_value(
            connection, "messages", "content_json", rowid, full=self.full,
            diagnostics=diagnostics, where=where,
        )  # fmt: skip
        if content is None:
            return None  # counted "too long", or no content at all
        try:
            items: object = orjson.loads(content)
        except orjson.JSONDecodeError:
            diagnostics.skip(where, 0, "not JSON")
            return None
        return (items,)

    def legacy(self, path: str, full: bool, offset: int) -> Iterator[Event]:
        try:
            for line, record in files.iter_records(
                path, self.diagnostics, offset=offset, full=full
            ):
                if "role" not in record:
                    if line.number != 1 or offset:
                        self.diagnostics.unknown_type("line without role")
                    continue
                yield from self.message(
                    record.get("role"),
                    _current_items(record.get("content")),
                    db_time(record.get("created")),
                    json_object(record.get("metadata")),
                    None,
                    0,
                )
        except FileNotFoundError:
            self.diagnostics.problem(
                f"{_NAME}: {path} vanished before it could be read"
            )
        except OSError as error:
            self.diagnostics.problem(read_failed(_NAME, path, error))

    def message(
        self,
        role: object,
        items: object,
        time: datetime | None,
        meta: dict[str, object],
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        self.last_time = time or self.last_time
        flags: dict[str, JSONValue] = (
            {"hidden": True} if meta.get("userVisible") is False else {}
        )
        hidden_from_model = meta.get("agentVisible") is False
        if hidden_from_model:
            self.compacted.add(agent)
        if meta.get("userVisible") is False:
            # the user never saw it: the harness's words, never the user's. A compaction
            # (context_mgmt compact_messages) hides the history from the model, then adds
            # for the model only the summary as a user message, a "context was compacted"
            # note and the last prompt again: the summary is the compaction
            if role == "user" and not hidden_from_model and agent in self.compacted:
                self.compacted.discard(agent)
                texts = [
                    text
                    for item in (items if isinstance(items, list) else [])
                    if isinstance(item, dict) and item.get("type") == "text"
                    if (text := shown_text(item.get("text"), keep_empty=False))
                ]
                yield self.say("compaction", time, agent, text="\n".join(texts) or None)
                return
            flags["injected"] = True
        if meta.get("turnContext") is True:
            # what Goose appends for the model each turn (folder, time, todo list): the
            # harness spoke, not the user
            flags.update(injected=True, turn_context=True)
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                yield from self.content(item, role, time, flags, agent, depth)

    def requested(self, call_id: str | None, arguments: JSONValue) -> None:
        """Note a tool call that may be summon's delegate, for its spawn and result."""
        if call_id is not None and isinstance(arguments, dict):
            instructions = as_str(arguments.get("instructions"))
            source = as_str(arguments.get("source"))
            if instructions or source:  # perhaps summon's delegate: for its spawn
                self.delegations[call_id] = (instructions, source)
                if arguments.get("async") is True:
                    self.background.add(call_id)

    def content(
        self,
        item: dict[str, object],
        role: object,
        time: datetime | None,
        flags: dict[str, JSONValue],
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        kind = type_tag(item.get("type"))
        said: EventKind = "user" if role == "user" else "assistant"
        if flags.get("injected"):
            said = "meta"
        if kind == "text":
            text = shown_text(item.get("text"), keep_empty=False)
            if text:
                yield self.say(said, time, agent, text=text, extra=flags)
        elif kind == "image":
            data = item.get("data")
            size = len(data) * 3 // 4 if isinstance(data, str) else 0
            marker = files.elided(data) if isinstance(data, str) else None
            size = marker[0] * 3 // 4 if marker else size
            label = f"[{as_str(item.get('mimeType')) or 'image'}, {files.human_bytes(size)}]"
            yield self.say(said, time, agent, text=label, extra=flags)
        elif kind in ("toolRequest", "frontendToolRequest"):
            call = _result(item.get("toolCall"))
            name = as_str(call.get("name")) if isinstance(call, dict) else None
            arguments = json_copy(
                call.get("arguments") if isinstance(call, dict) else None
            )
            call_id = as_str(item.get("id"))
            self.requested(call_id, arguments)
            yield self.say(
                "tool_call",
                time,
                agent,
                tool=name,
                call_id=call_id,
                extra={"input": arguments},
            )
        elif kind == "toolResponse":
            result = item.get("toolResult")
            ok = isinstance(result, dict) and result.get("status") == "success"
            value = _result(result)
            is_error = not ok or (
                isinstance(value, dict) and value.get("isError") is True
            )
            call_id = as_str(item.get("id"))
            # summon's delegate names the sub-agent's session in the result's `_meta`;
            # the sub-agent ran between the call and this result, or, a foreground
            # delegate (`foreground_subagent`, schema v17), runs after it: the result only
            # says it was scheduled, and its outcome comes back as a hidden user message
            noted = _noted(result)
            child = noted.get("subagent_session_id")
            parent = agent or self.session_id
            after = noted.get("foreground_subagent") is True and not is_error
            spawned = self.spawn(child, parent, call_id, time, agent, depth)
            if after:  # the spawn is announced here, the sub-agent's events follow
                yield from itertools.islice(spawned, 1)
            else:
                yield from spawned
            # an async delegate answers at launch (summon.rs); `load` reports its end
            launched = (call_id in self.background or after) and not is_error
            yield self.say(
                "tool_result",
                time,
                agent,
                call_id=call_id,
                text=_tool_output(result, value),
                is_error=is_error,
                extra={"launched": True} if launched else {},
            )
            if after:
                yield from spawned
            ended = as_str(noted.get("task_status"))
            if isinstance(child, str) and ended in _TASK_ENDS:
                yield self.say(
                    "meta",
                    time,
                    agent,
                    text=f"sub-agent {ended}",
                    extra={"child_id": child, "subagent_status": _TASK_ENDS[ended]},
                )
        elif kind == "thinking":
            text = shown_text(item.get("thinking"), keep_empty=False)
            if text:
                yield self.say("thinking", time, agent, text=text)
        elif kind == "reasoning":
            # older messages; Goose reads them as thinking (and drops one without text)
            text = shown_text(item.get("text"), keep_empty=False)
            if text:
                yield self.say("thinking", time, agent, text=text)
        elif kind == "error":
            # the turn failed (`kind`: contextLengthExceeded, authentication, …)
            error_kind = as_str(item.get("kind"))
            yield self.say(
                "error",
                time,
                agent,
                text=shown_text(item.get("message"), keep_empty=False)
                or error_kind
                or "error",
                extra={"kind": error_kind} if error_kind else {},
            )
        elif kind == "systemNotification":
            notification = item.get("notificationType")
            if notification in _SPINNER_NOTIFICATIONS:
                return
            yield self.say(
                "meta",
                time,
                agent,
                text=as_str(item.get("msg")),
                extra={"notification": json_copy(notification)},
            )
        elif kind == "conversationCompacted":
            yield self.say("compaction", time, agent, text=as_str(item.get("msg")))
        elif kind == "actionRequired":
            yield from self.action(as_dict(item.get("data")), time, agent)
        elif kind in ("redactedThinking", "toolConfirmationRequest"):
            return
        else:
            self.diagnostics.unknown_type(f"content:{kind}")


def _action_event_text(data: dict[str, object]) -> str | None:
    """What the user answered to an elicitation, as one line of JSON or text."""
    answer = data.get("user_data")
    if isinstance(answer, str):
        return answer
    return orjson.dumps(answer).decode() if answer not in (None, {}) else None


def _result(value: object) -> object:
    """The `value` of Goose's `{status: success, value}` wrapper (None for an error)."""
    return (
        value.get("value")
        if isinstance(value, dict) and value.get("status") == "success"
        else None
    )


def _noted(result: object) -> dict[str, object]:
    """What a tool result's `_meta` notes (summon's delegate names its sub-agent there)."""
    return as_dict(as_dict(_result(result)).get("_meta"))


def _tool_output(result: object, value: object) -> str | None:
    if isinstance(result, dict) and result.get("status") == "error":
        return as_str(result.get("error")) or "error"
    content = (
        value.get("content") if isinstance(value, dict) else value
    )  # newer: CallToolResult
    items = (
        [item for item in content if isinstance(item, dict)]
        if isinstance(content, list)
        else []
    )
    # Goose's own tools answer twice (goose-mcp developer, since 1.0): the output for the
    # model (audience assistant) and for the person (audience user, a repeat or a summary
    # such as a listing's count); the model's copy is the output, unless it has no text (a
    # file view's is an embedded resource)
    texts = _texts([item for item in items if _for_model(item)]) or _texts(items)
    return "\n".join(texts) if texts else None


def _texts(items: list[dict[str, object]]) -> list[str]:
    texts = []
    for item in items:
        if isinstance(item.get("text"), str):
            texts.append(shown_text(item["text"], keep_empty=False) or "")
        elif item.get("type") == "image":
            texts.append(f"[{as_str(item.get('mimeType')) or 'image'}]")
    return texts


def _for_model(item: dict[str, object]) -> bool:
    """Whether a tool result's content item reached the model: any without an audience."""
    audience = as_dict(item.get("annotations")).get("audience")
    return not isinstance(audience, list) or "assistant" in audience
