"""The codex source's reader: one rollout (and its sub-agents' rollouts) as events.

`read_events` is what `codex.read` returns. A `_Reader` translates one file, skipping the
parent history a fork or sub-agent replays and emitting each doubly-written message once
(`_Pair`); `_merge` interleaves the lead agent's stream with its sub-agents' by time,
holding one pending event per file. The rules are described in `codex.py`'s docstring.
"""

from __future__ import annotations

import heapq
import itertools
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import cast

import orjson

from .. import files, folders
from ..diagnostics import ODD_COUNT, Diagnostics, read_failed
from ..model import Event, EventKind, JSONValue, Session, Usage
from ..wording import count_of
from ._codex_lineage import Segment, earlier_segments, first_record
from ._codex_values import (
    ENCRYPTED,
    EPOCH,
    ROLLOUT_ID,
    agent_named,
    as_dict,
    as_int,
    as_json,
    as_list,
    as_str,
    content_text,
    delivered_in_part,
    effort_of,
    envelope,
    event_prompt,
    harness_line,
    has_origin,
    is_harness,
    lineage_of,
    message_text,
    odd_usage,
    one_line,
    parse_time,
    part_text,
    permission_mode,
    read_errors,
    rollout_id,
    rollouts,
    sandbox_of,
    sealed,
    segment_id,
    summary,
    usage_tuple,
)
from ._values import draft, new_usage, renumber, type_tag

# How long after a sub-agent's creation a line of its parent may still link its spawn.
_SUBAGENT_GRACE = timedelta(seconds=5)
# Lines of a parent rollout remembered to recognise their copy in a fork.
_PARENT_KEYS_CAP = 500_000
# Spawn calls remembered per file until a line names their child.
_DESCRIPTION_CAP = 256
_SPAWN_TOOLS = frozenset({"spawn_agent", "spawn_subagent", "create_agent"})
# the calls a lead waits for its background sub-agents with (`wait` in the first
# multi-agent tools, only once it spawned one: the name alone is too common)
_WAIT_TOOLS = frozenset({"wait_agent"})
_EXIT_CODE = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")

# An `exec_command_end` line, as Codex starts it: `{"timestamp":…,["ordinal":…,]` then
# this; the payload's `{` opens where no other `{` came before (its keys are top-level).
_EXEC_END = b'"type":"event_msg","payload":{"type":"exec_command_end"'
_PAYLOAD_OPENS = len(b'"type":"event_msg","payload":')
_EXEC_END_WITHIN = 200
# Line types that carry nothing a reader of the conversation needs: harness context
# snapshots, per-response usage that `token_count` repeats, inter-agent delivery metadata.
_IGNORED_TYPES = frozenset(
    {
        "world_state",
        "token_usage_record",
        "inter_agent_communication_metadata",
        # answers the user gave the agent (its tool output holds them); classifier scores
        "retained_context",
        "security_risk_score",
        # the tools a thread may call, ids handed to response items (0.171)
        "dynamic_tools_updated",
        "id_allocation",
    }
)
# UI events that repeat a response item (tool outcomes), mark turn starts, echo settings,
# or keep review, goal and approval bookkeeping.
_IGNORED_EVENTS = frozenset(
    {
        "task_started",
        "turn_started",
        "agent_reasoning_section_break",
        "exec_command_begin",
        "exec_command_end",
        "exec_command_output_delta",
        "patch_apply_begin",
        "patch_apply_end",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
        "view_image_tool_call",
        "image_generation_begin",
        "image_generation_end",
        "dynamic_tool_call_request",
        "dynamic_tool_call_response",
        "thread_settings_applied",
        "thread_goal_updated",
        "entered_review_mode",
        "exited_review_mode",
        "guardian_assessment",
        "collab_agent_spawn_begin",
        "collab_waiting_begin",
        "collab_waiting_end",
        "collab_close_begin",
        "collab_close_end",
        "collab_agent_interaction_begin",
        "collab_agent_interaction_end",
        "undo_started",
        "undo_completed",
        "turn_diff",
        "plan_update",
        "background_event",
        "warning",
        "item_started",
        "session_configured",
        "shutdown_complete",
        "mcp_startup_update",
        "mcp_startup_complete",
        "deprecation_notice",
        "hook_started",
        "hook_completed",
        "model_verification",
        "raw_response_item",
        "collab_resume_begin",
        "collab_resume_end",
        "realtime_conversation_closed",  # a voice session ended; what was said is above
    }
)
# Response items that are harness bookkeeping: git states kept for /undo, tool
# declarations, compaction requests, changes to the request's settings (0.171).
_IGNORED_ITEM_TYPES = frozenset(
    {"ghost_snapshot", "additional_tools", "compaction_trigger", "configuration_update"}
)
# Paginated-history items (0.17x) whose content a response item already carries.
_IGNORED_ITEMS = frozenset(
    {
        "Sleep",
        "FunctionCallOutput",
        "InjectedContext",
        "CommandExecution",
        "FileChange",
        "McpToolCall",
        "Extension",
        "CollabAgentToolCall",
        "Plan",
        "WebSearch",
        "ImageView",
        "ImageGeneration",
        "DynamicToolCall",
        "HookPrompt",
        "TodoList",
        "WorkSwarmActivity",  # progress of agents working in a swarm, not what they said
        # a review's start and end: its findings come as the `<user_action>` message
        "EnteredReviewMode",
        "ExitedReviewMode",
    }
)


