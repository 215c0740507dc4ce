"""Zed's serialized agent threads, translated into events (see zed.py for the format).

A thread is one row of `threads.db`: `data` holds the thread as serde JSON, zstd-compressed
(`data_type` "zstd") or not ("json"). The JSON is read through SQLite's blob IO and, where
compressed, a streaming zstd reader: a thread up to `files.READ_LINE_CAP` decompressed is
parsed whole, a longer one (a pasted image) has its long strings elided as a transcript's
are (`files.compacted`), so no thread costs more memory than that.

Two shapes: `DbThread` (version "0.3.0", the agent since Zed's ACP rewrite: messages
`{"User": …}`, `{"Agent": …}`, `"Resume"` and, since Zed compacts a long thread,
`{"Compaction": {"Summary": …}}` or `{"Compaction": {"ProviderNative": …}}`: not yet in
db.rs @0642ec7e, seen in the thread.rs of later Zed forks and in a third-party reader of
Zed's threads, no real row), and the first agent's `SerializedThread`
("0.2.0", "0.1.0", or no version: messages with `role`, `segments`, `tool_uses`,
`tool_results`). Anything else in them is counted (`Diagnostics.unknown_type`), never raised.
"""

from __future__ import annotations

import io
import itertools
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import PurePath
from typing import Any

import orjson

from .. import databases, files
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, EventKind, JSONValue, Usage
from ._values import (
    Emitter,
    as_str,
    blob,
    json_copy,
    loaded_object,
    odd_count,
    one_line,
    shown_arguments,
)

CURRENT = "0.3.0"  # DbThread::VERSION
LEGACY = ("0.2.0", "0.1.0")  # SerializedThread and SerializedThreadV0_1_0
MAX_DEPTH = 4  # Zed's MAX_SUBAGENT_DEPTH: deeper links are a loop, not read
# the fields Zed's source writes (db.rs `DbThread` with its `version`; legacy_thread.rs
# `SerializedThread`, with the `exceeded_window_error` of early releases): any other is
# counted, so that `doctor` shows a newer Zed's additions
CURRENT_FIELDS = frozenset({
    "title", "messages", "updated_at", "detailed_summary", "initial_project_snapshot",
    "cumulative_token_usage", "request_token_usage", "model", "profile", "imported",
    "subagent_context", "speed", "thinking_enabled", "thinking_effort", "draft_prompt",
    "ui_scroll_position", "sandboxed_terminal_temp_dir", "version",
})  # fmt: skip
LEGACY_FIELDS = frozenset({
    "version", "summary", "updated_at", "messages", "initial_project_snapshot",
    "cumulative_token_usage", "request_token_usage", "detailed_summary_state", "model",
    "completion_mode", "tool_use_limit_reached", "profile", "exceeded_window_error",
})  # fmt: skip
_TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
# the Usage field of each
_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def decoded(
    connection: sqlite3.Connection, rowid: int, *, compressed: bool, full: bool
) -> bytes | None:
    """A row's thread JSON, decompressed as it is read; long strings elided past the cap
    (None: too long even so). Raises OSError (`files.CorruptData`) or zstd's error for
    data that does not decompress, or a row with no data."""
    stream, size = _opened(connection, rowid)
    with stream:
        read: Callable[[int], bytes] = stream.read
        if compressed:
            import zstandard

            # sqlite3.Blob reads as a file does: all the stream reader asks of it
            read = (
                zstandard.ZstdDecompressor()
                .stream_reader(stream, read_size=files.CHUNK)
                .read
            )
        pieces = iter(lambda: read(files.CHUNK), b"")
        buffer = bytearray()
        for piece in pieces:
            buffer += piece
            if not full and len(buffer) > files.READ_LINE_CAP:
                return files.compacted(itertools.chain((bytes(buffer),), pieces))
        if compressed and not buffer and size:
            # a frame cut inside its first block, or not zstd: the reader gives nothing
            raise files.CorruptData("corrupt zstd data")
        return bytes(buffer)


