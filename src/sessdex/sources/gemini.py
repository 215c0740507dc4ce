"""Gemini CLI: chats under <home>/.gemini/tmp/<project>/chats/, JSONL with patch semantics.

What the app writes: since ~0.40 one `session-<UTC minute>-<id8>.jsonl` per session. Line 1 is
a header (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind` main|subagent); then
message records (`id`, `timestamp`, `type` user|gemini|info|error|warning, `content`, and on
`gemini` lines `thoughts`, `tokens`, `model`, `toolCalls` whose `result` holds the tool output),
`{"$set": {...}}` patches and `{"$rewindTo": id}`. A message is re-appended whenever it changes
(the same id written first without, then with its tool calls): the last write wins and keeps the
first position. `$rewindTo` drops that message and all later ones (an unknown id drops all).
A `$set` carrying `messages` is a checkpoint of the whole list (written at start, on resume,
after compression); `$set.summary` is the generated one-line summary, which the TUI writes into
the *previous* session when it starts. A resume appends a second header to the same file.
Sub-agents get their own file, `chats/<parent session id>/<child id>.jsonl` (`kind: subagent`),
and the spawning tool call carries `agentId`. Before ~0.40 a session was one JSON document
(`session-*.json`, `{sessionId, projectHash, startTime, lastUpdated, messages, summary}`),
rewritten whole; a resume converts it to `.jsonl` beside it, so both can exist (`.jsonl` wins).

The project folder is a short name mapped to its path in `projects.json` (and by a
`.project_root` marker inside it); older folders are the sha256 of the path, which we can only
map back when `projects.json` still names that path, else `cwd` stays None. No branch, approval
mode or CLI version is recorded.

What we read for a listing: the head and a bounded tail of each chat (header, first user
message, last `summary`, last `model`, last update). `read` streams the file once to build the
final message order (holding only line offsets), then re-reads each final record by offset.
Checkpoints add the messages they name that we have not seen (the synthetic `<id>_response`
turns of a resume, a compression summary) but never remove any: a checkpoint that both drops
known messages and brings new ones is shown as a compaction. Known messages keep their own
richer record (the checkpoint copy lacks tokens and tool calls). Tool calls and results are
de-duplicated by call id, since a result is both on the model message and in the next user turn.

What we ignore, and why: the `<session_context>` preamble (boilerplate date/OS/folder listing),
`$set` keys other than `summary`/`lastUpdated`/`messages` (`memoryScratchpad`, `directories`),
`logs.json`, `checkpoints/`, `*.unreadable-*` files kept aside by gemini.

Usage: one `usage` event per `gemini` message id, from its last write; `input_tokens` = `input`
- `cached` + `tool` (the API's prompt count includes the cached part), `output_tokens` =
`output` + `thoughts` (thoughts are billed as output), `reasoning_tokens` = `thoughts`. Tokens of
a message later dropped by `$rewindTo` were still billed: they are kept, at the rewind.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO, cast

import orjson

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from .base import Home, Location

NAME = "gemini"
TITLE = "Gemini CLI"
CHECKED_WITH = (
    "gemini 0.61.0 (JSONL chats); pre-0.40 one-file JSON chats from public samples"
)
ENV_VARS = ("GEMINI_CLI_HOME",)

INSTALL_HINT = "npm install -g @google/gemini-cli"
SUBAGENT_DEPTH = 4  # sub-agents of sub-agents are followed this deep
LEGACY_LIST_LIMIT = (
    16 * 1024 * 1024
)  # a one-file JSON chat bigger than this is listed by name only
TITLE_CHARS = 200
_CONTEXT_PREFIX = "<session_context>"
_SAFE_MODES = ("default", "plan")  # approval modes at least as strict as the default
_MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
_HASH_NAME = re.compile(r"^[0-9a-f]{64}$")
_TAIL_KEYS = (b'"summary"', b'"model"', b'"lastUpdated"', b'"timestamp"')


# --- where -----------------------------------------------------------------------------


def locate(home: Home) -> Location:
    """`$GEMINI_CLI_HOME/.gemini` if set (it names a home, not the .gemini folder), else ~/.gemini."""
    base = home.env_dir("GEMINI_CLI_HOME")
    if base is not None:
        return Location(base / ".gemini", override=f"GEMINI_CLI_HOME={base}")
    return Location(home.path / ".gemini")


def scan(location: Location) -> Iterator[Path]:
    """Every chat file: tmp/<project>/chats/session-*.json(l) and chats/<parent id>/*.jsonl."""
    if not location.exists:
        return iter(())
    return iter(list(_scan(location.root)))


def _scan(root: Path) -> Iterator[Path]:
    for project in files.entries(root / "tmp", root):
        if not project.is_dir():
            continue
        chats = Path(project.path) / "chats"
        for entry in files.entries(chats, root):
            if entry.is_dir():
                for child in files.entries(Path(entry.path), root):
                    if child.name.endswith(".jsonl") and child.is_file():
                        yield Path(child.path)
            elif _is_chat_name(entry.name) and entry.is_file():
                yield Path(entry.path)


def _is_chat_name(name: str) -> bool:
    return name.startswith("session-") and (
        name.endswith(".jsonl") or name.endswith(".json")
    )


# --- listing ---------------------------------------------------------------------------


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    """What one chat file says about its session, from its head and tail."""
    try:
        size = path.stat().st_size
    except OSError:
        diagnostics.skip(str(path), 0, "vanished")
        return []
    if path.suffix == ".json":
        return _parse_legacy(path, location, size, diagnostics)
    return _parse_jsonl(path, location, size, diagnostics)


@dataclass(slots=True)
class _Listing:
    header: dict[str, object] | None = None
    first_user: str | None = None
    summary: str | None = None
    model: str | None = None
    updated: datetime | None = None

    def saw_time(self, value: object) -> None:
        moment = _time(value)
        if moment is not None and (self.updated is None or moment > self.updated):
            self.updated = moment


def _parse_jsonl(
    path: Path, location: Location, size: int, diagnostics: Diagnostics
) -> list[Session]:
    name = str(path)
    listing = _Listing()
    head = files.head_lines(path, diagnostics=diagnostics)
    head_end = head[-1].end if head else 0
    for line in head:
        record = files.parse_json(line, diagnostics, name)
        if record is not None:
            _list_record(record, listing, in_head=True)
    if size > head_end:
        for line in files.tail_lines(path):
            # the tail may overlap the head; a torn last line is not written yet (not counted)
            if line.offset < head_end or not any(
                key in line.data for key in _TAIL_KEYS
            ):
                continue
            record = files.parse_json(line)
            if record is not None:
                _list_record(record, listing, in_head=False)
    header = listing.header
    if header is None or not isinstance(header.get("sessionId"), str):
        diagnostics.skip(name, 1, "bad value")
        return []
    session_id = str(header["sessionId"])
    kind = header.get("kind")
    parent_id = path.parent.name if path.parent.name != "chats" else None
    is_subagent = kind == "subagent" or parent_id is not None
    project = _project_dir(path)
    cwd = _project_cwd(project, header.get("projectHash"), location.root)
    if cwd is None and is_subagent:
        directories = header.get("directories")
        if (
            isinstance(directories, list)
            and directories
            and isinstance(directories[0], str)
        ):
            cwd = directories[0]
    # a sub-agent's `summary` is its final answer, not a title: its task prompt says more
    title = (
        listing.first_user if is_subagent else (listing.summary or listing.first_user)
    )
    return [
        Session(
            app=NAME,
            id=session_id,
            path=name,
            cwd=cwd,
            title=title,
            created=_time(header.get("startTime")),
            updated=listing.updated or _time(header.get("lastUpdated")),
            model=listing.model,
            bytes=size,
            parent_id=parent_id if is_subagent else None,
            precedence=1,
            extra={
                "project": project.name,
                "kind": str(kind) if isinstance(kind, str) else "main",
            },
        )
    ]


def _list_record(
    record: dict[str, object], listing: _Listing, *, in_head: bool
) -> None:
    if "$set" in record:
        patch = record["$set"]
        if isinstance(patch, dict):
            summary = patch.get("summary")
            if isinstance(summary, str) and summary.strip():
                listing.summary = _one_line(summary)
            listing.saw_time(patch.get("lastUpdated"))
        return
    if "$rewindTo" in record:
        return
    if isinstance(record.get("id"), str):
        listing.saw_time(record.get("timestamp"))
        kind = record.get("type")
        if kind == "gemini" and isinstance(record.get("model"), str):
            listing.model = str(record["model"])
        elif kind == "user" and in_head and listing.first_user is None:
            listing.first_user = _typed_text(record)
        return
    if isinstance(record.get("sessionId"), str):
        if listing.header is None:
            listing.header = record
        listing.saw_time(record.get("lastUpdated"))
        summary = record.get("summary")
        if isinstance(summary, str) and summary.strip():
            listing.summary = _one_line(summary)


def _parse_legacy(
    path: Path, location: Location, size: int, diagnostics: Diagnostics
) -> list[Session]:
    name = str(path)
    document = (
        files.read_json_file(path, limit=LEGACY_LIST_LIMIT)
        if size <= LEGACY_LIST_LIMIT
        else None
    )
    if not isinstance(document, dict) or not isinstance(document.get("sessionId"), str):
        if size <= LEGACY_LIST_LIMIT:
            diagnostics.skip(name, 1, "not JSON" if document is None else "bad value")
        return []
    messages = document.get("messages")
    messages = messages if isinstance(messages, list) else []
    first_user = next(
        (
            text
            for m in messages
            if isinstance(m, dict)
            and m.get("type") == "user"
            and (text := _typed_text(m))
        ),
        None,
    )
    model = next(
        (
            str(m["model"])
            for m in reversed(messages)
            if isinstance(m, dict) and isinstance(m.get("model"), str)
        ),
        None,
    )
    summary = document.get("summary")
    project = _project_dir(path)
    kind = document.get("kind")
    return [
        Session(
            app=NAME,
            id=str(document["sessionId"]),
            path=name,
            cwd=_project_cwd(project, document.get("projectHash"), location.root),
            title=_one_line(summary)
            if isinstance(summary, str) and summary.strip()
            else first_user,
            created=_time(document.get("startTime")),
            updated=_time(document.get("lastUpdated")),
            model=model,
            bytes=size,
            precedence=0,
            extra={
                "project": project.name,
                "kind": "main" if kind in (None, "chat") else str(kind),
                "format": "json",
            },
        )
    ]


def _project_dir(path: Path) -> Path:
    """tmp/<project> for a chat at tmp/<project>/chats/[<parent>/]<file>."""
    chats = path.parent if path.parent.name == "chats" else path.parent.parent
    return chats.parent


def _project_cwd(project: Path, project_hash: object, root: Path) -> str | None:
    """The project's path: its `.project_root` marker, else `projects.json`, else None."""
    marker = project / ".project_root"
    try:
        with open(marker, "rb") as stream:
            text = stream.read(64 * 1024).decode("utf-8", "replace").strip()
        if text:
            return text
    except OSError:
        pass
    projects = _projects(root / "projects.json")
    for path, slug in projects:
        if slug == project.name:
            return path
    hashes = {project.name} if _HASH_NAME.match(project.name) else set()
    if isinstance(project_hash, str):
        hashes.add(project_hash)
    for path, _slug in projects:
        if hashlib.sha256(path.encode()).hexdigest() in hashes:
            return path
    return None


def _projects(path: Path) -> tuple[tuple[str, str], ...]:
    try:
        st = path.stat()
    except OSError:
        return ()
    return _projects_cached(str(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _projects_cached(
    path: str, mtime_ns: int, size: int
) -> tuple[tuple[str, str], ...]:
    document = files.read_json_file(path, limit=4 * 1024 * 1024)
    projects = document.get("projects") if isinstance(document, dict) else None
    if not isinstance(projects, dict):
        return ()
    return tuple((str(k), str(v)) for k, v in projects.items() if isinstance(v, str))


# --- reading ---------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """The chat's final messages in order, sub-agent chats included after their spawn."""
    if not session.path:
        return
    emitter = _Emitter(session.id)
    yield from _read_chat(
        Path(session.path),
        None,
        emitter,
        diagnostics,
        full=full,
        offset=offset,
        depth=0,
    )


def _line_start(path: Path, offset: int) -> int:
    """`offset`, or the start of the next line when it falls inside one (dropped unread)."""
    if offset <= 0:
        return 0
    with open(path, "rb") as stream:
        stream.seek(offset - 1)
        position = offset - 1
        while chunk := stream.read(files.CHUNK):
            newline = chunk.find(b"\n")
            if newline >= 0:
                return position + newline + 1
            position += len(chunk)
        return position


def _chats_dir(path: Path) -> Path:
    return path.parent if path.parent.name == "chats" else path.parent.parent


def _read_chat(
    path: Path,
    agent_id: str | None,
    emit: _Emitter,
    diagnostics: Diagnostics,
    *,
    full: bool,
    offset: int,
    depth: int,
) -> Iterator[Event]:
    if not path.is_file():
        diagnostics.problem(f"gemini: {path} vanished before it could be read")
        return
    items: Iterable[_Item]
    if path.suffix == ".json":
        session_id, items = _legacy_items(path, diagnostics)
    else:
        timeline = _Timeline()
        offset = _line_start(path, offset)
        for line, record in files.iter_records(
            path, diagnostics, offset=offset, full=full
        ):
            timeline.add(line, record, diagnostics)
        session_id, items = timeline.session_id, timeline.resolve(path, full)
    state = _ChatState(path=path, agent_id=agent_id, session_id=session_id, depth=depth)
    for item in items:
        yield from _item_events(item, state, emit, diagnostics, full=full)
    if offset == 0 and session_id and depth < SUBAGENT_DEPTH:
        # sub-agent chats that no tool call pointed at still belong to this session
        for child in files.entries(_chats_dir(path) / session_id):
            child_id = child.name.removesuffix(".jsonl")
            if child.name.endswith(".jsonl") and child_id not in state.children_seen:
                state.children_seen.add(child_id)
                yield emit(
                    "subagent",
                    agent_id=agent_id,
                    extra={"child_id": child_id, "agent_type": None},
                )
                yield from _read_chat(
                    Path(child.path),
                    child_id,
                    emit,
                    diagnostics,
                    full=full,
                    offset=0,
                    depth=depth + 1,
                )


@dataclass(slots=True)
class _Item:
    kind: str  # "message", "rewind" (the dropped messages, for their usage) or "compaction"
    message: dict[str, object] | None = None
    dropped: list[dict[str, object]] = field(default_factory=list)
    count: int = 0  # compaction: how many known messages the checkpoint left out


@dataclass(slots=True)
class _ChatState:
    path: Path
    agent_id: str | None
    session_id: str | None
    depth: int
    calls: set[str] = field(default_factory=set)
    results: set[str] = field(default_factory=set)
    children_seen: set[str] = field(default_factory=set)


# Where a message's final record is: (line offset, line end, index in a checkpoint or -1).
_Ref = tuple[int, int, int]


@dataclass(slots=True)
class _Slot:
    kind: str  # "message", "rewind", "compaction"
    id: str | None = None
    ref: _Ref | None = None
    dropped: list[_Ref] = field(default_factory=list)
    count: int = 0


class _Timeline:
    """The final message order, from one streaming pass that keeps only line offsets."""

    def __init__(self) -> None:
        self.slots: list[_Slot] = []
        self.where: dict[str, int] = {}
        self.session_id: str | None = None

    def _reindex(self) -> None:
        self.where = {
            s.id: i
            for i, s in enumerate(self.slots)
            if s.kind == "message" and s.id is not None
        }

    def add(
        self, line: files.Line, record: dict[str, object], diagnostics: Diagnostics
    ) -> None:
        if "$rewindTo" in record:
            self._rewind(record["$rewindTo"])
        elif "$set" in record:
            patch = record["$set"]
            messages = patch.get("messages") if isinstance(patch, dict) else None
            if isinstance(messages, list):
                self._checkpoint(line, messages)
        elif isinstance(record.get("id"), str):
            if record.get("type") not in _MESSAGE_TYPES:
                diagnostics.unknown_type(f"message:{record.get('type')}")
                return
            message_id = str(record["id"])
            ref = (line.offset, line.end, -1)
            if message_id in self.where:
                self.slots[
                    self.where[message_id]
                ].ref = ref  # last write wins, first position stays
            else:
                self.where[message_id] = len(self.slots)
                self.slots.append(_Slot("message", message_id, ref))
        elif isinstance(record.get("sessionId"), str):
            if self.session_id is None:
                self.session_id = str(record["sessionId"])
        else:
            diagnostics.unknown_type("record:" + ",".join(sorted(record)[:3]))

    def _rewind(self, target: object) -> None:
        cut = self.where.get(target, 0) if isinstance(target, str) else 0
        removed = self.slots[cut:]
        if not removed:
            return
        del self.slots[cut:]
        dropped: list[_Ref] = []
        for slot in removed:
            if slot.kind == "message" and slot.ref is not None:
                dropped.append(slot.ref)
            dropped.extend(slot.dropped)
        if dropped:
            self.slots.append(_Slot("rewind", dropped=dropped))
        self._reindex()

    def _checkpoint(self, line: files.Line, messages: list[object]) -> None:
        named: set[str] = set()
        fresh: list[tuple[int, _Slot]] = []  # (insert after this many slots, slot)
        previous: int | None = None
        for position, message in enumerate(messages):
            if not isinstance(message, dict) or not isinstance(message.get("id"), str):
                continue
            message_id = str(message["id"])
            named.add(message_id)
            ref = (line.offset, line.end, position)
            if message_id in self.where:
                previous = self.where[message_id]
                slot = self.slots[previous]
                if slot.ref is not None and slot.ref[2] >= 0:
                    slot.ref = ref  # a newer checkpoint copy replaces an older one
            else:
                at = len(self.slots) if previous is None else previous + 1
                fresh.append((at, _Slot("message", message_id, ref)))
        if not fresh:
            return
        left_out = len(set(self.where) - named)
        if left_out:
            # the history was replaced (compression): a marker carrying the summary turn,
            # then the other new messages
            summary = fresh[0][1]
            marker = _Slot("compaction", count=left_out)
            if summary.ref is not None and _is_user_turn(messages[summary.ref[2]]):
                marker.ref = summary.ref
                fresh = fresh[1:]
            self.slots.append(marker)
            self.slots.extend(slot for _at, slot in fresh)
        else:
            for shift, (at, slot) in enumerate(fresh):
                self.slots.insert(at + shift, slot)
        self._reindex()

    def resolve(self, path: Path, full: bool) -> Iterator[_Item]:
        with _RecordReader(path, full) as reader:
            for slot in self.slots:
                if slot.kind == "message" and slot.ref is not None:
                    message = reader.get(slot.ref)
                    if message is not None:
                        yield _Item("message", message)
                elif slot.kind == "rewind":
                    yield _Item(
                        "rewind",
                        dropped=[
                            m
                            for ref in slot.dropped
                            if (m := reader.get(ref)) is not None
                        ],
                    )
                elif slot.kind == "compaction":
                    summary = reader.get(slot.ref) if slot.ref is not None else None
                    yield _Item("compaction", message=summary, count=slot.count)


class _RecordReader:
    """Re-reads one line (or one message of a checkpoint line) by its offsets."""

    def __init__(self, path: Path, full: bool) -> None:
        self.path = path
        self.full = full
        self.stream: BinaryIO | None = None
        self.cached: tuple[int, dict[str, object] | None] = (-1, None)

    def __enter__(self) -> _RecordReader:
        try:
            self.stream = files.open_binary(self.path)
        except OSError:
            self.stream = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stream is not None:
            self.stream.close()

    def _line(self, start: int, end: int) -> dict[str, object] | None:
        if self.cached[0] == start:
            return self.cached[1]
        if self.stream is None:
            return None
        self.stream.seek(start)
        if self.full or end - start <= files.READ_LINE_CAP:
            line = files.Line(
                0, start, self.stream.read(end - start).rstrip(b"\n"), end, True
            )
        else:
            found = list(
                files.iter_lines(
                    self.stream,
                    offset=start,
                    max_lines=1,
                    cap=files.READ_LINE_CAP,
                    oversize="compact",
                )
            )
            if not found:
                return None
            line = found[0]
        record = files.parse_json(line)
        self.cached = (start, record)
        return record

    def get(self, ref: _Ref) -> dict[str, object] | None:
        record = self._line(ref[0], ref[1])
        if record is None or ref[2] < 0:
            return record
        patch = record.get("$set")
        messages = patch.get("messages") if isinstance(patch, dict) else None
        if isinstance(messages, list) and ref[2] < len(messages):
            message = messages[ref[2]]
            if isinstance(message, dict):
                return message
        return None


def _is_user_turn(message: object) -> bool:
    return isinstance(message, dict) and message.get("type") == "user"


def _legacy_items(
    path: Path, diagnostics: Diagnostics
) -> tuple[str | None, list[_Item]]:
    # one JSON document, rewritten whole by the app: it cannot be read in pieces
    document = files.read_json_file(path)
    if not isinstance(document, dict):
        diagnostics.skip(str(path), 1, "not JSON")
        return None, []
    items: list[_Item] = []
    messages = document.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        if message.get("type") not in _MESSAGE_TYPES:
            diagnostics.unknown_type(f"message:{message.get('type')}")
            continue
        items.append(_Item("message", message))
    session_id = document.get("sessionId")
    return (session_id if isinstance(session_id, str) else None), items


class _Emitter:
    """Numbers the events of one session from 0, whichever agent they come from."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.seq = 0

    def __call__(
        self,
        kind: EventKind,
        *,
        agent_id: str | None = None,
        time: datetime | None = None,
        text: str | None = None,
        tool: str | None = None,
        call_id: str | None = None,
        is_error: bool = False,
        usage: Usage | None = None,
        extra: dict[str, JSONValue] | None = None,
    ) -> Event:
        event = Event(
            session_id=self.session_id,
            seq=self.seq,
            kind=kind,
            time=time,
            agent_id=agent_id,
            text=text,
            tool=tool,
            call_id=call_id,
            is_error=is_error,
            usage=usage,
            extra=extra or {},
        )
        self.seq += 1
        return event


def _item_events(
    item: _Item,
    state: _ChatState,
    emit: _Emitter,
    diagnostics: Diagnostics,
    *,
    full: bool,
) -> Iterator[Event]:
    agent = state.agent_id
    if item.kind == "rewind":
        yield emit(
            "meta",
            agent_id=agent,
            text=f"rewound: {len(item.dropped)} messages dropped",
            extra={"rewound": len(item.dropped)},
        )
        for message in item.dropped:
            usage = _usage(message)
            if usage is not None:
                when = _time(message.get("timestamp"))
                yield emit(
                    "usage",
                    agent_id=agent,
                    time=when,
                    usage=usage,
                    extra={"rewound": True},
                )
        return
    if item.kind == "compaction":
        summary = item.message or {}
        yield emit(
            "compaction",
            agent_id=agent,
            time=_time(summary.get("timestamp")),
            text=_content_text(summary.get("content")),
            extra={"replaced_messages": item.count},
        )
        return
    if item.message is None:
        return
    message = item.message
    kind = message.get("type")
    when = _time(message.get("timestamp"))
    if kind == "user":
        yield from _user_events(message, when, state, emit)
    elif kind == "gemini":
        yield from _model_events(message, when, state, emit, diagnostics, full=full)
    elif kind == "error":
        yield emit(
            "error",
            agent_id=agent,
            time=when,
            text=_content_text(message.get("content")),
        )
    else:  # info, warning
        text = _content_text(message.get("content"))
        yield emit(
            "meta", agent_id=agent, time=when, text=text, extra={"level": str(kind)}
        )


def _user_events(
    message: dict[str, object], when: datetime | None, state: _ChatState, emit: _Emitter
) -> Iterator[Event]:
    content = message.get("content")
    for part in content if isinstance(content, list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            call_id = str(response.get("id") or "")
            if call_id and call_id not in state.results:
                state.results.add(call_id)
                text, failed = _response_text(response)
                yield emit(
                    "tool_result",
                    agent_id=state.agent_id,
                    time=when,
                    call_id=call_id,
                    text=text,
                    is_error=failed,
                )
    text = _typed_text(message, one_line=False)
    if text:
        yield emit("user", agent_id=state.agent_id, time=when, text=text)


def _model_events(
    message: dict[str, object],
    when: datetime | None,
    state: _ChatState,
    emit: _Emitter,
    diagnostics: Diagnostics,
    *,
    full: bool,
) -> Iterator[Event]:
    agent = state.agent_id
    thoughts = message.get("thoughts")
    for thought in thoughts if isinstance(thoughts, list) else []:
        if isinstance(thought, dict):
            pieces = [thought.get("subject"), thought.get("description")]
            text = "\n".join(
                p.strip() for p in pieces if isinstance(p, str) and p.strip()
            )
            if text:
                yield emit(
                    "thinking",
                    agent_id=agent,
                    time=_time(thought.get("timestamp")) or when,
                    text=text,
                )
    content = message.get("content")
    said = _content_text(content)
    if said:
        yield emit("assistant", agent_id=agent, time=when, text=said)
    calls: list[dict[str, object]] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
            calls.append(part["functionCall"])
    raw_calls = message.get("toolCalls")
    tool_calls = (
        [c for c in raw_calls if isinstance(c, dict)]
        if isinstance(raw_calls, list)
        else []
    )
    for call in calls + tool_calls:
        call_id = str(call.get("id") or "")
        if call_id not in state.calls:
            state.calls.add(call_id)
            tool = str(call.get("name") or "")
            yield emit(
                "tool_call",
                agent_id=agent,
                time=when,
                tool=tool,
                call_id=call_id or None,
                extra={"input": _json(call.get("args"))},
            )
    usage = _usage(message)
    if usage is not None:
        yield emit("usage", agent_id=agent, time=when, usage=usage)
    for call in tool_calls:
        call_id = str(call.get("id") or "")
        done = _time(call.get("timestamp")) or when
        child_id = call.get("agentId")
        if (
            isinstance(child_id, str)
            and child_id
            and child_id not in state.children_seen
        ):
            state.children_seen.add(child_id)
            yield from _subagent_events(
                call, child_id, done, state, emit, diagnostics, full=full
            )
        result, display = call.get("result"), call.get("resultDisplay")
        if call_id in state.results or (
            result is None and not isinstance(display, str)
        ):
            continue
        state.results.add(call_id)
        output, failed = _result_text(result, display)
        failed = failed or call.get("status") in ("error", "cancelled")
        yield emit(
            "tool_result",
            agent_id=agent,
            time=done,
            call_id=call_id or None,
            text=output,
            is_error=failed,
        )
    if not calls and not tool_calls:
        yield emit("turn_end", agent_id=agent, time=when)


def _subagent_events(
    call: dict[str, object],
    child_id: str,
    when: datetime | None,
    state: _ChatState,
    emit: _Emitter,
    diagnostics: Diagnostics,
    *,
    full: bool,
) -> Iterator[Event]:
    raw_args, raw_display = call.get("args"), call.get("resultDisplay")
    args = raw_args if isinstance(raw_args, dict) else {}
    display = raw_display if isinstance(raw_display, dict) else {}
    agent_type = args.get("agent_name") or display.get("agentName")
    description = (
        args.get("description") or args.get("prompt") or call.get("description")
    )
    yield emit(
        "subagent",
        agent_id=state.agent_id,
        time=when,
        call_id=str(call.get("id") or "") or None,
        text=description if isinstance(description, str) else None,
        extra={
            "child_id": child_id,
            "agent_type": agent_type if isinstance(agent_type, str) else None,
        },
    )
    if state.session_id and state.depth < SUBAGENT_DEPTH:
        child_path = _chats_dir(state.path) / state.session_id / f"{child_id}.jsonl"
        if child_path.is_file():
            yield from _read_chat(
                child_path,
                child_id,
                emit,
                diagnostics,
                full=full,
                offset=0,
                depth=state.depth + 1,
            )


def _usage(message: dict[str, object]) -> Usage | None:
    tokens = message.get("tokens")
    if message.get("type") != "gemini" or not isinstance(tokens, dict):
        return None

    def count(key: str) -> int:
        value = tokens.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    cached, thoughts = count("cached"), count("thoughts")
    model = message.get("model")
    return Usage(
        input_tokens=max(0, count("input") - cached) + count("tool"),
        output_tokens=count("output") + thoughts,
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
        model=model if isinstance(model, str) else None,
    )


# --- text ------------------------------------------------------------------------------


def _typed_text(message: dict[str, object], *, one_line: bool = True) -> str | None:
    """What the user typed: `displayContent` if set, else the text parts; None for tool turns."""
    for key in ("displayContent", "content"):
        value = message.get(key)
        if value is None:
            continue
        text = _content_text(value)
        if text and text.lstrip().startswith(_CONTEXT_PREFIX):
            return None
        if text:
            return _one_line(text) if one_line else text
        if key == "content":
            return None
    return None


def _content_text(content: object) -> str | None:
    """Text of a PartListUnion: a string, a part, or a list of parts (calls and responses skipped)."""
    if isinstance(content, str):
        return _plain(content) or None
    parts = content if isinstance(content, list) else [content]
    pieces: list[str] = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(_plain(part))
        elif isinstance(part, dict):
            if part.get("thought") is True:
                continue
            if isinstance(part.get("text"), str):
                pieces.append(_plain(str(part["text"])))
            elif isinstance(part.get("inlineData"), dict):
                pieces.append(_blob_summary(part["inlineData"]))
            elif isinstance(part.get("fileData"), dict):
                uri = part["fileData"].get("fileUri")
                pieces.append(f"[file {uri}]")
    text = "\n".join(p for p in pieces if p)
    return text or None


def _blob_summary(blob: dict[str, object]) -> str:
    mime = str(blob.get("mimeType") or "data")
    data = blob.get("data")
    if isinstance(data, str):
        marker = files.elided(data)
        size = marker[0] if marker else len(data)
        return f"[{mime}, {files.human_bytes(size * 3 // 4)}]"
    return f"[{mime}]"


def _plain(text: str) -> str:
    marker = files.elided(text)
    if marker is not None:
        return f"[text, {files.human_bytes(marker[0])}]"
    return text


def _response_text(response: dict[str, object]) -> tuple[str | None, bool]:
    body = response.get("response")
    if isinstance(body, dict):
        if isinstance(body.get("error"), str):
            return _plain(str(body["error"])), True
        if isinstance(body.get("output"), str):
            return _plain(str(body["output"])), False
        return orjson.dumps(body).decode(), False
    if isinstance(body, str):
        return _plain(body), False
    return None, False


def _result_text(result: object, display: object) -> tuple[str | None, bool]:
    pieces: list[str] = []
    failed = False
    for part in result if isinstance(result, list) else [result]:
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
            text, error = _response_text(part["functionResponse"])
            failed = failed or error
            if text:
                pieces.append(text)
        else:
            text = _content_text(part)
            if text:
                pieces.append(text)
    if not pieces and isinstance(display, str):
        pieces.append(_plain(display))
    return ("\n".join(pieces) or None), failed


def _json(value: object) -> JSONValue:
    if value is None or isinstance(value, (str, int, float, bool, list, dict)):
        return cast(JSONValue, value)
    return str(value)


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (
        moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    )


# --- resume ----------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`gemini --resume <id>` from the project folder, keeping the recorded model.

    None for sub-agent chats (gemini lists only a project's own sessions) and when the project
    folder is unknown (gemini finds sessions per project, so it must run there).
    """
    if session.parent_id is not None or not session.cwd:
        return None
    argv = ["gemini", "--resume", session.id]
    notes: list[str] = []
    withheld: list[str] = []
    if session.model:
        argv += ["--model", session.model]
    mode = session.permission_mode
    if mode in _SAFE_MODES:
        argv += ["--approval-mode", mode]
    elif mode:
        if keep_permissions:
            argv += ["--approval-mode", mode]
        else:
            withheld.append(f"--approval-mode {mode}")
    if not os.path.isdir(session.cwd):
        notes.append(f"the project folder {session.cwd} no longer exists")
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="gemini",
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
        withheld=tuple(withheld),
    )