def read_events(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """The thread's events in order, its sub-agents' merged in (none when reading from `offset`)."""
    path = _session_rollout(session)
    if path is None and (odd := unread_rollout(session)) is not None:
        diagnostics.problem(
            f"codex: thread {session.id}: could not read {folders.shown(odd)} "
            f"({folders.odd_at(odd)}), where its rollout should be"
        )
        return
    if path is None:
        diagnostics.problem(
            f"codex: thread {session.id} has no rollout file left to read"
        )
        return
    if not offset and _empty(path):  # a crash's or a full disk's: said, as one gone is
        diagnostics.problem(
            f"codex: thread {session.id}'s rollout {path} is empty: nothing of it to read"
        )
        return
    finder = _Finder(_home(session, path), session.extra.get("children"))
    main = _Reader(
        path, session.id, None, diagnostics, finder, full=full, offset=offset
    )
    events = main.events() if offset else _merge(main, finder, diagnostics, full)
    for seq, event in enumerate(events):
        yield renumber(event, seq)  # a reader's own draft: numbered in place


# Codex creates a thread's rollout, then writes its first line: a 0-byte one changed
# within these seconds is a thread just started, no damage (`list`, then `show`, takes
# a few); one left empty longer, a crash's or a full disk's
_JUST_CREATED_S = 30


def _empty(path: Path) -> bool:
    """Whether the rollout is there with no byte in it (the state db lists its thread),
    and has been for longer than a thread's start takes."""
    try:
        st = path.stat()
    except OSError:
        return False
    age = time.time() - st.st_mtime
    just_created = -2 < age < _JUST_CREATED_S  # (2 s: a file server's clock ahead)
    return st.st_size == 0 and stat.S_ISREG(st.st_mode) and not just_created


def _session_rollout(session: Session) -> Path | None:
    """The thread's current rollout: the one the state db names where it is on disk (a
    reverted thread has several files), else the listed one."""
    named = session.extra.get("rollout_path")
    if isinstance(named, str) and named and os.path.isfile(named):
        return Path(named)
    for candidate in (session.path, named):
        if isinstance(candidate, str) and candidate and "#threads/" not in candidate:
            return Path(candidate)
    return None


def unread_rollout(session: Session) -> Path | None:
    """The thread's rollout where something else is in its place (a pipe, a folder),
    as the listing found it and it still is."""
    odd = session.extra.get("rollout_unread")
    if isinstance(odd, str) and odd and folders.odd_at(odd):
        return Path(odd)
    return None


def _home(session: Session, path: Path) -> Path | None:
    home = session.extra.get("home")
    if isinstance(home, str) and home:
        return Path(home)
    for parent in path.parents:
        if parent.name in ("sessions", "archived_sessions"):
            return parent.parent
    return None


class _Finder:
    """Finds a thread's rollout by id: the ids the state db named, the same folder, then a listing."""

    def __init__(self, home: Path | None, children: JSONValue | None) -> None:
        self.home = home
        # the children the state db names: their rollout paths and creation times
        self.known: dict[str, str | None] = {}
        self.created: dict[str, datetime | None] = {}
        for child in children if isinstance(children, list) else []:
            if isinstance(child, dict) and isinstance(child.get("id"), str):
                child_id, path = str(child["id"]), child.get("path")
                self.known[child_id] = path if isinstance(path, str) else None
                self.created[child_id] = parse_time(child.get("created"))
        self._listing: dict[str, Path] | None = None
        self._segments: dict[str, Path] = {}

    def find(self, thread_id: str, *near: Path) -> Path | None:
        known = self.known.get(thread_id)
        if known and os.path.isfile(known):
            return Path(known)
        for folder in near:
            if found := _by_thread(folder).get(thread_id):
                return found
        return self._listed()[0].get(thread_id)

    def segment(self, rollout: str, near: Path) -> Path | None:
        """The rollout file whose own id (a `history_base` names it) is `rollout`."""
        return _by_segment(near).get(rollout) or self._listed()[1].get(rollout)

    def _listed(self) -> tuple[dict[str, Path], dict[str, Path]]:
        """Every rollout of the home by thread id (its first file) and by rollout id."""
        if self._listing is None:
            self._listing, self._segments = (
                _home_rollouts(self.home) if self.home is not None else ({}, {})
            )
        return self._listing, self._segments


# Each of these is made once a command (`folders.kept`, within `folders.one_pass`):
# doctor --deep reads each of a day folder's thousands of threads in turn, and each
# read looked through the whole folder (or home) for its parent or older files again.


def _by_thread(folder: Path) -> dict[str, Path]:
    """The folder's rollouts by thread id, the first of a thread's files by name; a
    `.zst` left out (read only through `rollouts`, its plain twin first)."""

    def make() -> dict[str, Path]:
        found: dict[str, Path] = {}
        for entry in folders.entries(folder):
            thread = rollout_id(entry.name)
            if thread and not entry.name.endswith(".zst"):
                found.setdefault(thread, Path(entry.path))
        return found

    return folders.kept(("codex-threads", os.fspath(folder)), make)


def _by_segment(folder: Path) -> dict[str, Path]:
    """The folder's rollouts by their own id (see `segment_id`): a plain file before
    its `.zst` twin."""

    def make() -> dict[str, Path]:
        found: dict[str, Path] = {}
        for path in sorted(entry.path for entry in folders.entries(folder)):
            name = os.path.basename(path)
            if name.startswith("rollout-") and (own := segment_id(name)):
                found.setdefault(own, Path(path))
        return found

    return folders.kept(("codex-segments", os.fspath(folder)), make)


def _home_rollouts(home: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    """Every rollout of the home by thread id (its first file) and by rollout id."""

    def make() -> tuple[dict[str, Path], dict[str, Path]]:
        threads: dict[str, Path] = {}
        segments: dict[str, Path] = {}
        for folder in ("sessions", "archived_sessions"):
            for path in rollouts(home / folder, home, depth=0):
                if found := rollout_id(path.name):
                    threads.setdefault(found, path)
                if own := segment_id(path.name):
                    segments.setdefault(own, path)
        return threads, segments

    return folders.kept(("codex-rollouts", os.fspath(home)), make)


@dataclass(slots=True)
class _Pair:
    """One message Codex writes twice, a response item and a UI event, in either order.

    `first` takes the copy whose text and time we keep, `echo` the other; the echo is held
    until its twin arrives or anything else happens, so each message is emitted once.
    A copy whose words are only ciphertext (`extra["encrypted"]`, a stand-in) is held the
    same way, and gives way to its twin where that one has the words. An echo read after
    a stand-in held as `first` may be its words or the next item's event, written before
    its item: both are held until the next copy says which.
    """

    match_any: bool = False
    pending: Event | None = None
    # the kept copy's text, while its echo may still come: normalised (`_normal`) only
    # when an echo differs from it at all
    said: str | None = None
    # a stand-in held, and whether it came as `first` (its twin would be an echo)
    sealed: Event | None = None
    sealed_first: bool = False

    # These return what to give out now, as a tuple: a generator each would cost more
    # than the rest of a line's work.

    def first(self, event: Event) -> tuple[Event, ...]:
        if self.sealed is not None or event.extra.get("encrypted") is True:
            return self._first_sealed(event)
        if self.pending is not None:
            pending, self.pending = self.pending, None
            if self._same(pending.text, event.text):
                self.said = None
                return (event,)
            self.said = event.text or ""
            return (pending, event)
        self.said = event.text or ""
        return (event,)

    def echo(self, event: Event) -> tuple[Event, ...]:
        if self.sealed is not None or event.extra.get("encrypted") is True:
            return self._echo_sealed(event)
        if self.said is not None and self._same(self.said, event.text):
            return ()
        pending = self.pending
        if pending is not None and self._same(pending.text, event.text):
            return ()
        self.pending = event
        return () if pending is None else (pending,)

    def flush(self) -> tuple[Event, ...]:
        if self.sealed_first and self.pending is not None:
            self.sealed = None  # no item of its own came: the echo held was its words
        held = (self.pending, self.sealed)
        self.pending = self.sealed = None
        return tuple(event for event in held if event is not None)

    def _first_sealed(self, event: Event) -> tuple[Event, ...]:
        if event.extra.get("encrypted") is True:
            return self._seal(event, True)
        words = self.pending if self.sealed_first else None
        if words is not None and not self._same(words.text, event.text):
            return (*self._words(), *self.first(event))
        # the echo held, if any, was this item's event: the stand-in had no words
        return (*self._unseal(now_first=True), *self.first(event))

    def _echo_sealed(self, event: Event) -> tuple[Event, ...]:
        if event.extra.get("encrypted") is True:
            return self._seal(event, False)
        if not self.sealed_first:
            return (*self._unseal(now_first=False), *self.echo(event))
        if self.pending is None:  # its words, or the next item's event: held
            self.pending = event
            return ()
        return (*self._words(), *self.echo(event))

    def _words(self) -> tuple[Event, ...]:
        """The echo held beside a stand-in, given out as its words in its place."""
        words, self.pending, self.sealed = self.pending, None, None
        if words is None:
            return ()
        self.said = words.text or ""
        return (words,)

    def _seal(self, event: Event, as_first: bool) -> tuple[Event, ...]:
        """A stand-in: dropped where its twin already gave the words, else held."""
        if as_first and self.pending is not None:  # the words came first, as its echo
            twin, self.pending = self.pending, None
            self.said = twin.text or ""
            return (*self._unseal(now_first=True), twin)
        if not as_first and self.said is not None:  # the kept copy had the words
            return ()
        held = self.flush()
        self.sealed, self.sealed_first, self.said = event, as_first, None
        return held

    def _unseal(self, *, now_first: bool) -> tuple[Event, ...]:
        """A held stand-in, given out now; none where the copy now read is its twin
        (one came as `first`, the other as its echo): the words take its place."""
        sealed, self.sealed = self.sealed, None
        if sealed is None or self.sealed_first != now_first:
            return ()
        return (sealed,)

    def _same(self, a: str | None, b: str | None) -> bool:
        if self.match_any or a == b:
            return True
        left, right = _normal(a), _normal(b)
        if not left or not right:
            return left == right
        return left == right or left in right or right in left


# an image's or a recording's stand-in: the event names its file, the echo its size.
# Each is a line of its own, whole whatever its file's name holds (`take[1].wav`);
# then one in a line of text, to its first `]`
_MEDIA_PLACEHOLDER = re.compile(
    r"^\[(?:image|audio)(?::[^\n]*)?\]$|\[(?:image|audio)[^\]]*\]", re.MULTILINE
)


def _normal(text: str | None) -> str:
    text = text or ""
    if "[image" in text or "[audio" in text:  # most texts have no stand-in to take out
        text = _MEDIA_PLACEHOLDER.sub(" ", text)
    return " ".join(text.split())


class _Reader:
    """Translates one rollout file into events (its agent's own part; a replayed parent is skipped)."""

    def __init__(
        self,
        path: Path,
        session_id: str,
        agent_id: str | None,
        diagnostics: Diagnostics,
        finder: _Finder,
        *,
        full: bool = False,
        offset: int = 0,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self.agent_id = agent_id
        self.diagnostics = diagnostics
        self.finder = finder
        self.full = full
        self.offset = offset
        self.meta: dict[str, object] = {}
        self.own_id: str | None = None
        self.version: str | None = None
        self.created: datetime | None = None
        self.start_ordinal: int | None = None
        self.has_parent = False
        self.history_base = False
        self.opened: datetime | None = None  # this file's first line: a revert's time
        self.replaying = False
        self.replay_started = False
        self.replay_second: datetime | None = None
        self.parent_keys: set[int] | None = None
        self.model: str | None = None
        self.effort: str | None = None
        self.approval: str | None = None
        self.sandbox: str | None = None
        self.cwd: str | None = None
        self.settings_seen = False
        self.total: tuple[int, ...] | None = None if offset else (0, 0, 0, 0, 0)
        self.user = _Pair()
        self.assistant = _Pair()
        self.thinking = _Pair()
        self.compaction = _Pair(match_any=True)
        self.pairs = (self.user, self.assistant, self.thinking, self.compaction)
        self.spawns: dict[str, tuple[str | None, str | None]] = {}
        # spawn calls, answered at once (the agent works on; the lead waits with wait_agent)
        self.spawn_calls: dict[str, None] = {}
        self.linked: set[str] = set()
        self.inter_agent_said: tuple[JSONValue, JSONValue, str] | None = None
        self.at = (path, 0)  # the file and line read last: where damage is met

    # -- the stream

    def events(self) -> Iterator[Event]:
        if not self.offset:
            yield from self._kept_history()
        start = self.offset
        if start:
            self._load_meta()
            try:
                start = files.line_start(self.path, start)
            except read_errors():
                pass  # the read below says what is wrong with the file
        for line, record in self._records(self.path, start, self._unread):
            yield from self._record(line, record)
        yield from self._flush(None)

    def _records(
        self,
        path: Path,
        offset: int = 0,
        unread: Callable[[bytes], bool] | None = None,
    ) -> Iterator[tuple[files.Line, dict[str, object]]]:
        """A rollout's lines from `offset`; a file that vanishes or breaks is said, once."""
        errors = read_errors()
        try:
            for line, record in files.iter_records(
                path, self.diagnostics, offset=offset, full=self.full, unread=unread
            ):
                self.at = (path, line.number)
                yield line, record
        except FileNotFoundError:
            self.diagnostics.problem(f"codex: {path} vanished while it was read")
        except errors as error:
            self.diagnostics.problem(read_failed("codex", path, error))

    def _unread(self, data: bytes) -> bool:
        """Whether a line is an `exec_command_end` event, dropped unparsed: it repeats the
        call's output (three times over), so parsing it was most of a rollout's reading.
        Never while a fork's replayed lines are matched: any line may end the replay.
        Only a whole line (a cut one is parsed, to be counted as skipped) whose
        top-level `type` and `payload.type` say so, in the order Codex writes them."""
        if self.replaying:
            return False
        at = data.find(_EXEC_END, 0, _EXEC_END_WITHIN)
        return (
            at > 0 and data.find(b"{", 1) == at + _PAYLOAD_OPENS and data.endswith(b"}")
        )

    def _load_meta(self) -> None:
        record = first_record(self.path)
        if record is not None:
            self._identity(as_dict(record.get("payload")), record)
            self.opened = parse_time(record.get("timestamp"))

    # -- a reverted thread's older files

    def _kept_history(self) -> Iterator[Event]:
        """What a reverted thread kept from its older files (`_codex_lineage`), before
        this file's own lines."""
        self._load_meta()
        if not self.history_base:
            return
        for segment in earlier_segments(
            self.path,
            self.meta,
            lambda rollout: self.finder.segment(rollout, self.path.parent),
            self._lost,
        ):
            yield from self._segment(segment)

    def _lost(self, rollout: str) -> None:
        self.diagnostics.problem(
            f"codex: thread {self.session_id} was reverted; the file with its earlier"
            f" turns (rollout {rollout}) is gone, so they are not shown"
        )

    def _segment(self, segment: Segment) -> Iterator[Event]:
        """An older file's kept lines, read as this thread's; of what the revert undid,
        only the spending (still billed, marked `branch: abandoned`) and one `meta` event
        saying how much was left out."""
        undone, kept_total = 0, self.total
        for line, record in self._records(segment.path):
            if record.get("type") == "session_meta":
                continue
            if segment.keeps(line, record):
                yield from self._record(line, record)
                continue
            if not undone:
                yield from self._flush(None)
                kept_total = self.total
            undone += 1
            yield from self._undone(record)
        yield from self._flush(None)
        if undone:
            self.total = kept_total  # this file's counts go on from the kept history
            info: dict[str, JSONValue] = {"rollout": segment.path.name, "lines": undone}
            yield self._new(
                "meta",
                self.opened,
                text=f"reverted: {undone} later lines the revert undid are not shown",
                extra={"abandoned_branch": info},
            )

    def _undone(self, record: Mapping[str, object]) -> Iterator[Event]:
        """A line a revert undid: its model settings and token counts still count."""
        kind, payload = envelope(record)
        if kind == "turn_context":
            self._settings(payload)
        elif kind == "event_msg" and type_tag(payload.get("type")) == "token_count":
            for event in self._token_count(
                payload, parse_time(record.get("timestamp"))
            ):
                yield replace(event, extra={**event.extra, "branch": "abandoned"})

    def _identity(self, meta: dict[str, object], record: Mapping[str, object]) -> None:
        self.meta = meta
        self.own_id = as_str(meta.get("id"))
        self.version = as_str(meta.get("cli_version"))
        self.created = parse_time(meta.get("timestamp")) or parse_time(
            record.get("timestamp")
        )
        self.start_ordinal = as_int(meta.get("subagent_history_start_ordinal"))
        self.has_parent = has_origin(meta)
        self.history_base = isinstance(meta.get("history_base"), dict)

    def _record(self, line: files.Line, record: dict[str, object]) -> Iterable[Event]:
        """The events of one line, the line's own work done at once (a plain function
        handing on its branch's events: no generator of its own for every line)."""
        kind, payload = envelope(record)
        if kind is None:
            if line.number == 1 and not self.offset and "id" in record:
                # the bare era: line 1 is {id, timestamp, instructions, git}
                self._identity(record, record)
            elif "record_type" not in record:  # bare-era state lines carry nothing
                self.diagnostics.unknown_type(
                    str(record.get("type") or "untyped line"), self.version
                )
            return ()
        time = parse_time(record.get("timestamp"))
        if kind == "session_meta":
            if not self.meta:
                self._identity(payload, record)
            elif self._opens_replay(payload):
                self._begin_replay(payload, time)
            return ()
        if self._replayed(record, kind, payload, time):
            self._remember(kind, payload)
            return ()
        if kind == "response_item":
            if harness_line(record):
                return ()
            shown = delivered_in_part(record)
            if shown is not None:  # the line's own text is a stand-in
                payload = {
                    **payload,
                    "content": [{"type": "output_text", "text": shown}],
                }
            return self._item(payload, time)
        if kind == "event_msg":
            return self._event(payload, time)
        if kind == "turn_context":
            return self._turn_context(payload, time)
        if kind == "compacted":
            summary = as_str(payload.get("message"))
            return self._first(
                self.compaction, self._new("compaction", time, text=summary)
            )
        if kind == "inter_agent_communication":  # before agent_message items (0.16x)
            return self._inter_agent(payload, payload.get("content"), time)
        if kind == "realtime_item":
            return self._realtime(payload, time)
        if kind not in _IGNORED_TYPES:
            self.diagnostics.unknown_type(kind, self.version)
        return ()

    # -- replayed history

    def _opens_replay(self, payload: Mapping[str, object]) -> bool:
        other = as_str(payload.get("id"))
        return (
            not self.replay_started
            and self.has_parent
            and self.start_ordinal is None
            and not self.history_base
            and not self.offset
            and other is not None
            and other != self.own_id
        )

    def _begin_replay(
        self, payload: Mapping[str, object], time: datetime | None
    ) -> None:
        self.replaying = self.replay_started = True
        self.replay_second = time.replace(microsecond=0) if time else None
        parent = as_str(payload.get("id"))
        path = self.finder.find(parent, self.path.parent) if parent else None
        if path is not None and path != self.path:
            self.parent_keys = _parent_keys(path)

    def _replayed(
        self,
        record: Mapping[str, object],
        kind: str,
        payload: Mapping[str, object],
        time: datetime | None,
    ) -> bool:
        if self.start_ordinal is not None:
            ordinal = as_int(record.get("ordinal"))
            return ordinal is not None and ordinal < self.start_ordinal
        if not self.replaying:
            return False
        if self.parent_keys is not None:
            key = _replay_key(kind, payload)
            if key is None or hash(key) in self.parent_keys:
                return True
        elif self._within_replay_burst(time):
            return True
        self.replaying = False
        return False

    def _within_replay_burst(self, time: datetime | None) -> bool:
        """With the parent's rollout gone: copied lines are stamped in the copy's first second
        (or keep their original, older times)."""
        if time is None or self.replay_second is None:
            return False
        if time.replace(microsecond=0) == self.replay_second:
            return True
        return self.created is not None and time < self.created

    def _remember(self, kind: str, payload: Mapping[str, object]) -> None:
        """Keep what later lines are measured against: the last token total and settings."""
        if kind == "event_msg" and payload.get("type") == "token_count":
            total = usage_tuple(
                as_dict(as_dict(payload.get("info")).get("total_token_usage"))
            )
            if total is not None:
                self.total = total
        elif kind == "turn_context":
            self._settings(payload)
        elif kind == "event_msg" and payload.get("type") == "model_reroute":
            self.model = as_str(payload.get("to_model")) or self.model

    # -- output helpers

    def _new(
        self,
        kind: EventKind,
        time: datetime | None,
        *,
        text: str | None = None,
        tool: str | None = None,
        call_id: str | None = None,
        is_error: bool = False,
        usage: Usage | None = None,
        extra: dict[str, JSONValue] | None = None,
    ) -> Event:
        """A new event (seq 0); `extra` must be a dict of the caller's own, not kept."""
        return draft(
            self.session_id,
            kind,
            time,
            False,
            self.agent_id,
            text,
            tool,
            call_id,
            is_error,
            usage,
            extra if extra else {},
        )

    def _sealed(self, kind: EventKind, time: datetime | None, shown: str) -> Event:
        """A stand-in for words Codex kept only encrypted: said, and marked so that its
        twin with the words (a UI event) takes its place (`_Pair`)."""
        return self._new(kind, time, text=shown, extra={"encrypted": True})

    # The helpers below return what to give out as a sequence, not a generator: they run
    # for most lines.

    def _flush(self, keep: _Pair | None) -> Sequence[Event]:
        """The echoes the pairs but `keep` still hold, given up in pair order."""
        held: list[Event] = []
        for pair in self.pairs:
            if pair is keep:
                continue
            if pair.pending is not None or pair.sealed is not None:
                held += pair.flush()
        return held

    def _out(self, event: Event) -> Sequence[Event]:
        held = self._flush(None)
        return [*held, event] if held else (event,)

    def _first(self, pair: _Pair, event: Event) -> Sequence[Event]:
        held = self._flush(pair)
        return [*held, *pair.first(event)] if held else pair.first(event)

    def _echo(self, pair: _Pair, event: Event) -> Sequence[Event]:
        held = self._flush(pair)
        return [*held, *pair.echo(event)] if held else pair.echo(event)

    def _turn_end(self, time: datetime | None, reason: str | None) -> Iterable[Event]:
        given = self._out(
            self._new("turn_end", time, extra={"reason": reason} if reason else None)
        )
        for pair in self.pairs:
            pair.said = None
        return given

    # -- turn_context

    def _settings(self, payload: Mapping[str, object]) -> None:
        self.model = as_str(payload.get("model")) or self.model
        self.effort = effort_of(payload) or self.effort
        self.approval = as_str(payload.get("approval_policy")) or self.approval
        self.sandbox = sandbox_of(payload.get("sandbox_policy")) or self.sandbox
        self.cwd = as_str(payload.get("cwd")) or self.cwd
        self.settings_seen = True

    def _turn_context(
        self, payload: Mapping[str, object], time: datetime | None
    ) -> Iterator[Event]:
        before = (
            self.model,
            self.effort,
            permission_mode(self.approval, self.sandbox),
            self.cwd,
        )
        seen = self.settings_seen
        self._settings(payload)
        after = (
            self.model,
            self.effort,
            permission_mode(self.approval, self.sandbox),
            self.cwd,
        )
        if not seen or before == after:
            return
        changes: dict[str, JSONValue] = {}
        said: list[str] = []
        for key, old, new in zip(
            ("model", "effort", "permission_mode", "cwd"), before, after, strict=True
        ):
            if new != old and new is not None:
                changes[key] = new
                said.append(f"{key.replace('_', ' ')}: {old or 'unset'} -> {new}")
        yield from self._out(
            self._new("meta", time, text="; ".join(said), extra=changes)
        )

    # -- response items

    def _item(
        self, payload: Mapping[str, object], time: datetime | None
    ) -> Iterator[Event]:
        item = type_tag(payload.get("type"))
        call_id = as_str(payload.get("call_id"))
        text: str | None
        if item == "message":
            role = payload.get("role")
            if role == "user":
                text, context = message_text(payload)
                if text:
                    yield from self._echo(self.user, self._new("user", time, text=text))
                elif not context and (shown := sealed(payload, "message")):
                    yield from self._echo(self.user, self._sealed("user", time, shown))
            elif role == "assistant":
                text = content_text(payload.get("content"))
                relayed = _relayed(text)
                if relayed is not None:  # an older build's message between agents
                    yield from self._inter_agent(relayed, relayed.get("content"), time)
                elif text:
                    phase = as_str(payload.get("phase"))
                    event = self._new(
                        "assistant",
                        time,
                        text=text,
                        extra={"phase": phase} if phase else None,
                    )
                    yield from self._first(self.assistant, event)
                elif shown := sealed(payload, "message"):
                    event = self._sealed("assistant", time, shown)
                    yield from self._first(self.assistant, event)
            # developer and system messages are the harness's instructions
        elif item == "reasoning":
            text = _reasoning_text(payload)
            if text:
                yield from self._first(
                    self.thinking, self._new("thinking", time, text=text)
                )
            elif shown := sealed(payload, "reasoning"):  # kept for the model alone
                event = self._sealed("thinking", time, shown)
                yield from self._first(self.thinking, event)
        elif item in ("function_call", "custom_tool_call"):
            name = as_str(payload.get("name")) or "tool"
            raw = (
                payload.get("arguments")
                if item == "function_call"
                else payload.get("input")
            )
            value, text = _tool_input(raw)
            extra: dict[str, JSONValue] = {"input": value}
            if namespace := as_str(payload.get("namespace")):
                extra["namespace"] = namespace
            # `wait` once a spawn is made (remembered) or has returned (its child linked)
            if name in _WAIT_TOOLS or (name == "wait" and (self.spawns or self.linked)):
                extra["waits"] = True
            if name in _SPAWN_TOOLS and call_id and isinstance(value, dict):
                self._remember_spawn(call_id, value)
                if len(self.spawn_calls) >= _DESCRIPTION_CAP:
                    self.spawn_calls.pop(next(iter(self.spawn_calls)))
                self.spawn_calls[call_id] = None
            yield from self._out(
                self._new(
                    "tool_call",
                    time,
                    tool=name,
                    call_id=call_id,
                    text=text,
                    extra=extra,
                )
            )
        elif item in ("function_call_output", "custom_tool_call_output"):
            text, failed = _output_text(payload.get("output"))
            if call_id and call_id in self.spawns:
                child = _spawned_thread(payload.get("output"))
                if child:
                    yield from self._link(child, call_id, time)
            launched: dict[str, JSONValue] = (
                {"launched": True}
                if call_id and self.spawn_calls.pop(call_id, 0) is None and not failed
                else {}
            )
            yield from self._out(
                self._new(
                    "tool_result",
                    time,
                    call_id=call_id,
                    text=text,
                    is_error=failed,
                    extra=launched,
                )
            )
        elif item == "local_shell_call":
            action = payload.get("action")
            yield from self._out(
                self._new(
                    "tool_call",
                    time,
                    tool="local_shell",
                    call_id=call_id or as_str(payload.get("id")),
                    extra={"input": as_json(action)},
                )
            )
        elif item in ("web_search_call", "tool_search_call"):
            tool = "web_search" if item == "web_search_call" else "tool_search"
            arguments = (
                payload.get("action")
                if item == "web_search_call"
                else payload.get("arguments")
            )
            yield from self._out(
                self._new(
                    "tool_call",
                    time,
                    tool=tool,
                    call_id=call_id or as_str(payload.get("id")),
                    extra={"input": as_json(arguments)},
                )
            )
        elif item == "tool_search_output":
            names = [
                as_str(as_dict(tool).get("name"))
                for tool in as_list(payload.get("tools"))
            ]
            text = ", ".join(name for name in names if name) or None
            yield from self._out(
                self._new("tool_result", time, call_id=call_id, text=text)
            )
        elif item == "image_generation_call":
            image_id = as_str(payload.get("id"))
            prompt = as_str(payload.get("revised_prompt"))
            yield from self._out(
                self._new(
                    "tool_call",
                    time,
                    tool="image_generation",
                    call_id=image_id,
                    extra={"input": {"prompt": prompt}},
                )
            )
            result = payload.get("result")
            if isinstance(result, str) and result:
                yield from self._out(
                    self._new(
                        "tool_result",
                        time,
                        call_id=image_id,
                        text=summary(result, "image"),
                    )
                )
        elif item == "agent_message":
            yield from self._inter_agent(payload, payload.get("content"), time)
        elif item in ("compaction", "context_compaction", "compaction_summary"):
            yield from self._echo(self.compaction, self._new("compaction", time))
        elif item not in _IGNORED_ITEM_TYPES:
            self.diagnostics.unknown_type(f"response_item/{item}", self.version)

    def _inter_agent(
        self, payload: Mapping[str, object], content: object, time: datetime | None
    ) -> Iterator[Event]:
        """A message between agents (a task sent down, a report sent up), shown as input
        to the agent that received it; a build that wrote both shapes says it once."""
        text = content_text(content) or as_str(content)
        if not text:
            return
        extra: dict[str, JSONValue] = {
            key: value
            for key in ("author", "recipient")
            if (value := as_str(payload.get(key)))
        }
        extra["inter_agent"] = True
        header, carried = _envelope(text)
        if carried:
            extra["message_type"] = header.get("Message Type")
            text = carried
        if text == ENCRYPTED:  # a task sent down is encrypted; the lead's spawn has it
            text = _ENCRYPTED_TASK if header.get("Message Type") == "NEW_TASK" else _ENCRYPTED_MESSAGE  # fmt: skip
        sender = extra.get("author") or header.get("Sender")
        extra["from_agent"] = agent_named(str(sender)) if sender else "another agent"
        said = (extra.get("author"), extra.get("recipient"), text)
        if said == self.inter_agent_said:
            return
        self.inter_agent_said = said
        yield from self._out(self._new("user", time, text=text, extra=extra))

    def _realtime(
        self, payload: Mapping[str, object], time: datetime | None
    ) -> Iterator[Event]:
        """A voice session's transcript segments; its other items are presentation."""
        if type_tag(payload.get("type")) != "transcript_segment":
            return
        data = as_dict(payload.get("data"))
        text = as_str(data.get("text"))
        role = data.get("role")
        if text and role in ("user", "assistant"):
            yield from self._out(
                self._new(
                    "user" if role == "user" else "assistant",
                    time,
                    text=text,
                    extra={"realtime": True},
                )
            )

    # -- UI events

    def _event(
        self, payload: Mapping[str, object], time: datetime | None
    ) -> Iterator[Event]:
        kind = type_tag(payload.get("type"))
        if kind == "user_message":
            text = event_prompt(payload)
            if text:
                yield from self._first(self.user, self._new("user", time, text=text))
        elif kind == "agent_message":
            text = as_str(payload.get("message"))
            if text:
                yield from self._echo(
                    self.assistant, self._new("assistant", time, text=text)
                )
        elif kind in ("agent_reasoning", "agent_reasoning_raw_content"):
            text = as_str(payload.get("text"))
            if text:
                yield from self._echo(
                    self.thinking, self._new("thinking", time, text=text)
                )
        elif kind == "token_count":
            yield from self._token_count(payload, time)
        elif kind in ("task_complete", "turn_complete"):
            error = as_dict(payload.get("error"))
            if message := as_str(error.get("message")):
                yield from self._out(self._new("error", time, text=message))
            yield from self._turn_end(time, "error" if error else None)
        elif kind == "turn_aborted":
            yield from self._turn_end(time, as_str(payload.get("reason")) or "aborted")
        elif kind == "context_compacted":
            yield from self._echo(self.compaction, self._new("compaction", time))
        elif kind in ("error", "stream_error"):
            text = (
                as_str(payload.get("message"))
                or as_str(as_dict(payload.get("error")).get("message"))
                or kind
            )
            yield from self._out(
                self._new(
                    "error",
                    time,
                    text=text,
                    extra={"retrying": True} if kind == "stream_error" else None,
                )
            )
        elif kind == "thread_rolled_back":
            turns = as_int(payload.get("num_turns"))
            yield from self._out(
                self._new(
                    "meta",
                    time,
                    text=f"rolled back {count_of(turns, 'turn')}"
                    if turns is not None
                    else "rolled back turns",
                    extra={"rolled_back_turns": turns},
                )
            )
        elif kind == "model_reroute":  # the provider answered with another model
            model = as_str(payload.get("to_model"))
            if model and model != self.model:
                before, self.model = self.model, model
                reason = as_str(payload.get("reason"))
                yield from self._out(
                    self._new(
                        "meta",
                        time,
                        text=f"model: {before or 'unset'} -> {model} (rerouted"
                        + (f": {reason.replace('_', ' ')})" if reason else ")"),
                        extra={"model": model, "rerouted": True},
                    )
                )
        elif kind == "thread_name_updated":
            name = one_line(payload.get("thread_name"))
            if name:
                yield from self._out(
                    self._new(
                        "meta", time, text=f"renamed: {name}", extra={"title": name}
                    )
                )
        elif kind == "item_completed":
            yield from self._completed(as_dict(payload.get("item")), time)
        elif kind == "collab_agent_spawn_end":
            child = as_str(payload.get("new_thread_id"))
            call_id = as_str(payload.get("call_id"))
            if child:
                yield from self._link(
                    child,
                    call_id,
                    time,
                    as_str(payload.get("prompt")),
                    as_str(payload.get("new_agent_role")),
                )
        elif kind == "sub_agent_activity":
            child = as_str(payload.get("agent_thread_id"))
            if child and payload.get("kind") == "started":
                yield from self._link(child, None, time)
        elif kind not in _IGNORED_EVENTS:
            self.diagnostics.unknown_type(f"event_msg/{kind}", self.version)

    def _completed(
        self, item: Mapping[str, object], time: datetime | None
    ) -> Iterator[Event]:
        """Paginated history (0.17x): items completed in a turn, most of them echoes of response items."""
        kind = type_tag(item.get("type"))
        if kind == "UserMessage":
            text = content_text(item.get("content"))
            if text and not is_harness(text):
                yield from self._first(self.user, self._new("user", time, text=text))
        elif kind == "AgentMessage":
            text = content_text(item.get("content"))
            if text:
                yield from self._echo(
                    self.assistant, self._new("assistant", time, text=text)
                )
        elif kind == "Reasoning":
            parts = [
                *as_list(item.get("summary_text")),
                *as_list(item.get("raw_content")),
            ]
            text = "\n\n".join(part for part in parts if isinstance(part, str) and part)
            if text:
                yield from self._echo(
                    self.thinking, self._new("thinking", time, text=text)
                )
        elif kind == "SubAgentActivity":
            child = as_str(item.get("agent_thread_id"))
            if child and item.get("kind") == "started":
                yield from self._link(
                    child,
                    as_str(item.get("id")),
                    time,
                    None,
                    None,
                    as_str(item.get("agent_path")),
                )
        elif kind == "ContextCompaction":
            yield from self._echo(self.compaction, self._new("compaction", time))
        elif kind not in _IGNORED_ITEMS:
            self.diagnostics.unknown_type(
                f"event_msg/item_completed/{kind}", self.version
            )

    # -- usage

    def _token_count(
        self, payload: Mapping[str, object], time: datetime | None
    ) -> Iterator[Event]:
        info = as_dict(payload.get("info"))
        total = usage_tuple(as_dict(info.get("total_token_usage")))
        last = usage_tuple(as_dict(info.get("last_token_usage")))
        if total is not None:
            if total == self.total:
                return  # the same count written again
            previous, self.total = self.total, total
            if last is None:
                if previous is None:
                    return  # read from an offset: the increase is unknown
                last = tuple(
                    max(0, now - before)
                    for now, before in zip(total, previous, strict=True)
                )
        if last is None or not any(last):
            return
        if odd_usage(info):  # billed as `usage` bills it, and said as it says it
            self.diagnostics.damage(str(self.at[0]), self.at[1], ODD_COUNT)
        fresh, cached, written, output, reasoning = last
        usage = new_usage(
            max(0, fresh - cached - written),
            output,
            cached,
            written,
            reasoning,
            self.model,
        )
        yield from self._out(self._new("usage", time, usage=usage))

    # -- sub-agents

    def _remember_spawn(self, call_id: str, arguments: Mapping[str, object]) -> None:
        if len(self.spawns) >= _DESCRIPTION_CAP:
            self.spawns.pop(next(iter(self.spawns)))
        description = next(
            (
                text
                for key in ("message", "prompt", "task", "items")
                if (text := as_str(arguments.get(key)))
            ),
            None,
        )
        role = as_str(arguments.get("agent_type")) or as_str(arguments.get("role"))
        self.spawns[call_id] = (description, role)

    def _link(
        self,
        child: str,
        call_id: str | None,
        time: datetime | None,
        description: str | None = None,
        agent_type: str | None = None,
        agent_path: str | None = None,
    ) -> Iterator[Event]:
        if child in self.linked or child == self.own_id:
            return
        self.linked.add(child)
        spawned_with, role = (
            self.spawns.pop(call_id, (None, None)) if call_id else (None, None)
        )
        extra: dict[str, JSONValue] = {
            "child_id": child,
            "agent_type": agent_type or role,
        }
        if agent_path:
            extra["agent_path"] = agent_path
            extra["agent_name"] = _agent_name(agent_path)
        text = description or spawned_with or agent_path
        yield from self._out(
            self._new("subagent", time, call_id=call_id, text=text, extra=extra)
        )


@dataclass(slots=True)
class _Stream:
    events: Iterator[Event]
    order: int
    reader: _Reader
    last: datetime = EPOCH


def _merge(
    main: _Reader, finder: _Finder, diagnostics: Diagnostics, full: bool
) -> Iterator[Event]:
    """The lead agent's events with every sub-agent's, in time order, one event per file held at a time.

    A sub-agent opens when a line links its spawn; one only the state db names waits until
    `_SUBAGENT_GRACE` past its creation for such a link, then is announced where it starts.
    """
    counter = itertools.count()
    orders = itertools.count()
    heap: list[tuple[datetime, int, int, Event, _Stream]] = []
    announced: set[str] = {main.session_id}
    waiting = {child: start for child, start in finder.created.items()}

    def push(stream: _Stream, event: Event | None) -> None:
        if event is None:
            return
        if event.time is not None:
            stream.last = event.time
        heapq.heappush(heap, (stream.last, stream.order, next(counter), event, stream))

    def open_stream(child: str, near: Path) -> tuple[_Stream, Event | None] | None:
        path = finder.find(child, near)
        if path is None:
            return None
        reader = _Reader(path, main.session_id, child, diagnostics, finder, full=full)
        stream = _Stream(reader.events(), next(orders), reader)
        return stream, next(stream.events, None)

    main_stream = _Stream(main.events(), next(orders), main)
    push(main_stream, next(main_stream.events, None))
    while heap or waiting:
        if not waiting and len(heap) == 1:
            # one file open, none waiting: its own order, no heap, until a spawn's link
            _, _, _, event, stream = heap.pop()
            while not (
                event.kind == "subagent"
                and isinstance(event.extra.get("child_id"), str)
            ):
                yield event
                following = next(stream.events, None)
                if following is None:
                    break
                event = following
                if event.time is not None:
                    stream.last = event.time
            else:  # a spawn: the heap's way below, which may open another file
                push(stream, event)
            if not heap:
                continue
        head = heap[0][0] if heap else None
        for unlinked, start in list(waiting.items()):
            if head is not None and (start is None or start + _SUBAGENT_GRACE >= head):
                continue
            del waiting[unlinked]
            if (
                unlinked in announced
                or (opened := open_stream(unlinked, main.path.parent)) is None
            ):
                continue
            announced.add(unlinked)
            stream, first = opened
            yield _announce(
                main, stream.reader, unlinked, (first.time if first else None) or start
            )
            push(stream, first)
        if not heap:
            continue
        _, _, _, event, stream = heapq.heappop(heap)
        child = event.extra.get("child_id") if event.kind == "subagent" else None
        if not isinstance(child, str):
            yield event
        elif child not in announced:
            announced.add(child)
            waiting.pop(child, None)
            yield event
            if (opened := open_stream(child, stream.reader.path.parent)) is not None:
                push(*opened)
            else:  # linked by the spawn's output: the thread was made, its file is gone
                diagnostics.child_missing("codex", child)
        push(stream, next(stream.events, None))


def _announce(
    main: _Reader, child: _Reader, child_id: str, start: datetime | None
) -> Event:
    """A spawn no line of the parent links: announced where the child starts."""
    meta = child.meta
    extra: dict[str, JSONValue] = {
        "child_id": child_id,
        "agent_type": lineage_of(meta)[1],
    }
    for key in ("agent_path", "agent_nickname"):
        if value := as_str(meta.get(key)):
            extra[key] = value
    path = as_str(meta.get("agent_path"))
    if path:
        extra["agent_name"] = _agent_name(path)
    text = path or as_str(meta.get("agent_nickname"))
    return Event(main.session_id, 0, "subagent", time=start, text=text, extra=extra)


def _agent_name(path: str) -> str:
    """The task's name, as the lead gave it: /root/greeter -> greeter."""
    return path.rstrip("/").rpartition("/")[2] or path


def _parent_keys(path: Path) -> set[int] | None:
    """What identifies each line of a parent rollout, to recognise its copy in a fork."""
    keys: set[int] = set()
    try:
        for _, record in files.iter_records(path):
            kind, payload = envelope(record)
            key = _replay_key(kind, payload) if kind else None
            if key is not None:
                keys.add(hash(key))
                if len(keys) > _PARENT_KEYS_CAP:
                    return None
    except read_errors():
        return None
    return keys


def _relayed(text: str | None) -> dict[str, object] | None:
    """A message between agents that an older build wrote as an assistant message holding
    its JSON (`{author, recipient, content, …}`), else None."""
    if not text or not text.startswith("{") or '"recipient"' not in text:
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, dict) and {"author", "recipient", "content"} <= value.keys():
        return value
    return None


def _replay_key(
    kind: str | None, payload: Mapping[str, object]
) -> tuple[object, ...] | None:
    """A line's identity that survives being copied: ids, call ids, prompts, token totals; None if it has none."""
    if kind == "session_meta":
        return ("meta", as_str(payload.get("id")))
    if kind == "turn_context":
        turn = as_str(payload.get("turn_id"))
        return ("turn", turn) if turn else None
    if kind == "compacted":
        summary = as_str(payload.get("message"))
        return ("compacted", summary[:500]) if summary else None
    item = type_tag(payload.get("type"))
    if kind == "response_item":
        for key in ("call_id", "id"):
            if value := as_str(payload.get(key)):
                return ("item", item, key, value)
        if item == "message":
            text = content_text(payload.get("content"))
            return (
                ("message", type_tag(payload.get("role")), text[:500]) if text else None
            )
        return None
    if kind == "event_msg":
        if item == "token_count":
            return (
                "tokens",
                usage_tuple(
                    as_dict(as_dict(payload.get("info")).get("total_token_usage"))
                ),
            )
        if item in ("user_message", "agent_message"):
            message = as_str(payload.get("message"))
            return (item, message[:500]) if message else None
        if item == "item_completed":
            return ("completed", as_str(as_dict(payload.get("item")).get("id")))
        for key in ("call_id", "turn_id"):
            if value := as_str(payload.get(key)):
                return ("event", item, value)
    return None


def _reasoning_text(payload: Mapping[str, object]) -> str:
    parts = [
        part_text(part)
        for part in [*as_list(payload.get("summary")), *as_list(payload.get("content"))]
    ]
    return "\n\n".join(part for part in parts if part)


def _tool_input(raw: object) -> tuple[JSONValue, str | None]:
    """(the arguments as JSON where they parse, else the raw string; `text` when they are not JSON)."""
    if not isinstance(raw, str):
        return as_json(raw), None
    if files.elided(raw):
        short = summary(raw, "input")
        return short, short
    stripped = raw.strip()
    if stripped.startswith(("{", "[")):
        try:
            # what orjson gives is JSON already: no copy through `as_json`
            return cast(JSONValue, orjson.loads(stripped)), None
        except orjson.JSONDecodeError:
            pass  # not JSON after all: keep it as text
    return raw, raw


def _output_text(output: object) -> tuple[str | None, bool]:
    """A tool result flattened to text, and whether it says the tool failed."""
    failed = False
    if isinstance(output, str):
        stripped = output.strip()
        if stripped.startswith("{") and '"output"' in stripped:
            try:
                parsed = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                parsed = None
            if isinstance(parsed, dict) and "output" in parsed:
                code = as_int(as_dict(parsed.get("metadata")).get("exit_code"))
                text = parsed.get("output")
                return (
                    summary(text, "output") if isinstance(text, str) else None
                ), bool(code)
        text = summary(output, "output")
        match = _EXIT_CODE.search(text[:512])
        return text, bool(match and match.group(1) != "0")
    if isinstance(output, dict):
        if output.get("success") is False or "Err" in output:
            failed = True
        content = output.get("content", output.get("Ok", output.get("Err", output)))
        if isinstance(content, dict) and "content" in content:
            failed = failed or content.get("isError") is True
            content = content.get("content")
        if isinstance(content, str):
            return summary(content, "output"), failed
        text = content_text(content if isinstance(content, list) else [content])
        return text or None, failed
    if isinstance(output, list):
        return content_text(output) or None, False
    return None, False


def _spawned_thread(output: object) -> str | None:
    """The child thread id a spawn call's output names, if it names one."""
    parsed: object = output
    if isinstance(output, str):
        try:
            parsed = orjson.loads(output)
        except orjson.JSONDecodeError:
            return None
    found = as_dict(parsed)
    for key in ("agent_id", "thread_id", "new_thread_id", "id"):
        value = as_str(found.get(key))
        if value and ROLLOUT_ID.fullmatch(value + ".jsonl"):
            return value
    return None


# a task Codex sent a sub-agent, which it encrypts in the sub-agent's rollout: the
# lead's `spawn_agent` call holds its text (`show` of the lead, `tree`)
_ENCRYPTED_TASK = "[its task, encrypted by Codex: the lead's spawn_agent call holds it]"
_ENCRYPTED_MESSAGE = "[encrypted by Codex]"


def _envelope(text: str) -> tuple[dict[str, str], str | None]:
    """The header Codex 0.17x puts before a message between agents ("Message Type: …",
    "Task name: …", "Sender: …", then "Payload:" and what was said), and what was said;
    ({}, None) for a message without it (0.16x sent them bare)."""
    if not text.startswith("Message Type: "):
        return {}, None
    header: dict[str, str] = {}
    at = 0
    for _ in range(16):  # a few header lines, never a scan of a long message
        end = text.find("\n", at)
        line = text[at:] if end < 0 else text[at:end]
        if line.rstrip() == "Payload:":
            return header, text[end + 1 :].lstrip("\n") if end >= 0 else ""
        key, colon, value = line.partition(": ")
        if not colon or end < 0:
            break
        header[key] = value.strip()
        at = end + 1
    return {}, None