def _opened(connection: sqlite3.Connection, rowid: int) -> tuple[Any, int]:
    """(a file-like reader of the row's `data`, its size): SQLite's blob IO, which never
    loads a huge value whole; a value it cannot open (not text nor blob: a damaged row)
    is read the plain way."""
    try:
        blob = databases.open_blob(connection, "threads", "data", rowid)
    except sqlite3.Error:
        row = connection.execute(
            "SELECT data FROM threads WHERE rowid = ?", (rowid,)
        ).fetchone()
        value = row[0] if row else None
        if not isinstance(value, bytes | str):
            raise files.CorruptData("no thread data") from None
        data = value.encode() if isinstance(value, str) else value
        return io.BytesIO(data), len(data)
    return blob, len(blob)


def children_of(connection: sqlite3.Connection, thread_id: str) -> list[str]:
    """The threads whose parent is `thread_id`, oldest first. Zed indexes no
    `parent_id`, and its column lies past the thread's blob: one scan for the run."""

    def by_parent(rows: list[tuple[object, ...]]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for child, parent in rows:
            if isinstance(child, str) and isinstance(parent, str):
                found.setdefault(parent, []).append(child)
        return found

    children = databases.scanned(
        connection,
        "SELECT id, parent_id FROM threads WHERE parent_id IS NOT NULL"
        " ORDER BY created_at, id",
        by_parent,
    )
    return list(children.get(thread_id, ()))


def load(
    connection: sqlite3.Connection,
    thread_id: str,
    diagnostics: Diagnostics,
    where: str,
    *,
    full: bool = False,
) -> dict[str, object] | None:
    """The thread's JSON object; None, counted in `diagnostics` at `where`, for a row that
    is gone, of a data type Zed does not write, damaged or cut short."""
    import zstandard

    row = connection.execute(
        "SELECT rowid, data_type FROM threads WHERE id = ? LIMIT 1", (thread_id,)
    ).fetchone()
    if row is None:
        diagnostics.skip(where, 0, "vanished")
        return None
    rowid, data_type = row
    if not isinstance(rowid, int):  # a view's row: nothing opens it by its rowid
        diagnostics.skip(where, 0, databases.NO_ROWID)
        return None
    if data_type not in ("json", "zstd"):
        diagnostics.unknown_type(f"data_type {one_line(data_type, limit=40)}")
        diagnostics.skip(where, 0, "bad value")
        return None
    try:
        data = decoded(connection, rowid, compressed=data_type == "zstd", full=full)
    except (OSError, zstandard.ZstdError):
        diagnostics.skip(where, 0, "unreadable")
        return None
    if data is None:
        diagnostics.skip(where, 0, "too long")
        return None
    return loaded_object(data, where, diagnostics)


def is_current(thread: Mapping[str, object], diagnostics: Diagnostics) -> bool:
    """Whether the thread is a `DbThread` (else the first agent's `SerializedThread`):
    by its version, as Zed decides, and, for a version Zed does not know, by its
    messages' shape (counted as an unknown version)."""
    version = thread.get("version")
    if version == CURRENT:
        return True
    if version is None or version in LEGACY:
        return False
    diagnostics.unknown_type(f"thread version {one_line(version, limit=40)}")
    messages = thread.get("messages")
    first = messages[0] if isinstance(messages, list) and messages else None
    return not (isinstance(first, dict) and "role" in first)


def folder_of(thread: Mapping[str, object]) -> tuple[str | None, str | None]:
    """(folder, branch) of the thread's first worktree when it started
    (`initial_project_snapshot`), where Zed saved one."""
    snapshot = thread.get("initial_project_snapshot")
    trees = snapshot.get("worktree_snapshots") if isinstance(snapshot, dict) else None
    first = trees[0] if isinstance(trees, list) and trees else None
    if not isinstance(first, dict):
        return None, None
    state = first.get("git_state")
    branch = state.get("current_branch") if isinstance(state, dict) else None
    return as_str(first.get("worktree_path")), as_str(branch)


def _tokens(value: object, model: str | None) -> Usage | None:
    """A `language_model::TokenUsage` (zero fields left out, as Zed writes it) as a
    Usage; None where it holds no tokens. Zed's input excludes cache reads and writes."""
    if not isinstance(value, dict):
        return None
    counts = []
    for key in _TOKENS:
        number = value.get(key, 0)
        counts.append(number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else 0)  # fmt: skip
    if not any(counts):
        return None
    return Usage(
        input_tokens=counts[0],
        output_tokens=counts[1],
        cache_read_tokens=counts[2],
        cache_write_tokens=counts[3],
        model=model,
    )


def _less(counts: list[int], amount: int) -> list[int]:
    """`counts` less `amount` in all (at most their sum), each by its share of it: what
    rounding leaves, from the first with room."""
    whole = sum(counts)
    cuts = [amount * count // whole for count in counts] if whole else [0] * len(counts)
    left = amount - sum(cuts)
    for index, count in enumerate(counts):
        more = min(left, count - cuts[index])
        cuts[index] += more
        left -= more
    return [count - cut for count, cut in zip(counts, cuts, strict=True)]


def _total(usage: Usage | None) -> int:
    if usage is None:
        return 0
    return (
        usage.input_tokens
        + usage.output_tokens
        + usage.cache_read_tokens
        + usage.cache_write_tokens
    )


def result_text(content: object, diagnostics: Diagnostics) -> str:
    """A tool result's content as text: a string, `{"Text": …}` (any case, or Anthropic's
    `{"type": "text", "text": …}`), an image (`{"Image": …}` or its fields), or a list of
    them (newer Zed keeps a list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(result_text(item, diagnostics) for item in content)
    if isinstance(content, dict):
        lowered = {str(key).lower(): item for key, item in content.items()}
        text = lowered.get("text")
        if isinstance(text, str):
            return text
        image = lowered.get("image", content)
        if isinstance(image, dict) and "source" in image:
            return blob("image", image.get("source"))
    diagnostics.unknown_type("tool result content")
    return ""


def _mention(uri: object, diagnostics: Diagnostics) -> tuple[str, str | None]:
    """(what the prompt shows, the path or address) of an @-mention's `MentionUri`."""
    kind, fields = _variant(uri)
    fields = fields if isinstance(fields, dict) else {}
    path = as_str(fields.get("abs_path")) or as_str(fields.get("path"))
    name = as_str(fields.get("name"))
    if kind in ("File", "Directory", "Selection") and path:
        return PurePath(path).name or path, path
    if kind in ("Symbol", "Thread", "TextThread", "Rule", "Skill") and name:
        return name, path
    if kind == "Fetch":
        url = as_str(fields.get("url"))
        return url or "fetch", url
    if kind == "GitDiff":  # the branch's diff against a base
        return f"diff against {as_str(fields.get('base_ref')) or '?'}", None
    if kind == "MergeConflict":
        conflicted = as_str(fields.get("file_path"))
        return PurePath(conflicted).name if conflicted else "merge conflict", conflicted
    if kind == "Selection":  # of a buffer with no file
        return "selection", None
    if kind in ("PastedImage", "Diagnostics", "TerminalSelection"):
        return {"PastedImage": "image", "Diagnostics": "diagnostics"}.get(kind, "terminal selection"), None  # fmt: skip
    diagnostics.unknown_type(f"mention {one_line(kind, limit=40) or '?'}")
    return "mention", path


def _variant(value: object) -> tuple[str | None, object]:
    """serde's external tagging: `"Unit"` or `{"Variant": fields}`."""
    if isinstance(value, str):
        return value, None
    if isinstance(value, dict) and len(value) == 1:
        [(key, fields)] = value.items()
        return str(key), fields
    return None, value


class Reader:
    """Translates one thread, and the sub-agent threads it spawned, into events."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        session_id: str,
        database: str,
        diagnostics: Diagnostics,
        *,
        full: bool = False,
        updated: datetime | None = None,
    ) -> None:
        self.connection = connection
        self.database = database
        self.diagnostics = diagnostics
        self.full = full
        self.updated = updated
        self.emit = Emitter(session_id)
        self.read_threads: set[str] = set()

    def thread(
        self, thread_id: str, agent_id: str | None = None, depth: int = 0
    ) -> Iterator[Event]:
        """The events of one thread (`agent_id` None for the session read), then of the
        sub-agents it spawned that none of its results named."""
        self.read_threads.add(thread_id)
        where = f"{self.database}#threads/{thread_id}"
        value = load(
            self.connection, thread_id, self.diagnostics, where, full=self.full
        )
        if value is None:
            return
        children = children_of(self.connection, thread_id) if depth < MAX_DEPTH else []
        turn = _Turn(self, value, agent_id, children, depth, where)
        current = is_current(value, self.diagnostics)
        known = CURRENT_FIELDS if current else LEGACY_FIELDS
        for field in value.keys() - known:
            self.diagnostics.unknown_type(f"thread field {one_line(field, limit=40)}")
        if value.get("imported") is True:  # a thread someone shared, opened from a link
            yield self.emit(
                "meta",
                agent_id=agent_id,
                text="a shared thread, imported into Zed: its turns ran elsewhere",
                extra={"imported": True},
            )
        if current:
            yield from turn.current()
        else:
            yield from turn.legacy()
        for child in children:
            if child not in self.read_threads:  # spawned, but no result names it
                yield from self.subagent(child, None, None, agent_id, depth)

    def subagent(
        self,
        child: str,
        call_id: str | None,
        spawn: tuple[str, str] | None,
        agent_id: str | None,
        depth: int,
    ) -> Iterator[Event]:
        """A `subagent` event (`spawn`: the call's label and message), then the child's
        thread by its own id."""
        label, message = spawn or ("", "")
        if not label:
            title = self.connection.execute(
                "SELECT summary FROM threads WHERE id = ?", (child,)
            ).fetchone()
            label = (one_line(title[0], limit=None) if title else None) or ""
        extra: dict[str, JSONValue] = {"child_id": child}
        if label:
            extra["agent_name"] = label
        yield self.emit(
            "subagent",
            agent_id=agent_id,
            call_id=call_id,
            text=one_line(message, limit=None) or label or None,
            extra=extra,
        )
        yield from self.thread(child, child, depth + 1)


class _Turn:
    """The walk through one thread's messages."""

    def __init__(
        self,
        reader: Reader,
        thread: dict[str, object],
        agent_id: str | None,
        children: list[str],
        depth: int,
        where: str = "",
    ) -> None:
        self.reader = reader
        self.where = where  # the thread's row, which an odd count is said of
        self.thread = thread
        self.agent_id = agent_id
        self.children = children
        self.depth = depth
        self.diagnostics = reader.diagnostics
        model = thread.get("model")
        model = model if isinstance(model, dict) else {}
        self.model = as_str(model.get("model"))
        self.provider = as_str(model.get("provider"))
        self.from_agent = agent_id is not None or isinstance(
            thread.get("subagent_context"), dict
        )
        self.cumulative = self.tokens(
            thread.get("cumulative_token_usage"), "set of totals"
        )
        # the turns' usage billed so far, which the running sum holds too
        self.billed: list[Usage] = []
        self.spawns: dict[str, tuple[str, str]] = {}  # spawn_agent call: label, message
        self.tools: dict[str, str] = {}  # call id: tool name (legacy results have none)
        self.open_calls: set[str] = set()

    def tokens(self, value: object, counted: str = "response") -> Usage | None:
        """`_tokens` of a TokenUsage billed, saying a count in it no app writes (as a
        `counted`: a request's, or the thread's running sum), which it takes as 0."""
        if isinstance(value, dict) and any(odd_count(value.get(k)) for k in _TOKENS):
            self.diagnostics.damage(self.where, 0, odd_in(counted))
        return _tokens(value, self.model)

    def rest(self) -> Usage | None:
        """What the running sum holds beyond the turns billed (each turn's last
        request): the turns' earlier requests, one sum; None where there is no sum, or
        one below the turns' (a first-agent thread Zed upgraded, then continued before
        it kept the sum: the turns alone, a floor). Where the turns hold more of one
        field than the sum, though not more in all, the sum is what was spent: that
        excess comes out of the rest's other fields, and the sum is said as damage."""
        summed, billed = self.cumulative, self.billed
        if summed is None or _total(summed) < sum(_total(turn) for turn in billed):
            return None
        left = [
            getattr(summed, field) - sum(getattr(t, field) for t in billed)
            for field in _FIELDS
        ]
        over = -sum(count for count in left if count < 0)
        if over:
            self.diagnostics.damage(self.where, 0, odd_in("set of totals"))
        counts = _less([max(0, count) for count in left], over)
        return _tokens(dict(zip(_TOKENS, counts, strict=True)), self.model)

    def say(self, kind: EventKind, **fields: object) -> Event:
        return self.reader.emit(kind, agent_id=self.agent_id, **fields)  # type: ignore[arg-type]

    def usage(self, usage: Usage | None, scope: str) -> Iterator[Event]:
        if usage is None:
            return
        if scope == "turn":
            self.billed.append(usage)
        extra: dict[str, JSONValue] = {"scope": scope}
        if scope == "session":
            extra["summed"] = True
        if self.provider:
            extra["provider"] = self.provider
        yield self.reader.emit(
            "usage",
            self.reader.updated,
            estimated=True,
            agent_id=self.agent_id,
            usage=usage,
            extra=extra,
        )

    def ended(self, last: bool = False) -> Iterator[Event]:
        if not self.open_calls:
            time = self.reader.updated if last else None
            yield self.reader.emit(
                "turn_end", time, estimated=True, agent_id=self.agent_id
            )

    # --- DbThread 0.3.0 -------------------------------------------------------------

    def current(self) -> Iterator[Event]:
        per_turn = self.thread.get("request_token_usage")
        per_turn = per_turn if isinstance(per_turn, dict) else {}
        messages = self.thread.get("messages")
        user: str | None = None  # the turn's UserMessageId
        answered = False
        for message in messages if isinstance(messages, list) else []:
            kind, fields = _variant(message)
            if kind == "User" and isinstance(fields, dict):
                if answered:
                    yield from self.usage(self.tokens(per_turn.get(user or "")), "turn")
                    yield from self.ended()
                user, answered = as_str(fields.get("id")), False
                yield from self.user(fields.get("content"))
            elif kind == "Agent" and isinstance(fields, dict):
                answered = True
                yield from self.agent(fields)
            elif (
                kind == "Resume"
            ):  # Zed asked the model to go on, after a tool-use limit
                yield self.say(
                    "meta",
                    text="Zed asked the model to continue where it left off",
                    extra={"resumed": True},
                )
            elif kind == "Compaction":  # the history before it, summed up
                yield self.compaction(fields)
            else:
                self.diagnostics.unknown_type(f"message {one_line(kind, limit=40) or type(message).__name__}")  # fmt: skip
        if answered:
            yield from self.usage(self.tokens(per_turn.get(user or "")), "turn")
            yield from self.ended(last=True)
        yield from self.usage(self.rest(), "session")

    def compaction(self, info: object) -> Event:
        """Zed's `CompactionInfo`: `{"Summary": text}`, or the provider's own compacted
        items (`{"ProviderNative": {provider, items}}`), which hold no text to show."""
        kind, fields = _variant(info)
        if kind == "Summary" and isinstance(fields, str):
            return self.say("compaction", text=fields)
        extra: dict[str, JSONValue] = {}
        if kind == "ProviderNative" and isinstance(fields, dict):
            provider = as_str(fields.get("provider"))
            if provider:
                extra["provider"] = provider
        else:
            self.diagnostics.unknown_type(
                f"compaction {one_line(kind, limit=40) or '?'}"
            )
        return self.say("compaction", extra=extra)

    def user(self, content: object) -> Iterator[Event]:
        parts: list[str] = []
        mentions: list[JSONValue] = []
        for item in content if isinstance(content, list) else []:
            kind, fields = _variant(item)
            if kind == "Text" and isinstance(fields, str):
                parts.append(fields)
            elif kind == "Mention" and isinstance(fields, dict):
                shown, where = _mention(fields.get("uri"), self.diagnostics)
                parts.append(f"@{shown}")
                if where:
                    mentions.append(where)
            elif kind == "Image":
                parts.append(blob("image", fields.get("source") if isinstance(fields, dict) else None))  # fmt: skip
            else:
                self.diagnostics.unknown_type(f"user content {one_line(kind, limit=40) or '?'}")  # fmt: skip
        text = "".join(parts)
        if not text.strip():
            return
        extra: dict[str, JSONValue] = {}
        if mentions:
            extra["mentions"] = mentions
        if self.from_agent:
            extra["from_agent"] = "the lead"
        yield self.say("user", text=text, extra=extra)

    def agent(self, fields: dict[str, object]) -> Iterator[Event]:
        content = fields.get("content")
        for item in content if isinstance(content, list) else []:
            kind, value = _variant(item)
            if kind == "Text" and isinstance(value, str):
                if value.strip():
                    yield self.say("assistant", text=value)
            elif kind == "Thinking" and isinstance(value, dict):
                text = as_str(value.get("text"))
                if text:
                    yield self.say("thinking", text=text)
            elif kind == "RedactedThinking":
                yield self.say(
                    "thinking", text="[redacted thinking]", extra={"redacted": True}
                )
            elif kind == "ToolUse" and isinstance(value, dict):
                yield self.call(value.get("id"), value.get("name"), value.get("input"), value.get("raw_input"))  # fmt: skip
            else:
                self.diagnostics.unknown_type(f"agent content {one_line(kind, limit=40) or '?'}")  # fmt: skip
        results = fields.get("tool_results")
        if isinstance(results, dict):
            for result in results.values():
                if isinstance(result, dict):
                    yield from self.result(result)
        elif results is not None:
            self.diagnostics.unknown_type("tool_results")

    def call(
        self, call_id: object, name: object, arguments: object, raw: object
    ) -> Event:
        call = as_str(call_id)
        tool = as_str(name)
        if arguments is None and isinstance(
            raw, str
        ):  # the model's input, not parsed yet
            arguments = raw
        shown = shown_arguments(arguments)
        if call:
            self.open_calls.add(call)
            self.tools[call] = tool or ""
            if tool == "spawn_agent" and isinstance(arguments, dict):
                label, message = arguments.get("label"), arguments.get("message")
                self.spawns[call] = (as_str(label) or "", as_str(message) or "")
        extra: dict[str, JSONValue] = {"input": shown}
        return self.say("tool_call", tool=tool, call_id=call, extra=extra)

    def result(self, result: dict[str, object]) -> Iterator[Event]:
        call = as_str(result.get("tool_use_id"))
        if call:
            self.open_calls.discard(call)
        output = result.get("output")
        child = self.spawned(output, result.get("content"))
        if child is not None:
            yield from self.reader.subagent(child, call, self.spawns.get(call or ""), self.agent_id, self.depth)  # fmt: skip
        extra: dict[str, JSONValue] = {}
        if output is not None and child is None and not isinstance(output, str):
            extra["output"] = json_copy(output)
        text = result_text(result.get("content"), self.diagnostics)
        if isinstance(output, dict) and "session_id" in output:  # spawn_agent's
            said = output.get("output", output.get("error"))
            text = said if isinstance(said, str) else text
        yield self.say(
            "tool_result",
            tool=as_str(result.get("tool_name")) or self.tools.get(call or "") or None,
            call_id=call,
            text=text,
            is_error=result.get("is_error") is True,
            extra=extra,
        )

    def spawned(self, output: object, content: object) -> str | None:
        """The sub-agent thread a result names (`spawn_agent`'s `{session_id, output}`),
        if it is one of this thread's children not read yet."""
        named = output.get("session_id") if isinstance(output, dict) else None
        if named is None and isinstance(content, str | list):
            text = content if isinstance(content, str) else ""
            if isinstance(content, list) and content and isinstance(content[0], dict):
                text = as_str(content[0].get("Text")) or ""
            if text.startswith("{") and '"session_id"' in text:
                try:
                    parsed = orjson.loads(text)
                except orjson.JSONDecodeError:
                    parsed = None
                named = parsed.get("session_id") if isinstance(parsed, dict) else None
        if isinstance(named, str) and named in self.children and named not in self.reader.read_threads:  # fmt: skip
            return named
        return None

    # --- SerializedThread 0.2.0, 0.1.0 and before ------------------------------------

    def legacy(self) -> Iterator[Event]:
        requests = self.thread.get("request_token_usage")
        requests = requests if isinstance(requests, list) else []
        turn_usage: Usage | None = None
        answered = False
        messages = self.thread.get("messages")
        for index, message in enumerate(messages if isinstance(messages, list) else []):
            if not isinstance(message, dict):
                self.diagnostics.unknown_type(f"message {type(message).__name__}")
                continue
            role = message.get("role")
            segments = message.get("segments")
            if segments is None and isinstance(message.get("text"), str):  # unversioned
                segments = [{"type": "text", "text": message["text"]}]
            if role == "user":
                texts = [s.get("text") for s in segments if isinstance(s, dict)] if isinstance(segments, list) else []  # fmt: skip
                text = "".join(t for t in texts if isinstance(t, str))
                if text.strip():
                    if answered:
                        yield from self.usage(turn_usage, "turn")
                        yield from self.ended()
                        turn_usage, answered = None, False
                    hidden = message.get("is_hidden") is True
                    yield self.say("meta" if hidden else "user", text=text,
                                   extra={"hidden": True} if hidden else {})  # fmt: skip
            elif role == "assistant":
                answered = True
                yield from self.segments(segments)
                if index < len(requests):
                    turn_usage = self.tokens(requests[index]) or turn_usage
            elif role != "system":  # Zed drops system messages too
                self.diagnostics.unknown_type(f"role {one_line(role, limit=40) or '?'}")
                continue
            uses = message.get("tool_uses")
            for use in uses if isinstance(uses, list) else []:
                if isinstance(use, dict):
                    yield self.call(
                        use.get("id"), use.get("name"), use.get("input"), None
                    )
            results = message.get("tool_results")
            for result in results if isinstance(results, list) else []:
                if isinstance(
                    result, dict
                ):  # 0.1.0 keeps them on the next user message
                    yield from self.result(result)
        if answered:
            yield from self.usage(turn_usage, "turn")
            yield from self.ended(last=True)
        yield from self.usage(self.rest(), "session")

    def segments(self, segments: object) -> Iterator[Event]:
        for segment in segments if isinstance(segments, list) else []:
            kind = segment.get("type") if isinstance(segment, dict) else None
            text = as_str(segment.get("text")) if isinstance(segment, dict) else None
            if kind == "text":
                if text and text.strip():
                    yield self.say("assistant", text=text)
            elif kind == "thinking":
                if text:
                    yield self.say("thinking", text=text)
            elif kind == "RedactedThinking":
                yield self.say(
                    "thinking", text="[redacted thinking]", extra={"redacted": True}
                )
            else:
                self.diagnostics.unknown_type(
                    f"segment {one_line(kind, limit=40) or '?'}"
                )
