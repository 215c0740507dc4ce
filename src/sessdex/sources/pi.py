"""pi (badlogic/pi-mono coding agent): one JSONL tree per session under `$PI_CODING_AGENT_DIR/sessions/`.

What it writes: `sessions/--<cwd with / as ->--/<ISO time>_<uuid>.jsonl` (or, flat,
`<ISO time>_<uuid>.jsonl` in the folder `PI_CODING_AGENT_SESSION_DIR` or the `sessionDir`
setting of `settings.json` names), a header line
(`type: session`, `version`, `id`, `timestamp`, `cwd`, `parentSession` for forks) and then
entries with `id`/`parentId`. Branches made with `/tree` live in the same file; the
conversation is the chain from the last entry up to the root. A fork (`/fork`, `--fork`) is
a new file whose header names the file it came from (`parentSession`): a session of the
user's own, `extra["forked_from_id"]` naming that file's session uuid. pi copies the
entries it keeps verbatim, times and usage included: they are shown, and what they billed
is left to the session that paid for it (an entry dated before the fork's header).

What we read: the header (id, cwd, created), the last `model_change` or assistant model, the
last `thinking_level_change` (effort) and the last `session_info.name` (title; the first
prompt if none) from the head and tail. `read` makes one pass over the ids only, to find the
active branch, and a second pass translating the entries on it: entries of abandoned branches
are left out (their gist survives as `branch_summary`), but for what they billed: a usage
event marked `branch: abandoned` (pi's footer counts every entry's usage, on any branch).

Usage: one event per assistant message (pi writes each response once); pi's `input` already
excludes cache reads and writes; the model is `responseModel` (what a router picked) when
there is one. Newer pi also bills model work outside assistant messages: a tool result's
`usage` (a tool that ran a model) and a compaction's or branch summary's (writing the
summary) are usage events too, and so is a `usage` entry (pi 1.x: model work that is no
message, such as `cache_warm` keeping the prompt cache alive). pi has no sub-agents, no
git branch and no CLI version in its files. A `context_edit` (pi 1.x: an earlier entry
hidden from or rewritten for the model from then on) is a `meta` event; the entry it
names is shown as written. Ignored on purpose: `custom` (extension state) and `label` entries. A
`developer` or `system` message (pi-ai 0.80: instructions from the harness) is a `meta`
event marked `injected`, never the user's words.

An assistant message's `stopReason` says where the turn stands: `stop` ends it, and so does
`length` without tool calls (with them, pi fails each call and asks again); `toolUse` goes
on; `aborted` is the user's interruption, `error` an error; `deferred` (pi-ai 0.85) is an
answer the provider gives later, which the harness polls for: a `meta` event marked
`deferred`, the turn still open. `pending` marks a message still streaming, never written.

pi-agent-core's harness (the SDK, pi >= 0.84; the CLI keeps format 3 until pi 2.0) can
write a format 4 file into the same folders (`{"kind":"header","version":4}`, then change
records, `_pi_v4`): listed and read along the main lane's leaf, its entries in format 3's
shapes, billed by its `usage` records where it has them; the CLI does not resume it. Its
header's `parentSessionId` is the source `JsonlSessionRepo.fork` copied (`extra["forked_from_id"]`,
a session of the user's own, its copied entries dated before its `createdAt`). A
header of any other kind or version is reported as an unknown `session format`.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Unpack

import orjson

from .. import files, folders, programs
from ..diagnostics import ODD_COUNT, Diagnostics
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from . import _pi_v4
from ._values import (
    Emitter,
    EventFields,
    as_dict,
    as_int,
    as_str,
    decoded_size,
    epoch_or_iso_time,
    line_start,
    odd_count,
    one_line,
    shown_json,
    shown_text,
    type_tag,
)
from .base import Home, Location

NAME = "pi"
TITLE = "pi coding agent"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "pi 0.73.1, 0.74 (session format 3); formats 1 and 2 from session-manager.ts's "
    "migrations (no real file); pi-ai message and usage types of 0.80; "
    "@earendil-works/pi-coding-agent 1.6.0 (real files, format 3; its other entry types from "
    "its docs and typings); format 4 from pi-agent-core's source (no real file); the stop reasons of "
    "@earendil-works/pi-ai 0.85's typings (`deferred`: no real file)"
    "; resume checked against 1.6.0's --help; 1.6.0 is still the newest release (npm, "
    "2026-12-07); @earendil-works/pi-ai 1.6.1's typings: the same messages, usage and "
    "stop reasons"
)
ENV_VARS = ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR", "CODING_AGENT_DIR")
# a project's folder of sessions: `--<cwd, separators and colons as dashes>--`
_PROJECT = re.compile(r"--.*--", re.DOTALL)


_THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
_IGNORED = frozenset({"custom", "label", "active_tools_change"})
_IDS = re.compile(rb'"id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")')
# a harness's move of the visible leaf (OpenClaw 2026.9)
_LEAF = re.compile(rb'"type"\s*:\s*"leaf"')
_TAIL_KEYS = (
    b'"model_change"',
    b'"thinking_level_change"',
    b'"session_info"',
    b'"role":"assistant"',
)


def locate(home: Home) -> Location:
    """`~/.pi/agent`, and the session folder `PI_CODING_AGENT_SESSION_DIR` or the
    `sessionDir` setting names, where pi writes session files flat."""
    override = home.env_dir("PI_CODING_AGENT_DIR")
    root = override if override is not None else home.path / ".pi" / "agent"
    said = [f"PI_CODING_AGENT_DIR={override}"] if override is not None else []
    sessions = home.env_dir("PI_CODING_AGENT_SESSION_DIR")
    if sessions is not None:
        said.append(f"PI_CODING_AGENT_SESSION_DIR={sessions}")
    else:
        settings = files.read_json_file(root / "settings.json", limit=1024 * 1024)
        value = settings.get("sessionDir") if isinstance(settings, dict) else None
        if isinstance(value, str) and value.strip():
            sessions = _home_path(home, value.strip())
    also = [sessions] if sessions is not None else []
    # before 0.7.29: `$CODING_AGENT_DIR` (pi 0.6.0 to 0.7.28 and coding-agent 0.5.x),
    # else coding-agent 0.5.x's `~/.coding-agent`, project folders in `sessions/` as now
    older = home.env_dir("CODING_AGENT_DIR")
    if older is not None:
        said.append(f"CODING_AGENT_DIR={older}")
    for folder in (older, home.path / ".coding-agent"):
        if folder is not None and folder / "sessions" not in (root / "sessions", *also):
            also.append(folder / "sessions")
    return Location(root, ", ".join(said) or None, also=tuple(also))


def _home_path(home: Home, value: str) -> Path | None:
    """A settings path with `~` read as this home; a relative one is per project: None."""
    if value == "~" or value.startswith("~/"):
        return home.path / value[2:]
    path = Path(value)
    return path if path.is_absolute() else None


# where `scan` reads a session or a project folder of them (see base.py), in the
# agent's folder or a session folder of the user's choice (flat, or per project): a
# broken link elsewhere hides none
SESSION_NAMES = (
    "sessions",
    "sessions/*",
    "sessions/*/*.jsonl",
    "*.jsonl",
    "--*--",
    "--*--/*.jsonl",
)


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for project in folders.entries(location.root / "sessions", location.root):
        if not project.is_dir():
            continue
        for entry in folders.entries(Path(project.path), location.root):
            if entry.name.endswith(".jsonl") and folders.file_entry(entry):
                yield Path(entry.path)
    for folder in location.also:  # a session folder of the user's choice: files flat
        listed = folder == location.root / "sessions"  # its project folders are, above
        for entry in folders.entries(folder, folder):
            if entry.name.endswith(".jsonl") and folders.file_entry(entry):
                yield Path(entry.path)
            elif not listed and _PROJECT.fullmatch(entry.name) and entry.is_dir():
                for inner in folders.entries(entry.path, folder):
                    if inner.name.endswith(".jsonl") and folders.file_entry(inner):
                        yield Path(inner.path)


def parse(
    path: Path,
    location: Location,
    diagnostics: Diagnostics,
    *,
    synthetic: frozenset[tuple[str, str]] = frozenset(),
) -> list[Session]:
    """The session a file holds, from its head and tail. `synthetic` names the
    (provider, model) pairs of assistant messages a harness wrote itself (OpenClaw's
    delivery mirrors): no model answered them, so they name no model of the session."""
    try:
        # a first prompt too long to hold (a pasted image or log) still titles it
        size, head, tail = files.ends(path, diagnostics=diagnostics, openings=True)
    except FileNotFoundError:
        return []
    header = files.parse_json(head[0], diagnostics, str(path)) if head else None
    if header is None:
        return []
    if _pi_v4.is_header(header):
        return [_parse_v4(path, header, head, tail, size)]
    if header.get("type") != "session":
        # not a pi CLI session (pi-agent-core's format 4 starts `{"kind":"header"`):
        # said by `doctor`, not passed over in silence
        version = header.get("version")
        diagnostics.unknown_type(
            "session format", str(version) if isinstance(version, int) else None
        )
        return []
    state = Summary(synthetic)
    last_head = head[-1].end
    for line in head[1:]:
        record = files.parse_json(line, diagnostics, str(path))
        if record is not None:
            state.take(record)
    tail_start = tail[0].offset if tail else size
    # a name (`/name`) is written once: mid-session it is in neither end
    for line in files.lines_with(
        path, b'"session_info"', last_head, tail_start, diagnostics=diagnostics
    ):
        record = files.parse_json(line)
        if record is not None and record.get("type") == "session_info":
            state.take(record)
            break
    files.take_tail(tail, last_head, _TAIL_KEYS, state.take, state.stamp)
    parent = as_str(header.get("parentSession"))
    version = header.get("version")
    extra: dict[str, JSONValue] = {
        "format_version": version if isinstance(version, int) else 1
    }
    if parent:
        extra["forked_from_id"] = _session_id_of(parent)
    if state.provider:
        extra["provider"] = state.provider
    return [
        Session(
            app=NAME,
            id=as_str(header.get("id")) or path.stem.rpartition("_")[2],
            path=str(path),
            cwd=as_str(header.get("cwd")),
            title=state.name or state.first_prompt,
            created=epoch_or_iso_time(header.get("timestamp")),
            updated=state.updated or epoch_or_iso_time(header.get("timestamp")),
            model=state.model,
            effort=state.effort,
            bytes=size,
            extra=extra,
        )
    ]


def _parse_v4(
    path: Path,
    header: Mapping[str, object],
    head: list[files.Line],
    tail: list[files.Line],
    size: int,
) -> Session:
    """A format 4 file (pi-agent-core's change log, `_pi_v4`): its header, and what its
    first and last records say."""
    state = Summary()
    last_head = head[-1].end
    for line in [*head[1:], *(t for t in tail if t.offset >= last_head)]:
        if not line.complete or (record := files.parse_json(line)) is None:
            continue
        kind = record.get("kind")
        if kind == "entry":  # format 3's shapes
            state.take(record)
        elif kind == "fact" and record.get("fact") == "name":
            state.name = one_line(record.get("name"), limit=None) or None
        else:
            state.updated = epoch_or_iso_time(record.get("timestamp")) or state.updated
    extra: dict[str, JSONValue] = {"format_version": _pi_v4.VERSION}
    if state.provider:
        extra["provider"] = state.provider
    # `JsonlSessionRepo.fork` names its source here: a session of the user's own, whose
    # entries dated before it was made are copies (billed in the source)
    if source := as_str(header.get("parentSessionId")):
        extra["forked_from_id"] = source
    created = epoch_or_iso_time(header.get("createdAt"))
    return Session(
        app=NAME,
        id=as_str(header.get("id")) or path.stem.rpartition("_")[2],
        path=str(path),
        cwd=as_str(header.get("cwd")),
        title=state.name or state.first_prompt,
        created=created,
        updated=state.updated or created,
        model=state.model,
        effort=state.effort,
        bytes=size,
        extra=extra,
    )


class Summary:
    """What listing needs from the entries it sees; the last word wins."""

    def __init__(self, synthetic: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.synthetic = synthetic  # (provider, model) of messages no model wrote
        self.model: str | None = None
        self.provider: str | None = None
        self.effort: str | None = None
        self.name: str | None = None
        self.first_prompt: str | None = None
        self.updated: datetime | None = None

    def take(self, record: Mapping[str, object]) -> None:
        self.updated = epoch_or_iso_time(record.get("timestamp")) or self.updated
        kind = type_tag(record.get("type"))
        if kind == "model_change":
            self.model = as_str(record.get("modelId")) or self.model
            self.provider = as_str(record.get("provider")) or self.provider
        elif kind == "thinking_level_change":
            self.effort = as_str(record.get("thinkingLevel")) or self.effort
        elif kind == "session_info":
            # the newest wins, and an empty name clears the title (pi's getSessionName)
            self.name = one_line(record.get("name"), limit=None) or None
        elif kind == "message":
            message = as_dict(record.get("message"))
            role = message.get("role")
            model, provider = (
                as_str(message.get("model")),
                as_str(message.get("provider")),
            )
            if role == "assistant" and (provider or "", model or "") in self.synthetic:
                return
            if role == "assistant":
                self.model = model or self.model
                self.provider = provider or self.provider
                # pi 1.x names the level each response ran at (message-types.md)
                self.effort = as_str(message.get("thinkingLevel")) or self.effort
            elif role == "user" and self.first_prompt is None:
                self.first_prompt = one_line(
                    _content_text(message.get("content")), limit=None
                )

    def stamp(self, data: bytes) -> None:
        match = re.search(rb'"timestamp":"([^"]+)"', data[:400])
        if match:
            self.updated = (
                epoch_or_iso_time(match.group(1).decode("ascii", "replace"))
                or self.updated
            )


def read(
    session: Session,
    diagnostics: Diagnostics,
    *,
    full: bool = False,
    offset: int = 0,
    custom_errors: frozenset[str] = frozenset(),
    resets: bool = False,
) -> Iterator[Event]:
    """The events of the file's active branch. `custom_errors` names the `customType`s of
    `custom` entries a harness writes when a prompt failed (OpenClaw's
    `openclaw:prompt-error`, its `data.error` saying why): error events; other `custom`
    entries are extension state, passed over."""
    if not session.path:
        return
    path = Path(session.path)
    if session.extra.get("format_version") == _pi_v4.VERSION:
        yield from _read_v4(session, path, diagnostics, full, offset)
        return
    at = [0]  # the line read last: where an odd count is met

    def records() -> Iterator[dict[str, object]]:
        for line, record in files.iter_records(
            path, diagnostics, offset=line_start(path, offset), full=full
        ):
            at[0] = line.number
            yield record

    try:
        yield from read_entries(
            session,
            records(),
            _active_branch(path),
            diagnostics,
            custom_errors=custom_errors,
            resets=resets,
            where=lambda: (str(path), at[0]),
        )
    except FileNotFoundError:
        diagnostics.problem(f"{path}: vanished while reading")


def read_entries(
    session: Session,
    records: Iterable[Mapping[str, object]],
    branch: set[str] | None,
    diagnostics: Diagnostics,
    *,
    custom_errors: frozenset[str] = frozenset(),
    resets: bool = False,
    where: Callable[[], tuple[str, int]] | None = None,
    odd: str = ODD_COUNT,
) -> Iterator[Event]:
    """The events of format 3 entries, wherever they are kept (a file's lines, or the rows
    of a harness's database: OpenClaw's): those off the active `branch` (None: no tree)
    only bill. With `resets`, a `reset` entry (OpenClaw's boundary of a `/new` or `/reset`
    kept in the same transcript: `reason` `new`, `reset`, `idle`, `daily`, `cron-stale`)
    is a `meta` event. `where`: the file and line of the entry read last, where an odd
    token count is said (None: not said), as `odd` (a database row's names what it
    counts: `diagnostics.odd_in`)."""
    reader = _Reader(session, diagnostics)
    reader.where, reader.odd = where, odd
    for record in records:
        entry_id = record.get("id")
        kind = type_tag(record.get("type"))
        if kind == "session":
            continue
        if branch is not None and isinstance(entry_id, str) and entry_id not in branch:
            if isinstance(kind, str):
                yield from reader.billed_elsewhere(kind, record)
            continue
        if not isinstance(kind, str):
            diagnostics.unknown_type("<no type>")
            continue
        if kind == "custom" and record.get("customType") in custom_errors:
            yield from reader.failed(record)
            continue
        if kind == "leaf" and resets:
            continue  # a move of the visible leaf: navigation, said by the branch
        if kind == "reset" and resets:
            why = one_line(record.get("reason"), limit=None)
            # `new` and `reset` are the user's /new and /reset: "reset (reset)" said it twice
            text = (
                f"reset by /{why}"
                if why in ("new", "reset")
                else f"reset ({why})"
                if why
                else "reset"
            )
            yield reader.event("meta", record, text=text, extra={"reset": why})
            continue
        if kind in _IGNORED:
            continue
        if not reader.handles(kind, record):
            diagnostics.unknown_type(_kind_name(kind, record))
            continue
        yield from reader.translate(kind, record)


def _read_v4(
    session: Session, path: Path, diagnostics: Diagnostics, full: bool, offset: int
) -> Iterator[Event]:
    """A format 4 change log: its entries on the active branch, in format 3's shapes;
    usage from its `usage` records where it has them (every billed call: retries, tools,
    hooks), else from the assistant messages."""
    try:
        branch, billed = _pi_v4.active_branch(str(path))
        reader = _Reader(session, diagnostics)
        reader.bill_messages = not billed
        at = 0  # the line read last: where an odd count is met
        reader.where = lambda: (str(path), at)
        models: dict[
            str, str
        ] = {}  # assistant entry id -> its model, for usage records
        for line, record in files.iter_records(
            path, diagnostics, offset=line_start(path, offset), full=full
        ):
            at = line.number
            kind = record.get("kind")
            if kind == "entry":
                entry_type = type_tag(record.get("type"))
                entry_id = record.get("id")
                if (
                    branch is not None
                    and isinstance(entry_id, str)
                    and entry_id not in branch
                ):
                    if isinstance(entry_type, str):
                        yield from reader.billed_elsewhere(entry_type, record)
                    continue
                if not isinstance(entry_type, str):
                    diagnostics.unknown_type("<no type>", "4")
                elif entry_type in _IGNORED:
                    continue
                elif reader.handles(entry_type, record):
                    message = as_dict(record.get("message"))
                    model = as_str(message.get("responseModel")) or as_str(
                        message.get("model")
                    )
                    if isinstance(entry_id, str) and model and len(models) < 100_000:
                        models[entry_id] = model
                    yield from reader.translate(entry_type, record)
                else:
                    diagnostics.unknown_type(_kind_name(entry_type, record), "4")
            elif kind == "record":
                if record.get("type") == "usage" and billed:
                    entry = as_str(record.get("entryId"))
                    yield from reader.usage(
                        record, record.get("usage"), models.get(entry or "")
                    )
            elif kind == "fact":
                if record.get("fact") == "name":
                    name = as_str(record.get("name"))
                    yield reader.event(
                        "meta", record, text=f"named: {name}", extra={"title": name}
                    )
            elif kind not in ("header", "lane"):
                diagnostics.unknown_type(f"kind:{type_tag(kind)}", "4")
    except FileNotFoundError:
        diagnostics.problem(f"{path}: vanished while reading")


def _active_branch(path: Path) -> set[str] | None:
    """Ids on the chain from the last entry to the root; None for a file with no tree (v1)."""
    parents: dict[str, str | None] = {}
    last: str | None = None
    moved: str | bool | None = False  # the last entry's leaf move, where it is one
    with files.open_binary(path) as stream:
        for line in files.iter_lines(
            stream, cap=files.READ_LINE_CAP, oversize="compact"
        ):
            match = _IDS.search(line.data[:300])
            if match and not line.complete and not _is_json(line.data):
                continue  # a torn last line is not the leaf yet
            if match:
                entry_id = match.group(1).decode("utf-8", "replace")
                parent = (
                    match.group(2).decode("utf-8", "replace")
                    if match.group(2) is not None
                    else None
                )
            else:
                try:
                    record = files.loads(line.data)
                except orjson.JSONDecodeError:
                    continue
                if (
                    not isinstance(record, dict)
                    or not isinstance(record.get("id"), str)
                    or "parentId" not in record
                ):
                    continue
                entry_id, parent = record["id"], as_str(record.get("parentId"))
            parents[entry_id] = parent
            last = entry_id
            moved = _leaf_target(line.data) if _LEAF.search(line.data[:200]) else False
    return branch_of(parents, last, moved)


def _leaf_target(data: bytes) -> str | bool | None:
    """Where a `leaf` control moves the visible leaf: its `targetId` (None: to the root);
    False where the line is no such control."""
    try:
        record = files.loads(data)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(record, dict) or record.get("type") != "leaf":
        return False
    target = record.get("targetId")
    return target if isinstance(target, str) or target is None else False


def branch_of(
    parents: Mapping[str, str | None],
    last: str | None,
    moved: str | bool | None = False,
) -> set[str] | None:
    """The ids on the chain from `last`, the newest entry, to the root (`parents`: each
    entry's parent); None where no entry has an id (a v1 file, no tree). Where the newest
    entry is a `leaf` control (OpenClaw: a rewind moved the visible leaf), the chain runs
    from the entry it names (`moved`; None: the root, an empty branch)."""
    if last is None:
        return None
    chain: set[str] = set()
    node: str | None = last if isinstance(moved, bool) else moved
    while node is not None and node not in chain:
        chain.add(node)
        node = parents.get(node)
    return chain


class _Reader:
    """Translates pi entries into events; sequence numbers run across the whole read."""

    _KINDS = frozenset(
        {
            "message",
            "model_change",
            "thinking_level_change",
            "compaction",
            "branch_summary",
            "custom_message",
            "session_info",
            "usage",
            "context_edit",
        }
    )
    _ROLES = frozenset(
        {
            "user",
            "assistant",
            "toolResult",
            "bashExecution",
            "custom",
            "hookMessage",
            "branchSummary",
            "compactionSummary",
            "developer",
            "system",
        }
    )

    # stopReason values of pi-ai 0.85 (`pending` is never written); another is counted
    _STOPS = frozenset({"stop", "length", "toolUse", "error", "aborted", "deferred"})

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.emit = Emitter(session.id)
        self.model: str | None = (
            session.model
        )  # the newest model, for usage that names none
        self.provider: str | None = None  # and whom it was sent to
        # whether an assistant message's `usage` is a usage event (format 4 files that
        # keep `usage` records bill through those instead)
        self.bill_messages = True
        # the file and line of the entry read (None: not known), where an odd count is said
        self.where: Callable[[], tuple[str, int]] | None = None
        self.odd = ODD_COUNT  # the reason an odd count is said with
        # a fork's entries dated before it was made are copies: their parent paid for them
        self.forked_at = (
            session.created.timestamp()
            if session.extra.get("forked_from_id") and session.created
            else None
        )

    def paid_here(self, record: Mapping[str, object]) -> bool:
        """Whether what the entry billed counts in this session (not a fork's copy)."""
        if self.forked_at is None:
            return True
        when = epoch_or_iso_time(record.get("timestamp"))
        return when is None or when.timestamp() >= self.forked_at

    def usage(
        self,
        record: Mapping[str, object],
        value: object,
        model: str | None,
        extra: dict[str, JSONValue] | None = None,
        provider: str | None = None,
    ) -> Iterator[Event]:
        """One `usage` event from pi's `usage` object, when it counted anything."""
        counted = _usage(as_dict(value), model or self.model)
        if counted.total and self.paid_here(record):
            self.say_odd(as_dict(value))
            billing = self.billing(value, model, provider)
            yield self.event(
                "usage", record, usage=counted, extra={**billing, **(extra or {})}
            )

    def say_odd(self, usage: Mapping[str, object]) -> None:
        """Say a billed count no app writes (`odd_count`): `_usage` bills it as 0 (or
        its whole part)."""
        if self.where is not None and any(odd_count(usage.get(k)) for k in _COUNTS):
            self.diagnostics.damage(*self.where(), self.odd)

    def billing(
        self, value: object, model: str | None, provider: str | None
    ) -> dict[str, JSONValue]:
        """A usage event's `provider` (the entry's, else the current one for usage that
        names no model) and `cost_usd` (pi's `usage.cost.total`, from its own prices:
        `usage` takes it where its price list has none; a 0, pi knowing no price, is
        left out)."""
        extra: dict[str, JSONValue] = {}
        if name := provider or (self.provider if model is None else None):
            extra["provider"] = name
        cost = as_dict(as_dict(value).get("cost")).get("total")
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost > 0:
            extra["cost_usd"] = float(cost)
        return extra

    def failed(self, record: Mapping[str, object]) -> Iterator[Event]:
        """A harness's note that a prompt failed: an error event, but for an abort (the
        aborted assistant message that comes with it says so)."""
        why = shown_text(as_dict(record.get("data")).get("error"))
        if why is None or why.strip() != "aborted":
            yield self.event("error", record, text=f"error: {why}" if why else "error")

    def billed_elsewhere(
        self, kind: str, record: Mapping[str, object]
    ) -> Iterator[Event]:
        """What an entry off the active branch billed (a turn `/tree` moved away from):
        gone from the conversation, its model calls were paid for, and pi's own footer
        sums every entry. Only the usage, marked as the abandoned branch's."""
        value: object = None
        model: str | None = None
        provider: str | None = None
        if kind in ("compaction", "branch_summary", "usage"):
            value, model = record.get("usage"), as_str(record.get("model"))
        elif kind == "message":
            message = as_dict(record.get("message"))
            role = message.get("role")
            if role == "assistant" and self.bill_messages:
                value = message.get("usage")
                model = as_str(message.get("responseModel")) or as_str(
                    message.get("model")
                )
                provider = as_str(message.get("provider"))
            elif role == "toolResult":
                value, model = message.get("usage"), as_str(message.get("model"))
        yield from self.usage(record, value, model, {"branch": "abandoned"}, provider)

    def handles(self, kind: str, record: Mapping[str, object]) -> bool:
        if kind != "message":
            return kind in self._KINDS
        role = as_dict(record.get("message")).get("role")
        return isinstance(role, str) and role in self._ROLES

    def event(
        self,
        kind: EventKind,
        record: Mapping[str, object],
        **fields: Unpack[EventFields],
    ) -> Event:
        return self.emit(kind, epoch_or_iso_time(record.get("timestamp")), **fields)

    def translate(self, kind: str, record: Mapping[str, object]) -> Iterator[Event]:
        if kind == "model_change":
            model = as_str(record.get("modelId"))
            self.model = model or self.model
            provider = as_str(record.get("provider"))
            self.provider = provider or self.provider
            yield self.event(
                "meta",
                record,
                text=f"model: {provider}/{model}",
                extra={"model": model, "provider": provider},
            )
        elif kind == "thinking_level_change":
            level = as_str(record.get("thinkingLevel"))
            yield self.event(
                "meta", record, text=f"thinking: {level}", extra={"effort": level}
            )
        elif kind == "session_info":
            name = as_str(record.get("name"))
            yield self.event(
                "meta", record, text=f"named: {name}", extra={"title": name}
            )
        elif kind == "compaction":
            tokens = record.get("tokensBefore")
            yield self.event(
                "compaction",
                record,
                text=shown_text(record.get("summary")),
                extra={
                    "reason": "compaction",
                    "tokens_before": tokens if isinstance(tokens, int) else None,
                },
            )
            # newer pi bills the summary's model call here (its retainedTail is a copy
            # of messages already counted, and is not read)
            yield from self.usage(
                record, record.get("usage"), as_str(record.get("model"))
            )
        elif kind == "branch_summary":
            yield self.event(
                "compaction",
                record,
                text=shown_text(record.get("summary")),
                extra={"reason": "branch"},
            )
            yield from self.usage(
                record, record.get("usage"), as_str(record.get("model"))
            )
        elif kind == "usage":
            # model work billed outside the conversation (pi 1.x: `cache_warm` keeps the
            # prompt cache alive between runs); pi counts it in the session's totals
            yield from self.usage(
                record,
                record.get("usage"),
                as_str(record.get("model")),
                {"usage_kind": as_str(record.get("kind"))},
            )
        elif kind == "context_edit":
            # hides or rewrites an earlier entry for the model from here on; the entry
            # itself stays as it was written, and so it is shown
            target = as_str(record.get("targetId"))
            omitted = record.get("replacement") is None
            done = "omitted from" if omitted else "replaced in"
            yield self.event(
                "meta",
                record,
                text=f"context edit: entry {target} {done} the model's context",
                extra={"context_edit": target, "omitted": omitted},
            )
        elif kind == "custom_message":
            custom = as_str(record.get("customType"))
            yield self.event(
                "meta",
                record,
                text=_content_text(record.get("content")),
                extra={"custom_type": custom},
            )
        elif kind == "message":
            yield from self.message(record, as_dict(record.get("message")))

    def message(
        self, record: Mapping[str, object], message: Mapping[str, object]
    ) -> Iterator[Event]:
        role = message.get("role")
        if role == "user":
            yield self.event("user", record, text=_content_text(message.get("content")))
        elif role == "assistant":
            yield from self.assistant(record, message)
        elif role == "toolResult":
            yield self.event(
                "tool_result",
                record,
                call_id=as_str(message.get("toolCallId")),
                text=_content_text(message.get("content")),
                is_error=message.get("isError") is True,
            )
            # a tool that ran a model itself (newer pi) says what it used
            yield from self.usage(
                record, message.get("usage"), as_str(message.get("model"))
            )
        elif role == "bashExecution":
            # a command the user ran with `!`: shown as a call and its result
            call_id = as_str(record.get("id"))
            command = shown_text(message.get("command"))
            yield self.event(
                "tool_call",
                record,
                tool="bash",
                call_id=call_id,
                extra={"input": {"command": command}, "by_user": True},
            )
            exit_code = message.get("exitCode")
            failed = message.get("cancelled") is True or (
                isinstance(exit_code, int) and exit_code != 0
            )
            yield self.event(
                "tool_result",
                record,
                call_id=call_id,
                text=shown_text(message.get("output")),
                is_error=failed,
            )
        elif role in ("developer", "system"):
            # instructions the harness (an extension, the SDK) gave the model: not typed.
            # pi 1.x keeps its prompt and tools so: named `sections` patched in order
            # (null removes one) and tools added or removed, often with empty `content`
            yield self.event(
                "meta",
                record,
                text=_content_text(message.get("content")) or _loadout(message),
                extra={"injected": True, "role": role},
            )
        elif role in (
            "custom",
            "hookMessage",
        ):  # `hookMessage` until format 3 renamed it
            custom = as_str(message.get("customType"))
            yield self.event(
                "meta",
                record,
                text=_content_text(message.get("content")),
                extra={"custom_type": custom},
            )
        elif role in ("branchSummary", "compactionSummary"):
            reason = "branch" if role == "branchSummary" else "compaction"
            yield self.event(
                "compaction",
                record,
                text=shown_text(message.get("summary")),
                extra={"reason": reason},
            )

    def assistant(
        self, record: Mapping[str, object], message: Mapping[str, object]
    ) -> Iterator[Event]:
        content = message.get("content")
        blocks = (
            [b for b in content if isinstance(b, dict)]
            if isinstance(content, list)
            else []
        )
        texts: list[str] = []
        calls = 0

        def flush() -> Iterator[Event]:
            if texts:
                yield self.event("assistant", record, text="\n".join(texts))
                texts.clear()

        if isinstance(content, str) and content:
            texts.append(content)
        for block in blocks:
            kind = type_tag(block.get("type"))
            if kind == "text":
                value = shown_text(block.get("text"))
                if value:
                    texts.append(value)
            elif kind == "thinking":
                yield from flush()
                value = shown_text(block.get("thinking"))
                if value and value.strip():
                    yield self.event("thinking", record, text=value)
            elif kind == "toolCall":
                yield from flush()
                calls += 1
                yield self.event(
                    "tool_call",
                    record,
                    tool=as_str(block.get("name")),
                    call_id=as_str(block.get("id")),
                    extra={"input": shown_json(block.get("arguments"))},
                )
            elif kind == "image":
                texts.append(_image(block))
        yield from flush()
        # the model that answered, where a router (OpenRouter `auto`) picked it
        model = as_str(message.get("responseModel")) or as_str(message.get("model"))
        self.model = as_str(message.get("model")) or self.model
        provider = as_str(message.get("provider"))
        self.provider = provider or self.provider
        usage = as_dict(message.get("usage"))
        if (
            usage and self.bill_messages and self.paid_here(record)
        ):  # every response, even one that counted nothing
            self.say_odd(usage)
            yield self.event(
                "usage",
                record,
                usage=_usage(usage, model),
                extra=self.billing(usage, model, provider),
            )
        stop = message.get("stopReason")
        if stop is not None and not (isinstance(stop, str) and stop in self._STOPS):
            # a newer pi's way for a turn to stand: shown as read, counted for doctor
            self.diagnostics.unknown_type(f"stopReason:{type_tag(stop)}")
        if stop == "aborted":  # the user pressed Esc (agent.ts): an interruption
            why = shown_text(message.get("errorMessage"))
            yield self.event(
                "meta", record, text=f"aborted: {why}" if why else "aborted"
            )
            yield self.event(
                "turn_end", record, extra={"reason": "aborted", "interrupted": True}
            )
        elif stop == "error":
            why = shown_text(message.get("errorMessage"))
            yield self.event("error", record, text=f"error: {why}" if why else "error")
        elif stop == "deferred":
            # the provider took the request to answer later (pi-ai 0.85: a `deferred` handle
            # to poll): pi-agent-core's harness suspends the run and polls, writing a poll
            # that finds no answer yet as another such message and the answer as a later
            # one. The turn goes on; nothing waits on the user
            yield self.event(
                "meta",
                record,
                text="answer deferred: the model answers later",
                extra={"deferred": True},
            )
        elif stop == "stop" or (stop == "length" and not calls):
            # a response cut at the output limit with tool calls is no end: pi runs none of
            # them, returns each as an error and asks the model again (agent-loop.ts)
            yield self.event("turn_end", record, extra={"reason": stop})


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`pi --session <file>` reopens the file itself (an id would be looked up in pi's own
    dir); a format 4 file is the SDK's, which the CLI does not open (before pi 2.0)."""
    if not session.path or not session.cwd:
        return None
    if session.extra.get("format_version") == _pi_v4.VERSION:
        return None
    argv = ["pi", "--session", session.path]
    provider = session.extra.get("provider")
    if isinstance(provider, str) and provider and session.model:
        argv += ["--provider", provider]
    if session.model:
        argv += ["--model", session.model]
    if session.effort in _THINKING_LEVELS:
        argv += ["--thinking", session.effort]
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="pi",
        # the package moved to this scope at pi 0.74 (the old one stops at 0.73.1)
        install_hint="npm install -g @earendil-works/pi-coding-agent",
        opens_file=True,  # `--session <file>`: read from a copied home, that file
    )


# the npm package (`@earendil-works/`, before 0.74 `@mariozechner/`), which pi's `pi` on
# PATH links into or whose shim names it
_PACKAGE = "pi-coding-agent"


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `pi` on PATH where it is pi's own: the npm package's (a link into it, or a
    shim that names it) or the standalone program (Bun-compiled). `pi` is a common name:
    any other program is never given the session's words. A wrapper (Nix's, a Homebrew
    exec script) is judged by what it starts."""
    found = shutil.which(plan.program)
    if found is None:
        return plan, None
    judged = programs.wrapped(found) or found
    if (
        programs.lies_in(judged, (_PACKAGE,))
        or programs.launcher_names(judged, (_PACKAGE,))
        or programs.is_bun(judged)
    ):
        return plan, found
    return plan, None


# --- small helpers ----------------------------------------------------------------------


def _session_id_of(parent_path: str) -> str:
    """The session id in a session file name `<time>_<id>.jsonl`: after the first `_`
    (the time holds none; an id given with `--session-id` may: `fix_login`)."""
    stem = parent_path.replace("\\", "/").rpartition("/")[2]
    stem = stem.removesuffix(".jsonl")
    return stem.partition("_")[2] or stem


def _is_json(data: bytes) -> bool:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def _kind_name(kind: str, record: Mapping[str, object]) -> str:
    if kind == "message":
        role = as_dict(record.get("message")).get("role")
        return f"message/{role}" if isinstance(role, str) else "message/<no role>"
    return kind


def _content_text(content: object) -> str | None:
    """User or tool content: a string, or blocks of text and images."""
    if isinstance(content, str):
        return shown_text(content)
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            value = shown_text(block.get("text"))
            if value:
                parts.append(value)
        elif block.get("type") == "image":
            parts.append(_image(block))
    return "\n".join(parts) if parts else None


def _loadout(message: Mapping[str, object]) -> str | None:
    """What a pi 1.x system message changes: its prompt sections and tools, by name."""
    parts: list[str] = []
    sections = as_dict(message.get("sections"))
    if sections:
        parts.append("prompt sections: " + ", ".join(sorted(sections)))
    for key, label in (("toolsAdded", "tools added"), ("toolsRemoved", "removed")):
        value = message.get(key)
        tools = value if isinstance(value, list) else []
        names = [n for t in tools if (n := as_str(as_dict(t).get("name")))]
        if names:
            parts.append(f"{label}: " + ", ".join(names))
    return shown_text("; ".join(parts), keep_empty=False)


def _image(block: Mapping[str, object]) -> str:
    mime = as_str(block.get("mimeType")) or "image"
    return f"[{mime}, {files.human_bytes(decoded_size(block.get('data')))}]"


# pi's `usage` counts, in `Usage`'s order (newer pi: `reasoning` part of `output`)
_COUNTS = ("input", "output", "cacheRead", "cacheWrite", "reasoning")


def _usage(usage: Mapping[str, object], model: str | None) -> Usage:
    """pi's `usage` object (its `input` already leaves the cache out); each count 0
    below 0 (a broken one took as much off the rest)."""
    given, output, cache_read, cache_write, reasoning = (
        max(0, as_int(usage.get(key))) for key in _COUNTS
    )
    return Usage(given, output, cache_read, cache_write, reasoning, model=model)
